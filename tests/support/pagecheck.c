/* pagecheck.c: the dashboard page read back from the browser (Vega's data sets, the
 * tables' data-value attributes) and compared number by number with the API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pagecheck.h"

#include "../../common/common.h"
#include "webdriver.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST "127.0.0.1"

/* The pairs analyze --sweep stores (analysis/sweep.c), for a group list that does not
 * say which it stored. */
static const char *const sweep_pairs[][2] = {
    {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
    {"t_um", "psi_o_write"}, {"t_i", "psi_i_read"},  {"t_i", "psi_i_write"},
    {"tau", "b_d"},          {"t_d", "q_d"},         {"tau", "q_d"}};
static const char *const coefs[] = {"pearson", "spearman", "dcor_v", "mi_linfoot"};

/* GET path of the server on port with token (NULL: none): the body as JSON (NULL when
 * it is not JSON), the status into *status. Fails the test when there is no answer. */
static json_t *api(int port, const char *token, const char *path, int *status)
{
    char headers[300] = "", *body = NULL;

    if (token != NULL)
        snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\n", token);
    if (http_get(HOST, port, path, headers[0] != '\0' ? headers : NULL, status, &body) !=
        0)
        fail_msg("pagecheck: no answer to GET %s", path);
    json_t *doc = json_loads(body, 0, NULL);
    free(body);
    return doc;
}

/* The number in v: a JSON number, or a string as the page's data-value attributes
 * hold them (JavaScript's shortest round-trip form, which strtod reads back exactly). */
static bool number_of(const json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    if (json_is_string(v)) {
        char *end = NULL;
        const char *s = json_string_value(v);
        *out = strtod(s, &end);
        return end != s && *end == '\0';
    }
    return false;
}

static void mismatch(struct pagecheck_counts *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void mismatch(struct pagecheck_counts *c, const char *fmt, ...)
{
    va_list ap;

    /* the first 20 say what is off; 20,000 points off would drown the log */
    if (c->mismatches < 20) {
        va_start(ap, fmt);
        fputs("pagecheck: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    } else if (c->mismatches == 20) {
        fputs("pagecheck: (further differences counted, not printed)\n", stderr);
    }
    c->mismatches++;
}

/* got (the page's) against want (the API's): both numbers within rel of want, or
 * both absent / null. */
static void compare(struct pagecheck_counts *c, const char *what, const json_t *got,
                    const json_t *want, double rel)
{
    double g = 0, w = 0;
    const bool has_g = number_of(got, &g), has_w = json_is_number(want);

    c->numbers++;
    if (has_w)
        w = json_number_value(want);
    if (has_g != has_w) {
        mismatch(c, "%s: the page has %s, the API %s", what, has_g ? "a number" : "none",
                 has_w ? "a number" : "none");
    } else if (has_w && !(fabs(g - w) <= rel * fabs(w))) {
        mismatch(c, "%s: the page has %.17g, the API %.17g", what, g, w);
    }
}

static void compare_value(struct pagecheck_counts *c, const char *what, const json_t *got,
                          double want, double rel)
{
    json_t *w = json_real(want);
    compare(c, what, got, w, rel);
    json_decref(w);
}

/* The data set name of the Vega view key, as JSON (the caller json_decref's); NULL when
 * the page drew no such view. */
static json_t *view_rows(struct webdriver *wd, const char *key, const char *name)
{
    json_t *args = json_pack("[s,s]", key, name);
    json_t *rows = webdriver_run(wd,
                                 "const v = (window.iocontendViews || {})[arguments[0]];"
                                 "return v ? v.data(arguments[1]) : null;",
                                 args, 0);
    json_decref(args);
    if (!json_is_array(rows)) {
        json_decref(rows);
        return NULL;
    }
    return rows;
}

/* view_rows that counts a view the API's answers call for but the page lacks. */
static json_t *drawn(struct webdriver *wd, const char *key, const char *name,
                     struct pagecheck_counts *c)
{
    json_t *rows = view_rows(wd, key, name);
    if (rows == NULL) {
        fprintf(stderr, "pagecheck: no chart %s with a data set %s\n", key, name);
        c->missing++;
    }
    return rows;
}

static const json_t *row_field(const json_t *rows, size_t i, const char *name)
{
    return json_object_get(json_array_get(rows, i), name);
}

/* Whether v may stand on a log axis (or any, when log is false). */
static bool usable(const json_t *v, bool log)
{
    return json_is_number(v) && isfinite(json_number_value(v)) &&
           (!log || json_number_value(v) > 0);
}

/* ---- per group ------------------------------------------------------------------- */

/* The coefficient table of group id against the association a. */
static void check_coefficients(struct webdriver *wd, const char *id, const json_t *a,
                               struct pagecheck_counts *c)
{
    json_t *args = json_pack("[s]", id);
    json_t *rows = webdriver_run(
        wd,
        "const f = document.querySelector('figure[data-table=\"' + arguments[0] +"
        " '/coefficients\"]');"
        "if (!f) return null;"
        "return [...f.querySelectorAll('tr[data-coef]')].map(r => ({coef: r.dataset.coef,"
        " value: r.cells[1].dataset.value ?? null, p: r.cells[2].dataset.value ?? null,"
        " floor: r.cells[3].dataset.value ?? null, low: r.cells[4].dataset.low ?? null,"
        " high: r.cells[4].dataset.high ?? null}));",
        args, 0);
    json_decref(args);
    if (!json_is_array(rows)) {
        fprintf(stderr, "pagecheck: no coefficient table of %s\n", id);
        c->missing++;
        json_decref(rows);
        return;
    }
    c->tables++;
    const json_t *sig = json_object_get(a, "significance");
    static const char *const names[] = {"pearson", "spearman", "dcor_v", "mi_linfoot",
                                        "width_ratio"};
    if (json_array_size(rows) != sizeof names / sizeof names[0])
        mismatch(c, "%s: %zu coefficient rows", id, json_array_size(rows));
    for (size_t i = 0; i < json_array_size(rows) && i < sizeof names / sizeof names[0];
         i++) {
        char what[160];
        const json_t *s = json_object_get(sig, names[i]);
        const json_t *want = i < 4 ? json_object_get(a, names[i])
                                   : json_object_get(json_object_get(a, "kde"), names[i]);
        if (strcmp(json_string_value(row_field(rows, i, "coef")), names[i]) != 0)
            mismatch(c, "%s: coefficient row %zu is not %s", id, i, names[i]);
        snprintf(what, sizeof what, "%s %s", id, names[i]);
        compare(c, what, row_field(rows, i, "value"), want, 0);
        snprintf(what, sizeof what, "%s %s p-value", id, names[i]);
        compare(c, what, row_field(rows, i, "p"), json_object_get(s, "p_value"), 0);
        snprintf(what, sizeof what, "%s %s noise floor", id, names[i]);
        compare(c, what, row_field(rows, i, "floor"), json_object_get(s, "noise_floor"),
                0);
        snprintf(what, sizeof what, "%s %s CI low", id, names[i]);
        compare(c, what, row_field(rows, i, "low"), json_object_get(s, "ci_low"), 0);
        snprintf(what, sizeof what, "%s %s CI high", id, names[i]);
        compare(c, what, row_field(rows, i, "high"), json_object_get(s, "ci_high"), 0);
    }
    json_decref(rows);
}

/* The T^D histogram of group id: bin by bin, and the mean ± 1.645 sd lines. */
static void check_histogram(struct webdriver *wd, int port, const char *token,
                            const char *id, struct pagecheck_counts *c)
{
    char url[256], key[96], what[160];
    int status = 0;

    snprintf(url, sizeof url, "/api/v1/groups/%s/table", id);
    json_t *table = api(port, token, url, &status);
    const json_t *h = json_object_get(table, "td_histogram");
    snprintf(key, sizeof key, "%s/histogram", id);
    json_t *bins = status == 200 ? drawn(wd, key, "bins", c) : NULL;
    json_t *band = bins != NULL ? view_rows(wd, key, "band") : NULL;
    if (bins != NULL) {
        const json_t *counts = json_object_get(h, "counts");
        const double first = json_number_value(json_object_get(h, "first_edge_s"));
        const double width = json_number_value(json_object_get(h, "bin_width_s"));
        c->charts++;
        if (json_array_size(bins) != json_array_size(counts))
            mismatch(c, "%s: %zu bins, the API %zu", key, json_array_size(bins),
                     json_array_size(counts));
        for (size_t b = 0; b < json_array_size(bins) && b < json_array_size(counts);
             b++) {
            snprintf(what, sizeof what, "%s bin %zu count", key, b);
            compare(c, what, row_field(bins, b, "count"), json_array_get(counts, b), 0);
            snprintf(what, sizeof what, "%s bin %zu x0", key, b);
            compare_value(c, what, row_field(bins, b, "x0"), first + (double)b * width,
                          1e-12);
        }
        snprintf(what, sizeof what, "%s band low", key);
        compare(c, what, row_field(band, 0, "s"), json_object_get(h, "band_low"), 0);
        snprintf(what, sizeof what, "%s band high", key);
        compare(c, what, row_field(band, 1, "s"), json_object_get(h, "band_high"), 0);
    }
    json_decref(band);
    json_decref(bins);
    json_decref(table);
}

/* The band's rows of the scatter of id against the KDE of a: its grid points where all
 * four are defined (and positive in log space). */
static void check_band(const json_t *rows, const char *key, const json_t *kde, bool log,
                       struct pagecheck_counts *c)
{
    static const char *const keys[] = {"x_grid", "q05", "q50", "q95"};
    static const char *const fields[] = {"x", "q05", "q50", "q95"};
    size_t defined = 0;
    char what[160];

    for (size_t p = 0; p < json_array_size(json_object_get(kde, "x_grid")); p++) {
        bool ok = true;
        for (int q = 0; q < 4; q++)
            ok = ok && usable(json_array_get(json_object_get(kde, keys[q]), p), log);
        for (int q = 0; ok && q < 4; q++) {
            snprintf(what, sizeof what, "%s band point %zu %s", key, p, fields[q]);
            compare(c, what, row_field(rows, defined, fields[q]),
                    json_array_get(json_object_get(kde, keys[q]), p), 0);
        }
        defined += ok;
    }
    if (json_array_size(rows) != defined)
        mismatch(c, "%s: %zu band points, the API %zu defined", key,
                 json_array_size(rows), defined);
}

/* The forest's rows against rf's x_grid and fit: none unless its OOB R² is above 0
 * (the page draws no fit that does worse than the mean). */
static void check_forest(const json_t *rows, const char *key, const json_t *rf, bool log,
                         struct pagecheck_counts *c)
{
    const json_t *xs = json_object_get(rf, "x_grid"), *fit = json_object_get(rf, "fit");
    const json_t *r2 = json_object_get(rf, "oob_r2");
    const bool drawn = json_is_number(r2) && json_number_value(r2) > 0;
    size_t used = 0;
    char what[160];

    for (size_t i = 0; drawn && i < json_array_size(xs); i++) {
        if (!usable(json_array_get(xs, i), log) || !usable(json_array_get(fit, i), log))
            continue;
        snprintf(what, sizeof what, "%s forest point %zu x", key, i);
        compare(c, what, row_field(rows, used, "x"), json_array_get(xs, i), 0);
        snprintf(what, sizeof what, "%s forest point %zu fit", key, i);
        compare(c, what, row_field(rows, used, "fit"), json_array_get(fit, i), 0);
        used++;
    }
    if (json_array_size(rows) != used)
        mismatch(c, "%s: %zu forest points, the API %zu", key, json_array_size(rows),
                 used);
}

/* The scatter of group id: its points those of /points for a's pair, in order; its
 * band a's KDE; its forest a's rf. */
static void check_scatter(struct webdriver *wd, int port, const char *token,
                          const char *id, const json_t *a, struct pagecheck_counts *c)
{
    char url[300], key[96], what[160];
    int status = 0;
    const json_t *kde = json_object_get(a, "kde");
    const bool log = json_is_string(json_object_get(kde, "space")) &&
                     strcmp(json_string_value(json_object_get(kde, "space")), "log") == 0;

    snprintf(url, sizeof url, "/api/v1/groups/%s/points?y=%s&x=%s", id,
             json_string_value(json_object_get(a, "y")),
             json_string_value(json_object_get(a, "x")));
    json_t *p = api(port, token, url, &status);
    snprintf(key, sizeof key, "%s/scatter", id);
    json_t *points = status == 200 ? drawn(wd, key, "points", c) : NULL;
    if (points != NULL) {
        const json_t *want = json_object_get(p, "points"), *e;
        size_t i, n = 0;
        c->charts++;
        json_array_foreach(want, i, e)
        {
            if (!usable(json_object_get(e, "x"), log) ||
                !usable(json_object_get(e, "y"), log))
                continue;
            const json_t *got = json_array_get(points, n++);
            const char *gid = json_string_value(json_object_get(got, "id"));
            if (gid == NULL ||
                strcmp(gid, json_string_value(json_object_get(e, "id"))) != 0)
                mismatch(c, "%s point %zu: job %s, the API's %s", key, i,
                         gid != NULL ? gid : "(none)",
                         json_string_value(json_object_get(e, "id")));
            snprintf(what, sizeof what, "%s point %zu x", key, i);
            compare(c, what, json_object_get(got, "x"), json_object_get(e, "x"), 0);
            snprintf(what, sizeof what, "%s point %zu y", key, i);
            compare(c, what, json_object_get(got, "y"), json_object_get(e, "y"), 0);
            c->points++;
        }
        if (json_array_size(points) != n)
            mismatch(c, "%s: %zu points drawn, the API %zu", key, json_array_size(points),
                     n);
        if (json_integer_value(json_object_get(p, "d")) !=
            json_integer_value(json_object_get(a, "d")))
            mismatch(c, "%s: /points d %lld, /association d %lld", key,
                     (long long)json_integer_value(json_object_get(p, "d")),
                     (long long)json_integer_value(json_object_get(a, "d")));
        json_t *band = view_rows(wd, key, "band");
        check_band(band, key, kde, log, c);
        json_decref(band);
        json_t *forest = view_rows(wd, key, "forest");
        check_forest(forest, key, json_object_get(a, "rf"), log, c);
        json_decref(forest);
    }
    json_decref(points);
    json_decref(p);
}

/* The sweep chart's rows of pair at coefficient coef, in the chart's order, into out;
 * their number. */
static size_t sweep_rows(const json_t *rows, const char *pair, const char *coef,
                         const json_t **out, size_t max)
{
    const json_t *r;
    size_t i, n = 0;

    json_array_foreach(rows, i, r)
    {
        const char *p = json_string_value(json_object_get(r, "pair"));
        const char *k = json_string_value(json_object_get(r, "coef"));
        if (p != NULL && k != NULL && strcmp(p, pair) == 0 && strcmp(k, coef) == 0 &&
            n < max)
            out[n++] = r;
    }
    return n;
}

/* One stored sweep of the API against the chart's rows. */
static void check_sweep_pair(const json_t *rows, const char *key, const json_t *sweep,
                             struct pagecheck_counts *c)
{
    const json_t *steps = json_object_get(sweep, "steps");
    char pair[96], what[200];

    snprintf(pair, sizeof pair, "%s ~ %s", json_string_value(json_object_get(sweep, "y")),
             json_string_value(json_object_get(sweep, "x")));
    for (size_t k = 0; k < sizeof coefs / sizeof coefs[0]; k++) {
        const json_t *got[512];
        size_t n = sweep_rows(rows, pair, coefs[k], got, 512);
        if (n != json_array_size(steps))
            mismatch(c, "%s %s %s: %zu points, the API %zu", key, pair, coefs[k], n,
                     json_array_size(steps));
        for (size_t i = 0; i < n && i < json_array_size(steps); i++) {
            const json_t *step = json_array_get(steps, i);
            snprintf(what, sizeof what, "%s %s %s k %zu interval", key, pair, coefs[k],
                     i + 1);
            compare(c, what, json_object_get(got[i], "granularity_s"),
                    json_object_get(step, "granularity_s"), 0);
            snprintf(what, sizeof what, "%s %s %s k %zu", key, pair, coefs[k], i + 1);
            /* 1e-14: the API writes 15 significant digits, while `report sweep`
             * inlines the stored objects' 17 */
            compare(c, what, json_object_get(got[i], "value"),
                    json_object_get(step, coefs[k]), 1e-14);
        }
    }
}

size_t pagecheck_sweep(struct webdriver *wd, int port, const char *token, const json_t *g,
                       const char *key, struct pagecheck_counts *c)
{
    const size_t before = c->mismatches + c->missing;
    const char *id = json_string_value(json_object_get(g, "id"));
    const json_t *listed = json_object_get(json_object_get(g, "stored"), "sweeps");
    const size_t n = json_is_array(listed) ? json_array_size(listed)
                                           : sizeof sweep_pairs / sizeof sweep_pairs[0];
    json_t *rows = NULL;
    size_t stored = 0;

    for (size_t i = 0; i < n; i++) {
        const char *y =
            json_is_array(listed)
                ? json_string_value(json_object_get(json_array_get(listed, i), "y"))
                : sweep_pairs[i][0];
        const char *x =
            json_is_array(listed)
                ? json_string_value(json_object_get(json_array_get(listed, i), "x"))
                : sweep_pairs[i][1];
        char url[300];
        int status = 0;
        snprintf(url, sizeof url, "/api/v1/groups/%s/sweep?y=%s&x=%s", id, y, x);
        json_t *sweep = api(port, token, url, &status);
        if (status != 200) {
            if (json_is_array(listed))
                mismatch(c, "%s: listed as stored, GET %s answered %d", key, url, status);
            json_decref(sweep);
            continue;
        }
        if (stored++ == 0) {
            rows = drawn(wd, key, "steps", c);
            c->charts += rows != NULL;
        }
        if (rows != NULL)
            check_sweep_pair(rows, key, sweep, c);
        json_decref(sweep);
    }
    json_decref(rows);
    c->sweeps += stored;
    return c->mismatches + c->missing - before;
}

/* Whether the page has drawn group id's section of charts: 1 yes, 0 no. */
static int charts_drawn(struct webdriver *wd, const char *id)
{
    json_t *args = json_pack("[s]", id);
    json_t *n =
        webdriver_run(wd,
                      "return document.querySelectorAll('section.detail[data-group=\"'"
                      " + arguments[0] + '\"]').length;",
                      args, 0);
    json_decref(args);
    const int out = json_integer_value(n) > 0;
    json_decref(n);
    return out;
}

/* Clicks the button that draws group id's charts (a group below d_min) and waits
 * until the page has drawn them. 0 when it did; -1 when there is no such button or
 * the drawing failed (said on stderr). */
static int expand(struct webdriver *wd, const char *id)
{
    json_t *args = json_pack("[s]", id);
    json_t *done =
        webdriver_run(wd,
                      "const done = arguments[arguments.length - 1];"
                      "const b = document.querySelector('button[data-expand=\"' + "
                      "arguments[0] + '\"]');"
                      "if (!b) { done('no button'); return; }"
                      "b.click();"
                      "Promise.resolve(window.iocontendDone).then(() => done(1),"
                      " e => done(String(e && e.stack || e)));",
                      args, 1);
    json_decref(args);
    const int rc = json_is_integer(done) && charts_drawn(wd, id) ? 0 : -1;
    if (rc != 0)
        fprintf(stderr, "pagecheck: %s: drawing its charts: %s\n", id,
                json_is_string(done) ? json_string_value(done) : "no section drawn");
    json_decref(done);
    return rc;
}

size_t pagecheck_groups(struct webdriver *wd, int port, const char *token,
                        struct pagecheck_counts *c)
{
    const size_t before = c->mismatches + c->missing;
    int status = 0;
    json_t *groups = api(port, token, "/api/v1/groups", &status);
    const json_t *list = json_object_get(groups, "groups"), *g;
    size_t i;

    if (status != 200 || !json_is_array(list))
        fail_msg("pagecheck: /api/v1/groups answered %d", status);
    json_array_foreach(list, i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        const json_t *stored = json_object_get(g, "stored");
        char url[256];
        c->groups++;
        snprintf(url, sizeof url, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read", id);
        json_t *a = api(port, token, url, &status);
        const json_t *reason = json_object_get(a, "reason");
        const bool below = status == 200 && json_is_string(reason) &&
                           strcmp(json_string_value(reason), "d_below_min") == 0;
        const int drawn = charts_drawn(wd, id);
        if (below && drawn != 0) {
            mismatch(c, "%s: below d_min, its charts drawn before they were asked for",
                     id);
        } else if (below && expand(wd, id) != 0) {
            fprintf(stderr, "pagecheck: %s: below d_min, no button draws its charts\n",
                    id);
            c->missing++;
        } else if (!below && drawn == 0) {
            fprintf(stderr, "pagecheck: %s: at or above d_min, no charts drawn\n", id);
            c->missing++;
        }
        if (status == 200) {
            check_coefficients(wd, id, a, c);
            check_scatter(wd, port, token, id, a, c);
        }
        if (!json_is_false(json_object_get(stored, "table")))
            check_histogram(wd, port, token, id, c);
        snprintf(url, sizeof url, "%s/sweep", id);
        pagecheck_sweep(wd, port, token, g, url, c);
        json_decref(a);
    }
    json_decref(groups);
    return c->mismatches + c->missing - before;
}

/* ---- the whole system ------------------------------------------------------------ */

size_t pagecheck_coverage(struct webdriver *wd, int port, const char *token,
                          struct pagecheck_counts *c)
{
    const size_t before = c->mismatches + c->missing;
    json_t *asked = webdriver_run(
        wd,
        "const f = document.querySelector('figure[data-chart=\"coverage\"]');"
        "if (!f || !f.dataset.points) return null;"
        "return f.dataset.points + (f.dataset.from ? '&from=' + f.dataset.from +"
        " '&to=' + f.dataset.to : '');",
        NULL, 0);
    char url[256], what[160];
    int status = 0;

    if (!json_is_string(asked)) {
        fprintf(stderr, "pagecheck: no coverage chart with its points\n");
        c->missing++;
        json_decref(asked);
        return 1;
    }
    snprintf(url, sizeof url, "/api/v1/coverage?fs=all&points=%s",
             json_string_value(asked));
    json_decref(asked);
    json_t *cov = api(port, token, url, &status);
    const json_t *b = json_object_get(
        json_array_get(json_object_get(cov, "filesystems"), 0), "buckets");
    json_t *rows = status == 200 ? drawn(wd, "coverage", "buckets", c) : NULL;
    if (rows != NULL) {
        static const char *const keys[] = {"start_ms", "end_ms", "d_min",
                                           "d_max",    "s_min",  "s_max"};
        const size_t n = json_array_size(json_object_get(b, "start_ms"));
        c->charts++;
        if (n == 0 || json_array_size(rows) != n)
            mismatch(c, "coverage: %zu buckets drawn, the API %zu", json_array_size(rows),
                     n);
        for (size_t i = 0; i < n && i < json_array_size(rows); i++) {
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                snprintf(what, sizeof what, "coverage bucket %zu %s", i, keys[k]);
                compare(c, what, row_field(rows, i, keys[k]),
                        json_array_get(json_object_get(b, keys[k]), i), 0);
            }
            c->buckets++;
        }
    }
    json_decref(rows);
    json_decref(cov);
    return c->mismatches + c->missing - before;
}

/* The rows of table sel as the data-value attributes of their cells (null where a
 * cell has none), and each row's data-job. */
static json_t *table_values(struct webdriver *wd, const char *sel)
{
    json_t *args = json_pack("[s]", sel);
    json_t *rows = webdriver_run(
        wd,
        "const t = document.querySelector(arguments[0]);"
        "if (!t) return null;"
        "return [...t.tBodies[0].rows].map(r => ({job: r.dataset.job ?? null,"
        " cells: [...r.cells].map(td => td.dataset.value ?? null)}));",
        args, 0);
    json_decref(args);
    if (!json_is_array(rows)) {
        json_decref(rows);
        return NULL;
    }
    return rows;
}

size_t pagecheck_slowdowns(struct webdriver *wd, int port, const char *token,
                           struct pagecheck_counts *c)
{
    const size_t before = c->mismatches + c->missing;
    int status = 0;
    json_t *s = api(port, token, "/api/v1/slowdowns?limit=20", &status);
    json_t *rows = status == 200 ? table_values(wd, "table#slowdowns") : NULL;
    const json_t *want = json_object_get(s, "slowdowns");
    /* the table's columns: rank, job, group, y, q50, q95, ratio, percentile, cdf */
    static const struct {
        size_t cell;
        const char *field;
    } cols[] = {{0, "rank"},  {3, "y"},          {4, "q50"}, {5, "q95"},
                {6, "ratio"}, {7, "percentile"}, {8, "cdf"}};
    char what[160];

    if (status == 200 && rows == NULL) {
        fprintf(stderr, "pagecheck: no slowdown table\n");
        c->missing++;
    }
    if (rows != NULL) {
        c->tables++;
        if (json_array_size(rows) != json_array_size(want))
            mismatch(c, "slowdowns: %zu rows, the API %zu", json_array_size(rows),
                     json_array_size(want));
        for (size_t i = 0; i < json_array_size(rows) && i < json_array_size(want); i++) {
            const json_t *r = json_array_get(rows, i), *w = json_array_get(want, i);
            const char *job = json_string_value(json_object_get(r, "job"));
            if (job == NULL ||
                strcmp(job, json_string_value(json_object_get(w, "id"))) != 0)
                mismatch(c, "slowdowns row %zu: job %s, the API's %s", i,
                         job != NULL ? job : "(none)",
                         json_string_value(json_object_get(w, "id")));
            for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
                snprintf(what, sizeof what, "slowdowns row %zu %s", i, cols[k].field);
                compare(c, what,
                        json_array_get(json_object_get(r, "cells"), cols[k].cell),
                        json_object_get(w, cols[k].field), 0);
            }
        }
    }
    json_decref(rows);
    json_decref(s);
    return c->mismatches + c->missing - before;
}

size_t pagecheck_prediction(struct webdriver *wd, int port, const char *token,
                            struct pagecheck_counts *c)
{
    const size_t before = c->mismatches + c->missing;
    json_t *shown =
        webdriver_run(wd,
                      "const t = document.querySelector('table#prediction');"
                      "if (!t) return null;"
                      "const v = {group: t.dataset.group, x_value: t.dataset.xValue};"
                      "for (const td of t.tBodies[0].rows[0].cells) v[td.dataset.field] ="
                      " td.dataset.value ?? null;"
                      "return v;",
                      NULL, 0);
    char url[300], what[160];
    int status = 0;

    if (!json_is_object(shown)) {
        fprintf(stderr, "pagecheck: no prediction table\n");
        c->missing++;
        json_decref(shown);
        return 1;
    }
    c->tables++;
    snprintf(url, sizeof url, "/api/v1/groups/%s/predict?y=t_d&x=psi_d_read&x_value=%s",
             json_string_value(json_object_get(shown, "group")),
             json_string_value(json_object_get(shown, "x_value")));
    json_t *p = api(port, token, url, &status);
    if (status != 200) {
        mismatch(c, "GET %s answered %d", url, status);
    } else {
        static const char *const fields[] = {"q05", "q50", "q95", "width"};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
            snprintf(what, sizeof what, "prediction %s", fields[k]);
            compare(c, what, json_object_get(shown, fields[k]),
                    json_object_get(p, fields[k]), 0);
        }
        const json_t *rf = json_object_get(p, "rf");
        const json_t *r2 = json_object_get(rf, "oob_r2");
        /* no better than the mean out of bag: the fit is not shown, as on the scatter */
        if (json_is_number(r2) && json_number_value(r2) <= 0) {
            if (!json_is_null(json_object_get(shown, "rf.fit")))
                mismatch(c, "prediction rf.fit shown at an OOB R\xc2\xb2 of %g",
                         json_number_value(r2));
        } else {
            compare(c, "prediction rf.fit", json_object_get(shown, "rf.fit"),
                    json_object_get(rf, "fit"), 0);
        }
        compare(c, "prediction rf.oob_r2", json_object_get(shown, "rf.oob_r2"),
                json_object_get(rf, "oob_r2"), 0);
    }
    json_decref(p);
    json_decref(shown);
    return c->mismatches + c->missing - before;
}

/* ---- the page -------------------------------------------------------------------- */

int pagecheck_open(struct webdriver *wd, const char *url, size_t *console_errors)
{
    json_decref(webdriver_console(wd)); /* drop what earlier pages left */
    webdriver_open(wd, url);
    json_t *done =
        webdriver_run(wd,
                      "const done = arguments[arguments.length - 1];"
                      "Promise.resolve(window.iocontendDone).then(() => done(1),"
                      " e => done(String(e && e.stack || e)));",
                      NULL, 1);
    const int rc = json_is_integer(done) ? 0 : -1;
    if (rc != 0)
        fprintf(stderr, "pagecheck: %s: the page's scripts failed: %s\n", url,
                json_string_value(done));
    json_decref(done);
    json_t *console = webdriver_console(wd);
    *console_errors += webdriver_errors(console);
    json_decref(console);
    return rc;
}

size_t pagecheck_views(struct webdriver *wd, int port, const char *token,
                       struct pagecheck_counts *c)
{
    size_t problems = pagecheck_groups(wd, port, token, c);
    problems += pagecheck_coverage(wd, port, token, c);
    problems += pagecheck_slowdowns(wd, port, token, c);
    return problems + pagecheck_prediction(wd, port, token, c);
}

/* The <p class="error"> elements of the page, each printed; their number. */
static size_t errors_shown(struct webdriver *wd)
{
    json_t *shown =
        webdriver_run(wd,
                      "return [...document.querySelectorAll('p.error')].map(p =>"
                      " (p.dataset.chart || '?') + ': ' + p.textContent);",
                      NULL, 0);
    for (size_t i = 0; i < json_array_size(shown); i++)
        fprintf(stderr, "pagecheck: the page shows an error: %s\n",
                json_string_value(json_array_get(shown, i)));
    const size_t n = json_array_size(shown);
    json_decref(shown);
    return n;
}

int pagecheck_page(struct webdriver *wd, int port, const char *path, const char *token,
                   struct pagecheck_counts *counts)
{
    struct pagecheck_counts mine = {0}, *c = counts != NULL ? counts : &mine;
    char url[512];
    int rc;

    snprintf(url, sizeof url, "http://" HOST ":%d%s", port, path);
    if (token != NULL) {
        /* the session storage is the origin's: open the page once to reach it */
        size_t ignored = 0;
        json_t *args = json_pack("[s]", token);
        (void)pagecheck_open(wd, url, &ignored);
        json_decref(webdriver_run(
            wd, "sessionStorage.setItem('iocontend-token', arguments[0]); return 1;",
            args, 0));
        json_decref(args);
    }
    size_t console_errors = 0;
    rc = pagecheck_open(wd, url, &console_errors);
    const size_t shown = errors_shown(wd);
    c->console_errors += console_errors;
    c->errors_shown += shown;
    const size_t problems = pagecheck_views(wd, port, token, c);
    fprintf(stderr,
            "pagecheck %s: %zu groups, %zu charts and %zu tables compared, %zu numbers "
            "(%zu points, %zu buckets), %zu off, %zu missing, %zu errors shown, %zu "
            "console errors\n",
            url, c->groups, c->charts, c->tables, c->numbers, c->points, c->buckets,
            c->mismatches, c->missing, c->errors_shown, c->console_errors);
    if (rc != 0 || problems > 0 || shown > 0 || console_errors > 0)
        return -1;
    return 0;
}
