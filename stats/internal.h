/* internal.h: what the files of stats/ share and nobody outside stats/ sees. */
#ifndef IOCONTEND_STATS_INTERNAL_H
#define IOCONTEND_STATS_INTERNAL_H

#include "stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

_Static_assert(sizeof(uint64_t) == sizeof(double), "sort keys share the double scratch");
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "sort keys share the index scratch");

/* true once the caller's cancel flag (NULL: none) is set. The long loops poll it
 * between iterations: a relaxed load costs nothing beside one iteration. */
static inline bool stats_cancel_asked(const atomic_bool *cancel)
{
    return cancel != NULL && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* Scratch arrays any method may use between its entry and its return (none keeps
 * anything in them across calls): d_max elements each. */
#define STATS_WS_DTMP 6
#define STATS_WS_ITMP 2
/* Radix digits of the argsort: 6 passes of 11 bits cover a 64-bit key. */
#define STATS_SORT_BITS   11
#define STATS_SORT_PASSES 6

/* Workspaces for d_max jobs in this range have a partner, and stats_assoc_compute
 * runs KSG on a second thread beside the other methods for d >= STATS_THREAD_MIN_D.
 * Below, a thread's start is not worth it. Above, the partner's memory is not: it
 * is as large as the workspace, 88 bytes a job, and at d = 10^6 the four
 * methods must fit in 100 MB while one thread takes half the time allowed. */
#define STATS_THREAD_MIN_D ((size_t)1 << 14)
#define STATS_THREAD_MAX_D ((size_t)1 << 18)

struct stats_ws {
    size_t d_max;             /* jobs the arrays hold */
    struct stats_ws *partner; /* KSG's scratch on its own thread, or NULL */
    bool one_thread;          /* stats_ws_allow_thread(ws, false) */
    size_t *order;            /* sort permutation of x, d_max */
    size_t *order_y;          /* sort permutation of y, d_max */
    double *rx;               /* average ranks of x: dtmp[2], until a method reuses it */
    double *ry;               /* average ranks of y: dtmp[3], likewise */
    double *dblock;           /* STATS_WS_DTMP·d_max: dtmp[i] = dblock + i·d_max */
    double *dtmp[STATS_WS_DTMP];
    size_t *itmp[STATS_WS_ITMP];
    /* owned by stats_argsort */
    uint64_t *key, *key_tmp; /* dtmp[4], dtmp[5]: no method holds them across a sort */
    size_t *idx_tmp;
    size_t *hist; /* STATS_SORT_PASSES << STATS_SORT_BITS */
    gsl_rng *rng; /* KSG jitter (mi.c), reseeded on every call: taus2, whose
                   * outputs cost a third of MT19937's in GSL */
};

/* The permutation that sorts v ascending (stable: equal values keep their index
 * order) into order (d elements, not one of ws's sort arrays). LSD radix sort on
 * order-preserving 64-bit keys, O(d); v must be finite (−0 sorts as +0). Needs
 * d <= ws->d_max. Returns the keys in sorted order (equal exactly where the values
 * are), in ws->key or ws->key_tmp until the next sort with ws. */
const uint64_t *stats_argsort(struct stats_ws *ws, const double *v, size_t d,
                              size_t *order);

/* The values of v ascending into sorted (−0 as +0): the argsort's passes without
 * the permutation, for a caller that needs the values only. key and key_tmp are
 * scratch of d elements; key may be sorted itself, nothing else may overlap. Needs
 * d <= ws->d_max. */
void stats_sort_values(struct stats_ws *ws, const double *v, size_t d, uint64_t *key,
                       uint64_t *key_tmp, double *sorted);

/* Ranks 1..d given a sort permutation and the sorted keys stats_argsort returned
 * with it, ties given their average rank. The ties are read from the keys in
 * order, not from the values through the permutation: a gather less. */
void stats_average_ranks(const uint64_t *sorted_keys, const size_t *order, size_t d,
                         double *rank);

/* Distance correlation (docs/method.md §5): dCor_V into *dcor_v and the bias-corrected
 * dCor²_U into *dcor2_u (NAN for d < 4), in O(d log d). Needs x, y finite and not
 * constant, 2 <= d <= ws->d_max, ws->order / ws->order_y the sort orders of x and
 * y, and their means (stats_mean; the values are centred on them first). Uses
 * ws->dtmp[0..3] (one stretch of ws->dblock: a merge sort of 4d doubles).
 * dCor²_U is also NAN when a series is constant but for its smallest and largest
 * value (its U-centred distance matrix is then zero). About 1e-12 off the exact
 * values at d = 10^6, ties or not: the long sums are compensated. */
void stats_dcor_sorted(const double *x, const double *y, size_t d, double mean_x,
                       double mean_y, struct stats_ws *ws, double *dcor_v,
                       double *dcor2_u);

/* KSG mutual information in nats (docs/method.md §5 mi_ksg_nats), k = 3, max-norm, as
 * scikit-learn's mutual_info_regression: each variable divided by its sd (d in the
 * denominator, correctly rounded), jitter v += 1e-10·max(1, mean|v|)·z with z
 * standard normal (GSL's ziggurat) from taus2 seeded with seed (skipped when
 * !jitter), then Kraskov et al. 2004 algorithm 1, clipped at 0. Needs x, y finite
 * and not constant, 4 <= d <= ws->d_max. O(d log d): a k-d tree for the
 * neighbours, bisections on the sorted values for the counts.
 *
 * In two steps, so that two threads can share it (mi.c): stats_mi_start begins it,
 * on a thread of its own with ws->partner's scratch when thread is true and ws has
 * a partner; the caller does other work, gives the sort orders of x and y
 * (stats_mi_share_orders: the counts share them), then stats_mi_finish takes its
 * share of the neighbour queries and the marginal counts (with ws's scratch) and
 * returns the MI, NAN below d = 4. Without the thread, stats_mi_finish does all of
 * it with ws. Either way the result is the same, bit for bit. The scratch used:
 * dtmp[0..5], itmp[0], idx_tmp, hist and rng; the orders must stay until
 * stats_mi_finish returns. */
struct stats_ksg {
    const double *x, *y;
    size_t d;
    uint64_t seed;
    bool jitter;
    struct stats_ws *own;    /* the points, the tree and eps */
    struct stats_ws *helper; /* the caller's scratch; NULL: no thread was started */
    pthread_t thread;
    pthread_mutex_t lock; /* guards what follows */
    pthread_cond_t cond;  /* ready, chunks_done reaching N_CHUNKS, or the orders */
    bool ready;           /* the tree stands */
    size_t next_chunk, chunks_done;
    unsigned next_axis;     /* the next marginal to take: 0 x, 1 y, 2 none */
    const size_t *order[2]; /* sort orders of x and y; NULL until shared */
    double psi[2];          /* Σ_i ψ(n_x(i) + 1), Σ_i ψ(n_y(i) + 1) */
};

void stats_mi_start(struct stats_ksg *k, const double *x, const double *y, size_t d,
                    struct stats_ws *ws, uint64_t seed, bool jitter, bool thread);
void stats_mi_share_orders(struct stats_ksg *k, const size_t *order_x,
                           const size_t *order_y);
double stats_mi_finish(struct stats_ksg *k);

/* ---- the grid of a series (volume.c; also coverage.c) ---------------------------- */

/* T_j = origin_s + j·Δ: every comparison of a time with the grid uses these very
 * stamps, so a time on a boundary is classified the same way wherever it appears. */
double stats_grid_end(const struct stats_series *s, int64_t j);

/* true when t is finite and its grid index fits int64_t with room to spare. */
bool stats_grid_holds(const struct stats_series *s, double t);

/* The interval j with T_{j−1} <= t < T_j: a time on a boundary belongs to the
 * interval that starts there (docs/method.md §3). t must be stats_grid_holds. */
int64_t stats_grid_interval_from(const struct stats_series *s, double t);

/* The interval j with T_{j−1} < t <= T_j: the last interval a span ending at t
 * overlaps with positive length. t must be stats_grid_holds. */
int64_t stats_grid_interval_to(const struct stats_series *s, double t);

/* ---- vec.c --------------------------------------------------------------------- */

/* true when every v[i] is finite (d = 0: true). */
bool stats_all_finite(const double *v, size_t d);
/* true when every v[i] equals v[0] (d <= 1: true). */
bool stats_all_equal(const double *v, size_t d);
/* The mean of d >= 1 values, refined by a second pass: v − m1 is exact near the mean,
 * so the correction removes the rounding of a large Σv (x up to 1e15 bytes). */
double stats_mean(const double *v, size_t d);

#endif
