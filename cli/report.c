/* report.c: `iocontend report sweep`: the granularity sweeps `analyze --sweep` stored
 * for a group (METHOD.md §6), as the admins' report: a self-contained HTML page with
 * the coefficients' curves over the sampling interval and the verdicts, or the same
 * numbers as CSV (one row per pair and k) or JSON (the stored objects). Nothing is
 * computed here: the report says what the database holds. */
#include "internal.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum report_format { REPORT_HTML, REPORT_CSV, REPORT_JSON };

/* The coefficients of a sweep step, in the sweep object's order; the first four are
 * the curves the page draws, in these colours. */
static const char *const step_coefs[] = {"pearson",    "spearman", "dcor_v",
                                         "mi_linfoot", "dcor2_u",  "mi_ksg_nats"};
static const char *const curve_colour[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};

#define N_STEP_COEFS (sizeof step_coefs / sizeof step_coefs[0])
#define N_CURVES     (sizeof curve_colour / sizeof curve_colour[0])

/* The columns of a step in the CSV and the page's table: these, the coefficients,
 * then the KDE's width_ratio. */
static const char *const step_head[] = {"k", "granularity_s", "d", "m_mean"};

#define N_HEAD    (sizeof step_head / sizeof step_head[0])
#define N_COLUMNS (N_HEAD + N_STEP_COEFS + 1)

static const char *column_name(size_t col)
{
    return col < N_HEAD                  ? step_head[col]
           : col < N_HEAD + N_STEP_COEFS ? step_coefs[col - N_HEAD]
                                         : "width_ratio";
}

static const json_t *column_value(const json_t *step, size_t col)
{
    if (col < N_COLUMNS - 1)
        return json_object_get(step, column_name(col));
    return json_object_get(json_object_get(step, "kde"), "width_ratio");
}

void cmd_report_help(FILE *fp)
{
    fprintf(fp,
            "usage: iocontend report sweep --group G [--y M --x M] --out FILE\n"
            "                              [--format html|csv|json]\n"
            "The granularity sweeps 'iocontend analyze --sweep' stored for group G (its\n"
            "id or its name): every pair it stores, or the one --y and --x name.\n"
            "html (default): a self-contained page, per pair the curves of pearson,\n"
            "spearman, dcor_v and mi_linfoot over the sampling interval k*base, the\n"
            "'falling' verdicts and the recommended interval, and the numbers.\n"
            "csv: one row per pair and k. json: the stored sweep objects.\n"
            "FILE is written whole or not at all (a temporary file, then renamed).\n"
            "Exit: 0 written; 64 usage; 66 no such group or no sweep stored for it;\n"
            "69 database unavailable; 73 FILE cannot be written.\n");
}

/* ---- reading -------------------------------------------------------------------- */

/* The group whose id or, failing that, whose name is key. */
static enum status find_group(struct db *db, const char *key, struct db_group *out,
                              struct error *err)
{
    struct db_group *all = NULL;
    struct error by_id = {0};
    size_t n = 0;
    enum status rc = db_group_get(db, key, out, &by_id);

    if (rc != STATUS_NOT_FOUND) {
        if (rc != STATUS_OK && err != NULL)
            *err = by_id;
        return rc;
    }
    rc = db_groups_list(db, &all, &n, err);
    if (rc != STATUS_OK)
        return rc;
    rc = STATUS_NOT_FOUND;
    for (size_t i = 0; i < n && rc == STATUS_NOT_FOUND; i++) {
        if (strcmp(all[i].name, key) == 0) {
            *out = all[i];
            rc = STATUS_OK;
        }
    }
    free(all);
    if (rc == STATUS_NOT_FOUND)
        error_set(err, STATUS_NOT_FOUND, "no group with id or name '%s'", key);
    return rc;
}

/* The stored sweeps of the group (of y~x only when y is not NULL), appended to
 * sweeps in the order analyze stores the pairs. */
static enum status read_sweeps(struct db *db, const char *group_id, const char *y,
                               const char *x, json_t *sweeps, struct error *err)
{
    for (size_t i = 0; i < sweep_pair_count(); i++) {
        const char *py, *px;
        char *text = NULL;

        sweep_pair(i, &py, &px);
        if (y != NULL && (strcmp(y, py) != 0 || strcmp(x, px) != 0))
            continue;
        enum status rc = db_sweep_get(db, group_id, py, px, "all", &text, err);
        if (rc == STATUS_NOT_FOUND)
            continue;
        if (rc != STATUS_OK)
            return rc;
        json_error_t jerr;
        json_t *o = json_loads(text, 0, &jerr);
        free(text);
        if (!json_is_object(o)) {
            json_decref(o);
            return error_set(err, STATUS_INTERNAL, "stored sweep %s~%s: %s", py, px,
                             jerr.text);
        }
        json_array_append_new(sweeps, o);
    }
    return STATUS_OK;
}

/* ---- writing -------------------------------------------------------------------- */

static const json_t *steps_of(const json_t *sweep)
{
    return json_object_get(sweep, "steps");
}

static const char *str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

/* A number as CSV wants it: text that reads back as the same double, or nothing for
 * null. */
static void csv_number(FILE *fp, const json_t *v)
{
    if (json_is_number(v)) {
        fprintf(fp, ",%.17g", json_number_value(v));
    } else {
        fputc(',', fp);
    }
}

static void write_csv(FILE *fp, const struct db_group *g, const json_t *sweeps)
{
    fputs("group,y,x", fp);
    for (size_t col = 0; col < N_COLUMNS; col++)
        fprintf(fp, ",%s", column_name(col));
    fputc('\n', fp);
    for (size_t i = 0; i < json_array_size(sweeps); i++) {
        const json_t *sweep = json_array_get(sweeps, i), *steps = steps_of(sweep);
        for (size_t k = 0; k < json_array_size(steps); k++) {
            fprintf(fp, "%s,%s,%s", g->id, str_of(sweep, "y"), str_of(sweep, "x"));
            for (size_t col = 0; col < N_COLUMNS; col++)
                csv_number(fp, column_value(json_array_get(steps, k), col));
            fputc('\n', fp);
        }
    }
}

static enum status write_json(FILE *fp, const struct db_group *g, json_t *sweeps,
                              struct error *err)
{
    json_t *o = json_pack("{s: s, s: {s: s, s: s, s: I}, s: O}", "kind", "sweep_report",
                          "group", "id", g->id, "name", g->name, "jobs",
                          (json_int_t)g->jobs, "sweeps", sweeps);

    if (o == NULL)
        return error_set(err, STATUS_NOMEM, "report JSON");
    int rc = json_dumpf(o, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(o);
    fputc('\n', fp);
    return rc == 0 ? STATUS_OK : error_set(err, STATUS_INTERNAL, "report JSON: write");
}

/* s with &, <, > and " as entities. */
static void html_text(FILE *fp, const char *s)
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

/* The chart's frame: a plot area of W × H inside margins, the coefficient from −1
 * (bottom) to 1 (top), the interval from k = 1 (left) to k_max (right). */
#define CHART_W    640.0
#define CHART_H    300.0
#define CHART_LEFT 56.0
#define CHART_TOP  16.0

static double chart_x(double k, double k_max)
{
    return CHART_LEFT + (k_max > 1.0 ? (k - 1.0) / (k_max - 1.0) : 0.5) * CHART_W;
}

static double chart_y(double c)
{
    return CHART_TOP + (1.0 - c) / 2.0 * CHART_H;
}

/* One pair's chart: a polyline per curve through its defined points (a null
 * breaks nothing but is left out), the axes, and the recommended interval dashed. */
static void html_chart(FILE *fp, const json_t *sweep)
{
    const json_t *steps = steps_of(sweep);
    const double k_max = (double)json_array_size(steps);
    const double base = json_number_value(json_object_get(sweep, "base_granularity_s"));
    const json_t *rec =
        json_object_get(json_object_get(sweep, "verdicts"), "recommended_k");

    fprintf(fp,
            "<svg class=\"sweep\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" role=\"img\">\n",
            CHART_LEFT + CHART_W + 130.0, CHART_TOP + CHART_H + 44.0);
    for (int t = -2; t <= 2; t++) {
        const double c = 0.5 * t, y = chart_y(c);
        fprintf(fp,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.1f"
                "</text>\n",
                CHART_LEFT, y, CHART_LEFT + CHART_W, y, t == 0 ? "#888" : "#ddd",
                CHART_LEFT - 6.0, y + 4.0, c);
    }
    for (size_t k = 1; (double)k <= k_max; k += k_max > 10.0 ? 4 : 1) {
        const double x = chart_x((double)k, k_max);
        fprintf(fp,
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">"
                "%g s</text>\n",
                x, CHART_TOP + CHART_H + 16.0, (double)k * base);
    }
    fprintf(fp,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">"
            "sampling interval k &#215; %g s</text>\n",
            CHART_LEFT + CHART_W / 2.0, CHART_TOP + CHART_H + 36.0, base);
    if (json_is_integer(rec)) {
        const double x = chart_x((double)json_integer_value(rec), k_max);
        fprintf(fp,
                "<line class=\"recommended\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                "y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n",
                x, CHART_TOP, x, CHART_TOP + CHART_H);
    }
    for (size_t c = 0; c < N_CURVES; c++) {
        fprintf(fp,
                "<polyline class=\"curve\" data-coef=\"%s\" fill=\"none\" "
                "stroke=\"%s\" stroke-width=\"2\" points=\"",
                step_coefs[c], curve_colour[c]);
        for (size_t i = 0; i < json_array_size(steps); i++) {
            const json_t *v = json_object_get(json_array_get(steps, i), step_coefs[c]);
            if (json_is_number(v)) {
                fprintf(fp, "%s%.1f,%.1f", i > 0 ? " " : "",
                        chart_x((double)i + 1, k_max), chart_y(json_number_value(v)));
            }
        }
        fprintf(
            fp,
            "\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s</text>\n",
            CHART_LEFT + CHART_W + 10.0, CHART_TOP + 14.0 + 16.0 * (double)c,
            curve_colour[c], step_coefs[c]);
    }
    fputs("</svg>\n", fp);
}

/* A number for the page's tables: null as a dash. */
static void html_number(FILE *fp, const json_t *v)
{
    if (json_is_number(v)) {
        fprintf(fp, "<td>%.4g</td>", json_number_value(v));
    } else {
        fputs("<td>&#8211;</td>", fp);
    }
}

static void html_sweep(FILE *fp, const json_t *sweep)
{
    const json_t *verdicts = json_object_get(sweep, "verdicts");
    const json_t *falling = json_object_get(verdicts, "falling");
    const json_t *interval = json_object_get(verdicts, "recommended_interval_s");

    fputs("<section class=\"pair\">\n<h2>", fp);
    html_text(fp, str_of(sweep, "y"));
    fputs(" ~ ", fp);
    html_text(fp, str_of(sweep, "x"));
    fprintf(fp, "</h2>\n<p>%lld jobs at every k, base interval %g s, k = 1..%zu. ",
            (long long)json_integer_value(json_object_get(sweep, "d")),
            json_number_value(json_object_get(sweep, "base_granularity_s")),
            json_array_size(steps_of(sweep)));
    if (json_is_number(interval)) {
        fprintf(fp,
                "Recommended sampling interval: <b class=\"recommended\">%g s</b> "
                "(the longest that keeps each coefficient within %g of its value at "
                "the base interval).</p>\n",
                json_number_value(interval),
                json_number_value(json_object_get(verdicts, "tolerance")));
    } else {
        fputs("No recommended interval: a coefficient is undefined at the base "
              "interval.</p>\n",
              fp);
    }
    html_chart(fp, sweep);
    /* the criterion as analyze applied it, from the stored verdicts */
    fprintf(
        fp,
        "<p>A coefficient is <i>falling</i> when c(k<sub>max</sub>) &lt; c(1) &#8722; "
        "%g and Spearman's r of (k, c) is at most %g.</p>\n",
        json_number_value(json_object_get(verdicts, "drop")),
        json_number_value(json_object_get(verdicts, "rho_max")));
    fputs("<table class=\"falling\"><tr><th>falling</th>", fp);
    for (size_t c = 0; c < N_CURVES; c++)
        fprintf(fp, "<th>%s</th>", step_coefs[c]);
    fputs("</tr><tr><td></td>", fp);
    for (size_t c = 0; c < N_CURVES; c++) {
        const json_t *f = json_object_get(falling, step_coefs[c]);
        fprintf(fp, "<td>%s</td>",
                json_is_true(f)    ? "yes"
                : json_is_false(f) ? "no"
                                   : "–");
    }
    fputs("</tr></table>\n<table class=\"steps\"><tr>", fp);
    for (size_t col = 0; col < N_COLUMNS; col++)
        fprintf(fp, "<th>%s</th>", column_name(col));
    fputs("</tr>\n", fp);
    for (size_t i = 0; i < json_array_size(steps_of(sweep)); i++) {
        fputs("<tr>", fp);
        for (size_t col = 0; col < N_COLUMNS; col++)
            html_number(fp, column_value(json_array_get(steps_of(sweep), i), col));
        fputs("</tr>\n", fp);
    }
    fputs("</table>\n</section>\n", fp);
}

static void write_html(FILE *fp, const struct db_group *g, const json_t *sweeps)
{
    char when[32] = "";
    const time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>iocontend sweep report: ",
          fp);
    html_text(fp, g->name);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:64em}"
          "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
          "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
          "font-size:0.85em}</style>\n</head>\n<body>\n<h1>Sampling-interval sweep: ",
          fp);
    html_text(fp, g->name);
    fputs("</h1>\n<p>Group <code>", fp);
    html_text(fp, g->id);
    fprintf(fp,
            "</code>, %ld jobs; report written %s from the sweeps "
            "<code>iocontend analyze --sweep</code> stored (METHOD.md &#167;6).</p>\n",
            g->jobs, when);
    for (size_t i = 0; i < json_array_size(sweeps); i++)
        html_sweep(fp, json_array_get(sweeps, i));
    fputs("</body>\n</html>\n", fp);
}

/* Writes the report into path through a temporary file beside it, renamed into
 * place once whole: a reader never sees half a report. */
static int write_report(const char *path, enum report_format format,
                        const struct db_group *g, json_t *sweeps)
{
    char tmp[4096];
    struct error err = {0};
    enum status rc = STATUS_OK;

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
    switch (format) {
    case REPORT_HTML: write_html(fp, g, sweeps); break;
    case REPORT_CSV: write_csv(fp, g, sweeps); break;
    case REPORT_JSON: rc = write_json(fp, g, sweeps, &err); break;
    }
    const bool failed = ferror(fp) != 0;
    if (fclose(fp) != 0 || failed || rc != STATUS_OK || rename(tmp, path) != 0) {
        log_error("report: %s: %s", path, rc != STATUS_OK ? err.msg : strerror(errno));
        unlink(tmp);
        return EXIT_CANTCREAT;
    }
    return EXIT_OK;
}

int cmd_report(struct app_config *cfg, int argc, char **argv)
{
    static const struct option longopts[] = {{"group", required_argument, NULL, 'g'},
                                             {"y", required_argument, NULL, 'y'},
                                             {"x", required_argument, NULL, 'x'},
                                             {"out", required_argument, NULL, 'o'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *group = NULL, *y = NULL, *x = NULL, *out_path = NULL;
    enum report_format format = REPORT_HTML;
    struct db *db = NULL;
    struct db_group g;
    struct error err = {0};
    int c;

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        cmd_report_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "sweep") != 0) {
        fprintf(stderr, "iocontend report: expected 'sweep', got '%s'\n", argv[1]);
        return EXIT_USAGE;
    }
    optind = 1;
    while ((c = getopt_long(argc - 1, argv + 1, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': group = optarg; break;
        case 'y': y = optarg; break;
        case 'x': x = optarg; break;
        case 'o': out_path = optarg; break;
        case 'f':
            if (strcmp(optarg, "html") == 0) {
                format = REPORT_HTML;
            } else if (strcmp(optarg, "csv") == 0) {
                format = REPORT_CSV;
            } else if (strcmp(optarg, "json") == 0) {
                format = REPORT_JSON;
            } else {
                fprintf(stderr, "iocontend report: --format takes html, csv or json\n");
                return EXIT_USAGE;
            }
            break;
        case 'h': cmd_report_help(stdout); return EXIT_OK;
        default: cmd_report_help(stderr); return EXIT_USAGE;
        }
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "iocontend report: unexpected argument '%s'\n", argv[optind + 1]);
        return EXIT_USAGE;
    }
    if (group == NULL || out_path == NULL || (y == NULL) != (x == NULL)) {
        fprintf(stderr, "iocontend report sweep: needs --group and --out, and --y with "
                        "--x or neither\n");
        cmd_report_help(stderr);
        return EXIT_USAGE;
    }
    int code = app_db_open(cfg, &db);
    if (code != EXIT_OK)
        return code;
    json_t *sweeps = json_array();
    enum status rc = find_group(db, group, &g, &err);
    if (rc == STATUS_OK)
        rc = read_sweeps(db, g.id, y, x, sweeps, &err);
    db_close(db);
    if (rc == STATUS_NOT_FOUND) {
        log_error("report: %s", err.msg);
        code = EXIT_NOINPUT;
    } else if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("report: %s", msg);
        code = exit_code_of(rc);
    } else if (json_array_size(sweeps) == 0) {
        if (y != NULL) {
            log_error("report: no sweep of %s~%s stored in group %s (%s); iocontend "
                      "analyze --sweep stores them",
                      y, x, g.id, g.name);
        } else {
            log_error("report: no sweep stored in group %s (%s); iocontend analyze "
                      "--sweep stores them",
                      g.id, g.name);
        }
        code = EXIT_NOINPUT;
    } else {
        code = write_report(out_path, format, &g, sweeps);
        if (code == EXIT_OK) {
            log_info("report: %zu sweep(s) of group %s (%s) written to %s",
                     json_array_size(sweeps), g.id, g.name, out_path);
        }
    }
    json_decref(sweeps);
    return code;
}
