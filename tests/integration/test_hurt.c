/* test_hurt.c: who got hurt and the predicted band, on the demo's sample data
 * (iocontend-gen, seed 20240601, its default size) after ingest and analyze:
 * /slowdowns ranks exactly the planted victims first (truth.csv) and the other jobs'
 * percentiles are uniform (Kolmogorov–Smirnov by Debian's scipy); /predict at the
 * stored KDE's 16 x equals its q05, q50, q95; every error status of both routes, and
 * `iocontend slowdowns`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED 20240601UL /* the demo's data set */
#define NQ   16
/* METHOD.md §5, "Accuracy": exact conditional quantiles within 1e-8·h_y (fitting
 * space); the groups here have 420 jobs, the exact path */
#define TOL_Q_EXACT 1e-8
#define KS_ORACLE   "tests/oracles/ks_ref.py"
#define MAX_JOBS    4096
#define MAX_VICTIMS 64
/* The sample spans 3 days from 2026-11-20T00:00:00Z; a day a query keeps each
 * answer within the route's limit (1000). */
#define DAY0_S 1795132800LL
#define DAYS   3

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];
    char conf[600];
    char victims[MAX_VICTIMS][32]; /* jobids truth.csv marks */
    size_t n_victims;
} fx;

static int group_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (sample_generate(fx.dir, SEED, "") != 0 || sample_load(&fx.db, fx.dir) != 0)
        return -1;
    /* the victims, from truth.csv's last column */
    char path[600];
    snprintf(path, sizeof path, "%s/truth.csv", fx.dir);
    FILE *fp = fopen(path, "r");
    char line[512];
    if (fp == NULL || fgets(line, sizeof line, fp) == NULL ||
        strstr(line, ",victim") == NULL) {
        if (fp != NULL)
            fclose(fp);
        fprintf(stderr, "test_hurt: %s has no victim column\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, fp) != NULL) {
        const char *last = strrchr(line, ',');
        if (last != NULL && atoi(last + 1) == 1 && fx.n_victims < MAX_VICTIMS) {
            size_t n = strcspn(line, ",");
            snprintf(fx.victims[fx.n_victims++], 32, "%.*s", (int)n, line);
        }
    }
    fclose(fp);
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

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

static const char *text(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    if (s == NULL)
        fail_msg("%s is not a string", key);
    return s;
}

static bool is_victim(const char *jobid)
{
    for (size_t i = 0; i < fx.n_victims; i++) {
        if (strcmp(fx.victims[i], jobid) == 0)
            return true;
    }
    return false;
}

/* ---- who got hurt ---------------------------------------------------------------- */

/* The truth has DATA_VICTIMS (3) per group of the 3 groups. */
static void the_truth_plants_three_victims_per_group(void **state)
{
    (void)state;
    assert_int_equal(fx.n_victims, 9);
}

static void the_top_of_slowdowns_is_exactly_the_victims(void **state)
{
    char path[128];
    (void)state;

    snprintf(path, sizeof path, "/api/v1/slowdowns?limit=%zu", fx.n_victims);
    json_t *o = get_json(path, 200);
    assert_string_equal(text(o, "y"), "t_d");
    assert_string_equal(text(o, "x"), "psi_d_read");
    assert_true(num(o, "granularity_s") == 60.0);
    const json_t *list = json_object_get(o, "slowdowns");
    assert_int_equal(json_array_size(list), fx.n_victims);
    double last = INFINITY;
    for (size_t i = 0; i < fx.n_victims; i++) {
        const json_t *j = json_array_get(list, i);
        if (!is_victim(text(j, "jobid")))
            fail_msg("rank %zu is job %s, not a victim", i + 1, text(j, "jobid"));
        assert_int_equal(json_integer_value(json_object_get(j, "rank")), (long)i + 1);
        /* ranked by y / q50, and each ratio is that */
        const double ratio = num(j, "ratio");
        assert_true(ratio <= last);
        last = ratio;
        assert_true(fabs(ratio - num(j, "y") / num(j, "q50")) <= 1e-12 * ratio);
        assert_true(num(j, "q05") < num(j, "q50") && num(j, "q50") < num(j, "q95"));
        /* slowed x3: well above their group's median at their load */
        assert_true(ratio > 1.5);
    }
    /* the jobs of the period: every one ranked or apart */
    assert_int_equal(json_integer_value(json_object_get(o, "jobs")),
                     json_integer_value(json_object_get(o, "ranked_total")) +
                         json_integer_value(json_object_get(o, "apart_total")));
    json_decref(o);
}

/* Every ranked job's percentile, one query a day; jobs across midnight once. */
static size_t all_percentiles(double *p, size_t max, size_t *victims_seen)
{
    static char ids[MAX_JOBS][33];
    size_t n = 0, n_ids = 0;

    *victims_seen = 0;
    for (int day = 0; day < DAYS; day++) {
        char path[160];
        const long long from = (DAY0_S + 86400LL * day) * 1000LL;
        snprintf(path, sizeof path, "/api/v1/slowdowns?limit=1000&from=%lld&to=%lld",
                 from, from + 86400000LL);
        json_t *o = get_json(path, 200);
        const json_t *list = json_object_get(o, "slowdowns");
        assert_int_equal(json_array_size(list),
                         json_integer_value(json_object_get(o, "ranked_total")));
        for (size_t i = 0; i < json_array_size(list); i++) {
            const json_t *j = json_array_get(list, i);
            bool seen = false;
            for (size_t k = 0; k < n_ids && !seen; k++)
                seen = strcmp(ids[k], text(j, "id")) == 0;
            if (seen)
                continue;
            assert_true(n_ids < MAX_JOBS);
            snprintf(ids[n_ids++], sizeof ids[0], "%s", text(j, "id"));
            const double v = num(j, "percentile");
            assert_true(v > 0.0 && v < 1.0);
            const double cdf = num(j, "cdf");
            assert_true(cdf >= 0.0 && cdf <= 1.0);
            if (is_victim(text(j, "jobid"))) {
                (*victims_seen)++;
                continue;
            }
            assert_true(n < max);
            p[n++] = v;
        }
        json_decref(o);
    }
    return n;
}

static void the_other_jobs_percentiles_are_uniform(void **state)
{
    static double p[MAX_JOBS];
    size_t victims = 0;
    char file[600], cmd[1400];
    int rc = 0;
    double ks[3];
    (void)state;

    const size_t n = all_percentiles(p, MAX_JOBS, &victims);
    assert_int_equal(victims, fx.n_victims);
    assert_true(n > 1000); /* 1260 jobs less the victims and the hole's */
    snprintf(file, sizeof file, "%s/percentiles.txt", fx.db.state_dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%.17g\n", p[i]);
    assert_int_equal(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", testutil_oracle_python(),
             testutil_repo_file(KS_ORACLE), file);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    if (rc != 0 || !testutil_values(out, "ks", ks, 3))
        fail_msg("%s: %s", KS_ORACLE, out);
    free(out);
    assert_int_equal((size_t)ks[2], n);
    fprintf(stderr, "test_hurt: KS over %zu percentiles: D %.4f, p %.4f\n", n, ks[0],
            ks[1]);
    assert_true(ks[1] > 0.01);
}

static void jobs_the_kde_cannot_rank_are_apart_with_their_reason(void **state)
{
    (void)state;
    /* the first hour: the planted hole in the samples (gen_iostat.c) */
    json_t *o = get_json("/api/v1/slowdowns?to=2026-11-20T01:00:00Z", 200);
    const json_t *apart = json_object_get(o, "apart");
    assert_true(json_array_size(apart) > 0);
    for (size_t i = 0; i < json_array_size(apart); i++) {
        const json_t *j = json_array_get(apart, i);
        assert_string_equal(text(j, "reason"), "hole");
        assert_null(json_object_get(j, "ratio"));
    }
    json_decref(o);
    /* a pair analyze did not store: every job apart as not_analyzed */
    o = get_json("/api/v1/slowdowns?y=t_j&x=psi_read&limit=5", 200);
    assert_int_equal(json_integer_value(json_object_get(o, "ranked_total")), 0);
    const json_t *first = json_array_get(json_object_get(o, "apart"), 0);
    assert_non_null(first);
    assert_string_equal(text(first, "reason"), "not_analyzed");
    json_decref(o);
}

static void expect_error(const char *path, int status, const char *parameter)
{
    json_t *o = get_json(path, status);
    const json_t *e = json_object_get(o, "error");

    assert_non_null(e);
    if (parameter != NULL) {
        assert_string_equal(text(e, "parameter"), parameter);
    }
    json_decref(o);
}

static void slowdowns_errors_name_the_parameter(void **state)
{
    (void)state;
    expect_error("/api/v1/slowdowns?limit=0", 400, "limit");
    expect_error("/api/v1/slowdowns?limit=abc", 400, "limit");
    expect_error("/api/v1/slowdowns?from=yesterday", 400, "from");
    expect_error("/api/v1/slowdowns?y=t_nope", 400, "y");
    expect_error("/api/v1/slowdowns?x=psi_nope", 400, "x");
    expect_error("/api/v1/slowdowns?granularity=-60", 400, "granularity");
    expect_error("/api/v1/slowdowns?granularity=90", 400, "granularity");
}

/* ---- predict --------------------------------------------------------------------- */

static void predict_equals_the_stored_kde_at_its_16_points(void **state)
{
    (void)state;
    json_t *groups = get_json("/api/v1/groups", 200);
    const json_t *list = json_object_get(groups, "groups");
    assert_int_equal(json_array_size(list), 3);
    for (size_t g = 0; g < json_array_size(list); g++) {
        const char *id = text(json_array_get(list, g), "id");
        char path[256];
        snprintf(path, sizeof path, "/api/v1/groups/%s/association", id);
        json_t *a = get_json(path, 200);
        const json_t *kde = json_object_get(a, "kde");
        const json_t *rf = json_object_get(a, "rf");
        assert_string_equal(text(kde, "space"), "log");
        const double hy = num(kde, "hy");
        for (size_t i = 0; i < NQ; i++) {
            const double xv =
                json_number_value(json_array_get(json_object_get(kde, "x_grid"), i));
            snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=%.17g", id,
                     xv);
            json_t *p = get_json(path, 200);
            static const char *const q[3] = {"q05", "q50", "q95"};
            for (size_t k = 0; k < 3; k++) {
                const double want =
                    json_number_value(json_array_get(json_object_get(kde, q[k]), i));
                const double got = num(p, q[k]);
                if (!(fabs(log(got) - log(want)) <= TOL_Q_EXACT * hy))
                    fail_msg("group %s point %zu %s: %.17g, stored %.17g", id, i, q[k],
                             got, want);
            }
            assert_true(fabs(num(p, "width") - (num(p, "q95") - num(p, "q05"))) <=
                        1e-9 * num(p, "width"));
            assert_true(num(p, "hy") == hy);
            assert_int_equal(json_integer_value(json_object_get(p, "d")),
                             json_integer_value(json_object_get(a, "d")));
            /* the forest refitted with its seed: the stored fit at that point */
            if (json_is_object(rf)) {
                const double want = json_number_value(
                    json_array_get(json_object_get(rf, "fit_at_kde_x"), i));
                const double got = num(json_object_get(p, "rf"), "fit");
                assert_true(fabs(got - want) <= 1e-9 * fabs(want));
            }
            json_decref(p);
        }
        json_decref(a);
    }
    json_decref(groups);
}

static void predict_errors_name_the_parameter(void **state)
{
    char group[17], path[256];
    (void)state;

    assert_int_equal(server_first_group(&fx.srv, group, sizeof group), 0);
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict", group);
    expect_error(path, 400, "x_value");
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=lots", group);
    expect_error(path, 400, "x_value");
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=1e12&y=t_nope", group);
    expect_error(path, 400, "y");
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=1e12&x=psi_nope",
             group);
    expect_error(path, 400, "x");
    /* outside the KDE's x range: the x_value is the mistake */
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=1e30", group);
    expect_error(path, 400, "x_value");
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=-5", group);
    expect_error(path, 400, "x_value");
    /* nothing stored at 120 s, nor for this pair */
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=1e12&granularity=120",
             group);
    json_t *o = get_json(path, 404);
    const json_t *stored =
        json_object_get(json_object_get(o, "error"), "stored_granularities_s");
    assert_int_equal(json_array_size(stored), 1);
    assert_true(json_number_value(json_array_get(stored, 0)) == 60.0);
    json_decref(o);
    snprintf(path, sizeof path, "/api/v1/groups/%s/predict?x_value=1e12&y=t_j&x=psi_read",
             group);
    expect_error(path, 404, NULL);
    expect_error("/api/v1/groups/0123456789abcdef/predict?x_value=1e12", 404, NULL);
}

/* ---- the command ----------------------------------------------------------------- */

static void the_command_prints_the_victims_first(void **state)
{
    char args[800];
    int rc = 0;
    (void)state;

    snprintf(args, sizeof args, "--config '%s' slowdowns --limit 9", fx.conf);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 1); /* the hole's jobs are apart */
    assert_non_null(strstr(out, "who got hurt: "));
    for (size_t i = 0; i < fx.n_victims; i++) {
        if (strstr(out, fx.victims[i]) == NULL)
            fail_msg("victim %s not among the first 9:\n%s", fx.victims[i], out);
    }
    free(out);
    snprintf(args, sizeof args, "--config '%s' slowdowns --json --limit 3", fx.conf);
    out = pgfixture_run(&fx.db, args, &rc);
    json_error_t jerr;
    json_t *o = json_loads(out, 0, &jerr);
    free(out);
    assert_non_null(o);
    assert_int_equal(json_array_size(json_object_get(o, "slowdowns")), 3);
    assert_true(
        is_victim(text(json_array_get(json_object_get(o, "slowdowns"), 0), "jobid")));
    json_decref(o);
    snprintf(args, sizeof args, "slowdowns --help");
    out = pgfixture_run(&fx.db, args, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "usage: iocontend slowdowns"));
    free(out);
    static const char *const bad[] = {"--limit 0", "--from yesterday", "--granularity x",
                                      "--bogus", "extra"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "--config '%s' slowdowns %s", fx.conf, bad[i]);
        free(pgfixture_run(&fx.db, args, &rc));
        assert_int_equal(rc, 64);
    }
    snprintf(args, sizeof args, "--config '%s' slowdowns --y t_nope", fx.conf);
    free(pgfixture_run(&fx.db, args, &rc));
    assert_int_equal(rc, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_truth_plants_three_victims_per_group),
        cmocka_unit_test(the_top_of_slowdowns_is_exactly_the_victims),
        cmocka_unit_test(the_other_jobs_percentiles_are_uniform),
        cmocka_unit_test(jobs_the_kde_cannot_rank_are_apart_with_their_reason),
        cmocka_unit_test(slowdowns_errors_name_the_parameter),
        cmocka_unit_test(predict_equals_the_stored_kde_at_its_16_points),
        cmocka_unit_test(predict_errors_name_the_parameter),
        cmocka_unit_test(the_command_prints_the_victims_first),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
