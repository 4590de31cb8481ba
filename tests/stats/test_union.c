/* test_union.c: the measure of a union of windows (METHOD.md §10: t_x, t_x_read,
 * t_x_write) against values worked by hand. */
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

/* An epoch-sized origin, as DXT windows are absolute: the ulp there is 2^-22 s, so
 * the dyadic offsets below are exact and the sums of a few of them too. */
#define B 1699999980.0

static void nested_touching_and_zero_length_windows_count_once(void **state)
{
    /* Given out of order: [10.25, 20.5] ⊃ [15.125, 18], [20.5, 22.75] touches it,
     * [30, 30] is an instant, [40.5, 41.375] stands alone. By hand: the union is
     * [10.25, 22.75] ∪ {30} ∪ [40.5, 41.375], 12.5 + 0 + 0.875 = 13.375 s. */
    struct stats_window w[] = {{B + 40.5, B + 41.375, true},
                               {B + 20.5, B + 22.75, true},
                               {B + 30.0, B + 30.0, false},
                               {B + 15.125, B + 18.0, true},
                               {B + 10.25, B + 20.5, false}};
    double t = 0;

    (void)state;
    assert_int_equal(stats_union_measure(w, 5, &t, NULL), STATUS_OK);
    assert_rel(t, 13.375, 0.0);
    /* Sorted in place by start. */
    for (size_t k = 1; k < 5; k++)
        assert_true(w[k - 1].start_s <= w[k].start_s);
}

static void overlapping_reads_and_writes_as_one_operation_stream(void **state)
{
    /* A read [2.385, 7.913] and a write [5.002, 9.117] overlapping it, a second read
     * [12.5, 13.25] after a gap. By hand: reads 5.528 + 0.75 = 6.278 s, the write
     * 4.115 s, both: [2.385, 9.117] ∪ [12.5, 13.25] = 6.732 + 0.75 = 7.482 s. */
    const struct stats_window reads[] = {{B + 2.385, B + 7.913, true},
                                         {B + 12.5, B + 13.25, true}};
    const struct stats_window writes[] = {{B + 5.002, B + 9.117, true}};
    struct stats_window w[3];
    double t = 0;
    /* Each epoch-sized time rounds by up to 2^-23 s. */
    const double tol = 4.0 * 0x1p-23;

    (void)state;
    memcpy(w, reads, sizeof reads);
    assert_int_equal(stats_union_measure(w, 2, &t, NULL), STATUS_OK);
    assert_rel(t, 6.278, tol);
    memcpy(w, writes, sizeof writes);
    assert_int_equal(stats_union_measure(w, 1, &t, NULL), STATUS_OK);
    assert_rel(t, 4.115, tol);
    memcpy(w, reads, sizeof reads);
    memcpy(w + 2, writes, sizeof writes);
    assert_int_equal(stats_union_measure(w, 3, &t, NULL), STATUS_OK);
    assert_rel(t, 7.482, tol);
}

static void only_instants_or_no_windows_measure_zero(void **state)
{
    struct stats_window w[] = {
        {B + 3.5, B + 3.5, true}, {B + 3.5, B + 3.5, true}, {B + 61.0, B + 61.0, true}};
    double t = NAN;

    (void)state;
    assert_int_equal(stats_union_measure(w, 3, &t, NULL), STATUS_OK);
    assert_rel(t, 0.0, 0.0);
    t = NAN;
    assert_int_equal(stats_union_measure(NULL, 0, &t, NULL), STATUS_OK);
    assert_rel(t, 0.0, 0.0);
}

static void bad_windows_are_invalid(void **state)
{
    struct stats_window reversed[] = {{B + 20.0, B + 10.0, true}};
    struct stats_window nan_window[] = {{B, NAN, true}};
    struct stats_window inf_window[] = {{-INFINITY, B, true}};
    struct error err = {0};
    double t = 0;

    (void)state;
    assert_int_equal(stats_union_measure(reversed, 1, &t, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "window 0"));
    assert_true(isnan(t));
    assert_int_equal(stats_union_measure(nan_window, 1, &t, NULL), STATUS_INVALID);
    assert_int_equal(stats_union_measure(inf_window, 1, &t, NULL), STATUS_INVALID);
    assert_int_equal(stats_union_measure(NULL, 2, &t, NULL), STATUS_INVALID);
    assert_int_equal(stats_union_measure(reversed, 0, NULL, NULL), STATUS_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_touching_and_zero_length_windows_count_once),
        cmocka_unit_test(overlapping_reads_and_writes_as_one_operation_stream),
        cmocka_unit_test(only_instants_or_no_windows_measure_zero),
        cmocka_unit_test(bad_windows_are_invalid),
    };

    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
