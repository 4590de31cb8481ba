/* fam_derived.c: the derived families b_d and tau (docs/method.md §3) of one job, and the
 * ν and ν^D values that share psi's and d's exclusions: the volume families set
 * against the job's own bytes and time, from one stats_job_derived. */
#include "internal.h"

struct stats_job_log family_job_log(const struct db_job *j)
{
    return (struct stats_job_log){.t = j->log[LOG_T].f8,
                                  .eta_read = j->log[LOG_ETA_READ].i8,
                                  .eta_write = j->log[LOG_ETA_WRITE].i8,
                                  .eta_mon_read = j->log[LOG_ETA_MON_READ].i8,
                                  .eta_mon_write = j->log[LOG_ETA_MON_WRITE].i8};
}

enum status compute_derived(const struct stats_series *series, const struct db_job *j,
                            struct analysis_scratch *s, struct job_eval *ev,
                            struct error *err)
{
    struct error job_err = {0};
    struct stats_job_log log = family_job_log(j);

    (void)series; /* the volume families carry what the series gives */
    (void)s;
    (void)err;
    if (stats_job_derived(&ev->v, &log, &ev->dv, &job_err) != STATUS_OK) {
        /* Bytes that do not add up (negative, or η^mon above η): stats_job_derived
         * left every derived value NAN and nonfinite, and the volume values are as
         * unusable. */
        log_debug("job %s: %s", j->job_key, job_err.msg);
        stats_job_volume_none(&ev->v, EXCL_NONFINITE);
    }
    return STATUS_OK;
}
