/* objects.c: the one JSON of the results. The table of coefficients; the association
 * object rendered from struct assoc_result and read back from a stored text (older
 * shapes included); the pieces the front ends share. Every construction goes through
 * struct jb, which records the first failure, checked once at the end. */
#include "internal.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The flags of the stored text: compact, reals that read back as the same double. */
#define STORE_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

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

/* ---- the builder ----------------------------------------------------------------- */

/* A JSON value under construction: the first failed allocation or insertion sets
 * failed, and jb_finish then gives NULL (jansson's setters return -1 on failure, and
 * a NULL value or parent makes them fail, so one check at the end covers them all). */
struct jb {
    json_t *root;
    bool failed;
};

static struct jb jb_object(void)
{
    struct jb b = {json_object(), false};

    b.failed = b.root == NULL;
    return b;
}

/* The value built, or NULL (everything released) when any step failed. */
static json_t *jb_finish(struct jb *b)
{
    if (b->failed) {
        json_decref(b->root);
        b->root = NULL;
    }
    return b->root;
}

/* Sets key of o to v (taken). */
static void jb_set(struct jb *b, json_t *o, const char *key, json_t *v)
{
    if (json_object_set_new(o, key, v) != 0)
        b->failed = true;
}

static void jb_append(struct jb *b, json_t *a, json_t *v)
{
    if (json_array_append_new(a, v) != 0)
        b->failed = true;
}

/* A new object or array appended to a; borrowed, NULL when that failed (the array
 * released it then, and every jb_* on NULL only records the failure). */
static json_t *jb_item(struct jb *b, json_t *a, json_t *child)
{
    if (json_array_append_new(a, child) != 0) {
        b->failed = true;
        return NULL;
    }
    return child;
}

/* A new object or array set as key of o; borrowed, NULL when that failed. */
static json_t *jb_child(struct jb *b, json_t *o, const char *key, json_t *child)
{
    if (json_object_set_new(o, key, child) != 0) {
        b->failed = true;
        return NULL;
    }
    return child;
}

/* A JSON real, or null when v is not finite (INTERFACES.md: non-finite is null). */
static json_t *number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void jb_real(struct jb *b, json_t *o, const char *key, double v)
{
    jb_set(b, o, key, number_or_null(v));
}

static void jb_int(struct jb *b, json_t *o, const char *key, long long v)
{
    jb_set(b, o, key, json_integer((json_int_t)v));
}

static void jb_text(struct jb *b, json_t *o, const char *key, const char *s)
{
    jb_set(b, o, key, s != NULL ? analysis_json_text(s) : json_null());
}

/* An array of n reals (null where not finite). */
static json_t *numbers(struct jb *b, const double *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        jb_append(b, a, number_or_null(v[i]));
    return a;
}

static char *dump(json_t *o)
{
    char *text = o != NULL ? json_dumps(o, STORE_FLAGS) : NULL;

    json_decref(o);
    return text;
}

/* ---- reading ---------------------------------------------------------------------- */

/* A number of o, NAN when absent or null. */
static double get_real(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : (double)NAN;
}

/* Every integer of the stored objects counts something or is a seed: a negative one
 * (damage) reads as 0 rather than wrapping to a huge size. */
static long long get_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    long long n = json_is_integer(v) ? (long long)json_integer_value(v) : 0;

    return n > 0 ? n : 0;
}

static const char *get_text(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* n reals of the array key of o into v (NAN for null); false unless it has n. */
static bool get_reals(const json_t *o, const char *key, double *v, size_t n)
{
    const json_t *a = json_object_get(o, key);

    if (!json_is_array(a) || json_array_size(a) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(a, i);
        v[i] = json_is_number(e) ? json_number_value(e) : (double)NAN;
    }
    return true;
}

static enum stats_reason reason_of(const char *name)
{
    for (int r = REASON_NONE; name != NULL && r <= REASON_NOT_COMPUTED; r++) {
        if (strcmp(name, stats_reason_name((enum stats_reason)r)) == 0)
            return (enum stats_reason)r;
    }
    return REASON_NONE;
}

static void copy_text(char *out, size_t size, const char *s)
{
    snprintf(out, size, "%s", s != NULL ? s : "");
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
    return fitted ? numbers(b, v, STATS_KDE_POINTS) : json_null();
}

/* space, hx, hy, x_grid, q05, q50, q95, marg_q05, marg_q95, mean, sd, width_ratio and
 * paper_width_ratio (null where not finite; the four arrays null unless fitted). */
static void put_kde_bands(struct jb *b, json_t *o, const struct kde_bands *k, bool fitted)
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

/* The excluded counts: "total" and each reason (columns: the two an input file can
 * have). */
static void put_excluded(struct jb *b, json_t *parent, const char *key,
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
        counts[e] = (size_t)get_int(o, stats_exclusion_name((enum stats_exclusion)e));
}

/* Each coefficient computed: its value, or null with its reason in "reasons"; and
 * "reason", the first of them (INTERFACES.md: one reason for the whole object). */
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

    a->d = (size_t)get_int(o, "d");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const json_t *v = json_object_get(o, analysis_coefs[c].name);
        struct stats_coef *out = coef_at(a, (enum coef_id)c);
        if (v == NULL) {
            *out = (struct stats_coef){NAN, REASON_NOT_COMPUTED};
        } else if (json_is_number(v)) {
            *out = (struct stats_coef){json_number_value(v), REASON_NONE};
        } else {
            /* null without a reason it names: not a number we can serve. */
            enum stats_reason why = reason_of(get_text(reasons, analysis_coefs[c].name));
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
        jb_append(b, rows, numbers(b, k->density[i], STATS_KDE_GRID));
    jb_set(b, o, "values", rows);
    return o;
}

/* "kde" (METHOD.md §5 (a)–(d)): quantiles, bands and ratios in linear units, hx and
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
    const char *kernel = get_text(o, "kernel"), *bw = get_text(o, "bandwidth");

    k->reason = reason_of(get_text(o, "reason"));
    k->space = space_of(get_text(o, "space"));
    /* stored before the full kernel and the plug-in existed: product, normal */
    k->kernel = kernel != NULL && strcmp(kernel, "full") == 0 ? KDE_KERNEL_FULL
                                                              : KDE_KERNEL_PRODUCT;
    k->bandwidth =
        bw != NULL && strcmp(bw, "plugin") == 0 ? KDE_BW_PLUGIN : KDE_BW_NORMAL;
    k->binned = json_is_true(json_object_get(o, "binned"));
    k->h_x = get_real(o, "hx");
    k->h_y = get_real(o, "hy");
    k->marg_q05 = get_real(o, "marg_q05");
    k->marg_q95 = get_real(o, "marg_q95");
    k->mean = get_real(o, "mean");
    k->sd = get_real(o, "sd");
    k->width_ratio = get_real(o, "width_ratio");
    k->paper_width_ratio = get_real(o, "paper_width_ratio");
    k->band_low = get_real(o, "band_low");
    k->band_high = get_real(o, "band_high");
    if (k->reason != REASON_NONE)
        return true;
    return get_reals(o, "x_grid", k->x_grid, STATS_KDE_POINTS) &&
           get_reals(o, "q05", k->q05, STATS_KDE_POINTS) &&
           get_reals(o, "q50", k->q50, STATS_KDE_POINTS) &&
           get_reals(o, "q95", k->q95, STATS_KDE_POINTS);
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
    c->reason = reason_of(get_text(o, "reason"));
    c->p_value = get_real(o, "p_value");
    c->noise_floor = get_real(o, "noise_floor");
    c->n_perm = (size_t)get_int(o, "n_perm");
    c->ci_low = get_real(o, "ci_low");
    c->ci_high = get_real(o, "ci_high");
    c->level = get_real(o, "level");
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
    r->signif->seed = (uint64_t)get_int(o, "seed");
    r->n_perm = (size_t)get_int(o, "permutations");
    r->n_boot = (size_t)get_int(o, "resamples");
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
    jb_set(b, o, "x_grid", numbers(b, f->x_curve, STATS_RF_CURVE));
    jb_set(b, o, "fit", numbers(b, f->fit_curve, STATS_RF_CURVE));
    if (r->rf_n_kde > 0)
        jb_set(b, o, "fit_at_kde_x", numbers(b, r->rf_at_kde, r->rf_n_kde));
}

static bool get_rf(const json_t *o, struct assoc_result *r)
{
    struct stats_rf *f = r->rf;
    const json_t *at = json_object_get(o, "fit_at_kde_x");

    f->trees = (size_t)get_int(o, "trees");
    f->seed = (uint64_t)get_int(o, "seed");
    f->reason = reason_of(get_text(o, "reason"));
    f->oob_r2 = get_real(o, "oob_r2");
    if (f->reason != REASON_NONE)
        return true;
    f->n_oob = (size_t)get_int(o, "n_oob");
    r->rf_n_kde = json_is_array(at) ? json_array_size(at) : 0;
    return r->rf_n_kde <= STATS_KDE_POINTS &&
           get_reals(o, "x_grid", f->x_curve, STATS_RF_CURVE) &&
           get_reals(o, "fit", f->fit_curve, STATS_RF_CURVE) &&
           (r->rf_n_kde == 0 || get_reals(o, "fit_at_kde_x", r->rf_at_kde, r->rf_n_kde));
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
    p->jobs = (long)get_int(o, "jobs");
    copy_text(p->jobs_md5, sizeof p->jobs_md5, get_text(o, "jobs_md5"));
    p->samples = get_int(o, "samples");
    copy_text(p->samples_md5, sizeof p->samples_md5, get_text(o, "samples_md5"));
    p->seed = (unsigned long)get_int(o, "seed");
    copy_text(p->version, sizeof p->version, get_text(o, "version"));
    copy_text(p->settings, sizeof p->settings, get_text(o, "settings"));
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
           group ? number_or_null(r->granularity_s) : json_null());
    if (group)
        jb_real(&b, o, "base_granularity_s", r->base_granularity_s);
    jb_text(&b, o, "scope", group ? r->scope : NULL);
    put_excluded(&b, o, "excluded", r->excluded, group);
    if (r->negative_y || r->negative_x) {
        /* "negative": {"nu_d_read": n}: how many of the d values of a metric that may
         * be negative (ν, ν^D, B^D: METHOD.md keeps and flags them) are. */
        json_t *neg = jb_child(&b, o, "negative", json_object());
        if (r->negative_y)
            jb_int(&b, neg, r->y, (long long)r->n_negative_y);
        if (r->negative_x)
            jb_int(&b, neg, r->x, (long long)r->n_negative_x);
    }
    /* The top-level space is the KDE's fitting space (METHOD.md §5). */
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
    return dump(analysis_assoc_json(r));
}

/* The parts of a stored object beside its identity; false when one is malformed. */
static bool get_assoc_parts(const json_t *o, struct assoc_result *r)
{
    const json_t *neg = json_object_get(o, "negative");
    const json_t *kde = json_object_get(o, "kde"),
                 *sig = json_object_get(o, "significance");
    const json_t *rf = json_object_get(o, "rf"), *prov = json_object_get(o, "provenance");

    r->granularity_s = get_real(o, "granularity_s");
    r->base_granularity_s = get_real(o, "base_granularity_s");
    r->sample_offset_s = get_real(o, "sample_offset_s");
    r->seed = (unsigned long)get_int(o, "seed");
    get_excluded(json_object_get(o, "excluded"), r->excluded);
    r->negative_y = json_object_get(neg, r->y) != NULL;
    r->negative_x = json_object_get(neg, r->x) != NULL;
    r->n_negative_y = (size_t)get_int(neg, r->y);
    r->n_negative_x = (size_t)get_int(neg, r->x);
    r->space = space_of(get_text(o, "space"));
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
    rc = assoc_result_name(r, get_text(o, "group"), get_text(o, "y"), get_text(o, "x"),
                           get_text(o, "scope"), err);
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

/* A step's "kde": the bands of METHOD.md §5 `kde` (b)–(d) in linear units, hx and hy
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
    return dump(jb_finish(&b));
}

static void get_step(const json_t *o, struct sweep_point *p, unsigned *methods)
{
    p->k = (unsigned)get_int(o, "k");
    p->granularity_s = get_real(o, "granularity_s");
    p->d = (size_t)get_int(o, "d");
    p->m_mean = get_real(o, "m_mean");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        p->c[c] = get_real(o, analysis_coefs[c].name);
        if (json_object_get(o, analysis_coefs[c].name) != NULL)
            *methods |= analysis_coefs[c].method;
    }
    const json_t *kde = json_object_get(o, "kde");
    p->kde.wr = get_real(kde, "width_ratio");
    p->kde.pwr = get_real(kde, "paper_width_ratio");
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
    copy_text(out->group, sizeof out->group, get_text(o, "group"));
    copy_text(out->y, sizeof out->y, get_text(o, "y"));
    copy_text(out->x, sizeof out->x, get_text(o, "x"));
    copy_text(out->scope, sizeof out->scope, get_text(o, "scope"));
    out->base_granularity_s = get_real(o, "base_granularity_s");
    out->k_max = (unsigned)json_array_size(steps);
    out->all_phases =
        get_text(o, "phases") != NULL && strcmp(get_text(o, "phases"), "all") == 0;
    out->d = (size_t)get_int(o, "d");
    out->d_min = (size_t)get_int(o, "d_min");
    out->seed = (unsigned long)get_int(o, "seed");
    out->points = calloc(out->k_max > 0 ? out->k_max : 1, sizeof *out->points);
    if (out->points == NULL) {
        rc = error_set(err, STATUS_NOMEM, "sweep of %u steps", out->k_max);
        goto out;
    }
    for (size_t i = 0; i < out->k_max; i++)
        get_step(json_array_get(steps, i), &out->points[i], &out->methods);
    out->verdicts.drop = get_real(v, "drop");
    out->verdicts.rho_max = get_real(v, "rho_max");
    out->verdicts.tolerance = get_real(v, "tolerance");
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const json_t *f =
            json_object_get(json_object_get(v, "falling"), analysis_coefs[c].name);
        out->verdicts.falling[c] = json_is_boolean(f) ? json_is_true(f) : -1;
    }
    out->verdicts.recommended_k = (unsigned)get_int(v, "recommended_k");
    out->verdicts.recommended_interval_s = get_real(v, "recommended_interval_s");
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

/* ---- the group table ------------------------------------------------------------- */

char *analysis_group_table_text(const struct group_table *t)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_text(&b, o, "kind", "group_table");
    jb_text(&b, o, "group", t->group->id);
    jb_text(&b, o, "name", t->group->name);
    jb_set(&b, o, "granularity_s", json_real(t->granularity_s));
    jb_text(&b, o, "scope", "all");
    jb_int(&b, o, "jobs", t->jobs);
    json_t *feat = jb_child(&b, o, "features", json_object());
    for (size_t f = 0; f < DB_N_FEATURES; f++) {
        json_t *e = jb_child(&b, feat, t->features[f].name, json_object());
        jb_int(&b, e, "min", t->features[f].min);
        jb_int(&b, e, "max", t->features[f].max);
    }
    json_t *met = jb_child(&b, o, "metrics", json_object());
    for (size_t p = 0; p < GROUP_TABLE_METRICS; p++) {
        const struct group_table_metric *m = &t->metrics[p];
        json_t *e = jb_child(&b, met, m->name, json_object());
        jb_real(&b, e, "mean", m->sum.mean);
        jb_real(&b, e, "sd", m->sum.sd);
        jb_int(&b, e, "n", (long long)m->sum.n);
        jb_int(&b, e, "excluded", (long long)m->excluded);
    }
    if (t->has_histogram) {
        const struct stats_histogram *h = &t->hist;
        json_t *hist = jb_child(&b, o, "td_histogram", json_object());
        json_t *counts = json_array();
        for (size_t k = 0; counts != NULL && k < h->n_bins; k++)
            jb_append(&b, counts, json_integer((json_int_t)t->counts[k]));
        jb_set(&b, hist, "bin_width_s", json_real(h->bin_width_s));
        jb_real(&b, hist, "first_edge_s", h->first_edge_s);
        jb_set(&b, hist, "counts", counts);
        jb_int(&b, hist, "n", (long long)h->summary.n);
        jb_real(&b, hist, "mean", h->summary.mean);
        jb_real(&b, hist, "sd", h->summary.sd);
        jb_real(&b, hist, "band_low", h->band_low);
        jb_real(&b, hist, "band_high", h->band_high);
    }
    /* Darshan's whole-second start: every absolute time may be up to 1 s early. */
    jb_set(&b, o, "time_error_s", json_real(1.0));
    return dump(jb_finish(&b));
}

/* ---- the job export -------------------------------------------------------------- */

struct export_json {
    struct jb b;
    json_t *rows; /* borrowed from b.root */
};

struct export_json *export_json_new(double granularity_s, const char *scope)
{
    struct export_json *e = malloc(sizeof *e);

    if (e == NULL)
        return NULL;
    e->b = jb_object();
    jb_set(&e->b, e->b.root, "granularity_s", json_real(granularity_s));
    jb_text(&e->b, e->b.root, "scope", scope);
    e->rows = jb_child(&e->b, e->b.root, "jobs", json_array());
    return e;
}

void export_json_row(struct export_json *e, const struct analysis_ctx *c,
                     const struct db_job *j, const struct job_eval *ev)
{
    struct jb *b = &e->b;
    json_t *o = jb_item(b, e->rows, json_object());

    jb_text(b, o, "id", j->job_key);
    jb_text(b, o, "jobid", j->jobid);
    jb_text(b, o, "group", j->group_id);
    jb_int(b, o, "start_time", (long long)j->start_s);
    jb_set(b, o, "granularity_s", json_real(c->base_delta_s * c->k));
    for (size_t m = 0; m < n_metrics; m++)
        jb_real(b, o, metrics[m].name, metric_reported(&metrics[m], j, ev));
    json_t *ex = jb_child(b, o, "excluded", json_object());
    for (size_t f = 0; f < n_families; f++) {
        enum stats_exclusion why = family_excl(families[f], ev);
        if (why != EXCL_NONE)
            jb_text(b, ex, families[f]->name, stats_exclusion_name(why));
    }
    json_t *neg = jb_child(b, o, "negative", json_array());
    for (size_t k = 0; k < n_negative_bits; k++) {
        if (ev->dv.negative & negative_bits[k])
            jb_append(b, neg, json_string(stats_negative_name(negative_bits[k])));
    }
    json_t *fs = jb_child(b, o, "scope_fs", json_array());
    for (size_t f = 0; ev->ss != NULL && f < c->n_fs; f++) {
        if (ev->ss->member[f])
            jb_append(b, fs, analysis_json_text(c->fs_names[f]));
    }
}

struct json_t *export_json_take(struct export_json *e)
{
    json_t *doc = jb_finish(&e->b);

    e->b.root = NULL;
    return doc;
}

enum status analysis_json_write(struct json_t *doc, FILE *fp, struct error *err)
{
    if (doc == NULL)
        return error_set(err, STATUS_NOMEM, "export JSON");
    int rc = json_dumpf(doc, fp, STORE_FLAGS);
    json_decref(doc);
    fputc('\n', fp);
    return rc == 0 ? STATUS_OK : error_set(err, STATUS_INTERNAL, "writing JSON");
}

void export_json_free(struct export_json *e)
{
    if (e == NULL)
        return;
    json_decref(e->b.root);
    free(e);
}

/* ---- pieces the front ends share ------------------------------------------------- */

json_t *analysis_json_text(const char *s)
{
    char copy[512];
    json_t *j = json_string(s);

    if (j != NULL)
        return j;
    /* A Darshan exe or a file system name can hold anything: bytes that are not
     * ASCII become '?' when the text is not valid UTF-8. */
    snprintf(copy, sizeof copy, "%s", s);
    for (char *p = copy; *p != '\0'; p++) {
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    }
    return json_string(copy);
}

/* ---- the coverage ---------------------------------------------------------------- */

/* An epoch time as RFC 3339 (whole seconds) and as *_ms: both keys into o, null
 * when the time is NAN (open). */
static void put_time(struct jb *b, json_t *o, const char *key, double epoch_s)
{
    char text[40], key_ms[64];

    snprintf(key_ms, sizeof key_ms, "%s_ms", key);
    if (!isfinite(epoch_s)) {
        jb_set(b, o, key, json_null());
        jb_set(b, o, key_ms, json_null());
        return;
    }
    time_format_rfc3339((int64_t)floor(epoch_s), text);
    jb_text(b, o, key, text);
    jb_int(b, o, key_ms, llround(epoch_s * 1000.0));
}

/* v[i] / max for plotting (Fig. 13), null where v[i] is absent. */
static json_t *scaled(struct jb *b, const double *v, size_t n, double max)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        jb_append(b, a, number_or_null(max > 0 ? v[i] / max : v[i]));
    return a;
}

/* The bucket edges k = first, first + 1, …, first + n - 1 of b in epoch ms. */
static json_t *edges_ms(struct jb *jb, const struct coverage_buckets *b, size_t first)
{
    json_t *a = json_array();

    for (size_t k = first; a != NULL && k < first + b->n; k++) {
        double at_s = b->start_s + (double)k * b->width_s;
        jb_append(jb, a, json_integer((json_int_t)llround(at_s * 1000)));
    }
    return a;
}

/* The downsampled form of a scope's intervals (README: points=). */
static void put_buckets(struct jb *jb, json_t *o, const struct coverage_buckets *b)
{
    json_t *bo = jb_child(jb, o, "buckets", json_object());

    jb_int(jb, bo, "n", (long long)b->n);
    jb_set(jb, bo, "width_ms", json_real(b->width_s * 1000));
    jb_set(jb, bo, "start_ms", edges_ms(jb, b, 0));
    jb_set(jb, bo, "end_ms", edges_ms(jb, b, 1));
    jb_set(jb, bo, "d_min", numbers(jb, b->d_min, b->n));
    jb_set(jb, bo, "d_max", numbers(jb, b->d_max, b->n));
    jb_set(jb, bo, "s_min", numbers(jb, b->s_min, b->n));
    jb_set(jb, bo, "s_max", numbers(jb, b->s_max, b->n));
}

/* One stored scope's coverage and its intervals as the API serves them, or their
 * buckets when bk is not NULL (s is then not read). */
static void put_coverage_scope(struct jb *b, json_t *list, const struct db_coverage *c,
                               const struct db_coverage_series *s,
                               const struct coverage_buckets *bk)
{
    json_t *o = jb_item(b, list, json_object());
    struct coverage_range r;

    if (bk != NULL) {
        r = bk->range;
    } else {
        analysis_coverage_range(s, &r);
    }
    jb_text(b, o, "fs", strcmp(c->scope, "all") == 0 ? "all" : c->scope + 3);
    jb_text(b, o, "scope", c->scope);
    jb_set(b, o, "granularity_s", json_real(c->granularity_s));
    jb_real(b, o, "coverage", c->coverage);
    jb_set(b, o, "sum_d_bytes", json_real(c->sum_d_bytes));
    jb_set(b, o, "sum_s_bytes", json_real(c->sum_s_bytes));
    jb_int(b, o, "intervals", c->intervals);
    jb_set(b, o, "d_total_bytes", json_real(c->d_total_bytes));
    put_time(b, o, "log_start", c->log_start_s);
    put_time(b, o, "log_end", c->log_end_s);
    jb_text(b, o, "computed_at", c->computed_at[0] != '\0' ? c->computed_at : NULL);
    /* The same sums over the intervals served: the coverage of the range asked. */
    json_t *range = jb_child(b, o, "range", json_object());
    jb_set(b, range, "coverage",
           r.sum_s_bytes > 0 ? json_real(r.sum_d_bytes / r.sum_s_bytes) : json_null());
    jb_set(b, range, "sum_d_bytes", json_real(r.sum_d_bytes));
    jb_set(b, range, "sum_s_bytes", json_real(r.sum_s_bytes));
    jb_int(b, range, "intervals", (long long)r.intervals);
    jb_set(b, o, "max_d_bytes", json_real(r.max_d_bytes));
    jb_set(b, o, "max_s_bytes", json_real(r.max_s_bytes));
    if (bk != NULL) {
        put_buckets(b, o, bk);
        return;
    }
    json_t *ends = json_array();
    for (size_t i = 0; ends != NULL && i < s->n; i++)
        jb_append(b, ends, json_integer((json_int_t)llround(s->end_s[i] * 1000)));
    jb_set(b, o, "end_ms", ends);
    jb_set(b, o, "d", scaled(b, s->d_bytes, s->n, r.max_d_bytes));
    jb_set(b, o, "s", scaled(b, s->s_bytes, s->n, r.max_s_bytes));
}

json_t *analysis_coverage_json(const struct coverage_answer *a)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    put_time(&b, o, "from", a->from_s);
    put_time(&b, o, "to", a->to_s);
    json_t *all = jb_child(&b, o, "coverage", json_object());
    json_t *list = jb_child(&b, o, "filesystems", json_array());
    for (size_t i = 0; i < a->n; i++) {
        const struct db_coverage *c = &a->scopes[i];
        jb_real(&b, all, strcmp(c->scope, "all") == 0 ? "all" : c->scope + 3,
                c->coverage);
        if (a->served[i]) {
            put_coverage_scope(&b, list, c, &a->series[i],
                               a->buckets != NULL ? &a->buckets[i] : NULL);
        }
    }
    return jb_finish(&b);
}

/* ---- the jobs behind a scatter (README: /groups/{id}/points) --------------------- */

json_t *analysis_points_json(const struct points_result *p)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_set(&b, o, "group", json_string(p->group));
    jb_set(&b, o, "y", json_string(p->y));
    jb_set(&b, o, "x", json_string(p->x));
    jb_set(&b, o, "granularity_s", json_real(p->granularity_s));
    jb_set(&b, o, "scope", json_string(p->scope));
    jb_int(&b, o, "d", (long long)p->d);
    jb_int(&b, o, "shown", (long long)p->shown);
    jb_set(&b, o, "sampled", json_boolean(p->sampled));
    jb_int(&b, o, "seed", (long long)p->seed);
    json_t *list = jb_child(&b, o, "points", json_array());
    for (size_t i = 0; list != NULL && i < p->shown; i++) {
        const struct job_point *j = &p->points[i];
        json_t *one = json_object();
        jb_append(&b, list, one);
        jb_text(&b, one, "id", j->id);
        jb_text(&b, one, "jobid", j->jobid);
        jb_int(&b, one, "start_ms", llround(j->start_s * 1000));
        jb_int(&b, one, "end_ms", llround(j->end_s * 1000));
        jb_set(&b, one, "x", json_real(j->x));
        jb_set(&b, one, "y", json_real(j->y));
    }
    return jb_finish(&b);
}

/* ---- predict and who got hurt (README: "Who got hurt") ---------------------------- */

json_t *analysis_predict_json(const struct predict_result *p)
{
    struct jb b = jb_object();
    json_t *o = b.root;
    const bool fitted = p->reason == REASON_NONE;

    jb_text(&b, o, "group", p->group);
    jb_text(&b, o, "y", p->y);
    jb_text(&b, o, "x", p->x);
    jb_real(&b, o, "granularity_s", p->granularity_s);
    jb_real(&b, o, "x_value", p->x_value);
    jb_text(&b, o, "space", stats_kde_space_name(p->space));
    jb_int(&b, o, "d", (long long)p->d);
    jb_real(&b, o, "hx", p->h_x);
    jb_real(&b, o, "hy", p->h_y);
    json_t *range = jb_child(&b, o, "x_range", json_array());
    jb_append(&b, range, number_or_null(p->at.x_lo));
    jb_append(&b, range, number_or_null(p->at.x_hi));
    jb_real(&b, o, "q05", p->at.q05);
    jb_real(&b, o, "q50", p->at.q50);
    jb_real(&b, o, "q95", p->at.q95);
    jb_real(&b, o, "width", p->at.q95 - p->at.q05);
    if (!fitted)
        jb_text(&b, o, "reason", stats_reason_name(p->reason));
    if (p->has_rf) {
        json_t *rf = jb_child(&b, o, "rf", json_object());
        jb_int(&b, rf, "trees", (long long)p->rf_trees);
        jb_real(&b, rf, "oob_r2", p->rf_oob_r2);
        jb_real(&b, rf, "fit", p->rf_fit);
    } else {
        jb_set(&b, o, "rf", json_null());
    }
    jb_text(&b, o, "computed_at", p->computed_at[0] != '\0' ? p->computed_at : NULL);
    return jb_finish(&b);
}

static void put_slowdown(struct jb *b, json_t *list, const struct slowdown_job *j,
                         size_t rank)
{
    json_t *o = jb_item(b, list, json_object());

    if (rank > 0)
        jb_int(b, o, "rank", (long long)rank);
    jb_text(b, o, "id", j->job_key);
    jb_text(b, o, "jobid", j->jobid);
    jb_text(b, o, "group", j->group);
    put_time(b, o, "start", j->start_s);
    put_time(b, o, "end", j->end_s);
    jb_real(b, o, "y", j->y);
    jb_real(b, o, "x", j->x);
    if (rank == 0) {
        jb_text(b, o, "reason", j->reason);
        return;
    }
    jb_real(b, o, "q05", j->q05);
    jb_real(b, o, "q50", j->q50);
    jb_real(b, o, "q95", j->q95);
    jb_real(b, o, "ratio", j->ratio);
    jb_real(b, o, "percentile", j->percentile);
    jb_real(b, o, "cdf", j->cdf);
}

json_t *analysis_slowdowns_json(const struct slowdowns *sl)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    put_time(&b, o, "from", sl->from_s);
    put_time(&b, o, "to", sl->to_s);
    if (sl->group[0] != '\0')
        jb_text(&b, o, "group", sl->group);
    jb_text(&b, o, "y", sl->y);
    jb_text(&b, o, "x", sl->x);
    jb_real(&b, o, "granularity_s", sl->granularity_s);
    jb_int(&b, o, "limit", (long long)sl->limit);
    jb_int(&b, o, "jobs", (long long)sl->jobs);
    jb_int(&b, o, "ranked_total", (long long)sl->ranked_total);
    json_t *ranked = jb_child(&b, o, "slowdowns", json_array());
    for (size_t i = 0; i < sl->n_ranked; i++)
        put_slowdown(&b, ranked, &sl->ranked[i], i + 1);
    jb_int(&b, o, "apart_total", (long long)sl->apart_total);
    json_t *apart = jb_child(&b, o, "apart", json_array());
    for (size_t i = 0; i < sl->n_apart; i++)
        put_slowdown(&b, apart, &sl->apart[i], 0);
    return jb_finish(&b);
}

/* ---- the night report (README "The night report") ------------------------------- */

/* What the stored associations are not: the earlier coefficients, which results
 * does not keep (one row per key, replaced when it changes). */
static const char night_history_note[] =
    "iocontend keeps only the newest association of each group (a changed result "
    "replaces the stored one), so the coefficients before the change are not "
    "recorded; compare with an earlier night's report.";

/* A stored time (RFC 3339, "" when none) as text or null. */
static void put_stamp(struct jb *b, json_t *o, const char *key, const char *s)
{
    jb_text(b, o, key, s[0] != '\0' ? s : NULL);
}

static void put_night_ingest(struct jb *b, json_t *o, const struct night *n)
{
    static const char *const names[6] = {"files",       "loaded", "skipped",
                                         "quarantined", "jobs",   "samples"};
    json_t *in = jb_child(b, o, "ingest", json_object());
    json_t *runs = jb_child(b, in, "runs", json_array());
    long long sums[6] = {0};

    for (size_t i = 0; i < n->n_runs; i++) {
        const struct db_night_run *r = &n->runs[i];
        const long long v[6] = {r->files,       r->loaded, r->skipped,
                                r->quarantined, r->jobs,   r->samples};
        json_t *row = jb_item(b, runs, json_object());
        jb_int(b, row, "id", (long long)r->id);
        jb_text(b, row, "kind", r->kind);
        put_stamp(b, row, "started_at", r->started_at);
        put_stamp(b, row, "finished_at", r->finished_at);
        put_stamp(b, row, "interrupted_at", r->interrupted_at);
        jb_set(b, row, "failed", json_boolean(r->failed));
        jb_real(b, row, "seconds", r->seconds);
        for (size_t k = 0; k < 6; k++) {
            jb_int(b, row, names[k], v[k]);
            sums[k] += v[k];
        }
    }
    for (size_t k = 0; k < 6; k++)
        jb_int(b, in, names[k], sums[k]);
}

static void put_night_quarantined(struct jb *b, json_t *o, const struct night *n)
{
    json_t *list = jb_child(b, o, "quarantined", json_array());

    for (size_t i = 0; i < n->n_quarantined; i++) {
        const struct db_quarantine_entry *e = &n->quarantined[i];
        json_t *row = jb_item(b, list, json_object());
        jb_text(b, row, "path", e->path);
        jb_set(b, row, "line", e->line > 0 ? json_integer(e->line) : json_null());
        jb_text(b, row, "status", e->status);
        jb_text(b, row, "message", e->message);
        put_stamp(b, row, "first_seen", e->first_seen);
        put_stamp(b, row, "last_seen", e->last_seen);
    }
}

/* A stored association as the report lists it: its key, d, the coefficients and
 * their p-values where stored, and "previous": null (not recorded). */
static void put_night_assoc(struct jb *b, json_t *list, const struct night_assoc *a)
{
    const struct assoc_result *r = a->result;
    json_t *o = jb_item(b, list, json_object());

    jb_real(b, o, "granularity_s", a->granularity_s);
    jb_text(b, o, "space", a->space);
    jb_text(b, o, "computed_at", a->computed_at);
    jb_int(b, o, "d", (long long)r->coefs.d);
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_coef *k = analysis_coef_of(&r->coefs, (enum coef_id)c);
        jb_set(b, o, analysis_coefs[c].name,
               k->reason == REASON_NONE ? number_or_null(k->value) : json_null());
    }
    json_t *p = jb_child(b, o, "p_values", json_object());
    for (size_t c = 0; r->signif != NULL && c < COEF_COUNT; c++) {
        const struct stats_signif_coef *e =
            analysis_coef_signif(r->signif, (enum coef_id)c);
        if (e != NULL && e->reason == REASON_NONE)
            jb_real(b, p, analysis_coefs[c].name, e->p_value);
    }
    jb_set(b, o, "previous", json_null());
}

static void put_night_groups(struct jb *b, json_t *o, const struct night *n)
{
    json_t *groups = jb_child(b, o, "groups", json_object());

    jb_text(b, groups, "y", n->y);
    jb_text(b, groups, "x", n->x);
    jb_text(b, groups, "history", night_history_note);
    json_t *list = jb_child(b, groups, "changed", json_array());
    for (size_t i = 0; i < n->n_groups; i++) {
        const struct night_group *g = &n->groups[i];
        json_t *row = jb_item(b, list, json_object());
        jb_text(b, row, "group", g->group.id);
        jb_text(b, row, "name", g->group.name);
        jb_int(b, row, "jobs", g->group.jobs);
        jb_int(b, row, "jobs_added", g->jobs_added);
        json_t *assoc = jb_child(b, row, "associations", json_array());
        for (size_t k = 0; k < g->n_assoc; k++)
            put_night_assoc(b, assoc, &n->assoc[g->first_assoc + k]);
    }
}

/* The coverage: the raw intervals, or the buckets once analysis_night_buckets cut
 * them (every scope of a night is served, so filesystems[i] is scope i). */
static void put_night_coverage(struct jb *b, json_t *o, const struct night *n)
{
    struct coverage_answer a = n->coverage;

    a.buckets = n->coverage_buckets;
    jb_set(b, o, "coverage", n->has_coverage ? analysis_coverage_json(&a) : json_null());
}

json_t *analysis_night_json(const struct night *n)
{
    struct jb b = jb_object();
    json_t *o = b.root;
    char generated[40];

    jb_text(&b, o, "report", "night");
    put_time(&b, o, "from", n->from_s);
    put_time(&b, o, "to", n->to_s);
    time_format_rfc3339((int64_t)floor(n->generated_s), generated);
    jb_text(&b, o, "generated_at", generated);
    put_night_ingest(&b, o, n);
    put_night_quarantined(&b, o, n);
    put_night_groups(&b, o, n);
    jb_set(&b, o, "slowdowns",
           n->has_slowdowns ? analysis_slowdowns_json(&n->slowdowns) : json_null());
    put_night_coverage(&b, o, n);
    json_t *notes = jb_child(&b, o, "notes", json_object());
    if (!n->has_slowdowns)
        jb_text(&b, notes, "slowdowns", n->slowdowns_note);
    if (!n->has_coverage)
        jb_text(&b, notes, "coverage", n->coverage_note);
    return jb_finish(&b);
}
