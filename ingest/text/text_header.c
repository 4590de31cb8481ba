/* text_header.c: the job header of darshan-parser's and darshan-dxt-parser's texts,
 * and their decimal numbers (text_header.h). */
#include "text_header.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const text_header_keys[TH_COUNT] = {
    "darshan log version", "exe",      "uid",    "jobid",
    "start_time",          "end_time", "nprocs", "run time"};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool text_i64(const char *s, int64_t *out)
{
    char *end;
    long long v;

    if (!is_digit(s[0]) && !(s[0] == '-' && is_digit(s[1])))
        return false;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = (int64_t)v;
    return true;
}

bool text_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!is_digit(s[0]))
        return false;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = (uint64_t)v;
    return true;
}

bool text_f64(const char *s, double *out)
{
    char *end;
    double v;

    if (!is_digit(s[0]) && !((s[0] == '-' || s[0] == '.') && s[1] != '\0'))
        return false;
    errno = 0;
    v = strtod(s, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool text_header_split(char *line, char **key, char **value)
{
    char *c;

    if (line[0] != '#' || line[1] != ' ' || line[2] < 'a' || line[2] > 'z')
        return false;
    for (c = line + 2; (*c >= 'a' && *c <= 'z') || *c == '_' || *c == ' '; c++)
        ;
    if (*c != ':' || (c[1] != ' ' && c[1] != '\0'))
        return false;
    *c = '\0';
    *key = line + 2;
    *value = c[1] == ' ' ? c + 2 : c + 1;
    return true;
}

/* start_time, end_time or nprocs. */
static enum status integer_value(struct text_header *h, int k, const char *key,
                                 const char *value, long lineno, struct error *err)
{
    int64_t v;

    if (!text_i64(value, &v)) {
        return error_at(err, STATUS_PARSE, h->path, lineno,
                        "expected an integer for %s, got '%.40s'", key, value);
    }
    /* RFC 3339 ends with year 9999: a later start is not a time */
    if (k != TH_NPROCS && (v < 0 || v > 253402300799)) {
        return error_at(err, STATUS_PARSE, h->path, lineno,
                        "expected %s from 0 to 253402300799 (year 9999), got '%.40s'",
                        key, value);
    }
    if (k == TH_START) {
        h->start_time_s = v;
    } else if (k == TH_END) {
        h->end_time_s = v;
    } else if (v < 1) {
        return error_at(err, STATUS_PARSE, h->path, lineno,
                        "expected nprocs of at least 1, got '%.40s'", value);
    } else {
        h->nprocs = v;
    }
    return STATUS_OK;
}

enum status text_header_value(struct text_header *h, const char *key, const char *value,
                              long lineno, struct error *err)
{
    enum status rc = STATUS_OK;
    int k;

    for (k = 0; k < TH_COUNT; k++) {
        if (strcmp(key, text_header_keys[k]) == 0)
            break;
    }
    if (k == TH_COUNT)
        return STATUS_NOT_FOUND;
    if (h->seen & (1u << k)) {
        return error_at(err, STATUS_PARSE, h->path, lineno,
                        "expected header key '%s' once, got it a second time (line %ld "
                        "gave it first)",
                        text_header_keys[k], h->line[k]);
    }
    switch ((enum text_key)k) {
    case TH_VERSION:
        if (!text_f64(value, &h->log_version)) {
            return error_at(err, STATUS_PARSE, h->path, lineno,
                            "expected a number for darshan log version, got '%.40s'",
                            value);
        }
        /* 2.x text has 7 fields and CP_ counters: another format altogether. */
        if (h->log_version < 3.0) {
            return error_at(err, STATUS_PARSE, h->path, lineno,
                            "expected darshan log version 3.x or later, got '%.40s'",
                            value);
        }
        break;
    case TH_EXE:
        h->exe = str_dup(value);
        if (h->exe == NULL)
            return error_set(err, STATUS_NOMEM, "exe of %s", h->path);
        break;
    case TH_UID:
        /* uid_t is 32 bits: anything larger is not a user */
        if (!text_u64(value, &h->uid) || h->uid > UINT32_MAX) {
            return error_at(err, STATUS_PARSE, h->path, lineno,
                            "expected a uid from 0 to 4294967295, got '%.40s'", value);
        }
        break;
    case TH_JOBID: {
        size_t n = strlen(value);

        if (n == 0 || n >= sizeof h->jobid) {
            return error_at(err, STATUS_PARSE, h->path, lineno,
                            "expected a job id of 1 to %zu characters, got '%.40s'",
                            sizeof h->jobid - 1, value);
        }
        memcpy(h->jobid, value, n + 1);
        break;
    }
    case TH_START:
    case TH_END:
    case TH_NPROCS: rc = integer_value(h, k, key, value, lineno, err); break;
    case TH_RUN_TIME:
        if (!text_f64(value, &h->run_time_s) || h->run_time_s < 0) {
            return error_at(err, STATUS_PARSE, h->path, lineno,
                            "expected a number >= 0 for run time, got '%.40s'", value);
        }
        break;
    case TH_COUNT: break;
    }
    if (rc != STATUS_OK)
        return rc;
    h->seen |= 1u << k;
    h->line[k] = lineno;
    return STATUS_OK;
}

enum status text_header_end(struct text_header *h, long lineno, struct error *err)
{
    for (int k = 0; k < TH_COUNT; k++) {
        if (!(h->seen & (1u << k))) {
            return error_at(err, STATUS_PARSE, h->path, lineno,
                            "expected header line '# %s: ...' before this line, got none",
                            text_header_keys[k]);
        }
    }
    if (h->end_time_s < h->start_time_s) {
        return error_at(err, STATUS_PARSE, h->path, h->line[TH_END],
                        "expected end_time >= start_time (%" PRId64 "), got %" PRId64,
                        h->start_time_s, h->end_time_s);
    }
    /* Real logs stamp their last close a little past their own run time (whole
     * seconds, clocks read apart): the run time or end - start + 1, and 2 s more. */
    h->limit_s = fmax(h->run_time_s, (double)(h->end_time_s - h->start_time_s + 1)) + 2.0;
    return STATUS_OK;
}

void text_header_clear(struct text_header *h)
{
    free(h->exe);
    h->exe = NULL;
}
