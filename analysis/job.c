/* job.c: one job's metrics (docs/method.md §2–§3) over the series of its scope: every
 * family's computation, as the catalogue lists them. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum status analysis_scratch_init(struct analysis_scratch *s, const struct db_jobs *jobs,
                                  struct error *err)
{
    size_t max_w = 0;

    for (size_t i = 0; i < jobs->n; i++) {
        if (jobs->jobs[i].n_windows > max_w)
            max_w = jobs->jobs[i].n_windows;
        if (jobs->jobs[i].n_x_windows > max_w)
            max_w = jobs->jobs[i].n_x_windows;
    }
    s->win = calloc(max_w + 1, sizeof *s->win);
    s->idx = calloc(2 * max_w + 2, sizeof *s->idx);
    if (s->win == NULL || s->idx == NULL)
        return error_set(err, STATUS_NOMEM, "window scratch");
    return STATUS_OK;
}

void analysis_scratch_clear(struct analysis_scratch *s)
{
    free(s->win);
    free(s->idx);
}

/* Whether job j's incomplete log excludes family f (docs/method.md §2). */
static bool incomplete_excludes(const struct family *f, const struct db_job *j)
{
    switch (f->incomplete) {
    case INCOMPLETE_KEEPS: return false;
    case INCOMPLETE_EXCLUDES: return j->incomplete_log;
    case INCOMPLETE_EXCLUDES_WHOLE_TRACE:
        return j->incomplete_log && j->trace == DB_TRACE_WHOLE;
    }
    return false;
}

/* Each family's compute function once, in families[] order (the families one
 * computation gives share it); then the incomplete log's exclusions, after every
 * computation, so that B^D is still computed from the d family it excludes. */
enum status job_eval_on(const struct stats_series *series, const struct db_job *j,
                        struct analysis_scratch *s, struct job_eval *ev,
                        struct error *err)
{
    memset(ev, 0, sizeof *ev);
    for (size_t f = 0; f < n_families; f++) {
        family_compute_fn fn = families[f]->compute;
        bool done = fn == NULL;
        for (size_t g = 0; g < f && !done; g++)
            done = families[g]->compute == fn;
        if (!done) {
            enum status rc = fn(series, j, s, ev, err);
            if (rc != STATUS_OK)
                return rc;
        }
    }
    ev->incomplete_log = j->incomplete_log;
    for (size_t f = 0; f < n_families; f++) {
        if (incomplete_excludes(families[f], j)) {
            *(enum stats_exclusion *)(void *)((char *)ev + families[f]->excl) =
                EXCL_INCOMPLETE_LOG;
        }
    }
    return STATUS_OK;
}

/* job_eval_on over the series of the job's scope (docs/method.md §1), which ev->ss names.
 * Fails also when that series cannot be built. */
enum status job_eval(struct analysis_ctx *c, const struct db_job *j,
                     struct analysis_scratch *s, struct job_eval *ev, struct error *err)
{
    const struct scope_series *ss = NULL;
    enum status rc = ctx_series_for(c, j, &ss, err);

    if (rc != STATUS_OK)
        return rc;
    rc = job_eval_on(ss != NULL ? series_set_at(&ss->set, j->start_s, j->end_s) : NULL, j,
                     s, ev, err);
    ev->ss = ss;
    return rc;
}

bool analysis_jobs_have_trace(const struct db_jobs *jobs)
{
    for (size_t i = 0; jobs != NULL && i < jobs->n; i++) {
        if (jobs->jobs[i].trace != DB_TRACE_NONE)
            return true;
    }
    return false;
}

enum status analysis_job_pairs(const struct stats_series *series, const struct db_job *j,
                               const struct analysis_pair *pairs, size_t n_pairs,
                               struct analysis_scratch *s, double *y, double *x,
                               unsigned char *excl, double *m, struct error *err)
{
    struct job_eval ev;
    enum status rc = job_eval_on(series, j, s, &ev, err);

    if (rc != STATUS_OK)
        return rc;
    for (size_t p = 0; p < n_pairs; p++) {
        excl[p] = (unsigned char)pair_values(&metrics[pairs[p].y], &metrics[pairs[p].x],
                                             j, &ev, false, &y[p], &x[p]);
    }
    /* A (and so m) is known beside a hole; the other exclusions leave it unknown. */
    bool known = ev.v.d_excl == EXCL_NONE || ev.v.d_excl == EXCL_HOLE;
    *m = known ? (double)ev.v.m : (double)NAN;
    return STATUS_OK;
}
