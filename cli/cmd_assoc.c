/* cmd_assoc.c: `iocontend assoc`: the association of two CSV columns, no database. */
#include "internal.h"

#include <errno.h>
#include <getopt.h>
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
        "(METHOD.md §5), without a database. Rows whose x or y is empty or not a finite\n"
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
        "  --json            print the association object of INTERFACES.md\n"
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

/* A number of the object as text of width w, "null" when it is not one. */
static void cell(char *out, size_t size, const json_t *v, int w)
{
    if (json_is_number(v)) {
        snprintf(out, size, "%*.6g", w, json_number_value(v));
    } else {
        snprintf(out, size, "%*s", w, "null");
    }
}

/* One coefficient's line: value, and with significance its p-value, noise floor
 * and CI. */
static void print_coef(const json_t *o, const char *name, const json_t *value)
{
    const json_t *sig = json_object_get(json_object_get(o, "significance"), name);
    char v[32], p[32], f[32], lo[32], hi[32];

    if (value == NULL)
        return;
    cell(v, sizeof v, value, 10);
    printf("  %-17s %s", name, v);
    if (sig != NULL) {
        cell(p, sizeof p, json_object_get(sig, "p_value"), 9);
        cell(f, sizeof f, json_object_get(sig, "noise_floor"), 11);
        printf(" %s %s", p, f);
        if (json_object_get(sig, "ci_low") != NULL) {
            cell(lo, sizeof lo, json_object_get(sig, "ci_low"), 0);
            cell(hi, sizeof hi, json_object_get(sig, "ci_high"), 0);
            printf("  [%s, %s]", lo, hi);
        }
    }
    const json_t *why = json_object_get(json_object_get(o, "reasons"), name);
    if (!json_is_number(value)) {
        if (why == NULL && sig != NULL)
            why = json_object_get(sig, "reason");
        printf(" (%s)", why != NULL ? json_string_value(why) : "undefined");
    }
    putchar('\n');
}

static void print_kde(const json_t *o)
{
    const json_t *k = json_object_get(o, "kde");
    char a[32], b[32], c[32], d[32];

    if (k == NULL)
        return;
    printf("KDE (%s space, %s kernel%s%s)",
           json_string_value(json_object_get(k, "space")),
           json_string_value(json_object_get(k, "kernel")),
           strcmp(json_string_value(json_object_get(k, "bandwidth")), "plugin") == 0
               ? ", plug-in bandwidth"
               : "",
           json_is_true(json_object_get(k, "binned")) ? ", binned" : "");
    if (json_object_get(k, "reason") != NULL) {
        printf(": null (%s)\n", json_string_value(json_object_get(k, "reason")));
        return;
    }
    cell(a, sizeof a, json_object_get(k, "hx"), 0);
    cell(b, sizeof b, json_object_get(k, "hy"), 0);
    printf(": hx %s, hy %s (fitting space)\n", a, b);
    cell(a, sizeof a, json_object_get(k, "mean"), 0);
    cell(b, sizeof b, json_object_get(k, "sd"), 0);
    cell(c, sizeof c, json_object_get(k, "band_low"), 0);
    cell(d, sizeof d, json_object_get(k, "band_high"), 0);
    printf("  y mean %s, sd %s, mean -/+ 1.645 sd [%s, %s]\n", a, b, c, d);
    cell(a, sizeof a, json_object_get(k, "marg_q05"), 0);
    cell(b, sizeof b, json_object_get(k, "marg_q95"), 0);
    printf("  marginal q05 %s, q95 %s\n", a, b);
    print_coef(o, "width_ratio", json_object_get(k, "width_ratio"));
    print_coef(o, "paper_width_ratio", json_object_get(k, "paper_width_ratio"));
    printf("  %12s %12s %12s %12s\n", "x", "q05", "q50", "q95");
    for (size_t i = 0; i < json_array_size(json_object_get(k, "x_grid")); i++) {
        cell(a, sizeof a, json_array_get(json_object_get(k, "x_grid"), i), 12);
        cell(b, sizeof b, json_array_get(json_object_get(k, "q05"), i), 12);
        cell(c, sizeof c, json_array_get(json_object_get(k, "q50"), i), 12);
        cell(d, sizeof d, json_array_get(json_object_get(k, "q95"), i), 12);
        printf("  %s %s %s %s\n", a, b, c, d);
    }
}

static void print_rf(const json_t *o)
{
    const json_t *f = json_object_get(o, "rf");
    char a[32];

    if (f == NULL)
        return;
    cell(a, sizeof a, json_object_get(f, "oob_r2"), 0);
    printf("random forest (%lld trees, seed %lld): OOB R^2 %s",
           (long long)json_integer_value(json_object_get(f, "trees")),
           (long long)json_integer_value(json_object_get(f, "seed")), a);
    if (json_object_get(f, "reason") != NULL) {
        printf(" (%s)\n", json_string_value(json_object_get(f, "reason")));
        return;
    }
    putchar('\n');
    const json_t *at = json_object_get(f, "fit_at_kde_x");
    const json_t *xs = json_object_get(json_object_get(o, "kde"), "x_grid");
    for (size_t i = 0; i < json_array_size(at); i++) {
        char b[32];
        cell(a, sizeof a, json_array_get(xs, i), 12);
        cell(b, sizeof b, json_array_get(at, i), 12);
        printf("  %s %s\n", a, b);
    }
}

static void print_table(const json_t *o)
{
    static const char *const names[] = {"pearson", "spearman",    "dcor_v",
                                        "dcor2_u", "mi_ksg_nats", "mi_linfoot"};
    const json_t *sig = json_object_get(o, "significance");

    printf("y = %s, x = %s, d = %lld (dropped: %lld), space %s\n",
           json_string_value(json_object_get(o, "y")),
           json_string_value(json_object_get(o, "x")),
           (long long)json_integer_value(json_object_get(o, "d")),
           (long long)json_integer_value(
               json_object_get(json_object_get(o, "excluded"), "total")),
           json_string_value(json_object_get(o, "space")));
    if (sig != NULL) {
        printf("  %-17s %10s %9s %11s  %s (%lld permutations, %lld resamples, seed "
               "%lld)\n",
               "", "value", "p", "noise floor", "95% CI",
               (long long)json_integer_value(json_object_get(sig, "permutations")),
               (long long)json_integer_value(json_object_get(sig, "resamples")),
               (long long)json_integer_value(json_object_get(sig, "seed")));
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        print_coef(o, names[i], json_object_get(o, names[i]));
    print_kde(o);
    print_rf(o);
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
    static const struct option longopts[] = {
        {"input", required_argument, NULL, 'i'},
        {"x", required_argument, NULL, 'x'},
        {"y", required_argument, NULL, 'y'},
        {"methods", required_argument, NULL, 'm'},
        {"space", required_argument, NULL, 's'},
        {"kernel", required_argument, NULL, 'K'},
        {"bandwidth", required_argument, NULL, 'W'},
        {"density", no_argument, NULL, 'D'},
        {"significance", no_argument, NULL, 'P'},
        {"permutations", required_argument, NULL, 'B'},
        {"resamples", required_argument, NULL, 'R'},
        {"seed", required_argument, NULL, 'S'},
        {"mi-jitter", required_argument, NULL, 'J'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *input = NULL, *xcol = NULL, *ycol = NULL;
    const struct analysis_settings settings = app_analysis_settings(cfg);
    struct assoc_opts opts = assoc_opts_default(&settings);
    opts.rf = true; /* the default --methods is all */
    bool json = false;
    char *end;
    struct columns c = {0};
    struct error err = {0};
    int c_opt, code = EXIT_OK;

    optind = 1;
    while ((c_opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c_opt) {
        case 'i': input = optarg; break;
        case 'x': xcol = optarg; break;
        case 'y': ycol = optarg; break;
        case 'm': {
            enum status mrc = parse_methods(optarg, &opts.methods, &opts.kde, &opts.rf);
            if (mrc == STATUS_NOT_FOUND) {
                fprintf(stderr, "iocontend assoc: --methods '%s': not in this build\n",
                        optarg);
                return EXIT_USAGE;
            }
            if (mrc != STATUS_OK) {
                fprintf(stderr,
                        "iocontend assoc: --methods takes a comma-separated list of "
                        "pearson, spearman, dcor, mi, kde, rf, all; got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'J':
            if (!one_of(optarg, "0", "1", NULL)) {
                fprintf(stderr, "iocontend assoc: --mi-jitter takes 0 or 1, got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            opts.mi_jitter = optarg[0] == '1';
            break;
        case 's': {
            enum stats_kde_space space;
            if (analysis_space_parse(optarg, &space, NULL) != STATUS_OK) {
                fprintf(stderr, "iocontend assoc: --space takes auto, log or linear\n");
                return EXIT_USAGE;
            }
            opts.space = optarg;
            break;
        }
        case 'K':
            if (!one_of(optarg, "product", "full", NULL)) {
                fprintf(stderr, "iocontend assoc: --kernel takes product or full\n");
                return EXIT_USAGE;
            }
            opts.kernel_full = strcmp(optarg, "full") == 0;
            break;
        case 'W':
            if (!one_of(optarg, "normal", "plugin", NULL)) {
                fprintf(stderr, "iocontend assoc: --bandwidth takes normal or plugin\n");
                return EXIT_USAGE;
            }
            opts.bw_plugin = strcmp(optarg, "plugin") == 0;
            break;
        case 'D': opts.density = true; break;
        case 'P': opts.significance = true; break;
        case 'B':
        case 'R':
            if (!parse_b(optarg, c_opt == 'B' ? &opts.n_perm : &opts.n_boot)) {
                fprintf(stderr, "iocontend assoc: --%s takes 0 to %u, got '%s'\n",
                        c_opt == 'B' ? "permutations" : "resamples", STATS_SIGNIF_B_MAX,
                        optarg);
                return EXIT_USAGE;
            }
            opts.significance = true;
            break;
        case 'S':
            errno = 0;
            cfg->seed = strtoul(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || optarg[0] == '-') {
                fprintf(
                    stderr,
                    "iocontend assoc: --seed takes a non-negative integer, got '%s'\n",
                    optarg);
                return EXIT_USAGE;
            }
            opts.seed = cfg->seed;
            break;
        case 'j': json = true; break;
        case 'h': cmd_assoc_help(stdout); return EXIT_OK;
        default: cmd_assoc_help(stderr); return EXIT_USAGE;
        }
    }
    if (input == NULL || xcol == NULL || ycol == NULL) {
        fprintf(stderr, "iocontend assoc: --input, --x and --y are required\n");
        cmd_assoc_help(stderr);
        return EXIT_USAGE;
    }
    if (opts.bw_plugin && opts.kernel_full) {
        fprintf(stderr, "iocontend assoc: --bandwidth plugin needs --kernel product\n");
        return EXIT_USAGE;
    }
    json_t *o = json_object();
    json_object_set_new(o, "y", json_string(ycol));
    json_object_set_new(o, "x", json_string(xcol));
    json_object_set_new(o, "granularity_s", json_null());
    json_object_set_new(o, "scope", json_null());
    enum status rc =
        read_columns(input, xcol, ycol, strcmp(opts.space, "log") == 0, &c, &err);
    if (rc == STATUS_OK) {
        json_t *ex = json_object();
        json_object_set_new(
            ex, "total",
            json_integer((json_int_t)c.nonfinite + (json_int_t)c.nonpositive));
        json_object_set_new(ex, "nonfinite", json_integer((json_int_t)c.nonfinite));
        json_object_set_new(ex, "nonpositive_in_log_space",
                            json_integer((json_int_t)c.nonpositive));
        json_object_set_new(o, "excluded", ex);
        rc = assoc_object_fill(o, c.x, c.y, c.d, &opts, &err);
    }
    if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("assoc: %s", msg);
        code = exit_code_of(rc);
        goto out;
    }
    json_object_set_new(o, "seed", json_integer((json_int_t)opts.seed));
    if (json) {
        char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (text != NULL)
            printf("%s\n", text);
        free(text);
    } else {
        print_table(o);
    }
    if (c.nonfinite + c.nonpositive > 0)
        code = EXIT_PARTIAL;
out:
    json_decref(o);
    free(c.x);
    free(c.y);
    return code;
}
