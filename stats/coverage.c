/* coverage.c: the share of server volume the logged jobs account for (docs/method.md §7).
 */
#include "internal.h"

#include <math.h>

static enum status check_inputs(const struct stats_series *s,
                                const struct stats_coverage_windows *w,
                                double log_start_s, double log_end_s,
                                const double *d_bytes, const double *s_bytes,
                                const struct stats_coverage *out, struct error *err)
{
    if (s == NULL || w == NULL || out == NULL)
        return error_set(err, STATUS_INVALID, "missing series, windows or output");
    if (s->n > 0 && (d_bytes == NULL || s_bytes == NULL))
        return error_set(err, STATUS_INVALID, "missing d_bytes or s_bytes");
    if (!(isfinite(s->delta_s) && s->delta_s > 0.0 && isfinite(s->origin_s))) {
        return error_set(err, STATUS_INVALID, "series delta_s %g, origin_s %g",
                         s->delta_s, s->origin_s);
    }
    if (w->n > 0 && (w->start_s == NULL || w->end_s == NULL || w->bytes == NULL))
        return error_set(err, STATUS_INVALID, "missing window start_s, end_s or bytes");
    if (!stats_grid_holds(s, log_start_s) || !stats_grid_holds(s, log_end_s) ||
        !(log_start_s <= log_end_s)) {
        return error_set(err, STATUS_INVALID, "logged span [%.17g, %.17g]", log_start_s,
                         log_end_s);
    }
    for (size_t k = 0; k < w->n; k++) {
        if (!stats_grid_holds(s, w->start_s[k]) || !stats_grid_holds(s, w->end_s[k]) ||
            !(w->start_s[k] <= w->end_s[k])) {
            return error_set(err, STATUS_INVALID, "window %zu [%.17g, %.17g]", k,
                             w->start_s[k], w->end_s[k]);
        }
        if (!(isfinite(w->bytes[k]) && w->bytes[k] >= 0.0))
            return error_set(err, STATUS_INVALID, "window %zu: bytes %g", k, w->bytes[k]);
    }
    return STATUS_OK;
}

/* Adds bytes to element j − j_first of d when interval j is in the series. */
static void put(const struct stats_series *s, double *d_bytes, int64_t j, double bytes)
{
    int64_t i = j - s->j_first;

    if (i >= 0 && i < (int64_t)s->n)
        d_bytes[i] += bytes;
}

/* Spreads one window's bytes over the intervals it overlaps, in proportion to the
 * overlap: the client's rate is taken as constant over the window, the only thing a
 * first and last timestamp tell. */
static void spread(const struct stats_series *s, double a, double b, double bytes,
                   double *d_bytes)
{
    int64_t lo = stats_grid_interval_from(s, a);

    if (!(b > a)) {
        put(s, d_bytes, lo, bytes);
        return;
    }
    int64_t hi = stats_grid_interval_to(s, b);
    /* Only the intervals inside the series receive anything: skip the rest. */
    int64_t first = lo > s->j_first ? lo : s->j_first;
    int64_t last =
        hi < s->j_first + (int64_t)s->n - 1 ? hi : s->j_first + (int64_t)s->n - 1;
    double len = b - a;

    for (int64_t j = first; j <= last; j++) {
        double piece = fmin(b, stats_grid_end(s, j)) - fmax(a, stats_grid_end(s, j - 1));
        if (piece > 0.0)
            put(s, d_bytes, j, bytes * (piece / len));
    }
}

enum status stats_coverage_compute(const struct stats_series *s,
                                   const struct stats_coverage_windows *w,
                                   double log_start_s, double log_end_s, double *d_bytes,
                                   double *s_bytes, struct stats_coverage *out,
                                   struct error *err)
{
    enum status rc =
        check_inputs(s, w, log_start_s, log_end_s, d_bytes, s_bytes, out, err);

    if (rc != STATUS_OK)
        return rc;
    *out = (struct stats_coverage){.coverage = NAN};
    for (size_t i = 0; i < s->n; i++) {
        d_bytes[i] = 0.0;
        double v = (s->r[i] + s->w[i]) * s->delta_s;
        s_bytes[i] = s->present[i] && isfinite(v) ? v : (double)NAN;
    }
    for (size_t k = 0; k < w->n; k++) {
        out->d_total_bytes += w->bytes[k];
        spread(s, w->start_s[k], w->end_s[k], w->bytes[k], d_bytes);
    }

    /* D is known over the intervals the logged span touches, by the rule of the
     * active set: from the one holding its start to the last it overlaps. */
    int64_t log_lo = stats_grid_interval_from(s, log_start_s);
    int64_t log_hi =
        log_end_s > log_start_s ? stats_grid_interval_to(s, log_end_s) : log_lo;
    for (size_t i = 0; i < s->n; i++) {
        int64_t j = s->j_first + (int64_t)i;
        if (j < log_lo || j > log_hi) {
            d_bytes[i] = NAN;
            continue;
        }
        if (isnan(s_bytes[i]))
            continue;
        out->sum_d_bytes += d_bytes[i];
        out->sum_s_bytes += s_bytes[i];
        out->n_both++;
    }
    if (out->sum_s_bytes > 0.0)
        out->coverage = out->sum_d_bytes / out->sum_s_bytes;
    return STATUS_OK;
}
