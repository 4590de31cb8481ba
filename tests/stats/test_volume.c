/* test_volume.c: Ψ, Ψ^O, A, T^D, Ψ^D, Ψ^{DO}, A^I, Ψ^I (METHOD.md §3) and their holes. */
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

/* An epoch-sized grid point on the 60 s grid: B = J0·60. Interval i of METHOD.md's
 * worked example, (B + 60(i − 1), B + 60i], is grid interval J0 + i. */
#define J0    INT64_C(28333333)
#define B     1699999980.0
#define DELTA 60.0
/* Relative tolerance: sums of a few dozen products rounded once each. */
#define REL 1e-13

/* A present series of n intervals from grid interval J0 + 1, unround rates that
 * differ per interval. */
static struct stats_series *series_new(size_t n)
{
    struct stats_series *s = stats_series_new(DELTA, J0 + 1, n);

    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        double x = (double)i;
        s->r[i] = 2.385e8 * (1.0 + 0.37 * x) + 1.113e7 * sin(1.7 * x);
        s->w[i] = 9.113e7 / (1.0 + 0.11 * x);
        s->ro[i] = 417.25 + 13.3 * x;
        s->wo[i] = 213.125 * (1.0 + 0.05 * x * x);
        s->present[i] = 1;
    }
    return s;
}

/* Rate of METHOD.md's interval i (1-based). */
static double rate_r(const struct stats_series *s, int i)
{
    return s->r[i - 1];
}

static struct stats_job job_of(double start, double end, const struct stats_window *w,
                               size_t n)
{
    struct stats_job job = {.start_s = start, .end_s = end, .windows = w, .n_windows = n};
    return job;
}

static void worked_example_of_method_md(void **state)
{
    /* Δ = 60, windows [10, 20] and [130, 135]: A = {(0, 60], (120, 180]}, m = 2,
     * T^D = 120, Ψ^D_R = 50·R_1 + 15·R_3, |S^D| = 65 (METHOD.md §3). */
    struct stats_series *s = series_new(3);
    const struct stats_window w[] = {{B + 10.0, B + 20.0, true},
                                     {B + 130.0, B + 135.0, true}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, w, 2);
    struct stats_job_volume v;
    size_t scratch[4];

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_int_equal(v.m, 2);
    assert_rel(v.t_d, 120.0, 0.0);
    double want = 50.0 * s->r[0] + 15.0 * s->r[2];
    assert_rel(v.psi_d_read, want, REL * want);
    want = 50.0 * s->w[0] + 15.0 * s->w[2];
    assert_rel(v.psi_d_write, want, REL * want);
    want = 50.0 * s->ro[0] + 15.0 * s->ro[2];
    assert_rel(v.psi_do_read, want, REL * want);
    want = 50.0 * s->wo[0] + 15.0 * s->wo[2];
    assert_rel(v.psi_do_write, want, REL * want);
    assert_rel(v.s_d, 65.0, 1e-9);
    /* Eq. 2 over [5, 170]: Δ·(R_1 + R_2 + R_3) − 5·R_1 − 10·R_3. */
    assert_int_equal(v.psi_excl, EXCL_NONE);
    want = 55.0 * s->r[0] + 60.0 * s->r[1] + 50.0 * s->r[2];
    assert_rel(v.psi_read, want, REL * want);
    want = 55.0 * s->ro[0] + 60.0 * s->ro[1] + 50.0 * s->ro[2];
    assert_rel(v.psi_o_read, want, REL * want);
    /* Both windows are monitored: A^I = A. */
    assert_int_equal(v.i_excl, EXCL_NONE);
    assert_int_equal(v.m_i, 2);
    assert_rel(v.t_i, 120.0, 0.0);
    assert_rel(v.psi_i_read, v.psi_d_read, 0.0);
    stats_series_free(s);
}

static void window_starting_on_a_grid_stamp_belongs_to_the_interval_after_it(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window starts[] = {{B + 60.0, B + 70.5, true}};
    const struct stats_window ends[] = {{B + 49.25, B + 60.0, true}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, starts, 1);
    struct stats_job_volume v;
    size_t scratch[2];

    (void)state;
    /* [60, 70.5] overlaps (0, 60] in one point only: A = {(60, 120]}. */
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.m, 1);
    assert_rel(v.psi_d_read, 10.5 * rate_r(s, 2), REL * v.psi_d_read);
    assert_rel(v.s_d, 10.5, 1e-9);
    /* [49.25, 60] ends on the stamp: A = {(0, 60]}. */
    job.windows = ends;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.m, 1);
    assert_rel(v.psi_d_read, 10.75 * rate_r(s, 1), REL * v.psi_d_read);
    stats_series_free(s);
}

static void zero_length_window_activates_the_interval_containing_it(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window inside[] = {{B + 75.5, B + 75.5, true}};
    const struct stats_window on_stamp[] = {{B + 120.0, B + 120.0, true}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, inside, 1);
    struct stats_job_volume v;
    size_t scratch[2];

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_int_equal(v.m, 1);
    assert_rel(v.t_d, 60.0, 0.0);
    /* S^D = [75.5, 75.5]: no length, no volume. */
    assert_rel(v.psi_d_read, 0.0, REL * rate_r(s, 2) * 60.0);
    assert_rel(v.s_d, 0.0, 1e-9);
    /* On a stamp, the instant belongs to the interval that starts there. */
    job.windows = on_stamp;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.m, 1);
    s->present[1] = 0; /* (60, 120] is not needed, (120, 180] is */
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_NONE);
    s->present[2] = 0;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_HOLE);
    stats_series_free(s);
}

static void job_shorter_than_one_interval_prorates_a_single_interval(void **state)
{
    struct stats_series *s = series_new(3);
    struct stats_job job = job_of(B + 65.25, B + 100.5, NULL, 0);
    struct stats_job_volume v;

    (void)state;
    /* n = 1: Δ·R_2 − 5.25·R_2 − 19.5·R_2 = 35.25·R_2. */
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONE);
    assert_rel(v.psi_read, 35.25 * s->r[1], REL * v.psi_read);
    assert_rel(v.psi_write, 35.25 * s->w[1], REL * v.psi_write);
    assert_rel(v.psi_o_write, 35.25 * s->wo[1], REL * v.psi_o_write);
    /* A zero-length job: one interval, no volume; on a stamp it is the next one. */
    job = job_of(B + 120.0, B + 120.0, NULL, 0);
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONE);
    assert_rel(v.psi_read, 0.0, 0.0);
    assert_rel(v.psi_o_read, 0.0, 0.0);
    s->present[2] = 0;
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_HOLE);
    stats_series_free(s);
}

static void span_crossing_a_hole_excludes_psi_but_not_an_inactive_family(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window w[] = {{B + 10.0, B + 20.0, true},
                                     {B + 130.0, B + 135.0, true}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, w, 2);
    struct stats_job_volume v;
    size_t scratch[4];

    (void)state;
    s->present[1] = 0; /* (60, 120]: in the span, not active */
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_HOLE);
    assert_true(isnan(v.psi_read) && isnan(v.psi_o_write));
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_int_equal(v.i_excl, EXCL_NONE);
    double want = 50.0 * s->r[0] + 15.0 * s->r[2];
    assert_rel(v.psi_d_read, want, REL * want);
    stats_series_free(s);
}

static void hole_inside_the_active_set_excludes_the_d_family(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window w[] = {{B + 10.0, B + 20.0, true},
                                     {B + 130.0, B + 135.0, false}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, w, 2);
    struct stats_job_volume v;
    size_t scratch[4];

    (void)state;
    s->present[2] = 0; /* (120, 180]: active through the unmonitored window only */
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_HOLE);
    assert_int_equal(v.d_excl, EXCL_HOLE);
    assert_true(isnan(v.psi_d_read) && isnan(v.psi_do_read));
    /* m, T^D and |S^D| need only the grid; they stay reported beside the reason. */
    assert_int_equal(v.m, 2);
    assert_rel(v.s_d, 65.0, 1e-9);
    assert_int_equal(v.i_excl, EXCL_NONE);
    assert_int_equal(v.m_i, 1);
    assert_rel(v.psi_i_read, 10.0 * s->r[0], REL * v.psi_i_read);
    stats_series_free(s);
}

static void windows_outside_the_series_are_a_hole(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window w[] = {{B + 170.0, B + 200.0, true}};
    struct stats_job job = job_of(B - 30.0, B + 175.0, w, 1);
    struct stats_job_volume v;
    size_t scratch[2];

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_HOLE);
    assert_int_equal(v.d_excl, EXCL_HOLE);
    assert_int_equal(v.m, 2);
    stats_series_free(s);
}

/* ∫ of the step function R over [lo, hi], interval by interval. */
static double step_integral(const struct stats_series *s, const double *rate, double lo,
                            double hi)
{
    double sum = 0.0;

    for (size_t i = 0; i < s->n; i++) {
        double te = s->origin_s + (double)(s->j_first + (int64_t)i) * s->delta_s;
        double a = fmax(lo, te - s->delta_s), b = fmin(hi, te);
        if (b > a)
            sum += rate[i] * (b - a);
    }
    return sum;
}

static void psi_equals_the_integral_of_the_step_function(void **state)
{
    struct stats_series *s = series_new(40);
    struct stats_job_volume v;
    const double starts[] = {B + 37.25, B + 60.0, B + 0.125, B + 1234.5};
    const double ends[] = {B + 1999.625, B + 2400.0, B + 59.875, B + 1234.75};

    (void)state;
    for (size_t c = 0; c < 4; c++) {
        struct stats_job job = job_of(starts[c], ends[c], NULL, 0);
        assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_OK);
        double want = step_integral(s, s->r, starts[c], ends[c]);
        assert_rel(v.psi_read, want, REL * want);
        want = step_integral(s, s->wo, starts[c], ends[c]);
        assert_rel(v.psi_o_write, want, REL * want);
    }
    stats_series_free(s);
}

/* METHOD.md's definition of A, interval by interval: the brute force. */
static bool active_by_definition(const struct stats_window *w, size_t n, double lo,
                                 double hi)
{
    for (size_t k = 0; k < n; k++) {
        double a = w[k].start_s, b = w[k].end_s;
        if (fmax(a, lo) < fmin(b, hi) || (a == b && lo <= a && a < hi))
            return true;
    }
    return false;
}

static void psi_d_equals_the_integral_over_s_d_with_gaps_and_overlaps(void **state)
{
    /* Unsorted, overlapping, nested, duplicated and zero-length windows with gaps
     * of inactive intervals between them. */
    const struct stats_window w[] = {
        {B + 1500.25, B + 1620.0, true}, {B + 73.5, B + 200.125, false},
        {B + 95.0, B + 130.0, true},     {B + 900.0, B + 900.0, true},
        {B + 73.5, B + 200.125, true},   {B + 2100.0, B + 2157.375, false},
        {B + 610.75, B + 611.0, true},   {B + 180.0, B + 240.0, true},
    };
    const size_t nw = sizeof w / sizeof w[0];
    struct stats_series *s = series_new(40);
    struct stats_job job = job_of(B + 50.0, B + 2200.0, w, nw);
    struct stats_job_volume v;
    size_t scratch[2 * sizeof w / sizeof w[0]];
    double t_start = B + 73.5, t_end = B + 2157.375;
    double want_r = 0.0, want_wo = 0.0, want_s = 0.0;
    size_t m = 0;

    (void)state;
    for (size_t i = 0; i < s->n; i++) {
        double hi = B + DELTA * (double)(i + 1), lo = hi - DELTA;
        if (!active_by_definition(w, nw, lo, hi))
            continue;
        m++;
        /* S^D = [t_start, t_end] ∩ ∪ A: full interior intervals, pro-rated ends */
        double len = fmax(0.0, fmin(hi, t_end) - fmax(lo, t_start));
        want_r += s->r[i] * len;
        want_wo += s->wo[i] * len;
        want_s += len;
    }
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_int_equal(v.m, m);
    assert_rel(v.t_d, (double)m * DELTA, 0.0);
    assert_rel(v.psi_d_read, want_r, REL * want_r);
    assert_rel(v.psi_do_write, want_wo, REL * want_wo);
    assert_rel(v.s_d, want_s, 1e-9);
    /* A^I: the monitored windows alone, [73.5, 1620] */
    size_t m_i = 0;
    for (size_t i = 0; i < s->n; i++) {
        double hi = B + DELTA * (double)(i + 1), lo = hi - DELTA;
        bool on = false;
        for (size_t k = 0; k < nw; k++)
            on = on || (w[k].monitored && active_by_definition(&w[k], 1, lo, hi));
        m_i += on;
    }
    assert_int_equal(v.m_i, m_i);
    assert_true(m_i < m);
    stats_series_free(s);
}

static void job_without_windows_has_no_io(void **state)
{
    struct stats_series *s = series_new(3);
    struct stats_job job = job_of(B + 5.0, B + 170.0, NULL, 0);
    struct stats_job_volume v;

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONE);
    assert_int_equal(v.d_excl, EXCL_NO_IO);
    assert_int_equal(v.i_excl, EXCL_NO_IO);
    assert_int_equal(v.m, 0);
    assert_int_equal(v.m_i, 0);
    assert_true(isnan(v.t_d) && isnan(v.psi_d_read) && isnan(v.s_d) && isnan(v.t_i));
    stats_series_free(s);
}

static void monitored_windows_alone_define_the_i_family(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window w[] = {{B + 10.0, B + 20.0, false},
                                     {B + 130.0, B + 135.0, true}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, w, 2);
    struct stats_job_volume v;
    size_t scratch[4];

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.m, 2);
    assert_int_equal(v.i_excl, EXCL_NONE);
    assert_int_equal(v.m_i, 1);
    assert_rel(v.t_i, 60.0, 0.0);
    /* t_start = 130, t_0 = 120, t_m = 180, t_end = 135: 60·R_3 − 10·R_3 − 45·R_3 */
    assert_rel(v.psi_i_read, 5.0 * s->r[2], REL * v.psi_i_read);
    assert_rel(v.psi_i_write, 5.0 * s->w[2], REL * v.psi_i_write);

    const struct stats_window none[] = {{B + 10.0, B + 20.0, false}};
    job.windows = none;
    job.n_windows = 1;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_int_equal(v.i_excl, EXCL_NO_MONITORED_IO);
    assert_int_equal(v.m_i, 0);
    assert_true(isnan(v.psi_i_read));
    stats_series_free(s);
}

static void unknown_operation_rates_leave_psi_o_null_without_exclusion(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window w[] = {{B + 10.0, B + 20.0, true}};
    struct stats_job job = job_of(B + 5.0, B + 170.0, w, 1);
    struct stats_job_volume v;
    size_t scratch[2];

    (void)state;
    for (size_t i = 0; i < s->n; i++)
        s->ro[i] = s->wo[i] = NAN;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONE);
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_true(isfinite(v.psi_read) && isfinite(v.psi_d_write));
    assert_true(isnan(v.psi_o_read) && isnan(v.psi_o_write));
    assert_true(isnan(v.psi_do_read) && isnan(v.psi_do_write));
    /* A non-finite bandwidth in a present interval is no number to analyse. */
    s->r[0] = INFINITY;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONFINITE);
    assert_int_equal(v.d_excl, EXCL_NONFINITE);
    stats_series_free(s);
}

static void coarse_phased_series_uses_its_own_origin(void **state)
{
    struct stats_series *f = series_new(40), *c = NULL;
    const struct stats_window w[] = {{B + 200.5, B + 333.25, true}};
    struct stats_job job = job_of(B + 111.0, B + 2011.0, w, 1);
    struct stats_job_volume v;
    size_t scratch[2];

    (void)state;
    assert_int_equal(stats_series_coarsen(f, 3, 2, 0.0, &c, NULL), STATUS_OK);
    assert_rel(c->origin_s, 2.0 * DELTA, 0.0);
    assert_int_equal(stats_job_volume(c, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONE);
    double want = step_integral(c, c->r, job.start_s, job.end_s);
    assert_rel(v.psi_read, want, REL * want);
    /* Coarse intervals end at 120 + 180·q absolute, B + 60 + 180·q here (B is 60
     * past a multiple of 180): [200.5, 333.25] lies in (60, 240] and (240, 420],
     * so m = 2 and T^D = 2·180. */
    assert_int_equal(v.m, 2);
    assert_rel(v.t_d, 360.0, 0.0);
    want = step_integral(c, c->r, B + 200.5, B + 333.25);
    assert_rel(v.psi_d_read, want, REL * want);
    stats_series_free(c);
    stats_series_free(f);
}

static void bad_jobs_and_windows_are_invalid(void **state)
{
    struct stats_series *s = series_new(3);
    const struct stats_window reversed[] = {{B + 20.0, B + 10.0, true}};
    const struct stats_window nan_window[] = {{NAN, B + 10.0, true}};
    struct stats_job job = job_of(B + 170.0, B + 5.0, NULL, 0);
    struct stats_job_volume v;
    size_t scratch[2];
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "job span"));
    job = job_of(NAN, B + 5.0, NULL, 0);
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_INVALID);
    job = job_of(B + 5.0, B + 170.0, reversed, 1);
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_INVALID);
    job.windows = nan_window;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_INVALID);
    job.windows = NULL;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_INVALID);
    job.windows = reversed;
    assert_int_equal(stats_job_volume(s, &job, NULL, &v, NULL), STATUS_INVALID);
    assert_int_equal(stats_job_volume(NULL, &job, scratch, &v, NULL), STATUS_INVALID);
    assert_int_equal(stats_job_volume(s, NULL, scratch, &v, NULL), STATUS_INVALID);
    assert_int_equal(stats_job_volume(s, &job, scratch, NULL, NULL), STATUS_INVALID);
    stats_series_free(s);
}

static void exclusion_names_are_the_interface_words(void **state)
{
    (void)state;
    assert_string_equal(stats_exclusion_name(EXCL_NONE), "");
    assert_string_equal(stats_exclusion_name(EXCL_HOLE), "hole");
    assert_string_equal(stats_exclusion_name(EXCL_NO_IO), "no_io");
    assert_string_equal(stats_exclusion_name(EXCL_NO_MONITORED_IO), "no_monitored_io");
    assert_string_equal(stats_exclusion_name(EXCL_INCOMPLETE_LOG), "incomplete_log");
    assert_string_equal(stats_exclusion_name(EXCL_NONFINITE), "nonfinite");
    assert_string_equal(stats_exclusion_name(EXCL_NONPOSITIVE_IN_LOG_SPACE),
                        "nonpositive_in_log_space");
    assert_string_equal(stats_exclusion_name(EXCL_NO_TRACE), "no_trace");
    assert_string_equal(stats_exclusion_name(EXCL_INCOMPLETE_DXT), "incomplete_dxt");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(worked_example_of_method_md),
        cmocka_unit_test(
            window_starting_on_a_grid_stamp_belongs_to_the_interval_after_it),
        cmocka_unit_test(zero_length_window_activates_the_interval_containing_it),
        cmocka_unit_test(job_shorter_than_one_interval_prorates_a_single_interval),
        cmocka_unit_test(span_crossing_a_hole_excludes_psi_but_not_an_inactive_family),
        cmocka_unit_test(hole_inside_the_active_set_excludes_the_d_family),
        cmocka_unit_test(windows_outside_the_series_are_a_hole),
        cmocka_unit_test(psi_equals_the_integral_of_the_step_function),
        cmocka_unit_test(psi_d_equals_the_integral_over_s_d_with_gaps_and_overlaps),
        cmocka_unit_test(job_without_windows_has_no_io),
        cmocka_unit_test(monitored_windows_alone_define_the_i_family),
        cmocka_unit_test(unknown_operation_rates_leave_psi_o_null_without_exclusion),
        cmocka_unit_test(coarse_phased_series_uses_its_own_origin),
        cmocka_unit_test(bad_jobs_and_windows_are_invalid),
        cmocka_unit_test(exclusion_names_are_the_interface_words),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
