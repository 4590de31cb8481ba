/* test_page_sets.c: the dashboard page in a real headless browser on the data sets
 * beside the demo (issue 21): the lab run with one hand-made group, and 45
 * generated days. On each the page draws every group with no console error, and
 * what its Vega views hold is what the API serves. */
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
