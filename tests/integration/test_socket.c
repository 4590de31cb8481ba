/* test_socket.c: issue 29, items 5 and 6, as root on a real server. The embedded
 * server's socket cannot be impersonated: a state path too long for a socket is
 * refused with the path and the limit (no socket folder in /tmp at all); a
 * PostgreSQL that nobody runs behind a socket folder that passes the folder check is
 * never talked to (requirepeer), so serve never serves its "ATTACKER GROUP"; a
 * running serve follows `db stop; db start`; a state folder under a parent that
 * nobody may write in, or owns, is refused. Exit codes say what ran out: a read-only
 * state folder 73 with its own advice, a nearly full one 74 before anything starts,
 * a disk that fills during analyze 74. The file systems are tmpfs mounts the test
 * makes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[256];   /* this run's folder under /tmp (nobody must reach it) */
static struct pgfixture fx; /* started by the first test that needs it, kept to the end */
static bool fx_up;
static struct server srv;    /* the serve of the test at hand, stopped at the end */
static char foreign_pg[300]; /* nobody's cluster, "" until made */

/* The fixture's cluster, migrated. */
static void fixture_up(void)
{
    if (fx_up)
        return;
    assert_int_equal(pgfixture_start(&fx), 0);
    fx_up = true;
    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
}

static const char *bin(void)
{
    const char *b = getenv("IOCONTEND_BIN");
    return b != NULL && b[0] != '\0' ? b : "build/iocontend";
}

/* Runs cmd through sh with stderr joined; its output (malloc'd) and status. */
static char *sh(int *rc, const char *fmt, ...) PRINTF_LIKE(2, 3);

static char *sh(int *rc, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
    char *out = testutil_run(cmd, rc);
    assert_non_null(out);
    return out;
}

static void sh_ok(const char *cmd)
{
    int rc = -1;
    char *out = sh(&rc, "%s", cmd);
    if (rc != 0)
        fail_msg("`%s` exited %d: %s", cmd, rc, out);
    free(out);
}

/* "iocontend ARGS" on state directory state; output and status. */
static char *run_on(const char *state, const char *args, int *rc)
{
    return sh(rc, "IOCONTEND_STATE_DIR='%s' '%s' %s", state, bin(), args);
}

/* A tmpfs of size (mount's units) at dir, made here. */
static void mount_tmpfs(const char *dir, const char *size, const char *more)
{
    char cmd[1024];

    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=%s,mode=0755%s tmpfs '%s'", size,
             more, dir);
    sh_ok(cmd);
}

static bool contains(const char *text, const char *what)
{
    if (strstr(text, what) != NULL)
        return true;
    print_error("no \"%s\" in: %s\n", what, text);
    return false;
}

static int setup(void **state)
{
    (void)state;
    /* /tmp, not $TMPDIR: nobody and postgres must reach it. */
    snprintf(scratch, sizeof scratch, "/tmp/iocontend-socket-XXXXXX");
    if (mkdtemp(scratch) == NULL || chmod(scratch, 0755) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    int rc = -1;

    (void)state;
    /* What a failed test left running: its serve, nobody's server, the fixture. */
    server_stop(&srv);
    if (foreign_pg[0] != '\0') {
        char stop[800];
        snprintf(
            stop, sizeof stop,
            "runuser -u nobody -- \"$(pg_config --bindir)/pg_ctl\" stop -m immediate "
            "-D '%s' >/dev/null 2>&1",
            foreign_pg);
        free(testutil_run(stop, &rc));
    }
    if (fx_up)
        pgfixture_stop(&fx);
    /* Mounts first (lazily: a server may still hold a file), then the folder. */
    free(testutil_run("for m in $(awk '{print $2}' /proc/mounts | grep '^/tmp/"
                      "iocontend-socket-'); do umount -l \"$m\"; done 2>&1",
                      &rc));
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* Over DB_STATE_DIR_MAX (89) characters: refused, naming the path and the limit,
 * before anything is made (no STATE/pg, no socket folder recorded in /tmp). */
static void a_state_path_too_long_for_a_socket_is_refused(void **state)
{
    char dir[400], path[500];
    struct stat st;
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    snprintf(dir, sizeof dir, "%s/%0*d", scratch, 89 - (int)strlen(scratch), 0);
    assert_int_equal(strlen(dir), 90);
    assert_int_equal(mkdir(dir, 0755), 0);
    char *out = run_on(dir, "db start", &rc);
    assert_int_equal(rc, 64);
    assert_true(contains(out, dir));
    assert_true(contains(out, "at most 89"));
    free(out);
    snprintf(path, sizeof path, "%s/pg", dir);
    assert_int_not_equal(lstat(path, &st), 0);
    snprintf(path, sizeof path, "%s/socket_dir", dir);
    assert_int_not_equal(lstat(path, &st), 0);
    /* ingest and serve's start refuse it the same way. */
    out = run_on(dir, "ingest darshan /nonexistent", &rc);
    assert_int_equal(rc, 64);
    assert_true(contains(out, "at most 89"));
    free(out);
    /* 89 characters fit. */
    dir[strlen(dir) - 1] = '\0';
    assert_int_equal(mkdir(dir, 0755), 0);
    out = run_on(dir, "db status", &rc);
    assert_true(contains(out, "socket directory: "));
    assert_null(strstr(out, "at most 89"));
    free(out);
}

/* A parent of the state folder that nobody may write in (not sticky), or that
 * nobody owns, lets nobody move the state away: refused, naming the parent, 73. */
static void a_state_folder_under_a_parent_open_to_nobody_is_refused(void **state)
{
    char open_dir[400], dir[500];
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    snprintf(open_dir, sizeof open_dir, "%s/open", scratch);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    assert_int_equal(chmod(open_dir, 0777), 0);
    snprintf(dir, sizeof dir, "%s/state", open_dir);
    char *out = run_on(dir, "db start", &rc);
    assert_int_equal(rc, 73);
    assert_true(contains(out, open_dir));
    assert_true(contains(out, "writable by others (mode 0777)"));
    free(out);
    /* nobody's own folder, 0755: nobody can still rename what is in it. */
    snprintf(open_dir, sizeof open_dir, "%s/nobodys", scratch);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    struct passwd *pw = getpwnam("nobody");
    assert_non_null(pw);
    assert_int_equal(chown(open_dir, pw->pw_uid, pw->pw_gid), 0);
    snprintf(dir, sizeof dir, "%s/state", open_dir);
    out = run_on(dir, "ingest darshan /nonexistent", &rc);
    assert_int_equal(rc, 73);
    assert_true(contains(out, open_dir));
    assert_true(contains(out, "belongs to uid"));
    free(out);
    /* group write: refused for a shared group (users), trusted for the owner's
     * private group (umask 002: the server's postgres:postgres 0775). */
    struct group *users = getgrnam("users");
    assert_non_null(users);
    snprintf(open_dir, sizeof open_dir, "%s/shared", scratch);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    assert_int_equal(chown(open_dir, 0, users->gr_gid), 0);
    assert_int_equal(chmod(open_dir, 0775), 0);
    snprintf(dir, sizeof dir, "%s/state", open_dir);
    out = run_on(dir, "ingest darshan /nonexistent", &rc);
    assert_int_equal(rc, 73);
    assert_true(contains(out, "writable by others (mode 0775)"));
    free(out);
    pw = getpwnam("postgres");
    assert_non_null(pw);
    snprintf(open_dir, sizeof open_dir, "%s/private", scratch);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    assert_int_equal(chown(open_dir, pw->pw_uid, pw->pw_gid), 0);
    assert_int_equal(chmod(open_dir, 0775), 0);
    snprintf(dir, sizeof dir, "%s/state", open_dir);
    out = run_on(dir, "db status", &rc);
    assert_null(strstr(out, "writable by others"));
    assert_null(strstr(out, "refusing it"));
    free(out);
    /* /tmp is open to all but sticky, and protects scratch, root's: the tests below
     * start clusters under it. */
}

/* A read-only state folder (a read-only mount): 73, saying read-only, not the
 * chmod o+x advice (for a parent postgres cannot enter). */
static void a_read_only_state_folder_exits_73_with_its_advice(void **state)
{
    char dir[400];
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    snprintf(dir, sizeof dir, "%s/ro", scratch);
    mount_tmpfs(dir, "1m", ",ro");
    char *out = run_on(dir, "ingest darshan /nonexistent", &rc);
    assert_int_equal(rc, 73);
    assert_true(contains(out, "read-only file system"));
    assert_null(strstr(out, "chmod o+x"));
    free(out);
    out = run_on(dir, "db start", &rc);
    assert_int_equal(rc, 73);
    assert_true(contains(out, "read-only file system"));
    free(out);
}

/* Less than DB_MIN_FREE_BYTES (64 MiB) free in the state folder: the run is
 * refused with 74 before any cluster is made, naming the folder and its free
 * bytes. */
static void a_nearly_full_state_folder_refuses_the_run_with_74(void **state)
{
    char dir[400], path[500];
    struct stat st;
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    snprintf(dir, sizeof dir, "%s/small", scratch);
    mount_tmpfs(dir, "8m", "");
    char *out = run_on(dir, "ingest darshan /nonexistent", &rc);
    assert_int_equal(rc, 74);
    assert_true(contains(out, dir));
    assert_true(contains(out, "bytes free"));
    free(out);
    snprintf(path, sizeof path, "%s/pg/PG_VERSION", dir);
    assert_int_not_equal(lstat(path, &st), 0); /* initdb never ran */
    /* No cluster there: analyze refuses the folder before it looks at its space. */
    out = run_on(dir, "analyze", &rc);
    assert_int_equal(rc, 69);
    assert_true(contains(out, "no database here"));
    free(out);
    out = run_on(dir, "db start", &rc);
    assert_int_equal(rc, 74);
    free(out);
}

/* GET path on s: its status, and whether the body holds what. */
static int get(const struct server *s, const char *path, const char *what, bool *has)
{
    int status = 0;
    char *body = NULL;

    if (http_get(SERVER_HOST, s->port, path, NULL, &status, &body) != 0)
        return -1;
    if (has != NULL)
        *has = body != NULL && strstr(body, what) != NULL;
    free(body);
    return status;
}

/* /health until it answers want, up to timeout_s; its last status. */
static int await_health(const struct server *s, int want, double timeout_s)
{
    double until = testutil_now_s() + timeout_s;
    int status;

    do {
        status = get(s, "/api/v1/health", "", NULL);
        if (status == want)
            break;
        testutil_sleep_s(0.2);
    } while (testutil_now_s() < until);
    return status;
}

/* serve running while the cluster stops and starts again: 503 while it is down,
 * 200 again once it is up (the socket folder stays STATE/run, checked and
 * requirepeer'd at every reconnection). */
static void a_running_serve_follows_db_stop_and_start(void **state)
{
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    fixture_up();
    assert_int_equal(server_start(&srv, &fx, NULL), 0);
    assert_int_equal(await_health(&srv, 200, 5), 200);
    free(pgfixture_run(&fx, "db stop 2>&1", &rc));
    assert_int_equal(rc, 0);
    assert_int_equal(await_health(&srv, 503, 5), 503);
    free(pgfixture_run(&fx, "db start 2>&1", &rc));
    assert_int_equal(rc, 0);
    assert_int_equal(await_health(&srv, 200, 10), 200);
    server_stop(&srv);
}

/* nobody runs a PostgreSQL of its own (a copy of the fixture's cluster, so the
 * iocontend schema, made nobody's, with trust and an "ATTACKER GROUP") whose socket
 * sits in a folder that passes the folder check (root's, 0755): root's serve never
 * talks to it (requirepeer=postgres), so /health answers 503 and no answer names the
 * attacker's group; db status and ingest refuse it too. Without a cluster of its own
 * in the state directory serve refuses it before any connection. */
static void a_foreign_postgresql_behind_the_socket_is_never_used(void **state)
{
    char state_dir[300], run[320], data[300], cmd[4096], bindir[300] = "";
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    fixture_up();
    char *b = sh(&rc, "pg_config --bindir");
    assert_int_equal(rc, 0);
    snprintf(bindir, sizeof bindir, "%.*s", (int)strcspn(b, "\n"), b);
    free(b);
    snprintf(state_dir, sizeof state_dir, "%s/evil", scratch);
    snprintf(run, sizeof run, "%s/run", state_dir);
    snprintf(data, sizeof data, "%s/nobodys-pg", scratch);
    assert_int_equal(mkdir(state_dir, 0755), 0);
    assert_int_equal(mkdir(run, 0700), 0);
    struct passwd *pw = getpwnam("nobody");
    assert_non_null(pw);
    assert_int_equal(chown(run, pw->pw_uid, pw->pw_gid), 0);
    free(pgfixture_run(&fx, "db stop 2>&1", &rc));
    assert_int_equal(rc, 0);
    snprintf(cmd, sizeof cmd,
             "cp -a '%s/pg' '%s' && chown -R nobody: '%s' && "
             "echo 'local all all trust' > '%s/pg_hba.conf' && "
             "runuser -u nobody -- '%s/pg_ctl' start -w -D '%s' -l '%s/log' -o "
             "\"-c listen_addresses='' -c unix_socket_directories='%s' -c port=5432\" "
             ">/dev/null && '%s/psql' -X -q -h '%s' -U postgres -d iocontend -c "
             "\"INSERT INTO app_groups (group_id, name, key) VALUES ('evil', "
             "'ATTACKER GROUP', 'evil')\"",
             fx.state_dir, data, data, data, bindir, data, data, run, bindir, run);
    snprintf(foreign_pg, sizeof foreign_pg, "%s", data);
    sh_ok(cmd);
    /* The socket stays nobody's; its folder is root's now and no one else's to
     * write: the folder check alone would let it through. */
    assert_int_equal(chown(run, 0, 0), 0);
    assert_int_equal(chmod(run, 0755), 0);

    /* A state directory without a cluster is refused before any connection (69);
     * with one whose server is down (its data directory, postgres's), serve goes on
     * to the socket, where the stranger sits. */
    char *out = run_on(state_dir, "serve --listen 127.0.0.1:0 2>&1", &rc);
    assert_int_equal(rc, 69);
    assert_true(contains(out, "no database here"));
    free(out);
    snprintf(cmd, sizeof cmd,
             "mkdir -m 700 '%s/pg' && echo 15 > '%s/pg/PG_VERSION' && "
             "chown -R postgres: '%s/pg'",
             state_dir, state_dir, state_dir);
    sh_ok(cmd);

    snprintf(fx.bin, sizeof fx.bin, "%s", bin());
    char saved[512];
    snprintf(saved, sizeof saved, "%s", getenv("IOCONTEND_STATE_DIR"));
    setenv("IOCONTEND_STATE_DIR", state_dir, 1);
    int started = server_start(&srv, &fx, NULL);
    setenv("IOCONTEND_STATE_DIR", saved, 1);
    assert_int_equal(started, 0);
    bool has = true;
    assert_int_equal(await_health(&srv, 503, 3), 503);
    /* Through a reconnection too. */
    assert_int_not_equal(get(&srv, "/api/v1/groups", "ATTACKER", &has), 200);
    assert_false(has);
    assert_int_equal(await_health(&srv, 503, 1), 503);
    server_stop(&srv);

    out = run_on(state_dir, "db status", &rc);
    assert_int_not_equal(rc, 0);
    assert_null(strstr(out, "server: reachable"));
    free(out);
    out = run_on(state_dir, "ingest darshan /nonexistent", &rc);
    assert_int_not_equal(rc, 0);
    assert_int_not_equal(rc, 66); /* never got as far as the input */
    free(out);
    snprintf(cmd, sizeof cmd,
             "runuser -u nobody -- '%s/pg_ctl' stop -m immediate -D '%s'", bindir, data);
    sh_ok(cmd);
    foreign_pg[0] = '\0';
}

/* The disk that analyze writes on fills (its tables in a tablespace on a 16 MB tmpfs
 * filled to the last block; the WAL, in the data directory, has room): the server
 * says 53100 and analyze exits 74, not 69. */
static void a_disk_full_during_analyze_exits_74(void **state)
{
    char dir[400], data[400], cmd[1200];
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    snprintf(data, sizeof data, "%s/sample", scratch);
    fixture_up();
    /* Ingested, never analysed: analyze's first run meets the full disk. */
    assert_int_equal(
        sample_generate(data, 3, "--coupling 0 --days 1 --jobs-per-group 12"), 0);
    char conf[600];
    sample_conf(data, conf, sizeof conf);
    assert_int_equal(pgfixture_cmd(&fx,
                                   "--quiet --config '%s' ingest darshan '%s/darshan'",
                                   conf, data),
                     0);
    assert_int_equal(pgfixture_cmd(&fx,
                                   "--quiet --config '%s' ingest iostat --fs scratch1 "
                                   "'%s/iostat/scratch1'",
                                   conf, data),
                     0);
    snprintf(dir, sizeof dir, "%s/full", scratch);
    mount_tmpfs(dir, "16m", "");
    snprintf(cmd, sizeof cmd, "mkdir '%s/ts' && chown postgres: '%s/ts'", dir, dir);
    sh_ok(cmd);
    PGconn *c = pgfixture_connect(&fx);
    assert_non_null(c);
    snprintf(cmd, sizeof cmd, "CREATE TABLESPACE full_disk LOCATION '%s/ts'", dir);
    free(pgfixture_value(c, cmd));
    char *v = pgfixture_value(
        c, "DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE "
           "schemaname = 'public' AND tablename IN ('results', 'analysis_runs', "
           "'coverage', 'coverage_intervals', 'derived_inputs') LOOP EXECUTE "
           "format('ALTER TABLE %I SET TABLESPACE full_disk', t); END LOOP; END $$");
    assert_non_null(v);
    free(v);
    PQfinish(c);
    /* Every block taken: the next page any of those tables needs cannot be had. */
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s/fill' bs=64k 2>/dev/null; true",
             dir);
    sh_ok(cmd);
    snprintf(cmd, sizeof cmd, "--config '%s' analyze --permutations 0 2>&1", conf);
    char *out = pgfixture_run(&fx, cmd, &rc);
    assert_non_null(out);
    if (rc != 74)
        fail_msg("analyze on a full disk exited %d: %s", rc, out);
    print_message("%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -f '%s/fill'", dir);
    sh_ok(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_state_path_too_long_for_a_socket_is_refused),
        cmocka_unit_test(a_state_folder_under_a_parent_open_to_nobody_is_refused),
        cmocka_unit_test(a_read_only_state_folder_exits_73_with_its_advice),
        cmocka_unit_test(a_nearly_full_state_folder_refuses_the_run_with_74),
        cmocka_unit_test(a_running_serve_follows_db_stop_and_start),
        cmocka_unit_test(a_foreign_postgresql_behind_the_socket_is_never_used),
        cmocka_unit_test(a_disk_full_during_analyze_exits_74),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
