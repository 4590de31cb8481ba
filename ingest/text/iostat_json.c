/* iostat_json.c: JSON server samples, iostat -o JSON and sadf -j, a document cut
 * mid-write closed after its last whole report. */
#include "iostat_parser.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Decisions taken here:
 * - JSON has no line numbers once loaded: errors in its contents give line 0 and
 *   the path inside the document (statistics[3].disk[0]).
 */

/* ---- JSON (iostat -o JSON, sadf -j) ----------------------------------------------- */

/* The device column of this output. */
static const char *const json_device_names[] = {"disk_device", "disk-device", NULL};

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
        if (!ios_tokens_push(&p->fields, key))
            return error_set(p->err, STATUS_NOMEM, "keys of %s", p->path);
    }
    missing = ios_map_columns(&p->fields, json_device_names, &map);
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
    return drop ? STATUS_OK : ios_add_sample(p, device, rates, 0);
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
    if (text == NULL || !ios_parse_stamp(text, stamp)) {
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
        rc = ios_set_host(p, nodename, strlen(nodename), 0);
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
            rc = ios_begin_report(p, &stamp, 0, every, i == 0);
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
        if (ios_is_space(c))
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
    if (ios_cut_is_stale(p)) {
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

enum status ios_parse_json(struct parser *p, FILE *fp, long lines_before)
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
        if (root == NULL && !ios_cut_is_stale(p)) {
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
