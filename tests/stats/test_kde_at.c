/* test_kde_at.c: a KDE fit evaluated at any x (stats_kde_at): the same quantiles as
 * stats_kde_compute at its 16 points, F(y | x) against a direct sum of the mixture
 * METHOD.md §5 (b) writes, its range, and every status it gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <gsl/gsl_cdf.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* METHOD.md §5, "Accuracy": conditional quantiles in fitting space, units of h_y */
#define TOL_Q_EXACT  1e-8
#define TOL_Q_BINNED 5e-3
#define D_MAX        6000
#define NQ           STATS_KDE_POINTS

static double xs[D_MAX], ys[D_MAX];

/* Bytes and seconds as the jobs have them: log-normal, correlated in log space. */
static void make_jobs(size_t d, uint64_t seed, double rho)
{
    testutil_rng_seed(seed * UINT64_C(0x9E3779B97F4A7C15) + 1);
    for (size_t i = 0; i < d; i++) {
        const double z1 = testutil_normal(), z2 = testutil_normal();
        xs[i] = exp(27.3 + 1.1 * z1);
        ys[i] = exp(6.5 + 0.43 * (rho * z1 + sqrt(1.0 - rho * rho) * z2));
    }
}

struct fixture {
    struct stats_kde *fit;
    struct stats_kde_ws *ws;
};

static void fit_jobs(size_t d, enum stats_kde_space space, struct fixture *f)
{
    const struct stats_kde_opts opts = {space, KDE_KERNEL_PRODUCT, 10, true,
                                        KDE_BW_NORMAL};
    struct error err = {0};

    f->fit = calloc(1, sizeof *f->fit);
    f->ws = stats_kde_ws_new(d);
    assert_non_null(f->fit);
    assert_non_null(f->ws);
    if (stats_kde_compute(xs, ys, d, &opts, f->ws, f->fit, &err) != STATUS_OK)
        fail_msg("stats_kde_compute: %s", err.msg);
    assert_int_equal(f->fit->reason, REASON_NONE);
}

static void fixture_free(struct fixture *f)
{
    free(f->fit);
    stats_kde_ws_free(f->ws);
}

/* At the fit's own 16 points the quantiles are the fit's, in fitting space. */
static void grid_points_give_the_fits_quantiles(size_t d, double tol)
{
    struct fixture f;
    struct stats_kde_point p;
    struct error err = {0};

    make_jobs(d, 7, 0.8);
    fit_jobs(d, KDE_SPACE_AUTO, &f);
    assert_int_equal(f.fit->space, KDE_SPACE_LOG);
    for (size_t i = 0; i < NQ; i++) {
        if (stats_kde_at(xs, ys, d, f.fit, f.fit->x_grid[i], NAN, NAN, f.ws, &p, &err) !=
            STATUS_OK)
            fail_msg("stats_kde_at: %s", err.msg);
        assert_true(p.in_range);
        assert_true(isnan(p.cdf));
        const double hy = f.fit->h_y;
        assert_true(fabs(log(p.q05) - f.fit->q05_fit[i]) <= tol * hy);
        assert_true(fabs(log(p.q50) - f.fit->q50_fit[i]) <= tol * hy);
        assert_true(fabs(log(p.q95) - f.fit->q95_fit[i]) <= tol * hy);
    }
    fixture_free(&f);
}

static void exact_quantiles_at_the_16_points_equal_the_fits(void **state)
{
    (void)state;
    grid_points_give_the_fits_quantiles(400, TOL_Q_EXACT);
}

static void binned_quantiles_at_the_16_points_equal_the_fits(void **state)
{
    (void)state;
    grid_points_give_the_fits_quantiles(D_MAX, TOL_Q_BINNED);
}

/* F(y | x) = Σ w_k Φ((y − y_k)/h_y) / Σ w_k, w_k = φ((x − x_k)/h_x) in k's fitting
 * space, summed here directly (METHOD.md §5 (b), without the log-sum-exp or the
 * weights left out). */
static double direct_cdf(size_t d, const struct stats_kde *k, double x, double y)
{
    const bool lg = k->space == KDE_SPACE_LOG;
    double num = 0.0, den = 0.0;

    for (size_t j = 0; j < d; j++) {
        const double t = lg ? (log(x) - log(xs[j])) / k->h_x : (x - xs[j]) / k->h_x;
        const double u = lg ? (log(y) - log(ys[j])) / k->h_y : (y - ys[j]) / k->h_y;
        const double w = exp(-0.5 * t * t);
        num += w * gsl_cdf_ugaussian_P(u);
        den += w;
    }
    return num / den;
}

static void cdf_matches_a_direct_sum_and_inverts_the_quantiles(void **state)
{
    struct fixture f;
    struct stats_kde_point p;
    const size_t d = 300;
    (void)state;

    make_jobs(d, 11, 0.6);
    fit_jobs(d, KDE_SPACE_AUTO, &f);
    for (size_t j = 0; j < d; j += 7) {
        assert_int_equal(
            stats_kde_at(xs, ys, d, f.fit, xs[j], ys[j], NAN, f.ws, &p, NULL), STATUS_OK);
        assert_true(p.in_range);
        assert_true(fabs(p.cdf - direct_cdf(d, f.fit, xs[j], ys[j])) <= 1e-12);
        assert_true(isnan(p.pit));
        /* the randomized percentile: F a kernel's z sds away, in fitting space */
        struct stats_kde_point pz;
        assert_int_equal(
            stats_kde_at(xs, ys, d, f.fit, xs[j], ys[j], -0.6275, f.ws, &pz, NULL),
            STATUS_OK);
        const double moved = exp(log(ys[j]) - 0.6275 * f.fit->h_y);
        assert_true(fabs(pz.pit - direct_cdf(d, f.fit, xs[j], moved)) <= 1e-12);
        assert_true(pz.cdf == p.cdf);
        assert_true(p.q05 < p.q50 && p.q50 < p.q95);
        /* F at the quantiles is the probability */
        struct stats_kde_point p2;
        assert_int_equal(
            stats_kde_at(xs, ys, d, f.fit, xs[j], p.q50, NAN, f.ws, &p2, NULL),
            STATUS_OK);
        assert_true(fabs(p2.cdf - 0.5) <= 1e-9);
        assert_int_equal(
            stats_kde_at(xs, ys, d, f.fit, xs[j], p.q95, NAN, f.ws, &p2, NULL),
            STATUS_OK);
        assert_true(fabs(p2.cdf - 0.95) <= 1e-9);
    }
    fixture_free(&f);
}

static void linear_space_cdf_is_in_linear_units(void **state)
{
    struct fixture f;
    struct stats_kde_point p;
    const size_t d = 200;
    (void)state;

    make_jobs(d, 13, 0.5);
    fit_jobs(d, KDE_SPACE_LINEAR, &f);
    const double x = xs[3] * 1.013, y = ys[3] * 0.987;
    assert_int_equal(stats_kde_at(xs, ys, d, f.fit, x, y, NAN, f.ws, &p, NULL),
                     STATUS_OK);
    assert_int_equal(f.fit->space, KDE_SPACE_LINEAR);
    assert_true(fabs(p.cdf - direct_cdf(d, f.fit, x, y)) <= 1e-12);
    assert_rel(p.x_fit, x, 1e-15);
    fixture_free(&f);
}

static void x_outside_the_grid_span_is_out_of_range(void **state)
{
    struct fixture f;
    struct stats_kde_point p;
    const size_t d = 100;
    double lo = INFINITY, hi = 0.0;
    (void)state;

    make_jobs(d, 17, 0.5);
    fit_jobs(d, KDE_SPACE_AUTO, &f);
    for (size_t j = 0; j < d; j++) {
        lo = fmin(lo, xs[j]);
        hi = fmax(hi, xs[j]);
    }
    const double span_hi = exp(log(hi) + 3.0 * f.fit->h_x);
    assert_int_equal(
        stats_kde_at(xs, ys, d, f.fit, span_hi * 1.001, 650.0, NAN, f.ws, &p, NULL),
        STATUS_OK);
    assert_false(p.in_range);
    assert_true(isnan(p.q50) && isnan(p.cdf));
    assert_rel(p.x_hi, span_hi, 1e-12);
    assert_rel(p.x_lo, exp(log(lo) - 3.0 * f.fit->h_x), 1e-12);
    assert_int_equal(
        stats_kde_at(xs, ys, d, f.fit, span_hi * 0.999, 650.0, NAN, f.ws, &p, NULL),
        STATUS_OK);
    assert_true(p.in_range);
    /* x <= 0 has no log */
    assert_int_equal(stats_kde_at(xs, ys, d, f.fit, -2.385, 650.0, NAN, f.ws, &p, NULL),
                     STATUS_OK);
    assert_false(p.in_range);
    /* y <= 0 in log space is below every value */
    assert_int_equal(stats_kde_at(xs, ys, d, f.fit, xs[0], -1.0, NAN, f.ws, &p, NULL),
                     STATUS_OK);
    assert_true(p.in_range);
    assert_true(p.cdf == 0.0);
    fixture_free(&f);
}

static void an_unfitted_or_foreign_fit_is_invalid(void **state)
{
    struct fixture f;
    struct stats_kde_point p;
    struct error err = {0};
    const size_t d = 50;
    (void)state;

    make_jobs(d, 19, 0.5);
    fit_jobs(d, KDE_SPACE_AUTO, &f);
    assert_int_equal(stats_kde_at(xs, ys, d - 1, f.fit, xs[0], NAN, NAN, f.ws, &p, &err),
                     STATUS_INVALID);
    assert_int_equal(stats_kde_at(NULL, ys, d, f.fit, xs[0], NAN, NAN, f.ws, &p, NULL),
                     STATUS_INVALID);
    const double keep = xs[4];
    xs[4] = -1.0; /* not of a log-space fit */
    assert_int_equal(stats_kde_at(xs, ys, d, f.fit, xs[0], NAN, NAN, f.ws, &p, NULL),
                     STATUS_INVALID);
    xs[4] = keep;
    f.fit->reason = REASON_D_BELOW_MIN;
    err = (struct error){0};
    assert_int_equal(stats_kde_at(xs, ys, d, f.fit, xs[0], NAN, NAN, f.ws, &p, &err),
                     STATUS_INVALID);
    fixture_free(&f);
    /* a workspace too small */
    fit_jobs(d, KDE_SPACE_AUTO, &f);
    struct stats_kde_ws *small = stats_kde_ws_new(10);
    assert_non_null(small);
    assert_int_equal(stats_kde_at(xs, ys, d, f.fit, xs[0], NAN, NAN, small, &p, NULL),
                     STATUS_INVALID);
    stats_kde_ws_free(small);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_quantiles_at_the_16_points_equal_the_fits),
        cmocka_unit_test(binned_quantiles_at_the_16_points_equal_the_fits),
        cmocka_unit_test(cdf_matches_a_direct_sum_and_inverts_the_quantiles),
        cmocka_unit_test(linear_space_cdf_is_in_linear_units),
        cmocka_unit_test(x_outside_the_grid_span_is_out_of_range),
        cmocka_unit_test(an_unfitted_or_foreign_fit_is_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
