/* test_kde.c: the KDE credible bands (METHOD.md §5 `kde`) against statsmodels and
 * scipy (tests/oracles/kde_ref.py), closed forms of the bivariate normal, and every
 * status and reason stats_kde_compute gives. */
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
#include <unistd.h>

#define ORACLE "tests/oracles/kde_ref.py"
/* METHOD.md §5, "Accuracy": conditional quantiles in the fitting space, absolute, in
 * units of h_y; the density grid in units of its maximum */
#define TOL_Q_EXACT  1e-8
#define TOL_Q_BINNED 5e-3
#define TOL_DENSITY  1e-3
#define D_MAX        20000
#define NQ           STATS_KDE_POINTS
#define NG           STATS_KDE_GRID

static double xs[D_MAX], ys[D_MAX];

static void seed(uint64_t s)
{
    testutil_rng_seed(s * UINT64_C(0x9E3779B97F4A7C15) + 1);
}

/* (x, y) bivariate normal with correlation rho, in linear units. */
static void make_binormal(size_t d, double mx, double sx, double my, double sy,
                          double rho)
{
    for (size_t i = 0; i < d; i++) {
        const double z1 = testutil_normal(), z2 = testutil_normal();
        xs[i] = mx + sx * z1;
        ys[i] = my + sy * (rho * z1 + sqrt(1.0 - rho * rho) * z2);
    }
}

/* Bytes and seconds as the jobs have them: log-normal, correlated in log space. */
static void make_lognormal(size_t d, double rho)
{
    make_binormal(d, 27.3, 1.1, 6.5, 0.43, rho);
    for (size_t i = 0; i < d; i++) {
        xs[i] = exp(xs[i]);
        ys[i] = exp(ys[i]);
    }
}

static struct stats_kde *kde_new(void)
{
    struct stats_kde *k = calloc(1, sizeof *k);
    assert_non_null(k);
    return k;
}

static void fit(size_t d, const struct stats_kde_opts *opts, struct stats_kde *out)
{
    struct stats_kde_ws *ws = stats_kde_ws_new(d);
    struct error err = {0};

    assert_non_null(ws);
    if (stats_kde_compute(xs, ys, d, opts, ws, out, &err) != STATUS_OK)
        fail_msg("stats_kde_compute: %s", err.msg);
    assert_int_equal(out->reason, REASON_NONE);
    stats_kde_ws_free(ws);
}

/* ---- the oracle ----------------------------------------------------------------- */

struct ref {
    char space[16];
    double hx, hy, x_grid[NQ], q05[NQ], q50[NQ], q95[NQ], marg_q05, marg_q95;
    double grid[4], mean, sd, width_ratio, paper_width_ratio;
    double *density; /* NG·NG, or NULL */
};

/* Runs kde_ref.py with args on xs, ys [0, d) into *r. */
static void run_oracle(size_t d, const char *args, struct ref *r)
{
    char path[] = "/tmp/iocontend-kde-XXXXXX", cmd[2048], script[1024];
    const char *found = testutil_repo_file(ORACLE);
    int fd = mkstemp(path), rc;
    FILE *fp;
    char *text;

    assert_non_null(found);
    snprintf(script, sizeof script, "%s", found);
    assert_true(fd >= 0);
    fp = fdopen(fd, "w");
    assert_non_null(fp);
    for (size_t i = 0; i < d; i++)
        fprintf(fp, "%.17g %.17g\n", xs[i], ys[i]);
    assert_int_equal(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s '%s'", testutil_oracle_python(), script, args,
             path);
    text = testutil_run(cmd, &rc);
    unlink(path);
    if (text == NULL || rc != 0)
        fail_msg("oracle failed (%d): %s", rc, cmd);
    memset(r, 0, sizeof *r);
    assert_int_equal(sscanf(text, "space %15s", r->space), 1);
    assert_true(testutil_values(text, "hx", &r->hx, 1));
    assert_true(testutil_values(text, "hy", &r->hy, 1));
    assert_true(testutil_values(text, "x_grid", r->x_grid, NQ));
    assert_true(testutil_values(text, "q05", r->q05, NQ));
    assert_true(testutil_values(text, "q50", r->q50, NQ));
    assert_true(testutil_values(text, "q95", r->q95, NQ));
    assert_true(testutil_values(text, "marg_q05", &r->marg_q05, 1));
    assert_true(testutil_values(text, "marg_q95", &r->marg_q95, 1));
    assert_true(testutil_values(text, "grid", r->grid, 4));
    assert_true(testutil_values(text, "mean", &r->mean, 1));
    assert_true(testutil_values(text, "sd", &r->sd, 1));
    assert_true(testutil_values(text, "width_ratio", &r->width_ratio, 1));
    assert_true(testutil_values(text, "paper_width_ratio", &r->paper_width_ratio, 1));
    r->density = malloc((size_t)NG * NG * sizeof *r->density);
    assert_non_null(r->density);
    if (!testutil_values(text, "density", r->density, (size_t)NG * NG)) {
        free(r->density);
        r->density = NULL;
    }
    free(text);
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* Compares every output with the oracle's; tol_q in units of h_y. */
static void compare(const char *name, const struct stats_kde *k, struct ref *r,
                    double tol_q)
{
    const double hy = r->hy;
    double eq = 0.0, em, ed = NAN;

    assert_string_equal(stats_kde_space_name(k->space), r->space);
    assert_rel(k->h_x, r->hx, 1e-12 * r->hx);
    assert_rel(k->h_y, r->hy, 1e-12 * r->hy);
    assert_rel(k->mean, r->mean, 1e-12 * fabs(r->mean));
    assert_rel(k->sd, r->sd, 1e-11 * r->sd);
    assert_rel(k->grid_x0, r->grid[0], 1e-12 * fabs(r->grid[0]) + 1e-12 * r->hx);
    /* the oracle's step is a difference of two grid points: rounded to their ulp */
    assert_rel(k->grid_dx, r->grid[1], 1e-10 * r->grid[1] + 1e-15 * fabs(r->grid[0]));
    assert_rel(k->grid_y0, r->grid[2], 1e-12 * fabs(r->grid[2]) + 1e-12 * r->hy);
    assert_rel(k->grid_dy, r->grid[3], 1e-10 * r->grid[3] + 1e-15 * fabs(r->grid[2]));
    for (size_t i = 0; i < NQ; i++)
        assert_rel(k->x_grid_fit[i], r->x_grid[i], 1e-13 * fabs(r->x_grid[i]) + 1e-300);
    eq = fmax(eq, max_abs_diff(k->q05_fit, r->q05, NQ));
    eq = fmax(eq, max_abs_diff(k->q50_fit, r->q50, NQ));
    eq = fmax(eq, max_abs_diff(k->q95_fit, r->q95, NQ));
    em = fmax(fabs(k->marg_q05_fit - r->marg_q05), fabs(k->marg_q95_fit - r->marg_q95));
    if (r->density != NULL) {
        double top = 0.0;
        for (size_t i = 0; i < (size_t)NG * NG; i++)
            top = fmax(top, r->density[i]);
        ed = max_abs_diff(&k->density[0][0], r->density, (size_t)NG * NG) / top;
    }
    print_message("%s: d %zu, max |q - ref| = %.3g h_y, marginal %.3g h_y, density "
                  "%.3g of max, width_ratio %.3g\n",
                  name, k->d, eq / hy, em / hy, ed,
                  fabs(k->width_ratio - r->width_ratio));
    for (size_t i = 0; i < NQ; i++) {
        assert_rel(k->q05_fit[i], r->q05[i], tol_q * hy);
        assert_rel(k->q50_fit[i], r->q50[i], tol_q * hy);
        assert_rel(k->q95_fit[i], r->q95[i], tol_q * hy);
    }
    assert_rel(k->marg_q05_fit, r->marg_q05, tol_q * hy);
    assert_rel(k->marg_q95_fit, r->marg_q95, tol_q * hy);
    if (r->density != NULL)
        assert_true(ed <= TOL_DENSITY);
    /* widths of bands that each move by tol_q·h_y at most */
    assert_rel(k->width_ratio, r->width_ratio, 40.0 * tol_q);
    assert_rel(k->paper_width_ratio, r->paper_width_ratio,
               40.0 * tol_q * fabs(r->paper_width_ratio) + 1e-12);
    free(r->density);
    r->density = NULL;
}

/* ---- against the references ----------------------------------------------------- */

static void lognormal_jobs_match_statsmodels_in_log_space(void **state)
{
    struct stats_kde *k = kde_new();
    struct ref r;
    (void)state;

    seed(11);
    make_lognormal(1000, 0.62);
    fit(1000, NULL, k);
    assert_int_equal(k->space, KDE_SPACE_LOG);
    assert_false(k->binned);
    run_oracle(1000, "", &r);
    compare("lognormal, log", k, &r, TOL_Q_EXACT);
    free(k);
}

/* T^D is a multiple of Δ = 60 s (ties); ν-like x crosses zero, so auto is linear. */
static void tied_seconds_match_statsmodels_in_linear_space(void **state)
{
    struct stats_kde *k = kde_new();
    struct ref r;
    (void)state;

    seed(12);
    for (size_t i = 0; i < 700; i++) {
        const double z = testutil_normal();
        xs[i] = 2.385e12 * (z + 0.4 * testutil_normal()) + 3.1e11;
        ys[i] = 60.0 * floor(exp(3.1 + 0.35 * z + 0.3 * testutil_normal()));
    }
    fit(700, NULL, k);
    assert_int_equal(k->space, KDE_SPACE_LINEAR);
    run_oracle(700, "--no-density", &r);
    compare("ties, linear (statsmodels)", k, &r, TOL_Q_EXACT);
    run_oracle(700, "--closed", &r);
    compare("ties, linear (direct sums)", k, &r, TOL_Q_EXACT);
    free(k);
}

/* Bytes near 1e15 that differ in the 12th digit, fitted as they are: nothing may
 * cancel (METHOD.md §5's cancellation data, x = 1e15 + 2.385e3·i). */
static void bytes_near_1e15_match_the_reference_in_linear_space(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LINEAR, KDE_KERNEL_PRODUCT, 10, false,
                                  KDE_BW_NORMAL};
    struct ref r;
    (void)state;

    seed(30);
    for (size_t i = 0; i < 500; i++) {
        xs[i] = 1e15 + 2.385e3 * (double)((i * 7919) % 500);
        ys[i] = 310.0 + 0.04 * (xs[i] - 1e15) + 17.0 * testutil_normal();
    }
    fit(500, &opts, k);
    run_oracle(500, "--space linear --no-density", &r);
    compare("x near 1e15, linear (statsmodels)", k, &r, TOL_Q_EXACT);
    run_oracle(500, "--space linear --closed", &r);
    compare("x near 1e15, linear (direct sums)", k, &r, TOL_Q_EXACT);
    free(k);
}

/* d = d_min = 10: few points, no averaging of the binning error. */
static void ten_jobs_match_the_reference(void **state)
{
    struct stats_kde *k = kde_new();
    struct ref r;
    (void)state;

    seed(31);
    make_lognormal(10, 0.7);
    fit(10, NULL, k);
    run_oracle(10, "", &r);
    compare("d = 10, log (statsmodels)", k, &r, TOL_Q_EXACT);
    free(k);
}

/* Two clusters with a gap wider than both bandwidths; space=linear asked for
 * positive data. The density is checked by the direct sums (kde_ref.py --closed). */
static void two_clusters_match_the_reference_in_asked_linear_space(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LINEAR, KDE_KERNEL_PRODUCT, 10, false,
                                  KDE_BW_NORMAL};
    struct ref r;
    (void)state;

    seed(13);
    for (size_t i = 0; i < 1200; i++) {
        const bool big = testutil_uniform() < 0.35;
        xs[i] = (big ? 8.7e3 : 2.1e3) + (big ? 610.0 : 240.0) * testutil_normal();
        ys[i] = (big ? 1.9e3 : 4.4e2) + (big ? 170.0 : 61.0) * testutil_normal() +
                0.01 * xs[i];
        xs[i] = fabs(xs[i]) + 1.0;
        ys[i] = fabs(ys[i]) + 1.0;
    }
    fit(1200, &opts, k);
    assert_int_equal(k->space, KDE_SPACE_LINEAR);
    run_oracle(1200, "--space linear --no-density", &r);
    compare("clusters, linear (statsmodels)", k, &r, TOL_Q_EXACT);
    run_oracle(1200, "--space linear --closed", &r);
    compare("clusters, linear (direct sums)", k, &r, TOL_Q_EXACT);
    free(k);
}

/* Above STATS_KDE_EXACT_MAX the quantiles come from 512 bins. */
static void binned_quantiles_are_within_5e_3_hy(void **state)
{
    struct stats_kde *k = kde_new();
    struct ref r;
    (void)state;

    seed(14);
    make_lognormal(8000, 0.55);
    for (size_t i = 0; i < 8000; i += 9)
        ys[i] *= 3.7; /* a second, slower mode */
    fit(8000, NULL, k);
    assert_true(k->binned);
    run_oracle(8000, "--closed", &r);
    compare("binned, log", k, &r, TOL_Q_BINNED);
    free(k);
}

static void full_kernel_matches_scipy_gaussian_kde(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_AUTO, KDE_KERNEL_FULL, 10, false,
                                  KDE_BW_NORMAL};
    struct ref r;
    (void)state;

    seed(15);
    make_lognormal(400, 0.71);
    fit(400, &opts, k);
    assert_int_equal(k->kernel, KDE_KERNEL_FULL);
    run_oracle(400, "--kernel full", &r);
    compare("full kernel, log", k, &r, TOL_Q_EXACT);
    free(k);
}

static void full_kernel_binned_is_within_5e_3_hy(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LINEAR, KDE_KERNEL_FULL, 10, false,
                                  KDE_BW_NORMAL};
    struct ref r;
    (void)state;

    seed(16);
    make_binormal(6000, 4.1e3, 830.0, 950.0, 120.0, -0.45);
    fit(6000, &opts, k);
    assert_true(k->binned);
    run_oracle(6000, "--kernel full --space linear --closed --no-density", &r);
    compare("full kernel, binned, linear", k, &r, TOL_Q_BINNED);
    free(k);
}

/* ---- closed forms --------------------------------------------------------------- */

/* Sample moments of xs, ys [0, d): mean, sd (d − 1), r. */
static void moments(size_t d, double *mx, double *sx, double *my, double *sy, double *r)
{
    double a = 0.0, b = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0;

    for (size_t i = 0; i < d; i++) {
        a += xs[i];
        b += ys[i];
    }
    a /= (double)d;
    b /= (double)d;
    for (size_t i = 0; i < d; i++) {
        sxx += (xs[i] - a) * (xs[i] - a);
        syy += (ys[i] - b) * (ys[i] - b);
        sxy += (xs[i] - a) * (ys[i] - b);
    }
    *mx = a;
    *my = b;
    *sx = sqrt(sxx / (double)(d - 1));
    *sy = sqrt(syy / (double)(d - 1));
    *r = sxy / sqrt(sxx * syy);
}

/* A bivariate normal smoothed by the product kernel diag(f·s_x², f·s_y²),
 * f = d^(−1/3), is normal with covariance Σ + diag(f·s_x², f·s_y²): y given x is
 * N(ȳ + r·s_y·s_x/(s_x²(1 + f))·(x − x̄), s_y²(1 + f) − r²s_y²/(1 + f)). The KDE
 * follows it up to sampling noise of about 0.03·s_y at d = 4000. */
static void binormal_median_follows_the_smoothed_regression_line(void **state)
{
    struct stats_kde *k = kde_new();
    const size_t d = 4000;
    double mx, sx, my, sy, r;
    (void)state;

    seed(17);
    make_binormal(d, 51.3, 7.9, -2.385, 1.27, 0.8);
    fit(d, NULL, k);
    assert_int_equal(k->space, KDE_SPACE_LINEAR);
    moments(d, &mx, &sx, &my, &sy, &r);
    const double f = pow((double)d, -1.0 / 3.0);
    const double slope = r * sy / (sx * (1.0 + f));
    const double sc = sqrt(sy * sy * (1.0 + f) - r * r * sy * sy / (1.0 + f));
    for (size_t i = 0; i < NQ; i++) {
        const double line = my + slope * (k->x_grid[i] - mx);
        assert_rel(k->q50[i], line, 0.1 * sy);
        assert_rel(k->q95[i] - k->q05[i], 2.0 * 1.6448536269514722 * sc, 0.1 * sy);
    }
    free(k);
}

/* kernel=full: the smoothed joint is normal with covariance (1 + f)·Σ̂, so y given x
 * has the data's own regression slope. */
static void full_kernel_median_follows_the_regression_line(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LINEAR, KDE_KERNEL_FULL, 10, false,
                                  KDE_BW_NORMAL};
    const size_t d = 3000;
    double mx, sx, my, sy, r;
    (void)state;

    seed(18);
    make_binormal(d, 2.385e9, 4.1e8, 733.0, 91.0, 0.66);
    fit(d, &opts, k);
    moments(d, &mx, &sx, &my, &sy, &r);
    assert_rel(k->beta, r * sy / sx, 1e-9 * fabs(r * sy / sx));
    assert_rel(k->sigma_c, sqrt(pow((double)d, -1.0 / 3.0) * (1.0 - r * r)) * sy,
               1e-9 * sy);
    for (size_t i = 0; i < NQ; i++)
        assert_rel(k->q50[i], my + r * sy / sx * (k->x_grid[i] - mx), 0.1 * sy);
    free(k);
}

/* The widths of the smoothed normal (above): width_ratio → sqrt(1 − r²/(1 + f)²),
 * and sqrt(1 − ρ²) as d grows; paper_width_ratio → the same times sqrt(1 + f)
 * (1.645 for Φ⁻¹(0.95)). */
static void binormal_width_ratio_is_sqrt_one_minus_rho_squared(void **state)
{
    struct stats_kde *k = kde_new();
    const size_t d = D_MAX;
    double mx, sx, my, sy, r;
    (void)state;

    seed(19);
    make_binormal(d, 0.0, 3.3, 10.0, 2.1, 0.6);
    fit(d, NULL, k);
    assert_true(k->binned);
    moments(d, &mx, &sx, &my, &sy, &r);
    const double f = pow((double)d, -1.0 / 3.0);
    const double want = sqrt(1.0 - r * r / ((1.0 + f) * (1.0 + f)));
    print_message("binormal rho 0.6: width_ratio %.4f, smoothed %.4f, sqrt(1-rho2) "
                  "%.4f, paper %.4f\n",
                  k->width_ratio, want, sqrt(1.0 - 0.36), k->paper_width_ratio);
    assert_rel(k->width_ratio, want, 0.02);
    assert_rel(k->width_ratio, sqrt(1.0 - 0.36), 0.05);
    assert_rel(k->paper_width_ratio, want * sqrt(1.0 + f) * 1.6448536 / 1.645, 0.02);
    free(k);
}

static void independent_data_have_width_ratio_one(void **state)
{
    struct stats_kde *k = kde_new();
    (void)state;

    seed(20);
    make_lognormal(D_MAX, 0.0);
    fit(D_MAX, NULL, k);
    print_message("independent: width_ratio %.4f\n", k->width_ratio);
    assert_rel(k->width_ratio, 1.0, 0.03);
    free(k);
}

/* The grid spans every point ± 3h: the density sums to 1 but for the kernel tails
 * beyond 3h, and peaks near the mode of a normal sample. */
static void density_grid_integrates_to_one(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LINEAR, KDE_KERNEL_PRODUCT, 10, false,
                                  KDE_BW_NORMAL};
    double mass = 0.0;
    (void)state;

    seed(21);
    make_binormal(3000, 5.5, 0.8, 12.7, 2.2, -0.3);
    fit(3000, &opts, k);
    double top = 0.0, low = 0.0;
    for (size_t i = 0; i < NG; i++) {
        for (size_t j = 0; j < NG; j++) {
            top = fmax(top, k->density[i][j]);
            low = fmin(low, k->density[i][j]);
            mass += k->density[i][j];
        }
    }
    print_message("density: max %.4g, min %.3g\n", top, low);
    assert_true(low > -1e-13 * top); /* FFT rounding only */
    /* the normal's peak, smoothed: 1/(2π·sx·sy·sqrt(1 − ρ²)·(1 + f)) */
    const double f = pow(3000.0, -1.0 / 3.0);
    assert_rel(top, 1.0 / (2.0 * M_PI * 0.8 * 2.2 * sqrt(1.0 - 0.09) * (1.0 + f)),
               0.1 * top);
    mass *= k->grid_dx * k->grid_dy;
    assert_rel(mass, 1.0, 2e-3);
    free(k);
}

/* Log space: the quantiles come back with exp; (c) is on the raw y. */
static void log_space_quantiles_come_back_in_linear_units(void **state)
{
    struct stats_kde *k = kde_new();
    double mean = 0.0, ss = 0.0;
    (void)state;

    seed(22);
    make_lognormal(900, 0.4);
    fit(900, NULL, k);
    assert_int_equal(k->space, KDE_SPACE_LOG);
    for (size_t i = 0; i < 900; i++)
        mean += ys[i];
    mean /= 900.0;
    for (size_t i = 0; i < 900; i++)
        ss += (ys[i] - mean) * (ys[i] - mean);
    assert_rel(k->mean, mean, 1e-12 * mean);
    assert_rel(k->sd, sqrt(ss / 899.0), 1e-12 * mean);
    assert_rel(k->band_low, mean - 1.645 * k->sd, 1e-12 * mean);
    assert_rel(k->band_high, mean + 1.645 * k->sd, 1e-12 * mean);
    for (size_t i = 0; i < NQ; i++) {
        assert_rel(k->x_grid[i], exp(k->x_grid_fit[i]), 1e-15 * k->x_grid[i]);
        assert_rel(k->q05[i], exp(k->q05_fit[i]), 1e-15 * k->q05[i]);
        assert_rel(k->q95[i], exp(k->q95_fit[i]), 1e-15 * k->q95[i]);
        assert_true(k->q05[i] < k->q50[i] && k->q50[i] < k->q95[i]);
        if (i > 0)
            assert_true(k->x_grid[i] >= k->x_grid[i - 1]);
    }
    assert_rel(k->marg_q05, exp(k->marg_q05_fit), 1e-15 * k->marg_q05);
    free(k);
}

/* The workspace carries nothing from one call to the next. */
static void a_reused_workspace_gives_the_same_result(void **state)
{
    struct stats_kde *a = kde_new(), *b = kde_new();
    struct stats_kde_ws *ws = stats_kde_ws_new(D_MAX);
    (void)state;

    assert_non_null(ws);
    seed(23);
    make_lognormal(D_MAX, 0.3);
    assert_int_equal(stats_kde_compute(xs, ys, 600, NULL, ws, a, NULL), STATUS_OK);
    assert_int_equal(stats_kde_compute(xs, ys, D_MAX, NULL, ws, b, NULL), STATUS_OK);
    assert_int_equal(stats_kde_compute(xs, ys, 600, NULL, ws, b, NULL), STATUS_OK);
    assert_memory_equal(a, b, sizeof *a);
    stats_kde_ws_free(ws);
    free(a);
    free(b);
}

/* The exact path ends at STATS_KDE_EXACT_MAX; no_density leaves (a) out and nothing
 * else; the permutation-test adapter gives width_ratio or the reason. */
static void options_and_the_width_ratio_statistic(void **state)
{
    struct stats_kde *a = kde_new(), *b = kde_new();
    struct stats_kde_ws *ws = stats_kde_ws_new(STATS_KDE_EXACT_MAX + 1);
    struct stats_kde_opts opts = {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, true,
                                  KDE_BW_NORMAL};
    struct stats_kde_stat_ctx ctx = {
        {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, false, KDE_BW_NORMAL}, ws, b};
    struct stats_coef c;
    (void)state;

    assert_non_null(ws);
    seed(32);
    make_lognormal(STATS_KDE_EXACT_MAX + 1, 0.5);
    assert_int_equal(stats_kde_compute(xs, ys, STATS_KDE_EXACT_MAX, NULL, ws, a, NULL),
                     STATUS_OK);
    assert_false(a->binned);
    assert_int_equal(
        stats_kde_compute(xs, ys, STATS_KDE_EXACT_MAX + 1, NULL, ws, b, NULL), STATUS_OK);
    assert_true(b->binned);
    /* one more job moves the quantiles by far less than the binning tolerance */
    assert_rel(b->q50_fit[7], a->q50_fit[7], TOL_Q_BINNED * a->h_y);

    assert_int_equal(stats_kde_compute(xs, ys, 700, &opts, ws, b, NULL), STATUS_OK);
    assert_int_equal(stats_kde_compute(xs, ys, 700, NULL, ws, a, NULL), STATUS_OK);
    assert_true(isnan(b->density[64][64]) && isfinite(a->density[64][64]));
    assert_memory_equal(a->q05_fit, b->q05_fit, sizeof a->q05_fit);
    assert_true(a->width_ratio == b->width_ratio);

    assert_int_equal(stats_kde_width_ratio_stat(xs, ys, 700, &ctx, &c, NULL), STATUS_OK);
    assert_int_equal(c.reason, REASON_NONE);
    assert_true(c.value == a->width_ratio);
    assert_true(isnan(b->density[3][3]));
    assert_int_equal(stats_kde_width_ratio_stat(xs, ys, 5, &ctx, &c, NULL), STATUS_OK);
    assert_int_equal(c.reason, REASON_D_BELOW_MIN);
    assert_int_equal(stats_kde_width_ratio_stat(xs, ys, 700, NULL, &c, NULL),
                     STATUS_INVALID);
    stats_kde_ws_free(ws);
    free(a);
    free(b);
}

/* width_ratio through the permutation test of stats_signif_compute (centre 1):
 * dependent jobs give the smallest p-value possible, independent ones do not. */
static void width_ratio_is_tested_by_permutations(void **state)
{
    struct stats_kde *scratch = kde_new();
    struct stats_kde_ws *kws = stats_kde_ws_new(300);
    struct stats_ws *ws = stats_ws_new(300);
    struct stats_kde_stat_ctx ctx = {
        {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, false, KDE_BW_NORMAL}, kws, scratch};
    const struct stats_signif_stat extra = {"width_ratio", stats_kde_width_ratio_stat,
                                            &ctx, 1.0};
    struct stats_signif_opts o = stats_signif_opts_default();
    struct stats_signif sg;
    struct error err = {0};
    (void)state;

    assert_non_null(kws);
    assert_non_null(ws);
    o.assoc.methods = METHOD_PEARSON;
    o.n_perm = 49;
    o.n_boot = 0;
    o.extra = &extra;
    o.n_extra = 1;
    seed(33);
    make_lognormal(300, 0.8);
    if (stats_signif_compute(xs, ys, 300, &o, ws, &sg, &err) != STATUS_OK)
        fail_msg("stats_signif_compute: %s", err.msg);
    assert_int_equal(sg.extra[0].reason, REASON_NONE);
    assert_true(sg.extra[0].value < 0.8);
    assert_rel(sg.extra[0].p_value, 1.0 / 50.0, 1e-15);
    make_lognormal(300, 0.0);
    assert_int_equal(stats_signif_compute(xs, ys, 300, &o, ws, &sg, NULL), STATUS_OK);
    print_message("independent: width_ratio %.4f, p %.3f, noise floor %.4f\n",
                  sg.extra[0].value, sg.extra[0].p_value, sg.extra[0].noise_floor);
    assert_true(sg.extra[0].p_value > 0.05);
    stats_ws_free(ws);
    stats_kde_ws_free(kws);
    free(scratch);
}

/* Fisher–Yates with the file's stream: a permutation of v as stats_signif makes. */
static void shuffle(double *v, size_t d)
{
    for (size_t i = d - 1; i > 0; i--) {
        size_t j = (size_t)(testutil_uniform() * (double)(i + 1));
        j = j > i ? i : j;
        const double t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* The adapter on (xs, ys) through ctx against a fresh stats_kde_compute of the same
 * data in another workspace: the same width_ratio within 1e-12 relative. */
static double adapter_matches_a_fresh_fit(struct stats_kde_stat_ctx *ctx, size_t d,
                                          struct stats_kde_ws *ws, struct stats_kde *ref)
{
    struct stats_kde_opts o = ctx->opts;
    struct stats_coef c = {0};
    struct error err = {0};

    o.no_density = true;
    if (stats_kde_width_ratio_stat(xs, ys, d, ctx, &c, &err) != STATUS_OK)
        fail_msg("stats_kde_width_ratio_stat: %s", err.msg);
    assert_int_equal(stats_kde_compute(xs, ys, d, &o, ws, ref, NULL), STATUS_OK);
    assert_int_equal(c.reason, REASON_NONE);
    assert_int_equal(ref->reason, REASON_NONE);
    assert_rel(c.value, ref->width_ratio, 1e-12 * fabs(ref->width_ratio));
    return c.value;
}

/* The adapter keeps what a permutation of y leaves unchanged (x, its weights, the
 * marginal of y) between calls: on permuted y it gives what a fresh fit gives, and
 * when the data change under the same pointers and ctx (new y, new x, one y nudged,
 * fewer jobs, other options) it does not serve the old fit. */
static void width_ratio_statistic_under_permutations_equals_a_fresh_fit(void **state)
{
    struct stats_kde *scratch = kde_new(), *ref = kde_new();
    struct stats_kde_ws *ws = stats_kde_ws_new(STATS_KDE_EXACT_MAX + 1);
    struct stats_kde_ws *ws2 = stats_kde_ws_new(STATS_KDE_EXACT_MAX + 1);
    struct stats_kde_stat_ctx ctx = {
        {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, false, KDE_BW_NORMAL}, ws, scratch};
    double observed, prev, v;
    (void)state;

    assert_non_null(ws);
    assert_non_null(ws2);
    seed(34);
    make_lognormal(416, 0.6);
    observed = adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    prev = observed;
    for (int r = 0; r < 6; r++) {
        shuffle(ys, 416);
        v = adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
        assert_true(v != prev); /* each permutation has its own value */
        prev = v;
    }
    /* the permutations came from the kept fit: scratch still holds the first one */
    assert_true(scratch->width_ratio == observed);

    make_lognormal(416, 0.6); /* new x and y, same pointers */
    prev = adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    assert_true(scratch->width_ratio == prev);
    for (size_t i = 0; i < 416; i++)
        ys[i] = 1.5 * pow(ys[i], 1.2); /* other y, the same x */
    v = adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    assert_true(scratch->width_ratio == v);
    shuffle(ys, 416);
    adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    ys[17] = nextafter(ys[17], INFINITY); /* one y, one ulp: another multiset */
    v = adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    assert_true(scratch->width_ratio == v);
    shuffle(ys, 416);
    adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    xs[200] *= 1.5; /* x changed, y the same */
    v = adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    assert_true(scratch->width_ratio == v);
    shuffle(ys, 416);
    adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    adapter_matches_a_fresh_fit(&ctx, 300, ws2, ref); /* fewer jobs */
    shuffle(ys, 300);
    adapter_matches_a_fresh_fit(&ctx, 300, ws2, ref);

    /* other options on the same workspace: linear space, the full kernel */
    ctx.opts.space = KDE_SPACE_LINEAR;
    for (int r = 0; r < 3; r++) {
        adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
        shuffle(ys, 416);
    }
    ctx.opts.space = KDE_SPACE_AUTO;
    ctx.opts.kernel = KDE_KERNEL_FULL;
    for (int r = 0; r < 3; r++) {
        adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
        shuffle(ys, 416);
    }
    seed(35);
    make_binormal(500, 5.5, 0.8, 1.0, 2.2, -0.7); /* y below 0: linear space */
    for (int r = 0; r < 3; r++) {
        adapter_matches_a_fresh_fit(&ctx, 500, ws2, ref);
        shuffle(ys, 500);
    }

    /* the plug-in bandwidth after a kept normal-reference fit of the same data */
    ctx.opts.kernel = KDE_KERNEL_PRODUCT;
    seed(36);
    make_lognormal(416, 0.6);
    adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    shuffle(ys, 416);
    adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
    ctx.opts.bandwidth = KDE_BW_PLUGIN;
    for (int r = 0; r < 3; r++) {
        shuffle(ys, 416);
        adapter_matches_a_fresh_fit(&ctx, 416, ws2, ref);
        assert_int_equal(ref->bandwidth, KDE_BW_PLUGIN);
    }
    ctx.opts.bandwidth = KDE_BW_NORMAL;

    /* binned (d above STATS_KDE_EXACT_MAX): nothing is kept, each call fits afresh */
    make_lognormal(STATS_KDE_EXACT_MAX + 1, 0.6);
    adapter_matches_a_fresh_fit(&ctx, STATS_KDE_EXACT_MAX + 1, ws2, ref);
    assert_true(ref->binned);
    shuffle(ys, STATS_KDE_EXACT_MAX + 1);
    v = adapter_matches_a_fresh_fit(&ctx, STATS_KDE_EXACT_MAX + 1, ws2, ref);
    assert_true(scratch->width_ratio == v);
    stats_kde_ws_free(ws);
    stats_kde_ws_free(ws2);
    free(scratch);
    free(ref);
}

/* ---- reasons and statuses ------------------------------------------------------- */

static enum status run(size_t d, const struct stats_kde_opts *opts, struct stats_kde *k,
                       struct error *err)
{
    struct stats_kde_ws *ws = stats_kde_ws_new(64);
    enum status rc;

    assert_non_null(ws);
    rc = stats_kde_compute(xs, ys, d, opts, ws, k, err);
    stats_kde_ws_free(ws);
    return rc;
}

static void fewer_jobs_than_d_min_is_a_reason(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 0, false,
                                  KDE_BW_NORMAL};
    (void)state;

    seed(24);
    make_lognormal(64, 0.5);
    assert_int_equal(run(9, NULL, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_D_BELOW_MIN);
    assert_int_equal(k->space, KDE_SPACE_LOG);
    assert_true(isnan(k->width_ratio) && isnan(k->q50[3]) && isnan(k->density[5][7]));
    assert_int_equal(run(1, &opts, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_D_BELOW_MIN);
    assert_int_equal(run(10, NULL, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_NONE);
    assert_true(isfinite(k->width_ratio));
    free(k);
}

static void a_constant_series_is_a_reason(void **state)
{
    struct stats_kde *k = kde_new();
    (void)state;

    seed(25);
    make_lognormal(64, 0.5);
    for (size_t i = 0; i < 64; i++)
        ys[i] = 2.385e3;
    assert_int_equal(run(64, NULL, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_CONSTANT_Y);
    assert_rel(k->mean, 2.385e3, 1e-9);
    assert_true(isnan(k->h_y) && isnan(k->width_ratio));
    for (size_t i = 0; i < 64; i++)
        xs[i] = 7.7e10;
    assert_int_equal(run(64, NULL, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_CONSTANT_X); /* x wins */
    seed(25);
    make_lognormal(64, 0.5);
    for (size_t i = 0; i < 64; i++)
        xs[i] = 7.7e10;
    assert_int_equal(run(64, NULL, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_CONSTANT_X);
    free(k);
}

static void a_value_not_finite_is_invalid(void **state)
{
    struct stats_kde *k = kde_new();
    struct error err = {0};
    (void)state;

    seed(26);
    make_lognormal(64, 0.5);
    xs[17] = NAN;
    assert_int_equal(run(64, NULL, k, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "not finite"));
    xs[17] = 3.0;
    ys[5] = INFINITY;
    assert_int_equal(run(64, NULL, k, NULL), STATUS_INVALID);
    free(k);
}

static void log_space_with_a_value_not_positive_is_invalid(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LOG, KDE_KERNEL_PRODUCT, 10, false,
                                  KDE_BW_NORMAL};
    struct error err = {0};
    (void)state;

    seed(27);
    make_lognormal(64, 0.5);
    ys[40] = 0.0;
    assert_int_equal(run(64, &opts, k, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "log"));
    /* auto falls back to linear and says so */
    assert_int_equal(run(64, NULL, k, NULL), STATUS_OK);
    assert_int_equal(k->space, KDE_SPACE_LINEAR);
    assert_string_equal(stats_kde_space_name(k->space), "linear");
    free(k);
}

static void unknown_options_are_invalid(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, false,
                                  KDE_BW_NORMAL};
    (void)state;

    seed(28);
    make_lognormal(64, 0.5);
    opts.space = (enum stats_kde_space)7;
    assert_int_equal(run(64, &opts, k, NULL), STATUS_INVALID);
    opts.space = KDE_SPACE_AUTO;
    opts.kernel = (enum stats_kde_kernel)9;
    assert_int_equal(run(64, &opts, k, NULL), STATUS_INVALID);
    free(k);
}

static void missing_arguments_and_a_small_workspace_are_invalid(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_ws *ws = stats_kde_ws_new(64);
    (void)state;

    assert_non_null(ws);
    seed(29);
    make_lognormal(65, 0.5);
    assert_int_equal(stats_kde_compute(xs, ys, 65, NULL, ws, k, NULL), STATUS_INVALID);
    assert_int_equal(stats_kde_compute(NULL, ys, 64, NULL, ws, k, NULL), STATUS_INVALID);
    assert_int_equal(stats_kde_compute(xs, NULL, 64, NULL, ws, k, NULL), STATUS_INVALID);
    assert_int_equal(stats_kde_compute(xs, ys, 64, NULL, NULL, k, NULL), STATUS_INVALID);
    assert_int_equal(stats_kde_compute(xs, ys, 64, NULL, ws, NULL, NULL), STATUS_INVALID);
    stats_kde_ws_free(ws);
    stats_kde_ws_free(NULL);
    free(k);
}

static void full_kernel_on_collinear_data_is_invalid(void **state)
{
    struct stats_kde *k = kde_new();
    struct stats_kde_opts opts = {KDE_SPACE_LINEAR, KDE_KERNEL_FULL, 10, false,
                                  KDE_BW_NORMAL};
    struct error err = {0};
    (void)state;

    for (size_t i = 0; i < 64; i++) {
        xs[i] = 2.385 * (double)i + 1.0;
        ys[i] = 3.0 * xs[i] - 7.5;
    }
    assert_int_equal(run(64, &opts, k, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "singular"));
    opts.kernel = KDE_KERNEL_PRODUCT; /* the product kernel is fine */
    assert_int_equal(run(64, &opts, k, NULL), STATUS_OK);
    assert_int_equal(k->reason, REASON_NONE);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lognormal_jobs_match_statsmodels_in_log_space),
        cmocka_unit_test(tied_seconds_match_statsmodels_in_linear_space),
        cmocka_unit_test(two_clusters_match_the_reference_in_asked_linear_space),
        cmocka_unit_test(bytes_near_1e15_match_the_reference_in_linear_space),
        cmocka_unit_test(ten_jobs_match_the_reference),
        cmocka_unit_test(binned_quantiles_are_within_5e_3_hy),
        cmocka_unit_test(full_kernel_matches_scipy_gaussian_kde),
        cmocka_unit_test(full_kernel_binned_is_within_5e_3_hy),
        cmocka_unit_test(binormal_median_follows_the_smoothed_regression_line),
        cmocka_unit_test(full_kernel_median_follows_the_regression_line),
        cmocka_unit_test(binormal_width_ratio_is_sqrt_one_minus_rho_squared),
        cmocka_unit_test(independent_data_have_width_ratio_one),
        cmocka_unit_test(density_grid_integrates_to_one),
        cmocka_unit_test(log_space_quantiles_come_back_in_linear_units),
        cmocka_unit_test(a_reused_workspace_gives_the_same_result),
        cmocka_unit_test(options_and_the_width_ratio_statistic),
        cmocka_unit_test(width_ratio_is_tested_by_permutations),
        cmocka_unit_test(width_ratio_statistic_under_permutations_equals_a_fresh_fit),
        cmocka_unit_test(fewer_jobs_than_d_min_is_a_reason),
        cmocka_unit_test(a_constant_series_is_a_reason),
        cmocka_unit_test(a_value_not_finite_is_invalid),
        cmocka_unit_test(log_space_with_a_value_not_positive_is_invalid),
        cmocka_unit_test(unknown_options_are_invalid),
        cmocka_unit_test(missing_arguments_and_a_small_workspace_are_invalid),
        cmocka_unit_test(full_kernel_on_collinear_data_is_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
