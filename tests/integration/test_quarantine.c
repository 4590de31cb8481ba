/* test_quarantine.c: issue 15 item 3 against a real PostgreSQL and the real binary:
 * `quarantine list|retry|forget` and `unload --run|--path`, then what `analyze` and
 * the API make of an unload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sql/db.h"
#include "../support/pgfixture.h"
#include "../support/sample.h"
#include "../support/server.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct pgfixture fx;
static char work[PATH_MAX]; /* the input files, removed at the end */

/* ---- files and the database --------------------------------------------------------
 */

static void write_all(const char *path, const char *data, size_t len)
{
    assert_int_equal(testutil_write_file(path, data, len), 0);
}

/* work/rel into a static buffer (valid until the next call). */
static const char *at_work(const char *rel)
{
    static char path[PATH_MAX * 2];

    snprintf(path, sizeof path, "%s/%s", work, rel);
    return path;
}

/* The first column of the first row of sql (one parameter or none) as a number. */
static long long query_num(const char *sql, const char *param)
{
    char *v = pgfixture_query(&fx, sql, param);
    if (v == NULL || v[0] == '\0')
        fail_msg("%s: no row", sql);
    long long n = strtoll(v, NULL, 10);
    free(v);
    return n;
}

/* `iocontend ARGS` with stderr joined: its output (caller frees) and exit status. */
static char *run(const char *args, int *rc)
{
    size_t size = strlen(args) + 8;
    char *cmd = malloc(size);

    assert_non_null(cmd);
    snprintf(cmd, size, "%s 2>&1", args);
    char *out = pgfixture_run(&fx, cmd, rc);
    free(cmd);
    assert_non_null(out);
    return out;
}

/* Runs args and fails unless it exits want; returns its output (caller frees). */
static char *run_want(const char *args, int want)
{
    int rc = -1;
    char *out = run(args, &rc);

    if (rc != want)
        fail_msg("`%s`: exit %d, want %d: %s", args, rc, want, out);
    return out;
}

static void run_expect(const char *args, int want, const char *needle)
{
    char *out = run_want(args, want);

    if (needle != NULL && strstr(out, needle) == NULL)
        fail_msg("`%s`: no '%s' in: %s", args, needle, out);
    free(out);
}

/* `ingest ARGS` (without --json): the run id its summary line names. */
static long long ingest_run(const char *args, int want)
{
    char *out = run_want(args, want);
    const char *at = strstr(out, "ingest run ");

    if (at == NULL)
        fail_msg("no 'ingest run ID:' in: %s", out);
    long long id = strtoll(at + strlen("ingest run "), NULL, 10);
    assert_true(id > 0);
    free(out);
    return id;
}

/* `quarantine list --json`, parsed and checked to be {"quarantined": [...]}. */
static json_t *list_json(void)
{
    int rc = -1;
    char *out = pgfixture_run(&fx, "quarantine list --json", &rc);
    json_error_t jerr;

    assert_non_null(out);
    assert_int_equal(rc, 0);
    json_t *j = json_loads(out, 0, &jerr);
    if (j == NULL || !json_is_array(json_object_get(j, "quarantined")))
        fail_msg("not the list object: %s", out);
    free(out);
    return j;
}

/* The entry of the list whose path ends in name (NULL when none). */
static json_t *entry_of(json_t *list, const char *name)
{
    size_t i;
    json_t *e;

    json_array_foreach(json_object_get(list, "quarantined"), i, e)
    {
        const char *p = json_string_value(json_object_get(e, "path"));
        assert_non_null(p);
        if (strlen(p) >= strlen(name) && strcmp(p + strlen(p) - strlen(name), name) == 0)
            return e;
    }
    return NULL;
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-quarantine-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(work) == NULL)
        return -1;
    /* As root the cluster runs as postgres, who reads nothing here; the test does. */
    chmod(work, 0755);
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

/* ---- the quarantine list ----------------------------------------------------------- */

static void quarantine_lists_retries_and_forgets(void **state)
{
    static const char garbage[] = "\x89\xff\x00\x01 garbage\n";
    char args[PATH_MAX * 4];
    char dir[PATH_MAX * 2];
    json_t *l, *e;

    (void)state;
    snprintf(dir, sizeof dir, "%s", at_work("q"));
    assert_int_equal(mkdir(dir, 0755), 0);
    write_all(at_work("q/garbage.parser.txt"), garbage, sizeof garbage - 1);
    write_all(at_work("q/empty.parser.txt"), "", 0);
    /* a Latin-1 name: stored escaped, named raw on the command line */
    write_all(at_work("q/caf\xe9.parser.txt"), "\x01\x02\x00", 3);
    char *good = strdup(
        testutil_path(testutil_shared_data(), "darshan/release_x86_64_3.5.0/parser.txt"));
    assert_non_null(good);
    snprintf(args, sizeof args, "--quiet ingest darshan --json '%s' '%s'", dir, good);
    free(good);
    free(run_want(args, 1));

    /* list: a table, one line per entry, and the same as JSON */
    char *out = run_want("quarantine list", 0);
    if (strstr(out, "garbage.parser.txt:1") == NULL ||
        strstr(out, "empty.parser.txt  ") == NULL || strstr(out, "caf\\xe9") == NULL ||
        strstr(out, "skips it") == NULL ||
        strstr(out, "3 entries: 3 known bad (skipped by the next ingest)") == NULL)
        fail_msg("list: %s", out);
    free(out);
    l = list_json();
    assert_int_equal(json_array_size(json_object_get(l, "quarantined")), 3);
    e = entry_of(l, "/garbage.parser.txt");
    assert_non_null(e);
    assert_int_equal(json_integer_value(json_object_get(e, "line")), 1);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "parse");
    assert_non_null(strstr(json_string_value(json_object_get(e, "message")), "NUL byte"));
    assert_int_equal(strlen(json_string_value(json_object_get(e, "content_hash"))), 32);
    assert_true(json_is_true(json_object_get(e, "known_bad")));
    assert_true(json_is_false(json_object_get(e, "loaded")));
    assert_non_null(
        strstr(json_string_value(json_object_get(e, "verdict")), "kind=darshan"));
    double first_s = 0, last_s = 0;
    assert_true(time_parse_rfc3339(json_string_value(json_object_get(e, "first_seen")),
                                   &first_s));
    assert_true(
        time_parse_rfc3339(json_string_value(json_object_get(e, "last_seen")), &last_s));
    assert_true(first_s <= last_s);
    char first_seen[40];
    snprintf(first_seen, sizeof first_seen, "%s",
             json_string_value(json_object_get(e, "first_seen")));
    e = entry_of(l, "/empty.parser.txt");
    assert_non_null(e);
    assert_true(json_is_null(json_object_get(e, "line")));
    assert_non_null(entry_of(l, "/caf\\xe9.parser.txt"));
    json_decref(l);

    /* unchanged: all three known bad, still quarantined: exit 1 */
    snprintf(args, sizeof args, "ingest darshan '%s'", dir);
    run_expect(args, 1, "still 3 quarantined (0 new, 3 known bad)");

    /* --help acts not, wherever it stands */
    snprintf(args, sizeof args, "quarantine forget --all --help");
    run_expect(args, 0, "usage: iocontend quarantine list");
    assert_int_equal(query_num("SELECT count(*) FROM ingest_errors", NULL), 3);

    /* retry: the verdict goes, the entry stays; the next ingest parses the file
     * again, quarantines it again (exit 1) and keeps its first_seen */
    snprintf(args, sizeof args, "quarantine retry '%s'", at_work("q/garbage.parser.txt"));
    run_expect(args, 0, "retried 1 entry");
    l = list_json();
    e = entry_of(l, "/garbage.parser.txt");
    assert_true(json_is_false(json_object_get(e, "known_bad")));
    assert_true(json_is_null(json_object_get(e, "verdict")));
    json_decref(l);
    /* the raw Latin-1 name finds its escaped entry */
    snprintf(args, sizeof args, "quarantine retry '%s'", at_work("q/caf\xe9.parser.txt"));
    run_expect(args, 0, "retried 1 entry");
    sleep(1); /* last_seen moves on */
    snprintf(args, sizeof args, "ingest darshan '%s'", dir);
    run_expect(args, 1, "2 quarantined, 1 known bad");
    l = list_json();
    e = entry_of(l, "/garbage.parser.txt");
    assert_true(json_is_true(json_object_get(e, "known_bad")));
    assert_string_equal(json_string_value(json_object_get(e, "first_seen")), first_seen);
    assert_true(
        time_parse_rfc3339(json_string_value(json_object_get(e, "last_seen")), &last_s));
    assert_true(last_s > first_s);
    json_decref(l);

    /* an unknown path: 66 naming it, and nothing changes, the known path either */
    snprintf(args, sizeof args, "quarantine forget '%s' /nonexistent/x.parser.txt",
             at_work("q/empty.parser.txt"));
    run_expect(args, 66, "no quarantined file '/nonexistent/x.parser.txt'");
    run_expect("quarantine retry /nonexistent/x.parser.txt", 66, "/nonexistent");
    assert_int_equal(query_num("SELECT count(*) FROM ingest_errors", NULL), 3);
    assert_int_equal(
        query_num("SELECT count(*) FROM ingest_errors WHERE verdict IS NOT NULL", NULL),
        3);

    /* forget: the entry and its history go; the next ingest parses the file again
     * and it comes back as a new entry */
    snprintf(args, sizeof args, "quarantine forget '%s'", at_work("q/empty.parser.txt"));
    run_expect(args, 0, "forgot 1 entry");
    l = list_json();
    assert_null(entry_of(l, "/empty.parser.txt"));
    assert_int_equal(json_array_size(json_object_get(l, "quarantined")), 2);
    json_decref(l);
    snprintf(args, sizeof args, "ingest darshan '%s'", dir);
    run_expect(args, 1, "1 quarantined, 2 known bad");
    assert_int_equal(query_num("SELECT count(*) FROM ingest_errors", NULL), 3);

    /* usage */
    run_expect("quarantine retry", 64, "PATH... or --all");
    run_expect("quarantine forget --all /x", 64, "PATH... or --all");
    run_expect("quarantine list /x", 64, "takes only --json");
    run_expect("quarantine frobnicate", 64, "expected list, retry or forget");

    /* --all */
    run_expect("quarantine retry --all", 0, "retried 3 entries");
    assert_int_equal(
        query_num("SELECT count(*) FROM ingest_errors WHERE verdict IS NOT NULL", NULL),
        0);
    run_expect("quarantine forget --all", 0, "forgot 3 entries");
    run_expect("quarantine list", 0, "the quarantine list is empty");
    l = list_json();
    assert_int_equal(json_array_size(json_object_get(l, "quarantined")), 0);
    json_decref(l);
}

/* ---- unload ------------------------------------------------------------------------ */

#define GEN_ARGS "--days 1 --jobs-per-group 20"

/* The API's job count of the group whose name starts with prefix. */
static long group_jobs(const struct server *srv, const char *prefix, char id[17])
{
    json_t *j = server_get_json(srv, "/api/v1/groups", NULL, 200);
    json_t *g;
    size_t i;
    long n = -1;

    json_array_foreach(json_object_get(j, "groups"), i, g)
    {
        const char *name = json_string_value(json_object_get(g, "name"));
        if (name != NULL && strncmp(name, prefix, strlen(prefix)) == 0) {
            n = (long)json_integer_value(json_object_get(g, "jobs"));
            if (id != NULL)
                snprintf(id, 17, "%s", json_string_value(json_object_get(g, "id")));
        }
    }
    json_decref(j);
    if (n < 0)
        fail_msg("no group named %s...", prefix);
    return n;
}

/* d of the stored t_d ~ psi_d_read association of group id. */
static long assoc_d(const struct server *srv, const char *id)
{
    char path[128];

    snprintf(path, sizeof path, "/api/v1/groups/%s/association?y=t_d&x=psi_d_read", id);
    json_t *j = server_get_json(srv, path, NULL, 200);
    long d = (long)json_integer_value(json_object_get(j, "d"));
    json_decref(j);
    return d;
}

static void unload_takes_back_a_run_or_a_path(void **state)
{
    char gen[PATH_MAX * 2], conf[PATH_MAX * 2 + 32], args[PATH_MAX * 8],
        path[PATH_MAX * 3];
    char npc_id[17];
    struct server srv = {0};

    (void)state;
    snprintf(gen, sizeof gen, "%s", at_work("gen"));
    assert_int_equal(sample_generate(gen, 20240601UL, GEN_ARGS), 0);
    sample_conf(gen, conf, sizeof conf);
    snprintf(args, sizeof args, "--config '%s' ingest darshan '%s/darshan/npc'", conf,
             gen);
    long long npc_run = ingest_run(args, 0);
    snprintf(args, sizeof args,
             "--config '%s' ingest darshan '%s/darshan/esb' '%s/darshan/npb'", conf, gen,
             gen);
    long long other_run = ingest_run(args, 0);
    snprintf(args, sizeof args, "--config '%s' ingest iostat --fs scratch1 '%s'", conf,
             at_work("gen/iostat/scratch1"));
    long long s1_run = ingest_run(args, 0);
    snprintf(args, sizeof args, "--config '%s' ingest iostat --fs scratch2 '%s'", conf,
             at_work("gen/iostat/scratch2"));
    ingest_run(args, 0);
    snprintf(args, sizeof args, "--config '%s' analyze --permutations 0", conf);
    free(run(args, &(int){0}));

    char run_id[32];
    snprintf(run_id, sizeof run_id, "%lld", npc_run);
    long long jobs = query_num("SELECT count(*) FROM jobs", NULL);
    long long samples = query_num("SELECT count(*) FROM samples", NULL);
    long long windows = query_num("SELECT count(*) FROM job_windows", NULL);
    long long run_jobs = query_num("SELECT jobs FROM ingest_runs WHERE id = $1", run_id);
    long long run_files =
        query_num("SELECT loaded FROM ingest_runs WHERE id = $1", run_id);
    assert_int_equal(run_jobs, 20);
    assert_int_equal(run_files, 20);
    long long files = query_num("SELECT count(*) FROM loaded_files", NULL);
    assert_true(samples > 0);

    assert_int_equal(server_start(&srv, &fx, conf), 0);
    assert_int_equal(group_jobs(&srv, "npc", npc_id), 20);
    assert_true(assoc_d(&srv, npc_id) > 10);

    /* --help and --dry-run change nothing */
    snprintf(args, sizeof args, "unload --run %lld --help", npc_run);
    run_expect(args, 0, "usage: iocontend unload");
    snprintf(args, sizeof args, "unload --run %lld --dry-run", npc_run);
    run_expect(args, 0, "dry run: would unload ingest run");
    run_expect(args, 0, ": 20 files, 20 jobs, 0 samples");
    assert_int_equal(query_num("SELECT count(*) FROM jobs", NULL), jobs);
    assert_int_equal(query_num("SELECT count(*) FROM loaded_files", NULL), files);

    /* while an ingest runs: --no-wait exits 75 */
    {
        struct db *db = NULL;
        struct error err = {0};
        assert_int_equal(
            db_connect(NULL, NULL, DB_START_EMBEDDED | DB_MIGRATE, &db, &err), STATUS_OK);
        assert_int_equal(db_run_lock(db, "ingest", false, &err), STATUS_OK);
        snprintf(args, sizeof args, "unload --no-wait --run %lld", npc_run);
        run_expect(args, 75, "another ingest run holds the lock");
        db_close(db);
    }
    assert_int_equal(query_num("SELECT count(*) FROM jobs", NULL), jobs);

    /* the run: exactly its jobs (and their windows), none of the others' */
    snprintf(args, sizeof args, "unload --run %lld", npc_run);
    run_expect(args, 0, "unloaded ingest run");
    assert_int_equal(query_num("SELECT count(*) FROM jobs", NULL), jobs - run_jobs);
    assert_int_equal(
        query_num("SELECT count(*) FROM jobs WHERE executable LIKE 'npc%'", NULL), 0);
    assert_int_equal(query_num("SELECT count(*) FROM samples", NULL), samples);
    assert_int_equal(
        query_num("SELECT count(*) FROM loaded_files WHERE run_id = $1", run_id), 0);
    assert_true(query_num("SELECT count(*) FROM job_windows", NULL) < windows);
    assert_int_equal(query_num("SELECT count(*) FROM job_windows w WHERE NOT EXISTS "
                               "(SELECT 1 FROM jobs j WHERE j.job_key = w.job_key)",
                               NULL),
                     0);
    /* again: nothing is left of it */
    run_expect(args, 66, "ingest run");
    run_expect("unload --run 999999", 66, "no ingest run 999999");
    run_expect("unload --path /nonexistent/x.parser.txt", 66,
               "no file loaded from path '/nonexistent/x.parser.txt'");

    /* The API counts the jobs at once; analyze finds the group's inputs changed
     * and stores what is left of it (no job: d = 0, no table). */
    assert_int_equal(group_jobs(&srv, "npc", NULL), 0);
    snprintf(args, sizeof args, "--config '%s' analyze --permutations 0", conf);
    char *out = run(args, &(int){0});
    if (strstr(out, "1 groups computed") == NULL)
        fail_msg("analyze after the unload: %s", out);
    free(out);
    /* the server's answers follow within about a second (docs/api.md, the data
     * version read once a second): an analyze faster than that is waited for */
    double t0 = testutil_now_s();
    while (assoc_d(&srv, npc_id) != 0 && testutil_now_s() - t0 < 5)
        testutil_sleep_s(0.1);
    assert_int_equal(assoc_d(&srv, npc_id), 0);
    snprintf(path, sizeof path, "/api/v1/groups/%s/table", npc_id);
    json_decref(server_get_json(&srv, path, NULL, 404));

    /* ingested again, the run's files load again */
    snprintf(args, sizeof args, "--config '%s' ingest darshan '%s/darshan/npc'", conf,
             gen);
    run_expect(args, 0, "20 loaded, 0 unchanged");
    assert_int_equal(query_num("SELECT count(*) FROM jobs", NULL), jobs);
    assert_int_equal(query_num("SELECT count(*) FROM job_windows", NULL), windows);
    assert_int_equal(group_jobs(&srv, "npc", NULL), 20);

    /* one sample file by its path: its samples only */
    snprintf(path, sizeof path, "%s", at_work("gen/iostat/scratch1/s1-ds01.iostat.txt"));
    long long mine = query_num("SELECT count(*) FROM samples WHERE source_hash IN "
                               "(SELECT content_hash FROM loaded_files WHERE path = $1)",
                               path);
    assert_true(mine > 0);
    snprintf(args, sizeof args, "unload --path '%s'", path);
    char want[PATH_MAX * 3 + 128];
    snprintf(want, sizeof want, "unloaded path %s: 1 file, 0 jobs, %lld samples", path,
             mine);
    run_expect(args, 0, want);
    assert_int_equal(query_num("SELECT count(*) FROM samples", NULL), samples - mine);
    assert_int_equal(query_num("SELECT count(*) FROM jobs", NULL), jobs);
    /* its ledger row went too: the next ingest reads the file from its start */
    assert_int_equal(
        query_num("SELECT count(*) FROM sample_ledger WHERE path = $1", path), 0);
    /* analyze sees the samples gone around every group, and the server gone from
     * scratch1: mpi-io-test's job, far from every sample, is computed again too */
    snprintf(args, sizeof args, "--config '%s' analyze --permutations 0", conf);
    out = run(args, &(int){0});
    if (strstr(out, "4 groups computed") == NULL)
        fail_msg("analyze after the sample unload: %s", out);
    free(out);
    snprintf(args, sizeof args, "--config '%s' ingest iostat --fs scratch1 '%s'", conf,
             path);
    run_expect(args, 0, "1 loaded");
    assert_int_equal(query_num("SELECT count(*) FROM samples", NULL), samples);
    (void)s1_run;
    (void)other_run;

    /* usage */
    run_expect("unload", 64, "give one of --run ID or --path PATH");
    run_expect("unload --run 1 --path /x", 64, "give one of");
    run_expect("unload --run abc", 64, "--run takes a run id");
    server_stop(&srv);
}

/* `iocontend ARGS` run from folder dir: fails unless it exits want and, unless
 * needle is NULL, says needle. */
static void run_in(const char *dir, const char *args, int want, const char *needle)
{
    char back[PATH_MAX];

    assert_non_null(getcwd(back, sizeof back));
    assert_int_equal(chdir(dir), 0);
    int rc = -1;
    char *out = run(args, &rc);
    assert_int_equal(chdir(back), 0);
    if (rc != want || (needle != NULL && strstr(out, needle) == NULL))
        fail_msg("`%s` in %s: exit %d (want %d): %s", args, dir, rc, want, out);
    free(out);
}

/* A path is found whatever form it was loaded or is given in: loaded relative from
 * one folder, it is retried, forgotten and unloaded by its absolute path, and by a
 * relative one from another folder (each answered 66 "no quarantined file" when
 * only the form typed at the load matched). */
static void paths_are_found_in_either_form(void **state)
{
    char real_bin[PATH_MAX], rel[PATH_MAX * 2], args[PATH_MAX * 4], want[PATH_MAX * 3];

    (void)state;
    /* The binary is named relative to the starting folder: by its real path here. */
    assert_non_null(realpath(fx.bin, real_bin));
    assert_true(strlen(real_bin) < sizeof fx.bin);
    memcpy(fx.bin, real_bin, strlen(real_bin) + 1);
    snprintf(rel, sizeof rel, "%s", at_work("forms"));
    assert_int_equal(mkdir(rel, 0755), 0);
    write_all(at_work("forms/bad.parser.txt"), "not a log: forms\n", 17);
    size_t len = 0;
    char *good = testutil_read_file(
        testutil_path(testutil_shared_data(), "darshan/ior_hdf5/parser.txt"), &len);
    assert_non_null(good);
    write_all(at_work("forms/good.parser.txt"), good, len);
    free(good);

    /* Loaded as "forms", from work. */
    run_in(work, "ingest darshan forms", 1, "1 loaded");
    snprintf(want, sizeof want, "%s/forms/bad.parser.txt", work);
    json_t *l = list_json();
    json_t *e = entry_of(l, "/forms/bad.parser.txt");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "path")), want);
    json_decref(l);

    /* Retried by its absolute path from /, forgotten by a relative one from forms. */
    snprintf(args, sizeof args, "quarantine retry '%s'", want);
    run_in("/", args, 0, "retried 1 entry");
    run_in(rel, "quarantine forget ./bad.parser.txt", 0, "forgot 1 entry");
    l = list_json();
    assert_null(entry_of(l, "/forms/bad.parser.txt"));
    json_decref(l);

    /* Unloaded by a relative path from forms (dry), then by its absolute one. */
    run_in(rel, "unload --dry-run --path ../forms/good.parser.txt", 0,
           "would unload path ");
    snprintf(args, sizeof args, "unload --path '%s/forms/good.parser.txt'", work);
    run_in("/", args, 0, ": 1 file, 1 job");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quarantine_lists_retries_and_forgets),
        cmocka_unit_test(unload_takes_back_a_run_or_a_path),
        cmocka_unit_test(paths_are_found_in_either_form),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
