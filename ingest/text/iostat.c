/* iostat.c: server samples (docs/method.md §1) from iostat text / JSON and sadf -d / -j:
 * the format told from the contents and the whole parse; the formats are
 * iostat_text.c, iostat_sadf.c and iostat_json.c, what they share iostat_row.c, the
 * pass over the reports once read iostat_place.c (iostat_parser.h). */
#include "iostat_parser.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Decisions taken here (the header states the contract; the other decisions stand in
 * the files they concern):
 * - The format comes from the contents: '{' first means JSON (a string "timestamp"
 *   is iostat -o JSON, an object is sadf -j); otherwise a first line with ';' is
 *   sadf -d and anything else iostat text.
 */

static enum status finish(struct parser *p);

static enum status parse_any(struct parser *p, FILE *fp)
{
    long lines_before = 0;
    size_t skipped = 0;
    int c;
    enum status rc;

    if (p->from != NULL) {
        rc = ios_parse_text(p, fp, p->from->lines, 0);
        return rc != STATUS_OK ? rc : finish(p);
    }
    /* Only the first non-blank character is needed to choose: ungetc keeps the
     * stream usable for pipes. */
    while ((c = getc(fp)) != EOF && ios_is_space((char)c)) {
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
    rc = c == '{' ? ios_parse_json(p, fp, lines_before)
                  : ios_parse_text(p, fp, lines_before, skipped);
    if (rc != STATUS_OK)
        return rc;
    return finish(p);
}

/* After the input: Δ, and the checks on what was kept. A continuation with no new
 * report, or a file whose only report is still being written, keeps nothing and is
 * no error: it waits for the file to grow. */
static enum status finish(struct parser *p)
{
    enum status rc = ios_place_reports(p);

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
    rc = ios_median_interval(p, &p->data->interval_s);
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
