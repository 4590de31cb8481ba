/* test_service.c: the server's bounds over real HTTP against a real PostgreSQL: the
 * admin token for large permutation counts, the deadline, a computation stopped when
 * its client leaves, the full compute pool, the per-address connection limit, and
 * /health answering throughout. */
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
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ADMIN       "s3cret-admin"
#define DEADLINE_S  4
#define COMPUTE     4 /* the pool's threads: the default */
#define PER_ADDRESS 8
/* A request that runs far past the deadline: 99999 permutations of a group of 60
 * jobs, each with the KDE's width_ratio. */
#define LONG_QUERY "association?permutations=99999"
/* What /health may take while computations run: it never waits behind them, and
 * this leaves room for a loaded machine. */
#define HEALTH_MAX_S 1.0

static struct {
    struct pgfixture db;
    struct server srv;
    char group[17]; /* the largest group */
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
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, conf, sizeof conf);
    if (sample_generate(fx.dir, 1, "--coupling 0 --days 1 --jobs-per-group 60") != 0 ||
        sample_load(&fx.db, fx.dir) != 0)
        return -1;
    /* The generator's configuration and the bounds under test. */
    char *text = testutil_read_file(conf, &len);
    if (text == NULL)
        return -1;
    char extra[400];
    int n = snprintf(extra, sizeof extra,
                     "\n[serve]\nadmin_token = " ADMIN "\ndeadline_s = %d\n"
                     "compute_threads = %d\nmax_connections_per_address = %d\n"
                     "idle_timeout_s = 60\n",
                     DEADLINE_S, COMPUTE, PER_ADDRESS);
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
    return server_first_group(&fx.srv, fx.group, sizeof fx.group);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- raw HTTP: requests left open, answers read whole with their headers ---------- */

/* A connection to the server from source address src (NULL: any), -1 on failure. */
static int raw_connect(const char *src)
{
    struct sockaddr_in to = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)fx.srv.port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

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
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool raw_send(int fd, const char *text)
{
    size_t len = strlen(text), off = 0;

    while (off < len) {
        ssize_t n = send(fd, text + off, len - off, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        off += (size_t)n;
    }
    return true;
}

/* GET path on a new connection from src, with the admin token when admin; the socket
 * (the answer not read), -1 on failure. */
static int raw_get(const char *src, const char *path, bool admin)
{
    char req[1024];
    int fd = raw_connect(src);

    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: " SERVER_HOST "\r\n%sConnection: close\r\n\r\n",
             path, admin ? "Authorization: Bearer " ADMIN "\r\n" : "");
    if (fd >= 0 && !raw_send(fd, req)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Reads until the server closes (or timeout_s): the whole answer into out (size
 * bytes, terminated); its length, -1 when nothing came. */
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

/* The status of an answer ("HTTP/1.1 503 ..."), 0 when it is none. */
static int answer_status(const char *answer)
{
    return strncmp(answer, "HTTP/1.", 7) == 0 ? atoi(answer + 9) : 0;
}

/* The "error"."status" word of the answer's body, "" when none. */
static void error_word(const char *answer, char *out, size_t size)
{
    const char *body = strstr(answer, "\r\n\r\n");
    json_t *j = body != NULL ? json_loads(body + 4, 0, NULL) : NULL;
    const char *w =
        json_string_value(json_object_get(json_object_get(j, "error"), "status"));

    snprintf(out, size, "%s", w != NULL ? w : "");
    json_decref(j);
}

/* The server process's CPU time (user + system) in clock ticks, from /proc. */
static long server_cpu_ticks(void)
{
    char path[64], buf[2048];
    unsigned long utime = 0, stime = 0;

    snprintf(path, sizeof path, "/proc/%d/stat", (int)fx.srv.pid);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    /* After the command's closing parenthesis: state is field 3, utime 14, stime 15. */
    const char *p = strrchr(buf, ')');
    assert_non_null(p);
    assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                            &utime, &stime),
                     2);
    return (long)(utime + stime);
}

/* /health answers 200, within HEALTH_MAX_S. */
static double health_slowest_s; /* the slowest /health answer seen, for the log */

static void health_is_fast(void)
{
    const double t0 = now_s();
    json_t *j = server_get_json(&fx.srv, "/api/v1/health", NULL, 200);
    const double took = now_s() - t0;

    json_decref(j);
    health_slowest_s = took > health_slowest_s ? took : health_slowest_s;
    if (took > HEALTH_MAX_S)
        print_error("/health took %.3f s\n", took);
    assert_true(took <= HEALTH_MAX_S);
}

static void long_path(char *out, size_t size)
{
    snprintf(out, size, "/api/v1/groups/%s/" LONG_QUERY, fx.group);
}

/* Waits until the server burns no CPU (every computation stopped), up to 10 s. */
static void wait_idle(void)
{
    for (int i = 0; i < 20; i++) {
        const long c0 = server_cpu_ticks();
        sleep_s(0.5);
        if (server_cpu_ticks() - c0 <= 2)
            return;
    }
}

/* The nice value of every thread of the server, into nice (up to max); how many. */
static size_t server_thread_nices(long *nice, size_t max)
{
    char path[320], buf[2048];
    size_t n = 0;

    snprintf(path, sizeof path, "/proc/%d/task", (int)fx.srv.pid);
    DIR *d = opendir(path);
    assert_non_null(d);
    const struct dirent *e;
    while (n < max && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/stat", (int)fx.srv.pid,
                 e->d_name);
        FILE *fp = fopen(path, "r");
        if (fp == NULL)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        buf[len] = '\0';
        /* After the command: state (3) ... priority (18), nice (19). */
        const char *p = strrchr(buf, ')');
        if (p != NULL && sscanf(p + 2,
                                "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
                                "%*d %*d %*d %ld",
                                &nice[n]) == 1)
            n++;
    }
    closedir(d);
    return n;
}

/* ---- tests ------------------------------------------------------------------------ */

static void computing_threads_run_at_a_lower_priority(void **state)
{
    long nice[256];
    size_t lowered = 0, normal = 0;

    (void)state;
    const size_t n = server_thread_nices(nice, 256);
    for (size_t i = 0; i < n; i++) {
        lowered += nice[i] == 10;
        normal += nice[i] == 0;
    }
    /* The compute pool's threads yield; the main thread, the HTTP workers and the
     * watcher do not. */
    assert_int_equal(lowered, COMPUTE);
    assert_true(normal >= 1 + 4 + 1);
}

static void large_counts_without_the_admin_token_answer_403(void **state)
{
    char path[256];

    (void)state;
    long_path(path, sizeof path);
    json_t *j = server_get_json(&fx.srv, path, NULL, 403);
    json_t *e = json_object_get(j, "error");
    assert_string_equal(json_string_value(json_object_get(e, "status")), "forbidden");
    assert_string_equal(json_string_value(json_object_get(e, "parameter")),
                        "permutations");
    json_decref(j);
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?resamples=1000", fx.group);
    j = server_get_json(&fx.srv, path, NULL, 403);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(j, "error"), "parameter")),
        "resamples");
    json_decref(j);
    /* The wrong token is no token. */
    long_path(path, sizeof path);
    j = server_get_json(&fx.srv, path, "Authorization: Bearer guess\r\n", 403);
    json_decref(j);
    /* Up to the free limit no token is needed. */
    snprintf(path, sizeof path,
             "/api/v1/groups/%s/association?permutations=19&resamples=50", fx.group);
    j = server_get_json(&fx.srv, path, NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(j, "significance"), "permutations")),
                     19);
    json_decref(j);
}

static void past_the_deadline_answers_503_and_health_stays_fast(void **state)
{
    char path[256], answer[8192], word[32];

    (void)state;
    long_path(path, sizeof path);
    const double t0 = now_s();
    int fd = raw_get(NULL, path, true);
    assert_true(fd >= 0);
    /* /health answers while the computation runs, every 200 ms. */
    int healths = 0;
    while (now_s() - t0 < DEADLINE_S - 0.5) {
        health_is_fast();
        healths++;
        sleep_s(0.2);
    }
    long n = raw_read(fd, answer, sizeof answer, DEADLINE_S + 20);
    const double took = now_s() - t0;
    close(fd);
    assert_true(n > 0);
    assert_true(healths >= 5);
    assert_int_equal(answer_status(answer), 503);
    error_word(answer, word, sizeof word);
    assert_string_equal(word, "deadline");
    /* At the deadline: not before it, and not long after (the watcher looks every
     * 0.1 s; one permutation takes milliseconds). */
    if (took < DEADLINE_S - 0.2 || took > DEADLINE_S + 3)
        print_error("the deadline answer came after %.3f s\n", took);
    assert_true(took >= DEADLINE_S - 0.2 && took <= DEADLINE_S + 3);
    health_is_fast();
    print_message("deadline answer after %.3f s; slowest /health meanwhile %.3f s\n",
                  took, health_slowest_s);
}

static void a_client_that_leaves_frees_the_cpu_within_a_second(void **state)
{
    char path[256];

    (void)state;
    wait_idle();
    long_path(path, sizeof path);
    int fd = raw_get(NULL, path, true);
    assert_true(fd >= 0);
    sleep_s(0.5);
    const long c0 = server_cpu_ticks();
    sleep_s(0.5);
    const long c1 = server_cpu_ticks();
    health_is_fast();
    /* Computing: the server used CPU. */
    assert_true(c1 - c0 >= 1);
    close(fd);
    /* Within 1 s of the close the computation stopped: over the next second the
     * server uses (almost) no CPU, long before the deadline would stop it. */
    sleep_s(1.0);
    const long c2 = server_cpu_ticks();
    sleep_s(1.0);
    const long c3 = server_cpu_ticks();
    /* In the log, for whoever reads the figures. */
    print_message("computing: %ld ticks in 0.5 s; after the client left: %ld in 1 s\n",
                  c1 - c0, c3 - c2);
    assert_true(c3 - c2 <= 5);
    health_is_fast();
}

static void a_full_pool_answers_503_busy_with_retry_after(void **state)
{
    char path[256], answer[8192], word[32];
    int fds[COMPUTE];

    (void)state;
    wait_idle();
    long_path(path, sizeof path);
    for (int i = 0; i < COMPUTE; i++) {
        fds[i] = raw_get(NULL, path, true);
        assert_true(fds[i] >= 0);
    }
    sleep_s(0.5); /* each one taken by a thread */
    int fd = raw_get(NULL, path, true);
    assert_true(fd >= 0);
    long n = raw_read(fd, answer, sizeof answer, 10);
    close(fd);
    assert_true(n > 0);
    assert_int_equal(answer_status(answer), 503);
    error_word(answer, word, sizeof word);
    assert_string_equal(word, "busy");
    assert_non_null(strstr(answer, "\r\nRetry-After: "));
    /* Cheap routes are still served. */
    health_slowest_s = 0;
    for (int i = 0; i < 10; i++)
        health_is_fast();
    print_message("slowest of 10 /health with the pool full: %.3f s\n", health_slowest_s);
    for (int i = 0; i < COMPUTE; i++)
        close(fds[i]);
    wait_idle();
    /* Their threads are free again. */
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?permutations=9", fx.group);
    json_decref(server_get_json(&fx.srv, path, NULL, 200));
}

static void an_address_at_its_limit_leaves_others_served(void **state)
{
    char answer[4096];
    int slow[PER_ADDRESS];

    (void)state;
    wait_idle();
    /* Slow clients: a request line and no end of the headers, the connection held. */
    for (int i = 0; i < PER_ADDRESS; i++) {
        slow[i] = raw_connect("127.0.0.1");
        assert_true(slow[i] >= 0);
        assert_true(raw_send(slow[i], "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"));
    }
    sleep_s(0.3);
    /* One more from that address is turned away at once: 503 busy, Retry-After. */
    int fd = raw_get("127.0.0.1", "/api/v1/health", false);
    if (fd >= 0) {
        char word[32];
        long n = raw_read(fd, answer, sizeof answer, 5);
        close(fd);
        assert_true(n > 0);
        assert_int_equal(answer_status(answer), 503);
        assert_non_null(strstr(answer, "Retry-After: 5\r\n"));
        error_word(answer, word, sizeof word);
        assert_string_equal(word, "busy");
    }
    /* Another address is served at once. */
    fd = raw_get("127.0.0.2", "/api/v1/health", false);
    assert_true(fd >= 0);
    const double t0 = now_s();
    long n = raw_read(fd, answer, sizeof answer, 5);
    close(fd);
    assert_true(n > 0);
    assert_int_equal(answer_status(answer), 200);
    assert_true(now_s() - t0 <= HEALTH_MAX_S);
    for (int i = 0; i < PER_ADDRESS; i++)
        close(slow[i]);
    /* And the first address again once its connections closed. */
    sleep_s(0.3);
    health_is_fast();
}

/* `config show` with a file holding text: its output and exit status. */
static char *config_show(const char *text, int *rc)
{
    char path[600], args[700];

    snprintf(path, sizeof path, "%s/limits.conf", fx.db.state_dir);
    assert_int_equal(testutil_write_file(path, text, strlen(text)), 0);
    snprintf(args, sizeof args, "--config '%s' config show 2>&1", path);
    char *out = pgfixture_run(&fx.db, args, rc);
    assert_non_null(out);
    return out;
}

static void serve_limits_are_read_and_checked(void **state)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"[serve]\nthreads = 0\n", "2: [serve] threads: expected a whole number from 1"},
        {"[serve]\ncompute_threads = 2.5\n", "[serve] compute_threads: expected a whole"},
        {"[serve]\ndeadline_s = -1\n", "[serve] deadline_s: expected seconds"},
        {"[serve]\ndeadline_s = soon\n", "[serve] deadline_s: expected a finite number"},
        {"[serve]\nmax_free_permutations = 100000\n", "max_free_permutations"},
        {"[serve]\nmax_connections_per_address = 0\n", "max_connections_per_address"},
        {"[serve]\nidle_timeout = 5\n", "unknown key"},
    };
    int rc = -1;

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out = config_show(bad[i].text, &rc);
        if (rc != 64 || strstr(out, bad[i].why) == NULL)
            fail_msg("%s: want 64 and '%s', got %d: %s", bad[i].text, bad[i].why, rc,
                     out);
        free(out);
    }
    char *out = config_show("[serve]\nthreads = 7\ndeadline_s = 2.5\nadmin_token = x\n"
                            "max_free_permutations = 0\nmax_connections = 100\n"
                            "max_connections_per_address = 3\nidle_timeout_s = 9\n"
                            "compute_threads = 6\n",
                            &rc);
    assert_int_equal(rc, 0);
    static const char *const want[] = {
        "threads = 7\n",           "compute_threads = 6\n",
        "deadline_s = 2.5\n",      "max_free_permutations = 0\n",
        "max_connections = 100\n", "max_connections_per_address = 3\n",
        "idle_timeout_s = 9\n",    "# admin_token: (set, not shown)\n"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (strstr(out, want[i]) == NULL)
            fail_msg("config show lacks '%s': %s", want[i], out);
    }
    free(out);
}

/* SIGTERM while a computation runs: it is cancelled, its connection resumed, and
 * the server exits 0 (libmicrohttpd refuses to stop with a connection suspended). */
static void stopping_during_a_computation_exits_cleanly(void **state)
{
    char path[256], answer[4096];

    (void)state;
    long_path(path, sizeof path);
    int fd = raw_get(NULL, path, true);
    assert_true(fd >= 0);
    sleep_s(0.5);
    assert_int_equal(server_stop(&fx.srv), 0);
    long n = raw_read(fd, answer, sizeof answer, 5);
    close(fd);
    /* The answer, when it went out before the socket closed, says why. */
    if (n > 0)
        assert_int_equal(answer_status(answer), 503);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(computing_threads_run_at_a_lower_priority),
        cmocka_unit_test(large_counts_without_the_admin_token_answer_403),
        cmocka_unit_test(past_the_deadline_answers_503_and_health_stays_fast),
        cmocka_unit_test(a_client_that_leaves_frees_the_cpu_within_a_second),
        cmocka_unit_test(a_full_pool_answers_503_busy_with_retry_after),
        cmocka_unit_test(an_address_at_its_limit_leaves_others_served),
        cmocka_unit_test(serve_limits_are_read_and_checked),
        cmocka_unit_test(stopping_during_a_computation_exits_cleanly),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
