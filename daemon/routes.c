/* routes.c: the routes of docs/interfaces.md's HTTP API (v1): health, jobs, groups, a
 * group's association, sweep and table, and the coverage. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOBS_LIMIT_DEFAULT 100
#define JOBS_LIMIT_MAX     1000

/* The most intervals one scope of a coverage answer carries (a week at 10 s). */
#define COVERAGE_POINTS_MAX 60480

static json_t *number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A job metric: negative means "not applicable" (docs/method.md: t_fr -1 never read). */
static json_t *metric_or_null(double v)
{
    return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

/* A string from the database; bytes that are not ASCII become '?' when the text is
 * not valid UTF-8 (a Darshan exe can hold anything). */
static json_t *text_or_null(const char *s)
{
    return s[0] != '\0' ? analysis_json_text(s) : json_null();
}

/* ---- routes -------------------------------------------------------------------- */

void route_health(struct server *srv, struct request *req, const struct route_args *a)
{
    (void)a;
    struct db_health h = {0};
    double age_s = 0;

    /* From the poller's snapshot (cache.c), at most a second old: counts nothing. */
    if (!cache_health(srv, &h, &age_s)) {
        answer_error(req, STATUS_DB, NULL, "database unavailable");
        return;
    }
    answer_json_take(
        req, 200,
        json_pack("{s:s, s:s, s:i, s:o, s:o, s:I, s:I, s:s, s:f}", "status", "ok",
                  "database", "reachable", "schema_version", h.schema_version,
                  "last_ingest", text_or_null(h.last_ingest), "last_analysis",
                  text_or_null(h.last_analysis), "jobs", (json_int_t)h.jobs, "samples",
                  (json_int_t)h.samples, "version", IOCONTEND_VERSION, "snapshot_age_s",
                  round(age_s * 1000) / 1000));
    schema_health_add(srv, req); /* the schema's version beside the data's */
}

static json_t *job_json(const struct db_job_row *r)
{
    char start[40], end[40];
    const struct db_family *f = &db_family_log;

    time_format_rfc3339(r->start_time, start);
    time_format_rfc3339(r->end_time, end);
    json_t *o = json_pack(
        "{s:o, s:o, s:o, s:I, s:o, s:I, s:s, s:s, s:I, s:I}", "id",
        analysis_json_text(r->job_key), "jobid", analysis_json_text(r->jobid), "group",
        analysis_json_text(r->group_id), "uid", (json_int_t)r->uid, "exe",
        analysis_json_text(r->exe), "nprocs", (json_int_t)r->nprocs, "start", start,
        "end", end, "start_ms", (json_int_t)r->start_time * 1000, "end_ms",
        (json_int_t)r->end_time * 1000);
    /* the log family's listed values, in its order: bytes as integers */
    for (size_t i = 0; o != NULL && i < f->n_cols; i++) {
        if (!f->cols[i].listed)
            continue;
        json_t *v = f->cols[i].type == DB_COLUMN_I8
                        ? json_integer((json_int_t)r->log[i].i8)
                        : metric_or_null(r->log[i].f8);
        if (json_object_set_new(o, f->cols[i].name, v) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

bool query_granularity(struct MHD_Connection *conn, struct request *req, double *out)
{
    const char *gran = query(conn, "granularity");
    char *end = NULL;

    if (gran == NULL)
        return true;
    errno = 0;
    double g = strtod(gran, &end);
    if (end == gran || *end != '\0' || errno != 0 || !isfinite(g) || !(g > 0)) {
        answer_error(req, STATUS_INVALID, "granularity",
                     "granularity must be a positive number of seconds");
        return false;
    }
    *out = g;
    return true;
}

/* Whether /jobs answers CSV: format=csv|json, else an Accept that names text/csv;
 * false when answered (400). */
static bool jobs_format(struct MHD_Connection *conn, struct request *req, bool *csv)
{
    const char *format = query(conn, "format");
    const char *accept =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

    if (format != NULL && strcmp(format, "csv") != 0 && strcmp(format, "json") != 0) {
        answer_error(req, STATUS_INVALID, "format", "format must be csv or json");
        return false;
    }
    *csv = format != NULL ? strcmp(format, "csv") == 0
                          : accept != NULL && strstr(accept, "text/csv") != NULL;
    return true;
}

/* o's keys set to m's; a whole number of o stays an integer (the byte counts). */
static void job_update(json_t *o, json_t *m)
{
    const char *key;
    json_t *v;

    json_object_foreach(m, key, v)
    {
        const json_t *old = json_object_get(o, key);
        if (json_is_integer(old) && json_is_real(v) &&
            json_real_value(v) == (double)json_integer_value(old))
            continue;
        json_object_set(o, key, v);
    }
}

/* The page's rows with their metrics (doc, taken: `export jobs --format json`'s
 * document, whose "jobs" are the page's rows in the same order): each row is the
 * job's identity (job_json) updated with its export row. */
static json_t *jobs_with_metrics(const struct db_job_row *rows, size_t n, json_t *doc)
{
    json_t *jobs = json_array(), *exported = json_object_get(doc, "jobs"); /* borrowed */

    for (size_t i = 0; jobs != NULL && i < n; i++) {
        json_t *o = job_json(&rows[i]);
        json_t *m = json_array_get(exported, i); /* borrowed */
        /* The export has every job of the page unless one vanished meanwhile. */
        if (m != NULL && json_equal(json_object_get(m, "id"), json_object_get(o, "id")))
            job_update(o, m);
        if (json_array_append_new(jobs, o) != 0) {
            json_decref(jobs);
            jobs = NULL;
        }
    }
    json_object_del(doc, "jobs");
    if (jobs == NULL || json_object_set_new(doc, "jobs", jobs) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* The metrics of the page's n rows at granularity_s and scope: CSV into req, or the
 * JSON answer into *doc. */
static enum status jobs_metrics(struct server *srv, struct db *db, struct request *req,
                                const struct db_job_row *rows, size_t n,
                                double granularity_s, const char *scope, bool csv,
                                json_t **doc, struct error *err)
{
    const char **keys = calloc(n + 1, sizeof *keys);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = NULL;
    enum status rc;

    if (keys == NULL)
        return error_set(err, STATUS_NOMEM, "jobs page");
    for (size_t i = 0; i < n; i++)
        keys[i] = rows[i].job_key;
    if (csv && (fp = open_memstream(&text, &len)) == NULL) {
        free((void *)keys);
        return error_set(err, STATUS_NOMEM, "jobs page CSV");
    }
    rc = analysis_jobs_metrics(db, &srv->s->analysis, keys, n, granularity_s, scope, fp,
                               csv ? NULL : doc, err);
    free((void *)keys);
    if (fp != NULL && fclose(fp) != 0 && rc == STATUS_OK)
        rc = error_set(err, STATUS_NOMEM, "jobs page CSV");
    if (rc == STATUS_OK && csv) {
        free(req->text);
        req->text = text;
        req->code = 200;
        req->content_type = "text/csv; charset=utf-8";
    } else {
        free(text);
    }
    return rc;
}

/* /jobs on a thread of the compute pool: a page of 1000 jobs with their metrics
 * takes a while, and must hold up no HTTP thread (nor /health). */
static void jobs_run(struct compute_task *job)
{
    struct server *srv = job->srv;
    struct request *req = job->req;
    const char *group = NULL;
    const char *scope = job->scope_given ? job->scope : NULL;
    struct group_match m = {0};
    size_t n = 0;
    struct db_job_row *rows = NULL;
    char next[80] = "";
    struct error err = {0};
    enum status rc = STATUS_OK;
    json_t *doc = NULL;

    struct db *db = pool_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "jobs", NULL);
        return;
    }
    /* An unknown group is a mistake in the query, not an empty answer; a name several
     * groups share is refused with them. */
    if (job->group_arg[0] != '\0') {
        rc = analysis_group_resolve(db, job->group_arg, &m, &err);
        if (rc == STATUS_NOT_FOUND || rc == STATUS_INVALID) {
            pool_release(srv, db, STATUS_OK);
            if (rc == STATUS_NOT_FOUND) { /* as before names were taken */
                error_clear(&err);
                error_set(&err, rc, "no group %s", job->group_arg);
            }
            answer_group_refused(req, &m, &err);
            goto out;
        }
        group = m.group.id;
    }
    if (rc == STATUS_OK) {
        rc = db_jobs_page(db, job->cursor[0] != '\0' ? job->cursor : NULL, job->from_s,
                          job->to_s, group, job->limit, &rows, &n, next, &err);
    }
    if (rc != STATUS_OK) {
        pool_release(srv, db, rc);
        answer_failure(req, rc, &err, "jobs", "cursor");
        goto out;
    }
    rc = jobs_metrics(srv, db, req, rows, n, job->granularity_s, scope, job->csv, &doc,
                      &err);
    pool_release(srv, db, rc);
    /* Without samples the jobs are still listed, with the metrics of their logs,
     * unless the query asked for a granularity, a scope or CSV. */
    if (rc == STATUS_NOT_FOUND && !job->csv && !job->granularity_given && scope == NULL) {
        error_clear(&err);
        doc = json_pack("{s:n, s:n, s:[]}", "granularity_s", "scope", "jobs");
        rc = doc != NULL ? STATUS_OK : error_set(&err, STATUS_NOMEM, "jobs page");
    }
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "jobs", "granularity");
        goto out;
    }
    snprintf(req->next_cursor, sizeof req->next_cursor, "%s", next);
    if (job->csv)
        goto out;
    doc = jobs_with_metrics(rows, n, doc);
    if (doc != NULL &&
        json_object_set_new(doc, "next_cursor",
                            next[0] != '\0' ? json_string(next) : json_null()) != 0) {
        json_decref(doc);
        doc = NULL;
    }
    answer_json_take(req, 200, doc);
out:
    group_match_clear(&m);
    free(rows);
}

void route_jobs(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *limit_s = query(conn, "limit"), *cursor = query(conn, "cursor");
    const char *group = query(conn, "group"), *scope = query(conn, "scope");
    double from_s = NAN, to_s = NAN, granularity_s = 0;
    size_t limit = JOBS_LIMIT_DEFAULT;
    struct error err = {0};
    bool csv = false;

    if (limit_s != NULL) {
        size_t len = strlen(limit_s);
        if (len == 0 || len > 4 || strspn(limit_s, "0123456789") != len ||
            strtol(limit_s, NULL, 10) < 1 || strtol(limit_s, NULL, 10) > JOBS_LIMIT_MAX) {
            answer_error(req, STATUS_INVALID, "limit",
                         "limit must be an integer from 1 to %d", JOBS_LIMIT_MAX);
            return;
        }
        limit = (size_t)strtol(limit_s, NULL, 10);
    }
    if (cursor != NULL && strlen(cursor) >= sizeof((struct compute_task *)NULL)->cursor) {
        answer_error(req, STATUS_INVALID, "cursor",
                     "cursor is not one this server gave out");
        return;
    }
    if (!query_range(conn, req, &from_s, &to_s))
        return;
    if (group != NULL && (group[0] == '\0' || strlen(group) >= 160)) {
        answer_error(req, STATUS_INVALID, "group", "no group %s", group);
        return;
    }
    if (!query_granularity(conn, req, &granularity_s) || !jobs_format(conn, req, &csv))
        return;
    if (scope != NULL && analysis_scope_check(scope, &err) != STATUS_OK) {
        answer_failure(req, STATUS_INVALID, &err, "jobs", "scope");
        return;
    }
    struct compute_task *job =
        compute_task_new(req, scope != NULL ? scope : "all", "jobs");
    if (job == NULL)
        return;
    snprintf(job->group_arg, sizeof job->group_arg, "%s", group != NULL ? group : "");
    snprintf(job->cursor, sizeof job->cursor, "%s", cursor != NULL ? cursor : "");
    job->scope_given = scope != NULL;
    job->from_s = from_s;
    job->to_s = to_s;
    job->limit = limit;
    job->csv = csv;
    job->granularity_s = granularity_s;
    job->granularity_given = query(conn, "granularity") != NULL;
    compute_task_submit(srv, conn, req, job, jobs_run);
}

/* The index of pair (y, x) in analysis/sweep.c's order; sweep_pair_count() for a pair
 * it does not sweep (stored by another version: listed after the others). */
static size_t sweep_rank(const char *y, const char *x)
{
    size_t i = 0;

    for (; i < sweep_pair_count(); i++) {
        const char *py, *px;
        sweep_pair(i, &py, &px);
        if (strcmp(py, y) == 0 && strcmp(px, x) == 0)
            break;
    }
    return i;
}

/* A row of db_stored_list with its place among a group's: the rows sorted by group
 * (strcmp, for bsearch), then sweep.c's order, then the list's. */
struct stored_ref {
    const struct db_stored *row;
    size_t rank; /* sweep_rank of a sweep row */
    size_t at;   /* its index in the list */
};

static int stored_ref_cmp(const void *pa, const void *pb)
{
    const struct stored_ref *a = pa, *b = pb;
    int c = strcmp(a->row->group_id, b->row->group_id);

    if (c != 0)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* The n rows as refs sorted by stored_ref_cmp (new; NULL without memory). Each row's
 * rank is found once. */
static struct stored_ref *stored_refs(const struct db_stored *rows, size_t n)
{
    struct stored_ref *refs = malloc((n > 0 ? n : 1) * sizeof *refs);

    for (size_t i = 0; refs != NULL && i < n; i++) {
        bool sweep = strcmp(rows[i].kind, "sweep") == 0;
        refs[i] = (struct stored_ref){&rows[i],
                                      sweep ? sweep_rank(rows[i].y, rows[i].x) : 0, i};
    }
    if (refs != NULL && n > 1)
        qsort(refs, n, sizeof *refs, stored_ref_cmp);
    return refs;
}

/* Group g's "stored": {"table", "sweeps"} from the n refs of stored_refs: what /table
 * and /sweep answer 200 for, so that the page asks only for those. */
static json_t *stored_json(const char *g, const struct stored_ref *refs, size_t n)
{
    bool table = false;
    json_t *sweeps = json_array();
    size_t lo = 0, hi = n;

    while (lo < hi) { /* the first ref of g */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(refs[mid].row->group_id, g) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (size_t i = lo; sweeps != NULL && i < n && strcmp(refs[i].row->group_id, g) == 0;
         i++) {
        const struct db_stored *r = refs[i].row;
        table = table || strcmp(r->kind, "group_table") == 0;
        /* /sweep refuses an unknown metric (400): not listed */
        if (strcmp(r->kind, "sweep") != 0 || !analysis_metric_known(r->y) ||
            !analysis_metric_known(r->x))
            continue;
        if (json_array_append_new(sweeps,
                                  json_pack("{s:s, s:s}", "y", r->y, "x", r->x)) != 0) {
            json_decref(sweeps);
            sweeps = NULL;
        }
    }
    return json_pack("{s:b, s:o}", "table", table, "sweeps", sweeps);
}

void route_groups(struct server *srv, struct request *req, const struct route_args *a)
{
    (void)a;
    struct error err = {0};
    struct db_group *groups = NULL;
    struct db_stored *stored = NULL;
    struct stored_ref *refs = NULL;
    size_t n = 0, n_stored = 0;
    struct db *db = pool_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "groups", NULL);
        return;
    }
    enum status rc = db_groups_list(db, &groups, &n, &err);
    if (rc == STATUS_OK)
        rc = db_stored_list(db, &stored, &n_stored, &err);
    pool_release(srv, db, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "groups", NULL);
        goto out;
    }
    refs = stored_refs(stored, n_stored);
    json_t *list = refs != NULL ? json_array() : NULL;
    for (size_t i = 0; list != NULL && i < n; i++) {
        json_t *g = json_pack(
            "{s:o, s:o, s:o, s:I, s:o}", "id", analysis_json_text(groups[i].id), "name",
            analysis_json_text(groups[i].name), "key", analysis_json_text(groups[i].key),
            "jobs", (json_int_t)groups[i].jobs, "stored",
            stored_json(groups[i].id, refs, n_stored));
        if (json_array_append_new(list, g) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    answer_json_take(req, 200, json_pack("{s:o}", "groups", list));
out:
    free(refs);
    free(groups);
    free(stored);
}

/* The 404 for a granularity never stored names those that are
 * (docs/interfaces.md: "answers 404 with stored_granularities_s"). */
void add_stored_granularities(struct request *req, struct db *db, const char *group_id,
                              const char *y, const char *x)
{
    struct error err = {0};
    double *g = NULL;
    size_t n = 0;
    json_t *inner = json_object_get(req->json, "error"); /* borrowed */

    if (inner == NULL ||
        db_result_granularities(db, group_id, y, x, &g, &n, &err) != STATUS_OK) {
        free(g);
        return;
    }
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < n; i++)
        json_array_append_new(list, number_or_null(g[i]));
    json_object_set_new(inner, "stored_granularities_s", list);
    free(g);
}

/* A 0/1 flag of the query: *out unchanged when absent; false when malformed. */
static bool query_flag(struct MHD_Connection *conn, const char *name, bool *out)
{
    const char *v = query(conn, name);

    if (v == NULL)
        return true;
    if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        return false;
    *out = v[0] == '1';
    return true;
}

/* A count of the query in 0 .. ANALYZE_PERMUTATIONS_MAX: *out unchanged when absent;
 * false when malformed. */
static bool query_count(struct MHD_Connection *conn, const char *name, size_t *out)
{
    const char *v = query(conn, name);
    char *end = NULL;

    if (v == NULL)
        return true;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*end != '\0' || errno != 0 || !isdigit((unsigned char)v[0]) || n < 0 ||
        n > ANALYZE_PERMUTATIONS_MAX)
        return false;
    *out = (size_t)n;
    return true;
}

/* What the association's query asks beyond y, x, granularity and scope: space,
 * kernel, bandwidth, density, significance, permutations, resamples. false when a value
 * is malformed (answered 400). */
static bool association_opts(struct MHD_Connection *conn, struct request *req,
                             const struct analysis_settings *settings,
                             struct assoc_opts *opts)
{
    const char *space = query(conn, "space"), *kernel = query(conn, "kernel");
    bool significance = false;
    enum stats_kde_space space_kind;
    struct error err = {0};

    *opts = assoc_opts_default(settings);
    opts->space = space != NULL ? space : "auto";
    if (analysis_space_parse(opts->space, &space_kind, &err) != STATUS_OK) {
        answer_failure(req, STATUS_INVALID, &err, "association", "space");
        return false;
    }
    if (kernel != NULL && strcmp(kernel, "product") != 0 && strcmp(kernel, "full") != 0) {
        answer_error(req, STATUS_INVALID, "kernel", "kernel must be product or full");
        return false;
    }
    opts->kernel_full = kernel != NULL && strcmp(kernel, "full") == 0;
    const char *bandwidth = query(conn, "bandwidth");
    if (bandwidth != NULL && strcmp(bandwidth, "normal") != 0 &&
        strcmp(bandwidth, "plugin") != 0) {
        answer_error(req, STATUS_INVALID, "bandwidth",
                     "bandwidth must be normal or plugin");
        return false;
    }
    opts->bw_plugin = bandwidth != NULL && strcmp(bandwidth, "plugin") == 0;
    if (opts->bw_plugin && opts->kernel_full) {
        answer_error(req, STATUS_INVALID, "bandwidth",
                     "bandwidth=plugin needs kernel=product");
        return false;
    }
    if (!query_flag(conn, "density", &opts->density)) {
        answer_error(req, STATUS_INVALID, "density", "density must be 0 or 1");
        return false;
    }
    if (!query_flag(conn, "rf", &opts->rf)) {
        answer_error(req, STATUS_INVALID, "rf", "rf must be 0 or 1");
        return false;
    }
    if (!query_flag(conn, "significance", &significance)) {
        answer_error(req, STATUS_INVALID, "significance", "significance must be 0 or 1");
        return false;
    }
    if (!query_count(conn, "permutations", &opts->n_perm)) {
        answer_error(req, STATUS_INVALID, "permutations",
                     "permutations must be a whole number from 0 to %d",
                     ANALYZE_PERMUTATIONS_MAX);
        return false;
    }
    if (!query_count(conn, "resamples", &opts->n_boot)) {
        answer_error(req, STATUS_INVALID, "resamples",
                     "resamples must be a whole number from 0 to %d",
                     ANALYZE_PERMUTATIONS_MAX);
        return false;
    }
    /* significance=1, or permutations / resamples alone: computed now (B = 999:
     * seconds for a group of a few hundred jobs); 0: none; absent: a stored
     * significance of the same data is served. */
    const bool asked = query(conn, "significance") != NULL;
    const bool counts =
        query(conn, "permutations") != NULL || query(conn, "resamples") != NULL;
    opts->significance = asked ? significance : counts;
    opts->stored_significance = !asked && !counts;
    return true;
}

bool metric_pair(struct MHD_Connection *conn, struct request *req, const char **y,
                 const char **x)
{
    *y = query(conn, "y");
    *x = query(conn, "x");
    *y = *y != NULL ? *y : "t_d";
    *x = *x != NULL ? *x : "psi_d_read";
    if (!analysis_metric_known(*y)) {
        answer_error(req, STATUS_INVALID, "y", "unknown metric %s", *y);
        return false;
    }
    if (!analysis_metric_known(*x)) {
        answer_error(req, STATUS_INVALID, "x", "unknown metric %s", *x);
        return false;
    }
    return true;
}

/* The database, held, for a route about group_id once that group exists; NULL when
 * answered (404 for no such group, or the failure). The caller pool_release's. */
static struct db *group_db(struct server *srv, struct request *req, const char *group_id,
                           const char *what)
{
    struct error err = {0};
    struct db_group g;

    if (group_id == NULL) {
        answer_no_such(req, "group");
        return NULL;
    }
    struct db *db = pool_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, what, NULL);
        return NULL;
    }
    enum status rc = db_group_get(db, group_id, &g, &err);
    if (rc == STATUS_OK)
        return db;
    pool_release(srv, db, rc);
    if (rc == STATUS_NOT_FOUND) {
        answer_error(req, rc, NULL, "no group %s", group_id);
    } else {
        answer_failure(req, rc, &err, what, NULL);
    }
    return NULL;
}

/* Computes the association job asks, on a thread of the compute pool, and answers
 * (compute.c answers a stopped one in its place). */
static void association_run(struct compute_task *job)
{
    struct server *srv = job->srv;
    struct request *req = job->req;
    struct error err = {0};
    struct assoc_result *out = NULL;
    struct db *db = pool_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "association", NULL);
        return;
    }
    enum status rc =
        analysis_association(db, &srv->s->analysis, job->group_id, job->y, job->x,
                             job->granularity_s, job->scope, &job->opts, &out, &err);
    if (rc == STATUS_NOT_FOUND) {
        answer_failure(req, rc, &err, "association", NULL);
        if (job->granularity_given)
            add_stored_granularities(req, db, job->group_id, job->y, job->x);
        pool_release(srv, db, rc);
        return;
    }
    pool_release(srv, db, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "association", "granularity");
        return;
    }
    answer_json_take(req, 200, analysis_assoc_json(out));
    assoc_result_free(out);
}

/* Whether the request carries the token that lifts max_free_permutations:
 * admin_token, else the API's token; false when the server has neither. */
static bool admin_asked(const struct server *srv, struct MHD_Connection *conn)
{
    const char *admin =
        srv->s->admin_token[0] != '\0' ? srv->s->admin_token : srv->s->token;

    return admin[0] != '\0' && bearer_is(conn, admin);
}

/* false when answered 403: permutations or resamples above the free limit without
 * the admin token. */
static bool counts_allowed(const struct server *srv, struct MHD_Connection *conn,
                           struct request *req, const struct assoc_opts *opts)
{
    const size_t free_max = srv->s->limits.max_free_permutations;
    const char *name =
        query(conn, "permutations") != NULL && opts->n_perm > free_max ? "permutations"
        : query(conn, "resamples") != NULL && opts->n_boot > free_max  ? "resamples"
                                                                       : NULL;

    if (name == NULL || admin_asked(srv, conn))
        return true;
    if (srv->s->admin_token[0] == '\0' && srv->s->token[0] == '\0') {
        answer_error_code(req, 403, "forbidden", name,
                          "%s above %zu need the admin token, and this server has none "
                          "([serve] admin_token)",
                          name, free_max);
    } else {
        answer_error_code(req, 403, "forbidden", name,
                          "%s above %zu need the admin token (Authorization: Bearer)",
                          name, free_max);
    }
    return false;
}

struct compute_task *compute_task_new(struct request *req, const char *scope,
                                      const char *what)
{
    struct error err = {0};

    if (analysis_scope_check(scope, &err) != STATUS_OK) {
        answer_failure(req, STATUS_INVALID, &err, what, "scope");
        return NULL;
    }
    struct compute_task *job = calloc(1, sizeof *job);
    if (job == NULL) {
        answer_failure(req, STATUS_NOMEM, &err, what, NULL);
        return NULL;
    }
    if (snprintf(job->scope, sizeof job->scope, "%s", scope) >= (int)sizeof job->scope) {
        free(job);
        answer_error(req, STATUS_INVALID, "scope", "scope %.64s... is too long", scope);
        return NULL;
    }
    return job;
}

void compute_task_submit(struct server *srv, struct MHD_Connection *conn,
                         struct request *req, struct compute_task *job,
                         void (*run)(struct compute_task *job))
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

    job->run = run;
    job->srv = srv;
    job->conn = conn;
    job->req = req;
    job->fd = info != NULL ? info->connect_fd : -1;
    job->deadline_s = req->started_s + srv->s->limits.deadline_s;
    atomic_init(&job->cancel, false);
    atomic_init(&job->why, JOB_RUNNING);
    job->opts.space = job->space;
    job->opts.cancel = &job->cancel;
    req->job = job; /* before the pool has it: the resumed callback looks here */
    if (compute_submit(srv->compute, job))
        return;
    req->job = NULL;
    free(job);
    req->retry_after = true;
    answer_error_code(req, 503, "busy", NULL,
                      "every computing thread is busy (%u); try again shortly",
                      srv->s->limits.compute_threads);
}

/* A group's association object: the one analyze stored while it is current, else
 * computed now, on the compute pool (docs/interfaces.md). */
void route_association(struct server *srv, struct request *req,
                       const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *group_id = a->id;
    const char *y, *x;
    const char *gran = query(conn, "granularity");
    const char *scope = query(conn, "scope");
    double granularity_s = 0; /* the base Δ */
    struct assoc_opts opts;
    struct error err = {0};
    struct assoc_result *out = NULL;

    scope = scope != NULL ? scope : "all";
    if (!metric_pair(conn, req, &y, &x))
        return;
    if (!query_granularity(conn, req, &granularity_s))
        return;
    if (!association_opts(conn, req, &srv->s->analysis, &opts))
        return;
    if (!counts_allowed(srv, conn, req, &opts))
        return;
    struct compute_task *job = compute_task_new(req, scope, "association");
    if (job == NULL)
        return;
    snprintf(job->y, sizeof job->y, "%s", y); /* known metrics: short */
    snprintf(job->x, sizeof job->x, "%s", x);
    snprintf(job->space, sizeof job->space, "%s", opts.space); /* a checked name */
    job->granularity_s = granularity_s;
    job->granularity_given = gran != NULL;
    job->opts = opts;
    /* Without options the object analyze stored is the answer while the group's
     * inputs are unchanged: nothing is recomputed, and while the data version is
     * the same it is served from memory. */
    static const char *const options[] = {
        "granularity", "scope",        "space",        "kernel",    "bandwidth",
        "density",     "significance", "permutations", "resamples", "rf"};
    bool plain = true;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        plain = plain && query(conn, options[i]) == NULL;
    const long long version = plain ? cache_version(srv) : 0;
    char key[128] = "";
    if (plain && group_id != NULL) {
        snprintf(key, sizeof key, "association|%s|%s|%s", group_id, y, x);
        if (cache_serve(srv, conn, req, key, version)) {
            free(job);
            return;
        }
    }
    struct db *db = group_db(srv, req, group_id, "association");
    if (db == NULL) {
        free(job);
        return;
    }
    snprintf(job->group_id, sizeof job->group_id, "%s", group_id);
    enum status rc = STATUS_OK;
    if (plain) {
        enum stored_state state;
        rc = analysis_association_stored(db, group_id, y, x, &out, &state, &err);
        if (rc == STATUS_OK && state == STORED_CURRENT) {
            pool_release(srv, db, rc);
            free(job);
            answer_json_take(req, 200, analysis_assoc_json(out));
            assoc_result_free(out);
            cache_keep(srv, conn, req, key, version);
            return;
        }
        /* Not stored, stale or unreadable: computed now, as without the store. */
        if (rc != STATUS_OK)
            log_warn("stored association of %s %s~%s: %s", group_id, y, x, err.msg);
    }
    pool_release(srv, db, rc);
    compute_task_submit(srv, conn, req, job, association_run);
}

/* The stored granularity sweep of (group, y, x) (docs/method.md §6), as `analyze --sweep`
 * stored it: never computed here. */
void route_sweep(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *group_id = a->id;
    const char *y, *x;
    struct error err = {0};
    char *text = NULL;

    if (!metric_pair(conn, req, &y, &x))
        return;
    const long long version = cache_version(srv);
    char key[128];
    snprintf(key, sizeof key, "sweep|%s|%s|%s", group_id != NULL ? group_id : "", y, x);
    if (group_id != NULL && cache_serve(srv, conn, req, key, version))
        return;
    struct db *db = group_db(srv, req, group_id, "sweep");
    if (db == NULL)
        return;
    enum status rc = db_sweep_get(db, group_id, y, x, "all", &text, &err);
    pool_release(srv, db, rc);
    if (rc == STATUS_NOT_FOUND) {
        error_clear(&err);
        error_set(&err, rc,
                  "no sweep stored for %s~%s in group %s (iocontend analyze --sweep "
                  "stores them)",
                  y, x, group_id);
    }
    answer_stored(req, rc, text, &err, "sweep", group_id);
    cache_keep(srv, conn, req, key, version);
}

/* A group's table (docs/method.md §4), as `analyze` stored it: never computed here. */
void route_table(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *group_id = a->id;
    struct error err = {0};
    char *text = NULL;
    const long long version = cache_version(srv);
    char key[64];

    snprintf(key, sizeof key, "table|%s", group_id != NULL ? group_id : "");
    if (group_id != NULL && cache_serve(srv, conn, req, key, version))
        return;
    struct db *db = group_db(srv, req, group_id, "table");
    if (db == NULL)
        return;
    enum status rc = db_group_table_get(db, group_id, &text, &err);
    pool_release(srv, db, rc);
    if (rc == STATUS_NOT_FOUND) {
        error_clear(&err);
        error_set(&err, rc, "no table stored for group %s (iocontend analyze stores it)",
                  group_id);
    }
    answer_stored(req, rc, text, &err, "table", group_id);
    cache_keep(srv, conn, req, key, version);
}

/* ---- the coverage ------------------------------------------------------------------ */

/* Buckets a points= answer may ask for: more than the widest screen's pixels. */
#define COVERAGE_BUCKETS_MAX 10000

/* The coverage of docs/method.md §7 (Fig. 13) as `analyze` stored it: per file system
 * (fs=NAME), all together (fs=all) or every one (no fs), with D_i / max D and
 * S_i / max S over the intervals that overlap [from, to); with points=N, instead of
 * those, their min and max in N buckets of the range, whatever its length. */
/* /coverage on a thread of the compute pool: a long range read or bucketed in the
 * database takes a while (14 M intervals took 40 s on an HTTP thread). */
static void coverage_run(struct compute_task *job)
{
    struct server *srv = job->srv;
    struct request *req = job->req;
    const char *fs = job->fs[0] != '\0' ? job->fs : NULL;
    const double from_s = job->from_s, to_s = job->to_s;
    const unsigned long points = job->limit;
    struct db_coverage *list = NULL;
    size_t n = 0;
    struct error err = {0};
    struct db *db = pool_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "coverage", NULL);
        return;
    }
    enum status rc = db_coverage_list(db, &list, &n, &err);
    if (rc == STATUS_OK && n == 0) {
        pool_release(srv, db, rc);
        answer_error(req, STATUS_NOT_FOUND, NULL,
                     "no coverage stored (iocontend analyze stores it)");
        return;
    }
    struct db_coverage_series *series = calloc(n + 1, sizeof *series);
    struct coverage_buckets *bk = points > 0 ? calloc(n + 1, sizeof *bk) : NULL;
    bool *served = calloc(n + 1, sizeof *served);
    bool found = fs == NULL;
    if (series == NULL || served == NULL || (points > 0 && bk == NULL)) {
        pool_release(srv, db, rc);
        answer_failure(req, STATUS_NOMEM, &err, "coverage", NULL);
        goto out;
    }
    /* Without points the answer lists every interval: bounded. With points, the
     * database buckets them: n rows per scope, whatever the range. */
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        bool truncated = false;
        if (fs != NULL && strcmp(list[i].scope, job->fs_scope) != 0)
            continue;
        found = true;
        if (atomic_load(&job->cancel)) {
            rc = error_set(&err, STATUS_CANCELLED, "coverage stopped");
            break;
        }
        if (points > 0) {
            rc = analysis_coverage_buckets(db, &list[i], from_s, to_s, points, &bk[i],
                                           &err);
            served[i] = rc == STATUS_OK;
            continue;
        }
        rc = db_coverage_intervals(db, list[i].scope, from_s, to_s, COVERAGE_POINTS_MAX,
                                   &series[i], &truncated, &err);
        served[i] = rc == STATUS_OK;
        if (rc == STATUS_OK && truncated) {
            pool_release(srv, db, rc);
            answer_error(req, STATUS_INVALID, isfinite(from_s) ? "to" : "from",
                         "%s has more than %d intervals in that range: narrow from and "
                         "to, or ask for points=N",
                         list[i].scope, COVERAGE_POINTS_MAX);
            goto out;
        }
    }
    pool_release(srv, db, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "coverage", NULL);
        goto out;
    }
    if (!found) {
        answer_error(req, STATUS_INVALID, "fs",
                     "no coverage for file system %.64s (fs takes a file system with "
                     "samples, or all)",
                     fs);
        goto out;
    }
    const struct coverage_answer answer = {from_s, to_s, list, series, bk, served, n};
    answer_json_take(req, 200, analysis_coverage_json(&answer));
out:
    for (size_t i = 0; series != NULL && i < n; i++)
        db_coverage_series_clear(&series[i]);
    for (size_t i = 0; bk != NULL && i < n; i++)
        coverage_buckets_clear(&bk[i]);
    free(series);
    free(bk);
    free(served);
    free(list);
}

/* The coverage of docs/method.md §7 (Fig. 13) as `analyze` stored it: per file system
 * (fs=NAME), all together (fs=all) or every one (no fs), with D_i / max D and
 * S_i / max S over the intervals that overlap [from, to); with points=N, instead of
 * those, their min and max in N buckets of the range, whatever its length. Served
 * from the cache, else read on the compute pool. */
void route_coverage(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *fs = query(conn, "fs");
    double from_s = NAN, to_s = NAN;
    unsigned long points = 0;
    char scope[80] = "";

    if (!query_range(conn, req, &from_s, &to_s) ||
        !query_integer(conn, req, "points", 1, COVERAGE_BUCKETS_MAX, &points))
        return;
    if (fs != NULL) {
        int len =
            snprintf(scope, sizeof scope, strcmp(fs, "all") == 0 ? "%s" : "fs:%s", fs);
        if (len < 0 || (size_t)len >= sizeof scope) {
            answer_error(req, STATUS_INVALID, "fs", "no file system %.64s", fs);
            return;
        }
    }
    struct compute_task *job = compute_task_new(req, "all", "coverage");
    if (job == NULL)
        return;
    snprintf(job->fs, sizeof job->fs, "%s", fs != NULL ? fs : "");
    snprintf(job->fs_scope, sizeof job->fs_scope, "%s", scope);
    job->from_s = from_s;
    job->to_s = to_s;
    job->limit = points;
    /* The key holds the query as given: equal ranges written otherwise are kept
     * twice, within the cap. The pool's answer is kept under it (http.c). */
    job->version = cache_version(srv);
    const char *from = query(conn, "from"), *to = query(conn, "to");
    int key_len = snprintf(job->cache_key, sizeof job->cache_key, "coverage|%s|%s|%s|%lu",
                           fs != NULL ? fs : "", from != NULL ? from : "",
                           to != NULL ? to : "", points);
    if (key_len < 0 || (size_t)key_len >= sizeof job->cache_key)
        job->cache_key[0] = '\0'; /* not kept */
    if (job->cache_key[0] != '\0' &&
        cache_serve(srv, conn, req, job->cache_key, job->version)) {
        free(job);
        return;
    }
    compute_task_submit(srv, conn, req, job, coverage_run);
}
