/* test_job.c: one job's _x family (METHOD.md §10) from hand-made jobs over a
 * hand-made series, against values worked by hand on the model of METHOD.md §3's
 * worked example; and its exclusions. White-box: job_eval_on is analysis/'s own
 * (internal.h), the function every front end's numbers come from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../analysis/internal.h"
#include "../support/testutil.h"

#include <gsl/gsl_errno.h>

#include <math.h>
#include <string.h>

/* The 60 s grid of test_volume.c: B = J0·60, METHOD.md's interval i (1-based),
 * (B + 60(i − 1), B + 60i], is grid interval J0 + i. */
#define J0    INT64_C(28333333)
#define B     1699999980.0
#define DELTA 60.0
#define REL   1e-13

/* Four present intervals with unround rates that differ per interval. */
static struct stats_series *series_new(void)
{
    struct stats_series *s = stats_series_new(DELTA, J0 + 1, 4);

    assert_non_null(s);
    for (size_t i = 0; i < 4; i++) {
        double x = (double)i;
        s->r[i] = 2.385e8 * (1.0 + 0.37 * x) + 1.113e7 * sin(1.7 * x);
        s->w[i] = 9.113e7 / (1.0 + 0.11 * x);
        s->ro[i] = 417.25 + 13.3 * x;
        s->wo[i] = 213.125 * (1.0 + 0.05 * x * x);
        s->present[i] = 1;
    }
    return s;
}

static struct db_window win(double a, double b, bool is_write)
{
    struct db_window w = {
        .start_s = B + a, .end_s = B + b, .is_write = is_write, .monitored = true};
    snprintf(w.fs, sizeof w.fs, "scratch1");
    return w;
}

/* The trace of the worked job: a read [10.25, 20.75] and a write [15.5, 25.125]
 * overlapping it, a zero-length read at 70.375, a gap over interval 3, a write
 * [190.5, 200.625]. Its counters' one window [10.25, 25.125]. */
static struct db_window x_worked[4], d_worked[1];

static struct db_job job_new(enum db_trace trace, struct db_window *xw, size_t nx)
{
    struct db_job j = {.start_s = B + 5.0,
                       .end_s = B + 230.0,
                       .log = {[LOG_T_J] = {.f8 = 225.0},
                               [LOG_T] = {.f8 = 41.5},
                               [LOG_ETA_READ] = {.i8 = 1500000000},
                               [LOG_ETA_WRITE] = {.i8 = 725000000},
                               [LOG_ETA_MON_READ] = {.i8 = 1500000000},
                               [LOG_ETA_MON_WRITE] = {.i8 = 725000000}},
                       .windows = d_worked,
                       .n_windows = 1,
                       .trace = trace,
                       .x_windows = xw,
                       .n_x_windows = nx};
    snprintf(j.job_key, sizeof j.job_key, "0123456789abcdef0123456789abcdef");
    return j;
}

static int setup(void **state)
{
    (void)state;
    x_worked[0] = win(10.25, 20.75, false);
    x_worked[1] = win(15.5, 25.125, true);
    x_worked[2] = win(70.375, 70.375, false);
    x_worked[3] = win(190.5, 200.625, true);
    d_worked[0] = win(10.25, 25.125, false);
    return 0;
}

/* Evaluates j over s with scratch sized for it. */
static void eval(const struct stats_series *s, const struct db_job *j,
                 struct job_eval *ev)
{
    struct stats_window win_s[8];
    size_t idx[16];
    struct analysis_scratch scratch = {.win = win_s, .idx = idx};

    assert_true(j->n_windows <= 8 && j->n_x_windows <= 8);
    assert_int_equal(job_eval_on(s, j, &scratch, ev, NULL), STATUS_OK);
}

static double reported(const char *name, const struct db_job *j,
                       const struct job_eval *ev)
{
    const struct metric_def *md = metric_find(name);

    assert_non_null(md);
    return metric_reported(md, j, ev);
}

static void worked_job_with_overlaps_an_instant_and_a_gap(void **state)
{
    /* By hand. Union: [10.25, 25.125] ∪ {70.375} ∪ [190.5, 200.625] = 14.875 + 0 +
     * 10.125 = 25 s; reads [10.25, 20.75] ∪ {70.375} = 10.5 s; writes [15.5, 25.125]
     * ∪ [190.5, 200.625] = 9.625 + 10.125 = 19.75 s. A^X = {(0, 60], (60, 120],
     * (180, 240]} (the instant makes interval 2 active, interval 3 is the gap):
     * m_x = 3, T^DX = 180 s; t^D_start 10.25, t^D_end 200.625, t^D_1 = 60,
     * t^D_m = 240, t^D_0 = 0: Ψ^X = 60(v_1 + v_2 + v_4) − 10.25·v_1 −
     * 39.375·v_4 = 49.75·v_1 + 60·v_2 + 20.625·v_4, |S^X| = 180 − 10.25 − 39.375
     * = 130.375 s, B^X = (Ψ^X_R + Ψ^X_W − 1.5e9 − 7.25e8) / 130.375. */
    struct stats_series *s = series_new();
    struct db_job j = job_new(DB_TRACE_WHOLE, x_worked, 4);
    struct job_eval ev;

    (void)state;
    eval(s, &j, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_NONE);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_NONE);
    assert_rel(reported("t_x", &j, &ev), 25.0, 1e-6);
    assert_rel(reported("t_x_read", &j, &ev), 10.5, 1e-6);
    assert_rel(reported("t_x_write", &j, &ev), 19.75, 1e-6);
    assert_rel(reported("m_x", &j, &ev), 3.0, 0.0);
    assert_rel(reported("t_dx", &j, &ev), 180.0, 0.0);
    double want_r = 49.75 * s->r[0] + 60.0 * s->r[1] + 20.625 * s->r[3];
    double want_w = 49.75 * s->w[0] + 60.0 * s->w[1] + 20.625 * s->w[3];
    assert_rel(reported("psi_x_read", &j, &ev), want_r, REL * want_r);
    assert_rel(reported("psi_x_write", &j, &ev), want_w, REL * want_w);
    assert_rel(ev.xv.s_d, 130.375, 1e-6);
    double want_b = (want_r + want_w - 2.225e9) / 130.375;
    assert_rel(reported("b_x", &j, &ev), want_b, 1e-9 * fabs(want_b));
    assert_true(want_b > 0);
    assert_false(ev.dv.negative & NEGATIVE_B_X);
    /* The counters' family is untouched: one window in interval 1. */
    assert_rel(reported("m", &j, &ev), 1.0, 0.0);
    stats_series_free(s);
}

static void coarser_granularity_recomputes_the_x_family(void **state)
{
    /* k = 2, phase 1: intervals (0, 120] and (120, 240] (the grid's origin 60 puts
     * a boundary at B), rates the means of the fine pairs. Both active: m_x = 2,
     * T^DX = 240 s; Ψ^X = (120 − 10.25)·v'_1 + (200.625 − 120)·v'_2 = 109.75·v'_1 +
     * 80.625·v'_2. t_x does not depend on k. */
    struct stats_series *s = series_new(), *c = NULL;
    struct db_job j = job_new(DB_TRACE_WHOLE, x_worked, 4);
    struct job_eval ev;

    (void)state;
    assert_int_equal(stats_series_coarsen(s, 2, 1, 0.0, &c, NULL), STATUS_OK);
    eval(c, &j, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_NONE);
    assert_rel(reported("m_x", &j, &ev), 2.0, 0.0);
    assert_rel(reported("t_dx", &j, &ev), 240.0, 0.0);
    double want = 109.75 * (s->r[0] + s->r[1]) / 2 + 80.625 * (s->r[2] + s->r[3]) / 2;
    assert_rel(reported("psi_x_read", &j, &ev), want, REL * want);
    assert_rel(reported("t_x", &j, &ev), 25.0, 1e-6);
    stats_series_free(c);
    stats_series_free(s);
}

static void no_trace_and_incomplete_trace_are_their_own_reasons(void **state)
{
    struct stats_series *s = series_new();
    struct db_job none = job_new(DB_TRACE_NONE, NULL, 0);
    struct db_job cut = job_new(DB_TRACE_INCOMPLETE, NULL, 0);
    struct job_eval ev;
    double y, x;

    (void)state;
    eval(s, &none, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_NO_TRACE);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_NO_TRACE);
    assert_true(isnan(reported("t_x", &none, &ev)));
    assert_true(isnan(reported("b_x", &none, &ev)));
    assert_int_equal(family_excl(family_find("d"), &ev),
                     EXCL_NONE); /* the d family stays */
    assert_int_equal(pair_values(metric_find("t_x"), metric_find("psi_x_read"), &none,
                                 &ev, false, &y, &x),
                     EXCL_NO_TRACE);
    assert_int_equal(pair_values(metric_find("t_d"), metric_find("psi_d_read"), &none,
                                 &ev, false, &y, &x),
                     EXCL_NONE);
    eval(s, &cut, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_INCOMPLETE_DXT);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_INCOMPLETE_DXT);
    assert_true(isnan(reported("psi_x_write", &cut, &ev)));
    stats_series_free(s);
}

static void incomplete_log_excludes_a_whole_trace(void **state)
{
    struct stats_series *s = series_new();
    struct db_job j = job_new(DB_TRACE_WHOLE, x_worked, 4);
    struct job_eval ev;

    (void)state;
    j.incomplete_log = true;
    eval(s, &j, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_INCOMPLETE_LOG);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_INCOMPLETE_LOG);
    assert_true(isnan(reported("t_x", &j, &ev)));
    stats_series_free(s);
}

static void hole_and_empty_trace_exclude_as_the_d_family(void **state)
{
    struct stats_series *s = series_new();
    struct db_job j = job_new(DB_TRACE_WHOLE, x_worked, 4);
    struct db_job empty = job_new(DB_TRACE_WHOLE, NULL, 0);
    struct job_eval ev;

    (void)state;
    s->present[1] = 0; /* interval 2: only the trace's instant makes it active */
    eval(s, &j, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_HOLE);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_HOLE);
    assert_int_equal(family_excl(family_find("d"), &ev), EXCL_NONE);
    assert_true(isnan(reported("t_x", &j, &ev)));
    eval(s, &empty, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_NO_IO);
    stats_series_free(s);
}

static void instants_alone_measure_zero_but_span_s_x(void **state)
{
    /* Two zero-length operations in interval 2, at 70.375 and 95.5: A^X =
     * {(60, 120]}, m_x = 1, t_x = 0 (instants add nothing to the union), but S^X =
     * [70.375, 95.5] ∩ (60, 120] (eq. 4 spans first start to last end): |S^X| =
     * 25.125 s, Ψ^X_R = 25.125·R_2. One instant alone: |S^X| = 0, Ψ^X = 0, and
     * B^X has no rate (nonfinite) while the family stands. */
    struct stats_series *s = series_new();
    struct db_window xw[2] = {win(70.375, 70.375, false), win(95.5, 95.5, true)};
    struct db_job j = job_new(DB_TRACE_WHOLE, xw, 2);
    struct job_eval ev;

    (void)state;
    eval(s, &j, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_NONE);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_NONE);
    assert_rel(reported("m_x", &j, &ev), 1.0, 0.0);
    assert_rel(reported("t_dx", &j, &ev), 60.0, 0.0);
    assert_rel(reported("t_x", &j, &ev), 0.0, 0.0);
    assert_rel(reported("t_x_write", &j, &ev), 0.0, 0.0);
    assert_rel(ev.xv.s_d, 25.125, 1e-6);
    assert_rel(reported("psi_x_read", &j, &ev), 25.125 * s->r[1], 1e-6 * s->r[1]);
    j.n_x_windows = 1;
    eval(s, &j, &ev);
    assert_int_equal(family_excl(family_find("x"), &ev), EXCL_NONE);
    assert_int_equal(family_excl(family_find("b_x"), &ev), EXCL_NONFINITE);
    assert_rel(reported("psi_x_read", &j, &ev), 0.0, 0.0);
    assert_true(isnan(reported("b_x", &j, &ev)));
    stats_series_free(s);
}

static void negative_background_is_kept_and_flagged(void **state)
{
    /* η^mon above what the servers saw over S^X: B^X < 0, kept, flagged b_x. */
    struct stats_series *s = series_new();
    struct db_job j = job_new(DB_TRACE_WHOLE, x_worked, 4);
    struct job_eval ev;

    (void)state;
    j.log[LOG_ETA_READ].i8 = j.log[LOG_ETA_MON_READ].i8 = 900000000000;
    eval(s, &j, &ev);
    double b = reported("b_x", &j, &ev);
    assert_true(b < 0);
    assert_true(ev.dv.negative & NEGATIVE_B_X);
    assert_string_equal(stats_negative_name(NEGATIVE_B_X), "b_x");
    stats_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(worked_job_with_overlaps_an_instant_and_a_gap, setup),
        cmocka_unit_test_setup(coarser_granularity_recomputes_the_x_family, setup),
        cmocka_unit_test_setup(no_trace_and_incomplete_trace_are_their_own_reasons,
                               setup),
        cmocka_unit_test_setup(incomplete_log_excludes_a_whole_trace, setup),
        cmocka_unit_test_setup(hole_and_empty_trace_exclude_as_the_d_family, setup),
        cmocka_unit_test_setup(instants_alone_measure_zero_but_span_s_x, setup),
        cmocka_unit_test_setup(negative_background_is_kept_and_flagged, setup),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
