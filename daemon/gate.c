/* gate.c: the door in front of libmicrohttpd. One thread accepts every connection,
 * counts them per client address, holds each until its request's headers are all in
 * (within header_timeout_s in all, however slowly they trickle), checks their framing
 * strictly on the raw bytes, and only then hands the socket to libmicrohttpd, whose
 * parser never sees a request we refused.
 *
 * Why not libmicrohttpd's own limits: in 0.9.75 its connection timeout restarts at
 * every byte (a header line every few seconds holds a connection for ever), its
 * per-address limit cannot keep slots for addresses that have none, IPv6 clients
 * count per address (a /64 holds 2^64 of them), and its parser accepts bare LF line
 * ends, obs-fold, a space before the colon and a NUL in a header (request smuggling
 * behind a proxy). The bytes are only peeked (MSG_PEEK): libmicrohttpd reads them
 * again from the socket. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* How often the deadlines are looked at: a request's headers are cut within
 * header_timeout_s plus this. */
#define GATE_TICK_MS 100

struct group {
    unsigned char key[16]; /* the address, IPv4 as ::ffff:a.b.c.d, IPv6 its /64 */
    unsigned count;        /* connections open, 0: the entry is free */
};

/* A connection whose headers are not all in yet. */
struct pending {
    int fd;
    size_t at; /* index in gate.pending */
    double since_s;
    unsigned char key[16];
    struct sockaddr_storage addr;
    socklen_t addr_len;
};

struct gate {
    struct gate_opts o;
    pthread_mutex_t lock; /* guards groups and open */
    /* 2 * o.max_connections entries: libmicrohttpd's connections are counted past the
     * limits for a moment after the gate handed them on. */
    struct group *groups;
    unsigned open; /* connections counted, pending and in libmicrohttpd */
    struct pending **pending;
    size_t n_pending;
    int listen_fd, epoll_fd, stop_fd;
    int spare_fd;    /* /dev/null, given up to accept when out of descriptors */
    double warned_s; /* when running out of them was last logged */
    pthread_t thread;
    char buf[GATE_HEADERS_MAX + 1]; /* the gate thread's peek buffer */
};

/* ---- counting per address --------------------------------------------------------- */

void gate_address_key(const struct sockaddr *sa, unsigned char key[16])
{
    static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    memset(key, 0, 16);
    if (sa == NULL)
        return;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        memcpy(key, v4mapped, 12);
        memcpy(key + 12, &in->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        memcpy(key, &in6->sin6_addr, 16);
        /* One host (or one tenant) owns a whole /64: its clients count as one. An
         * IPv4 client on a dual-stack socket keeps its 32 bits. */
        if (memcmp(key, v4mapped, 12) != 0)
            memset(key + 8, 0, 8);
    }
}

/* The entry of key, or a free one to take it when add; NULL when none. Under lock. */
static struct group *group_find(struct gate *g, const unsigned char key[16], bool add)
{
    struct group *free_entry = NULL;

    for (size_t i = 0; i < 2 * (size_t)g->o.max_connections; i++) {
        struct group *e = &g->groups[i];
        if (e->count == 0) {
            if (free_entry == NULL)
                free_entry = e;
            continue;
        }
        if (memcmp(e->key, key, 16) == 0)
            return e;
    }
    if (add && free_entry != NULL)
        memcpy(free_entry->key, key, 16);
    return add ? free_entry : NULL;
}

/* Whether a new connection from key may open, counting it when it may. The last
 * o.reserve slots go only to addresses that have no connection yet, one each: the
 * addresses that took the others cannot take those. */
static bool admit(struct gate *g, const unsigned char key[16], const char **why)
{
    bool ok = false;

    pthread_mutex_lock(&g->lock);
    struct group *e = group_find(g, key, true);
    const unsigned have = e != NULL ? e->count : 0;
    const unsigned left =
        g->open < g->o.max_connections ? g->o.max_connections - g->open : 0;
    if (e == NULL || left == 0) {
        *why = "the server has as many connections as it takes";
    } else if (have >= g->o.max_connections_per_address) {
        *why = "this address has as many connections as one address may";
    } else if (have > 0 && left <= g->o.reserve) {
        *why = "the last connections are kept for other addresses";
    } else {
        e->count++;
        g->open++;
        ok = true;
    }
    pthread_mutex_unlock(&g->lock);
    return ok;
}

static void release_key(struct gate *g, const unsigned char key[16])
{
    pthread_mutex_lock(&g->lock);
    struct group *e = group_find(g, key, false);
    if (e != NULL) {
        e->count--;
        g->open--;
    }
    pthread_mutex_unlock(&g->lock);
}

bool gate_connection_started(struct gate *g, const struct sockaddr *sa)
{
    unsigned char key[16];

    gate_address_key(sa, key);
    pthread_mutex_lock(&g->lock);
    /* Counted past the limits: the gate admitted it already. */
    struct group *e = group_find(g, key, true);
    if (e != NULL) {
        e->count++;
        g->open++;
    }
    pthread_mutex_unlock(&g->lock);
    return e != NULL;
}

void gate_connection_closed(struct gate *g, const struct sockaddr *sa)
{
    unsigned char key[16];

    gate_address_key(sa, key);
    release_key(g, key);
}

/* ---- answering from the gate ------------------------------------------------------ */

/* A short answer with Connection: close; the socket is closed after it. A client
 * that reads nothing loses it: the send never waits. */
static void refuse(int fd, unsigned code, const char *reason, const char *status,
                   const char *message)
{
    char body[400], answer[800], drain[4096];
    int body_len =
        snprintf(body, sizeof body, "{\"error\":{\"status\":\"%s\",\"message\":\"%s\"}}",
                 status, message);
    /* Head and body in one send: two would wait on Nagle for the client's ACK. */
    int len = snprintf(
        answer, sizeof answer,
        "HTTP/1.1 %u %s\r\nContent-Type: " JSON_CONTENT_TYPE "\r\nContent-Length: "
        "%d\r\nConnection: close\r\nCache-Control: no-store\r\n%s" SECURITY_HEADERS_RAW
        "\r\n%s",
        code, reason, body_len, code == 503 ? "Retry-After: 5\r\n" : "", body);
    if (len > 0 && (size_t)len < sizeof answer)
        (void)!send(fd, answer, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
    metrics_gate(code);
    /* The request was only peeked: closing with it unread would reset the connection
     * (RST), and the client could lose the answer before reading it. Read what has
     * arrived (at most 64 KiB: never wait), say we are done, then close. */
    for (int i = 0; i < 16 && recv(fd, drain, sizeof drain, MSG_DONTWAIT) > 0; i++)
        ;
    shutdown(fd, SHUT_WR);
    close(fd);
}

/* ---- the framing of one request's headers ----------------------------------------- */

static bool tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool name_is(const char *p, size_t len, const char *name)
{
    return strlen(name) == len && strncasecmp(p, name, len) == 0;
}

/* The value of a header line after its colon, optional white space trimmed. */
static void trim(const char **p, size_t *len)
{
    while (*len > 0 && (**p == ' ' || **p == '\t')) {
        (*p)++;
        (*len)--;
    }
    while (*len > 0 && ((*p)[*len - 1] == ' ' || (*p)[*len - 1] == '\t'))
        (*len)--;
}

/* What is wrong with buf[0, len), the request line and headers with their final
 * empty line, or the first bytes of them; NULL when nothing is, else why, with the
 * answer's status in *code. */
static const char *check_bytes(const char *buf, size_t len, unsigned *code)
{
    /* Control characters anywhere, and a CR or LF not in a CRLF pair. */
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)buf[i];
        if (c == '\n' && (i == 0 || buf[i - 1] != '\r')) {
            *code = 400;
            return "a line of the request ends in a bare LF (HTTP needs CRLF)";
        }
        if (c == '\r' && i + 1 < len && buf[i + 1] != '\n') {
            *code = 400;
            return "a bare CR in the request headers";
        }
        if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) {
            *code = 400;
            return "a control character (NUL, …) in the request headers";
        }
    }
    return NULL;
}

/* Checks the whole head buf[0, len) (ending in CRLF CRLF): the request line, every
 * header line, Host, Content-Length and Transfer-Encoding. NULL when it is fine, else
 * why, with the status in *code; *health says whether it asks for /api/v1/health. */
static const char *check_head(const char *buf, size_t len, unsigned *code, bool *health)
{
    const char *why = check_bytes(buf, len, code);
    const char *end = buf + len;
    unsigned hosts = 0, lengths = 0, headers = 0;
    bool chunked = false;

    *health = false;
    if (why != NULL)
        return why;
    *code = 400;
    /* The request line: METHOD SP TARGET SP HTTP/1.x */
    const char *eol = strstr(buf, "\r\n");
    const char *sp1 = memchr(buf, ' ', (size_t)(eol - buf));
    const char *sp2 = sp1 != NULL ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
    if (sp1 == NULL || sp1 == buf || sp2 == NULL || sp2 == sp1 + 1 ||
        memchr(sp2 + 1, ' ', (size_t)(eol - sp2 - 1)) != NULL)
        return "the request line is not METHOD TARGET HTTP/1.1";
    for (const char *p = buf; p < sp1; p++) {
        if (!tchar((unsigned char)*p))
            return "the request's method is not a token";
    }
    const size_t vlen = (size_t)(eol - sp2 - 1);
    const bool http11 = vlen == 8 && memcmp(sp2 + 1, "HTTP/1.1", 8) == 0;
    if (!http11 && !(vlen == 8 && memcmp(sp2 + 1, "HTTP/1.0", 8) == 0))
        return "this server speaks HTTP/1.0 and HTTP/1.1";
    const char *target = sp1 + 1;
    const size_t target_len = (size_t)(sp2 - target);
    const char *q = memchr(target, '?', target_len);
    const size_t path_len = q != NULL ? (size_t)(q - target) : target_len;
    *health = path_len == strlen("/api/v1/health") &&
              memcmp(target, "/api/v1/health", path_len) == 0;
    if (q != NULL) {
        size_t params = 1;
        for (const char *p = q + 1; p < sp2; p++)
            params += *p == '&';
        if (params > GATE_QUERY_PARAMS_MAX) {
            *code = 431;
            return "more query parameters than this server takes";
        }
    }
    /* The header lines, up to the empty one. */
    for (const char *line = eol + 2;
         line < end && !(line[0] == '\r' && line[1] == '\n');) {
        const char *next = strstr(line, "\r\n");
        if (next == NULL)
            return "a header line does not end";
        if (++headers > GATE_HEADERS_COUNT_MAX) {
            *code = 431;
            return "more header fields than this server takes";
        }
        if (line[0] == ' ' || line[0] == '\t')
            return "a header line begins with white space (obs-fold)";
        const char *colon = memchr(line, ':', (size_t)(next - line));
        if (colon == NULL || colon == line)
            return "a header line has no field name and colon";
        for (const char *p = line; p < colon; p++) {
            if (!tchar((unsigned char)*p)) {
                return "a header field name holds a space or a separator (nothing "
                       "may come between the name and its colon)";
            }
        }
        const size_t name_len = (size_t)(colon - line);
        const char *value = colon + 1;
        size_t value_len = (size_t)(next - value);
        trim(&value, &value_len);
        if (name_is(line, name_len, "Host")) {
            hosts++;
        } else if (name_is(line, name_len, "Content-Length")) {
            lengths++;
            if (value_len == 0 || value_len > 18 ||
                strspn(value, "0123456789") < value_len)
                return "Content-Length is not a number";
        } else if (name_is(line, name_len, "Transfer-Encoding")) {
            if (chunked || !(value_len == 7 && strncasecmp(value, "chunked", 7) == 0))
                return "a Transfer-Encoding other than one chunked";
            chunked = true;
        }
        line = next + 2;
    }
    if (lengths > 1)
        return "more than one Content-Length";
    if (lengths > 0 && chunked)
        return "both Content-Length and Transfer-Encoding";
    if (hosts > 1)
        return "more than one Host";
    if (hosts == 0 && http11)
        return "an HTTP/1.1 request without Host";
    return NULL;
}

enum gate_verdict gate_check(const char *buf, size_t len, unsigned *code,
                             const char **why, bool *health)
{
    const char *stop = NULL;

    *why = NULL;
    *health = false;
    for (size_t i = 3; stop == NULL && i < len; i++) {
        if (memcmp(buf + i - 3, "\r\n\r\n", 4) == 0)
            stop = buf + i + 1;
    }
    if (stop == NULL) {
        /* Not all in yet: what is wrong already is said now, not at the deadline. */
        *why = check_bytes(buf, len, code);
        if (*why != NULL)
            return GATE_REFUSE;
        if (len >= GATE_HEADERS_MAX) {
            *code = 431;
            *why = "request headers larger than this server takes";
            return GATE_REFUSE;
        }
        return GATE_WAIT;
    }
    /* check_head reads C strings: the head ends in CRLF CRLF, and strstr stops at
     * the first NUL, which check_bytes refuses first. */
    char *copy = strndup(buf, (size_t)(stop - buf));
    if (copy == NULL) {
        *code = 503;
        *why = "no memory";
        return GATE_REFUSE;
    }
    *why = check_head(copy, (size_t)(stop - buf), code, health);
    free(copy);
    return *why != NULL ? GATE_REFUSE : GATE_PASS;
}

/* ---- the gate's thread ------------------------------------------------------------ */

static void pending_drop(struct gate *g, struct pending *p, bool close_fd)
{
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, p->fd, NULL);
    if (close_fd)
        close(p->fd);
    release_key(g, p->key);
    g->pending[p->at] = g->pending[--g->n_pending];
    g->pending[p->at]->at = p->at;
    free(p);
}

static const char *reason_of(unsigned code)
{
    switch (code) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    default: return "Service Unavailable";
    }
}

static const char *status_of(unsigned code)
{
    switch (code) {
    case 400: return "invalid";
    case 408: return "timeout";
    case 431: return "too_large";
    default: return "busy";
    }
}

/* Looks at what p's client sent so far: waits, refuses or hands it on. hung_up: the
 * client closed its side (or the connection broke), so what it sent is all. */
static void pending_read(struct gate *g, struct pending *p, bool hung_up)
{
    ssize_t n = recv(p->fd, g->buf, GATE_HEADERS_MAX, MSG_PEEK | MSG_DONTWAIT);
    unsigned code = 400;
    const char *why = NULL;
    bool health = false;

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) { /* gone before its request was in */
        pending_drop(g, p, true);
        return;
    }
    switch (gate_check(g->buf, (size_t)n, &code, &why, &health)) {
    case GATE_WAIT:
        /* The peek sees the bytes it saw before: a client that left mid-headers is
         * told by the event alone. */
        if (hung_up)
            pending_drop(g, p, true);
        return;
    case GATE_REFUSE:
        refuse(p->fd, code, reason_of(code), status_of(code), why);
        pending_drop(g, p, false);
        return;
    case GATE_PASS: break;
    }
    struct MHD_Daemon *d = health && g->o.health != NULL ? g->o.health : g->o.main;
    int fd = p->fd;
    struct sockaddr_storage addr = p->addr;
    socklen_t addr_len = p->addr_len;
    /* libmicrohttpd counts it from here (gate_connection_started). */
    pending_drop(g, p, false);
    if (MHD_add_connection(d, fd, (struct sockaddr *)&addr, addr_len) != MHD_YES)
        log_warn("http: a connection could not be handed on: %s", strerror(errno));
}

static void accept_all(struct gate *g)
{
    for (;;) {
        struct sockaddr_storage addr;
        socklen_t addr_len = sizeof addr;
        int fd = accept(g->listen_fd, (struct sockaddr *)&addr, &addr_len);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && g->spare_fd >= 0) {
            /* Out of descriptors: the waiting connection would keep the listener
             * readable and this thread spinning. The spare one makes room to take
             * it and close it at once; it is opened again for the next time. */
            const double now = monotonic_s();
            if (now - g->warned_s >= 10) {
                log_warn("http: cannot accept: %s (max_connections above ulimit -n?)",
                         strerror(errno));
                g->warned_s = now;
            }
            close(g->spare_fd);
            g->spare_fd = -1;
            fd = accept(g->listen_fd, (struct sockaddr *)&addr, &addr_len);
            if (fd >= 0) {
                refuse(fd, 503, "Service Unavailable", "busy",
                       "the server has as many connections as it can open");
            }
            g->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                return; /* none was waiting */
            continue;
        }
        if (fd < 0)
            return; /* EAGAIN: none left; others: the next event tries again */
        if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
            fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
            close(fd);
            continue;
        }
        unsigned char key[16];
        const char *why = NULL;
        gate_address_key((struct sockaddr *)&addr, key);
        if (!admit(g, key, &why)) {
            refuse(fd, 503, "Service Unavailable", "busy", why);
            continue;
        }
        struct pending *p = calloc(1, sizeof *p);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET};
        if (p == NULL) {
            release_key(g, key);
            close(fd);
            continue;
        }
        *p = (struct pending){.fd = fd,
                              .at = g->n_pending,
                              .since_s = monotonic_s(),
                              .addr = addr,
                              .addr_len = addr_len};
        memcpy(p->key, key, 16);
        ev.data.ptr = p;
        if (epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            release_key(g, key);
            close(fd);
            free(p);
            continue;
        }
        g->pending[g->n_pending++] = p;
        pending_read(g, p, false); /* the request may be in already */
    }
}

static void *gate_main(void *arg)
{
    struct gate *g = arg;
    struct epoll_event events[64];

    for (;;) {
        int n = epoll_wait(g->epoll_fd, events, 64, GATE_TICK_MS);
        bool stop = false;
        for (int i = 0; i < n; i++) {
            if (events[i].data.ptr == &g->listen_fd) {
                accept_all(g);
            } else if (events[i].data.ptr == &g->stop_fd) {
                stop = true;
            } else {
                pending_read(g, events[i].data.ptr,
                             (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) !=
                                 0);
            }
        }
        if (stop)
            break;
        /* The deadline counts from the accept, not from the last byte. */
        const double now = monotonic_s();
        for (size_t i = g->n_pending; i-- > 0;) {
            struct pending *p = g->pending[i];
            if (now - p->since_s < g->o.header_timeout_s)
                continue;
            refuse(p->fd, 408, "Request Timeout", "timeout",
                   "the request's headers did not come within the server's deadline");
            pending_drop(g, p, false);
        }
    }
    while (g->n_pending > 0)
        pending_drop(g, g->pending[g->n_pending - 1], true);
    return NULL;
}

enum status gate_start(int listen_fd, const struct gate_opts *o, struct gate **out,
                       struct error *err)
{
    struct gate *g = calloc(1, sizeof *g);

    *out = NULL;
    if (g == NULL)
        return error_set(err, STATUS_NOMEM, "the connection gate");
    g->o = *o;
    g->listen_fd = listen_fd;
    g->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    g->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    g->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    g->groups = calloc(2 * (size_t)o->max_connections, sizeof *g->groups);
    g->pending = calloc(o->max_connections, sizeof(struct pending *));
    pthread_mutex_init(&g->lock, NULL);
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = &g->listen_fd};
    struct epoll_event sev = {.events = EPOLLIN, .data.ptr = &g->stop_fd};
    bool ok = g->epoll_fd >= 0 && g->stop_fd >= 0 && g->groups != NULL &&
              g->pending != NULL &&
              epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, listen_fd, &lev) == 0 &&
              epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, g->stop_fd, &sev) == 0;
    if (ok) {
        *out = g;
        ok = pthread_create(&g->thread, NULL, gate_main, g) == 0;
    }
    if (!ok) {
        enum status rc =
            error_set(err, STATUS_INTERNAL, "the connection gate: %s", strerror(errno));
        *out = NULL;
        g->listen_fd = -1; /* the caller closes it */
        gate_free(g);
        return rc;
    }
    return STATUS_OK;
}

void gate_stop(struct gate *g)
{
    if (g == NULL || g->stop_fd < 0)
        return;
    uint64_t one = 1;
    (void)!write(g->stop_fd, &one, sizeof one);
    pthread_join(g->thread, NULL);
    close(g->stop_fd);
    g->stop_fd = -1;
    if (g->listen_fd >= 0)
        close(g->listen_fd);
    g->listen_fd = -1;
}

void gate_free(struct gate *g)
{
    if (g == NULL)
        return;
    if (g->epoll_fd >= 0)
        close(g->epoll_fd);
    if (g->stop_fd >= 0)
        close(g->stop_fd);
    if (g->spare_fd >= 0)
        close(g->spare_fd);
    pthread_mutex_destroy(&g->lock);
    free(g->groups);
    free(g->pending);
    free(g);
}
