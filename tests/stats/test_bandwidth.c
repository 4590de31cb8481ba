/* test_bandwidth.c: the Sheather–Jones plug-in bandwidth (stats_bw_sj) against an
 * exact O(d²) implementation of the paper's formulas (tests/oracles/bw_ref.py), its
 * invariances, its agreement with the normal reference on normal data, and its use
 * by stats_kde_compute with bandwidth=plugin. */
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
#include <time.h>

#define ORACLE "tests/oracles/bw_ref.py"
#define D_MAX  100000
/* Binned against exact functionals: the binning error is of order (Δ/g)², Δ the bin
 * width (range/4095) and g the smallest pilot, so it grows with the range in units of
 * the bandwidth. Seen (4096 bins): normal and bimodal <= 1.6e-6, lognormal in linear
 * units (range ~ 20 sd) 1.4e-5 at d = 200 and 7e-5 at d = 1000; 16384 bins divide
 * each by about 16, as (Δ/g)² says (R's rounded constants alone move h by 1e-4 to
 * 4e-4, R's own binning by about 1e-3). */
#define TOL_ORACLE     1e-5 /* normal, bimodal */
#define TOL_ORACLE_LOG 1e-4 /* lognormal, linear units */
enum shape { NORMAL, BIMODAL, LOGNORMAL };

static const char *const shape_name[] = {"normal", "bimodal", "lognormal"};

static double vs[D_MAX], ws_buf[D_MAX];

static void sample(enum shape s, size_t d, uint64_t seed, double *v)
{
    testutil_rng_seed(seed);
    for (size_t i = 0; i < d; i++) {
        const double z = testutil_normal();
        switch (s) {
        case NORMAL: v[i] = 3.0 + 2.0 * z; break;
        case BIMODAL:
            v[i] = testutil_uniform() < 0.4 ? -2.0 + 0.6 * z : 2.5 + 1.0 * z;
            break;
        case LOGNORMAL: v[i] = exp(z); break;
        }
    }
}

static double sj(const double *v, size_t d)
{
    struct stats_bw_ws *ws = stats_bw_ws_new(d);
    struct error err = {0};
    double h = NAN;

    assert_non_null(ws);
    assert_int_equal(stats_bw_sj(v, d, ws, &h, &err), STATUS_OK);
    stats_bw_ws_free(ws);
    return h;
}

static double sd_of(const double *v, size_t d)
{
    double m = 0.0, s = 0.0;

    for (size_t i = 0; i < d; i++)
        m += v[i];
    m /= (double)d;
    for (size_t i = 0; i < d; i++)
        s += (v[i] - m) * (v[i] - m);
    return sqrt(s / (double)(d - 1));
}

/* ---- against the exact sums ------------------------------------------------------ */

static void oracle_matches_the_exact_sums(void **state)
{
    static const size_t sizes[] = {50, 200, 1000};
    static double data[9][1000];
    const double *px[9];
    size_t d[9];
    double got[9];
    int rc = 0;
    (void)state;

    for (size_t s = 0; s < 3; s++) {
        for (size_t k = 0; k < 3; k++) {
            const size_t i = 3 * s + k;
            d[i] = sizes[k];
            sample((enum shape)s, d[i], 100 + i, data[i]);
            px[i] = data[i];
            got[i] = sj(data[i], d[i]);
        }
    }
    char *out = testutil_run_oracle(ORACLE, px, px, d, 9, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    const char *p = out;
    double worst = 0.0, worst_r = 0.0;
    for (size_t i = 0; i < 9; i++) {
        char *end;
        const double want = strtod(p, &end);
        assert_true(end != p);
        p = end;
        const double want_r = strtod(p, &end);
        assert_true(end != p);
        p = end;
        const double rel = fabs(got[i] - want) / want;
        const double rel_r = fabs(want_r - want) / want;
        printf("  %-9s d = %4zu: h = %.10g, exact %.10g, rel %.2e (R's rounded "
               "constants move it by %.2e)\n",
               shape_name[i / 3], d[i], got[i], want, rel, rel_r);
        worst = rel > worst ? rel : worst;
        worst_r = rel_r > worst_r ? rel_r : worst_r;
        assert_rel(got[i], want,
                   (i / 3 == LOGNORMAL ? TOL_ORACLE_LOG : TOL_ORACLE) * want);
    }
    printf("  worst relative difference %.2e (R's constants: %.2e)\n", worst, worst_r);
    free(out);
}

/* ---- properties ------------------------------------------------------------------ */

static void scale_and_translation(void **state)
{
    static const double scales[] = {1e-3, 7.5, 1e9};
    (void)state;

    for (size_t s = 0; s < 3; s++) {
        const size_t d = 2000;
        sample((enum shape)s, d, 7 + s, vs);
        const double h = sj(vs, d);
        for (size_t k = 0; k < 3; k++) {
            for (size_t i = 0; i < d; i++)
                ws_buf[i] = scales[k] * vs[i];
            assert_rel(sj(ws_buf, d), scales[k] * h, 1e-9 * scales[k] * h);
        }
        for (size_t i = 0; i < d; i++)
            ws_buf[i] = vs[i] + 1e3;
        assert_rel(sj(ws_buf, d), h, 1e-8 * h);
        for (size_t i = 0; i < d; i++)
            ws_buf[i] = -vs[i];
        assert_rel(sj(ws_buf, d), h, 1e-9 * h);
    }
}

/* For a normal sample the AMISE-optimal h is 1.06·σ·d^(−1/5) (σ known), and SJ
 * estimates it with a relative sd of order d^(−5/14) (about 15 % at d = 200; one
 * sample gave 0.75): single samples at large d, a mean of 20 at d = 200. */
static void normal_data_give_about_the_normal_reference(void **state)
{
    static const size_t sizes[] = {1000, 10000, 100000};
    double mean_ratio = 0.0;
    (void)state;

    for (size_t k = 0; k < 3; k++) {
        const size_t d = sizes[k];
        sample(NORMAL, d, 31 + k, vs);
        const double h = sj(vs, d);
        const double ref = 1.06 * sd_of(vs, d) * pow((double)d, -0.2);
        printf("  normal d = %6zu: h_SJ / (1.06·s·d^(-1/5)) = %.4f\n", d, h / ref);
        assert_rel(h, ref, 0.1 * ref);
    }
    for (size_t k = 0; k < 20; k++) {
        sample(NORMAL, 200, 1000 + k, vs);
        mean_ratio += sj(vs, 200) / (1.06 * sd_of(vs, 200) * pow(200.0, -0.2)) / 20.0;
    }
    printf("  normal d = 200, mean of 20 samples: %.4f\n", mean_ratio);
    assert_rel(mean_ratio, 1.0, 0.2);
    /* a bimodal sample needs a narrower kernel than the normal reference says */
    sample(BIMODAL, 5000, 41, vs);
    const double h = sj(vs, 5000);
    const double ref = 1.06 * sd_of(vs, 5000) * pow(5000.0, -0.2);
    printf("  bimodal d = 5000: h_SJ / normal reference = %.4f\n", h / ref);
    assert_true(h < 0.8 * ref);
}

static void timings(void **state)
{
    static const size_t sizes[] = {1000, 10000, 100000};
    struct stats_bw_ws *ws = stats_bw_ws_new(D_MAX);
    struct error err = {0};
    (void)state;

    assert_non_null(ws);
    for (size_t k = 0; k < 3; k++) {
        const size_t d = sizes[k];
        double h = NAN;
        struct timespec t0, t1;
        sample(LOGNORMAL, d, 51 + k, vs);
        for (size_t i = 0; i < d; i++)
            vs[i] = log(vs[i]);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(stats_bw_sj(vs, d, ws, &h, &err), STATUS_OK);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) +
                          1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("  d = %6zu: %.2f ms, h = %.6g\n", d, ms, h);
        assert_true(isfinite(h) && h > 0.0);
        /* generous: the machine is shared and this may run under sanitizers */
        assert_true(ms < 5000.0);
    }
    stats_bw_ws_free(ws);
}

/* ---- the KDE's bandwidth=plugin --------------------------------------------------- */

static void kde_plugin_uses_exactly_stats_bw_sj(void **state)
{
    static const enum stats_kde_space spaces[] = {KDE_SPACE_LINEAR, KDE_SPACE_LOG};
    const size_t d = 800;
    struct stats_kde_ws *kws = stats_kde_ws_new(d);
    struct stats_kde *k = malloc(sizeof *k);
    static double x[800], y[800], u[800], v[800];
    struct error err = {0};
    (void)state;

    assert_non_null(kws);
    assert_non_null(k);
    testutil_rng_seed(61);
    for (size_t i = 0; i < d; i++) {
        const double z = testutil_normal();
        x[i] = exp(1.5 * z);
        y[i] = exp(0.5 * z + 0.8 * testutil_normal());
    }
    for (size_t s = 0; s < 2; s++) {
        const struct stats_kde_opts opts = {.space = spaces[s],
                                            .kernel = KDE_KERNEL_PRODUCT,
                                            .d_min = 10,
                                            .no_density = false,
                                            .bandwidth = KDE_BW_PLUGIN};
        for (size_t i = 0; i < d; i++) {
            u[i] = spaces[s] == KDE_SPACE_LOG ? log(x[i]) : x[i];
            v[i] = spaces[s] == KDE_SPACE_LOG ? log(y[i]) : y[i];
        }
        assert_int_equal(stats_kde_compute(x, y, d, &opts, kws, k, &err), STATUS_OK);
        assert_int_equal(k->bandwidth, KDE_BW_PLUGIN);
        assert_string_equal(stats_kde_bandwidth_name(k->bandwidth), "plugin");
        assert_true(k->h_x == sj(u, d));
        assert_true(k->h_y == sj(v, d));
        /* the product kernel's conditional sd is h_y, and the grid spans ±3h */
        assert_true(k->sigma_c == k->h_y);
        double u_min = u[0];
        for (size_t i = 1; i < d; i++)
            u_min = u[i] < u_min ? u[i] : u_min;
        assert_rel(k->grid_x0, u_min - 3.0 * k->h_x, 1e-12 * fabs(u_min) + 1e-15);
        assert_true(isfinite(k->width_ratio));

        /* the default is still the normal reference, and says so */
        const struct stats_kde_opts normal = {.space = spaces[s], .d_min = 10};
        assert_int_equal(stats_kde_compute(x, y, d, &normal, kws, k, &err), STATUS_OK);
        assert_int_equal(k->bandwidth, KDE_BW_NORMAL);
        assert_string_equal(stats_kde_bandwidth_name(k->bandwidth), "normal");
        assert_rel(k->h_x, sd_of(u, d) * pow((double)d, -1.0 / 6.0), 1e-12 * k->h_x);
    }
    stats_kde_ws_free(kws);
    free(k);
}

static void kde_plugin_with_the_full_kernel_is_invalid(void **state)
{
    const size_t d = 100;
    struct stats_kde_ws *kws = stats_kde_ws_new(d);
    struct stats_kde *k = malloc(sizeof *k);
    struct error err = {0};
    (void)state;

    assert_non_null(kws);
    assert_non_null(k);
    sample(NORMAL, d, 71, vs);
    sample(BIMODAL, d, 72, ws_buf);
    const struct stats_kde_opts full = {.space = KDE_SPACE_LINEAR,
                                        .kernel = KDE_KERNEL_FULL,
                                        .d_min = 10,
                                        .bandwidth = KDE_BW_PLUGIN};
    assert_int_equal(stats_kde_compute(vs, ws_buf, d, &full, kws, k, &err),
                     STATUS_INVALID);
    assert_non_null(strstr(err.msg, "bandwidth=plugin needs kernel=product"));
    struct error err2 = {0};
    const struct stats_kde_opts unknown = {
        .space = KDE_SPACE_LINEAR, .d_min = 10, .bandwidth = (enum stats_kde_bandwidth)7};
    assert_int_equal(stats_kde_compute(vs, ws_buf, d, &unknown, kws, k, &err2),
                     STATUS_INVALID);
    assert_non_null(strstr(err2.msg, "unknown bandwidth"));
    stats_kde_ws_free(kws);
    free(k);
}

/* ---- statuses --------------------------------------------------------------------- */

static void bad_input_is_invalid(void **state)
{
    struct stats_bw_ws *ws = stats_bw_ws_new(10);
    double v[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    double h = 0.0;
    struct error err = {0};
    (void)state;

    assert_non_null(ws);
    assert_int_equal(stats_bw_sj(NULL, 10, ws, &h, &err), STATUS_INVALID);
    assert_int_equal(stats_bw_sj(v, 10, NULL, &h, NULL), STATUS_INVALID);
    assert_int_equal(stats_bw_sj(v, 10, ws, NULL, NULL), STATUS_INVALID);
    assert_int_equal(stats_bw_sj(v, 1, ws, &h, NULL), STATUS_INVALID);
    assert_true(isnan(h));
    assert_int_equal(stats_bw_sj(v, 11, ws, &h, NULL), STATUS_INVALID);
    v[3] = NAN;
    assert_int_equal(stats_bw_sj(v, 10, ws, &h, NULL), STATUS_INVALID);
    v[3] = INFINITY;
    assert_int_equal(stats_bw_sj(v, 10, ws, &h, NULL), STATUS_INVALID);
    for (size_t i = 0; i < 10; i++)
        v[i] = 4.0;
    struct error e2 = {0};
    assert_int_equal(stats_bw_sj(v, 10, ws, &h, &e2), STATUS_INVALID);
    assert_non_null(strstr(e2.msg, "constant"));
    /* a workspace is reusable and the result does not depend on its history */
    for (size_t i = 0; i < 10; i++)
        v[i] = (double)(i * i);
    double h1 = 0.0, h2 = 0.0;
    assert_int_equal(stats_bw_sj(v, 10, ws, &h1, NULL), STATUS_OK);
    assert_int_equal(stats_bw_sj(v, 10, ws, &h2, NULL), STATUS_OK);
    assert_true(h1 == h2);
    stats_bw_ws_free(ws);
    stats_bw_ws_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(oracle_matches_the_exact_sums),
        cmocka_unit_test(scale_and_translation),
        cmocka_unit_test(normal_data_give_about_the_normal_reference),
        cmocka_unit_test(timings),
        cmocka_unit_test(kde_plugin_uses_exactly_stats_bw_sj),
        cmocka_unit_test(kde_plugin_with_the_full_kernel_is_invalid),
        cmocka_unit_test(bad_input_is_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
