/* gen_iostat.c: server-side traffic per interval and its `iostat -d -x -k -t 60` text. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* s2-ds04's iostat started this many minutes late: the first intervals have a hole
 * (docs/method.md §1: a partial sum is a hole) that consumers must respect. */
#define LATE_FS      1
#define LATE_SERVER  3
#define LATE_REPORTS 45
#define SPLIT_SIGMA  0.05 /* per-interval noise in how a file system's load spreads */

static const double server_share[DATA_NSERVERS] = {0.26, 0.24, 0.255, 0.245};
static const double device_share[DATA_NDEVICES] = {0.51, 0.49};

/* sysstat 12.6's header of `iostat -d -x`, byte for byte */
static const char header_line[] = "Device            r/s     rkB/s   rrqm/s  %rrqm "
                                  "r_await rareq-sz     w/s     wkB/s   "
                                  "wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   "
                                  "drqm/s  %drqm d_await dareq-sz     "
                                  "f/s f_await  aqu-sz  %util\n";

struct data_traffic {
    size_t n; /* intervals; k covers (kΔ, (k+1)Δ] after the start */
    struct data_volume *fs[DATA_NFS]; /* per interval: background plus jobs */
};

/* One device's line of an iostat report. */
struct device_line {
    double r_s, rkb_s, w_s, wkb_s; /* rates over the interval */
};

static void add_volume(struct data_volume *sum, const struct data_volume *v, double share)
{
    sum->read_bytes += share * v->read_bytes;
    sum->write_bytes += share * v->write_bytes;
    sum->read_ops += share * v->read_ops;
    sum->write_ops += share * v->write_ops;
}

/* Adds v, moved evenly over [a_s, b_s] (a point when b_s <= a_s), to fs's intervals. */
static void spread(struct data_traffic *tr, int fs, double a_s, double b_s,
                   const struct data_volume *v)
{
    long first = lround(floor(a_s / DATA_INTERVAL_S));
    long last = lround(ceil(b_s / DATA_INTERVAL_S)) - 1;

    if (b_s <= a_s) {
        long k = lround(ceil(a_s / DATA_INTERVAL_S)) - 1;
        if (k >= 0 && (size_t)k < tr->n)
            add_volume(&tr->fs[fs][k], v, 1.0);
        return;
    }
    for (long k = first < 0 ? 0 : first; k <= last && (size_t)k < tr->n; k++) {
        double lo = fmax(a_s, (double)k * DATA_INTERVAL_S);
        double hi = fmin(b_s, (double)(k + 1) * DATA_INTERVAL_S);
        if (hi > lo)
            add_volume(&tr->fs[fs][k], v, (hi - lo) / (b_s - a_s));
    }
}

static void add_job(struct data_traffic *tr, const struct data_job *job)
{
    for (size_t i = 0; i < job->nfiles; i++) {
        const struct data_file *f = &job->files[i];
        struct data_volume r = {(double)f->read_bytes, 0.0, (double)f->reads, 0.0};
        struct data_volume w = {0.0, (double)f->write_bytes, 0.0, (double)f->writes};

        if (f->fs < 0)
            continue; /* /home is not on the monitored servers */
        if (f->reads > 0) {
            spread(tr, f->fs, job->start_s + f->read_start_s,
                   job->start_s + f->read_end_s, &r);
        }
        if (f->writes > 0) {
            spread(tr, f->fs, job->start_s + f->write_start_s,
                   job->start_s + f->write_end_s, &w);
        }
    }
}

struct data_traffic *data_traffic_new(const struct data_params *p,
                                      const struct data_background *bg,
                                      const struct data_job *jobs, size_t njobs)
{
    struct data_traffic *tr = calloc(1, sizeof *tr);

    if (tr == NULL)
        return NULL;
    tr->n = (size_t)p->days * 1440;
    for (int f = 0; f < DATA_NFS; f++) {
        tr->fs[f] = calloc(tr->n, sizeof *tr->fs[f]);
        if (tr->fs[f] == NULL) {
            data_traffic_free(tr);
            return NULL;
        }
        for (size_t k = 0; k < tr->n; k++) {
            data_background_volume(bg, f, (double)k * DATA_INTERVAL_S,
                                   (double)(k + 1) * DATA_INTERVAL_S, &tr->fs[f][k]);
        }
    }
    for (size_t j = 0; j < njobs; j++)
        add_job(tr, &jobs[j]);
    return tr;
}

void data_traffic_free(struct data_traffic *tr)
{
    if (tr == NULL)
        return;
    for (int f = 0; f < DATA_NFS; f++)
        free(tr->fs[f]);
    free(tr);
}

static struct tm utc_at(double offset_s)
{
    time_t t = (time_t)(DATA_EPOCH_START + (long long)offset_s);
    struct tm tm;

    gmtime_r(&t, &tm);
    return tm;
}

/* The derived columns follow sysstat's definitions: areq-sz = kB / requests,
 * %rrqm = merged / (merged + issued), aqu-sz = sum of rate * await. */
static void print_device(FILE *fp, const char *name, const struct device_line *d)
{
    double rrqm = 0.06 * d->r_s, wrqm = 0.11 * d->w_s;
    double util = fmin(
        99.5, 100.0 * ((d->rkb_s + d->wkb_s) / 716800.0 + (d->r_s + d->w_s) * 0.00012));
    double r_await = d->r_s > 0.0 ? 0.7 + 0.06 * util : 0.0;
    double w_await = d->w_s > 0.0 ? 0.4 + 0.04 * util : 0.0;

    fprintf(fp, "%-13s %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f", name, d->r_s, d->rkb_s, rrqm,
            d->r_s > 0.0 ? 100.0 * rrqm / (rrqm + d->r_s) : 0.0, r_await,
            d->r_s > 0.0 ? d->rkb_s / d->r_s : 0.0);
    fprintf(fp, " %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f", d->w_s, d->wkb_s, wrqm,
            d->w_s > 0.0 ? 100.0 * wrqm / (wrqm + d->w_s) : 0.0, w_await,
            d->w_s > 0.0 ? d->wkb_s / d->w_s : 0.0);
    fprintf(fp, " %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    fprintf(fp, " %7.2f %7.2f %7.2f %6.2f\n", 0.0, 0.0,
            (d->r_s * r_await + d->w_s * w_await) / 1000.0, util);
}

/* One report: the stamp, the header, sdb and sdc, then dm-0, an LVM volume striped over
 * both (so counting it too would double the server's traffic). */
static void print_report(FILE *fp, double stamp_s, const struct device_line dev[])
{
    char stamp[32];
    struct device_line dm = {0};
    static const char *const names[DATA_NDEVICES] = {"sdb", "sdc"};
    struct tm tm = utc_at(stamp_s);

    /* sysstat's %x %X in the C locale: a two-digit year */
    snprintf(stamp, sizeof stamp, "%02d/%02d/%02d %02d:%02d:%02d", tm.tm_mon + 1,
             tm.tm_mday, tm.tm_year % 100, tm.tm_hour, tm.tm_min, tm.tm_sec);
    fprintf(fp, "%s\n%s", stamp, header_line);
    for (int d = 0; d < DATA_NDEVICES; d++) {
        print_device(fp, names[d], &dev[d]);
        dm.r_s += dev[d].r_s;
        dm.rkb_s += dev[d].rkb_s;
        dm.w_s += dev[d].w_s;
        dm.wkb_s += dev[d].wkb_s;
    }
    print_device(fp, "dm-0", &dm);
    fputs("\n\n", fp);
}

/* Weights that split one interval's traffic over the servers' devices: fixed shares
 * with small noise, normalised so the file system's total is exact. */
static void draw_weights(gsl_rng *rng, double w[DATA_NSERVERS][DATA_NDEVICES])
{
    double sum = 0.0;

    for (int h = 0; h < DATA_NSERVERS; h++) {
        for (int d = 0; d < DATA_NDEVICES; d++) {
            w[h][d] =
                server_share[h] * device_share[d] * data_unit_lognormal(rng, SPLIT_SIGMA);
            sum += w[h][d];
        }
    }
    for (int h = 0; h < DATA_NSERVERS; h++) {
        for (int d = 0; d < DATA_NDEVICES; d++)
            w[h][d] /= sum;
    }
}

static void device_lines(gsl_rng *rng, const struct data_volume *v,
                         struct device_line out[DATA_NSERVERS][DATA_NDEVICES])
{
    double wr[DATA_NSERVERS][DATA_NDEVICES], ww[DATA_NSERVERS][DATA_NDEVICES];

    draw_weights(rng, wr);
    draw_weights(rng, ww);
    for (int h = 0; h < DATA_NSERVERS; h++) {
        for (int d = 0; d < DATA_NDEVICES; d++) {
            out[h][d].r_s = wr[h][d] * v->read_ops / DATA_INTERVAL_S;
            out[h][d].rkb_s = wr[h][d] * v->read_bytes / 1024.0 / DATA_INTERVAL_S;
            out[h][d].w_s = ww[h][d] * v->write_ops / DATA_INTERVAL_S;
            out[h][d].wkb_s = ww[h][d] * v->write_bytes / 1024.0 / DATA_INTERVAL_S;
        }
    }
}

/* The banner and the since-boot report iostat prints first (consumers drop it): a
 * quieter average over the weeks the server has been up. */
static void print_start(FILE *fp, const char *host, double at_s,
                        const struct data_volume *v)
{
    char date[40];
    struct device_line boot[DATA_NDEVICES];
    struct tm tm = utc_at(at_s);

    snprintf(date, sizeof date, "%02d/%02d/%02d", tm.tm_mon + 1, tm.tm_mday,
             tm.tm_year % 100);
    fprintf(fp, "Linux 6.1.0-18-amd64 (%s) \t%s \t_x86_64_\t(32 CPU)\n\n", host, date);
    for (int d = 0; d < DATA_NDEVICES; d++) {
        boot[d].r_s = 0.6 * v->read_ops / DATA_INTERVAL_S / 8.0;
        boot[d].rkb_s = 0.6 * v->read_bytes / 1024.0 / DATA_INTERVAL_S / 8.0;
        boot[d].w_s = 0.6 * v->write_ops / DATA_INTERVAL_S / 8.0;
        boot[d].wkb_s = 0.6 * v->write_bytes / 1024.0 / DATA_INTERVAL_S / 8.0;
    }
    print_report(fp, at_s, boot);
}

/* Closes every open file; nonzero when a close (the last flush) failed. */
static int close_all(FILE *fp[DATA_NSERVERS])
{
    int bad = 0;

    for (int h = 0; h < DATA_NSERVERS; h++) {
        if (fp[h] != NULL)
            bad |= fclose(fp[h]) != 0;
        fp[h] = NULL;
    }
    return bad;
}

static void server_path(const struct data_params *p, int fs, int h, char *out,
                        size_t size)
{
    snprintf(out, size, "%s/iostat/scratch%d/s%d-ds%02d.iostat.txt", p->out_dir, fs + 1,
             fs + 1, h + 1);
}

static enum status open_servers(const struct data_params *p, int fs,
                                FILE *fp[DATA_NSERVERS], struct error *err)
{
    char path[4096];

    for (int h = 0; h < DATA_NSERVERS; h++) {
        server_path(p, fs, h, path, sizeof path);
        fp[h] = fopen(path, "w");
        if (fp[h] == NULL) {
            close_all(fp);
            return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
        }
    }
    return STATUS_OK;
}

/* A file is last written at its last report or later: a series that ends after now
 * (more days than have passed since DATA_EPOCH_START) gets its end as the files'
 * mtime, or ingest would set those reports aside as stamped in the future. */
static enum status date_servers(const struct data_params *p, int fs, double end_s,
                                struct error *err)
{
    const time_t end = (time_t)(DATA_EPOCH_START + (long long)end_s);
    char path[4096];

    if (end <= time(NULL))
        return STATUS_OK;
    for (int h = 0; h < DATA_NSERVERS; h++) {
        const struct timespec at[2] = {{.tv_sec = end}, {.tv_sec = end}};
        server_path(p, fs, h, path, sizeof path);
        if (utimensat(AT_FDCWD, path, at, 0) != 0)
            return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    }
    return STATUS_OK;
}

static int reports_from(int fs, int h)
{
    return fs == LATE_FS && h == LATE_SERVER ? LATE_REPORTS : 0;
}

/* The reports of one file system's servers, written side by side so each interval's
 * split is drawn once for all of them. */
static enum status write_fs(const struct data_params *p, const struct data_traffic *tr,
                            gsl_rng *rng, int fs, struct error *err)
{
    FILE *fp[DATA_NSERVERS] = {NULL};
    struct device_line lines[DATA_NSERVERS][DATA_NDEVICES];
    char host[32];
    enum status rc = open_servers(p, fs, fp, err);
    int bad = 0;

    if (rc != STATUS_OK)
        return rc;
    for (size_t k = 0; k < tr->n; k++) {
        device_lines(rng, &tr->fs[fs][k], lines);
        for (int h = 0; h < DATA_NSERVERS; h++) {
            if ((size_t)reports_from(fs, h) == k) {
                snprintf(host, sizeof host, "s%d-ds%02d", fs + 1, h + 1);
                print_start(fp[h], host, (double)k * DATA_INTERVAL_S, &tr->fs[fs][0]);
            }
            if ((size_t)reports_from(fs, h) <= k)
                print_report(fp[h], (double)(k + 1) * DATA_INTERVAL_S, lines[h]);
        }
    }
    for (int h = 0; h < DATA_NSERVERS; h++)
        bad |= ferror(fp[h]);
    bad |= close_all(fp);
    if (bad != 0) {
        return error_set(err, STATUS_NOT_FOUND, "writing the iostat text of scratch%d",
                         fs + 1);
    }
    return date_servers(p, fs, (double)tr->n * DATA_INTERVAL_S, err);
}

enum status data_iostat_write(const struct data_params *p, const struct data_traffic *tr,
                              gsl_rng *rng, struct error *err)
{
    for (int fs = 0; fs < DATA_NFS; fs++) {
        enum status rc = write_fs(p, tr, rng, fs, err);
        if (rc != STATUS_OK)
            return rc;
    }
    return STATUS_OK;
}
