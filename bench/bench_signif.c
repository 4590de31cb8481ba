/* bench_signif.c: times stats_signif_compute (METHOD.md §5 "Significance") at the
 * sizes the brief names: B = 999 permutations of all four core coefficients, and the
 * 2000 BCa resamples, at d = 10^3 and 10^4 (and the jackknife alone up to 10^6).
 * Build: cc -std=c11 -D_DEFAULT_SOURCE -O2 bench/bench_signif.c BUILD/libiocontend.a
 *        $(pkg-config --libs gsl) -lm. Usage: bench_signif [d ...]. */
#include "../stats/stats.h"

#include <gsl/gsl_errno.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* xorshift64*: the data, y = 0.3·x + noise, x in bytes with ties (T^D-like). */
static uint64_t state = UINT64_C(20240601);

static double uniform(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return ((double)((state * UINT64_C(2685821657736338717)) >> 11) + 0.5) * 0x1.0p-53;
}

static int run(size_t d)
{
    double *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
    double *jp = malloc(d * sizeof *jp), *js = malloc(d * sizeof *js);
    struct stats_ws *ws = stats_ws_new(d);
    struct stats_signif s;
    struct error err = {0};
    int rc = 0;

    if (x == NULL || y == NULL || jp == NULL || js == NULL || ws == NULL) {
        fprintf(stderr, "bench_signif: no memory for d = %zu\n", d);
        rc = 1;
        goto out;
    }
    for (size_t i = 0; i < d; i++) {
        x[i] = 1e10 * (1.0 + uniform());
        y[i] = 5.0 * floor(20.0 * uniform()) + 3e-10 * x[i];
    }
    double t0 = now_s();
    if (stats_jackknife(x, y, d, ws, jp, js, &err) != STATUS_OK) {
        fprintf(stderr, "bench_signif: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    printf("d = %-8zu jackknife (Pearson + Spearman)       %8.3f s\n", d, now_s() - t0);
    if (d > 100000)
        goto out;
    struct stats_signif_opts o = stats_signif_opts_default();
    o.n_boot = 0;
    t0 = now_s();
    if (stats_signif_compute(x, y, d, &o, ws, &s, &err) != STATUS_OK) {
        fprintf(stderr, "bench_signif: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    printf("d = %-8zu 999 permutations, all four methods %8.3f s (p: %.3f %.3f %.3f "
           "%.3f)\n",
           d, now_s() - t0, s.pearson.p_value, s.spearman.p_value, s.dcor_v.p_value,
           s.mi_linfoot.p_value);
    o.n_perm = 0;
    o.n_boot = 2000;
    o.assoc.methods = METHOD_PEARSON | METHOD_SPEARMAN;
    t0 = now_s();
    if (stats_signif_compute(x, y, d, &o, ws, &s, &err) != STATUS_OK) {
        fprintf(stderr, "bench_signif: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    printf("d = %-8zu 2000 BCa resamples, Pearson + Spearman %6.3f s (pearson [%.4f, "
           "%.4f])\n",
           d, now_s() - t0, s.pearson.ci_low, s.pearson.ci_high);
out:
    free(x);
    free(y);
    free(jp);
    free(js);
    stats_ws_free(ws);
    return rc;
}

int main(int argc, char **argv)
{
    const size_t def[] = {1000, 10000, 1000000};
    int rc = 0;

    gsl_set_error_handler_off();
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            rc |= run((size_t)strtoull(argv[i], NULL, 10));
    } else {
        for (size_t i = 0; i < sizeof def / sizeof def[0]; i++)
            rc |= run(def[i]);
    }
    return rc;
}
