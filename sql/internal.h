/* internal.h: the libpq plumbing the files of sql/ share; included from sql/ only. */
#ifndef IOCONTEND_SQL_INTERNAL_H
#define IOCONTEND_SQL_INTERNAL_H

#include "db.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db {
    PGconn *conn;
    char data_dir[600]; /* the embedded server's data directory, "" when configured:
                           a lost connection there on a full disk is a full disk */
    bool temp_tables;   /* the session's staging tables exist */
    bool batch_tables;  /* and those of the job batches */
    bool retry_lost;    /* a statement the lost connection failed runs once more on a
                           new one (db_retry_lost_set) */
    unsigned long timeout_ms; /* statement_timeout set, 0 when none */
    struct db_target target;  /* where it connected: to reconnect */
    /* Held while conn is reset (db_lost_reconnected) and while db_cancel reads its
     * cancel key: a stop's cancel from another thread must not read a connection
     * half reset. Nothing else takes it: one thread uses a connection at a time. */
    pthread_mutex_t reset_lock;
};

/* After statement result r failed on db from before (the transaction status before
 * it was sent): true when the connection was lost (CONNECTION_BAD, class 08, or the
 * server ending it: 57P01, 57P02) outside a transaction, db may retry
 * (db_retry_lost_set), and a new connection to the same server is up with the
 * session's settings; the caller then sends the statement once more, never twice. */
bool db_lost_reconnected(struct db *db, PGTransactionStatusType before,
                         const PGresult *r);

/* The settings of every session, sent on each new connection and reconnection. */
extern const char db_session_sql[];

/* t's server user (postgres as root, else us; a data directory's owner when it is
 * one of these) and its conninfo: at resolution (target.c), and again once the data
 * directory is made (embedded.c). */
void embedded_server_user(struct db_target *t);

/* The embedded socket directory of t, checked before a connection: a directory (no
 * link) of t's server user or root, writable by no one else. STATUS_DB naming it. */
enum status socket_dir_check(const struct db_target *t, struct error *err);
/* The bytes free to unprivileged users on path's file system; false when statvfs
 * fails. */
bool free_bytes(const char *path, unsigned long long *out);

/* STATUS_DB with what and libpq's last message (first line) in err. */
enum status db_fail(struct db *db, struct error *err, const char *what);
/* db_fail, and the SQLSTATE of r (may be NULL) in err->sqlstate: what the caller
 * needs to tell bad data (classes 22, 23) from a lost connection or a full disk. */
enum status db_fail_result(struct db *db, const PGresult *r, struct error *err,
                           const char *what);
/* Runs sql (no parameters, result discarded); STATUS_DB when it fails. */
enum status exec_cmd(struct db *db, const char *sql, struct error *err) MUST_CHECK;
/* Runs a parameterised statement; *out is the result on success (caller PQclears). */
enum status exec_params(struct db *db, const char *sql, int n, const char *const *vals,
                        PGresult **out, struct error *err) MUST_CHECK;
/* exec_params with the result in binary (every column's send format): for large
 * numeric results, read by the bin_ getters, no text to parse. */
enum status exec_params_binary(struct db *db, const char *sql, int n,
                               const char *const *vals, PGresult **out,
                               struct error *err) MUST_CHECK;
/* Whether binary result r's columns are of types, one letter each: 'l' int8, 'i'
 * int4, 'b' bool, 'd' float8. STATUS_INTERNAL naming what when not: the getters
 * below would read a column of another type as nothing. */
enum status bin_check(const PGresult *r, const char *types, const char *what,
                      struct error *err) MUST_CHECK;
/* A binary result's float8 (NULL: NAN), int8, int4 (NULL: 0) and bool (NULL: false). */
double bin_double(const PGresult *r, int row, int col);
int64_t bin_int64(const PGresult *r, int row, int col);
int32_t bin_int32(const PGresult *r, int row, int col);
bool bin_bool(const PGresult *r, int row, int col);
/* Runs a parameterised statement whose result is not needed. */
enum status exec_params_cmd(struct db *db, const char *sql, int n,
                            const char *const *vals, struct error *err) MUST_CHECK;
/* Runs a parameterised query and makes an array of its rows, fill(element, r, i)
 * filling the element of row i; elements are row_size bytes and start zeroed. *rows
 * is new (caller frees; NULL when no row), *n_rows its length. STATUS_NOMEM says
 * what. */
enum status fetch_rows(struct db *db, const char *sql, int n, const char *const *vals,
                       size_t row_size, void (*fill)(void *row, const PGresult *r, int i),
                       const char *what, void **rows, size_t *n_rows,
                       struct error *err) MUST_CHECK;
/* Rolls back the open transaction, ignoring any failure (the first one is reported). */
void rollback(struct db *db);
/* Replaces rows in one transaction: runs del (n_del parameters) then ins (n_ins), and
 * commits, or rolls back and returns the first failure. */
enum status replace_rows(struct db *db, const char *del, int n_del,
                         const char *const *del_vals, const char *ins, int n_ins,
                         const char *const *ins_vals, struct error *err) MUST_CHECK;

/* The condition "the job (columns prefixed by alias, "" or "j.") is in group p" (p a
 * parameter, "$1"): its default group, or a hand-made group it is a member of. A
 * default group's id is never a hand group's, so at most one side holds. */
#define IN_GROUP_SQL(alias, p)                                                           \
    "(" alias "group_id = " p " OR " alias "job_key IN (SELECT gm.job_key FROM "         \
    "group_members gm WHERE gm.group_id = " p "))"
/* The forms the queries use, as plain names (clang-format keeps them in line). */
#define IN_GROUP_1   IN_GROUP_SQL("", "$1")
#define J_IN_GROUP_1 IN_GROUP_SQL("j.", "$1")
#define IN_GROUP_5   IN_GROUP_SQL("", "$5::text")

/* The name of a job's default group: "executable (uid U, N procs)". */
void db_group_name(const struct db_job_in *job, char *out, size_t size);

/* Column col of row: NAN / 0 / "" when SQL NULL. */
double get_double(const PGresult *r, int row, int col);
int64_t get_int64(const PGresult *r, int row, int col);
void copy_text(char *dst, size_t size, const PGresult *r, int row, int col);

/* The sample streams of sql's rows (fs, server, device, stamp_s, interval_s, r_bps,
 * w_bps, ro_ps, wo_ps, ops_total_ps and the five queue columns, ordered by fs, server,
 * device, stamp_s), each stamp shifted by offset_s (θ). *out is new. */
enum status db_streams_query(struct db *db, const char *sql, int n_vals,
                             const char *const *vals, double offset_s,
                             struct db_streams **out, struct error *err) MUST_CHECK;

/* The stored JSON text of column 0 of the first row of sql (malloc'd into *json), and
 * when computed_at is not NULL the text of column 1; STATUS_NOT_FOUND ("no WHAT
 * stored") when there is no row. */
enum status stored_text(struct db *db, const char *sql, int n, const char *const *vals,
                        const char *what, char **json, char computed_at[40],
                        struct error *err) MUST_CHECK;

/* A growable text buffer for COPY data; {0} is empty, free(p) releases it. */
struct buf {
    char *p;
    size_t len, cap;
};

/* false when out of memory (b keeps what it had). */
bool buf_reserve(struct buf *b, size_t more);
bool buf_printf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* A text field for COPY's text format: backslash, tab and newline escaped; NULL is
 * SQL NULL (\N). */
bool buf_field(struct buf *b, const char *s);
/* PostgreSQL array literals into b: n texts, each double-quoted (backslash and quote
 * escaped); n integers. false when out of memory. */
bool buf_text_array(struct buf *b, const char *const *texts, size_t n);
bool buf_int64_array(struct buf *b, const int64_t *v, size_t n);
/* Runs sql (a COPY ... FROM STDIN) with b's text as its data. */
enum status copy_in(struct db *db, const char *sql, const struct buf *b,
                    struct error *err) MUST_CHECK;

/* A COPY (...) TO STDOUT WITH (FORMAT binary) being read a row at a time, so that
 * a large result is never held whole (a PGresult of 200,000 series rows took 39 MB,
 * twice the rows it makes): copyout_begin, then copyout_next until it returns false
 * (c->rc says whether at the end or on a failure), the field getters on the row at
 * hand, and copyout_end always. */
struct copyout {
    struct db *db;
    char *msg; /* the CopyData message of the row at hand (libpq's) */
    int len, pos;
    bool header;  /* the file header was read */
    bool done;    /* the trailer was read and the command's result taken */
    int n_fields; /* of the row at hand */
    int flen[24]; /* each field's length, -1 for NULL */
    const unsigned char *field[24];
    enum status rc;
    struct error *err;
};
enum status copyout_begin(struct copyout *c, struct db *db, const char *sql,
                          struct error *err) MUST_CHECK;
/* The next row, of exactly n_fields fields (else STATUS_INTERNAL in c->rc). */
bool copyout_next(struct copyout *c, int n_fields);
/* The fields of the row at hand: float8 (NULL: NAN), int8, int4 (NULL: 0), bool. */
double copyout_double(const struct copyout *c, int i);
int64_t copyout_int64(const struct copyout *c, int i);
int32_t copyout_int32(const struct copyout *c, int i);
bool copyout_bool(const struct copyout *c, int i);
/* Ends the COPY (reading what is left after a failure) and returns c->rc. */
enum status copyout_end(struct copyout *c) MUST_CHECK;

/* A COPY ... FROM STDIN (FORMAT binary) in progress: rows are built in a buffer that
 * is sent whenever it holds a megabyte, so memory stays bounded whatever the rows.
 * The first failure sticks in rc (and err); the calls after it do nothing, and
 * bincopy_end returns it. */
struct bincopy {
    struct db *db;
    struct buf b;
    enum status rc;
    struct error *err;
    bool started; /* the server is in COPY: bincopy_end must end it */
};
/* Starts sql, a COPY ... FROM STDIN WITH (FORMAT binary), and writes its header. */
enum status bincopy_begin(struct bincopy *c, struct db *db, const char *sql,
                          struct error *err) MUST_CHECK;
/* A row of n fields: then exactly n of the field calls below. */
void bincopy_row(struct bincopy *c, int n);
void bincopy_text(struct bincopy *c, const char *s);               /* NULL: SQL NULL */
void bincopy_bytes(struct bincopy *c, const void *data, size_t n); /* bytea */
void bincopy_int4(struct bincopy *c, int32_t v);
void bincopy_int8(struct bincopy *c, int64_t v);
void bincopy_float8(struct bincopy *c, double v); /* NaN or infinite: SQL NULL */
void bincopy_bool(struct bincopy *c, bool v);
/* Ends the COPY (aborts it after a failure) and frees the buffer: the first failure
 * or the server's verdict on the rows. */
enum status bincopy_end(struct bincopy *c) MUST_CHECK;

/* A family's values (vals[f->n_cols], in its columns' order) as fields of the COPY
 * row begun (db_family.c): the one COPY of every stored family. */
void db_family_copy(struct bincopy *c, const struct db_family *f,
                    const union family_value *vals);
/* The family's values from row of r, whose columns col.. are f's columns in order:
 * the one load of every stored family. */
void db_family_load(const struct db_family *f, const PGresult *r, int row, int col,
                    union family_value *vals);

#endif
