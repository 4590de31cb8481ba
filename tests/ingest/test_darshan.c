/* test_darshan.c: the darshan-parser text reader on the real logs and on bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A complete header, regions and mount table of 17 lines; with one BANNER after it
 * the first record line is line 21. */
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
    "# POSIX module: 149 bytes (compressed), ver=4\n"                                    \
    "# mount entry:\t/scratch\tlustre\n"                                                 \
    "# mount entry:\t/\text4\n"                                                          \
    "\n"                                                                                 \
    "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs "  \
    "type>\n"

/* The three banner lines of a module section: lines 18 to 20 after HEADER. */
#define BANNER(mod)                                                                      \
    "# *******************************************************\n"                        \
    "# " mod " module data\n"                                                            \
    "# *******************************************************\n"

#define MPIIO_BANNER BANNER("MPI-IO")

#define FIRST_BODY_LINE 21

/* A POSIX record of rank 1 with every counter the metrics use: 15 lines. */
#define POSIX_RECORD                                                                     \
    "POSIX\t1\t77\tPOSIX_OPENS\t2\t/scratch/a\t/scratch\tlustre\n"                       \
    "POSIX\t1\t77\tPOSIX_READS\t3\t/scratch/a\t/scratch\tlustre\n"                       \
    "POSIX\t1\t77\tPOSIX_WRITES\t5\t/scratch/a\t/scratch\tlustre\n"                      \
    "POSIX\t1\t77\tPOSIX_BYTES_READ\t2385\t/scratch/a\t/scratch\tlustre\n"               \
    "POSIX\t1\t77\tPOSIX_BYTES_WRITTEN\t4770\t/scratch/a\t/scratch\tlustre\n"            \
    "POSIX\t1\t77\tPOSIX_F_OPEN_START_TIMESTAMP\t0.125000\t/scratch/a\t/"                \
    "scratch\tlustre\n"                                                                  \
    "POSIX\t1\t77\tPOSIX_F_READ_START_TIMESTAMP\t1.500000\t/scratch/a\t/"                \
    "scratch\tlustre\n"                                                                  \
    "POSIX\t1\t77\tPOSIX_F_WRITE_START_TIMESTAMP\t0.250000\t/scratch/a\t/"               \
    "scratch\tlustre\n"                                                                  \
    "POSIX\t1\t77\tPOSIX_F_READ_END_TIMESTAMP\t2.385000\t/scratch/a\t/scratch\tlustre\n" \
    "POSIX\t1\t77\tPOSIX_F_WRITE_END_TIMESTAMP\t1.000000\t/scratch/a\t/"                 \
    "scratch\tlustre\n"                                                                  \
    "POSIX\t1\t77\tPOSIX_F_CLOSE_END_TIMESTAMP\t2.400000\t/scratch/a\t/"                 \
    "scratch\tlustre\n"                                                                  \
    "POSIX\t1\t77\tPOSIX_F_READ_TIME\t0.300000\t/scratch/a\t/scratch\tlustre\n"          \
    "POSIX\t1\t77\tPOSIX_F_WRITE_TIME\t0.600000\t/scratch/a\t/scratch\tlustre\n"         \
    "POSIX\t1\t77\tPOSIX_F_META_TIME\t0.015000\t/scratch/a\t/scratch\tlustre\n"          \
    "POSIX\t1\t77\tPOSIX_F_SLOWEST_RANK_TIME\t0.900000\t/scratch/a\t/scratch\tlustre\n"

static struct darshan_log sentinel;

static enum status parse_text(const char *text, struct darshan_log **log,
                              struct error *err)
{
    FILE *fp = tmpfile();
    enum status rc;

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    rewind(fp);
    *log = &sentinel; /* must come back NULL on error */
    rc = ingest_darshan_parse(fp, "input.txt", log, err);
    fclose(fp);
    return rc;
}

static enum status parse_path(const char *path, struct darshan_log **log,
                              struct error *err)
{
    FILE *fp = fopen(path, "r");
    enum status rc;

    if (fp == NULL)
        fail_msg("cannot open %s", path);
    rc = ingest_darshan_parse(fp, path, log, err);
    fclose(fp);
    return rc;
}

/* Asserts that text fails with STATUS_PARSE at line with exactly msg. */
static void expect_parse_error(const char *text, long line, const char *msg)
{
    struct darshan_log *log;
    struct error err = {0};

    assert_int_equal(parse_text(text, &log, &err), STATUS_PARSE);
    assert_null(log);
    assert_int_equal(err.code, STATUS_PARSE);
    assert_string_equal(err.file, "input.txt");
    assert_string_equal(err.msg, msg);
    assert_int_equal(err.line, line);
}

static struct darshan_log *parse_shared(const char *rel)
{
    char path[4096];
    struct darshan_log *log = NULL;
    struct error err = {0};

    snprintf(path, sizeof path, "%s/darshan/%s", testutil_shared_data(), rel);
    if (parse_path(path, &log, &err) != STATUS_OK)
        fail_msg("%s:%ld: %s", path, err.line, err.msg);
    return log;
}

static const struct darshan_record *find_record(const struct darshan_log *log,
                                                enum ingest_layer layer, int64_t rank,
                                                uint64_t id)
{
    for (size_t i = 0; i < log->n_records; i++) {
        if (log->records[i].layer == layer && log->records[i].rank == rank &&
            log->records[i].record_id == id)
            return &log->records[i];
    }
    fail_msg("no record (%d, %lld, %llu)", (int)layer, (long long)rank,
             (unsigned long long)id);
    return NULL;
}

/* ---- the real logs ------------------------------------------------------------- */

static void shared_logs_all_parse_the_two_incomplete_ones_flagged(void **state)
{
    char dir[4096];
    DIR *d;
    const struct dirent *e;
    int ok = 0, incomplete = 0;

    (void)state;
    snprintf(dir, sizeof dir, "%s/darshan", testutil_shared_data());
    d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[8192];
        struct darshan_log *log = NULL;
        struct error err = {0};
        FILE *fp;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/parser.txt", dir, e->d_name);
        fp = fopen(path, "r");
        if (fp == NULL)
            continue; /* README.md */
        if (ingest_darshan_parse(fp, path, &log, &err) != STATUS_OK)
            fail_msg("%s:%ld: %s", path, err.line, err.msg);
        fclose(fp);
        ok++;
        assert_true(log->nprocs >= 1);
        /* darshan-parser stopped after these banners (see their parser.stderr.txt);
         * imbalanced_io's region table lists three modules after POSIX */
        if (strcmp(e->d_name, "imbalanced_io") == 0) {
            incomplete++;
            assert_string_equal(log->incomplete_modules, "POSIX,MPI-IO,LUSTRE,STDIO");
            assert_true(log->incomplete_records);
            assert_int_equal(log->n_records, 0);
        } else if (strcmp(e->d_name, "partial_data_stdio") == 0) {
            incomplete++;
            assert_string_equal(log->incomplete_modules, "STDIO");
            assert_true(log->incomplete_records);
            assert_true(log->n_records > 0); /* POSIX and MPI-IO came before the cut */
        } else {
            if (log->incomplete_modules != NULL)
                fail_msg("%s: incomplete %s", path, log->incomplete_modules);
            assert_false(log->incomplete_records);
        }
        darshan_log_free(log);
    }
    closedir(d);
    assert_int_equal(ok, 39);
    assert_int_equal(incomplete, 2);
}

static void lab_logs_all_parse_as_format_3_41(void **state)
{
    char pattern[4096];
    glob_t g;
    unsigned long jobs_seen = 0;

    (void)state;
    snprintf(pattern, sizeof pattern, "%s/lab/run1_queue_depth/darshan/*.parser.txt",
             testutil_shared_data());
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 30);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct darshan_log *log = NULL;
        struct error err = {0};
        long job;

        if (parse_path(g.gl_pathv[i], &log, &err) != STATUS_OK)
            fail_msg("%s:%ld: %s", g.gl_pathv[i], err.line, err.msg);
        assert_rel(log->log_version, 3.41, 1e-12);
        assert_int_equal(log->nprocs, 1);
        /* one data file (POSIX) and <STDOUT> (STDIO); DXT and HEATMAP are skipped */
        assert_int_equal(log->n_records, 2);
        assert_true(log->n_skipped_module > 0);
        job = strtol(log->jobid, NULL, 10);
        assert_true(job >= 1001 && job <= 1030);
        jobs_seen |= 1ul << (job - 1001);
        darshan_log_free(log);
    }
    assert_int_equal(jobs_seen, (1ul << 30) - 1);
    globfree(&g);
}

static void header_of_release_3_5_0_matches_its_text(void **state)
{
    struct darshan_log *log = parse_shared("release_x86_64_3.5.0/parser.txt");

    (void)state;
    assert_rel(log->log_version, 3.41, 1e-12);
    assert_string_equal(log->exe, "/home/wkliao/Darshan/TEST/mpi-io-test -f "
                                  "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat");
    assert_int_equal(log->uid, 30146);
    assert_string_equal(log->jobid, "3171794");
    assert_int_equal(log->start_time_s, 1762569885);
    assert_int_equal(log->end_time_s, 1762569885);
    assert_int_equal(log->nprocs, 4);
    assert_rel(log->run_time_s, 0.0513, 1e-12);
    assert_int_equal(log->n_mounts, 35);
    assert_string_equal(log->mount_points[0], "/var/opt/cray/pe/pe_images/nvidia-24.11");
    assert_string_equal(log->mount_fs_types[0], "squashfs");
    assert_string_equal(log->mount_points[34], "/");
    assert_string_equal(log->mount_fs_types[34], "overlay");
    assert_int_equal(log->n_lines, 417);
    /* 11 LUSTRE (with "raid0" and "N/A" values) and 27 HEATMAP lines */
    assert_int_equal(log->n_skipped_module, 38);
    assert_int_equal(log->n_records, 3);
    darshan_log_free(log);
}

static void headers_of_older_and_odd_logs_match_their_text(void **state)
{
    struct darshan_log *log = parse_shared("skew_app/parser.txt");

    (void)state;
    assert_rel(log->log_version, 3.21, 1e-12);
    assert_string_equal(log->exe, "2075454093"); /* anonymized */
    assert_int_equal(log->uid, 1471688874);
    assert_string_equal(log->jobid, "75746776");
    assert_int_equal(log->start_time_s, 1602526613);
    assert_int_equal(log->end_time_s, 1602564129);
    assert_int_equal(log->nprocs, 65536);
    assert_rel(log->run_time_s, 37517.0, 1e-12); /* end - start + 1 before 3.41 */
    darshan_log_free(log);

    log = parse_shared("empty_log/parser.txt");
    assert_int_equal(log->n_records, 0);
    assert_int_equal(log->nprocs, 4);
    assert_int_equal(log->start_time_s, 1677270046);
    darshan_log_free(log);
}

static void records_of_release_3_5_0_match_their_counters(void **state)
{
    struct darshan_log *log = parse_shared("release_x86_64_3.5.0/parser.txt");
    const struct darshan_record *r;

    (void)state;
    /* the record id is above INT64_MAX */
    r = find_record(log, LAYER_POSIX, -1, UINT64_C(9347516096890457488));
    assert_string_equal(r->file_name, "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat");
    assert_string_equal(r->mount_point, "/home");
    assert_string_equal(r->fs_type, "lustre");
    assert_int_equal(r->opens, 16);
    assert_int_equal(r->reads, 4);
    assert_int_equal(r->writes, 4);
    assert_int_equal(r->bytes_read, 67108864);
    assert_int_equal(r->bytes_written, 67108864);
    assert_rel(r->open_start, 0.005118, 1e-12);
    assert_rel(r->read_start, 0.038019, 1e-12);
    assert_rel(r->read_end, 0.049856, 1e-12);
    assert_rel(r->write_start, 0.007496, 1e-12);
    assert_rel(r->write_end, 0.035942, 1e-12);
    assert_rel(r->close_end, 0.049894, 1e-12);
    assert_rel(r->read_time, 0.045976, 1e-12);
    assert_rel(r->write_time, 0.078341, 1e-12);
    assert_rel(r->meta_time, 0.005194, 1e-12);
    assert_rel(r->slowest_rank_time, 0.040996, 1e-12);

    r = find_record(log, LAYER_MPIIO, -1, UINT64_C(9347516096890457488));
    assert_int_equal(r->opens, 8);
    assert_int_equal(r->reads, 4);
    assert_int_equal(r->writes, 4);
    assert_rel(r->open_start, 0.004006, 1e-12);
    assert_rel(r->meta_time, 0.018377, 1e-12);
    assert_rel(r->slowest_rank_time, 0.044173, 1e-12);

    /* STDIO prints META_TIME before the timestamps: found by name all the same */
    r = find_record(log, LAYER_STDIO, 0, UINT64_C(15920181672442173319));
    assert_string_equal(r->file_name, "<STDOUT>");
    assert_string_equal(r->mount_point, "UNKNOWN");
    assert_int_equal(r->writes, 6);
    assert_int_equal(r->bytes_written, 322);
    assert_rel(r->write_time, 0.000012, 1e-12);
    assert_rel(r->write_start, 0.049935, 1e-12);
    assert_rel(r->write_end, 0.049974, 1e-12);
    assert_rel(r->open_start, 0.0, 0.0);
    darshan_log_free(log);
}

static void mpiio_counts_add_all_four_kinds(void **state)
{
    static const char text[] = HEADER MPIIO_BANNER
        "MPI-IO\t-1\t5\tMPIIO_INDEP_OPENS\t3\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_COLL_OPENS\t4\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_INDEP_READS\t1\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_COLL_READS\t20\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_SPLIT_READS\t300\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_NB_READS\t4000\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_INDEP_WRITES\t2\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_COLL_WRITES\t-1\tf\t/\text4\n" /* not collected */
        "MPI-IO\t-1\t5\tMPIIO_SPLIT_WRITES\t30\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_NB_WRITES\t0\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_BYTES_READ\t1\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_BYTES_WRITTEN\t2\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_OPEN_START_TIMESTAMP\t0.1\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_READ_START_TIMESTAMP\t0.2\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_READ_END_TIMESTAMP\t0.3\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_WRITE_START_TIMESTAMP\t0.4\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_WRITE_END_TIMESTAMP\t0.5\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_CLOSE_END_TIMESTAMP\t0.6\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_READ_TIME\t0.01\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_WRITE_TIME\t0.02\tf\t/\text4\n"
        "MPI-IO\t-1\t5\tMPIIO_F_META_TIME\t0.03\tf\t/\text4\n";
    struct darshan_log *log;
    struct error err = {0};

    (void)state;
    assert_int_equal(parse_text(text, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 1);
    assert_int_equal(log->records[0].layer, LAYER_MPIIO);
    assert_int_equal(log->records[0].reads, 4321);
    assert_int_equal(log->records[0].writes, 32);
    assert_int_equal(log->records[0].opens, 7);
    /* no MPIIO_F_SLOWEST_RANK_TIME line: absent */
    assert_rel(log->records[0].slowest_rank_time, -1.0, 0.0);
    darshan_log_free(log);
}

static void a_lone_counter_line_is_a_truncated_record(void **state)
{
    static const char text[] = HEADER BANNER("POSIX") POSIX_RECORD
        "STDIO\t0\t9\tSTDIO_OPENS\t1\t<STDOUT>\tUNKNOWN\tUNKNOWN\n";

    (void)state;
    expect_parse_error(
        text, FIRST_BODY_LINE + 15,
        "expected counter STDIO_READS in the STDIO record that starts here "
        "(the log is truncated?), got none");
}

static void a_record_split_over_the_file_is_one_record(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "POSIX\t1\t77\tPOSIX_OPENS\t2\t/scratch/a\t/scratch\tlustre\n"
                 "HEATMAP\t0\t9\tHEATMAP_READ_BIN_0\t0\theatmap:"
                 "POSIX\tUNKNOWN\tUNKNOWN\n" POSIX_RECORD;
    struct darshan_log *log;
    struct error err = {0};

    (void)state;
    assert_int_equal(parse_text(text, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 1);
    assert_int_equal(log->n_skipped_module, 1);
    assert_int_equal(log->records[0].opens, 2);
    darshan_log_free(log);
}

static void a_hand_made_record_parses(void **state)
{
    static const char text[] =
        HEADER BANNER("POSIX") POSIX_RECORD POSIX_RECORD; /* merged */
    struct darshan_log *log;
    struct error err = {0};
    const struct darshan_record *r;

    (void)state;
    assert_int_equal(parse_text(text, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 1);
    assert_int_equal(log->n_lines, 20 + 30);
    assert_string_equal(log->path, "input.txt");
    assert_string_equal(log->exe, "/opt/app/bin/solver -n 2.385");
    assert_int_equal(log->n_mounts, 2);
    assert_string_equal(log->mount_points[0], "/scratch");
    assert_string_equal(log->mount_fs_types[1], "ext4");
    r = find_record(log, LAYER_POSIX, 1, 77);
    assert_int_equal(r->reads, 3);
    assert_int_equal(r->bytes_written, 4770);
    assert_rel(r->read_end, 2.385, 1e-12);
    assert_rel(r->slowest_rank_time, 0.9, 1e-12);
    darshan_log_free(log);
}

/* ---- incomplete logs --------------------------------------------------------- */

/* Parses text, which must succeed with incomplete_modules == modules. */
static struct darshan_log *expect_incomplete(const char *text, const char *modules,
                                             bool records)
{
    struct darshan_log *log = NULL;
    struct error err = {0};

    if (parse_text(text, &log, &err) != STATUS_OK)
        fail_msg("line %ld: %s", err.line, err.msg);
    assert_non_null(log->incomplete_modules);
    assert_string_equal(log->incomplete_modules, modules);
    assert_int_equal(log->incomplete_records, records);
    return log;
}

static void banner_without_records_is_incomplete(void **state)
{
    static const char text[] = HEADER BANNER("MPI-IO") "\n" BANNER("POSIX") POSIX_RECORD;
    struct darshan_log *log;

    (void)state;
    /* the MPI-IO banner is followed by another banner: darshan-parser's mark of a
     * module whose data is incomplete; the POSIX records after it still load */
    log = expect_incomplete(text, "MPI-IO", true);
    assert_int_equal(log->n_records, 1);
    assert_int_equal(log->records[0].layer, LAYER_POSIX);
    darshan_log_free(log);
}

static void banner_at_the_end_without_records_is_incomplete(void **state)
{
    struct darshan_log *log;

    (void)state;
    log = expect_incomplete(HEADER BANNER("POSIX") "\n", "POSIX", true);
    assert_int_equal(log->n_records, 0);
    assert_int_equal(log->nprocs, 4);
    darshan_log_free(log);
}

static void modules_listed_after_the_cut_are_incomplete_too(void **state)
{
    /* darshan-parser exits at the cut: what the region table lists after the cut
     * module was never printed (DXT_* and APMPI never are: they stay out) */
    static const char text[] =
        "# darshan log version: 3.21\n# exe: a.out\n# uid: 1\n# jobid: 2\n"
        "# start_time: 10\n# end_time: 11\n# nprocs: 4\n# run time: 2.0000\n\n"
        "# log file regions\n"
        "# HEATMAP module: 400 bytes (compressed), ver=1\n"
        "# POSIX module: 400 bytes (compressed), ver=4\n"
        "# DXT_POSIX module: 99 bytes (compressed), ver=1\n"
        "# LUSTRE module: 99 bytes (compressed), ver=1\n"
        "# APMPI module: 99 bytes (compressed), ver=1\n"
        "# STDIO module: 99 bytes (compressed), ver=2\n" BANNER("POSIX");
    struct darshan_log *log;

    (void)state;
    log = expect_incomplete(text, "POSIX,LUSTRE,STDIO", true);
    darshan_log_free(log);
}

static void an_incomplete_module_of_no_layer_keeps_the_records(void **state)
{
    static const char text[] = HEADER BANNER("POSIX") POSIX_RECORD
        "\n# *WARNING*: The HEATMAP module contains incomplete data!\n";
    struct darshan_log *log;

    (void)state;
    log = expect_incomplete(text, "HEATMAP", false);
    assert_int_equal(log->n_records, 1);
    darshan_log_free(log);
}

static void a_module_section_without_records_is_legitimately_empty(void **state)
{
    static const char text[] =
        HEADER BANNER("POSIX") "\n# description of POSIX counters:\n"
                               "#   POSIX_*: posix operation counts.\n"
                               "#<module>\t<rank>\t<record "
                               "id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs "
                               "type>\n" BANNER("STDIO") "\n#<module>\t<rank>\t<record "
                                                         "id>\t<counter>\t<value>\t<file "
                                                         "name>\t<mount pt>\t<fs type>\n";
    struct darshan_log *log;
    struct error err = {0};

    (void)state;
    assert_int_equal(parse_text(text, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 0);
    darshan_log_free(log);
}

static void incomplete_note_is_incomplete(void **state)
{
    static const char text[] = HEADER BANNER("POSIX") POSIX_RECORD
        "\n# *WARNING*: The STDIO module contains incomplete data!\n";
    struct darshan_log *log;

    (void)state;
    log = expect_incomplete(text, "STDIO", true);
    assert_int_equal(log->n_records, 1);
    darshan_log_free(log);
}

static void modules_listed_without_banner_are_not_incomplete(void **state)
{
    /* APMPI/APXC: "no log utility handlers" (stderr only); DXT: darshan-dxt-parser's */
    static const char text[] =
        "# darshan log version: 3.21\n# exe: a.out\n# uid: 1\n# jobid: 2\n"
        "# start_time: 10\n# end_time: 11\n# nprocs: 4\n# run time: 2.0000\n\n"
        "# log file regions\n"
        "# APMPI module: 400 bytes (compressed), ver=1\n"
        "# DXT_POSIX module: 99 bytes (compressed), ver=1\n"
        "# APXC module: 99 bytes (compressed), ver=1\n"
        "\n# *******************************************\n"
        "# HEATMAP module data\n"
        "# *******************************************\n"
        "HEATMAP\t0\t1659\tHEATMAP_F_BIN_WIDTH_SECONDS\t0.100000\theatmap:"
        "POSIX\tUNKNOWN\tUNKNOWN\n"
        "LUSTRE\t-1\t18446744073709551615\tLUSTRE_COMP1_POOL_NAME\tN/A\t/l/f\t/"
        "l\tlustre\n"
        "LUSTRE\t-1\t18446744073709551615\tLUSTRE_COMP1_STRIPE_PATTERN\traid0\t/l/f\t/"
        "l\tlustre\n";
    struct darshan_log *log;
    struct error err = {0};

    (void)state;
    assert_int_equal(parse_text(text, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 0);
    assert_int_equal(log->n_skipped_module, 3);
    assert_rel(log->log_version, 3.21, 1e-12);
    darshan_log_free(log);
}

/* ---- malformed input: every error names its line ---------------------------------- */

static void wrong_field_count_reports_its_line(void **state)
{
    static const char text[] =
        HEADER BANNER("POSIX") POSIX_RECORD "POSIX\t1\t77\tPOSIX_OPENS\t2\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE + 15,
                       "expected 8 tab-separated fields, got 5");
}

static void too_many_fields_report_their_line(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "POSIX\t1\t77\tPOSIX_OPENS\t2\t/scratch/a\t/scratch\tlustre\textra\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE, "expected 8 tab-separated fields, got 9");
}

static void non_numeric_value_reports_its_line(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "POSIX\t1\t77\tPOSIX_OPENS\t2\t/scratch/a\t/scratch\tlustre\n"
                 "POSIX\t1\t77\tPOSIX_READS\tthree\t/scratch/a\t/scratch\tlustre\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE + 1,
                       "expected an integer value for POSIX_READS, got 'three'");
}

static void non_numeric_time_reports_its_line(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "POSIX\t1\t77\tPOSIX_F_META_TIME\tnan\t/scratch/a\t/scratch\tlustre\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE,
                       "expected a number value for POSIX_F_META_TIME, got 'nan'");
}

static void non_numeric_rank_reports_its_line(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "POSIX\tone\t77\tPOSIX_OPENS\t2\t/scratch/a\t/scratch\tlustre\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE,
                       "expected a rank (an integer >= -1) in field 2, got 'one'");
}

static void negative_record_id_reports_its_line(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "LUSTRE\t-1\t-77\tLUSTRE_NUM_STRIPES\t2\t/scratch/a\t/scratch\tlustre\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE,
                       "expected a record id (unsigned 64-bit) in field 3, got '-77'");
}

static void record_id_beyond_64_bits_reports_its_line(void **state)
{
    static const char text[] = HEADER BANNER(
        "POSIX") "POSIX\t1\t18446744073709551616\tPOSIX_OPENS\t2\t/a\t/\text4\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE,
                       "expected a record id (unsigned 64-bit) in field 3, got "
                       "'18446744073709551616'");
}

static void rank_beyond_nprocs_reports_its_line(void **state)
{
    static const char text[] =
        HEADER BANNER("POSIX") "POSIX\t4\t77\tPOSIX_OPENS\t2\t/a\t/\text4\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE, "expected a rank below nprocs (4), got 4");
}

static void missing_start_time_reports_where_the_header_ends(void **state)
{
    static const char text[] = "# darshan log version: 3.41\n"
                               "# exe: a.out\n"
                               "# uid: 1\n"
                               "# jobid: 2\n"
                               "# end_time: 11\n"
                               "# nprocs: 4\n"
                               "# run time: 2.0000\n"
                               "\n"
                               "# log file regions\n";

    (void)state;
    expect_parse_error(
        text, 8, "expected header line '# start_time: ...' before this line, got none");
}

static void bad_header_number_reports_its_line(void **state)
{
    static const char text[] = "# darshan log version: 3.41\n# exe: a.out\n# uid: 1\n"
                               "# jobid: 2\n# start_time: 10\n# end_time: 11\n"
                               "# nprocs: four\n";

    (void)state;
    expect_parse_error(text, 7, "expected an integer for nprocs, got 'four'");
}

static void truncated_line_reports_its_line(void **state)
{
    /* cut in the middle of the value: too few fields */
    static const char text[] =
        HEADER BANNER("POSIX") POSIX_RECORD "POSIX\t1\t78\tPOSIX_OPENS\t2";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE + 15,
                       "expected 8 tab-separated fields, got 5");
}

static void truncated_last_line_is_refused(void **state)
{
    /* cut in the fs type: 8 fields, but darshan-parser always ends its lines */
    static const char text[] =
        HEADER BANNER("POSIX") POSIX_RECORD "POSIX\t1\t78\tPOSIX_OPENS\t2\t/a\t/\text";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE + 15,
                       "expected a complete line ending in a newline, got end of file");
}

static void truncated_record_names_the_missing_counter(void **state)
{
    /* the log ends after the first 9 lines of a record */
    static const char text[] = HEADER BANNER("POSIX") POSIX_RECORD
        "POSIX\t2\t78\tPOSIX_OPENS\t2\t/scratch/b\t/scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_READS\t3\t/scratch/b\t/scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_WRITES\t5\t/scratch/b\t/scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_BYTES_READ\t2385\t/scratch/b\t/scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_BYTES_WRITTEN\t4770\t/scratch/b\t/scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_F_OPEN_START_TIMESTAMP\t0.125000\t/scratch/b\t/"
        "scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_F_READ_START_TIMESTAMP\t1.500000\t/scratch/b\t/"
        "scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_F_WRITE_START_TIMESTAMP\t0.250000\t/scratch/b\t/"
        "scratch\tlustre\n"
        "POSIX\t2\t78\tPOSIX_F_READ_END_TIMESTAMP\t2.385000\t/scratch/b\t/"
        "scratch\tlustre\n";

    (void)state;
    expect_parse_error(text, FIRST_BODY_LINE + 15,
                       "expected counter POSIX_F_WRITE_END_TIMESTAMP in the POSIX record "
                       "that starts here (the log is truncated?), got none");
}

static void darshan_2_text_is_refused(void **state)
{
    (void)state;
    expect_parse_error(
        "# darshan log version: 2.06\n# size of file statistics: 1328 bytes\n", 1,
        "expected darshan log version 3.x or later, got '2.06'");
}

static void binary_input_is_refused(void **state)
{
    static const char text[] = "\x1f\x8b\x08\x00\x01\n";
    FILE *fp = tmpfile();
    struct darshan_log *log = NULL;
    struct error err = {0};

    (void)state;
    assert_non_null(fp);
    /* a NUL byte inside the first line */
    fwrite(text, 1, 3, fp);
    fputc('\0', fp);
    fwrite(text + 3, 1, 3, fp);
    rewind(fp);
    assert_int_equal(ingest_darshan_parse(fp, "x.darshan", &log, &err), STATUS_PARSE);
    assert_null(log);
    assert_int_equal(err.line, 1);
    assert_string_equal(err.msg,
                        "expected text, got a NUL byte (a binary .darshan file?)");
    fclose(fp);
}

static void empty_input_is_refused(void **state)
{
    (void)state;
    expect_parse_error("", 0, "empty file");
    expect_parse_error("\n", 1,
                       "expected header line '# darshan log version: ...' before this "
                       "line, got none");
}

/* ---- implausible values (issue 15): the hand-made log with one thing changed ---- */

#define GOOD_LOG HEADER BANNER("POSIX") POSIX_RECORD

/* GOOD_LOG with its first from replaced by to (malloc'd). */
static char *variant(const char *from, const char *to)
{
    static const char good[] = GOOD_LOG;
    const char *at = strstr(good, from);
    size_t head, n;
    char *out;

    assert_non_null(at);
    head = (size_t)(at - good);
    n = head + strlen(to) + strlen(at + strlen(from)) + 1;
    out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)head, good, to, at + strlen(from));
    return out;
}

static void expect_variant_error(const char *from, const char *to, long line,
                                 const char *msg)
{
    char *text = variant(from, to);

    expect_parse_error(text, line, msg);
    free(text);
}

static struct darshan_log *parse_variant(const char *from, const char *to)
{
    char *text = variant(from, to);
    struct darshan_log *log = NULL;
    struct error err = {0};

    if (parse_text(text, &log, &err) != STATUS_OK)
        fail_msg("%ld: %s", err.line, err.msg);
    free(text);
    return log;
}

static void uid_beyond_32_bits_reports_its_line(void **state)
{
    struct darshan_log *log;

    (void)state;
    expect_variant_error("# uid: 4321", "# uid: 9223372036854775808", 4,
                         "expected a uid from 0 to 4294967295, got "
                         "'9223372036854775808'");
    log = parse_variant("# uid: 4321", "# uid: 4294967295");
    assert_true(log->uid == 4294967295u);
    darshan_log_free(log);
}

static void header_key_given_twice_reports_its_line(void **state)
{
    struct darshan_log *log;

    (void)state;
    expect_variant_error("# jobid: 98765\n", "# jobid: 98765\n# jobid: 98766\n", 6,
                         "expected header key 'jobid' once, got it a second time (line "
                         "5 gave it first)");
    expect_variant_error("# compression method: ZLIB\n",
                         "# compression method: ZLIB\n# compression method: BZIP2\n", 3,
                         "expected header key 'compression method' once, got it a "
                         "second time");
    /* darshan-parser repeats "# metadata:" (one per key) and "# mount entry:" */
    log = parse_variant("# metadata: lib_ver = 3.5.0\n",
                        "# metadata: lib_ver = 3.5.0\n# metadata: h = romio=true\n");
    assert_int_equal(log->n_mounts, 2);
    darshan_log_free(log);
}

static void end_before_start_reports_the_end_time_line(void **state)
{
    (void)state;
    expect_variant_error("# end_time: 1700000012", "# end_time: 1699999999", 7,
                         "expected end_time >= start_time (1700000000), got 1699999999");
}

static void start_after_year_9999_reports_its_line(void **state)
{
    (void)state;
    /* the year 3.2 million */
    expect_variant_error("# start_time: 1700000000", "# start_time: 100000000000000", 6,
                         "expected start_time from 0 to 253402300799 (year 9999), got "
                         "'100000000000000'");
}

static void negative_count_reports_its_line(void **state)
{
    struct darshan_log *log;

    (void)state;
    expect_variant_error("POSIX_READS\t3\t", "POSIX_READS\t-5\t", FIRST_BODY_LINE + 1,
                         "expected POSIX_READS >= 0 or -1 (not collected), got -5");
    /* -1: not collected, left out of the sums (POSIX has one part: 0 remains) */
    log = parse_variant("POSIX_READS\t3\t", "POSIX_READS\t-1\t");
    assert_int_equal(log->records[0].reads, 0);
    darshan_log_free(log);
}

static void timestamp_past_the_run_time_reports_its_line(void **state)
{
    struct darshan_log *log;

    (void)state;
    /* run time 12.2385, end - start + 1 = 13: up to 15 s */
    expect_variant_error("READ_END_TIMESTAMP\t2.385000", "READ_END_TIMESTAMP\t777.5",
                         FIRST_BODY_LINE + 8,
                         "expected POSIX_F_READ_END_TIMESTAMP of at most 15 s (the run "
                         "time and 2 s more), got 777.5");
    log = parse_variant("READ_END_TIMESTAMP\t2.385000", "READ_END_TIMESTAMP\t14.875");
    assert_rel(log->records[0].read_end, 14.875, 0.0);
    darshan_log_free(log);
}

static void huge_read_time_reports_its_line(void **state)
{
    (void)state;
    expect_variant_error("POSIX_F_READ_TIME\t0.300000", "POSIX_F_READ_TIME\t1e308",
                         FIRST_BODY_LINE + 11,
                         "expected POSIX_F_READ_TIME of at most 15 s (the run time and "
                         "2 s more), got 1e+308");
}

static void negative_time_is_absent_and_flags_the_job(void **state)
{
    struct darshan_log *log;

    (void)state;
    log = parse_variant("POSIX_F_WRITE_TIME\t0.600000", "POSIX_F_WRITE_TIME\t-2.385");
    assert_true(log->negative_time);
    assert_rel(log->records[0].write_time, 0.0, 0.0);
    darshan_log_free(log);
    /* -1 is "not collected": absent, not a negative time */
    log = parse_variant("POSIX_F_WRITE_TIME\t0.600000", "POSIX_F_WRITE_TIME\t-1");
    assert_false(log->negative_time);
    assert_rel(log->records[0].write_time, 0.0, 0.0);
    darshan_log_free(log);
    /* the real case: STDIO_F_WRITE_TIME = -2662.746634 for <STDERR> */
    log = parse_shared("pydarshan_example_vpicio_edison/parser.txt");
    assert_true(log->negative_time);
    for (size_t i = 0; i < log->n_records; i++)
        assert_true(log->records[i].write_time >= 0);
    darshan_log_free(log);
    log = parse_shared("release_x86_64_3.5.0/parser.txt");
    assert_false(log->negative_time);
    darshan_log_free(log);
}

/* text with every from replaced by to (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    char *out, *o;

    for (const char *at = strstr(text, from); at != NULL; at = strstr(at + lf, from))
        n++;
    out = malloc(strlen(text) + n * lt + 1);
    assert_non_null(out);
    o = out;
    for (const char *at; (at = strstr(text, from)) != NULL; text = at + lf) {
        memcpy(o, text, (size_t)(at - text));
        o += at - text;
        memcpy(o, to, lt);
        o += lt;
    }
    strcpy(o, text);
    return out;
}

/* GOOD_LOG's record twice, of ranks 1 and 2 (the second starts 15 lines later), with
 * POSIX_BYTES_READ 2385 replaced by bytes1 and bytes2. */
static char *two_records(const char *bytes1, const char *bytes2)
{
    char from[] = "POSIX_BYTES_READ\t2385\t", to1[64], to2[64];
    char *r1, *r2a, *r2, *out;

    snprintf(to1, sizeof to1, "POSIX_BYTES_READ\t%s\t", bytes1);
    snprintf(to2, sizeof to2, "POSIX_BYTES_READ\t%s\t", bytes2);
    r1 = replace_all(POSIX_RECORD, from, to1);
    r2a = replace_all(POSIX_RECORD, "POSIX\t1\t77\t", "POSIX\t2\t77\t");
    r2 = replace_all(r2a, from, to2);
    out = malloc(strlen(HEADER BANNER("POSIX")) + strlen(r1) + strlen(r2) + 1);
    assert_non_null(out);
    strcpy(out, HEADER BANNER("POSIX"));
    strcat(out, r1);
    strcat(out, r2);
    free(r1);
    free(r2a);
    free(r2);
    return out;
}

static void a_counter_past_its_plausible_ceiling_reports_its_line(void **state)
{
    struct darshan_log *log;

    (void)state;
    /* 2^60 + 1 bytes, and POSIX_BYTES_READ 9e18 (a saturated eta of 9.2 EB) */
    expect_variant_error("POSIX_BYTES_READ\t2385\t",
                         "POSIX_BYTES_READ\t1152921504606846977\t", FIRST_BODY_LINE + 3,
                         "expected POSIX_BYTES_READ of at most 1152921504606846976 "
                         "(iocontend's plausible ceiling), got 1152921504606846977 in "
                         "record 77");
    expect_variant_error("POSIX_READS\t3\t", "POSIX_READS\t1125899906842625\t",
                         FIRST_BODY_LINE + 1,
                         "expected POSIX_READS of at most 1125899906842624 (iocontend's "
                         "plausible ceiling), got 1125899906842625 in record 77");
    /* the ceilings themselves load */
    log = parse_variant("POSIX_BYTES_READ\t2385\t",
                        "POSIX_BYTES_READ\t1152921504606846976\t");
    assert_true(log->records[0].bytes_read == (int64_t)1 << 60);
    darshan_log_free(log);
}

static void a_sum_past_the_plausible_ceiling_names_its_record(void **state)
{
    char *text = two_records("576460752303423489", "576460752303423488");
    char *fine = two_records("576460752303423488", "576460752303423488");
    struct darshan_log *log = NULL;
    struct error err = {0};

    (void)state;
    /* 2^59 + 1 and 2^59: each plausible, their sum one past 2^60 */
    expect_parse_error(text, FIRST_BODY_LINE + 15,
                       "expected the job's POSIX POSIX_BYTES_READ to sum to at most "
                       "1152921504606846976 (iocontend's plausible ceiling), got more at "
                       "the record 77 that starts here");
    assert_int_equal(parse_text(fine, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 2);
    /* and the header lines of the job's times, for the loader's check */
    assert_int_equal(log->start_line, 6);
    assert_int_equal(log->end_line, 7);
    darshan_log_free(log);
    free(text);
    free(fine);
}

static void a_record_past_the_bound_of_records_reports_its_line(void **state)
{
    char *text = two_records("1", "2");
    FILE *fp = tmpfile();
    struct darshan_log *log = &sentinel;
    struct error err = {0};

    (void)state;
    assert_non_null(fp);
    fputs(text, fp);
    rewind(fp);
    assert_int_equal(ingest_darshan_parse_max(fp, "input.txt", 1, &log, &err),
                     STATUS_PARSE);
    assert_null(log);
    assert_int_equal(err.line, FIRST_BODY_LINE + 15);
    assert_string_equal(err.msg, "expected at most 1 records in a job ([ingest] "
                                 "max_job_records), got more: the POSIX record 77 of "
                                 "rank 2 is one too many");
    /* two are within a bound of two */
    rewind(fp);
    assert_int_equal(ingest_darshan_parse_max(fp, "input.txt", 2, &log, &err), STATUS_OK);
    assert_int_equal(log->n_records, 2);
    darshan_log_free(log);
    fclose(fp);
    free(text);
}

static void perf_output_is_refused_with_its_reason(void **state)
{
    char path[4096];
    struct darshan_log *log = NULL;
    struct error err = {0};

    (void)state;
    snprintf(path, sizeof path, "%s/darshan/release_x86_64_3.5.0/parser.perf.txt",
             testutil_shared_data());
    assert_int_equal(parse_path(path, &log, &err), STATUS_PARSE);
    assert_null(log);
    assert_string_equal(err.msg,
                        "expected darshan-parser default output, got --perf output");
}

static void null_arguments_are_invalid(void **state)
{
    struct darshan_log *log = NULL;
    FILE *fp = tmpfile();

    (void)state;
    assert_int_equal(ingest_darshan_parse(NULL, "x", &log, NULL), STATUS_INVALID);
    assert_null(log);
    assert_int_equal(ingest_darshan_parse(fp, "x", NULL, NULL), STATUS_INVALID);
    fclose(fp);
    darshan_log_free(NULL); /* accepted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_logs_all_parse_the_two_incomplete_ones_flagged),
        cmocka_unit_test(a_counter_past_its_plausible_ceiling_reports_its_line),
        cmocka_unit_test(a_sum_past_the_plausible_ceiling_names_its_record),
        cmocka_unit_test(a_record_past_the_bound_of_records_reports_its_line),
        cmocka_unit_test(lab_logs_all_parse_as_format_3_41),
        cmocka_unit_test(header_of_release_3_5_0_matches_its_text),
        cmocka_unit_test(headers_of_older_and_odd_logs_match_their_text),
        cmocka_unit_test(records_of_release_3_5_0_match_their_counters),
        cmocka_unit_test(mpiio_counts_add_all_four_kinds),
        cmocka_unit_test(a_lone_counter_line_is_a_truncated_record),
        cmocka_unit_test(a_record_split_over_the_file_is_one_record),
        cmocka_unit_test(a_hand_made_record_parses),
        cmocka_unit_test(banner_without_records_is_incomplete),
        cmocka_unit_test(banner_at_the_end_without_records_is_incomplete),
        cmocka_unit_test(modules_listed_after_the_cut_are_incomplete_too),
        cmocka_unit_test(an_incomplete_module_of_no_layer_keeps_the_records),
        cmocka_unit_test(a_module_section_without_records_is_legitimately_empty),
        cmocka_unit_test(incomplete_note_is_incomplete),
        cmocka_unit_test(modules_listed_without_banner_are_not_incomplete),
        cmocka_unit_test(wrong_field_count_reports_its_line),
        cmocka_unit_test(too_many_fields_report_their_line),
        cmocka_unit_test(non_numeric_value_reports_its_line),
        cmocka_unit_test(non_numeric_time_reports_its_line),
        cmocka_unit_test(non_numeric_rank_reports_its_line),
        cmocka_unit_test(negative_record_id_reports_its_line),
        cmocka_unit_test(record_id_beyond_64_bits_reports_its_line),
        cmocka_unit_test(rank_beyond_nprocs_reports_its_line),
        cmocka_unit_test(missing_start_time_reports_where_the_header_ends),
        cmocka_unit_test(bad_header_number_reports_its_line),
        cmocka_unit_test(truncated_line_reports_its_line),
        cmocka_unit_test(truncated_last_line_is_refused),
        cmocka_unit_test(truncated_record_names_the_missing_counter),
        cmocka_unit_test(darshan_2_text_is_refused),
        cmocka_unit_test(binary_input_is_refused),
        cmocka_unit_test(empty_input_is_refused),
        cmocka_unit_test(uid_beyond_32_bits_reports_its_line),
        cmocka_unit_test(header_key_given_twice_reports_its_line),
        cmocka_unit_test(end_before_start_reports_the_end_time_line),
        cmocka_unit_test(start_after_year_9999_reports_its_line),
        cmocka_unit_test(negative_count_reports_its_line),
        cmocka_unit_test(timestamp_past_the_run_time_reports_its_line),
        cmocka_unit_test(huge_read_time_reports_its_line),
        cmocka_unit_test(negative_time_is_absent_and_flags_the_job),
        cmocka_unit_test(perf_output_is_refused_with_its_reason),
        cmocka_unit_test(null_arguments_are_invalid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
