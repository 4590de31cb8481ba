/* test_walk.c: issue 29 items 2 and 8b against a real PostgreSQL and the real binary:
 * a walk that cannot crash or hang (a 2,100-deep tree, FIFOs in a tree and on the
 * command line, symbolic links), and a quarantine that never clears silently (a
 * rerun still says "still N quarantined", exits 1, and /metrics says N) with a
 * bounded summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../../ingest/ingest.h"
#include "../support/pgfixture.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct pgfixture fx;
static char work[512]; /* the inputs, removed at the end */

#define LAB "lab/run1_queue_depth/darshan/"
/* Three good logs of the lab run, one per test that needs one loaded. */
static const char *const good_logs[] = {
    LAB "labuser_labjob_id1001-3251_11-22-46751-3512986746761108875_1.parser.txt",
    LAB "labuser_labjob_id1002-3304_11-22-46754-250342890484500865_1.parser.txt",
    LAB "labuser_labjob_id1003-3408_11-22-46759-11812708460119157809_1.parser.txt",
};

/* What one ingest said: its exit status, its --json summary, its stderr. */
struct outcome {
    int rc;
    json_t *summary; /* NULL when stdout was not JSON */
    char *err;       /* stderr, whole */
    size_t out_len;  /* bytes of stdout */
};

static void outcome_free(struct outcome *o)
{
    json_decref(o->summary);
    free(o->err);
}

static const char *at_work(const char *rel)
{
    static char path[1024];

    snprintf(path, sizeof path, "%s/%s", work, rel);
    return path;
}

static void mkdir_work(const char *rel)
{
    assert_int_equal(mkdir(at_work(rel), 0755), 0);
}

/* Copies good log i of the shared data to work/rel. */
static void put_good_log(size_t i, const char *rel)
{
    size_t len = 0;
    char *data =
        testutil_read_file(testutil_path(testutil_shared_data(), good_logs[i]), &len);

    assert_non_null(data);
    assert_int_equal(testutil_write_file(at_work(rel), data, len), 0);
    free(data);
}

/* `timeout 60 iocontend ingest ARGS --json`: a hang is exit 124, a crash 128 + its
 * signal, never a test that waits for ever. */
static struct outcome ingest(const char *args)
{
    char cmd[PATH_MAX * 4], err_path[PATH_MAX + 16];
    struct outcome o = {0};
    json_error_t jerr;

    snprintf(err_path, sizeof err_path, "%s/stderr.txt", work);
    snprintf(cmd, sizeof cmd, "timeout -s KILL 60 '%s' ingest %s --json 2>'%s'", fx.bin,
             args, err_path);
    char *out = testutil_run(cmd, &o.rc);
    assert_non_null(out);
    o.out_len = strlen(out);
    o.summary = json_loads(out, 0, &jerr);
    free(out);
    size_t err_len = 0;
    o.err = testutil_read_file(err_path, &err_len);
    assert_non_null(o.err);
    if (o.rc == 124 || o.rc == 137 || o.rc >= 128)
        fail_msg("`ingest %s` hung or crashed: exit %d: %s", args, o.rc, o.err);
    if (o.summary == NULL)
        fail_msg("`ingest %s`: no JSON summary (exit %d): %s", args, o.rc, o.err);
    return o;
}

static long long field(const struct outcome *o, const char *name)
{
    json_t *v = json_object_get(o->summary, name);

    if (!json_is_integer(v))
        fail_msg("no integer '%s' in the summary", name);
    return json_integer_value(v);
}

static void assert_said(const struct outcome *o, const char *needle)
{
    if (strstr(o->err, needle) == NULL)
        fail_msg("no '%s' in: %s", needle, o->err);
}

/* ---- the walk -------------------------------------------------------------------- */

/* A chain of 2,100 folders "d" below work/deep, made relative to each parent (their
 * paths pass PATH_MAX), beside a good log: the recursive walk died of SIGSEGV at
 * every run. */
static void deep_tree_is_refused_by_name_and_the_log_beside_it_loads(void **state)
{
    (void)state;
    mkdir_work("deep");
    put_good_log(0, "deep/good.parser.txt");
    int fd = open(at_work("deep"), O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    for (int level = 0; level < 2100; level++) {
        assert_int_equal(mkdirat(fd, "d", 0755), 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        close(fd);
        fd = next;
    }
    /* A log at the bottom, which no walk may reach. */
    int log_fd = openat(fd, "bottom.parser.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(log_fd >= 0);
    close(log_fd);
    close(fd);

    char args[1200];
    snprintf(args, sizeof args, "darshan '%s'", at_work("deep"));
    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 1); /* finished, an input refused */
    assert_int_equal(field(&o, "loaded"), 1);
    assert_int_equal(field(&o, "jobs"), 1);
    assert_int_equal(field(&o, "refused"), 1);
    assert_int_equal(field(&o, "quarantined"), 0);

    /* The warning names the first folder past the limit: 64 levels below the root. */
    char want[1400];
    int n = snprintf(want, sizeof want, "refused %s", at_work("deep"));
    for (int level = 0; level < INGEST_WALK_MAX_DEPTH; level++)
        n += snprintf(want + n, sizeof want - (size_t)n, "/d");
    snprintf(want + n, sizeof want - (size_t)n, ": too deep: more than %d levels",
             INGEST_WALK_MAX_DEPTH);
    assert_said(&o, want);
    json_t *e = json_array_get(json_object_get(o.summary, "errors"), 0);
    assert_non_null(strstr(json_string_value(json_object_get(e, "message")), "too deep"));
    outcome_free(&o);
}

/* Folders of 250-character names 20 deep (within the depth limit, but their paths
 * pass PATH_MAX): the walk refuses the first it cannot reach by name with its
 * reason, and the log beside them loads. */
static void paths_too_long_are_refused_by_name(void **state)
{
    char name[251];

    (void)state;
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    mkdir_work("long");
    put_good_log(2, "long/good.parser.txt");
    int fd = open(at_work("long"), O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    for (int level = 0; level < 20; level++) {
        assert_int_equal(mkdirat(fd, name, 0755), 0);
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        close(fd);
        fd = next;
    }
    close(fd);

    char args[1200];
    snprintf(args, sizeof args, "darshan '%s'", at_work("long"));
    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "loaded"), 1);
    assert_int_equal(field(&o, "refused"), 1);
    assert_said(&o, "File name too long");
    json_t *e = json_array_get(json_object_get(o.summary, "errors"), 0);
    assert_non_null(strstr(json_string_value(json_object_get(e, "path")), name));
    outcome_free(&o);
}

/* A FIFO of a wanted name in a tree and one named on the command line: both are
 * refused by their type, never opened (an open of a FIFO blocks until a writer
 * comes), and the good log beside them loads. */
static void fifos_are_refused_by_type_without_hanging(void **state)
{
    (void)state;
    mkdir_work("fifo");
    put_good_log(1, "fifo/good.parser.txt");
    assert_int_equal(mkfifo(at_work("fifo/pipe.parser.txt"), 0644), 0);
    assert_int_equal(mkfifo(at_work("named.darshan"), 0644), 0);

    char args[2400];
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", at_work("fifo"));
    snprintf(args, sizeof args, "darshan '%s' '%s'", dir, at_work("named.darshan"));
    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "loaded"), 1);
    assert_int_equal(field(&o, "refused"), 2);
    char want[1200];
    snprintf(want, sizeof want, "refused %s: a FIFO, not a regular file: not read",
             at_work("fifo/pipe.parser.txt"));
    assert_said(&o, want);
    snprintf(want, sizeof want, "refused %s: a FIFO, not a regular file: not read",
             at_work("named.darshan"));
    assert_said(&o, want);
    outcome_free(&o);

    /* The sample files' walk is the same one: a FIFO named like an sa file. */
    mkdir_work("fifo_iostat");
    assert_int_equal(mkfifo(at_work("fifo_iostat/sa01"), 0644), 0);
    assert_int_equal(mkfifo(at_work("named.sa"), 0644), 0);
    snprintf(dir, sizeof dir, "%s", at_work("fifo_iostat"));
    snprintf(args, sizeof args, "iostat --fs walk '%s' '%s'", dir, at_work("named.sa"));
    o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "refused"), 2);
    snprintf(want, sizeof want, "refused %s: a FIFO, not a regular file: not read",
             at_work("fifo_iostat/sa01"));
    assert_said(&o, want);
    outcome_free(&o);
}

/* A link to a log and a link to a folder are logged, one line each naming the
 * link, and not followed. */
static void symbolic_links_are_logged_and_not_followed(void **state)
{
    (void)state;
    mkdir_work("elsewhere");
    put_good_log(2, "elsewhere/linked.parser.txt");
    mkdir_work("links");
    char target[1024];
    snprintf(target, sizeof target, "%s", at_work("elsewhere/linked.parser.txt"));
    assert_int_equal(symlink(target, at_work("links/ln.parser.txt")), 0);
    snprintf(target, sizeof target, "%s", at_work("elsewhere"));
    assert_int_equal(symlink(target, at_work("links/dir")), 0);

    char args[1200];
    snprintf(args, sizeof args, "darshan '%s'", at_work("links"));
    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 0);
    assert_int_equal(field(&o, "files"), 0);
    assert_int_equal(field(&o, "loaded"), 0);
    assert_int_equal(field(&o, "skipped"), 2);
    char want[1200];
    snprintf(want, sizeof want, "%s: a symbolic link, not followed",
             at_work("links/ln.parser.txt"));
    assert_said(&o, want);
    snprintf(want, sizeof want, "%s: a symbolic link, not followed",
             at_work("links/dir"));
    assert_said(&o, want);
    outcome_free(&o);
}

/* ---- the quarantine never clears silently ---------------------------------------- */

/* n bad logs of different contents in work/rel (the folder's name in each: no two
 * folders share a content, which would be known bad). */
static void put_bad_logs(const char *rel, int n)
{
    mkdir_work(rel);
    for (int i = 0; i < n; i++) {
        char name[64], text[64];
        snprintf(name, sizeof name, "%s/bad%05d.parser.txt", rel, i);
        int len = snprintf(text, sizeof text, "not a darshan log: %s %d\n", rel, i);
        assert_int_equal(testutil_write_file(at_work(name), text, (size_t)len), 0);
    }
}

/* The value of the sample line that starts with series in text, -1 when none. */
static double sample_of(const char *text, const char *series)
{
    const char *at = text;
    size_t n = strlen(series);

    while ((at = strstr(at, series)) != NULL) {
        if ((at == text || at[-1] == '\n') && at[n] == ' ')
            return strtod(at + n + 1, NULL);
        at += n;
    }
    return -1;
}

/* The quarantine gauge of kind ("darshan", "iostat") as a real server's /metrics
 * says it, waiting (up to 10 s) for its once-a-second read of the database. */
static double quarantine_gauge_of(const char *kind)
{
    char series[128];
    struct server srv;

    snprintf(series, sizeof series,
             "iocontend_ingest_last_run_files{kind=\"%s\",result=\"quarantined\"}", kind);
    double v = -1;

    assert_int_equal(server_start(&srv, &fx, NULL), 0);
    for (double t0 = testutil_now_s(); testutil_now_s() - t0 < 10;
         testutil_sleep_s(0.1)) {
        int status = 0;
        char *body = NULL;
        if (http_get(SERVER_HOST, srv.port, "/metrics", NULL, &status, &body) == 0 &&
            status == 200)
            v = sample_of(body, series);
        free(body);
        if (v >= 0)
            break;
    }
    server_stop(&srv);
    return v;
}

/* Three bad logs: the first run quarantines them (exit 1); the rerun, with nothing
 * new, still exits 1 and says "still 3 quarantined" (it exited 0 and said nothing,
 * so an alert cleared after one night), and the gauge of /metrics says 3. */
static void rerun_still_says_quarantined_and_exits_1(void **state)
{
    (void)state;
    put_bad_logs("bad3", 3);
    char args[1200];
    snprintf(args, sizeof args, "darshan '%s'", at_work("bad3"));

    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "quarantined"), 3);
    assert_int_equal(field(&o, "still_quarantined"), 3);
    assert_said(&o, "still 3 quarantined (3 new, 0 known bad)");
    outcome_free(&o);

    o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "quarantined"), 0);
    assert_int_equal(field(&o, "known_bad"), 3);
    assert_int_equal(field(&o, "still_quarantined"), 3);
    assert_said(&o, "still 3 quarantined (0 new, 3 known bad)");
    json_t *errors = json_object_get(o.summary, "errors");
    assert_int_equal(json_array_size(errors), 3);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(errors, 0), "message")),
        "quarantined before, unchanged: not parsed again");
    outcome_free(&o);

    char *got = pgfixture_query(
        &fx, "SELECT quarantined FROM ingest_runs ORDER BY id DESC LIMIT 1", NULL);
    assert_string_equal(got, "3");
    free(got);
    assert_rel(quarantine_gauge_of("darshan"), 3, 0);
}

/* A bad sample file of one file system, then a good run of another: the gauge of
 * /metrics still says 1 (it said the last run's 0: each file system's run reset
 * it), the total of every file system the quarantine list holds. */
static void the_quarantine_gauge_counts_every_file_system(void **state)
{
    char args[2400];
    size_t len = 0;

    (void)state;
    mkdir_work("fsa");
    mkdir_work("fsb");
    assert_int_equal(
        testutil_write_file(at_work("fsa/bad.txt"), "garbage, not iostat\n", 20), 0);
    char *good = testutil_read_file(
        testutil_path(testutil_shared_data(), "iostat/iostat_x_k_t_1s.txt"), &len);
    assert_non_null(good);
    assert_int_equal(testutil_write_file(at_work("fsb/good.txt"), good, len), 0);
    free(good);

    snprintf(args, sizeof args, "iostat --fs fsa '%s'", at_work("fsa"));
    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "quarantined"), 1);
    outcome_free(&o);
    snprintf(args, sizeof args, "iostat --fs fsb '%s'", at_work("fsb"));
    o = ingest(args);
    assert_int_equal(o.rc, 0);
    assert_int_equal(field(&o, "loaded"), 1);
    assert_int_equal(field(&o, "still_quarantined"), 0);
    outcome_free(&o);
    assert_rel(quarantine_gauge_of("iostat"), 1, 0);
}

/* loaded + unchanged + quarantined + known_bad + missing + refused + reprocessed +
 * reread_failed of a summary; they must add up to its files. */
static long long categories(const struct outcome *o)
{
    static const char *const names[] = {"loaded",      "unchanged",    "quarantined",
                                        "known_bad",   "missing",      "refused",
                                        "reprocessed", "reread_failed"};
    long long sum = 0;

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        sum += field(o, names[i]);
    return sum;
}

/* The summary's categories are disjoint and add up to files (the run said
 * "files 2, loaded 0, skipped 2, quarantined 1": skipped counted both the file
 * loaded before and a file that is no input); the walk's other files are
 * not_input, apart, and skipped stays unchanged + not_input. */
static void the_summary_counts_add_up_to_files(void **state)
{
    char args[2400];

    (void)state;
    put_bad_logs("sum", 1);
    put_good_log(0, "sum/good.parser.txt");
    assert_int_equal(testutil_write_file(at_work("sum/notes.txt"), "notes\n", 6), 0);
    assert_int_equal(mkfifo(at_work("sum/pipe.parser.txt"), 0644), 0);
    char folder[1100];
    snprintf(folder, sizeof folder, "%s", at_work("sum")); /* at_work's is static */
    snprintf(args, sizeof args, "darshan '%s' '%s'", folder,
             at_work("sum-missing.parser.txt"));

    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 66);
    assert_int_equal(field(&o, "files"), 4);
    assert_int_equal(field(&o, "loaded") + field(&o, "unchanged"), 1);
    assert_int_equal(field(&o, "quarantined"), 1);
    assert_int_equal(field(&o, "refused"), 1);
    assert_int_equal(field(&o, "missing"), 1);
    assert_int_equal(field(&o, "not_input"), 1);
    assert_int_equal(categories(&o), field(&o, "files"));
    outcome_free(&o);

    /* Again: the log is unchanged, the bad one known bad. */
    o = ingest(args);
    assert_int_equal(o.rc, 66);
    assert_int_equal(field(&o, "files"), 4);
    assert_int_equal(field(&o, "loaded"), 0);
    assert_int_equal(field(&o, "unchanged"), 1);
    assert_int_equal(field(&o, "quarantined"), 0);
    assert_int_equal(field(&o, "known_bad"), 1);
    assert_int_equal(field(&o, "not_input"), 1);
    assert_int_equal(field(&o, "skipped"), 2);
    assert_int_equal(categories(&o), field(&o, "files"));
    outcome_free(&o);
}

/* 1,000 bad logs (2,000 cost 11 s under the shared machine's load, a quarantine
 * being a transaction each): the summary lists the first INGEST_SUMMARY_ERRORS with their
 * reasons and counts the rest (100,000 made a 13 MB summary); the quarantine list
 * keeps every one. */
static void many_bad_files_make_a_bounded_summary(void **state)
{
    (void)state;
    put_bad_logs("many", 1000);
    char args[1200];
    snprintf(args, sizeof args, "darshan --jobs 2 '%s'", at_work("many"));

    struct outcome o = ingest(args);
    assert_int_equal(o.rc, 1);
    assert_int_equal(field(&o, "quarantined"), 1000);
    assert_int_equal(json_array_size(json_object_get(o.summary, "errors")),
                     INGEST_SUMMARY_ERRORS);
    assert_int_equal(field(&o, "errors_more"), 1000 - INGEST_SUMMARY_ERRORS);
    /* 20 entries of at most ~700 bytes: bounded whatever the count (it was 146
     * bytes an entry, every one listed: 146 KB here, 2.9 MB for 20,000). */
    assert_true(o.out_len < 16384);
    assert_said(&o, "still 1000 quarantined (1000 new, 0 known bad)");
    outcome_free(&o);
    char *got = pgfixture_query(
        &fx, "SELECT count(*) FROM ingest_errors WHERE path LIKE '%/many/bad%'", NULL);
    assert_string_equal(got, "1000");
    free(got);
}

static int setup(void **state)
{
    (void)state;
    if (pgfixture_start(&fx) != 0)
        return -1;
    snprintf(work, sizeof work, "%s/walk", fx.state_dir);
    return mkdir(work, 0755);
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 32];
    int rc = 0;

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    free(testutil_run(cmd, &rc));
    pgfixture_stop(&fx);
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deep_tree_is_refused_by_name_and_the_log_beside_it_loads),
        cmocka_unit_test(paths_too_long_are_refused_by_name),
        cmocka_unit_test(fifos_are_refused_by_type_without_hanging),
        cmocka_unit_test(symbolic_links_are_logged_and_not_followed),
        cmocka_unit_test(rerun_still_says_quarantined_and_exits_1),
        cmocka_unit_test(many_bad_files_make_a_bounded_summary),
        cmocka_unit_test(the_summary_counts_add_up_to_files),
        cmocka_unit_test(the_quarantine_gauge_counts_every_file_system),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
