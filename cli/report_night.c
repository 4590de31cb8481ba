/* report_night.c: `iocontend report night`: what an administrator reads in the
 * morning of a period (analysis_night), as one JSON object, one CSV file per section
 * or one self-contained HTML page (tables, and the coverage drawn by Vega from the
 * page's own chart). The JSON object (analysis_night_json) is the one rendering: the
 * CSV files and the page's tables are read from it. */
#include "internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define NIGHT_HOURS_DEFAULT 24
#define NIGHT_LIMIT_DEFAULT 100 /* as /api/v1/slowdowns */
#define NIGHT_LIMIT_MAX     1000
#define NIGHT_JSON_FLAGS    (JSON_COMPACT | JSON_REAL_PRECISION(17))
/* The page's coverage chart: each scope's period cut into as many buckets as the
 * chart's widest plot has pixels (coverageWidth in web/iocontend-charts.js). */
#define NIGHT_COVERAGE_POINTS 1100
/* 10000-01-01T00:00:00Z: a time from then on is refused (RFC 3339 has four digits of
 * year; PostgreSQL's to_timestamp fails far beyond, which read as an unavailable
 * database). */
#define NIGHT_TIME_END_S 253402300800.0

void cmd_report_night_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend report night [--from T] [--to T] --out FILE\n"
        "                              [--format html|json|csv] [--limit N]\n"
        "What an administrator reads in the morning of the period [from, to):\n"
        "  ingest      the ingest runs that overlap it, with their files loaded,\n"
        "              skipped and quarantined, and each file last seen quarantined in\n"
        "              it with its reason;\n"
        "  groups      each group with jobs loaded in it or whose stored t_d ~\n"
        "              psi_d_read association (scope all) changed in it, with its\n"
        "              coefficients (the earlier ones are not stored: the report\n"
        "              says so);\n"
        "  slowdowns   who got hurt: the jobs that ran in it ranked as\n"
        "              'iocontend slowdowns' and /api/v1/slowdowns rank them;\n"
        "  coverage    the coverage of the intervals in it, as /api/v1/coverage.\n"
        "Runs, quarantine, jobs loaded and associations are read on the database's\n"
        "clock; the slowdowns and the coverage on the jobs' and samples' clock.\n"
        "  --from T, --to T  RFC 3339 or epoch milliseconds, before the year 10000;\n"
        "                    default: the %d hours ending now (--to now, --from %d\n"
        "                    hours before --to)\n"
        "  --out FILE        html, json: the file, written whole or not at all;\n"
        "                    csv: a directory (made when missing) with one file per\n"
        "                    section: ingest_runs.csv, quarantined.csv, groups.csv,\n"
        "                    slowdowns.csv, coverage.csv, coverage_intervals.csv\n"
        "  --format F        html (default: one self-contained page, Vega from\n"
        "                    Debian's libjs-vega inlined, no network), json (one\n"
        "                    object, the sections as keys) or csv\n"
        "  --limit N         jobs listed ranked and apart, 1..%d (%d, as the API)\n"
        "Exit: 0 written; 1 written, and the period holds quarantined files, failed\n"
        "or interrupted runs, or jobs set apart from the ranking; 64 usage; 69\n"
        "database unavailable, or (html) the chart's files missing: the page's web/\n"
        "folder, Debian's libjs-vega and libjs-requirejs; 70 internal error; 73 FILE\n"
        "cannot be written.\n",
        NIGHT_HOURS_DEFAULT, NIGHT_HOURS_DEFAULT, NIGHT_LIMIT_MAX, NIGHT_LIMIT_DEFAULT);
}

/* ---- CSV: one file per section, read from the object ------------------------------ */

/* A field: a string quoted when it holds a comma, a quote or a line end (RFC 4180),
 * a number as it reads back, null as nothing. A string that starts with =, +, -, @,
 * a tab or a carriage return gets a ' first: a spreadsheet would run it as a formula
 * (a quarantined file named =HYPERLINK(...)), and reads '= as text. */
static void csv_field(FILE *fp, const json_t *v)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        const bool quoted = strpbrk(s, ",\"\r\n") != NULL;
        if (quoted)
            fputc('"', fp);
        if (s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL)
            fputc('\'', fp);
        for (; *s != '\0'; s++) {
            if (*s == '"')
                fputc('"', fp);
            fputc(*s, fp);
        }
        if (quoted)
            fputc('"', fp);
    } else if (json_is_integer(v)) {
        fprintf(fp, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        fprintf(fp, "%.17g", json_real_value(v));
    } else if (json_is_boolean(v)) {
        fputs(json_is_true(v) ? "true" : "false", fp);
    }
}

/* The value of column col ("a.b": b of the object a) of row. */
static const json_t *column_of(const json_t *row, const char *col)
{
    const char *dot = strchr(col, '.');

    if (dot == NULL)
        return json_object_get(row, col);
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(dot - col), col);
    return json_object_get(json_object_get(row, head), dot + 1);
}

/* A header of the n columns (their names, '.' as '_'), then one line per row; fixed
 * (NULL or a "name=value" pair) goes first on every line. */
static void csv_rows(FILE *fp, const char *const *cols, size_t n, const json_t *rows,
                     const char *fixed_name, const json_t *fixed)
{
    size_t i;
    json_t *row;

    if (fixed_name != NULL)
        fprintf(fp, "%s,", fixed_name);
    for (size_t c = 0; c < n; c++) {
        for (const char *s = cols[c]; *s != '\0'; s++)
            fputc(*s == '.' ? '_' : *s, fp);
        fputc(c + 1 < n ? ',' : '\n', fp);
    }
    json_array_foreach(rows, i, row)
    {
        if (fixed_name != NULL) {
            csv_field(fp, fixed);
            fputc(',', fp);
        }
        for (size_t c = 0; c < n; c++) {
            csv_field(fp, column_of(row, cols[c]));
            fputc(c + 1 < n ? ',' : '\n', fp);
        }
    }
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const run_cols[] = {
    "id",    "kind",   "started_at", "finished_at", "interrupted_at", "failed", "seconds",
    "files", "loaded", "skipped",    "quarantined", "jobs",           "samples"};
static const char *const quarantine_cols[] = {"path",    "line",       "status",
                                              "message", "first_seen", "last_seen"};
static const char *const slowdown_cols[] = {
    "rank", "id",  "jobid", "group", "start", "start_ms",   "end", "end_ms", "y",
    "x",    "q05", "q50",   "q95",   "ratio", "percentile", "cdf", "reason"};
static const char *const coverage_cols[] = {"fs",
                                            "scope",
                                            "granularity_s",
                                            "coverage",
                                            "sum_d_bytes",
                                            "sum_s_bytes",
                                            "intervals",
                                            "d_total_bytes",
                                            "log_start",
                                            "log_end",
                                            "computed_at",
                                            "range.coverage",
                                            "range.sum_d_bytes",
                                            "range.sum_s_bytes",
                                            "range.intervals",
                                            "max_d_bytes",
                                            "max_s_bytes"};

/* The section's file name and what writes it from the report object. */
struct csv_section {
    const char *file;
    void (*write)(FILE *fp, const json_t *doc);
};

static void csv_runs(FILE *fp, const json_t *doc)
{
    csv_rows(fp, run_cols, N_OF(run_cols),
             json_object_get(json_object_get(doc, "ingest"), "runs"), NULL, NULL);
}

static void csv_quarantined(FILE *fp, const json_t *doc)
{
    csv_rows(fp, quarantine_cols, N_OF(quarantine_cols),
             json_object_get(doc, "quarantined"), NULL, NULL);
}

/* The groups section flat: one row per group and stored association (a group with
 * jobs added and no association changed has one row, the association's columns
 * absent), its columns named as in groups.csv. */
#define GROUP_HEAD 8
#define GROUP_COLS (GROUP_HEAD + 2 * COEF_COUNT)

struct group_columns {
    const char *names[GROUP_COLS]; /* the head, the coefficients, their p-values */
    char p_names[COEF_COUNT][48];  /* "p_value_<coefficient>" */
};

static void group_columns(struct group_columns *gc)
{
    static const char *const head[GROUP_HEAD] = {
        "group",         "name",  "jobs",        "jobs_added",
        "granularity_s", "space", "computed_at", "d"};

    for (size_t c = 0; c < GROUP_HEAD; c++)
        gc->names[c] = head[c];
    for (size_t c = 0; c < COEF_COUNT; c++) {
        snprintf(gc->p_names[c], sizeof gc->p_names[c], "p_value_%s",
                 analysis_coefs[c].name);
        gc->names[GROUP_HEAD + c] = analysis_coefs[c].name;
        gc->names[GROUP_HEAD + COEF_COUNT + c] = gc->p_names[c];
    }
}

/* A new array of the flat rows (json_decref); NULL without memory. */
static json_t *group_rows(const json_t *doc, const struct group_columns *gc)
{
    const json_t *changed = json_object_get(json_object_get(doc, "groups"), "changed");
    json_t *g, *rows = json_array();
    size_t i;

    json_array_foreach(changed, i, g)
    {
        const json_t *list = json_object_get(g, "associations");
        const size_t n = json_array_size(list);
        for (size_t k = 0; rows != NULL && k < (n > 0 ? n : 1); k++) {
            const json_t *a = json_array_get(list, k); /* NULL: none */
            const json_t *p = json_object_get(a, "p_values");
            json_t *row = json_object();
            if (json_array_append_new(rows, row) != 0) {
                json_decref(rows);
                return NULL;
            }
            for (size_t c = 0; c < GROUP_COLS; c++) {
                /* the group's four, the association's, then its p-values */
                const json_t *from = c < 4 ? g : c < GROUP_HEAD + COEF_COUNT ? a : p;
                const char *key = c < GROUP_HEAD + COEF_COUNT
                                      ? gc->names[c]
                                      : analysis_coefs[c - GROUP_HEAD - COEF_COUNT].name;
                json_t *v = json_object_get(from, key);
                if (v != NULL)
                    json_object_set(row, gc->names[c], v);
            }
        }
    }
    return rows;
}

static void csv_groups(FILE *fp, const json_t *doc)
{
    struct group_columns gc;

    group_columns(&gc);
    json_t *rows = group_rows(doc, &gc);
    csv_rows(fp, gc.names, GROUP_COLS, rows, NULL, NULL);
    json_decref(rows);
}

/* The ranked jobs, then those set apart (list = ranked | apart). */
static void csv_slowdowns(FILE *fp, const json_t *doc)
{
    const json_t *sl = json_object_get(doc, "slowdowns");
    const json_t *ranked = json_object_get(sl, "slowdowns");
    const json_t *apart = json_object_get(sl, "apart");
    const json_t *list[2] = {ranked, apart};
    json_t *tag[2] = {json_string("ranked"), json_string("apart")};

    csv_rows(fp, slowdown_cols, N_OF(slowdown_cols), NULL, "list", NULL);
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        const json_t *row;
        json_array_foreach(list[l], i, row)
        {
            csv_field(fp, tag[l]);
            for (size_t c = 0; c < N_OF(slowdown_cols); c++) {
                fputc(',', fp);
                csv_field(fp, column_of(row, slowdown_cols[c]));
            }
            fputc('\n', fp);
        }
    }
    json_decref(tag[0]);
    json_decref(tag[1]);
}

static void csv_coverage(FILE *fp, const json_t *doc)
{
    csv_rows(fp, coverage_cols, N_OF(coverage_cols),
             json_object_get(json_object_get(doc, "coverage"), "filesystems"), NULL,
             NULL);
}

/* Per file system and interval: its end and D_i / max D, S_i / max S (Fig. 13). */
static void csv_intervals(FILE *fp, const json_t *doc)
{
    const json_t *fss = json_object_get(json_object_get(doc, "coverage"), "filesystems");
    const json_t *f;
    size_t i;

    fputs("fs,end_ms,d,s\n", fp);
    json_array_foreach(fss, i, f)
    {
        const json_t *ends = json_object_get(f, "end_ms");
        for (size_t k = 0; k < json_array_size(ends); k++) {
            csv_field(fp, json_object_get(f, "fs"));
            fputc(',', fp);
            csv_field(fp, json_array_get(ends, k));
            fputc(',', fp);
            csv_field(fp, json_array_get(json_object_get(f, "d"), k));
            fputc(',', fp);
            csv_field(fp, json_array_get(json_object_get(f, "s"), k));
            fputc('\n', fp);
        }
    }
}

static const struct csv_section csv_sections[] = {
    {"ingest_runs.csv", csv_runs},  {"quarantined.csv", csv_quarantined},
    {"groups.csv", csv_groups},     {"slowdowns.csv", csv_slowdowns},
    {"coverage.csv", csv_coverage}, {"coverage_intervals.csv", csv_intervals},
};

static enum status write_csv_section(FILE *fp, const void *ctx, struct error *err)
{
    const struct {
        const struct csv_section *section;
        const json_t *doc;
    } *c = ctx;

    (void)err;
    c->section->write(fp, c->doc);
    return STATUS_OK;
}

/* ---- HTML ------------------------------------------------------------------------- */

static void html_cell(FILE *fp, const json_t *v)
{
    fputs(json_is_string(v) ? "<td class=\"t\">" : "<td>", fp);
    if (json_is_string(v)) {
        report_html_text(fp, json_string_value(v));
    } else if (json_is_integer(v)) {
        fprintf(fp, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        fprintf(fp, "%.4g", json_real_value(v));
    } else if (json_is_boolean(v)) {
        fputs(json_is_true(v) ? "yes" : "no", fp);
    } else {
        fputs("&#8211;", fp);
    }
    fputs("</td>", fp);
}

/* A table of rows with the columns cols (their names as headings); class names it. */
static void html_table(FILE *fp, const char *class, const char *const *cols, size_t n,
                       const json_t *rows)
{
    size_t i;
    const json_t *row;

    fprintf(fp, "<table class=\"%s\"><tr>", class);
    for (size_t c = 0; c < n; c++)
        fprintf(fp, "<th>%s</th>", cols[c]);
    fputs("</tr>\n", fp);
    json_array_foreach(rows, i, row)
    {
        fputs("<tr>", fp);
        for (size_t c = 0; c < n; c++)
            html_cell(fp, column_of(row, cols[c]));
        fputs("</tr>\n", fp);
    }
    fputs("</table>\n", fp);
}

static void html_ingest(FILE *fp, const json_t *doc)
{
    const json_t *in = json_object_get(doc, "ingest");
    const json_t *q = json_object_get(doc, "quarantined");
    static const char *const runs[] = {
        "id",     "kind",    "started_at",  "finished_at", "failed", "files",
        "loaded", "skipped", "quarantined", "jobs",        "samples"};

    fprintf(fp,
            "<section id=\"ingest\">\n<h2>Ingested and quarantined</h2>\n<p>%zu ingest "
            "run(s): %lld file(s), %lld loaded, %lld skipped, %lld quarantined; %lld "
            "job(s), %lld sample(s).</p>\n",
            json_array_size(json_object_get(in, "runs")),
            (long long)json_integer_value(json_object_get(in, "files")),
            (long long)json_integer_value(json_object_get(in, "loaded")),
            (long long)json_integer_value(json_object_get(in, "skipped")),
            (long long)json_integer_value(json_object_get(in, "quarantined")),
            (long long)json_integer_value(json_object_get(in, "jobs")),
            (long long)json_integer_value(json_object_get(in, "samples")));
    html_table(fp, "runs", runs, N_OF(runs), json_object_get(in, "runs"));
    if (json_array_size(q) == 0) {
        fputs("<p>No file was quarantined in the period.</p>\n", fp);
    } else {
        fprintf(fp, "<h3>Quarantined files (%zu)</h3>\n", json_array_size(q));
        html_table(fp, "quarantined", quarantine_cols, N_OF(quarantine_cols), q);
    }
    fputs("</section>\n", fp);
}

static void html_groups(FILE *fp, const json_t *doc)
{
    const json_t *g = json_object_get(doc, "groups");
    struct group_columns gc;

    group_columns(&gc);
    json_t *rows = group_rows(doc, &gc);
    fputs("<section id=\"groups\">\n<h2>Groups that changed</h2>\n", fp);
    if (json_array_size(rows) == 0)
        fputs("<p>No group gained jobs or had its association recomputed.</p>\n", fp);
    /* the head, the coefficients and Pearson's p-value: the others are in the CSV */
    html_table(fp, "groups", gc.names, GROUP_HEAD + COEF_COUNT + 1, rows);
    json_decref(rows);
    fputs("<p class=\"note\">", fp);
    report_html_text(fp, json_string_value(json_object_get(g, "history")));
    fputs("</p>\n</section>\n", fp);
}

static void html_note(FILE *fp, const json_t *doc, const char *section)
{
    fputs("<p class=\"note\">", fp);
    const char *note =
        json_string_value(json_object_get(json_object_get(doc, "notes"), section));
    report_html_text(fp, note != NULL ? note : "");
    fputs("</p>\n", fp);
}

static void html_slowdowns(FILE *fp, const json_t *doc)
{
    const json_t *sl = json_object_get(doc, "slowdowns");
    static const char *const ranked[] = {"rank", "jobid", "group", "start",
                                         "y",    "q50",   "ratio", "percentile"};
    static const char *const apart[] = {"jobid", "group", "start", "reason"};

    fputs("<section id=\"slowdowns\">\n<h2>Who got hurt</h2>\n", fp);
    if (!json_is_object(sl)) {
        html_note(fp, doc, "slowdowns");
        fputs("</section>\n", fp);
        return;
    }
    fprintf(fp,
            "<p>%lld job(s) ran in the period; %lld ranked by ratio = %s / q50(%s) of "
            "their group at their own load (granularity %g s), %lld set apart.</p>\n",
            (long long)json_integer_value(json_object_get(sl, "jobs")),
            (long long)json_integer_value(json_object_get(sl, "ranked_total")),
            json_string_value(json_object_get(sl, "y")),
            json_string_value(json_object_get(sl, "x")),
            json_number_value(json_object_get(sl, "granularity_s")),
            (long long)json_integer_value(json_object_get(sl, "apart_total")));
    fputs("<div id=\"slowdowns-chart\"></div>\n", fp);
    html_table(fp, "slowdowns", ranked, N_OF(ranked), json_object_get(sl, "slowdowns"));
    if (json_array_size(json_object_get(sl, "apart")) > 0) {
        fputs("<h3>Set apart</h3>\n", fp);
        html_table(fp, "apart", apart, N_OF(apart), json_object_get(sl, "apart"));
    }
    fputs("</section>\n", fp);
}

static void html_coverage(FILE *fp, const json_t *doc)
{
    const json_t *cov = json_object_get(doc, "coverage");
    static const char *const cols[] = {
        "fs",        "coverage", "range.coverage", "range.intervals", "granularity_s",
        "log_start", "log_end"};

    fputs("<section id=\"coverage\">\n<h2>Coverage</h2>\n", fp);
    if (!json_is_object(cov)) {
        html_note(fp, doc, "coverage");
        fputs("</section>\n", fp);
        return;
    }
    fputs("<p>How much of what the servers moved the jobs' logs account for "
          "(method &#167;7): <i>coverage</i> over everything analyze stored, "
          "<i>range_coverage</i> over the intervals of the period.</p>\n",
          fp);
    html_table(fp, "coverage", cols, N_OF(cols), json_object_get(cov, "filesystems"));
    fputs("<div id=\"coverage-charts\"></div>\n</section>\n", fp);
}

/* The page's own script: the ranked jobs drawn with web/night-slowdowns.vg.json (view
 * "night/slowdowns") and each file system's coverage buckets with the page's chart
 * (iocontend-charts' coverage: web/coverage.vg.json, views "coverage" for all and
 * "coverage/NAME"; a drag across its overview zooms into the buckets the file
 * carries), through iocontend-charts, once the body is parsed
 * (report_html_library); window.iocontendDone settles once they are drawn. */
static const char night_script[] =
    "window.iocontendDone = window.iocontendParsed.then(function () { return new "
    "Promise(function (ok, no) {\n"
    "  requirejs([\"iocontend-charts\"], function (charts) {\n"
    "    var night = window.iocontendNight, drawn = [];\n"
    "    var ranked = night.slowdowns ? night.slowdowns.slowdowns : [];\n"
    "    if (ranked.length > 0) {\n"
    "      drawn.push(charts.draw(document.getElementById(\"slowdowns-chart\"),\n"
    "        \"night/slowdowns\", \"night-slowdowns\", {jobs: ranked.map(function (j) {\n"
    "          return {rank: j.rank, jobid: j.jobid, group: j.group, start_ms: "
    "j.start_ms,\n"
    "                  ratio: j.ratio, percentile: j.percentile};\n"
    "        })}, \"the \" + ranked.length + \" jobs ranked first by ratio, at their "
    "start\"));\n"
    "    }\n"
    "    var parent = document.getElementById(\"coverage-charts\");\n"
    "    (night.coverage ? night.coverage.filesystems : []).forEach(function (f) {\n"
    "      var rows = charts.bucketRows(f);\n"
    "      drawn.push(charts.coverage(parent, f.fs === \"all\" ? \"coverage\" : "
    "\"coverage/\" + f.fs, f,\n"
    "        \"coverage of \" + f.fs + \" in the period: bytes per interval, each "
    "scaled to its largest, the least and the most of each of \" + rows.length + "
    "\" buckets\",\n"
    "        function (from, to) {\n"
    "          return from === null ? rows : rows.filter(function (r) {\n"
    "            return r.end_ms > from && r.start_ms < to;\n"
    "          });\n"
    "        }));\n"
    "    });\n"
    "    Promise.all(drawn).then(ok, no);\n"
    "  }, no);\n"
    "}); });\n";

static void write_html(FILE *fp, const json_t *doc, const char *text,
                       const struct report_assets *assets)
{
    const char *from = json_string_value(json_object_get(doc, "from"));
    const char *to = json_string_value(json_object_get(doc, "to"));

    fprintf(fp,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>iocontend night report: %s to %s</title>\n",
            from, to);
    fputs("<style>body{font-family:sans-serif;margin:2em;max-width:72em}"
          "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
          "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
          "font-size:0.85em}td.t{text-align:left}p.note{color:#444}"
          "figcaption{font-size:0.85em;color:#444}</style>\n",
          fp);
    report_html_library(fp, assets);
    fputs("window.iocontendNight = ", fp);
    report_script_json(fp, text);
    fputs(";\n", fp);
    fputs(night_script, fp);
    fprintf(fp,
            "</script>\n</head>\n<body>\n<h1>The night of %s to %s</h1>\n"
            "<p>Report written %s by <code>iocontend report night</code>; the period "
            "is [from, to), UTC.</p>\n",
            from, to, json_string_value(json_object_get(doc, "generated_at")));
    html_ingest(fp, doc);
    html_groups(fp, doc);
    html_slowdowns(fp, doc);
    html_coverage(fp, doc);
    fputs("</body>\n</html>\n", fp);
}

/* What a night report file is written from. */
struct night_file {
    enum report_format format;
    const json_t *doc;
    const char *text; /* doc as JSON text */
    const struct report_assets *assets;
};

static enum status write_night_file(FILE *fp, const void *ctx, struct error *err)
{
    const struct night_file *f = ctx;

    (void)err;
    if (f->format == REPORT_HTML) {
        write_html(fp, f->doc, f->text, f->assets);
    } else {
        fputs(f->text, fp);
        fputc('\n', fp);
    }
    return STATUS_OK;
}

/* The CSV sections into the directory dir, made when missing. */
static int write_csv_dir(const char *dir, const json_t *doc)
{
    char path[4096];

    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        log_error("report: cannot make %s: %s", dir, strerror(errno));
        return EXIT_CANTCREAT;
    }
    for (size_t i = 0; i < N_OF(csv_sections); i++) {
        const struct {
            const struct csv_section *section;
            const json_t *doc;
        } ctx = {&csv_sections[i], doc};
        if (snprintf(path, sizeof path, "%s/%s", dir, csv_sections[i].file) >=
            (int)sizeof path) {
            log_error("report: %s: path too long", dir);
            return EXIT_CANTCREAT;
        }
        int code = report_write_file(path, write_csv_section, &ctx);
        if (code != EXIT_OK)
            return code;
    }
    return EXIT_OK;
}

/* ---- the command ------------------------------------------------------------------- */

/* Period and limit from argv; EXIT_OK, or the usage exit having said why. */
struct night_args {
    double from_s, to_s;
    const char *out;
    enum report_format format;
    long limit;
    bool help; /* --help: printed, nothing else happens */
};

static int parse_args(int argc, char **argv, struct night_args *a)
{
    char *end;
    int c;

    *a = (struct night_args){NAN, NAN, NULL, REPORT_HTML, NIGHT_LIMIT_DEFAULT, false};
    const struct app_option opts[] = {{"from", OPT_OWN, NULL, 0, 0, NULL, 'f'},
                                      {"to", OPT_OWN, NULL, 0, 0, NULL, 't'},
                                      {"out", OPT_TEXT, &a->out, 0, 0, NULL, 0},
                                      {"format", OPT_OWN, NULL, 0, 0, NULL, 'F'},
                                      {"limit", OPT_OWN, NULL, 0, 0, NULL, 'l'},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;

    app_options_init(&p, "report night", opts, cmd_report_night_help, argc, argv);
    while ((c = app_options_next(&p)) != 0) {
        const char *arg = p.arg;
        switch (c) {
        case 'f':
        case 't': {
            double *at = c == 'f' ? &a->from_s : &a->to_s;
            if (!app_time_arg(arg, at)) {
                fprintf(stderr,
                        "iocontend report night: --%s takes RFC 3339 or epoch "
                        "milliseconds, got '%s'\n",
                        c == 'f' ? "from" : "to", arg);
                return EXIT_USAGE;
            }
            if (*at >= NIGHT_TIME_END_S) {
                fprintf(stderr,
                        "iocontend report night: --%s takes a time before the year "
                        "10000 (epoch milliseconds below %.0f), got '%s'\n",
                        c == 'f' ? "from" : "to", NIGHT_TIME_END_S * 1000, arg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'F':
            if (strcmp(arg, "html") == 0) {
                a->format = REPORT_HTML;
            } else if (strcmp(arg, "json") == 0) {
                a->format = REPORT_JSON;
            } else if (strcmp(arg, "csv") == 0) {
                a->format = REPORT_CSV;
            } else {
                fprintf(stderr,
                        "iocontend report night: --format takes html, json or csv\n");
                return EXIT_USAGE;
            }
            break;
        case 'l':
            a->limit = strtol(arg, &end, 10);
            if (*end != '\0' || a->limit < 1 || a->limit > NIGHT_LIMIT_MAX) {
                fprintf(stderr, "iocontend report night: --limit takes 1 to %d\n",
                        NIGHT_LIMIT_MAX);
                return EXIT_USAGE;
            }
            break;
        default: break;
        }
    }
    if (p.status >= 0) {
        a->help = p.status == EXIT_OK; /* --help: printed */
        return p.status;
    }
    int rest = app_options_rest(&p);
    if (rest < argc) {
        fprintf(stderr, "iocontend report night: unexpected argument '%s'\n", argv[rest]);
        return EXIT_USAGE;
    }
    if (a->out == NULL || a->out[0] == '\0') {
        fprintf(stderr, "iocontend report night: needs --out\n");
        cmd_report_night_help(stderr);
        return EXIT_USAGE;
    }
    if (isnan(a->to_s))
        a->to_s = (double)time(NULL);
    if (isnan(a->from_s))
        a->from_s = a->to_s - NIGHT_HOURS_DEFAULT * 3600.0;
    if (!(a->to_s > a->from_s)) {
        fprintf(stderr, "iocontend report night: --to must be after --from\n");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* 1 when the night asks for a look: files quarantined, runs that failed or were
 * interrupted, jobs set apart from the ranking. */
static bool needs_a_look(const struct night *n)
{
    bool look =
        n->n_quarantined > 0 || (n->has_slowdowns && n->slowdowns.apart_total > 0);

    for (size_t i = 0; i < n->n_runs; i++)
        look = look || n->runs[i].failed || n->runs[i].interrupted_at[0] != '\0';
    return look;
}

int cmd_report_night(struct app_config *cfg, int argc, char **argv)
{
    static const char *const specs[] = {"coverage", "night-slowdowns"};
    struct night_args a;
    struct db *db = NULL;
    struct night night;
    struct report_assets assets = {0};
    struct error err = {0};
    json_t *doc = NULL;
    char *text = NULL;
    int code = parse_args(argc, argv, &a);

    if (code != EXIT_OK || a.help)
        return code;
    code = app_db_open(cfg, &db);
    if (code != EXIT_OK)
        return code;
    const struct analysis_settings settings = app_analysis_settings(cfg);
    enum status rc =
        analysis_night(db, &settings, a.from_s, a.to_s, (size_t)a.limit, &night, &err);
    /* the page draws each scope's buckets; the JSON and the CSV keep the intervals */
    if (rc == STATUS_OK && a.format == REPORT_HTML)
        rc = analysis_night_buckets(db, &night, NIGHT_COVERAGE_POINTS, &err);
    db_close(db);
    if (rc != STATUS_OK) {
        night_clear(&night);
        return app_fail("report night", rc, &err);
    }
    doc = analysis_night_json(&night);
    text = doc != NULL ? json_dumps(doc, NIGHT_JSON_FLAGS) : NULL;
    if (text == NULL) {
        code = app_fail("report night", STATUS_NOMEM, &err);
    } else if (a.format == REPORT_HTML &&
               report_assets_load(&assets, specs, N_OF(specs), &err) != STATUS_OK) {
        log_error("report: the chart's files: %s (the page's web/ folder and Debian's "
                  "libjs-vega and libjs-requirejs)",
                  err.msg);
        code = EXIT_UNAVAILABLE;
    } else if (a.format == REPORT_CSV) {
        code = write_csv_dir(a.out, doc);
    } else {
        const struct night_file f = {a.format, doc, text, &assets};
        code = report_write_file(a.out, write_night_file, &f);
    }
    if (code == EXIT_OK) {
        log_info("report: the night report of %zu run(s), %zu quarantined file(s), %zu "
                 "group(s) changed written to %s",
                 night.n_runs, night.n_quarantined, night.n_groups, a.out);
        if (needs_a_look(&night))
            code = EXIT_PARTIAL;
    }
    free(text);
    json_decref(doc);
    report_assets_clear(&assets);
    night_clear(&night);
    return code;
}
