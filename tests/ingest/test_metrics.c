/* test_metrics.c: the log-only job metrics, windows, size bins and file-system map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"
#include "../support/testutil.h"

#include <glob.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------- */

static struct darshan_log *parse_file(const char *path)
{
    struct darshan_log *log = NULL;
    struct error err = {0};
    FILE *fp = fopen(path, "r");

    if (fp == NULL)
        fail_msg("cannot open %s", path);
    if (ingest_darshan_parse(fp, path, &log, &err) != STATUS_OK)
        fail_msg("%s:%ld: %s", path, err.line, err.msg);
    fclose(fp);
    return log;
}

static struct darshan_log *parse_shared(const char *rel)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/darshan/%s", testutil_shared_data(), rel);
    return parse_file(path);
}

static void metrics_of(const struct darshan_log *log, const struct ingest_fs_map *map,
                       struct job_metrics *m)
{
    struct error err = {0};

    if (ingest_job_metrics(log, map, m, &err) != STATUS_OK)
        fail_msg("metrics: %s", err.msg);
}

/* Metrics of the records of one layer only (the others moved behind n_records for the
 * call): darshan-parser --perf reports each module on its own. */
static void metrics_of_layer(struct darshan_log *log, enum ingest_layer layer,
                             struct job_metrics *m)
{
    size_t n = log->n_records, kept = 0;

    for (size_t i = 0; i < n; i++) {
        if (log->records[i].layer == layer) {
            struct darshan_record tmp = log->records[kept];

            log->records[kept++] = log->records[i];
            log->records[i] = tmp;
        }
    }
    log->n_records = kept;
    metrics_of(log, NULL, m);
    log->n_records = n;
}

/* A log made in memory, for the rules that need a particular shape. */
#define MAX_RECS 8

struct fake_log {
    struct darshan_log log;
    struct darshan_record recs[MAX_RECS];
    char text[MAX_RECS][3][64];
    char exe[64];
};

static void fake_init(struct fake_log *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->exe, sizeof f->exe, "/opt/app/bin/solver -n 2.385");
    f->log.log_version = 3.41;
    f->log.exe = f->exe;
    f->log.uid = 4321;
    snprintf(f->log.jobid, sizeof f->log.jobid, "98765");
    f->log.start_time_s = 1700000000;
    f->log.end_time_s = 1700000012;
    f->log.nprocs = 4;
    f->log.run_time_s = 12.2385;
    f->log.records = f->recs;
}

static struct darshan_record *fake_rec(struct fake_log *f, enum ingest_layer layer,
                                       int64_t rank, uint64_t id, const char *file,
                                       const char *mount)
{
    size_t i = f->log.n_records++;
    struct darshan_record *r = &f->recs[i];

    assert_true(i < MAX_RECS);
    snprintf(f->text[i][0], sizeof f->text[i][0], "%s", file);
    snprintf(f->text[i][1], sizeof f->text[i][1], "%s", mount);
    snprintf(f->text[i][2], sizeof f->text[i][2], "lustre");
    r->file_name = f->text[i][0];
    r->mount_point = f->text[i][1];
    r->fs_type = f->text[i][2];
    r->layer = layer;
    r->rank = rank;
    r->record_id = id;
    r->slowest_rank_time = -1;
    return r;
}

static void set_io(struct darshan_record *r, int64_t reads, int64_t writes,
                   int64_t bytes_read, int64_t bytes_written)
{
    r->reads = reads;
    r->writes = writes;
    r->bytes_read = bytes_read;
    r->bytes_written = bytes_written;
}

static void set_stamps(struct darshan_record *r, double open_start, double read_start,
                       double read_end, double write_start, double write_end)
{
    r->open_start = open_start;
    r->read_start = read_start;
    r->read_end = read_end;
    r->write_start = write_start;
    r->write_end = write_end;
}

static void set_times(struct darshan_record *r, double read_time, double write_time,
                      double meta_time)
{
    r->read_time = read_time;
    r->write_time = write_time;
    r->meta_time = meta_time;
}

/* ---- b(v) --------------------------------------------------------------------- */

static void size_bin_of_known_values(void **state)
{
    (void)state;
    assert_int_equal(ingest_size_bin(0), 0);
    assert_int_equal(ingest_size_bin(1), 1);
    assert_int_equal(ingest_size_bin(1.19), 1);
    /* the double 1.2 is just below 6/5, but ln(1.2)/ln(1.2) is exactly 1 */
    assert_int_equal(ingest_size_bin(1.2), 2);
    /* 1.2^3 = 1.728 <= 2 < 1.2^4 = 2.0736: b = 1 + 3 */
    assert_int_equal(ingest_size_bin(2), 4);
    assert_int_equal(ingest_size_bin(3), 7);
    /* 1.2^20 = 38.337...: the edge between 38 and 39 */
    assert_int_equal(ingest_size_bin(38), 20);
    assert_int_equal(ingest_size_bin(39), 21);
    /* 1.2^166 = 13934354140733.4... (Python: Fraction(6, 5)**166); double logarithms
     * put 13934354140733 in bin 167 */
    assert_int_equal(ingest_size_bin(13934354140733.0), 166);
    assert_int_equal(ingest_size_bin(13934354140734.0), 167);
    /* beyond 2^64 the formula: 1 + floor(ln 1e20 / ln 1.2) = 1 + floor(252.57) */
    assert_int_equal(ingest_size_bin(1e20), 253);
    assert_int_equal(ingest_size_bin(-1), 0);
    assert_int_equal(ingest_size_bin(NAN), 0);
}

static void size_bin_agrees_with_the_formula_on_small_integers(void **state)
{
    (void)state;
    /* below 1.4e13 the double formula is exact for every integer (checked against
     * Python's fractions up to 1e6): the table and the formula must agree there */
    for (int v = 1; v <= 200000; v++) {
        if (ingest_size_bin(v) != 1 + (int)floor(log(v) / log(1.2)))
            fail_msg("b(%d) = %d", v, ingest_size_bin(v));
    }
    for (int i = 0; i < 40; i++) {
        double v = floor(1e6 * pow(1.7, i)); /* up to 1.6e15 */

        if (v < 1.3e13)
            assert_int_equal(ingest_size_bin(v), 1 + (int)floor(log(v) / log(1.2)));
    }
}

/* ---- the file-system map ------------------------------------------------------- */

static void fs_map_takes_the_longest_prefix_on_component_boundaries(void **state)
{
    struct ingest_fs_map map = {0};
    struct error err = {0};

    (void)state;
    assert_int_equal(ingest_fs_map_add(&map, "/scratch", "scratch1", &err), STATUS_OK);
    assert_int_equal(ingest_fs_map_add(&map, "/scratch/proj/", "projfs", &err),
                     STATUS_OK);
    assert_int_equal(ingest_fs_map_add(&map, "/home", "home", &err), STATUS_OK);
    assert_string_equal(ingest_fs_lookup(&map, "/scratch/a/b"), "scratch1");
    assert_string_equal(ingest_fs_lookup(&map, "/scratch"), "scratch1");
    assert_string_equal(ingest_fs_lookup(&map, "/scratch/"), "scratch1");
    assert_null(ingest_fs_lookup(&map, "/scratch2/a"));
    assert_null(ingest_fs_lookup(&map, "/scratc"));
    /* the trailing '/' of a prefix is dropped, so it still matches the mount itself */
    assert_string_equal(ingest_fs_lookup(&map, "/scratch/proj"), "projfs");
    assert_string_equal(ingest_fs_lookup(&map, "/scratch/proj/x"), "projfs");
    assert_string_equal(ingest_fs_lookup(&map, "/scratch/project"), "scratch1");
    assert_null(ingest_fs_lookup(&map, "/homework"));
    assert_null(ingest_fs_lookup(&map, "<STDOUT>"));
    assert_null(ingest_fs_lookup(&map, ""));
    assert_null(ingest_fs_lookup(&map, NULL));
    assert_null(ingest_fs_lookup(NULL, "/scratch"));
    ingest_fs_map_clear(&map);
    assert_int_equal(map.n, 0);
    assert_null(map.entries);
}

static void fs_map_root_matches_every_absolute_path(void **state)
{
    struct ingest_fs_map map = {0};

    (void)state;
    assert_int_equal(ingest_fs_map_add(&map, "/", "rootfs", NULL), STATUS_OK);
    assert_int_equal(ingest_fs_map_add(&map, "/lus/grand", "grand", NULL), STATUS_OK);
    assert_int_equal(ingest_fs_map_add(&map, "/", "second", NULL), STATUS_OK);
    assert_string_equal(ingest_fs_lookup(&map, "/"), "rootfs"); /* first of equals */
    assert_string_equal(ingest_fs_lookup(&map, "//1067575933"), "rootfs");
    assert_string_equal(ingest_fs_lookup(&map, "/lus/grand/x"), "grand");
    assert_string_equal(ingest_fs_lookup(&map, "/lus/grandx"), "rootfs");
    assert_null(ingest_fs_lookup(&map, "UNKNOWN"));
    ingest_fs_map_clear(&map);
    ingest_fs_map_clear(NULL);
}

static void fs_map_refuses_empty_names(void **state)
{
    struct ingest_fs_map map = {0};
    struct error err = {0};

    (void)state;
    assert_int_equal(ingest_fs_map_add(&map, "", "x", &err), STATUS_INVALID);
    assert_int_equal(err.code, STATUS_INVALID);
    assert_int_equal(ingest_fs_map_add(&map, "/x", "", NULL), STATUS_INVALID);
    assert_int_equal(ingest_fs_map_add(&map, NULL, "x", NULL), STATUS_INVALID);
    assert_int_equal(ingest_fs_map_add(NULL, "/x", "x", NULL), STATUS_INVALID);
    assert_int_equal(map.n, 0);
}

/* ---- the layer rule -------------------------------------------------------------- */

static void each_file_counts_one_layer(void **state)
{
    struct fake_log f;
    struct ingest_fs_map map = {0};
    struct darshan_record *r;
    struct job_metrics m;

    (void)state;
    fake_init(&f);
    assert_int_equal(ingest_fs_map_add(&map, "/scratch", "scratch1", NULL), STATUS_OK);
    /* file 10, shared, through MPI-IO over POSIX: MPI-IO counts, POSIX gives windows */
    r = fake_rec(&f, LAYER_MPIIO, -1, 10, "/scratch/shared.dat", "/scratch");
    set_io(r, 8, 4, 2385000, 1000);
    set_stamps(r, 0.5, 2.0, 3.0, 1.0, 1.5);
    set_times(r, 0.7, 0.2, 0.1);
    r->slowest_rank_time = 0.95;
    r = fake_rec(&f, LAYER_POSIX, -1, 10, "/scratch/shared.dat", "/scratch");
    set_io(r, 80, 40, 2400000, 1100); /* data sieving: more below than asked above */
    set_stamps(r, 0.6, 2.1, 2.9, 1.1, 1.4);
    set_times(r, 0.6, 0.15, 0.05);
    r->slowest_rank_time = 0.7;
    /* file 20, unique on rank 2, POSIX only, on the root file system */
    r = fake_rec(&f, LAYER_POSIX, 2, 20, "/tmp/unique.dat", "/");
    set_io(r, 3, 0, 3000, 0);
    set_stamps(r, 0.25, 0.3, 0.4, 0, 0);
    set_times(r, 0.25, 0, 0.5);
    /* file 30, unique on rank 1, STDIO and POSIX (fdopen): POSIX only */
    r = fake_rec(&f, LAYER_STDIO, 1, 30, "/scratch/log.txt", "/scratch");
    set_io(r, 0, 9, 0, 900);
    set_stamps(r, 0.1, 0, 0, 4.0, 5.0);
    set_times(r, 0, 9.0, 9.0);
    r = fake_rec(&f, LAYER_POSIX, 1, 30, "/scratch/log.txt", "/scratch");
    set_io(r, 0, 2, 0, 905);
    set_stamps(r, 0.1, 0, 0, 4.1, 4.9);
    set_times(r, 0, 0.125, 0.0625);
    /* file 40, unique on rank 1, STDIO only, darshan knew no mount */
    r = fake_rec(&f, LAYER_STDIO, 1, 40, "<STDOUT>", "UNKNOWN");
    set_io(r, 0, 6, 0, 322);
    set_stamps(r, 0, 0, 0, 6.0, 6.5);
    set_times(r, 0, 0.001, 0);

    metrics_of(&f.log, &map, &m);
    assert_int_equal(m.eta_read, 2385000 + 3000);
    assert_int_equal(m.eta_write, 1000 + 905 + 322);
    assert_int_equal(m.eta_mon_read, 2385000);
    assert_int_equal(m.eta_mon_write, 1000 + 905);
    assert_int_equal(m.n_shared_files, 1);
    assert_int_equal(m.n_unique_files, 3);
    /* rank 1: POSIX of file 30 + STDIO of file 40 = 0.1885 s, meta 0.0625; rank 2:
     * 0.75 s, meta 0.5. The STDIO record of file 30 (18 s) never counts. */
    assert_rel(m.t_um, 0.5, 1e-12);
    assert_rel(m.t_urw, 0.25, 1e-12);
    /* shared file 10 through its MPI-IO record: max(3.0, 1.5) - 0.5 */
    assert_rel(m.t_s, 2.5, 1e-12);
    assert_rel(m.t_s_span, 2.5, 1e-12);
    assert_rel(m.t_s_slowest, 0.95, 1e-12);
    assert_rel(m.t, 3.25, 1e-12);
    /* windows: POSIX of 10 (read, write), 20 (read), 30 (write); STDIO of 40 (write) */
    assert_int_equal(m.n_windows, 5);
    assert_rel(m.windows[0].start_s, 1700000000.3, 1e-6); /* sorted by start */
    assert_false(m.windows[0].is_write);
    assert_false(m.windows[0].monitored);
    assert_null(m.windows[0].fs);
    assert_int_equal(m.windows[0].bytes, 3000);
    assert_rel(m.windows[1].start_s, 1700000001.1, 1e-6);
    assert_true(m.windows[1].is_write);
    assert_int_equal(m.windows[1].bytes, 1100);
    assert_string_equal(m.windows[1].fs, "scratch1");
    assert_rel(m.windows[2].start_s, 1700000002.1, 1e-6);
    assert_rel(m.windows[2].end_s, 1700000002.9, 1e-6);
    assert_int_equal(m.windows[2].bytes, 2400000);
    assert_rel(m.windows[3].start_s, 1700000004.1, 1e-6);
    assert_int_equal(m.windows[3].bytes, 905);
    assert_rel(m.windows[4].start_s, 1700000006.0, 1e-6);
    assert_false(m.windows[4].monitored);
    /* spans of the same windows */
    assert_rel(m.t_fr, 0.8, 1e-12);
    assert_rel(m.t_fw, 0.8, 1e-12);
    job_metrics_clear(&m);
    assert_null(m.windows);
    ingest_fs_map_clear(&map);
}

static void mpiio_windows_only_without_a_lower_layer(void **state)
{
    struct fake_log f;
    struct darshan_record *r;
    struct job_metrics m;

    (void)state;
    fake_init(&f);
    r = fake_rec(&f, LAYER_MPIIO, -1, 10, "/scratch/x", "/scratch");
    set_io(r, 5, 0, 500, 0);
    set_stamps(r, 1.0, 1.5, 2.385, 0, 0);
    metrics_of(&f.log, NULL, &m);
    assert_int_equal(m.n_windows, 1);
    assert_rel(m.windows[0].start_s, 1700000001.5, 1e-6);
    assert_rel(m.windows[0].end_s, 1700000002.385, 1e-6);
    assert_rel(m.t_fr, 0.885, 1e-12);
    assert_rel(m.t_fw, -1, 0);
    job_metrics_clear(&m);
}

/* ---- the layer rule on darshan-parser text ------------------------------------------
 */

/* A darshan-parser snippet written by hand (METHOD.md §2's layer rule). File a.dat,
 * unique to rank 0, has an MPI-IO record over a POSIX one (data sieving: more bytes and
 * reads below); c.dat, shared, likewise for writes; rank 1's log.txt is STDIO only.
 * One string per line: the whole exceeds C's 4095-character literal limit. */
#define PA     "POSIX\t0\t111\t"
#define MA     "MPI-IO\t0\t111\t"
#define A_FILE "\t/scratch/a.dat\t/scratch\tlustre\n"
#define PC     "POSIX\t-1\t333\t"
#define MC     "MPI-IO\t-1\t333\t"
#define C_FILE "\t/scratch/c.dat\t/scratch\tlustre\n"
#define SB     "STDIO\t1\t222\t"
#define B_FILE "\t/home/u/log.txt\t/home\tnfs\n"

/* clang-format off */
static const char *const layered_log[] = {
    "# darshan log version: 3.41\n",
    "# exe: /opt/app/bin/layered -i 2.385\n",
    "# uid: 4321\n",
    "# jobid: 777\n",
    "# start_time: 1700000000\n",
    "# end_time: 1700000020\n",
    "# nprocs: 2\n",
    "# run time: 20.5\n",
    "\n",
    "# mount entry:\t/scratch\tlustre\n",
    "# mount entry:\t/home\tnfs\n",
    "\n",
    "# *******************************************************\n",
    "# POSIX module data\n",
    "# *******************************************************\n",
    "\n",
    PA "POSIX_OPENS\t1" A_FILE,
    PA "POSIX_READS\t16" A_FILE,
    PA "POSIX_WRITES\t0" A_FILE,
    PA "POSIX_BYTES_READ\t4194304" A_FILE,
    PA "POSIX_BYTES_WRITTEN\t0" A_FILE,
    PA "POSIX_F_OPEN_START_TIMESTAMP\t1.100000" A_FILE,
    PA "POSIX_F_READ_START_TIMESTAMP\t2.100000" A_FILE,
    PA "POSIX_F_WRITE_START_TIMESTAMP\t0.000000" A_FILE,
    PA "POSIX_F_READ_END_TIMESTAMP\t3.900000" A_FILE,
    PA "POSIX_F_WRITE_END_TIMESTAMP\t0.000000" A_FILE,
    PA "POSIX_F_CLOSE_END_TIMESTAMP\t4.050000" A_FILE,
    PA "POSIX_F_READ_TIME\t1.250000" A_FILE,
    PA "POSIX_F_WRITE_TIME\t0.000000" A_FILE,
    PA "POSIX_F_META_TIME\t0.125000" A_FILE,
    PC "POSIX_OPENS\t2" C_FILE,
    PC "POSIX_READS\t0" C_FILE,
    PC "POSIX_WRITES\t32" C_FILE,
    PC "POSIX_BYTES_READ\t0" C_FILE,
    PC "POSIX_BYTES_WRITTEN\t8388608" C_FILE,
    PC "POSIX_F_OPEN_START_TIMESTAMP\t7.050000" C_FILE,
    PC "POSIX_F_READ_START_TIMESTAMP\t0.000000" C_FILE,
    PC "POSIX_F_WRITE_START_TIMESTAMP\t8.100000" C_FILE,
    PC "POSIX_F_READ_END_TIMESTAMP\t0.000000" C_FILE,
    PC "POSIX_F_WRITE_END_TIMESTAMP\t9.950000" C_FILE,
    PC "POSIX_F_CLOSE_END_TIMESTAMP\t10.100000" C_FILE,
    PC "POSIX_F_READ_TIME\t0.000000" C_FILE,
    PC "POSIX_F_WRITE_TIME\t1.500000" C_FILE,
    PC "POSIX_F_META_TIME\t0.062500" C_FILE,
    "\n",
    "# *******************************************************\n",
    "# MPI-IO module data\n",
    "# *******************************************************\n",
    "\n",
    MA "MPIIO_INDEP_OPENS\t1" A_FILE,
    MA "MPIIO_COLL_OPENS\t0" A_FILE,
    MA "MPIIO_INDEP_READS\t3" A_FILE,
    MA "MPIIO_INDEP_WRITES\t0" A_FILE,
    MA "MPIIO_COLL_READS\t1" A_FILE,
    MA "MPIIO_COLL_WRITES\t0" A_FILE,
    MA "MPIIO_SPLIT_READS\t0" A_FILE,
    MA "MPIIO_SPLIT_WRITES\t0" A_FILE,
    MA "MPIIO_NB_READS\t0" A_FILE,
    MA "MPIIO_NB_WRITES\t0" A_FILE,
    MA "MPIIO_BYTES_READ\t4000000" A_FILE,
    MA "MPIIO_BYTES_WRITTEN\t0" A_FILE,
    MA "MPIIO_F_OPEN_START_TIMESTAMP\t1.000000" A_FILE,
    MA "MPIIO_F_READ_START_TIMESTAMP\t2.000000" A_FILE,
    MA "MPIIO_F_WRITE_START_TIMESTAMP\t0.000000" A_FILE,
    MA "MPIIO_F_READ_END_TIMESTAMP\t4.000000" A_FILE,
    MA "MPIIO_F_WRITE_END_TIMESTAMP\t0.000000" A_FILE,
    MA "MPIIO_F_CLOSE_END_TIMESTAMP\t4.100000" A_FILE,
    MA "MPIIO_F_READ_TIME\t1.500000" A_FILE,
    MA "MPIIO_F_WRITE_TIME\t0.000000" A_FILE,
    MA "MPIIO_F_META_TIME\t0.250000" A_FILE,
    MC "MPIIO_INDEP_OPENS\t0" C_FILE,
    MC "MPIIO_COLL_OPENS\t2" C_FILE,
    MC "MPIIO_INDEP_READS\t0" C_FILE,
    MC "MPIIO_INDEP_WRITES\t0" C_FILE,
    MC "MPIIO_COLL_READS\t0" C_FILE,
    MC "MPIIO_COLL_WRITES\t4" C_FILE,
    MC "MPIIO_SPLIT_READS\t0" C_FILE,
    MC "MPIIO_SPLIT_WRITES\t0" C_FILE,
    MC "MPIIO_NB_READS\t0" C_FILE,
    MC "MPIIO_NB_WRITES\t0" C_FILE,
    MC "MPIIO_BYTES_READ\t0" C_FILE,
    MC "MPIIO_BYTES_WRITTEN\t8000000" C_FILE,
    MC "MPIIO_F_OPEN_START_TIMESTAMP\t7.000000" C_FILE,
    MC "MPIIO_F_READ_START_TIMESTAMP\t0.000000" C_FILE,
    MC "MPIIO_F_WRITE_START_TIMESTAMP\t8.000000" C_FILE,
    MC "MPIIO_F_READ_END_TIMESTAMP\t0.000000" C_FILE,
    MC "MPIIO_F_WRITE_END_TIMESTAMP\t10.000000" C_FILE,
    MC "MPIIO_F_CLOSE_END_TIMESTAMP\t10.200000" C_FILE,
    MC "MPIIO_F_READ_TIME\t0.000000" C_FILE,
    MC "MPIIO_F_WRITE_TIME\t1.750000" C_FILE,
    MC "MPIIO_F_META_TIME\t0.125000" C_FILE,
    "\n",
    "# *******************************************************\n",
    "# STDIO module data\n",
    "# *******************************************************\n",
    "\n",
    SB "STDIO_OPENS\t1" B_FILE,
    SB "STDIO_READS\t0" B_FILE,
    SB "STDIO_WRITES\t10" B_FILE,
    SB "STDIO_BYTES_READ\t0" B_FILE,
    SB "STDIO_BYTES_WRITTEN\t2385" B_FILE,
    SB "STDIO_F_OPEN_START_TIMESTAMP\t0.500000" B_FILE,
    SB "STDIO_F_READ_START_TIMESTAMP\t0.000000" B_FILE,
    SB "STDIO_F_WRITE_START_TIMESTAMP\t5.000000" B_FILE,
    SB "STDIO_F_READ_END_TIMESTAMP\t0.000000" B_FILE,
    SB "STDIO_F_WRITE_END_TIMESTAMP\t6.500000" B_FILE,
    SB "STDIO_F_CLOSE_END_TIMESTAMP\t6.750000" B_FILE,
    SB "STDIO_F_READ_TIME\t0.000000" B_FILE,
    SB "STDIO_F_WRITE_TIME\t0.500000" B_FILE,
    SB "STDIO_F_META_TIME\t0.750000" B_FILE,
};
/* clang-format on */

static void mpiio_over_posix_counts_once_and_stdio_alone_counts(void **state)
{
    struct ingest_fs_map map = {0};
    struct darshan_log *log = NULL;
    struct job_metrics m;
    struct error err = {0};
    FILE *fp = tmpfile();

    (void)state;
    assert_non_null(fp);
    for (size_t i = 0; i < sizeof layered_log / sizeof layered_log[0]; i++)
        assert_true(fputs(layered_log[i], fp) >= 0);
    rewind(fp);
    assert_int_equal(ingest_darshan_parse(fp, "layered", &log, &err), STATUS_OK);
    fclose(fp);
    assert_int_equal(log->n_records, 5);
    assert_int_equal(ingest_fs_map_add(&map, "/scratch", "scratch1", NULL), STATUS_OK);
    metrics_of(log, &map, &m);

    /* Bytes from MPI-IO where a file has it (a.dat 4e6 read, not POSIX's 4194304 nor
     * their sum; c.dat 8e6 written), STDIO for log.txt (2385). */
    assert_int_equal(m.eta_read, 4000000);
    assert_int_equal(m.eta_write, 8000000 + 2385);
    assert_int_equal(m.eta_mon_read, 4000000);
    assert_int_equal(m.eta_mon_write, 8000000);
    assert_int_equal(m.n_unique_files, 2);
    assert_int_equal(m.n_shared_files, 1);
    /* U_0 = MPI-IO of a.dat: 1.5 read + 0.25 meta = 1.75 (POSIX's 1.375 added would
     * give 3.125); U_1 = STDIO of log.txt: 0.5 + 0.75 = 1.25. Slowest: rank 0. */
    assert_rel(m.t_um, 0.25, 1e-12);
    assert_rel(m.t_urw, 1.5, 1e-12);
    /* Shared c.dat by MPI-IO: last write 10.0 − open 7.0 (POSIX would say 2.9). */
    assert_rel(m.t_s, 3.0, 1e-12);
    assert_rel(m.t, 4.75, 1e-12);
    /* Windows from the layer nearest the storage: POSIX of a.dat [2.1, 3.9] and c.dat
     * [8.1, 9.95], STDIO of log.txt [5.0, 6.5]; never MPI-IO's beside them. */
    assert_int_equal(m.n_windows, 3);
    assert_rel(m.windows[0].start_s, 1700000002.1, 1e-6);
    assert_rel(m.windows[0].end_s, 1700000003.9, 1e-6);
    assert_false(m.windows[0].is_write);
    assert_string_equal(m.windows[0].fs, "scratch1");
    assert_int_equal(m.windows[0].bytes, 4194304);
    assert_rel(m.windows[1].start_s, 1700000005.0, 1e-6);
    assert_rel(m.windows[1].end_s, 1700000006.5, 1e-6);
    assert_false(m.windows[1].monitored);
    assert_int_equal(m.windows[1].bytes, 2385);
    assert_rel(m.windows[2].start_s, 1700000008.1, 1e-6);
    assert_rel(m.windows[2].end_s, 1700000009.95, 1e-6);
    assert_true(m.windows[2].is_write);
    assert_string_equal(m.windows[2].fs, "scratch1");
    /* T^F from the same windows: 3.9 − 2.1 read; max(1.5, 1.85) write. */
    assert_rel(m.t_fr, 1.8, 1e-12);
    assert_rel(m.t_fw, 1.85, 1e-12);
    job_metrics_clear(&m);
    darshan_log_free(log);
    ingest_fs_map_clear(&map);
}

/* ---- windows and timestamps ------------------------------------------------------ */

static void operations_without_timestamps_get_no_window(void **state)
{
    struct fake_log f;
    struct darshan_record *r;
    struct job_metrics m;

    (void)state;
    fake_init(&f);
    /* as vpicio's <STDERR>: 65 writes, both timestamps 0 */
    r = fake_rec(&f, LAYER_POSIX, 0, 10, "<STDERR>", "UNKNOWN");
    set_io(r, 0, 65, 0, 2385);
    /* reads with an end but no start: the instant of the end */
    r = fake_rec(&f, LAYER_POSIX, 0, 20, "/a", "/");
    set_io(r, 2, 0, 100, 0);
    set_stamps(r, 0, 0, 2.385, 0, 0);
    /* a single read: a zero-length window that still counts */
    r = fake_rec(&f, LAYER_POSIX, 1, 30, "/b", "/");
    set_io(r, 1, 0, 7, 0);
    set_stamps(r, 0.5, 1.25, 1.25, 0, 0);
    metrics_of(&f.log, NULL, &m);
    assert_int_equal(m.n_windows, 2);
    assert_rel(m.windows[0].start_s, 1700000001.25, 1e-6);
    assert_rel(m.windows[0].end_s, 1700000001.25, 1e-6);
    assert_rel(m.windows[1].start_s, 1700000002.385, 1e-6);
    assert_rel(m.windows[1].end_s, 1700000002.385, 1e-6);
    assert_int_equal(m.windows[1].bytes, 100);
    /* the job did write: span 0, not "never wrote" */
    assert_rel(m.t_fw, 0.0, 0.0);
    assert_rel(m.t_fr, 0.0, 0.0);
    assert_int_equal(m.eta_write, 2385);
    job_metrics_clear(&m);
}

static void lab_windows_match_the_recorded_io_intervals(void **state)
{
    char pattern[4096], csv[4096], line[512];
    glob_t g;
    FILE *fp;
    /* per job 1001..1030: first write start, last write end, read start, read end */
    double truth[30][4];
    long write_bytes[30] = {0}, read_bytes[30] = {0};
    struct ingest_fs_map map = {0};

    (void)state;
    for (int j = 0; j < 30; j++) {
        truth[j][0] = truth[j][2] = INFINITY;
        truth[j][1] = truth[j][3] = -INFINITY;
    }
    snprintf(csv, sizeof csv, "%s/lab/run1_queue_depth/job_io_intervals.csv",
             testutil_shared_data());
    fp = fopen(csv, "r");
    assert_non_null(fp);
    assert_non_null(fgets(line, sizeof line, fp)); /* column names */
    while (fgets(line, sizeof line, fp) != NULL) {
        /* job_id,interval,kind,start_epoch,end_epoch,duration_s,bytes,... */
        char *kind, *end;
        long job = strtol(line, &end, 10), bytes;
        double a, b;
        int w;

        assert_int_equal(*end, ',');
        kind = strchr(end + 1, ',') + 1;
        a = strtod(strchr(kind, ',') + 1, &end);
        b = strtod(end + 1, &end);
        (void)strtod(end + 1, &end);
        bytes = strtol(end + 1, &end, 10);
        assert_int_equal(*end, ',');
        assert_true(job >= 1001 && job <= 1030);
        w = strncmp(kind, "write,", 6) == 0 ? 0 : 2;
        truth[job - 1001][w] = fmin(truth[job - 1001][w], a);
        truth[job - 1001][w + 1] = fmax(truth[job - 1001][w + 1], b);
        if (w == 0) {
            write_bytes[job - 1001] += bytes;
        } else {
            read_bytes[job - 1001] += bytes;
        }
    }
    fclose(fp);

    assert_int_equal(ingest_fs_map_add(&map, "/", "vda", NULL), STATUS_OK);
    snprintf(pattern, sizeof pattern, "%s/lab/run1_queue_depth/darshan/*.parser.txt",
             testutil_shared_data());
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 30);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct darshan_log *log = parse_file(g.gl_pathv[i]);
        long j = strtol(log->jobid, NULL, 10) - 1001;
        struct job_metrics m;
        double got[4] = {NAN, NAN, NAN, NAN}, offset;

        metrics_of(log, &map, &m);
        /* the data file (read, write) and <STDOUT> (write, not monitored) */
        assert_int_equal(m.n_windows, 3);
        for (size_t k = 0; k < m.n_windows; k++) {
            const struct job_window *w = &m.windows[k];

            if (!w->monitored)
                continue;
            assert_string_equal(w->fs, "vda");
            got[w->is_write ? 0 : 2] = w->start_s;
            got[w->is_write ? 1 : 3] = w->end_s;
            assert_int_equal(w->bytes, w->is_write ? write_bytes[j] : read_bytes[j]);
        }
        /* start_time is truncated: the truth is 0-1 s later, by the same offset for
         * every stamp of a job (the last write end also holds the fdatasync) */
        offset = truth[j][0] - got[0];
        assert_true(offset >= 0 && offset < 1);
        for (int k = 0; k < 4; k++) {
            double d = truth[j][k] - got[k];

            if (!(d >= 0 && d < 1 && fabs(d - offset) < 0.05)) {
                fail_msg("job %ld stamp %d: truth %.6f, window %.6f", j + 1001, k,
                         truth[j][k], got[k]);
            }
        }
        assert_int_equal(m.eta_mon_read, read_bytes[j]);
        job_metrics_clear(&m);
        darshan_log_free(log);
    }
    globfree(&g);
    ingest_fs_map_clear(&map);
}

/* ---- against darshan-parser --perf (its own calc_perf) ------------------------------
 */

static void unique_times_match_darshan_perf(void **state)
{
    struct darshan_log *log;
    struct job_metrics m;

    (void)state;
    /* apmpi_theta_milc/parser.perf.txt, STDIO (the only layer): io 0.063228, meta
     * 0.022201, rw 0.041027; time_by_slowest 0.226065. Text rounds each counter to
     * 1e-6, hence the tolerance. */
    log = parse_shared("apmpi_theta_milc/parser.txt");
    metrics_of(log, NULL, &m);
    assert_rel(m.t_um, 0.022201, 1e-5);
    assert_rel(m.t_urw, 0.041027, 1e-5);
    assert_rel(m.t_s_slowest, 0.226065, 1e-5);
    job_metrics_clear(&m);
    darshan_log_free(log);

    /* ior_daos_posix: POSIX only shared (time_by_slowest 0.025092), STDIO unique
     * rw 0.000065, meta 0 */
    log = parse_shared("ior_daos_posix/parser.txt");
    metrics_of(log, NULL, &m);
    assert_rel(m.t_um, 0.0, 1e-6);
    assert_rel(m.t_urw, 0.000065, 1e-6);
    assert_rel(m.t_s_slowest, 0.025092, 1e-6);
    job_metrics_clear(&m);
    darshan_log_free(log);

    /* release_x86_64_3.5.0: the shared file counts through MPI-IO (time_by_slowest
     * 0.044173, POSIX's 0.040996 must not be added); STDIO unique rw 0.000012 */
    log = parse_shared("release_x86_64_3.5.0/parser.txt");
    metrics_of(log, NULL, &m);
    assert_rel(m.t_um, 0.0, 1e-6);
    assert_rel(m.t_urw, 0.000012, 1e-6);
    assert_rel(m.t_s_slowest, 0.044173, 1e-6);
    job_metrics_clear(&m);
    darshan_log_free(log);

    /* pydarshan_example_vpicio_edison: rank 0's <STDERR> has a write time of
     * -2662.746634 s. darshan-parser adds it and reports 0 for unique files (rank 0
     * drops below the others); it is absent here (METHOD.md §9, negative_time), so
     * rank 0 is the slowest with its other STDIO times: rw 0.000068 */
    log = parse_shared("pydarshan_example_vpicio_edison/parser.txt");
    metrics_of(log, NULL, &m);
    assert_rel(m.t_um, 0.0, 0.0);
    assert_rel(m.t_urw, 0.000068, 1e-6);
    assert_rel(m.t_s_slowest, 85.492222, 1e-6);
    job_metrics_clear(&m);
    darshan_log_free(log);

    /* skew_app, 65536 ranks: MPI-IO time_by_slowest 753.573830 */
    log = parse_shared("skew_app/parser.txt");
    metrics_of(log, NULL, &m);
    assert_rel(m.t_s_slowest, 753.573830, 1e-6);
    assert_rel(m.t_j, 37516.0, 0.0);
    job_metrics_clear(&m);
    darshan_log_free(log);
}

static void slowest_rank_matches_darshan_perf_per_module(void **state)
{
    struct darshan_log *log = parse_shared("mpi_io_test_dxt_snow/parser.txt");
    struct job_metrics m;

    (void)state;
    /* mpi_io_test_dxt_snow/parser.perf.txt, 32 ranks of unique files: MPI-IO slowest
     * rank 23 (meta 0.073478, rw 9.316414), POSIX rank 14 (0.037569, 2.682409),
     * STDIO rank 0 (0, 0.000094). Each rank sums up to ~10 rounded counters. */
    metrics_of_layer(log, LAYER_MPIIO, &m);
    assert_rel(m.t_um, 0.073478, 1e-5);
    assert_rel(m.t_urw, 9.316414, 1e-5);
    job_metrics_clear(&m);
    metrics_of_layer(log, LAYER_POSIX, &m);
    assert_rel(m.t_um, 0.037569, 1e-5);
    assert_rel(m.t_urw, 2.682409, 1e-5);
    job_metrics_clear(&m);
    metrics_of_layer(log, LAYER_STDIO, &m);
    assert_rel(m.t_um, 0.0, 1e-5);
    assert_rel(m.t_urw, 0.000094, 1e-5);
    job_metrics_clear(&m);
    darshan_log_free(log);
}

static void ties_go_to_the_lowest_rank(void **state)
{
    struct fake_log f;
    struct darshan_record *r;
    struct job_metrics m;

    (void)state;
    fake_init(&f);
    r = fake_rec(&f, LAYER_POSIX, 3, 1, "/a", "/");
    set_times(r, 0.5, 0.25, 0.25);
    r = fake_rec(&f, LAYER_POSIX, 1, 2, "/b", "/");
    set_times(r, 0.25, 0.25, 0.5);
    metrics_of(&f.log, NULL, &m);
    assert_rel(m.t_um, 0.5, 0.0); /* rank 1 */
    assert_rel(m.t_urw, 0.5, 0.0);
    job_metrics_clear(&m);
}

/* ---- shared files ----------------------------------------------------------------- */

static void shared_time_is_open_to_last_io(void **state)
{
    struct fake_log f;
    struct darshan_record *r;
    struct job_metrics m;
    struct darshan_log *log;

    (void)state;
    fake_init(&f);
    r = fake_rec(&f, LAYER_POSIX, -1, 1, "/a", "/");
    set_io(r, 2, 1, 10, 10);
    set_stamps(r, 1.0, 1.5, 3.0, 1.25, 2.5);
    r->slowest_rank_time = 1.5;
    r = fake_rec(&f, LAYER_POSIX, -1, 2, "/b", "/");
    set_io(r, 0, 1, 0, 10);
    set_stamps(r, 0.5, 0, 0, 2.0, 4.0);
    /* opened and closed only: no I/O, no share of T^S */
    r = fake_rec(&f, LAYER_POSIX, -1, 3, "/c", "/");
    set_stamps(r, 0.125, 0, 0, 0, 0);
    r->slowest_rank_time = 0.25;
    metrics_of(&f.log, NULL, &m);
    assert_rel(m.t_s, (3.0 - 1.0) + (4.0 - 0.5), 1e-12);
    assert_rel(m.t_s_span, 4.0 - 0.5, 1e-12);
    assert_rel(m.t_s_slowest, 1.75, 1e-12);
    assert_int_equal(m.n_shared_files, 3);
    job_metrics_clear(&m);

    /* release_x86_64_3.5.0 by hand from its text: MPI-IO read end 0.049863 - open
     * 0.004006 (its --perf no longer prints time_by_open_lastio) */
    log = parse_shared("release_x86_64_3.5.0/parser.txt");
    metrics_of(log, NULL, &m);
    assert_rel(m.t_s, 0.049863 - 0.004006, 1e-12);
    assert_rel(m.t, m.t_um + m.t_urw + m.t_s, 1e-15);
    job_metrics_clear(&m);
    darshan_log_free(log);
}

/* ---- identity, groups, run time ------------------------------------------------------
 */

static void run_time_follows_the_log_format(void **state)
{
    struct fake_log f;
    struct job_metrics m;

    (void)state;
    fake_init(&f);
    metrics_of(&f.log, NULL, &m);
    assert_rel(m.t_j, 12.2385, 0.0); /* 3.41: the header's run time */
    f.log.log_version = 3.21;
    metrics_of(&f.log, NULL, &m);
    assert_rel(m.t_j, 12.0, 0.0); /* older: end - start, not end - start + 1 */
}

static void identity_and_group_of_release_3_5_0(void **state)
{
    struct darshan_log *log = parse_shared("release_x86_64_3.5.0/parser.txt");
    struct job_metrics m;
    struct hash128 h;
    char hex[33];
    static const char fields[] = "3171794\x1f"
                                 "30146\x1f"
                                 "1762569885\x1f"
                                 "1762569885\x1f"
                                 "4\x1f"
                                 "/home/wkliao/Darshan/TEST/mpi-io-test -f "
                                 "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat";

    (void)state;
    metrics_of(log, NULL, &m);
    assert_string_equal(m.executable, "mpi-io-test");
    /* 67108864 bytes: bin 99 (1.2^98 = 5.7e7 <= v < 1.2^99); one file of each kind */
    assert_int_equal(m.eta_read, 67108864);
    assert_int_equal(m.eta_write, 67108864 + 322);
    assert_string_equal(m.group_key, "30146|mpi-io-test|4|99|99|1|1");
    hash128_init(&h);
    hash128_update(&h, m.group_key, strlen(m.group_key));
    hash128_hex(&h, hex);
    hex[16] = '\0';
    assert_string_equal(m.group_id, hex);
    hash128_init(&h);
    hash128_update(&h, fields, sizeof fields - 1);
    hash128_hex(&h, hex);
    assert_string_equal(m.job_key, hex);
    assert_rel(m.t_j, 0.0513, 0.0);
    job_metrics_clear(&m);
    darshan_log_free(log);
}

static void executable_is_the_basename_of_the_first_token(void **state)
{
    struct fake_log f;
    struct job_metrics m;

    (void)state;
    fake_init(&f);
    snprintf(f.exe, sizeof f.exe, "  ./src/ior -a HDF5");
    metrics_of(&f.log, NULL, &m);
    assert_string_equal(m.executable, "ior");
    snprintf(f.exe, sizeof f.exe, "407752450"); /* anonymized: as it is */
    metrics_of(&f.log, NULL, &m);
    assert_string_equal(m.executable, "407752450");
    assert_string_equal(m.group_key, "4321|407752450|4|0|0|0|0");
    snprintf(f.exe, sizeof f.exe, "/usr/bin//");
    metrics_of(&f.log, NULL, &m);
    assert_string_equal(m.executable, "bin");
    snprintf(f.exe, sizeof f.exe, "/ x");
    metrics_of(&f.log, NULL, &m);
    assert_string_equal(m.executable, "/");
    snprintf(f.exe, sizeof f.exe, "%s", "");
    metrics_of(&f.log, NULL, &m);
    assert_string_equal(m.executable, "");
}

static void a_log_without_records_has_no_io(void **state)
{
    struct darshan_log *log = parse_shared("empty_log/parser.txt");
    struct job_metrics m;

    (void)state;
    metrics_of(log, NULL, &m);
    assert_int_equal(m.n_windows, 0);
    assert_null(m.windows);
    assert_rel(m.t_fr, -1, 0);
    assert_rel(m.t_fw, -1, 0);
    assert_rel(m.t, 0, 0);
    assert_int_equal(m.n_unique_files + m.n_shared_files, 0);
    assert_string_equal(m.group_key, "1000|mpi-io-test|4|0|0|0|0");
    job_metrics_clear(&m);
    darshan_log_free(log);
}

static void null_arguments_are_invalid(void **state)
{
    struct job_metrics m;
    struct fake_log f;
    struct error err = {0};

    (void)state;
    fake_init(&f);
    assert_int_equal(ingest_job_metrics(NULL, NULL, &m, &err), STATUS_INVALID);
    assert_int_equal(err.code, STATUS_INVALID);
    assert_int_equal(ingest_job_metrics(&f.log, NULL, NULL, NULL), STATUS_INVALID);
    job_metrics_clear(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_bin_of_known_values),
        cmocka_unit_test(size_bin_agrees_with_the_formula_on_small_integers),
        cmocka_unit_test(fs_map_takes_the_longest_prefix_on_component_boundaries),
        cmocka_unit_test(fs_map_root_matches_every_absolute_path),
        cmocka_unit_test(fs_map_refuses_empty_names),
        cmocka_unit_test(each_file_counts_one_layer),
        cmocka_unit_test(mpiio_windows_only_without_a_lower_layer),
        cmocka_unit_test(mpiio_over_posix_counts_once_and_stdio_alone_counts),
        cmocka_unit_test(operations_without_timestamps_get_no_window),
        cmocka_unit_test(lab_windows_match_the_recorded_io_intervals),
        cmocka_unit_test(unique_times_match_darshan_perf),
        cmocka_unit_test(slowest_rank_matches_darshan_perf_per_module),
        cmocka_unit_test(ties_go_to_the_lowest_rank),
        cmocka_unit_test(shared_time_is_open_to_last_io),
        cmocka_unit_test(run_time_follows_the_log_format),
        cmocka_unit_test(identity_and_group_of_release_3_5_0),
        cmocka_unit_test(executable_is_the_basename_of_the_first_token),
        cmocka_unit_test(a_log_without_records_has_no_io),
        cmocka_unit_test(null_arguments_are_invalid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
