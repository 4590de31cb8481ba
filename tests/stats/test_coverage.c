/* test_coverage.c: D_i, S_i and the coverage of METHOD.md §7, and the numbers of a
 * group's table (§4): mean, sd and the T^D histogram, each worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <gsl/gsl_errno.h>

#include <math.h>
#include <string.h>

/* An epoch-sized grid point on the 60 s grid: B = J0·60, so interval i (1-based) of
 * the series below is (B + 60(i − 1), B + 60i]. */
#define J0    INT64_C(28333333)
#define B     1699999980.0
#define DELTA 60.0
/* A few products and sums of unround numbers, each rounded once. */
#define REL 1e-14

/* A present series of n intervals from grid interval J0 + 1 with unround rates. */
static struct stats_series *series_new(size_t n)
{
    struct stats_series *s = stats_series_new(DELTA, J0 + 1, n);

    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        double x = (double)i;
        s->r[i] = 2.385e6 * (1.0 + 0.37 * x);
        s->w[i] = 9.113e5 / (1.0 + 0.11 * x);
        s->ro[i] = NAN; /* coverage uses bandwidths only */
        s->wo[i] = NAN;
        s->present[i] = 1;
    }
    return s;
}

static double s_of(const struct stats_series *s, size_t i)
{
    return (s->r[i] + s->w[i]) * DELTA;
}

static void window_split_across_two_intervals_puts_bytes_in_proportion(void **state)
{
    /* [B + 50, B + 80] with 3.3e6 bytes: 10 s of its 30 s in interval 1, 20 s in
     * interval 2, so D_1 = 1.1e6 and D_2 = 2.2e6; interval 3 gets nothing. */
    struct stats_series *s = series_new(3);
    const double a[] = {B + 50.0}, b[] = {B + 80.0}, bytes[] = {3.3e6};
    struct stats_coverage_windows w = {a, b, bytes, 1};
    double d[3], sv[3];
    struct stats_coverage c;

    (void)state;
    assert_int_equal(stats_coverage_compute(s, &w, B + 1.0, B + 170.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_rel(d[0], 1.1e6, REL * 1.1e6);
    assert_rel(d[1], 2.2e6, REL * 2.2e6);
    assert_rel(d[2], 0.0, 0.0);
    for (size_t i = 0; i < 3; i++)
        assert_rel(sv[i], s_of(s, i), REL * s_of(s, i));
    double sum_s = s_of(s, 0) + s_of(s, 1) + s_of(s, 2);
    assert_int_equal(c.n_both, 3);
    assert_rel(c.sum_d_bytes, 3.3e6, REL * 3.3e6);
    assert_rel(c.sum_s_bytes, sum_s, REL * sum_s);
    assert_rel(c.coverage, 3.3e6 / sum_s, REL);
    assert_rel(c.d_total_bytes, 3.3e6, 0.0);
    stats_series_free(s);
}

static void zero_length_window_puts_all_its_bytes_in_its_interval(void **state)
{
    /* At B + 120, a boundary: the interval that starts there (3) gets all 7.77e5
     * bytes (METHOD.md §3's rule for the active set). One inside interval 1 too. */
    struct stats_series *s = series_new(3);
    const double a[] = {B + 120.0, B + 33.3}, b[] = {B + 120.0, B + 33.3};
    const double bytes[] = {7.77e5, 1.25e4};
    struct stats_coverage_windows w = {a, b, bytes, 2};
    double d[3], sv[3];
    struct stats_coverage c;

    (void)state;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 180.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_rel(d[0], 1.25e4, 0.0);
    assert_rel(d[1], 0.0, 0.0);
    assert_rel(d[2], 7.77e5, 0.0);
    assert_rel(c.sum_d_bytes, 7.77e5 + 1.25e4, 0.0);
    stats_series_free(s);
}

static void reads_and_writes_add_up_in_the_same_interval(void **state)
{
    /* A read window [B + 70, B + 110] of 4e6 bytes and a write window
     * [B + 100, B + 130] of 1.5e6: interval 2 gets all the reads and 20/30 of the
     * writes (1e6), interval 3 the other 10/30 (5e5). */
    struct stats_series *s = series_new(3);
    const double a[] = {B + 70.0, B + 100.0}, b[] = {B + 110.0, B + 130.0};
    const double bytes[] = {4e6, 1.5e6};
    struct stats_coverage_windows w = {a, b, bytes, 2};
    double d[3], sv[3];
    struct stats_coverage c;

    (void)state;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 180.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_rel(d[0], 0.0, 0.0);
    assert_rel(d[1], 5e6, REL * 5e6);
    assert_rel(d[2], 5e5, REL * 5e5);
    assert_rel(c.sum_d_bytes, 5.5e6, REL * 5.5e6);
    stats_series_free(s);
}

static void hole_leaves_its_interval_out_of_both_sums(void **state)
{
    /* Interval 2 is a hole: S_2 is null, and D_2 (2.2e6 of the split window) counts
     * in neither sum; coverage = D_1 / (S_1 + S_3). */
    struct stats_series *s = series_new(3);
    const double a[] = {B + 50.0}, b[] = {B + 80.0}, bytes[] = {3.3e6};
    struct stats_coverage_windows w = {a, b, bytes, 1};
    double d[3], sv[3];
    struct stats_coverage c;

    (void)state;
    s->present[1] = 0;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 180.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_true(isnan(sv[1]));
    assert_rel(d[1], 2.2e6, REL * 2.2e6);
    assert_int_equal(c.n_both, 2);
    double sum_s = s_of(s, 0) + s_of(s, 2);
    assert_rel(c.sum_d_bytes, 1.1e6, REL * 1.1e6);
    assert_rel(c.sum_s_bytes, sum_s, REL * sum_s);
    assert_rel(c.coverage, 1.1e6 / sum_s, REL);
    assert_rel(c.d_total_bytes, 3.3e6, 0.0);
    stats_series_free(s);
}

static void intervals_outside_the_logged_span_have_no_d(void **state)
{
    /* Logs cover [B + 61, B + 119]: only interval 2 has D (0 here: no window), so the
     * coverage is 0 / S_2; intervals 1 and 3 have S but no D. */
    struct stats_series *s = series_new(3);
    struct stats_coverage_windows w = {NULL, NULL, NULL, 0};
    double d[3], sv[3];
    struct stats_coverage c;

    (void)state;
    assert_int_equal(stats_coverage_compute(s, &w, B + 61.0, B + 119.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_true(isnan(d[0]));
    assert_rel(d[1], 0.0, 0.0);
    assert_true(isnan(d[2]));
    assert_int_equal(c.n_both, 1);
    assert_rel(c.coverage, 0.0, 0.0);
    assert_rel(c.sum_s_bytes, s_of(s, 1), REL * s_of(s, 1));
    stats_series_free(s);
}

static void bytes_beyond_the_series_count_only_in_the_total(void **state)
{
    /* [B + 150, B + 210] of 6e6 bytes: half falls in interval 3, half past the
     * series; a zero-length window before it is lost whole. */
    struct stats_series *s = series_new(3);
    const double a[] = {B + 150.0, B - 500.0}, b[] = {B + 210.0, B - 500.0};
    const double bytes[] = {6e6, 2.5e5};
    struct stats_coverage_windows w = {a, b, bytes, 2};
    double d[3], sv[3];
    struct stats_coverage c;

    (void)state;
    assert_int_equal(stats_coverage_compute(s, &w, B - 600.0, B + 600.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_rel(d[2], 3e6, REL * 3e6);
    assert_rel(c.sum_d_bytes, 3e6, REL * 3e6);
    assert_rel(c.d_total_bytes, 6.25e6, 0.0);
    stats_series_free(s);
}

static void coverage_above_one_is_kept(void **state)
{
    /* Clients can log more than the servers saw (caches): the ratio is not capped. */
    struct stats_series *s = series_new(1);
    const double a[] = {B + 1.0}, b[] = {B + 59.0}, bytes[] = {3.0 * s_of(s, 0)};
    struct stats_coverage_windows w = {a, b, bytes, 1};
    double d[1], sv[1];
    struct stats_coverage c;

    (void)state;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 60.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_rel(c.coverage, 3.0, 1e-15);
    stats_series_free(s);
}

static void no_server_volume_gives_no_coverage(void **state)
{
    struct stats_series *s = series_new(2);
    struct stats_coverage_windows w = {NULL, NULL, NULL, 0};
    double d[2], sv[2];
    struct stats_coverage c;

    (void)state;
    s->present[0] = s->present[1] = 0;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 120.0, d, sv, &c, NULL),
                     STATUS_OK);
    assert_int_equal(c.n_both, 0);
    assert_true(isnan(c.coverage));
    stats_series_free(s);
}

static void bad_inputs_are_invalid(void **state)
{
    struct stats_series *s = series_new(2);
    double a[] = {B + 10.0}, b[] = {B + 20.0}, bytes[] = {1e3};
    struct stats_coverage_windows w = {a, b, bytes, 1};
    double d[2], sv[2];
    struct stats_coverage c;
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_coverage_compute(NULL, &w, B, B + 1, d, sv, &c, &err),
                     STATUS_INVALID);
    assert_int_equal(stats_coverage_compute(s, NULL, B, B + 1, d, sv, &c, &err),
                     STATUS_INVALID);
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 1, NULL, sv, &c, &err),
                     STATUS_INVALID);
    assert_int_equal(stats_coverage_compute(s, &w, B + 1, B, d, sv, &c, &err),
                     STATUS_INVALID);
    assert_int_equal(stats_coverage_compute(s, &w, NAN, B, d, sv, &c, &err),
                     STATUS_INVALID);
    b[0] = B + 5.0; /* reversed */
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 1, d, sv, &c, &err),
                     STATUS_INVALID);
    b[0] = INFINITY;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 1, d, sv, &c, &err),
                     STATUS_INVALID);
    b[0] = B + 20.0;
    bytes[0] = -1.0;
    error_clear(&err);
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 1, d, sv, &c, &err),
                     STATUS_INVALID);
    assert_non_null(strstr(err.msg, "bytes"));
    s->delta_s = 0.0;
    bytes[0] = 1e3;
    assert_int_equal(stats_coverage_compute(s, &w, B, B + 1, d, sv, &c, &err),
                     STATUS_INVALID);
    stats_series_free(s);
}

/* ---- the group table --------------------------------------------------------- */

static void summary_is_mean_and_sd_with_n_minus_1(void **state)
{
    /* 2.385, 4.77, 11.925: mean 19.08 / 3 = 6.36; deviations −3.975, −1.59, 5.565,
     * squares 15.800625 + 2.5281 + 30.969225 = 49.29795, over 2: sd² = 24.648975. */
    const double v[] = {2.385, 4.77, 11.925};
    struct stats_summary s;

    (void)state;
    assert_int_equal(stats_summary_compute(v, 3, &s, NULL), STATUS_OK);
    assert_int_equal(s.n, 3);
    assert_rel(s.mean, 6.36, 1e-15);
    assert_rel(s.sd, sqrt(24.648975), 1e-14);
    assert_int_equal(stats_summary_compute(v, 1, &s, NULL), STATUS_OK);
    assert_rel(s.mean, 2.385, 0.0);
    assert_true(isnan(s.sd));
    assert_int_equal(stats_summary_compute(NULL, 0, &s, NULL), STATUS_OK);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean));
    const double bad[] = {1.0, NAN};
    assert_int_equal(stats_summary_compute(bad, 2, &s, NULL), STATUS_INVALID);
    assert_int_equal(stats_summary_compute(v, 3, NULL, NULL), STATUS_INVALID);
}

static void td_histogram_has_one_bin_per_m_centred_on_it(void **state)
{
    /* T^D of 5 jobs on Δ = 60: 120, 120, 180, 300, 120. Bins centred on 120 … 300:
     * [90, 150) 3, [150, 210) 1, [210, 270) 0, [270, 330) 1. Mean 168, deviations
     * −48 −48 12 132 −48: squares 2304·3 + 144 + 17424 = 24480, sd² = 6120. */
    const double td[] = {120.0, 120.0, 180.0, 300.0, 120.0};
    size_t counts[8];
    struct stats_histogram h;

    (void)state;
    assert_int_equal(stats_histogram_compute(td, 5, DELTA, counts, 8, &h, NULL),
                     STATUS_OK);
    assert_rel(h.bin_width_s, 60.0, 0.0);
    assert_rel(h.first_edge_s, 90.0, 0.0);
    assert_int_equal(h.n_bins, 4);
    assert_int_equal(counts[0], 3);
    assert_int_equal(counts[1], 1);
    assert_int_equal(counts[2], 0);
    assert_int_equal(counts[3], 1);
    assert_int_equal(h.summary.n, 5);
    assert_rel(h.summary.mean, 168.0, 1e-13);
    assert_rel(h.summary.sd, sqrt(6120.0), 1e-12);
    assert_rel(h.band_low, 168.0 - 1.645 * sqrt(6120.0), 1e-12);
    assert_rel(h.band_high, 168.0 + 1.645 * sqrt(6120.0), 1e-12);
}

static void td_histogram_widens_its_bins_to_fit_the_bins_given(void **state)
{
    /* 60 and 600 need 10 bins of 60 s; with 4 the width becomes 180 (3·60, the least
     * multiple needing <= 4: centres 0, 180, 360, 540, 720 → bins of 60 (k = 0) to
     * 600 (k = 3), 4 bins; 120 s would need 5). */
    const double td[] = {60.0, 600.0, 240.0};
    size_t counts[4];
    struct stats_histogram h;

    (void)state;
    assert_int_equal(stats_histogram_compute(td, 3, DELTA, counts, 4, &h, NULL),
                     STATUS_OK);
    assert_rel(h.bin_width_s, 180.0, 0.0);
    assert_int_equal(h.n_bins, 4);
    assert_rel(h.first_edge_s, -90.0, 0.0);
    assert_int_equal(counts[0], 1); /* 60 in [−90, 90) */
    assert_int_equal(counts[1], 1); /* 240 in [90, 270) */
    assert_int_equal(counts[2], 0);
    assert_int_equal(counts[3], 1); /* 600 in [450, 630) */
}

static void td_histogram_of_nothing_is_empty_and_bad_input_invalid(void **state)
{
    size_t counts[2];
    struct stats_histogram h;
    const double bad[] = {INFINITY};

    (void)state;
    assert_int_equal(stats_histogram_compute(NULL, 0, DELTA, counts, 2, &h, NULL),
                     STATUS_OK);
    assert_int_equal(h.n_bins, 0);
    assert_true(isnan(h.first_edge_s));
    assert_true(isnan(h.band_low));
    assert_int_equal(stats_histogram_compute(bad, 1, DELTA, counts, 2, &h, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_histogram_compute(bad, 0, 0.0, counts, 2, &h, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_histogram_compute(bad, 0, DELTA, counts, 0, &h, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_histogram_compute(bad, 0, DELTA, NULL, 2, &h, NULL),
                     STATUS_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_split_across_two_intervals_puts_bytes_in_proportion),
        cmocka_unit_test(zero_length_window_puts_all_its_bytes_in_its_interval),
        cmocka_unit_test(reads_and_writes_add_up_in_the_same_interval),
        cmocka_unit_test(hole_leaves_its_interval_out_of_both_sums),
        cmocka_unit_test(intervals_outside_the_logged_span_have_no_d),
        cmocka_unit_test(bytes_beyond_the_series_count_only_in_the_total),
        cmocka_unit_test(coverage_above_one_is_kept),
        cmocka_unit_test(no_server_volume_gives_no_coverage),
        cmocka_unit_test(bad_inputs_are_invalid),
        cmocka_unit_test(summary_is_mean_and_sd_with_n_minus_1),
        cmocka_unit_test(td_histogram_has_one_bin_per_m_centred_on_it),
        cmocka_unit_test(td_histogram_widens_its_bins_to_fit_the_bins_given),
        cmocka_unit_test(td_histogram_of_nothing_is_empty_and_bad_input_invalid),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
