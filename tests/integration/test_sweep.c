/* test_sweep.c: `analyze --sweep` (METHOD.md §6) on generated data, stored and served
 * by GET /api/v1/groups/{id}/sweep over real HTTP against a real PostgreSQL: the
 * planted effects show (ESB falling, NPB near 0), the job set is one for every k, and
 * every k agrees with the jobs `export jobs` gives at that granularity, its KDE bands
 * with statsmodels' on those jobs (tests/oracles/kde_ref.py). */
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

/* One seed, the default coupling, one day (420 jobs per group still). No victims
 * (README "Who got hurt"): a job slowed x3 whatever the load also gathers about twice
 * the usual Ψ^D over its longer windows, so three of them in the NPB-like group, whose
 * t_d is nearly constant, lift its Pearson: a fact about the victims, not about the
 * load the NPB-like jobs ignore, which is what the NPB checks here are of. */
#define SEED     20240601UL
#define GEN_ARGS "--days 1 --victims 0"
#define K_MAX    20
/* Both sides are doubles over the same jobs; the API prints 15 significant digits. */
#define TOL 1e-12
/* The exact conditional quantiles' accuracy (METHOD.md §5), in units of h_y in the
 * fitting space; the ESB group's d (about 400) is below STATS_KDE_EXACT_MAX. */
#define TOL_Q_EXACT 1e-8
#define KDE_ORACLE  "tests/oracles/kde_ref.py"
#define NQ          16

/* The pairs analyze --sweep stores (METHOD.md §6, and §11's queue). */
static const char *const pairs[][2] = {
    {"t_d", "psi_d_read"},   {"t_d", "psi_d_write"}, {"t_um", "psi_o_read"},
    {"t_um", "psi_o_write"}, {"t_i", "psi_i_read"},  {"t_i", "psi_i_write"},
    {"tau", "b_d"},          {"t_d", "q_d"},         {"tau", "q_d"},
};

#define N_PAIRS (sizeof pairs / sizeof pairs[0])

static struct {
    struct pgfixture db;
    struct server srv;
    char dir[512];  /* the generated data */
    char conf[600]; /* its iocontend.conf */
    char groups[3][17];
    char esb[17], npb[17];
    double base_s; /* Δ */
} fx;

static int group_setup(void **state)
{
    int rc = -1;

    (void)state;
    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0)
        return -1; /* the group teardown cleans up */
    snprintf(fx.dir, sizeof fx.dir, "%s/sample", fx.db.state_dir);
    sample_conf(fx.dir, fx.conf, sizeof fx.conf);
    if (sample_generate(fx.dir, SEED, GEN_ARGS) != 0 || sample_load(&fx.db, fx.dir) != 0)
        return -1;
    /* Exit 1: the planted hole excludes jobs. */
    rc = pgfixture_cmd(&fx.db, "--config '%s' analyze --sweep", fx.conf);
    if (rc != 0 && rc != 1)
        return -1;
    return server_start(&fx.srv, &fx.db, fx.conf);
}

static int group_teardown(void **state)
{
    (void)state;
    server_stop(&fx.srv);
    pgfixture_stop(&fx.db);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------- */

static json_t *get_json(const char *path, int want)
{
    return server_get_json(&fx.srv, path, NULL, want);
}

static json_t *get_sweep(const char *group, const char *y, const char *x)
{
    char path[256];

    snprintf(path, sizeof path, "/api/v1/groups/%s/sweep?y=%s&x=%s", group, y, x);
    return get_json(path, 200);
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        fail_msg("%s is not a number", key);
    return json_number_value(v);
}

static long integer(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_integer(v))
        fail_msg("%s is not an integer", key);
    return (long)json_integer_value(v);
}

static const json_t *step(const json_t *sweep, size_t i)
{
    const json_t *s = json_array_get(json_object_get(sweep, "steps"), i);

    assert_true(json_is_object(s));
    return s;
}

/* Finds the ids of the groups, the ESB- and NPB-like ones by their names. */
static void find_groups(void)
{
    json_t *j;
    const json_t *g;
    size_t i;

    if (fx.esb[0] != '\0')
        return;
    j = get_json("/api/v1/groups", 200);
    assert_int_equal(json_array_size(json_object_get(j, "groups")), 3);
    json_array_foreach(json_object_get(j, "groups"), i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        const char *name = json_string_value(json_object_get(g, "name"));
        snprintf(fx.groups[i], sizeof fx.groups[i], "%s", id);
        if (strncmp(name, "esb", 3) == 0)
            snprintf(fx.esb, sizeof fx.esb, "%s", id);
        if (strncmp(name, "npb", 3) == 0)
            snprintf(fx.npb, sizeof fx.npb, "%s", id);
    }
    json_decref(j);
    assert_true(fx.esb[0] != '\0');
    assert_true(fx.npb[0] != '\0');
    /* The generator samples every 60 s. */
    j = get_sweep(fx.esb, "t_d", "psi_d_read");
    fx.base_s = num(j, "base_granularity_s");
    json_decref(j);
    assert_rel(fx.base_s, 60.0, 0);
}

static void expect_error(const char *path, int code, const char *status,
                         const char *parameter)
{
    json_t *j = get_json(path, code);
    const json_t *e = json_object_get(j, "error");

    assert_true(json_is_object(e));
    assert_string_equal(json_string_value(json_object_get(e, "status")), status);
    assert_true(json_is_string(json_object_get(e, "message")));
    if (parameter != NULL) {
        assert_string_equal(json_string_value(json_object_get(e, "parameter")),
                            parameter);
    } else {
        assert_null(json_object_get(e, "parameter"));
    }
    json_decref(j);
}

/* Pearson's r by two-pass centred sums, written here so that the test does not lean
 * on the library it checks. */
static double pearson(const double *x, const double *y, size_t n)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxy / sqrt(sxx * syy);
}

/* A step's "kde": its ratios and 16 ordered bands, or null ratios with a reason. */
static void assert_kde_shape(const json_t *kde)
{
    static const char *const bands[] = {"x_grid", "q05", "q50", "q95"};

    assert_true(json_is_object(kde));
    if (json_is_null(json_object_get(kde, "width_ratio"))) {
        assert_true(json_is_null(json_object_get(kde, "paper_width_ratio")));
        assert_true(json_is_string(json_object_get(kde, "reason")));
        return;
    }
    assert_true(num(kde, "width_ratio") > 0);
    assert_true(num(kde, "paper_width_ratio") > 0);
    const char *space = json_string_value(json_object_get(kde, "space"));
    assert_non_null(space);
    assert_true(strcmp(space, "log") == 0 || strcmp(space, "linear") == 0);
    for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++)
        assert_int_equal(json_array_size(json_object_get(kde, bands[b])), NQ);
    for (size_t i = 0; i < NQ; i++) {
        double q05 = json_number_value(json_array_get(json_object_get(kde, "q05"), i));
        double q50 = json_number_value(json_array_get(json_object_get(kde, "q50"), i));
        double q95 = json_number_value(json_array_get(json_object_get(kde, "q95"), i));
        assert_true(q05 < q50 && q50 < q95);
    }
}

/* ---- tests --------------------------------------------------------------------- */

static void every_group_has_a_sweep_of_every_pair_with_k_from_1_to_20(void **state)
{
    (void)state;
    find_groups();
    for (size_t g = 0; g < 3; g++) {
        for (size_t p = 0; p < N_PAIRS; p++) {
            json_t *s = get_sweep(fx.groups[g], pairs[p][0], pairs[p][1]);
            assert_string_equal(json_string_value(json_object_get(s, "kind")), "sweep");
            assert_string_equal(json_string_value(json_object_get(s, "group")),
                                fx.groups[g]);
            assert_string_equal(json_string_value(json_object_get(s, "y")), pairs[p][0]);
            assert_string_equal(json_string_value(json_object_get(s, "x")), pairs[p][1]);
            assert_string_equal(json_string_value(json_object_get(s, "phases")), "0");
            assert_int_equal(integer(s, "k_max"), K_MAX);
            assert_rel(num(s, "base_granularity_s"), fx.base_s, 0);
            assert_int_equal(json_array_size(json_object_get(s, "steps")), K_MAX);
            for (size_t i = 0; i < K_MAX; i++) {
                assert_int_equal(integer(step(s, i), "k"), i + 1);
                assert_rel(num(step(s, i), "granularity_s"), fx.base_s * (double)(i + 1),
                           0);
                /* Every coefficient of this build is there, a number or null with a
                 * reason. */
                static const char *const coefs[] = {"pearson",     "spearman",
                                                    "dcor_v",      "dcor2_u",
                                                    "mi_ksg_nats", "mi_linfoot"};
                for (size_t c = 0; c < sizeof coefs / sizeof coefs[0]; c++) {
                    const json_t *v = json_object_get(step(s, i), coefs[c]);
                    assert_true(json_is_number(v) ||
                                (json_is_null(v) &&
                                 json_is_string(json_object_get(
                                     json_object_get(step(s, i), "reasons"), coefs[c]))));
                }
                assert_kde_shape(json_object_get(step(s, i), "kde"));
            }
            const json_t *v = json_object_get(s, "verdicts");
            assert_true(json_is_object(json_object_get(v, "falling")));
            assert_int_equal(json_array_size(json_object_get(v, "recommended_over")), 4);
            json_decref(s);
        }
    }
}

static void
esb_pearson_and_spearman_of_t_d_psi_d_read_fall_with_a_recommended_interval(void **state)
{
    (void)state;
    find_groups();
    json_t *s = get_sweep(fx.esb, "t_d", "psi_d_read");
    const json_t *v = json_object_get(s, "verdicts");
    const json_t *falling = json_object_get(v, "falling");

    assert_true(json_is_true(json_object_get(falling, "pearson")));
    assert_true(json_is_true(json_object_get(falling, "spearman")));
    assert_rel(num(v, "drop"), 0.1, 0);
    assert_rel(num(v, "rho_max"), -0.7, 0);
    assert_rel(num(v, "tolerance"), 0.05, 0);
    /* Reported, and k·Δ for a k within the sweep. */
    double k = num(v, "recommended_k");
    assert_true(k >= 1 && k <= K_MAX);
    assert_rel(num(v, "recommended_interval_s"), k * fx.base_s, 0);
    /* What falling means (METHOD.md §6), checked on the served curve. */
    assert_true(num(step(s, K_MAX - 1), "pearson") < num(step(s, 0), "pearson") - 0.1);
    assert_true(num(step(s, K_MAX - 1), "spearman") < num(step(s, 0), "spearman") - 0.1);
    /* Pearson is one of the coefficients kept within the tolerance up to that k. */
    double c1 = num(step(s, 0), "pearson");
    for (size_t i = 0; i < (size_t)k; i++)
        assert_true(fabs(num(step(s, i), "pearson") - c1) <= 0.05);
    json_decref(s);
}

static void npb_pearson_of_t_d_psi_d_read_stays_below_0_15_at_every_k(void **state)
{
    (void)state;
    find_groups();
    json_t *s = get_sweep(fx.npb, "t_d", "psi_d_read");

    for (size_t i = 0; i < K_MAX; i++)
        assert_true(fabs(num(step(s, i), "pearson")) < 0.15);
    assert_true(json_is_false(json_object_get(
        json_object_get(json_object_get(s, "verdicts"), "falling"), "pearson")));
    json_decref(s);
}

/* The mean m of a sweep (Fig. 9) over k. Where k divides k', a coarse interval of k'
 * is a union of those of k, so no job has more active ones: m(k') <= m(k) exactly,
 * and m(k) >= m(1) / k. Between k that do not divide each other the partitions differ
 * and a job's m can grow by one (active in fine intervals 3 and 4: m(2) = 1,
 * m(3) = 2), so there the mean may rise a little: at most 1 % here. */
static void assert_m_falls(const json_t *s)
{
    double m1 = num(step(s, 0), "m_mean");

    for (size_t k = 2; k <= K_MAX; k++) {
        double mk = num(step(s, k - 1), "m_mean");
        assert_true(mk <= num(step(s, k - 2), "m_mean") * 1.01);
        assert_true(mk >= m1 / (double)k);
        for (size_t div = 1; div < k; div++) {
            if (k % div == 0)
                assert_true(mk <= num(step(s, div - 1), "m_mean"));
        }
    }
    assert_true(num(step(s, K_MAX - 1), "m_mean") < m1 / 2);
}

static void mean_m_falls_with_k_and_d_is_the_same_at_every_k(void **state)
{
    (void)state;
    find_groups();
    for (size_t g = 0; g < 3; g++) {
        for (size_t p = 0; p < N_PAIRS; p++) {
            json_t *s = get_sweep(fx.groups[g], pairs[p][0], pairs[p][1]);
            const json_t *jobs = json_object_get(s, "jobs");
            double d = num(s, "d");
            assert_true(d >= 100);
            /* The one job set: valid at k = 1 less those dropped at some k. */
            assert_rel(
                d, num(jobs, "valid_at_base") - num(jobs, "dropped_not_valid_at_every_k"),
                0);
            assert_rel(num(jobs, "valid_at_base"),
                       num(jobs, "in_group") -
                           num(json_object_get(jobs, "excluded_at_base"), "total"),
                       0);
            for (size_t i = 0; i < K_MAX; i++)
                assert_rel(num(step(s, i), "d"), d, 0);
            if (strcmp(pairs[p][0], "t_d") == 0)
                assert_m_falls(s);
            json_decref(s);
        }
    }
}

/* The sweep's k = 1 over the association's jobs ("at_base") is the association
 * endpoint's answer; its k = 1 step is that over the jobs valid at every k. */
static void k1_equals_the_association_endpoint_at_the_base_granularity(void **state)
{
    static const char *const coefs[] = {"pearson", "spearman",    "dcor_v",
                                        "dcor2_u", "mi_ksg_nats", "mi_linfoot"};
    char path[256];

    (void)state;
    find_groups();
    for (size_t g = 0; g < 3; g++) {
        for (size_t p = 0; p < N_PAIRS; p++) {
            json_t *s = get_sweep(fx.groups[g], pairs[p][0], pairs[p][1]);
            snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=%s&x=%s",
                     fx.groups[g], pairs[p][0], pairs[p][1]);
            json_t *a = get_json(path, 200);
            const json_t *base = json_object_get(s, "at_base");
            assert_rel(num(base, "d"), num(a, "d"), 0);
            assert_rel(num(base, "d"), num(json_object_get(s, "jobs"), "valid_at_base"),
                       0);
            for (size_t c = 0; c < sizeof coefs / sizeof coefs[0]; c++)
                assert_rel(num(base, coefs[c]), num(a, coefs[c]), TOL);
            if (num(json_object_get(s, "jobs"), "dropped_not_valid_at_every_k") == 0)
                assert_rel(num(step(s, 0), "pearson"), num(a, "pearson"), TOL);
            json_decref(a);
            json_decref(s);
        }
    }
}

/* One export at one granularity: t_d, psi_d_read and m of the jobs valid for the pair
 * t_d~psi_d_read (excluded_d empty, T_J > 0), by row. */
struct export_rows {
    size_t n;
    double t_d[600], psi_d_read[600], m[600];
    bool valid[600];
};

static void export_at(const char *group, double granularity_s, struct export_rows *out)
{
    char args[1024];
    int rc = -1;
    long col_t_j = -1, col_t_d = -1, col_psi = -1, col_m = -1, col_excl = -1;

    snprintf(args, sizeof args, "export jobs --group %s --granularity %g --format csv",
             group, granularity_s);
    char *csv = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(csv);
    assert_int_equal(rc, 0);
    memset(out, 0, sizeof *out);
    char *save = NULL;
    bool header = true;
    for (char *line = strtok_r(csv, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        long col = 0;
        double t_j = NAN;
        size_t r = out->n;
        /* Split by hand: empty cells matter (an excluded value is empty). */
        for (char *cell = line;; col++) {
            char *comma = strchr(cell, ',');
            if (comma != NULL)
                *comma = '\0';
            if (header) {
                col_t_j = strcmp(cell, "t_j") == 0 ? col : col_t_j;
                col_t_d = strcmp(cell, "t_d") == 0 ? col : col_t_d;
                col_psi = strcmp(cell, "psi_d_read") == 0 ? col : col_psi;
                col_m = strcmp(cell, "m") == 0 ? col : col_m;
                col_excl = strcmp(cell, "excluded_d") == 0 ? col : col_excl;
            } else {
                double v = cell[0] != '\0' ? strtod(cell, NULL) : (double)NAN;
                if (col == col_t_j)
                    t_j = v;
                if (col == col_t_d)
                    out->t_d[r] = v;
                if (col == col_psi)
                    out->psi_d_read[r] = v;
                if (col == col_m)
                    out->m[r] = v;
                if (col == col_excl)
                    out->valid[r] = cell[0] == '\0';
            }
            if (comma == NULL)
                break;
            cell = comma + 1;
        }
        if (header) {
            assert_true(col_t_j >= 0 && col_t_d >= 0 && col_psi >= 0 && col_m >= 0 &&
                        col_excl >= 0);
            header = false;
            continue;
        }
        out->valid[r] = out->valid[r] && t_j > 0 && isfinite(out->t_d[r]) &&
                        isfinite(out->psi_d_read[r]);
        out->n++;
        assert_true(out->n < 600);
    }
    free(csv);
}

/* The ESB group's exports at every k·Δ, made once for the tests that read them, and
 * which rows are valid at every k. */
static struct export_rows rows[K_MAX];
static bool every[600];

static void export_esb(void)
{
    static bool done;

    if (done)
        return;
    for (size_t i = 0; i < K_MAX; i++)
        export_at(fx.esb, fx.base_s * (double)(i + 1), &rows[i]);
    for (size_t r = 0; r < rows[0].n; r++) {
        every[r] = true;
        for (size_t i = 0; i < K_MAX; i++) {
            assert_int_equal(rows[i].n, rows[0].n);
            every[r] = every[r] && rows[i].valid[r];
        }
    }
    done = true;
}

/* Every k of the ESB group's t_d~psi_d_read sweep against `export jobs` at k·Δ: the
 * jobs valid at every k, their Pearson and mean m. */
static void every_k_matches_the_exported_jobs_valid_at_every_k(void **state)
{
    double x[600], y[600];

    (void)state;
    find_groups();
    export_esb();
    json_t *s = get_sweep(fx.esb, "t_d", "psi_d_read");
    size_t d = 0, dropped = 0;
    for (size_t r = 0; r < rows[0].n; r++) {
        d += every[r];
        dropped += rows[0].valid[r] && !every[r];
    }
    assert_rel(num(s, "d"), (double)d, 0);
    assert_rel(num(json_object_get(s, "jobs"), "dropped_not_valid_at_every_k"),
               (double)dropped, 0);
    for (size_t i = 0; i < K_MAX; i++) {
        size_t n = 0;
        double m_sum = 0;
        for (size_t r = 0; r < rows[i].n; r++) {
            if (!every[r])
                continue;
            x[n] = rows[i].psi_d_read[r];
            y[n] = rows[i].t_d[r];
            m_sum += rows[i].m[r];
            n++;
        }
        assert_rel(num(step(s, i), "pearson"), pearson(x, y, n), TOL);
        assert_rel(num(step(s, i), "m_mean"), m_sum / (double)n, TOL * 100);
    }
    json_decref(s);
}

/* The values after "name " on their line of the oracle's output, n of them. */
static void oracle_values(const char *text, const char *name, double *v, size_t n)
{
    const size_t len = strlen(name);

    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
        p += *p == '\n';
        if (strncmp(p, name, len) != 0 || p[len] != ' ')
            continue;
        p += len;
        for (size_t i = 0; i < n; i++) {
            char *end;
            v[i] = strtod(p, &end);
            if (end == p)
                fail_msg("oracle: %s has fewer than %zu values", name, n);
            p = end;
        }
        return;
    }
    fail_msg("oracle: no %s", name);
}

/* One band of the sweep against the oracle's (fitting space): equal within tol after
 * the back-transform, which scales an error by the value itself in log space. */
static void assert_band(const json_t *kde, const char *name, const double *ref_fit,
                        bool log_space, double tol_fit)
{
    const json_t *a = json_object_get(kde, name);

    for (size_t i = 0; i < NQ; i++) {
        double want = log_space ? exp(ref_fit[i]) : ref_fit[i];
        double tol = log_space ? tol_fit * want : tol_fit;
        assert_rel(json_number_value(json_array_get(a, i)), want,
                   tol + 1e-14 * fabs(want));
    }
}

/* kde_ref.py --no-density on (x, y) over n jobs: its output (malloc'd). */
static char *kde_oracle(const double *x, const double *y, size_t n)
{
    char path[] = "/tmp/iocontend-sweep-kde-XXXXXX", script[1024], cmd[2048];
    const char *found = testutil_repo_file(KDE_ORACLE);
    int fd = mkstemp(path), rc = -1;

    assert_non_null(found);
    snprintf(script, sizeof script, "%s", found);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    assert_non_null(fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%.17g %.17g\n", x[i], y[i]);
    assert_int_equal(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --no-density '%s'", testutil_oracle_python(),
             script, path);
    char *text = testutil_run(cmd, &rc);
    unlink(path);
    if (text == NULL || rc != 0)
        fail_msg("kde oracle failed (%d): %s", rc, cmd);
    return text;
}

/* The KDE bands of the ESB group's t_d~psi_d_read sweep at k = 1, 5 and 20 against
 * statsmodels' KDEMultivariateConditional (kde_ref.py) on the jobs `export jobs`
 * gives at k·Δ, those valid at every k: the sweep fits each k on its own values. */
static void every_k_kde_matches_statsmodels_on_the_exported_jobs(void **state)
{
    static const size_t ks[] = {1, 5, 20};
    double x[600], y[600];

    (void)state;
    find_groups();
    export_esb();
    json_t *s = get_sweep(fx.esb, "t_d", "psi_d_read");
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        size_t i = ks[t] - 1, n = 0;
        for (size_t r = 0; r < rows[i].n; r++) {
            if (every[r]) {
                x[n] = rows[i].psi_d_read[r];
                y[n] = rows[i].t_d[r];
                n++;
            }
        }
        char *text = kde_oracle(x, y, n);
        char space[16] = "";
        assert_int_equal(sscanf(text, "space %15s", space), 1);
        double hx, hy, xg[NQ], q05[NQ], q50[NQ], q95[NQ], wr, pwr, mean, sd;
        oracle_values(text, "hx", &hx, 1);
        oracle_values(text, "hy", &hy, 1);
        oracle_values(text, "x_grid", xg, NQ);
        oracle_values(text, "q05", q05, NQ);
        oracle_values(text, "q50", q50, NQ);
        oracle_values(text, "q95", q95, NQ);
        oracle_values(text, "width_ratio", &wr, 1);
        oracle_values(text, "paper_width_ratio", &pwr, 1);
        oracle_values(text, "mean", &mean, 1);
        oracle_values(text, "sd", &sd, 1);
        free(text);
        const json_t *kde = json_object_get(step(s, i), "kde");
        bool log_space = strcmp(space, "log") == 0;
        print_message("k = %zu: d = %zu, %s space, width_ratio %.6f (statsmodels %.6f)\n",
                      ks[t], n, space, num(kde, "width_ratio"), wr);
        assert_rel(num(step(s, i), "d"), (double)n, 0);
        assert_string_equal(json_string_value(json_object_get(kde, "space")), space);
        assert_rel(num(kde, "hx"), hx, 1e-12 * hx);
        assert_rel(num(kde, "hy"), hy, 1e-12 * hy);
        assert_rel(num(kde, "mean"), mean, 1e-12 * fabs(mean));
        assert_rel(num(kde, "sd"), sd, 1e-11 * sd);
        assert_band(kde, "x_grid", xg, log_space, 1e-13);
        assert_band(kde, "q05", q05, log_space, TOL_Q_EXACT * hy);
        assert_band(kde, "q50", q50, log_space, TOL_Q_EXACT * hy);
        assert_band(kde, "q95", q95, log_space, TOL_Q_EXACT * hy);
        /* ratios of band widths that each move by TOL_Q_EXACT·h_y at most */
        assert_rel(num(kde, "width_ratio"), wr, 40.0 * TOL_Q_EXACT);
        assert_rel(num(kde, "paper_width_ratio"), pwr, 40.0 * TOL_Q_EXACT * pwr);
    }
    /* Coarser sampling blurs the load the band is conditioned on: the ESB band widens
     * towards the marginal's (METHOD.md §5 (d): about 1 when x tells nothing). */
    assert_true(num(json_object_get(step(s, K_MAX - 1), "kde"), "width_ratio") >
                num(json_object_get(step(s, 0), "kde"), "width_ratio"));
    json_decref(s);
}

static void errors_name_the_parameter_or_answer_404(void **state)
{
    char path[256];

    (void)state;
    find_groups();
    snprintf(path, sizeof path, "/api/v1/groups/%s/sweep?y=nope", fx.esb);
    expect_error(path, 400, "invalid", "y");
    snprintf(path, sizeof path, "/api/v1/groups/%s/sweep?y=t_d&x=psi_nope", fx.esb);
    expect_error(path, 400, "invalid", "x");
    /* A well-formed id no group has, and one that cannot be an id. */
    expect_error("/api/v1/groups/0123456789abcdef/sweep", 404, "not_found", NULL);
    expect_error("/api/v1/groups/no%20such/sweep", 404, "not_found", NULL);
    /* Known metrics, but no sweep of them is stored. */
    snprintf(path, sizeof path, "/api/v1/groups/%s/sweep?y=t_j&x=psi_read", fx.esb);
    expect_error(path, 404, "not_found", NULL);
    /* The default pair is t_d~psi_d_read. */
    snprintf(path, sizeof path, "/api/v1/groups/%s/sweep", fx.esb);
    json_t *j = get_json(path, 200);
    assert_string_equal(json_string_value(json_object_get(j, "x")), "psi_d_read");
    json_decref(j);
}

static void usage_errors_exit_64(void **state)
{
    (void)state;
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --sweep --granularity 120"), 64);
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --k-max 5"), 64);
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --sweep --k-max 0"), 64);
    assert_int_equal(pgfixture_cmd(&fx.db, "analyze --sweep --phases 2"), 64);
}

/* Runs last: it replaces the NPB group's sweeps. k_max and the phases from the
 * configuration file; every phase gives the mean and the range at each k. */
/* ---- report sweep ----------------------------------------------------------------- */

/* Runs "report sweep --group G ARGS --out <state>/NAME" and returns the path. */
static const char *report(int want, const char *name, const char *args)
{
    static char path[700];

    snprintf(path, sizeof path, "%s/%s", fx.db.state_dir, name);
    assert_int_equal(pgfixture_cmd(&fx.db,
                                   "--quiet report sweep --group %s %s --out '%s'",
                                   fx.esb, args, path),
                     want);
    return path;
}

static char *slurp(const char *path)
{
    char cmd[800];
    int rc = -1;

    snprintf(cmd, sizeof cmd, "cat '%s'", path);
    char *text = testutil_run(cmd, &rc);
    assert_non_null(text);
    assert_int_equal(rc, 0);
    return text;
}

/* The JSON report holds every stored sweep of the group, each what the API serves. */
static void report_json_holds_every_stored_sweep(void **state)
{
    json_error_t jerr;
    const json_t *sweep;
    size_t i;

    (void)state;
    find_groups();
    json_t *r = json_load_file(report(0, "esb.json", "--format json"), 0, &jerr);
    assert_non_null(r);
    assert_string_equal(json_string_value(json_object_get(r, "kind")), "sweep_report");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(r, "group"), "id")), fx.esb);
    const json_t *sweeps = json_object_get(r, "sweeps");
    assert_int_equal(json_array_size(sweeps), N_PAIRS);
    json_array_foreach(sweeps, i, sweep)
    {
        assert_string_equal(json_string_value(json_object_get(sweep, "y")), pairs[i][0]);
        assert_string_equal(json_string_value(json_object_get(sweep, "x")), pairs[i][1]);
        json_t *api = get_sweep(fx.esb, pairs[i][0], pairs[i][1]);
        assert_true(json_equal(json_object_get(sweep, "verdicts"),
                               json_object_get(api, "verdicts")));
        assert_int_equal(json_array_size(json_object_get(sweep, "steps")), K_MAX);
        for (size_t k = 0; k < K_MAX; k++) {
            assert_rel(num(step(sweep, k), "pearson"), num(step(api, k), "pearson"), TOL);
            assert_rel(num(step(sweep, k), "mi_linfoot"), num(step(api, k), "mi_linfoot"),
                       TOL);
        }
        json_decref(api);
    }
    json_decref(r);
}

/* The CSV report: a header and a row per pair and k, the API's numbers. */
static void report_csv_has_a_row_per_pair_and_k(void **state)
{
    (void)state;
    find_groups();
    char *text = slurp(report(0, "esb.csv", "--format csv"));
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    assert_non_null(line);
    assert_string_equal(line,
                        "group,y,x,k,granularity_s,d,m_mean,pearson,spearman,dcor_v,"
                        "mi_linfoot,dcor2_u,mi_ksg_nats,width_ratio");
    json_t *api = get_sweep(fx.esb, "t_d", "psi_d_read");
    size_t n_rows = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char y[32], x[32], group[32];
        unsigned k;
        double g_s, d, m, pearson;
        assert_int_equal(sscanf(line, "%31[^,],%31[^,],%31[^,],%u,%lf,%lf,%lf,%lf", group,
                                y, x, &k, &g_s, &d, &m, &pearson),
                         8);
        assert_string_equal(group, fx.esb);
        assert_string_equal(y, pairs[n_rows / K_MAX][0]);
        assert_string_equal(x, pairs[n_rows / K_MAX][1]);
        assert_int_equal(k, n_rows % K_MAX + 1);
        assert_rel(g_s, fx.base_s * k, 0);
        if (n_rows < K_MAX) {
            assert_rel(pearson, num(step(api, k - 1), "pearson"), TOL);
            assert_rel(d, (double)integer(step(api, k - 1), "d"), 0);
        }
        n_rows++;
    }
    assert_int_equal(n_rows, N_PAIRS * K_MAX);
    json_decref(api);
    free(text);
}

/* The HTML report, opened in a real browser: the pair's table of k_max steps, the
 * recommended interval and the verdicts the API gives (its Vega chart is checked
 * point by point in test_page). */
static void report_html_draws_the_pair_in_a_browser(void **state)
{
    char url[800], want[64];

    (void)state;
    find_groups();
    snprintf(url, sizeof url, "file://%s",
             report(0, "esb.html", "--y t_d --x psi_d_read --format html"));
    char *dom = testutil_browser_dom(url, fx.db.state_dir);
    json_t *api = get_sweep(fx.esb, "t_d", "psi_d_read");
    const json_t *v = json_object_get(api, "verdicts");

    assert_non_null(strstr(dom, "<h2>t_d ~ psi_d_read</h2>"));
    assert_null(strstr(strstr(dom, "<h2>") + 1, "<h2>")); /* one pair */
    const char *steps = strstr(dom, "<table class=\"steps\">");
    assert_non_null(steps);
    size_t n_tr = 0;
    for (const char *at = strstr(steps, "<tr>");
         at != NULL && at < strstr(steps, "</table>"); at = strstr(at + 1, "<tr>"))
        n_tr++;
    assert_int_equal(n_tr, K_MAX + 1); /* the head and one row per k */
    snprintf(want, sizeof want, "<b class=\"recommended\">%g s</b>",
             num(v, "recommended_interval_s"));
    assert_non_null(strstr(dom, want));
    /* ESB's planted effect falls for every coefficient (and the API says so) */
    assert_true(json_is_true(json_object_get(json_object_get(v, "falling"), "pearson")));
    assert_non_null(strstr(dom, "<td>yes</td><td>yes</td><td>yes</td><td>yes</td>"));
    json_decref(api);
    free(dom);
}

/* Bad requests: usage 64; a group or pair with nothing stored 66; an output that
 * cannot be written 73, leaving nothing behind. */
static void report_refuses_what_it_cannot_do(void **state)
{
    char missing[700];

    (void)state;
    find_groups();
    assert_int_equal(pgfixture_cmd(&fx.db, "--quiet report sweep --group %s", fx.esb),
                     64);
    report(64, "bad.html", "--y t_d");
    report(64, "bad.html", "--format pdf");
    report(66, "bad.html", "--y t_d --x psi_o_read");
    assert_int_equal(pgfixture_cmd(&fx.db,
                                   "--quiet report sweep --group no-such-group "
                                   "--out '%s/bad.html'",
                                   fx.db.state_dir),
                     66);
    snprintf(missing, sizeof missing, "%s/bad.html", fx.db.state_dir);
    assert_int_not_equal(access(missing, F_OK), 0);
    assert_int_equal(pgfixture_cmd(&fx.db,
                                   "--quiet report sweep --group %s --out "
                                   "'%s/no/such/dir/r.html'",
                                   fx.esb, fx.db.state_dir),
                     73);
}

static void every_phase_from_the_configuration_gives_a_mean_and_range_per_k(void **state)
{
    char conf[600];

    (void)state;
    find_groups();
    snprintf(conf, sizeof conf, "%s/sweep.conf", fx.db.state_dir);
    FILE *fp = fopen(conf, "w");
    assert_non_null(fp);
    fputs("[analysis]\nsweep_k_max = 4\nsweep_phases = all\n", fp);
    assert_int_equal(fclose(fp), 0);
    int rc =
        pgfixture_cmd(&fx.db, "--config '%s' analyze --sweep --group %s", conf, fx.npb);
    assert_true(rc == 0 || rc == 1);
    server_await_data(&fx.srv);
    json_t *s = get_sweep(fx.npb, "t_d", "psi_d_read");
    assert_string_equal(json_string_value(json_object_get(s, "phases")), "all");
    assert_int_equal(integer(s, "k_max"), 4);
    assert_int_equal(json_array_size(json_object_get(s, "steps")), 4);
    for (size_t i = 0; i < 4; i++) {
        const json_t *st = step(s, i);
        const json_t *range = json_object_get(json_object_get(st, "range"), "pearson");
        assert_int_equal(integer(st, "phases"), i + 1);
        double lo = json_number_value(json_array_get(range, 0));
        double hi = json_number_value(json_array_get(range, 1));
        assert_true(lo <= num(st, "pearson") + TOL && num(st, "pearson") <= hi + TOL);
        if (i == 0)
            assert_rel(lo, hi, 0); /* one phase at k = 1 */
        /* The KDE's ratios likewise: the mean over the phases within their range. */
        const json_t *kde = json_object_get(st, "kde");
        const json_t *wr = json_object_get(json_object_get(kde, "range"), "width_ratio");
        assert_int_equal(json_array_size(wr), 2);
        assert_true(
            json_number_value(json_array_get(wr, 0)) <= num(kde, "width_ratio") + TOL &&
            num(kde, "width_ratio") <= json_number_value(json_array_get(wr, 1)) + TOL);
        assert_int_equal(integer(kde, "bands_phase"), 0);
    }
    json_decref(s);
    /* The command line wins over the file. */
    rc = pgfixture_cmd(&fx.db,
                       "--config '%s' analyze --sweep --group %s --k-max 3 --phases 0",
                       conf, fx.npb);
    assert_true(rc == 0 || rc == 1);
    server_await_data(&fx.srv); /* the server keeps stored answers until then */
    s = get_sweep(fx.npb, "t_d", "psi_d_read");
    assert_string_equal(json_string_value(json_object_get(s, "phases")), "0");
    assert_int_equal(json_array_size(json_object_get(s, "steps")), 3);
    assert_null(json_object_get(step(s, 1), "range"));
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_group_has_a_sweep_of_every_pair_with_k_from_1_to_20),
        cmocka_unit_test(
            esb_pearson_and_spearman_of_t_d_psi_d_read_fall_with_a_recommended_interval),
        cmocka_unit_test(npb_pearson_of_t_d_psi_d_read_stays_below_0_15_at_every_k),
        cmocka_unit_test(mean_m_falls_with_k_and_d_is_the_same_at_every_k),
        cmocka_unit_test(k1_equals_the_association_endpoint_at_the_base_granularity),
        cmocka_unit_test(every_k_matches_the_exported_jobs_valid_at_every_k),
        cmocka_unit_test(every_k_kde_matches_statsmodels_on_the_exported_jobs),
        cmocka_unit_test(errors_name_the_parameter_or_answer_404),
        cmocka_unit_test(usage_errors_exit_64),
        cmocka_unit_test(report_json_holds_every_stored_sweep),
        cmocka_unit_test(report_csv_has_a_row_per_pair_and_k),
        cmocka_unit_test(report_html_draws_the_pair_in_a_browser),
        cmocka_unit_test(report_refuses_what_it_cannot_do),
        cmocka_unit_test(every_phase_from_the_configuration_gives_a_mean_and_range_per_k),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
