/* common.h: the status vocabulary, the error struct and logging shared by every part. */
#ifndef IOCONTEND_COMMON_H
#define IOCONTEND_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOCONTEND_VERSION "0.1.0"

/* MUST_CHECK: a caller that drops the result gets a warning (an error under -Werror);
 * for statuses that must not go unread (PgBouncer's _MUSTCHECK). */
#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define MUST_CHECK        __attribute__((warn_unused_result))
#else
#define PRINTF_LIKE(f, a)
#define MUST_CHECK
#endif

enum status {
    STATUS_OK = 0,
    STATUS_INVALID,   /* bad argument, query or configuration */
    STATUS_NOT_FOUND, /* a file, row or route that does not exist */
    STATUS_PARSE,     /* the contents of an ingested file */
    STATUS_DB,        /* the database is unavailable or refused */
    STATUS_NOMEM,
    STATUS_INTERNAL,
    STATUS_BUSY,     /* another run of the same kind holds its lock (--no-wait) */
    STATUS_CANCELLED /* the caller's cancel flag stopped the work */
};

struct error {
    enum status code;
    char file[128];     /* input file, "" when none */
    long line;          /* 1-based, 0 when none */
    char msg[160];      /* "expected <what>, got <what>" */
    char parameter[32]; /* the query or command-line parameter at fault, "" when none */
    char sqlstate[6];   /* the database's SQLSTATE of a STATUS_DB error, "" when none */
    int os_errno;       /* errno of the system call behind it (EROFS, ENOSPC, ENOMEM),
                           0 when none: what ran out, for the exit status */
};

/* Records code and the message in err (when err is not NULL and holds no error
 * yet: the first error recorded wins) and returns code. */
enum status error_set(struct error *err, enum status code, const char *fmt, ...)
    PRINTF_LIKE(3, 4);
/* Like error_set, with the input file and its 1-based line. */
enum status error_at(struct error *err, enum status code, const char *file, long line,
                     const char *fmt, ...) PRINTF_LIKE(5, 6);
/* Like error_at, with errnum, the errno of the system call that failed, in
 * err->os_errno. */
enum status error_os(struct error *err, enum status code, int errnum, const char *file,
                     const char *fmt, ...) PRINTF_LIKE(5, 6);
/* Like error_set, naming the parameter at fault (a query parameter, an option). */
enum status error_param(struct error *err, enum status code, const char *parameter,
                        const char *fmt, ...) PRINTF_LIKE(4, 5);
/* Puts "context: " before the message an error already holds (no-op on NULL or an
 * empty err); returns err's code (STATUS_OK for a NULL err: callers keep their own
 * status). */
enum status error_wrap(struct error *err, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Empties err so that a new first error can be recorded. */
void error_clear(struct error *err);
/* "file:line: msg", "file: msg" or "msg" into buf (always terminated). */
void error_format(const struct error *err, char *buf, size_t size);
/* "ok", "invalid", "not_found", "parse", "db", "nomem", "internal". */
const char *status_name(enum status s);

/* Progress of long work, for a caller that draws it (cli/'s terminal bar): done of
 * total units; label names the unit at hand (borrowed for the call), NULL when
 * none. A call with total 0 asks to clear what was drawn, before a log line. */
struct progress {
    void (*fn)(void *arg, size_t done, size_t total, const char *label);
    void *arg;
};

/* Runs fn(arg, i) for every i in [0, n) on up to jobs threads (the caller's among
 * them; 0 or 1: the caller alone), each i once, in no given order; returns when all
 * are done. fn must only touch what index i owns. A thread that cannot be started
 * leaves its share to the others. */
void parallel_for(size_t n, unsigned jobs, void (*fn)(void *arg, size_t i), void *arg);
/* The processors online (at least 1): the default number of jobs. */
unsigned processors_online(void);

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Logs go to stderr, one line per event: "iocontend: level: message". */
void log_set_level(enum log_level level);
/* Parses "error|warn|info|debug"; STATUS_INVALID for anything else. */
enum status log_level_parse(const char *name, enum log_level *out) MUST_CHECK;

void log_error(const char *fmt, ...) PRINTF_LIKE(1, 2);
void log_warn(const char *fmt, ...) PRINTF_LIKE(1, 2);
void log_info(const char *fmt, ...) PRINTF_LIKE(1, 2);
void log_debug(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* A warning that stored results were lost, replaced or are kept stale, or that the
 * database is not the one meant: written as "warn" at every level, --quiet's (error)
 * included, so that a night run by cron with --quiet still says it. */
void log_alert(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* Log lines held back: work done on several threads logs in a fixed order when each
 * piece of work captures its lines and the caller writes them in order. */
struct log_capture {
    char *text; /* the lines, each ending in '\n'; NULL when none */
    size_t len, cap;
};
/* From now on the calling thread's log lines go to c (c NULL: to stderr again). A
 * line that cannot be kept for want of memory goes to stderr at once. */
void log_capture_to(struct log_capture *c);
/* Writes c's lines to stderr in the order they came, and empties c. */
void log_capture_flush(struct log_capture *c);

/* A 128-bit content hash (two independent FNV-1a 64 lanes) as 32 lowercase hex
 * digits plus NUL. Identity keys only, not security. */
struct hash128 {
    uint64_t a, b;
};
void hash128_init(struct hash128 *h);
void hash128_update(struct hash128 *h, const void *data, size_t len);
void hash128_hex(const struct hash128 *h, char out[33]);

/* An RFC 3339 instant (2026-11-20T10:00:00Z; fractional seconds and ±HH:MM offsets
 * allowed; 'T', 't' or ' ' between date and time) into epoch seconds. false when s
 * is anything else (the checks stop at the first character that does not fit). */
bool time_parse_rfc3339(const char *s, double *out_s);
/* epoch_s as "2026-11-20T10:00:00Z" into out (1970-01-01T00:00:00Z when out of
 * range). */
void time_format_rfc3339(int64_t epoch_s, char out[40]);

/* strdup that returns NULL on NULL or no memory. */
char *str_dup(const char *s);

/* s as printable UTF-8 text: every byte that is not part of a valid UTF-8 sequence,
 * every C0 control and DEL becomes \xNN and a backslash becomes \\, so that text
 * from any input can be stored and logged, and read back unambiguously. Writes at
 * most size bytes (always terminated when size > 0, cut only between escapes) and
 * returns the length of the whole escaped text (like snprintf). */
size_t str_escape(const char *s, char *out, size_t size);
/* str_escape into a new string (caller frees); NULL on NULL or no memory. */
char *str_escape_dup(const char *s);

/* path made absolute without touching the file system beyond getcwd: a relative
 * path is taken from the working directory, then "." and empty segments go and ".."
 * takes the segment before it (lexically: a symbolic link is not followed). false
 * (out "") when the result would not fit in size bytes or getcwd fails. */
bool path_absolute(const char *path, char *out, size_t size);

/* ---- a tiny HTTP/1.1 client (common/httpget.c) --------------------------------- */

/* Sends "METHOD path HTTP/1.1" to host:port (a name or a numeric IPv4/IPv6 address)
 * with Connection: close, and reads the whole answer (blocking, 60 s socket
 * timeouts). headers: extra header lines, each ending in "\r\n" (NULL: none).
 * *status is the HTTP status; *body (when body is not NULL) is the NUL-terminated
 * body, chunked encoding undone, malloc'd (caller frees). Returns 0, or -1 with errno
 * set when it could not connect, send, or read a well-formed answer (*body NULL). */
int http_request(const char *host, int port, const char *method, const char *path,
                 const char *headers, int *status, char **body);
/* http_request with method "GET". */
int http_get(const char *host, int port, const char *path, const char *headers,
             int *status, char **body);

#endif
