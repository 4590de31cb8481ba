/* objects_sweep.c: the sweep object, its text and the sweep report. */
#include "objects.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the sweep object ------------------------------------------------------------ */

void sweep_result_clear(struct sweep_result *r)
{
    free(r->points);
    memset(r, 0, sizeof *r);
}

static bool method_computed(unsigned methods, size_t c)
{
    return (methods & analysis_coefs[c].method) != 0;
}

/* [lo, hi] */
static json_t *pair_of(struct jb *b, double lo, double hi)
{
    json_t *a = json_array();

    jb_append(b, a, json_real(lo));
    jb_append(b, a, json_real(hi));
    return a;
}

/* A step's "kde": the bands of docs/method.md §5 `kde` (b)–(d) in linear units, hx and hy
 * in the fitting space, as the association object's; width_ratio and
 * paper_width_ratio null with a reason when no phase was fitted. With every phase the
 * two ratios are the mean over the phases fitted, with their range, and the bands are
 * those of phase bands_phase. */
static void put_sweep_kde(struct jb *b, json_t *parent, const struct sweep_kde *k,
                          size_t phases, bool all_phases)
{
    json_t *o = jb_child(b, parent, "kde", json_object());

    if (k->defined == 0) {
        jb_set(b, o, "width_ratio", json_null());
        jb_set(b, o, "paper_width_ratio", json_null());
        jb_text(b, o, "reason", stats_reason_name(k->reason));
        return;
    }
    struct kde_bands bands = k->bands;
    bands.width_ratio = k->wr;
    bands.paper_width_ratio = k->pwr;
    put_kde_bands(b, o, &bands, true);
    if (all_phases) {
        jb_int(b, o, "bands_phase", k->bands_phase);
        json_t *range = jb_child(b, o, "range", json_object());
        jb_set(b, range, "width_ratio", pair_of(b, k->wr_lo, k->wr_hi));
        jb_set(b, range, "paper_width_ratio", pair_of(b, k->pwr_lo, k->pwr_hi));
        if (k->defined < phases)
            jb_int(b, o, "undefined_phases", (long long)(phases - k->defined));
    }
}

/* One step of the "steps" array: k, its granularity, d, the mean |A| and each
 * coefficient (null with a reason when undefined), with every phase their range; and
 * the KDE bands. */
static void put_step(struct jb *b, json_t *steps, const struct sweep_result *r,
                     const struct sweep_point *p)
{
    json_t *o = jb_item(b, steps, json_object());
    json_t *reasons = json_object(), *range = json_object(), *undefined = json_object();

    jb_int(b, o, "k", p->k);
    jb_set(b, o, "granularity_s", json_real(p->granularity_s));
    jb_int(b, o, "d", (long long)p->d);
    jb_real(b, o, "m_mean", p->m_mean);
    if (r->all_phases && p->m_phases > 0)
        jb_set(b, range, "m_mean", pair_of(b, p->m_lo, p->m_hi));
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const char *name = analysis_coefs[c].name;
        if (!method_computed(r->methods, c))
            continue;
        jb_real(b, o, name, p->c[c]);
        if (p->defined[c] == 0) {
            jb_text(b, reasons, name, stats_reason_name(p->reason[c]));
        } else if (r->all_phases) {
            jb_set(b, range, name, pair_of(b, p->lo[c], p->hi[c]));
        }
        if (p->defined[c] > 0 && p->defined[c] < p->phases)
            jb_int(b, undefined, name, (long long)(p->phases - p->defined[c]));
    }
    if (r->all_phases) {
        jb_int(b, o, "phases", (long long)p->phases);
        jb_set(b, o, "range", range);
    } else {
        json_decref(range);
    }
    if (json_object_size(reasons) > 0) {
        jb_set(b, o, "reasons", reasons);
    } else {
        json_decref(reasons);
    }
    if (json_object_size(undefined) > 0) {
        jb_set(b, o, "undefined_phases", undefined);
    } else {
        json_decref(undefined);
    }
    put_sweep_kde(b, o, &p->kde, p->phases, r->all_phases);
}

/* "at_base": d and the coefficients at k = 1 over every job valid there (the job set
 * of the association object), null with a reason when undefined. */
static void put_at_base(struct jb *b, json_t *parent, const struct sweep_result *r)
{
    json_t *o = jb_child(b, parent, "at_base", json_object());
    json_t *reasons = json_object();

    jb_int(b, o, "d", (long long)r->d_at_base);
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_coef *v = analysis_coef_of(&r->at_base, (enum coef_id)c);
        if (!method_computed(r->methods, c))
            continue;
        const bool defined = analysis_coef_defined(&r->at_base, (enum coef_id)c);
        jb_set(b, o, analysis_coefs[c].name, defined ? json_real(v->value) : json_null());
        if (!defined) {
            enum stats_reason why =
                v->reason != REASON_NONE ? v->reason : REASON_NOT_COMPUTED;
            jb_text(b, reasons, analysis_coefs[c].name, stats_reason_name(why));
        }
    }
    if (json_object_size(reasons) > 0) {
        jb_set(b, o, "reasons", reasons);
    } else {
        json_decref(reasons);
    }
}

static void put_verdicts(struct jb *b, json_t *parent, const struct sweep_result *r)
{
    const struct sweep_verdicts *v = &r->verdicts;
    json_t *o = jb_child(b, parent, "verdicts", json_object());

    jb_set(b, o, "drop", json_real(v->drop));
    jb_set(b, o, "rho_max", json_real(v->rho_max));
    jb_set(b, o, "tolerance", json_real(v->tolerance));
    json_t *falling = jb_child(b, o, "falling", json_object());
    json_t *over = jb_child(b, o, "recommended_over", json_array());
    for (size_t c = 0; c < COEF_COUNT; c++) {
        if (!method_computed(r->methods, c))
            continue;
        jb_set(b, falling, analysis_coefs[c].name,
               v->falling[c] < 0 ? json_null() : json_boolean(v->falling[c] > 0));
        if (analysis_coefs[c].watched)
            jb_append(b, over, json_string(analysis_coefs[c].name));
    }
    if (v->recommended_k > 0) {
        jb_int(b, o, "recommended_k", v->recommended_k);
        jb_set(b, o, "recommended_interval_s", json_real(v->recommended_interval_s));
    } else {
        jb_set(b, o, "recommended_k", json_null());
        jb_set(b, o, "recommended_interval_s", json_null());
    }
}

char *analysis_sweep_text(const struct sweep_result *r)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_text(&b, o, "kind", "sweep");
    jb_text(&b, o, "group", r->group);
    jb_text(&b, o, "y", r->y);
    jb_text(&b, o, "x", r->x);
    jb_text(&b, o, "scope", r->scope);
    jb_set(&b, o, "base_granularity_s", json_real(r->base_granularity_s));
    jb_int(&b, o, "k_max", r->k_max);
    jb_text(&b, o, "phases", r->all_phases ? "all" : "0");
    jb_int(&b, o, "d", (long long)r->d);
    json_t *jobs = jb_child(&b, o, "jobs", json_object());
    jb_int(&b, jobs, "in_group", (long long)r->in_group);
    jb_int(&b, jobs, "valid_at_base", (long long)r->valid_at_base);
    jb_int(&b, jobs, "dropped_not_valid_at_every_k", (long long)r->dropped);
    put_excluded(&b, jobs, "excluded_at_base", r->excluded_at_base, true);
    json_t *steps = jb_child(&b, o, "steps", json_array());
    for (size_t i = 0; i < r->k_max; i++)
        put_step(&b, steps, r, &r->points[i]);
    put_at_base(&b, o, r);
    put_verdicts(&b, o, r);
    jb_int(&b, o, "d_min", (long long)r->d_min);
    jb_int(&b, o, "seed", (long long)r->seed);
    return jb_dump(jb_finish(&b));
}

static void get_step(const json_t *o, struct sweep_point *p, unsigned *methods)
{
    p->k = (unsigned)obj_get_int(o, "k");
    p->granularity_s = obj_get_real(o, "granularity_s");
    p->d = (size_t)obj_get_int(o, "d");
    p->m_mean = obj_get_real(o, "m_mean");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        p->c[c] = obj_get_real(o, analysis_coefs[c].name);
        if (json_object_get(o, analysis_coefs[c].name) != NULL)
            *methods |= analysis_coefs[c].method;
    }
    const json_t *kde = json_object_get(o, "kde");
    p->kde.wr = obj_get_real(kde, "width_ratio");
    p->kde.pwr = obj_get_real(kde, "paper_width_ratio");
}

enum status analysis_sweep_parse(const char *text, struct sweep_result *out,
                                 struct error *err)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    const json_t *steps = json_object_get(o, "steps");
    const json_t *v = json_object_get(o, "verdicts");
    enum status rc = STATUS_OK;

    sweep_result_clear(out);
    if (!json_is_object(o) || !json_is_array(steps)) {
        rc = error_set(err, STATUS_PARSE, "not a sweep object: %s",
                       o == NULL ? jerr.text : "no steps");
        goto out;
    }
    obj_copy_text(out->group, sizeof out->group, obj_get_text(o, "group"));
    obj_copy_text(out->y, sizeof out->y, obj_get_text(o, "y"));
    obj_copy_text(out->x, sizeof out->x, obj_get_text(o, "x"));
    obj_copy_text(out->scope, sizeof out->scope, obj_get_text(o, "scope"));
    out->base_granularity_s = obj_get_real(o, "base_granularity_s");
    out->k_max = (unsigned)json_array_size(steps);
    out->all_phases = obj_get_text(o, "phases") != NULL &&
                      strcmp(obj_get_text(o, "phases"), "all") == 0;
    out->d = (size_t)obj_get_int(o, "d");
    out->d_min = (size_t)obj_get_int(o, "d_min");
    out->seed = (unsigned long)obj_get_int(o, "seed");
    out->points = calloc(out->k_max > 0 ? out->k_max : 1, sizeof *out->points);
    if (out->points == NULL) {
        rc = error_set(err, STATUS_NOMEM, "sweep of %u steps", out->k_max);
        goto out;
    }
    for (size_t i = 0; i < out->k_max; i++)
        get_step(json_array_get(steps, i), &out->points[i], &out->methods);
    out->verdicts.drop = obj_get_real(v, "drop");
    out->verdicts.rho_max = obj_get_real(v, "rho_max");
    out->verdicts.tolerance = obj_get_real(v, "tolerance");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const json_t *f =
            json_object_get(json_object_get(v, "falling"), analysis_coefs[c].name);
        out->verdicts.falling[c] = json_is_boolean(f) ? json_is_true(f) : -1;
    }
    out->verdicts.recommended_k = (unsigned)obj_get_int(v, "recommended_k");
    out->verdicts.recommended_interval_s = obj_get_real(v, "recommended_interval_s");
out:
    json_decref(o);
    return rc;
}

enum status analysis_sweep_report_json(FILE *fp, const struct db_group *g,
                                       char *const *texts, size_t n, struct error *err)
{
    struct jb b = jb_object();
    json_error_t jerr;

    jb_text(&b, b.root, "kind", "sweep_report");
    json_t *group = jb_child(&b, b.root, "group", json_object());
    jb_text(&b, group, "id", g->id);
    jb_text(&b, group, "name", g->name);
    jb_int(&b, group, "jobs", g->jobs);
    json_t *sweeps = jb_child(&b, b.root, "sweeps", json_array());
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_loads(texts[i], 0, &jerr);
        if (o == NULL) {
            json_decref(jb_finish(&b));
            return error_set(err, STATUS_INTERNAL, "stored sweep unreadable: %s",
                             jerr.text);
        }
        jb_append(&b, sweeps, o);
    }
    json_t *doc = jb_finish(&b);
    if (doc == NULL)
        return error_set(err, STATUS_NOMEM, "report JSON");
    int rc = json_dumpf(doc, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(doc);
    fputc('\n', fp);
    return rc == 0 ? STATUS_OK : error_set(err, STATUS_INTERNAL, "report JSON: write");
}
