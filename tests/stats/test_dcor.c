/* test_dcor.c: distance correlation (METHOD.md §5) in O(d log d) against the O(d²)
 * definitions (tests/oracles/dcor_ref.py) and values worked by hand. */
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

#define ORACLE "tests/oracles/dcor_ref.py"
#define TOL    1e-9 /* METHOD.md §5: dCor against the direct formula, absolute */
#define D_MAX  2000
#define N_CASE 8

static double pool_x[N_CASE][D_MAX], pool_y[N_CASE][D_MAX];
static size_t pool_d[N_CASE];
static const char *pool_name[N_CASE];
static double max_error;

/* xorshift64*: a fixed, portable stream of test data. */
static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((double)((rng_state * UINT64_C(2685821657736338717)) >> 11) + 0.5) *
           0x1.0p-53;
}

static double normal(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

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

/* Shapes with unround values, ties (T^D is a multiple of Δ), the smallest d of the
 * U-statistic and the cancellation case of METHOD.md §5. */
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
        pool_x[c][i] = exp(27.0 + 1.1 * normal());
        pool_y[c][i] = 600.0 + 97.3 * normal();
    }
    c++;
    CASE("linear", 1500);
    for (size_t i = 0; i < 1500; i++) {
        pool_x[c][i] = 1.3e10 + 7.9e12 * uniform();
        pool_y[c][i] = 2.385e-10 * pool_x[c][i] + 41.7 * normal();
    }
    c++;
    CASE("monotone", 1000);
    for (size_t i = 0; i < 1000; i++) {
        pool_x[c][i] = 6.0 * uniform();
        pool_y[c][i] = exp(1.3 * pool_x[c][i]) * (1.0 + 0.1 * normal());
    }
    c++;
    CASE("parabola", 700);
    for (size_t i = 0; i < 700; i++) {
        pool_x[c][i] = 2.0 * uniform() - 1.0;
        pool_y[c][i] = pool_x[c][i] * pool_x[c][i] + 0.05 * normal();
    }
    c++;
    CASE("ties", 1200); /* t_d = m·60, load rounded to whole MB */
    for (size_t i = 0; i < 1200; i++) {
        double m = floor(1.0 + 8.0 * uniform());
        pool_y[c][i] = 60.0 * m;
        pool_x[c][i] = 1e6 * floor(40.0 * m + 30.0 * uniform());
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
        pool_y[c][i] = sin((double)i / 37.0) + 1e-3 * (double)i + 0.05 * normal();
    }
#undef CASE
}

static void matches_the_direct_formula(void **state)
{
    const double *xs[N_CASE], *ys[N_CASE];
    int rc;
    (void)state;

    make_cases();
    for (size_t c = 0; c < N_CASE; c++) {
        xs[c] = pool_x[c];
        ys[c] = pool_y[c];
    }
    char *out = testutil_run_oracle(ORACLE, xs, ys, pool_d, N_CASE, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    char *save = NULL, *line = strtok_r(out, "\n", &save);
    for (size_t c = 0; c < N_CASE; c++, line = strtok_r(NULL, "\n", &save)) {
        double v, u;
        assert_non_null(line);
        assert_int_equal(sscanf(line, "dcor_v %lf dcor2_u %lf", &v, &u), 2);
        struct stats_assoc a = dcor_of(pool_x[c], pool_y[c], pool_d[c]);
        assert_int_equal(a.dcor_v.reason, REASON_NONE);
        assert_int_equal(a.dcor2_u.reason, REASON_NONE);
        max_error =
            fmax(max_error, fmax(fabs(a.dcor_v.value - v), fabs(a.dcor2_u.value - u)));
        print_message(
            "  %-12s d=%-5zu dcor_v %.15f (ref %.15f) dcor2_u %.15f (ref %.15f)\n",
            pool_name[c], pool_d[c], a.dcor_v.value, v, a.dcor2_u.value, u);
        assert_rel(a.dcor_v.value, v, TOL);
        assert_rel(a.dcor2_u.value, u, TOL);
    }
    free(out);
    print_message("  largest |ours - direct|: %.3g\n", max_error);
}

/* y = a + b·x: every distance of y is |b| times that of x, so dCov = |b|·dVar(x) and
 * dVar(y) = b²·dVar(x): dCor = 1 exactly, V and U alike, for any sign of b. */
static void an_affine_y_has_dcor_one(void **state)
{
    double x[50], y[50];
    (void)state;
    for (size_t i = 0; i < 50; i++) {
        x[i] = 1e12 * (1.0 + uniform());
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
    assert_rel(a.dcor_v.value, sqrt(1.0 / sqrt(10.0)), 1e-14);
    /* the U-statistic's centring divides by d − 3 */
    assert_int_equal(a.dcor2_u.reason, REASON_D_BELOW_MIN);
}

/* The order of the jobs, a shift and a positive scale of either series change
 * nothing. */
static void invariant_under_order_shift_and_scale(void **state)
{
    double x[300], y[300], x2[300], y2[300];
    (void)state;
    for (size_t i = 0; i < 300; i++) {
        x[i] = normal();
        y[i] = x[i] * x[i] + normal();
    }
    for (size_t i = 0; i < 300; i++) {
        size_t j = 299 - i;
        x2[j] = 1e9 + 3e4 * x[i];
        y2[j] = -7.0 + 0.001 * y[i];
    }
    struct stats_assoc a = dcor_of(x, y, 300), b = dcor_of(x2, y2, 300);
    assert_rel(a.dcor_v.value, b.dcor_v.value, 1e-12);
    assert_rel(a.dcor2_u.value, b.dcor2_u.value, 1e-12);
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
    assert_int_equal(stats_assoc_compute(x, x, 9, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.dcor_v.reason, REASON_D_BELOW_MIN);
    assert_int_equal(a.pearson.reason, REASON_NOT_COMPUTED);
    stats_ws_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_the_direct_formula),
        cmocka_unit_test(an_affine_y_has_dcor_one),
        cmocka_unit_test(three_points_by_hand),
        cmocka_unit_test(invariant_under_order_shift_and_scale),
        cmocka_unit_test(undefined_cases_have_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
