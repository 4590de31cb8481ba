/* test_grow.c: issue 15 item 3 against a real PostgreSQL and the real binary: a
 * sample file that grows loads only its new complete reports, through the ledger of
 * loaded sample files; a rewritten one is new; a cut tail waits, and is set aside
 * once unchanged for a day; a cut JSON file loads its complete reports. */
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
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct pgfixture fx;
static char work[PATH_MAX]; /* the test's files, removed at the end */

/* ---- files ------------------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len)
{
    char *buf = testutil_read_file(path, len);
    assert_non_null(buf);
    return buf;
}

/* Writes (mode "wb": the same inode, truncated) or appends ("ab") data. */
static void put(const char *path, const char *mode, const char *data, size_t len)
{
    FILE *fp = fopen(path, mode);

    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* work/name, in a static buffer (one of two, so two can be used at once). */
static const char *work_path(const char *name)
{
    static char path[2][PATH_MAX + 64];
    static int which;

    which ^= 1;
    snprintf(path[which], sizeof path[which], "%s/%s", work, name);
    return path[which];
}

static char *shared(const char *rel, size_t *len)
{
    return read_all(testutil_path(testutil_shared_data(), rel), len);
}

/* The byte offset in text just after the n-th (1-based) occurrence of what. */
static size_t after_nth(const char *text, const char *what, int n)
{
    const char *at = text;

    for (int i = 0; i < n; i++) {
        at = strstr(i == 0 ? at : at + 1, what);
        assert_non_null(at);
    }
    return (size_t)(at - text) + strlen(what);
}

/* ---- the database ------------------------------------------------------------------ */

/* The first column of the first row of sql with one parameter, as new text; "" for
 * no row, "(null)" for SQL NULL. */
static char *query(const char *sql, const char *param)
{
    char *out = pgfixture_query(&fx, sql, param);
    if (out == NULL)
        fail_msg("%s failed", sql);
    return out;
}

/* "count|sum of r_bps|sum of w_bps" of file system fs's samples. */
static char *totals(const char *fs)
{
    return query("SELECT count(*) || '|' || coalesce(sum(r_bps), 0)::numeric(30, 3) || "
                 "'|' || coalesce(sum(w_bps), 0)::numeric(30, 3) FROM samples "
                 "WHERE fs = $1",
                 fs);
}

static void assert_same_totals(const char *fs, const char *other)
{
    char *a = totals(fs), *b = totals(other);

    if (strcmp(a, b) != 0)
        fail_msg("%s: %s, %s: %s", fs, a, other, b);
    free(a);
    free(b);
}

/* ---- the runs ------------------------------------------------------------------------
 */

/* `ingest iostat --fs fs --json path` (more: extra options before the command, e.g.
 * a log level), its summary, its exit status in *rc and, when err is not NULL, its
 * log (new) in *err. */
static json_t *ingest(const char *more, const char *fs, const char *path, int *rc,
                      char **err)
{
    char args[PATH_MAX * 3], log[PATH_MAX + 16];
    json_error_t jerr;
    json_t *j;
    char *out;

    snprintf(log, sizeof log, "%s/ingest.log", work);
    snprintf(args, sizeof args, "%s ingest iostat --fs %s --json '%s' 2>'%s'", more, fs,
             path, log);
    out = pgfixture_run(&fx, args, rc);
    assert_non_null(out);
    j = json_loads(out, 0, &jerr);
    if (j == NULL)
        fail_msg("not JSON (exit %d): %s", *rc, out);
    free(out);
    if (err != NULL) {
        size_t n;
        *err = read_all(log, &n);
    }
    return j;
}

static long field(json_t *j, const char *name)
{
    json_t *v = json_object_get(j, name);
    assert_true(json_is_integer(v));
    return (long)json_integer_value(v);
}

/* Ingests path into fs and checks the summary: exit status, files loaded, skipped and
 * quarantined, and new samples. */
static void expect(const char *fs, const char *path, int want_rc, long loaded,
                   long skipped, long quarantined, long samples)
{
    int rc;
    json_t *j = ingest("--quiet", fs, path, &rc, NULL);

    assert_int_equal(rc, want_rc);
    assert_int_equal(field(j, "loaded"), loaded);
    assert_int_equal(field(j, "skipped"), skipped);
    assert_int_equal(field(j, "quarantined"), quarantined);
    assert_int_equal(field(j, "samples"), samples);
    json_decref(j);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-grow-XXXXXX",
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

/* The real iostat -t capture: 45 reports, the first since boot, so 44 samples of vda
 * when loaded whole. Cut in the 20th vda row (a capture still being written), it
 * loads its 18 complete reports after the since-boot one; with the rest appended
 * only the 26 new ones load, the since-boot report is not dropped again, and the
 * file's samples equal those of the whole file loaded at once. */
static void grown_text_file_loads_only_its_new_reports(void **state)
{
    size_t len, cut;
    char *text = shared("iostat/iostat_x_k_t_1s.txt", &len);
    char *whole = malloc(len + 2);
    const char *grow = work_path("grow.txt");

    (void)state;
    /* The whole file at once, on another fs; one more blank line so that its
     * content (its identity) differs from the grown file's. */
    assert_non_null(whole);
    memcpy(whole, text, len);
    whole[len] = '\n';
    put(work_path("whole.txt"), "wb", whole, len + 1);
    expect("whole", work_path("whole.txt"), 0, 1, 0, 0, 44);

    cut = after_nth(text, "\nvda", 20) + 25;
    put(grow, "wb", text, cut);
    expect("grow", grow, 0, 1, 0, 0, 18);
    /* Unchanged: skipped, nothing parsed again. */
    expect("grow", grow, 0, 0, 1, 0, 0);
    put(grow, "ab", text + cut, len - cut);
    expect("grow", grow, 0, 1, 0, 0, 26);
    assert_same_totals("grow", "whole");
    expect("grow", grow, 0, 0, 1, 0, 0);

    /* Grown by a part of a report only: nothing new, the part waits. */
    put(grow, "ab", "11/22/26 13:07:3", 16);
    expect("grow", grow, 0, 0, 1, 0, 0);
    assert_same_totals("grow", "whole");
    free(whole);
    free(text);
}

/* The stamps of fs's samples, in order, comma-separated. */
static char *stamps(const char *fs)
{
    return query("SELECT string_agg(stamp_s::text, ',' ORDER BY stamp_s) FROM samples "
                 "WHERE fs = $1",
                 fs);
}

/* Ingests path into fs with the configuration conf: exit 0, one file loaded with
 * samples new samples. */
static void expect_with(const char *conf, const char *fs, const char *path, long samples)
{
    char more[PATH_MAX + 32];
    int rc;
    json_t *j;

    snprintf(more, sizeof more, "--quiet --config '%s'", conf);
    j = ingest(more, fs, path, &rc, NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "loaded"), 1);
    assert_int_equal(field(j, "samples"), samples);
    json_decref(j);
}

/* The real capture with a repeated second (report 10 printed as report 9) and a
 * skipped one (report 30 printed as report 31), read in Europe/Berlin ([samples]
 * timezone): loaded whole or grown in two parts cut just after the repeat, every
 * report is stored one second after the one before, an hour before the UTC stamps. */
static void grown_file_with_a_repeat_and_a_skip_places_as_loaded_whole(void **state)
{
    static const char conf_text[] = "[samples]\ntimezone = Europe/Berlin\n";
    size_t len, cut;
    char *text = shared("iostat/iostat_x_k_t_1s.txt", &len);
    char *edited = malloc(len + 2), *conf = NULL, *a, *b, *first;
    size_t stamp9 = after_nth(text, "\n11/22/26 ", 9) - 9;
    size_t stamp10 = after_nth(text, "\n11/22/26 ", 10) - 9;
    size_t stamp30 = after_nth(text, "\n11/22/26 ", 30) - 9;
    size_t stamp31 = after_nth(text, "\n11/22/26 ", 31) - 9;

    (void)state;
    assert_non_null(edited);
    memcpy(edited, text, len);
    memcpy(edited + stamp10, text + stamp9, 17);
    memcpy(edited + stamp30, text + stamp31, 17);
    conf = str_dup(work_path("berlin.conf"));
    assert_non_null(conf);
    put(conf, "wb", conf_text, strlen(conf_text));

    edited[len] = '\n'; /* another content than the grown file's */
    put(work_path("tzwhole.txt"), "wb", edited, len + 1);
    expect_with(conf, "tzwhole", work_path("tzwhole.txt"), 44);
    cut = after_nth(edited, "\nvda", 11) + 25;
    put(work_path("tzgrow.txt"), "wb", edited, cut);
    expect_with(conf, "tzgrow", work_path("tzgrow.txt"), 9);
    put(work_path("tzgrow.txt"), "ab", edited + cut, len - cut);
    expect_with(conf, "tzgrow", work_path("tzgrow.txt"), 35);

    a = stamps("tzwhole");
    b = stamps("tzgrow");
    assert_string_equal(a, b);
    /* 13:06:48 CET = 12:06:48Z = 1795352808 - 3600, then every second to 13:07:31 */
    first = query("SELECT min(stamp_s) || ' ' || max(stamp_s) || ' ' || "
                  "count(DISTINCT stamp_s) FROM samples WHERE fs = $1",
                  "tzgrow");
    assert_string_equal(first, "1795349208 1795349251 44");
    free(first);
    free(a);
    free(b);
    free(conf);
    free(edited);
    free(text);
}

/* The same path rewritten with other content (the same inode: truncated and written
 * again) is a new file, parsed whole: the banner and reports 20 to 45 of the capture
 * give 25 samples, report 20 being dropped as the since-boot one. */
static void rewritten_file_is_loaded_as_new(void **state)
{
    size_t len, banner, r20;
    char *text = shared("iostat/iostat_x_k_t_1s.txt", &len);
    const char *path = work_path("rewritten.txt");
    char *length;
    char want[32];

    (void)state;
    put(path, "wb", text, after_nth(text, "\nvda", 10) + 200);
    expect("rewritten", path, 0, 1, 0, 0, 9);
    banner = after_nth(text, "\n\n", 1);
    r20 = after_nth(text, "\n11/22/26 ", 20) - strlen("11/22/26 ");
    put(path, "wb", text, banner);
    put(path, "ab", text + r20, len - r20);
    expect("rewritten", path, 0, 1, 0, 0, 25);
    length = query("SELECT length FROM sample_ledger WHERE path LIKE '%/' || $1",
                   "rewritten.txt");
    /* through the blank line that ends the last table; the capture ends with two */
    snprintf(want, sizeof want, "%zu", banner + len - r20 - 1);
    assert_string_equal(length, want);
    free(length);
    free(text);
}

/* A cut last report waits while the file may still be written; once the file is
 * unchanged for a day (its mtime two days back) the report is set aside with a
 * warning naming the file and line, the exit status stays 0 (a warning, as for any
 * report set aside) and the ledger moves past it. */
static void cut_tail_unchanged_for_a_day_is_set_aside(void **state)
{
    size_t len, cut;
    char *text = shared("iostat/iostat_x_k_t_1s.txt", &len);
    const char *path = work_path("stale.txt");
    struct timeval tv[2];
    char *log = NULL, *length;
    char want[64];
    long line = 1;
    int rc;
    json_t *j;

    (void)state;
    cut = after_nth(text, "\nvda", 30) + 40;
    put(path, "wb", text, cut);
    expect("stale", path, 0, 1, 0, 0, 28);
    expect("stale", path, 0, 0, 1, 0, 0);

    gettimeofday(&tv[0], NULL);
    tv[0].tv_sec -= 2 * 86400;
    tv[1] = tv[0];
    assert_int_equal(utimes(path, tv), 0);
    j = ingest("--log-level warn", "stale", path, &rc, &log);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "quarantined"), 0);
    assert_int_equal(field(j, "samples"), 0);
    json_decref(j);
    for (size_t i = 0; i < cut; i++)
        line += text[i] == '\n';
    snprintf(want, sizeof want, "stale.txt:%ld: the last report is cut", line);
    if (strstr(log, want) == NULL || strstr(log, "set aside") == NULL)
        fail_msg("no warning '%s' in: %s", want, log);
    free(log);
    length = query("SELECT length || '|' || cut_pending FROM sample_ledger "
                   "WHERE path LIKE '%/' || $1",
                   "stale.txt");
    snprintf(want, sizeof want, "%zu|false", cut);
    assert_string_equal(length, want);
    free(length);
    /* Set aside once: the next run skips the file without a word. */
    j = ingest("--log-level warn", "stale", path, &rc, &log);
    assert_int_equal(rc, 0);
    assert_int_equal(field(j, "skipped"), 1);
    assert_null(strstr(log, "set aside"));
    json_decref(j);
    free(log);
    free(text);
}

/* sadf -j cut mid-write loads the complete elements of its statistics array (not
 * quarantined); with the rest written it is parsed whole and only the new stamps
 * load: 190 in all, as the whole file. */
static void cut_json_file_loads_its_complete_reports(void **state)
{
    size_t len, cut;
    char *text = shared("iostat/sadf_j_lab_run1_disk.json", &len);
    const char *path = work_path("cut.json");

    (void)state;
    /* in the 120th disk object: 119 complete reports */
    cut = after_nth(text, "\"disk-device\"", 120) + 30;
    put(path, "wb", text, cut);
    expect("json", path, 0, 1, 0, 0, 119);
    expect("json", path, 0, 0, 1, 0, 0);
    put(path, "ab", text + cut, len - cut);
    expect("json", path, 0, 1, 0, 0, 71);
    free(text);
}

/* A sample file quarantined under an older reader (its verdict without this reader's
 * revision and time zone: repeated stamps, sa files and compressed files were
 * quarantined then) is parsed again, not skipped as known bad; under this reader's
 * verdict it is known bad. */
static void verdicts_of_older_sample_readers_lapse(void **state)
{
    const char *path = work_path("not_iostat.txt");
    static const char text[] = "this is not iostat output\n";

    (void)state;
    put(path, "w", text, sizeof text - 1);
    expect("lapse", path, 1, 0, 0, 1, 0);
    expect("lapse", path, 1, 0, 0, 0, 0); /* known bad: still quarantined, exit 1 */
    char *v = query("SELECT verdict FROM ingest_errors WHERE path = $1", path);
    assert_non_null(strstr(v, ";timezone=UTC;readers=3"));
    free(v);
    free(query("UPDATE ingest_errors SET verdict = replace(verdict, "
               "';timezone=UTC;readers=3', '') WHERE path = $1 RETURNING 1",
               path));
    expect("lapse", path, 1, 0, 0, 1, 0); /* parsed again, quarantined again */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grown_text_file_loads_only_its_new_reports),
        cmocka_unit_test(grown_file_with_a_repeat_and_a_skip_places_as_loaded_whole),
        cmocka_unit_test(rewritten_file_is_loaded_as_new),
        cmocka_unit_test(cut_tail_unchanged_for_a_day_is_set_aside),
        cmocka_unit_test(cut_json_file_loads_its_complete_reports),
        cmocka_unit_test(verdicts_of_older_sample_readers_lapse),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
