/* job.c: one job's metrics (METHOD.md §2–§3) over the series of its scope. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every value of a volume family NAN, each family excluded for reason e. */
static void volume_excluded(struct stats_job_volume *v, enum stats_exclusion e)
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
                                   .psi_i_write = NAN};
}

enum status analysis_scratch_init(struct analysis_scratch *s, const struct db_jobs *jobs,
                                  struct error *err)
{
    size_t max_w = 0;

    for (size_t i = 0; i < jobs->n; i++) {
        if (jobs->jobs[i].n_windows > max_w)
            max_w = jobs->jobs[i].n_windows;
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
    struct stats_job_log log = {.t = j->t,
                                .eta_read = j->eta_read,
                                .eta_write = j->eta_write,
                                .eta_mon_read = j->eta_mon_read,
                                .eta_mon_write = j->eta_mon_write};
    if (stats_job_derived(&ev->v, &log, &ev->dv, &job_err) != STATUS_OK) {
        /* stats_job_derived left every derived value NAN and nonfinite. */
        log_debug("job %s: %s", j->job_key, job_err.msg);
        volume_excluded(&ev->v, EXCL_NONFINITE);
    }
    if (j->incomplete_log) {
        /* Its windows and bytes are those of the complete modules only: what needs
         * them is unknown. Ψ and Ψ^O need only the span and stay. */
        ev->incomplete_log = true;
        ev->v.d_excl = EXCL_INCOMPLETE_LOG;
        ev->v.i_excl = EXCL_INCOMPLETE_LOG;
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
