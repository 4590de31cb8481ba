/* association.c: the association of two series (docs/method.md §5: the coefficients, the
 * KDE credible bands, their significance, the random forest) into a struct
 * assoc_result; that of a group from the jobs and samples in the database, and the
 * one analyze stored. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair_data {
    double *x, *y;
    size_t d;
    size_t excluded[EXCL_COUNT];
    size_t negative_y, negative_x; /* of the d pairs, values below zero (ν, B^D) */
};

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

struct assoc_opts assoc_opts_default(const struct analysis_settings *settings)
{
    struct stats_signif_opts s = stats_signif_opts_default();

    return (struct assoc_opts){.methods = stats_methods_available(),
                               .d_min = settings->d_min,
                               .seed = settings->seed,
                               .mi_jitter = true,
                               .space = "auto",
                               .kde = true,
                               .n_perm = s.n_perm,
                               .n_boot = s.n_boot,
                               .rf_trees = STATS_RF_TREES};
}

/* The fitting space asked (NULL: auto); auto is resolved by stats_kde_compute. */
enum status analysis_space_parse(const char *name, enum stats_kde_space *out,
                                 struct error *err)
{
    if (name == NULL || strcmp(name, "auto") == 0) {
        *out = KDE_SPACE_AUTO;
    } else if (strcmp(name, "log") == 0) {
        *out = KDE_SPACE_LOG;
    } else if (strcmp(name, "linear") == 0) {
        *out = KDE_SPACE_LINEAR;
    } else {
        return error_param(err, STATUS_INVALID, "space",
                           "space must be auto, log or linear");
    }
    return STATUS_OK;
}

/* docs/method.md §5: log when every value is positive (auto), else as asked. */
static enum stats_kde_space space_resolved(enum stats_kde_space s, const double *x,
                                           const double *y, size_t d)
{
    if (s != KDE_SPACE_AUTO)
        return s;
    for (size_t i = 0; i < d; i++) {
        if (!(x[i] > 0 && y[i] > 0))
            return KDE_SPACE_LINEAR;
    }
    return d > 0 ? KDE_SPACE_LOG : KDE_SPACE_LINEAR;
}

/* The workspaces of one computation, freed together; the results go to the
 * assoc_result. */
struct assoc_work {
    struct stats_ws *ws;
    struct stats_kde_ws *kde_ws;
    struct stats_kde *kde_perm; /* the permutation test's scratch */
    struct stats_rf_ws *rf_ws;
};

static void work_clear(struct assoc_work *w)
{
    stats_ws_free(w->ws);
    stats_kde_ws_free(w->kde_ws);
    free(w->kde_perm);
    stats_rf_ws_free(w->rf_ws);
}

static struct stats_kde_opts kde_opts_of(const struct assoc_opts *opts,
                                         enum stats_kde_space space)
{
    return (struct stats_kde_opts){
        .space = space,
        .kernel = opts->kernel_full ? KDE_KERNEL_FULL : KDE_KERNEL_PRODUCT,
        .d_min = opts->d_min,
        .no_density = !opts->density,
        .bandwidth = opts->bw_plugin ? KDE_BW_PLUGIN : KDE_BW_NORMAL};
}

static enum status fit_kde(const double *x, const double *y, size_t d,
                           const struct assoc_opts *opts, enum stats_kde_space space,
                           struct assoc_work *w, struct assoc_result *r,
                           struct error *err)
{
    w->kde_ws = stats_kde_ws_new(d > 0 ? d : 1);
    r->kde = calloc(1, sizeof *r->kde);
    if (w->kde_ws == NULL || r->kde == NULL)
        return error_set(err, STATUS_NOMEM, "KDE workspace for d = %zu", d);
    r->density = opts->density;
    const struct stats_kde_opts ko = kde_opts_of(opts, space);
    enum status rc = stats_kde_compute(x, y, d, &ko, w->kde_ws, r->kde, err);
    if (rc == STATUS_INVALID && space == KDE_SPACE_LOG && err != NULL &&
        err->parameter[0] == '\0')
        snprintf(err->parameter, sizeof err->parameter, "space");
    return rc;
}

static enum status test_significance(const double *x, const double *y, size_t d,
                                     const struct assoc_opts *opts, struct assoc_work *w,
                                     struct assoc_result *r, struct error *err)
{
    struct stats_signif_opts so = stats_signif_opts_default();
    struct stats_kde_stat_ctx ctx;
    struct stats_signif_stat width_ratio;

    so.assoc = (struct stats_assoc_opts){opts->methods, opts->d_min, opts->seed,
                                         opts->mi_jitter};
    so.n_perm = opts->n_perm;
    so.n_boot = opts->n_boot;
    so.seed = opts->seed;
    so.cancel = opts->cancel;
    r->n_perm = opts->n_perm;
    r->n_boot = opts->n_boot;
    r->signif = malloc(sizeof *r->signif);
    if (r->signif == NULL)
        return error_set(err, STATUS_NOMEM, "significance");
    if (r->kde != NULL) {
        w->kde_perm = calloc(1, sizeof *w->kde_perm);
        if (w->kde_perm == NULL)
            return error_set(err, STATUS_NOMEM, "KDE scratch");
        /* The space the data were fitted in: permuting y keeps every value's sign. */
        ctx = (struct stats_kde_stat_ctx){kde_opts_of(opts, r->kde->space), w->kde_ws,
                                          w->kde_perm};
        width_ratio = (struct stats_signif_stat){"width_ratio",
                                                 stats_kde_width_ratio_stat, &ctx, 1.0};
        so.extra = &width_ratio;
        so.n_extra = 1;
    }
    enum status rc = stats_signif_compute(x, y, d, &so, w->ws, r->signif, err);
    if (r->kde == NULL) /* no KDE, no test of its width_ratio */
        r->signif->extra[0].reason = REASON_NOT_COMPUTED;
    return rc;
}

/* The forest on raw x and y (docs/method.md §5 rf), also at the KDE's x points. */
static enum status fit_rf(const double *x, const double *y, size_t d,
                          const struct assoc_opts *opts, struct assoc_work *w,
                          struct assoc_result *r, struct error *err)
{
    struct stats_rf_opts ro = stats_rf_opts_default();
    double at[STATS_KDE_POINTS];

    ro.n_trees = opts->rf_trees;
    ro.d_min = opts->d_min;
    ro.seed = opts->seed;
    ro.cancel = opts->cancel;
    w->rf_ws = stats_rf_ws_new(d > 0 ? d : 1);
    r->rf = calloc(1, sizeof *r->rf);
    if (w->rf_ws == NULL || r->rf == NULL)
        return error_set(err, STATUS_NOMEM, "forest workspace for d = %zu", d);
    r->rf_n_kde = 0;
    if (r->kde != NULL && r->kde->reason == REASON_NONE) {
        memcpy(at, r->kde->x_grid, sizeof at);
        r->rf_n_kde = STATS_KDE_POINTS;
    }
    return stats_rf_compute(x, y, d, r->rf_n_kde > 0 ? at : NULL, r->rf_n_kde, &ro,
                            w->rf_ws, r->rf, r->rf_n_kde > 0 ? r->rf_at_kde : NULL, err);
}

enum status analysis_assoc_compute(const double *x, const double *y, size_t d,
                                   const struct assoc_opts *opts, struct assoc_result *r,
                                   struct error *err)
{
    struct assoc_work w = {0};
    enum stats_kde_space space = KDE_SPACE_AUTO;
    enum status rc = analysis_space_parse(opts->space, &space, err);

    if (rc != STATUS_OK)
        return rc;
    w.ws = stats_ws_new(d > 0 ? d : 1);
    if (w.ws == NULL) {
        rc = error_set(err, STATUS_NOMEM, "stats workspace");
        goto out;
    }
    const struct stats_assoc_opts ao = {opts->methods, opts->d_min, opts->seed,
                                        opts->mi_jitter};
    rc = stats_assoc_compute(x, y, d, &ao, w.ws, &r->coefs, err);
    r->coefs.d = d;
    if (rc == STATUS_OK && opts->kde)
        rc = fit_kde(x, y, d, opts, space, &w, r, err);
    if (rc == STATUS_OK && opts->significance)
        rc = test_significance(x, y, d, opts, &w, r, err);
    if (rc == STATUS_OK && opts->rf)
        rc = fit_rf(x, y, d, opts, &w, r, err);
    /* The object's space is the KDE's fitting space (docs/method.md §5). */
    r->space = r->kde != NULL ? r->kde->space : space_resolved(space, x, y, d);
out:
    work_clear(&w);
    return rc;
}

/* true when the stored result p describes is of the group's inputs now (its jobs and
 * the samples near them: their fingerprints). */
static bool provenance_current(struct db *db, const char *group_id,
                               const struct assoc_result *stored)
{
    struct db_group_inputs now;
    struct error err = {0};

    if (!stored->has_provenance)
        return false; /* stored before results carried one: nothing says so */
    if (db_group_inputs_read(db, group_id, "association", "", &now, &err) != STATUS_OK) {
        log_warn("inputs of group %s: %s", group_id, err.msg);
        return false;
    }
    const struct assoc_provenance *p = &stored->provenance;
    return strcmp(p->jobs_md5, now.jobs_md5) == 0 &&
           strcmp(p->samples_md5, now.samples_md5) == 0 && p->samples == now.samples;
}

/* true when stored, of the group's inputs now, is of the options that shaped fresh
 * too: the key (granularity, space, scope) and what of the KDE the key does not say
 * (kernel, bandwidth), and θ. */
static bool same_options(const struct assoc_result *stored,
                         const struct assoc_result *fresh)
{
    const bool same_theta =
        stored->sample_offset_s == fresh->sample_offset_s ||
        (isnan(stored->sample_offset_s) && isnan(fresh->sample_offset_s));

    if (stored->granularity_s != fresh->granularity_s || stored->space != fresh->space ||
        !same_theta || stored->scope == NULL || fresh->scope == NULL ||
        strcmp(stored->scope, fresh->scope) != 0)
        return false;
    return stored->kde == NULL || fresh->kde == NULL ||
           (stored->kde->kernel == fresh->kde->kernel &&
            stored->kde->bandwidth == fresh->kde->bandwidth);
}

/* What analyze stored under the same key, beside the result computed now: "stored"
 * says when it was computed, from what (its provenance) and whether it is of the
 * same data ("current"). Its significance (analyze computes it at the base
 * granularity: docs/method.md §5) is taken when with_significance and current, and so is
 * its forest when with_rf. A result that cannot be read is skipped, logged. */
static void attach_stored(struct db *db, const char *group_id, const char *space,
                          bool with_significance, bool with_rf, struct assoc_result *r)
{
    struct error err = {0};
    char *text = NULL, computed_at[40];
    struct assoc_result *st = NULL;
    enum status rc = db_result_get(db, group_id, r->y, r->x, r->granularity_s, space,
                                   r->scope, &text, computed_at, &err);

    if (rc == STATUS_OK)
        rc = analysis_assoc_parse(text, &st, &err);
    free(text);
    if (rc != STATUS_OK) {
        if (rc != STATUS_NOT_FOUND)
            log_warn("stored result of %s %s~%s: %s", group_id, r->y, r->x, err.msg);
        return;
    }
    const bool current = provenance_current(db, group_id, st) && same_options(st, r);
    if (with_significance && st->signif != NULL && current) {
        free(r->signif);
        r->signif = st->signif;
        st->signif = NULL;
        r->n_perm = st->n_perm;
        r->n_boot = st->n_boot;
    }
    if (with_rf && st->rf != NULL && current) {
        free(r->rf);
        r->rf = st->rf;
        st->rf = NULL;
        memcpy(r->rf_at_kde, st->rf_at_kde, sizeof r->rf_at_kde);
        r->rf_n_kde = st->rf_n_kde;
    }
    r->stored = (struct assoc_stored){.present = true,
                                      .current = current,
                                      .has_provenance = st->has_provenance,
                                      .provenance = st->provenance};
    snprintf(r->stored.computed_at, sizeof r->stored.computed_at, "%s", computed_at);
    assoc_result_free(st);
}

enum status analysis_association_stored(struct db *db, const char *group_id,
                                        const char *y, const char *x,
                                        struct assoc_result **out,
                                        enum stored_state *state, struct error *err)
{
    char computed_at[40];
    char *text = NULL;
    struct assoc_result *r = NULL;
    struct error own = {0};

    /* Served whatever settings analyze ran with: they are in "stored". */
    *out = NULL;
    *state = STORED_NONE;
    enum status rc = db_result_find(db, group_id, y, x, "auto", "all",
                                    "%;granularity=0;%", &text, computed_at, err);
    if (rc == STATUS_NOT_FOUND) {
        error_clear(err);
        return STATUS_OK;
    }
    if (rc != STATUS_OK)
        return rc;
    rc = analysis_assoc_parse(text, &r, &own);
    free(text);
    if (rc != STATUS_OK) {
        /* A damaged row or a shape this version cannot read: computed instead. */
        log_warn("stored result of %s %s~%s: %s", group_id, y, x, own.msg);
        *state = STORED_STALE;
        return rc == STATUS_NOMEM ? error_set(err, rc, "%s", own.msg) : STATUS_OK;
    }
    /* Served only while the group's jobs and samples are those it came from. */
    if (!provenance_current(db, group_id, r)) {
        assoc_result_free(r);
        *state = STORED_STALE;
        return STATUS_OK;
    }
    r->stored = (struct assoc_stored){.present = true,
                                      .current = true,
                                      .has_provenance = true,
                                      .provenance = r->provenance};
    snprintf(r->stored.computed_at, sizeof r->stored.computed_at, "%s", computed_at);
    r->has_provenance = false;
    *out = r;
    *state = STORED_CURRENT;
    return STATUS_OK;
}

enum status assoc_inputs_load(struct db *db, const struct analysis_settings *s,
                              const char *group_id, double granularity_s,
                              const char *scope, struct assoc_inputs *in,
                              struct error *err)
{
    memset(in, 0, sizeof *in);
    enum status rc = db_group_get(db, group_id, &in->group, err);
    if (rc != STATUS_OK)
        return rc;
    rc =
        ctx_prepare(db, s, granularity_s, scope, REACH_JOBS, in->group.id, &in->ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_jobs_of_group(db, group_id, &in->jobs, err);
    if (rc != STATUS_OK)
        assoc_inputs_clear(in);
    return rc;
}

void assoc_inputs_clear(struct assoc_inputs *in)
{
    db_jobs_free(in->jobs);
    ctx_clear(&in->ctx);
    memset(in, 0, sizeof *in);
}

enum status analysis_association(struct db *db, const struct analysis_settings *s,
                                 const char *group_id, const char *y, const char *x,
                                 double granularity_s, const char *scope,
                                 const struct assoc_opts *opts, struct assoc_result **out,
                                 struct error *err)
{
    struct assoc_inputs in;
    enum status rc;

    *out = NULL;
    /* The pair and the space are checked before anything is read. */
    rc = association_of(db, s, NULL, y, x, opts, out, err);
    if (rc != STATUS_OK)
        return rc;
    rc = assoc_inputs_load(db, s, group_id, granularity_s, scope, &in, err);
    if (rc != STATUS_OK)
        return rc;
    rc = association_of(db, s, &in, y, x, opts, out, err);
    assoc_inputs_clear(&in);
    return rc;
}

enum status association_of(struct db *db, const struct analysis_settings *s,
                           struct assoc_inputs *in, const char *y, const char *x,
                           const struct assoc_opts *opts, struct assoc_result **out,
                           struct error *err)
{
    const struct metric_def *my = metric_find(y), *mx = metric_find(x);
    const char *space = opts->space != NULL ? opts->space : "auto";
    struct pair_data p;
    enum stats_kde_space space_kind;
    struct assoc_result *r = NULL;
    enum status rc;

    *out = NULL;
    memset(&p, 0, sizeof p);
    if (my == NULL)
        return error_param(err, STATUS_INVALID, "y", "unknown metric '%s'", y);
    if (mx == NULL)
        return error_param(err, STATUS_INVALID, "x", "unknown metric '%s'", x);
    rc = analysis_space_parse(space, &space_kind, err);
    if (rc != STATUS_OK || in == NULL)
        return rc;
    struct analysis_ctx *c = &in->ctx;
    const char *group_id = in->group.id;
    /* An explicit log space excludes the jobs it cannot fit, counted (docs/method.md §3).
     */
    rc = collect_pairs(c, in->jobs, my, mx, strcmp(space, "log") == 0, &p, err);
    if (rc != STATUS_OK)
        goto out;
    struct assoc_opts ao = *opts;
    ao.space = space;
    ao.significance = opts->significance && (!opts->significance_base_only || c->k == 1);
    ao.rf = opts->rf && (!opts->significance_base_only || c->k == 1);
    r = assoc_result_new(ASSOC_GROUP);
    if (r == NULL) {
        rc = error_set(err, STATUS_NOMEM, "association result");
        goto out;
    }
    rc = assoc_result_name(r, group_id, y, x, c->scope, err);
    if (rc != STATUS_OK)
        goto out;
    r->granularity_s = c->base_delta_s * c->k;
    r->base_granularity_s = c->base_delta_s;
    memcpy(r->excluded, p.excluded, sizeof r->excluded);
    r->negative_y = my->negative != 0;
    r->negative_x = mx->negative != 0;
    r->n_negative_y = p.negative_y;
    r->n_negative_x = p.negative_x;
    r->sample_offset_s = s->theta_s;
    rc = analysis_assoc_compute(p.x, p.y, p.d, &ao, r, err);
    if (rc != STATUS_OK)
        goto out;
    if (opts->stored_significance)
        attach_stored(db, group_id, space, !ao.significance, !ao.rf, r);
    *out = r;
    r = NULL;
out:
    assoc_result_free(r);
    free(p.x);
    free(p.y);
    return rc;
}
