/* iostat_place.c: the pass over a file's reports once it is read: the interval
 * (the median spacing), each report placed on the grid, and the majority's clock
 * that sets a minority of stamps aside. */
#include "iostat_parser.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Decisions taken here:
 * - Reports are taken in file order; the order-dependent choices (which instant an
 *   ambiguous local stamp is, where a report is placed, the set-aside rule that
 *   compares a stamp with the one before) are made in one pass after the input is
 *   read (ios_place_reports), when the median spacing is known. The pass starts from
 *   the resume state, so a continuation places as a whole parse with the same Δ.
 * - Placement (docs/commands.md, "Sample timing"): the printed stamp is the second the
 * report was taken in, truncated, so a report taken on time shows up to one second off
 *   its position when the timer jitters around a second's boundary: 12, 14, 14 or
 *   12, 12, 14 for 12, 13, 14. Such a stamp is moved to its position (the last
 *   accepted stamp + Δ) only when the report before sits on the grid (printed Δ
 *   after its predecessor): after a report that was itself moved back, the next
 *   keeps its printed stamp, so a drifting timer (12, 14, 15, 16: one skip, no
 *   repeat) resynchronises after one report instead of lagging a second for good.
 *   A repeat is always placed (it cannot keep its stamp), whatever the grid. One
 *   second is the tolerance whatever Δ: jitter of the truncated second is never
 *   more, and a report of a 60 s capture printed 60 s late is a report missed, not
 *   a report misplaced.
 */

/* ---- the whole file --------------------------------------------------------------- */

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median of v[0, n) (sorted in place); 0 when n is 0. */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n == 0 ? 0.0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The median of the differences between consecutive distinct values of stamps[0, n)
 * (sorted in place; gaps is scratch of n); 0 with fewer than two. */
static double median_spacing(int64_t *stamps, double *gaps, size_t n)
{
    size_t k = 0, m = 0;

    qsort(stamps, n, sizeof *stamps, compare_int64);
    for (size_t i = 0; i < n; i++) {
        if (k == 0 || stamps[i] != stamps[k - 1])
            stamps[k++] = stamps[i];
    }
    for (size_t i = 1; i < k; i++)
        gaps[m++] = (double)(stamps[i] - stamps[i - 1]);
    return median_of(gaps, m);
}

/* Δ = the median of the differences between consecutive distinct stamps (docs/method.md
 * §1, the grid) of the samples as placed. */
enum status ios_median_interval(struct parser *p, double *out)
{
    struct iostat_data *d = p->data;
    int64_t *stamps = malloc((d->n + 1) * sizeof *stamps);
    double *gaps = malloc((d->n + 1) * sizeof *gaps);

    if (stamps == NULL || gaps == NULL) {
        free(stamps);
        free(gaps);
        return error_set(p->err, STATUS_NOMEM, "stamps of %s", p->path);
    }
    for (size_t i = 0; i < d->n; i++)
        stamps[i] = d->samples[i].stamp_s;
    *out = median_spacing(stamps, gaps, d->n);
    free(stamps);
    free(gaps);
    return STATUS_OK;
}

/* The spacing of the reports before they are placed: the median of the differences
 * between consecutive printed stamps in file order (an ambiguous local stamp as its
 * earlier instant). Unlike the grid's Δ, a repeat counts as the 0 it is and a step
 * back as negative, so that a few of them cannot move the median. */
static enum status printed_spacing(struct parser *p, double *out)
{
    double *gaps = malloc((p->n_reports + 1) * sizeof *gaps);
    size_t m = 0;
    int64_t prev = 0;

    if (gaps == NULL)
        return error_set(p->err, STATUS_NOMEM, "stamps of %s", p->path);
    for (size_t i = 0; i < p->n_reports; i++) {
        int64_t t = ios_stamp_instant(p, &p->reports[i].stamp, false, 0);

        if (i > 0)
            gaps[m++] = (double)(t - prev);
        prev = t;
    }
    *out = median_of(gaps, m);
    free(gaps);
    return STATUS_OK;
}

/* Δ in whole seconds for placement; 0 when it is not a whole number of seconds. */
static int64_t whole_seconds(double interval_s)
{
    return interval_s >= 1 && interval_s <= DAY_S && interval_s == floor(interval_s)
               ? (int64_t)interval_s
               : 0;
}

/* Where the pass stands: the last accepted report. */
struct placing {
    bool have;   /* a report was accepted */
    int64_t a;   /* its stamp as placed */
    int64_t gap; /* its printed stamp minus the placed one before it; 0 at a stream's
                    first report */
};

/* A report set aside still took its turn of the timer: the next one is placed after
 * the position it had. */
static void skip_position(struct placing *pl, int64_t delta)
{
    if (pl->have && delta > 0) {
        pl->a += delta;
        pl->gap = delta;
    }
}

/* Where report r goes after the state pl, with Δ delta (0: unknown): *placed, or
 * the reason it is set aside (buf holds it). */
static const char *place_one(const struct parser *p, const struct report *r,
                             const struct placing *pl, int64_t delta, int64_t *printed,
                             int64_t *placed, char *buf, size_t size)
{
    char want[32];
    int64_t at = pl->a + (delta > 0 ? delta : pl->gap);
    int64_t t = ios_stamp_instant(p, &r->stamp, pl->have, at);
    int64_t dev = t - (pl->a + delta);
    bool on_grid = delta > 0 && pl->gap == delta && !r->stream_start;

    *printed = *placed = t;
    if (!pl->have)
        return NULL;
    if (llabs(t - (pl->a + pl->gap)) > DAY_S) {
        ios_format_stamp(pl->a + pl->gap, want, sizeof want);
        snprintf(buf, size,
                 "more than a day from %s, where its place in the file puts it", want);
        return buf;
    }
    if (on_grid && dev != 0 && llabs(dev) <= 1) {
        *placed = pl->a + delta; /* a second off its position: the timer's jitter */
        return NULL;
    }
    if (t > pl->a)
        return NULL;
    if (delta > 0 && t == pl->a && !r->stream_start) {
        *placed = pl->a + delta; /* a repeat: the next position */
        return NULL;
    }
    ios_format_stamp(pl->a, want, sizeof want);
    snprintf(buf, size, "not after the report before it (%s)%s", want,
             delta > 0 || r->stream_start ? "" : ", and no interval to place it by");
    return buf;
}

/* ---- the majority's clock --------------------------------------------------------- */

/* A report's printed instant and its place in the file, for the clock rule. */
struct clock_vote {
    int64_t t;
    size_t report;
};

static int compare_vote(const void *a, const void *b)
{
    const struct clock_vote *x = a, *y = b;

    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->report > y->report) - (x->report < y->report);
}

/* "26 years", "3 days", "5 hours": how far apart two instants are, roughly. */
static void format_distance(int64_t d, char *buf, size_t size)
{
    d = d < 0 ? -d : d;
    if (d >= 365 * (int64_t)DAY_S) {
        snprintf(buf, size, "%lld years", (long long)(d / (365 * (int64_t)DAY_S)));
    } else if (d >= 2 * (int64_t)DAY_S) {
        snprintf(buf, size, "%lld days", (long long)(d / DAY_S));
    } else {
        snprintf(buf, size, "%lld hours", (long long)(d / 3600));
    }
}

/* Whether the file was last written when a run of its stamps ending at hi ended
 * (within the day ios_aside_reason allows): the system clock that wrote the file, which
 * NTP keeps, outweighs any count of stamps printed before NTP set it. */
static bool mtime_agrees(const struct parser *p, int64_t hi)
{
    return p->mtime_s != INT64_MAX && p->mtime_s >= hi - DAY_S &&
           p->mtime_s <= hi + DAY_S;
}

/* Whether the banner's date falls within a run [lo, hi] (a day each side: the banner
 * is a local date). After a reset the banner carries the reset's date too, so it only
 * breaks ties. */
static bool banner_agrees(const struct parser *p, int64_t lo, int64_t hi)
{
    return p->banner_day_s != INT64_MIN && p->banner_day_s >= lo - DAY_S &&
           p->banner_day_s <= hi + DAY_S;
}

/* A clock reset before NTP (a CMOS battery: 01/01/00) or a jump stamps a few reports
 * years away from the others. Placing them in file order would make the first report
 * the reference and set aside everything after it; instead the file's own stamps
 * vote. Sorted, they fall into runs split wherever two consecutive ones are more
 * than a day apart (the distance place_one already refuses between neighbours). The
 * file's clock is the run its mtime agrees with (20 hours on a reset clock before 4
 * on NTP: the 4 are the day; a growing file read when 3 reset reports led 2 good
 * ones), else the run holding the most reports; a tie goes to the run the banner's
 * date agrees with, then to the earlier. Every report
 * of the other runs is set aside with its line and its distance from the kept run's
 * median stamp. A continuation keeps the clock its earlier parse accepted. */
static enum status set_aside_minority(struct parser *p)
{
    struct clock_vote *v = malloc((p->n_reports + 1) * sizeof *v);
    size_t n = 0, best_lo = 0, best_hi = 0;
    bool best_mtime = false, best_banner = false, have_best = false;

    if (v == NULL)
        return error_set(p->err, STATUS_NOMEM, "stamps of %s", p->path);
    for (size_t i = 0; i < p->n_reports; i++) {
        if (!p->reports[i].gone) {
            v[n++] = (struct clock_vote){
                ios_stamp_instant(p, &p->reports[i].stamp, false, 0), i};
        }
    }
    qsort(v, n, sizeof *v, compare_vote);
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && v[hi].t - v[hi - 1].t <= DAY_S; hi++)
            ;
        const bool mtime = mtime_agrees(p, v[hi - 1].t);
        const bool banner = banner_agrees(p, v[lo].t, v[hi - 1].t);
        const size_t size = hi - lo, best_size = best_hi - best_lo;
        bool better;

        if (!have_best || mtime != best_mtime) {
            better = !have_best || mtime;
        } else if (size != best_size) {
            better = size > best_size;
        } else {
            better = banner && !best_banner;
        }
        if (better) {
            best_lo = lo;
            best_hi = hi;
            best_mtime = mtime;
            best_banner = banner;
            have_best = true;
        }
    }
    if (best_hi - best_lo < n) {
        int64_t median = v[best_lo + (best_hi - best_lo) / 2].t;
        char at[32], far[32], why[192];

        ios_format_stamp(median, at, sizeof at);
        for (size_t k = 0; k < n; k++) {
            struct report *r = &p->reports[v[k].report];

            if (k >= best_lo && k < best_hi)
                continue;
            format_distance(v[k].t - median, far, sizeof far);
            snprintf(why, sizeof why,
                     "%s from the file's median %s (%zu of its %zu reports)", far, at,
                     best_hi - best_lo, n);
            r->gone = true;
            ios_set_aside(p, v[k].t, r->line, why);
        }
    }
    free(v);
    return STATUS_OK;
}

/* The pass over the reports in file order (see the decisions at the top): each is
 * placed or set aside, its samples get the stamp it is placed at, those set aside
 * go, and the resume state is the one after the reports marked complete. */
enum status ios_place_reports(struct parser *p)
{
    struct iostat_data *d = p->data;
    const struct iostat_resume *from = p->from;
    struct placing pl = {0};
    int64_t file_delta;
    size_t w = 0;
    double median = 0;
    enum status rc;

    if (from != NULL && from->have_accepted) {
        pl = (struct placing){true, from->accepted_stamp_s, from->gap_s};
    } else {
        rc = set_aside_minority(p);
        if (rc != STATUS_OK)
            return rc;
    }
    if (from != NULL && from->interval_s > 0) {
        median = from->interval_s;
    } else {
        rc = printed_spacing(p, &median);
        if (rc != STATUS_OK)
            return rc;
    }
    file_delta = whole_seconds(median);
    for (size_t i = 0; i <= p->n_reports; i++) {
        if (p->marked && i == p->marked_reports) {
            d->resume.have_accepted = pl.have;
            d->resume.accepted_stamp_s = pl.have ? pl.a : 0;
            d->resume.gap_s = pl.gap;
        }
        if (i == p->n_reports)
            break;
        const struct report *r = &p->reports[i];
        size_t end = i + 1 < p->n_reports ? p->reports[i + 1].first : d->n;
        int64_t printed, placed;
        char buf[128];
        const char *why;

        int64_t delta = r->interval_s > 0 ? r->interval_s : file_delta;

        if (r->gone) {
            skip_position(&pl, delta);
            continue;
        }
        why = place_one(p, r, &pl, delta, &printed, &placed, buf, sizeof buf);
        if (why != NULL) {
            ios_set_aside(p, printed, r->line, why);
            skip_position(&pl, delta);
            continue;
        }
        pl.gap = pl.have && !r->stream_start ? printed - pl.a : 0;
        pl.a = placed;
        pl.have = true;
        for (size_t k = r->first; k < end; k++) {
            d->samples[w] = d->samples[k];
            d->samples[w++].stamp_s = placed;
        }
    }
    d->n = w;
    return STATUS_OK;
}
