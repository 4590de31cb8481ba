/* test_kill.c: runs are never lost (issue 15): `ingest` and `analyze` killed with
 * SIGKILL at points found by watching the database, and at seeded random delays, then
 * run again, leave exactly the rows and results of one clean run — group tables and
 * coverage included — and no ingest run row without an end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <libpq-fe.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SEED      20240601UL
#define GEN_ARGS  "--days 1 --jobs-per-group 60"
#define MAX_STEPS 8
#define N_RANDOM  5

/* One command of the night, as cron runs them: ingest the logs, ingest each file
 * system's samples, analyze. */
struct step {
    const char *kind; /* "ingest" or "analyze" */
    char args[PATH_MAX * 3];
    double clean_s; /* its wall time in the clean run: the range of random delays */
};

static char data_dir[PATH_MAX]; /* generated data, iocontend.conf, runs.log */

static struct {
    char conf[PATH_MAX];
    struct step steps[MAX_STEPS];
    size_t n_steps;
    char *clean; /* the digest of the clean run */
    struct pgfixture db;
    bool db_up;
} fx;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* ---- the database ------------------------------------------------------------------ */

static PGconn *connect_db(void)
{
    PGconn *c = pgfixture_connect(&fx.db);
    assert_non_null(c);
    return c;
}

static char *query(PGconn *c, const char *sql)
{
    char *v = pgfixture_value(c, sql);
    if (v == NULL)
        fail_msg("%.200s failed", sql);
    return v;
}

static long query_long(PGconn *c, const char *sql)
{
    char *v = query(c, sql);
    long n = strtol(v, NULL, 10);
    free(v);
    return n;
}

/* Each table's rows, less what differs between two equal runs (times, run ids), as
 * an md5 per table: "table=md5 table=md5 ...". */
static char *digest(void)
{
    static const char *const tables[][2] = {
        {"jobs", "- 'loaded_at'"},
        {"job_windows", ""},
        {"samples", ""},
        {"app_groups", ""},
        {"group_members", ""},
        {"loaded_files", "- 'run_id' - 'loaded_at'"},
        {"ingest_errors", "- 'first_seen' - 'last_seen'"},
        {"results", "- 'computed_at'"},
        {"group_inputs", "- 'analyzed_at'"},
        {"coverage", "- 'computed_at'"},
        {"coverage_intervals", ""},
        {"derived_inputs", "- 'computed_at'"},
    };
    char sql[8192];
    size_t len = 0;

    len += (size_t)snprintf(sql + len, sizeof sql - len,
                            "SELECT string_agg(t || '=' || h, ' ' ORDER BY t) FROM (");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        len += (size_t)snprintf(
            sql + len, sizeof sql - len,
            "%sSELECT '%s' AS t, md5(coalesce(string_agg(v, '|' ORDER BY v), '')) AS h "
            "FROM (SELECT (to_jsonb(row_) %s)::text AS v FROM %s row_) s",
            i > 0 ? " UNION ALL " : "", tables[i][0], tables[i][1], tables[i][0]);
        assert_true(len < sizeof sql);
    }
    snprintf(sql + len, sizeof sql - len, ") d");
    PGconn *c = connect_db();
    char *out = query(c, sql);
    PQfinish(c);
    return out;
}

/* Every ingest run that did not finish was marked interrupted by the next one. */
static void assert_no_open_runs(void)
{
    PGconn *c = connect_db();
    long open = query_long(c, "SELECT count(*) FROM ingest_runs "
                              "WHERE finished_at IS NULL AND interrupted_at IS NULL");
    PQfinish(c);
    assert_int_equal(open, 0);
}

static void assert_same_as_clean(const char *what)
{
    char *d = digest();
    if (strcmp(d, fx.clean) != 0) {
        fail_msg("%s: the rows differ from the clean run's\n got  %s\n want %s", what, d,
                 fx.clean);
    }
    free(d);
    assert_no_open_runs();
}

/* ---- the runs ---------------------------------------------------------------------- */

static void db_fresh(void)
{
    if (fx.db_up)
        pgfixture_stop(&fx.db);
    fx.db_up = pgfixture_start(&fx.db) == 0;
    assert_true(fx.db_up);
    /* The tables exist before the first run, for the polls to read. */
    assert_int_equal(pgfixture_cmd(&fx.db, "--quiet db migrate"), 0);
}

/* Runs step i to its end: 0 or 1 (jobs excluded by the planted hole). */
static void run_step(size_t i)
{
    int rc = pgfixture_cmd(&fx.db, "--quiet --config '%s' %s", fx.conf, fx.steps[i].args);
    if (rc != 0 && rc != 1)
        fail_msg("`%s` exited %d", fx.steps[i].args, rc);
}

/* Starts step i in the background, its output appended to dir/runs.log; its pid. The
 * shell execs the binary, so the pid is iocontend's own. */
static pid_t spawn_step(size_t i)
{
    char cmd[PATH_MAX * 5];

    snprintf(cmd, sizeof cmd, "exec '%s' --config '%s' %s >>'%s/runs.log' 2>&1",
             fx.db.bin, fx.conf, fx.steps[i].args, data_dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* SIGKILL, then reaps it: true when it was still running (not when it had ended). */
static bool kill9(pid_t pid)
{
    int status = 0;

    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/* Waits (up to 120 s) until sql, polled every millisecond, gives at least want. */
static void poll_until(PGconn *c, pid_t pid, const char *sql, long want)
{
    double t0 = now_s();

    while (query_long(c, sql) < want) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            fail_msg("the run ended (status %d) before `%s` reached %ld", status, sql,
                     want);
        if (now_s() - t0 > 120)
            fail_msg("`%s` did not reach %ld in 120 s", sql, want);
        sleep_s(0.001);
    }
}

/* The clean run's rows, and each step's time (the range of the random delays). */
static void clean_run(void)
{
    db_fresh();
    for (size_t i = 0; i < fx.n_steps; i++) {
        double t0 = now_s();
        run_step(i);
        fx.steps[i].clean_s = now_s() - t0;
    }
    fx.clean = digest();
    print_message("clean run: %s\n", fx.clean);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char path[PATH_MAX * 2];
    struct dirent **names = NULL;

    (void)state;
    snprintf(data_dir, sizeof data_dir, "%s/iocontend-kill-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(data_dir) == NULL || chmod(data_dir, 0755) != 0)
        return -1;
    if (sample_generate(data_dir, SEED, GEN_ARGS) != 0)
        return -1;
    sample_conf(data_dir, fx.conf, sizeof fx.conf);
    /* Batches of 20 logs: a kill can land between the commits of one ingest. */
    FILE *conf = fopen(fx.conf, "a");
    if (conf == NULL)
        return -1;
    fputs("[ingest]\nbatch_files = 20\n", conf);
    fclose(conf);
    fx.steps[fx.n_steps].kind = "ingest";
    snprintf(fx.steps[fx.n_steps++].args, sizeof fx.steps[0].args,
             "ingest darshan --jobs 2 '%s/darshan'", data_dir);
    /* One folder per file system (the generator's), in name order. */
    snprintf(path, sizeof path, "%s/iostat", data_dir);
    int n = scandir(path, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' && fx.n_steps < MAX_STEPS - 1) {
            fx.steps[fx.n_steps].kind = "ingest";
            snprintf(fx.steps[fx.n_steps++].args, sizeof fx.steps[0].args,
                     "ingest iostat --fs '%s' '%s/%s'", names[i]->d_name, path,
                     names[i]->d_name);
        }
        free(names[i]);
    }
    free(names);
    if (n < 1)
        return -1;
    /* Permutations make analyze long enough for random delays to land inside it. */
    fx.steps[fx.n_steps].kind = "analyze";
    snprintf(fx.steps[fx.n_steps++].args, sizeof fx.steps[0].args,
             "analyze --permutations 99");
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    int rc;

    (void)state;
    if (fx.db_up)
        pgfixture_stop(&fx.db);
    free(fx.clean);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", data_dir);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* ---- the tests --------------------------------------------------------------------- */

static void ingest_killed_after_the_kth_file_then_rerun_is_a_clean_run(void **state)
{
    (void)state;
    clean_run();
    db_fresh();
    PGconn *c = connect_db();
    pid_t pid = spawn_step(0);
    poll_until(c, pid, "SELECT count(*) FROM loaded_files", 40);
    assert_true(kill9(pid));
    long loaded = query_long(c, "SELECT count(*) FROM loaded_files");
    long open =
        query_long(c, "SELECT count(*) FROM ingest_runs WHERE finished_at IS NULL");
    PQfinish(c);
    print_message("ingest killed after %ld files committed\n", loaded);
    assert_true(loaded >= 40);
    assert_int_equal(open, 1); /* the killed run's row, without an end */
    for (size_t i = 0; i < fx.n_steps; i++)
        run_step(i);
    assert_same_as_clean("ingest killed after 40 files");
    c = connect_db();
    char *runs =
        query(c, "SELECT string_agg(id || ':' || kind || ':' || "
                 "(finished_at IS NOT NULL) || ':' || (interrupted_at IS NOT NULL), "
                 "' ' ORDER BY id) FROM ingest_runs");
    print_message("ingest runs (id:kind:finished:interrupted): %s\n", runs);
    free(runs);
    assert_int_equal(query_long(c, "SELECT count(*) FROM ingest_runs "
                                   "WHERE interrupted_at IS NOT NULL"),
                     1);
    PQfinish(c);
}

/* Holds lock_sql's lock while analyze runs into it, then kills analyze there. The
 * database says where it is: blocked on that lock, with want_tables group tables
 * (-1: one per group) and want_coverage coverage rows stored. */
static void analyze_killed_at_a_lock(const char *lock_sql, long want_tables,
                                     long want_coverage)
{
    db_fresh();
    for (size_t i = 0; i + 1 < fx.n_steps; i++)
        run_step(i);
    PGconn *holder = connect_db(), *c = connect_db();
    free(query(holder, "BEGIN"));
    free(query(holder, lock_sql));
    pid_t pid = spawn_step(fx.n_steps - 1);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
             "AND application_name LIKE '%% pid %ld, %%'",
             (long)pid);
    poll_until(c, pid, sql, 1);
    /* Through the holder: the locked table is readable there alone. */
    long groups = query_long(holder, "SELECT count(*) FROM app_groups");
    long done = query_long(holder, "SELECT count(*) FROM group_inputs "
                                   "WHERE kind = 'association'");
    long tables =
        query_long(holder, "SELECT count(*) FROM results WHERE kind = 'group_table'");
    long coverage = query_long(holder, "SELECT count(*) FROM coverage");
    assert_true(kill9(pid));
    free(query(holder, "ROLLBACK"));
    PQfinish(holder);
    PQfinish(c);
    /* Killed after every group's results, with the tables and coverage as said. */
    assert_true(groups > 0);
    assert_int_equal(done, groups);
    assert_int_equal(tables, want_tables < 0 ? groups : want_tables);
    assert_int_equal(coverage, want_coverage);
    run_step(fx.n_steps - 1);
}

static void analyze_killed_between_last_group_and_tables_then_rerun(void **state)
{
    (void)state;
    if (fx.clean == NULL)
        clean_run();
    /* analyze reads derived_inputs right after its last group, before the tables. */
    analyze_killed_at_a_lock("LOCK TABLE derived_inputs IN ACCESS EXCLUSIVE MODE", 0, 0);
    assert_same_as_clean("analyze killed before the tables");
}

static void analyze_killed_during_coverage_then_rerun(void **state)
{
    (void)state;
    if (fx.clean == NULL)
        clean_run();
    /* Every group's table is stored; the coverage's DELETE waits for the lock. */
    analyze_killed_at_a_lock("LOCK TABLE coverage IN ACCESS EXCLUSIVE MODE", -1, 0);
    assert_same_as_clean("analyze killed during coverage");
}

static void runs_killed_at_seeded_random_delays_then_rerun(void **state)
{
    (void)state;
    if (fx.clean == NULL)
        clean_run();
    testutil_rng_seed(15);
    for (int k = 0; k < N_RANDOM; k++) {
        size_t s = (size_t)(testutil_uniform() * (double)fx.n_steps);
        double delay = testutil_uniform() * fx.steps[s].clean_s;
        char what[128];

        db_fresh();
        for (size_t i = 0; i < s; i++)
            run_step(i);
        pid_t pid = spawn_step(s);
        sleep_s(delay);
        bool killed = kill9(pid);
        print_message("random %d: %s `%.40s` after %.3f s of %.3f s\n", k,
                      killed ? "killed" : "(had ended)", fx.steps[s].args, delay,
                      fx.steps[s].clean_s);
        for (size_t i = s; i < fx.n_steps; i++)
            run_step(i);
        snprintf(what, sizeof what, "step %zu killed after %.3f s", s, delay);
        assert_same_as_clean(what);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ingest_killed_after_the_kth_file_then_rerun_is_a_clean_run),
        cmocka_unit_test(analyze_killed_between_last_group_and_tables_then_rerun),
        cmocka_unit_test(analyze_killed_during_coverage_then_rerun),
        cmocka_unit_test(runs_killed_at_seeded_random_delays_then_rerun),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
