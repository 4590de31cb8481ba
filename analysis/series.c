/* series.c: the stored system-wide series of each file system (docs/method.md §1, as
 * ingest keeps it): a dirty day recomputed from its raw samples, and a rebuild of
 * every day. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY_S 86400.0

int64_t series_day_first_j(int64_t day, double delta_s)
{
    return (int64_t)ceil((double)day * DAY_S / delta_s) + 1;
}

int64_t series_day_of(int64_t j, double delta_s)
{
    int64_t d = (int64_t)floor((double)(j - 1) * delta_s / DAY_S);

    while (j < series_day_first_j(d, delta_s))
        d--;
    while (j >= series_day_first_j(d + 1, delta_s))
        d++;
    return d;
}

double series_grid(const struct analysis_settings *s, const struct db_series_fs *f)
{
    return s->base_granularity_s > 0 ? s->base_granularity_s : f->interval_s;
}

/* The streams of st as stats wants them, the servers numbered in order of st (whose
 * streams come ordered by server). *out is new. */
static enum status to_stats_streams(const struct db_streams *st,
                                    struct stats_stream **out, size_t *n_servers,
                                    struct error *err)
{
    struct stats_stream *streams = calloc(st->n > 0 ? st->n : 1, sizeof *streams);
    size_t servers = 0;

    *out = NULL;
    *n_servers = 0;
    if (streams == NULL)
        return error_set(err, STATUS_NOMEM, "streams");
    for (size_t i = 0; i < st->n; i++) {
        const struct db_stream *s = &st->streams[i];
        if (i == 0 || st->server_of[i] != st->server_of[i - 1])
            servers++;
        streams[i] = (struct stats_stream){.server = servers - 1,
                                           .end_s = s->end_s,
                                           .r = s->r,
                                           .w = s->w,
                                           .ro = s->ro,
                                           .wo = s->wo,
                                           .aqu_sz = s->aqu_sz,
                                           .util_pct = s->util_pct,
                                           .r_await_ms = s->r_await_ms,
                                           .w_await_ms = s->w_await_ms,
                                           .await_ms = s->await_ms,
                                           .ops_total = s->ops_total,
                                           .n = s->n,
                                           .delta_s = s->interval_s};
    }
    *out = streams;
    *n_servers = servers;
    return STATUS_OK;
}

/* Whether interval i of sums has anything to keep: a device reported part of it. An
 * interval left out reads back as a hole of zero rates, as one no sample reached. */
static bool interval_kept(const struct stats_series_sums *sums, size_t i)
{
    const struct stats_series *s = sums->s;
    const double v[8] = {s->r[i], s->w[i], s->ro[i],     s->wo[i],
                         s->q[i], s->u[i], s->aw_num[i], s->aw_den[i]};

    if (sums->devices[i] > 0)
        return true;
    for (size_t k = 0; k < 8; k++) {
        if (v[k] != 0.0) /* NAN too */
            return true;
    }
    return false;
}

enum status series_day_compute(struct db *db, const struct analysis_settings *s,
                               const struct db_series_fs *f, int64_t day,
                               struct series_day *out, struct error *err)
{
    double delta_s = f->delta_s, theta_s = s->theta_s;
    /* every sample that can reach the day: its interval or its snap (method §1) */
    double margin_s = 2.0 * fmax(delta_s, f->interval_s) + 2.0;
    double lo = (double)day * DAY_S - theta_s - margin_s;
    double hi = (double)(day + 1) * DAY_S - theta_s + margin_s;
    struct db_streams *st = NULL;
    struct stats_stream *streams = NULL;
    struct stats_series_sums *sums = NULL;
    size_t n_servers = 0;
    enum status rc;

    memset(out, 0, sizeof *out);
    out->j_lo = series_day_first_j(day, delta_s);
    out->j_hi = series_day_first_j(day + 1, delta_s) - 1;
    rc = db_series_day_samples(db, f->fs, (int64_t)floor(lo), (int64_t)ceil(hi), theta_s,
                               &st, err);
    if (rc == STATUS_OK)
        rc = to_stats_streams(st, &streams, &n_servers, err);
    if (rc == STATUS_OK) {
        rc = stats_series_sum_range(streams, st->n, n_servers, delta_s, out->j_lo,
                                    out->j_hi, &sums, err);
    }
    if (rc == STATUS_OK) {
        size_t n = sums->s->n;
        out->rows = calloc(n > 0 ? n : 1, sizeof *out->rows);
        if (out->rows == NULL)
            rc = error_set(err, STATUS_NOMEM, "series of a day");
        for (size_t i = 0; out->rows != NULL && i < n; i++) {
            const struct stats_series *v = sums->s;
            if (!interval_kept(sums, i))
                continue;
            out->rows[out->n_rows++] =
                (struct db_series_row){.j = v->j_first + (int64_t)i,
                                       .r = v->r[i],
                                       .w = v->w[i],
                                       .ro = v->ro[i],
                                       .wo = v->wo[i],
                                       .q = v->q[i],
                                       .u = v->u[i],
                                       .aw_num = v->aw_num[i],
                                       .aw_den = v->aw_den[i],
                                       .devices = sums->devices[i],
                                       .servers = sums->servers[i],
                                       .present = v->present[i] != 0};
        }
        out->facts.devices = sums->n_devices;
        out->facts.servers = sums->n_servers;
        for (size_t k = 0; rc == STATUS_OK && k < st->n; k++) {
            const struct db_stream *ds = &st->streams[k];
            for (size_t i = 0; i < ds->n; i++) {
                double e = ds->end_s[i];
                out->facts.samples +=
                    e > (double)day * DAY_S && e <= (double)(day + 1) * DAY_S;
            }
        }
    }
    if (rc != STATUS_OK) {
        error_wrap(err, "series of %s, day %lld", f->fs, (long long)day);
        series_day_clear(out);
    }
    stats_series_sums_free(sums);
    free(streams);
    db_streams_free(st);
    return rc;
}

void series_day_clear(struct series_day *d)
{
    free(d->rows);
    memset(d, 0, sizeof *d);
}

/* Recomputes one dirty day of file system f from its raw samples and stores it. */
static enum status day_refresh(struct db *db, const struct analysis_settings *s,
                               const struct db_series_fs *f,
                               const struct db_series_day *d, bool *current,
                               struct error *err)
{
    struct series_day day;
    enum status rc = series_day_compute(db, s, f, d->day, &day, err);

    if (rc == STATUS_OK) {
        rc = db_series_day_store(db, d, f->delta_s, day.j_lo, day.j_hi, day.rows,
                                 day.n_rows, &day.facts, current, err);
    }
    series_day_clear(&day);
    return rc;
}

enum status series_settings_check(struct db *db, const struct analysis_settings *s,
                                  enum series_state *state, struct error *err)
{
    struct db_series_settings have;
    enum status rc = db_series_settings_get(db, &have, err);

    *state = SERIES_NONE;
    if (rc != STATUS_OK)
        return rc;
    /* Settings that built nothing bind nothing: the first series takes s's. */
    if (!have.built || have.empty)
        return STATUS_OK;
    *state = have.theta_s == s->theta_s && have.delta_s == s->base_granularity_s
                 ? SERIES_SAME
                 : SERIES_OTHER;
    if (*state == SERIES_OTHER) {
        return error_set(err, STATUS_INVALID,
                         "the stored series were built with sample_offset_s %g and "
                         "granularity_s %g, the configuration has %g and %g: run "
                         "'iocontend db rebuild-series'",
                         have.theta_s, have.delta_s, s->theta_s, s->base_granularity_s);
    }
    return STATUS_OK;
}

enum status series_refresh_days(struct db *db, const struct analysis_settings *s,
                                int64_t lo_day, int64_t hi_day,
                                const struct progress *progress,
                                struct series_refresh *out, struct error *err)
{
    struct db_series_fs *fs = NULL;
    struct db_series_day *days = NULL;
    size_t n_fs = 0, n_days = 0;
    enum series_state state;
    enum status rc = series_settings_check(db, s, &state, err);

    memset(out, 0, sizeof *out);
    if (rc != STATUS_OK)
        return rc;
    if (state == SERIES_NONE) {
        /* a database from before the series (or one never refreshed): every day */
        long long n;
        rc = db_series_rebuild_begin(db, s->theta_s, s->base_granularity_s, &n, err);
        if (rc != STATUS_OK)
            return rc;
        if (n > 0)
            log_info("series: building the series of %lld days from the samples", n);
        lo_day = INT64_MIN;
        hi_day = INT64_MAX;
    }
    rc = db_series_fs_list(db, &fs, &n_fs, err);
    /* A file system whose coarsest interval (or the configured Δ) moved to another
     * grid: every day it has is recomputed on the new one. */
    for (size_t i = 0; rc == STATUS_OK && i < n_fs; i++) {
        double grid = series_grid(s, &fs[i]);
        if (fs[i].delta_s == grid)
            continue;
        if (fs[i].delta_s > 0) {
            log_info("series: %s moves from a grid of %g s to %g s: every day is "
                     "recomputed",
                     fs[i].fs, fs[i].delta_s, grid);
        }
        rc = db_series_fs_regrid(db, fs[i].fs, grid, err);
        fs[i].delta_s = grid;
        lo_day = INT64_MIN;
        hi_day = INT64_MAX;
    }
    if (rc == STATUS_OK)
        rc = db_series_dirty_list(db, NULL, lo_day, hi_day, &days, &n_days, err);
    for (size_t k = 0; rc == STATUS_OK && k < n_days; k++) {
        const struct db_series_fs *f = NULL;
        bool current = false;
        for (size_t i = 0; i < n_fs && f == NULL; i++) {
            if (strcmp(fs[i].fs, days[k].fs) == 0)
                f = &fs[i];
        }
        if (f == NULL || !(f->delta_s > 0)) { /* no sample of it left */
            rc = db_series_day_store(db, &days[k], 0, 0, -1, NULL, 0,
                                     &(struct db_series_day_facts){0}, &current, err);
        } else {
            rc = day_refresh(db, s, f, &days[k], &current, err);
        }
        out->days++;
        out->stale += !current;
        if (progress != NULL && progress->fn != NULL)
            progress->fn(progress->arg, k + 1, n_days, "days of the series");
    }
    free(fs);
    free(days);
    return rc;
}

enum status analysis_series_refresh(struct db *db, const struct analysis_settings *s,
                                    const struct progress *progress,
                                    struct series_refresh *out, struct error *err)
{
    return series_refresh_days(db, s, INT64_MIN, INT64_MAX, progress, out, err);
}

enum status analysis_series_rebuild(struct db *db, const struct analysis_settings *s,
                                    const struct progress *progress,
                                    struct series_refresh *out, struct error *err)
{
    long long n;
    enum status rc =
        db_series_rebuild_begin(db, s->theta_s, s->base_granularity_s, &n, err);

    memset(out, 0, sizeof *out);
    if (rc != STATUS_OK)
        return rc;
    log_info("series: rebuilding %lld days from the samples (sample_offset_s %g, "
             "granularity_s %g)",
             n, s->theta_s, s->base_granularity_s);
    return series_refresh_days(db, s, INT64_MIN, INT64_MAX, progress, out, err);
}
