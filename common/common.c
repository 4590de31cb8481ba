/* common.c: errors, logging and hashing for every part. */
#include "common.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static enum log_level current_level = LOG_INFO;

/* Fills everything but the message; false when err already holds an error. */
static bool error_head(struct error *err, enum status code, const char *file, long line)
{
    if (err == NULL || err->code != STATUS_OK)
        return false;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file != NULL ? file : "");
    err->line = line;
    return true;
}

enum status error_set(struct error *err, enum status code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (error_head(err, code, NULL, 0))
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

enum status error_at(struct error *err, enum status code, const char *file, long line,
                     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (error_head(err, code, file, line))
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

enum status error_os(struct error *err, enum status code, int errnum, const char *file,
                     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (error_head(err, code, file, 0)) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        err->os_errno = errnum;
    }
    va_end(ap);
    return code;
}

enum status error_param(struct error *err, enum status code, const char *parameter,
                        const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (error_head(err, code, NULL, 0)) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        snprintf(err->parameter, sizeof err->parameter, "%s", parameter);
    }
    va_end(ap);
    return code;
}

enum status error_wrap(struct error *err, const char *fmt, ...)
{
    char context[sizeof err->msg], inner[sizeof err->msg];
    va_list ap;

    if (err == NULL || err->code == STATUS_OK)
        return err != NULL ? err->code : STATUS_OK;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    memcpy(inner, err->msg, sizeof inner);
    int n = snprintf(err->msg, sizeof err->msg, "%s: %s", context, inner);
    if (n < 0 || (size_t)n >= sizeof err->msg) /* cut short: the context comes first */
        err->msg[sizeof err->msg - 1] = '\0';
    return err->code;
}

void error_clear(struct error *err)
{
    if (err != NULL)
        memset(err, 0, sizeof *err);
}

void error_format(const struct error *err, char *buf, size_t size)
{
    if (size == 0)
        return;
    if (err->file[0] != '\0' && err->line > 0) {
        snprintf(buf, size, "%s:%ld: %s", err->file, err->line, err->msg);
    } else if (err->file[0] != '\0') {
        snprintf(buf, size, "%s: %s", err->file, err->msg);
    } else {
        snprintf(buf, size, "%s", err->msg);
    }
}

const char *status_name(enum status s)
{
    switch (s) {
    case STATUS_OK: return "ok";
    case STATUS_INVALID: return "invalid";
    case STATUS_NOT_FOUND: return "not_found";
    case STATUS_PARSE: return "parse";
    case STATUS_DB: return "db";
    case STATUS_NOMEM: return "nomem";
    case STATUS_INTERNAL: return "internal";
    case STATUS_BUSY: return "busy";
    case STATUS_CANCELLED: return "cancelled";
    }
    return "internal";
}

void log_set_level(enum log_level level)
{
    current_level = level;
}

enum status log_level_parse(const char *name, enum log_level *out)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i]) == 0) {
            *out = (enum log_level)i;
            return STATUS_OK;
        }
    }
    return STATUS_INVALID;
}

static _Thread_local struct log_capture *capturing;

void log_capture_to(struct log_capture *c)
{
    capturing = c;
}

/* Appends line and a newline to this thread's capture; false when there is none or
 * no memory. */
static bool capture_keep(const char *line)
{
    struct log_capture *c = capturing;
    size_t n = strlen(line);

    if (c == NULL)
        return false;
    if (c->len + n + 2 > c->cap) {
        size_t cap = c->cap == 0 ? 1024 : c->cap;
        while (cap < c->len + n + 2)
            cap *= 2;
        char *p = realloc(c->text, cap);
        if (p == NULL)
            return false;
        c->text = p;
        c->cap = cap;
    }
    memcpy(c->text + c->len, line, n);
    c->len += n;
    c->text[c->len++] = '\n';
    c->text[c->len] = '\0';
    return true;
}

void log_capture_flush(struct log_capture *c)
{
    if (c->len > 0)
        fwrite(c->text, 1, c->len, stderr);
    free(c->text);
    *c = (struct log_capture){0};
}

static void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    char stamp[32], msg[2048], line[2048];
    struct tm tm;
    time_t now = time(NULL);

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* Messages carry bytes of the inputs (names, lines): escaped, a line stays one
     * line of valid UTF-8 whatever a file holds. */
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One write per line, so lines of concurrent processes do not interleave. */
    int n = snprintf(line, sizeof line, "%s iocontend: %s: ", stamp, names[level]);
    if (n > 0 && (size_t)n < sizeof line)
        str_escape(msg, line + n, sizeof line - (size_t)n);
    if (!capture_keep(line))
        fprintf(stderr, "%s\n", line);
}

#define LOG_AT(level)                                                                    \
    do {                                                                                 \
        if ((level) <= current_level) {                                                  \
            va_list ap;                                                                  \
            va_start(ap, fmt);                                                           \
            log_vmsg((level), fmt, ap);                                                  \
            va_end(ap);                                                                  \
        }                                                                                \
    } while (0)

void log_error(const char *fmt, ...)
{
    LOG_AT(LOG_ERROR);
}

void log_warn(const char *fmt, ...)
{
    LOG_AT(LOG_WARN);
}

void log_alert(const char *fmt, ...)
{
    va_list ap;

    /* Every level shows errors: a warning by name, shown as one. */
    va_start(ap, fmt);
    log_vmsg(LOG_WARN, fmt, ap);
    va_end(ap);
}

void log_info(const char *fmt, ...)
{
    LOG_AT(LOG_INFO);
}

void log_debug(const char *fmt, ...)
{
    LOG_AT(LOG_DEBUG);
}

void hash128_init(struct hash128 *h)
{
    h->a = 0xcbf29ce484222325ULL;
    h->b = 0x84222325cbf29ce4ULL;
}

void hash128_update(struct hash128 *h, const void *data, size_t len)
{
    const unsigned char *p = data;

    /* Two lanes with different primes and offsets: a collision must hit both. */
    for (size_t i = 0; i < len; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ (uint64_t)(p[i] + 0x5bU)) * 0x100000000000067ULL;
        h->b ^= h->b >> 29;
    }
}

void hash128_hex(const struct hash128 *h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h->a,
             (unsigned long long)h->b);
}

char *str_dup(const char *s)
{
    size_t n;
    char *d;

    if (s == NULL)
        return NULL;
    n = strlen(s) + 1;
    d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when the byte at s does not start one. */
static size_t utf8_length(const unsigned char *s)
{
    unsigned char b = s[0];
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;

    if (b < 0x80)
        return 1;
    if (b >= 0xc2 && b <= 0xdf) {
        n = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
        n = 3;
        lo = b == 0xe0 ? 0xa0 : 0x80;
        hi = b == 0xed ? 0x9f : 0xbf;
    } else if (b >= 0xf0 && b <= 0xf4) {
        n = 4;
        lo = b == 0xf0 ? 0x90 : 0x80;
        hi = b == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

size_t str_escape(const char *s, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0;
    bool fits = true;

    while (*p != '\0') {
        char esc[8];
        const char *piece = esc;
        size_t n = utf8_length(p);

        if (n == 1 && *p == '\\') {
            piece = "\\\\";
            n = 2;
            p++;
        } else if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)*p);
            n = 4;
            p++;
        } else {
            piece = (const char *)p;
            p += n;
        }
        if (fits && len + n < size) {
            memcpy(out + len, piece, n);
        } else {
            fits = false; /* later pieces never fill the gap: cut between escapes */
            if (size > 0 && len < size)
                out[len] = '\0';
        }
        len += n;
    }
    if (fits && size > 0)
        out[len] = '\0';
    return len;
}

bool path_absolute(const char *path, char *out, size_t size)
{
    char joined[8192];
    size_t o = 0;

    if (size == 0)
        return false;
    out[0] = '\0';
    if (path[0] == '/') {
        if (strlen(path) >= sizeof joined)
            return false;
        snprintf(joined, sizeof joined, "%s", path);
    } else {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) == NULL)
            return false;
        int n = snprintf(joined, sizeof joined, "%s/%s", cwd, path);
        if (n < 0 || (size_t)n >= sizeof joined)
            return false;
    }
    /* Segment by segment into out, which always starts with "/". */
    for (const char *p = joined; *p != '\0';) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (len == 0)
            break;
        if (len == 1 && p[0] == '.') {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--; /* the slash before it */
        } else {
            if (o + 1 + len + 1 > size) {
                out[0] = '\0';
                return false;
            }
            out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
    }
    if (o == 0) {
        if (size < 2)
            return false;
        out[o++] = '/';
    }
    out[o] = '\0';
    return true;
}

char *str_escape_dup(const char *s)
{
    char *d;
    size_t n;

    if (s == NULL)
        return NULL;
    n = str_escape(s, NULL, 0) + 1;
    d = malloc(n);
    if (d != NULL)
        str_escape(s, d, n);
    return d;
}

/* ---- time ----------------------------------------------------------------------- */

static bool fixed_digits(const char *s, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static int days_in_month(int year, int mon)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

    return mon == 2 && leap ? 29 : days[mon - 1];
}

void time_format_rfc3339(int64_t epoch_s, char out[40])
{
    time_t t = (time_t)epoch_s;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, 40, "1970-01-01T00:00:00Z");
}

bool time_parse_rfc3339(const char *s, double *out_s)
{
    int year, mon, day, hour, min, sec, off_h = 0, off_m = 0;
    double frac = 0;
    long sign = 0;

    /* Each test stops at the first character that does not fit, so none reads past
     * the terminating NUL. */
    if (!fixed_digits(s, 4, &year) || s[4] != '-' || !fixed_digits(s + 5, 2, &mon) ||
        s[7] != '-' || !fixed_digits(s + 8, 2, &day) ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        !fixed_digits(s + 11, 2, &hour) || s[13] != ':' ||
        !fixed_digits(s + 14, 2, &min) || s[16] != ':' || !fixed_digits(s + 17, 2, &sec))
        return false;
    const char *p = s + 19;
    if (*p == '.') {
        /* Digits only: strtod alone would also take an exponent. */
        size_t n_digits = strspn(p + 1, "0123456789");
        if (n_digits == 0)
            return false;
        frac = strtod(p, NULL);
        p += 1 + n_digits;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        if (!fixed_digits(p + 1, 2, &off_h) || p[3] != ':' ||
            !fixed_digits(p + 4, 2, &off_m) || off_h > 23 || off_m > 59)
            return false;
        p += 6;
    } else {
        return false;
    }
    if (*p != '\0' || mon < 1 || mon > 12 || day < 1 || day > days_in_month(year, mon) ||
        hour > 23 || min > 59 || sec > 60)
        return false;
    struct tm tm = {0};
    tm.tm_year = year - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = min;
    tm.tm_sec = sec; /* a leap second 60 normalizes to the next minute */
    time_t t = timegm(&tm);
    *out_s = (double)t + frac - (double)(sign * (off_h * 3600L + off_m * 60L));
    return true;
}
