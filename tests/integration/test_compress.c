/* test_compress.c: issue 18 items 1 and 2 against a real PostgreSQL and the real
 * binary: sa files through Debian's sadf load the samples of the sadf -d CSV made
 * from them, plain, gzip'd, bzip2'd and xz'd; compressed darshan-parser text, binary
 * logs and iostat text load the rows their plain bytes load, and a compressed copy of
 * a loaded file is already loaded; a cut stream and a decompression bomb are
 * quarantined with what was wrong while the rest of the batch loads; a grown sa file
 * loads only its new records; with no sadf on PATH the message names the package. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct pgfixture fx;
static char work[PATH_MAX]; /* the test's files, removed at the end */
static char *saved_path;    /* PATH as the test began: a failed test may leave another */

/* ---- files ------------------------------------------------------------------------ */

/* work/dir/name (dir made on first use), in a static buffer (one of two). */
static const char *work_path(const char *dir, const char *name)
{
    static char path[2][PATH_MAX * 2];
    static int which;
    char d[PATH_MAX + 64];

    which ^= 1;
    snprintf(d, sizeof d, "%s/%s", work, dir);
    mkdir(d, 0700);
    snprintf(path[which], sizeof path[which], "%s/%s", d, name);
    return path[which];
}

/* work/dir (made), in a static buffer. */
static const char *dir_path(const char *dir)
{
    static char path[PATH_MAX * 2];

    snprintf(path, sizeof path, "%s", work_path(dir, ""));
    path[strlen(path) - 1] = '\0';
    return path;
}

static void sh(const char *cmd)
{
    int rc = 0;
    free(testutil_run(cmd, &rc));
    if (rc != 0)
        fail_msg("%s: exit %d", cmd, rc);
}

/* The shared file rel as work/dir/name, then compressed by tool ("gzip", "bzip2",
 * "xz", or NULL: left plain; -k keeps the plain copy only when keep). */
static void put_shared(const char *rel, const char *dir, const char *name,
                       const char *tool, bool keep)
{
    char cmd[4 * PATH_MAX];
    const char *to = work_path(dir, name);

    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 644 '%s'",
             testutil_path(testutil_shared_data(), rel), to, to);
    sh(cmd);
    if (tool != NULL) {
        snprintf(cmd, sizeof cmd, "%s -f %s '%s'", tool, keep ? "-k" : "", to);
        sh(cmd);
    }
}

/* ---- the database ------------------------------------------------------------------ */

static char *query(const char *sql, const char *param)
{
    char *out = pgfixture_query(&fx, sql, param);
    if (out == NULL)
        fail_msg("%s failed", sql);
    return out;
}

static void assert_query(const char *sql, const char *param, const char *want)
{
    char *got = query(sql, param);

    if (strcmp(got, want) != 0)
        fail_msg("%s [%s]: got '%s', want '%s'", sql, param != NULL ? param : "", got,
                 want);
    free(got);
}

/* The samples of fs, every column but fs, as one text (new). */
static char *samples_of(const char *fs)
{
    return query(
        "SELECT count(*) || ' ' || coalesce(md5(string_agg((to_jsonb(s) - "
        "'fs')::text, '|' ORDER BY server, device, stamp_s)), '') FROM samples s "
        "WHERE fs = $1",
        fs);
}

/* The samples of fs against those of other, columns that differ by source (the
 * content hash, Δ as the source states it) left out: same stamps, devices, values. */
static void assert_same_samples(const char *fs, const char *other)
{
    char sql[1024];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM ((SELECT server, device, stamp_s, r_bps, w_bps, "
             "ro_ps, wo_ps, ops_total_ps FROM samples WHERE fs = $1 EXCEPT SELECT "
             "server, device, stamp_s, r_bps, w_bps, ro_ps, wo_ps, ops_total_ps FROM "
             "samples WHERE fs = '%s') UNION ALL (SELECT server, device, stamp_s, "
             "r_bps, w_bps, ro_ps, wo_ps, ops_total_ps FROM samples WHERE fs = '%s' "
             "EXCEPT SELECT server, device, stamp_s, r_bps, w_bps, ro_ps, wo_ps, "
             "ops_total_ps FROM samples WHERE fs = $1)) d",
             other, other);
    assert_query(sql, fs, "0");
}

/* Every job row, but where it came from and when, as one text (new). */
static char *jobs_rows(void)
{
    return query("SELECT count(*) || ' ' || coalesce(md5(string_agg((to_jsonb(j) - "
                 "'source_path' - 'loaded_at' - 'run_id')::text, '|' ORDER BY job_key)), "
                 "'') FROM jobs j WHERE $1::text IS NOT NULL",
                 "");
}

/* Every trace row and its operations, but where they came from and when (new). */
static char *traces_rows(void)
{
    return query("SELECT count(DISTINCT t.job_key) || ' ' || coalesce(md5(string_agg("
                 "(to_jsonb(t) - 'source_path' - 'loaded_at')::text || md5(o.ops), '|' "
                 "ORDER BY o.module, o.record_id, o.rank)), '') FROM job_traces t JOIN "
                 "dxt_ops o USING (job_key) WHERE $1::text IS NOT NULL",
                 "");
}

/* ---- the runs ------------------------------------------------------------------------
 */

/* `ingest KIND [--fs fs] --json paths` (more: global options first), its summary, its
 * exit status in *rc; its log (new) in *log when log is not NULL. */
/* --config with a configuration that names the lab's disk, which its sa file knows
 * as 254:0 only (set by setup); lab_opts: expect's options, quiet. */
static char lab_config[PATH_MAX + 64] = "";
static char lab_opts[PATH_MAX + 96] = "--quiet";

static json_t *ingest(const char *more, const char *kind, const char *fs,
                      const char *paths, int *rc, char **log)
{
    char args[PATH_MAX * 6], log_path[PATH_MAX + 16], fs_opt[128] = "";
    json_error_t jerr;
    json_t *j;
    char *out;

    if (fs != NULL)
        snprintf(fs_opt, sizeof fs_opt, "--fs %s", fs);
    snprintf(log_path, sizeof log_path, "%s/ingest.log", work);
    snprintf(args, sizeof args, "%s ingest %s %s --json %s 2>'%s'", more, kind, fs_opt,
             paths, log_path);
    out = pgfixture_run(&fx, args, rc);
    assert_non_null(out);
    j = json_loads(out, 0, &jerr);
    if (j == NULL) {
        size_t n;
        char *text = testutil_read_file(log_path, &n);
        fail_msg("not JSON (exit %d): %s; %s", *rc, out, text != NULL ? text : "");
    }
    free(out);
    if (log != NULL) {
        size_t n;
        *log = testutil_read_file(log_path, &n);
        assert_non_null(*log);
    }
    return j;
}

static long field(json_t *j, const char *name)
{
    json_t *v = json_object_get(j, name);
    assert_true(json_is_integer(v));
    return (long)json_integer_value(v);
}

/* Ingests and checks the summary: exit status, files loaded, skipped and quarantined,
 * and new samples (kind "iostat") or jobs ("darshan"). */
static void expect(const char *kind, const char *fs, const char *paths, int want_rc,
                   long loaded, long skipped, long quarantined, long added)
{
    int rc;
    json_t *j = ingest(lab_opts, kind, fs, paths, &rc, NULL);

    if (rc != want_rc || field(j, "loaded") != loaded || field(j, "skipped") != skipped ||
        field(j, "quarantined") != quarantined ||
        field(j, strcmp(kind, "iostat") == 0 ? "samples" : "jobs") != added) {
        char *text = json_dumps(j, JSON_COMPACT);
        fail_msg("ingest %s %s: exit %d, %s", kind, paths, rc, text);
    }
    json_decref(j);
}

static void unload_path(const char *path)
{
    char args[PATH_MAX + 64];

    snprintf(args, sizeof args, "--quiet unload --path '%s' >/dev/null", path);
    assert_int_equal(pgfixture_cmd(&fx, "%s", args), 0);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-compress-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(work) == NULL)
        return -1;
    char conf[PATH_MAX + 16];
    static const char names[] = "[devices]\nnames = 254:0=vda\n";
    snprintf(conf, sizeof conf, "%s/lab.conf", work);
    if (testutil_write_file(conf, names, sizeof names - 1) != 0)
        return -1;
    snprintf(lab_config, sizeof lab_config, "--config '%s'", conf);
    snprintf(lab_opts, sizeof lab_opts, "--quiet %s", lab_config);
    saved_path = strdup(getenv("PATH") != NULL ? getenv("PATH") : "/usr/bin:/bin");
    return saved_path == NULL ? -1 : pgfixture_start(&fx);
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 32];
    int rc = 0;

    (void)state;
    setenv("PATH", saved_path, 1);
    free(saved_path);
    pgfixture_stop(&fx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* ---- the tests ----------------------------------------------------------------------
 */

/* The lab's sa file, plain, gzip'd, bzip2'd and xz'd, loads the 190 samples of vda
 * that the sadf -d CSV beside it loads (same stamps, devices, values); each is taken
 * back before the next, whose content (the decompressed bytes) is the same. After
 * the gzip'd one, the plain file is already loaded. A directory walk finds an sa file
 * by its magic whatever its name. */
static void sa_file_loads_the_samples_of_its_csv(void **state)
{
    static const char *const tools[] = {NULL, "gzip", "bzip2", "xz"};
    static const char *const names[] = {"sa22", "sa22.gz", "sa22.bz2", "sa22.xz"};

    (void)state;
    put_shared("iostat/sadf_d_lab_run1_disk.csv", "csv", "lab.csv", NULL, false);
    expect("iostat", "csv", work_path("csv", "lab.csv"), 0, 1, 0, 0, 190);
    for (size_t i = 0; i < 4; i++) {
        put_shared("iostat/sar_lab_run1.sa", "sa", "sa22", tools[i], true);
        expect("iostat", "sa", work_path("sa", names[i]), 0, 1, 0, 0, 190);
        assert_same_samples("sa", "csv");
        assert_query("SELECT count(DISTINCT stamp_s) || ' ' || min(stamp_s) || ' ' || "
                     "max(stamp_s) || ' ' || min(device) || ' ' || min(server) FROM "
                     "samples WHERE fs = $1",
                     "sa", "190 1795352344 1795352533 vda vm");
        if (i == 1) {
            /* Compressed after a day: the plain file is the same content. */
            expect("iostat", "sa", work_path("sa", "sa22"), 0, 0, 1, 0, 0);
        }
        unload_path(work_path("sa", names[i]));
    }
    /* Found in a walk by its magic, under a name of no pattern. */
    put_shared("iostat/sar_lab_run1.sa", "walk", "server-a.data", NULL, false);
    expect("iostat", "walk", dir_path("walk"), 0, 1, 0, 0, 190);
    assert_same_samples("walk", "csv");
    unload_path(work_path("walk", "server-a.data"));
}

/* An sa file keeps its disk's numbers, not its name: unnamed, the lab's (254:0, a
 * virtio disk) is dev254-0 on any host, whatever this one's /sys holds, the default
 * include takes none and the file is quarantined with what to do; once [devices]
 * names names it, the same file loads its 190 samples of vda. */
static void sa_file_of_unnamed_devices_loads_once_named(void **state)
{
    int rc;
    char *log = NULL;

    (void)state;
    put_shared("iostat/sar_lab_run1.sa", "unnamed", "sa24", NULL, false);
    json_t *j =
        ingest("--quiet", "iostat", "unnamed", work_path("unnamed", "sa24"), &rc, &log);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "quarantined"), 1);
    assert_int_equal(field(j, "samples"), 0);
    const char *msg = json_string_value(
        json_object_get(json_array_get(json_object_get(j, "errors"), 0), "message"));
    assert_non_null(msg);
    assert_non_null(strstr(msg, "dev254-0 is known by number only"));
    assert_non_null(strstr(msg, "[devices] names, e.g. 254:0=vda"));
    json_decref(j);
    free(log);
    expect("iostat", "unnamed", work_path("unnamed", "sa24"), 0, 1, 0, 0, 190);
    assert_query(
        "SELECT count(*) || ' ' || min(device) || ' ' || max(device) FROM samples "
        "WHERE fs = $1",
        "unnamed", "190 vda vda");
    unload_path(work_path("unnamed", "sa24"));
}

/* An sa file that sadc keeps appending to: its first records load, then with more
 * appended only the new ones, through its ledger row (format "sa"); the result is
 * the whole file's samples. */
static void grown_sa_file_loads_only_new_records(void **state)
{
    size_t len;
    char *sa = testutil_read_file(
        testutil_path(testutil_shared_data(), "iostat/sar_lab_run1.sa"), &len);
    const char *path = work_path("grow", "sa23");
    size_t cut = 400000; /* inside a record: sadf reads the complete ones */
    char *n2;

    (void)state;
    assert_non_null(sa);
    assert_int_equal(testutil_write_file(path, sa, cut), 0);
    expect("iostat", "grow", path, 0, 1, 0, 0, 91);
    assert_query("SELECT format || ' ' || length FROM sample_ledger WHERE path = $1",
                 path, "sa 400000");
    expect("iostat", "grow", path, 0, 0, 1, 0, 0);
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    assert_int_equal(fwrite(sa + cut, 1, len - cut, fp), len - cut);
    assert_int_equal(fclose(fp), 0);
    int rc;
    char *log = NULL;
    char opts[PATH_MAX + 128];
    snprintf(opts, sizeof opts, "--log-level info %s", lab_config);
    json_t *j = ingest(opts, "iostat", "grow", path, &rc, &log);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "samples"), 99);
    assert_int_equal(field(j, "loaded"), 1);
    if (strstr(log, "grew since it was loaded: 99 new samples") == NULL)
        fail_msg("%s", log);
    json_decref(j);
    free(log);
    assert_same_samples("grow", "csv");
    n2 = query("SELECT count(*) FROM samples WHERE fs = $1", "grow");
    assert_string_equal(n2, "190");
    unload_path(path);
    free(n2);
    free(sa);
}

/* A darshan-parser text, a binary log, a darshan-dxt-parser text and an iostat text,
 * each compressed, load the rows their plain bytes load; the copy after the plain
 * file is already loaded. Walked: *.parser.txt.gz, *.darshan.bz2, *.dxt.txt.xz,
 * *.txt.xz. */
static void compressed_inputs_load_as_plain(void **state)
{
    char *plain_jobs, *packed_jobs, *plain_samples, *packed_samples;
    char paths[4 * PATH_MAX];

    (void)state;
    put_shared("darshan/dlio_2110365/parser.txt", "dplain", "dlio.parser.txt", NULL,
               false);
    put_shared("darshan/imbalanced_io/imbalanced-io.darshan", "dplain",
               "imbalanced-io.darshan", NULL, false);
    expect("darshan", NULL, dir_path("dplain"), 0, 2, 0, 0, 2);
    plain_jobs = jobs_rows();
    assert_int_equal(strncmp(plain_jobs, "2 ", 2), 0);
    /* The copies are already loaded. */
    put_shared("darshan/dlio_2110365/parser.txt", "dpacked", "dlio.parser.txt", "gzip",
               false);
    put_shared("darshan/imbalanced_io/imbalanced-io.darshan", "dpacked",
               "imbalanced-io.darshan", "bzip2", false);
    expect("darshan", NULL, dir_path("dpacked"), 0, 0, 2, 0, 0);
    unload_path(work_path("dplain", "dlio.parser.txt"));
    unload_path(work_path("dplain", "imbalanced-io.darshan"));
    assert_query("SELECT count(*) FROM jobs WHERE $1::text IS NOT NULL", "", "0");
    expect("darshan", NULL, dir_path("dpacked"), 0, 2, 0, 0, 2);
    packed_jobs = jobs_rows();
    assert_string_equal(packed_jobs, plain_jobs);
    assert_query("SELECT string_agg(source_path, ' ' ORDER BY source_path) LIKE "
                 "'%/dlio.parser.txt.gz %/imbalanced-io.darshan.bz2' FROM jobs WHERE "
                 "$1::text IS NOT NULL",
                 "", "t");

    /* A darshan-dxt-parser text xz'd under its walked name: the same trace. */
    put_shared("darshan/mpi_io_test_dxt_snow/dxt.txt", "xplain", "snow.dxt.txt", NULL,
               false);
    expect("darshan", NULL, dir_path("xplain"), 0, 1, 0, 0, 0);
    char *plain_trace = traces_rows();
    assert_int_equal(strncmp(plain_trace, "1 ", 2), 0);
    unload_path(work_path("xplain", "snow.dxt.txt"));
    put_shared("darshan/mpi_io_test_dxt_snow/dxt.txt", "xpacked", "snow.dxt.txt", "xz",
               false);
    expect("darshan", NULL, dir_path("xpacked"), 0, 1, 0, 0, 0);
    char *packed_trace = traces_rows();
    assert_string_equal(packed_trace, plain_trace);
    free(plain_trace);
    free(packed_trace);

    put_shared("iostat/iostat_x_k_t_1s.txt", "iplain", "vm.txt", NULL, false);
    expect("iostat", "text", work_path("iplain", "vm.txt"), 0, 1, 0, 0, 44);
    plain_samples = samples_of("text");
    put_shared("iostat/iostat_x_k_t_1s.txt", "ipacked", "vm.txt", "xz", false);
    snprintf(paths, sizeof paths, "'%s'", dir_path("ipacked"));
    expect("iostat", "text", paths, 0, 0, 1, 0, 0);
    unload_path(work_path("iplain", "vm.txt"));
    expect("iostat", "text", paths, 0, 1, 0, 0, 44);
    packed_samples = samples_of("text");
    assert_string_equal(packed_samples, plain_samples);
    /* No ledger row for a compressed file: it does not grow. */
    assert_query("SELECT count(*) FROM sample_ledger WHERE path LIKE '%' || $1",
                 "vm.txt.xz", "0");
    free(plain_jobs);
    free(packed_jobs);
    free(plain_samples);
    free(packed_samples);
}

/* In one batch: a cut .gz, a bomb (.gz and .xz, 64 MiB of zeros past a cap of 1 MiB)
 * and a good .gz: the three bad ones are quarantined with what was wrong, the good
 * one loads; the next run finds them known bad. The same for darshan inputs. */
static void cut_stream_and_bomb_are_quarantined(void **state)
{
    char conf[PATH_MAX + 64], cmd[4 * PATH_MAX], args[4 * PATH_MAX];
    int rc;

    (void)state;
    snprintf(conf, sizeof conf, "%s/cap.conf", work);
    const char *cap = "[ingest]\nmax_file_bytes = 1048576\n";
    assert_int_equal(testutil_write_file(conf, cap, strlen(cap)), 0);
    put_shared("iostat/sadf_j_lab_run1_disk.json", "bad", "good.json", "gzip", false);
    put_shared("iostat/iostat_x_k_t_1s.txt", "bad", "cut.txt", "gzip", false);
    snprintf(cmd, sizeof cmd, "truncate -s 1000 '%s'", work_path("bad", "cut.txt.gz"));
    sh(cmd);
    snprintf(cmd, sizeof cmd,
             "head -c 67108864 /dev/zero | gzip -c > '%s' && head -c 67108864 /dev/zero "
             "| xz -c > '%s'",
             work_path("bad", "bomb.txt.gz"), work_path("bad", "bomb2.txt.xz"));
    sh(cmd);
    snprintf(args, sizeof args, "--quiet --config '%s'", conf);
    char *log = NULL;
    json_t *j = ingest(args, "iostat", "bad", dir_path("bad"), &rc, &log);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "loaded"), 1);
    assert_int_equal(field(j, "quarantined"), 3);
    assert_int_equal(field(j, "samples"), 190);
    json_t *errors = json_object_get(j, "errors");
    assert_int_equal(json_array_size(errors), 3);
    const char *want[][2] = {
        {"bomb.txt.gz", "too large: more than 1048576 bytes once decompressed (gzip"},
        {"bomb2.txt.xz", "too large: more than 1048576 bytes once decompressed (xz"},
        {"cut.txt.gz", "corrupt gzip stream: cut short (1000 bytes, no end marker)"}};
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_array_get(errors, i);
        const char *p = json_string_value(json_object_get(e, "path"));
        const char *m = json_string_value(json_object_get(e, "message"));
        assert_non_null(p);
        assert_non_null(m);
        if (strstr(p, want[i][0]) == NULL || strstr(m, want[i][1]) == NULL)
            fail_msg("%s: %s", p, m);
    }
    json_decref(j);
    free(log);
    assert_query("SELECT count(*) FROM ingest_errors WHERE message LIKE $1",
                 "%once decompressed%", "2");
    /* Known bad the next time: not read past the cap again; still quarantined. */
    j = ingest(args, "iostat", "bad", dir_path("bad"), &rc, NULL);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "known_bad"), 3);
    assert_int_equal(field(j, "skipped"), 1);
    json_decref(j);

    /* Darshan inputs: a cut .darshan.gz beside a good .parser.txt.xz. */
    put_shared("darshan/imbalanced_io/parser.txt", "dbad", "ok.parser.txt", "xz", false);
    put_shared("darshan/dlio_2110365/snyder_python3_id3116902-2110365_12-19-66957-"
               "188958432683465822_1.darshan",
               "dbad", "cut.darshan", "gzip", false);
    snprintf(cmd, sizeof cmd, "truncate -s 2000 '%s'",
             work_path("dbad", "cut.darshan.gz"));
    sh(cmd);
    j = ingest(args, "darshan", NULL, dir_path("dbad"), &rc, NULL);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "quarantined"), 1);
    assert_int_equal(field(j, "loaded") + field(j, "skipped"), 1);
    const char *m = json_string_value(
        json_object_get(json_array_get(json_object_get(j, "errors"), 0), "message"));
    assert_non_null(m);
    if (strstr(m, "corrupt gzip stream: cut short") == NULL)
        fail_msg("%s", m);
    json_decref(j);
}

/* No sadf on PATH: the sa file is not loaded, nor quarantined (it loads once sysstat
 * is installed), and the message names Debian's package; the exit status is 66 (an
 * input that cannot be read). */
static void missing_sadf_is_named(void **state)
{
    char *log = NULL;
    int rc;
    json_t *j;

    (void)state;
    char cmd[5 * PATH_MAX], bin[PATH_MAX + 16];

    put_shared("iostat/sar_lab_run1.sa", "nosadf", "sa24", "gzip", false);
    /* A PATH of everything on PATH but sadf (iocontend finds PostgreSQL through
     * pg_config, a shell script, and runs tools as postgres: they must reach it). */
    snprintf(bin, sizeof bin, "%s/bin", work);
    snprintf(cmd, sizeof cmd,
             "chmod 755 '%s' && mkdir -p -m 755 '%s' && for d in $(echo \"$PATH\" | tr : "
             "' '); do for f in "
             "\"$d\"/*; do n=$(basename \"$f\"); [ \"$n\" = sadf ] || [ -e '%s'/\"$n\" ] "
             "|| ln -s \"$f\" '%s'/\"$n\"; done; done",
             work, bin, bin, bin);
    sh(cmd);
    assert_int_equal(setenv("PATH", bin, 1), 0);
    j = ingest("--quiet", "iostat", "nosadf", work_path("nosadf", "sa24.gz"), &rc, &log);
    assert_int_equal(setenv("PATH", saved_path, 1), 0);
    assert_int_equal(rc, 66);
    assert_int_equal(field(j, "loaded"), 0);
    assert_int_equal(field(j, "quarantined"), 0);
    const char *m = json_string_value(
        json_object_get(json_array_get(json_object_get(j, "errors"), 0), "message"));
    assert_non_null(m);
    if (strstr(m, "needs sadf, not found on PATH: install Debian's sysstat package") ==
        NULL)
        fail_msg("%s", m);
    json_decref(j);
    free(log);
    assert_query("SELECT count(*) FROM ingest_errors WHERE path LIKE '%' || $1",
                 "sa24.gz", "0");
    /* With sadf back, it loads. */
    expect("iostat", "nosadf", work_path("nosadf", "sa24.gz"), 0, 1, 0, 0, 190);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sa_file_loads_the_samples_of_its_csv),
        cmocka_unit_test(sa_file_of_unnamed_devices_loads_once_named),
        cmocka_unit_test(grown_sa_file_loads_only_new_records),
        cmocka_unit_test(compressed_inputs_load_as_plain),
        cmocka_unit_test(cut_stream_and_bomb_are_quarantined),
        cmocka_unit_test(missing_sadf_is_named),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
