/* metrics.c: the job-metric catalogue of METHOD.md §2–§3: names, families (whose
 * exclusion a metric carries), values of one evaluated job. */
#include "internal.h"

#include <math.h>
#include <string.h>

const char *const family_names[FAM_COUNT] = {"log", "psi", "d",   "i", "b_d",
                                             "tau", "x",   "b_x", "q"};

/* Every job metric of METHOD.md §2, §3, §10 and §11, in METHOD.md's order (export's
 * columns).
 * ν and ν^D share Ψ's and Ψ^D's exclusions (stats_job_derived's contract). */
const struct metric_def metrics[] = {
    {"t_j", M_LOG, FAM_LOG, 0, IN_TABLE, LOG_T_J},
    {"t_um", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_UM},
    {"t_urw", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_URW},
    {"t_s", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S},
    {"t_s_span", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S_SPAN},
    {"t_s_slowest", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S_SLOWEST},
    {"t", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE, LOG_T},
    {"t_fr", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE | NONE_IF_NEGATIVE, LOG_T_FR},
    {"t_fw", M_LOG, FAM_LOG, 0, NEEDS_RECORDS | IN_TABLE | NONE_IF_NEGATIVE, LOG_T_FW},
    {"eta_read", M_LOG, FAM_LOG, 0, NEEDS_RECORDS, LOG_ETA_READ},
    {"eta_write", M_LOG, FAM_LOG, 0, NEEDS_RECORDS, LOG_ETA_WRITE},
    {"eta_mon_read", M_LOG, FAM_LOG, 0, NEEDS_RECORDS, LOG_ETA_MON_READ},
    {"eta_mon_write", M_LOG, FAM_LOG, 0, NEEDS_RECORDS, LOG_ETA_MON_WRITE},
    {"psi_read", M_PSI_READ, FAM_PSI, 0, 0, 0},
    {"psi_write", M_PSI_WRITE, FAM_PSI, 0, 0, 0},
    {"psi_o_read", M_PSI_O_READ, FAM_PSI, 0, 0, 0},
    {"psi_o_write", M_PSI_O_WRITE, FAM_PSI, 0, 0, 0},
    {"m", M_M, FAM_D, 0, NEEDS_RECORDS, 0},
    {"t_d", M_T_D, FAM_D, 0, NEEDS_RECORDS | IN_TABLE, 0},
    {"psi_d_read", M_PSI_D_READ, FAM_D, 0, NEEDS_RECORDS, 0},
    {"psi_d_write", M_PSI_D_WRITE, FAM_D, 0, NEEDS_RECORDS, 0},
    {"m_i", M_M_I, FAM_I, 0, NEEDS_RECORDS, 0},
    {"t_i", M_T_I, FAM_I, 0, NEEDS_RECORDS | IN_TABLE, 0},
    {"psi_i_read", M_PSI_I_READ, FAM_I, 0, NEEDS_RECORDS, 0},
    {"psi_i_write", M_PSI_I_WRITE, FAM_I, 0, NEEDS_RECORDS, 0},
    {"psi_do_read", M_PSI_DO_READ, FAM_D, 0, NEEDS_RECORDS, 0},
    {"psi_do_write", M_PSI_DO_WRITE, FAM_D, 0, NEEDS_RECORDS, 0},
    {"nu_read", M_NU_READ, FAM_PSI, NEGATIVE_NU_READ, NEEDS_RECORDS, 0},
    {"nu_write", M_NU_WRITE, FAM_PSI, NEGATIVE_NU_WRITE, NEEDS_RECORDS, 0},
    {"nu_d_read", M_NU_D_READ, FAM_D, NEGATIVE_NU_D_READ, NEEDS_RECORDS, 0},
    {"nu_d_write", M_NU_D_WRITE, FAM_D, NEGATIVE_NU_D_WRITE, NEEDS_RECORDS, 0},
    {"b_d", M_B_D, FAM_B_D, NEGATIVE_B_D, NEEDS_RECORDS, 0},
    {"tau", M_TAU, FAM_TAU, 0, NEEDS_RECORDS, 0},
    {"t_x", M_T_X, FAM_X, 0, NEEDS_RECORDS, 0},
    {"t_x_read", M_T_X_READ, FAM_X, 0, NEEDS_RECORDS, 0},
    {"t_x_write", M_T_X_WRITE, FAM_X, 0, NEEDS_RECORDS, 0},
    {"m_x", M_M_X, FAM_X, 0, NEEDS_RECORDS, 0},
    {"t_dx", M_T_DX, FAM_X, 0, NEEDS_RECORDS, 0},
    {"psi_x_read", M_PSI_X_READ, FAM_X, 0, NEEDS_RECORDS, 0},
    {"psi_x_write", M_PSI_X_WRITE, FAM_X, 0, NEEDS_RECORDS, 0},
    {"b_x", M_B_X, FAM_B_X, NEGATIVE_B_X, NEEDS_RECORDS, 0},
    {"q_d", M_Q_D, FAM_Q, 0, NEEDS_RECORDS, 0},
    {"u_d", M_U_D, FAM_Q, 0, NEEDS_RECORDS, 0},
    {"await_d", M_AWAIT_D, FAM_Q, 0, NEEDS_RECORDS, 0},
};

const size_t n_metrics = sizeof metrics / sizeof metrics[0];

const unsigned negative_bits[] = {NEGATIVE_NU_READ,   NEGATIVE_NU_WRITE,
                                  NEGATIVE_NU_D_READ, NEGATIVE_NU_D_WRITE,
                                  NEGATIVE_B_D,       NEGATIVE_B_X};
const size_t n_negative_bits = sizeof negative_bits / sizeof negative_bits[0];

const struct metric_def *metric_find(const char *name)
{
    for (size_t i = 0; i < n_metrics; i++) {
        if (strcmp(metrics[i].name, name) == 0)
            return &metrics[i];
    }
    return NULL;
}

bool analysis_metric_known(const char *name)
{
    return name != NULL && metric_find(name) != NULL;
}

/* The value of a metric for one job; NAN when it does not exist for that job. */
double metric_value(const struct metric_def *md, const struct db_job *j,
                    const struct job_eval *ev)
{
    const struct stats_job_volume *v = &ev->v;
    const struct stats_job_derived *dv = &ev->dv;

    switch (md->id) {
    case M_LOG: {
        double x = j->log[md->col];
        return (md->flags & NONE_IF_NEGATIVE) && x < 0 ? (double)NAN : x;
    }
    case M_PSI_READ: return v->psi_read;
    case M_PSI_WRITE: return v->psi_write;
    case M_PSI_O_READ: return v->psi_o_read;
    case M_PSI_O_WRITE: return v->psi_o_write;
    case M_M: return (double)v->m;
    case M_T_D: return v->t_d;
    case M_PSI_D_READ: return v->psi_d_read;
    case M_PSI_D_WRITE: return v->psi_d_write;
    case M_M_I: return (double)v->m_i;
    case M_T_I: return v->t_i;
    case M_PSI_I_READ: return v->psi_i_read;
    case M_PSI_I_WRITE: return v->psi_i_write;
    case M_PSI_DO_READ: return v->psi_do_read;
    case M_PSI_DO_WRITE: return v->psi_do_write;
    case M_NU_READ: return dv->nu_read;
    case M_NU_WRITE: return dv->nu_write;
    case M_NU_D_READ: return dv->nu_d_read;
    case M_NU_D_WRITE: return dv->nu_d_write;
    case M_B_D: return dv->b_d;
    case M_TAU: return dv->tau;
    case M_T_X: return ev->t_x;
    case M_T_X_READ: return ev->t_x_read;
    case M_T_X_WRITE: return ev->t_x_write;
    case M_M_X: return (double)ev->xv.m;
    case M_T_DX: return ev->xv.t_d;
    case M_PSI_X_READ: return ev->xv.psi_d_read;
    case M_PSI_X_WRITE: return ev->xv.psi_d_write;
    case M_B_X: return ev->xdv.b_d;
    case M_Q_D: return v->q_d;
    case M_U_D: return v->u_d;
    case M_AWAIT_D: return v->await_d;
    }
    return NAN;
}

enum stats_exclusion family_excl(enum family f, const struct job_eval *ev)
{
    switch (f) {
    case FAM_LOG: return EXCL_NONE;
    case FAM_PSI: return ev->v.psi_excl;
    case FAM_D: return ev->v.d_excl;
    case FAM_I: return ev->v.i_excl;
    case FAM_B_D: return ev->dv.b_d_excl;
    case FAM_TAU: return ev->dv.tau_excl;
    case FAM_X: return ev->x_excl;
    case FAM_B_X: return ev->b_x_excl;
    case FAM_Q: return ev->v.q_excl;
    case FAM_COUNT: break;
    }
    return EXCL_NONE;
}

bool metric_needs_records(const struct metric_def *md)
{
    return (md->flags & NEEDS_RECORDS) != 0;
}

/* A metric's value, NAN when its family is excluded for the job or it needs the
 * records of an incomplete log. */
double metric_reported(const struct metric_def *md, const struct db_job *j,
                       const struct job_eval *ev)
{
    if (ev->incomplete_log && metric_needs_records(md))
        return NAN;
    return family_excl(md->fam, ev) == EXCL_NONE ? metric_value(md, j, ev) : (double)NAN;
}

/* Why job j does not count for the pair (my, mx), EXCL_NONE when it does; its values
 * in *yv and *xv either way. */
enum stats_exclusion pair_values(const struct metric_def *my, const struct metric_def *mx,
                                 const struct db_job *j, const struct job_eval *ev,
                                 bool log_space, double *yv, double *xv)
{
    enum stats_exclusion e = family_excl(my->fam, ev);

    if (e == EXCL_NONE)
        e = family_excl(mx->fam, ev);
    if (e == EXCL_NONE && ev->incomplete_log &&
        (metric_needs_records(my) || metric_needs_records(mx)))
        e = EXCL_INCOMPLETE_LOG;
    *yv = metric_value(my, j, ev);
    *xv = metric_value(mx, j, ev);
    if (e == EXCL_NONE && !(j->log[LOG_T_J] > 0))
        e = EXCL_NO_IO; /* METHOD.md §2: T_J = 0 is excluded from time analyses */
    if (e == EXCL_NONE && (!isfinite(*yv) || !isfinite(*xv)))
        e = EXCL_NONFINITE;
    if (e == EXCL_NONE && log_space && (*yv <= 0 || *xv <= 0))
        e = EXCL_NONPOSITIVE_IN_LOG_SPACE;
    return e;
}

enum status analysis_pair_resolve(const char *y, const char *x, struct analysis_pair *out,
                                  struct error *err)
{
    const struct metric_def *my = metric_find(y), *mx = metric_find(x);

    if (my == NULL)
        return error_param(err, STATUS_INVALID, "y", "unknown metric '%s'", y);
    if (mx == NULL)
        return error_param(err, STATUS_INVALID, "x", "unknown metric '%s'", x);
    out->y = (size_t)(my - metrics);
    out->x = (size_t)(mx - metrics);
    return STATUS_OK;
}
