/* test_mi.c: KSG mutual information (METHOD.md §5) against an independent KSG on
 * scipy's cKDTree, and that reference against scikit-learn. */
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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ORACLE "tests/oracles/ksg_ref.py"
/* METHOD.md §5 "Accuracy": KSG to 1e-9, absolute, against an independent KSG on
 * tie-free data, where the jitter changes no neighbour. */
#define TOL 1e-9
/* With the jitter, up to d = 2000. At d = 20000 a jitter of 1e-10 is no longer
 * far below the gaps between distances: of the d² pairs, a few lie within 1e-10 of
 * an eps_i, and about one data set in three has a count moved by one, which moves
 * I by 1 / (n·d) <= 5e-5. */
#define TOL_JITTER_LARGE 1e-4
/* The reference against scikit-learn's mutual_info_regression, whose own jitter
 * and numpy's sd (not correctly rounded) may move a count. */
#define TOL_SKLEARN 1e-3
#define N_SIZES     4

#define D_MAX 20000

static const size_t sizes[N_SIZES] = {10, 170, 2000, D_MAX};
/* the samples' storage, static so that a test needs no allocation checks */
static double pool_x[N_SIZES][D_MAX], pool_y[N_SIZES][D_MAX];
static double max_error; /* largest |ours − reference| seen, for the log */

/* The oracle script from the working directory (the repo root under make test-run)
 * or the folders above it. NULL when not found. */
static const char *oracle_path(void)
{
    static char path[4096];
    char dir[2048];

    if (getcwd(dir, sizeof dir) == NULL)
        return NULL;
    for (;;) {
        snprintf(path, sizeof path, "%s/%s", dir, ORACLE);
        if (access(path, R_OK) == 0)
            return path;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return NULL;
        *slash = '\0';
    }
}

struct reference {
    double mi, linfoot; /* ksg_ref.py: cKDTree KSG, no jitter */
    double sklearn;     /* mutual_info_regression(n_neighbors=3, random_state=0) */
};

struct sample {
    double *x, *y;
    size_t d;
    const double *zx, *zy; /* the jitter's normal draws, for ksg_ref.py --jitter */
};

/* Runs the oracle once over n samples (one temporary file each); with the jitter's
 * draws when the first sample has them (then every sample must). */
static void run_oracle(const struct sample *s, size_t n, struct reference *ref)
{
    char files[N_SIZES][40];
    char cmd[8192];
    const char *py = getenv("ORACLE_PY");
    const char *script = oracle_path();
    int rc = -1;
    size_t len, got = 0;
    char *out, *line;

    assert_non_null(script);
    assert_true(n <= N_SIZES);
    len = (size_t)snprintf(cmd, sizeof cmd, "'%s' '%s'%s",
                           py != NULL && py[0] != '\0' ? py : "/usr/bin/python3", script,
                           s[0].zx != NULL ? " --jitter --no-sklearn" : "");
    for (size_t k = 0; k < n; k++) {
        strcpy(files[k], "/tmp/iocontend-ksg-XXXXXX");
        int fd = mkstemp(files[k]);
        assert_true(fd >= 0);
        FILE *fp = fdopen(fd, "w");
        assert_non_null(fp);
        for (size_t i = 0; i < s[k].d; i++) {
            fprintf(fp, "%.17g %.17g", s[k].x[i], s[k].y[i]);
            if (s[0].zx != NULL)
                fprintf(fp, " %.17g %.17g", s[k].zx[i], s[k].zy[i]);
            fputc('\n', fp);
        }
        assert_int_equal(fclose(fp), 0);
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, " '%s'", files[k]);
        assert_true(len < sizeof cmd);
    }
    out = testutil_run(cmd, &rc);
    for (size_t k = 0; k < n; k++)
        unlink(files[k]);
    assert_non_null(out);
    if (rc != 0)
        print_error("oracle: %s\n%s", cmd, out);
    assert_int_equal(rc, 0);
    /* lines "mi <I> linfoot <L> sklearn <I>" */
    for (line = strtok(out, "\n"); line != NULL && got < n; line = strtok(NULL, "\n")) {
        const char *names[] = {"mi ", " linfoot ", " sklearn "};
        double *slots[] = {&ref[got].mi, &ref[got].linfoot, &ref[got].sklearn};
        int found = 0;
        for (int k = 0; k < 3; k++) {
            const char *at = strstr(line, names[k]);
            char *end = NULL;
            if (at != NULL)
                *slots[k] = strtod(at + strlen(names[k]), &end);
            found += end != NULL && end != at + strlen(names[k]);
        }
        got += found == 3;
    }
    free(out);
    assert_int_equal(got, n);
}

/* mi_ksg_nats and mi_linfoot through stats_assoc_compute, METHOD_MI alone. */
static struct stats_assoc compute(const double *x, const double *y, size_t d,
                                  struct stats_ws *ws, uint64_t seed, bool jitter)
{
    struct stats_assoc a;
    const struct stats_assoc_opts opts = {METHOD_MI, 4, seed, jitter};

    assert_int_equal(stats_assoc_compute(x, y, d, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_NONE);
    assert_int_equal(a.mi_linfoot.reason, REASON_NONE);
    assert_int_equal(a.pearson.reason, REASON_NOT_COMPUTED);
    return a;
}

static void check_close(double got, double want, double tol)
{
    double e = fabs(got - want);

    if (e > max_error)
        max_error = e;
    assert_rel(got, want, tol);
}

/* Each size of a shape against the reference, with the jitter off and on; the
 * reference against scikit-learn. */
static void check_shape(void (*make)(size_t d, double *x, double *y), uint64_t seed)
{
    struct sample s[N_SIZES];
    struct reference ref[N_SIZES];
    struct stats_ws *ws = stats_ws_new(sizes[N_SIZES - 1]);

    assert_non_null(ws);
    testutil_rng_seed(seed);
    for (size_t k = 0; k < N_SIZES; k++) {
        s[k] = (struct sample){pool_x[k], pool_y[k], sizes[k], NULL, NULL};
        make(sizes[k], s[k].x, s[k].y);
    }
    run_oracle(s, N_SIZES, ref);
    for (size_t k = 0; k < N_SIZES; k++) {
        struct stats_assoc plain = compute(s[k].x, s[k].y, s[k].d, ws, 7, false);
        struct stats_assoc jittered =
            compute(s[k].x, s[k].y, s[k].d, ws, STATS_DEFAULT_SEED, true);
        check_close(plain.mi_ksg_nats.value, ref[k].mi, TOL);
        check_close(plain.mi_linfoot.value, ref[k].linfoot, TOL);
        if (s[k].d <= 2000) {
            check_close(jittered.mi_ksg_nats.value, ref[k].mi, TOL);
            check_close(jittered.mi_linfoot.value, ref[k].linfoot, TOL);
        } else {
            assert_rel(jittered.mi_ksg_nats.value, ref[k].mi, TOL_JITTER_LARGE);
        }
        assert_rel(ref[k].mi, ref[k].sklearn, TOL_SKLEARN);
    }
    stats_ws_free(ws);
}

static void make_independent(size_t d, double *x, double *y)
{
    for (size_t i = 0; i < d; i++) {
        x[i] = 1e10 * (1.0 + 3.7 * testutil_uniform()); /* bytes */
        y[i] = 2.385e3 + 17.3 * testutil_normal();      /* seconds */
    }
}

static void make_linear(size_t d, double *x, double *y)
{
    for (size_t i = 0; i < d; i++) {
        x[i] = 2.385e12 * testutil_uniform();
        y[i] = 41.7 + 1.3e-11 * x[i] + 2.9 * testutil_normal();
    }
}

static void make_monotone(size_t d, double *x, double *y)
{
    for (size_t i = 0; i < d; i++) {
        x[i] = 1.7e9 * exp(2.385 * testutil_normal()); /* log-normal bytes */
        y[i] = 3.1 * log(x[i]) + 0.37 * testutil_normal();
    }
}

static void make_parabola(size_t d, double *x, double *y)
{
    for (size_t i = 0; i < d; i++) {
        x[i] = 2.385 * (testutil_uniform() - 0.5);
        y[i] = x[i] * x[i] + 0.05 * testutil_normal();
    }
}

static void independent_data_match_the_reference(void **state)
{
    (void)state;
    check_shape(make_independent, UINT64_C(20240601));
}

static void linear_relation_with_noise_matches_the_reference(void **state)
{
    (void)state;
    check_shape(make_linear, UINT64_C(777));
}

static void monotone_curve_matches_the_reference(void **state)
{
    (void)state;
    check_shape(make_monotone, UINT64_C(4242));
}

static void parabola_matches_the_reference(void **state)
{
    (void)state;
    check_shape(make_parabola, UINT64_C(31337));
}

static void huge_offset_bytes_match_the_reference(void **state)
{
    /* METHOD.md §5: x = 1e15 + 2.385e3·i. x/sd is about 1.5e12/d with a spacing of
     * 3.5/d, so the distances keep 4 digits and equal-looking ones differ in their
     * last bits: the counts depend on the exact scaled values. Both sides divide by
     * the correctly rounded sd; with numpy's (1 ulp off here) I moves by 0.007 at
     * d = 170. Without jitter only: 1e-10·mean|x/sd| is larger than the spacing of
     * x/sd here (in scikit-learn too). */
    struct sample s[3];
    struct reference ref[3];
    const size_t d[3] = {10, 170, 2000};
    struct stats_ws *ws = stats_ws_new(2000);

    (void)state;
    testutil_rng_seed(UINT64_C(99));
    for (size_t k = 0; k < 3; k++) {
        s[k] = (struct sample){pool_x[k], pool_y[k], d[k], NULL, NULL};
        for (size_t i = 0; i < d[k]; i++) {
            s[k].x[i] = 1e15 + 2.385e3 * (double)i;
            const double t = (double)i / (double)d[k];
            s[k].y[i] = 3.1 * sin(6.3 * t) + 2.385 * t + 0.2 * testutil_normal();
        }
    }
    run_oracle(s, 3, ref);
    for (size_t k = 0; k < 3; k++) {
        struct stats_assoc a = compute(s[k].x, s[k].y, d[k], ws, 7, false);
        check_close(a.mi_ksg_nats.value, ref[k].mi, TOL);
        assert_true(d[k] < 170 || ref[k].mi > 0.1);
    }
    stats_ws_free(ws);
}

static void bivariate_normal_gives_linfoot_near_rho(void **state)
{
    /* Linfoot's coefficient equals |ρ| for a bivariate normal (METHOD.md §5). */
    const size_t d = 20000;
    const double rho = 0.8;
    double *x = pool_x[0], *y = pool_y[0];
    struct stats_ws *ws = stats_ws_new(d);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(2385));
    for (size_t i = 0; i < d; i++) {
        double z1 = testutil_normal(), z2 = testutil_normal();
        x[i] = 5e9 + 1e9 * z1;
        y[i] = 600.0 + 60.0 * (rho * z1 + sqrt(1.0 - rho * rho) * z2);
    }
    struct stats_assoc a = compute(x, y, d, ws, STATS_DEFAULT_SEED, true);
    assert_rel(a.mi_linfoot.value, rho, 0.03);
    /* I = −log(1 − ρ²) / 2 */
    assert_rel(a.mi_ksg_nats.value, -0.5 * log(1.0 - rho * rho), 0.05);
    assert_rel(a.mi_linfoot.value, sqrt(-expm1(-2.0 * a.mi_ksg_nats.value)), 1e-15);
    stats_ws_free(ws);
}

static void tied_times_with_jitter_are_close_to_sklearn(void **state)
{
    /* T^D is a multiple of Δ = 60 s. With the jitter the ties are broken as in
     * scikit-learn (whose random stream differs from ours). With y continuous, eps
     * comes from y, and the whole tie group is within it either way: the jitter
     * changes nothing, and without it we agree with the reference exactly. */
    struct sample s = {pool_x[0], pool_y[0], 2000, NULL, NULL};
    struct reference ref;
    struct stats_ws *ws = stats_ws_new(s.d);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(4243));
    for (size_t i = 0; i < s.d; i++) {
        s.x[i] = 60.0 * floor(23.0 * testutil_uniform());
        s.y[i] = 2.385 * exp(s.x[i] / 600.0) + 0.3 * testutil_normal();
    }
    run_oracle(&s, 1, &ref);
    struct stats_assoc jittered = compute(s.x, s.y, s.d, ws, STATS_DEFAULT_SEED, true);
    struct stats_assoc plain = compute(s.x, s.y, s.d, ws, STATS_DEFAULT_SEED, false);
    assert_true(isfinite(jittered.mi_ksg_nats.value));
    assert_rel(jittered.mi_ksg_nats.value, ref.sklearn, 0.02);
    check_close(plain.mi_ksg_nats.value, ref.mi, TOL);
    stats_ws_free(ws);
}

static void without_jitter_identical_points_inflate_mi(void **state)
{
    /* y in whole seconds as well: k + 1 identical (x, y) give eps = 0, nobody is
     * strictly closer, n_x = n_y = 0 and ψ(1) < 0 inflates I (METHOD.md §5). The
     * jitter prevents it; without it we still agree with the reference. */
    struct sample s = {pool_x[0], pool_y[0], 2000, NULL, NULL};
    struct reference ref;
    struct stats_ws *ws = stats_ws_new(s.d);

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(6060));
    for (size_t i = 0; i < s.d; i++) {
        s.x[i] = 60.0 * floor(23.0 * testutil_uniform());
        s.y[i] = round(2.385 * exp(s.x[i] / 600.0) + 0.7 * testutil_normal());
    }
    run_oracle(&s, 1, &ref);
    struct stats_assoc jittered = compute(s.x, s.y, s.d, ws, STATS_DEFAULT_SEED, true);
    struct stats_assoc plain = compute(s.x, s.y, s.d, ws, STATS_DEFAULT_SEED, false);
    check_close(plain.mi_ksg_nats.value, ref.mi, TOL);
    assert_true(plain.mi_ksg_nats.value > jittered.mi_ksg_nats.value + 0.5);
    assert_rel(jittered.mi_ksg_nats.value, ref.sklearn, 0.1);
    stats_ws_free(ws);
}

/* The jitter's draws as mi.c takes them (internal.h): taus2 seeded with
 * seed ^ (seed >> 32), GSL's ziggurat, d draws for x and then d for y. */
static void jitter_draws(uint64_t seed, size_t d, double *zx, double *zy)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);

    assert_non_null(rng);
    gsl_rng_set(rng, (unsigned long)(seed ^ (seed >> 32)));
    for (size_t i = 0; i < d; i++)
        zx[i] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    for (size_t i = 0; i < d; i++)
        zy[i] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    gsl_rng_free(rng);
}

/* x·(1 + 1e-12·u) for a fifth of the jobs, a twin of the job before: after the
 * scaling the twins are about 1e-12 apart, and the jitter (1e-10) reorders them. */
static double maybe_twin(const double *x, size_t i, double fresh)
{
    return i > 0 && testutil_uniform() < 0.2
               ? x[i - 1] * (1.0 + 1e-12 * testutil_uniform())
               : fresh;
}

/* With the jitter, the counts run over the values sorted through the caller's sort
 * order of x and y, which the jitter leaves out of order wherever values are
 * closer than it: an insertion sort puts near-ties back, and past d moves (the ties
 * of T^D) the values are sorted anew (mi.c). Given the same draws, the reference
 * breaks every tie the same way, so the counts must agree and I to METHOD.md's
 * tolerance:
 *  - x with near-twins, y in multiples of 60 (insertion sort for x, anew for y);
 *  - x = 1e15 + 2.385e3·i, whose spacing the jitter exceeds everywhere;
 *  - near-twins in x and T^D in y at d = 20000 with the four methods, so that KSG
 *    runs on two threads. */
static void jittered_ties_match_the_reference_given_the_same_draws(void **state)
{
    enum { N = 3 };
    static double zx[N][D_MAX], zy[N][D_MAX];
    const size_t d[N] = {2000, 2000, D_MAX};
    struct sample s[N];
    struct reference ref[N];
    struct stats_ws *ws = stats_ws_new(D_MAX);
    struct stats_assoc_opts opts = {METHOD_PEARSON | METHOD_SPEARMAN | METHOD_DCOR |
                                        METHOD_MI,
                                    10, STATS_DEFAULT_SEED, true};

    (void)state;
    assert_non_null(ws);
    testutil_rng_seed(UINT64_C(1212));
    for (size_t k = 0; k < N; k++) {
        s[k] = (struct sample){pool_x[k], pool_y[k], d[k], zx[k], zy[k]};
        jitter_draws(STATS_DEFAULT_SEED, d[k], zx[k], zy[k]);
    }
    for (size_t i = 0; i < d[0]; i++) {
        const double u = testutil_normal();
        s[0].x[i] = maybe_twin(s[0].x, i, 2.385e9 * exp(u));
        s[0].y[i] = 60.0 * floor(10.0 + 2.0 * u + testutil_normal());
    }
    for (size_t i = 0; i < d[1]; i++) {
        const double t = (double)i / (double)d[1];
        s[1].x[i] = 1e15 + 2.385e3 * (double)i;
        s[1].y[i] = 3.1 * sin(6.3 * t) + 2.385 * t + 0.2 * testutil_normal();
    }
    for (size_t i = 0; i < d[2]; i++) {
        s[2].x[i] = maybe_twin(s[2].x, i, 1e9 * exp(1.5 * testutil_normal()));
        s[2].y[i] = 120.0 * ceil(4.0 * testutil_uniform() + 1e-9 * s[2].x[i]);
    }
    run_oracle(s, N, ref);
    for (size_t k = 0; k < 2; k++) {
        struct stats_assoc a =
            compute(s[k].x, s[k].y, d[k], ws, STATS_DEFAULT_SEED, true);
        check_close(a.mi_ksg_nats.value, ref[k].mi, TOL);
        assert_true(ref[k].mi > 0.05); /* not two zeros */
    }
    assert_int_equal(stats_ws_threads(ws, d[2]), 2);
    struct stats_assoc a;
    assert_int_equal(stats_assoc_compute(s[2].x, s[2].y, d[2], &opts, ws, &a, NULL),
                     STATUS_OK);
    check_close(a.mi_ksg_nats.value, ref[2].mi, TOL);
    assert_true(ref[2].mi > 0.05);
    stats_ws_free(ws);
}

static void same_seed_gives_the_same_value_bit_for_bit(void **state)
{
    const size_t d = 3000;
    double *x = pool_x[0], *y = pool_y[0], *x0 = pool_x[1], *y0 = pool_y[1];
    struct stats_ws *ws = stats_ws_new(d), *other = stats_ws_new(d);

    (void)state;
    assert_true(ws != NULL && other != NULL);
    testutil_rng_seed(UINT64_C(5150));
    for (size_t i = 0; i < d; i++) {
        x0[i] = x[i] =
            60.0 * floor(40.0 * testutil_uniform()); /* ties: the jitter matters */
        y0[i] = y[i] = round(10.0 * (x[i] / 100.0 + testutil_normal())) / 10.0;
    }
    struct stats_assoc a = compute(x, y, d, ws, STATS_DEFAULT_SEED, true);
    /* between the two: another seed, a smaller d, in the same workspace */
    struct stats_assoc c = compute(x, y, d, ws, STATS_DEFAULT_SEED + 1, true);
    (void)compute(x, y, 500, ws, 3, true);
    struct stats_assoc b = compute(x, y, d, ws, STATS_DEFAULT_SEED, true);
    struct stats_assoc e = compute(x, y, d, other, STATS_DEFAULT_SEED, true);
    assert_memory_equal(&a.mi_ksg_nats.value, &b.mi_ksg_nats.value, sizeof(double));
    assert_memory_equal(&a.mi_ksg_nats.value, &e.mi_ksg_nats.value, sizeof(double));
    assert_memory_equal(&a.mi_linfoot.value, &b.mi_linfoot.value, sizeof(double));
    assert_true(c.mi_ksg_nats.value != a.mi_ksg_nats.value); /* the seed is used */
    assert_memory_equal(x, x0, d * sizeof *x);
    assert_memory_equal(y, y0, d * sizeof *y);
    stats_ws_free(ws);
    stats_ws_free(other);
}

static void too_few_jobs_or_constant_series_have_reasons(void **state)
{
    const double x[] = {2.385, 3.5, 7.25, 11.125, 1.75};
    const double y[] = {9.5, 8.25, 7.125, 4.5, 13.375};
    const double c[] = {60.0, 60.0, 60.0, 60.0, 60.0};
    struct stats_ws *ws = stats_ws_new(5);
    struct stats_assoc a;
    struct stats_assoc_opts opts = {METHOD_MI, 2, STATS_DEFAULT_SEED, true};

    (void)state;
    /* k + 1 = 4 jobs at least, whatever d_min says */
    assert_int_equal(stats_assoc_compute(x, y, 3, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_D_BELOW_MIN);
    assert_int_equal(a.mi_linfoot.reason, REASON_D_BELOW_MIN);
    assert_true(isnan(a.mi_ksg_nats.value) && isnan(a.mi_linfoot.value));
    assert_int_equal(stats_assoc_compute(x, y, 4, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_NONE);
    assert_true(a.mi_ksg_nats.value >= 0.0 && a.mi_linfoot.value < 1.0);
    opts.d_min = 10;
    assert_int_equal(stats_assoc_compute(x, y, 5, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_D_BELOW_MIN);
    opts.d_min = 4;
    assert_int_equal(stats_assoc_compute(c, y, 5, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_CONSTANT_X);
    assert_int_equal(a.mi_linfoot.reason, REASON_CONSTANT_X);
    assert_int_equal(stats_assoc_compute(x, c, 5, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_CONSTANT_Y);
    /* not asked for */
    opts.methods = METHOD_PEARSON;
    assert_int_equal(stats_assoc_compute(x, y, 5, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_NOT_COMPUTED);
    assert_true((stats_methods_available() & METHOD_MI) != 0);
    stats_ws_free(ws);
}

static void mi_needs_a_workspace_for_d_jobs(void **state)
{
    double x[12], y[12];
    struct stats_ws *ws = stats_ws_new(11);
    struct stats_assoc a;
    const struct stats_assoc_opts opts = {METHOD_MI, 4, STATS_DEFAULT_SEED, true};

    (void)state;
    for (size_t i = 0; i < 12; i++) {
        x[i] = 2.385e9 * (double)(i + 1);
        y[i] = 7.5 - cos((double)i);
    }
    assert_int_equal(stats_assoc_compute(x, y, 12, &opts, ws, &a, NULL), STATUS_INVALID);
    assert_int_equal(stats_assoc_compute(x, y, 12, &opts, NULL, &a, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_assoc_compute(x, y, 11, &opts, ws, &a, NULL), STATUS_OK);
    assert_int_equal(a.mi_ksg_nats.reason, REASON_NONE);
    stats_ws_free(ws);
}

/* From d = 2^14 KSG runs on a thread of its own beside the other three methods,
 * with the workspace's second scratch: every value must be what each method gives
 * alone and what the four give on one thread, bit for bit, call after call with
 * the same workspace. */
static void mi_on_its_own_thread_gives_the_same_bits(void **state)
{
    enum { D = 20000 };
    static double x[D], y[D];
    struct stats_ws *ws = stats_ws_new(D);
    struct stats_assoc alone[4], together;
    const unsigned methods[4] = {METHOD_PEARSON, METHOD_SPEARMAN, METHOD_DCOR, METHOD_MI};
    struct stats_assoc_opts opts = {0, 10, STATS_DEFAULT_SEED, true};

    (void)state;
    assert_non_null(ws);
    assert_int_equal(stats_ws_threads(ws, D), 2);
    assert_int_equal(stats_ws_threads(ws, D / 4), 1);
    testutil_rng_seed(UINT64_C(8080));
    for (size_t i = 0; i < D; i++) {
        x[i] = 1e9 * exp(1.5 * testutil_normal());
        y[i] = 120.0 * ceil(4.0 * testutil_uniform() + 1e-9 * x[i]);
    }
    for (size_t m = 0; m < 4; m++) {
        opts.methods = methods[m];
        assert_int_equal(stats_assoc_compute(x, y, D, &opts, ws, &alone[m], NULL),
                         STATUS_OK);
    }
    opts.methods = METHOD_PEARSON | METHOD_SPEARMAN | METHOD_DCOR | METHOD_MI;
    for (int round = 0; round < 3; round++) {
        assert_int_equal(stats_assoc_compute(x, y, D, &opts, ws, &together, NULL),
                         STATUS_OK);
        assert_memory_equal(&together.pearson.value, &alone[0].pearson.value,
                            sizeof(double));
        assert_memory_equal(&together.spearman.value, &alone[1].spearman.value,
                            sizeof(double));
        assert_memory_equal(&together.dcor_v.value, &alone[2].dcor_v.value,
                            sizeof(double));
        assert_memory_equal(&together.dcor2_u.value, &alone[2].dcor2_u.value,
                            sizeof(double));
        assert_memory_equal(&together.mi_ksg_nats.value, &alone[3].mi_ksg_nats.value,
                            sizeof(double));
        assert_int_equal(together.mi_ksg_nats.reason, REASON_NONE);
    }
    /* the four on the caller's thread alone */
    stats_ws_allow_thread(ws, false);
    assert_int_equal(stats_ws_threads(ws, D), 1);
    struct stats_assoc one;
    assert_int_equal(stats_assoc_compute(x, y, D, &opts, ws, &one, NULL), STATUS_OK);
    assert_memory_equal(&one.mi_ksg_nats.value, &together.mi_ksg_nats.value,
                        sizeof(double));
    assert_memory_equal(&one.dcor_v.value, &together.dcor_v.value, sizeof(double));
    /* a dependence is there: the test is not comparing two zeros */
    assert_true(alone[3].mi_ksg_nats.value > 0.05);
    stats_ws_free(ws);
}

static int report_max_error(void **state)
{
    (void)state;
    print_message("largest |ours - reference|: %.3g\n", max_error);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(independent_data_match_the_reference),
        cmocka_unit_test(linear_relation_with_noise_matches_the_reference),
        cmocka_unit_test(monotone_curve_matches_the_reference),
        cmocka_unit_test(parabola_matches_the_reference),
        cmocka_unit_test(huge_offset_bytes_match_the_reference),
        cmocka_unit_test(bivariate_normal_gives_linfoot_near_rho),
        cmocka_unit_test(tied_times_with_jitter_are_close_to_sklearn),
        cmocka_unit_test(without_jitter_identical_points_inflate_mi),
        cmocka_unit_test(jittered_ties_match_the_reference_given_the_same_draws),
        cmocka_unit_test(same_seed_gives_the_same_value_bit_for_bit),
        cmocka_unit_test(too_few_jobs_or_constant_series_have_reasons),
        cmocka_unit_test(mi_needs_a_workspace_for_d_jobs),
        cmocka_unit_test(mi_on_its_own_thread_gives_the_same_bits),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, report_max_error);
}
