/* assoc_object.c: the association object of INTERFACES.md from two arrays: the core
 * coefficients, the KDE credible bands, their significance and the random forest
 * (METHOD.md §5). */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

json_t *json_number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
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
static json_t *kde_points(const double *v, bool fitted)
{
    return fitted ? json_array_of_numbers(v, STATS_KDE_POINTS) : json_null();
}

void json_kde_bands(json_t *o, const struct kde_bands *b, bool fitted)
{
    json_object_set_new(o, "space", json_string(stats_kde_space_name(b->space)));
    json_object_set_new(o, "hx", json_number_or_null(b->h_x));
    json_object_set_new(o, "hy", json_number_or_null(b->h_y));
    json_object_set_new(o, "x_grid", kde_points(b->x_grid, fitted));
    json_object_set_new(o, "q05", kde_points(b->q05, fitted));
    json_object_set_new(o, "q50", kde_points(b->q50, fitted));
    json_object_set_new(o, "q95", kde_points(b->q95, fitted));
    json_object_set_new(o, "marg_q05", json_number_or_null(b->marg_q05));
    json_object_set_new(o, "marg_q95", json_number_or_null(b->marg_q95));
    json_object_set_new(o, "mean", json_number_or_null(b->mean));
    json_object_set_new(o, "sd", json_number_or_null(b->sd));
    json_object_set_new(o, "width_ratio", json_number_or_null(b->width_ratio));
    json_object_set_new(o, "paper_width_ratio",
                        json_number_or_null(b->paper_width_ratio));
}

json_t *json_excluded(const size_t counts[EXCL_COUNT])
{
    json_t *o = json_object();
    size_t total = 0;

    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++)
        total += counts[e];
    json_object_set_new(o, "total", json_integer((json_int_t)total));
    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++) {
        json_object_set_new(o, stats_exclusion_name((enum stats_exclusion)e),
                            json_integer((json_int_t)counts[e]));
    }
    return o;
}

json_t *json_array_of_numbers(const double *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, json_number_or_null(v[i]));
    return a;
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

static void put_coefficients(json_t *o, const struct stats_assoc *a)
{
    json_t *reasons = json_object();

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

/* METHOD.md §5: log when every value is positive (auto), else as asked. */
static const char *space_resolved(enum stats_kde_space s, const double *x,
                                  const double *y, size_t d)
{
    if (s != KDE_SPACE_AUTO)
        return stats_kde_space_name(s);
    for (size_t i = 0; i < d; i++) {
        if (!(x[i] > 0 && y[i] > 0))
            return "linear";
    }
    return d > 0 ? "log" : "linear";
}

/* "density": the 128 x 128 grid (a) in fitting space; values[i][j] is the density at
 * (x0 + i·dx, y0 + j·dy). */
static json_t *density_json(const struct stats_kde *k)
{
    json_t *o = json_object(), *rows = json_array();

    json_object_set_new(o, "x0", json_number_or_null(k->grid_x0));
    json_object_set_new(o, "dx", json_number_or_null(k->grid_dx));
    json_object_set_new(o, "y0", json_number_or_null(k->grid_y0));
    json_object_set_new(o, "dy", json_number_or_null(k->grid_dy));
    for (size_t i = 0; i < STATS_KDE_GRID; i++)
        json_array_append_new(rows, json_array_of_numbers(k->density[i], STATS_KDE_GRID));
    json_object_set_new(o, "values", rows);
    return o;
}

/* "kde" (METHOD.md §5 (a)–(d)): quantiles, bands and ratios in linear units, hx and
 * hy in fitting space; null with "reason" when nothing was fitted. */
static json_t *kde_json(const struct stats_kde *k, bool density)
{
    json_t *o = json_object();
    const bool fitted = k->reason == REASON_NONE;

    struct kde_bands b;

    kde_bands_of(k, &b);
    json_kde_bands(o, &b, fitted);
    json_object_set_new(o, "kernel",
                        json_string(k->kernel == KDE_KERNEL_FULL ? "full" : "product"));
    json_object_set_new(o, "bandwidth",
                        json_string(stats_kde_bandwidth_name(k->bandwidth)));
    json_object_set_new(o, "binned", json_boolean(fitted && k->binned));
    json_object_set_new(o, "band_low", json_number_or_null(k->band_low));
    json_object_set_new(o, "band_high", json_number_or_null(k->band_high));
    if (density)
        json_object_set_new(o, "density", fitted ? density_json(k) : json_null());
    if (!fitted)
        json_object_set_new(o, "reason", json_string(stats_reason_name(k->reason)));
    return o;
}

/* One coefficient's entry of "significance"; NULL when it was not asked. */
static json_t *signif_coef_json(const struct stats_signif_coef *c, bool with_ci)
{
    json_t *o;

    if (c->reason == REASON_NOT_COMPUTED)
        return NULL;
    o = json_object();
    json_object_set_new(o, "p_value", json_number_or_null(c->p_value));
    json_object_set_new(o, "noise_floor", json_number_or_null(c->noise_floor));
    json_object_set_new(o, "n_perm", json_integer((json_int_t)c->n_perm));
    if (with_ci) {
        json_object_set_new(o, "ci_low", json_number_or_null(c->ci_low));
        json_object_set_new(o, "ci_high", json_number_or_null(c->ci_high));
        json_object_set_new(o, "level", json_number_or_null(c->level));
    }
    if (c->reason != REASON_NONE)
        json_object_set_new(o, "reason", json_string(stats_reason_name(c->reason)));
    return o;
}

static void put_signif_coef(json_t *o, const char *name,
                            const struct stats_signif_coef *c, bool with_ci)
{
    json_t *e = signif_coef_json(c, with_ci);

    if (e != NULL)
        json_object_set_new(o, name, e);
}

/* "significance": the permutation test of every coefficient asked and of the KDE's
 * width_ratio (extra[0] when present), and the BCa CIs of Pearson and Spearman. */
static json_t *signif_json(const struct stats_signif *s, const struct assoc_opts *opts,
                           bool with_width_ratio)
{
    json_t *o = json_object();

    json_object_set_new(o, "seed", json_integer((json_int_t)s->seed));
    json_object_set_new(o, "permutations", json_integer((json_int_t)opts->n_perm));
    json_object_set_new(o, "resamples", json_integer((json_int_t)opts->n_boot));
    put_signif_coef(o, "pearson", &s->pearson, true);
    put_signif_coef(o, "spearman", &s->spearman, true);
    put_signif_coef(o, "dcor_v", &s->dcor_v, false);
    put_signif_coef(o, "mi_linfoot", &s->mi_linfoot, false);
    if (with_width_ratio)
        put_signif_coef(o, "width_ratio", &s->extra[0], false);
    return o;
}

/* The workspaces and results of one object, freed together. */
struct assoc_work {
    struct stats_ws *ws;
    struct stats_kde_ws *kde_ws;
    struct stats_kde *kde;      /* the fit on the data */
    struct stats_kde *kde_perm; /* the permutation test's scratch */
    struct stats_signif *signif;
    struct stats_rf_ws *rf_ws;
    struct stats_rf *rf;
    double rf_x_kde[STATS_KDE_POINTS];  /* the KDE's x points (linear units) */
    double rf_at_kde[STATS_KDE_POINTS]; /* the forest there */
    size_t rf_n_kde;                    /* 16, or 0 without a fitted KDE */
};

static void work_clear(struct assoc_work *w)
{
    stats_ws_free(w->ws);
    stats_kde_ws_free(w->kde_ws);
    free(w->kde);
    free(w->kde_perm);
    free(w->signif);
    stats_rf_ws_free(w->rf_ws);
    free(w->rf);
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
                           struct assoc_work *w, struct error *err)
{
    w->kde_ws = stats_kde_ws_new(d > 0 ? d : 1);
    w->kde = calloc(1, sizeof *w->kde);
    if (w->kde_ws == NULL || w->kde == NULL)
        return error_set(err, STATUS_NOMEM, "KDE workspace for d = %zu", d);
    const struct stats_kde_opts ko = kde_opts_of(opts, space);
    enum status rc = stats_kde_compute(x, y, d, &ko, w->kde_ws, w->kde, err);
    if (rc == STATUS_INVALID && space == KDE_SPACE_LOG && err != NULL &&
        err->parameter[0] == '\0')
        snprintf(err->parameter, sizeof err->parameter, "space");
    return rc;
}

static enum status test_significance(const double *x, const double *y, size_t d,
                                     const struct assoc_opts *opts, struct assoc_work *w,
                                     struct error *err)
{
    struct stats_signif_opts so = stats_signif_opts_default();
    struct stats_kde_stat_ctx ctx;
    struct stats_signif_stat width_ratio;

    so.assoc = (struct stats_assoc_opts){opts->methods, opts->d_min, opts->seed,
                                         opts->mi_jitter};
    so.n_perm = opts->n_perm;
    so.n_boot = opts->n_boot;
    so.seed = opts->seed;
    w->signif = malloc(sizeof *w->signif);
    if (w->signif == NULL)
        return error_set(err, STATUS_NOMEM, "significance");
    if (w->kde != NULL) {
        w->kde_perm = calloc(1, sizeof *w->kde_perm);
        if (w->kde_perm == NULL)
            return error_set(err, STATUS_NOMEM, "KDE scratch");
        /* The space the data were fitted in: permuting y keeps every value's sign. */
        ctx = (struct stats_kde_stat_ctx){kde_opts_of(opts, w->kde->space), w->kde_ws,
                                          w->kde_perm};
        width_ratio = (struct stats_signif_stat){"width_ratio",
                                                 stats_kde_width_ratio_stat, &ctx, 1.0};
        so.extra = &width_ratio;
        so.n_extra = 1;
    }
    return stats_signif_compute(x, y, d, &so, w->ws, w->signif, err);
}

/* The forest on raw x and y (METHOD.md §5 rf), also at the KDE's x points. */
static enum status fit_rf(const double *x, const double *y, size_t d,
                          const struct assoc_opts *opts, struct assoc_work *w,
                          struct error *err)
{
    struct stats_rf_opts ro = stats_rf_opts_default();
    const double *at = NULL;

    ro.n_trees = opts->rf_trees;
    ro.d_min = opts->d_min;
    ro.seed = opts->seed;
    w->rf_ws = stats_rf_ws_new(d > 0 ? d : 1);
    w->rf = calloc(1, sizeof *w->rf);
    if (w->rf_ws == NULL || w->rf == NULL)
        return error_set(err, STATUS_NOMEM, "forest workspace for d = %zu", d);
    if (w->kde != NULL && w->kde->reason == REASON_NONE) {
        memcpy(w->rf_x_kde, w->kde->x_grid, sizeof w->rf_x_kde);
        at = w->rf_x_kde;
        w->rf_n_kde = STATS_KDE_POINTS;
    }
    return stats_rf_compute(x, y, d, at, w->rf_n_kde, &ro, w->rf_ws, w->rf,
                            w->rf_n_kde > 0 ? w->rf_at_kde : NULL, err);
}

/* "rf": the fitted curve on 256 points, at the KDE's points, and the OOB R². */
static json_t *rf_json(const struct assoc_work *w)
{
    const struct stats_rf *f = w->rf;
    json_t *o = json_object();

    json_object_set_new(o, "trees", json_integer((json_int_t)f->trees));
    json_object_set_new(o, "seed", json_integer((json_int_t)f->seed));
    if (f->reason != REASON_NONE) {
        json_object_set_new(o, "oob_r2", json_null());
        json_object_set_new(o, "reason", json_string(stats_reason_name(f->reason)));
        return o;
    }
    json_object_set_new(o, "oob_r2", json_number_or_null(f->oob_r2));
    json_object_set_new(o, "n_oob", json_integer((json_int_t)f->n_oob));
    json_object_set_new(o, "x_grid", json_array_of_numbers(f->x_curve, STATS_RF_CURVE));
    json_object_set_new(o, "fit", json_array_of_numbers(f->fit_curve, STATS_RF_CURVE));
    if (w->rf_n_kde > 0) {
        json_object_set_new(o, "fit_at_kde_x",
                            json_array_of_numbers(w->rf_at_kde, w->rf_n_kde));
    }
    return o;
}

enum status assoc_object_fill(json_t *o, const double *x, const double *y, size_t d,
                              const struct assoc_opts *opts, struct error *err)
{
    struct assoc_work w = {0};
    struct stats_assoc a;
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
    rc = stats_assoc_compute(x, y, d, &ao, w.ws, &a, err);
    if (rc == STATUS_OK && opts->kde)
        rc = fit_kde(x, y, d, opts, space, &w, err);
    if (rc == STATUS_OK && opts->significance)
        rc = test_significance(x, y, d, opts, &w, err);
    if (rc == STATUS_OK && opts->rf)
        rc = fit_rf(x, y, d, opts, &w, err);
    if (rc != STATUS_OK)
        goto out;
    /* The top-level space is the KDE's fitting space (METHOD.md §5). */
    json_object_set_new(o, "space",
                        json_string(w.kde != NULL ? stats_kde_space_name(w.kde->space)
                                                  : space_resolved(space, x, y, d)));
    json_object_set_new(o, "d", json_integer((json_int_t)d));
    put_coefficients(o, &a);
    if (w.kde != NULL)
        json_object_set_new(o, "kde", kde_json(w.kde, opts->density));
    if (w.signif != NULL) {
        json_object_set_new(o, "significance",
                            signif_json(w.signif, opts, w.kde != NULL));
    }
    if (w.rf != NULL)
        json_object_set_new(o, "rf", rf_json(&w));
out:
    work_clear(&w);
    return rc;
}

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

/* An epoch time as RFC 3339 (whole seconds) and as *_ms: both keys into o, null
 * when the time is NAN (open). */
void analysis_json_set_time(json_t *o, const char *key, double epoch_s)
{
    char text[40], key_ms[64];

    snprintf(key_ms, sizeof key_ms, "%s_ms", key);
    if (!isfinite(epoch_s)) {
        json_object_set_new(o, key, json_null());
        json_object_set_new(o, key_ms, json_null());
        return;
    }
    time_format_rfc3339((int64_t)floor(epoch_s), text);
    json_object_set_new(o, key, json_string(text));
    json_object_set_new(o, key_ms, json_integer((json_int_t)llround(epoch_s * 1000.0)));
}

/* v[i] / max for plotting (Fig. 13), null where v[i] is absent. */
static json_t *scaled(const double *v, size_t n, double max)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, json_number_or_null(max > 0 ? v[i] / max : v[i]));
    return a;
}

json_t *analysis_coverage_json(const struct db_coverage *c,
                               const struct db_coverage_series *s)
{
    json_t *o = json_object(), *range = json_object(), *ends = json_array();
    struct coverage_range r;

    analysis_coverage_range(s, &r);
    for (size_t i = 0; i < s->n; i++) {
        json_array_append_new(ends,
                              json_integer((json_int_t)llround(s->end_s[i] * 1000)));
    }
    json_object_set_new(
        o, "fs", analysis_json_text(strcmp(c->scope, "all") == 0 ? "all" : c->scope + 3));
    json_object_set_new(o, "scope", analysis_json_text(c->scope));
    json_object_set_new(o, "granularity_s", json_real(c->granularity_s));
    json_object_set_new(o, "coverage", json_number_or_null(c->coverage));
    json_object_set_new(o, "sum_d_bytes", json_real(c->sum_d_bytes));
    json_object_set_new(o, "sum_s_bytes", json_real(c->sum_s_bytes));
    json_object_set_new(o, "intervals", json_integer((json_int_t)c->intervals));
    json_object_set_new(o, "d_total_bytes", json_real(c->d_total_bytes));
    analysis_json_set_time(o, "log_start", c->log_start_s);
    analysis_json_set_time(o, "log_end", c->log_end_s);
    json_object_set_new(o, "computed_at",
                        c->computed_at[0] != '\0' ? analysis_json_text(c->computed_at)
                                                  : json_null());
    /* The same sums over the intervals served: the coverage of the range asked. */
    json_object_set_new(range, "coverage",
                        r.sum_s_bytes > 0 ? json_real(r.sum_d_bytes / r.sum_s_bytes)
                                          : json_null());
    json_object_set_new(range, "sum_d_bytes", json_real(r.sum_d_bytes));
    json_object_set_new(range, "sum_s_bytes", json_real(r.sum_s_bytes));
    json_object_set_new(range, "intervals", json_integer((json_int_t)r.intervals));
    json_object_set_new(o, "range", range);
    json_object_set_new(o, "max_d_bytes", json_real(r.max_d_bytes));
    json_object_set_new(o, "max_s_bytes", json_real(r.max_s_bytes));
    json_object_set_new(o, "end_ms", ends);
    json_object_set_new(o, "d", scaled(s->d_bytes, s->n, r.max_d_bytes));
    json_object_set_new(o, "s", scaled(s->s_bytes, s->n, r.max_s_bytes));
    return o;
}
