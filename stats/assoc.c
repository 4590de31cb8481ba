/* assoc.c: Pearson and Spearman associations over the jobs of a group (docs/method.md
 * §5). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

static struct stats_ws *ws_alloc(size_t d_max);

struct stats_ws *stats_ws_new(size_t d_max)
{
    struct stats_ws *ws = ws_alloc(d_max);

    /* KSG's own scratch, for its thread (stats_assoc_compute): only where a second
     * thread pays for its start and the memory (STATS_THREAD_MIN_D). */
    if (ws != NULL && d_max >= STATS_THREAD_MIN_D && d_max <= STATS_THREAD_MAX_D) {
        ws->partner = ws_alloc(d_max);
        if (ws->partner == NULL) {
            stats_ws_free(ws);
            return NULL;
        }
    }
    return ws;
}

static struct stats_ws *ws_alloc(size_t d_max)
{
    struct stats_ws *ws = calloc(1, sizeof *ws);
    size_t cap = d_max > 0 ? d_max : 1;
    bool ok;

    if (ws == NULL)
        return NULL;
    ws->d_max = d_max;
    ws->order = calloc(cap, sizeof *ws->order);
    ws->order_y = calloc(cap, sizeof *ws->order_y);
    ws->idx_tmp = calloc(cap, sizeof *ws->idx_tmp);
    ws->hist = calloc((size_t)STATS_SORT_PASSES << STATS_SORT_BITS, sizeof *ws->hist);
    ws->rng = gsl_rng_alloc(gsl_rng_taus2);
    ok = ws->order != NULL && ws->order_y != NULL && ws->idx_tmp != NULL &&
         ws->hist != NULL && ws->rng != NULL;
    /* One block, so that neighbouring scratch arrays can serve as one interleaved
     * array (dcor.c's Fenwick tree). */
    ws->dblock = calloc(STATS_WS_DTMP * cap, sizeof *ws->dblock);
    ok = ok && ws->dblock != NULL;
    for (size_t i = 0; i < STATS_WS_DTMP && ws->dblock != NULL; i++)
        ws->dtmp[i] = ws->dblock + i * cap;
    if (ws->dblock != NULL) {
        /* Memory is the limit at d = 10^6 (docs/method.md targets 100 MB for all four
         * methods), so ranks and sort keys borrow scratch arrays no method holds
         * while they are in use (internal.h). calloc'd memory has no declared type:
         * holding uint64_t keys there is defined. */
        ws->rx = ws->dtmp[2];
        ws->ry = ws->dtmp[3];
        ws->key = (uint64_t *)(void *)ws->dtmp[4];
        ws->key_tmp = (uint64_t *)(void *)ws->dtmp[5];
    }
    for (size_t i = 0; i < STATS_WS_ITMP; i++) {
        ws->itmp[i] = calloc(cap, sizeof *ws->itmp[i]);
        ok = ok && ws->itmp[i] != NULL;
    }
    if (!ok) {
        stats_ws_free(ws);
        return NULL;
    }
    return ws;
}

void stats_ws_free(struct stats_ws *ws)
{
    if (ws == NULL)
        return;
    stats_ws_free(ws->partner);
    free(ws->order);
    free(ws->order_y);
    free(ws->idx_tmp);
    free(ws->hist);
    if (ws->rng != NULL)
        gsl_rng_free(ws->rng);
    free(ws->dblock);
    for (size_t i = 0; i < STATS_WS_ITMP; i++)
        free(ws->itmp[i]);
    free(ws);
}

unsigned stats_ws_threads(const struct stats_ws *ws, size_t d)
{
    return ws != NULL && ws->partner != NULL && !ws->one_thread &&
                   d >= STATS_THREAD_MIN_D && d <= ws->d_max
               ? 2
               : 1;
}

void stats_ws_allow_thread(struct stats_ws *ws, bool allow)
{
    if (ws != NULL)
        ws->one_thread = !allow;
}

const char *stats_reason_name(enum stats_reason r)
{
    switch (r) {
    case REASON_NONE: return "";
    case REASON_D_BELOW_MIN: return "d_below_min";
    case REASON_CONSTANT_X: return "constant_x";
    case REASON_CONSTANT_Y: return "constant_y";
    case REASON_NOT_COMPUTED: return "not_computed";
    }
    return "";
}

/* Pearson's r by sums centred on mx, my with the correction term of the "corrected
 * two-pass" algorithm (Chan, Golub & LeVeque 1983): Sxx = Σdx² − (Σdx)²/d, Sxy
 * likewise, which removes what rounding of the means left. The one-pass
 * Σxy − d·x̄·ȳ loses every digit for x ≈ 1e15 (docs/method.md §5). Needs d >= 2 finite
 * values. */
static enum stats_reason pearson_about(const double *x, const double *y, size_t d,
                                       double mx, double my, double *r)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0, n = (double)d;

    for (size_t i = 0; i < d; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sx += dx;
        sy += dy;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    sxx -= sx * sx / n;
    syy -= sy * sy / n;
    sxy -= sx * sy / n;
    if (!(sxx > 0.0))
        return REASON_CONSTANT_X;
    if (!(syy > 0.0))
        return REASON_CONSTANT_Y;
    /* sqrt of each factor: Sxx·Syy may overflow where r does not. */
    *r = fmax(-1.0, fmin(1.0, sxy / (sqrt(sxx) * sqrt(syy))));
    return REASON_NONE;
}

static enum stats_reason pearson_core(const double *x, const double *y, size_t d,
                                      double *r)
{
    if (stats_all_equal(x, d))
        return REASON_CONSTANT_X;
    if (stats_all_equal(y, d))
        return REASON_CONSTANT_Y;
    return pearson_about(x, y, d, stats_mean(x, d), stats_mean(y, d), r);
}

/* Spearman's ρ: Pearson's r of the average ranks of non-constant x and y, whose
 * mean is (d + 1) / 2 exactly (averaging keeps the sum of the ranks 1..d). */
static enum stats_reason spearman_of_ranks(const double *rx, const double *ry, size_t d,
                                           double *r)
{
    const double mean = 0.5 * ((double)d + 1.0);

    return pearson_about(rx, ry, d, mean, mean, r);
}

/* Ranks 1..d of x and y into ws->rx, ws->ry, leaving both sort orders in ws. */
static void rank_both(const double *x, const double *y, size_t d, struct stats_ws *ws)
{
    stats_average_ranks(stats_argsort(ws, x, d, ws->order), ws->order, d, ws->rx);
    stats_average_ranks(stats_argsort(ws, y, d, ws->order_y), ws->order_y, d, ws->ry);
}

static enum status reason_status(enum stats_reason reason, struct error *err)
{
    if (reason == REASON_NONE)
        return STATUS_OK;
    return error_set(err, STATUS_INVALID, "%s", stats_reason_name(reason));
}

static enum status check_pair(const double *x, const double *y, size_t d,
                              struct error *err)
{
    if (x == NULL || y == NULL)
        return error_set(err, STATUS_INVALID, "missing x or y");
    if (!stats_all_finite(x, d))
        return error_set(err, STATUS_INVALID, "nonfinite x");
    if (!stats_all_finite(y, d))
        return error_set(err, STATUS_INVALID, "nonfinite y");
    return STATUS_OK;
}

enum status stats_pearson(const double *x, const double *y, size_t d, double *r,
                          struct error *err)
{
    enum status rc;

    if (r == NULL)
        return error_set(err, STATUS_INVALID, "no output");
    *r = NAN;
    if (d < 2)
        return error_set(err, STATUS_INVALID, "needs d >= 2, got %zu", d);
    rc = check_pair(x, y, d, err);
    if (rc != STATUS_OK)
        return rc;
    return reason_status(pearson_core(x, y, d, r), err);
}

enum status stats_spearman(const double *x, const double *y, size_t d,
                           struct stats_ws *ws, double *r, struct error *err)
{
    enum status rc;

    if (r == NULL)
        return error_set(err, STATUS_INVALID, "no output");
    *r = NAN;
    if (d < 2)
        return error_set(err, STATUS_INVALID, "needs d >= 2, got %zu", d);
    if (ws == NULL || d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "workspace for %zu jobs, got %zu",
                         ws == NULL ? 0 : ws->d_max, d);
    }
    rc = check_pair(x, y, d, err);
    if (rc != STATUS_OK)
        return rc;
    /* Ranks are constant exactly when the values are, so the reasons carry over. */
    if (stats_all_equal(x, d))
        return reason_status(REASON_CONSTANT_X, err);
    if (stats_all_equal(y, d))
        return reason_status(REASON_CONSTANT_Y, err);
    rank_both(x, y, d, ws);
    return reason_status(spearman_of_ranks(ws->rx, ws->ry, d, r), err);
}

static struct stats_coef coef_of(enum stats_reason reason, double value)
{
    return (struct stats_coef){reason == REASON_NONE ? value : (double)NAN, reason};
}

/* KSG needs k + 1 = 4 jobs: each its 3 nearest neighbours. */
#define KSG_MIN_D 4

/* KNOWN METHODS: each method adds its bit here when it is implemented. */
#define KNOWN_METHODS (METHOD_PEARSON | METHOD_SPEARMAN | METHOD_DCOR | METHOD_MI)

unsigned stats_methods_available(void)
{
    return KNOWN_METHODS;
}

enum status stats_assoc_compute(const double *x, const double *y, size_t d,
                                const struct stats_assoc_opts *opts, struct stats_ws *ws,
                                struct stats_assoc *out, struct error *err)
{
    const unsigned known = KNOWN_METHODS;
    enum stats_reason undefined = REASON_NONE;
    enum status rc;
    double r = NAN;

    if (out == NULL || opts == NULL)
        return error_set(err, STATUS_INVALID, "no output or no options");
    const unsigned methods = opts->methods;
    const struct stats_coef none = {NAN, REASON_NOT_COMPUTED};
    out->d = d;
    out->pearson = out->spearman = out->dcor_v = out->dcor2_u = none;
    out->mi_ksg_nats = out->mi_linfoot = none;
    if ((methods & ~known) != 0)
        return error_set(err, STATUS_INVALID, "unknown methods 0x%x", methods & ~known);

    /* Undefined cases are facts about the group, not errors: the coefficient is null
     * with its reason and a sweep continues (docs/method.md §5). A method not asked for
     * stays not_computed whatever d is. */
    if (d < opts->d_min || d < 2) {
        undefined = REASON_D_BELOW_MIN;
    } else {
        rc = check_pair(x, y, d, err);
        if (rc != STATUS_OK)
            return rc;
        if (stats_all_equal(x, d)) {
            undefined = REASON_CONSTANT_X;
        } else if (stats_all_equal(y, d)) {
            undefined = REASON_CONSTANT_Y;
        }
    }
    if (undefined != REASON_NONE) {
        if (methods & METHOD_PEARSON)
            out->pearson = coef_of(undefined, NAN);
        if (methods & METHOD_SPEARMAN)
            out->spearman = coef_of(undefined, NAN);
        if (methods & METHOD_DCOR)
            out->dcor_v = out->dcor2_u = coef_of(undefined, NAN);
        if (methods & METHOD_MI)
            out->mi_ksg_nats = out->mi_linfoot = coef_of(undefined, NAN);
        return STATUS_OK;
    }

    if ((methods & ~METHOD_PEARSON) && (ws == NULL || d > ws->d_max)) {
        return error_set(err, STATUS_INVALID, "workspace for %zu jobs, got %zu",
                         ws == NULL ? 0 : ws->d_max, d);
    }
    /* KSG takes longer than the other three together: it starts first, on a
     * second thread with its own scratch when the workspace has it, and this
     * thread shares its last steps once the others are done. The result is the
     * same bit for bit either way. */
    struct stats_ksg ksg;
    const bool mi = (methods & METHOD_MI) && d >= KSG_MIN_D;
    if (mi) {
        stats_mi_start(&ksg, x, y, d, ws, opts->seed, opts->mi_jitter,
                       (methods & ~METHOD_MI) != 0 && stats_ws_threads(ws, d) == 2);
    }
    /* x and y are not constant here; Pearson and dCor's centring share the means */
    double mx = NAN, my = NAN;
    if (methods & (METHOD_PEARSON | METHOD_DCOR)) {
        mx = stats_mean(x, d);
        my = stats_mean(y, d);
    }
    if (methods & METHOD_PEARSON) {
        enum stats_reason reason = pearson_about(x, y, d, mx, my, &r);
        out->pearson = coef_of(reason, r);
    }
    /* Sort once: ranks, dCor and KSG's counts share the two sort orders. */
    if ((methods & (METHOD_SPEARMAN | METHOD_DCOR)) || mi) {
        const uint64_t *keys = stats_argsort(ws, x, d, ws->order);
        if (methods & METHOD_SPEARMAN)
            stats_average_ranks(keys, ws->order, d, ws->rx);
        keys = stats_argsort(ws, y, d, ws->order_y);
        if (methods & METHOD_SPEARMAN)
            stats_average_ranks(keys, ws->order_y, d, ws->ry);
    }
    if (mi)
        stats_mi_share_orders(&ksg, ws->order, ws->order_y);
    if (methods & METHOD_SPEARMAN) {
        enum stats_reason reason = spearman_of_ranks(ws->rx, ws->ry, d, &r);
        out->spearman = coef_of(reason, r);
    }
    if (methods & METHOD_DCOR) {
        double v = NAN, u2 = NAN;
        stats_dcor_sorted(x, y, d, mx, my, ws, &v, &u2);
        out->dcor_v = isfinite(v) ? coef_of(REASON_NONE, v) : none;
        /* dCor²_U's centring divides by d − 3. It also makes the distance matrix
         * of a series that is constant but for its smallest and largest value
         * exactly zero (dcor.c): dCor²_U is then 0/0, null as for a constant. */
        if (d < 4) {
            out->dcor2_u = coef_of(REASON_D_BELOW_MIN, NAN);
        } else if (x[ws->order[1]] == x[ws->order[d - 2]]) {
            out->dcor2_u = coef_of(REASON_CONSTANT_X, NAN);
        } else if (y[ws->order_y[1]] == y[ws->order_y[d - 2]]) {
            out->dcor2_u = coef_of(REASON_CONSTANT_Y, NAN);
        } else {
            out->dcor2_u = isfinite(u2) ? coef_of(REASON_NONE, u2) : none;
        }
    }
    if (methods & METHOD_MI) {
        if (d < KSG_MIN_D) {
            out->mi_ksg_nats = out->mi_linfoot = coef_of(REASON_D_BELOW_MIN, NAN);
        } else {
            r = stats_mi_finish(&ksg);
            out->mi_ksg_nats = coef_of(REASON_NONE, r);
            /* Linfoot's informational coefficient sqrt(1 − exp(−2I)) (docs/method.md §5)
             */
            out->mi_linfoot = coef_of(REASON_NONE, sqrt(-expm1(-2.0 * r)));
        }
    }
    return STATUS_OK;
}
