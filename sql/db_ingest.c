/* db_ingest.c: ingest runs, and the loads of jobs and samples (one transaction each). */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char v[9][32];
    const char *vals[9];

    snprintf(v[0], sizeof v[0], "%lld", (long long)run_id);
    snprintf(v[1], sizeof v[1], "%ld", c->files);
    snprintf(v[2], sizeof v[2], "%ld", c->loaded);
    snprintf(v[3], sizeof v[3], "%ld", c->skipped);
    snprintf(v[4], sizeof v[4], "%ld", c->quarantined);
    snprintf(v[5], sizeof v[5], "%ld", c->jobs);
    snprintf(v[6], sizeof v[6], "%lld", c->samples);
    snprintf(v[7], sizeof v[7], "%s", c->failed ? "t" : "f");
    snprintf(v[8], sizeof v[8], "%.6f", c->seconds);
    for (int i = 0; i < 9; i++)
        vals[i] = v[i];
    return exec_params_cmd(db,
                           "UPDATE ingest_runs SET finished_at = now(), files = $2, "
                           "loaded = $3, skipped = $4, quarantined = $5, jobs = $6, "
                           "samples = $7, failed = $8, seconds = $9 WHERE id = $1",
                           9, vals, err);
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

    snprintf(run, sizeof run, "%lld", (long long)run_id);
    return exec_params_cmd(db,
                           "INSERT INTO loaded_files (content_hash, path, kind, run_id) "
                           "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                           4, vals, err);
}

void db_group_name(const struct db_job_in *job, char *out, size_t size)
{
    snprintf(out, size, "%s (uid %llu, %lld procs)", job->executable,
             (unsigned long long)job->uid, (long long)job->nprocs);
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

/* The queue columns of samples (migration 0013), in struct db_sample's order. */
#define SAMPLE_QUEUE_COLUMNS "aqu_sz, util_pct, r_await_ms, w_await_ms, await_ms"

static bool buf_rate(struct buf *b, double v)
{
    return isfinite(v) ? buf_printf(b, "\t%.17g", v) : buf_printf(b, "\t\\N");
}

/* s as hexadecimal digits, for a bytea parameter (decode($n, 'hex')); new. */
static char *hex_of(const char *s)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = strlen(s);
    char *out = malloc(2 * n + 1);

    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[(unsigned char)s[i] >> 4];
        out[2 * i + 1] = digits[(unsigned char)s[i] & 15];
    }
    out[2 * n] = '\0';
    return out;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The bytes of hex (encode(…, 'hex')) into out, cut to fit; a NUL ends them. */
static void hex_copy(const char *hex, char *out, size_t size)
{
    size_t n = 0;

    for (; hex[0] != '\0' && hex[1] != '\0' && n + 1 < size; hex += 2) {
        int hi = hex_digit(hex[0]), lo = hex_digit(hex[1]);

        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            break;
        out[n++] = (char)(hi << 4 | lo);
    }
    out[n] = '\0';
}

enum status db_sample_ledger_get(struct db *db, const char *path,
                                 struct db_sample_ledger *out, bool *found,
                                 struct error *err)
{
    const char *vals[1] = {path};
    PGresult *r = NULL;
    enum status rc = exec_params(
        db,
        "SELECT file_id, length, prefix_hash, lines, verdict, format, "
        "encode(host, 'hex'), accepted_stamp IS NOT NULL, accepted_stamp, gap_s, "
        "interval_s, stream_reports, encode(header, 'hex'), resync, cut_pending "
        "FROM sample_ledger WHERE path = $1",
        1, vals, &r, err);

    memset(out, 0, sizeof *out);
    *found = false;
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) == 1) {
        *found = true;
        snprintf(out->file_id, sizeof out->file_id, "%s", PQgetvalue(r, 0, 0));
        out->length = get_int64(r, 0, 1);
        snprintf(out->prefix_hash, sizeof out->prefix_hash, "%s", PQgetvalue(r, 0, 2));
        out->lines = get_int64(r, 0, 3);
        snprintf(out->verdict, sizeof out->verdict, "%s", PQgetvalue(r, 0, 4));
        snprintf(out->format, sizeof out->format, "%s", PQgetvalue(r, 0, 5));
        hex_copy(PQgetvalue(r, 0, 6), out->host, sizeof out->host);
        out->have_accepted = strcmp(PQgetvalue(r, 0, 7), "t") == 0;
        out->accepted_stamp_s = get_int64(r, 0, 8);
        out->gap_s = get_int64(r, 0, 9);
        out->interval_s = get_double(r, 0, 10);
        out->stream_reports = get_int64(r, 0, 11);
        hex_copy(PQgetvalue(r, 0, 12), out->header, sizeof out->header);
        out->resync = strcmp(PQgetvalue(r, 0, 13), "t") == 0;
        out->cut_pending = strcmp(PQgetvalue(r, 0, 14), "t") == 0;
    }
    PQclear(r);
    return STATUS_OK;
}

/* Writes path's ledger row (within the caller's transaction). */
static enum status ledger_put(struct db *db, const char *path,
                              const struct db_sample_ledger *l, struct error *err)
{
    char num[6][32];
    char *host = hex_of(l->host), *header = hex_of(l->header);
    const char *vals[15] = {path,
                            l->file_id,
                            num[0],
                            l->prefix_hash,
                            num[1],
                            l->verdict,
                            l->format,
                            host,
                            num[2],
                            num[3],
                            num[4],
                            num[5],
                            header,
                            l->resync ? "t" : "f",
                            l->cut_pending ? "t" : "f"};
    enum status rc;

    if (host == NULL || header == NULL) {
        free(host);
        free(header);
        return error_set(err, STATUS_NOMEM, "ledger of %s", path);
    }
    snprintf(num[0], sizeof num[0], "%lld", (long long)l->length);
    snprintf(num[1], sizeof num[1], "%lld", (long long)l->lines);
    snprintf(num[2], sizeof num[2], "%lld", (long long)l->accepted_stamp_s);
    snprintf(num[3], sizeof num[3], "%lld", (long long)l->gap_s);
    snprintf(num[4], sizeof num[4], "%.17g", l->interval_s);
    snprintf(num[5], sizeof num[5], "%lld", (long long)l->stream_reports);
    if (!l->have_accepted)
        vals[8] = NULL;
    rc = exec_params_cmd(
        db,
        "INSERT INTO sample_ledger (path, file_id, length, prefix_hash, lines, verdict, "
        "format, host, accepted_stamp, gap_s, interval_s, stream_reports, header, "
        "resync, cut_pending) VALUES ($1, $2, $3, $4, $5, $6, $7, decode($8, 'hex'), $9, "
        "$10, $11, $12, decode($13, 'hex'), $14, $15) ON CONFLICT (path) DO UPDATE SET "
        "file_id = EXCLUDED.file_id, length = EXCLUDED.length, "
        "prefix_hash = EXCLUDED.prefix_hash, lines = EXCLUDED.lines, "
        "verdict = EXCLUDED.verdict, format = EXCLUDED.format, host = EXCLUDED.host, "
        "accepted_stamp = EXCLUDED.accepted_stamp, gap_s = EXCLUDED.gap_s, "
        "interval_s = EXCLUDED.interval_s, stream_reports = EXCLUDED.stream_reports, "
        "header = EXCLUDED.header, resync = EXCLUDED.resync, "
        "cut_pending = EXCLUDED.cut_pending, changed_at = now()",
        15, vals, err);
    free(host);
    free(header);
    return rc;
}

static enum status samples_merge(struct db *db, int64_t run_id, const char *path,
                                 const char *content_hash, const struct db_samples_in *in,
                                 const struct db_sample_ledger *ledger,
                                 long long *inserted, long long *differing,
                                 struct error *err);

/* A sample's identity within one file's samples (fs and server are the file's). */
struct sample_key {
    const char *device;
    int64_t stamp_s;
};

static int sample_key_cmp(const void *a, const void *b)
{
    const struct sample_key *x = a, *y = b;
    int c = strcmp(x->device, y->device);

    return c != 0 ? c : (x->stamp_s > y->stamp_s) - (x->stamp_s < y->stamp_s);
}

/* A text[] literal of names: each quoted, '"' and '\' escaped. */
static bool array_literal(struct buf *b, const char *const *names, size_t n)
{
    if (!buf_printf(b, "{"))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!buf_printf(b, "%s\"", i > 0 ? "," : ""))
            return false;
        for (const char *s = names[i]; *s != '\0'; s++) {
            if ((*s == '"' || *s == '\\') && !buf_printf(b, "\\"))
                return false;
            if (!buf_printf(b, "%c", *s))
                return false;
        }
        if (!buf_printf(b, "\""))
            return false;
    }
    return buf_printf(b, "}");
}

/* Whether in's samples can go straight into the table: no two of them share an
 * identity (device, stamp) and no stored sample of the same fs, server and devices
 * falls within their stamps. Then nothing can conflict and nothing can differ. */
static enum status samples_new(struct db *db, const struct db_samples_in *in, bool *fresh,
                               struct error *err)
{
    struct sample_key *keys = malloc(in->n * sizeof *keys);
    const char **devices = malloc(in->n * sizeof *devices);
    struct buf arr = {0};
    size_t n_dev = 0;
    enum status rc = STATUS_OK;

    *fresh = false;
    if (keys == NULL || devices == NULL) {
        free(keys);
        free(devices);
        return error_set(err, STATUS_NOMEM, "samples");
    }
    for (size_t i = 0; i < in->n; i++)
        keys[i] = (struct sample_key){in->samples[i].device, in->samples[i].stamp_s};
    qsort(keys, in->n, sizeof *keys, sample_key_cmp);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool unique = true;
    for (size_t i = 0; i < in->n && unique; i++) {
        unique = i == 0 || sample_key_cmp(&keys[i - 1], &keys[i]) != 0;
        if (i == 0 || strcmp(keys[i - 1].device, keys[i].device) != 0)
            devices[n_dev++] = keys[i].device;
        lo = keys[i].stamp_s < lo ? keys[i].stamp_s : lo;
        hi = keys[i].stamp_s > hi ? keys[i].stamp_s : hi;
    }
    if (unique && !array_literal(&arr, devices, n_dev))
        rc = error_set(err, STATUS_NOMEM, "samples");
    if (unique && rc == STATUS_OK) {
        char los[24], his[24];
        const char *vals[5] = {in->fs, in->server, arr.p, los, his};
        PGresult *r;
        snprintf(los, sizeof los, "%lld", (long long)lo);
        snprintf(his, sizeof his, "%lld", (long long)hi);
        rc = exec_params(db,
                         "SELECT NOT EXISTS (SELECT 1 FROM samples WHERE fs = $1 AND "
                         "server = $2 AND device = ANY($3::text[]) AND stamp_s BETWEEN "
                         "$4 AND $5)",
                         5, vals, &r, err);
        if (rc == STATUS_OK) {
            *fresh = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
            PQclear(r);
        }
    }
    free(arr.p);
    free(keys);
    free(devices);
    return rc;
}

/* The fast way of db_samples_load: a binary COPY into samples itself, in the caller's
 * transaction (samples_new said nothing can conflict). */
static enum status samples_copy(struct db *db, const char *content_hash,
                                const struct db_samples_in *in, struct error *err)
{
    struct bincopy c;
    enum status rc = bincopy_begin(
        &c, db,
        "COPY samples (fs, server, device, stamp_s, interval_s, r_bps, w_bps, ro_ps, "
        "wo_ps, ops_total_ps, source_hash, " SAMPLE_QUEUE_COLUMNS
        ") FROM STDIN WITH (FORMAT binary)",
        err);

    for (size_t i = 0; rc == STATUS_OK && i < in->n; i++) {
        const struct db_sample *s = &in->samples[i];
        bincopy_row(&c, 16);
        bincopy_text(&c, in->fs);
        bincopy_text(&c, in->server);
        bincopy_text(&c, s->device);
        bincopy_int8(&c, s->stamp_s);
        bincopy_float8(&c, in->interval_s);
        bincopy_float8(&c, s->r_bps);
        bincopy_float8(&c, s->w_bps);
        bincopy_float8(&c, s->ro_ps);
        bincopy_float8(&c, s->wo_ps);
        bincopy_float8(&c, s->ops_total_ps);
        bincopy_text(&c, content_hash);
        bincopy_float8(&c, s->aqu_sz);
        bincopy_float8(&c, s->util_pct);
        bincopy_float8(&c, s->r_await_ms);
        bincopy_float8(&c, s->w_await_ms);
        bincopy_float8(&c, s->await_ms);
    }
    return bincopy_end(&c);
}

enum status db_samples_load(struct db *db, int64_t run_id, const char *path,
                            const char *content_hash, const struct db_samples_in *in,
                            const struct db_sample_ledger *ledger, long long *inserted,
                            long long *differing, struct error *err)
{
    bool fresh = false;
    enum status rc;

    *inserted = 0;
    *differing = 0;
    if (in->server == NULL || in->server[0] == '\0')
        return error_set(err, STATUS_INVALID, "samples of %s without a server", path);
    rc = in->n > 0 ? samples_new(db, in, &fresh, err) : STATUS_OK;
    if (rc != STATUS_OK)
        return rc;
    if (!fresh) {
        return samples_merge(db, run_id, path, content_hash, in, ledger, inserted,
                             differing, err);
    }
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        return rc;
    rc = samples_copy(db, content_hash, in, err);
    if (rc == STATUS_OK)
        rc = mark_loaded(db, run_id, path, content_hash, "iostat", err);
    if (rc == STATUS_OK && ledger != NULL)
        rc = ledger_put(db, path, ledger, err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK) {
        rollback(db);
        return rc;
    }
    *inserted = (long long)in->n;
    return STATUS_OK;
}

/* in's rows as COPY text for staged_samples (copy_staged); false: no memory. */
static bool staged_text(struct buf *b, const struct db_samples_in *in,
                        const char *content_hash)
{
    for (size_t i = 0; i < in->n; i++) {
        const struct db_sample *s = &in->samples[i];
        if (!buf_field(b, in->fs) || !buf_printf(b, "\t") || !buf_field(b, in->server) ||
            !buf_printf(b, "\t") || !buf_field(b, s->device) ||
            !buf_printf(b, "\t%lld\t%.17g", (long long)s->stamp_s, in->interval_s) ||
            !buf_rate(b, s->r_bps) || !buf_rate(b, s->w_bps) || !buf_rate(b, s->ro_ps) ||
            !buf_rate(b, s->wo_ps) || !buf_rate(b, s->ops_total_ps) ||
            !buf_printf(b, "\t") || !buf_field(b, content_hash) ||
            !buf_rate(b, s->aqu_sz) || !buf_rate(b, s->util_pct) ||
            !buf_rate(b, s->r_await_ms) || !buf_rate(b, s->w_await_ms) ||
            !buf_rate(b, s->await_ms) || !buf_printf(b, "\n"))
            return false;
    }
    return true;
}

static enum status copy_staged(struct db *db, struct buf *b, struct error *err)
{
    return copy_in(
        db,
        "COPY staged_samples (fs, server, device, stamp_s, interval_s, r_bps, w_bps, "
        "ro_ps, wo_ps, ops_total_ps, source_hash, " SAMPLE_QUEUE_COLUMNS ") FROM STDIN",
        b, err);
}

/* The plain way of db_samples_load, for samples that may meet stored ones: staged,
 * compared with the stored ones (a real difference is counted in *differing), and
 * inserted where new. */
static enum status samples_merge(struct db *db, int64_t run_id, const char *path,
                                 const char *content_hash, const struct db_samples_in *in,
                                 const struct db_sample_ledger *ledger,
                                 long long *inserted, long long *differing,
                                 struct error *err)
{
    struct buf b = {0};
    PGresult *r;
    enum status rc = ensure_temp_tables(db, err);
    if (rc != STATUS_OK)
        return rc;
    if (!staged_text(&b, in, content_hash)) {
        free(b.p);
        return error_set(err, STATUS_NOMEM, "samples of %s", path);
    }
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        goto out;
    rc = copy_staged(db, &b, err);
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
    if (rc == STATUS_OK && ledger != NULL)
        rc = ledger_put(db, path, ledger, err);
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
                                   const char *content_hash, const char *verdict,
                                   const struct error *reason, struct error *err)
{
    char line[24];
    const char *vals[6] = {path,        content_hash, line, status_name(reason->code),
                           reason->msg, verdict};

    snprintf(line, sizeof line, "%ld", reason->line);
    if (reason->line <= 0)
        vals[2] = NULL;
    return exec_params_cmd(
        db,
        "INSERT INTO ingest_errors (path, content_hash, line, status, message, verdict) "
        "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (path, content_hash) DO UPDATE "
        "SET last_seen = now(), line = EXCLUDED.line, status = EXCLUDED.status, "
        "message = EXCLUDED.message, verdict = EXCLUDED.verdict",
        6, vals, err);
}

enum status db_quarantine_known(struct db *db, const char *content_hash,
                                const char *verdict, bool *known, struct error *err)
{
    const char *vals[2] = {content_hash, verdict};
    PGresult *r = NULL;
    enum status rc = exec_params(db,
                                 "UPDATE ingest_errors SET last_seen = now() "
                                 "WHERE content_hash = $1 AND verdict = $2 RETURNING 1",
                                 2, vals, &r, err);

    if (rc != STATUS_OK)
        return rc;
    *known = PQntuples(r) > 0;
    PQclear(r);
    return STATUS_OK;
}

enum status db_samples_refill(struct db *db, const struct db_samples_in *in,
                              long long *filled, long long *left, struct error *err)
{
    struct buf b = {0};
    PGresult *r = NULL;
    enum status rc = ensure_temp_tables(db, err);

    *filled = 0;
    *left = 0;
    if (rc != STATUS_OK || in->n == 0)
        return rc;
    /* the stored source_hash stays: only the new columns are written */
    if (!staged_text(&b, in, "")) {
        free(b.p);
        return error_set(err, STATUS_NOMEM, "samples");
    }
    rc = exec_cmd(db, "BEGIN", err);
    if (rc == STATUS_OK)
        rc = copy_staged(db, &b, err);
    /* First at the same stamp; then a second off, where the earlier version kept a
     * printed stamp that this one's timing rules place a second away (a skip next
     * to a late report) and no stored sample has the new stamp. */
    static const char *const passes[] = {
        "s.stamp_s = t.stamp_s",
        /* equalities, each a join on the key (an abs() would compare every pair) */
        "s.stamp_s = t.stamp_s - 1 AND NOT EXISTS (SELECT 1 FROM samples o WHERE "
        "o.fs = t.fs AND o.server = t.server AND o.device = t.device AND "
        "o.stamp_s = t.stamp_s)",
        /* not when the pass before could have given t to the sample a second before
         * it (one without a re-read sample of its own): one re-read sample fills one */
        "s.stamp_s = t.stamp_s + 1 AND NOT EXISTS (SELECT 1 FROM samples o WHERE "
        "o.fs = t.fs AND o.server = t.server AND o.device = t.device AND "
        "o.stamp_s = t.stamp_s) AND NOT EXISTS (SELECT 1 FROM samples o WHERE "
        "o.fs = t.fs AND o.server = t.server AND o.device = t.device AND "
        "o.stamp_s = t.stamp_s - 1 AND NOT EXISTS (SELECT 1 FROM staged_samples u "
        "WHERE u.fs = o.fs AND u.server = o.server AND u.device = o.device AND "
        "u.stamp_s = o.stamp_s))"};
    for (size_t k = 0; k < 3 && rc == STATUS_OK; k++) {
        char sql[2048];
        snprintf(sql, sizeof sql,
                 "UPDATE samples s SET aqu_sz = t.aqu_sz, util_pct = t.util_pct, "
                 "r_await_ms = t.r_await_ms, w_await_ms = t.w_await_ms, "
                 "await_ms = t.await_ms FROM staged_samples t WHERE s.fs = t.fs AND "
                 "s.server = t.server AND s.device = t.device AND %s AND "
                 "num_nonnulls(s.aqu_sz, s.util_pct, s.r_await_ms, s.w_await_ms, "
                 "s.await_ms) = 0 AND num_nonnulls(t.aqu_sz, t.util_pct, t.r_await_ms, "
                 "t.w_await_ms, t.await_ms) > 0 AND "
                 "abs(t.r_bps - s.r_bps) <= 0.01 * greatest(abs(t.r_bps), abs(s.r_bps)) "
                 "AND abs(t.w_bps - s.w_bps) <= 0.01 * greatest(abs(t.w_bps), "
                 "abs(s.w_bps))",
                 passes[k]);
        rc = exec_params(db, sql, 0, NULL, &r, err);
        if (rc == STATUS_OK) {
            *filled += strtoll(PQcmdTuples(r), NULL, 10);
            PQclear(r);
        }
    }
    /* What is still without: stored samples of the staged devices and span that the
     * re-read had queue columns for but could not match. */
    if (rc == STATUS_OK) {
        rc = exec_params(
            db,
            "SELECT count(*) FROM samples s WHERE (s.fs, s.server, s.device) IN "
            "(SELECT DISTINCT fs, server, device FROM staged_samples t WHERE "
            "num_nonnulls(t.aqu_sz, t.util_pct, t.r_await_ms, t.w_await_ms, "
            "t.await_ms) > 0) AND s.stamp_s BETWEEN (SELECT min(stamp_s) FROM "
            "staged_samples) AND (SELECT max(stamp_s) FROM staged_samples) AND "
            "num_nonnulls(s.aqu_sz, s.util_pct, s.r_await_ms, s.w_await_ms, "
            "s.await_ms) = 0",
            0, NULL, &r, err);
        if (rc == STATUS_OK) {
            *left = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
            PQclear(r);
        }
    }
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK) {
        rollback(db);
        *filled = 0;
        *left = 0;
    }
    free(b.p);
    return rc;
}
