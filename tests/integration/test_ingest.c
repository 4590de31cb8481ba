/* test_ingest.c: the loader against a real PostgreSQL: real logs in, counts and
 * quarantine out, and loading twice changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct pgfixture fx;

static int setup(void **state)
{
    (void)state;
    return pgfixture_start(&fx);
}

static int teardown(void **state)
{
    (void)state;
    pgfixture_stop(&fx);
    return 0;
}

/* Runs an ingest with --json and returns the parsed summary. */
static json_t *ingest(const char *args, int *rc)
{
    char *out = pgfixture_run(&fx, args, rc);
    json_error_t jerr;
    json_t *j;

    assert_non_null(out);
    j = json_loads(out, 0, &jerr);
    if (j == NULL)
        fail_msg("not JSON: %s", out);
    free(out);
    return j;
}

static long field(json_t *j, const char *name)
{
    json_t *v = json_object_get(j, name);
    assert_true(json_is_integer(v));
    return (long)json_integer_value(v);
}

static bool errors_mention(json_t *j, const char *path_part, const char *message)
{
    json_t *errors = json_object_get(j, "errors");
    size_t i;
    json_t *e;

    json_array_foreach(errors, i, e)
    {
        const char *p = json_string_value(json_object_get(e, "path"));
        const char *m = json_string_value(json_object_get(e, "message"));
        if (p != NULL && m != NULL && strstr(p, path_part) != NULL &&
            strcmp(m, message) == 0)
            return true;
    }
    return false;
}

static void shared_darshan_logs_all_load_two_flagged_incomplete(void **state)
{
    char args[1024];
    int rc;

    (void)state;
    snprintf(args, sizeof args, "--quiet ingest darshan --json '%s/darshan'",
             testutil_shared_data());
    json_t *j = ingest(args, &rc);
    assert_int_equal(rc, 0);
    /* 39 logs as .darshan and parser.txt, 9 with dxt.txt: the binaries' jobs load */
    assert_int_equal(field(j, "loaded"), 87);
    assert_int_equal(field(j, "jobs"), 39);
    assert_int_equal(field(j, "quarantined"), 0);
    json_decref(j);
    /* darshan marks these modules incomplete (darshan-parser stopped there, see their
     * parser.stderr.txt): the complete modules load, the job says what is missing */
    char *v =
        pgfixture_query(&fx,
                        "SELECT string_agg(incomplete_modules || ':' || "
                        "incomplete_log::text, ' | ' ORDER BY source_path) FROM jobs "
                        "WHERE incomplete_modules IS NOT NULL",
                        NULL);
    assert_string_equal(v, "POSIX:true | DXT_POSIX,DXT_MPIIO:false | STDIO:true");
    free(v);
    v = pgfixture_query(&fx,
                        "SELECT count(*) FROM jobs WHERE incomplete_modules IS NULL "
                        "AND NOT incomplete_log",
                        NULL);
    assert_string_equal(v, "36");
    free(v);

    /* export: t_j (the header) stays, what needs the cut records is null, and the
     * volume families that need windows say why */
    char samples[1024];
    snprintf(
        samples, sizeof samples,
        "--quiet ingest iostat --fs lab '%s/lab/run1_queue_depth/iostat/iostat_dxt.txt'",
        testutil_shared_data());
    free(pgfixture_run(&fx, samples, &rc));
    assert_int_equal(rc, 0);
    char *out = pgfixture_run(&fx, "--quiet export jobs --format json", &rc);
    assert_non_null(out);
    json_t *all = json_loads(out, 0, NULL);
    free(out);
    assert_non_null(all);
    size_t i, seen = 0;
    const json_t *job;
    json_array_foreach(json_object_get(all, "jobs"), i, job)
    {
        const char *id = json_string_value(json_object_get(job, "jobid"));
        if (strcmp(id, "1452113755") != 0 && strcmp(id, "85498") != 0)
            continue;
        seen++;
        assert_true(json_number_value(json_object_get(job, "t_j")) > 0);
        assert_true(json_is_null(json_object_get(job, "t")));
        assert_true(json_is_null(json_object_get(job, "eta_read")));
        assert_true(json_is_null(json_object_get(job, "t_d")));
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(job, "excluded"), "d")),
            "incomplete_log");
    }
    assert_int_equal(seen, 2);
    json_decref(all);
    /* the lab's samples belong to the next test */
    snprintf(samples, sizeof samples,
             "--quiet unload --path '%s/lab/run1_queue_depth/iostat/iostat_dxt.txt'",
             testutil_shared_data());
    free(pgfixture_run(&fx, samples, &rc));
    assert_int_equal(rc, 0);

    /* Again: nothing new, so the run exits 0. */
    j = ingest(args, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "loaded"), 0);
    assert_int_equal(field(j, "jobs"), 0);
    assert_int_equal(field(j, "quarantined"), 0);
    json_decref(j);
}

static void lab_run_loads_30_jobs_and_189_samples_once(void **state)
{
    char args[1024];
    const char *lab = testutil_path(testutil_shared_data(), "lab/run1_queue_depth");
    char dir[512];
    int rc;

    (void)state;
    snprintf(dir, sizeof dir, "%s", lab);
    for (int pass = 0; pass < 2; pass++) {
        snprintf(args, sizeof args, "--quiet ingest darshan --json '%s/darshan'", dir);
        json_t *j = ingest(args, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(field(j, "jobs"), pass == 0 ? 30 : 0);
        /* each log as .darshan, .parser.txt and .dxt.txt: 30 jobs with traces */
        assert_int_equal(field(j, "loaded"), pass == 0 ? 90 : 0);
        json_decref(j);
        snprintf(args, sizeof args,
                 "--quiet ingest iostat --fs lab --json '%s/iostat/iostat_dxt.txt'", dir);
        j = ingest(args, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(field(j, "samples"), pass == 0 ? 189 : 0);
        json_decref(j);
    }
}

static void same_samples_in_another_format_add_nothing(void **state)
{
    char args[1024];
    int rc;

    (void)state;
    /* The JSON capture holds the same samples as the text one loaded above. */
    snprintf(args, sizeof args, "--quiet ingest iostat --fs lab --json '%s'",
             testutil_path(testutil_shared_data(),
                           "lab/run1_queue_depth/iostat/iostat_dxt_json.json"));
    json_t *j = ingest(args, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "loaded"), 1);
    assert_int_equal(field(j, "samples"), 0);
    json_decref(j);
}

static void bad_log_is_quarantined_and_the_rest_lands(void **state)
{
    char dir[] = "/tmp/iocontend-bad-XXXXXX";
    char path[600], args[1400], cmd[1400];
    int rc;

    (void)state;
    assert_non_null(mkdtemp(dir));
    /* A real log with one counter line cut short, beside an intact one. */
    snprintf(
        cmd, sizeof cmd,
        "awk 'NR==120{sub(/\\t[^\\t]*\\t[^\\t]*\\t[^\\t]*$/, \"\")} {print}' "
        "'%s/darshan/pydarshan_sample_goodost/parser.txt' > '%s/broken.parser.txt' && "
        "sed 's/^# jobid: .*/# jobid: 424242/' '%s/darshan/stdio_no_posix/parser.txt' "
        "> '%s/good.parser.txt'",
        testutil_shared_data(), dir, testutil_shared_data(), dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s", dir);
    snprintf(args, sizeof args, "--quiet ingest darshan --json '%s'", path);
    json_t *j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "quarantined"), 1);
    assert_int_equal(field(j, "loaded"), 1); /* the intact log (a new job id) lands */
    assert_int_equal(field(j, "jobs"), 1);
    json_t *e = json_array_get(json_object_get(j, "errors"), 0);
    assert_non_null(e);
    assert_int_equal(json_integer_value(json_object_get(e, "line")), 120);
    assert_non_null(
        strstr(json_string_value(json_object_get(e, "message")), "expected 8"));
    assert_non_null(
        strstr(json_string_value(json_object_get(e, "path")), "broken.parser.txt"));
    json_decref(j);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The host names the server; a file without one needs --server, and is the file's
 * fault (quarantined) when none is given. */
static void sample_file_without_a_host_is_quarantined_unless_server_is_given(void **state)
{
    char dir[] = "/tmp/iocontend-nohost-XXXXXX";
    char args[1400], cmd[1400];
    int rc;

    (void)state;
    assert_non_null(mkdtemp(dir));
    /* iostat -t output without its first line, the banner that names the host. */
    snprintf(cmd, sizeof cmd,
             "tail -n +2 '%s/iostat/iostat_x_k_t_1s.txt' > '%s/nohost.txt'",
             testutil_shared_data(), dir);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args, "--quiet ingest iostat --fs nohost --json '%s'", dir);
    json_t *j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "quarantined"), 1);
    assert_int_equal(field(j, "samples"), 0);
    assert_true(errors_mention(j, "nohost.txt",
                               "expected a host name in the file, or --server HOST"));
    json_decref(j);
    snprintf(args, sizeof args,
             "--quiet ingest iostat --fs nohost --server srv1 --json '%s'", dir);
    j = ingest(args, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "loaded"), 1);
    assert_true(field(j, "samples") > 0);
    json_decref(j);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void missing_input_exits_66(void **state)
{
    int rc;
    char *out;

    (void)state;
    out = pgfixture_run(&fx, "--quiet ingest darshan --json /nonexistent/iocontend/logs",
                        &rc);
    assert_int_equal(rc, 66);
    free(out);
}

static void iostat_without_fs_is_a_usage_error(void **state)
{
    int rc;
    char *out;

    (void)state;
    out = pgfixture_run(&fx, "--quiet ingest iostat /dev/null 2>/dev/null", &rc);
    assert_int_equal(rc, 64);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_darshan_logs_all_load_two_flagged_incomplete),
        cmocka_unit_test(lab_run_loads_30_jobs_and_189_samples_once),
        cmocka_unit_test(same_samples_in_another_format_add_nothing),
        cmocka_unit_test(bad_log_is_quarantined_and_the_rest_lands),
        cmocka_unit_test(
            sample_file_without_a_host_is_quarantined_unless_server_is_given),
        cmocka_unit_test(missing_input_exits_66),
        cmocka_unit_test(iostat_without_fs_is_a_usage_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
