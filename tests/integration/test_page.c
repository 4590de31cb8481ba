/* test_page.c: the dashboard page (web/index.html) in a real headless browser against
 * a real server: what it renders is what the API serves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOKEN "t0ken-2.385"

/* The fixture of the whole suite: a small sample (one seed), ingested and analysed. */
static struct {
    struct pgfixture db;
    struct server main; /* open: no token */
    char conf[600];     /* the sample's iocontend.conf */
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
    return server_start(&fx.main, &fx.db, fx.conf);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.main);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- the browser --------------------------------------------------------------- */

/* The DOM of http://127.0.0.1:port/path once the page's scripts have run. Caller
 * frees. */
static char *rendered(int port, const char *path)
{
    char url[512];

    snprintf(url, sizeof url, "http://" SERVER_HOST ":%d%s", port, path);
    return testutil_browser_dom(url, fx.db.state_dir);
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

/* The last c in [from, at), or from when none. */
static const char *strrchr_before(const char *from, const char *at, char c)
{
    while (at > from && *at != c)
        at--;
    return at;
}

/* The value of the attribute name="…" at the first place after from where it
 * appears before end, as a number; false when it does not. *from moves past it. */
static bool next_attr(const char **from, const char *end, const char *name, double *v)
{
    char key[64];

    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(*from, key);
    if (at == NULL || at >= end)
        return false;
    *v = strtod(at + strlen(key), NULL);
    *from = at + strlen(key);
    return true;
}

/* The number that attribute name has on the element whose start tag holds marker,
 * within [from, end). */
static double attr_of(const char *from, const char *end, const char *marker,
                      const char *name)
{
    const char *at = strstr(from, marker);
    double v = NAN;

    assert_true(at != NULL && at < end);
    at = strrchr_before(from, at, '<');
    assert_true(next_attr(&at, end, name, &v));
    return v;
}

/* Each group's pictures, drawn from what the API serves: the T^D histogram bar by
 * bar, the KDE's median over its defined grid points, the sweep's curves over k. */
static void the_page_draws_each_groups_histogram_band_and_sweep(void **state)
{
    json_t *groups = server_get_json(&fx.main, "/api/v1/groups", NULL, 200);
    const json_t *list = json_object_get(groups, "groups"), *g;
    char *dom = rendered(fx.main.port, "/");
    size_t i;

    (void)state;
    json_array_foreach(list, i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        char url[256], marker[64];

        snprintf(marker, sizeof marker, "<section class=\"detail\" data-group=\"%s\">",
                 id);
        const char *sec = strstr(dom, marker);
        assert_non_null(sec);
        const char *end = strstr(sec, "</section>");
        assert_non_null(end);

        /* the histogram: one bar per count, in order */
        snprintf(url, sizeof url, "/api/v1/groups/%s/table", id);
        json_t *table = server_get_json(&fx.main, url, NULL, 200);
        const json_t *counts =
            json_object_get(json_object_get(table, "td_histogram"), "counts");
        const char *at = sec;
        double v;
        assert_true(json_array_size(counts) > 0);
        for (size_t b = 0; b < json_array_size(counts); b++) {
            assert_true(next_attr(&at, end, "data-count", &v));
            assert_rel(v, (double)json_integer_value(json_array_get(counts, b)), 0);
        }
        assert_false(next_attr(&at, end, "data-count", &v));
        json_decref(table);

        /* the band: the median through every grid point where all is defined */
        snprintf(url, sizeof url, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read", id);
        json_t *a = server_get_json(&fx.main, url, NULL, 200);
        const json_t *kde = json_object_get(a, "kde");
        const bool log_space =
            strcmp(json_string_value(json_object_get(kde, "space")), "log") == 0;
        size_t defined = 0;
        for (size_t p = 0; p < json_array_size(json_object_get(kde, "x_grid")); p++) {
            bool ok = true;
            for (int q = 0; q < 4; q++) {
                static const char *const keys[] = {"x_grid", "q05", "q50", "q95"};
                const json_t *e = json_array_get(json_object_get(kde, keys[q]), p);
                ok = ok && json_is_number(e) && (!log_space || json_number_value(e) > 0);
            }
            defined += ok;
        }
        assert_true(defined > 0);
        assert_rel(attr_of(sec, end, "class=\"q50\"", "data-n"), (double)defined, 0);
        json_decref(a);

        /* the sweep: each coefficient through its defined k */
        snprintf(url, sizeof url, "/api/v1/groups/%s/sweep?y=t_d&x=psi_d_read", id);
        json_t *sweep = server_get_json(&fx.main, url, NULL, 200);
        const json_t *steps = json_object_get(sweep, "steps"), *st;
        size_t k, n_pearson = 0;
        json_array_foreach(steps, k, st) n_pearson +=
            json_is_number(json_object_get(st, "pearson"));
        assert_true(n_pearson > 0);
        assert_rel(attr_of(sec, end, "data-coef=\"pearson\"", "data-n"),
                   (double)n_pearson, 0);
        json_decref(sweep);
    }
    free(dom);
    json_decref(groups);
}

/* The coverage picture (Fig. 13): the servers' and the jobs' series through every
 * interval the API gives a value for. */
static void the_page_draws_the_coverage_of_all_file_systems(void **state)
{
    json_t *c = server_get_json(&fx.main, "/api/v1/coverage?fs=all", NULL, 200);
    const json_t *f = json_array_get(json_object_get(c, "filesystems"), 0);
    char *dom = rendered(fx.main.port, "/");
    const char *sec = strstr(dom, "<section id=\"coverage\">");

    (void)state;
    assert_non_null(f);
    assert_non_null(sec);
    const char *end = strstr(sec, "</section>");
    assert_non_null(end);
    for (int k = 0; k < 2; k++) {
        static const char *const keys[] = {"s", "d"};
        char marker[64];
        const json_t *e;
        size_t i, n = 0;
        json_array_foreach(json_object_get(f, keys[k]), i, e) n += json_is_number(e);
        assert_true(n > 0);
        snprintf(marker, sizeof marker, "data-series=\"%s\"", keys[k]);
        assert_rel(attr_of(sec, end, marker, "data-n"), (double)n, 0);
    }
    free(dom);
    json_decref(c);
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
    /* The page sends no token: the API refuses it. */
    char *dom = rendered(guarded.port, "/");
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
        cmocka_unit_test(
            without_the_token_the_page_says_the_api_refused_and_shows_no_table),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
