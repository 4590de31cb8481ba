/* union.c: the measure of a union of windows (docs/method.md §10: t_x, t_x_read,
 * t_x_write).
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

/* Orders windows by start, then end. */
static int window_cmp(const void *a, const void *b)
{
    const struct stats_window *x = a, *y = b;

    if (x->start_s != y->start_s)
        return (x->start_s > y->start_s) - (x->start_s < y->start_s);
    return (x->end_s > y->end_s) - (x->end_s < y->end_s);
}

enum status stats_union_measure(struct stats_window *windows, size_t n, double *measure_s,
                                struct error *err)
{
    if (measure_s == NULL)
        return error_set(err, STATUS_INVALID, "missing output");
    *measure_s = NAN;
    if (n > 0 && windows == NULL)
        return error_set(err, STATUS_INVALID, "%zu windows without windows", n);
    for (size_t k = 0; k < n; k++) {
        const struct stats_window *w = &windows[k];
        if (!isfinite(w->start_s) || !isfinite(w->end_s) || !(w->start_s <= w->end_s)) {
            return error_set(err, STATUS_INVALID, "window %zu [%.17g, %.17g]", k,
                             w->start_s, w->end_s);
        }
    }
    if (n == 0) {
        *measure_s = 0.0;
        return STATUS_OK;
    }
    qsort(windows, n, sizeof *windows, window_cmp);

    /* Sweep the sorted windows, merging each run of overlapping or touching ones
     * into [run_start, run_end]; each run adds its length once. Lengths are taken
     * per run (end − start of epoch-sized times), never as a difference of sums, so
     * a long union of short runs loses nothing to cancellation. */
    double total = 0.0, run_start = windows[0].start_s, run_end = windows[0].end_s;
    for (size_t k = 1; k < n; k++) {
        if (windows[k].start_s <= run_end) {
            run_end = fmax(run_end, windows[k].end_s);
            continue;
        }
        total += run_end - run_start;
        run_start = windows[k].start_s;
        run_end = windows[k].end_s;
    }
    *measure_s = total + (run_end - run_start);
    return STATUS_OK;
}
