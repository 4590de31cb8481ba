/* test_sample.c: the whole path on generated data (iocontend-gen -> ingest through the
 * real parsers -> analyze -> HTTP) shows the planted effects, and the served numbers
 * are those of the independent Python oracle (tests/oracles/volume.py); the KDE bands
 * and their significance show them too (the band of the ESB-like group rises with
 * the load and narrows, the NPB-like group's is flat). */
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

#define ORACLE "tests/oracles/volume.py"
/* Served against the oracle: both are Pearson over the same d jobs in double; METHOD.md
 * §5 asks 1e-12 of the coefficient, the API prints 15 significant digits. */
#define ORACLE_TOL 1e-9
/* The NPB-like group's t_d does not depend on the load: its KDE median may drift by
 * |q50[15] / q50[0] − 1| < NPB_Q50_DRIFT across the load's range, and its band keeps
 * the marginal's width, |width_ratio − 1| < NPB_WIDTH. Seen on seeds 1, 2 and
 * 20240601: drift −0.0032, −0.0034, −0.0059 and width_ratio 0.9995, 1.0000, 0.9995,
 * where the ESB-like group's median rises by 0.61–0.75 and its width_ratio is
 * 0.67–0.69. 0.05 is 8 times the drift seen, and twice the permutation noise floor
 * of |width_ratio − 1| at these d (0.023: what chance alone gives 5 % of the time). */
#define NPB_Q50_DRIFT 0.05
#define NPB_WIDTH     0.05

/* One generated data set in a throwaway database with a server on it. */
struct sample_case {
    unsigned long seed;
    const char *gen_args; /* beyond --out and --seed; "" = the default sample */
    bool coupled;         /* the planted effects are on (the generator's coupling 1) */
    struct pgfixture db;
    struct server srv;
    char dir[512]; /* the generated data, inside the fixture's state directory */
};

/* The default sample has 420 jobs per group over 3 days (the test asks >= 400). With
 * coupling 0 a smaller one keeps the run short: 150 jobs still put the null
 * correlation's sd near 0.08, well inside the 0.2 bound. */
#define UNCOUPLED "--coupling 0 --days 1 --jobs-per-group 150"
/* The planted load effect without the planted victims (README "Who got hurt";
 * test_hurt checks those): the NPB-like group's t_d is nearly constant, so a job
 * slowed x3 is far above all of them, and its Ψ^D, gathered over windows three times
 * as long, puts it among the highest x, where the KDE's top points see it and widen
 * the band: a fact about the victims, not about the load the group ignores. */
#define COUPLED "--victims 0"

static struct sample_case cases[] = {
    {.seed = 1, .gen_args = COUPLED, .coupled = true},
    {.seed = 2, .gen_args = COUPLED, .coupled = true},
    {.seed = 20240601, .gen_args = COUPLED, .coupled = true},
    {.seed = 1, .gen_args = UNCOUPLED, .coupled = false},
    {.seed = 2, .gen_args = UNCOUPLED, .coupled = false},
    {.seed = 20240601, .gen_args = UNCOUPLED, .coupled = false},
};

static int setup(void **state)
{
    struct sample_case *c = *state;
    char conf[600];

    if (pgfixture_start(&c->db) != 0) {
        pgfixture_stop(&c->db); /* cmocka skips a test's teardown when its setup fails */
        return -1;
    }
    snprintf(c->dir, sizeof c->dir, "%s/sample", c->db.state_dir);
    sample_conf(c->dir, conf, sizeof conf);
    if (sample_generate(c->dir, c->seed, c->gen_args) != 0 ||
        sample_load(&c->db, c->dir) != 0 || server_start(&c->srv, &c->db, conf) != 0) {
        pgfixture_stop(&c->db);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    struct sample_case *c = *state;

    server_stop(&c->srv);
    pgfixture_stop(&c->db);
    return 0;
}

/* The oracle's answer for the data in dir (caller json_decref's). */
static json_t *run_oracle(const char *dir)
{
    const char *script = testutil_repo_file(ORACLE);
    char cmd[8192];
    json_error_t jerr;
    int rc = -1;

    assert_non_null(script);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", testutil_oracle_python(), script, dir);
    char *out = testutil_run(cmd, &rc);
    assert_non_null(out);
    json_t *j = rc == 0 ? json_loads(out, 0, &jerr) : NULL;
    if (j == NULL)
        print_error("oracle: `%s` exited %d:\n%s\n", cmd, rc, out);
    free(out);
    assert_non_null(j);
    return j;
}

/* The oracle's group whose key, joined with '|', is the served key. Borrowed. */
static const json_t *oracle_group(const json_t *oracle, const char *key)
{
    const json_t *g;
    size_t i;

    json_array_foreach(json_object_get(oracle, "groups"), i, g)
    {
        char joined[256] = "";
        size_t used = 0;
        const json_t *part;
        size_t k;
        json_array_foreach(json_object_get(g, "key"), k, part)
        {
            const char *sep = k == 0 ? "" : "|";
            int n = json_is_string(part)
                        ? snprintf(joined + used, sizeof joined - used, "%s%s", sep,
                                   json_string_value(part))
                        : snprintf(joined + used, sizeof joined - used, "%s%lld", sep,
                                   (long long)json_integer_value(part));
            if (n < 0 || (size_t)n >= sizeof joined - used)
                break;
            used += (size_t)n;
        }
        if (strcmp(joined, key) == 0)
            return g;
    }
    return NULL;
}

/* The executable of a served group key "uid|exe|nprocs|...", into out. */
static void key_exe(const char *key, char *out, size_t size)
{
    const char *at = strchr(key, '|');

    at = at != NULL ? at + 1 : key;
    snprintf(out, size, "%.*s", (int)strcspn(at, "|"), at);
}

/* Pearson r(t_d, psi_d_read) of each group as served, checked against the oracle;
 * returns the coefficients of the ESB-like and NPB-like groups. */
static void served_against_oracle(const struct sample_case *c, double *esb, double *npb)
{
    json_t *groups = server_get_json(&c->srv, "/api/v1/groups", NULL, 200);
    json_t *oracle = run_oracle(c->dir);
    const json_t *g;
    size_t i, n_esb = 0, n_npb = 0;

    assert_int_equal(json_array_size(json_object_get(groups, "groups")), 3);
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        char path[256], exe[64];
        const char *id = json_string_value(json_object_get(g, "id"));
        const char *key = json_string_value(json_object_get(g, "key"));

        assert_non_null(id);
        assert_non_null(key);
        if (c->coupled) /* the default sample: at least 400 jobs per group */
            assert_true(json_integer_value(json_object_get(g, "jobs")) >= 400);
        key_exe(key, exe, sizeof exe);
        snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read",
                 id);
        json_t *a = server_get_json(&c->srv, path, NULL, 200);
        const json_t *o = oracle_group(oracle, key);
        const json_t *oa = json_object_get(o, "t_d~psi_d_read");
        assert_non_null(o);
        assert_true(json_is_number(json_object_get(a, "pearson")));
        assert_true(json_is_number(json_object_get(oa, "pearson")));
        /* Every core coefficient is served (METHOD.md §5), each in its range. */
        static const char *const unit[] = {"spearman", "dcor_v", "mi_linfoot"};
        for (size_t k = 0; k < sizeof unit / sizeof unit[0]; k++) {
            const json_t *v = json_object_get(a, unit[k]);
            if (!json_is_number(v) || fabs(json_number_value(v)) > 1.0)
                fail_msg("%s: %s missing or outside [-1, 1]", exe, unit[k]);
        }
        assert_true(json_is_number(json_object_get(a, "dcor2_u")));
        assert_true(json_number_value(json_object_get(a, "mi_ksg_nats")) >= 0.0);
        double r = json_number_value(json_object_get(a, "pearson"));
        double r_oracle = json_number_value(json_object_get(oa, "pearson"));
        json_int_t d = json_integer_value(json_object_get(a, "d"));
        json_int_t excluded =
            json_integer_value(json_object_get(json_object_get(a, "excluded"), "total"));
        print_message("seed %lu %s: %s d = %lld (oracle %lld), pearson = %.15f "
                      "(oracle %.15f, |diff| %.1e)\n",
                      c->seed, c->coupled ? "coupled" : "coupling 0", exe, (long long)d,
                      (long long)json_integer_value(json_object_get(oa, "d")), r,
                      r_oracle, fabs(r - r_oracle));
        assert_int_equal(d, json_integer_value(json_object_get(oa, "d")));
        assert_int_equal(excluded, json_integer_value(json_object_get(oa, "excluded")));
        assert_true(d >= 100);
        assert_rel(r, r_oracle, ORACLE_TOL);
        if (strcmp(exe, "esb_model") == 0) {
            *esb = r;
            n_esb++;
        } else if (strcmp(exe, "npb_lattice") == 0) {
            *npb = r;
            n_npb++;
        }
        json_decref(a);
    }
    assert_int_equal(n_esb, 1);
    assert_int_equal(n_npb, 1);
    json_decref(oracle);
    json_decref(groups);
}

/* ---- the KDE and the significance ---------------------------------------------- */

/* The id of the group whose executable is exe, into id. */
static void group_of(const struct sample_case *c, const char *exe, char *id, size_t size)
{
    json_t *groups = server_get_json(&c->srv, "/api/v1/groups", NULL, 200);
    const json_t *g;
    size_t i;

    id[0] = '\0';
    json_array_foreach(json_object_get(groups, "groups"), i, g)
    {
        char e[64];
        key_exe(json_string_value(json_object_get(g, "key")), e, sizeof e);
        if (strcmp(e, exe) == 0)
            snprintf(id, size, "%s", json_string_value(json_object_get(g, "id")));
    }
    json_decref(groups);
    assert_true(id[0] != '\0');
}

static json_t *association(const struct sample_case *c, const char *id, const char *query)
{
    char path[512];

    snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read%s", id,
             query);
    return server_get_json(&c->srv, path, NULL, 200);
}

/* The number at o.a.b.k (b, k may be NULL: o.a.k, o.a). */
static double number_at(const json_t *o, const char *a, const char *b, const char *k)
{
    const json_t *v = json_object_get(o, a);
    if (b != NULL)
        v = json_object_get(v, b);
    if (k != NULL)
        v = json_object_get(v, k);
    if (!json_is_number(v))
        fail_msg("%s.%s.%s is not a number", a, b != NULL ? b : "", k != NULL ? k : "");
    return json_number_value(v);
}

/* q50 at the 16 x points (linear units) into q; Spearman's r of q50 against the
 * point's index (the x points ascend), no ties expected. */
static double q50_trend(const json_t *o, double *q)
{
    const json_t *a = json_object_get(json_object_get(o, "kde"), "q50");
    double s = 0.0;

    assert_int_equal(json_array_size(a), 16);
    for (size_t i = 0; i < 16; i++)
        q[i] = json_number_value(json_array_get(a, i));
    for (size_t i = 0; i < 16; i++) {
        size_t rank = 0;
        for (size_t j = 0; j < 16; j++)
            rank += q[j] < q[i];
        double diff = (double)rank - (double)i;
        s += diff * diff;
    }
    return 1.0 - 6.0 * s / (16.0 * (16.0 * 16.0 - 1.0));
}

/* On the ESB-like group the median of t_d rises with the load and the band narrows
 * (width_ratio < 1, p <= 0.01); on the NPB-like group the median is flat and the band
 * as wide as the marginal. Computed on request (significance=1, B = 999). */
static void kde_and_significance(const struct sample_case *c)
{
    char esb[17], npb[17];
    double q[16];

    group_of(c, "esb_model", esb, sizeof esb);
    group_of(c, "npb_lattice", npb, sizeof npb);
    json_t *e = association(c, esb, "&significance=1");
    json_t *n = association(c, npb, "&significance=1");
    for (int g = 0; g < 2; g++) {
        const json_t *o = g == 0 ? e : n;
        assert_string_equal(json_string_value(json_object_get(o, "space")), "log");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(o, "kde"), "space")),
            "log");
        assert_int_equal((long)number_at(o, "significance", NULL, "permutations"), 999);
        assert_int_equal((long)number_at(o, "significance", NULL, "seed"), 20240601);
    }
    double rho = q50_trend(e, q);
    double esb_rise = q[15] / q[0];
    double esb_wr = number_at(e, "kde", NULL, "width_ratio");
    double esb_p = number_at(e, "significance", "width_ratio", "p_value");
    double npb_rho = q50_trend(n, q);
    double npb_drift = q[15] / q[0] - 1.0;
    double npb_wr = number_at(n, "kde", NULL, "width_ratio");
    double npb_p = number_at(n, "significance", "width_ratio", "p_value");
    print_message("seed %lu esb: q50 Spearman %.3f, q50[15]/q50[0] %.4f, width_ratio "
                  "%.4f (p %.4f, paper %.4f, pearson p %.4f)\n",
                  c->seed, rho, esb_rise, esb_wr, esb_p,
                  number_at(e, "kde", NULL, "paper_width_ratio"),
                  number_at(e, "significance", "pearson", "p_value"));
    print_message("seed %lu npb: q50 Spearman %.3f, q50[15]/q50[0] - 1 = %.4f, "
                  "width_ratio %.4f (p %.4f, paper %.4f)\n",
                  c->seed, npb_rho, npb_drift, npb_wr, npb_p,
                  number_at(n, "kde", NULL, "paper_width_ratio"));
    assert_true(rho > 0.8);
    assert_true(esb_rise > 1.2);
    assert_true(esb_wr < 1.0);
    assert_true(esb_p <= 0.01);
    assert_true(number_at(e, "significance", "pearson", "p_value") <= 0.01);
    assert_true(fabs(npb_drift) < NPB_Q50_DRIFT);
    assert_true(fabs(npb_wr - 1.0) < NPB_WIDTH);
    json_decref(e);
    json_decref(n);
}

/* analyze stores the significance at the base granularity with its seed; the API
 * serves it beside a fresh computation of the same jobs, equal to what it computes on
 * request with the same B and seed; significance=0 leaves it out. B = 99 keeps it
 * short. */
static void stored_significance_is_served(const struct sample_case *c)
{
    char esb[17], conf[600];

    group_of(c, "esb_model", esb, sizeof esb);
    sample_conf(c->dir, conf, sizeof conf);
    int rc = pgfixture_cmd(&c->db,
                           "--quiet --config '%s' analyze --group %s "
                           "--permutations 99",
                           conf, esb);
    assert_true(rc == 0 || rc == 1);
    /* The server reads the data version once a second: its answers are those of the
     * new results once it read it after the run (a faster analyze met the old). */
    server_await_data(&c->srv);
    json_t *stored = association(c, esb, "");
    json_t *fresh = association(c, esb, "&permutations=99");
    json_t *none = association(c, esb, "&significance=0");
    const json_t *s = json_object_get(stored, "significance");
    assert_non_null(s);
    assert_int_equal((long)number_at(stored, "significance", NULL, "permutations"), 99);
    assert_true(json_equal(s, json_object_get(fresh, "significance")));
    assert_null(json_object_get(none, "significance"));
    assert_true(json_equal(json_object_get(stored, "kde"), json_object_get(none, "kde")));
    json_decref(stored);
    json_decref(fresh);
    json_decref(none);
}

/* space selects the fitting space; space=log excludes the jobs with a value <= 0
 * (t_s is 0 for a group without shared files), counted; density=1 adds the grid. */
static void space_and_density(const struct sample_case *c)
{
    char esb[17], path[512];

    group_of(c, "esb_model", esb, sizeof esb);
    json_t *lin = association(c, esb, "&space=linear&density=1");
    assert_string_equal(json_string_value(json_object_get(lin, "space")), "linear");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(lin, "kde"), "space")),
        "linear");
    const json_t *grid = json_object_get(json_object_get(lin, "kde"), "density");
    assert_int_equal(json_array_size(json_object_get(grid, "values")), 128);
    assert_int_equal(json_array_size(json_array_get(json_object_get(grid, "values"), 0)),
                     128);
    assert_true(number_at(lin, "kde", "density", "dx") > 0.0);
    json_decref(lin);
    snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=t_s&x=psi_d_read", esb);
    json_t *autos = server_get_json(&c->srv, path, NULL, 200);
    snprintf(path, sizeof path,
             "/api/v1/groups/%s/association?y=t_s&x=psi_d_read&space=log", esb);
    json_t *logs = server_get_json(&c->srv, path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(autos, "space")), "linear");
    assert_string_equal(json_string_value(json_object_get(logs, "space")), "log");
    double d = number_at(autos, "d", NULL, NULL);
    assert_true(d > 0);
    assert_rel(number_at(logs, "excluded", NULL, "nonpositive_in_log_space"), d, 0.0);
    assert_rel(number_at(logs, "d", NULL, NULL), 0.0, 0.0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(logs, "kde"), "reason")),
        "d_below_min");
    json_decref(autos);
    json_decref(logs);
}

/* The planted effect: with contention, the ESB-like group's I/O time follows the
 * system-wide read volume (r > 0.4) and the NPB-like group's does not (|r| < 0.15). */
static void coupled_sample_esb_follows_system_reads_and_npb_does_not(void **state)
{
    const struct sample_case *c = *state;
    double esb = NAN, npb = NAN;

    assert_true(c->coupled);
    served_against_oracle(c, &esb, &npb);
    assert_true(esb > 0.4);
    assert_true(fabs(npb) < 0.15);
    kde_and_significance(c);
    stored_significance_is_served(c);
    space_and_density(c);
}

/* Without planted contention nothing ties the ESB-like group to the load (r < 0.2). */
static void uncoupled_sample_esb_does_not_follow_system_reads(void **state)
{
    const struct sample_case *c = *state;
    double esb = NAN, npb = NAN;

    assert_false(c->coupled);
    served_against_oracle(c, &esb, &npb);
    assert_true(esb < 0.2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        {"coupled_seed_1_esb_follows_system_reads_and_npb_does_not",
         coupled_sample_esb_follows_system_reads_and_npb_does_not, setup, teardown,
         &cases[0]},
        {"coupled_seed_2_esb_follows_system_reads_and_npb_does_not",
         coupled_sample_esb_follows_system_reads_and_npb_does_not, setup, teardown,
         &cases[1]},
        {"coupled_seed_20240601_esb_follows_system_reads_and_npb_does_not",
         coupled_sample_esb_follows_system_reads_and_npb_does_not, setup, teardown,
         &cases[2]},
        {"coupling_0_seed_1_esb_does_not_follow_system_reads",
         uncoupled_sample_esb_does_not_follow_system_reads, setup, teardown, &cases[3]},
        {"coupling_0_seed_2_esb_does_not_follow_system_reads",
         uncoupled_sample_esb_does_not_follow_system_reads, setup, teardown, &cases[4]},
        {"coupling_0_seed_20240601_esb_does_not_follow_system_reads",
         uncoupled_sample_esb_does_not_follow_system_reads, setup, teardown, &cases[5]},
    };
    unsetenv("IOCONTEND_TOKEN"); /* the servers here are open */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
