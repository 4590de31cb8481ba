/* test_openapi.c: web/openapi.json against the server's own route table and its live
 * answers over real HTTP on a real PostgreSQL (tests/openapi/validate.py, with
 * Debian's python3-jsonschema), /api/v1/jobs against `export jobs`, and the document's
 * metric and family names against the catalogue (analysis/catalogue.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../analysis/internal.h"
#include "../../common/common.h"
#include "../../daemon/daemon.h"
#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VALIDATOR "tests/openapi/validate.py"
#define SEED      20240601UL
#define GEN_ARGS  "--days 1 --jobs-per-group 60"

/* Routes whose entries other work writes (merged into the document later): the test
 * fails once the document has them, so that this list shrinks. */
static const char pending_routes[] = "";

/* The fixture of the whole suite, made once in the group setup. */
static struct {
    struct pgfixture db;
    struct server main;   /* open, with the page's folder */
    struct server locked; /* a token and no page folder: 401, and the page's 404 */
    char dir[512];        /* the generated sample data */
    char conf[600];       /* its configuration */
    char group[64];       /* the group with the most jobs */
    char x_value[40];     /* a point of its stored KDE's grid, for /predict */
    char doc[1024];       /* web/openapi.json */
    int behind_rc;        /* the validator's exit status before `db migrate` */
    int empty_rc;         /* and on the empty database */
} fx;

/* ---- files and the validator ------------------------------------------------------ */

static const char *work_file(const char *name)
{
    static char path[1024];

    snprintf(path, sizeof path, "%s/%s", fx.db.state_dir, name);
    return path;
}

static void write_text(const char *name, const char *text)
{
    assert_int_equal(testutil_write_file(work_file(name), text, strlen(text)), 0);
}

/* Runs the validator with args (quoted by the caller); its output goes to stderr, and
 * into *out (malloc'd) when out is not NULL. */
static int validate_out(const char *args, char **out)
{
    char cmd[4096];
    int rc = -1;
    const char *script = testutil_repo_file(VALIDATOR);

    if (out != NULL)
        *out = NULL;
    if (script == NULL) {
        fprintf(stderr, "%s not found\n", VALIDATOR);
        return -1;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s 2>&1", testutil_oracle_python(), script,
             args);
    char *text = testutil_run(cmd, &rc);
    fprintf(stderr, "%s", text != NULL ? text : "(the validator did not run)\n");
    if (out != NULL)
        *out = text;
    else
        free(text);
    return rc;
}

static int validate(const char *args)
{
    return validate_out(args, NULL);
}

/* Checks the answers to the cases (validate.py's format, "@G" standing for the
 * group, "@X" for a point of its KDE) of server s, recording those checked in the
 * file covered. */
static int check_answers(const struct server *s, const char *cases, const char *covered)
{
    char expanded[16384], args[3072];
    size_t o = 0;

    for (const char *p = cases; *p != '\0' && o + 64 < sizeof expanded; p++) {
        if (p[0] == '@' && p[1] == 'G') {
            o += (size_t)snprintf(expanded + o, sizeof expanded - o, "%s", fx.group);
            p++;
        } else if (p[0] == '@' && p[1] == 'X') {
            o += (size_t)snprintf(expanded + o, sizeof expanded - o, "%s", fx.x_value);
            p++;
        } else {
            expanded[o++] = *p;
        }
    }
    expanded[o] = '\0';
    write_text("cases.tsv", expanded);
    snprintf(args, sizeof args, "answers '%s' 'http://%s:%d' '%s' ", fx.doc, SERVER_HOST,
             s->port, work_file("cases.tsv"));
    snprintf(args + strlen(args), sizeof args - strlen(args), "'%s'", work_file(covered));
    return validate(args);
}

/* ---- the fixture ------------------------------------------------------------------ */

/* Before `db migrate` the data routes wait for it; health says why. */
static const char behind_cases[] =
    "200\tGET\t/api/v1/health\n"
    "503\tGET\t/api/v1/jobs\n"
    "503\tGET\t/api/v1/groups\n"
    "503\tGET\t/api/v1/coverage\n"
    "503\tGET\t/api/v1/groups/nosuchgroup/association\n"
    "503\tGET\t/api/v1/groups/nosuchgroup/sweep\n"
    "503\tGET\t/api/v1/groups/nosuchgroup/table\n"
    "503\tGET\t/api/v1/groups/nosuchgroup/predict?x_value=1\n"
    "503\tGET\t/api/v1/slowdowns\n"
    "503\tGET\t/api/v1/groups/nosuchgroup/points\n"
    "200\tGET\t/api/v1/openapi.json\n";

/* GET path on the main server until it answers want (up to limit_s); the last status. */
static int answer_becomes(const char *path, int want, double limit_s)
{
    int status = 0;

    for (double waited = 0; waited <= limit_s; waited += 0.1) {
        char *body = NULL;
        status = 0;
        http_get(SERVER_HOST, fx.main.port, path, NULL, &status, &body);
        free(body);
        if (status == want)
            break;
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    return status;
}

/* What an empty database answers (before any ingest): /jobs without samples, the
 * 404s of what analyze stores. */
static const char empty_cases[] =
    "200\tGET\t/api/v1/health\n"
    "200\tGET\t/api/v1/jobs\n"
    "404\tGET\t/api/v1/jobs?format=csv\n"
    "404\tGET\t/api/v1/jobs?granularity=60\n"
    "200\tGET\t/api/v1/groups\n"
    "404\tGET\t/api/v1/coverage\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/association\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/sweep\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/table\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/predict?x_value=1\n"
    "404\tGET\t/api/v1/slowdowns\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/points\n";

static int group_setup(void **state)
{
    const char *doc = testutil_repo_file("web/openapi.json");

    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    unsetenv("IOCONTEND_WEB_DIR");
    if (doc == NULL || pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.doc, sizeof fx.doc, "%s", doc);
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0)
        return -1;
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (server_start(&fx.main, &fx.db, fx.conf) != 0)
        return -1;
    /* An unmigrated database first (the fixture migrates a configured server's), then
     * an empty one; the tests below report them. */
    if (!fx.db.configured) {
        fx.behind_rc = check_answers(&fx.main, behind_cases, "covered-behind.txt");
        /* The health snapshot may have been read mid-migration: wait for both. */
        if (pgfixture_cmd(&fx.db, "--quiet db migrate") != 0 ||
            answer_becomes("/api/v1/groups", 200, 5.0) != 200 ||
            answer_becomes("/api/v1/health", 200, 5.0) != 200)
            return -1;
    }
    fx.empty_rc = check_answers(&fx.main, empty_cases, "covered-empty.txt");
    if (sample_load(&fx.db, fx.dir) != 0 ||
        server_first_group(&fx.main, fx.group, sizeof fx.group) != 0)
        return -1;
    /* A stored sweep for the group, as `analyze --sweep` makes them. */
    if (pgfixture_cmd(&fx.db, "--quiet --config '%s' analyze --sweep --group %s", fx.conf,
                      fx.group) > 1)
        return -1;
    setenv("IOCONTEND_TOKEN", "s3cret-openapi", 1);
    setenv("IOCONTEND_WEB_DIR", fx.db.state_dir, 1); /* holds no index.html */
    int rc = server_start(&fx.locked, &fx.db, fx.conf);
    unsetenv("IOCONTEND_TOKEN");
    unsetenv("IOCONTEND_WEB_DIR");
    if (rc != 0)
        return -1;
    server_await_data(&fx.main);
    /* the middle of the stored KDE's grid: inside its range */
    char path[256];
    snprintf(path, sizeof path, "/api/v1/groups/%s/association", fx.group);
    json_t *assoc = server_get_json(&fx.main, path, NULL, 200);
    json_t *x =
        json_array_get(json_object_get(json_object_get(assoc, "kde"), "x_grid"), 8);
    if (!json_is_number(x)) {
        json_decref(assoc);
        return -1;
    }
    snprintf(fx.x_value, sizeof fx.x_value, "%.17g", json_number_value(x));
    json_decref(assoc);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.locked);
    server_stop(&fx.main);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- the document ------------------------------------------------------------------ */

static void the_document_describes_every_route_of_the_server(void **state)
{
    char routes[4096] = "", args[3072];
    size_t n = 0;

    (void)state;
    /* "PATH<TAB>operationId": the rows of the server's one route table. */
    const char *op = NULL;
    for (const char *r; (r = serve_route_path(n, &op)) != NULL; n++) {
        size_t len = strlen(routes);
        snprintf(routes + len, sizeof routes - len, "%s\t%s\n", r, op);
    }
    assert_true(n >= 10);
    write_text("routes.txt", routes);
    write_text("pending.txt", pending_routes);
    snprintf(args, sizeof args, "doc '%s' '%s' ", fx.doc, work_file("routes.txt"));
    snprintf(args + strlen(args), sizeof args - strlen(args), "'%s'",
             work_file("pending.txt"));
    assert_int_equal(validate(args), 0);
}

/* The router's {id} kinds: a job id is the 32 hex digits /api/v1/jobs returns; what
 * is not one answers 404 "no such job" as a malformed group id answers "no such
 * group" (test_api). */
static void a_job_id_is_32_hex_digits(void **state)
{
    const char *hex32 = "0123456789abcdef0123456789abcdef";

    (void)state;
    assert_true(serve_id_ok(SERVE_ID_JOB, hex32, 32));
    assert_false(serve_id_ok(SERVE_ID_JOB, hex32, 31));
    assert_false(serve_id_ok(SERVE_ID_JOB, "0123456789abcdef0123456789abcdef0", 33));
    assert_false(serve_id_ok(SERVE_ID_JOB, "0123456789abcdef0123456789abcdeg", 32));
    assert_false(serve_id_ok(SERVE_ID_JOB, "0123456789ABCDEF0123456789ABCDEF", 32));
    assert_false(serve_id_ok(SERVE_ID_JOB, "12345", 5)); /* a Darshan jobid */
    /* A group id is what it was: up to 16 of [A-Za-z0-9_-]. */
    assert_true(serve_id_ok(SERVE_ID_GROUP, "nosuchgroup", 11));
    assert_false(serve_id_ok(SERVE_ID_GROUP, hex32, 32));
    assert_false(serve_id_ok(SERVE_ID_GROUP, "a.b", 3));
    assert_false(serve_id_ok(SERVE_ID_NONE, "a", 1));
}

static void the_validator_finds_a_route_missing_from_the_document(void **state)
{
    char args[3072], *out = NULL;

    (void)state;
    /* A route the document lacks, and many it has that this list does not. */
    write_text("routes-more.txt", "/api/v1/health\tgetHealth\n/api/v1/nowhere\tnowhere\n"
                                  "/api/v1/groups\tgetGroups\n");
    write_text("pending-none.txt", "");
    snprintf(args, sizeof args, "doc '%s' '%s' ", fx.doc, work_file("routes-more.txt"));
    snprintf(args + strlen(args), sizeof args - strlen(args), "'%s'",
             work_file("pending-none.txt"));
    assert_int_equal(validate_out(args, &out), 1);
    assert_non_null(out);
    assert_non_null(
        strstr(out, "route /api/v1/nowhere of the server is not in the document"));
    assert_non_null(strstr(out, "path /api/v1/jobs is not a route of the server"));
    assert_non_null(strstr(out, "GET /api/v1/groups is listGroups in the document, "
                                "getGroups in the server's table"));
    free(out);
}

static void the_validator_finds_an_answer_the_document_does_not_describe(void **state)
{
    json_error_t jerr;
    char args[3072], *out = NULL;

    (void)state;
    /* The document, but health must carry a key the server never sends. */
    json_t *doc = json_load_file(fx.doc, 0, &jerr);
    assert_non_null(doc);
    json_t *health = json_object_get(
        json_object_get(json_object_get(doc, "components"), "schemas"), "Health");
    assert_int_equal(
        json_array_append_new(json_object_get(health, "required"), json_string("uptime")),
        0);
    assert_int_equal(json_dump_file(doc, work_file("drifted.json"), 0), 0);
    json_decref(doc);
    write_text("cases-drift.tsv", "200\tGET\t/api/v1/health\n");
    snprintf(args, sizeof args, "answers '%s' 'http://%s:%d' ", work_file("drifted.json"),
             SERVER_HOST, fx.main.port);
    snprintf(args + strlen(args), sizeof args - strlen(args), "'%s' ",
             work_file("cases-drift.tsv"));
    snprintf(args + strlen(args), sizeof args - strlen(args), "'%s'",
             work_file("covered-drift.txt"));
    assert_int_equal(validate_out(args, &out), 1);
    assert_non_null(out);
    assert_non_null(strstr(out, "'uptime' is a required property"));
    free(out);
}

static void served_document_is_the_one_in_the_repository(void **state)
{
    size_t len = 0;
    char *text = testutil_read_file(fx.doc, &len);
    json_error_t jerr;

    (void)state;
    assert_non_null(text);
    json_t *want = json_loads(text, 0, &jerr);
    free(text);
    json_t *got = server_get_json(&fx.main, "/api/v1/openapi.json", NULL, 200);
    assert_non_null(want);
    assert_true(json_equal(got, want));
    assert_string_equal(json_string_value(json_object_get(got, "openapi")), "3.1.0");
    json_decref(got);
    json_decref(want);
}

/* ---- live answers ------------------------------------------------------------------ */

static void an_unmigrated_database_answers_as_documented(void **state)
{
    (void)state;
    if (fx.db.configured)
        skip(); /* the fixture migrated it */
    assert_int_equal(fx.behind_rc, 0);
}

static void an_empty_database_answers_as_documented(void **state)
{
    (void)state;
    assert_int_equal(fx.empty_rc, 0);
}

/* Success and every error status each route can be made to give, on the loaded
 * database. */
/* One more query parameter than the server takes (GATE_QUERY_PARAMS_MAX, 64). */
#define EIGHT_PARAMS "a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8"
#define SIXTY_FOUR_PARAMS                                                                \
    EIGHT_PARAMS "&" EIGHT_PARAMS "&" EIGHT_PARAMS "&" EIGHT_PARAMS "&" EIGHT_PARAMS     \
                 "&" EIGHT_PARAMS "&" EIGHT_PARAMS "&" EIGHT_PARAMS
#define SIXTY_FIVE_PARAMS SIXTY_FOUR_PARAMS "&z=9"

static const char main_cases[] =
    "200\tGET\t/api/v1/health\n"
    "200\tHEAD\t/api/v1/health\n"
    "200\tGET\t/api/v1/jobs\n"
    "200\tGET\t/api/v1/jobs?limit=7&granularity=120&scope=touched\n"
    "200\tGET\t/api/v1/jobs?limit=3&scope=fs:scratch1&format=csv\n"
    "200\tGET\t/api/v1/jobs?limit=3\tAccept: text/csv\n"
    "200\tGET\t/api/v1/jobs?limit=3&format=json\tAccept: text/csv\n"
    "200\tGET\t/api/v1/jobs?group=@G&from=2026-11-20T06:00:00Z&to=1795219200000\n"
    "400\tGET\t/api/v1/jobs?limit=0\n"
    "400\tGET\t/api/v1/jobs?cursor=nonsense\n"
    "400\tGET\t/api/v1/jobs?from=yesterday\n"
    "400\tGET\t/api/v1/jobs?group=zz\n"
    "400\tGET\t/api/v1/jobs?granularity=90\n"
    "400\tGET\t/api/v1/jobs?granularity=-1\n"
    "400\tGET\t/api/v1/jobs?scope=mine\n"
    "400\tGET\t/api/v1/jobs?format=xml\n"
    "404\tGET\t/api/v1/jobs?scope=fs:nosuch\n"
    "405\tPOST\t/api/v1/jobs\n"
    "404\tGET\t/api/v1/nothing\n"
    "200\tGET\t/api/v1/groups\n"
    "200\tGET\t/api/v1/coverage\n"
    "200\tGET\t/api/v1/coverage?fs=scratch1&from=2026-11-20T06:00:00Z&to=1795219200000\n"
    "304\tGET\t/api/v1/coverage\tIf-None-Match: @etag\n"
    "400\tGET\t/api/v1/coverage?fs=nosuch\n"
    "400\tGET\t/api/v1/coverage?to=x\n"
    "200\tGET\t/api/v1/coverage?points=630\n"
    "200\tGET\t/api/v1/coverage?fs=scratch1&from=2026-11-20T06:00:00Z&points=10000\n"
    "304\tGET\t/api/v1/coverage?points=630\tIf-None-Match: @etag\n"
    "400\tGET\t/api/v1/coverage?points=0\n"
    "400\tGET\t/api/v1/coverage?points=10001\n"
    "200\tGET\t/api/v1/openapi.json\n"
    "200\tGET\t/api/v1/groups/@G/association\n"
    "200\tGET\t/api/v1/groups/@G/association?granularity=120&scope=fs:scratch2"
    "&space=linear&rf=0\n"
    "200\tGET\t/api/v1/groups/@G/association?significance=1&permutations=19"
    "&resamples=19&density=1&kernel=full\n"
    "304\tGET\t/api/v1/groups/@G/association\tIf-None-Match: @etag\n"
    "400\tGET\t/api/v1/groups/@G/association?y=t_q\n"
    "400\tGET\t/api/v1/groups/@G/association?granularity=90\n"
    "400\tGET\t/api/v1/groups/@G/association?space=cubic\n"
    "403\tGET\t/api/v1/groups/@G/association?permutations=5000\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/association\n"
    "404\tGET\t/api/v1/groups/@G/association?scope=fs:nosuch\n"
    "200\tGET\t/api/v1/groups/@G/sweep\n"
    "304\tGET\t/api/v1/groups/@G/sweep\tIf-None-Match: @etag\n"
    "400\tGET\t/api/v1/groups/@G/sweep?x=psi\n"
    "404\tGET\t/api/v1/groups/@G/sweep?y=t_j\n"
    "200\tGET\t/api/v1/groups/@G/table\n"
    "304\tGET\t/api/v1/groups/@G/table\tIf-None-Match: @etag\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/table\n"
    "200\tGET\t/\n"
    "200\tGET\t/index.html\n"
    "200\tGET\t/iocontend-page.js\n"
    "200\tGET\t/web/index.html\n"
    "431\tGET\t/api/v1/health?" SIXTY_FIVE_PARAMS "\n"
    "404\tGET\t/web/../etc/passwd\n"
    "404\tGET\t/web/nothing.css\n"
    "200\tGET\t/lib/requirejs/require.js\n"
    "404\tGET\t/lib/vega/nothing.js\n"
    "200\tGET\t/metrics\n"
    "200\tGET\t/api/v1/groups/@G/predict?x_value=@X\n"
    "400\tGET\t/api/v1/groups/@G/predict?x_value=lots\n"
    "400\tGET\t/api/v1/groups/@G/predict?x_value=1e30\n"
    "404\tGET\t/api/v1/groups/0123456789abcdef/predict?x_value=1e12\n"
    "200\tGET\t/api/v1/slowdowns?limit=3\n"
    "400\tGET\t/api/v1/slowdowns?limit=0\n"
    "400\tGET\t/api/v1/slowdowns?y=t_nope\n"
    "200\tGET\t/api/v1/slowdowns?limit=3&group=@G\n"
    "400\tGET\t/api/v1/slowdowns?group=nosuchgroup\n"
    "200\tGET\t/api/v1/groups/@G/points\n"
    "200\tGET\t/api/v1/groups/@G/points?y=t_um&x=psi_o_write&granularity=120"
    "&scope=fs:scratch1&limit=10&seed=7\n"
    "304\tGET\t/api/v1/groups/@G/points\tIf-None-Match: @etag\n"
    "400\tGET\t/api/v1/groups/@G/points?limit=20001\n"
    "400\tGET\t/api/v1/groups/@G/points?seed=x\n"
    "400\tGET\t/api/v1/groups/@G/points?granularity=90\n"
    "404\tGET\t/api/v1/groups/nosuchgroup/points\n";

/* The server with a token: 401 on every API route without it; with it, the page and
 * the document are missing (no page folder). */
static const char locked_cases[] =
    "401\tGET\t/api/v1/health\n"
    "401\tGET\t/api/v1/jobs\n"
    "401\tGET\t/api/v1/groups\n"
    "401\tGET\t/api/v1/coverage\n"
    "401\tGET\t/api/v1/openapi.json\n"
    "401\tGET\t/api/v1/groups/@G/association\n"
    "401\tGET\t/api/v1/groups/@G/sweep\n"
    "401\tGET\t/api/v1/groups/@G/table\n"
    "401\tGET\t/metrics\n"
    "401\tGET\t/api/v1/groups/@G/predict?x_value=1\n"
    "401\tGET\t/api/v1/slowdowns\n"
    "401\tGET\t/api/v1/groups/@G/points\n"
    "200\tGET\t/api/v1/groups\tAuthorization: Bearer s3cret-openapi\n"
    "404\tGET\t/api/v1/openapi.json\tAuthorization: Bearer s3cret-openapi\n"
    "404\tGET\t/\n"
    "404\tGET\t/index.html\n"
    "404\tGET\t/iocontend-page.js\n"
    "404\tGET\t/web/index.html\n";

static void every_answer_of_a_loaded_database_is_documented(void **state)
{
    (void)state;
    assert_int_equal(check_answers(&fx.main, main_cases, "covered-main.txt"), 0);
    assert_int_equal(check_answers(&fx.locked, locked_cases, "covered-locked.txt"), 0);
}

/* While the database is down every data route answers 503 (the cached answers, kept
 * under the last data version, are not served once it is unknown). */
static const char down_cases[] =
    "503\tGET\t/api/v1/health\n"
    "503\tGET\t/api/v1/jobs\n"
    "503\tGET\t/api/v1/groups\n"
    "503\tGET\t/api/v1/coverage?fs=all\n"
    "503\tGET\t/api/v1/groups/@G/association?y=t&x=psi_read\n"
    "503\tGET\t/api/v1/groups/@G/sweep?x=psi_read\n"
    "503\tGET\t/api/v1/groups/@G/table\n"
    "503\tGET\t/api/v1/groups/@G/predict?x_value=1\n"
    "503\tGET\t/api/v1/slowdowns\n"
    "503\tGET\t/api/v1/groups/@G/points\n";

static void a_database_that_is_down_answers_as_documented(void **state)
{
    (void)state;
    if (fx.db.configured)
        skip(); /* not ours to stop */
    assert_int_equal(pgfixture_cmd(&fx.db, "db stop"), 0);
    assert_int_equal(answer_becomes("/api/v1/health", 503, 5.0), 503);
    int rc = check_answers(&fx.main, down_cases, "covered-down.txt");
    assert_int_equal(pgfixture_cmd(&fx.db, "db start"), 0);
    assert_int_equal(answer_becomes("/api/v1/health", 200, 10.0), 200);
    assert_int_equal(rc, 0);
}

#define GATE_RAW                                                                         \
    "/api/v1/health\t400\tframing: test_http_strict\n"                                   \
    "/api/v1/health\t408\tslow headers: test_http_strict\n"

/* Runs after the answers: every status the document lists was provoked. */
static void every_documented_status_was_provoked(void **state)
{
    char args[4096];

    (void)state;
    /* A configured server is not ours to stop: its 503s are not provoked. The
     * gate's 400 and 408 need a raw socket (test_http_strict provokes them). */
    write_text("unprovoked.txt", fx.db.configured ? GATE_RAW
                                     "/api/v1/health\t503\n/api/v1/jobs\t503\n"
                                     "/api/v1/groups\t503\n/api/v1/coverage\t503\n"
                                     "/api/v1/groups/{id}/association\t503\n"
                                     "/api/v1/groups/{id}/sweep\t503\n"
                                     "/api/v1/groups/{id}/table\t503\n"
                                     "/api/v1/groups/{id}/predict\t503\n"
                                     "/api/v1/slowdowns\t503\n"
                                     "/api/v1/groups/{id}/points\t503\n"
                                                  : GATE_RAW);
    snprintf(args, sizeof args, "coverage '%s' '%s' ", fx.doc,
             work_file("unprovoked.txt"));
    static const char *const covered[] = {"covered-empty.txt", "covered-main.txt",
                                          "covered-locked.txt", "covered-down.txt",
                                          "covered-behind.txt"};
    for (size_t i = 0; i < sizeof covered / sizeof covered[0]; i++) {
        if (fx.db.configured && i >= 3)
            continue;
        snprintf(args + strlen(args), sizeof args - strlen(args), "'%s' ",
                 work_file(covered[i]));
    }
    assert_int_equal(validate(args), 0);
}

/* ---- /jobs against export jobs ----------------------------------------------------- */

/* The body of GET path (curl, for the headers), and its X-Next-Cursor into next ("" when
 * none). Fails the test unless it answered 200. */
static char *get_with_cursor(const char *path, char *next, size_t next_size)
{
    char cmd[2048];
    int rc = -1;

    snprintf(cmd, sizeof cmd, "curl -sS -f -D '%s' 'http://%s:%d%s'",
             work_file("headers.txt"), SERVER_HOST, fx.main.port, path);
    char *body = testutil_run(cmd, &rc);
    assert_non_null(body);
    assert_int_equal(rc, 0);
    size_t len = 0;
    char *headers = testutil_read_file(work_file("headers.txt"), &len);
    assert_non_null(headers);
    next[0] = '\0';
    const char *h = strstr(headers, "X-Next-Cursor: ");
    if (h != NULL) {
        h += strlen("X-Next-Cursor: ");
        size_t n = strcspn(h, "\r\n");
        assert_true(n < next_size);
        memcpy(next, h, n);
        next[n] = '\0';
    }
    assert_non_null(strstr(headers, "Content-Type: text/csv"));
    free(headers);
    return body;
}

static void jobs_csv_pages_together_are_export_jobs(void **state)
{
    static const char *const queries[][2] = {
        {"granularity=120&scope=touched", "--granularity 120 --scope touched"},
        {"scope=fs:scratch2", "--scope fs:scratch2"},
        {"group=@G", "--group @G"},
    };

    (void)state;
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
        char api_q[256], cli_q[256], path[512], cmd[1024], next[128] = "";
        size_t pages = 0;
        /* "@G": the group. */
        snprintf(api_q, sizeof api_q, "%s", queries[q][0]);
        snprintf(cli_q, sizeof cli_q, "%s", queries[q][1]);
        char *at = strstr(api_q, "@G");
        if (at != NULL)
            snprintf(at, sizeof api_q - (size_t)(at - api_q), "%s", fx.group);
        at = strstr(cli_q, "@G");
        if (at != NULL)
            snprintf(at, sizeof cli_q - (size_t)(at - cli_q), "%s", fx.group);

        size_t size = 1 << 20, used = 0;
        char *all = malloc(size);
        assert_non_null(all);
        all[0] = '\0';
        do {
            char cursor[160] = "";
            if (next[0] != '\0')
                snprintf(cursor, sizeof cursor, "&cursor=%s", next);
            snprintf(path, sizeof path, "/api/v1/jobs?format=csv&limit=50&%s%s", api_q,
                     cursor);
            char *body = get_with_cursor(path, next, sizeof next);
            /* Each page repeats the header: keep the first. */
            const char *rows = pages == 0 ? body : strchr(body, '\n') + 1;
            size_t n = strlen(rows);
            while (used + n + 1 > size) {
                size *= 2;
                all = realloc(all, size);
                assert_non_null(all);
            }
            memcpy(all + used, rows, n + 1);
            used += n;
            free(body);
            pages++;
        } while (next[0] != '\0');
        assert_true(pages >= 2);
        snprintf(cmd, sizeof cmd, "--quiet --config '%s' export jobs %s", fx.conf, cli_q);
        int rc = -1;
        char *want = pgfixture_run(&fx.db, cmd, &rc);
        assert_non_null(want);
        assert_int_equal(rc, 0);
        assert_true(strlen(want) > 1000);
        assert_string_equal(all, want);
        free(want);
        free(all);
    }
}

/* The metrics of the JSON pages are those of `export jobs --format json`. */
/* The enum stats_exclusion called name; EXCL_COUNT when none is. */
static enum stats_exclusion exclusion_named(const char *name)
{
    for (int e = 0; e < EXCL_COUNT; e++) {
        if (strcmp(stats_exclusion_name((enum stats_exclusion)e), name) == 0)
            return (enum stats_exclusion)e;
    }
    return EXCL_COUNT;
}

/* Every reason of a job's "excluded" object is one its family declares it can carry
 * (the catalogue's reasons). */
static void family_reasons_are_declared(json_t *excluded)
{
    const char *name;
    json_t *why;

    json_object_foreach(excluded, name, why)
    {
        const struct family *f = family_find(name);
        assert_non_null(f);
        enum stats_exclusion e = exclusion_named(json_string_value(why));
        if (e == EXCL_COUNT || !(f->reasons & FAMILY_REASON(e)))
            fail_msg("family %s excluded as %s, which it does not declare", name,
                     json_string_value(why));
    }
}

static void jobs_json_metrics_are_export_jobs(void **state)
{
    char cmd[1024], path[512], next[128] = "";
    int rc = -1;
    json_error_t jerr;
    size_t i = 0, checked = 0;

    (void)state;
    snprintf(cmd, sizeof cmd,
             "--quiet --config '%s' export jobs --format json --granularity 180",
             fx.conf);
    char *text = pgfixture_run(&fx.db, cmd, &rc);
    assert_non_null(text);
    assert_int_equal(rc, 0);
    json_t *want = json_loads(text, 0, &jerr);
    free(text);
    assert_non_null(want);
    json_t *rows = json_object_get(want, "jobs"); /* borrowed */
    assert_true(json_array_size(rows) > 100);
    do {
        char cursor[160] = "";
        if (next[0] != '\0')
            snprintf(cursor, sizeof cursor, "&cursor=%s", next);
        snprintf(path, sizeof path, "/api/v1/jobs?limit=64&granularity=180%s", cursor);
        json_t *page = server_get_json(&fx.main, path, NULL, 200);
        assert_rel(json_number_value(json_object_get(page, "granularity_s")), 180, 0);
        assert_string_equal(json_string_value(json_object_get(page, "scope")), "all");
        const json_t *job;
        size_t k;
        json_array_foreach(json_object_get(page, "jobs"), k, job)
        {
            json_t *w = json_array_get(rows, i++);
            const char *key;
            json_t *v;
            assert_non_null(w);
            assert_string_equal(json_string_value(json_object_get(job, "id")),
                                json_string_value(json_object_get(w, "id")));
            json_object_foreach(w, key, v)
            {
                const json_t *g = json_object_get(job, key);
                assert_non_null(g);
                if (json_is_number(v)) {
                    /* The API prints 15 significant digits, export 17. */
                    double wv = json_number_value(v);
                    assert_rel(json_number_value(g), wv, 1e-13 * fmax(1, fabs(wv)));
                    checked++;
                } else {
                    assert_true(json_equal(g, v));
                }
            }
            family_reasons_are_declared(json_object_get(w, "excluded"));
        }
        const json_t *nc = json_object_get(page, "next_cursor");
        snprintf(next, sizeof next, "%s",
                 json_is_string(nc) ? json_string_value(nc) : "");
        json_decref(page);
    } while (next[0] != '\0');
    assert_int_equal(i, json_array_size(rows));
    assert_true(checked > 1000);
    json_decref(want);
}

/* The document at the JSON pointer-like path of object keys, borrowed from doc. */
static const json_t *doc_at(const json_t *doc, const char *const *keys, size_t n)
{
    for (size_t i = 0; doc != NULL && i < n; i++)
        doc = json_object_get(doc, keys[i]);
    assert_non_null(doc);
    return doc;
}

/* The document names exactly the catalogue's metrics (MetricName: y=, x=, the group
 * table's and export's names) in the catalogue's order, and exactly its excludable
 * families, and a Job has a property for every metric. */
static void the_document_names_the_catalogue_both_ways(void **state)
{
    json_error_t jerr;
    json_t *doc = json_load_file(testutil_repo_file("web/openapi.json"), 0, &jerr);
    static const char *const metric_enum[] = {"components", "schemas", "MetricName",
                                              "enum"};
    static const char *const job_props[] = {"components", "schemas", "Job", "properties"};
    static const char *const excl_enum[] = {"excluded", "propertyNames", "enum"};

    (void)state;
    assert_non_null(doc);
    const json_t *names = doc_at(doc, metric_enum, 4);
    assert_int_equal(json_array_size(names), n_metrics);
    for (size_t i = 0; i < n_metrics; i++)
        assert_string_equal(json_string_value(json_array_get(names, i)), metrics[i].name);
    for (size_t i = 0; i < n_metrics; i++) {
        /* every row says its unit and meaning; the group table's are times */
        assert_true(metrics[i].unit[0] != '\0' && metrics[i].meaning[0] != '\0');
        if (metrics[i].flags & IN_TABLE)
            assert_string_equal(metrics[i].unit, "s");
    }
    const json_t *props = doc_at(doc, job_props, 4);
    for (size_t i = 0; i < n_metrics; i++) {
        if (json_object_get(props, metrics[i].name) == NULL)
            fail_msg("Job has no property %s", metrics[i].name);
    }
    const json_t *fams = doc_at(props, excl_enum, 3);
    size_t k = 0;
    for (size_t f = 0; f < n_families; f++) {
        if (families[f]->excl == SIZE_MAX)
            continue; /* the log family is never excluded */
        assert_string_equal(json_string_value(json_array_get(fams, k)),
                            families[f]->name);
        k++;
    }
    assert_int_equal(json_array_size(fams), k);
    /* The reasons a job's family can carry are the families' declared ones; a pair's
     * own (nonpositive_in_log_space) none carries. */
    static const char *const reason_enum[] = {"excluded", "additionalProperties", "enum"};
    const json_t *reasons = doc_at(props, reason_enum, 3);
    unsigned declared = 0, documented = 0;
    for (size_t f = 0; f < n_families; f++)
        declared |= families[f]->reasons;
    for (size_t r = 0; r < json_array_size(reasons); r++) {
        enum stats_exclusion e =
            exclusion_named(json_string_value(json_array_get(reasons, r)));
        assert_int_not_equal(e, EXCL_COUNT);
        documented |= FAMILY_REASON(e);
    }
    assert_int_equal(declared,
                     documented & ~FAMILY_REASON(EXCL_NONPOSITIVE_IN_LOG_SPACE));
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_document_describes_every_route_of_the_server),
        cmocka_unit_test(a_job_id_is_32_hex_digits),
        cmocka_unit_test(the_validator_finds_a_route_missing_from_the_document),
        cmocka_unit_test(the_validator_finds_an_answer_the_document_does_not_describe),
        cmocka_unit_test(served_document_is_the_one_in_the_repository),
        cmocka_unit_test(an_unmigrated_database_answers_as_documented),
        cmocka_unit_test(an_empty_database_answers_as_documented),
        cmocka_unit_test(every_answer_of_a_loaded_database_is_documented),
        cmocka_unit_test(jobs_csv_pages_together_are_export_jobs),
        cmocka_unit_test(jobs_json_metrics_are_export_jobs),
        cmocka_unit_test(the_document_names_the_catalogue_both_ways),
        /* Stops the database: after the tests that need it. */
        cmocka_unit_test(a_database_that_is_down_answers_as_documented),
        cmocka_unit_test(every_documented_status_was_provoked),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
