/* test_scope.c: the series scopes of METHOD.md §1 (all, touched, fs:NAME) and the
 * columns of `iocontend export jobs`, on a tiny hand-made data set worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The data set. Two monitored file systems, fsa (server sa1) and fsb (server sb1), one
 * device each, sampled every 60 s on the grid T_j = 60·j; S = 1700000040 = 60·28333334
 * (2023-11-14 22:14:00 UTC). The report stamped S is iostat's since-boot one, dropped.
 * The sample stamped T covers (T − 60, T]:
 *
 *   stamp     fsa rkB/s  fsa wkB/s   fsb rkB/s  fsb wkB/s
 *   S + 60     1234.56     10.00      500.50     20.00
 *   S + 120    2385.25     10.00      750.75     20.00
 *   S + 180     100.00     10.00      200.00     20.00
 *   S + 240     100.00     10.00      200.00     20.00
 *
 * Three jobs run over [S + 10, S + 210] and do all their I/O in [S + 30, S + 120]
 * (relative 20 to 110): A = {(S, S+60], (S+60, S+120]}, m = 2, and eq. 4 gives
 * Ψ^D = 30·v_1 + 60·v_2 (t^D_start − t^D_0 = 30, t^D_m − t^D_end = 0), |S^D| = 90 s.
 *   job 101 reads 1e6 bytes of /fsa only            touched = {fsa}
 *   job 102 reads 2e6 bytes of /fsa, writes 1e9 to /fsb  touched = {fsa, fsb}
 *   job 103 reads 3e6 bytes of /home (not monitored)  touched = {}
 * so, in kB (×1024 for bytes):
 *   Ψ^D_R(fsa) = 30·1234.56 + 60·2385.25 = 37036.8 + 143115 = 180151.8
 *   Ψ^D_R(fsb) = 30·500.50 + 60·750.75 = 15015 + 45045 = 60060
 *   Ψ^D_R(all) = 240211.8
 *   Ψ^D_W(fsa) = 90·10 = 900, Ψ^D_W(fsb) = 90·20 = 1800, Ψ^D_W(all) = 2700. */
#define KIB         1024.0
#define PSI_D_R_FSA (180151.8 * KIB) /* 184475443.2 */
#define PSI_D_R_FSB (60060.0 * KIB)  /* 61501440 */
#define PSI_D_R_ALL (240211.8 * KIB) /* 245976883.2 */
#define PSI_D_W_FSA (900.0 * KIB)
#define PSI_D_W_ALL (2700.0 * KIB)
#define S_D         90.0
#define REL         1e-12
#define START       1700000040L
#define N_STAMPS    5

static const char *const stamp_text[N_STAMPS] = {"11/14/23 22:14:00", "11/14/23 22:15:00",
                                                 "11/14/23 22:16:00", "11/14/23 22:17:00",
                                                 "11/14/23 22:18:00"};
static const double fsa_r[N_STAMPS] = {99999.0, 1234.56, 2385.25, 100.0, 100.0};
static const double fsb_r[N_STAMPS] = {99999.0, 500.50, 750.75, 200.0, 200.0};

static struct {
    struct pgfixture db;
    char dir[300];  /* the data set */
    char conf[400]; /* its iocontend.conf */
} fx;

static void write_iostat(const char *path, const char *host, const double *r, double w)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fprintf(fp, "Linux 6.1.0-18-amd64 (%s) \t11/14/23 \t_x86_64_\t(4 CPU)\n\n", host);
    for (int i = 0; i < N_STAMPS; i++) {
        fprintf(fp, "%s\n", stamp_text[i]);
        fprintf(fp, "Device            r/s     rkB/s     w/s     wkB/s  %%util\n");
        fprintf(fp, "sdb             12.50  %8.2f    3.25  %8.2f   4.20\n\n\n", r[i], w);
    }
    assert_int_equal(fclose(fp), 0);
}

/* One POSIX record of darshan-parser text with every counter the parser needs. */
struct posix_io {
    long long reads, writes, bytes_read, bytes_written;
    double read_start, read_end, write_start, write_end;
};

static void write_record(FILE *fp, unsigned long long id, const char *file,
                         const char *mount, const struct posix_io *io)
{
    const struct {
        const char *name;
        double value;
    } c[] = {
        {"POSIX_OPENS", 1},
        {"POSIX_READS", (double)io->reads},
        {"POSIX_WRITES", (double)io->writes},
        {"POSIX_BYTES_READ", (double)io->bytes_read},
        {"POSIX_BYTES_WRITTEN", (double)io->bytes_written},
        {"POSIX_F_OPEN_START_TIMESTAMP", 19.5},
        {"POSIX_F_READ_START_TIMESTAMP", io->read_start},
        {"POSIX_F_WRITE_START_TIMESTAMP", io->write_start},
        {"POSIX_F_READ_END_TIMESTAMP", io->read_end},
        {"POSIX_F_WRITE_END_TIMESTAMP", io->write_end},
        {"POSIX_F_CLOSE_END_TIMESTAMP", 111.0},
        {"POSIX_F_READ_TIME", io->reads > 0 ? 2.385 : 0},
        {"POSIX_F_WRITE_TIME", io->writes > 0 ? 1.125 : 0},
        {"POSIX_F_META_TIME", 0.25},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        /* as darshan-parser: counts as integers, times (POSIX_F_*) with 6 decimals */
        int decimals = strncmp(c[i].name, "POSIX_F_", 8) == 0 ? 6 : 0;
        fprintf(fp, "POSIX\t0\t%llu\t%s\t%.*f\t%s\t%s\t%s\n", id, c[i].name, decimals,
                c[i].value, file, mount, strcmp(mount, "/home") == 0 ? "nfs" : "lustre");
    }
}

static FILE *darshan_open(const char *name, int jobid)
{
    char path[400];
    FILE *fp;

    snprintf(path, sizeof path, "%s/darshan/%s.parser.txt", fx.dir, name);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp,
            "# darshan log version: 3.41\n"
            "# exe: /opt/scope/bin/app%d\n"
            "# uid: 4321\n"
            "# jobid: %d\n"
            "# start_time: %ld\n"
            "# end_time: %ld\n"
            "# nprocs: 1\n"
            "# run time: 200.0\n\n"
            "# mount entry:\t/fsa\tlustre\n"
            "# mount entry:\t/fsb\tlustre\n"
            "# mount entry:\t/home\tnfs\n\n"
            "# *******************************************************\n"
            "# POSIX module data\n"
            "# *******************************************************\n\n",
            jobid, jobid, START + 10, START + 210);
    return fp;
}

static int write_data_set(void)
{
    const struct posix_io read1 = {
        .reads = 8, .bytes_read = 1000000, .read_start = 20, .read_end = 110};
    const struct posix_io read2 = {
        .reads = 16, .bytes_read = 2000000, .read_start = 20, .read_end = 110};
    const struct posix_io write2 = {
        .writes = 64, .bytes_written = 1000000000, .write_start = 20, .write_end = 110};
    const struct posix_io read3 = {
        .reads = 24, .bytes_read = 3000000, .read_start = 20, .read_end = 110};
    char path[400];
    FILE *fp;

    snprintf(fx.dir, sizeof fx.dir, "%s/scope-data", fx.db.state_dir);
    snprintf(path, sizeof path, "%s/darshan", fx.dir);
    if (mkdir(fx.dir, 0755) != 0 || mkdir(path, 0755) != 0)
        return -1;
    snprintf(fx.conf, sizeof fx.conf, "%s/iocontend.conf", fx.dir);
    fp = fopen(fx.conf, "w");
    if (fp == NULL)
        return -1;
    fprintf(fp, "[filesystems]\n/fsa = fsa\n/fsb = fsb\n");
    fclose(fp);
    snprintf(path, sizeof path, "%s/fsa.iostat.txt", fx.dir);
    write_iostat(path, "sa1", fsa_r, 10.0);
    snprintf(path, sizeof path, "%s/fsb.iostat.txt", fx.dir);
    write_iostat(path, "sb1", fsb_r, 20.0);

    fp = darshan_open("job101", 101);
    write_record(fp, 1001, "/fsa/in.dat", "/fsa", &read1);
    fclose(fp);
    fp = darshan_open("job102", 102);
    write_record(fp, 1002, "/fsa/in2.dat", "/fsa", &read2);
    write_record(fp, 1003, "/fsb/out.dat", "/fsb", &write2);
    fclose(fp);
    fp = darshan_open("job103", 103);
    write_record(fp, 1004, "/home/u/in3.dat", "/home", &read3);
    fclose(fp);
    return 0;
}

/* Runs iocontend with the data set's configuration; returns stdout (caller frees). */
static char *run(const char *args, int *rc)
{
    char cmd[2048];

    snprintf(cmd, sizeof cmd, "--config '%s' --quiet %s", fx.conf, args);
    return pgfixture_run(&fx.db, cmd, rc);
}

/* Runs one setup step; false (and says why on stderr) unless it exits 0. */
static bool step(const char *args)
{
    int rc;
    char *out = run(args, &rc);

    if (rc != 0)
        fprintf(stderr, "setup: iocontend %s: exit %d\n%s", args, rc, out ? out : "");
    free(out);
    return rc == 0;
}

static int setup(void **state)
{
    char args[900];

    (void)state;
    memset(&fx, 0, sizeof fx);
    if (pgfixture_start(&fx.db) != 0 || write_data_set() != 0)
        return -1;
    snprintf(args, sizeof args, "ingest darshan --json '%s/darshan'", fx.dir);
    if (!step(args))
        return -1;
    snprintf(args, sizeof args, "ingest iostat --fs fsa --server sa1 '%s/fsa.iostat.txt'",
             fx.dir);
    if (!step(args))
        return -1;
    snprintf(args, sizeof args, "ingest iostat --fs fsb --server sb1 '%s/fsb.iostat.txt'",
             fx.dir);
    return step(args) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pgfixture_stop(&fx.db);
    return 0;
}

/* `export jobs --format json --scope SCOPE`, parsed. */
static json_t *export_json(const char *scope)
{
    char args[200];
    json_error_t jerr;
    json_t *doc;
    int rc;

    snprintf(args, sizeof args, "export jobs --format json --scope %s", scope);
    char *out = run(args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    doc = json_loads(out, 0, &jerr);
    if (doc == NULL)
        fail_msg("not JSON: %s", out);
    free(out);
    assert_string_equal(json_string_value(json_object_get(doc, "scope")), scope);
    assert_int_equal(json_array_size(json_object_get(doc, "jobs")), 3);
    return doc;
}

static json_t *job_of(json_t *doc, const char *jobid)
{
    size_t i;
    json_t *j;

    json_array_foreach(json_object_get(doc, "jobs"), i, j)
    {
        if (strcmp(json_string_value(json_object_get(j, "jobid")), jobid) == 0)
            return j;
    }
    fail_msg("no job %s", jobid);
    return NULL;
}

static double num(json_t *job, const char *name)
{
    json_t *v = json_object_get(job, name);

    if (json_is_null(v))
        return NAN;
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* The file systems a job's series summed, joined by ';'. */
static const char *scope_fs(json_t *job)
{
    static char buf[128];
    size_t i, used = 0;
    json_t *f;

    buf[0] = '\0';
    json_array_foreach(json_object_get(job, "scope_fs"), i, f)
    {
        int n = snprintf(buf + used, sizeof buf - used, "%s%s", i > 0 ? ";" : "",
                         json_string_value(f));
        assert_true(n > 0 && (size_t)n < sizeof buf - used);
        used += (size_t)n;
    }
    return buf;
}

static const char *excluded(json_t *job, const char *family)
{
    json_t *e = json_object_get(json_object_get(job, "excluded"), family);

    return e != NULL ? json_string_value(e) : "";
}

static void export_header_has_every_metric_of_method_md(void **state)
{
    int rc;
    char *out;

    (void)state;
    out = run("export jobs", &rc);
    assert_int_equal(rc, 0);
    char *nl = strchr(out, '\n');
    assert_non_null(nl);
    *nl = '\0';
    assert_string_equal(
        out, "id,jobid,group,start_time,granularity_s,"
             "t_j,t_um,t_urw,t_s,t_s_span,t_s_slowest,t,t_fr,t_fw,"
             "eta_read,eta_write,eta_mon_read,eta_mon_write,"
             "psi_read,psi_write,psi_o_read,psi_o_write,filled_s,"
             "m,t_d,psi_d_read,psi_d_write,m_i,t_i,psi_i_read,psi_i_write,"
             "psi_do_read,psi_do_write,nu_read,nu_write,nu_d_read,nu_d_write,b_d,tau,"
             "t_x,t_x_read,t_x_write,m_x,t_dx,psi_x_read,psi_x_write,b_x,"
             "q_d,u_d,await_d,"
             "excluded_psi,excluded_d,excluded_i,excluded_b_d,excluded_tau,"
             "excluded_x,excluded_b_x,excluded_q,negative,scope_fs");
    /* a header and three jobs */
    size_t lines = 1;
    for (const char *c = nl + 1; *c != '\0'; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 4);
    free(out);
}

static void scope_all_sums_both_file_systems_for_every_job(void **state)
{
    json_t *doc = export_json("all");
    const char *ids[] = {"101", "102", "103"};

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        json_t *j = job_of(doc, ids[i]);
        assert_rel(num(j, "m"), 2, 0);
        assert_rel(num(j, "t_d"), 120, 0);
        assert_rel(num(j, "psi_d_read"), PSI_D_R_ALL, REL * PSI_D_R_ALL);
        assert_rel(num(j, "psi_d_write"), PSI_D_W_ALL, REL * PSI_D_W_ALL);
        assert_string_equal(scope_fs(j), "fsa;fsb");
    }
    /* job 101: ν^D_R = Ψ^D_R − η^mon_R with η^mon_R = 1e6 */
    json_t *j = job_of(doc, "101");
    assert_rel(num(j, "nu_d_read"), PSI_D_R_ALL - 1e6, REL * PSI_D_R_ALL);
    /* job 103's bytes are on /home: η^mon = 0, ν^D = Ψ^D, and Ψ^I has no window */
    j = job_of(doc, "103");
    assert_rel(num(j, "nu_d_read"), PSI_D_R_ALL, REL * PSI_D_R_ALL);
    assert_string_equal(excluded(j, "i"), "no_monitored_io");
    assert_true(isnan(num(j, "psi_i_read")));
    json_decref(doc);
}

static void scope_touched_sums_the_file_systems_each_job_read_or_wrote(void **state)
{
    json_t *doc = export_json("touched");
    json_t *j;

    (void)state;
    /* job 101 touched fsa only */
    j = job_of(doc, "101");
    assert_string_equal(scope_fs(j), "fsa");
    assert_rel(num(j, "psi_d_read"), PSI_D_R_FSA, REL * PSI_D_R_FSA);
    assert_rel(num(j, "psi_d_write"), PSI_D_W_FSA, REL * PSI_D_W_FSA);
    /* B^D = (Ψ^D_R + Ψ^D_W − η^mon_R − η^mon_W) / |S^D|
     *     = (184475443.2 + 921600 − 1e6 − 0) / 90 = 184397043.2 / 90 */
    assert_rel(num(j, "b_d"), 184397043.2 / S_D, REL * 2.1e6);
    assert_string_equal(excluded(j, "d"), "");
    /* job 102 touched both: the same as scope=all */
    j = job_of(doc, "102");
    assert_string_equal(scope_fs(j), "fsa;fsb");
    assert_rel(num(j, "psi_d_read"), PSI_D_R_ALL, REL * PSI_D_R_ALL);
    /* job 103 touched no monitored file system: nothing to sum, excluded */
    j = job_of(doc, "103");
    assert_string_equal(scope_fs(j), "");
    assert_true(isnan(num(j, "psi_d_read")));
    assert_true(isnan(num(j, "psi_read")));
    assert_string_equal(excluded(j, "psi"), "no_monitored_io");
    assert_string_equal(excluded(j, "d"), "no_monitored_io");
    assert_string_equal(excluded(j, "b_d"), "no_monitored_io");
    /* log-only metrics stay: τ = T / (η / 2^30) with T = 0.25 + 2.385, η = 3e6 */
    assert_rel(num(j, "tau"), 2.635 / (3e6 / 1073741824.0), 1e-9);
    json_decref(doc);
}

static void scope_fs_uses_that_file_system_for_every_job(void **state)
{
    json_t *doc = export_json("fs:fsa");
    const char *ids[] = {"101", "102", "103"};

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        json_t *j = job_of(doc, ids[i]);
        assert_rel(num(j, "psi_d_read"), PSI_D_R_FSA, REL * PSI_D_R_FSA);
        assert_string_equal(scope_fs(j), "fsa");
    }
    json_decref(doc);
    doc = export_json("fs:fsb");
    for (size_t i = 0; i < 3; i++) {
        json_t *j = job_of(doc, ids[i]);
        assert_rel(num(j, "psi_d_read"), PSI_D_R_FSB, REL * PSI_D_R_FSB);
        assert_string_equal(scope_fs(j), "fsb");
    }
    json_decref(doc);
}

static void negative_values_are_kept_and_flagged(void **state)
{
    json_t *doc = export_json("all");
    json_t *j = job_of(doc, "102");
    json_t *neg = json_object_get(j, "negative");

    (void)state;
    /* job 102 wrote 1e9 bytes while the servers saw 2700 kB: ν^D_W = 2764800 − 1e9 */
    assert_rel(num(j, "nu_d_write"), PSI_D_W_ALL - 1e9, 1e-6);
    /* B^D = (245976883.2 + 2764800 − 2e6 − 1e9) / 90 */
    assert_rel(num(j, "b_d"), (PSI_D_R_ALL + PSI_D_W_ALL - 2e6 - 1e9) / S_D, 1e-6);
    assert_true(num(j, "b_d") < 0);
    assert_int_equal(json_array_size(neg), 3);
    assert_string_equal(json_string_value(json_array_get(neg, 0)), "nu_write");
    assert_string_equal(json_string_value(json_array_get(neg, 1)), "nu_d_write");
    assert_string_equal(json_string_value(json_array_get(neg, 2)), "b_d");
    assert_int_equal(json_array_size(json_object_get(job_of(doc, "101"), "negative")), 0);
    json_decref(doc);

    /* CSV: the same flags, ';'-separated, before scope_fs */
    int rc;
    char *out = run("export jobs --scope all", &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, ",nu_write;nu_d_write;b_d,fsa;fsb\n"));
    free(out);
}

static void unknown_scope_is_a_usage_error(void **state)
{
    int rc;
    char *out;

    (void)state;
    out = run("export jobs --scope somewhere", &rc);
    assert_int_equal(rc, 64);
    free(out);
}

/* Runs one statement with the job id as $1; fails the test unless it succeeds. */
static void sql_for_job(const char *sql, const char *jobid)
{
    char *v = pgfixture_query(&fx.db, sql, jobid);

    assert_non_null(v);
    free(v);
}

/* Job jobid's DXT trace as the ingest side stores it (migration 0012): its
 * job_traces row and merged operation windows [a, b] relative to S. */
static void trace_insert(const char *jobid, bool incomplete)
{
    char sql[300];

    snprintf(sql, sizeof sql,
             "INSERT INTO job_traces (job_key, incomplete, n_ops, source_hash, "
             "source_path) SELECT job_key, %s, 5, 'hash-' || jobid, 'dxt.txt' "
             "FROM jobs WHERE jobid = $1 RETURNING job_key",
             incomplete ? "true" : "false");
    sql_for_job(sql, jobid);
}

static void x_window_insert(const char *jobid, bool is_write, double a, double b,
                            const char *fs)
{
    char sql[400];

    snprintf(
        sql, sizeof sql,
        "INSERT INTO job_x_windows (job_key, is_write, start_s, end_s, fs) "
        "SELECT job_key, %s, %ld + %.17g, %ld + %.17g, %s FROM jobs WHERE jobid = $1 "
        "RETURNING job_key",
        is_write ? "true" : "false", START, a, START, b, fs);
    sql_for_job(sql, jobid);
}

/* METHOD.md §10 on the data set, by hand. Job 101's trace: a read [25.5, 40.25]
 * (fsa) and a write [30.125, 50] (fsb) overlapping it, a zero-length read at 75.5,
 * nothing in (S+120, S+180], a write [185.25, 200.75]. Union: [25.5, 50] ∪ {75.5}
 * ∪ [185.25, 200.75] = 24.5 + 0 + 15.5 = 40 s; reads 14.75 s; writes 19.875 +
 * 15.5 = 35.375 s. A^X = intervals 1, 2, 4: m_x = 3, T^DX = 180 s. Eq. 4:
 * t^D_start − t^D_0 = 25.5, t^D_m − t^D_end = 240 − 200.75 = 39.25, so Ψ^X =
 * 34.5·v_1 + 60·v_2 + 20.75·v_4 and |S^X| = 115.25 s. Scope all (kB/s):
 * R = 1735.06, 3136, 300, 300; W = 30 each.
 *   Ψ^X_R = 34.5·1735.06 + 60·3136 + 20.75·300 = 59859.57 + 188160 + 6225
 *         = 254244.57 kB;  Ψ^X_W = 115.25·30 = 3457.5 kB
 *   B^X = ((254244.57 + 3457.5)·1024 − 1e6) / 115.25 = 262886919.68 / 115.25.
 * Job 102's trace is incomplete (its windows are there, and unused); job 103 has
 * none. */
static void x_family_from_dxt_windows_and_its_reasons(void **state)
{
    (void)state;
    trace_insert("101", false);
    x_window_insert("101", false, 25.5, 40.25, "'fsa'");
    x_window_insert("101", true, 30.125, 50.0, "'fsb'");
    x_window_insert("101", false, 75.5, 75.5, "'fsa'");
    x_window_insert("101", true, 185.25, 200.75, "'fsb'");
    trace_insert("102", true);
    x_window_insert("102", false, 25.5, 40.25, "'fsa'");

    json_t *doc = export_json("all");
    json_t *j = job_of(doc, "101");
    assert_string_equal(excluded(j, "x"), "");
    assert_string_equal(excluded(j, "b_x"), "");
    assert_rel(num(j, "t_x"), 40.0, 1e-6);
    assert_rel(num(j, "t_x_read"), 14.75, 1e-6);
    assert_rel(num(j, "t_x_write"), 35.375, 1e-6);
    assert_rel(num(j, "m_x"), 3, 0);
    assert_rel(num(j, "t_dx"), 180, 0);
    assert_rel(num(j, "psi_x_read"), 254244.57 * KIB, REL * 2.6e8);
    assert_rel(num(j, "psi_x_write"), 3457.5 * KIB, REL * 3.6e6);
    assert_rel(num(j, "b_x"), 262886919.68 / 115.25, 1e-9 * 2.3e6);
    /* the counters' family is the one of test scope_all: unchanged */
    assert_rel(num(j, "t_d"), 120, 0);
    j = job_of(doc, "102");
    assert_string_equal(excluded(j, "x"), "incomplete_dxt");
    assert_string_equal(excluded(j, "b_x"), "incomplete_dxt");
    assert_true(isnan(num(j, "t_x")));
    assert_true(isnan(num(j, "psi_x_read")));
    j = job_of(doc, "103");
    assert_string_equal(excluded(j, "x"), "no_trace");
    assert_string_equal(excluded(j, "b_x"), "no_trace");
    assert_true(isnan(num(j, "t_x")));
    assert_true(isnan(num(j, "b_x")));
    json_decref(doc);

    /* CSV: the same values and reasons in their columns */
    int rc;
    char *out = run("export jobs --scope all", &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, ",40,14.75,35.375,3,180,"));
    assert_non_null(strstr(out, ",incomplete_dxt,incomplete_dxt,"));
    assert_non_null(strstr(out, ",no_trace,no_trace,"));
    free(out);
}

/* analyze stores t_x~psi_x_read and t_x~psi_x_write for the groups with a trace
 * (job 101's, whole; job 102's, incomplete: a trace all the same), and only the
 * six default pairs for job 103's (each job is its own group here). */
static void analyze_adds_the_x_pairs_for_groups_with_a_trace(void **state)
{
    const char *sql =
        "SELECT string_agg(r.y || '~' || r.x, ' ' ORDER BY r.y, r.x) FROM results r "
        "JOIN jobs j ON j.group_id = r.group_id WHERE j.jobid = $1 AND "
        "r.kind = 'association' AND r.granularity_s = 60";
    const char *defaults = "t_d~psi_d_read t_d~psi_d_write t_d~q_d t_um~psi_o_read "
                           "t_um~psi_o_write tau~q_d";
    const char *traced = "t_d~psi_d_read t_d~psi_d_write t_d~q_d t_um~psi_o_read "
                         "t_um~psi_o_write t_x~psi_x_read t_x~psi_x_write tau~q_d";
    int rc;

    (void)state;
    char *out = run("analyze --permutations 0", &rc);
    assert_int_equal(rc, 1); /* every group is below d_min */
    free(out);
    const char *ids[] = {"101", "102", "103"};
    const char *want[] = {traced, traced, defaults};
    for (size_t i = 0; i < 3; i++) {
        char *v = pgfixture_query(&fx.db, sql, ids[i]);
        assert_non_null(v);
        assert_string_equal(v, want[i]);
        free(v);
    }
}

/* The sweep likewise: the nine pairs of METHOD.md §6 and §11 for every group, the
 * two _x pairs besides for a group with a trace. */
static void sweep_adds_the_x_pairs_for_groups_with_a_trace(void **state)
{
    const char *sql = "SELECT count(*) || ' ' || count(*) FILTER (WHERE r.y = 't_x') "
                      "FROM results r JOIN jobs j ON j.group_id = r.group_id "
                      "WHERE j.jobid = $1 AND r.kind = 'sweep'";
    int rc;

    (void)state;
    char *out = run("analyze --sweep --k-max 2", &rc);
    assert_int_equal(rc, 1); /* every group is below d_min */
    free(out);
    const char *ids[] = {"101", "102", "103"}, *want[] = {"11 2", "11 2", "9 0"};
    for (size_t i = 0; i < 3; i++) {
        char *v = pgfixture_query(&fx.db, sql, ids[i]);
        assert_non_null(v);
        assert_string_equal(v, want[i]);
        free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(export_header_has_every_metric_of_method_md),
        cmocka_unit_test(scope_all_sums_both_file_systems_for_every_job),
        cmocka_unit_test(scope_touched_sums_the_file_systems_each_job_read_or_wrote),
        cmocka_unit_test(scope_fs_uses_that_file_system_for_every_job),
        cmocka_unit_test(negative_values_are_kept_and_flagged),
        cmocka_unit_test(unknown_scope_is_a_usage_error),
        /* last: they add traces to the data set */
        cmocka_unit_test(x_family_from_dxt_windows_and_its_reasons),
        cmocka_unit_test(analyze_adds_the_x_pairs_for_groups_with_a_trace),
        cmocka_unit_test(sweep_adds_the_x_pairs_for_groups_with_a_trace),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
