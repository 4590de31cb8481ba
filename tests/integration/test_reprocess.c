/* test_reprocess.c: `ingest --reprocess` on a database loaded before this version.
 * The database is the one test_upgrade restores (tests/cases/upgrade/sample.sql.gz:
 * the generated sample ingested and analysed by the code of 2026-11-25, before the
 * samples had queue columns), migrated by the binary under test. Reprocessing the
 * sample's iostat files (generated again: the same seed gives the same bytes, so
 * the same content keys) gives every sample its queue columns, the values a fresh
 * load gives, and changes no other row; the darshan text adds nothing. The lab's
 * binary logs, loaded and then stripped of their DXT traces (a database loaded
 * before DXT), get back the very same trace rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/golden.h"
#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/testutil.h"

#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    struct pgfixture db;
    char work[512];      /* scratch: the generated sample */
    char conf[PATH_MAX]; /* the sample's iocontend.conf */
} fx;

/* Every stored row but the ingest runs and the samples' queue columns, hashed per
 * table: what --reprocess must leave as it was. */
static const char *const kept_sql =
    "SELECT concat_ws('|', "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM jobs t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM job_windows t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM loaded_files t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM app_groups t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM ingest_errors t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM sample_ledger t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM "
    "  (SELECT fs, server, device, stamp_s, interval_s, r_bps, w_bps, ro_ps, wo_ps, "
    "   ops_total_ps, source_hash FROM samples) t), "
    "(SELECT count(*) FROM samples))";

/* The queue columns of every sample, hashed. */
static const char *const queue_sql =
    "SELECT md5(string_agg(concat_ws('|', fs, server, device, stamp_s, aqu_sz, "
    "util_pct, r_await_ms, w_await_ms, await_ms), E'\\n' ORDER BY fs, server, device, "
    "stamp_s)) FROM samples";

/* The DXT rows (without their load time). */
static const char *const traces_sql =
    "SELECT concat_ws('|', "
    "(SELECT md5(string_agg(concat_ws(',', job_key, incomplete, n_ops, source_hash, "
    "  source_path), E'\\n' ORDER BY job_key)) FROM job_traces), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM dxt_ops t), "
    "(SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM job_x_windows t), "
    "(SELECT count(*) FROM dxt_ops))";

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], dump[PATH_MAX + 16];

    (void)state;
    memset(&fx, 0, sizeof fx);
    if (!golden_case_dir("upgrade", dir, sizeof dir))
        return -1;
    snprintf(dump, sizeof dump, "%s/sample.sql.gz", dir);
    snprintf(fx.work, sizeof fx.work, "%s/iocontend-reprocess-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(fx.work) == NULL) {
        fx.work[0] = '\0';
        return -1;
    }
    /* as tests/cases/upgrade/make_dump.sh made it: without victims */
    if (sample_generate(fx.work, 20240601UL, "--days 1 --victims 0") != 0)
        return -1;
    snprintf(fx.conf, sizeof fx.conf, "%s/iocontend.conf", fx.work);
    if (pgfixture_start(&fx.db) != 0 || pgfixture_restore_gz(&fx.db, dump) != 0)
        return -1;
    return pgfixture_cmd(&fx.db, "--quiet db migrate") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];
    int rc = 0;

    (void)state;
    pgfixture_stop(&fx.db);
    if (fx.work[0] != '\0') {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.work);
        free(testutil_run(cmd, &rc));
    }
    return 0;
}

static char *value(const char *sql)
{
    char *v = pgfixture_query(&fx.db, sql, NULL);
    assert_non_null(v);
    return v;
}

static long long count(const char *sql)
{
    char *v = value(sql);
    long long n = strtoll(v, NULL, 10);
    free(v);
    return n;
}

/* iocontend ARGS (--config the sample's), asserting exit status want; its --json
 * summary, or NULL for a command without one. */
static json_t *run(const char *args, int want, bool json)
{
    char full[PATH_MAX + 2048];
    int rc = -1;

    snprintf(full, sizeof full, "--quiet --config '%s' %s", fx.conf, args);
    char *out = pgfixture_run(&fx.db, full, &rc);
    assert_non_null(out);
    if (rc != want)
        fail_msg("iocontend %s: exit %d, wanted %d: %s", args, rc, want, out);
    json_t *j = json ? json_loads(out, 0, NULL) : NULL;
    if (json && j == NULL)
        fail_msg("iocontend %s: not JSON: %s", args, out);
    free(out);
    return j;
}

static long long field(const json_t *j, const char *key)
{
    const json_t *v = json_object_get(j, key);
    if (!json_is_integer(v))
        fail_msg("the summary has no whole number %s", key);
    return (long long)json_integer_value(v);
}

/* `ingest iostat --reprocess` of both file systems' files: the reprocessed and filled
 * counts summed. */
static void reprocess_samples(long long *reprocessed, long long *filled)
{
    *reprocessed = *filled = 0;
    for (int fs = 1; fs <= 2; fs++) {
        char args[1024];
        snprintf(args, sizeof args,
                 "ingest iostat --fs scratch%d --reprocess --json '%s/iostat/scratch%d'",
                 fs, fx.work, fs);
        json_t *j = run(args, 0, true);
        assert_int_equal(field(j, "loaded"), 0);
        assert_int_equal(field(j, "quarantined"), 0);
        assert_int_equal(field(j, "samples"), 0);
        *reprocessed += field(j, "reprocessed");
        *filled += field(j, "filled");
        json_decref(j);
    }
}

/* The restored samples have no queue columns; --reprocess gives every one of them
 * its columns and changes nothing else; a second run has nothing left to fill. */
static void samples_gain_their_queue_columns_and_nothing_else_changes(void **state)
{
    (void)state;
    const long long n = count("SELECT count(*) FROM samples");
    assert_true(n > 10000);
    assert_int_equal(count("SELECT count(*) FROM samples WHERE num_nonnulls(aqu_sz, "
                           "util_pct, r_await_ms, w_await_ms, await_ms) > 0"),
                     0);
    char *kept = value(kept_sql);
    long long reprocessed = 0, filled = 0;

    reprocess_samples(&reprocessed, &filled);
    assert_int_equal(reprocessed, 8); /* 4 servers' files per file system */
    assert_int_equal(filled, n);
    assert_int_equal(count("SELECT count(*) FROM samples WHERE aqu_sz IS NOT NULL AND "
                           "util_pct IS NOT NULL AND r_await_ms IS NOT NULL AND "
                           "w_await_ms IS NOT NULL"),
                     n);
    char *after = value(kept_sql);
    assert_string_equal(after, kept);
    free(after);

    reprocess_samples(&reprocessed, &filled);
    assert_int_equal(reprocessed, 8);
    assert_int_equal(filled, 0);
    after = value(kept_sql);
    assert_string_equal(after, kept);
    free(after);
    free(kept);
}

/* What --reprocess filled is what loading the files afresh stores: the sample runs
 * of the old database unloaded, the same files ingested again. */
static void filled_columns_equal_a_fresh_load(void **state)
{
    (void)state;
    char *filled = value(queue_sql);
    const long long n = count("SELECT count(*) FROM samples");
    char *runs = value("SELECT string_agg(id::text, ' ' ORDER BY id) FROM ingest_runs "
                       "WHERE kind = 'iostat' AND samples > 0");
    char *save = NULL;

    for (char *id = strtok_r(runs, " ", &save); id != NULL;
         id = strtok_r(NULL, " ", &save)) {
        char args[64];
        snprintf(args, sizeof args, "unload --run %s", id);
        json_decref(run(args, 0, false));
    }
    free(runs);
    assert_int_equal(count("SELECT count(*) FROM samples"), 0);
    for (int fs = 1; fs <= 2; fs++) {
        char args[1024];
        snprintf(args, sizeof args,
                 "ingest iostat --fs scratch%d --json '%s/iostat/scratch%d'", fs, fx.work,
                 fs);
        json_t *j = run(args, 0, true);
        assert_int_equal(field(j, "loaded"), 4);
        json_decref(j);
    }
    assert_int_equal(count("SELECT count(*) FROM samples"), n);
    char *fresh = value(queue_sql);
    assert_string_equal(fresh, filled);
    free(fresh);
    free(filled);
}

/* The sample's darshan-parser text holds nothing an older version missed: every log
 * is read again, nothing is added, nothing changes. */
static void darshan_text_adds_nothing(void **state)
{
    (void)state;
    char *kept = value(kept_sql);
    char args[1024];

    snprintf(args, sizeof args, "ingest darshan --reprocess --json '%s/darshan'",
             fx.work);
    json_t *j = run(args, 0, true);
    assert_int_equal(field(j, "reprocessed"), 3 * 420);
    assert_int_equal(field(j, "filled"), 0);
    assert_int_equal(field(j, "loaded"), 0);
    assert_int_equal(field(j, "jobs"), 0);
    json_decref(j);
    char *after = value(kept_sql);
    assert_string_equal(after, kept);
    free(after);
    free(kept);
}

/* Stored results go stale when samples gain columns: the inputs' fingerprint counts
 * the samples with queue data, so analyze recomputes the groups. */
static void analyze_recomputes_after_samples_gain_columns(void **state)
{
    char out_path[PATH_MAX + 64];
    int rc = -1;

    (void)state;
    /* the database as it is now is analysed, then analysed again: nothing to do */
    run("analyze --permutations 19", 1, false);
    snprintf(out_path, sizeof out_path, "--config '%s' analyze --permutations 19 2>&1",
             fx.conf);
    char *out = pgfixture_run(&fx.db, out_path, &rc);
    assert_non_null(out);
    assert_non_null(strstr(out, "3 unchanged and kept"));
    free(out);
    /* a database loaded before: the columns go, analyze catches up, they come back */
    free(value("WITH u AS (UPDATE samples SET aqu_sz = NULL, util_pct = NULL, "
               "r_await_ms = NULL, w_await_ms = NULL, await_ms = NULL RETURNING 1) "
               "SELECT count(*) FROM u"));
    run("analyze --permutations 19", 1, false);
    long long reprocessed = 0, filled = 0;
    reprocess_samples(&reprocessed, &filled);
    assert_true(filled > 10000);
    out = pgfixture_run(&fx.db, out_path, &rc);
    assert_non_null(out);
    if (strstr(out, "3 groups computed") == NULL)
        fail_msg("analyze after --reprocess did not recompute: %s", out);
    free(out);
}

/* A stored sample a second off its re-read stamp (an earlier version placed it by its
 * printed second) is filled when no stored sample has the new stamp; one three
 * seconds off is not, and the log says how many stayed without. */
static void samples_a_second_off_are_filled_others_are_told(void **state)
{
    static const char pick[] =
        "(SELECT fs, server, device, stamp_s FROM samples WHERE fs = 'scratch1' ORDER BY "
        "server, device, stamp_s LIMIT 1 OFFSET %d)";
    char sql[1024], args[2 * PATH_MAX + 1024];
    int rc = -1;

    (void)state;
    const long long n = count("SELECT count(*) FROM samples");
    free(value("WITH u AS (UPDATE samples SET aqu_sz = NULL, util_pct = NULL, "
               "r_await_ms = NULL, w_await_ms = NULL, await_ms = NULL RETURNING 1) "
               "SELECT count(*) FROM u"));
    /* the generated samples are 10 s or more apart: these stamps are free */
    for (int k = 0; k < 2; k++) {
        char which[256];
        snprintf(which, sizeof which, pick, 10 + 10 * k);
        snprintf(sql, sizeof sql,
                 "WITH u AS (UPDATE samples s SET stamp_s = s.stamp_s + %d FROM %s p "
                 "WHERE (s.fs, s.server, s.device, s.stamp_s) = (p.fs, p.server, "
                 "p.device, p.stamp_s) RETURNING 1) SELECT count(*) FROM u",
                 k == 0 ? 1 : 3, which);
        assert_int_equal(count(sql), 1);
    }
    snprintf(args, sizeof args,
             "--config '%s' ingest iostat --fs scratch1 --reprocess --json '%s/iostat/"
             "scratch1' 2>&1",
             fx.conf, fx.work);
    char *out = pgfixture_run(&fx.db, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    if (strstr(out, "1 stored samples in its span found no sample of it") == NULL)
        fail_msg("no warning of the sample left: %s", out);
    free(out);
    assert_int_equal(count("SELECT count(*) FROM samples WHERE fs = 'scratch1' AND "
                           "aqu_sz IS NULL"),
                     1);
    /* put back as loaded, for whatever runs after */
    free(value("WITH u AS (DELETE FROM samples WHERE fs = 'scratch1' AND aqu_sz IS NULL "
               "RETURNING 1) SELECT count(*) FROM u"));
    long long reprocessed = 0, filled = 0;
    reprocess_samples(&reprocessed, &filled);
    assert_true(count("SELECT count(*) FROM samples") <= n);
}

/* The lab's binary logs loaded, their traces deleted (a database loaded before DXT
 * was read), then --reprocess: the very same trace rows come back, and only they. */
static void binary_logs_get_their_traces_back(void **state)
{
    char args[PATH_MAX + 128];
    glob_t g;

    (void)state;
    snprintf(args, sizeof args, "%s/lab/run1_queue_depth/darshan/*.darshan",
             testutil_shared_data());
    assert_int_equal(glob(args, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 30);
    globfree(&g);
    const char *lab = testutil_shared_data();
    snprintf(args, sizeof args,
             "ingest darshan --json %s/lab/run1_queue_depth/darshan/*.darshan", lab);
    json_t *j = run(args, 0, true);
    assert_int_equal(field(j, "loaded"), 30);
    json_decref(j);
    char *traces = value(traces_sql);
    assert_int_equal(count("SELECT count(*) FROM job_traces"), 30);
    free(value("WITH d AS (DELETE FROM job_traces RETURNING 1) SELECT count(*) FROM d"));
    assert_int_equal(count("SELECT count(*) FROM dxt_ops"), 0);
    char *kept = value(kept_sql);

    snprintf(
        args, sizeof args,
        "ingest darshan --reprocess --json %s/lab/run1_queue_depth/darshan/*.darshan",
        lab);
    j = run(args, 0, true);
    assert_int_equal(field(j, "reprocessed"), 30);
    assert_int_equal(field(j, "filled"), 30);
    assert_int_equal(field(j, "loaded"), 0);
    json_decref(j);
    char *back = value(traces_sql);
    assert_string_equal(back, traces);
    char *after = value(kept_sql);
    assert_string_equal(after, kept);

    /* again: every job has its trace */
    j = run(args, 0, true);
    assert_int_equal(field(j, "filled"), 0);
    json_decref(j);
    free(after);
    free(back);
    free(kept);
    free(traces);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(samples_gain_their_queue_columns_and_nothing_else_changes),
        cmocka_unit_test(filled_columns_equal_a_fresh_load),
        cmocka_unit_test(darshan_text_adds_nothing),
        cmocka_unit_test(analyze_recomputes_after_samples_gain_columns),
        cmocka_unit_test(binary_logs_get_their_traces_back),
        cmocka_unit_test(samples_a_second_off_are_filled_others_are_told),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
