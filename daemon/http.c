/* http.c: the HTTP API (v1) of INTERFACES.md and the static page, on libmicrohttpd. */
#include "internal.h"

#include <microhttpd.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JOBS_LIMIT_DEFAULT 100
#define JOBS_LIMIT_MAX     1000
/* 15 significant digits print 0.55 as 0.55 (17 would print 0.55000000000000004);
 * no measured quantity here carries more. */
#define JSON_FLAGS           (JSON_COMPACT | JSON_REAL_PRECISION(15))
#define JSON_CONTENT_TYPE    "application/json; charset=utf-8"
#define CONNECTION_TIMEOUT_S 30

/* Threading and the database. libmicrohttpd runs every callback in its one internal
 * polling thread (MHD_USE_INTERNAL_POLLING_THREAD, no pool), so requests are served
 * one after another and share one connection, opened once in serve_run: no
 * connection set-up per request, and a burst of clients cannot open more PostgreSQL
 * sessions than one. The cost is that a slow association (computed on request)
 * delays the requests behind it, which is acceptable for a handful of dashboard
 * users. The mutex makes the sharing explicit, so that turning on a thread pool
 * later stays correct (requests would then queue on the connection, not race). */
struct server {
    const struct app_config *cfg; /* borrowed from serve_run's caller */
    pthread_mutex_t db_lock;      /* guards db */
    struct db *db;                /* NULL while the database is unreachable */
    bool target_ok;               /* target resolved, so reconnecting is possible */
    struct db_target target;      /* where to reconnect, without starting a cluster */
    char web_dir[PATH_MAX];       /* the page's folder, "" when none was found */
};

/* One request's answer. Made on libmicrohttpd's first callback, freed in the
 * request-completed callback: it owns everything the request allocates, including
 * the serialized body libmicrohttpd reads until the answer is sent. */
struct request {
    unsigned code;            /* HTTP status */
    json_t *json;             /* the body before serialization, or NULL */
    char *text;               /* the serialized body (MHD_RESPMEM_PERSISTENT) */
    int file_fd;              /* a static file to send, -1 when none */
    off_t file_size;          /* its size in bytes */
    const char *content_type; /* of the static file (a literal) */
    bool no_body;             /* 204 answers */
    bool www_authenticate;    /* 401: ask for a bearer token */
    bool allow;               /* 405 and preflight: say which methods exist */
    bool queued;              /* the answer went to libmicrohttpd */
};

/* What the client sees when even the error body cannot be built. Not const:
 * libmicrohttpd takes a void *, and it only reads the bytes. */
static char internal_body[] =
    "{\"error\":{\"status\":\"internal\",\"message\":\"internal "
    "error\"}}";

/* STYLE.md §3: the one place statuses become HTTP codes. */
static unsigned http_status_of(enum status s)
{
    switch (s) {
    case STATUS_OK: return 200;
    case STATUS_INVALID: return 400;
    case STATUS_NOT_FOUND: return 404;
    case STATUS_PARSE: return 422;
    case STATUS_DB: return 503;
    case STATUS_NOMEM:
    case STATUS_INTERNAL: return 500;
    }
    return 500;
}

/* ---- answers ------------------------------------------------------------------- */

static void answer_json_take(struct request *req, unsigned code, json_t *body)
{
    json_decref(req->json);
    req->json = body;
    req->code = body != NULL ? code : 500; /* NULL: no memory to build it */
    if (body == NULL)
        log_error("no memory for a %u answer", code);
}

/* {"error":{"status":…,"message":…[,"parameter":…]}} with code. */
static void answer_verror(struct request *req, unsigned code, const char *status,
                          const char *parameter, const char *fmt, va_list ap)
    PRINTF_LIKE(5, 0);
static void answer_verror(struct request *req, unsigned code, const char *status,
                          const char *parameter, const char *fmt, va_list ap)
{
    char msg[512];

    vsnprintf(msg, sizeof msg, fmt, ap);
    /* User text can end up in msg (a route, a metric name): json_string refuses
     * invalid UTF-8, so fall back to ASCII. */
    json_t *message = json_string(msg);
    if (message == NULL) {
        for (char *p = msg; *p != '\0'; p++) {
            if ((unsigned char)*p >= 0x80)
                *p = '?';
        }
        message = json_string(msg);
    }
    json_t *inner = json_pack("{s:s, s:o*}", "status", status, "message", message);
    if (inner != NULL && parameter != NULL &&
        json_object_set_new(inner, "parameter", json_string(parameter)) != 0) {
        json_decref(inner);
        inner = NULL;
    }
    answer_json_take(req, code,
                     inner != NULL ? json_pack("{s:o}", "error", inner) : NULL);
}

/* An error body with an explicit code, for answers no enum status stands for
 * (401, 405). */
static void answer_error_code(struct request *req, unsigned code, const char *status,
                              const char *parameter, const char *fmt, ...)
    PRINTF_LIKE(5, 6);
static void answer_error_code(struct request *req, unsigned code, const char *status,
                              const char *parameter, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    answer_verror(req, code, status, parameter, fmt, ap);
    va_end(ap);
}

/* The error body of status s: code http_status_of(s), "status" its name. */
static void answer_error(struct request *req, enum status s, const char *parameter,
                         const char *fmt, ...) PRINTF_LIKE(4, 5);
static void answer_error(struct request *req, enum status s, const char *parameter,
                         const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    answer_verror(req, http_status_of(s), status_name(s), parameter, fmt, ap);
    va_end(ap);
}

/* Answers a call that failed with rc: the client gets the message for its own
 * mistakes (400, 404), a fixed one for the database (503) and none at all for ours
 * (500); the detail of the last two goes to the log. parameter names the query
 * parameter of a STATUS_INVALID whose err->file is empty. */
static void answer_failure(struct request *req, enum status rc, const struct error *err,
                           const char *what, const char *parameter)
{
    char detail[512];

    error_format(err, detail, sizeof detail);
    switch (rc) {
    case STATUS_INVALID:
        answer_error(req, rc, err->file[0] != '\0' ? err->file : parameter, "%s",
                     err->msg);
        return;
    case STATUS_NOT_FOUND:
    case STATUS_PARSE: answer_error(req, rc, NULL, "%s", err->msg); return;
    case STATUS_DB:
        log_error("%s: database: %s", what, detail);
        answer_error(req, rc, NULL, "database unavailable");
        return;
    case STATUS_OK:
    case STATUS_NOMEM:
    case STATUS_INTERNAL: break;
    }
    log_error("%s: %s: %s", what, status_name(rc), detail);
    answer_error(req, STATUS_INTERNAL, NULL, "internal error");
}

static void request_free(struct request *req)
{
    if (req == NULL)
        return;
    json_decref(req->json);
    free(req->text);
    if (req->file_fd >= 0)
        close(req->file_fd);
    free(req);
}

/* ---- the database connection --------------------------------------------------- */

/* The shared connection, locked, reconnecting first when it was lost; NULL and
 * unlocked (err says why) when the database is unreachable. */
static struct db *db_acquire(struct server *srv, struct error *err)
{
    pthread_mutex_lock(&srv->db_lock);
    if (srv->db == NULL) {
        enum status rc = srv->target_ok ? db_open(&srv->target, &srv->db, err)
                                        : error_set(err, STATUS_DB, "no database target");
        if (rc != STATUS_OK) {
            srv->db = NULL;
            pthread_mutex_unlock(&srv->db_lock);
            return NULL;
        }
        log_info("database connection re-established");
    }
    return srv->db;
}

/* Unlocks; after STATUS_DB the connection may be dead, so it is dropped and the
 * next request reconnects rather than failing forever on a broken socket. */
static void db_release(struct server *srv, enum status rc)
{
    if (rc == STATUS_DB && srv->db != NULL) {
        db_close(srv->db);
        srv->db = NULL;
    }
    pthread_mutex_unlock(&srv->db_lock);
}

/* ---- JSON helpers -------------------------------------------------------------- */

static json_t *number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A job metric: negative means "not applicable" (METHOD.md: t_fr -1 never read). */
static json_t *metric_or_null(double v)
{
    return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

/* A string from the database; bytes that are not ASCII become '?' when the text is
 * not valid UTF-8 (a Darshan exe can hold anything). */
static json_t *text_of(const char *s)
{
    char copy[512];
    json_t *j = json_string(s);

    if (j != NULL)
        return j;
    snprintf(copy, sizeof copy, "%s", s);
    for (char *p = copy; *p != '\0'; p++) {
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    }
    return json_string(copy);
}

static json_t *text_or_null(const char *s)
{
    return s[0] != '\0' ? text_of(s) : json_null();
}

static void rfc3339(int64_t epoch_s, char out[40])
{
    time_t t = (time_t)epoch_s;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, 40, "1970-01-01T00:00:00Z");
}

/* ---- query parameters ---------------------------------------------------------- */

/* The value of query parameter name; an empty value counts as absent (forms send
 * "&group=" for "any"). */
static const char *query(struct MHD_Connection *conn, const char *name)
{
    const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

/* An instant: epoch milliseconds (all digits) or RFC 3339 (time_parse_rfc3339). */
static bool parse_time(const char *s, double *out_s)
{
    size_t len = strlen(s);

    if (len > 0 && strspn(s, "0123456789") == len) {
        if (len > 15) /* past year 33000, and beyond what a double holds exactly */
            return false;
        *out_s = (double)strtoll(s, NULL, 10) / 1000.0;
        return true;
    }
    return time_parse_rfc3339(s, out_s);
}

/* A group id as the database makes them: up to 16 of [A-Za-z0-9_-]. */
static bool group_id_ok(const char *id, size_t len)
{
    if (len == 0 || len > 16)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)id[i]) && id[i] != '_' && id[i] != '-')
            return false;
    }
    return true;
}

/* ---- routes -------------------------------------------------------------------- */

static void route_health(struct server *srv, struct request *req)
{
    struct error err = {0};
    struct db_health h = {0};
    struct db *db = db_acquire(srv, &err);
    char detail[512];

    if (db == NULL) {
        error_format(&err, detail, sizeof detail);
        log_warn("health: database unreachable: %s", detail);
        answer_error(req, STATUS_DB, NULL, "database unavailable");
        return;
    }
    enum status rc = db_health_get(db, &h, &err);
    db_release(srv, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "health", NULL);
        return;
    }
    answer_json_take(
        req, 200,
        json_pack("{s:s, s:s, s:i, s:o, s:o, s:I, s:I, s:s}", "status", "ok", "database",
                  "reachable", "schema_version", h.schema_version, "last_ingest",
                  text_or_null(h.last_ingest), "last_analysis",
                  text_or_null(h.last_analysis), "jobs", (json_int_t)h.jobs, "samples",
                  (json_int_t)h.samples, "version", IOCONTEND_VERSION));
}

static json_t *job_json(const struct db_job_row *r)
{
    char start[40], end[40];

    rfc3339(r->start_time, start);
    rfc3339(r->end_time, end);
    return json_pack("{s:o, s:o, s:o, s:I, s:o, s:I, s:s, s:s, s:I, s:I,"
                     " s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I}",
                     "id", text_of(r->job_key), "jobid", text_of(r->jobid), "group",
                     text_of(r->group_id), "uid", (json_int_t)r->uid, "exe",
                     text_of(r->exe), "nprocs", (json_int_t)r->nprocs, "start", start,
                     "end", end, "start_ms", (json_int_t)r->start_time * 1000, "end_ms",
                     (json_int_t)r->end_time * 1000, "t_j", metric_or_null(r->t_j),
                     "t_um", metric_or_null(r->t_um), "t_urw", metric_or_null(r->t_urw),
                     "t_s", metric_or_null(r->t_s), "t", metric_or_null(r->t), "t_fr",
                     metric_or_null(r->t_fr), "t_fw", metric_or_null(r->t_fw), "eta_read",
                     (json_int_t)r->eta_read, "eta_write", (json_int_t)r->eta_write,
                     "eta_mon_read", (json_int_t)r->eta_mon_read, "eta_mon_write",
                     (json_int_t)r->eta_mon_write);
}

static void route_jobs(struct server *srv, struct MHD_Connection *conn,
                       struct request *req)
{
    const char *limit_s = query(conn, "limit"), *cursor = query(conn, "cursor");
    const char *from = query(conn, "from"), *to = query(conn, "to");
    const char *group = query(conn, "group");
    double from_s = NAN, to_s = NAN;
    size_t limit = JOBS_LIMIT_DEFAULT, n = 0;
    struct db_job_row *rows = NULL;
    struct db_group g;
    char next[80] = "";
    struct error err = {0};
    enum status rc = STATUS_OK;

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
    if (cursor != NULL && strlen(cursor) >= sizeof next) {
        answer_error(req, STATUS_INVALID, "cursor",
                     "cursor is not one this server gave out");
        return;
    }
    if (from != NULL && !parse_time(from, &from_s)) {
        answer_error(
            req, STATUS_INVALID, "from",
            "from must be RFC 3339 (2026-11-20T10:00:00Z) or epoch milliseconds");
        return;
    }
    if (to != NULL && !parse_time(to, &to_s)) {
        answer_error(req, STATUS_INVALID, "to",
                     "to must be RFC 3339 (2026-11-20T10:00:00Z) or epoch milliseconds");
        return;
    }
    if (from != NULL && to != NULL && !(to_s > from_s)) {
        answer_error(req, STATUS_INVALID, "to", "to must be after from");
        return;
    }
    if (group != NULL && !group_id_ok(group, strlen(group))) {
        answer_error(req, STATUS_INVALID, "group", "no group %s", group);
        return;
    }
    struct db *db = db_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "jobs", NULL);
        return;
    }
    /* An unknown group is a mistake in the query, not an empty answer. */
    if (group != NULL)
        rc = db_group_get(db, group, &g, &err);
    if (rc == STATUS_OK)
        rc = db_jobs_page(db, cursor, from_s, to_s, group, limit, &rows, &n, next, &err);
    db_release(srv, rc);
    if (rc == STATUS_NOT_FOUND && group != NULL) {
        answer_error(req, STATUS_INVALID, "group", "no group %s", group);
        goto out;
    }
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "jobs", "cursor");
        goto out;
    }
    json_t *jobs = json_array();
    for (size_t i = 0; jobs != NULL && i < n; i++) {
        if (json_array_append_new(jobs, job_json(&rows[i])) != 0) {
            json_decref(jobs);
            jobs = NULL;
        }
    }
    answer_json_take(req, 200,
                     json_pack("{s:o, s:o}", "jobs", jobs, "next_cursor",
                               next[0] != '\0' ? json_string(next) : json_null()));
out:
    free(rows);
}

static void route_groups(struct server *srv, struct request *req)
{
    struct error err = {0};
    struct db_group *groups = NULL;
    size_t n = 0;
    struct db *db = db_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "groups", NULL);
        return;
    }
    enum status rc = db_groups_list(db, &groups, &n, &err);
    db_release(srv, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "groups", NULL);
        return;
    }
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < n; i++) {
        json_t *g = json_pack("{s:o, s:o, s:o, s:I}", "id", text_of(groups[i].id), "name",
                              text_of(groups[i].name), "key", text_of(groups[i].key),
                              "jobs", (json_int_t)groups[i].jobs);
        if (json_array_append_new(list, g) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    free(groups);
    answer_json_take(req, 200, json_pack("{s:o}", "groups", list));
}

/* "all", "touched" or "fs:NAME" (METHOD.md §1). */
static bool scope_ok(const char *scope)
{
    return strcmp(scope, "all") == 0 || strcmp(scope, "touched") == 0 ||
           (strncmp(scope, "fs:", 3) == 0 && scope[3] != '\0');
}

/* The 404 for a granularity never stored names those that are
 * (INTERFACES.md: "answers 404 with stored_granularities_s"). */
static void add_stored_granularities(struct request *req, struct db *db,
                                     const char *group_id, const char *y, const char *x)
{
    struct error err = {0};
    double *g = NULL;
    size_t n = 0;
    json_t *inner = json_object_get(req->json, "error"); /* borrowed */

    if (inner == NULL || db_result_granularities(db, group_id, y, x, &g, &n, &err) != 0) {
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
                             const struct app_config *cfg, struct assoc_opts *opts)
{
    const char *space = query(conn, "space"), *kernel = query(conn, "kernel");
    bool significance = false;

    *opts = assoc_opts_default(cfg);
    opts->space = space != NULL ? space : "auto";
    if (strcmp(opts->space, "auto") != 0 && strcmp(opts->space, "log") != 0 &&
        strcmp(opts->space, "linear") != 0) {
        answer_error(req, STATUS_INVALID, "space", "space must be auto, log or linear");
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

/* y and x of a pair route (default t_d, psi_d_read); false when answered (400). */
static bool metric_pair(struct MHD_Connection *conn, struct request *req, const char **y,
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
 * answered (404 for no such group, or the failure). The caller db_release's. */
static struct db *group_db(struct server *srv, struct request *req, const char *group_id,
                           const char *what)
{
    struct error err = {0};
    struct db_group g;

    if (group_id == NULL) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no such group");
        return NULL;
    }
    struct db *db = db_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, what, NULL);
        return NULL;
    }
    enum status rc = db_group_get(db, group_id, &g, &err);
    if (rc == STATUS_OK)
        return db;
    db_release(srv, rc);
    if (rc == STATUS_NOT_FOUND) {
        answer_error(req, rc, NULL, "no group %s", group_id);
    } else {
        answer_failure(req, rc, &err, what, NULL);
    }
    return NULL;
}

/* Answers a stored JSON text (taken); 500 when it does not parse (logged). */
static void answer_stored(struct request *req, char *text, const char *what,
                          const char *group_id)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);

    free(text);
    if (o == NULL) {
        log_error("%s of %s: stored JSON unreadable: %s", what, group_id, jerr.text);
        answer_error(req, STATUS_INTERNAL, NULL, "internal error");
        return;
    }
    answer_json_take(req, 200, o);
}

static void route_association(struct server *srv, struct MHD_Connection *conn,
                              struct request *req, const char *group_id)
{
    const char *y, *x;
    const char *gran = query(conn, "granularity");
    const char *scope = query(conn, "scope");
    double granularity_s = 0; /* the base Δ */
    struct assoc_opts opts;
    struct error err = {0};
    json_t *out = NULL;

    scope = scope != NULL ? scope : "all";
    if (!metric_pair(conn, req, &y, &x))
        return;
    if (gran != NULL) {
        char *end = NULL;
        errno = 0;
        granularity_s = strtod(gran, &end);
        if (end == gran || *end != '\0' || errno != 0 || !isfinite(granularity_s) ||
            !(granularity_s > 0)) {
            answer_error(req, STATUS_INVALID, "granularity",
                         "granularity must be a positive number of seconds");
            return;
        }
    }
    if (!association_opts(conn, req, srv->cfg, &opts))
        return;
    if (!scope_ok(scope)) {
        answer_error(req, STATUS_INVALID, "scope",
                     "scope must be all, touched or fs:NAME");
        return;
    }
    struct db *db = group_db(srv, req, group_id, "association");
    if (db == NULL)
        return;
    /* Without options the object analyze stored is the answer while the group's
     * inputs are unchanged: nothing is recomputed. */
    static const char *const options[] = {
        "granularity", "scope",        "space",        "kernel",    "bandwidth",
        "density",     "significance", "permutations", "resamples", "rf"};
    bool plain = true;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        plain = plain && query(conn, options[i]) == NULL;
    enum status rc = STATUS_NOT_FOUND;
    if (plain) {
        rc = analysis_association_stored(db, group_id, y, x, &out, &err);
        if (rc == STATUS_OK) {
            db_release(srv, rc);
            answer_json_take(req, 200, out);
            return;
        }
        if (rc != STATUS_NOT_FOUND)
            log_warn("stored association of %s %s~%s: %s", group_id, y, x, err.msg);
        error_clear(&err);
    }
    rc = analysis_association(db, srv->cfg, group_id, y, x, granularity_s, scope, &opts,
                              &out, &err);
    if (rc == STATUS_NOT_FOUND) {
        answer_failure(req, rc, &err, "association", NULL);
        if (gran != NULL)
            add_stored_granularities(req, db, group_id, y, x);
        db_release(srv, rc);
        return;
    }
    db_release(srv, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "association", "granularity");
        return;
    }
    answer_json_take(req, 200, out);
}

/* The stored granularity sweep of (group, y, x) (METHOD.md §6), as `analyze --sweep`
 * stored it: never computed here. */
static void route_sweep(struct server *srv, struct MHD_Connection *conn,
                        struct request *req, const char *group_id)
{
    const char *y, *x;
    struct error err = {0};
    char *text = NULL;

    if (!metric_pair(conn, req, &y, &x))
        return;
    struct db *db = group_db(srv, req, group_id, "sweep");
    if (db == NULL)
        return;
    enum status rc = db_sweep_get(db, group_id, y, x, "all", &text, &err);
    db_release(srv, rc);
    if (rc == STATUS_NOT_FOUND) {
        answer_error(req, rc, NULL,
                     "no sweep stored for %s~%s in group %s (iocontend analyze --sweep "
                     "stores them)",
                     y, x, group_id);
        return;
    }
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "sweep", NULL);
        return;
    }
    answer_stored(req, text, "sweep", group_id);
}

/* A group's table (METHOD.md §4), as `analyze` stored it: never computed here. */
static void route_table(struct server *srv, struct request *req, const char *group_id)
{
    struct error err = {0};
    char *text = NULL;
    struct db *db = group_db(srv, req, group_id, "table");

    if (db == NULL)
        return;
    enum status rc = db_group_table_get(db, group_id, &text, &err);
    db_release(srv, rc);
    if (rc == STATUS_NOT_FOUND) {
        answer_error(req, rc, NULL,
                     "no table stored for group %s (iocontend analyze stores it)",
                     group_id);
        return;
    }
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "table", NULL);
        return;
    }
    answer_stored(req, text, "table", group_id);
}

/* The most intervals one scope of a coverage answer carries (a week at 10 s). */
#define COVERAGE_POINTS_MAX 60480

/* An epoch time as RFC 3339 (whole seconds) and as *_ms: both keys into o, null
 * when the time is NAN (open). */
static void set_time(json_t *o, const char *key, double epoch_s)
{
    char text[40], key_ms[64];

    snprintf(key_ms, sizeof key_ms, "%s_ms", key);
    if (!isfinite(epoch_s)) {
        json_object_set_new(o, key, json_null());
        json_object_set_new(o, key_ms, json_null());
        return;
    }
    rfc3339((int64_t)floor(epoch_s), text);
    json_object_set_new(o, key, json_string(text));
    json_object_set_new(o, key_ms, json_integer((json_int_t)llround(epoch_s * 1000.0)));
}

/* The largest finite value of v, 0 when there is none. */
static double max_finite(const double *v, size_t n)
{
    double m = 0;

    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    }
    return m;
}

/* v[i] / max for plotting (Fig. 13), null where v[i] is absent. */
static json_t *scaled(const double *v, size_t n, double max)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, number_or_null(max > 0 ? v[i] / max : v[i]));
    return a;
}

/* One stored scope's coverage and its intervals in the range asked. */
static json_t *coverage_json(const struct db_coverage *c,
                             const struct db_coverage_series *s)
{
    json_t *o = json_object(), *range = json_object(), *ends = json_array();
    double sum_d = 0, sum_s = 0;
    size_t both = 0;
    double max_d = max_finite(s->d_bytes, s->n), max_s = max_finite(s->s_bytes, s->n);

    for (size_t i = 0; i < s->n; i++) {
        json_array_append_new(ends,
                              json_integer((json_int_t)llround(s->end_s[i] * 1000)));
        if (isfinite(s->d_bytes[i]) && isfinite(s->s_bytes[i])) {
            sum_d += s->d_bytes[i];
            sum_s += s->s_bytes[i];
            both++;
        }
    }
    json_object_set_new(o, "fs",
                        text_of(strcmp(c->scope, "all") == 0 ? "all" : c->scope + 3));
    json_object_set_new(o, "scope", text_of(c->scope));
    json_object_set_new(o, "granularity_s", json_real(c->granularity_s));
    json_object_set_new(o, "coverage", number_or_null(c->coverage));
    json_object_set_new(o, "sum_d_bytes", json_real(c->sum_d_bytes));
    json_object_set_new(o, "sum_s_bytes", json_real(c->sum_s_bytes));
    json_object_set_new(o, "intervals", json_integer((json_int_t)c->intervals));
    json_object_set_new(o, "d_total_bytes", json_real(c->d_total_bytes));
    set_time(o, "log_start", c->log_start_s);
    set_time(o, "log_end", c->log_end_s);
    json_object_set_new(o, "computed_at", text_or_null(c->computed_at));
    /* The same sums over the intervals served: the coverage of the range asked. */
    json_object_set_new(range, "coverage",
                        sum_s > 0 ? json_real(sum_d / sum_s) : json_null());
    json_object_set_new(range, "sum_d_bytes", json_real(sum_d));
    json_object_set_new(range, "sum_s_bytes", json_real(sum_s));
    json_object_set_new(range, "intervals", json_integer((json_int_t)both));
    json_object_set_new(o, "range", range);
    json_object_set_new(o, "max_d_bytes", json_real(max_d));
    json_object_set_new(o, "max_s_bytes", json_real(max_s));
    json_object_set_new(o, "end_ms", ends);
    json_object_set_new(o, "d", scaled(s->d_bytes, s->n, max_d));
    json_object_set_new(o, "s", scaled(s->s_bytes, s->n, max_s));
    return o;
}

/* The coverage of METHOD.md §7 (Fig. 13) as `analyze` stored it: per file system
 * (fs=NAME), all together (fs=all) or every one (no fs), with D_i / max D and
 * S_i / max S over the intervals that overlap [from, to). */
static void route_coverage(struct server *srv, struct MHD_Connection *conn,
                           struct request *req)
{
    const char *fs = query(conn, "fs"), *from = query(conn, "from"),
               *to = query(conn, "to");
    double from_s = NAN, to_s = NAN;
    struct db_coverage *list = NULL;
    size_t n = 0;
    struct error err = {0};
    char scope[80] = "";

    if (from != NULL && !parse_time(from, &from_s)) {
        answer_error(
            req, STATUS_INVALID, "from",
            "from must be RFC 3339 (2026-11-20T10:00:00Z) or epoch milliseconds");
        return;
    }
    if (to != NULL && !parse_time(to, &to_s)) {
        answer_error(req, STATUS_INVALID, "to",
                     "to must be RFC 3339 (2026-11-20T10:00:00Z) or epoch milliseconds");
        return;
    }
    if (from != NULL && to != NULL && !(to_s > from_s)) {
        answer_error(req, STATUS_INVALID, "to", "to must be after from");
        return;
    }
    if (fs != NULL) {
        int len =
            snprintf(scope, sizeof scope, strcmp(fs, "all") == 0 ? "%s" : "fs:%s", fs);
        if (len < 0 || (size_t)len >= sizeof scope) {
            answer_error(req, STATUS_INVALID, "fs", "no file system %.64s", fs);
            return;
        }
    }
    struct db *db = db_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "coverage", NULL);
        return;
    }
    enum status rc = db_coverage_list(db, &list, &n, &err);
    if (rc == STATUS_OK && n == 0) {
        db_release(srv, rc);
        answer_error(req, STATUS_NOT_FOUND, NULL,
                     "no coverage stored (iocontend analyze stores it)");
        return;
    }
    json_t *all = json_object(), *series = json_array();
    bool found = fs == NULL;
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        struct db_coverage_series s;
        bool truncated = false;
        json_object_set_new(all,
                            strcmp(list[i].scope, "all") == 0 ? "all" : list[i].scope + 3,
                            number_or_null(list[i].coverage));
        if (fs != NULL && strcmp(list[i].scope, scope) != 0)
            continue;
        found = true;
        rc = db_coverage_intervals(db, list[i].scope, from_s, to_s, COVERAGE_POINTS_MAX,
                                   &s, &truncated, &err);
        if (rc == STATUS_OK && truncated) {
            db_coverage_series_clear(&s);
            db_release(srv, rc);
            answer_error(
                req, STATUS_INVALID, from != NULL ? "to" : "from",
                "%s has more than %d intervals in that range: narrow from and to",
                list[i].scope, COVERAGE_POINTS_MAX);
            goto out;
        }
        if (rc == STATUS_OK)
            json_array_append_new(series, coverage_json(&list[i], &s));
        db_coverage_series_clear(&s);
    }
    db_release(srv, rc);
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
    json_t *o = json_object();
    set_time(o, "from", from_s);
    set_time(o, "to", to_s);
    json_object_set_new(o, "coverage", all);
    json_object_set_new(o, "filesystems", series);
    all = series = NULL;
    answer_json_take(req, 200, o);
out:
    json_decref(all);
    json_decref(series);
    free(list);
}

/* ---- the static page ----------------------------------------------------------- */

static const char *content_type_of(const char *name)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".json", JSON_CONTENT_TYPE},
        {".map", JSON_CONTENT_TYPE},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".csv", "text/csv; charset=utf-8"},
        {".woff2", "font/woff2"},
    };
    const char *dot = strrchr(name, '.');

    for (size_t i = 0; dot != NULL && i < sizeof types / sizeof types[0]; i++) {
        if (strcasecmp(dot, types[i][0]) == 0)
            return types[i][1];
    }
    return "application/octet-stream";
}

/* rel is the path under the page's folder, already percent-decoded. */
static void route_static(const struct server *srv, struct request *req, const char *rel)
{
    char path[PATH_MAX + 256];
    struct stat st;

    /* Refuse anything that could leave the folder or reach hidden files: "..",
     * absolute paths, empty components, dot files. */
    if (srv->web_dir[0] == '\0' || rel[0] == '\0' || rel[0] == '/' || rel[0] == '.' ||
        strstr(rel, "..") != NULL || strstr(rel, "//") != NULL ||
        strstr(rel, "/.") != NULL || strchr(rel, '\\') != NULL) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no file %s", rel);
        return;
    }
    snprintf(path, sizeof path, "%s/%s", srv->web_dir, rel);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        answer_error(req, STATUS_NOT_FOUND, NULL, "no file %s", rel);
        return;
    }
    req->code = 200;
    req->file_fd = fd;
    req->file_size = st.st_size;
    req->content_type = content_type_of(rel);
}

/* ---- dispatch ------------------------------------------------------------------ */

enum route {
    ROUTE_NONE,
    ROUTE_HEALTH,
    ROUTE_JOBS,
    ROUTE_GROUPS,
    ROUTE_ASSOCIATION,
    ROUTE_PREDICT,
    ROUTE_SWEEP,
    ROUTE_TABLE,
    ROUTE_COVERAGE,
    ROUTE_STATIC
};

/* The route of url. For the group routes *group is the id (into id), NULL when the
 * path segment cannot be a group id; for static files *rel is the file. */
static enum route route_of(const char *url, char id[17], const char **group,
                           const char **rel)
{
    static const char groups_prefix[] = "/api/v1/groups/";

    *group = NULL;
    *rel = NULL;
    if (strcmp(url, "/api/v1/health") == 0)
        return ROUTE_HEALTH;
    if (strcmp(url, "/api/v1/jobs") == 0)
        return ROUTE_JOBS;
    if (strcmp(url, "/api/v1/groups") == 0)
        return ROUTE_GROUPS;
    if (strcmp(url, "/api/v1/coverage") == 0)
        return ROUTE_COVERAGE;
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
        *rel = "index.html";
        return ROUTE_STATIC;
    }
    if (strncmp(url, "/web/", 5) == 0) {
        *rel = url + 5;
        return ROUTE_STATIC;
    }
    if (strncmp(url, groups_prefix, sizeof groups_prefix - 1) != 0)
        return ROUTE_NONE;
    const char *seg = url + sizeof groups_prefix - 1;
    const char *slash = strchr(seg, '/');
    if (slash == NULL)
        return ROUTE_NONE;
    enum route r = strcmp(slash, "/association") == 0 ? ROUTE_ASSOCIATION
                   : strcmp(slash, "/predict") == 0   ? ROUTE_PREDICT
                   : strcmp(slash, "/sweep") == 0     ? ROUTE_SWEEP
                   : strcmp(slash, "/table") == 0     ? ROUTE_TABLE
                                                      : ROUTE_NONE;
    size_t len = (size_t)(slash - seg);
    if (r != ROUTE_NONE && group_id_ok(seg, len)) {
        memcpy(id, seg, len);
        id[len] = '\0';
        *group = id;
    }
    return r;
}

/* Compares in time independent of where the strings differ, so that the answer
 * time does not leak how much of a guessed token was right. */
static bool same_secret(const char *given, const char *secret)
{
    size_t given_len = strlen(given), secret_len = strlen(secret);
    unsigned diff = given_len != secret_len;

    for (size_t i = 0; i < secret_len; i++)
        diff |= (unsigned char)secret[i] ^ (unsigned char)(i < given_len ? given[i] : 0);
    return diff == 0;
}

static bool authorized(const struct server *srv, struct MHD_Connection *conn)
{
    const char *h;

    if (srv->cfg->token[0] == '\0')
        return true;
    h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
        return false;
    for (h += 7; *h == ' '; h++)
        continue;
    return same_secret(h, srv->cfg->token);
}

static void dispatch(struct server *srv, struct MHD_Connection *conn, const char *url,
                     const char *method, struct request *req)
{
    bool api = strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0;
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
               strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    char id[17];
    const char *group = NULL, *rel = NULL;

    /* A browser asks before sending Authorization cross-origin, without it. */
    if (api && srv->cfg->cors_origin[0] != '\0' &&
        strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0) {
        req->code = 204;
        req->no_body = true;
        req->allow = true;
        return;
    }
    if (api && !authorized(srv, conn)) {
        req->www_authenticate = true;
        answer_error_code(req, 401, "unauthorized", NULL,
                          "this server needs Authorization: Bearer <token>");
        return;
    }
    enum route r = route_of(url, id, &group, &rel);
    if (r == ROUTE_NONE) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no route %s %.200s", method, url);
        return;
    }
    if (!get) {
        req->allow = true;
        answer_error_code(req, 405, "method_not_allowed", NULL,
                          "%s is not allowed on %.200s", method, url);
        return;
    }
    switch (r) {
    case ROUTE_HEALTH: route_health(srv, req); return;
    case ROUTE_JOBS: route_jobs(srv, conn, req); return;
    case ROUTE_GROUPS: route_groups(srv, req); return;
    case ROUTE_ASSOCIATION: route_association(srv, conn, req, group); return;
    case ROUTE_PREDICT:
        answer_error(req, STATUS_NOT_FOUND, NULL, "predict is not implemented yet");
        return;
    case ROUTE_SWEEP: route_sweep(srv, conn, req, group); return;
    case ROUTE_TABLE: route_table(srv, req, group); return;
    case ROUTE_COVERAGE: route_coverage(srv, conn, req); return;
    case ROUTE_STATIC: route_static(srv, req, rel); return;
    case ROUTE_NONE: return;
    }
}

static enum MHD_Result send_answer(const struct server *srv, struct MHD_Connection *conn,
                                   const char *method, const char *url,
                                   struct request *req)
{
    struct MHD_Response *resp = NULL;
    const char *type = JSON_CONTENT_TYPE;
    bool file = false;

    if (req->file_fd >= 0) {
        resp = MHD_create_response_from_fd((size_t)req->file_size, req->file_fd);
        if (resp != NULL) {
            req->file_fd = -1; /* the response closes it */
            type = req->content_type;
            file = true;
        } else {
            answer_json_take(req, 500, NULL);
        }
    }
    if (resp == NULL && req->no_body)
        resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (resp == NULL && !req->no_body) {
        if (req->json != NULL)
            req->text = json_dumps(req->json, JSON_FLAGS);
        if (req->text == NULL)
            req->code = 500;
        char *body = req->text != NULL ? req->text : internal_body;
        /* PERSISTENT: req owns body until the request-completed callback. */
        resp =
            MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_PERSISTENT);
    }
    if (resp == NULL)
        return MHD_NO;
    if (!req->no_body)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (!file) /* API answers change with every ingest */
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (srv->cfg->cors_origin[0] != '\0') {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN,
                                srv->cfg->cors_origin);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
    }
    if (req->allow) {
        const char *methods =
            srv->cfg->cors_origin[0] != '\0' ? "GET, HEAD, OPTIONS" : "GET, HEAD";
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, methods);
        if (req->code == 204) {
            MHD_add_response_header(resp, "Access-Control-Allow-Methods", methods);
            MHD_add_response_header(resp, "Access-Control-Allow-Headers",
                                    "Authorization");
            MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
        }
    }
    if (req->www_authenticate) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Bearer realm=\"iocontend\"");
    }
    enum MHD_Result ok = MHD_queue_response(conn, req->code, resp);
    MHD_destroy_response(resp);
    req->queued = true;
    log_debug("%s %.200s %u", method, url, req->code);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    struct server *srv = cls;
    struct request *req = *con_cls;

    (void)version;
    (void)upload_data;
    if (req == NULL) {
        /* First call: only the headers are in. */
        req = calloc(1, sizeof *req);
        if (req == NULL)
            return MHD_NO;
        req->file_fd = -1;
        *con_cls = req;
        return MHD_YES;
    }
    if (req->queued) {
        *upload_data_size = 0; /* the answer is out; the rest of a body is dropped */
        return MHD_YES;
    }
    if (*upload_data_size != 0 && (strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
                                   strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)) {
        *upload_data_size = 0; /* a GET body means nothing here */
        return MHD_YES;
    }
    dispatch(srv, conn, url, method, req);
    return send_answer(srv, conn, method, url, req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    request_free(*con_cls);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512];

    (void)cls;
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    log_warn("http: %s", msg);
}

/* ---- listening, the page's folder, the life of the server ------------------------ */

/* Splits "ADDR:PORT" ("[v6]:PORT"; ":PORT" means every IPv4 address). */
static enum status parse_listen(const char *listen, char *host, size_t host_size,
                                int *port, struct error *err)
{
    const char *colon = strrchr(listen, ':');
    const char *h = listen;
    size_t h_len;

    if (colon == NULL)
        return error_set(err, STATUS_INVALID, "listen %s: expected ADDR:PORT", listen);
    h_len = (size_t)(colon - listen);
    if (listen[0] == '[') {
        if (h_len < 2 || colon[-1] != ']') {
            return error_set(err, STATUS_INVALID, "listen %s: expected [ADDR]:PORT",
                             listen);
        }
        h++;
        h_len -= 2;
    }
    size_t p_len = strlen(colon + 1);
    long p = strtol(colon + 1, NULL, 10);
    if (p_len == 0 || p_len > 5 || strspn(colon + 1, "0123456789") != p_len ||
        p > 65535) {
        return error_set(err, STATUS_INVALID, "listen %s: port must be 0 to 65535",
                         listen);
    }
    if (h_len == 0) {
        h = "0.0.0.0";
        h_len = 7;
    }
    if (h_len >= host_size)
        return error_set(err, STATUS_INVALID, "listen %s: address too long", listen);
    memcpy(host, h, h_len);
    host[h_len] = '\0';
    *port = (int)p;
    return STATUS_OK;
}

/* Binds and listens ourselves rather than through libmicrohttpd, so that a bind
 * failure says why (errno) and port 0 is read back with getsockname. */
static enum status open_listener(const char *host, int port, int *fd_out, int *family,
                                 char *bound, size_t bound_size, int *bound_port,
                                 struct error *err)
{
    struct addrinfo hints = {0}, *res = NULL;
    char service[16];
    int fd = -1, saved = 0;

    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(service, sizeof service, "%d", port);
    int gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0)
        return error_set(err, STATUS_INVALID, "listen %s: %s", host, gai_strerror(gai));
    for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        int one = 1;
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        /* A restart must not wait for the last run's TIME_WAIT connections. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
            *family = ai->ai_family;
            break;
        }
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        return error_set(err, STATUS_INVALID, "cannot listen on %s:%d: %s", host, port,
                         strerror(saved));
    }
    struct sockaddr_storage ss;
    socklen_t ss_len = sizeof ss;
    char port_s[16];
    if (getsockname(fd, (struct sockaddr *)&ss, &ss_len) != 0 ||
        getnameinfo((struct sockaddr *)&ss, ss_len, bound, (socklen_t)bound_size, port_s,
                    sizeof port_s, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        close(fd);
        return error_set(err, STATUS_INTERNAL, "cannot read the bound address");
    }
    *bound_port = (int)strtol(port_s, NULL, 10);
    *fd_out = fd;
    return STATUS_OK;
}

static bool page_in(const char *dir, char *out, size_t size)
{
    char index[PATH_MAX + 32];

    int n = snprintf(index, sizeof index, "%s/index.html", dir);
    if (n < 0 || (size_t)n >= sizeof index || access(index, R_OK) != 0 ||
        realpath(dir, out) == NULL)
        return false;
    (void)size; /* out is PATH_MAX, what realpath needs */
    return true;
}

/* The page's folder: $IOCONTEND_WEB_DIR, else the first web/ holding index.html
 * from the binary's folder upwards (build/iocontend finds ../web in the source
 * tree), else share/iocontend/web beside an installed bin/. */
static void find_web_dir(char out[PATH_MAX])
{
    const char *env = getenv("IOCONTEND_WEB_DIR");
    char dir[PATH_MAX], candidate[PATH_MAX + 32];
    ssize_t n;

    out[0] = '\0';
    if (env != NULL && env[0] != '\0') {
        if (!page_in(env, out, PATH_MAX))
            log_warn("IOCONTEND_WEB_DIR=%s holds no readable index.html", env);
        return;
    }
    n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = '\0';
    for (char *slash = strrchr(dir, '/'); slash != NULL; slash = strrchr(dir, '/')) {
        *slash = '\0';
        snprintf(candidate, sizeof candidate, "%s/web", dir);
        if (page_in(candidate, out, PATH_MAX))
            return;
        snprintf(candidate, sizeof candidate, "%s/share/iocontend/web", dir);
        if (page_in(candidate, out, PATH_MAX))
            return;
    }
}

/* Asks the running server for /api/v1/health over a real socket, as a client would. */
static bool health_answers(const struct app_config *cfg, const char *bound, int port)
{
    char auth[200] = "";
    char *body = NULL;
    int status = 0;
    /* A wildcard address is reached through loopback. */
    const char *host = strcmp(bound, "0.0.0.0") == 0 ? "127.0.0.1"
                       : strcmp(bound, "::") == 0    ? "::1"
                                                     : bound;

    if (cfg->token[0] != '\0')
        snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", cfg->token);
    if (http_get(host, port, "/api/v1/health", auth, &status, &body) != 0) {
        log_error("check: GET /api/v1/health: %s", strerror(errno));
        return false;
    }
    if (status != 200) {
        log_error("check: GET /api/v1/health answered %d: %s", status, body);
    } else {
        log_info("check: GET /api/v1/health answered 200");
    }
    free(body);
    return status == 200;
}

int serve_run(struct app_config *cfg, const char *listen, bool check_only)
{
    static struct server srv = {.db_lock = PTHREAD_MUTEX_INITIALIZER};
    struct error err = {0};
    char host[256], bound[NI_MAXHOST], detail[512];
    int port = 0, bound_port = 0, fd = -1, family = AF_INET, sig = 0, code = EXIT_OK;
    sigset_t stop_signals, old_mask;
    struct MHD_Daemon *daemon = NULL;

    srv.cfg = cfg;
    srv.db = NULL;
    if (listen == NULL || listen[0] == '\0')
        listen = cfg->listen;
    if (parse_listen(listen, host, sizeof host, &port, &err) != STATUS_OK) {
        error_format(&err, detail, sizeof detail);
        log_error("%s", detail);
        return EXIT_USAGE;
    }
    find_web_dir(srv.web_dir);

    /* The page and the errors do not need the database; a daemon that starts while
     * PostgreSQL is down answers 503 on health and reconnects when it returns. */
    srv.target_ok = db_target_resolve(cfg->db_arg[0] != '\0' ? cfg->db_arg : NULL,
                                      &srv.target, &err) == STATUS_OK;
    if (srv.target_ok && app_db_open(cfg, &srv.db, &err) != STATUS_OK)
        srv.db = NULL;
    if (srv.db == NULL) {
        error_format(&err, detail, sizeof detail);
        log_warn("database unavailable (%s); serving anyway, health answers 503", detail);
    }
    error_clear(&err);

    if (open_listener(host, port, &fd, &family, bound, sizeof bound, &bound_port, &err) !=
        STATUS_OK) {
        error_format(&err, detail, sizeof detail);
        log_error("%s", detail);
        code = EXIT_UNAVAILABLE;
        goto out;
    }
    /* Block the stop signals (and SIGPIPE, which sendfile to a closed client would
     * raise) before libmicrohttpd makes its thread, which inherits the mask: the
     * signals then wait for sigwait below instead of interrupting a request. */
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigset_t blocked = stop_signals;
    sigaddset(&blocked, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &blocked, &old_mask);
    daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
            (family == AF_INET6 ? MHD_USE_IPv6 : 0),
        0, NULL, NULL, on_request, &srv, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
        MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED, on_completed, &srv,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONNECTION_TIMEOUT_S,
        MHD_OPTION_END);
    if (daemon == NULL) {
        close(fd); /* libmicrohttpd closes it only once it started */
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        log_error("cannot start the HTTP server on %s:%d", bound, bound_port);
        code = EXIT_UNAVAILABLE;
        goto out;
    }
    if (family == AF_INET6) {
        printf("listening on [%s]:%d\n", bound, bound_port);
    } else {
        printf("listening on %s:%d\n", bound, bound_port);
    }
    fflush(stdout);
    log_info("serving the API on %s:%d; page: %s", bound, bound_port,
             srv.web_dir[0] != '\0' ? srv.web_dir : "none found");

    if (check_only) {
        code = health_answers(cfg, bound, bound_port) ? EXIT_OK : EXIT_UNAVAILABLE;
    } else {
        while (sigwait(&stop_signals, &sig) != 0)
            continue;
        log_info("received %s, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    MHD_stop_daemon(daemon); /* waits for the request in progress */
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    log_info("HTTP server stopped");
out:
    pthread_mutex_lock(&srv.db_lock);
    db_close(srv.db);
    srv.db = NULL;
    pthread_mutex_unlock(&srv.db_lock);
    return code;
}
