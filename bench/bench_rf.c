/* bench_rf.c: the C side of make bench's "rf" section: stats_rf_compute timed (100
 * trees, the defaults), its results written for bench/ref_rf.py to compare. */
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

static void usage(void)
{
    fputs("usage: bench_rf time FILE D   best seconds per stats_rf_compute call (100\n"
          "                              trees, seed 20240601), then its results\n"
          "FILE: D doubles x then D doubles y (bench/ref_assoc.py gen)\n",
          stderr);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads x then y, d doubles each, into *x and *y (new; the caller frees them). */
static int load(const char *path, size_t d, double **x, double **y)
{
    FILE *fp = fopen(path, "rb");
    int rc = EX_NOINPUT;

    *x = malloc(d * sizeof **x);
    *y = malloc(d * sizeof **y);
    if (fp == NULL) {
        fprintf(stderr, "bench_rf: %s: %s\n", path, strerror(errno));
    } else if (*x == NULL || *y == NULL) {
        fprintf(stderr, "bench_rf: no memory for %zu jobs\n", d);
        rc = EX_SOFTWARE;
    } else if (fread(*x, sizeof **x, d, fp) != d || fread(*y, sizeof **y, d, fp) != d ||
               fgetc(fp) != EOF) {
        fprintf(stderr, "bench_rf: %s: expected exactly %zu doubles\n", path, 2 * d);
    } else {
        rc = 0;
    }
    if (fp != NULL)
        fclose(fp);
    return rc;
}

static int compute(const double *x, const double *y, size_t d, struct stats_rf_ws *ws,
                   struct stats_rf *out)
{
    struct error err = {0};

    if (stats_rf_compute(x, y, d, NULL, 0, NULL, ws, out, NULL, &err) != STATUS_OK) {
        fprintf(stderr, "bench_rf: d = %zu: %s\n", d, err.msg);
        return -1;
    }
    if (out->reason != REASON_NONE) {
        fprintf(stderr, "bench_rf: d = %zu: %s\n", d, stats_reason_name(out->reason));
        return -1;
    }
    return 0;
}

static void print_array(const char *name, const double *a, size_t n)
{
    printf("value %s", name);
    for (size_t i = 0; i < n; i++)
        printf(" %.17g", a[i]);
    putchar('\n');
}

/* Best seconds per call, as the sampling rule above says. */
static int time_rf(const double *x, const double *y, size_t d, struct stats_rf_ws *ws,
                   struct stats_rf *out)
{
    double t0 = now_s();
    if (compute(x, y, d, ws, out) != 0)
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
            if (compute(x, y, d, ws, out) != 0)
                return -1;
        }
        double dt = now_s() - t0;
        spent += dt;
        best = fmin(best, dt / (double)calls);
        samples++;
    }
    printf("time rf %.9g %u %lu\n", best, samples, calls);
    return 0;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    double *x = NULL, *y = NULL;
    struct stats_rf_ws *ws = NULL;
    struct stats_rf rf;
    int rc;

    gsl_set_error_handler_off();
    if (argc != 4 || strcmp(argv[1], "time") != 0) {
        usage();
        return EX_USAGE;
    }
    unsigned long long d_in = strtoull(argv[3], &end, 10);
    if (*end != '\0' || d_in < 10 || d_in > UINT32_MAX) {
        fprintf(stderr, "bench_rf: D must be an integer in [10, 2^32), got %s\n",
                argv[3]);
        return EX_USAGE;
    }
    const size_t d = (size_t)d_in;
    rc = load(argv[2], d, &x, &y);
    if (rc != 0)
        goto out;
    ws = stats_rf_ws_new(d); /* made once, before any timing, as a run's is */
    if (ws == NULL) {
        fprintf(stderr, "bench_rf: no memory for a workspace of %zu\n", d);
        rc = EX_SOFTWARE;
        goto out;
    }
    if (time_rf(x, y, d, ws, &rf) != 0) {
        rc = EX_SOFTWARE;
        goto out;
    }
    printf("value oob_r2 %.17g\n", rf.oob_r2);
    printf("value n_oob %zu\n", rf.n_oob);
    printf("value leaves_mean %.17g\n", rf.leaves_mean);
    print_array("x_curve", rf.x_curve, STATS_RF_CURVE);
    print_array("fit_curve", rf.fit_curve, STATS_RF_CURVE);
out:
    stats_rf_ws_free(ws);
    free(x);
    free(y);
    return rc;
}
