/* pq.c: the libpq plumbing the files of sql/ share: statements, results, COPY text. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum status db_fail_result(struct db *db, const PGresult *r, struct error *err,
                           const char *what)
{
    const char *msg = PQerrorMessage(db->conn);
    const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    bool first = err != NULL && err->code == STATUS_OK;
    char clean[160];

    snprintf(clean, sizeof clean, "%s", msg);
    clean[strcspn(clean, "\n")] = '\0';
    /* libpq's own failures carry no SQLSTATE: a lost connection is class 08. */
    if (state == NULL && PQstatus(db->conn) == CONNECTION_BAD)
        state = "08006";
    /* A server that panicked on a full disk (its WAL cannot grow) ends the
     * connections of the others (57P02) or drops them (08): when the embedded
     * server's disk is nearly full, that is what ran out. */
    if (state != NULL &&
        (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0) &&
        db->data_dir[0] != '\0') {
        char wal[sizeof db->data_dir + 8];
        snprintf(wal, sizeof wal, "%s/pg_wal", db->data_dir);
        const char *const dirs[] = {db->data_dir, wal};
        for (size_t i = 0; i < 2; i++) {
            unsigned long long avail = 0;
            if (free_bytes(dirs[i], &avail) && avail < DB_MIN_FREE_BYTES) {
                state = "53100";
                log_error("%s: %llu bytes free: the server's disk is full", dirs[i],
                          avail);
                break;
            }
        }
    }
    enum status rc = error_set(err, STATUS_DB, "%s: %s", what, clean);
    if (first && state != NULL)
        snprintf(err->sqlstate, sizeof err->sqlstate, "%s", state);
    return rc;
}

enum status db_fail(struct db *db, struct error *err, const char *what)
{
    return db_fail_result(db, NULL, err, what);
}

/* Quiet NOTICEs ("relation already exists, skipping") stay out of the log. */
const char db_session_sql[] = "SET client_min_messages = warning; SET TIME ZONE 'UTC'";

static bool failed(const PGresult *r)
{
    ExecStatusType st = PQresultStatus(r);
    return st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK;
}

/* A session setting on the new connection, sent as is (no retry: it is new). */
static bool session_set(struct db *db, const char *sql)
{
    PGresult *r = PQexec(db->conn, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;

    PQclear(r);
    return ok;
}

/* Whether r's failure was the connection's end: libpq's own (CONNECTION_BAD, no
 * SQLSTATE), class 08, or the server's FATAL as it shuts down (57P01 on a fast
 * stop, 57P02 on a crash), read before libpq saw the socket close. */
static bool connection_lost(const struct db *db, const PGresult *r)
{
    const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

    if (PQstatus(db->conn) == CONNECTION_BAD)
        return true;
    return state != NULL && (strncmp(state, "08", 2) == 0 ||
                             strcmp(state, "57P01") == 0 || strcmp(state, "57P02") == 0);
}

bool db_lost_reconnected(struct db *db, PGTransactionStatusType before, const PGresult *r)
{
    /* Inside a transaction the statements before this one are gone with the
     * connection: running this one alone would not be the same work. */
    if (!db->retry_lost || before != PQTRANS_IDLE || !connection_lost(db, r))
        return false;
    /* The socket's folder is checked again, as before every connection (db_open). */
    if (db->target.embedded && socket_dir_check(&db->target, NULL) != STATUS_OK)
        return false;
    pthread_mutex_lock(&db->reset_lock);
    PQreset(db->conn);
    pthread_mutex_unlock(&db->reset_lock);
    if (PQstatus(db->conn) != CONNECTION_OK)
        return false;
    db->temp_tables = false;
    db->batch_tables = false;
    if (!session_set(db, db_session_sql))
        return false;
    if (db->timeout_ms > 0) {
        char sql[64];
        snprintf(sql, sizeof sql, "SET statement_timeout = %lu", db->timeout_ms);
        if (!session_set(db, sql))
            return false;
    }
    log_info("database connection lost and re-established: the statement runs again");
    return true;
}

enum status exec_cmd(struct db *db, const char *sql, struct error *err)
{
    PGTransactionStatusType before = PQtransactionStatus(db->conn);
    PGresult *r = PQexec(db->conn, sql);
    enum status rc = STATUS_OK;

    if (failed(r) && db_lost_reconnected(db, before, r)) {
        PQclear(r);
        r = PQexec(db->conn, sql);
    }
    if (failed(r))
        rc = db_fail_result(db, r, err, sql);
    PQclear(r);
    return rc;
}

/* Runs a parameterised statement; *out is the result on success (caller PQclears). */
static enum status exec_format(struct db *db, const char *sql, int n,
                               const char *const *vals, int format, PGresult **out,
                               struct error *err)
{
    PGTransactionStatusType before = PQtransactionStatus(db->conn);
    PGresult *r = PQexecParams(db->conn, sql, n, NULL, vals, NULL, NULL, format);

    if (failed(r) && db_lost_reconnected(db, before, r)) {
        PQclear(r);
        r = PQexecParams(db->conn, sql, n, NULL, vals, NULL, NULL, format);
    }
    if (failed(r)) {
        enum status rc = db_fail_result(db, r, err, "query");
        PQclear(r);
        *out = NULL;
        return rc;
    }
    *out = r;
    return STATUS_OK;
}

enum status exec_params(struct db *db, const char *sql, int n, const char *const *vals,
                        PGresult **out, struct error *err)
{
    return exec_format(db, sql, n, vals, 0, out, err);
}

enum status exec_params_binary(struct db *db, const char *sql, int n,
                               const char *const *vals, PGresult **out, struct error *err)
{
    return exec_format(db, sql, n, vals, 1, out, err);
}

/* The big-endian bytes of a binary field, width wide: 0 when NULL or of another
 * width (a column of another type: a bug of the query, read as nothing). */
static uint64_t bin_bits(const PGresult *r, int row, int col, int width)
{
    const unsigned char *p = (const unsigned char *)PQgetvalue(r, row, col);
    uint64_t v = 0;

    if (PQgetisnull(r, row, col) || PQgetlength(r, row, col) != width)
        return 0;
    for (int i = 0; i < width; i++)
        v = v << 8 | p[i];
    return v;
}

enum status bin_check(const PGresult *r, const char *types, const char *what,
                      struct error *err)
{
    /* the built-in types' OIDs (pg_type.dat), fixed since PostgreSQL 7 */
    static const struct {
        char code;
        Oid oid;
    } known[] = {{'l', 20}, {'i', 23}, {'b', 16}, {'d', 701}};
    int n = (int)strlen(types);

    if (PQnfields(r) != n) {
        return error_set(err, STATUS_INTERNAL, "%s: %d columns, %d expected", what,
                         PQnfields(r), n);
    }
    for (int c = 0; c < n; c++) {
        Oid want = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
            if (known[k].code == types[c])
                want = known[k].oid;
        }
        if (PQfformat(r, c) != 1 || PQftype(r, c) != want) {
            return error_set(err, STATUS_INTERNAL, "%s: column %d is of type %u, not %u",
                             what, c + 1, (unsigned)PQftype(r, c), (unsigned)want);
        }
    }
    return STATUS_OK;
}

double bin_double(const PGresult *r, int row, int col)
{
    uint64_t bits = bin_bits(r, row, col, 8);
    double v;

    if (PQgetisnull(r, row, col) || PQgetlength(r, row, col) != 8)
        return NAN;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int64_t bin_int64(const PGresult *r, int row, int col)
{
    return (int64_t)bin_bits(r, row, col, 8);
}

int32_t bin_int32(const PGresult *r, int row, int col)
{
    return (int32_t)(uint32_t)bin_bits(r, row, col, 4);
}

bool bin_bool(const PGresult *r, int row, int col)
{
    return bin_bits(r, row, col, 1) != 0;
}

void rollback(struct db *db)
{
    PGresult *r = PQexec(db->conn, "ROLLBACK");
    PQclear(r);
}

/* Replaces rows in one transaction: runs del (n_del parameters) then ins (n_ins), and
 * commits, or rolls back and returns the first failure. */
enum status replace_rows(struct db *db, const char *del, int n_del,
                         const char *const *del_vals, const char *ins, int n_ins,
                         const char *const *ins_vals, struct error *err)
{
    enum status rc = exec_cmd(db, "BEGIN", err);

    if (rc != STATUS_OK)
        return rc;
    rc = exec_params_cmd(db, del, n_del, del_vals, err);
    if (rc == STATUS_OK)
        rc = exec_params_cmd(db, ins, n_ins, ins_vals, err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

double get_double(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return NAN;
    return strtod(PQgetvalue(r, row, col), NULL);
}

int64_t get_int64(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return 0;
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

void copy_text(char *dst, size_t size, const PGresult *r, int row, int col)
{
    snprintf(dst, size, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

bool buf_reserve(struct buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap == 0 ? 8192 : b->cap;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL)
        return false;
    b->p = p;
    b->cap = cap;
    return true;
}

bool buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n))
        return false;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

/* A text field for COPY's text format: backslash, tab and newline escaped. */
bool buf_field(struct buf *b, const char *s)
{
    if (!buf_reserve(b, 1))
        return false;
    if (s == NULL)
        return buf_printf(b, "\\N");
    for (; *s != '\0'; s++) {
        const char *esc = NULL;
        switch (*s) {
        case '\\': esc = "\\\\"; break;
        case '\t': esc = "\\t"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        default: break;
        }
        if (!buf_reserve(b, 2))
            return false;
        if (esc != NULL) {
            memcpy(b->p + b->len, esc, 2);
            b->len += 2;
        } else {
            b->p[b->len++] = *s;
        }
    }
    b->p[b->len] = '\0';
    return true;
}

/* The results after a COPY's end: rc, or the server's verdict on the rows. A COPY
 * still in progress (its end could not be sent) is abandoned, not waited for. */
static enum status copy_results(struct db *db, enum status rc, struct error *err)
{
    PGresult *r;

    while ((r = PQgetResult(db->conn)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && rc == STATUS_OK)
            rc = db_fail_result(db, r, err, "COPY");
        PQclear(r);
        if (st == PGRES_COPY_IN)
            break;
    }
    return rc;
}

bool buf_text_array(struct buf *b, const char *const *texts, size_t n)
{
    bool ok = buf_printf(b, "{");

    for (size_t i = 0; ok && i < n; i++) {
        ok = buf_printf(b, "%s\"", i > 0 ? "," : "");
        for (const char *c = texts[i]; ok && *c != '\0'; c++)
            ok = buf_printf(b, "%s%c", *c == '"' || *c == '\\' ? "\\" : "", *c);
        ok = ok && buf_printf(b, "\"");
    }
    return ok && buf_printf(b, "}");
}

bool buf_int64_array(struct buf *b, const int64_t *v, size_t n)
{
    bool ok = buf_printf(b, "{");

    for (size_t i = 0; ok && i < n; i++)
        ok = buf_printf(b, "%s%lld", i > 0 ? "," : "", (long long)v[i]);
    return ok && buf_printf(b, "}");
}

enum status copy_in(struct db *db, const char *sql, const struct buf *b,
                    struct error *err)
{
    PGresult *r = PQexec(db->conn, sql);
    enum status rc = STATUS_OK;

    if (PQresultStatus(r) != PGRES_COPY_IN) {
        rc = db_fail_result(db, r, err, sql);
        PQclear(r);
        return rc;
    }
    PQclear(r);
    if (b->len > 0 && PQputCopyData(db->conn, b->p, (int)b->len) != 1)
        rc = db_fail(db, err, "COPY data");
    if (PQputCopyEnd(db->conn, rc == STATUS_OK ? NULL : "aborted") != 1 &&
        rc == STATUS_OK)
        rc = db_fail(db, err, "COPY end");
    rc = copy_results(db, rc, err);
    return rc;
}

/* ---- COPY in binary format ------------------------------------------------------- */

#define BINCOPY_FLUSH_BYTES ((size_t)1 << 20)

static void bincopy_put(struct bincopy *c, const void *p, size_t n)
{
    if (c->rc != STATUS_OK)
        return;
    if (!buf_reserve(&c->b, n)) {
        c->rc = error_set(c->err, STATUS_NOMEM, "COPY data");
        return;
    }
    memcpy(c->b.p + c->b.len, p, n);
    c->b.len += n;
}

static void bincopy_u16(struct bincopy *c, uint16_t v)
{
    unsigned char x[2] = {(unsigned char)(v >> 8), (unsigned char)v};
    bincopy_put(c, x, 2);
}

static void bincopy_u32(struct bincopy *c, uint32_t v)
{
    unsigned char x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (unsigned char)(v >> (24 - 8 * i));
    bincopy_put(c, x, 4);
}

static void bincopy_u64(struct bincopy *c, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (56 - 8 * i));
    bincopy_put(c, x, 8);
}

/* Sends what the buffer holds once it is large: the server parses as we build. */
static void bincopy_flush(struct bincopy *c, bool force)
{
    if (c->rc != STATUS_OK || c->b.len == 0 || (!force && c->b.len < BINCOPY_FLUSH_BYTES))
        return;
    if (PQputCopyData(c->db->conn, c->b.p, (int)c->b.len) != 1)
        c->rc = db_fail(c->db, c->err, "COPY data");
    c->b.len = 0;
}

enum status bincopy_begin(struct bincopy *c, struct db *db, const char *sql,
                          struct error *err)
{
    static const char signature[11] = "PGCOPY\n\377\r\n";
    PGresult *r;

    *c = (struct bincopy){.db = db, .rc = STATUS_OK, .err = err};
    r = PQexec(db->conn, sql);
    if (PQresultStatus(r) != PGRES_COPY_IN) {
        c->rc = db_fail_result(db, r, err, sql);
        PQclear(r);
        return c->rc;
    }
    PQclear(r);
    c->started = true;
    bincopy_put(c, signature, sizeof signature); /* with its NUL: 11 bytes */
    bincopy_u32(c, 0);                           /* flags */
    bincopy_u32(c, 0);                           /* no header extension */
    return c->rc;
}

void bincopy_row(struct bincopy *c, int n)
{
    bincopy_flush(c, false);
    bincopy_u16(c, (uint16_t)n);
}

void bincopy_text(struct bincopy *c, const char *s)
{
    if (s == NULL) {
        bincopy_u32(c, UINT32_MAX); /* -1: NULL */
        return;
    }
    size_t n = strlen(s);
    /* PostgreSQL takes no field above 1 GiB; the input's, not our fault. */
    if (n >= (size_t)1 << 30) {
        if (c->rc == STATUS_OK) {
            c->rc =
                error_set(c->err, STATUS_PARSE,
                          "a text of %zu bytes, more than the 1 GiB a value can hold", n);
        }
        return;
    }
    bincopy_u32(c, (uint32_t)n);
    bincopy_put(c, s, n);
}

void bincopy_bytes(struct bincopy *c, const void *data, size_t n)
{
    if (n >= (size_t)1 << 30) {
        if (c->rc == STATUS_OK) {
            c->rc = error_set(c->err, STATUS_PARSE,
                              "%zu bytes, more than the 1 GiB a value can hold", n);
        }
        return;
    }
    bincopy_u32(c, (uint32_t)n);
    bincopy_put(c, data, n);
}

void bincopy_int4(struct bincopy *c, int32_t v)
{
    bincopy_u32(c, 4);
    bincopy_u32(c, (uint32_t)v);
}

void bincopy_int8(struct bincopy *c, int64_t v)
{
    bincopy_u32(c, 8);
    bincopy_u64(c, (uint64_t)v);
}

void bincopy_float8(struct bincopy *c, double v)
{
    uint64_t bits;

    if (!isfinite(v)) {
        bincopy_u32(c, UINT32_MAX);
        return;
    }
    memcpy(&bits, &v, sizeof bits);
    bincopy_u32(c, 8);
    bincopy_u64(c, bits);
}

void bincopy_bool(struct bincopy *c, bool v)
{
    unsigned char x = v ? 1 : 0;
    bincopy_u32(c, 1);
    bincopy_put(c, &x, 1);
}

enum status bincopy_end(struct bincopy *c)
{
    bool ok = c->rc == STATUS_OK;

    if (!c->started) {
        free(c->b.p);
        c->b = (struct buf){0};
        return c->rc;
    }
    if (ok)
        bincopy_u16(c, UINT16_MAX); /* -1: the trailer */
    bincopy_flush(c, true);
    ok = ok && c->rc == STATUS_OK;
    if (PQputCopyEnd(c->db->conn, ok ? NULL : "aborted") != 1 && ok)
        c->rc = db_fail(c->db, c->err, "COPY end");
    c->rc = copy_results(c->db, c->rc, c->err);
    free(c->b.p);
    c->b = (struct buf){0};
    return c->rc;
}

/* The stored JSON text of column 0 of the first row of sql (malloc'd into *json), and
 * when computed_at is not NULL the text of column 1; STATUS_NOT_FOUND ("no WHAT
 * stored") when there is no row. */
enum status stored_text(struct db *db, const char *sql, int n, const char *const *vals,
                        const char *what, char **json, char computed_at[40],
                        struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(db, sql, n, vals, &r, err);

    *json = NULL;
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return error_set(err, STATUS_NOT_FOUND, "no %s stored", what);
    }
    *json = str_dup(PQgetvalue(r, 0, 0));
    if (computed_at != NULL)
        copy_text(computed_at, 40, r, 0, 1);
    PQclear(r);
    return *json != NULL ? STATUS_OK : error_set(err, STATUS_NOMEM, "%s", what);
}

enum status exec_params_cmd(struct db *db, const char *sql, int n,
                            const char *const *vals, struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(db, sql, n, vals, &r, err);

    if (rc == STATUS_OK)
        PQclear(r);
    return rc;
}

enum status fetch_rows(struct db *db, const char *sql, int n, const char *const *vals,
                       size_t row_size, void (*fill)(void *row, const PGresult *r, int i),
                       const char *what, void **rows, size_t *n_rows, struct error *err)
{
    PGresult *r;
    char *a = NULL;
    enum status rc = exec_params(db, sql, n, vals, &r, err);

    *rows = NULL;
    *n_rows = 0;
    if (rc != STATUS_OK)
        return rc;
    size_t got = (size_t)PQntuples(r);
    if (got > 0) {
        a = calloc(got, row_size);
        if (a == NULL) {
            PQclear(r);
            return error_set(err, STATUS_NOMEM, "%s", what);
        }
    }
    for (size_t i = 0; i < got; i++)
        fill(a + i * row_size, r, (int)i);
    PQclear(r);
    *rows = a;
    *n_rows = got;
    return STATUS_OK;
}

/* ---- COPY ... TO STDOUT (FORMAT binary), read a row at a time ------------------- */

static const unsigned char copy_signature[11] = {'P',  'G',  'C',  'O',  'P', 'Y',
                                                 '\n', 0xff, '\r', '\n', 0};

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be_bits(const unsigned char *p, int width)
{
    uint64_t v = 0;

    for (int i = 0; i < width; i++)
        v = v << 8 | p[i];
    return v;
}

enum status copyout_begin(struct copyout *c, struct db *db, const char *sql,
                          struct error *err)
{
    memset(c, 0, sizeof *c);
    c->db = db;
    c->err = err;
    PGresult *r = PQexec(db->conn, sql);
    if (PQresultStatus(r) != PGRES_COPY_OUT) {
        c->rc = db_fail_result(db, r, err, "copy out");
        c->done = true;
        PQclear(r);
        return c->rc;
    }
    PQclear(r);
    return STATUS_OK;
}

static bool copyout_fail(struct copyout *c, const char *what)
{
    if (c->rc == STATUS_OK)
        c->rc = error_set(c->err, STATUS_INTERNAL, "copy out: %s", what);
    return false;
}

/* The command's result after the last CopyData message. */
static bool copyout_finish(struct copyout *c)
{
    PGresult *r;

    c->done = true;
    while ((r = PQgetResult(c->db->conn)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && c->rc == STATUS_OK)
            c->rc = db_fail_result(c->db, r, c->err, "copy out");
        PQclear(r);
        if (st == PGRES_COPY_OUT || st == PGRES_COPY_IN || st == PGRES_COPY_BOTH)
            break; /* still in COPY after a failure: libpq would answer so forever */
    }
    return false;
}

bool copyout_next(struct copyout *c, int n_fields)
{
    if (c->rc != STATUS_OK || c->done)
        return false;
    for (;;) {
        if (c->msg == NULL || c->pos >= c->len) {
            if (c->msg != NULL)
                PQfreemem(c->msg);
            c->msg = NULL;
            c->len = PQgetCopyData(c->db->conn, &c->msg, 0);
            c->pos = 0;
            if (c->len == -1) {
                c->msg = NULL;
                copyout_finish(c);
                return c->header ? copyout_fail(c, "no trailer") : false;
            }
            if (c->len < 0) {
                c->msg = NULL;
                c->rc = db_fail(c->db, c->err, "copy out");
                return false;
            }
        }
        const unsigned char *p = (const unsigned char *)c->msg;
        if (!c->header) {
            if (c->len - c->pos < 19 || memcmp(p + c->pos, copy_signature, 11) != 0)
                return copyout_fail(c, "not a binary COPY header");
            uint32_t ext = be32(p + c->pos + 15);
            if (ext > (uint32_t)(c->len - c->pos - 19))
                return copyout_fail(c, "a header extension past its message");
            c->pos += 19 + (int)ext;
            c->header = true;
            continue;
        }
        if (c->len - c->pos < 2)
            return copyout_fail(c, "a row shorter than its field count");
        int16_t n = (int16_t)(p[c->pos] << 8 | p[c->pos + 1]);
        c->pos += 2;
        if (n == -1) { /* the trailer: the end once the command's result is read */
            while (c->len >= 0) {
                PQfreemem(c->msg);
                c->msg = NULL;
                c->len = PQgetCopyData(c->db->conn, &c->msg, 0);
            }
            c->msg = NULL;
            if (c->len == -2)
                c->rc = db_fail(c->db, c->err, "copy out");
            copyout_finish(c);
            return false;
        }
        if (n != n_fields || n > (int)(sizeof c->flen / sizeof c->flen[0]))
            return copyout_fail(c, "a row of another width");
        for (int i = 0; i < n; i++) {
            if (c->len - c->pos < 4)
                return copyout_fail(c, "a field past its row");
            int32_t l = (int32_t)be32(p + c->pos);
            c->pos += 4;
            if (l < -1 || (l > 0 && l > c->len - c->pos))
                return copyout_fail(c, "a field past its row");
            c->flen[i] = l;
            c->field[i] = p + c->pos;
            c->pos += l > 0 ? l : 0;
        }
        c->n_fields = n;
        return true;
    }
}

double copyout_double(const struct copyout *c, int i)
{
    double v;

    if (i >= c->n_fields || c->flen[i] != 8)
        return NAN;
    uint64_t bits = be_bits(c->field[i], 8);
    memcpy(&v, &bits, sizeof v);
    return v;
}

int64_t copyout_int64(const struct copyout *c, int i)
{
    return i < c->n_fields && c->flen[i] == 8 ? (int64_t)be_bits(c->field[i], 8) : 0;
}

int32_t copyout_int32(const struct copyout *c, int i)
{
    return i < c->n_fields && c->flen[i] == 4 ? (int32_t)be_bits(c->field[i], 4) : 0;
}

bool copyout_bool(const struct copyout *c, int i)
{
    return i < c->n_fields && c->flen[i] == 1 && c->field[i][0] != 0;
}

enum status copyout_end(struct copyout *c)
{
    /* Whatever is left is read and dropped: the connection is then free again. */
    while (!c->done) {
        if (c->msg != NULL)
            PQfreemem(c->msg);
        c->msg = NULL;
        int len = PQgetCopyData(c->db->conn, &c->msg, 0);
        if (len < 0) {
            c->msg = NULL;
            copyout_finish(c);
        }
    }
    if (c->msg != NULL)
        PQfreemem(c->msg);
    c->msg = NULL;
    return c->rc;
}
