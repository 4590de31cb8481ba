/* test_night.c: `iocontend report night` on the sample data (iocontend-gen, one day,
 * 60 jobs a group): a first ingest and analyze, then a second ingest into the period
 * (20 more jobs of one group and three bad files, two of them named as markup and
 * as a spreadsheet formula) and analyze again. The report lists that ingest and its
 * quarantined files with the reason (the names as text in the page, a ' before the
 * formula in the CSV), the group that changed with
 * its stored coefficients; its slowdowns and coverage equal /api/v1/slowdowns and
 * /api/v1/coverage for the same period; its CSV files equal its JSON; its HTML opens
 * in headless chromium with no console error and no request beyond the file, and its
 * coverage charts hold the buckets of /api/v1/coverage?points=N; bad options are
 * usage errors and --help never acts. */
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

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SEED  20240601UL
#define LATER 20 /* jobs of the last group held back for the second ingest */
#define BAD   3  /* bad files of the second ingest */
/* Before the sample's first day (2026-11-20), in epoch milliseconds: a period from
 * here to the end of the second ingest holds every job, sample and run. */
#define SAMPLE_FROM_MS 1795046400000LL
/* The API answers reals to 15 digits, the report to 17. */
#define TOL 1e-13
/* The buckets of the report's coverage chart (NIGHT_COVERAGE_POINTS). */
#define NIGHT_POINTS 1100

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512], later[600], conf[600];
    char later_group[64]; /* the group the second ingest added jobs to */
    long long t0_ms;      /* between the two ingests */
    long long t1_ms;      /* after the second analyze */
} fx;

/* The wall clock, which the database's now() reads too. */
static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Moves the last LATER logs (by name) of the sample's last group into fx.later. */
static int hold_back(void)
{
    char group_dir[700], from[1400], to[1400];
    struct dirent **names = NULL;

    snprintf(group_dir, sizeof group_dir, "%s/darshan/npb", fx.dir);
    snprintf(fx.later, sizeof fx.later, "%s/later", fx.dir);
    if (mkdir(fx.later, 0755) != 0)
        return -1;
    int n = scandir(group_dir, &names, NULL, alphasort);
    int moved = 0;
    for (int i = n - 1; i >= 0; i--) {
        if (names[i]->d_name[0] != '.' && moved < LATER) {
            snprintf(from, sizeof from, "%s/%s", group_dir, names[i]->d_name);
            snprintf(to, sizeof to, "%s/%s", fx.later, names[i]->d_name);
            if (rename(from, to) == 0)
                moved++;
        }
        free(names[i]);
    }
    free(names);
    return moved == LATER ? 0 : -1;
}

/* A bad file named like a spreadsheet formula, ingested by that name: the
 * quarantine keeps the name ingest was given, so that its path starts with '='. */
#define FORMULA_NAME "=HYPERLINK(\"#x\",\"click me\").parser.txt"
/* A bad file whose name is markup: the page must show it as text. */
#define MARKUP_NAME "<img src=x onerror=window.pwned=1>.parser.txt"

/* The second ingest, one run: the held-back logs and two bad files in fx.later, and
 * FORMULA_NAME given by its own name from the directory that holds it; its exit
 * status (1: files quarantined). */
static int second_ingest(void)
{
    char path[800], named[700], cwd[4096], bin[4096];

    snprintf(path, sizeof path, "%s/bad.parser.txt", fx.later);
    if (testutil_write_file(path, "garbage\tline\n", 13) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/" MARKUP_NAME, fx.later);
    if (testutil_write_file(path, "markup\tline\n", 12) != 0)
        return -1;
    snprintf(named, sizeof named, "%s/named", fx.dir);
    snprintf(path, sizeof path, "%s/" FORMULA_NAME, named);
    /* the binary by its whole path: the ingest runs from named */
    if (mkdir(named, 0755) != 0 ||
        testutil_write_file(path, "formula\tline\n", 13) != 0 ||
        realpath(fx.db.bin, bin) == NULL || getcwd(cwd, sizeof cwd) == NULL)
        return -1;
    const size_t len = strlen(bin);
    if (len >= sizeof fx.db.bin)
        return -1;
    memcpy(fx.db.bin, bin, len + 1);
    if (chdir(named) != 0)
        return -1;
    int rc = pgfixture_cmd(&fx.db, "--quiet --config '%s' ingest darshan '%s' '%s'",
                           fx.conf, fx.later, FORMULA_NAME);
    if (chdir(cwd) != 0)
        return -1;
    /* ingest now stores a relative path from its working directory (issue 30), so
     * the entry is made as older versions stored it, by the name given: the path
     * that starts with '=' which the report must keep from being a formula. */
    char *done = pgfixture_query(&fx.db,
                                 "UPDATE ingest_errors SET path = $1 "
                                 "WHERE right(path, length($1) + 1) = '/' || $1 "
                                 "RETURNING path",
                                 FORMULA_NAME);
    bool made = done != NULL && strcmp(done, FORMULA_NAME) == 0;
    free(done);
    return made ? rc : -1;
}

static int group_setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (sample_generate(fx.dir, SEED, "--days 1 --jobs-per-group 60") != 0 ||
        hold_back() != 0 || sample_load(&fx.db, fx.dir) != 0)
        return -1;
    /* the database's clock is this machine's: a margin either side of t0 */
    testutil_sleep_s(0.3);
    fx.t0_ms = now_ms();
    testutil_sleep_s(0.3);
    /* exit 1: the bad files are quarantined */
    if (second_ingest() != 1)
        return -1;
    int rc =
        pgfixture_cmd(&fx.db, "--quiet --config '%s' analyze --permutations 0", fx.conf);
    if (rc != 0 && rc != 1)
        return -1;
    testutil_sleep_s(0.3);
    fx.t1_ms = now_ms();
    PGconn *c = pgfixture_connect(&fx.db);
    char *g = c != NULL ? pgfixture_value(c, "SELECT group_id FROM jobs WHERE "
                                             "source_path LIKE '%/later/%' LIMIT 1")
                        : NULL;
    if (c != NULL)
        PQfinish(c);
    if (g == NULL || g[0] == '\0') {
        free(g);
        return -1;
    }
    snprintf(fx.later_group, sizeof fx.later_group, "%s", g);
    free(g);
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------
 */

/* Runs `report night --from FROM --to TO --out OUT ARGS` (times in epoch ms);
 * returns its exit status. */
static int night(long long from_ms, long long to_ms, const char *out, const char *args)
{
    return pgfixture_cmd(&fx.db,
                         "--quiet --config '%s' report night --from %lld --to %lld "
                         "--out '%s' %s",
                         fx.conf, from_ms, to_ms, out, args);
}

/* The JSON report of [from_ms, to_ms), parsed (json_decref); fails unless it ran and
 * exited want. */
static json_t *night_json(long long from_ms, long long to_ms, int want)
{
    char out[700];
    json_error_t jerr;

    snprintf(out, sizeof out, "%s/night-%lld.json", fx.db.state_dir, from_ms);
    assert_int_equal(night(from_ms, to_ms, out, "--format json"), want);
    json_t *doc = json_load_file(out, 0, &jerr);
    if (doc == NULL)
        fail_msg("%s: %s", out, jerr.text);
    return doc;
}

/* a and b equal as JSON, reals within TOL relative; path names where they differ. */
static bool same(json_t *a, json_t *b, const char *path)
{
    if (json_is_number(a) && json_is_number(b)) {
        const double x = json_number_value(a), y = json_number_value(b);
        if (fabs(x - y) <= TOL * fmax(fabs(x), fabs(y)))
            return true;
        print_error("%s: %.17g against %.17g\n", path, x, y);
        return false;
    }
    if (json_typeof(a) != json_typeof(b)) {
        print_error("%s: of another type\n", path);
        return false;
    }
    char sub[512];
    if (json_is_object(a)) {
        const char *key;
        json_t *v;
        if (json_object_size(a) != json_object_size(b)) {
            print_error("%s: %zu keys against %zu\n", path, json_object_size(a),
                        json_object_size(b));
            return false;
        }
        json_object_foreach(a, key, v)
        {
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            json_t *w = json_object_get(b, key);
            if (w == NULL) {
                print_error("%s: missing\n", sub);
                return false;
            }
            if (!same(v, w, sub))
                return false;
        }
        return true;
    }
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b)) {
            print_error("%s: %zu items against %zu\n", path, json_array_size(a),
                        json_array_size(b));
            return false;
        }
        for (size_t i = 0; i < json_array_size(a); i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!same(json_array_get(a, i), json_array_get(b, i), sub))
                return false;
        }
        return true;
    }
    if (json_equal(a, b))
        return true;
    print_error("%s: differs\n", path);
    return false;
}

static const char *text(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    if (s == NULL)
        fail_msg("%s is not a string", key);
    return s;
}

static long long integer(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_integer(v))
        fail_msg("%s is not an integer", key);
    return (long long)json_integer_value(v);
}

/* The entry of the quarantined list q whose path ends with name. */
static const json_t *quarantined_named(const json_t *q, const char *name)
{
    for (size_t i = 0; i < json_array_size(q); i++) {
        const char *path = text(json_array_get(q, i), "path");
        const size_t n = strlen(path), k = strlen(name);
        if (n >= k && strcmp(path + n - k, name) == 0)
            return json_array_get(q, i);
    }
    fail_msg("no quarantined file named %s", name);
    return NULL;
}

/* ---- what was ingested, quarantined and changed --------------------------------------
 */

static void the_night_lists_the_second_ingest_and_its_quarantined_file(void **state)
{
    (void)state;
    json_t *doc = night_json(fx.t0_ms, fx.t1_ms, 1); /* 1: a file quarantined */
    const json_t *in = json_object_get(doc, "ingest");
    const json_t *runs = json_object_get(in, "runs");

    assert_string_equal(text(doc, "report"), "night");
    assert_int_equal(integer(doc, "from_ms"), fx.t0_ms);
    assert_int_equal(integer(doc, "to_ms"), fx.t1_ms);
    /* the second ingest alone: the first three runs ended before t0 */
    assert_int_equal(json_array_size(runs), 1);
    const json_t *run = json_array_get(runs, 0);
    assert_string_equal(text(run, "kind"), "darshan");
    assert_int_equal(integer(run, "files"), LATER + BAD);
    assert_int_equal(integer(run, "loaded"), LATER);
    assert_int_equal(integer(run, "quarantined"), BAD);
    assert_int_equal(integer(run, "jobs"), LATER);
    assert_true(json_is_false(json_object_get(run, "failed")));
    assert_int_equal(integer(in, "quarantined"), BAD);
    /* the bad files with their reasons, as `quarantine list` gives them */
    const json_t *q = json_object_get(doc, "quarantined");
    assert_int_equal(json_array_size(q), BAD);
    assert_string_equal(text(quarantined_named(q, FORMULA_NAME), "path"), FORMULA_NAME);
    assert_non_null(
        strstr(text(quarantined_named(q, MARKUP_NAME), "path"), "later/" MARKUP_NAME));
    const json_t *bad = quarantined_named(q, "later/bad.parser.txt");
    assert_int_equal(integer(bad, "line"), 1);
    assert_string_equal(text(bad, "status"), "parse");
    assert_non_null(strstr(text(bad, "message"), "expected"));
    char *listed = pgfixture_run(&fx.db, "quarantine list --json", &(int){0});
    assert_non_null(listed);
    assert_non_null(strstr(listed, text(bad, "message")));
    free(listed);
    /* the one group that gained jobs, its association recomputed, no history */
    const json_t *groups = json_object_get(doc, "groups");
    assert_non_null(strstr(text(groups, "history"), "not recorded"));
    const json_t *changed = json_object_get(groups, "changed");
    assert_int_equal(json_array_size(changed), 1);
    const json_t *g = json_array_get(changed, 0);
    assert_string_equal(text(g, "group"), fx.later_group);
    assert_int_equal(integer(g, "jobs_added"), LATER);
    assert_int_equal(integer(g, "jobs"), 60);
    const json_t *assoc = json_object_get(g, "associations");
    assert_true(json_array_size(assoc) >= 1);
    json_t *a = json_array_get(assoc, 0);
    assert_true(json_is_null(json_object_get(a, "previous")));
    /* its coefficients are the stored ones the API serves */
    char route[200];
    snprintf(route, sizeof route,
             "/api/v1/groups/%s/association?y=t_d&x=psi_d_read&granularity=%g",
             fx.later_group, json_number_value(json_object_get(a, "granularity_s")));
    json_t *api = server_get_json(&fx.srv, route, NULL, 200);
    assert_int_equal(integer(a, "d"), integer(api, "d"));
    static const char *const coefs[] = {"pearson", "spearman", "dcor_v", "mi_linfoot"};
    for (size_t i = 0; i < sizeof coefs / sizeof coefs[0]; i++) {
        assert_true(
            same(json_object_get(a, coefs[i]), json_object_get(api, coefs[i]), coefs[i]));
    }
    json_decref(api);
    /* nothing ran in that wall-clock period on the jobs' clock */
    assert_int_equal(integer(json_object_get(doc, "slowdowns"), "jobs"), 0);
    json_decref(doc);
}

static void the_slowdowns_and_coverage_equal_the_api(void **state)
{
    char route[200];

    (void)state;
    json_t *doc = night_json(SAMPLE_FROM_MS, fx.t1_ms, 1); /* 1: jobs set apart */
    /* every run: two of darshan, two of iostat */
    assert_int_equal(
        json_array_size(json_object_get(json_object_get(doc, "ingest"), "runs")), 4);
    assert_int_equal(
        json_array_size(json_object_get(json_object_get(doc, "groups"), "changed")), 3);
    snprintf(route, sizeof route, "/api/v1/slowdowns?from=%lld&to=%lld", SAMPLE_FROM_MS,
             fx.t1_ms);
    json_t *api = server_get_json(&fx.srv, route, NULL, 200);
    json_t *sl = json_object_get(doc, "slowdowns");
    assert_true(integer(sl, "jobs") == 3 * 60);
    assert_true(json_array_size(json_object_get(sl, "slowdowns")) > 0);
    assert_true(same(sl, api, "slowdowns"));
    json_decref(api);
    snprintf(route, sizeof route, "/api/v1/coverage?from=%lld&to=%lld", SAMPLE_FROM_MS,
             fx.t1_ms);
    api = server_get_json(&fx.srv, route, NULL, 200);
    json_t *cov = json_object_get(doc, "coverage");
    assert_int_equal(json_array_size(json_object_get(cov, "filesystems")), 3);
    assert_true(same(cov, api, "coverage"));
    json_decref(api);
    json_decref(doc);
}

/* ---- CSV ------------------------------------------------------------------------------
 */

/* A CSV file as rows of fields (RFC 4180 quoting; no line ends inside fields here). */
struct csv {
    char *text;
    char **fields; /* row r, column c: fields[r * cols + c] */
    size_t rows, cols;
};

static void csv_free(struct csv *c)
{
    free(c->text);
    free(c->fields);
    memset(c, 0, sizeof *c);
}

static void csv_read(const char *dir, const char *file, struct csv *c)
{
    char path[800];
    size_t cap = 1024, n = 0, cols = 0, len = 0;

    memset(c, 0, sizeof *c);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    c->text = testutil_read_file(path, &len);
    if (c->text == NULL)
        fail_msg("cannot read %s", path);
    c->fields = malloc(cap * sizeof *c->fields);
    assert_non_null(c->fields);
    char *p = c->text;
    size_t in_row = 0;
    while (*p != '\0') {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    assert_true(*p != '\0');
                    *out++ = *p++;
                }
            }
        } else {
            while (*p != ',' && *p != '\n' && *p != '\0')
                out++, p++;
        }
        const char end = *p;
        *out = '\0';
        if (n == cap) {
            cap *= 2;
            c->fields = realloc(c->fields, cap * sizeof *c->fields);
            assert_non_null(c->fields);
        }
        c->fields[n++] = start;
        in_row++;
        if (end != '\0')
            p++;
        if (end == '\n' || end == '\0') {
            if (cols == 0)
                cols = in_row;
            if (in_row != cols)
                fail_msg("%s: a row of %zu fields, the header has %zu", file, in_row,
                         cols);
            in_row = 0;
        }
    }
    c->cols = cols;
    c->rows = cols > 0 ? n / cols - 1 : 0; /* without the header */
}

/* Field of row r (0: the first after the header) in the column named col. */
static const char *cell(const struct csv *c, size_t r, const char *col)
{
    for (size_t k = 0; k < c->cols; k++) {
        if (strcmp(c->fields[k], col) == 0)
            return c->fields[(r + 1) * c->cols + k];
    }
    fail_msg("no column %s", col);
    return NULL;
}

/* A CSV field equals a JSON value: the same text (after a ' when it starts as a
 * spreadsheet formula would: =, +, -, @, a tab or a carriage return), integer or
 * real (TOL); empty for null. */
static bool field_is(const char *f, const json_t *v, const char *what)
{
    char *end;
    bool ok;

    if (v == NULL || json_is_null(v)) {
        ok = f[0] == '\0';
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        const bool formula = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
        ok = (!formula || f[0] == '\'') && strcmp(f + formula, s) == 0;
    } else if (json_is_boolean(v)) {
        ok = strcmp(f, json_is_true(v) ? "true" : "false") == 0;
    } else {
        const double x = strtod(f, &end), y = json_number_value(v);
        ok = *end == '\0' && end != f && fabs(x - y) <= TOL * fmax(fabs(x), fabs(y));
    }
    if (!ok)
        print_error("%s: CSV '%s' against JSON\n", what, f);
    return ok;
}

/* Every row of rows has its columns cols in the CSV's row of the same index (from
 * row first). */
static void rows_equal(const struct csv *c, size_t first, const json_t *rows,
                       const char *const *cols, size_t n_cols)
{
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const json_t *row = json_array_get(rows, r);
        for (size_t k = 0; k < n_cols; k++)
            assert_true(field_is(cell(c, first + r, cols[k]),
                                 json_object_get(row, cols[k]), cols[k]));
    }
}

static void the_csv_sections_equal_the_json(void **state)
{
    char dir[700];
    struct csv c;

    (void)state;
    snprintf(dir, sizeof dir, "%s/night-csv", fx.db.state_dir);
    json_t *doc = night_json(SAMPLE_FROM_MS, fx.t1_ms, 1);
    assert_int_equal(night(SAMPLE_FROM_MS, fx.t1_ms, dir, "--format csv"), 1);

    const json_t *runs = json_object_get(json_object_get(doc, "ingest"), "runs");
    static const char *const run_cols[] = {
        "id",     "kind",    "started_at",  "failed", "seconds", "files",
        "loaded", "skipped", "quarantined", "jobs",   "samples"};
    csv_read(dir, "ingest_runs.csv", &c);
    assert_int_equal(c.rows, json_array_size(runs));
    rows_equal(&c, 0, runs, run_cols, sizeof run_cols / sizeof run_cols[0]);
    csv_free(&c);

    const json_t *q = json_object_get(doc, "quarantined");
    static const char *const q_cols[] = {"path",    "line",       "status",
                                         "message", "first_seen", "last_seen"};
    csv_read(dir, "quarantined.csv", &c);
    assert_int_equal(c.rows, BAD);
    rows_equal(&c, 0, q, q_cols, sizeof q_cols / sizeof q_cols[0]);
    /* the formula's name reads back as text: a ' first, quoted for its commas */
    size_t formulas = 0;
    for (size_t i = 0; i < c.rows; i++)
        formulas += strcmp(cell(&c, i, "path"), "'" FORMULA_NAME) == 0;
    assert_int_equal(formulas, 1);
    char raw_path[800];
    snprintf(raw_path, sizeof raw_path, "%s/quarantined.csv", dir);
    char *raw = testutil_read_file(raw_path, &(size_t){0});
    assert_non_null(raw);
    assert_non_null(
        strstr(raw, "\n\"'=HYPERLINK(\"\"#x\"\",\"\"click me\"\").parser.txt\","));
    free(raw);
    csv_free(&c);

    const json_t *changed = json_object_get(json_object_get(doc, "groups"), "changed");
    csv_read(dir, "groups.csv", &c);
    size_t r = 0;
    for (size_t i = 0; i < json_array_size(changed); i++) {
        const json_t *g = json_array_get(changed, i);
        const json_t *list = json_object_get(g, "associations");
        for (size_t k = 0; k < json_array_size(list); k++, r++) {
            const json_t *a = json_array_get(list, k);
            assert_true(field_is(cell(&c, r, "group"), json_object_get(g, "group"), "g"));
            assert_true(field_is(cell(&c, r, "name"), json_object_get(g, "name"), "n"));
            assert_true(field_is(cell(&c, r, "jobs_added"),
                                 json_object_get(g, "jobs_added"), "jobs_added"));
            static const char *const a_cols[] = {"granularity_s", "space",    "d",
                                                 "pearson",       "spearman", "dcor_v",
                                                 "mi_linfoot"};
            for (size_t k2 = 0; k2 < sizeof a_cols / sizeof a_cols[0]; k2++)
                assert_true(field_is(cell(&c, r, a_cols[k2]),
                                     json_object_get(a, a_cols[k2]), a_cols[k2]));
        }
    }
    assert_int_equal(c.rows, r);
    csv_free(&c);

    const json_t *sl = json_object_get(doc, "slowdowns");
    const json_t *ranked = json_object_get(sl, "slowdowns");
    const json_t *apart = json_object_get(sl, "apart");
    static const char *const s_cols[] = {"rank", "id", "jobid", "group", "start_ms",
                                         "y",    "x",  "q50",   "ratio", "percentile"};
    static const char *const a_cols[] = {"id", "jobid", "group", "start_ms", "reason"};
    csv_read(dir, "slowdowns.csv", &c);
    assert_int_equal(c.rows, json_array_size(ranked) + json_array_size(apart));
    assert_true(json_array_size(apart) > 0); /* the planted hole */
    rows_equal(&c, 0, ranked, s_cols, sizeof s_cols / sizeof s_cols[0]);
    rows_equal(&c, json_array_size(ranked), apart, a_cols,
               sizeof a_cols / sizeof a_cols[0]);
    assert_string_equal(cell(&c, 0, "list"), "ranked");
    assert_string_equal(cell(&c, c.rows - 1, "list"), "apart");
    csv_free(&c);

    const json_t *fss = json_object_get(json_object_get(doc, "coverage"), "filesystems");
    static const char *const f_cols[] = {"fs", "scope", "coverage", "intervals",
                                         "sum_d_bytes"};
    csv_read(dir, "coverage.csv", &c);
    assert_int_equal(c.rows, json_array_size(fss));
    rows_equal(&c, 0, fss, f_cols, sizeof f_cols / sizeof f_cols[0]);
    for (size_t i = 0; i < json_array_size(fss); i++) {
        const json_t *range = json_object_get(json_array_get(fss, i), "range");
        assert_true(field_is(cell(&c, i, "range_coverage"),
                             json_object_get(range, "coverage"), "range_coverage"));
    }
    csv_free(&c);

    csv_read(dir, "coverage_intervals.csv", &c);
    r = 0;
    for (size_t i = 0; i < json_array_size(fss); i++) {
        const json_t *f = json_array_get(fss, i);
        const json_t *ends = json_object_get(f, "end_ms");
        for (size_t k = 0; k < json_array_size(ends); k++, r++) {
            assert_true(field_is(cell(&c, r, "fs"), json_object_get(f, "fs"), "fs"));
            assert_true(field_is(cell(&c, r, "end_ms"), json_array_get(ends, k), "end"));
            assert_true(field_is(cell(&c, r, "d"),
                                 json_array_get(json_object_get(f, "d"), k), "d"));
            assert_true(field_is(cell(&c, r, "s"),
                                 json_array_get(json_object_get(f, "s"), k), "s"));
        }
    }
    assert_int_equal(c.rows, r);
    assert_true(r > 1000);
    csv_free(&c);
    json_decref(doc);
}

/* Both null, or numbers within TOL: the browser hands 0.0 back as 0, the API's
 * reals have 15 digits. */
static bool same_value(const json_t *a, const json_t *b)
{
    if (json_is_null(a) || json_is_null(b))
        return json_is_null(a) && json_is_null(b);
    if (!json_is_number(a) || !json_is_number(b))
        return false;
    const double x = json_number_value(a), y = json_number_value(b);
    return fabs(x - y) <= TOL * fmax(fabs(x), fabs(y));
}

/* The rows of the coverage chart of f (a scope of /api/v1/coverage?points=N) hold
 * its buckets: one row each, the same edges, least and most. */
static bool chart_holds_buckets(const json_t *rows, const json_t *f, const char *key)
{
    static const char *const cols[] = {"start_ms", "end_ms", "d_min",
                                       "d_max",    "s_min",  "s_max"};
    const json_t *b = json_object_get(f, "buckets");
    const size_t want = (size_t)json_integer_value(json_object_get(b, "n"));
    size_t same_rows = 0;

    for (size_t k = 0; json_array_size(rows) == want && k < want; k++) {
        const json_t *row = json_array_get(rows, k);
        bool all = true;
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            all = all && same_value(json_object_get(row, cols[c]),
                                    json_array_get(json_object_get(b, cols[c]), k));
        same_rows += all;
    }
    if (want > 0 && same_rows == want)
        return true;
    print_error("chart %s: %zu rows, %zu of the API's %zu buckets equal\n", key,
                json_array_size(rows), same_rows, want);
    return false;
}

/* ---- HTML in the browser
 * ---------------------------------------------------------------- */

static void the_html_opens_offline_and_draws_the_ranking_and_coverage(void **state)
{
    char out[700], url[800];
    struct webdriver wd;

    (void)state;
    snprintf(out, sizeof out, "%s/night.html", fx.db.state_dir);
    assert_int_equal(night(SAMPLE_FROM_MS, fx.t1_ms, out, ""), 1);
    json_t *doc = night_json(SAMPLE_FROM_MS, fx.t1_ms, 1);
    assert_int_equal(webdriver_start(&wd, fx.db.state_dir, 1400, 1000), 0);
    snprintf(url, sizeof url, "file://%s", out);
    webdriver_open(&wd, url);
    json_t *done =
        webdriver_run(&wd,
                      "const done = arguments[arguments.length - 1];"
                      "Promise.resolve(window.iocontendDone).then(() => done(1),"
                      " e => done(String(e && e.stack || e)));",
                      NULL, 1);
    if (!json_is_integer(done))
        print_error("the report's scripts failed: %s\n", json_string_value(done));
    const bool drawn = json_is_integer(done);
    json_decref(done);
    json_t *console = webdriver_console(&wd);
    const size_t errors = webdriver_errors(console);
    json_decref(console);
    json_t *asked = webdriver_run(
        &wd, "return performance.getEntriesByType('resource').map(e => e.name);", NULL,
        0);
    for (size_t i = 0; i < json_array_size(asked); i++)
        print_error("the report asked for %s\n",
                    json_string_value(json_array_get(asked, i)));
    const size_t requests = json_array_size(asked);
    json_decref(asked);
    /* the page carries the coverage as /api/v1/coverage?points=N answers it, and
     * each file system's chart holds those N buckets */
    char route[200];
    snprintf(route, sizeof route, "/api/v1/coverage?from=%lld&to=%lld&points=%d",
             SAMPLE_FROM_MS, fx.t1_ms, NIGHT_POINTS);
    json_t *api = server_get_json(&fx.srv, route, NULL, 200);
    json_t *carried = webdriver_run(
        &wd, "return window.iocontendNight ? window.iocontendNight.coverage : null;",
        NULL, 0);
    const bool carries_buckets = same(carried, api, "html coverage");
    json_decref(carried);
    const json_t *fss = json_object_get(api, "filesystems");
    size_t charts_ok = 0;
    for (size_t i = 0; i < json_array_size(fss); i++) {
        const json_t *f = json_array_get(fss, i);
        const char *fs = text(f, "fs");
        char key[100];
        snprintf(key, sizeof key, strcmp(fs, "all") == 0 ? "coverage" : "coverage/%s",
                 fs);
        json_t *args = json_pack("[s]", key);
        json_t *rows =
            webdriver_run(&wd,
                          "const v = (window.iocontendViews || {})[arguments[0]];"
                          "return v ? v.data('buckets') : null;",
                          args, 0);
        json_decref(args);
        charts_ok += chart_holds_buckets(rows, f, key);
        json_decref(rows);
    }
    /* the ranking's chart holds the ranked jobs' ratios, in rank order */
    const json_t *ranked =
        json_object_get(json_object_get(doc, "slowdowns"), "slowdowns");
    json_t *jobs =
        webdriver_run(&wd,
                      "const v = (window.iocontendViews || {})['night/slowdowns'];"
                      "return v ? v.data('jobs') : null;",
                      NULL, 0);
    size_t ratios_ok = 0;
    for (size_t i = 0; i < json_array_size(jobs) && i < json_array_size(ranked); i++) {
        const json_t *drawn_job = json_array_get(jobs, i),
                     *want = json_array_get(ranked, i);
        ratios_ok += json_equal(json_object_get(drawn_job, "jobid"),
                                json_object_get(want, "jobid")) &&
                     fabs(json_number_value(json_object_get(drawn_job, "ratio")) -
                          json_number_value(json_object_get(want, "ratio"))) <=
                         TOL * json_number_value(json_object_get(want, "ratio"));
    }
    const bool ranking_drawn = json_array_size(ranked) > 0 &&
                               ratios_ok == json_array_size(ranked) &&
                               json_array_size(jobs) == json_array_size(ranked);
    json_decref(jobs);
    json_t *dom = webdriver_run(&wd, "return document.body.innerText;", NULL, 0);
    const char *shown = json_is_string(dom) ? json_string_value(dom) : "";
    /* the hostile names read back as text; the markup made no element and ran no
     * handler */
    const bool lists_bad = strstr(shown, "bad.parser.txt") != NULL &&
                           strstr(shown, "later/" MARKUP_NAME) != NULL &&
                           strstr(shown, FORMULA_NAME) != NULL;
    json_decref(dom);
    json_t *inert = webdriver_run(&wd,
                                  "return [document.getElementsByTagName('img').length,"
                                  " typeof window.pwned];",
                                  NULL, 0);
    const bool no_markup =
        json_integer_value(json_array_get(inert, 0)) == 0 &&
        json_is_string(json_array_get(inert, 1)) &&
        strcmp(json_string_value(json_array_get(inert, 1)), "undefined") == 0;
    if (!no_markup)
        print_error("the markup acted: %lld img, window.pwned %s\n",
                    (long long)json_integer_value(json_array_get(inert, 0)),
                    json_string_value(json_array_get(inert, 1)));
    json_decref(inert);
    /* photographed whole under $BUILD/screenshots/, as test_page does the page */
    const char *build = getenv("BUILD");
    char shot[800];
    snprintf(shot, sizeof shot, "%s/screenshots",
             build != NULL && build[0] != '\0' ? build : "build");
    mkdir(shot, 0755);
    snprintf(shot, sizeof shot, "%s/screenshots/night-report-1400.png",
             build != NULL && build[0] != '\0' ? build : "build");
    json_t *height =
        webdriver_run(&wd, "return document.documentElement.scrollHeight;", NULL, 0);
    webdriver_resize(&wd, 1400, (int)json_integer_value(height) + 120);
    json_decref(height);
    webdriver_screenshot(&wd, shot);
    webdriver_stop(&wd);
    const size_t n_fs = json_array_size(fss);
    json_decref(api);
    json_decref(doc);
    assert_true(drawn);
    assert_int_equal(errors, 0);
    assert_int_equal(requests, 0);
    assert_true(carries_buckets);
    assert_int_equal(n_fs, 3);
    assert_int_equal(charts_ok, n_fs);
    assert_true(ranking_drawn);
    assert_true(lists_bad);
    assert_true(no_markup);
}

/* ---- usage ----------------------------------------------------------------------------
 */

static void bad_periods_and_options_are_usage_errors(void **state)
{
    char out[700];
    struct stat st;

    (void)state;
    snprintf(out, sizeof out, "%s/never.json", fx.db.state_dir);
    static const char *const bad[] = {
        "--from yesterday",
        "--to 2026-13-01T00:00:00Z",
        "--from 2026-11-21T00:00:00Z --to 2026-11-20T00:00:00Z",
        "--from 1795132800000 --to 1795132800000",
        "--from 999999999999999", /* the year 33658 */
        "--to 253402300800000",   /* 10000-01-01 */
        "--from 1795132800000 --to 253402300800000",
        "--format xml",
        "--limit 0",
        "--limit 1001",
        "--group esb",
        "stray",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = pgfixture_cmd(&fx.db, "--quiet --config '%s' report night --out '%s' %s",
                               fx.conf, out, bad[i]);
        if (rc != 64)
            print_error("'%s' exited %d\n", bad[i], rc);
        assert_int_equal(rc, 64);
    }
    assert_int_equal(pgfixture_cmd(&fx.db, "--quiet report night --format json"), 64);
    /* a time past the year 9999 is named as the option's, not a database failure */
    static const char *const late[] = {"from", "to"};
    for (size_t i = 0; i < 2; i++) {
        char args[2000];
        int rc = -1;
        snprintf(args, sizeof args,
                 "--quiet --config '%s' report night --out '%s' --%s 999999999999999 "
                 "2>&1",
                 fx.conf, out, late[i]);
        char *said = pgfixture_run(&fx.db, args, &rc);
        assert_int_equal(rc, 64);
        assert_non_null(said);
        char want[40];
        snprintf(want, sizeof want, "--%s takes a time before the year 10000", late[i]);
        if (strstr(said, want) == NULL)
            print_error("said: %s\n", said);
        assert_non_null(strstr(said, want));
        free(said);
    }
    assert_int_not_equal(stat(out, &st), 0);
}

static void help_never_acts(void **state)
{
    char out[700], cmd[900];
    struct stat st;
    int rc = -1;

    (void)state;
    snprintf(out, sizeof out, "%s/help.json", fx.db.state_dir);
    static const char *const asks[] = {"report night --help --out",
                                       "report --help night --out"};
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        /* help reads no configuration, no database, no file */
        snprintf(cmd, sizeof cmd, "%s '%s' --from bad", asks[i], out);
        char *text_out = pgfixture_run(&fx.db, cmd, &rc);
        assert_int_equal(rc, 0);
        assert_non_null(text_out);
        assert_non_null(strstr(text_out, "usage: iocontend report night"));
        assert_non_null(strstr(text_out, "--from T"));
        free(text_out);
        assert_int_not_equal(stat(out, &st), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_night_lists_the_second_ingest_and_its_quarantined_file),
        cmocka_unit_test(the_slowdowns_and_coverage_equal_the_api),
        cmocka_unit_test(the_csv_sections_equal_the_json),
        cmocka_unit_test(the_html_opens_offline_and_draws_the_ranking_and_coverage),
        cmocka_unit_test(bad_periods_and_options_are_usage_errors),
        cmocka_unit_test(help_never_acts),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
