/* sweep.c: the verdicts of the granularity sweep (docs/method.md §6): is a coefficient
 * falling with the sampling interval, and up to which interval do all of them stay
 * what they were at the base granularity. */
#include "internal.h"

#include <math.h>

/* A sweep has a few dozen points at most, so ranks by counting are cheap and need
 * no workspace. */
#define SWEEP_MAX 1024

static enum status check_curve(const struct stats_sweep_curve *c, struct error *err)
{
    if (c == NULL || c->k == NULL || c->c == NULL || c->n == 0)
        return error_set(err, STATUS_INVALID, "empty sweep curve");
    if (c->n > SWEEP_MAX) {
        return error_set(err, STATUS_INVALID, "sweep of %zu points, at most %d", c->n,
                         SWEEP_MAX);
    }
    if (c->k[0] != 1) {
        return error_set(err, STATUS_INVALID, "sweep starts at k = %u, expected 1",
                         c->k[0]);
    }
    for (size_t i = 1; i < c->n; i++) {
        if (c->k[i] <= c->k[i - 1]) {
            return error_set(err, STATUS_INVALID, "sweep k not ascending at %zu: %u", i,
                             c->k[i]);
        }
    }
    return STATUS_OK;
}

static void average_ranks_small(const double *v, size_t n, double *rank)
{
    for (size_t i = 0; i < n; i++) {
        size_t less = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            less += v[j] < v[i];
            equal += v[j] == v[i];
        }
        rank[i] = (double)less + 0.5 * (double)(equal + 1);
    }
}

enum status stats_sweep_falling(const struct stats_sweep_curve *curve, double drop,
                                double rho_max, bool *falling, struct error *err)
{
    double k[SWEEP_MAX], c[SWEEP_MAX], rk[SWEEP_MAX], rc[SWEEP_MAX];
    size_t m = 0;
    double rho;

    if (falling == NULL)
        return error_set(err, STATUS_INVALID, "no output");
    *falling = false;
    enum status rc_check = check_curve(curve, err);
    if (rc_check != STATUS_OK)
        return rc_check;
    double first = curve->c[0], last = curve->c[curve->n - 1];
    if (!isfinite(first) || !isfinite(last) || !(last < first - drop))
        return STATUS_OK;
    for (size_t i = 0; i < curve->n; i++) {
        if (isfinite(curve->c[i])) {
            k[m] = (double)curve->k[i];
            c[m] = curve->c[i];
            m++;
        }
    }
    if (m < 3)
        return STATUS_OK;
    average_ranks_small(k, m, rk);
    average_ranks_small(c, m, rc);
    /* A constant curve has no rank correlation: c(last) < c(1) − drop excludes it. */
    if (stats_pearson(rk, rc, m, &rho, NULL) != STATUS_OK)
        return STATUS_OK;
    /* sqrt(s)·sqrt(s) is not always s: a rank correlation exactly at the threshold
     * must count as reaching it. */
    *falling = rho <= rho_max + 1e-12;
    return STATUS_OK;
}

enum status stats_sweep_recommended(const struct stats_sweep_curve *curves,
                                    size_t n_curves, double tol, unsigned *k_out,
                                    struct error *err)
{
    if (k_out == NULL || curves == NULL || n_curves == 0)
        return error_set(err, STATUS_INVALID, "no curves or no output");
    *k_out = 0;
    for (size_t j = 0; j < n_curves; j++) {
        enum status rc = check_curve(&curves[j], err);
        if (rc != STATUS_OK)
            return rc;
        if (curves[j].n != curves[0].n) {
            return error_set(err, STATUS_INVALID, "curves of %zu and %zu points",
                             curves[0].n, curves[j].n);
        }
        for (size_t i = 0; i < curves[j].n; i++) {
            if (curves[j].k[i] != curves[0].k[i])
                return error_set(err, STATUS_INVALID, "curves with different k");
        }
    }
    for (size_t i = 0; i < curves[0].n; i++) {
        for (size_t j = 0; j < n_curves; j++) {
            double c1 = curves[j].c[0], ci = curves[j].c[i];
            if (!isfinite(c1) || !isfinite(ci) || !(fabs(ci - c1) <= tol))
                return STATUS_OK;
        }
        *k_out = curves[0].k[i];
    }
    return STATUS_OK;
}
