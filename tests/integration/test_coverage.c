/* test_coverage.c: what `analyze` stores beside the associations, served over real
 * HTTP from a real PostgreSQL: the coverage of METHOD.md §7 (GET /api/v1/coverage) and
 * each group's table of §4 (GET /api/v1/groups/{id}/table), against the independent
 * oracle tests/oracles/coverage.py (numpy) on generated data and on the lab run; the
 * downsampled form (points=N) against buckets made here from the raw answer's arrays
 * of the same range, and on synthetic stored coverages of 45 days and a year of 60 s
 * intervals (past the raw form's limit) against the values they were made of. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE "tests/oracles/coverage.py"
#define SEED   20240601UL
/* One day: 420 jobs per group still, 1440 intervals per file system. */
#define GEN_ARGS "--days 1"
/* The generator samples every 60 s; the lab's iostat every second, its clock 0.9 s
 * behind the jobs' (METHOD.md §1). */
#define SAMPLE_DELTA_S 60.0
#define LAB_DELTA_S    1.0
#define LAB_OFFSET_S   0.9
/* Both sides sum the same doubles in another order; the API prints 15 significant
 * digits. */
#define REL 1e-9

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];  /* the data (generated, or the lab run) */
    char conf[600]; /* its iocontend.conf */
    json_t *oracle; /* coverage.py coverage */
    json_t *table;  /* coverage.py table (the generated data only) */
} fx;

/* ---- helpers ------------------------------------------------------------------- */

static json_t *get_json(const char *path, int want)
{
    return server_get_json(&fx.srv, path, NULL, want);
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        fail_msg("%s is not a number", key);
    return json_number_value(v);
}

static void assert_close(double got, double want, double rel)
{
    assert_rel(got, want, rel * fmax(fabs(want), 1.0));
}

static void expect_error(const char *path, int code, const char *status,
                         const char *parameter)
{
    json_t *j = get_json(path, code);
    const json_t *e = json_object_get(j, "error");

    assert_true(json_is_object(e));
    assert_string_equal(json_string_value(json_object_get(e, "status")), status);
    assert_true(json_is_string(json_object_get(e, "message")));
    if (parameter != NULL) {
        assert_string_equal(json_string_value(json_object_get(e, "parameter")),
                            parameter);
    } else {
        assert_null(json_object_get(e, "parameter"));
    }
    json_decref(j);
}

/* Runs the oracle with args; its JSON, or NULL with the reason on stderr. */
static json_t *run_oracle(const char *args)
{
    const char *script = testutil_repo_file(ORACLE);
    char cmd[8192];
    json_error_t jerr;
    int rc = -1;

    if (script == NULL) {
        fprintf(stderr, "no %s\n", ORACLE);
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s", testutil_oracle_python(), script, args);
    char *out = testutil_run(cmd, &rc);
    json_t *j = out != NULL && rc == 0 ? json_loads(out, 0, &jerr) : NULL;
    if (j == NULL)
        fprintf(stderr, "oracle `%s` exited %d:\n%s\n", cmd, rc, out != NULL ? out : "");
    free(out);
    return j;
}

/* " --iostat FS=PATH" for every dir/iostat/FS/ *.txt, appended to args. */
static int iostat_args(const char *dir, char *args, size_t size)
{
    char root[600];
    struct dirent *e;
    DIR *d;

    snprintf(root, sizeof root, "%s/iostat", dir);
    d = opendir(root);
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char sub[900];
        struct dirent *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
        DIR *fd = opendir(sub);
        while (fd != NULL && (f = readdir(fd)) != NULL) {
            size_t len = strlen(f->d_name), used = strlen(args);
            if (len > 4 && strcmp(f->d_name + len - 4, ".txt") == 0)
                snprintf(args + used, size - used, " --iostat '%s=%s/%s'", e->d_name, sub,
                         f->d_name);
        }
        if (fd != NULL)
            closedir(fd);
    }
    closedir(d);
    return 0;
}

/* The served scope of /api/v1/coverage (no fs: every one), checked against the
 * oracle's, interval by interval; its coverage returned. */
static double check_scope_against_oracle(const json_t *served)
{
    const char *scope = json_string_value(json_object_get(served, "scope"));
    const json_t *want = json_object_get(fx.oracle, scope);
    const json_t *rows = json_object_get(want, "rows");
    const json_t *ends = json_object_get(served, "end_ms");
    const json_t *d = json_object_get(served, "d"), *s = json_object_get(served, "s");
    double max_d = num(served, "max_d_bytes"), max_s = num(served, "max_s_bytes");

    assert_non_null(scope);
    assert_true(json_is_object(want));
    assert_close(num(served, "coverage"), num(want, "coverage"), REL);
    assert_close(num(served, "sum_d_bytes"), num(want, "sum_d_bytes"), REL);
    assert_close(num(served, "sum_s_bytes"), num(want, "sum_s_bytes"), REL);
    assert_int_equal((long)num(served, "intervals"), (long)num(want, "intervals"));
    assert_close(num(served, "d_total_bytes"), num(want, "d_total_bytes"), REL);
    /* Without from / to the range is the whole series. */
    assert_close(num(json_object_get(served, "range"), "coverage"), num(want, "coverage"),
                 REL);
    assert_int_equal(json_array_size(ends), json_array_size(rows));
    assert_int_equal(json_array_size(d), json_array_size(rows));
    assert_int_equal(json_array_size(s), json_array_size(rows));
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const json_t *row = json_array_get(rows, i);
        const json_t *wd = json_array_get(row, 1), *ws = json_array_get(row, 2);
        double end_ms = json_number_value(json_array_get(row, 0)) * 1000.0;
        assert_rel(json_number_value(json_array_get(ends, i)), end_ms, 0.5);
        /* D_i / max D and S_i / max S, null where absent (Fig. 13). */
        assert_int_equal(json_is_null(json_array_get(d, i)), json_is_null(wd));
        assert_int_equal(json_is_null(json_array_get(s, i)), json_is_null(ws));
        if (!json_is_null(wd)) {
            assert_rel(json_number_value(json_array_get(d, i)) * max_d,
                       json_number_value(wd), REL * max_d);
        }
        if (!json_is_null(ws)) {
            assert_rel(json_number_value(json_array_get(s, i)) * max_s,
                       json_number_value(ws), REL * max_s);
        }
    }
    return num(served, "coverage");
}

/* ---- generated data ------------------------------------------------------------ */

static int sample_start(void)
{
    char args[8192], out[700], run[1400];
    int rc = -1;

    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0)
        return -1; /* the group teardown cleans up */
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    /* sample_load ends with `analyze`, which stores the tables and the coverage. */
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0 || sample_load(&fx.db, fx.dir) != 0)
        return -1;
    snprintf(out, sizeof out, "%s/jobs.csv", fx.db.state_dir);
    snprintf(run, sizeof run, "--config '%s' export jobs --format csv --out '%s'",
             fx.conf, out);
    free(pgfixture_run(&fx.db, run, &rc));
    if (rc != 0)
        return -1;
    snprintf(args, sizeof args, "coverage --conf '%s' --darshan '%s/darshan' --delta %g",
             fx.conf, fx.dir, SAMPLE_DELTA_S);
    if (iostat_args(fx.dir, args, sizeof args) != 0)
        return -1;
    fx.oracle = run_oracle(args);
    snprintf(args, sizeof args, "table --jobs-csv '%s' --darshan '%s/darshan' --delta %g",
             out, fx.dir, SAMPLE_DELTA_S);
    fx.table = run_oracle(args);
    if (fx.oracle == NULL || fx.table == NULL)
        return -1;
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static void fixture_stop(void)
{
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    json_decref(fx.oracle);
    json_decref(fx.table);
    fx.oracle = fx.table = NULL;
}

static void coverage_of_each_file_system_and_of_all_is_the_oracles(void **state)
{
    (void)state;
    json_t *j = get_json("/api/v1/coverage", 200);
    const json_t *list = json_object_get(j, "filesystems");
    const json_t *summary = json_object_get(j, "coverage");

    /* all, then scratch1 and scratch2. */
    assert_int_equal(json_array_size(list), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "fs")),
                        "all");
    assert_true(json_is_null(json_object_get(j, "from")));
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *one = json_array_get(list, i);
        double c = check_scope_against_oracle(one);
        assert_rel(num(one, "granularity_s"), SAMPLE_DELTA_S, 0);
        assert_rel(num(summary, json_string_value(json_object_get(one, "fs"))), c, 0);
        print_message("coverage %s: %.4f\n",
                      json_string_value(json_object_get(one, "fs")), c);
    }
    json_decref(j);
}

static void every_interval_holds_no_more_job_bytes_than_the_servers_saw(void **state)
{
    /* The generator puts every job byte on the monitored servers, beside background
     * load: D_i <= S_i wherever both are known, and the coverage lies in (0, 1). */
    (void)state;
    json_t *j = get_json("/api/v1/coverage?fs=scratch1", 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    const json_t *d = json_object_get(one, "d"), *s = json_object_get(one, "s");
    double max_d = num(one, "max_d_bytes"), max_s = num(one, "max_s_bytes");
    size_t both = 0;

    assert_int_equal(json_array_size(json_object_get(j, "filesystems")), 1);
    assert_string_equal(json_string_value(json_object_get(one, "fs")), "scratch1");
    for (size_t i = 0; i < json_array_size(d); i++) {
        const json_t *di = json_array_get(d, i), *si = json_array_get(s, i);
        if (json_is_null(di) || json_is_null(si))
            continue;
        assert_true(json_number_value(di) * max_d <=
                    json_number_value(si) * max_s * (1 + 1e-12));
        both++;
    }
    assert_int_equal(both, (size_t)num(one, "intervals"));
    assert_true(num(one, "coverage") > 0 && num(one, "coverage") < 1);
    json_decref(j);
}

static void from_and_to_keep_the_intervals_that_overlap_them(void **state)
{
    /* Intervals (T − 60, T]; [from, to) = [T_a − 30, T_b + 30) keeps T_a … T_b + 60:
     * the one holding from and the one after to's grid point. */
    (void)state;
    const json_t *rows =
        json_object_get(json_object_get(fx.oracle, "fs:scratch2"), "rows");
    double t_a = json_number_value(json_array_get(json_array_get(rows, 100), 0));
    double t_b = json_number_value(json_array_get(json_array_get(rows, 219), 0));
    char path[256];
    snprintf(path, sizeof path, "/api/v1/coverage?fs=scratch2&from=%.0f&to=%.0f",
             (t_a - 30) * 1000, (t_b + 30) * 1000);
    json_t *j = get_json(path, 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    const json_t *ends = json_object_get(one, "end_ms");
    double sum_d = 0, sum_s = 0;
    long both = 0;

    assert_int_equal(json_array_size(ends), 121);
    assert_rel(json_number_value(json_array_get(ends, 0)), t_a * 1000, 0);
    assert_rel(json_number_value(json_array_get(ends, 120)), (t_b + 60) * 1000, 0);
    assert_rel(num(j, "from_ms"), (t_a - 30) * 1000, 0);
    for (size_t i = 100; i <= 220; i++) {
        const json_t *row = json_array_get(rows, i);
        if (json_is_null(json_array_get(row, 1)) || json_is_null(json_array_get(row, 2)))
            continue;
        sum_d += json_number_value(json_array_get(row, 1));
        sum_s += json_number_value(json_array_get(row, 2));
        both++;
    }
    const json_t *range = json_object_get(one, "range");
    assert_int_equal((long)num(range, "intervals"), both);
    assert_close(num(range, "coverage"), sum_d / sum_s, REL);
    /* The whole-span coverage stays beside it. */
    assert_close(num(one, "coverage"),
                 num(json_object_get(fx.oracle, "fs:scratch2"), "coverage"), REL);
    json_decref(j);
}

static void group_table_is_numpys_over_the_exported_jobs(void **state)
{
    const char *id;
    const json_t *want;

    (void)state;
    assert_int_equal(json_object_size(fx.table), 3);
    json_object_foreach(fx.table, id, want)
    {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/groups/%s/table", id);
        json_t *got = get_json(path, 200);
        const char *name;
        const json_t *w;

        assert_string_equal(json_string_value(json_object_get(got, "kind")),
                            "group_table");
        assert_string_equal(json_string_value(json_object_get(got, "group")), id);
        assert_rel(num(got, "granularity_s"), SAMPLE_DELTA_S, 0);
        assert_rel(num(got, "jobs"), num(want, "jobs"), 0);
        json_object_foreach(json_object_get(want, "features"), name, w)
        {
            const json_t *g = json_object_get(json_object_get(got, "features"), name);
            assert_rel(num(g, "min"), num(w, "min"), 0);
            assert_rel(num(g, "max"), num(w, "max"), 0);
        }
        json_object_foreach(json_object_get(want, "metrics"), name, w)
        {
            const json_t *g = json_object_get(json_object_get(got, "metrics"), name);
            assert_non_null(g);
            assert_rel(num(g, "n"), num(w, "n"), 0);
            assert_rel(num(g, "excluded"), num(want, "jobs") - num(w, "n"), 0);
            assert_close(num(g, "mean"), num(w, "mean"), 1e-12);
            assert_close(num(g, "sd"), num(w, "sd"), 1e-10);
        }
        const json_t *gh = json_object_get(got, "td_histogram");
        const json_t *wh = json_object_get(want, "td_histogram");
        assert_rel(num(gh, "bin_width_s"), SAMPLE_DELTA_S, 0);
        assert_rel(num(gh, "first_edge_s"), num(wh, "first_edge_s"), 0);
        assert_true(
            json_equal(json_object_get(gh, "counts"), json_object_get(wh, "counts")));
        assert_close(num(gh, "mean"), num(wh, "mean"), 1e-12);
        assert_close(num(gh, "band_low"), num(wh, "band_low"), 1e-10);
        assert_close(num(gh, "band_high"), num(wh, "band_high"), 1e-10);
        json_decref(got);
    }
}

static void bad_queries_answer_as_interfaces_says(void **state)
{
    (void)state;
    expect_error("/api/v1/coverage?fs=scratch9", 400, "invalid", "fs");
    expect_error("/api/v1/coverage?from=yesterday", 400, "invalid", "from");
    expect_error("/api/v1/coverage?to=2026-13-01T00:00:00Z", 400, "invalid", "to");
    expect_error("/api/v1/coverage?from=1795133773000&to=1795133770000", 400, "invalid",
                 "to");
    expect_error("/api/v1/groups/0000000000000000/table", 404, "not_found", NULL);
    expect_error("/api/v1/groups/not*an*id/table", 404, "not_found", NULL);
}

/* ---- points=N: buckets --------------------------------------------------------- */

/* What a bucket holds: the min and max of each normalized series, NAN when empty. */
struct ref_bucket {
    double d_min, d_max, s_min, s_max;
};

static void ref_add(double v, double *lo, double *hi)
{
    if (isnan(v))
        return;
    *lo = isnan(*lo) || v < *lo ? v : *lo;
    *hi = isnan(*hi) || v > *hi ? v : *hi;
}

/* A value of a JSON array, NAN for null. */
static double at_or_nan(const json_t *a, size_t i)
{
    const json_t *v = json_array_get(a, i);

    return json_is_number(v) ? json_number_value(v) : (double)NAN;
}

/* The bucket of an interval ending at end_ms (the answer's rule, README): its middle
 * T − Δ/2 in [start + k·W, start + (k+1)·W), clamped to the first and last. */
static size_t bucket_of(double end_ms, double delta_s, double start_ms, double width_ms,
                        size_t n)
{
    double k = floor((end_ms - delta_s * 500.0 - start_ms) / width_ms);

    return k < 0 ? 0 : k >= (double)n ? n - 1 : (size_t)k;
}

static void assert_same_or_null(double got, double want)
{
    if (isnan(want)) {
        assert_true(isnan(got));
    } else {
        assert_rel(got, want, 1e-14 * fmax(fabs(want), 1e-300));
    }
}

/* Where an interval ending at end_ms counts (ms): its middle, or at pre_ms > 0 the
 * middle of its pre-bucket when that lies wholly inside [from_ms, to_ms) (NAN: open),
 * the answer's rule (docs/api.md, pre_ms). */
static double position_ms(double end_ms, double delta_s, double pre_ms, double from_ms,
                          double to_ms)
{
    double mid = end_ms - delta_s * 500.0;

    if (!(pre_ms > 0))
        return mid;
    double b = floor((end_ms / 1000 - delta_s / 2) / (pre_ms / 1000));
    bool inside = (isnan(from_ms) || b * pre_ms >= from_ms) &&
                  (isnan(to_ms) || (b + 1) * pre_ms <= to_ms);
    return inside ? (b + 0.5) * pre_ms : mid;
}

/* The buckets of the scope served in pts against those made from the raw answer's
 * arrays (served in raw, the same fs, from and to); the bucket count given. */
static void check_buckets_against_raw(const json_t *pts, const json_t *raw, size_t n,
                                      double from_ms, double to_ms)
{
    const json_t *b = json_object_get(pts, "buckets");
    const json_t *ends = json_object_get(raw, "end_ms");
    const json_t *d = json_object_get(raw, "d"), *s = json_object_get(raw, "s");
    const size_t m = json_array_size(ends);
    const double delta_s = num(raw, "granularity_s");
    /* an open side: the first interval's start, the last's end */
    const double start_ms =
        isnan(from_ms) ? at_or_nan(ends, 0) - delta_s * 1000 : from_ms;
    const double end_ms = isnan(to_ms) ? at_or_nan(ends, m - 1) : to_ms;
    const double width_ms = (end_ms - start_ms) / (double)n;
    struct ref_bucket *ref = malloc(n * sizeof *ref);

    assert_non_null(ref);
    assert_true(m > n); /* more intervals than buckets: some share one */
    assert_null(json_object_get(pts, "end_ms"));
    assert_null(json_object_get(pts, "d"));
    assert_rel(num(b, "n"), (double)n, 0);
    assert_rel(num(b, "width_ms"), width_ms, 1e-9 * width_ms);
    for (size_t k = 0; k < n; k++)
        ref[k] = (struct ref_bucket){NAN, NAN, NAN, NAN};
    const json_t *pre = json_object_get(b, "pre_ms");
    assert_true(json_is_null(pre) || json_is_number(pre));
    const double pre_ms = json_is_number(pre) ? json_number_value(pre) : 0;
    for (size_t i = 0; i < m; i++) {
        double at_ms = position_ms(at_or_nan(ends, i), delta_s, pre_ms, from_ms, to_ms);
        size_t k = bucket_of(at_ms + delta_s * 500.0, delta_s, start_ms, width_ms, n);
        ref_add(at_or_nan(d, i), &ref[k].d_min, &ref[k].d_max);
        ref_add(at_or_nan(s, i), &ref[k].s_min, &ref[k].s_max);
    }
    const char *names[] = {"d_min", "d_max", "s_min", "s_max", "start_ms", "end_ms"};
    for (size_t a = 0; a < 6; a++)
        assert_int_equal(json_array_size(json_object_get(b, names[a])), n);
    size_t empty = 0;
    for (size_t k = 0; k < n; k++) {
        assert_same_or_null(at_or_nan(json_object_get(b, "d_min"), k), ref[k].d_min);
        assert_same_or_null(at_or_nan(json_object_get(b, "d_max"), k), ref[k].d_max);
        assert_same_or_null(at_or_nan(json_object_get(b, "s_min"), k), ref[k].s_min);
        assert_same_or_null(at_or_nan(json_object_get(b, "s_max"), k), ref[k].s_max);
        assert_rel(at_or_nan(json_object_get(b, "start_ms"), k),
                   start_ms + (double)k * width_ms, 0.5);
        assert_rel(at_or_nan(json_object_get(b, "end_ms"), k),
                   start_ms + (double)(k + 1) * width_ms, 0.5);
        empty += isnan(ref[k].d_max) ? 1 : 0;
    }
    print_message("%s: %zu intervals in %zu buckets (pre-buckets of %g s), %zu without "
                  "D\n",
                  json_string_value(json_object_get(pts, "scope")), m, n, pre_ms / 1000,
                  empty);
    /* The range's sums and maxima are the raw answer's. */
    const json_t *pr = json_object_get(pts, "range"), *rr = json_object_get(raw, "range");
    assert_rel(num(pr, "intervals"), num(rr, "intervals"), 0);
    assert_close(num(pr, "sum_d_bytes"), num(rr, "sum_d_bytes"), REL);
    assert_close(num(pts, "max_d_bytes"), num(raw, "max_d_bytes"), REL);
    assert_close(num(pts, "max_s_bytes"), num(raw, "max_s_bytes"), REL);
    free(ref);
}

/* /coverage?QUERY&points=N against /coverage?QUERY, scope by scope. */
static void check_points_query(const char *query, size_t n, double from_ms, double to_ms,
                               bool pre)
{
    char path[512];

    snprintf(path, sizeof path, "/api/v1/coverage?%s%spoints=%zu", query,
             query[0] != '\0' ? "&" : "", n);
    json_t *pts = get_json(path, 200);
    snprintf(path, sizeof path, "/api/v1/coverage%s%s", query[0] != '\0' ? "?" : "",
             query);
    json_t *raw = get_json(path, 200);
    const json_t *pl = json_object_get(pts, "filesystems");
    const json_t *rl = json_object_get(raw, "filesystems");

    assert_int_equal(json_array_size(pl), json_array_size(rl));
    assert_true(json_array_size(pl) > 0);
    for (size_t i = 0; i < json_array_size(pl); i++) {
        const json_t *p = json_array_get(pl, i), *r = json_array_get(rl, i);
        assert_string_equal(json_string_value(json_object_get(p, "scope")),
                            json_string_value(json_object_get(r, "scope")));
        check_buckets_against_raw(p, r, n, from_ms, to_ms);
        const json_t *lv = json_object_get(json_object_get(p, "buckets"), "pre_ms");
        assert_true(pre ? json_number_value(lv) > 0 : json_is_null(lv));
    }
    json_decref(pts);
    json_decref(raw);
}

static void points_buckets_are_those_of_the_raw_arrays(void **state)
{
    (void)state;
    /* every scope over its whole span; one file system in a range of 5 h 10 min */
    check_points_query("", 97, NAN, NAN, false);
    check_points_query("fs=scratch2&from=2026-11-20T06:00:00Z&to=1795173000000", 10,
                       1795154400000.0, 1795173000000.0, false);
    check_points_query("fs=all&to=1795150000000", 50, NAN, 1795150000000.0, false);
    /* Buckets at least 8 pre-buckets wide read those (migration 0019): whole, and a
     * range whose ends cut 10-minute pre-buckets (its edges' intervals as they are). */
    check_points_query("", 5, NAN, NAN, true);
    check_points_query("fs=scratch2&from=2026-11-20T06:07:00Z&to=1795173030000", 2,
                       1795154820000.0, 1795173030000.0, true);
}

/* Every bucket of every scope of /coverage?QUERY&points=5 empty, all 10 edges at
 * edge_ms (a range with no interval has no width); edge_ms NAN: at the scope's
 * log_start_ms. */
static void check_empty_buckets(const char *query, double edge_ms)
{
    char path[256];

    snprintf(path, sizeof path, "/api/v1/coverage?%s&points=5", query);
    json_t *j = get_json(path, 200);
    const json_t *list = json_object_get(j, "filesystems");
    assert_true(json_array_size(list) > 1);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *one = json_array_get(list, i);
        const json_t *b = json_object_get(one, "buckets");
        const double at_ms = isnan(edge_ms) ? num(one, "log_start_ms") : edge_ms;
        const char *values[] = {"d_min", "d_max", "s_min", "s_max"};
        assert_rel(num(b, "n"), 5, 0);
        assert_rel(num(b, "width_ms"), 0, 0);
        assert_rel(num(json_object_get(one, "range"), "intervals"), 0, 0);
        assert_true(
            json_is_null(json_object_get(json_object_get(one, "range"), "coverage")));
        assert_rel(num(one, "max_d_bytes"), 0, 0);
        assert_rel(num(one, "max_s_bytes"), 0, 0);
        for (size_t k = 0; k < 5; k++) {
            for (size_t a = 0; a < 4; a++) {
                const json_t *v = json_array_get(json_object_get(b, values[a]), k);
                assert_true(json_is_null(v));
            }
            assert_rel(at_or_nan(json_object_get(b, "start_ms"), k), at_ms, 0);
            assert_rel(at_or_nan(json_object_get(b, "end_ms"), k), at_ms, 0);
        }
    }
    json_decref(j);
}

static void points_of_a_range_without_intervals_are_empty(void **state)
{
    (void)state;
    json_t *raw = get_json("/api/v1/coverage?fs=all", 200);
    const json_t *all = json_array_get(json_object_get(raw, "filesystems"), 0);
    const json_t *ends = json_object_get(all, "end_ms");
    /* beyond both the intervals and the logged span, which bounds an open side */
    const double after_ms =
        fmax(at_or_nan(ends, json_array_size(ends) - 1), num(all, "log_end_ms")) + 3600e3;
    const double before_ms = fmin(at_or_nan(ends, 0) - num(all, "granularity_s") * 1000,
                                  num(all, "log_start_ms")) -
                             3600e3;
    char query[128];

    /* from after the last interval, to open: [from, from) */
    snprintf(query, sizeof query, "from=%.0f", after_ms);
    check_empty_buckets(query, after_ms);
    /* to before the first, from open: [log start, log start) */
    snprintf(query, sizeof query, "to=%.0f", before_ms);
    check_empty_buckets(query, NAN);
    json_decref(raw);
}

/* A range that overlaps one interval (T − Δ, T]: [T − 1 s, T). Its bucket (the
 * first: the interval's middle is before the range) holds the raw answer's values
 * of that range, the others nothing. */
static void points_of_one_interval_are_its_values(void **state)
{
    (void)state;
    json_t *raw = get_json("/api/v1/coverage?fs=scratch1", 200);
    const json_t *one = json_array_get(json_object_get(raw, "filesystems"), 0);
    const json_t *ends = json_object_get(one, "end_ms");
    size_t i = json_array_size(ends) / 2;
    char path[200];

    /* an interval with D and S, so that both scale to 1 */
    while (i < json_array_size(ends) && !(at_or_nan(json_object_get(one, "d"), i) > 0 &&
                                          at_or_nan(json_object_get(one, "s"), i) > 0))
        i++;
    assert_true(i < json_array_size(ends));
    const double t_ms = at_or_nan(ends, i);
    snprintf(path, sizeof path, "/api/v1/coverage?fs=scratch1&from=%.0f&to=%.0f",
             t_ms - 1000, t_ms);
    json_t *r1 = get_json(path, 200);
    snprintf(path + strlen(path), sizeof path - strlen(path), "&points=5");
    json_t *p1 = get_json(path, 200);
    const json_t *r = json_array_get(json_object_get(r1, "filesystems"), 0);
    const json_t *p = json_array_get(json_object_get(p1, "filesystems"), 0);
    const json_t *b = json_object_get(p, "buckets");

    assert_int_equal(json_array_size(json_object_get(r, "end_ms")), 1);
    assert_rel(at_or_nan(json_object_get(r, "d"), 0), 1, 0);
    assert_rel(at_or_nan(json_object_get(r, "s"), 0), 1, 0);
    assert_rel(num(json_object_get(p, "range"), "intervals"), 1, 0);
    assert_rel(num(json_object_get(p, "range"), "sum_d_bytes"),
               num(json_object_get(r, "range"), "sum_d_bytes"), 0);
    assert_rel(num(p, "max_d_bytes"), num(r, "max_d_bytes"), 0);
    assert_rel(num(p, "max_s_bytes"), num(r, "max_s_bytes"), 0);
    assert_rel(num(b, "width_ms"), 200, 0);
    const char *values[] = {"d_min", "d_max", "s_min", "s_max"};
    for (size_t a = 0; a < 4; a++) {
        const json_t *v = json_object_get(b, values[a]);
        assert_rel(at_or_nan(v, 0), 1, 0);
        for (size_t k = 1; k < 5; k++)
            assert_true(json_is_null(json_array_get(v, k)));
    }
    json_decref(p1);
    json_decref(r1);
    json_decref(raw);
}

static void points_out_of_range_answer_400(void **state)
{
    (void)state;
    expect_error("/api/v1/coverage?points=0", 400, "invalid", "points");
    expect_error("/api/v1/coverage?points=10001", 400, "invalid", "points");
    expect_error("/api/v1/coverage?points=-3", 400, "invalid", "points");
    expect_error("/api/v1/coverage?points=many", 400, "invalid", "points");
    expect_error("/api/v1/coverage?points=1e3", 400, "invalid", "points");
    /* the bounds themselves are fine */
    json_decref(get_json("/api/v1/coverage?fs=scratch1&points=1", 200));
    json_decref(get_json("/api/v1/coverage?fs=scratch1&points=10000", 200));
}

/* ---- the lab run --------------------------------------------------------------- */

static int lab_start(void)
{
    char args[4096];
    const char *lab = testutil_path(testutil_shared_data(), "lab/run1_queue_depth");
    FILE *fp;

    memset(&fx, 0, sizeof fx);
    snprintf(fx.dir, sizeof fx.dir, "%s", lab);
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    /* Every job file lives on the root file system of the one device sampled. */
    snprintf(fx.conf, sizeof fx.conf, "%s/lab.conf", fx.db.state_dir);
    fp = fopen(fx.conf, "w");
    if (fp == NULL)
        return -1;
    fprintf(fp, "[filesystems]\n/ = lab\n[samples]\nsample_offset_s = %g\n",
            LAB_OFFSET_S);
    fclose(fp);
    /* the darshan-parser texts the oracle reads (the folder's .darshan files, loaded
     * first when the folder is given, carry the times unrounded) */
    if (pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest darshan '%s/darshan/'*.parser.txt",
                      fx.conf, fx.dir) != 0 ||
        pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest iostat --fs lab "
                      "'%s/iostat/iostat_dxt.txt'",
                      fx.conf, fx.dir) != 0)
        return -1;
    snprintf(args, sizeof args,
             "coverage --conf '%s' --darshan '%s/darshan' --iostat "
             "'lab=%s/iostat/iostat_dxt.txt' --delta %g --offset %g",
             fx.conf, fx.dir, fx.dir, LAB_DELTA_S, LAB_OFFSET_S);
    fx.oracle = run_oracle(args);
    if (fx.oracle == NULL)
        return -1;
    /* Served before analyze: the first test asks for what is not stored yet. */
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static void table_and_coverage_answer_404_before_analyze(void **state)
{
    (void)state;
    expect_error("/api/v1/coverage", 404, "not_found", NULL);
    json_t *groups = get_json("/api/v1/groups", 200);
    const json_t *g = json_array_get(json_object_get(groups, "groups"), 0);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/groups/%s/table",
             json_string_value(json_object_get(g, "id")));
    expect_error(path, 404, "not_found", NULL);
    json_decref(groups);
}

static void lab_coverage_after_analyze_is_the_oracles(void **state)
{
    int rc = -1;
    char args[700];

    (void)state;
    /* Exit 1: every lab group is below d_min. */
    snprintf(args, sizeof args, "--config '%s' analyze", fx.conf);
    char *out = pgfixture_run(&fx.db, args, &rc);
    free(out);
    assert_true(rc == 0 || rc == 1);
    json_t *j = get_json("/api/v1/coverage?fs=lab", 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    assert_rel(num(one, "granularity_s"), LAB_DELTA_S, 0);
    double c = check_scope_against_oracle(one);
    print_message("coverage lab: %.4f\n", c);
    json_decref(j);
    /* Every group has its table, and their jobs add up to the 30 of the run. */
    json_t *groups = get_json("/api/v1/groups", 200);
    size_t i;
    const json_t *g;
    long jobs = 0;
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/groups/%s/table",
                 json_string_value(json_object_get(g, "id")));
        json_t *t = get_json(path, 200);
        jobs += (long)num(t, "jobs");
        json_decref(t);
    }
    assert_int_equal(jobs, 30);
    json_decref(groups);
}

/* ---- long ranges: synthetic stored coverages ----------------------------------- */

/* Two stored coverages of 60 s intervals from LONG_T0_S, made in SQL: "all" over 45
 * days (64,800 intervals, past the raw form's 60,480) and "fs:year" over a year
 * (525,600). Interval g (1-based) ends at T0 + 60·g; its D and S are the functions
 * below, with holes (null) every 97th and 211th. */
#define LONG_T0_S    1795132800.0
#define LONG_DELTA_S 60.0
#define LONG_ALL_N   64800
#define LONG_YEAR_N  525600
#define LONG_D_SQL                                                                       \
    "CASE WHEN g %% 97 = 0 THEN NULL ELSE ((g * 7919) %% 1000 + 1) * 1e6 END"
#define LONG_S_SQL                                                                       \
    "CASE WHEN g %% 211 = 0 THEN NULL ELSE ((g * 104729) %% 997 + 1) * 1e7 END"

static double long_d(long long g)
{
    return g % 97 == 0 ? (double)NAN : (double)((g * 7919) % 1000 + 1) * 1e6;
}

static double long_s(long long g)
{
    return g % 211 == 0 ? (double)NAN : (double)((g * 104729) % 997 + 1) * 1e7;
}

/* Stores scope with n intervals; 0 on success. */
static int long_store(const char *scope, long n)
{
    char sql[1024], count[32];

    snprintf(sql, sizeof sql,
             "WITH c AS (INSERT INTO coverage (scope, granularity_s, sum_d_bytes, "
             "sum_s_bytes, intervals, d_total_bytes, log_start_s, log_end_s) VALUES "
             "($1, %g, 0, 0, 0, 0, %.17g, %.17g) RETURNING 1) SELECT count(*) FROM c",
             LONG_DELTA_S, LONG_T0_S, LONG_T0_S + LONG_DELTA_S * (double)n);
    char *v = pgfixture_query(&fx.db, sql, scope);
    int rc = v != NULL && strcmp(v, "1") == 0 ? 0 : -1;
    free(v);
    snprintf(
        sql, sizeof sql,
        "WITH i AS (INSERT INTO coverage_intervals (scope, end_s, d_bytes, s_bytes) "
        "SELECT $1, %.17g + %g * g, " LONG_D_SQL ", " LONG_S_SQL
        " FROM generate_series(1::bigint, %ld) g RETURNING 1) SELECT count(*) FROM i",
        LONG_T0_S, LONG_DELTA_S, n);
    v = rc == 0 ? pgfixture_query(&fx.db, sql, scope) : NULL;
    snprintf(count, sizeof count, "%ld", n);
    rc = v != NULL && strcmp(v, count) == 0 ? 0 : -1;
    free(v);
    return rc;
}

static int long_start(void)
{
    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0 || pgfixture_cmd(&fx.db, "--quiet db migrate") != 0)
        return -1;
    if (long_store("all", LONG_ALL_N) != 0 || long_store("fs:year", LONG_YEAR_N) != 0)
        return -1;
    return server_start(&fx.srv, &fx.db, NULL);
}

/* The buckets of one scope of n_intervals (fs=fs) downsampled to n, against those
 * made here from the functions the intervals were stored with. */
static void check_long_scope(const char *fs, long n_intervals, size_t n)
{
    char path[256];
    double max_d = 0, max_s = 0;
    const double start_ms = LONG_T0_S * 1000;
    const double width_ms = LONG_DELTA_S * 1000 * (double)n_intervals / (double)n;
    struct ref_bucket *ref = malloc(n * sizeof *ref);

    assert_non_null(ref);
    snprintf(path, sizeof path, "/api/v1/coverage?fs=%s&points=%zu", fs, n);
    json_t *j = get_json(path, 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    const json_t *b = json_object_get(one, "buckets");
    for (long long g = 1; g <= n_intervals; g++) {
        max_d = isnan(long_d(g)) ? max_d : fmax(max_d, long_d(g));
        max_s = isnan(long_s(g)) ? max_s : fmax(max_s, long_s(g));
    }
    for (size_t k = 0; k < n; k++)
        ref[k] = (struct ref_bucket){NAN, NAN, NAN, NAN};
    for (long long g = 1; g <= n_intervals; g++) {
        double end_ms = (LONG_T0_S + LONG_DELTA_S * (double)g) * 1000;
        size_t k = bucket_of(end_ms, LONG_DELTA_S, start_ms, width_ms, n);
        ref_add(long_d(g) / max_d, &ref[k].d_min, &ref[k].d_max);
        ref_add(long_s(g) / max_s, &ref[k].s_min, &ref[k].s_max);
    }
    assert_rel(num(one, "max_d_bytes"), max_d, 0);
    assert_rel(num(one, "max_s_bytes"), max_s, 0);
    assert_rel(num(json_object_get(one, "range"), "intervals"),
               (double)(n_intervals - n_intervals / 97 - n_intervals / 211 +
                        n_intervals / (97 * 211)),
               0);
    assert_rel(num(b, "width_ms"), width_ms, 1e-12 * width_ms);
    assert_rel(at_or_nan(json_object_get(b, "start_ms"), 0), start_ms, 0);
    assert_rel(at_or_nan(json_object_get(b, "end_ms"), n - 1),
               start_ms + width_ms * (double)n, 0.5);
    for (size_t k = 0; k < n; k++) {
        assert_same_or_null(at_or_nan(json_object_get(b, "d_min"), k), ref[k].d_min);
        assert_same_or_null(at_or_nan(json_object_get(b, "d_max"), k), ref[k].d_max);
        assert_same_or_null(at_or_nan(json_object_get(b, "s_min"), k), ref[k].s_min);
        assert_same_or_null(at_or_nan(json_object_get(b, "s_max"), k), ref[k].s_max);
    }
    free(ref);
    json_decref(j);
}

static void forty_five_days_answer_with_points_and_refuse_raw(void **state)
{
    (void)state;
    /* 64,800 intervals: the raw form refuses, naming from (no range given) */
    expect_error("/api/v1/coverage?fs=all", 400, "invalid", "from");
    expect_error("/api/v1/coverage", 400, "invalid", "from");
    check_long_scope("all", LONG_ALL_N, 450);
    check_long_scope("all", LONG_ALL_N, 10000);
}

static void a_year_of_60_s_answers_with_points(void **state)
{
    (void)state;
    expect_error("/api/v1/coverage?fs=year", 400, "invalid", "from");
    check_long_scope("year", LONG_YEAR_N, 1400);
    /* both scopes at once */
    json_t *j = get_json("/api/v1/coverage?points=800", 200);
    assert_int_equal(json_array_size(json_object_get(j, "filesystems")), 2);
    json_decref(j);
}

/* ---- one fixture at a time --------------------------------------------------- */

/* The suite's tests run on one of two databases, made when its first test comes and
 * dropped when a test of the other comes (pgfixture: one after another), so that one
 * cmocka group (one summary) covers both. A fixture that failed is not retried. */
enum fixture { FIX_NONE, FIX_SAMPLE, FIX_LAB, FIX_LONG, FIX_COUNT };

static enum fixture current = FIX_NONE;
static bool broken[FIX_COUNT];

static int use(enum fixture want)
{
    if (current == want)
        return 0;
    if (broken[want])
        return -1;
    if (current != FIX_NONE)
        fixture_stop();
    current = FIX_NONE;
    int rc = want == FIX_SAMPLE ? sample_start()
             : want == FIX_LAB  ? lab_start()
                                : long_start();
    if (rc != 0) {
        broken[want] = true;
        fixture_stop();
        return -1;
    }
    current = want;
    return 0;
}

static int use_sample(void **state)
{
    (void)state;
    return use(FIX_SAMPLE);
}

static int use_lab(void **state)
{
    (void)state;
    return use(FIX_LAB);
}

static int use_long(void **state)
{
    (void)state;
    return use(FIX_LONG);
}

static int group_teardown(void **state)
{
    (void)state;
    if (current != FIX_NONE)
        fixture_stop();
    current = FIX_NONE;
    return 0;
}

#define SAMPLE_TEST(f) cmocka_unit_test_setup(f, use_sample)
#define LAB_TEST(f)    cmocka_unit_test_setup(f, use_lab)
#define LONG_TEST(f)   cmocka_unit_test_setup(f, use_long)

int main(void)
{
    const struct CMUnitTest tests[] = {
        SAMPLE_TEST(coverage_of_each_file_system_and_of_all_is_the_oracles),
        SAMPLE_TEST(every_interval_holds_no_more_job_bytes_than_the_servers_saw),
        SAMPLE_TEST(from_and_to_keep_the_intervals_that_overlap_them),
        SAMPLE_TEST(group_table_is_numpys_over_the_exported_jobs),
        SAMPLE_TEST(bad_queries_answer_as_interfaces_says),
        SAMPLE_TEST(points_buckets_are_those_of_the_raw_arrays),
        SAMPLE_TEST(points_out_of_range_answer_400),
        SAMPLE_TEST(points_of_a_range_without_intervals_are_empty),
        SAMPLE_TEST(points_of_one_interval_are_its_values),
        /* In this order: the lab's tables and coverage are not stored until the
         * second test runs analyze. */
        LAB_TEST(table_and_coverage_answer_404_before_analyze),
        LAB_TEST(lab_coverage_after_analyze_is_the_oracles),
        LONG_TEST(forty_five_days_answer_with_points_and_refuse_raw),
        LONG_TEST(a_year_of_60_s_answers_with_points),
    };

    return cmocka_run_group_tests(tests, NULL, group_teardown);
}
