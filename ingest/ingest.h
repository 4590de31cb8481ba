/* ingest.h: parsers (darshan-parser text, iostat / sadf) into plain records, the
 * log-only job metrics of docs/method.md §2, and the loader that writes them to the
 * database. Parsers never see the database: files alone test them. */
#ifndef IOCONTEND_INGEST_H
#define IOCONTEND_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/common.h"
#include "../common/log_family.h"

/* ---- file-system map ([filesystems] in the configuration) ------------------- */

struct ingest_fs_entry {
    char *prefix;  /* mount prefix, e.g. "/scratch1" (owned) */
    char *fs_name; /* monitored file system, e.g. "scratch1" (owned) */
};

struct ingest_fs_map {
    struct ingest_fs_entry *entries; /* owned */
    size_t n;
};

/* Adds prefix -> fs_name (both copied; trailing '/' of prefix dropped, "/" kept).
 * STATUS_INVALID for a NULL map or an empty prefix or name, STATUS_NOMEM. */
enum status ingest_fs_map_add(struct ingest_fs_map *map, const char *prefix,
                              const char *fs_name, struct error *err) MUST_CHECK;
/* The monitored file system of a path or mount point: the longest prefix that
 * matches on a path-component boundary ("/scratch" matches "/scratch/a" and
 * "/scratch", not "/scratch2"; "/" matches everything absolute). NULL when none.
 * The result is borrowed from map. */
const char *ingest_fs_lookup(const struct ingest_fs_map *map, const char *path);
void ingest_fs_map_clear(struct ingest_fs_map *map);

/* ---- Darshan logs ------------------------------------------------------------ */

enum ingest_layer { LAYER_POSIX = 0, LAYER_MPIIO, LAYER_STDIO, LAYER_COUNT };

/* One (module, rank, record id) of POSIX, MPI-IO or STDIO, counters by name.
 * Times are seconds relative to the true job start; 0 means "never". */
struct darshan_record {
    enum ingest_layer layer;
    int64_t rank;          /* -1: a shared file */
    uint64_t record_id;    /* unsigned 64-bit */
    char *file_name;       /* owned; may be "" */
    char *mount_point;     /* owned */
    char *fs_type;         /* owned */
    int64_t reads, writes; /* operation counts; MPI-IO: INDEP + COLL + SPLIT + NB */
    int64_t opens;
    int64_t bytes_read, bytes_written;
    double open_start, read_start, read_end, write_start, write_end, close_end;
    double read_time, write_time, meta_time; /* cumulative seconds */
    double slowest_rank_time;                /* *_F_SLOWEST_RANK_TIME; -1 when absent */
};

struct dxt_trace;

struct darshan_log {
    char *path;         /* owned: the file it came from */
    double log_version; /* 3.41 */
    char *exe;          /* owned: the whole command line as logged */
    uint64_t uid;
    char jobid[32];       /* as text: ids can exceed int64 */
    int64_t start_time_s; /* epoch, truncated */
    int64_t end_time_s;
    int64_t nprocs;
    double run_time_s;   /* header "run time" */
    char **mount_points; /* owned, n_mounts of each */
    char **mount_fs_types;
    size_t n_mounts;
    struct darshan_record *records; /* owned */
    size_t n_records;
    bool negative_time; /* a time counter was below 0 (not -1): taken as absent */
    /* The modules darshan marks incomplete (or that darshan-parser's text cut off),
     * comma-separated in log order ("STDIO", "POSIX,MPI-IO,LUSTRE,STDIO"); NULL when
     * the log is whole. Owned. */
    char *incomplete_modules;
    /* One of them is POSIX, MPI-IO or STDIO: every metric but t_j lacks records. */
    bool incomplete_records;
    /* The DXT trace of a binary log with a DXT_POSIX or DXT_MPIIO module (its
     * incomplete_modules names those darshan marks incomplete); NULL: none. Owned. */
    struct dxt_trace *dxt;
    size_t n_lines;            /* lines read */
    size_t n_skipped_module;   /* lines of other modules (HEATMAP, LUSTRE, H5*, …) */
    long start_line, end_line; /* the header lines of start_time, end_time; 0: binary */
};

/* The most records (POSIX, MPI-IO and STDIO, one per file, rank and module) and name
 * records one log may hold when [ingest] max_job_records sets none: the 39 real logs of
 * the shared data have at most 160, a job writing a file per rank on 100,000 ranks
 * reaches it. A log with more is STATUS_PARSE (quarantined) before the next record takes
 * memory: about 500 bytes each while parsed (a 70 MB POSIX region of 100,001 records
 * peaked at 131 MB in all), so some 50 MB per log; a job has at most twice as many
 * activity windows (a read and a write window per record). 10^6 records once took 1.38 GB
 * and loaded. */
#define INGEST_DEFAULT_MAX_JOB_RECORDS ((size_t)100000)
/* The most bytes a job's records may sum to in one direction (POSIX_BYTES_READ, …,
 * per module), 2^60 (1 EiB): a thousand times what the largest machines move in a
 * day. Above it a counter or a sum is taken as forged or saturated (9e18, a wrapped
 * sum) and the log is quarantined naming the line (text) or the record (binary). */
#define INGEST_PLAUSIBLE_BYTES ((int64_t)1 << 60)
/* The same for operation counts (reads, writes, opens): 2^50, a million operations a
 * second for 35 years. */
#define INGEST_PLAUSIBLE_OPS ((int64_t)1 << 50)
/* How far past its file's modification time a job may start or end: a day (clocks
 * of compute nodes drift, a log is copied later, never earlier than it ends). */
#define INGEST_FUTURE_SLACK_S 86400

/* Parses darshan-parser default text (Darshan 3.x, 8 tab-separated fields). path
 * names the input in errors. On success *out is a new log the caller frees. An
 * incomplete log loads with what was printed and names its incomplete modules in
 * incomplete_modules: a module banner with no records after it (darshan-parser stops
 * there; the modules the region table lists after it were never printed and count as
 * incomplete too), or the parser's "contains incomplete data" note (--show-incomplete:
 * the records that follow are a part of the truth). A banner followed by its counter
 * description is a module with no records, not an incomplete one. Bad lines are
 * STATUS_PARSE naming the line
 * and what was expected, e.g. "expected 8 tab-separated fields, got 5"; so are a
 * missing header key (darshan log version, exe, uid, jobid, start_time, end_time,
 * nprocs, run time), a record lacking a counter the metrics use, and a last counter
 * line with no newline. On any error *out is NULL and nothing is kept.
 * STATUS_INVALID for a NULL fp or out, STATUS_NOMEM. One pass, O(lines). */
enum status ingest_darshan_parse(FILE *fp, const char *path, struct darshan_log **out,
                                 struct error *err) MUST_CHECK;
/* ingest_darshan_parse with at most max_records records (0:
 * INGEST_DEFAULT_MAX_JOB_RECORDS, which ingest_darshan_parse uses). */
enum status ingest_darshan_parse_max(FILE *fp, const char *path, size_t max_records,
                                     struct darshan_log **out,
                                     struct error *err) MUST_CHECK;
/* Reads a binary .darshan log (formats 3.00 to 3.41, either byte order, zlib, bzip2
 * or no compression) into the same records ingest_darshan_parse makes of its
 * darshan-parser text: the same checks, the same incomplete_modules (the modules
 * darshan's header marks partial are left out, the rest load). STATUS_PARSE names
 * the region and what was expected; STATUS_NOMEM. */
enum status ingest_darshan_read(const unsigned char *data, size_t len, const char *path,
                                struct darshan_log **out, struct error *err) MUST_CHECK;
/* ingest_darshan_read with the log's regions held to max_bytes inflated in all (0:
 * INGEST_DEFAULT_MAX_FILE_BYTES, which ingest_darshan_read uses) and its records and
 * name records to max_records each (0: INGEST_DEFAULT_MAX_JOB_RECORDS): a log that
 * needs more is STATUS_PARSE, "... needs more than N bytes inflated" or "expected at
 * most N records in a job". */
enum status ingest_darshan_read_max(const unsigned char *data, size_t len,
                                    const char *path, size_t max_bytes,
                                    size_t max_records, struct darshan_log **out,
                                    struct error *err) MUST_CHECK;
/* True when data starts like a binary Darshan 3.x log (its magic number). */
bool ingest_darshan_is_binary(const unsigned char *data, size_t len);
void darshan_log_free(struct darshan_log *log);

/* Writes the binary Darshan log at path (read whole; formats 3.00 to 3.41, either
 * byte order, zlib, bzip2 or none) to out as `darshan-parser` 3.5.0 prints it: the
 * header lines, the log file regions, the mount table and per module its banner, the
 * column line and every counter line (the comment blocks are ours). A module the log
 * marks incomplete stops the dump after its banner with STATUS_PARSE naming it, as
 * darshan-parser stops, unless show_incomplete (its --show-incomplete).
 * STATUS_NOT_FOUND when path cannot be read; STATUS_PARSE for a log that cannot be
 * (err names the file and the region); STATUS_NOMEM. */
enum status ingest_darshan_dump(FILE *out, const char *path, bool show_incomplete,
                                struct error *err) MUST_CHECK;
/* ingest_darshan_dump of the log's bytes data[0..len) (borrowed), already read; path
 * names it in errors. STATUS_INVALID for a NULL out, data or path. */
enum status ingest_darshan_dump_bytes(FILE *out, const unsigned char *data, size_t len,
                                      const char *path, bool show_incomplete,
                                      struct error *err) MUST_CHECK;

/* Writes the binary Darshan log at path to out as darshan-dxt-parser 3.5.0 prints it
 * (the header, the regions and mounts, then per DXT module a banner and one block per
 * (file, rank) of its traced operations; "no DXT module data" when it has none).
 * STATUS_PARSE for a log that cannot be read, or, after its banner, for a DXT module
 * the log marks incomplete ("incomplete: DXT_POSIX"; darshan-dxt-parser stops there
 * too); STATUS_NOT_FOUND when path cannot be read; STATUS_NOMEM. */
enum status ingest_darshan_dump_dxt(FILE *out, const char *path,
                                    struct error *err) MUST_CHECK;
/* ingest_darshan_dump_dxt of the log's bytes data[0..len) (borrowed), already read;
 * path names it in errors. STATUS_INVALID for a NULL out, data or path. */
enum status ingest_darshan_dump_dxt_bytes(FILE *out, const unsigned char *data,
                                          size_t len, const char *path,
                                          struct error *err) MUST_CHECK;

/* ---- DXT traces (darshan-dxt-parser text) ----------------------------------- */

enum dxt_module { DXT_MOD_POSIX = 0, DXT_MOD_MPIIO };

/* One traced operation: a row of darshan-dxt-parser. */
struct dxt_op {
    bool is_write;
    int64_t offset;        /* bytes; -1: not recorded (DXT_MPIIO of Darshan 3.1
                              prints -1, or has no Offset column) */
    int64_t length;        /* bytes */
    double start_s, end_s; /* seconds relative to the job start */
    uint64_t pthread_id;   /* 0 when "N/A" or no Pthread-ID column */
    int64_t ost;           /* the first Lustre OST the operation touches; -1: none */
};

/* The DXT trace of one file on one rank (darshan_bin.h's struct dbin_dxt_file, with
 * owned strings). */
struct dxt_file_trace {
    enum dxt_module module; /* DXT_POSIX or DXT_MPIIO */
    uint64_t record_id;     /* unsigned 64-bit */
    int64_t rank;
    char *hostname; /* owned */
    int64_t write_count, read_count;
    struct dxt_op *ops; /* owned: write_count writes, then read_count reads */
    size_t n_ops;       /* write_count + read_count */
    char *file_name;    /* owned; as printed ("(null)" for an unnamed record) */
    char *mount_point;  /* owned; "UNKNOWN" when darshan knew none */
    char *fs_type;      /* owned; "UNKNOWN" when darshan knew none */
};

/* One darshan-dxt-parser output, whole. */
struct dxt_trace {
    char *path; /* owned: the file it came from */
    /* the job's identity, as in struct darshan_log: */
    double log_version;
    char *exe; /* owned */
    uint64_t uid;
    char jobid[32];
    int64_t start_time_s, end_time_s, nprocs;
    double run_time_s;
    /* The DXT modules the text lacks in part, comma-separated in log order
     * ("DXT_POSIX,DXT_MPIIO"): a module banner that ends the text with no file block
     * after it (darshan-dxt-parser stops there; the DXT modules the region table lists
     * after it were never printed), or the parser's "contains incomplete data" note
     * (--show-incomplete: the blocks that follow are a part of the truth). NULL: the
     * trace is whole. Owned. */
    char *incomplete_modules;
    struct dxt_file_trace *files; /* owned, in text order */
    size_t n_files;
    size_t n_ops; /* all operations */
};

/* Parses darshan-dxt-parser output (Darshan 3.1 to 3.5 text: with or without the
 * Offset, [OST] and Pthread-ID columns and the "number of threads" line). path names
 * the input in errors. The header is darshan-parser's, with the same checks and
 * messages as ingest_darshan_parse. Each file block must hold exactly write_count
 * writes then read_count reads, of the block's rank and module, with
 * 0 <= start <= end <= max(run time, end_time - start_time + 1) + 2 s (darshan.c's
 * limit), lengths >= 0 and offsets >= 0 or -1. Anything else is STATUS_PARSE naming the
 * line and what was expected. On success *out is new (dxt_trace_free); on error it is
 * NULL. STATUS_INVALID for a NULL fp or out, STATUS_NOMEM. One pass, O(lines); memory is
 * bounded by what the text holds, never by the counts it states. */
enum status ingest_dxt_parse(FILE *fp, const char *path, struct dxt_trace **out,
                             struct error *err) MUST_CHECK;
void dxt_trace_free(struct dxt_trace *t);

/* An activity window (docs/method.md §2), absolute epoch seconds. */
struct job_window {
    double start_s, end_s;
    bool is_write;
    bool monitored; /* the file is on a monitored file system */
    int64_t bytes;  /* bytes moved by the file in this direction */
    const char *fs; /* monitored fs name (borrowed from the fs map) or NULL */
};

#define INGEST_LOG_FIELD(NAME, name, type, listed) LOG_CTYPE_##type name;

/* Metrics of docs/method.md §2 that need only the log. Times in seconds, bytes. */
struct job_metrics {
    char job_key[33];     /* hash of (jobid, uid, start, end, nprocs, exe) */
    char executable[128]; /* basename of the first token of exe */
    /* the log family: one field per value of common/log_family.h, named as there */
    LOG_VALUES(INGEST_LOG_FIELD)
    int64_t n_unique_files, n_shared_files;
    char group_key[256]; /* "uid|executable|nprocs|b(read)|b(write)|b(unique)|b(shared)"*/
    char group_id[17];   /* stable 64-bit hash of group_key, 16 hex digits */
    struct job_window *windows; /* owned */
    size_t n_windows;
};

/* A job's key (docs/interfaces.md "Identity"): a hash of (jobid, uid, start, end, nprocs,
 * exe) as decimal text; the same for a log, its text and its DXT trace. */
void ingest_job_key(const char *jobid, uint64_t uid, int64_t start_time_s,
                    int64_t end_time_s, int64_t nprocs, const char *exe, char out[33]);

/* Computes the log-only metrics of log with the monitored file systems of map (may
 * be NULL: nothing is monitored; windows borrow fs names from it). *out is
 * overwritten whole (clear it first when reusing it); out->windows, sorted by start,
 * is owned by out (job_metrics_clear frees it). A record whose operations have no
 * end timestamp gets no window (and span 0 in t_fr / t_fw); see metrics.c.
 * STATUS_INVALID for a NULL log or out, STATUS_NOMEM (then *out is cleared). */
enum status ingest_job_metrics(const struct darshan_log *log,
                               const struct ingest_fs_map *map, struct job_metrics *out,
                               struct error *err) MUST_CHECK;
void job_metrics_clear(struct job_metrics *m);

/* b(v) of docs/method.md §4: 0 for v = 0, else 1 + floor(ln v / ln 1.2). */
int ingest_size_bin(double v);

/* ---- server samples ---------------------------------------------------------- */

/* The longest device name a sample keeps, with its NUL. */
#define DEVICE_NAME_MAX 64

/* One device's sample: rates over the interval that ends at stamp_s. */
struct iostat_sample {
    char device[DEVICE_NAME_MAX];
    int64_t stamp_s;     /* epoch seconds, UTC, as placed (ingest_iostat_parse_from) */
    double r_bps, w_bps; /* bytes per second (kB = 1024) */
    double ro_ps, wo_ps; /* operations per second; NAN when unavailable (tps-only) */
    double ops_total_ps; /* r/s + w/s, or tps where that is all there is */
    /* The queue (docs/method.md §11) as printed; NAN when the source lacks the column. */
    double aqu_sz;                 /* aqu-sz (avgqu-sz): mean queue length */
    double util_pct;               /* %util, percent */
    double r_await_ms, w_await_ms; /* ms per read / write request */
    double await_ms; /* ms per request, only where r_await / w_await are absent */
};

/* The formats ingest_iostat_parse recognises. */
enum iostat_format {
    IOSTAT_FORMAT_NONE = 0, /* not known (yet), or a stream that cannot continue */
    IOSTAT_FORMAT_TEXT,     /* iostat text */
    IOSTAT_FORMAT_SADF,     /* sadf -d */
    IOSTAT_FORMAT_JSON      /* iostat -o JSON or sadf -j: re-parsed whole when grown */
};

/* Where the parse of a growing text file stopped, and what the next parse needs to
 * continue it there (the ledger of loaded sample files). */
struct iostat_resume {
    enum iostat_format format; /* TEXT or SADF continue; others never do */
    char host[128];            /* the host so far ("" when none yet) */
    bool have_accepted;        /* accepted_stamp_s is set */
    int64_t accepted_stamp_s;  /* the last report accepted, epoch seconds */
    int64_t gap_s;             /* its printed stamp's distance to the placed one before
                                  it (set-aside rule, placement); 0 at a stream's first */
    double interval_s;         /* the file's Δ as first computed; 0: none yet */
    size_t stream_reports;     /* iostat text: reports since the banner (0: the next
                                  one is the since-boot report) */
    char header[1024];         /* sadf -d: the header line in force, "" when none */
    bool resync;               /* a cut tail was set aside just before: skip to the
                                  next report */
    long lines;                /* lines of the file before this point */
};

struct iostat_data {
    char host[128];                /* from the banner or sadf hostname; "" when unknown */
    struct iostat_sample *samples; /* owned */
    size_t n;
    double interval_s;           /* median stamp difference; 0 when fewer than 2 stamps */
    size_t n_reports_dropped;    /* the since-boot report */
    size_t n_reports_aside;      /* set aside: an implausible stamp or a negative rate */
    size_t n_reports_cut;        /* a cut last line: its report left for a later run */
    size_t n_devices_excluded;   /* device lines not matching the include regex */
    size_t complete_bytes;       /* bytes of the input through the last report known
                                    complete: what the next parse need not read */
    struct iostat_resume resume; /* the state after complete_bytes */
};

/* What a parse of samples needs besides the bytes. */
struct iostat_parse_opts {
    const char *device_include; /* POSIX extended regex; NULL: the default of
                                   docs/interfaces.md */
    const char *timezone;       /* IANA zone of stamps printed without one; NULL: UTC */
    /* names of devices known by number only (sysstat's devMAJ-MIN, as in an sa file):
     * "MAJ:MIN=NAME, ..." (device_names_check); NULL: the fixed majors only */
    const char *device_names;
    int64_t mtime_s; /* the file's mtime, epoch seconds; INT64_MAX: unknown */
    int64_t now_s;   /* the time of the parse; INT64_MAX: unknown */
};

/* Parses iostat text (-d -x [-k|-m] -t, with or without avg-cpu blocks, ISO or
 * locale stamps), iostat JSON (-o JSON), sadf -d (CSV) and sadf -j. The format is
 * recognised from the contents. device_include is a POSIX extended regex (NULL: the
 * default of docs/interfaces.md). The first report of an iostat stream is dropped, never
 * sadf's. Columns are mapped by name. Errors name the line and what was expected.
 * Stamps printed with a zone (ISO with an offset or Z, sadf's UTC) keep it; stamps
 * without one (MM/DD/YY locale stamps) are read in UTC here, in opts->timezone with
 * ingest_iostat_parse_from. Reports are taken in file order: a report whose printed
 * second repeats or skips one is placed by its position (see
 * ingest_iostat_parse_from); iostat without -t is STATUS_PARSE "no timestamps: run
 * iostat with -t". On success *out is new (iostat_data_free); on error it is NULL:
 * STATUS_PARSE (contents; "no samples" when nothing is kept), STATUS_INVALID (a bad
 * regex or time zone, fp or out NULL), STATUS_NOMEM, STATUS_INTERNAL (a read error).
 * fp is read, never closed. */
enum status ingest_iostat_parse(FILE *fp, const char *path, const char *device_include,
                                struct iostat_data **out, struct error *err) MUST_CHECK;
/* ingest_iostat_parse, knowing the file's mtime (epoch seconds; INT64_MAX when
 * unknown). A report is set aside (logged with its line, counted in
 * n_reports_aside; the rest of the file loads) when its stamp is before 2000, more
 * than a day after mtime_s, outside the file's majority clock (its stamps sorted
 * and split where two are more than a day apart: the run with the most reports is
 * kept, a tie going to the one the mtime and the banner's date agree with; so a
 * clock reset at the file's start cannot become its reference), more than a day
 * from where its place puts it (the last accepted stamp plus the distance before
 * it), when it cannot be placed after
 * the report before it (a step back), or when a row has a negative rate. A cut last
 * line (no newline: a file still being written) leaves its report out
 * (n_reports_cut) and loads the complete ones. */
enum status ingest_iostat_parse_file(FILE *fp, const char *path,
                                     const char *device_include, int64_t mtime_s,
                                     struct iostat_data **out,
                                     struct error *err) MUST_CHECK;
/* ingest_iostat_parse_file with opts (NULL: the defaults, UTC), continuing a text
 * file where an earlier parse stopped (from, as that parse's resume; NULL: the
 * file's start). fp then holds the bytes after the earlier complete_bytes: no
 * since-boot report is dropped unless a banner starts a new stream, the set-aside
 * rule and the placement continue from the last accepted stamp, lines are numbered
 * from from->lines, and a chunk with no new complete report is STATUS_OK with n = 0.
 * A report is known complete once a blank line ends its device table (iostat) or a
 * record of a later stamp follows it (sadf -d); complete_bytes stops before any
 * other, so the next parse reads it again. A cut last line (no newline) of a file
 * last written more than a day before opts->now_s is set aside (logged as a warning
 * with its line, counted in n_reports_aside) and complete_bytes then covers it. A
 * cut JSON document (a file still being written) loads the complete elements of its
 * statistics array; the cut one counts as n_reports_cut, or as set aside after a
 * day.
 *
 * Placement, with Δ the interval (sadf's interval column, else from->interval_s,
 * else the median printed spacing of the input) when it is a whole number of seconds:
 * a report whose printed stamp is one second from the last accepted stamp A plus Δ,
 * when A itself was printed Δ after the one before it, is placed at A + Δ; a
 * report printed at A (a repeat) is placed at A + Δ; any other report after A keeps
 * its stamp, and one before A is set aside. The first report of a stream keeps its
 * stamp. A local stamp that a time change makes ambiguous is the instant nearer
 * A + Δ; one in a skipped hour is read with the offset before the change. A resumed
 * parse places reports as a whole parse with the same Δ does. Statuses as
 * ingest_iostat_parse. */
enum status ingest_iostat_parse_from(FILE *fp, const char *path,
                                     const struct iostat_parse_opts *opts,
                                     const struct iostat_resume *from,
                                     struct iostat_data **out,
                                     struct error *err) MUST_CHECK;
void iostat_data_free(struct iostat_data *d);

#define INGEST_DEFAULT_DEVICE_INCLUDE "^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)$"

/* Checks `[devices] names`: "MAJ:MIN=NAME" pairs separated by commas or blanks, each
 * NAME of letters, digits and "_-.:" shorter than DEVICE_NAME_MAX. STATUS_INVALID
 * with what was expected. */
enum status device_names_check(const char *names, struct error *err) MUST_CHECK;
/* The name that names ("MAJ:MIN=NAME, ...") gives a device that sysstat calls
 * devMAJ-MIN (an sa file keeps numbers only), into out. false (out untouched) for any
 * other device or when names has none for it: it keeps sysstat's name. */
bool device_name_of(const char *device, const char *names, char *out, size_t size);
/* Whether device is sysstat's name of a device it could not name: devMAJ-MIN. */
bool device_numbered(const char *device);

/* ---- time zones ------------------------------------------------------------------ */

/* An IANA time zone's UTC offsets over time, read from its TZif file. */
struct ingest_zone;

/* The zone named name (Europe/Berlin: /usr/share/zoneinfo/Europe/Berlin; "UTC" and
 * NULL need no file). Read once per process and kept for its life: *out is borrowed
 * for ever. Thread-safe. STATUS_INVALID naming the zone when there is no such zone
 * (or its file is not TZif, or the name is not a zone name), STATUS_NOMEM. */
enum status ingest_zone_get(const char *name, const struct ingest_zone **out,
                            struct error *err) MUST_CHECK;
const char *ingest_zone_name(const struct ingest_zone *z);
/* The offset east of UTC, seconds, in force at instant t (epoch seconds). */
int32_t ingest_zone_offset(const struct ingest_zone *z, int64_t t);
/* The instants (epoch seconds, increasing) whose local time in z is local_s (a civil
 * time counted as if it were UTC): 2 in an hour a time change repeats, else 1 (in a
 * skipped hour: read with the offset before the change). Returns how many. */
size_t ingest_zone_instants(const struct ingest_zone *z, int64_t local_s, int64_t out[2]);

/* ---- the loader (files → database) ---------------------------------------------- */

struct db;

struct ingest_opts {
    const struct ingest_fs_map *fs_map; /* monitored file systems (darshan) */
    const char *device_include;         /* iostat device regex, NULL: default */
    const char *fs;           /* iostat: the file system the samples belong to */
    const char *server;       /* iostat: server name, NULL: the file's host */
    const char *timezone;     /* iostat: zone of stamps printed without one; NULL: UTC */
    const char *device_names; /* iostat: [devices] names (device_name_of); NULL: none */
    const struct progress *progress; /* per file loaded; NULL: none */
    size_t max_file_bytes; /* larger inputs are quarantined "too large"; 0: the default */
    size_t max_job_records; /* darshan: records per log, more quarantined; 0: default */
    unsigned jobs;          /* threads reading and parsing; 0: one per processor */
    size_t batch_files;     /* darshan: logs per transaction; 0: the default */
    /* ingest --reprocess: a file whose content was loaded before is read again and
     * what this version extracts that older ones did not is filled in: the queue
     * columns of its samples that have none (db_samples_refill), the DXT trace of a
     * log whose job has none (db_traces_fill), and the file-system mapping of its
     * job ([filesystems] as it is now: monitored bytes, the windows' and trace
     * windows' file systems) where it changed. No other row changes, none is added
     * twice; files not loaded before load as usual. */
    bool reprocess;
};

/* Darshan logs per transaction when the configuration sets none ([ingest]
 * batch_files): a commit's cost shared by many, memory bounded by the batch. */
#define INGEST_DEFAULT_BATCH_FILES ((size_t)1000)

/* The size cap of one input when the configuration sets none ([ingest]
 * max_file_bytes): 64 MiB. */
#define INGEST_DEFAULT_MAX_FILE_BYTES ((size_t)64 << 20)

/* How many folders below a root given to ingest the walk enters: a folder deeper
 * than this is refused with its name ("too deep"), the rest of the tree loads. */
#define INGEST_WALK_MAX_DEPTH 64

/* How many failures a summary lists with their reasons; the rest are counted
 * (errors_more), the whole quarantine stays in `iocontend quarantine list`. */
#define INGEST_SUMMARY_ERRORS 20

struct ingest_failure {
    char path[512];
    long line; /* 0 when none */
    char message[200];
};

struct ingest_summary {
    int64_t run_id; /* the run's row of ingest_runs (unload --run); 0 when none began */
    /* files: every input named or found by the walk with an input's name, each in
     * exactly one of loaded, unchanged, quarantined, known_bad, missing, refused,
     * reprocessed, reread_failed (they add up to files). not_input: the walk's other
     * files, no input (not among files). skipped: unchanged + not_input, as
     * docs/interfaces.md's JSON has always said it ("already loaded or not an input"). */
    long files, loaded, skipped, quarantined, missing;
    long unchanged; /* its content loaded before (or by an earlier file of the run),
                       or no new complete report: nothing read in */
    long not_input; /* a file of a walked folder without an input's name, a link */
    long known_bad; /* quarantined before, unchanged: not parsed again */
    long refused;   /* refused before any read: not a regular file, a folder too deep
                       or that cannot be read */
    long jobs;
    long long samples;
    long reprocessed;   /* --reprocess: files loaded before and read again */
    long reread_failed; /* --reprocess: files loaded before that no longer parse */
    long long filled;   /* --reprocess: samples given queue columns, traces added */
    long remapped;      /* --reprocess: jobs whose file-system mapping changed */
    double seconds;
    struct ingest_failure *errors; /* owned; quarantined, refused and missing inputs,
                                      the first INGEST_SUMMARY_ERRORS of them */
    size_t n_errors;
    long errors_more; /* failures past the first INGEST_SUMMARY_ERRORS, not listed */
};

/* Loads darshan-parser text files; a directory is walked for parser.txt,
 * *.parser.txt, dxt.txt, *.dxt.txt (DXT text is recognised and skipped: not loaded
 * yet). Each log goes in whole, in its own transaction, or to the quarantine list
 * (ingest_errors) with its reason. Content already loaded is skipped. STATUS_OK
 * when the batch ran (inspect the summary); STATUS_DB when the database failed. */
enum status ingest_darshan_paths(struct db *db, char *const *paths, size_t n_paths,
                                 const struct ingest_opts *opts, struct ingest_summary *s,
                                 struct error *err) MUST_CHECK;
/* Loads iostat / sadf outputs for opts->fs; a directory is walked for *.txt, *.json,
 * *.csv. As ingest_darshan_paths otherwise. */
enum status ingest_iostat_paths(struct db *db, char *const *paths, size_t n_paths,
                                const struct ingest_opts *opts, struct ingest_summary *s,
                                struct error *err) MUST_CHECK;
void ingest_summary_clear(struct ingest_summary *s);

/* What a failed database step (e, with its SQLSTATE in e->sqlstate) means for a
 * batch: STATUS_PARSE for classes 22 (data exception) and 23 (integrity): the file's
 * data, quarantined, and the batch goes on; STATUS_DB for 08 and 57 (the
 * connection) and 53 and 58 (resources, a full disk: cli/ tells them apart by the
 * SQLSTATE, exit 74) and for no SQLSTATE at all (libpq's own failure); anything else
 * is a statement of ours that is wrong, STATUS_INTERNAL. Any other status than
 * STATUS_DB is returned as it is. */
enum status ingest_db_failure(const struct error *e);

#endif
