/* kde.c: the KDE credible bands of docs/method.md §5 `kde`: density grid, conditional
 * quantiles of y given x, and the band-width ratios.
 *
 * The grid (a) bins the points linearly on a grid R times finer than the 128 × 128
 * output (R = 1..4, so that the step is at most 0.1 kernel sd) and convolves the
 * counts with the kernel by FFT: the fine grid splits into R² phases, each a
 * 128 × 128 grid convolved on a 256 × 256 torus with the kernel at its own offsets
 * (±127 cells: nothing wraps, no tail is cut), and the spectra add up before one
 * inverse transform. Counts go in the real part and the kernel in the imaginary
 * part of one complex array: both are real, so one forward transform gives both
 * spectra, Z(k) ± conj Z(−k). The kernel gives back the variance the binning adds.
 *
 * The conditional CDF (b) is a mixture of normals Σ a_j·Φ((y − m_j)/s_j) / Σ a_j. Up
 * to STATS_KDE_EXACT_MAX jobs the components are the jobs themselves (a_j = w_k,
 * m_j = μ_k, s_j = σ); above it the μ_k offsets are binned into 512 bins and each bin
 * becomes one normal with the weighted mean and variance of its members, added to
 * σ²: the first two moments of the bin's mixture are exact, so the error is of the
 * order of (bin width / σ)^4, far below docs/method.md's 5e-3·h_y.
 *
 * The cost of (b) is the Φ (erfc) of every component at every trial y, so the root
 * finder makes few trials: Halley's method (φ and z·φ give F' and F'' beside Φ),
 * each quantile started from the previous point's, moved along F's power series at
 * the y last evaluated there (exact path). The permutation test
 * (stats_kde_width_ratio_stat) refits y only: x, its weights and the marginal of y
 * do not change under a permutation of y, and stay in the workspace. */
#include "internal.h"
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_complex.h>
#include <gsl/gsl_sort_double.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NG        STATS_KDE_GRID
#define NFFT      256 /* >= 2·NG − 1: a linear convolution on the torus */
#define SUB_STEP  0.1 /* sub-binned grid step, at most this many kernel sds... */
#define SUB_MAX   4   /* ...with at most this many sub-bins per output cell */
#define NFINE     ((NG - 1) * SUB_MAX + 1)
#define NQ        STATS_KDE_POINTS
#define NBIN      STATS_KDE_Y_BINS
#define Z_BAND    1.645 /* docs/method.md (c): mean ± 1.645·sd, as written */
#define ROOT_TOL  1e-10 /* the root finder's last step, in units of the kernel sd */
#define ROOT_ITER 200
/* A component whose x weight is below e^−39.14 = 1e-17 of the largest (1, after the
 * log-sum-exp shift) is left out: all of them together move F by at most d·1e-17. */
#define W_FLOOR        39.14
#define NP             STATS_KDE_EXACT_MAX /* the exact path's largest d */
#define SERIES_N       8                   /* terms of the chain's power series... */
#define SERIES_EPS_MAX 2.0 /* ...trusted this many σ out, at worst as a start */

_Static_assert(NFFT >= 2 * NG - 1, "the torus must hold every grid offset");

static const double probs[3] = {0.05, 0.5, 0.95};

/* The mixture the root finder solves: F(y) = Σ a_j·Φ((y − shift − m_j)/s_j) / total,
 * s_j = s[j], or s0 when s is NULL. */
struct mixture {
    const double *a, *m, *s;
    double s0, shift, total;
    size_t n;
    const uint32_t *k; /* exact path: the job of each component, for chain */
    struct chain *chain;
};

/* One quantile followed along the 16 points (exact path): Φ, φ and z of every
 * component at the last y evaluated, filed by job, so that the next point's mixture
 * (the same jobs under other weights) gets F near there as a power series before a
 * single Φ is computed (chain_start). Only a start: stale or missing entries cost
 * iterations, never accuracy. */
struct chain {
    double *cdf, *pdf, *z; /* by job */
    double yy;             /* the y evaluated, less the shift */
    bool set;              /* yy and some entries are from this fit */
};

/* What stats_kde_width_ratio_stat keeps from its last full fit (exact path only):
 * what a permutation of y leaves unchanged. Valid for the same d and options, the
 * same x bit for bit, and the same multiset of y (compared sorted). */
struct perm_cache {
    bool valid;
    size_t d;
    struct stats_kde_opts opts;  /* as asked, no_density aside */
    enum stats_kde_space space;  /* as resolved */
    double *x, *y_sorted, *u;    /* raw x, sorted raw y, fitted x */
    double mu, sxx, h_x;         /* of u */
    double x_grid_fit[NQ];       /* the 16 points */
    double marg_fit[2], marg[2]; /* Q05, Q95: fitting space, linear units */
    double *w;                   /* NQ × d: the kept x weights of each point... */
    uint32_t *k;                 /* ...and their jobs */
    size_t n[NQ];                /* kept per point */
    double total[NQ];            /* Σ of a point's kept weights */
};

struct stats_kde_ws {
    size_t d_max;    /* jobs the arrays hold */
    double *u, *v;   /* fitted x, y */
    double *c;       /* μ_k offsets: v_k − β·u_k */
    double *sel;     /* u, reordered by the quantile selection */
    double *a, *m;   /* mixture weights and means (exact path) */
    uint32_t *k;     /* the job of each mixture component (exact path) */
    double *off;     /* binned: value − its bin's centre; NULL when d_max is small */
    uint16_t *bin;   /* binned: the bin of each value */
    double *z, *acc; /* NFFT² complex, packed: the FFT torus, the summed spectrum */
    double *fine;    /* NFINE²: the sub-binned counts */
    double kx[2 * NG - 1], ky[2 * NG - 1]; /* the kernel's factors along each axis */
    gsl_fft_complex_wavetable *wt;         /* NFFT points */
    gsl_fft_complex_workspace *fw;
    double bw[NBIN];           /* binned: Σ w per bin, then the component weights */
    double bm[NBIN];           /* Σ w·off, then the component means */
    double bs[NBIN];           /* Σ w·off², then the component sds */
    double bin_lo;             /* the lower edge of bin 0 */
    double bin_width;          /* width of one bin */
    struct perm_cache pc;      /* NULL arrays when d_max > STATS_KDE_EXACT_MAX */
    struct chain chain[3];     /* q05, q50, q95 */
    double *chain_mem;         /* their 9 arrays of min(d_max, NP) */
    struct stats_bw_ws *bw_ws; /* bandwidth=plugin */
};

const char *stats_kde_space_name(enum stats_kde_space s)
{
    switch (s) {
    case KDE_SPACE_AUTO: return "auto";
    case KDE_SPACE_LOG: return "log";
    case KDE_SPACE_LINEAR: return "linear";
    }
    return "";
}

const char *stats_kde_bandwidth_name(enum stats_kde_bandwidth b)
{
    switch (b) {
    case KDE_BW_NORMAL: return "normal";
    case KDE_BW_PLUGIN: return "plugin";
    }
    return "";
}

struct stats_kde_ws *stats_kde_ws_new(size_t d_max)
{
    struct stats_kde_ws *ws = calloc(1, sizeof *ws);
    const size_t n = d_max > 0 ? d_max : 1;

    if (ws == NULL)
        return NULL;
    ws->d_max = d_max;
    ws->u = malloc(n * sizeof *ws->u);
    ws->v = malloc(n * sizeof *ws->v);
    ws->c = malloc(n * sizeof *ws->c);
    ws->sel = malloc(n * sizeof *ws->sel);
    ws->a = malloc(n * sizeof *ws->a);
    ws->m = malloc(n * sizeof *ws->m);
    ws->z = malloc(2 * (size_t)NFFT * NFFT * sizeof *ws->z);
    ws->acc = malloc(2 * (size_t)NFFT * NFFT * sizeof *ws->acc);
    ws->fine = malloc((size_t)NFINE * NFINE * sizeof *ws->fine);
    ws->wt = gsl_fft_complex_wavetable_alloc(NFFT);
    ws->fw = gsl_fft_complex_workspace_alloc(NFFT);
    ws->bw_ws = stats_bw_ws_new(d_max);
    if (d_max > STATS_KDE_EXACT_MAX) {
        ws->off = malloc(n * sizeof *ws->off);
        ws->bin = malloc(n * sizeof *ws->bin);
    }
    /* the exact path's arrays, and the permutation cache, never hold more than NP */
    const size_t ne = n < NP ? n : NP;
    ws->k = malloc(ne * sizeof *ws->k);
    ws->pc.x = malloc(ne * sizeof *ws->pc.x);
    ws->pc.y_sorted = malloc(ne * sizeof *ws->pc.y_sorted);
    ws->pc.u = malloc(ne * sizeof *ws->pc.u);
    ws->pc.w = malloc(NQ * ne * sizeof *ws->pc.w);
    ws->pc.k = malloc(NQ * ne * sizeof *ws->pc.k);
    ws->chain_mem = malloc(9 * ne * sizeof *ws->chain_mem);
    for (size_t i = 0; i < 3 && ws->chain_mem != NULL; i++) {
        ws->chain[i].cdf = ws->chain_mem + 3 * i * ne;
        ws->chain[i].pdf = ws->chain[i].cdf + ne;
        ws->chain[i].z = ws->chain[i].pdf + ne;
    }
    if (ws->u == NULL || ws->v == NULL || ws->c == NULL || ws->sel == NULL ||
        ws->a == NULL || ws->m == NULL || ws->z == NULL || ws->acc == NULL ||
        ws->fine == NULL || ws->wt == NULL || ws->fw == NULL || ws->k == NULL ||
        ws->pc.x == NULL || ws->pc.y_sorted == NULL || ws->pc.u == NULL ||
        ws->pc.w == NULL || ws->pc.k == NULL || ws->chain_mem == NULL ||
        ws->bw_ws == NULL ||
        (d_max > STATS_KDE_EXACT_MAX && (ws->off == NULL || ws->bin == NULL))) {
        stats_kde_ws_free(ws);
        return NULL;
    }
    return ws;
}

void stats_kde_ws_free(struct stats_kde_ws *ws)
{
    if (ws == NULL)
        return;
    free(ws->u);
    free(ws->v);
    free(ws->c);
    free(ws->sel);
    free(ws->a);
    free(ws->m);
    free(ws->k);
    free(ws->pc.x);
    free(ws->pc.y_sorted);
    free(ws->pc.u);
    free(ws->pc.w);
    free(ws->pc.k);
    free(ws->chain_mem);
    free(ws->off);
    free(ws->bin);
    free(ws->z);
    free(ws->acc);
    free(ws->fine);
    if (ws->wt != NULL)
        gsl_fft_complex_wavetable_free(ws->wt);
    if (ws->fw != NULL)
        gsl_fft_complex_workspace_free(ws->fw);
    stats_bw_ws_free(ws->bw_ws);
    free(ws);
}

/* ---- small helpers -------------------------------------------------------------- */

static double std_normal_cdf(double z)
{
    return 0.5 * erfc(-z * M_SQRT1_2);
}

static double mean_of(const double *v, size_t d)
{
    double s = 0.0;

    for (size_t i = 0; i < d; i++)
        s += v[i];
    return s / (double)d;
}

/* Σ (a − ā)(b − b̄) / (d − 1), two passes. */
static double cov_of(const double *a, double ma, const double *b, double mb, size_t d)
{
    double s = 0.0;

    for (size_t i = 0; i < d; i++)
        s += (a[i] - ma) * (b[i] - mb);
    return s / (double)(d - 1);
}

static void min_max(const double *v, size_t d, double *lo, double *hi)
{
    double a = v[0], b = v[0];

    for (size_t i = 1; i < d; i++) {
        if (v[i] < a)
            a = v[i];
        if (v[i] > b)
            b = v[i];
    }
    *lo = a;
    *hi = b;
}

/* xorshift64: the pivots of the selection, fixed so that results repeat. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void swap_d(double *a, size_t i, size_t j)
{
    const double t = a[i];
    a[i] = a[j];
    a[j] = t;
}

static double median3(double a, double b, double c)
{
    if (a > b) {
        const double t = a;
        a = b;
        b = t;
    }
    return c < a ? a : (c > b ? b : c);
}

/* Moves the elements of the ascending absolute ranks r[0..nr) of v[lo..hi) to their
 * sorted places (multiple quickselect, three-way partitions so that ties cost
 * nothing). Recurses on the smaller side only: depth O(log d). */
static void select_ranks(double *v, size_t lo, size_t hi, const size_t *r, size_t nr,
                         uint64_t *state)
{
    while (hi - lo > 1 && nr > 0) {
        const size_t n = hi - lo;
        const double pivot =
            median3(v[lo + next_random(state) % n], v[lo + next_random(state) % n],
                    v[lo + next_random(state) % n]);
        size_t lt = lo, i = lo, gt = hi, nl = 0, ng = 0;

        while (i < gt) {
            if (v[i] < pivot) {
                swap_d(v, lt++, i++);
            } else if (v[i] > pivot) {
                swap_d(v, i, --gt);
            } else {
                i++;
            }
        }
        while (nl < nr && r[nl] < lt)
            nl++;
        ng = nl;
        while (ng < nr && r[ng] < gt)
            ng++;
        if (lt - lo < hi - gt) {
            select_ranks(v, lo, lt, r, nl, state);
            lo = gt;
            r += ng;
            nr -= ng;
        } else {
            select_ranks(v, gt, hi, r + ng, nr - ng, state);
            hi = lt;
            nr = nl;
        }
    }
}

/* The type-7 quantiles (numpy's "linear") of u at (i + 0.5)/NQ; sel is scratch. */
static void grid_quantiles(const double *u, size_t d, double *sel, double *q)
{
    size_t ranks[2 * NQ], nr = 0;
    uint64_t state = UINT64_C(0x9E3779B97F4A7C15);

    memcpy(sel, u, d * sizeof *sel);
    for (size_t i = 0; i < NQ; i++) {
        const double h = (double)(d - 1) * ((double)i + 0.5) / NQ;
        const size_t k = (size_t)h;
        ranks[nr++] = k;
        if (k + 1 < d)
            ranks[nr++] = k + 1;
    }
    select_ranks(sel, 0, d, ranks, nr, &state);
    for (size_t i = 0; i < NQ; i++) {
        const double h = (double)(d - 1) * ((double)i + 0.5) / NQ;
        const size_t k = (size_t)h;
        const double t = h - (double)k;
        const double lo = sel[k], hi = k + 1 < d ? sel[k + 1] : lo;
        /* numpy's _lerp, which rounds towards the nearer end */
        q[i] = t < 0.5 ? lo + (hi - lo) * t : hi - (hi - lo) * (1.0 - t);
    }
}

/* ---- (a) the density grid ------------------------------------------------------- */

/* In-place transpose of the NFFT × NFFT complex matrix z, in tiles. */
static void transpose(double *z)
{
    enum { TILE = 16 };
    for (size_t bi = 0; bi < NFFT; bi += TILE) {
        for (size_t bj = bi; bj < NFFT; bj += TILE) {
            for (size_t i = bi; i < bi + TILE; i++) {
                for (size_t j = (bi == bj ? i + 1 : bj); j < bj + TILE; j++) {
                    const size_t p = 2 * (i * NFFT + j), q = 2 * (j * NFFT + i);
                    const double re = z[p], im = z[p + 1];
                    z[p] = z[q];
                    z[p + 1] = z[q + 1];
                    z[q] = re;
                    z[q + 1] = im;
                }
            }
        }
    }
}

/* The 2-D DFT as rows, transpose, rows: GSL's strided column transforms are an order
 * of magnitude slower than contiguous ones. The forward result is transposed
 * (element (r, c) holds frequency (c, r)); the inverse takes that layout back, so a
 * product of two forward results inverts to the convolution in the plain layout. */
static enum status fft2(struct stats_kde_ws *ws, double *z, bool forward)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; r < NFFT; r++) {
            double *row = z + 2 * r * NFFT;
            const int rc = forward
                               ? gsl_fft_complex_forward(row, 1, NFFT, ws->wt, ws->fw)
                               : gsl_fft_complex_inverse(row, 1, NFFT, ws->wt, ws->fw);
            if (rc != GSL_SUCCESS)
                return STATUS_INTERNAL;
        }
        if (pass == 0)
            transpose(z);
    }
    return STATUS_OK;
}

/* Index of the torus cell of grid offset (a, b), a and b in (−NFFT, NFFT). */
static size_t torus(long a, long b)
{
    const size_t i = (size_t)(a < 0 ? a + NFFT : a), j = (size_t)(b < 0 ? b + NFFT : b);
    return i * NFFT + j;
}

/* exp(−q/2), the kernel of H = [[hxx, hxy], [hxy, hyy]] (product: hxy = 0) without
 * its normalising factor, at the
 * offsets ((R·a − ex)·dx, (R·b − ey)·dy), a, b in [−(NG − 1), NG − 1], into the
 * imaginary parts of z: what fine node R·c + e contributes to output node i = c + a. */
static void put_kernel(struct stats_kde_ws *ws, double *z, size_t r, size_t ex, size_t ey,
                       double dx, double dy, double hxx, double hxy, double hyy)
{
    const double det = hxx * hyy - hxy * hxy;
    const long lim = NG - 1;
    double *gx = ws->kx, *gy = ws->ky;

    /* exp(−q/2) = gx(ox)·gy(oy)·exp(hxy·ox·oy/det): the last factor only for the
     * full kernel; the product kernel needs 2·255 exps per phase, not 255² */
    for (long a = -lim; a <= lim; a++) {
        const double ox = ((double)a * (double)r - (double)ex) * dx;
        const double oy = ((double)a * (double)r - (double)ey) * dy;
        gx[a + lim] = exp(-0.5 * hyy * ox * ox / det);
        gy[a + lim] = exp(-0.5 * hxx * oy * oy / det);
    }
    for (long a = -lim; a <= lim; a++) {
        const double ox = ((double)a * (double)r - (double)ex) * dx;
        const double fa = gx[a + lim];
        for (long b = -lim; b <= lim; b++) {
            double k = fa * gy[b + lim];
            if (hxy != 0.0) {
                const double oy = ((double)b * (double)r - (double)ey) * dy;
                /* the whole form at once: the split factors can under- and overflow */
                const double q =
                    (hyy * ox * ox - 2.0 * hxy * ox * oy + hxx * oy * oy) / det;
                k = exp(-0.5 * q);
            }
            z[2 * torus(a, b) + 1] = k;
        }
    }
}

/* Adds the spectrum of (real part of z) ∗ (imaginary part of z) to acc. Both parts
 * are real, so their transforms are Z(k) + conj Z(−k) over 2 and Z(k) − conj Z(−k)
 * over 2i, and the product is Hermitian: each pair (k, −k) is handled together. */
static void accumulate_product(const double *z, double *acc)
{
    for (size_t i = 0; i < NFFT; i++) {
        const size_t im = (NFFT - i) % NFFT;
        for (size_t j = 0; j < NFFT; j++) {
            const size_t jm = (NFFT - j) % NFFT;
            const size_t p = i * NFFT + j, q = im * NFFT + jm;
            if (q < p)
                continue;
            const double zr = z[2 * p], zi = z[2 * p + 1];
            const double wr = z[2 * q], wi = -z[2 * q + 1]; /* conj Z(−k) */
            const double cr = 0.5 * (zr + wr), ci = 0.5 * (zi + wi);
            const double kr = 0.5 * (zi - wi), ki = -0.5 * (zr - wr);
            const double pr = cr * kr - ci * ki, pi = cr * ki + ci * kr;
            acc[2 * p] += pr;
            acc[2 * p + 1] += pi;
            if (q != p) {
                acc[2 * q] += pr;
                acc[2 * q + 1] -= pi;
            }
        }
    }
}

/* (a): linear binning on a grid R times finer than the output (R from the kernel's
 * resolution), then one 128 × 128 convolution per phase (ex, ey) of the fine grid,
 * summed in the frequency domain: output node i collects fine node R·c + e through
 * the kernel at offset R·(i − c) − e. */
static enum status density_grid(struct stats_kde_ws *ws, size_t d, double hxx, double hxy,
                                double hyy, struct stats_kde *out)
{
    const double det = hxx * hyy - hxy * hxy;
    /* the kernel's sd along each axis with the other held: what the grid resolves */
    const double sx = sqrt(det / hyy), sy = sqrt(det / hxx);
    const double ratio = fmax(out->grid_dx / sx, out->grid_dy / sy);
    const size_t r =
        ratio > SUB_MAX * SUB_STEP ? SUB_MAX : (size_t)ceil(fmax(ratio / SUB_STEP, 1.0));
    const size_t nf = (NG - 1) * r + 1; /* fine nodes per axis */
    const double dx = out->grid_dx / (double)r, dy = out->grid_dy / (double)r;
    double *z = ws->z, *acc = ws->acc, *fine = ws->fine;
    enum status rc;

    memset(fine, 0, nf * nf * sizeof *fine);
    for (size_t k = 0; k < d; k++) {
        const double pu = (ws->u[k] - out->grid_x0) / dx;
        const double pv = (ws->v[k] - out->grid_y0) / dy;
        size_t i = (size_t)pu, j = (size_t)pv;
        if (i > nf - 2)
            i = nf - 2;
        if (j > nf - 2)
            j = nf - 2;
        const double tx = pu - (double)i, ty = pv - (double)j;
        fine[i * nf + j] += (1.0 - tx) * (1.0 - ty);
        fine[i * nf + j + 1] += (1.0 - tx) * ty;
        fine[(i + 1) * nf + j] += tx * (1.0 - ty);
        fine[(i + 1) * nf + j + 1] += tx * ty;
    }
    /* Linear binning moves each mass to a mean-preserving pair of nodes, which adds
     * t(1 − t)·Δ² of variance per axis, Δ²/6 on average over a cell: the kernel
     * gives that much back, leaving an error of order Δ⁴ plus the spread of t(1 − t)
     * about 1/6. Without it the grid is off by about (Δ²/12)·f'' (2e-3 of the
     * maximum at d = 10^3 and R = 1). Never more than half of sx², sy²: then
     * det(H − diag) >= det − det/2 − det/2 + product > 0, the kernel stays proper. */
    const double kxx = hxx - fmin(dx * dx / 6.0, 0.5 * sx * sx);
    const double kyy = hyy - fmin(dy * dy / 6.0, 0.5 * sy * sy);
    /* Counts and kernel share one transform, so each is rounded relative to the
     * other's size: the kernel goes in with peak 1 (its 1/(2π·sqrt(det)) is 1e-15 in
     * bytes·seconds) and the counts scaled to the kernel's sum over one phase's
     * offsets, 2π·sqrt(det)/(R²·dx·dy), so that the two spectra match at zero. */
    const double kdet = kxx * kyy - hxy * hxy;
    const double ksum = 2.0 * M_PI * sqrt(kdet) / ((double)(r * r) * dx * dy);
    const double scale = ksum / (double)d;
    const double norm = 1.0 / (2.0 * M_PI * sqrt(kdet) * ksum);
    memset(acc, 0, 2 * (size_t)NFFT * NFFT * sizeof *acc);
    for (size_t e = 0; e < r * r; e++) {
        const size_t ex = e / r, ey = e % r;
        memset(z, 0, 2 * (size_t)NFFT * NFFT * sizeof *z);
        for (size_t c1 = 0; r * c1 + ex < nf; c1++) {
            for (size_t c2 = 0; r * c2 + ey < nf; c2++)
                z[2 * (c1 * NFFT + c2)] = fine[(r * c1 + ex) * nf + r * c2 + ey] * scale;
        }
        put_kernel(ws, z, r, ex, ey, dx, dy, kxx, hxy, kyy);
        rc = fft2(ws, z, true);
        if (rc != STATUS_OK)
            return rc;
        accumulate_product(z, acc);
    }
    rc = fft2(ws, acc, false);
    if (rc != STATUS_OK)
        return rc;
    for (size_t i = 0; i < NG; i++) {
        for (size_t j = 0; j < NG; j++)
            out->density[i][j] = acc[2 * (i * NFFT + j)] * norm;
    }
    return STATUS_OK;
}

/* ---- (b) the conditional quantiles ---------------------------------------------- */

/* g = F(y) − p, g1 = F'(y), g2 = F''(y) of the mixture: with φ at hand, the density
 * and its slope cost two multiplications beside the Φ. */
static void mixture_eval(const struct mixture *mx, double y, double p, double *g,
                         double *g1, double *g2)
{
    const double yy = y - mx->shift;
    double sf = 0.0, sd = 0.0, sdd = 0.0;

    if (mx->s == NULL) {
        const double inv = 1.0 / mx->s0;
        struct chain *ch = mx->chain;
        for (size_t j = 0; j < mx->n; j++) {
            const double z = (yy - mx->m[j]) * inv, ph = exp(-0.5 * z * z);
            const double cdf = std_normal_cdf(z);
            sf += mx->a[j] * cdf;
            sd += mx->a[j] * ph;
            sdd -= mx->a[j] * z * ph;
            if (ch != NULL) {
                const uint32_t k = mx->k[j];
                ch->cdf[k] = cdf;
                ch->pdf[k] = ph;
                ch->z[k] = z;
            }
        }
        if (ch != NULL) {
            ch->yy = yy;
            ch->set = true;
        }
        sd *= inv;
        sdd *= inv * inv;
    } else {
        for (size_t j = 0; j < mx->n; j++) {
            const double inv = 1.0 / mx->s[j], z = (yy - mx->m[j]) * inv;
            const double ph = mx->a[j] * exp(-0.5 * z * z) * inv;
            sf += mx->a[j] * std_normal_cdf(z);
            sd += ph;
            sdd -= z * ph * inv;
        }
    }
    *g = sf / mx->total - p;
    *g1 = sd / (mx->total * sqrt(2.0 * M_PI));
    *g2 = sdd / (mx->total * sqrt(2.0 * M_PI));
}

/* Halley's step from g = F − p, g1 = F', g2 = F'', else Newton's; NaN when the
 * density underflowed. */
static double halley_step(double g, double g1, double g2)
{
    const double den = 2.0 * g1 * g1 - g * g2;

    if (!(g1 > 0.0))
        return NAN;
    return den > 0.0 ? -2.0 * g * g1 / den : -g / g1;
}

/* The start for the mixture's p quantile, from the y its chain last evaluated
 * (start when the chain has none): there F is a power series in ε = Δy/σ,
 * Φ(z + ε) = Φ(z) + φ(z)·Σ_{n>=1} (−1)^(n−1)·He_(n−1)(z)·ε^n/n!, whose coefficients
 * the filed Φ, φ and z give without one more Φ; by Cramér's bound on φ·He_n the
 * SERIES_N = 8 terms are within 1e-13 of F for |ε| <= 0.09 and 5e-7 at 1/2, plenty
 * for a start. Newton's method on the truncated series; when it strays
 * (|ε| > SERIES_EPS_MAX), the y last evaluated is the start. */
static double chain_start(const struct mixture *mx, double p, double start)
{
    const struct chain *ch = mx->chain;
    double c[SERIES_N + 1] = {0.0};

    if (ch == NULL || !ch->set)
        return start;
    /* four components at a time: their He recurrences are independent chains */
    for (size_t j0 = 0; j0 < mx->n; j0 += 4) {
        double z[4] = {0.0}, ph[4] = {0.0}, h0[4], h1[4];
        for (size_t l = 0; l < 4 && j0 + l < mx->n; l++) {
            const uint32_t k = mx->k[j0 + l];
            z[l] = ch->z[k];
            ph[l] = mx->a[j0 + l] * ch->pdf[k];
            c[0] += mx->a[j0 + l] * ch->cdf[k];
        }
        for (size_t l = 0; l < 4; l++) {
            h0[l] = 1.0; /* He_0 */
            h1[l] = z[l];
        }
        c[1] += (ph[0] + ph[1]) + (ph[2] + ph[3]);
        c[2] += (ph[0] * z[0] + ph[1] * z[1]) + (ph[2] * z[2] + ph[3] * z[3]);
        for (size_t n = 2; n < SERIES_N; n++) {
            double t[4];
            for (size_t l = 0; l < 4; l++) {
                const double h2 = z[l] * h1[l] - (double)(n - 1) * h0[l];
                t[l] = ph[l] * h2;
                h0[l] = h1[l];
                h1[l] = h2;
            }
            c[n + 1] += (t[0] + t[1]) + (t[2] + t[3]);
        }
    }
    /* G(ε) = Σ b_n ε^n, b_0 = F − p */
    double b[SERIES_N + 1], f = mx->total * sqrt(2.0 * M_PI), eps = 0.0;
    b[0] = c[0] / mx->total - p;
    for (size_t n = 1; n <= SERIES_N; n++) {
        f *= -(double)n;
        b[n] = -c[n] / f;
    }
    for (int it = 0; it < 30; it++) {
        double g = b[SERIES_N], g1 = 0.0;
        for (size_t n = SERIES_N; n-- > 0;) {
            g1 = g1 * eps + g;
            g = g * eps + b[n];
        }
        const double step = -g / g1;
        if (!isfinite(step) || fabs(eps + step) > SERIES_EPS_MAX)
            return ch->yy + mx->shift; /* no better start known */
        eps += step;
        if (fabs(step) <= 1e-14)
            break;
    }
    return ch->yy + mx->shift + eps * mx->s0;
}

/* The y where the mixture's CDF is p, from start: Halley's method (F' and F'' come
 * almost free with F) inside the bracket [min_j (m_j + s_j·z_p), max_j (m_j +
 * s_j·z_p)] + shift (every component is <= p at its lower end and >= p at its upper
 * end), which every evaluation narrows; a bisection instead of any step that leaves
 * the bracket or does not halve the step before last (as Numerical Recipes' rtsafe),
 * so the bracket always closes. Stops when a step is below 1e-10·min s_j (+ 4 ulps of
 * y): the convergence is cubic by then, so the root is far closer than that. F is never
 * evaluated at the ends: when rounding leaves one a hair on the wrong side, the
 * iterates close in on that end, within rounding of the root. */
static enum status mixture_quantile(const struct mixture *mx, double p, double start,
                                    double *root)
{
    const double zp = gsl_cdf_ugaussian_Pinv(p);
    double lo = INFINITY, hi = -INFINITY, s_min = INFINITY;

    for (size_t j = 0; j < mx->n; j++) {
        const double s = mx->s != NULL ? mx->s[j] : mx->s0;
        const double e = mx->m[j] + s * zp;
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
        s_min = s < s_min ? s : s_min;
    }
    lo += mx->shift;
    hi += mx->shift;
    if (!(lo < hi)) {
        *root = lo;
        return lo == hi ? STATUS_OK : STATUS_INTERNAL;
    }
    const double tol = ROOT_TOL * s_min;
    start = chain_start(mx, p, start);
    double y = start > lo && start < hi ? start : lo + 0.5 * (hi - lo);
    double step = hi - lo, step_old = step;

    for (int it = 0; it < ROOT_ITER; it++) {
        double g, g1, g2, next, dy;
        mixture_eval(mx, y, p, &g, &g1, &g2);
        if (g == 0.0) {
            *root = y;
            return STATUS_OK;
        }
        if (g < 0.0) {
            lo = y;
        } else {
            hi = y;
        }
        dy = halley_step(g, g1, g2);
        next = y + dy;
        /* 4 ulps of y too: far from 0, tol can be below y's resolution */
        const double tol_y = tol + 4.0 * DBL_EPSILON * fabs(y);
        if (fabs(dy) <= tol_y) {
            /* converged: rounding in g may push next a hair past an end, and the
             * bracket need not be small (the iterates close in from one side) */
            *root = fmin(fmax(next, lo), hi);
            return STATUS_OK;
        }
        if (!(next > lo && next < hi) || !(fabs(2.0 * dy) <= fabs(step_old))) {
            next = lo + 0.5 * (hi - lo);
            dy = next - y;
        }
        step_old = step;
        step = dy;
        if (fabs(dy) <= tol_y || hi - lo <= tol_y) {
            *root = next;
            return STATUS_OK;
        }
        y = next;
    }
    return STATUS_INTERNAL;
}

/* Bins c[0..d) into NBIN equal bins over [min, max]: ws->bin, ws->off. */
static void assign_bins(struct stats_kde_ws *ws, const double *c, size_t d)
{
    double lo, hi;

    min_max(c, d, &lo, &hi);
    ws->bin_lo = lo;
    ws->bin_width = (hi - lo) / NBIN;
    for (size_t k = 0; k < d; k++) {
        double t = ws->bin_width > 0.0 ? (c[k] - lo) / ws->bin_width : 0.0;
        size_t b = (size_t)t;
        if (b > NBIN - 1)
            b = NBIN - 1;
        ws->bin[k] = (uint16_t)b;
        ws->off[k] = c[k] - (lo + ((double)b + 0.5) * ws->bin_width);
    }
}

/* Turns the per-bin sums Σw, Σw·off, Σw·off² into one normal per non-empty bin:
 * weight Σw, mean centre + Σw·off/Σw, sd sqrt(σ² + weighted variance). */
static void bins_to_mixture(struct stats_kde_ws *ws, double sigma, struct mixture *mx)
{
    size_t n = 0;
    double total = 0.0;

    for (size_t b = 0; b < NBIN; b++) {
        const double w = ws->bw[b];
        if (!(w > 0.0))
            continue;
        const double mean = ws->bm[b] / w;
        double var = ws->bs[b] / w - mean * mean;
        var = var > 0.0 ? var : 0.0;
        ws->bw[n] = w;
        ws->bm[n] = ws->bin_lo + ((double)b + 0.5) * ws->bin_width + mean;
        ws->bs[n] = sqrt(sigma * sigma + var);
        total += w;
        n++;
    }
    *mx = (struct mixture){ws->bw, ws->bm, ws->bs, 0.0, 0.0, total, n, NULL, NULL};
}

/* The marginal of y: Φ((y − v_k)/h_y) averaged over the jobs, started from the
 * normal with the KDE's mean and variance. */
static enum status marginal_quantiles(struct stats_kde_ws *ws, size_t d, double h_y,
                                      bool binned, double q[2])
{
    const double mv = mean_of(ws->v, d);
    const double sd = sqrt(cov_of(ws->v, mv, ws->v, mv, d) + h_y * h_y);
    struct mixture mx;
    enum status rc;

    if (binned) {
        assign_bins(ws, ws->v, d);
        memset(ws->bw, 0, sizeof ws->bw);
        memset(ws->bm, 0, sizeof ws->bm);
        memset(ws->bs, 0, sizeof ws->bs);
        for (size_t k = 0; k < d; k++) {
            const size_t b = ws->bin[k];
            ws->bw[b] += 1.0;
            ws->bm[b] += ws->off[k];
            ws->bs[b] += ws->off[k] * ws->off[k];
        }
        bins_to_mixture(ws, h_y, &mx);
    } else {
        for (size_t k = 0; k < d; k++)
            ws->a[k] = 1.0;
        mx = (struct mixture){ws->a, ws->v, NULL, h_y, 0.0, (double)d, d, NULL, NULL};
    }
    rc = mixture_quantile(&mx, probs[0], mv - Z_BAND * sd, &q[0]);
    if (rc == STATUS_OK)
        rc = mixture_quantile(&mx, probs[2], mv + Z_BAND * sd, &q[1]);
    return rc;
}

/* The x weights at fitted x = xg, exact path: w_k = exp(−(t_k² − min t²)/2),
 * t_k = (xg − u_k)/h_x, the negligible ones left out; w[0..n) and their jobs k. */
static void point_weights(const double *u, size_t d, double xg, double h_x, double *w,
                          uint32_t *k, size_t *n, double *total)
{
    const double inv = 1.0 / h_x;
    double t2min = INFINITY, sum = 0.0;
    size_t m = 0;

    for (size_t j = 0; j < d; j++) {
        const double t = (xg - u[j]) * inv;
        t2min = t * t < t2min ? t * t : t2min;
    }
    for (size_t j = 0; j < d; j++) {
        const double t = (xg - u[j]) * inv, e = 0.5 * (t * t - t2min);
        if (e > W_FLOOR)
            continue;
        w[m] = exp(-e);
        k[m] = (uint32_t)j;
        sum += w[m];
        m++;
    }
    *n = m;
    *total = sum;
}

/* Starts the three chains afresh for a fit of d jobs: no entry is left unset. */
static void chains_reset(struct stats_kde_ws *ws, size_t d)
{
    for (size_t i = 0; i < 3; i++) {
        memset(ws->chain[i].cdf, 0, d * sizeof *ws->chain[i].cdf);
        memset(ws->chain[i].pdf, 0, d * sizeof *ws->chain[i].pdf);
        memset(ws->chain[i].z, 0, d * sizeof *ws->chain[i].z);
        ws->chain[i].set = false;
    }
}

/* Solves the quantiles probs[i] wanted at one point, each from its start and along
 * chains[i] (chains NULL: none). */
static enum status solve_point(const struct mixture *mx, const bool want[3],
                               const double start[3], struct chain *chains, double q[3])
{
    enum status rc = STATUS_OK;
    struct mixture m = *mx;

    for (size_t i = 0; i < 3 && rc == STATUS_OK; i++) {
        q[i] = NAN;
        m.chain = chains != NULL ? &chains[i] : NULL;
        if (want[i])
            rc = mixture_quantile(&m, probs[i], start[i], &q[i]);
    }
    return rc;
}

/* The mixture of y given fitted x = xg: μ_k = c_k + β·xg with c_k = v_k − β·u_k
 * (ws->c; binned: ws->bin and ws->off), in ws's arrays until the next call. */
static void point_mixture(struct stats_kde_ws *ws, size_t d, double xg, double h_x,
                          double beta, double sigma, bool binned, struct mixture *out)
{
    struct mixture mx;

    if (binned) {
        const double inv = 1.0 / h_x;
        double t2min = INFINITY;
        for (size_t k = 0; k < d; k++) {
            const double t = (xg - ws->u[k]) * inv;
            t2min = t * t < t2min ? t * t : t2min;
        }
        memset(ws->bw, 0, sizeof ws->bw);
        memset(ws->bm, 0, sizeof ws->bm);
        memset(ws->bs, 0, sizeof ws->bs);
        for (size_t k = 0; k < d; k++) {
            const double t = (xg - ws->u[k]) * inv, e = 0.5 * (t * t - t2min);
            if (e > W_FLOOR)
                continue;
            const double w = exp(-e), o = ws->off[k];
            const size_t b = ws->bin[k];
            ws->bw[b] += w;
            ws->bm[b] += w * o;
            ws->bs[b] += w * o * o;
        }
        bins_to_mixture(ws, sigma, &mx);
    } else {
        size_t n;
        double total;
        point_weights(ws->u, d, xg, h_x, ws->a, ws->k, &n, &total);
        for (size_t j = 0; j < n; j++)
            ws->m[j] = ws->c[ws->k[j]];
        mx = (struct mixture){ws->a, ws->m, NULL, sigma, 0.0, total, n, ws->k, NULL};
    }
    mx.shift = beta * xg;
    *out = mx;
}

/* The three conditional quantiles at fitted x = xg (point_mixture), each started at
 * start. */
static enum status conditional_quantiles(struct stats_kde_ws *ws, size_t d, double xg,
                                         double h_x, double beta, double sigma,
                                         bool binned, const double start[3], double q[3])
{
    static const bool all[3] = {true, true, true};
    struct mixture mx;

    point_mixture(ws, d, xg, h_x, beta, sigma, binned, &mx);
    return solve_point(&mx, all, start, binned ? NULL : ws->chain, q);
}

/* ---- the whole fit -------------------------------------------------------------- */

static void set_nan(struct stats_kde *out)
{
    const double nan = NAN;

    out->binned = false;
    out->h_x = out->h_y = out->beta = out->sigma_c = nan;
    out->grid_x0 = out->grid_dx = out->grid_y0 = out->grid_dy = nan;
    for (size_t i = 0; i < NG; i++) {
        for (size_t j = 0; j < NG; j++)
            out->density[i][j] = nan;
    }
    for (size_t i = 0; i < NQ; i++) {
        out->x_grid_fit[i] = out->q05_fit[i] = out->q50_fit[i] = out->q95_fit[i] = nan;
        out->x_grid[i] = out->q05[i] = out->q50[i] = out->q95[i] = nan;
    }
    out->mean = out->sd = out->band_low = out->band_high = nan;
    out->marg_q05_fit = out->marg_q95_fit = out->marg_q05 = out->marg_q95 = nan;
    out->width_ratio = out->paper_width_ratio = nan;
}

static double to_linear(enum stats_kde_space space, double v)
{
    return space == KDE_SPACE_LOG ? exp(v) : v;
}

static enum status check_args(const double *x, const double *y, size_t d,
                              const struct stats_kde_opts *opts,
                              const struct stats_kde_ws *ws, const struct stats_kde *out,
                              bool *all_positive, struct error *err)
{
    if (out == NULL || ws == NULL || (d > 0 && (x == NULL || y == NULL)))
        return error_set(err, STATUS_INVALID, "kde: missing argument");
    if (opts->space != KDE_SPACE_AUTO && opts->space != KDE_SPACE_LOG &&
        opts->space != KDE_SPACE_LINEAR) {
        return error_set(err, STATUS_INVALID, "kde: unknown space %d", (int)opts->space);
    }
    if (opts->kernel != KDE_KERNEL_PRODUCT && opts->kernel != KDE_KERNEL_FULL) {
        return error_set(err, STATUS_INVALID, "kde: unknown kernel %d",
                         (int)opts->kernel);
    }
    if (opts->bandwidth != KDE_BW_NORMAL && opts->bandwidth != KDE_BW_PLUGIN) {
        return error_set(err, STATUS_INVALID, "kde: unknown bandwidth %d",
                         (int)opts->bandwidth);
    }
    if (opts->bandwidth == KDE_BW_PLUGIN && opts->kernel == KDE_KERNEL_FULL) {
        return error_set(err, STATUS_INVALID,
                         "kde: bandwidth=plugin needs kernel=product");
    }
    if (d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "kde: d = %zu, workspace for %zu", d,
                         ws->d_max);
    }
    *all_positive = true;
    for (size_t k = 0; k < d; k++) {
        if (!isfinite(x[k]) || !isfinite(y[k]))
            return error_set(err, STATUS_INVALID, "kde: job %zu: value not finite", k);
        if (!(x[k] > 0.0) || !(y[k] > 0.0))
            *all_positive = false;
    }
    if (opts->space == KDE_SPACE_LOG && !*all_positive)
        return error_set(err, STATUS_INVALID, "kde: space=log needs every x and y > 0");
    return STATUS_OK;
}

enum status stats_kde_compute(const double *x, const double *y, size_t d,
                              const struct stats_kde_opts *opts, struct stats_kde_ws *ws,
                              struct stats_kde *out, struct error *err)
{
    static const struct stats_kde_opts defaults = {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT,
                                                   STATS_KDE_D_MIN, false, KDE_BW_NORMAL};
    bool all_positive = false;
    enum status rc;

    if (opts == NULL)
        opts = &defaults;
    if (out != NULL) {
        out->d = d;
        out->reason = REASON_NONE;
        out->space = opts->space;
        out->kernel = opts->kernel;
        out->bandwidth = opts->bandwidth;
        set_nan(out);
    }
    rc = check_args(x, y, d, opts, ws, out, &all_positive, err);
    if (rc != STATUS_OK)
        return rc;
    out->space = opts->space != KDE_SPACE_AUTO
                     ? opts->space
                     : (all_positive ? KDE_SPACE_LOG : KDE_SPACE_LINEAR);
    if (d < 2 || d < opts->d_min) {
        out->reason = REASON_D_BELOW_MIN;
        return STATUS_OK;
    }

    /* (c): raw y, linear units */
    out->mean = mean_of(y, d);
    out->sd = sqrt(cov_of(y, out->mean, y, out->mean, d));
    out->band_low = out->mean - Z_BAND * out->sd;
    out->band_high = out->mean + Z_BAND * out->sd;

    const bool use_log = out->space == KDE_SPACE_LOG;
    for (size_t k = 0; k < d; k++) {
        ws->u[k] = use_log ? log(x[k]) : x[k];
        ws->v[k] = use_log ? log(y[k]) : y[k];
    }
    if (stats_all_equal(ws->u, d) || stats_all_equal(ws->v, d)) {
        out->reason = stats_all_equal(ws->u, d) ? REASON_CONSTANT_X : REASON_CONSTANT_Y;
        return STATUS_OK;
    }

    /* bandwidths: h_j = s_j·d^(−1/6), i.e. H = d^(−1/3)·Σ̂ on the diagonal */
    const double mu = mean_of(ws->u, d), mv = mean_of(ws->v, d);
    const double sxx = cov_of(ws->u, mu, ws->u, mu, d);
    const double syy = cov_of(ws->v, mv, ws->v, mv, d);
    const double sxy = cov_of(ws->u, mu, ws->v, mv, d);
    const double f2 = pow((double)d, -1.0 / 3.0);
    const bool full = opts->kernel == KDE_KERNEL_FULL;
    double hxx = f2 * sxx, hyy = f2 * syy;
    const double hxy = full ? f2 * sxy : 0.0;
    if (opts->bandwidth == KDE_BW_PLUGIN) {
        double hx = NAN, hy = NAN;
        rc = stats_bw_sj(ws->u, d, ws->bw_ws, &hx, err);
        if (rc == STATUS_OK)
            rc = stats_bw_sj(ws->v, d, ws->bw_ws, &hy, err);
        if (rc != STATUS_OK) {
            set_nan(out);
            return rc;
        }
        hxx = hx * hx;
        hyy = hy * hy;
    }
    out->h_x = sqrt(hxx);
    out->h_y = sqrt(hyy);
    out->beta = full ? sxy / sxx : 0.0;
    const double var_c = full ? f2 * (syy - sxy * sxy / sxx) : hyy;
    if (!(var_c > 1e-12 * hyy)) {
        set_nan(out);
        return error_set(err, STATUS_INVALID,
                         "kde: kernel=full: x and y are collinear (singular covariance)");
    }
    out->sigma_c = sqrt(var_c);

    /* (a) */
    double lo, hi;
    min_max(ws->u, d, &lo, &hi);
    out->grid_x0 = lo - 3.0 * out->h_x;
    out->grid_dx = (hi + 3.0 * out->h_x - out->grid_x0) / (NG - 1);
    min_max(ws->v, d, &lo, &hi);
    out->grid_y0 = lo - 3.0 * out->h_y;
    out->grid_dy = (hi + 3.0 * out->h_y - out->grid_y0) / (NG - 1);
    if (!opts->no_density) {
        rc = density_grid(ws, d, hxx, hxy, hyy, out);
        if (rc != STATUS_OK)
            goto fail;
    }

    /* (b) */
    out->binned = d > STATS_KDE_EXACT_MAX;
    grid_quantiles(ws->u, d, ws->sel, out->x_grid_fit);
    double marg[2];
    rc = marginal_quantiles(ws, d, out->h_y, out->binned, marg);
    if (rc != STATUS_OK)
        goto fail;
    out->marg_q05_fit = marg[0];
    out->marg_q95_fit = marg[1];
    for (size_t k = 0; k < d; k++)
        ws->c[k] = ws->v[k] - out->beta * ws->u[k];
    if (out->binned) {
        assign_bins(ws, ws->c, d);
    } else {
        chains_reset(ws, d);
    }
    /* each quantile starts from the previous point's, the first from the marginal's:
     * the same chain of starts as stats_kde_width_ratio_stat's */
    double q[3] = {marg[0], 0.5 * (marg[0] + marg[1]), marg[1]};
    for (size_t i = 0; i < NQ && rc == STATUS_OK; i++) {
        const double start[3] = {q[0], q[1], q[2]};
        rc = conditional_quantiles(ws, d, out->x_grid_fit[i], out->h_x, out->beta,
                                   out->sigma_c, out->binned, start, q);
        out->q05_fit[i] = q[0];
        out->q50_fit[i] = q[1];
        out->q95_fit[i] = q[2];
    }
    if (rc != STATUS_OK)
        goto fail;

    /* back to linear units, and (d) */
    double sum_width = 0.0;
    for (size_t i = 0; i < NQ; i++) {
        out->x_grid[i] = to_linear(out->space, out->x_grid_fit[i]);
        out->q05[i] = to_linear(out->space, out->q05_fit[i]);
        out->q50[i] = to_linear(out->space, out->q50_fit[i]);
        out->q95[i] = to_linear(out->space, out->q95_fit[i]);
        sum_width += out->q95[i] - out->q05[i];
    }
    out->marg_q05 = to_linear(out->space, out->marg_q05_fit);
    out->marg_q95 = to_linear(out->space, out->marg_q95_fit);
    out->width_ratio = 0.0;
    for (size_t i = 0; i < NQ; i++)
        out->width_ratio += (out->q95[i] - out->q05[i]) / (out->marg_q95 - out->marg_q05);
    out->width_ratio /= NQ;
    out->paper_width_ratio = sum_width / NQ / (2.0 * Z_BAND * out->sd);
    return STATUS_OK;
fail:
    set_nan(out);
    return error_set(err, rc, "kde: the FFT or the root finder failed");
}

/* ---- width_ratio under permutations of y ---------------------------------------- */

/* Whether ws->pc was filled from this x and a permutation of this y, with the same d
 * and options; y_sorted is compared exactly, so a stale fit is never used. */
static bool cache_hit(struct stats_kde_ws *ws, const double *x, const double *y, size_t d,
                      const struct stats_kde_opts *o)
{
    const struct perm_cache *pc = &ws->pc;

    /* The cached path rebuilds h_y by the normal reference: a plug-in bandwidth
     * always fits afresh. */
    if (o->bandwidth != KDE_BW_NORMAL || !pc->valid || pc->d != d ||
        pc->opts.space != o->space || pc->opts.kernel != o->kernel ||
        pc->opts.d_min != o->d_min || memcmp(x, pc->x, d * sizeof *x) != 0)
        return false;
    for (size_t k = 0; k < d; k++) {
        if (!isfinite(y[k])) /* the fit reports it; the sort needs an order */
            return false;
    }
    memcpy(ws->sel, y, d * sizeof *y);
    gsl_sort(ws->sel, 1, d); /* heapsort: in place, no allocation */
    return memcmp(ws->sel, pc->y_sorted, d * sizeof *y) == 0;
}

/* Keeps what a permutation of y leaves unchanged from fit, the full fit stats_kde_compute
 * just made of x and y in ws: x, the sorted y, the fitted x and its moments, the 16
 * points, their x weights (exactly as conditional_quantiles makes them) and the
 * marginal's quantiles. Only exact fits with a value are kept. */
static void cache_fill(struct stats_kde_ws *ws, const double *x, const double *y,
                       size_t d, const struct stats_kde_opts *o,
                       const struct stats_kde *fit)
{
    struct perm_cache *pc = &ws->pc;

    pc->valid = false;
    if (d > NP || fit->binned || fit->reason != REASON_NONE)
        return;
    pc->d = d;
    pc->opts = *o;
    pc->space = fit->space;
    memcpy(pc->x, x, d * sizeof *x);
    memcpy(pc->y_sorted, y, d * sizeof *y);
    gsl_sort(pc->y_sorted, 1, d);
    memcpy(pc->u, ws->u, d * sizeof *pc->u);
    pc->mu = mean_of(pc->u, d);
    pc->sxx = cov_of(pc->u, pc->mu, pc->u, pc->mu, d);
    pc->h_x = fit->h_x;
    for (size_t i = 0; i < NQ; i++) {
        pc->x_grid_fit[i] = fit->x_grid_fit[i];
        point_weights(pc->u, d, fit->x_grid_fit[i], fit->h_x, pc->w + i * d,
                      pc->k + i * d, &pc->n[i], &pc->total[i]);
    }
    pc->marg_fit[0] = fit->marg_q05_fit;
    pc->marg_fit[1] = fit->marg_q95_fit;
    pc->marg[0] = fit->marg_q05;
    pc->marg[1] = fit->marg_q95;
    pc->valid = true;
}

/* width_ratio of x (in ws->pc) and y, y a permutation of the cached one: what
 * stats_kde_compute does for q05 and q95 and nothing else, the same arithmetic on the
 * same numbers but for the marginal's quantiles, taken from the cache (the same
 * multiset summed in another order: a few ulps). */
static enum status width_ratio_cached(struct stats_kde_ws *ws, const double *y, size_t d,
                                      double *value, struct error *err)
{
    static const bool ends[3] = {true, false, true};
    const struct perm_cache *pc = &ws->pc;
    const bool use_log = pc->space == KDE_SPACE_LOG;
    const bool full = pc->opts.kernel == KDE_KERNEL_FULL;

    for (size_t k = 0; k < d; k++)
        ws->v[k] = use_log ? log(y[k]) : y[k];
    const double mv = mean_of(ws->v, d);
    const double syy = cov_of(ws->v, mv, ws->v, mv, d);
    const double sxy = full ? cov_of(pc->u, pc->mu, ws->v, mv, d) : 0.0;
    const double f2 = pow((double)d, -1.0 / 3.0);
    const double hyy = f2 * syy;
    const double beta = full ? sxy / pc->sxx : 0.0;
    const double var_c = full ? f2 * (syy - sxy * sxy / pc->sxx) : hyy;
    if (!(var_c > 1e-12 * hyy)) {
        return error_set(err, STATUS_INVALID,
                         "kde: kernel=full: x and y are collinear (singular covariance)");
    }
    const double sigma = sqrt(var_c);
    for (size_t k = 0; k < d; k++)
        ws->c[k] = ws->v[k] - beta * pc->u[k];
    chains_reset(ws, d);

    double q[3] = {pc->marg_fit[0], NAN, pc->marg_fit[1]}, sum = 0.0;
    for (size_t i = 0; i < NQ; i++) {
        const double *w = pc->w + i * d;
        const uint32_t *k = pc->k + i * d;
        const double start[3] = {q[0], q[1], q[2]};
        for (size_t j = 0; j < pc->n[i]; j++)
            ws->m[j] = ws->c[k[j]];
        const struct mixture mx = {
            w,        ws->m, NULL, sigma, beta * pc->x_grid_fit[i], pc->total[i],
            pc->n[i], k,     NULL};
        const enum status rc = solve_point(&mx, ends, start, ws->chain, q);
        if (rc != STATUS_OK)
            return error_set(err, rc, "kde: the FFT or the root finder failed");
        sum += (to_linear(pc->space, q[2]) - to_linear(pc->space, q[0])) /
               (pc->marg[1] - pc->marg[0]);
    }
    *value = sum / NQ;
    return STATUS_OK;
}

enum status stats_kde_width_ratio_stat(const double *x, const double *y, size_t d,
                                       void *ctx, struct stats_coef *out,
                                       struct error *err)
{
    struct stats_kde_stat_ctx *c = ctx;
    struct stats_kde_opts opts;
    enum status rc;

    if (c == NULL || out == NULL || c->scratch == NULL || c->ws == NULL ||
        (d > 0 && (x == NULL || y == NULL)))
        return error_set(err, STATUS_INVALID, "kde: missing argument");
    opts = c->opts;
    opts.no_density = true;
    if (d <= c->ws->d_max && cache_hit(c->ws, x, y, d, &opts)) {
        out->reason = REASON_NONE;
        rc = width_ratio_cached(c->ws, y, d, &out->value, err);
        if (rc != STATUS_OK)
            out->value = NAN;
        return rc;
    }
    rc = stats_kde_compute(x, y, d, &opts, c->ws, c->scratch, err);
    out->value = c->scratch->width_ratio;
    out->reason = c->scratch->reason;
    if (rc == STATUS_OK) {
        cache_fill(c->ws, x, y, d, &opts, c->scratch);
    } else {
        c->ws->pc.valid = false;
    }
    return rc;
}

/* ---- the fit at any x ----------------------------------------------------------- */

enum status stats_kde_at(const double *x, const double *y, size_t d,
                         const struct stats_kde *fit, double x_at, double y_at, double z,
                         struct stats_kde_ws *ws, struct stats_kde_point *out,
                         struct error *err)
{
    static const bool all[3] = {true, true, true};
    struct mixture mx;
    double lo, hi, q[3] = {NAN, NAN, NAN};

    if (out == NULL || fit == NULL || ws == NULL || x == NULL || y == NULL)
        return error_set(err, STATUS_INVALID, "kde at x: missing argument");
    *out = (struct stats_kde_point){false, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    if (fit->reason != REASON_NONE || fit->d != d || d < 2)
        return error_set(err, STATUS_INVALID, "kde at x: no fit of these %zu jobs", d);
    if (d > ws->d_max) {
        return error_set(err, STATUS_INVALID, "kde: d = %zu, workspace for %zu", d,
                         ws->d_max);
    }
    const bool use_log = fit->space == KDE_SPACE_LOG;
    for (size_t k = 0; k < d; k++) {
        if (!isfinite(x[k]) || !isfinite(y[k]) || (use_log && !(x[k] > 0 && y[k] > 0)))
            return error_set(err, STATUS_INVALID, "kde at x: job %zu: bad value", k);
        ws->u[k] = use_log ? log(x[k]) : x[k];
        ws->v[k] = use_log ? log(y[k]) : y[k];
        ws->c[k] = ws->v[k] - fit->beta * ws->u[k];
    }
    min_max(ws->u, d, &lo, &hi);
    lo -= 3.0 * fit->h_x;
    hi += 3.0 * fit->h_x;
    out->x_lo = to_linear(fit->space, lo);
    out->x_hi = to_linear(fit->space, hi);
    const double xg = use_log ? (x_at > 0 ? log(x_at) : -(double)INFINITY) : x_at;
    out->x_fit = xg;
    if (!(xg >= lo && xg <= hi))
        return STATUS_OK;
    out->in_range = true;
    if (fit->binned)
        assign_bins(ws, ws->c, d);
    point_mixture(ws, d, xg, fit->h_x, fit->beta, fit->sigma_c, fit->binned, &mx);
    /* start from the grid point nearest in fitting space */
    size_t near = 0;
    for (size_t i = 1; i < NQ; i++) {
        if (fabs(fit->x_grid_fit[i] - xg) < fabs(fit->x_grid_fit[near] - xg))
            near = i;
    }
    const double start[3] = {fit->q05_fit[near], fit->q50_fit[near], fit->q95_fit[near]};
    enum status rc = solve_point(&mx, all, start, NULL, q);
    if (rc != STATUS_OK)
        return error_set(err, rc, "kde at x: the root finder failed");
    out->q05 = to_linear(fit->space, q[0]);
    out->q50 = to_linear(fit->space, q[1]);
    out->q95 = to_linear(fit->space, q[2]);
    if (isfinite(y_at)) {
        double g, g1, g2;
        if (use_log && !(y_at > 0)) {
            out->cdf = 0.0;
            return STATUS_OK;
        }
        const double yf = use_log ? log(y_at) : y_at;
        mixture_eval(&mx, yf, 0.0, &g, &g1, &g2);
        out->cdf = g;
        if (isfinite(z)) {
            mixture_eval(&mx, yf + fit->sigma_c * z, 0.0, &g, &g1, &g2);
            out->pit = g;
        }
    }
    return STATUS_OK;
}
