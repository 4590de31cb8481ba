/* http.c: the server's life: listening, libmicrohttpd, signals, dispatching a
 * request to its route, authorization and CORS. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Retry-After of a 503 busy, in seconds: about what a computation of the default
 * size takes. */
#define RETRY_AFTER_S "5"

/* The page's: its scripts, styles and Vega's library come from this server, its
 * requests go to this server's API, nothing may frame it (it holds a token). Vega
 * compiles its expressions with Function (unsafe-eval); the page's styles are inline
 * and Vega sets style attributes (unsafe-inline for styles only). */
#define PAGE_CSP                                                                         \
    "default-src 'none'; script-src 'self' 'unsafe-eval'; style-src 'self' "             \
    "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; "       \
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/* What the client sees when even the error body cannot be built. Not const:
 * libmicrohttpd takes a void *, and it only reads the bytes. */
static char internal_body[] =
    "{\"error\":{\"status\":\"internal\",\"message\":\"internal "
    "error\"}}";

/* ---- dispatch ------------------------------------------------------------------ */

/* A route, one row: a new route is a row here, its handler (internal.h) and its
 * operation in web/openapi.json (test_openapi compares the two both ways). */
struct route {
    const char *method;     /* GET (HEAD too); another method answers 405 */
    const char *path;       /* as web/openapi.json writes it: "{id}" is one segment
                               of kind id, "{path}" the rest of the url */
    const char *file;       /* the page's file a fixed path serves, else NULL */
    route_handler *handler; /* answers req */
    const char *label;      /* in /metrics: a bounded set, never the url */
    const char *operation;  /* its operationId in web/openapi.json */
    enum serve_id_kind id;  /* the kind of "{id}" */
    bool auth;              /* the token guards it (the API, and /metrics: Prometheus
                               sends it with its scrape's authorization) */
    bool schema;            /* waits for `db migrate` (schema_ready) */
    bool page;              /* the page's CSP (PAGE_CSP) rather than the API's */
};

/* A GET row; API and PAGE are its two common shapes. */
#define ROW(path_, file_, handler_, label_, op_, id_, auth_, schema_, page_)             \
    {                                                                                    \
        .method = "GET", .path = (path_), .file = (file_), .handler = (handler_),        \
        .label = (label_), .operation = (op_), .id = (id_), .auth = (auth_),             \
        .schema = (schema_), .page = (page_)                                             \
    }
#define API(path_, id_, handler_, label_, op_, schema_)                                  \
    ROW(path_, NULL, handler_, label_, op_, id_, true, schema_, false)
#define PAGE(path_, file_, handler_, label_, op_)                                        \
    ROW(path_, file_, handler_, label_, op_, SERVE_ID_NONE, false, false, true)

/* Every route, tried in order (the first that matches answers). /api/v1/health has
 * its own daemon (the gate sends it there) and adds the schema to its answer;
 * /metrics and the page need no schema. */
static const struct route routes[] = {
    API("/api/v1/health", SERVE_ID_NONE, route_health, "health", "getHealth", false),
    API("/api/v1/jobs", SERVE_ID_NONE, route_jobs, "jobs", "listJobs", true),
    API("/api/v1/groups", SERVE_ID_NONE, route_groups, "groups", "listGroups", true),
    API("/api/v1/coverage", SERVE_ID_NONE, route_coverage, "coverage", "getCoverage",
        true),
    API("/api/v1/slowdowns", SERVE_ID_NONE, route_slowdowns, "slowdowns", "slowdowns",
        true),
    ROW("/api/v1/openapi.json", "openapi.json", route_static, "openapi", "getOpenApi",
        SERVE_ID_NONE, true, false, false),
    API("/api/v1/groups/{id}/association", SERVE_ID_GROUP, route_association,
        "association", "getAssociation", true),
    API("/api/v1/groups/{id}/predict", SERVE_ID_GROUP, route_predict, "predict",
        "predict", true),
    API("/api/v1/groups/{id}/sweep", SERVE_ID_GROUP, route_sweep, "sweep", "getSweep",
        true),
    API("/api/v1/groups/{id}/table", SERVE_ID_GROUP, route_table, "table", "getTable",
        true),
    API("/api/v1/groups/{id}/points", SERVE_ID_GROUP, route_points, "points", "getPoints",
        true),
    ROW("/metrics", NULL, route_metrics, "metrics", "getMetrics", SERVE_ID_NONE, true,
        false, false),
    PAGE("/", "index.html", route_static, "page", "getPage"),
    PAGE("/index.html", "index.html", route_static, "page", "getPageIndex"),
    PAGE("/iocontend-page.js", "iocontend-page.js", route_static, "page",
         "getPageScript"), /* the page's script, beside "/" */
    PAGE("/web/{path}", NULL, route_static, "page", "getPageFile"),
    ROW("/lib/{path}", NULL, route_lib, "lib", "getLibraryFile", SERVE_ID_NONE, false,
        false, false),
};

#define N_ROUTES (sizeof routes / sizeof routes[0])

const char *serve_route_path(size_t i, const char **operation)
{
    if (operation != NULL)
        *operation = i < N_ROUTES ? routes[i].operation : NULL;
    return i < N_ROUTES ? routes[i].path : NULL;
}

static bool job_id_ok(const char *seg, size_t len)
{
    return len == 32 && strspn(seg, "0123456789abcdef") >= len;
}

bool serve_id_ok(enum serve_id_kind kind, const char *seg, size_t len)
{
    switch (kind) {
    case SERVE_ID_GROUP: return group_id_ok(seg, len);
    case SERVE_ID_JOB: return job_id_ok(seg, len);
    case SERVE_ID_NONE: break;
    }
    return false;
}

/* The row of url, NULL when none matches. Its {id} (into id) is a->id, NULL when the
 * segment is not an id of the row's kind; a->rest the file of a page's row. */
static const struct route *route_of(const char *url, char id[33], struct route_args *a)
{
    a->id = NULL;
    a->rest = NULL;
    for (size_t i = 0; i < N_ROUTES; i++) {
        const struct route *r = &routes[i];
        const char *brace = strchr(r->path, '{');
        if (brace == NULL) {
            if (strcmp(url, r->path) != 0)
                continue;
            a->rest = r->file;
            return r;
        }
        size_t prefix = (size_t)(brace - r->path);
        if (strncmp(url, r->path, prefix) != 0)
            continue;
        const char *seg = url + prefix;
        if (r->id == SERVE_ID_NONE) { /* "{path}": the rest of the url */
            a->rest = seg;
            return r;
        }
        const char *slash = strchr(seg, '/');
        if (slash == NULL || strcmp(slash, strchr(brace, '}') + 1) != 0)
            continue;
        size_t len = (size_t)(slash - seg);
        if (serve_id_ok(r->id, seg, len)) {
            memcpy(id, seg, len);
            id[len] = '\0';
            a->id = id;
        }
        return r;
    }
    return NULL;
}

/* The API's token, or the admin token, which may do all the API's token does. */
static bool authorized(const struct server *srv, struct MHD_Connection *conn)
{
    if (srv->s->token[0] == '\0')
        return true;
    return bearer_is(conn, srv->s->token) ||
           (srv->s->admin_token[0] != '\0' && bearer_is(conn, srv->s->admin_token));
}

static void dispatch(struct server *srv, struct MHD_Connection *conn, const char *url,
                     const char *method, struct request *req)
{
    bool api = strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0;
    char id[33];
    struct route_args a = {.conn = conn};
    const struct route *r = route_of(url, id, &a);

    req->route = r != NULL ? r->label : "none";
    req->page = r != NULL && r->page;
    /* A browser asks before sending Authorization cross-origin, without it. */
    if (api && srv->s->cors_origin[0] != '\0' &&
        strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0) {
        req->code = 204;
        req->no_body = true;
        req->allow = true;
        return;
    }
    if ((api || (r != NULL && r->auth)) && !authorized(srv, conn)) {
        req->www_authenticate = true;
        answer_error_code(req, 401, "unauthorized", NULL,
                          "this server needs Authorization: Bearer <token>");
        return;
    }
    if (r == NULL) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no route %s %.200s", method, url);
        return;
    }
    if (strcmp(method, r->method) != 0 && !(strcmp(r->method, MHD_HTTP_METHOD_GET) == 0 &&
                                            strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)) {
        req->allow = true;
        answer_error_code(req, 405, "method_not_allowed", NULL,
                          "%s is not allowed on %.200s", method, url);
        return;
    }
    if (r->schema && !schema_ready(srv, req))
        return;
    r->handler(srv, req, &a);
}

static enum MHD_Result send_answer(const struct server *srv, struct MHD_Connection *conn,
                                   const char *method, const char *url,
                                   struct request *req)
{
    struct MHD_Response *resp = NULL;
    /* A text answer is JSON unless its route said otherwise (CSV). */
    const char *type = req->content_type != NULL && req->file_fd < 0 ? req->content_type
                                                                     : JSON_CONTENT_TYPE;
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
            req->text = json_dumps(req->json, ANSWER_JSON_FLAGS);
        if (req->text == NULL)
            req->code = 500;
        char *body = req->text != NULL ? req->text : internal_body;
        /* PERSISTENT: req owns body until the request-completed callback. */
        size_t len =
            req->text != NULL && req->text_len > 0 ? req->text_len : strlen(body);
        resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
    }
    if (resp == NULL)
        return MHD_NO;
    if (!req->no_body)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Content-Security-Policy",
                            req->page ? PAGE_CSP
                                      : "default-src 'none'; frame-ancestors 'none'");
    /* One request per connection: the next one passes the gate again (gate.c), which
     * alone checks a request's framing and its headers' deadline. */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    /* API answers change with every ingest: a cached one may be kept if asked
     * again with its ETag. */
    if (!file) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
                                req->etag[0] != '\0' ? "no-cache" : "no-store");
    }
    if (req->etag[0] != '\0')
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, req->etag);
    if (req->next_cursor[0] != '\0')
        MHD_add_response_header(resp, "X-Next-Cursor", req->next_cursor);
    if (req->gzip)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    if (srv->s->cors_origin[0] != '\0') {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN,
                                srv->s->cors_origin);
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", "X-Next-Cursor");
    }
    if (req->vary_encoding || srv->s->cors_origin[0] != '\0') {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY,
                                !req->vary_encoding ? "Origin"
                                : srv->s->cors_origin[0] != '\0'
                                    ? "Origin, Accept-Encoding"
                                    : "Accept-Encoding");
    }
    if (req->allow) {
        const char *methods =
            srv->s->cors_origin[0] != '\0' ? "GET, HEAD, OPTIONS" : "GET, HEAD";
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, methods);
        if (req->code == 204) {
            MHD_add_response_header(resp, "Access-Control-Allow-Methods", methods);
            MHD_add_response_header(resp, "Access-Control-Allow-Headers",
                                    "Authorization");
            MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
        }
    }
    if (req->retry_after)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, RETRY_AFTER_S);
    if (req->www_authenticate) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Bearer realm=\"iocontend\"");
    }
    /* Counted before the answer can reach the client. */
    metrics_request_done(req->route, req->code, monotonic_s() - req->started_s);
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
        req->started_s = monotonic_s(); /* a computation's deadline counts from here */
        *con_cls = req;
        /* Answered now, with the headers: no route takes a body, so none is waited
         * for (a POST declaring 10 MB and sending nothing gets its 405 at once). */
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
    if (req->job != NULL) { /* resumed: the compute pool answered */
        if (req->job->cache_key[0] != '\0')
            cache_keep(srv, conn, req, req->job->cache_key, req->job->version);
        return send_answer(srv, conn, method, url, req);
    }
    dispatch(srv, conn, url, method, req);
    if (req->job != NULL) /* suspended until the compute pool answers */
        return MHD_YES;
    return send_answer(srv, conn, method, url, req);
}

/* libmicrohttpd's connections count against the gate's limits while they live. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct server *srv = cls;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = info != NULL ? info->client_addr : NULL;

    metrics_connection(NULL, conn, socket_context, toe);
    if (srv->gate == NULL)
        return;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        gate_connection_started(srv->gate, sa);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        gate_connection_closed(srv->gate, sa);
    }
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

enum status serve_listen_parse(const char *listen, char *host, size_t host_size,
                               int *port, struct error *err)
{
    const char *colon = strrchr(listen, ':');
    const char *h = listen;
    size_t h_len;

    if (colon == NULL) {
        return error_param(err, STATUS_INVALID, "listen", "listen %s: expected ADDR:PORT",
                           listen);
    }
    h_len = (size_t)(colon - listen);
    if (listen[0] == '[') {
        if (h_len < 2 || colon[-1] != ']') {
            return error_param(err, STATUS_INVALID, "listen",
                               "listen %s: expected [ADDR]:PORT", listen);
        }
        h++;
        h_len -= 2;
    }
    size_t p_len = strlen(colon + 1);
    long p = strtol(colon + 1, NULL, 10);
    if (p_len == 0 || p_len > 5 || strspn(colon + 1, "0123456789") != p_len ||
        p > 65535) {
        return error_param(err, STATUS_INVALID, "listen",
                           "listen %s: port must be 0 to 65535", listen);
    }
    if (h_len == 0) {
        h = "0.0.0.0";
        h_len = 7;
    }
    if (h_len >= host_size) {
        return error_param(err, STATUS_INVALID, "listen", "listen %s: address too long",
                           listen);
    }
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
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0 &&
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0) { /* the gate's */
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

/* Asks the running server for /api/v1/health over a real socket, as a client would. */
static bool health_answers(const struct serve_settings *s, const char *bound, int port)
{
    char auth[200] = "";
    char *body = NULL;
    int status = 0;
    /* A wildcard address is reached through loopback. */
    const char *host = strcmp(bound, "0.0.0.0") == 0 ? "127.0.0.1"
                       : strcmp(bound, "::") == 0    ? "::1"
                                                     : bound;

    if (s->token[0] != '\0')
        snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", s->token);
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

struct serve_limits serve_limits_default(void)
{
    return (struct serve_limits){.threads = 4,
                                 .compute_threads = 4,
                                 .deadline_s = 30,
                                 .max_free_permutations = 999,
                                 .max_connections = 512,
                                 .max_connections_per_address = 32,
                                 .idle_timeout_s = 30,
                                 .header_timeout_s = 10,
                                 .cache_bytes = (size_t)64 << 20};
}

/* The database of the first connection: the embedded cluster is started when it is
 * down, never migrated; every connection is made as the read-only role. */
static void connect_first(struct server *srv, const struct serve_settings *s)
{
    struct error db_err = {0};
    char detail[512];
    struct db *db = NULL;
    enum status rc;

    /* The page and the errors do not need the database; a daemon that starts while
     * PostgreSQL is down answers 503 on health and reconnects when it returns. */
    rc = db_target_resolve(s->db_arg[0] != '\0' ? s->db_arg : NULL, &s->state,
                           &srv->target, &db_err);
    srv->target_ok = rc == STATUS_OK;
    snprintf(srv->target.user, sizeof srv->target.user, "%s",
             s->db_user != NULL && s->db_user[0] != '\0' ? s->db_user : DB_READER_ROLE);
    /* A cluster that answers is used as it is: the service's user (the read-only
     * role) may not look into a state directory that root owns. Only one that does
     * not answer is started; starting fills the socket directory (the mkdtemp
     * fallback for a long state directory) in the target that reconnections use. */
    if (rc == STATUS_OK && db_open(&srv->target, &db, &db_err) != STATUS_OK) {
        db = NULL;
        if (srv->target.embedded && !db_embedded_running(&srv->target)) {
            error_clear(&db_err);
            rc = db_embedded_start(&srv->target, &db_err);
            if (rc == STATUS_OK && db_open(&srv->target, &db, &db_err) != STATUS_OK)
                db = NULL;
        }
    }
    if (db == NULL) {
        error_format(&db_err, detail, sizeof detail);
        log_warn("database unavailable (%s); serving anyway, health answers 503", detail);
    }
    srv->slots[0].db = db;
    srv->slots[0].opened = db != NULL;
}

enum status serve_run(const struct serve_settings *s, struct error *err)
{
    static struct server srv = {.db_lock = PTHREAD_MUTEX_INITIALIZER,
                                .db_free = PTHREAD_COND_INITIALIZER,
                                .schema_lock = PTHREAD_MUTEX_INITIALIZER};
    const struct serve_limits *lim = &s->limits;
    char host[256], bound[NI_MAXHOST], address[NI_MAXHOST + 16];
    int port = 0, bound_port = 0, fd = -1, family = AF_INET, sig = 0;
    sigset_t stop_signals, old_mask;
    struct MHD_Daemon *daemon = NULL, *health = NULL;
    enum status rc;

    srv.s = s;
    srv.compute = NULL;
    srv.gate = NULL;
    atomic_store(&srv.stopping, false);
    metrics_started();
    atomic_store(&srv.schema_version, -1);
    srv.schema_read_s = 0;
    rc = serve_listen_parse(s->listen, host, sizeof host, &port, err);
    if (rc != STATUS_OK)
        return rc;
    if (lim->threads == 0 || lim->compute_threads == 0 || !(lim->deadline_s > 0) ||
        lim->max_connections_per_address == 0 || lim->idle_timeout_s == 0 ||
        !(lim->header_timeout_s > 0)) {
        return error_set(err, STATUS_INVALID,
                         "serve: threads, compute_threads, deadline_s, "
                         "max_connections_per_address, idle_timeout_s and "
                         "header_timeout_s must be > 0");
    }
    serve_web_dir_find(srv.web_dir);
    /* One connection for each HTTP thread and each computing thread: no route waits
     * for another's. */
    if (!db_pool_init(&srv, (size_t)lim->threads + lim->compute_threads))
        return error_set(err, STATUS_NOMEM, "database connection pool");
    connect_first(&srv, s);

    rc = open_listener(host, port, &fd, &family, bound, sizeof bound, &bound_port, err);
    if (rc != STATUS_OK)
        goto out;
    /* Block the stop signals (and SIGPIPE, which sendfile to a closed client would
     * raise) before libmicrohttpd and the pool make their threads, which inherit the
     * mask: the signals then wait for sigwait below instead of interrupting a
     * request. */
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigset_t blocked = stop_signals;
    sigaddset(&blocked, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &blocked, &old_mask);
    srv.compute = compute_pool_new(lim->compute_threads);
    if (srv.compute == NULL || !cache_start(&srv, lim->cache_bytes)) {
        close(fd);
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        compute_pool_stop(srv.compute);
        rc = error_set(err, STATUS_INTERNAL, "cannot start %u computing threads",
                       lim->compute_threads);
        goto out;
    }
    /* libmicrohttpd shares the connection limit among its HTTP threads: each needs one.
     * The gate enforces the limits (gate.c); libmicrohttpd's own are a backstop
     * above them, since a connection handed on is counted by both for a moment.
     * Neither daemon listens: the gate hands them the connections it checked. */
    const unsigned max_connections =
        lim->max_connections > lim->threads ? lim->max_connections : lim->threads;
    const unsigned mhd_flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
                               MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET |
                               MHD_USE_ITC | (family == AF_INET6 ? MHD_USE_IPv6 : 0);
    daemon = MHD_start_daemon(
        mhd_flags | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, on_request, &srv,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, &srv, MHD_OPTION_NOTIFY_CONNECTION, on_connection, &srv,
        MHD_OPTION_THREAD_POOL_SIZE, lim->threads, MHD_OPTION_CONNECTION_LIMIT,
        max_connections + lim->threads, MHD_OPTION_CONNECTION_TIMEOUT,
        lim->idle_timeout_s, MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
    /* /health on a thread of its own: never queued behind an HTTP thread's slow work. */
    health = daemon == NULL
                 ? NULL
                 : MHD_start_daemon(mhd_flags, 0, NULL, NULL, on_request, &srv,
                                    MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
                                    MHD_OPTION_NOTIFY_COMPLETED, on_completed, &srv,
                                    MHD_OPTION_NOTIFY_CONNECTION, on_connection, &srv,
                                    MHD_OPTION_CONNECTION_LIMIT, max_connections,
                                    MHD_OPTION_CONNECTION_TIMEOUT, lim->idle_timeout_s,
                                    MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
    const struct gate_opts gopts = {.max_connections = max_connections,
                                    .max_connections_per_address =
                                        lim->max_connections_per_address,
                                    .reserve = max_connections / SERVE_RESERVE_DIVISOR,
                                    .header_timeout_s = lim->header_timeout_s,
                                    .main = daemon,
                                    .health = health};
    if (health == NULL || gate_start(fd, &gopts, &srv.gate, err) != STATUS_OK) {
        close(fd); /* the gate closes it only once it started */
        compute_pool_stop(srv.compute);
        if (health != NULL)
            MHD_stop_daemon(health);
        if (daemon != NULL)
            MHD_stop_daemon(daemon);
        daemon = NULL;
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        if (health != NULL) { /* else err says it already */
            rc = STATUS_INTERNAL;
        } else {
            rc = error_set(err, STATUS_INTERNAL, "cannot start the HTTP server on %s:%d",
                           bound, bound_port);
        }
        goto out;
    }
    snprintf(address, sizeof address, family == AF_INET6 ? "[%s]:%d" : "%s:%d", bound,
             bound_port);
    if (s->on_listening != NULL)
        s->on_listening(s->arg, address);
    log_info("serving the API on %s:%d (%u HTTP threads, %u computing); page: %s", bound,
             bound_port, lim->threads, lim->compute_threads,
             srv.web_dir[0] != '\0' ? srv.web_dir : "none found");

    if (s->check_only) {
        if (!health_answers(s, bound, bound_port))
            rc = error_set(err, STATUS_DB, "GET /api/v1/health did not answer 200");
    } else {
        while (sigwait(&stop_signals, &sig) != 0)
            continue;
        log_info("received %s, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    /* No new connection; then the computations, their queries cancelled:
     * libmicrohttpd must find no connection suspended. */
    gate_stop(srv.gate);
    atomic_store(&srv.stopping, true);
    pthread_mutex_lock(&srv.db_lock); /* those waiting for a connection give up */
    pthread_cond_broadcast(&srv.db_free);
    pthread_mutex_unlock(&srv.db_lock);
    compute_pool_stop(srv.compute);
    db_pool_cancel(&srv); /* what the HTTP threads run: they take no new connection */
    MHD_stop_daemon(health);
    MHD_stop_daemon(daemon); /* waits for the requests in progress */
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    log_info("HTTP server stopped");
out:
    gate_free(srv.gate);
    srv.gate = NULL;
    cache_stop(&srv);
    compute_pool_free(srv.compute);
    srv.compute = NULL;
    db_pool_close(&srv);
    return rc;
}
