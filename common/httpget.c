/* httpget.c: a tiny blocking HTTP/1.1 client (libc sockets) for self-checks and tests. */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Long enough for an association computed on request, short enough that a hung
 * server does not hang a health check forever. */
#define HTTP_TIMEOUT_S 60
/* Answers bigger than this are refused rather than exhausting memory. */
#define HTTP_MAX_ANSWER ((size_t)256 << 20)
#define REQUEST_FORMAT                                                                   \
    "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: iocontend/" IOCONTEND_VERSION             \
    "\r\nAccept: */*\r\nConnection: close\r\n%s\r\n"

static int connect_to(const char *host, int port)
{
    struct addrinfo hints = {0}, *res = NULL;
    struct timeval tv = {.tv_sec = HTTP_TIMEOUT_S, .tv_usec = 0};
    char service[16];
    int fd = -1;

    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0) {
        errno = EHOSTUNREACH;
        return -1;
    }
    for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        int saved = errno;
        close(fd);
        errno = saved;
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        /* MSG_NOSIGNAL: a server that closed early is an error, not a SIGPIPE. */
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads until the server closes (we always ask for Connection: close). */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 8192, used = 0;
    char *buf = malloc(cap);

    if (buf == NULL)
        return NULL;
    for (;;) {
        if (cap - used < 4096) {
            char *bigger = cap >= HTTP_MAX_ANSWER ? NULL : realloc(buf, cap * 2);
            if (bigger == NULL) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = recv(fd, buf + used, cap - used - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    buf[used] = '\0';
    *len = used;
    return buf;
}

/* The value of header name in the header block of head_len bytes at head, or NULL. */
static const char *header_value(const char *name, const char *head, size_t head_len)
{
    size_t name_len = strlen(name);
    const char *end = head + head_len;

    for (const char *line = head; line < end;) {
        const char *eol = strstr(line, "\r\n");
        if (eol == NULL || eol > end)
            eol = end;
        if ((size_t)(eol - line) > name_len && strncasecmp(line, name, name_len) == 0 &&
            line[name_len] == ':') {
            const char *v = line + name_len + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            return v;
        }
        line = eol + 2;
    }
    return NULL;
}

/* Decodes a chunked body in place; returns its length or -1 when malformed. */
static long dechunk(char *body, size_t len)
{
    const char *in = body, *end = body + len;
    char *out = body;

    for (;;) {
        char *stop = NULL;
        errno = 0;
        unsigned long size = strtoul(in, &stop, 16);
        const char *eol = strstr(in, "\r\n");
        if (stop == in || errno != 0 || eol == NULL || eol >= end)
            return -1;
        in = eol + 2;
        if (size == 0)
            return (long)(out - body);
        if (size > (size_t)(end - in))
            return -1;
        memmove(out, in, size);
        out += size;
        in += size;
        if (end - in < 2 || in[0] != '\r' || in[1] != '\n')
            return -1;
        in += 2;
    }
}

/* Splits the raw answer into status and body (moved to the front of raw). */
static int parse_answer(char *raw, size_t len, int *status, size_t *body_len)
{
    char *head_end = strstr(raw, "\r\n\r\n");
    char *after = NULL;
    long code = 0;

    /* "HTTP/1.x NNN reason": the status is the three digits after the first space. */
    if (head_end != NULL && strncmp(raw, "HTTP/1.", 7) == 0 && raw[8] == ' ')
        code = strtol(raw + 9, &after, 10);
    if (head_end == NULL || after != raw + 12 || code < 100 || code > 999) {
        errno = EPROTO;
        return -1;
    }
    size_t head_len = (size_t)(head_end - raw);
    char *body = head_end + 4;
    size_t n = len - (size_t)(body - raw);
    const char *te = header_value("Transfer-Encoding", raw, head_len);
    const char *cl = header_value("Content-Length", raw, head_len);
    if (te != NULL && strncasecmp(te, "chunked", 7) == 0) {
        long decoded = dechunk(body, n);
        if (decoded < 0) {
            errno = EPROTO;
            return -1;
        }
        n = (size_t)decoded;
    } else if (cl != NULL) {
        unsigned long long want = strtoull(cl, NULL, 10);
        if (want < n)
            n = (size_t)want;
    }
    memmove(raw, body, n);
    raw[n] = '\0';
    *status = (int)code;
    *body_len = n;
    return 0;
}

int http_request(const char *host, int port, const char *method, const char *path,
                 const char *headers, int *status, char **body)
{
    char *req = NULL, *raw = NULL;
    size_t raw_len = 0, body_len = 0;
    int rc = -1, fd;
    /* An IPv6 literal needs brackets in the Host header. */
    bool v6 = strchr(host, ':') != NULL;

    *status = 0;
    if (body != NULL)
        *body = NULL;
    fd = connect_to(host, port);
    if (fd < 0)
        return -1;
    char authority[300];
    snprintf(authority, sizeof authority, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "",
             port);
    const char *extra = headers != NULL ? headers : "";
    int req_len = snprintf(NULL, 0, REQUEST_FORMAT, method, path, authority, extra);
    if (req_len < 0)
        goto out;
    req = malloc((size_t)req_len + 1);
    if (req == NULL)
        goto out;
    snprintf(req, (size_t)req_len + 1, REQUEST_FORMAT, method, path, authority, extra);
    if (send_all(fd, req, (size_t)req_len) != 0)
        goto out;
    raw = read_all(fd, &raw_len);
    if (raw == NULL || parse_answer(raw, raw_len, status, &body_len) != 0)
        goto out;
    if (body != NULL) {
        *body = raw;
        raw = NULL;
    }
    rc = 0;
out:
    if (rc != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
    } else {
        close(fd);
    }
    free(req);
    free(raw);
    return rc;
}

int http_get(const char *host, int port, const char *path, const char *headers,
             int *status, char **body)
{
    return http_request(host, port, "GET", path, headers, status, body);
}
