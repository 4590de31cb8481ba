/* fam_x.c: the traced families x and b_x (docs/method.md §10) of one job: §3's A, T^D,
 * Ψ^D and B^D over the DXT trace's operation windows instead of the counters' windows,
 * and the measure of their union. */
#include "internal.h"

#include <math.h>

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

/* Like compute_volume, a trace whose windows are unusable excludes the families as
 * nonfinite. */
enum status compute_x(const struct stats_series *series, const struct db_job *j,
                      struct analysis_scratch *s, struct job_eval *ev, struct error *err)
{
    struct error job_err = {0};
    enum status rc;

    ev->t_x = ev->t_x_read = ev->t_x_write = NAN;
    stats_job_volume_none(&ev->xv, EXCL_NO_TRACE);
    stats_job_derived_none(&ev->xdv, EXCL_NO_TRACE);
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
            stats_job_volume_none(&ev->xv, EXCL_NONFINITE);
        } else if (rc != STATUS_OK) {
            return error_set(err, rc, "job %s trace: %s", j->job_key, job_err.msg);
        }
        ev->x_excl = ev->xv.d_excl;
        /* B^X = (Ψ^X_R + Ψ^X_W − η^mon_R − η^mon_W) / |S^X|: B^D's formula on A^X. */
        struct stats_job_log log = family_job_log(j);
        if (stats_job_derived(&ev->xv, &log, &ev->xdv, &job_err) != STATUS_OK)
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
