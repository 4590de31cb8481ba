/* table.c: the numbers of a group's table (docs/method.md §4; the paper's Tables I, II
 * and Fig. 2): mean and sd of a metric, the histogram of T^D. */
#include "stats.h"

#include <math.h>

#include <gsl/gsl_statistics_double.h>

/* Fig. 2's lines: mean ∓ z·sd, z the 95th percentile of the standard normal. */
#define BAND_Z 1.645

enum status stats_summary_compute(const double *v, size_t n, struct stats_summary *out,
                                  struct error *err)
{
    if (out == NULL || (v == NULL && n > 0))
        return error_set(err, STATUS_INVALID, "missing values or output");
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return error_set(err, STATUS_INVALID, "value %zu is %g", i, v[i]);
    }
    out->n = n;
    out->mean = n > 0 ? gsl_stats_mean(v, 1, n) : (double)NAN;
    out->sd = n > 1 ? gsl_stats_sd_m(v, 1, n, out->mean) : (double)NAN;
    return STATUS_OK;
}

/* The bin k whose centre k·width is nearest v: [(k − 1/2)·width, (k + 1/2)·width). */
static double bin_of(double v, double width)
{
    return floor(v / width + 0.5);
}

enum status stats_histogram_compute(const double *v, size_t n, double width_s,
                                    size_t *counts, size_t max_bins,
                                    struct stats_histogram *out, struct error *err)
{
    double lo = INFINITY, hi = -INFINITY;
    enum status rc;

    if (out == NULL || counts == NULL || (v == NULL && n > 0))
        return error_set(err, STATUS_INVALID, "missing values, counts or output");
    if (!(isfinite(width_s) && width_s > 0.0) || max_bins == 0) {
        return error_set(err, STATUS_INVALID, "bin width %g s with %zu bins", width_s,
                         max_bins);
    }
    *out = (struct stats_histogram){
        .bin_width_s = width_s, .first_edge_s = NAN, .band_low = NAN, .band_high = NAN};
    rc = stats_summary_compute(v, n, &out->summary, err);
    if (rc != STATUS_OK)
        return rc;
    if (n == 0)
        return STATUS_OK;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
    }
    /* Bins needed at width_s; above max_bins, widen by the least whole factor that
     * fits (the span in bins can only shrink as the width grows). */
    double need = bin_of(hi, width_s) - bin_of(lo, width_s) + 1.0;
    double width = width_s;
    if (need > (double)max_bins) {
        double f = ceil(need / (double)max_bins);
        width = f * width_s;
        while (bin_of(hi, width) - bin_of(lo, width) + 1.0 > (double)max_bins)
            width += width_s;
    }
    double k_lo = bin_of(lo, width);
    out->bin_width_s = width;
    out->first_edge_s = (k_lo - 0.5) * width;
    out->n_bins = (size_t)(bin_of(hi, width) - k_lo) + 1;
    for (size_t k = 0; k < out->n_bins; k++)
        counts[k] = 0;
    for (size_t i = 0; i < n; i++)
        counts[(size_t)(bin_of(v[i], width) - k_lo)]++;
    if (isfinite(out->summary.sd)) {
        out->band_low = out->summary.mean - BAND_Z * out->summary.sd;
        out->band_high = out->summary.mean + BAND_Z * out->summary.sd;
    }
    return STATUS_OK;
}
