/* dcor.c: Székely's distance correlation of two univariate series in O(d log d)
 * (Huo & Székely 2016; Chaudhuri & Hu 2019), METHOD.md §5 `dcor_v`, `dcor2_u`.
 *
 * Every dCov form needs three sums over the distance matrices a_ij = |x_i − x_j|,
 * b_ij = |y_i − y_j|: Σ_ij a_ij·b_ij, Σ_i a_i.·b_i. and a..·b.. (a_i. the row sums).
 * Row sums come from prefix sums along each sort order. The cross term splits each
 * pair by the sign of (y_i − y_j): walking x upwards, the points already passed have
 * x_j < x_i, and a Fenwick tree over the ranks of y holds their count, Σx, Σy, Σxy
 * below and above y_i, which is all (x_i − x_j)·|y_i − y_j| needs. Equal x (or y)
 * contribute zero on either side; a tie group of x is still queried before any of
 * it is inserted, so that its zero is exact.
 *
 * x and y are centred and scaled first (dCor does not change): sums of raw bytes
 * near 1e15 would cancel every digit. */
#include "internal.h"

#include <math.h>
#include <string.h>

#define FEN_W 4 /* count, Σx, Σy, Σxy per Fenwick node */

/* The mean, refined by a second pass (as assoc.c's): exact near the mean. */
static double refined_mean(const double *v, size_t d)
{
    double s = 0.0, c = 0.0;

    for (size_t i = 0; i < d; i++)
        s += v[i];
    s /= (double)d;
    for (size_t i = 0; i < d; i++)
        c += v[i] - s;
    return s + c / (double)d;
}

/* out = (v − mean) / sd, sd with d in the denominator; false when v is constant. */
static bool standardize(const double *v, size_t d, double *out)
{
    double m = refined_mean(v, d), ss = 0.0;

    for (size_t i = 0; i < d; i++) {
        out[i] = v[i] - m;
        ss += out[i] * out[i];
    }
    double sd = sqrt(ss / (double)d);
    if (!(sd > 0.0))
        return false;
    for (size_t i = 0; i < d; i++)
        out[i] /= sd;
    return true;
}

/* Row sums of |v_i − v_j| into row[] (indexed like v) along the sort order:
 * a_i. = v_i·(2p − d) + T − 2·S_p for the point at sorted position p, S_p the sum of
 * the p values before it and T the total. Equal values get equal sums. */
static void row_sums(const double *v, const size_t *order, size_t d, double *row)
{
    double total = 0.0, before = 0.0;

    for (size_t i = 0; i < d; i++)
        total += v[i];
    for (size_t p = 0; p < d; p++) {
        size_t i = order[p];
        row[i] = v[i] * (2.0 * (double)p - (double)d) + total - 2.0 * before;
        before += v[i];
    }
}

/* Sums over Fenwick nodes 0..r (0-based tree: i ← (i & (i + 1)) − 1). */
static void fen_prefix(const double *fen, long r, double out[FEN_W])
{
    memset(out, 0, FEN_W * sizeof *out);
    for (long i = r; i >= 0; i = (i & (i + 1)) - 1) {
        const double *node = fen + (size_t)i * FEN_W;
        for (int w = 0; w < FEN_W; w++)
            out[w] += node[w];
    }
}

static void fen_add(double *fen, size_t m, size_t r, const double val[FEN_W])
{
    for (size_t i = r; i < m; i |= i + 1) {
        double *node = fen + i * FEN_W;
        for (int w = 0; w < FEN_W; w++)
            node[w] += val[w];
    }
}

/* Σ over j in a set of (u_i − u_j)(v_i − v_j), from the set's count and sums. */
static double paired(double u, double v, const double s[FEN_W])
{
    return s[0] * u * v - u * s[2] - v * s[1] + s[3];
}

/* Σ_ij |u_i − u_j|·|v_i − v_j| (over ordered pairs). */
static double cross_sum(const double *u, const double *v, size_t d, struct stats_ws *ws)
{
    const size_t *ox = ws->order, *oy = ws->order_y;
    size_t *yrank = ws->itmp[0];
    /* dtmp[2..5] are one stretch of the workspace block: FEN_W·d doubles. */
    double *fen = ws->dtmp[2];
    double total[FEN_W] = {0}, below[FEN_W], above[FEN_W];
    double cross = 0.0;
    size_t m = 0;

    for (size_t q = 0; q < d; q++) {
        if (q > 0 && v[oy[q]] != v[oy[q - 1]])
            m++;
        yrank[oy[q]] = m;
    }
    m++;
    memset(fen, 0, m * FEN_W * sizeof *fen);
    for (size_t g0 = 0; g0 < d;) {
        size_t g1 = g0 + 1;
        while (g1 < d && u[ox[g1]] == u[ox[g0]])
            g1++;
        for (size_t p = g0; p < g1; p++) {
            size_t i = ox[p];
            long r = (long)yrank[i];
            /* Points with y_j = y_i add (u_i − u_j)·0 on either side: one query
             * serves both. */
            fen_prefix(fen, r, below);
            for (int w = 0; w < FEN_W; w++)
                above[w] = total[w] - below[w];
            /* x_j < x_i here: + for y_j < y_i, − for y_j > y_i */
            cross += paired(u[i], v[i], below) - paired(u[i], v[i], above);
        }
        for (size_t p = g0; p < g1; p++) {
            size_t i = ox[p];
            double val[FEN_W] = {1.0, u[i], v[i], u[i] * v[i]};
            fen_add(fen, m, yrank[i], val);
            for (int w = 0; w < FEN_W; w++)
                total[w] += val[w];
        }
        g0 = g1;
    }
    return 2.0 * cross;
}

void stats_dcor_sorted(const double *x, const double *y, size_t d, struct stats_ws *ws,
                       double *dcor_v, double *dcor2_u)
{
    double *u = ws->dtmp[0], *v = ws->dtmp[1], *arow = ws->dtmp[2];
    const double n = (double)d;

    *dcor_v = *dcor2_u = NAN;
    if (d < 2 || !standardize(x, d, u) || !standardize(y, d, v))
        return;

    /* Row sums: a_i. kept per point, b_i. consumed at once. */
    double a_all = 0.0, b_all = 0.0, ab_rows = 0.0, aa_rows = 0.0, bb_rows = 0.0;
    row_sums(u, ws->order, d, arow);
    for (size_t i = 0; i < d; i++) {
        a_all += arow[i];
        aa_rows += arow[i] * arow[i];
    }
    /* b_i. into the Fenwick's stretch for a moment: arow is read alongside. */
    double *brow = ws->dtmp[3];
    row_sums(v, ws->order_y, d, brow);
    for (size_t i = 0; i < d; i++) {
        b_all += brow[i];
        bb_rows += brow[i] * brow[i];
        ab_rows += arow[i] * brow[i];
    }
    /* Σ_ij (u_i − u_j)² = 2d·Σu² − 2(Σu)², and Σu = 0 up to rounding. */
    double su = 0.0, suu = 0.0, sv = 0.0, svv = 0.0;
    for (size_t i = 0; i < d; i++) {
        su += u[i];
        suu += u[i] * u[i];
        sv += v[i];
        svv += v[i] * v[i];
    }
    double aa = 2.0 * n * suu - 2.0 * su * su;
    double bb = 2.0 * n * svv - 2.0 * sv * sv;
    double ab = cross_sum(u, v, d, ws);

    /* V-statistics (Székely, Rizzo & Bakirov 2007). */
    double n2 = n * n, n3 = n2 * n, n4 = n3 * n;
    double cov_v = ab / n2 - 2.0 * ab_rows / n3 + a_all * b_all / n4;
    double var_x = aa / n2 - 2.0 * aa_rows / n3 + a_all * a_all / n4;
    double var_y = bb / n2 - 2.0 * bb_rows / n3 + b_all * b_all / n4;
    if (var_x > 0.0 && var_y > 0.0)
        *dcor_v = sqrt(fmax(0.0, cov_v / sqrt(var_x * var_y)));

    /* U-statistics (Székely & Rizzo 2014): the common factor 1/(d(d − 3)) cancels. */
    if (d >= 4) {
        double k1 = 2.0 / (n - 2.0), k2 = 1.0 / ((n - 1.0) * (n - 2.0));
        double cov_u = ab - k1 * ab_rows + k2 * a_all * b_all;
        double uvar_x = aa - k1 * aa_rows + k2 * a_all * a_all;
        double uvar_y = bb - k1 * bb_rows + k2 * b_all * b_all;
        if (uvar_x > 0.0 && uvar_y > 0.0)
            *dcor2_u = cov_u / sqrt(uvar_x * uvar_y);
    }
}
