/* text_header.h: what darshan-parser's and darshan-dxt-parser's texts share, read the
 * same way for both (darshan.c, dxt_text.c): the "# key: value" header of the job, and
 * whole-string decimal numbers. Inside ingest/ only. */
#ifndef IOCONTEND_INGEST_TEXT_HEADER_H
#define IOCONTEND_INGEST_TEXT_HEADER_H

#include "../../common/common.h"

#include <stdbool.h>
#include <stdint.h>

/* The job's keys, in the order darshan-parser prints them. */
enum text_key {
    TH_VERSION,
    TH_EXE,
    TH_UID,
    TH_JOBID,
    TH_START,
    TH_END,
    TH_NPROCS,
    TH_RUN_TIME,
    TH_COUNT
};

/* "darshan log version", "exe", …, "run time", by enum text_key. */
extern const char *const text_header_keys[TH_COUNT];

/* The job as the header gives it, while it is read. */
struct text_header {
    const char *path; /* names the input in errors */
    double log_version;
    char *exe; /* owned: the caller takes it, or text_header_clear frees it */
    uint64_t uid;
    char jobid[32];
    int64_t start_time_s, end_time_s, nprocs;
    double run_time_s;
    double limit_s;      /* after text_header_end: max(run time, end - start + 1) + 2 s */
    unsigned seen;       /* bit per enum text_key */
    long line[TH_COUNT]; /* where each key was given */
};

/* "# key: value" with a lower-case key (letters, '_', ' '): splits line in place only
 * when it is one. */
bool text_header_split(char *line, char **key, char **value);
/* Checks and keeps the value of one of the job's keys. STATUS_NOT_FOUND, err untouched,
 * for another key (the caller's to judge); STATUS_PARSE naming the line for a bad or
 * repeated value; STATUS_NOMEM. */
enum status text_header_value(struct text_header *h, const char *key, const char *value,
                              long lineno, struct error *err) MUST_CHECK;
/* The header ended at lineno: every key was given and end >= start; sets limit_s. */
enum status text_header_end(struct text_header *h, long lineno,
                            struct error *err) MUST_CHECK;
void text_header_clear(struct text_header *h);

/* Whole-string decimal parses: a leading sign only where the type has one, no
 * spaces, no trailing junk, no overflow; f64 also refuses what is not finite. */
bool text_i64(const char *s, int64_t *out);
bool text_u64(const char *s, uint64_t *out);
bool text_f64(const char *s, double *out);

#endif
