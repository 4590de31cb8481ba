/* tables.c: what `analyze` stores beside the associations: each group's table
 * (METHOD.md §4: the paper's Tables I, II and Fig. 2) and the coverage of the
 * monitored file systems (§7, Fig. 13). */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The time metrics of a group's table (METHOD.md §2, §3), all in seconds. */
static const char *const table_metrics[] = {"t_j",      "t_um",        "t_urw", "t_s",
                                            "t_s_span", "t_s_slowest", "t",     "t_fr",
                                            "t_fw",     "t_d",         "t_i"};

#define N_TABLE_METRICS (sizeof table_metrics / sizeof table_metrics[0])

/* ---- the group table (METHOD.md §4) --------------------------------------------- */

/* A job of the list by its group: sorted, a group's jobs are one run. */
struct job_ref {
    const char *group_id; /* borrowed from the job */
    size_t idx;           /* into jobs->jobs */
};

static int job_ref_cmp(const void *a, const void *b)
{
    const struct job_ref *x = a, *y = b;
    int c = strcmp(x->group_id, y->group_id);

    return c != 0 ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* What every group's table needs: all jobs, the base series, the metrics resolved. */
struct table_ctx {
    const struct db_jobs *jobs;
    struct job_ref *by_group;          /* jobs->n, sorted by group id */
    const struct stats_series *series; /* scope all at Δ */
    double delta_s;
    struct analysis_pair pairs[N_TABLE_METRICS]; /* (metric, metric): its value alone */
    size_t td;                                   /* index of t_d in table_metrics */
    struct analysis_scratch scratch;
    double *values; /* N_TABLE_METRICS × jobs->n: each metric's counted values */
    size_t *counts; /* STATS_HIST_BINS_MAX */
    double y[N_TABLE_METRICS], x[N_TABLE_METRICS]; /* one job's values */
    unsigned char excl[N_TABLE_METRICS];
};

static json_t *histogram_json(const struct stats_histogram *h, const size_t *counts)
{
    json_t *o = json_object(), *c = json_array();

    for (size_t k = 0; k < h->n_bins; k++)
        json_array_append_new(c, json_integer((json_int_t)counts[k]));
    json_object_set_new(o, "bin_width_s", json_real(h->bin_width_s));
    json_object_set_new(o, "first_edge_s", json_number_or_null(h->first_edge_s));
    json_object_set_new(o, "counts", c);
    json_object_set_new(o, "n", json_integer((json_int_t)h->summary.n));
    json_object_set_new(o, "mean", json_number_or_null(h->summary.mean));
    json_object_set_new(o, "sd", json_number_or_null(h->summary.sd));
    json_object_set_new(o, "band_low", json_number_or_null(h->band_low));
    json_object_set_new(o, "band_high", json_number_or_null(h->band_high));
    return o;
}

/* The table of one group as the JSON the API serves. */
static enum status group_table(struct db *db, struct table_ctx *t,
                               const struct db_group *g, json_t **out, struct error *err)
{
    struct db_feature features[DB_N_FEATURES];
    size_t n[N_TABLE_METRICS] = {0};
    size_t stride = t->jobs->n;
    long n_jobs = 0;
    enum status rc;

    *out = NULL;
    rc = db_group_features(db, g->id, features, &n_jobs, err);
    if (rc != STATUS_OK)
        return rc;
    /* The group's run of by_group: the first ref not below it, then while equal. */
    size_t lo = 0, hi = t->jobs->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(t->by_group[mid].group_id, g->id) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (size_t r = lo; r < t->jobs->n && strcmp(t->by_group[r].group_id, g->id) == 0;
         r++) {
        const struct db_job *j = &t->jobs->jobs[t->by_group[r].idx];
        double m;
        rc = analysis_job_pairs(t->series, j, t->pairs, N_TABLE_METRICS, &t->scratch,
                                t->y, t->x, t->excl, &m, err);
        if (rc != STATUS_OK)
            return rc;
        /* A job counts for a metric as it would for an association of it: its
         * family not excluded, T_J > 0 (METHOD.md §2), the value finite. */
        for (size_t p = 0; p < N_TABLE_METRICS; p++) {
            if (t->excl[p] == EXCL_NONE)
                t->values[p * stride + n[p]++] = t->y[p];
        }
    }

    json_t *o = json_object(), *feat = json_object(), *met = json_object();
    json_object_set_new(o, "kind", json_string("group_table"));
    json_object_set_new(o, "group", json_string(g->id));
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "granularity_s", json_real(t->delta_s));
    json_object_set_new(o, "scope", json_string("all"));
    json_object_set_new(o, "jobs", json_integer((json_int_t)n_jobs));
    for (size_t f = 0; f < DB_N_FEATURES; f++) {
        json_object_set_new(feat, features[f].name,
                            json_pack("{s:I, s:I}", "min", (json_int_t)features[f].min,
                                      "max", (json_int_t)features[f].max));
    }
    json_object_set_new(o, "features", feat);
    json_object_set_new(o, "metrics", met);
    for (size_t p = 0; rc == STATUS_OK && p < N_TABLE_METRICS; p++) {
        struct stats_summary s;
        rc = stats_summary_compute(t->values + p * stride, n[p], &s, err);
        if (rc != STATUS_OK)
            break;
        json_object_set_new(met, table_metrics[p],
                            json_pack("{s:o, s:o, s:I, s:I}", "mean",
                                      json_number_or_null(s.mean), "sd",
                                      json_number_or_null(s.sd), "n", (json_int_t)s.n,
                                      "excluded", (json_int_t)((size_t)n_jobs - s.n)));
    }
    if (rc == STATUS_OK) {
        /* Fig. 2: T^D = m·Δ, so bins of width Δ hold one m each. */
        struct stats_histogram h;
        rc = stats_histogram_compute(t->values + t->td * stride, n[t->td], t->delta_s,
                                     t->counts, STATS_HIST_BINS_MAX, &h, err);
        if (rc == STATUS_OK)
            json_object_set_new(o, "td_histogram", histogram_json(&h, t->counts));
    }
    /* Darshan's whole-second start: every absolute time may be up to 1 s early. */
    json_object_set_new(o, "time_error_s", json_real(1.0));
    if (rc != STATUS_OK) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return STATUS_OK;
}

/* Computes and stores the table of every group (group_id NULL) or one. */
static enum status tables_store(struct db *db, const struct db_jobs *jobs,
                                const struct stats_series *series, double delta_s,
                                const char *group_id, size_t *stored, struct error *err)
{
    struct table_ctx t = {.jobs = jobs, .series = series, .delta_s = delta_s};
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    enum status rc = STATUS_OK;

    *stored = 0;
    for (size_t p = 0; rc == STATUS_OK && p < N_TABLE_METRICS; p++) {
        rc = analysis_pair_resolve(table_metrics[p], table_metrics[p], &t.pairs[p], err);
        if (strcmp(table_metrics[p], "t_d") == 0)
            t.td = p;
    }
    if (rc == STATUS_OK)
        rc = analysis_scratch_init(&t.scratch, jobs, err);
    t.values = malloc((N_TABLE_METRICS * jobs->n + 1) * sizeof *t.values);
    t.counts = malloc(STATS_HIST_BINS_MAX * sizeof *t.counts);
    t.by_group = malloc((jobs->n + 1) * sizeof *t.by_group);
    if (rc == STATUS_OK && (t.values == NULL || t.counts == NULL || t.by_group == NULL))
        rc = error_set(err, STATUS_NOMEM, "group table");
    if (rc == STATUS_OK) {
        for (size_t i = 0; i < jobs->n; i++)
            t.by_group[i] = (struct job_ref){jobs->jobs[i].group_id, i};
        qsort(t.by_group, jobs->n, sizeof *t.by_group, job_ref_cmp);
    }
    if (rc == STATUS_OK && group_id != NULL) {
        groups = calloc(1, sizeof *groups);
        rc = groups == NULL ? error_set(err, STATUS_NOMEM, "group")
                            : db_group_get(db, group_id, groups, err);
        n_groups = 1;
    } else if (rc == STATUS_OK) {
        rc = db_groups_list(db, &groups, &n_groups, err);
    }
    for (size_t g = 0; rc == STATUS_OK && g < n_groups; g++) {
        json_t *o = NULL;
        if (groups[g].jobs == 0)
            continue; /* a group whose jobs are gone has nothing to tabulate */
        rc = group_table(db, &t, &groups[g], &o, err);
        if (rc != STATUS_OK)
            break;
        char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
        json_decref(o);
        rc = text == NULL ? error_set(err, STATUS_NOMEM, "group table text")
                          : db_group_table_store(db, groups[g].id, delta_s, text, err);
        free(text);
        if (rc == STATUS_OK)
            (*stored)++;
    }
    free(groups);
    free(t.values);
    free(t.counts);
    free(t.by_group);
    analysis_scratch_clear(&t.scratch);
    return rc;
}

/* ---- coverage (METHOD.md §7) ----------------------------------------------------- */

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

/* The monitored windows of jobs on the file systems of scope (METHOD.md §7: files on
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

/* D and S of one scope over its series, into c and the series arrays (new). */
static enum status scope_coverage(const struct stats_series *s, double delta_s,
                                  const struct scope_windows *w, double log_lo,
                                  double log_hi, struct db_coverage *c,
                                  struct db_coverage_series *out, struct error *err)
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
    return STATUS_OK;
}

/* Computes and stores the coverage of every file system with samples and of all of
 * them together; its summary line into line. */
static enum status coverage_store(struct db *db, const struct analysis_settings *settings,
                                  const struct db_jobs *jobs,
                                  const struct stats_series *all_series,
                                  double all_delta_s, char *line, size_t line_size,
                                  struct error *err)
{
    struct db_fs *fs = NULL;
    size_t n_fs = 0, n = 0;
    struct db_coverage *c = NULL;
    struct db_coverage_series *series = NULL;
    struct scope_windows w = {0};
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
    /* "all" first (the series of every file system, as the associations use), then
     * each file system on its own series. */
    for (size_t k = 0; rc == STATUS_OK && k <= n_fs; k++) {
        struct stats_series *own = NULL;
        const struct stats_series *s = all_series;
        double delta_s = all_delta_s;
        if (k == 0) {
            snprintf(c[k].scope, sizeof c[k].scope, "all");
        } else {
            snprintf(c[k].scope, sizeof c[k].scope, "fs:%s", fs[k - 1].name);
            rc = analysis_scope_series(db, settings, c[k].scope, &own, &delta_s, err);
            s = own;
        }
        if (rc == STATUS_OK) {
            collect_windows(jobs, c[k].scope, fs, n_fs, &w);
            if (w.skipped > 0) {
                log_warn("coverage %s: %zu unusable windows left out", c[k].scope,
                         w.skipped);
            }
            rc = scope_coverage(s, delta_s, &w, log_lo, log_hi, &c[k], &series[k], err);
        }
        stats_series_free(own);
        n = k + 1;
    }
    if (rc == STATUS_OK)
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
    }
out:
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

/* ---- the driver ------------------------------------------------------------------ */

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

enum status analyze_tables_run(struct db *db, const struct analysis_settings *settings,
                               const char *group_id, struct error *err)
{
    struct db_jobs *jobs = NULL;
    struct stats_series *series = NULL;
    double delta_s = 0;
    size_t stored = 0;
    char line[512];
    struct error own = {0};
    enum status rc;

    rc = analysis_base_series(db, settings, &series, &delta_s, &own);
    if (rc == STATUS_NOT_FOUND) {
        /* No samples: T^D and coverage need a grid; nothing to store yet. */
        log_info("analyze: no server samples: no group tables, no coverage");
        return STATUS_OK;
    }
    if (rc != STATUS_OK)
        return error_set(err, rc, "%s", own.msg);
    rc = db_jobs_of_group(db, NULL, &jobs, err);
    if (rc == STATUS_OK)
        rc = tables_store(db, jobs, series, delta_s, group_id, &stored, err);
    if (rc == STATUS_OK)
        rc = coverage_store(db, settings, jobs, series, delta_s, line, sizeof line, err);
    db_jobs_free(jobs);
    stats_series_free(series);
    if (rc != STATUS_OK)
        return error_wrap(err, "group tables and coverage");
    log_info("analyze: %zu group tables; coverage: %s", stored, line);
    return STATUS_OK;
}
