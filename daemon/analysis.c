/* analysis.c: the analysis driver: jobs and samples from the database through the
 * stats library to the association object of INTERFACES.md. */
#include "internal.h"

#include "../stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which family of stats_job_volume a metric needs (its exclusion reason). */
enum family { FAM_LOG, FAM_PSI, FAM_D, FAM_I };

struct metric_def {
    const char *name;
    enum family fam;
};

static const struct metric_def metrics[] = {
    {"t_j", FAM_LOG},
    {"t_um", FAM_LOG},
    {"t_urw", FAM_LOG},
    {"t_s", FAM_LOG},
    {"t_s_span", FAM_LOG},
    {"t_s_slowest", FAM_LOG},
    {"t", FAM_LOG},
    {"t_fr", FAM_LOG},
    {"t_fw", FAM_LOG},
    {"eta_read", FAM_LOG},
    {"eta_write", FAM_LOG},
    {"eta_mon_read", FAM_LOG},
    {"eta_mon_write", FAM_LOG},
    {"tau", FAM_LOG},
    {"psi_read", FAM_PSI},
    {"psi_write", FAM_PSI},
    {"psi_o_read", FAM_PSI},
    {"psi_o_write", FAM_PSI},
    {"nu_read", FAM_PSI},
    {"nu_write", FAM_PSI},
    {"m", FAM_D},
    {"t_d", FAM_D},
    {"psi_d_read", FAM_D},
    {"psi_d_write", FAM_D},
    {"psi_do_read", FAM_D},
    {"psi_do_write", FAM_D},
    {"nu_d_read", FAM_D},
    {"nu_d_write", FAM_D},
    {"b_d", FAM_D},
    {"m_i", FAM_I},
    {"t_i", FAM_I},
    {"psi_i_read", FAM_I},
    {"psi_i_write", FAM_I},
};

static const struct metric_def *metric_find(const char *name)
{
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
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
static double metric_value(const char *name, const struct db_job *j,
                           const struct stats_job_volume *v)
{
    double eta = (double)(j->eta_read + j->eta_write);
    double eta_mon = (double)(j->eta_mon_read + j->eta_mon_write);
    struct {
        const char *name;
        double value;
    } table[] = {
        {"t_j", j->t_j},
        {"t_um", j->t_um},
        {"t_urw", j->t_urw},
        {"t_s", j->t_s},
        {"t_s_span", j->t_s_span},
        {"t_s_slowest", j->t_s_slowest},
        {"t", j->t},
        {"t_fr", j->t_fr >= 0 ? j->t_fr : (double)NAN},
        {"t_fw", j->t_fw >= 0 ? j->t_fw : (double)NAN},
        {"eta_read", (double)j->eta_read},
        {"eta_write", (double)j->eta_write},
        {"eta_mon_read", (double)j->eta_mon_read},
        {"eta_mon_write", (double)j->eta_mon_write},
        {"tau", eta > 0 ? j->t / (eta / 1073741824.0) : (double)NAN},
        {"psi_read", v->psi_read},
        {"psi_write", v->psi_write},
        {"psi_o_read", v->psi_o_read},
        {"psi_o_write", v->psi_o_write},
        {"nu_read", v->psi_read - (double)j->eta_mon_read},
        {"nu_write", v->psi_write - (double)j->eta_mon_write},
        {"m", (double)v->m},
        {"t_d", v->t_d},
        {"psi_d_read", v->psi_d_read},
        {"psi_d_write", v->psi_d_write},
        {"psi_do_read", v->psi_do_read},
        {"psi_do_write", v->psi_do_write},
        {"nu_d_read", v->psi_d_read - (double)j->eta_mon_read},
        {"nu_d_write", v->psi_d_write - (double)j->eta_mon_write},
        {"b_d",
         v->s_d > 0 ? (v->psi_d_read + v->psi_d_write - eta_mon) / v->s_d : (double)NAN},
        {"m_i", (double)v->m_i},
        {"t_i", v->t_i},
        {"psi_i_read", v->psi_i_read},
        {"psi_i_write", v->psi_i_write},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name) == 0)
            return table[i].value;
    }
    return NAN;
}

static enum stats_exclusion family_excl(enum family f, const struct stats_job_volume *v)
{
    switch (f) {
    case FAM_LOG: return EXCL_NONE;
    case FAM_PSI: return v->psi_excl;
    case FAM_D: return v->d_excl;
    case FAM_I: return v->i_excl;
    }
    return EXCL_NONE;
}

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

static enum status build_series(const struct db_streams *st, double delta_s, unsigned k,
                                struct stats_series **out, struct error *err)
{
    struct stats_stream *streams = calloc(st->n > 0 ? st->n : 1, sizeof *streams);
    struct stats_series *base = NULL;
    enum status rc;

    *out = NULL;
    if (streams == NULL)
        return error_set(err, STATUS_NOMEM, "streams");
    for (size_t i = 0; i < st->n; i++) {
        const struct db_stream *s = &st->streams[i];
        streams[i] = (struct stats_stream){.server = st->server_of[i],
                                           .end_s = s->end_s,
                                           .r = s->r,
                                           .w = s->w,
                                           .ro = s->ro,
                                           .wo = s->wo,
                                           .n = s->n,
                                           .delta_s = s->interval_s};
    }
    rc = stats_series_build(streams, st->n, st->n_servers, delta_s, &base, err);
    free(streams);
    if (rc != STATUS_OK || k == 1) {
        *out = base;
        return rc;
    }
    rc = stats_series_coarsen(base, k, 0, out, err);
    stats_series_free(base);
    return rc;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void set_coef(json_t *o, json_t *reasons, const char *name,
                     const struct stats_coef *c)
{
    if (c->reason == REASON_NOT_COMPUTED)
        return;
    if (c->reason == REASON_NONE && isfinite(c->value)) {
        json_object_set_new(o, name, json_real(c->value));
        return;
    }
    json_object_set_new(o, name, json_null());
    json_object_set_new(reasons, name, json_string(stats_reason_name(c->reason)));
}

struct pair_data {
    double *x, *y;
    size_t d;
    size_t excluded[EXCL_COUNT];
};

/* Fills x/y over the jobs of a group, counting exclusions. */
static enum status collect_pairs(const struct db_jobs *jobs,
                                 const struct stats_series *series,
                                 const struct metric_def *my, const struct metric_def *mx,
                                 bool log_space, struct pair_data *p, struct error *err)
{
    size_t max_w = 0;
    struct stats_window *win = NULL;
    size_t *scratch = NULL;
    enum status rc = STATUS_OK;

    for (size_t i = 0; i < jobs->n; i++) {
        if (jobs->jobs[i].n_windows > max_w)
            max_w = jobs->jobs[i].n_windows;
    }
    win = calloc(max_w + 1, sizeof *win);
    scratch = calloc(2 * max_w + 2, sizeof *scratch);
    p->x = calloc(jobs->n + 1, sizeof *p->x);
    p->y = calloc(jobs->n + 1, sizeof *p->y);
    if (win == NULL || scratch == NULL || p->x == NULL || p->y == NULL) {
        rc = error_set(err, STATUS_NOMEM, "association inputs");
        goto out;
    }
    for (size_t i = 0; i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        struct stats_job_volume v;
        for (size_t w = 0; w < j->n_windows; w++) {
            win[w] = (struct stats_window){.start_s = j->windows[w].start_s,
                                           .end_s = j->windows[w].end_s,
                                           .monitored = j->windows[w].monitored};
        }
        struct stats_job sj = {.start_s = j->start_s,
                               .end_s = j->end_s,
                               .windows = win,
                               .n_windows = j->n_windows};
        struct error job_err = {0};
        rc = stats_job_volume(series, &sj, scratch, &v, &job_err);
        if (rc == STATUS_INVALID) {
            /* A reversed or non-finite window is a fact about this log, not a reason to
             * stop the whole group. */
            log_debug("job %s: %s", j->job_key, job_err.msg);
            p->excluded[EXCL_NONFINITE]++;
            rc = STATUS_OK;
            continue;
        }
        if (rc != STATUS_OK) {
            *err = job_err;
            goto out;
        }
        enum stats_exclusion e = family_excl(my->fam, &v);
        if (e == EXCL_NONE)
            e = family_excl(mx->fam, &v);
        double yv = metric_value(my->name, j, &v);
        double xv = metric_value(mx->name, j, &v);
        if (e == EXCL_NONE && !(j->t_j > 0))
            e = EXCL_NO_IO; /* METHOD.md §2: T_J = 0 is excluded from time analyses */
        if (e == EXCL_NONE && (!isfinite(yv) || !isfinite(xv)))
            e = EXCL_NONFINITE;
        if (e == EXCL_NONE && log_space && (yv <= 0 || xv <= 0))
            e = EXCL_NONPOSITIVE_IN_LOG_SPACE;
        if (e != EXCL_NONE) {
            p->excluded[e]++;
            continue;
        }
        p->x[p->d] = xv;
        p->y[p->d] = yv;
        p->d++;
    }
out:
    free(win);
    free(scratch);
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

static enum status invalid_param(struct error *err, const char *param, const char *what,
                                 const char *value)
{
    enum status rc = error_set(err, STATUS_INVALID, "%s '%s'", what, value);
    if (err != NULL)
        snprintf(err->file, sizeof err->file, "%s", param);
    return rc;
}

/* What every analysis of one granularity and scope needs: the series on its grid. */
struct analysis_ctx {
    struct db_streams *streams;
    struct stats_series *series;
    double base_delta_s; /* Δ */
    unsigned k;          /* granularity = k·Δ */
    const char *scope;   /* "all" or "fs:NAME" */
};

static void ctx_clear(struct analysis_ctx *c)
{
    stats_series_free(c->series);
    db_streams_free(c->streams);
    memset(c, 0, sizeof *c);
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
    } else if (strncmp(scope, "fs:", 3) == 0 && scope[3] != '\0') {
        fs = scope + 3;
    } else {
        return invalid_param(err, "scope", "use all or fs:NAME; unsupported scope",
                             scope);
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
        snprintf(err->file, sizeof err->file, "granularity");
        ctx_clear(c);
        return rc;
    }
    rc = build_series(c->streams, c->base_delta_s, c->k, &c->series, err);
    if (rc != STATUS_OK)
        ctx_clear(c);
    return rc;
}

enum status analysis_association(struct db *db, const struct app_config *cfg,
                                 const char *group_id, const char *y, const char *x,
                                 double granularity_s, const char *scope, json_t **out,
                                 struct error *err)
{
    const struct metric_def *my = metric_find(y), *mx = metric_find(x);
    struct db_group group;
    struct db_jobs *jobs = NULL;
    struct analysis_ctx ctx;
    struct stats_ws *ws = NULL;
    struct pair_data p;
    struct stats_assoc a;
    enum status rc;

    *out = NULL;
    memset(&p, 0, sizeof p);
    memset(&ctx, 0, sizeof ctx);
    if (my == NULL)
        return invalid_param(err, "y", "unknown metric", y);
    if (mx == NULL)
        return invalid_param(err, "x", "unknown metric", x);
    rc = db_group_get(db, group_id, &group, err);
    if (rc != STATUS_OK)
        return rc;
    rc = ctx_prepare(db, cfg, granularity_s, scope, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_jobs_of_group(db, group_id, &jobs, err);
    if (rc != STATUS_OK)
        goto out;
    rc = collect_pairs(jobs, ctx.series, my, mx, false, &p, err);
    if (rc != STATUS_OK)
        goto out;
    ws = stats_ws_new(p.d > 0 ? p.d : 1);
    if (ws == NULL) {
        rc = error_set(err, STATUS_NOMEM, "stats workspace");
        goto out;
    }
    struct stats_assoc_opts opts = {stats_methods_available(), cfg->d_min, cfg->seed,
                                    true};
    rc = stats_assoc_compute(p.x, p.y, p.d, &opts, ws, &a, err);
    if (rc != STATUS_OK)
        goto out;
    json_t *o = json_object();
    json_object_set_new(o, "group", json_string(group.id));
    json_object_set_new(o, "y", json_string(y));
    json_object_set_new(o, "x", json_string(x));
    json_object_set_new(o, "granularity_s", json_real(ctx.base_delta_s * ctx.k));
    json_object_set_new(o, "base_granularity_s", json_real(ctx.base_delta_s));
    json_object_set_new(o, "scope", json_string(ctx.scope));
    json_object_set_new(o, "excluded", excluded_json(&p));
    assoc_fill_json(o, p.x, p.y, &a);
    json_object_set_new(o, "sample_offset_s", num_or_null(cfg->sample_offset_s));
    /* Darshan's whole-second start: every absolute time may be up to 1 s early. */
    json_object_set_new(o, "time_error_s", json_real(1.0));
    *out = o;
out:
    free(p.x);
    free(p.y);
    stats_ws_free(ws);
    db_jobs_free(jobs);
    ctx_clear(&ctx);
    return rc;
}

void assoc_fill_json(json_t *o, const double *x, const double *y,
                     const struct stats_assoc *a)
{
    json_t *reasons = json_object();
    bool all_positive = a->d > 0;

    for (size_t i = 0; i < a->d; i++) {
        if (!(x[i] > 0 && y[i] > 0))
            all_positive = false;
    }
    /* The KDE's fitting space (METHOD.md §5): log when every value is positive. */
    json_object_set_new(o, "space", json_string(all_positive ? "log" : "linear"));
    json_object_set_new(o, "d", json_integer((json_int_t)a->d));
    set_coef(o, reasons, "pearson", &a->pearson);
    set_coef(o, reasons, "spearman", &a->spearman);
    set_coef(o, reasons, "dcor_v", &a->dcor_v);
    set_coef(o, reasons, "dcor2_u", &a->dcor2_u);
    set_coef(o, reasons, "mi_ksg_nats", &a->mi_ksg_nats);
    set_coef(o, reasons, "mi_linfoot", &a->mi_linfoot);
    if (json_object_size(reasons) > 0) {
        /* One reason for the whole object (INTERFACES.md), and each coefficient's. */
        json_object_set(o, "reason", json_object_iter_value(json_object_iter(reasons)));
        json_object_set_new(o, "reasons", reasons);
    } else {
        json_decref(reasons);
    }
}

/* ---- export jobs --------------------------------------------------------------- */

static const char *const family_names[] = {"log", "psi", "d", "i"};

static void put_csv_value(FILE *fp, double v)
{
    if (isfinite(v)) {
        fprintf(fp, ",%.17g", v);
    } else {
        fputs(",", fp);
    }
}

enum status analysis_export_jobs(struct db *db, const struct app_config *cfg,
                                 const char *group_id, double granularity_s,
                                 const char *scope, bool json, FILE *fp,
                                 struct error *err)
{
    struct analysis_ctx ctx;
    struct db_jobs *jobs = NULL;
    struct stats_window *win = NULL;
    size_t *scratch = NULL;
    json_t *rows = NULL;
    enum status rc;
    size_t n_metrics = sizeof metrics / sizeof metrics[0];

    rc = ctx_prepare(db, cfg, granularity_s, scope, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_jobs_of_group(db, group_id, &jobs, err);
    if (rc != STATUS_OK)
        goto out;
    size_t max_w = 0;
    for (size_t i = 0; i < jobs->n; i++) {
        if (jobs->jobs[i].n_windows > max_w)
            max_w = jobs->jobs[i].n_windows;
    }
    win = calloc(max_w + 1, sizeof *win);
    scratch = calloc(2 * max_w + 2, sizeof *scratch);
    if (win == NULL || scratch == NULL) {
        rc = error_set(err, STATUS_NOMEM, "export");
        goto out;
    }
    if (json) {
        rows = json_array();
    } else {
        fputs("id,jobid,group,start_time,granularity_s", fp);
        for (size_t m = 0; m < n_metrics; m++)
            fprintf(fp, ",%s", metrics[m].name);
        fputs(",excluded_psi,excluded_d,excluded_i\n", fp);
    }
    for (size_t i = 0; i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        struct stats_job_volume v;
        struct error job_err = {0};
        for (size_t w = 0; w < j->n_windows; w++) {
            win[w] = (struct stats_window){.start_s = j->windows[w].start_s,
                                           .end_s = j->windows[w].end_s,
                                           .monitored = j->windows[w].monitored};
        }
        struct stats_job sj = {.start_s = j->start_s,
                               .end_s = j->end_s,
                               .windows = win,
                               .n_windows = j->n_windows};
        enum status jrc = stats_job_volume(ctx.series, &sj, scratch, &v, &job_err);
        if (jrc != STATUS_OK && jrc != STATUS_INVALID) {
            rc = error_set(err, jrc, "%s", job_err.msg);
            goto out;
        }
        if (jrc == STATUS_INVALID) {
            memset(&v, 0, sizeof v);
            v.psi_excl = v.d_excl = v.i_excl = EXCL_NONFINITE;
        }
        enum stats_exclusion fam_excl[4] = {EXCL_NONE, v.psi_excl, v.d_excl, v.i_excl};
        if (json) {
            json_t *o = json_object();
            json_object_set_new(o, "id", json_string(j->job_key));
            json_object_set_new(o, "jobid", json_string(j->jobid));
            json_object_set_new(o, "group", json_string(j->group_id));
            json_object_set_new(o, "start_time", json_integer((json_int_t)j->start_s));
            json_object_set_new(o, "granularity_s", json_real(ctx.base_delta_s * ctx.k));
            for (size_t m = 0; m < n_metrics; m++) {
                double val = fam_excl[metrics[m].fam] == EXCL_NONE
                                 ? metric_value(metrics[m].name, j, &v)
                                 : (double)NAN;
                json_object_set_new(o, metrics[m].name, num_or_null(val));
            }
            json_t *ex = json_object();
            for (int f = 1; f < 4; f++) {
                if (fam_excl[f] != EXCL_NONE) {
                    json_object_set_new(ex, family_names[f],
                                        json_string(stats_exclusion_name(fam_excl[f])));
                }
            }
            json_object_set_new(o, "excluded", ex);
            json_array_append_new(rows, o);
        } else {
            fprintf(fp, "%s,%s,%s,%.0f", j->job_key, j->jobid, j->group_id, j->start_s);
            put_csv_value(fp, ctx.base_delta_s * ctx.k);
            for (size_t m = 0; m < n_metrics; m++) {
                put_csv_value(fp, fam_excl[metrics[m].fam] == EXCL_NONE
                                      ? metric_value(metrics[m].name, j, &v)
                                      : (double)NAN);
            }
            for (int f = 1; f < 4; f++)
                fprintf(fp, ",%s", stats_exclusion_name(fam_excl[f]));
            fputc('\n', fp);
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
    free(win);
    free(scratch);
    db_jobs_free(jobs);
    ctx_clear(&ctx);
    return rc;
}
