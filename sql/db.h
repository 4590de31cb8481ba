/* db.h: the one data-access module. Every SQL string of iocontend lives in sql/:
 * the migrations and this module. Also the life of the embedded server. */
#ifndef IOCONTEND_DB_H
#define IOCONTEND_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db_family.h"

#include "../common/common.h"

/* ---- which database, and the embedded server ----------------------------------- */

struct db_target {
    bool embedded;        /* true: iocontend's own server under state_dir */
    char conninfo[1024];  /* what libpq is given ("" = libpq's PG* defaults) */
    char state_dir[512];  /* the state directory (docs/interfaces.md), absolute */
    char state_why[256];  /* why that one: "--state-dir given", "the default …" */
    bool state_default;   /* state_dir is the default, not chosen */
    char data_dir[600];   /* state_dir/pg */
    char socket_dir[128]; /* state_dir/run (a state_dir too long for a socket path
                             is refused, DB_STATE_DIR_MAX) */
    char server_user[64]; /* the embedded server's system user: the owner of
                             data_dir when that is postgres or us, else postgres as
                             root and us otherwise; libpq's requirepeer */
    unsigned server_uid;  /* its uid */
    char reason[256];     /* why this database: "--db given", "PGHOST is set", … */
    char user[64];        /* the role db_open connects as, beating conninfo's; "" for
                             conninfo's own (serve sets DB_READER_ROLE) */
};

/* The read-only role db_migrate makes (SELECT on every table of the schema, present
 * and future) and serve connects as; the embedded server's pg_ident.conf maps root,
 * the embedded server's user and the system user "iocontend" to it. */
#define DB_READER_ROLE "iocontend_reader"

/* Where the state directory was chosen, besides IOCONTEND_STATE_DIR. Strings are
 * borrowed; NULL or "" when not given. */
struct db_state_opts {
    const char *arg;         /* --state-dir (beats IOCONTEND_STATE_DIR) */
    const char *config;      /* [database] state_dir (below IOCONTEND_STATE_DIR) */
    const char *config_path; /* the file that set config or conninfo, for the reasons */
    const char *conninfo;    /* [database] conninfo (below --db and the environment) */
};

/* Decides the database as docs/interfaces.md says: db_arg (--db) or IOCONTEND_DB or any
 * of PGHOST, PGHOSTADDR, PGPORT, PGDATABASE, PGSERVICE or state->conninfo (the
 * file's) → configured, in that order, the reason naming which; otherwise the
 * embedded server under the state directory: state->arg > IOCONTEND_STATE_DIR >
 * state->config > /var/lib/iocontend as root, ${XDG_STATE_HOME:-~/.local/state}/
 * iocontend otherwise (never the working directory). state may be NULL. Creates
 * nothing. STATUS_INVALID for a path that is too long or a relative configured one. */
enum status db_target_resolve(const char *db_arg, const struct db_state_opts *state,
                              struct db_target *out, struct error *err) MUST_CHECK;

/* Embedded server life. init creates its data directory when absent (no-op otherwise) and
 * writes its pg_hba.conf / pg_ident.conf (peer authentication only); start inits
 * when needed, clears a stale postmaster.pid and starts the server (no-op when
 * running); stop stops it. As root the server runs as the postgres user (a child
 * that drops to it, then runs pg_ctl by its absolute path). No symbolic link in the state
 * directory is followed and a directory or log another user owns, or a socket directory
 * looser than 0750, is refused (STATUS_INVALID naming it), and so is a state directory
 * under a parent that a user other than root, us or the server's user may write in
 * (sticky folders such as /tmp protect the entries others do not own). A state directory
 * that is read-only, foreign or cannot be made sets err->os_errno (EROFS, EPERM, EACCES,
 * or mkdir's errno); init and start refuse a state or data directory with less than
 * DB_MIN_FREE_BYTES free (STATUS_DB, os_errno ENOSPC, naming the folder and the free
 * bytes). STATUS_INVALID for a configured target or a default state
 * directory without a database while ./var/pg holds one; STATUS_DB when a PostgreSQL
 * program fails (err names it); STATUS_NOT_FOUND when the server binaries are
 * missing. */
/* The longest state directory the embedded server's socket path fits under:
 * sun_path holds 107 bytes and "/run/.s.PGSQL.5432" follows it. */
#define DB_STATE_DIR_MAX 89
/* The free space a run needs in the state and data directories: a few WAL segments
 * (16 MiB each) and the night's rows. */
#define DB_MIN_FREE_BYTES (64ULL << 20)

enum status db_embedded_init(struct db_target *t, struct error *err) MUST_CHECK;
enum status db_embedded_start(struct db_target *t, struct error *err) MUST_CHECK;
enum status db_embedded_stop(const struct db_target *t, struct error *err) MUST_CHECK;
/* true when the embedded server answers. */
bool db_embedded_running(const struct db_target *t);
/* Whether t names a database that is there, so that a command that only reads or
 * analyses never starts an empty embedded server in a mistyped state directory. STATUS_OK
 * for a configured target, an embedded one whose data directory holds a database, and one
 * whose data directory cannot be looked into from here (the start says why);
 * STATUS_NOT_FOUND when the state directory, its data directory or the embedded server's
 * PG_VERSION is missing (err->file the state directory, err->msg why it was chosen);
 * STATUS_INVALID as db_embedded_start for a default state directory without a database
 * while ./var/pg holds one. Creates nothing. */
enum status db_target_existing(const struct db_target *t, struct error *err) MUST_CHECK;

/* ---- connections and migrations ---------------------------------------------- */

struct db;

/* Connects to t (for an embedded target the embedded server must be running). STATUS_DB
 * with libpq's message when it cannot. The embedded server is reached only through
 * a socket directory of its user (or root) that no one else may write in, and only
 * when the peer at the socket is that user (libpq's requirepeer): checked at every
 * connection, so a reconnection after `db stop; db start` finds the server again
 * and never a stranger's. *out is new; db_close frees it. */
enum status db_open(const struct db_target *t, struct db **out,
                    struct error *err) MUST_CHECK;
void db_close(struct db *db);
/* SET statement_timeout: a statement running longer than ms is cancelled by the
 * server (SQLSTATE 57014, STATUS_DB). */
enum status db_statement_timeout_set(struct db *db, unsigned long ms,
                                     struct error *err) MUST_CHECK;
/* on: a statement that fails because the connection was lost (the server
 * restarted, PQstatus CONNECTION_BAD) while no transaction was open is sent once more
 * on a new connection to the same target, with the same session settings; a second
 * failure stands. Only for sessions that read (serve's): a write whose answer was
 * lost might have been applied. Off by default. */
void db_retry_lost_set(struct db *db, bool on);
/* Asks the server to cancel the query db runs now, from any thread; nothing when it
 * runs none. */
void db_cancel(struct db *db);

/* What db_connect does before it returns the connection. */
enum db_connect_flags {
    DB_START_EMBEDDED = 1 << 0, /* start the embedded server when it is the target */
    DB_MIGRATE = 1 << 1,        /* apply the migrations not yet applied */
    DB_EXISTING = 1 << 2        /* refuse a target with no database (db_target_existing)
                                   before anything is made */
};

/* Resolves the target db_arg and state name (db_target_resolve), starts the
 * embedded server when that is the target and flags has DB_START_EMBEDDED, connects, and
 * with DB_MIGRATE applies the migrations. *out is new (db_close), NULL on failure.
 * Statuses: db_target_resolve's (STATUS_INVALID, STATUS_INTERNAL); with DB_EXISTING
 * db_target_existing's (STATUS_NOT_FOUND, STATUS_INVALID); an embedded server that
 * does not start is STATUS_INVALID when db_embedded_start said so, else STATUS_DB
 * (err keeps db_embedded_start's own code, e.g. STATUS_NOT_FOUND for missing server
 * binaries); then db_open's and db_migrate's (STATUS_DB, STATUS_NOMEM). */
enum status db_connect(const char *db_arg, const struct db_state_opts *state,
                       unsigned flags, struct db **out, struct error *err) MUST_CHECK;

/* Applies the migrations compiled in from sql/migrations/ that are not yet in
 * schema_version, each in its own transaction. *applied counts them (0 when the
 * schema is current: re-running is a no-op). Then makes DB_READER_ROLE when it is
 * missing and grants it USAGE on the schema and SELECT on its tables, present and
 * future (ALTER DEFAULT PRIVILEGES), nothing else; a migrator that may not create
 * roles gets a warning naming what the administrator should run, not a failure. */
enum status db_migrate(struct db *db, int *applied, struct error *err) MUST_CHECK;
/* db_migrate up to version target (and the role): a database one step behind, for tests.
 */
enum status db_migrate_to(struct db *db, int target, int *applied,
                          struct error *err) MUST_CHECK;
/* The highest applied migration, 0 for an empty database. */
enum status db_schema_version(struct db *db, int *version, struct error *err) MUST_CHECK;
/* The highest migration this binary knows. */
int db_schema_latest(void);

/* ---- one run of a kind at a time ------------------------------------------------ */

/* Takes the lock of one kind of run ("ingest" or "analyze") for as long as db is
 * open, so that two runs of a kind never overlap (docs/interfaces.md: exit 75). The
 * connection is named after this run (host, pid, start) for the next one to read.
 * When another run holds it: with wait, logs who and waits; else STATUS_BUSY naming
 * the holder. STATUS_DB; STATUS_INTERNAL for another kind. Once an ingest holds it,
 * every ingest run row left without an end is marked interrupted. */
enum status db_run_lock(struct db *db, const char *kind, bool wait,
                        struct error *err) MUST_CHECK;

/* ---- ingest -------------------------------------------------------------------- */

/* A new ingest run row; *run_id is its id. */
enum status db_ingest_run_begin(struct db *db, const char *kind, int64_t *run_id,
                                struct error *err) MUST_CHECK;
struct db_ingest_counts {
    long files, loaded, skipped, quarantined, jobs;
    long long samples;
    bool failed;    /* the run ended with an error (migration 0015) */
    double seconds; /* its wall time (migration 0015) */
};
enum status db_ingest_run_end(struct db *db, int64_t run_id,
                              const struct db_ingest_counts *c,
                              struct error *err) MUST_CHECK;

/* true when a file of this content hash was loaded before. */
enum status db_file_seen(struct db *db, const char *content_hash, bool *seen,
                         struct error *err) MUST_CHECK;

/* One activity window of a job to load (docs/method.md §2): a row of job_windows. */
struct db_window_in {
    double start_s, end_s; /* absolute epoch seconds */
    bool is_write;
    int64_t bytes;  /* bytes the file moved in this direction */
    const char *fs; /* its monitored file system (borrowed); NULL: not monitored */
};

/* One job to load: a row of jobs, its group (a row of app_groups, named
 * "executable (uid U, N procs)") and its windows. Strings and windows are borrowed.
 * A non-finite t_* is stored as SQL NULL. */
struct db_job_in {
    const char *job_key; /* 32 hex digits: the job's identity */
    const char *jobid;   /* as text: ids can exceed int64 */
    uint64_t uid;
    const char *exe;        /* the whole command line as logged ("" when none) */
    const char *executable; /* basename of exe's first token */
    int64_t nprocs;
    int64_t start_time_s, end_time_s; /* epoch, from the log's header */
    double run_time_s;                /* the header's run time */
    double log_version;               /* 3.41 */
    const char *group_id;             /* 16 hex digits, a hash of group_key */
    const char *group_key;            /* what defines the group (docs/method.md §4) */
    union family_value log[LOG_N];    /* the log family's values (common/log_family.h) */
    int64_t n_unique_files, n_shared_files;
    bool
        negative_time; /* a time counter below 0 was read as absent (docs/method.md §9) */
    const char *incomplete_modules; /* "POSIX,MPI-IO": marked incomplete; NULL: whole */
    bool incomplete_log;            /* one of them is POSIX, MPI-IO or STDIO */
    const struct db_window_in *windows;
    size_t n_windows;
};

/* The batch form of db_file_seen and db_quarantine_known, in one round trip each:
 * seen[i] when hashes[i] is loaded, known_bad[i] when it is quarantined under verdict
 * (its last_seen is touched). Both arrays have n entries. */
enum status db_files_check(struct db *db, const char *const *hashes, size_t n,
                           const char *verdict, bool *seen, bool *known_bad,
                           struct error *err) MUST_CHECK;

/* The DXT trace of one file on one rank: a row of dxt_ops. Strings borrowed. */
struct db_trace_file_in {
    const char *module; /* "DXT_POSIX" or "DXT_MPIIO" */
    uint64_t record_id;
    int64_t rank;
    const char *hostname, *file_name;
    int32_t n_ops;
    const unsigned char *ops; /* n_ops packed and zlib-compressed (0012_dxt.sql) */
    size_t ops_len;
};

/* A job's DXT trace (docs/method.md §10): a row of job_traces, its dxt_ops rows and its
 * merged operation windows (job_x_windows; their bytes are not stored). */
struct db_trace_in {
    const char *job_key;
    bool incomplete;
    int64_t n_ops;
    const struct db_trace_file_in *files;
    size_t n_files;
    const struct db_window_in *windows;
    size_t n_windows;
};

/* One file of a batch of logs: its path (as stored), content hash, job and trace.
 * job NULL: a trace alone (darshan-dxt-parser text), joined to its job by key
 * whenever that comes; trace NULL: the log has none. */
struct db_job_batch_item {
    const char *path;
    const char *content_hash;
    const struct db_job_in *job;
    const struct db_trace_in *trace;
};
/* Loads n files' jobs in one transaction sent with binary COPY (n = 1: one file): their
 * groups, jobs (the first item of a job key wins, as one by one in order), windows,
 * traces (likewise: a job's first trace wins, from whichever file) and loaded_files
 * rows; a job loaded before from other content with values that differ by more than
 * 1 % is warned of, in order (t_j, eta_read or eta_write). inserted[i] when item i's
 * job is new. All or nothing: on failure nothing is kept and err (with its SQLSTATE)
 * says why; the caller retries the files one by one to find the one to blame. The content
 * hashes must differ from each other and be new (db_files_check). */
enum status db_jobs_load_batch(struct db *db, int64_t run_id,
                               const struct db_job_batch_item *items, size_t n,
                               bool *inserted, struct error *err) MUST_CHECK;
/* ingest --reprocess of logs already loaded, in one transaction: the traces of items
 * go in where the job holds none yet (*added counts them); and the jobs (and traces)
 * loaded from these very contents take the file-system mapping of items (jobs'
 * eta_mon_read / eta_mon_write and windows, traces' windows, as computed with the
 * [filesystems] of now) where it differs from the stored one (*remapped counts those
 * jobs). Nothing else of a job or its loaded_files row changes. */
enum status db_traces_fill(struct db *db, const struct db_job_batch_item *items, size_t n,
                           long long *added, long *remapped,
                           struct error *err) MUST_CHECK;

/* One device's sample to load: rates over the interval that ends at stamp_s. */
struct db_sample {
    const char *device;  /* borrowed */
    int64_t stamp_s;     /* epoch seconds */
    double r_bps, w_bps; /* bytes per second */
    double ro_ps, wo_ps; /* operations per second */
    double ops_total_ps; /* any rate not finite (NAN: unavailable) is SQL NULL */
    /* The queue (docs/method.md §11, migration 0013); likewise NULL when not finite. */
    double aqu_sz, util_pct;       /* requests; percent */
    double r_await_ms, w_await_ms; /* ms per read / write request */
    double await_ms;               /* ms per request, where only that is given */
};

/* The samples of one file: rows of samples, all of file system fs and server. */
struct db_samples_in {
    const char *fs;                  /* the file system the samples belong to */
    const char *server;              /* the server they were taken on: never NULL or "" */
    double interval_s;               /* the file's sampling interval */
    const struct db_sample *samples; /* borrowed */
    size_t n;
};

/* A row of the ledger of loaded sample files (migration 0010): how far the file at a
 * path was loaded, and what its parser needs to continue there. host and header are
 * the input's bytes as they are (no NUL; they need not be UTF-8). */
struct db_sample_ledger {
    char file_id[64];         /* "st_dev:st_ino" */
    int64_t length;           /* bytes through the last complete report loaded */
    char prefix_hash[33];     /* content hash of those bytes */
    int64_t lines;            /* lines in those bytes */
    char verdict[1024];       /* what shaped the parse (db_ingest_error_record's) */
    char format[16];          /* "iostat" (text) or "sadf" (sadf -d) */
    char host[128];           /* the host so far, "" when none */
    bool have_accepted;       /* accepted_stamp_s is set */
    int64_t accepted_stamp_s; /* the last accepted report, epoch seconds */
    int64_t gap_s;            /* its distance to the one before, seconds */
    double interval_s;        /* the file's Δ as first computed, seconds */
    int64_t stream_reports;   /* iostat text: reports since the banner */
    char header[1024];        /* sadf -d: the header line in force, "" when none */
    bool resync;              /* a cut tail was set aside just before length */
    bool cut_pending;         /* after length, a cut last report waits to complete */
};

/* The ledger row of path (as loaded_files.path); *found false when there is none.
 * STATUS_DB. */
enum status db_sample_ledger_get(struct db *db, const char *path,
                                 struct db_sample_ledger *out, bool *found,
                                 struct error *err) MUST_CHECK;

/* Loads in's samples in one transaction, with its file's path and content hash, and
 * with them the path's ledger row when ledger is not NULL (replacing the one there;
 * changed_at is now). in->n may be 0: then only the file and its ledger are recorded.
 * *inserted counts new samples; *differing counts samples already stored whose rates
 * differ by more than 1 % (the stored ones are kept). STATUS_INVALID when in has no
 * server; STATUS_DB, STATUS_NOMEM. */
enum status db_samples_load(struct db *db, int64_t run_id, const char *path,
                            const char *content_hash, const struct db_samples_in *in,
                            const struct db_sample_ledger *ledger, long long *inserted,
                            long long *differing, struct error *err) MUST_CHECK;
/* ingest --reprocess: the queue columns (aqu_sz … await_ms) of stored samples that
 * have none, from in's samples of the same fs, server, device and stamp whose rates
 * agree within 1 % (the same measurement), else a second off where no stored sample
 * has in's stamp (placed a second apart by an earlier version); nothing else
 * changes, no row is added. One transaction; *filled counts the samples filled,
 * *left those of in's devices and span still without where in had them. */
enum status db_samples_refill(struct db *db, const struct db_samples_in *in,
                              long long *filled, long long *left,
                              struct error *err) MUST_CHECK;

/* Records (or refreshes last_seen of) a quarantined file, with the verdict key: what
 * besides its content shaped the verdict (iocontend's version, the parsers'
 * settings). */
enum status db_ingest_error_record(struct db *db, const char *path,
                                   const char *content_hash, const char *verdict,
                                   const struct error *reason,
                                   struct error *err) MUST_CHECK;

/* *known: a file of this content was quarantined under the same verdict key, so
 * parsing it again would give the same verdict (its last_seen is refreshed). */
enum status db_quarantine_known(struct db *db, const char *content_hash,
                                const char *verdict, bool *known,
                                struct error *err) MUST_CHECK;

/* ---- the quarantine list and unloading (sql/db_unload.c) ----------------------- */

/* One entry of the quarantine list: a row of ingest_errors. Text is stored escaped
 * (str_escape) and cut to fit. */
struct db_quarantine_entry {
    char path[4096]; /* as ingest named the file, escaped */
    char content_hash[33];
    long line;       /* 1-based, 0 when none */
    char status[16]; /* status_name() of the reason: "parse", "invalid", ... */
    char message[512];
    char first_seen[40]; /* RFC 3339, UTC */
    char last_seen[40];
    bool known_bad;     /* a verdict is stored: the next ingest skips the content */
    bool loaded;        /* the same content has been loaded since (from any path) */
    char verdict[1024]; /* what shaped it; "" when cleared (retry) or from before 0008 */
};

/* Every entry, the most recently seen first. *out is malloc'd (caller frees; NULL
 * when the list is empty). STATUS_DB, STATUS_NOMEM. */
enum status db_quarantine_list(struct db *db, struct db_quarantine_entry **out, size_t *n,
                               struct error *err) MUST_CHECK;

/* What db_quarantine_retry and db_quarantine_forget changed. */
struct db_quarantine_change {
    long named;      /* entries of the paths given (every entry for all) */
    long same_bytes; /* other entries of the same content whose verdict was cleared */
};

/* Clears the verdict of the entries of the n paths (escaped as stored; paths NULL:
 * every entry) and of every entry of the same content, so that the next ingest
 * parses those files again (the known-bad skip keys on content and verdict); the
 * entries stay listed. In one transaction: STATUS_NOT_FOUND naming the first path
 * that has no entry, and nothing changes. STATUS_DB, STATUS_NOMEM. */
enum status db_quarantine_retry(struct db *db, const char *const *paths, size_t n,
                                struct db_quarantine_change *out,
                                struct error *err) MUST_CHECK;
/* Removes the entries of the n paths (paths NULL: every entry) and clears the
 * verdict of the other entries of the same content, so that those files too are
 * parsed again. The same transaction and statuses as db_quarantine_retry. */
enum status db_quarantine_forget(struct db *db, const char *const *paths, size_t n,
                                 struct db_quarantine_change *out,
                                 struct error *err) MUST_CHECK;

/* Whether path (escaped as stored) names an entry of the quarantine list
 * (quarantine) or a loaded file (else), into *stored. STATUS_DB. */
enum status db_path_stored(struct db *db, const char *path, bool quarantine, bool *stored,
                           struct error *err) MUST_CHECK;

/* What db_unload removed (or, dry, would remove). */
struct db_unload_counts {
    long files;        /* rows of loaded_files */
    long jobs;         /* jobs whose rows came from those files (windows with them) */
    long long samples; /* samples likewise */
    long traces;       /* DXT traces likewise (their operations and windows with them) */
};

/* Removes what one ingest run (run_id > 0) or every load of one path (run_id 0;
 * path escaped as stored) put in the database: the loaded_files rows, and the jobs
 * (their windows and hand-made group memberships cascade) and samples whose
 * source_hash is one of those files' content hashes, in one transaction; with dry,
 * rolls it back, so the counts say exactly what would go. Jobs or samples another
 * file also held but this one loaded first go too. Groups stay: the next analyze
 * finds their inputs changed. STATUS_NOT_FOUND naming the run or path when it
 * loaded no file (or no such run exists); STATUS_DB. */
enum status db_unload(struct db *db, int64_t run_id, const char *path, bool dry,
                      struct db_unload_counts *out, struct error *err) MUST_CHECK;

/* ---- analysis inputs ----------------------------------------------------------- */

struct db_window {
    double start_s, end_s; /* absolute epoch seconds */
    bool is_write;
    bool monitored; /* the file is on a monitored file system */
    int64_t bytes;
    char fs[64]; /* that file system's name (job_windows.fs), "" when not monitored */
};

/* Whether a job has a DXT trace (table job_traces). */
enum db_trace { DB_TRACE_NONE = 0, DB_TRACE_WHOLE, DB_TRACE_INCOMPLETE };

struct db_job {
    char job_key[33];
    char jobid[32];
    char group_id[17];
    double start_s, end_s;         /* T_start, T_end: start_time and start_time + t_j */
    union family_value log[LOG_N]; /* the log family's values (common/log_family.h) */
    bool incomplete_log;           /* a POSIX, MPI-IO or STDIO module is incomplete */
    struct db_window *windows;     /* owned by the db_jobs array */
    size_t n_windows;
    enum db_trace trace; /* job_traces: none, whole, incomplete (docs/method.md §10) */
    /* job_x_windows: the trace's merged operation windows (bytes 0), owned by the
     * db_jobs array; none unless trace is DB_TRACE_WHOLE */
    struct db_window *x_windows;
    size_t n_x_windows;
};

struct db_jobs {
    struct db_job *jobs;
    size_t n;
    struct db_window *all_windows; /* one block for every job's windows */
    size_t n_all_windows;
    struct db_window *all_x_windows; /* one block for every job's x_windows */
    size_t n_all_x_windows;
};

/* Every job of a group (group_id NULL: all jobs), ordered by start time: a default
 * group's, or a hand-made group's members. *out is new; db_jobs_free frees it. */
enum status db_jobs_of_group(struct db *db, const char *group_id, struct db_jobs **out,
                             struct error *err) MUST_CHECK;
/* The jobs of job_keys (n of them, borrowed; 32 hex digits each) that exist, as
 * db_jobs_of_group gives them, ordered by start time. STATUS_INVALID for a key that
 * is not hex. */
enum status db_jobs_of_keys(struct db *db, const char *const *job_keys, size_t n,
                            struct db_jobs **out, struct error *err) MUST_CHECK;
void db_jobs_free(struct db_jobs *jobs);
/* The first start and the last end of the stored jobs; *any false when none. */
enum status db_jobs_extent(struct db *db, bool *any, double *first_start_s,
                           double *last_end_s, struct error *err) MUST_CHECK;
/* Spans of time, ascending and disjoint: [lo[i], hi[i]] (seconds). */
struct db_spans {
    double *lo, *hi;
    size_t n;
};
/* The spans of the stored jobs of group_id (its default group's or a hand-made
 * group's members; NULL: every job), each [start, end + 1 s] widened by margin_s on
 * both sides, merged where they meet. out->n is 0 when no job is stored. */
enum status db_jobs_spans(struct db *db, const char *group_id, double margin_s,
                          struct db_spans *out, struct error *err) MUST_CHECK;
void db_spans_clear(struct db_spans *s);

struct db_stream {
    char fs[64], server[128], device[64];
    double interval_s;
    double *end_s, *r, *w, *ro, *wo; /* owned by the db_streams */
    /* ops_total and the queue columns (migration 0013; NAN for SQL NULL): one block
     * owned by the db_streams, at ops_total. */
    double *ops_total, *aqu_sz, *util_pct, *r_await_ms, *w_await_ms, *await_ms;
    size_t n;
};

struct db_streams {
    struct db_stream *streams;
    size_t n;
    char **
        servers; /* distinct "fs/server" names; stream i's server index is server_of[i] */
    size_t n_servers;
    size_t *server_of;
};

void db_streams_free(struct db_streams *s);

/* ---- the stored series of each file system (db_series.c, migration 0017) ------ */

/* What the stored series were built with; built false: never built. */
struct db_series_settings {
    bool built;
    double theta_s; /* θ */
    double delta_s; /* the configured Δ; 0: each file system's coarsest interval */
    bool empty;     /* no day computed yet: the settings bind nothing */
};
enum status db_series_settings_get(struct db *db, struct db_series_settings *out,
                                   struct error *err) MUST_CHECK;
/* In one transaction: records the settings, sets every file system's coarsest
 * interval from its samples and its grid to none, and marks every day a sample
 * reaches (and every day stored) dirty; *days counts them. The next refreshes
 * recompute them all. */
enum status db_series_rebuild_begin(struct db *db, double theta_s, double delta_s,
                                    long long *days, struct error *err) MUST_CHECK;

struct db_series_fs {
    char fs[64];
    double interval_s; /* the coarsest sampling interval of its samples */
    double delta_s;    /* the grid of its stored series; 0: none stored */
};
/* Every file system with samples, by name. *out is new (NULL when none). */
enum status db_series_fs_list(struct db *db, struct db_series_fs **out, size_t *n,
                              struct error *err) MUST_CHECK;
/* In one transaction: fs's series moves to the grid delta_s: its rows are removed and
 * every day it had is dirty. */
enum status db_series_fs_regrid(struct db *db, const char *fs, double delta_s,
                                struct error *err) MUST_CHECK;

/* A day (UTC, of T_{j-1}) of a file system's series, as series_dirty has it. */
struct db_series_day {
    char fs[64];
    int64_t day;
    int64_t gen;
};
/* The dirty days of fs (NULL: every file system) from lo_day to hi_day, by fs and
 * day. *out is new (NULL when none). */
enum status db_series_dirty_list(struct db *db, const char *fs, int64_t lo_day,
                                 int64_t hi_day, struct db_series_day **out, size_t *n,
                                 struct error *err) MUST_CHECK;
/* The sample streams of fs whose stamps lie in [lo_s, hi_s], shifted by offset_s (θ).
 * *out is new. */
enum status db_series_day_samples(struct db *db, const char *fs, int64_t lo_s,
                                  int64_t hi_s, double offset_s, struct db_streams **out,
                                  struct error *err) MUST_CHECK;

/* One grid interval of a file system's stored series (the columns of migration
 * 0017's series; NAN for NULL). */
struct db_series_row {
    int64_t j;
    double r, w, ro, wo, q, u, aw_num, aw_den;
    size_t devices, servers; /* that covered it fully */
    bool present;
};
/* What a day's series was computed from. */
struct db_series_day_facts {
    size_t devices, servers; /* expected: a usable sample of theirs reaches the day */
    long long samples;       /* stamps of the day read */
};
/* In one transaction: replaces fs's rows from j_lo to j_hi (day's intervals, on the
 * grid delta_s) by rows and records the day's facts and digest (no sample: no day
 * row), and the day stops being dirty. Nothing is written (*current false) when the
 * day's gen moved on since day was read, another writer did it, or the file system
 * is on another grid than delta_s now (0: not checked). */
enum status db_series_day_store(struct db *db, const struct db_series_day *day,
                                double delta_s, int64_t j_lo, int64_t j_hi,
                                const struct db_series_row *rows, size_t n,
                                const struct db_series_day_facts *facts, bool *current,
                                struct error *err) MUST_CHECK;

/* A file system's stored rows over some ranges of j, and its days around them. */
struct db_series_fs_data {
    struct db_series_row *rows; /* ascending j */
    size_t n_rows;
    struct db_series_fs_day {
        int64_t day;
        size_t devices; /* expected that day */
    } * days;           /* ascending */
    size_t n_days;
};
/* fs's stored rows with j in any of the n ranges [j_lo[i], j_hi[i]] (ascending,
 * disjoint), and its days around them; read in binary. */
enum status db_series_read(struct db *db, const char *fs, const int64_t *j_lo,
                           const int64_t *j_hi, size_t n, struct db_series_fs_data **out,
                           struct error *err) MUST_CHECK;
void db_series_fs_data_free(struct db_series_fs_data *d);
/* The first and last j of fs's stored rows in [j_lo, j_hi]; *any false when none. Two
 * index probes. */
enum status db_series_bounds(struct db *db, const char *fs, int64_t j_lo, int64_t j_hi,
                             bool *any, int64_t *first, int64_t *last,
                             struct error *err) MUST_CHECK;

/* Every file system with samples, as db_series_fs_list lists them (delta_s 0): for a
 * series computed from the raw samples. */
enum status db_samples_fs_list(struct db *db, struct db_series_fs **out, size_t *n,
                               struct error *err) MUST_CHECK;
/* Whether any sample is loaded: one index probe. */
enum status db_samples_any(struct db *db, bool *any, struct error *err) MUST_CHECK;
/* The first and last stamps of fs's samples; *any false when it has none. */
enum status db_samples_extent(struct db *db, const char *fs, bool *any, int64_t *first,
                              int64_t *last, struct error *err) MUST_CHECK;

/* Whether this connection's role may recompute the series (serve's reader may not). */
enum status db_series_writable(struct db *db, bool *writable,
                               struct error *err) MUST_CHECK;

/* ---- groups, results, API reads ------------------------------------------------ */

struct db_group {
    char id[17];
    char name[224]; /* a stored name (at most 199 bytes) and its " #" suffix */
    char key[256];
    long jobs;
};

/* Every group with its job count, most jobs first (equal counts by id). *out is
 * malloc'd (caller frees). */
enum status db_groups_list(struct db *db, struct db_group **out, size_t *n,
                           struct error *err) MUST_CHECK;
enum status db_group_get(struct db *db, const char *id, struct db_group *out,
                         struct error *err) MUST_CHECK;

/* A default group with jobs in a period, and how many. */
struct db_slowdowns_group {
    char id[17];
    int64_t jobs; /* its jobs whose [start, start + t_j] overlaps [from, to) */
};

/* The default groups (jobs.group_id) of the jobs overlapping [from_s, to_s) (NAN:
 * open), by id, as /jobs's overlap. *out is new (free; NULL when none). STATUS_DB;
 * STATUS_NOMEM. */
enum status db_slowdowns_groups(struct db *db, double from_s, double to_s,
                                struct db_slowdowns_group **out, size_t *n,
                                struct error *err) MUST_CHECK;

/* Stores an association result (JSON text) for (group, y, x, granularity, space,
 * scope), replacing an older one. */
enum status db_result_store(struct db *db, const char *group_id, const char *y,
                            const char *x, double granularity_s, const char *space,
                            const char *scope, const char *json,
                            struct error *err) MUST_CHECK;
/* The stored JSON (malloc'd, caller frees) and, when computed_at is not NULL, when
 * it was computed (RFC 3339, UTC), or STATUS_NOT_FOUND. */
enum status db_result_get(struct db *db, const char *group_id, const char *y,
                          const char *x, double granularity_s, const char *space,
                          const char *scope, char **json, char computed_at[40],
                          struct error *err) MUST_CHECK;
/* The newest stored association result of (group, y, x, space, scope) whose
 * provenance settings match the LIKE pattern settings, with when it was computed;
 * STATUS_NOT_FOUND. */
enum status db_result_find(struct db *db, const char *group_id, const char *y,
                           const char *x, const char *space, const char *scope,
                           const char *settings, char **json, char computed_at[40],
                           struct error *err) MUST_CHECK;
/* The granularities stored for (group, y, x). *out malloc'd. */
enum status db_result_granularities(struct db *db, const char *group_id, const char *y,
                                    const char *x, double **out, size_t *n,
                                    struct error *err) MUST_CHECK;

/* Stores a granularity sweep (docs/method.md §6; JSON text) of (group, y, x, scope) at
 * base_granularity_s (its Δ), replacing any sweep stored for them, in one
 * transaction. */
enum status db_sweep_store(struct db *db, const char *group_id, const char *y,
                           const char *x, double base_granularity_s, const char *scope,
                           const char *json, struct error *err) MUST_CHECK;
/* The stored sweep of (group, y, x, scope) (malloc'd, caller frees) or
 * STATUS_NOT_FOUND. */
enum status db_sweep_get(struct db *db, const char *group_id, const char *y,
                         const char *x, const char *scope, char **json,
                         struct error *err) MUST_CHECK;

/* One stored result the API serves as it is: a group's sweep of (y, x) at scope "all"
 * (kind "sweep") or its table (kind "group_table", y and x ""). */
struct db_stored {
    char group_id[17];
    char kind[16];
    char y[64], x[64];
};

/* Every stored sweep (scope "all") and table of every group, by group, kind, y, x.
 * *out is malloc'd (caller frees; NULL when none). STATUS_DB, STATUS_NOMEM. */
enum status db_stored_list(struct db *db, struct db_stored **out, size_t *n,
                           struct error *err) MUST_CHECK;

/* What a group's results are computed from (provenance): its jobs (every value of
 * them an analysis reads: their metric columns, activity windows and trace windows,
 * each with its file-system mapping), the samples within a day of their span (their
 * files and how many carry each queue column), the set of servers of every file
 * system (wherever their samples are: the presence rule counts them all), a
 * hand-made group's rule, and the caller's settings text (software version, seed,
 * d_min, θ, granularity...). fingerprint hashes all of it; stored_fingerprint is the
 * one group_inputs holds for (group, kind), "" when none. jobs_md5 names the jobs
 * and their traces only (the provenance stored with each result). One query. */
struct db_group_inputs {
    long jobs;
    char jobs_md5[33];
    long long samples;
    char samples_md5[33];
    char fingerprint[33];
    char stored_fingerprint[33];
};
enum status db_group_inputs_read(struct db *db, const char *group_id, const char *kind,
                                 const char *settings, struct db_group_inputs *out,
                                 struct error *err) MUST_CHECK;
/* Records in's inputs for (group, kind) after its results are stored; a no-op when
 * the fingerprint is the stored one. */
enum status db_group_inputs_store(struct db *db, const char *group_id, const char *kind,
                                  const char *settings, const struct db_group_inputs *in,
                                  struct error *err) MUST_CHECK;
/* The groups with jobs none of which read or wrote a file on a monitored file system
 * (no activity window with one, no bytes there): of all groups (group_id NULL) or of
 * that one, by id. *out malloc'd (caller frees; NULL when none). STATUS_DB,
 * STATUS_NOMEM. */
enum status db_groups_unmonitored(struct db *db, const char *group_id,
                                  struct db_group **out, size_t *n,
                                  struct error *err) MUST_CHECK;
/* The groups whose inputs were loaded at or after since_s (epoch seconds): those
 * with a job from a file loaded since, or a job within a day of samples from one.
 * *ids malloc'd (caller frees). */
enum status db_groups_touched_since(struct db *db, double since_s, char (**ids)[17],
                                    size_t *n, struct error *err) MUST_CHECK;

/* The fingerprint of everything the group tables and the coverage are computed from
 * (every group's stored association fingerprint and settings, the caller's text),
 * and the one stored with them, "" when none. */
enum status db_tables_inputs_read(struct db *db, const char *settings, char current[33],
                                  char stored[33], struct error *err) MUST_CHECK;
/* Records fingerprint after the tables and the coverage are stored. */
enum status db_tables_inputs_store(struct db *db, const char *fingerprint,
                                   struct error *err) MUST_CHECK;

/* An analysis run as it ended. Strings are borrowed. */
struct db_analysis_run {
    const char *kind; /* "association" (analyze) or "sweep" (analyze --sweep) */
    long groups;      /* groups computed */
    long jobs;        /* jobs used */
    long excluded;    /* jobs left out */
    double seconds;   /* wall time of the run */
    /* excluded by reason (migration 0015): n_reasons names and their counts; 0 when
     * the run does not tell them apart */
    const char *const *reasons;
    const long *reason_jobs;
    size_t n_reasons;
};
/* Marks an analysis run's end. */
enum status db_analysis_run_record(struct db *db, const struct db_analysis_run *run,
                                   struct error *err) MUST_CHECK;

struct db_health {
    int schema_version;
    char last_ingest[40]; /* RFC 3339, "" when never */
    char last_analysis[40];
    long jobs;
    long long samples;
};
enum status db_health_get(struct db *db, struct db_health *out,
                          struct error *err) MUST_CHECK;
/* What /metrics says of the database (migration 0015): the last runs, and how new
 * the newest data is. Times are epoch seconds, NAN when there is none. Sizes are
 * fixed, so that a snapshot copies by value; what does not fit is left out. */
#define DB_TELEMETRY_KINDS   4
#define DB_TELEMETRY_REASONS 16
#define DB_TELEMETRY_FS      64
struct db_telemetry_ingest {
    char kind[16];         /* "darshan" or "iostat" */
    double last_success_s; /* the end of the newest run that did not fail */
    double last_end_s;     /* the end of the newest run that ended: the one below */
    bool failed;           /* that run failed */
    double seconds;        /* its wall time */
    long files, loaded, skipped, quarantined, jobs;
    long long samples;
};
struct db_telemetry_analysis {
    char kind[16];     /* "association" or "sweep" */
    double finished_s; /* the end of the newest run (only runs that succeed end) */
    double seconds;    /* its wall time */
    long groups, jobs, excluded;
    bool by_reason; /* the run recorded its exclusions by reason */
    size_t n_reasons;
    struct {
        char name[32];
        long jobs;
    } reasons[DB_TELEMETRY_REASONS];
};
struct db_telemetry_fs {
    char fs[64];
    double newest_s; /* the newest sample's stamp */
};
struct db_telemetry {
    size_t n_ingest, n_analysis, n_fs;
    struct db_telemetry_ingest ingest[DB_TELEMETRY_KINDS];     /* by kind */
    struct db_telemetry_analysis analysis[DB_TELEMETRY_KINDS]; /* by kind */
    double newest_job_end_s;                                   /* NAN: no job */
    struct db_telemetry_fs fs[DB_TELEMETRY_FS];                /* by name */
};
/* A few index probes and reads of the run tables: cheap whatever the data's size.
 * STATUS_DB (also before migration 0015). */
enum status db_telemetry_get(struct db *db, struct db_telemetry *out,
                             struct error *err) MUST_CHECK;
/* The schema version db_telemetry_get needs. */
#define DB_TELEMETRY_SCHEMA 15

/* The data version (migration 0014): a number every transaction that writes data
 * moves on once it commits, so that an answer read after the version was read is
 * current while it stays the same. One row read. STATUS_DB (also before migration
 * 0014). */
enum status db_data_version(struct db *db, long long *version,
                            struct error *err) MUST_CHECK;

/* A page of jobs for the API, ordered by (start_time, job_key), after cursor
 * (NULL: first page), overlapping [from_s, to_s) when given (NAN: open), in group
 * (NULL: any). The page is JSON-ready rows; *next_cursor "" when the last page. */
struct db_job_row {
    char job_key[33], jobid[32], group_id[17], exe[128];
    int64_t uid, nprocs, start_time, end_time;
    union family_value log[LOG_N]; /* the log family's values (common/log_family.h) */
};
enum status db_jobs_page(struct db *db, const char *cursor, double from_s, double to_s,
                         const char *group_id, size_t limit, struct db_job_row **rows,
                         size_t *n, char next_cursor[80], struct error *err) MUST_CHECK;

/* ---- hand-made groups (docs/method.md §4) ------------------------------------------ */

/* What a hand-made group's rule looks at in one job. */
struct db_job_features {
    char job_key[33];
    char jobid[32];
    uint64_t uid;
    char executable[256]; /* as the default key uses it: basename of exe's first token */
    int64_t nprocs;
    int64_t bytes; /* read plus written (eta_read + eta_write) */
};

/* Every job's features, by job key. *out is malloc'd (caller frees; NULL when no
 * job). STATUS_DB, STATUS_NOMEM. */
enum status db_job_features_list(struct db *db, struct db_job_features **out, size_t *n,
                                 struct error *err) MUST_CHECK;

/* Stores a hand-made group in one transaction: its row of app_groups (name, key and
 * rule text, updated when the rule changed; the id stays) and exactly the n jobs of
 * job_keys (borrowed) as its members. STATUS_DB, STATUS_NOMEM. */
enum status db_hand_group_store(struct db *db, const char *group_id, const char *name,
                                const char *key, const char *rule,
                                const char *const *job_keys, size_t n,
                                struct error *err) MUST_CHECK;

/* Removes every hand-made group whose id is not among the n of keep, with its
 * members, inputs and results, in one transaction. STATUS_DB, STATUS_NOMEM. */
enum status db_hand_groups_prune(struct db *db, const char (*keep)[17], size_t n,
                                 struct error *err) MUST_CHECK;

/* A stored hand-made group that the configuration of an analyze lacked. */
struct db_hand_group_missing {
    char id[17];
    char key[256];   /* hand:NAME */
    char rule[1200]; /* its rule's text as last configured */
    char since[40];  /* RFC 3339 UTC: the first analyze that lacked it */
};

/* Marks every hand-made group whose id is not among the n of keep as missing from
 * the configuration (app_groups.missing_since, kept when already set), and lists all
 * of them, by id, into *out (malloc'd, caller frees; NULL when none). n 0 with keep
 * NULL marks every one. Its members, inputs and results stay. STATUS_DB,
 * STATUS_NOMEM. */
enum status db_hand_groups_mark_missing(struct db *db, const char (*keep)[17], size_t n,
                                        struct db_hand_group_missing **out, size_t *n_out,
                                        struct error *err) MUST_CHECK;

/* The hand-made groups marked missing (db_hand_groups_mark_missing), by id, into
 * *out (malloc'd, caller frees; NULL when none). STATUS_DB, STATUS_NOMEM. */
enum status db_hand_groups_missing(struct db *db, struct db_hand_group_missing **out,
                                   size_t *n_out, struct error *err) MUST_CHECK;

/* Records the configuration's settings text and the path of the file that gave it
 * ("" when none) as those of the last analyze (analysis_config), and returns the
 * ones recorded before into prev_settings / prev_path (both "" and *had false when
 * no analyze recorded any: a new database, or one from before schema 16), in one
 * statement. STATUS_DB. */
enum status db_analysis_config_swap(struct db *db, const char *settings, const char *path,
                                    bool *had, char prev_settings[512],
                                    char prev_path[1024], struct error *err) MUST_CHECK;

/* ---- group tables and coverage (docs/method.md §4, §7) ----------------------------- */

/* A file system name as the samples spell it. */
struct db_fs {
    char name[64];
};

/* The file systems that have samples, by name. *out is malloc'd (caller frees;
 * NULL when none). */
enum status db_sample_filesystems(struct db *db, struct db_fs **out, size_t *n,
                                  struct error *err) MUST_CHECK;

/* The features that define a group (docs/method.md §4). */
#define DB_N_FEATURES 6

struct db_feature {
    const char *name; /* "uid", "nprocs", "n_unique_files", "n_shared_files",
                         "eta_read", "eta_write" (a literal) */
    int64_t min, max; /* over the group's jobs */
};

/* Min and max of each feature over the jobs of a group, and their count.
 * STATUS_NOT_FOUND when the group has no jobs. */
enum status db_group_features(struct db *db, const char *group_id,
                              struct db_feature out[DB_N_FEATURES], long *jobs,
                              struct error *err) MUST_CHECK;

/* Stores a group's table (JSON text; results of kind 'group_table') at the base
 * granularity_s, replacing the one stored before, in one transaction. */
enum status db_group_table_store(struct db *db, const char *group_id,
                                 double granularity_s, const char *json,
                                 struct error *err) MUST_CHECK;
/* Removes the stored table of a group (group_id NULL: of every group): one whose
 * jobs are gone, or with no samples left to compute it on. */
enum status db_group_table_delete(struct db *db, const char *group_id,
                                  struct error *err) MUST_CHECK;
/* The stored table (malloc'd, caller frees) or STATUS_NOT_FOUND. */
enum status db_group_table_get(struct db *db, const char *group_id, char **json,
                               struct error *err) MUST_CHECK;

/* The coverage of one scope (docs/method.md §7). */
struct db_coverage {
    char scope[80];                  /* "all" or "fs:NAME" */
    double granularity_s;            /* Δ of its grid */
    double coverage;                 /* Σ D / Σ S; NAN when Σ S = 0 */
    double sum_d_bytes, sum_s_bytes; /* over the intervals with D and S present */
    long intervals;                  /* those intervals */
    double d_total_bytes;            /* every window byte of the scope */
    double log_start_s, log_end_s;   /* the span the logs cover */
    char computed_at[40];            /* RFC 3339; set by db_coverage_list */
};

/* Per interval (T_i − Δ, T_i], ascending: n each; NAN where absent (D outside the
 * logged span, S at a hole). */
struct db_coverage_series {
    double *end_s, *d_bytes, *s_bytes;
    size_t n;
};

/* Replaces every stored coverage by the n given, c[i] with its intervals series[i]
 * (borrowed), in one transaction. */
enum status db_coverage_replace(struct db *db, const struct db_coverage *c,
                                const struct db_coverage_series *series, size_t n,
                                struct error *err) MUST_CHECK;
/* The coverage kept a day at a time (migration 0018), in one transaction: begin, then
 * per scope open, day_keys, day_put for each day whose key moved, days_keep, and
 * commit with every scope's totals (or abort). A day is the UTC day of T_{i-1}; its
 * intervals are those of coverage_intervals with end_s in [end_lo_s, end_hi_s]
 * (the whole day's, whatever part of it the series reaches). */
struct db_coverage_day {
    int64_t day;
    double end_lo_s, end_hi_s;       /* the first and last T_i of the whole day */
    char key[33];                    /* md5 of its inputs now */
    bool stored;                     /* a row of it is stored: */
    char stored_key[33];             /* what it was computed from */
    double sum_d_bytes, sum_s_bytes; /* over its intervals with D and S present */
    long intervals;                  /* those */
};
enum status db_coverage_begin(struct db *db, struct error *err) MUST_CHECK;
/* Makes scope's row (its totals until commit: none); its days and intervals go when
 * it has none of the days or another granularity_s. */
enum status db_coverage_open(struct db *db, const char *scope, double granularity_s,
                             struct error *err) MUST_CHECK;
/* For each of the n days (ascending), its key: the md5 of texts[i] (what the caller
 * knows of its inputs) and the stored series days (fs, days, devices, servers,
 * samples, digest) of the n_fs file systems fs within margin_days of it; and what is
 * stored of it. */
enum status db_coverage_day_keys(struct db *db, const char *scope, const char *const *fs,
                                 size_t n_fs, int64_t margin_days,
                                 const char *const *texts, struct db_coverage_day *days,
                                 size_t n, struct error *err) MUST_CHECK;
/* Stores day d (its key and sums) with its intervals s in place of what it had. */
enum status db_coverage_day_put(struct db *db, const char *scope, double granularity_s,
                                const struct db_coverage_day *d,
                                const struct db_coverage_series *s,
                                struct error *err) MUST_CHECK;
/* The pre-bucket widths (seconds, ascending, at most DB_COVERAGE_LEVELS) a scope on
 * the grid granularity_s is kept at (migration 0019): 10, 60, 600, 3600 and 21600 s,
 * those at least 4 intervals wide that the grid divides; none when the grid does not
 * divide a day. A day's intervals and their pre-buckets are written together. */
#define DB_COVERAGE_LEVELS 5
size_t db_coverage_levels(double granularity_s, double levels[DB_COVERAGE_LEVELS]);
/* Removes scope's days other than the n given (keep[i].day) and their intervals. */
enum status db_coverage_days_keep(struct db *db, const char *scope, double granularity_s,
                                  const struct db_coverage_day *keep, size_t n,
                                  struct error *err) MUST_CHECK;
/* Stores the n scopes' totals, removes every other scope, and commits. */
enum status db_coverage_commit(struct db *db, const struct db_coverage *c, size_t n,
                               struct error *err) MUST_CHECK;
void db_coverage_abort(struct db *db);
/* Every stored coverage, "all" first, then by scope. *out malloc'd (caller frees;
 * NULL when none). */
enum status db_coverage_list(struct db *db, struct db_coverage **out, size_t *n,
                             struct error *err) MUST_CHECK;
/* The stored intervals of scope that overlap [from_s, to_s) (NAN: open), at most
 * max_n: *truncated says there were more. out's arrays are new
 * (db_coverage_series_clear). */
enum status db_coverage_intervals(struct db *db, const char *scope, double from_s,
                                  double to_s, size_t max_n,
                                  struct db_coverage_series *out, bool *truncated,
                                  struct error *err) MUST_CHECK;
void db_coverage_series_clear(struct db_coverage_series *s);

/* What analysis_coverage_range gives over the stored intervals of a scope that overlap
 * a range, read without reading them (db_coverage_span). */
struct db_coverage_span {
    size_t n;                        /* intervals overlapping the range */
    double first_end_s, last_end_s;  /* their first and last T_i; NAN when n is 0 */
    double sum_d_bytes, sum_s_bytes; /* over those with D and S present, T_i ascending */
    size_t both;                     /* those */
    double max_d_bytes, max_s_bytes; /* the largest D_i and S_i, 0 when none */
};

/* The span of scope's stored intervals that overlap [from_s, to_s) (NAN: open), the
 * intervals db_coverage_intervals reads, in one query: over them (level_s 0; one pass
 * in the server), or over the pre-buckets of width level_s wholly inside the range
 * and the intervals of its edges (db_coverage_pre_level; the sums equal the raw
 * ones but for their last bits). One row back. */
enum status db_coverage_span(struct db *db, const char *scope, double from_s, double to_s,
                             double level_s, struct db_coverage_span *out,
                             struct error *err) MUST_CHECK;
/* The first and last T_i of those intervals (NAN when none): two index probes. */
enum status db_coverage_extent(struct db *db, const char *scope, double from_s,
                               double to_s, double *first_end_s, double *last_end_s,
                               struct error *err) MUST_CHECK;
/* The pre-bucket width to read buckets of bucket_s at: the widest level of the grid
 * at most an eighth of a bucket, when scope has it stored, else 0 (the intervals). */
enum status db_coverage_pre_level(struct db *db, const char *scope, double granularity_s,
                                  double bucket_s, double *level_s,
                                  struct error *err) MUST_CHECK;
/* The min and max of the present D_i and S_i of those intervals per bucket k < n of
 * width width_s from start_s (docs/api.md: the coverage object, points=): the interval
 * (T_i − Δ, T_i] in the bucket of its middle, clamped to the first and last; every
 * interval in bucket 0 when width_s is 0. At level_s > 0 a pre-bucket wholly inside
 * the range counts at its middle with its least and most, the edges' intervals as
 * they are. d_min … s_max are the caller's n each; NAN where a bucket has no value.
 * STATUS_INVALID when n is 0 or start_s or width_s is not finite. Cost: one pass
 * over the intervals (or the pre-buckets) in the server; n rows back. */
enum status db_coverage_buckets(struct db *db, const char *scope, double from_s,
                                double to_s, double level_s, double start_s,
                                double width_s, size_t n, double *d_min, double *d_max,
                                double *s_min, double *s_max,
                                struct error *err) MUST_CHECK;

/* ---- the night report (sql/db_night.c) ------------------------------------------ */

/* An ingest run: a row of ingest_runs. Instants are RFC 3339 UTC, "" when none. */
struct db_night_run {
    int64_t id;
    char kind[16]; /* "darshan" or "iostat" */
    char started_at[40], finished_at[40], interrupted_at[40];
    bool failed;    /* it ended with an error (migration 0015) */
    double seconds; /* its wall time; NAN when not recorded */
    long files, loaded, skipped, quarantined, jobs;
    long long samples;
};

/* The ingest runs that overlap [from_s, to_s) (epoch seconds, both finite) of the
 * database's clock: started before to_s and not ended before from_s; oldest first.
 * *out is new (free; NULL when none). STATUS_DB, STATUS_NOMEM. */
enum status db_night_runs(struct db *db, double from_s, double to_s,
                          struct db_night_run **out, size_t *n,
                          struct error *err) MUST_CHECK;

/* The quarantine entries (db_quarantine_entry, verdict and loaded unset) last seen in
 * [from_s, to_s): quarantined, or skipped again as known bad, in the period; the
 * most recent first. *out is new (free; NULL when none). STATUS_DB, STATUS_NOMEM. */
enum status db_night_quarantined(struct db *db, double from_s, double to_s,
                                 struct db_quarantine_entry **out, size_t *n,
                                 struct error *err) MUST_CHECK;

/* A group's jobs loaded in a period. */
struct db_night_added {
    char group_id[17];
    long jobs; /* rows of jobs whose loaded_at is in the period */
};

/* Per default group, the jobs loaded (jobs.loaded_at) in [from_s, to_s), by group
 * id; groups with none are absent. *out is new (free). STATUS_DB, STATUS_NOMEM. */
enum status db_night_jobs_added(struct db *db, double from_s, double to_s,
                                struct db_night_added **out, size_t *n,
                                struct error *err) MUST_CHECK;

/* A stored association whose row last changed in the period. */
struct db_night_result {
    char group_id[17];
    double granularity_s;
    char space[16];
    char computed_at[40]; /* RFC 3339 UTC, to the microsecond */
    char *json;           /* the stored object; owned (db_night_results_free) */
};

/* The association results of y~x, scope all, whose computed_at is in [from_s, to_s)
 * (results keeps one row per key and moves computed_at only when the object
 * changes), by group, granularity and space. *out is new (db_night_results_free).
 * STATUS_DB, STATUS_NOMEM. */
enum status db_night_results(struct db *db, double from_s, double to_s, const char *y,
                             const char *x, struct db_night_result **out, size_t *n,
                             struct error *err) MUST_CHECK;
void db_night_results_free(struct db_night_result *r, size_t n);

#endif
