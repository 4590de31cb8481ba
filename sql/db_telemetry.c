/* db_telemetry.c: what the server's /metrics (its exposition) reads of the database: the
 * last ingest and analysis runs, and the newest job and sample. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The newest run that ended, per kind, and the end of the newest that did not fail;
 * ingest_runs holds a few rows a night. A run before migration 0015 has no seconds:
 * its row's start to its end stands for them. The quarantined files are not the last
 * run's but the quarantine list's of that kind (its verdict names it), content not
 * loaded since: an iostat run is of one file system, and the next one's run, of
 * another, would reset the count (ingest_runs keeps no file system). */
static const char ingest_sql[] =
    "SELECT kind, extract(epoch FROM finished_at)::float8, "
    "coalesce(seconds, extract(epoch FROM finished_at - started_at)::float8), failed, "
    "files, loaded, "
    "skipped, (SELECT count(*) FROM ingest_errors e WHERE e.verdict LIKE "
    "'%;kind=' || r.kind || ';%' AND NOT EXISTS (SELECT 1 FROM loaded_files f "
    "WHERE f.content_hash = e.content_hash)), jobs, samples, "
    "(SELECT extract(epoch FROM max(s.finished_at))::float8 FROM ingest_runs s "
    "WHERE s.kind = r.kind AND s.finished_at IS NOT NULL AND NOT s.failed) "
    "FROM (SELECT DISTINCT ON (kind) * FROM ingest_runs WHERE finished_at IS NOT NULL "
    "ORDER BY kind, finished_at DESC, id DESC) r ORDER BY kind";

/* The newest run per kind; analyze records only the runs that succeed. */
static const char analysis_sql[] =
    "SELECT kind, extract(epoch FROM finished_at)::float8, seconds, groups, jobs, "
    "excluded, excluded_by_reason IS NOT NULL, id FROM (SELECT DISTINCT ON (kind) * "
    "FROM analysis_runs ORDER BY kind, id DESC) r ORDER BY kind";

static const char reasons_sql[] =
    "SELECT e.key, e.value::text::bigint FROM analysis_runs r, "
    "jsonb_each(r.excluded_by_reason) e WHERE r.id = $1::bigint ORDER BY e.key";

/* The newest sample of each file system without reading them all: a skip scan over
 * the primary key (fs, server, device, stamp_s) finds each device, then its last
 * stamp is one probe. */
static const char fs_sql[] =
    "WITH RECURSIVE dev AS ("
    "(SELECT fs, server, device FROM samples ORDER BY fs, server, device LIMIT 1) "
    "UNION ALL SELECT n.fs, n.server, n.device FROM dev d, LATERAL (SELECT fs, server, "
    "device FROM samples s WHERE (s.fs, s.server, s.device) > (d.fs, d.server, d.device) "
    "ORDER BY fs, server, device LIMIT 1) n) "
    "SELECT dev.fs, max(last.stamp_s)::float8 FROM dev, LATERAL (SELECT max(stamp_s) "
    "AS stamp_s FROM samples s WHERE s.fs = dev.fs AND s.server = dev.server "
    "AND s.device = dev.device) last GROUP BY dev.fs ORDER BY dev.fs";

static enum status read_ingest(struct db *db, struct db_telemetry *out, struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(db, ingest_sql, 0, NULL, &r, err);

    if (rc != STATUS_OK)
        return rc;
    for (int i = 0; i < PQntuples(r) && out->n_ingest < DB_TELEMETRY_KINDS; i++) {
        struct db_telemetry_ingest *k = &out->ingest[out->n_ingest++];
        copy_text(k->kind, sizeof k->kind, r, i, 0);
        k->last_end_s = get_double(r, i, 1);
        k->seconds = get_double(r, i, 2);
        k->failed = strcmp(PQgetvalue(r, i, 3), "t") == 0;
        k->files = (long)get_int64(r, i, 4);
        k->loaded = (long)get_int64(r, i, 5);
        k->skipped = (long)get_int64(r, i, 6);
        k->quarantined = (long)get_int64(r, i, 7);
        k->jobs = (long)get_int64(r, i, 8);
        k->samples = (long long)get_int64(r, i, 9);
        k->last_success_s = get_double(r, i, 10);
    }
    PQclear(r);
    return STATUS_OK;
}

static enum status read_reasons(struct db *db, const char *run_id,
                                struct db_telemetry_analysis *a, struct error *err)
{
    PGresult *r;
    const char *vals[1] = {run_id};
    enum status rc = exec_params(db, reasons_sql, 1, vals, &r, err);

    if (rc != STATUS_OK)
        return rc;
    for (int i = 0; i < PQntuples(r) && a->n_reasons < DB_TELEMETRY_REASONS; i++) {
        copy_text(a->reasons[a->n_reasons].name, sizeof a->reasons[0].name, r, i, 0);
        a->reasons[a->n_reasons++].jobs = (long)get_int64(r, i, 1);
    }
    PQclear(r);
    return STATUS_OK;
}

static enum status read_analysis(struct db *db, struct db_telemetry *out,
                                 struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(db, analysis_sql, 0, NULL, &r, err);

    if (rc != STATUS_OK)
        return rc;
    for (int i = 0;
         rc == STATUS_OK && i < PQntuples(r) && out->n_analysis < DB_TELEMETRY_KINDS;
         i++) {
        struct db_telemetry_analysis *a = &out->analysis[out->n_analysis++];
        copy_text(a->kind, sizeof a->kind, r, i, 0);
        a->finished_s = get_double(r, i, 1);
        a->seconds = get_double(r, i, 2);
        a->groups = (long)get_int64(r, i, 3);
        a->jobs = (long)get_int64(r, i, 4);
        a->excluded = (long)get_int64(r, i, 5);
        a->by_reason = strcmp(PQgetvalue(r, i, 6), "t") == 0;
        if (a->by_reason)
            rc = read_reasons(db, PQgetvalue(r, i, 7), a, err);
    }
    PQclear(r);
    return rc;
}

static enum status read_newest(struct db *db, struct db_telemetry *out, struct error *err)
{
    PGresult *r;
    enum status rc =
        exec_params(db, "SELECT max(end_time)::float8 FROM jobs", 0, NULL, &r, err);

    if (rc != STATUS_OK)
        return rc;
    out->newest_job_end_s = get_double(r, 0, 0);
    PQclear(r);
    rc = exec_params(db, fs_sql, 0, NULL, &r, err);
    if (rc != STATUS_OK)
        return rc;
    for (int i = 0; i < PQntuples(r) && out->n_fs < DB_TELEMETRY_FS; i++) {
        struct db_telemetry_fs *f = &out->fs[out->n_fs++];
        copy_text(f->fs, sizeof f->fs, r, i, 0);
        f->newest_s = get_double(r, i, 1);
    }
    PQclear(r);
    return STATUS_OK;
}

enum status db_telemetry_get(struct db *db, struct db_telemetry *out, struct error *err)
{
    enum status rc;

    memset(out, 0, sizeof *out);
    out->newest_job_end_s = NAN;
    rc = read_ingest(db, out, err);
    if (rc == STATUS_OK)
        rc = read_analysis(db, out, err);
    if (rc == STATUS_OK)
        rc = read_newest(db, out, err);
    return rc;
}
