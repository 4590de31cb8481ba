/* answer.c: one request's answer (JSON bodies, error bodies, the status of each
 * enum status) and the query parameters. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* STYLE.md §3: the one place statuses become HTTP codes. */
unsigned http_status_of(enum status s)
{
    switch (s) {
    case STATUS_OK: return 200;
    case STATUS_INVALID: return 400;
    case STATUS_NOT_FOUND: return 404;
    case STATUS_PARSE: return 422;
    case STATUS_DB: return 503;
    case STATUS_NOMEM:
    case STATUS_INTERNAL: return 500;
    case STATUS_BUSY:
    case STATUS_CANCELLED: return 503;
    }
    return 500;
}

/* ---- answers ------------------------------------------------------------------- */

void answer_json_take(struct request *req, unsigned code, json_t *body)
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
void answer_error_code(struct request *req, unsigned code, const char *status,
                       const char *parameter, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    answer_verror(req, code, status, parameter, fmt, ap);
    va_end(ap);
}

/* The error body of status s: code http_status_of(s), "status" its name. */
void answer_error(struct request *req, enum status s, const char *parameter,
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
void answer_failure(struct request *req, enum status rc, const struct error *err,
                    const char *what, const char *parameter)
{
    char detail[512];

    error_format(err, detail, sizeof detail);
    switch (rc) {
    case STATUS_INVALID:
        answer_error(req, rc, err->parameter[0] != '\0' ? err->parameter : parameter,
                     "%s", err->msg);
        return;
    case STATUS_NOT_FOUND:
    case STATUS_PARSE: answer_error(req, rc, NULL, "%s", err->msg); return;
    case STATUS_DB:
        log_error("%s: database: %s", what, detail);
        answer_error(req, rc, NULL, "database unavailable");
        return;
    case STATUS_BUSY:
    case STATUS_CANCELLED: answer_error(req, rc, NULL, "%s", err->msg); return;
    case STATUS_OK:
    case STATUS_NOMEM:
    case STATUS_INTERNAL: break;
    }
    log_error("%s: %s: %s", what, status_name(rc), detail);
    answer_error(req, STATUS_INTERNAL, NULL, "internal error");
}

void request_free(struct request *req)
{
    if (req == NULL)
        return;
    json_decref(req->json);
    free(req->text);
    if (req->file_fd >= 0)
        close(req->file_fd);
    free(req->job); /* the pool let go of it before resuming the connection */
    free(req);
}

/* ---- query parameters ---------------------------------------------------------- */

/* The value of query parameter name; an empty value counts as absent (forms send
 * "&group=" for "any"). */
const char *query(struct MHD_Connection *conn, const char *name)
{
    const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

bool query_integer(struct MHD_Connection *conn, struct request *req, const char *name,
                   unsigned long lo, unsigned long hi, unsigned long *out)
{
    const char *v = query(conn, name);
    char *end = NULL;

    if (v == NULL)
        return true;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n < lo || n > hi) {
        answer_error(req, STATUS_INVALID, name, "%s must be an integer from %lu to %lu",
                     name, lo, hi);
        return false;
    }
    *out = n;
    return true;
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

bool query_range(struct MHD_Connection *conn, struct request *req, double *from_s,
                 double *to_s)
{
    static const char *const names[2] = {"from", "to"};
    const char *values[2] = {query(conn, "from"), query(conn, "to")};
    double *out[2] = {from_s, to_s};

    for (int i = 0; i < 2; i++) {
        *out[i] = NAN;
        if (values[i] != NULL && !parse_time(values[i], out[i])) {
            answer_error(
                req, STATUS_INVALID, names[i],
                "%s must be RFC 3339 (2026-11-20T10:00:00Z) or epoch milliseconds",
                names[i]);
            return false;
        }
    }
    if (values[0] != NULL && values[1] != NULL && !(*to_s > *from_s)) {
        answer_error(req, STATUS_INVALID, "to", "to must be after from");
        return false;
    }
    return true;
}

void answer_stored(struct request *req, enum status rc, char *text,
                   const struct error *err, const char *what, const char *group_id)
{
    json_error_t jerr;

    if (rc != STATUS_OK) {
        free(text);
        answer_failure(req, rc, err, what, NULL);
        return;
    }
    json_t *o = json_loads(text, 0, &jerr);
    free(text);
    if (o == NULL) {
        log_error("%s of %s: stored JSON unreadable: %s", what, group_id, jerr.text);
        answer_error(req, STATUS_INTERNAL, NULL, "internal error");
        return;
    }
    answer_json_take(req, 200, o);
}

/* A group id as the database makes them: up to 16 of [A-Za-z0-9_-]. */
bool group_id_ok(const char *id, size_t len)
{
    if (len == 0 || len > 16)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)id[i]) && id[i] != '_' && id[i] != '-')
            return false;
    }
    return true;
}

void answer_no_such(struct request *req, const char *noun)
{
    answer_error(req, STATUS_NOT_FOUND, NULL, "no such %s", noun);
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

bool bearer_is(struct MHD_Connection *conn, const char *secret)
{
    const char *h =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);

    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
        return false;
    for (h += 7; *h == ' '; h++)
        continue;
    return same_secret(h, secret);
}

double monotonic_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The 400 of a group parameter that names no group, or several: those listed as
 * "candidates" ({"id","name","jobs"}, as /groups lists them). */
void answer_group_refused(struct request *req, const struct group_match *m,
                          const struct error *err)
{
    answer_error(req, STATUS_INVALID, "group", "%s", err->msg);
    json_t *inner = json_object_get(req->json, "error"); /* borrowed */
    if (inner == NULL || m->n_candidates == 0)
        return;
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < m->n_candidates; i++) {
        const struct db_group *g = &m->candidates[i];
        json_array_append_new(list, json_pack("{s:s, s:s, s:I}", "id", g->id, "name",
                                              g->name, "jobs", (json_int_t)g->jobs));
    }
    json_object_set_new(inner, "candidates", list);
}
