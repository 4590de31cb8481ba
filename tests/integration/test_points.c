/* test_points.c: what the page asks of the API beyond the stored answers, over real
 * HTTP from a real PostgreSQL, on the demo's sample data (iocontend-gen, seed
 * 20240601) after ingest, analyze and `analyze --sweep` of one group: /groups says
 * exactly which tables and sweeps /table and /sweep serve; /groups/{id}/points holds
 * /association's d jobs, each with the x and y /jobs gives it (an independent path
 * through `export jobs`), sampled from its seed above limit; its bad queries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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

#define SEED 20240601UL /* the demo's data set */

/* Every pair analyze --sweep can store (analysis/sweep.c's order: METHOD.md §6, §11,
 * then §10's for a group with a DXT trace). */
static const char *const sweep_pairs[][2] = {
    {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
    {"t_um", "psi_o_write"}, {"t_i", "psi_i_read"},  {"t_i", "psi_i_write"},
    {"tau", "b_d"},          {"t_d", "q_d"},         {"tau", "q_d"},
    {"t_x", "psi_x_read"},   {"t_x", "psi_x_write"},
};
#define N_SWEEP_PAIRS (sizeof sweep_pairs / sizeof sweep_pairs[0])
#define N_GROUPS      3
/* The API prints 15 significant digits. */
#define REL 1e-13

static struct {
    struct pgfixture db;
    struct server srv;
    struct server again; /* a second server on db, started by one test */
    char dir[512];
    char conf[600];
    char groups[N_GROUPS][17]; /* by job count, as /groups lists them */
} fx;

static json_t *get_json(const char *path, int want)
{
    return server_get_json(&fx.srv, path, NULL, want);
}

static const char *text(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    if (s == NULL)
        fail_msg("%s is not a string", key);
    return s;
}

/* GET path answers want (the test fails otherwise). */
static void expect_status(const char *path, int want)
{
    json_decref(get_json(path, want));
}

static int group_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (sample_generate(fx.dir, SEED, "") != 0 || sample_load(&fx.db, fx.dir) != 0 ||
        server_start(&fx.srv, &fx.db, fx.conf) != 0)
        return -1;
    json_t *j = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    const json_t *list = json_object_get(j, "groups");
    if (json_array_size(list) != N_GROUPS) {
        json_decref(j);
        return -1;
    }
    for (size_t i = 0; i < N_GROUPS; i++) {
        const char *id =
            json_string_value(json_object_get(json_array_get(list, i), "id"));
        snprintf(fx.groups[i], sizeof fx.groups[i], "%s", id != NULL ? id : "");
    }
    json_decref(j);
    /* The sweep of the first group only (k up to 2: what is stored matters here, not
     * its numbers); exit 1: the planted hole excludes jobs. */
    int rc = pgfixture_cmd(&fx.db,
                           "--quiet --config '%s' analyze --sweep --group %s "
                           "--k-max 2",
                           fx.conf, fx.groups[0]);
    if (rc != 0 && rc != 1)
        return -1;
    /* The third group's table goes, so that one group has none. */
    char *v = pgfixture_query(
        &fx.db,
        "WITH gone AS (DELETE FROM results WHERE kind = 'group_table' AND group_id = $1 "
        "RETURNING 1) SELECT count(*) FROM gone",
        fx.groups[2]);
    if (v == NULL || strcmp(v, "1") != 0) {
        free(v);
        return -1;
    }
    free(v);
    server_await_data(&fx.srv);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.again);
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- /groups stored ------------------------------------------------------------- */

/* For every group: stored.table is true iff /table answers 200, and stored.sweeps
 * lists, in the sweep's order, exactly the pairs /sweep answers 200 for. */
static void groups_list_exactly_what_table_and_sweep_serve(void **state)
{
    (void)state;
    json_t *j = get_json("/api/v1/groups", 200);
    const json_t *list = json_object_get(j, "groups");
    size_t listed_total = 0, tables = 0;

    assert_int_equal(json_array_size(list), N_GROUPS);
    for (size_t g = 0; g < json_array_size(list); g++) {
        const json_t *grp = json_array_get(list, g);
        const char *id = text(grp, "id");
        const json_t *stored = json_object_get(grp, "stored");
        const json_t *sweeps = json_object_get(stored, "sweeps");
        char path[256];

        assert_true(json_is_boolean(json_object_get(stored, "table")));
        assert_true(json_is_array(sweeps));
        snprintf(path, sizeof path, "/api/v1/groups/%s/table", id);
        bool table = json_is_true(json_object_get(stored, "table"));
        expect_status(path, table ? 200 : 404);
        tables += table ? 1 : 0;
        size_t next = 0; /* the next listed pair, in the sweep's order */
        for (size_t p = 0; p < N_SWEEP_PAIRS; p++) {
            snprintf(path, sizeof path, "/api/v1/groups/%s/sweep?y=%s&x=%s", id,
                     sweep_pairs[p][0], sweep_pairs[p][1]);
            const json_t *at = json_array_get(sweeps, next);
            bool listed = at != NULL && strcmp(text(at, "y"), sweep_pairs[p][0]) == 0 &&
                          strcmp(text(at, "x"), sweep_pairs[p][1]) == 0;
            expect_status(path, listed ? 200 : 404);
            next += listed ? 1 : 0;
        }
        assert_int_equal(next, json_array_size(sweeps));
        listed_total += next;
    }
    /* The first group's nine pairs (the sample has no DXT trace); two tables. */
    assert_int_equal(listed_total, 9);
    assert_int_equal(json_array_size(json_object_get(
                         json_object_get(json_array_get(list, 0), "stored"), "sweeps")),
                     9);
    assert_int_equal(tables, N_GROUPS - 1);
    assert_true(json_is_false(
        json_object_get(json_object_get(json_array_get(list, 2), "stored"), "table")));
    json_decref(j);
}

/* ---- /groups/{id}/points --------------------------------------------------------- */

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        fail_msg("%s is not a number", key);
    return json_number_value(v);
}

/* The queries of the pairs checked: defaults, another granularity and file system,
 * the touched scope. */
static const char *const point_queries[] = {
    "",
    "y=t_um&x=psi_o_write&granularity=120&scope=fs:scratch1",
    "y=tau&x=q_d&scope=touched",
};
#define N_POINT_QUERIES (sizeof point_queries / sizeof point_queries[0])

/* /groups/GROUP/points?QUERY from srv. */
static json_t *get_points_from(const struct server *srv, const char *group,
                               const char *query, int want)
{
    char path[512];

    snprintf(path, sizeof path, "/api/v1/groups/%s/points%s%s", group,
             query[0] != '\0' ? "?" : "", query);
    return server_get_json(srv, path, NULL, want);
}

static json_t *get_points(const char *group, const char *query, int want)
{
    return get_points_from(&fx.srv, group, query, want);
}

/* The value of name=... in query, or def. */
static const char *param_of(const char *query, const char *name, const char *def,
                            char *out, size_t size)
{
    char pat[32];

    snprintf(pat, sizeof pat, "%s=", name);
    for (const char *p = query; p != NULL && *p != '\0';) {
        if (strncmp(p, pat, strlen(pat)) == 0) {
            size_t n = strcspn(p + strlen(pat), "&");
            snprintf(out, size, "%.*s", (int)n, p + strlen(pat));
            return out;
        }
        p = strchr(p, '&');
        p = p != NULL ? p + 1 : NULL;
    }
    return def;
}

static void points_hold_the_associations_d_jobs(void **state)
{
    (void)state;
    for (size_t g = 0; g < N_GROUPS; g++) {
        for (size_t q = 0; q < N_POINT_QUERIES; q++) {
            char path[512];
            json_t *pts = get_points(fx.groups[g], point_queries[q], 200);
            snprintf(path, sizeof path, "/api/v1/groups/%s/association%s%s", fx.groups[g],
                     point_queries[q][0] != '\0' ? "?" : "", point_queries[q]);
            json_t *assoc = get_json(path, 200);
            assert_rel(num(pts, "d"), num(assoc, "d"), 0);
            assert_true(num(pts, "d") > 100);
            assert_rel(num(pts, "granularity_s"), num(assoc, "granularity_s"), 0);
            assert_string_equal(text(pts, "scope"), text(assoc, "scope"));
            assert_string_equal(text(pts, "y"), text(assoc, "y"));
            assert_string_equal(text(pts, "x"), text(assoc, "x"));
            assert_string_equal(text(pts, "group"), fx.groups[g]);
            /* 420 jobs per group: all of them, unsampled */
            assert_true(json_is_false(json_object_get(pts, "sampled")));
            assert_rel(num(pts, "shown"), num(pts, "d"), 0);
            assert_int_equal(json_array_size(json_object_get(pts, "points")),
                             (size_t)num(pts, "d"));
            json_decref(assoc);
            json_decref(pts);
        }
    }
}

/* Every point against the same job's row of /jobs at that granularity and scope (the
 * columns of `export jobs`): the same x and y, and exactly the jobs with both. */
static void every_point_is_its_jobs_row_of_jobs(void **state)
{
    (void)state;
    for (size_t q = 0; q < N_POINT_QUERIES; q++) {
        const char *query = point_queries[q];
        char yb[32], xb[32], gb[32], sb[64];
        const char *y = param_of(query, "y", "t_d", yb, sizeof yb);
        const char *x = param_of(query, "x", "psi_d_read", xb, sizeof xb);
        const char *gran = param_of(query, "granularity", "60", gb, sizeof gb);
        const char *scope = param_of(query, "scope", "all", sb, sizeof sb);
        json_t *pts = get_points(fx.groups[0], query, 200);
        const json_t *list = json_object_get(pts, "points");
        json_t *rows = json_array();
        char cursor[128] = "";

        /* the group's jobs, page by page */
        do {
            char path[512];
            snprintf(path, sizeof path,
                     "/api/v1/jobs?group=%s&limit=1000&granularity=%s&scope=%s%s%s",
                     fx.groups[0], gran, scope, cursor[0] != '\0' ? "&cursor=" : "",
                     cursor);
            json_t *page = get_json(path, 200);
            json_array_extend(rows, json_object_get(page, "jobs"));
            const char *next = json_string_value(json_object_get(page, "next_cursor"));
            snprintf(cursor, sizeof cursor, "%s", next != NULL ? next : "");
            json_decref(page);
        } while (cursor[0] != '\0');
        size_t both = 0, found = 0, i;
        const json_t *row;
        json_array_foreach(rows, i, row)
        {
            const json_t *ry = json_object_get(row, y), *rx = json_object_get(row, x);
            if (!json_is_number(ry) || !json_is_number(rx))
                continue;
            both++;
            size_t k;
            const json_t *pt;
            json_array_foreach(list, k, pt)
            {
                if (strcmp(text(pt, "id"), text(row, "id")) != 0)
                    continue;
                found++;
                assert_string_equal(text(pt, "jobid"), text(row, "jobid"));
                assert_rel(num(pt, "x"), json_number_value(rx),
                           REL * fabs(json_number_value(rx)));
                assert_rel(num(pt, "y"), json_number_value(ry),
                           REL * fabs(json_number_value(ry)));
                assert_rel(num(pt, "start_ms"), num(row, "start_ms"), 0);
                break;
            }
        }
        print_message("points %s: %zu of %zu jobs\n", query, both, json_array_size(rows));
        assert_int_equal(json_array_size(rows), 420);
        assert_int_equal(found, both);
        assert_int_equal(both, json_array_size(list));
        json_decref(rows);
        json_decref(pts);
    }
}

static void points_are_sorted_by_x_then_id(void **state)
{
    (void)state;
    json_t *pts = get_points(fx.groups[1], "", 200);
    const json_t *list = json_object_get(pts, "points");

    for (size_t i = 1; i < json_array_size(list); i++) {
        const json_t *a = json_array_get(list, i - 1), *b = json_array_get(list, i);
        assert_true(
            num(a, "x") < num(b, "x") ||
            (num(a, "x") == num(b, "x") && strcmp(text(a, "id"), text(b, "id")) < 0));
    }
    json_decref(pts);
}

/* The ids of the sampled answer pts (taken), sorted, into a new array; checks what a
 * sample of limit says of itself. */
static json_t *ids_of(json_t *pts, size_t limit, double d)
{
    const json_t *list = json_object_get(pts, "points");
    json_t *ids = json_array();
    size_t i;
    const json_t *pt;

    assert_true(json_is_true(json_object_get(pts, "sampled")));
    assert_rel(num(pts, "shown"), (double)limit, 0);
    assert_rel(num(pts, "d"), d, 0);
    assert_int_equal(json_array_size(list), limit);
    json_array_foreach(list, i, pt)
    {
        /* distinct: no id twice */
        for (size_t k = 0; k < json_array_size(ids); k++)
            assert_string_not_equal(json_string_value(json_array_get(ids, k)),
                                    text(pt, "id"));
        json_array_append_new(ids, json_string(text(pt, "id")));
    }
    json_decref(pts);
    return ids;
}

/* ids_of the answer to QUERY for the first group. */
static json_t *sample_ids(const char *query, size_t limit, double d)
{
    json_t *pts = get_points(fx.groups[0], query, 200);

    return ids_of(pts, limit, d);
}

static void a_limit_samples_distinct_jobs_from_the_seed(void **state)
{
    (void)state;
    json_t *all = get_points(fx.groups[0], "", 200);
    const double d = num(all, "d");
    json_t *first = get_points(fx.groups[0], "limit=100", 200);
    json_t *a = ids_of(json_deep_copy(first), 100, d);
    json_t *c = sample_ids("limit=100&seed=7", 100, d);
    size_t common = 0;

    /* The default seed is 20240601, and the same seed the same sample, computed
     * again: this server's cache holds the first answer under the parsed values
     * (default and explicit seed alike), a second server on the same database has
     * an empty one. */
    assert_rel(num(all, "seed"), 20240601, 0);
    assert_int_equal(server_start(&fx.again, &fx.db, fx.conf), 0);
    json_t *second =
        get_points_from(&fx.again, fx.groups[0], "limit=100&seed=20240601", 200);
    assert_int_equal(server_stop(&fx.again), 0);
    assert_true(json_equal(first, second));
    json_t *b = ids_of(second, 100, d);
    assert_true(json_equal(a, b));
    json_decref(first);
    /* another seed another sample: two uniform samples of 100 of d ~ 416 share about
     * 100²/d ~ 24 jobs, far from all 100 */
    for (size_t i = 0; i < 100; i++) {
        for (size_t k = 0; k < 100; k++)
            common += json_equal(json_array_get(a, i), json_array_get(c, k)) ? 1 : 0;
    }
    print_message("seeds 20240601 and 7 share %zu of 100 jobs\n", common);
    assert_true(common < 60);
    /* every sampled job is one of the d */
    size_t i, in = 0;
    const json_t *id;
    json_array_foreach(a, i, id)
    {
        size_t k;
        const json_t *pt;
        json_array_foreach(json_object_get(all, "points"), k, pt)
        {
            in += strcmp(json_string_value(id), text(pt, "id")) == 0 ? 1 : 0;
        }
    }
    assert_int_equal(in, 100);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(all);
}

static void expect_error(const char *path, int code, const char *parameter)
{
    json_t *j = get_json(path, code);
    const json_t *e = json_object_get(j, "error");
    const char *msg = json_string_value(json_object_get(e, "message"));

    assert_non_null(msg);
    assert_true(strlen(msg) > 10);
    if (parameter != NULL) {
        assert_string_equal(json_string_value(json_object_get(e, "parameter")),
                            parameter);
    }
    json_decref(j);
}

static void bad_points_queries_answer_400_naming_the_parameter(void **state)
{
    static const char *const bad[][2] = {
        {"limit=0", "limit"},
        {"limit=20001", "limit"},
        {"limit=abc", "limit"},
        {"limit=-5", "limit"},
        {"limit=1e3", "limit"},
        {"seed=0", "seed"},
        {"seed=4294967296", "seed"},
        {"seed=x", "seed"},
        {"y=t_nope", "y"},
        {"x=psi", "x"},
        {"granularity=90", "granularity"},
        {"granularity=-60", "granularity"},
        {"scope=mine", "scope"},
    };
    char path[256];

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "/api/v1/groups/%s/points?%s", fx.groups[0],
                 bad[i][0]);
        expect_error(path, 400, bad[i][1]);
    }
    expect_error("/api/v1/groups/0123456789abcdef/points", 404, NULL);
    expect_error("/api/v1/groups/not*an*id/points", 404, NULL);
    /* the largest limit and seed are fine */
    snprintf(path, sizeof path, "/api/v1/groups/%s/points?limit=20000&seed=4294967295",
             fx.groups[0]);
    json_decref(get_json(path, 200));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_list_exactly_what_table_and_sweep_serve),
        cmocka_unit_test(points_hold_the_associations_d_jobs),
        cmocka_unit_test(every_point_is_its_jobs_row_of_jobs),
        cmocka_unit_test(points_are_sorted_by_x_then_id),
        cmocka_unit_test(a_limit_samples_distinct_jobs_from_the_seed),
        cmocka_unit_test(bad_points_queries_answer_400_naming_the_parameter),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
