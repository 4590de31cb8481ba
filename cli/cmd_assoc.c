/* cmd_assoc.c: `iocontend assoc`: the association of two CSV columns, no database. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_assoc_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend assoc --input FILE --x COL --y COL [--methods LIST]\n"
        "                       [--space auto|log|linear] [--kernel product|full]\n"
        "                       [--bandwidth normal|plugin] [--density] "
        "[--significance]\n"
        "                       [--permutations B] [--resamples B] [--seed N]\n"
        "                       [--mi-jitter 0|1] [--json]\n"
        "The association of column y with column x of a CSV file with a header line\n"
        "(method §5), without a database. Rows whose x or y is empty or not a finite\n"
        "number are dropped and counted (and, with --space log, rows with a value <= "
        "0).\n"
        "  --methods LIST    comma-separated from pearson,spearman,dcor,mi,kde,rf, or\n"
        "                    all (default: all; rf is the random forest, 100 trees,\n"
        "                    about 1 s at 10^5 rows)\n"
        "  --space S         the KDE's fitting space: auto (default: log when every\n"
        "                    value is > 0, else linear), log (drops rows with a value\n"
        "                    <= 0) or linear\n"
        "  --kernel K        the KDE's kernel: product (default) or full\n"
        "  --bandwidth W     the KDE's bandwidths: normal (default: s*d^(-1/6) per\n"
        "                    axis) or plugin (Sheather-Jones per axis; product kernel)\n"
        "  --density         add the KDE's 128 x 128 density grid to the JSON\n"
        "  --significance    permutation p-values and noise floors of every coefficient\n"
        "                    and of the KDE's width_ratio, BCa CIs of pearson and\n"
        "                    spearman\n"
        "  --permutations B  permutations of y (default 999; implies --significance)\n"
        "  --resamples B     pair resamples of the BCa CIs (default 2000; implies\n"
        "                    --significance)\n"
        "  --seed N          seed of KSG's jitter, the permutations and the resamples\n"
        "                    (default 20240601 or the config)\n"
        "  --mi-jitter B     0 switches off KSG's tie-breaking jitter (default 1)\n"
        "  --json            print the association object of docs/interfaces.md\n"
        "Exit status: 0 every row used, 1 rows dropped, 64 bad usage or a malformed\n"
        "file (named with its line), 66 no such file.\n");
}

/* Splits one CSV line in place into fields (double quotes group, "" escapes). */
static size_t csv_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;

    line[strcspn(line, "\r\n")] = '\0';
    while (n < max) {
        char *out = p;
        fields[n++] = p;
        if (*p == '"') {
            char *q = p + 1;
            for (;;) {
                if (*q == '\0')
                    break;
                if (*q == '"' && q[1] == '"') {
                    *out++ = '"';
                    q += 2;
                } else if (*q == '"') {
                    q++;
                    break;
                } else {
                    *out++ = *q++;
                }
            }
            p = q;
            char *comma = strchr(p, ',');
            *out = '\0';
            if (comma == NULL)
                break;
            p = comma + 1;
            continue;
        }
        char *comma = strchr(p, ',');
        if (comma == NULL)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static bool parse_finite(const char *s, double *v)
{
    char *end;

    while (*s == ' ')
        s++;
    if (*s == '\0')
        return false;
    errno = 0;
    *v = strtod(s, &end);
    while (*end == ' ')
        end++;
    return *end == '\0' && errno != ERANGE && isfinite(*v);
}

struct columns {
    double *x, *y;
    size_t d, cap;
    size_t nonfinite, nonpositive;
};

static enum status read_columns(const char *path, const char *xcol, const char *ycol,
                                bool log_space, struct columns *c, struct error *err)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    long xi = -1, yi = -1;
    char *fields[1024];
    enum status rc = STATUS_OK;

    if (fp == NULL) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open: %s",
                        strerror(errno));
    }
    while (getline(&line, &cap, fp) != -1) {
        lineno++;
        size_t n = csv_split(line, fields, 1024);
        if (lineno == 1) {
            for (size_t i = 0; i < n; i++) {
                if (strcmp(fields[i], xcol) == 0)
                    xi = (long)i;
                if (strcmp(fields[i], ycol) == 0)
                    yi = (long)i;
            }
            if (xi < 0 || yi < 0) {
                rc = error_at(err, STATUS_INVALID, path, 1,
                              "expected a column named '%s'", xi < 0 ? xcol : ycol);
                break;
            }
            continue;
        }
        if (n == 1 && fields[0][0] == '\0')
            continue; /* a blank line */
        if ((size_t)xi >= n || (size_t)yi >= n) {
            rc = error_at(err, STATUS_PARSE, path, lineno,
                          "expected at least %ld fields as in the header, got %zu",
                          (xi > yi ? xi : yi) + 1, n);
            break;
        }
        double xv, yv;
        if (!parse_finite(fields[xi], &xv) || !parse_finite(fields[yi], &yv)) {
            c->nonfinite++;
            continue;
        }
        if (log_space && (xv <= 0 || yv <= 0)) {
            c->nonpositive++;
            continue;
        }
        if (c->d == c->cap) {
            size_t ncap = c->cap == 0 ? 1024 : c->cap * 2;
            double *nx = realloc(c->x, ncap * sizeof *nx);
            if (nx != NULL)
                c->x = nx;
            double *ny = realloc(c->y, ncap * sizeof *ny);
            if (ny != NULL)
                c->y = ny;
            if (nx == NULL || ny == NULL) {
                rc = error_set(err, STATUS_NOMEM, "columns of %s", path);
                break;
            }
            c->cap = ncap;
        }
        c->x[c->d] = xv;
        c->y[c->d] = yv;
        c->d++;
    }
    if (rc == STATUS_OK && lineno == 0) {
        rc = error_at(err, STATUS_PARSE, path, 0,
                      "expected a header line, got an empty file");
    }
    free(line);
    fclose(fp);
    return rc;
}

/* --methods: the core METHOD_* bits, the KDE and the forest. STATUS_NOT_FOUND for a
 * method this build lacks, STATUS_INVALID for an unknown word or an empty list. */
static enum status parse_methods(const char *list, unsigned *out, bool *kde, bool *rf)
{
    char buf[256];
    char *save = NULL;

    *out = 0;
    *kde = false;
    *rf = false;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "pearson") == 0) {
            *out |= METHOD_PEARSON;
        } else if (strcmp(tok, "spearman") == 0) {
            *out |= METHOD_SPEARMAN;
        } else if (strcmp(tok, "dcor") == 0) {
            *out |= METHOD_DCOR;
        } else if (strcmp(tok, "mi") == 0) {
            *out |= METHOD_MI;
        } else if (strcmp(tok, "kde") == 0) {
            *kde = true;
        } else if (strcmp(tok, "rf") == 0) {
            *rf = true;
        } else if (strcmp(tok, "all") == 0) {
            *out |= stats_methods_available();
            *kde = true;
            *rf = true;
        } else {
            return STATUS_INVALID;
        }
    }
    if ((*out & ~stats_methods_available()) != 0)
        return STATUS_NOT_FOUND;
    return *out != 0 || *kde || *rf ? STATUS_OK : STATUS_INVALID;
}

/* A number as text of width w, "null" when it is not finite (the JSON's null). */
static void cell(char *out, size_t size, double v, int w)
{
    if (isfinite(v)) {
        snprintf(out, size, "%*.6g", w, v);
    } else {
        snprintf(out, size, "%*s", w, "null");
    }
}

/* One coefficient's line: value, and with its significance entry (NULL: none) its
 * p-value, noise floor and CI; why it is undefined when it is (its reason, else the
 * entry's). */
static void print_coef(const char *name, double value, enum stats_reason why,
                       const struct stats_signif_coef *sig, bool ci)
{
    char v[32], p[32], f[32], lo[32], hi[32];

    if (sig != NULL && sig->reason == REASON_NOT_COMPUTED)
        sig = NULL;
    cell(v, sizeof v, value, 10);
    printf("  %-17s %s", name, v);
    if (sig != NULL) {
        cell(p, sizeof p, sig->p_value, 9);
        cell(f, sizeof f, sig->noise_floor, 11);
        printf(" %s %s", p, f);
        if (ci) {
            cell(lo, sizeof lo, sig->ci_low, 0);
            cell(hi, sizeof hi, sig->ci_high, 0);
            printf("  [%s, %s]", lo, hi);
        }
    }
    if (!isfinite(value)) {
        if (why == REASON_NONE && sig != NULL && sig->reason != REASON_NONE)
            why = sig->reason;
        printf(" (%s)", why != REASON_NONE ? stats_reason_name(why) : "undefined");
    }
    putchar('\n');
}

static void print_kde(const struct assoc_result *r)
{
    const struct stats_kde *k = r->kde;
    char a[32], b[32], c[32], d[32];

    if (k == NULL)
        return;
    printf("KDE (%s space, %s kernel%s%s)", stats_kde_space_name(k->space),
           k->kernel == KDE_KERNEL_FULL ? "full" : "product",
           k->bandwidth == KDE_BW_PLUGIN ? ", plug-in bandwidth" : "",
           k->reason == REASON_NONE && k->binned ? ", binned" : "");
    if (k->reason != REASON_NONE) {
        printf(": null (%s)\n", stats_reason_name(k->reason));
        return;
    }
    cell(a, sizeof a, k->h_x, 0);
    cell(b, sizeof b, k->h_y, 0);
    printf(": hx %s, hy %s (fitting space)\n", a, b);
    cell(a, sizeof a, k->mean, 0);
    cell(b, sizeof b, k->sd, 0);
    cell(c, sizeof c, k->band_low, 0);
    cell(d, sizeof d, k->band_high, 0);
    printf("  y mean %s, sd %s, mean -/+ 1.645 sd [%s, %s]\n", a, b, c, d);
    cell(a, sizeof a, k->marg_q05, 0);
    cell(b, sizeof b, k->marg_q95, 0);
    printf("  marginal q05 %s, q95 %s\n", a, b);
    print_coef("width_ratio", k->width_ratio, REASON_NONE,
               r->signif != NULL ? &r->signif->extra[0] : NULL, false);
    print_coef("paper_width_ratio", k->paper_width_ratio, REASON_NONE, NULL, false);
    printf("  %12s %12s %12s %12s\n", "x", "q05", "q50", "q95");
    for (size_t i = 0; i < STATS_KDE_POINTS; i++) {
        cell(a, sizeof a, k->x_grid[i], 12);
        cell(b, sizeof b, k->q05[i], 12);
        cell(c, sizeof c, k->q50[i], 12);
        cell(d, sizeof d, k->q95[i], 12);
        printf("  %s %s %s %s\n", a, b, c, d);
    }
}

static void print_rf(const struct assoc_result *r)
{
    const struct stats_rf *f = r->rf;
    char a[32], b[32];

    if (f == NULL)
        return;
    cell(a, sizeof a, f->reason == REASON_NONE ? f->oob_r2 : (double)NAN, 0);
    printf("random forest (%zu trees, seed %llu): OOB R^2 %s", f->trees,
           (unsigned long long)f->seed, a);
    if (f->reason != REASON_NONE) {
        printf(" (%s)\n", stats_reason_name(f->reason));
        return;
    }
    putchar('\n');
    for (size_t i = 0; i < r->rf_n_kde; i++) {
        cell(a, sizeof a, r->kde->x_grid[i], 12);
        cell(b, sizeof b, r->rf_at_kde[i], 12);
        printf("  %s %s\n", a, b);
    }
}

static void print_table(const struct assoc_result *r)
{
    size_t excluded = 0;

    for (int e = EXCL_NONE + 1; e < EXCL_COUNT; e++)
        excluded += r->excluded[e];
    printf("y = %s, x = %s, d = %zu (dropped: %zu), space %s\n", r->y, r->x, r->coefs.d,
           excluded, stats_kde_space_name(r->space));
    if (r->signif != NULL) {
        printf("  %-17s %10s %9s %11s  %s (%zu permutations, %zu resamples, seed "
               "%llu)\n",
               "", "value", "p", "noise floor", "95% CI", r->n_perm, r->n_boot,
               (unsigned long long)r->signif->seed);
    }
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_coef *v = analysis_coef_of(&r->coefs, (enum coef_id)c);
        if (v->reason == REASON_NOT_COMPUTED)
            continue;
        print_coef(
            analysis_coefs[c].name,
            analysis_coef_defined(&r->coefs, (enum coef_id)c) ? v->value : (double)NAN,
            v->reason,
            r->signif != NULL ? analysis_coef_signif(r->signif, (enum coef_id)c) : NULL,
            analysis_coefs[c].ci);
    }
    print_kde(r);
    print_rf(r);
}

/* --permutations, --resamples: 0 .. STATS_SIGNIF_B_MAX. */
static bool parse_b(const char *s, size_t *out)
{
    char *end;

    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > STATS_SIGNIF_B_MAX)
        return false;
    *out = (size_t)v;
    return true;
}

static bool one_of(const char *s, const char *a, const char *b, const char *c)
{
    return strcmp(s, a) == 0 || strcmp(s, b) == 0 || (c != NULL && strcmp(s, c) == 0);
}

int cmd_assoc(struct app_config *cfg, int argc, char **argv)
{
    const char *input = NULL, *xcol = NULL, *ycol = NULL;
    const struct analysis_settings settings = app_analysis_settings(cfg);
    struct assoc_opts opts = assoc_opts_default(&settings);
    opts.rf = true; /* the default --methods is all */
    bool json = false;
    char *end;
    struct columns c = {0};
    struct error err = {0};
    const struct app_option rows[] = {
        {"input", OPT_TEXT, &input, 0, 0, NULL, 0},
        {"x", OPT_TEXT, &xcol, 0, 0, NULL, 0},
        {"y", OPT_TEXT, &ycol, 0, 0, NULL, 0},
        {"methods", OPT_OWN, NULL, 0, 0, NULL, 'm'},
        {"space", OPT_OWN, NULL, 0, 0, NULL, 's'},
        {"kernel", OPT_OWN, NULL, 0, 0, NULL, 'K'},
        {"bandwidth", OPT_OWN, NULL, 0, 0, NULL, 'W'},
        {"density", OPT_FLAG, &opts.density, 0, 0, NULL, 0},
        {"significance", OPT_FLAG, &opts.significance, 0, 0, NULL, 0},
        {"permutations", OPT_OWN, NULL, 0, 0, NULL, 'B'},
        {"resamples", OPT_OWN, NULL, 0, 0, NULL, 'R'},
        {"seed", OPT_OWN, NULL, 0, 0, NULL, 'S'},
        {"mi-jitter", OPT_OWN, NULL, 0, 0, NULL, 'J'},
        {"json", OPT_FLAG, &json, 0, 0, NULL, 0},
        {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    int c_opt, code = EXIT_OK;

    app_options_init(&p, "assoc", rows, cmd_assoc_help, argc, argv);
    while ((c_opt = app_options_next(&p)) != 0) {
        const char *arg = p.arg;
        switch (c_opt) {
        case 'm': {
            enum status mrc = parse_methods(arg, &opts.methods, &opts.kde, &opts.rf);
            if (mrc == STATUS_NOT_FOUND) {
                fprintf(stderr, "iocontend assoc: --methods '%s': not in this build\n",
                        arg);
                return EXIT_USAGE;
            }
            if (mrc != STATUS_OK) {
                fprintf(stderr,
                        "iocontend assoc: --methods takes a comma-separated list of "
                        "pearson, spearman, dcor, mi, kde, rf, all; got '%s'\n",
                        arg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'J':
            if (!one_of(arg, "0", "1", NULL)) {
                fprintf(stderr, "iocontend assoc: --mi-jitter takes 0 or 1, got '%s'\n",
                        arg);
                return EXIT_USAGE;
            }
            opts.mi_jitter = arg[0] == '1';
            break;
        case 's': {
            enum stats_kde_space space;
            if (analysis_space_parse(arg, &space, NULL) != STATUS_OK) {
                fprintf(stderr, "iocontend assoc: --space takes auto, log or linear\n");
                return EXIT_USAGE;
            }
            opts.space = arg;
            break;
        }
        case 'K':
            if (!one_of(arg, "product", "full", NULL)) {
                fprintf(stderr, "iocontend assoc: --kernel takes product or full\n");
                return EXIT_USAGE;
            }
            opts.kernel_full = strcmp(arg, "full") == 0;
            break;
        case 'W':
            if (!one_of(arg, "normal", "plugin", NULL)) {
                fprintf(stderr, "iocontend assoc: --bandwidth takes normal or plugin\n");
                return EXIT_USAGE;
            }
            opts.bw_plugin = strcmp(arg, "plugin") == 0;
            break;
        case 'B':
        case 'R':
            if (!parse_b(arg, c_opt == 'B' ? &opts.n_perm : &opts.n_boot)) {
                fprintf(stderr, "iocontend assoc: --%s takes 0 to %u, got '%s'\n",
                        c_opt == 'B' ? "permutations" : "resamples", STATS_SIGNIF_B_MAX,
                        arg);
                return EXIT_USAGE;
            }
            opts.significance = true;
            break;
        case 'S':
            errno = 0;
            cfg->seed = strtoul(arg, &end, 10);
            if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-') {
                fprintf(
                    stderr,
                    "iocontend assoc: --seed takes a non-negative integer, got '%s'\n",
                    arg);
                return EXIT_USAGE;
            }
            opts.seed = cfg->seed;
            break;
        default: break;
        }
    }
    if (p.status >= 0)
        return p.status;
    if (input == NULL || xcol == NULL || ycol == NULL) {
        fprintf(stderr, "iocontend assoc: --input, --x and --y are required\n");
        cmd_assoc_help(stderr);
        return EXIT_USAGE;
    }
    if (opts.bw_plugin && opts.kernel_full) {
        fprintf(stderr, "iocontend assoc: --bandwidth plugin needs --kernel product\n");
        return EXIT_USAGE;
    }
    struct assoc_result *r = assoc_result_new(ASSOC_COLUMNS);
    enum status rc = r == NULL ? error_set(&err, STATUS_NOMEM, "association result")
                               : assoc_result_name(r, NULL, ycol, xcol, NULL, &err);
    if (rc == STATUS_OK)
        rc = read_columns(input, xcol, ycol, strcmp(opts.space, "log") == 0, &c, &err);
    if (rc == STATUS_OK && r != NULL) {
        r->excluded[EXCL_NONFINITE] = c.nonfinite;
        r->excluded[EXCL_NONPOSITIVE_IN_LOG_SPACE] = c.nonpositive;
        r->seed = opts.seed;
        rc = analysis_assoc_compute(c.x, c.y, c.d, &opts, r, &err);
    }
    if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("assoc: %s", msg);
        code = exit_code_of(rc);
        goto out;
    }
    if (json) {
        char *text = analysis_assoc_text(r);
        if (text == NULL) {
            log_error("assoc: no memory for the JSON");
            code = exit_code_of(STATUS_NOMEM);
            goto out;
        }
        printf("%s\n", text);
        free(text);
    } else {
        print_table(r);
    }
    if (c.nonfinite + c.nonpositive > 0)
        code = EXIT_PARTIAL;
out:
    assoc_result_free(r);
    free(c.x);
    free(c.y);
    return code;
}
