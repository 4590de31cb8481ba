/* test_binary.c: binary .darshan logs against their darshan-parser text, through
 * `iocontend ingest darshan` and `export jobs` on a real PostgreSQL: the same jobs and
 * the same values (within darshan-parser's printed precision), the binary winning
 * when both sit side by side, and the lab run from its binary logs alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <glob.h>
#include <jansson.h>
#include <math.h>
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

/* Runs iocontend with args; asserts exit status want; returns stdout (caller frees). */
static char *run(const char *args, int want)
{
    int rc = -1;
    char *out = pgfixture_run(&fx, args, &rc);

    assert_non_null(out);
    if (rc != want)
        fail_msg("iocontend %s: exit %d, wanted %d: %s", args, rc, want, out);
    return out;
}

/* The files matching pattern below the shared data, quoted and joined by spaces. */
static char *shared_files(const char *pattern, size_t *n)
{
    char full[1024];
    glob_t g;
    size_t len = 1;
    char *out;

    snprintf(full, sizeof full, "%s/%s", testutil_shared_data(), pattern);
    assert_int_equal(glob(full, GLOB_BRACE, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++)
        len += strlen(g.gl_pathv[i]) + 3;
    out = calloc(1, len);
    assert_non_null(out);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        strcat(out, i ? " '" : "'");
        strcat(out, g.gl_pathv[i]);
        strcat(out, "'");
    }
    *n = g.gl_pathc;
    globfree(&g);
    return out;
}

/* `ingest darshan --json FILES`: asserts loaded and quarantined. */
static void ingest(const char *files, long loaded)
{
    size_t len = strlen(files) + 64;
    char *args = malloc(len);
    json_t *j;

    assert_non_null(args);
    snprintf(args, len, "--quiet ingest darshan --json %s", files);
    char *out = run(args, 0);
    free(args);
    j = json_loads(out, 0, NULL);
    free(out);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "loaded")), loaded);
    assert_int_equal(json_integer_value(json_object_get(j, "quarantined")), 0);
    json_decref(j);
}

/* `export jobs --format json`'s jobs array (caller decrefs the object). */
static json_t *export_jobs(const char *more)
{
    char args[256];
    snprintf(args, sizeof args, "--quiet export jobs --format json %s", more);
    char *out = run(args, 0);
    json_t *all = json_loads(out, 0, NULL);
    free(out);
    assert_non_null(all);
    return all;
}

/* The id of the last darshan ingest run (caller frees). */
static char *last_darshan_run(void)
{
    char *id = pgfixture_query(
        &fx, "SELECT max(id) FROM ingest_runs WHERE kind = 'darshan'", NULL);
    assert_non_null(id);
    return id;
}

/* Takes back ingest run id. */
static void unload_run(const char *id)
{
    char args[128];

    snprintf(args, sizeof args, "--quiet unload --run %s", id);
    free(run(args, 0));
}

/* Takes back the last darshan ingest run. */
static void unload_last_darshan_run(void)
{
    char *id = last_darshan_run();
    unload_run(id);
    free(id);
}

static const json_t *job_by_id(const json_t *all, const char *id)
{
    size_t i;
    const json_t *j;

    json_array_foreach(json_object_get(all, "jobs"), i, j)
    {
        if (strcmp(json_string_value(json_object_get(j, "id")), id) == 0)
            return j;
    }
    return NULL;
}

/* Both null, or both numbers within tol. */
static bool same_value(const json_t *a, const json_t *b, double tol)
{
    if (json_is_null(a) || json_is_null(b))
        return json_is_null(a) && json_is_null(b);
    return fabs(json_number_value(a) - json_number_value(b)) <= tol;
}

static void samples(void)
{
    char args[1024];

    snprintf(
        args, sizeof args,
        "--quiet ingest iostat --fs lab '%s/lab/run1_queue_depth/iostat/iostat_dxt.txt'",
        testutil_shared_data());
    free(run(args, 0));
}

/* Every real log: its .darshan and its parser.txt give the same job (the same key)
 * and the same log metrics. darshan-parser prints run time with 4 decimals and the
 * floating counters with 6, which bounds the text's error: 5e-5 s for t_j, and for a
 * sum of the job's timers (t_um, t_urw, t, t_s) 5e-7 s per term, at most 200 here. */
static void binary_and_text_give_the_same_jobs_and_values(void **state)
{
    static const char *const exact[] = {"eta_read", "eta_write", "eta_mon_read",
                                        "eta_mon_write"};
    static const char *const timers[] = {"t_um",        "t_urw", "t_s",  "t_s_span",
                                         "t_s_slowest", "t",     "t_fr", "t_fw"};
    size_t n_bin, n_txt, i;
    const json_t *jb;

    (void)state;
    samples();
    char *bin = shared_files("darshan/*/*.darshan", &n_bin);
    char *txt = shared_files("darshan/*/parser.txt", &n_txt);
    assert_int_equal(n_bin, 39);
    assert_int_equal(n_txt, 39);
    ingest(bin, 39);
    json_t *from_bin = export_jobs("");
    unload_last_darshan_run();
    ingest(txt, 39);
    json_t *from_txt = export_jobs("");
    free(bin);
    free(txt);

    assert_int_equal(json_array_size(json_object_get(from_bin, "jobs")),
                     json_array_size(json_object_get(from_txt, "jobs")));
    size_t compared = 0;
    json_array_foreach(json_object_get(from_bin, "jobs"), i, jb)
    {
        const char *id = json_string_value(json_object_get(jb, "id"));
        const char *jobid = json_string_value(json_object_get(jb, "jobid"));
        const json_t *jt = job_by_id(from_txt, id);

        if (jt == NULL)
            fail_msg("job %s (jobid %s) from the binary is not in the text", id, jobid);
        if (!same_value(json_object_get(jb, "t_j"), json_object_get(jt, "t_j"), 5e-5))
            fail_msg("jobid %s: t_j differs", jobid);
        /* imbalanced_io: the text stops at POSIX, the binary has the other modules;
         * either way the records are incomplete and every timer is null */
        for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++) {
            if (!same_value(json_object_get(jb, exact[k]), json_object_get(jt, exact[k]),
                            0))
                fail_msg("jobid %s: %s differs", jobid, exact[k]);
        }
        for (size_t k = 0; k < sizeof timers / sizeof timers[0]; k++) {
            if (!same_value(json_object_get(jb, timers[k]),
                            json_object_get(jt, timers[k]), 200 * 5e-7))
                fail_msg("jobid %s: %s: %g from the binary, %g from the text", jobid,
                         timers[k], json_number_value(json_object_get(jb, timers[k])),
                         json_number_value(json_object_get(jt, timers[k])));
        }
        /* the binaries with DXT carry their trace, the parser.txt none: the _x
         * families differ by design; every other family's reason is the same */
        json_t *eb = json_deep_copy(json_object_get(jb, "excluded"));
        json_t *et = json_deep_copy(json_object_get(jt, "excluded"));
        json_object_del(eb, "x");
        json_object_del(eb, "b_x");
        json_object_del(et, "x");
        json_object_del(et, "b_x");
        if (!json_equal(eb, et))
            fail_msg("jobid %s: the exclusions differ", jobid);
        json_decref(eb);
        json_decref(et);
        compared++;
    }
    assert_int_equal(compared, 39);
    json_decref(from_bin);
    json_decref(from_txt);

    /* From the binary, the modules after the incomplete one load; darshan-parser's
     * text lost them */
    char *v = pgfixture_query(&fx,
                              "SELECT incomplete_modules FROM jobs WHERE jobid = "
                              "'1452113755'",
                              NULL);
    assert_string_equal(v, "POSIX,MPI-IO,LUSTRE,STDIO");
    free(v);
    unload_last_darshan_run();
    char *one = shared_files("darshan/imbalanced_io/*.darshan", &n_bin);
    ingest(one, 1);
    free(one);
    v = pgfixture_query(&fx, "SELECT incomplete_modules FROM jobs", NULL);
    assert_string_equal(v, "POSIX");
    free(v);
    unload_last_darshan_run();
}

/* The lab run's folder holds each log three times: .darshan, .parser.txt, .dxt.txt.
 * The binary is the one loaded; the text counts as the same job. */
static void side_by_side_the_binary_wins(void **state)
{
    char args[1024];

    (void)state;
    snprintf(args, sizeof args, "'%s/lab/run1_queue_depth/darshan'",
             testutil_shared_data());
    ingest(args, 90); /* 30 binary, 30 parser text, 30 DXT text */
    char *v = pgfixture_query(&fx, "SELECT count(*) FROM jobs", NULL);
    assert_string_equal(v, "30");
    free(v);
    v = pgfixture_query(
        &fx, "SELECT count(*) FROM jobs WHERE source_path LIKE '%.darshan'", NULL);
    assert_string_equal(v, "30");
    free(v);
    unload_last_darshan_run();
}

/* The lab run from its binary logs alone: the same 30 jobs as from its text. */
static void lab_binary_logs_alone_give_the_same_30_jobs(void **state)
{
    size_t n;

    (void)state;
    char *bin = shared_files("lab/run1_queue_depth/darshan/*.darshan", &n);
    char *txt = shared_files("lab/run1_queue_depth/darshan/*.parser.txt", &n);
    ingest(bin, 30);
    char *keys_bin = pgfixture_query(
        &fx, "SELECT string_agg(job_key, ',' ORDER BY job_key) FROM jobs", NULL);
    unload_last_darshan_run();
    ingest(txt, 30);
    char *keys_txt = pgfixture_query(
        &fx, "SELECT string_agg(job_key, ',' ORDER BY job_key) FROM jobs", NULL);
    assert_int_equal(strlen(keys_bin), 30 * 33 - 1);
    assert_string_equal(keys_bin, keys_txt);
    free(keys_bin);
    free(keys_txt);
    free(txt);
    unload_last_darshan_run();

    /* From the binaries alone, every job has its trace: t_x and psi_x_read at 1 s,
     * the lab's sampling interval (its samples came with the first test) */
    ingest(bin, 30);
    free(bin);
    json_t *all = export_jobs("--granularity 1");
    size_t i, with_x = 0;
    const json_t *j;
    json_array_foreach(json_object_get(all, "jobs"), i, j)
    {
        const json_t *tx = json_object_get(j, "t_x");
        const json_t *px = json_object_get(j, "psi_x_read");
        if (!json_is_number(tx) || !(json_number_value(tx) > 0) || !json_is_number(px))
            fail_msg("jobid %s: t_x or psi_x_read missing",
                     json_string_value(json_object_get(j, "jobid")));
        with_x++;
    }
    assert_int_equal(with_x, 30);
    json_decref(all);
    unload_last_darshan_run();
}

/* Per job key: the trace's operations, incomplete flag, merged windows and their
 * total length, one line per job. */
static char *trace_summary(void)
{
    return pgfixture_query(
        &fx,
        "SELECT string_agg(format('%s %s %s %s', t.job_key, t.n_ops, t.incomplete, "
        "(SELECT count(*) FROM dxt_ops o WHERE o.job_key = t.job_key)), E'\\n' "
        "ORDER BY t.job_key) FROM job_traces t",
        NULL);
}

/* The traced time of each job: the merged windows' total, as text per job. */
static double windows_total(const char *job_key)
{
    char *v = pgfixture_query(
        &fx,
        "SELECT coalesce(sum(end_s - start_s), 0) FROM job_x_windows WHERE job_key = $1",
        job_key);
    double d = strtod(v, NULL);
    free(v);
    return d;
}

/* The 9 real logs with DXT: their darshan-dxt-parser text alone gives traces with no
 * job (kept, not quarantined) that join the jobs when the binaries come; the binaries
 * alone give the same traces (the same operations per job, the same traced time
 * within the text's 4 decimals: 1e-4 s per operation). */
static void dxt_text_before_its_job_is_kept_and_equals_the_binary(void **state)
{
    size_t n_txt, n;
    char keys[9][33];
    double total[9];
    size_t n_ops_total[9];

    (void)state;
    char *txt = shared_files("darshan/*/dxt.txt", &n_txt);
    assert_int_equal(n_txt, 9);
    ingest(txt, 9);
    free(txt);
    char *text_run = last_darshan_run();
    char *v = pgfixture_query(&fx, "SELECT count(*) FROM jobs", NULL);
    assert_string_equal(v, "0");
    free(v);
    v = pgfixture_query(&fx,
                        "SELECT string_agg(n_ops::text || ':' || incomplete::text, ',' "
                        "ORDER BY source_path) FROM job_traces",
                        NULL);
    /* in path order: h5d_no_h5f, heatmap_dxt_diagonal, mpi_io_test_dxt_snow,
     * nonmpi_dxt, partial_data_dxt (cut: incomplete), pydarshan_ior_hdf5_cori_dxt,
     * pydarshan_sample_dxt_simple, release_ppc64_3.1.4, release_x86_64_3.1.3 */
    assert_string_equal(v, "102:false,32:false,576:false,17652:false,0:true,118:false,"
                           "3:false,16:false,16:false");
    free(v);
    char *from_text = trace_summary();
    v = pgfixture_query(
        &fx, "SELECT string_agg(job_key, ',' ORDER BY job_key) FROM job_traces", NULL);
    assert_int_equal(strlen(v), 9 * 33 - 1);
    for (size_t i = 0; i < 9; i++) {
        memcpy(keys[i], v + 33 * i, 32);
        keys[i][32] = '\0';
        total[i] = windows_total(keys[i]);
    }
    free(v);
    for (size_t i = 0; i < 9; i++) {
        char *c = pgfixture_query(&fx, "SELECT n_ops FROM job_traces WHERE job_key = $1",
                                  keys[i]);
        n_ops_total[i] = (size_t)strtoul(c, NULL, 10);
        free(c);
    }

    /* The jobs arrive: each joins its trace, which stays the text's (the first) */
    char *bin =
        shared_files("darshan/{h5d_no_h5f,heatmap_dxt_diagonal,mpi_io_test_dxt_snow,"
                     "nonmpi_dxt,partial_data_dxt,pydarshan_ior_hdf5_cori_dxt,"
                     "pydarshan_sample_dxt_simple,release_ppc64_3.1.4,"
                     "release_x86_64_3.1.3}/*.darshan",
                     &n);
    assert_int_equal(n, 9);
    ingest(bin, 9);
    v = pgfixture_query(&fx,
                        "SELECT count(*) FROM jobs JOIN job_traces t USING (job_key) "
                        "WHERE t.source_path LIKE '%dxt.txt'",
                        NULL);
    assert_string_equal(v, "9");
    free(v);

    /* The binaries alone */
    unload_last_darshan_run();
    unload_run(text_run);
    free(text_run);
    v = pgfixture_query(&fx, "SELECT count(*) FROM job_traces", NULL);
    assert_string_equal(v, "0");
    free(v);
    ingest(bin, 9);
    free(bin);
    char *from_bin = trace_summary();
    assert_string_equal(from_bin, from_text);
    for (size_t i = 0; i < 9; i++) {
        double t = windows_total(keys[i]);
        if (fabs(t - total[i]) > 1e-4 * (double)n_ops_total[i] + 1e-9)
            fail_msg("job %s: traced time %.9g from the binary, %.9g from the text",
                     keys[i], t, total[i]);
    }
    free(from_bin);
    free(from_text);
    unload_last_darshan_run();
}

/* A file an older reader quarantined (its verdict without this reader's revision)
 * is parsed again: a cut binary log here, quarantined again rather than skipped as
 * known bad. */
static void verdicts_of_older_readers_lapse(void **state)
{
    char dir[] = "/tmp/iocontend-readers-XXXXXX";
    char path[600], args[800];
    size_t n, len = 0;
    int rc;

    (void)state;
    assert_non_null(mkdtemp(dir));
    char *one = shared_files("darshan/release_x86_64_3.4.4/*.darshan", &n);
    one[strlen(one) - 1] = '\0'; /* the quotes */
    char *data = testutil_read_file(one + 1, &len);
    free(one);
    assert_non_null(data);
    snprintf(path, sizeof path, "%s/cut.darshan", dir);
    assert_int_equal(testutil_write_file(path, data, len / 2), 0);
    free(data);
    snprintf(args, sizeof args, "--quiet ingest darshan --json '%s'", path);
    for (int pass = 0; pass < 3; pass++) {
        char *out = pgfixture_run(&fx, args, &rc);
        json_t *j = json_loads(out, 0, NULL);
        free(out);
        assert_non_null(j);
        /* 0: quarantined; 1: known bad; 2: after the verdict is made an old one's */
        assert_int_equal(json_integer_value(json_object_get(j, "quarantined")),
                         pass == 1 ? 0 : 1);
        assert_int_equal(json_integer_value(json_object_get(j, "known_bad")),
                         pass == 1 ? 1 : 0);
        json_decref(j);
        if (pass == 1) {
            free(pgfixture_query(&fx,
                                 "UPDATE ingest_errors SET verdict = "
                                 "replace(verdict, ';readers=2', '')",
                                 NULL));
        }
    }
    free(pgfixture_query(&fx, "DELETE FROM ingest_errors", NULL));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binary_and_text_give_the_same_jobs_and_values),
        cmocka_unit_test(side_by_side_the_binary_wins),
        cmocka_unit_test(lab_binary_logs_alone_give_the_same_30_jobs),
        cmocka_unit_test(dxt_text_before_its_job_is_kept_and_equals_the_binary),
        cmocka_unit_test(verdicts_of_older_readers_lapse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
