/* test_metrics.c: GET /metrics of a real server over a real PostgreSQL after an
 * ingest and an analyze: Debian's promtool finds the text well-formed and lint-clean,
 * requests are counted exactly by route and status, the runs' numbers are those
 * ingest and analyze reported, freshness is the database's newest job and sample, and
 * the token guards it as it guards the API. */
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
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOKEN "m3trics-2.385"
#define ADMIN "adm1n-2.385"
/* The computation server: one computing thread, a short deadline. */
#define DEADLINE_S 2
/* A computation far longer than the deadline (test_service's). */
#define LONG_QUERY "association?permutations=99999"

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];
    char conf[600];
    char group[17];
    double loaded_at_s;  /* epoch seconds before the first ingest */
    json_t *darshan;     /* ingest darshan --json */
    json_t *iostat;      /* the last ingest iostat --json */
    char last_fs[64];    /* its file system */
    long used, excluded; /* analyze's log line: jobs used, excluded */
    char by_reason[256]; /* its "(hole 3, no_io 1)" part, "" when none */
} fx;

/* `iocontend --quiet --config conf ARGS` as JSON (ingest --json); NULL on failure. */
static json_t *run_json(const char *args)
{
    char cmd[2048];
    int rc = -1;

    snprintf(cmd, sizeof cmd, "--quiet --config '%s' %s", fx.conf, args);
    char *out = pgfixture_run(&fx.db, cmd, &rc);
    json_t *j = out != NULL && rc == 0 ? json_loads(out, 0, NULL) : NULL;
    if (j == NULL)
        fprintf(stderr, "`%s` exited %d: %s\n", cmd, rc, out != NULL ? out : "");
    free(out);
    return j;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Ingests the sample's file systems in name order; the last one's summary is kept. */
static int ingest_iostat(void)
{
    char path[700], *names[16];
    size_t n = 0;
    DIR *d;
    const struct dirent *e;

    snprintf(path, sizeof path, "%s/iostat", fx.dir);
    d = opendir(path);
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL && n < 16) {
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_name);
    int rc = n > 0 ? 0 : -1;
    for (size_t i = 0; i < n; i++) {
        char args[1600];
        snprintf(args, sizeof args, "ingest iostat --json --fs '%s' '%s/%s'", names[i],
                 path, names[i]);
        json_decref(fx.iostat);
        fx.iostat = rc == 0 ? run_json(args) : NULL;
        if (fx.iostat == NULL)
            rc = -1;
        snprintf(fx.last_fs, sizeof fx.last_fs, "%s", names[i]);
        free(names[i]);
    }
    return rc;
}

/* Runs analyze and reads its closing log line: "…; N jobs used, M excluded (r k, …)". */
static int analyze(void)
{
    char cmd[2048];
    int rc = -1;

    snprintf(cmd, sizeof cmd, "'%s' --config '%s' analyze --permutations 0 2>&1",
             fx.db.bin, fx.conf);
    char *out = testutil_run(cmd, &rc);
    const char *at = out != NULL ? strstr(out, " jobs used, ") : NULL;
    const char *start = at;
    while (start != NULL && start > out && start[-1] != ' ')
        start--;
    if (at == NULL || (rc != 0 && rc != 1) ||
        sscanf(start, "%ld jobs used, %ld excluded", &fx.used, &fx.excluded) != 2) {
        fprintf(stderr, "analyze exited %d: %s\n", rc, out != NULL ? out : "");
        free(out);
        return -1;
    }
    const char *open = strchr(at, '(');
    const char *nl = strchr(at, '\n');
    if (open != NULL && (nl == NULL || open < nl)) {
        snprintf(fx.by_reason, sizeof fx.by_reason, "%.*s", (int)strcspn(open + 1, ")"),
                 open + 1);
    }
    free(out);
    return 0;
}

static int group_setup(void **state)
{
    char args[1200];

    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (sample_generate(fx.dir, 1, "--coupling 0 --days 1 --jobs-per-group 40") != 0)
        return -1;
    fx.loaded_at_s = floor((double)time(NULL));
    snprintf(args, sizeof args, "ingest darshan --json '%s/darshan'", fx.dir);
    fx.darshan = run_json(args);
    if (fx.darshan == NULL || ingest_iostat() != 0 || analyze() != 0 ||
        server_start(&fx.srv, &fx.db, fx.conf) != 0)
        return -1;
    return server_first_group(&fx.srv, fx.group, sizeof fx.group);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    json_decref(fx.darshan);
    json_decref(fx.iostat);
    return 0;
}

/* GET path of s; the body (caller frees), asserting the status. */
static char *get(const struct server *s, const char *path, const char *headers, int want)
{
    int status = 0;
    char *body = NULL;

    assert_int_equal(http_get(SERVER_HOST, s->port, path, headers, &status, &body), 0);
    assert_int_equal(status, want);
    assert_non_null(body);
    return body;
}

static char *scrape(void)
{
    return get(&fx.srv, "/metrics", NULL, 200);
}

/* The value of the sample whose name and labels are exactly series (as rendered,
 * e.g. "x_total{route=\"health\",code=\"200\"}"); NAN when there is none. */
static double value_of(const char *text, const char *series)
{
    const size_t n = strlen(series);

    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, series, n) == 0 && line[n] == ' ')
            return strtod(line + n + 1, NULL);
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return NAN;
}

/* value_of a series built with printf's format. */
static double value_f(const char *text, const char *fmt, ...) PRINTF_LIKE(2, 3);
static double value_f(const char *text, const char *fmt, ...)
{
    char series[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(series, sizeof series, fmt, ap);
    va_end(ap);
    return value_of(text, series);
}

/* A counter or gauge that must be present: its value. */
static double must(const char *text, const char *series)
{
    double v = value_of(text, series);
    if (isnan(v))
        fail_msg("no sample %s in /metrics", series);
    return v;
}

static double requests(const char *text, const char *route, int code)
{
    double v = value_f(text, "iocontend_http_requests_total{route=\"%s\",code=\"%d\"}",
                       route, code);
    return isnan(v) ? 0 : v;
}

static void live_output_passes_promtool_check_metrics(void **state)
{
    char path[600], cmd[800], assoc[128];
    int rc = -1;

    (void)state;
    /* Some traffic first, so that every family has samples: a page, a 404, a computed
     * association (a permutation count is never stored). */
    free(get(&fx.srv, "/", NULL, 200));
    free(get(&fx.srv, "/api/v1/nothing", NULL, 404));
    snprintf(assoc, sizeof assoc, "/api/v1/groups/%s/association?permutations=19",
             fx.group);
    free(get(&fx.srv, assoc, NULL, 200));
    char *text = scrape();
    snprintf(path, sizeof path, "%s/metrics.txt", fx.db.state_dir);
    assert_int_equal(testutil_write_file(path, text, strlen(text)), 0);
    snprintf(cmd, sizeof cmd, "promtool check metrics < '%s' 2>&1", path);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    if (rc != 0 || out[0] != '\0')
        fail_msg("promtool check metrics exited %d: %s", rc, out);
    free(out);
    /* Every family this server can have samples of has them. */
    assert_true(must(text, "iocontend_computations_started_total") >= 1);
    assert_rel(must(text, "iocontend_computations_running"), 0, 0);
    assert_true(must(text, "iocontend_http_connections_open") >= 1);
    assert_true(must(text, "iocontend_http_connections_total") >= 4);
    assert_rel(must(text, "iocontend_database_up"), 1, 0);
    assert_rel(must(text, "iocontend_build_info{version=\"" IOCONTEND_VERSION "\"}"), 1,
               0);
    free(text);
}

static void requests_are_counted_exactly_by_route_and_status(void **state)
{
    (void)state;
    char *before = scrape();
    for (int i = 0; i < 7; i++)
        free(get(&fx.srv, "/api/v1/health", NULL, 200));
    for (int i = 0; i < 3; i++)
        free(get(&fx.srv, "/api/v1/no-such-route", NULL, 404));
    free(get(&fx.srv, "/api/v1/groups/zz/nothing", NULL, 404));
    char *after = scrape();

    assert_rel(requests(after, "health", 200) - requests(before, "health", 200), 7, 0);
    assert_rel(requests(after, "none", 404) - requests(before, "none", 404), 4, 0);
    /* The first scrape is counted by the second, not by itself. */
    assert_rel(requests(after, "metrics", 200) - requests(before, "metrics", 200), 1, 0);
    /* The raw URL never becomes a label. */
    assert_null(strstr(after, "no-such-route"));
    free(before);
    free(after);
}

static void histogram_count_and_buckets_agree_with_the_requests(void **state)
{
    static const char *const routes[] = {"health", "none", "metrics"};

    (void)state;
    free(get(&fx.srv, "/api/v1/health", NULL, 200));
    char *text = scrape();
    for (size_t r = 0; r < 3; r++) {
        const char *route = routes[r];
        double total = 0;
        for (int code = 100; code < 600; code++)
            total += requests(text, route, code);
        const double count = value_f(
            text, "iocontend_http_request_duration_seconds_count{route=\"%s\"}", route);
        assert_false(isnan(count));
        assert_rel(count, total, 0);
        double last = 0;
        static const char *const le[] = {
            "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
            "0.5",    "1",     "2.5",    "5",     "10",   "30",    "60",   "+Inf"};
        for (size_t b = 0; b < sizeof le / sizeof le[0]; b++) {
            double v =
                value_f(text,
                        "iocontend_http_request_duration_seconds_bucket{route=\"%s\","
                        "le=\"%s\"}",
                        route, le[b]);
            assert_false(isnan(v));
            assert_true(v >= last); /* cumulative */
            last = v;
        }
        assert_rel(last, count, 0);
        double sum = value_f(
            text, "iocontend_http_request_duration_seconds_sum{route=\"%s\"}", route);
        assert_true(sum > 0 && sum < 60 * count);
    }
    free(text);
}

static double json_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void ingest_runs_are_what_ingest_reported(void **state)
{
    static const char *const kinds[] = {"darshan", "iostat"};

    (void)state;
    char *text = scrape();
    const double now = (double)time(NULL) + 1;
    for (size_t k = 0; k < 2; k++) {
        const char *kind = kinds[k];
        const json_t *j = k == 0 ? fx.darshan : fx.iostat;
        static const char *const results[] = {"loaded", "skipped", "quarantined"};
        for (size_t r = 0; r < 3; r++) {
            double v = value_f(
                text, "iocontend_ingest_last_run_files{kind=\"%s\",result=\"%s\"}", kind,
                results[r]);
            assert_rel(v, json_num(j, results[r]), 0);
        }
        assert_rel(value_f(text, "iocontend_ingest_last_run_jobs{kind=\"%s\"}", kind),
                   json_num(j, "jobs"), 0);
        assert_rel(value_f(text, "iocontend_ingest_last_run_samples{kind=\"%s\"}", kind),
                   json_num(j, "samples"), 0);
        assert_rel(value_f(text, "iocontend_ingest_last_run_failed{kind=\"%s\"}", kind),
                   0, 0);
        /* The seconds ingest measured and printed. */
        assert_rel(value_f(text,
                           "iocontend_ingest_last_run_duration_seconds{kind=\"%s\"}",
                           kind),
                   json_num(j, "seconds"), 1e-6);
        double success = value_f(
            text, "iocontend_ingest_last_success_timestamp_seconds{kind=\"%s\"}", kind);
        double end = value_f(
            text, "iocontend_ingest_last_run_timestamp_seconds{kind=\"%s\"}", kind);
        assert_rel(success, end, 0);
        assert_true(success >= fx.loaded_at_s && success <= now);
    }
    /* The sample loads everything: something was loaded of each kind. */
    assert_true(json_num(fx.darshan, "loaded") > 0 && json_num(fx.darshan, "jobs") > 0);
    assert_true(json_num(fx.iostat, "samples") > 0);
    free(text);
}

static void analyze_run_is_what_analyze_reported(void **state)
{
    char name[64];
    long n = 0;
    double sum = 0;

    (void)state;
    char *text = scrape();
    assert_rel(must(text, "iocontend_analyze_last_run_jobs{kind=\"association\"}"),
               (double)fx.used, 0);
    assert_true(fx.used > 0);
    char *groups = pgfixture_query(&fx.db, "SELECT count(*) FROM app_groups", NULL);
    assert_non_null(groups);
    assert_rel(must(text, "iocontend_analyze_last_run_groups{kind=\"association\"}"),
               strtod(groups, NULL), 0);
    free(groups);
    /* Every reason is listed, 0 included; those analyze named have its counts. */
    for (const char *p = strstr(text, "iocontend_analyze_last_run_jobs_excluded{");
         p != NULL; p = strstr(p + 1, "iocontend_analyze_last_run_jobs_excluded{")) {
        assert_non_null(strstr(p, "kind=\"association\""));
        sum += strtod(strchr(p, ' ') + 1, NULL);
    }
    assert_rel(sum, (double)fx.excluded, 0);
    assert_true(fx.excluded > 0); /* the generator plants a hole */
    assert_false(isnan(must(text, "iocontend_analyze_last_run_jobs_excluded{kind="
                                  "\"association\",reason=\"no_io\"}")));
    for (const char *p = fx.by_reason; sscanf(p, "%63s %ld", name, &n) == 2;) {
        assert_rel(
            value_f(text,
                    "iocontend_analyze_last_run_jobs_excluded{kind=\"association\","
                    "reason=\"%s\"}",
                    name),
            (double)n, 0);
        p = strchr(p, ',');
        if (p == NULL)
            break;
        p++;
    }
    assert_true(fx.by_reason[0] != '\0');
    double seconds =
        must(text, "iocontend_analyze_last_run_duration_seconds{kind=\"association\"}");
    assert_true(seconds > 0 && seconds < 600);
    double at = must(
        text, "iocontend_analyze_last_success_timestamp_seconds{kind=\"association\"}");
    assert_true(at >= fx.loaded_at_s && at <= (double)time(NULL) + 1);
    /* No sweep ran. */
    assert_null(strstr(text, "kind=\"sweep\""));
    free(text);
}

static void freshness_is_the_newest_job_and_sample_of_the_database(void **state)
{
    (void)state;
    char *text = scrape();
    char *end = pgfixture_query(&fx.db, "SELECT max(end_time) FROM jobs", NULL);
    char *jobs = pgfixture_query(&fx.db, "SELECT count(*) FROM jobs", NULL);
    char *fss =
        pgfixture_query(&fx.db,
                        "SELECT string_agg(fs || ' ' || m, ' ' ORDER BY fs) FROM "
                        "(SELECT fs, max(stamp_s) AS m FROM samples GROUP BY fs) t",
                        NULL);
    assert_non_null(end);
    assert_non_null(jobs);
    assert_non_null(fss);
    assert_rel(must(text, "iocontend_newest_job_end_timestamp_seconds"),
               strtod(end, NULL), 0);
    assert_rel(must(text, "iocontend_database_jobs"), strtod(jobs, NULL), 0);
    /* "fs stamp fs stamp …" */
    size_t n_fs = 0;
    char *save = NULL;
    for (char *fs = strtok_r(fss, " ", &save); fs != NULL;
         fs = strtok_r(NULL, " ", &save)) {
        const char *stamp = strtok_r(NULL, " ", &save);
        assert_non_null(stamp);
        assert_rel(
            value_f(text, "iocontend_newest_sample_timestamp_seconds{fs=\"%s\"}", fs),
            strtod(stamp, NULL), 0);
        n_fs++;
    }
    /* One sample per file system, no other. */
    size_t listed = 0;
    for (const char *p = strstr(text, "\niocontend_newest_sample_timestamp_seconds{");
         p != NULL; p = strstr(p + 1, "\niocontend_newest_sample_timestamp_seconds{"))
        listed++;
    assert_int_equal(listed, n_fs);
    assert_true(n_fs >= 2);
    assert_non_null(strstr(text, fx.last_fs));
    free(end);
    free(jobs);
    free(fss);
    free(text);
}

static void metrics_need_the_token_when_the_api_does(void **state)
{
    struct server guarded;

    (void)state;
    setenv("IOCONTEND_TOKEN", TOKEN, 1);
    int rc = server_start(&guarded, &fx.db, fx.conf);
    unsetenv("IOCONTEND_TOKEN");
    assert_int_equal(rc, 0);
    char *refused = get(&guarded, "/metrics", NULL, 401);
    char *wrong = get(&guarded, "/metrics", "Authorization: Bearer nope\r\n", 401);
    char *text = get(&guarded, "/metrics", "Authorization: Bearer " TOKEN "\r\n", 200);
    server_stop(&guarded);
    assert_non_null(strstr(refused, "unauthorized"));
    /* The refusals are counted too, under the route they asked for. */
    assert_rel(requests(text, "metrics", 401), 2, 0);
    assert_rel(must(text, "iocontend_database_up"), 1, 0);
    free(refused);
    free(wrong);
    free(text);
}

/* GET path with the admin token on a new connection to s, the answer left unread:
 * the socket, -1 on failure. */
static int raw_get(const struct server *s, const char *path)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    char req[512];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " ADMIN
                     "\r\nConnection: close\r\n\r\n",
                     path);

    inet_pton(AF_INET, SERVER_HOST, &to.sin_addr);
    if (fd >= 0 && (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 ||
                    send(fd, req, (size_t)n, MSG_NOSIGNAL) != n)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The status of the answer on fd, read within timeout_s; 0 when none came. */
static int raw_status(int fd, double timeout_s)
{
    char head[64] = "";
    struct pollfd p = {.fd = fd, .events = POLLIN};

    if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0 ||
        recv(fd, head, sizeof head - 1, 0) < 12)
        return 0;
    return strncmp(head, "HTTP/1.", 7) == 0 ? atoi(head + 9) : 0;
}

/* Scrapes s until iocontend_computations_running is 0 (up to 10 s). */
static char *scrape_idle(const struct server *s)
{
    for (int i = 0; i < 100; i++) {
        char *text = get(s, "/metrics", NULL, 200);
        if (value_of(text, "iocontend_computations_running") == 0)
            return text;
        free(text);
        testutil_sleep_s(0.1);
    }
    fail_msg("a computation still runs after 10 s");
    return NULL;
}

static void computations_are_counted_by_how_they_end(void **state)
{
    struct server one;
    char conf[700], path[128];
    size_t len = 0;

    (void)state;
    /* The sample's configuration, one computing thread and a short deadline. */
    char *text = testutil_read_file(fx.conf, &len);
    assert_non_null(text);
    char extra[200];
    int n = snprintf(extra, sizeof extra,
                     "\n[serve]\nadmin_token = " ADMIN "\ncompute_threads = 1\n"
                     "deadline_s = %d\n",
                     DEADLINE_S);
    snprintf(conf, sizeof conf, "%s/one.conf", fx.db.state_dir);
    char *all = malloc(len + (size_t)n + 1);
    assert_non_null(all);
    memcpy(all, text, len);
    memcpy(all + len, extra, (size_t)n + 1);
    free(text);
    assert_int_equal(testutil_write_file(conf, all, len + (size_t)n), 0);
    free(all);
    assert_int_equal(server_start(&one, &fx.db, conf), 0);
    snprintf(path, sizeof path, "/api/v1/groups/%s/" LONG_QUERY, fx.group);

    /* One runs; a second is refused; the first reaches the deadline. */
    int running = raw_get(&one, path);
    assert_true(running >= 0);
    testutil_sleep_s(0.5); /* taken by the thread */
    int refused = raw_get(&one, path);
    assert_true(refused >= 0);
    int busy = raw_status(refused, 10);
    close(refused);
    char *mid = get(&one, "/metrics", NULL, 200);
    int late = raw_status(running, DEADLINE_S + 20);
    close(running);
    /* A third whose client leaves. */
    char *idle = scrape_idle(&one);
    int gone = raw_get(&one, path);
    assert_true(gone >= 0);
    testutil_sleep_s(0.5);
    close(gone);
    testutil_sleep_s(0.5);
    char *end = scrape_idle(&one);
    server_stop(&one);

    assert_int_equal(busy, 503);
    assert_int_equal(late, 503);
    assert_rel(must(mid, "iocontend_compute_threads"), 1, 0);
    assert_rel(must(mid, "iocontend_computations_running"), 1, 0);
    assert_rel(must(mid, "iocontend_computations_refused_total"), 1, 0);
    assert_rel(must(idle, "iocontend_computations_deadline_exceeded_total"), 1, 0);
    assert_rel(must(end, "iocontend_computations_started_total"), 2, 0);
    assert_rel(must(end, "iocontend_computations_refused_total"), 1, 0);
    assert_rel(must(end, "iocontend_computations_deadline_exceeded_total"), 1, 0);
    assert_rel(
        must(end, "iocontend_computations_cancelled_total{reason=\"client_gone\"}"), 1,
        0);
    assert_rel(must(end, "iocontend_computations_cancelled_total{reason=\"shutdown\"}"),
               0, 0);
    /* Busy, deadline, and the stopped one whose client left (503 cancelled, sent to
     * nobody). */
    assert_rel(requests(end, "association", 503), 3, 0);
    free(mid);
    free(idle);
    free(end);
}

/* Last: it marks the newest darshan run failed behind ingest's back. */
static void a_failed_run_is_the_last_run_not_the_last_success(void **state)
{
    (void)state;
    char *before = scrape();
    const double success =
        must(before, "iocontend_ingest_last_success_timestamp_seconds{kind=\"darshan\"}");
    /* A second run that ends with an error, one second after the first. */
    char *ok = pgfixture_query(
        &fx.db,
        "INSERT INTO ingest_runs (kind, started_at, finished_at, files, failed) "
        "SELECT 'darshan', max(finished_at), max(finished_at) + interval '1.5 s', 5, "
        "true "
        "FROM ingest_runs WHERE kind = 'darshan' RETURNING files",
        NULL);
    assert_non_null(ok);
    assert_string_equal(ok, "5");
    server_await_data(&fx.srv);
    char *after = scrape();
    assert_rel(must(after, "iocontend_ingest_last_run_failed{kind=\"darshan\"}"), 1, 0);
    assert_rel(
        must(after, "iocontend_ingest_last_success_timestamp_seconds{kind=\"darshan\"}"),
        success, 0);
    assert_rel(
        must(after, "iocontend_ingest_last_run_timestamp_seconds{kind=\"darshan\"}"),
        success + 1.5, 1e-6);
    assert_rel(
        must(after, "iocontend_ingest_last_run_duration_seconds{kind=\"darshan\"}"), 1.5,
        1e-9);
    assert_rel(must(after, "iocontend_ingest_last_run_failed{kind=\"iostat\"}"), 0, 0);
    free(ok);
    free(before);
    free(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(live_output_passes_promtool_check_metrics),
        cmocka_unit_test(requests_are_counted_exactly_by_route_and_status),
        cmocka_unit_test(histogram_count_and_buckets_agree_with_the_requests),
        cmocka_unit_test(ingest_runs_are_what_ingest_reported),
        cmocka_unit_test(analyze_run_is_what_analyze_reported),
        cmocka_unit_test(freshness_is_the_newest_job_and_sample_of_the_database),
        cmocka_unit_test(metrics_need_the_token_when_the_api_does),
        cmocka_unit_test(computations_are_counted_by_how_they_end),
        cmocka_unit_test(a_failed_run_is_the_last_run_not_the_last_success),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
