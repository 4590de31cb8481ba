/* test_dxt_rows.c: what a DXT trace loads (ingest/load/dxt.c): the job key from the
 * trace's own header, METHOD.md §10's layer rule, the merged windows worked by hand, and
 * the packed operations read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define START 1700000000

/* Mutable strings for the traces' owned-string fields (the test borrows them). */
static char s_path[] = "t.dxt.txt", s_exe[] = "a.out", s_host[] = "h",
            s_file[] = "/scratch/f", s_scratch[] = "/scratch", s_home[] = "/home",
            s_root[] = "/", s_lustre[] = "lustre", s_dxt[] = "DXT_POSIX,DXT_MPIIO";

/* A trace of the job (jobid 42, uid 7, START..START+10, 4 procs, "a.out") with the
 * given files; strings and ops borrowed (the test frees nothing it did not make). */
static struct dxt_trace trace_of(struct dxt_file_trace *files, size_t n)
{
    struct dxt_trace t = {.path = s_path,
                          .log_version = 3.41,
                          .exe = s_exe,
                          .uid = 7,
                          .jobid = "42",
                          .start_time_s = START,
                          .end_time_s = START + 10,
                          .nprocs = 4,
                          .run_time_s = 11,
                          .files = files,
                          .n_files = n};
    for (size_t i = 0; i < n; i++)
        t.n_ops += files[i].n_ops;
    return t;
}

static struct dxt_file_trace file_of(enum dxt_module m, uint64_t id, struct dxt_op *ops,
                                     size_t n, char *mount)
{
    return (struct dxt_file_trace){.module = m,
                                   .record_id = id,
                                   .rank = 0,
                                   .hostname = s_host,
                                   .ops = ops,
                                   .n_ops = n,
                                   .file_name = s_file,
                                   .mount_point = mount,
                                   .fs_type = s_lustre};
}

static struct dxt_op op(bool w, double a, double b)
{
    return (struct dxt_op){
        .is_write = w, .offset = 0, .length = 10, .start_s = a, .end_s = b, .ost = -1};
}

static void expect_window(const struct db_window_in *w, bool is_write, double a, double b)
{
    assert_int_equal(w->is_write, is_write);
    assert_true(fabs(w->start_s - (START + a)) < 1e-9);
    assert_true(fabs(w->end_s - (START + b)) < 1e-9);
}

static void key_is_the_logs_key(void **state)
{
    struct dxt_trace t = trace_of(NULL, 0);
    struct trace_rows r;
    struct error err = {0};
    char want[33];

    (void)state;
    assert_int_equal(trace_rows_make(&t, NULL, &r, &err), STATUS_OK);
    ingest_job_key("42", 7, START, START + 10, 4, "a.out", want);
    assert_string_equal(r.job_key, want);
    assert_string_equal(r.in.job_key, want);
    assert_int_equal(r.n_windows, 0);
    assert_false(r.in.incomplete);
    trace_rows_free(&r);
}

/* Reads: [1, 2] and [1.5, 3] overlap -> [1, 3]; [3, 4] touches it -> [1, 4]; the
 * point 2.5 lies strictly inside -> gone; the point 4 is on the edge -> stays; [6, 7]
 * stands apart. Writes keep their own windows: [2, 5]. */
static void windows_merge_as_worked_by_hand(void **state)
{
    struct dxt_op ops[] = {op(true, 2, 5),      op(false, 1.5, 3), op(false, 1, 2),
                           op(false, 2.5, 2.5), op(false, 3, 4),   op(false, 4, 4),
                           op(false, 6, 7)};
    struct dxt_file_trace f = file_of(DXT_MOD_POSIX, 9, ops, 7, s_scratch);
    struct dxt_trace t = trace_of(&f, 1);
    struct trace_rows r;
    struct error err = {0};

    (void)state;
    assert_int_equal(trace_rows_make(&t, NULL, &r, &err), STATUS_OK);
    assert_int_equal(r.n_windows, 4);
    expect_window(&r.windows[0], false, 1, 4);
    expect_window(&r.windows[1], false, 4, 4);
    expect_window(&r.windows[2], false, 6, 7);
    expect_window(&r.windows[3], true, 2, 5);
    assert_int_equal(r.in.n_ops, 7);
    trace_rows_free(&r);
}

/* DXT_MPIIO counts only for files without DXT_POSIX operations; the monitored file
 * system comes from the mount point through the map. */
static void mpiio_only_where_posix_is_silent(void **state)
{
    struct dxt_op posix_ops[] = {op(true, 1, 2)};
    struct dxt_op mpi_same[] = {op(true, 0.5, 3)};
    struct dxt_op mpi_other[] = {op(false, 5, 6)};
    struct dxt_file_trace files[] = {file_of(DXT_MOD_POSIX, 1, posix_ops, 1, s_scratch),
                                     file_of(DXT_MOD_MPIIO, 1, mpi_same, 1, s_scratch),
                                     file_of(DXT_MOD_MPIIO, 2, mpi_other, 1, s_home)};
    struct dxt_trace t = trace_of(files, 3);
    struct ingest_fs_map map = {0};
    struct trace_rows r;
    struct error err = {0};

    (void)state;
    assert_int_equal(ingest_fs_map_add(&map, "/scratch", "scratch1", &err), STATUS_OK);
    assert_int_equal(trace_rows_make(&t, &map, &r, &err), STATUS_OK);
    assert_int_equal(r.n_files, 3); /* every operation is kept for replay */
    assert_int_equal(r.n_windows, 2);
    expect_window(&r.windows[0], false, 5, 6);
    assert_null(r.windows[0].fs);
    expect_window(&r.windows[1], true, 1, 2);
    assert_string_equal(r.windows[1].fs, "scratch1");
    assert_string_equal(r.files[1].module, "DXT_MPIIO");
    trace_rows_free(&r);
    ingest_fs_map_clear(&map);
}

/* The packed operations inflate back to 41 bytes each, fields as written. */
static void packed_operations_read_back(void **state)
{
    struct dxt_op ops[] = {op(true, 0.25, 0.5), op(false, 1, 2)};
    ops[1].offset = 1234567890123;
    ops[1].length = 4096;
    ops[1].pthread_id = 139959073439744u;
    struct dxt_file_trace f = file_of(DXT_MOD_POSIX, 3, ops, 2, s_root);
    struct dxt_trace t = trace_of(&f, 1);
    struct trace_rows r;
    struct error err = {0};
    unsigned char raw[82];
    uLongf len = sizeof raw;
    uint64_t u;
    double d;

    (void)state;
    assert_int_equal(trace_rows_make(&t, NULL, &r, &err), STATUS_OK);
    assert_int_equal(r.files[0].n_ops, 2);
    assert_int_equal(uncompress(raw, &len, r.files[0].ops, (uLong)r.files[0].ops_len),
                     Z_OK);
    assert_int_equal(len, 82);
    assert_int_equal(raw[0], 1);
    assert_int_equal(raw[41], 0);
    u = 0;
    for (int i = 7; i >= 0; i--)
        u = (u << 8) | raw[41 + 1 + i];
    assert_int_equal(u, 1234567890123);
    u = 0;
    for (int i = 7; i >= 0; i--)
        u = (u << 8) | raw[41 + 33 + i];
    assert_int_equal(u, 139959073439744u);
    u = 0;
    for (int i = 7; i >= 0; i--)
        u = (u << 8) | raw[41 + 25 + i];
    memcpy(&d, &u, sizeof d);
    assert_true(d == 2.0);
    trace_rows_free(&r);
}

static void incomplete_trace_says_so(void **state)
{
    struct dxt_trace t = trace_of(NULL, 0);
    struct trace_rows r;
    struct error err = {0};

    (void)state;
    t.incomplete_modules = s_dxt;
    assert_int_equal(trace_rows_make(&t, NULL, &r, &err), STATUS_OK);
    assert_true(r.in.incomplete);
    trace_rows_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_is_the_logs_key),
        cmocka_unit_test(windows_merge_as_worked_by_hand),
        cmocka_unit_test(mpiio_only_where_posix_is_silent),
        cmocka_unit_test(packed_operations_read_back),
        cmocka_unit_test(incomplete_trace_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
