/* rf.c: the random forest of docs/method.md §5 `rf` (scikit-learn's RandomForestRegressor
 * on one feature), its fitted curve and its out-of-bag R².
 *
 * With one feature every node of a tree holds a contiguous run of the x-sorted jobs,
 * so x is sorted once per call and a tree never sorts: its bootstrap sample is a
 * count per sorted position, the positions it drew collapse into "bins" (one per
 * distinct x, weight = the draws, y = their weighted mean), and a node is a range of
 * bins whose best split is one scan of prefix sums. A grown tree is a step function
 * of x: its leaves in x order and the thresholds between them. Trees are grown depth
 * first, left child first, so leaves come out in x order and the tree is used (the
 * curve, the caller's points, the out-of-bag jobs) and dropped before the next one:
 * memory is O(d) whatever the number of trees.
 *
 * Numerics. The squared-error gain of splitting a node of weight W and y-sum S into
 * (W_L, S_L) and the rest is S_L²/W_L + S_R²/W_R − S²/W, sklearn's "proxy" written
 * as raw sums: with y of 1e15 and a spread of 1 it cancels to nothing. Here every
 * node measures y from a reference near its own mean (its parent's estimate of it;
 * y's mean for the root): a first pass gives the node's offset δ from the reference,
 * and the scan compares (S_L − W_L·δ)² / (W_L·W_R), the same gain times W, with every
 * term of the size of the node's own spread, whatever the offset of y and whatever
 * the spread elsewhere (y of 1e-12 beside y of 1e6 split as finely as alone). Weights
 * are counts, exact in double. y is not centred globally (that would round such small
 * values away) but scaled by a power of two, exactly. Predictions are summed as
 * differences from the y of a job next to the point (a job's own y out of bag), and
 * that y added back at the end. */
#include "internal.h"

#include <gsl/gsl_rng.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NC STATS_RF_CURVE

/* A node waiting on the growing stack. */
struct rf_node {
    size_t lo, hi;     /* its bins [lo, hi) */
    double ref;        /* a y near the node's mean: where its sums start */
    double thr_before; /* the threshold left of its first leaf (none for leaf 0) */
};

struct stats_rf_ws {
    size_t d_max;          /* jobs the arrays hold */
    struct stats_ws sort;  /* stats_argsort's arrays only (see stats_rf_ws_new) */
    size_t *order;         /* the sort permutation of x */
    double *xs, *ys;       /* x sorted, y·2^−e in the same order */
    double curve_ref[NC];  /* ys at the curve's points: where their sums start */
    size_t *group;         /* first sorted position of each distinct x, and d */
    uint32_t *count;       /* one tree's draws per sorted position */
    double *bx, *bw, *by;  /* one tree's bins: x, draws, weighted mean of ys */
    unsigned char *bmixed; /* 1: the bin's drawn y differ (ties in x) */
    double *thr, *val;     /* one tree: thresholds between leaves, leaf values */
    struct rf_node *stack; /* d_max + 1: the deepest tree has d_max levels */
    double *oob_dev;       /* Σ (prediction − y) over the trees without the job */
    uint32_t *oob_n;       /* how many trees those are */
    gsl_rng *rng;          /* the bootstrap draws, reseeded on every call */
};

struct stats_rf_opts stats_rf_opts_default(void)
{
    struct stats_rf_opts o = {
        .n_trees = STATS_RF_TREES, .d_min = STATS_RF_D_MIN, .seed = STATS_DEFAULT_SEED};
    return o;
}

struct stats_rf_ws *stats_rf_ws_new(size_t d_max)
{
    struct stats_rf_ws *ws;
    const size_t n = d_max > 0 ? d_max : 1;

    if (d_max > UINT32_MAX)
        return NULL;
    ws = calloc(1, sizeof *ws);
    if (ws == NULL)
        return NULL;
    ws->d_max = d_max;
    /* stats_argsort uses d_max, key, key_tmp, idx_tmp and hist of a struct stats_ws
     * (internal.h: "owned by stats_argsort"); a whole stats_ws_new would bring ten
     * more arrays of d_max that the forest never touches. */
    ws->sort.d_max = d_max;
    ws->sort.key = malloc(n * sizeof *ws->sort.key);
    ws->sort.key_tmp = malloc(n * sizeof *ws->sort.key_tmp);
    ws->sort.idx_tmp = malloc(n * sizeof *ws->sort.idx_tmp);
    ws->sort.hist =
        malloc(((size_t)STATS_SORT_PASSES << STATS_SORT_BITS) * sizeof *ws->sort.hist);
    ws->order = malloc(n * sizeof *ws->order);
    ws->xs = malloc(n * sizeof *ws->xs);
    ws->ys = malloc(n * sizeof *ws->ys);
    ws->group = malloc((n + 1) * sizeof *ws->group);
    ws->count = malloc(n * sizeof *ws->count);
    ws->bx = malloc(n * sizeof *ws->bx);
    ws->bw = malloc(n * sizeof *ws->bw);
    ws->by = malloc(n * sizeof *ws->by);
    ws->bmixed = malloc(n * sizeof *ws->bmixed);
    ws->thr = malloc(n * sizeof *ws->thr);
    ws->val = malloc(n * sizeof *ws->val);
    ws->stack = malloc((n + 1) * sizeof *ws->stack);
    ws->oob_dev = malloc(n * sizeof *ws->oob_dev);
    ws->oob_n = malloc(n * sizeof *ws->oob_n);
    ws->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (ws->sort.key == NULL || ws->sort.key_tmp == NULL || ws->sort.idx_tmp == NULL ||
        ws->sort.hist == NULL || ws->order == NULL || ws->xs == NULL || ws->ys == NULL ||
        ws->group == NULL || ws->count == NULL || ws->bx == NULL || ws->bw == NULL ||
        ws->by == NULL || ws->bmixed == NULL || ws->thr == NULL || ws->val == NULL ||
        ws->stack == NULL || ws->oob_dev == NULL || ws->oob_n == NULL ||
        ws->rng == NULL) {
        stats_rf_ws_free(ws);
        return NULL;
    }
    return ws;
}

void stats_rf_ws_free(struct stats_rf_ws *ws)
{
    if (ws == NULL)
        return;
    free(ws->sort.key);
    free(ws->sort.key_tmp);
    free(ws->sort.idx_tmp);
    free(ws->sort.hist);
    free(ws->order);
    free(ws->xs);
    free(ws->ys);
    free(ws->group);
    free(ws->count);
    free(ws->bx);
    free(ws->bw);
    free(ws->by);
    free(ws->bmixed);
    free(ws->thr);
    free(ws->val);
    free(ws->stack);
    free(ws->oob_dev);
    free(ws->oob_n);
    if (ws->rng != NULL)
        gsl_rng_free(ws->rng);
    free(ws);
}

/* ---- once per call ------------------------------------------------------------- */

/* numpy.percentile(v, 100·q) of the sorted v ("linear", type 7), with numpy's
 * virtual index (d − 1)·q and its _lerp, which rounds towards the nearer end. */
static double percentile_sorted(const double *v, size_t d, double q)
{
    const double h = (double)(d - 1) * q;
    const size_t k = (size_t)h;
    const double t = h - (double)k;
    const double lo = v[k], hi = k + 1 < d ? v[k + 1] : lo;

    return t < 0.5 ? lo + (hi - lo) * t : hi - (hi - lo) * (1.0 - t);
}

/* numpy.linspace(lo, hi, NC): j·step + lo, the last point hi itself. */
static void linspace(double lo, double hi, double *x)
{
    const double step = (hi - lo) / (double)(NC - 1);

    for (size_t j = 0; j < NC; j++)
        x[j] = (double)j * step + lo;
    x[NC - 1] = hi;
}

/* Sorts the jobs by x into ws (xs, and ys = y / y_scale, a power of two: exact, and
 * every sum of the splits then stays far from overflow) and finds the runs of equal
 * x; returns how many there are. */
static size_t sort_jobs(const double *x, const double *y, size_t d, double y_scale,
                        struct stats_rf_ws *ws)
{
    size_t g = 0;

    stats_argsort(&ws->sort, x, d, ws->order);
    for (size_t p = 0; p < d; p++) {
        ws->xs[p] = x[ws->order[p]];
        ws->ys[p] = y[ws->order[p]] / y_scale;
        if (p == 0 || ws->xs[p] != ws->xs[p - 1])
            ws->group[g++] = p;
    }
    ws->group[g] = d;
    return g;
}

/* The scaled y of a job next to x (the first with x_p >= x, or the last): a value of
 * the size the forest predicts there, from which its predictions are summed, so
 * that y near 1e15 or near 1e-12 beside 1e6 keep their digits. */
static double y_near(const struct stats_rf_ws *ws, size_t d, double x)
{
    size_t lo = 0, hi = d - 1;

    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (ws->xs[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return ws->ys[lo];
}

/* ---- one tree ------------------------------------------------------------------ */

/* The bootstrap sample: d draws over the sorted positions, then one bin per distinct
 * x drawn at least once. Returns the number of bins. */
static size_t draw_bins(struct stats_rf_ws *ws, size_t d, size_t n_groups)
{
    size_t nb = 0;

    memset(ws->count, 0, d * sizeof *ws->count);
    for (size_t i = 0; i < d; i++)
        ws->count[gsl_rng_uniform_int(ws->rng, (unsigned long)d)]++;
    for (size_t g = 0; g < n_groups; g++) {
        const size_t first = ws->group[g], end = ws->group[g + 1];
        double w = 0.0, s = 0.0, y0 = NAN;
        unsigned char mixed = 0;

        /* the bin's mean measured from its first drawn y: exact when they agree */
        for (size_t p = first; p < end; p++) {
            const uint32_t c = ws->count[p];
            if (c == 0)
                continue;
            if (w == 0.0)
                y0 = ws->ys[p];
            w += (double)c;
            s += (double)c * (ws->ys[p] - y0);
            mixed |= ws->ys[p] != y0;
        }
        if (w == 0.0)
            continue;
        ws->bx[nb] = ws->xs[first];
        ws->bw[nb] = w;
        ws->by[nb] = y0 + s / w;
        ws->bmixed[nb] = mixed;
        nb++;
    }
    return nb;
}

/* The threshold between the distinct a < b: their midpoint, as sklearn, but never
 * b itself (when a and b are adjacent doubles), so that a goes left and b right. */
static double midpoint(double a, double b)
{
    double m = 0.5 * a + 0.5 * b;

    return m < b ? m : a;
}

/* The weight w and y-sum s (from ref) of bins [lo, hi); true when their y differ.
 * Four partial sums: the loop is not one chain of dependent additions. */
static bool node_sums(const struct stats_rf_ws *ws, size_t lo, size_t hi, double ref,
                      double *w, double *s)
{
    const double *bw = ws->bw, *by = ws->by, y0 = by[lo];
    double w4[4] = {0.0, 0.0, 0.0, 0.0}, s4[4] = {0.0, 0.0, 0.0, 0.0};
    unsigned char mixed = 0;
    size_t k = lo;

    for (; k + 4 <= hi; k += 4) {
        for (size_t u = 0; u < 4; u++) {
            w4[u] += bw[k + u];
            s4[u] += bw[k + u] * (by[k + u] - ref);
            mixed |= (unsigned char)(by[k + u] != y0) | ws->bmixed[k + u];
        }
    }
    for (; k < hi; k++) {
        w4[0] += bw[k];
        s4[0] += bw[k] * (by[k] - ref);
        mixed |= (unsigned char)(by[k] != y0) | ws->bmixed[k];
    }
    *w = (w4[0] + w4[1]) + (w4[2] + w4[3]);
    *s = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    return mixed != 0;
}

/* The best split of bins [lo, hi) (at least two, y not constant) of weight w and
 * mean ref + delta: the k such that bins lo..k go left, with the left side's weight
 * and y-sum (from ref). The squared-error decrease times w is
 * (S_L − W_L·δ)² / (W_L·W_R); candidates are compared by cross-multiplying (no
 * division in the loop; y is scaled to |y| <= 1, so nothing overflows), bins taken
 * in pairs so that the prefix sum is one dependent addition per two bins. The first
 * maximum wins. */
static size_t best_split(const struct stats_rf_ws *ws, size_t lo, size_t hi, double ref,
                         double w, double delta, double *wl_out, double *sl_out)
{
    const double *bw = ws->bw, *by = ws->by;
    double wl = 0.0, sl = 0.0, best_num = -1.0, best_den = 1.0, best_wl = 0.0;
    double best_sl = 0.0;
    size_t split = lo, k = lo;

    for (; k + 2 < hi; k += 2) {
        const double a0 = bw[k] * (by[k] - ref), a1 = bw[k + 1] * (by[k + 1] - ref);
        const double wl0 = wl + bw[k], sl0 = sl + a0;
        const double wl1 = wl + (bw[k] + bw[k + 1]), sl1 = sl + (a0 + a1);
        const double dev0 = sl0 - wl0 * delta, den0 = wl0 * (w - wl0);
        const double dev1 = sl1 - wl1 * delta, den1 = wl1 * (w - wl1);
        const double num0 = dev0 * dev0, num1 = dev1 * dev1;
        if (num0 * best_den > best_num * den0) {
            best_num = num0;
            best_den = den0;
            best_wl = wl0;
            best_sl = sl0;
            split = k;
        }
        if (num1 * best_den > best_num * den1) {
            best_num = num1;
            best_den = den1;
            best_wl = wl1;
            best_sl = sl1;
            split = k + 1;
        }
        wl = wl1;
        sl = sl1;
    }
    if (k + 1 < hi) {
        const double wl0 = wl + bw[k], sl0 = sl + bw[k] * (by[k] - ref);
        const double dev0 = sl0 - wl0 * delta, den0 = wl0 * (w - wl0);
        if (dev0 * dev0 * best_den > best_num * den0) {
            best_wl = wl0;
            best_sl = sl0;
            split = k;
        }
    }
    *wl_out = best_wl;
    *sl_out = best_sl;
    return split;
}

/* Grows one tree over the nb bins, fully, into its leaves (val, in x order) and the
 * thresholds between them (thr); ref: y's mean, where the root's sums start. Returns
 * the number of leaves. */
static size_t grow(struct stats_rf_ws *ws, size_t nb, double ref)
{
    struct rf_node *stack = ws->stack;
    size_t top = 0, n_leaves = 0;

    stack[top++] = (struct rf_node){.lo = 0, .hi = nb, .ref = ref, .thr_before = NAN};
    while (top > 0) {
        const struct rf_node node = stack[--top];
        double w, s, wl, sl;

        const bool mixed = node_sums(ws, node.lo, node.hi, node.ref, &w, &s);
        if (node.hi - node.lo == 1 || !mixed) {
            /* one distinct x, or y constant: every split would gain nothing */
            if (n_leaves > 0)
                ws->thr[n_leaves - 1] = node.thr_before;
            ws->val[n_leaves++] = node.ref + s / w;
            continue;
        }
        const size_t split =
            best_split(ws, node.lo, node.hi, node.ref, w, s / w, &wl, &sl);
        const double thr = midpoint(ws->bx[split], ws->bx[split + 1]);
        stack[top++] = (struct rf_node){.lo = split + 1,
                                        .hi = node.hi,
                                        .ref = node.ref + (s - sl) / (w - wl),
                                        .thr_before = thr};
        stack[top++] = (struct rf_node){.lo = node.lo,
                                        .hi = split + 1,
                                        .ref = node.ref + sl / wl,
                                        .thr_before = node.thr_before};
    }
    return n_leaves;
}

/* The leaf of x among n_leaves: how many thresholds lie below x (x <= thr goes left). */
static size_t leaf_of(const double *thr, size_t n_leaves, double x)
{
    size_t lo = 0, hi = n_leaves - 1;

    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (thr[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Adds the tree's predictions, less the reference y near each point, to the curve,
 * the caller's points and the out-of-bag sums of the jobs it did not draw (both
 * walks in x order; a job's reference is its own y). */
static void predict(struct stats_rf_ws *ws, size_t n_leaves, size_t d,
                    const double *x_curve, double *curve_dev, const double *x_eval,
                    size_t n_eval, double *eval_dev)
{
    const double *thr = ws->thr, *val = ws->val;
    const size_t last = n_leaves - 1;
    size_t i = 0;

    for (size_t j = 0; j < NC; j++) {
        while (i < last && thr[i] < x_curve[j])
            i++;
        curve_dev[j] += val[i] - ws->curve_ref[j];
    }
    for (size_t j = 0; j < n_eval; j++) {
        const double v = val[leaf_of(thr, n_leaves, x_eval[j])];
        eval_dev[j] += v - y_near(ws, d, x_eval[j]);
    }
    i = 0;
    for (size_t p = 0; p < d; p++) {
        if (ws->count[p] != 0)
            continue;
        while (i < last && thr[i] < ws->xs[p])
            i++;
        ws->oob_dev[p] += val[i] - ws->ys[p];
        ws->oob_n[p]++;
    }
}

/* ---- the forest ---------------------------------------------------------------- */

/* Out-of-bag R² over the jobs some tree left out (scaled y: the ratio is the same). */
static double oob_r2(const struct stats_rf_ws *ws, size_t d, size_t *n_oob)
{
    double mean = 0.0, fix = 0.0, ss_res = 0.0, ss_tot = 0.0;
    size_t n = 0;

    for (size_t p = 0; p < d; p++) {
        if (ws->oob_n[p] > 0) {
            mean += ws->ys[p];
            n++;
        }
    }
    *n_oob = n;
    if (n == 0)
        return NAN;
    mean /= (double)n;
    for (size_t p = 0; p < d; p++) {
        if (ws->oob_n[p] > 0)
            fix += ws->ys[p] - mean;
    }
    mean += fix / (double)n;
    for (size_t p = 0; p < d; p++) {
        if (ws->oob_n[p] == 0)
            continue;
        const double r = ws->oob_dev[p] / (double)ws->oob_n[p];
        const double t = ws->ys[p] - mean;
        ss_res += r * r;
        ss_tot += t * t;
    }
    if (!(ss_tot > 0.0))
        return NAN;
    return 1.0 - ss_res / ss_tot;
}

/* Everything but d, reason, trees and seed to NAN (and n_oob to 0). */
static void clear(struct stats_rf *out, double *fit_eval, size_t n_eval)
{
    out->oob_r2 = NAN;
    out->n_oob = 0;
    out->leaves_mean = NAN;
    for (size_t j = 0; j < NC; j++) {
        out->x_curve[j] = NAN;
        out->fit_curve[j] = NAN;
    }
    for (size_t j = 0; j < n_eval; j++)
        fit_eval[j] = NAN;
}

enum status stats_rf_compute(const double *x, const double *y, size_t d,
                             const double *x_eval, size_t n_eval,
                             const struct stats_rf_opts *opts, struct stats_rf_ws *ws,
                             struct stats_rf *out, double *fit_eval, struct error *err)
{
    const struct stats_rf_opts def = stats_rf_opts_default();

    if (opts == NULL)
        opts = &def;
    if (out == NULL || ws == NULL || (d > 0 && (x == NULL || y == NULL)) ||
        (n_eval > 0 && (x_eval == NULL || fit_eval == NULL)))
        return error_set(err, STATUS_INVALID, "rf: missing input or output");
    if (opts->n_trees == 0 || opts->n_trees > STATS_RF_TREES_MAX) {
        return error_set(err, STATUS_INVALID, "rf: n_trees must be in [1, %u], got %zu",
                         (unsigned)STATS_RF_TREES_MAX, opts->n_trees);
    }
    if (d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "rf: %zu jobs, workspace for %zu", d,
                         ws->d_max);
    }
    if (!stats_all_finite(x, d) || !stats_all_finite(y, d) ||
        !stats_all_finite(x_eval, n_eval)) {
        return error_set(err, STATUS_INVALID,
                         "rf: a value of x, y or x_eval is not finite");
    }

    out->d = d;
    out->reason = REASON_NONE;
    out->trees = opts->n_trees;
    out->seed = opts->seed;
    clear(out, fit_eval, n_eval);
    if (d < 2 || d < opts->d_min) {
        out->reason = REASON_D_BELOW_MIN;
    } else if (stats_all_equal(x, d)) {
        out->reason = REASON_CONSTANT_X;
    } else if (stats_all_equal(y, d)) {
        out->reason = REASON_CONSTANT_Y;
    }
    if (out->reason != REASON_NONE)
        return STATUS_OK;

    double y_lo = y[0], y_hi = y[0], leaves = 0.0;
    int e;
    for (size_t i = 1; i < d; i++) {
        y_lo = fmin(y_lo, y[i]);
        y_hi = fmax(y_hi, y[i]);
    }
    frexp(fmax(fabs(y_lo), fabs(y_hi)), &e);
    const double y_scale = ldexp(1.0, e - 1); /* |y| / y_scale < 2, and finite */
    const size_t n_groups = sort_jobs(x, y, d, y_scale, ws);
    const double ybar = stats_mean(ws->ys, d);
    linspace(percentile_sorted(ws->xs, d, 0.01), percentile_sorted(ws->xs, d, 0.99),
             out->x_curve);
    for (size_t j = 0; j < NC; j++)
        ws->curve_ref[j] = y_near(ws, d, out->x_curve[j]);

    /* fit_curve and fit_eval hold the sums of the trees' predictions less the
     * reference y near each point */
    for (size_t j = 0; j < NC; j++)
        out->fit_curve[j] = 0.0;
    for (size_t j = 0; j < n_eval; j++)
        fit_eval[j] = 0.0;
    memset(ws->oob_dev, 0, d * sizeof *ws->oob_dev);
    memset(ws->oob_n, 0, d * sizeof *ws->oob_n);
    gsl_rng_set(ws->rng, (unsigned long)opts->seed);
    for (size_t t = 0; t < opts->n_trees; t++) {
        if (stats_cancel_asked(opts->cancel)) {
            return error_set(err, STATUS_CANCELLED, "rf cancelled after %zu of %zu trees",
                             t, opts->n_trees);
        }
        const size_t n_bins = draw_bins(ws, d, n_groups);
        const size_t n_leaves = grow(ws, n_bins, ybar);
        predict(ws, n_leaves, d, out->x_curve, out->fit_curve, x_eval, n_eval, fit_eval);
        leaves += (double)n_leaves;
    }

    /* a mean of weighted means of y lies in [min y, max y]: the clamp only removes
     * rounding */
    const double n_trees = (double)opts->n_trees;
    for (size_t j = 0; j < NC; j++) {
        const double f = (ws->curve_ref[j] + out->fit_curve[j] / n_trees) * y_scale;
        out->fit_curve[j] = fmin(y_hi, fmax(y_lo, f));
    }
    for (size_t j = 0; j < n_eval; j++) {
        const double f = (y_near(ws, d, x_eval[j]) + fit_eval[j] / n_trees) * y_scale;
        fit_eval[j] = fmin(y_hi, fmax(y_lo, f));
    }
    out->leaves_mean = leaves / n_trees;
    out->oob_r2 = oob_r2(ws, d, &out->n_oob);
    return STATUS_OK;
}
