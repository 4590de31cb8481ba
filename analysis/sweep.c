/* sweep.c: `analyze --sweep`, the granularity sweep of docs/method.md §6: every
 * coefficient of the default pairs at k·Δ for k = 1 … k_max over one job set per pair,
 * the verdicts (falling, recommended sampling interval), one stored JSON object per pair.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* docs/method.md §6: falling is c(k_max) < c(1) − DROP with Spearman(k, c_k) <= RHO_MAX;
 * the recommended interval keeps every |c(k') − c(1)| <= TOLERANCE. */
#define SWEEP_DROP      0.1
#define SWEEP_RHO_MAX   (-0.7)
#define SWEEP_TOLERANCE 0.05

/* The pairs of docs/method.md §6 (Fig. 10–12) and §11, then those of §10, swept only for
 * a group one of whose jobs has a DXT trace (the first N_UNTRACED_PAIRS are every
 * group's).
 */
static const char *const sweep_pairs[][2] = {
    {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
    {"t_um", "psi_o_write"}, {"t_i", "psi_i_read"},  {"t_i", "psi_i_write"},
    {"tau", "b_d"},          {"t_d", "q_d"},         {"tau", "q_d"},
    {"t_x", "psi_x_read"},   {"t_x", "psi_x_write"},
};

#define N_PAIRS          (sizeof sweep_pairs / sizeof sweep_pairs[0])
#define N_UNTRACED_PAIRS 9
_Static_assert(N_UNTRACED_PAIRS <= N_PAIRS, "the untraced pairs come first");
_Static_assert(N_PAIRS <= SWEEP_PAIRS_MAX, "the report holds SWEEP_PAIRS_MAX sweeps");

size_t sweep_pair_count(void)
{
    return N_PAIRS;
}

void sweep_pair(size_t i, const char **y, const char **x)
{
    *y = sweep_pairs[i][0];
    *x = sweep_pairs[i][1];
}

/* One series of the sweep: granularity k·Δ at phase φ. */
struct sweep_step {
    unsigned k, phase;
    size_t k_index;        /* k − 1: its point on the curves */
    struct series_set set; /* owned */
};

/* Everything one run shares: series per step, scratch made once for the largest group. */
struct sweep_run {
    const struct analysis_settings *s; /* d_min, seed, k_max, all_phases */
    double delta_s;                    /* the base Δ */
    struct sweep_step *steps;          /* k ascending, φ ascending within k */
    size_t n_steps;
    struct analysis_pair pairs[N_PAIRS];
    unsigned methods;            /* stats_methods_available() */
    size_t d_max;                /* jobs of the largest group */
    struct stats_ws *ws;         /* for d_max jobs */
    struct stats_kde_ws *kde_ws; /* for d_max jobs */
    struct stats_kde *kde;       /* one fit, overwritten at each step */
    double *y, *x;               /* [(step · d_max + job) · N_PAIRS + pair] */
    unsigned char *excl;         /* enum stats_exclusion, indexed as y */
    double *m;                   /* [step · d_max + job]: |A|, NAN when unknown */
    double *ys, *xs;             /* the d values of one step, d_max each */
    unsigned char *fixed;        /* per job: counts for the pair at every step */
    struct sweep_result res;     /* the pair at hand; its points k_max */
    /* progress and timing */
    const struct progress *progress; /* NULL: none */
    const char *group_name;          /* the group at hand, for the bar */
    bool traced;                     /* some group swept had a DXT trace: all pairs */
    size_t units_done, units_total;  /* per group and step: its jobs, then each pair */
    struct timespec started;
    double t_series, t_jobs, t_eval, t_coef, t_kde, t_store; /* seconds */
};

/* One more unit done, told to the caller's progress. */
static void progress_step(struct sweep_run *r)
{
    r->units_done++;
    if (r->progress != NULL && r->units_total > 0)
        r->progress->fn(r->progress->arg, r->units_done, r->units_total, r->group_name);
}

/* Asks the caller to blank its bar, that a log line can take its place. */
static void progress_clear(const struct sweep_run *r)
{
    if (r->progress != NULL && r->units_done > 0 && r->units_done < r->units_total)
        r->progress->fn(r->progress->arg, 0, 0, NULL);
}

/* ---- the steps: the series coarsened once per (k, φ) --------------------------- */

static void steps_free(struct sweep_step *steps, size_t n)
{
    for (size_t i = 0; steps != NULL && i < n; i++)
        series_set_clear(&steps[i].set);
    free(steps);
}

/* base coarsened by k at phase, a segment at a time, into out. */
static enum status set_coarsen(const struct series_set *base, unsigned k, unsigned phase,
                               double xff, struct series_set *out, struct error *err)
{
    enum status rc = STATUS_OK;

    *out = (struct series_set){0};
    out->seg = calloc(base->n > 0 ? base->n : 1, sizeof(struct stats_series *));
    out->lo_s = malloc((base->n > 0 ? base->n : 1) * sizeof *out->lo_s);
    out->hi_s = malloc((base->n > 0 ? base->n : 1) * sizeof *out->hi_s);
    if (out->seg == NULL || out->lo_s == NULL || out->hi_s == NULL) {
        series_set_clear(out);
        return error_set(err, STATUS_NOMEM, "sweep step of %zu segments", base->n);
    }
    for (size_t i = 0; i < base->n && rc == STATUS_OK; i++) {
        out->lo_s[i] = base->lo_s[i];
        out->hi_s[i] = base->hi_s[i];
        rc = stats_series_coarsen(base->seg[i], k, phase, xff, &out->seg[i], err);
        if (rc == STATUS_OK)
            out->n++;
    }
    if (rc != STATUS_OK)
        series_set_clear(out);
    return rc;
}

/* k = 1 is the base series itself (analysis_association's, bit for bit); every other
 * step is coarsened from it. base_take is owned here on every path. */
static enum status steps_make(struct sweep_run *r, struct series_set *base_take,
                              struct error *err)
{
    unsigned k_max = r->s->k_max;
    size_t n = 0;
    enum status rc = STATUS_OK;

    for (unsigned k = 1; k <= k_max; k++)
        n += r->s->all_phases ? k : 1;
    r->steps = calloc(n > 0 ? n : 1, sizeof *r->steps);
    if (r->steps == NULL) {
        series_set_clear(base_take);
        return error_set(err, STATUS_NOMEM, "sweep steps");
    }
    r->steps[0] =
        (struct sweep_step){.k = 1, .phase = 0, .k_index = 0, .set = *base_take};
    *base_take = (struct series_set){0};
    const struct series_set *base = &r->steps[0].set;
    r->n_steps = 1;
    for (unsigned k = 2; rc == STATUS_OK && k <= k_max; k++) {
        unsigned phases = r->s->all_phases ? k : 1;
        for (unsigned phase = 0; rc == STATUS_OK && phase < phases; phase++) {
            struct sweep_step *s = &r->steps[r->n_steps];
            *s = (struct sweep_step){.k = k, .phase = phase, .k_index = k - 1};
            rc = set_coarsen(base, k, phase, r->s->xff, &s->set, err);
            if (rc == STATUS_OK)
                r->n_steps++;
        }
    }
    return rc;
}

/* ---- one group ------------------------------------------------------------------ */

/* Every pair's values of every job at every step: one evaluation per (step, job). */
static enum status group_eval(struct sweep_run *r, const struct db_jobs *jobs,
                              struct error *err)
{
    struct analysis_scratch scratch = {0};
    enum status rc = analysis_scratch_init(&scratch, jobs, err);

    for (size_t s = 0; rc == STATUS_OK && s < r->n_steps; s++) {
        for (size_t j = 0; rc == STATUS_OK && j < jobs->n; j++) {
            size_t at = (s * r->d_max + j) * N_PAIRS;
            const struct db_job *job = &jobs->jobs[j];
            rc = analysis_job_pairs(
                series_set_at(&r->steps[s].set, job->start_s, job->end_s), job, r->pairs,
                N_PAIRS, &scratch, r->y + at, r->x + at, r->excl + at,
                &r->m[s * r->d_max + j], err);
        }
        progress_step(r);
    }
    analysis_scratch_clear(&scratch);
    return rc;
}

/* What the job set of one pair is: jobs counting at every step (docs/method.md §6). */
struct job_set {
    size_t d;                    /* jobs in the set */
    size_t valid_at_base;        /* jobs counting at k = 1 */
    size_t dropped;              /* of those, not counting at some step */
    size_t excluded[EXCL_COUNT]; /* why jobs do not count at k = 1 */
};

static void job_set_decide(struct sweep_run *r, size_t n_jobs, size_t pair,
                           struct job_set *set)
{
    memset(set, 0, sizeof *set);
    for (size_t j = 0; j < n_jobs; j++) {
        unsigned char base = r->excl[j * N_PAIRS + pair];
        bool every = true;
        for (size_t s = 1; every && s < r->n_steps; s++)
            every = r->excl[(s * r->d_max + j) * N_PAIRS + pair] == EXCL_NONE;
        set->excluded[base]++;
        if (base == EXCL_NONE) {
            set->valid_at_base++;
            set->dropped += every ? 0 : 1;
        }
        r->fixed[j] = base == EXCL_NONE && every;
        set->d += r->fixed[j];
    }
}

static void points_reset(struct sweep_run *r)
{
    for (size_t i = 0; i < r->s->k_max; i++) {
        struct sweep_point *p = &r->res.points[i];
        memset(p, 0, sizeof *p);
        for (size_t c = 0; c < COEF_COUNT; c++) {
            p->lo[c] = INFINITY;
            p->hi[c] = -INFINITY;
        }
        p->m_lo = INFINITY;
        p->m_hi = -INFINITY;
        p->kde.wr_lo = p->kde.pwr_lo = INFINITY;
        p->kde.wr_hi = p->kde.pwr_hi = -INFINITY;
    }
}

/* Adds one phase's KDE to its point; the first fitted phase gives the bands. */
static void point_add_kde(struct sweep_kde *p, const struct stats_kde *k, unsigned phase)
{
    if (k->reason != REASON_NONE || !isfinite(k->width_ratio)) {
        if (p->defined == 0 && p->reason == REASON_NONE)
            p->reason = k->reason != REASON_NONE ? k->reason : REASON_NOT_COMPUTED;
        return;
    }
    if (p->defined == 0) {
        p->bands_phase = phase;
        kde_bands_of(k, &p->bands);
    }
    p->wr += k->width_ratio;
    p->wr_lo = fmin(p->wr_lo, k->width_ratio);
    p->wr_hi = fmax(p->wr_hi, k->width_ratio);
    /* paper_width_ratio is NAN only when sd is 0, which REASON_CONSTANT_Y caught */
    p->pwr += k->paper_width_ratio;
    p->pwr_lo = fmin(p->pwr_lo, k->paper_width_ratio);
    p->pwr_hi = fmax(p->pwr_hi, k->paper_width_ratio);
    p->defined++;
}

/* Adds one step's coefficients and mean |A| to its point. */
static void point_add(struct sweep_point *p, const struct stats_assoc *a, double m_mean)
{
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_coef *cs = analysis_coef_of(a, (enum coef_id)c);
        if (cs->reason == REASON_NONE && isfinite(cs->value)) {
            p->c[c] += cs->value; /* a sum until point_finish */
            p->lo[c] = fmin(p->lo[c], cs->value);
            p->hi[c] = fmax(p->hi[c], cs->value);
            p->defined[c]++;
        } else if (p->defined[c] == 0 && p->reason[c] == REASON_NONE) {
            p->reason[c] = cs->reason != REASON_NONE ? cs->reason : REASON_NOT_COMPUTED;
        }
    }
    if (isfinite(m_mean)) {
        p->m_sum += m_mean;
        p->m_lo = fmin(p->m_lo, m_mean);
        p->m_hi = fmax(p->m_hi, m_mean);
        p->m_phases++;
    }
    p->phases++;
}

static void point_finish(struct sweep_point *p)
{
    p->m_mean = p->m_phases > 0 ? p->m_sum / (double)p->m_phases : (double)NAN;
    for (size_t c = 0; c < COEF_COUNT; c++)
        p->c[c] = p->defined[c] > 0 ? p->c[c] / (double)p->defined[c] : (double)NAN;
    double n = (double)p->kde.defined;
    p->kde.wr = p->kde.defined > 0 ? p->kde.wr / n : (double)NAN;
    p->kde.pwr = p->kde.defined > 0 ? p->kde.pwr / n : (double)NAN;
}

/* The coefficients and the KDE bands of one pair at every step over its job set, into
 * r->res.points. The KDE is fitted without its density grid: the sweep stores no grid (20
 * of them per pair would dwarf the rest), and the grid is most of a fit's cost at
 * d <= STATS_KDE_EXACT_MAX. */
static enum status pair_compute(struct sweep_run *r, size_t n_jobs, size_t pair,
                                const struct job_set *set, struct error *err)
{
    struct stats_assoc_opts opts = {r->methods, r->s->d_min, r->s->seed, true};
    const struct stats_kde_opts kde_opts = {KDE_SPACE_AUTO, KDE_KERNEL_PRODUCT,
                                            r->s->d_min, true, KDE_BW_NORMAL};
    enum status rc = STATUS_OK;

    points_reset(r);
    for (size_t s = 0; rc == STATUS_OK && s < r->n_steps; s++) {
        size_t d = 0;
        double m_sum = 0;
        size_t m_n = 0;
        for (size_t j = 0; j < n_jobs; j++) {
            if (!r->fixed[j])
                continue;
            size_t at = (s * r->d_max + j) * N_PAIRS + pair;
            r->ys[d] = r->y[at];
            r->xs[d] = r->x[at];
            d++;
            double m = r->m[s * r->d_max + j];
            if (isfinite(m)) {
                m_sum += m;
                m_n++;
            }
        }
        struct stats_assoc a;
        struct sweep_point *p = &r->res.points[r->steps[s].k_index];
        rc = stats_assoc_compute(r->xs, r->ys, set->d, &opts, r->ws, &a, err);
        if (rc == STATUS_OK)
            point_add(p, &a, m_n > 0 ? m_sum / (double)m_n : (double)NAN);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (rc == STATUS_OK) {
            rc = stats_kde_compute(r->xs, r->ys, set->d, &kde_opts, r->kde_ws, r->kde,
                                   err);
        }
        if (rc == STATUS_OK)
            point_add_kde(&p->kde, r->kde, r->steps[s].phase);
        r->t_kde += analysis_seconds_since(&t0);
        progress_step(r);
    }
    for (size_t i = 0; i < r->s->k_max; i++)
        point_finish(&r->res.points[i]);
    if (rc != STATUS_OK)
        return rc;
    /* And k = 1 over the association object's jobs, that the two can be compared. */
    size_t d = 0;
    for (size_t j = 0; j < n_jobs; j++) {
        if (r->excl[j * N_PAIRS + pair] == EXCL_NONE) {
            r->ys[d] = r->y[j * N_PAIRS + pair];
            r->xs[d] = r->x[j * N_PAIRS + pair];
            d++;
        }
    }
    r->res.d_at_base = d;
    return stats_assoc_compute(r->xs, r->ys, d, &opts, r->ws, &r->res.at_base, err);
}

/* ---- the verdicts and the result ------------------------------------------------ */

static bool coef_computed(const struct sweep_run *r, size_t c)
{
    return (r->methods & analysis_coefs[c].method) != 0;
}

/* The verdicts of docs/method.md §6 over the curves c(k) (the phase mean with every
 * phase): falling per coefficient (undefined when c(1) is) and the recommended
 * sampling interval over the watched coefficients computed. */
static enum status verdicts_compute(const struct sweep_run *r, struct sweep_verdicts *v,
                                    struct error *err)
{
    size_t n = r->s->k_max;
    unsigned *ks = malloc((n > 0 ? n : 1) * sizeof *ks);
    double *cs = malloc(COEF_COUNT * (n > 0 ? n : 1) * sizeof *cs);
    struct stats_sweep_curve curves[COEF_COUNT], watched[COEF_COUNT];
    size_t n_watched = 0;
    enum status rc = STATUS_OK;

    *v = (struct sweep_verdicts){.drop = SWEEP_DROP,
                                 .rho_max = SWEEP_RHO_MAX,
                                 .tolerance = SWEEP_TOLERANCE,
                                 .recommended_interval_s = NAN};
    if (ks == NULL || cs == NULL) {
        rc = error_set(err, STATUS_NOMEM, "sweep curves");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        ks[i] = (unsigned)i + 1;
    for (size_t c = 0; c < COEF_COUNT; c++) {
        for (size_t i = 0; i < n; i++)
            cs[c * n + i] = r->res.points[i].c[c];
        curves[c] = (struct stats_sweep_curve){.k = ks, .c = cs + c * n, .n = n};
    }
    for (size_t c = 0; rc == STATUS_OK && c < COEF_COUNT; c++) {
        bool f = false;
        v->falling[c] = -1;
        if (!coef_computed(r, c))
            continue;
        rc = stats_sweep_falling(&curves[c], SWEEP_DROP, SWEEP_RHO_MAX, &f, err);
        v->falling[c] = isfinite(curves[c].c[0]) ? f : -1;
        if (analysis_coefs[c].watched)
            watched[n_watched++] = curves[c];
    }
    if (rc == STATUS_OK && n_watched > 0) {
        rc = stats_sweep_recommended(watched, n_watched, SWEEP_TOLERANCE,
                                     &v->recommended_k, err);
    }
    /* 0: some watched coefficient is undefined at k = 1: nothing can be said. */
    if (rc == STATUS_OK && v->recommended_k > 0)
        v->recommended_interval_s = r->delta_s * v->recommended_k;
out:
    free(ks);
    free(cs);
    return rc;
}

/* The sweep result of one pair (docs/api.md: "The sweep object") into r->res, beside the
 * points pair_compute made. */
static enum status result_fill(struct sweep_run *r, const struct db_group *g, size_t pair,
                               size_t n_jobs, const struct job_set *set,
                               struct error *err)
{
    struct sweep_result *res = &r->res;

    snprintf(res->group, sizeof res->group, "%s", g->id);
    snprintf(res->y, sizeof res->y, "%s", sweep_pairs[pair][0]);
    snprintf(res->x, sizeof res->x, "%s", sweep_pairs[pair][1]);
    snprintf(res->scope, sizeof res->scope, "all");
    res->base_granularity_s = r->delta_s;
    res->k_max = r->s->k_max;
    res->all_phases = r->s->all_phases;
    res->methods = r->methods;
    res->d = set->d;
    res->in_group = n_jobs;
    res->valid_at_base = set->valid_at_base;
    res->dropped = set->dropped;
    memcpy(res->excluded_at_base, set->excluded, sizeof res->excluded_at_base);
    for (size_t i = 0; i < r->s->k_max; i++) {
        res->points[i].k = (unsigned)i + 1;
        res->points[i].granularity_s = r->delta_s * (unsigned)(i + 1);
        res->points[i].d = set->d;
    }
    res->d_min = r->s->d_min;
    res->seed = r->s->seed;
    return verdicts_compute(r, &res->verdicts, err);
}

/* ---- the run -------------------------------------------------------------------- */

static void run_clear(struct sweep_run *r)
{
    steps_free(r->steps, r->n_steps);
    stats_ws_free(r->ws);
    stats_kde_ws_free(r->kde_ws);
    free(r->kde);
    free(r->y);
    free(r->x);
    free(r->excl);
    free(r->m);
    free(r->ys);
    free(r->xs);
    free(r->fixed);
    free(r->res.points);
}

/* The per-step arrays, sized once for the largest group. */
static enum status run_alloc(struct sweep_run *r, struct error *err)
{
    size_t d = r->d_max > 0 ? r->d_max : 1;
    size_t cells = r->n_steps * d * N_PAIRS;

    r->ws = stats_ws_new(d);
    r->kde_ws = stats_kde_ws_new(d);
    r->kde = malloc(sizeof *r->kde);
    r->y = malloc(cells * sizeof *r->y);
    r->x = malloc(cells * sizeof *r->x);
    r->excl = malloc(cells);
    r->m = malloc(r->n_steps * d * sizeof *r->m);
    r->ys = malloc(d * sizeof *r->ys);
    r->xs = malloc(d * sizeof *r->xs);
    r->fixed = malloc(d);
    r->res.points = calloc(r->s->k_max, sizeof *r->res.points);
    if (r->ws == NULL || r->kde_ws == NULL || r->kde == NULL || r->y == NULL ||
        r->x == NULL || r->excl == NULL || r->m == NULL || r->ys == NULL ||
        r->xs == NULL || r->fixed == NULL || r->res.points == NULL) {
        return error_set(err, STATUS_NOMEM, "sweep of %zu steps over %zu jobs",
                         r->n_steps, d);
    }
    return STATUS_OK;
}

static void log_pair(const struct db_group *g, size_t pair, const struct sweep_run *r,
                     const struct job_set *set)
{
    const struct sweep_point *first = &r->res.points[0];
    const struct sweep_point *last = &r->res.points[r->s->k_max - 1];
    const unsigned k_rec = r->res.verdicts.recommended_k;
    char rec[48];

    if (k_rec > 0) {
        snprintf(rec, sizeof rec, "%g s (k = %u)", r->delta_s * k_rec, k_rec);
    } else {
        snprintf(rec, sizeof rec, "none");
    }
    log_info("group %s (%s): %s~%s d = %zu (%zu dropped), pearson %.3f at k = 1, "
             "%.3f at k = %u; recommended interval %s",
             g->id, g->name, sweep_pairs[pair][0], sweep_pairs[pair][1], set->d,
             set->dropped, first->c[0], last->c[0], r->s->k_max, rec);
}

/* Loads the group's jobs once, evaluates them at every step, and computes and stores
 * the sweep of every pair. */
static enum status group_sweep(struct sweep_run *r, struct db *db,
                               const struct db_group *g, struct analyze_summary *t,
                               struct error *err)
{
    struct db_jobs *jobs = NULL;
    struct timespec t0;
    enum status rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = db_jobs_of_group(db, g->id, &jobs, err);
    r->t_jobs += analysis_seconds_since(&t0);
    if (rc != STATUS_OK)
        return rc;
    if (jobs->n > r->d_max) { /* jobs arrived since the groups were counted */
        progress_clear(r);
        log_warn("group %s: %zu jobs, counted %zu; the newest are left out", g->id,
                 jobs->n, r->d_max);
        jobs->n = r->d_max;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r->group_name = g->name;
    rc = group_eval(r, jobs, err);
    r->t_eval += analysis_seconds_since(&t0);
    const bool traced = analysis_jobs_have_trace(jobs);
    const size_t n_pairs = traced ? N_PAIRS : N_UNTRACED_PAIRS;
    r->traced = r->traced || traced;
    r->units_done += (N_PAIRS - n_pairs) * r->n_steps; /* the pairs left out */
    for (size_t p = 0; rc == STATUS_OK && p < n_pairs; p++) {
        struct job_set set;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        job_set_decide(r, jobs->n, p, &set);
        rc = pair_compute(r, jobs->n, p, &set, err);
        if (rc == STATUS_OK)
            rc = result_fill(r, g, p, jobs->n, &set, err);
        r->t_coef += analysis_seconds_since(&t0);
        if (rc != STATUS_OK)
            break;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        char *text = analysis_sweep_text(&r->res);
        rc = text != NULL
                 ? db_sweep_store(db, g->id, sweep_pairs[p][0], sweep_pairs[p][1],
                                  r->delta_s, "all", text, err)
                 : error_set(err, STATUS_NOMEM, "sweep text");
        free(text);
        r->t_store += analysis_seconds_since(&t0);
        if (rc != STATUS_OK)
            break;
        progress_clear(r);
        log_pair(g, p, r, &set);
        if (p == 0) {
            t->jobs_used += (long)set.d;
            t->jobs_excluded += (long)(jobs->n - set.valid_at_base);
            t->jobs_dropped += (long)set.dropped;
            t->groups_short += set.d < r->s->d_min ? 1 : 0;
        }
    }
    t->groups_done += rc == STATUS_OK ? 1 : 0;
    db_jobs_free(jobs);
    return rc;
}

/* The work of analysis_groups_each for one group. */
struct sweep_work {
    struct sweep_run *r;
    struct analyze_summary *sum;
};

static enum status sweep_one(void *arg, struct db *db, const struct db_group *g,
                             const struct db_group_inputs *inputs, struct error *err)
{
    struct sweep_work *w = arg;

    (void)inputs;
    return group_sweep(w->r, db, g, w->sum, err);
}

enum status analyze_sweep_run(struct db *db, const struct analysis_settings *settings,
                              const char *group_id, const struct analyze_select *sel,
                              const struct progress *progress,
                              struct analyze_summary *sum, struct error *err)
{
    struct sweep_run r = {.s = settings, .progress = progress};
    struct sweep_work work = {.r = &r, .sum = sum};
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    struct series_set base = {0};
    struct timespec t0;
    char settings_text[256];
    enum status rc;

    memset(sum, 0, sizeof *sum);
    clock_gettime(CLOCK_MONOTONIC, &r.started);
    r.methods = stats_methods_available();
    for (size_t p = 0; p < N_PAIRS; p++) {
        rc =
            analysis_pair_resolve(sweep_pairs[p][0], sweep_pairs[p][1], &r.pairs[p], err);
        if (rc != STATUS_OK)
            return error_set(err, STATUS_INTERNAL, "sweep pair %zu", p);
    }
    rc = analysis_groups_refresh(db, settings, err);
    if (rc == STATUS_OK)
        rc = analysis_groups_select(db, group_id, &groups, &n_groups, err);
    for (size_t g = 0; rc == STATUS_OK && g < n_groups; g++) {
        if ((size_t)groups[g].jobs > r.d_max)
            r.d_max = (size_t)groups[g].jobs;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (rc == STATUS_OK)
        rc = analysis_base_series(db, settings, REACH_JOBS, &base, &r.delta_s, err);
    if (rc == STATUS_OK)
        rc = steps_make(&r, &base, err); /* owns base from here */
    r.t_series = analysis_seconds_since(&t0);
    if (rc == STATUS_OK)
        rc = run_alloc(&r, err);
    r.units_total = n_groups * r.n_steps * (1 + N_PAIRS);
    /* Everything beside the jobs and samples a stored sweep depends on (the pairs:
     * a version that sweeps more of them sweeps every group again). */
    int n = snprintf(settings_text, sizeof settings_text,
                     "version=%s;kind=sweep;pairs=%zu;k_max=%u;phases=%s;d_min=%zu;"
                     "seed=%lu;theta=%.17g;base_granularity=%.17g",
                     IOCONTEND_VERSION, N_PAIRS, settings->k_max,
                     settings->all_phases ? "all" : "0", settings->d_min, settings->seed,
                     settings->theta_s, settings->base_granularity_s);
    analysis_gap_settings(settings, settings_text, sizeof settings_text, n);
    if (rc == STATUS_OK) {
        rc = analysis_groups_each(db, groups, n_groups, sel, "sweep", settings_text, NULL,
                                  sweep_one, &work, sum, err);
    }
    if (rc != STATUS_OK) {
        progress_clear(&r);
        goto out;
    }
    sum->seconds = analysis_seconds_since(&r.started);
    struct error rec = {0};
    const struct db_analysis_run run = {.kind = "sweep",
                                        .groups = sum->groups_done,
                                        .jobs = sum->jobs_used,
                                        .excluded =
                                            sum->jobs_excluded + sum->jobs_dropped,
                                        .seconds = sum->seconds};
    if (db_analysis_run_record(db, &run, &rec) != STATUS_OK)
        log_warn("analyze --sweep: could not record the run: %s", rec.msg);
    log_info(
        "analyze --sweep: %ld groups computed (%ld below d_min = %zu), %ld unchanged "
        "and kept, %ld without new inputs; %zu pairs, k = 1..%u "
        "(%s), %zu series; t_d~psi_d_read: %ld jobs used, %ld excluded at k = 1, "
        "%ld dropped as not valid at every k; %.2f s (series %.2f, jobs %.2f, "
        "metrics %.2f, coefficients %.2f of which KDE %.2f, store %.2f)",
        sum->groups_done, sum->groups_short, settings->d_min, sum->groups_unchanged,
        sum->groups_untouched, r.traced ? N_PAIRS : N_UNTRACED_PAIRS, settings->k_max,
        settings->all_phases ? "every phase" : "phase 0", r.n_steps, sum->jobs_used,
        sum->jobs_excluded, sum->jobs_dropped, sum->seconds, r.t_series, r.t_jobs,
        r.t_eval, r.t_coef, r.t_kde, r.t_store);
out:
    run_clear(&r);
    free(groups);
    return rc;
}
