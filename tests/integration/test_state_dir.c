/* test_state_dir.c: the state directory does not depend on where the program is run
 * from (issue 15: cron's working directory lost the database). --state-dir beats
 * IOCONTEND_STATE_DIR, which beats [database] state_dir, which beats the default;
 * the default for a user is ${XDG_STATE_HOME:-~/.local/state}/iocontend, and a
 * ./var/pg left by the old default stops the program with both paths instead of an
 * empty embedded server, and a state directory without a database is refused by every
 * command but db, ingest and demo. As root the user's runs are replayed as nobody, so
 * that nothing touches root's default /var/lib/iocontend. On a fresh install into a
 * prefix, the crontab lines of docs/operations.md and the nightly unit's command run as
 * root's cron runs them (issue 30: runuser and the program were not on cron's PATH), and
 * the demo stops its server on SIGINT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char scratch[256]; /* this run's folder (nobody's as root), removed at the end */
/* root's: the install and root's state directory (under a folder nobody may move) */
static char rootdir[256];
/* A demo a failed test left running: teardown stops it (and so its server) before it
 * removes the folders. */
static pid_t demo_pid = -1;
static char bin_abs[1024];

/* Runs cmd through sh with stderr joined, as nobody when we are root, with the
 * state-directory variables of the caller removed; output (malloc'd) and status. */
static char *as_user(const char *cmd, int *rc)
{
    char full[4096];

    snprintf(full, sizeof full,
             "%s env -u IOCONTEND_STATE_DIR -u IOCONTEND_DB -u XDG_STATE_HOME sh -c '%s' "
             "2>&1",
             geteuid() == 0 ? "runuser -u nobody --" : "", cmd);
    char *out = testutil_run(full, rc);
    assert_non_null(out);
    return out;
}

static int setup(void **state)
{
    const char *bin = getenv("IOCONTEND_BIN");
    char src[1024], cmd[4096];
    int rc = -1;

    (void)state;
    if (bin == NULL || bin[0] == '\0')
        bin = "build/iocontend";
    if (realpath(bin, src) == NULL)
        return -1;
    /* /tmp, not $TMPDIR: nobody must reach it. */
    snprintf(scratch, sizeof scratch, "/tmp/iocontend-statedir-XXXXXX");
    if (mkdtemp(scratch) == NULL || chmod(scratch, 0755) != 0)
        return -1;
    /* A copy of the binary where nobody can run it: a checkout under /root (0700), as
     * the README's quick start as root makes, is closed to nobody. */
    snprintf(bin_abs, sizeof bin_abs, "%s/iocontend", scratch);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 755 '%s'", src, bin_abs, bin_abs);
    free(testutil_run(cmd, &rc));
    if (rc != 0)
        return -1;
    if (geteuid() == 0 && chown(scratch, 65534, 65534) != 0)
        return -1;
    snprintf(rootdir, sizeof rootdir, "/tmp/iocontend-cron-XXXXXX");
    if (mkdtemp(rootdir) == NULL || chmod(rootdir, 0755) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    char cmd[700];
    int rc = -1;

    (void)state;
    if (demo_pid > 0) {
        int status;
        kill(demo_pid, SIGTERM);
        waitpid(demo_pid, &status, 0);
        demo_pid = -1;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", scratch, rootdir);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* A run from / and one from another folder use the same database: what the first
 * migrated, the second finds. */
static void the_default_does_not_depend_on_the_working_directory(void **state)
{
    char cmd[3000];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/elsewhere %s/xdg && cd / && XDG_STATE_HOME=%s/xdg HOME=%s "
             "%s --quiet db migrate",
             scratch, scratch, scratch, scratch, bin_abs);
    char *out = as_user(cmd, &rc);
    if (rc != 0)
        fail_msg("db migrate from /: %s", out);
    free(out);

    snprintf(cmd, sizeof cmd,
             "cd %s/elsewhere && XDG_STATE_HOME=%s/xdg HOME=%s %s db status", scratch,
             scratch, scratch, bin_abs);
    out = as_user(cmd, &rc);
    char want[600];
    snprintf(want, sizeof want,
             "state directory: %s/xdg/iocontend (the default: $XDG_STATE_HOME/iocontend)",
             scratch);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "socket directory: %s/xdg/iocontend/run", scratch);
    assert_non_null(strstr(out, want));
    /* Migrated by the run from /: the latest schema. */
    const char *v = strstr(out, "schema version: ");
    int have = -1, knows = -2;
    assert_non_null(v);
    assert_int_equal(
        sscanf(v, "schema version: %d (this binary knows %d)", &have, &knows), 2);
    assert_int_equal(have, knows);
    assert_int_equal(rc, 0);
    free(out);

    snprintf(cmd, sizeof cmd, "cd / && XDG_STATE_HOME=%s/xdg %s --quiet db stop", scratch,
             bin_abs);
    out = as_user(cmd, &rc);
    assert_int_equal(rc, 0);
    free(out);
}

/* Without XDG_STATE_HOME the default is ~/.local/state/iocontend, from any folder;
 * db status names it and why, and creates nothing. */
static void without_xdg_the_default_is_under_home(void **state)
{
    char cmd[3000], want[600];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    snprintf(cmd, sizeof cmd, "cd / && HOME=%s/home %s db status", scratch, bin_abs);
    char *out = as_user(cmd, &rc);
    snprintf(want, sizeof want,
             "state directory: %s/home/.local/state/iocontend (the default: "
             "~/.local/state/iocontend (XDG_STATE_HOME unset))",
             scratch);
    assert_non_null(strstr(out, want));
    assert_int_equal(rc, 69); /* not running */
    free(out);
    snprintf(cmd, sizeof cmd, "%s/home", scratch);
    assert_int_not_equal(access(cmd, F_OK), 0);
}

/* The entries of dir, 0 when empty, -1 when it cannot be read. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;

    if (d == NULL)
        return -1;
    for (const struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Issue 30: a mistyped --state-dir gave an empty database, which `--quiet analyze`
 * read as nothing to do (exit 0). Every command but db, ingest and demo refuses a
 * state directory that holds no database: 69, naming it and how to make one, and it
 * creates nothing: no directory, no cluster, no output file. */
static void a_state_directory_without_a_database_is_refused(void **state)
{
    static const char *const commands[] = {
        "--quiet analyze",
        "--quiet analyze --sweep",
        "report night --out @/night.html",
        "report sweep --group 0123456789abcdef --out @/sweep.html",
        "--quiet export jobs",
        "slowdowns",
        "quarantine list",
        "serve --listen 127.0.0.1:0",
    };
    char dir[400], out_dir[400], cmd[3000], want[1200];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    snprintf(dir, sizeof dir, "%s/DOES-NOT-EXIST", scratch);
    snprintf(cmd, sizeof cmd, "cd / && %s --state-dir %s --quiet analyze", bin_abs, dir);
    char *out = as_user(cmd, &rc);
    if (rc != 69)
        fail_msg("analyze on a missing state directory exited %d: %s", rc, out);
    snprintf(want, sizeof want,
             "%s: no database here (--state-dir given): create one with 'iocontend "
             "--state-dir %s db init'",
             dir, dir);
    if (strstr(out, want) == NULL)
        fail_msg("want '%s' in: %s", want, out);
    free(out);
    assert_int_not_equal(access(dir, F_OK), 0);

    snprintf(dir, sizeof dir, "%s/empty-state", scratch);
    snprintf(out_dir, sizeof out_dir, "%s/empty-out", scratch);
    snprintf(cmd, sizeof cmd, "mkdir %s %s", dir, out_dir);
    free(as_user(cmd, &rc));
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char args[600];
        const char *at = strchr(commands[i], '@');
        if (at != NULL) {
            snprintf(args, sizeof args, "%.*s%s%s", (int)(at - commands[i]), commands[i],
                     out_dir, at + 1);
        } else {
            snprintf(args, sizeof args, "%s", commands[i]);
        }
        /* timeout: a serve that did not refuse would serve on. */
        snprintf(cmd, sizeof cmd, "cd / && timeout 30 %s --state-dir %s %s", bin_abs, dir,
                 args);
        out = as_user(cmd, &rc);
        if (rc != 69 || strstr(out, "no database here") == NULL)
            fail_msg("`%s` on an empty state directory exited %d: %s", args, rc, out);
        free(out);
        assert_int_equal(entries_in(dir), 0);
        assert_int_equal(entries_in(out_dir), 0);
    }
}

/* The old default's cluster in ./var/pg and none in the new default: the program
 * stops, naming both and how to move, and makes no empty embedded server. */
static void a_cluster_left_in_var_pg_is_not_replaced_silently(void **state)
{
    char cmd[3000], want[600];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/old/var/pg && echo 15 > %s/old/var/pg/PG_VERSION && cd %s/old "
             "&& XDG_STATE_HOME=%s/new %s analyze",
             scratch, scratch, scratch, scratch, bin_abs);
    char *out = as_user(cmd, &rc);
    assert_int_not_equal(rc, 0);
    snprintf(want, sizeof want, "%s/old/var/pg holds an embedded server", scratch);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "the state directory is now %s/new/iocontend", scratch);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "--state-dir %s/old/var", scratch);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "mv %s/old/var %s/new/iocontend", scratch, scratch);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "groups computed"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s/new/iocontend/pg", scratch);
    assert_int_not_equal(access(cmd, F_OK), 0);
}

/* --state-dir > IOCONTEND_STATE_DIR > [database] state_dir, as config show says
 * (which resolves and creates nothing); a relative state_dir in the file is refused. */
static void the_state_directory_follows_its_precedence(void **state)
{
    char conf[400], cmd[3000], want[1200];
    int rc = -1;
    FILE *fp;

    (void)state;
    if (pgfixture_configured())
        skip();
    snprintf(conf, sizeof conf, "%s/precedence.conf", scratch);
    fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "[database]\nstate_dir = %s/from-conf\n", scratch);
    fclose(fp);

    snprintf(cmd, sizeof cmd,
             "IOCONTEND_STATE_DIR=%s/from-env %s --config %s --state-dir %s/from-arg "
             "config show",
             scratch, bin_abs, conf, scratch);
    char *out = as_user(cmd, &rc);
    assert_int_equal(rc, 0);
    snprintf(want, sizeof want, "# state_dir: %s/from-arg (--state-dir given)", scratch);
    assert_non_null(strstr(out, want));
    free(out);

    snprintf(cmd, sizeof cmd,
             "IOCONTEND_STATE_DIR=%s/from-env %s --config %s config show", scratch,
             bin_abs, conf);
    out = as_user(cmd, &rc);
    snprintf(want, sizeof want, "# state_dir: %s/from-env (IOCONTEND_STATE_DIR is set)",
             scratch);
    assert_non_null(strstr(out, want));
    free(out);

    snprintf(cmd, sizeof cmd, "%s --config %s config show", bin_abs, conf);
    out = as_user(cmd, &rc);
    snprintf(want, sizeof want, "# state_dir: %s/from-conf ([database] state_dir in %s)",
             scratch, conf);
    assert_non_null(strstr(out, want));
    /* What config show prints loads back with the same state directory. */
    snprintf(want, sizeof want, "state_dir = %s/from-conf", scratch);
    assert_non_null(strstr(out, want));
    free(out);

    fp = fopen(conf, "w");
    assert_non_null(fp);
    fputs("[database]\nstate_dir = var\n", fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s --config %s config show", bin_abs, conf);
    out = as_user(cmd, &rc);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(out, "[database] state_dir: expected an absolute path"));
    free(out);
}

/* As root the default is /var/lib/iocontend from any folder (only resolved here:
 * config show creates nothing). */
static void as_root_the_default_is_var_lib(void **state)
{
    char cmd[2000];
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd,
                 "cd %s && env -u IOCONTEND_STATE_DIR %s --config /dev/null config show "
                 "2>&1",
                 i == 0 ? "/" : scratch, bin_abs);
        char *out = testutil_run(cmd, &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        assert_non_null(
            strstr(out, "# state_dir: /var/lib/iocontend (the default for root)"));
        free(out);
    }
}

/* The crontab lines of docs/operations.md, as cron runs them: the command after the
 * five time fields, with cron's "\%" made "%". Returns how many (at most max). */
static size_t readme_crontab(char lines[][1024], size_t max)
{
    const char *readme = testutil_repo_file("docs/operations.md");
    char buf[2048];
    bool in = false, block = false;
    size_t n = 0;

    assert_non_null(readme);
    FILE *fp = fopen(readme, "r");
    assert_non_null(fp);
    while (fgets(buf, sizeof buf, fp) != NULL && n < max) {
        if (strstr(buf, "A nightly crontab might read") != NULL) {
            in = true;
        } else if (in && strncmp(buf, "```", 3) == 0) {
            if (block)
                break;
            block = true;
        } else if (block) {
            const char *cmd = buf;
            for (int field = 0; field < 5; field++) {
                cmd += strspn(cmd, " \t");
                cmd += strcspn(cmd, " \t");
            }
            cmd += strspn(cmd, " \t");
            size_t k = 0;
            for (; *cmd != '\0' && *cmd != '\n' && k + 1 < sizeof lines[0]; cmd++) {
                if (cmd[0] == '\\' && cmd[1] == '%')
                    continue;
                lines[n][k++] = *cmd;
            }
            lines[n][k] = '\0';
            if (k > 0)
                n++;
        }
    }
    fclose(fp);
    return n;
}

/* Copies the lab run's files whose names end in suffix into dir (made). */
static void copy_lab(const char *sub, const char *suffix, const char *dir)
{
    char cmd[4096];
    int rc = -1;
    const char *lab = testutil_path(testutil_shared_data(), "lab/run1_queue_depth");

    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && cp '%s/%s'/*%s '%s'/ && chown -R 65534 '%s'", dir, lab,
             sub, suffix, dir, scratch);
    free(testutil_run(cmd, &rc));
    assert_int_equal(rc, 0);
}

/* Every "from" in buf (of size bytes) made "to". */
static void replace_all(char *buf, size_t size, const char *from, const char *to)
{
    char *at = buf;

    while ((at = strstr(at, from)) != NULL) {
        char rest[4096];
        snprintf(rest, sizeof rest, "%s", at + strlen(from));
        snprintf(at, size - (size_t)(at - buf), "%s%s", to, rest);
        at += strlen(to);
    }
}

/* The nightly unit's command: ExecStart of dist/iocontend-nightly.service.in, its
 * @LIBEXECDIR@ that of the install into prefix. */
static void nightly_exec_start(const char *prefix, char *out, size_t size)
{
    const char *unit = testutil_repo_file("dist/iocontend-nightly.service.in");
    char buf[2048], libexec[600];
    bool found = false;

    assert_non_null(unit);
    FILE *fp = fopen(unit, "r");
    assert_non_null(fp);
    while (!found && fgets(buf, sizeof buf, fp) != NULL) {
        if (strncmp(buf, "ExecStart=", 10) == 0) {
            buf[strcspn(buf, "\n")] = '\0';
            snprintf(out, size, "%s", buf + 10);
            found = true;
        }
    }
    fclose(fp);
    assert_true(found);
    snprintf(libexec, sizeof libexec, "%s/libexec", prefix);
    replace_all(out, size, "@LIBEXECDIR@", libexec);
}

/* make install of this build into prefix (its configuration in prefix/etc). DESTDIR=/:
 * a staged install whose stage is the root, so that the paths written into the
 * script and the units are the prefix's and the system's users and units are left
 * alone. */
static void install_into(const char *prefix)
{
    const char *makefile = testutil_repo_file("Makefile");
    char root[1024], bdir[1024], dir[1024], cmd[8192];
    int rc = -1;

    assert_non_null(makefile);
    snprintf(dir, sizeof dir, "%s", makefile);
    assert_non_null(realpath(dirname(dir), root));
    snprintf(dir, sizeof dir, "%s",
             getenv("IOCONTEND_BIN") != NULL ? getenv("IOCONTEND_BIN")
                                             : "build/iocontend");
    assert_non_null(realpath(dirname(dir), bdir));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
             "--no-print-directory BUILD='%s' DESTDIR=/ PREFIX='%s' SYSCONFDIR='%s/etc' "
             "install 2>&1",
             root, bdir, prefix, prefix);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    if (rc != 0)
        fail_msg("make install into %s exited %d: %s", prefix, rc, out);
    free(out);
}

/* Runs line with cron's environment (HOME, LOGNAME, SHELL and PATH=/usr/bin:/bin,
 * nothing else but extra) through /bin/sh from /, as nobody when as_nobody; fails with
 * its output unless it exits 0, or 1 ("finished, some jobs or groups excluded", the
 * lab's analyze: groups below d_min) when finished_ok. */
static void cron_runs(const char *what, const char *line, bool as_nobody,
                      const char *home, const char *extra, bool finished_ok)
{
    char cmd[8192];
    int rc = -1;

    snprintf(cmd, sizeof cmd,
             "cd / && %s env -i HOME=%s LOGNAME=%s SHELL=/bin/sh PATH=/usr/bin:/bin %s "
             "/bin/sh -c '%s' 2>&1",
             as_nobody ? "runuser -u nobody --" : "", home, as_nobody ? "nobody" : "root",
             extra, line);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    if (rc != 0 && !(finished_ok && rc == 1))
        fail_msg("%s `%s` exited %d: %s", what, line, rc, out);
    free(out);
}

/* The lab run laid out as the crontab's lines and the nightly unit find it: yesterday's
 * folder of a darshan tree by day, and one file system's iostat. */
static void lab_logs(const char *logs)
{
    char dir[1024];
    time_t t = time(NULL) - 86400;
    struct tm y;

    /* Yesterday's folder, as the darshan line names it (cron runs in local time;
     * TZ is unset in cron's environment and in ours: UTC here). */
    localtime_r(&t, &y);
    snprintf(dir, sizeof dir, "%s/darshan/%d/%d/%d", logs, y.tm_year + 1900, y.tm_mon + 1,
             y.tm_mday);
    copy_lab("darshan", ".parser.txt", dir);
    snprintf(dir, sizeof dir, "%s/iostat/scratch1", logs);
    copy_lab("iostat", "iostat_dxt.txt", dir);
}

/* docs/operations.md's crontab and the nightly unit's command, read from the files, run
 * on a fresh install into a prefix of this run's (its /usr/local) as root's cron runs
 * them: from /, with cron's environment and nothing else but IOCONTEND_STATE_DIR (so
 * that root's own /var/lib/iocontend is left alone). Every step exits 0, as from a
 * login shell; with PATH=/usr/bin:/bin the program (in /usr/local/bin) and the
 * server's helpers (in /usr/sbin) are not on PATH. */
static void the_readme_crontab_and_the_nightly_unit_run_from_roots_cron(void **state)
{
    char lines[8][1024], prefix[400], logs[600], st[600], extra[700], conf[700];
    char exec[2048], text[2048], cmd[1024], logs_slash[700], prefix_slash[500];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    if (geteuid() != 0)
        skip(); /* root's cron needs root; a user's crontab is the next test */
    size_t n = readme_crontab(lines, 8);
    assert_true(n >= 3);
    snprintf(prefix, sizeof prefix, "%s/prefix", rootdir);
    install_into(prefix);
    /* A state directory postgres cannot reach: the error names the folder that stops
     * it and its mode, from cron's environment too (no program is run to find out). */
    snprintf(cmd, sizeof cmd, "mkdir -m 0700 %s/closed", rootdir);
    free(testutil_run(cmd, &rc));
    assert_int_equal(rc, 0);
    snprintf(cmd, sizeof cmd,
             "cd / && env -i HOME=/root LOGNAME=root SHELL=/bin/sh PATH=/usr/bin:/bin "
             "%s/bin/iocontend --state-dir %s/closed/state db init 2>&1",
             prefix, rootdir);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    char want[600];
    snprintf(want, sizeof want,
             "the postgres user cannot reach it: %s/closed (mode 0700) is not searchable "
             "by it",
             rootdir);
    if (rc != 73 || strstr(out, want) == NULL)
        fail_msg("db init under a 0700 folder exited %d, want 73 and '%s': %s", rc, want,
                 out);
    free(out);
    snprintf(logs, sizeof logs, "%s/log", scratch);
    lab_logs(logs);
    snprintf(st, sizeof st, "%s/state", rootdir);
    snprintf(extra, sizeof extra, "IOCONTEND_STATE_DIR=%s", st);
    snprintf(logs_slash, sizeof logs_slash, "%s/", logs);
    snprintf(prefix_slash, sizeof prefix_slash, "%s/", prefix);
    for (size_t i = 0; i < n; i++) {
        char line[2048];
        snprintf(line, sizeof line, "%s", lines[i]);
        assert_int_equal(strncmp(line, "/usr/local/bin/iocontend ", 25), 0);
        replace_all(line, sizeof line, "/var/log/", logs_slash);
        replace_all(line, sizeof line, "/usr/local/", prefix_slash);
        cron_runs("root's crontab line", line, false, "/root", extra,
                  strstr(line, " analyze") != NULL);
    }
    /* The nightly unit's command, as cron runs it: its settings from the installed
     * nightly.conf (the same inputs, already loaded: every step runs and finds them). */
    snprintf(conf, sizeof conf, "%s/etc/iocontend/nightly.conf", prefix);
    snprintf(
        text, sizeof text,
        "IOCONTEND_DARSHAN=%s/darshan\nIOCONTEND_IOSTAT=scratch1=%s/iostat/scratch1\n",
        logs, logs);
    assert_int_equal(testutil_write_file(conf, text, strlen(text)), 0);
    nightly_exec_start(prefix, exec, sizeof exec);
    cron_runs("the nightly unit's ExecStart", exec, false, "/root", extra, true);
    snprintf(cmd, sizeof cmd, "%s/bin/iocontend --quiet db stop", prefix);
    cron_runs("db stop", cmd, false, "/root", extra, false);
}

/* docs/operations.md's crontab as a user's, its paths pointed at test folders and run
 * from / in cron's environment (HOME, LOGNAME, SHELL and PATH=/usr/bin:/bin, nothing
 * else) as nobody, loads and analyzes into the database that a run from the checkout then
 * finds. */
static void the_readme_crontab_from_a_users_cron_uses_the_checkouts_database(void **state)
{
    char lines[8][1024], cmd[8192], logs[600], home[400], cwd[1024], want[700];
    char prefix[400], logs_slash[700], prefix_slash[500];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    size_t n = readme_crontab(lines, 8);
    assert_true(n >= 3);
    snprintf(home, sizeof home, "%s/cronhome", scratch);
    snprintf(logs, sizeof logs, "%s/log", scratch);
    snprintf(prefix, sizeof prefix, "%s/prefix", rootdir);
    snprintf(logs_slash, sizeof logs_slash, "%s/", logs);
    snprintf(prefix_slash, sizeof prefix_slash, "%s/", prefix);
    snprintf(cmd, sizeof cmd, "%s/bin/iocontend", prefix);
    /* Installed and laid out by the test before as root; else (not root, or it
     * failed first) here. */
    if (access(cmd, X_OK) != 0)
        install_into(prefix);
    snprintf(cmd, sizeof cmd, "%s/iostat/scratch1", logs);
    if (access(cmd, F_OK) != 0)
        lab_logs(logs);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && chown 65534 '%s'", home, home);
    free(testutil_run(cmd, &rc));
    assert_int_equal(rc, 0);

    for (size_t i = 0; i < n; i++) {
        char line[2048];
        snprintf(line, sizeof line, "%s", lines[i]);
        assert_int_equal(strncmp(line, "/usr/local/bin/iocontend ", 25), 0);
        replace_all(line, sizeof line, "/var/log/", logs_slash);
        replace_all(line, sizeof line, "/usr/local/", prefix_slash);
        cron_runs("a user's crontab line", line, geteuid() == 0, home, "",
                  strstr(line, " analyze") != NULL);
    }

    /* From the checkout, as the administrator tries it by hand: the same database
     * (from another folder when nobody cannot enter the checkout: under /root). */
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "cd %s", cwd);
    free(as_user(cmd, &rc));
    if (rc != 0) {
        print_message("nobody cannot enter %s: running from %s/elsewhere\n", cwd,
                      scratch);
        snprintf(cwd, sizeof cwd, "%s/elsewhere", scratch);
        snprintf(cmd, sizeof cmd, "mkdir -p %s", cwd);
        free(as_user(cmd, &rc));
        assert_int_equal(rc, 0);
    }
    snprintf(cmd, sizeof cmd, "cd %s && HOME=%s %s db status", cwd, home, bin_abs);
    char *out = as_user(cmd, &rc);
    snprintf(want, sizeof want, "state directory: %s/.local/state/iocontend", home);
    if (strstr(out, want) == NULL)
        fail_msg("want '%s' in: %s", want, out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && HOME=%s %s analyze", cwd, home, bin_abs);
    out = as_user(cmd, &rc);
    /* The lab run's groups, analyzed by the crontab's analyze, are kept. */
    const char *kept = strstr(out, "0 groups computed");
    int n_kept = 0;
    if (kept == NULL ||
        sscanf(kept, "0 groups computed (%*d below d_min = %*d), %d", &n_kept) != 1 ||
        n_kept < 1)
        fail_msg("analyze from the checkout recomputed or found nothing: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd,
             "cd %s && HOME=%s %s --quiet export jobs --format csv | tail -n +2 | wc -l",
             cwd, home, bin_abs);
    out = as_user(cmd, &rc);
    assert_int_equal(atoi(out), 30);
    free(out);
    snprintf(cmd, sizeof cmd, "cd / && HOME=%s %s --quiet db stop", home, bin_abs);
    free(as_user(cmd, &rc));
    assert_int_equal(rc, 0);
}

/* Starts `demo --listen 127.0.0.1:0` of state, its output into out_path, with SIGINT
 * as a terminal's foreground process has it (a shell's background job ignores it). */
static pid_t demo_start(const char *bin, const char *state, const char *out_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        sigset_t none;
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execl(bin, bin, "--state-dir", state, "demo", "--listen", "127.0.0.1:0",
              (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Whether a postgres of the data directory data runs (its pid file, or a process
 * whose command line names it). */
static bool postgres_of(const char *data)
{
    char path[1100], cmd[1200];
    int rc = -1;

    snprintf(path, sizeof path, "%s/postmaster.pid", data);
    if (access(path, F_OK) == 0)
        return true;
    snprintf(cmd, sizeof cmd, "pgrep -f -- '-D %s( |$)' >/dev/null", data);
    free(testutil_run(cmd, &rc));
    return rc == 0;
}

/* The demo on the lab run (STATE/sample holds it: nothing generated): once ready it
 * prints the page's URL, which answers; SIGINT then ends it with 0 and no postgres
 * of its state directory survives. SIGINT while it starts its server (before serve
 * takes the signal) kills it, and its server is stopped all the same. */
static void the_demo_prints_its_url_and_sigint_stops_its_server(void **state)
{
    char st[400], data[500], sample[500], out_path[500], dir[700], url[300], bin[800];
    int status = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    /* The installed program, which finds the installed page. */
    snprintf(dir, sizeof dir, "%s/prefix", rootdir);
    snprintf(bin, sizeof bin, "%s/bin/iocontend", dir);
    if (access(bin, X_OK) != 0)
        install_into(dir);
    /* Root's crontab's state directory (as root; else a new one): the lab is
     * loaded and analysed there already, so the demo only starts, finds its inputs
     * loaded and serves; its server was stopped by that test's last line. */
    snprintf(st, sizeof st, "%s/state", rootdir);
    snprintf(data, sizeof data, "%s/pg", st);
    snprintf(sample, sizeof sample, "%s/sample", st);
    snprintf(out_path, sizeof out_path, "%s/demo.out", rootdir);
    snprintf(dir, sizeof dir, "%s/darshan", sample);
    copy_lab("darshan", ".parser.txt", dir);
    snprintf(dir, sizeof dir, "%s/iostat/lab", sample);
    copy_lab("iostat", "iostat_dxt.txt", dir);
    snprintf(dir, sizeof dir, "%s/iocontend.conf", sample);
    /* The crontab's settings but the file system, so that nothing is recomputed. */
    static const char conf[] = "[filesystems]\n/ = lab\n";
    assert_int_equal(testutil_write_file(dir, conf, sizeof conf - 1), 0);

    size_t out_len = 0;
    pid_t pid = demo_start(bin, st, out_path);
    assert_true(pid > 0);
    demo_pid = pid;
    char *out = NULL;
    const char *at = NULL;
    for (int i = 0; i < 1200 && at == NULL; i++) {
        free(out);
        size_t len = 0;
        out = testutil_read_file(out_path, &len);
        at = out != NULL ? strstr(out, "demo: ready: the page is at http://127.0.0.1:")
                         : NULL;
        if (at == NULL && waitpid(pid, &status, WNOHANG) == pid) {
            demo_pid = -1;
            fail_msg("the demo ended (status %d) before it was ready: %s", status,
                     out != NULL ? out : "");
        }
        if (at == NULL)
            usleep(50 * 1000);
    }
    if (at == NULL) {
        fail_msg("the demo printed no URL in 60 s: %s", out != NULL ? out : "");
    }
    assert_int_equal(sscanf(at, "demo: ready: the page is at %299s", url), 1);
    free(out);
    char cmd[600];
    int rc = -1;
    snprintf(cmd, sizeof cmd, "curl -s -o /dev/null -w '%%{http_code}' '%s'", url);
    out = testutil_run(cmd, &rc);
    assert_non_null(out);
    assert_string_equal(out, "200");
    free(out);
    assert_true(postgres_of(data));

    assert_int_equal(kill(pid, SIGINT), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    demo_pid = -1;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    if (postgres_of(data)) {
        out = testutil_read_file(out_path, &out_len);
        fail_msg("a postgres of %s survived the demo's SIGINT: %s", data,
                 out != NULL ? out : "");
    }

    /* Again (the lab loaded and analysed: only the start), interrupted as soon as its
     * server's pid file appears. */
    pid = demo_start(bin, st, out_path);
    assert_true(pid > 0);
    demo_pid = pid;
    char pidfile[600];
    snprintf(pidfile, sizeof pidfile, "%s/postmaster.pid", data);
    for (int i = 0; i < 1200 && access(pidfile, F_OK) != 0; i++)
        usleep(10 * 1000);
    assert_int_equal(kill(pid, SIGINT), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    demo_pid = -1;
    /* The stopper, orphaned when the demo was killed, stops it within seconds. */
    bool alive = true;
    for (int i = 0; i < 300 && alive; i++) {
        alive = postgres_of(data);
        if (alive)
            usleep(50 * 1000);
    }
    if (alive) {
        out = testutil_read_file(out_path, &out_len);
        fail_msg("a postgres of %s survived the starting demo's SIGINT: %s", data,
                 out != NULL ? out : "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_default_does_not_depend_on_the_working_directory),
        cmocka_unit_test(without_xdg_the_default_is_under_home),
        cmocka_unit_test(a_cluster_left_in_var_pg_is_not_replaced_silently),
        cmocka_unit_test(a_state_directory_without_a_database_is_refused),
        cmocka_unit_test(the_state_directory_follows_its_precedence),
        cmocka_unit_test(as_root_the_default_is_var_lib),
        cmocka_unit_test(the_readme_crontab_and_the_nightly_unit_run_from_roots_cron),
        cmocka_unit_test(
            the_readme_crontab_from_a_users_cron_uses_the_checkouts_database),
        cmocka_unit_test(the_demo_prints_its_url_and_sigint_stops_its_server),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
