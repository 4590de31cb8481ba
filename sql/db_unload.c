/* db_unload.c: the quarantine list (read, retried, forgotten) and unloading what one
 * ingest run or one file loaded. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The instants of an entry as RFC 3339 UTC, to the second. */
#define FIRST_SEEN_SQL                                                                   \
    "to_char(first_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
#define LAST_SEEN_SQL                                                                    \
    "to_char(last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

static void fill_entry(void *row_out, const PGresult *r, int row)
{
    struct db_quarantine_entry *e = row_out;

    copy_text(e->path, sizeof e->path, r, row, 0);
    copy_text(e->content_hash, sizeof e->content_hash, r, row, 1);
    e->line = (long)get_int64(r, row, 2);
    copy_text(e->status, sizeof e->status, r, row, 3);
    copy_text(e->message, sizeof e->message, r, row, 4);
    copy_text(e->first_seen, sizeof e->first_seen, r, row, 5);
    copy_text(e->last_seen, sizeof e->last_seen, r, row, 6);
    e->known_bad = !PQgetisnull(r, row, 7);
    copy_text(e->verdict, sizeof e->verdict, r, row, 7);
    e->loaded = strcmp(PQgetvalue(r, row, 8), "t") == 0;
}

/* The list, most recently seen first, and whether each content was loaded since. */
static const char list_sql[] =
    "SELECT path, content_hash, line, status, message, " FIRST_SEEN_SQL ", " LAST_SEEN_SQL
    ", verdict, EXISTS (SELECT 1 FROM loaded_files f "
    "WHERE f.content_hash = e.content_hash) "
    "FROM ingest_errors e ORDER BY last_seen DESC, path";

enum status db_quarantine_list(struct db *db, struct db_quarantine_entry **out, size_t *n,
                               struct error *err)
{
    void *rows;
    enum status rc = fetch_rows(db, list_sql, 0, NULL, sizeof **out, fill_entry,
                                "quarantine list", &rows, n, err);
    *out = rows;
    return rc;
}

/* Runs sql with one parameter (NULL: none) and adds the rows it changed to *count. */
static enum status change_rows(struct db *db, const char *sql, const char *param,
                               long long *count, struct error *err)
{
    const char *vals[1] = {param};
    PGresult *r;
    enum status rc = exec_params(db, sql, param != NULL ? 1 : 0, vals, &r, err);

    if (rc != STATUS_OK)
        return rc;
    *count += strtoll(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return STATUS_OK;
}

/* retry (forget false) or forget the entries of paths (NULL: all), in one
 * transaction. */
static enum status quarantine_change(struct db *db, const char *const *paths, size_t n,
                                     bool forget, struct db_quarantine_change *out,
                                     struct error *err)
{
    long long named = 0, same = 0;
    enum status rc;

    memset(out, 0, sizeof *out);
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        return rc;
    if (paths == NULL) {
        rc = change_rows(db,
                         forget ? "DELETE FROM ingest_errors"
                                : "UPDATE ingest_errors SET verdict = NULL",
                         NULL, &named, err);
    }
    for (size_t i = 0; paths != NULL && rc == STATUS_OK && i < n; i++) {
        long long mine = 0;
        /* The known-bad skip keys on content, whatever the path: the same bytes
         * under another name would keep this file skipped. */
        rc = change_rows(db,
                         "UPDATE ingest_errors SET verdict = NULL WHERE path <> $1 "
                         "AND verdict IS NOT NULL AND content_hash IN "
                         "(SELECT content_hash FROM ingest_errors WHERE path = $1)",
                         paths[i], &same, err);
        if (rc == STATUS_OK) {
            rc = change_rows(db,
                             forget ? "DELETE FROM ingest_errors WHERE path = $1"
                                    : "UPDATE ingest_errors SET verdict = NULL "
                                      "WHERE path = $1",
                             paths[i], &mine, err);
        }
        if (rc == STATUS_OK && mine == 0) {
            rc = error_set(err, STATUS_NOT_FOUND, "no quarantined file '%s'", paths[i]);
        }
        named += mine;
    }
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK) {
        rollback(db);
        return rc;
    }
    out->named = (long)named;
    out->same_bytes = (long)same;
    return STATUS_OK;
}

enum status db_quarantine_retry(struct db *db, const char *const *paths, size_t n,
                                struct db_quarantine_change *out, struct error *err)
{
    return quarantine_change(db, paths, n, false, out, err);
}

enum status db_quarantine_forget(struct db *db, const char *const *paths, size_t n,
                                 struct db_quarantine_change *out, struct error *err)
{
    return quarantine_change(db, paths, n, true, out, err);
}

/* The five deletes of an unload, the files chosen by the condition on loaded_files:
 * the jobs, the DXT traces (their operations and windows cascade) and the samples
 * whose rows came from those files, their paths' ledger rows (or the next ingest would
 * go on past what was taken back), then the files. */
#define UNLOAD_SQL(files)                                                                \
    {                                                                                    \
        "DELETE FROM jobs WHERE source_hash IN "                                         \
        "(SELECT content_hash FROM loaded_files WHERE " files ")",                       \
            "DELETE FROM samples WHERE source_hash IN "                                  \
            "(SELECT content_hash FROM loaded_files WHERE " files ")",                   \
            "DELETE FROM job_traces WHERE source_hash IN "                               \
            "(SELECT content_hash FROM loaded_files WHERE " files ")",                   \
            "DELETE FROM sample_ledger WHERE path IN "                                   \
            "(SELECT path FROM loaded_files WHERE " files ")",                           \
            "DELETE FROM loaded_files WHERE " files                                      \
    }

enum status db_path_stored(struct db *db, const char *path, bool quarantine, bool *stored,
                           struct error *err)
{
    const char *vals[1] = {path};
    PGresult *r = NULL;
    enum status rc =
        exec_params(db,
                    quarantine ? "SELECT 1 FROM ingest_errors WHERE path = $1 LIMIT 1"
                               : "SELECT 1 FROM loaded_files WHERE path = $1 LIMIT 1",
                    1, vals, &r, err);

    *stored = false;
    if (rc != STATUS_OK)
        return rc;
    *stored = PQntuples(r) > 0;
    PQclear(r);
    return STATUS_OK;
}

/* Why nothing was found to unload: no such run, or a run that left nothing. */
static enum status unload_not_found(struct db *db, int64_t run_id, const char *run,
                                    const char *path, struct error *err)
{
    const char *vals[1] = {run};
    PGresult *r = NULL;

    if (run_id <= 0) {
        return error_set(err, STATUS_NOT_FOUND, "no file loaded from path '%s'", path);
    }
    enum status rc = exec_params(db, "SELECT kind FROM ingest_runs WHERE id = $1::bigint",
                                 1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    bool exists = PQntuples(r) > 0;
    PQclear(r);
    if (!exists)
        return error_set(err, STATUS_NOT_FOUND, "no ingest run %s", run);
    return error_set(err, STATUS_NOT_FOUND,
                     "ingest run %s has no loaded file left (it loaded none, or they "
                     "were unloaded)",
                     run);
}

enum status db_unload(struct db *db, int64_t run_id, const char *path, bool dry,
                      struct db_unload_counts *out, struct error *err)
{
    static const char *const by_run[5] = UNLOAD_SQL("run_id = $1::bigint");
    static const char *const by_path[5] = UNLOAD_SQL("path = $1");
    const char *const *sql = run_id > 0 ? by_run : by_path;
    long long counts[5] = {0, 0, 0, 0, 0};
    char run[32];
    enum status rc;

    memset(out, 0, sizeof *out);
    snprintf(run, sizeof run, "%lld", (long long)run_id);
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        return rc;
    for (int i = 0; rc == STATUS_OK && i < 5; i++)
        rc = change_rows(db, sql[i], run_id > 0 ? run : path, &counts[i], err);
    if (rc == STATUS_OK && counts[4] == 0) {
        rollback(db);
        return unload_not_found(db, run_id, run, path, err);
    }
    if (rc == STATUS_OK)
        rc = exec_cmd(db, dry ? "ROLLBACK" : "COMMIT", err);
    if (rc != STATUS_OK) {
        rollback(db);
        return rc;
    }
    out->jobs = (long)counts[0];
    out->samples = counts[1];
    out->traces = (long)counts[2];
    out->files = (long)counts[4];
    return STATUS_OK;
}
