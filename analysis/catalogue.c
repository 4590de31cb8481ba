/* catalogue.c: the job-metric catalogue of METHOD.md §2–§3: names, families (whose
 * exclusion a metric carries), where each value of one evaluated job is. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Where a value or an exclusion reason is in a job's evaluation. */
#define EV(field) offsetof(struct job_eval, field)
#define NO_EXCL   SIZE_MAX

/* Whose exclusion reason a metric carries: none (the log), a family of
 * stats_job_volume, one of stats_job_derived's own, or the DXT trace's (METHOD.md
 * §10: the _x family, and B^X beside it as B^D beside the d family), or the queue's
 * (§11, over the d family's A). */
static const struct family fam_log = {"log", NO_EXCL}, fam_psi = {"psi", EV(v.psi_excl)},
                           fam_d = {"d", EV(v.d_excl)}, fam_i = {"i", EV(v.i_excl)},
                           fam_b_d = {"b_d", EV(dv.b_d_excl)},
                           fam_tau = {"tau", EV(dv.tau_excl)}, fam_x = {"x", EV(x_excl)},
                           fam_b_x = {"b_x", EV(b_x_excl)}, fam_q = {"q", EV(v.q_excl)};

/* Every family, in export's order of its excluded_NAME columns. */
const struct family *const families[] = {&fam_log, &fam_psi, &fam_d,   &fam_i, &fam_b_d,
                                         &fam_tau, &fam_x,   &fam_b_x, &fam_q};
const size_t n_families = sizeof families / sizeof families[0];

/* Every job metric of METHOD.md §2, §3, §10 and §11, in METHOD.md's order (export's
 * columns).
 * ν and ν^D share Ψ's and Ψ^D's exclusions (stats_job_derived's contract). */
const struct metric_def metrics[] = {
    {"t_j", &fam_log, 0, IN_TABLE, LOG_T_J},
    {"t_um", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_UM},
    {"t_urw", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_URW},
    {"t_s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S},
    {"t_s_span", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S_SPAN},
    {"t_s_slowest", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S_SLOWEST},
    {"t", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T},
    {"t_fr", &fam_log, 0, NEEDS_RECORDS | IN_TABLE | NONE_IF_NEGATIVE, LOG_T_FR},
    {"t_fw", &fam_log, 0, NEEDS_RECORDS | IN_TABLE | NONE_IF_NEGATIVE, LOG_T_FW},
    {"eta_read", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_READ},
    {"eta_write", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_WRITE},
    {"eta_mon_read", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_MON_READ},
    {"eta_mon_write", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_MON_WRITE},
    {"psi_read", &fam_psi, 0, 0, EV(v.psi_read)},
    {"psi_write", &fam_psi, 0, 0, EV(v.psi_write)},
    {"psi_o_read", &fam_psi, 0, 0, EV(v.psi_o_read)},
    {"psi_o_write", &fam_psi, 0, 0, EV(v.psi_o_write)},
    {"m", &fam_d, 0, NEEDS_RECORDS | COUNT, EV(v.m)},
    {"t_d", &fam_d, 0, NEEDS_RECORDS | IN_TABLE, EV(v.t_d)},
    {"psi_d_read", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_d_read)},
    {"psi_d_write", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_d_write)},
    {"m_i", &fam_i, 0, NEEDS_RECORDS | COUNT, EV(v.m_i)},
    {"t_i", &fam_i, 0, NEEDS_RECORDS | IN_TABLE, EV(v.t_i)},
    {"psi_i_read", &fam_i, 0, NEEDS_RECORDS, EV(v.psi_i_read)},
    {"psi_i_write", &fam_i, 0, NEEDS_RECORDS, EV(v.psi_i_write)},
    {"psi_do_read", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_do_read)},
    {"psi_do_write", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_do_write)},
    {"nu_read", &fam_psi, NEGATIVE_NU_READ, NEEDS_RECORDS, EV(dv.nu_read)},
    {"nu_write", &fam_psi, NEGATIVE_NU_WRITE, NEEDS_RECORDS, EV(dv.nu_write)},
    {"nu_d_read", &fam_d, NEGATIVE_NU_D_READ, NEEDS_RECORDS, EV(dv.nu_d_read)},
    {"nu_d_write", &fam_d, NEGATIVE_NU_D_WRITE, NEEDS_RECORDS, EV(dv.nu_d_write)},
    {"b_d", &fam_b_d, NEGATIVE_B_D, NEEDS_RECORDS, EV(dv.b_d)},
    {"tau", &fam_tau, 0, NEEDS_RECORDS, EV(dv.tau)},
    {"t_x", &fam_x, 0, NEEDS_RECORDS, EV(t_x)},
    {"t_x_read", &fam_x, 0, NEEDS_RECORDS, EV(t_x_read)},
    {"t_x_write", &fam_x, 0, NEEDS_RECORDS, EV(t_x_write)},
    {"m_x", &fam_x, 0, NEEDS_RECORDS | COUNT, EV(xv.m)},
    {"t_dx", &fam_x, 0, NEEDS_RECORDS, EV(xv.t_d)},
    {"psi_x_read", &fam_x, 0, NEEDS_RECORDS, EV(xv.psi_d_read)},
    {"psi_x_write", &fam_x, 0, NEEDS_RECORDS, EV(xv.psi_d_write)},
    {"b_x", &fam_b_x, NEGATIVE_B_X, NEEDS_RECORDS, EV(xdv.b_d)},
    {"q_d", &fam_q, 0, NEEDS_RECORDS, EV(v.q_d)},
    {"u_d", &fam_q, 0, NEEDS_RECORDS, EV(v.u_d)},
    {"await_d", &fam_q, 0, NEEDS_RECORDS, EV(v.await_d)},
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

const struct family *family_find(const char *name)
{
    for (size_t i = 0; i < n_families; i++) {
        if (strcmp(families[i]->name, name) == 0)
            return families[i];
    }
    return NULL;
}

/* The value of a metric for one job; NAN when it does not exist for that job. */
double metric_value(const struct metric_def *md, const struct db_job *j,
                    const struct job_eval *ev)
{
    if (md->fam == &fam_log) {
        double x = j->log[md->at];
        return (md->flags & NONE_IF_NEGATIVE) && x < 0 ? (double)NAN : x;
    }
    const char *at = (const char *)ev + md->at;
    if (md->flags & COUNT)
        return (double)*(const size_t *)(const void *)at;
    return *(const double *)(const void *)at;
}

enum stats_exclusion family_excl(const struct family *f, const struct job_eval *ev)
{
    if (f->excl == NO_EXCL)
        return EXCL_NONE;
    return *(const enum stats_exclusion *)(const void *)((const char *)ev + f->excl);
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
