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

/* Copies into win the trace's windows of the directions asked; returns their count. */
static size_t x_windows_of(const struct db_job *j, bool with_read, bool with_write,
                           struct stats_window *win)
{
    size_t n = 0;

    for (size_t w = 0; w < j->n_x_windows; w++) {
        const struct db_window *dw = &j->x_windows[w];
        if (dw->is_write ? with_write : with_read) {
            win[n++] = (struct stats_window){
                .start_s = dw->start_s, .end_s = dw->end_s, .monitored = dw->monitored};
        }
    }
    return n;
}

/* The _x family (METHOD.md §10): §3's A, T^D, Ψ^D and B^D over the trace's operation
 * windows instead of the counters' (stats_job_volume's D family on them), and the
 * measure of their union. Like job_eval_on, a trace whose windows are unusable
 * excludes the family as nonfinite; fails only when an internal call does. */
static enum status x_eval(const struct stats_series *series, const struct db_job *j,
                          const struct stats_job_log *log, struct analysis_scratch *s,
                          struct job_eval *ev, struct error *err)
{
    struct error job_err = {0};
    enum status rc;

    ev->t_x = ev->t_x_read = ev->t_x_write = NAN;
    volume_excluded(&ev->xv, EXCL_NO_TRACE);
    ev->xdv = (struct stats_job_derived){.nu_excl = EXCL_NO_TRACE,
                                         .nu_read = NAN,
                                         .nu_write = NAN,
                                         .nu_d_excl = EXCL_NO_TRACE,
                                         .nu_d_read = NAN,
                                         .nu_d_write = NAN,
                                         .b_d_excl = EXCL_NO_TRACE,
                                         .b_d = NAN,
                                         .tau_excl = EXCL_NO_TRACE,
                                         .tau = NAN};
    if (j->trace != DB_TRACE_WHOLE) {
        ev->x_excl = j->trace == DB_TRACE_NONE ? EXCL_NO_TRACE : EXCL_INCOMPLETE_DXT;
        ev->b_x_excl = ev->x_excl;
        return STATUS_OK;
    }
    if (series == NULL) {
        /* scope=touched, and the job's counters touched no monitored file system. */
        ev->x_excl = j->n_x_windows > 0 ? EXCL_NO_MONITORED_IO : EXCL_NO_IO;
        ev->b_x_excl = ev->x_excl;
    } else {
        size_t n = x_windows_of(j, true, true, s->win);
        struct stats_job sj = {
            .start_s = j->start_s, .end_s = j->end_s, .windows = s->win, .n_windows = n};
        rc = stats_job_volume(series, &sj, s->idx, &ev->xv, &job_err);
        if (rc == STATUS_INVALID) {
            log_debug("job %s trace: %s", j->job_key, job_err.msg);
            volume_excluded(&ev->xv, EXCL_NONFINITE);
        } else if (rc != STATUS_OK) {
            return error_set(err, rc, "job %s trace: %s", j->job_key, job_err.msg);
        }
        ev->x_excl = ev->xv.d_excl;
        /* B^X = (Ψ^X_R + Ψ^X_W − η^mon_R − η^mon_W) / |S^X|: B^D's formula on A^X. */
        if (stats_job_derived(&ev->xv, log, &ev->xdv, &job_err) != STATUS_OK)
            log_debug("job %s trace: %s", j->job_key, job_err.msg);
        ev->b_x_excl = ev->xdv.b_d_excl;
        if (ev->b_x_excl == EXCL_NONE && ev->xdv.b_d < 0)
            ev->dv.negative |= NEGATIVE_B_X;
    }
    /* The traced I/O time needs no series: the union's measure, after the volume
     * (stats_union_measure reorders s->win). */
    double *const out[3] = {&ev->t_x, &ev->t_x_read, &ev->t_x_write};
    const bool with_read[3] = {true, true, false}, with_write[3] = {true, false, true};
    for (size_t k = 0; k < 3; k++) {
        size_t n = x_windows_of(j, with_read[k], with_write[k], s->win);
        if (stats_union_measure(s->win, n, out[k], &job_err) != STATUS_OK) {
            log_debug("job %s trace: %s", j->job_key, job_err.msg);
            ev->x_excl = ev->b_x_excl = EXCL_NONFINITE;
        }
    }
    return STATUS_OK;
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
    struct stats_job_log log = {.t = j->log[LOG_T].f8,
                                .eta_read = j->log[LOG_ETA_READ].i8,
                                .eta_write = j->log[LOG_ETA_WRITE].i8,
                                .eta_mon_read = j->log[LOG_ETA_MON_READ].i8,
                                .eta_mon_write = j->log[LOG_ETA_MON_WRITE].i8};
    if (stats_job_derived(&ev->v, &log, &ev->dv, &job_err) != STATUS_OK) {
        /* stats_job_derived left every derived value NAN and nonfinite. */
        log_debug("job %s: %s", j->job_key, job_err.msg);
        volume_excluded(&ev->v, EXCL_NONFINITE);
    }
    rc = x_eval(series, j, &log, s, ev, err);
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
