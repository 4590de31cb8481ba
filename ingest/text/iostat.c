/* iostat.c: server samples (METHOD.md §1) from iostat text / JSON and sadf -d / -j. */
#include "../ingest.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Decisions taken here (the header states the contract):
 * - The format comes from the contents: '{' first means JSON (a string "timestamp"
 *   is iostat -o JSON, an object is sadf -j); otherwise a first line with ';' is
 *   sadf -d and anything else iostat text.
 * - Every iostat stream (a banner starts one) drops its first report, the average
 *   since boot; with `iostat -y` that costs one real interval, which the output
 *   cannot reveal. sadf never drops.
 * - iostat text without -t has no time of day anywhere (the banner has the date
 *   only), so it is STATUS_PARSE "no timestamps: run iostat with -t" rather than a
 *   guess. Stamps printed with a zone (ISO offsets, Z, sadf's " UTC", sadf -j's
 *   "utc": 1) keep it; stamps without one (locale MM/DD/YY, ISO or sadf without a
 *   zone, sadf -j "utc": 0) are local times of the configured zone.
 * - Reports are taken in file order; the order-dependent choices (which instant an
 *   ambiguous local stamp is, where a report is placed, the set-aside rule that
 *   compares a stamp with the one before) are made in one pass after the input is
 *   read (place_reports), when the median spacing is known. The pass starts from
 *   the resume state, so a continuation places as a whole parse with the same Δ.
 * - Placement (README, "Sample timing"): the printed stamp is the second the report
 *   was taken in, truncated, so a report taken on time shows up to one second off
 *   its position when the timer jitters around a second's boundary: 12, 14, 14 or
 *   12, 12, 14 for 12, 13, 14. Such a stamp is moved to its position (the last
 *   accepted stamp + Δ) only when the report before sits on the grid (printed Δ
 *   after its predecessor): after a report that was itself moved back, the next
 *   keeps its printed stamp, so a drifting timer (12, 14, 15, 16: one skip, no
 *   repeat) resynchronises after one report instead of lagging a second for good.
 *   A repeat is always placed (it cannot keep its stamp), whatever the grid. One
 *   second is the tolerance whatever Δ: jitter of the truncated second is never
 *   more, and a report of a 60 s capture printed 60 s late is a report missed, not
 *   a report misplaced.
 * - Device lines of a dropped report are checked but neither kept nor counted in
 *   n_devices_excluded, which counts only lines that would otherwise be samples.
 * - JSON has no line numbers once loaded: errors in its contents give line 0 and
 *   the path inside the document (statistics[3].disk[0]).
 */

/* What a column can contribute to a sample. */
enum quantity {
    Q_READ_BYTES = 0,
    Q_WRITE_BYTES,
    Q_READ_OPS,
    Q_WRITE_OPS,
    Q_TPS,
    Q_QUEUE,   /* aqu-sz: mean queue length (METHOD.md §11) */
    Q_UTIL,    /* %util, percent */
    Q_R_AWAIT, /* ms per read request */
    Q_W_AWAIT, /* ms per write request */
    Q_AWAIT,   /* ms per request, reads and writes together (older sysstat, sadf) */
    Q_COUNT
};

struct column_name {
    const char *name;
    enum quantity q;
    double scale; /* to bytes or operations per second; 1 for the queue columns */
};

/* Every spelling we know across sysstat versions and outputs, best first: when a
 * header offers two sources of one quantity (sadf -j has rkB and rd_sec) the first
 * listed wins. Discards (d/s, dkB/s, kB_dscd/s) and flushes (f/s) are absent on
 * purpose: they never enter R, W, RO, WO (METHOD.md §1). So are totals such as
 * kB_read, which are amounts since the previous report, not rates. */
static const struct column_name column_names[] = {
    {"rkB/s", Q_READ_BYTES, 1024.0},        /* iostat -x [-k], iostat JSON, sadf -d */
    {"rMB/s", Q_READ_BYTES, 1048576.0},     /* iostat -x -m */
    {"kB_read/s", Q_READ_BYTES, 1024.0},    /* iostat -d [-k] */
    {"MB_read/s", Q_READ_BYTES, 1048576.0}, /* iostat -d -m */
    {"rkB", Q_READ_BYTES, 1024.0},          /* sadf -j: kB per second despite the name */
    {"rsec/s", Q_READ_BYTES, 512.0},        /* old iostat -x without -k: sectors */
    {"rd_sec/s", Q_READ_BYTES, 512.0},      /* sadf -d before sysstat 11 */
    {"rd_sec", Q_READ_BYTES, 512.0},        /* sadf -j: sectors per second */
    {"Blk_read/s", Q_READ_BYTES, 512.0},    /* old iostat -d: 512-byte blocks */
    {"wkB/s", Q_WRITE_BYTES, 1024.0},
    {"wMB/s", Q_WRITE_BYTES, 1048576.0},
    {"kB_wrtn/s", Q_WRITE_BYTES, 1024.0},
    {"MB_wrtn/s", Q_WRITE_BYTES, 1048576.0},
    {"wkB", Q_WRITE_BYTES, 1024.0},
    {"wsec/s", Q_WRITE_BYTES, 512.0},
    {"wr_sec/s", Q_WRITE_BYTES, 512.0},
    {"wr_sec", Q_WRITE_BYTES, 512.0},
    {"Blk_wrtn/s", Q_WRITE_BYTES, 512.0},
    {"r/s", Q_READ_OPS, 1.0},
    {"w/s", Q_WRITE_OPS, 1.0},
    {"tps", Q_TPS, 1.0},
    /* The queue (METHOD.md §11), optional: absent from iostat -d and old sar. sadf -j
     * has both aqu-sz and avgqu-sz (the same number); aqu-sz is listed first. */
    {"aqu-sz", Q_QUEUE, 1.0},      /* iostat 12 text and JSON, sadf -d and -j */
    {"avgqu-sz", Q_QUEUE, 1.0},    /* iostat before 12, sadf -j */
    {"%util", Q_UTIL, 1.0},        /* iostat text, sadf -d */
    {"util", Q_UTIL, 1.0},         /* iostat JSON */
    {"util-percent", Q_UTIL, 1.0}, /* sadf -j */
    {"r_await", Q_R_AWAIT, 1.0},   /* iostat -x */
    {"w_await", Q_W_AWAIT, 1.0},
    {"await", Q_AWAIT, 1.0}, /* iostat before 12, sadf -d and -j */
};

/* The device column of each output. */
static const char *const text_device_names[] = {"Device", "Device:", NULL};
static const char *const sadf_device_names[] = {"DEV", NULL};
static const char *const json_device_names[] = {"disk_device", "disk-device", NULL};

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

/* One report as read, before the pass that places it (place_reports). */
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

/* ---- small helpers ------------------------------------------------------------ */

static bool tokens_push(struct tokens *t, const char *s)
{
    if (t->n == t->cap) {
        size_t cap = t->cap == 0 ? 32 : t->cap * 2;
        const char **v = realloc(t->v, cap * sizeof *v);

        if (v == NULL)
            return false;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = s;
    return true;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits s in place on runs of white space. false: no memory. */
static bool split_ws(char *s, struct tokens *t)
{
    t->n = 0;
    for (;;) {
        while (is_space(*s))
            s++;
        if (*s == '\0')
            return true;
        if (!tokens_push(t, s))
            return false;
        while (*s != '\0' && !is_space(*s))
            s++;
        if (*s == '\0')
            return true;
        *s++ = '\0';
    }
}

/* Splits s in place at every sep; empty fields are kept. false: no memory. */
static bool split_char(char *s, char sep, struct tokens *t)
{
    t->n = 0;
    for (;;) {
        char *end = strchr(s, sep);

        if (!tokens_push(t, s))
            return false;
        if (end == NULL)
            return true;
        *end = '\0';
        s = end + 1;
    }
}

/* s without leading and trailing white space (trailing cut in place). */
static char *trim(char *s)
{
    size_t len;

    while (is_space(*s))
        s++;
    len = strlen(s);
    while (len > 0 && is_space(s[len - 1]))
        s[--len] = '\0';
    return s;
}

/* Plain decimals ("1234.56", "-0.01": sysstat prints "%.2f") without strtod: a
 * mantissa below 2^53 and at most 22 decimals make m / 10^k exact operands, whose one
 * division is correctly rounded, the same double as strtod's (Clinger's fast path).
 * false when s is not of that form: strtod decides. */
static bool parse_plain_decimal(const char *s, double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool neg = *s == '-';
    uint64_t m = 0;
    int digits = 0, decimals = 0;
    bool point = false;

    if (neg)
        s++;
    for (; *s != '\0'; s++) {
        if (*s == '.' && !point) {
            point = true;
        } else if (*s >= '0' && *s <= '9') {
            if (++digits > 15)
                return false;
            m = m * 10 + (uint64_t)(*s - '0');
            decimals += point ? 1 : 0;
        } else {
            return false;
        }
    }
    if (digits == 0 || decimals > 22)
        return false;
    double v = (double)m / pow10[decimals];
    *out = neg ? -v : v;
    return true;
}

static bool parse_number(const char *s, double *out)
{
    char *end = NULL;
    double v;

    if (parse_plain_decimal(s, out))
        return true;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* ---- timestamps ----------------------------------------------------------------- */

/* Reads exactly n decimal digits. */
static bool read_digits(const char **s, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        char c = (*s)[i];

        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *s += n;
    *out = v;
    return true;
}

/* "HH:MM:SS" */
static bool read_time(const char **s, int *hour, int *min, int *sec)
{
    return read_digits(s, 2, hour) && *(*s)++ == ':' && read_digits(s, 2, min) &&
           *(*s)++ == ':' && read_digits(s, 2, sec);
}

/* The seconds of a civil time counted as if it were UTC; false for an impossible
 * date (the round trip through gmtime_r catches 02/30). */
static bool civil_of(int year, int mon, int day, int hour, int min, int sec, int64_t *out)
{
    struct tm tm = {0}, back;
    time_t t;

    if (year < 1970 || year > 9999 || mon < 1 || mon > 12 || day < 1 || day > 31 ||
        hour > 23 || min > 59 || sec > 59)
        return false;
    tm.tm_year = year - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = min;
    tm.tm_sec = sec;
    t = timegm(&tm);
    if (gmtime_r(&t, &back) == NULL || back.tm_mday != day || back.tm_mon != mon - 1)
        return false;
    *out = (int64_t)t;
    return true;
}

/* The whole of s as one of the stamps sysstat prints:
 *   "11/22/26 12:59:03" or "11/22/2026 12:59:03 PM" (iostat -t, locale: no zone),
 *   "2026-11-22T12:59:03+0000" (S_TIME_FORMAT=ISO; also Z, +hh:mm or no zone),
 *   "2026-11-22 12:59:04 UTC" (sadf -d; sadf -d -t prints no zone). */
static bool parse_stamp(const char *s, struct stamp *out)
{
    const char *c = s;
    int year, mon, day, hour, min, sec;
    long offset_s = 0;
    bool zoned = false;

    if (read_digits(&c, 4, &year) && *c == '-') {
        char sep;

        c++;
        if (!read_digits(&c, 2, &mon) || *c++ != '-' || !read_digits(&c, 2, &day))
            return false;
        sep = *c++;
        if ((sep != 'T' && sep != ' ') || !read_time(&c, &hour, &min, &sec))
            return false;
        zoned = *c != '\0';
        if (sep == ' ' && strcmp(c, " UTC") == 0) {
            c += 4;
        } else if (sep == 'T' && *c == 'Z') {
            c++;
        } else if (sep == 'T' && (*c == '+' || *c == '-')) {
            long sign = *c++ == '-' ? -1 : 1;
            int oh, om;

            if (!read_digits(&c, 2, &oh))
                return false;
            if (*c == ':')
                c++;
            if (!read_digits(&c, 2, &om) || oh > 23 || om > 59)
                return false;
            offset_s = sign * (oh * 3600L + om * 60L);
        }
    } else {
        c = s;
        if (!read_digits(&c, 2, &mon) || *c++ != '/' || !read_digits(&c, 2, &day) ||
            *c++ != '/')
            return false;
        if (!read_digits(&c, 4, &year)) {
            if (!read_digits(&c, 2, &year))
                return false;
            year += year < 69 ? 2000 : 1900; /* POSIX %y */
        }
        if (*c++ != ' ' || !read_time(&c, &hour, &min, &sec))
            return false;
        if (strcmp(c, " AM") == 0 || strcmp(c, " PM") == 0) {
            if (hour < 1 || hour > 12)
                return false;
            hour = hour % 12 + (c[1] == 'P' ? 12 : 0);
            c += 3;
        }
    }
    if (*c != '\0' || !civil_of(year, mon, day, hour, min, sec, &out->civil_s))
        return false;
    out->offset_s = (int32_t)offset_s;
    out->zoned = zoned;
    return true;
}

/* Whether a and b are the same printed stamp. */
static bool stamp_same(const struct stamp *a, const struct stamp *b)
{
    return a->civil_s == b->civil_s && a->offset_s == b->offset_s && a->zoned == b->zoned;
}

/* The instants s may be (increasing): one, or two for a local stamp in an hour a
 * time change repeats. */
static size_t stamp_instants(const struct parser *p, const struct stamp *s,
                             int64_t out[2])
{
    if (s->zoned) {
        out[0] = s->civil_s - s->offset_s;
        return 1;
    }
    return ingest_zone_instants(p->zone, s->civil_s, out);
}

/* The instant of s nearest target (the earlier on a tie, or with no target). */
static int64_t stamp_instant(const struct parser *p, const struct stamp *s,
                             bool have_target, int64_t target)
{
    int64_t t[2];
    size_t n = stamp_instants(p, s, t);

    if (n == 2 && have_target && llabs(t[1] - target) < llabs(t[0] - target))
        return t[1];
    return t[0];
}

static void format_stamp(int64_t stamp, char *buf, size_t size)
{
    time_t t = (time_t)stamp;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, size, "%lld", (long long)stamp);
}

/* ---- columns -------------------------------------------------------------------- */

static size_t find_name(const struct tokens *names, const char *name)
{
    for (size_t i = 0; i < names->n; i++) {
        if (strcmp(names->v[i], name) == 0)
            return i;
    }
    return SIZE_MAX;
}

/* Maps a header by name. NULL on success, else what is missing (for "expected %s"). */
static const char *map_columns(const struct tokens *names,
                               const char *const *device_names, struct column_map *map)
{
    map->n_fields = names->n;
    map->device = SIZE_MAX;
    for (size_t i = 0; device_names[i] != NULL && map->device == SIZE_MAX; i++)
        map->device = find_name(names, device_names[i]);
    for (size_t q = 0; q < Q_COUNT; q++) {
        map->index[q] = SIZE_MAX;
        map->scale[q] = 1.0;
    }
    for (size_t i = 0; i < sizeof column_names / sizeof column_names[0]; i++) {
        const struct column_name *c = &column_names[i];

        if (map->index[c->q] == SIZE_MAX) {
            map->index[c->q] = find_name(names, c->name);
            map->scale[c->q] = c->scale;
        }
    }
    if (map->device == SIZE_MAX)
        return "a device column";
    if (map->index[Q_READ_BYTES] == SIZE_MAX)
        return "a read bandwidth column (rkB/s, rMB/s, kB_read/s)";
    if (map->index[Q_WRITE_BYTES] == SIZE_MAX)
        return "a write bandwidth column (wkB/s, wMB/s, kB_wrtn/s)";
    if (map->index[Q_READ_OPS] != SIZE_MAX && map->index[Q_WRITE_OPS] != SIZE_MAX) {
        map->index[Q_TPS] = SIZE_MAX; /* extended: ops_total is r/s + w/s */
        return NULL;
    }
    map->index[Q_READ_OPS] = map->index[Q_WRITE_OPS] = SIZE_MAX;
    if (map->index[Q_TPS] == SIZE_MAX)
        return "r/s and w/s, or tps";
    return NULL;
}

/* Copies names into h (its own storage) and maps them. *missing as map_columns. */
static enum status header_set(struct parser *p, struct header *h,
                              const struct tokens *names, const char *const *device_names,
                              long line, const char **missing)
{
    size_t size = 0;
    char *text, *at;

    for (size_t i = 0; i < names->n; i++)
        size += strlen(names->v[i]) + 1;
    text = malloc(size + 1);
    if (text == NULL)
        return error_set(p->err, STATUS_NOMEM, "header of %s", p->path);
    free(h->text);
    h->text = text;
    h->names.n = 0;
    at = text;
    for (size_t i = 0; i < names->n; i++) {
        size_t len = strlen(names->v[i]);

        memcpy(at, names->v[i], len + 1);
        if (!tokens_push(&h->names, at))
            return error_set(p->err, STATUS_NOMEM, "header of %s", p->path);
        at += len + 1;
    }
    h->line = line;
    *missing = map_columns(&h->names, device_names, &h->map);
    return STATUS_OK;
}

static void header_clear(struct header *h)
{
    free(h->text);
    free(h->names.v);
    memset(h, 0, sizeof *h);
}

/* The rates of one row: every mapped quantity times its scale, NAN when absent.
 * values[i] is the number in column i. */
static void rates_of(const struct column_map *map, const double *values,
                     double rates[Q_COUNT])
{
    for (size_t q = 0; q < Q_COUNT; q++) {
        size_t i = map->index[q];

        rates[q] = i == SIZE_MAX ? (double)NAN : values[i] * map->scale[q];
    }
}

/* ---- samples -------------------------------------------------------------------- */

#define DAY_S       86400
#define YEAR_2000_S 946684800

/* Why a report stamped stamp is set aside whatever comes before it (METHOD.md §1's
 * inputs: a clock that jumped, a stamp printed wrong), NULL when it is not. */
static const char *aside_reason(const struct parser *p, int64_t stamp)
{
    if (stamp < YEAR_2000_S)
        return "a stamp before 2000";
    if (p->mtime_s != INT64_MAX && stamp > p->mtime_s + DAY_S)
        return "a stamp more than a day after the file was last written";
    return NULL;
}

static void set_aside(struct parser *p, int64_t stamp, long line, const char *why)
{
    char at[32];

    format_stamp(stamp, at, sizeof at);
    log_warn("%s:%ld: report stamped %s set aside: %s; the rest of the file loads",
             p->path, line, at, why);
    p->data->n_reports_aside++;
    p->aside = true;
}

/* Starts the report stamped stamp (interval_s: sadf's interval, 0 when none): set
 * aside at once when its stamp alone says so (aside_reason), else kept for the pass
 * that places it. */
static enum status begin_report(struct parser *p, const struct stamp *stamp, long line,
                                int64_t interval_s, bool stream_start)
{
    int64_t t[2];
    const char *why;
    struct report *r;

    if (p->n_reports == p->reports_cap) {
        size_t cap = p->reports_cap == 0 ? 64 : p->reports_cap * 2;
        struct report *more = realloc(p->reports, cap * sizeof *more);

        if (more == NULL)
            return error_set(p->err, STATUS_NOMEM, "reports of %s", p->path);
        p->reports = more;
        p->reports_cap = cap;
    }
    r = &p->reports[p->n_reports++];
    *r = (struct report){.first = p->data->n,
                         .stamp = *stamp,
                         .line = line,
                         .interval_s = interval_s,
                         .stream_start = stream_start};
    p->have_report = true;
    p->report_stamp = *stamp;
    p->report_first = p->data->n;
    p->report_line = line;
    p->aside = false;
    (void)stamp_instants(p, stamp, t);
    why = aside_reason(p, t[0]);
    if (why != NULL) {
        r->gone = true;
        set_aside(p, t[0], line, why);
    }
    return STATUS_OK;
}

/* Drops the current report's samples: it is cut or set aside. */
static void drop_report(struct parser *p)
{
    p->data->n = p->report_first;
    if (p->n_reports > 0)
        p->reports[p->n_reports - 1].gone = true;
}

/* Sets the current report aside after it was begun: its samples go, and the next
 * report is placed after the one before it. */
static void withdraw_report(struct parser *p, long line, const char *why)
{
    int64_t t[2];

    drop_report(p);
    (void)stamp_instants(p, &p->report_stamp, t);
    set_aside(p, t[0], line, why);
}

/* The state at byte end (lines lines read), where the next parse may continue:
 * everything before end is whole reports. header is sadf -d's header line in force
 * (NULL for iostat text); one too long to keep makes the file one that cannot
 * continue (it is then parsed whole when it grows). The accepted stamp and the gap
 * before it are those after the reports begun so far, known once they are placed. */
static void mark_complete(struct parser *p, size_t stream_reports, const char *header,
                          long lines, size_t end)
{
    struct iostat_resume *r = &p->data->resume;

    p->data->complete_bytes = end;
    p->marked = true;
    p->marked_reports = p->n_reports;
    memcpy(r->host, p->data->host, sizeof r->host);
    r->stream_reports = stream_reports;
    r->resync = false;
    r->lines = lines;
    r->header[0] = '\0';
    if (header != NULL &&
        snprintf(r->header, sizeof r->header, "%s", header) >= (int)sizeof r->header)
        r->format = IOSTAT_FORMAT_NONE;
}

/* A file's cut tail waits for the file to grow, but not for ever: once the file is
 * unchanged for a day, nobody is writing it. */
static bool cut_is_stale(const struct parser *p)
{
    return p->mtime_s != INT64_MAX && p->now_s != INT64_MAX &&
           p->now_s - p->mtime_s > DAY_S;
}

static enum status set_host(struct parser *p, const char *host, size_t len, long line)
{
    char *have = p->data->host;

    if (len >= sizeof p->data->host) {
        return error_at(p->err, STATUS_PARSE, p->path, line,
                        "expected a host name of at most %zu characters, got %zu",
                        sizeof p->data->host - 1, len);
    }
    if (have[0] == '\0') {
        memcpy(have, host, len);
        have[len] = '\0';
    } else if (strlen(have) != len || strncmp(have, host, len) != 0) {
        return error_at(p->err, STATUS_PARSE, p->path, line,
                        "expected one host per file (%s), got %.*s", have, (int)len,
                        host);
    }
    return STATUS_OK;
}

/* Adds one device's row of the current report unless the include regex rejects the
 * device. rates as from rates_of. */
static enum status add_sample(struct parser *p, const char *device,
                              const double rates[Q_COUNT], long line)
{
    struct iostat_data *d = p->data;
    struct iostat_sample *s;
    size_t len = strlen(device);
    char named[DEVICE_NAME_MAX];

    if (p->aside)
        return STATUS_OK;
    for (size_t q = 0; q < Q_COUNT; q++) {
        if (rates[q] < 0) {
            char why[96];

            snprintf(why, sizeof why, "a negative rate for %.40s on line %ld", device,
                     line);
            withdraw_report(p, line, why);
            return STATUS_OK;
        }
    }
    if (device_name_of(device, p->device_names, named, sizeof named)) {
        device = named;
        len = strlen(device);
    }
    if (regexec(&p->include, device, 0, NULL, 0) != 0) {
        if (p->unnamed[0] == '\0' && len < sizeof p->unnamed && device_numbered(device))
            memcpy(p->unnamed, device, len + 1);
        d->n_devices_excluded++;
        return STATUS_OK;
    }
    if (len >= sizeof s->device) {
        return error_at(p->err, STATUS_PARSE, p->path, line,
                        "expected a device name of at most %zu characters, got %zu",
                        sizeof s->device - 1, len);
    }
    for (size_t i = p->report_first; i < d->n; i++) {
        if (strcmp(d->samples[i].device, device) == 0) {
            return error_at(p->err, STATUS_PARSE, p->path, line,
                            "expected each device once per report, got %s twice", device);
        }
    }
    if (d->n == p->cap) {
        size_t cap = p->cap == 0 ? 256 : p->cap * 2;
        struct iostat_sample *more = realloc(d->samples, cap * sizeof *more);

        if (more == NULL)
            return error_set(p->err, STATUS_NOMEM, "samples of %s", p->path);
        d->samples = more;
        p->cap = cap;
    }
    s = &d->samples[d->n++];
    memcpy(s->device, device, len + 1);
    s->stamp_s = 0; /* placed after the input is read */
    s->r_bps = rates[Q_READ_BYTES];
    s->w_bps = rates[Q_WRITE_BYTES];
    if (!isnan(rates[Q_READ_OPS]) && !isnan(rates[Q_WRITE_OPS])) {
        s->ro_ps = rates[Q_READ_OPS];
        s->wo_ps = rates[Q_WRITE_OPS];
        s->ops_total_ps = s->ro_ps + s->wo_ps;
    } else {
        /* tps-only outputs: RO and WO are unknown, never derived from tps (which
         * counts discards too); tps is kept as ops_total (METHOD.md §1). */
        s->ro_ps = s->wo_ps = NAN;
        s->ops_total_ps = rates[Q_TPS];
    }
    s->aqu_sz = rates[Q_QUEUE];
    s->util_pct = rates[Q_UTIL];
    s->r_await_ms = rates[Q_R_AWAIT];
    s->w_await_ms = rates[Q_W_AWAIT];
    /* The combined await only where the split one is missing (METHOD.md §11 weighs
     * reads and writes by their own rates when it can). */
    bool split = !isnan(s->r_await_ms) && !isnan(s->w_await_ms);
    s->await_ms = split ? (double)NAN : rates[Q_AWAIT];
    return STATUS_OK;
}

/* Checks the non-device fields of a row are numbers, then adds it unless drop. */
static enum status add_row(struct parser *p, const struct header *h,
                           const char *const *skip, bool drop, long line)
{
    const struct tokens *f = &p->fields;
    double *values;
    double rates[Q_COUNT];
    enum status rc = STATUS_OK;

    values = malloc(f->n * sizeof *values);
    if (values == NULL)
        return error_set(p->err, STATUS_NOMEM, "row of %s", p->path);
    for (size_t i = 0; i < f->n; i++) {
        bool other = i == h->map.device;

        for (size_t k = 0; skip != NULL && skip[k] != NULL && !other; k++)
            other = strcmp(h->names.v[i], skip[k]) == 0;
        values[i] = NAN;
        if (!other && !parse_number(f->v[i], &values[i])) {
            rc = error_at(p->err, STATUS_PARSE, p->path, line,
                          "expected a number in column %s, got '%.40s'", h->names.v[i],
                          f->v[i]);
            goto out;
        }
    }
    if (!drop) {
        rates_of(&h->map, values, rates);
        rc = add_sample(p, f->v[h->map.device], rates, line);
    }
out:
    free(values);
    return rc;
}

/* ---- iostat text ------------------------------------------------------------------ */

enum iostat_where { IN_OUTSIDE = 0, IN_CPU_VALUES, IN_TABLE };

struct iostat_text {
    enum iostat_where where;
    size_t cpu_values;     /* numbers expected on the avg-cpu values line */
    long cpu_line;         /* the avg-cpu header line */
    size_t stream_reports; /* stamp lines since the banner */
    bool stamp_pending;    /* a stamp line not yet used by a Device table */
    bool drop;             /* the current report is the since-boot one */
    struct header header;
};

/* "Linux 6.18.44-fc-v595 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)": the host is in the
 * first parentheses. */
static bool banner_host(const char *s, const char **host, size_t *len)
{
    const char *open, *close;

    if (strncmp(s, "Linux", 5) != 0 || !is_space(s[5]))
        return false;
    open = strchr(s, '(');
    close = open != NULL ? strchr(open, ')') : NULL;
    if (close == NULL)
        return false;
    *host = open + 1;
    *len = (size_t)(close - open - 1);
    return true;
}

/* The date a banner prints after the host ("\t11/22/26 \t", "\t11/22/2026 \t" or
 * S_TIME_FORMAT=ISO's "\t2026-11-22 \t") as its civil midnight; false when none. */
static bool banner_day(const char *s, int64_t *day_s)
{
    const char *c = strchr(s, ')');
    int year = 0, mon = 0, day = 0;

    if (c == NULL)
        return false;
    for (c++; is_space(*c); c++)
        ;
    if (read_digits(&c, 4, &year)) {
        if (*c++ != '-' || !read_digits(&c, 2, &mon) || *c++ != '-' ||
            !read_digits(&c, 2, &day))
            return false;
    } else {
        if (!read_digits(&c, 2, &mon) || *c++ != '/' || !read_digits(&c, 2, &day) ||
            *c++ != '/')
            return false;
        if (read_digits(&c, 4, &year)) {
            /* MM/DD/YYYY */
        } else if (read_digits(&c, 2, &year)) {
            year += 2000;
        } else {
            return false;
        }
    }
    return (*c == '\0' || is_space(*c)) && civil_of(year, mon, day, 0, 0, 0, day_s);
}

static bool is_device_header(const struct tokens *t)
{
    for (size_t k = 0; k < t->n; k++) {
        /* Asked of every row: a first byte that starts no name saves the compares. */
        for (size_t i = 0; text_device_names[i] != NULL; i++) {
            if (t->v[k][0] == text_device_names[i][0] &&
                strcmp(t->v[k], text_device_names[i]) == 0)
                return true;
        }
    }
    return false;
}

static enum status iostat_stamp_line(struct parser *p, struct iostat_text *t,
                                     const struct stamp *stamp, long line)
{
    t->stream_reports++;
    t->drop = t->stream_reports == 1; /* the average since boot */
    if (t->drop)
        p->data->n_reports_dropped++;
    t->stamp_pending = true;
    t->where = IN_OUTSIDE;
    return begin_report(p, stamp, line, 0, t->drop);
}

static enum status iostat_header_line(struct parser *p, struct iostat_text *t, long line)
{
    const char *missing = NULL;
    enum status rc;

    if (!t->stamp_pending) {
        if (t->stream_reports == 0) {
            return error_at(p->err, STATUS_PARSE, p->path, line,
                            "no timestamps: run iostat with -t");
        }
        return error_at(p->err, STATUS_PARSE, p->path, line,
                        "expected a timestamp line before the Device header, got none");
    }
    rc = header_set(p, &t->header, &p->fields, text_device_names, line, &missing);
    if (rc != STATUS_OK)
        return rc;
    if (missing != NULL) {
        return error_at(p->err, STATUS_PARSE, p->path, line,
                        "expected %s in the Device header, got none", missing);
    }
    t->stamp_pending = false;
    t->where = IN_TABLE;
    return STATUS_OK;
}

/* The line after "avg-cpu:": one number per column name. */
static enum status iostat_cpu_values(struct parser *p, struct iostat_text *t, char *s,
                                     long lineno)
{
    double v;

    if (!split_ws(s, &p->fields))
        return error_set(p->err, STATUS_NOMEM, "fields of %s", p->path);
    if (p->fields.n != t->cpu_values) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected %zu avg-cpu values as in the line above, got %zu",
                        t->cpu_values, p->fields.n);
    }
    for (size_t i = 0; i < p->fields.n; i++) {
        if (!parse_number(p->fields.v[i], &v)) {
            return error_at(p->err, STATUS_PARSE, p->path, lineno,
                            "expected an avg-cpu value, got '%.40s'", p->fields.v[i]);
        }
    }
    t->where = IN_OUTSIDE;
    return STATUS_OK;
}

static enum status iostat_line(struct parser *p, struct iostat_text *t, char *line,
                               long lineno)
{
    char *s = trim(line);
    char shown[48]; /* the line as read, for messages: splitting cuts it */
    const char *host;
    size_t host_len;
    struct stamp stamp;

    /* Not snprintf: it would read the whole line to return its length. */
    size_t shown_len = strnlen(s, sizeof shown - 1);
    memcpy(shown, s, shown_len);
    shown[shown_len] = '\0';
    if (t->where == IN_CPU_VALUES)
        return iostat_cpu_values(p, t, s, lineno);
    if (*s == '\0') {
        /* A blank line ends a device table, and with it the report. */
        if (t->where == IN_TABLE)
            mark_complete(p, t->stream_reports, NULL, lineno, p->next);
        t->where = IN_OUTSIDE;
        return STATUS_OK;
    }
    if (banner_host(s, &host, &host_len)) {
        mark_complete(p, t->stream_reports, NULL, lineno - 1, p->at);
        t->stream_reports = 0;
        t->stamp_pending = false;
        t->where = IN_OUTSIDE;
        if (p->banner_day_s == INT64_MIN && !banner_day(s, &p->banner_day_s))
            p->banner_day_s = INT64_MIN;
        return set_host(p, host, host_len, lineno);
    }
    if (parse_stamp(s, &stamp)) {
        mark_complete(p, t->stream_reports, NULL, lineno - 1, p->at);
        return iostat_stamp_line(p, t, &stamp, lineno);
    }
    if (!split_ws(s, &p->fields))
        return error_set(p->err, STATUS_NOMEM, "fields of %s", p->path);
    if (strcmp(p->fields.v[0], "avg-cpu:") == 0) {
        t->cpu_values = p->fields.n - 1;
        t->cpu_line = lineno;
        t->where = IN_CPU_VALUES;
        return STATUS_OK;
    }
    if (is_device_header(&p->fields))
        return iostat_header_line(p, t, lineno);
    if (t->where != IN_TABLE) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected a timestamp, avg-cpu or Device header line, got '%s'",
                        shown);
    }
    if (p->fields.n != t->header.map.n_fields) {
        return error_at(
            p->err, STATUS_PARSE, p->path, lineno,
            "expected %zu fields as in the Device header at line %ld, got %zu",
            t->header.map.n_fields, t->header.line, p->fields.n);
    }
    return add_row(p, &t->header, NULL, t->drop, lineno);
}

static enum status iostat_end(struct parser *p, const struct iostat_text *t)
{
    if (t->where == IN_CPU_VALUES) {
        return error_at(p->err, STATUS_PARSE, p->path, t->cpu_line,
                        "expected the avg-cpu values after this line, got end of file");
    }
    return STATUS_OK;
}

/* ---- sadf -d ---------------------------------------------------------------------- */

struct sadf_text {
    bool have_header;
    bool disk;         /* the section has a DEV column: disk activity */
    size_t host_col;   /* SIZE_MAX when absent */
    size_t stamp_col;  /* always present */
    size_t period_col; /* the "interval" column; SIZE_MAX when absent */
    struct header header;
    char *header_text; /* owned: the header line as read, for a later continuation */
};

static const char *const sadf_text_columns[] = {"hostname", "timestamp", NULL};

static enum status sadf_header_line(struct parser *p, struct sadf_text *t, char *s,
                                    long lineno)
{
    const char *missing = NULL;
    enum status rc;

    char shown[48]; /* the line as read, for messages: splitting cuts it */
    char *text = str_dup(s);

    if (text == NULL)
        return error_set(p->err, STATUS_NOMEM, "header of %s", p->path);
    free(t->header_text);
    t->header_text = text;
    snprintf(shown, sizeof shown, "%s", s);
    s++; /* the '#' */
    while (is_space(*s))
        s++;
    if (!split_char(s, ';', &p->fields))
        return error_set(p->err, STATUS_NOMEM, "fields of %s", p->path);
    rc = header_set(p, &t->header, &p->fields, sadf_device_names, lineno, &missing);
    if (rc != STATUS_OK)
        return rc;
    t->stamp_col = find_name(&t->header.names, "timestamp");
    if (t->stamp_col == SIZE_MAX) {
        return error_at(
            p->err, STATUS_PARSE, p->path, lineno,
            "expected a sadf -d header '# hostname;interval;timestamp;...', got "
            "'%s'",
            shown);
    }
    t->host_col = find_name(&t->header.names, "hostname");
    t->period_col = find_name(&t->header.names, "interval");
    t->have_header = true;
    /* A section of another activity (sadf -d -- -u -d prints one per activity) has
     * no DEV column: its records are skipped. */
    t->disk = t->header.map.device != SIZE_MAX;
    if (t->disk && missing != NULL) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected %s in the sadf header, got none", missing);
    }
    return STATUS_OK;
}

/* Whether device opens the current report again: sadf prints an interval's devices
 * in one order, so a second record of the same stamp starts with the report's first
 * device. Only the first is compared, so that a report of n devices costs O(n), not
 * O(n^2) (a hostile file may hold millions under one stamp); a device repeated
 * further down is kept once by the samples' key. */
static bool device_in_report(const struct parser *p, const char *device)
{
    return p->report_first < p->data->n &&
           strcmp(p->data->samples[p->report_first].device, device) == 0;
}

/* The record's interval column in whole seconds; 0 when absent or not one. */
static int64_t sadf_interval(const struct sadf_text *t, const struct tokens *f)
{
    char *end;
    long long v;

    if (t->period_col >= f->n)
        return 0;
    errno = 0;
    v = strtoll(f->v[t->period_col], &end, 10);
    return *end == '\0' && errno == 0 && v > 0 && v <= DAY_S ? (int64_t)v : 0;
}

static enum status sadf_line(struct parser *p, struct sadf_text *t, char *line,
                             long lineno)
{
    char *s = trim(line);
    const struct tokens *f = &p->fields;
    struct stamp stamp;
    enum status rc;

    if (*s == '\0')
        return STATUS_OK;
    if (*s == '#') {
        mark_complete(p, 0, t->header_text, lineno - 1, p->at);
        return sadf_header_line(p, t, s, lineno);
    }
    if (!t->have_header) {
        return error_at(
            p->err, STATUS_PARSE, p->path, lineno,
            "expected a sadf -d header '# hostname;interval;timestamp;...', got "
            "'%.40s'",
            s);
    }
    if (!split_char(s, ';', &p->fields))
        return error_set(p->err, STATUS_NOMEM, "fields of %s", p->path);
    /* Restart and comment records ("vm;-1;...;LINUX-RESTART") have interval -1 and
     * their own shape. */
    if (t->period_col < f->n && strcmp(f->v[t->period_col], "-1") == 0)
        return STATUS_OK;
    if (f->n != t->header.map.n_fields) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected %zu fields as in the sadf header at line %ld, got %zu",
                        t->header.map.n_fields, t->header.line, f->n);
    }
    if (!t->disk)
        return STATUS_OK;
    if (!parse_stamp(f->v[t->stamp_col], &stamp)) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected a timestamp like 2026-11-22 12:59:04 UTC, got '%.40s'",
                        f->v[t->stamp_col]);
    }
    if (t->host_col != SIZE_MAX) {
        rc = set_host(p, f->v[t->host_col], strlen(f->v[t->host_col]), lineno);
        if (rc != STATUS_OK)
            return rc;
    }
    /* One report per stamp: sadf prints every device of an interval together, so a
     * new stamp closes the report before it, and so does a device again under the
     * same stamp (two records printed in one second). */
    if (!p->have_report || !stamp_same(&stamp, &p->report_stamp) ||
        device_in_report(p, f->v[t->header.map.device])) {
        mark_complete(p, 0, t->header_text, lineno - 1, p->at);
        rc = begin_report(p, &stamp, lineno, sadf_interval(t, f), false);
        if (rc != STATUS_OK)
            return rc;
    }
    return add_row(p, &t->header, sadf_text_columns, false, lineno);
}

/* Whether a cut sadf record may belong to the current report: sadf prints a stamp's
 * devices together, so a record whose whole stamp differs starts the next one. */
static bool sadf_in_report(struct parser *p, const struct sadf_text *t, char *line)
{
    struct stamp stamp;

    if (!t->have_header || !split_char(trim(line), ';', &p->fields))
        return true;
    return t->stamp_col + 1 >= p->fields.n ||
           !parse_stamp(p->fields.v[t->stamp_col], &stamp) ||
           stamp_same(&stamp, &p->report_stamp);
}

/* ---- text of either kind ---------------------------------------------------------- */

enum text_kind { TEXT_UNKNOWN = 0, TEXT_IOSTAT, TEXT_SADF };

/* The last line is cut at lineno: in_report when it belongs to the current report
 * (a table or a sadf record), whose samples then go. The report waits for a later
 * run, or, in a file unchanged for a day, is set aside: then the state goes back
 * to before it, as for any report set aside. */
static void cut_report(struct parser *p, bool in_report, long lineno)
{
    bool stale = cut_is_stale(p);

    if (in_report && p->have_report && !p->aside)
        drop_report(p);
    if (stale) {
        p->data->n_reports_aside++;
        log_warn("%s:%ld: the last report is cut and the file has not changed for more "
                 "than a day: set aside",
                 p->path, lineno);
        return;
    }
    p->data->n_reports_cut++;
    log_info("%s:%ld: the last line is cut (a file still being written): its report "
             "is left for a later run",
             p->path, lineno);
}

/* Whether a line starts an iostat report: a stamp or a banner. */
static bool starts_report(char *line)
{
    char *s = trim(line);
    const char *host;
    size_t len;
    struct stamp stamp;

    return parse_stamp(s, &stamp) || banner_host(s, &host, &len);
}

/* Takes up the state an earlier parse stopped in (p->from): the host, the stream,
 * and sadf's header, read again as at its own line. */
static enum status text_resume(struct parser *p, struct iostat_text *it,
                               struct sadf_text *st, enum text_kind *kind)
{
    const struct iostat_resume *r = p->from;
    char *header;
    enum status rc;

    p->data->resume = *r;
    memcpy(p->data->host, r->host, sizeof p->data->host);
    p->data->host[sizeof p->data->host - 1] = '\0';
    it->stream_reports = r->stream_reports;
    *kind = r->format == IOSTAT_FORMAT_SADF ? TEXT_SADF : TEXT_IOSTAT;
    if (*kind != TEXT_SADF || r->header[0] == '\0')
        return STATUS_OK;
    header = str_dup(r->header);
    if (header == NULL)
        return error_set(p->err, STATUS_NOMEM, "header of %s", p->path);
    rc = sadf_header_line(p, st, trim(header), r->lines);
    free(header);
    return rc;
}

/* Reads text from byte offset of the input (lineno lines before it). */
static enum status parse_text(struct parser *p, FILE *fp, long lineno, size_t offset)
{
    struct iostat_text it = {0};
    struct sadf_text st = {0};
    enum text_kind kind = TEXT_UNKNOWN;
    enum status rc = STATUS_OK;
    bool resync = p->from != NULL && p->from->resync;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    if (p->from != NULL)
        rc = text_resume(p, &it, &st, &kind);
    errno = 0;
    while (rc == STATUS_OK && (len = getline(&line, &cap, fp)) != -1) {
        lineno++;
        p->at = offset;
        offset += (size_t)len;
        p->next = offset;
        if (memchr(line, '\0', (size_t)len) != NULL) {
            rc = error_at(p->err, STATUS_PARSE, p->path, lineno,
                          "expected iostat or sadf text, got a NUL byte");
            break;
        }
        /* sysstat ends every line: a cut last line is a capture still being
         * written, whose last number may be cut too ("2.0" of "2.00"). The report
         * it is in is left for a later run; every complete one loads. */
        if (line[len - 1] != '\n') {
            bool in_report =
                kind == TEXT_SADF ? sadf_in_report(p, &st, line) : it.where != IN_OUTSIDE;

            /* A cut sadf record of a later stamp closes the report before it. */
            if (kind == TEXT_SADF && !in_report)
                mark_complete(p, 0, st.header_text, lineno - 1, p->at);
            cut_report(p, in_report, lineno);
            if (cut_is_stale(p)) {
                mark_complete(p, it.stream_reports, st.header_text, lineno - 1, offset);
                p->data->resume.resync = true;
            }
            break;
        }
        /* After a cut tail set aside, its rest is skipped: the rest of the cut line
         * (sadf) or up to the next report (iostat). */
        if (resync) {
            resync = kind == TEXT_IOSTAT && !starts_report(line);
            if (kind == TEXT_SADF || resync)
                continue;
        }
        if (kind == TEXT_UNKNOWN) {
            if (*trim(line) == '\0')
                continue;
            kind = strchr(line, ';') != NULL ? TEXT_SADF : TEXT_IOSTAT;
            p->data->resume.format =
                kind == TEXT_SADF ? IOSTAT_FORMAT_SADF : IOSTAT_FORMAT_TEXT;
        }
        rc = kind == TEXT_SADF ? sadf_line(p, &st, line, lineno)
                               : iostat_line(p, &it, line, lineno);
        if (rc != STATUS_OK)
            break;
        errno = 0;
    }
    if (rc == STATUS_OK && !feof(fp)) {
        rc = errno == ENOMEM ? error_set(p->err, STATUS_NOMEM, "line of %s", p->path)
                             : error_at(p->err, STATUS_INTERNAL, p->path, lineno + 1,
                                        "read error: %s", strerror(errno));
    }
    if (rc == STATUS_OK && kind == TEXT_IOSTAT)
        rc = iostat_end(p, &it);
    free(line);
    free(st.header_text);
    header_clear(&it.header);
    header_clear(&st.header);
    return rc;
}

/* ---- JSON (iostat -o JSON, sadf -j) ----------------------------------------------- */

/* One element of "disk": its keys are mapped like a header's names. */
static enum status json_disk(struct parser *p, json_t *disk, size_t i, size_t j,
                             bool drop)
{
    const char *key, *missing, *device;
    json_t *value;
    struct column_map map;
    double rates[Q_COUNT];

    if (!json_is_object(disk)) {
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        "statistics[%zu].disk[%zu]: expected an object", i, j);
    }
    p->fields.n = 0;
    json_object_foreach(disk, key, value)
    {
        if (!tokens_push(&p->fields, key))
            return error_set(p->err, STATUS_NOMEM, "keys of %s", p->path);
    }
    missing = map_columns(&p->fields, json_device_names, &map);
    if (missing != NULL) {
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        "statistics[%zu].disk[%zu]: expected %s, got none", i, j,
                        missing);
    }
    device = json_string_value(json_object_get(disk, p->fields.v[map.device]));
    if (device == NULL) {
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        "statistics[%zu].disk[%zu]: expected a string for \"%s\"", i, j,
                        p->fields.v[map.device]);
    }
    for (size_t q = 0; q < Q_COUNT; q++) {
        size_t k = map.index[q];

        rates[q] = NAN;
        if (k == SIZE_MAX)
            continue;
        value = json_object_get(disk, p->fields.v[k]);
        if (!json_is_number(value) || !isfinite(json_number_value(value))) {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "statistics[%zu].disk[%zu]: expected a number for \"%s\"", i,
                            j, p->fields.v[k]);
        }
        rates[q] = json_number_value(value) * map.scale[q];
    }
    return drop ? STATUS_OK : add_sample(p, device, rates, 0);
}

/* The stamp of statistics[i]: a string (iostat) or {date, time} (sadf -j: UTC
 * unless "utc" is 0, a local time of the parse's zone); *interval_s is sadf -j's
 * "interval" in whole seconds, 0 when none. */
static enum status json_stamp(struct parser *p, const json_t *ts, size_t i,
                              struct stamp *stamp, int64_t *interval_s)
{
    char buf[64];
    const char *text = json_string_value(ts);

    *interval_s = 0;
    if (json_is_object(ts)) {
        const char *date = json_string_value(json_object_get(ts, "date"));
        const char *time = json_string_value(json_object_get(ts, "time"));
        json_t *utc = json_object_get(ts, "utc");
        json_int_t every = json_integer_value(json_object_get(ts, "interval"));

        if (date != NULL && time != NULL) {
            snprintf(buf, sizeof buf, "%s %s%s", date, time,
                     json_is_integer(utc) && json_integer_value(utc) == 0 ? "" : " UTC");
        }
        text = date != NULL && time != NULL ? buf : NULL;
        *interval_s = every > 0 && every <= DAY_S ? (int64_t)every : 0;
    }
    if (text == NULL || !parse_stamp(text, stamp)) {
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        "statistics[%zu]: expected a timestamp, got '%.40s'", i,
                        text != NULL ? text : "?");
    }
    return STATUS_OK;
}

static enum status json_document(struct parser *p, json_t *root)
{
    json_t *hosts = json_object_get(json_object_get(root, "sysstat"), "hosts");
    json_t *host, *stats, *item;
    const char *nodename;
    bool sadf = false;
    size_t i;
    enum status rc;

    if (!json_is_array(hosts) || json_array_size(hosts) != 1) {
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        "expected sysstat.hosts with one host, got %s",
                        json_is_array(hosts) ? "another count" : "none");
    }
    host = json_array_get(hosts, 0);
    nodename = json_string_value(json_object_get(host, "nodename"));
    if (nodename != NULL) {
        rc = set_host(p, nodename, strlen(nodename), 0);
        if (rc != STATUS_OK)
            return rc;
    }
    stats = json_object_get(host, "statistics");
    if (!json_is_array(stats)) {
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        "expected a statistics array in sysstat.hosts[0], got none");
    }
    json_array_foreach(stats, i, item)
    {
        json_t *ts = json_object_get(item, "timestamp");
        json_t *disk = json_object_get(item, "disk"), *one;
        struct stamp stamp = {0};
        int64_t every = 0;
        size_t j;

        if (ts == NULL && i == 0) {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "no timestamps: run iostat with -t");
        }
        if (ts == NULL) {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "statistics[%zu]: expected a timestamp, got none", i);
        }
        if (i == 0) {
            sadf = json_is_object(ts); /* sadf -j stamps are objects, iostat's strings */
        } else if (sadf != json_is_object(ts)) {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "statistics[%zu]: expected a timestamp like the first one's",
                            i);
        }
        rc = json_stamp(p, ts, i, &stamp, &every);
        if (rc == STATUS_OK)
            rc = begin_report(p, &stamp, 0, every, i == 0);
        if (rc != STATUS_OK)
            return rc;
        if (!sadf && i == 0)
            p->data->n_reports_dropped++; /* the average since boot */
        if (disk == NULL)
            continue; /* e.g. iostat -c: no device table */
        if (!json_is_array(disk)) {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "statistics[%zu]: expected a disk array", i);
        }
        json_array_foreach(disk, j, one)
        {
            rc = json_disk(p, one, i, j, !sadf && i == 0);
            if (rc != STATUS_OK)
                return rc;
        }
    }
    return STATUS_OK;
}

#define JSON_MAX_DEPTH 64

/* Where a JSON document cut mid-write (iostat or sadf still running) can be closed:
 * after the last complete element of its "statistics" array. *keep is the bytes to
 * keep, closing the brackets still open there, innermost first. false when no
 * element is complete. A small scan rather than jansson: jansson stops at the cut
 * without saying what came whole before it. Strings are skipped with their escapes,
 * so that a bracket or a key inside one does not count. */
static bool json_cut_point(const char *s, size_t len, size_t *keep, char *closing,
                           size_t size)
{
    char open[JSON_MAX_DEPTH];
    size_t depth = 0, stats_depth = 0; /* stats_depth 0: not inside statistics yet */
    size_t key = 0, key_len = 0;       /* the last string read */
    bool after_key = false;            /* a ':' follows the string "statistics" */
    bool found = false;

    for (size_t i = 0; i < len; i++) {
        char c = s[i];

        if (c == '"') {
            size_t j = i + 1;

            while (j < len && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            if (j >= len)
                break; /* cut inside a string */
            key = i + 1;
            key_len = j - key;
            i = j;
            continue;
        }
        if (is_space(c))
            continue;
        if (c == ':') {
            after_key = key_len == 10 && memcmp(s + key, "statistics", 10) == 0;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == JSON_MAX_DEPTH)
                break;
            open[depth++] = c;
            if (c == '[' && after_key && stats_depth == 0)
                stats_depth = depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0 || (stats_depth > 0 && depth == stats_depth))
                break; /* the statistics array closed: nothing was cut inside it */
            depth--;
            if (stats_depth > 0 && depth == stats_depth && depth < size) {
                *keep = i + 1;
                for (size_t k = 0; k < depth; k++)
                    closing[k] = open[depth - 1 - k] == '[' ? ']' : '}';
                closing[depth] = '\0';
                found = true;
            }
        }
        after_key = false;
    }
    return found;
}

/* The rest of fp, malloc'd into *text (NUL-terminated, *len bytes). */
static enum status read_rest(struct parser *p, FILE *fp, char **text, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    char *buf = malloc(cap + 1), *more;

    while (buf != NULL && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            more = realloc(buf, cap + 1);
            if (more == NULL)
                free(buf);
            buf = more;
        }
    }
    if (buf == NULL)
        return error_set(p->err, STATUS_NOMEM, "JSON of %s", p->path);
    if (ferror(fp)) {
        free(buf);
        return error_at(p->err, STATUS_INTERNAL, p->path, 0, "read error: %s",
                        strerror(errno));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return STATUS_OK;
}

/* A document that ends before it closes: its complete reports, closed as the cut
 * point says, or NULL when none is complete. The cut report waits for a later run,
 * or is set aside once the file is unchanged for a day. */
static json_t *json_recover(struct parser *p, const char *text, size_t len,
                            long lines_before)
{
    char closing[JSON_MAX_DEPTH + 1];
    size_t keep = 0;
    long line = lines_before + 1;
    char *whole;
    json_t *root;
    json_error_t jerr;

    if (!json_cut_point(text, len, &keep, closing, sizeof closing))
        return NULL;
    whole = malloc(keep + sizeof closing);
    if (whole == NULL)
        return NULL;
    memcpy(whole, text, keep);
    memcpy(whole + keep, closing, strlen(closing) + 1);
    root = json_loadb(whole, keep + strlen(closing), 0, &jerr);
    free(whole);
    if (root == NULL)
        return NULL;
    for (size_t i = 0; i < keep; i++)
        line += text[i] == '\n';
    if (cut_is_stale(p)) {
        p->data->n_reports_aside++;
        log_warn("%s:%ld: the JSON is cut after this line and the file has not changed "
                 "for more than a day: its last report is set aside",
                 p->path, line);
    } else {
        p->data->n_reports_cut++;
        log_info("%s:%ld: the JSON is cut after this line (a file still being "
                 "written): its last report is left for a later run",
                 p->path, line);
    }
    return root;
}

static enum status parse_json(struct parser *p, FILE *fp, long lines_before)
{
    json_error_t jerr;
    json_t *root = NULL;
    char *text = NULL;
    size_t len = 0;
    enum status rc = read_rest(p, fp, &text, &len);

    if (rc != STATUS_OK)
        return rc;
    p->data->resume.format = IOSTAT_FORMAT_JSON;
    root = json_loadb(text, len, 0, &jerr);
    /* Cut at its end: iostat and sadf write the closing brackets last. */
    if (root == NULL && (json_error_code(&jerr) == json_error_premature_end_of_input ||
                         (size_t)jerr.position >= len)) {
        root = json_recover(p, text, len, lines_before);
        if (root == NULL && !cut_is_stale(p)) {
            p->data->n_reports_cut++;
            log_info("%s: the JSON is cut before its first complete report (a file "
                     "still being written): left for a later run",
                     p->path);
            free(text);
            return STATUS_OK;
        }
    }
    free(text);
    if (root == NULL) {
        if (json_error_code(&jerr) == json_error_out_of_memory)
            return error_set(p->err, STATUS_NOMEM, "JSON of %s", p->path);
        return error_at(p->err, STATUS_PARSE, p->path,
                        jerr.line > 0 ? jerr.line + lines_before : 0, "expected JSON: %s",
                        jerr.text);
    }
    rc = json_document(p, root);
    json_decref(root);
    return rc;
}

/* ---- the whole file --------------------------------------------------------------- */

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median of v[0, n) (sorted in place); 0 when n is 0. */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n == 0 ? 0.0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The median of the differences between consecutive distinct values of stamps[0, n)
 * (sorted in place; gaps is scratch of n); 0 with fewer than two. */
static double median_spacing(int64_t *stamps, double *gaps, size_t n)
{
    size_t k = 0, m = 0;

    qsort(stamps, n, sizeof *stamps, compare_int64);
    for (size_t i = 0; i < n; i++) {
        if (k == 0 || stamps[i] != stamps[k - 1])
            stamps[k++] = stamps[i];
    }
    for (size_t i = 1; i < k; i++)
        gaps[m++] = (double)(stamps[i] - stamps[i - 1]);
    return median_of(gaps, m);
}

/* Δ = the median of the differences between consecutive distinct stamps (METHOD.md
 * §1, the grid) of the samples as placed. */
static enum status median_interval(struct parser *p, double *out)
{
    struct iostat_data *d = p->data;
    int64_t *stamps = malloc((d->n + 1) * sizeof *stamps);
    double *gaps = malloc((d->n + 1) * sizeof *gaps);

    if (stamps == NULL || gaps == NULL) {
        free(stamps);
        free(gaps);
        return error_set(p->err, STATUS_NOMEM, "stamps of %s", p->path);
    }
    for (size_t i = 0; i < d->n; i++)
        stamps[i] = d->samples[i].stamp_s;
    *out = median_spacing(stamps, gaps, d->n);
    free(stamps);
    free(gaps);
    return STATUS_OK;
}

/* The spacing of the reports before they are placed: the median of the differences
 * between consecutive printed stamps in file order (an ambiguous local stamp as its
 * earlier instant). Unlike the grid's Δ, a repeat counts as the 0 it is and a step
 * back as negative, so that a few of them cannot move the median. */
static enum status printed_spacing(struct parser *p, double *out)
{
    double *gaps = malloc((p->n_reports + 1) * sizeof *gaps);
    size_t m = 0;
    int64_t prev = 0;

    if (gaps == NULL)
        return error_set(p->err, STATUS_NOMEM, "stamps of %s", p->path);
    for (size_t i = 0; i < p->n_reports; i++) {
        int64_t t = stamp_instant(p, &p->reports[i].stamp, false, 0);

        if (i > 0)
            gaps[m++] = (double)(t - prev);
        prev = t;
    }
    *out = median_of(gaps, m);
    free(gaps);
    return STATUS_OK;
}

/* Δ in whole seconds for placement; 0 when it is not a whole number of seconds. */
static int64_t whole_seconds(double interval_s)
{
    return interval_s >= 1 && interval_s <= DAY_S && interval_s == floor(interval_s)
               ? (int64_t)interval_s
               : 0;
}

/* Where the pass stands: the last accepted report. */
struct placing {
    bool have;   /* a report was accepted */
    int64_t a;   /* its stamp as placed */
    int64_t gap; /* its printed stamp minus the placed one before it; 0 at a stream's
                    first report */
};

/* A report set aside still took its turn of the timer: the next one is placed after
 * the position it had. */
static void skip_position(struct placing *pl, int64_t delta)
{
    if (pl->have && delta > 0) {
        pl->a += delta;
        pl->gap = delta;
    }
}

/* Where report r goes after the state pl, with Δ delta (0: unknown): *placed, or
 * the reason it is set aside (buf holds it). */
static const char *place_one(const struct parser *p, const struct report *r,
                             const struct placing *pl, int64_t delta, int64_t *printed,
                             int64_t *placed, char *buf, size_t size)
{
    char want[32];
    int64_t at = pl->a + (delta > 0 ? delta : pl->gap);
    int64_t t = stamp_instant(p, &r->stamp, pl->have, at);
    int64_t dev = t - (pl->a + delta);
    bool on_grid = delta > 0 && pl->gap == delta && !r->stream_start;

    *printed = *placed = t;
    if (!pl->have)
        return NULL;
    if (llabs(t - (pl->a + pl->gap)) > DAY_S) {
        format_stamp(pl->a + pl->gap, want, sizeof want);
        snprintf(buf, size,
                 "more than a day from %s, where its place in the file puts it", want);
        return buf;
    }
    if (on_grid && dev != 0 && llabs(dev) <= 1) {
        *placed = pl->a + delta; /* a second off its position: the timer's jitter */
        return NULL;
    }
    if (t > pl->a)
        return NULL;
    if (delta > 0 && t == pl->a && !r->stream_start) {
        *placed = pl->a + delta; /* a repeat: the next position */
        return NULL;
    }
    format_stamp(pl->a, want, sizeof want);
    snprintf(buf, size, "not after the report before it (%s)%s", want,
             delta > 0 || r->stream_start ? "" : ", and no interval to place it by");
    return buf;
}

/* ---- the majority's clock --------------------------------------------------------- */

/* A report's printed instant and its place in the file, for the clock rule. */
struct clock_vote {
    int64_t t;
    size_t report;
};

static int compare_vote(const void *a, const void *b)
{
    const struct clock_vote *x = a, *y = b;

    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->report > y->report) - (x->report < y->report);
}

/* "26 years", "3 days", "5 hours": how far apart two instants are, roughly. */
static void format_distance(int64_t d, char *buf, size_t size)
{
    d = d < 0 ? -d : d;
    if (d >= 365 * (int64_t)DAY_S) {
        snprintf(buf, size, "%lld years", (long long)(d / (365 * (int64_t)DAY_S)));
    } else if (d >= 2 * (int64_t)DAY_S) {
        snprintf(buf, size, "%lld days", (long long)(d / DAY_S));
    } else {
        snprintf(buf, size, "%lld hours", (long long)(d / 3600));
    }
}

/* Whether the file was last written when a run of its stamps ending at hi ended
 * (within the day aside_reason allows): the system clock that wrote the file, which
 * NTP keeps, outweighs any count of stamps printed before NTP set it. */
static bool mtime_agrees(const struct parser *p, int64_t hi)
{
    return p->mtime_s != INT64_MAX && p->mtime_s >= hi - DAY_S &&
           p->mtime_s <= hi + DAY_S;
}

/* Whether the banner's date falls within a run [lo, hi] (a day each side: the banner
 * is a local date). After a reset the banner carries the reset's date too, so it only
 * breaks ties. */
static bool banner_agrees(const struct parser *p, int64_t lo, int64_t hi)
{
    return p->banner_day_s != INT64_MIN && p->banner_day_s >= lo - DAY_S &&
           p->banner_day_s <= hi + DAY_S;
}

/* A clock reset before NTP (a CMOS battery: 01/01/00) or a jump stamps a few reports
 * years away from the others. Placing them in file order would make the first report
 * the reference and set aside everything after it; instead the file's own stamps
 * vote. Sorted, they fall into runs split wherever two consecutive ones are more
 * than a day apart (the distance place_one already refuses between neighbours). The
 * file's clock is the run its mtime agrees with (20 hours on a reset clock before 4
 * on NTP: the 4 are the day; a growing file read when 3 reset reports led 2 good
 * ones), else the run holding the most reports; a tie goes to the run the banner's
 * date agrees with, then to the earlier. Every report
 * of the other runs is set aside with its line and its distance from the kept run's
 * median stamp. A continuation keeps the clock its earlier parse accepted. */
static enum status set_aside_minority(struct parser *p)
{
    struct clock_vote *v = malloc((p->n_reports + 1) * sizeof *v);
    size_t n = 0, best_lo = 0, best_hi = 0;
    bool best_mtime = false, best_banner = false, have_best = false;

    if (v == NULL)
        return error_set(p->err, STATUS_NOMEM, "stamps of %s", p->path);
    for (size_t i = 0; i < p->n_reports; i++) {
        if (!p->reports[i].gone) {
            v[n++] =
                (struct clock_vote){stamp_instant(p, &p->reports[i].stamp, false, 0), i};
        }
    }
    qsort(v, n, sizeof *v, compare_vote);
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && v[hi].t - v[hi - 1].t <= DAY_S; hi++)
            ;
        const bool mtime = mtime_agrees(p, v[hi - 1].t);
        const bool banner = banner_agrees(p, v[lo].t, v[hi - 1].t);
        const size_t size = hi - lo, best_size = best_hi - best_lo;
        bool better;

        if (!have_best || mtime != best_mtime) {
            better = !have_best || mtime;
        } else if (size != best_size) {
            better = size > best_size;
        } else {
            better = banner && !best_banner;
        }
        if (better) {
            best_lo = lo;
            best_hi = hi;
            best_mtime = mtime;
            best_banner = banner;
            have_best = true;
        }
    }
    if (best_hi - best_lo < n) {
        int64_t median = v[best_lo + (best_hi - best_lo) / 2].t;
        char at[32], far[32], why[192];

        format_stamp(median, at, sizeof at);
        for (size_t k = 0; k < n; k++) {
            struct report *r = &p->reports[v[k].report];

            if (k >= best_lo && k < best_hi)
                continue;
            format_distance(v[k].t - median, far, sizeof far);
            snprintf(why, sizeof why,
                     "%s from the file's median %s (%zu of its %zu reports)", far, at,
                     best_hi - best_lo, n);
            r->gone = true;
            set_aside(p, v[k].t, r->line, why);
        }
    }
    free(v);
    return STATUS_OK;
}

/* The pass over the reports in file order (see the decisions at the top): each is
 * placed or set aside, its samples get the stamp it is placed at, those set aside
 * go, and the resume state is the one after the reports marked complete. */
static enum status place_reports(struct parser *p)
{
    struct iostat_data *d = p->data;
    const struct iostat_resume *from = p->from;
    struct placing pl = {0};
    int64_t file_delta;
    size_t w = 0;
    double median = 0;
    enum status rc;

    if (from != NULL && from->have_accepted) {
        pl = (struct placing){true, from->accepted_stamp_s, from->gap_s};
    } else {
        rc = set_aside_minority(p);
        if (rc != STATUS_OK)
            return rc;
    }
    if (from != NULL && from->interval_s > 0) {
        median = from->interval_s;
    } else {
        rc = printed_spacing(p, &median);
        if (rc != STATUS_OK)
            return rc;
    }
    file_delta = whole_seconds(median);
    for (size_t i = 0; i <= p->n_reports; i++) {
        if (p->marked && i == p->marked_reports) {
            d->resume.have_accepted = pl.have;
            d->resume.accepted_stamp_s = pl.have ? pl.a : 0;
            d->resume.gap_s = pl.gap;
        }
        if (i == p->n_reports)
            break;
        const struct report *r = &p->reports[i];
        size_t end = i + 1 < p->n_reports ? p->reports[i + 1].first : d->n;
        int64_t printed, placed;
        char buf[128];
        const char *why;

        int64_t delta = r->interval_s > 0 ? r->interval_s : file_delta;

        if (r->gone) {
            skip_position(&pl, delta);
            continue;
        }
        why = place_one(p, r, &pl, delta, &printed, &placed, buf, sizeof buf);
        if (why != NULL) {
            set_aside(p, printed, r->line, why);
            skip_position(&pl, delta);
            continue;
        }
        pl.gap = pl.have && !r->stream_start ? printed - pl.a : 0;
        pl.a = placed;
        pl.have = true;
        for (size_t k = r->first; k < end; k++) {
            d->samples[w] = d->samples[k];
            d->samples[w++].stamp_s = placed;
        }
    }
    d->n = w;
    return STATUS_OK;
}

static enum status finish(struct parser *p);

static enum status parse_any(struct parser *p, FILE *fp)
{
    long lines_before = 0;
    size_t skipped = 0;
    int c;
    enum status rc;

    if (p->from != NULL) {
        rc = parse_text(p, fp, p->from->lines, 0);
        return rc != STATUS_OK ? rc : finish(p);
    }
    /* Only the first non-blank character is needed to choose: ungetc keeps the
     * stream usable for pipes. */
    while ((c = getc(fp)) != EOF && is_space((char)c)) {
        skipped++;
        if (c == '\n')
            lines_before++;
    }
    if (c == EOF) {
        if (ferror(fp)) {
            return error_at(p->err, STATUS_INTERNAL, p->path, 0, "read error: %s",
                            strerror(errno));
        }
        return error_at(p->err, STATUS_PARSE, p->path, 0,
                        lines_before == 0 && ftell(fp) == 0 ? "empty file"
                                                            : "no samples");
    }
    if (ungetc(c, fp) == EOF)
        return error_at(p->err, STATUS_INTERNAL, p->path, 0, "cannot push back a byte");
    rc = c == '{' ? parse_json(p, fp, lines_before)
                  : parse_text(p, fp, lines_before, skipped);
    if (rc != STATUS_OK)
        return rc;
    return finish(p);
}

/* After the input: Δ, and the checks on what was kept. A continuation with no new
 * report, or a file whose only report is still being written, keeps nothing and is
 * no error: it waits for the file to grow. */
static enum status finish(struct parser *p)
{
    enum status rc = place_reports(p);

    if (rc != STATUS_OK)
        return rc;
    if (p->data->n == 0 && (p->from != NULL || p->data->n_reports_cut > 0))
        return STATUS_OK;
    if (p->data->n == 0) {
        if (p->data->n_devices_excluded > 0 && p->unnamed[0] != '\0') {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "no samples: %zu device rows not matching the include regex; "
                            "%s is known by number only: name it in [devices] names, "
                            "e.g. 254:0=vda",
                            p->data->n_devices_excluded, p->unnamed);
        }
        if (p->data->n_devices_excluded > 0) {
            return error_at(p->err, STATUS_PARSE, p->path, 0,
                            "no samples: the %zu device rows did not match the include "
                            "regex",
                            p->data->n_devices_excluded);
        }
        return error_at(p->err, STATUS_PARSE, p->path, 0, "no samples");
    }
    /* A continuation keeps the file's Δ: its few new stamps alone could give another. */
    if (p->from != NULL && p->from->interval_s > 0) {
        p->data->interval_s = p->from->interval_s;
        return STATUS_OK;
    }
    rc = median_interval(p, &p->data->interval_s);
    p->data->resume.interval_s = p->data->interval_s;
    return rc;
}

enum status ingest_iostat_parse(FILE *fp, const char *path, const char *device_include,
                                struct iostat_data **out, struct error *err)
{
    return ingest_iostat_parse_file(fp, path, device_include, INT64_MAX, out, err);
}

enum status ingest_iostat_parse_file(FILE *fp, const char *path,
                                     const char *device_include, int64_t mtime_s,
                                     struct iostat_data **out, struct error *err)
{
    struct iostat_parse_opts o = {
        .device_include = device_include, .mtime_s = mtime_s, .now_s = INT64_MAX};

    return ingest_iostat_parse_from(fp, path, &o, NULL, out, err);
}

enum status ingest_iostat_parse_from(FILE *fp, const char *path,
                                     const struct iostat_parse_opts *opts,
                                     const struct iostat_resume *from,
                                     struct iostat_data **out, struct error *err)
{
    static const struct iostat_parse_opts defaults = {.mtime_s = INT64_MAX,
                                                      .now_s = INT64_MAX};
    struct parser p = {0};
    const char *device_include;
    enum status rc;
    int regrc;

    if (out != NULL)
        *out = NULL;
    if (fp == NULL || out == NULL) {
        return error_set(err, STATUS_INVALID, "ingest_iostat_parse: no %s",
                         fp == NULL ? "input" : "output");
    }
    if (opts == NULL)
        opts = &defaults;
    rc = ingest_zone_get(opts->timezone, &p.zone, err);
    if (rc != STATUS_OK)
        return rc;
    p.path = path != NULL ? path : "";
    p.err = err;
    p.mtime_s = opts->mtime_s;
    p.banner_day_s = INT64_MIN;
    p.now_s = opts->now_s;
    p.device_names = opts->device_names;
    device_include = opts->device_include;
    p.from = from != NULL && (from->format == IOSTAT_FORMAT_TEXT ||
                              from->format == IOSTAT_FORMAT_SADF)
                 ? from
                 : NULL;
    if (device_include == NULL)
        device_include = INGEST_DEFAULT_DEVICE_INCLUDE;
    regrc = regcomp(&p.include, device_include, REG_EXTENDED | REG_NOSUB);
    if (regrc != 0) {
        char why[96];

        regerror(regrc, &p.include, why, sizeof why);
        return error_set(err, regrc == REG_ESPACE ? STATUS_NOMEM : STATUS_INVALID,
                         "device include regex '%.40s': %s", device_include, why);
    }
    p.data = calloc(1, sizeof *p.data);
    rc = p.data == NULL ? error_set(err, STATUS_NOMEM, "samples of %s", p.path)
                        : parse_any(&p, fp);
    regfree(&p.include);
    free(p.fields.v);
    free(p.reports);
    if (rc != STATUS_OK) {
        iostat_data_free(p.data);
        return rc;
    }
    *out = p.data;
    return STATUS_OK;
}

void iostat_data_free(struct iostat_data *d)
{
    if (d == NULL)
        return;
    free(d->samples);
    free(d);
}
