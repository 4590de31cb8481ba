/* db_batch.c: many logs in one transaction (the ingest pipeline): which contents are
 * loaded or known bad, in one round trip, and the jobs of a batch of files sent with
 * binary COPY and committed together. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hashes as a text[] literal: hex digits need no quoting. */
static char *hash_array(const char *const *hashes, size_t n)
{
    char *out = malloc(n * 33 + 3);
    size_t len = 0;

    if (out == NULL)
        return NULL;
    out[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            out[len++] = ',';
        size_t k = strspn(hashes[i], "0123456789abcdef");
        memcpy(out + len, hashes[i], k < 32 ? k : 32);
        len += k < 32 ? k : 32;
    }
    out[len++] = '}';
    out[len] = '\0';
    return out;
}

/* Sets flags[i] for every i whose hash column 0 of r names. */
static void flag_hashes(const PGresult *r, const char *const *hashes, size_t n,
                        bool *flags)
{
    for (int row = 0; row < PQntuples(r); row++) {
        const char *h = PQgetvalue(r, row, 0);
        for (size_t i = 0; i < n; i++) {
            if (strcmp(h, hashes[i]) == 0)
                flags[i] = true;
        }
    }
}

enum status db_files_check(struct db *db, const char *const *hashes, size_t n,
                           const char *verdict, bool *seen, bool *known_bad,
                           struct error *err)
{
    PGresult *r = NULL;
    char *arr;
    enum status rc;

    memset(seen, 0, n * sizeof *seen);
    memset(known_bad, 0, n * sizeof *known_bad);
    if (n == 0)
        return STATUS_OK;
    arr = hash_array(hashes, n);
    if (arr == NULL)
        return error_set(err, STATUS_NOMEM, "content hashes");
    const char *vals[2] = {arr, verdict};
    rc = exec_params(db,
                     "SELECT content_hash FROM loaded_files "
                     "WHERE content_hash = ANY($1::text[])",
                     1, vals, &r, err);
    if (rc == STATUS_OK) {
        flag_hashes(r, hashes, n, seen);
        PQclear(r);
        /* As db_quarantine_known: a known-bad file is seen again, now. */
        rc = exec_params(db,
                         "UPDATE ingest_errors SET last_seen = now() "
                         "WHERE content_hash = ANY($1::text[]) AND verdict = $2 "
                         "RETURNING content_hash",
                         2, vals, &r, err);
    }
    if (rc == STATUS_OK) {
        flag_hashes(r, hashes, n, known_bad);
        PQclear(r);
    }
    free(arr);
    return rc;
}

static enum status ensure_staging(struct db *db, struct error *err)
{
    if (db->batch_tables)
        return STATUS_OK;
    enum status rc =
        exec_cmd(db,
                 "CREATE TEMP TABLE IF NOT EXISTS staged_jobs (seq integer NOT NULL, "
                 "LIKE jobs INCLUDING DEFAULTS) ON COMMIT DELETE ROWS; "
                 "CREATE TEMP TABLE IF NOT EXISTS staged_groups (LIKE app_groups) "
                 "ON COMMIT DELETE ROWS; "
                 "CREATE TEMP TABLE IF NOT EXISTS staged_traces (seq integer NOT NULL, "
                 "LIKE job_traces INCLUDING DEFAULTS) ON COMMIT DELETE ROWS; "
                 "CREATE TEMP TABLE IF NOT EXISTS staged_dxt_ops (source_hash text, "
                 "job_key text, module text, record_id text, rank bigint, hostname "
                 "text, file_name text, n_ops integer, ops bytea) ON COMMIT DELETE ROWS; "
                 "CREATE TEMP TABLE IF NOT EXISTS staged_x_windows (source_hash text, "
                 "LIKE job_x_windows) ON COMMIT DELETE ROWS; "
                 /* ingest --reprocess: the mapping of jobs loaded before, as now */
                 "CREATE TEMP TABLE IF NOT EXISTS staged_maps (source_hash text, "
                 "job_key text, eta_mon_read bigint, eta_mon_write bigint) "
                 "ON COMMIT DELETE ROWS; "
                 "CREATE TEMP TABLE IF NOT EXISTS staged_windows (source_hash text, "
                 "LIKE job_windows) ON COMMIT DELETE ROWS; "
                 "CREATE TEMP TABLE IF NOT EXISTS remapped (job_key text, source_hash "
                 "text, windows boolean, x_windows boolean) ON COMMIT DELETE ROWS",
                 err);
    db->batch_tables = rc == STATUS_OK;
    return rc;
}

static enum status copy_groups(struct db *db, const struct db_job_batch_item *items,
                               size_t n, struct error *err)
{
    struct bincopy c;
    char name[200];
    enum status rc = bincopy_begin(
        &c, db,
        "COPY staged_groups (group_id, name, key) FROM STDIN WITH (FORMAT binary)", err);

    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_job_in *j = items[i].job;
        if (j == NULL)
            continue;
        db_group_name(j, name, sizeof name);
        bincopy_row(&c, 3);
        bincopy_text(&c, j->group_id);
        bincopy_text(&c, name);
        bincopy_text(&c, j->group_key);
    }
    return bincopy_end(&c);
}

/* The columns of a job, after staged_jobs' seq. */
#define JOB_COLUMNS                                                                      \
    "job_key, jobid, uid, exe, executable, nprocs, start_time, end_time, run_time, "     \
    "log_version, group_id, source_hash, source_path, n_unique_files, "                  \
    "n_shared_files, negative_time, incomplete_modules, incomplete_log" DB_LOG_COLUMNS

static enum status copy_jobs(struct db *db, const struct db_job_batch_item *items,
                             size_t n, struct error *err)
{
    struct bincopy c;
    enum status rc = bincopy_begin(
        &c, db, "COPY staged_jobs (seq, " JOB_COLUMNS ") FROM STDIN WITH (FORMAT binary)",
        err);

    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_job_in *j = items[i].job;
        if (j == NULL)
            continue;
        bincopy_row(&c, 19 + (int)db_family_log.n_cols);
        bincopy_int4(&c, (int32_t)i);
        bincopy_text(&c, j->job_key);
        bincopy_text(&c, j->jobid);
        bincopy_int8(&c, (int64_t)j->uid);
        bincopy_text(&c, j->exe != NULL ? j->exe : "");
        bincopy_text(&c, j->executable);
        bincopy_int8(&c, j->nprocs);
        bincopy_int8(&c, j->start_time_s);
        bincopy_int8(&c, j->end_time_s);
        bincopy_float8(&c, j->run_time_s);
        bincopy_float8(&c, j->log_version);
        bincopy_text(&c, j->group_id);
        bincopy_text(&c, items[i].content_hash);
        bincopy_text(&c, items[i].path);
        bincopy_int8(&c, j->n_unique_files);
        bincopy_int8(&c, j->n_shared_files);
        bincopy_bool(&c, j->negative_time);
        bincopy_text(&c, j->incomplete_modules);
        bincopy_bool(&c, j->incomplete_log);
        db_family_copy(&c, &db_family_log, j->log);
    }
    return bincopy_end(&c);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* inserted[i]: item i is the first of its job key in the batch and the job is among
 * the keys the INSERT returned (r, column 0). */
static enum status mark_inserted(const PGresult *r, const struct db_job_batch_item *items,
                                 size_t n, bool *inserted, struct error *err)
{
    size_t k = (size_t)PQntuples(r);
    const char **keys = malloc((k + 1) * sizeof *keys);
    bool *taken = calloc(k + 1, sizeof *taken);

    if (keys == NULL || taken == NULL) {
        free(keys);
        free(taken);
        return error_set(err, STATUS_NOMEM, "job keys");
    }
    for (size_t i = 0; i < k; i++)
        keys[i] = PQgetvalue(r, (int)i, 0);
    qsort(keys, k, sizeof *keys, str_cmp);
    for (size_t i = 0; i < n; i++) {
        if (items[i].job == NULL)
            continue;
        const char *key = items[i].job->job_key;
        const char **at = bsearch(&key, keys, k, sizeof *keys, str_cmp);
        size_t pos = at != NULL ? (size_t)(at - keys) : 0;
        /* later items of the same key are not the first */
        inserted[i] = at != NULL && !taken[pos];
        if (inserted[i])
            taken[pos] = true;
    }
    free(keys);
    free(taken);
    return STATUS_OK;
}

/* One window's row of a COPY: (source_hash,) job_key, is_write, start_s, end_s,
 * (bytes,) fs; source_hash NULL and bytes false leave their columns out. */
static void window_row(struct bincopy *c, const char *source_hash, const char *job_key,
                       const struct db_window_in *win, bool bytes)
{
    bincopy_row(c, 5 + (source_hash != NULL) + bytes);
    if (source_hash != NULL)
        bincopy_text(c, source_hash);
    bincopy_text(c, job_key);
    bincopy_bool(c, win->is_write);
    bincopy_float8(c, win->start_s);
    bincopy_float8(c, win->end_s);
    if (bytes)
        bincopy_int8(c, win->bytes);
    bincopy_text(c, win->fs);
}

static enum status copy_windows(struct db *db, const struct db_job_batch_item *items,
                                size_t n, const bool *inserted, struct error *err)
{
    struct bincopy c;
    enum status rc = bincopy_begin(&c, db,
                                   "COPY job_windows (job_key, is_write, start_s, end_s, "
                                   "bytes, fs) FROM STDIN WITH (FORMAT binary)",
                                   err);

    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_job_in *j = items[i].job;
        for (size_t w = 0; inserted[i] && w < j->n_windows; w++)
            window_row(&c, NULL, j->job_key, &j->windows[w], true);
    }
    return bincopy_end(&c);
}

/* The traces of the batch into the staging tables, then the first of each job key
 * (by seq) that the database does not hold yet into job_traces, with its dxt_ops and
 * job_x_windows rows (source_hash tells the items' rows apart: the batch's contents
 * differ). */
static enum status copy_traces(struct db *db, const struct db_job_batch_item *items,
                               size_t n, long long *added, struct error *err)
{
    struct bincopy c;
    char id[24];
    bool any = false;
    enum status rc;

    *added = 0;
    for (size_t i = 0; i < n; i++)
        any = any || items[i].trace != NULL;
    if (!any)
        return STATUS_OK;
    rc =
        bincopy_begin(&c, db,
                      "COPY staged_traces (seq, job_key, incomplete, n_ops, source_hash, "
                      "source_path) FROM STDIN WITH (FORMAT binary)",
                      err);
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_trace_in *t = items[i].trace;
        if (t == NULL)
            continue;
        bincopy_row(&c, 6);
        bincopy_int4(&c, (int32_t)i);
        bincopy_text(&c, t->job_key);
        bincopy_bool(&c, t->incomplete);
        bincopy_int8(&c, t->n_ops);
        bincopy_text(&c, items[i].content_hash);
        bincopy_text(&c, items[i].path);
    }
    if (rc == STATUS_OK)
        rc = bincopy_end(&c);
    if (rc == STATUS_OK) {
        rc =
            bincopy_begin(&c, db,
                          "COPY staged_dxt_ops (source_hash, job_key, module, record_id, "
                          "rank, hostname, file_name, n_ops, ops) FROM STDIN WITH "
                          "(FORMAT binary)",
                          err);
    }
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_trace_in *t = items[i].trace;
        for (size_t f = 0; t != NULL && f < t->n_files; f++) {
            const struct db_trace_file_in *tf = &t->files[f];
            snprintf(id, sizeof id, "%" PRIu64, tf->record_id);
            bincopy_row(&c, 9);
            bincopy_text(&c, items[i].content_hash);
            bincopy_text(&c, t->job_key);
            bincopy_text(&c, tf->module);
            bincopy_text(&c, id);
            bincopy_int8(&c, tf->rank);
            bincopy_text(&c, tf->hostname);
            bincopy_text(&c, tf->file_name);
            bincopy_int4(&c, tf->n_ops);
            bincopy_bytes(&c, tf->ops, tf->ops_len);
        }
    }
    if (rc == STATUS_OK)
        rc = bincopy_end(&c);
    if (rc == STATUS_OK) {
        rc = bincopy_begin(
            &c, db,
            "COPY staged_x_windows (source_hash, job_key, is_write, start_s, "
            "end_s, fs) FROM STDIN WITH (FORMAT binary)",
            err);
    }
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_trace_in *t = items[i].trace;
        for (size_t w = 0; t != NULL && w < t->n_windows; w++)
            window_row(&c, items[i].content_hash, t->job_key, &t->windows[w], false);
    }
    if (rc == STATUS_OK)
        rc = bincopy_end(&c);
    if (rc == STATUS_OK) {
        PGresult *r = NULL;
        rc = exec_params(
            db,
            "WITH won AS (INSERT INTO job_traces (job_key, incomplete, n_ops, "
            "source_hash, source_path) SELECT DISTINCT ON (job_key) job_key, incomplete, "
            "n_ops, source_hash, source_path FROM staged_traces ORDER BY job_key, seq "
            "ON CONFLICT (job_key) DO NOTHING RETURNING job_key, source_hash), "
            "ops AS (INSERT INTO dxt_ops (job_key, module, record_id, rank, hostname, "
            "file_name, n_ops, ops) SELECT o.job_key, o.module, o.record_id::numeric, "
            "o.rank, o.hostname, o.file_name, o.n_ops, o.ops FROM staged_dxt_ops o "
            "JOIN won USING (job_key, source_hash)), "
            "xw AS (INSERT INTO job_x_windows (job_key, is_write, start_s, end_s, fs) "
            "SELECT w.job_key, w.is_write, w.start_s, w.end_s, w.fs "
            "FROM staged_x_windows w JOIN won USING (job_key, source_hash)) "
            "SELECT count(*) FROM won",
            0, NULL, &r, err);
        if (rc == STATUS_OK) {
            *added = get_int64(r, 0, 0);
            PQclear(r);
        }
    }
    return rc;
}

static enum status copy_files(struct db *db, int64_t run_id,
                              const struct db_job_batch_item *items, size_t n,
                              struct error *err)
{
    struct bincopy c;
    enum status rc =
        bincopy_begin(&c, db,
                      "COPY loaded_files (content_hash, path, kind, run_id) FROM STDIN "
                      "WITH (FORMAT binary)",
                      err);

    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        bincopy_row(&c, 4);
        bincopy_text(&c, items[i].content_hash);
        bincopy_text(&c, items[i].path);
        bincopy_text(&c, "darshan");
        bincopy_int8(&c, run_id);
    }
    return bincopy_end(&c);
}

/* Warns, in the batch's order, of each job loaded before from other content with
 * values that differ by more than 1 % (docs/interfaces.md "Identity": the first stays).
 */
static enum status warn_differing(struct db *db, const struct db_job_batch_item *items,
                                  size_t n, struct error *err)
{
    PGresult *r = NULL;
    enum status rc = exec_params(
        db,
        "SELECT s.seq, j.source_path FROM staged_jobs s JOIN jobs j USING (job_key) "
        "WHERE j.source_hash <> s.source_hash AND ("
        "abs(s.t_j - j.t_j) > 0.01 * greatest(abs(s.t_j), abs(j.t_j)) OR "
        "abs(s.eta_read - j.eta_read) > 0.01 * greatest(abs(s.eta_read), "
        "abs(j.eta_read)) "
        "OR abs(s.eta_write - j.eta_write) > "
        "0.01 * greatest(abs(s.eta_write), abs(j.eta_write))) ORDER BY s.seq",
        0, NULL, &r, err);

    if (rc != STATUS_OK)
        return rc;
    for (int row = 0; row < PQntuples(r); row++) {
        size_t i = (size_t)get_int64(r, row, 0);
        if (i < n && items[i].job != NULL) {
            log_warn("%s: job %s was loaded before from %s with values that differ by "
                     "more than 1%%; the first stays",
                     items[i].path, items[i].job->job_key, PQgetvalue(r, row, 1));
        }
    }
    PQclear(r);
    return STATUS_OK;
}

enum status db_jobs_load_batch(struct db *db, int64_t run_id,
                               const struct db_job_batch_item *items, size_t n,
                               bool *inserted, struct error *err)
{
    PGresult *r = NULL;
    enum status rc;

    memset(inserted, 0, n * sizeof *inserted);
    if (n == 0)
        return STATUS_OK;
    rc = ensure_staging(db, err);
    if (rc != STATUS_OK)
        return rc;
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        return rc;
    rc = copy_groups(db, items, n, err);
    if (rc == STATUS_OK) {
        rc = exec_cmd(db,
                      "INSERT INTO app_groups (group_id, name, key) SELECT DISTINCT ON "
                      "(group_id) group_id, name, key FROM staged_groups ORDER BY "
                      "group_id ON CONFLICT DO NOTHING",
                      err);
    }
    if (rc == STATUS_OK)
        rc = copy_jobs(db, items, n, err);
    /* The first file of a job key in the batch wins, as it would one by one. */
    if (rc == STATUS_OK) {
        rc = exec_params(db,
                         "INSERT INTO jobs (" JOB_COLUMNS
                         ") SELECT DISTINCT ON (job_key) " JOB_COLUMNS
                         " FROM staged_jobs ORDER BY job_key, seq "
                         "ON CONFLICT (job_key) DO NOTHING RETURNING job_key",
                         0, NULL, &r, err);
    }
    if (rc == STATUS_OK) {
        rc = mark_inserted(r, items, n, inserted, err);
        PQclear(r);
    }
    if (rc == STATUS_OK)
        rc = copy_windows(db, items, n, inserted, err);
    long long traces = 0;
    if (rc == STATUS_OK)
        rc = copy_traces(db, items, n, &traces, err);
    if (rc == STATUS_OK)
        rc = warn_differing(db, items, n, err);
    if (rc == STATUS_OK)
        rc = copy_files(db, run_id, items, n, err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK) {
        rollback(db);
        memset(inserted, 0, n * sizeof *inserted);
    }
    return rc;
}

/* The mapping of the items' jobs as computed now (their monitored bytes and windows)
 * into the staging tables; their traces' windows are staged by copy_traces. */
static enum status copy_maps(struct db *db, const struct db_job_batch_item *items,
                             size_t n, struct error *err)
{
    struct bincopy c;
    enum status rc =
        bincopy_begin(&c, db,
                      "COPY staged_maps (source_hash, job_key, eta_mon_read, "
                      "eta_mon_write) FROM STDIN WITH (FORMAT binary)",
                      err);

    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_job_in *j = items[i].job;
        if (j == NULL)
            continue;
        bincopy_row(&c, 4);
        bincopy_text(&c, items[i].content_hash);
        bincopy_text(&c, j->job_key);
        bincopy_int8(&c, j->log[LOG_ETA_MON_READ].i8);
        bincopy_int8(&c, j->log[LOG_ETA_MON_WRITE].i8);
    }
    if (rc == STATUS_OK)
        rc = bincopy_end(&c);
    if (rc == STATUS_OK) {
        rc =
            bincopy_begin(&c, db,
                          "COPY staged_windows (source_hash, job_key, is_write, start_s, "
                          "end_s, bytes, fs) FROM STDIN WITH (FORMAT binary)",
                          err);
    }
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        const struct db_job_in *j = items[i].job;
        for (size_t w = 0; j != NULL && w < j->n_windows; w++)
            window_row(&c, items[i].content_hash, j->job_key, &j->windows[w], true);
    }
    if (rc == STATUS_OK)
        rc = bincopy_end(&c);
    return rc;
}

/* A job's windows (alias w) and trace windows (alias x) as one text, in one order:
 * the same rows give the same text. */
#define WINDOWS_MD5                                                                      \
    "md5(string_agg(ROW(w.is_write, w.start_s, w.end_s, w.bytes, w.fs)::text, ',' "      \
    "ORDER BY w.start_s, w.end_s, w.is_write, w.bytes, w.fs))"
#define X_WINDOWS_MD5                                                                    \
    "md5(string_agg(ROW(x.is_write, x.start_s, x.end_s, x.fs)::text, ',' "               \
    "ORDER BY x.start_s, x.end_s, x.is_write, x.fs))"

/* The staged mapping set against the stored one, for jobs (and traces) loaded from
 * the very contents reprocessed: where they differ (their [filesystems] changed
 * since), the monitored bytes are updated and the windows replaced; *remapped counts
 * the jobs so changed. Windows, bytes and times come from the content and stay; a
 * trace's windows are merged per file system, so they are replaced whole too. */
static enum status remap(struct db *db, long *remapped, struct error *err)
{
    PGresult *r = NULL;
    enum status rc = exec_cmd(
        db,
        /* The staged windows hashed in one pass (materialized: the staging tables
         * have no statistics, and a join estimated at one row would aggregate them
         * again for every job), the stored ones by each job's key
         * (job_windows_job_idx). */
        "WITH nw AS MATERIALIZED (SELECT w.job_key, w.source_hash, " WINDOWS_MD5 " AS h "
        "  FROM staged_windows w GROUP BY w.job_key, w.source_hash) "
        "INSERT INTO remapped (job_key, source_hash, windows, x_windows) "
        "SELECT s.job_key, s.source_hash, "
        "  (j.eta_mon_read, j.eta_mon_write) IS DISTINCT FROM "
        "  (s.eta_mon_read, s.eta_mon_write) OR nw.h IS DISTINCT FROM ow.h, false "
        "FROM staged_maps s JOIN jobs j ON j.job_key = s.job_key AND "
        "  j.source_hash = s.source_hash "
        "LEFT JOIN nw ON nw.job_key = s.job_key AND nw.source_hash = s.source_hash "
        "LEFT JOIN LATERAL (SELECT " WINDOWS_MD5 " AS h FROM job_windows w "
        "  WHERE w.job_key = s.job_key) ow ON true; "
        "WITH nx AS MATERIALIZED (SELECT x.job_key, x.source_hash, " X_WINDOWS_MD5
        " AS h FROM staged_x_windows x GROUP BY x.job_key, x.source_hash) "
        "INSERT INTO remapped (job_key, source_hash, windows, x_windows) "
        "SELECT DISTINCT ON (s.job_key) s.job_key, s.source_hash, false, "
        "  nx.h IS DISTINCT FROM ox.h "
        "FROM staged_traces s JOIN job_traces t ON t.job_key = s.job_key AND "
        "  t.source_hash = s.source_hash "
        "LEFT JOIN nx ON nx.job_key = s.job_key AND nx.source_hash = s.source_hash "
        "LEFT JOIN LATERAL (SELECT " X_WINDOWS_MD5 " AS h FROM job_x_windows x "
        "  WHERE x.job_key = s.job_key) ox ON true ORDER BY s.job_key; "
        "DELETE FROM remapped WHERE NOT windows AND NOT x_windows; "
        /* its size, so that the deletes below probe the windows by job key */
        "ANALYZE remapped; "
        "UPDATE jobs j SET eta_mon_read = s.eta_mon_read, eta_mon_write = "
        "s.eta_mon_write "
        "FROM staged_maps s, remapped m WHERE m.windows AND m.job_key = j.job_key AND "
        "  s.job_key = j.job_key AND s.source_hash = j.source_hash AND "
        "  (j.eta_mon_read, j.eta_mon_write) IS DISTINCT FROM "
        "  (s.eta_mon_read, s.eta_mon_write); "
        "DELETE FROM job_windows w USING remapped m "
        "WHERE m.windows AND w.job_key = m.job_key; "
        "INSERT INTO job_windows (job_key, is_write, start_s, end_s, bytes, fs) "
        "SELECT w.job_key, w.is_write, w.start_s, w.end_s, w.bytes, w.fs "
        "FROM staged_windows w JOIN remapped m USING (job_key, source_hash) "
        "WHERE m.windows; "
        "DELETE FROM job_x_windows x USING remapped m "
        "WHERE m.x_windows AND x.job_key = m.job_key; "
        "INSERT INTO job_x_windows (job_key, is_write, start_s, end_s, fs) "
        "SELECT x.job_key, x.is_write, x.start_s, x.end_s, x.fs "
        "FROM staged_x_windows x JOIN remapped m USING (job_key, source_hash) "
        "WHERE m.x_windows",
        err);

    *remapped = 0;
    if (rc == STATUS_OK) {
        rc = exec_params(db, "SELECT count(DISTINCT job_key) FROM remapped", 0, NULL, &r,
                         err);
    }
    if (rc == STATUS_OK) {
        *remapped = (long)get_int64(r, 0, 0);
        PQclear(r);
    }
    return rc;
}

enum status db_traces_fill(struct db *db, const struct db_job_batch_item *items, size_t n,
                           long long *added, long *remapped, struct error *err)
{
    enum status rc;

    *added = 0;
    *remapped = 0;
    if (n == 0)
        return STATUS_OK;
    rc = ensure_staging(db, err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        return rc;
    rc = copy_traces(db, items, n, added, err);
    if (rc == STATUS_OK)
        rc = copy_maps(db, items, n, err);
    if (rc == STATUS_OK)
        rc = remap(db, remapped, err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK) {
        rollback(db);
        *added = 0;
        *remapped = 0;
    }
    return rc;
}
