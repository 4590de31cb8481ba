/* internal.h: what the loader (loader.c), the darshan pipeline (pipeline.c) and the
 * sample files' (samples.c) share, most of it in outcome.c; included from ingest/
 * only. */
#ifndef IOCONTEND_INGEST_INTERNAL_H
#define IOCONTEND_INGEST_INTERNAL_H

#include "ingest.h"

#include "../sql/db.h"

#include <stdio.h>
#include <sys/stat.h>

enum input_kind { INPUT_DARSHAN, INPUT_IOSTAT };

/* Records a quarantined, refused or missing input in s's list: the first
 * INGEST_SUMMARY_ERRORS of them, the rest (and any lost when out of memory) only
 * counted in s->errors_more; the counts by kind are the caller's. */
void add_failure(struct ingest_summary *s, const char *path, long line, const char *msg);
/* A file quarantined before whose content and verdict are unchanged (shown: its path
 * escaped): counted, listed and logged, so that every run says it is still
 * quarantined. */
void still_quarantined(struct ingest_summary *s, const char *shown);
/* ingest --reprocess: a file loaded before that no longer parses (e says why) is
 * listed, counted and logged; nothing stored changes, it is not quarantined. */
void reread_failed(struct ingest_summary *s, const char *path, const char *shown,
                   const struct error *e);

/* ---- inputs as the parsers see them (source.c) ---------------------------------- */

/* The compressions an input may come in, recognised by their magic bytes. */
enum source_codec { SOURCE_PLAIN = 0, SOURCE_GZIP, SOURCE_BZIP2, SOURCE_XZ };

/* An input's bytes, decompressed. */
struct source {
    char *data; /* owned, NUL-terminated; NULL when too large or corrupt */
    size_t len;
    enum source_codec codec;
    bool too_large;    /* more than max bytes, as stored or decompressed: none kept */
    bool corrupt;      /* a compressed stream that is corrupt or cut short */
    char raw_hash[33]; /* corrupt: the hash of the stored bytes (its stand-in key) */
};

/* The codec whose magic data[0, n) starts with; SOURCE_PLAIN when none. */
enum source_codec source_codec_of(const unsigned char *data, size_t n);
/* "plain", "gzip", "bzip2", "xz". */
const char *source_codec_name(enum source_codec c);
/* Reads fp to its end into *out: a gzip, bzip2 or xz stream (concatenated members
 * too) decompressed in memory, anything else as it is. More than max bytes, stored
 * or decompressed, stops the read with out->too_large (never inflating past max + 1
 * bytes). STATUS_PARSE with out->corrupt for a corrupt or cut stream (err says what:
 * "corrupt gzip stream: cut short ..."), STATUS_NOT_FOUND for a read error,
 * STATUS_NOMEM; STATUS_OK otherwise. path names the input in errors. */
enum status source_decode(FILE *fp, const char *path, size_t max, struct source *out,
                          struct error *err) MUST_CHECK;
/* source_decode of the file at path (STATUS_NOT_FOUND when it cannot be opened). */
enum status source_read(const char *path, size_t max, struct source *out,
                        struct error *err) MUST_CHECK;
void source_free(struct source *s);
/* The refusal of an input over the size cap max in err: its size as stored (st, when
 * have_st), or, compressed (codec), more than max once decompressed. */
void source_too_large(const struct stat *st, bool have_st, enum source_codec codec,
                      size_t max, struct error *err);
/* The name path has without a compression suffix (.gz, .bz2, .xz) into out. */
void source_plain_name(const char *path, char *out, size_t size);

/* ---- sa files through sadf (sadf.c) ------------------------------------------- */

/* True when data starts with the magic of sysstat's binary sa files (either byte
 * order). */
bool sa_is_file(const unsigned char *data, size_t len);
/* The disk activity of the sa file data[0, len) as `sadf -j FILE -- -d -p` prints it
 * (the sadf on PATH, run with fork and exec, LC_ALL=C and TZ=UTC, on a memory copy of
 * the bytes; an older sysstat's file converted by sadf -c first): *json new (caller
 * frees), its length in *json_len. The output is bounded by max, the run by a time
 * limit. STATUS_NOT_FOUND for what is not the file's fault and may load later:
 * sadf missing (naming Debian's package), a file of a newer sysstat than this sadf
 * reads (naming the version it needs); STATUS_PARSE for sadf's refusal (its exit
 * status and message), a time-out or an output past max; STATUS_NOMEM. */
enum status sa_to_json(const char *data, size_t len, const char *path, size_t max,
                       char **json, size_t *json_len, struct error *err) MUST_CHECK;
/* Parses sadf -j output (json[0, len)) with the sadf -j parser of iostat.c, keeping
 * the samples stamped after *after_s (all when after_s is NULL: the ledger's last
 * loaded record of a grown sa file). Any other format than JSON is STATUS_PARSE.
 * opts: the device include and names and the file's mtime (its stamps are sadf's, in
 * UTC). Statuses as ingest_iostat_parse_from; *out new on STATUS_OK. */
enum status sa_samples_after(const char *json, size_t len, const char *path,
                             const struct iostat_parse_opts *opts, const int64_t *after_s,
                             struct iostat_data **out, struct error *err) MUST_CHECK;

/* The content hash of len bytes of data. */
void content_hash(const char *data, size_t len, char hash[33]);
/* A stand-in content hash for a file too large to read: its size and mtime. */
void size_hash(const struct stat *st, char hash[33]);

/* What besides a file's content shapes whether it loads (iocontend's version, the
 * kind of input, the parsers' settings): the quarantine's verdict key. */
void verdict_of(enum input_kind kind, const struct ingest_opts *o, size_t max, char *out,
                size_t size);

/* Stops the batch on err (ingest_db_failure's status), naming the file. */
enum status stop_batch(const char *path, struct error *err);
/* Quarantines the file (shown: its path escaped) with why; STATUS_OK unless the
 * quarantine itself could not be recorded for another reason than its text. */
enum status quarantine(struct db *db, struct ingest_summary *s, const char *path,
                       const char *shown, const char *hash, const char *verdict,
                       const struct error *why, struct error *err);
/* After a failed load: bad data quarantine the file, anything else stops. */
enum status load_failed(struct db *db, struct ingest_summary *s, const char *path,
                        const char *shown, const char *hash, const char *verdict,
                        const struct error *dberr, struct error *err);

/* The rows a DXT trace loads (0012_dxt.sql). in borrows from the rest. */
struct trace_rows {
    char job_key[33];
    struct db_trace_in in;
    struct db_trace_file_in *files; /* owned, n_files */
    size_t n_files;
    unsigned char **ops;          /* owned: each file's packed, compressed operations */
    char **strings;               /* owned: each file's hostname and file name, escaped */
    struct db_window_in *windows; /* owned: merged; fs borrowed from the fs map */
    size_t n_windows;
};
/* The rows of trace t, whose job key comes from t's own header; windows take the
 * monitored file systems of map (may be NULL). STATUS_PARSE, STATUS_NOMEM; on failure
 * *r is empty. */
enum status trace_rows_make(const struct dxt_trace *t, const struct ingest_fs_map *map,
                            struct trace_rows *r, struct error *err) MUST_CHECK;
void trace_rows_free(struct trace_rows *r);

/* darshan-dxt-parser output: by its name, or by its per-file block headers. */
bool is_dxt_text(const char *path, const char *data);

/* The text of a job as stored: the input's bytes escaped (str_escape), owned. The
 * keys (job_key, group_id) stay hashes of the raw bytes, so identities never change. */
struct job_text {
    char *exe, *executable, *group_key, *jobid;
    char *incomplete_modules; /* NULL: the log is whole */
};
void job_text_free(struct job_text *t);
/* The rows db_jobs_load_batch writes for log and its metrics m: *job borrows from both,
 * from *text and from *windows, which are new (caller frees; windows NULL when the job
 * has no window, text with job_text_free). */
enum status job_rows(const char *path, const struct darshan_log *log,
                     const struct job_metrics *m, struct db_job_in *job,
                     struct db_window_in **windows, struct job_text *text,
                     struct error *err) MUST_CHECK;

/* The sample files paths[0..n) (a sorted list) of run run_id, quarantined under
 * verdict: a chunk at a time read, hashed and parsed on opts->jobs threads, checked and
 * loaded one file at a time in path order, each in its own transaction, every
 * outcome and log line in that order. A stop at the check of a file first loads the
 * files before it. */
enum status ingest_sample_files(struct db *db, int64_t run_id, char *const *paths,
                                size_t n, const struct ingest_opts *opts,
                                const char *verdict, struct ingest_summary *s,
                                struct error *err) MUST_CHECK;

/* Loads the darshan-parser text files paths[0..n) (a sorted list) of run run_id:
 * read, hashed and parsed on opts->jobs threads, batches of files sent in one
 * transaction each, every outcome recorded in s in the order of paths. A batch the
 * database refuses is loaded again file by file, so that only the file to blame is
 * quarantined or named; a lost connection stops at the batch, naming its files. */
enum status ingest_darshan_files(struct db *db, int64_t run_id, char *const *paths,
                                 size_t n, const struct ingest_opts *opts,
                                 struct ingest_summary *s, struct error *err) MUST_CHECK;

#endif
