/* db_results.c: groups, stored results and sweeps, provenance, runs and health. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job count of app_groups row g: its default jobs, or its members for a hand-made
 * group (one of the two is 0). */
#define GROUP_JOBS_SQL                                                                   \
    "((SELECT count(*) FROM jobs j WHERE j.group_id = g.group_id) + "                    \
    "(SELECT count(*) FROM group_members m WHERE m.group_id = g.group_id))"

/* A group's name as shown and accepted: a name that several groups share (a program
 * run with different I/O sizes gives several default groups of one name) carries
 * " #" and the first 8 hex digits of the group's id, stable across runs as the id
 * is (analysis_group_resolve reads it back). DUP_SQL says whether g's name is shared. */
#define GROUP_NAME_SQL(DUP_SQL)                                                          \
    "CASE WHEN " DUP_SQL " THEN g.name || ' #' || left(g.group_id, 8) ELSE g.name END"

static void fill_group(void *row_out, const PGresult *r, int row)
{
    struct db_group *g = row_out;

    copy_text(g->id, sizeof g->id, r, row, 0);
    copy_text(g->name, sizeof g->name, r, row, 1);
    copy_text(g->key, sizeof g->key, r, row, 2);
    g->jobs = (long)get_int64(r, row, 3);
}

enum status db_groups_list(struct db *db, struct db_group **out, size_t *n,
                           struct error *err)
{
    void *rows;
    enum status rc = fetch_rows(
        db,
        "SELECT g.group_id, " GROUP_NAME_SQL(
            "count(*) OVER (PARTITION BY g.name) > 1") ", g.key, " GROUP_JOBS_SQL
                                                       " AS n FROM app_groups g ORDER BY "
                                                       "n DESC, g.group_id",
        0, NULL, sizeof **out, fill_group, "groups", &rows, n, err);
    *out = rows;
    return rc;
}

enum status db_group_get(struct db *db, const char *id, struct db_group *out,
                         struct error *err)
{
    PGresult *r;
    const char *vals[1] = {id};
    enum status rc =
        exec_params(db,
                    "SELECT g.group_id, " GROUP_NAME_SQL(
                        "EXISTS (SELECT 1 FROM app_groups o WHERE o.name = "
                        "g.name AND o.group_id <> g.group_id)") ", g.key, " GROUP_JOBS_SQL
                                                                " FROM app_groups g "
                                                                "WHERE g.group_id = $1",
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

/* computed_at as RFC 3339 UTC, the second column of stored_text's queries. */
#define COMPUTED_AT_SQL                                                                  \
    "to_char(computed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

enum status db_result_store(struct db *db, const char *group_id, const char *y,
                            const char *x, double granularity_s, const char *space,
                            const char *scope, const char *json, struct error *err)
{
    char g[40];
    const char *vals[7] = {group_id, y, x, g, space, scope, json};

    snprintf(g, sizeof g, "%.17g", granularity_s);
    return exec_params_cmd(
        db,
        "INSERT INTO results (kind, group_id, y, x, granularity_s, space, scope, result) "
        "VALUES ('association', $1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kind, group_id, "
        "y, x, granularity_s, space, scope) DO UPDATE SET result = EXCLUDED.result, "
        "computed_at = now() WHERE results.result IS DISTINCT FROM EXCLUDED.result",
        7, vals, err);
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

static void fill_granularity(void *row_out, const PGresult *r, int row)
{
    *(double *)row_out = get_double(r, row, 0);
}

enum status db_result_granularities(struct db *db, const char *group_id, const char *y,
                                    const char *x, double **out, size_t *n,
                                    struct error *err)
{
    const char *vals[3] = {group_id, y, x};
    void *rows;
    enum status rc = fetch_rows(db,
                                "SELECT DISTINCT granularity_s FROM results WHERE "
                                "kind = 'association' AND group_id = $1 AND y = $2 "
                                "AND x = $3 ORDER BY 1",
                                3, vals, sizeof **out, fill_granularity, "granularities",
                                &rows, n, err);
    *out = rows;
    return rc;
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

static void fill_stored(void *row_out, const PGresult *r, int row)
{
    struct db_stored *s = row_out;

    copy_text(s->group_id, sizeof s->group_id, r, row, 0);
    copy_text(s->kind, sizeof s->kind, r, row, 1);
    copy_text(s->y, sizeof s->y, r, row, 2);
    copy_text(s->x, sizeof s->x, r, row, 3);
}

enum status db_stored_list(struct db *db, struct db_stored **out, size_t *n,
                           struct error *err)
{
    void *rows;
    /* The same rows db_sweep_get and db_group_table_get read. */
    enum status rc =
        fetch_rows(db,
                   "SELECT DISTINCT group_id, kind, y, x FROM results "
                   "WHERE (kind = 'sweep' AND scope = 'all') OR kind = 'group_table' "
                   "ORDER BY group_id, kind, y, x",
                   0, NULL, sizeof **out, fill_stored, "stored results", &rows, n, err);
    *out = rows;
    return rc;
}

/* ---- provenance: a group's inputs ----------------------------------------------- */

/* The series' days within this many seconds of a group's span (two more for θ) count
 * as its inputs: wider than what an analysis reads around its jobs at the defaults
 * (20 × an hourly Δ), so that a late sample that can change a result always changes
 * the fingerprint. A granularity of days reaches further: not covered. */
#define INPUT_MARGIN_S "86400"

enum status db_group_inputs_read(struct db *db, const char *group_id, const char *kind,
                                 const char *settings, struct db_group_inputs *out,
                                 struct error *err)
{
    const char *vals[3] = {group_id, kind, settings};
    PGresult *r;

    memset(out, 0, sizeof *out);
    /* A group's result depends on its jobs, the samples around them, and the
     * settings; a hash of each is cheap to compare and says what changed. The jobs'
     * hash h names them (the provenance's jobs_md5); v, win and xw cover every value
     * of them an analysis reads (job.c, scope.c, coverage.c), the file-system
     * mapping included, so that a job re-mapped by ingest --reprocess, or loaded
     * again with other values, recomputes its group. Those three are sums of row
     * hashes: no sort, and the same rows give the same sum in any order. */
    enum status rc = exec_params(
        db,
        "WITH RECURSIVE keys AS MATERIALIZED (SELECT job_key FROM jobs "
        "  WHERE group_id = $1 UNION SELECT job_key FROM group_members "
        "  WHERE group_id = $1), "
        /* a job's DXT trace, loaded after it, changes what the _x pairs see */
        "j AS (SELECT count(*) AS n, "
        "  coalesce(md5(string_agg(job_key || coalesce(':' || t.source_hash, ''), ',' "
        "  ORDER BY job_key)), '') AS h, "
        /* the log family in common/log_family.h's order: the hash's value stays */
        "  coalesce(sum(hashtextextended(ROW(job_key, jobid, start_time" DB_LOG_COLUMNS
        ", incomplete_log, t.incomplete)::text, 0)), 0) AS v, "
        "  min(start_time) AS s, max(end_time) AS e FROM jobs "
        "  LEFT JOIN job_traces t USING (job_key) WHERE " IN_GROUP_1 "), "
        /* the activity windows with their file system (NULL: not monitored), by the
         * jobs' keys: an index probe per job, never a scan of every window */
        "win AS (SELECT count(*) AS n, coalesce(sum(hashtextextended(ROW(w.job_key, "
        "  w.is_write, w.start_s, w.end_s, w.bytes, w.fs)::text, 0)), 0) AS h "
        "  FROM job_windows w WHERE w.job_key IN (SELECT job_key FROM keys)), "
        "xw AS (SELECT count(*) AS n, coalesce(sum(hashtextextended(ROW(x.job_key, "
        "  x.is_write, x.start_s, x.end_s, x.fs)::text, 0)), 0) AS h "
        "  FROM job_x_windows x WHERE x.job_key IN (SELECT job_key FROM keys)), "
        /* The samples by the stored series' days (migration 0017): each day's digest
         * of its rows (the queue columns filled by ingest --reprocess among them)
         * and, for a day whose samples changed since, its change number, which a
         * refresh replaces by the new digest. Two days wider than the span a day
         * around the jobs, for a clock offset θ. A digest per day read, never the
         * samples. */
        "dr AS (SELECT floor((j.s - " INPUT_MARGIN_S ") / 86400.0)::bigint - 2 AS lo, "
        "  floor((j.e + " INPUT_MARGIN_S ") / 86400.0)::bigint + 2 AS hi FROM j), "
        "days AS (SELECT coalesce(sum(d.samples), 0) AS n, "
        "  coalesce(string_agg(d.fs || ':' || d.day || ':' || d.digest, ',' "
        "  ORDER BY d.fs, d.day), '') AS h FROM series_days d, dr "
        "  WHERE d.day BETWEEN dr.lo AND dr.hi), "
        "dirty AS (SELECT coalesce(string_agg(x.fs || ':' || x.day || ':' || x.gen, ',' "
        "  ORDER BY x.fs, x.day), '') AS h FROM series_dirty x, dr "
        "  WHERE x.day BETWEEN dr.lo AND dr.hi), "
        "smp AS (SELECT days.n, CASE WHEN days.h = '' AND dirty.h = '' THEN '' "
        "  ELSE md5(days.h || '|' || dirty.h) END AS h FROM days, dirty), "
        /* Every server of every file system, wherever its samples are: a series is
         * present only where all of them reported (docs/method.md §1), so a server whose
         * samples are all far from the group's jobs still changes its results. The
         * distinct (fs, server) pairs by a walk down the primary key, one index probe
         * per pair, never a scan of the samples. A group without jobs has nothing
         * they can change. */
        "srv(fs, server) AS ((SELECT fs, server FROM samples ORDER BY fs, server "
        "  LIMIT 1) UNION ALL SELECT nx.fs, nx.server FROM srv, LATERAL "
        "  (SELECT fs, server FROM samples WHERE (samples.fs, samples.server) > "
        "  (srv.fs, srv.server) ORDER BY fs, server LIMIT 1) nx), "
        "servers AS (SELECT coalesce(string_agg(fs || '/' || server, ',' "
        "  ORDER BY fs, server), '') AS h FROM srv), "
        "old AS (SELECT fingerprint FROM group_inputs "
        "WHERE group_id = $1 AND kind = $2) "
        "SELECT j.n, j.h, smp.n, smp.h, "
        /* A hand-made group's rule text too: an edited rule recomputes it. */
        "  md5(j.h || '|' || j.v || '|' || win.n || '/' || win.h || '|' || xw.n || "
        "  '/' || xw.h || '|' || smp.n || '|' || smp.h || '|' || $3 || "
        "  '|' || CASE WHEN j.n > 0 THEN servers.h ELSE '' END || "
        "  coalesce('|' || "
        "  (SELECT rule FROM app_groups WHERE group_id = $1), '')), "
        "  coalesce((SELECT fingerprint FROM old), '') "
        "FROM j, win, xw, smp, servers",
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

    snprintf(jobs, sizeof jobs, "%ld", in->jobs);
    snprintf(samples, sizeof samples, "%lld", in->samples);
    return exec_params_cmd(
        db,
        "INSERT INTO group_inputs (group_id, kind, fingerprint, jobs, jobs_md5, samples, "
        "samples_md5, settings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
        "ON CONFLICT (group_id, kind) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, "
        "jobs = EXCLUDED.jobs, jobs_md5 = EXCLUDED.jobs_md5, samples = EXCLUDED.samples, "
        "samples_md5 = EXCLUDED.samples_md5, settings = EXCLUDED.settings, "
        "analyzed_at = now() WHERE group_inputs.fingerprint <> EXCLUDED.fingerprint",
        8, vals, err);
}

enum status db_tables_inputs_read(struct db *db, const char *settings, char current[33],
                                  char stored[33], struct error *err)
{
    const char *vals[1] = {settings};
    PGresult *r;
    /* Group tables and coverage read every group's jobs and the samples around them:
     * exactly what the groups' association fingerprints hash. */
    enum status rc = exec_params(
        db,
        "SELECT md5(coalesce(string_agg(group_id || ':' || fingerprint, ',' "
        "  ORDER BY group_id), '') || '|' || $1), "
        "coalesce((SELECT fingerprint FROM derived_inputs WHERE name = 'tables'), '') "
        "FROM group_inputs WHERE kind = 'association'",
        1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    copy_text(current, 33, r, 0, 0);
    copy_text(stored, 33, r, 0, 1);
    PQclear(r);
    return STATUS_OK;
}

enum status db_tables_inputs_store(struct db *db, const char *fingerprint,
                                   struct error *err)
{
    const char *vals[1] = {fingerprint};
    return exec_params_cmd(db,
                           "INSERT INTO derived_inputs (name, fingerprint) "
                           "VALUES ('tables', $1) ON CONFLICT (name) DO UPDATE SET "
                           "fingerprint = EXCLUDED.fingerprint, computed_at = now()",
                           1, vals, err);
}

/* Job j read or wrote a file on a monitored file system. */
#define TOUCHED_MONITORED_SQL                                                            \
    "(j.eta_mon_read > 0 OR j.eta_mon_write > 0 OR EXISTS (SELECT 1 FROM job_windows w " \
    "WHERE w.job_key = j.job_key AND w.fs IS NOT NULL))"

enum status db_groups_unmonitored(struct db *db, const char *group_id,
                                  struct db_group **out, size_t *n, struct error *err)
{
    const char *vals[1] = {group_id};
    void *rows;
    /* A job touched a monitored file system when a window of it has one (job_windows.fs)
     * or it moved bytes there (eta_mon_read / eta_mon_write). A default group's jobs
     * and a hand-made group's members apart, each by its index and stopping at the
     * first job that touched one: an OR of the two is a plan whose cost sets off
     * PostgreSQL's JIT, many times slower than the two probes. */
    enum status rc = fetch_rows(
        db,
        "SELECT g.group_id, " GROUP_NAME_SQL(
            "EXISTS (SELECT 1 FROM app_groups o WHERE o.name = g.name AND "
            "o.group_id <> g.group_id)") ", g.key, " GROUP_JOBS_SQL " FROM app_groups g "
                                         "WHERE ($1::text IS NULL OR g.group_id = $1) "
                                         "AND (EXISTS (SELECT 1 FROM jobs j "
                                         "  WHERE j.group_id = g.group_id) OR EXISTS "
                                         "(SELECT 1 FROM group_members m "
                                         "  WHERE m.group_id = g.group_id)) "
                                         "AND NOT EXISTS (SELECT 1 FROM jobs j WHERE "
                                         "j.group_id = g.group_id "
                                         "  AND " TOUCHED_MONITORED_SQL ") "
                                         "AND NOT EXISTS (SELECT 1 FROM group_members m "
                                         "JOIN jobs j USING (job_key) "
                                         "  WHERE m.group_id = g.group_id "
                                         "AND " TOUCHED_MONITORED_SQL ") "
                                         "ORDER BY g.group_id",
        1, vals, sizeof **out, fill_group, "groups", &rows, n, err);
    *out = rows;
    return rc;
}

static void fill_group_id(void *row_out, const PGresult *r, int row)
{
    copy_text(row_out, sizeof(char[17]), r, row, 0);
}

enum status db_groups_touched_since(struct db *db, double since_s, char (**ids)[17],
                                    size_t *n, struct error *err)
{
    char since[40];
    const char *vals[1] = {since};
    void *rows;

    snprintf(since, sizeof since, "%.3f", since_s);
    /* New jobs touch their group; new samples touch every group with a job within
     * the margin of their time range (one range per loaded file). */
    enum status rc = fetch_rows(
        db,
        "WITH f AS (SELECT content_hash FROM loaded_files "
        "  WHERE loaded_at >= to_timestamp($1::double precision)), "
        "rng AS (SELECT min(stamp_s) AS s, max(stamp_s) AS e FROM samples "
        "  WHERE source_hash IN (SELECT content_hash FROM f) GROUP BY source_hash), "
        "hit AS (SELECT j.job_key, j.group_id FROM jobs j "
        "WHERE j.source_hash IN (SELECT content_hash FROM f) "
        "  OR EXISTS (SELECT 1 FROM rng WHERE j.start_time <= rng.e + " INPUT_MARGIN_S
        "  AND j.end_time >= rng.s - " INPUT_MARGIN_S ")) "
        "SELECT group_id FROM hit UNION SELECT m.group_id FROM group_members m "
        "JOIN hit USING (job_key) ORDER BY 1",
        1, vals, sizeof **ids, fill_group_id, "groups", &rows, n, err);
    *ids = rows;
    return rc;
}

/* A PostgreSQL array literal of n integers. */
static bool int_array(struct buf *b, const long *ints, size_t n)
{
    bool ok = buf_printf(b, "{");

    for (size_t i = 0; ok && i < n; i++)
        ok = buf_printf(b, "%s%ld", i > 0 ? "," : "", ints[i]);
    return ok && buf_printf(b, "}");
}

enum status db_analysis_run_record(struct db *db, const struct db_analysis_run *run,
                                   struct error *err)
{
    char v[4][32];
    struct buf names = {0}, counts = {0};
    enum status rc;

    snprintf(v[0], sizeof v[0], "%ld", run->groups);
    snprintf(v[1], sizeof v[1], "%ld", run->jobs);
    snprintf(v[2], sizeof v[2], "%ld", run->excluded);
    snprintf(v[3], sizeof v[3], "%.6f", run->seconds);
    if (!buf_text_array(&names, run->reasons, run->n_reasons) ||
        !int_array(&counts, run->reason_jobs, run->n_reasons)) {
        rc = error_set(err, STATUS_NOMEM, "analysis run");
        goto out;
    }
    const char *vals[7] = {v[0], v[1], v[2], v[3], run->kind, names.p, counts.p};
    /* The reasons as one object; NULL when the run does not tell them apart. */
    rc = exec_params_cmd(
        db,
        "INSERT INTO analysis_runs (groups, jobs, excluded, seconds, kind, "
        "excluded_by_reason) VALUES ($1, $2, $3, $4, $5, "
        "(SELECT jsonb_object_agg(r, n) FROM unnest($6::text[], $7::bigint[]) u(r, n)))",
        7, vals, err);
out:
    free(names.p);
    free(counts.p);
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

enum status db_data_version(struct db *db, long long *version, struct error *err)
{
    PGresult *r;
    enum status rc =
        exec_params(db, "SELECT version FROM data_version", 0, NULL, &r, err);

    *version = 0;
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) == 1)
        *version = (long long)get_int64(r, 0, 0);
    PQclear(r);
    return *version > 0 ? STATUS_OK : error_set(err, STATUS_DB, "no data version row");
}
