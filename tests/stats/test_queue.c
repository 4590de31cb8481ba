/* test_queue.c: the queue series and metrics of METHOD.md §11 (Q, U, AW per interval;
 * q_d, u_d, await_d over A), their coarsening (§6) and their holes, against values
 * worked out by hand from the definitions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <math.h>
#include <string.h>

/* Stamps on the 1 s grid from an epoch-sized point: sample i ends at T0 + i + 1, so it
 * is grid interval J0 + i + 1 = (T0 + i, T0 + i + 1]. */
#define T0  1795352344.0
#define J0  INT64_C(1795352344)
#define N   4
#define REL 1e-14

static const double ends[N] = {T0 + 1, T0 + 2, T0 + 3, T0 + 4};
static const double bw[N] = {1e6, 2e6, 3e6, 4e6};

/* Two servers, one device each (iostat -x): every queue column. */
static const double a_ro[N] = {10, 0, 5, 8}, a_wo[N] = {10, 20, 0, 2};
static const double a_ra[N] = {2, 0, 4, 1}, a_wa[N] = {4, 6, 0, 3};
static const double a_q[N] = {1.5, 2.25, 3, 0.5}, a_u[N] = {50, 100, 0, 25};
static const double b_ro[N] = {1, 2, 3, 4}, b_wo[N] = {0, 0, 1, 1};
static const double b_ra[N] = {10, 20, 30, 40}, b_wa[N] = {0, 0, 8, 8};
static const double b_q[N] = {0.25, 0.5, 0.75, 1}, b_u[N] = {10, 20, 30, 40};

static struct stats_stream extended(size_t server, const double *ro, const double *wo,
                                    const double *ra, const double *wa, const double *q,
                                    const double *u)
{
    return (struct stats_stream){.server = server,
                                 .end_s = ends,
                                 .r = bw,
                                 .w = bw,
                                 .ro = ro,
                                 .wo = wo,
                                 .aqu_sz = q,
                                 .util_pct = u,
                                 .r_await_ms = ra,
                                 .w_await_ms = wa,
                                 .n = N,
                                 .delta_s = 1.0};
}

static struct stats_series *build(const struct stats_stream *st, size_t n,
                                  size_t n_servers)
{
    struct stats_series *s = NULL;
    struct error err = {0};

    assert_int_equal(stats_series_build(st, n, n_servers, 1.0, &s, &err), STATUS_OK);
    assert_int_equal(s->n, N);
    assert_true(s->j_first == J0 + 1);
    return s;
}

/* AW_i by hand: Σ (r/s·r_await + w/s·w_await) / Σ (r/s + w/s), in seconds. */
static double aw_num(size_t i)
{
    return (a_ro[i] * a_ra[i] + a_wo[i] * a_wa[i] + b_ro[i] * b_ra[i] +
            b_wo[i] * b_wa[i]) /
           1000.0;
}

static double aw_den(size_t i)
{
    return a_ro[i] + a_wo[i] + b_ro[i] + b_wo[i];
}

static void series_sums_queues_and_averages_util(void **state)
{
    const struct stats_stream st[2] = {extended(0, a_ro, a_wo, a_ra, a_wa, a_q, a_u),
                                       extended(1, b_ro, b_wo, b_ra, b_wa, b_q, b_u)};
    struct stats_series *s = build(st, 2, 2);

    (void)state;
    for (size_t i = 0; i < N; i++) {
        assert_true(s->present[i]);
        assert_rel(s->q[i], a_q[i] + b_q[i], REL);
        assert_rel(s->u[i], (a_u[i] + b_u[i]) / 200.0, REL);
        assert_rel(s->aw_num[i], aw_num(i), REL);
        assert_rel(s->aw_den[i], aw_den(i), REL);
    }
    /* Interval 1: 10·2 + 10·4 + 1·10 = 70 ms·ops/s over 21 ops/s. */
    assert_rel(s->aw_num[0] / s->aw_den[0], 0.070 / 21.0, REL);
    stats_series_free(s);
}

static void job_metrics_are_means_over_active_intervals(void **state)
{
    const struct stats_stream st[2] = {extended(0, a_ro, a_wo, a_ra, a_wa, a_q, a_u),
                                       extended(1, b_ro, b_wo, b_ra, b_wa, b_q, b_u)};
    struct stats_series *s = build(st, 2, 2);
    /* Windows in intervals 1 and 3 (0-based 0 and 2), none in 2: A = {0, 2}. */
    const struct stats_window w[2] = {{T0 + 0.2, T0 + 0.6, true},
                                      {T0 + 2.1, T0 + 2.3, true}};
    struct stats_job job = {.start_s = T0, .end_s = T0 + 4, .windows = w, .n_windows = 2};
    struct stats_job_volume v;
    size_t scratch[4];
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, &err), STATUS_OK);
    assert_int_equal(v.m, 2);
    assert_int_equal(v.q_excl, EXCL_NONE);
    assert_rel(v.q_d, (a_q[0] + b_q[0] + a_q[2] + b_q[2]) / 2.0, REL);
    assert_rel(v.u_d, ((a_u[0] + b_u[0]) / 200.0 + (a_u[2] + b_u[2]) / 200.0) / 2.0, REL);
    /* Request-weighted over A, not the mean of AW_1 and AW_3. */
    assert_rel(v.await_d, (aw_num(0) + aw_num(2)) / (aw_den(0) + aw_den(2)), REL);
    assert_true(fabs(v.await_d - (aw_num(0) / aw_den(0) + aw_num(2) / aw_den(2)) / 2) >
                1e-6);
    stats_series_free(s);
}

static void coarse_queue_is_a_mean_and_await_request_weighted(void **state)
{
    const struct stats_stream st[2] = {extended(0, a_ro, a_wo, a_ra, a_wa, a_q, a_u),
                                       extended(1, b_ro, b_wo, b_ra, b_wa, b_q, b_u)};
    struct stats_series *s = build(st, 2, 2), *c = NULL;
    struct error err = {0};

    (void)state;
    /* k = 2, phase 0: J0 is even, so coarse intervals hold fine elements 0 and 1,
     * then 2 and 3. */
    assert_int_equal(stats_series_coarsen(s, 2, 0, 0.0, &c, &err), STATUS_OK);
    assert_int_equal(c->n, 2);
    for (size_t k = 0; k < 2; k++) {
        size_t f = 2 * k, g = 2 * k + 1;
        assert_true(c->present[k]);
        assert_rel(c->q[k], (a_q[f] + b_q[f] + a_q[g] + b_q[g]) / 2.0, REL);
        assert_rel(c->u[k], ((a_u[f] + b_u[f]) / 200.0 + (a_u[g] + b_u[g]) / 200.0) / 2.0,
                   REL);
        assert_rel(c->aw_num[k] / c->aw_den[k],
                   (aw_num(f) + aw_num(g)) / (aw_den(f) + aw_den(g)), REL);
    }
    stats_series_free(c);
    stats_series_free(s);
}

/* sadf: tps and the combined await only; AW = Σ await·tps / Σ tps. */
static void combined_await_is_weighted_by_tps(void **state)
{
    static const double tps[N] = {17, 15, 393, 0}, aw[N] = {1.12, 41.0, 15.55, 0};
    static const double q[N] = {0.02, 0.61, 6.11, 0}, u[N] = {1.6, 60.8, 17.6, 0};
    const struct stats_stream st = {.server = 0,
                                    .end_s = ends,
                                    .r = bw,
                                    .w = bw,
                                    .aqu_sz = q,
                                    .util_pct = u,
                                    .await_ms = aw,
                                    .ops_total = tps,
                                    .n = N,
                                    .delta_s = 1.0};
    struct stats_series *s = build(&st, 1, 1);
    const struct stats_window w = {T0 + 0.5, T0 + 2.5, true}; /* A: intervals 0..2 */
    struct stats_job job = {
        .start_s = T0, .end_s = T0 + 3, .windows = &w, .n_windows = 1};
    struct stats_job_volume v;
    size_t scratch[2];
    struct error err = {0};

    (void)state;
    assert_true(isnan(s->ro[0]));
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, &err), STATUS_OK);
    assert_int_equal(v.q_excl, EXCL_NONE);
    assert_rel(v.q_d, (0.02 + 0.61 + 6.11) / 3.0, REL);
    assert_rel(v.u_d, (0.016 + 0.608 + 0.176) / 3.0, REL);
    assert_rel(v.await_d,
               (17 * 1.12 + 15 * 41.0 + 393 * 15.55) / 1000.0 / (17 + 15 + 393), REL);
    /* An interval with no request gives no AW: over A = {3} alone, await_d is NAN
     * while q_d and u_d are 0. */
    const struct stats_window idle = {T0 + 3.5, T0 + 3.5, true};
    job.windows = &idle;
    job.end_s = T0 + 4;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, &err), STATUS_OK);
    assert_int_equal(v.q_excl, EXCL_NONE);
    assert_rel(v.q_d, 0.0, 0.0);
    assert_true(isnan(v.await_d));
    stats_series_free(s);
}

static void source_without_queue_gives_no_queue_data(void **state)
{
    /* iostat -d: tps and bandwidth only. One server of two lacks the columns: a
     * partial Q is no Q (the holes rule), while Ψ^D is there. */
    static const double tps[N] = {41, 10, 393, 2};
    const struct stats_stream st[2] = {extended(0, a_ro, a_wo, a_ra, a_wa, a_q, a_u),
                                       {.server = 1,
                                        .end_s = ends,
                                        .r = bw,
                                        .w = bw,
                                        .ops_total = tps,
                                        .n = N,
                                        .delta_s = 1.0}};
    struct stats_series *s = build(st, 2, 2);
    const struct stats_window w = {T0 + 0.5, T0 + 1.5, true};
    struct stats_job job = {
        .start_s = T0, .end_s = T0 + 2, .windows = &w, .n_windows = 1};
    struct stats_job_volume v;
    size_t scratch[2];
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, &err), STATUS_OK);
    assert_int_equal(v.d_excl, EXCL_NONE);
    assert_true(isfinite(v.psi_d_read));
    assert_int_equal(v.q_excl, EXCL_NO_QUEUE_DATA);
    assert_true(isnan(v.q_d) && isnan(v.u_d) && isnan(v.await_d));
    assert_string_equal(stats_exclusion_name(EXCL_NO_QUEUE_DATA), "no_queue_data");
    stats_series_free(s);
}

static void hole_in_active_set_is_a_hole(void **state)
{
    const struct stats_stream st = extended(0, a_ro, a_wo, a_ra, a_wa, a_q, a_u);
    struct stats_series *s = build(&st, 1, 1);
    const struct stats_window w = {T0 + 0.5, T0 + 2.5, true};
    struct stats_job job = {
        .start_s = T0, .end_s = T0 + 3, .windows = &w, .n_windows = 1};
    struct stats_job_volume v;
    size_t scratch[2];
    struct error err = {0};

    (void)state;
    s->present[1] = 0;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, &err), STATUS_OK);
    assert_int_equal(v.q_excl, EXCL_HOLE);
    assert_true(isnan(v.q_d) && isnan(v.u_d) && isnan(v.await_d));
    stats_series_free(s);
}

/* A 2 s sample on the 1 s grid covers two intervals: a queue length and a busy
 * fraction are levels, so each interval gets the sample's value. */
static void split_sample_keeps_its_level(void **state)
{
    static const double e2[2] = {T0 + 2, T0 + 4}, r2[2] = {1, 1};
    static const double q2[2] = {3, 5}, u2[2] = {40, 80}, ops[2] = {10, 10},
                        aw2[2] = {2, 2};
    const struct stats_stream st = {.server = 0,
                                    .end_s = e2,
                                    .r = r2,
                                    .w = r2,
                                    .aqu_sz = q2,
                                    .util_pct = u2,
                                    .await_ms = aw2,
                                    .ops_total = ops,
                                    .n = 2,
                                    .delta_s = 2.0};
    struct stats_series *s = build(&st, 1, 1);

    (void)state;
    for (size_t i = 0; i < N; i++) {
        assert_true(s->present[i]);
        assert_rel(s->q[i], q2[i / 2], REL);
        assert_rel(s->u[i], u2[i / 2] / 100.0, REL);
        assert_rel(s->aw_num[i] / s->aw_den[i], 0.002, REL);
    }
    stats_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(series_sums_queues_and_averages_util),
        cmocka_unit_test(job_metrics_are_means_over_active_intervals),
        cmocka_unit_test(coarse_queue_is_a_mean_and_await_request_weighted),
        cmocka_unit_test(combined_await_is_weighted_by_tps),
        cmocka_unit_test(source_without_queue_gives_no_queue_data),
        cmocka_unit_test(hole_in_active_set_is_a_hole),
        cmocka_unit_test(split_sample_keeps_its_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
