/* analysis.c: the analysis driver: jobs and samples from the database through the
 * stats library to the association object of INTERFACES.md and the job export. */
#include "internal.h"

#include "../stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whose exclusion reason a metric carries: none (the log), a family of
 * stats_job_volume, or one of stats_job_derived's own. */
enum family { FAM_LOG, FAM_PSI, FAM_D, FAM_I, FAM_B_D, FAM_TAU, FAM_COUNT };

/* Export's name of each family's exclusion column (excluded_NAME). */
static const char *const family_names[FAM_COUNT] = {"log", "psi", "d", "i", "b_d", "tau"};

enum metric_id {
    M_T_J,
    M_T_UM,
    M_T_URW,
    M_T_S,
    M_T_S_SPAN,
    M_T_S_SLOWEST,
    M_T,
    M_T_FR,
    M_T_FW,
    M_ETA_READ,
    M_ETA_WRITE,
    M_ETA_MON_READ,
    M_ETA_MON_WRITE,
    M_PSI_READ,
    M_PSI_WRITE,
    M_PSI_O_READ,
    M_PSI_O_WRITE,
    M_M,
    M_T_D,
    M_PSI_D_READ,
    M_PSI_D_WRITE,
    M_M_I,
    M_T_I,
    M_PSI_I_READ,
    M_PSI_I_WRITE,
    M_PSI_DO_READ,
    M_PSI_DO_WRITE,
    M_NU_READ,
    M_NU_WRITE,
    M_NU_D_READ,
    M_NU_D_WRITE,
    M_B_D,
    M_TAU
};

struct metric_def {
    const char *name;
    enum metric_id id;
    enum family fam;
    unsigned negative; /* its NEGATIVE_* bit when it may be negative, else 0 */
};

/* Every job metric of METHOD.md §2 and §3, in METHOD.md's order (export's columns).
 * ν and ν^D share Ψ's and Ψ^D's exclusions (stats_job_derived's contract). */
static const struct metric_def metrics[] = {
    {"t_j", M_T_J, FAM_LOG, 0},
    {"t_um", M_T_UM, FAM_LOG, 0},
    {"t_urw", M_T_URW, FAM_LOG, 0},
    {"t_s", M_T_S, FAM_LOG, 0},
    {"t_s_span", M_T_S_SPAN, FAM_LOG, 0},
    {"t_s_slowest", M_T_S_SLOWEST, FAM_LOG, 0},
    {"t", M_T, FAM_LOG, 0},
    {"t_fr", M_T_FR, FAM_LOG, 0},
    {"t_fw", M_T_FW, FAM_LOG, 0},
    {"eta_read", M_ETA_READ, FAM_LOG, 0},
    {"eta_write", M_ETA_WRITE, FAM_LOG, 0},
    {"eta_mon_read", M_ETA_MON_READ, FAM_LOG, 0},
    {"eta_mon_write", M_ETA_MON_WRITE, FAM_LOG, 0},
    {"psi_read", M_PSI_READ, FAM_PSI, 0},
    {"psi_write", M_PSI_WRITE, FAM_PSI, 0},
    {"psi_o_read", M_PSI_O_READ, FAM_PSI, 0},
    {"psi_o_write", M_PSI_O_WRITE, FAM_PSI, 0},
    {"m", M_M, FAM_D, 0},
    {"t_d", M_T_D, FAM_D, 0},
    {"psi_d_read", M_PSI_D_READ, FAM_D, 0},
    {"psi_d_write", M_PSI_D_WRITE, FAM_D, 0},
    {"m_i", M_M_I, FAM_I, 0},
    {"t_i", M_T_I, FAM_I, 0},
    {"psi_i_read", M_PSI_I_READ, FAM_I, 0},
    {"psi_i_write", M_PSI_I_WRITE, FAM_I, 0},
    {"psi_do_read", M_PSI_DO_READ, FAM_D, 0},
    {"psi_do_write", M_PSI_DO_WRITE, FAM_D, 0},
    {"nu_read", M_NU_READ, FAM_PSI, NEGATIVE_NU_READ},
    {"nu_write", M_NU_WRITE, FAM_PSI, NEGATIVE_NU_WRITE},
    {"nu_d_read", M_NU_D_READ, FAM_D, NEGATIVE_NU_D_READ},
    {"nu_d_write", M_NU_D_WRITE, FAM_D, NEGATIVE_NU_D_WRITE},
    {"b_d", M_B_D, FAM_B_D, NEGATIVE_B_D},
    {"tau", M_TAU, FAM_TAU, 0},
};

#define N_METRICS (sizeof metrics / sizeof metrics[0])

/* The negative-value flags in a fixed order, for export. */
static const unsigned negative_bits[] = {NEGATIVE_NU_READ, NEGATIVE_NU_WRITE,
                                         NEGATIVE_NU_D_READ, NEGATIVE_NU_D_WRITE,
                                         NEGATIVE_B_D};

static const struct metric_def *metric_find(const char *name)
{
    for (size_t i = 0; i < N_METRICS; i++) {
        if (strcmp(metrics[i].name, name) == 0)
            return &metrics[i];
    }
    return NULL;
}

bool analysis_metric_known(const char *name)
{
    return name != NULL && metric_find(name) != NULL;
}

/* Everything computed for one job at one granularity and scope. */
struct job_eval {
    struct stats_job_volume v;     /* METHOD.md §3 volume metrics */
    struct stats_job_derived dv;   /* ν, ν^D, B^D, τ */
    const struct scope_series *ss; /* the series used; NULL when there was none */
};

/* The value of a metric for one job; NAN when it does not exist for that job. */
static double metric_value(const struct metric_def *md, const struct db_job *j,
                           const struct job_eval *ev)
{
    const struct stats_job_volume *v = &ev->v;
    const struct stats_job_derived *dv = &ev->dv;

    switch (md->id) {
    case M_T_J: return j->t_j;
    case M_T_UM: return j->t_um;
    case M_T_URW: return j->t_urw;
    case M_T_S: return j->t_s;
    case M_T_S_SPAN: return j->t_s_span;
    case M_T_S_SLOWEST: return j->t_s_slowest;
    case M_T: return j->t;
    case M_T_FR: return j->t_fr >= 0 ? j->t_fr : (double)NAN; /* -1: never read */
    case M_T_FW: return j->t_fw >= 0 ? j->t_fw : (double)NAN;
    case M_ETA_READ: return (double)j->eta_read;
    case M_ETA_WRITE: return (double)j->eta_write;
    case M_ETA_MON_READ: return (double)j->eta_mon_read;
    case M_ETA_MON_WRITE: return (double)j->eta_mon_write;
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
    }
    return NAN;
}

static enum stats_exclusion family_excl(enum family f, const struct job_eval *ev)
{
    switch (f) {
    case FAM_LOG: return EXCL_NONE;
    case FAM_PSI: return ev->v.psi_excl;
    case FAM_D: return ev->v.d_excl;
    case FAM_I: return ev->v.i_excl;
    case FAM_B_D: return ev->dv.b_d_excl;
    case FAM_TAU: return ev->dv.tau_excl;
    case FAM_COUNT: break;
    }
    return EXCL_NONE;
}

/* A metric's value, NAN when its family is excluded for the job. */
static double metric_reported(const struct metric_def *md, const struct db_job *j,
                              const struct job_eval *ev)
{
    return family_excl(md->fam, ev) == EXCL_NONE ? metric_value(md, j, ev) : (double)NAN;
}

/* ---- series per scope -------------------------------------------------------- */

/* The base Δ: configured, else the coarsest sampling interval of the streams (finer
 * streams are placed on it by the grid rule). */
static double base_delta(const struct app_config *cfg, const struct db_streams *st)
{
    double d = 0;

    if (cfg->granularity_s > 0)
        return cfg->granularity_s;
    for (size_t i = 0; i < st->n; i++) {
        if (st->streams[i].interval_s > d)
            d = st->streams[i].interval_s;
    }
    return d;
}

/* The system-wide series summed over the streams of the file systems in member
 * (stream_fs[i] is stream i's file system), at granularity k·Δ. Servers of file
 * systems left out are left out of the presence rule too (METHOD.md §1: present when
 * every server of the series reported). */
static enum status build_series(const struct db_streams *st, const size_t *stream_fs,
                                const unsigned char *member, double delta_s, unsigned k,
                                struct stats_series **out, struct error *err)
{
    struct stats_stream *streams = calloc(st->n > 0 ? st->n : 1, sizeof *streams);
    size_t *server_index =
        malloc((st->n_servers > 0 ? st->n_servers : 1) * sizeof(size_t));
    struct stats_series *base = NULL;
    size_t n = 0, n_servers = 0;
    enum status rc;

    *out = NULL;
    if (streams == NULL || server_index == NULL) {
        free(streams);
        free(server_index);
        return error_set(err, STATUS_NOMEM, "streams");
    }
    for (size_t i = 0; i < st->n_servers; i++)
        server_index[i] = SIZE_MAX;
    for (size_t i = 0; i < st->n; i++) {
        const struct db_stream *s = &st->streams[i];
        size_t *server = &server_index[st->server_of[i]];
        if (!member[stream_fs[i]])
            continue;
        if (*server == SIZE_MAX)
            *server = n_servers++;
        streams[n] = (struct stats_stream){.server = *server,
                                           .end_s = s->end_s,
                                           .r = s->r,
                                           .w = s->w,
                                           .ro = s->ro,
                                           .wo = s->wo,
                                           .n = s->n,
                                           .delta_s = s->interval_s};
        n++;
    }
    rc = stats_series_build(streams, n, n_servers, delta_s, &base, err);
    free(streams);
    free(server_index);
    if (rc != STATUS_OK || k == 1) {
        *out = base;
        return rc;
    }
    rc = stats_series_coarsen(base, k, 0, out, err);
    stats_series_free(base);
    return rc;
}

enum scope_kind { SCOPE_ALL, SCOPE_FS, SCOPE_TOUCHED };

/* One summed series and the file systems it sums. */
struct scope_series {
    unsigned char *member;       /* member[f] = 1: file system f is summed */
    struct stats_series *series; /* on the analysis grid */
};

/* What every analysis of one granularity and scope needs: the streams, and the
 * series of each distinct set of file systems met so far (one for all and fs:NAME;
 * one per distinct touched set, which a group has few of, so a cache of sets rather
 * than a series per job). */
struct analysis_ctx {
    struct db_streams *streams;
    enum scope_kind kind;
    const char *scope;     /* "all", "touched" or "fs:NAME" */
    const char **fs_names; /* distinct file systems of streams (borrowed from it) */
    size_t n_fs;
    size_t *stream_fs;                /* stream i's index in fs_names */
    const struct scope_series *fixed; /* all, fs:NAME: the one series of every job */
    struct scope_series **sets;       /* each its own allocation: jobs keep pointers */
    size_t n_sets, cap_sets;
    unsigned char *member; /* scratch: the set of the job at hand */
    double base_delta_s;   /* Δ */
    unsigned k;            /* granularity = k·Δ */
};

static void ctx_clear(struct analysis_ctx *c)
{
    for (size_t i = 0; i < c->n_sets; i++) {
        stats_series_free(c->sets[i]->series);
        free(c->sets[i]->member);
        free(c->sets[i]);
    }
    free(c->sets);
    free(c->member);
    free(c->stream_fs);
    free(c->fs_names);
    db_streams_free(c->streams);
    memset(c, 0, sizeof *c);
}

/* The series of the set in c->member: cached, or built and cached. */
static enum status ctx_series_of_member(struct analysis_ctx *c,
                                        const struct scope_series **out,
                                        struct error *err)
{
    enum status rc;

    for (size_t i = 0; i < c->n_sets; i++) {
        if (memcmp(c->sets[i]->member, c->member, c->n_fs) == 0) {
            *out = c->sets[i];
            return STATUS_OK;
        }
    }
    if (c->n_sets == c->cap_sets) {
        size_t cap = c->cap_sets > 0 ? 2 * c->cap_sets : 4;
        struct scope_series **grown =
            realloc(c->sets, cap * sizeof(struct scope_series *));
        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "series of a scope");
        c->sets = grown;
        c->cap_sets = cap;
    }
    struct scope_series *ss = calloc(1, sizeof *ss);
    if (ss == NULL)
        return error_set(err, STATUS_NOMEM, "series of a scope");
    ss->member = malloc(c->n_fs);
    if (ss->member == NULL) {
        free(ss);
        return error_set(err, STATUS_NOMEM, "series of a scope");
    }
    memcpy(ss->member, c->member, c->n_fs);
    rc = build_series(c->streams, c->stream_fs, ss->member, c->base_delta_s, c->k,
                      &ss->series, err);
    if (rc != STATUS_OK) {
        free(ss->member);
        free(ss);
        return rc;
    }
    c->sets[c->n_sets++] = ss;
    *out = ss;
    return STATUS_OK;
}

/* The series a job's volume metrics use: the scope's one, or for scope=touched that
 * of the monitored file systems (with samples) the job read or wrote, known from the
 * file system of each of its windows. NULL when the job touched none of them. */
static enum status ctx_series_for(struct analysis_ctx *c, const struct db_job *j,
                                  const struct scope_series **out, struct error *err)
{
    bool any = false;

    *out = NULL;
    if (c->kind != SCOPE_TOUCHED) {
        *out = c->fixed;
        return STATUS_OK;
    }
    memset(c->member, 0, c->n_fs);
    for (size_t w = 0; w < j->n_windows; w++) {
        const struct db_window *dw = &j->windows[w];
        if (!dw->monitored)
            continue;
        for (size_t f = 0; f < c->n_fs; f++) {
            if (strcmp(c->fs_names[f], dw->fs) == 0) {
                c->member[f] = 1;
                any = true;
                break;
            }
        }
    }
    if (!any)
        return STATUS_OK;
    return ctx_series_of_member(c, out, err);
}

static enum status invalid_param(struct error *err, const char *param, const char *what,
                                 const char *value)
{
    enum status rc = error_set(err, STATUS_INVALID, "%s '%s'", what, value);
    if (err != NULL)
        snprintf(err->file, sizeof err->file, "%s", param);
    return rc;
}

/* The distinct file systems of the streams (loaded ordered by fs) and each stream's. */
static enum status ctx_index_fs(struct analysis_ctx *c, struct error *err)
{
    const struct db_streams *st = c->streams;
    const char **names = calloc(st->n, sizeof *names);
    size_t n_fs = 0;

    c->fs_names = names;
    c->stream_fs = calloc(st->n, sizeof *c->stream_fs);
    c->member = calloc(st->n, 1);
    if (names == NULL || c->stream_fs == NULL || c->member == NULL)
        return error_set(err, STATUS_NOMEM, "file systems of the samples");
    for (size_t i = 0; i < st->n; i++) {
        const char *name = st->streams[i].fs;
        size_t f = 0;
        while (f < n_fs && strcmp(names[f], name) != 0)
            f++;
        if (f == n_fs)
            names[n_fs++] = name;
        c->stream_fs[i] = f;
    }
    c->n_fs = n_fs;
    return STATUS_OK;
}

static enum status ctx_prepare(struct db *db, const struct app_config *cfg,
                               double granularity_s, const char *scope,
                               struct analysis_ctx *c, struct error *err)
{
    const char *fs = NULL;
    enum status rc;

    memset(c, 0, sizeof *c);
    if (scope == NULL || strcmp(scope, "all") == 0) {
        scope = "all";
        c->kind = SCOPE_ALL;
    } else if (strcmp(scope, "touched") == 0) {
        c->kind = SCOPE_TOUCHED;
    } else if (strncmp(scope, "fs:", 3) == 0 && scope[3] != '\0') {
        fs = scope + 3;
        c->kind = SCOPE_FS;
    } else {
        return invalid_param(err, "scope",
                             "use all, touched or fs:NAME; unsupported scope", scope);
    }
    c->scope = scope;
    rc = db_streams_load(db, fs, cfg->sample_offset_s, &c->streams, err);
    if (rc != STATUS_OK)
        return rc;
    if (c->streams->n == 0) {
        rc = error_set(err, STATUS_NOT_FOUND, "no server samples%s%s are loaded",
                       fs != NULL ? " for " : "", fs != NULL ? fs : "");
        ctx_clear(c);
        return rc;
    }
    /* One Δ for every set, from every stream loaded: the jobs of a group, whatever
     * they touched, share one grid and one granularity. */
    c->base_delta_s = base_delta(cfg, c->streams);
    double kf = granularity_s > 0 ? granularity_s / c->base_delta_s : 1;
    c->k = (unsigned)lround(kf);
    if (c->k < 1 || fabs(kf - c->k) > 1e-9 * kf) {
        char value[40];
        snprintf(value, sizeof value, "%g", granularity_s);
        rc = error_set(
            err, STATUS_INVALID,
            "granularity %s s is not a whole multiple of the base interval %g s", value,
            c->base_delta_s);
        if (err != NULL)
            snprintf(err->file, sizeof err->file, "granularity");
        ctx_clear(c);
        return rc;
    }
    rc = ctx_index_fs(c, err);
    if (rc == STATUS_OK && c->kind != SCOPE_TOUCHED) {
        /* all and fs:NAME: one series over every file system loaded, built now. */
        memset(c->member, 1, c->n_fs);
        rc = ctx_series_of_member(c, &c->fixed, err);
    }
    if (rc != STATUS_OK)
        ctx_clear(c);
    return rc;
}

/* ---- one job ----------------------------------------------------------------- */

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
static enum status job_eval_on(const struct stats_series *series, const struct db_job *j,
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
    return STATUS_OK;
}

/* job_eval_on over the series of the job's scope (METHOD.md §1), which ev->ss names.
 * Fails also when that series cannot be built. */
static enum status job_eval(struct analysis_ctx *c, const struct db_job *j,
                            struct analysis_scratch *s, struct job_eval *ev,
                            struct error *err)
{
    const struct scope_series *ss = NULL;
    enum status rc = ctx_series_for(c, j, &ss, err);

    if (rc != STATUS_OK)
        return rc;
    rc = job_eval_on(ss != NULL ? ss->series : NULL, j, s, ev, err);
    ev->ss = ss;
    return rc;
}

/* ---- association -------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

struct pair_data {
    double *x, *y;
    size_t d;
    size_t excluded[EXCL_COUNT];
    size_t negative_y, negative_x; /* of the d pairs, values below zero (ν, B^D) */
};

/* Why job j does not count for the pair (my, mx), EXCL_NONE when it does; its values
 * in *yv and *xv either way. */
static enum stats_exclusion pair_values(const struct metric_def *my,
                                        const struct metric_def *mx,
                                        const struct db_job *j, const struct job_eval *ev,
                                        bool log_space, double *yv, double *xv)
{
    enum stats_exclusion e = family_excl(my->fam, ev);

    if (e == EXCL_NONE)
        e = family_excl(mx->fam, ev);
    *yv = metric_value(my, j, ev);
    *xv = metric_value(mx, j, ev);
    if (e == EXCL_NONE && !(j->t_j > 0))
        e = EXCL_NO_IO; /* METHOD.md §2: T_J = 0 is excluded from time analyses */
    if (e == EXCL_NONE && (!isfinite(*yv) || !isfinite(*xv)))
        e = EXCL_NONFINITE;
    if (e == EXCL_NONE && log_space && (*yv <= 0 || *xv <= 0))
        e = EXCL_NONPOSITIVE_IN_LOG_SPACE;
    return e;
}

/* Fills x/y over the jobs of a group, counting exclusions. */
static enum status collect_pairs(struct analysis_ctx *c, const struct db_jobs *jobs,
                                 const struct metric_def *my, const struct metric_def *mx,
                                 bool log_space, struct pair_data *p, struct error *err)
{
    struct analysis_scratch s = {0};
    enum status rc;

    rc = analysis_scratch_init(&s, jobs, err);
    p->x = calloc(jobs->n + 1, sizeof *p->x);
    p->y = calloc(jobs->n + 1, sizeof *p->y);
    if (rc == STATUS_OK && (p->x == NULL || p->y == NULL)) {
        analysis_scratch_clear(&s);
        return error_set(err, STATUS_NOMEM, "association inputs");
    }
    for (size_t i = 0; rc == STATUS_OK && i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        struct job_eval ev;
        rc = job_eval(c, j, &s, &ev, err);
        if (rc != STATUS_OK)
            break;
        double yv, xv;
        enum stats_exclusion e = pair_values(my, mx, j, &ev, log_space, &yv, &xv);
        if (e != EXCL_NONE) {
            p->excluded[e]++;
            continue;
        }
        p->negative_y += my->negative != 0 && yv < 0;
        p->negative_x += mx->negative != 0 && xv < 0;
        p->x[p->d] = xv;
        p->y[p->d] = yv;
        p->d++;
    }
    analysis_scratch_clear(&s);
    return rc;
}

static json_t *excluded_json(const struct pair_data *p)
{
    json_t *o = json_object();
    size_t total = 0;

    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++)
        total += p->excluded[e];
    json_object_set_new(o, "total", json_integer((json_int_t)total));
    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++) {
        json_object_set_new(o, stats_exclusion_name((enum stats_exclusion)e),
                            json_integer((json_int_t)p->excluded[e]));
    }
    return o;
}

/* "negative": {"nu_d_read": n}: how many of the d values of a metric that may be
 * negative (ν, ν^D, B^D: METHOD.md keeps and flags them) are. NULL for other pairs. */
static json_t *negative_json(const struct metric_def *my, const struct metric_def *mx,
                             const struct pair_data *p)
{
    json_t *o;

    if (my->negative == 0 && mx->negative == 0)
        return NULL;
    o = json_object();
    if (my->negative != 0)
        json_object_set_new(o, my->name, json_integer((json_int_t)p->negative_y));
    if (mx->negative != 0)
        json_object_set_new(o, mx->name, json_integer((json_int_t)p->negative_x));
    return o;
}

/* The object's identity of the data: two objects with equal keys were computed on
 * the same jobs and values (the coefficients are exact functions of them). */
static bool same_data(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"d",        "excluded", "space",  "pearson",
                                       "spearman", "dcor_v",   "dcor2_u"};

    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *va = json_object_get(a, keys[i]), *vb = json_object_get(b, keys[i]);
        if ((va == NULL) != (vb == NULL) || (va != NULL && !json_equal(va, vb)))
            return false;
    }
    const json_t *ka = json_object_get(json_object_get(a, "kde"), "kernel");
    const json_t *kb = json_object_get(json_object_get(b, "kde"), "kernel");
    /* no "bandwidth": stored before the plug-in existed, i.e. normal */
    const char *ba =
        json_string_value(json_object_get(json_object_get(a, "kde"), "bandwidth"));
    const char *bb =
        json_string_value(json_object_get(json_object_get(b, "kde"), "bandwidth"));
    if (strcmp(ba != NULL ? ba : "normal", bb != NULL ? bb : "normal") != 0)
        return false;
    return ka == NULL || kb == NULL || json_equal(ka, kb);
}

/* What analyze stored under the same key, beside the object computed now: "stored"
 * says when it was computed, from what (its provenance) and whether it is of the
 * same data ("current"). Its significance (analyze computes it at the base
 * granularity: METHOD.md §5) is added when with_significance and of the same data,
 * and so is its forest when with_rf.
 * A result that cannot be read is skipped, logged. */
static void attach_stored(struct db *db, const char *group_id, const char *y,
                          const char *x, double granularity_s, const char *space,
                          const char *scope, bool with_significance, bool with_rf,
                          json_t *o)
{
    struct error err = {0};
    json_error_t jerr;
    char *text = NULL, computed_at[40];
    enum status rc = db_result_get(db, group_id, y, x, granularity_s, space, scope, &text,
                                   computed_at, &err);

    if (rc != STATUS_OK) {
        if (rc != STATUS_NOT_FOUND)
            log_warn("stored result of %s %s~%s: %s", group_id, y, x, err.msg);
        free(text);
        return;
    }
    json_t *stored = json_loads(text, 0, &jerr);
    free(text);
    if (stored == NULL) {
        log_warn("stored result of %s %s~%s unreadable: %s", group_id, y, x, jerr.text);
        return;
    }
    bool current = same_data(stored, o);
    json_t *signif = json_object_get(stored, "significance"); /* borrowed */
    if (with_significance && signif != NULL && current)
        json_object_set(o, "significance", signif);
    json_t *rf = json_object_get(stored, "rf"); /* borrowed */
    if (with_rf && rf != NULL && current)
        json_object_set(o, "rf", rf);
    json_t *meta =
        json_pack("{s:s, s:b}", "computed_at", computed_at, "current", current);
    json_t *prov = json_object_get(stored, "provenance"); /* borrowed */
    if (meta != NULL && prov != NULL)
        json_object_set(meta, "provenance", prov);
    if (meta != NULL)
        json_object_set_new(o, "stored", meta);
    json_decref(stored);
}

/* Everything beside the jobs and samples that a stored association result depends
 * on: a change of any of them recomputes every group. */
void analysis_settings_text(const struct app_config *cfg, double granularity_s, char *out,
                            size_t size)
{
    snprintf(out, size,
             "version=%s;kind=association;pairs=%zu;d_min=%zu;seed=%lu;theta=%.17g;"
             "base_granularity=%.17g;granularity=%.17g;permutations=%zu;rf_trees=%d",
             IOCONTEND_VERSION, (size_t)ANALYZE_DEFAULT_PAIRS, cfg->d_min, cfg->seed,
             cfg->sample_offset_s, cfg->granularity_s, granularity_s, cfg->permutations,
             STATS_RF_TREES);
}

enum status analysis_association_stored(struct db *db, const char *group_id,
                                        const char *y, const char *x, json_t **out,
                                        struct error *err)
{
    char computed_at[40];
    char *text = NULL;
    struct db_group_inputs now;
    json_error_t jerr;

    /* Served whatever settings analyze ran with: they are in "stored". */
    *out = NULL;
    enum status rc = db_result_find(db, group_id, y, x, "auto", "all",
                                    "%;granularity=0;%", &text, computed_at, err);
    if (rc != STATUS_OK)
        return rc;
    json_t *o = json_loads(text, 0, &jerr);
    free(text);
    if (o == NULL) {
        log_warn("stored result of %s %s~%s unreadable: %s", group_id, y, x, jerr.text);
        return error_set(err, STATUS_NOT_FOUND, "stored result unreadable");
    }
    /* Served only while the group's jobs and samples are those it came from. */
    json_t *prov = json_object_get(o, "provenance"); /* borrowed */
    rc = db_group_inputs_read(db, group_id, "association", "", &now, err);
    const char *jobs_md5 = json_string_value(json_object_get(prov, "jobs_md5"));
    const char *samples_md5 = json_string_value(json_object_get(prov, "samples_md5"));
    json_t *samples = json_object_get(prov, "samples");
    if (rc == STATUS_OK &&
        (jobs_md5 == NULL || samples_md5 == NULL || !json_is_integer(samples) ||
         strcmp(jobs_md5, now.jobs_md5) != 0 ||
         strcmp(samples_md5, now.samples_md5) != 0 ||
         json_integer_value(samples) != (json_int_t)now.samples))
        rc = error_set(err, STATUS_NOT_FOUND, "the stored result's inputs changed");
    if (rc != STATUS_OK) {
        json_decref(o);
        return rc;
    }
    json_t *meta = json_pack("{s:s, s:b, s:O}", "computed_at", computed_at, "current", 1,
                             "provenance", prov);
    json_object_del(o, "provenance");
    if (meta != NULL)
        json_object_set_new(o, "stored", meta);
    *out = o;
    return STATUS_OK;
}

enum status analysis_association(struct db *db, const struct app_config *cfg,
                                 const char *group_id, const char *y, const char *x,
                                 double granularity_s, const char *scope,
                                 const struct assoc_opts *opts, json_t **out,
                                 struct error *err)
{
    const struct metric_def *my = metric_find(y), *mx = metric_find(x);
    const char *space = opts->space != NULL ? opts->space : "auto";
    struct db_group group;
    struct db_jobs *jobs = NULL;
    struct analysis_ctx ctx;
    struct pair_data p;
    json_t *o = NULL;
    enum status rc;

    *out = NULL;
    memset(&p, 0, sizeof p);
    memset(&ctx, 0, sizeof ctx);
    if (my == NULL)
        return invalid_param(err, "y", "unknown metric", y);
    if (mx == NULL)
        return invalid_param(err, "x", "unknown metric", x);
    if (strcmp(space, "auto") != 0 && strcmp(space, "log") != 0 &&
        strcmp(space, "linear") != 0) {
        return invalid_param(err, "space", "use auto, log or linear; unknown space",
                             space);
    }
    rc = db_group_get(db, group_id, &group, err);
    if (rc != STATUS_OK)
        return rc;
    rc = ctx_prepare(db, cfg, granularity_s, scope, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_jobs_of_group(db, group_id, &jobs, err);
    if (rc != STATUS_OK)
        goto out;
    /* An explicit log space excludes the jobs it cannot fit, counted (METHOD.md §3). */
    rc = collect_pairs(&ctx, jobs, my, mx, strcmp(space, "log") == 0, &p, err);
    if (rc != STATUS_OK)
        goto out;
    struct assoc_opts ao = *opts;
    ao.space = space;
    ao.significance = opts->significance && (!opts->significance_base_only || ctx.k == 1);
    ao.rf = opts->rf && (!opts->significance_base_only || ctx.k == 1);
    o = json_object();
    json_object_set_new(o, "group", json_string(group.id));
    json_object_set_new(o, "y", json_string(y));
    json_object_set_new(o, "x", json_string(x));
    json_object_set_new(o, "granularity_s", json_real(ctx.base_delta_s * ctx.k));
    json_object_set_new(o, "base_granularity_s", json_real(ctx.base_delta_s));
    json_object_set_new(o, "scope", json_string(ctx.scope));
    json_object_set_new(o, "excluded", excluded_json(&p));
    json_t *neg = negative_json(my, mx, &p);
    if (neg != NULL)
        json_object_set_new(o, "negative", neg);
    rc = assoc_object_fill(o, p.x, p.y, p.d, &ao, err);
    if (rc != STATUS_OK)
        goto out;
    if (opts->stored_significance) {
        attach_stored(db, group_id, y, x, ctx.base_delta_s * ctx.k, space, ctx.scope,
                      !ao.significance, !ao.rf, o);
    }
    json_object_set_new(o, "sample_offset_s", num_or_null(cfg->sample_offset_s));
    /* Darshan's whole-second start: every absolute time may be up to 1 s early. */
    json_object_set_new(o, "time_error_s", json_real(1.0));
    *out = o;
    o = NULL;
out:
    json_decref(o);
    free(p.x);
    free(p.y);
    db_jobs_free(jobs);
    ctx_clear(&ctx);
    return rc;
}

/* ---- for the granularity sweep (sweep.c) --------------------------------------- */

enum status analysis_base_series(struct db *db, const struct app_config *cfg,
                                 struct stats_series **series, double *delta_s,
                                 struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc = ctx_prepare(db, cfg, 0, "all", &ctx, err);

    *series = NULL;
    *delta_s = 0;
    if (rc != STATUS_OK)
        return rc;
    /* Scope all: ctx_prepare built the one series; it changes owner here. */
    struct scope_series *ss = ctx.sets[0];
    *series = ss->series;
    ss->series = NULL;
    *delta_s = ctx.base_delta_s;
    ctx_clear(&ctx);
    return STATUS_OK;
}

enum status analysis_pair_resolve(const char *y, const char *x, struct analysis_pair *out,
                                  struct error *err)
{
    const struct metric_def *my = metric_find(y), *mx = metric_find(x);

    if (my == NULL)
        return invalid_param(err, "y", "unknown metric", y);
    if (mx == NULL)
        return invalid_param(err, "x", "unknown metric", x);
    out->y = (size_t)(my - metrics);
    out->x = (size_t)(mx - metrics);
    return STATUS_OK;
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

/* ---- export jobs --------------------------------------------------------------- */

static void put_csv_value(FILE *fp, double v)
{
    if (isfinite(v)) {
        fprintf(fp, ",%.17g", v);
    } else {
        fputs(",", fp);
    }
}

/* The CSV header: identity, every metric, then why values are missing, which are
 * negative, and which file systems the series summed. */
static void put_csv_header(FILE *fp)
{
    fputs("id,jobid,group,start_time,granularity_s", fp);
    for (size_t m = 0; m < N_METRICS; m++)
        fprintf(fp, ",%s", metrics[m].name);
    for (int f = FAM_LOG + 1; f < FAM_COUNT; f++)
        fprintf(fp, ",excluded_%s", family_names[f]);
    fputs(",negative,scope_fs\n", fp);
}

/* CSV list cells: names joined by ';' (no quoting needed). */
static void put_csv_row(FILE *fp, const struct analysis_ctx *c, const struct db_job *j,
                        const struct job_eval *ev)
{
    const char *sep = "";

    fprintf(fp, "%s,%s,%s,%.0f", j->job_key, j->jobid, j->group_id, j->start_s);
    put_csv_value(fp, c->base_delta_s * c->k);
    for (size_t m = 0; m < N_METRICS; m++)
        put_csv_value(fp, metric_reported(&metrics[m], j, ev));
    for (int f = FAM_LOG + 1; f < FAM_COUNT; f++)
        fprintf(fp, ",%s", stats_exclusion_name(family_excl((enum family)f, ev)));
    fputc(',', fp);
    for (size_t b = 0; b < sizeof negative_bits / sizeof negative_bits[0]; b++) {
        if (ev->dv.negative & negative_bits[b]) {
            fprintf(fp, "%s%s", sep, stats_negative_name(negative_bits[b]));
            sep = ";";
        }
    }
    fputc(',', fp);
    sep = "";
    for (size_t f = 0; ev->ss != NULL && f < c->n_fs; f++) {
        if (ev->ss->member[f]) {
            fprintf(fp, "%s%s", sep, c->fs_names[f]);
            sep = ";";
        }
    }
    fputc('\n', fp);
}

static json_t *json_row(const struct analysis_ctx *c, const struct db_job *j,
                        const struct job_eval *ev)
{
    json_t *o = json_object(), *ex = json_object(), *neg = json_array();
    json_t *fs = json_array();

    json_object_set_new(o, "id", json_string(j->job_key));
    json_object_set_new(o, "jobid", json_string(j->jobid));
    json_object_set_new(o, "group", json_string(j->group_id));
    json_object_set_new(o, "start_time", json_integer((json_int_t)j->start_s));
    json_object_set_new(o, "granularity_s", json_real(c->base_delta_s * c->k));
    for (size_t m = 0; m < N_METRICS; m++) {
        json_object_set_new(o, metrics[m].name,
                            num_or_null(metric_reported(&metrics[m], j, ev)));
    }
    for (int f = FAM_LOG + 1; f < FAM_COUNT; f++) {
        enum stats_exclusion e = family_excl((enum family)f, ev);
        if (e != EXCL_NONE) {
            json_object_set_new(ex, family_names[f],
                                json_string(stats_exclusion_name(e)));
        }
    }
    json_object_set_new(o, "excluded", ex);
    for (size_t b = 0; b < sizeof negative_bits / sizeof negative_bits[0]; b++) {
        if (ev->dv.negative & negative_bits[b]) {
            json_array_append_new(neg,
                                  json_string(stats_negative_name(negative_bits[b])));
        }
    }
    json_object_set_new(o, "negative", neg);
    for (size_t f = 0; ev->ss != NULL && f < c->n_fs; f++) {
        if (ev->ss->member[f])
            json_array_append_new(fs, json_string(c->fs_names[f]));
    }
    json_object_set_new(o, "scope_fs", fs);
    return o;
}

enum status analysis_export_jobs(struct db *db, const struct app_config *cfg,
                                 const char *group_id, double granularity_s,
                                 const char *scope, bool json, FILE *fp,
                                 struct error *err)
{
    struct analysis_ctx ctx;
    struct db_jobs *jobs = NULL;
    struct analysis_scratch s = {0};
    json_t *rows = NULL;
    enum status rc;

    rc = ctx_prepare(db, cfg, granularity_s, scope, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_jobs_of_group(db, group_id, &jobs, err);
    if (rc == STATUS_OK)
        rc = analysis_scratch_init(&s, jobs, err);
    if (rc != STATUS_OK)
        goto out;
    if (json) {
        rows = json_array();
    } else {
        put_csv_header(fp);
    }
    for (size_t i = 0; i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        struct job_eval ev;
        rc = job_eval(&ctx, j, &s, &ev, err);
        if (rc != STATUS_OK)
            goto out;
        if (json) {
            json_array_append_new(rows, json_row(&ctx, j, &ev));
        } else {
            put_csv_row(fp, &ctx, j, &ev);
        }
    }
    if (json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "granularity_s", json_real(ctx.base_delta_s * ctx.k));
        json_object_set_new(doc, "scope", json_string(ctx.scope));
        json_object_set_new(doc, "jobs", rows);
        rows = NULL;
        if (json_dumpf(doc, fp, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0)
            rc = error_set(err, STATUS_INTERNAL, "writing JSON");
        fputc('\n', fp);
        json_decref(doc);
    }
out:
    json_decref(rows);
    analysis_scratch_clear(&s);
    db_jobs_free(jobs);
    ctx_clear(&ctx);
    return rc;
}

/* ---- one series of a scope (coverage, tables.c) --------------------------------- */

enum status analysis_scope_series(struct db *db, const struct app_config *cfg,
                                  const char *scope, struct stats_series **series,
                                  double *delta_s, struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc;

    *series = NULL;
    *delta_s = 0;
    if (strcmp(scope, "touched") == 0)
        return invalid_param(err, "scope", "one series needs all or fs:NAME, not", scope);
    rc = ctx_prepare(db, cfg, 0, scope, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    if (ctx.n_sets == 0) { /* all and fs:NAME build their one series */
        ctx_clear(&ctx);
        return error_set(err, STATUS_INTERNAL, "no series for scope %s", scope);
    }
    /* It changes owner here. */
    struct scope_series *ss = ctx.sets[0];
    *series = ss->series;
    ss->series = NULL;
    *delta_s = ctx.base_delta_s;
    ctx_clear(&ctx);
    return STATUS_OK;
}
