/* test_assoc_cli.c: `iocontend assoc --json` on CSVs drawn fresh for the run,
 * against independent references (tests/oracles/assoc_cli_ref.py: scipy, the direct
 * O(d²) distance correlation, a cKDTree KSG cross-checked with scikit-learn; the KDE
 * against statsmodels and scipy in tests/oracles/kde_ref.py), within the tolerances
 * of METHOD.md §5, and the significance against scipy's p-values and its own
 * definitions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <jansson.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ORACLE   "tests/oracles/assoc_cli_ref.py"
#define KDE_REF  "tests/oracles/kde_ref.py"
#define N_CASES  6
#define TOL_RANK 1e-12 /* Pearson, Spearman */
#define TOL_DCOR 1e-9
#define TOL_KSG  1e-9
#define TOL_SKL  1e-3 /* the KSG reference against scikit-learn */
#define TOL_Q    1e-8 /* exact conditional quantiles, in units of h_y (fitting space) */
#define TOL_DENS 1e-3 /* the density grid, of its maximum */
#define NQ       16   /* the KDE's x points */
#define NG       128  /* the density grid's points per axis */

struct ref_case {
    char name[32];
    long d;
    double pearson, spearman, dcor_v, dcor2_u, mi, linfoot, sklearn;
    double p_pearson, p_spearman; /* scipy's two-sided p-values */
};

static struct {
    char dir[64];
    long seed;
    struct ref_case cases[N_CASES];
    size_t n;
} fx;

static const char *bin(void)
{
    const char *b = getenv("IOCONTEND_BIN");
    return b != NULL ? b : "build/iocontend";
}

static int setup(void **state)
{
    char cmd[8192];
    int rc;
    (void)state;

    snprintf(fx.dir, sizeof fx.dir, "/tmp/iocontend-acli-XXXXXX");
    if (mkdtemp(fx.dir) == NULL)
        return -1;
    /* A new seed each day: data nobody tuned the code to; printed to reproduce. */
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    fx.seed = (tm.tm_year + 1900L) * 10000L + (tm.tm_mon + 1L) * 100L + tm.tm_mday;
    const char *env_seed = getenv("IOCONTEND_TEST_SEED");
    if (env_seed != NULL && env_seed[0] != '\0')
        fx.seed = strtol(env_seed, NULL, 10);
    const char *script = testutil_repo_file(ORACLE);
    if (script == NULL) {
        fprintf(stderr, "oracle %s not found\n", ORACLE);
        return -1;
    }
    snprintf(cmd, sizeof cmd, "%s '%s' '%s' %ld", testutil_oracle_python(), script,
             fx.dir, fx.seed);
    char *out = testutil_run(cmd, &rc);
    if (out == NULL || rc != 0) {
        fprintf(stderr, "oracle failed (%d): %s\n", rc, out != NULL ? out : "");
        free(out);
        return -1;
    }
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line != NULL && fx.n < N_CASES;
         line = strtok_r(NULL, "\n", &save)) {
        struct ref_case *c = &fx.cases[fx.n];
        if (sscanf(line, "%31s %ld %lf %lf %lf %lf %lf %lf %lf %lf %lf", c->name, &c->d,
                   &c->pearson, &c->spearman, &c->dcor_v, &c->dcor2_u, &c->mi,
                   &c->linfoot, &c->sklearn, &c->p_pearson, &c->p_spearman) == 11) {
            fx.n++;
        }
    }
    free(out);
    fprintf(stderr, "data seed %ld (IOCONTEND_TEST_SEED=%ld reproduces a failure)\n",
            fx.seed, fx.seed);
    return fx.n == N_CASES ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[256];
    int rc;
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* Runs assoc on one case; the parsed object, and the exit status in *rc. */
static json_t *assoc_json(const struct ref_case *c, const char *extra, int *rc)
{
    char cmd[2048];
    json_error_t jerr;

    snprintf(cmd, sizeof cmd,
             "'%s' --quiet assoc --input '%s/%s.csv' --x load --y time --json %s", bin(),
             fx.dir, c->name, extra);
    char *out = testutil_run(cmd, rc);
    assert_non_null(out);
    json_t *o = json_loads(out, 0, &jerr);
    if (o == NULL)
        fprintf(stderr, "%s: not JSON: %s\n%s\n", c->name, jerr.text, out);
    free(out);
    assert_non_null(o);
    return o;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("'%s' is not a number", key);
    return json_number_value(v);
}

static void check_case(const struct ref_case *c, const json_t *o)
{
    fprintf(stderr, "  %-12s d=%ld pearson %.6f dcor_v %.6f mi %.6f\n", c->name, c->d,
            c->pearson, c->dcor_v, c->mi);
    assert_int_equal((long)num(o, "d"), c->d);
    /* Two malformed rows in every file: dropped and counted, nothing else. */
    assert_int_equal((long)num(json_object_get(o, "excluded"), "total"), 2);
    assert_int_equal((long)num(json_object_get(o, "excluded"), "nonfinite"), 2);
    assert_rel(num(o, "pearson"), c->pearson, TOL_RANK);
    assert_rel(num(o, "spearman"), c->spearman, TOL_RANK);
    assert_rel(num(o, "dcor_v"), c->dcor_v, TOL_DCOR);
    assert_rel(num(o, "dcor2_u"), c->dcor2_u, TOL_DCOR);
}

/* Jitter off: the KSG of the definition, equal to the reference's to 1e-9. */
static void every_coefficient_matches_its_reference_without_jitter(void **state)
{
    (void)state;
    for (size_t i = 0; i < fx.n; i++) {
        const struct ref_case *c = &fx.cases[i];
        int rc;
        json_t *o = assoc_json(c, "--mi-jitter 0", &rc);
        assert_int_equal(rc, 1); /* finished, rows dropped */
        check_case(c, o);
        assert_rel(num(o, "mi_ksg_nats"), c->mi, TOL_KSG);
        assert_rel(num(o, "mi_linfoot"), c->linfoot, TOL_KSG);
        json_decref(o);
    }
}

/* The default jitter is 1e-10·max(1, mean|v|) of the scaled values: on tie-free data
 * it moves no neighbour, so the result is the reference's — except for the
 * cancellation case, where mean|v| ≈ 2e9 against a spacing of 4e-3 and the jitter
 * (as scikit-learn's) reorders x: there only scikit-learn itself is comparable. */
static void with_jitter_ksg_still_matches_on_tie_free_data(void **state)
{
    (void)state;
    for (size_t i = 0; i < fx.n; i++) {
        const struct ref_case *c = &fx.cases[i];
        int rc;
        json_t *o = assoc_json(c, "", &rc);
        check_case(c, o);
        if (strcmp(c->name, "cancellation") != 0) {
            assert_rel(num(o, "mi_ksg_nats"), c->mi, TOL_KSG);
            /* and the reference is scikit-learn's KSG */
            assert_rel(c->sklearn, c->mi, TOL_SKL);
        } else {
            assert_rel(num(o, "mi_ksg_nats"), c->sklearn, 0.1);
        }
        json_decref(o);
    }
}

/* The readable table names every coefficient and the seed is echoed in JSON. */
static void the_table_and_the_seed(void **state)
{
    char cmd[2048];
    int rc;
    (void)state;
    snprintf(cmd, sizeof cmd,
             "'%s' --quiet assoc --input '%s/small.csv' --x load --y time", bin(),
             fx.dir);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 1);
    static const char *const names[] = {"pearson", "spearman",    "dcor_v",
                                        "dcor2_u", "mi_ksg_nats", "mi_linfoot"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strstr(out, names[i]) == NULL)
            fail_msg("table lacks %s:\n%s", names[i], out);
    }
    assert_non_null(strstr(out, "d = 170 (dropped: 2), space log"));
    assert_non_null(strstr(out, "KDE (log space, product kernel)"));
    assert_non_null(strstr(out, "width_ratio"));
    assert_non_null(strstr(out, "q50"));
    free(out);
    /* With significance: p-values, noise floors and CIs, and how they were made. */
    snprintf(cmd, sizeof cmd,
             "'%s' --quiet assoc --input '%s/small.csv' --x load --y time "
             "--permutations 99 --resamples 200",
             bin(), fx.dir);
    out = testutil_run(cmd, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 1);
    if (strstr(out, "noise floor") == NULL || strstr(out, "95% CI") == NULL ||
        strstr(out, "99 permutations, 200 resamples, seed 20240601") == NULL)
        fail_msg("the table lacks the significance:\n%s", out);
    free(out);
    json_t *o = assoc_json(&fx.cases[3], "--seed 7", &rc);
    assert_int_equal((long)num(o, "seed"), 7);
    json_decref(o);
}

/* Bad usage and bad input: sysexits, and the file and line named. */
static void bad_input_names_file_and_line(void **state)
{
    char path[128], cmd[2048];
    int rc;
    (void)state;
    snprintf(path, sizeof path, "%s/short.csv", fx.dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("load,time\n1,2\n3\n", fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "'%s' assoc --input '%s' --x load --y time 2>&1", bin(),
             path);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 64);
    if (strstr(out, "short.csv:3") == NULL || strstr(out, "expected") == NULL)
        fail_msg("the error does not name file, line and expectation: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' assoc --input '%s' --x nope --y time 2>&1", bin(),
             path);
    out = testutil_run(cmd, &rc);
    assert_int_equal(rc, 64);
    assert_non_null(strstr(out, "nope"));
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' assoc --input '%s/none.csv' --x a --y b 2>&1", bin(),
             fx.dir);
    out = testutil_run(cmd, &rc);
    assert_int_equal(rc, 66);
    free(out);
    static const char *const bad_args[] = {
        "--methods kde,rank", "--kernel diagonal",
        "--space cubic",      "--permutations -1",
        "--resamples 2e3",    "--permutations 10000001",
        "--bandwidth sj",     "--bandwidth plugin --kernel full"};
    for (size_t i = 0; i < sizeof bad_args / sizeof bad_args[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s' assoc --input '%s' --x load --y time %s 2>&1",
                 bin(), path, bad_args[i]);
        out = testutil_run(cmd, &rc);
        if (rc != 64)
            fail_msg("%s: exit %d, not 64: %s", bad_args[i], rc, out);
        free(out);
    }
    snprintf(cmd, sizeof cmd,
             "'%s' assoc --input '%s' --x load --y time --mi-jitter 2 2>&1", bin(), path);
    out = testutil_run(cmd, &rc);
    assert_int_equal(rc, 64);
    free(out);
}

/* ---- the KDE (METHOD.md §5 `kde`) ------------------------------------------------ */

/* The oracle's answer: "name v1 v2 ..." lines. */
struct kde_ref {
    char space[16];
    double hx, hy, x_grid[NQ], q05[NQ], q50[NQ], q95[NQ], marg_q05, marg_q95;
    double grid[4], mean, sd, width_ratio, paper_width_ratio;
    double *density; /* NG·NG, or NULL */
};

/* kde_ref.py with args on the case's pairs. */
static void run_kde_ref(const char *name, const char *args, struct kde_ref *r)
{
    char cmd[4096];
    int rc;
    const char *script = testutil_repo_file(KDE_REF);

    assert_non_null(script);
    snprintf(cmd, sizeof cmd, "%s '%s' %s '%s/%s.xy'", testutil_oracle_python(), script,
             args, fx.dir, name);
    char *text = testutil_run(cmd, &rc);
    assert_non_null(text);
    if (rc != 0)
        fail_msg("kde oracle failed (%d): %s", rc, cmd);
    memset(r, 0, sizeof *r);
    assert_int_equal(sscanf(text, "space %15s", r->space), 1);
    assert_true(testutil_values(text, "hx", &r->hx, 1));
    assert_true(testutil_values(text, "hy", &r->hy, 1));
    assert_true(testutil_values(text, "x_grid", r->x_grid, NQ));
    assert_true(testutil_values(text, "q05", r->q05, NQ));
    assert_true(testutil_values(text, "q50", r->q50, NQ));
    assert_true(testutil_values(text, "q95", r->q95, NQ));
    assert_true(testutil_values(text, "marg_q05", &r->marg_q05, 1));
    assert_true(testutil_values(text, "marg_q95", &r->marg_q95, 1));
    assert_true(testutil_values(text, "grid", r->grid, 4));
    assert_true(testutil_values(text, "mean", &r->mean, 1));
    assert_true(testutil_values(text, "sd", &r->sd, 1));
    assert_true(testutil_values(text, "width_ratio", &r->width_ratio, 1));
    assert_true(testutil_values(text, "paper_width_ratio", &r->paper_width_ratio, 1));
    r->density = malloc((size_t)NG * NG * sizeof *r->density);
    assert_non_null(r->density);
    if (!testutil_values(text, "density", r->density, (size_t)NG * NG)) {
        free(r->density);
        r->density = NULL;
    }
    free(text);
}

/* The i-th number of a JSON array. */
static double at(const json_t *a, size_t i)
{
    const json_t *v = json_array_get(a, i);
    if (!json_is_number(v))
        fail_msg("element %zu is not a number", i);
    return json_number_value(v);
}

/* A quantile served in linear units, back in the fitting space. */
static double fitted(const char *space, double v)
{
    return strcmp(space, "log") == 0 ? log(v) : v;
}

/* The served "kde" against the oracle: quantiles in fitting space within TOL_Q·h_y,
 * the ratios (differences of those quantiles) relatively within 1e-6. */
static void compare_kde(const char *name, const json_t *o, const struct kde_ref *r)
{
    const json_t *k = json_object_get(o, "kde");
    const char *space = json_string_value(json_object_get(k, "space"));
    static const char *const qs[] = {"q05", "q50", "q95"};
    const double *rq[] = {r->q05, r->q50, r->q95};
    double eq = 0.0;

    assert_non_null(k);
    assert_non_null(space);
    assert_string_equal(space, r->space);
    assert_string_equal(json_string_value(json_object_get(o, "space")), r->space);
    assert_null(json_object_get(k, "reason"));
    assert_rel(num(k, "hx"), r->hx, 1e-12 * r->hx);
    assert_rel(num(k, "hy"), r->hy, 1e-12 * r->hy);
    assert_rel(num(k, "mean"), r->mean, 1e-12 * fabs(r->mean));
    assert_rel(num(k, "sd"), r->sd, 1e-11 * r->sd);
    assert_rel(num(k, "band_low"), r->mean - 1.645 * r->sd, 1e-11 * r->sd);
    assert_rel(num(k, "band_high"), r->mean + 1.645 * r->sd, 1e-11 * r->sd);
    for (size_t i = 0; i < NQ; i++) {
        assert_rel(fitted(space, at(json_object_get(k, "x_grid"), i)), r->x_grid[i],
                   1e-12 * fabs(r->x_grid[i]) + 1e-12);
        for (size_t j = 0; j < 3; j++) {
            double got = fitted(space, at(json_object_get(k, qs[j]), i));
            eq = fmax(eq, fabs(got - rq[j][i]));
        }
    }
    eq /= r->hy;
    double em = fmax(fabs(fitted(space, num(k, "marg_q05")) - r->marg_q05),
                     fabs(fitted(space, num(k, "marg_q95")) - r->marg_q95)) /
                r->hy;
    fprintf(stderr,
            "  %-12s %s: max |q - statsmodels| = %.2g h_y, marginal %.2g h_y, "
            "width_ratio %.6f (ref %.6f)\n",
            name, space, eq, em, num(k, "width_ratio"), r->width_ratio);
    assert_true(eq <= TOL_Q);
    assert_true(em <= TOL_Q);
    assert_rel(num(k, "width_ratio"), r->width_ratio, 1e-6 * r->width_ratio);
    assert_rel(num(k, "paper_width_ratio"), r->paper_width_ratio,
               1e-6 * r->paper_width_ratio);
}

/* The KDE's bands and ratios are statsmodels' (product kernel) and scipy's
 * gaussian_kde's (full kernel), in log and in linear space. */
static void kde_bands_match_statsmodels_and_scipy(void **state)
{
    static const struct {
        const char *name, *cli, *ref;
    } runs[] = {
        {"small", "", "--no-density"},
        {"null", "", "--no-density"},
        {"linear", "--space linear", "--no-density --space linear"},
        {"small", "--space linear", "--no-density --space linear"},
        {"small", "--kernel full", "--no-density --kernel full"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const struct ref_case *c = NULL;
        char extra[128];
        struct kde_ref r;
        int rc;
        for (size_t j = 0; j < fx.n; j++) {
            if (strcmp(fx.cases[j].name, runs[i].name) == 0)
                c = &fx.cases[j];
        }
        assert_non_null(c);
        snprintf(extra, sizeof extra, "--methods kde %s", runs[i].cli);
        json_t *o = assoc_json(c, extra, &rc);
        run_kde_ref(runs[i].name, runs[i].ref, &r);
        compare_kde(runs[i].name, o, &r);
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(o, "kde"), "kernel")),
            strstr(runs[i].cli, "full") != NULL ? "full" : "product");
        /* only the KDE was asked */
        assert_null(json_object_get(o, "pearson"));
        assert_null(json_object_get(o, "significance"));
        free(r.density);
        json_decref(o);
    }
}

/* --bandwidth plugin: Sheather-Jones per axis in fitting space, the exact O(d²)
 * oracle's within the binning error of stats_bw_sj (1e-4 relative, see
 * tests/stats/test_bandwidth.c); the default says "normal". */
static void plugin_bandwidth_is_sheather_jones(void **state)
{
    const struct ref_case *c = &fx.cases[3]; /* small */
    char cmd[2048];
    double hx = NAN, hy = NAN;
    int rc;
    (void)state;

    json_t *o = assoc_json(c, "--methods kde --bandwidth plugin", &rc);
    const json_t *k = json_object_get(o, "kde");
    assert_string_equal(json_string_value(json_object_get(k, "bandwidth")), "plugin");
    snprintf(cmd, sizeof cmd, "'%s' '%s' --csv '%s/%s.csv' load time",
             testutil_oracle_python(), testutil_repo_file("tests/oracles/bw_ref.py"),
             fx.dir, c->name);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    assert_int_equal(sscanf(out, "%lf %lf", &hx, &hy), 2);
    free(out);
    printf("  small, log space: hx %.10g (oracle %.10g), hy %.10g (oracle %.10g)\n",
           num(k, "hx"), hx, num(k, "hy"), hy);
    assert_rel(num(k, "hx"), hx, 1e-4 * hx);
    assert_rel(num(k, "hy"), hy, 1e-4 * hy);
    json_decref(o);
    o = assoc_json(c, "--methods kde", &rc);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "kde"), "bandwidth")),
        "normal");
    json_decref(o);
    snprintf(cmd, sizeof cmd,
             "'%s' --quiet assoc --input '%s/%s.csv' --x load --y time --methods kde "
             "--bandwidth plugin",
             bin(), fx.dir, c->name);
    out = testutil_run(cmd, &rc);
    assert_non_null(out);
    assert_non_null(strstr(out, "KDE (log space, product kernel, plug-in bandwidth)"));
    free(out);
}

/* --density adds the 128 x 128 grid in fitting space: statsmodels' density within
 * 1e-3 of its maximum (METHOD.md §5). */
static void density_grid_matches_statsmodels(void **state)
{
    const struct ref_case *c = &fx.cases[3]; /* small */
    struct kde_ref r;
    int rc;
    double top = 0.0, err = 0.0;

    (void)state;
    assert_string_equal(c->name, "small");
    json_t *o = assoc_json(c, "--methods kde --density", &rc);
    run_kde_ref(c->name, "", &r);
    assert_non_null(r.density);
    const json_t *g = json_object_get(json_object_get(o, "kde"), "density");
    assert_non_null(g);
    assert_rel(num(g, "x0"), r.grid[0], 1e-12 * fabs(r.grid[0]));
    assert_rel(num(g, "dx"), r.grid[1], 1e-10 * r.grid[1]);
    assert_rel(num(g, "y0"), r.grid[2], 1e-12 * fabs(r.grid[2]));
    assert_rel(num(g, "dy"), r.grid[3], 1e-10 * r.grid[3]);
    const json_t *rows = json_object_get(g, "values");
    assert_int_equal(json_array_size(rows), NG);
    for (size_t i = 0; i < (size_t)NG * NG; i++)
        top = fmax(top, r.density[i]);
    for (size_t i = 0; i < NG; i++) {
        const json_t *row = json_array_get(rows, i);
        assert_int_equal(json_array_size(row), NG);
        for (size_t j = 0; j < NG; j++)
            err = fmax(err, fabs(at(row, j) - r.density[i * NG + j]));
    }
    fprintf(stderr, "  density: max |f - statsmodels| = %.2g of the maximum\n",
            err / top);
    assert_true(err <= TOL_DENS * top);
    free(r.density);
    json_decref(o);
    /* without --density, no grid */
    o = assoc_json(c, "--methods kde", &rc);
    assert_null(json_object_get(json_object_get(o, "kde"), "density"));
    json_decref(o);
}

/* ---- significance (METHOD.md §5 "Significance") ---------------------------------- */

static const json_t *sig_of(const json_t *o, const char *name)
{
    const json_t *s = json_object_get(json_object_get(o, "significance"), name);
    if (s == NULL)
        fail_msg("no significance for %s", name);
    return s;
}

/* What holds for every coefficient's test whatever the data: p in [1/(B+1), 1], a
 * multiple of 1/(B+1); p <= 0.05 + 1/(B+1) when |T - c| is above the noise floor (the
 * 95th percentile of |T* - c|), p >= 0.05 below it. */
static void check_test(const json_t *o, const char *name, double value, double centre)
{
    const json_t *s = sig_of(o, name);
    const double b = num(json_object_get(o, "significance"), "permutations");
    const double p = num(s, "p_value"), floor = num(s, "noise_floor");

    assert_int_equal((long)num(s, "n_perm"), (long)b);
    assert_true(p >= 1.0 / (b + 1.0) && p <= 1.0);
    assert_rel(p * (b + 1.0), round(p * (b + 1.0)), 1e-6);
    if (fabs(value - centre) > floor * (1.0 + 1e-9))
        assert_true(p <= 0.05 + 1.0 / (b + 1.0));
    if (fabs(value - centre) < floor * (1.0 - 1e-9))
        assert_true(p >= 0.05);
}

/* The CI of pearson / spearman brackets the value at level 0.95. */
static void check_ci(const json_t *o, const char *name)
{
    const json_t *s = sig_of(o, name);
    const double v = num(o, name);

    assert_rel(num(s, "level"), 0.95, 0.0);
    assert_true(num(s, "ci_low") < v && v < num(s, "ci_high"));
    assert_true(num(s, "ci_low") >= -1.0 && num(s, "ci_high") <= 1.0);
}

static void check_all_tests(const json_t *o)
{
    static const char *const core[] = {"pearson", "spearman", "dcor_v", "mi_linfoot"};

    for (size_t i = 0; i < 4; i++)
        check_test(o, core[i], num(o, core[i]), 0.0);
    check_test(o, "width_ratio", num(json_object_get(o, "kde"), "width_ratio"), 1.0);
    check_ci(o, "pearson");
    check_ci(o, "spearman");
    /* no test for dcor2_u and mi_ksg_nats; no CI for dcor_v, mi_linfoot */
    const json_t *sig = json_object_get(o, "significance");
    assert_null(json_object_get(sig, "dcor2_u"));
    assert_null(json_object_get(sig, "mi_ksg_nats"));
    assert_null(json_object_get(sig_of(o, "dcor_v"), "ci_low"));
}

/* With nothing to find, the permutation p-values of Pearson and Spearman are scipy's
 * within their Monte Carlo error (4 sd of a binomial share over B = 999, plus the
 * 1/(B + 1) offset), Pearson's noise floor is near 1.96/sqrt(d − 1) (the permutation
 * sd of r is 1/sqrt(d − 1) exactly), and no p-value is the smallest possible. */
static void independent_pair_p_values_agree_with_scipy(void **state)
{
    const struct ref_case *c = &fx.cases[5];
    int rc;

    (void)state;
    assert_string_equal(c->name, "null");
    json_t *o = assoc_json(c, "--significance", &rc);
    const json_t *sig = json_object_get(o, "significance");
    assert_int_equal((long)num(sig, "permutations"), 999);
    assert_int_equal((long)num(sig, "resamples"), 2000);
    assert_int_equal((long)num(sig, "seed"), 20240601);
    check_all_tests(o);
    const double refs[] = {c->p_pearson, c->p_spearman};
    static const char *const names[] = {"pearson", "spearman"};
    for (size_t i = 0; i < 2; i++) {
        double p = num(sig_of(o, names[i]), "p_value"), q = refs[i];
        fprintf(stderr, "  null: %s p = %.4f (scipy %.4f)\n", names[i], p, q);
        assert_rel(p, q, 4.0 * sqrt(q * (1.0 - q) / 999.0) + 2.0 / 1000.0);
    }
    double floor = num(sig_of(o, "pearson"), "noise_floor");
    assert_rel(floor, 1.96 / sqrt((double)c->d - 1.0), 0.2 * 1.96 / sqrt((double)c->d));
    json_decref(o);
}

/* A strongly dependent pair: every p-value is 1/(B + 1), the smallest there is. */
static void dependent_pair_has_the_smallest_p_values(void **state)
{
    const struct ref_case *c = &fx.cases[3];
    static const char *const names[] = {"pearson", "spearman", "dcor_v", "mi_linfoot",
                                        "width_ratio"};
    int rc;

    (void)state;
    assert_string_equal(c->name, "small");
    json_t *o = assoc_json(c, "--significance", &rc);
    check_all_tests(o);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_rel(num(sig_of(o, names[i]), "p_value"), 1.0 / 1000.0, 1e-15);
    assert_true(num(json_object_get(o, "kde"), "width_ratio") < 1.0);
    json_decref(o);
}

/* The same seed gives the same numbers; another seed other permutations. */
static void same_seed_same_significance(void **state)
{
    const struct ref_case *c = &fx.cases[3];
    const char *args = "--permutations 199 --resamples 300 --seed";
    char extra[128];
    int rc;

    (void)state;
    snprintf(extra, sizeof extra, "%s 7", args);
    json_t *a = assoc_json(c, extra, &rc);
    json_t *b = assoc_json(c, extra, &rc);
    snprintf(extra, sizeof extra, "%s 8", args);
    json_t *other = assoc_json(c, extra, &rc);
    const json_t *sa = json_object_get(a, "significance");
    assert_true(json_equal(sa, json_object_get(b, "significance")));
    assert_int_equal((long)num(sa, "seed"), 7);
    assert_int_equal((long)num(sa, "permutations"), 199);
    assert_rel(num(sig_of(a, "pearson"), "p_value"), 1.0 / 200.0, 1e-15);
    assert_true(num(sig_of(a, "pearson"), "noise_floor") !=
                num(sig_of(other, "pearson"), "noise_floor"));
    assert_true(num(sig_of(a, "pearson"), "ci_low") !=
                num(sig_of(other, "pearson"), "ci_low"));
    json_decref(a);
    json_decref(b);
    json_decref(other);
}

/* The forest the CLI prints is the library's on the same rows, curve and KDE points
 * alike (its accuracy against scikit-learn is test_rf's). */
static void forest_is_the_library_fit_on_the_same_rows(void **state)
{
    const struct ref_case *c = &fx.cases[3];
    char path[256];
    int rc;

    (void)state;
    json_t *o = assoc_json(c, "--methods kde,rf --seed 11", &rc);
    const json_t *f = json_object_get(o, "rf");
    assert_non_null(f);
    assert_int_equal((long)num(f, "trees"), 100);
    assert_int_equal((long)num(f, "seed"), 11);
    snprintf(path, sizeof path, "%s/%s.xy", fx.dir, c->name);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    double *x = malloc((size_t)c->d * sizeof *x), *y = malloc((size_t)c->d * sizeof *y);
    assert_true(x != NULL && y != NULL);
    size_t d = 0;
    while (d < (size_t)c->d && fscanf(fp, "%lf %lf", &x[d], &y[d]) == 2)
        d++;
    fclose(fp);
    assert_int_equal(d, (size_t)c->d);
    double kx[NQ], at_kde[NQ];
    const json_t *grid = json_object_get(json_object_get(o, "kde"), "x_grid");
    assert_int_equal(json_array_size(grid), NQ);
    for (size_t i = 0; i < NQ; i++)
        kx[i] = json_real_value(json_array_get(grid, i));
    struct stats_rf_opts ro = stats_rf_opts_default();
    ro.seed = 11;
    struct stats_rf_ws *ws = stats_rf_ws_new(d);
    struct stats_rf *want = malloc(sizeof *want);
    struct error err = {0};
    assert_true(ws != NULL && want != NULL);
    assert_int_equal(stats_rf_compute(x, y, d, kx, NQ, &ro, ws, want, at_kde, &err),
                     STATUS_OK);
    /* %.17g round-trips, so equal means equal. */
    assert_true(num(f, "oob_r2") == want->oob_r2);
    const json_t *xs = json_object_get(f, "x_grid"), *fit = json_object_get(f, "fit");
    assert_int_equal(json_array_size(fit), STATS_RF_CURVE);
    for (size_t i = 0; i < STATS_RF_CURVE; i++) {
        assert_true(json_real_value(json_array_get(xs, i)) == want->x_curve[i]);
        assert_true(json_real_value(json_array_get(fit, i)) == want->fit_curve[i]);
    }
    const json_t *fk = json_object_get(f, "fit_at_kde_x");
    for (size_t i = 0; i < NQ; i++)
        assert_true(json_real_value(json_array_get(fk, i)) == at_kde[i]);
    stats_rf_ws_free(ws);
    free(want);
    free(x);
    free(y);
    json_decref(o);

    /* Not asked, not there. */
    o = assoc_json(c, "--methods pearson", &rc);
    assert_null(json_object_get(o, "rf"));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_coefficient_matches_its_reference_without_jitter),
        cmocka_unit_test(with_jitter_ksg_still_matches_on_tie_free_data),
        cmocka_unit_test(the_table_and_the_seed),
        cmocka_unit_test(bad_input_names_file_and_line),
        cmocka_unit_test(kde_bands_match_statsmodels_and_scipy),
        cmocka_unit_test(plugin_bandwidth_is_sheather_jones),
        cmocka_unit_test(density_grid_matches_statsmodels),
        cmocka_unit_test(independent_pair_p_values_agree_with_scipy),
        cmocka_unit_test(dependent_pair_has_the_smallest_p_values),
        cmocka_unit_test(same_seed_same_significance),
        cmocka_unit_test(forest_is_the_library_fit_on_the_same_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
