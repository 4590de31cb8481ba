/* job.c: one job's metrics (METHOD.md §2–§3) over the series of its scope: the volume
 * families (Ψ, D, I, the queue, and ν, B^D, τ beside them), then the _x family's
 * (fam_x.c). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every value of a volume family NAN, each family excluded for reason e. */
void volume_excluded(struct stats_job_volume *v, enum stats_exclusion e)
{
    *v = (struct stats_job_volume){.psi_excl = e,
                                   .psi_read = NAN,
                                   .psi_write = NAN,
                                   .psi_o_read = NAN,
                                   .psi_o_write = NAN,
                                   .d_excl = e,
                                   .t_d = NAN,
                                   .psi_d_read = NAN,
                                   .psi_d_write = NAN,
                                   .psi_do_read = NAN,
                                   .psi_do_write = NAN,
                                   .s_d = NAN,
                                   .i_excl = e,
                                   .t_i = NAN,
                                   .psi_i_read = NAN,
                                   .psi_i_write = NAN,
                                   .q_excl = e,
                                   .q_d = NAN,
                                   .u_d = NAN,
                                   .await_d = NAN};
}

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

/* Computes every metric of one job (METHOD.md §3) over series (NULL: the job touched
 * no monitored file system of its scope). A job whose own data are unusable (a
 * reversed or non-finite window, bytes that do not add up) is a fact about that log,
 * not a reason to stop: its volume families are excluded as nonfinite and the call
 * succeeds. Fails only for lack of memory. ev->ss is left NULL. */
enum status job_eval_on(const struct stats_series *series, const struct db_job *j,
                        struct analysis_scratch *s, struct job_eval *ev,
                        struct error *err)
{
    struct error job_err = {0};
    enum status rc;

    memset(ev, 0, sizeof *ev);
    if (series == NULL) {
        /* scope=touched, and the job read or wrote no monitored file system. */
        volume_excluded(&ev->v, j->n_windows > 0 ? EXCL_NO_MONITORED_IO : EXCL_NO_IO);
    } else {
        for (size_t w = 0; w < j->n_windows; w++) {
            s->win[w] = (struct stats_window){.start_s = j->windows[w].start_s,
                                              .end_s = j->windows[w].end_s,
                                              .monitored = j->windows[w].monitored};
        }
        struct stats_job sj = {.start_s = j->start_s,
                               .end_s = j->end_s,
                               .windows = s->win,
                               .n_windows = j->n_windows};
        rc = stats_job_volume(series, &sj, s->idx, &ev->v, &job_err);
        if (rc == STATUS_INVALID) {
            log_debug("job %s: %s", j->job_key, job_err.msg);
            volume_excluded(&ev->v, EXCL_NONFINITE);
        } else if (rc != STATUS_OK) {
            return error_set(err, rc, "job %s: %s", j->job_key, job_err.msg);
        }
    }
    struct stats_job_log log = {.t = j->log[LOG_T],
                                .eta_read = (int64_t)j->log[LOG_ETA_READ],
                                .eta_write = (int64_t)j->log[LOG_ETA_WRITE],
                                .eta_mon_read = (int64_t)j->log[LOG_ETA_MON_READ],
                                .eta_mon_write = (int64_t)j->log[LOG_ETA_MON_WRITE]};
    if (stats_job_derived(&ev->v, &log, &ev->dv, &job_err) != STATUS_OK) {
        /* stats_job_derived left every derived value NAN and nonfinite. */
        log_debug("job %s: %s", j->job_key, job_err.msg);
        volume_excluded(&ev->v, EXCL_NONFINITE);
    }
    rc = fam_x_eval(series, j, &log, s, ev, err);
    if (rc != STATUS_OK)
        return rc;
    if (j->incomplete_log && j->trace == DB_TRACE_WHOLE) {
        /* B^X needs η^mon, and the family is the job's records' companion: an
         * incomplete log excludes it as it does the d family (no_trace and
         * incomplete_dxt, facts about the trace itself, say more and stay). */
        ev->x_excl = EXCL_INCOMPLETE_LOG;
        ev->b_x_excl = EXCL_INCOMPLETE_LOG;
    }
    if (j->incomplete_log) {
        /* Its windows and bytes are those of the complete modules only: what needs
         * them is unknown. Ψ and Ψ^O need only the span and stay. */
        ev->incomplete_log = true;
        ev->v.d_excl = EXCL_INCOMPLETE_LOG;
        ev->v.i_excl = EXCL_INCOMPLETE_LOG;
        ev->v.q_excl = EXCL_INCOMPLETE_LOG;
        ev->dv.b_d_excl = EXCL_INCOMPLETE_LOG;
        ev->dv.tau_excl = EXCL_INCOMPLETE_LOG;
    }
    return STATUS_OK;
}

/* job_eval_on over the series of the job's scope (METHOD.md §1), which ev->ss names.
 * Fails also when that series cannot be built. */
enum status job_eval(struct analysis_ctx *c, const struct db_job *j,
                     struct analysis_scratch *s, struct job_eval *ev, struct error *err)
{
    const struct scope_series *ss = NULL;
    enum status rc = ctx_series_for(c, j, &ss, err);

    if (rc != STATUS_OK)
        return rc;
    rc = job_eval_on(ss != NULL ? ss->series : NULL, j, s, ev, err);
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
