/* test_series.c: the grid, the system-wide series (METHOD.md §1) and coarsening (§6). */
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

/* An epoch-sized base on the 60 s grid: B = J0·60 is a grid point. */
#define J0    INT64_C(28333333)
#define B     1699999980.0
#define DELTA 60.0

/* The interval of s that is grid interval j (a test bug when it is not there). */
static size_t at(const struct stats_series *s, int64_t j)
{
    assert_true(j >= s->j_first && j < s->j_first + (int64_t)s->n);
    return (size_t)(j - s->j_first);
}

static struct stats_stream stream_of(size_t server, const double *end_s, const double *r,
                                     const double *w, size_t n, double delta_s)
{
    struct stats_stream st = {.server = server,
                              .end_s = end_s,
                              .r = r,
                              .w = w,
                              .ro = r, /* ops rates: any numbers will do */
                              .wo = w,
                              .n = n,
                              .delta_s = delta_s};
    return st;
}

static void samples_ending_on_grid_points_are_those_intervals(void **state)
{
    const double end[] = {B + 60.0, B + 120.0, B + 180.0};
    const double r[] = {2.385e6, 1.7413e6, 3.0917e6};
    const double w[] = {4.125e5, 9.5311e5, 6.2221e5};
    struct stats_stream st = stream_of(0, end, r, w, 3, DELTA);
    struct stats_series *s = NULL;

    (void)state;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_true(s->j_first == J0 + 1);
    assert_int_equal(s->n, 3);
    assert_rel(s->origin_s, 0.0, 0.0);
    for (size_t i = 0; i < 3; i++) {
        assert_rel(s->r[i], r[i], 0.0); /* copied, not re-weighted */
        assert_rel(s->w[i], w[i], 0.0);
        assert_rel(s->ro[i], r[i], 0.0);
        assert_int_equal(s->present[i], 1);
    }
    stats_series_free(s);
}

static void ends_within_a_quarter_interval_snap_and_beyond_it_split(void **state)
{
    /* Δ/4 = 15 s: 14.75 s late, 3.5 s late and 14.9 s early all snap (METHOD.md §1). */
    const double end[] = {B + 60.0 + 14.75, B + 120.0 + 3.5, B + 180.0 - 14.9};
    const double r[] = {2.385e6, 1.7413e6, 3.0917e6};
    const double w[] = {4.125e5, 9.5311e5, 6.2221e5};
    struct stats_stream st = stream_of(0, end, r, w, 3, DELTA);
    struct stats_series *s = NULL;

    (void)state;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_rel(s->r[at(s, J0 + 1 + (int64_t)i)], r[i], 0.0);
        assert_int_equal(s->present[i], 1);
    }
    stats_series_free(s);

    /* 15.25 s late is beyond Δ/4: (B + 15.25, B + 75.25] is split 44.75 / 15.25. */
    const double late[] = {B + 75.25};
    st = stream_of(0, late, r, w, 1, DELTA);
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, 2);
    assert_rel(s->r[at(s, J0 + 1)], r[0] * 44.75 / 60.0, 1e-15 * r[0]);
    assert_rel(s->r[at(s, J0 + 2)], r[0] * 15.25 / 60.0, 1e-15 * r[0]);
    assert_int_equal(s->present[0], 0); /* each only partly covered */
    assert_int_equal(s->present[1], 0);
    stats_series_free(s);
}

/* Σ rate·Δ over the grid: the volume the series holds. */
static void series_volume(const struct stats_series *s, double *r, double *w)
{
    *r = *w = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        *r += s->r[i] * s->delta_s;
        *w += s->w[i] * s->delta_s;
    }
}

static void split_samples_conserve_volume_and_fill_interior_intervals(void **state)
{
    enum { N = 10 };
    double end[N], r[N], w[N], vr = 0.0, vw = 0.0, gr, gw;
    struct stats_series *s = NULL;

    (void)state;
    for (size_t k = 0; k < N; k++) {
        end[k] = B + 20.0 + 60.0 * (double)(k + 1); /* 20 s past every grid point */
        r[k] = 2.385e6 * (1.0 + 0.37 * (double)k);
        w[k] = 7.9113e5 / (1.0 + 0.21 * (double)k);
        vr += r[k] * 60.0;
        vw += w[k] * 60.0;
    }
    struct stats_stream st = stream_of(0, end, r, w, N, DELTA);
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, N + 1);
    series_volume(s, &gr, &gw);
    assert_rel(gr, vr, 1e-14 * vr);
    assert_rel(gw, vw, 1e-14 * vw);
    /* Edge intervals are partial sums (holes); interval k+2 holds 20 s of sample k
     * and 40 s of sample k+1. */
    assert_int_equal(s->present[0], 0);
    assert_int_equal(s->present[N], 0);
    for (size_t k = 0; k + 1 < N; k++) {
        size_t i = at(s, J0 + 2 + (int64_t)k);
        assert_int_equal(s->present[i], 1);
        assert_rel(s->r[i], (r[k] * 20.0 + r[k + 1] * 40.0) / 60.0, 1e-15 * r[k + 1]);
    }
    stats_series_free(s);
}

static void streams_with_multiple_and_fraction_deltas_conserve_volume(void **state)
{
    enum { N = 12 };
    double end2[N], end3[N], r[N], w[N], v2 = 0.0, v3 = 0.0, gr, gw;
    struct stats_series *s = NULL;

    (void)state;
    for (size_t k = 0; k < N; k++) {
        end2[k] = B + 120.0 * (double)(k + 1);      /* Δ_s = 2Δ, aligned */
        end3[k] = B + 7.3 + 20.0 * (double)(k + 1); /* Δ_s = Δ/3, off the grid */
        r[k] = 1.3917e7 * (1.0 + 0.113 * (double)k);
        w[k] = 2.2871e6 * (1.0 + 0.071 * (double)(N - k));
        v2 += r[k] * 120.0;
        v3 += r[k] * 20.0;
    }
    struct stats_stream st = stream_of(0, end2, r, w, N, 2.0 * DELTA);
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, 2 * N);
    series_volume(s, &gr, &gw);
    assert_rel(gr, v2, 1e-14 * v2);
    for (size_t k = 0; k < N; k++) { /* a 120 s sample is two full 60 s intervals */
        assert_rel(s->r[2 * k], r[k], 1e-15 * r[k]);
        assert_rel(s->r[2 * k + 1], r[k], 1e-15 * r[k]);
        assert_int_equal(s->present[2 * k], 1);
    }
    stats_series_free(s);

    st = stream_of(0, end3, r, w, N, DELTA / 3.0);
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    series_volume(s, &gr, &gw);
    assert_rel(gr, v3, 1e-14 * v3);
    /* (B + 7.3, B + 247.3] is covered: (B + 60, B + 240] fully, the ends partly. */
    assert_int_equal(s->present[at(s, J0 + 1)], 0);
    assert_int_equal(s->present[at(s, J0 + 2)], 1);
    assert_int_equal(s->present[at(s, J0 + 4)], 1);
    assert_int_equal(s->present[at(s, J0 + 5)], 0);
    stats_series_free(s);
}

static void server_missing_an_interval_makes_a_hole_and_devices_add(void **state)
{
    const double e0[] = {B + 60.0, B + 120.0, B + 180.0, B + 240.0};
    const double e1[] = {B + 60.0, B + 120.0, B + 240.0}; /* misses B + 180 */
    const double r0[] = {2.385e6, 1.7413e6, 3.0917e6, 5.5123e6};
    const double w0[] = {4.125e5, 9.5311e5, 6.2221e5, 1.1093e5};
    const double r1[] = {3.3141e6, 8.2219e5, 2.0713e6};
    const double w1[] = {7.125e4, 1.9117e5, 4.4513e5};
    struct stats_stream st[] = {
        stream_of(0, e0, r0, w0, 4, DELTA), /* server 0, device a */
        stream_of(0, e0, w0, r0, 4, DELTA), /* server 0, device b */
        stream_of(1, e1, r1, w1, 3, DELTA), /* server 1 */
    };
    struct stats_series *s = NULL;

    (void)state;
    assert_int_equal(stats_series_build(st, 3, 2, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, 4);
    assert_int_equal(s->present[0], 1);
    assert_int_equal(s->present[1], 1);
    assert_int_equal(s->present[2], 0); /* a partial sum is a hole */
    assert_int_equal(s->present[3], 1);
    assert_rel(s->r[0], r0[0] + w0[0] + r1[0], 1e-15 * s->r[0]);
    assert_rel(s->w[3], w0[3] + r0[3] + w1[2], 1e-15 * s->w[3]);
    stats_series_free(s);

    /* A server with no stream at all never reported anything. */
    assert_int_equal(stats_series_build(st, 2, 2, DELTA, &s, NULL), STATUS_OK);
    for (size_t i = 0; i < s->n; i++)
        assert_int_equal(s->present[i], 0);
    stats_series_free(s);
}

static void lab_samples_with_offset_point_nine_snap_to_the_next_second(void **state)
{
    /* iostat stamps whole seconds T; the sample covers (T − 0.1, T + 0.9] (lab README,
     * θ = +0.9). Its end T + 0.9 lies 0.1 s < Δ/4 before grid point T + 1, so by
     * METHOD.md §1 it is grid interval (T, T + 1], rates copied. */
    enum { N = 8 };
    double end[N], r[N], w[N], v = 0.0, gr, gw;
    struct stats_series *s = NULL;

    (void)state;
    for (size_t k = 0; k < N; k++) {
        end[k] = 1700000000.0 + (double)k + 0.9;
        r[k] = 1.1385e9 * (1.0 + 0.043 * (double)k);
        w[k] = 2.0417e8;
        v += r[k];
    }
    struct stats_stream st = stream_of(0, end, r, w, N, 1.0);
    assert_int_equal(stats_series_build(&st, 1, 1, 1.0, &s, NULL), STATUS_OK);
    assert_true(s->j_first == INT64_C(1700000001));
    assert_int_equal(s->n, N);
    for (size_t k = 0; k < N; k++) {
        assert_rel(s->r[k], r[k], 0.0);
        assert_int_equal(s->present[k], 1);
    }
    series_volume(s, &gr, &gw);
    assert_rel(gr, v, 1e-15 * v);
    stats_series_free(s);
}

static void lab_samples_with_offset_beyond_a_quarter_split_over_two_seconds(void **state)
{
    /* With θ = 0.4 the end is 0.4 s from the nearest grid point: each sample splits,
     * 0.6 s into (T − 1, T] and 0.4 s into (T, T + 1]; interior seconds are full. */
    enum { N = 8 };
    double end[N], r[N], w[N], v = 0.0, gr, gw;
    struct stats_series *s = NULL;

    (void)state;
    for (size_t k = 0; k < N; k++) {
        end[k] = 1700000000.0 + (double)k + 0.4;
        r[k] = 1.1385e9 * (1.0 + 0.043 * (double)k);
        w[k] = 2.0417e8 * (1.0 - 0.031 * (double)k);
        v += r[k];
    }
    struct stats_stream st = stream_of(0, end, r, w, N, 1.0);
    assert_int_equal(stats_series_build(&st, 1, 1, 1.0, &s, NULL), STATUS_OK);
    assert_true(s->j_first == INT64_C(1700000000));
    assert_int_equal(s->n, N + 1);
    series_volume(s, &gr, &gw);
    assert_rel(gr, v, 1e-14 * v);
    assert_int_equal(s->present[0], 0);
    assert_int_equal(s->present[N], 0);
    for (size_t k = 1; k < N; k++) {
        /* The sub-second parts are exact only to the ulp of T (2.4e-7 s). */
        assert_rel(s->r[k], 0.4 * r[k - 1] + 0.6 * r[k], 1e-6 * r[k]);
        assert_int_equal(s->present[k], 1);
    }
    stats_series_free(s);
}

static void overlapping_samples_of_one_stream_do_not_count_twice(void **state)
{
    /* Irregular stamps: B + 55 and B + 65 both snap to (B, B + 60]; a restart
     * 30 s later, B + 95, overlaps (B + 35, B + 60] too. The stream covers each
     * second once, the first sample wins. */
    const double end[] = {B + 55.0, B + 65.0, B + 95.0, B + 180.0};
    const double r[] = {2.385e6, 1.7413e6, 3.0917e6, 5.5123e6};
    const double w[] = {4.125e5, 9.5311e5, 6.2221e5, 1.1093e5};
    struct stats_stream st = stream_of(0, end, r, w, 4, DELTA);
    struct stats_series *s = NULL;

    (void)state;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, 3);
    assert_rel(s->r[0], r[0], 0.0);
    assert_int_equal(s->present[0], 1);
    /* (B + 60, B + 120]: 35 s of the B + 95 sample; B + 65 lost to interval 1. */
    assert_rel(s->r[1], r[2] * 35.0 / 60.0, 1e-15 * r[2]);
    assert_int_equal(s->present[1], 0);
    assert_rel(s->r[2], r[3], 0.0);
    stats_series_free(s);
}

static void deltas_that_are_not_multiples_are_invalid(void **state)
{
    const double end[] = {B + 90.0, B + 180.0};
    const double r[] = {2.385e6, 1.7413e6};
    struct stats_stream st = stream_of(0, end, r, r, 2, 90.0);
    struct stats_series *s = NULL;
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, &err), STATUS_INVALID);
    assert_null(s);
    assert_non_null(strstr(err.msg, "not multiples"));
    st.delta_s = 45.0;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_INVALID);
    st.delta_s = 180.0; /* 3Δ */
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    stats_series_free(s);
    st.delta_s = 60.0 * (1.0 + 1e-12); /* a median that is Δ up to rounding */
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    stats_series_free(s);
}

static void bad_streams_and_grids_are_invalid(void **state)
{
    const double end[] = {B + 60.0, B + 60.0};
    const double bad[] = {B + 60.0, NAN};
    const double r[] = {2.385e6, 1.7413e6};
    struct stats_stream st = stream_of(0, end, r, r, 2, DELTA);
    struct stats_series *s = NULL;

    (void)state;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_INVALID);
    st.end_s = bad;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_INVALID);
    st = stream_of(3, end, r, r, 1, DELTA); /* server 3 of 2 */
    assert_int_equal(stats_series_build(&st, 1, 2, DELTA, &s, NULL), STATUS_INVALID);
    st = stream_of(0, end, r, r, 1, DELTA);
    assert_int_equal(stats_series_build(&st, 1, 1, 0.0, &s, NULL), STATUS_INVALID);
    st.delta_s = -60.0;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_INVALID);
    st = stream_of(0, NULL, r, r, 1, DELTA);
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_INVALID);
    assert_int_equal(stats_series_build(NULL, 1, 1, DELTA, &s, NULL), STATUS_INVALID);
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, NULL, NULL), STATUS_INVALID);
    assert_null(s);
}

static void missing_rates_are_holes_and_missing_ops_are_nan(void **state)
{
    const double end[] = {B + 60.0, B + 120.0, B + 180.0};
    const double r[] = {2.385e6, NAN, 3.0917e6};
    const double w[] = {4.125e5, 9.5311e5, 6.2221e5};
    struct stats_stream st = stream_of(0, end, r, w, 3, DELTA);
    struct stats_series *s = NULL;

    (void)state;
    st.ro = NULL;
    st.wo = NULL;
    assert_int_equal(stats_series_build(&st, 1, 1, DELTA, &s, NULL), STATUS_OK);
    assert_int_equal(s->n, 3);
    assert_int_equal(s->present[0], 1);
    assert_int_equal(s->present[1], 0);
    assert_int_equal(s->present[2], 1);
    assert_rel(s->r[2], r[2], 0.0);
    assert_true(isnan(s->ro[0]) && isnan(s->wo[2]));
    stats_series_free(s);
}

static void no_samples_give_an_empty_series(void **state)
{
    struct stats_series *s = NULL;

    (void)state;
    assert_int_equal(stats_series_build(NULL, 0, 0, DELTA, &s, NULL), STATUS_OK);
    assert_non_null(s);
    assert_int_equal(s->n, 0);
    stats_series_free(s);
}

/* Fine series over grid intervals 1..10 (j_first 1), every rate distinct. */
static struct stats_series *fine_series(void)
{
    struct stats_series *s = stats_series_new(DELTA, 1, 10);

    assert_non_null(s);
    for (size_t i = 0; i < s->n; i++) {
        s->r[i] = 2.385e6 * (1.0 + 0.37 * (double)i);
        s->w[i] = 9.113e5 / (1.0 + 0.11 * (double)i);
        s->ro[i] = 17.25 + (double)i;
        s->wo[i] = 3.125 * (double)(i + 1);
        s->present[i] = 1;
    }
    return s;
}

/* Checks every coarse interval against the fine intervals inside it, found by time:
 * fine j belongs to coarse jc when its end lies in (T'_{jc−1}, T'_{jc}]. */
static void check_coarse(const struct stats_series *f, const struct stats_series *c,
                         unsigned k)
{
    for (size_t ci = 0; ci < c->n; ci++) {
        double hi = c->origin_s + (double)(c->j_first + (int64_t)ci) * c->delta_s;
        double lo = hi - c->delta_s, r = 0.0, w = 0.0;
        unsigned found = 0, present = 1;

        for (size_t fi = 0; fi < f->n; fi++) {
            double fe = f->origin_s + (double)(f->j_first + (int64_t)fi) * f->delta_s;
            if (fe > lo && fe <= hi) {
                r += f->r[fi];
                w += f->w[fi];
                present = present && f->present[fi];
                found++;
            }
        }
        if (found < k)
            present = 0;
        assert_int_equal(c->present[ci], present);
        if (present) {
            assert_rel(c->r[ci], r / (double)k, 1e-15 * c->r[ci]);
            assert_rel(c->w[ci], w / (double)k, 1e-15 * c->w[ci]);
        }
    }
}

static void coarsening_takes_means_keeps_holes_and_shifts_by_phase(void **state)
{
    struct stats_series *f = fine_series(), *c = NULL;

    (void)state;
    /* k = 3, φ = 0: J = 0 merges fine 1..3 and ends at 3Δ; fine 10 alone is a hole. */
    assert_int_equal(stats_series_coarsen(f, 3, 0, 0.0, &c, NULL), STATUS_OK);
    assert_rel(c->delta_s, 180.0, 0.0);
    assert_rel(c->origin_s, 0.0, 0.0);
    assert_rel(c->origin_s + (double)c->j_first * c->delta_s, 3.0 * DELTA, 0.0);
    assert_int_equal(c->n, 4);
    assert_rel(c->r[0], (f->r[0] + f->r[1] + f->r[2]) / 3.0, 1e-15 * c->r[0]);
    assert_rel(c->ro[1], (f->ro[3] + f->ro[4] + f->ro[5]) / 3.0, 1e-15 * c->ro[1]);
    assert_int_equal(c->present[3], 0);
    check_coarse(f, c, 3);
    stats_series_free(c);

    /* φ = 1: coarse intervals end at (3J + 4)·Δ; the first (fine −1..1) is a hole. */
    assert_int_equal(stats_series_coarsen(f, 3, 1, 0.0, &c, NULL), STATUS_OK);
    assert_rel(c->origin_s, DELTA, 0.0);
    assert_int_equal(c->n, 4);
    assert_int_equal(c->present[0], 0);
    assert_rel(c->r[1], (f->r[1] + f->r[2] + f->r[3]) / 3.0, 1e-15 * c->r[1]);
    assert_rel(c->origin_s + (double)(c->j_first + 1) * c->delta_s, 4.0 * DELTA, 0.0);
    assert_int_equal(c->present[3], 1); /* fine 8..10 */
    check_coarse(f, c, 3);
    stats_series_free(c);

    /* A fine hole makes its coarse interval a hole. */
    f->present[4] = 0;
    for (unsigned k = 1; k <= 4; k++) {
        for (unsigned phase = 0; phase < k; phase++) {
            assert_int_equal(stats_series_coarsen(f, k, phase, 0.0, &c, NULL), STATUS_OK);
            check_coarse(f, c, k);
            stats_series_free(c);
        }
    }
    /* k = 1 is the fine series itself. */
    assert_int_equal(stats_series_coarsen(f, 1, 0, 0.0, &c, NULL), STATUS_OK);
    assert_int_equal(c->n, f->n);
    assert_true(c->j_first == f->j_first);
    assert_rel(c->r[7], f->r[7], 0.0);
    stats_series_free(c);
    stats_series_free(f);
}

static void coarsening_rejects_zero_k_and_phase_past_k(void **state)
{
    struct stats_series *f = fine_series(), *c = NULL;

    (void)state;
    assert_int_equal(stats_series_coarsen(f, 0, 0, 0.0, &c, NULL), STATUS_INVALID);
    assert_int_equal(stats_series_coarsen(f, 3, 3, 0.0, &c, NULL), STATUS_INVALID);
    assert_int_equal(stats_series_coarsen(NULL, 3, 0, 0.0, &c, NULL), STATUS_INVALID);
    assert_int_equal(stats_series_coarsen(f, 3, 0, 0.0, NULL, NULL), STATUS_INVALID);
    assert_null(c);
    stats_series_free(f);
}

/* A series of Δ = 1 with read rates r[i], present where r[i] is not NAN (a missed
 * report); the other rates r[i] / 2, queue unknown. */
static struct stats_series *gappy(const double *r, size_t n)
{
    struct stats_series *s = stats_series_new(1.0, 1, n);

    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        s->present[i] = (unsigned char)!isnan(r[i]);
        s->r[i] = isnan(r[i]) ? 0 : r[i];
        s->w[i] = s->ro[i] = s->wo[i] = s->r[i] / 2;
        s->q[i] = s->u[i] = s->aw_num[i] = s->aw_den[i] = NAN;
    }
    return s;
}

/* docs/method.md §3, "Gaps": (10, ·, 30) at fill_max 1 gives 20 and filled_s = Δ,
 * for the interval and for a job over it. */
static void a_single_missing_interval_is_the_line_between_its_neighbours(void **state)
{
    const double r[] = {10, NAN, 30};
    struct stats_series *s = gappy(r, 3);
    struct stats_window win = {.start_s = 0.5, .end_s = 2.5, .monitored = true};
    struct stats_job job = {
        .start_s = 0.5, .end_s = 2.5, .windows = &win, .n_windows = 1};
    struct stats_job_volume v;
    size_t scratch[2];

    (void)state;
    assert_int_equal(stats_series_fill(s, 0), 0);
    assert_int_equal(s->present[1], 0);
    assert_int_equal(stats_series_fill(s, 1), 1);
    assert_int_equal(s->present[1], 1);
    assert_rel(s->r[1], 20.0, 0.0);
    assert_rel(s->w[1], 10.0, 0.0);
    assert_true(isnan(s->q[1]));
    assert_rel(s->filled_s[0] + s->filled_s[1] + s->filled_s[2], 1.0, 0.0);
    assert_rel(s->filled_s[1], 1.0, 0.0);
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.psi_excl, EXCL_NONE);
    assert_rel(v.filled_s, 1.0, 0.0);
    /* Ψ_R = 0.5·10 + 1·20 + 0.5·30 */
    assert_rel(v.psi_read, 40.0, 1e-15 * 40);
    stats_series_free(s);
}

/* (10, ·, ·, 40) at fill_max 1 stays a hole; at 2 it is 20, 30. A run at either end
 * has one neighbour and stays a hole. */
static void a_longer_run_or_one_at_an_end_stays_a_hole(void **state)
{
    const double r[] = {10, NAN, NAN, 40}, edge[] = {NAN, 10, 20, NAN};
    struct stats_series *s = gappy(r, 4);

    (void)state;
    assert_int_equal(stats_series_fill(s, 1), 0);
    assert_int_equal(s->present[1] + s->present[2], 0);
    assert_rel(s->filled_s[1] + s->filled_s[2], 0.0, 0.0);
    assert_int_equal(stats_series_fill(s, 2), 2);
    assert_rel(s->r[1], 20.0, 1e-15 * 20);
    assert_rel(s->r[2], 30.0, 1e-15 * 30);
    stats_series_free(s);
    s = gappy(edge, 4);
    assert_int_equal(stats_series_fill(s, 10), 0);
    assert_int_equal(s->present[0] + s->present[3], 0);
    stats_series_free(s);
}

/* xff 0.5 at k = 20: 10 of 20 fine intervals missing keep the coarse interval, its
 * rate the mean of the 10 present; 11 do not. xff 0 is the strict rule. */
static void xff_tolerates_up_to_its_share_of_missing_fine_intervals(void **state)
{
    double r[20];
    struct stats_series *f, *c = NULL;

    (void)state;
    for (size_t i = 0; i < 20; i++)
        r[i] = i < 10 ? (double)NAN : (double)i; /* 10 missing, present 10..19 */
    f = gappy(r, 20);
    f->j_first = 1; /* fine 1..20: coarse interval J = 0 at k = 20 */
    assert_int_equal(stats_series_coarsen(f, 20, 0, 0.5, &c, NULL), STATUS_OK);
    assert_int_equal(c->n, 1);
    assert_int_equal(c->present[0], 1);
    assert_rel(c->r[0], 14.5, 1e-15 * 14.5); /* the mean of 10..19 */
    stats_series_free(c);
    assert_int_equal(stats_series_coarsen(f, 20, 0, 0.0, &c, NULL), STATUS_OK);
    assert_int_equal(c->present[0], 0);
    stats_series_free(c);
    f->present[10] = 0; /* 11 of 20 */
    assert_int_equal(stats_series_coarsen(f, 20, 0, 0.5, &c, NULL), STATUS_OK);
    assert_int_equal(c->present[0], 0);
    stats_series_free(c);
    stats_series_free(f);
    /* 0.7·90 is 62.999… in binary: 63 of 90 missing are still tolerated. */
    double r90[90];
    for (size_t i = 0; i < 90; i++)
        r90[i] = i < 63 ? (double)NAN : 1.0;
    f = gappy(r90, 90);
    f->j_first = 1;
    assert_int_equal(stats_series_coarsen(f, 90, 0, 0.7, &c, NULL), STATUS_OK);
    assert_int_equal(c->present[0], 1);
    stats_series_free(c);
    assert_int_equal(stats_series_coarsen(f, 20, 0, 1.0, &c, NULL), STATUS_INVALID);
    assert_int_equal(stats_series_coarsen(f, 20, 0, -0.1, &c, NULL), STATUS_INVALID);
    stats_series_free(f);
}

/* With nothing missing, any xff gives the strict rule's series bit for bit, and a
 * coarse interval's filled_s is the sum of its fine ones'. */
static void xff_changes_nothing_without_missing_intervals(void **state)
{
    struct stats_series *f = fine_series(), *strict = NULL, *c = NULL;

    (void)state;
    f->filled_s[4] = f->delta_s;
    assert_int_equal(stats_series_coarsen(f, 3, 1, 0.0, &strict, NULL), STATUS_OK);
    assert_int_equal(stats_series_coarsen(f, 3, 1, 0.5, &c, NULL), STATUS_OK);
    assert_int_equal(c->n, strict->n);
    for (size_t i = 0; i < c->n; i++) {
        const double *a[] = {c->r, c->w, c->ro, c->wo, c->q, c->u, c->aw_num, c->aw_den},
                     *b[] = {strict->r, strict->w, strict->ro,     strict->wo,
                             strict->q, strict->u, strict->aw_num, strict->aw_den};
        assert_int_equal(c->present[i], strict->present[i]);
        for (size_t v = 0; v < sizeof a / sizeof a[0]; v++)
            assert_memory_equal(&a[v][i], &b[v][i], sizeof(double));
    }
    double filled = 0;
    for (size_t i = 0; i < c->n; i++)
        filled += c->filled_s[i];
    assert_rel(filled, f->delta_s, 0.0);
    stats_series_free(c);
    stats_series_free(strict);
    stats_series_free(f);
}

/* The sums kept per file system (stats_series_sum_range) over a range inside a
 * two-server series: the rates as stats_series_build sums them, to the bit; U the
 * sum, not the mean; pieces outside the range dropped; a device with no sample in
 * the range is not expected, and the counts of covering devices and servers. */
static void range_sums_equal_the_build_and_expect_only_devices_of_the_range(void **state)
{
    /* server 0: device 0 over intervals J0+1 … J0+6, device 1 the same but for a
     * sample ending at B + 270 (split: half of J0+4, half of J0+5); server 1: one
     * device over J0+1 … J0+3 only */
    const double e0[] = {B + 60, B + 120, B + 180, B + 240, B + 300, B + 360};
    const double e1[] = {B + 60, B + 120, B + 180, B + 270, B + 360};
    const double e2[] = {B + 60, B + 120, B + 180};
    const double r0[] = {1.5e6, 2.25e6, 3.125e6, 4.0e6, 0.75e6, 1.0e6};
    const double w0[] = {1e5, 2e5, 3e5, 4e5, 5e5, 6e5};
    const double r1[] = {7e5, 8e5, 9e5, 1.1e6, 1.3e6};
    const double w1[] = {3e4, 4e4, 5e4, 6e4, 7e4};
    const double r2[] = {2.5e5, 3.5e5, 4.5e5};
    const double u0[] = {10, 20, 30, 40, 50, 60}, u1[] = {5, 6, 7, 8, 9},
                 u2[] = {1, 2, 3};
    struct stats_stream st[3] = {stream_of(0, e0, r0, w0, 6, DELTA),
                                 stream_of(0, e1, r1, w1, 5, DELTA),
                                 stream_of(1, e2, r2, w1, 3, DELTA)};
    st[0].util_pct = u0;
    st[1].util_pct = u1;
    st[2].util_pct = u2;
    struct stats_series *all = NULL;
    struct stats_series_sums *sums = NULL;

    (void)state;
    assert_int_equal(stats_series_build(st, 3, 2, DELTA, &all, NULL), STATUS_OK);
    /* the whole range: the build's rates bit for bit, U times the 3 devices */
    assert_int_equal(stats_series_sum_range(st, 3, 2, DELTA, J0 + 1, J0 + 6, &sums, NULL),
                     STATUS_OK);
    assert_int_equal(sums->n_devices, 3);
    assert_int_equal(sums->n_servers, 2);
    for (int64_t j = J0 + 1; j <= J0 + 6; j++) {
        size_t i = at(sums->s, j), k = at(all, j);
        assert_memory_equal(&sums->s->r[i], &all->r[k], sizeof(double));
        assert_memory_equal(&sums->s->w[i], &all->w[k], sizeof(double));
        assert_rel(sums->s->u[i] / 3.0, all->u[k], 1e-15);
        assert_int_equal(sums->s->present[i], all->present[k]);
    }
    assert_int_equal(sums->devices[at(sums->s, J0 + 1)], 3);
    assert_int_equal(sums->servers[at(sums->s, J0 + 1)], 2);
    assert_int_equal(sums->devices[at(sums->s, J0 + 4)], 1); /* device 1 half */
    assert_int_equal(sums->servers[at(sums->s, J0 + 4)], 0);
    assert_int_equal(sums->devices[at(sums->s, J0 + 6)], 2);
    assert_int_equal(sums->servers[at(sums->s, J0 + 6)], 1);
    assert_int_equal(sums->s->present[at(sums->s, J0 + 6)], 0);
    stats_series_sums_free(sums);

    /* J0+5 … J0+6 only: server 1 has no sample there and is not expected */
    assert_int_equal(stats_series_sum_range(st, 3, 2, DELTA, J0 + 5, J0 + 6, &sums, NULL),
                     STATUS_OK);
    assert_int_equal(sums->n_devices, 2);
    assert_int_equal(sums->n_servers, 1);
    assert_int_equal(sums->s->n, 2);
    assert_int_equal(sums->s->present[0], 0); /* device 1 covers half of J0+5 */
    assert_int_equal(sums->s->present[1], 1); /* both devices of server 0 cover J0+6 */
    assert_memory_equal(&sums->s->r[1], &all->r[at(all, J0 + 6)], sizeof(double));
    stats_series_sums_free(sums);

    /* a range past every sample: nothing expected, nothing present, zero rates */
    assert_int_equal(
        stats_series_sum_range(st, 3, 2, DELTA, J0 + 10, J0 + 12, &sums, NULL),
        STATUS_OK);
    assert_int_equal(sums->n_devices, 0);
    for (size_t i = 0; i < sums->s->n; i++) {
        assert_int_equal(sums->s->present[i], 0);
        assert_rel(sums->s->r[i], 0.0, 0.0);
    }
    stats_series_sums_free(sums);
    stats_series_free(all);
}

static void range_sums_refuse_servers_apart_and_bad_ranges(void **state)
{
    const double e[] = {B + 60}, r[] = {1.0}, w[] = {2.0};
    struct stats_stream st[3] = {stream_of(0, e, r, w, 1, DELTA),
                                 stream_of(1, e, r, w, 1, DELTA),
                                 stream_of(0, e, r, w, 1, DELTA)};
    struct stats_series_sums *sums = NULL;
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_series_sum_range(st, 3, 2, DELTA, J0, J0 + 2, &sums, &err),
                     STATUS_INVALID);
    assert_null(sums);
    assert_non_null(strstr(err.msg, "not adjacent"));
    assert_int_equal(stats_series_sum_range(st, 2, 2, DELTA, J0 + 2, J0, &sums, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_series_sum_range(st, 2, 2, 0.0, J0, J0 + 2, &sums, NULL),
                     STATUS_INVALID);
    assert_int_equal(stats_series_sum_range(st, 2, 1, DELTA, J0, J0 + 2, &sums, NULL),
                     STATUS_INVALID); /* server index 1 of 1 */
    assert_null(sums);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(samples_ending_on_grid_points_are_those_intervals),
        cmocka_unit_test(ends_within_a_quarter_interval_snap_and_beyond_it_split),
        cmocka_unit_test(split_samples_conserve_volume_and_fill_interior_intervals),
        cmocka_unit_test(streams_with_multiple_and_fraction_deltas_conserve_volume),
        cmocka_unit_test(server_missing_an_interval_makes_a_hole_and_devices_add),
        cmocka_unit_test(lab_samples_with_offset_point_nine_snap_to_the_next_second),
        cmocka_unit_test(lab_samples_with_offset_beyond_a_quarter_split_over_two_seconds),
        cmocka_unit_test(overlapping_samples_of_one_stream_do_not_count_twice),
        cmocka_unit_test(deltas_that_are_not_multiples_are_invalid),
        cmocka_unit_test(bad_streams_and_grids_are_invalid),
        cmocka_unit_test(missing_rates_are_holes_and_missing_ops_are_nan),
        cmocka_unit_test(no_samples_give_an_empty_series),
        cmocka_unit_test(coarsening_takes_means_keeps_holes_and_shifts_by_phase),
        cmocka_unit_test(coarsening_rejects_zero_k_and_phase_past_k),
        cmocka_unit_test(a_single_missing_interval_is_the_line_between_its_neighbours),
        cmocka_unit_test(a_longer_run_or_one_at_an_end_stays_a_hole),
        cmocka_unit_test(xff_tolerates_up_to_its_share_of_missing_fine_intervals),
        cmocka_unit_test(xff_changes_nothing_without_missing_intervals),
        cmocka_unit_test(range_sums_equal_the_build_and_expect_only_devices_of_the_range),
        cmocka_unit_test(range_sums_refuse_servers_apart_and_bad_ranges),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
