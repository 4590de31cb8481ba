/* group_table.c: what `analyze` stores beside the associations: each group's table
 * (docs/method.md §4: the paper's Tables I, II and Fig. 2), then the coverage
 * (coverage.c). */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The time metrics of a group's table (docs/method.md §2, §3), all in seconds: the
 * catalogue's IN_TABLE rows, in its order. */
#define N_TABLE_METRICS GROUP_TABLE_METRICS

/* ---- the group table (docs/method.md §4) ------------------------------------------- */

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
    struct job_ref *by_group;        /* jobs->n, sorted by group id */
    const struct series_set *series; /* scope all at Δ, around the jobs */
    double delta_s;
    struct analysis_pair pairs[N_TABLE_METRICS]; /* (metric, metric): its value alone */
    size_t td;                                   /* index of t_d in pairs */
    struct analysis_scratch scratch;
    double *values; /* N_TABLE_METRICS × jobs->n: each metric's counted values */
    size_t *counts; /* STATS_HIST_BINS_MAX */
    double y[N_TABLE_METRICS], x[N_TABLE_METRICS]; /* one job's values */
    unsigned char excl[N_TABLE_METRICS];
};

/* Adds job j's values to the table's columns (n[p] values of metric p so far). */
static enum status table_count_job(struct table_ctx *t, const struct db_job *j, size_t *n,
                                   size_t stride, struct error *err)
{
    double m;
    enum status rc =
        analysis_job_pairs(series_set_at(t->series, j->start_s, j->end_s), j, t->pairs,
                           N_TABLE_METRICS, &t->scratch, t->y, t->x, t->excl, &m, err);

    if (rc != STATUS_OK)
        return rc;
    /* A job counts for a metric as it would for an association of it: its family not
     * excluded, T_J > 0 (docs/method.md §2), the value finite. */
    for (size_t p = 0; p < N_TABLE_METRICS; p++) {
        if (t->excl[p] == EXCL_NONE)
            t->values[p * stride + n[p]++] = t->y[p];
    }
    return STATUS_OK;
}

/* The table of one group into *out (its histogram's counts in t->counts). */
static enum status group_table(struct db *db, struct table_ctx *t,
                               const struct db_group *g, struct group_table *out,
                               struct error *err)
{
    size_t n[N_TABLE_METRICS] = {0};
    size_t stride = t->jobs->n;
    enum status rc;

    *out = (struct group_table){.group = g, .granularity_s = t->delta_s};
    rc = db_group_features(db, g->id, out->features, &out->jobs, err);
    if (rc != STATUS_OK)
        return rc;
    if (group_is_hand(g)) {
        /* A hand-made group's jobs are its members, not a run of by_group. */
        struct db_jobs *mine = NULL;
        rc = db_jobs_of_group(db, g->id, &mine, err);
        for (size_t i = 0; rc == STATUS_OK && i < mine->n; i++)
            rc = table_count_job(t, &mine->jobs[i], n, stride, err);
        db_jobs_free(mine);
        if (rc != STATUS_OK)
            return rc;
    }
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
        rc = table_count_job(t, &t->jobs->jobs[t->by_group[r].idx], n, stride, err);
        if (rc != STATUS_OK)
            return rc;
    }

    for (size_t p = 0; rc == STATUS_OK && p < N_TABLE_METRICS; p++) {
        struct group_table_metric *m = &out->metrics[p];
        m->name = metrics[t->pairs[p].y].name;
        rc = stats_summary_compute(t->values + p * stride, n[p], &m->sum, err);
        m->excluded = (size_t)out->jobs - m->sum.n;
    }
    if (rc == STATUS_OK) {
        /* Fig. 2: T^D = m·Δ, so bins of width Δ hold one m each. */
        rc = stats_histogram_compute(t->values + t->td * stride, n[t->td], t->delta_s,
                                     t->counts, STATS_HIST_BINS_MAX, &out->hist, err);
        out->has_histogram = rc == STATUS_OK;
        out->counts = t->counts;
    }
    return rc;
}

/* Computes and stores the table of every group (group_id NULL) or one, each on the
 * series around its own jobs (read a group at a time: the spans of every job at once
 * were the largest read of analyze, 208,081 rows of each file system on 30 days of
 * 1 s). */
static enum status tables_store(struct db *db, const struct analysis_settings *settings,
                                const struct db_jobs *jobs, const char *group_id,
                                size_t *stored, struct error *err)
{
    struct table_ctx t = {.jobs = jobs};
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    enum status rc = STATUS_OK;

    *stored = 0;
    size_t np = 0;
    for (size_t i = 0; i < n_metrics; i++) {
        if (!(metrics[i].flags & IN_TABLE))
            continue;
        if (np == N_TABLE_METRICS) {
            return error_set(err, STATUS_INTERNAL, "more IN_TABLE metrics than %d",
                             N_TABLE_METRICS);
        }
        t.pairs[np] = (struct analysis_pair){i, i};
        if (strcmp(metrics[i].name, "t_d") == 0)
            t.td = np;
        np++;
    }
    if (np != N_TABLE_METRICS) {
        return error_set(err, STATUS_INTERNAL, "%zu IN_TABLE metrics, not %d", np,
                         N_TABLE_METRICS);
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
    /* A hand-made group the configuration lacks keeps its table with its results. */
    if (rc == STATUS_OK)
        rc = analysis_groups_select(db, group_id, &groups, &n_groups, err);
    for (size_t g = 0; rc == STATUS_OK && g < n_groups; g++) {
        struct group_table table;
        if (groups[g].jobs == 0) {
            /* A group whose jobs are gone (unloaded) has nothing to tabulate, and a
             * table stored before would describe jobs that are no more. */
            rc = db_group_table_delete(db, groups[g].id, err);
            continue;
        }
        struct series_set series = {0};
        rc = analysis_group_series(db, settings, groups[g].id, &series, &t.delta_s, err);
        t.series = &series;
        if (rc == STATUS_OK)
            rc = group_table(db, &t, &groups[g], &table, err);
        t.series = NULL;
        if (rc != STATUS_OK) {
            series_set_clear(&series);
            break;
        }
        char *text = analysis_group_table_text(&table);
        rc = text == NULL ? error_set(err, STATUS_NOMEM, "group table text")
                          : db_group_table_store(db, groups[g].id, t.delta_s, text, err);
        free(text);
        series_set_clear(&series);
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

/* ---- the driver ------------------------------------------------------------------ */

enum status analyze_tables_run(struct db *db, const struct analysis_settings *settings,
                               const char *group_id, struct error *err)
{
    struct db_jobs *jobs = NULL;
    size_t stored = 0;
    bool any = false;
    char line[512];
    struct error own = {0};
    enum status rc;

    /* Any samples at all: the series of every group read below come from them. */
    rc = db_samples_any(db, &any, &own);
    if (rc == STATUS_OK && !any)
        rc = STATUS_NOT_FOUND;
    if (rc == STATUS_NOT_FOUND) {
        /* No samples: T^D and coverage need a grid; nothing to store, and what
         * was stored before the samples were unloaded goes. */
        log_info("analyze: no server samples: no group tables, no coverage");
        rc = db_group_table_delete(db, group_id, err);
        return rc == STATUS_OK ? db_coverage_replace(db, NULL, NULL, 0, err) : rc;
    }
    if (rc != STATUS_OK)
        return error_set(err, rc, "%s", own.msg);
    rc = db_jobs_of_group(db, NULL, &jobs, err);
    if (rc == STATUS_OK)
        rc = tables_store(db, settings, jobs, group_id, &stored, err);
    if (rc == STATUS_OK)
        rc = coverage_store(db, settings, jobs, line, sizeof line, err);
    db_jobs_free(jobs);
    if (rc != STATUS_OK) {
        error_wrap(err, "group tables and coverage");
        return rc;
    }
    log_info("analyze: %zu group tables; coverage: %s", stored, line);
    return STATUS_OK;
}
