/* objects_assoc.c: the association object: the table of coefficients, rendered from
 * struct assoc_result and read back from a stored text (older shapes included). */
#include "objects.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the coefficients ------------------------------------------------------------ */

#define COEF(id, coef_name, bit, member, signif, with_ci, is_watched)                    \
    [id] = {.name = (coef_name),                                                         \
            .at = offsetof(struct stats_assoc, member),                                  \
            .signif_at = (signif),                                                       \
            .method = (bit),                                                             \
            .ci = (with_ci),                                                             \
            .watched = (is_watched)}
#define SIGNIF(member) ((long)offsetof(struct stats_signif, member))

const struct coef_def analysis_coefs[COEF_COUNT] = {
    COEF(COEF_PEARSON, "pearson", METHOD_PEARSON, pearson, SIGNIF(pearson), true, true),
    COEF(COEF_SPEARMAN, "spearman", METHOD_SPEARMAN, spearman, SIGNIF(spearman), true,
         true),
    COEF(COEF_DCOR_V, "dcor_v", METHOD_DCOR, dcor_v, SIGNIF(dcor_v), false, true),
    COEF(COEF_DCOR2_U, "dcor2_u", METHOD_DCOR, dcor2_u, -1, false, false),
    COEF(COEF_MI_KSG_NATS, "mi_ksg_nats", METHOD_MI, mi_ksg_nats, -1, false, false),
    COEF(COEF_MI_LINFOOT, "mi_linfoot", METHOD_MI, mi_linfoot, SIGNIF(mi_linfoot), false,
         true),
};

const struct stats_coef *analysis_coef_of(const struct stats_assoc *a, enum coef_id c)
{
    return (const struct stats_coef *)((const char *)a + analysis_coefs[c].at);
}

static struct stats_coef *coef_at(struct stats_assoc *a, enum coef_id c)
{
    return (struct stats_coef *)((char *)a + analysis_coefs[c].at);
}

const struct stats_signif_coef *analysis_coef_signif(const struct stats_signif *s,
                                                     enum coef_id c)
{
    if (analysis_coefs[c].signif_at < 0)
        return NULL;
    return (const struct stats_signif_coef *)((const char *)s +
                                              analysis_coefs[c].signif_at);
}

static struct stats_signif_coef *signif_at(struct stats_signif *s, enum coef_id c)
{
    if (analysis_coefs[c].signif_at < 0)
        return NULL;
    return (struct stats_signif_coef *)((char *)s + analysis_coefs[c].signif_at);
}

bool analysis_coef_defined(const struct stats_assoc *a, enum coef_id c)
{
    const struct stats_coef *v = analysis_coef_of(a, c);

    return v->reason == REASON_NONE && isfinite(v->value);
}

/* ---- the association object ------------------------------------------------------ */

struct assoc_result *assoc_result_new(enum assoc_source source)
{
    struct assoc_result *r = calloc(1, sizeof *r);

    if (r == NULL)
        return NULL;
    r->source = source;
    r->granularity_s = r->base_granularity_s = r->sample_offset_s = NAN;
    r->space = KDE_SPACE_LINEAR;
    for (size_t c = 0; c < COEF_COUNT; c++)
        coef_at(&r->coefs, (enum coef_id)c)->reason = REASON_NOT_COMPUTED;
    return r;
}

void assoc_result_free(struct assoc_result *r)
{
    if (r == NULL)
        return;
    free(r->group);
    free(r->y);
    free(r->x);
    free(r->scope);
    free(r->kde);
    free(r->signif);
    free(r->rf);
    free(r);
}

static char *dup_or_null(const char *s, bool *failed)
{
    char *d = s != NULL ? strdup(s) : NULL;

    if (s != NULL && d == NULL)
        *failed = true;
    return d;
}

enum status assoc_result_name(struct assoc_result *r, const char *group, const char *y,
                              const char *x, const char *scope, struct error *err)
{
    bool failed = false;

    free(r->group);
    free(r->y);
    free(r->x);
    free(r->scope);
    r->group = dup_or_null(group, &failed);
    r->y = dup_or_null(y, &failed);
    r->x = dup_or_null(x, &failed);
    r->scope = dup_or_null(scope, &failed);
    return failed ? error_set(err, STATUS_NOMEM, "association names") : STATUS_OK;
}

void kde_bands_of(const struct stats_kde *k, struct kde_bands *out)
{
    *out = (struct kde_bands){.space = k->space,
                              .h_x = k->h_x,
                              .h_y = k->h_y,
                              .marg_q05 = k->marg_q05,
                              .marg_q95 = k->marg_q95,
                              .mean = k->mean,
                              .sd = k->sd,
                              .width_ratio = k->width_ratio,
                              .paper_width_ratio = k->paper_width_ratio};
    memcpy(out->x_grid, k->x_grid, sizeof out->x_grid);
    memcpy(out->q05, k->q05, sizeof out->q05);
    memcpy(out->q50, k->q50, sizeof out->q50);
    memcpy(out->q95, k->q95, sizeof out->q95);
}

/* An array of the STATS_KDE_POINTS values of v, or null. */
static json_t *kde_points(struct jb *b, const double *v, bool fitted)
{
    return fitted ? jb_numbers(b, v, STATS_KDE_POINTS) : json_null();
}

void put_kde_bands(struct jb *b, json_t *o, const struct kde_bands *k, bool fitted)
{
    jb_text(b, o, "space", stats_kde_space_name(k->space));
    jb_real(b, o, "hx", k->h_x);
    jb_real(b, o, "hy", k->h_y);
    jb_set(b, o, "x_grid", kde_points(b, k->x_grid, fitted));
    jb_set(b, o, "q05", kde_points(b, k->q05, fitted));
    jb_set(b, o, "q50", kde_points(b, k->q50, fitted));
    jb_set(b, o, "q95", kde_points(b, k->q95, fitted));
    jb_real(b, o, "marg_q05", k->marg_q05);
    jb_real(b, o, "marg_q95", k->marg_q95);
    jb_real(b, o, "mean", k->mean);
    jb_real(b, o, "sd", k->sd);
    jb_real(b, o, "width_ratio", k->width_ratio);
    jb_real(b, o, "paper_width_ratio", k->paper_width_ratio);
}

static enum stats_kde_space space_of(const char *name)
{
    return name != NULL && strcmp(name, "log") == 0 ? KDE_SPACE_LOG : KDE_SPACE_LINEAR;
}

void put_excluded(struct jb *b, json_t *parent, const char *key,
                  const size_t counts[EXCL_COUNT], bool every_reason)
{
    json_t *o = jb_child(b, parent, key, json_object());
    size_t total = 0;

    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++)
        total += counts[e];
    jb_int(b, o, "total", (long long)total);
    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++) {
        if (every_reason || e == EXCL_NONFINITE || e == EXCL_NONPOSITIVE_IN_LOG_SPACE) {
            jb_int(b, o, stats_exclusion_name((enum stats_exclusion)e),
                   (long long)counts[e]);
        }
    }
}

static void get_excluded(const json_t *o, size_t counts[EXCL_COUNT])
{
    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++)
        counts[e] = (size_t)obj_get_int(o, stats_exclusion_name((enum stats_exclusion)e));
}

/* Each coefficient computed: its value, or null with its reason in "reasons"; and
 * "reason", the first of them (docs/interfaces.md: one reason for the whole object). */
static void put_coefficients(struct jb *b, json_t *o, const struct stats_assoc *a)
{
    json_t *reasons = json_object();
    const char *first = NULL;

    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_coef *v = analysis_coef_of(a, (enum coef_id)c);
        const char *name = analysis_coefs[c].name;
        if (v->reason == REASON_NOT_COMPUTED)
            continue;
        if (analysis_coef_defined(a, (enum coef_id)c)) {
            jb_set(b, o, name, json_real(v->value));
            continue;
        }
        jb_set(b, o, name, json_null());
        jb_text(b, reasons, name, stats_reason_name(v->reason));
        first = first != NULL ? first : stats_reason_name(v->reason);
    }
    if (first != NULL) {
        jb_text(b, o, "reason", first);
        jb_set(b, o, "reasons", reasons);
    } else {
        json_decref(reasons);
    }
}

static void get_coefficients(const json_t *o, struct stats_assoc *a)
{
    const json_t *reasons = json_object_get(o, "reasons");

    a->d = (size_t)obj_get_int(o, "d");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const json_t *v = json_object_get(o, analysis_coefs[c].name);
        struct stats_coef *out = coef_at(a, (enum coef_id)c);
        if (v == NULL) {
            *out = (struct stats_coef){NAN, REASON_NOT_COMPUTED};
        } else if (json_is_number(v)) {
            *out = (struct stats_coef){json_number_value(v), REASON_NONE};
        } else {
            /* null without a reason it names: not a number we can serve. */
            enum stats_reason why =
                obj_reason_of(obj_get_text(reasons, analysis_coefs[c].name));
            *out =
                (struct stats_coef){NAN, why != REASON_NONE ? why : REASON_NOT_COMPUTED};
        }
    }
}

/* "density": the 128 x 128 grid (a) in fitting space; values[i][j] is the density at
 * (x0 + i·dx, y0 + j·dy). */
static json_t *density_json(struct jb *b, const struct stats_kde *k)
{
    json_t *o = json_object(), *rows = json_array();

    jb_real(b, o, "x0", k->grid_x0);
    jb_real(b, o, "dx", k->grid_dx);
    jb_real(b, o, "y0", k->grid_y0);
    jb_real(b, o, "dy", k->grid_dy);
    for (size_t i = 0; rows != NULL && i < STATS_KDE_GRID; i++)
        jb_append(b, rows, jb_numbers(b, k->density[i], STATS_KDE_GRID));
    jb_set(b, o, "values", rows);
    return o;
}

/* "kde" (docs/method.md §5 (a)–(d)): quantiles, bands and ratios in linear units, hx and
 * hy in fitting space; null with "reason" when nothing was fitted. */
static void put_kde(struct jb *b, json_t *parent, const struct stats_kde *k, bool density)
{
    json_t *o = jb_child(b, parent, "kde", json_object());
    const bool fitted = k->reason == REASON_NONE;
    struct kde_bands bands;

    kde_bands_of(k, &bands);
    put_kde_bands(b, o, &bands, fitted);
    jb_text(b, o, "kernel", k->kernel == KDE_KERNEL_FULL ? "full" : "product");
    jb_text(b, o, "bandwidth", stats_kde_bandwidth_name(k->bandwidth));
    jb_set(b, o, "binned", json_boolean(fitted && k->binned));
    jb_real(b, o, "band_low", k->band_low);
    jb_real(b, o, "band_high", k->band_high);
    if (density)
        jb_set(b, o, "density", fitted ? density_json(b, k) : json_null());
    if (!fitted)
        jb_text(b, o, "reason", stats_reason_name(k->reason));
}

/* A stored "kde" (never with its density grid: analyze does not store one). */
static bool get_kde(const json_t *o, struct stats_kde *k)
{
    const char *kernel = obj_get_text(o, "kernel"), *bw = obj_get_text(o, "bandwidth");

    k->reason = obj_reason_of(obj_get_text(o, "reason"));
    k->space = space_of(obj_get_text(o, "space"));
    /* stored before the full kernel and the plug-in existed: product, normal */
    k->kernel = kernel != NULL && strcmp(kernel, "full") == 0 ? KDE_KERNEL_FULL
                                                              : KDE_KERNEL_PRODUCT;
    k->bandwidth =
        bw != NULL && strcmp(bw, "plugin") == 0 ? KDE_BW_PLUGIN : KDE_BW_NORMAL;
    k->binned = json_is_true(json_object_get(o, "binned"));
    k->h_x = obj_get_real(o, "hx");
    k->h_y = obj_get_real(o, "hy");
    k->marg_q05 = obj_get_real(o, "marg_q05");
    k->marg_q95 = obj_get_real(o, "marg_q95");
    k->mean = obj_get_real(o, "mean");
    k->sd = obj_get_real(o, "sd");
    k->width_ratio = obj_get_real(o, "width_ratio");
    k->paper_width_ratio = obj_get_real(o, "paper_width_ratio");
    k->band_low = obj_get_real(o, "band_low");
    k->band_high = obj_get_real(o, "band_high");
    if (k->reason != REASON_NONE)
        return true;
    return obj_get_reals(o, "x_grid", k->x_grid, STATS_KDE_POINTS) &&
           obj_get_reals(o, "q05", k->q05, STATS_KDE_POINTS) &&
           obj_get_reals(o, "q50", k->q50, STATS_KDE_POINTS) &&
           obj_get_reals(o, "q95", k->q95, STATS_KDE_POINTS);
}

/* One coefficient's entry of "significance"; nothing when it was not asked. */
static void put_signif_coef(struct jb *b, json_t *parent, const char *name,
                            const struct stats_signif_coef *c, bool with_ci)
{
    if (c->reason == REASON_NOT_COMPUTED)
        return;
    json_t *o = jb_child(b, parent, name, json_object());
    jb_real(b, o, "p_value", c->p_value);
    jb_real(b, o, "noise_floor", c->noise_floor);
    jb_int(b, o, "n_perm", (long long)c->n_perm);
    if (with_ci) {
        jb_real(b, o, "ci_low", c->ci_low);
        jb_real(b, o, "ci_high", c->ci_high);
        jb_real(b, o, "level", c->level);
    }
    if (c->reason != REASON_NONE)
        jb_text(b, o, "reason", stats_reason_name(c->reason));
}

static void get_signif_coef(const json_t *parent, const char *name,
                            struct stats_signif_coef *c)
{
    const json_t *o = json_object_get(parent, name);

    *c = (struct stats_signif_coef){.value = NAN, .reason = REASON_NOT_COMPUTED};
    if (!json_is_object(o))
        return;
    c->reason = obj_reason_of(obj_get_text(o, "reason"));
    c->p_value = obj_get_real(o, "p_value");
    c->noise_floor = obj_get_real(o, "noise_floor");
    c->n_perm = (size_t)obj_get_int(o, "n_perm");
    c->ci_low = obj_get_real(o, "ci_low");
    c->ci_high = obj_get_real(o, "ci_high");
    c->level = obj_get_real(o, "level");
}

/* "significance": the permutation test of every coefficient asked and of the KDE's
 * width_ratio (extra[0]), and the BCa CIs of Pearson and Spearman. */
static void put_signif(struct jb *b, json_t *parent, const struct assoc_result *r)
{
    json_t *o = jb_child(b, parent, "significance", json_object());

    jb_int(b, o, "seed", (long long)r->signif->seed);
    jb_int(b, o, "permutations", (long long)r->n_perm);
    jb_int(b, o, "resamples", (long long)r->n_boot);
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_signif_coef *e =
            analysis_coef_signif(r->signif, (enum coef_id)c);
        if (e != NULL)
            put_signif_coef(b, o, analysis_coefs[c].name, e, analysis_coefs[c].ci);
    }
    put_signif_coef(b, o, "width_ratio", &r->signif->extra[0], false);
}

static void get_signif(const json_t *o, struct assoc_result *r)
{
    r->signif->seed = (uint64_t)obj_get_int(o, "seed");
    r->n_perm = (size_t)obj_get_int(o, "permutations");
    r->n_boot = (size_t)obj_get_int(o, "resamples");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        struct stats_signif_coef *e = signif_at(r->signif, (enum coef_id)c);
        if (e != NULL)
            get_signif_coef(o, analysis_coefs[c].name, e);
    }
    get_signif_coef(o, "width_ratio", &r->signif->extra[0]);
}

/* "rf": the fitted curve on 256 points, at the KDE's points, and the OOB R². */
static void put_rf(struct jb *b, json_t *parent, const struct assoc_result *r)
{
    const struct stats_rf *f = r->rf;
    json_t *o = jb_child(b, parent, "rf", json_object());

    jb_int(b, o, "trees", (long long)f->trees);
    jb_int(b, o, "seed", (long long)f->seed);
    if (f->reason != REASON_NONE) {
        jb_set(b, o, "oob_r2", json_null());
        jb_text(b, o, "reason", stats_reason_name(f->reason));
        return;
    }
    jb_real(b, o, "oob_r2", f->oob_r2);
    jb_int(b, o, "n_oob", (long long)f->n_oob);
    jb_set(b, o, "x_grid", jb_numbers(b, f->x_curve, STATS_RF_CURVE));
    jb_set(b, o, "fit", jb_numbers(b, f->fit_curve, STATS_RF_CURVE));
    if (r->rf_n_kde > 0)
        jb_set(b, o, "fit_at_kde_x", jb_numbers(b, r->rf_at_kde, r->rf_n_kde));
}

static bool get_rf(const json_t *o, struct assoc_result *r)
{
    struct stats_rf *f = r->rf;
    const json_t *at = json_object_get(o, "fit_at_kde_x");

    f->trees = (size_t)obj_get_int(o, "trees");
    f->seed = (uint64_t)obj_get_int(o, "seed");
    f->reason = obj_reason_of(obj_get_text(o, "reason"));
    f->oob_r2 = obj_get_real(o, "oob_r2");
    if (f->reason != REASON_NONE)
        return true;
    f->n_oob = (size_t)obj_get_int(o, "n_oob");
    r->rf_n_kde = json_is_array(at) ? json_array_size(at) : 0;
    return r->rf_n_kde <= STATS_KDE_POINTS &&
           obj_get_reals(o, "x_grid", f->x_curve, STATS_RF_CURVE) &&
           obj_get_reals(o, "fit", f->fit_curve, STATS_RF_CURVE) &&
           (r->rf_n_kde == 0 ||
            obj_get_reals(o, "fit_at_kde_x", r->rf_at_kde, r->rf_n_kde));
}

static void put_provenance(struct jb *b, json_t *parent, const struct assoc_provenance *p)
{
    json_t *o = jb_child(b, parent, "provenance", json_object());

    jb_int(b, o, "jobs", p->jobs);
    jb_text(b, o, "jobs_md5", p->jobs_md5);
    jb_int(b, o, "samples", p->samples);
    jb_text(b, o, "samples_md5", p->samples_md5);
    jb_int(b, o, "seed", (long long)p->seed);
    jb_text(b, o, "version", p->version);
    jb_text(b, o, "settings", p->settings);
}

/* false for a provenance without the fingerprint of its inputs (no use to compare). */
static bool get_provenance(const json_t *o, struct assoc_provenance *p)
{
    if (!json_is_string(json_object_get(o, "jobs_md5")) ||
        !json_is_string(json_object_get(o, "samples_md5")) ||
        !json_is_integer(json_object_get(o, "samples")))
        return false;
    p->jobs = (long)obj_get_int(o, "jobs");
    obj_copy_text(p->jobs_md5, sizeof p->jobs_md5, obj_get_text(o, "jobs_md5"));
    p->samples = obj_get_int(o, "samples");
    obj_copy_text(p->samples_md5, sizeof p->samples_md5, obj_get_text(o, "samples_md5"));
    p->seed = (unsigned long)obj_get_int(o, "seed");
    obj_copy_text(p->version, sizeof p->version, obj_get_text(o, "version"));
    obj_copy_text(p->settings, sizeof p->settings, obj_get_text(o, "settings"));
    return true;
}

json_t *analysis_assoc_json(const struct assoc_result *r)
{
    struct jb b = jb_object();
    json_t *o = b.root;
    const bool group = r->source == ASSOC_GROUP;

    if (group)
        jb_text(&b, o, "group", r->group);
    jb_text(&b, o, "y", r->y);
    jb_text(&b, o, "x", r->x);
    /* number_or_null: a damaged stored object may lack them (NAN). */
    jb_set(&b, o, "granularity_s",
           group ? jb_number_or_null(r->granularity_s) : json_null());
    if (group)
        jb_real(&b, o, "base_granularity_s", r->base_granularity_s);
    jb_text(&b, o, "scope", group ? r->scope : NULL);
    put_excluded(&b, o, "excluded", r->excluded, group);
    if (r->negative_y || r->negative_x) {
        /* "negative": {"nu_d_read": n}: how many of the d values of a metric that may
         * be negative (ν, ν^D, B^D: docs/method.md keeps and flags them) are. */
        json_t *neg = jb_child(&b, o, "negative", json_object());
        if (r->negative_y)
            jb_int(&b, neg, r->y, (long long)r->n_negative_y);
        if (r->negative_x)
            jb_int(&b, neg, r->x, (long long)r->n_negative_x);
    }
    /* The top-level space is the KDE's fitting space (docs/method.md §5). */
    jb_text(&b, o, "space", stats_kde_space_name(r->space));
    jb_int(&b, o, "d", (long long)r->coefs.d);
    put_coefficients(&b, o, &r->coefs);
    if (r->kde != NULL)
        put_kde(&b, o, r->kde, r->density);
    if (r->signif != NULL)
        put_signif(&b, o, r);
    if (r->rf != NULL)
        put_rf(&b, o, r);
    if (r->has_provenance)
        put_provenance(&b, o, &r->provenance);
    if (r->stored.present) {
        json_t *st = jb_child(&b, o, "stored", json_object());
        jb_text(&b, st, "computed_at", r->stored.computed_at);
        jb_set(&b, st, "current", json_boolean(r->stored.current));
        if (r->stored.has_provenance)
            put_provenance(&b, st, &r->stored.provenance);
    }
    if (group) {
        jb_real(&b, o, "sample_offset_s", r->sample_offset_s);
        /* Darshan's whole-second start: every absolute time may be up to 1 s early. */
        jb_set(&b, o, "time_error_s", json_real(1.0));
    } else {
        jb_int(&b, o, "seed", (long long)r->seed);
    }
    return jb_finish(&b);
}

char *analysis_assoc_text(const struct assoc_result *r)
{
    return jb_dump(analysis_assoc_json(r));
}

/* The parts of a stored object beside its identity; false when one is malformed. */
static bool get_assoc_parts(const json_t *o, struct assoc_result *r)
{
    const json_t *neg = json_object_get(o, "negative");
    const json_t *kde = json_object_get(o, "kde"),
                 *sig = json_object_get(o, "significance");
    const json_t *rf = json_object_get(o, "rf"), *prov = json_object_get(o, "provenance");

    r->granularity_s = obj_get_real(o, "granularity_s");
    r->base_granularity_s = obj_get_real(o, "base_granularity_s");
    r->sample_offset_s = obj_get_real(o, "sample_offset_s");
    r->seed = (unsigned long)obj_get_int(o, "seed");
    get_excluded(json_object_get(o, "excluded"), r->excluded);
    r->negative_y = json_object_get(neg, r->y) != NULL;
    r->negative_x = json_object_get(neg, r->x) != NULL;
    r->n_negative_y = (size_t)obj_get_int(neg, r->y);
    r->n_negative_x = (size_t)obj_get_int(neg, r->x);
    r->space = space_of(obj_get_text(o, "space"));
    get_coefficients(o, &r->coefs);
    if (json_is_object(kde)) {
        r->kde = calloc(1, sizeof *r->kde);
        if (r->kde == NULL || !get_kde(kde, r->kde))
            return false;
    }
    if (json_is_object(sig)) {
        r->signif = calloc(1, sizeof *r->signif);
        if (r->signif == NULL)
            return false;
        get_signif(sig, r);
    }
    if (json_is_object(rf)) {
        r->rf = calloc(1, sizeof *r->rf);
        if (r->rf == NULL || !get_rf(rf, r))
            return false;
    }
    r->has_provenance = get_provenance(prov, &r->provenance);
    return true;
}

enum status analysis_assoc_parse(const char *text, struct assoc_result **out,
                                 struct error *err)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    struct assoc_result *r = NULL;
    enum status rc = STATUS_OK;

    *out = NULL;
    if (!json_is_object(o) || !json_is_string(json_object_get(o, "y")) ||
        !json_is_string(json_object_get(o, "x"))) {
        rc = error_set(err, STATUS_PARSE, "not an association object: %s",
                       o == NULL ? jerr.text : "no y or x");
        goto out;
    }
    const bool group = json_is_string(json_object_get(o, "group"));
    r = assoc_result_new(group ? ASSOC_GROUP : ASSOC_COLUMNS);
    if (r == NULL) {
        rc = error_set(err, STATUS_NOMEM, "association result");
        goto out;
    }
    rc = assoc_result_name(r, obj_get_text(o, "group"), obj_get_text(o, "y"),
                           obj_get_text(o, "x"), obj_get_text(o, "scope"), err);
    if (rc == STATUS_OK && !get_assoc_parts(o, r)) {
        rc = error_set(err, STATUS_PARSE, "association object of %s~%s: a malformed part",
                       r->y, r->x);
    }
    if (rc == STATUS_OK) {
        *out = r;
        r = NULL;
    }
out:
    assoc_result_free(r);
    json_decref(o);
    return rc;
}
