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

/* One day of one file system's traffic: intervals first .. first + n - 1 of the
 * series, interval k covering (kΔ, (k+1)Δ] after the start. */
struct day_traffic {
    double interval_s; /* Δ */
    size_t first, n;
    struct data_volume *v; /* per interval: background plus jobs */
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

/* Adds the part in this day of v, moved evenly over [a_s, b_s] (a point when
 * b_s <= a_s). */
static void spread(struct day_traffic *tr, double a_s, double b_s,
                   const struct data_volume *v)
{
    const double dt = tr->interval_s;
    const long lo = (long)tr->first, hi = (long)(tr->first + tr->n) - 1;
    long first = lround(floor(a_s / dt));
    long last = lround(ceil(b_s / dt)) - 1;

    if (b_s <= a_s) {
        long k = lround(ceil(a_s / dt)) - 1;
        if (k >= lo && k <= hi)
            add_volume(&tr->v[k - lo], v, 1.0);
        return;
    }
    for (long k = first < lo ? lo : first; k <= last && k <= hi; k++) {
        double from = fmax(a_s, (double)k * dt);
        double to = fmin(b_s, (double)(k + 1) * dt);
        if (to > from)
            add_volume(&tr->v[k - lo], v, (to - from) / (b_s - a_s));
    }
}

static void add_job(struct day_traffic *tr, int fs, const struct data_job *job)
{
    for (size_t i = 0; i < job->nfiles; i++) {
        const struct data_file *f = &job->files[i];
        struct data_volume r = {(double)f->read_bytes, 0.0, (double)f->reads, 0.0};
        struct data_volume w = {0.0, (double)f->write_bytes, 0.0, (double)f->writes};

        if (f->fs != fs)
            continue; /* /home is not on the monitored servers */
        if (f->reads > 0)
            spread(tr, job->start_s + f->read_start_s, job->start_s + f->read_end_s, &r);
        if (f->writes > 0) {
            spread(tr, job->start_s + f->write_start_s, job->start_s + f->write_end_s,
                   &w);
        }
    }
}

/* Fills tr's intervals of file system fs: the background, then each job's files in
 * the jobs' order, so that every interval sums in the same order whatever the day. */
static void day_fill(struct day_traffic *tr, int fs, const struct data_background *bg,
                     const struct data_job *jobs, size_t njobs)
{
    const double dt = tr->interval_s;

    for (size_t i = 0; i < tr->n; i++) {
        const double k = (double)(tr->first + i);
        data_background_volume(bg, fs, k * dt, (k + 1) * dt, &tr->v[i]);
    }
    for (size_t j = 0; j < njobs; j++)
        add_job(tr, fs, &jobs[j]);
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

static void device_lines(gsl_rng *rng, const struct data_volume *v, double dt,
                         struct device_line out[DATA_NSERVERS][DATA_NDEVICES])
{
    double wr[DATA_NSERVERS][DATA_NDEVICES], ww[DATA_NSERVERS][DATA_NDEVICES];

    draw_weights(rng, wr);
    draw_weights(rng, ww);
    for (int h = 0; h < DATA_NSERVERS; h++) {
        for (int d = 0; d < DATA_NDEVICES; d++) {
            out[h][d].r_s = wr[h][d] * v->read_ops / dt;
            out[h][d].rkb_s = wr[h][d] * v->read_bytes / 1024.0 / dt;
            out[h][d].w_s = ww[h][d] * v->write_ops / dt;
            out[h][d].wkb_s = ww[h][d] * v->write_bytes / 1024.0 / dt;
        }
    }
}

/* The banner and the since-boot report iostat prints first (consumers drop it): a
 * quieter average over the weeks the server has been up. */
static void print_start(FILE *fp, const char *host, double at_s,
                        const struct data_volume *v, double dt)
{
    char date[40];
    struct device_line boot[DATA_NDEVICES];
    struct tm tm = utc_at(at_s);

    snprintf(date, sizeof date, "%02d/%02d/%02d", tm.tm_mon + 1, tm.tm_mday,
             tm.tm_year % 100);
    fprintf(fp, "Linux 6.1.0-18-amd64 (%s) \t%s \t_x86_64_\t(32 CPU)\n\n", host, date);
    for (int d = 0; d < DATA_NDEVICES; d++) {
        boot[d].r_s = 0.6 * v->read_ops / dt / 8.0;
        boot[d].rkb_s = 0.6 * v->read_bytes / 1024.0 / dt / 8.0;
        boot[d].w_s = 0.6 * v->write_ops / dt / 8.0;
        boot[d].wkb_s = 0.6 * v->write_bytes / 1024.0 / dt / 8.0;
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
    if (p->iostat_first_day == 0) {
        snprintf(out, size, "%s/iostat/scratch%d/s%d-ds%02d.iostat.txt", p->out_dir,
                 fs + 1, fs + 1, h + 1);
        return;
    }
    snprintf(out, size, "%s/iostat/scratch%d/s%d-ds%02d.days-%u-%u.iostat.txt",
             p->out_dir, fs + 1, fs + 1, h + 1, p->iostat_first_day, p->iostat_last_day);
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

/* Whether day d (0-based) is written. */
static bool day_written(const struct data_params *p, unsigned d)
{
    return p->iostat_first_day == 0 ||
           (d + 1 >= p->iostat_first_day && d + 1 <= p->iostat_last_day);
}

/* The reports of one file system's servers, written side by side so each interval's
 * split is drawn once for all of them, a day at a time. Every day's split is drawn,
 * written or not, so that a day reads the same in every chunk and in the whole. */
static enum status write_fs(const struct data_params *p, const struct data_background *bg,
                            const struct data_job *jobs, size_t njobs, gsl_rng *rng,
                            int fs, struct day_traffic *tr, struct error *err)
{
    FILE *fp[DATA_NSERVERS] = {NULL};
    struct device_line lines[DATA_NSERVERS][DATA_NDEVICES];
    struct data_volume boot = {0};
    char host[32];
    enum status rc = open_servers(p, fs, fp, err);
    const double dt = tr->interval_s;
    int bad = 0;

    if (rc != STATUS_OK)
        return rc;
    for (unsigned d = 0; d < p->days; d++) {
        tr->first = (size_t)d * tr->n;
        day_fill(tr, fs, bg, jobs, njobs);
        if (d == 0)
            boot = tr->v[0];
        const bool written = day_written(p, d);
        for (size_t i = 0; i < tr->n; i++) {
            const size_t k = tr->first + i;
            device_lines(rng, &tr->v[i], dt, lines);
            for (int h = 0; written && h < DATA_NSERVERS; h++) {
                const size_t from = (size_t)reports_from(fs, h);
                /* A chunk's file starts a run of its own at the chunk's first day. */
                const size_t starts = p->iostat_first_day == 0 || from > tr->first ||
                                              d + 1 != p->iostat_first_day
                                          ? from
                                          : tr->first;
                if (starts == k) {
                    snprintf(host, sizeof host, "s%d-ds%02d", fs + 1, h + 1);
                    print_start(fp[h], host, (double)k * dt, &boot, dt);
                }
                if (starts <= k)
                    print_report(fp[h], (double)(k + 1) * dt, lines[h]);
            }
        }
    }
    for (int h = 0; h < DATA_NSERVERS; h++)
        bad |= ferror(fp[h]);
    bad |= close_all(fp);
    if (bad != 0) {
        return error_set(err, STATUS_NOT_FOUND, "writing the iostat text of scratch%d",
                         fs + 1);
    }
    const unsigned last = p->iostat_first_day == 0 ? p->days : p->iostat_last_day;
    return date_servers(p, fs, (double)last * 86400.0, err);
}

enum status data_iostat_write(const struct data_params *p,
                              const struct data_background *bg,
                              const struct data_job *jobs, size_t njobs, gsl_rng *rng,
                              struct error *err)
{
    struct day_traffic tr = {.interval_s = (double)p->interval_s,
                             .n = 86400U / p->interval_s};
    enum status rc = STATUS_OK;

    tr.v = calloc(tr.n, sizeof *tr.v);
    if (tr.v == NULL)
        return error_set(err, STATUS_NOMEM, "a day of server traffic");
    for (int fs = 0; fs < DATA_NFS && rc == STATUS_OK; fs++)
        rc = write_fs(p, bg, jobs, njobs, rng, fs, &tr, err);
    free(tr.v);
    return rc;
}
