/* test_rf.c: the random forest (METHOD.md §5 `rf`) against scikit-learn's
 * RandomForestRegressor (tests/oracles/rf_ref.py), properties with exact answers,
 * and every status and reason stats_rf_compute gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ORACLE    "tests/oracles/rf_ref.py"
#define NC        STATS_RF_CURVE
#define SEEDS     5 /* METHOD.md: scikit-learn's mean over 5 seeds */
#define SEEDS_MAX 20
#define D_MAX     4000
/* METHOD.md §5, "Accuracy": our OOB R² within 0.02 of scikit-learn's mean over 5
 * seeds; and the acceptance bound on the curve: its RMSE against the truth at most
 * 1.1 times sklearn's */
#define TOL_OOB    0.02
#define RMSE_RATIO 1.1
#define AMP        2.385

static double xs[D_MAX], ys[D_MAX];

/* ---- helpers ------------------------------------------------------------------ */

static void fit(size_t d, const double *x_eval, size_t n_eval,
                const struct stats_rf_opts *opts, struct stats_rf *out, double *fit_eval)
{
    struct stats_rf_ws *ws = stats_rf_ws_new(d);
    struct error err = {0};

    assert_non_null(ws);
    if (stats_rf_compute(xs, ys, d, x_eval, n_eval, opts, ws, out, fit_eval, &err) !=
        STATUS_OK)
        fail_msg("stats_rf_compute: %s", err.msg);
    stats_rf_ws_free(ws);
}

/* y = AMP·sin(x) + N(0, sd²), x uniform on [0, 4π). */
static void make_sine(size_t d, double sd, uint64_t seed)
{
    testutil_rng_seed(seed);
    for (size_t i = 0; i < d; i++) {
        xs[i] = 4.0 * M_PI * testutil_uniform();
        ys[i] = AMP * sin(xs[i]) + sd * testutil_normal();
    }
}

struct ref {
    int seeds; /* sklearn's forests, random_state 1 .. seeds */
    double x_curve[NC];
    double oob_r2[SEEDS_MAX], leaves[SEEDS_MAX];
    double fit[SEEDS_MAX][NC];
};

/* Runs rf_ref.py with args on xs, ys [0, d) into *r, with seeds forests (fits only
 * without --curve-only). */
static void run_oracle(size_t d, const char *args, int seeds, struct ref *r)
{
    char path[] = "/tmp/iocontend-rf-XXXXXX", cmd[2048], script[1024];
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
    assert_true(seeds >= 1 && seeds <= SEEDS_MAX);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --seeds %d %s '%s'", testutil_oracle_python(),
             script, seeds, args, path);
    text = testutil_run(cmd, &rc);
    unlink(path);
    if (text == NULL || rc != 0)
        fail_msg("oracle failed (%d): %s", rc, cmd);
    memset(r, 0, sizeof *r);
    r->seeds = seeds;
    assert_true(testutil_values(text, "x_curve", r->x_curve, NC));
    if (strstr(args, "--curve-only") == NULL) {
        assert_true(testutil_values(text, "oob_r2", r->oob_r2, (size_t)seeds));
        assert_true(testutil_values(text, "leaves", r->leaves, (size_t)seeds));
        for (int s = 0; s < seeds; s++) {
            char name[16];
            snprintf(name, sizeof name, "fit_%d", s + 1);
            assert_true(testutil_values(text, name, r->fit[s], NC));
        }
    }
    free(text);
}

static double mean_of(const double *v, size_t n)
{
    double s = 0.0;

    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s / (double)n;
}

/* RMSE of fit against AMP·sin at the curve's x. */
static double rmse_sine(const double *x, const double *f)
{
    double s = 0.0;

    for (size_t i = 0; i < NC; i++) {
        const double e = f[i] - AMP * sin(x[i]);
        s += e * e;
    }
    return sqrt(s / NC);
}

/* Ours against sklearn on xs, ys [0, d): OOB R² (ours the mean over our_seeds seeds,
 * sklearn's over its seeds), the curve points, the leaves per tree (fully grown: the
 * distinct x drawn, less pure runs; within 1 %) and, when sine, the RMSE of our
 * curve (the last seed) against the truth. */
static void compare_with_sklearn(size_t d, bool sine, size_t our_seeds, int seeds)
{
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf rf;
    struct ref r;
    double oob = 0.0;

    for (size_t s = 0; s < our_seeds; s++) {
        o.seed = STATS_DEFAULT_SEED + s;
        fit(d, NULL, 0, &o, &rf, NULL);
        assert_int_equal(rf.reason, REASON_NONE);
        oob += rf.oob_r2 / (double)our_seeds;
    }
    run_oracle(d, "", seeds, &r);
    const double oob_ref = mean_of(r.oob_r2, (size_t)seeds);
    double lo = r.oob_r2[0], hi = r.oob_r2[0];
    for (int s = 1; s < seeds; s++) {
        lo = fmin(lo, r.oob_r2[s]);
        hi = fmax(hi, r.oob_r2[s]);
    }
    const double leaves_ref = mean_of(r.leaves, (size_t)seeds);
    print_message("d = %zu: oob_r2 ours %.4f (%zu seeds), sklearn %.4f (%d seeds, "
                  "%.4f .. %.4f); leaves ours %.1f, sklearn %.1f\n",
                  d, oob, our_seeds, oob_ref, seeds, lo, hi, rf.leaves_mean, leaves_ref);
    assert_rel(oob, oob_ref, TOL_OOB);
    assert_rel(rf.leaves_mean, leaves_ref, 0.01 * leaves_ref);
    for (size_t i = 0; i < NC; i++)
        assert_rel(rf.x_curve[i], r.x_curve[i], 0.0);
    if (!sine)
        return;
    double rmse_ref[SEEDS_MAX];
    for (int s = 0; s < seeds; s++)
        rmse_ref[s] = rmse_sine(r.x_curve, r.fit[s]);
    const double ours = rmse_sine(rf.x_curve, rf.fit_curve);
    print_message("curve RMSE against %.3f sin(x): ours %.4f, sklearn %.4f\n", AMP, ours,
                  mean_of(rmse_ref, (size_t)seeds));
    assert_true(ours <= RMSE_RATIO * mean_of(rmse_ref, (size_t)seeds));
}

/* ---- against scikit-learn ------------------------------------------------------ */

/* METHOD.md's acceptance test: y = 2.385 sin(x) + noise, d = 2000. */
static void noisy_sine_matches_scikit_learn(void **state)
{
    (void)state;
    make_sine(2000, 1.0, 20240601);
    compare_with_sklearn(2000, true, 1, SEEDS);
}

/* Little noise: the forest follows the curve closely, R² near 1. */
static void a_nearly_clean_sine_matches_scikit_learn(void **state)
{
    (void)state;
    make_sine(1000, 0.2385, 7);
    compare_with_sklearn(1000, true, 1, SEEDS);
}

/* T^D is a multiple of Δ: many jobs share one x. */
static void tied_x_matches_scikit_learn(void **state)
{
    (void)state;
    testutil_rng_seed(11);
    for (size_t i = 0; i < 1500; i++) {
        const double m = floor(12.0 * testutil_uniform());
        xs[i] = 60.0 * m;
        ys[i] = 2.385e9 * (1.0 + 0.1 * m) * exp(0.3 * testutil_normal());
    }
    compare_with_sklearn(1500, false, 1, SEEDS);
}

/* Bytes against seconds, heavy tails, as a group of jobs has them. Here OOB R² hangs
 * on a few large y and moves by about 0.012 (sd) from seed to seed on both sides:
 * 5 seeds a side would leave the difference of the means an sd of 0.008, so 20 a
 * side (0.004; over 40 seeds each the means differed by 0.0035). */
static void lognormal_bytes_match_scikit_learn(void **state)
{
    (void)state;
    testutil_rng_seed(12);
    for (size_t i = 0; i < 1200; i++) {
        const double u = testutil_normal();
        xs[i] = exp(27.0 + 2.0 * u);
        ys[i] = 100.0 * exp(0.5 * u + 0.8 * testutil_normal());
    }
    compare_with_sklearn(1200, false, SEEDS_MAX, SEEDS_MAX);
}

/* numpy.linspace(numpy.percentile(x, 1), numpy.percentile(x, 99), 256), also for
 * x near 1e15 and with ties: numpy's very numbers (its virtual index, _lerp and
 * linspace's j·step + start, the last point the stop itself). */
static void curve_points_are_the_linspace_of_the_1st_to_99th_percentiles(void **state)
{
    static const size_t ds[] = {10, 11, 101, 2385};
    struct stats_rf rf;
    struct ref r;

    (void)state;
    testutil_rng_seed(13);
    for (size_t c = 0; c < sizeof ds / sizeof ds[0]; c++) {
        const size_t d = ds[c];
        for (size_t i = 0; i < d; i++) {
            xs[i] = c % 2 == 0 ? 1e15 + 2.385e3 * floor(100.0 * testutil_uniform())
                               : 2.385 * testutil_normal();
            ys[i] = testutil_normal();
        }
        fit(d, NULL, 0, NULL, &rf, NULL);
        run_oracle(d, "--curve-only", 1, &r);
        for (size_t i = 0; i < NC; i++)
            assert_rel(rf.x_curve[i], r.x_curve[i], 0.0);
    }
}

/* The caller's points go through a binary search, the curve through a merge walk:
 * at the same x they give the same numbers, and a training x goes left (x <= thr). */
static void caller_points_agree_with_the_curve(void **state)
{
    static double f[NC];
    struct stats_rf a, b;

    (void)state;
    make_sine(700, 1.0, 26);
    fit(700, NULL, 0, NULL, &a, NULL);
    fit(700, a.x_curve, NC, NULL, &b, f);
    assert_memory_equal(a.fit_curve, b.fit_curve, sizeof a.fit_curve);
    assert_memory_equal(f, a.fit_curve, sizeof f);
}

/* ---- properties with exact answers --------------------------------------------- */

/* A noise-free step: every tree splits at the step and stops (both sides pure), so
 * away from the step the fit is the level itself, and each tree has two leaves. */
static void a_step_function_is_fitted_exactly_away_from_the_step(void **state)
{
    const double lo = -1.7, hi = 2.385, step = 5.0;
    double x_eval[4] = {0.1, 4.0, 6.0, 9.9}, f[4];
    struct stats_rf rf;

    (void)state;
    testutil_rng_seed(14);
    for (size_t i = 0; i < 500; i++) {
        xs[i] = 10.0 * testutil_uniform();
        ys[i] = xs[i] < step ? lo : hi;
    }
    fit(500, x_eval, 4, NULL, &rf, f);
    assert_int_equal(rf.reason, REASON_NONE);
    assert_rel(rf.leaves_mean, 2.0, 0.0);
    assert_rel(f[0], lo, 1e-14);
    assert_rel(f[1], lo, 1e-14);
    assert_rel(f[2], hi, 1e-14);
    assert_rel(f[3], hi, 1e-14);
    /* Out of bag, the jobs next to the step fall on the wrong side in about half of
     * their trees (the threshold is the midpoint of the drawn neighbours): a few
     * jobs, each at most (hi − lo)² of Σ(y − ȳ)² ≈ 500·(hi − lo)²/4. */
    assert_true(rf.oob_r2 > 0.97 && rf.oob_r2 < 1.0);
    /* A tree's threshold lies between its drawn neighbours across the step: 0.5 away
     * means 25 jobs left out together, 0.37^25 per tree. */
    for (size_t i = 0; i < NC; i++) {
        if (rf.x_curve[i] < step - 0.5)
            assert_rel(rf.fit_curve[i], lo, 1e-14);
        else if (rf.x_curve[i] > step + 0.5)
            assert_rel(rf.fit_curve[i], hi, 1e-14);
    }
}

/* Three levels, the middle one the highest: still one leaf per level (the best split
 * of a step function lies on a step), the levels exact away from the steps. */
static void three_levels_give_three_leaves(void **state)
{
    double x_eval[3] = {1.0, 5.0, 9.0}, f[3];
    const double level[3] = {0.5, 2.385, -1.0};
    struct stats_rf rf;

    (void)state;
    testutil_rng_seed(15);
    for (size_t i = 0; i < 600; i++) {
        xs[i] = 10.0 * testutil_uniform();
        ys[i] = level[xs[i] < 3.0 ? 0 : xs[i] < 7.0 ? 1 : 2];
    }
    fit(600, x_eval, 3, NULL, &rf, f);
    assert_rel(rf.leaves_mean, 3.0, 0.0);
    for (size_t i = 0; i < 3; i++)
        assert_rel(f[i], level[i], 1e-14);
}

/* Splits depend only on the order of x: x = 1e15 + 2.385e3·i (exact doubles) gives
 * the very numbers x = i gives, at matching points; the jobs' order does not matter
 * either. */
static void a_huge_x_offset_changes_nothing(void **state)
{
    enum { D = 1000, NE = 40 };
    static double x0[D], y0[D];
    double e0[NE], e1[NE], f0[NE], f1[NE];
    struct stats_rf a, b;

    (void)state;
    testutil_rng_seed(16);
    for (size_t i = 0; i < D; i++) {
        x0[i] = (double)i;
        y0[i] = AMP * sin(0.02 * (double)i) + testutil_normal();
    }
    /* shuffle the jobs of the second copy */
    for (size_t i = 0; i < D; i++) {
        xs[i] = x0[i];
        ys[i] = y0[i];
    }
    for (size_t i = D - 1; i > 0; i--) {
        const size_t j = (size_t)(testutil_uniform() * (double)(i + 1));
        double t = xs[i];
        xs[i] = xs[j];
        xs[j] = t;
        t = ys[i];
        ys[i] = ys[j];
        ys[j] = t;
    }
    for (size_t i = 0; i < NE; i++) {
        e0[i] = (double)(25 * i);
        e1[i] = 1e15 + 2.385e3 * e0[i];
    }
    fit(D, e0, NE, NULL, &a, f0);
    for (size_t i = 0; i < D; i++) {
        xs[i] = 1e15 + 2.385e3 * xs[i];
    }
    fit(D, e1, NE, NULL, &b, f1);
    assert_true(a.oob_r2 == b.oob_r2);
    assert_int_equal(a.n_oob, b.n_oob);
    assert_true(a.leaves_mean == b.leaves_mean);
    assert_memory_equal(f0, f1, sizeof f0);
    /* the unshuffled copy is the same forest: no ties in x, and everything, the
     * draws included, goes by the sorted jobs */
    memcpy(xs, x0, sizeof x0);
    memcpy(ys, y0, sizeof y0);
    fit(D, e0, NE, NULL, &b, f1);
    assert_true(a.oob_r2 == b.oob_r2);
    assert_memory_equal(f0, f1, sizeof f0);
}

/* y near 1e15 with a spread of 1: the splits see the spread (every node sums from
 * its own mean), so the forest is the one of y − 1e15 but for rounding. The y are
 * multiples of 1/8 (exact both near 0 and near 1e15), so some splits tie exactly in
 * gain, and rounding may break a tie one way here and the other way there: a few
 * leaves move, nothing more. Raw sums (Σw·y² − (Σw·y)²/Σw) would see noise. */
static void a_huge_y_offset_changes_nothing_but_rounding(void **state)
{
    enum { D = 800, NE = 16 };
    static double y_small[D];
    double e[NE], f0[NE], f1[NE], worst = 0.0;
    struct stats_rf a, b;

    (void)state;
    testutil_rng_seed(17);
    for (size_t i = 0; i < D; i++) {
        xs[i] = 4.0 * M_PI * testutil_uniform();
        ys[i] = 1e15 + round(8.0 * (AMP * sin(xs[i]) + testutil_normal())) / 8.0;
        y_small[i] = ys[i] - 1e15;
    }
    for (size_t i = 0; i < NE; i++)
        e[i] = 4.0 * M_PI * ((double)i + 0.5) / NE;
    fit(D, e, NE, NULL, &b, f1);
    memcpy(ys, y_small, sizeof y_small);
    fit(D, e, NE, NULL, &a, f0);
    for (size_t i = 0; i < NE; i++)
        worst = fmax(worst, fabs(f1[i] - 1e15 - f0[i]));
    print_message("y + 1e15: oob_r2 %.9f against %.9f, leaves %.2f against %.2f, fits "
                  "apart by %.3g at most\n",
                  b.oob_r2, a.oob_r2, b.leaves_mean, a.leaves_mean, worst);
    assert_true(a.oob_r2 > 0.5);
    assert_rel(b.oob_r2, a.oob_r2, 1e-4);
    assert_rel(b.leaves_mean, a.leaves_mean, 1e-3 * a.leaves_mean);
    for (size_t i = 0; i < NE; i++)
        assert_rel(f1[i] - 1e15, f0[i], 0.1); /* half an ulp of 1e15 is 0.0625 */
}

/* y of 1e-12 beside y of 1e6: the small ones keep their digits (a global centring
 * would round them to one value) and the forest follows their curve as it would
 * alone. */
static void tiny_y_beside_huge_y_keep_their_digits(void **state)
{
    enum { D = 2000, NE = 64 };
    double e[NE], f[NE], ss = 0.0;
    struct stats_rf rf;

    (void)state;
    testutil_rng_seed(27);
    for (size_t i = 0; i < D; i++) {
        xs[i] = 10.0 * testutil_uniform();
        const double t = AMP * sin(4.0 * xs[i]) + 0.2 * testutil_normal();
        ys[i] = xs[i] < 5.0 ? 1e-12 * t : 1e6 + t;
    }
    for (size_t i = 0; i < NE; i++)
        e[i] = 0.3 + 4.4 * (double)i / (NE - 1);
    fit(D, e, NE, NULL, &rf, f);
    for (size_t i = 0; i < NE; i++) {
        const double err = f[i] / 1e-12 - AMP * sin(4.0 * e[i]);
        ss += err * err;
    }
    print_message("y of 1e-12 beside 1e6: RMSE %.3g e-12 against the curve\n",
                  sqrt(ss / NE));
    assert_true(sqrt(ss / NE) < 0.3); /* the noise's sd is 0.2 */
}

static void same_seed_same_forest_other_seed_other_forest(void **state)
{
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf a, b, c;
    double x_eval[2] = {1.0, 7.0}, fa[2], fb[2], fc[2];

    (void)state;
    make_sine(300, 1.0, 18);
    memset(&a, 0, sizeof a);
    memset(&b, 0xff, sizeof b);
    fit(300, x_eval, 2, &o, &a, fa);
    fit(300, x_eval, 2, &o, &b, fb);
    assert_true(a.oob_r2 == b.oob_r2);
    assert_memory_equal(a.x_curve, b.x_curve, sizeof a.x_curve);
    assert_memory_equal(a.fit_curve, b.fit_curve, sizeof a.fit_curve);
    assert_memory_equal(fa, fb, sizeof fa);
    assert_true(a.seed == STATS_DEFAULT_SEED);
    o.seed = 2385;
    fit(300, x_eval, 2, &o, &c, fc);
    assert_true(c.seed == 2385);
    assert_true(c.oob_r2 != a.oob_r2);
    assert_memory_not_equal(a.fit_curve, c.fit_curve, sizeof a.fit_curve);
    assert_memory_equal(a.x_curve, c.x_curve, sizeof a.x_curve);
}

static void fits_lie_within_the_range_of_y(void **state)
{
    double x_eval[6] = {-1e300, -1.0, 0.0, 0.5, 1e3, 1e300}, f[6];
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf rf;

    (void)state;
    for (int c = 0; c < 4; c++) {
        const size_t d = c == 0 ? 10 : 700;
        testutil_rng_seed(19 + (uint64_t)c);
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < d; i++) {
            const double u = testutil_normal();
            switch (c) {
            case 0:
                xs[i] = u;
                ys[i] = 0.1 * (double)i;
                break;
            case 1: /* heavy tails */
                xs[i] = exp(3.0 * u);
                ys[i] = exp(4.0 * testutil_normal());
                break;
            case 2: /* two values of y, ties in x */
                xs[i] = floor(4.0 * testutil_uniform());
                ys[i] = testutil_uniform() < 0.3 ? 0.1 : 0.7;
                break;
            default: /* y at the edge of rounding: 1 + a few ulps */
                xs[i] = u;
                ys[i] = 1.0 + (double)(i % 3) * 0x1p-52;
                break;
            }
            lo = fmin(lo, ys[i]);
            hi = fmax(hi, ys[i]);
        }
        o.n_trees = c == 0 ? 1 : 100;
        fit(d, x_eval, 6, &o, &rf, f);
        assert_int_equal(rf.reason, REASON_NONE);
        for (size_t i = 0; i < NC; i++) {
            assert_true(rf.fit_curve[i] >= lo);
            assert_true(rf.fit_curve[i] <= hi);
        }
        for (size_t i = 0; i < 6; i++) {
            assert_true(f[i] >= lo);
            assert_true(f[i] <= hi);
        }
        assert_true(rf.oob_r2 <= 1.0);
    }
}

/* One tree: R² over the jobs it left out (about 1/e of them). */
static void one_tree_scores_the_jobs_it_left_out(void **state)
{
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf rf;

    (void)state;
    make_sine(2000, 1.0, 21);
    o.n_trees = 1;
    fit(2000, NULL, 0, &o, &rf, NULL);
    assert_int_equal(rf.trees, 1);
    assert_true(rf.n_oob > 600 && rf.n_oob < 870); /* 2000/e = 736 */
    assert_true(isfinite(rf.oob_r2));
}

static void a_reused_workspace_gives_the_same_result(void **state)
{
    struct stats_rf_ws *ws = stats_rf_ws_new(3000);
    struct stats_rf a, b, c;
    struct error err = {0};

    (void)state;
    assert_non_null(ws);
    make_sine(2000, 1.0, 22);
    assert_int_equal(stats_rf_compute(xs, ys, 2000, NULL, 0, NULL, ws, &a, NULL, &err),
                     STATUS_OK);
    assert_int_equal(stats_rf_compute(xs, ys, 30, NULL, 0, NULL, ws, &b, NULL, &err),
                     STATUS_OK);
    assert_int_equal(stats_rf_compute(xs, ys, 2000, NULL, 0, NULL, ws, &c, NULL, &err),
                     STATUS_OK);
    assert_true(a.oob_r2 == c.oob_r2);
    assert_memory_equal(a.fit_curve, c.fit_curve, sizeof a.fit_curve);
    assert_int_equal(b.d, 30);
    stats_rf_ws_free(ws);
}

/* ---- reasons and statuses ------------------------------------------------------ */

static void assert_all_nan(const struct stats_rf *rf, const double *f, size_t n)
{
    assert_true(isnan(rf->oob_r2));
    assert_int_equal(rf->n_oob, 0);
    for (size_t i = 0; i < NC; i++) {
        assert_true(isnan(rf->x_curve[i]));
        assert_true(isnan(rf->fit_curve[i]));
    }
    for (size_t i = 0; i < n; i++)
        assert_true(isnan(f[i]));
}

static void fewer_jobs_than_d_min_is_a_reason(void **state)
{
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf rf;
    double x_eval = 1.0, f = 0.0;

    (void)state;
    make_sine(20, 1.0, 23);
    for (size_t d = 0; d <= 9; d++) {
        fit(d, &x_eval, 1, NULL, &rf, &f);
        assert_int_equal(rf.reason, REASON_D_BELOW_MIN);
        assert_int_equal(rf.d, d);
        assert_all_nan(&rf, &f, 1);
    }
    fit(10, &x_eval, 1, NULL, &rf, &f);
    assert_int_equal(rf.reason, REASON_NONE);
    assert_true(isfinite(f));
    o.d_min = 15;
    fit(14, &x_eval, 1, &o, &rf, &f);
    assert_int_equal(rf.reason, REASON_D_BELOW_MIN);
    o.d_min = 0; /* below 2 jobs nothing splits, whatever d_min says */
    fit(1, &x_eval, 1, &o, &rf, &f);
    assert_int_equal(rf.reason, REASON_D_BELOW_MIN);
    fit(2, &x_eval, 1, &o, &rf, &f);
    assert_int_equal(rf.reason, REASON_NONE);
}

static void a_constant_series_is_a_reason(void **state)
{
    struct stats_rf rf;
    double x_eval[2] = {0.0, 3.0}, f[2];

    (void)state;
    make_sine(50, 1.0, 24);
    for (size_t i = 0; i < 50; i++)
        xs[i] = 2.385e12;
    fit(50, x_eval, 2, NULL, &rf, f);
    assert_int_equal(rf.reason, REASON_CONSTANT_X);
    assert_string_equal(stats_reason_name(rf.reason), "constant_x");
    assert_all_nan(&rf, f, 2);
    for (size_t i = 0; i < 50; i++)
        ys[i] = 2.385;
    fit(50, x_eval, 2, NULL, &rf, f);
    assert_int_equal(rf.reason, REASON_CONSTANT_X); /* x wins */
    make_sine(50, 1.0, 24);
    for (size_t i = 0; i < 50; i++)
        ys[i] = 2.385;
    fit(50, x_eval, 2, NULL, &rf, f);
    assert_int_equal(rf.reason, REASON_CONSTANT_Y);
    assert_all_nan(&rf, f, 2);
}

static void bad_arguments_are_invalid(void **state)
{
    struct stats_rf_ws *ws = stats_rf_ws_new(100);
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf rf;
    struct error err = {0};
    double x_eval[2] = {1.0, 2.0}, f[2];

    (void)state;
    assert_non_null(ws);
    make_sine(101, 1.0, 25);
    assert_int_equal(stats_rf_compute(NULL, ys, 50, NULL, 0, NULL, ws, &rf, NULL, &err),
                     STATUS_INVALID);
    assert_int_equal(err.code, STATUS_INVALID);
    assert_int_equal(stats_rf_compute(xs, NULL, 50, NULL, 0, NULL, ws, &rf, NULL, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 0, NULL, NULL, &rf, NULL, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 0, NULL, ws, NULL, NULL, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 2, NULL, ws, &rf, f, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_rf_compute(xs, ys, 50, x_eval, 2, NULL, ws, &rf, NULL, NULL),
                     STATUS_INVALID);
    /* too many jobs for the workspace */
    error_clear(&err);
    assert_int_equal(stats_rf_compute(xs, ys, 101, NULL, 0, NULL, ws, &rf, NULL, &err),
                     STATUS_INVALID);
    assert_non_null(strstr(err.msg, "workspace"));
    o.n_trees = 0;
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 0, &o, ws, &rf, NULL, NULL),
                     STATUS_INVALID);
    o.n_trees = STATS_RF_TREES_MAX + 1;
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 0, &o, ws, &rf, NULL, NULL),
                     STATUS_INVALID);
    /* values not finite */
    xs[7] = NAN;
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 0, NULL, ws, &rf, NULL, NULL),
                     STATUS_INVALID);
    xs[7] = 1.0;
    ys[3] = INFINITY;
    assert_int_equal(stats_rf_compute(xs, ys, 50, NULL, 0, NULL, ws, &rf, NULL, NULL),
                     STATUS_INVALID);
    ys[3] = 1.0;
    x_eval[1] = -INFINITY;
    assert_int_equal(stats_rf_compute(xs, ys, 50, x_eval, 2, NULL, ws, &rf, f, NULL),
                     STATUS_INVALID);
    x_eval[1] = 2.0;
    assert_int_equal(stats_rf_compute(xs, ys, 50, x_eval, 2, NULL, ws, &rf, f, NULL),
                     STATUS_OK);
    stats_rf_ws_free(ws);
    stats_rf_ws_free(NULL);
    if (SIZE_MAX > UINT32_MAX)
        assert_null(stats_rf_ws_new((size_t)UINT32_MAX + 1));
}

/* ---- cancellation ------------------------------------------------------------- */

/* Sets the flag after a short while, as the daemon's watcher does at a deadline. */
static void *cancel_soon(void *arg)
{
    struct timespec ts = {0, 20L * 1000 * 1000};

    nanosleep(&ts, NULL);
    atomic_store((atomic_bool *)arg, true);
    return NULL;
}

static void a_set_cancel_flag_stops_the_trees(void **state)
{
    atomic_bool flag = true;
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf rf;
    struct error err = {0};
    struct stats_rf_ws *ws = stats_rf_ws_new(D_MAX);
    pthread_t t;

    (void)state;
    assert_non_null(ws);
    make_sine(D_MAX, 0.5, 24);
    o.cancel = &flag;
    /* Set before the call: no tree is grown. */
    assert_int_equal(stats_rf_compute(xs, ys, D_MAX, NULL, 0, &o, ws, &rf, NULL, &err),
                     STATUS_CANCELLED);
    assert_non_null(strstr(err.msg, "after 0 of 100 trees"));
    /* Set by another thread while the most trees one call grows are being grown (a
     * minute of work): the call returns cancelled. */
    atomic_store(&flag, false);
    error_clear(&err);
    o.n_trees = STATS_RF_TREES_MAX;
    assert_int_equal(pthread_create(&t, NULL, cancel_soon, &flag), 0);
    enum status rc = stats_rf_compute(xs, ys, D_MAX, NULL, 0, &o, ws, &rf, NULL, &err);
    pthread_join(t, NULL);
    assert_int_equal(rc, STATUS_CANCELLED);
    assert_non_null(strstr(err.msg, "of 100000 trees"));
    stats_rf_ws_free(ws);
}

static void an_unset_cancel_flag_grows_the_same_forest(void **state)
{
    atomic_bool flag = false;
    struct stats_rf_opts o = stats_rf_opts_default();
    struct stats_rf a, b;

    (void)state;
    make_sine(500, 0.5, 25);
    fit(500, NULL, 0, &o, &a, NULL);
    o.cancel = &flag;
    fit(500, NULL, 0, &o, &b, NULL);
    assert_rel(b.oob_r2, a.oob_r2, 0.0);
    assert_rel(b.leaves_mean, a.leaves_mean, 0.0);
    assert_memory_equal(b.fit_curve, a.fit_curve, sizeof a.fit_curve);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(noisy_sine_matches_scikit_learn),
        cmocka_unit_test(a_nearly_clean_sine_matches_scikit_learn),
        cmocka_unit_test(tied_x_matches_scikit_learn),
        cmocka_unit_test(lognormal_bytes_match_scikit_learn),
        cmocka_unit_test(curve_points_are_the_linspace_of_the_1st_to_99th_percentiles),
        cmocka_unit_test(caller_points_agree_with_the_curve),
        cmocka_unit_test(a_step_function_is_fitted_exactly_away_from_the_step),
        cmocka_unit_test(three_levels_give_three_leaves),
        cmocka_unit_test(a_huge_x_offset_changes_nothing),
        cmocka_unit_test(a_huge_y_offset_changes_nothing_but_rounding),
        cmocka_unit_test(tiny_y_beside_huge_y_keep_their_digits),
        cmocka_unit_test(same_seed_same_forest_other_seed_other_forest),
        cmocka_unit_test(fits_lie_within_the_range_of_y),
        cmocka_unit_test(one_tree_scores_the_jobs_it_left_out),
        cmocka_unit_test(a_reused_workspace_gives_the_same_result),
        cmocka_unit_test(fewer_jobs_than_d_min_is_a_reason),
        cmocka_unit_test(a_constant_series_is_a_reason),
        cmocka_unit_test(a_set_cancel_flag_stops_the_trees),
        cmocka_unit_test(an_unset_cancel_flag_grows_the_same_forest),
        cmocka_unit_test(bad_arguments_are_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
