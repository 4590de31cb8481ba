/* cmd_export.c: `iocontend export jobs`: every job metric, one row per job. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_export_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend export jobs [--granularity S] [--group G]\n"
        "                             [--scope all|touched|fs:NAME]\n"
        "                             [--format csv|json] [--out FILE]\n"
        "Every job metric of the method (t_j, t_um, ..., psi_d_read, ..., tau, the\n"
        "DXT trace's t_x, ..., b_x, and the servers' queue q_d, u_d, await_d), one row\n"
        "per job, columns named as in the method. A metric a job has no value for (a\n"
        "hole in the samples, no I/O, no trace, no queue columns in the samples) is\n"
        "empty in CSV and null in JSON; the excluded_* columns say why. nu_*, b_d and\n"
        "b_x below zero are kept and listed in 'negative'.\n"
        "--scope: the server series summed over all monitored file systems (default),\n"
        "those each job read or wrote (touched), or one; 'scope_fs' lists them.\n"
        "--group G: the jobs of one group, by its id or its name (a name several\n"
        "groups share carries ' #' and 8 digits of the id).\n"
        "Default: CSV on stdout at the base sampling interval, every job.\n"
        "exit: 0 written; 64 usage, or a name several groups share (listed); 66 no\n"
        "such group; 69 database unavailable; 73 FILE cannot be written.\n");
}

int cmd_export(struct app_config *cfg, int argc, char **argv)
{
    const char *group = NULL, *scope = "all", *out_path = NULL;
    double granularity = 0;
    bool json = false;
    const struct app_option opts[] = {{"granularity", OPT_OWN, NULL, 0, 0, NULL, 'k'},
                                      {"group", OPT_TEXT, &group, 0, 0, NULL, 0},
                                      {"scope", OPT_TEXT, &scope, 0, 0, NULL, 0},
                                      {"format", OPT_OWN, NULL, 0, 0, NULL, 'f'},
                                      {"out", OPT_TEXT, &out_path, 0, 0, NULL, 0},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct db *db = NULL;
    struct error err = {0};
    int c;

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        cmd_export_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "jobs") != 0) {
        fprintf(stderr, "iocontend export: expected 'jobs', got '%s'\n", argv[1]);
        return EXIT_USAGE;
    }
    app_options_init(&p, "export", opts, cmd_export_help, argc - 1, argv + 1);
    while ((c = app_options_next(&p)) != 0) {
        const char *arg = p.arg;
        switch (c) {
        case 'k': {
            char *end;
            granularity = strtod(arg, &end);
            if (*end != '\0' || !(granularity > 0) || !isfinite(granularity)) {
                fprintf(stderr, "iocontend export: --granularity takes seconds > 0\n");
                return EXIT_USAGE;
            }
            break;
        }
        case 'f':
            if (strcmp(arg, "json") != 0 && strcmp(arg, "csv") != 0) {
                fprintf(stderr, "iocontend export: --format takes csv or json\n");
                return EXIT_USAGE;
            }
            json = strcmp(arg, "json") == 0;
            break;
        default: break;
        }
    }
    if (p.status >= 0)
        return p.status;
    int code = app_db_open(cfg, &db);
    if (code != EXIT_OK)
        return code;
    struct db_group g;
    if (group != NULL) {
        /* before --out is made: an unknown group leaves no empty file */
        code = app_group_arg(db, "export", group, &g);
        if (code != EXIT_OK) {
            db_close(db);
            return code;
        }
    }
    const struct analysis_settings settings = app_analysis_settings(cfg);
    enum status rc;
    FILE *fp = stdout;
    if (out_path != NULL) {
        fp = fopen(out_path, "w");
        if (fp == NULL) {
            log_error("%s: %s", out_path, strerror(errno));
            db_close(db);
            return EXIT_CANTCREAT;
        }
    }
    rc = analysis_export_jobs(db, &settings, group != NULL ? g.id : NULL, granularity,
                              scope, json, fp, &err);
    if (fp != stdout && fclose(fp) != 0 && rc == STATUS_OK)
        rc = error_set(&err, STATUS_INTERNAL, "%s: %s", out_path, strerror(errno));
    db_close(db);
    return rc == STATUS_OK ? EXIT_OK : app_fail("export", rc, &err);
}
