/* test_api.c: the HTTP API of INTERFACES.md over real HTTP against a real PostgreSQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../support/pgfixture.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOST SERVER_HOST

/* The fixture of the whole suite, made once in the group setup. */
static struct {
    struct pgfixture db; /* the throwaway database (and state dir for config files) */
    struct server main;  /* the server every test talks to */
    long jobs;           /* jobs in the database, from health */
} fx;

static int group_setup(void **state)
{
    const char *data = testutil_shared_data();

    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN"); /* the main server is open; one test adds a token */
    if (pgfixture_start(&fx.db) != 0)
        return -1; /* cmocka runs the group teardown even then: it cleans up */
    /* A few real logs: the lab run's jobs (several groups) and three other machines. */
    int rc = pgfixture_cmd(&fx.db,
                           "ingest darshan --json '%s/lab/run1_queue_depth/darshan' "
                           "'%s/darshan/ior_hdf5' '%s/darshan/skew_app' "
                           "'%s/darshan/release_x86_64_3.4.7'",
                           data, data, data, data);
    if (rc != 0 && rc != 1)
        return -1;
    return server_start(&fx.main, &fx.db, NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.main);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- HTTP helpers -------------------------------------------------------------- */

static json_t *get_json(const char *path, int want)
{
    return server_get_json(&fx.main, path, NULL, want);
}

/* Fails unless j is the error body with that status word (and parameter, unless
 * NULL). */
static void assert_error_body(const json_t *j, const char *status, const char *parameter)
{
    const json_t *e = json_object_get(j, "error");

    assert_true(json_is_object(e));
    assert_string_equal(json_string_value(json_object_get(e, "status")), status);
    assert_true(json_is_string(json_object_get(e, "message")));
    if (parameter != NULL) {
        assert_string_equal(json_string_value(json_object_get(e, "parameter")),
                            parameter);
    }
}

static void expect_invalid(const char *path, const char *parameter)
{
    json_t *j = get_json(path, 400);
    assert_error_body(j, "invalid", parameter);
    json_decref(j);
}

/* Percent-encodes a query value. */
static void url_encode(const char *in, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;

    for (; *in != '\0' && o + 4 < size; in++) {
        unsigned char c = (unsigned char)*in;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

/* Every job through paging by limit (and an extra query, e.g. "&group=G"), as one
 * array in the order served. */
static json_t *all_jobs(size_t limit, const char *extra)
{
    json_t *all = json_array();
    char cursor[256] = "", path[1024];

    for (int pages = 0; pages < 10000; pages++) {
        if (cursor[0] != '\0') {
            snprintf(path, sizeof path, "/api/v1/jobs?limit=%zu&cursor=%s%s", limit,
                     cursor, extra);
        } else {
            snprintf(path, sizeof path, "/api/v1/jobs?limit=%zu%s", limit, extra);
        }
        json_t *page = get_json(path, 200);
        json_t *jobs = json_object_get(page, "jobs"); /* borrowed */
        const json_t *next = json_object_get(page, "next_cursor");
        assert_true(json_is_array(jobs));
        assert_true(json_array_size(jobs) <= limit);
        json_array_extend(all, jobs);
        if (json_is_null(next)) {
            json_decref(page);
            return all;
        }
        assert_true(json_is_string(next));
        assert_int_equal(json_array_size(jobs), limit); /* only the last page is short */
        url_encode(json_string_value(next), cursor, sizeof cursor);
        json_decref(page);
    }
    fail_msg("paging did not end");
    return all;
}

static double job_start_s(const json_t *job)
{
    return (double)json_integer_value(json_object_get(job, "start_ms")) / 1000.0;
}

/* ---- tests --------------------------------------------------------------------- */

static void health_reports_a_reachable_database_and_its_schema_version(void **state)
{
    json_t *j = get_json("/api/v1/health", 200);

    (void)state;
    assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(j, "database")), "reachable");
    assert_true(json_is_integer(json_object_get(j, "schema_version")));
    assert_true(json_integer_value(json_object_get(j, "schema_version")) >= 1);
    assert_true(json_is_string(json_object_get(j, "last_ingest"))); /* we ingested */
    assert_true(json_is_string(json_object_get(j, "last_analysis")) ||
                json_is_null(json_object_get(j, "last_analysis")));
    assert_true(json_is_integer(json_object_get(j, "samples")));
    assert_string_equal(json_string_value(json_object_get(j, "version")),
                        IOCONTEND_VERSION);
    fx.jobs = (long)json_integer_value(json_object_get(j, "jobs"));
    assert_true(fx.jobs >= 5);
    json_decref(j);
}

static void groups_list_every_group_and_their_jobs_add_up_to_all_jobs(void **state)
{
    json_t *j = get_json("/api/v1/groups", 200);
    json_t *h = get_json("/api/v1/health", 200);
    const json_t *groups = json_object_get(j, "groups"), *g;
    long sum = 0;
    size_t i;

    (void)state;
    assert_true(json_is_array(groups));
    assert_true(json_array_size(groups) >= 2);
    for (i = 0; (g = json_array_get(groups, i)) != NULL; i++) {
        assert_true(json_is_string(json_object_get(g, "id")));
        assert_true(json_is_string(json_object_get(g, "name")));
        assert_true(json_is_string(json_object_get(g, "key")));
        assert_true(json_is_integer(json_object_get(g, "jobs")));
        assert_true(json_integer_value(json_object_get(g, "jobs")) >= 1);
        sum += (long)json_integer_value(json_object_get(g, "jobs"));
    }
    assert_int_equal(sum, json_integer_value(json_object_get(h, "jobs")));
    json_decref(h);
    json_decref(j);
}

static void paging_by_two_visits_every_job_exactly_once_in_start_order(void **state)
{
    json_t *h = get_json("/api/v1/health", 200);
    json_t *all = all_jobs(2, "");
    json_t *seen = json_object();
    const json_t *job;
    double last_start = -INFINITY;
    size_t i;

    (void)state;
    assert_int_equal(json_array_size(all),
                     json_integer_value(json_object_get(h, "jobs")));
    for (i = 0; (job = json_array_get(all, i)) != NULL; i++) {
        const char *id = json_string_value(json_object_get(job, "id"));
        assert_non_null(id);
        assert_null(json_object_get(seen, id)); /* exactly once */
        json_object_set_new(seen, id, json_true());
        assert_true(job_start_s(job) >= last_start);
        last_start = job_start_s(job);
    }
    json_decref(seen);
    json_decref(all);
    json_decref(h);
}

static void a_job_carries_every_field_of_the_contract(void **state)
{
    static const char *const metrics[] = {"t_j", "t_um", "t_urw", "t_s",
                                          "t",   "t_fr", "t_fw"};
    static const char *const counts[] = {"eta_read",      "eta_write", "eta_mon_read",
                                         "eta_mon_write", "uid",       "nprocs",
                                         "start_ms",      "end_ms"};
    json_t *all = all_jobs(1000, "");
    const json_t *job;
    size_t i;

    (void)state;
    assert_true(json_array_size(all) > 0);
    for (i = 0; (job = json_array_get(all, i)) != NULL; i++) {
        char want[40];
        struct tm tm;
        time_t start =
            (time_t)(json_integer_value(json_object_get(job, "start_ms")) / 1000);

        assert_int_equal(strlen(json_string_value(json_object_get(job, "id"))), 32);
        assert_true(
            json_is_string(json_object_get(job, "jobid"))); /* 64-bit ids: strings */
        assert_true(json_is_string(json_object_get(job, "group")));
        assert_true(json_is_string(json_object_get(job, "exe")));
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            assert_true(json_is_integer(json_object_get(job, counts[k])));
        for (size_t k = 0; k < sizeof metrics / sizeof metrics[0]; k++) {
            const json_t *m = json_object_get(job, metrics[k]);
            assert_true(json_is_null(m) ||
                        (json_is_number(m) && json_number_value(m) >= 0));
        }
        assert_true(json_is_number(json_object_get(job, "t_j")));
        /* RFC 3339 in UTC, the same instant as start_ms. */
        gmtime_r(&start, &tm);
        strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
        assert_string_equal(json_string_value(json_object_get(job, "start")), want);
        assert_true(json_integer_value(json_object_get(job, "end_ms")) >=
                    json_integer_value(json_object_get(job, "start_ms")));
    }
    json_decref(all);
}

/* The ids served for path, as a JSON object used as a set. */
static json_t *ids_of(const char *path)
{
    json_t *page = get_json(path, 200), *ids = json_object();
    const json_t *job;
    size_t i;

    assert_true(json_is_null(json_object_get(page, "next_cursor")));
    for (i = 0; (job = json_array_get(json_object_get(page, "jobs"), i)) != NULL; i++) {
        json_object_set_new(ids, json_string_value(json_object_get(job, "id")),
                            json_true());
    }
    json_decref(page);
    return ids;
}

static void from_and_to_keep_exactly_the_jobs_that_overlap_the_window(void **state)
{
    json_t *all = all_jobs(1000, "");
    const json_t *job, *pick = NULL;
    size_t i, n_long = 0, k = 0, expected = 0;
    char path[256], from_text[64], enc[128];
    struct tm tm;

    (void)state;
    /* A window of one second starting half a second into a job of the middle. */
    for (i = 0; (job = json_array_get(all, i)) != NULL; i++) {
        if (json_number_value(json_object_get(job, "t_j")) >= 1)
            n_long++;
    }
    assert_true(n_long > 0);
    for (i = 0; (job = json_array_get(all, i)) != NULL; i++) {
        if (json_number_value(json_object_get(job, "t_j")) >= 1 && k++ == n_long / 2)
            pick = job;
    }
    json_int_t from_ms = json_integer_value(json_object_get(pick, "start_ms")) + 500;
    json_int_t to_ms = from_ms + 1000;
    double from_s = (double)from_ms / 1000.0, to_s = (double)to_ms / 1000.0;

    snprintf(path, sizeof path, "/api/v1/jobs?limit=1000&from=%lld&to=%lld",
             (long long)from_ms, (long long)to_ms);
    json_t *by_ms = ids_of(path);
    /* The same window in RFC 3339. */
    time_t whole = (time_t)(from_ms / 1000);
    gmtime_r(&whole, &tm);
    strftime(from_text, sizeof from_text, "%Y-%m-%dT%H:%M:%S.500Z", &tm);
    url_encode(from_text, enc, sizeof enc);
    snprintf(path, sizeof path, "/api/v1/jobs?limit=1000&from=%s&to=%lld", enc,
             (long long)to_ms);
    json_t *by_text = ids_of(path);
    assert_true(json_equal(by_ms, by_text));
    assert_non_null(
        json_object_get(by_ms, json_string_value(json_object_get(pick, "id"))));
    /* [start, start + t_j] overlaps [from, to) — exactly those, none else. */
    for (i = 0; (job = json_array_get(all, i)) != NULL; i++) {
        double start = job_start_s(job);
        double end = start + json_number_value(json_object_get(job, "t_j"));
        bool overlaps = start < to_s && end >= from_s;
        bool served =
            json_object_get(by_ms, json_string_value(json_object_get(job, "id")));
        if (fabs(start - to_s) < 1e-3 || fabs(end - from_s) < 1e-3)
            continue; /* on an edge: printing t_j may round either way */
        expected += overlaps;
        assert_int_equal(served, overlaps);
    }
    assert_true(expected >= 1);
    assert_true(expected < json_array_size(all)); /* the filter did filter */
    json_decref(by_text);
    json_decref(by_ms);
    json_decref(all);
}

static void group_filter_keeps_only_that_groups_jobs(void **state)
{
    json_t *groups = get_json("/api/v1/groups", 200);
    const json_t *g, *job;
    const char *id = NULL;
    json_int_t want = 0;
    char extra[64];
    size_t i;

    (void)state;
    for (i = 0; (g = json_array_get(json_object_get(groups, "groups"), i)) != NULL; i++) {
        if (json_integer_value(json_object_get(g, "jobs")) >= 2) {
            id = json_string_value(json_object_get(g, "id"));
            want = json_integer_value(json_object_get(g, "jobs"));
            break;
        }
    }
    assert_non_null(id);
    snprintf(extra, sizeof extra, "&group=%s", id);
    json_t *jobs = all_jobs(1, extra);
    assert_int_equal(json_array_size(jobs), want);
    for (i = 0; (job = json_array_get(jobs, i)) != NULL; i++)
        assert_string_equal(json_string_value(json_object_get(job, "group")), id);
    json_decref(jobs);
    json_decref(groups);
}

static void a_limit_outside_1_to_1000_is_refused_naming_limit(void **state)
{
    (void)state;
    expect_invalid("/api/v1/jobs?limit=0", "limit");
    expect_invalid("/api/v1/jobs?limit=1001", "limit");
    expect_invalid("/api/v1/jobs?limit=-5", "limit");
    expect_invalid("/api/v1/jobs?limit=two", "limit");
}

static void a_malformed_window_is_refused_naming_its_parameter(void **state)
{
    (void)state;
    expect_invalid("/api/v1/jobs?from=yesterday", "from");
    expect_invalid("/api/v1/jobs?from=2026-13-20T10:00:00Z", "from");
    expect_invalid("/api/v1/jobs?to=2026-11-20T10:00:00", "to"); /* no zone */
    expect_invalid("/api/v1/jobs?from=2026-11-20T10:00:00Z&to=2026-11-20T09:00:00Z",
                   "to");
    expect_invalid("/api/v1/jobs?cursor=not-a-cursor", "cursor");
}

static void an_unknown_route_answers_404_with_the_error_body(void **state)
{
    json_t *j = get_json("/api/v1/nothing", 404);
    const json_t *e = json_object_get(j, "error");

    (void)state;
    assert_error_body(j, "not_found", NULL);
    assert_string_equal(json_string_value(json_object_get(e, "message")),
                        "no route GET /api/v1/nothing");
    json_decref(j);
}

static void association_of_an_unknown_group_answers_404(void **state)
{
    json_t *j = get_json("/api/v1/groups/ffffffffffffffff/association", 404);

    (void)state;
    assert_error_body(j, "not_found", NULL);
    json_decref(j);
    j = get_json("/api/v1/groups/not-even-an-id-this-long/association", 404);
    assert_error_body(j, "not_found", NULL);
    json_decref(j);
}

/* The id of the first group served. Borrowed static storage. */
static const char *some_group(void)
{
    static char id[64];
    json_t *groups = get_json("/api/v1/groups", 200);
    const json_t *first = json_array_get(json_object_get(groups, "groups"), 0);

    assert_non_null(first);
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(first, "id")));
    json_decref(groups);
    return id;
}

static void association_with_an_unknown_metric_answers_400_naming_y_or_x(void **state)
{
    char path[256];
    const char *id = some_group();

    (void)state;
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=no_such_metric", id);
    expect_invalid(path, "y");
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?x=no_such_metric", id);
    expect_invalid(path, "x");
}

static void association_with_a_nonpositive_granularity_answers_400(void **state)
{
    static const char *const bad[] = {"0", "-60", "sixty", "1e999", "nan"};
    char path[256];
    const char *id = some_group();

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "/api/v1/groups/%s/association?granularity=%s", id,
                 bad[i]);
        expect_invalid(path, "granularity");
    }
}

/* The association's KDE and significance parameters are validated before any work,
 * each 400 naming its parameter. */
static void association_options_answer_400_naming_the_parameter(void **state)
{
    static const struct {
        const char *query, *parameter;
    } bad[] = {
        {"space=cubic", "space"},
        {"kernel=diagonal", "kernel"},
        {"bandwidth=sj", "bandwidth"},
        {"bandwidth=plugin&kernel=full", "bandwidth"},
        {"density=yes", "density"},
        {"density=2", "density"},
        {"significance=true", "significance"},
        {"permutations=-1", "permutations"},
        {"permutations=1e3", "permutations"},
        {"permutations=100000", "permutations"},
        {"resamples=many", "resamples"},
    };
    char path[256];
    const char *id = some_group();

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "/api/v1/groups/%s/association?%s", id, bad[i].query);
        expect_invalid(path, bad[i].parameter);
    }
}

static void a_method_other_than_get_answers_405(void **state)
{
    int status = 0;
    char *body = NULL;

    (void)state;
    assert_int_equal(
        http_request(HOST, fx.main.port, "POST", "/api/v1/health", NULL, &status, &body),
        0);
    assert_int_equal(status, 405);
    json_t *j = json_loads(body, 0, NULL);
    assert_non_null(j);
    assert_true(json_is_object(json_object_get(j, "error")));
    json_decref(j);
    free(body);
}

static void static_paths_that_climb_out_of_the_page_folder_are_refused(void **state)
{
    static const char *const paths[] = {"/web/../Makefile", "/web/%2e%2e/Makefile",
                                        "/web/../../etc/passwd", "/web/.hidden"};

    (void)state;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int status = 0;
        char *body = NULL;
        assert_int_equal(http_get(HOST, fx.main.port, paths[i], NULL, &status, &body), 0);
        if (status != 404)
            print_error("GET %s answered %d\n", paths[i], status);
        assert_int_equal(status, 404);
        assert_null(strstr(body, "root:")); /* nothing of /etc/passwd */
        free(body);
    }
}

static void the_page_is_served_at_the_root_and_under_web(void **state)
{
    char *root = NULL, *named = NULL, *under_web = NULL;
    int status = 0;

    (void)state;
    /* The server finds web/index.html from its binary's folder upwards. */
    assert_int_equal(http_get(HOST, fx.main.port, "/", NULL, &status, &root), 0);
    assert_int_equal(status, 200);
    assert_non_null(strstr(root, "<html"));
    assert_int_equal(http_get(HOST, fx.main.port, "/index.html", NULL, &status, &named),
                     0);
    assert_int_equal(status, 200);
    assert_int_equal(
        http_get(HOST, fx.main.port, "/web/index.html", NULL, &status, &under_web), 0);
    assert_int_equal(status, 200);
    assert_string_equal(root, named);
    assert_string_equal(root, under_web);
    free(under_web);
    free(named);
    free(root);
}

static void api_needs_the_bearer_token_when_one_is_configured(void **state)
{
    char conf[600];
    struct server s;
    FILE *fp;

    (void)state;
    snprintf(conf, sizeof conf, "%s/token.conf", fx.db.state_dir);
    fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "[serve]\ntoken = t0ken-2.385\n");
    fclose(fp);
    assert_int_equal(server_start(&s, &fx.db, conf), 0);

    json_t *j = server_get_json(&s, "/api/v1/health", NULL, 401);
    json_decref(j);
    j = server_get_json(&s, "/api/v1/health", "Authorization: Bearer t0ken-2.38\r\n",
                        401);
    json_decref(j);
    j = server_get_json(&s, "/api/v1/health", "Authorization: Bearer t0ken-2.385\r\n",
                        200);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
    json_decref(j);
    assert_int_equal(server_stop(&s), 0);
}

/* Asks /health every 0.1 s until it answers want or limit_s passed; the last
 * status. */
static int health_becomes(int want, double limit_s)
{
    int status = 0;

    for (double waited = 0; waited <= limit_s; waited += 0.1) {
        char *body = NULL;
        status = 0;
        http_get(HOST, fx.main.port, "/api/v1/health", NULL, &status, &body);
        free(body);
        if (status == want)
            break;
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    return status;
}

static void health_answers_503_while_the_database_is_down(void **state)
{
    (void)state;
    if (fx.db.configured)
        skip(); /* not ours to stop */
    assert_int_equal(pgfixture_cmd(&fx.db, "db stop"), 0);
    /* Health answers from a snapshot read once a second: it says so within 2 s. */
    assert_int_equal(health_becomes(503, 3.0), 503);
    json_t *j = get_json("/api/v1/health", 503);
    assert_error_body(j, "db", NULL);
    json_decref(j);
    assert_int_equal(pgfixture_cmd(&fx.db, "db start"), 0);
    assert_int_equal(health_becomes(200, 5.0), 200); /* and it reconnects */
    j = get_json("/api/v1/health", 200);
    json_decref(j);
}

/* ---- a database restart ------------------------------------------------------- */

#define RESTART_CLIENTS 4

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One HTTP client of the restart test: GETs /api/v1/groups (each asks the database)
 * count times, or until stop is set when count is 0; client 0 asks /jobs, which
 * runs on the compute pool's connection. It records the first answer other than 200
 * among those asked at or after back_s. */
struct restart_client {
    int port;
    int id;
    int count;
    atomic_bool *stop;
    const double *back_s; /* 0 until the database is back */
    pthread_mutex_t *lock;
    int asked_after; /* requests begun once the database was back */
    int bad_status;  /* the first answer other than 200 among those, 0 when none */
    char bad_body[200];
};

static void *restart_client_run(void *arg)
{
    struct restart_client *c = arg;

    for (int i = 0; c->count == 0 ? !atomic_load(c->stop) : i < c->count; i++) {
        pthread_mutex_lock(c->lock);
        double back_s = *c->back_s;
        pthread_mutex_unlock(c->lock);
        bool after = back_s > 0 && now_s() >= back_s;
        int status = 0;
        char *body = NULL;
        const char *path =
            c->id == 0 && i % 2 == 1 ? "/api/v1/jobs?limit=3" : "/api/v1/groups";
        if (http_get(HOST, c->port, path, NULL, &status, &body) != 0)
            status = -1;
        if (after) {
            c->asked_after++;
            if (status != 200 && c->bad_status == 0) {
                c->bad_status = status;
                snprintf(c->bad_body, sizeof c->bad_body, "%s %s", path,
                         body != NULL ? body : "(no answer)");
            }
        }
        free(body);
    }
    return NULL;
}

/* RESTART_CLIENTS clients at once (count requests each, or until *stop); fails the
 * test when any request begun after *back_s was not answered 200. Returns the
 * requests begun after it. */
static int restart_clients(int port, int count, atomic_bool *stop, double *back_s,
                           pthread_mutex_t *lock,
                           void (*meanwhile)(double *, pthread_mutex_t *))
{
    struct restart_client c[RESTART_CLIENTS];
    pthread_t t[RESTART_CLIENTS];
    int asked = 0;

    for (int i = 0; i < RESTART_CLIENTS; i++) {
        c[i] = (struct restart_client){.port = port,
                                       .id = i,
                                       .count = count,
                                       .stop = stop,
                                       .back_s = back_s,
                                       .lock = lock};
        assert_int_equal(pthread_create(&t[i], NULL, restart_client_run, &c[i]), 0);
    }
    if (meanwhile != NULL)
        meanwhile(back_s, lock);
    atomic_store(stop, true);
    for (int i = 0; i < RESTART_CLIENTS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < RESTART_CLIENTS; i++) {
        if (c[i].bad_status != 0)
            fail_msg("client %d: %d after the database was back: %s", i, c[i].bad_status,
                     c[i].bad_body);
        asked += c[i].asked_after;
    }
    return asked;
}

/* `db stop` then `db start` (pg_ctl -m fast, then -w: it accepts connections when
 * this returns); *back_s set then. */
static void restart_database(double *back_s, pthread_mutex_t *lock)
{
    assert_int_equal(pgfixture_cmd(&fx.db, "db stop"), 0);
    assert_int_equal(pgfixture_cmd(&fx.db, "db start"), 0);
    pthread_mutex_lock(lock);
    *back_s = now_s();
    pthread_mutex_unlock(lock);
}

/* Under load: clients keep asking while it restarts, and one second after. */
static void restart_under_load(double *back_s, pthread_mutex_t *lock)
{
    restart_database(back_s, lock);
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
}

static void a_database_restart_answers_no_503_once_the_database_is_back(void **state)
{
    char conf[600];
    struct server s;
    FILE *fp;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    atomic_bool stop = false;
    double back_s = 0;

    (void)state;
    if (fx.db.configured)
        skip(); /* not ours to restart */
    /* A pool of 4 connections (3 workers, 1 compute thread), each opened by the warm
     * up: 4 clients at once. */
    snprintf(conf, sizeof conf, "%s/pool.conf", fx.db.state_dir);
    fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "[serve]\nthreads = 3\ncompute_threads = 1\n");
    fclose(fp);
    assert_int_equal(server_start(&s, &fx.db, conf), 0);
    back_s = now_s(); /* every answer of the warm up must be 200 too */
    assert_true(restart_clients(s.port, 15, &stop, &back_s, &lock, NULL) == 60);

    /* Idle while it restarts: the pool's connections are all dead, unknown to it,
     * until each is used (a 503 for the first use of each, however late). */
    back_s = 0;
    restart_database(&back_s, &lock);
    atomic_store(&stop, false);
    assert_true(restart_clients(s.port, 15, &stop, &back_s, &lock, NULL) == 60);

    /* Asked while it restarts: those begun before it is back may fail; none after. */
    back_s = 0;
    atomic_store(&stop, false);
    int after = restart_clients(s.port, 0, &stop, &back_s, &lock, restart_under_load);
    assert_true(after >= 2 * RESTART_CLIENTS);
    assert_int_equal(server_stop(&s), 0);
}

static void the_server_stops_cleanly_on_sigterm(void **state)
{
    (void)state;
    assert_int_equal(server_stop(&fx.main), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(health_reports_a_reachable_database_and_its_schema_version),
        cmocka_unit_test(groups_list_every_group_and_their_jobs_add_up_to_all_jobs),
        cmocka_unit_test(paging_by_two_visits_every_job_exactly_once_in_start_order),
        cmocka_unit_test(a_job_carries_every_field_of_the_contract),
        cmocka_unit_test(from_and_to_keep_exactly_the_jobs_that_overlap_the_window),
        cmocka_unit_test(group_filter_keeps_only_that_groups_jobs),
        cmocka_unit_test(a_limit_outside_1_to_1000_is_refused_naming_limit),
        cmocka_unit_test(a_malformed_window_is_refused_naming_its_parameter),
        cmocka_unit_test(an_unknown_route_answers_404_with_the_error_body),
        cmocka_unit_test(association_of_an_unknown_group_answers_404),
        cmocka_unit_test(association_with_an_unknown_metric_answers_400_naming_y_or_x),
        cmocka_unit_test(association_with_a_nonpositive_granularity_answers_400),
        cmocka_unit_test(association_options_answer_400_naming_the_parameter),
        cmocka_unit_test(a_method_other_than_get_answers_405),
        cmocka_unit_test(static_paths_that_climb_out_of_the_page_folder_are_refused),
        cmocka_unit_test(the_page_is_served_at_the_root_and_under_web),
        cmocka_unit_test(api_needs_the_bearer_token_when_one_is_configured),
        cmocka_unit_test(health_answers_503_while_the_database_is_down),
        cmocka_unit_test(a_database_restart_answers_no_503_once_the_database_is_back),
        cmocka_unit_test(the_server_stops_cleanly_on_sigterm),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
