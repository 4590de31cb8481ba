/* iostat_row.c: what every format of server samples shares (iostat.c names the
 * formats): fields and numbers, stamps, the columns a header names, and a row of
 * values into a sample of the current report. */
#include "iostat_parser.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Decisions taken here:
 * - iostat text without -t has no time of day anywhere (the banner has the date
 *   only), so it is STATUS_PARSE "no timestamps: run iostat with -t" rather than a
 *   guess. Stamps printed with a zone (ISO offsets, Z, sadf's " UTC", sadf -j's
 *   "utc": 1) keep it; stamps without one (locale MM/DD/YY, ISO or sadf without a
 *   zone, sadf -j "utc": 0) are local times of the configured zone.
 * - Device lines of a dropped report are checked but neither kept nor counted in
 *   n_devices_excluded, which counts only lines that would otherwise be samples.
 */

struct column_name {
    const char *name;
    enum quantity q;
    double scale; /* to bytes or operations per second; 1 for the queue columns */
};

/* Every spelling we know across sysstat versions and outputs, best first: when a
 * header offers two sources of one quantity (sadf -j has rkB and rd_sec) the first
 * listed wins. Discards (d/s, dkB/s, kB_dscd/s) and flushes (f/s) are absent on
 * purpose: they never enter R, W, RO, WO (docs/method.md §1). So are totals such as
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
    /* The queue (docs/method.md §11), optional: absent from iostat -d and old sar. sadf
     * -j has both aqu-sz and avgqu-sz (the same number); aqu-sz is listed first. */
    {"aqu-sz", Q_QUEUE, 1.0},      /* iostat 12 text and JSON, sadf -d and -j */
    {"avgqu-sz", Q_QUEUE, 1.0},    /* iostat before 12, sadf -j */
    {"%util", Q_UTIL, 1.0},        /* iostat text, sadf -d */
    {"util", Q_UTIL, 1.0},         /* iostat JSON */
    {"util-percent", Q_UTIL, 1.0}, /* sadf -j */
    {"r_await", Q_R_AWAIT, 1.0},   /* iostat -x */
    {"w_await", Q_W_AWAIT, 1.0},
    {"await", Q_AWAIT, 1.0}, /* iostat before 12, sadf -d and -j */
};

/* ---- small helpers ------------------------------------------------------------ */

bool ios_tokens_push(struct tokens *t, const char *s)
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

/* Splits s in place on runs of white space. false: no memory. */
bool ios_split_ws(char *s, struct tokens *t)
{
    t->n = 0;
    for (;;) {
        while (ios_is_space(*s))
            s++;
        if (*s == '\0')
            return true;
        if (!ios_tokens_push(t, s))
            return false;
        while (*s != '\0' && !ios_is_space(*s))
            s++;
        if (*s == '\0')
            return true;
        *s++ = '\0';
    }
}

/* Splits s in place at every sep; empty fields are kept. false: no memory. */
bool ios_split_char(char *s, char sep, struct tokens *t)
{
    t->n = 0;
    for (;;) {
        char *end = strchr(s, sep);

        if (!ios_tokens_push(t, s))
            return false;
        if (end == NULL)
            return true;
        *end = '\0';
        s = end + 1;
    }
}

/* s without leading and trailing white space (trailing cut in place). */
char *ios_trim(char *s)
{
    size_t len;

    while (ios_is_space(*s))
        s++;
    len = strlen(s);
    while (len > 0 && ios_is_space(s[len - 1]))
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

bool ios_parse_number(const char *s, double *out)
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
bool ios_read_digits(const char **s, int n, int *out)
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
    return ios_read_digits(s, 2, hour) && *(*s)++ == ':' && ios_read_digits(s, 2, min) &&
           *(*s)++ == ':' && ios_read_digits(s, 2, sec);
}

/* The seconds of a civil time counted as if it were UTC; false for an impossible
 * date (the round trip through gmtime_r catches 02/30). */
bool ios_civil_of(int year, int mon, int day, int hour, int min, int sec, int64_t *out)
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
bool ios_parse_stamp(const char *s, struct stamp *out)
{
    const char *c = s;
    int year, mon, day, hour, min, sec;
    long offset_s = 0;
    bool zoned = false;

    if (ios_read_digits(&c, 4, &year) && *c == '-') {
        char sep;

        c++;
        if (!ios_read_digits(&c, 2, &mon) || *c++ != '-' || !ios_read_digits(&c, 2, &day))
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

            if (!ios_read_digits(&c, 2, &oh))
                return false;
            if (*c == ':')
                c++;
            if (!ios_read_digits(&c, 2, &om) || oh > 23 || om > 59)
                return false;
            offset_s = sign * (oh * 3600L + om * 60L);
        }
    } else {
        c = s;
        if (!ios_read_digits(&c, 2, &mon) || *c++ != '/' ||
            !ios_read_digits(&c, 2, &day) || *c++ != '/')
            return false;
        if (!ios_read_digits(&c, 4, &year)) {
            if (!ios_read_digits(&c, 2, &year))
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
    if (*c != '\0' || !ios_civil_of(year, mon, day, hour, min, sec, &out->civil_s))
        return false;
    out->offset_s = (int32_t)offset_s;
    out->zoned = zoned;
    return true;
}

/* Whether a and b are the same printed stamp. */
bool ios_stamp_same(const struct stamp *a, const struct stamp *b)
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
int64_t ios_stamp_instant(const struct parser *p, const struct stamp *s, bool have_target,
                          int64_t target)
{
    int64_t t[2];
    size_t n = stamp_instants(p, s, t);

    if (n == 2 && have_target && llabs(t[1] - target) < llabs(t[0] - target))
        return t[1];
    return t[0];
}

void ios_format_stamp(int64_t stamp, char *buf, size_t size)
{
    time_t t = (time_t)stamp;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, size, "%lld", (long long)stamp);
}

/* ---- columns -------------------------------------------------------------------- */

size_t ios_find_name(const struct tokens *names, const char *name)
{
    for (size_t i = 0; i < names->n; i++) {
        if (strcmp(names->v[i], name) == 0)
            return i;
    }
    return SIZE_MAX;
}

/* Maps a header by name. NULL on success, else what is missing (for "expected %s"). */
const char *ios_map_columns(const struct tokens *names, const char *const *device_names,
                            struct column_map *map)
{
    map->n_fields = names->n;
    map->device = SIZE_MAX;
    for (size_t i = 0; device_names[i] != NULL && map->device == SIZE_MAX; i++)
        map->device = ios_find_name(names, device_names[i]);
    for (size_t q = 0; q < Q_COUNT; q++) {
        map->index[q] = SIZE_MAX;
        map->scale[q] = 1.0;
    }
    for (size_t i = 0; i < sizeof column_names / sizeof column_names[0]; i++) {
        const struct column_name *c = &column_names[i];

        if (map->index[c->q] == SIZE_MAX) {
            map->index[c->q] = ios_find_name(names, c->name);
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

/* Copies names into h (its own storage) and maps them. *missing as ios_map_columns. */
enum status ios_header_set(struct parser *p, struct header *h, const struct tokens *names,
                           const char *const *device_names, long line,
                           const char **missing)
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
        if (!ios_tokens_push(&h->names, at))
            return error_set(p->err, STATUS_NOMEM, "header of %s", p->path);
        at += len + 1;
    }
    h->line = line;
    *missing = ios_map_columns(&h->names, device_names, &h->map);
    return STATUS_OK;
}

void ios_header_clear(struct header *h)
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

#define YEAR_2000_S 946684800

/* Why a report stamped stamp is set aside whatever comes before it (docs/method.md §1's
 * inputs: a clock that jumped, a stamp printed wrong), NULL when it is not. */
const char *ios_aside_reason(const struct parser *p, int64_t stamp)
{
    if (stamp < YEAR_2000_S)
        return "a stamp before 2000";
    if (p->mtime_s != INT64_MAX && stamp > p->mtime_s + DAY_S)
        return "a stamp more than a day after the file was last written";
    return NULL;
}

void ios_set_aside(struct parser *p, int64_t stamp, long line, const char *why)
{
    char at[32];

    ios_format_stamp(stamp, at, sizeof at);
    log_warn("%s:%ld: report stamped %s set aside: %s; the rest of the file loads",
             p->path, line, at, why);
    p->data->n_reports_aside++;
    p->aside = true;
}

/* Starts the report stamped stamp (interval_s: sadf's interval, 0 when none): set
 * aside at once when its stamp alone says so (ios_aside_reason), else kept for the pass
 * that places it. */
enum status ios_begin_report(struct parser *p, const struct stamp *stamp, long line,
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
    why = ios_aside_reason(p, t[0]);
    if (why != NULL) {
        r->gone = true;
        ios_set_aside(p, t[0], line, why);
    }
    return STATUS_OK;
}

/* Drops the current report's samples: it is cut or set aside. */
void ios_drop_report(struct parser *p)
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

    ios_drop_report(p);
    (void)stamp_instants(p, &p->report_stamp, t);
    ios_set_aside(p, t[0], line, why);
}

/* The state at byte end (lines lines read), where the next parse may continue:
 * everything before end is whole reports. header is sadf -d's header line in force
 * (NULL for iostat text); one too long to keep makes the file one that cannot
 * continue (it is then parsed whole when it grows). The accepted stamp and the gap
 * before it are those after the reports begun so far, known once they are placed. */
void ios_mark_complete(struct parser *p, size_t stream_reports, const char *header,
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
bool ios_cut_is_stale(const struct parser *p)
{
    return p->mtime_s != INT64_MAX && p->now_s != INT64_MAX &&
           p->now_s - p->mtime_s > DAY_S;
}

enum status ios_set_host(struct parser *p, const char *host, size_t len, long line)
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
enum status ios_add_sample(struct parser *p, const char *device,
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
         * counts discards too); tps is kept as ops_total (docs/method.md §1). */
        s->ro_ps = s->wo_ps = NAN;
        s->ops_total_ps = rates[Q_TPS];
    }
    s->aqu_sz = rates[Q_QUEUE];
    s->util_pct = rates[Q_UTIL];
    s->r_await_ms = rates[Q_R_AWAIT];
    s->w_await_ms = rates[Q_W_AWAIT];
    /* The combined await only where the split one is missing (docs/method.md §11 weighs
     * reads and writes by their own rates when it can). */
    bool split = !isnan(s->r_await_ms) && !isnan(s->w_await_ms);
    s->await_ms = split ? (double)NAN : rates[Q_AWAIT];
    return STATUS_OK;
}

/* Checks the non-device fields of a row are numbers, then adds it unless drop. */
enum status ios_add_row(struct parser *p, const struct header *h, const char *const *skip,
                        bool drop, long line)
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
        if (!other && !ios_parse_number(f->v[i], &values[i])) {
            rc = error_at(p->err, STATUS_PARSE, p->path, line,
                          "expected a number in column %s, got '%.40s'", h->names.v[i],
                          f->v[i]);
            goto out;
        }
    }
    if (!drop) {
        rates_of(&h->map, values, rates);
        rc = ios_add_sample(p, f->v[h->map.device], rates, line);
    }
out:
    free(values);
    return rc;
}
