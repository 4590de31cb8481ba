/* test_queue.c: the queue metrics of METHOD.md §11 (q_d, u_d, await_d) on the lab run
 * through a real PostgreSQL: every job has them, the job's I/O time follows them as
 * §11 says (scipy on the exported values, and our own assoc), each value equals the
 * independent oracle tests/oracles/queue_ref.py, and a source without the queue columns
 * (iostat -d) gives null metrics with reason no_queue_data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE "tests/oracles/queue_ref.py"
/* The lab's iostat samples every second, its clock 0.9 s behind the jobs' (§1). */
#define LAB_DELTA_S  1.0
#define LAB_OFFSET_S 0.9
#define LAB_JOBS     30
/* METHOD.md §11's figures on the lab run, and the tolerance the issue gives. */
#define TAU_Q_PEARSON      0.944
#define TAU_Q_SPEARMAN     0.945
#define TAU_AWAIT_PEARSON  0.885
#define TAU_AWAIT_SPEARMAN 0.873
#define FIGURE_TOL         0.02
/* The export prints 17 significant digits; the oracle sums in another order. */
#define REL 1e-9

static struct {
    struct pgfixture db;
    char lab[512];
    char conf[600];
    char csv[600];  /* export jobs --granularity 1, csv */
    json_t *oracle; /* queue_ref.py jobs */
    bool extended;  /* iostat -x loaded (else iostat -d) */
} fx;

/* ---- helpers ------------------------------------------------------------------- */

static json_t *run_oracle(const char *args)
{
    const char *script = testutil_repo_file(ORACLE);
    char cmd[4096];
    json_error_t jerr;
    int rc = -1;

    if (script == NULL)
        return NULL;
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s", testutil_oracle_python(), script, args);
    char *out = testutil_run(cmd, &rc);
    json_t *j = out != NULL && rc == 0 ? json_loads(out, 0, &jerr) : NULL;
    if (j == NULL)
        fprintf(stderr, "oracle `%s` exited %d:\n%s\n", cmd, rc, out != NULL ? out : "");
    free(out);
    return j;
}

/* The lab's darshan texts and one of its iostat captures, exported at Δ. */
static int lab_start(const char *iostat, bool extended)
{
    FILE *fp;

    memset(&fx, 0, sizeof fx);
    fx.extended = extended;
    snprintf(fx.lab, sizeof fx.lab, "%s",
             testutil_path(testutil_shared_data(), "lab/run1_queue_depth"));
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    snprintf(fx.conf, sizeof fx.conf, "%s/lab.conf", fx.db.state_dir);
    snprintf(fx.csv, sizeof fx.csv, "%s/jobs.csv", fx.db.state_dir);
    fp = fopen(fx.conf, "w");
    if (fp == NULL)
        return -1;
    fprintf(fp, "[filesystems]\n/ = lab\n[samples]\nsample_offset_s = %g\n",
            LAB_OFFSET_S);
    fclose(fp);
    if (pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest darshan '%s/darshan/'*.parser.txt",
                      fx.conf, fx.lab) != 0 ||
        pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' ingest iostat --fs lab '%s/iostat/%s'",
                      fx.conf, fx.lab, iostat) != 0 ||
        pgfixture_cmd(&fx.db,
                      "--quiet --config '%s' export jobs --granularity %g --out '%s'",
                      fx.conf, LAB_DELTA_S, fx.csv) != 0)
        return -1;
    if (extended) {
        char args[2048];
        snprintf(args, sizeof args,
                 "jobs --conf '%s' --darshan '%s/darshan' --iostat '%s/iostat/%s' "
                 "--delta %g --offset %g",
                 fx.conf, fx.lab, fx.lab, iostat, LAB_DELTA_S, LAB_OFFSET_S);
        fx.oracle = run_oracle(args);
        if (fx.oracle == NULL)
            return -1;
    }
    return 0;
}

static int lab_x_setup(void **state)
{
    (void)state;
    return lab_start("iostat_dxt.txt", true);
}

static int lab_d_setup(void **state)
{
    (void)state;
    return lab_start("iostat_dkt.txt", false);
}

static int lab_teardown(void **state)
{
    (void)state;
    json_decref(fx.oracle);
    pgfixture_stop(&fx.db);
    return 0;
}

/* The export's rows: header names and each row's fields (owned by *text). */
struct table {
    char *text;
    char **cell; /* rows × cols */
    size_t rows, cols;
};

static void table_read(const char *path, struct table *t)
{
    size_t len = 0, cap = 0, n = 0;
    char *at;

    memset(t, 0, sizeof *t);
    t->text = testutil_read_file(path, &len);
    assert_non_null(t->text);
    for (at = t->text; *at != '\0'; at++) {
        if (n == cap) {
            cap = cap == 0 ? 1024 : 2 * cap;
            t->cell = realloc(t->cell, cap * sizeof *t->cell);
            assert_non_null(t->cell);
        }
        t->cell[n++] = at;
        while (*at != ',' && *at != '\n' && *at != '\0')
            at++;
        if (*at == '\n' && t->cols == 0)
            t->cols = n;
        if (*at == '\0')
            break;
        *at = '\0';
    }
    assert_true(t->cols > 0 && n % t->cols == 0);
    t->rows = n / t->cols - 1;
}

static const char *table_get(const struct table *t, size_t row, const char *name)
{
    for (size_t c = 0; c < t->cols; c++) {
        if (strcmp(t->cell[c], name) == 0)
            return t->cell[(row + 1) * t->cols + c];
    }
    fail_msg("no column %s", name);
    return NULL;
}

static double table_num(const struct table *t, size_t row, const char *name)
{
    const char *v = table_get(t, row, name);
    char *end;
    double d = strtod(v, &end);

    return v[0] != '\0' && *end == '\0' ? d : (double)NAN;
}

static void table_free(struct table *t)
{
    free(t->cell);
    free(t->text);
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        fail_msg("%s is not a number", key);
    return json_number_value(v);
}

/* ---- iostat -x: every job, the oracle, the figures ----------------------------- */

static void every_lab_job_has_the_oracles_queue_metrics(void **state)
{
    struct table t;
    size_t checked = 0;

    (void)state;
    table_read(fx.csv, &t);
    assert_int_equal(t.rows, LAB_JOBS);
    for (size_t r = 0; r < t.rows; r++) {
        const char *jobid = table_get(&t, r, "jobid");
        const json_t *o = json_object_get(fx.oracle, jobid);

        assert_string_equal(table_get(&t, r, "excluded_q"), "");
        assert_true(isfinite(table_num(&t, r, "q_d")));
        assert_true(isfinite(table_num(&t, r, "u_d")));
        assert_true(isfinite(table_num(&t, r, "await_d")));
        if (o == NULL)
            fail_msg("the oracle has no job %s", jobid);
        assert_rel(table_num(&t, r, "m"), num(o, "m"), 0.0);
        assert_rel(table_num(&t, r, "q_d"), num(o, "q_d"), REL * num(o, "q_d"));
        assert_rel(table_num(&t, r, "u_d"), num(o, "u_d"), REL * num(o, "u_d"));
        assert_rel(table_num(&t, r, "await_d"), num(o, "await_d"),
                   REL * num(o, "await_d"));
        /* A queue is at least 0, %util a fraction, await a few ms at most here. */
        assert_true(table_num(&t, r, "q_d") >= 0 && table_num(&t, r, "u_d") <= 1.0);
        assert_true(table_num(&t, r, "await_d") > 0 && table_num(&t, r, "await_d") < 1.0);
        checked++;
    }
    assert_int_equal(checked, LAB_JOBS);
    table_free(&t);
}

/* Our assoc on the exported CSV; its JSON object. */
static json_t *our_assoc(const char *x)
{
    char args[1024];
    int rc = -1;
    json_error_t jerr;

    snprintf(args, sizeof args,
             "assoc --input '%s' --y tau --x %s --space linear "
             "--methods pearson,spearman --json",
             fx.csv, x);
    char *out = pgfixture_run(&fx.db, args, &rc);
    json_t *j = out != NULL && rc == 0 ? json_loads(out, 0, &jerr) : NULL;
    if (j == NULL)
        fail_msg("assoc exited %d: %s", rc, out != NULL ? out : "");
    free(out);
    return j;
}

static void tau_follows_the_queue_as_method_says(void **state)
{
    char args[1024];
    const char *xs[2] = {"q_d", "await_d"};
    const double want[2][2] = {{TAU_Q_PEARSON, TAU_Q_SPEARMAN},
                               {TAU_AWAIT_PEARSON, TAU_AWAIT_SPEARMAN}};

    (void)state;
    snprintf(args, sizeof args, "assoc --csv '%s' --y tau --x q_d --x await_d", fx.csv);
    json_t *scipy = run_oracle(args);
    assert_non_null(scipy);
    for (size_t i = 0; i < 2; i++) {
        const json_t *s = json_object_get(scipy, xs[i]);
        json_t *ours = our_assoc(xs[i]);

        assert_non_null(s);
        print_message("tau~%s: pearson %.4f, spearman %.4f (METHOD.md: %.3f, %.3f)\n",
                      xs[i], num(s, "pearson"), num(s, "spearman"), want[i][0],
                      want[i][1]);
        assert_int_equal((long)num(s, "d"), LAB_JOBS);
        assert_rel(num(s, "pearson"), want[i][0], FIGURE_TOL);
        assert_rel(num(s, "spearman"), want[i][1], FIGURE_TOL);
        assert_int_equal((long)num(ours, "d"), LAB_JOBS);
        assert_rel(num(ours, "pearson"), num(s, "pearson"), 1e-12);
        assert_rel(num(ours, "spearman"), num(s, "spearman"), 1e-12);
        json_decref(ours);
    }
    json_decref(scipy);
}

static void json_export_names_the_queue_metrics(void **state)
{
    int rc = -1;
    json_error_t jerr;
    char args[1024];

    (void)state;
    snprintf(args, sizeof args,
             "--quiet --config '%s' export jobs --granularity %g --format json", fx.conf,
             LAB_DELTA_S);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_int_equal(rc, 0);
    json_t *doc = json_loads(out, 0, &jerr);
    assert_non_null(doc);
    const json_t *jobs = json_object_get(doc, "jobs");
    assert_int_equal(json_array_size(jobs), LAB_JOBS);
    const json_t *j = json_array_get(jobs, 0);
    assert_null(json_object_get(json_object_get(j, "excluded"), "q"));
    assert_true(json_is_number(json_object_get(j, "q_d")));
    assert_true(json_is_number(json_object_get(j, "u_d")));
    assert_true(json_is_number(json_object_get(j, "await_d")));
    json_decref(doc);
    free(out);
}

/* ---- iostat -d: no queue columns ------------------------------------------------ */

static void basic_iostat_gives_no_queue_data(void **state)
{
    struct table t;

    (void)state;
    table_read(fx.csv, &t);
    assert_int_equal(t.rows, LAB_JOBS);
    for (size_t r = 0; r < t.rows; r++) {
        assert_string_equal(table_get(&t, r, "excluded_q"), "no_queue_data");
        assert_true(isnan(table_num(&t, r, "q_d")));
        assert_true(isnan(table_num(&t, r, "u_d")));
        assert_true(isnan(table_num(&t, r, "await_d")));
        /* The volume over the same intervals is there: only the queue is missing. */
        assert_string_equal(table_get(&t, r, "excluded_d"), "");
        assert_true(isfinite(table_num(&t, r, "psi_d_write")));
    }
    table_free(&t);
}

static void json_export_says_no_queue_data(void **state)
{
    int rc = -1;
    json_error_t jerr;
    char args[1024];

    (void)state;
    snprintf(args, sizeof args,
             "--quiet --config '%s' export jobs --granularity %g --format json", fx.conf,
             LAB_DELTA_S);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_int_equal(rc, 0);
    json_t *doc = json_loads(out, 0, &jerr);
    assert_non_null(doc);
    const json_t *j = json_array_get(json_object_get(doc, "jobs"), 0);
    assert_true(json_is_null(json_object_get(j, "q_d")));
    assert_true(json_is_null(json_object_get(j, "await_d")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(j, "excluded"), "q")),
        "no_queue_data");
    json_decref(doc);
    free(out);
}

int main(void)
{
    const struct CMUnitTest extended[] = {
        cmocka_unit_test(every_lab_job_has_the_oracles_queue_metrics),
        cmocka_unit_test(tau_follows_the_queue_as_method_says),
        cmocka_unit_test(json_export_names_the_queue_metrics),
    };
    const struct CMUnitTest basic[] = {
        cmocka_unit_test(basic_iostat_gives_no_queue_data),
        cmocka_unit_test(json_export_says_no_queue_data),
    };
    int failed =
        cmocka_run_group_tests_name("iostat -x", extended, lab_x_setup, lab_teardown);
    failed += cmocka_run_group_tests_name("iostat -d", basic, lab_d_setup, lab_teardown);
    return failed;
}
