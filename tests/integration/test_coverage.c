/* test_coverage.c: what `analyze` stores beside the associations, served over real
 * HTTP from a real PostgreSQL: the coverage of METHOD.md §7 (GET /api/v1/coverage) and
 * each group's table of §4 (GET /api/v1/groups/{id}/table), against the independent
 * oracle tests/oracles/coverage.py (numpy) on generated data and on the lab run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE "tests/oracles/coverage.py"
#define SEED   20240601UL
/* One day: 420 jobs per group still, 1440 intervals per file system. */
#define GEN_ARGS "--days 1"
/* The generator samples every 60 s; the lab's iostat every second, its clock 0.9 s
 * behind the jobs' (METHOD.md §1). */
#define SAMPLE_DELTA_S 60.0
#define LAB_DELTA_S    1.0
#define LAB_OFFSET_S   0.9
/* Both sides sum the same doubles in another order; the API prints 15 significant
 * digits. */
#define REL 1e-9

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];  /* the data (generated, or the lab run) */
    char conf[600]; /* its iocontend.conf */
    json_t *oracle; /* coverage.py coverage */
    json_t *table;  /* coverage.py table (the generated data only) */
} fx;

/* ---- helpers ------------------------------------------------------------------- */

static json_t *get_json(const char *path, int want)
{
    return server_get_json(&fx.srv, path, NULL, want);
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        fail_msg("%s is not a number", key);
    return json_number_value(v);
}

static void assert_close(double got, double want, double rel)
{
    assert_rel(got, want, rel * fmax(fabs(want), 1.0));
}

static void expect_error(const char *path, int code, const char *status,
                         const char *parameter)
{
    json_t *j = get_json(path, code);
    const json_t *e = json_object_get(j, "error");

    assert_true(json_is_object(e));
    assert_string_equal(json_string_value(json_object_get(e, "status")), status);
    assert_true(json_is_string(json_object_get(e, "message")));
    if (parameter != NULL) {
        assert_string_equal(json_string_value(json_object_get(e, "parameter")),
                            parameter);
    } else {
        assert_null(json_object_get(e, "parameter"));
    }
    json_decref(j);
}

/* Runs the oracle with args; its JSON, or NULL with the reason on stderr. */
static json_t *run_oracle(const char *args)
{
    const char *script = testutil_repo_file(ORACLE);
    char cmd[8192];
    json_error_t jerr;
    int rc = -1;

    if (script == NULL) {
        fprintf(stderr, "no %s\n", ORACLE);
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s", testutil_oracle_python(), script, args);
    char *out = testutil_run(cmd, &rc);
    json_t *j = out != NULL && rc == 0 ? json_loads(out, 0, &jerr) : NULL;
    if (j == NULL)
        fprintf(stderr, "oracle `%s` exited %d:\n%s\n", cmd, rc, out != NULL ? out : "");
    free(out);
    return j;
}

/* " --iostat FS=PATH" for every dir/iostat/FS/ *.txt, appended to args. */
static int iostat_args(const char *dir, char *args, size_t size)
{
    char root[600];
    struct dirent *e;
    DIR *d;

    snprintf(root, sizeof root, "%s/iostat", dir);
    d = opendir(root);
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char sub[900];
        struct dirent *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
        DIR *fd = opendir(sub);
        while (fd != NULL && (f = readdir(fd)) != NULL) {
            size_t len = strlen(f->d_name), used = strlen(args);
            if (len > 4 && strcmp(f->d_name + len - 4, ".txt") == 0)
                snprintf(args + used, size - used, " --iostat '%s=%s/%s'", e->d_name, sub,
                         f->d_name);
        }
        if (fd != NULL)
            closedir(fd);
    }
    closedir(d);
    return 0;
}

/* The served scope of /api/v1/coverage (no fs: every one), checked against the
 * oracle's, interval by interval; its coverage returned. */
static double check_scope_against_oracle(const json_t *served)
{
    const char *scope = json_string_value(json_object_get(served, "scope"));
    const json_t *want = json_object_get(fx.oracle, scope);
    const json_t *rows = json_object_get(want, "rows");
    const json_t *ends = json_object_get(served, "end_ms");
    const json_t *d = json_object_get(served, "d"), *s = json_object_get(served, "s");
    double max_d = num(served, "max_d_bytes"), max_s = num(served, "max_s_bytes");

    assert_non_null(scope);
    assert_true(json_is_object(want));
    assert_close(num(served, "coverage"), num(want, "coverage"), REL);
    assert_close(num(served, "sum_d_bytes"), num(want, "sum_d_bytes"), REL);
    assert_close(num(served, "sum_s_bytes"), num(want, "sum_s_bytes"), REL);
    assert_int_equal((long)num(served, "intervals"), (long)num(want, "intervals"));
    assert_close(num(served, "d_total_bytes"), num(want, "d_total_bytes"), REL);
    /* Without from / to the range is the whole series. */
    assert_close(num(json_object_get(served, "range"), "coverage"), num(want, "coverage"),
                 REL);
    assert_int_equal(json_array_size(ends), json_array_size(rows));
    assert_int_equal(json_array_size(d), json_array_size(rows));
    assert_int_equal(json_array_size(s), json_array_size(rows));
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const json_t *row = json_array_get(rows, i);
        const json_t *wd = json_array_get(row, 1), *ws = json_array_get(row, 2);
        double end_ms = json_number_value(json_array_get(row, 0)) * 1000.0;
        assert_rel(json_number_value(json_array_get(ends, i)), end_ms, 0.5);
        /* D_i / max D and S_i / max S, null where absent (Fig. 13). */
        assert_int_equal(json_is_null(json_array_get(d, i)), json_is_null(wd));
        assert_int_equal(json_is_null(json_array_get(s, i)), json_is_null(ws));
        if (!json_is_null(wd)) {
            assert_rel(json_number_value(json_array_get(d, i)) * max_d,
                       json_number_value(wd), REL * max_d);
        }
        if (!json_is_null(ws)) {
            assert_rel(json_number_value(json_array_get(s, i)) * max_s,
                       json_number_value(ws), REL * max_s);
        }
    }
    return num(served, "coverage");
}

/* ---- generated data ------------------------------------------------------------ */

static int sample_start(void)
{
    char args[8192], out[700], run[1400];
    int rc = -1;

    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0)
        return -1; /* the group teardown cleans up */
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    /* sample_load ends with `analyze`, which stores the tables and the coverage. */
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0 || sample_load(&fx.db, fx.dir) != 0)
        return -1;
    snprintf(out, sizeof out, "%s/jobs.csv", fx.db.state_dir);
    snprintf(run, sizeof run, "--config '%s' export jobs --format csv --out '%s'",
             fx.conf, out);
    free(pgfixture_run(&fx.db, run, &rc));
    if (rc != 0)
        return -1;
    snprintf(args, sizeof args, "coverage --conf '%s' --darshan '%s/darshan' --delta %g",
             fx.conf, fx.dir, SAMPLE_DELTA_S);
    if (iostat_args(fx.dir, args, sizeof args) != 0)
        return -1;
    fx.oracle = run_oracle(args);
    snprintf(args, sizeof args, "table --jobs-csv '%s' --darshan '%s/darshan' --delta %g",
             out, fx.dir, SAMPLE_DELTA_S);
    fx.table = run_oracle(args);
    if (fx.oracle == NULL || fx.table == NULL)
        return -1;
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static void fixture_stop(void)
{
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    json_decref(fx.oracle);
    json_decref(fx.table);
    fx.oracle = fx.table = NULL;
}

static void coverage_of_each_file_system_and_of_all_is_the_oracles(void **state)
{
    (void)state;
    json_t *j = get_json("/api/v1/coverage", 200);
    const json_t *list = json_object_get(j, "filesystems");
    const json_t *summary = json_object_get(j, "coverage");

    /* all, then scratch1 and scratch2. */
    assert_int_equal(json_array_size(list), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "fs")),
                        "all");
    assert_true(json_is_null(json_object_get(j, "from")));
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *one = json_array_get(list, i);
        double c = check_scope_against_oracle(one);
        assert_rel(num(one, "granularity_s"), SAMPLE_DELTA_S, 0);
        assert_rel(num(summary, json_string_value(json_object_get(one, "fs"))), c, 0);
        print_message("coverage %s: %.4f\n",
                      json_string_value(json_object_get(one, "fs")), c);
    }
    json_decref(j);
}

static void every_interval_holds_no_more_job_bytes_than_the_servers_saw(void **state)
{
    /* The generator puts every job byte on the monitored servers, beside background
     * load: D_i <= S_i wherever both are known, and the coverage lies in (0, 1). */
    (void)state;
    json_t *j = get_json("/api/v1/coverage?fs=scratch1", 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    const json_t *d = json_object_get(one, "d"), *s = json_object_get(one, "s");
    double max_d = num(one, "max_d_bytes"), max_s = num(one, "max_s_bytes");
    size_t both = 0;

    assert_int_equal(json_array_size(json_object_get(j, "filesystems")), 1);
    assert_string_equal(json_string_value(json_object_get(one, "fs")), "scratch1");
    for (size_t i = 0; i < json_array_size(d); i++) {
        const json_t *di = json_array_get(d, i), *si = json_array_get(s, i);
        if (json_is_null(di) || json_is_null(si))
            continue;
        assert_true(json_number_value(di) * max_d <=
                    json_number_value(si) * max_s * (1 + 1e-12));
        both++;
    }
    assert_int_equal(both, (size_t)num(one, "intervals"));
    assert_true(num(one, "coverage") > 0 && num(one, "coverage") < 1);
    json_decref(j);
}

static void from_and_to_keep_the_intervals_that_overlap_them(void **state)
{
    /* Intervals (T − 60, T]; [from, to) = [T_a − 30, T_b + 30) keeps T_a … T_b + 60:
     * the one holding from and the one after to's grid point. */
    (void)state;
    const json_t *rows =
        json_object_get(json_object_get(fx.oracle, "fs:scratch2"), "rows");
    double t_a = json_number_value(json_array_get(json_array_get(rows, 100), 0));
    double t_b = json_number_value(json_array_get(json_array_get(rows, 219), 0));
    char path[256];
    snprintf(path, sizeof path, "/api/v1/coverage?fs=scratch2&from=%.0f&to=%.0f",
             (t_a - 30) * 1000, (t_b + 30) * 1000);
    json_t *j = get_json(path, 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    const json_t *ends = json_object_get(one, "end_ms");
    double sum_d = 0, sum_s = 0;
    long both = 0;

    assert_int_equal(json_array_size(ends), 121);
    assert_rel(json_number_value(json_array_get(ends, 0)), t_a * 1000, 0);
    assert_rel(json_number_value(json_array_get(ends, 120)), (t_b + 60) * 1000, 0);
    assert_rel(num(j, "from_ms"), (t_a - 30) * 1000, 0);
    for (size_t i = 100; i <= 220; i++) {
        const json_t *row = json_array_get(rows, i);
        if (json_is_null(json_array_get(row, 1)) || json_is_null(json_array_get(row, 2)))
            continue;
        sum_d += json_number_value(json_array_get(row, 1));
        sum_s += json_number_value(json_array_get(row, 2));
        both++;
    }
    const json_t *range = json_object_get(one, "range");
    assert_int_equal((long)num(range, "intervals"), both);
    assert_close(num(range, "coverage"), sum_d / sum_s, REL);
    /* The whole-span coverage stays beside it. */
    assert_close(num(one, "coverage"),
                 num(json_object_get(fx.oracle, "fs:scratch2"), "coverage"), REL);
    json_decref(j);
}

static void group_table_is_numpys_over_the_exported_jobs(void **state)
{
    const char *id;
    const json_t *want;

    (void)state;
    assert_int_equal(json_object_size(fx.table), 3);
    json_object_foreach(fx.table, id, want)
    {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/groups/%s/table", id);
        json_t *got = get_json(path, 200);
        const char *name;
        const json_t *w;

        assert_string_equal(json_string_value(json_object_get(got, "kind")),
                            "group_table");
        assert_string_equal(json_string_value(json_object_get(got, "group")), id);
        assert_rel(num(got, "granularity_s"), SAMPLE_DELTA_S, 0);
        assert_rel(num(got, "jobs"), num(want, "jobs"), 0);
        json_object_foreach(json_object_get(want, "features"), name, w)
        {
            const json_t *g = json_object_get(json_object_get(got, "features"), name);
            assert_rel(num(g, "min"), num(w, "min"), 0);
            assert_rel(num(g, "max"), num(w, "max"), 0);
        }
        json_object_foreach(json_object_get(want, "metrics"), name, w)
        {
            const json_t *g = json_object_get(json_object_get(got, "metrics"), name);
            assert_non_null(g);
            assert_rel(num(g, "n"), num(w, "n"), 0);
            assert_rel(num(g, "excluded"), num(want, "jobs") - num(w, "n"), 0);
            assert_close(num(g, "mean"), num(w, "mean"), 1e-12);
            assert_close(num(g, "sd"), num(w, "sd"), 1e-10);
        }
        const json_t *gh = json_object_get(got, "td_histogram");
        const json_t *wh = json_object_get(want, "td_histogram");
        assert_rel(num(gh, "bin_width_s"), SAMPLE_DELTA_S, 0);
        assert_rel(num(gh, "first_edge_s"), num(wh, "first_edge_s"), 0);
        assert_true(
            json_equal(json_object_get(gh, "counts"), json_object_get(wh, "counts")));
        assert_close(num(gh, "mean"), num(wh, "mean"), 1e-12);
        assert_close(num(gh, "band_low"), num(wh, "band_low"), 1e-10);
        assert_close(num(gh, "band_high"), num(wh, "band_high"), 1e-10);
        json_decref(got);
    }
}

static void bad_queries_answer_as_interfaces_says(void **state)
{
    (void)state;
    expect_error("/api/v1/coverage?fs=scratch9", 400, "invalid", "fs");
    expect_error("/api/v1/coverage?from=yesterday", 400, "invalid", "from");
    expect_error("/api/v1/coverage?to=2026-13-01T00:00:00Z", 400, "invalid", "to");
    expect_error("/api/v1/coverage?from=1795133773000&to=1795133770000", 400, "invalid",
                 "to");
    expect_error("/api/v1/groups/0000000000000000/table", 404, "not_found", NULL);
    expect_error("/api/v1/groups/not*an*id/table", 404, "not_found", NULL);
}

/* ---- the lab run --------------------------------------------------------------- */

static int lab_start(void)
{
    char args[4096];
    const char *lab = testutil_path(testutil_shared_data(), "lab/run1_queue_depth");
    FILE *fp;

    memset(&fx, 0, sizeof fx);
    snprintf(fx.dir, sizeof fx.dir, "%s", lab);
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    /* Every job file lives on the root file system of the one device sampled. */
    snprintf(fx.conf, sizeof fx.conf, "%s/lab.conf", fx.db.state_dir);
    fp = fopen(fx.conf, "w");
    if (fp == NULL)
        return -1;
    fprintf(fp, "[filesystems]\n/ = lab\n[samples]\nsample_offset_s = %g\n",
            LAB_OFFSET_S);
    fclose(fp);
    /* the darshan-parser texts the oracle reads (the folder's .darshan files, loaded
     * first when the folder is given, carry the times unrounded) */
    if (pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest darshan '%s/darshan/'*.parser.txt",
                      fx.conf, fx.dir) != 0 ||
        pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest iostat --fs lab "
                      "'%s/iostat/iostat_dxt.txt'",
                      fx.conf, fx.dir) != 0)
        return -1;
    snprintf(args, sizeof args,
             "coverage --conf '%s' --darshan '%s/darshan' --iostat "
             "'lab=%s/iostat/iostat_dxt.txt' --delta %g --offset %g",
             fx.conf, fx.dir, fx.dir, LAB_DELTA_S, LAB_OFFSET_S);
    fx.oracle = run_oracle(args);
    if (fx.oracle == NULL)
        return -1;
    /* Served before analyze: the first test asks for what is not stored yet. */
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static void table_and_coverage_answer_404_before_analyze(void **state)
{
    (void)state;
    expect_error("/api/v1/coverage", 404, "not_found", NULL);
    json_t *groups = get_json("/api/v1/groups", 200);
    const json_t *g = json_array_get(json_object_get(groups, "groups"), 0);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/groups/%s/table",
             json_string_value(json_object_get(g, "id")));
    expect_error(path, 404, "not_found", NULL);
    json_decref(groups);
}

static void lab_coverage_after_analyze_is_the_oracles(void **state)
{
    int rc = -1;
    char args[700];

    (void)state;
    /* Exit 1: every lab group is below d_min. */
    snprintf(args, sizeof args, "--config '%s' analyze", fx.conf);
    char *out = pgfixture_run(&fx.db, args, &rc);
    free(out);
    assert_true(rc == 0 || rc == 1);
    json_t *j = get_json("/api/v1/coverage?fs=lab", 200);
    const json_t *one = json_array_get(json_object_get(j, "filesystems"), 0);
    assert_rel(num(one, "granularity_s"), LAB_DELTA_S, 0);
    double c = check_scope_against_oracle(one);
    print_message("coverage lab: %.4f\n", c);
    json_decref(j);
    /* Every group has its table, and their jobs add up to the 30 of the run. */
    json_t *groups = get_json("/api/v1/groups", 200);
    size_t i;
    const json_t *g;
    long jobs = 0;
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        char path[128];
        snprintf(path, sizeof path, "/api/v1/groups/%s/table",
                 json_string_value(json_object_get(g, "id")));
        json_t *t = get_json(path, 200);
        jobs += (long)num(t, "jobs");
        json_decref(t);
    }
    assert_int_equal(jobs, 30);
    json_decref(groups);
}

/* ---- one fixture at a time --------------------------------------------------- */

/* The suite's tests run on one of two databases, made when its first test comes and
 * dropped when a test of the other comes (pgfixture: one after another), so that one
 * cmocka group (one summary) covers both. A fixture that failed is not retried. */
enum fixture { FIX_NONE, FIX_SAMPLE, FIX_LAB, FIX_COUNT };

static enum fixture current = FIX_NONE;
static bool broken[FIX_COUNT];

static int use(enum fixture want)
{
    if (current == want)
        return 0;
    if (broken[want])
        return -1;
    if (current != FIX_NONE)
        fixture_stop();
    current = FIX_NONE;
    if ((want == FIX_SAMPLE ? sample_start() : lab_start()) != 0) {
        broken[want] = true;
        fixture_stop();
        return -1;
    }
    current = want;
    return 0;
}

static int use_sample(void **state)
{
    (void)state;
    return use(FIX_SAMPLE);
}

static int use_lab(void **state)
{
    (void)state;
    return use(FIX_LAB);
}

static int group_teardown(void **state)
{
    (void)state;
    if (current != FIX_NONE)
        fixture_stop();
    current = FIX_NONE;
    return 0;
}

#define SAMPLE_TEST(f) cmocka_unit_test_setup(f, use_sample)
#define LAB_TEST(f)    cmocka_unit_test_setup(f, use_lab)

int main(void)
{
    const struct CMUnitTest tests[] = {
        SAMPLE_TEST(coverage_of_each_file_system_and_of_all_is_the_oracles),
        SAMPLE_TEST(every_interval_holds_no_more_job_bytes_than_the_servers_saw),
        SAMPLE_TEST(from_and_to_keep_the_intervals_that_overlap_them),
        SAMPLE_TEST(group_table_is_numpys_over_the_exported_jobs),
        SAMPLE_TEST(bad_queries_answer_as_interfaces_says),
        /* In this order: the lab's tables and coverage are not stored until the
         * second test runs analyze. */
        LAB_TEST(table_and_coverage_answer_404_before_analyze),
        LAB_TEST(lab_coverage_after_analyze_is_the_oracles),
    };

    return cmocka_run_group_tests(tests, NULL, group_teardown);
}
