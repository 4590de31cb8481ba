/* test_provenance.c: `analyze` as the nightly job over a real PostgreSQL and real
 * HTTP: a second run over unchanged inputs recomputes nothing and changes nothing,
 * late samples bring their groups back, --since and --force select what is
 * recomputed, and every stored result says what it was computed from. Results follow
 * what the jobs hold: [filesystems] added after the ingest (ingest --reprocess maps
 * the jobs again) gives the results of a fresh load, an edited hand-made rule, a
 * changed job value or file-system mapping recomputes its group, and analyze says
 * when a group's jobs touched no monitored file system. The lab run
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
    char group[17];  /* the group with the most jobs */
    char fs[600];    /* a configuration: [filesystems] / = lab */
    char rules[600]; /* the same and [group lab] */
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

/* ---- results follow what the jobs hold ------------------------------------------ */

/* Writes text to the file path. */
static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    assert_true(fputs(text, fp) >= 0);
    assert_int_equal(fclose(fp), 0);
}

/* `iocontend --log-level info --config conf analyze --permutations 0`: its whole
 * output (malloc'd), exit 0 or 1 (the lab's default groups are below d_min). */
static char *analyze_with(const char *conf)
{
    char cmd[1024];
    int rc = -1;

    snprintf(cmd, sizeof cmd,
             "--log-level info --config '%s' analyze --permutations 0 2>&1", conf);
    char *out = pgfixture_run(&fx.db, cmd, &rc);
    assert_non_null(out);
    if (rc != 0 && rc != 1)
        fail_msg("analyze --config %s: exit %d: %s", conf, rc, out);
    return out;
}

/* The groups analyze_with computed and kept, from its summary line. */
static void expect_done(const char *out, long computed, long kept)
{
    const char *s = strstr(out, "groups computed");

    while (s != NULL && s > out && s[-1] != '\n')
        s--;
    if (s == NULL || count_of(s, "groups computed") != computed ||
        count_of(s, "unchanged and kept") != kept)
        fail_msg("want %ld computed, %ld kept: %s", computed, kept, out);
}

/* How many times what occurs in text. */
static long occurrences(const char *text, const char *what)
{
    long n = 0;

    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

static char *query(const char *sql)
{
    char *v = pgfixture_query(&fx.db, sql, NULL);

    assert_non_null(v);
    return v;
}

/* What an analysis read and stored, hashed: the jobs' file-system mapping (monitored
 * bytes, windows, trace windows), every stored association and the coverage, without
 * load and computation times. */
static const char *const outcome_sql =
    "SELECT concat_ws('|', "
    "(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM "
    "  (SELECT job_key, eta_mon_read, eta_mon_write FROM jobs) t), "
    "(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM job_windows t), "
    "(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM job_x_windows t), "
    "(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM "
    "  (SELECT group_id, y, x, granularity_s, space, scope, result FROM results "
    "  WHERE kind = 'association') t), "
    "(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM "
    "  (SELECT scope, granularity_s, coverage, sum_d_bytes, sum_s_bytes, intervals, "
    "  d_total_bytes FROM coverage) t), "
    "(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM coverage_intervals t), "
    "(SELECT count(*) FROM results WHERE kind = 'association'))";

/* Unloads every darshan run with files still loaded, then `ingest darshan` of the lab's
 * logs again with the configuration conf ("": none). */
static void load_again(const char *conf)
{
    char *runs = query("SELECT string_agg(DISTINCT run_id::text, ' ') FROM "
                       "loaded_files WHERE kind = 'darshan'");

    for (char *id = strtok(runs, " "); id != NULL; id = strtok(NULL, " "))
        assert_int_equal(pgfixture_cmd(&fx.db, "--quiet unload --run %s", id), 0);
    free(runs);
    char config[700] = "";
    if (conf[0] != '\0')
        snprintf(config, sizeof config, "--config '%s'", conf);
    assert_int_equal(
        pgfixture_cmd(&fx.db, "--quiet %s ingest darshan '%s/darshan'", config, fx.lab),
        0);
}

static void analyze_warns_of_groups_that_touched_no_monitored_file_system(void **state)
{
    (void)state;
    snprintf(fx.fs, sizeof fx.fs, "%s/fs.conf", fx.db.state_dir);
    write_file(fx.fs, "[filesystems]\n/ = lab\n");
    /* The jobs were loaded with no [filesystems]: with it now, analyze says so of
     * every group, naming what is configured; the coverage is 0. */
    char *out = analyze_with(fx.fs);
    expect_done(out, LAB_GROUPS, 0);
    if (occurrences(out, "read or wrote a file on a monitored file system "
                         "([filesystems]: lab (/))") != LAB_GROUPS)
        fail_msg("no warning for each of the %d groups: %s", LAB_GROUPS, out);
    assert_non_null(strstr(out, "coverage: lab 0.00"));
    free(out);
}

static void filesystems_added_after_ingest_give_a_fresh_loads_results(void **state)
{
    char cmd[2048];
    int rc = -1;

    (void)state;
    /* A fresh load with [filesystems]: the jobs unloaded and ingested again with it.
     * One analyze recomputes every group (their jobs hold other values than those
     * the stored results came from) and warns of none. */
    load_again(fx.fs);
    char *out = analyze_with(fx.fs);
    expect_done(out, LAB_GROUPS, 0);
    assert_null(strstr(out, "monitored file system"));
    assert_null(strstr(out, "coverage: lab 0.00"));
    free(out);
    char *fresh = query(outcome_sql);

    /* Loaded again without [filesystems] and analysed: the stale state. */
    load_again("");
    out = analyze_with(fx.fs);
    expect_done(out, LAB_GROUPS, 0);
    assert_non_null(strstr(out, "coverage: lab 0.00"));
    free(out);

    /* ingest --reprocess maps the jobs again and says how many changed. */
    snprintf(cmd, sizeof cmd,
             "--quiet --config '%s' ingest darshan --reprocess --json '%s/darshan'",
             fx.fs, fx.lab);
    out = pgfixture_run(&fx.db, cmd, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    json_t *sum = json_loads(out, 0, NULL);
    if (sum == NULL || !json_is_integer(json_object_get(sum, "remapped")))
        fail_msg("no remapped count: %s", out);
    assert_int_equal(json_integer_value(json_object_get(sum, "remapped")), 30);
    assert_int_equal(json_integer_value(json_object_get(sum, "loaded")), 0);
    json_decref(sum);
    free(out);

    /* One analyze, no --force: every group again, and the fresh load's results. */
    out = analyze_with(fx.fs);
    expect_done(out, LAB_GROUPS, 0);
    assert_null(strstr(out, "monitored file system"));
    free(out);
    char *remapped = query(outcome_sql);
    assert_string_equal(remapped, fresh);
    free(remapped);
    free(fresh);

    /* Reprocessed again: nothing left to map. */
    out = pgfixture_run(&fx.db, cmd, &rc);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"remapped\":0"));
    free(out);
}

static void an_edited_rule_recomputes_its_group(void **state)
{
    (void)state;
    snprintf(fx.rules, sizeof fx.rules, "%s/rules.conf", fx.db.state_dir);
    write_file(fx.rules, "[filesystems]\n/ = lab\n[group lab]\nexecutable = ^labjob\n"
                         "nprocs = 1-64\n");
    char *out = analyze_with(fx.rules);
    expect_done(out, 1, LAB_GROUPS);
    free(out);
    /* The same 30 jobs by another rule: the rule alone changed. */
    write_file(fx.rules, "[filesystems]\n/ = lab\n[group lab]\nexecutable = ^labjob\n"
                         "nprocs = 1-65\n");
    out = analyze_with(fx.rules);
    expect_done(out, 1, LAB_GROUPS);
    free(out);
}

/* One job's value, then one window's file system, changed in place (as a load by
 * another version, or a re-map, would): its default group and [group lab] are
 * computed again, the rest kept. */
static void changed_values_and_mappings_recompute_their_groups(void **state)
{
    static const char *const edits[] = {
        "UPDATE jobs SET t_um = t_um + 0.125 WHERE job_key = (SELECT min(job_key) FROM "
        "jobs)",
        "UPDATE job_windows SET fs = NULL WHERE ctid = (SELECT min(ctid) FROM "
        "job_windows WHERE job_key = (SELECT min(job_key) FROM jobs) AND fs IS NOT "
        "NULL)",
    };
    char sql[600];

    (void)state;
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        snprintf(sql, sizeof sql, "WITH u AS (%s RETURNING 1) SELECT count(*) FROM u",
                 edits[i]);
        char *n = query(sql);
        assert_string_equal(n, "1");
        free(n);
        char *out = analyze_with(fx.rules);
        expect_done(out, 2, LAB_GROUPS - 1);
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(second_run_over_unchanged_inputs_changes_nothing),
        cmocka_unit_test(late_samples_bring_groups_back),
        cmocka_unit_test(since_force_and_settings_select_the_groups),
        cmocka_unit_test(bad_since_is_a_usage_error),
        cmocka_unit_test(analyze_warns_of_groups_that_touched_no_monitored_file_system),
        cmocka_unit_test(filesystems_added_after_ingest_give_a_fresh_loads_results),
        cmocka_unit_test(an_edited_rule_recomputes_its_group),
        cmocka_unit_test(changed_values_and_mappings_recompute_their_groups),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
