/* test_reach.c: issue 34 item 2 against a real PostgreSQL and the real binary: an
 * analysis reads the stored series only around its jobs (fewer rows than are stored,
 * over more than one span), what lies far from every job changes none of its values
 * while what lies under a job does; the generator's history written a chunk of
 * days at a time loads as the same series as the whole; and the coverage kept a day
 * at a time (item 3) equals the plain computation over the whole day window, and
 * recomputes only the days whose inputs changed. */
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEED 20240601UL
/* Nine jobs over three days: their spans and margins leave most of the days apart. */
#define GEN_ARGS "--days 3 --jobs-per-group 3"
/* Two hours: far beyond the margin a job's span is read with at the defaults
 * (2·20 + 0 + 2 intervals of 60 s, 42 minutes). */
#define FAR_S "7200"

static struct {
    struct pgfixture db;
    char dir[PATH_MAX - 64]; /* generated data, whole */
    char conf[PATH_MAX];
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

static void run_sql(const char *sql)
{
    PGconn *c = pgfixture_connect(&fx.db);
    assert_non_null(c);
    char *done = pgfixture_value(c, sql);
    assert_non_null(done);
    free(done);
    PQfinish(c);
}

/* `unload --run` of each ingest run the query lists (ids separated by spaces, in
 * the order to unload), each exiting 0. */
static void unload_runs(const char *sql)
{
    char *runs = pgfixture_query(&fx.db, sql, NULL);
    assert_non_null(runs);
    for (char *p = strtok(runs, " "); p != NULL; p = strtok(NULL, " ")) {
        assert_int_equal(
            pgfixture_cmd(&fx.db, "--quiet --config '%s' unload --run %s", fx.conf, p),
            0);
    }
    free(runs);
}

/* Every column of every stored series row, as one md5. */
static char *series_digest(void)
{
    char *v = pgfixture_query(&fx.db,
                              "SELECT md5(coalesce(string_agg(s::text, '|' ORDER BY fs, "
                              "j), '')) FROM series s",
                              NULL);
    assert_non_null(v);
    return v;
}

/* `export jobs` as CSV under conf, with the debug log beside it when log is not NULL
 * (new). */
static char *export_jobs_with(const char *conf, char **log)
{
    char args[PATH_MAX * 3], out[PATH_MAX];
    int rc = 0;

    snprintf(out, sizeof out, "%s/export.csv", fx.dir);
    snprintf(args, sizeof args,
             "--config '%s' --log-level debug export jobs --format csv --out '%s' 2>&1",
             conf, out);
    char *text = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(text);
    if (rc != 0 && rc != 1)
        fail_msg("export exited %d:\n%s", rc, text);
    if (log != NULL) {
        *log = text;
    } else {
        free(text);
    }
    size_t len = 0;
    char *csv = testutil_read_file(out, &len);
    assert_non_null(csv);
    return csv;
}

static char *export_jobs(char **log)
{
    return export_jobs_with(fx.conf, log);
}

/* The rows and spans the debug log says fs was read over: every line of it summed. */
static void rows_read(const char *log, const char *fs, long *rows, long *spans)
{
    char want[96];

    *rows = *spans = 0;
    snprintf(want, sizeof want, " rows of %s read over ", fs);
    for (const char *p = strstr(log, want); p != NULL; p = strstr(p + 1, want)) {
        const char *line = p;
        while (line > log && line[-1] != '\n')
            line--;
        const char *num = strstr(line, "series: ");
        assert_non_null(num);
        *rows += strtol(num + 8, NULL, 10);
        *spans += strtol(p + strlen(want), NULL, 10);
    }
}

/* The configuration with Δ configured (the 60 s it was already): the stored series'
 * settings are another's, so an analysis under it builds one dense series from every
 * raw sample, as before the series were stored: the plain computation. */
static void dense_conf(char *path, size_t size)
{
    size_t len = 0;

    snprintf(path, size, "%s/dense.conf", fx.dir);
    char *text = testutil_read_file(fx.conf, &len);
    assert_non_null(text);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\n[analysis]\ngranularity_s = 60\n", text);
    assert_int_equal(fclose(fp), 0);
    free(text);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(fx.dir, sizeof fx.dir, "%s/iocontend-reach-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(fx.dir) == NULL || chmod(fx.dir, 0755) != 0)
        return -1;
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0)
        return -1;
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    return sample_ingest(&fx.db, fx.dir) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];

    (void)state;
    pgfixture_stop(&fx.db);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_reads_around_the_jobs(void **state)
{
    char *log = NULL;
    long rows, spans;
    (void)state;

    char *before = export_jobs(&log);
    rows_read(log, "scratch1", &rows, &spans);
    long stored = query_long("SELECT count(*) FROM series WHERE fs = 'scratch1'");
    print_message("scratch1: %ld of %ld stored rows read over %ld spans\n", rows, stored,
                  spans);
    assert_true(rows > 0);
    assert_true(rows < stored / 2);
    assert_true(spans > 1);
    free(log);

    /* The plain computation beside it (dense_conf). */
    char conf[PATH_MAX + 16];
    dense_conf(conf, sizeof conf);
    char *dense = export_jobs_with(conf, &log);
    assert_non_null(strstr(log, "reads the raw samples"));
    assert_string_equal(before, dense);
    free(log);
    free(dense);

    /* Far from every job: the values of every job stay. */
    run_sql("UPDATE samples SET r_bps = 3 * r_bps + 1e6, w_bps = 2 * w_bps "
            "WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE samples.stamp_s BETWEEN "
            "j.start_time - " FAR_S " AND j.end_time + " FAR_S ")");
    assert_true(query_long("SELECT count(*) FROM series_dirty") > 0);
    char *far = export_jobs(NULL);
    assert_string_equal(before, far);
    assert_int_equal(query_long("SELECT count(*) FROM series_dirty"), 0);

    /* Under the jobs: they move (the check above could not miss a change). */
    run_sql("UPDATE samples SET r_bps = 3 * r_bps + 1e6 WHERE EXISTS (SELECT 1 FROM "
            "jobs j WHERE samples.stamp_s BETWEEN j.start_time AND j.end_time)");
    char *near = export_jobs(NULL);
    assert_string_not_equal(before, near);
    free(before);
    free(far);
    free(near);
}

/* The same days written as two chunks of days (the second a run of its own) load as
 * the same series as the whole files setup loaded. */
static void test_chunks_load_as_the_whole(void **state)
{
    char dir[PATH_MAX], args[PATH_MAX * 3];
    (void)state;

    char *whole = series_digest();
    long n_whole = query_long("SELECT count(*) FROM samples");
    unload_runs(
        "SELECT string_agg(id::text, ' ') FROM ingest_runs WHERE kind = 'iostat'");
    assert_int_equal(query_long("SELECT count(*) FROM series"), 0);
    snprintf(dir, sizeof dir, "%s/chunks", fx.dir);
    for (int c = 0; c < 2; c++) {
        char gen[PATH_MAX + 64];
        snprintf(gen, sizeof gen, "%s --iostat-days %s", GEN_ARGS,
                 c == 0 ? "1-2" : "3-3");
        assert_int_equal(sample_generate(dir, SEED, gen), 0);
        for (int fs = 1; fs <= 2; fs++) {
            snprintf(args, sizeof args,
                     "--quiet --config '%s' ingest iostat --fs scratch%d "
                     "'%s/iostat/scratch%d'",
                     fx.conf, fs, dir, fs);
            assert_int_equal(pgfixture_cmd(&fx.db, "%s", args), 0);
        }
    }
    char *chunked = series_digest();
    long n_chunked = query_long("SELECT count(*) FROM samples");
    print_message("series of the whole %s (%ld samples), of chunks %s (%ld)\n", whole,
                  n_whole, chunked, n_chunked);
    assert_true(n_whole > 0);
    assert_int_equal(n_chunked, n_whole);
    assert_string_equal(chunked, whole);
    free(chunked);
    free(whole);
}

/* What analyze stored of the coverage: the exact columns and every interval as one
 * text, and each scope's sums (at most 8 scopes). */
struct coverage_snap {
    char *exact;
    double sum_d[8], sum_s[8];
    int n;
};

/* The stored pre-buckets (migration 0019) are those of the stored intervals: each
 * (scope, level, b) grouped afresh from coverage_intervals, count, ends, least and
 * most equal, none missing and none left over; and there are some. */
static void pre_buckets_match_intervals(void)
{
    long bad = query_long(
        "WITH lv AS (SELECT DISTINCT scope, level_s FROM coverage_pre), "
        "want AS (SELECT i.scope, lv.level_s, floor((i.end_s - c.granularity_s / 2) / "
        "lv.level_s)::bigint AS b, count(*) AS n, min(i.end_s) AS f, max(i.end_s) AS l, "
        "min(i.d_bytes) AS dn, max(i.d_bytes) AS dx, min(i.s_bytes) AS sn, "
        "max(i.s_bytes) AS sx FROM coverage_intervals i JOIN coverage c USING (scope) "
        "JOIN lv USING (scope) GROUP BY 1, 2, 3) "
        "SELECT count(*) FROM want w FULL JOIN coverage_pre p USING (scope, level_s, b) "
        "WHERE p.n IS DISTINCT FROM w.n OR p.first_end_s IS DISTINCT FROM w.f OR "
        "p.last_end_s IS DISTINCT FROM w.l OR p.d_min IS DISTINCT FROM w.dn OR "
        "p.d_max IS DISTINCT FROM w.dx OR p.s_min IS DISTINCT FROM w.sn OR "
        "p.s_max IS DISTINCT FROM w.sx");
    assert_int_equal(bad, 0);
    /* every scope at the three levels of a 60 s grid: 10 min, 1 h, 6 h */
    assert_int_equal(
        query_long("SELECT count(DISTINCT (scope, level_s)) FROM coverage_pre"),
        3 * query_long("SELECT count(*) FROM coverage"));
}

static void coverage_snap(struct coverage_snap *c)
{
    pre_buckets_match_intervals();
    c->exact = pgfixture_query(
        &fx.db,
        "SELECT (SELECT string_agg(concat_ws(',', scope, granularity_s, intervals, "
        "d_total_bytes, log_start_s, log_end_s), ';' ORDER BY scope) FROM coverage) || "
        "' ' || (SELECT md5(string_agg(concat_ws(',', scope, end_s, d_bytes, s_bytes), "
        "';' ORDER BY scope, end_s)) FROM coverage_intervals) || ' ' || (SELECT "
        "count(*) FROM coverage_intervals)",
        NULL);
    assert_non_null(c->exact);
    c->n = (int)query_long("SELECT count(*) FROM coverage");
    assert_in_range(c->n, 2, 8);
    for (int i = 0; i < c->n; i++) {
        char sql[160];
        snprintf(sql, sizeof sql,
                 "SELECT sum_d_bytes || ' ' || sum_s_bytes FROM coverage ORDER BY scope "
                 "OFFSET %d LIMIT 1",
                 i);
        char *v = pgfixture_query(&fx.db, sql, NULL);
        assert_non_null(v);
        assert_int_equal(sscanf(v, "%lf %lf", &c->sum_d[i], &c->sum_s[i]), 2);
        free(v);
    }
}

/* Equal but for the last bits of the sums: a day's sums, then the days'. */
static void coverage_snap_equal(const struct coverage_snap *a,
                                const struct coverage_snap *b)
{
    assert_string_equal(a->exact, b->exact);
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        assert_true(fabs(a->sum_d[i] - b->sum_d[i]) <= 1e-12 * fabs(b->sum_d[i]));
        assert_true(fabs(a->sum_s[i] - b->sum_s[i]) <= 1e-12 * fabs(b->sum_s[i]));
        assert_true(b->sum_s[i] > 0);
    }
}

/* `analyze --force` under conf; the days the coverage computed of how many, from its
 * summary line (-1 each when it computed the coverage whole). */
static void analyze_days(const char *conf, long *days, long *computed)
{
    char args[PATH_MAX * 2];
    int rc = 0;

    snprintf(args, sizeof args, "--config '%s' analyze --force --permutations 0 2>&1",
             conf);
    char *log = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(log);
    if (rc != 0 && rc != 1) /* 1: a group below d_min, as export's */
        fail_msg("analyze exited %d:\n%s", rc, log);
    const char *p = strstr(log, " days of the scopes, ");
    *days = *computed = -1;
    if (p != NULL) {
        const char *open = p;
        while (open > log && open[-1] != '(')
            open--;
        *days = strtol(open, NULL, 10);
        *computed = strtol(p + strlen(" days of the scopes, "), NULL, 10);
    }
    free(log);
}

static void test_coverage_by_the_day(void **state)
{
    char dense[PATH_MAX + 16];
    struct coverage_snap day, whole, again, moved, moved_whole;
    long days, computed;
    (void)state;

    dense_conf(dense, sizeof dense); /* the plain computation */

    /* A report missed at the third midnight, the last of the second day's intervals:
     * fill_max 1 fills it from the third day's first, which a recomputation of the
     * first two days alone must still read. */
    run_sql("DELETE FROM samples s USING (SELECT fs, min(server) AS server, "
            "floor(min(stamp_s) / 86400) * 86400 + 2 * 86400 AS midnight FROM samples "
            "GROUP BY fs) m WHERE s.fs = m.fs AND s.server = m.server AND s.stamp_s = "
            "m.midnight");
    analyze_days(fx.conf, &days, &computed);
    print_message("coverage: %ld days of the scopes, %ld computed\n", days, computed);
    assert_true(days >= 6);
    coverage_snap(&day);
    analyze_days(dense, &days, &computed);
    assert_int_equal(days, -1); /* whole: the stored series are another's */
    coverage_snap(&whole);
    coverage_snap_equal(&day, &whole);

    /* Computed whole, it kept no days: all again, the same; then none. */
    analyze_days(fx.conf, &days, &computed);
    assert_int_equal(computed, days);
    coverage_snap(&again);
    coverage_snap_equal(&again, &whole);
    analyze_days(fx.conf, &days, &computed);
    assert_int_equal(computed, 0);
    /* A rebuild of the series drops the days: all computed again, the same. */
    assert_int_equal(
        pgfixture_cmd(&fx.db, "--quiet --config '%s' db rebuild-series", fx.conf), 0);
    analyze_days(fx.conf, &days, &computed);
    assert_int_equal(computed, days);
    struct coverage_snap rebuilt;
    coverage_snap(&rebuilt);
    coverage_snap_equal(&rebuilt, &whole);
    free(rebuilt.exact);

    /* The first six hours of samples change: their day and the next are computed,
     * the last day is as it was, and all equals the plain computation. */
    run_sql("UPDATE samples SET r_bps = 2 * r_bps + 5e5 WHERE stamp_s < (SELECT "
            "floor(min(stamp_s) / 86400) * 86400 + 21600 FROM samples)");
    analyze_days(fx.conf, &days, &computed);
    print_message("after a change of 6 hours: %ld of %ld days computed\n", computed,
                  days);
    assert_true(computed > 0 && computed < days);
    coverage_snap(&moved);
    assert_string_not_equal(moved.exact, day.exact);
    analyze_days(dense, &days, &computed);
    coverage_snap(&moved_whole);
    coverage_snap_equal(&moved, &moved_whole);

    /* A missed report just after the second midnight (fill_max 1 fills it from the
     * interval before midnight, on the other day) and a run of two (a hole): both
     * ways alike. */
    struct coverage_snap gap, gap_whole;
    analyze_days(fx.conf, &days, &computed); /* days kept again */
    assert_int_equal(computed, days);
    run_sql("DELETE FROM samples s USING (SELECT fs, min(server) AS server, "
            "floor(min(stamp_s) / 86400) * 86400 + 86400 AS midnight FROM samples GROUP "
            "BY fs) m WHERE s.fs = m.fs AND s.server = m.server AND s.stamp_s IN "
            "(m.midnight + 60, m.midnight + 7200, m.midnight + 7260)");
    analyze_days(fx.conf, &days, &computed);
    assert_true(computed > 0); /* every day: each is within a day of the edge */
    coverage_snap(&gap);
    analyze_days(dense, &days, &computed);
    coverage_snap(&gap_whole);
    coverage_snap_equal(&gap, &gap_whole);
    assert_string_not_equal(gap.exact, moved.exact);

    /* The last day's samples unloaded (test_chunks_load_as_the_whole loaded them as
     * runs of their own, the newest): its days go, with their intervals. */
    struct coverage_snap cut, cut_whole;
    analyze_days(fx.conf, &days, &computed);
    long before_cut = days;
    unload_runs("SELECT string_agg(id::text, ' ' ORDER BY id DESC) FROM (SELECT id FROM "
                "ingest_runs WHERE kind = 'iostat' ORDER BY id DESC LIMIT 2) r");
    analyze_days(fx.conf, &days, &computed);
    print_message("after the last day's unload: %ld days (%ld before), %ld computed\n",
                  days, before_cut, computed);
    assert_true(days < before_cut);
    coverage_snap(&cut);
    analyze_days(dense, &days, &computed);
    coverage_snap(&cut_whole);
    coverage_snap_equal(&cut, &cut_whole);
    struct coverage_snap *all[] = {&day, &whole,     &again, &moved,    &moved_whole,
                                   &gap, &gap_whole, &cut,   &cut_whole};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_load_as_the_whole),
        cmocka_unit_test(test_reads_around_the_jobs),
        cmocka_unit_test(test_coverage_by_the_day),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
