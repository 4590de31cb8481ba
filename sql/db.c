/* db.c: every query iocontend makes, on libpq. */
#include "db.h"

#include "../ingest/ingest.h"
#include "migrations.h"

#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct db {
    PGconn *conn;
    bool temp_tables; /* the session's staging tables exist */
};

/* ---- plumbing ------------------------------------------------------------------ */

static enum status db_fail(struct db *db, struct error *err, const char *what)
{
    const char *msg = PQerrorMessage(db->conn);
    char clean[160];

    snprintf(clean, sizeof clean, "%s", msg);
    clean[strcspn(clean, "\n")] = '\0';
    return error_set(err, STATUS_DB, "%s: %s", what, clean);
}

static enum status exec_cmd(struct db *db, const char *sql, struct error *err)
{
    PGresult *r = PQexec(db->conn, sql);
    enum status rc = STATUS_OK;

    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        rc = db_fail(db, err, sql);
    PQclear(r);
    return rc;
}

/* Runs a parameterised statement; *out is the result on success (caller PQclears). */
static enum status exec_params(struct db *db, const char *sql, int n,
                               const char *const *vals, PGresult **out, struct error *err)
{
    PGresult *r = PQexecParams(db->conn, sql, n, NULL, vals, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);

    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        enum status rc = db_fail(db, err, "query");
        PQclear(r);
        *out = NULL;
        return rc;
    }
    *out = r;
    return STATUS_OK;
}

static void rollback(struct db *db)
{
    PGresult *r = PQexec(db->conn, "ROLLBACK");
    PQclear(r);
}

/* Replaces rows in one transaction: runs del (n_del parameters) then ins (n_ins), and
 * commits, or rolls back and returns the first failure. */
static enum status replace_rows(struct db *db, const char *del, int n_del,
                                const char *const *del_vals, const char *ins, int n_ins,
                                const char *const *ins_vals, struct error *err)
{
    PGresult *r;
    enum status rc = exec_cmd(db, "BEGIN", err);

    if (rc != STATUS_OK)
        return rc;
    rc = exec_params(db, del, n_del, del_vals, &r, err);
    if (rc == STATUS_OK) {
        PQclear(r);
        rc = exec_params(db, ins, n_ins, ins_vals, &r, err);
    }
    if (rc == STATUS_OK) {
        PQclear(r);
        rc = exec_cmd(db, "COMMIT", err);
    }
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

static double get_double(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return NAN;
    return strtod(PQgetvalue(r, row, col), NULL);
}

static int64_t get_int64(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return 0;
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static void copy_text(char *dst, size_t size, const PGresult *r, int row, int col)
{
    snprintf(dst, size, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

/* A growable text buffer for COPY data. */
struct buf {
    char *p;
    size_t len, cap;
};

static bool buf_reserve(struct buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap == 0 ? 8192 : b->cap;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL)
        return false;
    b->p = p;
    b->cap = cap;
    return true;
}

static bool buf_printf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);

static bool buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n))
        return false;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

/* A text field for COPY's text format: backslash, tab and newline escaped. */
static bool buf_field(struct buf *b, const char *s)
{
    if (!buf_reserve(b, 1))
        return false;
    if (s == NULL)
        return buf_printf(b, "\\N");
    for (; *s != '\0'; s++) {
        const char *esc = NULL;
        switch (*s) {
        case '\\': esc = "\\\\"; break;
        case '\t': esc = "\\t"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        default: break;
        }
        if (!buf_reserve(b, 2))
            return false;
        if (esc != NULL) {
            memcpy(b->p + b->len, esc, 2);
            b->len += 2;
        } else {
            b->p[b->len++] = *s;
        }
    }
    b->p[b->len] = '\0';
    return true;
}

static enum status copy_in(struct db *db, const char *sql, const struct buf *b,
                           struct error *err)
{
    PGresult *r = PQexec(db->conn, sql);
    enum status rc = STATUS_OK;

    if (PQresultStatus(r) != PGRES_COPY_IN) {
        rc = db_fail(db, err, sql);
        PQclear(r);
        return rc;
    }
    PQclear(r);
    if (b->len > 0 && PQputCopyData(db->conn, b->p, (int)b->len) != 1)
        rc = db_fail(db, err, "COPY data");
    if (PQputCopyEnd(db->conn, rc == STATUS_OK ? NULL : "aborted") != 1 &&
        rc == STATUS_OK)
        rc = db_fail(db, err, "COPY end");
    while ((r = PQgetResult(db->conn)) != NULL) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && rc == STATUS_OK)
            rc = db_fail(db, err, "COPY");
        PQclear(r);
    }
    return rc;
}

/* ---- connections and migrations ---------------------------------------------- */

enum status db_open(const struct db_target *t, struct db **out, struct error *err)
{
    struct db *db = calloc(1, sizeof *db);

    *out = NULL;
    if (db == NULL)
        return error_set(err, STATUS_NOMEM, "db connection");
    db->conn = PQconnectdb(t->conninfo);
    if (PQstatus(db->conn) != CONNECTION_OK) {
        enum status rc = db_fail(db, err, t->embedded ? "embedded database" : "database");
        db_close(db);
        return rc;
    }
    /* Quiet NOTICEs ("relation already exists, skipping") stay out of the log. */
    enum status rc =
        exec_cmd(db, "SET client_min_messages = warning; SET TIME ZONE 'UTC'", err);
    if (rc != STATUS_OK) {
        db_close(db);
        return rc;
    }
    *out = db;
    return STATUS_OK;
}

void db_close(struct db *db)
{
    if (db == NULL)
        return;
    PQfinish(db->conn);
    free(db);
}

int db_schema_latest(void)
{
    int v = 0;
    for (size_t i = 0; i < n_migrations; i++) {
        if (migrations[i].version > v)
            v = migrations[i].version;
    }
    return v;
}

enum status db_schema_version(struct db *db, int *version, struct error *err)
{
    PGresult *r;
    enum status rc;

    *version = 0;
    rc = exec_params(db, "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL, &r,
                     err);
    if (rc != STATUS_OK)
        return rc;
    bool exists = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (!exists)
        return STATUS_OK;
    rc = exec_params(db, "SELECT coalesce(max(version), 0) FROM schema_version", 0, NULL,
                     &r, err);
    if (rc != STATUS_OK)
        return rc;
    *version = (int)get_int64(r, 0, 0);
    PQclear(r);
    return STATUS_OK;
}

enum status db_migrate(struct db *db, int *applied, struct error *err)
{
    enum status rc;
    int current;

    *applied = 0;
    /* Two migrators at once (cron and a person) must not both apply a step. */
    rc = exec_cmd(db, "SELECT pg_advisory_lock(7290153)", err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_schema_version(db, &current, err);
    for (size_t i = 0; rc == STATUS_OK && i < n_migrations; i++) {
        const struct migration *m = &migrations[i];
        char version[16];
        const char *vals[2] = {version, m->name};
        PGresult *r;

        if (m->version <= current)
            continue;
        rc = exec_cmd(db, "BEGIN", err);
        if (rc != STATUS_OK)
            break;
        rc = exec_cmd(db, m->sql, err);
        snprintf(version, sizeof version, "%d", m->version);
        if (rc == STATUS_OK) {
            rc = exec_params(db,
                             "INSERT INTO schema_version (version, name) VALUES ($1, $2)",
                             2, vals, &r, err);
        }
        if (rc == STATUS_OK) {
            PQclear(r);
            rc = exec_cmd(db, "COMMIT", err);
        }
        if (rc != STATUS_OK) {
            rollback(db);
            break;
        }
        log_info("applied migration %s", m->name);
        (*applied)++;
    }
    PGresult *u = PQexec(db->conn, "SELECT pg_advisory_unlock(7290153)");
    PQclear(u);
    return rc;
}

/* ---- ingest -------------------------------------------------------------------- */

enum status db_ingest_run_begin(struct db *db, const char *kind, int64_t *run_id,
                                struct error *err)
{
    PGresult *r;
    const char *vals[1] = {kind};
    enum status rc = exec_params(
        db, "INSERT INTO ingest_runs (kind) VALUES ($1) RETURNING id", 1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    *run_id = get_int64(r, 0, 0);
    PQclear(r);
    return STATUS_OK;
}

enum status db_ingest_run_end(struct db *db, int64_t run_id,
                              const struct db_ingest_counts *c, struct error *err)
{
    char v[7][32];
    const char *vals[7];
    PGresult *r;

    snprintf(v[0], sizeof v[0], "%lld", (long long)run_id);
    snprintf(v[1], sizeof v[1], "%ld", c->files);
    snprintf(v[2], sizeof v[2], "%ld", c->loaded);
    snprintf(v[3], sizeof v[3], "%ld", c->skipped);
    snprintf(v[4], sizeof v[4], "%ld", c->quarantined);
    snprintf(v[5], sizeof v[5], "%ld", c->jobs);
    snprintf(v[6], sizeof v[6], "%lld", c->samples);
    for (int i = 0; i < 7; i++)
        vals[i] = v[i];
    enum status rc =
        exec_params(db,
                    "UPDATE ingest_runs SET finished_at = now(), files = $2, "
                    "loaded = $3, skipped = $4, quarantined = $5, jobs = $6, "
                    "samples = $7 WHERE id = $1",
                    7, vals, &r, err);
    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

enum status db_file_seen(struct db *db, const char *content_hash, bool *seen,
                         struct error *err)
{
    PGresult *r;
    const char *vals[1] = {content_hash};
    enum status rc = exec_params(db, "SELECT 1 FROM loaded_files WHERE content_hash = $1",
                                 1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    *seen = PQntuples(r) > 0;
    PQclear(r);
    return STATUS_OK;
}

static enum status mark_loaded(struct db *db, int64_t run_id, const char *path,
                               const char *content_hash, const char *kind,
                               struct error *err)
{
    char run[32];
    const char *vals[4] = {content_hash, path, kind, run};
    PGresult *r;

    snprintf(run, sizeof run, "%lld", (long long)run_id);
    enum status rc =
        exec_params(db,
                    "INSERT INTO loaded_files (content_hash, path, kind, run_id) "
                    "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    4, vals, &r, err);
    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

static bool differs(double a, double b)
{
    return fabs(a - b) > 0.01 * fmax(fabs(a), fabs(b));
}

/* Same job key seen again from other content: keep the first, warn on a real
 * difference (INTERFACES.md "Identity"). */
static enum status compare_existing_job(struct db *db, const struct job_metrics *m,
                                        const char *path, struct error *err)
{
    PGresult *r;
    const char *vals[1] = {m->job_key};
    enum status rc = exec_params(
        db, "SELECT t_j, eta_read, eta_write, source_path FROM jobs WHERE job_key = $1",
        1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) == 1 &&
        (differs(get_double(r, 0, 0), m->t_j) ||
         differs((double)get_int64(r, 0, 1), (double)m->eta_read) ||
         differs((double)get_int64(r, 0, 2), (double)m->eta_write))) {
        log_warn(
            "%s: job %s was loaded before from %s with values that differ by more than "
            "1%%; the first stays",
            path, m->job_key, PQgetvalue(r, 0, 3));
    }
    PQclear(r);
    return STATUS_OK;
}

static void fmt_double(char *out, size_t size, double v)
{
    if (isfinite(v)) {
        snprintf(out, size, "%.17g", v);
    } else {
        out[0] = '\0';
    }
}

enum status db_job_load(struct db *db, int64_t run_id, const char *path,
                        const char *content_hash, const struct darshan_log *log,
                        const struct job_metrics *m, bool *inserted, struct error *err)
{
    char num[24][40];
    const char *vals[31];
    PGresult *r = NULL;
    struct buf b = {0};
    enum status rc;
    char group_name[200];

    *inserted = false;
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        return rc;
    snprintf(group_name, sizeof group_name, "%s (uid %llu, %lld procs)", m->executable,
             (unsigned long long)log->uid, (long long)log->nprocs);
    {
        const char *gv[3] = {m->group_id, group_name, m->group_key};
        rc = exec_params(
            db,
            "INSERT INTO app_groups (group_id, name, key) VALUES ($1, $2, $3) "
            "ON CONFLICT DO NOTHING",
            3, gv, &r, err);
        if (rc != STATUS_OK)
            goto fail;
        PQclear(r);
    }
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)log->uid);
    snprintf(num[1], sizeof num[1], "%lld", (long long)log->nprocs);
    snprintf(num[2], sizeof num[2], "%lld", (long long)log->start_time_s);
    snprintf(num[3], sizeof num[3], "%lld", (long long)log->end_time_s);
    fmt_double(num[4], sizeof num[4], log->run_time_s);
    fmt_double(num[5], sizeof num[5], log->log_version);
    fmt_double(num[6], sizeof num[6], m->t_j);
    fmt_double(num[7], sizeof num[7], m->t_um);
    fmt_double(num[8], sizeof num[8], m->t_urw);
    fmt_double(num[9], sizeof num[9], m->t_s);
    fmt_double(num[10], sizeof num[10], m->t_s_span);
    fmt_double(num[11], sizeof num[11], m->t_s_slowest);
    fmt_double(num[12], sizeof num[12], m->t);
    fmt_double(num[13], sizeof num[13], m->t_fr);
    fmt_double(num[14], sizeof num[14], m->t_fw);
    snprintf(num[15], sizeof num[15], "%lld", (long long)m->eta_read);
    snprintf(num[16], sizeof num[16], "%lld", (long long)m->eta_write);
    snprintf(num[17], sizeof num[17], "%lld", (long long)m->eta_mon_read);
    snprintf(num[18], sizeof num[18], "%lld", (long long)m->eta_mon_write);
    snprintf(num[19], sizeof num[19], "%lld", (long long)m->n_unique_files);
    snprintf(num[20], sizeof num[20], "%lld", (long long)m->n_shared_files);
    vals[0] = m->job_key;
    vals[1] = log->jobid;
    vals[2] = num[0];
    vals[3] = log->exe != NULL ? log->exe : "";
    vals[4] = m->executable;
    vals[5] = num[1];
    vals[6] = num[2];
    vals[7] = num[3];
    vals[8] = num[4];
    vals[9] = num[5];
    vals[10] = m->group_id;
    vals[11] = content_hash;
    vals[12] = path;
    for (int i = 6; i <= 20; i++)
        vals[13 + i - 6] = num[i][0] != '\0' ? num[i] : NULL;
    rc = exec_params(
        db,
        "INSERT INTO jobs (job_key, jobid, uid, exe, executable, nprocs, "
        "start_time, end_time, run_time, log_version, group_id, source_hash, "
        "source_path, t_j, t_um, t_urw, t_s, t_s_span, t_s_slowest, t, t_fr, "
        "t_fw, eta_read, eta_write, eta_mon_read, eta_mon_write, n_unique_files, "
        "n_shared_files) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
        "$12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, "
        "$26, $27, $28) ON CONFLICT (job_key) DO NOTHING RETURNING job_key",
        28, vals, &r, err);
    if (rc != STATUS_OK)
        goto fail;
    *inserted = PQntuples(r) == 1;
    PQclear(r);
    if (*inserted) {
        for (size_t i = 0; i < m->n_windows; i++) {
            const struct job_window *w = &m->windows[i];
            if (!buf_field(&b, m->job_key) ||
                !buf_printf(&b, "\t%s\t%.17g\t%.17g\t%lld\t", w->is_write ? "t" : "f",
                            w->start_s, w->end_s, (long long)w->bytes) ||
                !buf_field(&b, w->monitored ? w->fs : NULL) || !buf_printf(&b, "\n")) {
                rc = error_set(err, STATUS_NOMEM, "windows of %s", path);
                goto fail;
            }
        }
        if (b.len > 0) {
            rc =
                copy_in(db,
                        "COPY job_windows (job_key, is_write, start_s, end_s, bytes, fs) "
                        "FROM STDIN",
                        &b, err);
            if (rc != STATUS_OK)
                goto fail;
        }
    } else {
        rc = compare_existing_job(db, m, path, err);
        if (rc != STATUS_OK)
            goto fail;
    }
    rc = mark_loaded(db, run_id, path, content_hash, "darshan", err);
    if (rc != STATUS_OK)
        goto fail;
    rc = exec_cmd(db, "COMMIT", err);
    free(b.p);
    return rc;
fail:
    rollback(db);
    free(b.p);
    *inserted = false;
    return rc;
}

static enum status ensure_temp_tables(struct db *db, struct error *err)
{
    if (db->temp_tables)
        return STATUS_OK;
    enum status rc = exec_cmd(db,
                              "CREATE TEMP TABLE IF NOT EXISTS staged_samples "
                              "(LIKE samples) ON COMMIT DELETE ROWS",
                              err);
    db->temp_tables = rc == STATUS_OK;
    return rc;
}

static bool buf_rate(struct buf *b, double v)
{
    return isfinite(v) ? buf_printf(b, "\t%.17g", v) : buf_printf(b, "\t\\N");
}

enum status db_samples_load(struct db *db, int64_t run_id, const char *path,
                            const char *content_hash, const char *fs, const char *server,
                            const struct iostat_data *data, long long *inserted,
                            long long *differing, struct error *err)
{
    struct buf b = {0};
    PGresult *r;
    enum status rc;
    const char *host = server != NULL && server[0] != '\0' ? server : data->host;

    *inserted = 0;
    *differing = 0;
    if (host == NULL || host[0] == '\0') {
        return error_at(err, STATUS_PARSE, path, 0,
                        "expected a host name in the file, or --server HOST");
    }
    rc = ensure_temp_tables(db, err);
    if (rc != STATUS_OK)
        return rc;
    for (size_t i = 0; i < data->n; i++) {
        const struct iostat_sample *s = &data->samples[i];
        if (!buf_field(&b, fs) || !buf_printf(&b, "\t") || !buf_field(&b, host) ||
            !buf_printf(&b, "\t") || !buf_field(&b, s->device) ||
            !buf_printf(&b, "\t%lld\t%.17g", (long long)s->stamp_s, data->interval_s) ||
            !buf_rate(&b, s->r_bps) || !buf_rate(&b, s->w_bps) ||
            !buf_rate(&b, s->ro_ps) || !buf_rate(&b, s->wo_ps) ||
            !buf_rate(&b, s->ops_total_ps) || !buf_printf(&b, "\t") ||
            !buf_field(&b, content_hash) || !buf_printf(&b, "\n")) {
            free(b.p);
            return error_set(err, STATUS_NOMEM, "samples of %s", path);
        }
    }
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        goto out;
    rc = copy_in(
        db,
        "COPY staged_samples (fs, server, device, stamp_s, interval_s, r_bps, w_bps, "
        "ro_ps, wo_ps, ops_total_ps, source_hash) FROM STDIN",
        &b, err);
    if (rc != STATUS_OK)
        goto fail;
    rc = exec_params(
        db,
        "SELECT count(*) FROM staged_samples t JOIN samples s "
        "USING (fs, server, device, stamp_s) "
        "WHERE abs(t.r_bps - s.r_bps) > 0.01 * greatest(abs(t.r_bps), abs(s.r_bps)) "
        "OR abs(t.w_bps - s.w_bps) > 0.01 * greatest(abs(t.w_bps), abs(s.w_bps))",
        0, NULL, &r, err);
    if (rc != STATUS_OK)
        goto fail;
    *differing = get_int64(r, 0, 0);
    PQclear(r);
    rc = exec_params(
        db, "INSERT INTO samples SELECT * FROM staged_samples ON CONFLICT DO NOTHING", 0,
        NULL, &r, err);
    if (rc != STATUS_OK)
        goto fail;
    *inserted = strtoll(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    rc = mark_loaded(db, run_id, path, content_hash, "iostat", err);
    if (rc != STATUS_OK)
        goto fail;
    rc = exec_cmd(db, "COMMIT", err);
    goto out;
fail:
    rollback(db);
    *inserted = 0;
out:
    free(b.p);
    return rc;
}

enum status db_ingest_error_record(struct db *db, const char *path,
                                   const char *content_hash, const struct error *reason,
                                   struct error *err)
{
    char line[24];
    const char *vals[5] = {path, content_hash, line, status_name(reason->code),
                           reason->msg};
    PGresult *r;

    snprintf(line, sizeof line, "%ld", reason->line);
    if (reason->line <= 0)
        vals[2] = NULL;
    enum status rc = exec_params(
        db,
        "INSERT INTO ingest_errors (path, content_hash, line, status, message) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (path, content_hash) DO UPDATE "
        "SET last_seen = now(), line = EXCLUDED.line, status = EXCLUDED.status, "
        "message = EXCLUDED.message",
        5, vals, &r, err);
    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

/* ---- analysis inputs ----------------------------------------------------------- */

void db_jobs_free(struct db_jobs *jobs)
{
    if (jobs == NULL)
        return;
    free(jobs->jobs);
    free(jobs->all_windows);
    free(jobs);
}

enum status db_jobs_of_group(struct db *db, const char *group_id, struct db_jobs **out,
                             struct error *err)
{
    const char *vals[1] = {group_id};
    PGresult *r = NULL, *w = NULL;
    struct db_jobs *jobs = NULL;
    enum status rc;

    *out = NULL;
    rc = exec_params(
        db,
        "SELECT job_key, jobid, group_id, start_time, t_j, t_um, t_urw, t_s, t, "
        "t_fr, t_fw, eta_read, eta_write, eta_mon_read, eta_mon_write, t_s_span, "
        "t_s_slowest "
        "FROM jobs WHERE ($1::text IS NULL OR group_id = $1) "
        "ORDER BY start_time, job_key",
        1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    rc = exec_params(db,
                     "SELECT w.job_key, w.is_write, w.start_s, w.end_s, w.fs, w.bytes "
                     "FROM job_windows w JOIN jobs j USING (job_key) "
                     "WHERE ($1::text IS NULL OR j.group_id = $1) "
                     "ORDER BY j.start_time, j.job_key, w.start_s",
                     1, vals, &w, err);
    if (rc != STATUS_OK)
        goto out;
    jobs = calloc(1, sizeof *jobs);
    size_t n = (size_t)PQntuples(r), nw = (size_t)PQntuples(w);
    if (jobs == NULL || (n > 0 && (jobs->jobs = calloc(n, sizeof *jobs->jobs)) == NULL) ||
        (nw > 0 && (jobs->all_windows = calloc(nw, sizeof *jobs->all_windows)) == NULL)) {
        rc = error_set(err, STATUS_NOMEM, "jobs of a group");
        goto out;
    }
    jobs->n = n;
    jobs->n_all_windows = nw;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct db_job *j = &jobs->jobs[i];
        int row = (int)i;
        copy_text(j->job_key, sizeof j->job_key, r, row, 0);
        copy_text(j->jobid, sizeof j->jobid, r, row, 1);
        copy_text(j->group_id, sizeof j->group_id, r, row, 2);
        j->start_s = (double)get_int64(r, row, 3);
        j->t_j = get_double(r, row, 4);
        j->end_s = j->start_s + j->t_j;
        j->t_um = get_double(r, row, 5);
        j->t_urw = get_double(r, row, 6);
        j->t_s = get_double(r, row, 7);
        j->t = get_double(r, row, 8);
        j->t_fr = get_double(r, row, 9);
        j->t_fw = get_double(r, row, 10);
        j->eta_read = get_int64(r, row, 11);
        j->eta_write = get_int64(r, row, 12);
        j->eta_mon_read = get_int64(r, row, 13);
        j->eta_mon_write = get_int64(r, row, 14);
        j->t_s_span = get_double(r, row, 15);
        j->t_s_slowest = get_double(r, row, 16);
        j->windows = jobs->all_windows + k;
        while (k < nw && strcmp(PQgetvalue(w, (int)k, 0), j->job_key) == 0) {
            struct db_window *dw = &jobs->all_windows[k];
            dw->is_write = PQgetvalue(w, (int)k, 1)[0] == 't';
            dw->start_s = get_double(w, (int)k, 2);
            dw->end_s = get_double(w, (int)k, 3);
            dw->monitored = !PQgetisnull(w, (int)k, 4);
            copy_text(dw->fs, sizeof dw->fs, w, (int)k, 4);
            dw->bytes = get_int64(w, (int)k, 5);
            j->n_windows++;
            k++;
        }
    }
    *out = jobs;
    jobs = NULL;
out:
    db_jobs_free(jobs);
    PQclear(r);
    PQclear(w);
    return rc;
}

void db_streams_free(struct db_streams *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->streams[i].end_s);
        free(s->streams[i].r);
        free(s->streams[i].w);
        free(s->streams[i].ro);
        free(s->streams[i].wo);
    }
    for (size_t i = 0; i < s->n_servers; i++)
        free(s->servers[i]);
    free(s->streams);
    free(s->servers);
    free(s->server_of);
    free(s);
}

static bool stream_alloc(struct db_stream *st, size_t n)
{
    st->end_s = malloc(n * sizeof(double));
    st->r = malloc(n * sizeof(double));
    st->w = malloc(n * sizeof(double));
    st->ro = malloc(n * sizeof(double));
    st->wo = malloc(n * sizeof(double));
    return st->end_s != NULL && st->r != NULL && st->w != NULL && st->ro != NULL &&
           st->wo != NULL;
}

enum status db_streams_load(struct db *db, const char *fs, double offset_s,
                            struct db_streams **out, struct error *err)
{
    const char *vals[1] = {fs};
    PGresult *r;
    struct db_streams *s = NULL;
    enum status rc;

    *out = NULL;
    rc = exec_params(
        db,
        "SELECT fs, server, device, stamp_s, interval_s, r_bps, w_bps, ro_ps, "
        "wo_ps FROM samples WHERE ($1::text IS NULL OR fs = $1) "
        "ORDER BY fs, server, device, stamp_s",
        1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        rc = error_set(err, STATUS_NOMEM, "sample streams");
        goto out;
    }
    /* Two passes: count the streams and their lengths, then fill. */
    size_t start = 0;
    while (start < rows) {
        size_t end = start + 1;
        while (end < rows &&
               strcmp(PQgetvalue(r, (int)end, 0), PQgetvalue(r, (int)start, 0)) == 0 &&
               strcmp(PQgetvalue(r, (int)end, 1), PQgetvalue(r, (int)start, 1)) == 0 &&
               strcmp(PQgetvalue(r, (int)end, 2), PQgetvalue(r, (int)start, 2)) == 0)
            end++;
        struct db_stream *grown = realloc(s->streams, (s->n + 1) * sizeof *grown);
        size_t *grown_of = realloc(s->server_of, (s->n + 1) * sizeof *grown_of);
        if (grown != NULL)
            s->streams = grown;
        if (grown_of != NULL)
            s->server_of = grown_of;
        if (grown == NULL || grown_of == NULL) {
            rc = error_set(err, STATUS_NOMEM, "sample streams");
            goto out;
        }
        struct db_stream *st = &s->streams[s->n];
        memset(st, 0, sizeof *st);
        s->n++;
        copy_text(st->fs, sizeof st->fs, r, (int)start, 0);
        copy_text(st->server, sizeof st->server, r, (int)start, 1);
        copy_text(st->device, sizeof st->device, r, (int)start, 2);
        st->interval_s = get_double(r, (int)start, 4);
        if (!stream_alloc(st, end - start)) {
            rc = error_set(err, STATUS_NOMEM, "sample streams");
            goto out;
        }
        for (size_t i = start; i < end; i++) {
            size_t k = i - start;
            st->end_s[k] = (double)get_int64(r, (int)i, 3) + offset_s;
            st->r[k] = get_double(r, (int)i, 5);
            st->w[k] = get_double(r, (int)i, 6);
            st->ro[k] = get_double(r, (int)i, 7);
            st->wo[k] = get_double(r, (int)i, 8);
        }
        st->n = end - start;
        /* The server index: servers are "fs/server" in the order first seen. */
        char name[200];
        snprintf(name, sizeof name, "%s/%s", st->fs, st->server);
        size_t idx = s->n_servers;
        for (size_t i = 0; i < s->n_servers; i++) {
            if (strcmp(s->servers[i], name) == 0)
                idx = i;
        }
        if (idx == s->n_servers) {
            char **grown_names =
                realloc(s->servers, (s->n_servers + 1) * sizeof *grown_names);
            if (grown_names == NULL) {
                rc = error_set(err, STATUS_NOMEM, "sample streams");
                goto out;
            }
            s->servers = grown_names;
            s->servers[s->n_servers] = str_dup(name);
            if (s->servers[s->n_servers] == NULL) {
                rc = error_set(err, STATUS_NOMEM, "sample streams");
                goto out;
            }
            s->n_servers++;
        }
        s->server_of[s->n - 1] = idx;
        start = end;
    }
    *out = s;
    s = NULL;
out:
    db_streams_free(s);
    PQclear(r);
    return rc;
}

/* ---- groups, results, API reads ------------------------------------------------ */

static void fill_group(struct db_group *g, const PGresult *r, int row)
{
    copy_text(g->id, sizeof g->id, r, row, 0);
    copy_text(g->name, sizeof g->name, r, row, 1);
    copy_text(g->key, sizeof g->key, r, row, 2);
    g->jobs = (long)get_int64(r, row, 3);
}

enum status db_groups_list(struct db *db, struct db_group **out, size_t *n,
                           struct error *err)
{
    PGresult *r;
    enum status rc =
        exec_params(db,
                    "SELECT g.group_id, g.name, g.key, count(j.job_key) "
                    "FROM app_groups g LEFT JOIN jobs j USING (group_id) "
                    "GROUP BY g.group_id ORDER BY count(j.job_key) DESC, g.group_id",
                    0, NULL, &r, err);
    *out = NULL;
    *n = 0;
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > 0) {
        *out = calloc(rows, sizeof **out);
        if (*out == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "groups");
        }
    }
    for (size_t i = 0; i < rows; i++)
        fill_group(&(*out)[i], r, (int)i);
    *n = rows;
    PQclear(r);
    return STATUS_OK;
}

enum status db_group_get(struct db *db, const char *id, struct db_group *out,
                         struct error *err)
{
    PGresult *r;
    const char *vals[1] = {id};
    enum status rc = exec_params(db,
                                 "SELECT g.group_id, g.name, g.key, count(j.job_key) "
                                 "FROM app_groups g LEFT JOIN jobs j USING (group_id) "
                                 "WHERE g.group_id = $1 GROUP BY g.group_id",
                                 1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return error_set(err, STATUS_NOT_FOUND, "no group %s", id);
    }
    fill_group(out, r, 0);
    PQclear(r);
    return STATUS_OK;
}

/* The stored JSON text of column 0 of the first row of sql (malloc'd into *json), and
 * when computed_at is not NULL the text of column 1; STATUS_NOT_FOUND ("no WHAT
 * stored") when there is no row. */
static enum status stored_text(struct db *db, const char *sql, int n,
                               const char *const *vals, const char *what, char **json,
                               char computed_at[40], struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(db, sql, n, vals, &r, err);

    *json = NULL;
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return error_set(err, STATUS_NOT_FOUND, "no %s stored", what);
    }
    *json = str_dup(PQgetvalue(r, 0, 0));
    if (computed_at != NULL)
        copy_text(computed_at, 40, r, 0, 1);
    PQclear(r);
    return *json != NULL ? STATUS_OK : error_set(err, STATUS_NOMEM, "%s", what);
}

/* computed_at as RFC 3339 UTC, the second column of stored_text's queries. */
#define COMPUTED_AT_SQL                                                                  \
    "to_char(computed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

enum status db_result_store(struct db *db, const char *group_id, const char *y,
                            const char *x, double granularity_s, const char *space,
                            const char *scope, const char *json, struct error *err)
{
    char g[40];
    const char *vals[7] = {group_id, y, x, g, space, scope, json};
    PGresult *r;

    snprintf(g, sizeof g, "%.17g", granularity_s);
    enum status rc = exec_params(
        db,
        "INSERT INTO results (kind, group_id, y, x, granularity_s, space, scope, result) "
        "VALUES ('association', $1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kind, group_id, "
        "y, x, granularity_s, space, scope) DO UPDATE SET result = EXCLUDED.result, "
        "computed_at = now() WHERE results.result IS DISTINCT FROM EXCLUDED.result",
        7, vals, &r, err);
    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

enum status db_result_get(struct db *db, const char *group_id, const char *y,
                          const char *x, double granularity_s, const char *space,
                          const char *scope, char **json, char computed_at[40],
                          struct error *err)
{
    char g[40];
    const char *vals[6] = {group_id, y, x, g, space, scope};

    snprintf(g, sizeof g, "%.17g", granularity_s);
    return stored_text(db,
                       "SELECT result::text, " COMPUTED_AT_SQL " FROM results "
                       "WHERE kind = 'association' AND group_id = $1 AND y = $2 AND "
                       "x = $3 AND granularity_s = $4 AND space = $5 AND scope = $6",
                       6, vals, "result", json, computed_at, err);
}

enum status db_result_find(struct db *db, const char *group_id, const char *y,
                           const char *x, const char *space, const char *scope,
                           const char *settings, char **json, char computed_at[40],
                           struct error *err)
{
    const char *vals[6] = {group_id, y, x, space, scope, settings};

    return stored_text(db,
                       "SELECT result::text, " COMPUTED_AT_SQL " FROM results "
                       "WHERE kind = 'association' AND group_id = $1 AND y = $2 AND "
                       "x = $3 AND space = $4 AND scope = $5 AND "
                       "result->'provenance'->>'settings' LIKE $6 "
                       "ORDER BY computed_at DESC LIMIT 1",
                       6, vals, "result", json, computed_at, err);
}

enum status db_result_granularities(struct db *db, const char *group_id, const char *y,
                                    const char *x, double **out, size_t *n,
                                    struct error *err)
{
    const char *vals[3] = {group_id, y, x};
    PGresult *r;

    *out = NULL;
    *n = 0;
    enum status rc = exec_params(db,
                                 "SELECT DISTINCT granularity_s FROM results WHERE "
                                 "kind = 'association' AND group_id = $1 AND y = $2 "
                                 "AND x = $3 ORDER BY 1",
                                 3, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > 0) {
        *out = malloc(rows * sizeof **out);
        if (*out == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "granularities");
        }
        for (size_t i = 0; i < rows; i++)
            (*out)[i] = get_double(r, (int)i, 0);
    }
    *n = rows;
    PQclear(r);
    return STATUS_OK;
}

enum status db_sweep_store(struct db *db, const char *group_id, const char *y,
                           const char *x, double base_granularity_s, const char *scope,
                           const char *json, struct error *err)
{
    char g[40];
    const char *keys[4] = {group_id, y, x, scope};
    const char *vals[6] = {group_id, y, x, g, scope, json};

    snprintf(g, sizeof g, "%.17g", base_granularity_s);
    /* One sweep per (group, y, x, scope): an older one at another base Δ goes too. */
    return replace_rows(
        db,
        "DELETE FROM results WHERE kind = 'sweep' AND group_id = $1 AND "
        "y = $2 AND x = $3 AND scope = $4",
        4, keys,
        "INSERT INTO results (kind, group_id, y, x, granularity_s, space, "
        "scope, result) VALUES ('sweep', $1, $2, $3, $4, 'auto', $5, $6)",
        6, vals, err);
}

enum status db_sweep_get(struct db *db, const char *group_id, const char *y,
                         const char *x, const char *scope, char **json, struct error *err)
{
    const char *vals[4] = {group_id, y, x, scope};

    return stored_text(db,
                       "SELECT result::text FROM results WHERE kind = 'sweep' "
                       "AND group_id = $1 AND y = $2 AND x = $3 AND scope = $4 "
                       "ORDER BY computed_at DESC LIMIT 1",
                       4, vals, "sweep", json, NULL, err);
}

/* ---- provenance: a group's inputs ----------------------------------------------- */

/* Samples within this many seconds of a group's span count as its inputs: wider than
 * any coarse interval of a sweep (20 × an hourly Δ) and any clock offset θ, so that a
 * late sample that can change a result always changes the fingerprint. */
#define INPUT_MARGIN_S "86400"

enum status db_group_inputs_read(struct db *db, const char *group_id, const char *kind,
                                 const char *settings, struct db_group_inputs *out,
                                 struct error *err)
{
    const char *vals[3] = {group_id, kind, settings};
    PGresult *r;

    memset(out, 0, sizeof *out);
    /* A group's result depends on its jobs, the samples around them, and the
     * settings; a hash of each is cheap to compare and says what changed. */
    enum status rc = exec_params(
        db,
        "WITH j AS (SELECT count(*) AS n, "
        "  coalesce(md5(string_agg(job_key, ',' ORDER BY job_key)), '') AS h, "
        "  min(start_time) AS s, max(end_time) AS e FROM jobs WHERE group_id = $1), "
        "smp AS (SELECT count(*) AS n, coalesce(md5(string_agg(DISTINCT source_hash, ',' "
        "  ORDER BY source_hash)), '') AS h FROM samples, j "
        "  WHERE samples.stamp_s BETWEEN j.s - " INPUT_MARGIN_S
        " AND j.e + " INPUT_MARGIN_S "), old AS (SELECT fingerprint FROM group_inputs "
        "WHERE group_id = $1 AND kind = $2) "
        "SELECT j.n, j.h, smp.n, smp.h, "
        "  md5(j.h || '|' || smp.n || '|' || smp.h || '|' || $3), "
        "  coalesce((SELECT fingerprint FROM old), '') FROM j, smp",
        3, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    out->jobs = (long)get_int64(r, 0, 0);
    copy_text(out->jobs_md5, sizeof out->jobs_md5, r, 0, 1);
    out->samples = (long long)get_int64(r, 0, 2);
    copy_text(out->samples_md5, sizeof out->samples_md5, r, 0, 3);
    copy_text(out->fingerprint, sizeof out->fingerprint, r, 0, 4);
    copy_text(out->stored_fingerprint, sizeof out->stored_fingerprint, r, 0, 5);
    PQclear(r);
    return STATUS_OK;
}

enum status db_group_inputs_store(struct db *db, const char *group_id, const char *kind,
                                  const char *settings, const struct db_group_inputs *in,
                                  struct error *err)
{
    char jobs[32], samples[32];
    const char *vals[8] = {group_id,     kind,    in->fingerprint, jobs,
                           in->jobs_md5, samples, in->samples_md5, settings};
    PGresult *r;

    snprintf(jobs, sizeof jobs, "%ld", in->jobs);
    snprintf(samples, sizeof samples, "%lld", in->samples);
    enum status rc = exec_params(
        db,
        "INSERT INTO group_inputs (group_id, kind, fingerprint, jobs, jobs_md5, samples, "
        "samples_md5, settings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
        "ON CONFLICT (group_id, kind) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, "
        "jobs = EXCLUDED.jobs, jobs_md5 = EXCLUDED.jobs_md5, samples = EXCLUDED.samples, "
        "samples_md5 = EXCLUDED.samples_md5, settings = EXCLUDED.settings, "
        "analyzed_at = now() WHERE group_inputs.fingerprint <> EXCLUDED.fingerprint",
        8, vals, &r, err);
    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

enum status db_groups_touched_since(struct db *db, double since_s, char (**ids)[17],
                                    size_t *n, struct error *err)
{
    char since[40];
    const char *vals[1] = {since};
    PGresult *r;

    *ids = NULL;
    *n = 0;
    snprintf(since, sizeof since, "%.3f", since_s);
    /* New jobs touch their group; new samples touch every group with a job within
     * the margin of their time range (one range per loaded file). */
    enum status rc = exec_params(
        db,
        "WITH f AS (SELECT content_hash FROM loaded_files "
        "  WHERE loaded_at >= to_timestamp($1::double precision)), "
        "rng AS (SELECT min(stamp_s) AS s, max(stamp_s) AS e FROM samples "
        "  WHERE source_hash IN (SELECT content_hash FROM f) GROUP BY source_hash) "
        "SELECT DISTINCT j.group_id FROM jobs j "
        "WHERE j.source_hash IN (SELECT content_hash FROM f) "
        "  OR EXISTS (SELECT 1 FROM rng WHERE j.start_time <= rng.e + " INPUT_MARGIN_S
        "  AND j.end_time >= rng.s - " INPUT_MARGIN_S ") ORDER BY 1",
        1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > 0) {
        *ids = calloc(rows, sizeof **ids);
        if (*ids == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "groups");
        }
    }
    for (size_t i = 0; i < rows; i++)
        copy_text((*ids)[i], sizeof(*ids)[i], r, (int)i, 0);
    *n = rows;
    PQclear(r);
    return STATUS_OK;
}

enum status db_analysis_run_record(struct db *db, long groups, long jobs, long excluded,
                                   double seconds, struct error *err)
{
    char v[4][32];
    const char *vals[4] = {v[0], v[1], v[2], v[3]};
    PGresult *r;

    snprintf(v[0], sizeof v[0], "%ld", groups);
    snprintf(v[1], sizeof v[1], "%ld", jobs);
    snprintf(v[2], sizeof v[2], "%ld", excluded);
    snprintf(v[3], sizeof v[3], "%.6f", seconds);
    enum status rc =
        exec_params(db,
                    "INSERT INTO analysis_runs (groups, jobs, excluded, seconds) "
                    "VALUES ($1, $2, $3, $4)",
                    4, vals, &r, err);
    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

enum status db_health_get(struct db *db, struct db_health *out, struct error *err)
{
    PGresult *r;
    enum status rc;

    memset(out, 0, sizeof *out);
    rc = db_schema_version(db, &out->schema_version, err);
    if (rc != STATUS_OK || out->schema_version == 0)
        return rc;
    rc = exec_params(db,
                     "SELECT (SELECT to_char(max(finished_at) AT TIME ZONE 'UTC', "
                     "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM ingest_runs), "
                     "(SELECT to_char(max(finished_at) AT TIME ZONE 'UTC', "
                     "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
                     "FROM analysis_runs), (SELECT count(*) FROM jobs), (SELECT count(*) "
                     "FROM samples)",
                     0, NULL, &r, err);
    if (rc != STATUS_OK)
        return rc;
    copy_text(out->last_ingest, sizeof out->last_ingest, r, 0, 0);
    copy_text(out->last_analysis, sizeof out->last_analysis, r, 0, 1);
    out->jobs = (long)get_int64(r, 0, 2);
    out->samples = get_int64(r, 0, 3);
    PQclear(r);
    return STATUS_OK;
}

enum status db_jobs_page(struct db *db, const char *cursor, double from_s, double to_s,
                         const char *group_id, size_t limit, struct db_job_row **rows,
                         size_t *n, char next_cursor[80], struct error *err)
{
    char c_start[32] = "", c_key[40] = "", from[40], to[40], lim[24];
    const char *vals[6];
    PGresult *r;
    enum status rc;

    *rows = NULL;
    *n = 0;
    next_cursor[0] = '\0';
    if (cursor != NULL && cursor[0] != '\0') {
        const char *colon = strchr(cursor, ':');
        if (colon == NULL || colon == cursor ||
            (size_t)(colon - cursor) >= sizeof c_start || strlen(colon + 1) != 32)
            return error_set(err, STATUS_INVALID, "cursor is not one this API gave");
        memcpy(c_start, cursor, (size_t)(colon - cursor));
        c_start[colon - cursor] = '\0';
        snprintf(c_key, sizeof c_key, "%s", colon + 1);
        char *end;
        errno = 0;
        (void)strtoll(c_start, &end, 10);
        if (*end != '\0' || errno != 0)
            return error_set(err, STATUS_INVALID, "cursor is not one this API gave");
    }
    snprintf(from, sizeof from, "%.17g", from_s);
    snprintf(to, sizeof to, "%.17g", to_s);
    snprintf(lim, sizeof lim, "%zu", limit + 1);
    vals[0] = c_start[0] != '\0' ? c_start : NULL;
    vals[1] = c_key[0] != '\0' ? c_key : NULL;
    vals[2] = isnan(from_s) ? NULL : from;
    vals[3] = isnan(to_s) ? NULL : to;
    vals[4] = group_id;
    vals[5] = lim;
    rc = exec_params(
        db,
        "SELECT job_key, jobid, group_id, exe, uid, nprocs, start_time, end_time, "
        "t_j, t_um, t_urw, t_s, t, t_fr, t_fw, eta_read, eta_write, eta_mon_read, "
        "eta_mon_write FROM jobs WHERE "
        "($1::bigint IS NULL OR (start_time, job_key) > ($1::bigint, $2::text)) "
        "AND ($3::float8 IS NULL OR start_time + t_j >= $3::float8) "
        "AND ($4::float8 IS NULL OR start_time < $4::float8) "
        "AND ($5::text IS NULL OR group_id = $5) "
        "ORDER BY start_time, job_key LIMIT $6::bigint",
        6, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t got = (size_t)PQntuples(r);
    size_t take = got > limit ? limit : got;
    if (take > 0) {
        *rows = calloc(take, sizeof **rows);
        if (*rows == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "jobs page");
        }
    }
    for (size_t i = 0; i < take; i++) {
        struct db_job_row *j = &(*rows)[i];
        int row = (int)i;
        copy_text(j->job_key, sizeof j->job_key, r, row, 0);
        copy_text(j->jobid, sizeof j->jobid, r, row, 1);
        copy_text(j->group_id, sizeof j->group_id, r, row, 2);
        copy_text(j->exe, sizeof j->exe, r, row, 3);
        j->uid = get_int64(r, row, 4);
        j->nprocs = get_int64(r, row, 5);
        j->start_time = get_int64(r, row, 6);
        j->end_time = get_int64(r, row, 7);
        j->t_j = get_double(r, row, 8);
        j->t_um = get_double(r, row, 9);
        j->t_urw = get_double(r, row, 10);
        j->t_s = get_double(r, row, 11);
        j->t = get_double(r, row, 12);
        j->t_fr = get_double(r, row, 13);
        j->t_fw = get_double(r, row, 14);
        j->eta_read = get_int64(r, row, 15);
        j->eta_write = get_int64(r, row, 16);
        j->eta_mon_read = get_int64(r, row, 17);
        j->eta_mon_write = get_int64(r, row, 18);
    }
    if (got > limit && take > 0) {
        snprintf(next_cursor, 80, "%lld:%s", (long long)(*rows)[take - 1].start_time,
                 (*rows)[take - 1].job_key);
    }
    *n = take;
    PQclear(r);
    return STATUS_OK;
}

/* ---- group tables and coverage (METHOD.md §4, §7) ------------------------------ */

enum status db_sample_filesystems(struct db *db, struct db_fs **out, size_t *n,
                                  struct error *err)
{
    PGresult *r;
    enum status rc =
        exec_params(db, "SELECT DISTINCT fs FROM samples ORDER BY fs", 0, NULL, &r, err);

    *out = NULL;
    *n = 0;
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > 0) {
        *out = calloc(rows, sizeof **out);
        if (*out == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "file systems");
        }
    }
    for (size_t i = 0; i < rows; i++)
        copy_text((*out)[i].name, sizeof(*out)[i].name, r, (int)i, 0);
    *n = rows;
    PQclear(r);
    return STATUS_OK;
}

enum status db_group_features(struct db *db, const char *group_id,
                              struct db_feature out[DB_N_FEATURES], long *jobs,
                              struct error *err)
{
    /* The columns of jobs, in the order of the SELECT below. */
    static const char *const names[DB_N_FEATURES] = {
        "uid", "nprocs", "n_unique_files", "n_shared_files", "eta_read", "eta_write"};
    const char *vals[1] = {group_id};
    PGresult *r;
    enum status rc =
        exec_params(db,
                    "SELECT count(*), min(uid), max(uid), min(nprocs), max(nprocs), "
                    "min(n_unique_files), max(n_unique_files), min(n_shared_files), "
                    "max(n_shared_files), min(eta_read), max(eta_read), min(eta_write), "
                    "max(eta_write) FROM jobs WHERE group_id = $1",
                    1, vals, &r, err);

    *jobs = 0;
    if (rc != STATUS_OK)
        return rc;
    *jobs = (long)get_int64(r, 0, 0);
    for (int f = 0; f < DB_N_FEATURES; f++) {
        out[f].name = names[f];
        out[f].min = get_int64(r, 0, 1 + 2 * f);
        out[f].max = get_int64(r, 0, 2 + 2 * f);
    }
    PQclear(r);
    if (*jobs == 0)
        return error_set(err, STATUS_NOT_FOUND, "no jobs in group %s", group_id);
    return STATUS_OK;
}

enum status db_group_table_store(struct db *db, const char *group_id,
                                 double granularity_s, const char *json,
                                 struct error *err)
{
    char g[40];
    const char *keys[1] = {group_id};
    const char *vals[3] = {group_id, g, json};

    snprintf(g, sizeof g, "%.17g", granularity_s);
    /* One table per group: one stored at another base Δ goes too. */
    return replace_rows(
        db, "DELETE FROM results WHERE kind = 'group_table' AND group_id = $1", 1, keys,
        "INSERT INTO results (kind, group_id, y, x, granularity_s, space, scope, "
        "result) VALUES ('group_table', $1, '', '', $2, '', 'all', $3)",
        3, vals, err);
}

enum status db_group_table_get(struct db *db, const char *group_id, char **json,
                               struct error *err)
{
    const char *vals[1] = {group_id};

    return stored_text(db,
                       "SELECT result::text FROM results WHERE kind = 'group_table' "
                       "AND group_id = $1 ORDER BY computed_at DESC LIMIT 1",
                       1, vals, "table", json, NULL, err);
}

/* A double as a query parameter: %.17g, or SQL NULL (a NULL pointer) when not
 * finite. */
static const char *param_double(char out[40], double v)
{
    if (!isfinite(v))
        return NULL;
    snprintf(out, 40, "%.17g", v);
    return out;
}

/* One COPY field of a double: \N when not finite. */
static bool buf_double(struct buf *b, double v, char sep)
{
    return isfinite(v) ? buf_printf(b, "%.17g%c", v, sep) : buf_printf(b, "\\N%c", sep);
}

static enum status coverage_insert(struct db *db, const struct db_coverage *c,
                                   const struct db_coverage_series *s, struct error *err)
{
    char v[8][40];
    const char *vals[9] = {c->scope,
                           param_double(v[0], c->granularity_s),
                           param_double(v[1], c->coverage),
                           param_double(v[2], c->sum_d_bytes),
                           param_double(v[3], c->sum_s_bytes),
                           v[4],
                           param_double(v[5], c->d_total_bytes),
                           param_double(v[6], c->log_start_s),
                           param_double(v[7], c->log_end_s)};
    struct buf b = {0};
    PGresult *r;

    snprintf(v[4], sizeof v[4], "%ld", c->intervals);
    enum status rc = exec_params(db,
                                 "INSERT INTO coverage (scope, granularity_s, coverage, "
                                 "sum_d_bytes, sum_s_bytes, intervals, d_total_bytes, "
                                 "log_start_s, log_end_s) VALUES "
                                 "($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                                 9, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    PQclear(r);
    for (size_t i = 0; i < s->n; i++) {
        if (!buf_field(&b, c->scope) || !buf_printf(&b, "\t") ||
            !buf_double(&b, s->end_s[i], '\t') || !buf_double(&b, s->d_bytes[i], '\t') ||
            !buf_double(&b, s->s_bytes[i], '\n')) {
            free(b.p);
            return error_set(err, STATUS_NOMEM, "coverage intervals");
        }
    }
    rc =
        copy_in(db, "COPY coverage_intervals (scope, end_s, d_bytes, s_bytes) FROM STDIN",
                &b, err);
    free(b.p);
    return rc;
}

enum status db_coverage_replace(struct db *db, const struct db_coverage *c,
                                const struct db_coverage_series *series, size_t n,
                                struct error *err)
{
    enum status rc = exec_cmd(db, "BEGIN", err);

    if (rc != STATUS_OK)
        return rc;
    rc = exec_cmd(db, "DELETE FROM coverage", err); /* its intervals cascade */
    for (size_t i = 0; rc == STATUS_OK && i < n; i++)
        rc = coverage_insert(db, &c[i], &series[i], err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

enum status db_coverage_list(struct db *db, struct db_coverage **out, size_t *n,
                             struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(
        db,
        "SELECT scope, granularity_s, coverage, sum_d_bytes, sum_s_bytes, intervals, "
        "d_total_bytes, log_start_s, log_end_s, "
        "to_char(computed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
        "FROM coverage ORDER BY scope <> 'all', scope",
        0, NULL, &r, err);

    *out = NULL;
    *n = 0;
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > 0) {
        *out = calloc(rows, sizeof **out);
        if (*out == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "coverage");
        }
    }
    for (size_t i = 0; i < rows; i++) {
        struct db_coverage *c = &(*out)[i];
        int row = (int)i;
        copy_text(c->scope, sizeof c->scope, r, row, 0);
        c->granularity_s = get_double(r, row, 1);
        c->coverage = get_double(r, row, 2);
        c->sum_d_bytes = get_double(r, row, 3);
        c->sum_s_bytes = get_double(r, row, 4);
        c->intervals = (long)get_int64(r, row, 5);
        c->d_total_bytes = get_double(r, row, 6);
        c->log_start_s = get_double(r, row, 7);
        c->log_end_s = get_double(r, row, 8);
        copy_text(c->computed_at, sizeof c->computed_at, r, row, 9);
    }
    *n = rows;
    PQclear(r);
    return STATUS_OK;
}

void db_coverage_series_clear(struct db_coverage_series *s)
{
    if (s == NULL)
        return;
    free(s->end_s);
    free(s->d_bytes);
    free(s->s_bytes);
    memset(s, 0, sizeof *s);
}

enum status db_coverage_intervals(struct db *db, const char *scope, double from_s,
                                  double to_s, size_t max_n,
                                  struct db_coverage_series *out, bool *truncated,
                                  struct error *err)
{
    char from[40], to[40], limit[32];
    const char *vals[4] = {scope, param_double(from, from_s), param_double(to, to_s),
                           limit};
    PGresult *r;

    memset(out, 0, sizeof *out);
    *truncated = false;
    snprintf(limit, sizeof limit, "%zu", max_n + 1);
    /* (T_i − Δ, T_i] overlaps [from, to) when T_i > from and T_i − Δ < to. */
    enum status rc =
        exec_params(db,
                    "SELECT i.end_s, i.d_bytes, i.s_bytes FROM coverage_intervals i "
                    "JOIN coverage c USING (scope) WHERE i.scope = $1 "
                    "AND ($2::float8 IS NULL OR i.end_s > $2::float8) "
                    "AND ($3::float8 IS NULL OR i.end_s - c.granularity_s < $3::float8) "
                    "ORDER BY i.end_s LIMIT $4::bigint",
                    4, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > max_n) {
        *truncated = true;
        rows = max_n;
    }
    size_t cap = rows > 0 ? rows : 1;
    out->end_s = malloc(cap * sizeof(double));
    out->d_bytes = malloc(cap * sizeof(double));
    out->s_bytes = malloc(cap * sizeof(double));
    if (out->end_s == NULL || out->d_bytes == NULL || out->s_bytes == NULL) {
        PQclear(r);
        db_coverage_series_clear(out);
        return error_set(err, STATUS_NOMEM, "coverage intervals");
    }
    for (size_t i = 0; i < rows; i++) {
        out->end_s[i] = get_double(r, (int)i, 0);
        out->d_bytes[i] = get_double(r, (int)i, 1);
        out->s_bytes[i] = get_double(r, (int)i, 2);
    }
    out->n = rows;
    PQclear(r);
    return STATUS_OK;
}
