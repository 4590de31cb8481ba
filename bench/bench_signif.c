/* bench_signif.c: the C side of make bench's "signif" section: stats_signif_compute
 * (docs/method.md §5 "Significance") timed on the bench data, the p-values printed. */
#include "../stats/stats.h"

#include <gsl/gsl_errno.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The sampling rule of bench_assoc.c and bench/ref_assoc.py: the first call is timed
 * too; best of up to REPS samples, no new sample once BUDGET_S seconds are spent,
 * except that a call of at most BUDGET_S gets MIN_SAMPLES samples. Every call here
 * lasts far more than a millisecond: one call per sample. */
#define REPS        7
#define MIN_SAMPLES 3
#define BUDGET_S    2.0

#define EX_USAGE    64
#define EX_NOINPUT  66
#define EX_SOFTWARE 70

#define ALL4 (METHOD_PEARSON | METHOD_SPEARMAN | METHOD_DCOR | METHOD_MI)

struct work {
    const char *name; /* as bench/signif.sh calls it */
    unsigned methods;
    bool width_ratio; /* the KDE's width_ratio as an extra statistic */
    bool perm;        /* B permutations; else 2000 BCa resamples, or the jackknife */
    bool jackknife;
};

static const struct work WORKS[] = {
    {"ps", METHOD_PEARSON | METHOD_SPEARMAN, false, true, false},
    {"four", ALL4, false, true, false},
    {"five", ALL4, true, true, false},
    {"boot", METHOD_PEARSON | METHOD_SPEARMAN, false, false, false},
    {"jackknife", METHOD_PEARSON | METHOD_SPEARMAN, false, false, true},
};

/* What one call needs, made before any timing. */
struct bench {
    const double *x, *y;
    size_t d, b;
    struct stats_ws *ws;
    struct stats_kde_ws *kde_ws;
    struct stats_kde *kde;
    double *loo_p, *loo_s;
    struct stats_signif out;
};

static void usage(void)
{
    fputs("usage: bench_signif time FILE D B WORK...  best seconds per call of each\n"
          "FILE: D doubles x then D doubles y (bench/ref_assoc.py gen); B permutations\n"
          "WORK: ps (Pearson + Spearman), four (the four core coefficients), five (the\n"
          "      four and the KDE's width_ratio), boot (2000 BCa resamples of Pearson\n"
          "      and Spearman, no permutation), jackknife (their leave-one-out values)\n",
          stderr);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct work *work_of(const char *name)
{
    for (size_t i = 0; i < sizeof WORKS / sizeof WORKS[0]; i++) {
        if (strcmp(WORKS[i].name, name) == 0)
            return &WORKS[i];
    }
    return NULL;
}

static int load(const char *path, size_t d, double **x, double **y)
{
    FILE *fp = fopen(path, "rb");
    int rc = EX_NOINPUT;

    *x = malloc(d * sizeof **x);
    *y = malloc(d * sizeof **y);
    if (fp == NULL) {
        fprintf(stderr, "bench_signif: %s: %s\n", path, strerror(errno));
    } else if (*x == NULL || *y == NULL) {
        fprintf(stderr, "bench_signif: no memory for %zu jobs\n", d);
        rc = EX_SOFTWARE;
    } else if (fread(*x, sizeof **x, d, fp) != d || fread(*y, sizeof **y, d, fp) != d ||
               fgetc(fp) != EOF) {
        fprintf(stderr, "bench_signif: %s: expected exactly %zu doubles\n", path, 2 * d);
    } else {
        rc = 0;
    }
    if (fp != NULL)
        fclose(fp);
    return rc;
}

static int compute(const struct work *w, struct bench *b)
{
    struct stats_signif_opts o = stats_signif_opts_default();
    struct stats_kde_stat_ctx ctx = {
        {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT, 10, true, KDE_BW_NORMAL}, b->kde_ws, b->kde};
    const struct stats_signif_stat wr = {"width_ratio", stats_kde_width_ratio_stat, &ctx,
                                         1.0};
    struct error err = {0};
    enum status rc;

    if (w->jackknife) {
        rc = stats_jackknife(b->x, b->y, b->d, b->ws, b->loo_p, b->loo_s, &err);
    } else {
        o.assoc.methods = w->methods;
        o.n_perm = w->perm ? b->b : 0;
        o.n_boot = w->perm ? 0 : 2000;
        o.extra = w->width_ratio ? &wr : NULL;
        o.n_extra = w->width_ratio ? 1 : 0;
        rc = stats_signif_compute(b->x, b->y, b->d, &o, b->ws, &b->out, &err);
    }
    if (rc != STATUS_OK) {
        fprintf(stderr, "bench_signif: %s at d = %zu: %s\n", w->name, b->d, err.msg);
        return -1;
    }
    return 0;
}

static void print_p(const char *work, const char *name, const struct stats_signif_coef *c)
{
    if (c->reason == REASON_NONE) {
        printf("value %s %s %.17g p %.6g floor %.6g\n", work, name, c->value, c->p_value,
               c->noise_floor);
    }
}

static int time_work(const struct work *w, struct bench *b)
{
    double t0 = now_s();
    if (compute(w, b) != 0)
        return -1;
    double best = now_s() - t0, spent = best;
    unsigned samples = 1;

    while (samples < REPS &&
           (spent + best <= BUDGET_S || (samples < MIN_SAMPLES && best <= BUDGET_S))) {
        t0 = now_s();
        if (compute(w, b) != 0)
            return -1;
        double dt = now_s() - t0;
        spent += dt;
        best = fmin(best, dt);
        samples++;
    }
    printf("time %s %.9g %u 1\n", w->name, best, samples);
    if (w->perm) {
        print_p(w->name, "pearson", &b->out.pearson);
        print_p(w->name, "spearman", &b->out.spearman);
        print_p(w->name, "dcor_v", &b->out.dcor_v);
        print_p(w->name, "mi_linfoot", &b->out.mi_linfoot);
        if (w->width_ratio)
            print_p(w->name, "width_ratio", &b->out.extra[0]);
    }
    return 0;
}

static int parse_size(const char *s, size_t lo, size_t *out)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);

    if (*end != '\0' || v < lo || v > (1ULL << 32)) {
        fprintf(stderr, "bench_signif: expected an integer in [%zu, 2^32], got %s\n", lo,
                s);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    double *x = NULL, *y = NULL;
    struct bench b = {0};
    int rc;

    gsl_set_error_handler_off();
    if (argc < 6 || strcmp(argv[1], "time") != 0) {
        usage();
        return EX_USAGE;
    }
    if (parse_size(argv[3], 10, &b.d) != 0 || parse_size(argv[4], 1, &b.b) != 0)
        return EX_USAGE;
    for (int i = 5; i < argc; i++) {
        if (work_of(argv[i]) == NULL) {
            fprintf(stderr, "bench_signif: unknown work %s\n", argv[i]);
            return EX_USAGE;
        }
    }
    rc = load(argv[2], b.d, &x, &y);
    if (rc != 0)
        goto out;
    b.x = x;
    b.y = y;
    b.ws = stats_ws_new(b.d);
    b.kde_ws = stats_kde_ws_new(b.d);
    b.kde = malloc(sizeof *b.kde);
    b.loo_p = malloc(b.d * sizeof *b.loo_p);
    b.loo_s = malloc(b.d * sizeof *b.loo_s);
    if (b.ws == NULL || b.kde_ws == NULL || b.kde == NULL || b.loo_p == NULL ||
        b.loo_s == NULL) {
        fprintf(stderr, "bench_signif: no memory for d = %zu\n", b.d);
        rc = EX_SOFTWARE;
        goto out;
    }
    for (int i = 5; i < argc; i++) {
        if (time_work(work_of(argv[i]), &b) != 0) {
            rc = EX_SOFTWARE;
            goto out;
        }
        fflush(stdout);
    }
out:
    stats_ws_free(b.ws);
    stats_kde_ws_free(b.kde_ws);
    free(b.kde);
    free(b.loo_p);
    free(b.loo_s);
    free(x);
    free(y);
    return rc;
}
