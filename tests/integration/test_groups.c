/* test_groups.c: hand-made groups (METHOD.md §4) on the lab run, in a real PostgreSQL
 * and over real HTTP: [group NAME] rules of each key, their members stored by
 * analyze, listed by /api/v1/groups as hand:NAME, their association of tau with b_d,
 * an edited rule recomputed under the same id, a group the configuration lacks kept
 * (and warned of under --quiet) until analyze --prune. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lab run: 30 jobs of /tmp/lab/labjob (uid 0, 1 process, job ids 1001-1030),
 * each reading and writing 64 to 512 MiB on the one device sampled. */
#define LAB_JOBS 30
#define LAB_BASE "[filesystems]\n/ = lab\n[samples]\nsample_offset_s = 0.9\n"

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];
    char conf[600];
} fx;

/* Writes LAB_BASE and groups to fx.conf. */
static void write_conf(const char *groups)
{
    FILE *fp = fopen(fx.conf, "w");

    assert_non_null(fp);
    assert_true(fprintf(fp, "%s%s", LAB_BASE, groups) > 0);
    assert_int_equal(fclose(fp), 0);
}

/* Runs analyze over fx.conf and returns its log (caller frees). */
static char *analyze(void)
{
    char args[800];
    int rc = -1;

    snprintf(args, sizeof args, "--config '%s' analyze --permutations 0 2>&1", fx.conf);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(out);
    if (rc != 0 && rc != 1)
        fail_msg("analyze exited %d: %s", rc, out);
    return out;
}

static int setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    snprintf(fx.dir, sizeof fx.dir, "%s",
             testutil_path(testutil_shared_data(), "lab/run1_queue_depth"));
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.conf, sizeof fx.conf, "%s/lab.conf", fx.db.state_dir);
    FILE *fp = fopen(fx.conf, "w");
    if (fp == NULL)
        return -1;
    fprintf(fp, "%s[group lab]\nexecutable = ^labjob\n", LAB_BASE);
    fclose(fp);
    if (pgfixture_cmd(&fx.db, "--quiet --config '%s' ingest darshan '%s/darshan'",
                      fx.conf, fx.dir) != 0 ||
        pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest iostat --fs lab "
                      "'%s/iostat/iostat_dxt.txt'",
                      fx.conf, fx.dir) != 0)
        return -1;
    int rc =
        pgfixture_cmd(&fx.db, "--quiet --config '%s' analyze --permutations 0", fx.conf);
    if (rc != 0 && rc != 1) /* 1: the default groups are below d_min */
        return -1;
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static int teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* The entry of /api/v1/groups whose key is key, copied into *out; false when none. */
static bool listed(const char *key, char id[17], long *jobs)
{
    json_t *all = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    size_t i;
    const json_t *g;
    bool found = false;

    json_array_foreach(json_object_get(all, "groups"), i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "key")), key) == 0) {
            snprintf(id, 17, "%s", json_string_value(json_object_get(g, "id")));
            *jobs = (long)json_integer_value(json_object_get(g, "jobs"));
            found = true;
        }
    }
    json_decref(all);
    return found;
}

static long jobs_of(const char *key)
{
    char id[17];
    long jobs = -1;

    if (!listed(key, id, &jobs))
        fail_msg("no group %s in /api/v1/groups", key);
    return jobs;
}

static void the_lab_group_holds_its_30_jobs_and_its_association(void **state)
{
    char id[17], path[256];
    long jobs = 0;

    (void)state;
    assert_true(listed("hand:lab", id, &jobs));
    assert_int_equal(jobs, LAB_JOBS);
    assert_int_equal(strlen(id), 16);
    /* The association of METHOD.md §5 over the group's 30 jobs. */
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=tau&x=b_d", id);
    json_t *a = server_get_json(&fx.srv, path, NULL, 200);
    const json_t *d = json_object_get(a, "d");
    assert_true(json_is_integer(d));
    assert_true(json_integer_value(d) >= 10 && json_integer_value(d) <= LAB_JOBS);
    assert_true(json_integer_value(d) + json_integer_value(json_object_get(
                                            json_object_get(a, "excluded"), "total")) ==
                LAB_JOBS);
    static const char *const coefficients[] = {"pearson", "spearman", "dcor_v",
                                               "mi_ksg_nats"};
    for (size_t i = 0; i < sizeof coefficients / sizeof coefficients[0]; i++) {
        if (!json_is_number(json_object_get(a, coefficients[i])))
            fail_msg("%s is not a number", coefficients[i]);
    }
    print_message("hand:lab tau~b_d: d = %lld, pearson %.3f, spearman %.3f\n",
                  (long long)json_integer_value(d),
                  json_number_value(json_object_get(a, "pearson")),
                  json_number_value(json_object_get(a, "spearman")));
    json_decref(a);
    /* Its table and its page of jobs count the same 30. */
    snprintf(path, sizeof path, "/api/v1/groups/%s/table", id);
    json_t *t = server_get_json(&fx.srv, path, NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(t, "jobs")), LAB_JOBS);
    json_decref(t);
    snprintf(path, sizeof path, "/api/v1/jobs?group=%s&limit=100", id);
    json_t *page = server_get_json(&fx.srv, path, NULL, 200);
    assert_int_equal(json_array_size(json_object_get(page, "jobs")), LAB_JOBS);
    json_decref(page);
    /* export --group takes it: a header and one row per job. */
    char args[800];
    int rc = -1;
    snprintf(args, sizeof args, "--config '%s' export jobs --group %s", fx.conf, id);
    char *csv = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(csv);
    assert_int_equal(rc, 0);
    long lines = 0;
    for (const char *p = csv; *p != '\0'; p++)
        lines += *p == '\n';
    assert_int_equal(lines, LAB_JOBS + 1);
    free(csv);
}

static void an_edited_rule_recomputes_the_group_under_its_id(void **state)
{
    char id[17], again[17];
    long jobs = 0;

    (void)state;
    assert_true(listed("hand:lab", id, &jobs));
    /* Unchanged: kept. */
    write_conf("[group lab]\nexecutable = ^labjob\n");
    char *log = analyze();
    assert_null(strstr(log, "(lab): d = "));
    free(log);
    /* A range that keeps every job: the same members, another rule, recomputed. */
    write_conf("[group lab]\nexecutable = ^labjob\nnprocs = 1-4\n");
    log = analyze();
    if (strstr(log, "(lab): d = 30") == NULL)
        fail_msg("the edited group was not recomputed: %s", log);
    free(log);
    assert_true(listed("hand:lab", again, &jobs));
    assert_string_equal(again, id);
    assert_int_equal(jobs, LAB_JOBS);
    /* A range that keeps none: still listed, with 0 jobs, and a warning. */
    write_conf("[group lab]\nexecutable = ^labjob\nnprocs = 2-64\n");
    log = analyze();
    assert_non_null(strstr(log, "matches no job"));
    free(log);
    assert_true(listed("hand:lab", again, &jobs));
    assert_string_equal(again, id);
    assert_int_equal(jobs, 0);
    /* Back: 30 again. */
    write_conf("[group lab]\nexecutable = ^labjob\n");
    free(analyze());
    assert_int_equal(jobs_of("hand:lab"), LAB_JOBS);
}

/* How many results are stored for group id, and when the newest was computed. */
static void results_of(const char *id, long *n, char newest[64])
{
    char *count =
        pgfixture_query(&fx.db, "SELECT count(*) FROM results WHERE group_id = $1", id);
    char *at = pgfixture_query(
        &fx.db,
        "SELECT coalesce(max(computed_at)::text, '') FROM results WHERE group_id = $1",
        id);

    assert_non_null(count);
    assert_non_null(at);
    *n = atol(count);
    snprintf(newest, 64, "%s", at);
    free(count);
    free(at);
}

/* Runs `--quiet [--config FILE] analyze ARGS`, stderr joined: what cron would mail. */
static char *analyze_quiet(bool with_conf, const char *args)
{
    char cmd[1000];
    int rc = -1;

    snprintf(cmd, sizeof cmd, "--quiet %s%s%s analyze --permutations 0 %s 2>&1",
             with_conf ? "--config '" : "", with_conf ? fx.conf : "",
             with_conf ? "'" : "", args);
    char *out = pgfixture_run(&fx.db, cmd, &rc);
    assert_non_null(out);
    if (rc != 0 && rc != 1)
        fail_msg("%s exited %d: %s", cmd, rc, out);
    return out;
}

/* Issue 30: a run without --config (as a crontab line that forgot it) where the
 * last one read the file is refused (64) and changes nothing, said under --quiet;
 * with --force it keeps the hand-made group, its members and its results, and says
 * so under --quiet, with the way to remove it; the settings it analysed with instead
 * (no sample_offset_s) are named too. */
static void a_run_without_the_configuration_keeps_the_group_and_says_so(void **state)
{
    char id[17], before_at[64], after_at[64], want[1600];
    long jobs = 0, before = 0, after = 0;

    (void)state;
    assert_true(listed("hand:lab", id, &jobs));
    assert_int_equal(jobs, LAB_JOBS);
    results_of(id, &before, before_at);
    assert_true(before > 0);

    /* Its settings differ from the file's (no sample_offset_s): refused, so that
     * the default groups keep their results too, and said under --quiet. */
    char cmd[800];
    int rc = -1;
    snprintf(cmd, sizeof cmd, "--quiet analyze --permutations 0 2>&1");
    char *out = pgfixture_run(&fx.db, cmd, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 64);
    snprintf(want, sizeof want,
             "%s: the stored results are of its settings and this run read no "
             "configuration file: give --config with it",
             fx.conf);
    if (strstr(out, want) == NULL || strstr(out, "nothing was changed") == NULL)
        fail_msg("want '%s' in: %s", want, out);
    free(out);
    results_of(id, &after, after_at);
    assert_int_equal(after, before);
    assert_string_equal(after_at, before_at);
    assert_int_equal(jobs_of("hand:lab"), LAB_JOBS);

    /* --force: the defaults are meant; the group is still kept. */
    out = analyze_quiet(false, "--force");
    snprintf(want, sizeof want, "warn: group %s (hand:lab) is not in the configuration",
             id);
    if (strstr(out, want) == NULL || strstr(out, "'iocontend analyze --prune'") == NULL ||
        strstr(out, "put [group lab] back (its rule: executable=^labjob)") == NULL)
        fail_msg("no warning of the kept group under --quiet: %s", out);
    if (strstr(out, "settings differ from the last analyze's (sample_offset_s 0, was "
                    "0.9; it read ") == NULL)
        fail_msg("no warning of the other settings under --quiet: %s", out);
    /* --quiet: the warnings that mean kept or replaced results, and nothing else. */
    assert_null(strstr(out, "info:"));
    free(out);

    assert_int_equal(jobs_of("hand:lab"), LAB_JOBS);
    results_of(id, &after, after_at);
    assert_int_equal(after, before);
    assert_string_equal(after_at, before_at); /* kept, not recomputed */

    /* Every run says it again, from when it was first missed. */
    out = analyze_quiet(false, "");
    assert_non_null(strstr(out, want));
    free(out);
    results_of(id, &after, after_at);
    assert_int_equal(after, before);
    assert_string_equal(after_at, before_at);
}

/* Only --prune removes a stored hand-made group the configuration lacks. */
static void prune_removes_a_group_the_configuration_lacks(void **state)
{
    char id[17], at[64], want[900];
    long jobs = 0, n = 0;

    (void)state;
    assert_true(listed("hand:lab", id, &jobs));
    write_conf("[group other]\nuid = 0\n");
    char *out = analyze_quiet(true, "--prune");
    snprintf(want, sizeof want,
             "warn: group %s (hand:lab) is not in the configuration (%s): removed with "
             "its results (--prune)",
             id, fx.conf);
    if (strstr(out, want) == NULL)
        fail_msg("want '%s' in: %s", want, out);
    free(out);
    assert_false(listed("hand:lab", id, &jobs));
    results_of(id, &n, at);
    assert_int_equal(n, 0);
    assert_int_equal(jobs_of("hand:other"), LAB_JOBS);
}

static void uid_nprocs_bytes_and_jobs_each_match(void **state)
{
    char ids[2][24];
    long bytes_le = 0;

    (void)state;
    /* bytes = read + written, counted from the jobs' own numbers. */
    char args[800];
    int rc = -1;
    snprintf(args, sizeof args, "--config '%s' export jobs --format json", fx.conf);
    char *text = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(text);
    assert_int_equal(rc, 0);
    json_t *all = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(all);
    size_t i;
    const json_t *j;
    json_array_foreach(json_object_get(all, "jobs"), i, j)
    {
        double b = json_number_value(json_object_get(j, "eta_read")) +
                   json_number_value(json_object_get(j, "eta_write"));
        bytes_le += b <= 600.0 * 1024 * 1024 ? 1 : 0;
        if (i < 2) {
            snprintf(ids[i], sizeof ids[i], "%s",
                     json_string_value(json_object_get(j, "jobid")));
        }
    }
    assert_int_equal(json_array_size(json_object_get(all, "jobs")), LAB_JOBS);
    json_decref(all);
    assert_true(bytes_le > 0 && bytes_le < LAB_JOBS);

    char groups[1024];
    snprintf(groups, sizeof groups,
             "[group uid0]\nuid = 7, 0\n[group uid7]\nuid = 7,1000\n"
             "[group one_proc]\nnprocs = 1\n[group many_procs]\nnprocs = 2-1024\n"
             "[group small]\nbytes = 0-600M\n[group huge]\nbytes = 1T-2T\n"
             "[group two]\njobs = %s, 0:%s\n[group other_uid]\njobs = 7:%s\n"
             "[group both]\nexecutable = ^labjob$\nuid = 0\nnprocs = 1-1\njobs = %s\n",
             ids[0], ids[1], ids[0], ids[1]);
    write_conf(groups);
    free(analyze());
    assert_int_equal(jobs_of("hand:uid0"), LAB_JOBS);
    assert_int_equal(jobs_of("hand:uid7"), 0);
    assert_int_equal(jobs_of("hand:one_proc"), LAB_JOBS);
    assert_int_equal(jobs_of("hand:many_procs"), 0);
    assert_int_equal(jobs_of("hand:small"), bytes_le);
    assert_int_equal(jobs_of("hand:huge"), 0);
    assert_int_equal(jobs_of("hand:two"), 2);
    assert_int_equal(jobs_of("hand:other_uid"), 0);
    assert_int_equal(jobs_of("hand:both"), 1);
    /* [group lab] went with --prune; [group other] is not in this file: kept. */
    assert_int_equal(jobs_of("hand:other"), LAB_JOBS);
    char id[17];
    long jobs = 0;
    assert_false(listed("hand:lab", id, &jobs));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* In this order: the second edits the first one's rule, the third runs
         * without the configuration, the fourth prunes the group, the fifth replaces
         * the groups. */
        cmocka_unit_test(the_lab_group_holds_its_30_jobs_and_its_association),
        cmocka_unit_test(an_edited_rule_recomputes_the_group_under_its_id),
        cmocka_unit_test(a_run_without_the_configuration_keeps_the_group_and_says_so),
        cmocka_unit_test(prune_removes_a_group_the_configuration_lacks),
        cmocka_unit_test(uid_nprocs_bytes_and_jobs_each_match),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
