/* gen_darshan_bin.c: each planned job as a binary Darshan log, format 3.41 (zlib).
 *
 * Written from the format's description (darshan-log-format.h and the module headers
 * of darshan 3.4), in this machine's byte order as darshan writes it: a 1328-byte
 * header (version, magic number, compression, partial flags, the map of the regions
 * and each module's record version), then the regions, each one zlib stream: the job
 * record with the exe line and the mount table, the name records, then the POSIX,
 * MPI-IO and STDIO records (module ids 1, 2 and 9) at their current record versions
 * (4, 3 and 2), and with --dxt-ops a DXT_POSIX trace (id 10, version 2).
 *
 * The records are the ones the text writer (gen_darshan.c) prints, counter for
 * counter: a floating counter holds the value its "%.6f" text reads back as, so that
 * both logs say the same to a reader. The text prints only the counters consumers
 * read; the binary has all of them, and the rest are what the plan implies (a
 * sequential sweep of equal accesses, no seeks or syncs) or 0. On a rank's own
 * record (not a shared one) the text has no rank statistics (FASTEST / SLOWEST rank,
 * bytes, time, the variances), which its readers take as not collected: the binary
 * holds -1 there, darshan's "not collected", so that both read the same. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAGIC_NR 6567223
#define HEADER_LEN                                                                       \
    1328 /* version 8, magic 8, compression 1 + 7, partial 8, maps, vers                 \
          */
#define MAX_MODS 64
#define JOB_LEN  1080 /* uid, start s/ns, end s/ns, nprocs, jobid, metadata[1024] */
#define META_LEN 1024
#define BASE_LEN 16 /* record id, rank */

enum module_id { MOD_POSIX = 1, MOD_MPIIO = 2, MOD_STDIO = 9, MOD_DXT_POSIX = 10 };
enum module_ver { VER_POSIX = 4, VER_MPIIO = 3, VER_STDIO = 2, VER_DXT_POSIX = 2 };

/* Counters of each module in the format's order (darshan's field lists). */
enum posix_int {
    PX_OPENS,
    PX_FILENOS,
    PX_DUPS,
    PX_READS,
    PX_WRITES,
    PX_SEEKS,
    PX_STATS,
    PX_MMAPS,
    PX_FSYNCS,
    PX_FDSYNCS,
    PX_RENAME_SOURCES,
    PX_RENAME_TARGETS,
    PX_RENAMED_FROM,
    PX_MODE,
    PX_BYTES_READ,
    PX_BYTES_WRITTEN,
    PX_MAX_BYTE_READ,
    PX_MAX_BYTE_WRITTEN,
    PX_CONSEC_READS,
    PX_CONSEC_WRITES,
    PX_SEQ_READS,
    PX_SEQ_WRITES,
    PX_RW_SWITCHES,
    PX_MEM_NOT_ALIGNED,
    PX_MEM_ALIGNMENT,
    PX_FILE_NOT_ALIGNED,
    PX_FILE_ALIGNMENT,
    PX_MAX_READ_TIME_SIZE,
    PX_MAX_WRITE_TIME_SIZE,
    PX_SIZE_READ_0_100, /* 10 bins: 0-100, 100-1K, ... 100M-1G, 1G+ */
    PX_SIZE_WRITE_0_100 = PX_SIZE_READ_0_100 + 10,
    PX_STRIDE1_STRIDE = PX_SIZE_WRITE_0_100 + 10, /* 4 strides, then 4 counts */
    PX_ACCESS1_ACCESS = PX_STRIDE1_STRIDE + 8,    /* 4 sizes, then 4 counts */
    PX_ACCESS1_COUNT = PX_ACCESS1_ACCESS + 4,
    PX_FASTEST_RANK = PX_ACCESS1_COUNT + 4,
    PX_FASTEST_RANK_BYTES,
    PX_SLOWEST_RANK,
    PX_SLOWEST_RANK_BYTES,
    PX_NUM_INDICES /* 69 */
};

/* The floating counters of POSIX and MPI-IO (the same list). */
enum file_float {
    F_OPEN_START,
    F_READ_START,
    F_WRITE_START,
    F_CLOSE_START,
    F_OPEN_END,
    F_READ_END,
    F_WRITE_END,
    F_CLOSE_END,
    F_READ_TIME,
    F_WRITE_TIME,
    F_META_TIME,
    F_MAX_READ_TIME,
    F_MAX_WRITE_TIME,
    F_FASTEST_RANK_TIME,
    F_SLOWEST_RANK_TIME,
    F_VARIANCE_RANK_TIME,
    F_VARIANCE_RANK_BYTES,
    F_NUM_INDICES /* 17 */
};

enum mpiio_int {
    MI_INDEP_OPENS,
    MI_COLL_OPENS,
    MI_INDEP_READS,
    MI_INDEP_WRITES,
    MI_COLL_READS,
    MI_COLL_WRITES,
    MI_SPLIT_READS,
    MI_SPLIT_WRITES,
    MI_NB_READS,
    MI_NB_WRITES,
    MI_SYNCS,
    MI_HINTS,
    MI_VIEWS,
    MI_MODE,
    MI_BYTES_READ,
    MI_BYTES_WRITTEN,
    MI_RW_SWITCHES,
    MI_MAX_READ_TIME_SIZE,
    MI_MAX_WRITE_TIME_SIZE,
    MI_SIZE_READ_AGG_0_100, /* 10 bins, as POSIX's */
    MI_SIZE_WRITE_AGG_0_100 = MI_SIZE_READ_AGG_0_100 + 10,
    MI_ACCESS1_ACCESS = MI_SIZE_WRITE_AGG_0_100 + 10, /* 4 sizes, then 4 counts */
    MI_ACCESS1_COUNT = MI_ACCESS1_ACCESS + 4,
    MI_FASTEST_RANK = MI_ACCESS1_COUNT + 4,
    MI_FASTEST_RANK_BYTES,
    MI_SLOWEST_RANK,
    MI_SLOWEST_RANK_BYTES,
    MI_NUM_INDICES /* 51 */
};

enum stdio_int {
    SI_OPENS,
    SI_FDOPENS,
    SI_READS,
    SI_WRITES,
    SI_SEEKS,
    SI_FLUSHES,
    SI_BYTES_WRITTEN,
    SI_BYTES_READ,
    SI_MAX_BYTE_READ,
    SI_MAX_BYTE_WRITTEN,
    SI_FASTEST_RANK,
    SI_FASTEST_RANK_BYTES,
    SI_SLOWEST_RANK,
    SI_SLOWEST_RANK_BYTES,
    SI_NUM_INDICES /* 14 */
};

enum stdio_float {
    SF_META_TIME,
    SF_WRITE_TIME,
    SF_READ_TIME,
    SF_OPEN_START,
    SF_CLOSE_START,
    SF_WRITE_START,
    SF_READ_START,
    SF_OPEN_END,
    SF_CLOSE_END,
    SF_WRITE_END,
    SF_READ_END,
    SF_FASTEST_RANK_TIME,
    SF_SLOWEST_RANK_TIME,
    SF_VARIANCE_RANK_TIME,
    SF_VARIANCE_RANK_BYTES,
    SF_NUM_INDICES /* 15 */
};

#define POSIX_REC_LEN (BASE_LEN + (PX_NUM_INDICES + F_NUM_INDICES) * 8)
#define MPIIO_REC_LEN (BASE_LEN + (MI_NUM_INDICES + F_NUM_INDICES) * 8)
#define STDIO_REC_LEN (BASE_LEN + (SI_NUM_INDICES + SF_NUM_INDICES) * 8)
#define NAMES_MAX     ((DATA_MAX_FILES + 1) * (8 + DATA_PATH_MAX + 1))
#define MODE_RW_R     0644 /* POSIX_MODE of the files the ranks create */
#define ALIGN_MEM     8
#define ALIGN_FILE    4096
#define MPI_MODE_READ 2 /* MPI_MODE_RDONLY (MPICH) */
#define MPI_MODE_NEW  5 /* MPI_MODE_WRONLY | MPI_MODE_CREATE (MPICH) */

/* The uncompressed regions of one log, then each compressed. */
struct regions {
    unsigned char job[JOB_LEN + 4096];
    size_t job_len;
    unsigned char names[NAMES_MAX];
    size_t names_len;
    unsigned char posix[DATA_MAX_FILES * POSIX_REC_LEN];
    size_t posix_len;
    unsigned char mpiio[DATA_MAX_FILES * MPIIO_REC_LEN];
    size_t mpiio_len;
    unsigned char stdio[STDIO_REC_LEN];
    size_t stdio_len;
    unsigned char *dxt; /* DXT_POSIX records (--dxt-ops), grown as needed */
    size_t dxt_len, dxt_cap;
    unsigned char *z; /* compressed output of every region, back to back */
    size_t z_cap;
};

/* The value "%.6f" prints v as, read back: what the text says the counter holds. */
static double as_printed(double v)
{
    char buf[64];

    snprintf(buf, sizeof buf, "%.6f", v);
    return strtod(buf, NULL);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

static void put_i64(unsigned char *p, int64_t v)
{
    memcpy(p, &v, sizeof v);
}

static void put_f64(unsigned char *p, double v)
{
    memcpy(p, &v, sizeof v);
}

/* Darshan's access-size bin (0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M,
 * 4M-10M, 10M-100M, 100M-1G, 1G+) of an access of size bytes. */
static int size_bin(int64_t size)
{
    static const int64_t upper[] = {100,     1024,     10240,     102400,    1048576,
                                    4194304, 10485760, 104857600, 1073741824};

    for (int b = 0; b < 9; b++) {
        if (size <= upper[b])
            return b;
    }
    return 9;
}

/* What one direction of a record moved: ops accesses of size bytes each. */
struct sweep {
    int64_t ops, bytes, size;
};

static struct sweep sweep_of(int64_t ops, int64_t bytes)
{
    struct sweep s = {ops, bytes, ops > 0 ? bytes / ops : 0};
    return s;
}

/* The POSIX record of f: the text's counters, the rest as the plan implies. */
static void posix_record(unsigned char *rec, const struct data_file *f, int64_t nprocs)
{
    int64_t iv[PX_NUM_INDICES] = {0};
    double fv[F_NUM_INDICES] = {0};
    struct sweep rd = sweep_of(f->reads, f->read_bytes);
    struct sweep wr = sweep_of(f->writes, f->write_bytes);
    const struct sweep *most = rd.ops >= wr.ops ? &rd : &wr;

    iv[PX_OPENS] = f->opens;
    iv[PX_READS] = f->reads;
    iv[PX_WRITES] = f->writes;
    iv[PX_MODE] = MODE_RW_R;
    iv[PX_BYTES_READ] = f->read_bytes;
    iv[PX_BYTES_WRITTEN] = f->write_bytes;
    iv[PX_MAX_BYTE_READ] = rd.bytes > 0 ? rd.bytes - 1 : 0;
    iv[PX_MAX_BYTE_WRITTEN] = wr.bytes > 0 ? wr.bytes - 1 : 0;
    iv[PX_CONSEC_READS] = iv[PX_SEQ_READS] = rd.ops > 0 ? rd.ops - 1 : 0;
    iv[PX_CONSEC_WRITES] = iv[PX_SEQ_WRITES] = wr.ops > 0 ? wr.ops - 1 : 0;
    iv[PX_MEM_ALIGNMENT] = ALIGN_MEM;
    iv[PX_FILE_ALIGNMENT] = ALIGN_FILE;
    iv[PX_MAX_READ_TIME_SIZE] = rd.size;
    iv[PX_MAX_WRITE_TIME_SIZE] = wr.size;
    if (rd.ops > 0)
        iv[PX_SIZE_READ_0_100 + size_bin(rd.size)] = rd.ops;
    if (wr.ops > 0)
        iv[PX_SIZE_WRITE_0_100 + size_bin(wr.size)] = wr.ops;
    if (most->ops > 0) {
        iv[PX_ACCESS1_ACCESS] = most->size;
        iv[PX_ACCESS1_COUNT] = most->ops;
    }
    fv[F_OPEN_START] = f->open_start_s;
    fv[F_READ_START] = f->read_start_s;
    fv[F_WRITE_START] = f->write_start_s;
    fv[F_CLOSE_START] = f->close_start_s;
    fv[F_OPEN_END] = f->open_end_s;
    fv[F_READ_END] = f->read_end_s;
    fv[F_WRITE_END] = f->write_end_s;
    fv[F_CLOSE_END] = f->close_end_s;
    fv[F_READ_TIME] = f->read_time_s;
    fv[F_WRITE_TIME] = f->write_time_s;
    fv[F_META_TIME] = f->meta_time_s;
    fv[F_MAX_READ_TIME] = rd.ops > 0 ? f->read_time_s / (double)rd.ops : 0.0;
    fv[F_MAX_WRITE_TIME] = wr.ops > 0 ? f->write_time_s / (double)wr.ops : 0.0;
    if (f->rank < 0) {
        iv[PX_FASTEST_RANK] = f->fastest_rank;
        iv[PX_FASTEST_RANK_BYTES] = (rd.bytes + wr.bytes) / nprocs;
        iv[PX_SLOWEST_RANK] = f->slowest_rank;
        iv[PX_SLOWEST_RANK_BYTES] = (rd.bytes + wr.bytes) / nprocs;
        fv[F_FASTEST_RANK_TIME] = f->fastest_rank_time_s;
        fv[F_SLOWEST_RANK_TIME] = f->slowest_rank_time_s;
    } else {
        iv[PX_FASTEST_RANK] = iv[PX_FASTEST_RANK_BYTES] = -1;
        iv[PX_SLOWEST_RANK] = iv[PX_SLOWEST_RANK_BYTES] = -1;
        fv[F_FASTEST_RANK_TIME] = fv[F_SLOWEST_RANK_TIME] = -1;
        fv[F_VARIANCE_RANK_TIME] = fv[F_VARIANCE_RANK_BYTES] = -1;
    }
    put_u64(rec, data_record_id(f->path));
    put_i64(rec + 8, f->rank);
    for (size_t k = 0; k < PX_NUM_INDICES; k++)
        put_i64(rec + BASE_LEN + k * 8, iv[k]);
    for (size_t k = 0; k < F_NUM_INDICES; k++)
        put_f64(rec + BASE_LEN + (PX_NUM_INDICES + k) * 8, as_printed(fv[k]));
}

/* The collective MPI-IO record over f (the text's mpiio_record). */
static void mpiio_record(unsigned char *rec, const struct data_file *f, int64_t nprocs)
{
    int64_t iv[MI_NUM_INDICES] = {0};
    double fv[F_NUM_INDICES] = {0};
    struct data_mpiio m;

    data_mpiio_of(f, nprocs, &m);
    struct sweep rd = sweep_of(m.coll_reads, f->read_bytes);
    struct sweep wr = sweep_of(m.coll_writes, f->write_bytes);
    const struct sweep *most = rd.ops >= wr.ops ? &rd : &wr;

    iv[MI_COLL_OPENS] = m.coll_opens;
    iv[MI_COLL_READS] = m.coll_reads;
    iv[MI_COLL_WRITES] = m.coll_writes;
    iv[MI_HINTS] = nprocs; /* every rank sets the romio hints once */
    iv[MI_MODE] = wr.ops > 0 ? MPI_MODE_NEW : MPI_MODE_READ;
    iv[MI_BYTES_READ] = f->read_bytes;
    iv[MI_BYTES_WRITTEN] = f->write_bytes;
    iv[MI_MAX_READ_TIME_SIZE] = rd.size;
    iv[MI_MAX_WRITE_TIME_SIZE] = wr.size;
    if (rd.ops > 0)
        iv[MI_SIZE_READ_AGG_0_100 + size_bin(rd.size)] = rd.ops;
    if (wr.ops > 0)
        iv[MI_SIZE_WRITE_AGG_0_100 + size_bin(wr.size)] = wr.ops;
    if (most->ops > 0) {
        iv[MI_ACCESS1_ACCESS] = most->size;
        iv[MI_ACCESS1_COUNT] = most->ops;
    }
    iv[MI_FASTEST_RANK] = f->fastest_rank;
    iv[MI_FASTEST_RANK_BYTES] = (rd.bytes + wr.bytes) / nprocs;
    iv[MI_SLOWEST_RANK] = f->slowest_rank;
    iv[MI_SLOWEST_RANK_BYTES] = (rd.bytes + wr.bytes) / nprocs;
    fv[F_OPEN_START] = m.open_start_s;
    fv[F_READ_START] = m.read_start_s;
    fv[F_WRITE_START] = m.write_start_s;
    fv[F_CLOSE_START] = m.close_start_s;
    fv[F_OPEN_END] = m.open_end_s;
    fv[F_READ_END] = m.read_end_s;
    fv[F_WRITE_END] = m.write_end_s;
    fv[F_CLOSE_END] = m.close_end_s;
    fv[F_READ_TIME] = m.read_time_s;
    fv[F_WRITE_TIME] = m.write_time_s;
    fv[F_META_TIME] = m.meta_time_s;
    fv[F_MAX_READ_TIME] = rd.ops > 0 ? m.read_time_s / (double)rd.ops : 0.0;
    fv[F_MAX_WRITE_TIME] = wr.ops > 0 ? m.write_time_s / (double)wr.ops : 0.0;
    fv[F_FASTEST_RANK_TIME] = m.fastest_rank_time_s;
    fv[F_SLOWEST_RANK_TIME] = m.slowest_rank_time_s;
    put_u64(rec, data_record_id(f->path));
    put_i64(rec + 8, f->rank);
    for (size_t k = 0; k < MI_NUM_INDICES; k++)
        put_i64(rec + BASE_LEN + k * 8, iv[k]);
    for (size_t k = 0; k < F_NUM_INDICES; k++)
        put_f64(rec + BASE_LEN + (MI_NUM_INDICES + k) * 8, as_printed(fv[k]));
}

/* Rank 0's <STDOUT> (the text's stdout_record). */
static void stdout_record(unsigned char *rec, const struct data_job *job)
{
    int64_t iv[SI_NUM_INDICES] = {0};
    double fv[SF_NUM_INDICES] = {0};

    iv[SI_OPENS] = 1;
    iv[SI_WRITES] = job->stdout_writes;
    iv[SI_BYTES_WRITTEN] = job->stdout_bytes;
    iv[SI_MAX_BYTE_WRITTEN] = job->stdout_bytes > 0 ? job->stdout_bytes - 1 : 0;
    iv[SI_FASTEST_RANK] = iv[SI_FASTEST_RANK_BYTES] = -1;
    iv[SI_SLOWEST_RANK] = iv[SI_SLOWEST_RANK_BYTES] = -1;
    fv[SF_WRITE_TIME] = DATA_STDOUT_WRITE_TIME_S;
    fv[SF_WRITE_START] = job->stdout_start_s;
    fv[SF_WRITE_END] = job->stdout_end_s;
    fv[SF_FASTEST_RANK_TIME] = fv[SF_SLOWEST_RANK_TIME] = -1;
    fv[SF_VARIANCE_RANK_TIME] = fv[SF_VARIANCE_RANK_BYTES] = -1;
    put_u64(rec, DATA_STDOUT_RECORD_ID);
    put_i64(rec + 8, 0);
    for (size_t k = 0; k < SI_NUM_INDICES; k++)
        put_i64(rec + BASE_LEN + k * 8, iv[k]);
    for (size_t k = 0; k < SF_NUM_INDICES; k++)
        put_f64(rec + BASE_LEN + (SI_NUM_INDICES + k) * 8, as_printed(fv[k]));
}

/* The job record, then the exe line, the mount table ("\n<type>\t<path>" each, in
 * the order the text lists them: darshan-parser sorts them by path length, longest
 * first, ties in file order) and a NUL, as one region. */
static void job_region(struct regions *g, const struct data_job *job)
{
    const struct data_group_info *gi = data_group_info(job->group);
    long long start_s, end_s, start_ns, end_ns;
    unsigned char *b = g->job;
    char *text = (char *)b + JOB_LEN;
    size_t room = sizeof g->job - JOB_LEN, n;

    memset(b, 0, JOB_LEN);
    data_job_epoch(job, &start_s, &end_s, &start_ns, &end_ns);
    put_i64(b, gi->uid);
    put_i64(b + 8, start_s);
    put_i64(b + 16, start_ns);
    put_i64(b + 24, end_s);
    put_i64(b + 32, end_ns);
    put_i64(b + 40, gi->nprocs);
    put_i64(b + 48, (int64_t)job->jobid);
    snprintf((char *)b + 56, META_LEN, "lib_ver=%s\n%s%s%s", DATA_DARSHAN_LIB_VER,
             data_count_mpiio(job) > 0 ? "h=" : "",
             data_count_mpiio(job) > 0 ? DATA_ROMIO_HINTS : "",
             data_count_mpiio(job) > 0 ? "\n" : "");
    n = (size_t)snprintf(text, room, "%s", gi->exe);
    for (size_t i = 0; i < DATA_NMOUNTS && n < room; i++) {
        const struct data_mount *m = &data_darshan_mounts[i];

        n += (size_t)snprintf(text + n, room - n, "\n%s\t%s", m->fs_type, m->path);
    }
    g->job_len = JOB_LEN + (n < room ? n : room - 1) + 1; /* with its NUL */
}

/* One name record per path (the first of each id): id, then the NUL-ended name. */
static void add_name(struct regions *g, uint64_t id, const char *name)
{
    size_t len = strlen(name) + 1;

    for (size_t at = 0; at < g->names_len;) {
        uint64_t have;

        memcpy(&have, g->names + at, sizeof have);
        if (have == id)
            return;
        at += 8 + strlen((const char *)g->names + at + 8) + 1;
    }
    put_u64(g->names + g->names_len, id);
    memcpy(g->names + g->names_len + 8, name, len);
    g->names_len += 8 + len;
}

/* DXT_POSIX records: per (file, rank) the id, rank, shared flag, a 64-byte host
 * name, the write and read counts, then the segments, writes first: offset, length,
 * start and end (seconds after the job start), pthread id. */
#define DXT_HEADER_LEN      104
#define DXT_SEG_LEN         40
#define DXT_HOST_LEN        64
#define DATA_RANKS_PER_HOST 16

/* Op i of k in one direction of f: k equal accesses, each in the first half of its
 * share of the window [a, b] (bursts with gaps, as DXT shows them). */
struct dxt_dir {
    int64_t k, bytes;
    double a, b;
};

static struct dxt_dir dxt_dir_of(int64_t ops, int64_t bytes, double a, double b,
                                 unsigned max_ops)
{
    struct dxt_dir d = {ops < (int64_t)max_ops ? ops : (int64_t)max_ops, bytes, a, b};

    if (d.k < 0 || b < a)
        d.k = 0;
    return d;
}

static void dxt_segment(unsigned char *at, const struct dxt_dir *d, int64_t i, int rank)
{
    const int64_t len = d->bytes / d->k;
    const double slot = (d->b - d->a) / (double)d->k, start = d->a + (double)i * slot;

    put_i64(at, i * len);
    put_i64(at + 8, len);
    put_f64(at + 16, start);
    put_f64(at + 24, start + slot / 2);
    put_u64(at + 32, 140000000000ULL + (uint64_t)rank);
}

/* Ops of d that rank q of nranks holds when they are dealt round-robin. */
static int64_t dealt(const struct dxt_dir *d, int64_t q, int64_t nranks)
{
    return d->k / nranks + (q < d->k % nranks ? 1 : 0);
}

static enum status dxt_reserve(struct regions *g, size_t more, struct error *err)
{
    if (g->dxt_len + more <= g->dxt_cap)
        return STATUS_OK;
    size_t cap = g->dxt_cap > 0 ? g->dxt_cap : 65536;
    while (cap < g->dxt_len + more)
        cap *= 2;
    unsigned char *grown = realloc(g->dxt, cap);
    if (grown == NULL)
        return error_set(err, STATUS_NOMEM, "a DXT region of %zu bytes", cap);
    g->dxt = grown;
    g->dxt_cap = cap;
    return STATUS_OK;
}

/* The DXT_POSIX records of f, up to max_ops writes and max_ops reads: a rank's own
 * file on its rank; a shared file's operations dealt round-robin over the ranks. */
static enum status dxt_file(struct regions *g, const struct data_file *f, int64_t nprocs,
                            unsigned max_ops, struct error *err)
{
    const struct dxt_dir w =
        dxt_dir_of(f->writes, f->write_bytes, f->write_start_s, f->write_end_s, max_ops);
    const struct dxt_dir r =
        dxt_dir_of(f->reads, f->read_bytes, f->read_start_s, f->read_end_s, max_ops);
    const int64_t most = w.k > r.k ? w.k : r.k;
    const int64_t nranks = f->rank >= 0 ? 1 : (most < nprocs ? most : nprocs);

    for (int64_t q = 0; q < nranks; q++) {
        const int rank = f->rank >= 0 ? f->rank : (int)q;
        const int64_t nw = dealt(&w, q, nranks), nr = dealt(&r, q, nranks);
        unsigned char *rec;
        enum status rc =
            dxt_reserve(g, DXT_HEADER_LEN + (size_t)(nw + nr) * DXT_SEG_LEN, err);

        if (rc != STATUS_OK)
            return rc;
        rec = g->dxt + g->dxt_len;
        memset(rec, 0, DXT_HEADER_LEN);
        put_u64(rec, data_record_id(f->path));
        put_i64(rec + 8, rank);
        put_i64(rec + 16, f->rank < 0 ? 1 : 0);
        snprintf((char *)rec + 24, DXT_HOST_LEN, "node%04d", rank / DATA_RANKS_PER_HOST);
        put_i64(rec + 88, nw);
        put_i64(rec + 96, nr);
        rec += DXT_HEADER_LEN;
        for (int64_t i = q; i < w.k; i += nranks, rec += DXT_SEG_LEN)
            dxt_segment(rec, &w, i, rank);
        for (int64_t i = q; i < r.k; i += nranks, rec += DXT_SEG_LEN)
            dxt_segment(rec, &r, i, rank);
        g->dxt_len = (size_t)(rec - g->dxt);
    }
    return STATUS_OK;
}

/* Every region of job: records in the text's order (shared files first, then each
 * rank's; MPI-IO; <STDOUT>). */
static enum status fill_regions(struct regions *g, const struct data_job *job,
                                unsigned dxt_ops, struct error *err)
{
    int64_t nprocs = data_group_info(job->group)->nprocs;
    enum status rc = STATUS_OK;

    job_region(g, job);
    g->names_len = g->posix_len = g->mpiio_len = g->stdio_len = g->dxt_len = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < job->nfiles; i++) {
            const struct data_file *f = &job->files[i];

            if ((f->rank < 0) != (pass == 0))
                continue;
            posix_record(g->posix + g->posix_len, f, nprocs);
            g->posix_len += POSIX_REC_LEN;
            add_name(g, data_record_id(f->path), f->path);
        }
    }
    for (size_t i = 0; i < job->nfiles; i++) {
        if (job->files[i].mpiio != 0) {
            mpiio_record(g->mpiio + g->mpiio_len, &job->files[i], nprocs);
            g->mpiio_len += MPIIO_REC_LEN;
        }
    }
    stdout_record(g->stdio, job);
    g->stdio_len = STDIO_REC_LEN;
    add_name(g, DATA_STDOUT_RECORD_ID, "<STDOUT>");
    for (size_t i = 0; i < job->nfiles && dxt_ops > 0 && rc == STATUS_OK; i++)
        rc = dxt_file(g, &job->files[i], nprocs, dxt_ops, err);
    return rc;
}

/* Compresses len bytes of in as one zlib stream at g->z + *at; its map in map. */
static enum status deflate_region(struct regions *g, size_t *at, const unsigned char *in,
                                  size_t len, unsigned char map[16], const char *path,
                                  struct error *err)
{
    uLongf out_len = (uLongf)(g->z_cap - *at);

    if (compress2(g->z + *at, &out_len, in, (uLong)len, Z_DEFAULT_COMPRESSION) != Z_OK)
        return error_set(err, STATUS_INTERNAL, "%s: zlib failed", path);
    put_u64(map, (uint64_t)(HEADER_LEN + *at));
    put_u64(map + 8, (uint64_t)out_len);
    *at += out_len;
    return STATUS_OK;
}

/* Writes the regions g holds (fill_regions) as the log of job. */
static enum status write_log(struct regions *g, const struct data_params *p,
                             const struct data_job *job, struct error *err)
{
    unsigned char header[HEADER_LEN] = {0};
    unsigned char *maps = header + 48, *vers = header + 48 + (size_t)MAX_MODS * 16;
    const unsigned char *mods[] = {g->posix, g->mpiio, g->stdio, g->dxt};
    const size_t lens[] = {g->posix_len, g->mpiio_len, g->stdio_len, g->dxt_len};
    const uint32_t ids[] = {MOD_POSIX, MOD_MPIIO, MOD_STDIO, MOD_DXT_POSIX};
    const uint32_t ver[] = {VER_POSIX, VER_MPIIO, VER_STDIO, VER_DXT_POSIX};
    char path[4096];
    size_t at = 0;
    enum status rc;
    unsigned char job_map[16];
    FILE *fp;

    data_darshan_path(p, job, ".darshan", path, sizeof path);
    memcpy(header, "3.41", 4);
    put_i64(header + 8, MAGIC_NR);
    header[16] = 0; /* zlib */
    /* The job region has no map of its own: it runs from the header to the names. */
    rc = deflate_region(g, &at, g->job, g->job_len, job_map, path, err);
    if (rc == STATUS_OK)
        rc = deflate_region(g, &at, g->names, g->names_len, header + 32, path, err);
    for (size_t m = 0; m < 4 && rc == STATUS_OK; m++) {
        if (lens[m] == 0)
            continue;
        rc = deflate_region(g, &at, mods[m], lens[m], maps + (size_t)ids[m] * 16, path,
                            err);
        memcpy(vers + (size_t)ids[m] * 4, &ver[m], 4);
    }
    if (rc != STATUS_OK)
        return rc;
    fp = fopen(path, "wb");
    if (fp == NULL)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    size_t wrote = fwrite(header, 1, sizeof header, fp) + fwrite(g->z, 1, at, fp);
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad != 0 || wrote != sizeof header + at)
        return error_set(err, STATUS_NOT_FOUND, "%s: write failed", path);
    return data_darshan_date(job, path, err);
}

enum status data_darshan_bin_write(const struct data_params *p,
                                   const struct data_job *jobs, size_t njobs,
                                   struct error *err)
{
    struct regions *g = calloc(1, sizeof *g);
    enum status rc = STATUS_OK;

    if (g == NULL)
        return error_set(err, STATUS_NOMEM, "binary darshan logs");
    const size_t fixed = compressBound(sizeof g->job) + compressBound(sizeof g->names) +
                         compressBound(sizeof g->posix) + compressBound(sizeof g->mpiio) +
                         compressBound(sizeof g->stdio);
    for (size_t j = 0; j < njobs && rc == STATUS_OK; j++) {
        rc = fill_regions(g, &jobs[j], p->dxt_ops, err);
        const size_t need = fixed + compressBound(g->dxt_len);
        if (rc == STATUS_OK && need > g->z_cap) {
            unsigned char *grown = realloc(g->z, need);
            if (grown == NULL) {
                rc = error_set(err, STATUS_NOMEM, "binary darshan logs");
            } else {
                g->z = grown;
                g->z_cap = need;
            }
        }
        if (rc == STATUS_OK)
            rc = write_log(g, p, &jobs[j], err);
    }
    free(g->z);
    free(g->dxt);
    free(g);
    return rc;
}
