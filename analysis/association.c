/* association.c: the association object of a group (METHOD.md §5) from the jobs and
 * samples in the database, and the one analyze stored. */
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

enum status analysis_association_stored(struct db *db, const char *group_id,
                                        const char *y, const char *x, json_t **out,
                                        enum stored_state *state, struct error *err)
{
    char computed_at[40];
    char *text = NULL;
    struct db_group_inputs now;
    json_error_t jerr;

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
    json_t *o = json_loads(text, 0, &jerr);
    free(text);
    if (o == NULL) {
        return error_set(err, STATUS_INTERNAL, "stored result of %s %s~%s unreadable: %s",
                         group_id, y, x, jerr.text);
    }
    /* Served only while the group's jobs and samples are those it came from. */
    json_t *prov = json_object_get(o, "provenance"); /* borrowed */
    rc = db_group_inputs_read(db, group_id, "association", "", &now, err);
    const char *jobs_md5 = json_string_value(json_object_get(prov, "jobs_md5"));
    const char *samples_md5 = json_string_value(json_object_get(prov, "samples_md5"));
    json_t *samples = json_object_get(prov, "samples");
    if (rc != STATUS_OK ||
        (jobs_md5 == NULL || samples_md5 == NULL || !json_is_integer(samples) ||
         strcmp(jobs_md5, now.jobs_md5) != 0 ||
         strcmp(samples_md5, now.samples_md5) != 0 ||
         json_integer_value(samples) != (json_int_t)now.samples)) {
        json_decref(o);
        if (rc == STATUS_OK)
            *state = STORED_STALE;
        return rc;
    }
    json_t *meta = json_pack("{s:s, s:b, s:O}", "computed_at", computed_at, "current", 1,
                             "provenance", prov);
    json_object_del(o, "provenance");
    if (meta != NULL)
        json_object_set_new(o, "stored", meta);
    *out = o;
    *state = STORED_CURRENT;
    return STATUS_OK;
}

enum status analysis_association(struct db *db, const struct analysis_settings *s,
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
    enum stats_kde_space space_kind;
    json_t *o = NULL;
    enum status rc;

    *out = NULL;
    memset(&p, 0, sizeof p);
    memset(&ctx, 0, sizeof ctx);
    if (my == NULL)
        return error_param(err, STATUS_INVALID, "y", "unknown metric '%s'", y);
    if (mx == NULL)
        return error_param(err, STATUS_INVALID, "x", "unknown metric '%s'", x);
    rc = analysis_space_parse(space, &space_kind, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_group_get(db, group_id, &group, err);
    if (rc != STATUS_OK)
        return rc;
    rc = ctx_prepare(db, s, granularity_s, scope, &ctx, err);
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
    json_object_set_new(o, "excluded", json_excluded(p.excluded));
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
    json_object_set_new(o, "sample_offset_s", json_number_or_null(s->theta_s));
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
