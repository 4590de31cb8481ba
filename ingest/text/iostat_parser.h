/* iostat_parser.h: what the files of the server samples' parser share (iostat.c,
 * iostat_row.c, iostat_text.c, iostat_sadf.c, iostat_json.c, iostat_place.c): the
 * parse's state, its reports and headers, and their functions. Included from
 * ingest/text/iostat*.c only. */
#ifndef IOCONTEND_INGEST_TEXT_IOSTAT_PARSER_H
#define IOCONTEND_INGEST_TEXT_IOSTAT_PARSER_H

#include "../ingest.h"

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a column can contribute to a sample. */
enum quantity {
    Q_READ_BYTES = 0,
    Q_WRITE_BYTES,
    Q_READ_OPS,
    Q_WRITE_OPS,
    Q_TPS,
    Q_QUEUE,   /* aqu-sz: mean queue length (docs/method.md §11) */
    Q_UTIL,    /* %util, percent */
    Q_R_AWAIT, /* ms per read request */
    Q_W_AWAIT, /* ms per write request */
    Q_AWAIT,   /* ms per request, reads and writes together (older sysstat, sadf) */
    Q_COUNT
};

struct column_map {
    size_t n_fields;       /* columns in the header, the device included */
    size_t device;         /* column of the device name */
    size_t index[Q_COUNT]; /* column of each quantity; SIZE_MAX when absent */
    double scale[Q_COUNT]; /* to bytes or operations per second */
};

/* Fields of one line or the keys of one JSON object; borrowed pointers. */
struct tokens {
    const char **v;
    size_t n, cap;
};

/* A header line kept while its rows are read. */
struct header {
    char *text;          /* owned: the column names, NUL-separated */
    struct tokens names; /* into text */
    struct column_map map;
    long line; /* 1-based */
};

/* A stamp as printed: a civil time, and the zone's offset when the stamp names it. */
struct stamp {
    int64_t civil_s;  /* the printed date and time counted as if they were UTC */
    int32_t offset_s; /* east of UTC; 0 unless zoned */
    bool zoned;       /* the stamp says its zone; else it is local to the parse's zone */
};

/* One report as read, before the pass that places it (ios_place_reports). */
struct report {
    size_t first;       /* its first sample; its last is before the next report's first */
    struct stamp stamp; /* as printed */
    long line;
    int64_t interval_s; /* sadf's interval column; 0: none */
    bool stream_start;  /* the first report after a banner */
    bool gone;          /* cut or set aside while reading: not placed, no samples */
};

struct parser {
    const char *path;
    struct error *err;
    regex_t include;
    const char *device_names;       /* [devices] names: see device_name_of */
    char unnamed[DEVICE_NAME_MAX];  /* a devMAJ-MIN the include rejected; "": none */
    const struct ingest_zone *zone; /* of stamps printed without one */
    struct iostat_data *data;
    size_t cap;                /* samples allocated */
    bool have_report;          /* report_stamp is set */
    struct stamp report_stamp; /* stamp of the current report */
    size_t report_first;       /* index of the current report's first sample */
    long report_line;          /* where the current report starts */
    bool aside;                /* the current report is set aside: its rows are skipped */
    int64_t mtime_s;           /* the file's mtime; INT64_MAX when unknown */
    int64_t banner_day_s;      /* the first banner's date (civil midnight); INT64_MIN */
    struct report *reports;    /* owned: every report begun, in file order */
    size_t n_reports, reports_cap;
    bool marked;           /* complete_bytes was set: the resume state is that after */
    size_t marked_reports; /* ...the first marked_reports reports */
    struct tokens fields;  /* scratch for the line being read */
    int64_t now_s;         /* the time of the parse (a cut tail's day) */
    const struct iostat_resume *from; /* where an earlier parse stopped; NULL: start */
    size_t at, next; /* the current line's first byte and the byte after it */
};

#define DAY_S 86400

struct sadf_text {
    bool have_header;
    bool disk;         /* the section has a DEV column: disk activity */
    size_t host_col;   /* SIZE_MAX when absent */
    size_t stamp_col;  /* always present */
    size_t period_col; /* the "interval" column; SIZE_MAX when absent */
    struct header header;
    char *header_text; /* owned: the header line as read, for a later continuation */
};

/* ---- iostat_row.c ---- */

static inline bool ios_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool ios_tokens_push(struct tokens *t, const char *s);
bool ios_split_ws(char *s, struct tokens *t);
bool ios_split_char(char *s, char sep, struct tokens *t);
char *ios_trim(char *s);
bool ios_parse_number(const char *s, double *out);
bool ios_read_digits(const char **s, int n, int *out);
bool ios_civil_of(int year, int mon, int day, int hour, int min, int sec, int64_t *out);
bool ios_parse_stamp(const char *s, struct stamp *out);
bool ios_stamp_same(const struct stamp *a, const struct stamp *b);
int64_t ios_stamp_instant(const struct parser *p, const struct stamp *s, bool have_target,
                          int64_t target);
void ios_format_stamp(int64_t stamp, char *buf, size_t size);
size_t ios_find_name(const struct tokens *names, const char *name);
const char *ios_map_columns(const struct tokens *names, const char *const *device_names,
                            struct column_map *map);
enum status ios_header_set(struct parser *p, struct header *h, const struct tokens *names,
                           const char *const *device_names, long line,
                           const char **missing);
void ios_header_clear(struct header *h);
const char *ios_aside_reason(const struct parser *p, int64_t stamp);
void ios_set_aside(struct parser *p, int64_t stamp, long line, const char *why);
enum status ios_begin_report(struct parser *p, const struct stamp *stamp, long line,
                             int64_t interval_s, bool stream_start);
void ios_drop_report(struct parser *p);
void ios_mark_complete(struct parser *p, size_t stream_reports, const char *header,
                       long lines, size_t end);
bool ios_cut_is_stale(const struct parser *p);
enum status ios_set_host(struct parser *p, const char *host, size_t len, long line);
enum status ios_add_sample(struct parser *p, const char *device,
                           const double rates[Q_COUNT], long line);
enum status ios_add_row(struct parser *p, const struct header *h, const char *const *skip,
                        bool drop, long line);

/* ---- iostat_text.c ---- */

enum status ios_parse_text(struct parser *p, FILE *fp, long lineno, size_t offset);

/* ---- iostat_sadf.c ---- */

enum status ios_sadf_header_line(struct parser *p, struct sadf_text *t, char *s,
                                 long lineno);
enum status ios_sadf_line(struct parser *p, struct sadf_text *t, char *line, long lineno);
bool ios_sadf_in_report(struct parser *p, const struct sadf_text *t, char *line);

/* ---- iostat_json.c ---- */

enum status ios_parse_json(struct parser *p, FILE *fp, long lines_before);

/* ---- iostat_place.c ---- */

enum status ios_median_interval(struct parser *p, double *out);
enum status ios_place_reports(struct parser *p);

#endif
