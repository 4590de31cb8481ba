/* test_points.c: what the page asks of the API beyond the stored answers, over real
 * HTTP from a real PostgreSQL, on the demo's sample data (iocontend-gen, seed
 * 20240601) after ingest, analyze and `analyze --sweep` of one group: /groups says
 * exactly which tables and sweeps /table and /sweep serve. */
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

static struct {
    struct pgfixture db;
    struct server srv;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_list_exactly_what_table_and_sweep_serve),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
