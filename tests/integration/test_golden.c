/* test_golden.c: the program's outputs and its HTTP answers, on the generated sample
 * data and on the lab run, replayed from the manifests of tests/cases/golden/ and
 * compared with what the code of 2026-11-25 gave (recorded by the same test with
 * IOCONTEND_GOLDEN_RECORD=1; tests/cases/golden/README.md says what is masked). Every
 * command and every route is run against the binary under test ($IOCONTEND_BIN) in a
 * throwaway database: a restructuring that keeps behaviour keeps them all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/golden.h"
#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sample data of the recording: the default seed and coupling, one day (420 jobs
 * per group, 1440 samples per device), loaded in about 2 s. */
#define SEED     20240601UL
#define GEN_ARGS "--days 1"
/* The lab run's configuration, as tests/integration/test_coverage.c has it: every job
 * file is on the root file system of the one device sampled, whose clock is 0.9 s
 * behind the jobs'. */
#define LAB_CONF "[filesystems]\n/ = lab\n[samples]\nsample_offset_s = 0.9\n"

static struct {
    struct pgfixture db;
    struct golden_env env;
    char dir[PATH_MAX];  /* tests/cases/golden/<data set> */
    char work[512];      /* scratch: the generated data, files written by commands */
    char data[PATH_MAX]; /* the data set */
    char conf[PATH_MAX]; /* its configuration */
} fx;

static int start(const char *set)
{
    const char *tmp = getenv("TMPDIR");

    memset(&fx, 0, sizeof fx);
    if (!golden_case_dir(set, fx.dir, sizeof fx.dir)) {
        fprintf(stderr, "no tests/cases/%s from here\n", set);
        return -1;
    }
    snprintf(fx.work, sizeof fx.work, "%s/iocontend-golden-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(fx.work) == NULL) {
        fx.work[0] = '\0';
        return -1;
    }
    /* Migrated before the first case, so that no case's log says which migrations it
     * applied (the first command to open the database would). */
    if (pgfixture_start(&fx.db) != 0)
        return -1;
    return pgfixture_cmd(&fx.db, "--quiet db migrate") == 0 ? 0 : -1;
}

static void use_env(void)
{
    fx.env.db = &fx.db;
    fx.env.dir = fx.dir;
    fx.env.work = fx.work;
    fx.env.data = fx.data;
    fx.env.conf = fx.conf;
}

static int sample_setup(void **state)
{
    (void)state;
    if (start("golden/sample") != 0)
        return -1;
    snprintf(fx.data, sizeof fx.data, "%s/sample", fx.work);
    if (sample_generate(fx.data, SEED, GEN_ARGS) != 0)
        return -1;
    sample_conf(fx.data, fx.conf, sizeof fx.conf);
    use_env();
    return 0;
}

static int lab_setup(void **state)
{
    (void)state;
    if (start("golden/lab") != 0)
        return -1;
    const char *lab = testutil_path(testutil_shared_data(), "lab/run1_queue_depth");
    if (realpath(lab, fx.data) == NULL) {
        fprintf(stderr, "no lab run at %s\n", lab);
        return -1;
    }
    snprintf(fx.conf, sizeof fx.conf, "%s/lab.conf", fx.work);
    FILE *fp = fopen(fx.conf, "w");
    if (fp == NULL)
        return -1;
    fputs(LAB_CONF, fp);
    fclose(fp);
    use_env();
    return 0;
}

/* The gap rule's case (tests/cases/golden/gaps): the lab's jobs in one hand-made
 * group, over its capture less four reports and with one twice. @CONF@ has the
 * default gap rule, @WORK@/strict.conf the strict rule of the code before it, and
 * @WORK@/paper.conf the paper's profile, which implies the strict rule. */
#define GAPS_GROUP "[group lab]\nexecutable = ^labjob\n"

static int write_conf(const char *path, const char *text)
{
    return testutil_write_file(path, text, strlen(text));
}

static int gaps_setup(void **state)
{
    char strict[PATH_MAX + 16], paper[PATH_MAX + 16];

    (void)state;
    if (start("golden/gaps") != 0)
        return -1;
    snprintf(fx.data, sizeof fx.data, "%s", fx.dir);
    snprintf(fx.conf, sizeof fx.conf, "%s/gaps.conf", fx.work);
    snprintf(strict, sizeof strict, "%s/strict.conf", fx.work);
    snprintf(paper, sizeof paper, "%s/paper.conf", fx.work);
    if (write_conf(fx.conf, LAB_CONF GAPS_GROUP) != 0 ||
        write_conf(strict, LAB_CONF "fill_max = 0\nxff = 0\n" GAPS_GROUP) != 0 ||
        write_conf(paper, LAB_CONF "[analysis]\nprofile = paper\n" GAPS_GROUP) != 0)
        return -1;
    use_env();
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 32];
    int rc = 0;

    (void)state;
    golden_stop(&fx.env);
    pgfixture_stop(&fx.db);
    if (fx.work[0] != '\0') {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.work);
        free(testutil_run(cmd, &rc));
    }
    return 0;
}

/* Ingest, analyze (with 19 permutations, so that a significance is stored), the
 * sweep, export, report, config, db status, assoc, help and usage errors, then every
 * route, as the sample data's manifest lists them. */
static void sample_data_commands_and_routes_answer_as_recorded(void **state)
{
    (void)state;
    assert_int_equal(golden_run_manifest(&fx.env), 0);
}

/* The same on the lab run: 30 real jobs of one group on one device sampled every
 * second. */
static void lab_run_commands_and_routes_answer_as_recorded(void **state)
{
    (void)state;
    assert_int_equal(golden_run_manifest(&fx.env), 0);
}

/* Four missed reports and one repeated: the strict rule (fill_max 0, xff 0) loses
 * the jobs whose span or I/O holds one, as the code before the rule did; the default
 * rule keeps what the complete capture keeps (all 30 at the base interval, 29 in the
 * sweep) and says which seconds it filled. */
static void missed_reports_cost_no_job_under_the_gap_rule(void **state)
{
    (void)state;
    assert_int_equal(golden_run_manifest(&fx.env), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            sample_data_commands_and_routes_answer_as_recorded, sample_setup, teardown),
        cmocka_unit_test_setup_teardown(lab_run_commands_and_routes_answer_as_recorded,
                                        lab_setup, teardown),
        cmocka_unit_test_setup_teardown(missed_reports_cost_no_job_under_the_gap_rule,
                                        gaps_setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
