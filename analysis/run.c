/* run.c: `analyze` over the groups: which groups a run computes (one, all, those with
 * inputs loaded since a time, those whose inputs changed), and the associations of
 * the default pairs (docs/method.md §8) stored with their provenance. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The pairs of docs/method.md §8 that analyze computes by default, then §11's: I/O time
 * against the servers' queue over the job's I/O. */
static const char *const default_pairs[ANALYZE_DEFAULT_PAIRS][2] = {
    {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
    {"t_um", "psi_o_write"}, {"t_d", "q_d"},         {"tau", "q_d"},
};

/* The pairs of docs/method.md §10 that analyze computes besides, for a group one of whose
 * jobs has a DXT trace: a group without any keeps exactly the default pairs. */
static const char *const trace_pairs[ANALYZE_TRACE_PAIRS][2] = {
    {"t_x", "psi_x_read"},
    {"t_x", "psi_x_write"},
};

double analysis_seconds_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

bool analyze_summary_partial(const struct analyze_summary *sum)
{
    return sum->groups_short > 0 || sum->jobs_excluded > 0 || sum->jobs_dropped > 0;
}

enum status analysis_groups_each(struct db *db, const struct db_group *groups, size_t n,
                                 const struct analyze_select *sel, const char *kind,
                                 const char *settings, const struct progress *progress,
                                 group_work_fn work, void *arg,
                                 struct analyze_summary *sum, struct error *err)
{
    char(*touched)[17] = NULL;
    size_t n_touched = 0;
    enum status rc = STATUS_OK;

    if (sel->since_set)
        rc = db_groups_touched_since(db, sel->since_s, &touched, &n_touched, err);
    for (size_t g = 0; rc == STATUS_OK && g < n; g++) {
        const struct db_group *group = &groups[g];
        struct db_group_inputs inputs;
        bool hit = !sel->since_set;

        if (progress != NULL)
            progress->fn(progress->arg, g + 1, n, group->name);
        for (size_t i = 0; i < n_touched && !hit; i++)
            hit = strcmp(touched[i], group->id) == 0;
        if (!hit) {
            sum->groups_untouched++;
            continue;
        }
        rc = db_group_inputs_read(db, group->id, kind, settings, &inputs, err);
        if (rc != STATUS_OK) {
            error_wrap(err, "group %s: reading its inputs", group->id);
            break;
        }
        /* Unchanged inputs give the same results: leave them (and their times). */
        if (!sel->force && strcmp(inputs.fingerprint, inputs.stored_fingerprint) == 0) {
            log_debug("group %s (%s): inputs unchanged (%ld jobs, %lld samples), kept",
                      group->id, group->name, inputs.jobs, inputs.samples);
            sum->groups_unchanged++;
            continue;
        }
        rc = work(arg, db, group, &inputs, err);
        if (rc != STATUS_OK)
            break;
        rc = db_group_inputs_store(db, group->id, kind, settings, &inputs, err);
        if (rc != STATUS_OK)
            error_wrap(err, "storing the inputs of group %s", group->id);
    }
    free(touched);
    return rc;
}

/* Everything beside the jobs and samples that a stored association result depends
 * on: a change of any of them recomputes every group. */
static void settings_text(const struct analysis_settings *s, double granularity_s,
                          char *out, size_t size)
{
    int n = snprintf(
        out, size,
        "version=%s;kind=association;pairs=%zu;d_min=%zu;seed=%lu;theta=%.17g;"
        "base_granularity=%.17g;granularity=%.17g;permutations=%zu;rf_trees=%d",
        IOCONTEND_VERSION, (size_t)ANALYZE_DEFAULT_PAIRS, s->d_min, s->seed, s->theta_s,
        s->base_granularity_s, granularity_s, s->permutations, STATS_RF_TREES);
    analysis_gap_settings(s, out, size, n);
}

void analysis_gap_settings(const struct analysis_settings *s, char *out, size_t size,
                           int len)
{
    if ((s->fill_max == 0 && s->xff == 0) || len < 0 || (size_t)len >= size)
        return;
    snprintf(out + len, size - (size_t)len, ";fill_max=%u;xff=%.17g", s->fill_max,
             s->xff);
}

/* The provenance stored with each result: what it was computed from. */
static void provenance_of(const struct db_group_inputs *in, const char *settings,
                          unsigned long seed, struct assoc_provenance *out)
{
    *out =
        (struct assoc_provenance){.jobs = in->jobs, .samples = in->samples, .seed = seed};
    snprintf(out->jobs_md5, sizeof out->jobs_md5, "%s", in->jobs_md5);
    snprintf(out->samples_md5, sizeof out->samples_md5, "%s", in->samples_md5);
    snprintf(out->version, sizeof out->version, "%s", IOCONTEND_VERSION);
    snprintf(out->settings, sizeof out->settings, "%s", settings);
}

/* A number with 3 decimals (3 significant digits when general), or "null". */
static void number_text(double v, bool general, char *out, size_t size)
{
    if (isfinite(v)) {
        snprintf(out, size, general ? "%.3g" : "%.3f", v);
    } else {
        snprintf(out, size, "null");
    }
}

/* What every group of one analyze run shares. */
struct assoc_work {
    const struct analysis_settings *s;
    double granularity_s;
    struct assoc_opts opts;
    const char *settings; /* settings_text */
    struct analyze_summary *sum;
};

/* Logs the first pair's line of a group and counts it in the summary. */
static void first_pair_done(struct assoc_work *w, const struct db_group *g,
                            const struct assoc_result *res)
{
    char r[32], wr[32], pw[32];
    long excluded = 0;
    bool undefined = false;

    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++) {
        w->sum->excluded_by_reason[e] += (long)res->excluded[e];
        excluded += (long)res->excluded[e];
    }
    for (size_t c = 0; c < COEF_COUNT; c++) {
        undefined =
            undefined || (analysis_coef_of(&res->coefs, (enum coef_id)c)->reason !=
                              REASON_NOT_COMPUTED &&
                          !analysis_coef_defined(&res->coefs, (enum coef_id)c));
    }
    w->sum->jobs_used += (long)res->coefs.d;
    w->sum->jobs_excluded += excluded;
    w->sum->groups_short += undefined ? 1 : 0;
    number_text(analysis_coef_defined(&res->coefs, COEF_PEARSON)
                    ? res->coefs.pearson.value
                    : (double)NAN,
                false, r, sizeof r);
    number_text(res->kde != NULL ? res->kde->width_ratio : (double)NAN, false, wr,
                sizeof wr);
    number_text(res->signif != NULL && res->signif->extra[0].reason != REASON_NOT_COMPUTED
                    ? res->signif->extra[0].p_value
                    : (double)NAN,
                true, pw, sizeof pw);
    log_info("group %s (%s): d = %ld, excluded %ld, t_d~psi_d_read: "
             "pearson %s, width_ratio %s (p %s)",
             g->id, g->name, (long)res->coefs.d, excluded, r, wr, pw);
}

static enum status assoc_one(void *arg, struct db *db, const struct db_group *g,
                             const struct db_group_inputs *inputs, struct error *err)
{
    struct assoc_work *w = arg;
    struct assoc_inputs in;
    /* The group's series and jobs, read once for all its pairs. */
    enum status rc =
        assoc_inputs_load(db, w->s, g->id, w->granularity_s, "all", &in, err);
    if (rc != STATUS_OK) {
        error_wrap(err, "group %s", g->id);
        return rc;
    }
    bool traced = analysis_jobs_have_trace(in.jobs);
    size_t n_pairs = ANALYZE_DEFAULT_PAIRS + (traced ? ANALYZE_TRACE_PAIRS : 0);

    for (size_t p = 0; rc == STATUS_OK && p < n_pairs; p++) {
        const char *const *pair = p < ANALYZE_DEFAULT_PAIRS
                                      ? default_pairs[p]
                                      : trace_pairs[p - ANALYZE_DEFAULT_PAIRS];
        const char *y = pair[0], *x = pair[1];
        struct assoc_result *res = NULL;

        rc = association_of(db, w->s, &in, y, x, &w->opts, &res, err);
        if (rc != STATUS_OK) {
            error_wrap(err, "group %s %s~%s", g->id, y, x);
            break;
        }
        res->has_provenance = true;
        provenance_of(inputs, w->settings, w->s->seed, &res->provenance);
        char *text = analysis_assoc_text(res);
        rc = text != NULL ? db_result_store(db, g->id, y, x, res->granularity_s, "auto",
                                            "all", text, err)
                          : error_set(err, STATUS_NOMEM, "result text");
        free(text);
        if (p == 0)
            first_pair_done(w, g, res);
        assoc_result_free(res);
        if (rc != STATUS_OK)
            error_wrap(err, "group %s %s~%s: storing", g->id, y, x);
    }
    assoc_inputs_clear(&in);
    if (rc == STATUS_OK)
        w->sum->groups_done++;
    return rc;
}

/* The tables and the coverage come from the groups' inputs: they are recomputed
 * when those changed since they were stored (samples that could change the coverage
 * fall within a day of some job, and so change that job's group's fingerprint) —
 * also when a run was killed after its last group and before them — or when a
 * group was recomputed anyway (--force). */
static enum status tables_refresh(struct db *db, const struct analysis_settings *s,
                                  const char *group_id, bool groups_done,
                                  struct error *err)
{
    char settings[256], current[33], stored[33];

    int n = snprintf(settings, sizeof settings,
                     "version=%s;kind=tables;theta=%.17g;base_granularity=%.17g",
                     IOCONTEND_VERSION, s->theta_s, s->base_granularity_s);
    analysis_gap_settings(s, settings, sizeof settings, n); /* the series are filled */
    enum status rc = db_tables_inputs_read(db, settings, current, stored, err);
    if (rc != STATUS_OK)
        return rc;
    bool changed = strcmp(current, stored) != 0;
    if (!changed && !groups_done) {
        log_info("analyze: no group's inputs changed: group tables and coverage kept");
        return STATUS_OK;
    }
    /* Tables stored from other inputs may be any group's: all of them go again. */
    rc = analyze_tables_run(db, s, changed ? NULL : group_id, err);
    return rc == STATUS_OK ? db_tables_inputs_store(db, current, err) : rc;
}

/* At most this many groups are named one by one; the rest are counted. */
#define UNMONITORED_NAMED 10

/* Warns of each group (of the run: group_id, or all) whose jobs read or wrote no file
 * on a monitored file system: its coverage is 0 and its jobs' server series scoped
 * to what they touched are empty, which a [filesystems] missing or not matching the
 * jobs' mounts explains, and nothing else would say. */
static enum status warn_unmonitored(struct db *db, const struct analysis_settings *s,
                                    const char *group_id, struct error *err)
{
    struct db_group *groups = NULL;
    size_t n = 0;
    enum status rc = db_groups_unmonitored(db, group_id, &groups, &n, err);

    for (size_t g = 0; rc == STATUS_OK && g < n && g < UNMONITORED_NAMED; g++) {
        log_warn("group %s (%s): none of its %ld jobs read or wrote a file on a "
                 "monitored file system (%s%s); jobs loaded before [filesystems] named "
                 "their mounts are mapped again by `ingest darshan --reprocess`",
                 groups[g].id, groups[g].name, groups[g].jobs,
                 s->filesystems[0] != '\0' ? "[filesystems]: " : "",
                 s->filesystems[0] != '\0' ? s->filesystems
                                           : "no [filesystems] configured");
    }
    if (rc == STATUS_OK && n > UNMONITORED_NAMED) {
        log_warn("%zu more groups read or wrote no file on a monitored file system",
                 n - UNMONITORED_NAMED);
    }
    free(groups);
    return rc;
}

enum status analyze_run(struct db *db, const struct analysis_settings *s,
                        const char *group_id, double granularity_s,
                        const struct analyze_select *sel, const struct progress *progress,
                        struct analyze_summary *sum, struct error *err)
{
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    struct timespec t0;
    char settings[512];
    struct assoc_work w = {.s = s, .granularity_s = granularity_s, .sum = sum};
    enum status rc;

    memset(sum, 0, sizeof *sum);
    settings_text(s, granularity_s, settings, sizeof settings);
    w.settings = settings;
    /* docs/method.md §5: significance and the forest at the base granularity, seeded and
     * stored. */
    w.opts = assoc_opts_default(s);
    w.opts.significance = s->permutations > 0;
    w.opts.significance_base_only = true;
    w.opts.n_perm = s->permutations;
    w.opts.rf = true;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = analysis_groups_refresh(db, s, err);
    /* The groups' fingerprints read the series' per-day digests: current first. */
    if (rc == STATUS_OK)
        rc = scope_series_refresh(db, s, err);
    if (rc == STATUS_OK)
        rc = analysis_groups_select(db, group_id, &groups, &n_groups, err);
    if (rc == STATUS_OK) {
        rc = analysis_groups_each(db, groups, n_groups, sel, "association", settings,
                                  progress, assoc_one, &w, sum, err);
    }
    if (progress != NULL && n_groups > 0)
        progress->fn(progress->arg, 0, 0, NULL);
    free(groups);
    if (rc != STATUS_OK)
        return rc;
    rc = tables_refresh(db, s, group_id, sum->groups_done > 0, err);
    if (rc == STATUS_OK)
        rc = warn_unmonitored(db, s, group_id, err);
    if (rc != STATUS_OK)
        return rc;
    sum->seconds = analysis_seconds_since(&t0);
    struct error rec = {0};
    const char *reasons[EXCL_COUNT];
    long reason_jobs[EXCL_COUNT];
    size_t n_reasons = 0;
    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++) {
        reasons[n_reasons] = stats_exclusion_name((enum stats_exclusion)e);
        reason_jobs[n_reasons++] = sum->excluded_by_reason[e];
    }
    const struct db_analysis_run run = {.kind = "association",
                                        .groups = sum->groups_done,
                                        .jobs = sum->jobs_used,
                                        .excluded = sum->jobs_excluded,
                                        .seconds = sum->seconds,
                                        .reasons = reasons,
                                        .reason_jobs = reason_jobs,
                                        .n_reasons = n_reasons};
    if (db_analysis_run_record(db, &run, &rec) != STATUS_OK)
        log_warn("analyze: could not record the run: %s", rec.msg);
    char by_reason[256];
    size_t len = 0;
    by_reason[0] = '\0';
    for (int e = EXCL_NONE + 1; e < EXCL_COUNT && len < sizeof by_reason; e++) {
        if (sum->excluded_by_reason[e] == 0)
            continue;
        int n = snprintf(
            by_reason + len, sizeof by_reason - len, "%s%s %ld", len > 0 ? ", " : "",
            stats_exclusion_name((enum stats_exclusion)e), sum->excluded_by_reason[e]);
        len += n > 0 ? (size_t)n : 0;
    }
    log_info("analyze: %ld groups computed (%ld below d_min = %zu), %ld unchanged and "
             "kept, %ld without new inputs; %ld jobs used, %ld excluded%s%s%s; %.1f s",
             sum->groups_done, sum->groups_short, s->d_min, sum->groups_unchanged,
             sum->groups_untouched, sum->jobs_used, sum->jobs_excluded,
             by_reason[0] != '\0' ? " (" : "", by_reason, by_reason[0] != '\0' ? ")" : "",
             sum->seconds);
    return STATUS_OK;
}
