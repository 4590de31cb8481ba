/* test_cli.c: what the command line promises beyond the golden outputs: --help
 * never acts and never reads the configuration, config show prints a file that
 * loads back, docs/configuration.md's example configuration loads, and a bad value, an
 * unknown key or section, a line libinih would split and an indented line stop at the
 * configuration naming file, line and key; iocontend.conf(5) and the example file
 * name the keys of config.c's table, no more, no fewer; ingest takes --threads and
 * its older name --jobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../cli/internal.h"
#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct pgfixture fx;

static int setup(void **state)
{
    (void)state;
    if (pgfixture_start(&fx) != 0)
        return -1;
    /* A running, migrated database for the tests to leave running. */
    return pgfixture_cmd(&fx, "db migrate") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pgfixture_stop(&fx);
    return 0;
}

/* Writes text to a file in the fixture's state directory; its path into out. */
static void write_conf(const char *name, const char *text, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", fx.state_dir, name);
    FILE *fp = fopen(out, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

static void db_stop_help_leaves_a_running_database_running(void **state)
{
    static const char *const asks[] = {"db stop --help",    "db stop -h",
                                       "db --help stop",    "db init --help",
                                       "db migrate --help", "db start --help"};
    int rc = -1;

    (void)state;
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        char *out = pgfixture_run(&fx, asks[i], &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        assert_non_null(
            strstr(out, "usage: iocontend db init|start|stop|status|migrate"));
        free(out);
        out = pgfixture_run(&fx, "db status", &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0); /* 69 when the server stopped */
        assert_non_null(strstr(out, "server: reachable"));
        free(out);
    }
}

static void help_never_reads_the_configuration(void **state)
{
    static const char *const commands[] = {"analyze", "ingest", "serve", "demo",
                                           "config",  "export", "assoc", "report"};
    char conf[512], args[700];
    int rc = -1;

    (void)state;
    /* A file that fails to load, and one that does not exist: neither is read. */
    write_conf("broken.conf", "[nosuchsection]\nkey = value\n", conf, sizeof conf);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, "--config '%s' %s --help", conf, commands[i]);
        char *out = pgfixture_run(&fx, args, &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "usage: iocontend"));
        free(out);
        snprintf(args, sizeof args, "--config /nonexistent/iocontend.conf %s -h",
                 commands[i]);
        out = pgfixture_run(&fx, args, &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        free(out);
    }
    /* Without --help the broken file stops the program with a usage status. */
    snprintf(args, sizeof args, "--config '%s' config show", conf);
    free(pgfixture_run(&fx, args, &rc));
    assert_int_equal(rc, 64);
}

/* The printed configuration, without its first line (which names the file read). */
static char *shown(const char *conf)
{
    char args[700];
    int rc = -1;

    snprintf(args, sizeof args, "--config '%s' config show", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    char *body = strchr(out, '\n');
    assert_non_null(body);
    memmove(out, body + 1, strlen(body + 1) + 1);
    return out;
}

static void config_show_prints_a_file_that_loads_back(void **state)
{
    char conf[512], again[512];

    (void)state;
    write_conf("first.conf",
               "[serve]\nlisten = 127.0.0.1:9090\ncors_origin = https://dash.example\n"
               "[filesystems]\n/scratch1 = scratch1\n/lus/home = home\n"
               "[devices]\ninclude = ^(sd[a-z]+|md[0-9]+)$\n"
               "[samples]\nsample_offset_s = 0.123456789012345\n"
               "[analysis]\nd_min = 12\nseed = 7\ngranularity_s = 2.385\n"
               "sweep_k_max = 9\nsweep_phases = all\npermutations = 0\n"
               "[group lab] ; the lab run\nexecutable = ^labjob ; its jobs\n"
               "[group small]\nuid = 0, 1000\nnprocs = 1-4\nbytes = 0-512M\n"
               "jobs = 1001,0:1002\n",
               conf, sizeof conf);
    char *first = shown(conf);
    assert_non_null(strstr(first, "sample_offset_s = 0.123456789012345"));
    assert_non_null(strstr(first, "/lus/home = home"));
    assert_non_null(strstr(first, "[group lab]\nexecutable = ^labjob\n"));
    assert_non_null(strstr(first, "[group small]\nuid = 0, 1000\nnprocs = 1-4\n"
                                  "bytes = 0-512M\njobs = 1001,0:1002\n"));
    write_conf("again.conf", first, again, sizeof again);
    char *second = shown(again);
    assert_string_equal(second, first);
    free(first);
    free(second);
}

static void a_bad_device_regex_stops_at_the_configuration_naming_its_line(void **state)
{
    char conf[512], args[700];
    int rc = -1;

    (void)state;
    write_conf("regex.conf",
               "[samples]\nsample_offset_s = 0\n[devices]\ninclude = ^(sd\n", conf,
               sizeof conf);
    snprintf(args, sizeof args, "--config '%s' ingest iostat --fs x /nonexistent 2>&1",
             conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 64);
    assert_non_null(strstr(out, "regex.conf:4:"));
    assert_non_null(strstr(out, "[devices] include"));
    free(out);
}

/* The ```ini block under "# Configuration" in docs/configuration.md, as it stands. */
static void readme_example(char *out, size_t size)
{
    const char *readme = testutil_repo_file("docs/configuration.md");
    assert_non_null(readme);
    FILE *in = fopen(readme, "r");
    assert_non_null(in);
    char line[1024], text[8192] = "";
    size_t len = 0;
    int part = 0; /* 0 before the section, 1 in it, 2 in its block, 3 after */
    while (part < 3 && fgets(line, sizeof line, in) != NULL) {
        if (part == 0 && strcmp(line, "# Configuration\n") == 0) {
            part = 1;
        } else if (part == 1 && strcmp(line, "```ini\n") == 0) {
            part = 2;
        } else if (part == 2 && strcmp(line, "```\n") == 0) {
            part = 3;
        } else if (part == 2) {
            len += (size_t)snprintf(text + len, sizeof text - len, "%s", line);
            assert_true(len < sizeof text);
        }
    }
    fclose(in);
    assert_int_equal(part, 3);
    write_conf("readme.conf", text, out, size);
}

static void the_readmes_example_configuration_loads(void **state)
{
    char conf[512], args[700];
    int rc = -1;

    (void)state;
    readme_example(conf, sizeof conf);
    /* Its conninfo names a server that does not exist: config show only says so. */
    snprintf(args, sizeof args, "--config '%s' config show", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    /* Inline comments are libinih's: after white space, ';' starts one. */
    assert_non_null(strstr(out, "sample_offset_s = 0\n"));
    assert_non_null(strstr(out, "timezone = UTC\n"));
    assert_non_null(strstr(out, "sweep_k_max = 20\n"));
    assert_non_null(strstr(out, "token =\n"));
    assert_non_null(strstr(out, "[group "));
    free(out);
}

/* Runs config show over text and checks it stops with 64 naming want (file:line and
 * key) and why. */
static void refused(const char *text, const char *want, const char *why)
{
    char conf[512], args[700], where[600];
    int rc = -1;

    write_conf("bad.conf", text, conf, sizeof conf);
    snprintf(args, sizeof args, "--config '%s' config show 2>&1", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    snprintf(where, sizeof where, "%s:%s", conf, want);
    if (rc != 64 || strstr(out, where) == NULL || strstr(out, why) == NULL)
        fail_msg("want 64 and '%s' ... '%s', got %d: %s", where, why, rc, out);
    free(out);
}

static void a_misspelled_key_is_refused_with_its_line(void **state)
{
    (void)state;
    refused("[serve]\nlisten = 127.0.0.1:9090\nlisen = 127.0.0.1:9091\n",
            "3: [serve] lisen", "unknown key");
    refused("[analysis]\nd_min = 10\nd-min = 12\n", "3: [analysis] d-min", "unknown key");
    refused("[samples]\nsample_offset = 0.9\n", "2: [samples] sample_offset",
            "unknown key");
    refused("[devices]\nexclude = ^loop\n", "2: [devices] exclude", "unknown key");

    refused("[group lab]\nexecutable = ^labjob\nnproc = 1-4\n", "3: [group lab] nproc",
            "unknown key");
    refused("d_min = 10\n", "1: d_min", "before any [section]");
}

/* [samples] timezone is checked against tzdata when the file is read. */
static void a_time_zone_tzdata_lacks_is_refused(void **state)
{
    (void)state;
    refused("[samples]\ntimezone = Europe/Atlantis\n", "2: [samples] timezone",
            "no time zone 'Europe/Atlantis' in /usr/share/zoneinfo");
    refused("[samples]\ntimezone = ../etc/passwd\n", "2: [samples] timezone",
            "expected an IANA time zone name");
}

/* [devices] names: MAJ:MIN=NAME pairs, checked when the file is read. */
static void device_names_that_do_not_parse_are_refused(void **state)
{
    (void)state;
    refused("[devices]\nnames = 254:0=vda 259=nvme0n1\n", "2: [devices] names",
            "expected MAJOR:MINOR=NAME (e.g. 254:0=vda), got '259=nvme0n1'");
    refused("[devices]\nnames = 254:0=v/da\n", "2: [devices] names",
            "expected MAJOR:MINOR=NAME");
    refused("[devices]\nname = 254:0=vda\n", "2: [devices] name",
            "unknown key; expected include or names");
}

/* A size cap near SIZE_MAX would wrap where the readers add one byte to it. */
static void a_size_cap_beyond_a_tebibyte_is_refused(void **state)
{
    (void)state;
    refused("[ingest]\nmax_file_bytes = 18446744073709551615\n",
            "2: [ingest] max_file_bytes", "from 1 to 1099511627776 (1 TiB)");
    refused("[ingest]\nmax_file_bytes = 1099511627777\n", "2: [ingest] max_file_bytes",
            "from 1 to 1099511627776 (1 TiB)");
}

static void an_unknown_section_is_refused_with_its_line(void **state)
{
    (void)state;
    refused("[serve]\nlisten = 127.0.0.1:9090\n\n[analyse]\nd_min = 10\n",
            "4: unknown section [analyse]", "expected database");
    /* Even empty, and [groups], which older files had and which did nothing. */
    refused("[samples]\n[groups]\n", "2: unknown section [groups]", "[group NAME]");
    refused("[group]\nuid = 0\n", "1: unknown section [group]", "expected database");
    refused("[group a b]\nuid = 0\n", "1: [group a b]", "expected a NAME");
}

/* "[serve]\ncors_origin = https://aaa…\n" whose second line is len bytes. */
static void long_line(char *text, size_t size, size_t len)
{
    const char *key = "cors_origin = https://";
    size_t k = len - strlen(key);

    assert_true(len > strlen(key) && len + 16 < size);
    snprintf(text, size, "[serve]\n%s", key);
    memset(text + strlen(text), 'a', k);
    text[8 + len] = '\0';
    strcat(text, "\n");
}

static void a_line_libinih_would_split_is_refused_with_its_line(void **state)
{
    char text[512], conf[512], args[700];
    int rc = -1;

    (void)state;
    /* 200 bytes without its newline: libinih would read 199 and take the rest for
     * the next line. */
    long_line(text, sizeof text, 200);
    refused(text, "2: cors_origin", "line of 200 bytes, at most 199");
    /* 199 are read whole. */
    long_line(text, sizeof text, 199);
    write_conf("long.conf", text, conf, sizeof conf);
    snprintf(args, sizeof args, "--config '%s' config show", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, strchr(text, '\n') + 1));
    free(out);
}

static void an_indented_line_is_refused_with_its_line(void **state)
{
    (void)state;
    /* libinih would take "  seed = 7" as a second line of d_min's value. */
    refused("[analysis]\nd_min = 10\n  seed = 7\n", "3: indented line 'seed = 7'",
            "may not start with white space");
    refused("[group lab]\nuid = 0\n\n\tnprocs = 1-4\n", "4: indented line 'nprocs",
            "white space");
    /* libinih skips every isspace() byte, \v and \f too: the token would become
     * "secret2". */
    refused("[serve]\ntoken = abc\n\vsecret2\n", "3: indented line 'secret2'",
            "white space");
    refused("[filesystems]\n/a = x\n\f/b = y\n", "3: indented line '/b = y'",
            "white space");
}

/* libinih stops at a NUL byte: the rest of the value would vanish silently. */
static void a_line_with_a_nul_byte_is_refused(void **state)
{
    static const char text[] = "[serve]\ntoken = abc\0def\n";
    char conf[512], args[700], where[600];
    int rc = -1;

    (void)state;
    snprintf(conf, sizeof conf, "%s/nul.conf", fx.state_dir);
    FILE *fp = fopen(conf, "w");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, sizeof text - 1, fp), sizeof text - 1);
    assert_int_equal(fclose(fp), 0);
    snprintf(args, sizeof args, "--config '%s' config show 2>&1", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    snprintf(where, sizeof where, "%s:2: a NUL byte", conf);
    if (rc != 64 || strstr(out, where) == NULL)
        fail_msg("want 64 and '%s', got %d: %s", where, rc, out);
    free(out);
}

static void a_bad_value_is_refused_naming_file_line_and_key(void **state)
{
    (void)state;
    /* '#' starts a comment only at the start of a line; ';' only after white space. */
    refused("[samples]\nsample_offset_s = 0.9 # seconds\n",
            "2: [samples] sample_offset_s",
            "expected a finite number, got '0.9 # seconds'");
    refused("[samples]\nsample_offset_s = 0.9;seconds\n", "2: [samples] sample_offset_s",
            "expected a finite number");
    /* strtod takes them; θ would be NAN in every series. */
    refused("[samples]\nsample_offset_s = nan\n", "2: [samples] sample_offset_s",
            "expected a finite number");
    refused("[samples]\nsample_offset_s = -inf\n", "2: [samples] sample_offset_s",
            "expected a finite number");
    /* Beyond 2^53 a seed read as a double would change without a word. */
    refused("[analysis]\nseed = 9007199254740993\n", "2: [analysis] seed", "range");
    refused("[serve]\nlisten = nowhere\n", "2: [serve] listen", "");
    refused("[analysis]\nsweep_k_max = 0\n", "2: [analysis] sweep_k_max", "out of range");
    refused("[analysis]\npermutations = 1.5\n", "2: [analysis] permutations", "range");
    /* The gap rule's keys: xff below 1, fill_max whole from 0 to 10. */
    refused("[samples]\nxff = 1\n", "2: [samples] xff",
            "expected a fraction from 0 to below 1, got '1'");
    refused("[samples]\nxff = -0.1\n", "2: [samples] xff", "from 0 to below 1");
    refused("[samples]\nfill_max = 11\n", "2: [samples] fill_max", "from 0 to 10");
    refused("[samples]\nfill_max = 1.5\n", "2: [samples] fill_max", "whole number");
    refused("[analysis]\nprofile = strict\n", "2: [analysis] profile",
            "expected default or paper");
    refused("[group lab]\nexecutable = ^lab(\n", "2: [group lab] executable",
            "POSIX extended regex");
    refused("[group lab]\nnprocs = 8-4\n", "2: [group lab] nprocs", "A <= B");
    refused("[group lab]\nbytes = 1X-2G\n", "2: [group lab] bytes", "K, M, G or T");
    refused("[group lab]\nuid = 0,x\n", "2: [group lab] uid", "uids");
    refused("[group lab]\njobs = 1001,,1002\n", "2: [group lab] jobs", "job ids");
    refused("[group lab]\nuid = 0\nuid = 1\n", "3: [group lab] uid", "given twice");
    refused("[group lab]\n; nothing\n", "1: [group lab]", "at least one of");
    refused("[group lab]\nuid = 0\n[group lab]\nuid = 1\n", "3: [group lab]",
            "defined twice");
}

/* glibc's regcomp would copy the nested repeats into millions of positions: seconds
 * and gigabytes, or a crash, before any error (make fuzz found both). */
static void a_regex_whose_repeats_multiply_past_the_limit_is_refused(void **state)
{
    (void)state;
    refused("[devices]\ninclude = ((a{255}){255}){255}\n", "2: [devices] include",
            "past 4096 positions");
    refused("[group lab]\nexecutable = ((x{99}){99}){99}(\n", "2: [group lab] executable",
            "past 4096 positions");
    refused("[devices]\ninclude = ^[[:alpha:]{]{4097}$\n", "2: [devices] include",
            "past 4096 positions");
    /* Empty groups are nodes too: this one overflowed regcomp's recursion. */
    refused("[devices]\ninclude = ((){255}){255}){255}\n", "2: [devices] include",
            "past 4096 positions");
    /* X+ is X X*: twelve of them make 4096 copies. */
    refused("[group lab]\nexecutable = (x{99})++++++++++++\n",
            "2: [group lab] executable", "past 4096 positions");
    /* A few hundred positions, but seconds of epsilon closures in glibc. */
    refused("[devices]\ninclude = a?????+++++++\n", "2: [devices] include",
            "a repeat right after a repeat");
    refused("[devices]\ninclude = ^sd.*?$\n", "2: [devices] include",
            "POSIX leaves undefined");
    /* 3,400 positions, but over a minute of glibc's epsilon closures. */
    refused("[devices]\ninclude = ^(||||||||||||||i{49,}d){49,}\n",
            "2: [devices] include", "an empty alternative");
    refused("[devices]\ninclude = ^(sd|)$\n", "2: [devices] include",
            "an empty alternative");
}

/* Repeats up to the limit, classes and escapes still load. */
static void a_regex_with_modest_repeats_loads(void **state)
{
    char conf[512], args[700];
    int rc = -1;

    (void)state;
    write_conf("repeats.conf",
               "[devices]\ninclude = ^(nvme[0-9]{1,3}n[0-9]{1,3}|[[:alpha:]]{2,8}\\{)$\n"
               "[group lab]\nexecutable = ^(lab){2}(x{60}){64}$\n",
               conf, sizeof conf);
    snprintf(args, sizeof args, "--config '%s' config show 2>&1", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    if (rc != 0)
        fail_msg("want 0, got %d: %s", rc, out);
    free(out);
}

/* A global option after the command is refused (64) with where it goes, before
 * anything runs: the state directory it names is not made. */
static void a_global_option_after_the_command_says_to_put_it_before(void **state)
{
    static const struct {
        const char *args, *option;
    } cases[] = {
        {"analyze --state-dir", "--state-dir"},
        {"db status --quiet", "--quiet"},
        {"ingest darshan --db dbname=x /nonexistent", "--db"},
        {"export jobs --config=/nonexistent.conf", "--config"},
        {"serve --log-level debug", "--log-level"},
    };
    char missing[400], args[600], cmd[1200], want[200];

    (void)state;
    snprintf(missing, sizeof missing, "%s/not-made", fx.state_dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* The first one's state directory is one not to be made. */
        snprintf(args, sizeof args, "%s%s%s%s", cases[i].args, i == 0 ? " '" : "",
                 i == 0 ? missing : "", i == 0 ? "'" : "");
        snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", fx.bin, args);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        char out[2048] = "";
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        int rc = pclose(p);
        snprintf(want, sizeof want, "%s is a global option: put it before the command",
                 cases[i].option);
        if (strstr(out, want) == NULL)
            fail_msg("%s said:\n%s", args, out);
        assert_true(WIFEXITED(rc));
        assert_int_equal(WEXITSTATUS(rc), 64);
    }
    assert_int_equal(access(missing, F_OK), -1);
}

/* `iocontend [--config conf] serve --listen listen` until it logged that it serves
 * (or 30 s passed), then SIGTERM: what it printed on stdout and stderr, new. */
static char *serve_start_output(const char *listen, const char *conf)
{
    int fds[2];
    char *out = calloc(1, 16384);
    size_t len = 0;

    assert_non_null(out);
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        if (conf != NULL) {
            execl(fx.bin, fx.bin, "--config", conf, "serve", "--listen", listen,
                  (char *)NULL);
        } else {
            execl(fx.bin, fx.bin, "serve", "--listen", listen, (char *)NULL);
        }
        _exit(127);
    }
    close(fds[1]);
    for (double t0 = testutil_now_s();
         strstr(out, "serving the API on") == NULL && testutil_now_s() - t0 < 30;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        if (poll(&p, 1, 1000) <= 0)
            continue;
        ssize_t n = read(fds[0], out + len, 16383 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        out[len] = '\0';
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    close(fds[0]);
    return out;
}

/* The API open (no token) on an address other hosts reach: serve says so at the
 * start, naming [serve] token; on loopback, or with a token, it does not. */
static void an_open_api_on_a_public_address_is_warned_of(void **state)
{
    static const char warning[] = "with no token: anyone who can reach it reads the API";
    char conf[600];

    (void)state;
    unsetenv("IOCONTEND_TOKEN");
    char *out = serve_start_output("0.0.0.0:0", NULL);
    if (strstr(out, warning) == NULL || strstr(out, "set [serve] token") == NULL ||
        strstr(out, "warn: serving on 0.0.0.0:") == NULL)
        fail_msg("serve on 0.0.0.0 said:\n%s", out);
    free(out);
    out = serve_start_output("127.0.0.1:0", NULL);
    if (strstr(out, "serving the API on 127.0.0.1:") == NULL ||
        strstr(out, warning) != NULL)
        fail_msg("serve on 127.0.0.1 said:\n%s", out);
    free(out);
    write_conf("token.conf", "[serve]\ntoken = s3cret-token\n", conf, sizeof conf);
    out = serve_start_output("0.0.0.0:0", conf);
    if (strstr(out, "serving the API on 0.0.0.0:") == NULL ||
        strstr(out, warning) != NULL)
        fail_msg("serve on 0.0.0.0 with a token said:\n%s", out);
    free(out);
}

/* ingest's thread count is --threads, and --jobs, its older name, still works: each
 * takes its value (a bad one is refused naming the option typed), each loads. */
static void ingest_takes_threads_and_its_older_name_jobs(void **state)
{
    static const char *const names[] = {"threads", "jobs"};
    char dir[512], args[800], want[160];
    int rc = -1;

    (void)state;
    snprintf(dir, sizeof dir, "%s/no-logs", fx.state_dir);
    assert_int_equal(mkdir(dir, 0700) == 0 || errno == EEXIST, 1);
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "ingest darshan --%s 0 '%s' 2>&1", names[i], dir);
        char *out = pgfixture_run(&fx, args, &rc);
        assert_non_null(out);
        snprintf(want, sizeof want,
                 "iocontend ingest: --%s takes a number of threads from 1 to 1024, got "
                 "'0'",
                 names[i]);
        if (rc != 64 || strstr(out, want) == NULL)
            fail_msg("%s: want 64 and '%s', got %d: %s", args, want, rc, out);
        free(out);
        snprintf(args, sizeof args, "ingest darshan --%s 2 --json '%s'", names[i], dir);
        out = pgfixture_run(&fx, args, &rc);
        assert_non_null(out);
        if (rc != 0 || out[0] != '{')
            fail_msg("%s: want 0 and a summary, got %d: %s", args, rc, out);
        free(out);
    }
}

/* ---- the key table, the man page and the example file ---------------------------- */

#define NAMED_MAX 64

/* The keys a document names: "section key" each, and what follows "key = ". */
struct named {
    char key[NAMED_MAX][96];
    char arg[NAMED_MAX][64];
    size_t n;
};

static void named_add(struct named *d, const char *section, const char *key,
                      const char *arg)
{
    assert_true(d->n < NAMED_MAX);
    snprintf(d->key[d->n], sizeof d->key[d->n], "%s %s", section, key);
    snprintf(d->arg[d->n], sizeof d->arg[d->n], "%s", arg);
    d->n++;
}

static const char *named_find(const struct named *d, const char *section_key)
{
    for (size_t i = 0; i < d->n; i++) {
        if (strcmp(d->key[i], section_key) == 0)
            return d->arg[i];
    }
    return NULL;
}

/* The sections whose keys are fixed: [filesystems]' keys are mount prefixes. */
static bool fixed_section(const char *section)
{
    return section[0] != '\0' && strcmp(section, "filesystems") != 0;
}

/* iocontend.conf(5): each '.BI "key = " ARG' under its '.SH "[section]"'. */
static void man_keys(struct named *d)
{
    size_t len;
    char *src = testutil_read_file(testutil_repo_file("man/iocontend.conf.5"), &len);
    char section[64] = "";

    assert_non_null(src);
    for (char *line = strtok(src, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char key[64];
        int at = 0;
        if (sscanf(line, ".SH \"[%63[^]]]\"", section) == 1)
            continue;
        if (strncmp(line, ".SH ", 4) == 0)
            section[0] = '\0';
        else if (fixed_section(section) &&
                 sscanf(line, ".BI \"%63[a-z_] = \" %n", key, &at) == 1 && at > 0)
            named_add(d, section, key, line + at);
    }
    free(src);
}

/* dist/iocontend.conf.example: each "key =" or ";key =" under its "[section]" (or
 * ";[group NAME]"). */
static void example_keys(struct named *d)
{
    size_t len;
    char *src =
        testutil_read_file(testutil_repo_file("dist/iocontend.conf.example"), &len);
    char section[64] = "";

    assert_non_null(src);
    for (char *line = strtok(src, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char key[64];
        const char *s = line[0] == ';' ? line + 1 : line;
        if (sscanf(s, "[%63[^]]]", section) == 1) {
            if (strncmp(section, "group ", 6) == 0)
                snprintf(section, sizeof section, "group NAME");
            continue;
        }
        int at = 0;
        if (fixed_section(section) && sscanf(s, "%63[a-z_] =%n", key, &at) == 1 && at > 0)
            named_add(d, section, key, "");
    }
    free(src);
}

/* The table's keys and [group NAME]'s (group_key_name), each named once in each
 * document, with the table's argument in the man page; and no key the table lacks. */
static void the_man_page_and_the_example_name_the_tables_keys(void **state)
{
    struct named table = {0}, man = {0}, example = {0};
    const char *section, *key, *arg;

    (void)state;
    for (size_t i = 0; app_config_key_at(i, &section, &key, &arg); i++)
        named_add(&table, section, key, arg);
    for (int k = 0; k < GROUP_KEYS; k++)
        named_add(&table, "group NAME", group_key_name((enum group_key)k), "");
    assert_true(table.n >= 30);
    man_keys(&man);
    example_keys(&example);
    for (size_t i = 0; i < table.n; i++) {
        const char *in_man = named_find(&man, table.key[i]);
        if (in_man == NULL || named_find(&example, table.key[i]) == NULL)
            fail_msg("[%s] is in the table but not in %s", table.key[i],
                     in_man == NULL ? "iocontend.conf(5)" : "iocontend.conf.example");
        if (table.arg[i][0] != '\0' && strcmp(in_man, table.arg[i]) != 0)
            fail_msg("iocontend.conf(5) gives [%s] '%s', the table '%s'", table.key[i],
                     in_man, table.arg[i]);
    }
    const struct named *docs[] = {&man, &example};
    for (size_t d = 0; d < 2; d++) {
        for (size_t i = 0; i < docs[d]->n; i++) {
            if (named_find(&table, docs[d]->key[i]) == NULL)
                fail_msg("[%s] is in %s but not in the table", docs[d]->key[i],
                         d == 0 ? "iocontend.conf(5)" : "iocontend.conf.example");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(db_stop_help_leaves_a_running_database_running),
        cmocka_unit_test(help_never_reads_the_configuration),
        cmocka_unit_test(config_show_prints_a_file_that_loads_back),
        cmocka_unit_test(a_bad_device_regex_stops_at_the_configuration_naming_its_line),
        cmocka_unit_test(the_readmes_example_configuration_loads),
        cmocka_unit_test(a_misspelled_key_is_refused_with_its_line),
        cmocka_unit_test(a_time_zone_tzdata_lacks_is_refused),
        cmocka_unit_test(device_names_that_do_not_parse_are_refused),
        cmocka_unit_test(a_size_cap_beyond_a_tebibyte_is_refused),
        cmocka_unit_test(an_unknown_section_is_refused_with_its_line),
        cmocka_unit_test(a_line_libinih_would_split_is_refused_with_its_line),
        cmocka_unit_test(an_indented_line_is_refused_with_its_line),
        cmocka_unit_test(a_line_with_a_nul_byte_is_refused),
        cmocka_unit_test(a_bad_value_is_refused_naming_file_line_and_key),
        cmocka_unit_test(a_regex_whose_repeats_multiply_past_the_limit_is_refused),
        cmocka_unit_test(a_regex_with_modest_repeats_loads),
        cmocka_unit_test(a_global_option_after_the_command_says_to_put_it_before),
        cmocka_unit_test(an_open_api_on_a_public_address_is_warned_of),
        cmocka_unit_test(the_man_page_and_the_example_name_the_tables_keys),
        cmocka_unit_test(ingest_takes_threads_and_its_older_name_jobs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
