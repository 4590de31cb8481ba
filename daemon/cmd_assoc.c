/* cmd_assoc.c: `iocontend assoc`: the association of two CSV columns, no database. */
#include "internal.h"

#include "../stats/stats.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assoc_usage(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend assoc --input FILE --x COL --y COL [--methods LIST]\n"
        "                       [--space log|linear] [--seed N] [--mi-jitter 0|1]\n"
        "                       [--json]\n"
        "The association of column y with column x of a CSV file with a header line\n"
        "(METHOD.md §5), without a database. Rows whose x or y is empty or not a finite\n"
        "number are dropped and counted (and, with --space log, rows with a value <= "
        "0).\n"
        "  --methods LIST  comma-separated from pearson,spearman,dcor,mi (default: all)\n"
        "  --space S       log: drop rows with a value <= 0 (the KDE's fitting space)\n"
        "  --seed N        seed of the seeded methods (default 20240601 or the config)\n"
        "  --mi-jitter B   0 switches off KSG's tie-breaking jitter (default 1)\n"
        "  --json          print the association object of INTERFACES.md\n"
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

static enum status parse_methods(const char *list, unsigned *out)
{
    char buf[256];
    char *save = NULL;

    *out = 0;
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
        } else if (strcmp(tok, "all") == 0) {
            *out |= stats_methods_available();
        } else {
            return STATUS_INVALID;
        }
    }
    if ((*out & ~stats_methods_available()) != 0)
        return STATUS_NOT_FOUND;
    return *out != 0 ? STATUS_OK : STATUS_INVALID;
}

static void print_table(json_t *o)
{
    static const char *const names[] = {"pearson", "spearman",    "dcor_v",
                                        "dcor2_u", "mi_ksg_nats", "mi_linfoot"};

    printf("y = %s, x = %s, d = %lld (dropped: %lld)\n",
           json_string_value(json_object_get(o, "y")),
           json_string_value(json_object_get(o, "x")),
           (long long)json_integer_value(json_object_get(o, "d")),
           (long long)json_integer_value(
               json_object_get(json_object_get(o, "excluded"), "total")));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        json_t *v = json_object_get(o, names[i]);
        if (v == NULL)
            continue;
        if (json_is_number(v)) {
            printf("  %-12s %10.6f\n", names[i], json_number_value(v));
        } else {
            json_t *why = json_object_get(json_object_get(o, "reasons"), names[i]);
            printf("  %-12s %10s (%s)\n", names[i], "null",
                   why != NULL ? json_string_value(why) : "undefined");
        }
    }
}

int cmd_assoc(struct app_config *cfg, int argc, char **argv)
{
    static const struct option longopts[] = {{"input", required_argument, NULL, 'i'},
                                             {"x", required_argument, NULL, 'x'},
                                             {"y", required_argument, NULL, 'y'},
                                             {"methods", required_argument, NULL, 'm'},
                                             {"space", required_argument, NULL, 's'},
                                             {"seed", required_argument, NULL, 'S'},
                                             {"mi-jitter", required_argument, NULL, 'J'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *input = NULL, *xcol = NULL, *ycol = NULL, *space = NULL;
    unsigned methods = stats_methods_available();
    bool json = false, mi_jitter = true;
    char *end;
    struct columns c = {0};
    struct error err = {0};
    struct stats_ws *ws = NULL;
    struct stats_assoc a;
    int c_opt, code = EXIT_OK;

    optind = 1;
    while ((c_opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c_opt) {
        case 'i': input = optarg; break;
        case 'x': xcol = optarg; break;
        case 'y': ycol = optarg; break;
        case 'm': {
            enum status mrc = parse_methods(optarg, &methods);
            if (mrc == STATUS_NOT_FOUND) {
                fprintf(stderr, "iocontend assoc: --methods '%s': not in this build\n",
                        optarg);
                return EXIT_USAGE;
            }
            if (mrc != STATUS_OK) {
                fprintf(stderr,
                        "iocontend assoc: --methods takes a comma-separated list of "
                        "pearson, spearman, dcor, mi, all; got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'J':
            if (strcmp(optarg, "0") != 0 && strcmp(optarg, "1") != 0) {
                fprintf(stderr, "iocontend assoc: --mi-jitter takes 0 or 1, got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            mi_jitter = optarg[0] == '1';
            break;
        case 's':
            if (strcmp(optarg, "log") != 0 && strcmp(optarg, "linear") != 0) {
                fprintf(stderr, "iocontend assoc: --space takes log or linear\n");
                return EXIT_USAGE;
            }
            space = optarg;
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
            break;
        case 'j': json = true; break;
        case 'h': assoc_usage(stdout); return EXIT_OK;
        default: assoc_usage(stderr); return EXIT_USAGE;
        }
    }
    if (input == NULL || xcol == NULL || ycol == NULL) {
        fprintf(stderr, "iocontend assoc: --input, --x and --y are required\n");
        assoc_usage(stderr);
        return EXIT_USAGE;
    }
    bool log_space = space != NULL && strcmp(space, "log") == 0;
    enum status rc = read_columns(input, xcol, ycol, log_space, &c, &err);
    if (rc == STATUS_OK) {
        ws = stats_ws_new(c.d > 0 ? c.d : 1);
        rc = ws == NULL
                 ? error_set(&err, STATUS_NOMEM, "stats workspace")
                 : stats_assoc_compute(c.x, c.y, c.d,
                                       &(struct stats_assoc_opts){methods, cfg->d_min,
                                                                  cfg->seed, mi_jitter},
                                       ws, &a, &err);
    }
    if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("assoc: %s", msg);
        code = exit_code_of(rc);
        goto out;
    }
    json_t *o = json_object();
    json_object_set_new(o, "y", json_string(ycol));
    json_object_set_new(o, "x", json_string(xcol));
    json_object_set_new(o, "granularity_s", json_null());
    json_object_set_new(o, "scope", json_null());
    json_t *ex = json_object();
    json_object_set_new(
        ex, "total", json_integer((json_int_t)c.nonfinite + (json_int_t)c.nonpositive));
    json_object_set_new(ex, "nonfinite", json_integer((json_int_t)c.nonfinite));
    json_object_set_new(ex, "nonpositive_in_log_space",
                        json_integer((json_int_t)c.nonpositive));
    json_object_set_new(o, "excluded", ex);
    assoc_fill_json(o, c.x, c.y, &a);
    if (space != NULL)
        json_object_set_new(o, "space", json_string(space));
    json_object_set_new(o, "seed", json_integer((json_int_t)cfg->seed));
    if (json) {
        char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (text != NULL)
            printf("%s\n", text);
        free(text);
    } else {
        print_table(o);
    }
    json_decref(o);
    if (c.nonfinite + c.nonpositive > 0)
        code = EXIT_PARTIAL;
out:
    stats_ws_free(ws);
    free(c.x);
    free(c.y);
    return code;
}
