/* test_stops.c: what stops an ingest batch (issue 15, INTERFACES.md exit codes), end
 * to end on a real server: a lost connection (SQLSTATE class 57) exits 69, naming the
 * batch it was sending; a full disk (53) 74 and anything else the server raises (our
 * bug) 70, after the batch is sent again file by file, naming the file, with the
 * files before it loaded, the file itself neither loaded nor quarantined, the files
 * after it untried. Bad data (class 22) in a batch quarantines that file alone. A
 * rerun loads the rest. The failures are the server's own: a trigger raises the
 * SQLSTATE, or the backend is terminated while the batch's insert waits on a lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct pgfixture fx;
static char work[PATH_MAX]; /* the batch: three real logs of the lab run */

/* The batch's files in path order; the second one is where the batch stops. */
static const char *const batch[] = {"a.parser.txt", "b.parser.txt", "c.parser.txt"};
static const char *const lab_logs[] = {
    "labuser_labjob_id1001-3251_11-22-46751-3512986746761108875_1.parser.txt",
    "labuser_labjob_id1002-3304_11-22-46754-250342890484500865_1.parser.txt",
    "labuser_labjob_id1003-3408_11-22-46759-11812708460119157809_1.parser.txt",
};

static PGconn *connect_db(void)
{
    PGconn *c = pgfixture_connect(&fx);
    assert_non_null(c);
    return c;
}

static void sql(PGconn *c, const char *text)
{
    char *v = pgfixture_value(c, text);
    if (v == NULL)
        fail_msg("%.200s failed", text);
    free(v);
}

static long count(PGconn *c, const char *text)
{
    char *v = pgfixture_value(c, text);
    if (v == NULL)
        fail_msg("%.200s failed", text);
    long n = strtol(v, NULL, 10);
    free(v);
    return n;
}

/* Each file of the batch: 1 when its job is stored. */
static void assert_loaded(PGconn *c, int a, int b, int d)
{
    const int want[3] = {a, b, d};
    char q[PATH_MAX + 128];

    for (int i = 0; i < 3; i++) {
        snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE source_path = '%s/%s'",
                 work, batch[i]);
        if (count(c, q) != want[i])
            fail_msg("%s: want %d job(s) stored, got %ld", batch[i], want[i],
                     count(c, q));
    }
    /* Stopped, never quarantined: the file is not to blame. */
    assert_int_equal(count(c, "SELECT count(*) FROM ingest_errors"), 0);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char cmd[PATH_MAX * 3];
    int rc = -1;

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-stops-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(work) == NULL)
        return -1;
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "cp '%s/lab/run1_queue_depth/darshan/%s' '%s/%s'",
                 testutil_shared_data(), lab_logs[i], work, batch[i]);
        free(testutil_run(cmd, &rc));
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    int rc;

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    free(testutil_run(cmd, &rc));
    return 0;
}

static int db_up(void **state)
{
    (void)state;
    if (pgfixture_start(&fx) != 0)
        return -1;
    return pgfixture_cmd(&fx, "--quiet db migrate") == 0 ? 0 : -1;
}

static int db_down(void **state)
{
    (void)state;
    pgfixture_stop(&fx);
    return 0;
}

/* A trigger raising sqlstate when the second file's job is inserted. */
static void plant(PGconn *c, const char *sqlstate)
{
    char q[1024];

    snprintf(q, sizeof q,
             "CREATE OR REPLACE FUNCTION test_stop() RETURNS trigger AS $$ BEGIN "
             "IF NEW.source_path LIKE '%%/b.parser.txt' THEN "
             "RAISE EXCEPTION 'planted by test_stops' USING ERRCODE = '%s'; END IF; "
             "RETURN NEW; END $$ LANGUAGE plpgsql",
             sqlstate);
    sql(c, q);
    sql(c, "CREATE TRIGGER test_stop BEFORE INSERT ON jobs FOR EACH ROW "
           "EXECUTE FUNCTION test_stop()");
}

/* Runs the batch; its exit status, and its output must name the second file. */
static int ingest_batch(void)
{
    char args[PATH_MAX + 64], want[PATH_MAX + 32];
    int rc = -1;

    snprintf(args, sizeof args, "ingest darshan '%s' 2>&1", work);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    snprintf(want, sizeof want, "%s/b.parser.txt", work);
    if (rc != 0 && strstr(out, want) == NULL)
        fail_msg("exit %d without naming %s: %s", rc, want, out);
    if (rc != 0 && strstr(out, "ingest stopped") == NULL)
        fail_msg("exit %d without saying the batch stopped: %s", rc, out);
    print_message("exit %d: %s", rc, out);
    free(out);
    return rc;
}

/* Then the cause is gone: the rerun loads the rest and exits 0. */
static void rerun_loads_the_rest(PGconn *c)
{
    sql(c, "DROP TRIGGER IF EXISTS test_stop ON jobs");
    assert_int_equal(ingest_batch(), 0);
    assert_loaded(c, 1, 1, 1);
    assert_int_equal(count(c, "SELECT count(*) FROM ingest_runs "
                              "WHERE finished_at IS NULL AND interrupted_at IS NULL"),
                     0);
}

static void our_bug_stops_the_batch_with_70(void **state)
{
    (void)state;
    PGconn *c = connect_db();
    plant(c, "XX000");
    assert_int_equal(ingest_batch(), 70);
    assert_loaded(c, 1, 0, 0);
    rerun_loads_the_rest(c);
    PQfinish(c);
}

static void a_full_disk_stops_the_batch_with_74(void **state)
{
    (void)state;
    PGconn *c = connect_db();
    plant(c, "53100"); /* disk_full */
    assert_int_equal(ingest_batch(), 74);
    assert_loaded(c, 1, 0, 0);
    rerun_loads_the_rest(c);
    PQfinish(c);
}

/* The second file's insert waits on an advisory lock this test holds; the test then
 * terminates that backend, as a server shutdown or an administrator would. */
static void a_lost_connection_stops_the_batch_with_69(void **state)
{
    char args[PATH_MAX + 64];
    (void)state;
    PGconn *c = connect_db(), *holder = connect_db();
    sql(c, "CREATE OR REPLACE FUNCTION test_stop() RETURNS trigger AS $$ BEGIN "
           "IF NEW.source_path LIKE '%/b.parser.txt' THEN "
           "PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NEW; END $$ "
           "LANGUAGE plpgsql");
    sql(c, "CREATE TRIGGER test_stop BEFORE INSERT ON jobs FOR EACH ROW "
           "EXECUTE FUNCTION test_stop()");
    sql(holder, "SELECT pg_advisory_lock(4242)");

    snprintf(args, sizeof args, "ingest darshan '%s'", work);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char cmd[PATH_MAX * 4];
        snprintf(cmd, sizeof cmd, "exec '%s' %s >'%s/69.out' 2>&1", fx.bin, args, work);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* Wait until the ingest's backend waits on the lock, then terminate it. */
    long terminated = 0;
    for (int i = 0; i < 60000 && terminated == 0; i++) {
        terminated = count(c, "SELECT count(pg_terminate_backend(pid)) FROM "
                              "pg_stat_activity WHERE wait_event = 'advisory' "
                              "AND application_name LIKE 'iocontend ingest %'");
        if (terminated == 0) {
            struct timespec t = {0, 1000000};
            nanosleep(&t, NULL);
        }
    }
    assert_int_equal(terminated, 1);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    sql(holder, "SELECT pg_advisory_unlock(4242)");
    PQfinish(holder);

    char path[PATH_MAX + 16], want[PATH_MAX * 2 + 64];
    snprintf(path, sizeof path, "%s/69.out", work);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, fp);
    out[n] = '\0';
    fclose(fp);
    print_message("exit %d: %s", WEXITSTATUS(status), out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 69);
    /* The three files went in one batch, which the lost connection took with it:
     * the batch is named, and none of it is loaded. */
    snprintf(want, sizeof want, "a batch of 3 files, %s/a.parser.txt to %s/c.parser.txt",
             work, work);
    assert_non_null(strstr(out, want));
    assert_loaded(c, 0, 0, 0);
    rerun_loads_the_rest(c);
    /* The terminated run's row never ended: the rerun marked it. */
    assert_int_equal(count(c, "SELECT count(*) FROM ingest_runs "
                              "WHERE interrupted_at IS NOT NULL"),
                     1);
    PQfinish(c);
}

/* The database refuses one file's data (class 22) within a batch: sent again file by
 * file, that file alone is quarantined with the server's reason; the batch goes on,
 * exit 1; the rerun changes nothing (known bad: still quarantined, exit 1). */
static void bad_data_in_a_batch_quarantines_that_file_alone(void **state)
{
    char args[PATH_MAX + 64];
    int rc = -1;

    (void)state;
    PGconn *c = connect_db();
    plant(c, "22023"); /* invalid_parameter_value */
    snprintf(args, sizeof args, "ingest darshan '%s' 2>&1", work);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    print_message("exit %d: %s", rc, out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "loading them one by one"));
    free(out);
    for (int i = 0; i < 3; i++) {
        char q[PATH_MAX + 128];
        snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE source_path = '%s/%s'",
                 work, batch[i]);
        assert_int_equal(count(c, q), i == 1 ? 0 : 1);
    }
    assert_int_equal(count(c, "SELECT count(*) FROM ingest_errors WHERE path LIKE "
                              "'%/b.parser.txt' AND message LIKE '%22023%planted%'"),
                     1);
    free(pgfixture_run(&fx, args, &rc));
    assert_int_equal(rc, 1);
    PQfinish(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(our_bug_stops_the_batch_with_70, db_up, db_down),
        cmocka_unit_test_setup_teardown(a_full_disk_stops_the_batch_with_74, db_up,
                                        db_down),
        cmocka_unit_test_setup_teardown(a_lost_connection_stops_the_batch_with_69, db_up,
                                        db_down),
        cmocka_unit_test_setup_teardown(bad_data_in_a_batch_quarantines_that_file_alone,
                                        db_up, db_down),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
