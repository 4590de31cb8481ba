/* db_night.c: what the night report reads of a period: the ingest runs, the files
 * quarantined, the jobs loaded and the associations stored in it. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An instant as RFC 3339 UTC, to the second ("" for NULL through copy_text). */
#define UTC_SQL(col)                                                                     \
    "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* The period's bounds as parameters $1 and $2 (epoch seconds). */
struct period {
    char from[40], to[40];
    const char *vals[4];
};

static void period_of(struct period *p, double from_s, double to_s)
{
    snprintf(p->from, sizeof p->from, "%.17g", from_s);
    snprintf(p->to, sizeof p->to, "%.17g", to_s);
    p->vals[0] = p->from;
    p->vals[1] = p->to;
}

/* A run overlaps the period: started before its end, not ended before its start (a
 * run still going ends now). */
static const char runs_sql[] =
    "SELECT id, kind, " UTC_SQL("started_at") ", " UTC_SQL("finished_at") ", " UTC_SQL(
        "interrupted_at") ", failed, seconds, files, loaded, skipped, quarantined, "
                          "jobs, samples FROM ingest_runs WHERE started_at < "
                          "to_timestamp($2::float8) AND "
                          "coalesce(finished_at, interrupted_at, now()) >= "
                          "to_timestamp($1::float8) "
                          "ORDER BY started_at, id";

static void fill_run(void *row_out, const PGresult *r, int row)
{
    struct db_night_run *run = row_out;

    run->id = get_int64(r, row, 0);
    copy_text(run->kind, sizeof run->kind, r, row, 1);
    copy_text(run->started_at, sizeof run->started_at, r, row, 2);
    copy_text(run->finished_at, sizeof run->finished_at, r, row, 3);
    copy_text(run->interrupted_at, sizeof run->interrupted_at, r, row, 4);
    run->failed = strcmp(PQgetvalue(r, row, 5), "t") == 0;
    run->seconds = get_double(r, row, 6); /* NAN when not recorded */
    run->files = (long)get_int64(r, row, 7);
    run->loaded = (long)get_int64(r, row, 8);
    run->skipped = (long)get_int64(r, row, 9);
    run->quarantined = (long)get_int64(r, row, 10);
    run->jobs = (long)get_int64(r, row, 11);
    run->samples = (long long)get_int64(r, row, 12);
}

enum status db_night_runs(struct db *db, double from_s, double to_s,
                          struct db_night_run **out, size_t *n, struct error *err)
{
    struct period p = {.from = ""};
    void *rows = NULL;

    period_of(&p, from_s, to_s);
    enum status rc = fetch_rows(db, runs_sql, 2, p.vals, sizeof **out, fill_run,
                                "ingest runs of a period", &rows, n, err);
    *out = rows;
    return rc;
}

static const char quarantined_sql[] =
    "SELECT path, content_hash, line, status, message, " UTC_SQL(
        "first_seen") ", " UTC_SQL("last_seen") " FROM ingest_errors WHERE last_seen >= "
                                                "to_timestamp($1::float8) AND last_seen "
                                                "< to_timestamp($2::float8) "
                                                "ORDER BY last_seen DESC, path";

static void fill_quarantined(void *row_out, const PGresult *r, int row)
{
    struct db_quarantine_entry *e = row_out;

    copy_text(e->path, sizeof e->path, r, row, 0);
    copy_text(e->content_hash, sizeof e->content_hash, r, row, 1);
    e->line = (long)get_int64(r, row, 2);
    copy_text(e->status, sizeof e->status, r, row, 3);
    copy_text(e->message, sizeof e->message, r, row, 4);
    copy_text(e->first_seen, sizeof e->first_seen, r, row, 5);
    copy_text(e->last_seen, sizeof e->last_seen, r, row, 6);
}

enum status db_night_quarantined(struct db *db, double from_s, double to_s,
                                 struct db_quarantine_entry **out, size_t *n,
                                 struct error *err)
{
    struct period p = {.from = ""};
    void *rows = NULL;

    period_of(&p, from_s, to_s);
    enum status rc =
        fetch_rows(db, quarantined_sql, 2, p.vals, sizeof **out, fill_quarantined,
                   "quarantine of a period", &rows, n, err);
    *out = rows;
    return rc;
}

static void fill_added(void *row_out, const PGresult *r, int row)
{
    struct db_night_added *a = row_out;

    copy_text(a->group_id, sizeof a->group_id, r, row, 0);
    a->jobs = (long)get_int64(r, row, 1);
}

enum status db_night_jobs_added(struct db *db, double from_s, double to_s,
                                struct db_night_added **out, size_t *n, struct error *err)
{
    struct period p = {.from = ""};
    void *rows = NULL;

    period_of(&p, from_s, to_s);
    enum status rc = fetch_rows(db,
                                "SELECT group_id, count(*) FROM jobs "
                                "WHERE loaded_at >= to_timestamp($1::float8) "
                                "AND loaded_at < to_timestamp($2::float8) "
                                "GROUP BY group_id ORDER BY group_id",
                                2, p.vals, sizeof **out, fill_added,
                                "jobs loaded in a period", &rows, n, err);
    *out = rows;
    return rc;
}

void db_night_results_free(struct db_night_result *r, size_t n)
{
    for (size_t i = 0; r != NULL && i < n; i++)
        free(r[i].json);
    free(r);
}

enum status db_night_results(struct db *db, double from_s, double to_s, const char *y,
                             const char *x, struct db_night_result **out, size_t *n,
                             struct error *err)
{
    struct period p = {.from = ""};
    PGresult *r = NULL;

    *out = NULL;
    *n = 0;
    period_of(&p, from_s, to_s);
    p.vals[2] = y;
    p.vals[3] = x;
    enum status rc =
        exec_params(db,
                    "SELECT group_id, granularity_s, space, result::text, "
                    "to_char(computed_at AT TIME ZONE 'UTC', "
                    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM results "
                    "WHERE kind = 'association' AND y = $3 AND x = $4 AND scope = 'all' "
                    "AND computed_at >= to_timestamp($1::float8) "
                    "AND computed_at < to_timestamp($2::float8) "
                    "ORDER BY group_id, granularity_s, space",
                    4, p.vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    const size_t rows = (size_t)PQntuples(r);
    struct db_night_result *v = calloc(rows + 1, sizeof *v);
    if (v == NULL) {
        PQclear(r);
        return error_set(err, STATUS_NOMEM, "associations of a period");
    }
    for (size_t i = 0; i < rows; i++) {
        copy_text(v[i].group_id, sizeof v[i].group_id, r, (int)i, 0);
        v[i].granularity_s = get_double(r, (int)i, 1);
        copy_text(v[i].space, sizeof v[i].space, r, (int)i, 2);
        copy_text(v[i].computed_at, sizeof v[i].computed_at, r, (int)i, 4);
        v[i].json = strdup(PQgetvalue(r, (int)i, 3));
        if (v[i].json == NULL) {
            PQclear(r);
            db_night_results_free(v, i);
            return error_set(err, STATUS_NOMEM, "associations of a period");
        }
    }
    PQclear(r);
    *out = v;
    *n = rows;
    return STATUS_OK;
}
