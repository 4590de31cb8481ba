/* series.c: the grid, the system-wide series (docs/method.md §1) and coarsening (§6). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* docs/method.md §1: a sample whose end lies within Δ/4 of a grid point is that interval.
 */
#define SNAP_FRACTION 0.25
/* A grid interval is fully covered when its coverage reaches Δ·(1 − COVER_TOL): the
 * pieces of split samples add up to Δ only to rounding. */
#define COVER_TOL 1e-9
/* Relative tolerance for "Δ_s is an integer multiple of Δ" and for "Δ_s equals Δ". */
#define DELTA_TOL 1e-9
/* Grid indices and times stay far from int64_t's range (2^62). */
#define J_LIMIT 4.611686018427387904e18

struct stats_series *stats_series_new(double delta_s, int64_t j_first, size_t n)
{
    struct stats_series *s = calloc(1, sizeof *s);
    size_t cap =
        n > 0 ? n : 1; /* calloc(0) may return NULL: keep NULL meaning "no memory" */

    if (s == NULL)
        return NULL;
    s->delta_s = delta_s;
    s->origin_s = 0.0;
    s->j_first = j_first;
    s->n = n;
    s->r = calloc(cap, sizeof *s->r);
    s->w = calloc(cap, sizeof *s->w);
    s->ro = calloc(cap, sizeof *s->ro);
    s->wo = calloc(cap, sizeof *s->wo);
    s->q = calloc(cap, sizeof *s->q);
    s->u = calloc(cap, sizeof *s->u);
    s->aw_num = calloc(cap, sizeof *s->aw_num);
    s->aw_den = calloc(cap, sizeof *s->aw_den);
    s->present = calloc(cap, sizeof *s->present);
    s->filled_s = calloc(cap, sizeof *s->filled_s);
    if (s->r == NULL || s->w == NULL || s->ro == NULL || s->wo == NULL || s->q == NULL ||
        s->u == NULL || s->aw_num == NULL || s->aw_den == NULL || s->present == NULL ||
        s->filled_s == NULL) {
        stats_series_free(s);
        return NULL;
    }
    return s;
}

void stats_series_free(struct stats_series *s)
{
    if (s == NULL)
        return;
    free(s->r);
    free(s->w);
    free(s->ro);
    free(s->wo);
    free(s->q);
    free(s->u);
    free(s->aw_num);
    free(s->aw_den);
    free(s->present);
    free(s->filled_s);
    free(s);
}

/* True when a and b (both > 0) are integer multiples of one another. */
static bool multiples(double a, double b)
{
    double q = a >= b ? a / b : b / a;
    double k = nearbyint(q);

    return k >= 1.0 && fabs(q - k) <= DELTA_TOL * q;
}

static double grid_end(int64_t j, double delta_s)
{
    return (double)j * delta_s;
}

/* Seconds of the sample (e − ds, e] inside grid interval j = (T_{j−1}, T_j]. */
static double overlap(double e, double ds, int64_t j, double delta_s)
{
    double lo = fmax(e - ds, grid_end(j - 1, delta_s));
    double hi = fmin(e, grid_end(j, delta_s));

    return hi - lo;
}

/* Where sample (e − ds, e] goes: *snap when it is grid interval *lo exactly (within
 * Δ/4 of a grid point and of the grid's own Δ), else the grid intervals it overlaps
 * with positive length, [*lo, *hi]. */
static void sample_place(double e, double ds, double delta_s, int64_t *lo, int64_t *hi,
                         bool *snap)
{
    double nearest = nearbyint(e / delta_s);
    bool same_delta = fabs(ds - delta_s) <= DELTA_TOL * delta_s;

    if (same_delta && fabs(e - nearest * delta_s) <= SNAP_FRACTION * delta_s) {
        *lo = *hi = (int64_t)nearest;
        *snap = true;
        return;
    }
    *snap = false;
    /* Start one interval wide on each side and trim: floor/ceil of a rounded quotient
     * can be one off, and only a positive overlap may widen the series. */
    *lo = (int64_t)floor((e - ds) / delta_s);
    *hi = (int64_t)ceil(e / delta_s) + 1;
    while (*lo < *hi && !(overlap(e, ds, *lo, delta_s) > 0.0))
        (*lo)++;
    while (*hi > *lo && !(overlap(e, ds, *hi, delta_s) > 0.0))
        (*hi)--;
}

/* A sample enters the series only when its bandwidths are numbers; a missing
 * value is a hole, never a zero (docs/method.md §1). */
static bool sample_usable(const struct stats_stream *st, size_t i)
{
    return isfinite(st->r[i]) && isfinite(st->w[i]);
}

static enum status check_stream(const struct stats_stream *st, size_t k, size_t n_servers,
                                double delta_s, struct error *err)
{
    if (st->server >= n_servers) {
        return error_set(err, STATUS_INVALID, "stream %zu: server %zu of %zu", k,
                         st->server, n_servers);
    }
    if (!(isfinite(st->delta_s) && st->delta_s > 0.0)) {
        return error_set(err, STATUS_INVALID, "stream %zu: delta_s %g is not positive", k,
                         st->delta_s);
    }
    if (!multiples(st->delta_s, delta_s)) {
        return error_set(err, STATUS_INVALID,
                         "stream %zu: delta_s %g and grid delta_s %g are not multiples",
                         k, st->delta_s, delta_s);
    }
    if (st->n > 0 && (st->end_s == NULL || st->r == NULL || st->w == NULL))
        return error_set(err, STATUS_INVALID, "stream %zu: missing end_s, r or w", k);
    for (size_t i = 0; i < st->n; i++) {
        if (!isfinite(st->end_s[i]) ||
            fabs(st->end_s[i] / delta_s) + st->delta_s / delta_s >= J_LIMIT) {
            return error_set(err, STATUS_INVALID, "stream %zu: end_s[%zu] off the grid",
                             k, i);
        }
        if (i > 0 && !(st->end_s[i] > st->end_s[i - 1])) {
            return error_set(err, STATUS_INVALID, "stream %zu: end_s[%zu] not ascending",
                             k, i);
        }
    }
    return STATUS_OK;
}

/* What one sample adds to the series: the four rates, then the queue (docs/method.md
 * §11). aqu-sz and %util are time averages over the sample and r/s·await is the
 * request time spent per second, so all of them split over grid intervals in
 * proportion to the overlap, as rates do. */
enum { V_R, V_W, V_RO, V_WO, V_Q, V_U, V_AW_NUM, V_AW_DEN, V_COUNT };

static double at_or_nan(const double *v, size_t i)
{
    return v != NULL ? v[i] : (double)NAN;
}

/* The values of sample i of st. AW's weight is r/s + w/s with r_await and w_await
 * where the source has them, else ops_total (tps) with the combined await. */
static void sample_values(const struct stats_stream *st, size_t i, double v[V_COUNT])
{
    double ro = at_or_nan(st->ro, i), wo = at_or_nan(st->wo, i);
    double ra = at_or_nan(st->r_await_ms, i), wa = at_or_nan(st->w_await_ms, i);

    v[V_R] = st->r[i];
    v[V_W] = st->w[i];
    v[V_RO] = ro;
    v[V_WO] = wo;
    v[V_Q] = at_or_nan(st->aqu_sz, i);
    v[V_U] = at_or_nan(st->util_pct, i) / 100.0;
    if (!isnan(ro) && !isnan(wo) && !isnan(ra) && !isnan(wa)) {
        v[V_AW_NUM] = (ro * ra + wo * wa) / 1000.0;
        v[V_AW_DEN] = ro + wo;
    } else {
        double ops = at_or_nan(st->ops_total, i);
        v[V_AW_NUM] = ops * at_or_nan(st->await_ms, i) / 1000.0;
        v[V_AW_DEN] = ops;
    }
}

/* Adds volume rate·len of one sample to element k of s, len seconds of it (at most
 * what the stream has not covered yet: samples of one stream that overlap, from
 * irregular stamps, would count the same seconds twice; the first one wins). */
static void add_piece(struct stats_series *s, double *cover, size_t k, double len,
                      const double v[V_COUNT])
{
    double f = fmin(len, s->delta_s - cover[k]) / s->delta_s;

    if (!(f > 0.0))
        return;
    s->r[k] += v[V_R] * f;
    s->w[k] += v[V_W] * f;
    s->ro[k] += v[V_RO] * f;
    s->wo[k] += v[V_WO] * f;
    s->q[k] += v[V_Q] * f;
    s->u[k] += v[V_U] * f;
    s->aw_num[k] += v[V_AW_NUM] * f;
    s->aw_den[k] += v[V_AW_DEN] * f;
    cover[k] += f * s->delta_s;
}

/* Adds stream st to s: rates summed into every interval of s it overlaps (pieces
 * outside s are left out), its coverage per interval in cover (seconds, zeroed
 * here). True when a usable sample of st reaches an interval of s. */
static bool add_stream(struct stats_series *s, const struct stats_stream *st,
                       double *cover)
{
    double delta_s = s->delta_s;
    int64_t j_end = s->j_first + (int64_t)s->n;
    bool touched = false;

    memset(cover, 0, s->n * sizeof *cover);
    for (size_t i = 0; i < st->n; i++) {
        int64_t lo, hi;
        bool snap;
        double rates[V_COUNT];

        if (!sample_usable(st, i))
            continue;
        sample_place(st->end_s[i], st->delta_s, delta_s, &lo, &hi, &snap);
        lo = lo > s->j_first ? lo : s->j_first;
        hi = hi < j_end - 1 ? hi : j_end - 1;
        if (lo > hi)
            continue;
        touched = true;
        sample_values(st, i, rates);
        if (snap) { /* the whole interval, rates copied */
            add_piece(s, cover, (size_t)(lo - s->j_first), delta_s, rates);
            continue;
        }
        /* Volume rate·overlap lands in interval j, i.e. rate·overlap/Δ as a rate:
         * Σ_j rate_j·Δ over the grid equals the sample's rate·Δ_s. */
        for (int64_t j = lo; j <= hi; j++) {
            add_piece(s, cover, (size_t)(j - s->j_first),
                      overlap(st->end_s[i], st->delta_s, j, delta_s), rates);
        }
    }
    return touched;
}

/* The checks both builders make of their grid and streams. */
static enum status check_streams(const struct stats_stream *streams, size_t n_streams,
                                 size_t n_servers, double delta_s, struct error *err)
{
    if (!(isfinite(delta_s) && delta_s > 0.0))
        return error_set(err, STATUS_INVALID, "grid delta_s %g is not positive", delta_s);
    if (n_streams > 0 && streams == NULL)
        return error_set(err, STATUS_INVALID, "no streams");
    for (size_t k = 0; k < n_streams; k++) {
        enum status rc = check_stream(&streams[k], k, n_servers, delta_s, err);
        if (rc != STATUS_OK)
            return rc;
    }
    return STATUS_OK;
}

enum status stats_series_build(const struct stats_stream *streams, size_t n_streams,
                               size_t n_servers, double delta_s,
                               struct stats_series **out, struct error *err)
{
    enum status rc = STATUS_OK;
    struct stats_series *s = NULL;
    double *cover = NULL;
    unsigned char *seen = NULL;
    int64_t j_lo = INT64_MAX, j_hi = INT64_MIN;
    size_t n;
    bool every_server = true;

    if (out == NULL)
        return error_set(err, STATUS_INVALID, "no output series");
    *out = NULL;
    rc = check_streams(streams, n_streams, n_servers, delta_s, err);
    if (rc != STATUS_OK)
        return rc;

    /* The series spans the earliest to the latest grid interval any sample touches. */
    for (size_t k = 0; k < n_streams; k++) {
        const struct stats_stream *st = &streams[k];
        for (size_t i = 0; i < st->n; i++) {
            int64_t lo, hi;
            bool snap;

            if (!sample_usable(st, i))
                continue;
            sample_place(st->end_s[i], st->delta_s, delta_s, &lo, &hi, &snap);
            j_lo = lo < j_lo ? lo : j_lo;
            j_hi = hi > j_hi ? hi : j_hi;
        }
    }
    if (j_lo > j_hi) { /* no usable sample: an empty series */
        s = stats_series_new(delta_s, 0, 0);
        if (s == NULL)
            return error_set(err, STATUS_NOMEM, "empty series");
        *out = s;
        return STATUS_OK;
    }

    n = (size_t)(j_hi - j_lo) + 1;
    s = stats_series_new(delta_s, j_lo, n);
    cover = calloc(n > 0 ? n : 1, sizeof *cover);
    seen = calloc(n_servers > 0 ? n_servers : 1, sizeof *seen);
    if (s == NULL || cover == NULL || seen == NULL) {
        rc = error_set(err, STATUS_NOMEM, "series of %zu intervals", n);
        goto out;
    }

    /* Present iff every server reported the interval: a server reported it when each
     * of its streams (devices) covers it fully, so the interval is present iff every
     * stream covers it and every server has a stream. A partial sum is a hole. */
    memset(s->present, 1, s->n);
    for (size_t k = 0; k < n_streams; k++) {
        (void)add_stream(s, &streams[k], cover);
        seen[streams[k].server] = 1;
        for (size_t i = 0; i < s->n; i++) {
            if (cover[i] < delta_s * (1.0 - COVER_TOL))
                s->present[i] = 0;
        }
    }
    /* U_i is the mean over the devices (a partial sum only where it is a hole). */
    for (size_t i = 0; i < s->n; i++)
        s->u[i] /= (double)n_streams;
    for (size_t v = 0; v < n_servers; v++)
        every_server = every_server && seen[v];
    if (!every_server)
        memset(s->present, 0, s->n);
    *out = s;
    s = NULL;
out:
    stats_series_free(s);
    free(cover);
    free(seen);
    return rc;
}

void stats_series_sums_free(struct stats_series_sums *sums)
{
    if (sums == NULL)
        return;
    stats_series_free(sums->s);
    free(sums->devices);
    free(sums->servers);
    free(sums);
}

enum status stats_series_sum_range(const struct stats_stream *streams, size_t n_streams,
                                   size_t n_servers, double delta_s, int64_t j_lo,
                                   int64_t j_hi, struct stats_series_sums **out,
                                   struct error *err)
{
    struct stats_series_sums *sums = NULL;
    double *cover = NULL;
    unsigned char *expected = NULL, *full = NULL;
    enum status rc = STATUS_OK;

    if (out == NULL)
        return error_set(err, STATUS_INVALID, "no output series");
    *out = NULL;
    rc = check_streams(streams, n_streams, n_servers, delta_s, err);
    if (rc != STATUS_OK)
        return rc;
    if (j_hi < j_lo || (double)j_lo <= -J_LIMIT || (double)j_hi >= J_LIMIT ||
        j_hi - j_lo >= (int64_t)1 << 40) {
        return error_set(err, STATUS_INVALID, "grid range %lld .. %lld", (long long)j_lo,
                         (long long)j_hi);
    }
    size_t n = (size_t)(j_hi - j_lo) + 1;
    sums = calloc(1, sizeof *sums);
    if (sums != NULL) {
        sums->s = stats_series_new(delta_s, j_lo, n);
        sums->devices = calloc(n > 0 ? n : 1, sizeof *sums->devices);
        sums->servers = calloc(n > 0 ? n : 1, sizeof *sums->servers);
    }
    cover = calloc(n > 0 ? n : 1, sizeof *cover);
    expected = calloc(n_servers > 0 ? n_servers : 1, 1);
    /* per interval: 1 while each expected device of the current server covers it */
    full = malloc(n > 0 ? n : 1);
    if (sums == NULL || sums->s == NULL || sums->devices == NULL ||
        sums->servers == NULL || cover == NULL || expected == NULL || full == NULL) {
        rc = error_set(err, STATUS_NOMEM, "series of %zu intervals", n);
        goto out;
    }
    /* A device is expected in the range when a usable sample of it reaches the range;
     * an interval is present when every expected device covers it fully (a device
     * absent from the whole range is not expected: docs/method.md §1). The streams of
     * a server are adjacent, so a server's full intervals are counted when the next
     * server's streams begin. */
    for (size_t k = 0; k <= n_streams; k++) {
        bool next_server =
            k == n_streams || k == 0 || streams[k].server != streams[k - 1].server;
        if (next_server && k > 0 && (expected[streams[k - 1].server] & 1)) {
            for (size_t i = 0; i < n; i++)
                sums->servers[i] += full[i];
        }
        if (k == n_streams)
            break;
        const struct stats_stream *st = &streams[k];
        /* expected[v]: bit 0 a device of v is expected, bit 1 v's streams began */
        if (next_server) {
            if (expected[st->server] & 2) {
                rc = error_set(err, STATUS_INVALID,
                               "stream %zu: the streams of server %zu are not adjacent",
                               k, st->server);
                goto out;
            }
            expected[st->server] |= 2;
            memset(full, 1, n);
        }
        if (!add_stream(sums->s, st, cover))
            continue;
        sums->n_devices++;
        if (!(expected[st->server] & 1))
            sums->n_servers++;
        expected[st->server] |= 1;
        for (size_t i = 0; i < n; i++) {
            if (cover[i] >= delta_s * (1.0 - COVER_TOL)) {
                sums->devices[i]++;
            } else {
                full[i] = 0;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        sums->s->present[i] =
            (unsigned char)(sums->n_devices > 0 && sums->devices[i] == sums->n_devices);
    }
    *out = sums;
    sums = NULL;
out:
    stats_series_sums_free(sums);
    free(cover);
    free(expected);
    free(full);
    return rc;
}

/* floor(a / b) for b > 0, also for negative a (C division truncates). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* rate[i] on the line from rate[a] to rate[b], a < i < b. */
static void interpolate(double *rate, size_t a, size_t i, size_t b)
{
    double t = (double)(i - a) / (double)(b - a);

    rate[i] = rate[a] + t * (rate[b] - rate[a]);
}

size_t stats_series_fill(struct stats_series *s, unsigned fill_max)
{
    size_t filled = 0;

    if (s == NULL || fill_max == 0)
        return 0;
    for (size_t a = 0; a < s->n; a++) {
        if (!s->present[a])
            continue;
        size_t b = a + 1;
        while (b < s->n && !s->present[b])
            b++;
        /* a and b present, a + 1 … b − 1 missing: a run of b − a − 1 */
        if (b < s->n && b - a - 1 >= 1 && b - a - 1 <= fill_max) {
            for (size_t i = a + 1; i < b; i++) {
                double *const rates[] = {s->r, s->w, s->ro,     s->wo,
                                         s->q, s->u, s->aw_num, s->aw_den};
                for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++)
                    interpolate(rates[k], a, i, b);
                s->present[i] = 1;
                s->filled_s[i] = s->delta_s;
                filled++;
            }
        }
        a = b - 1; /* the loop's a++ moves to b */
    }
    return filled;
}

enum status stats_series_coarsen(const struct stats_series *fine, unsigned k,
                                 unsigned phase, double xff, struct stats_series **out,
                                 struct error *err)
{
    struct stats_series *s;
    int64_t kk = (int64_t)k, ph = (int64_t)phase;
    int64_t jc_first = 0;
    size_t nc = 0;

    if (out == NULL)
        return error_set(err, STATUS_INVALID, "no output series");
    *out = NULL;
    if (fine == NULL)
        return error_set(err, STATUS_INVALID, "no series");
    if (k == 0 || phase >= k)
        return error_set(err, STATUS_INVALID, "granularity %u with phase %u", k, phase);
    if (!(xff >= 0 && xff < 1))
        return error_set(err, STATUS_INVALID, "xff %g: expected 0 <= xff < 1", xff);

    /* docs/method.md §6 numbers coarse intervals J from 0: J merges fine intervals
     * kJ + φ + 1 … kJ + φ + k and ends at (kJ + φ + k)·Δ = origin' + (J + 1)·kΔ with
     * origin' = origin + φΔ. On the coarse grid that is interval J + 1, which holds fine
     * j with k·jc + φ − k < j <= k·jc + φ, i.e. jc = floor((j − φ − 1) / k) + 1. Coarse
     * intervals that reach past either end of the fine series are kept, as holes. */
    if (fine->n > 0) {
        int64_t jc_last =
            floor_div(fine->j_first + (int64_t)fine->n - 1 - ph - 1, kk) + 1;
        jc_first = floor_div(fine->j_first - ph - 1, kk) + 1;
        nc = (size_t)(jc_last - jc_first) + 1;
    }
    s = stats_series_new(fine->delta_s * (double)k, jc_first, nc);
    if (s == NULL)
        return error_set(err, STATUS_NOMEM, "coarse series of %zu intervals", nc);
    s->origin_s = fine->origin_s + (double)phase * fine->delta_s;

    for (size_t c = 0; c < nc; c++) {
        int64_t jc = jc_first + (int64_t)c;
        /* Σ over every fine interval in range (today's strict rule and a hole's
         * meaningless rates), and over the present ones (the xff rule's mean). */
        double all[8] = {0}, here[8] = {0}, filled_s = 0.0;
        size_t missing = 0, n_here = 0;

        for (int64_t q = 1; q <= kk; q++) {
            int64_t i = kk * (jc - 1) + ph + q - fine->j_first;

            if (i < 0 || i >= (int64_t)fine->n) {
                missing++;
                continue;
            }
            const double v[8] = {fine->r[i],      fine->w[i],     fine->ro[i],
                                 fine->wo[i],     fine->q[i],     fine->u[i],
                                 fine->aw_num[i], fine->aw_den[i]};
            for (size_t f = 0; f < 8; f++)
                all[f] += v[f];
            filled_s += fine->filled_s[i];
            if (!fine->present[i]) {
                missing++;
                continue;
            }
            for (size_t f = 0; f < 8; f++)
                here[f] += v[f];
            n_here++;
        }
        /* The coarse rate is the mean of the fine rates (§6): of all k when none is
         * missing, of those present when at most xff·k are; so are Q and U, and
         * AW = Σ aw_num / Σ aw_den is request-weighted over them (§11). */
        /* floor, nudged: 0.7·90 is 62.999… in binary and must tolerate 63 */
        bool present = missing <= (size_t)floor(xff * (double)k + 1e-9);
        const double *sum = missing == 0 || !present ? all : here;
        double n_sum = missing == 0 || !present ? (double)k : (double)n_here;
        double *const to[8] = {s->r, s->w, s->ro,     s->wo,
                               s->q, s->u, s->aw_num, s->aw_den};
        for (size_t f = 0; f < 8; f++)
            to[f][c] = sum[f] / n_sum;
        s->present[c] = (unsigned char)(present && n_here > 0);
        s->filled_s[c] = filled_s;
    }
    *out = s;
    return STATUS_OK;
}
