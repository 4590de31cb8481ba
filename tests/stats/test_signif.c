/* test_signif.c: permutation p-values, noise floors and BCa intervals (METHOD.md §5
 * "Significance") against exact enumeration, the uniform law, coverage and scipy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE "tests/oracles/signif_ref.py"
#define D_MAX  64

/* d pairs of a bivariate normal with correlation rho, unround scales. */
static void bivariate(double rho, size_t d, double *x, double *y)
{
    for (size_t i = 0; i < d; i++) {
        double a = testutil_normal(), b = testutil_normal();
        x[i] = 2.385 + 1.37 * a;
        y[i] = -0.613 + 0.41 * (rho * a + sqrt(1.0 - rho * rho) * b);
    }
}

static struct stats_signif_opts opts_of(unsigned methods, size_t d_min, size_t n_perm,
                                        size_t n_boot)
{
    struct stats_signif_opts o = stats_signif_opts_default();
    o.assoc.methods = methods;
    o.assoc.d_min = d_min;
    o.n_perm = n_perm;
    o.n_boot = n_boot;
    return o;
}

static struct stats_signif signif_of(const double *x, const double *y, size_t d,
                                     const struct stats_signif_opts *o,
                                     struct stats_ws *ws)
{
    struct stats_signif s;
    struct error err = {0};
    enum status rc = stats_signif_compute(x, y, d, o, ws, &s, &err);
    if (rc != STATUS_OK)
        print_error("stats_signif_compute: %s\n", err.msg);
    assert_int_equal(rc, STATUS_OK);
    return s;
}

/* ---- the jackknife ------------------------------------------------------------ */

/* Every leave-one-out value against stats_pearson / stats_spearman on the d − 1
 * other jobs. */
static void check_jackknife(const double *x, const double *y, size_t d,
                            struct stats_ws *ws)
{
    double jp[D_MAX], js[D_MAX], xo[D_MAX], yo[D_MAX];
    double worst = 0.0;

    assert_int_equal(stats_jackknife(x, y, d, ws, jp, js, NULL), STATUS_OK);
    for (size_t k = 0; k < d; k++) {
        double rp = NAN, rs = NAN;
        size_t n = 0;
        for (size_t i = 0; i < d; i++) {
            if (i != k) {
                xo[n] = x[i];
                yo[n++] = y[i];
            }
        }
        /* A left-out sample may be constant: INVALID, the value NAN. */
        enum status rc_p = stats_pearson(xo, yo, n, &rp, NULL);
        enum status rc_s = stats_spearman(xo, yo, n, ws, &rs, NULL);
        assert_true(rc_p == STATUS_OK || rc_p == STATUS_INVALID);
        assert_true(rc_s == STATUS_OK || rc_s == STATUS_INVALID);
        assert_rel(jp[k], rp, 1e-12);
        assert_rel(js[k], rs, 1e-12);
        if (isfinite(rp))
            worst = fmax(worst, fmax(fabs(jp[k] - rp), fabs(js[k] - rs)));
    }
    print_message("  d=%zu jackknife worst |diff| %.2g\n", d, worst);
}

static void jackknife_matches_leaving_each_job_out(void **state)
{
    double x[D_MAX], y[D_MAX];
    struct stats_ws *ws = stats_ws_new(D_MAX);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0001));
    /* tie-free */
    bivariate(0.6, 40, x, y);
    check_jackknife(x, y, 40, ws);
    /* many ties on both axes (T^D is a multiple of Δ) */
    for (size_t i = 0; i < 47; i++) {
        x[i] = 2.5 * floor(6.0 * testutil_uniform());
        y[i] = floor(4.0 * testutil_uniform()) + 0.25 * x[i];
    }
    check_jackknife(x, y, 47, ws);
    /* one job carries nearly all of x's variance: downdating would cancel */
    bivariate(0.3, 30, x, y);
    x[17] = 1e9;
    check_jackknife(x, y, 30, ws);
    /* x constant but for one job: without it x is constant (NAN) */
    for (size_t i = 0; i < 12; i++)
        x[i] = 3.7;
    x[5] = 4.1;
    check_jackknife(x, y, 12, ws);
    stats_ws_free(ws);
}

static void jackknife_rejects_short_constant_and_missing_inputs(void **state)
{
    double x[5] = {1.5, 2.25, 0.75, 3.5, 2.0}, y[5] = {2.0, 1.0, 4.5, 3.25, 0.5};
    double c[5] = {1.5, 1.5, 1.5, 1.5, 1.5}, jp[5], js[5];
    struct stats_ws *ws = stats_ws_new(4), *big = stats_ws_new(5);
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_jackknife(x, y, 2, big, jp, js, NULL), STATUS_INVALID);
    assert_int_equal(stats_jackknife(x, y, 5, ws, jp, js, NULL), STATUS_INVALID);
    assert_int_equal(stats_jackknife(x, y, 5, NULL, jp, js, NULL), STATUS_INVALID);
    assert_int_equal(stats_jackknife(NULL, y, 5, big, jp, js, NULL), STATUS_INVALID);
    assert_int_equal(stats_jackknife(x, y, 5, big, jp, NULL, NULL), STATUS_INVALID);
    assert_int_equal(stats_jackknife(c, y, 5, big, jp, js, &err), STATUS_INVALID);
    assert_string_equal(err.msg, "constant_x");
    error_clear(&err);
    assert_int_equal(stats_jackknife(x, c, 5, big, jp, js, &err), STATUS_INVALID);
    assert_string_equal(err.msg, "constant_y");
    y[3] = NAN;
    assert_int_equal(stats_jackknife(x, y, 5, big, jp, js, NULL), STATUS_INVALID);
    stats_ws_free(ws);
    stats_ws_free(big);
}

/* ---- permutation p-values ----------------------------------------------------- */

/* Ranks 0..d−1 of distinct values. */
static void ranks_of(const double *v, size_t d, int *rank)
{
    for (size_t i = 0; i < d; i++) {
        rank[i] = 0;
        for (size_t j = 0; j < d; j++)
            rank[i] += v[j] < v[i];
    }
}

/* Exact two-sided p over all d! permutations of y (Heap's algorithm), the
 * observed one included: Pearson with the code's tie margin, Spearman exactly in
 * integers (ρ = 1 − 6S/(d³ − d), S = Σ(rank difference)², no ties). */
static void exact_p(const double *x, const double *y, size_t d, double *p_pearson,
                    double *p_spearman, double *n_perm)
{
    double yp[8], r0 = NAN, r = NAN;
    int rx[8], ry[8];
    size_t c[8] = {0}, i = 1, total = 1, hit_p = 1, hit_s = 1;

    assert_true(d <= 8);
    memcpy(yp, y, d * sizeof *y);
    ranks_of(x, d, rx);
    ranks_of(y, d, ry);
    assert_int_equal(stats_pearson(x, y, d, &r0, NULL), STATUS_OK);
    const long n3 = (long)(d * d * d - d);
    long s0 = 0;
    for (size_t k = 0; k < d; k++)
        s0 += (long)(rx[k] - ry[k]) * (rx[k] - ry[k]);
    const long rho0 = labs(n3 - 6 * s0);
    while (i < d) {
        if (c[i] < i) {
            size_t j = i % 2 == 0 ? 0 : c[i];
            double t = yp[j];
            int tr = ry[j];
            yp[j] = yp[i];
            yp[i] = t;
            ry[j] = ry[i];
            ry[i] = tr;
            total++;
            assert_int_equal(stats_pearson(x, yp, d, &r, NULL), STATUS_OK);
            hit_p += fabs(r) >= fabs(r0) * (1.0 - 1e-12);
            long s = 0;
            for (size_t k = 0; k < d; k++)
                s += (long)(rx[k] - ry[k]) * (rx[k] - ry[k]);
            hit_s += labs(n3 - 6 * s) >= rho0;
            c[i]++;
            i = 1;
        } else {
            c[i] = 0;
            i++;
        }
    }
    *p_pearson = (double)hit_p / (double)total;
    *p_spearman = (double)hit_s / (double)total;
    *n_perm = (double)total;
}

/* The Monte-Carlo p is (1 + hits) / (B + 1): within 4 standard errors of the exact
 * p, plus the 1 / (B + 1) of its own definition. */
static void assert_mc_close(const char *name, double mc, double exact, size_t b)
{
    double se = sqrt(exact * (1.0 - exact) / (double)b);
    print_message("  %-8s exact p %.6f  MC p %.6f (B = %zu)  |diff| %.4f = %.2f se\n",
                  name, exact, mc, b, fabs(mc - exact), fabs(mc - exact) / se);
    assert_rel(mc, exact, 4.0 * se + 1.0 / (double)(b + 1));
}

static void p_values_at_d7_match_all_5040_permutations(void **state)
{
    /* Two data sets: a moderate and a weak association, p well inside (0, 1). */
    const double xs[2][7] = {{2.385, 4.17, 1.093, 3.61, 5.248, 0.772, 2.951},
                             {1.21, 3.87, 2.44, 0.37, 4.93, 2.05, 3.12}};
    const double ys[2][7] = {{1.94, 2.71, 2.22, 1.58, 3.06, 1.11, 2.47},
                             {0.83, 1.57, 0.49, 1.25, 1.33, 0.98, 0.61}};
    const size_t b = 20000;
    struct stats_ws *ws = stats_ws_new(7);

    (void)state;
    assert_non_null(ws);
    for (size_t s = 0; s < 2; s++) {
        double pp, ps, n;
        exact_p(xs[s], ys[s], 7, &pp, &ps, &n);
        assert_rel(n, 5040.0, 0.0);
        struct stats_signif_opts o = opts_of(METHOD_PEARSON | METHOD_SPEARMAN, 3, b, 0);
        struct stats_signif sg = signif_of(xs[s], ys[s], 7, &o, ws);
        assert_int_equal(sg.pearson.n_perm, b);
        assert_mc_close("pearson", sg.pearson.p_value, pp, b);
        assert_mc_close("spearman", sg.spearman.p_value, ps, b);
    }
    stats_ws_free(ws);
}

/* The p-value and the noise floor follow from the documented permutations: the same
 * MT19937 shuffles of one copy of y, replayed here with stats_pearson. */
static void p_value_and_floor_replay_the_seeded_shuffles(void **state)
{
    double x[40], y[40], yp[40], t[299];
    const size_t d = 40, b = 299;
    struct stats_ws *ws = stats_ws_new(d);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t hits = 0;
    double r0 = NAN;

    (void)state;
    assert_non_null(ws);
    assert_non_null(rng);
    testutil_rng_seed(UINT64_C(0x5EED0002));
    bivariate(0.25, d, x, y);
    struct stats_signif_opts o = opts_of(METHOD_PEARSON, 10, b, 0);
    o.seed = 977;
    struct stats_signif sg = signif_of(x, y, d, &o, ws);

    assert_int_equal(stats_pearson(x, y, d, &r0, NULL), STATUS_OK);
    gsl_rng_set(rng, 977);
    memcpy(yp, y, sizeof yp);
    for (size_t i = 0; i < b; i++) {
        gsl_ran_shuffle(rng, yp, d, sizeof *yp);
        assert_int_equal(stats_pearson(x, yp, d, &t[i], NULL), STATUS_OK);
        t[i] = fabs(t[i]);
        hits += t[i] >= fabs(r0);
    }
    gsl_sort(t, 1, b);
    /* type 7: (b − 1)·0.95 = 283.1, between the 284th and 285th smallest */
    const double floor7 = t[283] + 0.1 * (t[284] - t[283]);
    assert_rel(sg.pearson.value, r0, 0.0);
    assert_rel(sg.pearson.p_value, (double)(1 + hits) / (double)(b + 1), 0.0);
    assert_rel(sg.pearson.noise_floor, floor7, 1e-15);
    assert_rel(sg.pearson.noise_floor, gsl_stats_quantile_from_sorted_data(t, 1, b, 0.95),
               0.0);
    print_message("  r = %.4f p = %.4f floor = %.4f\n", r0, sg.pearson.p_value,
                  sg.pearson.noise_floor);
    gsl_rng_free(rng);
    stats_ws_free(ws);
}

/* P(K > lambda) of Kolmogorov's law, with Stephens' small-sample factor. */
static double ks_p(double dn, size_t n)
{
    const double sn = sqrt((double)n), lambda = (sn + 0.12 + 0.11 / sn) * dn;
    double sum = 0.0;

    for (int k = 1; k <= 100; k++) {
        double term = exp(-2.0 * k * k * lambda * lambda);
        sum += (k % 2 == 1 ? 2.0 : -2.0) * term;
        if (term < 1e-16)
            break;
    }
    return fmin(1.0, fmax(0.0, sum));
}

/* Kolmogorov–Smirnov against U(0, 1) of sorted values: D_n, and D+ = sup(F_n − F),
 * which only an excess of small p-values makes large. */
static double ks_statistic(const double *u, size_t n, double *d_plus)
{
    double dn = 0.0;

    *d_plus = 0.0;
    for (size_t i = 0; i < n; i++) {
        *d_plus = fmax(*d_plus, (double)(i + 1) / (double)n - u[i]);
        dn = fmax(dn, u[i] - (double)i / (double)n);
    }
    return fmax(dn, *d_plus);
}

/* The p-values of n null data sets (bivariate(0), d jobs, B permutations, seeds
 * from s0) against U(0, 1). */
static void check_null(unsigned methods, size_t n, size_t d, size_t b, uint64_t s0,
                       struct stats_ws *ws)
{
    static const char *names[4] = {"pearson", "spearman", "dcor_v", "mi_linfoot"};
    static double p[4][200];
    double x[64], y[64];

    assert_true(n <= 200 && d <= 64);
    testutil_rng_seed(s0);
    for (size_t s = 0; s < n; s++) {
        bivariate(0.0, d, x, y);
        struct stats_signif_opts o = opts_of(methods, 10, b, 0);
        o.seed = s0 + s;
        o.assoc.seed = s0 + 1000 + s;
        struct stats_signif sg = signif_of(x, y, d, &o, ws);
        p[0][s] = sg.pearson.p_value;
        p[1][s] = sg.spearman.p_value;
        p[2][s] = sg.dcor_v.p_value;
        p[3][s] = sg.mi_linfoot.p_value;
    }
    for (size_t m = 0; m < 4; m++) {
        double d_plus;
        size_t small = 0;
        if (!(methods & (1u << m)))
            continue;
        gsl_sort(p[m], 1, n);
        const double dn = ks_statistic(p[m], n, &d_plus);
        for (size_t s = 0; s < n; s++)
            small += p[m][s] <= 0.05;
        print_message("  %-10s %zu sets, d = %zu, B = %zu: KS D = %.4f (p %.3f), D+ = "
                      "%.4f (p %.3f), share p <= 0.05: %.3f\n",
                      names[m], n, d, b, dn, ks_p(dn, n), d_plus,
                      exp(-2.0 * (double)n * d_plus * d_plus), (double)small / (double)n);
        if (m == 3) {
            /* KSG's I is clipped at 0 in about half the null sets, and T = 0 gives
             * p = 1: valid but not uniform, so only an excess of small p-values
             * fails (one-sided KS, asymptotic p = exp(−2n·D+²)). */
            assert_true(exp(-2.0 * (double)n * d_plus * d_plus) >= 0.001);
        } else {
            assert_true(ks_p(dn, n) >= 0.001);
        }
    }
}

static void null_p_values_are_uniform(void **state)
{
    struct stats_ws *ws = stats_ws_new(30);

    (void)state;
    assert_non_null(ws);
    /* The acceptance test: Pearson, 200 sets, d = 30, B = 199, KS at α = 0.001. */
    check_null(METHOD_PEARSON, 200, 30, 199, UINT64_C(0x5EED0003), ws);
    /* The other three on fewer, smaller runs (Spearman, dCor and KSG sort: ~20 µs a
     * call at d = 30). */
    check_null(METHOD_SPEARMAN | METHOD_DCOR | METHOD_MI, 100, 30, 99,
               UINT64_C(0x5EED0013), ws);
    stats_ws_free(ws);
}

/* ---- BCa intervals ------------------------------------------------------------ */

static void bca_covers_rho_0_6_about_95_percent(void **state)
{
    enum { SETS = 200, D = 50 };
    const double rho = 0.6;
    double x[D], y[D];
    size_t cover = 0;
    double width = 0.0;
    struct stats_ws *ws = stats_ws_new(D);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0004));
    for (size_t s = 0; s < SETS; s++) {
        bivariate(rho, D, x, y);
        /* Pearson only: Spearman's sort costs ~20 µs a resample at d = 50; its BCa
         * is checked against scipy. */
        struct stats_signif_opts o = opts_of(METHOD_PEARSON, 10, 0, 2000);
        o.seed = 7000 + s;
        struct stats_signif sg = signif_of(x, y, D, &o, ws);
        assert_int_equal(sg.pearson.n_boot, 2000);
        assert_rel(sg.pearson.level, 0.95, 0.0);
        assert_true(sg.pearson.ci_low < sg.pearson.value);
        assert_true(sg.pearson.value < sg.pearson.ci_high);
        cover += sg.pearson.ci_low <= rho && rho <= sg.pearson.ci_high;
        width += sg.pearson.ci_high - sg.pearson.ci_low;
        /* no p-value asked */
        assert_true(isnan(sg.pearson.p_value));
    }
    const double cp = (double)cover / SETS;
    print_message("  BCa 95 %% coverage of rho = 0.6: %.3f (200 sets, d = 50, B = 2000), "
                  "mean width %.3f\n",
                  cp, width / SETS);
    assert_true(cp >= 0.88 && cp <= 0.99);
    stats_ws_free(ws);
}

static void bca_matches_scipy_bootstrap(void **state)
{
    enum { D = 50 };
    double x[D], y[D];
    const double *xs[1] = {x}, *ys[1] = {y};
    const size_t d[1] = {D};
    double ref[4];
    int rc = -1;
    struct stats_ws *ws = stats_ws_new(D);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0005));
    bivariate(0.6, D, x, y);
    /* a few ties, as T^D has */
    for (size_t i = 0; i + 1 < D; i += 7)
        x[i + 1] = x[i];
    char *out = testutil_run_oracle(ORACLE, xs, ys, d, 1, &rc);
    assert_non_null(out);
    if (rc != 0)
        print_error("oracle: %s\n", out);
    assert_int_equal(rc, 0);
    /* "pearson <lo> <hi> spearman <lo> <hi>" */
    const char *words[6] = {"pearson", NULL, NULL, "spearman", NULL, NULL};
    char *save = NULL, *tok = strtok_r(out, " \n", &save);
    for (size_t w = 0, k = 0; w < 6; w++, tok = strtok_r(NULL, " \n", &save)) {
        char *end;
        assert_non_null(tok);
        if (words[w] != NULL) {
            assert_string_equal(tok, words[w]);
            continue;
        }
        ref[k++] = strtod(tok, &end);
        assert_true(end != tok && *end == '\0');
    }
    free(out);
    /* 20000 resamples on each side: the skewed lower tail gives an endpoint a
     * Monte-Carlo sd of about 0.005 (seen over seeds on both sides), so 0.02 is
     * about 3 sd of the difference; a wrong z0 or acceleration moves it more. */
    struct stats_signif_opts o = opts_of(METHOD_PEARSON | METHOD_SPEARMAN, 10, 0, 20000);
    struct stats_signif sg = signif_of(x, y, D, &o, ws);
    print_message("  pearson [%.4f, %.4f] scipy [%.4f, %.4f]; spearman [%.4f, %.4f] "
                  "scipy [%.4f, %.4f]\n",
                  sg.pearson.ci_low, sg.pearson.ci_high, ref[0], ref[1],
                  sg.spearman.ci_low, sg.spearman.ci_high, ref[2], ref[3]);
    assert_rel(sg.pearson.ci_low, ref[0], 0.02);
    assert_rel(sg.pearson.ci_high, ref[1], 0.02);
    assert_rel(sg.spearman.ci_low, ref[2], 0.02);
    assert_rel(sg.spearman.ci_high, ref[3], 0.02);
    stats_ws_free(ws);
}

static void dcor_and_mi_get_no_interval(void **state)
{
    double x[30], y[30];
    struct stats_ws *ws = stats_ws_new(30);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0006));
    bivariate(0.5, 30, x, y);
    struct stats_signif_opts o = opts_of(METHOD_DCOR | METHOD_MI, 10, 99, 200);
    struct stats_signif sg = signif_of(x, y, 30, &o, ws);
    assert_int_equal(sg.dcor_v.reason, REASON_NONE);
    assert_int_equal(sg.mi_linfoot.reason, REASON_NONE);
    assert_true(sg.dcor_v.p_value > 0.0 && sg.dcor_v.p_value <= 1.0);
    assert_true(isnan(sg.dcor_v.ci_low) && isnan(sg.dcor_v.level));
    assert_true(isnan(sg.mi_linfoot.ci_high) && sg.mi_linfoot.n_boot == 0);
    assert_int_equal(sg.pearson.reason, REASON_NOT_COMPUTED);
    assert_true(isnan(sg.pearson.p_value));
    stats_ws_free(ws);
}

/* ---- determinism and undefined cases ------------------------------------------ */

static bool same_bits(double a, double b)
{
    uint64_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return ua == ub;
}

static bool same_coef(const struct stats_signif_coef *a,
                      const struct stats_signif_coef *b)
{
    return same_bits(a->value, b->value) && a->reason == b->reason &&
           same_bits(a->p_value, b->p_value) &&
           same_bits(a->noise_floor, b->noise_floor) && a->n_perm == b->n_perm &&
           same_bits(a->ci_low, b->ci_low) && same_bits(a->ci_high, b->ci_high) &&
           same_bits(a->level, b->level) && a->n_boot == b->n_boot;
}

static void same_seed_gives_identical_results(void **state)
{
    double x[40], y[40], x0[40], y0[40];
    struct stats_ws *ws = stats_ws_new(40);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0007));
    bivariate(0.2, 40, x, y);
    memcpy(x0, x, sizeof x);
    memcpy(y0, y, sizeof y);
    struct stats_signif_opts o = opts_of(stats_methods_available(), 10, 199, 300);
    struct stats_signif a = signif_of(x, y, 40, &o, ws);
    struct stats_signif b = signif_of(x, y, 40, &o, ws);
    assert_memory_equal(x, x0, sizeof x);
    assert_memory_equal(y, y0, sizeof y);
    assert_true(same_coef(&a.pearson, &b.pearson));
    assert_true(same_coef(&a.spearman, &b.spearman));
    assert_true(same_coef(&a.dcor_v, &b.dcor_v));
    assert_true(same_coef(&a.mi_linfoot, &b.mi_linfoot));
    assert_true(a.seed == STATS_DEFAULT_SEED && b.seed == a.seed);
    /* another seed: other permutations and resamples */
    o.seed = 20240602;
    struct stats_signif c = signif_of(x, y, 40, &o, ws);
    assert_rel(c.pearson.value, a.pearson.value, 0.0);
    assert_false(same_bits(c.pearson.noise_floor, a.pearson.noise_floor));
    assert_false(same_bits(c.pearson.ci_low, a.pearson.ci_low));
    /* the permutations do not depend on the resamples asked, nor the reverse */
    o.seed = STATS_DEFAULT_SEED;
    o.n_boot = 0;
    struct stats_signif e = signif_of(x, y, 40, &o, ws);
    assert_true(same_bits(e.pearson.p_value, a.pearson.p_value));
    assert_true(same_bits(e.mi_linfoot.noise_floor, a.mi_linfoot.noise_floor));
    o.n_boot = 300;
    o.n_perm = 0;
    e = signif_of(x, y, 40, &o, ws);
    assert_true(same_bits(e.spearman.ci_high, a.spearman.ci_high));
    assert_true(isnan(e.spearman.p_value) && e.spearman.n_perm == 0);
    stats_ws_free(ws);
}

static void undefined_coefficients_get_no_p_value_and_keep_their_reason(void **state)
{
    double x[20], y[20], c[20];
    struct stats_ws *ws = stats_ws_new(20);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0008));
    bivariate(0.4, 20, x, y);
    for (size_t i = 0; i < 20; i++)
        c[i] = 4.75;
    struct stats_signif_opts o = opts_of(stats_methods_available(), 10, 99, 100);
    struct stats_signif s = signif_of(x, c, 20, &o, ws);
    const struct stats_signif_coef *all[4] = {&s.pearson, &s.spearman, &s.dcor_v,
                                              &s.mi_linfoot};
    for (size_t m = 0; m < 4; m++) {
        assert_int_equal(all[m]->reason, REASON_CONSTANT_Y);
        assert_true(isnan(all[m]->value) && isnan(all[m]->p_value));
        assert_true(isnan(all[m]->noise_floor) && isnan(all[m]->ci_low));
        assert_int_equal(all[m]->n_perm, 0);
    }
    s = signif_of(c, y, 20, &o, ws);
    assert_int_equal(s.spearman.reason, REASON_CONSTANT_X);
    assert_true(isnan(s.spearman.p_value));
    /* below d_min: 9 < 10 */
    s = signif_of(x, y, 9, &o, ws);
    for (size_t m = 0; m < 4; m++) {
        assert_int_equal(all[m]->reason, REASON_D_BELOW_MIN);
        assert_true(isnan(all[m]->p_value) && isnan(all[m]->ci_high));
    }
    assert_string_equal(stats_reason_name(s.pearson.reason), "d_below_min");
    /* methods not asked */
    o.assoc.methods = METHOD_SPEARMAN;
    s = signif_of(x, y, 20, &o, ws);
    assert_int_equal(s.spearman.reason, REASON_NONE);
    assert_int_equal(s.pearson.reason, REASON_NOT_COMPUTED);
    assert_int_equal(s.extra[0].reason, REASON_NOT_COMPUTED);
    assert_true(isnan(s.dcor_v.p_value));
    stats_ws_free(ws);
}

/* ---- the extension point ------------------------------------------------------ */

struct shifted {
    size_t calls;
    double shift;
};

/* Pearson's r + shift: with centre = shift it must test exactly as Pearson does. */
static enum status shifted_pearson(const double *x, const double *y, size_t d, void *ctx,
                                   struct stats_coef *out, struct error *err)
{
    struct shifted *s = ctx;
    double r = NAN;

    (void)err;
    s->calls++;
    out->reason =
        stats_pearson(x, y, d, &r, NULL) == STATUS_OK ? REASON_NONE : REASON_CONSTANT_Y;
    out->value = r + s->shift;
    return STATUS_OK;
}

static enum status failing_stat(const double *x, const double *y, size_t d, void *ctx,
                                struct stats_coef *out, struct error *err)
{
    size_t *calls = ctx;

    (void)x;
    (void)y;
    (void)d;
    out->value = 0.0;
    out->reason = REASON_NONE;
    return ++*calls > 3 ? error_set(err, STATUS_INTERNAL, "kde failed") : STATUS_OK;
}

static void extra_statistic_shares_the_permutations(void **state)
{
    double x[25], y[25], c[25];
    struct shifted sh = {0, 1.0};
    size_t fails = 0;
    struct error err = {0};
    struct stats_ws *ws = stats_ws_new(25);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED0009));
    bivariate(0.3, 25, x, y);
    const struct stats_signif_stat extra[2] = {
        {"shifted_pearson", shifted_pearson, &sh, 1.0},
        {"failing", failing_stat, &fails, 0.0},
    };
    struct stats_signif_opts o = opts_of(METHOD_PEARSON | METHOD_MI, 10, 199, 0);
    o.extra = extra;
    o.n_extra = 1;
    struct stats_signif s = signif_of(x, y, 25, &o, ws);
    assert_int_equal(sh.calls, 200);
    assert_int_equal(s.extra[0].reason, REASON_NONE);
    assert_rel(s.extra[0].value, s.pearson.value + 1.0, 0.0);
    assert_rel(s.extra[0].p_value, s.pearson.p_value, 0.0);
    assert_rel(s.extra[0].noise_floor, s.pearson.noise_floor, 1e-15);
    assert_true(isnan(s.extra[0].ci_low));
    assert_int_equal(s.extra[1].reason, REASON_NOT_COMPUTED);
    /* an undefined group: the reason, without a call */
    for (size_t i = 0; i < 25; i++)
        c[i] = -0.375;
    sh.calls = 0;
    s = signif_of(x, c, 25, &o, ws);
    assert_int_equal(sh.calls, 0);
    assert_int_equal(s.extra[0].reason, REASON_CONSTANT_Y);
    assert_true(isnan(s.extra[0].p_value));
    /* a failing statistic stops the computation with its status */
    o.n_extra = 2;
    assert_int_equal(stats_signif_compute(x, y, 25, &o, ws, &s, &err), STATUS_INTERNAL);
    assert_string_equal(err.msg, "kde failed");
    stats_ws_free(ws);
}

/* ---- cancellation ------------------------------------------------------------- */

/* A statistic that sets the cancel flag at its stop_at-th call (the first call is on
 * the data, each further one on a permutation). */
struct cancelling {
    size_t calls, stop_at;
    atomic_bool *flag;
};

static enum status cancelling_stat(const double *x, const double *y, size_t d, void *ctx,
                                   struct stats_coef *out, struct error *err)
{
    struct cancelling *c = ctx;

    (void)x;
    (void)y;
    (void)d;
    (void)err;
    if (++c->calls == c->stop_at)
        atomic_store(c->flag, true);
    out->value = 0.25 * (double)c->calls;
    out->reason = REASON_NONE;
    return STATUS_OK;
}

static void a_set_cancel_flag_stops_the_permutations(void **state)
{
    double x[30], y[30];
    atomic_bool flag = false;
    struct cancelling c = {0, 11, &flag};
    struct stats_signif s;
    struct error err = {0};
    struct stats_ws *ws = stats_ws_new(30);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED000A));
    bivariate(0.3, 30, x, y);
    const struct stats_signif_stat extra = {"cancelling", cancelling_stat, &c, 0.0};
    struct stats_signif_opts o = opts_of(METHOD_PEARSON, 10, 99999, 0);
    o.extra = &extra;
    o.n_extra = 1;
    o.cancel = &flag;
    assert_int_equal(stats_signif_compute(x, y, 30, &o, ws, &s, &err), STATUS_CANCELLED);
    /* The data, then 10 permutations: the flag is read before each one. */
    assert_int_equal(c.calls, 11);
    assert_non_null(strstr(err.msg, "after 10 of 99999 permutations"));
    /* The resamples read it too. */
    error_clear(&err);
    o = opts_of(METHOD_PEARSON | METHOD_SPEARMAN, 10, 0, 500);
    o.cancel = &flag;
    assert_int_equal(stats_signif_compute(x, y, 30, &o, ws, &s, &err), STATUS_CANCELLED);
    assert_non_null(strstr(err.msg, "after 0 of 500 resamples"));
    stats_ws_free(ws);
}

static void an_unset_cancel_flag_changes_nothing(void **state)
{
    double x[40], y[40];
    atomic_bool flag = false;
    struct stats_ws *ws = stats_ws_new(40);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(0x5EED000B));
    bivariate(0.35, 40, x, y);
    struct stats_signif_opts o = opts_of(stats_methods_available(), 10, 199, 300);
    struct stats_signif none = signif_of(x, y, 40, &o, ws);
    o.cancel = &flag;
    struct stats_signif unset = signif_of(x, y, 40, &o, ws);
    assert_true(same_coef(&none.pearson, &unset.pearson));
    assert_true(same_coef(&none.spearman, &unset.spearman));
    assert_true(same_coef(&none.dcor_v, &unset.dcor_v));
    assert_true(same_coef(&none.mi_linfoot, &unset.mi_linfoot));
    stats_ws_free(ws);
}

/* ---- statuses ----------------------------------------------------------------- */

static void signif_rejects_bad_options_and_inputs(void **state)
{
    double x[12], y[12];
    struct stats_signif s;
    struct stats_ws *ws = stats_ws_new(12), *small = stats_ws_new(8);
    const struct stats_signif_stat nofn = {"nofn", NULL, NULL, 0.0};
    struct stats_signif_opts o;
    struct error err = {0};

    (void)state;
    assert_non_null(ws);
    assert_non_null(small);
    testutil_rng_seed(UINT64_C(0x5EED000A));
    bivariate(0.4, 12, x, y);
#define BAD(field, value)                                                                \
    do {                                                                                 \
        o = opts_of(stats_methods_available(), 10, 9, 9);                                \
        o.field = value;                                                                 \
        assert_int_equal(stats_signif_compute(x, y, 12, &o, ws, &s, NULL),               \
                         STATUS_INVALID);                                                \
    } while (0)
    BAD(level, 1.0);
    BAD(level, 0.0);
    BAD(level, NAN);
    BAD(floor_q, 1.5);
    BAD(n_perm, STATS_SIGNIF_B_MAX + 1);
    BAD(n_boot, STATS_SIGNIF_B_MAX + 1);
    BAD(n_extra, STATS_SIGNIF_EXTRA_MAX + 1);
    BAD(n_extra, 1); /* extra NULL */
    BAD(assoc.methods, 1u << 9);
#undef BAD
    o = opts_of(stats_methods_available(), 10, 9, 9);
    o.extra = &nofn;
    o.n_extra = 1;
    assert_int_equal(stats_signif_compute(x, y, 12, &o, ws, &s, NULL), STATUS_INVALID);
    o.n_extra = 0;
    assert_int_equal(stats_signif_compute(x, y, 12, &o, small, &s, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "workspace"));
    assert_int_equal(stats_signif_compute(x, y, 12, &o, NULL, &s, NULL), STATUS_INVALID);
    assert_int_equal(stats_signif_compute(x, y, 12, NULL, ws, &s, NULL), STATUS_INVALID);
    assert_int_equal(stats_signif_compute(x, y, 12, &o, ws, NULL, NULL), STATUS_INVALID);
    assert_int_equal(stats_signif_compute(NULL, y, 12, &o, ws, &s, NULL), STATUS_INVALID);
    y[4] = INFINITY;
    assert_int_equal(stats_signif_compute(x, y, 12, &o, ws, &s, NULL), STATUS_INVALID);
    assert_true(isnan(s.pearson.p_value));
    stats_ws_free(ws);
    stats_ws_free(small);
}

static void defaults_are_method_md_s(void **state)
{
    const struct stats_signif_opts o = stats_signif_opts_default();

    (void)state;
    assert_int_equal(o.n_perm, 999);
    assert_int_equal(o.n_boot, 2000);
    assert_rel(o.level, 0.95, 0.0);
    assert_rel(o.floor_q, 0.95, 0.0);
    assert_true(o.seed == UINT64_C(20240601) && o.assoc.seed == STATS_DEFAULT_SEED);
    assert_int_equal(o.assoc.methods, stats_methods_available());
    assert_int_equal(o.assoc.d_min, 10);
    assert_int_equal(o.n_extra, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jackknife_matches_leaving_each_job_out),
        cmocka_unit_test(jackknife_rejects_short_constant_and_missing_inputs),
        cmocka_unit_test(p_values_at_d7_match_all_5040_permutations),
        cmocka_unit_test(p_value_and_floor_replay_the_seeded_shuffles),
        cmocka_unit_test(null_p_values_are_uniform),
        cmocka_unit_test(bca_covers_rho_0_6_about_95_percent),
        cmocka_unit_test(bca_matches_scipy_bootstrap),
        cmocka_unit_test(dcor_and_mi_get_no_interval),
        cmocka_unit_test(same_seed_gives_identical_results),
        cmocka_unit_test(undefined_coefficients_get_no_p_value_and_keep_their_reason),
        cmocka_unit_test(extra_statistic_shares_the_permutations),
        cmocka_unit_test(a_set_cancel_flag_stops_the_permutations),
        cmocka_unit_test(an_unset_cancel_flag_changes_nothing),
        cmocka_unit_test(signif_rejects_bad_options_and_inputs),
        cmocka_unit_test(defaults_are_method_md_s),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
