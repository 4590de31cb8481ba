/* internal.h: what the parts of the sample-data generator (data/) share. */
#ifndef IOCONTEND_DATA_INTERNAL_H
#define IOCONTEND_DATA_INTERNAL_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/common.h"

#define DATA_INTERVAL_S 60U /* iostat -t 60: the default sampling interval Δ */
#define DATA_NFS        2   /* monitored scratch file systems */
#define DATA_NSERVERS   4   /* storage servers per file system */
#define DATA_NDEVICES   2   /* data devices (sdb, sdc) per server */
#define DATA_MAX_FILES  24  /* file records one planned job can hold */
#define DATA_PATH_MAX   96
#define DATA_NGROUPS    3
/* Victims planted per group by default (gen_jobs.c), slowed this much whatever the
 * load. */
#define DATA_VICTIMS     3
#define DATA_VICTIM_SLOW 3.0

/* 2026-11-20 00:00:00 UTC: every generated series starts here (epoch seconds). */
#define DATA_EPOCH_START 1795132800LL

/* Which Darshan logs data_darshan_write writes (bits). */
#define DATA_DARSHAN_TEXT   1u /* darshan-parser text, NAME.parser.txt */
#define DATA_DARSHAN_BINARY 2u /* binary log format 3.41, NAME.darshan */

struct data_params {
    const char *out_dir;       /* borrowed */
    unsigned long seed;        /* only the low 32 bits reach mt19937 */
    double coupling;           /* strength of every planted effect; 0 switches all off */
    unsigned days;             /* length of the iostat series */
    unsigned interval_s;       /* iostat -t: the sampling interval Δ, divides 60 */
    unsigned iostat_first_day; /* 0: every day's reports, one file per server; else */
    unsigned iostat_last_day;  /* only days first..last (1-based) into files of their
                                  own, named by them, for a history loaded a chunk at
                                  a time */
    unsigned jobs_per_group;   /* jobs planned per application group */
    unsigned darshan_formats;  /* DATA_DARSHAN_TEXT and/or DATA_DARSHAN_BINARY */
    unsigned dxt_ops;          /* binary logs: DXT_POSIX operations per file record and
                                  direction at most; 0: no DXT module */
    unsigned victims;          /* jobs per group planted slow (gen_jobs.c) */
};

/* Rates of traffic at one moment. */
struct data_rates {
    double read_bps;    /* bytes/s */
    double write_bps;   /* bytes/s */
    double read_ops_s;  /* operations/s */
    double write_ops_s; /* operations/s */
};

/* Traffic accumulated over a stretch of time. */
struct data_volume {
    double read_bytes;
    double write_bytes;
    double read_ops;
    double write_ops;
};

/* ---- background load (gen_load.c) ---- */

struct data_background;

/* Piecewise-constant background traffic of every file system over [0, span_s] seconds
 * after DATA_EPOCH_START, drawn from rng. NULL: no memory. */
struct data_background *data_background_new(double span_s, gsl_rng *rng);
void data_background_free(struct data_background *bg);
/* Rates at t_s of file system fs (0 .. DATA_NFS-1), or of all of them when fs < 0. */
void data_background_rates(const struct data_background *bg, int fs, double t_s,
                           struct data_rates *out);
/* Traffic over [a_s, b_s] of file system fs, or of all of them when fs < 0. */
void data_background_volume(const struct data_background *bg, int fs, double a_s,
                            double b_s, struct data_volume *out);
/* Time means over the whole series of file system fs (all when fs < 0): read
 * bandwidth (bytes/s) and read + write operations (ops/s). The planted effects are
 * relative to them. */
double data_background_mean_read_bps(const struct data_background *bg, int fs);
double data_background_mean_ops_s(const struct data_background *bg, int fs);

/* A log-normal factor with mean 1 and log-sd sigma, drawn from rng. */
double data_unit_lognormal(gsl_rng *rng, double sigma);

/* ---- jobs (gen_jobs.c) ---- */

enum data_group { DATA_ESB = 0, DATA_NPC, DATA_NPB };

struct data_group_info {
    const char *name; /* folder under darshan/: "esb" */
    const char *user; /* log owner, first part of the log file name */
    int64_t uid;
    const char *exe;      /* the `exe` header line: full command line */
    const char *exe_base; /* basename of its first token */
    int64_t nprocs;
    double io_coupling; /* share of the coupling that stretches read/write phases */
};

/* The static description of group g. */
const struct data_group_info *data_group_info(enum data_group g);

/* One Darshan file record (POSIX; MPI-IO too when mpiio is set). Times are seconds
 * after the true job start, 0 meaning "never", already rounded to microseconds. */
struct data_file {
    char path[DATA_PATH_MAX];
    int rank;            /* -1: shared by all ranks, counters reduced over them */
    int fs;              /* monitored file system index, -1 when not monitored */
    const char *mount;   /* mount point (static) */
    const char *fs_type; /* (static) */
    int mpiio;           /* also opened through MPI-IO (collective) */
    int64_t opens, reads, writes;
    int64_t read_bytes, write_bytes;
    double open_start_s, open_end_s, read_start_s, read_end_s;
    double write_start_s, write_end_s, close_start_s, close_end_s;
    double read_time_s, write_time_s, meta_time_s;   /* cumulative (summed over ranks) */
    double fastest_rank_time_s, slowest_rank_time_s; /* shared files only */
    int64_t fastest_rank, slowest_rank;              /* shared files only */
};

struct data_job {
    enum data_group group;
    uint64_t jobid;
    int fs;                              /* the scratch file system it used */
    double start_s;                      /* true start, seconds after DATA_EPOCH_START */
    double run_time_s;                   /* true end - true start */
    double stdout_start_s, stdout_end_s; /* its <STDOUT> writes, relative */
    int64_t stdout_writes, stdout_bytes;
    size_t nfiles;
    struct data_file files[DATA_MAX_FILES];
    double io_first_s;    /* truth: first read/write window start, relative */
    double io_last_s;     /* truth: last read/write window end, relative */
    double load_read_bps; /* truth: mean background read bandwidth of fs over it */
    int victim;           /* truth: planted slow (DATA_VICTIM_SLOW) whatever the load */
};

/* Plans jobs_per_group jobs of every group against bg: start times, job ids (rising
 * with the start), timelines and counters. Returns an array the caller frees (free),
 * sorted by start, its length in *njobs; NULL: no memory. */
struct data_job *data_jobs_plan(const struct data_params *p,
                                const struct data_background *bg, gsl_rng *rng,
                                size_t *njobs);

/* ---- output (gen_iostat.c, gen_darshan.c) ---- */

/* Writes DIR/iostat/<fs>/<host>.iostat.txt for every server (with iostat_first_day,
 * <host>.days-F-L.iostat.txt): per interval, bg plus every job's own bytes and
 * operations, split over the servers by draws from rng, a day at a time.
 * STATUS_NOT_FOUND when a file cannot be written, STATUS_NOMEM. */
enum status data_iostat_write(const struct data_params *p,
                              const struct data_background *bg,
                              const struct data_job *jobs, size_t njobs, gsl_rng *rng,
                              struct error *err);
/* Writes DIR/darshan/<group>/<user>_<exe>_id<jobid>.parser.txt for every job when
 * p->darshan_formats has DATA_DARSHAN_TEXT (gen_darshan_bin.c's
 * data_darshan_bin_write writes the .darshan files of DATA_DARSHAN_BINARY). */
enum status data_darshan_write(const struct data_params *p, const struct data_job *jobs,
                               size_t njobs, struct error *err);

/* ---- what the text and the binary Darshan writers share (gen_darshan.c) ---- */

/* Darshan's own record id of "<STDOUT>" (the same in every real log). */
#define DATA_STDOUT_RECORD_ID    15920181672442173319ULL
#define DATA_STDOUT_WRITE_TIME_S 0.000041 /* <STDOUT>'s STDIO_F_WRITE_TIME */
#define DATA_DARSHAN_LIB_VER     "3.4.4"  /* metadata lib_ver */
#define DATA_ROMIO_HINTS         "romio_no_indep_rw=true;cb_nodes=4" /* metadata h */
#define DATA_NMOUNTS             5

struct data_mount {
    const char *path, *fs_type;
};

/* The mount table of every log, in the order darshan-parser prints it. */
extern const struct data_mount data_darshan_mounts[DATA_NMOUNTS];

/* The MPI-IO record over a POSIX record opened collectively (mpiio set). Times as
 * struct data_file's. */
struct data_mpiio {
    int64_t coll_opens, coll_reads, coll_writes; /* calls over all ranks */
    double open_start_s, open_end_s, read_start_s, read_end_s;
    double write_start_s, write_end_s, close_start_s, close_end_s;
    double read_time_s, write_time_s, meta_time_s;
    double fastest_rank_time_s, slowest_rank_time_s;
};

/* Darshan's record id of a path (FNV-1a 64). */
uint64_t data_record_id(const char *path);
/* The MPI-IO counters of f in a job of nprocs ranks. */
void data_mpiio_of(const struct data_file *f, int64_t nprocs, struct data_mpiio *out);
/* Records of job that are also MPI-IO ones. */
size_t data_count_mpiio(const struct data_job *job);
/* The job's start and end as the log holds them: whole epoch seconds (floored) and
 * the nanoseconds past them (either ns pointer may be NULL). */
void data_job_epoch(const struct data_job *job, long long *start_s, long long *end_s,
                    long long *start_ns, long long *end_ns);
/* A log is written when its job ends: one whose job ends after now (a series of more
 * days than have passed since DATA_EPOCH_START) gets that end as its mtime, or ingest
 * would quarantine it as a job dated after its file. */
enum status data_darshan_date(const struct data_job *job, const char *path,
                              struct error *err);
/* DIR/darshan/<group>/<user>_<exe>_id<jobid><suffix> into buf. */
void data_darshan_path(const struct data_params *p, const struct data_job *job,
                       const char *suffix, char *buf, size_t size);

/* gen_darshan_bin.c: writes DIR/darshan/<group>/<user>_<exe>_id<jobid>.darshan for
 * every job: the records data_darshan_write's text holds, as a binary log. */
enum status data_darshan_bin_write(const struct data_params *p,
                                   const struct data_job *jobs, size_t njobs,
                                   struct error *err);

#endif
