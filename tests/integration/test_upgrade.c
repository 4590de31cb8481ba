/* test_upgrade.c: results stored by an older iocontend are served by this one. A
 * database made by the code of 2026-11-25 (tests/cases/upgrade/sample.sql.gz: the
 * generated sample, ingested, analysed, swept; made by make_dump.sh) is restored into
 * a throwaway database and served by the binary under test without analysing again;
 * its answers are compared with what the old server gave (the manifest beside the
 * dump, masked and compared as tests/cases/golden/README.md says). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/golden.h"
#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    struct pgfixture db;
    struct golden_env env;
    char dir[1024];      /* tests/cases/upgrade */
    char work[512];      /* scratch */
    char conf[PATH_MAX]; /* the sample's iocontend.conf, kept beside the dump */
} fx;

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    memset(&fx, 0, sizeof fx);
    if (!golden_case_dir("upgrade", fx.dir, sizeof fx.dir)) {
        fprintf(stderr, "no tests/cases/upgrade from here\n");
        return -1;
    }
    snprintf(fx.conf, sizeof fx.conf, "%s/iocontend.conf", fx.dir);
    snprintf(fx.work, sizeof fx.work, "%s/iocontend-upgrade-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(fx.work) == NULL) {
        fx.work[0] = '\0';
        return -1;
    }
    char dump[PATH_MAX + 16];
    snprintf(dump, sizeof dump, "%s/sample.sql.gz", fx.dir);
    if (pgfixture_start(&fx.db) != 0 || pgfixture_restore_gz(&fx.db, dump) != 0)
        return -1;
    fx.env.db = &fx.db;
    fx.env.dir = fx.dir;
    fx.env.work = fx.work;
    fx.env.data = "";
    fx.env.conf = fx.conf;
    return 0;
}

static int teardown(void **state)
{
    char cmd[600];
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

/* The restored database is at the schema the old version wrote (5); the new binary
 * migrates it when it opens it: 0006 (hand-made groups) adds a column and a table,
 * 0007 the jobs' negative_time flag, 0008 the quarantine's verdict key, 0009 the
 * interrupted runs and the tables' inputs, 0010 the ledger of loaded sample
 * files, 0011 the incomplete logs, 0012 the DXT traces, 0013 the samples' queue
 * columns, 0014 the data version, 0015 what /metrics reads of the runs, 0016 the
 * configuration's groups and settings that analyze read, 0017 the stored series
 * (empty until the first ingest or analyze builds them: serve reads the samples
 * meanwhile), 0018 the coverage's days (empty: the first analyze computes every
 * day), 0019 its pre-buckets, and what the old version stored is served as before. */
static void restored_database_migrates_from_the_old_schema_version(void **state)
{
    int rc = -1;

    (void)state;
    char *out = pgfixture_run(&fx.db, "db migrate 2>&1", &rc);
    assert_non_null(out);
    bool ok = rc == 0 && strstr(out, "applied migration 0006_hand_groups") != NULL &&
              strstr(out, "applied migration 0007_negative_time") != NULL &&
              strstr(out, "applied migration 0008_quarantine_verdict") != NULL &&
              strstr(out, "applied migration 0009_run_state") != NULL &&
              strstr(out, "applied migration 0010_sample_ledger") != NULL &&
              strstr(out, "applied migration 0011_incomplete_log") != NULL &&
              strstr(out, "applied migration 0012_dxt") != NULL &&
              strstr(out, "applied migration 0013_sample_queue") != NULL &&
              strstr(out, "applied migration 0014_data_version") != NULL &&
              strstr(out, "applied migration 0015_run_metrics") != NULL &&
              strstr(out, "applied migration 0016_configured") != NULL &&
              strstr(out, "applied migration 0017_series") != NULL &&
              strstr(out, "applied migration 0018_coverage_days") != NULL &&
              strstr(out, "applied migration 0019_coverage_pre") != NULL &&
              strstr(out, "migrations applied: 14; schema version 19") != NULL;
    if (!ok)
        print_error("db migrate exited %d: %s\n", rc, out);
    free(out);
    assert_true(ok);
}

/* Every answer of the manifest, served from what the old version stored. */
static void stored_results_of_the_old_version_are_served_as_it_served_them(void **state)
{
    (void)state;
    assert_int_equal(golden_run_manifest(&fx.env), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restored_database_migrates_from_the_old_schema_version),
        cmocka_unit_test(stored_results_of_the_old_version_are_served_as_it_served_them),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
