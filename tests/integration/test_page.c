/* test_page.c: the dashboard page (web/index.html) and `report sweep` in a real
 * headless browser driven over WebDriver: what they draw with Vega is what the API
 * serves, with no console error, and the report needs no network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"
#include "../support/webdriver.h"

#include "../support/pagecheck.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN "t0ken-2.385"

/* The fixture of the whole suite: a small sample (one seed), ingested and analysed. */
static struct {
    struct pgfixture db;
    struct server main;   /* open: no token */
    char conf[600];       /* the sample's iocontend.conf */
    struct webdriver web; /* one browser for the whole suite */
} fx;

static int group_setup(void **state)
{
    char dir[512];

    (void)state;
    memset(&fx, 0, sizeof fx);
    unsetenv("IOCONTEND_TOKEN");
    if (pgfixture_start(&fx.db) != 0)
        return -1; /* cmocka runs the group teardown even then: it cleans up */
    snprintf(dir, sizeof dir, "%s/sample", fx.db.state_dir);
    sample_conf(dir, fx.conf, sizeof fx.conf);
    if (sample_generate(dir, 20240601UL, "--days 1 --jobs-per-group 60") != 0 ||
        sample_load(&fx.db, dir) != 0)
        return -1;
    /* the tables and sweeps the page draws are only ever stored ones, the
     * significance too (19 permutations: its numbers, not their power); exit 1: the
     * planted hole excludes jobs */
    int rc =
        pgfixture_cmd(&fx.db, "--config '%s' analyze --force --permutations 19", fx.conf);
    if (rc == 0 || rc == 1)
        rc = pgfixture_cmd(&fx.db, "--config '%s' analyze --sweep", fx.conf);
    if (rc != 0 && rc != 1)
        return -1;
    if (server_start(&fx.main, &fx.db, fx.conf) != 0)
        return -1;
    return webdriver_start(&fx.web, fx.db.state_dir, 1400, 1000);
}

static int group_teardown(void **state)
{
    (void)state;
    webdriver_stop(&fx.web);
    server_stop(&fx.main);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- the browser --------------------------------------------------------------- */

/* Opens url and waits until the page's scripts are done (window.iocontendDone, when
 * the page has it); the console's errors since, each printed, into *errors (NULL:
 * fail on any). */
static void open_page(const char *url, size_t *errors)
{
    size_t n = 0;

    assert_int_equal(pagecheck_open(&fx.web, url, &n), 0);
    if (errors != NULL) {
        *errors = n;
    } else {
        assert_int_equal(n, 0);
    }
}

/* The DOM of http://127.0.0.1:port/path once the page's scripts have run; with
 * no_errors, failing on a console error. Caller frees. */
static char *rendered_checked(int port, const char *path, bool no_errors)
{
    char url[512];
    size_t errors = 0;

    snprintf(url, sizeof url, "http://" SERVER_HOST ":%d%s", port, path);
    open_page(url, no_errors ? NULL : &errors);
    json_t *dom =
        webdriver_run(&fx.web, "return document.documentElement.outerHTML;", NULL, 0);
    assert_true(json_is_string(dom));
    char *out = strdup(json_string_value(dom));
    json_decref(dom);
    assert_non_null(out);
    return out;
}

static char *rendered(int port, const char *path)
{
    return rendered_checked(port, path, true);
}

/* ---- reading the DOM ------------------------------------------------------------- */

/* The text between the end of the start tag found at open and the next '<', with the
 * entities the serializer writes decoded, into out. false when open is absent. */
static bool text_after(const char *dom, const char *open, char *out, size_t size)
{
    const char *at = strstr(dom, open);
    size_t o = 0;

    if (at == NULL)
        return false;
    at = strchr(at + strlen(open) - 1, '>');
    if (at == NULL)
        return false;
    for (at++; *at != '\0' && *at != '<' && o + 3 < size;) {
        static const struct {
            const char *entity, *text;
        } entities[] = {{"&amp;", "&"},
                        {"&lt;", "<"},
                        {"&gt;", ">"},
                        {"&quot;", "\""},
                        {"&nbsp;", "\xc2\xa0"}};
        bool decoded = false;
        for (size_t i = 0; i < sizeof entities / sizeof entities[0]; i++) {
            size_t n = strlen(entities[i].entity);
            if (strncmp(at, entities[i].entity, n) == 0) {
                size_t m = strlen(entities[i].text);
                memcpy(out + o, entities[i].text, m);
                o += m;
                at += n;
                decoded = true;
                break;
            }
        }
        if (!decoded)
            out[o++] = *at++;
    }
    out[o] = '\0';
    return true;
}

#define NCELLS 6 /* group, name, jobs, d, Pearson, Spearman */

/* The cells of the row of group id; the number of rows for that group. */
static int row_of(const char *dom, const char *id, char cells[NCELLS][128])
{
    char open[96];
    int rows = 0;

    snprintf(open, sizeof open, "<tr data-group=\"%s\">", id);
    for (const char *at = strstr(dom, open); at != NULL; at = strstr(at + 1, open)) {
        const char *end = strstr(at, "</tr>");
        const char *td = at;
        rows++;
        for (int i = 0; i < NCELLS; i++) {
            td = strstr(td + 1, "<td");
            if (td == NULL || (end != NULL && td > end) ||
                !text_after(td, "<td", cells[i], sizeof cells[i]))
                cells[i][0] = '\0';
            if (td == NULL)
                break;
        }
    }
    return rows;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *at = strstr(hay, needle); at != NULL; at = strstr(at + 1, needle))
        n++;
    return n;
}

/* ---- what the page should show ------------------------------------------------- */

/* v as JavaScript's v.toFixed(3) writes it (ECMA-262 Number.prototype.toFixed): the
 * exact value rounded to 3 decimals with halves away from zero (printf's "%.3f"
 * rounds exact halves to even), "-" only for a negative v (-0 gives "0.000"). */
static void js_fixed3(double v, char *out, size_t size)
{
    char digits[400];
    bool negative = v < 0;

    /* glibc prints the exact decimal value; 70 decimals hold all of it for |v| >=
     * 2^-11 (a multiple of 2^-63 there), and below that the 4th decimal is < 5 anyway.
     * digits[0] takes a carry out of the first digit. */
    digits[0] = '0';
    snprintf(digits + 1, sizeof digits - 1, "%.70f", fabs(v)); /* -0: "0.000" */
    char *dot = strchr(digits, '.');
    bool up = dot[4] >= '5';
    dot[4] = '\0';
    for (char *p = dot + 3; up; p--) {
        if (*p == '.')
            continue;
        if (*p == '9') {
            *p = '0';
        } else {
            (*p)++;
            up = false;
        }
    }
    const char *start = digits[0] == '0' ? digits + 1 : digits;
    size_t len = strlen(start), o = 0;
    if (size < len + 2)
        fail_msg("js_fixed3: %zu bytes cannot hold %s", size, start);
    if (negative)
        out[o++] = '-';
    memcpy(out + o, start, len + 1);
}

/* A coefficient as the page's coef() shows it: toFixed(3), or a dash when null. */
static void shown(const json_t *v, char *out, size_t size)
{
    if (json_is_number(v)) {
        js_fixed3(json_number_value(v), out, size);
    } else {
        snprintf(out, size, "\xe2\x80\x94"); /* — */
    }
}

/* Every group the API lists is one row of the page, cell for cell. */
static void page_shows_what_the_api_serves(const char *path)
{
    json_t *groups = server_get_json(&fx.main, "/api/v1/groups", NULL, 200);
    const json_t *list = json_object_get(groups, "groups"), *g;
    char *dom = rendered(fx.main.port, path);
    char status[256], want[64];
    size_t i;

    assert_true(json_array_size(list) >= 3); /* esb, npc, npb */
    assert_true(text_after(dom, "<p id=\"status\">", status, sizeof status));
    snprintf(want, sizeof want, "%zu groups", json_array_size(list));
    assert_string_equal(status, want);
    assert_non_null(strstr(dom, "<table id=\"groups\">")); /* no longer hidden */
    assert_int_equal(count(dom, "<tr data-group="), json_array_size(list));
    json_array_foreach(list, i, g)
    {
        char cells[NCELLS][128], url[256], jobs[32], d[32], pearson[64], spearman[64];
        const char *id = json_string_value(json_object_get(g, "id"));

        snprintf(url, sizeof url, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read", id);
        json_t *a = server_get_json(&fx.main, url, NULL, 200);
        snprintf(jobs, sizeof jobs, "%lld",
                 (long long)json_integer_value(json_object_get(g, "jobs")));
        snprintf(d, sizeof d, "%lld",
                 (long long)json_integer_value(json_object_get(a, "d")));
        shown(json_object_get(a, "pearson"), pearson, sizeof pearson);
        shown(json_object_get(a, "spearman"), spearman, sizeof spearman);
        assert_true(json_is_number(json_object_get(a, "pearson")));
        json_decref(a);
        print_message("%s: Pearson %s on the page\n", id, pearson);

        assert_int_equal(row_of(dom, id, cells), 1);
        assert_string_equal(cells[0], id);
        assert_string_equal(cells[1], json_string_value(json_object_get(g, "name")));
        assert_string_equal(cells[2], jobs);
        assert_string_equal(cells[3], d);
        assert_string_equal(cells[4], pearson);
        assert_string_equal(cells[5], spearman);
    }
    free(dom);
    json_decref(groups);
}

/* The group objects of /api/v1/groups (the caller json_decref's). */
static json_t *groups_listed(void)
{
    return server_get_json(&fx.main, "/api/v1/groups", NULL, 200);
}

/* Each group's charts and table, drawn from what the API serves: the coefficients with
 * their significance, the T^D histogram bin by bin with the mean ± 1.645 sd, the
 * scatter's points (those of /points, in order), the KDE's median and band over its
 * defined grid points and the forest's fit, and the sweep of every stored pair, point
 * by point. */
static void
the_page_draws_each_groups_coefficients_histogram_scatter_and_sweep(void **state)
{
    struct pagecheck_counts c = {0};

    (void)state;
    free(rendered(fx.main.port, "/"));
    assert_int_equal(pagecheck_groups(&fx.web, fx.main.port, NULL, &c), 0);
    print_message("%zu groups: %zu charts, %zu tables, %zu numbers, %zu points, %zu "
                  "sweeps equal the API's\n",
                  c.groups, c.charts, c.tables, c.numbers, c.points, c.sweeps);
    assert_true(c.groups >= 3);
    assert_int_equal(c.charts, 3 * c.groups); /* histogram, scatter, sweep */
    assert_int_equal(c.tables, c.groups);
    assert_true(c.points >= 50 * c.groups); /* 60 jobs each, a few excluded */
    assert_int_equal(c.sweeps, 9 * c.groups);
}

/* The coverage chart (Fig. 13): as many buckets as its plot is wide, each the least
 * and the most of the servers' and the jobs' series as /coverage?points= answers. */
static void the_page_draws_the_coverage_buckets_the_api_cuts(void **state)
{
    struct pagecheck_counts c = {0};

    (void)state;
    free(rendered(fx.main.port, "/"));
    assert_int_equal(pagecheck_coverage(&fx.web, fx.main.port, NULL, &c), 0);
    print_message("%zu coverage buckets equal the API's\n", c.buckets);
    assert_int_equal(c.charts, 1);
    assert_true(c.buckets >= 200);
}

/* A drag across the coverage's overview asks the API for the range dragged, cut into
 * as many buckets as the plot is wide, and draws those. */
static void dragging_across_the_overview_draws_the_range_dragged(void **state)
{
    struct pagecheck_counts c = {0};

    (void)state;
    free(rendered(fx.main.port, "/"));
    json_t *box = webdriver_run(
        &fx.web,
        "const g = document.querySelector('figure[data-chart=\"coverage\"] "
        "g.overviewView');"
        "g.scrollIntoView({block: 'center'});"
        "const r = g.getBoundingClientRect();"
        "return [Math.round(r.left), Math.round(r.top), Math.round(r.width)];",
        NULL, 0);
    const int left = (int)json_integer_value(json_array_get(box, 0));
    const int top = (int)json_integer_value(json_array_get(box, 1));
    const int width = (int)json_integer_value(json_array_get(box, 2));
    json_decref(box);
    assert_true(width > 200);
    webdriver_drag(&fx.web, left + width / 4, top + 20, left + width / 2, top + 20);
    json_t *drawn = webdriver_run(&fx.web,
                                  "const done = arguments[arguments.length - 1];"
                                  "const v = window.iocontendViews.coverage;"
                                  "v.zoomed.then(() => done(document.querySelector("
                                  "'figure[data-chart=\"coverage\"]').dataset.from ||"
                                  " null), e => done(String(e)));",
                                  NULL, 1);
    assert_true(json_is_string(drawn)); /* a range was asked for */
    print_message("zoomed from %s\n", json_string_value(drawn));
    json_decref(drawn);
    assert_int_equal(pagecheck_coverage(&fx.web, fx.main.port, NULL, &c), 0);
    assert_true(c.buckets >= 200);
}

/* Who got hurt and what to expect: the slowdown table row for row and the prediction
 * at the x the widget shows are the API's numbers. */
static void the_slowdown_table_and_the_prediction_are_the_apis(void **state)
{
    struct pagecheck_counts c = {0};

    (void)state;
    free(rendered(fx.main.port, "/"));
    assert_int_equal(pagecheck_slowdowns(&fx.web, fx.main.port, NULL, &c), 0);
    assert_int_equal(pagecheck_prediction(&fx.web, fx.main.port, NULL, &c), 0);
    assert_int_equal(c.tables, 2);
    assert_true(c.numbers >= 20 * 6); /* 20 rows of 6 numbers, the prediction's 6 */
    /* another x typed into the widget: its answer replaces the first */
    json_decref(webdriver_run(
        &fx.web, "document.getElementById('predict-x').value = ''; return 1;", NULL, 0));
    json_t *mid = webdriver_run(&fx.web,
                                "const t = document.querySelector('table#prediction');"
                                "return String(Number(t.dataset.xValue) * 1.25);",
                                NULL, 0);
    char typed[64];
    snprintf(typed, sizeof typed, "%s\xee\x80\x87", json_string_value(mid)); /* Enter */
    json_decref(mid);
    webdriver_type(&fx.web, "#predict-x", typed);
    json_t *done =
        webdriver_run(&fx.web,
                      "const done = arguments[arguments.length - 1];"
                      "window.iocontendDone.then(() => done(1), e => done(String(e)));",
                      NULL, 1);
    assert_true(json_is_integer(done));
    json_decref(done);
    assert_int_equal(pagecheck_prediction(&fx.web, fx.main.port, NULL, &c), 0);
    assert_int_equal(c.tables, 3);
}

/* Ticks carry units: the formatter's bytes in KiB / MiB / GiB, seconds in s / min / h,
 * one prefix per axis, round tick values; the drawn axes say so on every label. */
static void axes_label_their_ticks_in_bytes_and_seconds(void **state)
{
    static const struct {
        const char *expr, *want;
    } cases[] = {
        {"h(1536, 'B')", "1.5 KiB"},
        {"h(2.385 * 1024 * 1024 * 1024, 'B')", "2.38 GiB"}, /* 2.38499... */
        {"h(200 * Math.pow(1024, 3), 'B', [0, 1.1 * Math.pow(1024, 4)])", "200 GiB"},
        {"h(2 * Math.pow(1024, 4), 'B', [0, 9 * Math.pow(1024, 4)])", "2 TiB"},
        {"h(1200, 's', [0, 4700])", "20 min"},
        {"String(t([0, 4700], 's', 6, false))", "0,1200,2400,3600"},
        {"h(300 * 1024 * 1024, 'B/s')", "300 MiB/s"},
        {"h(42, 's')", "42 s"},
        {"h(90, 's')", "1.5 min"},
        {"h(5400, 's')", "1.5 h"},
        {"h(600, 's', [0, 1700])", "10 min"},
        {"h(2385, '')", "2.38k"},
        {"String(t([600, 1700], 's', 6, false))", "600,900,1200,1500"},
        {"String(t([1, Math.pow(1024, 3)], 'B', 6, true))", "1,1024,1048576,1073741824"},
    };
    char script[400];

    (void)state;
    free(rendered(fx.main.port, "/"));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(script, sizeof script,
                 "const c = window.requirejs('iocontend-charts'), h = c.human,"
                 " t = c.ticks; return %s;",
                 cases[i].expr);
        json_t *got = webdriver_run(&fx.web, script, NULL, 0);
        assert_true(json_is_string(got));
        if (strcmp(json_string_value(got), cases[i].want) != 0)
            print_error("%s: %s\n", cases[i].expr, json_string_value(got));
        assert_string_equal(json_string_value(got), cases[i].want);
        json_decref(got);
    }
    /* every histogram's and sweep's x axis: at least 3 ticks, each a time with a unit */
    json_t *labels = webdriver_run(
        &fx.web,
        "return [...document.querySelectorAll('figure.histogram, figure.sweep')].map(f =>"
        " [...f.querySelectorAll('.role-axis-label')][0]).map(g =>"
        " [...g.querySelectorAll('text')].map(t => t.textContent));",
        NULL, 0);
    assert_true(json_array_size(labels) >= 6);
    for (size_t i = 0; i < json_array_size(labels); i++) {
        const json_t *axis = json_array_get(labels, i);
        assert_true(json_array_size(axis) >= 3);
        for (size_t k = 0; k < json_array_size(axis); k++) {
            const char *text = json_string_value(json_array_get(axis, k));
            const char *space = strrchr(text, ' ');
            assert_non_null(space);
            if (strcmp(space, " s") != 0 && strcmp(space, " min") != 0 &&
                strcmp(space, " h") != 0)
                fail_msg("axis label \"%s\" has no time unit", text);
        }
    }
    json_decref(labels);
}

/* The page at 800 and 1,400 px wide, whole, as PNGs under $BUILD/screenshots/. */
static void the_page_is_photographed_at_800_and_1400_px(void **state)
{
    const char *build = getenv("BUILD");
    char dir[512], path[600];

    (void)state;
    snprintf(dir, sizeof dir, "%s/screenshots",
             build != NULL && build[0] != '\0' ? build : "build");
    mkdir(dir, 0755);
    for (int w = 0; w < 2; w++) {
        static const int widths[] = {800, 1400};
        webdriver_resize(&fx.web, widths[w], 1000);
        free(rendered(fx.main.port, "/"));
        /* nothing wider than the window: the group table, the slowdowns, the charts */
        json_t *over = webdriver_run(
            &fx.web,
            "const w = document.documentElement.clientWidth;"
            "return [...document.querySelectorAll('table, figure, section')]"
            ".filter(e => e.getBoundingClientRect().right > w + 0.5)"
            ".map(e => e.tagName + (e.id ? '#' + e.id : '') + ' ' +"
            " Math.round(e.getBoundingClientRect().right));",
            NULL, 0);
        for (size_t i = 0; i < json_array_size(over); i++)
            print_error("at %d px: %s is cut off\n", widths[w],
                        json_string_value(json_array_get(over, i)));
        assert_int_equal(json_array_size(over), 0);
        json_decref(over);
        json_t *height = webdriver_run(
            &fx.web, "return document.documentElement.scrollHeight;", NULL, 0);
        assert_true(json_integer_value(height) > 0);
        webdriver_resize(&fx.web, widths[w], (int)json_integer_value(height) + 120);
        json_decref(height);
        snprintf(path, sizeof path, "%s/page-%d.png", dir, widths[w]);
        webdriver_screenshot(&fx.web, path);
        print_message("screenshot: %s\n", path);
    }
    webdriver_resize(&fx.web, 1400, 1000);
}

/* ---- tests --------------------------------------------------------------------- */

static void expected_cells_are_rounded_as_javascript_tofixed_does(void **state)
{
    static const struct {
        double v;
        const char *want; /* (v).toFixed(3) in chromium 156 and node */
    } cases[] = {{0.8128420751, "0.813"}, {-0.0544659, "-0.054"}, {0.0625, "0.063"},
                 {-0.0625, "-0.063"},     {0.9995, "1.000"},      {1.0005, "1.000"},
                 {0.1235, "0.123"},       {-0.0001, "-0.000"},    {-0.0, "0.000"},
                 {2.385, "2.385"},        {9.9996, "10.000"}};
    char got[64];

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        js_fixed3(cases[i].v, got, sizeof got);
        assert_string_equal(got, cases[i].want);
    }
}

static void the_page_lists_every_group_with_its_pearson_as_the_api_serves_it(void **state)
{
    (void)state;
    page_shows_what_the_api_serves("/");
}

static void the_page_under_web_reaches_the_same_api(void **state)
{
    (void)state;
    page_shows_what_the_api_serves("/web/index.html");
}

/* `report sweep` is one file: opened from file:// it draws every stored pair with
 * Vega, with no console error, asks the network for nothing, and its numbers are
 * the API's. */
static void the_sweep_report_draws_offline_what_the_api_serves(void **state)
{
    char id[64], out[600], url[700];

    (void)state;
    assert_int_equal(server_first_group(&fx.main, id, sizeof id), 0);
    snprintf(out, sizeof out, "%s/sweep-report.html", fx.db.state_dir);
    assert_int_equal(pgfixture_cmd(&fx.db,
                                   "--config '%s' report sweep --group %s --out '%s'",
                                   fx.conf, id, out),
                     0);
    snprintf(url, sizeof url, "file://%s", out);
    open_page(url, NULL);
    json_t *asked = webdriver_run(
        &fx.web, "return performance.getEntriesByType('resource').map(e => e.name);",
        NULL, 0);
    assert_true(json_is_array(asked));
    for (size_t i = 0; i < json_array_size(asked); i++)
        print_error("the report asked for %s\n",
                    json_string_value(json_array_get(asked, i)));
    assert_int_equal(json_array_size(asked), 0);
    json_decref(asked);
    json_t *groups = groups_listed();
    const json_t *g = NULL, *e;
    size_t i;
    json_array_foreach(json_object_get(groups, "groups"), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "id")), id) == 0)
            g = e;
    }
    assert_non_null(g);
    struct pagecheck_counts c = {0};
    assert_int_equal(pagecheck_sweep(&fx.web, fx.main.port, NULL, g, "sweep", &c), 0);
    assert_int_equal(c.charts, 1);
    assert_int_equal(c.sweeps, 9);
    json_decref(groups);
}

/* /lib/ answers Debian's library files and nothing else: no other folder, no other
 * extension, no "..", no link out of a package's folder. */
static void the_library_route_serves_only_the_allowed_files(void **state)
{
    char dir[600], path[700];
    struct server lib;
    int status = 0;
    char *body = NULL;

    (void)state;
    snprintf(dir, sizeof dir, "%s/js", fx.db.state_dir);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/vega", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/vega/ok.js", dir);
    assert_int_equal(testutil_write_file(path, "var ok = 2.385;\n", 16), 0);
    snprintf(path, sizeof path, "%s/vega/out.js", dir);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    snprintf(path, sizeof path, "%s/secret.js", dir);
    assert_int_equal(testutil_write_file(path, "var secret;\n", 12), 0);
    setenv("IOCONTEND_JS_DIR", dir, 1);
    int started = server_start(&lib, &fx.db, fx.conf);
    unsetenv("IOCONTEND_JS_DIR");
    assert_int_equal(started, 0);

    assert_int_equal(
        http_get(SERVER_HOST, lib.port, "/lib/vega/ok.js", NULL, &status, &body), 0);
    assert_int_equal(status, 200);
    assert_string_equal(body, "var ok = 2.385;\n");
    free(body);
    static const char *const refused[] = {
        "/lib/vega/out.js",           "/lib/secret.js",    "/lib/vega/../secret.js",
        "/lib/vega/%2e%2e/secret.js", "/lib/vega/ok.json", "/lib//vega/ok.js",
        "/lib/vega/.ok.js",           "/lib/vega",         "/lib/",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        body = NULL;
        assert_int_equal(
            http_get(SERVER_HOST, lib.port, refused[i], NULL, &status, &body), 0);
        if (status != 404)
            print_error("%s answered %d\n", refused[i], status);
        assert_int_equal(status, 404);
        assert_null(strstr(body != NULL ? body : "", "root:"));
        free(body);
    }
    assert_int_equal(server_stop(&lib), 0);
    /* and the real one: Debian's Vega as the page loads it */
    assert_int_equal(http_get(SERVER_HOST, fx.main.port, "/lib/vega/vega-util.js", NULL,
                              &status, &body),
                     0);
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, "define.amd"));
    free(body);
}

/* Starts s on the fixture's database with [serve] token = TOKEN. */
static void start_guarded(struct server *s)
{
    char conf[700];
    FILE *fp;

    snprintf(conf, sizeof conf, "%s/token.conf", fx.db.state_dir);
    fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "[serve]\ntoken = " TOKEN "\n");
    fclose(fp);
    assert_int_equal(server_start(s, &fx.db, conf), 0);
}

static void
without_the_token_the_page_says_the_api_refused_and_shows_no_table(void **state)
{
    char status[256];
    struct server guarded;

    (void)state;
    start_guarded(&guarded);
    /* The page sends no token: the API refuses it (the browser logs the 401). */
    char *dom = rendered_checked(guarded.port, "/", false);
    assert_int_equal(server_stop(&guarded), 0);

    assert_true(text_after(dom, "<p id=\"status\">", status, sizeof status));
    assert_string_equal(status, "the API answered 401: this server needs "
                                "Authorization: Bearer <token>");
    assert_non_null(strstr(dom, "<table id=\"groups\" hidden"));
    assert_int_equal(count(dom, "<tr data-group="), 0);
    free(dom);
}

/* A request that fails shows the API's message where its chart would be, and the
 * other charts still draw: here the second group's /table and /points answer 503 with
 * the API's error body (the page's fetch is wrapped, then the page runs again). */
static void one_group_failing_never_stops_the_others(void **state)
{
    json_t *groups = groups_listed();
    const json_t *list = json_object_get(groups, "groups");
    const char *bad = json_string_value(json_object_get(json_array_get(list, 1), "id"));

    (void)state;
    free(rendered(fx.main.port, "/"));
    json_t *args = json_pack("[s]", bad);
    json_t *done = webdriver_run(
        &fx.web,
        "const done = arguments[arguments.length - 1], bad = arguments[0];"
        "const real = window.fetch;"
        "window.fetch = (url, o) => /\\/groups\\/[^/]+\\/(table|points)/.test(url) &&"
        " url.includes('/groups/' + bad + '/') ? Promise.resolve(new Response("
        "JSON.stringify({error: {status: 'db', message: 'the database is away (2.385 "
        "s)'}}),"
        " {status: 503})) : real(url, o);"
        "document.getElementById('token-forget').click();"
        "window.iocontendDone.then(() => done(1), e => done(String(e)));",
        args, 1);
    json_decref(args);
    assert_int_equal(json_integer_value(done), 1);
    json_decref(done);
    json_t *shown =
        webdriver_run(&fx.web,
                      "return [...document.querySelectorAll('p.error')].map(p => "
                      "p.dataset.chart + ': ' +"
                      " p.textContent).sort();",
                      NULL, 0);
    char want[2][200];
    snprintf(want[0], sizeof want[0],
             "%s/histogram: the API answered 503: the database is away (2.385 s)", bad);
    snprintf(want[1], sizeof want[1],
             "%s/scatter: the API answered 503: the database is away (2.385 s)", bad);
    assert_int_equal(json_array_size(shown), 2);
    assert_string_equal(json_string_value(json_array_get(shown, 0)), want[0]);
    assert_string_equal(json_string_value(json_array_get(shown, 1)), want[1]);
    json_decref(shown);
    /* every other chart: the other groups' three, this one's sweep, the coverage */
    json_t *drawn = webdriver_run(
        &fx.web,
        "return Object.keys(window.iocontendViews).filter(k =>"
        " document.querySelector('figure[data-chart=\"' + k + '\"]')).length;",
        NULL, 0);
    assert_int_equal(json_integer_value(drawn),
                     (json_int_t)(3 * json_array_size(list) - 1));
    json_decref(drawn);
    json_decref(groups);
}

/* With a token configured the page says the API refused it; once the token is typed
 * into the page's field (and Enter pressed) every chart draws with no console error,
 * each equal to the API's, and a reload keeps the token (session storage). */
static void with_the_token_typed_into_its_field_every_chart_draws(void **state)
{
    char url[128], status[256], auth[128];
    struct server guarded;
    struct pagecheck_counts c = {0};
    size_t refused = 0;

    (void)state;
    start_guarded(&guarded);
    snprintf(url, sizeof url, "http://" SERVER_HOST ":%d/", guarded.port);
    assert_int_equal(pagecheck_open(&fx.web, url, &refused), 0);
    assert_true(refused >= 1); /* the browser logs the 401 */
    json_t *shown = webdriver_run(
        &fx.web, "return document.getElementById('status').textContent;", NULL, 0);
    snprintf(status, sizeof status, "%s", json_string_value(shown));
    json_decref(shown);
    assert_string_equal(status, "the API answered 401: this server needs "
                                "Authorization: Bearer <token>");

    json_decref(webdriver_console(&fx.web));
    webdriver_type(&fx.web, "#token", TOKEN "\xee\x80\x87"); /* and Enter */
    json_t *done =
        webdriver_run(&fx.web,
                      "const done = arguments[arguments.length - 1];"
                      "window.iocontendDone.then(() => done(window.iocontendRuns),"
                      " e => done(String(e)));",
                      NULL, 1);
    assert_int_equal(json_integer_value(done), 2); /* the page ran again */
    json_decref(done);
    json_t *console = webdriver_console(&fx.web);
    assert_int_equal(webdriver_errors(console), 0);
    json_decref(console);
    snprintf(auth, sizeof auth, "%s", TOKEN);
    assert_int_equal(pagecheck_views(&fx.web, guarded.port, auth, &c), 0);
    assert_int_equal(c.charts, 3 * c.groups + 1);

    /* the token stays for the tab: a reload draws it all again, with no 401 */
    memset(&c, 0, sizeof c);
    assert_int_equal(pagecheck_open(&fx.web, url, &c.console_errors), 0);
    assert_int_equal(c.console_errors, 0);
    assert_int_equal(pagecheck_views(&fx.web, guarded.port, auth, &c), 0);
    assert_int_equal(c.charts, 3 * c.groups + 1);
    assert_int_equal(server_stop(&guarded), 0);
}

/* The whole page, at / and under /web/, through the check other data sets use: every
 * chart drawn, no error shown, no console error, every number the API's. */
static void the_whole_page_passes_the_page_check(void **state)
{
    static const char *const paths[] = {"/", "/web/index.html"};

    (void)state;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct pagecheck_counts c = {0};
        assert_int_equal(pagecheck_page(&fx.web, fx.main.port, paths[i], NULL, &c), 0);
        assert_int_equal(c.charts, 3 * c.groups + 1);
        assert_int_equal(c.tables, c.groups + 2);
        assert_int_equal(c.errors_shown + c.console_errors + c.mismatches + c.missing, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expected_cells_are_rounded_as_javascript_tofixed_does),
        cmocka_unit_test(
            the_page_lists_every_group_with_its_pearson_as_the_api_serves_it),
        cmocka_unit_test(the_page_under_web_reaches_the_same_api),
        cmocka_unit_test(
            the_page_draws_each_groups_coefficients_histogram_scatter_and_sweep),
        cmocka_unit_test(the_page_draws_the_coverage_buckets_the_api_cuts),
        cmocka_unit_test(dragging_across_the_overview_draws_the_range_dragged),
        cmocka_unit_test(the_slowdown_table_and_the_prediction_are_the_apis),
        cmocka_unit_test(axes_label_their_ticks_in_bytes_and_seconds),
        cmocka_unit_test(the_page_is_photographed_at_800_and_1400_px),
        cmocka_unit_test(the_sweep_report_draws_offline_what_the_api_serves),
        cmocka_unit_test(the_library_route_serves_only_the_allowed_files),
        cmocka_unit_test(
            without_the_token_the_page_says_the_api_refused_and_shows_no_table),
        cmocka_unit_test(with_the_token_typed_into_its_field_every_chart_draws),
        cmocka_unit_test(one_group_failing_never_stops_the_others),
        cmocka_unit_test(the_whole_page_passes_the_page_check),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
