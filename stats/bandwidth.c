/* bandwidth.c: the KDE's plug-in bandwidth selector (docs/method.md §5 `kde`), Sheather &
 * Jones's (1991) "solve-the-equation" rule for a Gaussian kernel, as R's
 * bw.SJ(method = "ste") computes it:
 *
 *   h = [R(K) / (d·μ2(K)²·Ŝ(α(h)))]^(1/5),   R(K) = 1/(2√π), μ2(K) = 1,
 *   α(h) = c_α·(Ŝ(a)/T̂(b))^(1/7)·h^(5/7),
 *   Ŝ(g) = Σ_i Σ_j φ⁽⁴⁾((v_i − v_j)/g) / (d(d − 1)·g⁵),
 *   T̂(g) = −Σ_i Σ_j φ⁽⁶⁾((v_i − v_j)/g) / (d(d − 1)·g⁷)
 *
 * (the double sums include i = j, the paper's and R's definition). The pilots a and b
 * are the AMSE-optimal bandwidths of ψ4 and ψ6 when ψ6 and ψ8 take their values
 * under a normal of scale λ = min(s, IQR/1.349) (s with d − 1, IQR of type 7):
 * a = (2φ⁽⁴⁾(0)/(−ψ6·d))^(1/7), b = (2φ⁽⁶⁾(0)/(−ψ8·d))^(1/9) with ψ6 = −15/(16√π λ⁷),
 * ψ8 = 105/(32√π λ⁹), and c_α = (2φ⁽⁴⁾(0)/R(K))^(1/7). R rounds these constants to
 * 1.24, 1.23 and 1.357; we keep them exact (h moves by about 1e-4 relative). The
 * root is bracketed as R does it: [0.1·h_max, h_max], h_max = 1.144·λ·d^(−1/5),
 * widened by 1.2 alternately up and down until the signs differ; then Brent's method
 * to 1e-10 relative (R stops at 0.01·h_max).
 *
 * The functionals are binned: v goes onto STATS_BW_BINS equally spaced points by
 * linear binning, the counts' lag products A_k = Σ_m c_m·c_(m+k) are formed once
 * (over the non-empty bins, at most STATS_BW_BINS²/2 products), and every Ŝ(g), T̂(g)
 * is then a sum over lags, O(STATS_BW_BINS), whatever d. The lag products of each
 * point with itself are taken out and the i = j terms put in exactly, so the only
 * error is the binning of the pairwise differences, of order (bin width / g)². */
#include "stats.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdlib.h>

#define NB        STATS_BW_BINS
#define ROOT_TOL  1e-10 /* relative width of Brent's final bracket */
#define ROOT_ITER 200
#define WIDEN_MAX 99   /* bracket widenings, as R */
#define Z2_MAX    1400 /* (lag/g)² beyond it exp(−z²/2) is below every subnormal */

struct stats_bw_ws {
    size_t d_max;
    double *sorted;     /* d_max: a sorted copy of v, for the IQR */
    double c[NB];       /* linear-binning counts */
    double lag[NB];     /* A_k, the self terms removed */
    size_t nonzero[NB]; /* the non-empty bins */
    gsl_root_fsolver *solver;
};

/* The binned double sums, with what the solver needs. */
struct sj {
    const double *lag;
    double delta;  /* bin width */
    double d;      /* jobs, as a double */
    double alpha2; /* c_α·(Ŝ(a)/T̂(b))^(1/7): α(h) = alpha2·h^(5/7) */
    bool bad;      /* set when Ŝ(α(h)) <= 0 or not finite: no root here */
};

struct stats_bw_ws *stats_bw_ws_new(size_t d_max)
{
    struct stats_bw_ws *ws = calloc(1, sizeof *ws);

    if (ws == NULL)
        return NULL;
    ws->d_max = d_max;
    ws->sorted = malloc((d_max > 0 ? d_max : 1) * sizeof *ws->sorted);
    ws->solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (ws->sorted == NULL || ws->solver == NULL) {
        stats_bw_ws_free(ws);
        return NULL;
    }
    return ws;
}

void stats_bw_ws_free(struct stats_bw_ws *ws)
{
    if (ws == NULL)
        return;
    free(ws->sorted);
    if (ws->solver != NULL)
        gsl_root_fsolver_free(ws->solver);
    free(ws);
}

/* Σ_i Σ_j φ⁽ʳ⁾((v_i − v_j)/g), r = 4 or 6, i = j included. φ⁽⁴⁾(z) = φ(z)(z⁴ − 6z² + 3),
 * φ⁽⁶⁾(z) = φ(z)(z⁶ − 15z⁴ + 45z² − 15). */
static double pair_sum(const struct sj *s, int r, double g)
{
    const double inv = s->delta / g;
    const double at0 = r == 4 ? 3.0 : -15.0;
    double sum = s->lag[0] * at0;

    for (size_t k = 1; k < NB; k++) {
        const double z = (double)k * inv, z2 = z * z;
        if (z2 > Z2_MAX)
            break;
        const double poly =
            r == 4 ? (z2 - 6.0) * z2 + 3.0 : ((z2 - 15.0) * z2 + 45.0) * z2 - 15.0;
        sum += 2.0 * s->lag[k] * exp(-0.5 * z2) * poly;
    }
    return (sum + s->d * at0) / sqrt(2.0 * M_PI);
}

static double psi4_hat(const struct sj *s, double g)
{
    return pair_sum(s, 4, g) / (s->d * (s->d - 1.0) * pow(g, 5.0));
}

static double tdh_hat(const struct sj *s, double g)
{
    return -pair_sum(s, 6, g) / (s->d * (s->d - 1.0) * pow(g, 7.0));
}

/* The equation's residual: [R(K)/(d·Ŝ(α(h)))]^(1/5) − h. */
static double residual(double h, void *p)
{
    struct sj *s = p;
    const double psi = psi4_hat(s, s->alpha2 * pow(h, 5.0 / 7.0));

    if (!(psi > 0.0) || !isfinite(psi)) {
        s->bad = true;
        return NAN;
    }
    return pow(1.0 / (2.0 * sqrt(M_PI) * s->d * psi), 0.2) - h;
}

/* Linear binning of v onto NB points spanning [lo, hi], then the lag products. */
static void bin_lags(struct stats_bw_ws *ws, const double *v, size_t d, double lo,
                     double delta)
{
    double self0 = 0.0, self1 = 0.0;
    size_t nz = 0;

    for (size_t m = 0; m < NB; m++)
        ws->c[m] = ws->lag[m] = 0.0;
    for (size_t i = 0; i < d; i++) {
        const double t = (v[i] - lo) / delta;
        size_t m = (size_t)t;
        if (m > NB - 2)
            m = NB - 2;
        const double f = t - (double)m;
        ws->c[m] += 1.0 - f;
        ws->c[m + 1] += f;
        /* what point i contributes to A_0 and A_1 with itself */
        self0 += (1.0 - f) * (1.0 - f) + f * f;
        self1 += f * (1.0 - f);
    }
    for (size_t m = 0; m < NB; m++) {
        if (ws->c[m] != 0.0)
            ws->nonzero[nz++] = m;
    }
    for (size_t a = 0; a < nz; a++) {
        const size_t ma = ws->nonzero[a];
        const double ca = ws->c[ma];
        for (size_t b = a; b < nz; b++)
            ws->lag[ws->nonzero[b] - ma] += ca * ws->c[ws->nonzero[b]];
    }
    ws->lag[0] -= self0;
    ws->lag[1] -= self1;
}

static enum status solve(gsl_root_fsolver *solver, struct sj *s, double lower,
                         double upper, double *h, struct error *err)
{
    gsl_function fn = {residual, s};
    double f_lo = residual(lower, s), f_hi = residual(upper, s);

    for (int tries = 1; !s->bad && f_lo * f_hi > 0.0; tries++) {
        if (tries > WIDEN_MAX) {
            return error_set(err, STATUS_INVALID,
                             "bandwidth: no root of the SJ equation");
        }
        if (tries % 2 != 0) {
            upper *= 1.2;
            f_hi = residual(upper, s);
        } else {
            lower /= 1.2;
            f_lo = residual(lower, s);
        }
    }
    if (s->bad || gsl_root_fsolver_set(solver, &fn, lower, upper) != GSL_SUCCESS) {
        return error_set(err, STATUS_INVALID,
                         "bandwidth: the sample is too sparse for the SJ functionals");
    }
    for (int it = 0; it < ROOT_ITER; it++) {
        if (gsl_root_fsolver_iterate(solver) != GSL_SUCCESS || s->bad) {
            return error_set(
                err, STATUS_INVALID,
                "bandwidth: the sample is too sparse for the SJ functionals");
        }
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(solver),
                                   gsl_root_fsolver_x_upper(solver), 0.0,
                                   ROOT_TOL) == GSL_SUCCESS)
            break;
    }
    *h = gsl_root_fsolver_root(solver);
    return STATUS_OK;
}

enum status stats_bw_sj(const double *v, size_t d, struct stats_bw_ws *ws, double *h,
                        struct error *err)
{
    if (v == NULL || ws == NULL || h == NULL)
        return error_set(err, STATUS_INVALID, "bandwidth: missing argument");
    *h = NAN;
    if (d < 2 || d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "bandwidth: d = %zu, needs 2..%zu", d,
                         ws->d_max);
    }
    double mean = 0.0, ss = 0.0;
    for (size_t i = 0; i < d; i++) {
        if (!isfinite(v[i])) {
            return error_set(err, STATUS_INVALID, "bandwidth: job %zu: value not finite",
                             i);
        }
        ws->sorted[i] = v[i];
        mean += v[i];
    }
    mean /= (double)d;
    for (size_t i = 0; i < d; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    gsl_sort(ws->sorted, 1, d);
    const double lo = ws->sorted[0], hi = ws->sorted[d - 1];
    if (!(hi > lo))
        return error_set(err, STATUS_INVALID, "bandwidth: constant values");

    /* λ: R's min(s, IQR/1.349); a zero IQR (over half the values tied) would make
     * every pilot zero, so λ is then s (decision: R stops there) */
    const double sd = sqrt(ss / (double)(d - 1));
    const double iqr = gsl_stats_quantile_from_sorted_data(ws->sorted, 1, d, 0.75) -
                       gsl_stats_quantile_from_sorted_data(ws->sorted, 1, d, 0.25);
    const double lambda = iqr > 0.0 && iqr / 1.349 < sd ? iqr / 1.349 : sd;
    const double n = (double)d;

    bin_lags(ws, v, d, lo, (hi - lo) / (NB - 1));
    struct sj s = {ws->lag, (hi - lo) / (NB - 1), n, 0.0, false};
    const double a = pow(3.2 * M_SQRT2, 1.0 / 7.0) * lambda * pow(n, -1.0 / 7.0);
    const double b = pow(32.0 * M_SQRT2 / 7.0, 1.0 / 9.0) * lambda * pow(n, -1.0 / 9.0);
    const double td = tdh_hat(&s, b), sa = psi4_hat(&s, a);
    if (!(td > 0.0) || !isfinite(td) || !(sa > 0.0) || !isfinite(sa)) {
        return error_set(err, STATUS_INVALID,
                         "bandwidth: the sample is too sparse for the SJ functionals");
    }
    s.alpha2 = pow(6.0 * M_SQRT2, 1.0 / 7.0) * pow(sa / td, 1.0 / 7.0);

    const double h_max = 1.144 * lambda * pow(n, -0.2);
    return solve(ws->solver, &s, 0.1 * h_max, h_max, h, err);
}
