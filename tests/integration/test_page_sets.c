/* test_page_sets.c: the dashboard page in a real headless browser on the data sets
 * beside the demo (issue 21): the lab run with one hand-made group, and 45
 * generated days. On each the page draws every group with no console error, and
 * what its Vega views hold is what the API serves. On the lab (issue 30): who got
 * hurt is ranked in the hand-made group, and the 8 groups of one name are told apart
 * and refused by that name alone, by every command and route that takes a group. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../support/pagecheck.h"
#include "../support/pgfixture.h"
#include "../support/server.h"
#include "../support/sets.h"
#include "../support/testutil.h"
#include "../support/webdriver.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One data set's database, server and browser, for the cases of one group. */
static struct {
    struct pgfixture db;
    struct server srv;
    char conf[700];
    struct webdriver web;
} fx;

/* ---- the page's check ------------------------------------------------------------ */

/* Runs script (a function body) with args and returns its value (json_decref). */
static json_t *page_run(const char *script, json_t *args)
{
    json_t *v = webdriver_run(&fx.web, script, args, 0);
    json_decref(args);
    return v;
}

/* The number of elements the page has that match a CSS selector. */
static long page_count(const char *selector)
{
    json_t *n = page_run("return document.querySelectorAll(arguments[0]).length;",
                         json_pack("[s]", selector));
    long out = (long)json_integer_value(n);
    json_decref(n);
    return out;
}

/* The page on port, opened at width px with no console error and photographed whole
 * as $BUILD/screenshots/SET-W.png. */
static void photograph(int port, const char *set, int width)
{
    const char *build = getenv("BUILD");
    char dir[512], path[700], url[128];
    size_t errors = 0;

    snprintf(dir, sizeof dir, "%s/screenshots",
             build != NULL && build[0] != '\0' ? build : "build");
    mkdir(dir, 0755);
    snprintf(url, sizeof url, "http://" SERVER_HOST ":%d/", port);
    webdriver_resize(&fx.web, width, 1000);
    assert_int_equal(pagecheck_open(&fx.web, url, &errors), 0);
    assert_int_equal(errors, 0);
    json_t *height = page_run("return document.documentElement.scrollHeight;", NULL);
    assert_true(json_integer_value(height) > 0);
    webdriver_resize(&fx.web, width, (int)json_integer_value(height) + 120);
    json_decref(height);
    snprintf(path, sizeof path, "%s/%s-%d.png", dir, set, width);
    webdriver_screenshot(&fx.web, path);
    print_message("screenshot: %s\n", path);
}

/* The page on the server at port shows data set set whole (pagecheck_page: every
 * chart the API's answers call for drawn, no error shown, no console error, every
 * number the API's), one section per group, photographed at 800 and 1,400 px. */
static void check_page(int port, const char *set)
{
    struct pagecheck_counts c = {0};

    photograph(port, set, 800);
    photograph(port, set, 1400);
    assert_int_equal(pagecheck_page(&fx.web, port, "/", NULL, &c), 0);
    print_message("%s: %zu groups, %zu charts, %zu tables, %zu numbers (%zu points, %zu "
                  "buckets, %zu sweep pairs) equal to the API\n",
                  set, c.groups, c.charts, c.tables, c.numbers, c.points, c.buckets,
                  c.sweeps);
    assert_int_equal(c.errors_shown + c.console_errors + c.mismatches + c.missing, 0);
    assert_true(c.groups > 0);
    assert_int_equal(page_count("section.detail[data-group]"), (long)c.groups);
    assert_true(c.sweeps > 0);
    assert_true(c.points > 0);
    assert_true(c.buckets > 0);
}

/* ---- the data sets ------------------------------------------------------------- */

static int serve_and_browse(void)
{
    if (server_start(&fx.srv, &fx.db, fx.conf) != 0)
        return -1;
    return webdriver_start(&fx.web, fx.db.state_dir, 1400, 1000);
}

static int lab_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    if (pgfixture_start(&fx.db) != 0 || sets_lab(&fx.db, fx.conf, sizeof fx.conf) != 0)
        return -1; /* cmocka runs the group teardown even then: it cleans up */
    return serve_and_browse();
}

/* The 45 days are made once, here, and shared by the group's cases. */
static int days45_setup(void **state)
{
    char dir[600];

    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(dir, sizeof dir, "%s/days45", fx.db.state_dir);
    if (sets_days45(&fx.db, dir, fx.conf, sizeof fx.conf) != 0)
        return -1;
    return serve_and_browse();
}

static int set_teardown(void **state)
{
    (void)state;
    webdriver_stop(&fx.web);
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- tests --------------------------------------------------------------------- */

static void the_lab_run_has_its_hand_made_group_of_all_30_jobs(void **state)
{
    const json_t *g;
    size_t i, hand = 0;

    (void)state;
    json_t *groups = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "key")),
                   "hand:" SETS_LAB_GROUP) != 0)
            continue;
        hand++;
        assert_int_equal(json_integer_value(json_object_get(g, "jobs")), 30);
    }
    assert_int_equal(hand, 1);
    json_decref(groups);
}

/* ---- who got hurt and the groups' names on the lab (issue 30) -------------------- */

/* The id of the hand-made group into out, and the ids of the default groups whose name
 * is shared (as /groups lists them) into shared (at most max); their count. */
static size_t lab_groups(char lab[17], char (*shared)[17], size_t max)
{
    const json_t *g;
    size_t i, n = 0;
    json_t *groups = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);

    lab[0] = '\0';
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        const char *name = json_string_value(json_object_get(g, "name"));
        const json_t *h;
        size_t k, same = 0;
        if (strcmp(json_string_value(json_object_get(g, "key")),
                   "hand:" SETS_LAB_GROUP) == 0)
            snprintf(lab, 17, "%s", id);
        json_array_foreach(json_object_get(groups, "groups"), k, h)
        {
            /* every name /groups shows is one group's */
            if (k != i) {
                assert_string_not_equal(json_string_value(json_object_get(h, "name")),
                                        name);
            }
            same += strncmp(json_string_value(json_object_get(h, "name")),
                            "labjob (uid 0, 1 procs) #", 25) == 0;
        }
        if (strncmp(name, "labjob (uid 0, 1 procs) #", 25) == 0 && n < max) {
            char want[64];
            snprintf(want, sizeof want, "labjob (uid 0, 1 procs) #%.8s", id);
            assert_string_equal(name, want);
            assert_true(same > 1);
            snprintf(shared[n++], 17, "%s", id);
        }
    }
    json_decref(groups);
    assert_int_not_equal(lab[0], '\0');
    return n;
}

/* Every one of the 30 jobs is ranked, in the hand-made group (d = 30, its band stored)
 * rather than apart in the 8 default groups below d_min. */
static void assert_ranked_in(const json_t *sl, const char *lab)
{
    const json_t *j;
    size_t i;

    assert_int_equal(json_integer_value(json_object_get(sl, "jobs")), 30);
    assert_int_equal(json_integer_value(json_object_get(sl, "ranked_total")), 30);
    assert_int_equal(json_integer_value(json_object_get(sl, "apart_total")), 0);
    assert_int_equal(json_array_size(json_object_get(sl, "slowdowns")), 30);
    json_array_foreach(json_object_get(sl, "slowdowns"), i, j)
    {
        assert_string_equal(json_string_value(json_object_get(j, "group")), lab);
        assert_true(json_real_value(json_object_get(j, "ratio")) > 0);
    }
}

/* The same jobs in the same order, each in the same group with the same ratio (the
 * server's and the command's x differ in the last digits: a sum's order). */
static void same_ranking(const json_t *a, const json_t *b)
{
    const json_t *ja, *list = json_object_get(b, "slowdowns");
    size_t i;

    assert_int_equal(json_array_size(json_object_get(a, "slowdowns")),
                     json_array_size(list));
    json_array_foreach(json_object_get(a, "slowdowns"), i, ja)
    {
        const json_t *jb = json_array_get(list, i);
        assert_string_equal(json_string_value(json_object_get(ja, "id")),
                            json_string_value(json_object_get(jb, "id")));
        assert_string_equal(json_string_value(json_object_get(ja, "group")),
                            json_string_value(json_object_get(jb, "group")));
        const double ra = json_real_value(json_object_get(ja, "ratio"));
        assert_true(fabs(ra - json_real_value(json_object_get(jb, "ratio"))) <=
                    1e-9 * ra);
    }
}

static void who_got_hurt_is_ranked_in_the_hand_made_group(void **state)
{
    char lab[17], shared[16][17], args[1200];
    int rc = -1;

    const double t0 = testutil_now_s();

    (void)state;
    lab_groups(lab, shared, 16);
    snprintf(args, sizeof args, "--config '%s' slowdowns --limit 100 --json", fx.conf);
    char *out = pgfixture_run(&fx.db, args, &rc);
    json_t *cli = json_loads(out, 0, NULL);
    free(out);
    assert_int_equal(rc, 0);
    assert_non_null(cli);
    assert_ranked_in(cli, lab);
    assert_null(json_object_get(cli, "group"));

    /* the API, every group and the one group by name: the same ranking */
    json_t *all = server_get_json(&fx.srv, "/api/v1/slowdowns?limit=100", NULL, 200);
    json_t *one = server_get_json(
        &fx.srv, "/api/v1/slowdowns?limit=100&group=" SETS_LAB_GROUP, NULL, 200);
    assert_ranked_in(all, lab);
    assert_ranked_in(one, lab);
    assert_string_equal(json_string_value(json_object_get(one, "group")), lab);
    same_ranking(all, cli);
    same_ranking(one, cli);

    /* the night report of the lab's day ranks them the same */
    char night[300];
    snprintf(night, sizeof night, "%s/night.json", fx.db.state_dir);
    rc = pgfixture_cmd(&fx.db,
                       "--quiet --config '%s' report night --from 2026-11-22T00:00:00Z "
                       "--to 2026-11-23T00:00:00Z --format json --out '%s'",
                       fx.conf, night);
    assert_true(rc == 0 || rc == 1); /* 1: the period's runs or files said something */
    json_t *report = json_load_file(night, 0, NULL);
    assert_non_null(report);
    assert_ranked_in(json_object_get(report, "slowdowns"), lab);
    same_ranking(json_object_get(report, "slowdowns"), cli);
    json_decref(report);
    json_decref(cli);
    json_decref(all);
    json_decref(one);

    /* one default group asked for: its jobs only, in it (below d_min: apart) */
    char url[128];
    snprintf(url, sizeof url, "/api/v1/slowdowns?group=%s", shared[0]);
    json_t *def = server_get_json(&fx.srv, url, NULL, 200);
    const json_t *j;
    size_t i;
    assert_int_equal(json_integer_value(json_object_get(def, "ranked_total")), 0);
    assert_true(json_integer_value(json_object_get(def, "apart_total")) > 0);
    json_array_foreach(json_object_get(def, "apart"), i, j)
    {
        assert_string_equal(json_string_value(json_object_get(j, "group")), shared[0]);
        assert_string_equal(json_string_value(json_object_get(j, "reason")),
                            "d_below_min");
    }
    json_decref(def);
    print_message("%s: %.1f s\n", __func__, testutil_now_s() - t0);
}

static void a_shared_name_is_refused_with_its_groups(void **state)
{
    char lab[17], shared[16][17], args[1200], url[300];
    int rc = -1;

    const double t0 = testutil_now_s();

    (void)state;
    const size_t n = lab_groups(lab, shared, 16);
    print_message("%zu default groups named labjob (uid 0, 1 procs)\n", n);
    assert_true(n > 1);

    /* the bare name: 64, every group of that name listed (its id and shown name) */
    snprintf(
        args, sizeof args,
        "--config '%s' report sweep --group 'labjob (uid 0, 1 procs)' --out '%s/r.csv' "
        "--format csv 2>&1",
        fx.conf, fx.db.state_dir);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_int_equal(rc, 64);
    for (size_t i = 0; i < n; i++) {
        char line[128];
        snprintf(line, sizeof line, "%.16s  labjob (uid 0, 1 procs) #%.8s", shared[i],
                 shared[i]);
        assert_non_null(strstr(out, line));
    }
    free(out);
    snprintf(url, sizeof url, "%s/r.csv", fx.db.state_dir);
    struct stat st;
    assert_int_not_equal(stat(url, &st), 0);
    snprintf(args, sizeof args,
             "--config '%s' slowdowns --group 'labjob (uid 0, 1 procs)'", fx.conf);
    free(pgfixture_run(&fx.db, args, &rc));
    assert_int_equal(rc, 64);
    snprintf(args, sizeof args,
             "--config '%s' export jobs --group 'labjob (uid 0, 1 procs)'", fx.conf);
    free(pgfixture_run(&fx.db, args, &rc));
    assert_int_equal(rc, 64);
    snprintf(args, sizeof args,
             "--config '%s' analyze --group 'labjob (uid 0, 1 procs)' --permutations 0",
             fx.conf);
    free(pgfixture_run(&fx.db, args, &rc));
    assert_int_equal(rc, 64);
    json_t *e = server_get_json(
        &fx.srv, "/api/v1/slowdowns?group=labjob%20(uid%200%2C%201%20procs)", NULL, 400);
    const json_t *err = json_object_get(e, "error");
    assert_string_equal(json_string_value(json_object_get(err, "parameter")), "group");
    assert_int_equal(json_array_size(json_object_get(err, "candidates")), n);
    json_decref(e);
    e = server_get_json(&fx.srv, "/api/v1/jobs?group=labjob%20(uid%200%2C%201%20procs)",
                        NULL, 400);
    err = json_object_get(e, "error");
    assert_string_equal(json_string_value(json_object_get(err, "parameter")), "group");
    assert_int_equal(json_array_size(json_object_get(err, "candidates")), n);
    json_decref(e);
    e = server_get_json(&fx.srv, "/api/v1/jobs?group=" SETS_LAB_GROUP, NULL, 200);
    assert_int_equal(json_array_size(json_object_get(e, "jobs")), 30);
    json_decref(e);

    /* the shown name: exactly that group */
    snprintf(args, sizeof args,
             "--config '%s' report sweep --group 'labjob (uid 0, 1 procs) #%.8s' --out "
             "'%s/r.json' --format json",
             fx.conf, shared[1], fx.db.state_dir);
    assert_int_equal(pgfixture_cmd(&fx.db, "%s", args), 0);
    snprintf(url, sizeof url, "%s/r.json", fx.db.state_dir);
    json_t *report = json_load_file(url, 0, NULL);
    assert_non_null(report);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(report, "group"), "id")),
        shared[1]);
    json_decref(report);

    /* a name of no group: refused, not an empty export */
    snprintf(args, sizeof args, "--config '%s' export jobs --group nosuch", fx.conf);
    out = pgfixture_run(&fx.db, args, &rc);
    assert_int_equal(rc, 66);
    assert_string_equal(out, "");
    free(out);
    snprintf(args, sizeof args, "--config '%s' slowdowns --group nosuch", fx.conf);
    free(pgfixture_run(&fx.db, args, &rc));
    assert_int_equal(rc, 66);
    json_decref(server_get_json(&fx.srv, "/api/v1/slowdowns?group=nosuch", NULL, 400));
    print_message("%s: %.1f s\n", __func__, testutil_now_s() - t0);
}

static void the_page_shows_the_lab_run_as_the_api_serves_it(void **state)
{
    (void)state;
    check_page(fx.srv.port, "lab");
}

/* 45 days of 60 s from 2026-11-20 (data/internal.h's DATA_EPOCH_START): the jobs'
 * log spans more intervals than /coverage once answered at all, and the servers'
 * samples of the last day are all there, none set aside as stamped after their file
 * was written (which the generator's mtime now says). */
static void the_45_days_hold_every_interval_of_both_file_systems(void **state)
{
    (void)state;
    for (int fs = 1; fs <= 2; fs++) {
        char url[256];
        const json_t *v;
        size_t i, samples = 0;
        snprintf(url, sizeof url,
                 "/api/v1/coverage?fs=scratch%d&from=2027-01-03T00:00:00Z"
                 "&to=2027-01-04T00:00:00Z",
                 fs);
        json_t *c = server_get_json(&fx.srv, url, NULL, 200);
        const json_t *f = json_array_get(json_object_get(c, "filesystems"), 0);
        print_message("scratch%d: %lld intervals from %s to %s\n", fs,
                      (long long)json_integer_value(json_object_get(f, "intervals")),
                      json_string_value(json_object_get(f, "log_start")),
                      json_string_value(json_object_get(f, "log_end")));
        assert_true(json_integer_value(json_object_get(f, "intervals")) > 60480);
        json_array_foreach(json_object_get(f, "s"), i, v) samples += json_is_number(v);
        assert_int_equal(samples, 1440);
        json_decref(c);
    }
}

static void the_page_shows_45_days_as_the_api_serves_them(void **state)
{
    (void)state;
    check_page(fx.srv.port, "days45");
}

int main(void)
{
    const struct CMUnitTest lab[] = {
        cmocka_unit_test(the_lab_run_has_its_hand_made_group_of_all_30_jobs),
        cmocka_unit_test(who_got_hurt_is_ranked_in_the_hand_made_group),
        cmocka_unit_test(a_shared_name_is_refused_with_its_groups),
        cmocka_unit_test(the_page_shows_the_lab_run_as_the_api_serves_it),
    };
    const struct CMUnitTest days45[] = {
        cmocka_unit_test(the_45_days_hold_every_interval_of_both_file_systems),
        cmocka_unit_test(the_page_shows_45_days_as_the_api_serves_them),
    };
    int failed = cmocka_run_group_tests_name("lab run", lab, lab_setup, set_teardown);
    failed += cmocka_run_group_tests_name("45 days", days45, days45_setup, set_teardown);
    return failed;
}
