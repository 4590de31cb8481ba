/* mi.c: Kraskov–Stögbauer–Grassberger mutual information, k = 3 (docs/method.md §5). */
#include "internal.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_psi.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define KSG_K 3 /* kd_scan keeps the best three */
/* Points in a k-d tree leaf: small enough that a query scans few points, large
 * enough that the tree stays shallow. */
#define LEAF 24

/* Two lanes: GCC's generic vectors, which every target lowers (SSE2 on x86-64). */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2i __attribute__((vector_size(16)));

/* ---- the sd, correctly rounded ------------------------------------------------ */

/* A double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi) / 2. */
struct dd {
    double hi, lo;
};

/* a + b exactly (Knuth's TwoSum). */
static struct dd two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (struct dd){s, (a - (s - bb)) + (b - bb)};
}

/* The same for two pairs at once, one per lane. */
struct dd2 {
    v2d hi, lo;
};

static struct dd2 two_sum2(v2d a, v2d b)
{
    const v2d s = a + b, bb = s - a;
    return (struct dd2){s, (a - (s - bb)) + (b - bb)};
}

/* a² exactly: Dekker's product with Veltkamp's split (|a| < 1e300). Plain
 * arithmetic: without -mfma, fma() is a library call. */
static struct dd2 two_square2(v2d a)
{
    const v2d p = a * a, c = 134217729.0 * a; /* 2^27 + 1 */
    const v2d ah = c - (c - a), al = a - ah;
    return (struct dd2){p, ((ah * ah - p) + 2.0 * ah * al) + al * al};
}

static struct dd dd_div(struct dd a, double b)
{
    double q1 = a.hi / b, p = q1 * b, pe = fma(q1, b, -p);
    return two_sum(q1, (a.hi - p - pe + a.lo) / b);
}

/* The two lanes' sums hi + lo as one. */
static struct dd dd_of_lanes(struct dd2 sum)
{
    const struct dd t = two_sum(sum.hi[0], sum.hi[1]);
    return two_sum(t.hi, t.lo + sum.lo[0] + sum.lo[1]);
}

/* (v − mean)² added to sum: v − mean as hi + lo with |lo| <= ulp(hi) / 2 (lo² is
 * below the error). */
static void add_square(struct dd2 *sum, v2d v, struct dd2 mean)
{
    const struct dd2 part = two_sum2(v, -mean.hi);
    const struct dd2 dev = two_sum2(part.hi, part.lo - mean.lo);
    const struct dd2 sq = two_square2(dev.hi);
    const struct dd2 t = two_sum2(sum->hi, sq.hi);
    sum->hi = t.hi;
    sum->lo += t.lo + (sq.lo + 2.0 * dev.hi * dev.lo);
}

/* The population sd (d in the denominator) rounded once: the sums as if in twice
 * the precision (Ogita, Rump & Oishi 2005, Sum2: the rounding errors gather in a
 * second sum, off the dependency chain of the first), then one Newton step on the
 * square root. Two such sums, of the even and the odd i, so that their dependency
 * chains overlap; the sd is the same, correctly rounded either way. The oracle
 * rounds the exact value, so both scale by the same double; with x near 1e15 a
 * one-ulp difference in the sd moves the scaled values by half an ulp and flips
 * near-equal distances. Needs |v| < 1e150. */
static double sd_of(const double *v, size_t d)
{
    const double n = (double)d;
    const v2d zero = {0.0, 0.0};
    /* an odd d starts with v[0] alone, in lane 0 */
    const size_t first = d % 2;
    struct dd2 sum = {{first ? v[0] : 0.0, 0.0}, zero};

    for (size_t i = first; i < d; i += 2) {
        const struct dd2 t = two_sum2(sum.hi, (v2d){v[i], v[i + 1]});
        sum.hi = t.hi;
        sum.lo += t.lo;
    }
    const struct dd mean = dd_div(dd_of_lanes(sum), n);
    const struct dd2 mean2 = {{mean.hi, mean.hi}, {mean.lo, mean.lo}};

    sum = (struct dd2){zero, zero};
    if (first) {
        add_square(&sum, (v2d){v[0], v[0]}, mean2);
        sum.hi[1] = sum.lo[1] = 0.0;
    }
    for (size_t i = first; i < d; i += 2)
        add_square(&sum, (v2d){v[i], v[i + 1]}, mean2);
    const struct dd var = dd_div(dd_of_lanes(sum), n);
    const double s0 = sqrt(var.hi);
    if (s0 == 0.0 || !isfinite(s0))
        return s0;
    /* the residual var.hi − s0² is exact with fma */
    return s0 + (fma(-s0, s0, var.hi) + var.lo) / (2.0 * s0);
}

/* ---- scaling and jitter, as scikit-learn ---------------------------------------- */

/* A job's point for the neighbour search (below). */
struct point {
    double c[2]; /* x, y: together, so that a swap or a scan touches one line */
};

/* out = v / sd, and returns Σ|out| (in index order: the jitter's mean|v|).
 * scikit-learn replaces a zero sd by 1, and for the feature x also one below
 * 10·DBL_EPSILON (sklearn.preprocessing._handle_zeros_in_scale). */
static double scale(const double *v, size_t d, bool is_feature, double *out)
{
    double sd = sd_of(v, d), sum = 0.0;

    if (sd == 0.0 || (is_feature && sd < 10.0 * DBL_EPSILON))
        sd = 1.0;
    for (size_t i = 0; i < d; i++) {
        out[i] = v[i] / sd;
        sum += fabs(out[i]);
    }
    return sum;
}

/* v += 1e-10·max(1, mean|v|)·z, z standard normal, given sum = Σ|v| (Kraskov et al.
 * 2004, §II: noise breaks the ties of discretised data); the result also into
 * coordinate c of the points. */
static void add_jitter(double *v, double sum, size_t d, gsl_rng *rng, struct point *p,
                       unsigned c)
{
    const double amp = 1e-10 * fmax(1.0, sum / (double)d);

    for (size_t i = 0; i < d; i++) {
        v[i] += amp * gsl_ran_gaussian_ziggurat(rng, 1.0);
        p[i].c[c] = v[i];
    }
}

/* ---- the k-th neighbour in the max-norm: a k-d tree ---------------------------- */

/* An implicit, balanced k-d tree over positions [0, d): a node [lo, hi) with more
 * than LEAF points holds the median point at mid = lo + (hi − lo) / 2 along the
 * axis of the larger spread of its points (as scipy's cKDTree, so a variable that
 * is almost constant within a node is not split on); its children are [lo, mid),
 * with values <= the median's, and [mid + 1, hi), with values >= it. Nothing below
 * moves the point at mid, so it is the split value. */
struct kd {
    struct point *p; /* the points, permuted in place */
    size_t *on_y;    /* at mid of each inner node: 1 when it splits on y */
};

static double max2(double a, double b)
{
    return a > b ? a : b;
}

static double min2(double a, double b)
{
    return a < b ? a : b;
}

/* Moves the points of [l, r) whose key is < pivot (<= pivot when or_equal) to the
 * front and returns where that front part ends. Lomuto's scheme with an
 * unconditional swap, so branch-free: the comparisons are coin flips that a branch
 * would mispredict. A swap of a point at or behind the front with the front's
 * first point (>= pivot, or the point itself) keeps the invariant either way. */
static size_t kd_partition(const struct kd *t, unsigned axis, size_t l, size_t r,
                           double pivot, bool or_equal)
{
    struct point *p = t->p;
    size_t front = l;

    for (size_t i = l; i < r; i++) {
        const struct point pi = p[i];
        const double k = pi.c[axis];
        const bool in = or_equal ? k <= pivot : k < pivot;
        p[i] = p[front];
        p[front] = pi;
        front += in;
    }
    return front;
}

static void kd_swap(const struct kd *t, size_t a, size_t b)
{
    const struct point pa = t->p[a];

    t->p[a] = t->p[b];
    t->p[b] = pa;
}

/* The position of the median of 9 keys spread over [lo, hi) (hi − lo >= 9). */
static size_t spread_median(const struct kd *t, unsigned axis, size_t lo, size_t hi)
{
    size_t at[9] = {0};
    double v[9] = {0};

    for (size_t i = 0; i < 9; i++) {
        const size_t pos = lo + (2 * i + 1) * (hi - lo) / 18;
        const double k = t->p[pos].c[axis];
        size_t j = i;
        for (; j > 0 && v[j - 1] > k; j--) {
            v[j] = v[j - 1];
            at[j] = at[j - 1];
        }
        v[j] = k;
        at[j] = pos;
    }
    return at[4];
}

/* Moves the nth smallest key of [lo, hi) to nth, smaller-or-equal keys before it
 * and greater-or-equal after. Each round partitions around a pivot, kept aside at
 * the end and then put between the two parts, so that it leaves the range. Large
 * ranges take it as Floyd & Rivest's SELECT does (CACM 18(3), 1975): a selection
 * within a sample around nth first, so that it lands close to nth; the sample's
 * points are first gathered from across the range, which the levels above have
 * left partly ordered. Smaller ranges take the median of 9 spread keys. A pivot
 * that is the range's smallest key may have many equals (the ties of T^D): those
 * are then moved next to it in one more pass. */
static void kd_select(const struct kd *t, unsigned axis, size_t lo, size_t hi, size_t nth)
{
    size_t left = lo, right = hi; /* nth is in [left, right) */

    while (right - left > 1) {
        size_t at = nth;
        if (right - left > 600) {
            const double n = (double)(right - left), i = (double)(nth - left + 1);
            const double z = log(n), s = 0.5 * exp(2.0 * z / 3.0);
            const double sd =
                0.5 * sqrt(z * s * (n - s) / n) * (i < n / 2.0 ? -1.0 : 1.0);
            const double from = (double)nth - i * s / n + sd;
            const double to = (double)nth + (n - i) * s / n + sd;
            const size_t a = from > (double)left ? (size_t)from : left;
            const size_t b = to < (double)(right - 1) ? (size_t)to + 1 : right;
            const size_t step = (right - left) / (b - a);
            for (size_t j = 0; j < b - a; j++)
                kd_swap(t, a + j, left + j * step);
            kd_select(t, axis, a, b, nth);
        } else if (right - left >= 32) {
            at = spread_median(t, axis, left, right);
        }
        const double pivot = t->p[at].c[axis];
        kd_swap(t, at, right - 1);
        const size_t less = kd_partition(t, axis, left, right - 1, pivot, false);
        kd_swap(t, less, right - 1);
        if (nth == less)
            return;
        if (nth < less) {
            right = less;
            continue;
        }
        if (less > left) {
            left = less + 1;
            continue;
        }
        const size_t upto = kd_partition(t, axis, less + 1, right, pivot, true);
        if (nth < upto)
            return; /* [less, upto) all equal the pivot */
        left = upto;
    }
}

/* A median m in [lo_k, hi_k] within a quarter of the other axis' spread of an edge.
 * That is a cluster of (near-)ties at the edge of the node, as in T^D, a multiple
 * of Δ: splitting there would cut the cluster into pieces that each span its whole
 * other axis, and a query near it would have to visit them all. */
static bool at_edge(double m, double lo_k, double hi_k, double other_spread)
{
    return min2(m - lo_k, hi_k - m) < 0.25 * other_spread;
}

static void kd_build(const struct kd *t, size_t lo, size_t hi)
{
    double low[2], high[2], spread[2];

    if (hi - lo <= LEAF)
        return;
    for (unsigned a = 0; a < 2; a++)
        low[a] = high[a] = t->p[lo].c[a];
    for (size_t i = lo + 1; i < hi; i++) {
        for (unsigned a = 0; a < 2; a++) {
            low[a] = min2(t->p[i].c[a], low[a]);
            high[a] = max2(t->p[i].c[a], high[a]);
        }
    }
    for (unsigned a = 0; a < 2; a++)
        spread[a] = high[a] - low[a];
    const size_t mid = lo + (hi - lo) / 2;
    /* the axis of the larger spread, unless a sample puts its median at an edge */
    unsigned axis = spread[1] > spread[0];
    const double guess = t->p[spread_median(t, axis, lo, hi)].c[axis];
    const bool flipped = at_edge(guess, low[axis], high[axis], spread[!axis]);
    axis ^= flipped;
    kd_select(t, axis, lo, hi, mid);
    /* the sample can mislead; the exact median decides, once */
    if (!flipped && at_edge(t->p[mid].c[axis], low[axis], high[axis], spread[!axis])) {
        axis ^= 1;
        kd_select(t, axis, lo, hi, mid);
    }
    t->on_y[mid] = axis;
    kd_build(t, lo, mid);
    kd_build(t, mid + 1, hi);
}

/* A query: the point at position self and its KSG_K smallest distances so far. */
struct knn {
    double x, y;
    size_t self;
    double best[KSG_K]; /* ascending */
};

/* Distances are max(|Δx|, |Δy|) in double, as the reference computes them. The
 * points at positions [lo, hi) enter the best three through a sorting network:
 * branch-free, since which slot changes is a coin flip the branch predictor
 * would lose. */
static void kd_scan(const struct kd *t, size_t lo, size_t hi, struct knn *q)
{
    double b0 = q->best[0], b1 = q->best[1], b2 = q->best[2];

    for (size_t j = lo; j < hi; j++) {
        double dist = max2(fabs(t->p[j].c[0] - q->x), fabs(t->p[j].c[1] - q->y));
        dist = j == q->self ? (double)INFINITY : dist;
        const double up0 = max2(b0, dist);
        b0 = min2(b0, dist);
        const double up1 = max2(b1, up0);
        b1 = min2(b1, up0);
        b2 = min2(b2, up1);
    }
    q->best[0] = b0;
    q->best[1] = b1;
    q->best[2] = b2;
}

#ifdef __SSE2__
/* Two queries' best three, one query per lane of an SSE2 vector. */
struct knn2 {
    __m128d x, y, self, b0, b1, b2;
};

static struct knn2 knn2_of(const struct knn *q0, const struct knn *q1)
{
    return (struct knn2){_mm_set_pd(q1->x, q0->x),
                         _mm_set_pd(q1->y, q0->y),
                         _mm_set_pd((double)q1->self, (double)q0->self),
                         _mm_set_pd(q1->best[0], q0->best[0]),
                         _mm_set_pd(q1->best[1], q0->best[1]),
                         _mm_set_pd(q1->best[2], q0->best[2])};
}

static void knn2_store(const struct knn2 *v, struct knn *q0, struct knn *q1)
{
    _mm_storel_pd(&q0->best[0], v->b0);
    _mm_storeh_pd(&q1->best[0], v->b0);
    _mm_storel_pd(&q0->best[1], v->b1);
    _mm_storeh_pd(&q1->best[1], v->b1);
    _mm_storel_pd(&q0->best[2], v->b2);
    _mm_storeh_pd(&q1->best[2], v->b2);
}

/* kd_scan's step for two queries, with the same operations in the same order
 * (minpd and maxpd are min2 and max2; j == self is compared exactly in double, as
 * j < 2^53). */
static inline __attribute__((always_inline)) void knn2_step(struct knn2 *v, __m128d px,
                                                            __m128d py, __m128d at)
{
    const __m128d inf = _mm_set1_pd((double)INFINITY);
    const __m128d magnitude = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    const __m128d dx = _mm_and_pd(_mm_sub_pd(px, v->x), magnitude);
    const __m128d dy = _mm_and_pd(_mm_sub_pd(py, v->y), magnitude);
    const __m128d dist =
        _mm_max_pd(_mm_max_pd(dx, dy), _mm_and_pd(_mm_cmpeq_pd(at, v->self), inf));
    const __m128d up0 = _mm_max_pd(v->b0, dist);
    v->b0 = _mm_min_pd(v->b0, dist);
    const __m128d up1 = _mm_max_pd(v->b1, up0);
    v->b1 = _mm_min_pd(v->b1, up0);
    v->b2 = _mm_min_pd(v->b2, up1);
}

/* kd_scan for the four queries q[0..3] at once, two per vector: the points of a
 * leaf all scan the leaf first, about half the points a query scans. Two vectors, so
 * that their chains of min and max overlap. */
static void kd_scan4(const struct kd *t, size_t lo, size_t hi, struct knn *q)
{
    struct knn2 a = knn2_of(&q[0], &q[1]), b = knn2_of(&q[2], &q[3]);
    __m128d at = _mm_set1_pd((double)lo);

    for (size_t j = lo; j < hi; j++) {
        const __m128d pj = _mm_loadu_pd(t->p[j].c);
        const __m128d px = _mm_unpacklo_pd(pj, pj), py = _mm_unpackhi_pd(pj, pj);
        knn2_step(&a, px, py, at);
        knn2_step(&b, px, py, at);
        at = _mm_add_pd(at, _mm_set1_pd(1.0));
    }
    knn2_store(&a, &q[0], &q[1]);
    knn2_store(&b, &q[2], &q[3]);
}
#endif

/* Visits [lo, hi), whose points are at least off_x along x and off_y along y from
 * the query. A node is skipped when this lower bound is >= the k-th best: the
 * rounding of a difference is monotone, so no point in it could be strictly
 * closer. */
static void kd_search(const struct kd *t, size_t lo, size_t hi, double off_x,
                      double off_y, struct knn *q)
{
    if (hi - lo <= LEAF) {
        kd_scan(t, lo, hi, q);
        return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    const bool on_y = t->on_y[mid] != 0;
    const double split = t->p[mid].c[on_y];
    const double c = on_y ? q->y : q->x;
    double far_x = off_x, far_y = off_y;

    kd_scan(t, mid, mid + 1, q);
    if (c < split) {
        kd_search(t, lo, mid, off_x, off_y, q);
        if (on_y) {
            far_y = max2(off_y, split - c);
        } else {
            far_x = max2(off_x, split - c);
        }
        if (max2(far_x, far_y) < q->best[KSG_K - 1])
            kd_search(t, mid + 1, hi, far_x, far_y, q);
    } else {
        kd_search(t, mid + 1, hi, off_x, off_y, q);
        if (on_y) {
            far_y = max2(off_y, c - split);
        } else {
            far_x = max2(off_x, c - split);
        }
        if (max2(far_x, far_y) < q->best[KSG_K - 1])
            kd_search(t, lo, mid, far_x, far_y, q);
    }
}

/* An ancestor of the node a query starts from, and the side the node is on. */
struct level {
    size_t lo, mid, hi;
    double split; /* the median's coordinate on the split axis */
    bool on_y, in_left;
};

/* A node's cell: the box that its ancestors' split lines bound, [lo[a], hi[a]]
 * along axis a (infinite at the root). */
struct cell {
    double lo[2], hi[2];
};

static struct cell child_cell(struct cell c, const struct level *a)
{
    if (a->in_left) {
        c.hi[a->on_y] = a->split;
    } else {
        c.lo[a->on_y] = a->split;
    }
    return c;
}

/* The query of the point at position p, nothing found yet. */
static struct knn knn_at(const struct kd *t, size_t p)
{
    return (struct knn){t->p[p].c[0],
                        t->p[p].c[1],
                        p,
                        {(double)INFINITY, (double)INFINITY, (double)INFINITY}};
}

/* eps of the query q of a point in a node below the ancestors path[0..depth),
 * once that node is searched (kd_query): bottom-up each ancestor's median and other
 * child, whose points are at least gap = |split − q| from the query along the
 * split axis (the query is inside the ancestor's cell). Every ancestor's split
 * line lies on or beyond a side of the node's cell, box, so when the query is at
 * least its k-th best from each side (differences round monotonically) no gap is
 * smaller and the ancestors are skipped at once: far from the split lines, as most
 * points are, they cost four comparisons. */
static void kd_query_rest(const struct kd *t, const struct level *path, size_t depth,
                          const struct cell *box, struct knn *q, double *eps)
{
    const double r = q->best[KSG_K - 1];
    if (q->x - box->lo[0] >= r && box->hi[0] - q->x >= r && q->y - box->lo[1] >= r &&
        box->hi[1] - q->y >= r) {
        eps[q->self] = r;
        return;
    }
    for (size_t l = depth; l-- > 0;) {
        const struct level *a = &path[l];
        const double c = a->on_y ? q->y : q->x;
        const double gap = a->in_left ? a->split - c : c - a->split;

        if (!(gap < q->best[KSG_K - 1]))
            continue;
        kd_scan(t, a->mid, a->mid + 1, q);
        if (a->in_left) {
            kd_search(t, a->mid + 1, a->hi, a->on_y ? 0.0 : gap, a->on_y ? gap : 0.0, q);
        } else {
            kd_search(t, a->lo, a->mid, a->on_y ? 0.0 : gap, a->on_y ? gap : 0.0, q);
        }
    }
    eps[q->self] = q->best[KSG_K - 1];
}

/* eps[p] of the point at position p in the node [lo, hi): that node, then the rest
 * (kd_query_rest). */
static void kd_query(const struct kd *t, const struct level *path, size_t depth,
                     const struct cell *box, size_t lo, size_t hi, size_t p, double *eps)
{
    struct knn q = knn_at(t, p);

    kd_search(t, lo, hi, 0.0, 0.0, &q);
    kd_query_rest(t, path, depth, box, &q, eps);
}

static struct level level_of(const struct kd *t, size_t lo, size_t mid, size_t hi,
                             bool in_left)
{
    const bool on_y = t->on_y[mid] != 0;

    return (struct level){lo, mid, hi, t->p[mid].c[on_y], on_y, in_left};
}

/* Queries every point of [lo, hi), whose cell is box, in tree order, so that
 * consecutive queries share their path (path[0..depth) are the ancestors of
 * [lo, hi)). */
static void kd_walk(const struct kd *t, struct level *path, size_t depth,
                    const struct cell *box, size_t lo, size_t hi, double *eps)
{
    if (hi - lo <= LEAF) {
        size_t p = lo;
#ifdef __SSE2__
        for (; p + 3 < hi; p += 4) {
            struct knn q[4] = {knn_at(t, p), knn_at(t, p + 1), knn_at(t, p + 2),
                               knn_at(t, p + 3)};
            kd_scan4(t, lo, hi, q);
            for (size_t i = 0; i < 4; i++)
                kd_query_rest(t, path, depth, box, &q[i], eps);
        }
#endif
        for (; p < hi; p++)
            kd_query(t, path, depth, box, lo, hi, p, eps);
        return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    kd_query(t, path, depth, box, lo, hi, mid, eps);
    path[depth] = level_of(t, lo, mid, hi, true);
    struct cell child = child_cell(*box, &path[depth]);
    kd_walk(t, path, depth + 1, &child, lo, mid, eps);
    path[depth].in_left = false;
    child = child_cell(*box, &path[depth]);
    kd_walk(t, path, depth + 1, &child, mid + 1, hi, eps);
}

/* Query chunks: the subtrees at this depth (and the medians above them), which two
 * threads share (stats_mi_finish). */
#define CHUNK_LEVELS 5
#define N_CHUNKS     ((size_t)1 << CHUNK_LEVELS)

/* eps of the points of chunk c of the tree over [0, d): those of the subtree at
 * depth CHUNK_LEVELS on c's path, and the median of each node above it of which c
 * is the leftmost chunk (or the whole node, when it is a leaf), so that the
 * chunks together query every point once. */
static void kd_walk_chunk(const struct kd *t, size_t d, size_t c, double *eps)
{
    /* a balanced tree over d < 2^64 points is less than 64 levels deep */
    struct level path[64];
    struct cell box = {{-(double)INFINITY, -(double)INFINITY},
                       {(double)INFINITY, (double)INFINITY}};
    size_t lo = 0, hi = d;

    for (unsigned l = 0; l < CHUNK_LEVELS; l++) {
        const unsigned below = CHUNK_LEVELS - l; /* levels of chunks under the node */
        const bool leftmost = (c & (((size_t)1 << below) - 1)) == 0;
        if (hi - lo <= LEAF) {
            if (leftmost)
                kd_walk(t, path, l, &box, lo, hi, eps);
            return;
        }
        const size_t mid = lo + (hi - lo) / 2;
        const bool right = ((c >> (below - 1)) & 1) != 0;
        if (leftmost)
            kd_query(t, path, l, &box, lo, hi, mid, eps);
        path[l] = level_of(t, lo, mid, hi, !right);
        box = child_cell(box, &path[l]);
        if (right) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    kd_walk(t, path, CHUNK_LEVELS, &box, lo, hi, eps);
}

/* ---- the marginal counts ------------------------------------------------------- */

static double psi_of(size_t n)
{
    return n <= INT_MAX ? gsl_sf_psi_int((int)n) : gsl_sf_psi((double)n);
}

/* Queries whose bisections run side by side (psi_sum_tree), two per vector: a
 * comparison, a mask and an index update are then one instruction for two queries,
 * and the 2·LANES chains of dependent loads overlap. */
#define LANES 16

/* The marginal v ascending into s, from the sort order of the values before scaling
 * and jitter (the caller's): the scaling is monotone, so only near-ties that the
 * jitter reordered are out of place, and an insertion sort puts them back in
 * O(d + moves). Ties in the values themselves (T^D is a multiple of Δ) come out of
 * the jitter in random order: past d moves, the values are sorted anew, with
 * key_tmp (d elements) as scratch. */
static void sort_marginal(struct stats_ws *ws, const double *v, const size_t *order,
                          size_t d, double *s, uint64_t *key_tmp)
{
    size_t moves = 0;

    for (size_t i = 0; i < d; i++)
        s[i] = v[order[i]];
    for (size_t i = 1; i < d; i++) {
        const double t = s[i];
        size_t j = i;
        for (; j > 0 && s[j - 1] > t; j--)
            s[j] = s[j - 1];
        s[j] = t;
        moves += i - j;
        if (moves > d) {
            stats_sort_values(ws, v, d, (uint64_t *)(void *)s, key_tmp, s);
            return;
        }
    }
}

/* Σ_q ψ(n(q) + 1) with n(q) = #{j ≠ q : |v_j − v_q| < eps_q} along the axis, for
 * the points in tree order and their eps; s is the marginal ascending, hist (d
 * counters) scratch. Strict as docs/method.md §5. scikit-learn counts |v_j − v_i| <=
 * nextafter(eps_i, 0), the same for eps_i > 0; eps_i = 0 (k + 1 identical points,
 * only without jitter) counts nobody here and the duplicates there.
 *
 * The differences are computed as the reference computes |v_j − v_i|; their rounding
 * is monotone in v_j, so "v_q − s_j < e" is false then true as j rises (true from
 * q's own place on, as e > 0) and "s_j − v_q >= e" false then true (false up to
 * it); n(q) is the distance between the two switches, less one for q itself. Both
 * are bisected over the whole of s, for LANES queries at a time in lockstep: a
 * bisection is a chain of dependent loads, and side by side the 2·LANES chains
 * overlap. Branch-free: the branches would be coin flips. (Windows near the last
 * batch's switches saved steps but not time: the queries come in tree order, not
 * along the axis.) ψ is taken once per distinct count, through a histogram. */
static double psi_sum_tree(const double *s, const struct point *p, unsigned axis,
                           const double *eps, size_t d, size_t *hist)
{
    double sum = 0.0;

    memset(hist, 0, d * sizeof *hist);
    for (size_t q0 = 0; q0 < d; q0 += LANES) {
        const size_t n = d - q0 < LANES ? d - q0 : LANES;
        v2i lo[LANES / 2], hi[LANES / 2];
        v2d vq[LANES / 2], e[LANES / 2];

        /* a last, shorter batch repeats its first query in the spare lanes */
        for (size_t g = 0; g < LANES / 2; g++) {
            const size_t q = q0 + (2 * g < n ? 2 * g : 0);
            const size_t r = q0 + (2 * g + 1 < n ? 2 * g + 1 : 0);
            lo[g] = hi[g] = (v2i){0, 0};
            vq[g] = (v2d){p[q].c[axis], p[r].c[axis]};
            e[g] = (v2d){eps[q], eps[r]};
        }
        /* both searches over [0, d] (hi may end at d; lo ends below it) */
        for (size_t len = d + 1; len > 1;) {
            const size_t half = len / 2;
            const double *sh = s + half - 1;
            const v2i step = {(long long)half, (long long)half};
            for (size_t g = 0; g < LANES / 2; g++) {
                const v2d below = {sh[lo[g][0]], sh[lo[g][1]]};
                const v2d above = {sh[hi[g][0]], sh[hi[g][1]]};
                lo[g] += step & ~((vq[g] - below) < e[g]);
                hi[g] += step & ~((above - vq[g]) >= e[g]);
            }
            len -= half;
        }
        for (size_t k = 0; k < n; k++) {
            const size_t g = k / 2, l = k % 2;
            hist[e[g][l] > 0.0 ? (size_t)(hi[g][l] - lo[g][l]) - 1 : 0]++;
        }
    }
    for (size_t c = 0; c < d; c++) {
        if (hist[c] != 0)
            sum += (double)hist[c] * psi_of(c + 1);
    }
    return sum;
}

/* ---- KSG ------------------------------------------------------------------------- */

/* The points, jittered, into a k-d tree in k->own's scratch. Memory is the limit at
 * d = 10^6: the points take dtmp[0..1] (one stretch of ws->dblock), the jittered
 * values in job order dtmp[2] (x) and dtmp[3] (y), the tree's split axes itmp[0],
 * and then eps in tree order dtmp[4]. */
static void ksg_prepare(struct stats_ksg *k)
{
    struct stats_ws *ws = k->own;
    struct point *p = (struct point *)(void *)ws->dtmp[0];
    double *vx = ws->dtmp[2], *vy = ws->dtmp[3];
    const struct kd tree = {p, ws->itmp[0]};

    const double sum_x = scale(k->x, k->d, true, vx);
    const double sum_y = scale(k->y, k->d, false, vy);
    if (k->jitter) {
        /* taus2 keeps 32 bits of its seed: fold the high half in. */
        gsl_rng_set(ws->rng, (unsigned long)(k->seed ^ (k->seed >> 32)));
        add_jitter(vx, sum_x, k->d, ws->rng, p, 0);
        add_jitter(vy, sum_y, k->d, ws->rng, p, 1);
    } else {
        for (size_t i = 0; i < k->d; i++)
            p[i] = (struct point){{vx[i], vy[i]}};
    }
    kd_build(&tree, 0, k->d);
}

static void ksg_chunk(const struct stats_ksg *k, size_t c)
{
    const struct kd tree = {(struct point *)(void *)k->own->dtmp[0], k->own->itmp[0]};

    kd_walk_chunk(&tree, k->d, c, k->own->dtmp[4]);
}

/* Σ_i ψ(n_axis(i) + 1) into k->psi[axis]. The marginal is sorted through the
 * caller's sort order (k->order[axis]) into scratch's dtmp[5], with its idx_tmp
 * and hist, and counted with its itmp[0] (in k->own the tree's split axes, done
 * with): not dtmp[0..4] of k->own, which both threads read meanwhile, and nothing
 * that the 10^6 jobs' memory does not already hold. */
static void ksg_marginal(struct stats_ksg *k, unsigned axis, struct stats_ws *scratch)
{
    const struct stats_ws *own = k->own;
    double *s = scratch->dtmp[5];

    sort_marginal(scratch, own->dtmp[2 + axis], k->order[axis], k->d, s,
                  (uint64_t *)scratch->idx_tmp);
    k->psi[axis] = psi_sum_tree(s, (const struct point *)(const void *)own->dtmp[0], axis,
                                own->dtmp[4], k->d, scratch->itmp[0]);
}

/* A thread's share once the tree stands: query chunks while there are any, then,
 * once every chunk is done and the caller has given its sort orders, a marginal
 * while there is one, with scratch. */
static void ksg_share(struct stats_ksg *k, struct stats_ws *scratch)
{
    size_t c;
    unsigned axis;

    pthread_mutex_lock(&k->lock);
    while (!k->ready)
        pthread_cond_wait(&k->cond, &k->lock);
    while ((c = k->next_chunk) < N_CHUNKS) {
        k->next_chunk++;
        pthread_mutex_unlock(&k->lock);
        ksg_chunk(k, c);
        pthread_mutex_lock(&k->lock);
        if (++k->chunks_done == N_CHUNKS)
            pthread_cond_broadcast(&k->cond);
    }
    while (k->chunks_done < N_CHUNKS || k->order[1] == NULL)
        pthread_cond_wait(&k->cond, &k->lock);
    while ((axis = k->next_axis) < 2) {
        k->next_axis++;
        pthread_mutex_unlock(&k->lock);
        ksg_marginal(k, axis, scratch);
        pthread_mutex_lock(&k->lock);
    }
    pthread_mutex_unlock(&k->lock);
}

static void *ksg_thread(void *arg)
{
    struct stats_ksg *k = arg;

    ksg_prepare(k);
    pthread_mutex_lock(&k->lock);
    k->ready = true;
    pthread_cond_broadcast(&k->cond);
    pthread_mutex_unlock(&k->lock);
    ksg_share(k, k->own);
    return NULL;
}

void stats_mi_start(struct stats_ksg *k, const double *x, const double *y, size_t d,
                    struct stats_ws *ws, uint64_t seed, bool jitter, bool thread)
{
    *k = (struct stats_ksg){.x = x,
                            .y = y,
                            .d = d,
                            .seed = seed,
                            .jitter = jitter,
                            .own = ws,
                            .helper = NULL};
    if (!thread || ws->partner == NULL || d < KSG_K + 1)
        return;
    k->own = ws->partner;
    k->helper = ws;
    bool ok = pthread_mutex_init(&k->lock, NULL) == 0;
    if (ok && pthread_cond_init(&k->cond, NULL) != 0) {
        pthread_mutex_destroy(&k->lock);
        ok = false;
    }
    if (ok && pthread_create(&k->thread, NULL, ksg_thread, k) == 0)
        return;
    if (ok) {
        pthread_cond_destroy(&k->cond);
        pthread_mutex_destroy(&k->lock);
    }
    /* no thread: all of it on the caller's, in its own scratch */
    k->own = ws;
    k->helper = NULL;
}

void stats_mi_share_orders(struct stats_ksg *k, const size_t *order_x,
                           const size_t *order_y)
{
    if (k->helper != NULL)
        pthread_mutex_lock(&k->lock);
    k->order[0] = order_x;
    k->order[1] = order_y;
    if (k->helper != NULL) {
        pthread_cond_broadcast(&k->cond);
        pthread_mutex_unlock(&k->lock);
    }
}

double stats_mi_finish(struct stats_ksg *k)
{
    double mi;

    if (k->d < KSG_K + 1)
        return (double)NAN;
    if (k->helper != NULL) {
        ksg_share(k, k->helper);
        pthread_join(k->thread, NULL);
        pthread_cond_destroy(&k->cond);
        pthread_mutex_destroy(&k->lock);
    } else {
        ksg_prepare(k);
        for (size_t c = 0; c < N_CHUNKS; c++)
            ksg_chunk(k, c);
        ksg_marginal(k, 0, k->own);
        ksg_marginal(k, 1, k->own);
    }
    /* Kraskov et al. 2004, eq. 8: ψ(d) + ψ(k) − <ψ(n_x + 1)> − <ψ(n_y + 1)> */
    mi = psi_of(k->d) + psi_of(KSG_K) - (k->psi[0] + k->psi[1]) / (double)k->d;
    return mi > 0.0 ? mi : 0.0;
}
