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

/* ---- the page's check (tests/support/pagecheck.c takes its place at the merge) -- */

/* GET path of the server on port as JSON (the caller json_decref's), NULL when it
 * answers another status than 200. */
static json_t *api_json(int port, const char *path)
{
    int status = 0;
    char *body = NULL;

    assert_int_equal(http_get(SERVER_HOST, port, path, NULL, &status, &body), 0);
    json_t *j = status == 200 ? json_loads(body, 0, NULL) : NULL;
    if (status == 200 && j == NULL)
        print_error("GET %s: 200 but not JSON: %.200s\n", path, body);
    free(body);
    assert_true(status != 200 || j != NULL);
    return j;
}

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

/* The data set name of the Vega view key (json_decref); fails when there is none. */
static json_t *page_view_data(const char *key, const char *name)
{
    json_t *rows = page_run("const v = (window.iocontendViews || {})[arguments[0]];"
                            "try { return v ? v.data(arguments[1]) : null; }"
                            " catch (e) { return null; }",
                            json_pack("[s,s]", key, name));
    if (!json_is_array(rows)) {
        json_decref(rows);
        fail_msg("no Vega view %s with a data set %s", key, name);
    }
    return rows;
}

/* Opens the page at port, waits for window.iocontendDone and fails on any console
 * error since, each printed, or a failed promise. */
static void page_open(int port, const char *set)
{
    char url[128];

    snprintf(url, sizeof url, "http://" SERVER_HOST ":%d/", port);
    json_decref(webdriver_console(&fx.web));
    webdriver_open(&fx.web, url);
    json_t *done =
        webdriver_run(&fx.web,
                      "const done = arguments[arguments.length - 1];"
                      "Promise.resolve(window.iocontendDone).then(() => done(1),"
                      " e => done(String(e && e.stack || e)));",
                      NULL, 1);
    if (!json_is_integer(done))
        print_error("%s: the page's scripts failed: %s\n", set, json_string_value(done));
    assert_true(json_is_integer(done));
    json_decref(done);
    /* what the page says it did: a script error it caught shows only there */
    json_t *status = page_run("const s = document.getElementById('status');"
                              "return s ? s.textContent : '';",
                              NULL);
    print_message("%s: the page says: %s\n", set, json_string_value(status));
    json_decref(status);
    json_t *console = webdriver_console(&fx.web);
    size_t errors = webdriver_errors(console);
    json_decref(console);
    if (errors > 0)
        print_error("%s: %zu console errors\n", set, errors);
    assert_int_equal(errors, 0);
}

/* The pairs whose sweep the API stored for group g, as [{y, x}]: the list's
 * "stored" when it has it, else each pair analysis/sweep.c may store that
 * /sweep answers. */
static json_t *stored_sweeps(int port, const json_t *g)
{
    static const char *const pairs[][2] = {
        {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
        {"t_um", "psi_o_write"}, {"t_i", "psi_i_read"},  {"t_i", "psi_i_write"},
        {"tau", "b_d"},          {"t_d", "q_d"},         {"tau", "q_d"}};
    const json_t *listed = json_object_get(json_object_get(g, "stored"), "sweeps");
    const char *id = json_string_value(json_object_get(g, "id"));
    char url[256];

    if (json_is_array(listed))
        return json_deep_copy(listed);
    json_t *out = json_array();
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        snprintf(url, sizeof url, "/api/v1/groups/%s/sweep?y=%s&x=%s", id, pairs[p][0],
                 pairs[p][1]);
        json_t *s = api_json(port, url);
        if (s != NULL)
            json_array_append_new(
                out, json_pack("{s:s,s:s}", "y", pairs[p][0], "x", pairs[p][1]));
        json_decref(s);
    }
    return out;
}

/* Group id's histogram view holds /table's T^D histogram bin for bin, and its band
 * the mean ± 1.645 sd. */
static void histogram_is_the_api(int port, const char *id)
{
    char url[256], key[96];

    snprintf(url, sizeof url, "/api/v1/groups/%s/table", id);
    json_t *table = api_json(port, url);
    assert_non_null(table);
    const json_t *h = json_object_get(table, "td_histogram");
    const json_t *counts = json_object_get(h, "counts");
    const double first = json_number_value(json_object_get(h, "first_edge_s"));
    const double width = json_number_value(json_object_get(h, "bin_width_s"));
    snprintf(key, sizeof key, "%s/histogram", id);
    json_t *bins = page_view_data(key, "bins");
    assert_true(json_array_size(counts) > 0);
    assert_int_equal(json_array_size(bins), json_array_size(counts));
    for (size_t b = 0; b < json_array_size(counts); b++) {
        const json_t *row = json_array_get(bins, b);
        assert_rel(json_number_value(json_object_get(row, "count")),
                   (double)json_integer_value(json_array_get(counts, b)), 0);
        assert_rel(json_number_value(json_object_get(row, "x0")),
                   first + (double)b * width, 1e-9 * (1 + width));
        assert_rel(json_number_value(json_object_get(row, "x1")),
                   first + (double)(b + 1) * width, 1e-9 * (1 + width));
    }
    json_decref(bins);
    json_t *band = page_view_data(key, "band");
    size_t want = json_is_number(json_object_get(h, "band_low")) +
                  json_is_number(json_object_get(h, "band_high"));
    assert_int_equal(json_array_size(band), want);
    json_decref(band);
    json_decref(table);
}

/* The rows of a sweep view's steps for pair at coefficient coef, in order. */
static size_t steps_of(const json_t *rows, const char *pair, const char *coef,
                       const json_t **out, size_t max)
{
    const json_t *r;
    size_t i, n = 0;

    json_array_foreach(rows, i, r)
    {
        if (strcmp(json_string_value(json_object_get(r, "pair")), pair) == 0 &&
            strcmp(json_string_value(json_object_get(r, "coef")), coef) == 0 && n < max)
            out[n++] = r;
    }
    return n;
}

/* Group id's sweep view holds every stored pair's curves point for point (k,
 * granularity, each watched coefficient) and each recommended interval. Returns the
 * number of coefficients compared (none in a group below d_min: all null). */
static size_t sweep_is_the_api(int port, const char *id, const json_t *pairs)
{
    static const char *const coefs[] = {"pearson", "spearman", "dcor_v", "mi_linfoot"};
    char key[96], url[256], pair[64];
    const json_t *p;
    size_t i, checked = 0;

    snprintf(key, sizeof key, "%s/sweep", id);
    json_t *steps = page_view_data(key, "steps");
    json_t *recommended = page_view_data(key, "recommended");
    json_array_foreach(pairs, i, p)
    {
        const char *y = json_string_value(json_object_get(p, "y"));
        const char *x = json_string_value(json_object_get(p, "x"));
        snprintf(url, sizeof url, "/api/v1/groups/%s/sweep?y=%s&x=%s", id, y, x);
        json_t *sweep = api_json(port, url);
        assert_non_null(sweep);
        const json_t *want = json_object_get(sweep, "steps");
        snprintf(pair, sizeof pair, "%s ~ %s", y, x);
        for (size_t c = 0; c < sizeof coefs / sizeof coefs[0]; c++) {
            const json_t *got[1024];
            size_t n = steps_of(steps, pair, coefs[c], got, 1024);
            assert_int_equal(n, json_array_size(want));
            for (size_t k = 0; k < n; k++) {
                const json_t *w = json_array_get(want, k);
                const json_t *v = json_object_get(w, coefs[c]);
                const json_t *have = json_object_get(got[k], "value");
                assert_int_equal(json_integer_value(json_object_get(got[k], "k")),
                                 json_integer_value(json_object_get(w, "k")));
                assert_rel(json_number_value(json_object_get(got[k], "granularity_s")),
                           json_number_value(json_object_get(w, "granularity_s")), 0);
                if (json_is_number(v)) {
                    assert_true(json_is_number(have));
                    assert_rel(json_number_value(have), json_number_value(v), 0);
                    checked++;
                } else {
                    assert_true(json_is_null(have));
                }
            }
        }
        const json_t *rec =
            json_object_get(json_object_get(sweep, "verdicts"), "recommended_interval_s");
        const json_t *r;
        size_t j, found = 0;
        json_array_foreach(recommended, j, r)
        {
            if (strcmp(json_string_value(json_object_get(r, "pair")), pair) != 0)
                continue;
            found++;
            assert_rel(json_number_value(json_object_get(r, "interval_s")),
                       json_number_value(rec), 0);
        }
        assert_int_equal(found, json_is_number(rec) ? 1 : 0);
        json_decref(sweep);
    }
    json_decref(recommended);
    json_decref(steps);
    return checked;
}

/* The page on port, photographed at width px whole as $BUILD/screenshots/SET-W.png. */
static void photograph(int port, const char *set, int width)
{
    const char *build = getenv("BUILD");
    char dir[512], path[700];

    snprintf(dir, sizeof dir, "%s/screenshots",
             build != NULL && build[0] != '\0' ? build : "build");
    mkdir(dir, 0755);
    webdriver_resize(&fx.web, width, 1000);
    page_open(port, set);
    json_t *height = page_run("return document.documentElement.scrollHeight;", NULL);
    assert_true(json_integer_value(height) > 0);
    webdriver_resize(&fx.web, width, (int)json_integer_value(height) + 120);
    json_decref(height);
    snprintf(path, sizeof path, "%s/%s-%d.png", dir, set, width);
    webdriver_screenshot(&fx.web, path);
    print_message("screenshot: %s\n", path);
}

/* The page on the server at port shows data set set whole: no console error, no
 * chart replaced by an error, each group its section with its histogram and sweep
 * (and its scatter where the API has points) holding what the API serves, the
 * coverage drawn; photographed at 800 and 1,400 px. */
static void check_page(int port, const char *set)
{
    char selector[160];
    const json_t *g;
    size_t i, compared = 0;

    photograph(port, set, 800);
    photograph(port, set, 1400); /* the page as it stays for the checks below */
    assert_int_equal(page_count("p.error"), 0);
    json_t *groups = api_json(port, "/api/v1/groups");
    assert_non_null(groups);
    const json_t *list = json_object_get(groups, "groups");
    assert_true(json_array_size(list) > 0);
    assert_int_equal(page_count("section.detail[data-group]"), json_array_size(list));
    json_array_foreach(list, i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        char url[256];

        snprintf(selector, sizeof selector, "section.detail[data-group=\"%s\"]", id);
        assert_int_equal(page_count(selector), 1);
        snprintf(selector, sizeof selector, "figure[data-chart=\"%s/histogram\"]", id);
        assert_int_equal(page_count(selector), 1);
        histogram_is_the_api(port, id);
        json_t *pairs = stored_sweeps(port, g);
        snprintf(selector, sizeof selector, "figure[data-chart=\"%s/sweep\"]", id);
        assert_int_equal(page_count(selector), json_array_size(pairs) > 0 ? 1 : 0);
        if (json_array_size(pairs) > 0)
            compared += sweep_is_the_api(port, id, pairs);
        print_message("%s: group %s: %zu sweep pairs drawn as stored\n", set, id,
                      json_array_size(pairs));
        json_decref(pairs);
        snprintf(url, sizeof url, "/api/v1/groups/%s/points", id);
        json_t *points = api_json(port, url); /* the scatter, where the API has it */
        snprintf(selector, sizeof selector, "figure[data-chart=\"%s/scatter\"]", id);
        if (points != NULL && json_integer_value(json_object_get(points, "d")) > 0)
            assert_int_equal(page_count(selector), 1);
        json_decref(points);
    }
    json_decref(groups);
    assert_true(compared > 0);
    json_t *coverage = api_json(port, "/api/v1/coverage?points=100");
    assert_int_equal(page_count("figure[data-chart=\"coverage\"]"), coverage != NULL);
    json_decref(coverage);
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
