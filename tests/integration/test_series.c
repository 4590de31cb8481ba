/* test_series.c: issue 34 item 1 against a real PostgreSQL and the real binary: the
 * system-wide series ingest keeps equals the one `db rebuild-series` recomputes from
 * the raw samples, after a night of mixed inputs (a grown file, late samples, an
 * ingest killed between two files and run again, a --reprocess that fills queue
 * columns, an unload); a change of sample_offset_s is caught and names the command,
 * and an analysis with another one reads the raw samples meanwhile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/testutil.h"

#include <libpq-fe.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED     20240601UL
#define GEN_ARGS "--days 2 --jobs-per-group 20"
/* A report of the generated iostat text is 7 lines (stamp, header, three devices,
 * two blank) after a banner of 2. */
#define REPORT_LINES 7

static struct {
    struct pgfixture db;
    char dir[PATH_MAX - 64]; /* generated data */
    char conf[PATH_MAX];     /* its configuration */
    char grow[PATH_MAX];     /* the folder of the file that grows */
} fx;

static long query_long(const char *sql)
{
    char *v = pgfixture_query(&fx.db, sql, NULL);
    if (v == NULL)
        fail_msg("%.200s failed", sql);
    long n = strtol(v, NULL, 10);
    free(v);
    return n;
}

/* The stored series, every column of every row of series and series_days, as one
 * md5 each. */
static char *series_digest(void)
{
    char *v = pgfixture_query(
        &fx.db,
        "SELECT (SELECT md5(coalesce(string_agg(s::text, '|' ORDER BY fs, j), '')) "
        "FROM series s) || ' ' || (SELECT md5(coalesce(string_agg(d::text, '|' "
        "ORDER BY fs, day), '')) FROM series_days d)",
        NULL);
    assert_non_null(v);
    return v;
}

/* Runs "--quiet --config CONF cmd 'path'" (no path when NULL) to exit 0. */
static void run_ok(const char *cmd, const char *path)
{
    char args[PATH_MAX * 3];

    snprintf(args, sizeof args, "--quiet --config '%s' %s%s%s%s", fx.conf, cmd,
             path != NULL ? " '" : "", path != NULL ? path : "", path != NULL ? "'" : "");
    int rc = pgfixture_cmd(&fx.db, "%s", args);
    if (rc != 0)
        fail_msg("`%s` exited %d", args, rc);
}

/* The first lines of src into dst (all of them when lines is 0). */
static void copy_lines(const char *src, const char *dst, size_t lines)
{
    size_t len = 0;
    char *text = testutil_read_file(src, &len);
    assert_non_null(text);
    size_t cut = len;
    if (lines > 0) {
        size_t seen = 0;
        for (size_t i = 0; i < len; i++) {
            if (text[i] == '\n' && ++seen == lines) {
                cut = i + 1;
                break;
            }
        }
    }
    assert_int_equal(testutil_write_file(dst, text, cut), 0);
    free(text);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(fx.dir, sizeof fx.dir, "%s/iocontend-series-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(fx.dir) == NULL || chmod(fx.dir, 0755) != 0)
        return -1;
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0)
        return -1;
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    snprintf(fx.grow, sizeof fx.grow, "%s/grow", fx.dir);
    if (mkdir(fx.grow, 0755) != 0)
        return -1;
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    return pgfixture_cmd(&fx.db, "--quiet db migrate") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];

    (void)state;
    pgfixture_stop(&fx.db);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Starts `ingest iostat` of scratch2's folder and kills it once its first file is
 * committed (its samples are in, the run's refresh of the series not done): the days
 * it marked stay dirty until the run is made again. */
static void killed_ingest(void)
{
    char cmd[PATH_MAX * 4];

    snprintf(cmd, sizeof cmd,
             "exec '%s' --quiet --config '%s' ingest iostat --threads 1 --fs scratch2 "
             "'%s/iostat/scratch2' >/dev/null 2>&1",
             fx.db.bin, fx.conf, fx.dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    double t0 = testutil_now_s();
    int status = 0;
    bool ended = false;
    while (query_long("SELECT count(*) FROM loaded_files WHERE path LIKE '%scratch2%'") <
           1) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            ended = true;
            break;
        }
        if (testutil_now_s() - t0 > 120)
            fail_msg("the ingest of scratch2 loaded nothing in 120 s");
        testutil_sleep_s(0.001);
    }
    if (!ended) {
        kill(pid, SIGKILL);
        assert_int_equal(waitpid(pid, &status, 0), pid);
    }
    print_message("killed ingest: %s; %ld dirty days\n", ended ? "had ended" : "killed",
                  query_long("SELECT count(*) FROM series_dirty"));
}

static void test_night_equals_rebuild(void **state)
{
    char path[PATH_MAX * 2], grown[PATH_MAX * 2];
    (void)state;

    snprintf(path, sizeof path, "%s/darshan", fx.dir);
    run_ok("ingest darshan", path);
    /* a file that grows: its first 1000 reports now, the rest after the others */
    snprintf(path, sizeof path, "%s/iostat/scratch1/s1-ds01.iostat.txt", fx.dir);
    snprintf(grown, sizeof grown, "%s/s1-ds01.iostat.txt", fx.grow);
    copy_lines(path, grown, 2 + REPORT_LINES * 1000);
    run_ok("ingest iostat --fs scratch1", grown);
    snprintf(path, sizeof path, "%s/iostat/scratch1/s1-ds02.iostat.txt", fx.dir);
    run_ok("ingest iostat --fs scratch1", path);
    assert_int_equal(query_long("SELECT count(*) FROM series_dirty"), 0);
    assert_true(query_long("SELECT count(*) FROM series WHERE fs = 'scratch1'") > 0);

    killed_ingest();
    snprintf(path, sizeof path, "%s/iostat/scratch2", fx.dir);
    run_ok("ingest iostat --fs scratch2", path);
    assert_int_equal(query_long("SELECT count(*) FROM series_dirty"), 0);

    /* the grown file, then late samples of a server whose days are computed */
    snprintf(path, sizeof path, "%s/iostat/scratch1/s1-ds01.iostat.txt", fx.dir);
    copy_lines(path, grown, 0);
    run_ok("ingest iostat --fs scratch1", grown);
    snprintf(path, sizeof path, "%s/iostat/scratch1/s1-ds03.iostat.txt", fx.dir);
    run_ok("ingest iostat --fs scratch1", path);

    /* A server's samples as an older version loaded them (no queue columns), and the
     * series of that; then --reprocess fills them in, and the series follows. */
    PGconn *c = pgfixture_connect(&fx.db);
    assert_non_null(c);
    char *done = pgfixture_value(
        c, "UPDATE samples SET aqu_sz = NULL, util_pct = NULL, r_await_ms = NULL, "
           "w_await_ms = NULL, await_ms = NULL WHERE server = 's2-ds01'");
    assert_non_null(done);
    free(done);
    PQfinish(c);
    snprintf(path, sizeof path, "%s/iostat/scratch2/s2-ds01.iostat.txt", fx.dir);
    run_ok("ingest iostat --fs scratch2", path);
    long unknown = query_long("SELECT count(*) FROM series WHERE fs = 'scratch2' AND "
                              "q IS NULL");
    assert_true(unknown > 0);
    run_ok("ingest iostat --reprocess --fs scratch2", path);
    assert_int_equal(
        query_long("SELECT count(*) FROM series WHERE fs = 'scratch2' AND q IS NULL"), 0);

    /* an unload: scratch1 keeps the servers s1-ds01 and s1-ds03 */
    snprintf(path, sizeof path, "%s/iostat/scratch1/s1-ds02.iostat.txt", fx.dir);
    run_ok("unload --path", path);
    assert_int_equal(query_long("SELECT count(*) FROM series_dirty"), 0);
    assert_int_equal(query_long("SELECT count(*) FROM series_days WHERE fs = 'scratch1' "
                                "AND servers <> 2"),
                     0);
    assert_true(query_long("SELECT count(*) FROM series_days WHERE fs = 'scratch1'") >=
                2);
    assert_true(query_long("SELECT count(*) FROM series WHERE present") > 0);

    char *kept = series_digest();
    run_ok("db rebuild-series", NULL);
    char *rebuilt = series_digest();
    print_message("series kept by ingest %s, rebuilt %s\n", kept, rebuilt);
    assert_string_equal(kept, rebuilt);
    free(kept);
    free(rebuilt);
}

/* The series were built with sample_offset_s 0: a configuration with another one
 * loads its samples, warns and names the command; analyze reads the raw samples (and
 * says so) until it ran. */
static void test_settings_change_named(void **state)
{
    char conf[PATH_MAX + 16], args[PATH_MAX * 3];
    (void)state;

    snprintf(conf, sizeof conf, "%s/offset.conf", fx.dir);
    size_t len = 0;
    char *text = testutil_read_file(fx.conf, &len);
    assert_non_null(text);
    FILE *fp = fopen(conf, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fputs("\n[samples]\nsample_offset_s = 5\n", fp);
    fclose(fp);
    free(text);

    int rc = 0;
    snprintf(args, sizeof args,
             "--config '%s' ingest iostat --fs scratch1 "
             "'%s/iostat/scratch1/s1-ds02.iostat.txt' "
             "2>&1",
             conf, fx.dir);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "iocontend db rebuild-series"));
    free(out);
    assert_true(query_long("SELECT count(*) FROM series_dirty") > 0);

    /* analyze reads the raw samples with its own θ, and says so; the stored series
     * keep theirs */
    char *before = series_digest();
    snprintf(args, sizeof args, "--config '%s' analyze --permutations 0 2>&1", conf);
    out = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(out);
    assert_true(rc == 0 || rc == 1);
    assert_non_null(strstr(out, "iocontend db rebuild-series"));
    assert_non_null(strstr(out, "reads the raw samples"));
    free(out);
    char *after = series_digest();
    assert_string_equal(before, after);
    free(before);
    free(after);

    snprintf(args, sizeof args, "--quiet --config '%s' db rebuild-series", conf);
    assert_int_equal(pgfixture_cmd(&fx.db, "%s", args), 0);
    assert_int_equal(query_long("SELECT count(*) FROM series_dirty"), 0);
    char *theta = pgfixture_query(&fx.db, "SELECT theta_s FROM series_settings", NULL);
    assert_non_null(theta);
    assert_string_equal(theta, "5");
    free(theta);
    snprintf(args, sizeof args, "--config '%s' analyze --permutations 0 2>&1", conf);
    out = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(out);
    assert_true(rc == 0 || rc == 1);
    assert_null(strstr(out, "rebuild-series"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_night_equals_rebuild),
        cmocka_unit_test(test_settings_change_named),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
