/* scatter.c: the jobs behind a group's scatter (Fig. 5-7): each job's (x, y) of the
 * association's job set at a granularity and scope, all of them up to a limit, a
 * seeded uniform sample above it. */
#include "internal.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void points_clear(struct points_result *p)
{
    if (p == NULL)
        return;
    free(p->points);
    p->points = NULL;
    p->shown = 0;
}

/* By x, then by job key: the order the answer promises, whatever the sample. */
static int by_x_then_id(const void *a, const void *b)
{
    const struct job_point *p = a, *q = b;

    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return strcmp(p->id, q->id);
}

/* Every job of jobs where both y and x are defined, as collect_pairs in
 * association.c counts them (space auto: no log-space exclusion), into out->points
 * (new), out->d of them. */
static enum status collect_points(struct analysis_ctx *c, const struct db_jobs *jobs,
                                  const struct metric_def *my,
                                  const struct metric_def *mx, struct points_result *out,
                                  struct error *err)
{
    struct analysis_scratch s = {0};
    enum status rc = analysis_scratch_init(&s, jobs, err);
    struct job_point *points = calloc(jobs->n + 1, sizeof *points);

    out->points = points;
    if (rc == STATUS_OK && points == NULL)
        rc = error_set(err, STATUS_NOMEM, "points of %zu jobs", jobs->n);
    for (size_t i = 0; rc == STATUS_OK && points != NULL && i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        struct job_eval ev;
        double yv, xv;
        rc = job_eval(c, j, &s, &ev, err);
        if (rc != STATUS_OK || pair_values(my, mx, j, &ev, false, &yv, &xv) != EXCL_NONE)
            continue;
        struct job_point *p = &points[out->d++];
        snprintf(p->id, sizeof p->id, "%s", j->job_key);
        snprintf(p->jobid, sizeof p->jobid, "%s", j->jobid);
        p->start_s = j->start_s;
        p->end_s = j->end_s;
        p->x = xv;
        p->y = yv;
    }
    analysis_scratch_clear(&s);
    return rc;
}

/* Keeps a uniform sample of limit of the d points, without replacement, drawn by
 * GSL's MT19937 seeded with seed (gsl_ran_choose keeps the order it was given, so
 * the same seed and the same job set give the same sample). */
static enum status sample_points(struct points_result *out, size_t limit,
                                 unsigned long seed, struct error *err)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    struct job_point *kept = malloc(limit * sizeof *kept);

    if (rng == NULL || kept == NULL) {
        gsl_rng_free(rng);
        free(kept);
        return error_set(err, STATUS_NOMEM, "sample of %zu points", limit);
    }
    gsl_rng_set(rng, seed);
    int rc = gsl_ran_choose(rng, kept, limit, out->points, out->d, sizeof *kept);
    gsl_rng_free(rng);
    if (rc != 0) {
        free(kept);
        return error_set(err, STATUS_INTERNAL, "gsl_ran_choose: %s", gsl_strerror(rc));
    }
    free(out->points);
    out->points = kept;
    return STATUS_OK;
}

enum status analysis_points(struct db *db, const struct analysis_settings *s,
                            const char *group_id, const char *y, const char *x,
                            double granularity_s, const char *scope, size_t limit,
                            unsigned long seed, struct points_result *out,
                            struct error *err)
{
    const struct metric_def *my = metric_find(y), *mx = metric_find(x);
    struct db_group group;
    struct db_jobs *jobs = NULL;
    struct analysis_ctx ctx;
    enum status rc;

    memset(out, 0, sizeof *out);
    memset(&ctx, 0, sizeof ctx);
    if (my == NULL)
        return error_param(err, STATUS_INVALID, "y", "unknown metric '%s'", y);
    if (mx == NULL)
        return error_param(err, STATUS_INVALID, "x", "unknown metric '%s'", x);
    if (limit < 1)
        return error_param(err, STATUS_INVALID, "limit", "limit must be at least 1");
    rc = db_group_get(db, group_id, &group, err);
    if (rc != STATUS_OK)
        return rc;
    rc = ctx_prepare(db, s, granularity_s, scope, REACH_JOBS, group.id, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    snprintf(out->group, sizeof out->group, "%s", group.id);
    snprintf(out->y, sizeof out->y, "%s", y);
    snprintf(out->x, sizeof out->x, "%s", x);
    snprintf(out->scope, sizeof out->scope, "%s", ctx.scope);
    out->granularity_s = ctx.base_delta_s * ctx.k;
    out->seed = seed;
    rc = db_jobs_of_group(db, group_id, &jobs, err);
    if (rc == STATUS_OK)
        rc = collect_points(&ctx, jobs, my, mx, out, err);
    out->sampled = rc == STATUS_OK && out->d > limit;
    if (out->sampled)
        rc = sample_points(out, limit, seed, err);
    out->shown = out->sampled ? limit : out->d;
    if (rc == STATUS_OK) {
        qsort(out->points, out->shown, sizeof *out->points, by_x_then_id);
    } else {
        points_clear(out);
    }
    db_jobs_free(jobs);
    ctx_clear(&ctx);
    return rc;
}
