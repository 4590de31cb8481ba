/* internal.h: what the files of daemon/ share: the server, one request's answer,
 * query parameters; included from daemon/ only. */
#ifndef IOCONTEND_DAEMON_INTERNAL_H
#define IOCONTEND_DAEMON_INTERNAL_H

#include "daemon.h"

#include "../sql/db.h"

#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define JSON_CONTENT_TYPE "application/json; charset=utf-8"

/* Threading and the database. libmicrohttpd runs every callback in its one internal
 * polling thread (MHD_USE_INTERNAL_POLLING_THREAD, no pool), so requests are served
 * one after another and share one connection, opened once in serve_run: no
 * connection set-up per request, and a burst of clients cannot open more PostgreSQL
 * sessions than one. The cost is that a slow association (computed on request)
 * delays the requests behind it, which is acceptable for a handful of dashboard
 * users. The mutex makes the sharing explicit, so that turning on a thread pool
 * later stays correct (requests would then queue on the connection, not race). */
struct server {
    const struct serve_settings *s; /* borrowed from serve_run's caller */
    pthread_mutex_t db_lock;        /* guards db */
    struct db *db;                  /* NULL while the database is unreachable */
    bool target_ok;                 /* target resolved, so reconnecting is possible */
    struct db_target target;        /* where to reconnect, without starting a cluster */
    char web_dir[PATH_MAX];         /* the page's folder, "" when none was found */
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

/* ---- answers (answer.c) ------------------------------------------------------------ */

/* STYLE.md §3: the one place statuses become HTTP codes. */
unsigned http_status_of(enum status s);

/* body (taken) with code; NULL (no memory to build it) answers 500. */
void answer_json_take(struct request *req, unsigned code, json_t *body);
/* {"error":{"status":…,"message":…[,"parameter":…]}} with an explicit code, for
 * answers no enum status stands for (401, 405). */
void answer_error_code(struct request *req, unsigned code, const char *status,
                       const char *parameter, const char *fmt, ...) PRINTF_LIKE(5, 6);
/* The error body of status s: code http_status_of(s), "status" its name. */
void answer_error(struct request *req, enum status s, const char *parameter,
                  const char *fmt, ...) PRINTF_LIKE(4, 5);
/* Answers a call that failed with rc: the client gets the message for its own
 * mistakes (400, 404), a fixed one for the database (503) and none at all for ours
 * (500); the detail of the last two goes to the log, prefixed with what. A
 * STATUS_INVALID names err->parameter, else parameter. */
void answer_failure(struct request *req, enum status rc, const struct error *err,
                    const char *what, const char *parameter);
/* Answers a stored JSON text (taken) that a read returned with rc: the failure
 * (answer_failure) unless rc is STATUS_OK; 500 when the text does not parse
 * (logged). */
void answer_stored(struct request *req, enum status rc, char *text,
                   const struct error *err, const char *what, const char *group_id);
void request_free(struct request *req);

/* The shared connection, locked, reconnecting first when it was lost; NULL and
 * unlocked (err says why) when the database is unreachable. */
struct db *db_acquire(struct server *srv, struct error *err);
/* Unlocks; after STATUS_DB the connection may be dead, so it is dropped and the
 * next request reconnects rather than failing forever on a broken socket. */
void db_release(struct server *srv, enum status rc);

/* ---- query parameters (answer.c) --------------------------------------------------- */

/* The value of query parameter name; an empty value counts as absent (forms send
 * "&group=" for "any"). */
const char *query(struct MHD_Connection *conn, const char *name);
/* from and to (RFC 3339 or epoch ms; NAN when absent), to after from; false when
 * answered (400 naming the parameter). */
bool query_range(struct MHD_Connection *conn, struct request *req, double *from_s,
                 double *to_s);
/* A group id as the database makes them: up to 16 of [A-Za-z0-9_-]. */
bool group_id_ok(const char *id, size_t len);

/* ---- routes (routes.c, static.c) --------------------------------------------------- */

void route_health(struct server *srv, struct request *req);
void route_jobs(struct server *srv, struct MHD_Connection *conn, struct request *req);
void route_groups(struct server *srv, struct request *req);
void route_association(struct server *srv, struct MHD_Connection *conn,
                       struct request *req, const char *group_id);
void route_sweep(struct server *srv, struct MHD_Connection *conn, struct request *req,
                 const char *group_id);
void route_table(struct server *srv, struct request *req, const char *group_id);
void route_coverage(struct server *srv, struct MHD_Connection *conn, struct request *req);
/* rel is the path under the page's folder, already percent-decoded. */
void route_static(const struct server *srv, struct request *req, const char *rel);
/* The page's folder: $IOCONTEND_WEB_DIR, else the first web/ holding index.html
 * from the binary's folder upwards, else share/iocontend/web beside an installed
 * bin/; "" when none. */
void find_web_dir(char out[PATH_MAX]);

#endif
