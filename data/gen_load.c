/* gen_load.c: the background traffic of each scratch file system, besides jobs. */
#include "internal.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

/* Levels are log-normal around these means and hold for 1-30 minutes: the time scale
 * on which the paper saw other jobs' I/O slow a job down. */
#define MEAN_READ_BPS  250e6
#define MEAN_WRITE_BPS 120e6
#define LEVEL_SIGMA    0.8
#define READ_WRITE_RHO 0.5 /* busy periods tend to be busy both ways */
#define READ_OP_BYTES  262144.0
#define WRITE_OP_BYTES 524288.0
#define OP_SIZE_SIGMA  0.4 /* so the operation rate is not a copy of the bandwidth */
#define SEG_MIN_S      60.0
#define SEG_MAX_S      1800.0

struct segment {
    double start_s; /* the level holds from here to the next segment's start */
    struct data_rates rates;
};

struct data_background {
    struct segment *seg[DATA_NFS];
    size_t nseg[DATA_NFS];
    double mean_read_bps[DATA_NFS + 1]; /* time mean over [0, span_s]; last: all */
    double mean_ops_s[DATA_NFS + 1];    /* reads + writes, time mean; last: all */
};

/* A log-normal factor with mean 1, from a standard normal z. */
static double unit_lognormal(double z, double sigma)
{
    return exp(sigma * z - 0.5 * sigma * sigma);
}

double data_unit_lognormal(gsl_rng *rng, double sigma)
{
    return unit_lognormal(gsl_ran_ugaussian(rng), sigma);
}

static void draw_level(gsl_rng *rng, struct data_rates *r)
{
    double zr = gsl_ran_ugaussian(rng);
    double zw = READ_WRITE_RHO * zr +
                sqrt(1.0 - READ_WRITE_RHO * READ_WRITE_RHO) * gsl_ran_ugaussian(rng);
    double read_op =
        READ_OP_BYTES * unit_lognormal(gsl_ran_ugaussian(rng), OP_SIZE_SIGMA);
    double write_op =
        WRITE_OP_BYTES * unit_lognormal(gsl_ran_ugaussian(rng), OP_SIZE_SIGMA);

    r->read_bps = MEAN_READ_BPS * unit_lognormal(zr, LEVEL_SIGMA);
    r->write_bps = MEAN_WRITE_BPS * unit_lognormal(zw, LEVEL_SIGMA);
    r->read_ops_s = r->read_bps / read_op;
    r->write_ops_s = r->write_bps / write_op;
}

/* Segments for one file system, past span_s by an hour so late queries stay inside. */
static struct segment *draw_segments(gsl_rng *rng, double span_s, size_t *n)
{
    size_t cap = (size_t)((span_s + 3600.0) / SEG_MIN_S) + 2;
    struct segment *seg = malloc(cap * sizeof *seg);
    double t = 0.0;
    size_t i = 0;

    if (seg == NULL)
        return NULL;
    while (t < span_s + 3600.0 && i < cap) {
        seg[i].start_s = t;
        draw_level(rng, &seg[i].rates);
        t += gsl_ran_flat(rng, SEG_MIN_S, SEG_MAX_S);
        i++;
    }
    *n = i;
    return seg;
}

/* Index of the segment holding t_s (the first one for t_s before the series). */
static size_t find_segment(const struct segment *seg, size_t n, double t_s)
{
    size_t lo = 0, hi = n;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (seg[mid].start_s <= t_s) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static void add_rates(struct data_rates *sum, const struct data_rates *r)
{
    sum->read_bps += r->read_bps;
    sum->write_bps += r->write_bps;
    sum->read_ops_s += r->read_ops_s;
    sum->write_ops_s += r->write_ops_s;
}

static void add_scaled(struct data_volume *v, const struct data_rates *r, double seconds)
{
    v->read_bytes += r->read_bps * seconds;
    v->write_bytes += r->write_bps * seconds;
    v->read_ops += r->read_ops_s * seconds;
    v->write_ops += r->write_ops_s * seconds;
}

void data_background_rates(const struct data_background *bg, int fs, double t_s,
                           struct data_rates *out)
{
    *out = (struct data_rates){0};
    for (int f = 0; f < DATA_NFS; f++) {
        if (fs >= 0 && f != fs)
            continue;
        size_t i = find_segment(bg->seg[f], bg->nseg[f], t_s);
        add_rates(out, &bg->seg[f][i].rates);
    }
}

static void volume_one(const struct data_background *bg, int f, double a_s, double b_s,
                       struct data_volume *out)
{
    const struct segment *seg = bg->seg[f];
    size_t n = bg->nseg[f];

    for (size_t i = find_segment(seg, n, a_s); i < n && a_s < b_s; i++) {
        double end = i + 1 < n ? seg[i + 1].start_s : b_s;
        double stop = end < b_s ? end : b_s;
        if (stop > a_s) {
            add_scaled(out, &seg[i].rates, stop - a_s);
            a_s = stop;
        }
    }
}

void data_background_volume(const struct data_background *bg, int fs, double a_s,
                            double b_s, struct data_volume *out)
{
    *out = (struct data_volume){0};
    for (int f = 0; f < DATA_NFS; f++) {
        if (fs < 0 || f == fs)
            volume_one(bg, f, a_s, b_s, out);
    }
}

struct data_background *data_background_new(double span_s, gsl_rng *rng)
{
    struct data_background *bg = calloc(1, sizeof *bg);
    struct data_volume all;

    if (bg == NULL)
        return NULL;
    for (int f = 0; f < DATA_NFS; f++) {
        bg->seg[f] = draw_segments(rng, span_s, &bg->nseg[f]);
        if (bg->seg[f] == NULL) {
            data_background_free(bg);
            return NULL;
        }
    }
    for (int f = -1; f < DATA_NFS; f++) {
        size_t i = f < 0 ? DATA_NFS : (size_t)f;
        data_background_volume(bg, f, 0.0, span_s, &all);
        bg->mean_read_bps[i] = all.read_bytes / span_s;
        bg->mean_ops_s[i] = (all.read_ops + all.write_ops) / span_s;
    }
    return bg;
}

void data_background_free(struct data_background *bg)
{
    if (bg == NULL)
        return;
    for (int f = 0; f < DATA_NFS; f++)
        free(bg->seg[f]);
    free(bg);
}

double data_background_mean_read_bps(const struct data_background *bg, int fs)
{
    return bg->mean_read_bps[fs < 0 ? DATA_NFS : fs];
}

double data_background_mean_ops_s(const struct data_background *bg, int fs)
{
    return bg->mean_ops_s[fs < 0 ? DATA_NFS : fs];
}
