/* main.c: the iocontend command line: global options, then one command. */
#include "internal.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend [--config PATH] [--db CONNINFO] [--quiet] [--log-level LEVEL]\n"
        "                 COMMAND [ARGS]\n"
        "\n"
        "Measures how job I/O time depends on system-wide I/O: joins Darshan job logs\n"
        "with the storage servers' iostat samples, per application group.\n"
        "\n"
        "commands:\n"
        "  db init|start|stop|status|migrate   the database (embedded cluster by "
        "default)\n"
        "  ingest darshan [--json] PATH...     load darshan-parser text logs\n"
        "  ingest iostat --fs NAME [--server HOST] [--json] PATH...\n"
        "                                      load iostat / sadf samples of a file "
        "system\n"
        "  analyze [--group G] [--granularity S]\n"
        "                                      compute and store the associations\n"
        "  assoc --input FILE --x COL --y COL [--methods LIST] [--json]\n"
        "                                      association of two CSV columns, no "
        "database\n"
        "  export jobs [--granularity S] [--group G] [--format csv|json] [--out FILE]\n"
        "                                      every job metric, one row per job\n"
        "  report sweep --group G [--y M --x M] --out FILE [--format html|csv|json]\n"
        "                                      the admins' report of the stored sweeps\n"
        "  serve [--listen ADDR:PORT]          the HTTP JSON API and the dashboard\n"
        "  demo [--check]                      sample data -> ingest -> analyze -> "
        "serve\n"
        "  config show                         the effective configuration\n"
        "\n"
        "options:\n"
        "  --config PATH       INI file (default /etc/iocontend/iocontend.conf if "
        "present)\n"
        "  --db CONNINFO       a configured PostgreSQL server (else IOCONTEND_DB, PG*,\n"
        "                      or the embedded cluster under $IOCONTEND_STATE_DIR, "
        "./var)\n"
        "  --quiet             errors only\n"
        "  --log-level L       error|warn|info|debug (default info); logs go to stderr\n"
        "  --version, --help\n"
        "\n"
        "exit status: 0 success; 1 finished but inputs were quarantined or jobs "
        "excluded;\n"
        "64 usage; 66 input missing; 69 database unavailable; 70 internal error;\n"
        "73 cannot create the state directory.\n"
        "Each command takes --help.\n");
}

int exit_code_of(enum status s)
{
    switch (s) {
    case STATUS_OK: return EXIT_OK;
    case STATUS_INVALID:
    case STATUS_PARSE: return EXIT_USAGE;
    case STATUS_NOT_FOUND: return EXIT_NOINPUT;
    case STATUS_DB: return EXIT_UNAVAILABLE;
    case STATUS_NOMEM:
    case STATUS_INTERNAL: return EXIT_SOFTWARE;
    }
    return EXIT_SOFTWARE;
}

enum status app_db_open(const struct app_config *cfg, struct db **out, struct error *err)
{
    struct db_target t;
    enum status rc;
    int applied = 0;

    *out = NULL;
    rc = db_target_resolve(cfg->db_arg, &t, err);
    if (rc != STATUS_OK)
        return rc;
    if (t.embedded) {
        rc = db_cluster_start(&t, err);
        if (rc != STATUS_OK)
            return rc == STATUS_INVALID ? STATUS_INVALID : STATUS_DB;
    }
    rc = db_open(&t, out, err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_migrate(*out, &applied, err);
    if (rc != STATUS_OK) {
        db_close(*out);
        *out = NULL;
    }
    return rc;
}

static int cmd_help(const char *cmd)
{
    fprintf(stderr, "iocontend: unknown command '%s'\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    struct app_config cfg;
    struct error err = {0};
    const char *config_path = NULL;
    const char *db_arg = NULL;
    const char *level = NULL;
    bool quiet = false;
    int i = 1;
    int rc;

    gsl_set_error_handler_off();
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--version") == 0) {
            printf("iocontend %s\n", IOCONTEND_VERSION);
            return EXIT_OK;
        }
        if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if ((strcmp(a, "--config") == 0 || strcmp(a, "--db") == 0 ||
                    strcmp(a, "--log-level") == 0) &&
                   i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(a, "--config") == 0) {
                config_path = v;
            } else if (strcmp(a, "--db") == 0) {
                db_arg = v;
            } else {
                level = v;
            }
        } else {
            fprintf(stderr, "iocontend: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (quiet)
        log_set_level(LOG_ERROR);
    if (level != NULL) {
        enum log_level l;
        if (log_level_parse(level, &l) != STATUS_OK) {
            fprintf(stderr,
                    "iocontend: --log-level takes error|warn|info|debug, got '%s'\n",
                    level);
            return EXIT_USAGE;
        }
        log_set_level(l);
    }
    if (app_config_load(&cfg, config_path, &err) != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("configuration: %s", msg);
        app_config_clear(&cfg);
        return err.code == STATUS_NOT_FOUND ? EXIT_NOINPUT : EXIT_USAGE;
    }
    cfg.quiet = quiet;
    if (db_arg != NULL)
        snprintf(cfg.db_arg, sizeof cfg.db_arg, "%s", db_arg);

    const char *cmd = argv[i];
    int sub_argc = argc - i;
    char **sub_argv = argv + i;
    if (strcmp(cmd, "db") == 0) {
        rc = cmd_db(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "ingest") == 0) {
        rc = cmd_ingest(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "analyze") == 0) {
        rc = cmd_analyze(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "serve") == 0) {
        rc = cmd_serve(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "demo") == 0) {
        rc = cmd_demo(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "assoc") == 0) {
        rc = cmd_assoc(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "export") == 0) {
        rc = cmd_export(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "report") == 0) {
        rc = cmd_report(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "config") == 0) {
        rc = cmd_config(&cfg, sub_argc, sub_argv);
    } else if (strcmp(cmd, "help") == 0) {
        usage(stdout);
        rc = EXIT_OK;
    } else {
        rc = cmd_help(cmd);
    }
    app_config_clear(&cfg);
    return rc;
}
