/* test_provenance.c: `analyze` as the nightly job over a real PostgreSQL and real
 * HTTP: a second run over unchanged inputs recomputes nothing and changes nothing,
 * late samples bring their groups back, --since and --force select what is
 * recomputed, and every stored result says what it was computed from. The lab run
 * (../shared/data/lab) is small enough to load in seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lab run's 30 jobs fall in 8 default groups (their sizes differ). */
#define LAB_GROUPS 8

static struct {
    struct pgfixture db;
    struct server srv;
    char lab[512];
    char group[17]; /* the group with the most jobs */
} fx;

/* Samples in the provenance after the first part. */
static json_int_t first_samples;

static int group_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    snprintf(fx.lab, sizeof fx.lab, "%s",
             testutil_path(testutil_shared_data(), "lab/run1_queue_depth"));
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    /* The samples in two parts: the second comes "late". iostat's reports are 5
     * lines after a 2-line header; the second part's first report is dropped as
     * iostat's since-boot report, as it would be. */
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "head -n 477 '%s/iostat/iostat_dxt.txt' > '%s/part1.txt' && "
             "{ head -n 2 '%s/iostat/iostat_dxt.txt'; tail -n +478 "
             "'%s/iostat/iostat_dxt.txt'; } > '%s/part2.txt'",
             fx.lab, fx.db.state_dir, fx.lab, fx.lab, fx.db.state_dir);
    if (system(cmd) != 0)
        return -1;
    if (pgfixture_cmd(&fx.db, "--quiet ingest darshan '%s/darshan'", fx.lab) != 0 ||
        pgfixture_cmd(&fx.db, "--quiet ingest iostat --fs lab '%s/part1.txt'",
                      fx.db.state_dir) != 0)
        return -1;
    return server_start(&fx.srv, &fx.db, NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* Runs `iocontend --log-level info analyze ARGS` and returns its summary line (the
 * last line that counts the groups computed; malloc'd) with the exit status in *rc. */
static char *analyze(const char *args, int *rc)
{
    char cmd[1024];

    snprintf(cmd, sizeof cmd, "--log-level info analyze %s 2>&1", args);
    char *out = pgfixture_run(&fx.db, cmd, rc);
    assert_non_null(out);
    char *last = NULL;
    for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strstr(line, "groups computed") != NULL)
            last = line;
    }
    if (last == NULL)
        fail_msg("no summary in the output of analyze %s", args);
    char *summary = strdup(last);
    free(out);
    return summary;
}

/* The number before what in the summary ("8 groups computed" -> 8). */
static long count_of(const char *summary, const char *what)
{
    const char *p = strstr(summary, what);

    if (p == NULL)
        fail_msg("'%s' not in: %s", what, summary);
    while (p > summary && p[-1] == ' ')
        p--;
    while (p > summary && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return strtol(p, NULL, 10);
}

static void expect_counts(const char *args, long computed, long kept, long untouched)
{
    int rc;
    char *s = analyze(args, &rc);

    /* Every lab group is below d_min: exit 1 when any was computed, else 0. */
    assert_int_equal(rc, computed > 0 ? 1 : 0);
    if (count_of(s, "groups computed") != computed ||
        count_of(s, "unchanged and kept") != kept ||
        count_of(s, "without new inputs") != untouched)
        fail_msg("analyze %s: want %ld computed, %ld kept, %ld untouched; got: %s", args,
                 computed, kept, untouched, s);
    free(s);
}

static json_t *association(void)
{
    char path[256];

    snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read",
             fx.group);
    server_await_data(&fx.srv); /* stored answers: of what the last command wrote */
    return server_get_json(&fx.srv, path, NULL, 200);
}

/* The stored part of the association object: when and from what. */
static json_t *stored_of(json_t *assoc)
{
    json_t *s = json_object_get(assoc, "stored");

    assert_true(json_is_object(s));
    assert_true(json_is_string(json_object_get(s, "computed_at")));
    assert_true(json_is_object(json_object_get(s, "provenance")));
    return s;
}

static void first_group(void)
{
    json_t *g = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    json_t *first = json_array_get(json_object_get(g, "groups"), 0);

    assert_int_equal(json_array_size(json_object_get(g, "groups")), LAB_GROUPS);
    snprintf(fx.group, sizeof fx.group, "%s",
             json_string_value(json_object_get(first, "id")));
    json_decref(g);
}

static void second_run_over_unchanged_inputs_changes_nothing(void **state)
{
    (void)state;
    expect_counts("--permutations 0", LAB_GROUPS, 0, 0);
    first_group();
    json_t *before = association();
    json_t *sb = stored_of(before);
    json_t *prov = json_object_get(sb, "provenance");
    /* The first part's samples, and the jobs. */
    first_samples = json_integer_value(json_object_get(prov, "samples"));
    assert_true(first_samples > 0);
    assert_true(json_integer_value(json_object_get(prov, "jobs")) >= 1);
    assert_int_equal(strlen(json_string_value(json_object_get(prov, "jobs_md5"))), 32);
    assert_string_equal(json_string_value(json_object_get(prov, "version")),
                        IOCONTEND_VERSION);
    assert_true(json_is_integer(json_object_get(prov, "seed")));

    /* analyze stored the forest too (at the base granularity); the API serves it
     * without computing one: the lab groups are below d_min, so it says why. */
    json_t *rf = json_object_get(before, "rf");
    assert_true(json_is_object(rf));
    assert_int_equal(json_integer_value(json_object_get(rf, "trees")), 100);
    assert_string_equal(json_string_value(json_object_get(rf, "reason")), "d_below_min");
    char path[256];
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?rf=2", fx.group);
    json_decref(server_get_json(&fx.srv, path, NULL, 400));

    expect_counts("--permutations 0", 0, LAB_GROUPS, 0);
    json_t *after = association();
    assert_true(json_equal(sb, stored_of(after))); /* same time, same provenance */
    json_decref(before);
    json_decref(after);
}

static void late_samples_bring_groups_back(void **state)
{
    (void)state;
    json_t *before = association();
    char *t0 =
        strdup(json_string_value(json_object_get(stored_of(before), "computed_at")));
    assert_int_equal(pgfixture_cmd(&fx.db,
                                   "--quiet ingest iostat --fs lab '%s/part2.txt'",
                                   fx.db.state_dir),
                     0);
    /* Until analyze runs, the stored object is not of these data: the API computes
     * one and says the stored one is not current. */
    json_t *between = association();
    assert_true(json_is_false(json_object_get(stored_of(between), "current")));
    json_decref(between);
    /* The samples overlap every lab job: --since an hour ago finds all groups. */
    expect_counts("--permutations 0 --since 1h", LAB_GROUPS, 0, 0);
    json_t *after = association();
    json_t *sa = stored_of(after);
    json_t *prov = json_object_get(sa, "provenance");
    assert_true(json_integer_value(json_object_get(prov, "samples")) > first_samples);
    assert_int_equal(strlen(json_string_value(json_object_get(prov, "samples_md5"))), 32);
    assert_string_not_equal(json_string_value(json_object_get(sa, "computed_at")), t0);
    assert_true(json_is_true(json_object_get(sa, "current")));
    free(t0);
    json_decref(before);
    json_decref(after);

    expect_counts("--permutations 0", 0, LAB_GROUPS, 0);
}

static void since_force_and_settings_select_the_groups(void **state)
{
    (void)state;
    /* Nothing was loaded after 2099: no group is even looked at. */
    expect_counts("--permutations 0 --since 2099-01-01T00:00:00Z", 0, 0, LAB_GROUPS);
    expect_counts("--permutations 0 --force", LAB_GROUPS, 0, 0);
    /* Another setting is another input: every group again, then kept. */
    expect_counts("--permutations 9", LAB_GROUPS, 0, 0);
    expect_counts("--permutations 9", 0, LAB_GROUPS, 0);
    /* The sweep keeps its own inputs: computed once, then kept; another k_max is
     * another setting; --force and --since as above. */
    expect_counts("--sweep --k-max 3", LAB_GROUPS, 0, 0);
    expect_counts("--sweep --k-max 3", 0, LAB_GROUPS, 0);
    expect_counts("--sweep --k-max 4", LAB_GROUPS, 0, 0);
    expect_counts("--sweep --k-max 4 --force", LAB_GROUPS, 0, 0);
    expect_counts("--sweep --k-max 4 --since 2099-01-01T00:00:00Z", 0, 0, LAB_GROUPS);
}

static void bad_since_is_a_usage_error(void **state)
{
    (void)state;
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --since yesterday"), 64);
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --since 5x"), 64);
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --since 2026-13-01T00:00:00Z"), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(second_run_over_unchanged_inputs_changes_nothing),
        cmocka_unit_test(late_samples_bring_groups_back),
        cmocka_unit_test(since_force_and_settings_select_the_groups),
        cmocka_unit_test(bad_since_is_a_usage_error),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
