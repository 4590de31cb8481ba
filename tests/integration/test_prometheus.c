/* test_prometheus.c: a real Prometheus server (Debian's prometheus, its own storage
 * under the test's folder, a free loopback port) scrapes a real iocontend server
 * every second, with the bearer token the API needs, and its query API answers
 * up == 1 and the files the last darshan ingest loaded. */
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
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TOKEN "pr0m-2.385"
/* How long Prometheus may take to start, then to have scraped what we ask. */
#define READY_MAX_S  30.0
#define ANSWER_MAX_S 30.0

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];
    pid_t prom;    /* 0 when not running */
    int prom_port; /* its web listener */
    char prom_log[600];
} fx;

/* A loopback port free now: bound to 0, read back, closed. Another process could
 * take it before Prometheus binds it; then Prometheus exits and the test says so. */
static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int port = -1;

    inet_pton(AF_INET, SERVER_HOST, &a.sin_addr);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* SIGTERM, up to 10 s for it to exit, then SIGKILL; always reaped. */
static void prom_stop(void)
{
    int st = 0;

    if (fx.prom <= 0)
        return;
    kill(fx.prom, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(fx.prom, &st, WNOHANG) == fx.prom) {
            fx.prom = 0;
            return;
        }
        testutil_sleep_s(0.1);
    }
    kill(fx.prom, SIGKILL);
    waitpid(fx.prom, &st, 0);
    fx.prom = 0;
}

/* Writes the configuration (scrape every second, with the token) and starts
 * Prometheus on a free port, its storage and log in the test's folder. */
static int prom_start(void)
{
    char conf[600], data[600], listen[64];

    snprintf(conf, sizeof conf, "%s/prometheus.yml", fx.db.state_dir);
    snprintf(data, sizeof data, "%s/prometheus-data", fx.db.state_dir);
    snprintf(fx.prom_log, sizeof fx.prom_log, "%s/prometheus.log", fx.db.state_dir);
    FILE *fp = fopen(conf, "w");
    if (fp == NULL)
        return -1;
    fprintf(fp,
            "global:\n"
            "  scrape_interval: 1s\n"
            "  evaluation_interval: 1s\n"
            "scrape_configs:\n"
            "  - job_name: iocontend\n"
            "    scrape_interval: 1s\n"
            "    scrape_timeout: 1s\n"
            "    authorization:\n"
            "      type: Bearer\n"
            "      credentials: %s\n"
            "    static_configs:\n"
            "      - targets: ['%s:%d']\n",
            TOKEN, SERVER_HOST, fx.srv.port);
    if (fclose(fp) != 0)
        return -1;
    fx.prom_port = free_port();
    if (fx.prom_port <= 0)
        return -1;
    snprintf(listen, sizeof listen, "%s:%d", SERVER_HOST, fx.prom_port);
    fx.prom = fork();
    if (fx.prom < 0) {
        fx.prom = 0;
        return -1;
    }
    if (fx.prom == 0) {
        /* Dies with the test, whatever ends it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int log = open(fx.prom_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (log >= 0) {
            dup2(log, STDOUT_FILENO);
            dup2(log, STDERR_FILENO);
        }
        char a_conf[700], a_data[700], a_listen[128];
        snprintf(a_conf, sizeof a_conf, "--config.file=%s", conf);
        snprintf(a_data, sizeof a_data, "--storage.tsdb.path=%s", data);
        snprintf(a_listen, sizeof a_listen, "--web.listen-address=%s", listen);
        execlp("prometheus", "prometheus", a_conf, a_data, a_listen, (char *)NULL);
        _exit(127);
    }
    return 0;
}

/* Whether Prometheus is still running (reaps it when not). */
static bool prom_alive(void)
{
    int st = 0;

    if (fx.prom > 0 && waitpid(fx.prom, &st, WNOHANG) == fx.prom)
        fx.prom = 0;
    return fx.prom > 0;
}

static void prom_log_dump(void)
{
    size_t len = 0;
    char *log = testutil_read_file(fx.prom_log, &len);

    fprintf(stderr, "prometheus log (%s):\n%.*s\n", fx.prom_log,
            (int)(len > 4000 ? 4000 : len),
            log != NULL ? log + (len > 4000 ? len - 4000 : 0) : "");
    free(log);
}

static int group_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    char conf[600];
    sample_conf(fx.dir, conf, sizeof conf);
    if (sample_generate(fx.dir, 1, "--coupling 0 --days 1 --jobs-per-group 40") != 0 ||
        sample_load(&fx.db, fx.dir) != 0)
        return -1;
    setenv("IOCONTEND_TOKEN", TOKEN, 1);
    int rc = server_start(&fx.srv, &fx.db, conf);
    unsetenv("IOCONTEND_TOKEN");
    if (rc != 0)
        return -1;
    return prom_start();
}

static int group_teardown(void **state)
{
    (void)state;
    prom_stop();
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* q percent-encoded into out (RFC 3986 unreserved bytes kept). */
static void url_encode(const char *q, char *out, size_t size)
{
    size_t n = 0;

    for (const unsigned char *p = (const unsigned char *)q; *p != '\0' && n + 4 < size;
         p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || strchr("-_.~", *p) != NULL) {
            out[n++] = (char)*p;
        } else {
            n += (size_t)snprintf(out + n, size - n, "%%%02X", *p);
        }
    }
    out[n] = '\0';
}

/* The value of the one sample an instant query answers, NAN while it answers none
 * (not scraped yet) or Prometheus does not answer. */
static double prom_query(const char *promql)
{
    char enc[512], path[600];
    int status = 0;
    char *body = NULL;
    double v = NAN;

    url_encode(promql, enc, sizeof enc);
    snprintf(path, sizeof path, "/api/v1/query?query=%s", enc);
    if (http_get(SERVER_HOST, fx.prom_port, path, NULL, &status, &body) != 0 ||
        status != 200) {
        free(body);
        return NAN;
    }
    json_t *j = json_loads(body, 0, NULL);
    const json_t *result = json_object_get(json_object_get(j, "data"), "result");
    if (json_is_array(result) && json_array_size(result) == 1) {
        const json_t *value = json_object_get(json_array_get(result, 0), "value");
        const char *text = json_string_value(json_array_get(value, 1));
        if (text != NULL)
            v = strtod(text, NULL);
    }
    json_decref(j);
    free(body);
    return v;
}

/* Waits (up to ANSWER_MAX_S) until promql answers want (at least want when
 * at_least); its last answer. */
static double await_value(const char *promql, double want, bool at_least)
{
    const double until = testutil_now_s() + ANSWER_MAX_S;
    double v = NAN;

    while (testutil_now_s() < until && prom_alive()) {
        v = prom_query(promql);
        if (v == want || (at_least && v > want))
            break;
        testutil_sleep_s(0.25);
    }
    return v;
}

static void prometheus_is_ready(void)
{
    const double until = testutil_now_s() + READY_MAX_S;
    int status = 0;

    while (testutil_now_s() < until && prom_alive()) {
        char *body = NULL;
        if (http_get(SERVER_HOST, fx.prom_port, "/-/ready", NULL, &status, &body) == 0 &&
            status == 200) {
            free(body);
            return;
        }
        free(body);
        testutil_sleep_s(0.25);
    }
    prom_log_dump();
    fail_msg("prometheus did not get ready on port %d within %g s (%s)", fx.prom_port,
             READY_MAX_S, prom_alive() ? "running" : "exited");
}

static void prometheus_scrapes_the_server_with_its_token(void **state)
{
    (void)state;
    prometheus_is_ready();
    double up = await_value("up{job=\"iocontend\"}", 1, false);
    if (up != 1)
        prom_log_dump();
    assert_rel(up, 1, 0);
    /* What the database says the last darshan ingest loaded. */
    char *loaded =
        pgfixture_query(&fx.db,
                        "SELECT loaded FROM ingest_runs WHERE kind = 'darshan' "
                        "ORDER BY finished_at DESC LIMIT 1",
                        NULL);
    assert_non_null(loaded);
    const double want = strtod(loaded, NULL);
    free(loaded);
    assert_true(want > 0);
    assert_rel(await_value("iocontend_ingest_last_run_files{job=\"iocontend\","
                           "kind=\"darshan\",result=\"loaded\"}",
                           want, false),
               want, 0);
    /* The scrapes themselves are counted (each by the next), and were authorized. */
    double scraped = await_value("iocontend_http_requests_total{job=\"iocontend\",route="
                                 "\"metrics\",code=\"200\"}",
                                 2, true);
    assert_true(scraped >= 2);
    assert_true(isnan(prom_query("iocontend_http_requests_total{job=\"iocontend\",route="
                                 "\"metrics\",code=\"401\"}")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prometheus_scrapes_the_server_with_its_token),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
