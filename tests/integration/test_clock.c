/* test_clock.c: clocks judged by the majority (issue 29, item 3), through the real
 * program and a real PostgreSQL. A generated day (iocontend-gen, 60 s iostat text)
 * whose first server file starts with three reports stamped 01/01/00 (a CMOS reset
 * before NTP): the three are set aside with their lines and the rest of its day
 * loads; analyze stores a coverage bounded to the jobs' spans; and a server whose
 * samples are all three days from every job changes every group's fingerprint
 * (analyze recomputes instead of "inputs unchanged") without stretching the
 * coverage to its day. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEED     20240601UL
#define GEN_ARGS "--days 1 --jobs-per-group 12"
/* The server file given the reset clock, and the one of the same file system that
 * the test compares it with. */
#define RESET_FILE "iostat/scratch1/s1-ds01.iostat.txt"
#define TWIN_FILE  "iostat/scratch1/s1-ds02.iostat.txt"
#define DAY_S      86400

static struct {
    struct pgfixture db;
    PGconn *conn;
    char dir[512];
    char conf[600];
} fx;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The first column of the first row of sql as a number; fails the test otherwise. */
static double value(const char *sql)
{
    char *v = pgfixture_value(fx.conn, sql);
    char *end = NULL;
    double d;

    if (v == NULL)
        fail_msg("query failed: %s", sql);
    d = strtod(v, &end);
    if (end == v)
        fail_msg("'%s' is not a number: %s", v, sql);
    free(v);
    return d;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    n = ftell(fp);
    assert_true(n > 0);
    rewind(fp);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static void spill(const char *path, const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* Runs `iocontend --config CONF ARGS 2>&1`; its output (new) and exit status. */
static char *run(const char *args, int *rc)
{
    char cmd[4096];

    snprintf(cmd, sizeof cmd, "--config '%s' %s 2>&1", fx.conf, args);
    return pgfixture_run(&fx.db, cmd, rc);
}

/* Gives RESET_FILE three reports stamped 01/01/00 right after its banner: the first
 * report's device table under 01/01/00 00:00:00, :01:00 and :02:00. Each report of
 * the generator is 7 lines (stamp, header, 3 devices, 2 blank) and the banner 2, so
 * the three start at lines 3, 10 and 17. */
static void reset_the_clock(void)
{
    char path[700];
    size_t len;

    snprintf(path, sizeof path, "%s/%s", fx.dir, RESET_FILE);
    char *text = slurp(path, &len);
    char *first = strstr(text, "\n\n");
    assert_non_null(first);
    first += 2; /* the first report's stamp line */
    char *table = strchr(first, '\n');
    assert_non_null(table);
    table++;
    char *next = strstr(table, "\n\n\n");
    assert_non_null(next);
    next += 3;
    size_t table_len = (size_t)(next - table);
    size_t cap = len + 3 * (table_len + 32);
    char *out = malloc(cap);
    assert_non_null(out);
    size_t n = (size_t)(first - text);
    memcpy(out, text, n);
    for (int i = 0; i < 3; i++) {
        n += (size_t)snprintf(out + n, cap - n, "01/01/00 00:%02d:00\n", i);
        memcpy(out + n, table, table_len);
        n += table_len;
    }
    memcpy(out + n, first, len - (size_t)(first - text));
    n += len - (size_t)(first - text);
    spill(path, out, n);
    free(out);
    free(text);
}

/* A new server of scratch1, host (9 characters, "(s1-dsNN)"), with TWIN_FILE's
 * reports dated date (8 characters) for 11/20/26, in FX.DIR/sub. */
static void write_server_dated(const char *sub, const char *host_name, const char *date,
                               char *path, size_t size)
{
    char src[700];
    size_t len;

    snprintf(src, sizeof src, "%s/%s", fx.dir, TWIN_FILE);
    snprintf(path, size, "%s/%s/%.7s.iostat.txt", fx.dir, sub, host_name + 1);
    char *text = slurp(src, &len);
    char *host = strstr(text, "(s1-ds02)");
    assert_non_null(host);
    memcpy(host, host_name, 9);
    for (char *p = text; (p = strstr(p, "11/20/26")) != NULL; p += 8)
        memcpy(p, date, 8);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/%s", fx.dir, sub);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    spill(path, text, len);
    free(text);
}

static int setup(void **state)
{
    (void)state;
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/gen", fx.db.state_dir);
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0)
        return -1;
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    fx.conn = pgfixture_connect(&fx.db);
    return fx.conn != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (fx.conn != NULL)
        PQfinish(fx.conn);
    pgfixture_stop(&fx.db);
    return 0;
}

/* The association fingerprint of every group analysed, joined in group order
 * (new). */
static char *fingerprints(void)
{
    char *v =
        pgfixture_value(fx.conn, "SELECT string_agg(group_id || '=' || fingerprint, ',' "
                                 "ORDER BY group_id) FROM group_inputs "
                                 "WHERE kind = 'association'");
    assert_non_null(v);
    assert_true(strlen(v) > 0 && strcmp(v, "(null)") != 0);
    return v;
}

/* The stored coverage lies within a day (and one interval) of the jobs' span: no
 * interval of those three days, or of 2000, where no job ran. */
static void assert_coverage_bounded(void)
{
    double jobs_lo = value("SELECT min(start_time) FROM jobs");
    double jobs_hi = value("SELECT max(end_time) FROM jobs");
    double lo = value("SELECT min(end_s) FROM coverage_intervals");
    double hi = value("SELECT max(end_s) FROM coverage_intervals");
    double per_scope = value("SELECT max(n) FROM (SELECT count(*) AS n "
                             "FROM coverage_intervals GROUP BY scope) c");

    assert_true(lo >= jobs_lo - DAY_S);
    assert_true(hi <= jobs_hi + DAY_S + 60);
    /* 60 s intervals over the jobs' span and a day each side */
    assert_true(per_scope <= (jobs_hi - jobs_lo + 2 * DAY_S) / 60 + 1);
    assert_true(per_scope >= 1000);
}

static void a_clock_reset_is_set_aside_and_analyze_stays_bounded(void **state)
{
    char args[1600], far[800], analyze[128];
    struct timespec t0;
    int rc = -1;

    (void)state;
    reset_the_clock();
    snprintf(args, sizeof args, "ingest darshan '%s/darshan'", fx.dir);
    char *out = run(args, &rc);
    assert_int_equal(rc, 0);
    free(out);
    snprintf(args, sizeof args, "ingest iostat --fs scratch2 '%s/iostat/scratch2'",
             fx.dir);
    out = run(args, &rc);
    assert_int_equal(rc, 0);
    free(out);
    snprintf(args, sizeof args, "ingest iostat --fs scratch1 '%s/iostat/scratch1'",
             fx.dir);
    out = run(args, &rc);
    assert_non_null(out);
    /* set aside, not quarantined: the file loads */
    assert_int_equal(rc, 0);
    for (int i = 0; i < 3; i++) {
        char want[200];
        snprintf(
            want, sizeof want,
            "s1-ds01.iostat.txt:%d: report stamped 2000-01-01T00:%02d:00Z set aside: "
            "26 years from the file's median 2026-11-20T",
            3 + 7 * i, i);
        if (strstr(out, want) == NULL)
            fail_msg("no '%s' in:\n%s", want, out);
    }
    free(out);

    /* Nothing stored in 2000, and the reset server has its whole day: one report
     * more than its twin, whose since-boot first report was dropped, while here
     * the dropped one was the first of 2000. */
    assert_true(value("SELECT count(*) FROM samples WHERE stamp_s < 978307200") == 0);
    double reset = value("SELECT count(DISTINCT stamp_s) FROM samples "
                         "WHERE server = 's1-ds01'");
    double twin = value("SELECT count(DISTINCT stamp_s) FROM samples "
                        "WHERE server = 's1-ds02'");
    assert_true(twin >= 1400);
    assert_true(reset == twin + 1);

    /* One group is enough to show its fingerprint move (each group costs about a
     * second); the group tables and the coverage are stored whole by any analyze. */
    char *group = pgfixture_value(fx.conn, "SELECT min(group_id) FROM jobs");
    assert_non_null(group);
    snprintf(analyze, sizeof analyze, "analyze --permutations 0 --group %s", group);
    free(group);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    out = run(analyze, &rc);
    double first_s = seconds_since(&t0);
    if (rc != 0 && rc != 1)
        fail_msg("analyze exited %d:\n%s", rc, out);
    print_message("analyze with the reset clock: %.2f s\n%s", first_s, out);
    free(out);
    assert_coverage_bounded();
    char *before = fingerprints();

    /* A server of scratch1 whose samples are all three days before every job: no
     * group's "samples within a day" sees them, yet the series' presence rule
     * (every server reported) does. */
    write_server_dated("far", "(s1-ds09)", "11/17/26", far, sizeof far);
    snprintf(args, sizeof args, "ingest iostat --fs scratch1 '%s'", far);
    out = run(args, &rc);
    assert_int_equal(rc, 0);
    free(out);
    assert_true(value("SELECT count(*) FROM samples WHERE server = 's1-ds09' AND "
                      "stamp_s < (SELECT min(start_time) FROM jobs) - 2 * 86400") > 1000);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    out = run(analyze, &rc);
    double second_s = seconds_since(&t0);
    if (rc != 0 && rc != 1)
        fail_msg("analyze exited %d:\n%s", rc, out);
    print_message("analyze with a server three days away: %.2f s\n%s", second_s, out);
    char *after = fingerprints();
    if (strstr(out, " unchanged and kept") != NULL &&
        strstr(out, ", 0 unchanged and kept") == NULL)
        fail_msg("groups kept as unchanged:\n%s", out);
    free(out);
    /* the group's fingerprint moved (each of them, were there more) */
    for (char *b = before, *a = after; *b != '\0' && *a != '\0';) {
        char *be = strchr(b, ','), *ae = strchr(a, ',');
        size_t bl = be != NULL ? (size_t)(be - b) : strlen(b);
        size_t al = ae != NULL ? (size_t)(ae - a) : strlen(a);
        assert_true(bl == al);
        assert_true(memcmp(b, a, bl) != 0);
        b += bl + (be != NULL);
        a += al + (ae != NULL);
    }
    assert_coverage_bounded();
    free(before);
    free(after);

    /* A server whose clock was never set: its whole day stamped 01/01/00, kept by
     * the vote (it is all the file holds), stored in 2000. analyze's grid stays
     * within a day of the jobs: not 26 years of intervals, and its server is not
     * one that every interval of 2026 misses. */
    write_server_dated("never", "(s1-ds10)", "01/01/00", far, sizeof far);
    snprintf(args, sizeof args, "ingest iostat --fs scratch1 '%s'", far);
    out = run(args, &rc);
    assert_int_equal(rc, 0);
    free(out);
    assert_true(value("SELECT count(*) FROM samples WHERE server = 's1-ds10' AND "
                      "stamp_s < 978307200") > 1000);
    double intervals_before = value("SELECT count(*) FROM coverage_intervals");
    double holes_before =
        value("SELECT count(*) FROM coverage_intervals WHERE s_bytes IS NULL");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    out = run(analyze, &rc);
    double third_s = seconds_since(&t0);
    if (rc != 0 && rc != 1)
        fail_msg("analyze exited %d:\n%s", rc, out);
    print_message("analyze with a server stamped 2000: %.2f s\n%s", third_s, out);
    free(out);
    assert_coverage_bounded();
    assert_true(value("SELECT count(*) FROM coverage_intervals") <= intervals_before);
    assert_true(value("SELECT count(*) FROM coverage_intervals WHERE s_bytes IS NULL") <=
                holes_before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_clock_reset_is_set_aside_and_analyze_stays_bounded),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
