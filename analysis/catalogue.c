/* catalogue.c: the job-metric catalogue of docs/method.md §2–§3: names, families (whose
 * exclusion a metric carries), where each value of one evaluated job is. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Where a value or an exclusion reason is in a job's evaluation. */
#define EV(field) offsetof(struct job_eval, field)
#define NO_EXCL   SIZE_MAX

/* The reasons a family can carry: FAMILY_REASON of each. */
#define R(e)        FAMILY_REASON(EXCL_##e)
#define R_SPAN      (R(HOLE) | R(NO_IO) | R(NO_MONITORED_IO) | R(NONFINITE))
#define R_WINDOWS   (R_SPAN | R(INCOMPLETE_LOG))
#define R_TAU       (R(NO_IO) | R(NONFINITE) | R(INCOMPLETE_LOG))
#define R_TRACE     (R_WINDOWS | R(NO_TRACE) | R(INCOMPLETE_DXT))
#define R_QUEUE     (R_WINDOWS | R(NO_QUEUE_DATA))
#define NO_TABLE    NULL
#define KEEPS       INCOMPLETE_KEEPS
#define DROPS       INCOMPLETE_EXCLUDES
#define DROPS_WHOLE INCOMPLETE_EXCLUDES_WHOLE_TRACE

/* Every family: name, docs/method.md section, where stored, whose exclusion reason it
 * carries, the reasons it can carry, what an incomplete log does to it (keeps it, drops
 * it, drops it with a whole trace), its compute function (none for the log: ingest
 * computes it, ingest/metrics.c). psi, d, i and q are stats_job_volume's families, ν and
 * ν^D carry psi's and d's reasons (stats_job_derived's contract); b_d and tau are
 * stats_job_derived's own; x and b_x are the same two over the DXT trace (§10); q is
 * the queue over d's A (§11). */
static const struct family
    fam_log = {"log", "§2", &db_family_log, NO_EXCL, 0, KEEPS, NULL},
    fam_psi = {"psi", "§3", NO_TABLE, EV(v.psi_excl), R_SPAN, KEEPS, compute_volume},
    fam_d = {"d", "§3", NO_TABLE, EV(v.d_excl), R_WINDOWS, DROPS, compute_volume},
    fam_i = {"i", "§3", NO_TABLE, EV(v.i_excl), R_WINDOWS, DROPS, compute_volume},
    fam_b_d = {"b_d", "§3", NO_TABLE, EV(dv.b_d_excl), R_WINDOWS, DROPS, compute_derived},
    fam_tau = {"tau", "§3", NO_TABLE, EV(dv.tau_excl), R_TAU, DROPS, compute_derived},
    fam_x = {"x", "§10", NO_TABLE, EV(x_excl), R_TRACE, DROPS_WHOLE, compute_x},
    fam_b_x = {"b_x", "§10", NO_TABLE, EV(b_x_excl), R_TRACE, DROPS_WHOLE, compute_x},
    fam_q = {"q", "§11", NO_TABLE, EV(v.q_excl), R_QUEUE, DROPS, compute_volume};

/* Every family, in export's order of its excluded_NAME columns, and the order of
 * computation: a compute function runs after those of the families before it. */
const struct family *const families[] = {&fam_log, &fam_psi, &fam_d,   &fam_i, &fam_b_d,
                                         &fam_tau, &fam_x,   &fam_b_x, &fam_q};
const size_t n_families = sizeof families / sizeof families[0];

/* Every job metric of docs/method.md §2, §3, §10 and §11, in docs/method.md's order
 * (export's columns): name, unit, family, NEGATIVE_ bit, flags, where its value is,
 * meaning. Any metric may be y or x of a pair (analysis_pair_resolve takes both alike).
 * ν and ν^D share Ψ's and Ψ^D's exclusions (stats_job_derived's contract). */
const struct metric_def metrics[] = {
    {"t_j", "s", &fam_log, 0, IN_TABLE, LOG_T_J, "run time (header, else end - start)"},
    {"t_um", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_UM,
     "the slowest rank's unique-file metadata time"},
    {"t_urw", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_URW,
     "the slowest rank's unique-file read and write time"},
    {"t_s", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S,
     "shared files: first open to last I/O, summed over files"},
    {"t_s_span", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S_SPAN,
     "shared files: last I/O end - first open"},
    {"t_s_slowest", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T_S_SLOWEST,
     "shared files: slowest-rank time, summed"},
    {"t", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE, LOG_T,
     "t_um + t_urw + t_s (eq. 1)"},
    {"t_fr", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE | NONE_IF_NEGATIVE, LOG_T_FR,
     "read window span (eq. 6)"},
    {"t_fw", "s", &fam_log, 0, NEEDS_RECORDS | IN_TABLE | NONE_IF_NEGATIVE, LOG_T_FW,
     "write window span (eq. 6)"},
    {"eta_read", "B", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_READ,
     "bytes read, one layer per file"},
    {"eta_write", "B", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_WRITE,
     "bytes written, one layer per file"},
    {"eta_mon_read", "B", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_MON_READ,
     "bytes read on monitored file systems"},
    {"eta_mon_write", "B", &fam_log, 0, NEEDS_RECORDS, LOG_ETA_MON_WRITE,
     "bytes written on monitored file systems"},
    {"psi_read", "B", &fam_psi, 0, 0, EV(v.psi_read),
     "servers' bytes read over the job's span (eq. 2)"},
    {"psi_write", "B", &fam_psi, 0, 0, EV(v.psi_write),
     "servers' bytes written over the job's span (eq. 2)"},
    {"psi_o_read", "ops", &fam_psi, 0, 0, EV(v.psi_o_read),
     "servers' read operations over the job's span (eq. 3)"},
    {"psi_o_write", "ops", &fam_psi, 0, 0, EV(v.psi_o_write),
     "servers' write operations over the job's span (eq. 3)"},
    {"filled_s", "s", &fam_psi, 0, 0, EV(v.filled_s),
     "seconds of the span's base intervals the gap rule filled"},
    {"m", "intervals", &fam_d, 0, NEEDS_RECORDS | COUNT, EV(v.m),
     "|A|: the job's active intervals"},
    {"t_d", "s", &fam_d, 0, NEEDS_RECORDS | IN_TABLE, EV(v.t_d), "m·Δ (eq. 5)"},
    {"psi_d_read", "B", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_d_read),
     "servers' bytes read over A (eq. 4)"},
    {"psi_d_write", "B", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_d_write),
     "servers' bytes written over A (eq. 4)"},
    {"m_i", "intervals", &fam_i, 0, NEEDS_RECORDS | COUNT, EV(v.m_i),
     "|A^I|: active intervals of monitored files"},
    {"t_i", "s", &fam_i, 0, NEEDS_RECORDS | IN_TABLE, EV(v.t_i), "m_i·Δ"},
    {"psi_i_read", "B", &fam_i, 0, NEEDS_RECORDS, EV(v.psi_i_read),
     "servers' bytes read over A^I"},
    {"psi_i_write", "B", &fam_i, 0, NEEDS_RECORDS, EV(v.psi_i_write),
     "servers' bytes written over A^I"},
    {"psi_do_read", "ops", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_do_read),
     "servers' read operations over A"},
    {"psi_do_write", "ops", &fam_d, 0, NEEDS_RECORDS, EV(v.psi_do_write),
     "servers' write operations over A"},
    {"nu_read", "B", &fam_psi, NEGATIVE_NU_READ, NEEDS_RECORDS, EV(dv.nu_read),
     "psi_read - eta_mon_read"},
    {"nu_write", "B", &fam_psi, NEGATIVE_NU_WRITE, NEEDS_RECORDS, EV(dv.nu_write),
     "psi_write - eta_mon_write"},
    {"nu_d_read", "B", &fam_d, NEGATIVE_NU_D_READ, NEEDS_RECORDS, EV(dv.nu_d_read),
     "psi_d_read - eta_mon_read"},
    {"nu_d_write", "B", &fam_d, NEGATIVE_NU_D_WRITE, NEEDS_RECORDS, EV(dv.nu_d_write),
     "psi_d_write - eta_mon_write"},
    {"b_d", "B/s", &fam_b_d, NEGATIVE_B_D, NEEDS_RECORDS, EV(dv.b_d),
     "background bandwidth during the job's I/O"},
    {"tau", "s/GiB", &fam_tau, 0, NEEDS_RECORDS, EV(dv.tau),
     "I/O time per GiB: t / (eta / 2^30)"},
    {"t_x", "s", &fam_x, 0, NEEDS_RECORDS, EV(t_x),
     "traced I/O time: the union of the operation windows"},
    {"t_x_read", "s", &fam_x, 0, NEEDS_RECORDS, EV(t_x_read), "traced read time"},
    {"t_x_write", "s", &fam_x, 0, NEEDS_RECORDS, EV(t_x_write), "traced write time"},
    {"m_x", "intervals", &fam_x, 0, NEEDS_RECORDS | COUNT, EV(xv.m),
     "|A^X|: the trace's active intervals"},
    {"t_dx", "s", &fam_x, 0, NEEDS_RECORDS, EV(xv.t_d), "m_x·Δ"},
    {"psi_x_read", "B", &fam_x, 0, NEEDS_RECORDS, EV(xv.psi_d_read),
     "servers' bytes read over A^X"},
    {"psi_x_write", "B", &fam_x, 0, NEEDS_RECORDS, EV(xv.psi_d_write),
     "servers' bytes written over A^X"},
    {"b_x", "B/s", &fam_b_x, NEGATIVE_B_X, NEEDS_RECORDS, EV(xdv.b_d),
     "b_d's formula over A^X"},
    {"q_d", "requests", &fam_q, 0, NEEDS_RECORDS, EV(v.q_d), "mean queue over A"},
    {"u_d", "1", &fam_q, 0, NEEDS_RECORDS, EV(v.u_d),
     "mean utilisation over A (a fraction)"},
    {"await_d", "s", &fam_q, 0, NEEDS_RECORDS, EV(v.await_d),
     "request-weighted await over A"},
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
        double x = log_double(j->log, (enum log_value)md->at);
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
    if (e == EXCL_NONE && !(j->log[LOG_T_J].f8 > 0))
        e = EXCL_NO_IO; /* docs/method.md §2: T_J = 0 is excluded from time analyses */
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
