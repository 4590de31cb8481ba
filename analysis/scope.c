/* scope.c: the system-wide series of a scope (docs/method.md §1: all, fs:NAME, or per job
 * the file systems it touched) at k·Δ, from the streams in the database. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* floor(a / b) for b > 0, also for negative a (C division truncates). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The days (ascending) of a file system's data: the devices expected on day, 0 when
 * none (no sample of it reached the day). *at walks forward with ascending days. */
static size_t devices_on(const struct db_series_fs_data *d, int64_t day, size_t *at)
{
    while (*at < d->n_days && d->days[*at].day < day)
        (*at)++;
    return *at < d->n_days && d->days[*at].day == day ? d->days[*at].devices : 0;
}

/* The rows of d with j from j_lo to j_hi: *first is the index of the first. */
static size_t rows_within(const struct db_series_fs_data *d, int64_t j_lo, int64_t j_hi,
                          size_t *first)
{
    size_t lo = 0, hi = d->n_rows;

    while (lo < hi) { /* the first row with j >= j_lo */
        size_t mid = lo + (hi - lo) / 2;
        if (d->rows[mid].j < j_lo) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *first = lo;
    size_t end = lo;
    while (end < d->n_rows && d->rows[end].j <= j_hi)
        end++;
    return end - lo;
}

/* The system-wide series of the file systems in member over [lo_s, hi_s], at Δ of c,
 * from their stored sums (docs/method.md §1): rates summed over the file systems in
 * order, U the sum over their devices divided by the devices expected, present where
 * every file system expected on the day (one with a usable sample in it) has the
 * interval present. A file system kept on a finer grid (a multiple of Δ) has each
 * interval's k fine sums averaged, present when all k are. The gap rule fills it at
 * Δ (§3), and xff coarsens it (§6). */
static enum status build_series(const struct analysis_ctx *c, const unsigned char *member,
                                double lo_s, double hi_s, struct stats_series **out,
                                struct error *err)
{
    double delta_s = c->base_delta_s;
    int64_t j_lo = INT64_MAX, j_hi = INT64_MIN;
    unsigned *kf = calloc(c->n_fs > 0 ? c->n_fs : 1, sizeof *kf);
    struct stats_series *base = NULL;
    size_t *n_dev = NULL;
    unsigned char *fails = NULL;
    size_t *first = calloc(c->n_fs > 0 ? c->n_fs : 1, sizeof *first);
    size_t *count = calloc(c->n_fs > 0 ? c->n_fs : 1, sizeof *count);
    enum status rc = STATUS_OK;

    *out = NULL;
    if (kf == NULL || first == NULL || count == NULL) {
        free(kf);
        free(first);
        free(count);
        return error_set(err, STATUS_NOMEM, "series of a scope");
    }
    /* Each file system's rows in the span, on its own grid (an interval to spare on
     * each side, as they were read). */
    for (size_t f = 0; f < c->n_fs; f++) {
        const struct db_series_fs_data *d = c->fs_data[f];
        double df = c->fs[f].delta_s;
        int64_t a = isfinite(lo_s) ? (int64_t)floor(lo_s / df) - 1 : INT64_MIN;
        int64_t b = isfinite(hi_s) ? (int64_t)ceil(hi_s / df) + 1 : INT64_MAX;
        count[f] = rows_within(d, a, b, &first[f]);
    }
    for (size_t f = 0; f < c->n_fs; f++) {
        const struct db_series_fs_data *d = c->fs_data[f];
        if (!member[f])
            continue;
        double q = delta_s / c->fs[f].delta_s;
        kf[f] = (unsigned)lround(q);
        if (kf[f] < 1 || fabs(q - kf[f]) > 1e-9 * q) {
            free(kf);
            free(first);
            free(count);
            return error_set(err, STATUS_INVALID,
                             "file system %s: its grid %g s and the grid %g s are not "
                             "multiples",
                             c->fs[f].fs, c->fs[f].delta_s, delta_s);
        }
        int64_t k = kf[f];
        if (count[f] == 0)
            continue; /* expected, and absent: it adds no interval */
        const struct db_series_row *rows = d->rows + first[f];
        int64_t lo = floor_div(rows[0].j - 1, k) + 1;
        int64_t hi = floor_div(rows[count[f] - 1].j - 1, k) + 1;
        j_lo = lo < j_lo ? lo : j_lo;
        j_hi = hi > j_hi ? hi : j_hi;
    }
    if (c->span_delta_s > 0) { /* REACH_SPAN: every interval asked, rows or not */
        j_lo = c->span_j_lo;
        j_hi = c->span_j_hi;
    }
    size_t n = j_lo <= j_hi ? (size_t)(j_hi - j_lo) + 1 : 0;
    base = stats_series_new(delta_s, n > 0 ? j_lo : 0, n);
    n_dev = calloc(n > 0 ? n : 1, sizeof *n_dev);
    fails = calloc(n > 0 ? n : 1, 1);
    if (base == NULL || n_dev == NULL || fails == NULL) {
        rc = error_set(err, STATUS_NOMEM, "series of %zu intervals", n);
        goto out;
    }
    for (size_t f = 0; f < c->n_fs; f++) {
        const struct db_series_fs_data *d = c->fs_data[f];
        if (!member[f])
            continue;
        int64_t k = kf[f];
        /* the fine intervals present in each interval: k of them, or it fails */
        size_t r = first[f], at = 0;
        const size_t r_end = first[f] + count[f];
        for (size_t i = 0; i < n; i++) {
            int64_t J = j_lo + (int64_t)i;
            size_t dev =
                devices_on(d, series_day_of(k * (J - 1) + 1, c->fs[f].delta_s), &at);
            int64_t present = 0;
            double v[8] = {0};
            while (r < r_end && d->rows[r].j <= k * J) {
                const struct db_series_row *row = &d->rows[r++];
                if (row->j <= k * (J - 1))
                    continue;
                const double x[8] = {row->r, row->w, row->ro,     row->wo,
                                     row->q, row->u, row->aw_num, row->aw_den};
                for (size_t m = 0; m < 8; m++)
                    v[m] += x[m];
                present += row->present;
            }
            double *const to[8] = {base->r, base->w, base->ro,     base->wo,
                                   base->q, base->u, base->aw_num, base->aw_den};
            for (size_t m = 0; m < 8; m++)
                to[m][i] += k == 1 ? v[m] : v[m] / (double)k;
            n_dev[i] += dev;
            if (dev > 0 && present < k)
                fails[i] = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        base->u[i] = n_dev[i] > 0 ? base->u[i] / (double)n_dev[i] : base->u[i];
        base->present[i] = (unsigned char)(n_dev[i] > 0 && !fails[i]);
    }
    size_t filled = stats_series_fill(base, c->fill_max);
    if (filled > 0) {
        log_debug("series: %zu missing intervals filled (fill_max %u)", filled,
                  c->fill_max);
    }
    if (c->k == 1) {
        *out = base;
        base = NULL;
    } else {
        rc = stats_series_coarsen(base, c->k, 0, c->xff, out, err);
    }
out:
    stats_series_free(base);
    free(kf);
    free(first);
    free(count);
    free(n_dev);
    free(fails);
    return rc;
}

void series_set_clear(struct series_set *s)
{
    for (size_t i = 0; s->seg != NULL && i < s->n; i++)
        stats_series_free(s->seg[i]);
    free(s->seg);
    free(s->lo_s);
    free(s->hi_s);
    *s = (struct series_set){0};
}

const struct stats_series *series_set_at(const struct series_set *s, double start_s,
                                         double end_s)
{
    (void)end_s; /* inside the span that holds its start, by how the spans are made */
    if (s->n == 0)
        return NULL;
    size_t lo = 0, hi = s->n; /* the last span that starts at or before start_s */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->lo_s[mid] <= start_s) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return s->seg[lo];
}

/* The series of the file systems in member over every span c read, a segment each
 * (one over everything when c read no spans). */
static enum status build_set(const struct analysis_ctx *c, const unsigned char *member,
                             struct series_set *out, struct error *err)
{
    size_t n = c->spans.n > 0 ? c->spans.n : 1;
    enum status rc = STATUS_OK;

    *out = (struct series_set){0};
    out->seg = calloc(n, sizeof(struct stats_series *));
    out->lo_s = malloc(n * sizeof *out->lo_s);
    out->hi_s = malloc(n * sizeof *out->hi_s);
    if (out->seg == NULL || out->lo_s == NULL || out->hi_s == NULL) {
        series_set_clear(out);
        return error_set(err, STATUS_NOMEM, "series of %zu spans", n);
    }
    for (size_t i = 0; i < n && rc == STATUS_OK; i++) {
        out->lo_s[i] = c->spans.n > 0 ? c->spans.lo[i] : -(double)INFINITY;
        out->hi_s[i] = c->spans.n > 0 ? c->spans.hi[i] : (double)INFINITY;
        rc = build_series(c, member, out->lo_s[i], out->hi_s[i], &out->seg[i], err);
        if (rc == STATUS_OK)
            out->n++;
    }
    if (rc != STATUS_OK)
        series_set_clear(out);
    return rc;
}

void ctx_clear(struct analysis_ctx *c)
{
    db_spans_clear(&c->spans);
    for (size_t i = 0; i < c->n_sets; i++) {
        series_set_clear(&c->sets[i]->set);
        free(c->sets[i]->member);
        free(c->sets[i]);
    }
    free(c->sets);
    free(c->member);
    for (size_t f = 0; f < c->n_fs; f++)
        db_series_fs_data_free(c->fs_data[f]);
    free(c->fs_data);
    free(c->fs_names);
    free(c->fs);
    memset(c, 0, sizeof *c);
}

/* The series of the set in c->member: cached, or built and cached. */
static enum status ctx_series_of_member(struct analysis_ctx *c,
                                        const struct scope_series **out,
                                        struct error *err)
{
    enum status rc;

    for (size_t i = 0; i < c->n_sets; i++) {
        if (memcmp(c->sets[i]->member, c->member, c->n_fs) == 0) {
            *out = c->sets[i];
            return STATUS_OK;
        }
    }
    if (c->n_sets == c->cap_sets) {
        size_t cap = c->cap_sets > 0 ? 2 * c->cap_sets : 4;
        struct scope_series **grown =
            realloc(c->sets, cap * sizeof(struct scope_series *));
        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "series of a scope");
        c->sets = grown;
        c->cap_sets = cap;
    }
    struct scope_series *ss = calloc(1, sizeof *ss);
    if (ss == NULL)
        return error_set(err, STATUS_NOMEM, "series of a scope");
    ss->member = malloc(c->n_fs > 0 ? c->n_fs : 1);
    if (ss->member == NULL) {
        free(ss);
        return error_set(err, STATUS_NOMEM, "series of a scope");
    }
    memcpy(ss->member, c->member, c->n_fs);
    rc = build_set(c, ss->member, &ss->set, err);
    if (rc != STATUS_OK) {
        free(ss->member);
        free(ss);
        return rc;
    }
    c->sets[c->n_sets++] = ss;
    *out = ss;
    return STATUS_OK;
}

/* The series a job's volume metrics use: the scope's one, or for scope=touched that
 * of the monitored file systems (with samples) the job read or wrote, known from the
 * file system of each of its windows. NULL when the job touched none of them. */
enum status ctx_series_for(struct analysis_ctx *c, const struct db_job *j,
                           const struct scope_series **out, struct error *err)
{
    bool any = false;

    *out = NULL;
    if (c->kind != SCOPE_TOUCHED) {
        *out = c->fixed;
        return STATUS_OK;
    }
    memset(c->member, 0, c->n_fs);
    for (size_t w = 0; w < j->n_windows; w++) {
        const struct db_window *dw = &j->windows[w];
        if (!dw->monitored)
            continue;
        for (size_t f = 0; f < c->n_fs; f++) {
            if (strcmp(c->fs_names[f], dw->fs) == 0) {
                c->member[f] = 1;
                any = true;
                break;
            }
        }
    }
    if (!any)
        return STATUS_OK;
    return ctx_series_of_member(c, out, err);
}

enum status analysis_scope_check(const char *scope, struct error *err)
{
    if (strcmp(scope, "all") == 0 || strcmp(scope, "touched") == 0 ||
        (strncmp(scope, "fs:", 3) == 0 && scope[3] != '\0'))
        return STATUS_OK;
    return error_param(err, STATUS_INVALID, "scope",
                       "scope must be all, touched or fs:NAME");
}

/* The day window (enum ctx_reach): a day around the stored jobs' first start and
 * last end, as the fingerprint's days are (db_group_inputs_read). */
#define JOBS_MARGIN_S 86400.0
/* A grid index no series reaches (int64_t stays far from its ends in the SQL). */
#define J_FAR ((int64_t)1 << 60)

/* d with day's rows and facts in place of what it had of that day. */
static enum status splice_day(struct db_series_fs_data *d, int64_t day,
                              const struct series_day *fresh, struct error *err)
{
    size_t keep = 0;

    for (size_t i = 0; i < d->n_rows; i++)
        keep += d->rows[i].j < fresh->j_lo || d->rows[i].j > fresh->j_hi;
    struct db_series_row *rows = calloc(keep + fresh->n_rows + 1, sizeof *rows);
    struct db_series_fs_day *days = calloc(d->n_days + 2, sizeof *days);
    if (rows == NULL || days == NULL) {
        free(rows);
        free(days);
        return error_set(err, STATUS_NOMEM, "series of a day");
    }
    size_t n = 0, i = 0;
    while (i < d->n_rows && d->rows[i].j < fresh->j_lo)
        rows[n++] = d->rows[i++];
    for (size_t k = 0; k < fresh->n_rows; k++)
        rows[n++] = fresh->rows[k];
    while (i < d->n_rows && d->rows[i].j <= fresh->j_hi)
        i++;
    while (i < d->n_rows)
        rows[n++] = d->rows[i++];
    size_t nd = 0;
    bool put = fresh->facts.devices == 0; /* a day without samples has no entry */
    for (size_t k = 0; k < d->n_days; k++) {
        if (!put && d->days[k].day >= day) {
            days[nd++] = (struct db_series_fs_day){day, fresh->facts.devices};
            put = true;
        }
        if (d->days[k].day != day)
            days[nd++] = d->days[k];
    }
    if (!put) {
        days[nd++] = (struct db_series_fs_day){day, fresh->facts.devices};
    }
    free(d->rows);
    free(d->days);
    d->rows = rows;
    d->n_rows = n;
    d->days = days;
    d->n_days = nd;
    return STATUS_OK;
}

/* A reader that may not write (serve's role): the dirty days of f between lo_day and
 * hi_day computed from their samples into d, as a refresh would store them. */
static enum status read_dirty(struct db *db, const struct analysis_settings *s,
                              const struct db_series_fs *f, int64_t lo_day,
                              int64_t hi_day, struct db_series_fs_data *d,
                              struct error *err)
{
    struct db_series_day *dirty = NULL;
    size_t n = 0;
    enum status rc = db_series_dirty_list(db, f->fs, lo_day, hi_day, &dirty, &n, err);

    for (size_t k = 0; rc == STATUS_OK && k < n; k++) {
        struct series_day day;
        rc = series_day_compute(db, s, f, dirty[k].day, &day, err);
        if (rc == STATUS_OK)
            rc = splice_day(d, dirty[k].day, &day, err);
        series_day_clear(&day);
    }
    if (rc == STATUS_OK && n > 0)
        log_debug("series: %zu days of %s computed for this answer", n, f->fs);
    free(dirty);
    return rc;
}

/* Whether the stored series can serve settings s, refreshed first when this role may
 * write (serve's reader may not): built with s's settings, or never built and
 * buildable now. *stored false: the series are computed from the raw samples for
 * this answer alone (a reader before the first build, or settings other than the
 * stored series'), as before they were stored. */
static enum status ctx_refresh(struct db *db, const struct analysis_settings *s,
                               int64_t lo_day, int64_t hi_day, bool may_write,
                               bool *stored, struct error *err)
{
    struct series_refresh refreshed;
    enum series_state state = SERIES_NONE;
    bool writable = false;
    enum status rc = db_series_writable(db, &writable, err);

    *stored = false;
    if (rc == STATUS_OK)
        rc = series_settings_check(db, s, &state, err);
    if (rc == STATUS_INVALID && state == SERIES_OTHER) {
        char msg[400];
        error_format(err, msg, sizeof msg);
        log_warn("series: %s; until then this analysis reads the raw samples", msg);
        error_clear(err);
        return STATUS_OK;
    }
    if (rc != STATUS_OK)
        return rc;
    if (!writable || !may_write) {
        *stored = state == SERIES_SAME;
        return STATUS_OK;
    }
    rc = series_refresh_days(db, s, lo_day, hi_day, NULL, &refreshed, err);
    if (rc == STATUS_OK && refreshed.days > 0)
        log_info("series: %zu days recomputed from their samples", refreshed.days);
    *stored = rc == STATUS_OK;
    return rc;
}

enum status scope_series_refresh(struct db *db, const struct analysis_settings *s,
                                 struct error *err)
{
    bool stored;

    return ctx_refresh(db, s, INT64_MIN, INT64_MAX, true, &stored, err);
}

/* The days from lo_day to hi_day of f computed from the raw samples into a new d
 * (NULL range: every day its samples reach). */
static enum status read_from_samples(struct db *db, const struct analysis_settings *s,
                                     const struct db_series_fs *f, int64_t lo_day,
                                     int64_t hi_day, struct db_series_fs_data **out,
                                     struct error *err)
{
    struct db_series_fs_data *d = calloc(1, sizeof *d);
    enum status rc = STATUS_OK;

    *out = NULL;
    if (d == NULL)
        return error_set(err, STATUS_NOMEM, "series of %s", f->fs);
    if (lo_day == INT64_MIN) {
        bool any;
        int64_t first, last;
        rc = db_samples_extent(db, f->fs, &any, &first, &last, err);
        if (rc != STATUS_OK || !any) {
            *out = d;
            return rc;
        }
        lo_day = (int64_t)floor(((double)first + s->theta_s) / 86400.0) - 1;
        hi_day = (int64_t)floor(((double)last + s->theta_s) / 86400.0) + 1;
    }
    for (int64_t day = lo_day; rc == STATUS_OK && day <= hi_day; day++) {
        struct series_day fresh;
        rc = series_day_compute(db, s, f, day, &fresh, err);
        if (rc == STATUS_OK)
            rc = splice_day(d, day, &fresh, err);
        series_day_clear(&fresh);
    }
    if (rc != STATUS_OK) {
        db_series_fs_data_free(d);
        return rc;
    }
    *out = d;
    return STATUS_OK;
}

/* The ranges of grid j of f that reach spans (on its grid Δ, an interval to spare on
 * each side), merged where they meet: into lo, hi (n of them; caller frees). */
static enum status spans_to_j(const struct db_spans *spans, double delta_s, int64_t **lo,
                              int64_t **hi, size_t *n, struct error *err)
{
    *n = 0;
    *lo = malloc((spans->n > 0 ? spans->n : 1) * sizeof **lo);
    *hi = malloc((spans->n > 0 ? spans->n : 1) * sizeof **hi);
    if (*lo == NULL || *hi == NULL) {
        free(*lo);
        free(*hi);
        *lo = *hi = NULL;
        return error_set(err, STATUS_NOMEM, "%zu spans", spans->n);
    }
    for (size_t i = 0; i < spans->n; i++) {
        int64_t a = (int64_t)floor(spans->lo[i] / delta_s) - 1;
        int64_t b = (int64_t)ceil(spans->hi[i] / delta_s) + 1;
        if (*n > 0 && a <= (*hi)[*n - 1] + 1) {
            (*hi)[*n - 1] = b > (*hi)[*n - 1] ? b : (*hi)[*n - 1];
            continue;
        }
        (*lo)[*n] = a;
        (*hi)[*n] = b;
        (*n)++;
    }
    return STATUS_OK;
}

/* The spans a context reads, in seconds on the grid (stamps + θ): around the jobs
 * (enum ctx_reach), or the day window around the first and the last job's. */
static enum status reach_spans(struct db *db, const struct analysis_settings *s,
                               enum ctx_reach reach, const char *group_id,
                               double granularity_s, const struct db_series_fs *all,
                               size_t n_all, double lo_s, double hi_s,
                               struct db_spans *out, struct error *err)
{
    *out = (struct db_spans){0};
    if (reach == REACH_DAY_WINDOW || reach == REACH_SPAN) {
        out->lo = malloc(sizeof(double));
        out->hi = malloc(sizeof(double));
        if (out->lo == NULL || out->hi == NULL) {
            db_spans_clear(out);
            return error_set(err, STATUS_NOMEM, "the day window");
        }
        out->lo[0] = lo_s;
        out->hi[0] = hi_s;
        out->n = 1;
        return STATUS_OK;
    }
    double grid = s->base_granularity_s > 0 ? s->base_granularity_s : 0;
    for (size_t i = 0; i < n_all; i++)
        grid = fmax(grid, all[i].delta_s);
    double k = granularity_s > 0 && grid > 0 ? ceil(granularity_s / grid) : 1;
    k = fmax(k, (double)s->k_max);
    double margin_s = (2 * k + s->fill_max + 2) * grid + fabs(s->theta_s);
    return db_jobs_spans(db, group_id, margin_s, out, err);
}

/* Reads the stored series of the file systems of fs (NULL: every one) over reach
 * into c (every row when none lies there, or no job is stored), the dirty days among
 * them recomputed first. A file system with days but no rows there is kept: it is
 * expected on those days, and absent. */
static enum status ctx_read(struct db *db, const struct analysis_settings *s,
                            const char *fs, enum ctx_reach reach, const char *group_id,
                            double granularity_s, struct analysis_ctx *c,
                            struct error *err)
{
    struct db_series_fs *all = NULL;
    size_t n_all = 0;
    bool any_job, stored = false;
    double lo_s, hi_s;
    struct db_spans spans = {0};
    enum status rc = db_jobs_extent(db, &any_job, &lo_s, &hi_s, err);

    if (rc != STATUS_OK)
        return rc;
    /* The window a day around the jobs was taken on the samples' printed stamps; on
     * the grid (stamps + θ) the same window is shifted by θ. */
    lo_s += s->theta_s - JOBS_MARGIN_S;
    hi_s += s->theta_s + JOBS_MARGIN_S;
    if (reach == REACH_SPAN) { /* (T_{j_lo - 1}, T_{j_hi}]: read as given */
        any_job = true;
        lo_s = (double)(c->span_j_lo - 1) * c->span_delta_s;
        hi_s = (double)c->span_j_hi * c->span_delta_s;
    }
    int64_t lo_day = any_job ? (int64_t)floor(lo_s / 86400.0) - 1 : INT64_MIN;
    int64_t hi_day = any_job ? (int64_t)floor(hi_s / 86400.0) + 1 : INT64_MAX;
    /* REACH_SPAN reads inside the coverage's transaction: a refresh there would
     * commit (or roll back) it. Its dirty days, if any came since analyze refreshed
     * them, are computed from their samples as a reader's are (read_dirty). */
    rc = ctx_refresh(db, s, lo_day, hi_day, reach != REACH_SPAN, &stored, err);
    if (rc == STATUS_OK) {
        rc = stored ? db_series_fs_list(db, &all, &n_all, err)
                    : db_samples_fs_list(db, &all, &n_all, err);
    }
    if (rc != STATUS_OK)
        return rc;
    c->fs = calloc(n_all > 0 ? n_all : 1, sizeof *c->fs);
    c->fs_names = calloc(n_all > 0 ? n_all : 1, sizeof(const char *));
    c->fs_data = calloc(n_all > 0 ? n_all : 1, sizeof(struct db_series_fs_data *));
    c->member = calloc(n_all > 0 ? n_all : 1, 1);
    if (c->fs == NULL || c->fs_names == NULL || c->fs_data == NULL || c->member == NULL) {
        free(all);
        return error_set(err, STATUS_NOMEM, "file systems of the series");
    }
    /* The grid of each file system's series: the configured Δ, else its coarsest
     * interval. A stored one elsewhere (only a reader sees one the refresh did not
     * move) is read from the samples too. */
    for (size_t i = 0; i < n_all; i++) {
        double grid = series_grid(s, &all[i]);
        if (all[i].delta_s != grid)
            stored = false;
        all[i].delta_s = grid;
    }
    if (any_job) {
        rc = reach_spans(db, s, reach, group_id, granularity_s, all, n_all, lo_s, hi_s,
                         &spans, err);
    }
    /* Twice at most: over the spans, then (nothing there) every row. */
    /* REACH_JOBS_ONLY reads over the spans alone, whatever it finds there. */
    for (int pass = (any_job && spans.n > 0) || reach == REACH_JOBS_ONLY ? 0 : 1;
         pass < 2 && c->n_fs == 0 && rc == STATUS_OK; pass++) {
        int64_t d_lo = pass == 0 ? lo_day : INT64_MIN,
                d_hi = pass == 0 ? hi_day : INT64_MAX;
        for (size_t i = 0; i < n_all && rc == STATUS_OK; i++) {
            const struct db_series_fs *f = &all[i];
            struct db_series_fs_data *d = NULL;
            if (fs != NULL && strcmp(f->fs, fs) != 0)
                continue;
            if (stored) {
                int64_t every_lo = -J_FAR, every_hi = J_FAR, *j_lo = &every_lo,
                        *j_hi = &every_hi;
                size_t n_j = 1;
                if (pass == 0)
                    rc = spans_to_j(&spans, f->delta_s, &j_lo, &j_hi, &n_j, err);
                if (rc == STATUS_OK)
                    rc = db_series_read(db, f->fs, j_lo, j_hi, n_j, &d, err);
                if (rc == STATUS_OK) {
                    log_debug("series: %zu rows of %s read over %zu spans", d->n_rows,
                              f->fs, n_j);
                }
                if (pass == 0) {
                    free(j_lo);
                    free(j_hi);
                }
                if (rc == STATUS_OK)
                    rc = read_dirty(db, s, f, d_lo, d_hi, d, err);
            } else {
                rc = read_from_samples(db, s, f, d_lo, d_hi, &d, err);
            }
            if (rc != STATUS_OK) {
                db_series_fs_data_free(d);
                break;
            }
            /* Around the jobs every file system stays, rows there or not: Δ (the
             * coarsest grid) and a touched job's set are then the same for every
             * group, as a read of the whole history has them. */
            if (d == NULL || (pass == 1 && d->n_rows == 0)) {
                db_series_fs_data_free(d);
                continue;
            }
            c->fs[c->n_fs] = *f;
            c->fs_data[c->n_fs] = d;
            c->fs_names[c->n_fs] = c->fs[c->n_fs].fs;
            c->n_fs++;
        }
        /* File systems with days but no rows alone are nothing to read from. */
        bool rows = false;
        for (size_t f = 0; f < c->n_fs; f++)
            rows = rows || c->fs_data[f]->n_rows > 0;
        if (reach == REACH_SPAN || reach == REACH_JOBS_ONLY) /* rows or not */
            rows = c->n_fs > 0;
        for (size_t f = 0; !rows && f < c->n_fs; f++)
            db_series_fs_data_free(c->fs_data[f]);
        if (!rows)
            c->n_fs = 0;
        /* Read over the spans: the series are segments over them. Every day from
         * the samples, or every row: one segment over all. */
        if (rows && pass == 0 && stored) {
            c->spans = spans;
            spans = (struct db_spans){0};
        }
    }
    db_spans_clear(&spans);
    free(all);
    return rc;
}

/* ctx_prepare on a c whose inputs (REACH_SPAN's) are set and the rest zero. */
static enum status ctx_prepare_in(struct db *db, const struct analysis_settings *s,
                                  double granularity_s, const char *scope,
                                  enum ctx_reach reach, const char *group_id,
                                  struct analysis_ctx *c, struct error *err)
{
    const char *fs = NULL;
    enum status rc;

    scope = scope != NULL ? scope : "all";
    rc = analysis_scope_check(scope, err);
    if (rc != STATUS_OK)
        return rc;
    if (strcmp(scope, "all") == 0) {
        c->kind = SCOPE_ALL;
    } else if (strcmp(scope, "touched") == 0) {
        c->kind = SCOPE_TOUCHED;
    } else {
        fs = scope + 3;
        c->kind = SCOPE_FS;
    }
    c->scope = scope;
    c->fill_max = s->fill_max;
    c->xff = s->xff;
    rc = ctx_read(db, s, fs, reach, group_id, granularity_s, c, err);
    if (rc == STATUS_OK && c->n_fs == 0) {
        rc = error_set(err, STATUS_NOT_FOUND, "no server samples%s%s are loaded",
                       fs != NULL ? " for " : "", fs != NULL ? fs : "");
    }
    if (rc != STATUS_OK) {
        ctx_clear(c);
        return rc;
    }
    /* One Δ for every set, from every file system read: the jobs of a group, whatever
     * they touched, share one grid and one granularity. Configured, else the coarsest
     * grid (finer ones are averaged onto it). */
    c->base_delta_s = s->base_granularity_s;
    for (size_t f = 0; f < c->n_fs && !(s->base_granularity_s > 0); f++)
        c->base_delta_s = fmax(c->base_delta_s, c->fs[f].delta_s);
    double kf = granularity_s > 0 ? granularity_s / c->base_delta_s : 1;
    c->k = (unsigned)lround(kf);
    if (c->k < 1 || fabs(kf - c->k) > 1e-9 * kf) {
        char value[40];
        snprintf(value, sizeof value, "%g", granularity_s);
        rc = error_param(
            err, STATUS_INVALID, "granularity",
            "granularity %s s is not a whole multiple of the base interval %g s", value,
            c->base_delta_s);
        ctx_clear(c);
        return rc;
    }
    if (c->kind != SCOPE_TOUCHED) {
        /* all and fs:NAME: one series over every file system read, built now. */
        memset(c->member, 1, c->n_fs);
        rc = ctx_series_of_member(c, &c->fixed, err);
    }
    if (rc != STATUS_OK)
        ctx_clear(c);
    return rc;
}

enum status ctx_prepare(struct db *db, const struct analysis_settings *s,
                        double granularity_s, const char *scope, enum ctx_reach reach,
                        const char *group_id, struct analysis_ctx *c, struct error *err)
{
    memset(c, 0, sizeof *c);
    return ctx_prepare_in(db, s, granularity_s, scope, reach, group_id, c, err);
}

/* ---- for the granularity sweep (sweep.c) --------------------------------------- */

/* The series set of scope all over reach (of group_id's jobs); it changes owner. */
static enum status all_series(struct db *db, const struct analysis_settings *s,
                              enum ctx_reach reach, const char *group_id,
                              struct series_set *series, double *delta_s,
                              struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc = ctx_prepare(db, s, 0, "all", reach, group_id, &ctx, err);

    *series = (struct series_set){0};
    *delta_s = 0;
    if (rc != STATUS_OK)
        return rc;
    /* Scope all: ctx_prepare built the one series; it changes owner here. */
    struct scope_series *ss = ctx.sets[0];
    *series = ss->set;
    ss->set = (struct series_set){0};
    *delta_s = ctx.base_delta_s;
    ctx_clear(&ctx);
    return STATUS_OK;
}

enum status analysis_base_series(struct db *db, const struct analysis_settings *s,
                                 enum ctx_reach reach, struct series_set *series,
                                 double *delta_s, struct error *err)
{
    return all_series(db, s, reach, NULL, series, delta_s, err);
}

enum status analysis_group_series(struct db *db, const struct analysis_settings *s,
                                  const char *group_id, struct series_set *series,
                                  double *delta_s, struct error *err)
{
    return all_series(db, s, REACH_JOBS_ONLY, group_id, series, delta_s, err);
}

enum status analysis_scope_series(struct db *db, const struct analysis_settings *s,
                                  const char *scope, struct stats_series **series,
                                  double *delta_s, struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc;

    *series = NULL;
    *delta_s = 0;
    if (strcmp(scope, "touched") == 0) {
        return error_param(err, STATUS_INVALID, "scope",
                           "one series needs all or fs:NAME, not '%s'", scope);
    }
    rc = ctx_prepare(db, s, 0, scope, REACH_DAY_WINDOW, NULL, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    if (ctx.n_sets == 0) { /* all and fs:NAME build their one series */
        ctx_clear(&ctx);
        return error_set(err, STATUS_INTERNAL, "no series for scope %s", scope);
    }
    /* Over the day window: one segment. It changes owner here. */
    struct scope_series *ss = ctx.sets[0];
    if (ss->set.n != 1) {
        ctx_clear(&ctx);
        return error_set(err, STATUS_INTERNAL, "%zu segments for scope %s", ss->set.n,
                         scope);
    }
    *series = ss->set.seg[0];
    ss->set.seg[0] = NULL;
    *delta_s = ctx.base_delta_s;
    ctx_clear(&ctx);
    return STATUS_OK;
}

/* ---- the coverage's series a piece at a time (coverage.c) ------------------------- */

void scope_plan_clear(struct scope_plan *p)
{
    free(p->fs);
    memset(p, 0, sizeof *p);
}

enum status analysis_scope_plan(struct db *db, const struct analysis_settings *s,
                                const char *scope, struct scope_plan *out,
                                struct error *err)
{
    struct db_series_fs *all = NULL;
    size_t n_all = 0;
    bool writable = false, any_job = false;
    enum series_state state = SERIES_NONE;
    double lo_s, hi_s;
    enum status rc;

    memset(out, 0, sizeof *out);
    if (strcmp(scope, "all") != 0 && strncmp(scope, "fs:", 3) != 0) {
        return error_param(err, STATUS_INVALID, "scope",
                           "one series needs all or fs:NAME, not '%s'", scope);
    }
    rc = db_series_writable(db, &writable, err);
    if (rc == STATUS_OK)
        rc = series_settings_check(db, s, &state, err);
    if (rc == STATUS_INVALID && state == SERIES_OTHER) {
        error_clear(err); /* the raw samples: the caller computes it whole */
        return STATUS_OK;
    }
    if (rc == STATUS_OK)
        rc = db_jobs_extent(db, &any_job, &lo_s, &hi_s, err);
    if (rc == STATUS_OK && (!writable || state != SERIES_SAME || !any_job))
        return STATUS_OK;
    if (rc == STATUS_OK)
        rc = db_series_fs_list(db, &all, &n_all, err);
    if (rc != STATUS_OK)
        return rc;
    out->fs = calloc(n_all > 0 ? n_all : 1, sizeof *out->fs);
    if (out->fs == NULL) {
        free(all);
        return error_set(err, STATUS_NOMEM, "file systems of %s", scope);
    }
    out->stored = true;
    out->delta_s = s->base_granularity_s;
    for (size_t i = 0; i < n_all; i++) {
        if (strncmp(scope, "fs:", 3) == 0 && strcmp(all[i].fs, scope + 3) != 0)
            continue;
        double grid = series_grid(s, &all[i]);
        if (all[i].delta_s != grid)
            out->stored = false; /* a grid the refresh did not move */
        out->fs[out->n_fs++] = all[i];
        if (!(s->base_granularity_s > 0))
            out->delta_s = fmax(out->delta_s, grid);
    }
    free(all);
    if (!out->stored || out->n_fs == 0) {
        out->stored = out->stored && out->n_fs > 0;
        return STATUS_OK;
    }
    /* The day window on the grid, as ctx_read reads it; the first and last interval
     * of Δ that build_series makes of the rows there. */
    lo_s += s->theta_s - JOBS_MARGIN_S;
    hi_s += s->theta_s + JOBS_MARGIN_S;
    for (size_t i = 0; rc == STATUS_OK && i < out->n_fs; i++) {
        double df = out->fs[i].delta_s;
        int64_t k = (int64_t)lround(out->delta_s / df), first, last;
        bool any;
        rc = db_series_bounds(db, out->fs[i].fs, (int64_t)floor(lo_s / df) - 1,
                              (int64_t)ceil(hi_s / df) + 1, &any, &first, &last, err);
        if (rc != STATUS_OK || !any)
            continue;
        first = floor_div(first - 1, k) + 1;
        last = floor_div(last - 1, k) + 1;
        out->j_first = out->any && out->j_first < first ? out->j_first : first;
        out->j_last = out->any && out->j_last > last ? out->j_last : last;
        out->any = true;
    }
    if (rc != STATUS_OK)
        scope_plan_clear(out);
    return rc;
}

enum status analysis_scope_series_span(struct db *db, const struct analysis_settings *s,
                                       const char *scope, double delta_s, int64_t j_lo,
                                       int64_t j_hi, struct stats_series **series,
                                       struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc;

    *series = NULL;
    memset(&ctx, 0, sizeof ctx);
    ctx.span_j_lo = j_lo;
    ctx.span_j_hi = j_hi;
    ctx.span_delta_s = delta_s;
    rc = ctx_prepare_in(db, s, 0, scope, REACH_SPAN, NULL, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    if (ctx.base_delta_s != delta_s || ctx.n_sets != 1 || ctx.sets[0]->set.n != 1) {
        rc = error_set(err, STATUS_INTERNAL, "scope %s: Δ %g s, %g s planned", scope,
                       ctx.base_delta_s, delta_s);
        ctx_clear(&ctx);
        return rc;
    }
    *series = ctx.sets[0]->set.seg[0];
    ctx.sets[0]->set.seg[0] = NULL;
    ctx_clear(&ctx);
    return STATUS_OK;
}
