/* iostat_text.c: iostat's text, and the line reader of either text (iostat's or
 * sadf -d's, iostat_sadf.c): reports cut mid-write, a continuation resumed. */
#include "iostat_parser.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Decisions taken here:
 * - Every iostat stream (a banner starts one) drops its first report, the average
 *   since boot; with `iostat -y` that costs one real interval, which the output
 *   cannot reveal. sadf never drops.
 */

/* ---- iostat text ------------------------------------------------------------------ */

/* The device column of this output. */
static const char *const text_device_names[] = {"Device", "Device:", NULL};

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

    if (strncmp(s, "Linux", 5) != 0 || !ios_is_space(s[5]))
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
    for (c++; ios_is_space(*c); c++)
        ;
    if (ios_read_digits(&c, 4, &year)) {
        if (*c++ != '-' || !ios_read_digits(&c, 2, &mon) || *c++ != '-' ||
            !ios_read_digits(&c, 2, &day))
            return false;
    } else {
        if (!ios_read_digits(&c, 2, &mon) || *c++ != '/' ||
            !ios_read_digits(&c, 2, &day) || *c++ != '/')
            return false;
        if (ios_read_digits(&c, 4, &year)) {
            /* MM/DD/YYYY */
        } else if (ios_read_digits(&c, 2, &year)) {
            year += 2000;
        } else {
            return false;
        }
    }
    return (*c == '\0' || ios_is_space(*c)) &&
           ios_civil_of(year, mon, day, 0, 0, 0, day_s);
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
    return ios_begin_report(p, stamp, line, 0, t->drop);
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
    rc = ios_header_set(p, &t->header, &p->fields, text_device_names, line, &missing);
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

    if (!ios_split_ws(s, &p->fields))
        return error_set(p->err, STATUS_NOMEM, "fields of %s", p->path);
    if (p->fields.n != t->cpu_values) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected %zu avg-cpu values as in the line above, got %zu",
                        t->cpu_values, p->fields.n);
    }
    for (size_t i = 0; i < p->fields.n; i++) {
        if (!ios_parse_number(p->fields.v[i], &v)) {
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
    char *s = ios_trim(line);
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
            ios_mark_complete(p, t->stream_reports, NULL, lineno, p->next);
        t->where = IN_OUTSIDE;
        return STATUS_OK;
    }
    if (banner_host(s, &host, &host_len)) {
        ios_mark_complete(p, t->stream_reports, NULL, lineno - 1, p->at);
        t->stream_reports = 0;
        t->stamp_pending = false;
        t->where = IN_OUTSIDE;
        if (p->banner_day_s == INT64_MIN && !banner_day(s, &p->banner_day_s))
            p->banner_day_s = INT64_MIN;
        return ios_set_host(p, host, host_len, lineno);
    }
    if (ios_parse_stamp(s, &stamp)) {
        ios_mark_complete(p, t->stream_reports, NULL, lineno - 1, p->at);
        return iostat_stamp_line(p, t, &stamp, lineno);
    }
    if (!ios_split_ws(s, &p->fields))
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
    return ios_add_row(p, &t->header, NULL, t->drop, lineno);
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

/* ---- text of either kind ---------------------------------------------------------- */

enum text_kind { TEXT_UNKNOWN = 0, TEXT_IOSTAT, TEXT_SADF };

/* The last line is cut at lineno: in_report when it belongs to the current report
 * (a table or a sadf record), whose samples then go. The report waits for a later
 * run, or, in a file unchanged for a day, is set aside: then the state goes back
 * to before it, as for any report set aside. */
static void cut_report(struct parser *p, bool in_report, long lineno)
{
    bool stale = ios_cut_is_stale(p);

    if (in_report && p->have_report && !p->aside)
        ios_drop_report(p);
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
    char *s = ios_trim(line);
    const char *host;
    size_t len;
    struct stamp stamp;

    return ios_parse_stamp(s, &stamp) || banner_host(s, &host, &len);
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
    rc = ios_sadf_header_line(p, st, ios_trim(header), r->lines);
    free(header);
    return rc;
}

/* Reads text from byte offset of the input (lineno lines before it). */
enum status ios_parse_text(struct parser *p, FILE *fp, long lineno, size_t offset)
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
            bool in_report = kind == TEXT_SADF ? ios_sadf_in_report(p, &st, line)
                                               : it.where != IN_OUTSIDE;

            /* A cut sadf record of a later stamp closes the report before it. */
            if (kind == TEXT_SADF && !in_report)
                ios_mark_complete(p, 0, st.header_text, lineno - 1, p->at);
            cut_report(p, in_report, lineno);
            if (ios_cut_is_stale(p)) {
                ios_mark_complete(p, it.stream_reports, st.header_text, lineno - 1,
                                  offset);
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
            if (*ios_trim(line) == '\0')
                continue;
            kind = strchr(line, ';') != NULL ? TEXT_SADF : TEXT_IOSTAT;
            p->data->resume.format =
                kind == TEXT_SADF ? IOSTAT_FORMAT_SADF : IOSTAT_FORMAT_TEXT;
        }
        rc = kind == TEXT_SADF ? ios_sadf_line(p, &st, line, lineno)
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
    ios_header_clear(&it.header);
    ios_header_clear(&st.header);
    return rc;
}
