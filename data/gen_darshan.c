/* gen_darshan.c: each planned job as darshan-parser 3.5 text of a format 3.41 log. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char columns_help[] =
    "# description of columns:\n"
    "#   <module>: module responsible for this I/O record.\n"
    "#   <rank>: MPI rank.  -1 indicates that the file is shared\n"
    "#      across all processes and statistics are aggregated.\n"
    "#   <record id>: hash of the record's file path\n"
    "#   <counter name> and <counter value>: statistical counters.\n"
    "#      A value of -1 indicates that Darshan could not monitor\n"
    "#      that counter, and its value should be ignored.\n"
    "#   <file name>: full file path for the record.\n"
    "#   <mount pt>: mount point that the file resides on.\n"
    "#   <fs type>: type of file system that the file resides on.\n";

static const char posix_help[] =
    "# description of POSIX counters:\n"
    "#   POSIX_*: posix operation counts.\n"
    "#   READS,WRITES,OPENS,SEEKS,STATS,MMAPS,SYNCS,FILENOS,DUPS are types of "
    "operations.\n"
    "#   POSIX_BYTES_*: total bytes read and written.\n"
    "#   POSIX_*_RANK: rank of the processes that were the fastest and slowest at I/O "
    "(for "
    "shared files).\n"
    "#   POSIX_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.\n"
    "#   POSIX_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.\n"
    "#   POSIX_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata "
    "operations.\n"
    "#   POSIX_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared "
    "files).\n";

static const char mpiio_help[] =
    "# description of MPIIO counters:\n"
    "#   MPIIO_INDEP_*: MPI independent operation counts.\n"
    "#   MPIIO_COLL_*: MPI collective operation counts.\n"
    "#   MPIIO_SPLIT_*: MPI split collective operation counts.\n"
    "#   MPIIO_NB_*: MPI non blocking operation counts.\n"
    "#   READS,WRITES,and OPENS are types of operations.\n"
    "#   MPIIO_BYTES_*: total bytes read and written at MPI-IO layer.\n"
    "#   MPIIO_F_*_START_TIMESTAMP: timestamp of first MPI-IO open/read/write/close.\n"
    "#   MPIIO_F_*_END_TIMESTAMP: timestamp of last MPI-IO open/read/write/close.\n"
    "#   MPIIO_F_READ/WRITE/META_TIME: cumulative time spent in MPI-IO read, write, or "
    "metadata operations.\n"
    "#   MPIIO_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared "
    "files).\n";

static const char stdio_help[] =
    "# description of STDIO counters:\n"
    "#   STDIO_{OPENS|FDOPENS|WRITES|READS|SEEKS|FLUSHES} are types of operations.\n"
    "#   STDIO_BYTES_*: total bytes read and written.\n"
    "#   STDIO_F_*_START_TIMESTAMP: timestamp of the first call to that type of "
    "function.\n"
    "#   STDIO_F_*_END_TIMESTAMP: timestamp of the completion of the last call to that "
    "type of function.\n"
    "#   STDIO_F_*_TIME: cumulative time spent in different types of functions.\n";

static const char column_line[] =
    "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file "
    "name>\t<mount pt>\t<fs type>\n";

/* Where one record's lines go: module, rank, id and the file's columns. */
struct record {
    FILE *fp;
    const char *module;
    int rank;
    uint64_t id;
    const char *path, *mount, *fs_type;
};

/* Darshan hashes the path; FNV-1a 64 gives ids of the same kind (half above 2^63). */
uint64_t data_record_id(const char *path)
{
    uint64_t h = 14695981039346656037ULL;

    for (const unsigned char *c = (const unsigned char *)path; *c != '\0'; c++) {
        h ^= *c;
        h *= 1099511628211ULL;
    }
    return h;
}

static void put_int(const struct record *r, const char *counter, int64_t v)
{
    fprintf(r->fp, "%s\t%d\t%" PRIu64 "\t%s\t%" PRId64 "\t%s\t%s\t%s\n", r->module,
            r->rank, r->id, counter, v, r->path, r->mount, r->fs_type);
}

static void put_float(const struct record *r, const char *counter, double v)
{
    fprintf(r->fp, "%s\t%d\t%" PRIu64 "\t%s\t%.6f\t%s\t%s\t%s\n", r->module, r->rank,
            r->id, counter, v, r->path, r->mount, r->fs_type);
}

static void banner(FILE *fp, const char *module, const char *help)
{
    fprintf(fp,
            "\n# *******************************************************\n"
            "# %s module data\n"
            "# *******************************************************\n\n%s\n%s",
            module, help, column_line);
}

static struct record file_record(FILE *fp, const char *module, const struct data_file *f)
{
    struct record r = {fp,      module,   f->rank,   data_record_id(f->path),
                       f->path, f->mount, f->fs_type};
    return r;
}

/* The subset of POSIX counters consumers read, in darshan's own order. */
static void posix_record(FILE *fp, const struct data_file *f)
{
    struct record r = file_record(fp, "POSIX", f);

    put_int(&r, "POSIX_OPENS", f->opens);
    put_int(&r, "POSIX_READS", f->reads);
    put_int(&r, "POSIX_WRITES", f->writes);
    put_int(&r, "POSIX_BYTES_READ", f->read_bytes);
    put_int(&r, "POSIX_BYTES_WRITTEN", f->write_bytes);
    if (f->rank < 0) {
        put_int(&r, "POSIX_FASTEST_RANK", f->fastest_rank);
        put_int(&r, "POSIX_SLOWEST_RANK", f->slowest_rank);
    }
    put_float(&r, "POSIX_F_OPEN_START_TIMESTAMP", f->open_start_s);
    put_float(&r, "POSIX_F_READ_START_TIMESTAMP", f->read_start_s);
    put_float(&r, "POSIX_F_WRITE_START_TIMESTAMP", f->write_start_s);
    put_float(&r, "POSIX_F_CLOSE_START_TIMESTAMP", f->close_start_s);
    put_float(&r, "POSIX_F_READ_END_TIMESTAMP", f->read_end_s);
    put_float(&r, "POSIX_F_WRITE_END_TIMESTAMP", f->write_end_s);
    put_float(&r, "POSIX_F_CLOSE_END_TIMESTAMP", f->close_end_s);
    put_float(&r, "POSIX_F_READ_TIME", f->read_time_s);
    put_float(&r, "POSIX_F_WRITE_TIME", f->write_time_s);
    put_float(&r, "POSIX_F_META_TIME", f->meta_time_s);
    if (f->rank < 0) {
        put_float(&r, "POSIX_F_FASTEST_RANK_TIME", f->fastest_rank_time_s);
        put_float(&r, "POSIX_F_SLOWEST_RANK_TIME", f->slowest_rank_time_s);
    }
}

/* A time of the MPI-IO call around a POSIX one: MPI-IO starts a little earlier and
 * ends a little later ("never" stays 0). */
static double around(double posix_s, double delta_s)
{
    return posix_s == 0.0 ? 0.0 : fmax(0.0, posix_s + delta_s);
}

void data_mpiio_of(const struct data_file *f, int64_t nprocs, struct data_mpiio *out)
{
    int64_t calls = 8 * nprocs; /* every rank calls read_all / write_all 8 times */

    out->coll_opens = nprocs;
    out->coll_reads = f->reads > 0 ? calls : 0;
    out->coll_writes = f->writes > 0 ? calls : 0;
    out->open_start_s = around(f->open_start_s, -0.000812);
    out->open_end_s = around(f->open_end_s, 0.000391);
    out->read_start_s = around(f->read_start_s, -0.000431);
    out->write_start_s = around(f->write_start_s, -0.000457);
    out->close_start_s = around(f->close_start_s, -0.000213);
    out->read_end_s = around(f->read_end_s, 0.000602);
    out->write_end_s = around(f->write_end_s, 0.000587);
    out->close_end_s = around(f->close_end_s, 0.000388);
    out->read_time_s = 1.04 * f->read_time_s;
    out->write_time_s = 1.04 * f->write_time_s;
    out->meta_time_s = 1.3 * f->meta_time_s;
    out->fastest_rank_time_s = 1.04 * f->fastest_rank_time_s;
    out->slowest_rank_time_s = 1.04 * f->slowest_rank_time_s;
}

/* Collective MPI-IO over the POSIX record f: its times contain the POSIX ones. */
static void mpiio_record(FILE *fp, const struct data_file *f, int64_t nprocs)
{
    struct record r = file_record(fp, "MPI-IO", f);
    struct data_mpiio m;

    data_mpiio_of(f, nprocs, &m);
    put_int(&r, "MPIIO_INDEP_OPENS", 0);
    put_int(&r, "MPIIO_COLL_OPENS", m.coll_opens);
    put_int(&r, "MPIIO_INDEP_READS", 0);
    put_int(&r, "MPIIO_INDEP_WRITES", 0);
    put_int(&r, "MPIIO_COLL_READS", m.coll_reads);
    put_int(&r, "MPIIO_COLL_WRITES", m.coll_writes);
    put_int(&r, "MPIIO_SPLIT_READS", 0);
    put_int(&r, "MPIIO_SPLIT_WRITES", 0);
    put_int(&r, "MPIIO_NB_READS", 0);
    put_int(&r, "MPIIO_NB_WRITES", 0);
    put_int(&r, "MPIIO_BYTES_READ", f->read_bytes);
    put_int(&r, "MPIIO_BYTES_WRITTEN", f->write_bytes);
    put_int(&r, "MPIIO_FASTEST_RANK", f->fastest_rank);
    put_int(&r, "MPIIO_SLOWEST_RANK", f->slowest_rank);
    put_float(&r, "MPIIO_F_OPEN_START_TIMESTAMP", m.open_start_s);
    put_float(&r, "MPIIO_F_READ_START_TIMESTAMP", m.read_start_s);
    put_float(&r, "MPIIO_F_WRITE_START_TIMESTAMP", m.write_start_s);
    put_float(&r, "MPIIO_F_CLOSE_START_TIMESTAMP", m.close_start_s);
    put_float(&r, "MPIIO_F_READ_END_TIMESTAMP", m.read_end_s);
    put_float(&r, "MPIIO_F_WRITE_END_TIMESTAMP", m.write_end_s);
    put_float(&r, "MPIIO_F_CLOSE_END_TIMESTAMP", m.close_end_s);
    put_float(&r, "MPIIO_F_READ_TIME", m.read_time_s);
    put_float(&r, "MPIIO_F_WRITE_TIME", m.write_time_s);
    put_float(&r, "MPIIO_F_META_TIME", m.meta_time_s);
    put_float(&r, "MPIIO_F_FASTEST_RANK_TIME", m.fastest_rank_time_s);
    put_float(&r, "MPIIO_F_SLOWEST_RANK_TIME", m.slowest_rank_time_s);
}

/* Rank 0's <STDOUT>, in STDIO's own counter order (it differs from POSIX's). */
static void stdout_record(FILE *fp, const struct data_job *job)
{
    struct record r = {fp,         "STDIO",   0,        DATA_STDOUT_RECORD_ID,
                       "<STDOUT>", "UNKNOWN", "UNKNOWN"};

    put_int(&r, "STDIO_OPENS", 1);
    put_int(&r, "STDIO_FDOPENS", 0);
    put_int(&r, "STDIO_READS", 0);
    put_int(&r, "STDIO_WRITES", job->stdout_writes);
    put_int(&r, "STDIO_BYTES_WRITTEN", job->stdout_bytes);
    put_int(&r, "STDIO_BYTES_READ", 0);
    put_float(&r, "STDIO_F_META_TIME", 0.0);
    put_float(&r, "STDIO_F_WRITE_TIME", DATA_STDOUT_WRITE_TIME_S);
    put_float(&r, "STDIO_F_READ_TIME", 0.0);
    put_float(&r, "STDIO_F_OPEN_START_TIMESTAMP", 0.0);
    put_float(&r, "STDIO_F_CLOSE_START_TIMESTAMP", 0.0);
    put_float(&r, "STDIO_F_WRITE_START_TIMESTAMP", job->stdout_start_s);
    put_float(&r, "STDIO_F_READ_START_TIMESTAMP", 0.0);
    put_float(&r, "STDIO_F_OPEN_END_TIMESTAMP", 0.0);
    put_float(&r, "STDIO_F_CLOSE_END_TIMESTAMP", 0.0);
    put_float(&r, "STDIO_F_WRITE_END_TIMESTAMP", job->stdout_end_s);
    put_float(&r, "STDIO_F_READ_END_TIMESTAMP", 0.0);
}

size_t data_count_mpiio(const struct data_job *job)
{
    size_t n = 0;

    for (size_t i = 0; i < job->nfiles; i++)
        n += job->files[i].mpiio != 0;
    return n;
}

/* ctime() layout in UTC, as darshan-parser prints it with TZ=UTC. */
static void asci_time(char *buf, size_t size, long long epoch_s)
{
    time_t t = (time_t)epoch_s;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, size, "%a %b %e %H:%M:%S %Y", &tm);
}

static void write_header(FILE *fp, const struct data_job *job)
{
    const struct data_group_info *gi = data_group_info(job->group);
    long long start_s = 0, end_s = 0;
    char start_asci[64], end_asci[64];
    size_t nmpi = data_count_mpiio(job);

    data_job_epoch(job, &start_s, &end_s, NULL, NULL);
    asci_time(start_asci, sizeof start_asci, start_s);
    asci_time(end_asci, sizeof end_asci, end_s);
    fprintf(fp,
            "# darshan log version: 3.41\n# compression method: ZLIB\n# exe: %s\n"
            "# uid: %" PRId64 "\n# jobid: %" PRIu64 "\n# start_time: %lld\n"
            "# start_time_asci: %s\n# end_time: %lld\n# end_time_asci: %s\n"
            "# nprocs: %" PRId64 "\n# run time: %.4f\n# metadata: lib_ver = %s\n",
            gi->exe, gi->uid, job->jobid, start_s, start_asci, end_s, end_asci,
            gi->nprocs, job->run_time_s, DATA_DARSHAN_LIB_VER);
    if (nmpi > 0)
        fprintf(fp, "# metadata: h = %s\n", DATA_ROMIO_HINTS);
    fprintf(fp,
            "\n# log file regions\n"
            "# -------------------------------------------------------\n"
            "# header: 1328 bytes (uncompressed)\n# job data: %zu bytes (compressed)\n"
            "# record table: %zu bytes (compressed)\n"
            "# POSIX module: %zu bytes (compressed), ver=4\n",
            strlen(gi->exe) + 210, 31 * (job->nfiles + 1) + 24, 57 * job->nfiles + 18);
    if (nmpi > 0)
        fprintf(fp, "# MPI-IO module: %zu bytes (compressed), ver=3\n", 88 * nmpi + 12);
    fputs("# STDIO module: 53 bytes (compressed), ver=2\n", fp);
    fputs("\n# mounted file systems (mount point and fs type)\n"
          "# -------------------------------------------------------\n",
          fp);
    for (size_t i = 0; i < DATA_NMOUNTS; i++) {
        fprintf(fp, "# mount entry:\t%s\t%s\n", data_darshan_mounts[i].path,
                data_darshan_mounts[i].fs_type);
    }
    fputc('\n', fp);
    fputs(columns_help, fp);
}

/* Shared records first, then each rank's, as darshan's reduction leaves them. */
static void write_records(FILE *fp, const struct data_job *job)
{
    size_t nmpi = data_count_mpiio(job);

    banner(fp, "POSIX", posix_help);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < job->nfiles; i++) {
            if ((job->files[i].rank < 0) == (pass == 0))
                posix_record(fp, &job->files[i]);
        }
    }
    if (nmpi > 0) {
        banner(fp, "MPI-IO", mpiio_help);
        for (size_t i = 0; i < job->nfiles; i++) {
            if (job->files[i].mpiio != 0)
                mpiio_record(fp, &job->files[i], data_group_info(job->group)->nprocs);
        }
    }
    banner(fp, "STDIO", stdio_help);
    stdout_record(fp, job);
}

enum status data_darshan_date(const struct data_job *job, const char *path,
                              struct error *err)
{
    long long start_s, end_s;

    data_job_epoch(job, &start_s, &end_s, NULL, NULL);
    if ((time_t)end_s <= time(NULL))
        return STATUS_OK;
    const struct timespec at[2] = {{.tv_sec = (time_t)end_s}, {.tv_sec = (time_t)end_s}};
    if (utimensat(AT_FDCWD, path, at, 0) != 0)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    return STATUS_OK;
}

static enum status write_job(const struct data_params *p, const struct data_job *job,
                             struct error *err)
{
    char path[4096];
    FILE *fp;
    int bad;

    data_darshan_path(p, job, ".parser.txt", path, sizeof path);
    fp = fopen(path, "w");
    if (fp == NULL)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    write_header(fp, job);
    write_records(fp, job);
    bad = ferror(fp);
    if (fclose(fp) != 0 || bad != 0)
        return error_set(err, STATUS_NOT_FOUND, "%s: write failed", path);
    return data_darshan_date(job, path, err);
}

enum status data_darshan_write(const struct data_params *p, const struct data_job *jobs,
                               size_t njobs, struct error *err)
{
    enum status rc = STATUS_OK;

    for (size_t j = 0; j < njobs && rc == STATUS_OK; j++) {
        if (p->darshan_formats & DATA_DARSHAN_TEXT)
            rc = write_job(p, &jobs[j], err);
    }
    return rc;
}

/* ---- what the text and the binary writer share ---------------------------------- */

/* Longest path first, as darshan-parser lists (and matches) them. */
const struct data_mount data_darshan_mounts[DATA_NMOUNTS] = {
    {"/scratch1", "gpfs"}, {"/scratch2", "gpfs"}, {"/dev/shm", "tmpfs"},
    {"/home", "nfs"},      {"/", "ext4"},
};

void data_job_epoch(const struct data_job *job, long long *start_s, long long *end_s,
                    long long *start_ns, long long *end_ns)
{
    double start = (double)DATA_EPOCH_START + job->start_s;
    double end = start + job->run_time_s;

    *start_s = (long long)floor(start);
    *end_s = (long long)floor(end);
    if (start_ns != NULL)
        *start_ns = llround(fmin((start - floor(start)) * 1e9, 999999999.0));
    if (end_ns != NULL)
        *end_ns = llround(fmin((end - floor(end)) * 1e9, 999999999.0));
}

void data_darshan_path(const struct data_params *p, const struct data_job *job,
                       const char *suffix, char *buf, size_t size)
{
    const struct data_group_info *gi = data_group_info(job->group);

    snprintf(buf, size, "%s/darshan/%s/%s_%s_id%" PRIu64 "%s", p->out_dir, gi->name,
             gi->user, gi->exe_base, job->jobid, suffix);
}
