/* zone.c: the UTC offsets of an IANA time zone, read from its TZif file (RFC 8536), so
 * that stamps printed in local time are converted without the process's TZ. */
#include "../ingest.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * Decisions taken here:
 * - glibc's localtime_r and mktime read the one TZ of the process: changing it per
 *   file would race with every other thread. A zone is read once from its TZif file
 *   into a table and kept for the life of the process (a list under a mutex); the
 *   lookups are then pure.
 * - "UTC" is built in: the default needs no tzdata.
 * - Past the table's last transition the file's footer (a POSIX TZ rule such as
 *   "CET-1CEST,M3.5.0,M10.5.0/3") decides; Debian's files are "fat" (transitions to
 *   2037), others may be "slim" and rely on the footer from the start of its rule.
 * - A name is a relative path of letters, digits and "_+-/" with no "..": the
 *   configuration cannot make us read another file.
 */

#define ZONEINFO_DIR   "/usr/share/zoneinfo"
#define TZIF_MAX_BYTES (1 << 20)

/* A transition date of a POSIX TZ rule. */
struct rule_date {
    char kind; /* 'M' (month, week, day), 'J' (Julian 1..365, no Feb 29), 'N' (0..365) */
    int m, w, d, n; /* Mm.w.d or the day number n */
    int32_t time_s; /* local time of day of the change; may be negative or past 24 h */
};

/* A POSIX TZ rule: std_off always, the rest only when dst. */
struct rule {
    int32_t std_off, dst_off; /* seconds east of UTC */
    bool dst;
    struct rule_date start, end;
};

struct ingest_zone {
    char name[128];
    size_t n;         /* transitions */
    int64_t *at;      /* owned: transition instants, increasing */
    int32_t *off;     /* owned: the offset in force from at[i] */
    int32_t off0;     /* before the first transition */
    bool have_rule;   /* the footer applies after the last transition */
    struct rule rule; /* the footer */
    struct ingest_zone *next;
};

static struct ingest_zone utc_zone = {.name = "UTC"};
static pthread_mutex_t zones_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ingest_zone *zones; /* loaded once, kept for the process's life */

/* ---- calendar ------------------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

    return era * 146097 + doe - 719468;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The year of day number days (since 1970-01-01). */
static int64_t year_of_days(int64_t days)
{
    int64_t y = 1970 + days / 366;

    while (days_from_civil(y + 1, 1, 1) <= days)
        y++;
    while (days_from_civil(y, 1, 1) > days)
        y--;
    return y;
}

/* The local seconds (since the epoch, as if UTC) when date happens in year y. */
static int64_t rule_local_s(const struct rule_date *r, int64_t y)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t day;

    if (r->kind == 'J') {
        day = days_from_civil(y, 1, 1) + r->n - 1 + (is_leap(y) && r->n >= 60);
    } else if (r->kind == 'N') {
        day = days_from_civil(y, 1, 1) + r->n;
    } else {
        int64_t first = days_from_civil(y, r->m, 1);
        int wday = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
        int len = mdays[r->m - 1] + (r->m == 2 && is_leap(y));
        int mday = 1 + (r->d - wday + 7) % 7 + (r->w - 1) * 7;

        while (mday > len)
            mday -= 7;
        day = first + mday - 1;
    }
    return day * 86400 + r->time_s;
}

/* The offset the rule gives at instant t. */
static int32_t rule_offset(const struct rule *r, int64_t t)
{
    int64_t local = t + r->std_off;
    int64_t days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    int64_t y = year_of_days(days);
    int64_t start, end;

    if (!r->dst)
        return r->std_off;
    start = rule_local_s(&r->start, y) - r->std_off;
    end = rule_local_s(&r->end, y) - r->dst_off;
    if (start < end)
        return t >= start && t < end ? r->dst_off : r->std_off;
    return t >= end && t < start ? r->std_off : r->dst_off; /* southern summer */
}

/* ---- the footer's POSIX TZ rule ------------------------------------------------- */

static bool read_int(const char **s, int lo, int hi, int *out)
{
    int v = 0, n = 0;

    while (**s >= '0' && **s <= '9' && n < 4) {
        v = v * 10 + (*(*s)++ - '0');
        n++;
    }
    if (n == 0 || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* "<+03>" or "CET". */
static bool read_name(const char **s)
{
    const char *c = *s;

    if (*c == '<') {
        while (*c != '\0' && *c != '>')
            c++;
        if (*c != '>')
            return false;
        *s = c + 1;
        return true;
    }
    while ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z'))
        c++;
    if (c - *s < 3)
        return false;
    *s = c;
    return true;
}

/* [+-]hh[:mm[:ss]] into seconds; hours up to max_h. */
static bool read_hms(const char **s, int max_h, int32_t *out)
{
    int sign = 1, h, m = 0, sec = 0;

    if (**s == '+' || **s == '-')
        sign = *(*s)++ == '-' ? -1 : 1;
    if (!read_int(s, 0, max_h, &h))
        return false;
    if (**s == ':') {
        (*s)++;
        if (!read_int(s, 0, 59, &m))
            return false;
        if (**s == ':') {
            (*s)++;
            if (!read_int(s, 0, 59, &sec))
                return false;
        }
    }
    *out = (int32_t)(sign * (h * 3600 + m * 60 + sec));
    return true;
}

static bool read_date(const char **s, struct rule_date *r)
{
    r->time_s = 7200; /* 02:00 unless given */
    if (**s == 'M') {
        (*s)++;
        r->kind = 'M';
        if (!read_int(s, 1, 12, &r->m) || *(*s)++ != '.' || !read_int(s, 1, 5, &r->w) ||
            *(*s)++ != '.' || !read_int(s, 0, 6, &r->d))
            return false;
    } else if (**s == 'J') {
        (*s)++;
        r->kind = 'J';
        if (!read_int(s, 1, 365, &r->n))
            return false;
    } else {
        r->kind = 'N';
        if (!read_int(s, 0, 365, &r->n))
            return false;
    }
    if (**s == '/') {
        (*s)++;
        return read_hms(s, 167, &r->time_s);
    }
    return true;
}

/* The rule of a TZif footer; false when it is not one we read. POSIX offsets count
 * west of UTC, hence the minus signs. */
static bool parse_rule(const char *s, struct rule *r)
{
    int32_t off;

    memset(r, 0, sizeof *r);
    if (!read_name(&s) || !read_hms(&s, 24, &off))
        return false;
    r->std_off = -off;
    if (*s == '\0')
        return true;
    if (!read_name(&s))
        return false;
    r->dst = true;
    r->dst_off = r->std_off + 3600;
    if (*s != ',' && *s != '\0') {
        if (!read_hms(&s, 24, &off))
            return false;
        r->dst_off = -off;
    }
    if (*s++ != ',' || !read_date(&s, &r->start) || *s++ != ',' ||
        !read_date(&s, &r->end))
        return false;
    return *s == '\0';
}

/* ---- the TZif file ---------------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* Reads the TZif bytes buf[0, len) into z. false when they are not TZif. */
static bool read_tzif(const unsigned char *buf, size_t len, struct ingest_zone *z)
{
    size_t at = 0, tsize = 4;
    uint32_t cnt[6]; /* isut, isstd, leap, time, type, char */

    for (int pass = 0; pass < 2; pass++) {
        if (len - at < 44 || memcmp(buf + at, "TZif", 4) != 0)
            return false;
        for (int i = 0; i < 6; i++)
            cnt[i] = be32(buf + at + 20 + 4 * (size_t)i);
        if (cnt[4] == 0 || cnt[3] > 100000 || cnt[4] > 256 || cnt[5] > 65536 ||
            cnt[2] > 100000 || cnt[0] > 256 || cnt[1] > 256)
            return false;
        size_t body = (size_t)cnt[3] * (tsize + 1) + (size_t)cnt[4] * 6 + cnt[5] +
                      (size_t)cnt[2] * (tsize + 4) + cnt[1] + cnt[0];
        if (len - at - 44 < body)
            return false;
        if (pass == 0 && buf[at + 4] >= '2') {
            at += 44 + body; /* version 2+: the 64-bit block follows */
            tsize = 8;
            continue;
        }
        const unsigned char *times = buf + at + 44;
        const unsigned char *idx = times + (size_t)cnt[3] * tsize;
        const unsigned char *types = idx + cnt[3];

        z->n = cnt[3];
        z->at = malloc((z->n + 1) * sizeof *z->at);
        z->off = malloc((z->n + 1) * sizeof *z->off);
        if (z->at == NULL || z->off == NULL)
            return false;
        for (size_t i = 0; i < z->n; i++) {
            if (idx[i] >= cnt[4])
                return false;
            z->at[i] = tsize == 8 ? be64(times + 8 * i) : (int32_t)be32(times + 4 * i);
            z->off[i] = (int32_t)be32(types + 6 * (size_t)idx[i]);
            if (i > 0 && z->at[i] <= z->at[i - 1])
                return false;
        }
        z->off0 = (int32_t)be32(types);
        at += 44 + body;
        /* The footer: "\n" rule "\n" (version 2+ only). */
        if (tsize == 8 && at < len && buf[at] == '\n') {
            const unsigned char *end = memchr(buf + at + 1, '\n', len - at - 1);
            char text[128];
            size_t n = end != NULL ? (size_t)(end - (buf + at + 1)) : 0;

            if (end != NULL && n > 0 && n < sizeof text) {
                memcpy(text, buf + at + 1, n);
                text[n] = '\0';
                z->have_rule = parse_rule(text, &z->rule);
            }
        }
        return true;
    }
    return false;
}

static bool name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n >= sizeof utc_zone.name || name[0] == '/' ||
        strstr(name, "..") != NULL)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];

        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-' || c == '/'))
            return false;
    }
    return true;
}

static void zone_free(struct ingest_zone *z)
{
    if (z == NULL)
        return;
    free(z->at);
    free(z->off);
    free(z);
}

/* Reads zone name from ZONEINFO_DIR into a new zone. */
static enum status zone_load(const char *name, struct ingest_zone **out,
                             struct error *err)
{
    char path[sizeof ZONEINFO_DIR + sizeof utc_zone.name + 1];
    unsigned char *buf = NULL;
    size_t len = 0;
    struct ingest_zone *z = NULL;
    enum status rc = STATUS_OK;
    FILE *fp;

    snprintf(path, sizeof path, "%s/%s", ZONEINFO_DIR, name);
    fp = fopen(path, "rb");
    if (fp == NULL) {
        return error_set(err, STATUS_INVALID, "no time zone '%s' in %s (%s)", name,
                         ZONEINFO_DIR, strerror(errno));
    }
    buf = malloc(TZIF_MAX_BYTES);
    z = calloc(1, sizeof *z);
    if (buf == NULL || z == NULL) {
        rc = error_set(err, STATUS_NOMEM, "time zone %s", name);
        goto out;
    }
    len = fread(buf, 1, TZIF_MAX_BYTES, fp);
    snprintf(z->name, sizeof z->name, "%s", name);
    if (ferror(fp) || !read_tzif(buf, len, z)) {
        rc = error_set(err, STATUS_INVALID, "time zone '%s': %s is not a TZif file", name,
                       path);
        goto out;
    }
    *out = z;
    z = NULL;
out:
    zone_free(z);
    free(buf);
    fclose(fp);
    return rc;
}

enum status ingest_zone_get(const char *name, const struct ingest_zone **out,
                            struct error *err)
{
    struct ingest_zone *z;
    enum status rc = STATUS_OK;

    *out = NULL;
    if (name == NULL || strcmp(name, "UTC") == 0) {
        *out = &utc_zone;
        return STATUS_OK;
    }
    if (!name_ok(name)) {
        return error_set(err, STATUS_INVALID,
                         "expected an IANA time zone name such as Europe/Berlin, got "
                         "'%.60s'",
                         name);
    }
    pthread_mutex_lock(&zones_lock);
    for (z = zones; z != NULL && strcmp(z->name, name) != 0; z = z->next)
        ;
    if (z == NULL) {
        rc = zone_load(name, &z, err);
        if (rc == STATUS_OK && z != NULL) {
            z->next = zones;
            zones = z;
        }
    }
    pthread_mutex_unlock(&zones_lock);
    if (rc == STATUS_OK && z == NULL)
        rc = error_set(err, STATUS_INTERNAL, "time zone %s", name);
    if (rc == STATUS_OK)
        *out = z;
    return rc;
}

const char *ingest_zone_name(const struct ingest_zone *z)
{
    return z->name;
}

int32_t ingest_zone_offset(const struct ingest_zone *z, int64_t t)
{
    size_t lo = 0, hi = z->n;

    if (z->n == 0)
        return z->have_rule ? rule_offset(&z->rule, t) : z->off0;
    if (t < z->at[0])
        return z->off0;
    if (t >= z->at[z->n - 1] && z->have_rule)
        return rule_offset(&z->rule, t);
    while (hi - lo > 1) { /* z->at[lo] <= t < z->at[hi] */
        size_t mid = lo + (hi - lo) / 2;

        if (z->at[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return z->off[lo];
}

size_t ingest_zone_instants(const struct ingest_zone *z, int64_t local_s, int64_t out[2])
{
    /* No zone changes its offset twice within two days: the offsets before and after
     * local_s are those two days away. */
    int32_t before = ingest_zone_offset(z, local_s - 2 * (int64_t)86400);
    int32_t after = ingest_zone_offset(z, local_s + 2 * (int64_t)86400);
    size_t n = 0;

    if (ingest_zone_offset(z, local_s - before) == before)
        out[n++] = local_s - before;
    if (after != before && ingest_zone_offset(z, local_s - after) == after)
        out[n++] = local_s - after;
    if (n == 2 && out[1] < out[0]) {
        int64_t t = out[0];
        out[0] = out[1];
        out[1] = t;
    }
    if (n == 0)
        out[n++] = local_s - before; /* in a skipped hour: as the clock before it */
    return n;
}
