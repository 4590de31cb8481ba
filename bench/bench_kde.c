/* bench_kde.c: the C side of make bench's "kde" section: stats_kde_compute timed,
 * with and without the density grid, its results written for bench/ref_kde.py. */
#include "../stats/stats.h"

#include <gsl/gsl_errno.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The sampling rule of bench_assoc.c and bench/ref_assoc.py: the first call is timed
 * too; a sample repeats the call until it lasts at least MIN_SAMPLE_S; best of up to
 * REPS samples, no new sample once BUDGET_S seconds are spent, except that a call of
 * at most BUDGET_S gets MIN_SAMPLES samples. */
#define REPS         7
#define MIN_SAMPLES  3
#define BUDGET_S     2.0
#define MIN_SAMPLE_S 1e-3

#define EX_USAGE    64
#define EX_NOINPUT  66
#define EX_SOFTWARE 70

struct variant {
    const char *name; /* as bench/kde.sh calls it */
    struct stats_kde_opts opts;
};

/* d_min 10, auto space (log on the bench data: every value is positive). */
static const struct variant VARIANTS[] = {
    /* (a)-(d): the density grid (the target) and the bands, product kernel */
    {"grid", {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, false, KDE_BW_NORMAL}},
    /* the same with scipy gaussian_kde's kernel, H = d^(-1/3)·cov */
    {"grid_full", {KDE_SPACE_AUTO, KDE_KERNEL_FULL, 10, false, KDE_BW_NORMAL}},
    /* (b)-(d) only: the conditional quantiles, as a sweep step or a permutation */
    {"bands", {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, true, KDE_BW_NORMAL}},
};

static void usage(void)
{
    fputs("usage: bench_kde time FILE D VARIANT...  best seconds per call of each; then\n"
          "                                          its results (fitting space), and\n"
          "                                          with a grid FILE.VARIANT.density\n"
          "FILE: D doubles x then D doubles y (bench/ref_assoc.py gen);\n"
          "VARIANT: grid, grid_full, bands\n",
          stderr);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct variant *variant_of(const char *name)
{
    for (size_t i = 0; i < sizeof VARIANTS / sizeof VARIANTS[0]; i++) {
        if (strcmp(VARIANTS[i].name, name) == 0)
            return &VARIANTS[i];
    }
    return NULL;
}

/* Reads x then y, d doubles each, into *x and *y (new; the caller frees them). */
static int load(const char *path, size_t d, double **x, double **y)
{
    FILE *fp = fopen(path, "rb");
    int rc = EX_NOINPUT;

    *x = malloc(d * sizeof **x);
    *y = malloc(d * sizeof **y);
    if (fp == NULL) {
        fprintf(stderr, "bench_kde: %s: %s\n", path, strerror(errno));
    } else if (*x == NULL || *y == NULL) {
        fprintf(stderr, "bench_kde: no memory for %zu jobs\n", d);
        rc = EX_SOFTWARE;
    } else if (fread(*x, sizeof **x, d, fp) != d || fread(*y, sizeof **y, d, fp) != d ||
               fgetc(fp) != EOF) {
        fprintf(stderr, "bench_kde: %s: expected exactly %zu doubles\n", path, 2 * d);
    } else {
        rc = 0;
    }
    if (fp != NULL)
        fclose(fp);
    return rc;
}

static int compute(const struct variant *v, const double *x, const double *y, size_t d,
                   struct stats_kde_ws *ws, struct stats_kde *out)
{
    struct error err = {0};

    if (stats_kde_compute(x, y, d, &v->opts, ws, out, &err) != STATUS_OK) {
        fprintf(stderr, "bench_kde: %s at d = %zu: %s\n", v->name, d, err.msg);
        return -1;
    }
    if (out->reason != REASON_NONE) {
        fprintf(stderr, "bench_kde: %s at d = %zu: %s\n", v->name, d,
                stats_reason_name(out->reason));
        return -1;
    }
    return 0;
}

static void print_array(const char *variant, const char *name, const double *a, size_t n)
{
    printf("value %s %s", variant, name);
    for (size_t i = 0; i < n; i++)
        printf(" %.17g", a[i]);
    putchar('\n');
}

/* The results of the last call: the bands in the fitting space, and the density grid
 * (NG·NG doubles, row i = x_i) into its own file. */
static int print_results(const struct variant *v, const struct stats_kde *k,
                         const char *data_path)
{
    printf("value %s space %s\n", v->name, stats_kde_space_name(k->space));
    printf("value %s hy %.17g\n", v->name, k->h_y);
    printf("value %s width_ratio %.17g\n", v->name, k->width_ratio);
    print_array(v->name, "x_grid", k->x_grid_fit, STATS_KDE_POINTS);
    print_array(v->name, "q05", k->q05_fit, STATS_KDE_POINTS);
    print_array(v->name, "q50", k->q50_fit, STATS_KDE_POINTS);
    print_array(v->name, "q95", k->q95_fit, STATS_KDE_POINTS);
    printf("value %s marg %.17g %.17g\n", v->name, k->marg_q05_fit, k->marg_q95_fit);
    if (v->opts.no_density)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s.%s.density", data_path, v->name);
    FILE *fp = fopen(path, "wb");
    size_t n = (size_t)STATS_KDE_GRID * STATS_KDE_GRID;
    if (fp == NULL || fwrite(&k->density[0][0], sizeof(double), n, fp) != n) {
        fprintf(stderr, "bench_kde: %s: %s\n", path, strerror(errno));
        if (fp != NULL)
            fclose(fp);
        return -1;
    }
    if (fclose(fp) != 0)
        return -1;
    printf("value %s grid %.17g %.17g %.17g %.17g %s\n", v->name, k->grid_x0, k->grid_dx,
           k->grid_y0, k->grid_dy, path);
    return 0;
}

/* Best seconds per call of v, as the sampling rule above says. */
static int time_variant(const struct variant *v, const double *x, const double *y,
                        size_t d, struct stats_kde_ws *ws, struct stats_kde *out)
{
    double t0 = now_s();
    if (compute(v, x, y, d, ws, out) != 0)
        return -1;
    double best = now_s() - t0, spent = best;
    unsigned samples = 1;
    unsigned long calls = 1;

    if (best < MIN_SAMPLE_S)
        calls = (unsigned long)ceil(MIN_SAMPLE_S / fmax(best, 1e-9));
    while (samples < REPS && (spent + best * (double)calls <= BUDGET_S ||
                              (samples < MIN_SAMPLES && best <= BUDGET_S))) {
        t0 = now_s();
        for (unsigned long i = 0; i < calls; i++) {
            if (compute(v, x, y, d, ws, out) != 0)
                return -1;
        }
        double dt = now_s() - t0;
        spent += dt;
        best = fmin(best, dt / (double)calls);
        samples++;
    }
    printf("time %s %.9g %u %lu\n", v->name, best, samples, calls);
    return 0;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    double *x = NULL, *y = NULL;
    struct stats_kde_ws *ws = NULL;
    struct stats_kde *k = NULL;
    int rc;

    gsl_set_error_handler_off();
    if (argc < 5 || strcmp(argv[1], "time") != 0) {
        usage();
        return EX_USAGE;
    }
    unsigned long long d_in = strtoull(argv[3], &end, 10);
    if (*end != '\0' || d_in < 10 || d_in > (1ULL << 32)) {
        fprintf(stderr, "bench_kde: D must be an integer in [10, 2^32], got %s\n",
                argv[3]);
        return EX_USAGE;
    }
    const size_t d = (size_t)d_in;
    for (int i = 4; i < argc; i++) {
        if (variant_of(argv[i]) == NULL) {
            fprintf(stderr, "bench_kde: unknown variant %s\n", argv[i]);
            return EX_USAGE;
        }
    }
    rc = load(argv[2], d, &x, &y);
    if (rc != 0)
        goto out;
    /* made once, before any timing, as a run's workspace is */
    ws = stats_kde_ws_new(d);
    k = malloc(sizeof *k); /* about 140 kB: not on the stack */
    if (ws == NULL || k == NULL) {
        fprintf(stderr, "bench_kde: no memory for a workspace of %zu\n", d);
        rc = EX_SOFTWARE;
        goto out;
    }
    for (int i = 4; i < argc; i++) {
        const struct variant *v = variant_of(argv[i]);
        if (time_variant(v, x, y, d, ws, k) != 0 || print_results(v, k, argv[2]) != 0) {
            rc = EX_SOFTWARE;
            goto out;
        }
        fflush(stdout);
    }
out:
    stats_kde_ws_free(ws);
    free(k);
    free(x);
    free(y);
    return rc;
}
