/* slowdowns.c: the KDE analyze stored, evaluated away from its 16 points: a group's
 * conditional quantiles at any x (the band at an x, analysis_band_at), and the
 * slowdowns: who got hurt in a period (each job's y against its group's median at
 * the job's own x, and its percentile). */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored KDE refitted on its group's jobs as they are now. */
struct group_fit {
    struct assoc_result *stored; /* what analyze stored; NULL: nothing */
    char computed_at[40];
    struct db_jobs *jobs; /* every job of the group, by start */
    unsigned char *excl;  /* per job: its enum stats_exclusion for the pair */
    double *jy, *jx;      /* per job: its values (meaningful when not excluded) */
    double *x, *y;        /* the d pairs of the fit */
    size_t d;
    struct stats_kde *fit;   /* NULL until fitted */
    struct stats_kde_ws *ws; /* for d jobs */
    const char *why;         /* NULL when fitted, else why the group's jobs are apart */
};

static void group_fit_clear(struct group_fit *g)
{
    assoc_result_free(g->stored);
    db_jobs_free(g->jobs);
    free(g->excl);
    free(g->jy);
    free(g->jx);
    free(g->x);
    free(g->y);
    free(g->fit);
    stats_kde_ws_free(g->ws);
    memset(g, 0, sizeof *g);
}

/* Equal but for the last digits JSON's 17 keep anyway: the stored bandwidths are those
 * of a fit on these very values. */
static bool same_bandwidth(double stored, double now)
{
    return fabs(stored - now) <= 1e-12 * fabs(stored);
}

/* The pairs of the group's jobs (as analyze collects them, space auto: no job is
 * excluded for its sign) and the KDE refitted with the stored options; g->why says
 * why there is none. */
static enum status fit_group(struct db *db, struct analysis_ctx *c, const char *group_id,
                             const struct metric_def *my, const struct metric_def *mx,
                             struct group_fit *g, struct error *err)
{
    struct analysis_scratch s = {0};
    enum status rc = db_jobs_of_group(db, group_id, &g->jobs, err);

    if (rc != STATUS_OK)
        return rc;
    const size_t n = g->jobs->n;
    g->excl = calloc(n + 1, 1);
    g->jy = calloc(n + 1, sizeof *g->jy);
    g->jx = calloc(n + 1, sizeof *g->jx);
    g->x = calloc(n + 1, sizeof *g->x);
    g->y = calloc(n + 1, sizeof *g->y);
    if (g->excl == NULL || g->jy == NULL || g->jx == NULL || g->x == NULL || g->y == NULL)
        return error_set(err, STATUS_NOMEM, "the jobs of group %s", group_id);
    rc = analysis_scratch_init(&s, g->jobs, err);
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        struct job_eval ev;
        rc = job_eval(c, &g->jobs->jobs[i], &s, &ev, err);
        if (rc != STATUS_OK)
            break;
        enum stats_exclusion e =
            pair_values(my, mx, &g->jobs->jobs[i], &ev, false, &g->jy[i], &g->jx[i]);
        g->excl[i] = (unsigned char)e;
        if (e == EXCL_NONE) {
            g->x[g->d] = g->jx[i];
            g->y[g->d] = g->jy[i];
            g->d++;
        }
    }
    analysis_scratch_clear(&s);
    if (rc != STATUS_OK)
        return rc;
    const struct stats_kde *st = g->stored->kde;
    if (st == NULL) {
        g->why = "not_analyzed";
        return STATUS_OK;
    }
    if (st->reason != REASON_NONE) {
        g->why = stats_reason_name(st->reason);
        return STATUS_OK;
    }
    if (g->d != g->stored->coefs.d) {
        g->why = "stale";
        return STATUS_OK;
    }
    /* d_min 2: analyze fitted these jobs, whatever d_min is now */
    const struct stats_kde_opts opts = {st->space, st->kernel, 2, true, st->bandwidth};
    g->fit = calloc(1, sizeof *g->fit);
    g->ws = stats_kde_ws_new(g->d > 0 ? g->d : 1);
    if (g->fit == NULL || g->ws == NULL)
        return error_set(err, STATUS_NOMEM, "KDE of group %s", group_id);
    rc = stats_kde_compute(g->x, g->y, g->d, &opts, g->ws, g->fit, err);
    if (rc == STATUS_INVALID) {
        /* the values moved under the stored space (a sign): not what was stored */
        error_clear(err);
        g->why = "stale";
        return STATUS_OK;
    }
    if (rc != STATUS_OK)
        return rc;
    if (g->fit->reason != REASON_NONE || !same_bandwidth(st->h_x, g->fit->h_x) ||
        !same_bandwidth(st->h_y, g->fit->h_y))
        g->why = "stale";
    return STATUS_OK;
}

/* What analyze stored for the group at c's granularity, then the fit; g->stored
 * stays NULL (g->why "not_analyzed") when nothing is. */
static enum status load_group(struct db *db, struct analysis_ctx *c, const char *group_id,
                              const struct metric_def *my, const struct metric_def *mx,
                              struct group_fit *g, struct error *err)
{
    char *text = NULL;
    struct error own = {0};
    enum status rc =
        db_result_get(db, group_id, my->name, mx->name, c->base_delta_s * c->k, "auto",
                      "all", &text, g->computed_at, err);

    if (rc == STATUS_NOT_FOUND) {
        error_clear(err);
        g->why = "not_analyzed";
        return STATUS_OK;
    }
    if (rc != STATUS_OK)
        return rc;
    rc = analysis_assoc_parse(text, &g->stored, &own);
    free(text);
    if (rc == STATUS_NOMEM)
        return error_set(err, rc, "%s", own.msg);
    if (rc != STATUS_OK) {
        log_warn("stored result of %s %s~%s: %s", group_id, my->name, mx->name, own.msg);
        g->why = "not_analyzed";
        return STATUS_OK;
    }
    return fit_group(db, c, group_id, my, mx, g, err);
}

static enum status check_pair(const char *y, const char *x, const struct metric_def **my,
                              const struct metric_def **mx, struct error *err)
{
    *my = metric_find(y);
    *mx = metric_find(x);
    if (*my == NULL)
        return error_param(err, STATUS_INVALID, "y", "unknown metric %s", y);
    if (*mx == NULL)
        return error_param(err, STATUS_INVALID, "x", "unknown metric %s", x);
    return STATUS_OK;
}

/* The stored forest refitted (its seed and trees) on the fit's pairs, at x_value. */
static enum status forest_at(const struct group_fit *g, double x_value,
                             struct band_result *out, struct error *err)
{
    const struct stats_rf *st = g->stored->rf;
    struct stats_rf_opts ro = stats_rf_opts_default();
    struct stats_rf *rf = calloc(1, sizeof *rf);
    struct stats_rf_ws *ws = stats_rf_ws_new(g->d > 0 ? g->d : 1);
    enum status rc;

    if (rf == NULL || ws == NULL) {
        rc = error_set(err, STATUS_NOMEM, "forest of %zu jobs", g->d);
        goto out;
    }
    ro.n_trees = st->trees;
    ro.seed = st->seed;
    ro.d_min = 2;
    rc = stats_rf_compute(g->x, g->y, g->d, &x_value, 1, &ro, ws, rf, &out->rf_fit, err);
    out->has_rf = rc == STATUS_OK && rf->reason == REASON_NONE;
    out->rf_trees = st->trees;
    out->rf_oob_r2 = st->oob_r2;
out:
    free(rf);
    stats_rf_ws_free(ws);
    return rc;
}

enum status analysis_band_at(struct db *db, const struct analysis_settings *s,
                             const char *group_id, const char *y, const char *x,
                             double granularity_s, double x_value,
                             struct band_result *out, struct error *err)
{
    const struct metric_def *my, *mx;
    struct db_group group;
    struct analysis_ctx ctx;
    struct group_fit g = {0};
    enum status rc;

    memset(out, 0, sizeof *out);
    memset(&ctx, 0, sizeof ctx);
    rc = check_pair(y, x, &my, &mx, err);
    if (rc != STATUS_OK)
        return rc;
    if (!isfinite(x_value))
        return error_param(err, STATUS_INVALID, "x_value", "x_value must be a number");
    rc = db_group_get(db, group_id, &group, err);
    if (rc != STATUS_OK)
        return rc;
    rc = ctx_prepare(db, s, granularity_s, "all", REACH_JOBS, group.id, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = load_group(db, &ctx, group_id, my, mx, &g, err);
    if (rc != STATUS_OK)
        goto out;
    snprintf(out->group, sizeof out->group, "%s", group.id);
    snprintf(out->y, sizeof out->y, "%s", my->name);
    snprintf(out->x, sizeof out->x, "%s", mx->name);
    out->granularity_s = ctx.base_delta_s * ctx.k;
    out->x_value = x_value;
    out->at = (struct stats_kde_point){false, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    out->h_x = out->h_y = out->rf_fit = out->rf_oob_r2 = NAN;
    if (g.stored == NULL) {
        rc = error_set(err, STATUS_NOT_FOUND,
                       "no association of %s~%s stored for group %s at %g s (iocontend "
                       "analyze stores it)",
                       y, x, group_id, out->granularity_s);
        goto out;
    }
    snprintf(out->computed_at, sizeof out->computed_at, "%s", g.computed_at);
    out->d = g.stored->coefs.d;
    out->space = g.stored->space;
    if (g.stored->kde != NULL && g.stored->kde->reason != REASON_NONE) {
        out->reason = g.stored->kde->reason; /* a fact about the data: 200 */
        goto out;
    }
    if (g.why != NULL) {
        rc = error_set(err, STATUS_NOT_FOUND,
                       "the association of %s~%s stored for group %s is not of its jobs "
                       "and samples as they are now (iocontend analyze stores it again)",
                       y, x, group_id);
        goto out;
    }
    out->h_x = g.fit->h_x;
    out->h_y = g.fit->h_y;
    rc = stats_kde_at(g.x, g.y, g.d, g.fit, x_value, NAN, NAN, g.ws, &out->at, err);
    if (rc != STATUS_OK)
        goto out;
    if (!out->at.in_range) {
        rc = error_param(err, STATUS_INVALID, "x_value",
                         "x_value %g is outside the KDE's x range [%g, %g]", x_value,
                         out->at.x_lo, out->at.x_hi);
        goto out;
    }
    if (g.stored->rf != NULL && g.stored->rf->reason == REASON_NONE)
        rc = forest_at(&g, x_value, out, err);
out:
    group_fit_clear(&g);
    ctx_clear(&ctx);
    return rc;
}

/* ---- who got hurt --------------------------------------------------------------- */

void slowdowns_clear(struct slowdowns *sl)
{
    free(sl->ranked);
    free(sl->apart);
    sl->ranked = sl->apart = NULL;
    sl->n_ranked = sl->n_apart = 0;
}

/* A growing list of jobs. */
struct job_list {
    struct slowdown_job *v;
    size_t n, cap;
};

static struct slowdown_job *list_add(struct job_list *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap > 0 ? 2 * l->cap : 64;
        struct slowdown_job *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    struct slowdown_job *j = &l->v[l->n++];
    memset(j, 0, sizeof *j);
    j->y = j->x = j->q05 = j->q50 = j->q95 = j->ratio = j->cdf = j->percentile = NAN;
    return j;
}

/* A standard normal drawn from the job's key and the seed (splitmix64 on its
 * FNV-1a hash, Box–Muller): the same for a job every time it is ranked. */
static double job_normal(const char *key, unsigned long seed)
{
    uint64_t h = UINT64_C(1469598103934665603) ^ (uint64_t)seed;
    double u[2];

    for (const char *c = key; *c != '\0'; c++)
        h = (h ^ (uint64_t)(unsigned char)*c) * UINT64_C(1099511628211);
    for (size_t i = 0; i < 2; i++) {
        h += UINT64_C(0x9E3779B97F4A7C15);
        uint64_t z = h;
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        z ^= z >> 31;
        u[i] = ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
    }
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
}

static bool in_period(const struct db_job *j, double from_s, double to_s)
{
    return (isnan(from_s) || j->end_s >= from_s) && (isnan(to_s) || j->start_s < to_s);
}

/* Highest ratio first; ties by start, then key. */
static int by_ratio(const void *a, const void *b)
{
    const struct slowdown_job *p = a, *q = b;

    if (p->ratio != q->ratio)
        return p->ratio > q->ratio ? -1 : 1;
    if (p->start_s != q->start_s)
        return p->start_s < q->start_s ? -1 : 1;
    return strcmp(p->job_key, q->job_key);
}

static int by_start(const void *a, const void *b)
{
    const struct slowdown_job *p = a, *q = b;

    if (p->start_s != q->start_s)
        return p->start_s < q->start_s ? -1 : 1;
    return strcmp(p->job_key, q->job_key);
}

/* Job keys, sorted once a group has added its own: the jobs a hand-made group with a
 * band has ranked, which their default group then leaves out. */
struct key_set {
    char (*v)[33];
    size_t n, cap;
    size_t sorted; /* the first sorted are in order: those of the groups before */
};

static int by_key(const void *a, const void *b)
{
    return strcmp(a, b);
}

static bool key_set_has(const struct key_set *k, const char *key)
{
    return k->sorted > 0 && bsearch(key, k->v, k->sorted, sizeof *k->v, by_key) != NULL;
}

static bool key_set_add(struct key_set *k, const char *key)
{
    if (k->n == k->cap) {
        size_t cap = k->cap > 0 ? 2 * k->cap : 64;
        char(*v)[33] = realloc(k->v, cap * sizeof *v);
        if (v == NULL)
            return false;
        k->v = v;
        k->cap = cap;
    }
    snprintf(k->v[k->n++], sizeof *k->v, "%s", key);
    return true;
}

static void key_set_sort(struct key_set *k)
{
    if (k->n > 1)
        qsort(k->v, k->n, sizeof *k->v, by_key);
    k->sorted = k->n;
}

/* Files each job of the period in g (whose id is group_id) into ranked or apart,
 * but those of skip; each one filed goes into claim when claim is not NULL. */
static enum status place_jobs(struct group_fit *g, const char *group_id,
                              unsigned long seed, double from_s, double to_s,
                              const struct key_set *skip, struct key_set *claim,
                              struct job_list *ranked, struct job_list *apart,
                              size_t *jobs, struct error *err)
{
    for (size_t i = 0; g->jobs != NULL && i < g->jobs->n; i++) {
        const struct db_job *dj = &g->jobs->jobs[i];
        if (!in_period(dj, from_s, to_s) ||
            (skip != NULL && key_set_has(skip, dj->job_key)))
            continue;
        if (claim != NULL && !key_set_add(claim, dj->job_key))
            return error_set(err, STATUS_NOMEM, "slowdowns");
        (*jobs)++;
        const char *why = g->why;
        struct stats_kde_point p = {0};
        if (why == NULL && g->excl[i] != EXCL_NONE)
            why = stats_exclusion_name((enum stats_exclusion)g->excl[i]);
        if (why == NULL) {
            enum status rc = stats_kde_at(g->x, g->y, g->d, g->fit, g->jx[i], g->jy[i],
                                          job_normal(dj->job_key, seed), g->ws, &p, err);
            if (rc != STATUS_OK)
                return rc;
            if (!p.in_range)
                why = "x_out_of_range";
        }
        struct slowdown_job *j = list_add(why == NULL ? ranked : apart);
        if (j == NULL)
            return error_set(err, STATUS_NOMEM, "slowdowns");
        snprintf(j->job_key, sizeof j->job_key, "%s", dj->job_key);
        snprintf(j->jobid, sizeof j->jobid, "%s", dj->jobid);
        snprintf(j->group, sizeof j->group, "%s", group_id);
        j->start_s = dj->start_s;
        j->end_s = dj->end_s;
        if (g->excl != NULL && g->excl[i] == EXCL_NONE) {
            j->y = g->jy[i];
            j->x = g->jx[i];
        }
        if (why != NULL) {
            snprintf(j->reason, sizeof j->reason, "%s", why);
            continue;
        }
        j->q05 = p.q05;
        j->q50 = p.q50;
        j->q95 = p.q95;
        j->ratio = j->y / p.q50;
        j->cdf = p.cdf;
        j->percentile = p.pit;
    }
    return STATUS_OK;
}

/* One group's jobs of the period: fitted, then filed (see place_jobs). With
 * band_only, nothing is filed unless the group has a band (a fitted KDE). */
static enum status rank_group(struct db *db, struct analysis_ctx *c,
                              const struct analysis_settings *s, const char *group_id,
                              const struct metric_def *my, const struct metric_def *mx,
                              double from_s, double to_s, bool band_only,
                              const struct key_set *skip, struct key_set *claim,
                              struct job_list *ranked, struct job_list *apart,
                              size_t *jobs, struct error *err)
{
    struct group_fit g = {0};
    enum status rc = load_group(db, c, group_id, my, mx, &g, err);

    if (rc == STATUS_OK && g.jobs == NULL && !band_only)
        rc = db_jobs_of_group(db, group_id, &g.jobs, err);
    if (rc == STATUS_OK && (!band_only || g.why == NULL)) {
        rc = place_jobs(&g, group_id, s->seed, from_s, to_s, skip, claim, ranked, apart,
                        jobs, err);
    }
    group_fit_clear(&g);
    return rc;
}

/* Fewest jobs first (the most specific), ties by id. */
static int by_size(const void *a, const void *b)
{
    const struct db_group *p = a, *q = b;

    if (p->jobs != q->jobs)
        return p->jobs < q->jobs ? -1 : 1;
    return strcmp(p->id, q->id);
}

/* The hand-made groups with a band rank their jobs of the period, the most specific
 * first; each job goes to the first (claimed). */
static enum status
rank_hand_groups(struct db *db, struct analysis_ctx *c, const struct analysis_settings *s,
                 const struct metric_def *my, const struct metric_def *mx, double from_s,
                 double to_s, struct key_set *claimed, struct job_list *ranked,
                 struct job_list *apart, size_t *jobs, struct error *err)
{
    struct db_group *groups = NULL;
    size_t n = 0, hand = 0;
    enum status rc = db_groups_list(db, &groups, &n, err);

    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        if (group_is_hand(&groups[i]) && groups[i].jobs > 0)
            groups[hand++] = groups[i];
    }
    if (hand > 1)
        qsort(groups, hand, sizeof *groups, by_size);
    for (size_t i = 0; rc == STATUS_OK && i < hand; i++) {
        rc = rank_group(db, c, s, groups[i].id, my, mx, from_s, to_s, true, claimed,
                        claimed, ranked, apart, jobs, err);
        key_set_sort(claimed);
    }
    free(groups);
    return rc;
}

enum status analysis_slowdowns(struct db *db, const struct analysis_settings *s,
                               double from_s, double to_s, const char *group_id,
                               const char *y, const char *x, double granularity_s,
                               size_t limit, struct slowdowns *out, struct error *err)
{
    const struct metric_def *my, *mx;
    struct analysis_ctx ctx;
    struct db_slowdowns_group *groups = NULL;
    size_t n_groups = 0;
    struct job_list ranked = {0}, apart = {0};
    struct key_set claimed = {0};
    struct db_group one;
    enum status rc;

    memset(out, 0, sizeof *out);
    memset(&ctx, 0, sizeof ctx);
    out->from_s = from_s;
    out->to_s = to_s;
    out->limit = limit;
    rc = check_pair(y, x, &my, &mx, err);
    if (rc != STATUS_OK)
        return rc;
    snprintf(out->y, sizeof out->y, "%s", my->name);
    snprintf(out->x, sizeof out->x, "%s", mx->name);
    if (group_id != NULL) {
        rc = db_group_get(db, group_id, &one, err);
        if (rc != STATUS_OK)
            return rc;
        snprintf(out->group, sizeof out->group, "%s", one.id);
    }
    rc = ctx_prepare(db, s, granularity_s, "all", REACH_JOBS, group_id, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    out->granularity_s = ctx.base_delta_s * ctx.k;
    if (group_id != NULL) {
        rc = rank_group(db, &ctx, s, one.id, my, mx, from_s, to_s, false, NULL, NULL,
                        &ranked, &apart, &out->jobs, err);
    } else {
        rc = rank_hand_groups(db, &ctx, s, my, mx, from_s, to_s, &claimed, &ranked,
                              &apart, &out->jobs, err);
        if (rc == STATUS_OK)
            rc = db_slowdowns_groups(db, from_s, to_s, &groups, &n_groups, err);
        for (size_t i = 0; rc == STATUS_OK && i < n_groups; i++) {
            rc = rank_group(db, &ctx, s, groups[i].id, my, mx, from_s, to_s, false,
                            &claimed, NULL, &ranked, &apart, &out->jobs, err);
        }
    }
    free(groups);
    free(claimed.v);
    ctx_clear(&ctx);
    if (rc != STATUS_OK) {
        free(ranked.v);
        free(apart.v);
        return rc;
    }
    if (ranked.n > 0)
        qsort(ranked.v, ranked.n, sizeof *ranked.v, by_ratio);
    if (apart.n > 0)
        qsort(apart.v, apart.n, sizeof *apart.v, by_start);
    out->ranked = ranked.v;
    out->ranked_total = ranked.n;
    out->n_ranked = ranked.n < limit ? ranked.n : limit;
    out->apart = apart.v;
    out->apart_total = apart.n;
    out->n_apart = apart.n < limit ? apart.n : limit;
    return STATUS_OK;
}
