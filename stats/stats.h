/* stats.h: the numbers of docs/method.md §1 (the grid), §3 (system-wide volume over a
 * job's I/O) and §5 (associations), on plain arrays. No SQL, HTTP, JSON, files or
 * clocks here. */
#ifndef IOCONTEND_STATS_H
#define IOCONTEND_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/common.h"

/* ---- the grid and the system-wide series (docs/method.md §1) ---------------------- */

/* A series on the grid T_j = origin_s + j·delta_s: element i is interval
 * j = j_first + i, i.e. (T_{j-1}, T_j]. */
struct stats_series {
    double delta_s;  /* Δ, seconds */
    double origin_s; /* 0 on the base grid; phase·Δ after a phased coarsening */
    int64_t j_first; /* grid index of element 0 */
    size_t n;        /* intervals */
    double *r, *w;   /* read / write bytes per second */
    double *ro, *wo; /* read / write operations per second; NAN when unknown */
    /* The queue (docs/method.md §11); NAN where a contributing device lacks it. */
    double *q;              /* Q_i: Σ over the devices of aqu-sz, requests */
    double *u;              /* U_i: the mean over the devices of %util / 100 */
    double *aw_num;         /* Σ over the devices of r/s·r_await + w/s·w_await, s/s */
    double *aw_den;         /* Σ over the devices of r/s + w/s: AW_i = aw_num / aw_den */
    unsigned char *present; /* 1: every server reported the interval; 0: a hole */
    /* Seconds of the interval's base intervals that the gap rule filled
     * (stats_series_fill); 0 everywhere on a series it did not fill. */
    double *filled_s;
};

/* A new series of n intervals (origin 0), all holes, rates 0. NULL: no memory. */
struct stats_series *stats_series_new(double delta_s, int64_t j_first, size_t n);
void stats_series_free(struct stats_series *s);

/* The samples of one (server, device): sample i covers
 * (end_s[i] - delta_s, end_s[i]], end_s already shifted by the clock offset θ. */
struct stats_stream {
    size_t server;         /* index of the server the device belongs to */
    const double *end_s;   /* ascending */
    const double *r, *w;   /* bytes/s */
    const double *ro, *wo; /* ops/s, or NULL / NAN when unavailable */
    /* The queue columns as printed (docs/method.md §11), each NULL / NAN when unknown:
     * aqu-sz, %util, r_await and w_await (ms), and where those two are missing the
     * combined await (ms) with ops_total (r/s + w/s or tps) as its weight. */
    const double *aqu_sz, *util_pct;
    const double *r_await_ms, *w_await_ms, *await_ms, *ops_total;
    size_t n;       /* samples */
    double delta_s; /* the stream's own Δ (median stamp difference) */
};

/* Builds the system-wide series (docs/method.md §1) on the grid of delta_s from the
 * streams of n_servers servers: a sample whose end lies within Δ/4 of a grid point
 * is that grid interval; otherwise its volume is split over the grid intervals it
 * overlaps in proportion to the overlap. A grid interval is present when every
 * server has it fully covered; rates are summed over all streams. STATUS_INVALID
 * when a stream's Δ and delta_s are not multiples of one another. *out is new.
 * Details (stats/series.c): the snap needs the stream's Δ equal to delta_s; a server
 * covers an interval when each of its streams does, and a server with no stream
 * never does; the series spans the first to the last interval any sample touches;
 * a sample whose r or w is not finite is left out (a hole, never a zero); ro / wo
 * are NAN where a contributing stream has none, and so are q, u, aw_num and aw_den
 * (a sample's AW weight is r/s + w/s with r_await / w_await, else ops_total with
 * await; u is the sum of %util / 100 over the n_streams streams divided by
 * n_streams). A hole's rates are the partial sums and mean nothing. No usable sample
 * gives n = 0. STATUS_INVALID also for a server index >= n_servers, end_s not strictly
 * ascending or not finite, a Δ <= 0. */
enum status stats_series_build(const struct stats_stream *streams, size_t n_streams,
                               size_t n_servers, double delta_s,
                               struct stats_series **out, struct error *err) MUST_CHECK;

/* One file system's series as ingest keeps it (docs/method.md §1): the sums over
 * the devices of grid intervals j_lo … j_hi only. s->u is the sum of %util / 100
 * (the mean is u / n_devices); s->present[i] is 1 when every expected device covers
 * interval i fully, where a device is expected when a usable sample of it reaches
 * the range. devices[i] and servers[i] count the devices and the servers (all of
 * whose expected devices do) that cover interval i fully. */
struct stats_series_sums {
    struct stats_series *s;
    uint32_t *devices, *servers; /* per interval */
    size_t n_devices, n_servers; /* expected in the range */
};

/* The sums of the streams of n_servers servers over grid intervals j_lo … j_hi on
 * the grid of delta_s: the placement of stats_series_build, pieces outside the range
 * left out. The streams of one server are adjacent. STATUS_INVALID as
 * stats_series_build, for streams of a server apart, j_hi < j_lo or a range of 2^40
 * intervals or more; STATUS_NOMEM. *out is new. */
enum status stats_series_sum_range(const struct stats_stream *streams, size_t n_streams,
                                   size_t n_servers, double delta_s, int64_t j_lo,
                                   int64_t j_hi, struct stats_series_sums **out,
                                   struct error *err) MUST_CHECK;
void stats_series_sums_free(struct stats_series_sums *sums);

/* The gap rule at the base interval (docs/method.md §3, "Gaps"): each run of at most
 * fill_max missing intervals with a present interval on both sides is filled, in
 * place, by linear interpolation of every rate (R, W, RO, WO, Q, U, AW's numerator
 * and denominator) between those two neighbours; the interval is then present and
 * its filled_s is Δ. A longer run, or one at either end of s, stays a hole. A rate
 * NAN at a neighbour (RO, WO or the queue unknown) stays NAN. fill_max = 0 changes
 * nothing. Returns the number of intervals filled. */
size_t stats_series_fill(struct stats_series *s, unsigned fill_max);

/* Granularity k with phase φ (docs/method.md §6): coarse interval J merges fine
 * intervals kJ + φ + 1 … kJ + φ + k and ends at (kJ + φ + k)·Δ; it is a hole when more
 * than xff·k of them are missing (a fine interval past either end of fine is
 * missing; xff = 0: a hole if any is), else its rate is the mean of the fine rates
 * present, and so are Q, U, and AW's numerator and denominator (AW is then
 * request-weighted); its filled_s is the sum of theirs. Needs 0 <= phase < k and
 * 0 <= xff < 1. *out is new,
 * with delta_s = k·Δ and origin_s = fine->origin_s + phase·Δ. On that grid §6's
 * interval J is grid interval J + 1 (it ends at origin_s + (J + 1)·kΔ). Coarse
 * intervals that reach past either end of fine are kept (holes unless xff allows).
 * STATUS_INVALID for k = 0, phase >= k, xff outside [0, 1) or no fine; STATUS_NOMEM. */
enum status stats_series_coarsen(const struct stats_series *fine, unsigned k,
                                 unsigned phase, double xff, struct stats_series **out,
                                 struct error *err) MUST_CHECK;

/* ---- per-job volume metrics (docs/method.md §3) ------------------------------------ */

enum stats_exclusion {
    EXCL_NONE = 0,
    EXCL_HOLE,
    EXCL_NO_IO,
    EXCL_NO_MONITORED_IO,
    EXCL_INCOMPLETE_LOG,
    EXCL_NONFINITE,
    EXCL_NONPOSITIVE_IN_LOG_SPACE,
    EXCL_NO_TRACE, /* the _x family: the job has no DXT trace (docs/method.md §10) */
    EXCL_INCOMPLETE_DXT, /* the _x family: its trace is incomplete */
    EXCL_NO_QUEUE_DATA,  /* q_d, u_d, await_d: a source without aqu-sz or %util (§11) */
    EXCL_COUNT
};

/* "hole", "no_io", … as in docs/interfaces.md; "" for EXCL_NONE. */
const char *stats_exclusion_name(enum stats_exclusion e);

struct stats_window {
    double start_s, end_s; /* absolute epoch seconds, start <= end */
    bool monitored;        /* on a monitored file system (for A^I) */
};

struct stats_job {
    double start_s, end_s;              /* T_start, T_end, absolute */
    const struct stats_window *windows; /* borrowed */
    size_t n_windows;                   /* windows */
};

struct stats_job_volume {
    enum stats_exclusion psi_excl;    /* for psi_*, psi_o_* */
    double psi_read, psi_write;       /* bytes (eq. 2) */
    double psi_o_read, psi_o_write;   /* operations (eq. 3); NAN when RO/WO unknown */
    double filled_s;                  /* Σ filled_s over the span's intervals (§3) */
    enum stats_exclusion d_excl;      /* for m, t_d, psi_d_*, psi_do_* */
    size_t m;                         /* |A| */
    double t_d;                       /* m·Δ */
    double psi_d_read, psi_d_write;   /* eq. 4 */
    double psi_do_read, psi_do_write; /* eq. 4 on RO, WO: operations */
    double s_d;                       /* |S^D|, seconds */
    enum stats_exclusion i_excl;      /* for m_i, t_i, psi_i_* */
    size_t m_i;                       /* |A^I| */
    double t_i;                       /* m_i·Δ */
    double psi_i_read, psi_i_write;   /* eq. 4 over A^I */
    enum stats_exclusion q_excl;      /* for q_d, u_d, await_d: d_excl, else
                                         EXCL_NO_QUEUE_DATA when Q or U is unknown */
    double q_d;                       /* mean of Q_i over A, requests */
    double u_d;                       /* mean of U_i over A, a fraction */
    double await_d;                   /* Σ_A aw_num / Σ_A aw_den, seconds; NAN when no
                                         request or no await over A */
};

/* Computes Ψ, Ψ^O, filled_s, A, m, T^D, Ψ^D, Ψ^{DO}, A^I, T^I, Ψ^I and, over A, the queue
 * metrics q_d, u_d, await_d (docs/method.md §11) of job over series s
 * (docs/method.md §3), each family with its exclusion reason. scratch must hold
 * 2·job->n_windows size_t (no allocation here; may be NULL without windows).
 * Cost O(w log w + m + n) for w windows, m active and n span intervals.
 * Excluded values are NAN. EXCL_HOLE: a needed interval is outside s or not
 * present (Ψ: the n span intervals; D: A; I: A^I); m, t_d, s_d (m_i, t_i) need only
 * the grid and stay set beside it. EXCL_NO_IO: no window (D, I; m = 0);
 * EXCL_NO_MONITORED_IO: windows, none monitored (I); EXCL_NONFINITE: a read or write
 * rate of a needed interval is not finite. Unknown RO / WO give NAN Ψ^O, Ψ^{DO}
 * without an exclusion. A zero-length job (start_s == end_s) spans the one interval
 * that starts at or before it, Ψ = 0. Windows are not clipped to the job's span.
 * STATUS_INVALID: a missing pointer, a time not finite, start after end. */
enum status stats_job_volume(const struct stats_series *s, const struct stats_job *job,
                             size_t *scratch, struct stats_job_volume *out,
                             struct error *err) MUST_CHECK;

/* Every value of v NAN (m, m_i 0), each family excluded for reason e (EXCL_NONE: as
 * stats_job_volume starts); for a job that has no volume metrics. */
void stats_job_volume_none(struct stats_job_volume *v, enum stats_exclusion e);

/* The measure of the union of n windows, seconds: the time covered by at least one
 * [start_s, end_s] (docs/method.md §10's t_x, t_x_read, t_x_write). Overlapping and
 * nested windows count once; a zero-length window adds nothing. Sorts windows in
 * place by start (pass a copy). No allocation; O(n log n). n = 0 gives 0.
 * STATUS_INVALID: windows NULL with n > 0, a time not finite, a start after its end
 * (*measure_s is then NAN). */
enum status stats_union_measure(struct stats_window *windows, size_t n, double *measure_s,
                                struct error *err) MUST_CHECK;

/* ---- derived job metrics: ν, B^D, τ (docs/method.md §3) ---------------------------- */

/* What the derived metrics need of the log (docs/method.md §2). */
struct stats_job_log {
    double t;                            /* T = T^U_M + T^U_RW + T^S, seconds */
    int64_t eta_read, eta_write;         /* η, bytes, every file system */
    int64_t eta_mon_read, eta_mon_write; /* η^mon, bytes, monitored file systems */
};

/* Bits of stats_job_derived.negative: a value below zero. Server and client bytes
 * differ (caches, read-ahead, RAID), so such values are kept, never clipped, and
 * flagged so that a reader can tell them apart. */
enum stats_negative {
    NEGATIVE_NU_READ = 1u << 0,
    NEGATIVE_NU_WRITE = 1u << 1,
    NEGATIVE_NU_D_READ = 1u << 2,
    NEGATIVE_NU_D_WRITE = 1u << 3,
    NEGATIVE_B_D = 1u << 4,
    NEGATIVE_B_X = 1u << 5 /* set by analysis/ for B^X (docs/method.md §10) */
};

/* The metric name of one NEGATIVE_* bit ("nu_read", …, "b_d"); "" for any other. */
const char *stats_negative_name(unsigned bit);

struct stats_job_derived {
    enum stats_exclusion nu_excl;   /* for nu_read, nu_write: Ψ's (psi_excl) */
    double nu_read, nu_write;       /* ν = Ψ − η^mon, bytes */
    enum stats_exclusion nu_d_excl; /* for nu_d_*: Ψ^D's (d_excl) */
    double nu_d_read, nu_d_write;   /* Ψ^D − η^mon, bytes */
    enum stats_exclusion b_d_excl;  /* Ψ^D's; EXCL_NONFINITE when |S^D| = 0 */
    double b_d;                     /* B^D, bytes per second */
    enum stats_exclusion tau_excl;  /* EXCL_NO_IO when η = 0; EXCL_NONFINITE: T */
    double tau;                     /* τ = T / (η / 2^30), seconds per GiB */
    unsigned negative;              /* NEGATIVE_* bits of the values below zero */
};

/* Every derived value NAN, each excluded for reason e. */
void stats_job_derived_none(struct stats_job_derived *d, enum stats_exclusion e);

/* ν, ν^D, B^D and τ of one job (docs/method.md §3) from its volume metrics v (over the
 * series of the analysis' scope) and its log metrics: ν = Ψ − η^mon per direction,
 * ν^D = Ψ^D − η^mon, B^D = (Ψ^D_R + Ψ^D_W − η^mon_R − η^mon_W) / |S^D| (|S^D| is
 * v->s_d), τ = T / ((η_R + η_W) / 2^30) with η over every file system. A metric whose
 * input family is excluded is NAN with that family's reason; negative ν, ν^D, B^D are
 * kept and flagged in out->negative. No allocation. STATUS_INVALID for a missing
 * pointer, a negative byte count or η^mon above η (out is then all NAN, excluded as
 * EXCL_NONFINITE). */
enum status stats_job_derived(const struct stats_job_volume *v,
                              const struct stats_job_log *log,
                              struct stats_job_derived *out,
                              struct error *err) MUST_CHECK;

/* ---- associations (docs/method.md §5) ---------------------------------------------- */

enum stats_reason {
    REASON_NONE = 0,
    REASON_D_BELOW_MIN,
    REASON_CONSTANT_X,
    REASON_CONSTANT_Y,
    REASON_NOT_COMPUTED
};

/* "d_below_min", "constant_x", "constant_y", "not_computed"; "" for REASON_NONE. */
const char *stats_reason_name(enum stats_reason r);

struct stats_coef {
    double value;             /* meaningful when reason == REASON_NONE */
    enum stats_reason reason; /* why value is null */
};

enum stats_method {
    METHOD_PEARSON = 1u << 0,
    METHOD_SPEARMAN = 1u << 1,
    METHOD_DCOR = 1u << 2, /* dcor_v and dcor2_u */
    METHOD_MI = 1u << 3,   /* mi_ksg_nats and mi_linfoot */
};

/* The default seed of every seeded method (docs/method.md §5). */
#define STATS_DEFAULT_SEED UINT64_C(20240601)

struct stats_assoc_opts {
    unsigned methods; /* METHOD_* bits */
    size_t d_min;     /* below it every coefficient is d_below_min */
    uint64_t seed;    /* KSG jitter */
    bool mi_jitter;   /* false: KSG without jitter (--mi-jitter 0) */
};

struct stats_assoc {
    size_t d;                            /* jobs */
    struct stats_coef pearson, spearman; /* docs/method.md §5 */
    struct stats_coef dcor_v, dcor2_u;   /* dcor2_u needs d >= 4 (else d_below_min) */
    struct stats_coef mi_ksg_nats, mi_linfoot;
};

/* The METHOD_* bits this build computes. */
unsigned stats_methods_available(void);

struct stats_ws; /* scratch for up to d_max jobs */

/* NULL: no memory. For d_max from 2^14 to 2^18 the workspace holds a second set of
 * scratch, and stats_assoc_compute runs KSG on a thread of its own beside the
 * other methods (from d = 2^14 on), the caller's thread taking a share of KSG once
 * they are done: the same results, bit for bit, in about half the time. */
struct stats_ws *stats_ws_new(size_t d_max);
void stats_ws_free(struct stats_ws *ws);
/* The threads stats_assoc_compute uses on d jobs with ws: 1 or 2. */
unsigned stats_ws_threads(const struct stats_ws *ws, size_t d);
/* false: ws's calls stay on the caller's thread (it is true from stats_ws_new). */
void stats_ws_allow_thread(struct stats_ws *ws, bool allow);

/* Pearson's r with two-pass centred sums. STATUS_INVALID when d < 2 or a series is
 * constant (err says which: "constant_x" / "constant_y"), or a value is not
 * finite; *r is then NAN. */
enum status stats_pearson(const double *x, const double *y, size_t d, double *r,
                          struct error *err) MUST_CHECK;

/* Spearman's r of y against x, ties ranked by their average. x and y are borrowed
 * and unchanged. Needs d <= the size ws was made for. STATUS_INVALID as Pearson. */
enum status stats_spearman(const double *x, const double *y, size_t d,
                           struct stats_ws *ws, double *r, struct error *err) MUST_CHECK;

/* The methods asked for (opts->methods) over d jobs, with opts->d_min: below it every
 * coefficient is REASON_D_BELOW_MIN; constant series give REASON_CONSTANT_*.
 * Methods not asked for are REASON_NOT_COMPUTED (also below d_min). d < 2 counts as
 * below d_min whatever d_min is; x constant wins over y constant. STATUS_OK with
 * these reasons; STATUS_INVALID for unknown method bits, missing or non-finite
 * x / y, or Spearman asked with ws NULL or smaller than d. */
enum status stats_assoc_compute(const double *x, const double *y, size_t d,
                                const struct stats_assoc_opts *opts, struct stats_ws *ws,
                                struct stats_assoc *out, struct error *err) MUST_CHECK;

/* ---- the granularity sweep's verdicts (docs/method.md §6) ------------------------- */

/* One coefficient over the sweep: c[i] at granularity k[i]·Δ, k ascending from 1;
 * NAN where it was undefined at that k. */
struct stats_sweep_curve {
    const unsigned *k;
    const double *c;
    size_t n;
};

/* Falling: c(k_last) < c(1) − drop (docs/method.md: drop = 0.1) and Spearman's r of
 * (k, c_k) over the defined points <= rho_max (−0.7). False when c(1) or c(k_last)
 * is undefined or fewer than 3 points are defined. STATUS_INVALID for a curve that
 * does not start at k = 1 or whose k do not ascend. */
enum status stats_sweep_falling(const struct stats_sweep_curve *curve, double drop,
                                double rho_max, bool *falling,
                                struct error *err) MUST_CHECK;

/* The recommended sampling interval: the largest k such that for every k' <= k and
 * every curve, |c(k') − c(1)| <= tol (docs/method.md: 0.05). An undefined c(k') ends the
 * run (nothing can be said beyond it); all curves share one k list. *k_out = 0 when
 * some c(1) is undefined. STATUS_INVALID as stats_sweep_falling, or curves with
 * different k. */
enum status stats_sweep_recommended(const struct stats_sweep_curve *curves,
                                    size_t n_curves, double tol, unsigned *k_out,
                                    struct error *err) MUST_CHECK;

/* ---- significance (docs/method.md §5 "Significance") ------------------------------ */

/* The most caller-supplied statistics one stats_signif_compute call tests. */
#define STATS_SIGNIF_EXTRA_MAX 4
/* The largest n_perm and n_boot accepted. */
#define STATS_SIGNIF_B_MAX 10000000u

/* A statistic tested beside the core coefficients on the same permutations (the
 * extension point for the KDE's width_ratio). fn computes it on x and y over d jobs
 * into *out (the value, or REASON_* when undefined) and returns STATUS_OK, or a
 * status that stops stats_signif_compute (fn sets err). x and y are borrowed for the
 * call only: y is a permuted copy, overwritten afterwards. The test reads
 * |T − centre|: centre is the statistic's value under independence (0 for a
 * correlation, 1 for width_ratio), and the noise floor is in units of |T − centre|. */
struct stats_signif_stat {
    const char *name; /* "width_ratio", for messages (borrowed) */
    enum status (*fn)(const double *x, const double *y, size_t d, void *ctx,
                      struct stats_coef *out, struct error *err);
    void *ctx;     /* borrowed, handed to fn (e.g. the KDE's workspace) */
    double centre; /* the value under independence */
};

struct stats_signif_opts {
    struct stats_assoc_opts assoc; /* METHOD_* to test, d_min, KSG seed and jitter */
    size_t n_perm;                 /* permutations of y, B (999); 0: no p-values */
    size_t n_boot;  /* pair resamples for pearson's, spearman's BCa CI (2000); 0: none */
    double level;   /* the CI's coverage, in (0, 1) (0.95) */
    double floor_q; /* the noise floor's quantile of |T*|, in [0, 1] (0.95) */
    uint64_t seed;  /* permutations and resamples: MT19937, low 32 bits (20240601) */
    const struct stats_signif_stat *extra; /* borrowed; n_extra of them */
    size_t n_extra;                        /* <= STATS_SIGNIF_EXTRA_MAX */
    /* Borrowed, NULL: never. Another thread sets it to stop the permutations and
     * resamples between two of them (STATUS_CANCELLED): stats/ has no clock, so a
     * deadline or a departed client is the caller's to notice. */
    const atomic_bool *cancel;
};

/* docs/method.md's defaults: every available method, d_min 10, KSG jitter on, both seeds
 * STATS_DEFAULT_SEED, B = 999 permutations, 2000 resamples, level and floor 0.95, no
 * extra statistic. */
struct stats_signif_opts stats_signif_opts_default(void);

/* One coefficient's significance. c is the statistic's centre (0 for the core
 * coefficients). */
struct stats_signif_coef {
    double value;             /* T, the coefficient on the data (as stats_assoc) */
    enum stats_reason reason; /* REASON_NONE: value set, and p_value when n_perm > 0 */
    double p_value;           /* (1 + #{|T* - c| >= |T - c|}) / (n_perm + 1) */
    double noise_floor;       /* type-7 quantile floor_q of the |T* - c| */
    size_t n_perm;            /* permutations where T* was defined (all, in practice) */
    double ci_low, ci_high;   /* BCa CI of pearson, spearman; NAN otherwise */
    double level;             /* the CI's level; NAN without a CI */
    size_t n_boot;            /* resamples where the coefficient was defined */
};

struct stats_signif {
    size_t d;      /* jobs */
    uint64_t seed; /* opts->seed, to store with the result */
    struct stats_signif_coef pearson, spearman, dcor_v, mi_linfoot;
    struct stats_signif_coef extra[STATS_SIGNIF_EXTRA_MAX]; /* as opts->extra[i] */
};

/* The significance of every coefficient asked (docs/method.md §5): pearson, spearman,
 * dcor_v (METHOD_DCOR), mi_linfoot (METHOD_MI) and each opts->extra statistic.
 * Permutation test: y is shuffled n_perm times (gsl_ran_shuffle on MT19937 seeded with
 * opts->seed; one shuffle serves every statistic, the core ones by one
 * stats_assoc_compute call); |T* − c| counts as >= |T − c| within a relative 1e-12, so
 * that values equal but for rounding are ties; the noise floor is the type-7 (linear
 * interpolation, numpy's default) quantile floor_q of |T* − c|. BCa CI (Efron 1987)
 * for pearson and spearman from n_boot pair resamples (the generator reseeded with
 * opts->seed): z0 = Φ⁻¹ of the share of resampled values below T, ties counted half
 * (as scipy.stats.bootstrap); acceleration from the leave-one-out values
 * (stats_jackknife); the interval is the type-7 quantiles of the resampled values at
 * Φ(z0 + (z0 + z)/(1 − a(z0 + z))), z = ±Φ⁻¹((1 − level)/2). No CI (NAN) when
 * d < 3, fewer than 2 resamples are defined, or every resample lies on one side of T.
 * An undefined coefficient (below d_min, constant x or y: stats_assoc_compute's
 * reasons, also given to the extra statistics without calling them) gets no p-value
 * and no CI; one not asked is REASON_NOT_COMPUTED. mi_linfoot is 0 when KSG clips
 * I at 0 (about half of null groups) and then p = 1: valid, not uniform. dcor2_u and
 * mi_ksg_nats get no p-value (mi_linfoot's is mi_ksg_nats's: it is monotone in it).
 * Results depend only on x, y,
 * opts: the same seed gives the same numbers. x and y are borrowed and unchanged;
 * ws (not NULL, for >= d jobs) is scratch. Allocates once at entry (never in the
 * loops): 5·d + (stats tested)·n_perm + 2·n_boot doubles and one generator. Cost:
 * n_perm·(stats_assoc_compute of the methods asked + the extras) + n_boot·(Pearson
 * and Spearman on d jobs) + O(d log d); d = 10^4, all four methods, B = 999: about
 * 6 s (KSG is 3/4 of it), the 2000 resamples 1.3 s. STATUS_INVALID as
 * stats_assoc_compute, ws NULL or too small, n_extra too large or an extra without
 * fn, level outside (0, 1), floor_q outside [0, 1], n_perm or n_boot above
 * STATS_SIGNIF_B_MAX; STATUS_NOMEM; an extra's fn's status; STATUS_CANCELLED once
 * *opts->cancel is set (checked before each permutation and resample; *out is then
 * incomplete). */
enum status stats_signif_compute(const double *x, const double *y, size_t d,
                                 const struct stats_signif_opts *opts,
                                 struct stats_ws *ws, struct stats_signif *out,
                                 struct error *err) MUST_CHECK;

/* Leave-one-out (jackknife) Pearson and Spearman: pearson_loo[k] and spearman_loo[k]
 * are r and Spearman's r of the d − 1 jobs other than k (NAN where those are
 * constant). O(d log d), no allocation: Pearson by downdating the centred sums
 * (recomputed directly for a job that carries nearly all of a variance), Spearman
 * from the full ranks, each job's rank shift and its count of concordant minus
 * discordant pairs (a Fenwick tree over the y ranks). The outputs hold d each and
 * alias nothing. STATUS_INVALID: d < 3, d above ws's size, a missing pointer, a
 * value not finite, x or y constant ("constant_x", "constant_y"). */
enum status stats_jackknife(const double *x, const double *y, size_t d,
                            struct stats_ws *ws, double *pearson_loo,
                            double *spearman_loo, struct error *err) MUST_CHECK;

/* ---- KDE credible bands (docs/method.md §5 `kde`) ---------------------------------- */

#define STATS_KDE_GRID      128  /* density grid points per axis */
#define STATS_KDE_POINTS    16   /* x values of the conditional quantiles */
#define STATS_KDE_EXACT_MAX 5000 /* above it the conditional quantiles are binned */
#define STATS_KDE_Y_BINS    512  /* y bins of the binned quantiles */
#define STATS_KDE_D_MIN     10   /* the default d_min */

enum stats_kde_space {
    KDE_SPACE_AUTO = 0, /* log when every x and y is > 0, else linear */
    KDE_SPACE_LOG,      /* fit (ln x, ln y) */
    KDE_SPACE_LINEAR    /* fit (x, y) as they are (the `paper` profile) */
};

enum stats_kde_kernel {
    KDE_KERNEL_PRODUCT = 0, /* diag(h_x², h_y²), the default */
    KDE_KERNEL_FULL         /* scipy's gaussian_kde: H = d^(−1/3)·Σ̂ */
};

enum stats_kde_bandwidth {
    KDE_BW_NORMAL = 0, /* the normal reference h = s·d^(−1/6) per axis, the default */
    KDE_BW_PLUGIN      /* Sheather–Jones per axis (stats_bw_sj); product kernel only */
};

struct stats_kde_opts {
    enum stats_kde_space space;
    enum stats_kde_kernel kernel;
    size_t d_min;    /* below it (and below 2) the result is d_below_min */
    bool no_density; /* true: skip (a), density NAN (permutation tests need only (d)) */
    enum stats_kde_bandwidth bandwidth;
};

/* "log", "linear", "auto". */
const char *stats_kde_space_name(enum stats_kde_space s);

/* "normal", "plugin". */
const char *stats_kde_bandwidth_name(enum stats_kde_bandwidth b);

/* One KDE fit. "Fitting space" is (ln x, ln y) for KDE_SPACE_LOG, (x, y) for linear;
 * "linear units" are those of the input. About 140 kB (the density grid): allocate
 * it, do not put it on a small stack. When reason != REASON_NONE, only d, reason,
 * space, kernel and, for a constant series, (c) are set; everything else is NAN. */
struct stats_kde {
    size_t d;                     /* jobs */
    enum stats_reason reason;     /* REASON_NONE, or why nothing was fitted */
    enum stats_kde_space space;   /* KDE_SPACE_LOG or KDE_SPACE_LINEAR: the one used */
    enum stats_kde_kernel kernel; /* as asked */
    enum stats_kde_bandwidth bandwidth; /* as asked */
    bool binned;     /* quantiles from STATS_KDE_Y_BINS bins (d > 5000) */
    double h_x, h_y; /* kernel sd per axis, fitting space: s·d^(−1/6), or stats_bw_sj */
    double beta; /* conditional slope Σ̂_xy/Σ̂_xx (full); 0 for the product kernel */
    double sigma_c; /* conditional kernel sd σ_c (full); h_y for the product kernel */
    /* (a) f(grid_x0 + i·grid_dx, grid_y0 + j·grid_dy) = density[i][j], per unit of
     * fitting space squared; the axes span [min − 3h, max + 3h] in fitting space */
    double grid_x0, grid_dx, grid_y0, grid_dy;
    double density[STATS_KDE_GRID][STATS_KDE_GRID];
    /* (b) at the type-7 quantiles of the fitted x at (i + 0.5)/16 */
    double x_grid_fit[STATS_KDE_POINTS]; /* fitting space */
    double q05_fit[STATS_KDE_POINTS];    /* fitting space: F(q05 | x) = 0.05 */
    double q50_fit[STATS_KDE_POINTS];    /* fitting space */
    double q95_fit[STATS_KDE_POINTS];    /* fitting space */
    double x_grid[STATS_KDE_POINTS];     /* linear units */
    double q05[STATS_KDE_POINTS];        /* linear units */
    double q50[STATS_KDE_POINTS];        /* linear units */
    double q95[STATS_KDE_POINTS];        /* linear units */
    /* (c) raw y, linear units, sd with d − 1 */
    double mean, sd, band_low, band_high; /* band: mean ∓ 1.645·sd */
    /* (d) */
    double marg_q05_fit, marg_q95_fit; /* Q05, Q95 of the KDE's marginal of y, fitting */
    double marg_q05, marg_q95;         /* the same in linear units */
    double width_ratio;       /* mean of (q95 − q05) / (Q95 − Q05), linear units */
    double paper_width_ratio; /* mean (q95 − q05) / (2·1.645·sd), linear units */
};

struct stats_kde_ws; /* scratch for up to d_max jobs: 56·d_max + 292·min(d_max, 5000)
                        bytes (10·d_max more above 5000) + 4.1 MB; also what
                        stats_kde_width_ratio_stat keeps between calls */

/* NULL: no memory. */
struct stats_kde_ws *stats_kde_ws_new(size_t d_max);
void stats_kde_ws_free(struct stats_kde_ws *ws);

/* The KDE credible bands of y given x over d jobs (docs/method.md §5 `kde`, (a)–(d)).
 * opts NULL: auto space, product kernel, d_min STATS_KDE_D_MIN, with the density.
 * x, y borrowed and unchanged; ws must have been made for at least d jobs; *out is
 * written whole. Bandwidths: h = s·d^(−1/6) per axis (s with d − 1, fitting space);
 * kernel=full uses H = d^(−1/3)·Σ̂ (h_x, h_y are then sqrt(diag H)). bandwidth=plugin:
 * h_x, h_y = stats_bw_sj of the fitted x and of the fitted y, each axis on its own
 * (a univariate rule, rate d^(−1/5), not a bivariate plug-in); with kernel=full it is
 * STATUS_INVALID (decision: Σ̂'s shape has no one-axis plug-in), and so is a fitted
 * axis stats_bw_sj refuses (err from it).
 * (a) Linear binning and FFT convolution with the kernel at every grid offset (no
 * truncation, no wrap-around). The binning grid is R = 1..4 times finer than the
 * output, R the least that makes its step <= 0.1 of the kernel's sd along each axis
 * (the other held fixed), and the kernel's variance is reduced by step²/6 per axis,
 * the variance linear binning adds on average: within 1e-3 of the maximum (5e-4
 * seen) wherever R <= 4 suffices, i.e. grid_dx <= 0.4 of that sd; heavier tails,
 * which stretch the axes, are coarser. (b) F(y|x) = Σ w_k(x)·Φ((y − μ_k(x))/σ),
 * w_k ∝ φ((x − x_k)/h_x) by log-sum-exp, μ_k = y_k (product) or y_k + β(x − x_k)
 * (full), σ = h_y or σ_c, the components with w_k below 1e-17 of the largest left
 * out, solved for F = p by Halley's method kept inside docs/method.md's bracket (a
 * bisection when a step leaves it or stalls) until a step is below 1e-10·σ, where
 * the convergence is cubic; each quantile starts from the previous point's, moved by
 * F's power series there, the first from the marginal's (1e-13·h_y from statsmodels
 * seen); exact for d <= STATS_KDE_EXACT_MAX; above, the offsets y_k − β·x_k go
 * into 512 equal bins, each bin one normal with its members' weighted mean and
 * variance (+ σ²), x weights exact (the marginal of y likewise, unweighted; 1e-7·h_y
 * seen). Quantiles go back with exp in log space. Undefined cases are STATUS_OK with
 * out->reason: REASON_D_BELOW_MIN (d < max(d_min, 2)), REASON_CONSTANT_X,
 * REASON_CONSTANT_Y (constant in fitting space; x wins). STATUS_INVALID: a missing
 * pointer, an unknown space or kernel, d above ws's size, a value not finite,
 * space=log with a value <= 0, or kernel=full with x and y collinear
 * (σ_c² <= 1e-12·H_yy, a singular kernel; err says "singular"). STATUS_INTERNAL: GSL
 * failed. No allocation. Cost: (a) O(d) + (R² + 1) 256² FFTs, 17 ms at d = 10^5
 * (R = 4; full kernel 40 ms); (b) O(48·d·it) Φ and φ exact, it ≈ 1–2 full
 * evaluations a quantile, about 3 ms at d = 1000; binned O(16·d) exps +
 * O(16·512·it), 0.2 s at d = 10^6. */
enum status stats_kde_compute(const double *x, const double *y, size_t d,
                              const struct stats_kde_opts *opts, struct stats_kde_ws *ws,
                              struct stats_kde *out, struct error *err) MUST_CHECK;

/* What stats_kde_width_ratio_stat needs: all borrowed. */
struct stats_kde_stat_ctx {
    struct stats_kde_opts opts; /* no_density is forced on */
    struct stats_kde_ws *ws;    /* for at least d jobs; keeps the last fit's x side */
    struct stats_kde *scratch;  /* overwritten by each call that fits afresh */
};

/* width_ratio as a permutation-test statistic (a stats_signif_stat's fn, centre 1):
 * out->value is the width_ratio of stats_kde_compute without the density, or
 * out->reason its reason. ctx is a struct stats_kde_stat_ctx. A call whose d and
 * options equal the last fit's, x equal bit for bit and y a permutation of its y
 * (compared sorted, O(d log d)) reuses what a permutation leaves unchanged, kept in
 * ctx->ws: the fitted x, the 16 points and their x weights, h_x and the marginal's
 * Q05, Q95; only q05 and q95 are solved, and ctx->scratch is not written. Any
 * other call fits afresh into ctx->scratch and keeps that fit (exact path only:
 * d <= STATS_KDE_EXACT_MAX). The value equals stats_kde_compute's on the same data
 * within 1e-12 relative (the marginal's quantiles summed in another order; 1e-14
 * seen). 0.6 ms a permutation at d = 416, 3 ms at 2000. Statuses as
 * stats_kde_compute. */
enum status stats_kde_width_ratio_stat(const double *x, const double *y, size_t d,
                                       void *ctx, struct stats_coef *out,
                                       struct error *err) MUST_CHECK;

/* A KDE fit evaluated at one x away from its 16 points (stats_kde_at). */
struct stats_kde_point {
    bool in_range;        /* x within [min − 3h_x, max + 3h_x] of the fitted x, the
                             density grid's span (fitting space) */
    double x_lo, x_hi;    /* that span, linear units */
    double x_fit;         /* x in fitting space (−inf for x <= 0 in log space) */
    double q05, q50, q95; /* F(q | x) = 0.05, 0.5, 0.95, linear units; NAN out of range */
    double cdf; /* F(y | x) (docs/method.md §5 (b)); NAN out of range or no y */
    double pit; /* F(y + σ·z | x), σ the kernel's sd of y (h_y, or σ_c):
                   the randomized percentile; NAN without z */
};

/* fit, made by stats_kde_compute over these d pairs (x, y), at x_at (linear units):
 * the conditional q05, q50, q95 of y there and, when y_at is finite, F(y_at | x_at)
 * (0 for y_at <= 0 in log space) and, when z is finite too, F at y_at moved z kernel
 * sds in fitting space: a draw from y_at's own kernel, which makes the percentile of
 * a tied or lattice-valued y (t_d = m·Δ) continuous, as the randomized PIT of
 * Czado, Gneiting & Held (2009) does for counts. By the same mixture and root finder as
 * (b) (its space, h_x, β, σ_c and binning), started from the nearest of its 16 points; at
 * one of them the quantiles equal fit's within the root finder's tolerance. Out of the
 * density grid's x span (or x_at <= 0 in log space) only in_range, x_lo, x_hi are
 * set. x, y borrowed; ws for at least d jobs, its arrays overwritten (not the
 * permutation cache's). STATUS_INVALID: a missing pointer, fit unfitted (a reason) or
 * of another d, a value not finite or not > 0 in log space; STATUS_INTERNAL: the root
 * finder failed. No allocation. O(d) plus 3 quantiles of O(d) per iteration. */
enum status stats_kde_at(const double *x, const double *y, size_t d,
                         const struct stats_kde *fit, double x_at, double y_at, double z,
                         struct stats_kde_ws *ws, struct stats_kde_point *out,
                         struct error *err) MUST_CHECK;

/* ---- the plug-in bandwidth (docs/method.md §5 `kde`) ------------------------------- */

#define STATS_BW_BINS 4096 /* linear-binning points of stats_bw_sj's functionals */

struct stats_bw_ws; /* scratch for up to d_max values: 8·d_max bytes + 96 kB */

/* NULL: no memory. */
struct stats_bw_ws *stats_bw_ws_new(size_t d_max);
void stats_bw_ws_free(struct stats_bw_ws *ws);

/* The Sheather–Jones (1991) solve-the-equation bandwidth of a Gaussian kernel for the
 * d values v (borrowed, unchanged), as R's bw.SJ(method = "ste"): pilots from the
 * normal-scale rule with λ = min(s, IQR/1.349) (s when the IQR is 0), then
 * h = [1/(2√π·d·Ŝ(α(h)))]^(1/5) solved by Brent's method to 1e-10 relative, bracketed
 * as R. The functionals Ŝ, T̂ are binned (STATS_BW_BINS points, linear binning; the
 * i = j terms exact), an error of order (range/(4095·g))², g the smallest pilot:
 * against the exact O(d²) sums at d = 50..1000, <= 2e-6 relative on normal and
 * bimodal samples, 6e-5 on a lognormal one in linear units (range ~ 20 sd); more
 * when a few far outliers stretch the range over thousands of bandwidths (fit in log
 * space). R bins coarser (1000 bins of pairwise differences), rounds the pilot
 * constants (1e-4 relative) and stops at 1 % of the bracket: it agrees to ~1e-3.
 * STATUS_INVALID: a missing pointer, d < 2 or above ws's size, a value not finite, v
 * constant, or a sample the functionals cannot be estimated on (T̂ <= 0 or no root: err
 * says so). No allocation. O(d log d) (the IQR's sort) + O(min(d, STATS_BW_BINS)²) +
 * O(STATS_BW_BINS) per solver step: 1.5, 5 and 19 ms at d = 10^3, 10^4, 10^5 (shared
 * machine). */
enum status stats_bw_sj(const double *v, size_t d, struct stats_bw_ws *ws, double *h,
                        struct error *err) MUST_CHECK;

/* ---- coverage (docs/method.md §7) and group tables (§4) ---------------------------- */

/* The activity windows whose bytes the logged jobs account for: borrowed parallel
 * arrays of n windows, read and write windows alike. */
struct stats_coverage_windows {
    const double *start_s, *end_s; /* r_a <= r_b, absolute epoch seconds */
    const double *bytes;           /* bytes read or written in the window, >= 0 */
    size_t n;
};

struct stats_coverage {
    double sum_d_bytes;   /* Σ D_i over the intervals where D_i and S_i are present */
    double sum_s_bytes;   /* Σ S_i over the same intervals */
    double coverage;      /* sum_d / sum_s, not capped at 1; NAN when sum_s is 0 */
    size_t n_both;        /* those intervals */
    double d_total_bytes; /* Σ of every window's bytes, wherever they fell */
};

/* D_i and S_i of docs/method.md §7 on the intervals of s, and the coverage. A window
 * [a, b] with b > a puts bytes·|[a, b] ∩ (T_{i−1}, T_i]| / (b − a) in each interval i
 * it overlaps; a zero-length window puts all its bytes in the interval holding a
 * (T_{i−1} <= a < T_i, as for the active set of §3). D is present on the intervals
 * the logged span [log_start_s, log_end_s] touches (the period the logs cover:
 * outside it nothing is known of the jobs, so a zero there is no fact; decision);
 * S_i = (R_i + W_i)·Δ is present where s is. Outputs, s->n each, element i being
 * interval s->j_first + i: d_bytes[i] = D_i (NAN where D is absent) and s_bytes[i] =
 * S_i (NAN at a hole). Bytes of windows outside s or of absent D count only in
 * d_total_bytes. No allocation; O(n + Σ intervals each window overlaps).
 * STATUS_INVALID: a missing pointer, a window not finite, reversed or with negative
 * bytes, a logged span not finite or reversed, a series with Δ <= 0. */
enum status stats_coverage_compute(const struct stats_series *s,
                                   const struct stats_coverage_windows *w,
                                   double log_start_s, double log_end_s, double *d_bytes,
                                   double *s_bytes, struct stats_coverage *out,
                                   struct error *err) MUST_CHECK;

/* Mean and sd of n values (Tables I, II of the paper). */
struct stats_summary {
    size_t n;    /* values */
    double mean; /* NAN when n = 0 */
    double sd;   /* with n − 1 (gsl_stats_sd); NAN when n < 2 */
};

/* STATUS_INVALID for v NULL with n > 0, a value not finite or out NULL. */
enum status stats_summary_compute(const double *v, size_t n, struct stats_summary *out,
                                  struct error *err) MUST_CHECK;

/* The most bins stats_histogram_compute makes. */
#define STATS_HIST_BINS_MAX 4096

/* A histogram with bins centred on the multiples of its width (Fig. 2: T^D = m·Δ,
 * so with width Δ every bin holds one m and no value sits on an edge): bin k covers
 * [first_edge_s + k·bin_width_s, first_edge_s + (k + 1)·bin_width_s). */
struct stats_histogram {
    double bin_width_s;  /* the width asked, or the least multiple of it that needs
                            at most the bins given */
    double first_edge_s; /* (k_lo − 1/2)·bin_width_s, k_lo·width the bin of the least
                            value; NAN without values */
    size_t n_bins;       /* bins from the least to the greatest value; 0 without */
    struct stats_summary summary; /* of the values */
    double band_low, band_high;   /* mean ∓ 1.645·sd (NAN when sd is) */
};

/* The histogram of n values v (seconds) with bins of width_s (Fig. 2), its counts in
 * counts[0 .. out->n_bins) (counts holds max_bins, 1 <= max_bins; when the values
 * span more than max_bins bins of width_s the width becomes the least multiple of it
 * that needs no more), their mean, sd (n − 1) and mean ∓ 1.645·sd. No allocation.
 * STATUS_INVALID: a missing pointer, width_s not positive and finite, max_bins 0, a
 * value not finite. */
enum status stats_histogram_compute(const double *v, size_t n, double width_s,
                                    size_t *counts, size_t max_bins,
                                    struct stats_histogram *out,
                                    struct error *err) MUST_CHECK;

/* ---- random forest (docs/method.md §5 rf) ------------------------------------------ */

#define STATS_RF_CURVE     256    /* x values of the fitted curve */
#define STATS_RF_TREES     100    /* the default number of trees */
#define STATS_RF_TREES_MAX 100000 /* the most trees one call grows */
#define STATS_RF_D_MIN     10     /* the default d_min */

struct stats_rf_opts {
    size_t n_trees; /* trees, 1 .. STATS_RF_TREES_MAX (100) */
    size_t d_min;   /* below it (and below 2) the result is d_below_min (10) */
    uint64_t seed;  /* the bootstrap draws: MT19937, low 32 bits (STATS_DEFAULT_SEED) */
    const atomic_bool *cancel; /* borrowed, NULL: never; once set (by another thread)
                                  no further tree is grown: STATUS_CANCELLED */
};

/* docs/method.md's defaults: 100 trees, d_min 10, seed STATS_DEFAULT_SEED. */
struct stats_rf_opts stats_rf_opts_default(void);

/* One forest. When reason != REASON_NONE only d, reason, trees and seed are set;
 * everything else is NAN (n_oob 0). About 4 kB. */
struct stats_rf {
    size_t d;                         /* jobs */
    enum stats_reason reason;         /* REASON_NONE, or why nothing was fitted */
    size_t trees;                     /* trees grown (opts->n_trees) */
    uint64_t seed;                    /* opts->seed, to store with the result */
    double oob_r2;                    /* out-of-bag R²; NAN when undefined (below) */
    size_t n_oob;                     /* jobs out of bag for at least one tree */
    double leaves_mean;               /* leaves per tree, mean over the trees */
    double x_curve[STATS_RF_CURVE];   /* linspace(P1, P99) of x, linear units */
    double fit_curve[STATS_RF_CURVE]; /* the forest's mean of y at x_curve[i] */
};

struct stats_rf_ws; /* scratch for up to d_max jobs: 145·d_max bytes + 100 kB */

/* NULL: no memory. d_max must be below 2^32 (the bootstrap draws' range). */
struct stats_rf_ws *stats_rf_ws_new(size_t d_max);
void stats_rf_ws_free(struct stats_rf_ws *ws);

/* The random forest of y on x over d jobs (docs/method.md §5 `rf`): scikit-learn's
 * RandomForestRegressor with its defaults on the one feature x, raw x and y. opts
 * NULL: stats_rf_opts_default(). Each tree is grown on a bootstrap sample of d draws
 * with replacement (gsl_rng_uniform_int over the x-sorted jobs on MT19937 seeded once
 * per call with opts->seed; everything goes by the x-sorted jobs, so their order
 * matters only among ties in x), as weights (draw counts), and fully: a node is split
 * at the midpoint between consecutive distinct x of its drawn jobs that minimizes the
 * count-weighted squared error of its two sides (the first on exact ties, as sklearn
 * does with one feature; rounding may break near-ties otherwise than sklearn's raw
 * sums), until it holds one distinct x or its y are all equal; a leaf predicts the
 * weighted mean of its y. A tree sends x <= threshold left. The forest predicts the
 * mean over its trees at: x_curve, STATS_RF_CURVE points equally spaced
 * (numpy.linspace) between the 1st and 99th type-7 percentiles of x (numpy.percentile,
 * the very numbers), and the n_eval caller-given x_eval (e.g. the KDE's 16 x_grid,
 * linear units) into fit_eval (n_eval doubles, NAN when reason is set). oob_r2 = 1 −
 * Σ(y_j − ŷ_j)² / Σ(y_j − ȳ)² over the n_oob jobs with at least one tree that did not
 * draw them, ŷ_j the mean of those trees' predictions and ȳ the mean of y over the
 * same jobs (sklearn's oob_score_, which would score a job with no such tree as 0:
 * about 0.632^trees of them); NAN when n_oob is 0 or y is constant over them. Every
 * fitted value lies in [min y, max y]. Numerics: every node sums y from a reference
 * near its own mean and the trees' predictions are summed from the y of a job next to
 * the point, so an offset of y changes only rounding and y of 1e-12 beside y of 1e6
 * keep their digits; splits depend only on the order of x, so x of 1e15 + 2385·i bytes
 * give the very forest of x = i (thresholds being midpoints in linear x, as sklearn's,
 * where a point between two drawn neighbours falls depends on x's scale as well).
 * Results depend only on x, y and opts: the same seed gives the same numbers.
 * Undefined cases are STATUS_OK with out->reason: REASON_D_BELOW_MIN (d < max(d_min,
 * 2)), REASON_CONSTANT_X, REASON_CONSTANT_Y (x wins). STATUS_INVALID: a missing
 * pointer (x_eval and fit_eval may be NULL when n_eval is 0), n_trees 0 or above
 * STATS_RF_TREES_MAX, d above ws's size, a value of x, y or x_eval not finite;
 * STATUS_CANCELLED once *opts->cancel is set (checked before each tree; *out is then
 * incomplete). x, y,
 * x_eval borrowed and unchanged; *out written whole. No allocation. Cost: a radix sort
 * of x once, then per tree d draws, two passes over each node's distinct drawn x
 * (about 0.632·d at the root), i.e. O(d·depth) with a job's mean depth about 3 ln d on
 * noisy data, and O(d + 256 + n_eval·log d) to predict; memory O(d) whatever the
 * number of trees (each tree is used and dropped). 100 trees: 7 ms at d = 10^3, 0.08 s
 * at 10^4, 0.95 s at 10^5 (scikit-learn: 0.14, 1.1, 24 s; one thread each, make bench,
 * a shared 2-core machine). */
enum status stats_rf_compute(const double *x, const double *y, size_t d,
                             const double *x_eval, size_t n_eval,
                             const struct stats_rf_opts *opts, struct stats_rf_ws *ws,
                             struct stats_rf *out, double *fit_eval,
                             struct error *err) MUST_CHECK;

#endif
