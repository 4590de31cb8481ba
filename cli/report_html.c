/* report_html.c: what both reports' HTML needs (docs/operations.md "The night report",
 * "report sweep"): Debian's Vega files, the glue, the chart module and the specs read
 * once and inlined as scripts, text escaped for HTML and for a script, and a report
 * written whole or not at all. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* s with &, <, > and " as entities. */
void report_html_text(FILE *fp, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp);
        }
    }
}

/* ---- the chart's files ------------------------------------------------------------ */

void report_assets_clear(struct report_assets *a)
{
    free(a->require_js);
    for (size_t i = 0; i < a->n; i++) {
        free(a->names[i]);
        free(a->modules[i]);
    }
    free(a->glue);
    free(a->charts);
    for (size_t i = 0; i < a->n_specs; i++)
        free(a->specs[i]);
    memset(a, 0, sizeof *a);
}

/* The whole of the open file fd, NUL-terminated (the caller frees); fd is closed.
 * NULL when it cannot be read. */
static char *read_fd(int fd)
{
    size_t cap = 1 << 16, used = 0;
    char *buf = malloc(cap);

    while (buf != NULL) {
        if (used + 1 == cap) {
            char *more = cap < ((size_t)64 << 20) ? realloc(buf, cap *= 2) : NULL;
            if (more == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
        }
        ssize_t n = read(fd, buf + used, cap - used - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            buf = NULL;
        } else if (n == 0) {
            buf[used] = '\0';
            break;
        } else {
            used += (size_t)n;
        }
    }
    close(fd);
    return buf;
}

/* The file name of the page's folder dir, read whole (the caller frees). */
static enum status read_web(const char *dir, const char *name, char **out,
                            struct error *err)
{
    char path[PATH_MAX + 64];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *out = fd >= 0 ? read_fd(fd) : NULL;
    if (*out == NULL) {
        return error_set(err, STATUS_NOT_FOUND, "cannot read %s: %s", path,
                         fd < 0 ? strerror(errno) : "read failed");
    }
    return STATUS_OK;
}

/* A library file ("vega/vega-util", without .js) as serve answers it (read whole). */
static enum status read_lib(const char *file, char **out, struct error *err)
{
    char rel[256];
    off_t size = 0;

    *out = NULL;
    if (snprintf(rel, sizeof rel, "%s.js", file) >= (int)sizeof rel)
        return error_set(err, STATUS_INVALID, "library file name too long: %s", file);
    int fd = serve_js_open(rel, &size, err);
    if (fd < 0)
        return STATUS_NOT_FOUND;
    *out = read_fd(fd);
    if (*out == NULL)
        return error_set(err, STATUS_NOT_FOUND, "cannot read library file %s", rel);
    return STATUS_OK;
}

enum status report_assets_load(struct report_assets *a, const char *const *specs,
                               size_t n_specs, struct error *err)
{
    char dir[PATH_MAX], *list = NULL;
    json_error_t jerr;
    enum status rc;

    serve_web_dir_find(dir);
    if (dir[0] == '\0') {
        return error_set(err, STATUS_NOT_FOUND,
                         "no page folder (web/) found; set IOCONTEND_WEB_DIR");
    }
    rc = read_web(dir, "vega-modules.json", &list, err);
    json_t *doc = rc == STATUS_OK ? json_loads(list, 0, &jerr) : NULL;
    json_t *modules = json_object_get(doc, "modules"), *file;
    const char *name;
    if (rc == STATUS_OK && !json_is_object(modules)) {
        rc = error_set(err, STATUS_INVALID,
                       "%s/vega-modules.json: expected an object \"modules\"", dir);
    }
    json_object_foreach(modules, name, file)
    {
        if (rc != STATUS_OK)
            break;
        if (a->n == REPORT_ASSETS_MAX || !json_is_string(file) || name[0] == '\0' ||
            strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(name)) {
            rc = error_set(err, STATUS_INVALID,
                           "%s/vega-modules.json: %s: expected a "
                           "name of [a-z0-9-] and a file name, at "
                           "most %d modules",
                           dir, name, REPORT_ASSETS_MAX);
            break;
        }
        a->names[a->n] = strdup(name);
        rc = read_lib(json_string_value(file), &a->modules[a->n], err);
        if (a->names[a->n++] == NULL && rc == STATUS_OK)
            rc = error_set(err, STATUS_NOMEM, "module name");
    }
    json_decref(doc);
    free(list);
    if (rc == STATUS_OK)
        rc = read_lib("requirejs/require", &a->require_js, err);
    if (rc == STATUS_OK)
        rc = read_web(dir, "iocontend-vega.js", &a->glue, err);
    if (rc == STATUS_OK)
        rc = read_web(dir, "iocontend-charts.js", &a->charts, err);
    for (size_t i = 0; rc == STATUS_OK && i < n_specs && i < REPORT_SPECS_MAX; i++) {
        char spec_file[128];
        snprintf(spec_file, sizeof spec_file, "%s.vg.json", specs[i]);
        a->spec_names[i] = specs[i];
        rc = read_web(dir, spec_file, &a->specs[i], err);
        a->n_specs = i + 1;
    }
    return rc;
}

/* Script text inside <script>: a "</script" or "<!--" would end or confuse the
 * element, so their '<' or '!' is escaped, which JavaScript reads back unchanged in a
 * string or a regular expression (the libraries hold neither elsewhere). */
void report_script_text(FILE *fp, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        fputc(*s, fp);
        if (*s == '<' &&
            (strncasecmp(s + 1, "/script", 7) == 0 || strncmp(s + 1, "!--", 3) == 0))
            fputc('\\', fp);
    }
}

/* JSON text inside <script>: '<' only ever sits in a string there, as \u003c. */
void report_script_json(FILE *fp, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        if (*s == '<') {
            fputs("\\u003c", fp);
        } else {
            fputc(*s, fp);
        }
    }
}

void report_html_library(FILE *fp, const struct report_assets *a)
{
    fputs("<script>\n", fp);
    report_script_text(fp, a->require_js);
    fputs("\n</script>\n", fp);
    for (size_t i = 0; i < a->n; i++) {
        fprintf(fp,
                "<script>(function () {\nvar define = function (deps, factory) "
                "{ return window.define(\"%s\", deps, factory); };\n"
                "define.amd = window.define.amd;\n",
                a->names[i]); /* report_assets_load checked: letters, digits and '-' */
        report_script_text(fp, a->modules[i]);
        fputs("\n}).call(window);</script>\n", fp);
    }
    fputs("<script>\n", fp);
    report_script_text(fp, a->glue);
    fputs("\n</script>\n<script>\n", fp);
    report_script_text(fp, a->charts);
    fputs("\n</script>\n<script>\nwindow.iocontendSpecs = {", fp);
    for (size_t i = 0; i < a->n_specs; i++) {
        fprintf(fp, "%s\"%s\": ", i > 0 ? ",\n" : "", a->spec_names[i]);
        report_script_json(fp, a->specs[i]);
    }
    /* The scripts sit in the head, and require.js may call back before the parser
     * reaches the charts' places: a report draws once the body is parsed. */
    fputs(
        "};\nwindow.iocontendParsed = new Promise(function (ok) {\n"
        "  if (document.readyState !== \"loading\") ok();\n"
        "  else document.addEventListener(\"DOMContentLoaded\", function () { ok(); });\n"
        "});\n",
        fp);
}

int report_write_file(const char *path,
                      enum status (*write)(FILE *fp, const void *ctx, struct error *err),
                      const void *ctx)
{
    char tmp[4096];
    struct error err = {0};

    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >=
        (int)sizeof tmp) {
        log_error("report: %s: path too long", path);
        return EXIT_CANTCREAT;
    }
    FILE *fp = fopen(tmp, "w");
    if (fp == NULL) {
        log_error("report: cannot write %s: %s", path, strerror(errno));
        return EXIT_CANTCREAT;
    }
    const enum status rc = write(fp, ctx, &err);
    const bool failed = ferror(fp) != 0;
    if (fclose(fp) != 0 || failed || rc != STATUS_OK || rename(tmp, path) != 0) {
        log_error("report: %s: %s", path, rc != STATUS_OK ? err.msg : strerror(errno));
        unlink(tmp);
        return EXIT_CANTCREAT;
    }
    return EXIT_OK;
}
