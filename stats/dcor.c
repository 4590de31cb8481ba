/* dcor.c: Székely's distance correlation of two univariate series in O(d log d)
 * (Huo & Székely 2016; Chaudhuri & Hu 2019), docs/method.md §5 `dcor_v`, `dcor2_u`.
 *
 * Every dCov form needs three sums over the distance matrices a_ij = |x_i − x_j|,
 * b_ij = |y_i − y_j|: Σ_ij a_ij·b_ij, Σ_i a_i.·b_i. and a..·b.. (a_i. the row sums).
 * Row sums come from prefix sums along each sort order. For the cross term, take
 * the pairs j before i in x order, so that x_i − x_j >= 0: |Δx|·|Δy| is Δx·Δy where
 * y_j <= y_i and −Δx·Δy elsewhere. A merge sort by y of the points in x order meets
 * every such pair once, when the run holding j merges with the run holding i, and
 * has then passed exactly the j of the left run with y_j <= y_i: the count and the
 * sums of x, y, x·y over them give Σ_j Δx·Δy in O(1) (Chaudhuri & Hu's merge step).
 * Ties need no care: an equal x or y makes Δx·Δy zero whichever side the pair is
 * counted on.
 *
 * Accuracy. x and y are centred and scaled first (dCor does not change): sums of raw
 * bytes near 1e15 would cancel every digit. The statistics are differences of terms
 * of order 1 that are of order 1/d under independence, and dCor_V is the square root
 * of one (an error e in dCor² is e / (2·dCor_V) in dCor_V), so every long sum
 * carries its rounding error (TwoSum), but for the merge's sums over at most CHUNK
 * points. Compensated, because plain sums lose digits under heavy ties: the same
 * values, added a million times, round the same way each time, and the errors add up
 * instead of cancelling. The merge's short sums stay plain: compensating them too
 * would be slower, and what they leave (about 1e-12, internal.h) is far inside
 * docs/method.md's 1e-9. test_dcor checks the result against the exact value on T^D-like
 * ties near independence and on x one value but for two far outliers (whose variance
 * is then a 1/d-sized difference). */
#include "internal.h"

#include <math.h>

/* A running sum and the rounding error of its additions (Knuth's TwoSum, exact in
 * round-to-nearest): s + c is the sum to about twice double precision. */
struct ksum {
    double s; /* the plain running sum */
    double c; /* Σ of the rounding errors of s */
};

static void ksum_add(struct ksum *k, double v)
{
    double t = k->s + v;
    double z = t - k->s;

    k->c += (k->s - (t - z)) + (v - z);
    k->s = t;
}

static double ksum_value(const struct ksum *k)
{
    return k->s + k->c;
}

/* v ↦ (v − centre) / scale. Values are mapped where they are used, always by this
 * one expression, so that equal v stay equal (and the scratch holds no copy). */
struct affine {
    double centre; /* the mean */
    double scale;  /* the largest distance from it, > 0: |image| <= 1 */
};

static double map(const struct affine *t, double v)
{
    return (v - t->centre) / t->scale;
}

/* The centre (the mean, as the caller has it) and the scale; order sorts v, which
 * is not constant. */
static struct affine centring(const double *v, const size_t *order, size_t d, double mean)
{
    return (struct affine){mean, fmax(mean - v[order[0]], v[order[d - 1]] - mean)};
}

/* The sums of one series that every form of dCov needs. */
struct margin {
    double all;     /* a.. = Σ_i a_i. */
    double rows_sq; /* Σ_i a_i.² */
    double sq;      /* Σ_ij a_ij² = 2d·Σu² − 2(Σu)² */
};

/* Row sums a_i. = Σ_j |u_i − u_j| of u = map(v) into row[i], along the sort order:
 * the point at sorted position p has a_i. = u_i·(2p − d) + T − 2·S_p, S_p the sum of
 * the p values before it and T the total. */
static struct margin row_sums(const double *v, const size_t *order, size_t d,
                              const struct affine *t, double *row)
{
    struct ksum su = {0.0, 0.0}, suu = {0.0, 0.0}, before = {0.0, 0.0};
    struct ksum all = {0.0, 0.0}, rows_sq = {0.0, 0.0};

    for (size_t i = 0; i < d; i++) {
        double u = map(t, v[i]);
        ksum_add(&su, u);
        ksum_add(&suu, u * u);
    }
    const double total = ksum_value(&su);
    for (size_t p = 0; p < d; p++) {
        size_t i = order[p];
        double u = map(t, v[i]);
        row[i] =
            u * (2.0 * (double)p - (double)d) - 2.0 * before.s + (total - 2.0 * before.c);
        ksum_add(&all, row[i]);
        ksum_add(&rows_sq, row[i] * row[i]);
        ksum_add(&before, u);
    }
    struct margin m = {ksum_value(&all), ksum_value(&rows_sq),
                       2.0 * (double)d * ksum_value(&suu) - 2.0 * total * total};
    return m;
}

/* A point of the merge sort: its mapped x and y. */
struct point {
    double u, v;
};

/* The sums over the points of a left run that the merge has passed. */
struct passed {
    double n;             /* how many (exact: an integer below 2^53) */
    struct ksum u, v, uv; /* Σu, Σv, Σuv over them */
};

/* A merge of two runs, src[i..mid) and src[j..hi) into dst[k..), under way: the
 * compensated sums of what it has passed, and a chunk's plain ones. */
struct merge {
    size_t i, mid, j, hi, k;
    struct passed below;
    size_t i_end, j_end;           /* the chunk's bounds */
    double bu, bv, buv;            /* below's sums, when the chunk is based */
    double cnt, su, sv, suv, part; /* cnt: of the whole merge; the rest of the chunk */
};

/* The merge's parts are inlined with `based` a constant, so that the merges of short
 * runs do not pay for the sums of earlier chunks: GCC's -O2 otherwise keeps one copy
 * for both. */
#define INLINE static inline __attribute__((always_inline))

/* Starts a chunk of at most `steps` more points of either run. `based`: below holds
 * earlier chunks' sums, which every term then needs. */
INLINE void chunk_begin(struct merge *m, size_t steps, bool based)
{
    m->bu = based ? ksum_value(&m->below.u) : 0.0;
    m->bv = based ? ksum_value(&m->below.v) : 0.0;
    m->buv = based ? ksum_value(&m->below.uv) : 0.0;
    m->i_end = m->mid - m->i > steps ? m->i + steps : m->mid;
    m->j_end = m->hi - m->j > steps ? m->j + steps : m->hi;
    m->cnt = m->below.n;
    m->su = m->sv = m->suv = m->part = 0.0;
}

INLINE bool chunk_open(const struct merge *m)
{
    return m->i < m->i_end && m->j < m->j_end;
}

/* Σ_j (u − u_j)(v − v_j) over the passed j of the left run. */
INLINE double paired(const struct merge *m, const struct point *r, bool based)
{
    return m->cnt * r->u * r->v - r->u * (based ? m->bv + m->sv : m->sv) -
           r->v * (based ? m->bu + m->su : m->su) + (based ? m->buv + m->suv : m->suv);
}

/* One step: the left run's point when its v is <= the right one's, else the right
 * one's, whose pairs with the passed points join part. Which it is is a coin flip
 * on unrelated data, so a branch on it would be wrong half the time and cost more
 * than the step: both updates are made, one of them with take = 0, which adds exact
 * zeros; plain sums keep that cheap. */
INLINE void merge_step(const struct point *src, struct point *dst, struct merge *m,
                       bool based)
{
    const struct point l = src[m->i], r = src[m->j];
    const size_t left = l.v <= r.v;
    const double take = (double)left, u = l.u * take, v = l.v * take;

    m->part += paired(m, &r, based) * (1.0 - take);
    m->cnt += take;
    m->su += u;
    m->sv += v;
    m->suv += u * v;
    /* by a mask: the compiler makes a branch of a select of two points */
    dst[m->k++] = src[m->j + ((m->i - m->j) & (0 - left))];
    m->i += left;
    m->j += 1 - left;
}

/* Ends the chunk: the rest of the right run up to its bound when the left run is
 * used up, and the plain sums folded into the compensated ones. */
INLINE void chunk_end(const struct point *src, struct point *dst, struct merge *m,
                      struct ksum *conc, bool based)
{
    if (m->i == m->mid) {
        for (; m->j < m->j_end; m->j++) {
            const struct point r = src[m->j];
            m->part += paired(m, &r, based);
            dst[m->k++] = r;
        }
    }
    m->below.n = m->cnt;
    ksum_add(&m->below.u, m->su);
    ksum_add(&m->below.v, m->sv);
    ksum_add(&m->below.uv, m->suv);
    ksum_add(conc, m->part);
}

/* Points of either run that a merge takes between two foldings of its plain sums
 * into the compensated ones. A plain sum of CHUNK terms of size <= 1 is off by up to
 * about CHUNK²·ε / 2 when every rounding goes the same way (ties), and the error of
 * dCor_V grows with that. Larger chunks fold less often but lose digits on heavily
 * tied data; smaller ones gain no accuracy. 128 keeps dCor_V about 1e-12 off the
 * exact value on T^D-like ties at d = 10^6 (internal.h). */
#define CHUNK 128

/* Chunks of the merges a and b, side by side while both have one open: a step is a
 * chain of dependent loads and a comparison, and two chains overlap. */
INLINE void merge_chunks(const struct point *src, struct point *dst, struct merge *a,
                         struct merge *b, struct ksum *conc, bool based)
{
    chunk_begin(a, CHUNK, based);
    chunk_begin(b, CHUNK, based);
    while (chunk_open(a) && chunk_open(b)) {
        merge_step(src, dst, a, based);
        merge_step(src, dst, b, based);
    }
    while (chunk_open(a))
        merge_step(src, dst, a, based);
    while (chunk_open(b))
        merge_step(src, dst, b, based);
    chunk_end(src, dst, a, conc, based);
    chunk_end(src, dst, b, conc, based);
}

static struct merge merge_at(size_t lo, size_t n, size_t w)
{
    const size_t mid = n - lo > w ? lo + w : n;
    const size_t hi = n - mid > w ? mid + w : n;
    return (struct merge){.i = lo, .mid = mid, .j = mid, .hi = hi, .k = lo};
}

/* One level of a bottom-up merge sort by v: the runs of w points of src[0..n) merged
 * in pairs into dst (stable), Σ_j (u_i − u_j)(v_i − v_j) over the j of the left run
 * with v_j <= v_i added to conc for each i of the right run. Two merges at a time
 * (merge_chunks); a merge of runs of at most CHUNK points is one chunk, which needs
 * no earlier sums. */
static void merge_level(const struct point *src, struct point *dst, size_t n, size_t w,
                        struct ksum *conc)
{
    for (size_t lo = 0; lo < n; lo += 4 * w) {
        struct merge a = merge_at(lo, n, w);
        struct merge b = merge_at(a.hi, n, w); /* empty at the end */

        if (w <= CHUNK)
            merge_chunks(src, dst, &a, &b, conc, false);
        while (a.j < a.hi || b.j < b.hi)
            merge_chunks(src, dst, &a, &b, conc, true);
        while (a.i < a.mid)
            dst[a.k++] = src[a.i++];
        while (b.i < b.mid)
            dst[b.k++] = src[b.i++];
    }
}

/* The first levels of the merge sort at once, in place: each aligned group of GROUP
 * points (the last one maybe shorter) sorted by v, and its pairs' Δu·Δv where the
 * earlier point's v is <= the later one's added to conc (plainly over CHUNK points,
 * then folded). The merges of runs of a few points would spend more on starting and
 * ending than on merging. An order among equal v needs no care: their Δv is zero. */
#define GROUP 8 /* the fastest of 4, 8 and 16 points */
_Static_assert(CHUNK % GROUP == 0 && (GROUP & (GROUP - 1)) == 0,
               "a chunk holds whole groups, and groups are merge runs");

static void sort_groups(struct point *p, size_t n, struct ksum *conc)
{
    double part = 0.0;

    for (size_t g = 0; g < n; g += GROUP) {
        const size_t m = n - g < GROUP ? n - g : GROUP;
        struct point q[GROUP];
        size_t rank[GROUP] = {0};

        for (size_t i = 0; i < m; i++)
            q[i] = p[g + i];
        for (size_t i = 0; i < m; i++) {
            for (size_t j = i + 1; j < m; j++) {
                const size_t up = q[i].v <= q[j].v; /* i stays before j */
                part += (q[j].u - q[i].u) * (q[j].v - q[i].v) * (double)up;
                rank[j] += up;
                rank[i] += 1 - up;
            }
        }
        for (size_t i = 0; i < m; i++)
            p[g + rank[i]] = q[i];
        if ((g + GROUP) % CHUNK == 0) {
            ksum_add(conc, part);
            part = 0.0;
        }
    }
    ksum_add(conc, part);
}

/* Points merged within a block, while it sits in cache, before the levels that span
 * blocks: a power of two. */
#define BLOCK 4096

/* Σ_ij |u_i − u_j|·|v_i − v_j| over ordered pairs, u = map(x), v = map(y): twice
 * 2·C − T over the pairs j before i in x order, C = Σ Δu·Δv over those with
 * v_j <= v_i (the merge sort's) and T = Σ Δu·Δv over all = d·Σuv − Σu·Σv.
 * The merge sort runs in the scratch block, 4d doubles. */
static double cross_sum(const double *x, const double *y, size_t d, struct stats_ws *ws,
                        const struct affine *tx, const struct affine *ty)
{
    struct point *a = (struct point *)(void *)ws->dblock, *b = a + d;
    struct ksum conc = {0.0, 0.0}, su = {0.0, 0.0}, sv = {0.0, 0.0}, suv = {0.0, 0.0};

    for (size_t p = 0; p < d; p++) {
        size_t i = ws->order[p];
        a[p].u = map(tx, x[i]);
        a[p].v = map(ty, y[i]);
        ksum_add(&su, a[p].u);
        ksum_add(&sv, a[p].v);
        ksum_add(&suv, a[p].u * a[p].v);
    }
    /* Every block takes the same number of levels, so all end in the same buffer. */
    for (size_t lo = 0; lo < d; lo += BLOCK) {
        size_t n = d - lo < BLOCK ? d - lo : BLOCK;
        struct point *src = a + lo, *dst = b + lo;
        sort_groups(src, n, &conc);
        for (size_t w = GROUP; w < BLOCK; w *= 2) {
            merge_level(src, dst, n, w, &conc);
            struct point *t = src;
            src = dst;
            dst = t;
        }
    }
    for (size_t w = GROUP; w < BLOCK; w *= 2) {
        struct point *t = a;
        a = b;
        b = t;
    }
    for (size_t w = BLOCK; w < d; w *= 2) {
        merge_level(a, b, d, w, &conc);
        struct point *t = a;
        a = b;
        b = t;
    }
    const double s_u = ksum_value(&su), s_v = ksum_value(&sv);
    const double t_all = (double)d * ksum_value(&suv) - s_u * s_v;
    return 2.0 * (2.0 * ksum_value(&conc) - t_all);
}

void stats_dcor_sorted(const double *x, const double *y, size_t d, double mean_x,
                       double mean_y, struct stats_ws *ws, double *dcor_v,
                       double *dcor2_u)
{
    const size_t *ox = ws->order, *oy = ws->order_y;
    double *arow = ws->dtmp[0], *brow = ws->dtmp[1];
    const double n = (double)d;

    *dcor_v = *dcor2_u = NAN;
    if (d < 2 || x[ox[0]] == x[ox[d - 1]] || y[oy[0]] == y[oy[d - 1]])
        return;
    const struct affine tx = centring(x, ox, d, mean_x);
    const struct affine ty = centring(y, oy, d, mean_y);
    const struct margin a = row_sums(x, ox, d, &tx, arow);
    const struct margin b = row_sums(y, oy, d, &ty, brow);
    struct ksum rows_ab = {0.0, 0.0};
    for (size_t i = 0; i < d; i++)
        ksum_add(&rows_ab, arow[i] * brow[i]);
    const double abr = ksum_value(&rows_ab);
    /* the rows are done with: the merge sort takes their place */
    const double ab = cross_sum(x, y, d, ws, &tx, &ty);

    /* V-statistics (Székely, Rizzo & Bakirov 2007). */
    const double n2 = n * n, n3 = n2 * n, n4 = n3 * n;
    const double cov_v = ab / n2 - 2.0 * abr / n3 + a.all * b.all / n4;
    const double var_x = a.sq / n2 - 2.0 * a.rows_sq / n3 + a.all * a.all / n4;
    const double var_y = b.sq / n2 - 2.0 * b.rows_sq / n3 + b.all * b.all / n4;
    if (var_x > 0.0 && var_y > 0.0)
        *dcor_v = sqrt(fmax(0.0, cov_v / sqrt(var_x * var_y)));

    /* U-statistics (Székely & Rizzo 2014): the common factor 1/(d(d − 3)) cancels.
     * The U-centred matrix of x is exactly zero, and dCor²_U 0/0, when every x but
     * the smallest and the largest is equal (then a_ij = g_i + g_j for i ≠ j):
     * decided on the sort order, since the sums would leave rounding noise. */
    if (d >= 4 && x[ox[1]] != x[ox[d - 2]] && y[oy[1]] != y[oy[d - 2]]) {
        const double k1 = 2.0 / (n - 2.0), k2 = 1.0 / ((n - 1.0) * (n - 2.0));
        const double cov_u = ab - k1 * abr + k2 * a.all * b.all;
        const double uvar_x = a.sq - k1 * a.rows_sq + k2 * a.all * a.all;
        const double uvar_y = b.sq - k1 * b.rows_sq + k2 * b.all * b.all;
        if (uvar_x > 0.0 && uvar_y > 0.0)
            *dcor2_u = cov_u / sqrt(uvar_x * uvar_y);
    }
}
