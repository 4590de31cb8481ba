/* test_sweep.c: the sweep's verdicts (METHOD.md §6) on curves worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"

#include <math.h>

#define DROP 0.1
#define RHO  (-0.7)
#define TOL  0.05

static const unsigned k20[20] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

static bool falling_of(const unsigned *k, const double *c, size_t n)
{
    struct stats_sweep_curve curve = {k, c, n};
    bool falling = true;
    assert_int_equal(stats_sweep_falling(&curve, DROP, RHO, &falling, NULL), STATUS_OK);
    return falling;
}

/* c(k) = 1 − (k − 1)/64: steadily down by 19/64 ≈ 0.30, rank correlation −1. The
 * steps are powers of two, so |c(k) − c(1)| is exact: 3/64 <= 0.05 < 4/64. */
static void a_steady_decline_is_falling_and_recommends_k_4(void **state)
{
    double c[20];
    unsigned k_rec = 99;
    (void)state;
    for (size_t i = 0; i < 20; i++)
        c[i] = 1.0 - (double)i / 64.0;
    assert_true(falling_of(k20, c, 20));
    struct stats_sweep_curve curve = {k20, c, 20};
    assert_int_equal(stats_sweep_recommended(&curve, 1, TOL, &k_rec, NULL), STATUS_OK);
    assert_int_equal(k_rec, 4);
}

/* Down by 0.05 only: a flat group, whatever the rank correlation. Every point within
 * the tolerance, so the recommendation is the coarsest k. */
static void a_small_drop_is_not_falling(void **state)
{
    double c[20];
    unsigned k_rec = 0;
    (void)state;
    for (size_t i = 0; i < 20; i++)
        c[i] = 0.5 - 0.05 * (double)i / 19.0;
    assert_false(falling_of(k20, c, 20));
    struct stats_sweep_curve curve = {k20, c, 20};
    assert_int_equal(stats_sweep_recommended(&curve, 1, TOL, &k_rec, NULL), STATUS_OK);
    assert_int_equal(k_rec, 20);
}

/* k = 1..5, c = 0.8 0.9 0.2 0.95 0.6: c(5) < c(1) − 0.1 but ranks (3 4 1 5 2) give
 * Σd² = 22, ρ = 1 − 6·22/(5·24) = −0.1: a zigzag, not a fall. */
static void a_zigzag_that_ends_low_is_not_falling(void **state)
{
    static const double c[5] = {0.8, 0.9, 0.2, 0.95, 0.6};
    (void)state;
    assert_false(falling_of(k20, c, 5));
}

/* c ranks (5 4 2 1 3): Σd² = 34, ρ = 1 − 6·34/120 = −0.7 exactly: at the threshold. */
static void a_rank_correlation_exactly_at_the_threshold_counts(void **state)
{
    static const double c[5] = {0.9, 0.8, 0.6, 0.5, 0.7};
    (void)state;
    assert_true(falling_of(k20, c, 5));
}

/* Undefined points are left out of the rank correlation; undefined ends are not a
 * verdict; an undefined point ends the recommendation. */
static void undefined_points(void **state)
{
    double c[6] = {0.9, NAN, 0.7, 0.6, NAN, 0.4};
    unsigned k_rec = 99;
    (void)state;
    assert_true(falling_of(k20, c, 6));
    struct stats_sweep_curve curve = {k20, c, 6};
    assert_int_equal(stats_sweep_recommended(&curve, 1, TOL, &k_rec, NULL), STATUS_OK);
    assert_int_equal(k_rec, 1);
    c[0] = NAN;
    assert_false(falling_of(k20, c, 6));
    assert_int_equal(stats_sweep_recommended(&curve, 1, TOL, &k_rec, NULL), STATUS_OK);
    assert_int_equal(k_rec, 0);
    c[0] = 0.9;
    c[5] = NAN;
    assert_false(falling_of(k20, c, 6));
    /* Two defined points only: no rank correlation worth the name. */
    static const double two[3] = {0.9, NAN, 0.5};
    assert_false(falling_of(k20, two, 3));
}

/* The recommendation holds for every curve: the one that moves first decides. */
static void the_first_curve_to_move_decides(void **state)
{
    static const double flat[5] = {0.30, 0.30, 0.31, 0.29, 0.30};
    static const double dips[5] = {0.50, 0.48, 0.44, 0.50, 0.50}; /* −0.06 at k = 3 */
    static const unsigned k[5] = {1, 2, 4, 8, 16};
    struct stats_sweep_curve curves[2] = {{k, flat, 5}, {k, dips, 5}};
    unsigned k_rec = 0;
    (void)state;
    assert_int_equal(stats_sweep_recommended(curves, 2, TOL, &k_rec, NULL), STATUS_OK);
    assert_int_equal(k_rec, 2);
    assert_int_equal(stats_sweep_recommended(curves, 1, TOL, &k_rec, NULL), STATUS_OK);
    assert_int_equal(k_rec, 16);
}

static void malformed_curves_are_refused(void **state)
{
    static const unsigned from2[3] = {2, 3, 4};
    static const unsigned down[3] = {1, 3, 2};
    static const double c[3] = {0.9, 0.5, 0.1};
    struct stats_sweep_curve a = {from2, c, 3}, b = {down, c, 3}, ok = {k20, c, 3};
    struct stats_sweep_curve pair[2] = {{k20, c, 3}, {k20, c, 2}};
    struct error err = {0};
    bool falling;
    unsigned k_rec;
    (void)state;
    assert_int_equal(stats_sweep_falling(&a, DROP, RHO, &falling, &err), STATUS_INVALID);
    assert_int_equal(stats_sweep_falling(&b, DROP, RHO, &falling, NULL), STATUS_INVALID);
    assert_int_equal(stats_sweep_falling(&ok, DROP, RHO, NULL, NULL), STATUS_INVALID);
    assert_int_equal(stats_sweep_recommended(pair, 2, TOL, &k_rec, NULL), STATUS_INVALID);
    assert_int_equal(stats_sweep_recommended(&b, 1, TOL, &k_rec, NULL), STATUS_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_steady_decline_is_falling_and_recommends_k_4),
        cmocka_unit_test(a_small_drop_is_not_falling),
        cmocka_unit_test(a_zigzag_that_ends_low_is_not_falling),
        cmocka_unit_test(a_rank_correlation_exactly_at_the_threshold_counts),
        cmocka_unit_test(undefined_points),
        cmocka_unit_test(the_first_curve_to_move_decides),
        cmocka_unit_test(malformed_curves_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
