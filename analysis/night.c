/* night.c: the night report's gathering: what was ingested and quarantined in a
 * period, which groups changed, who got hurt and the coverage, as one typed result. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The most intervals one scope of the report carries: 45 days of 1 s samples. */
#define NIGHT_INTERVALS_MAX 3888000

void night_clear(struct night *n)
{
    free(n->runs);
    free(n->quarantined);
    free(n->groups);
    for (size_t i = 0; i < n->n_assoc; i++)
        assoc_result_free(n->assoc[i].result);
    free(n->assoc);
    slowdowns_clear(&n->slowdowns);
    for (size_t i = 0; n->coverage_series != NULL && i < n->coverage.n; i++)
        db_coverage_series_clear(&n->coverage_series[i]);
    free(n->coverage_series);
    free(n->coverage_scopes);
    free(n->coverage_served);
    for (size_t i = 0; n->coverage_buckets != NULL && i < n->coverage.n; i++)
        coverage_buckets_clear(&n->coverage_buckets[i]);
    free(n->coverage_buckets);
    memset(n, 0, sizeof *n);
}

/* The stored associations changed in the period, read back. */
static enum status gather_assoc(struct db *db, struct night *n, struct error *err)
{
    struct db_night_result *rows = NULL;
    size_t n_rows = 0;
    enum status rc =
        db_night_results(db, n->from_s, n->to_s, n->y, n->x, &rows, &n_rows, err);

    if (rc != STATUS_OK)
        return rc;
    n->assoc = calloc(n_rows + 1, sizeof *n->assoc);
    if (n->assoc == NULL) {
        db_night_results_free(rows, n_rows);
        return error_set(err, STATUS_NOMEM, "associations of the period");
    }
    for (size_t i = 0; rc == STATUS_OK && i < n_rows; i++) {
        struct night_assoc *a = &n->assoc[i];
        struct error own = {0};
        snprintf(a->group, sizeof a->group, "%s", rows[i].group_id);
        snprintf(a->space, sizeof a->space, "%s", rows[i].space);
        snprintf(a->computed_at, sizeof a->computed_at, "%s", rows[i].computed_at);
        a->granularity_s = rows[i].granularity_s;
        rc = analysis_assoc_parse(rows[i].json, &a->result, &own);
        n->n_assoc = i + 1;
        if (rc == STATUS_NOMEM) {
            rc = error_set(err, rc, "%s", own.msg);
        } else if (rc != STATUS_OK) {
            /* a stored row that does not read is damage, not a fact of the period */
            rc = error_set(err, STATUS_INTERNAL, "stored association of group %s: %s",
                           a->group, own.msg);
        }
    }
    db_night_results_free(rows, n_rows);
    return rc;
}

/* The groups with jobs added or an association changed (n->assoc, by group). */
static enum status gather_groups(struct db *db, struct night *n, struct error *err)
{
    struct db_night_added *added = NULL;
    struct db_group *all = NULL;
    size_t n_added = 0, n_all = 0;
    enum status rc = db_night_jobs_added(db, n->from_s, n->to_s, &added, &n_added, err);

    if (rc == STATUS_OK)
        rc = db_groups_list(db, &all, &n_all, err);
    struct night_group *groups =
        rc == STATUS_OK ? calloc(n_all + 1, sizeof *groups) : NULL;
    if (groups == NULL) {
        free(added);
        free(all);
        return rc != STATUS_OK ? rc
                               : error_set(err, STATUS_NOMEM, "groups of the period");
    }
    n->groups = groups;
    /* db_groups_list orders by jobs, most first; the report lists by id, as the
     * other lists do */
    for (size_t i = 0; i < n_all; i++) {
        struct night_group g = {.group = all[i]};
        for (size_t k = 0; k < n_added; k++) {
            if (strcmp(added[k].group_id, all[i].id) == 0)
                g.jobs_added = added[k].jobs;
        }
        for (size_t k = 0; k < n->n_assoc; k++) {
            if (strcmp(n->assoc[k].group, all[i].id) != 0)
                continue;
            if (g.n_assoc++ == 0)
                g.first_assoc = k;
        }
        if (g.jobs_added == 0 && g.n_assoc == 0)
            continue;
        size_t at = n->n_groups++;
        while (at > 0 && strcmp(groups[at - 1].group.id, g.group.id) > 0) {
            groups[at] = groups[at - 1];
            at--;
        }
        groups[at] = g;
    }
    free(added);
    free(all);
    return STATUS_OK;
}

/* Who got hurt, as /api/v1/slowdowns?from=&to= answers it; no samples is a note. */
static enum status gather_slowdowns(struct db *db, const struct analysis_settings *s,
                                    size_t limit, struct night *n, struct error *err)
{
    struct error own = {0};
    enum status rc = analysis_slowdowns(db, s, n->from_s, n->to_s, NULL, n->y, n->x, 0,
                                        limit, &n->slowdowns, &own);

    if (rc == STATUS_NOT_FOUND) {
        snprintf(n->slowdowns_note, sizeof n->slowdowns_note, "%s", own.msg);
        return STATUS_OK;
    }
    if (rc != STATUS_OK) {
        if (err != NULL)
            *err = own;
        return rc;
    }
    n->has_slowdowns = true;
    return STATUS_OK;
}

/* The coverage as /api/v1/coverage?from=&to= serves it (every stored scope), with
 * no interval limit: a report is read, not polled. */
static enum status gather_coverage(struct db *db, struct night *n, struct error *err)
{
    size_t count = 0;
    enum status rc = db_coverage_list(db, &n->coverage_scopes, &count, err);

    if (rc != STATUS_OK)
        return rc;
    if (count == 0) {
        snprintf(n->coverage_note, sizeof n->coverage_note,
                 "no coverage stored (iocontend analyze stores it)");
        return STATUS_OK;
    }
    n->coverage_series = calloc(count, sizeof *n->coverage_series);
    n->coverage_served = calloc(count, sizeof *n->coverage_served);
    if (n->coverage_series == NULL || n->coverage_served == NULL)
        return error_set(err, STATUS_NOMEM, "coverage of the period");
    n->coverage.n = count;
    for (size_t i = 0; rc == STATUS_OK && i < count; i++) {
        bool truncated = false;
        rc = db_coverage_intervals(db, n->coverage_scopes[i].scope, n->from_s, n->to_s,
                                   NIGHT_INTERVALS_MAX, &n->coverage_series[i],
                                   &truncated, err);
        if (rc == STATUS_OK && truncated) {
            rc = error_param(err, STATUS_INVALID, "from",
                             "%s has more than %d intervals in the period: narrow "
                             "--from and --to",
                             n->coverage_scopes[i].scope, NIGHT_INTERVALS_MAX);
        }
        n->coverage_served[i] = rc == STATUS_OK;
    }
    if (rc != STATUS_OK)
        return rc;
    n->coverage.from_s = n->from_s;
    n->coverage.to_s = n->to_s;
    n->coverage.scopes = n->coverage_scopes;
    n->coverage.series = n->coverage_series;
    n->coverage.served = n->coverage_served;
    n->has_coverage = true;
    return STATUS_OK;
}

enum status analysis_night(struct db *db, const struct analysis_settings *s,
                           double from_s, double to_s, size_t limit, struct night *out,
                           struct error *err)
{
    enum status rc;

    memset(out, 0, sizeof *out);
    if (!isfinite(from_s))
        return error_param(err, STATUS_INVALID, "from", "from must be a time");
    if (!isfinite(to_s) || !(to_s > from_s))
        return error_param(err, STATUS_INVALID, "to", "to must be a time after from");
    out->from_s = from_s;
    out->to_s = to_s;
    out->generated_s = (double)time(NULL);
    snprintf(out->y, sizeof out->y, "t_d");
    snprintf(out->x, sizeof out->x, "psi_d_read");
    rc = db_night_runs(db, from_s, to_s, &out->runs, &out->n_runs, err);
    if (rc == STATUS_OK) {
        rc = db_night_quarantined(db, from_s, to_s, &out->quarantined,
                                  &out->n_quarantined, err);
    }
    if (rc == STATUS_OK)
        rc = gather_assoc(db, out, err);
    if (rc == STATUS_OK)
        rc = gather_groups(db, out, err);
    if (rc == STATUS_OK)
        rc = gather_slowdowns(db, s, limit, out, err);
    if (rc == STATUS_OK)
        rc = gather_coverage(db, out, err);
    return rc;
}

enum status analysis_night_buckets(struct db *db, struct night *n, size_t points,
                                   struct error *err)
{
    if (points < 1)
        return error_set(err, STATUS_INVALID, "coverage buckets: 0 asked");
    if (!n->has_coverage || n->coverage_buckets != NULL)
        return STATUS_OK;
    n->coverage_buckets = calloc(n->coverage.n, sizeof *n->coverage_buckets);
    if (n->coverage_buckets == NULL)
        return error_set(err, STATUS_NOMEM, "coverage buckets");
    for (size_t i = 0; i < n->coverage.n; i++) {
        enum status rc =
            analysis_coverage_buckets(db, &n->coverage_scopes[i], n->from_s, n->to_s,
                                      points, &n->coverage_buckets[i], err);
        if (rc != STATUS_OK)
            return rc;
    }
    return STATUS_OK;
}
