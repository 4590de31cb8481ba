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
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#define JSON_CONTENT_TYPE "application/json; charset=utf-8"
/* 15 significant digits print 0.55 as 0.55 (17 would print 0.55000000000000004);
 * no measured quantity here carries more. */
#define ANSWER_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* Threading and the database. libmicrohttpd runs its callbacks on a pool of
 * limits.threads HTTP threads (MHD_OPTION_THREAD_POOL_SIZE), each connection on one of
 * them. A route borrows one database connection from a pool of threads +
 * compute_threads of them (pool_acquire), so that no HTTP thread waits for another's
 * query; each reconnects when it was lost. What takes long, an association computed on
 * request, never runs on an HTTP thread: the route hands it to the compute pool
 * (compute.c: compute_threads threads at a lower priority) and suspends the
 * connection (MHD_ALLOW_SUSPEND_RESUME), the pool answers and resumes it, and the
 * HTTP thread goes on serving /health, stored answers and the page meanwhile. The pool
 * takes no more than it has threads (else 503 busy, Retry-After); a watcher thread
 * sets a job's cancel flag at its deadline and when its client's socket closes
 * (libmicrohttpd does not watch a suspended connection), and stats/'s loops stop
 * on it; /jobs and /coverage go there too. Connections are accepted by the gate
 * (gate.c), which bounds them overall and per client address and hands a
 * connection to libmicrohttpd only once its request's headers are in, so that
 * no slow client holds an HTTP thread's slot; /health goes to a daemon of its own. */

/* One database connection of the pool. */
struct db_slot {
    struct db *db; /* NULL until first used, and after it was lost */
    bool busy;     /* lent to a route */
    bool opened;   /* was open once: a new connection is then a reconnection */
    bool limited;  /* its statement_timeout is set (db_statement_timeout_set) */
};

struct compute_pool;
struct answer_cache;

struct server {
    const struct serve_settings *s; /* borrowed from serve_run's caller */
    pthread_mutex_t db_lock;        /* guards slots */
    pthread_cond_t db_free;         /* a slot was given back */
    struct db_slot *slots;          /* n_slots connections */
    size_t n_slots;
    bool target_ok; /* target resolved, so reconnecting is possible */
    /* The schema: serve never migrates, so the data routes wait for `db migrate`. */
    atomic_int schema_version;    /* the database's as last read, -1 until read */
    pthread_mutex_t schema_lock;  /* one reader of it at a time (trylock) */
    double schema_read_s;         /* when it was last read, CLOCK_MONOTONIC (lock) */
    struct db_target target;      /* where to reconnect, without starting a cluster */
    char web_dir[PATH_MAX];       /* the page's folder, "" when none was found */
    struct compute_pool *compute; /* the computed answers' threads */
    struct answer_cache *cache;   /* stored answers and the health snapshot */
    struct gate *gate;            /* accepts and checks every connection */
    atomic_bool stopping;         /* SIGTERM came: running queries are cancelled */
};

/* An answer computed on request (an association, /predict, /slowdowns), as the
 * compute pool runs it: made by the route, owned by its request (freed with it,
 * after the pool resumed the connection). */
struct compute_task {
    void (*run)(struct compute_task *job); /* computes and answers req */
    struct server *srv;
    struct MHD_Connection *conn; /* suspended while the pool has the job */
    struct request *req;         /* where run answers */
    int fd;                      /* the client's socket, watched for its closing */
    double deadline_s;           /* CLOCK_MONOTONIC seconds */
    atomic_bool cancel;          /* set by the watcher: stats/ stops */
    atomic_int why;              /* enum job_stop: why cancel was set */
    bool started;                /* a thread took it (pool lock) */
    /* What to compute: */
    char group_id[17];
    char y[64], x[64], scope[128], space[16];
    double granularity_s; /* 0: the base Δ */
    bool granularity_given;
    struct assoc_opts opts; /* opts.space and opts.cancel point into this job */
    double x_value;         /* /predict: where */
    double from_s, to_s;    /* /slowdowns: the period, NAN when open */
    char group_arg[200];    /* /slowdowns, /jobs: the group parameter, "" when absent */
    size_t limit;           /* /slowdowns: jobs listed of each kind; /points: most shown;
                               /jobs: the page's rows; /coverage: points (0: none) */
    char cursor[80];        /* /jobs: where the page starts, "" for the first */
    bool csv;               /* /jobs: CSV rather than JSON */
    bool scope_given;       /* /jobs: scope was asked (else none) */
    char fs[80];            /* /coverage: the fs parameter as given, "" when absent */
    char fs_scope[80];      /* /coverage: its scope ("fs:NAME", "all") */
    unsigned long seed;     /* /points: the sample's */
    /* When not "": the answer is kept in the cache under this key at version (read
     * before it was computed) once the pool has answered (http.c). */
    char cache_key[400];
    long long version;
};

enum job_stop { JOB_RUNNING = 0, JOB_DEADLINE, JOB_GONE, JOB_SHUTDOWN, JOB_DONE };

/* One request's answer. Made on libmicrohttpd's first callback, freed in the
 * request-completed callback: it owns everything the request allocates, including
 * the serialized body libmicrohttpd reads until the answer is sent. */
struct request {
    unsigned code;            /* HTTP status */
    json_t *json;             /* the body before serialization, or NULL */
    char *text;               /* the serialized body (MHD_RESPMEM_PERSISTENT) */
    size_t text_len;          /* its length when gzip (binary), else 0: strlen */
    bool gzip;                /* text is gzip'd: Content-Encoding: gzip */
    char etag[24];            /* a cached answer's quoted ETag, "" when none */
    bool vary_encoding;       /* the answer depends on Accept-Encoding */
    int file_fd;              /* a static file to send, -1 when none */
    off_t file_size;          /* its size in bytes */
    const char *content_type; /* of the static file or of text (a literal); NULL:
                                 text is JSON */
    char next_cursor[80];     /* /jobs: the next page's cursor, "" when none */
    bool no_body;             /* 204 answers */
    bool www_authenticate;    /* 401: ask for a bearer token */
    bool allow;               /* 405 and preflight: say which methods exist */
    bool retry_after;         /* 503 busy: say when to come back */
    bool queued;              /* the answer went to libmicrohttpd */
    double started_s;         /* CLOCK_MONOTONIC at the first callback */
    const char *route;        /* the route's label in /metrics (a literal) */
    bool page;                /* a page's route: the page's CSP */
    struct compute_task *job; /* owned; not NULL once handed to the compute pool */
};

/* ---- answers (answer.c) ------------------------------------------------------------ */

/* Seconds on CLOCK_MONOTONIC. */
double monotonic_s(void);

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
/* The 400 (parameter "group") of a group parameter that names no group (err's
 * message), or several: m's candidates listed as error.candidates, [{"id","name",
 * "jobs"}] as /groups lists them. */
void answer_group_refused(struct request *req, const struct group_match *m,
                          const struct error *err);
void answer_failure(struct request *req, enum status rc, const struct error *err,
                    const char *what, const char *parameter);
/* Answers a stored JSON text (taken) that a read returned with rc: the failure
 * (answer_failure) unless rc is STATUS_OK; 500 when the text does not parse
 * (logged). */
void answer_stored(struct request *req, enum status rc, char *text,
                   const struct error *err, const char *what, const char *group_id);
void request_free(struct request *req);

/* ---- the database connections (db_pool.c) ------------------------------------------ */

/* n connections, none open yet; false without memory. */
bool db_pool_init(struct server *srv, size_t n);
/* Closes every connection; none may be lent. */
void db_pool_close(struct server *srv);
/* A connection of the pool, lent to the caller until pool_release, reconnecting first
 * when it was lost (waits while all are lent); NULL (err says why) when the
 * database is unreachable. */
struct db *pool_acquire(struct server *srv, struct error *err);
/* Cancels the query each lent connection runs (PQcancel): on stop. */
void db_pool_cancel(struct server *srv);
/* Gives db back; after STATUS_DB it may be dead, so it is dropped and the next
 * borrower reconnects rather than failing forever on a broken socket. */
void pool_release(struct server *srv, struct db *db, enum status rc);

/* ---- the schema (schema.c) --------------------------------------------------------- */

/* Adds to a 200 /health answer in req the "schema" object of the "schema_version" it
 * reports: {"version", "expected" (this binary's latest), "behind"}; that version
 * also becomes srv's last read one. Other answers are left alone. */
void schema_health_add(struct server *srv, struct request *req);
/* true when the data routes may answer: the schema is not known to be behind this
 * binary's migrations (an unreachable database is the route's own 503). While it is
 * behind (or not read yet) it is read again, at most once a second, so that
 * `db migrate` is noticed without a restart; once current it stays so. Else answers
 * 503 schema_behind naming both versions and `db migrate`. */
bool schema_ready(struct server *srv, struct request *req);

/* ---- the compute pool (compute.c) -------------------------------------------------- */

/* n threads at a lower priority and the watcher; NULL when they cannot start. */
struct compute_pool *compute_pool_new(unsigned n);
/* Takes job unless every thread has one already (false: job untouched, answer 503
 * busy) or the pool stops. Suspends job->conn before a thread can see the job; the
 * thread runs job->run, answers 503 deadline in its place when the deadline
 * cancelled it, and resumes the connection. */
bool compute_submit(struct compute_pool *p, struct compute_task *job);
/* Cancels every job (JOB_SHUTDOWN), waits until each resumed its connection and
 * joins the threads; compute_submit refuses from then on. Before MHD_stop_daemon,
 * which must find no connection suspended. */
void compute_pool_stop(struct compute_pool *p);
/* After compute_pool_stop and MHD_stop_daemon; NULL is fine. */
void compute_pool_free(struct compute_pool *p);

/* ---- stored answers in memory and the health snapshot (cache.c) ------------------- */

/* Stored answers (association, sweep, table, coverage) are kept in memory under a key
 * naming the route and what it was asked, with the data version read before the
 * answer was; they are served while the version is the same. A thread reads the
 * version (migration 0014: one row, moved by every commit that writes data) and,
 * when it moved, what /health says, once a second on its own connection; so a hit
 * touches no table and /health counts nothing. */

/* Starts the poller after one read; at most max_bytes kept (LRU). false when the
 * thread cannot start. */
bool cache_start(struct server *srv, size_t max_bytes);
/* Stops the poller and frees everything; before db_pool_close. */
void cache_stop(struct server *srv);
/* The data version, read at most VERSION_TRUST_S ago; 0 when unknown (nothing is
 * then served from or kept in the cache). Read it before reading an answer. */
long long cache_version(struct server *srv);
/* Answers req from the answer kept under key at version: 200 with its ETag (gzip
 * when the client accepts it) or 304 when If-None-Match names it. false on a miss. */
bool cache_serve(struct server *srv, struct MHD_Connection *conn, struct request *req,
                 const char *key, long long version);
/* Keeps req's answer, when it is a 200, under key at version (read before the answer
 * was), then answers req from it as cache_serve would. */
void cache_keep(struct server *srv, struct MHD_Connection *conn, struct request *req,
                const char *key, long long version);
/* The last health read and its age in seconds (-1 never read); false when the
 * database was unreachable at the last read. */
bool cache_health(struct server *srv, struct db_health *out, double *age_s);

/* The snapshot of db_telemetry the poller read with health (at most a second old);
 * false when it has none (the database unreachable, or its schema before
 * DB_TELEMETRY_SCHEMA). */
bool cache_metrics(struct server *srv, struct db_telemetry *out);

/* ---- the connection gate (gate.c) -------------------------------------------------- */

/* What a request's head may hold (docs/api.md: limits): more is 431. */
#define GATE_HEADERS_MAX       16384 /* bytes of the request line and headers */
#define GATE_HEADERS_COUNT_MAX 64    /* header fields */
#define GATE_QUERY_PARAMS_MAX  64    /* query parameters */

/* Sent with every answer, the gate's included: no framing of the page (it holds a
 * token), no guessing of types. The page's own CSP is PAGE_CSP (http.c). */
#define SECURITY_HEADERS_RAW                                                             \
    "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n"                       \
    "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"

struct gate_opts {
    unsigned max_connections;             /* open at once, all addresses */
    unsigned max_connections_per_address; /* per IPv4 address or IPv6 /64 */
    unsigned reserve;          /* the last ones only for addresses that have none */
    double header_timeout_s;   /* from the accept to the end of the headers, in all */
    struct MHD_Daemon *main;   /* where a checked request goes */
    struct MHD_Daemon *health; /* where GET /api/v1/health goes (NULL: main) */
};

enum gate_verdict { GATE_WAIT, GATE_REFUSE, GATE_PASS };

struct gate;

/* Accepts on listen_fd (non-blocking; taken: gate_stop closes it) on a thread of its
 * own. *out is the gate before its thread starts, so that libmicrohttpd's threads,
 * which count the connections it hands on, never see it unset; NULL (err says why,
 * listen_fd not taken) when it cannot start. */
enum status gate_start(int listen_fd, const struct gate_opts *o, struct gate **out,
                       struct error *err) MUST_CHECK;
/* Stops accepting and closes the connections still waiting for their headers. */
void gate_stop(struct gate *g);
/* After gate_stop and MHD_stop_daemon; NULL is fine. */
void gate_free(struct gate *g);
/* libmicrohttpd's MHD_CONNECTION_NOTIFY_STARTED and _CLOSED: its connections count
 * against the limits too. */
bool gate_connection_started(struct gate *g, const struct sockaddr *sa);
void gate_connection_closed(struct gate *g, const struct sockaddr *sa);
/* The key connections are counted under: an IPv4 address (as ::ffff:a.b.c.d), an
 * IPv6 address's /64. */
void gate_address_key(const struct sockaddr *sa, unsigned char key[16]);
/* The first len bytes a client sent: GATE_WAIT while the headers are not all in and
 * nothing is wrong yet, GATE_REFUSE with the status (400, 431) and why, GATE_PASS
 * with *health when it asks for /api/v1/health. */
enum gate_verdict gate_check(const char *buf, size_t len, unsigned *code,
                             const char **why, bool *health);

/* ---- Prometheus metrics (exposition.c) --------------------------------------------- */

/* What the compute pool counts. */
enum metrics_compute {
    METRICS_COMPUTE_STARTED,  /* a thread took a job */
    METRICS_COMPUTE_FINISHED, /* … and answered it */
    METRICS_COMPUTE_REFUSED,  /* 503 busy */
    METRICS_COMPUTE_DEADLINE, /* stopped at the deadline */
    METRICS_COMPUTE_GONE,     /* stopped: the client left */
    METRICS_COMPUTE_SHUTDOWN, /* stopped: the server stops */
    METRICS_COMPUTE_COUNT
};

/* The counters are process-wide atomics, updated without a lock. */
/* Marks the start of serving (process_start_time_seconds). */
void metrics_started(void);
/* One answer queued: route is its label (a literal; NULL: "none"), seconds since its
 * headers came. */
void metrics_request_done(const char *route, unsigned code, double seconds);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION: connections open and accepted. */
void metrics_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe);
void metrics_compute(enum metrics_compute what);
/* A connection the gate answered itself with code (400, 408, 431, 503). */
void metrics_gate(unsigned code);

/* ---- query parameters and the bearer token (answer.c) ------------------------------ */

/* The value of query parameter name; an empty value counts as absent (forms send
 * "&group=" for "any"). */
const char *query(struct MHD_Connection *conn, const char *name);
/* from and to (RFC 3339 or epoch ms; NAN when absent), to after from; false when
 * answered (400 naming the parameter). */
bool query_range(struct MHD_Connection *conn, struct request *req, double *from_s,
                 double *to_s);
/* An integer of the query in [lo, hi] into *out (unchanged when absent); false when
 * answered 400 naming it. */
bool query_integer(struct MHD_Connection *conn, struct request *req, const char *name,
                   unsigned long lo, unsigned long hi, unsigned long *out);
/* A group id as the database makes them: up to 16 of [A-Za-z0-9_-]. */
bool group_id_ok(const char *id, size_t len);

/* Whether the request's Authorization is "Bearer secret" (compared in constant
 * time). */
bool bearer_is(struct MHD_Connection *conn, const char *secret);

/* ---- routes (routes.c, static.c) --------------------------------------------------- */

/* Adds to req's 404 the granularities stored for (group, y, x) (routes.c). */
/* A job for the compute pool over scope (copied into it); NULL when answered (400 for
 * a bad scope, naming it; no memory), what naming the route in the log. */
struct compute_task *compute_task_new(struct request *req, const char *scope,
                                      const char *what);
/* Hands job (calloc'd, its parameters filled; taken) to the compute pool to be
 * answered by run, and suspends the connection; 503 busy when every computing thread
 * has one already. */
void compute_task_submit(struct server *srv, struct MHD_Connection *conn,
                         struct request *req, struct compute_task *job,
                         void (*run)(struct compute_task *job));
/* granularity of the query in seconds into *out (unchanged when absent); false when
 * answered (400). */
bool query_granularity(struct MHD_Connection *conn, struct request *req, double *out);
/* y and x of a pair route (default t_d, psi_d_read); false when answered (400 naming
 * an unknown metric). */
bool metric_pair(struct MHD_Connection *conn, struct request *req, const char **y,
                 const char **x);
void add_stored_granularities(struct request *req, struct db *db, const char *group_id,
                              const char *y, const char *x);

/* ---- routes: one row each in http.c's table, one handler signature ---------------- */

/* What the router parsed out of a request for its route's handler. */
struct route_args {
    struct MHD_Connection *conn; /* the query parameters, suspending */
    /* The {id} segment when it is one of the row's kind (a group id, a job id),
     * NUL-terminated; NULL when the segment cannot be one (the handler answers 404,
     * answer_no_such) or the route has no {id}. */
    const char *id;
    /* A page's file: the rest of the url for "{path}", the row's file otherwise. */
    const char *rest;
};

typedef void route_handler(struct server *srv, struct request *req,
                           const struct route_args *a);

/* The handlers, in the order of the table (docs/api.md). routes.c: */
route_handler route_health, route_jobs, route_groups, route_association, route_sweep,
    route_table, route_coverage;
/* slowdowns.c: /groups/{id}/predict and /slowdowns (docs/operations.md "Who got hurt");
 * scatter.c: /groups/{id}/points; exposition.c: GET /metrics, the text exposition
 * (docs/api.md "Metrics"); static.c: the page's files (rest under its folder,
 * percent-decoded) and a JavaScript library's under serve_js_dir() (serve_js_open). */
route_handler route_predict, route_slowdowns, route_points, route_metrics, route_static,
    route_lib;

/* The 404 of an {id} segment that is not an id of kind noun ("group", "job"), the
 * same whatever the route: {"error":{"status":"not_found","message":"no such
 * group"}}. */
void answer_no_such(struct request *req, const char *noun);

#endif
