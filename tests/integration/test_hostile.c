/* test_hostile.c: issue 15 against a real PostgreSQL and the real binary: hostile
 * variants of real logs and reports among good ones; no file stops the batch. */
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
static char work[PATH_MAX]; /* the hostile files, removed at the end */

/* ---- files ------------------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len)
{
    char *buf = testutil_read_file(path, len);
    assert_non_null(buf);
    return buf;
}

static void write_all(const char *path, const char *data, size_t len)
{
    assert_int_equal(testutil_write_file(path, data, len), 0);
}

/* work/dir/name (made on first use of dir). */
static const char *work_path(const char *dir, const char *name)
{
    static char path[PATH_MAX * 2];
    char d[PATH_MAX + 64];

    snprintf(d, sizeof d, "%s/%s", work, dir);
    mkdir(d, 0700);
    snprintf(path, sizeof path, "%s/%s", d, name);
    return path;
}

/* The shared file rel, with each (from, to) pair replaced once (from must occur),
 * written to dir/name. */
static void variant(const char *rel, const char *dir, const char *name,
                    const char *const *pairs, size_t n_pairs)
{
    size_t len;
    char *text = read_all(testutil_path(testutil_shared_data(), rel), &len);

    for (size_t i = 0; i < n_pairs; i++) {
        const char *from = pairs[2 * i], *to = pairs[2 * i + 1];
        char *at = strstr(text, from);
        if (at == NULL)
            fail_msg("%s: no '%s'", rel, from);
        size_t head = (size_t)(at - text), nf = strlen(from), nt = strlen(to);
        char *out = malloc(len - nf + nt + 1);
        assert_non_null(out);
        memcpy(out, text, head);
        memcpy(out + head, to, nt);
        memcpy(out + head + nt, at + nf, len - head - nf + 1);
        free(text);
        text = out;
        len = len - nf + nt;
    }
    write_all(work_path(dir, name), text, len);
    free(text);
}

static void copy_shared(const char *rel, const char *dir, const char *name)
{
    variant(rel, dir, name, NULL, 0);
}

/* ---- the database ------------------------------------------------------------------ */

/* The first column of the first row of sql with one parameter (NULL: none), as new
 * text; "" for no row, "(null)" for SQL NULL. */
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

/* The quarantine of the file whose path ends in name: "line|message". */
static void assert_quarantined(const char *name, const char *want)
{
    assert_query("SELECT coalesce(line::text, '-') || '|' || message FROM ingest_errors "
                 "WHERE path LIKE '%/' || $1",
                 name, want);
}

/* ---- the runs ------------------------------------------------------------------------
 */

static json_t *ingest(const char *args, int *rc)
{
    char *out = pgfixture_run(&fx, args, rc);
    json_error_t jerr;
    json_t *j;

    assert_non_null(out);
    j = json_loads(out, 0, &jerr);
    if (j == NULL)
        fail_msg("not JSON (exit %d): %s", *rc, out);
    free(out);
    return j;
}

static long field(json_t *j, const char *name)
{
    json_t *v = json_object_get(j, name);
    assert_true(json_is_integer(v));
    return (long)json_integer_value(v);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-hostile-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(work) == NULL)
        return -1;
    return pgfixture_start(&fx);
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 32];
    int rc = 0;

    (void)state;
    pgfixture_stop(&fx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    free(testutil_run(cmd, &rc));
    return 0;
}

/* Good real logs and hostile variants of real logs in one folder. */
static void make_darshan_batch(void)
{
    static const char garbage[] = "\x89\xff\x00\x01 garbage caf\xe9\n\x7f\x1b[31m\n";
    const char *latin1_exe[] = {"# exe: /tmp/test/mpi-io-test",
                                "# exe: /tmp/caf\xe9/mpi-io-test"};
    const char *latin1_file[] = {"mpi-io-test.tmp.dat\t", "caf\xe9.dat\t"};
    const char *uid_2_63[] = {"# uid: 1000", "# uid: 9223372036854775808"};
    const char *end_before_start[] = {"# end_time: 1658256281", "# end_time: 1658256280"};

    copy_shared("darshan/release_x86_64_3.5.0/parser.txt", "darshan", "good1.parser.txt");
    copy_shared("darshan/release_x86_64_3.4.4/parser.txt", "darshan", "good2.parser.txt");
    /* STDIO_F_WRITE_TIME = -2662.746634: loads, flagged negative_time */
    copy_shared("darshan/pydarshan_example_vpicio_edison/parser.txt", "darshan",
                "vpicio.parser.txt");
    variant("darshan/release_x86_64_3.2.1/parser.txt", "darshan", "latin1_exe.parser.txt",
            latin1_exe, 1);
    /* a Latin-1 name: the input's own, and a file name inside */
    variant("darshan/release_x86_64_3.1.8/parser.txt", "darshan", "caf\xe9.parser.txt",
            latin1_file, 1);
    write_all(work_path("darshan", "garbage.parser.txt"), garbage, sizeof garbage - 1);
    write_all(work_path("darshan", "empty.parser.txt"), "", 0);
    variant("darshan/release_x86_64_3.4.0/parser.txt", "darshan", "uid.parser.txt",
            uid_2_63, 1);
    variant("darshan/release_x86_64_3.4.0/parser.txt", "darshan",
            "end_before_start.parser.txt", end_before_start, 1);
}

/* The real iostat -t capture (45 reports, the first since boot: 44 samples of vda)
 * as hostile variants, beside the real sadf -d capture (190 samples). */
static void make_iostat_batch(void)
{
    static const char path[] = "iostat/iostat_x_k_t_1s.txt";
    size_t len;
    char *text = read_all(testutil_path(testutil_shared_data(), path), &len);
    const char *latin1_host[] = {"(vm)", "(h\xf4te)"};
    /* 13:06:56 printed as 01/01/00, and a negative r/s at 13:07:06 */
    const char *aside[] = {"(vm)",
                           "(vm2)",
                           "11/22/26 13:06:56",
                           "01/01/00 13:06:56",
                           "11/22/26 13:07:06\n",
                           "11/22/26 13:07:06\n"};
    char *neg;
    char *last = NULL;

    copy_shared("iostat/sadf_d_lab_run1_disk.csv", "iostat", "sadf.csv");
    variant(path, "iostat", "latin1_host.txt", latin1_host, 1);
    variant(path, "iostat", "aside.txt", aside, 3);
    /* the negative rate: r/s -5.00 in the vda row after 13:07:06 */
    {
        size_t n;
        char *a = read_all(work_path("iostat", "aside.txt"), &n);
        char *row = strstr(strstr(a, "11/22/26 13:07:06\n"), "\nvda");
        assert_non_null(row);
        row += 4;
        row += strspn(row, " ");
        size_t head = (size_t)(row - a), old = strcspn(row, " ");
        neg = malloc(n + 8);
        assert_non_null(neg);
        memcpy(neg, a, head);
        memcpy(neg + head, "-5.00", 5);
        memcpy(neg + head + 5, row + old, n - head - old + 1);
        write_all(work_path("iostat", "aside.txt"), neg, n - old + 5);
        free(neg);
        free(a);
    }
    /* cut in the middle of the last vda row: a capture still being written */
    for (char *at = strstr(text, "\nvda"); at != NULL; at = strstr(at + 1, "\nvda"))
        last = at;
    assert_non_null(last);
    write_all(work_path("iostat", "cut.txt"), text, (size_t)(last - text) + 30);
    write_all(work_path("iostat", "empty.txt"), "", 0);
    write_all(work_path("iostat", "garbage.txt"), "\x01\x02\xff\xfe\x00zz\n", 8);
    free(text);
}

static void darshan_batch_finishes_around_hostile_logs(void **state)
{
    char args[PATH_MAX + 128];
    int rc;
    json_t *j;

    (void)state;
    make_darshan_batch();
    snprintf(args, sizeof args, "--quiet ingest darshan --jobs 2 --json '%s/darshan'",
             work);
    j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "files"), 9);
    assert_int_equal(field(j, "loaded"), 5);
    assert_int_equal(field(j, "jobs"), 5);
    assert_int_equal(field(j, "quarantined"), 4);
    json_decref(j);

    /* stored escaped; the file names in the summary too */
    assert_query("SELECT exe FROM jobs WHERE exe LIKE '%caf%'", NULL,
                 "/tmp/caf\\xe9/mpi-io-test -f /tmp/test/mpi-io-test.tmp.dat");
    assert_query(
        "SELECT count(*) FROM loaded_files WHERE path LIKE '%/caf\\\\xe9.parser.txt'",
        NULL, "1");
    /* STDIO_F_WRITE_TIME = -2662.746634: loaded, read as absent, flagged */
    assert_query("SELECT string_agg(jobid, ',') FROM jobs WHERE negative_time", NULL,
                 "4478544");
    assert_quarantined("garbage.parser.txt",
                       "1|expected text, got a NUL byte (a binary .darshan file?)");
    assert_quarantined("empty.parser.txt", "-|empty file");
    assert_quarantined(
        "uid.parser.txt",
        "4|expected a uid from 0 to 4294967295, got '9223372036854775808'");
    assert_quarantined("end_before_start.parser.txt",
                       "8|expected end_time >= start_time (1658256281), got 1658256280");

    /* Again: nothing new is loaded, and the quarantined files, unchanged, are known
     * bad and not parsed again: nothing changes, and the exit is 1 (still
     * quarantined: an alert on it stays up while they are). */
    j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "loaded"), 0);
    assert_int_equal(field(j, "jobs"), 0);
    assert_int_equal(field(j, "skipped"), 5);
    assert_int_equal(field(j, "quarantined"), 0);
    assert_int_equal(field(j, "known_bad"), 4);
    json_decref(j);
    assert_query("SELECT count(*) FROM jobs", NULL, "5");
    assert_query("SELECT count(*) FROM ingest_errors", NULL, "4");
}

static void iostat_batch_loads_every_complete_plausible_report(void **state)
{
    char args[PATH_MAX + 128];
    int rc;
    json_t *j;

    (void)state;
    make_iostat_batch();
    snprintf(args, sizeof args, "--quiet ingest iostat --fs hostile --json '%s/iostat'",
             work);
    j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "loaded"), 4);
    assert_int_equal(field(j, "quarantined"), 2);
    /* sadf 190 + cut 43 (the cut report left) + aside 42 (01/01/00 and the negative
     * rate set aside) + Latin-1 host 44 */
    assert_int_equal(field(j, "samples"), 190 + 43 + 42 + 44);
    json_decref(j);
    assert_query("SELECT count(*) FROM samples WHERE server = $1", "h\\xf4te", "44");
    assert_query("SELECT count(*) FROM samples WHERE server = 'vm2'", NULL, "42");
    assert_query("SELECT count(*) FROM samples WHERE server = 'vm2' AND stamp_s IN "
                 "(1795352816, 1795352826)",
                 NULL, "0");
    assert_quarantined("empty.txt", "-|empty file");
    assert_quarantined("garbage.txt", "1|expected iostat or sadf text, got a NUL byte");

    j = ingest(args, &rc);
    assert_int_equal(rc, 1); /* the two quarantined files are known bad: still */
    assert_int_equal(field(j, "loaded"), 0);
    assert_int_equal(field(j, "samples"), 0);
    assert_int_equal(field(j, "quarantined"), 0);
    assert_int_equal(field(j, "known_bad"), 2);
    json_decref(j);
    assert_query("SELECT count(*) FROM samples", NULL, "319");
}

static void file_over_the_size_cap_is_quarantined(void **state)
{
    char args[PATH_MAX * 4 + 128];
    char conf[PATH_MAX * 2];
    int rc;
    json_t *j;

    (void)state;
    snprintf(conf, sizeof conf, "%s", work_path("conf", "iocontend.conf"));
    write_all(conf, "[ingest]\nmax_file_bytes = 4096\n", 31);
    copy_shared("darshan/release_x86_64_3.3.0/parser.txt", "big", "big.parser.txt");
    snprintf(args, sizeof args, "--quiet --config '%s' ingest darshan --json '%s/big'",
             conf, work);
    j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "quarantined"), 1);
    json_decref(j);
    char *got = query(
        "SELECT message FROM ingest_errors WHERE path LIKE '%/big.parser.txt'", NULL);
    assert_non_null(strstr(got, "too large"));
    free(got);

    /* Unchanged, under the same cap: known bad, not read again (still quarantined). */
    j = ingest(args, &rc);
    assert_int_equal(rc, 1);
    assert_int_equal(field(j, "known_bad"), 1);
    json_decref(j);
    /* The cap shaped the verdict: without it the file is read again, and loads. */
    snprintf(args, sizeof args, "--quiet ingest darshan --json '%s/big'", work);
    j = ingest(args, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "known_bad"), 0);
    assert_int_equal(field(j, "loaded"), 1);
    json_decref(j);
}

/* text with the report stamped stamp emptied: its vda row renamed xxx, a device the
 * include regex leaves out. The report stays: a report set aside keeps its turn, so
 * the next one is placed as after it (README, "Sample timing"). */
static void drop_report(char *text, const char *stamp)
{
    char *at = strstr(text, stamp);
    assert_non_null(at);
    char *row = strstr(at, "\nvda ");
    char *next = strstr(at + strlen(stamp), "\n11/22/26 ");
    assert_true(row != NULL && next != NULL && row < next);
    memcpy(row + 1, "xxx", 3);
}

/* The jobs less their load time, every column of the samples but the source's hash,
 * and the coverage less its time, as md5s: "jobs=.. samples=.. coverage=.. ...". */
static char *sample_and_coverage_digest(void)
{
    return query(
        "SELECT 'jobs=' || (SELECT md5(string_agg((to_jsonb(j) - 'loaded_at')::text, '|' "
        "  ORDER BY j.job_key)) FROM jobs j) || "
        "' samples=' || md5(string_agg(v, '|' ORDER BY v)) || "
        "' coverage=' || (SELECT md5(string_agg((to_jsonb(c) - 'computed_at')::text, '|' "
        "  ORDER BY c.scope)) FROM coverage c) || "
        "' intervals=' || (SELECT md5(string_agg(to_jsonb(i)::text, '|' "
        "  ORDER BY i.scope, i.end_s)) FROM coverage_intervals i) "
        "FROM (SELECT (to_jsonb(s) - 'source_hash')::text AS v FROM samples s) x",
        NULL);
}

/* The lab run's 30 jobs, then analyze: its coverage grid spans the reports. */
static char *jobs_analyze_digest(void)
{
    char cmd[PATH_MAX * 3];
    int rc = -1;

    snprintf(cmd, sizeof cmd, "mkdir -p '%s/lab' && cp '%s'/*.parser.txt '%s/lab'/", work,
             testutil_path(testutil_shared_data(), "lab/run1_queue_depth/darshan"), work);
    free(testutil_run(cmd, &rc));
    assert_int_equal(rc, 0);
    /* Their files are on the monitored file system "hostile". */
    const char *conf = work_path("lab", "lab.conf");
    write_all(conf, "[filesystems]\n/ = hostile\n", 25);
    assert_int_equal(
        pgfixture_cmd(&fx, "--quiet --config '%s' ingest darshan '%s/lab'", conf, work),
        0);
    rc = pgfixture_cmd(&fx, "--quiet --config '%s' analyze --permutations 0", conf);
    assert_true(rc == 0 || rc == 1);
    return sample_and_coverage_digest();
}

/* The hostile iostat batch's samples and coverage equal those of the good reports
 * alone: the same files with the set-aside and cut reports taken out by hand, and no
 * hostile file. No stamp widened the coverage grid. */
static void coverage_of_the_hostile_batch_is_that_of_its_good_reports(void **state)
{
    static const char path[] = "iostat/iostat_x_k_t_1s.txt";
    const char *vm2[] = {"(vm)", "(vm2)"};
    const char *latin1_host[] = {"(vm)", "(h\xf4te)"};
    char *last = NULL;
    size_t len;

    (void)state;
    char *hostile = jobs_analyze_digest();
    pgfixture_stop(&fx);
    assert_int_equal(pgfixture_start(&fx), 0);

    copy_shared("iostat/sadf_d_lab_run1_disk.csv", "good", "sadf.csv");
    variant(path, "good", "latin1_host.txt", latin1_host, 1);
    variant(path, "good", "aside.txt", vm2, 1);
    char *text = read_all(work_path("good", "aside.txt"), &len);
    drop_report(text, "11/22/26 13:06:56\n");
    drop_report(text, "11/22/26 13:07:06\n");
    write_all(work_path("good", "aside.txt"), text, strlen(text));
    free(text);
    /* the cut file up to its last report, which was cut */
    text = read_all(testutil_path(testutil_shared_data(), path), &len);
    for (char *at = strstr(text, "\n11/22/26 "); at != NULL;
         at = strstr(at + 1, "\n11/22/26 "))
        last = at;
    assert_non_null(last);
    write_all(work_path("good", "cut.txt"), text, (size_t)(last - text) + 1);
    free(text);
    assert_int_equal(
        pgfixture_cmd(&fx, "--quiet ingest iostat --fs hostile '%s/good'", work), 0);
    /* The same jobs as the first database: the batch's good logs and the one that
     * loaded without the size cap (the hostile ones are quarantined again). */
    char args[PATH_MAX * 3];
    int rc = -1;
    snprintf(args, sizeof args, "--quiet ingest darshan '%s/darshan' '%s/big' 2>&1", work,
             work);
    free(pgfixture_run(&fx, args, &rc));
    assert_int_equal(rc, 1); /* the hostile logs are quarantined again */
    char *good = jobs_analyze_digest();
    if (strcmp(hostile, good) != 0)
        fail_msg("hostile batch: %s\ngood reports alone: %s", hostile, good);
    /* Not an empty comparison: a grid of the lab run's day, and nothing of 2000 (the
     * set-aside 01/01/00 report) or before. With four servers reporting at different
     * times every interval has a hole, so its coverage is null in both. */
    char *n = query(
        "SELECT count(*) || ' ' || min(end_s)::bigint FROM coverage_intervals", NULL);
    long rows = 0, first = 0;
    assert_int_equal(sscanf(n, "%ld %ld", &rows, &first), 2);
    print_message("coverage grid: %ld intervals from %ld\n", rows, first);
    assert_true(rows > 0);
    assert_true(first >= 1795305600); /* 2026-11-22T00:00:00Z */
    free(n);
    free(hostile);
    free(good);
}

/* The rows one ingest left, less times and run ids, as md5s per table. */
static char *ingest_digest(void)
{
    return query(
        "SELECT (SELECT md5(coalesce(string_agg(v, '|' ORDER BY v), '')) FROM (SELECT "
        "(to_jsonb(j) - 'loaded_at')::text v FROM jobs j) x) || ' ' || "
        "(SELECT md5(coalesce(string_agg(v, '|' ORDER BY v), '')) FROM (SELECT "
        "to_jsonb(w)::text v FROM job_windows w) x) || ' ' || "
        "(SELECT md5(coalesce(string_agg(v, '|' ORDER BY v), '')) FROM (SELECT "
        "to_jsonb(g)::text v FROM app_groups g) x) || ' ' || "
        "(SELECT md5(coalesce(string_agg(v, '|' ORDER BY v), '')) FROM (SELECT "
        "(to_jsonb(f) - 'run_id' - 'loaded_at')::text v FROM loaded_files f) x) || ' ' "
        "|| "
        "(SELECT md5(coalesce(string_agg(v, '|' ORDER BY v), '')) FROM (SELECT "
        "(to_jsonb(e) - 'first_seen' - 'last_seen')::text v FROM ingest_errors e) x) || "
        "' ' "
        "|| (SELECT md5(coalesce(string_agg(v, '|' ORDER BY v), '')) FROM (SELECT "
        "to_jsonb(s)::text v FROM samples s) x)",
        NULL);
}

/* One thread and three give the same rows, the same quarantine list, the same
 * summary (its errors in path order) and the same log lines in the same order, on the
 * hostile batches and the lab's 90 files (30 logs, their DXT text skipped, their
 * binary .darshan files ignored). */
static void one_thread_and_three_give_the_same_rows_and_summary(void **state)
{
    char args[PATH_MAX * 4];
    char *digest[2], *summary[2][2], *logs[2][2];
    int rc = -1;

    (void)state;
    for (int k = 0; k < 2; k++) {
        pgfixture_stop(&fx);
        assert_int_equal(pgfixture_start(&fx), 0);
        for (int kind = 0; kind < 2; kind++) {
            char log_path[PATH_MAX + 32];
            snprintf(log_path, sizeof log_path, "%s/jobs%d_%d.log", work, k, kind);
            if (kind == 0) {
                snprintf(
                    args, sizeof args,
                    "ingest darshan --jobs %d --json '%s/darshan' '%s' 2>'%s'",
                    k == 0 ? 1 : 3, work,
                    testutil_path(testutil_shared_data(), "lab/run1_queue_depth/darshan"),
                    log_path);
            } else {
                snprintf(args, sizeof args,
                         "ingest iostat --fs hostile --jobs %d --json '%s/iostat' 2>'%s'",
                         k == 0 ? 1 : 3, work, log_path);
            }
            json_t *j = ingest(args, &rc);
            assert_int_equal(rc, 1);
            json_object_del(j, "seconds");
            summary[k][kind] = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
            json_decref(j);
            /* the log lines, less their time stamps and the run's number */
            snprintf(args, sizeof args, "cut -d' ' -f2- '%s' | grep -v 'ingest run'",
                     log_path);
            logs[k][kind] = testutil_run(args, &rc);
            assert_non_null(logs[k][kind]);
        }
        digest[k] = ingest_digest();
    }
    print_message("iostat batch: %zu bytes of log lines\n", strlen(logs[0][1]));
    /* the lines compared are the batch's: its set-aside reports and quarantines */
    assert_non_null(strstr(logs[0][1], "set aside"));
    assert_non_null(strstr(logs[0][1], "quarantined"));
    assert_non_null(strstr(logs[0][0], "quarantined"));
    for (int kind = 0; kind < 2; kind++) {
        assert_string_equal(summary[0][kind], summary[1][kind]);
        assert_string_equal(logs[0][kind], logs[1][kind]);
    }
    assert_string_equal(digest[0], digest[1]);
    for (int k = 0; k < 2; k++) {
        free(digest[k]);
        for (int kind = 0; kind < 2; kind++) {
            free(summary[k][kind]);
            free(logs[k][kind]);
        }
    }
}

/* Files of the same content in one batch count as one file at a time would: the copy
 * of a loaded file is seen (skipped), the copy of a quarantined one known bad; with
 * one thread or three, in one batch or in batches of one. */
static void copies_in_one_batch_count_as_one_at_a_time(void **state)
{
    static const char garbage[] = "\x01\x02 not a log\n";
    char args[PATH_MAX * 4], conf[PATH_MAX * 2];
    int rc = -1;

    (void)state;
    copy_shared("darshan/release_x86_64_3.5.0/parser.txt", "copies", "a.parser.txt");
    copy_shared("darshan/release_x86_64_3.5.0/parser.txt", "copies", "b.parser.txt");
    write_all(work_path("copies", "c.parser.txt"), garbage, sizeof garbage - 1);
    write_all(work_path("copies", "d.parser.txt"), garbage, sizeof garbage - 1);
    copy_shared("iostat/iostat_x_k_t_1s.txt", "copies_iostat", "a.txt");
    copy_shared("iostat/iostat_x_k_t_1s.txt", "copies_iostat", "b.txt");
    write_all(work_path("copies_iostat", "c.txt"), "", 0);
    write_all(work_path("copies_iostat", "d.txt"), "", 0);
    snprintf(conf, sizeof conf, "%s", work_path("copies_conf", "one.conf"));
    write_all(conf, "[ingest]\nbatch_files = 1\n", 25);
    for (int k = 0; k < 3; k++) {
        pgfixture_stop(&fx);
        assert_int_equal(pgfixture_start(&fx), 0);
        for (int kind = 0; kind < 2; kind++) {
            snprintf(args, sizeof args,
                     "--quiet --config '%s' ingest %s --jobs %d --json '%s/%s'",
                     k == 2 ? conf : "/dev/null",
                     kind == 0 ? "darshan" : "iostat --fs copies", k == 1 ? 3 : 1, work,
                     kind == 0 ? "copies" : "copies_iostat");
            json_t *j = ingest(args, &rc);
            assert_int_equal(rc, 1);
            assert_int_equal(field(j, "loaded"), 1);
            assert_int_equal(field(j, "skipped"), 1);
            assert_int_equal(field(j, "quarantined"), 1);
            assert_int_equal(field(j, "known_bad"), 1);
            json_decref(j);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(darshan_batch_finishes_around_hostile_logs),
        cmocka_unit_test(iostat_batch_loads_every_complete_plausible_report),
        cmocka_unit_test(file_over_the_size_cap_is_quarantined),
        cmocka_unit_test(coverage_of_the_hostile_batch_is_that_of_its_good_reports),
        /* last: it starts databases of its own */
        cmocka_unit_test(one_thread_and_three_give_the_same_rows_and_summary),
        cmocka_unit_test(copies_in_one_batch_count_as_one_at_a_time),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
