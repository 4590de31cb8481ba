/* test_install.c: `make install DESTDIR=...` and what it puts there: the programs
 * run from DESTDIR and serve the installed page, systemd-analyze verifies the units
 * (with systemd's own units under the same root) and finds iocontend.service
 * sandboxed, man renders both pages without a warning and they name every command,
 * option and configuration key the program has, the example configuration is the
 * defaults, the nightly script runs every step, and `make uninstall` takes it all
 * back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../../sql/db.h"
#include "../support/pgfixture.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The default PREFIX, as the Makefile has it. */
#define PREFIX  "/usr/local"
#define UNITDIR PREFIX "/lib/systemd/system"

static const char *const units[] = {"iocontend.service", "iocontend-db.service",
                                    "iocontend-nightly.service",
                                    "iocontend-nightly.timer"};
#define N_UNITS (sizeof units / sizeof units[0])

static struct {
    char root[PATH_MAX];  /* the checkout, where the Makefile is */
    char build[PATH_MAX]; /* BUILD for make: relative to root when inside it */
    char dest[64];        /* DESTDIR, a mkdtemp directory */
    char bin[256];        /* the installed iocontend */
} fx;

/* The throwaway embedded cluster the tests that run as the units' users share (one
 * initdb: seconds on a loaded machine), stopped by group_teardown. */
static struct {
    struct pgfixture db;
    bool up;
} cluster;

/* The shared cluster, started at the first call; NULL when it cannot start. */
static struct pgfixture *shared_cluster(void)
{
    if (!cluster.up && pgfixture_start(&cluster.db) == 0)
        cluster.up = true;
    return cluster.up ? &cluster.db : NULL;
}

/* The command's output (stdout; add 2>&1 for stderr) and exit status; fails the test
 * when it cannot run. Caller frees. */
static char *run(int *rc, const char *fmt, ...) PRINTF_LIKE(2, 3);

static char *run(int *rc, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    char *out = testutil_run(cmd, rc);
    assert_non_null(out);
    return out;
}

/* make TARGET in the checkout, into DESTDIR; the parent make's jobserver and level
 * are not this one's. 0 on success, the output printed otherwise. */
static int make_target(const char *target)
{
    int rc = -1;
    char *out = run(&rc,
                    "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
                    "--no-print-directory BUILD='%s' DESTDIR='%s' %s 2>&1",
                    fx.root, fx.build, fx.dest, target);
    if (rc != 0)
        print_error("make %s exited %d:\n%s\n", target, rc, out);
    free(out);
    return rc;
}

/* DESTDIR/rel, in static storage (until the next call). */
static const char *dest(const char *rel)
{
    static char path[512];

    snprintf(path, sizeof path, "%s%s", fx.dest, rel);
    return path;
}

static int group_setup(void **state)
{
    char dir[PATH_MAX], bdir[PATH_MAX];
    const char *makefile = testutil_repo_file("Makefile");
    const char *bin = getenv("IOCONTEND_BIN");

    (void)state;
    unsetenv("IOCONTEND_WEB_DIR");
    if (makefile == NULL || bin == NULL) {
        fprintf(stderr, "install: needs the checkout's Makefile and $IOCONTEND_BIN\n");
        return -1;
    }
    snprintf(dir, sizeof dir, "%s", makefile);
    snprintf(bdir, sizeof bdir, "%s", bin);
    if (realpath(dirname(dir), fx.root) == NULL || realpath(dirname(bdir), dir) == NULL)
        return -1;
    size_t n = strlen(fx.root);
    if (strncmp(dir, fx.root, n) == 0 && dir[n] == '/') {
        snprintf(fx.build, sizeof fx.build, "%s", dir + n + 1);
    } else {
        snprintf(fx.build, sizeof fx.build, "%s", dir);
    }
    snprintf(fx.dest, sizeof fx.dest, "/tmp/iocontend-install-XXXXXX");
    /* Under /tmp, not $TMPDIR, and 0755 (mkdtemp makes it 0700): the user iocontend
     * runs the installed serve from it. */
    if (mkdtemp(fx.dest) == NULL || chmod(fx.dest, 0755) != 0)
        return -1;
    snprintf(fx.bin, sizeof fx.bin, "%s%s/bin/iocontend", fx.dest, PREFIX);
    return make_target("install") == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    int rc;

    (void)state;
    if (cluster.up)
        pgfixture_stop(&cluster.db);
    if (fx.dest[0] != '\0')
        free(run(&rc, "rm -rf '%s'", fx.dest));
    return 0;
}

static mode_t mode_of(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        print_error("%s: missing\n", path);
        return 0;
    }
    return st.st_mode & 07777;
}

static void install_puts_every_file_under_destdir(void **state)
{
    static const struct {
        const char *rel;
        mode_t mode;
    } files[] = {
        {PREFIX "/bin/iocontend", 0755},
        {PREFIX "/bin/iocontend-gen", 0755},
        {PREFIX "/libexec/iocontend/iocontend-nightly", 0755},
        {PREFIX "/share/iocontend/web/index.html", 0644},
        {PREFIX "/share/man/man1/iocontend.1", 0644},
        {PREFIX "/share/man/man5/iocontend.conf.5", 0644},
        {"/etc/iocontend/iocontend.conf.example", 0644},
        {"/etc/iocontend/nightly.conf", 0644},
        {PREFIX "/lib/sysusers.d/iocontend.conf", 0644},
        {UNITDIR "/iocontend.service", 0644},
        {UNITDIR "/iocontend-db.service", 0644},
        {UNITDIR "/iocontend-nightly.service", 0644},
        {UNITDIR "/iocontend-nightly.timer", 0644},
    };
    (void)state;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (mode_of(dest(files[i].rel)) != files[i].mode)
            print_error("%s: mode %04o\n", files[i].rel, mode_of(dest(files[i].rel)));
        assert_int_equal(mode_of(dest(files[i].rel)), files[i].mode);
    }
    /* The templates' placeholders are all filled, with the installed paths. */
    int rc;
    char *left = run(&rc, "grep -rl '@[A-Z]*DIR@' '%s' 2>&1", fx.dest);
    assert_string_equal(left, "");
    free(left);
    char *exec = run(&rc,
                     "grep -h '^ExecStart=' '%s%s/iocontend.service' '%s%s/"
                     "iocontend-nightly.service'",
                     fx.dest, UNITDIR, fx.dest, UNITDIR);
    assert_string_equal(exec,
                        "ExecStart=" PREFIX "/bin/iocontend serve\n"
                        "ExecStart=" PREFIX "/libexec/iocontend/iocontend-nightly\n");
    free(exec);
    /* RestrictNamespaces keeps ingest from hiding /sys from sadf (ingest/load/sadf.c):
     * the unit hides /sys/dev itself, or sa devices take the ingesting host's names. */
    char *hidden =
        run(&rc, "grep -h '^TemporaryFileSystem=' '%s%s/iocontend-nightly.service'",
            fx.dest, UNITDIR);
    assert_string_equal(hidden, "TemporaryFileSystem=/sys/dev:ro\n");
    free(hidden);
}

static void installed_binary_answers_help_and_version(void **state)
{
    int rc;

    (void)state;
    char *mine = run(&rc, "'%s' --version", fx.bin);
    assert_int_equal(rc, 0);
    char *built = run(&rc, "'%s' --version", getenv("IOCONTEND_BIN"));
    assert_string_equal(mine, built);
    assert_true(strncmp(mine, "iocontend ", 10) == 0);
    /* `version` says the same, and the schema this binary migrates to; it reads no
     * configuration (a broken one still lets it answer). */
    char *cmd = run(&rc, "'%s' --config /nonexistent/iocontend.conf version", fx.bin);
    assert_int_equal(rc, 0);
    assert_string_equal(cmd, mine);
    char want[64];
    snprintf(want, sizeof want, "\nschema version %d\n", db_schema_latest());
    assert_non_null(strstr(mine, want));
    assert_non_null(strstr(mine, "iocontend " IOCONTEND_VERSION "\n"));
    free(cmd);
    free(mine);
    free(built);
    char *help = run(&rc, "'%s' --help", fx.bin);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(help, "usage: iocontend"));
    assert_non_null(strstr(help, "config show"));
    free(help);
}

/* The installed binary, far from the checkout, serves the installed copy of the page:
 * a mark added to that copy comes back. */
static void installed_serve_finds_the_installed_page(void **state)
{
    static const char mark[] = "<!-- installed copy -->\n";
    struct pgfixture none = {0};
    struct server srv;
    char conf[512], page[512];
    int status = 0;
    char *body = NULL;
    size_t len;

    (void)state;
    snprintf(page, sizeof page, "%s", dest(PREFIX "/share/iocontend/web/index.html"));
    char *html = testutil_read_file(page, &len);
    assert_non_null(html);
    char *marked = malloc(len + sizeof mark);
    assert_non_null(marked);
    memcpy(marked, html, len);
    memcpy(marked + len, mark, sizeof mark);
    assert_int_equal(testutil_write_file(page, marked, len + sizeof mark - 1), 0);
    /* No database is needed for the page: a server nobody runs. */
    snprintf(conf, sizeof conf, "%s", dest("/page-test.conf"));
    static const char text[] = "[database]\nconninfo = host=/nonexistent-iocontend "
                               "dbname=none connect_timeout=1\n";
    assert_int_equal(testutil_write_file(conf, text, sizeof text - 1), 0);
    snprintf(none.bin, sizeof none.bin, "%s", fx.bin);
    assert_int_equal(server_start(&srv, &none, conf), 0);
    int got = http_get(SERVER_HOST, srv.port, "/", NULL, &status, &body);
    server_stop(&srv);
    assert_int_equal(got, 0);
    assert_int_equal(status, 200);
    assert_non_null(body);
    assert_non_null(strstr(body, "installed copy"));
    /* Back as installed, for uninstall. */
    assert_int_equal(testutil_write_file(page, html, len), 0);
    unlink(conf);
    free(body);
    free(html);
    free(marked);
}

/* systemd-analyze verify over the installed units, under DESTDIR as the root, with
 * systemd's own units there and man finding the installed pages (Documentation=):
 * it must say nothing at all, since an unknown key is only a warning. */
static char *verify(int *rc, const char *unit_dir)
{
    char list[2048] = "";

    for (size_t i = 0; i < N_UNITS; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, " '%s/%s'", unit_dir, units[i]);
    }
    return run(rc, "MANPATH='%s%s/share/man' systemd-analyze verify --root='%s'%s 2>&1",
               fx.dest, PREFIX, fx.dest, list);
}

static void units_pass_systemd_analyze_verify(void **state)
{
    int rc;

    (void)state;
    if (access(dest("/usr/lib/systemd/system/sysinit.target"), F_OK) != 0) {
        char *out = run(&rc,
                        "mkdir -p '%s/usr/lib/systemd' && cp -a "
                        "/usr/lib/systemd/system '%s/usr/lib/systemd/' 2>&1",
                        fx.dest, fx.dest);
        assert_int_equal(rc, 0);
        free(out);
    }
    char *out = verify(&rc, dest(UNITDIR));
    if (rc != 0 || out[0] != '\0')
        print_error("systemd-analyze verify exited %d:\n%s\n", rc, out);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "");
    free(out);

    /* The same check fails on a unit whose program is not where it says (edited in
     * place: verify finds a unit by its name in the root's search path). */
    char unit[512], saved[512 + 8];
    snprintf(unit, sizeof unit, "%s", dest(UNITDIR "/iocontend.service"));
    snprintf(saved, sizeof saved, "%s.saved", unit);
    out = run(&rc,
              "cp '%s' '%s' && sed -i 's|bin/iocontend serve|bin/iocontend-missing "
              "serve|' '%s' 2>&1",
              unit, saved, unit);
    assert_int_equal(rc, 0);
    free(out);
    int broken_rc;
    char *broken = verify(&broken_rc, dest(UNITDIR));
    assert_int_equal(rename(saved, unit), 0);
    assert_int_not_equal(broken_rc, 0);
    assert_non_null(strstr(broken, "iocontend-missing"));
    free(broken);
}

/* The value of key= in the installed unit (the last one given, "" when none), in
 * static storage (until the next call). */
static const char *unit_value(const char *unit, const char *key)
{
    static char value[256];
    int rc;

    char *out =
        run(&rc, "sed -n 's/^%s=//p' '%s%s/%s' | tail -n 1", key, fx.dest, UNITDIR, unit);
    out[strcspn(out, "\n")] = '\0';
    snprintf(value, sizeof value, "%s", out);
    free(out);
    return value;
}

/* systemd's own review of the sandbox: every installed service's exposure is at
 * most 2.0 of 10, the top of what systemd-analyze calls "OK" (the nightly unit,
 * once root with no limits, was 4.3; the database's 7.2). */
static void every_unit_is_sandboxed(void **state)
{
    static const char *const services[] = {"iocontend.service", "iocontend-db.service",
                                           "iocontend-nightly.service"};
    int rc;

    (void)state;
    for (size_t i = 0; i < sizeof services / sizeof services[0]; i++) {
        char *out = run(&rc,
                        "systemd-analyze security --offline=yes --root='%s' "
                        "--threshold=20 '%s%s/%s' 2>&1",
                        fx.dest, fx.dest, UNITDIR, services[i]);
        const char *overall = strstr(out, "Overall exposure level");
        const char *colon = overall != NULL ? strchr(overall, ':') : NULL;
        double level = colon != NULL ? strtod(colon + 1, NULL) : 10.0;
        print_message("%s: exposure %.1f\n", services[i], level);
        if (rc != 0 || colon == NULL || level > 2.0)
            print_error("systemd-analyze security exited %d:\n%s\n", rc, out);
        /* --threshold is in tenths: the exit status says the same as the level. */
        assert_int_equal(rc, 0);
        assert_non_null(colon);
        assert_true(level <= 2.0);
        free(out);
        /* Nobody's root, no privilege to gain, nothing of the OS to write. */
        assert_string_not_equal(unit_value(services[i], "User"), "");
        assert_string_not_equal(unit_value(services[i], "User"), "root");
        assert_string_equal(unit_value(services[i], "NoNewPrivileges"), "yes");
        assert_string_equal(unit_value(services[i], "ProtectSystem"), "strict");
        assert_string_equal(unit_value(services[i], "PrivateTmp"), "yes");
    }
    assert_string_equal(unit_value("iocontend.service", "User"), "iocontend");
    assert_string_equal(unit_value("iocontend.service", "CapabilityBoundingSet"), "");
    /* The night is bounded: memory (no swap to thrash in), tasks and time, so that a
     * hostile log costs a step, and a hang one night, not the timer's next ones. */
    static const char *const limits[] = {"MemoryMax", "MemorySwapMax", "TasksMax",
                                         "TimeoutStartSec"};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        const char *v = unit_value("iocontend-nightly.service", limits[i]);
        if (v[0] == '\0' || strcmp(v, "infinity") == 0)
            print_error("iocontend-nightly.service: no %s\n", limits[i]);
        assert_true(v[0] != '\0' && strcmp(v, "infinity") != 0);
    }
    assert_string_equal(unit_value("iocontend-nightly.service", "OOMPolicy"), "continue");
    /* Its one privilege: reading the logs of every user, never writing them. */
    assert_string_equal(unit_value("iocontend-nightly.service", "CapabilityBoundingSet"),
                        "CAP_DAC_READ_SEARCH");
    /* The embedded server needs no network at all. */
    assert_string_equal(unit_value("iocontend-db.service", "PrivateNetwork"), "yes");
}

/* systemd-sysusers, over DESTDIR as the root, would make the user (and its group)
 * that iocontend.service runs as. */
static void sysusers_makes_the_service_user(void **state)
{
    int rc;

    (void)state;
    char *out = run(&rc, "systemd-sysusers --root='%s' --dry-run 2>&1", fx.dest);
    if (rc != 0 || strstr(out, "Creating user 'iocontend'") == NULL)
        print_error("systemd-sysusers exited %d:\n%s\n", rc, out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "Creating user 'iocontend'"));
    free(out);
}

static void man_pages_render_without_warnings(void **state)
{
    static const char *const pages[] = {"/share/man/man1/iocontend.1",
                                        "/share/man/man5/iocontend.conf.5"};
    int rc;

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        char page[512];
        snprintf(page, sizeof page, "%s%s%s", fx.dest, PREFIX, pages[i]);
        /* stderr alone: groff's warnings. */
        char *err = run(&rc, "MANWIDTH=80 man --warnings -l '%s' 2>&1 >/dev/null", page);
        if (err[0] != '\0')
            print_error("%s:\n%s\n", page, err);
        assert_int_equal(rc, 0);
        assert_string_equal(err, "");
        free(err);
        char *text = run(&rc, "MANWIDTH=80 man -l '%s' 2>/dev/null | wc -l", page);
        assert_true(atoi(text) > 100);
        free(text);
    }
}

/* Whether the page's roff source holds word as it is written there (each '-' as
 * "\-"). */
static bool roff_has(const char *src, const char *prefix, const char *word)
{
    char want[256];
    size_t n = strlen(prefix);

    snprintf(want, sizeof want, "%s", prefix);
    for (const char *p = word; *p != '\0' && n + 3 < sizeof want; p++) {
        if (*p == '-')
            want[n++] = '\\';
        want[n++] = *p;
    }
    want[n] = '\0';
    return strstr(src, want) != NULL;
}

/* Every --option in text is in the page. */
static void options_in_page(const char *text, const char *src, const char *where)
{
    for (const char *p = strstr(text, "--"); p != NULL; p = strstr(p + 2, "--")) {
        char opt[64];
        size_t n = 0;
        while (n + 1 < sizeof opt && (p[n] == '-' || (p[n] >= 'a' && p[n] <= 'z')))
            n++;
        memcpy(opt, p, n);
        opt[n] = '\0';
        if (n <= 2)
            continue;
        if (!roff_has(src, "", opt))
            print_error("iocontend.1 lacks %s (from %s --help)\n", opt, where);
        assert_true(roff_has(src, "", opt));
    }
}

/* Every command of `iocontend --help`, with every option its own --help names, has
 * its place in iocontend(1); so do the global options. */
static void man_page_names_every_command_and_option(void **state)
{
    int rc;
    size_t len;

    (void)state;
    char *src = testutil_read_file(dest(PREFIX "/share/man/man1/iocontend.1"), &len);
    assert_non_null(src);
    char *help = run(&rc, "'%s' --help", fx.bin);
    options_in_page(help, src, "iocontend");
    const char *list = strstr(help, "commands:\n");
    assert_non_null(list);
    size_t commands = 0;
    for (const char *line = strchr(list, '\n') + 1; strncmp(line, "  ", 2) == 0;
         line = strchr(line, '\n') + 1) {
        char name[32];
        if (line[2] == ' ' || sscanf(line + 2, "%31[a-z]", name) != 1)
            continue; /* a summary under a long synopsis */
        char heading[64];
        snprintf(heading, sizeof heading, ".SS \"%s", name);
        if (strstr(src, heading) == NULL)
            print_error("iocontend.1 has no section for %s\n", name);
        assert_non_null(strstr(src, heading));
        char *own = run(&rc, "'%s' %s --help 2>&1", fx.bin, name);
        options_in_page(own, src, name);
        free(own);
        commands++;
    }
    assert_true(commands >= 12);
    /* Every exit status the program's usage names. */
    static const char *const statuses[] = {"0",  "1",  "64", "65", "66", "69",
                                           "70", "71", "73", "74", "75"};
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        char entry[32];
        snprintf(entry, sizeof entry, ".TP\n.B %s\n", statuses[i]);
        assert_non_null(strstr(src, entry));
    }
    free(help);
    free(src);
}

/* Every key of `config show` (the defaults), the keys it shows only when set, and the
 * keys of a [group NAME] have an entry in iocontend.conf(5), and every section its
 * heading; the example configuration has them too and loads as the defaults. */
static void conf_page_and_example_name_every_key(void **state)
{
    static const char *const unshown[] = {"conninfo",   "state_dir", "admin_token",
                                          "executable", "uid",       "nprocs",
                                          "bytes",      "jobs"};
    int rc;
    size_t len, elen;

    (void)state;
    char *src = testutil_read_file(dest(PREFIX "/share/man/man5/iocontend.conf.5"), &len);
    char *example =
        testutil_read_file(dest("/etc/iocontend/iocontend.conf.example"), &elen);
    assert_non_null(src);
    assert_non_null(example);
    char *shown = run(&rc, "'%s' --config /dev/null config show", fx.bin);
    assert_int_equal(rc, 0);
    size_t keys = 0;
    for (char *line = strtok(shown, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char key[64], entry[96];
        if (line[0] == '[') {
            snprintf(entry, sizeof entry, ".SH \"%s\"", line);
            assert_non_null(strstr(src, entry));
            continue;
        }
        if (line[0] == '#' || sscanf(line, "%63[a-z_] =", key) != 1)
            continue;
        keys++;
        if (!roff_has(src, ".BI \"", key))
            print_error("iocontend.conf.5 has no entry for %s\n", key);
        assert_true(roff_has(src, ".BI \"", key));
        snprintf(entry, sizeof entry, "\n%s =", key);
        assert_non_null(strstr(example, entry));
    }
    assert_true(keys >= 20);
    for (size_t i = 0; i < sizeof unshown / sizeof unshown[0]; i++) {
        assert_true(roff_has(src, ".BI \"", unshown[i]));
        char entry[64];
        snprintf(entry, sizeof entry, "\n;%s =", unshown[i]);
        assert_non_null(strstr(example, entry));
    }
    free(shown);
    /* Loaded, the example is the defaults: only the file line differs. */
    char *mine = run(&rc, "'%s' --config '%s' config show | tail -n +2", fx.bin,
                     dest("/etc/iocontend/iocontend.conf.example"));
    assert_int_equal(rc, 0);
    char *defaults = run(&rc, "'%s' --config /dev/null config show | tail -n +2", fx.bin);
    assert_string_equal(mine, defaults);
    free(mine);
    free(defaults);
    free(example);
    free(src);
}

/* The installed nightly script over a stand-in program that records its arguments,
 * with its settings from its environment and its nightly.conf: yesterday's and
 * today's directories of a darshan tree laid out by day (not an older one), a flat
 * tree whole, each file system, then analyze and the sweep; the exit status is the
 * first failure (66), else 1 for a partial run. */
static void nightly_runs_every_step_and_keeps_the_first_failure(void **state)
{
    char dir[512], stub[512 + 16];
    int rc;

    (void)state;
    snprintf(dir, sizeof dir, "%s", dest("/nightly-test"));
    snprintf(stub, sizeof stub, "%s/stub", dir);
    char *out = run(&rc,
                    "mkdir -p '%s/logs/2020/1/2' '%s/logs/'$(date +%%Y/%%-m/%%-d) "
                    "'%s/logs/'$(date -d '1 day ago' +%%Y/%%-m/%%-d) '%s/flat' 2>&1",
                    dir, dir, dir, dir);
    assert_int_equal(rc, 0);
    free(out);
    static const char script[] =
        "#!/bin/sh\necho \"$*\" >> \"${0%/*}/calls\"\n"
        "case \"$*\" in *'--fs b '*) exit \"$B_EXIT\";; *'ingest darshan'*) exit 1;; "
        "esac\nexit 0\n";
    assert_int_equal(testutil_write_file(stub, script, sizeof script - 1), 0);
    assert_int_equal(chmod(stub, 0755), 0);
    char conf[512 + 16];
    snprintf(conf, sizeof conf, "%s/nightly.conf", dir);
    static const char text[] = "IOCONTEND_SWEEP=1\nIOCONTEND_OPTIONS=\"--config /c\"\n";
    assert_int_equal(testutil_write_file(conf, text, sizeof text - 1), 0);
    for (int b_exit = 66; b_exit >= 0; b_exit -= 66) {
        char *o = run(&rc,
                      "rm -f '%s/calls'; env B_EXIT=%d IOCONTEND_NIGHTLY_BIN='%s' "
                      "IOCONTEND_NIGHTLY_CONF='%s' IOCONTEND_DARSHAN='%s/logs %s/flat' "
                      "IOCONTEND_IOSTAT='a=/x b=/y' '%s%s/libexec/iocontend/"
                      "iocontend-nightly' >/dev/null 2>&1",
                      dir, b_exit, stub, conf, dir, dir, fx.dest, PREFIX);
        free(o);
        assert_int_equal(rc, b_exit == 66 ? 66 : 1);
    }
    char want[8192], *calls = run(&rc, "cat '%s/calls'", dir);
    char *days = run(&rc,
                     "printf '%%s %%s' '%s/logs/'$(date -d '1 day ago' +%%Y/%%-m/%%-d) "
                     "'%s/logs/'$(date +%%Y/%%-m/%%-d)",
                     dir, dir);
    snprintf(want, sizeof want,
             "--config /c ingest darshan --threads 4 %s\n"
             "--config /c ingest darshan --threads 4 %s/flat\n"
             "--config /c ingest iostat --fs a --threads 4 /x\n"
             "--config /c ingest iostat --fs b --threads 4 /y\n"
             "--config /c analyze\n--config /c analyze --sweep\n",
             days, dir);
    assert_string_equal(calls, want);
    free(days);
    free(calls);
    /* Threads bounded for the unit's MemoryMax: a count, or no step runs. */
    free(
        run(&rc,
            "rm -f '%s/calls'; env IOCONTEND_JOBS=0 IOCONTEND_NIGHTLY_BIN='%s' "
            "IOCONTEND_NIGHTLY_CONF=/dev/null '%s%s/libexec/iocontend/iocontend-nightly' "
            ">/dev/null 2>&1",
            dir, stub, fx.dest, PREFIX));
    assert_int_equal(rc, 64);
    assert_int_not_equal(access(dest("/nightly-test/calls"), F_OK), 0);
    free(run(&rc, "rm -rf '%s'", dir));
}

/* A step that never ends (ingest blocked on a FIFO, say) is stopped at
 * IOCONTEND_STEP_TIMEOUT and the night goes on: the next file system and analyze
 * still run, and the run fails with timeout's 124. */
static void nightly_stops_a_step_that_hangs_and_runs_the_next(void **state)
{
    char dir[512], stub[512 + 16];
    int rc;

    (void)state;
    snprintf(dir, sizeof dir, "%s", dest("/nightly-hang"));
    snprintf(stub, sizeof stub, "%s/stub", dir);
    free(run(&rc, "mkdir -p '%s'", dir));
    assert_int_equal(rc, 0);
    static const char script[] = "#!/bin/sh\necho \"$*\" >> \"${0%/*}/calls\"\n"
                                 "case \"$*\" in *'--fs a '*) exec sleep 60;; esac\n"
                                 "exit 0\n";
    assert_int_equal(testutil_write_file(stub, script, sizeof script - 1), 0);
    assert_int_equal(chmod(stub, 0755), 0);
    double started_s = testutil_now_s();
    free(run(&rc,
             "env IOCONTEND_STEP_TIMEOUT=1 IOCONTEND_NIGHTLY_BIN='%s' "
             "IOCONTEND_NIGHTLY_CONF=/dev/null IOCONTEND_IOSTAT='a=/x b=/y' "
             "'%s%s/libexec/iocontend/iocontend-nightly' >/dev/null 2>&1",
             stub, fx.dest, PREFIX));
    double took_s = testutil_now_s() - started_s;
    print_message("a hung step: exit %d after %.1f s\n", rc, took_s);
    assert_int_equal(rc, 124);
    assert_true(took_s < 30.0);
    char *calls = run(&rc, "cat '%s/calls'", dir);
    assert_string_equal(calls, "ingest iostat --fs a --threads 4 /x\n"
                               "ingest iostat --fs b --threads 4 /y\nanalyze\n");
    free(calls);
    free(run(&rc, "rm -rf '%s'", dir));
}

/* What iocontend-nightly.service does, over the shared throwaway cluster: the
 * installed script run as the unit's User= and Group= (the state directory handed
 * to them, as its StateDirectory= does), with only the unit's
 * AmbientCapabilities=, over Darshan logs of another user (mode 0400, as darshan
 * writes them) and iostat text. Without the capability the logs are missing (66);
 * with it they load and analyze runs, without root. */
static void nightly_as_the_units_user_reads_only_with_its_grant(void **state)
{
    char dir[512], user[64], group[64], cap[64], conf[600];
    int rc;

    (void)state;
    const char *configured = getenv("IOCONTEND_DB");
    if (geteuid() != 0 || (configured != NULL && configured[0] != '\0'))
        skip(); /* needs root (to become the unit's user), and the embedded cluster */
    snprintf(user, sizeof user, "%s", unit_value("iocontend-nightly.service", "User"));
    snprintf(group, sizeof group, "%s", unit_value("iocontend-nightly.service", "Group"));
    const char *ambient = unit_value("iocontend-nightly.service", "AmbientCapabilities");
    /* setpriv names a capability without CAP_, in lower case. */
    assert_true(strncmp(ambient, "CAP_", 4) == 0 && strchr(ambient, ' ') == NULL);
    snprintf(cap, sizeof cap, "%s", ambient + 4);
    assert_string_not_equal(user, "");
    assert_string_not_equal(user, "root");
    assert_string_not_equal(group, "");
    for (char *p = cap; *p != '\0'; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    char *who = run(&rc,
                    "getent group '%s' >/dev/null || systemd-sysusers "
                    "'%s%s/lib/sysusers.d/iocontend.conf' 2>&1",
                    group, fx.dest, PREFIX);
    assert_int_equal(rc, 0);
    free(who);

    snprintf(dir, sizeof dir, "%s", dest("/nightly-user"));
    char *out = run(&rc,
                    "mkdir -p '%s' && '%s-gen' --out '%s/sample' --days 1 "
                    "--jobs-per-group 1 --darshan-format binary --seed 29 >/dev/null "
                    "2>&1 && rm -r '%s/sample/darshan/npb' '%s/sample/darshan/npc' && "
                    "chown -R nobody '%s/sample/darshan' && find "
                    "'%s/sample/darshan' -type f -exec chmod 0400 {} + && chmod 0644 "
                    "'%s/sample/iocontend.conf' 2>&1",
                    dir, fx.bin, dir, dir, dir, dir, dir, dir);
    assert_int_equal(rc, 0);
    free(out);
    snprintf(conf, sizeof conf, "%s/nightly.conf", dir);
    char text[2048];
    int n = snprintf(text, sizeof text,
                     "IOCONTEND_DARSHAN=\"%s/sample/darshan\"\n"
                     "IOCONTEND_IOSTAT=\"scratch1=%s/sample/iostat/scratch1\"\n"
                     "IOCONTEND_OPTIONS=\"--config %s/sample/iocontend.conf\"\n",
                     dir, dir, dir);
    assert_true(n > 0 && (size_t)n < sizeof text);
    assert_int_equal(testutil_write_file(conf, text, (size_t)n), 0);

    double started_s = testutil_now_s();
    const struct pgfixture *db = shared_cluster();
    assert_non_null(db);
    /* StateDirectory=: the state directory becomes the unit's user's and group's. */
    out = run(&rc, "chown -R '%s:%s' '%s' 2>&1", user, group, db->state_dir);
    assert_int_equal(rc, 0);
    free(out);
    int status[2];
    for (int grant = 0; grant <= 1; grant++) {
        char caps[128];
        snprintf(caps, sizeof caps, grant ? "-all,+%s" : "-all", cap);
        char *log = run(&status[grant],
                        "setpriv --reuid='%s' --regid='%s' --clear-groups --no-new-privs "
                        "--bounding-set=%s --inh-caps=%s %s%s env -i PATH=/usr/bin:/bin "
                        "IOCONTEND_STATE_DIR='%s' IOCONTEND_NIGHTLY_CONF='%s' "
                        "IOCONTEND_NIGHTLY_BIN='%s' '%s%s/libexec/iocontend/"
                        "iocontend-nightly' 2>&1",
                        user, group, caps, caps, grant ? "--ambient-caps=" : "",
                        grant ? caps : "", db->state_dir, conf, fx.bin, fx.dest, PREFIX);
        print_message("as %s:%s with capabilities %s: exit %d\n", user, group, caps,
                      status[grant]);
        bool denied = strstr(log, "Permission denied") != NULL;
        if (denied != !grant || status[grant] != (grant ? 1 : 66))
            print_error("%s\n", log);
        assert_true(denied == !grant);
        free(log);
    }
    char *jobs = pgfixture_query(db, "SELECT count(*) FROM jobs", NULL);
    char *samples = pgfixture_query(db, "SELECT count(*) > 0 FROM samples", NULL);
    print_message("nightly as %s, twice: %.1f s\n", user, testutil_now_s() - started_s);
    free(run(&rc, "rm -rf '%s'", dir));
    /* 66: the logs are missing to it; 1: loaded, the groups below d_min. */
    assert_int_equal(status[0], 66);
    assert_int_equal(status[1], 1);
    assert_non_null(jobs);
    assert_string_equal(jobs, "1");
    assert_non_null(samples);
    assert_string_equal(samples, "t");
    free(jobs);
    free(samples);
}

/* What iocontend.service does, over the throwaway embedded cluster made as root
 * (and handed to the units' user and group by the nightly's test): the installed
 * serve, run as the system user iocontend (made from the installed
 * sysusers.d file when missing, as make install does), reaches the socket directory
 * through the group iocontend and is let in by peer authentication as the read-only
 * role: health says the database is reachable and the groups answer. */
static void serve_as_the_service_user_reads_the_embedded_cluster(void **state)
{
    struct pgfixture db;
    struct server srv;
    char wrapper[512];
    int rc;

    (void)state;
    const char *configured = getenv("IOCONTEND_DB");
    if (geteuid() != 0 || (configured != NULL && configured[0] != '\0'))
        skip(); /* needs root, and the embedded cluster */
    char *who = run(&rc,
                    "getent passwd iocontend >/dev/null || systemd-sysusers "
                    "'%s%s/lib/sysusers.d/iocontend.conf' 2>&1",
                    fx.dest, PREFIX);
    assert_int_equal(rc, 0);
    free(who);
    const struct pgfixture *shared = shared_cluster();
    assert_non_null(shared);
    db = *shared;
    assert_int_equal(pgfixture_cmd(&db, "--quiet db migrate"), 0);
    snprintf(wrapper, sizeof wrapper, "%s", dest("/as-iocontend"));
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "#!/bin/sh\nexec runuser -u iocontend -- '%s' \"$@\"\n", fx.bin);
    assert_true(n > 0 && (size_t)n < sizeof text);
    assert_int_equal(testutil_write_file(wrapper, text, (size_t)n), 0);
    assert_int_equal(chmod(wrapper, 0755), 0);
    snprintf(db.bin, sizeof db.bin, "%s", wrapper);
    assert_int_equal(server_start(&srv, &db, NULL), 0);
    /* The first connection may fail (serve tries to start a cluster that is not its
     * own); the next second's reconnection must not. */
    int status = 0;
    char *body = NULL;
    for (int i = 0; i < 100 && status != 200; i++) {
        free(body);
        body = NULL;
        if (http_get(SERVER_HOST, srv.port, "/api/v1/health", NULL, &status, &body) != 0)
            status = 0;
        if (status != 200)
            usleep(100000);
    }
    int groups = 0;
    char *list = NULL;
    int got = http_get(SERVER_HOST, srv.port, "/api/v1/groups", NULL, &groups, &list);
    server_stop(&srv);
    unlink(wrapper);
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, "\"database\":\"reachable\""));
    assert_int_equal(got, 0);
    assert_int_equal(groups, 200);
    free(body);
    free(list);
}

/* Runs last: uninstall leaves only the admin's nightly.conf (and systemd's units the
 * verify test copied in). */
static void uninstall_takes_back_what_install_put(void **state)
{
    int rc;

    (void)state;
    assert_int_equal(make_target("uninstall"), 0);
    char *left = run(&rc,
                     "cd '%s' && find . -path ./usr/lib/systemd/system -prune -o "
                     "! -type d -print | sort",
                     fx.dest);
    assert_string_equal(left, "./etc/iocontend/nightly.conf\n");
    free(left);
    assert_int_not_equal(access(dest(PREFIX "/share/iocontend"), F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_puts_every_file_under_destdir),
        cmocka_unit_test(installed_binary_answers_help_and_version),
        cmocka_unit_test(installed_serve_finds_the_installed_page),
        cmocka_unit_test(units_pass_systemd_analyze_verify),
        cmocka_unit_test(every_unit_is_sandboxed),
        cmocka_unit_test(sysusers_makes_the_service_user),
        cmocka_unit_test(man_pages_render_without_warnings),
        cmocka_unit_test(man_page_names_every_command_and_option),
        cmocka_unit_test(conf_page_and_example_name_every_key),
        cmocka_unit_test(nightly_runs_every_step_and_keeps_the_first_failure),
        cmocka_unit_test(nightly_stops_a_step_that_hangs_and_runs_the_next),
        cmocka_unit_test(nightly_as_the_units_user_reads_only_with_its_grant),
        cmocka_unit_test(serve_as_the_service_user_reads_the_embedded_cluster),
        cmocka_unit_test(uninstall_takes_back_what_install_put),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
