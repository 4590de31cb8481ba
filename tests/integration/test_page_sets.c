/* test_page_sets.c: the dashboard page in a real headless browser on the data sets
 * beside the demo (issue 21): the lab run with one hand-made group, and 45
 * generated days. On each the page draws every group with no console error, and
 * what its Vega views hold is what the API serves. On the lab, a center's shape
 * (issue 30: one group of 30 jobs, 8 below d_min): who got hurt is ranked in the
 * hand-made group, and the 8 groups of one name are told apart and refused by that
 * name alone, by every command and route that takes a group; the first screen shows
 * the lab group's charts and none of a group below d_min until its button is clicked,
 * the coverage is a connected line, no two stored pairs share a colour, axes tick at
 * round counts, 1-2-5 units and 24-hour UTC, the forest is drawn only above an OOB R²
 * of 0, and the slowdown table says what its percentile is. */
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

/* The lab group's id (SETS_LAB_GROUP's) into id. */
static void lab_group_id(char *id, size_t size)
{
    const json_t *g;
    size_t i;

    id[0] = '\0';
    json_t *groups = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "key")),
                   "hand:" SETS_LAB_GROUP) == 0)
            snprintf(id, size, "%s", json_string_value(json_object_get(g, "id")));
    }
    json_decref(groups);
    assert_true(id[0] != '\0');
}

/* The page's value of script with id as its argument (async: script calls back). */
static json_t *id_run(const char *script, const char *id, int async)
{
    json_t *args = json_pack("[s]", id);
    json_t *v = webdriver_run(&fx.web, script, args, async);
    json_decref(args);
    return v;
}

/* Issue 30: a center's 41 groups, 32 of them of 1-5 jobs, gave 124 charts and a
 * page 29,000 px tall. On the lab (1 group of 30 jobs, 8 below d_min) at 1,400 ×
 * 1,000 px, with nothing clicked: the lab group's four figures start on the first
 * screen, and no group below d_min has a chart; a click on one's button draws its
 * three. The button stays on one line at 800 px. */
static void
the_first_screen_shows_the_lab_group_and_the_rest_only_when_asked(void **state)
{
    char id[64], url[128];
    size_t errors = 0, below = 0;
    const json_t *g;
    size_t i;

    (void)state;
    lab_group_id(id, sizeof id);
    webdriver_resize(&fx.web, 1400, 1000);
    snprintf(url, sizeof url, "http://" SERVER_HOST ":%d/", fx.srv.port);
    assert_int_equal(pagecheck_open(&fx.web, url, &errors), 0);
    assert_int_equal(errors, 0);
    json_t *tops = id_run(
        "const id = arguments[0];"
        "return ['coefficients', 'histogram', 'scatter', 'sweep'].map(k => {"
        " const f = document.querySelector('figure[data-table=\"' + id + '/' + k + '\"],"
        " figure[data-chart=\"' + id + '/' + k + '\"]');"
        " return f ? Math.round(f.getBoundingClientRect().top) : -1; })"
        ".concat([window.innerHeight]);",
        id, 0);
    const json_int_t screen = json_integer_value(json_array_get(tops, 4));
    for (size_t k = 0; k < 4; k++) {
        const json_int_t top = json_integer_value(json_array_get(tops, k));
        print_message("lab figure %zu at %lld px of %lld\n", k, (long long)top,
                      (long long)screen);
        assert_true(top >= 0 && top < screen);
    }
    json_decref(tops);

    json_t *groups = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    const char *first_below = NULL;
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        char path[256];
        const char *gid = json_string_value(json_object_get(g, "id"));
        snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read",
                 gid);
        json_t *a = server_get_json(&fx.srv, path, NULL, 200);
        const char *reason = json_string_value(json_object_get(a, "reason"));
        if (reason != NULL && strcmp(reason, "d_below_min") == 0) {
            below++;
            if (first_below == NULL)
                first_below = gid;
            json_t *drawn =
                id_run("const id = arguments[0];"
                       "return Object.keys(window.iocontendViews || {}).filter(k =>"
                       " k.startsWith(id + '/')).length + document.querySelectorAll("
                       "'section.detail[data-group=\"' + id + '\"]').length;",
                       gid, 0);
            assert_int_equal(json_integer_value(drawn), 0);
            json_decref(drawn);
        }
        json_decref(a);
    }
    print_message("%zu groups below d_min, none drawn\n", below);
    assert_int_equal(below, 8);
    assert_int_equal(page_count("#groups-small tbody tr[data-group]"), (long)below);

    /* asking draws it: a click on its button, its histogram, scatter and sweep */
    char css[128], gid[64];
    snprintf(gid, sizeof gid, "%s", first_below);
    json_decref(groups);
    snprintf(css, sizeof css, "button[data-expand=\"%s\"]", gid);
    webdriver_click(&fx.web, css);
    json_t *drawn =
        id_run("const done = arguments[arguments.length - 1], id = arguments[0];"
               "window.iocontendDone.then(() => done(['histogram', 'scatter',"
               " 'sweep'].filter(k => window.iocontendViews[id + '/' + k] &&"
               " document.querySelector('figure[data-chart=\"' + id + '/' + k"
               " + '\"]')).length), e => done(String(e)));",
               gid, 1);
    assert_true(json_is_integer(drawn));
    assert_int_equal(json_integer_value(drawn), 3);
    json_decref(drawn);

    /* at an 800 px window its button stays on one line (it wrapped onto two) */
    webdriver_resize(&fx.web, 800, 1000);
    json_t *size = id_run("const b = document.querySelector('button[data-expand=\"'"
                          " + arguments[0] + '\"]');"
                          "return [b.getBoundingClientRect().height,"
                          " parseFloat(getComputedStyle(b).lineHeight) ||"
                          " 1.2 * parseFloat(getComputedStyle(b).fontSize)];",
                          gid, 0);
    const double height = json_number_value(json_array_get(size, 0));
    const double line = json_number_value(json_array_get(size, 1));
    print_message("button at 800 px: %.1f px high, a line %.1f px\n", height, line);
    assert_true(line > 0 && height < 1.6 * line);
    json_decref(size);
    webdriver_resize(&fx.web, 1400, 1000);

    json_t *console = webdriver_console(&fx.web);
    assert_int_equal(webdriver_errors(console), 0);
    json_decref(console);
}

/* The lab's coverage: 177 s of 1 s samples. /coverage?points= cuts no bucket shorter
 * than the samples' 1 s (it cut 1,100 of 0.16 s, no two filled ones touching, and the
 * chart was blank), and the page's areas of the servers' and the jobs' bytes are each
 * one connected path over at least as many vertices as the buckets holding a value. */
static void the_lab_coverage_is_drawn_as_connected_areas(void **state)
{
    (void)state;
    json_t *asked = page_run("return document.querySelector("
                             "'figure[data-chart=\"coverage\"]').dataset.points;",
                             NULL);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/coverage?fs=all&points=%s",
             json_string_value(asked));
    json_decref(asked);
    json_t *cov = server_get_json(&fx.srv, path, NULL, 200);
    const json_t *f = json_array_get(json_object_get(cov, "filesystems"), 0);
    const json_t *b = json_object_get(f, "buckets");
    const double delta_ms = 1000 * json_number_value(json_object_get(f, "granularity_s"));
    size_t filled[2] = {0, 0};
    for (size_t k = 0; k < json_array_size(json_object_get(b, "s_max")); k++) {
        filled[0] += json_is_number(json_array_get(json_object_get(b, "s_max"), k));
        filled[1] += json_is_number(json_array_get(json_object_get(b, "d_max"), k));
    }
    print_message("coverage: %lld buckets of %.0f ms (samples of %.0f ms); %zu and %zu "
                  "with a value\n",
                  (long long)json_integer_value(json_object_get(b, "n")),
                  json_number_value(json_object_get(b, "width_ms")), delta_ms, filled[0],
                  filled[1]);

    /* each area's path: its pieces (one per M) and the vertices of the longest */
    json_t *pieces =
        page_run("return [...document.querySelectorAll('figure[data-chart=\"coverage\"]"
                 " g.detailView .mark-area path')].map(p => {"
                 " const parts = (p.getAttribute('d') || '').split('M').filter(x => x);"
                 " return [parts.length, Math.max(0, ...parts.map(x => x.split(/[LZ]/)"
                 ".filter(v => v.trim()).length))]; });",
                 NULL);
    assert_int_equal(json_array_size(pieces), 2); /* servers, jobs */
    for (size_t k = 0; k < 2; k++) {
        const json_t *one = json_array_get(pieces, k);
        print_message("area %zu: %lld pieces, the longest of %lld vertices\n", k,
                      (long long)json_integer_value(json_array_get(one, 0)),
                      (long long)json_integer_value(json_array_get(one, 1)));
        assert_int_equal(json_integer_value(json_array_get(one, 0)), 1);
        assert_true((size_t)json_integer_value(json_array_get(one, 1)) >= filled[k]);
    }
    json_decref(pieces);
    /* and the buckets under them: none shorter than the samples */
    assert_true(json_number_value(json_object_get(b, "width_ms")) >= delta_ms);
    assert_true(filled[0] > 100 && filled[1] > 100);
    json_decref(cov);
}

/* The lab group's 11 stored pairs (Vega's palette has 10: tau ~ q_d took t_d ~
 * psi_d_read's blue): its sweep's legend lists each once, each in a colour of its
 * own, and the curves drawn use as many colours. */
static void no_two_stored_pairs_share_a_colour(void **state)
{
    char id[64];
    const json_t *g;
    size_t i, stored = 0;

    (void)state;
    lab_group_id(id, sizeof id);
    json_t *groups = server_get_json(&fx.srv, "/api/v1/groups", NULL, 200);
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "id")), id) == 0)
            stored =
                json_array_size(json_object_get(json_object_get(g, "stored"), "sweeps"));
    }
    json_decref(groups);
    json_t *seen = id_run(
        "const f = document.querySelector('figure[data-chart=\"' + arguments[0] +"
        " '/sweep\"]');"
        "const legend = [...f.querySelectorAll('.role-legend-symbol path')].map(p =>"
        " p.getAttribute('stroke'));"
        "const curves = [...f.querySelectorAll('.role-scope .mark-line path')].map(p =>"
        " p.getAttribute('stroke'));"
        "return [legend.length, new Set(legend).size, curves.length, new "
        "Set(curves).size];",
        id, 0);
    print_message("%zu stored pairs: %lld in the legend in %lld colours, %lld curves in "
                  "%lld\n",
                  stored, (long long)json_integer_value(json_array_get(seen, 0)),
                  (long long)json_integer_value(json_array_get(seen, 1)),
                  (long long)json_integer_value(json_array_get(seen, 2)),
                  (long long)json_integer_value(json_array_get(seen, 3)));
    assert_true(stored > 10);
    for (size_t k = 0; k < 4; k++)
        assert_int_equal(json_integer_value(json_array_get(seen, k)), (json_int_t)stored);
    json_decref(seen);
}

/* The axes of the lab's charts, on the page the tests before drew: whole, distinct
 * counts on the histogram (it read 0, 1, 1, 2, 2, 3, 3), the scatter's log ticks at
 * 1, 2 or 5 times a power of ten of their unit (not 977 KiB, 9.54 MiB), the
 * coverage's UTC times on a 24-hour clock (not "01 PM"); and the functions behind
 * them on ranges of their own. */
static void the_lab_axes_tick_at_round_counts_units_and_24_hour_times(void **state)
{
    char id[64];

    (void)state;
    lab_group_id(id, sizeof id);
    json_t *bad = id_run(
        "const id = arguments[0], bad = [];"
        "const labels = (sel, i) => { const f = document.querySelector(sel);"
        " const g = f ? f.querySelectorAll('.role-axis-label')[i] : null;"
        " return g ? [...g.querySelectorAll('text')].map(t => t.textContent) : null; };"
        "const counts = labels('figure[data-chart=\"' + id + '/histogram\"]', 1);"
        "if (!counts || counts.length < 3) bad.push('histogram: ' + counts);"
        "else if (counts.some(t => !/^[0-9]+$/.test(t)) || new Set(counts).size !=="
        " counts.length) bad.push('histogram counts ' + counts);"
        "for (const i of [0, 1]) {"
        " const t = labels('figure[data-chart=\"' + id + '/scatter\"]', i);"
        " if (!t || t.length < 2) { bad.push('scatter axis ' + i + ': ' + t); continue; }"
        " for (const l of t) if (!/^(1|2|5)(0*) [A-Za-z/]+$/.test(l) &&"
        "  !/^0\\.(0*)(1|2|5) [A-Za-z/]+$/.test(l)) bad.push('scatter ' + i + ': ' + l); "
        "}"
        "for (const i of [0, 2]) {"
        " const t = labels('figure[data-chart=\"coverage\"]', i);"
        " if (!t || t.length < 3) { bad.push('coverage axis ' + i + ': ' + t); continue; "
        "}"
        " for (const l of t) if "
        "(!/^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$/.test(l))"
        "  bad.push('coverage ' + i + ': ' + l); }"
        "const c = window.requirejs('iocontend-charts'), K = 1024, M = K * K;"
        "if (!c.counts || !c.time) return bad.concat(['no counts() or time()']);"
        "const h = v => c.human(v, 'B');"
        "const want = [[String(c.ticks([900 * K, 12 * M], 'B', 6, true).map(h)),"
        " '1 MiB,2 MiB,5 MiB,10 MiB'],"
        " [String(c.ticks([300 * K, 3 * M], 'B', 6, true).map(h)),"
        " '500 KiB,1 MiB,2 MiB'],"
        " [String(c.ticks([2, 300], 's', 6, true).map(v => c.human(v, 's'))),"
        " '2 s,5 s,10 s,20 s,50 s,1 min,2 min,5 min'],"
        " [String(c.counts([0, 3], 5)), '0,1,2,3'], [String(c.counts([0, 40], 5)),"
        " '0,10,20,30,40'],"
        " [c.time(Date.UTC(2026, 10, 22, 13, 0, 30), [Date.UTC(2026, 10, 22, 12, 59),"
        " Date.UTC(2026, 10, 22, 13, 2)], 8), '13:00:30'],"
        " [c.time(new Date(Date.UTC(2026, 10, 22, 21, 40)), [0, 86400e3], 8), '21:40']];"
        "for (const [got, w] of want) if (got !== w) bad.push(got + ', not ' + w);"
        "return bad;",
        id, 0);
    for (size_t i = 0; i < json_array_size(bad); i++)
        print_error("%s\n", json_string_value(json_array_get(bad, i)));
    assert_int_equal(json_array_size(bad), 0);
    json_decref(bad);
}

/* The forest's fit: on the lab's scatter (OOB R² 0.57) drawn and its legend saying
 * so; on the same points with an OOB R² of -0.55 (as two groups of a center had),
 * not drawn and the caption saying why, and "what to expect" showing no forest's
 * number either. And the slowdown table says what its
 * percentile is, beside the plain F(y|x). */
static void the_forest_is_drawn_only_above_0_and_the_percentile_is_explained(void **state)
{
    char id[64];

    (void)state;
    lab_group_id(id, sizeof id);
    json_t *seen = id_run(
        "const done = arguments[arguments.length - 1], id = arguments[0];"
        "(async () => {"
        " const c = window.requirejs('iocontend-charts'), out = {};"
        " const legend = f => [...f.querySelectorAll('.role-legend-label text')]"
        ".map(t => t.textContent);"
        " const lab = document.querySelector('figure[data-chart=\"' + id + "
        "'/scatter\"]');"
        " out.lab_rows = window.iocontendViews[id + '/scatter'].data('forest').length;"
        " out.lab_legend = legend(lab).filter(t => /forest/.test(t));"
        " const get = async u => (await fetch('api/v1/groups/' + id + u)).json();"
        " const p = await get('/points?y=t_d&x=psi_d_read');"
        " const a = await get('/association?y=t_d&x=psi_d_read');"
        " a.rf.oob_r2 = -0.55;"
        " const box = document.createElement('div');"
        " document.body.appendChild(box);"
        " const v = await c.scatter(box, 'test/forest', p, a);"
        " out.bad_rows = v.data('forest').length;"
        " out.bad_legend = legend(box).filter(t => /forest/.test(t));"
        " out.bad_caption = box.querySelector('figcaption').textContent;"
        " v.finalize(); delete window.iocontendViews['test/forest']; box.remove();"
        " const t = document.querySelector('table#slowdowns');"
        " out.heads = [...t.tHead.rows[0].cells].map(th => th.textContent);"
        " out.caption = t.caption.textContent;"
        " const fetch0 = window.fetch;"
        " window.fetch = async (u, o) => { const r = await fetch0(u, o);"
        "  if (!/\\/predict\\?/.test(String(u))) return r;"
        "  const b = await r.json(); b.rf.oob_r2 = -0.55;"
        "  return new Response(JSON.stringify(b), {status: r.status}); };"
        " const expect = async () => { document.getElementById('predict-form')"
        ".requestSubmit(); await window.iocontendDone;"
        "  const p = document.querySelector('table#prediction');"
        "  const f = p.querySelector('td[data-field=\"rf.fit\"]');"
        "  return {text: f.textContent, value: f.dataset.value ?? null,"
        "   caption: p.caption.textContent}; };"
        " try { out.bad_predict = await expect(); } finally { window.fetch = fetch0; }"
        " out.lab_predict = await expect();"
        " return out; })().then(done, e => done(String(e)));",
        id, 1);
    assert_true(json_is_object(seen));
    char *text = json_dumps(seen, JSON_INDENT(1));
    print_message("%s\n", text);
    free(text);
    assert_true(json_integer_value(json_object_get(seen, "lab_rows")) > 0);
    assert_int_equal(json_array_size(json_object_get(seen, "lab_legend")), 1);
    assert_non_null(
        strstr(json_string_value(json_array_get(json_object_get(seen, "lab_legend"), 0)),
               "OOB R\xc2\xb2 0.57"));
    assert_int_equal(json_integer_value(json_object_get(seen, "bad_rows")), 0);
    assert_int_equal(json_array_size(json_object_get(seen, "bad_legend")), 0);
    assert_non_null(strstr(json_string_value(json_object_get(seen, "bad_caption")),
                           "not drawn: its OOB R\xc2\xb2 -0.55"));
    const json_t *heads = json_object_get(seen, "heads");
    assert_string_equal(json_string_value(json_array_get(heads, 7)), "percentile");
    assert_string_equal(json_string_value(json_array_get(heads, 8)), "F(y|x)");
    assert_non_null(
        strstr(json_string_value(json_object_get(seen, "caption")), "randomized PIT"));
    /* what to expect: at -0.55 no forest's number, and why; at the lab's 0.57 its fit */
    const json_t *bad = json_object_get(seen, "bad_predict");
    const json_t *good = json_object_get(seen, "lab_predict");
    assert_string_equal(json_string_value(json_object_get(bad, "text")), "\xe2\x80\x94");
    assert_true(json_is_null(json_object_get(bad, "value")));
    assert_non_null(strstr(json_string_value(json_object_get(bad, "caption")),
                           "forest not shown: OOB R\xc2\xb2 -0.55 \xe2\x89\xa4 0"));
    assert_true(json_is_string(json_object_get(good, "value")));
    assert_null(strstr(json_string_value(json_object_get(good, "caption")), "forest"));
    json_decref(seen);
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
        cmocka_unit_test(
            the_first_screen_shows_the_lab_group_and_the_rest_only_when_asked),
        cmocka_unit_test(the_lab_coverage_is_drawn_as_connected_areas),
        cmocka_unit_test(no_two_stored_pairs_share_a_colour),
        cmocka_unit_test(the_lab_axes_tick_at_round_counts_units_and_24_hour_times),
        cmocka_unit_test(
            the_forest_is_drawn_only_above_0_and_the_percentile_is_explained),
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
