/* test_http_strict.c: the server against clients that try to lock it or fool its
 * parser, over real HTTP on loopback against a real PostgreSQL holding the demo data:
 * 8 addresses of slow clients trickling header lines (cut at the headers' deadline,
 * in all, not per byte; the last slots kept for other addresses), 30 clients of
 * /jobs?limit=1000, each while /health from another address stays fast, SIGTERM
 * under that load, the framing cases of request smuggling on a raw socket, a body
 * declared and never sent, and the security headers of the page and the API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The bounds under test ([serve] keys): a short headers' deadline so that the test
 * sees it cut (the default is 10 s), and fewer connections than the attackers
 * open, so that without the slots kept for new addresses they would take all. */
#define HEADER_TIMEOUT_S 2
#define MAX_CONNECTIONS  128
#define PER_ADDRESS      32
/* The attack: 8 addresses, 64 connections each, one header line every 0.5 s. */
#define ATTACK_ADDRESSES 8
#define ATTACK_PER       64
#define ATTACK_LINE_S    0.5
#define ATTACK_S         3.0
/* /health's bound under load, its 99th percentile over PROBES probes. */
#define HEALTH_P99_S 0.050
#define PROBES       100
#define JOBS_CLIENTS 30
#define STOP_MAX_S   5.0

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];
} fx;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int group_setup(void **state)
{
    char conf[600], served[700];
    size_t len = 0;

    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    const double t0 = now_s();
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    const double t1 = now_s();
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, conf, sizeof conf);
    /* The demo data, ingested: /jobs computes its metrics from the samples, and
     * nothing here needs what analyze stores. */
    if (sample_generate(fx.dir, 1, "--days 1 --jobs-per-group 340") != 0)
        return -1;
    const double t2 = now_s();
    if (sample_ingest(&fx.db, fx.dir) != 0)
        return -1;
    print_message("setup: database %.1f s, generate %.1f s, ingest %.1f s\n", t1 - t0,
                  t2 - t1, now_s() - t2);
    char *text = testutil_read_file(conf, &len);
    if (text == NULL)
        return -1;
    char extra[300];
    int n = snprintf(extra, sizeof extra,
                     "\n[serve]\nheader_timeout_s = %d\nmax_connections = %d\n"
                     "max_connections_per_address = %d\n",
                     HEADER_TIMEOUT_S, MAX_CONNECTIONS, PER_ADDRESS);
    char *all = malloc(len + (size_t)n + 1);
    if (all == NULL) {
        free(text);
        return -1;
    }
    memcpy(all, text, len);
    memcpy(all + len, extra, (size_t)n + 1);
    free(text);
    snprintf(served, sizeof served, "%s/served.conf", fx.db.state_dir);
    int rc = testutil_write_file(served, all, len + (size_t)n);
    free(all);
    if (rc != 0 || server_start(&fx.srv, &fx.db, served) != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- raw HTTP ---------------------------------------------------------------------- */

/* A connection to the server from source address src (NULL: any); -1 on failure.
 * Non-blocking when nonblock (the attack's). */
static int raw_connect(const char *src, bool nonblock)
{
    struct sockaddr_in to = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)fx.srv.port)};
    int fd =
        socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

    if (fd < 0)
        return -1;
    inet_pton(AF_INET, SERVER_HOST, &to.sin_addr);
    if (src != NULL) {
        struct sockaddr_in from = {.sin_family = AF_INET};
        inet_pton(AF_INET, src, &from.sin_addr);
        if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0) {
            close(fd);
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 &&
        !(nonblock && errno == EINPROGRESS)) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool raw_send(int fd, const char *text, size_t len)
{
    size_t off = 0;

    while (off < len) {
        ssize_t n = send(fd, text + off, len - off, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        off += (size_t)n;
    }
    return true;
}

/* Reads until the server closes (or timeout_s): the answer into out (size bytes,
 * terminated); its length, -1 when nothing came. */
static long raw_read(int fd, char *out, size_t size, double timeout_s)
{
    size_t used = 0;
    const double until = now_s() + timeout_s;

    while (used + 1 < size) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int wait_ms = (int)((until - now_s()) * 1000);
        if (wait_ms <= 0 || poll(&p, 1, wait_ms) <= 0)
            break;
        ssize_t n = recv(fd, out + used, size - 1 - used, 0);
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    out[used] = '\0';
    return used > 0 ? (long)used : -1;
}

static int answer_status(const char *answer)
{
    return strncmp(answer, "HTTP/1.", 7) == 0 ? atoi(answer + 9) : 0;
}

/* Sends len bytes of req from src on a new connection and reads the answer (whole,
 * up to timeout_s) into out; its status, 0 when none came. */
static int exchange(const char *src, const char *req, size_t len, char *out, size_t size,
                    double timeout_s)
{
    int fd = raw_connect(src, false);

    out[0] = '\0';
    if (fd < 0)
        return 0;
    (void)raw_send(fd, req, len);
    long n = raw_read(fd, out, size, timeout_s);
    close(fd);
    return n > 0 ? answer_status(out) : 0;
}

/* GET /api/v1/health from 127.0.0.1: how long it took, -1 unless it answered 200. */
static double health_probe(void)
{
    static const char req[] =
        "GET /api/v1/health HTTP/1.1\r\nHost: " SERVER_HOST "\r\n\r\n";
    char answer[4096];
    const double t0 = now_s();
    int status = exchange("127.0.0.1", req, sizeof req - 1, answer, sizeof answer, 5);

    if (status != 200)
        print_error("/health answered %d: %.200s\n", status, answer);
    return status == 200 ? now_s() - t0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* PROBES probes of /health, every one 200; their 99th percentile (nearest rank),
 * printed with the median and the slowest as what. */
static double health_p99(const char *what)
{
    double t[PROBES];

    for (int i = 0; i < PROBES; i++) {
        t[i] = health_probe();
        assert_true(t[i] >= 0);
        sleep_s(0.01);
    }
    qsort(t, PROBES, sizeof t[0], cmp_double);
    const double p99 = t[(PROBES * 99 + 99) / 100 - 1];
    print_message("/health under %s: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d probes)\n",
                  what, t[PROBES / 2] * 1e3, p99 * 1e3, t[PROBES - 1] * 1e3, PROBES);
    return p99;
}

/* ---- the slow clients -------------------------------------------------------------- */

/* What the attack saw, written by its process to a pipe. */
struct attack_report {
    unsigned connects;     /* connections opened */
    unsigned cut_408;      /* answered 408 at the headers' deadline */
    unsigned refused_503;  /* turned away at once (address or server full) */
    unsigned other;        /* closed with anything else */
    double first_408_s;    /* the shortest life of a connection cut with 408 */
    double last_408_s;     /* the longest */
    unsigned open_at_peak; /* connections open at once, at most */
};

struct slot {
    int fd;
    double opened_s, next_s; /* when it opened; when it sends (or reconnects) next */
    unsigned lines;
};

/* The attack's process: ATTACK_PER connections from each of 127.0.0.2 ...
 * 127.0.0.(1 + ATTACK_ADDRESSES), each sending its request line and then one header
 * line every ATTACK_LINE_S (never the empty line), reopened ATTACK_LINE_S after the
 * server closed it, for ATTACK_S. */
static void attack(int out)
{
    static struct slot slots[ATTACK_ADDRESSES * ATTACK_PER];
    static struct pollfd pfd[ATTACK_ADDRESSES * ATTACK_PER];
    struct attack_report r = {.first_408_s = 1e9};
    const size_t n = ATTACK_ADDRESSES * ATTACK_PER;
    const struct rlimit fds = {n + 64, n + 64};
    const double end = now_s() + ATTACK_S;

    setrlimit(RLIMIT_NOFILE, &fds);
    for (size_t i = 0; i < n; i++)
        slots[i] = (struct slot){.fd = -1};
    for (double t = now_s(); t < end; t = now_s()) {
        unsigned open = 0;
        for (size_t i = 0; i < n; i++) {
            struct slot *s = &slots[i];
            if (s->fd < 0 && t >= s->next_s) {
                char src[32];
                snprintf(src, sizeof src, "127.0.0.%zu", 2 + i / ATTACK_PER);
                s->fd = raw_connect(src, true);
                s->opened_s = t;
                s->next_s = t;
                s->lines = 0;
                r.connects++;
            }
            if (s->fd >= 0 && t >= s->next_s) {
                char line[64];
                int len = s->lines == 0
                              ? snprintf(line, sizeof line,
                                         "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")
                              : snprintf(line, sizeof line, "X-Slow-%u: a\r\n", s->lines);
                if (send(s->fd, line, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) == len)
                    s->lines++;
                s->next_s = t + ATTACK_LINE_S;
            }
            pfd[i] = (struct pollfd){.fd = s->fd, .events = POLLIN};
            open += s->fd >= 0;
        }
        r.open_at_peak = open > r.open_at_peak ? open : r.open_at_peak;
        if (poll(pfd, n, 20) <= 0)
            continue;
        t = now_s();
        for (size_t i = 0; i < n; i++) {
            struct slot *s = &slots[i];
            char buf[512];
            if (s->fd < 0 || (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
                continue;
            ssize_t got = recv(s->fd, buf, sizeof buf - 1, MSG_DONTWAIT);
            if (got < 0 && errno == EAGAIN)
                continue;
            buf[got > 0 ? got : 0] = '\0';
            const int status = got > 0 ? answer_status(buf) : 0;
            if (status == 408) {
                const double life = t - s->opened_s;
                r.cut_408++;
                r.first_408_s = life < r.first_408_s ? life : r.first_408_s;
                r.last_408_s = life > r.last_408_s ? life : r.last_408_s;
            } else if (status == 503) {
                r.refused_503++;
            } else {
                r.other++;
            }
            close(s->fd);
            s->fd = -1;
            s->next_s = t + ATTACK_LINE_S;
        }
    }
    (void)!write(out, &r, sizeof r);
}

static void slow_clients_of_8_addresses_leave_health_fast(void **state)
{
    int p[2];
    struct attack_report r = {0};

    (void)state;
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        attack(p[1]);
        _exit(0);
    }
    close(p[1]);
    sleep_s(0.5); /* every slot the attack may take is taken */
    const double p99 = health_p99("8 addresses of slow clients");
    assert_int_equal(read(p[0], &r, sizeof r), (long)sizeof r);
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    print_message("attack: %u connections opened, at most %u open; %u cut with 408 after "
                  "%.2f to %.2f s, %u turned away with 503, %u other\n",
                  r.connects, r.open_at_peak, r.cut_408, r.first_408_s, r.last_408_s,
                  r.refused_503, r.other);
    assert_true(p99 <= HEALTH_P99_S);
    /* A header line every 0.5 s kept no connection past the deadline: it counts
     * from the accept, not from the last byte. */
    assert_true(r.cut_408 >= ATTACK_ADDRESSES);
    assert_true(r.first_408_s >= HEADER_TIMEOUT_S - 0.05);
    assert_true(r.last_408_s <= HEADER_TIMEOUT_S + 1.0);
    /* The addresses were held to their share: some were turned away at once. */
    assert_true(r.refused_503 > 0);
    assert_int_equal(r.other, 0);
}

/* ---- framing ----------------------------------------------------------------------- */

static void every_answer_carries_the_security_headers(const char *answer)
{
    assert_non_null(strstr(answer, "\r\nX-Content-Type-Options: nosniff\r\n"));
    assert_non_null(strstr(answer, "\r\nX-Frame-Options: DENY\r\n"));
    assert_non_null(strstr(answer, "\r\nContent-Security-Policy: "));
    assert_non_null(strstr(answer, "frame-ancestors 'none'"));
}

static void lenient_framing_answers_400_or_431(void **state)
{
    static char many_headers[8192], big_header[20000], many_params[8192];
    static const struct {
        const char *name;
        const char *req; /* NULL: built below */
        size_t len;      /* 0: strlen */
        int want;
    } cases[] = {
        {"HTTP/1.1 without Host", "GET /api/v1/health HTTP/1.1\r\n\r\n", 0, 400},
        {"two Host", "GET /api/v1/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 0, 400},
        {"two Content-Length",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
         "Content-Length: 5\r\n\r\nabcde",
         0, 400},
        {"Content-Length 3x",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 3x\r\n\r\nabc", 0,
         400},
        {"Content-Length 3, 5",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 5\r\n\r\nabc", 0,
         400},
        {"Content-Length -1",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 0, 400},
        {"Content-Length and chunked",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
         "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         0, 400},
        {"Transfer-Encoding with a space before the colon",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n"
         "0\r\n\r\n",
         0, 400},
        {"Transfer-Encoding xchunked",
         "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n",
         0, 400},
        {"bare LF", "GET /api/v1/health HTTP/1.1\nHost: x\n\n", 0, 400},
        {"bare LF after the request line", "GET /api/v1/health HTTP/1.1\nHost: x\r\n\r\n",
         0, 400},
        {"bare CR", "GET /api/v1/health HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", 0, 400},
        {"obs-fold", "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", 0,
         400},
        {"NUL in a value", "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n",
         sizeof "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n" - 1, 400},
        {"a line without a colon",
         "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-A\r\n\r\n", 0, 400},
        {"HTTP/2.0 on the request line", "GET /api/v1/health HTTP/2.0\r\nHost: x\r\n\r\n",
         0, 400},
        {"two spaces in the request line",
         "GET  /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n", 0, 400},
        {"100 header fields", many_headers, 0, 431},
        {"a 20000-byte header", big_header, 0, 431},
        {"500 query parameters", many_params, 0, 431},
        {"a good request, for contrast",
         "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, 200},
        {"HTTP/1.0 without Host", "GET /api/v1/health HTTP/1.0\r\n\r\n", 0, 200},
    };
    char answer[8192];

    (void)state;
    size_t at = (size_t)snprintf(many_headers, sizeof many_headers,
                                 "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n");
    for (int i = 0; i < 100; i++)
        at += (size_t)snprintf(many_headers + at, sizeof many_headers - at,
                               "X-H%d: v\r\n", i);
    snprintf(many_headers + at, sizeof many_headers - at, "\r\n");
    at = (size_t)snprintf(big_header, sizeof big_header,
                          "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(big_header + at, 'v', 20000 - at - 8);
    snprintf(big_header + 20000 - 8, 8, "\r\n\r\n");
    at = (size_t)snprintf(many_params, sizeof many_params, "GET /api/v1/health?p0=0");
    for (int i = 1; i < 500; i++)
        at +=
            (size_t)snprintf(many_params + at, sizeof many_params - at, "&p%d=%d", i, i);
    snprintf(many_params + at, sizeof many_params - at, " HTTP/1.1\r\nHost: x\r\n\r\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const size_t len = cases[i].len > 0 ? cases[i].len : strlen(cases[i].req);
        const double t0 = now_s();
        int status = exchange(NULL, cases[i].req, len, answer, sizeof answer, 5);
        const double took = now_s() - t0;
        if (status != cases[i].want) {
            print_error("%s: answered %d, not %d: %.300s\n", cases[i].name, status,
                        cases[i].want, answer);
        }
        assert_int_equal(status, cases[i].want);
        /* At once, by the server itself, and the connection closed after it. */
        assert_true(took < 1.0);
        assert_non_null(strstr(answer, "\r\nConnection: close\r\n"));
        every_answer_carries_the_security_headers(answer);
    }
}

static void a_body_declared_and_never_sent_is_not_waited_for(void **state)
{
    static const char req[] = "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\n"
                              "Content-Length: 10485760\r\n\r\n";
    char answer[4096];

    (void)state;
    int fd = raw_connect(NULL, false);
    assert_true(fd >= 0);
    assert_true(raw_send(fd, req, sizeof req - 1));
    const double t0 = now_s();
    long n = raw_read(fd, answer, sizeof answer, 5); /* until the server closes */
    const double took = now_s() - t0;
    close(fd);
    print_message("a POST declaring 10 MB and sending nothing: %d, closed after %.3f s\n",
                  n > 0 ? answer_status(answer) : 0, took);
    assert_true(n > 0);
    assert_int_equal(answer_status(answer), 405);
    assert_true(took < 1.0);
}

static void the_page_and_the_api_carry_csp_and_x_frame_options(void **state)
{
    static const char *const paths[] = {"/", "/web/index.html", "/iocontend-page.js",
                                        "/api/v1/health", "/api/v1/nothing"};
    char req[256], answer[65536];

    (void)state;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", paths[i]);
        int status = exchange(NULL, req, (size_t)n, answer, sizeof answer, 5);
        assert_int_equal(status, i < 4 ? 200 : 404);
        every_answer_carries_the_security_headers(answer);
    }
    /* The page's policy: its scripts from this server only, no inline script. */
    int n = snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(exchange(NULL, req, (size_t)n, answer, sizeof answer, 5), 200);
    const char *csp = strstr(answer, "\r\nContent-Security-Policy: ");
    assert_non_null(csp);
    const char *eol = strstr(csp + 2, "\r\n");
    assert_non_null(strstr(csp, "script-src 'self'"));
    const char *inline_ok = strstr(csp, "'unsafe-inline'");
    const char *style = strstr(csp, "style-src");
    /* 'unsafe-inline' only for styles, never for scripts. */
    assert_true(inline_ok == NULL ||
                (style != NULL && inline_ok > style &&
                 (strchr(style, ';') == NULL || inline_ok < strchr(style, ';'))));
    assert_true(csp < eol);
    assert_null(strstr(answer, "<script>"));
}

/* ---- /jobs under load, and SIGTERM under it ---------------------------------------- */

static atomic_bool load_stop;
static atomic_uint load_200, load_503, load_other;
static atomic_bool load_stopping; /* SIGTERM sent: refusals are expected */

static void *jobs_client(void *arg)
{
    static const char req[] =
        "GET /api/v1/jobs?limit=1000 HTTP/1.1\r\nHost: " SERVER_HOST "\r\n\r\n";
    static _Thread_local char answer[1 << 20];

    (void)arg;
    while (!atomic_load(&load_stop)) {
        int status =
            exchange("127.0.0.10", req, sizeof req - 1, answer, sizeof answer, 30);
        if (status == 200) {
            atomic_fetch_add(&load_200, 1);
        } else if (status == 503) {
            atomic_fetch_add(&load_503, 1);
            sleep_s(0.05); /* a client that heeds no Retry-After, nearly */
        } else if (!atomic_load(&load_stopping)) {
            print_error("/jobs?limit=1000 answered %d: %.200s\n", status, answer);
            atomic_fetch_add(&load_other, 1);
            sleep_s(0.05);
        } else {
            sleep_s(0.05);
        }
    }
    return NULL;
}

static void jobs_load_leaves_health_fast_and_sigterm_exits_within_5_s(void **state)
{
    pthread_t t[JOBS_CLIENTS];

    (void)state;
    atomic_store(&load_stop, false);
    atomic_store(&load_stopping, false);
    for (int i = 0; i < JOBS_CLIENTS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, jobs_client, NULL), 0);
    sleep_s(0.5);
    const double p99 = health_p99("30 clients of /jobs?limit=1000");
    const unsigned done_before_stop = atomic_load(&load_200);
    /* SIGTERM while the load goes on: the running queries are cancelled. */
    atomic_store(&load_stopping, true);
    const double t0 = now_s();
    const int rc = server_stop(&fx.srv);
    const double took = now_s() - t0;
    atomic_store(&load_stop, true);
    for (int i = 0; i < JOBS_CLIENTS; i++)
        pthread_join(t[i], NULL);
    print_message("/jobs?limit=1000: %u answered 200 (%u before SIGTERM), %u 503 busy, "
                  "%u other before SIGTERM; SIGTERM to exit %.2f s, exit %d\n",
                  atomic_load(&load_200), done_before_stop, atomic_load(&load_503),
                  atomic_load(&load_other), took, rc);
    assert_true(p99 <= HEALTH_P99_S);
    assert_true(done_before_stop > 0); /* the load was real: pages were computed */
    assert_int_equal(atomic_load(&load_other), 0); /* 200 or 503 busy, nothing else */
    assert_int_equal(rc, 0);
    assert_true(took <= STOP_MAX_S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lenient_framing_answers_400_or_431),
        cmocka_unit_test(a_body_declared_and_never_sent_is_not_waited_for),
        cmocka_unit_test(the_page_and_the_api_carry_csp_and_x_frame_options),
        cmocka_unit_test(slow_clients_of_8_addresses_leave_health_fast),
        /* Last: it stops the server. */
        cmocka_unit_test(jobs_load_leaves_health_fast_and_sigterm_exits_within_5_s),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
