/* derived.c: metrics derived from the volume and the log: ν, ν^D, B^D, τ (docs/method.md
 * §3).
 */
#include "stats.h"

#include <math.h>

/* 2^30: τ is seconds per GiB. */
#define GIB 1073741824.0

const char *stats_negative_name(unsigned bit)
{
    switch (bit) {
    case NEGATIVE_NU_READ: return "nu_read";
    case NEGATIVE_NU_WRITE: return "nu_write";
    case NEGATIVE_NU_D_READ: return "nu_d_read";
    case NEGATIVE_NU_D_WRITE: return "nu_d_write";
    case NEGATIVE_B_D: return "b_d";
    case NEGATIVE_B_X: return "b_x";
    default: return "";
    }
}

/* A value that is kept whatever its sign, and flagged when below zero. */
static double flagged(double value, unsigned bit, unsigned *negative)
{
    if (value < 0)
        *negative |= bit;
    return value;
}

static bool log_valid(const struct stats_job_log *log)
{
    return log->eta_read >= 0 && log->eta_write >= 0 && log->eta_mon_read >= 0 &&
           log->eta_mon_write >= 0 && log->eta_mon_read <= log->eta_read &&
           log->eta_mon_write <= log->eta_write;
}

void stats_job_derived_none(struct stats_job_derived *d, enum stats_exclusion e)
{
    *d = (struct stats_job_derived){.nu_excl = e,
                                    .nu_read = NAN,
                                    .nu_write = NAN,
                                    .nu_d_excl = e,
                                    .nu_d_read = NAN,
                                    .nu_d_write = NAN,
                                    .b_d_excl = e,
                                    .b_d = NAN,
                                    .tau_excl = e,
                                    .tau = NAN};
}

enum status stats_job_derived(const struct stats_job_volume *v,
                              const struct stats_job_log *log,
                              struct stats_job_derived *out, struct error *err)
{
    if (out == NULL)
        return error_set(err, STATUS_INVALID, "missing output");
    stats_job_derived_none(out, EXCL_NONFINITE);
    if (v == NULL || log == NULL)
        return error_set(err, STATUS_INVALID, "missing volume or log metrics");
    if (!log_valid(log)) {
        return error_set(err, STATUS_INVALID,
                         "bytes eta %lld/%lld, eta_mon %lld/%lld: expected 0 <= eta_mon "
                         "<= eta",
                         (long long)log->eta_read, (long long)log->eta_write,
                         (long long)log->eta_mon_read, (long long)log->eta_mon_write);
    }
    /* Byte counts below 2^53 convert exactly; the largest jobs stay far below. */
    double mon_r = (double)log->eta_mon_read, mon_w = (double)log->eta_mon_write;

    /* ν: the server volume over the job's span without the job's own bytes. */
    out->nu_excl = v->psi_excl;
    if (v->psi_excl == EXCL_NONE) {
        out->nu_read = flagged(v->psi_read - mon_r, NEGATIVE_NU_READ, &out->negative);
        out->nu_write = flagged(v->psi_write - mon_w, NEGATIVE_NU_WRITE, &out->negative);
    }

    /* ν^D and B^D: the same over S^D, the job's I/O time. */
    out->nu_d_excl = v->d_excl;
    out->b_d_excl = v->d_excl;
    if (v->d_excl == EXCL_NONE) {
        out->nu_d_read =
            flagged(v->psi_d_read - mon_r, NEGATIVE_NU_D_READ, &out->negative);
        out->nu_d_write =
            flagged(v->psi_d_write - mon_w, NEGATIVE_NU_D_WRITE, &out->negative);
        /* Sum the two directions before subtracting: one rounding of the background
         * volume, as in docs/method.md's formula. */
        double background = (v->psi_d_read + v->psi_d_write) - (mon_r + mon_w);
        if (v->s_d > 0 && isfinite(v->s_d)) {
            out->b_d = flagged(background / v->s_d, NEGATIVE_B_D, &out->negative);
        } else {
            /* Every window an instant in one interval: |S^D| = 0, no rate. */
            out->b_d_excl = EXCL_NONFINITE;
        }
    }

    /* τ over every file system (docs/method.md: η = 0 → no τ). */
    double eta = (double)log->eta_read + (double)log->eta_write;
    if (!(eta > 0)) {
        out->tau_excl = EXCL_NO_IO;
    } else if (isfinite(log->t)) {
        out->tau_excl = EXCL_NONE;
        out->tau = log->t / (eta / GIB);
    }
    return STATUS_OK;
}
