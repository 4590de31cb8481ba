/* test_dcor.c: distance correlation (METHOD.md §5) in O(d log d) against the O(d²)
 * definitions (tests/oracles/dcor_ref.py), published values and values worked by
 * hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE       "tests/oracles/dcor_ref.py"
#define ORACLE_EXACT "tests/oracles/dcor_exact_ref.py"
#define TOL          1e-9 /* METHOD.md §5: dCor against the direct formula, absolute */
#define D_MAX        2000
#define N_CASE       10

static double pool_x[N_CASE][D_MAX], pool_y[N_CASE][D_MAX];
static size_t pool_d[N_CASE];
static const char *pool_name[N_CASE];

static struct stats_assoc dcor_of(const double *x, const double *y, size_t d)
{
    struct stats_ws *ws = stats_ws_new(d);
    struct stats_assoc a;
    struct stats_assoc_opts opts = {METHOD_DCOR, 2, STATS_DEFAULT_SEED, true};

    assert_non_null(ws);
    assert_int_equal(stats_assoc_compute(x, y, d, &opts, ws, &a, NULL), STATUS_OK);
    stats_ws_free(ws);
    return a;
}

/* The number after key in line ("nan" included). */
static double field_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    char *end;

    assert_non_null(p);
    p += strlen(key);
    double v = strtod(p, &end);
    assert_true(end != p);
    return v;
}

/* The dcor_v and dcor2_u (NAN for d < 4) of n samples, in order, by an oracle. */
static void run_oracle_of(const char *oracle, const double *const *x,
                          const double *const *y, const size_t *d, size_t n, double *v,
                          double *u)
{
    int rc;
    char *out = testutil_run_oracle(oracle, x, y, d, n, &rc);
    char *save = NULL, *line;

    assert_non_null(out);
    assert_int_equal(rc, 0);
    line = strtok_r(out, "\n", &save);
    for (size_t c = 0; c < n; c++, line = strtok_r(NULL, "\n", &save)) {
        assert_non_null(line);
        v[c] = field_after(line, "dcor_v ");
        u[c] = field_after(line, "dcor2_u ");
    }
    free(out);
}

static void run_oracle(const double *const *x, const double *const *y, const size_t *d,
                       size_t n, double *v, double *u)
{
    run_oracle_of(ORACLE, x, y, d, n, v, u);
}

/* Shapes with unround values, ties (T^D is a multiple of Δ), the size of a group of
 * the paper, the smallest d of the U-statistic and the cancellation case of
 * METHOD.md §5. */
static void make_cases(void)
{
    size_t c = 0;
#define CASE(name_, d_)                                                                  \
    do {                                                                                 \
        pool_name[c] = (name_);                                                          \
        pool_d[c] = (d_);                                                                \
    } while (0)
    CASE("independent", 2000);
    for (size_t i = 0; i < 2000; i++) {
        pool_x[c][i] = exp(27.0 + 1.1 * testutil_normal());
        pool_y[c][i] = 600.0 + 97.3 * testutil_normal();
    }
    c++;
    CASE("linear", 1500);
    for (size_t i = 0; i < 1500; i++) {
        pool_x[c][i] = 1.3e10 + 7.9e12 * testutil_uniform();
        pool_y[c][i] = 2.385e-10 * pool_x[c][i] + 41.7 * testutil_normal();
    }
    c++;
    CASE("monotone", 1000);
    for (size_t i = 0; i < 1000; i++) {
        pool_x[c][i] = 6.0 * testutil_uniform();
        pool_y[c][i] = exp(1.3 * pool_x[c][i]) * (1.0 + 0.1 * testutil_normal());
    }
    c++;
    CASE("parabola", 700);
    for (size_t i = 0; i < 700; i++) {
        pool_x[c][i] = 2.0 * testutil_uniform() - 1.0;
        pool_y[c][i] = pool_x[c][i] * pool_x[c][i] + 0.05 * testutil_normal();
    }
    c++;
    CASE("ties", 1200); /* t_d = m·60, load rounded to whole MB */
    for (size_t i = 0; i < 1200; i++) {
        double m = floor(1.0 + 8.0 * testutil_uniform());
        pool_y[c][i] = 60.0 * m;
        pool_x[c][i] = 1e6 * floor(40.0 * m + 30.0 * testutil_uniform());
    }
    c++;
    /* Few values on both sides and no relation: dCor_V is small, where its square
     * root magnifies every error of dCor². */
    CASE("few_levels", 2000);
    for (size_t i = 0; i < 2000; i++) {
        pool_x[c][i] = 60.0 * floor(1.0 + 3.0 * testutil_uniform());
        pool_y[c][i] = 2.385 * floor(4.0 * testutil_uniform());
    }
    c++;
    CASE("group_170", 170); /* t_d in whole minutes against bytes */
    for (size_t i = 0; i < 170; i++) {
        double m = floor(1.0 + 20.0 * testutil_uniform());
        pool_y[c][i] = 60.0 * m;
        pool_x[c][i] = 2.385e9 * m * exp(0.7 * testutil_normal());
    }
    c++;
    CASE("d4", 4);
    static const double x4[4] = {1.7, 3.1, 2.2, 9.85}, y4[4] = {0.3, 0.2, 0.9, 0.41};
    memcpy(pool_x[c], x4, sizeof x4);
    memcpy(pool_y[c], y4, sizeof y4);
    c++;
    CASE("d5_ties", 5);
    static const double x5[5] = {1, 1, 2, 2, 3}, y5[5] = {5, 4, 4, 3.5, 1};
    memcpy(pool_x[c], x5, sizeof x5);
    memcpy(pool_y[c], y5, sizeof y5);
    c++;
    CASE("cancellation", 800);
    for (size_t i = 0; i < 800; i++) {
        pool_x[c][i] = 1e15 + 2.385e3 * (double)i;
        pool_y[c][i] =
            sin((double)i / 37.0) + 1e-3 * (double)i + 0.05 * testutil_normal();
    }
#undef CASE
}

static void matches_the_direct_formula(void **state)
{
    const double *xs[N_CASE], *ys[N_CASE];
    double v[N_CASE], u[N_CASE], max_error = 0.0;
    (void)state;

    make_cases();
    for (size_t c = 0; c < N_CASE; c++) {
        xs[c] = pool_x[c];
        ys[c] = pool_y[c];
    }
    run_oracle(xs, ys, pool_d, N_CASE, v, u);
    for (size_t c = 0; c < N_CASE; c++) {
        struct stats_assoc a = dcor_of(pool_x[c], pool_y[c], pool_d[c]);
        assert_int_equal(a.dcor_v.reason, REASON_NONE);
        assert_int_equal(a.dcor2_u.reason, REASON_NONE);
        max_error = fmax(max_error,
                         fmax(fabs(a.dcor_v.value - v[c]), fabs(a.dcor2_u.value - u[c])));
        print_message(
            "  %-12s d=%-5zu dcor_v %.15f (ref %.15f) dcor2_u %.15f (ref %.15f)\n",
            pool_name[c], pool_d[c], a.dcor_v.value, v[c], a.dcor2_u.value, u[c]);
        assert_rel(a.dcor_v.value, v[c], TOL);
        assert_rel(a.dcor2_u.value, u[c], TOL);
    }
    print_message("  largest |ours - direct|: %.3g\n", max_error);
}

/* Published values, unchanged by a shift and a positive scale of either series:
 * - Python dcor's docstrings (distance_correlation, u_distance_correlation_sqr): the
 *   rows of a = [[1..4], [5..8], [9..12], [13..16]] lie on a line, evenly spaced, and
 *   b = (1, 0, 0, 1) give dCor_V = 0.5266403…, dCor²_U = −0.5. By hand with
 *   x = (0, 1, 2, 3): the double-centred matrices give dCov² = 2/16, dVar²(x) = 13/16,
 *   dVar²(y) = 4/16, so dCor²_V = 1/sqrt(13) and dCor_V = 13^(−1/4).
 * - The distcorr gist (satra, 2014) and pingouin's distance_corr: x = (1, …, 5),
 *   y = (1, 2, 9, 4, 4) give 0.762676242417 (12 digits printed). */
#define N_PUBLISHED 2
static const double pub_x0[4] = {2.385, 11.925, 21.465, 31.005}; /* 2.385·(1 + 4i) */
static const double pub_y0[4] = {1, 0, 0, 1};
static const double pub_x1[5] = {1, 2, 3, 4, 5}, pub_y1[5] = {1, 2, 9, 4, 4};
static const double *const pub_x[N_PUBLISHED] = {pub_x0, pub_x1};
static const double *const pub_y[N_PUBLISHED] = {pub_y0, pub_y1};
static const size_t pub_d[N_PUBLISHED] = {4, 5};

static void published_values_are_reproduced(void **state)
{
    (void)state;
    struct stats_assoc a = dcor_of(pub_x0, pub_y0, 4);
    assert_rel(a.dcor_v.value, pow(13.0, -0.25), 1e-14);
    assert_rel(a.dcor2_u.value, -0.5, 1e-14);
    a = dcor_of(pub_x1, pub_y1, 5);
    assert_rel(a.dcor_v.value, 0.762676242417, 5e-13);
}

/* The oracle itself, on the same published values and on the hand-worked d = 3. */
static void the_oracle_reproduces_published_values(void **state)
{
    static const double x3[3] = {0, 1, 2}, y3[3] = {0, 1, 0};
    const double *xs[N_PUBLISHED + 1] = {pub_x[0], pub_x[1], x3};
    const double *ys[N_PUBLISHED + 1] = {pub_y[0], pub_y[1], y3};
    const size_t ds[N_PUBLISHED + 1] = {pub_d[0], pub_d[1], 3};
    double v[N_PUBLISHED + 1], u[N_PUBLISHED + 1];
    (void)state;

    run_oracle(xs, ys, ds, N_PUBLISHED + 1, v, u);
    assert_rel(v[0], pow(13.0, -0.25), 1e-14);
    assert_rel(u[0], -0.5, 1e-14);
    assert_rel(v[1], 0.762676242417, 5e-13);
    assert_rel(v[2], pow(10.0, -0.25), 1e-14);
    assert_true(isnan(u[2]));
}

/* y = a + b·x: every distance of y is |b| times that of x, so dCov = |b|·dVar(x) and
 * dVar(y) = b²·dVar(x): dCor = 1 exactly, V and U alike, for any sign of b. */
static void an_affine_y_has_dcor_one(void **state)
{
    double x[50], y[50];
    (void)state;
    for (size_t i = 0; i < 50; i++) {
        x[i] = 1e12 * (1.0 + testutil_uniform());
        y[i] = 3.5 - 0.25 * x[i];
    }
    struct stats_assoc a = dcor_of(x, y, 50);
    assert_rel(a.dcor_v.value, 1.0, 1e-12);
    assert_rel(a.dcor2_u.value, 1.0, 1e-12);
}

/* d = 3 worked by hand: x = (0, 1, 2), y = (0, 1, 0).
 * a = [[0,1,2],[1,0,1],[2,1,0]], row means (1, 2/3, 1), grand mean 8/9;
 * b = [[0,1,0],[1,0,1],[0,1,0]], row means (1/3, 2/3, 1/3), grand mean 4/9.
 * Double-centred A = a_ij − ā_i − ā_j + ā: A = [[−10/9, 2/9, 8/9], [2/9, −4/9, 2/9],
 * [8/9, 2/9, −10/9]]; likewise
 * B = [[−2/9, 4/9, −2/9], [4/9, −8/9, 4/9], [−2/9, 4/9, −2/9]].
 * dCov² = mean(A∘B) = (20 + 8 − 16 + 8 + 32 + 8 − 16 + 8 + 20)/81/9 = 72/729;
 * dVar²(x) = (100 + 4 + 64 + 4 + 16 + 4 + 64 + 4 + 100)/729 = 360/729;
 * dVar²(y) = (4 + 16 + 4 + 16 + 64 + 16 + 4 + 16 + 4)/729 = 144/729;
 * dCor² = 72 / sqrt(360·144) = 72 / (12·sqrt(360)) = 6/sqrt(360) = 1/sqrt(10). */
static void three_points_by_hand(void **state)
{
    static const double x[3] = {0, 1, 2}, y[3] = {0, 1, 0};
    (void)state;
    struct stats_assoc a = dcor_of(x, y, 3);
    assert_int_equal(a.dcor_v.reason, REASON_NONE);
    assert_rel(a.dcor_v.value, pow(10.0, -0.25), 1e-14);
    /* the U-statistic's centring divides by d − 3 */
    assert_int_equal(a.dcor2_u.reason, REASON_D_BELOW_MIN);
}

/* The order of the jobs, a shift and a positive scale of either series change
 * nothing, ties included (which side of a tie a pair falls on must not matter). */
static void invariant_under_order_shift_and_scale(void **state)
{
    double x[3000], y[3000], x2[3000], y2[3000];
    (void)state;
    for (size_t i = 0; i < 3000; i++) {
        x[i] = 60.0 * floor(1.0 + 5.0 * testutil_uniform());
        y[i] = floor(x[i] / 60.0 * (1.0 + 3.0 * testutil_uniform()));
    }
    for (size_t i = 0; i < 3000; i++) {
        size_t j = (i * 1217) % 3000; /* 1217 is prime to 3000: a permutation */
        x2[j] = 1e9 + 3e4 * x[i];
        y2[j] = -7.0 + 0.001 * y[i];
    }
    struct stats_assoc a = dcor_of(x, y, 3000), b = dcor_of(x2, y2, 3000);
    assert_rel(a.dcor_v.value, b.dcor_v.value, 1e-12);
    assert_rel(a.dcor2_u.value, b.dcor2_u.value, 1e-12);
}

/* x equal but for its smallest and largest value: a_ij = g_i + g_j for i ≠ j
 * (g = 0 in the middle, the distance to it at either end), which U-centring maps to
 * exactly zero, so dCor²_U is 0/0 (the direct formula returns rounding noise).
 * dCor_V stays defined; checked against the oracle. */
static void a_series_flat_but_its_extremes_has_no_dcor2_u(void **state)
{
    double x[12], y[12], v, u;
    const double *xs[1] = {x}, *ys[1] = {y};
    const size_t ds[1] = {12};
    struct stats_ws *ws = stats_ws_new(12);
    struct stats_assoc a;
    struct stats_assoc_opts opts = {METHOD_DCOR, 10, STATS_DEFAULT_SEED, true};
    (void)state;

    for (size_t i = 0; i < 12; i++) {
        x[i] = 120.0;
        y[i] = 2.385 * (double)(i * i % 7) + 0.1 * (double)i;
    }
    x[3] = 60.0;
    x[8] = 600.0;
    run_oracle(xs, ys, ds, 1, &v, &u);
    assert_int_equal(stats_assoc_compute(x, y, 12, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_NONE);
    assert_rel(a.dcor_v.value, v, TOL);
    assert_int_equal(a.dcor2_u.reason, REASON_CONSTANT_X);
    /* one outlier alone, and on the side of y */
    x[8] = 120.0;
    assert_int_equal(stats_assoc_compute(y, x, 12, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_NONE);
    assert_int_equal(a.dcor2_u.reason, REASON_CONSTANT_Y);
    stats_ws_free(ws);
}

static void undefined_cases_have_reasons(void **state)
{
    static const double x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const double c[12] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    struct stats_ws *ws = stats_ws_new(12);
    struct stats_assoc a;
    struct stats_assoc_opts opts = {METHOD_DCOR, 10, STATS_DEFAULT_SEED, true};
    (void)state;

    assert_int_equal(stats_assoc_compute(x, c, 12, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_CONSTANT_Y);
    assert_int_equal(a.dcor2_u.reason, REASON_CONSTANT_Y);
    assert_int_equal(stats_assoc_compute(c, x, 12, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_CONSTANT_X);
    assert_int_equal(a.dcor2_u.reason, REASON_CONSTANT_X);
    assert_int_equal(stats_assoc_compute(x, x, 9, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_D_BELOW_MIN);
    assert_int_equal(a.dcor2_u.reason, REASON_D_BELOW_MIN);
    assert_int_equal(a.pearson.reason, REASON_NOT_COMPUTED);
    /* d_min below 4: dcor_v is defined, dcor2_u is not */
    opts.d_min = 2;
    assert_int_equal(stats_assoc_compute(x, c + 2, 3, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_CONSTANT_Y);
    assert_int_equal(stats_assoc_compute(x, x + 4, 3, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_NONE);
    assert_rel(a.dcor_v.value, 1.0, 1e-15);
    assert_int_equal(a.dcor2_u.reason, REASON_D_BELOW_MIN);
    assert_int_equal(stats_assoc_compute(x, x + 4, 2, &opts, ws, &a, NULL), STATUS_OK);
    assert_rel(a.dcor_v.value, 1.0, 1e-15); /* any two distinct points */
    assert_int_equal(a.dcor2_u.reason, REASON_D_BELOW_MIN);
    stats_ws_free(ws);
}

/* Heavy ties at d = 10^6, against the exact value (dcor_exact_ref.py: rational sums
 * over the table of counts). Long sums of tied values round the same way every time,
 * so plain sums lose digits on such data, and near independence (dCor_V ~ 1e-3)
 * dCor_V magnifies an error of dCor² by 1 / (2·dCor_V).
 * The exact oracle first agrees with the direct formula on a small tied case. */
#define D_BIG 1000000

static void heavy_ties_at_scale_match_the_exact_value(void **state)
{
    const size_t small = 1500, d_big[2] = {D_BIG, D_BIG};
    double *x[2], *y[2], v[2], u[2], v_direct, u_direct;
    (void)state;

    for (int c = 0; c < 2; c++) {
        x[c] = malloc(D_BIG * sizeof(double));
        y[c] = malloc(D_BIG * sizeof(double));
        assert_true(x[c] != NULL && y[c] != NULL);
    }
    for (size_t i = 0; i < D_BIG; i++) {
        /* T^D: 80 % of the jobs in one multiple of Δ = 60 s; the load in 4 levels */
        double u1 = testutil_uniform(), u2 = testutil_uniform();
        y[0][i] = 60.0 * (u1 < 0.8 ? 3.0 : floor(1.0 + 39.0 * u2));
        x[0][i] = 1e15 + 2.385e3 * floor(4.0 * testutil_uniform());
        /* x one value but for two far outliers: its variance is a 1/d-sized difference */
        x[1][i] = 60.0;
        y[1][i] = 1e15 + 2.385e3 * floor(4.0 * testutil_uniform());
    }
    x[1][17] = 6.0e6;
    x[1][D_BIG / 2] = 1.5e5;

    const double *cx[1] = {x[0]}, *cy[1] = {y[0]};
    run_oracle_of(ORACLE, cx, cy, &small, 1, &v_direct, &u_direct);
    run_oracle_of(ORACLE_EXACT, cx, cy, &small, 1, v, u);
    assert_rel(v[0], v_direct, 1e-12);
    assert_rel(u[0], u_direct, 1e-12);

    run_oracle_of(ORACLE_EXACT, (const double *const *)x, (const double *const *)y, d_big,
                  2, v, u);
    for (int c = 0; c < 2; c++) {
        struct stats_assoc a = dcor_of(x[c], y[c], D_BIG);
        print_message(
            "  case %d: dcor_v %.17g (exact %.17g) dcor2_u %.17g (exact %.17g)\n", c,
            a.dcor_v.value, v[c], a.dcor2_u.value, u[c]);
        assert_rel(a.dcor_v.value, v[c], TOL);
        assert_rel(a.dcor2_u.value, u[c], TOL);
        free(x[c]);
        free(y[c]);
    }
}

int main(void)
{
    testutil_rng_seed(UINT64_C(0x9E3779B97F4A7C15));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_the_direct_formula),
        cmocka_unit_test(published_values_are_reproduced),
        cmocka_unit_test(the_oracle_reproduces_published_values),
        cmocka_unit_test(an_affine_y_has_dcor_one),
        cmocka_unit_test(three_points_by_hand),
        cmocka_unit_test(invariant_under_order_shift_and_scale),
        cmocka_unit_test(a_series_flat_but_its_extremes_has_no_dcor2_u),
        cmocka_unit_test(undefined_cases_have_reasons),
        cmocka_unit_test(heavy_ties_at_scale_match_the_exact_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
