/* test_cache.c: stored answers from memory over real HTTP against a real PostgreSQL:
 * the same ETag twice, 304 on If-None-Match, gzip that inflates to the same body, a
 * new answer within about a second of an unload and of an analyze, and /health and
 * cached answers while jobs and samples are locked (they touch neither). */
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
#include <jansson.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* How long a changed answer may take to show: the poller reads the data version
 * once a second; the rest is room for a loaded machine. */
#define CHANGE_MAX_S 3.0

static struct {
    struct pgfixture db;
    struct server srv;
    char group[17]; /* the first group */
    char dir[512];
    char conf[600];
} fx;

/* One answer read whole: status, the headers' text and the body's bytes. */
struct answer {
    int status;
    char headers[4096];
    char *body; /* malloc'd, NUL-terminated; body_len bytes before it */
    size_t body_len;
};

static int group_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (sample_generate(fx.dir, 1, "--coupling 0 --days 1 --jobs-per-group 40") != 0 ||
        sample_load(&fx.db, fx.dir) != 0 || server_start(&fx.srv, &fx.db, fx.conf) != 0)
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

/* GET path with extra header lines over a fresh connection (HTTP/1.0, so the body
 * ends with the connection); gives up after 5 s. 0 when an answer came. */
static int fetch(const char *path, const char *headers, struct answer *a)
{
    struct sockaddr_in to = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)fx.srv.port)};
    struct timeval tv = {5, 0};
    char req[1024];
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    memset(a, 0, sizeof *a);
    if (fd < 0 || buf == NULL) {
        free(buf);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    inet_pton(AF_INET, SERVER_HOST, &to.sin_addr);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n%s\r\n", path,
                     headers != NULL ? headers : "");
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 ||
        write(fd, req, (size_t)n) != n) {
        close(fd);
        free(buf);
        return -1;
    }
    for (;;) {
        if (len + 4096 > cap) {
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    if (end == NULL || sscanf(buf, "HTTP/1.%*d %d", &a->status) != 1) {
        free(buf);
        return -1;
    }
    size_t head = (size_t)(end - buf);
    snprintf(a->headers, sizeof a->headers, "%.*s", (int)head, buf);
    a->body_len = len - head - 4;
    a->body = malloc(a->body_len + 1);
    if (a->body != NULL) {
        memcpy(a->body, end + 4, a->body_len);
        a->body[a->body_len] = '\0';
    }
    free(buf);
    return a->body != NULL ? 0 : -1;
}

/* The value of header name (case-insensitive) into out, "" when absent. */
static void header(const struct answer *a, const char *name, char *out, size_t size)
{
    size_t n = strlen(name);

    out[0] = '\0';
    for (const char *p = strstr(a->headers, "\r\n"); p != NULL;
         p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':') {
            const char *v = p + 3 + n;
            while (*v == ' ')
                v++;
            snprintf(out, size, "%.*s", (int)strcspn(v, "\r"), v);
            return;
        }
    }
}

static void association_path(char *out, size_t size)
{
    snprintf(out, size, "/api/v1/groups/%s/association", fx.group);
}

/* An answer of path, asserted 200 with an ETag; the caller frees a->body. */
static void fetch_cached(const char *path, const char *headers, struct answer *a,
                         char etag[64])
{
    assert_int_equal(fetch(path, headers, a), 0);
    assert_int_equal(a->status, 200);
    header(a, "ETag", etag, 64);
    assert_true(etag[0] == '"'); /* strong: no W/ */
}

static void stored_association_answered_twice_has_the_same_etag(void **state)
{
    struct answer a, b;
    char path[128], e1[64], e2[64], cc[64];

    (void)state;
    association_path(path, sizeof path);
    fetch_cached(path, NULL, &a, e1);
    fetch_cached(path, NULL, &b, e2);
    assert_string_equal(e1, e2);
    assert_int_equal(a.body_len, b.body_len);
    assert_memory_equal(a.body, b.body, a.body_len);
    header(&a, "Cache-Control", cc, sizeof cc);
    assert_string_equal(cc, "no-cache");
    json_t *j = json_loads(a.body, 0, NULL);
    assert_non_null(j);
    assert_true(json_is_true(json_object_get(json_object_get(j, "stored"),
                                             "current"))); /* what analyze kept */
    json_decref(j);
    free(a.body);
    free(b.body);
}

static void if_none_match_answers_304_without_a_body(void **state)
{
    struct answer a, b;
    char path[128], etag[64], again[64], inm[128];

    (void)state;
    association_path(path, sizeof path);
    fetch_cached(path, NULL, &a, etag);
    snprintf(inm, sizeof inm, "If-None-Match: %s\r\n", etag);
    assert_int_equal(fetch(path, inm, &b), 0);
    assert_int_equal(b.status, 304);
    assert_int_equal(b.body_len, 0);
    header(&b, "ETag", again, sizeof again);
    assert_string_equal(again, etag);
    free(b.body);
    /* Another ETag gets the body. */
    assert_int_equal(fetch(path, "If-None-Match: \"0123456789abcdef\"\r\n", &b), 0);
    assert_int_equal(b.status, 200);
    assert_int_equal(b.body_len, a.body_len);
    free(a.body);
    free(b.body);
}

/* gzip'd answers of path inflate to the plain one's bytes. */
static void assert_gzip_same(const char *path)
{
    struct answer plain, gz;
    char e1[64], e2[64], enc[32], vary[64];

    fetch_cached(path, NULL, &plain, e1);
    fetch_cached(path, "Accept-Encoding: gzip, deflate\r\n", &gz, e2);
    header(&gz, "Content-Encoding", enc, sizeof enc);
    assert_string_equal(enc, "gzip");
    header(&gz, "Vary", vary, sizeof vary);
    assert_non_null(strstr(vary, "Accept-Encoding"));
    assert_string_not_equal(e1, e2); /* strong ETags differ per representation */
    assert_true(gz.body_len < plain.body_len);
    unsigned char *out = malloc(plain.body_len + 1);
    assert_non_null(out);
    z_stream z = {0};
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)gz.body;
    z.avail_in = (uInt)gz.body_len;
    z.next_out = out;
    z.avail_out = (uInt)plain.body_len + 1;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    assert_int_equal(z.total_out, plain.body_len);
    assert_memory_equal(out, plain.body, plain.body_len);
    inflateEnd(&z);
    free(out);
    free(plain.body);
    free(gz.body);
}

static void gzip_decodes_to_the_identical_body(void **state)
{
    char path[128];

    (void)state;
    association_path(path, sizeof path);
    assert_gzip_same(path);
    snprintf(path, sizeof path, "/api/v1/groups/%s/table", fx.group);
    assert_gzip_same(path);
    assert_gzip_same("/api/v1/coverage");
}

/* Waits until path answers other bytes than old (or CHANGE_MAX_S passed); the new
 * answer into a. */
static void await_change(const char *path, const struct answer *old, struct answer *a)
{
    const double t0 = now_s();

    for (;;) {
        assert_int_equal(fetch(path, NULL, a), 0);
        if (a->status == 200 && (a->body_len != old->body_len ||
                                 memcmp(a->body, old->body, a->body_len) != 0))
            return;
        free(a->body);
        if (now_s() - t0 > CHANGE_MAX_S)
            fail_msg("%s unchanged after %.1f s", path, CHANGE_MAX_S);
        sleep_s(0.1);
    }
}

static void unload_and_analyze_change_the_answer_within_a_second(void **state)
{
    struct answer before, after_unload, after_analyze;
    char path[128], e0[64], e2[64], e1[64];

    (void)state;
    association_path(path, sizeof path);
    fetch_cached(path, NULL, &before, e0);
    /* A file of one of the group's jobs goes: the stored answer is stale. */
    char *file = pgfixture_query(&fx.db,
                                 "SELECT l.path FROM jobs j JOIN loaded_files l ON "
                                 "l.content_hash = j.source_hash WHERE j.group_id = $1 "
                                 "ORDER BY j.job_key LIMIT 1",
                                 fx.group);
    assert_non_null(file);
    assert_true(file[0] == '/');
    assert_int_equal(
        pgfixture_cmd(&fx.db, "--config '%s' unload --path '%s'", fx.conf, file), 0);
    free(file);
    await_change(path, &before, &after_unload);
    json_t *j = json_loads(after_unload.body, 0, NULL);
    assert_non_null(j);
    /* Computed now from one job less: no stored object stands for it. */
    assert_false(json_is_true(json_object_get(json_object_get(j, "stored"), "current")));
    json_decref(j);
    header(&after_unload, "ETag", e1, sizeof e1);
    assert_string_equal(e1, "");
    /* analyze stores it again: cached again, under another ETag. */
    int rc = pgfixture_cmd(&fx.db, "--config '%s' analyze --permutations 0", fx.conf);
    assert_true(rc == 0 || rc == 1);
    await_change(path, &after_unload, &after_analyze);
    header(&after_analyze, "ETag", e2, sizeof e2);
    assert_true(e2[0] == '"');
    assert_string_not_equal(e0, e2);
    free(before.body);
    free(after_unload.body);
    free(after_analyze.body);
}

/* /health and the cached answers while another transaction holds jobs and samples
 * locked against every read: they answer without touching either. */
static void health_and_cached_answers_touch_no_job_or_sample(void **state)
{
    struct answer a;
    char path[128], etag[64];

    (void)state;
    association_path(path, sizeof path);
    fetch_cached(path, NULL, &a, etag); /* cached before the lock */
    free(a.body);
    PGconn *c = pgfixture_connect(&fx.db);
    assert_non_null(c);
    char *r = pgfixture_value(c, "BEGIN");
    free(r);
    r = pgfixture_value(c, "LOCK TABLE jobs, samples IN ACCESS EXCLUSIVE MODE");
    assert_non_null(r);
    free(r);
    /* Over two poller periods: each /health at most a second old, all at once. */
    for (int i = 0; i < 25; i++) {
        assert_int_equal(fetch("/api/v1/health", NULL, &a), 0);
        assert_int_equal(a.status, 200);
        json_t *h = json_loads(a.body, 0, NULL);
        assert_non_null(h);
        double age = json_number_value(json_object_get(h, "snapshot_age_s"));
        /* The poller reads once a second; 0.1 s of room for its own query. */
        assert_true(age >= 0 && age <= 1.1);
        assert_true(json_integer_value(json_object_get(h, "jobs")) > 0);
        json_decref(h);
        free(a.body);
        char again[64];
        fetch_cached(path, NULL, &a, again);
        assert_string_equal(again, etag);
        free(a.body);
        sleep_s(0.1);
    }
    r = pgfixture_value(c, "ROLLBACK");
    free(r);
    PQfinish(c);
}

/* [serve] cache_bytes = 0 keeps nothing: the same answer, without an ETag. */
static void cache_bytes_0_keeps_no_answer(void **state)
{
    struct server none = {0};
    struct answer a, b;
    char conf[700], path[128], etag[64], cached[64];
    size_t len = 0;

    (void)state;
    char *text = testutil_read_file(fx.conf, &len);
    assert_non_null(text);
    snprintf(conf, sizeof conf, "%s/nocache.conf", fx.db.state_dir);
    FILE *fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\n[serve]\ncache_bytes = 0\n", text);
    free(text);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(server_start(&none, &fx.db, conf), 0);
    association_path(path, sizeof path);
    const int port = fx.srv.port;
    fx.srv.port = none.port; /* fetch asks fx.srv's port */
    int rc = fetch(path, NULL, &a);
    fx.srv.port = port;
    server_stop(&none);
    assert_int_equal(rc, 0);
    assert_int_equal(a.status, 200);
    header(&a, "ETag", etag, sizeof etag);
    assert_string_equal(etag, "");
    fetch_cached(path, NULL, &b, cached); /* the other server keeps it */
    assert_int_equal(a.body_len, b.body_len);
    assert_memory_equal(a.body, b.body, a.body_len);
    free(a.body);
    free(b.body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stored_association_answered_twice_has_the_same_etag),
        cmocka_unit_test(if_none_match_answers_304_without_a_body),
        cmocka_unit_test(gzip_decodes_to_the_identical_body),
        cmocka_unit_test(health_and_cached_answers_touch_no_job_or_sample),
        cmocka_unit_test(cache_bytes_0_keeps_no_answer),
        cmocka_unit_test(unload_and_analyze_change_the_answer_within_a_second),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
