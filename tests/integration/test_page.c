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
    /* the tables and sweeps the page draws are only ever stored ones; exit 1: the
     * planted hole excludes jobs */
    int rc = pgfixture_cmd(&fx.db, "--config '%s' analyze", fx.conf);
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
    json_decref(webdriver_console(&fx.web)); /* drop what earlier pages left */
    webdriver_open(&fx.web, url);
    json_t *done =
        webdriver_run(&fx.web,
                      "const done = arguments[arguments.length - 1];"
                      "Promise.resolve(window.iocontendDone).then(() => done(1),"
                      " e => done(String(e && e.stack || e)));",
                      NULL, 1);
    if (!json_is_integer(done))
        print_error("%s: the page's scripts failed: %s\n", url, json_string_value(done));
    assert_true(json_is_integer(done));
    json_decref(done);
    json_t *console = webdriver_console(&fx.web);
    size_t n = webdriver_errors(console);
    json_decref(console);
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

/* The data set name of the Vega view the page keeps as key, as JSON (the caller
 * json_decref's); fails when there is no such view. */
static json_t *view_data(const char *key, const char *name)
{
    json_t *args = json_pack("[s,s]", key, name);
    json_t *rows = webdriver_run(&fx.web,
                                 "const v = (window.iocontendViews || {})[arguments[0]];"
                                 "return v ? v.data(arguments[1]) : null;",
                                 args, 0);
    json_decref(args);
    if (!json_is_array(rows))
        fail_msg("no Vega view %s with a data set %s", key, name);
    return rows;
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

/* The number field of row i of a view's data set. */
static double field(const json_t *rows, size_t i, const char *name)
{
    const json_t *v = json_object_get(json_array_get(rows, i), name);
    if (!json_is_number(v))
        fail_msg("row %zu has no number %s", i, name);
    return json_number_value(v);
}

/* The sweep chart's rows of y~x at coefficient coef, in k's order, into out (NULL
 * when absent); their number. */
static size_t sweep_rows(const json_t *rows, const char *pair, const char *coef,
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

/* Every point of the sweeps API answers for group id, as the chart's rows hold them:
 * each pair the API has stored is in the chart, each coefficient at each k equal.
 * Returns the number of pairs. */
static size_t sweep_equals_the_api(const json_t *rows, const char *id)
{
    static const char *const pairs[][2] = {
        {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
        {"t_um", "psi_o_write"}, {"t_i", "psi_i_read"},  {"t_i", "psi_i_write"},
        {"tau", "b_d"},          {"t_d", "q_d"},         {"tau", "q_d"}};
    static const char *const coefs[] = {"pearson", "spearman", "dcor_v", "mi_linfoot"};
    size_t stored = 0, checked = 0;

    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        char url[256], pair[64];
        int status = 0;
        char *body = NULL;
        snprintf(url, sizeof url, "/api/v1/groups/%s/sweep?y=%s&x=%s", id, pairs[p][0],
                 pairs[p][1]);
        assert_int_equal(http_get(SERVER_HOST, fx.main.port, url, NULL, &status, &body),
                         0);
        free(body);
        if (status == 404)
            continue;
        stored++;
        json_t *sweep = server_get_json(&fx.main, url, NULL, 200);
        const json_t *steps = json_object_get(sweep, "steps");
        snprintf(pair, sizeof pair, "%s ~ %s", pairs[p][0], pairs[p][1]);
        for (size_t c = 0; c < sizeof coefs / sizeof coefs[0]; c++) {
            const json_t *got[256];
            size_t n = sweep_rows(rows, pair, coefs[c], got, 256);
            assert_int_equal(n, json_array_size(steps));
            for (size_t k = 0; k < n; k++) {
                const json_t *want = json_object_get(json_array_get(steps, k), coefs[c]);
                const json_t *have = json_object_get(got[k], "value");
                assert_rel(json_number_value(json_object_get(got[k], "granularity_s")),
                           json_number_value(json_object_get(json_array_get(steps, k),
                                                             "granularity_s")),
                           0);
                if (json_is_number(want)) {
                    assert_true(json_is_number(have));
                    assert_rel(json_number_value(have), json_number_value(want), 1e-15);
                    checked++;
                } else {
                    assert_true(json_is_null(have));
                }
            }
        }
        json_decref(sweep);
    }
    assert_true(stored > 0 && checked > 0);
    return stored;
}

/* Each group's charts, drawn by Vega from what the API serves: the T^D histogram bin
 * by bin with the mean ± 1.645 sd, the KDE's median and band over its defined grid
 * points, and the sweep of every stored pair, point by point. */
static void the_page_draws_each_groups_histogram_band_and_sweep(void **state)
{
    json_t *groups = server_get_json(&fx.main, "/api/v1/groups", NULL, 200);
    const json_t *list = json_object_get(groups, "groups"), *g;
    size_t i;

    (void)state;
    free(rendered(fx.main.port, "/"));
    json_array_foreach(list, i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        char url[256], key[64];

        /* the histogram: one bin per count, in order, and the band's two lines */
        snprintf(url, sizeof url, "/api/v1/groups/%s/table", id);
        json_t *table = server_get_json(&fx.main, url, NULL, 200);
        const json_t *h = json_object_get(table, "td_histogram");
        const json_t *counts = json_object_get(h, "counts");
        snprintf(key, sizeof key, "%s/histogram", id);
        json_t *bins = view_data(key, "bins");
        assert_true(json_array_size(counts) > 0);
        assert_int_equal(json_array_size(bins), json_array_size(counts));
        for (size_t b = 0; b < json_array_size(counts); b++) {
            assert_rel(field(bins, b, "count"),
                       (double)json_integer_value(json_array_get(counts, b)), 0);
            assert_rel(field(bins, b, "x0"),
                       json_number_value(json_object_get(h, "first_edge_s")) +
                           (double)b *
                               json_number_value(json_object_get(h, "bin_width_s")),
                       1e-12);
        }
        json_decref(bins);
        json_t *band = view_data(key, "band");
        assert_int_equal(json_array_size(band), 2);
        assert_rel(field(band, 0, "s"), json_number_value(json_object_get(h, "band_low")),
                   0);
        assert_rel(field(band, 1, "s"),
                   json_number_value(json_object_get(h, "band_high")), 0);
        json_decref(band);
        json_decref(table);

        /* the band: the KDE's grid points where all four are defined, equal */
        snprintf(url, sizeof url, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read", id);
        json_t *a = server_get_json(&fx.main, url, NULL, 200);
        const json_t *kde = json_object_get(a, "kde");
        const bool log_space =
            strcmp(json_string_value(json_object_get(kde, "space")), "log") == 0;
        snprintf(key, sizeof key, "%s/band", id);
        json_t *rows = view_data(key, "band");
        size_t defined = 0;
        for (size_t p = 0; p < json_array_size(json_object_get(kde, "x_grid")); p++) {
            static const char *const keys[] = {"x_grid", "q05", "q50", "q95"};
            static const char *const fields[] = {"x", "q05", "q50", "q95"};
            bool ok = true;
            for (int q = 0; q < 4; q++) {
                const json_t *e = json_array_get(json_object_get(kde, keys[q]), p);
                ok = ok && json_is_number(e) && (!log_space || json_number_value(e) > 0);
            }
            for (int q = 0; ok && q < 4; q++) {
                assert_true(defined < json_array_size(rows));
                assert_rel(
                    field(rows, defined, fields[q]),
                    json_number_value(json_array_get(json_object_get(kde, keys[q]), p)),
                    0);
            }
            defined += ok;
        }
        assert_true(defined > 0);
        assert_int_equal(json_array_size(rows), defined);
        json_decref(rows);
        json_decref(a);

        /* the sweep: every stored pair, every coefficient at every k */
        snprintf(key, sizeof key, "%s/sweep", id);
        json_t *steps = view_data(key, "steps");
        size_t pairs = sweep_equals_the_api(steps, id);
        print_message("%s: %zu stored sweep pairs drawn\n", id, pairs);
        json_decref(steps);
    }
    json_decref(groups);
}

/* The coverage chart (Fig. 13): the servers' and the jobs' series through every
 * interval the API gives a value for. */
static void the_page_draws_the_coverage_of_all_file_systems(void **state)
{
    json_t *c = server_get_json(&fx.main, "/api/v1/coverage?fs=all", NULL, 200);
    const json_t *f = json_array_get(json_object_get(c, "filesystems"), 0);

    (void)state;
    assert_non_null(f);
    free(rendered(fx.main.port, "/"));
    json_t *rows = view_data("coverage", "series");
    for (int k = 0; k < 2; k++) {
        static const char *const keys[] = {"s", "d"};
        static const char *const names[] = {"servers", "jobs"};
        const json_t *e, *r;
        size_t i, n = 0, drawn = 0;
        json_array_foreach(json_object_get(f, keys[k]), i, e) n += json_is_number(e);
        json_array_foreach(rows, i, r) drawn +=
            strcmp(json_string_value(json_object_get(r, "series")), names[k]) == 0;
        assert_true(n > 0);
        assert_int_equal(drawn, n);
    }
    json_decref(rows);
    json_decref(c);
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
    json_t *steps = view_data("sweep", "steps");
    assert_true(sweep_equals_the_api(steps, id) > 0);
    json_decref(steps);
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

static void
without_the_token_the_page_says_the_api_refused_and_shows_no_table(void **state)
{
    char conf[700], status[256];
    struct server guarded;
    FILE *fp;

    (void)state;
    snprintf(conf, sizeof conf, "%s/token.conf", fx.db.state_dir);
    fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "[serve]\ntoken = " TOKEN "\n");
    fclose(fp);
    assert_int_equal(server_start(&guarded, &fx.db, conf), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expected_cells_are_rounded_as_javascript_tofixed_does),
        cmocka_unit_test(
            the_page_lists_every_group_with_its_pearson_as_the_api_serves_it),
        cmocka_unit_test(the_page_under_web_reaches_the_same_api),
        cmocka_unit_test(the_page_draws_each_groups_histogram_band_and_sweep),
        cmocka_unit_test(the_page_draws_the_coverage_of_all_file_systems),
        cmocka_unit_test(the_page_is_photographed_at_800_and_1400_px),
        cmocka_unit_test(the_sweep_report_draws_offline_what_the_api_serves),
        cmocka_unit_test(the_library_route_serves_only_the_allowed_files),
        cmocka_unit_test(
            without_the_token_the_page_says_the_api_refused_and_shows_no_table),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
