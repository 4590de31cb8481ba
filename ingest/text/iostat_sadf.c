/* iostat_sadf.c: sadf -d's text (semicolon-separated records, one header line a
 * section); its lines come from iostat_text.c's reader. */
#include "iostat_parser.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sadf -d ---------------------------------------------------------------------- */

/* The device column of this output. */
static const char *const sadf_device_names[] = {"DEV", NULL};

static const char *const sadf_text_columns[] = {"hostname", "timestamp", NULL};

enum status ios_sadf_header_line(struct parser *p, struct sadf_text *t, char *s,
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
    while (ios_is_space(*s))
        s++;
    if (!ios_split_char(s, ';', &p->fields))
        return error_set(p->err, STATUS_NOMEM, "fields of %s", p->path);
    rc = ios_header_set(p, &t->header, &p->fields, sadf_device_names, lineno, &missing);
    if (rc != STATUS_OK)
        return rc;
    t->stamp_col = ios_find_name(&t->header.names, "timestamp");
    if (t->stamp_col == SIZE_MAX) {
        return error_at(
            p->err, STATUS_PARSE, p->path, lineno,
            "expected a sadf -d header '# hostname;interval;timestamp;...', got "
            "'%s'",
            shown);
    }
    t->host_col = ios_find_name(&t->header.names, "hostname");
    t->period_col = ios_find_name(&t->header.names, "interval");
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

enum status ios_sadf_line(struct parser *p, struct sadf_text *t, char *line, long lineno)
{
    char *s = ios_trim(line);
    const struct tokens *f = &p->fields;
    struct stamp stamp;
    enum status rc;

    if (*s == '\0')
        return STATUS_OK;
    if (*s == '#') {
        ios_mark_complete(p, 0, t->header_text, lineno - 1, p->at);
        return ios_sadf_header_line(p, t, s, lineno);
    }
    if (!t->have_header) {
        return error_at(
            p->err, STATUS_PARSE, p->path, lineno,
            "expected a sadf -d header '# hostname;interval;timestamp;...', got "
            "'%.40s'",
            s);
    }
    if (!ios_split_char(s, ';', &p->fields))
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
    if (!ios_parse_stamp(f->v[t->stamp_col], &stamp)) {
        return error_at(p->err, STATUS_PARSE, p->path, lineno,
                        "expected a timestamp like 2026-11-22 12:59:04 UTC, got '%.40s'",
                        f->v[t->stamp_col]);
    }
    if (t->host_col != SIZE_MAX) {
        rc = ios_set_host(p, f->v[t->host_col], strlen(f->v[t->host_col]), lineno);
        if (rc != STATUS_OK)
            return rc;
    }
    /* One report per stamp: sadf prints every device of an interval together, so a
     * new stamp closes the report before it, and so does a device again under the
     * same stamp (two records printed in one second). */
    if (!p->have_report || !ios_stamp_same(&stamp, &p->report_stamp) ||
        device_in_report(p, f->v[t->header.map.device])) {
        ios_mark_complete(p, 0, t->header_text, lineno - 1, p->at);
        rc = ios_begin_report(p, &stamp, lineno, sadf_interval(t, f), false);
        if (rc != STATUS_OK)
            return rc;
    }
    return ios_add_row(p, &t->header, sadf_text_columns, false, lineno);
}

/* Whether a cut sadf record may belong to the current report: sadf prints a stamp's
 * devices together, so a record whose whole stamp differs starts the next one. */
bool ios_sadf_in_report(struct parser *p, const struct sadf_text *t, char *line)
{
    struct stamp stamp;

    if (!t->have_header || !ios_split_char(ios_trim(line), ';', &p->fields))
        return true;
    return t->stamp_col + 1 >= p->fields.n ||
           !ios_parse_stamp(p->fields.v[t->stamp_col], &stamp) ||
           ios_stamp_same(&stamp, &p->report_stamp);
}
