/* fam_volume.c: the volume families psi, d, i and q (docs/method.md §3, §11) of one job:
 * the servers' bytes and operations over its span, its active intervals and those of
 * its monitored files, and the queue over them, from one stats_job_volume. */
#include "internal.h"

enum status compute_volume(const struct stats_series *series, const struct db_job *j,
                           struct analysis_scratch *s, struct job_eval *ev,
                           struct error *err)
{
    struct error job_err = {0};

    if (series == NULL) {
        /* scope=touched, and the job read or wrote no monitored file system. */
        stats_job_volume_none(&ev->v,
                              j->n_windows > 0 ? EXCL_NO_MONITORED_IO : EXCL_NO_IO);
        return STATUS_OK;
    }
    for (size_t w = 0; w < j->n_windows; w++) {
        s->win[w] = (struct stats_window){.start_s = j->windows[w].start_s,
                                          .end_s = j->windows[w].end_s,
                                          .monitored = j->windows[w].monitored};
    }
    struct stats_job sj = {.start_s = j->start_s,
                           .end_s = j->end_s,
                           .windows = s->win,
                           .n_windows = j->n_windows};
    enum status rc = stats_job_volume(series, &sj, s->idx, &ev->v, &job_err);
    if (rc == STATUS_INVALID) {
        /* a reversed or non-finite window: a fact about this log */
        log_debug("job %s: %s", j->job_key, job_err.msg);
        stats_job_volume_none(&ev->v, EXCL_NONFINITE);
    } else if (rc != STATUS_OK) {
        return error_set(err, rc, "job %s: %s", j->job_key, job_err.msg);
    }
    return STATUS_OK;
}
