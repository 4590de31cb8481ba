/* signif.c: permutation p-values, noise floors and BCa intervals of the associations
 * (docs/method.md §5 "Significance"), and the jackknife they need. */
#include "internal.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdlib.h>

/* |T* − c| >= |T − c| within this relative margin: a permutation that gives the same
 * value up to rounding (Spearman's r takes few values at small d) is a tie, as
 * scipy.stats.permutation_test does with its 1e-14. */
#define TIE_REL 1e-12
/* A job whose removal leaves less than this share of a centred sum of squares is
 * recomputed directly: downdating would cancel (at most one job per variable). */
#define DOWNDATE_MIN 1e-3
/* The core coefficients with a p-value, in struct stats_signif's order. */
#define N_CORE 4
#define N_SLOT (N_CORE + STATS_SIGNIF_EXTRA_MAX)

struct stats_signif_opts stats_signif_opts_default(void)
{
    struct stats_signif_opts o = {
        .assoc = {.methods = stats_methods_available(),
                  .d_min = 10,
                  .seed = STATS_DEFAULT_SEED,
                  .mi_jitter = true},
        .n_perm = 999,
        .n_boot = 2000,
        .level = 0.95,
        .floor_q = 0.95,
        .seed = STATS_DEFAULT_SEED,
        .extra = NULL,
        .n_extra = 0,
    };
    return o;
}

/* ---- the jackknife ------------------------------------------------------------ */

/* Pearson's r of the jobs other than k, by two centred passes. */
static double pearson_without(const double *x, const double *y, size_t d, size_t k)
{
    double mx = 0.0, my = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0, n = (double)(d - 1);

    for (size_t i = 0; i < d; i++) {
        if (i != k) {
            mx += x[i];
            my += y[i];
        }
    }
    mx /= n;
    my /= n;
    for (size_t i = 0; i < d; i++) {
        if (i == k)
            continue;
        double dx = x[i] - mx, dy = y[i] - my;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    if (!(sxx > 0.0) || !(syy > 0.0))
        return NAN;
    return fmax(-1.0, fmin(1.0, sxy / (sqrt(sxx) * sqrt(syy))));
}

/* Leave-one-out Pearson in O(d). With deviations a_i, b_i from any reference point,
 * the sums without job k are S'ab = (Σab − a_k·b_k) − (Σa − a_k)(Σb − b_k)/(d − 1):
 * exact algebra, so the reference (the mean) need not be exact. */
static void jackknife_pearson(const double *x, const double *y, size_t d, double *loo)
{
    double mx = 0.0, my = 0.0, sa = 0.0, sb = 0.0, qaa = 0.0, qbb = 0.0, qab = 0.0;
    const double n1 = (double)(d - 1);

    for (size_t i = 0; i < d; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)d;
    my /= (double)d;
    for (size_t i = 0; i < d; i++) {
        double a = x[i] - mx, b = y[i] - my;
        sa += a;
        sb += b;
        qaa += a * a;
        qbb += b * b;
        qab += a * b;
    }
    const double sxx = qaa - sa * sa / (double)d, syy = qbb - sb * sb / (double)d;
    for (size_t k = 0; k < d; k++) {
        double a = x[k] - mx, b = y[k] - my;
        double saa = (qaa - a * a) - (sa - a) * (sa - a) / n1;
        double sbb = (qbb - b * b) - (sb - b) * (sb - b) / n1;
        double sab = (qab - a * b) - (sa - a) * (sb - b) / n1;
        if (saa < DOWNDATE_MIN * sxx || sbb < DOWNDATE_MIN * syy) {
            loo[k] = pearson_without(x, y, d, k);
            continue;
        }
        loo[k] = fmax(-1.0, fmin(1.0, sab / (sqrt(saa) * sqrt(sbb))));
    }
}

/* Fenwick tree over positions 1..m stored at t[0..m−1]. */
static void fenwick_add(size_t *t, size_t m, size_t pos)
{
    for (size_t i = pos; i <= m; i += i & (~i + 1))
        t[i - 1]++;
}

/* How many added positions are <= pos. */
static size_t fenwick_count(const size_t *t, size_t pos)
{
    size_t s = 0;

    for (size_t i = pos; i > 0; i &= i - 1)
        s += t[i - 1];
    return s;
}

/* One sweep over the x tie groups (ascending, or descending when !up) adding to
 * acc[k] a quarter of Σ_j sign(x_j − x_k)·sign(y_j − y_k) over the jobs j on the
 * side already swept, read from a Fenwick tree of their dense y ranks yr (1..m). */
static void concordance_sweep(const double *x, const size_t *order, const size_t *yr,
                              size_t d, size_t m, bool up, size_t *tree, double *acc)
{
    size_t seen = 0;

    for (size_t i = 0; i < m; i++)
        tree[i] = 0;
    for (size_t g = 0; g < d;) {
        size_t e = g;
        const size_t first = up ? order[g] : order[d - 1 - g];
        while (e < d && x[up ? order[e] : order[d - 1 - e]] == x[first])
            e++;
        for (size_t i = g; i < e; i++) {
            const size_t k = up ? order[i] : order[d - 1 - i];
            const double below = (double)fenwick_count(tree, yr[k] - 1);
            const double above = (double)(seen - fenwick_count(tree, yr[k]));
            /* Swept jobs have x below x_k going up (sign −1), above going down. */
            acc[k] += 0.25 * (up ? below - above : above - below);
        }
        for (size_t i = g; i < e; i++)
            fenwick_add(tree, m, yr[up ? order[i] : order[d - 1 - i]]);
        seen += e - g;
        g = e;
    }
}

/* For each job k, over the tie groups of v in sort order: sq[k] = Σ_{j≠k} u'_j² and
 * cross[k] −= ½·Σ_j sign(v_j − v_k)·w_j, where u is v's centred ranks and
 * u'_j = u_j − sign(v_j − v_k)/2 its centred ranks without job k. Sets yr (if not
 * NULL) to the dense ranks 1..m of v and returns m. */
static size_t rank_shifts(const double *v, const size_t *order, const double *u,
                          const double *w, size_t d, double uu, double *sq, double *cross,
                          size_t *yr)
{
    double u_below = 0.0, w_below = 0.0, u_all = 0.0, w_all = 0.0;
    size_t m = 0;

    for (size_t i = 0; i < d; i++) {
        u_all += u[i];
        w_all += w[i];
    }
    for (size_t g = 0; g < d;) {
        size_t e = g;
        double u_tie = 0.0, w_tie = 0.0;
        while (e < d && v[order[e]] == v[order[g]]) {
            u_tie += u[order[e]];
            w_tie += w[order[e]];
            e++;
        }
        m++;
        const double u_sign = (u_all - u_below - u_tie) - u_below;
        const double w_sign = (w_all - w_below - w_tie) - w_below;
        const double others = (double)(d - (e - g)); /* jobs with sign ±1 */
        for (size_t i = g; i < e; i++) {
            const size_t k = order[i];
            sq[k] = uu - u[k] * u[k] - u_sign + 0.25 * others;
            cross[k] -= 0.5 * w_sign;
            if (yr != NULL)
                yr[k] = m;
        }
        u_below += u_tie;
        w_below += w_tie;
        g = e;
    }
    return m;
}

/* Leave-one-out Spearman in O(d log d). Without job k the average ranks of the
 * others, centred on their new mean d/2, are u'_j = u_j − sign(x_j − x_k)/2 with u
 * the centred full ranks (a job above k moves down one place, a tie half of one), so
 * Σu'v' = Σ_{j≠k} u_j·v_j − ½Σ sx_j·v_j − ½Σ sy_j·u_j + ¼Σ sx_j·sy_j: prefix sums
 * over the tie groups and, for the last term, each job's concordant minus discordant
 * count. Ranks are multiples of ½, so every sum is exact up to d ≈ 10^5. */
static void jackknife_spearman(const double *x, const double *y, size_t d,
                               struct stats_ws *ws, double *loo)
{
    double *u = ws->rx, *v = ws->ry, *sxx = ws->dtmp[0], *syy = ws->dtmp[1];
    size_t *yr = ws->itmp[0], *tree = ws->itmp[1];
    const double mid = 0.5 * (double)(d + 1);
    double uu = 0.0, vv = 0.0, uv = 0.0;

    stats_average_ranks(stats_argsort(ws, x, d, ws->order), ws->order, d, u);
    stats_average_ranks(stats_argsort(ws, y, d, ws->order_y), ws->order_y, d, v);
    for (size_t i = 0; i < d; i++) {
        u[i] -= mid;
        v[i] -= mid;
        uu += u[i] * u[i];
        vv += v[i] * v[i];
        uv += u[i] * v[i];
    }
    for (size_t k = 0; k < d; k++)
        loo[k] = uv - u[k] * v[k];
    (void)rank_shifts(x, ws->order, u, v, d, uu, sxx, loo, NULL);
    const size_t m = rank_shifts(y, ws->order_y, v, u, d, vv, syy, loo, yr);
    concordance_sweep(x, ws->order, yr, d, m, true, tree, loo);
    concordance_sweep(x, ws->order, yr, d, m, false, tree, loo);
    for (size_t k = 0; k < d; k++) {
        if (sxx[k] > 0.0 && syy[k] > 0.0) {
            loo[k] = fmax(-1.0, fmin(1.0, loo[k] / (sqrt(sxx[k]) * sqrt(syy[k]))));
        } else {
            loo[k] = NAN;
        }
    }
}

enum status stats_jackknife(const double *x, const double *y, size_t d,
                            struct stats_ws *ws, double *pearson_loo,
                            double *spearman_loo, struct error *err)
{
    if (x == NULL || y == NULL || pearson_loo == NULL || spearman_loo == NULL)
        return error_set(err, STATUS_INVALID, "missing x, y or output");
    if (d < 3)
        return error_set(err, STATUS_INVALID, "needs d >= 3, got %zu", d);
    if (ws == NULL || d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "workspace for %zu jobs, got %zu",
                         ws == NULL ? 0 : ws->d_max, d);
    }
    for (size_t i = 0; i < d; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return error_set(err, STATUS_INVALID, "nonfinite x or y");
    }
    if (stats_all_equal(x, d))
        return error_set(err, STATUS_INVALID, "constant_x");
    if (stats_all_equal(y, d))
        return error_set(err, STATUS_INVALID, "constant_y");
    jackknife_pearson(x, y, d, pearson_loo);
    jackknife_spearman(x, y, d, ws, spearman_loo);
    return STATUS_OK;
}

/* ---- permutations and the bootstrap ------------------------------------------- */

/* A statistic under test: a core coefficient (index < N_CORE) or an extra. */
struct slot {
    struct stats_signif_coef *out;
    const struct stats_signif_stat *extra; /* NULL for a core coefficient */
    size_t core;                           /* 0 pearson … 3 mi_linfoot */
    double centre;
    double *t; /* the n_perm permuted values, NAN where undefined */
};

static struct stats_coef core_coef(const struct stats_assoc *a, size_t core)
{
    switch (core) {
    case 0: return a->pearson;
    case 1: return a->spearman;
    case 2: return a->dcor_v;
    default: return a->mi_linfoot;
    }
}

static struct stats_signif_coef *core_out(struct stats_signif *out, size_t core)
{
    switch (core) {
    case 0: return &out->pearson;
    case 1: return &out->spearman;
    case 2: return &out->dcor_v;
    default: return &out->mi_linfoot;
    }
}

static const unsigned core_method[N_CORE] = {METHOD_PEARSON, METHOD_SPEARMAN, METHOD_DCOR,
                                             METHOD_MI};

/* Moves the finite values of v to its front, ascending; returns how many. */
static size_t sort_finite(double *v, size_t n)
{
    size_t kept = 0;

    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]))
            v[kept++] = v[i];
    }
    gsl_sort(v, 1, kept);
    return kept;
}

/* p-value and noise floor of one slot from its permuted values. */
static void permutation_summary(struct slot *s, size_t n_perm, double floor_q)
{
    const double obs = fabs(s->out->value - s->centre);
    const double bar = obs - TIE_REL * obs;
    size_t hits = 0, n = 0;

    for (size_t b = 0; b < n_perm; b++) {
        if (!isfinite(s->t[b]))
            continue;
        s->t[b] = fabs(s->t[b] - s->centre);
        n++;
        if (s->t[b] >= bar)
            hits++;
    }
    n = sort_finite(s->t, n_perm);
    s->out->n_perm = n;
    s->out->p_value = (double)(1 + hits) / (double)(n + 1);
    s->out->noise_floor =
        n > 0 ? gsl_stats_quantile_from_sorted_data(s->t, 1, n, floor_q) : (double)NAN;
}

/* The BCa interval (Efron 1987; Efron & Tibshirani 1993, §14.3: z0, the jackknife
 * acceleration a = Σu³ / (6·(Σu²)^(3/2)) with u = mean − loo, and the adjusted
 * levels) of theta from its n_boot resampled values boot (reordered) and the d
 * leave-one-out values loo. */
static void bca_interval(double theta, double *boot, size_t n_boot, const double *loo,
                         size_t d, double level, struct stats_signif_coef *out)
{
    size_t below = 0, ties = 0, n_loo = 0;
    double mean = 0.0, s2 = 0.0, s3 = 0.0, a = 0.0;
    const size_t n = sort_finite(boot, n_boot);

    out->n_boot = n;
    if (n < 2)
        return;
    for (size_t b = 0; b < n; b++) {
        below += boot[b] < theta;
        ties += boot[b] == theta;
    }
    /* scipy.stats.bootstrap's share: ties count half. All on one side: no z0. */
    const double share = ((double)below + 0.5 * (double)ties) / (double)n;
    if (!(share > 0.0 && share < 1.0))
        return;
    const double z0 = gsl_cdf_ugaussian_Pinv(share);
    for (size_t k = 0; k < d; k++) {
        if (isfinite(loo[k])) {
            mean += loo[k];
            n_loo++;
        }
    }
    mean /= (double)(n_loo > 0 ? n_loo : 1);
    for (size_t k = 0; k < d; k++) {
        if (isfinite(loo[k])) {
            const double u = mean - loo[k];
            s2 += u * u;
            s3 += u * u * u;
        }
    }
    if (s2 > 0.0)
        a = s3 / (6.0 * pow(s2, 1.5));
    const double z = gsl_cdf_ugaussian_Pinv(0.5 * (1.0 - level));
    const double lo = z0 + z, hi = z0 - z;
    const double q_lo = gsl_cdf_ugaussian_P(z0 + lo / (1.0 - a * lo));
    const double q_hi = gsl_cdf_ugaussian_P(z0 + hi / (1.0 - a * hi));
    if (!isfinite(q_lo) || !isfinite(q_hi))
        return;
    out->ci_low = gsl_stats_quantile_from_sorted_data(boot, 1, n, q_lo);
    out->ci_high = gsl_stats_quantile_from_sorted_data(boot, 1, n, q_hi);
    out->level = level;
}

static enum status check_opts(const struct stats_signif_opts *opts, size_t d,
                              const struct stats_ws *ws, struct error *err)
{
    if (ws == NULL || d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "workspace for %zu jobs, got %zu",
                         ws == NULL ? 0 : ws->d_max, d);
    }
    if (opts->n_extra > STATS_SIGNIF_EXTRA_MAX || (opts->n_extra > 0 && !opts->extra)) {
        return error_set(err, STATUS_INVALID, "at most %d extra statistics, got %zu",
                         STATS_SIGNIF_EXTRA_MAX, opts->n_extra);
    }
    for (size_t i = 0; i < opts->n_extra; i++) {
        if (opts->extra[i].fn == NULL || !isfinite(opts->extra[i].centre)) {
            return error_set(err, STATUS_INVALID, "extra statistic %zu: no fn or centre",
                             i);
        }
    }
    if (!(opts->level > 0.0 && opts->level < 1.0))
        return error_set(err, STATUS_INVALID, "level %g outside (0, 1)", opts->level);
    if (!(opts->floor_q >= 0.0 && opts->floor_q <= 1.0))
        return error_set(err, STATUS_INVALID, "floor_q %g outside [0, 1]", opts->floor_q);
    if (opts->n_perm > STATS_SIGNIF_B_MAX || opts->n_boot > STATS_SIGNIF_B_MAX) {
        return error_set(err, STATUS_INVALID, "n_perm %zu or n_boot %zu above %u",
                         opts->n_perm, opts->n_boot, STATS_SIGNIF_B_MAX);
    }
    return STATUS_OK;
}

/* Why every coefficient of the group is undefined, as stats_assoc_compute says it. */
static enum stats_reason group_reason(const double *x, const double *y, size_t d,
                                      size_t d_min)
{
    if (d < d_min || d < 2)
        return REASON_D_BELOW_MIN;
    if (stats_all_equal(x, d))
        return REASON_CONSTANT_X;
    if (stats_all_equal(y, d))
        return REASON_CONSTANT_Y;
    return REASON_NONE;
}

/* The permuted values of every slot: one shuffle of yp per permutation. */
static enum status permute(const double *x, size_t d, double *yp,
                           const struct stats_signif_opts *opts, unsigned methods,
                           struct slot *slots, size_t n_slots, gsl_rng *rng,
                           struct stats_ws *ws, struct error *err)
{
    struct stats_assoc_opts ao = opts->assoc;
    struct stats_assoc a = {.d = d};
    enum status rc;

    ao.methods = methods;
    gsl_rng_set(rng, (unsigned long)opts->seed);
    for (size_t b = 0; b < opts->n_perm; b++) {
        if (stats_cancel_asked(opts->cancel)) {
            return error_set(err, STATUS_CANCELLED,
                             "significance cancelled after %zu of %zu permutations", b,
                             opts->n_perm);
        }
        gsl_ran_shuffle(rng, yp, d, sizeof *yp);
        if (methods != 0) {
            rc = stats_assoc_compute(x, yp, d, &ao, ws, &a, err);
            if (rc != STATUS_OK)
                return rc;
        }
        for (size_t s = 0; s < n_slots; s++) {
            struct stats_coef c = {NAN, REASON_NOT_COMPUTED};
            if (slots[s].extra != NULL) {
                rc = slots[s].extra->fn(x, yp, d, slots[s].extra->ctx, &c, err);
                if (rc != STATUS_OK)
                    return rc;
            } else {
                c = core_coef(&a, slots[s].core);
            }
            slots[s].t[b] = c.reason == REASON_NONE ? c.value : (double)NAN;
        }
    }
    return STATUS_OK;
}

/* n_boot pair resamples of Pearson and Spearman (those in methods) into bp, bs. */
static enum status resample(const double *x, const double *y, size_t d,
                            const struct stats_signif_opts *opts, unsigned methods,
                            double *xb, double *yb, double *bp, double *bs, gsl_rng *rng,
                            struct stats_ws *ws, struct error *err)
{
    struct stats_assoc_opts ao = opts->assoc;
    struct stats_assoc a;

    ao.methods = methods;
    gsl_rng_set(rng, (unsigned long)opts->seed);
    for (size_t b = 0; b < opts->n_boot; b++) {
        if (stats_cancel_asked(opts->cancel)) {
            return error_set(err, STATUS_CANCELLED,
                             "significance cancelled after %zu of %zu resamples", b,
                             opts->n_boot);
        }
        for (size_t i = 0; i < d; i++) {
            const size_t j = gsl_rng_uniform_int(rng, d);
            xb[i] = x[j];
            yb[i] = y[j];
        }
        enum status rc = stats_assoc_compute(xb, yb, d, &ao, ws, &a, err);
        if (rc != STATUS_OK)
            return rc;
        bp[b] = a.pearson.reason == REASON_NONE ? a.pearson.value : (double)NAN;
        bs[b] = a.spearman.reason == REASON_NONE ? a.spearman.value : (double)NAN;
    }
    return STATUS_OK;
}

enum status stats_signif_compute(const double *x, const double *y, size_t d,
                                 const struct stats_signif_opts *opts,
                                 struct stats_ws *ws, struct stats_signif *out,
                                 struct error *err)
{
    const struct stats_signif_coef none = {.value = NAN,
                                           .reason = REASON_NOT_COMPUTED,
                                           .p_value = NAN,
                                           .noise_floor = NAN,
                                           .ci_low = NAN,
                                           .ci_high = NAN,
                                           .level = NAN};
    struct slot slots[N_SLOT];
    struct stats_assoc obs;
    size_t n_slots = 0;
    unsigned perm_methods = 0, boot_methods = 0;
    double *block = NULL;
    gsl_rng *rng = NULL;
    enum status rc;

    if (out == NULL || opts == NULL)
        return error_set(err, STATUS_INVALID, "no output or no options");
    out->d = d;
    out->seed = opts->seed;
    out->pearson = out->spearman = out->dcor_v = out->mi_linfoot = none;
    for (size_t i = 0; i < STATS_SIGNIF_EXTRA_MAX; i++)
        out->extra[i] = none;
    rc = check_opts(opts, d, ws, err);
    if (rc != STATUS_OK)
        return rc;
    rc = stats_assoc_compute(x, y, d, &opts->assoc, ws, &obs, err);
    if (rc != STATUS_OK)
        return rc;

    /* The observed values; only the defined ones are permuted. */
    for (size_t c = 0; c < N_CORE; c++) {
        if (!(opts->assoc.methods & core_method[c]))
            continue;
        const struct stats_coef t = core_coef(&obs, c);
        struct stats_signif_coef *o = core_out(out, c);
        o->value = t.value;
        o->reason = t.reason;
        if (t.reason == REASON_NONE) {
            slots[n_slots++] = (struct slot){o, NULL, c, 0.0, NULL};
            perm_methods |= core_method[c];
            if (c < 2)
                boot_methods |= core_method[c];
        }
    }
    const enum stats_reason group = group_reason(x, y, d, opts->assoc.d_min);
    for (size_t i = 0; i < opts->n_extra; i++) {
        const struct stats_signif_stat *e = &opts->extra[i];
        struct stats_coef t = {NAN, group};
        if (group == REASON_NONE) {
            rc = e->fn(x, y, d, e->ctx, &t, err);
            if (rc != STATUS_OK)
                return rc;
        }
        out->extra[i].value = t.reason == REASON_NONE ? t.value : (double)NAN;
        out->extra[i].reason = t.reason;
        if (t.reason == REASON_NONE)
            slots[n_slots++] = (struct slot){&out->extra[i], e, 0, e->centre, NULL};
    }
    if (d < 3 || opts->n_boot == 0)
        boot_methods = 0;
    const size_t n_perm = n_slots > 0 ? opts->n_perm : 0;
    const size_t n_boot = boot_methods != 0 ? opts->n_boot : 0;
    if (n_perm == 0 && n_boot == 0)
        return STATUS_OK;

    /* Everything the loops use, once: y's copy, the permuted values, the resampled
     * pairs and values, the leave-one-out values. */
    const size_t n_block =
        (n_perm > 0 ? d + n_slots * n_perm : 0) + (n_boot > 0 ? 4 * d + 2 * n_boot : 0);
    block = malloc(n_block * sizeof *block);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (block == NULL || rng == NULL) {
        rc = error_set(err, STATUS_NOMEM, "significance scratch for d = %zu", d);
        goto out;
    }
    double *next = block;
    if (n_perm > 0) {
        double *yp = next;
        next += d;
        for (size_t i = 0; i < d; i++)
            yp[i] = y[i];
        for (size_t s = 0; s < n_slots; s++, next += n_perm)
            slots[s].t = next;
        rc = permute(x, d, yp, opts, perm_methods, slots, n_slots, rng, ws, err);
        if (rc != STATUS_OK)
            goto out;
        for (size_t s = 0; s < n_slots; s++)
            permutation_summary(&slots[s], n_perm, opts->floor_q);
    }
    if (n_boot > 0) {
        double *xb = next, *yb = next + d, *jp = next + 2 * d, *js = next + 3 * d;
        double *bp = next + 4 * d, *bs = bp + n_boot;
        rc = stats_jackknife(x, y, d, ws, jp, js, err);
        if (rc == STATUS_OK)
            rc = resample(x, y, d, opts, boot_methods, xb, yb, bp, bs, rng, ws, err);
        if (rc != STATUS_OK)
            goto out;
        if (boot_methods & METHOD_PEARSON) {
            bca_interval(out->pearson.value, bp, n_boot, jp, d, opts->level,
                         &out->pearson);
        }
        if (boot_methods & METHOD_SPEARMAN) {
            bca_interval(out->spearman.value, bs, n_boot, js, d, opts->level,
                         &out->spearman);
        }
    }
out:
    free(block);
    if (rng != NULL)
        gsl_rng_free(rng);
    return rc;
}
