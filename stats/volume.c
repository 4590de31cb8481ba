/* volume.c: system-wide volume over a job's span and its I/O (docs/method.md §3, eq.
 * 2–5). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

/* Grid indices stay far from int64_t's range (2^62). */
#define J_LIMIT 4.611686018427387904e18

const char *stats_exclusion_name(enum stats_exclusion e)
{
    switch (e) {
    case EXCL_NONE: return "";
    case EXCL_HOLE: return "hole";
    case EXCL_NO_IO: return "no_io";
    case EXCL_NO_MONITORED_IO: return "no_monitored_io";
    case EXCL_INCOMPLETE_LOG: return "incomplete_log";
    case EXCL_NONFINITE: return "nonfinite";
    case EXCL_NONPOSITIVE_IN_LOG_SPACE: return "nonpositive_in_log_space";
    case EXCL_NO_TRACE: return "no_trace";
    case EXCL_INCOMPLETE_DXT: return "incomplete_dxt";
    case EXCL_NO_QUEUE_DATA: return "no_queue_data";
    case EXCL_COUNT: break;
    }
    return "";
}

double stats_grid_end(const struct stats_series *s, int64_t j)
{
    return s->origin_s + (double)j * s->delta_s;
}

bool stats_grid_holds(const struct stats_series *s, double t)
{
    return isfinite(t) && fabs((t - s->origin_s) / s->delta_s) < J_LIMIT;
}

int64_t stats_grid_interval_from(const struct stats_series *s, double t)
{
    int64_t j = (int64_t)floor((t - s->origin_s) / s->delta_s) + 1;

    while (t < stats_grid_end(s, j - 1))
        j--;
    while (t >= stats_grid_end(s, j))
        j++;
    return j;
}

int64_t stats_grid_interval_to(const struct stats_series *s, double t)
{
    int64_t j = (int64_t)ceil((t - s->origin_s) / s->delta_s);

    while (t <= stats_grid_end(s, j - 1))
        j--;
    while (t > stats_grid_end(s, j))
        j++;
    return j;
}

/* Element of s holding grid interval j, or -1 when j is outside s or a hole. */
static int64_t present_at(const struct stats_series *s, int64_t j)
{
    int64_t i = j - s->j_first;

    if (i < 0 || i >= (int64_t)s->n || !s->present[i])
        return -1;
    return i;
}

/* The four rates of one family, and their sums. */
struct rates {
    double r, w, ro, wo;
};

static void rates_add(struct rates *acc, const struct stats_series *s, int64_t i)
{
    acc->r += s->r[i];
    acc->w += s->w[i];
    acc->ro += s->ro[i];
    acc->wo += s->wo[i];
}

/* The pro-rated ends of eq. 2 and eq. 4. For a run of intervals first..last covering
 * [t_start, t_end], Δ·Σ v_i − (t_start − t_0)·v_first − (t_last − t_end)·v_last equals
 *   head_s·v_first + Δ·Σ_interior v_i + tail_s·v_last,
 * head_s = T_first − t_start, tail_s = t_end − T_{last−1}, and (t_end − t_start)·v
 * when first == last. That arrangement adds only non-negative parts: no cancellation
 * for a short job or window on a long Δ, and an instant gives exactly 0. */
struct ends {
    bool single;   /* first == last */
    double head_s; /* T_first − t_start, or t_end − t_start when single */
    double tail_s; /* t_end − T_{last−1} */
};

static struct ends ends_of(const struct stats_series *s, int64_t first, int64_t last,
                           double t_start, double t_end)
{
    struct ends e;

    e.single = first == last;
    e.head_s = e.single ? t_end - t_start : stats_grid_end(s, first) - t_start;
    e.tail_s = e.single ? 0.0 : t_end - stats_grid_end(s, last - 1);
    return e;
}

static double integrate(const struct ends *e, double delta_s, double first,
                        double interior, double last)
{
    if (e->single)
        return e->head_s * first;
    return e->head_s * first + delta_s * interior + e->tail_s * last;
}

/* Eq. 2 / eq. 4 for the four rates; interior holds Σ over intervals strictly
 * between first (element i1 of s) and last (element il). */
static struct rates integrate_rates(const struct stats_series *s, const struct ends *e,
                                    const struct rates *interior, int64_t i1, int64_t il)
{
    double d = s->delta_s;
    struct rates v;

    v.r = integrate(e, d, s->r[i1], interior->r, s->r[il]);
    v.w = integrate(e, d, s->w[i1], interior->w, s->w[il]);
    v.ro = integrate(e, d, s->ro[i1], interior->ro, s->ro[il]);
    v.wo = integrate(e, d, s->wo[i1], interior->wo, s->wo[il]);
    return v;
}

/* Ψ and Ψ^O over the span [T_start, T_end] (eq. 2, 3). */
static void span_volume(const struct stats_series *s, const struct stats_job *job,
                        struct stats_job_volume *out)
{
    int64_t j1 = stats_grid_interval_from(s, job->start_s);
    /* A zero-length job lies in the one interval that starts at or before it: n = 1
     * and Ψ = 0 (Ψ^O stays NAN when RO, WO are unknown). */
    int64_t jn = job->end_s > job->start_s ? stats_grid_interval_to(s, job->end_s) : j1;
    struct rates interior = {0};
    double filled_s = 0.0;

    for (int64_t j = j1; j <= jn; j++) {
        int64_t i = present_at(s, j);
        if (i < 0) {
            out->psi_excl = EXCL_HOLE;
            return;
        }
        if (j != j1 && j != jn)
            rates_add(&interior, s, i);
        filled_s += s->filled_s[i];
    }
    out->filled_s = filled_s;
    struct ends e = ends_of(s, j1, jn, job->start_s, job->end_s);
    struct rates v = integrate_rates(s, &e, &interior, j1 - s->j_first, jn - s->j_first);
    out->psi_read = v.r;
    out->psi_write = v.w;
    out->psi_o_read = v.ro;
    out->psi_o_write = v.wo;
    out->psi_excl = (isfinite(v.r) && isfinite(v.w)) ? EXCL_NONE : EXCL_NONFINITE;
}

/* Eq. 4 and 5 over one active set. */
struct active {
    enum stats_exclusion excl;
    size_t m;         /* |A| */
    double s_d;       /* |S^D|, seconds */
    struct rates psi; /* Ψ^D_R, Ψ^D_W, Ψ^{DO}_R, Ψ^{DO}_W */
    /* Σ over every interval of A (docs/method.md §11): Q, U, AW's parts. */
    double q, u, aw_num, aw_den;
};

static bool window_counts(const struct stats_window *w, bool monitored_only)
{
    return !monitored_only || w->monitored;
}

/* Orders [lo, hi] pairs of grid offsets by their start. */
static int range_cmp(const void *a, const void *b)
{
    const size_t *x = a, *y = b;

    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* A = ∪ of the intervals each window overlaps (docs/method.md §3), built by sorting the
 * windows' interval ranges and merging them: O(w log w + m), no allocation (scratch
 * holds 2·n_windows size_t). out->excl is EXCL_NO_IO when no window counts. */
static void active_volume(const struct stats_series *s, const struct stats_job *job,
                          bool monitored_only, size_t *scratch, struct active *out)
{
    double t_start = INFINITY, t_end = -INFINITY;
    size_t n = 0;
    int64_t base, j_last = INT64_MIN;
    struct rates interior = {0}; /* Σ over active intervals but the first and last */
    bool hole = false;

    out->m = 0;
    out->s_d = NAN;
    out->q = out->u = out->aw_num = out->aw_den = 0.0;
    for (size_t k = 0; k < job->n_windows; k++) {
        const struct stats_window *w = &job->windows[k];
        if (!window_counts(w, monitored_only))
            continue;
        t_start = fmin(t_start, w->start_s);
        t_end = fmax(t_end, w->end_s);
        n++;
    }
    if (n == 0) {
        out->excl = EXCL_NO_IO;
        return;
    }

    /* Window [a, b] makes active the intervals from the one containing a (boundaries
     * belong to the interval starting there) to the last one it overlaps with positive
     * length; a zero-length window only the interval containing a. Offsets from the
     * first active interval fit size_t. */
    base = stats_grid_interval_from(s, t_start);
    n = 0;
    for (size_t k = 0; k < job->n_windows; k++) {
        const struct stats_window *w = &job->windows[k];
        if (!window_counts(w, monitored_only))
            continue;
        int64_t lo = stats_grid_interval_from(s, w->start_s);
        int64_t hi = w->end_s > w->start_s ? stats_grid_interval_to(s, w->end_s) : lo;
        scratch[2 * n] = (size_t)(lo - base);
        scratch[2 * n + 1] = (size_t)(hi - base);
        j_last = hi > j_last ? hi : j_last;
        n++;
    }
    qsort(scratch, n, 2 * sizeof *scratch, range_cmp);

    /* Merge overlapping or touching ranges; each merged run is summed once, so the
     * cost is the number of active intervals. */
    size_t run_lo = scratch[0], run_hi = scratch[1];
    for (size_t k = 1; k <= n; k++) {
        if (k < n && scratch[2 * k] <= run_hi + 1) {
            run_hi = scratch[2 * k + 1] > run_hi ? scratch[2 * k + 1] : run_hi;
            continue;
        }
        out->m += run_hi - run_lo + 1;
        for (size_t q = run_lo; q <= run_hi && !hole; q++) {
            int64_t i = present_at(s, base + (int64_t)q);
            if (i < 0) {
                hole = true;
                continue;
            }
            if (q != 0 && base + (int64_t)q != j_last)
                rates_add(&interior, s, i);
            out->q += s->q[i];
            out->u += s->u[i];
            out->aw_num += s->aw_num[i];
            out->aw_den += s->aw_den[i];
        }
        if (k < n) {
            run_lo = scratch[2 * k];
            run_hi = scratch[2 * k + 1];
        }
    }

    /* Eq. 4: t^D_1 = T_base and t^D_m = T_{j_last} bound the first and last active
     * intervals, the only two pro-rated; interior ones count in full, gaps not at
     * all. |S^D| is the same sum with rate 1. */
    struct ends e = ends_of(s, base, j_last, t_start, t_end);
    out->s_d =
        e.single ? e.head_s : e.head_s + (double)(out->m - 2) * s->delta_s + e.tail_s;
    if (hole) {
        out->excl = EXCL_HOLE;
        return;
    }
    out->psi = integrate_rates(s, &e, &interior, base - s->j_first, j_last - s->j_first);
    out->excl =
        (isfinite(out->psi.r) && isfinite(out->psi.w)) ? EXCL_NONE : EXCL_NONFINITE;
}

/* q_d, u_d, await_d over A (docs/method.md §11): the D family's exclusion, else
 * no_queue_data when the sources lack aqu-sz or %util. await_d needs a request
 * (AW's weight) and an await over A; without them it alone is NAN. */
static void queue_over_active(const struct active *act, struct stats_job_volume *out)
{
    out->q_excl = act->excl;
    if (act->excl != EXCL_NONE)
        return;
    if (!isfinite(act->q) || !isfinite(act->u)) {
        out->q_excl = EXCL_NO_QUEUE_DATA;
        return;
    }
    out->q_d = act->q / (double)act->m;
    out->u_d = act->u / (double)act->m;
    if (isfinite(act->aw_num) && act->aw_den > 0.0)
        out->await_d = act->aw_num / act->aw_den;
}

static enum status check_job(const struct stats_series *s, const struct stats_job *job,
                             const size_t *scratch, struct error *err)
{
    if (!(isfinite(s->delta_s) && s->delta_s > 0.0 && isfinite(s->origin_s))) {
        return error_set(err, STATUS_INVALID, "series delta_s %g, origin_s %g",
                         s->delta_s, s->origin_s);
    }
    if (!stats_grid_holds(s, job->start_s) || !stats_grid_holds(s, job->end_s) ||
        !(job->start_s <= job->end_s)) {
        return error_set(err, STATUS_INVALID, "job span [%.17g, %.17g]", job->start_s,
                         job->end_s);
    }
    if (job->n_windows > 0 && (job->windows == NULL || scratch == NULL)) {
        return error_set(err, STATUS_INVALID, "%zu windows without %s", job->n_windows,
                         job->windows == NULL ? "windows" : "scratch");
    }
    for (size_t k = 0; k < job->n_windows; k++) {
        const struct stats_window *w = &job->windows[k];
        if (!stats_grid_holds(s, w->start_s) || !stats_grid_holds(s, w->end_s) ||
            !(w->start_s <= w->end_s)) {
            return error_set(err, STATUS_INVALID, "window %zu [%.17g, %.17g]", k,
                             w->start_s, w->end_s);
        }
    }
    return STATUS_OK;
}

void stats_job_volume_none(struct stats_job_volume *v, enum stats_exclusion e)
{
    *v = (struct stats_job_volume){.psi_excl = e,
                                   .psi_read = NAN,
                                   .psi_write = NAN,
                                   .psi_o_read = NAN,
                                   .psi_o_write = NAN,
                                   .filled_s = NAN,
                                   .d_excl = e,
                                   .t_d = NAN,
                                   .psi_d_read = NAN,
                                   .psi_d_write = NAN,
                                   .psi_do_read = NAN,
                                   .psi_do_write = NAN,
                                   .s_d = NAN,
                                   .i_excl = e,
                                   .t_i = NAN,
                                   .psi_i_read = NAN,
                                   .psi_i_write = NAN,
                                   .q_excl = e,
                                   .q_d = NAN,
                                   .u_d = NAN,
                                   .await_d = NAN};
}

enum status stats_job_volume(const struct stats_series *s, const struct stats_job *job,
                             size_t *scratch, struct stats_job_volume *out,
                             struct error *err)
{
    struct active act;
    enum status rc;

    if (s == NULL || job == NULL || out == NULL)
        return error_set(err, STATUS_INVALID, "missing series, job or output");
    stats_job_volume_none(out, EXCL_NONE);
    rc = check_job(s, job, scratch, err);
    if (rc != STATUS_OK)
        return rc;

    span_volume(s, job, out);

    /* A, m, T^D, Ψ^D, Ψ^{DO}: every window. With a hole, m, T^D and |S^D| (which need
     * only the grid) are still reported; the exclusion says they are not to be used. */
    active_volume(s, job, false, scratch, &act);
    out->d_excl = act.excl;
    out->m = act.m;
    if (act.m > 0) {
        out->t_d = (double)act.m * s->delta_s;
        out->s_d = act.s_d;
    }
    if (act.excl == EXCL_NONE) {
        out->psi_d_read = act.psi.r;
        out->psi_d_write = act.psi.w;
        out->psi_do_read = act.psi.ro;
        out->psi_do_write = act.psi.wo;
    }
    queue_over_active(&act, out);

    /* A^I, T^I, Ψ^I: the windows on monitored file systems, same series. */
    active_volume(s, job, true, scratch, &act);
    out->i_excl = act.excl;
    if (act.excl == EXCL_NO_IO && job->n_windows > 0)
        out->i_excl = EXCL_NO_MONITORED_IO;
    out->m_i = act.m;
    if (act.m > 0)
        out->t_i = (double)act.m * s->delta_s;
    if (act.excl == EXCL_NONE) {
        out->psi_i_read = act.psi.r;
        out->psi_i_write = act.psi.w;
    }
    return STATUS_OK;
}
