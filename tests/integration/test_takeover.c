/* test_takeover.c: the embedded cluster cannot be taken over by a local user. As
 * root, user nobody replays issue 15's two takeovers: a socket directory made first
 * with mode 0777 (the cluster refuses it and never listens there), and a state
 * directory with symbolic links where the logs go to a root-only file (root never
 * follows them; the file keeps its owner, mode and text). The fixture's cluster
 * authenticates by peer through pg_ident.conf, never trust; a state directory too
 * long for a socket path is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[256]; /* a folder of this run, removed at the end */
static char secret[300];  /* a root-only file, mode 0600 */
static const char secret_text[] = "root only\n";

static const char *bin(void)
{
    const char *b = getenv("IOCONTEND_BIN");
    return b != NULL && b[0] != '\0' ? b : "build/iocontend";
}

/* Runs cmd with stderr joined; its output (malloc'd) and status. */
static char *sh(const char *cmd, int *rc)
{
    char full[4096];

    snprintf(full, sizeof full, "%s 2>&1", cmd);
    char *out = testutil_run(full, rc);
    assert_non_null(out);
    return out;
}

static void sh_ok(const char *cmd)
{
    int rc = -1;
    char *out = sh(cmd, &rc);
    if (rc != 0)
        fail_msg("`%s` exited %d: %s", cmd, rc, out);
    free(out);
}

/* "iocontend ARGS" on state directory state; output and status. */
static char *run_on(const char *state, const char *args, int *rc)
{
    char cmd[2048];

    snprintf(cmd, sizeof cmd, "IOCONTEND_STATE_DIR='%s' '%s' %s", state, bin(), args);
    return sh(cmd, rc);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    FILE *fp;

    (void)state;
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/iocontend-takeover-XXXXXX", tmp);
    if (mkdtemp(scratch) == NULL || chmod(scratch, 0755) != 0)
        return -1;
    snprintf(secret, sizeof secret, "%s/secret", scratch);
    fp = fopen(secret, "w");
    if (fp == NULL)
        return -1;
    fputs(secret_text, fp);
    fclose(fp);
    return chmod(secret, 0600);
}

static int teardown(void **state)
{
    char cmd[400];
    int rc = -1;

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* The root-only file is as it was: root's, 0600, its text. */
static void assert_secret_untouched(void)
{
    struct stat st;
    char buf[64] = "";
    FILE *fp;

    assert_int_equal(lstat(secret, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(st.st_gid, 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    fp = fopen(secret, "r");
    assert_non_null(fp);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    assert_string_equal(buf, secret_text);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* nobody makes STATE/run first, mode 0777 (the state directory was open to them
 * for that moment): db start refuses it, leaves it nobody's and never listens in
 * it; a 0777 run directory of postgres's own is refused as looser than 0750. */
static void a_premade_0777_socket_directory_is_refused(void **state)
{
    char dir[400], cmd[1200], sock[500];
    struct stat st;
    int rc = -1;

    (void)state;
    if (geteuid() != 0)
        skip();
    snprintf(dir, sizeof dir, "%s/sock-state", scratch);
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    snprintf(cmd, sizeof cmd, "runuser -u nobody -- mkdir -m 0777 '%s/run'", dir);
    sh_ok(cmd);
    assert_int_equal(chmod(dir, 0755), 0);

    char *out = run_on(dir, "db start", &rc);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(out, "socket directory"));
    assert_non_null(strstr(out, "refusing it"));
    free(out);
    snprintf(sock, sizeof sock, "%s/run/.s.PGSQL.5432", dir);
    assert_false(exists(sock));
    snprintf(sock, sizeof sock, "%s/run", dir);
    assert_int_equal(lstat(sock, &st), 0);
    assert_int_equal(st.st_uid, 65534); /* not given to postgres */
    assert_int_equal(st.st_mode & 07777, 0777);

    /* The cluster's own user, but a looser mode. */
    struct passwd *pg = getpwnam("postgres");
    assert_non_null(pg);
    assert_int_equal(chown(sock, pg->pw_uid, pg->pw_gid), 0);
    out = run_on(dir, "db start", &rc);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(out, "looser than 0750"));
    free(out);
    snprintf(sock, sizeof sock, "%s/run/.s.PGSQL.5432", dir);
    assert_false(exists(sock));
}

/* The state directory is nobody's, with links where the logs go: refused before
 * anything is opened or given away. */
static void a_state_directory_of_another_user_is_refused(void **state)
{
    char open_dir[400], dir[500], cmd[1600];
    int rc = -1;

    (void)state;
    if (geteuid() != 0)
        skip();
    snprintf(open_dir, sizeof open_dir, "%s/sticky", scratch);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    assert_int_equal(chmod(open_dir, 01777), 0); /* like /tmp */
    snprintf(dir, sizeof dir, "%s/state", open_dir);
    snprintf(cmd, sizeof cmd,
             "runuser -u nobody -- sh -c 'mkdir -m 0755 %s && for f in postgresql.log "
             "pg_ctl.log initdb.log; do ln -s %s %s/$f; done'",
             dir, secret, dir);
    sh_ok(cmd);

    char *out = run_on(dir, "db start", &rc);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(out, "belongs to uid 65534"));
    free(out);
    assert_secret_untouched();
    snprintf(cmd, sizeof cmd, "%s/pg", dir);
    assert_false(exists(cmd));
}

/* A state directory of root's own where links to the root-only file were left in
 * the logs' places: every log is refused, none followed, none chowned. */
static void links_where_the_logs_go_are_never_followed(void **state)
{
    char dir[400], link[500], cmd[1200];
    static const char *const logs[] = {"initdb.log", "postgresql.log", "pg_ctl.log"};
    int rc = -1;

    (void)state;
    if (geteuid() != 0)
        skip();
    snprintf(dir, sizeof dir, "%s/links", scratch);
    assert_int_equal(mkdir(dir, 0755), 0);
    for (size_t i = 0; i < 3; i++) {
        snprintf(link, sizeof link, "%s/%s", dir, logs[i]);
        assert_int_equal(symlink(secret, link), 0);
    }
    /* initdb.log first; then, with it gone, postgresql.log after initdb. */
    for (size_t i = 0; i < 2; i++) {
        char *out = run_on(dir, "db start", &rc);
        assert_int_not_equal(rc, 0);
        assert_non_null(strstr(out, logs[i]));
        assert_non_null(strstr(out, "symbolic link is refused"));
        free(out);
        assert_secret_untouched();
        snprintf(link, sizeof link, "%s/%s", dir, logs[i]);
        assert_int_equal(unlink(link), 0);
    }
    /* pg_ctl.log: the server starts only through a plain log. */
    char *out = run_on(dir, "db start", &rc);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(out, "pg_ctl.log"));
    free(out);
    assert_secret_untouched();
    snprintf(cmd, sizeof cmd, "%s/run/.s.PGSQL.5432", dir);
    assert_false(exists(cmd));
}

static char *read_text(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *buf = calloc(1, 65536);

    assert_non_null(fp);
    assert_non_null(buf);
    size_t n = fread(buf, 1, 65535, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* The test clusters are made the same way: peer authentication through the map,
 * never trust; the socket in STATE/run, postgres's, group iocontend, 0750; logs
 * 0600; nobody cannot connect. */
static void the_fixture_cluster_authenticates_by_peer_only(void **state)
{
    struct pgfixture fx;
    char path[600], cmd[1200];
    struct stat st;
    int rc = -1;

    (void)state;
    if (geteuid() != 0 || pgfixture_configured())
        skip();
    assert_int_equal(pgfixture_start(&fx), 0);

    snprintf(path, sizeof path, "%s/pg/pg_hba.conf", fx.state_dir);
    char *hba = read_text(path);
    assert_null(strstr(hba, "trust"));
    assert_non_null(strstr(hba, "local all all peer map=iocontend"));
    free(hba);
    snprintf(path, sizeof path, "%s/pg/pg_ident.conf", fx.state_dir);
    char *ident = read_text(path);
    assert_non_null(strstr(ident, "iocontend root postgres"));
    assert_non_null(strstr(ident, "iocontend postgres postgres"));
    assert_null(strstr(ident, "nobody"));
    free(ident);

    snprintf(path, sizeof path, "%s/run", fx.state_dir);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0750);
    assert_int_equal(st.st_uid, getpwnam("postgres")->pw_uid);
    struct group *gr = getgrnam("iocontend");
    assert_non_null(gr);
    assert_int_equal(st.st_gid, gr->gr_gid);
    snprintf(path, sizeof path, "%s/run/.s.PGSQL.5432", fx.state_dir);
    assert_true(exists(path));
    static const char *const logs[] = {"initdb.log", "postgresql.log", "pg_ctl.log"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", fx.state_dir, logs[i]);
        assert_int_equal(lstat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
    }

    /* nobody cannot reach the socket, and could not log in as postgres anyway. */
    snprintf(cmd, sizeof cmd,
             "runuser -u nobody -- psql -X -h '%s/run' -U postgres -d iocontend "
             "-c 'COPY (SELECT 1) TO PROGRAM $$id$$'",
             fx.state_dir);
    free(sh(cmd, &rc));
    assert_int_not_equal(rc, 0);
    /* The cluster's user itself is mapped: its peer login works. */
    snprintf(cmd, sizeof cmd,
             "runuser -u postgres -- psql -X -At -h '%s/run' -U postgres -d iocontend "
             "-c 'SELECT 7'",
             fx.state_dir);
    char *out = sh(cmd, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "7"));
    free(out);
    pgfixture_stop(&fx);
}

/* A state directory too long for a socket path is refused, naming the path and the
 * limit (issue 29: a mkdtemp socket folder in /tmp could be made again by anyone
 * once it was gone); nothing is made in it. */
static void a_long_state_directory_is_refused(void **state)
{
    char dir[400], path[600];
    int rc = -1;

    (void)state;
    if (pgfixture_configured())
        skip();
    snprintf(dir, sizeof dir, "%s/%0100d", scratch, 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    char *out = run_on(dir, "db start", &rc);
    assert_int_equal(rc, 64);
    assert_non_null(strstr(out, dir));
    assert_non_null(strstr(out, "at most 89"));
    free(out);
    snprintf(path, sizeof path, "%s/pg", dir);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/socket_dir", dir);
    assert_false(exists(path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_premade_0777_socket_directory_is_refused),
        cmocka_unit_test(a_state_directory_of_another_user_is_refused),
        cmocka_unit_test(links_where_the_logs_go_are_never_followed),
        cmocka_unit_test(the_fixture_cluster_authenticates_by_peer_only),
        cmocka_unit_test(a_long_state_directory_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
