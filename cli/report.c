/* report.c: `iocontend report sweep`: the granularity sweeps `analyze --sweep` stored
 * for a group (docs/method.md §6), as the admins' report: a self-contained HTML page with
 * the coefficients' curves over the sampling interval, drawn by Vega from the page's
 * own chart (web/sweep.vg.json) with the library and the data inlined, and the
 * verdicts; or the same numbers as CSV (one row per pair and k) or JSON (the stored
 * objects). Nothing is computed here: the report says what the database holds. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The columns of a step in the CSV and the page's table: these, the coefficients
 * (the watched ones first, as the curves), then the KDE's width_ratio. */
static const char *const step_head[] = {"k", "granularity_s", "d", "m_mean"};

#define N_HEAD    (sizeof step_head / sizeof step_head[0])
#define N_COLUMNS (N_HEAD + COEF_COUNT + 1)

/* The coefficient of column N_HEAD + i: the watched ones, then the others. */
static enum coef_id coef_of_column(size_t i)
{
    size_t seen = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (size_t c = 0; c < COEF_COUNT; c++) {
            if (analysis_coefs[c].watched == (pass == 0) && seen++ == i)
                return (enum coef_id)c;
        }
    }
    return COEF_PEARSON; /* not reached: i < COEF_COUNT */
}

static const char *column_name(size_t col)
{
    return col < N_HEAD                ? step_head[col]
           : col < N_HEAD + COEF_COUNT ? analysis_coefs[coef_of_column(col - N_HEAD)].name
                                       : "width_ratio";
}

static double column_value(const struct sweep_point *p, size_t col)
{
    switch (col) {
    case 0: return p->k;
    case 1: return p->granularity_s;
    case 2: return (double)p->d;
    case 3: return p->m_mean;
    default: break;
    }
    if (col < N_HEAD + COEF_COUNT)
        return p->c[coef_of_column(col - N_HEAD)];
    return p->kde.wr;
}

static void sweep_help(FILE *fp)
{
    fprintf(fp,
            "usage: iocontend report sweep --group G [--y M --x M] --out FILE\n"
            "                              [--format html|csv|json]\n"
            "The granularity sweeps 'iocontend analyze --sweep' stored for group G (its\n"
            "id or its name; a name several groups share carries ' #' and 8 digits of\n"
            "the id): every pair it stores, or the one --y and --x name.\n"
            "html (default): one self-contained page (Vega from Debian's libjs-vega\n"
            "inlined, no network): a curve per stored pair of pearson, spearman,\n"
            "dcor_v or mi_linfoot over the sampling interval k*base, the recommended\n"
            "intervals, the 'falling' verdicts, and the numbers.\n"
            "csv: one row per pair and k. json: the stored sweep objects.\n"
            "FILE is written whole or not at all (a temporary file, then renamed).\n"
            "Exit: 0 written; 64 usage, or a name several groups share (listed); 66 no\n"
            "such group or no sweep stored for it;\n"
            "69 database unavailable, or (html) the chart's files missing: the page's\n"
            "web/ folder, Debian's libjs-vega and libjs-requirejs; 73 FILE cannot be\n"
            "written.\n");
}

void cmd_report_help(FILE *fp)
{
    sweep_help(fp);
    fputc('\n', fp);
    cmd_report_night_help(fp);
}

/* ---- reading -------------------------------------------------------------------- */

/* The stored sweeps of a group, as texts and read back. */
struct sweeps {
    char *texts[SWEEP_PAIRS_MAX];
    struct sweep_result res[SWEEP_PAIRS_MAX];
    size_t n;
};

static void sweeps_clear(struct sweeps *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->texts[i]);
        sweep_result_clear(&s->res[i]);
    }
    s->n = 0;
}

/* The stored sweeps of the group (of y~x only when y is not NULL), in the order
 * analyze stores the pairs. */
static enum status read_sweeps(struct db *db, const char *group_id, const char *y,
                               const char *x, struct sweeps *out, struct error *err)
{
    for (size_t i = 0; i < sweep_pair_count() && out->n < SWEEP_PAIRS_MAX; i++) {
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
        out->texts[out->n] = text;
        rc = analysis_sweep_parse(text, &out->res[out->n], err);
        out->n++;
        if (rc != STATUS_OK) {
            /* A stored row that does not read is damage, not a usage error. */
            error_wrap(err, "stored sweep %s~%s", py, px);
            return STATUS_INTERNAL;
        }
    }
    return STATUS_OK;
}

/* ---- writing -------------------------------------------------------------------- */

/* A number as CSV wants it: text that reads back as the same double, or nothing for
 * null. */
static void csv_number(FILE *fp, double v)
{
    if (isfinite(v)) {
        fprintf(fp, ",%.17g", v);
    } else {
        fputc(',', fp);
    }
}

static void write_csv(FILE *fp, const struct db_group *g, const struct sweeps *sweeps)
{
    fputs("group,y,x", fp);
    for (size_t col = 0; col < N_COLUMNS; col++)
        fprintf(fp, ",%s", column_name(col));
    fputc('\n', fp);
    for (size_t i = 0; i < sweeps->n; i++) {
        const struct sweep_result *sweep = &sweeps->res[i];
        for (size_t k = 0; k < sweep->k_max; k++) {
            fprintf(fp, "%s,%s,%s", g->id, sweep->y, sweep->x);
            for (size_t col = 0; col < N_COLUMNS; col++)
                csv_number(fp, column_value(&sweep->points[k], col));
            fputc('\n', fp);
        }
    }
}

/* A number for the page's tables: null as a dash. */
static void html_number(FILE *fp, double v)
{
    if (isfinite(v)) {
        fprintf(fp, "<td>%.4g</td>", v);
    } else {
        fputs("<td>&#8211;</td>", fp);
    }
}

static void html_sweep(FILE *fp, const struct sweep_result *sweep)
{
    const struct sweep_verdicts *verdicts = &sweep->verdicts;

    fputs("<section class=\"pair\">\n<h2>", fp);
    report_html_text(fp, sweep->y);
    fputs(" ~ ", fp);
    report_html_text(fp, sweep->x);
    fprintf(fp, "</h2>\n<p>%zu jobs at every k, base interval %g s, k = 1..%u. ",
            sweep->d, sweep->base_granularity_s, sweep->k_max);
    if (isfinite(verdicts->recommended_interval_s)) {
        fprintf(fp,
                "Recommended sampling interval: <b class=\"recommended\">%g s</b> "
                "(the longest that keeps each coefficient within %g of its value at "
                "the base interval).</p>\n",
                verdicts->recommended_interval_s, verdicts->tolerance);
    } else {
        fputs("No recommended interval: a coefficient is undefined at the base "
              "interval.</p>\n",
              fp);
    }
    /* the criterion as analyze applied it, from the stored verdicts */
    fprintf(
        fp,
        "<p>A coefficient is <i>falling</i> when c(k<sub>max</sub>) &lt; c(1) &#8722; "
        "%g and Spearman's r of (k, c) is at most %g.</p>\n",
        verdicts->drop, verdicts->rho_max);
    fputs("<table class=\"falling\"><tr><th>falling</th>", fp);
    for (size_t c = 0; c < COEF_COUNT; c++) {
        if (analysis_coefs[c].watched)
            fprintf(fp, "<th>%s</th>", analysis_coefs[c].name);
    }
    fputs("</tr><tr><td></td>", fp);
    for (size_t c = 0; c < COEF_COUNT; c++) {
        if (!analysis_coefs[c].watched)
            continue;
        const int f = verdicts->falling[c];
        fprintf(fp, "<td>%s</td>", f > 0 ? "yes" : f == 0 ? "no" : "–");
    }
    fputs("</tr></table>\n<table class=\"steps\"><tr>", fp);
    for (size_t col = 0; col < N_COLUMNS; col++)
        fprintf(fp, "<th>%s</th>", column_name(col));
    fputs("</tr>\n", fp);
    for (size_t i = 0; i < sweep->k_max; i++) {
        fputs("<tr>", fp);
        for (size_t col = 0; col < N_COLUMNS; col++)
            html_number(fp, column_value(&sweep->points[i], col));
        fputs("</tr>\n", fp);
    }
    fputs("</table>\n</section>\n", fp);
}

/* The chart: the library, the sweep's spec and the stored sweeps;
 * window.iocontendDone settles once it is drawn. */
static void html_scripts(FILE *fp, const struct report_assets *a,
                         const struct sweeps *sweeps)
{
    report_html_library(fp, a);
    fputs("window.iocontendSweeps = [", fp);
    for (size_t i = 0; i < sweeps->n; i++) {
        fputs(i > 0 ? ",\n" : "\n", fp);
        report_script_json(fp, sweeps->texts[i]);
    }
    fputs("];\nwindow.iocontendDone = window.iocontendParsed.then(function () {\n"
          "  return new Promise(function (ok, no) {\n"
          "    requirejs([\"iocontend-charts\"], function (charts) {\n"
          "      charts.sweep(document.getElementById(\"chart\"), \"sweep\", "
          "window.iocontendSweeps,\n"
          "        \"every stored pair's coefficient over the sampling interval\")"
          ".then(ok, no);\n"
          "    }, no);\n  });\n});\n</script>\n",
          fp);
}

static void write_html(FILE *fp, const struct db_group *g, const struct sweeps *sweeps,
                       const struct report_assets *assets)
{
    char when[32] = "";
    const time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>iocontend sweep report: ",
          fp);
    report_html_text(fp, g->name);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:64em}"
          "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
          "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
          "font-size:0.85em}figcaption{font-size:0.85em;color:#444}</style>\n",
          fp);
    html_scripts(fp, assets, sweeps);
    fputs("</head>\n<body>\n<h1>Sampling-interval sweep: ", fp);
    report_html_text(fp, g->name);
    fputs("</h1>\n<p>Group <code>", fp);
    report_html_text(fp, g->id);
    fprintf(fp,
            "</code>, %ld jobs; report written %s from the sweeps "
            "<code>iocontend analyze --sweep</code> stored (method &#167;6).</p>\n"
            "<div id=\"chart\"></div>\n",
            g->jobs, when);
    for (size_t i = 0; i < sweeps->n; i++)
        html_sweep(fp, &sweeps->res[i]);
    fputs("</body>\n</html>\n", fp);
}

/* What a sweep report is written from. */
struct sweep_report {
    enum report_format format;
    const struct db_group *g;
    const struct sweeps *sweeps;
    const struct report_assets *assets;
};

static enum status write_sweep_report(FILE *fp, const void *ctx, struct error *err)
{
    const struct sweep_report *r = ctx;

    switch (r->format) {
    case REPORT_HTML: write_html(fp, r->g, r->sweeps, r->assets); break;
    case REPORT_CSV: write_csv(fp, r->g, r->sweeps); break;
    case REPORT_JSON:
        return analysis_sweep_report_json(fp, r->g, r->sweeps->texts, r->sweeps->n, err);
    }
    return STATUS_OK;
}

int cmd_report(struct app_config *cfg, int argc, char **argv)
{
    const char *group = NULL, *y = NULL, *x = NULL, *out_path = NULL;
    const struct app_option opts[] = {{"group", OPT_TEXT, &group, 0, 0, NULL, 0},
                                      {"y", OPT_TEXT, &y, 0, 0, NULL, 0},
                                      {"x", OPT_TEXT, &x, 0, 0, NULL, 0},
                                      {"out", OPT_TEXT, &out_path, 0, 0, NULL, 0},
                                      {"format", OPT_OWN, NULL, 0, 0, NULL, 'f'},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    enum report_format format = REPORT_HTML;
    struct db *db = NULL;
    struct db_group g;
    struct error err = {0};

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        cmd_report_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "night") == 0)
        return cmd_report_night(cfg, argc - 1, argv + 1);
    if (strcmp(argv[1], "sweep") != 0) {
        fprintf(stderr, "iocontend report: expected 'sweep' or 'night', got '%s'\n",
                argv[1]);
        return EXIT_USAGE;
    }
    app_options_init(&p, "report", opts, sweep_help, argc - 1, argv + 1);
    while (app_options_next(&p) == 'f') {
        if (strcmp(p.arg, "html") == 0) {
            format = REPORT_HTML;
        } else if (strcmp(p.arg, "csv") == 0) {
            format = REPORT_CSV;
        } else if (strcmp(p.arg, "json") == 0) {
            format = REPORT_JSON;
        } else {
            fprintf(stderr, "iocontend report: --format takes html, csv or json\n");
            return EXIT_USAGE;
        }
    }
    if (p.status >= 0)
        return p.status;
    int rest = app_options_rest(&p) + 1;
    if (rest < argc) {
        fprintf(stderr, "iocontend report: unexpected argument '%s'\n", argv[rest]);
        return EXIT_USAGE;
    }
    if (group == NULL || out_path == NULL || (y == NULL) != (x == NULL)) {
        fprintf(stderr, "iocontend report sweep: needs --group and --out, and --y with "
                        "--x or neither\n");
        sweep_help(stderr);
        return EXIT_USAGE;
    }
    int code = app_db_open(cfg, &db);
    if (code != EXIT_OK)
        return code;
    struct sweeps sweeps = {0};
    struct report_assets assets = {0};
    static const char *const specs[] = {"sweep"};
    code = app_group_arg(db, "report", group, &g);
    if (code != EXIT_OK) {
        db_close(db);
        return code;
    }
    enum status rc = read_sweeps(db, g.id, y, x, &sweeps, &err);
    db_close(db);
    if (rc == STATUS_NOT_FOUND) {
        log_error("report: %s", err.msg);
        code = EXIT_NOINPUT;
    } else if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("report: %s", msg);
        code = exit_code_of(rc);
    } else if (sweeps.n == 0) {
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
    } else if (format == REPORT_HTML &&
               report_assets_load(&assets, specs, 1, &err) != STATUS_OK) {
        log_error("report: the chart's files: %s (the page's web/ folder and Debian's "
                  "libjs-vega and libjs-requirejs)",
                  err.msg);
        code = EXIT_UNAVAILABLE;
    } else {
        const struct sweep_report report = {format, &g, &sweeps, &assets};
        code = report_write_file(out_path, write_sweep_report, &report);
        if (code == EXIT_OK) {
            log_info("report: %zu sweep(s) of group %s (%s) written to %s", sweeps.n,
                     g.id, g.name, out_path);
        }
    }
    sweeps_clear(&sweeps);
    report_assets_clear(&assets);
    return code;
}
