/* daemon.h: the HTTP JSON API (v1) of docs/interfaces.md and the dashboard page, on
 * libmicrohttpd. */
#ifndef IOCONTEND_DAEMON_H
#define IOCONTEND_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../analysis/analysis.h"
#include "../common/common.h"

/* How much the server does at once ([serve] keys; docs/api.md). */
struct serve_limits {
    unsigned threads;             /* threads: HTTP threads, each with its database
                                     connection (4) */
    unsigned compute_threads;     /* compute_threads: associations computed at once, at
                                     a lower priority; one more answers 503 busy (4) */
    double deadline_s;            /* deadline_s: a computed answer past it is 503
                                     deadline, its computation stopped (30) */
    size_t max_free_permutations; /* max_free_permutations: permutations or resamples
                                     above it need the admin token (999) */
    unsigned max_connections;     /* max_connections: open at once, all clients (512) */
    unsigned max_connections_per_address; /* max_connections_per_address: per IPv4
                                             address or IPv6 /64 (32); the last
                                             max_connections / 8 go only to addresses
                                             that have none */
    unsigned idle_timeout_s; /* idle_timeout_s: a connection silent this long is
                                closed (30) */
    size_t cache_bytes;      /* cache_bytes: stored answers kept in memory, bytes
                                (64 MiB) */
    double header_timeout_s; /* header_timeout_s: from the accept to the end of a
                                request's headers, in all (10); past it 408 */
};

#define SERVE_THREADS_MAX     256
#define SERVE_COMPUTE_MAX     64
#define SERVE_DEADLINE_MAX_S  86400.0
#define SERVE_CONNECTIONS_MAX 65536u
#define SERVE_RESERVE_DIVISOR 8 /* 1/8 of max_connections kept for new addresses */
#define SERVE_CACHE_BYTES_MAX (64.0 * 1024 * 1024 * 1024)

/* The defaults above. */
struct serve_limits serve_limits_default(void);

/* What the server takes from the configuration. Strings are borrowed for the run. */
struct serve_settings {
    const char *listen;      /* "ADDR:PORT" ("[v6]:PORT"; ":PORT" every IPv4 address);
                                port 0 picks a free one */
    const char *token;       /* when not "", /api needs "Authorization: Bearer TOKEN" */
    const char *admin_token; /* when not "", the bearer token that lifts
                                limits.max_free_permutations (else token does) */
    const char *cors_origin; /* when not "", the Access-Control-Allow-Origin */
    struct serve_limits limits;
    const char *db_arg;         /* --db CONNINFO, "" when not given (db_target_resolve) */
    const char *db_user;        /* the read-only role to connect as ([serve] db_user) */
    struct db_state_opts state; /* --state-dir, [database] state_dir */
    struct analysis_settings analysis; /* for associations computed on request */
    bool check_only; /* return as soon as GET /api/v1/health answered 200 */
    /* Called once the socket listens, with "ADDR:PORT" ("[v6]:PORT"): the caller
     * tells whoever waits for it (the command line prints "listening on …"). */
    void (*on_listening)(void *arg, const char *address);
    void *arg;
};

/* Splits "ADDR:PORT" ("[v6]:PORT"; ":PORT" means every IPv4 address) into host and
 * port. STATUS_INVALID naming the parameter "listen" when it is not one. */
enum status serve_listen_parse(const char *listen, char *host, size_t host_size,
                               int *port, struct error *err) MUST_CHECK;

/* The path of the server's i-th route (a row of http.c's table) as web/openapi.json
 * writes it ("{id}": a group or a job id, "{path}": a file of the page), and in
 * *operation (when not NULL) its operationId there; NULL past the last one: the
 * OpenAPI test checks that the document and the table describe the same routes. */
const char *serve_route_path(size_t i, const char **operation);

/* The kinds of a route's {id}: a group id as the database makes them (up to 16 of
 * [A-Za-z0-9_-]); a job id, the 32 hex digits of the "id" /api/v1/jobs returns (never
 * Darshan's jobid, which is not unique). */
enum serve_id_kind { SERVE_ID_NONE, SERVE_ID_GROUP, SERVE_ID_JOB };

/* Whether the len bytes at seg are an id of kind: the router's test of an {id}
 * segment; one that is not answers 404 "no such group" ("no such job"). */
bool serve_id_ok(enum serve_id_kind kind, const char *seg, size_t len);

/* Where Debian's libjs-* packages install their browser files; $IOCONTEND_JS_DIR,
 * when set, replaces it. The page loads Vega from there through /lib/{path}. */
#define SERVE_JS_DIR "/usr/share/javascript"
const char *serve_js_dir(void);

/* Opens the library file rel ("vega/vega-util.js") under serve_js_dir() for reading:
 * only a .js file directly in the folder of vega, requirejs or topojson-client, and
 * only when, links resolved, it still lies there. Returns the descriptor (the caller
 * closes it) with its size in *size, or -1 with STATUS_NOT_FOUND in err. */
int serve_js_open(const char *rel, off_t *size, struct error *err);

/* The page's folder (web/): $IOCONTEND_WEB_DIR, else the first web/ holding
 * index.html from the binary's folder upwards, else share/iocontend/web beside an
 * installed bin/; "" when none. */
void serve_web_dir_find(char out[PATH_MAX]);

/* Serves until SIGINT or SIGTERM (STATUS_OK), or with check_only until health
 * answered (STATUS_OK when it answered 200, STATUS_DB otherwise). The database may
 * be down: the server starts anyway, answers 503 and reconnects. STATUS_INVALID with
 * err->parameter "listen" for a malformed listen address; STATUS_INVALID when it
 * cannot listen there; STATUS_INTERNAL when libmicrohttpd does not start. */
enum status serve_run(const struct serve_settings *s, struct error *err) MUST_CHECK;

#endif
