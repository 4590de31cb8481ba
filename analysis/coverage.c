/* coverage.c: the coverage of the monitored file systems (docs/method.md §7, Fig. 13):
 * how much of what the servers saw the jobs' logs account for, per interval. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The windows of the jobs on the file systems of one scope, as stats wants them. */
struct scope_windows {
    double *start_s, *end_s, *bytes;
    size_t n;
    size_t skipped; /* unusable windows (not finite, reversed, negative bytes) */
};

static bool fs_in_scope(const char *fs, const char *scope, const struct db_fs *all,
                        size_t n_all)
{
    if (strncmp(scope, "fs:", 3) == 0)
        return strcmp(fs, scope + 3) == 0;
    for (size_t f = 0; f < n_all; f++) {
        if (strcmp(fs, all[f].name) == 0)
            return true;
    }
    return false;
}

/* The monitored windows of jobs on the file systems of scope (docs/method.md §7: files on
 * monitored file systems; only those with samples can be set against S). A window
 * stats would refuse is a fact about one log: skipped and counted, not fatal. */
static void collect_windows(const struct db_jobs *jobs, const char *scope,
                            const struct db_fs *fs, size_t n_fs, struct scope_windows *w)
{
    w->n = 0;
    w->skipped = 0;
    for (size_t k = 0; k < jobs->n_all_windows; k++) {
        const struct db_window *dw = &jobs->all_windows[k];
        if (!dw->monitored || !fs_in_scope(dw->fs, scope, fs, n_fs))
            continue;
        if (!(isfinite(dw->start_s) && isfinite(dw->end_s) && dw->start_s <= dw->end_s &&
              dw->bytes >= 0)) {
            w->skipped++;
            continue;
        }
        w->start_s[w->n] = dw->start_s;
        w->end_s[w->n] = dw->end_s;
        w->bytes[w->n] = (double)dw->bytes;
        w->n++;
    }
}

/* The span the logs cover: the first job start to the last job end. false when no
 * job has a finite span. */
static bool logged_span(const struct db_jobs *jobs, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        if (isfinite(j->start_s) && isfinite(j->end_s) && j->start_s <= j->end_s) {
            *lo = fmin(*lo, j->start_s);
            *hi = fmax(*hi, j->end_s);
        }
    }
    return *lo <= *hi;
}

/* How far beyond a job's span the coverage keeps the servers' intervals: a day, as
 * the fingerprint's days reach (db_group_inputs_read), so the plot shows the day
 * around the jobs and every interval a job's window touches is kept. */
#define JOBS_MARGIN_S 86400.0

/* The union of the jobs' spans, each widened by JOBS_MARGIN_S, ascending and merged. */
struct job_spans {
    double *lo, *hi;
    size_t n;
};

static int compare_span(const void *a, const void *b)
{
    const double *x = a, *y = b;

    return (x[0] > y[0]) - (x[0] < y[0]);
}

static enum status job_spans_of(const struct db_jobs *jobs, struct job_spans *out,
                                struct error *err)
{
    double *pairs = malloc((jobs->n > 0 ? jobs->n : 1) * 2 * sizeof *pairs);
    size_t m = 0;

    *out = (struct job_spans){0};
    out->lo = malloc((jobs->n > 0 ? jobs->n : 1) * sizeof(double));
    out->hi = malloc((jobs->n > 0 ? jobs->n : 1) * sizeof(double));
    if (pairs == NULL || out->lo == NULL || out->hi == NULL) {
        free(pairs);
        free(out->lo);
        free(out->hi);
        *out = (struct job_spans){0};
        return error_set(err, STATUS_NOMEM, "spans of %zu jobs", jobs->n);
    }
    for (size_t i = 0; i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        if (isfinite(j->start_s) && isfinite(j->end_s) && j->start_s <= j->end_s) {
            pairs[2 * m] = j->start_s - JOBS_MARGIN_S;
            pairs[2 * m + 1] = j->end_s + JOBS_MARGIN_S;
            m++;
        }
    }
    qsort(pairs, m, 2 * sizeof *pairs, compare_span);
    for (size_t i = 0; i < m; i++) {
        if (out->n > 0 && pairs[2 * i] <= out->hi[out->n - 1]) {
            out->hi[out->n - 1] = fmax(out->hi[out->n - 1], pairs[2 * i + 1]);
            continue;
        }
        out->lo[out->n] = pairs[2 * i];
        out->hi[out->n] = pairs[2 * i + 1];
        out->n++;
    }
    free(pairs);
    return STATUS_OK;
}

static void job_spans_clear(struct job_spans *s)
{
    free(s->lo);
    free(s->hi);
    *s = (struct job_spans){0};
}

/* Keeps only the intervals (T_i − Δ, T_i] of out that overlap the jobs' spans, and
 * sums c's D and S again over those kept, in the same order stats did. The series
 * runs from the first sample to the last, whatever they are: samples from a clock
 * reset to 2000 once made 14 M intervals of a day's jobs (2.7 GB, every /coverage
 * request reading them); a year with no job has no coverage to show. */
static void keep_job_intervals(const struct job_spans *spans, double delta_s,
                               struct db_coverage *c, struct db_coverage_series *out)
{
    size_t w = 0, k = 0;

    c->sum_d_bytes = c->sum_s_bytes = 0;
    c->intervals = 0;
    for (size_t i = 0; i < out->n; i++) {
        double t = out->end_s[i];
        while (k < spans->n && spans->hi[k] <= t - delta_s)
            k++;
        if (k == spans->n || !(t > spans->lo[k]))
            continue;
        out->end_s[w] = t;
        out->d_bytes[w] = out->d_bytes[i];
        out->s_bytes[w] = out->s_bytes[i];
        if (!isnan(out->d_bytes[w]) && !isnan(out->s_bytes[w])) {
            c->sum_d_bytes += out->d_bytes[w];
            c->sum_s_bytes += out->s_bytes[w];
            c->intervals++;
        }
        w++;
    }
    out->n = w;
    c->coverage = c->sum_s_bytes > 0.0 ? c->sum_d_bytes / c->sum_s_bytes : (double)NAN;
}

/* D and S of one scope over its series, into c and the series arrays (new). */
static enum status scope_coverage(const struct stats_series *s, double delta_s,
                                  const struct scope_windows *w, double log_lo,
                                  double log_hi, const struct job_spans *spans,
                                  struct db_coverage *c, struct db_coverage_series *out,
                                  struct error *err)
{
    struct stats_coverage_windows sw = {w->start_s, w->end_s, w->bytes, w->n};
    struct stats_coverage cov;
    size_t cap = s->n > 0 ? s->n : 1;

    out->end_s = malloc(cap * sizeof(double));
    out->d_bytes = malloc(cap * sizeof(double));
    out->s_bytes = malloc(cap * sizeof(double));
    if (out->end_s == NULL || out->d_bytes == NULL || out->s_bytes == NULL)
        return error_set(err, STATUS_NOMEM, "coverage of %s", c->scope);
    enum status rc = stats_coverage_compute(s, &sw, log_lo, log_hi, out->d_bytes,
                                            out->s_bytes, &cov, err);
    if (rc != STATUS_OK)
        return rc;
    out->n = s->n;
    for (size_t i = 0; i < s->n; i++)
        out->end_s[i] = s->origin_s + (double)(s->j_first + (int64_t)i) * s->delta_s;
    c->granularity_s = delta_s;
    c->coverage = cov.coverage;
    c->sum_d_bytes = cov.sum_d_bytes;
    c->sum_s_bytes = cov.sum_s_bytes;
    c->intervals = (long)cov.n_both;
    c->d_total_bytes = cov.d_total_bytes;
    c->log_start_s = log_lo;
    c->log_end_s = log_hi;
    keep_job_intervals(spans, delta_s, c, out);
    return STATUS_OK;
}

/* ---- a day at a time (migration 0018) ------------------------------------------ */

/* The intervals a computation of the series reads at most at once: a day of 1 s
 * samples, 91 days of 60 s. */
#define CHUNK_INTERVALS 131072

/* Whether interval (t − Δ, t] overlaps a span of spans, *k the first span not
 * wholly before it (t ascending between calls), as keep_job_intervals decides. */
static bool kept_at(const struct job_spans *spans, double t, double delta_s, size_t *k)
{
    while (*k < spans->n && spans->hi[*k] <= t - delta_s)
        (*k)++;
    return *k < spans->n && t > spans->lo[*k];
}

/* j within plan's series: its first interval to its last. */
static int64_t clip_j(const struct scope_plan *plan, int64_t j)
{
    return j < plan->j_first ? plan->j_first : j > plan->j_last ? plan->j_last : j;
}

/* Whether a day's stored rows are of its inputs now. */
static bool day_current(const struct db_coverage_day *d)
{
    return d->stored && strcmp(d->key, d->stored_key) == 0;
}

/* The days (UTC, of T_{j-1}) that hold an interval of plan's series overlapping a
 * span, ascending: a day either side of an edge at most holds none. */
static enum status days_of(const struct scope_plan *plan, const struct job_spans *spans,
                           int64_t **out, size_t *n, struct error *err)
{
    size_t cap = 16;
    int64_t *days = malloc(cap * sizeof *days);
    double d = plan->delta_s;

    *out = NULL;
    *n = 0;
    if (days == NULL)
        return error_set(err, STATUS_NOMEM, "days of the coverage");
    for (size_t k = 0; plan->any && k < spans->n; k++) {
        int64_t a = (int64_t)floor(spans->lo[k] / d),
                b = (int64_t)ceil(spans->hi[k] / d) + 1;
        if (b < plan->j_first || a > plan->j_last)
            continue;
        a = clip_j(plan, a);
        b = clip_j(plan, b);
        for (int64_t day = series_day_of(a, d); day <= series_day_of(b, d); day++) {
            if (*n > 0 && days[*n - 1] >= day)
                continue;
            if (*n == cap) {
                int64_t *grown = realloc(days, 2 * cap * sizeof *days);
                if (grown == NULL) {
                    free(days);
                    return error_set(err, STATUS_NOMEM, "days of the coverage");
                }
                days = grown;
                cap *= 2;
            }
            days[(*n)++] = day;
        }
    }
    *out = days;
    return STATUS_OK;
}

/* The intervals of day on plan's grid, clipped to its series: j_lo..j_hi. */
static void day_range(const struct scope_plan *plan, int64_t day, int64_t *j_lo,
                      int64_t *j_hi)
{
    *j_lo = series_day_first_j(day, plan->delta_s);
    *j_hi = series_day_first_j(day + 1, plan->delta_s) - 1;
    /* a day past an end of the series keeps j_lo > j_hi: no interval */
    *j_lo = *j_lo > plan->j_first ? *j_lo : plan->j_first;
    *j_hi = *j_hi < plan->j_last ? *j_hi : plan->j_last;
}

/* What a day's D_i and S_i depend on besides the stored series days (which the
 * database adds): Δ, the gap rule, its intervals, and the spans, the logged span and
 * the windows that reach them, exactly (%a). A new text (NULL without memory). */
static char *day_text(const struct scope_plan *plan, const struct analysis_settings *s,
                      int64_t day, const struct job_spans *spans,
                      const struct scope_windows *w, double log_lo, double log_hi)
{
    int64_t j_lo, j_hi;
    day_range(plan, day, &j_lo, &j_hi);
    double d = plan->delta_s, t0 = (double)(j_lo - 1) * d - d, t1 = (double)j_hi * d + d;
    char *text = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&text, &size);

    if (fp == NULL)
        return NULL;
    /* The series' ends as far as the gap rule reaches from the day: a fill near
     * midnight depends on them. */
    const int64_t m = (int64_t)s->fill_max + 2;
    int64_t r_lo = clip_j(plan, j_lo - m), r_hi = clip_j(plan, j_hi + m);
    fprintf(fp, "v1 %a %u %lld %lld %lld %lld |", d, s->fill_max, (long long)j_lo,
            (long long)j_hi, (long long)r_lo, (long long)r_hi);
    for (size_t f = 0; f < plan->n_fs; f++)
        fprintf(fp, " %s %a", plan->fs[f].fs, plan->fs[f].delta_s);
    fprintf(fp, " | %a %a |", fmax(log_lo, t0), fmin(log_hi, t1));
    for (size_t k = 0; k < spans->n; k++) {
        if (spans->hi[k] >= t0 && spans->lo[k] <= t1)
            fprintf(fp, " %a %a", fmax(spans->lo[k], t0), fmin(spans->hi[k], t1));
    }
    fprintf(fp, " |");
    for (size_t k = 0; k < w->n; k++) {
        if (w->end_s[k] >= t0 && w->start_s[k] <= t1)
            fprintf(fp, " %a %a %a", w->start_s[k], w->end_s[k], w->bytes[k]);
    }
    if (fclose(fp) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Days first..last of days (consecutive, stale) computed from the series and stored. */
static enum status days_compute(struct db *db, const struct analysis_settings *s,
                                const struct scope_plan *plan, const char *scope,
                                struct db_coverage_day *days, size_t first, size_t last,
                                const struct job_spans *spans,
                                const struct scope_windows *w, double log_lo,
                                double log_hi, struct error *err)
{
    const double d = plan->delta_s;
    const int64_t m = (int64_t)s->fill_max + 2; /* the gap rule's reach, and one */
    int64_t a, b, unused;
    day_range(plan, days[first].day, &a, &unused);
    day_range(plan, days[last].day, &unused, &b);
    a = clip_j(plan, a - m);
    b = clip_j(plan, b + m);
    struct stats_series *ser = NULL;
    struct scope_windows sub = {0};
    struct db_coverage_series out = {0};
    double *dd = NULL, *ss = NULL;
    enum status rc = analysis_scope_series_span(db, s, scope, d, a, b, &ser, err);

    if (rc != STATUS_OK)
        return rc;
    size_t n = ser->n > 0 ? ser->n : 1;
    dd = malloc(n * sizeof *dd);
    ss = malloc(n * sizeof *ss);
    out.end_s = malloc(n * sizeof(double));
    out.d_bytes = malloc(n * sizeof(double));
    out.s_bytes = malloc(n * sizeof(double));
    sub.start_s = malloc((w->n > 0 ? w->n : 1) * sizeof(double));
    sub.end_s = malloc((w->n > 0 ? w->n : 1) * sizeof(double));
    sub.bytes = malloc((w->n > 0 ? w->n : 1) * sizeof(double));
    if (dd == NULL || ss == NULL || out.end_s == NULL || out.d_bytes == NULL ||
        out.s_bytes == NULL || sub.start_s == NULL || sub.end_s == NULL ||
        sub.bytes == NULL) {
        rc = error_set(err, STATUS_NOMEM, "coverage of %s", scope);
        goto out;
    }
    /* The windows that reach the piece: the rest would add only to d_total. */
    double t_lo = (double)(a - 1) * d, t_hi = (double)b * d;
    for (size_t k = 0; k < w->n; k++) {
        if (w->end_s[k] >= t_lo && w->start_s[k] <= t_hi) {
            sub.start_s[sub.n] = w->start_s[k];
            sub.end_s[sub.n] = w->end_s[k];
            sub.bytes[sub.n] = w->bytes[k];
            sub.n++;
        }
    }
    struct stats_coverage_windows sw = {sub.start_s, sub.end_s, sub.bytes, sub.n};
    struct stats_coverage cov;
    rc = stats_coverage_compute(ser, &sw, log_lo, log_hi, dd, ss, &cov, err);
    for (size_t i = first; rc == STATUS_OK && i <= last; i++) {
        struct db_coverage_day *day = &days[i];
        int64_t j_lo, j_hi;
        size_t k = 0;
        day_range(plan, day->day, &j_lo, &j_hi);
        out.n = 0;
        day->sum_d_bytes = day->sum_s_bytes = 0;
        day->intervals = 0;
        for (int64_t j = j_lo; j <= j_hi; j++) {
            size_t at = (size_t)(j - ser->j_first);
            double t = ser->origin_s + (double)j * ser->delta_s;
            if (j < ser->j_first || at >= ser->n || !kept_at(spans, t, d, &k))
                continue;
            out.end_s[out.n] = t;
            out.d_bytes[out.n] = dd[at];
            out.s_bytes[out.n] = ss[at];
            if (!isnan(dd[at]) && !isnan(ss[at])) {
                day->sum_d_bytes += dd[at];
                day->sum_s_bytes += ss[at];
                day->intervals++;
            }
            out.n++;
        }
        /* The whole day's T_i, not its clipped range: what an earlier extent of the
         * series stored there goes too. */
        day->end_lo_s = (double)series_day_first_j(day->day, d) * d;
        day->end_hi_s = (double)(series_day_first_j(day->day + 1, d) - 1) * d;
        rc = db_coverage_day_put(db, scope, d, day, &out, err);
    }
out:
    stats_series_free(ser);
    free(dd);
    free(ss);
    db_coverage_series_clear(&out);
    free(sub.start_s);
    free(sub.end_s);
    free(sub.bytes);
    return rc;
}

/* The coverage of one scope a day at a time (its transaction open): the days whose
 * inputs are as they were keep what they have; the others are computed. */
static enum status scope_by_day(struct db *db, const struct analysis_settings *s,
                                const struct scope_plan *plan,
                                const struct job_spans *spans,
                                const struct scope_windows *w, double log_lo,
                                double log_hi, struct db_coverage *c, size_t counts[2],
                                struct error *err)
{
    int64_t *day_list = NULL;
    size_t n = 0, fresh = 0;
    struct db_coverage_day *days = NULL;
    char **texts = NULL;
    const char **fs = calloc(plan->n_fs > 0 ? plan->n_fs : 1, sizeof *fs);
    enum status rc = fs == NULL ? error_set(err, STATUS_NOMEM, "coverage of %s", c->scope)
                                : db_coverage_open(db, c->scope, plan->delta_s, err);

    if (rc == STATUS_OK)
        rc = days_of(plan, spans, &day_list, &n, err);
    if (rc == STATUS_OK) {
        days = calloc(n > 0 ? n : 1, sizeof *days);
        texts = calloc(n > 0 ? n : 1, sizeof *texts);
        if (days == NULL || texts == NULL)
            rc = error_set(err, STATUS_NOMEM, "%zu days of coverage", n);
    }
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        days[i].day = day_list[i];
        texts[i] = day_text(plan, s, day_list[i], spans, w, log_lo, log_hi);
        if (texts[i] == NULL)
            rc = error_set(err, STATUS_NOMEM, "%zu days of coverage", n);
    }
    for (size_t f = 0; fs != NULL && f < plan->n_fs; f++)
        fs[f] = plan->fs[f].fs;
    /* The series days a day's intervals reach: the gap rule's intervals past its
     * midnights (a day each side at any Δ and fill_max of a day or less). */
    int64_t margin = (int64_t)ceil(((double)s->fill_max + 2) * plan->delta_s / 86400.0);
    if (rc == STATUS_OK) {
        rc = db_coverage_day_keys(db, c->scope, fs, plan->n_fs, margin,
                                  (const char *const *)texts, days, n, err);
    }
    /* The stale days in runs of consecutive days, a piece of the series at a time. */
    size_t per = (size_t)fmax(1.0, floor(CHUNK_INTERVALS * plan->delta_s / 86400.0));
    for (size_t i = 0; rc == STATUS_OK && i < n;) {
        if (day_current(&days[i])) {
            i++;
            continue;
        }
        size_t last = i;
        while (last + 1 < n && last + 1 - i < per &&
               days[last + 1].day == days[last].day + 1 && !day_current(&days[last + 1]))
            last++;
        rc = days_compute(db, s, plan, c->scope, days, i, last, spans, w, log_lo, log_hi,
                          err);
        fresh += last - i + 1;
        i = last + 1;
    }
    if (rc == STATUS_OK)
        rc = db_coverage_days_keep(db, c->scope, plan->delta_s, days, n, err);
    if (rc == STATUS_OK) {
        c->granularity_s = plan->delta_s;
        c->sum_d_bytes = c->sum_s_bytes = 0;
        c->intervals = 0;
        for (size_t i = 0; i < n; i++) {
            c->sum_d_bytes += days[i].sum_d_bytes;
            c->sum_s_bytes += days[i].sum_s_bytes;
            c->intervals += days[i].intervals;
        }
        c->coverage =
            c->sum_s_bytes > 0.0 ? c->sum_d_bytes / c->sum_s_bytes : (double)NAN;
        c->d_total_bytes = 0;
        for (size_t k = 0; k < w->n; k++)
            c->d_total_bytes += w->bytes[k];
        c->log_start_s = log_lo;
        c->log_end_s = log_hi;
        log_debug("coverage %s: %zu days, %zu computed, %zu as they were", c->scope, n,
                  fresh, n - fresh);
        counts[0] += n;
        counts[1] += fresh;
    }
    for (size_t i = 0; texts != NULL && i < n; i++)
        free(texts[i]);
    free(texts);
    free(days);
    free(day_list);
    free(fs);
    return rc;
}

/* The coverage of every scope of c (n_fs + 1: all, then each file system) a day at a
 * time, in one transaction, when every scope's series are the stored ones: *done.
 * Else nothing is done and the caller computes each whole (from the raw samples). */
static enum status coverage_by_day(struct db *db, const struct analysis_settings *s,
                                   const struct db_jobs *jobs, const struct db_fs *fs,
                                   size_t n_fs, const struct job_spans *spans,
                                   double log_lo, double log_hi, struct scope_windows *w,
                                   struct db_coverage *c, size_t counts[2], bool *done,
                                   struct error *err)
{
    struct scope_plan *plans = calloc(n_fs + 1, sizeof *plans);
    enum status rc = STATUS_OK;
    bool stored = true;

    *done = false;
    if (plans == NULL)
        return error_set(err, STATUS_NOMEM, "coverage");
    for (size_t k = 0; rc == STATUS_OK && stored && k <= n_fs; k++) {
        rc = analysis_scope_plan(db, s, c[k].scope, &plans[k], err);
        stored = rc == STATUS_OK && plans[k].stored;
    }
    if (rc == STATUS_OK && stored)
        rc = db_coverage_begin(db, err);
    for (size_t k = 0; rc == STATUS_OK && stored && k <= n_fs; k++) {
        collect_windows(jobs, c[k].scope, fs, n_fs, w);
        if (w->skipped > 0) {
            log_warn("coverage %s: %zu unusable windows left out", c[k].scope,
                     w->skipped);
        }
        rc = scope_by_day(db, s, &plans[k], spans, w, log_lo, log_hi, &c[k], counts, err);
        if (rc != STATUS_OK)
            db_coverage_abort(db);
    }
    if (rc == STATUS_OK && stored) {
        rc = db_coverage_commit(db, c, n_fs + 1, err);
        *done = rc == STATUS_OK;
    }
    for (size_t k = 0; k <= n_fs; k++)
        scope_plan_clear(&plans[k]);
    free(plans);
    return rc;
}

/* Computes and stores the coverage of every file system with samples and of all of
 * them together; its summary line into line. */
enum status coverage_store(struct db *db, const struct analysis_settings *settings,
                           const struct db_jobs *jobs, char *line, size_t line_size,
                           struct error *err)
{
    struct db_fs *fs = NULL;
    size_t n_fs = 0, n = 0;
    struct db_coverage *c = NULL;
    struct db_coverage_series *series = NULL;
    struct scope_windows w = {0};
    struct job_spans spans = {0};
    double log_lo, log_hi;
    enum status rc;

    line[0] = '\0';
    rc = db_sample_filesystems(db, &fs, &n_fs, err);
    if (rc != STATUS_OK)
        return rc;
    if (!logged_span(jobs, &log_lo, &log_hi)) {
        snprintf(line, line_size, "no jobs: no coverage");
        free(fs);
        return STATUS_OK;
    }
    size_t n_win = jobs->n_all_windows > 0 ? jobs->n_all_windows : 1;
    c = calloc(n_fs + 1, sizeof *c);
    series = calloc(n_fs + 1, sizeof *series);
    w.start_s = malloc(n_win * sizeof(double));
    w.end_s = malloc(n_win * sizeof(double));
    w.bytes = malloc(n_win * sizeof(double));
    if (c == NULL || series == NULL || w.start_s == NULL || w.end_s == NULL ||
        w.bytes == NULL) {
        rc = error_set(err, STATUS_NOMEM, "coverage");
        goto out;
    }
    rc = job_spans_of(jobs, &spans, err);
    if (rc != STATUS_OK)
        goto out;
    for (size_t k = 0; k <= n_fs; k++) {
        if (k == 0) {
            snprintf(c[k].scope, sizeof c[k].scope, "all");
        } else {
            snprintf(c[k].scope, sizeof c[k].scope, "fs:%s", fs[k - 1].name);
        }
    }
    bool by_day = false;
    size_t counts[2] = {0, 0}; /* the scopes' days, those computed */
    rc = coverage_by_day(db, settings, jobs, fs, n_fs, &spans, log_lo, log_hi, &w, c,
                         counts, &by_day, err);
    if (rc == STATUS_OK && by_day)
        n = n_fs + 1;
    /* "all" first (the series of every file system, as the associations use), then
     * each file system on its own series. */
    for (size_t k = 0; rc == STATUS_OK && !by_day && k <= n_fs; k++) {
        struct stats_series *s = NULL;
        double delta_s = 0;
        rc = analysis_scope_series(db, settings, c[k].scope, &s, &delta_s, err);
        if (rc == STATUS_OK) {
            collect_windows(jobs, c[k].scope, fs, n_fs, &w);
            if (w.skipped > 0) {
                log_warn("coverage %s: %zu unusable windows left out", c[k].scope,
                         w.skipped);
            }
            rc = scope_coverage(s, delta_s, &w, log_lo, log_hi, &spans, &c[k], &series[k],
                                err);
        }
        stats_series_free(s);
        n = k + 1;
    }
    if (rc == STATUS_OK && !by_day)
        rc = db_coverage_replace(db, c, series, n, err);
    if (rc == STATUS_OK) {
        /* "scratch1 0.87, scratch2 0.91, all 0.89": the file systems, then together. */
        size_t used = 0;
        for (size_t k = 1; k <= n; k++) {
            const struct db_coverage *ck = &c[k % n];
            const char *name = k % n == 0 ? "all" : ck->scope + 3;
            char value[32];
            if (isfinite(ck->coverage)) {
                snprintf(value, sizeof value, "%.2f", ck->coverage);
            } else {
                snprintf(value, sizeof value, "null");
            }
            int wrote = snprintf(line + used, line_size - used, "%s%s %s",
                                 k > 1 ? ", " : "", name, value);
            if (wrote < 0 || (size_t)wrote >= line_size - used)
                break;
            used += (size_t)wrote;
        }
        if (by_day && used < line_size) {
            snprintf(line + used, line_size - used,
                     " (%zu days of the scopes, %zu computed, the rest as stored)",
                     counts[0], counts[1]);
        }
    }
out:
    job_spans_clear(&spans);
    for (size_t k = 0; series != NULL && k <= n_fs; k++)
        db_coverage_series_clear(&series[k]);
    free(series);
    free(c);
    free(w.start_s);
    free(w.end_s);
    free(w.bytes);
    free(fs);
    return rc;
}

/* The largest finite value of v, 0 when there is none. */
static double max_finite(const double *v, size_t n)
{
    double m = 0;

    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    }
    return m;
}

void analysis_coverage_range(const struct db_coverage_series *s,
                             struct coverage_range *out)
{
    *out = (struct coverage_range){.max_d_bytes = max_finite(s->d_bytes, s->n),
                                   .max_s_bytes = max_finite(s->s_bytes, s->n)};
    for (size_t i = 0; i < s->n; i++) {
        if (isfinite(s->d_bytes[i]) && isfinite(s->s_bytes[i])) {
            out->sum_d_bytes += s->d_bytes[i];
            out->sum_s_bytes += s->s_bytes[i];
            out->intervals++;
        }
    }
}

void coverage_buckets_clear(struct coverage_buckets *b)
{
    if (b == NULL)
        return;
    free(b->d_min);
    free(b->d_max);
    free(b->s_min);
    free(b->s_max);
    b->d_min = b->d_max = b->s_min = b->s_max = NULL;
    b->n = 0;
}

/* v / max as the raw answer scales each D_i and S_i (Fig. 13): the bucket's min and
 * max of the scaled values are the scaled min and max, division by a positive number
 * being monotone in floating point too. */
static void scale(double *v, size_t n, double max)
{
    for (size_t k = 0; max > 0 && k < n; k++)
        v[k] /= max;
}

enum status analysis_coverage_buckets(struct db *db, const struct db_coverage *c,
                                      double from_s, double to_s, size_t n,
                                      struct coverage_buckets *out, struct error *err)
{
    struct db_coverage_span span;
    double first_end_s, last_end_s, level_s = 0;

    memset(out, 0, sizeof *out);
    if (n < 1)
        return error_set(err, STATUS_INVALID, "coverage buckets: %zu", n);
    enum status rc =
        db_coverage_extent(db, c->scope, from_s, to_s, &first_end_s, &last_end_s, err);
    if (rc != STATUS_OK)
        return rc;
    /* An open side at the intervals' first start or last end, else the logged
     * span's; an open side past every interval leaves every bucket empty. */
    double start_s = from_s, end_s = to_s;
    bool any = isfinite(first_end_s);
    if (!isfinite(start_s))
        start_s = any ? first_end_s - c->granularity_s : c->log_start_s;
    if (!isfinite(end_s))
        end_s = any ? last_end_s : c->log_end_s;
    end_s = fmax(end_s, start_s);
    if (!isfinite(start_s) || !isfinite(end_s)) {
        return error_set(err, STATUS_INVALID, "coverage buckets: %zu over [%g, %g)", n,
                         start_s, end_s);
    }
    /* No bucket shorter than an interval: buckets shorter than Δ alternate filled and
     * empty, so the lab's 1 s samples drew no line, while buckets of at least Δ each
     * hold the middle of an interval, so that contiguous samples draw a connected
     * line. A range shorter than Δ keeps n. */
    if (c->granularity_s > 0) {
        const double whole = floor((end_s - start_s) / c->granularity_s);
        if (whole >= 1 && (double)n > whole)
            n = (size_t)whole;
    }
    /* Wide buckets read the pre-buckets (migration 0019), not every interval. */
    double width_s = (end_s - start_s) / (double)n;
    rc = db_coverage_pre_level(db, c->scope, c->granularity_s, width_s, &level_s, err);
    if (rc == STATUS_OK)
        rc = db_coverage_span(db, c->scope, from_s, to_s, level_s, &span, err);
    if (rc != STATUS_OK)
        return rc;
    log_debug("coverage %s: %zu buckets of %g s from %s%g s", c->scope, n, width_s,
              level_s > 0 ? "pre-buckets of " : "intervals of ",
              level_s > 0 ? level_s : c->granularity_s);
    out->d_min = malloc(n * sizeof(double));
    out->d_max = malloc(n * sizeof(double));
    out->s_min = malloc(n * sizeof(double));
    out->s_max = malloc(n * sizeof(double));
    if (out->d_min == NULL || out->d_max == NULL || out->s_min == NULL ||
        out->s_max == NULL) {
        coverage_buckets_clear(out);
        return error_set(err, STATUS_NOMEM, "%zu coverage buckets", n);
    }
    out->n = n;
    out->start_s = start_s;
    out->width_s = width_s;
    out->pre_s = level_s;
    out->range = (struct coverage_range){span.sum_d_bytes, span.sum_s_bytes, span.both,
                                         span.max_d_bytes, span.max_s_bytes};
    rc = db_coverage_buckets(db, c->scope, from_s, to_s, level_s, start_s, out->width_s,
                             n, out->d_min, out->d_max, out->s_min, out->s_max, err);
    if (rc != STATUS_OK) {
        coverage_buckets_clear(out);
        return rc;
    }
    scale(out->d_min, n, span.max_d_bytes);
    scale(out->d_max, n, span.max_d_bytes);
    scale(out->s_min, n, span.max_s_bytes);
    scale(out->s_max, n, span.max_s_bytes);
    return STATUS_OK;
}
