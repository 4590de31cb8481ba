/* test_dxt_text.c: the darshan-dxt-parser text reader on the real traces and on bad
 * input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"
#include "../support/testutil.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A header, region table and mount table of 17 lines, then the DXT_POSIX banner
 * (lines 18 to 20). The limit of a time is max(12.2385, 12 + 1) + 2 = 15 s. */
#define HEADER                                                                           \
    "# darshan log version: 3.41\n"                                                      \
    "# compression method: ZLIB\n"                                                       \
    "# exe: /opt/app/bin/solver -n 2.385\n"                                              \
    "# uid: 4321\n"                                                                      \
    "# jobid: 98765\n"                                                                   \
    "# start_time: 1700000000\n"                                                         \
    "# end_time: 1700000012\n"                                                           \
    "# nprocs: 4\n"                                                                      \
    "# run time: 12.2385\n"                                                              \
    "# metadata: lib_ver = 3.5.0\n"                                                      \
    "\n"                                                                                 \
    "# log file regions\n"                                                               \
    "# DXT_POSIX module: 253 bytes (compressed), ver=2\n"                                \
    "# STDIO module: 66 bytes (compressed), ver=2\n"                                     \
    "\n"                                                                                 \
    "# mount entry:\t/scratch\tlustre\n"                                                 \
    "\n"

#define BANNER(mod)                                                                      \
    "# ***************************************************\n"                            \
    "# " mod " module data\n"                                                            \
    "# ***************************************************\n"

#define COLUMNS                                                                          \
    "# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      " \
    "End(s)   Pthread-ID\n"

/* Lines 21 to 27: a block of rank 1 with 2 writes and 1 read; its rows are lines 28
 * to 30. The file name holds ", ". */
#define BLOCK_HEAD                                                                       \
    "\n"                                                                                 \
    "# DXT, file_id: 18446744073709551557, file_name: /scratch/a, b\n"                   \
    "# DXT, rank: 1, hostname: node-7\n"                                                 \
    "# DXT, number of threads: 1\n"                                                      \
    "# DXT, write_count: 2, read_count: 1\n"                                             \
    "# DXT, mnt_pt: /scratch, fs_type: lustre\n" COLUMNS

#define ROW_W0                                                                           \
    " X_POSIX       1  write        0               0            2385      0.2500      " \
    "0.7500   N/A\n"
#define ROW_W1                                                                           \
    " X_POSIX       1  write        1            2385            2385      0.7500      " \
    "1.0000   N/A\n"
#define ROW_R0                                                                           \
    " X_POSIX       1   read        0               0            4770      1.5000      " \
    "2.3850   N/A\n"

#define GOOD      HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0 ROW_W1 ROW_R0
#define FIRST_ROW 28

static struct dxt_trace sentinel;

static enum status parse_text(const char *text, struct dxt_trace **t, struct error *err)
{
    FILE *fp = tmpfile();
    enum status rc;

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    rewind(fp);
    *t = &sentinel; /* must come back NULL on error */
    rc = ingest_dxt_parse(fp, "input.txt", t, err);
    fclose(fp);
    return rc;
}

static struct dxt_trace *parse_path(const char *path)
{
    FILE *fp = fopen(path, "r");
    struct dxt_trace *t = NULL;
    struct error err = {0};

    if (fp == NULL)
        fail_msg("cannot open %s", path);
    if (ingest_dxt_parse(fp, path, &t, &err) != STATUS_OK)
        fail_msg("%s:%ld: %s", path, err.line, err.msg);
    fclose(fp);
    return t;
}

static struct darshan_log *parse_counters(const char *path)
{
    FILE *fp = fopen(path, "r");
    struct darshan_log *log = NULL;
    struct error err = {0};

    if (fp == NULL)
        fail_msg("cannot open %s", path);
    if (ingest_darshan_parse(fp, path, &log, &err) != STATUS_OK)
        fail_msg("%s:%ld: %s", path, err.line, err.msg);
    fclose(fp);
    return log;
}

/* Asserts that text fails with STATUS_PARSE at line with exactly msg. */
static void expect_parse_error(const char *text, long line, const char *msg)
{
    struct dxt_trace *t;
    struct error err = {0};

    assert_int_equal(parse_text(text, &t, &err), STATUS_PARSE);
    assert_null(t);
    assert_int_equal(err.code, STATUS_PARSE);
    assert_string_equal(err.file, "input.txt");
    assert_string_equal(err.msg, msg);
    assert_int_equal(err.line, line);
}

static struct dxt_trace *expect_ok(const char *text)
{
    struct dxt_trace *t;
    struct error err = {0};

    if (parse_text(text, &t, &err) != STATUS_OK)
        fail_msg("line %ld: %s", err.line, err.msg);
    return t;
}

/* The operation rows of path by a plain scan: lines whose first word is X_POSIX or
 * X_MPIIO. */
static size_t count_rows(const char *path)
{
    FILE *fp = fopen(path, "r");
    char line[4096];
    size_t n = 0;

    assert_non_null(fp);
    while (fgets(line, sizeof line, fp) != NULL) {
        const char *s = line + strspn(line, " ");

        if (strncmp(s, "X_POSIX ", 8) == 0 || strncmp(s, "X_MPIIO ", 8) == 0)
            n++;
    }
    fclose(fp);
    return n;
}

/* The job identity of the trace against its darshan-parser text; per file its ops
 * against its counts; the total against a plain scan. Returns the op total. */
static size_t check_trace(const char *dxt_path, const char *parser_path)
{
    struct dxt_trace *t = parse_path(dxt_path);
    struct darshan_log *log = parse_counters(parser_path);
    size_t total = 0;

    assert_string_equal(t->path, dxt_path);
    assert_string_equal(t->jobid, log->jobid);
    assert_int_equal(t->uid, log->uid);
    assert_int_equal(t->start_time_s, log->start_time_s);
    assert_int_equal(t->end_time_s, log->end_time_s);
    assert_int_equal(t->nprocs, log->nprocs);
    assert_string_equal(t->exe, log->exe);
    assert_rel(t->log_version, log->log_version, 1e-12);
    assert_rel(t->run_time_s, log->run_time_s, 1e-12);
    for (size_t i = 0; i < t->n_files; i++) {
        const struct dxt_file_trace *f = &t->files[i];
        int64_t writes = 0;

        assert_int_equal((int64_t)f->n_ops, f->write_count + f->read_count);
        for (size_t k = 0; k < f->n_ops; k++)
            writes += f->ops[k].is_write;
        assert_int_equal(writes, f->write_count);
        assert_true(f->rank >= 0 && f->rank < t->nprocs);
        assert_non_null(f->hostname);
        assert_non_null(f->file_name);
        assert_non_null(f->mount_point);
        assert_non_null(f->fs_type);
        total += f->n_ops;
    }
    assert_int_equal(total, t->n_ops);
    assert_int_equal(t->n_ops, count_rows(dxt_path));
    dxt_trace_free(t);
    darshan_log_free(log);
    return total;
}

static void shared_traces_all_parse_with_their_parser_header(void **state)
{
    static const struct {
        const char *dir;
        size_t ops;
    } want[] = {
        {"h5d_no_h5f", 102},
        {"heatmap_dxt_diagonal", 32},
        {"mpi_io_test_dxt_snow", 576},
        {"nonmpi_dxt", 17652},
        {"partial_data_dxt", 0},
        {"pydarshan_ior_hdf5_cori_dxt", 118},
        {"pydarshan_sample_dxt_simple", 3},
        {"release_ppc64_3.1.4", 16},
        {"release_x86_64_3.1.3", 16},
    };
    char pattern[4096];
    glob_t g;

    (void)state;
    snprintf(pattern, sizeof pattern, "%s/darshan/*/dxt.txt", testutil_shared_data());
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char parser[4096];
        const char *dxt = g.gl_pathv[i];
        size_t dir_len = strlen(dxt) - strlen("/dxt.txt");

        snprintf(parser, sizeof parser, "%.*s/parser.txt", (int)dir_len, dxt);
        /* glob sorts: the table is in the same order */
        assert_non_null(strstr(dxt, want[i].dir));
        assert_int_equal(check_trace(dxt, parser), want[i].ops);
    }
    globfree(&g);
}

static void lab_traces_all_parse_with_their_parser_header(void **state)
{
    char pattern[4096];
    glob_t g;
    size_t total = 0;

    (void)state;
    snprintf(pattern, sizeof pattern, "%s/lab/run1_queue_depth/darshan/*.dxt.txt",
             testutil_shared_data());
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 30);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char parser[4096];
        const char *dxt = g.gl_pathv[i];
        size_t stem = strlen(dxt) - strlen(".dxt.txt");
        struct dxt_trace *t = parse_path(dxt);

        /* one data file, 1 MiB writes then 1 MiB reads of it, on one thread */
        assert_int_equal(t->n_files, 1);
        assert_int_equal(t->files[0].write_count, t->files[0].read_count);
        assert_null(t->incomplete_modules);
        for (size_t k = 0; k < t->files[0].n_ops; k++) {
            assert_int_equal(t->files[0].ops[k].length, 1048576);
            assert_int_equal(t->files[0].ops[k].pthread_id,
                             t->files[0].ops[0].pthread_id);
        }
        dxt_trace_free(t);
        snprintf(parser, sizeof parser, "%.*s.parser.txt", (int)stem, dxt);
        total += check_trace(dxt, parser);
    }
    assert_int_equal(total, 14080);
    globfree(&g);
}

static const char *shared(const char *rel)
{
    return testutil_path(testutil_shared_data(), rel);
}

static void first_and_last_ops_of_release_3_1_3_match_the_text(void **state)
{
    struct dxt_trace *t = parse_path(shared("darshan/release_x86_64_3.1.3/dxt.txt"));
    const struct dxt_file_trace *f = &t->files[0], *l = &t->files[t->n_files - 1];
    const struct dxt_op *op;

    (void)state;
    assert_null(t->incomplete_modules);
    assert_string_equal(t->jobid, "9598");
    assert_int_equal(t->n_files, 8);
    assert_int_equal(f->module, DXT_MOD_POSIX);
    assert_true(f->record_id == 6331129185542144414u);
    assert_int_equal(f->rank, 0);
    assert_string_equal(f->hostname, "shane-thinkpad");
    assert_string_equal(f->file_name, "/tmp/test/mpi-io-test.tmp.dat");
    assert_string_equal(f->mount_point, "/");
    assert_string_equal(f->fs_type, "ext4");
    assert_int_equal(f->write_count, 1);
    assert_int_equal(f->read_count, 1);
    /* " X_POSIX 0 write 0 0 16777216 0.0042 0.0384 N/A" */
    op = &f->ops[0];
    assert_true(op->is_write);
    assert_int_equal(op->offset, 0);
    assert_int_equal(op->length, 16777216);
    assert_rel(op->start_s, 0.0042, 1e-12);
    assert_rel(op->end_s, 0.0384, 1e-12);
    assert_int_equal(op->pthread_id, 0);
    assert_int_equal(op->ost, -1);
    /* the last row: " X_MPIIO 3 read 0 -1 16777216 0.0387 0.0520 N/A" (3.1 MPI-IO
     * records hold no offset) */
    assert_int_equal(l->module, DXT_MOD_MPIIO);
    assert_int_equal(l->rank, 3);
    op = &l->ops[l->n_ops - 1];
    assert_false(op->is_write);
    assert_int_equal(op->offset, -1);
    assert_int_equal(op->length, 16777216);
    assert_rel(op->start_s, 0.0387, 1e-12);
    assert_rel(op->end_s, 0.0520, 1e-12);
    dxt_trace_free(t);
}

static void an_mpiio_row_of_snow_matches_the_text(void **state)
{
    struct dxt_trace *t = parse_path(shared("darshan/mpi_io_test_dxt_snow/dxt.txt"));
    const struct dxt_file_trace *f = NULL;

    (void)state;
    for (size_t i = 0; i < t->n_files && f == NULL; i++) {
        if (t->files[i].module == DXT_MOD_MPIIO && t->files[i].rank == 0)
            f = &t->files[i];
    }
    if (f == NULL) {
        fail_msg("no DXT_MPIIO block of rank 0");
        return;
    }
    /* lines 844 to 851 */
    assert_true(f->record_id == 2971090431609867297u);
    assert_string_equal(f->hostname, "sn362.localdomain");
    assert_string_equal(f->file_name, "/yellow/users/treddy/mpi_io_rough_work/test.out");
    assert_string_equal(f->mount_point, "/yellow/users");
    assert_string_equal(f->fs_type, "nfs");
    assert_int_equal(f->write_count, 4);
    assert_int_equal(f->read_count, 4);
    /* " X_MPIIO 0 write 1 536870912 16777216 2.7325 4.8307 N/A" */
    assert_true(f->ops[1].is_write);
    assert_int_equal(f->ops[1].offset, 536870912);
    assert_int_equal(f->ops[1].length, 16777216);
    assert_rel(f->ops[1].start_s, 2.7325, 1e-12);
    assert_rel(f->ops[1].end_s, 4.8307, 1e-12);
    assert_false(f->ops[4].is_write);
    dxt_trace_free(t);
}

static void a_lustre_row_keeps_its_ost(void **state)
{
    struct dxt_trace *t =
        parse_path(shared("darshan/pydarshan_ior_hdf5_cori_dxt/dxt.txt"));
    const struct dxt_file_trace *f = &t->files[0];
    size_t with_ost = 0;

    (void)state;
    /* " X_POSIX 0 write 0 2048 262144 0.0300 0.0331 [106] N/A" */
    assert_int_equal(f->module, DXT_MOD_POSIX);
    assert_string_equal(f->mount_point, "/global/cscratch1");
    assert_string_equal(f->fs_type, "lustre");
    assert_int_equal(f->ops[0].offset, 2048);
    assert_int_equal(f->ops[0].length, 262144);
    assert_rel(f->ops[0].start_s, 0.0300, 1e-12);
    assert_rel(f->ops[0].end_s, 0.0331, 1e-12);
    assert_int_equal(f->ops[0].ost, 106);
    /* 4 blocks with an [OST] column; the MPI-IO ones have none */
    for (size_t i = 0; i < t->n_files; i++) {
        for (size_t k = 0; k < t->files[i].n_ops; k++) {
            with_ost += t->files[i].ops[k].ost >= 0;
            if (t->files[i].module == DXT_MOD_MPIIO)
                assert_int_equal(t->files[i].ops[k].ost, -1);
        }
    }
    assert_true(with_ost > 0);
    dxt_trace_free(t);
}

static void a_lab_row_keeps_its_pthread_id(void **state)
{
    struct dxt_trace *t = parse_path(
        shared("lab/run1_queue_depth/darshan/"
               "labuser_labjob_id1001-3251_11-22-46751-3512986746761108875_1.dxt.txt"));
    const struct dxt_file_trace *f = &t->files[0];
    const struct dxt_op *last = &f->ops[f->n_ops - 1];

    (void)state;
    assert_string_equal(t->jobid, "1001");
    assert_string_equal(f->file_name, "/tmp/lab/jobfile_1001.dat");
    assert_string_equal(f->hostname, "vm");
    assert_int_equal(f->write_count, 64);
    /* " X_POSIX 0 write 0 0 1048576 0.3052 0.3063 139959073439744" */
    assert_true(f->ops[0].pthread_id == 139959073439744u);
    assert_rel(f->ops[0].start_s, 0.3052, 1e-12);
    /* " X_POSIX 0 read 63 66060288 1048576 1.1267 1.1284 139959073439744" */
    assert_false(last->is_write);
    assert_int_equal(last->offset, 66060288);
    assert_rel(last->start_s, 1.1267, 1e-12);
    assert_rel(last->end_s, 1.1284, 1e-12);
    dxt_trace_free(t);
}

static void partial_data_dxt_is_read_as_incomplete(void **state)
{
    struct dxt_trace *t = parse_path(shared("darshan/partial_data_dxt/dxt.txt"));

    (void)state;
    /* darshan-dxt-parser stopped after the DXT_POSIX banner; DXT_MPIIO, listed after
     * it, was never printed */
    assert_string_equal(t->incomplete_modules, "DXT_POSIX,DXT_MPIIO");
    assert_int_equal(t->n_files, 0);
    assert_int_equal(t->n_ops, 0);
    assert_string_equal(t->jobid, "112075");
    dxt_trace_free(t);
}

static void a_hand_made_trace_parses(void **state)
{
    struct dxt_trace *t = expect_ok(GOOD);
    const struct dxt_file_trace *f = &t->files[0];

    (void)state;
    assert_null(t->incomplete_modules);
    assert_string_equal(t->exe, "/opt/app/bin/solver -n 2.385");
    assert_int_equal(t->uid, 4321);
    assert_int_equal(t->n_files, 1);
    assert_int_equal(t->n_ops, 3);
    assert_true(f->record_id == 18446744073709551557u);
    assert_string_equal(f->file_name, "/scratch/a, b");
    assert_string_equal(f->hostname, "node-7");
    assert_int_equal(f->ops[1].offset, 2385);
    assert_rel(f->ops[2].end_s, 2.385, 1e-12);
    dxt_trace_free(t);
}

static void a_listed_module_never_printed_is_incomplete(void **state)
{
    /* the region table lists DXT_MPIIO, the text never gets to it */
    struct dxt_trace *t = expect_ok(
        HEADER "# DXT_MPIIO module: 255 bytes (compressed), ver=3\n" BANNER("DXT_POSIX")
            BLOCK_HEAD ROW_W0 ROW_W1 ROW_R0);

    (void)state;
    assert_string_equal(t->incomplete_modules, "DXT_MPIIO");
    assert_int_equal(t->n_ops, 3);
    dxt_trace_free(t);
}

static void darshan_3_1_columns_parse(void **state)
{
    /* no thread line, no Pthread-ID, "[  3]" OSTs, MPI-IO without Offset */
    struct dxt_trace *t = expect_ok(HEADER BANNER(
        "DXT_POSIX") "\n"
                     "# DXT, file_id: 5, file_name: /scratch/x\n"
                     "# DXT, rank: 2, hostname: n1\n"
                     "# DXT, write_count: 1, read_count: 0\n"
                     "# DXT, mnt_pt: /scratch, fs_type: lustre\n"
                     "# DXT, Lustre stripe_size: 1048576, Lustre stripe_count: 2\n"
                     "# DXT, Lustre OSTs: 3\n"
                     "# DXT, Lustre OSTs: 12\n"
                     "# Module    Rank  Wt/Rd  Segment          Offset       Length    "
                     "Start(s)      "
                     "End(s)  [OST]\n"
                     " X_POSIX       2  write        0         1048576      2097152      "
                     "0.1000      "
                     "0.2000  [ 12]  [  3]\n" BANNER(
                         "DXT_MPIIO") "\n"
                                      "# DXT, file_id: 5, file_name: /scratch/x\n"
                                      "# DXT, rank: 2, hostname: n1\n"
                                      "# DXT, write_count: 0, read_count: 1\n"
                                      "# DXT, mnt_pt: /scratch, fs_type: lustre\n"
                                      "# Module    Rank  Wt/Rd  Segment       Length    "
                                      "Start(s)      End(s)\n"
                                      " X_MPIIO       2   read        0      2097152     "
                                      " 0.3000      0.4000\n");

    (void)state;
    assert_int_equal(t->n_files, 2);
    assert_int_equal(t->files[0].ops[0].ost, 12);
    assert_int_equal(t->files[0].ops[0].offset, 1048576);
    assert_int_equal(t->files[1].module, DXT_MOD_MPIIO);
    assert_int_equal(t->files[1].ops[0].offset, -1);
    assert_int_equal(t->files[1].ops[0].length, 2097152);
    assert_rel(t->files[1].ops[0].end_s, 0.4, 1e-12);
    assert_null(t->incomplete_modules);
    dxt_trace_free(t);
}

static void an_incomplete_note_keeps_the_blocks(void **state)
{
    struct dxt_trace *t = expect_ok(HEADER BANNER(
        "DXT_POSIX") "\n"
                     "# *WARNING*: The DXT_POSIX module contains "
                     "incomplete data!\n"
                     "#            This happens when a module runs out of\n"
                     "#            memory to store new record data.\n" BLOCK_HEAD ROW_W0
                                        ROW_W1 ROW_R0 BANNER("DXT_MPIIO"));

    (void)state;
    /* the DXT_MPIIO banner with nothing after it ends the text: cut there too */
    assert_string_equal(t->incomplete_modules, "DXT_POSIX,DXT_MPIIO");
    assert_int_equal(t->n_ops, 3);
    dxt_trace_free(t);
}

static void an_empty_module_before_another_is_whole(void **state)
{
    struct dxt_trace *t = expect_ok(HEADER BANNER("DXT_MPIIO") BANNER("DXT_POSIX")
                                        BLOCK_HEAD ROW_W0 ROW_W1 ROW_R0);

    (void)state;
    /* DXT_MPIIO has a banner and no block, but darshan-dxt-parser went on */
    assert_null(t->incomplete_modules);
    dxt_trace_free(t);
}

static void no_dxt_data_is_a_whole_empty_trace(void **state)
{
    struct dxt_trace *t =
        expect_ok(HEADER "# no DXT module data available for this Darshan log.\n");

    (void)state;
    assert_null(t->incomplete_modules);
    assert_int_equal(t->n_files, 0);
    dxt_trace_free(t);
}

static void fewer_rows_than_the_counts_report_the_next_block(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX")
                           BLOCK_HEAD ROW_W0 ROW_W1 BLOCK_HEAD ROW_W0 ROW_W1 ROW_R0,
                       FIRST_ROW + 3,
                       "expected 3 operation rows (write_count 2 + read_count 1) in "
                       "the file block of line 22, got 2");
    expect_parse_error(HEADER BANNER("DXT_POSIX")
                           BLOCK_HEAD ROW_W0 ROW_W1 BANNER("DXT_MPIIO"),
                       FIRST_ROW + 3,
                       "expected 3 operation rows (write_count 2 + read_count 1) in "
                       "the file block of line 22, got 2");
}

static void a_missing_last_row_is_refused_at_the_end(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0 ROW_W1, FIRST_ROW + 1,
                       "expected 3 operation rows (write_count 2 + read_count 1) in "
                       "the file block of line 22, got 2");
}

static void more_rows_than_the_counts_report_their_line(void **state)
{
    (void)state;
    expect_parse_error(GOOD ROW_R0, FIRST_ROW + 3,
                       "expected no more than write_count + read_count (3) rows in the "
                       "file block of line 22, got another");
}

static void a_huge_count_allocates_nothing_for_it(void **state)
{
    (void)state;
    /* a count alone must not size an allocation: this fails on the count, not on
     * memory */
    expect_parse_error(
        HEADER BANNER("DXT_POSIX") "\n"
                                   "# DXT, file_id: 1, file_name: /a\n"
                                   "# DXT, rank: 1, hostname: h\n"
                                   "# DXT, write_count: "
                                   "4611686018427387903, read_count: "
                                   "4611686018427387903\n"
                                   "# DXT, mnt_pt: /, fs_type: ext4\n" COLUMNS ROW_W0,
        27,
        "expected 9223372036854775806 operation rows (write_count "
        "4611686018427387903 + read_count 4611686018427387903) in the "
        "file block of line 22, got 1");
}

static void a_row_cut_short_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0
                       " X_POSIX       1  write        1            2385            "
                       "2385      0.7500\n" ROW_R0,
                       FIRST_ROW + 1,
                       "expected End(s) in field 8, got the end of the line");
}

static void a_cut_last_line_is_refused(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0 ROW_W1
                       " X_POSIX       1   read        0               0            "
                       "4770      1.5000      2.3850   N/A",
                       FIRST_ROW + 2,
                       "expected a complete line ending in a newline, got end of file");
}

static void a_negative_offset_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0
                       " X_POSIX       1  write        1           -2385            "
                       "2385      0.7500      1.0000   N/A\n" ROW_R0,
                       FIRST_ROW + 1,
                       "expected an Offset >= 0 or -1 (not recorded), got -2385");
}

static void end_before_start_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0
                       " X_POSIX       1  write        1            2385            "
                       "2385      0.7500      0.2385   N/A\n" ROW_R0,
                       FIRST_ROW + 1, "expected End(s) >= Start(s) (0.75), got 0.2385");
}

static void a_time_past_the_run_time_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0 ROW_W1
                       " X_POSIX       1   read        0               0            "
                       "4770      1.5000     15.2385   N/A\n",
                       FIRST_ROW + 2,
                       "expected End(s) of at most 15 s (the run time and 2 s more), got "
                       "15.2385");
}

static void a_negative_start_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD
                       " X_POSIX       1  write        0               0            "
                       "2385     -0.2500      0.7500   N/A\n" ROW_W1 ROW_R0,
                       FIRST_ROW, "expected Start(s) >= 0, got -0.25");
}

static void a_row_of_another_rank_or_module_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD
                       " X_POSIX       2  write        0               0            "
                       "2385      0.2500      0.7500   N/A\n" ROW_W1 ROW_R0,
                       FIRST_ROW, "expected rank 1 (the block's) in field 2, got 2");
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD
                       " X_MPIIO       1  write        0               0            "
                       "2385      0.2500      0.7500   N/A\n" ROW_W1 ROW_R0,
                       FIRST_ROW,
                       "expected module X_POSIX (the block's) in field 1, got 'X_MPIIO'");
}

static void a_read_among_the_writes_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") BLOCK_HEAD ROW_W0 ROW_R0 ROW_W1,
                       FIRST_ROW + 1,
                       "expected a write row (1 writes of write_count 2 so far), got a "
                       "read");
}

static void garbage_header_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error("# darshan log version: 3.41\n# uid: root\n", 2,
                       "expected a uid from 0 to 4294967295, got 'root'");
    expect_parse_error("garbage\n", 1,
                       "expected header line '# darshan log version: ...' before this "
                       "line, got none");
    expect_parse_error("# darshan log version: 3.41\n# exe: a\n# uid: 1\n# jobid: 2\n"
                       "# start_time: 10\n# end_time: 5\n# nprocs: 1\n# run time: 1.0\n"
                       "\n",
                       6, "expected end_time >= start_time (10), got 5");
    expect_parse_error("# darshan log version: 3.41\n# compression method: ZLIB\n"
                       "# compression method: NONE\n",
                       3,
                       "expected header key 'compression method' once, got it a second "
                       "time");
}

static void a_block_out_of_order_reports_its_line(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("DXT_POSIX") "\n"
                                                  "# DXT, file_id: 1, file_name: /a\n"
                                                  "# DXT, write_count: 1, read_count: "
                                                  "0\n",
                       23,
                       "expected '# DXT, rank: <rank>, hostname: <host>', got '# DXT, "
                       "write_count: 1, read_count: 0'");
    expect_parse_error(HEADER "\n# DXT, file_id: 1, file_name: /a\n", 19,
                       "expected a DXT_POSIX or DXT_MPIIO module banner before the "
                       "first file block, got '# DXT, file_id: 1, file_name: /a'");
    expect_parse_error(HEADER BANNER("DXT_POSIX") ROW_W0, 21,
                       "expected an operation row only after a file block's column "
                       "line, got ' X_POSIX       1  write        0               0      "
                       "      '");
    expect_parse_error(HEADER BANNER("DXT_POSIX") "\n"
                                                  "# DXT, file_id: 1, file_name: /a\n",
                       22,
                       "expected the rest of the file block of line 22, got the end of "
                       "the file");
}

static void darshan_parser_text_is_refused(void **state)
{
    (void)state;
    expect_parse_error(HEADER BANNER("POSIX"), 19,
                       "expected a DXT_POSIX or DXT_MPIIO module banner "
                       "(darshan-dxt-parser output), got '# POSIX module data'");
    expect_parse_error(HEADER "POSIX\t1\t77\tPOSIX_OPENS\t2\t/a\t/\text4\n", 18,
                       "expected an operation row (X_POSIX or X_MPIIO) or a '#' line, "
                       "got 'POSIX\t1\t77\tPOSIX_OPENS\t2\t/a\t/\text4'");
}

static void a_nul_byte_and_an_empty_file_are_refused(void **state)
{
    struct dxt_trace *t;
    struct error err = {0};
    FILE *fp = tmpfile();
    static const char bin[] = "# darshan log version: 3.41\n\0\0\n";

    (void)state;
    expect_parse_error("", 0, "empty file");
    assert_non_null(fp);
    assert_int_equal(fwrite(bin, 1, sizeof bin - 1, fp), sizeof bin - 1);
    rewind(fp);
    assert_int_equal(ingest_dxt_parse(fp, "input.txt", &t, &err), STATUS_PARSE);
    assert_null(t);
    assert_int_equal(err.line, 2);
    assert_string_equal(err.msg,
                        "expected text, got a NUL byte (a binary .darshan file?)");
    fclose(fp);
}

static void null_arguments_are_invalid(void **state)
{
    struct dxt_trace *t = &sentinel;
    FILE *fp = tmpfile();

    (void)state;
    assert_int_equal(ingest_dxt_parse(NULL, "x", &t, NULL), STATUS_INVALID);
    assert_null(t);
    assert_int_equal(ingest_dxt_parse(fp, "x", NULL, NULL), STATUS_INVALID);
    fclose(fp);
    dxt_trace_free(NULL); /* accepted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_traces_all_parse_with_their_parser_header),
        cmocka_unit_test(lab_traces_all_parse_with_their_parser_header),
        cmocka_unit_test(first_and_last_ops_of_release_3_1_3_match_the_text),
        cmocka_unit_test(an_mpiio_row_of_snow_matches_the_text),
        cmocka_unit_test(a_lustre_row_keeps_its_ost),
        cmocka_unit_test(a_lab_row_keeps_its_pthread_id),
        cmocka_unit_test(partial_data_dxt_is_read_as_incomplete),
        cmocka_unit_test(a_hand_made_trace_parses),
        cmocka_unit_test(a_listed_module_never_printed_is_incomplete),
        cmocka_unit_test(darshan_3_1_columns_parse),
        cmocka_unit_test(an_incomplete_note_keeps_the_blocks),
        cmocka_unit_test(an_empty_module_before_another_is_whole),
        cmocka_unit_test(no_dxt_data_is_a_whole_empty_trace),
        cmocka_unit_test(fewer_rows_than_the_counts_report_the_next_block),
        cmocka_unit_test(a_missing_last_row_is_refused_at_the_end),
        cmocka_unit_test(more_rows_than_the_counts_report_their_line),
        cmocka_unit_test(a_huge_count_allocates_nothing_for_it),
        cmocka_unit_test(a_row_cut_short_reports_its_line),
        cmocka_unit_test(a_cut_last_line_is_refused),
        cmocka_unit_test(a_negative_offset_reports_its_line),
        cmocka_unit_test(end_before_start_reports_its_line),
        cmocka_unit_test(a_time_past_the_run_time_reports_its_line),
        cmocka_unit_test(a_negative_start_reports_its_line),
        cmocka_unit_test(a_row_of_another_rank_or_module_reports_its_line),
        cmocka_unit_test(a_read_among_the_writes_reports_its_line),
        cmocka_unit_test(garbage_header_reports_its_line),
        cmocka_unit_test(a_block_out_of_order_reports_its_line),
        cmocka_unit_test(darshan_parser_text_is_refused),
        cmocka_unit_test(a_nul_byte_and_an_empty_file_are_refused),
        cmocka_unit_test(null_arguments_are_invalid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
