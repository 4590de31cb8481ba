/* test_assoc.c: Pearson and Spearman r (METHOD.md §5) against scipy and exact sums. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <gsl/gsl_errno.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define D      170 /* jobs, about a group of the paper */
#define ORACLE "tests/oracles/assoc_ref.py"
/* METHOD.md §5 "Accuracy": Pearson and Spearman to 1e-12, absolute, against scipy.
 * Against the exact value we hold ourselves to a few ulps. */
#define TOL       1e-12
#define TOL_EXACT 1e-14

struct reference {
    double pearson, spearman;             /* scipy.stats */
    double pearson_exact, spearman_exact; /* exact rational sums, rounded once */
};

/* Writes x, y to a temporary file and reads the oracle's answers. */
static void run_oracle(const double *x, const double *y, size_t d, struct reference *ref)
{
    char file[] = "/tmp/iocontend-assoc-XXXXXX";
    char cmd[8192];
    const char *script = testutil_repo_file(ORACLE);
    int fd = mkstemp(file), rc = -1;
    FILE *fp;
    char *out, *line;
    int found = 0;

    assert_non_null(script);
    assert_true(fd >= 0);
    fp = fdopen(fd, "w");
    assert_non_null(fp);
    for (size_t i = 0; i < d; i++)
        fprintf(fp, "%.17g %.17g\n", x[i], y[i]);
    assert_int_equal(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", testutil_oracle_python(), script, file);
    out = testutil_run(cmd, &rc);
    unlink(file);
    assert_non_null(out);
    if (rc != 0)
        print_error("oracle: %s\n%s", cmd, out);
    assert_int_equal(rc, 0);
    const char *names[] = {"pearson", "spearman", "pearson_exact", "spearman_exact"};
    double *slots[] = {&ref->pearson, &ref->spearman, &ref->pearson_exact,
                       &ref->spearman_exact};
    for (line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char *value = strchr(line, ' '), *end;
        if (value == NULL)
            continue;
        *value++ = '\0';
        double v = strtod(value, &end);
        for (int k = 0; k < 4; k++) {
            if (strcmp(line, names[k]) == 0 && end != value) {
                *slots[k] = v;
                found |= 1 << k;
            }
        }
    }
    free(out);
    assert_int_equal(found, 15);
}

/* Ours against scipy and the exact values, and stats_assoc_compute agreeing. */
static void check_against_oracle(const double *x, const double *y, size_t d)
{
    struct reference ref = {0};
    struct stats_ws *ws = stats_ws_new(d);
    struct stats_assoc a;
    double rp, rs;

    assert_non_null(ws);
    run_oracle(x, y, d, &ref);
    assert_int_equal(stats_pearson(x, y, d, &rp, NULL), STATUS_OK);
    assert_int_equal(stats_spearman(x, y, d, ws, &rs, NULL), STATUS_OK);
    assert_rel(rp, ref.pearson, TOL);
    assert_rel(rp, ref.pearson_exact, TOL_EXACT);
    assert_rel(rs, ref.spearman, TOL);
    assert_rel(rs, ref.spearman_exact, TOL_EXACT);
    assert_int_equal(
        stats_assoc_compute(x, y, d,
                            &(struct stats_assoc_opts){METHOD_PEARSON | METHOD_SPEARMAN,
                                                       10, STATS_DEFAULT_SEED, true},
                            ws, &a, NULL),
        STATUS_OK);
    assert_int_equal(a.d, d);
    assert_int_equal(a.pearson.reason, REASON_NONE);
    assert_int_equal(a.spearman.reason, REASON_NONE);
    assert_rel(a.pearson.value, rp, 0.0);
    assert_rel(a.spearman.value, rs, 0.0);
    stats_ws_free(ws);
}

static void independent_bytes_and_times_match_scipy(void **state)
{
    double x[D], y[D];

    (void)state;
    testutil_rng_seed(UINT64_C(20240601));
    for (size_t i = 0; i < D; i++) {
        x[i] = 1e10 * (1.0 + 3.7 * testutil_uniform()); /* bytes */
        y[i] = 2.385e3 + 17.3 * testutil_normal();      /* seconds */
    }
    check_against_oracle(x, y, D);
}

static void linear_relation_with_noise_matches_scipy(void **state)
{
    double x[D], y[D];

    (void)state;
    testutil_rng_seed(UINT64_C(777));
    for (size_t i = 0; i < D; i++) {
        x[i] = 2.385e12 * testutil_uniform();
        y[i] = 41.7 + 1.3e-11 * x[i] + 2.9 * testutil_normal();
    }
    check_against_oracle(x, y, D);
}

static void monotone_curve_with_ties_matches_scipy(void **state)
{
    double x[D], y[D];

    (void)state;
    testutil_rng_seed(UINT64_C(4242));
    for (size_t i = 0; i < D; i++) {
        /* T^D-like x: a multiple of Δ = 60, so many ties; y rounded to 0.1 s ties too */
        x[i] = 60.0 * floor(23.0 * testutil_uniform());
        y[i] = round(10.0 * (2.385 * exp(x[i] / 600.0) + 0.3 * testutil_normal())) / 10.0;
    }
    check_against_oracle(x, y, D);
}

static void huge_offset_bytes_do_not_cancel(void **state)
{
    /* METHOD.md §5: x = 1e15 + 2.385e3·i; the one-pass Σxy − d·x̄·ȳ loses every digit
     * here. scipy centres on a rounded mean without correcting for it (about 1e-13
     * off); the exact rational value decides, both must be within 1e-12. */
    double x[D], y[D];

    (void)state;
    testutil_rng_seed(UINT64_C(99));
    for (size_t i = 0; i < D; i++) {
        x[i] = 1e15 + 2.385e3 * (double)i;
        y[i] = 3.1 * sin(0.37 * (double)i) + 0.0137 * (double)i + 0.2 * testutil_normal();
    }
    check_against_oracle(x, y, D);
}

static void spearman_leaves_inputs_unchanged_and_reuses_its_workspace(void **state)
{
    double x[D], y[D], x0[D], y0[D], r1, r2;
    struct stats_ws *ws = stats_ws_new(D);

    (void)state;
    testutil_rng_seed(UINT64_C(31337));
    for (size_t i = 0; i < D; i++) {
        x0[i] = x[i] = 1e9 * testutil_uniform();
        y0[i] = y[i] = x[i] * 1e-9 + testutil_normal();
    }
    assert_int_equal(stats_spearman(x, y, D, ws, &r1, NULL), STATUS_OK);
    assert_memory_equal(x, x0, sizeof x);
    assert_memory_equal(y, y0, sizeof y);
    assert_int_equal(stats_spearman(x, y, 37, ws, &r2, NULL), STATUS_OK); /* smaller d */
    assert_int_equal(stats_spearman(x, y, D, ws, &r2, NULL), STATUS_OK);
    assert_rel(r2, r1, 0.0);
    stats_ws_free(ws);
}

static void perfect_and_reversed_ranks_give_one_and_minus_one(void **state)
{
    const double x[] = {2.385, 3.5, 7.25, 11.125, 19.5};
    const double y[] = {1e15 + 8.0, 1e15 + 40.0, 1e15 + 72.0, 1e15 + 88.0, 1e15 + 96.0};
    const double rev[] = {9.5, 8.25, 7.125, 4.5, 3.375};
    struct stats_ws *ws = stats_ws_new(5);
    double r;

    (void)state;
    assert_int_equal(stats_spearman(x, y, 5, ws, &r, NULL), STATUS_OK);
    assert_rel(r, 1.0, 1e-15);
    assert_int_equal(stats_spearman(x, rev, 5, ws, &r, NULL), STATUS_OK);
    assert_rel(r, -1.0, 1e-15);
    assert_int_equal(stats_pearson(x, rev, 2, &r, NULL), STATUS_OK); /* d = 2 */
    assert_rel(r, -1.0, 1e-15);
    stats_ws_free(ws);
}

static void constant_series_are_invalid_and_named(void **state)
{
    const double x[] = {2.385, 3.5, 7.25, 11.125};
    const double c[] = {1e15 + 2.0, 1e15 + 2.0, 1e15 + 2.0, 1e15 + 2.0};
    struct stats_ws *ws = stats_ws_new(4);
    struct error err = {0};
    double r;

    (void)state;
    assert_int_equal(stats_pearson(c, x, 4, &r, &err), STATUS_INVALID);
    assert_string_equal(err.msg, "constant_x");
    assert_true(isnan(r));
    error_clear(&err);
    assert_int_equal(stats_pearson(x, c, 4, &r, &err), STATUS_INVALID);
    assert_string_equal(err.msg, "constant_y");
    error_clear(&err);
    assert_int_equal(stats_spearman(c, x, 4, ws, &r, &err), STATUS_INVALID);
    assert_string_equal(err.msg, "constant_x");
    error_clear(&err);
    assert_int_equal(stats_spearman(x, c, 4, ws, &r, &err), STATUS_INVALID);
    assert_string_equal(err.msg, "constant_y");
    stats_ws_free(ws);
}

static void pearson_rejects_short_nonfinite_and_missing_inputs(void **state)
{
    const double x[] = {2.385, 3.5, 7.25};
    const double bad[] = {2.385, NAN, 7.25};
    double r;

    (void)state;
    assert_int_equal(stats_pearson(x, x, 1, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_pearson(bad, x, 3, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_pearson(x, bad, 3, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_pearson(NULL, x, 3, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_pearson(x, x, 3, NULL, NULL), STATUS_INVALID);
    assert_int_equal(stats_pearson(x, x, 3, &r, NULL), STATUS_OK);
    assert_rel(r, 1.0, 1e-15);
}

static void spearman_rejects_a_small_or_missing_workspace(void **state)
{
    const double x[] = {2.385, 3.5, 7.25, 1.125};
    const double inf[] = {2.385, INFINITY, 7.25, 1.125};
    struct stats_ws *ws = stats_ws_new(3);
    struct error err = {0};
    double r;

    (void)state;
    assert_int_equal(stats_spearman(x, x, 4, ws, &r, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "workspace"));
    assert_int_equal(stats_spearman(x, x, 3, NULL, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_spearman(x, x, 1, ws, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_spearman(inf, x, 3, ws, &r, NULL), STATUS_INVALID);
    assert_int_equal(stats_spearman(x, x, 3, ws, NULL, NULL), STATUS_INVALID);
    assert_int_equal(stats_spearman(x, x, 3, ws, &r, NULL), STATUS_OK);
    stats_ws_free(ws);
    stats_ws_free(NULL);
}

static void assoc_below_d_min_is_null_with_a_reason(void **state)
{
    double x[9], y[9];
    struct stats_ws *ws = stats_ws_new(9);
    struct stats_assoc a;

    (void)state;
    for (size_t i = 0; i < 9; i++) {
        x[i] = 2.385 * (double)(i + 1);
        y[i] = 1.5 + sin((double)i);
    }
    assert_int_equal(
        stats_assoc_compute(x, y, 9,
                            &(struct stats_assoc_opts){METHOD_PEARSON | METHOD_SPEARMAN,
                                                       10, STATS_DEFAULT_SEED, true},
                            ws, &a, NULL),
        STATUS_OK);
    assert_int_equal(a.d, 9);
    assert_int_equal(a.pearson.reason, REASON_D_BELOW_MIN);
    assert_int_equal(a.spearman.reason, REASON_D_BELOW_MIN);
    assert_true(isnan(a.pearson.value) && isnan(a.spearman.value));
    /* d_min below 2 still needs two jobs. */
    assert_int_equal(stats_assoc_compute(x, y, 1,
                                         &(struct stats_assoc_opts){
                                             METHOD_PEARSON, 0, STATS_DEFAULT_SEED, true},
                                         ws, &a, NULL),
                     STATUS_OK);
    assert_int_equal(a.pearson.reason, REASON_D_BELOW_MIN);
    /* At d_min it is computed. */
    assert_int_equal(stats_assoc_compute(x, y, 9,
                                         &(struct stats_assoc_opts){
                                             METHOD_PEARSON, 9, STATS_DEFAULT_SEED, true},
                                         ws, &a, NULL),
                     STATUS_OK);
    assert_int_equal(a.pearson.reason, REASON_NONE);
    assert_true(isfinite(a.pearson.value));
    stats_ws_free(ws);
}

static void assoc_constant_series_and_unasked_methods_have_reasons(void **state)
{
    double x[12], c[12];
    struct stats_ws *ws = stats_ws_new(12);
    struct stats_assoc a;

    (void)state;
    for (size_t i = 0; i < 12; i++) {
        x[i] = 2.385e9 * (double)(i + 1);
        c[i] = 60.0;
    }
    assert_int_equal(
        stats_assoc_compute(c, x, 12,
                            &(struct stats_assoc_opts){METHOD_PEARSON | METHOD_SPEARMAN,
                                                       10, STATS_DEFAULT_SEED, true},
                            ws, &a, NULL),
        STATUS_OK);
    assert_int_equal(a.pearson.reason, REASON_CONSTANT_X);
    assert_int_equal(a.spearman.reason, REASON_CONSTANT_X);
    assert_int_equal(
        stats_assoc_compute(
            x, c, 12,
            &(struct stats_assoc_opts){METHOD_SPEARMAN, 10, STATS_DEFAULT_SEED, true}, ws,
            &a, NULL),
        STATUS_OK);
    assert_int_equal(a.pearson.reason, REASON_NOT_COMPUTED);
    assert_int_equal(a.spearman.reason, REASON_CONSTANT_Y);
    assert_int_equal(
        stats_assoc_compute(
            x, x, 12,
            &(struct stats_assoc_opts){METHOD_PEARSON, 10, STATS_DEFAULT_SEED, true},
            NULL, &a, NULL),
        STATUS_OK);
    assert_int_equal(a.pearson.reason, REASON_NONE);
    assert_rel(a.pearson.value, 1.0, 1e-15);
    assert_int_equal(a.spearman.reason, REASON_NOT_COMPUTED);
    assert_int_equal(
        stats_assoc_compute(x, x, 3,
                            &(struct stats_assoc_opts){0, 10, STATS_DEFAULT_SEED, true},
                            NULL, &a, NULL),
        STATUS_OK);
    assert_int_equal(a.pearson.reason, REASON_NOT_COMPUTED); /* not asked beats d_min */
    stats_ws_free(ws);
}

static void assoc_rejects_unknown_methods_bad_values_and_small_workspaces(void **state)
{
    double x[12], y[12];
    struct stats_ws *ws = stats_ws_new(11);
    struct stats_assoc a;
    struct error err = {0};

    (void)state;
    for (size_t i = 0; i < 12; i++) {
        x[i] = 2.385e9 * (double)(i + 1);
        y[i] = 7.5 - cos((double)i);
    }
    assert_int_equal(
        stats_assoc_compute(
            x, y, 12, &(struct stats_assoc_opts){1u << 7, 10, STATS_DEFAULT_SEED, true},
            ws, &a, &err),
        STATUS_INVALID);
    assert_non_null(strstr(err.msg, "unknown methods"));
    assert_int_equal(
        stats_assoc_compute(
            x, y, 12,
            &(struct stats_assoc_opts){METHOD_SPEARMAN, 10, STATS_DEFAULT_SEED, true}, ws,
            &a, NULL),
        STATUS_INVALID);
    assert_int_equal(
        stats_assoc_compute(
            x, y, 12,
            &(struct stats_assoc_opts){METHOD_SPEARMAN, 10, STATS_DEFAULT_SEED, true},
            NULL, &a, NULL),
        STATUS_INVALID);
    y[4] = NAN;
    assert_int_equal(
        stats_assoc_compute(
            x, y, 11,
            &(struct stats_assoc_opts){METHOD_PEARSON, 10, STATS_DEFAULT_SEED, true}, ws,
            &a, NULL),
        STATUS_INVALID);
    assert_int_equal(
        stats_assoc_compute(
            NULL, y, 11,
            &(struct stats_assoc_opts){METHOD_PEARSON, 10, STATS_DEFAULT_SEED, true}, ws,
            &a, NULL),
        STATUS_INVALID);
    assert_int_equal(
        stats_assoc_compute(
            x, y, 11,
            &(struct stats_assoc_opts){METHOD_PEARSON, 10, STATS_DEFAULT_SEED, true}, ws,
            NULL, NULL),
        STATUS_INVALID);
    stats_ws_free(ws);
}

static void reason_names_are_the_interface_words(void **state)
{
    (void)state;
    assert_string_equal(stats_reason_name(REASON_NONE), "");
    assert_string_equal(stats_reason_name(REASON_D_BELOW_MIN), "d_below_min");
    assert_string_equal(stats_reason_name(REASON_CONSTANT_X), "constant_x");
    assert_string_equal(stats_reason_name(REASON_CONSTANT_Y), "constant_y");
    assert_string_equal(stats_reason_name(REASON_NOT_COMPUTED), "not_computed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(independent_bytes_and_times_match_scipy),
        cmocka_unit_test(linear_relation_with_noise_matches_scipy),
        cmocka_unit_test(monotone_curve_with_ties_matches_scipy),
        cmocka_unit_test(huge_offset_bytes_do_not_cancel),
        cmocka_unit_test(spearman_leaves_inputs_unchanged_and_reuses_its_workspace),
        cmocka_unit_test(perfect_and_reversed_ranks_give_one_and_minus_one),
        cmocka_unit_test(constant_series_are_invalid_and_named),
        cmocka_unit_test(pearson_rejects_short_nonfinite_and_missing_inputs),
        cmocka_unit_test(spearman_rejects_a_small_or_missing_workspace),
        cmocka_unit_test(assoc_below_d_min_is_null_with_a_reason),
        cmocka_unit_test(assoc_constant_series_and_unasked_methods_have_reasons),
        cmocka_unit_test(assoc_rejects_unknown_methods_bad_values_and_small_workspaces),
        cmocka_unit_test(reason_names_are_the_interface_words),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
