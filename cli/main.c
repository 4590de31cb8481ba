/* main.c: the iocontend command line: global options, then one command of the
 * command table. */
#include "internal.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every command: the one place that knows them, for the dispatch and --help. */
static const struct command commands[] = {
    {"db",
     cmd_db,
     cmd_db_help,
     {{"db init|start|stop|status|migrate",
       "the database (embedded server by default)"}}},
    {"ingest",
     cmd_ingest,
     cmd_ingest_help,
     {{"ingest darshan [--json] PATH...", "load Darshan logs, binary or text, DXT"},
      {"ingest iostat --fs NAME [--server HOST] [--json] PATH...",
       "load iostat / sadf samples of a file system"}}},
    {"quarantine",
     cmd_quarantine,
     cmd_quarantine_help,
     {{"quarantine list [--json]", "the files ingest could not load"},
      {"quarantine retry|forget PATH...|--all",
       "parse them again at the next ingest / drop them"}}},
    {"unload",
     cmd_unload,
     cmd_unload_help,
     {{"unload --run ID | --path PATH [--dry-run]",
       "remove what one ingest run or one file loaded"}}},
    {"darshan",
     cmd_darshan,
     cmd_darshan_help,
     {{"darshan dump [--show-incomplete] LOG",
       "a binary Darshan log as darshan-parser prints it"}}},
    {"analyze",
     cmd_analyze,
     cmd_analyze_help,
     {{"analyze [--group G] [--granularity S]", "compute and store the associations"}}},
    {"assoc",
     cmd_assoc,
     cmd_assoc_help,
     {{"assoc --input FILE --x COL --y COL [--methods LIST] [--json]",
       "association of two CSV columns, no database"}}},
    {"export",
     cmd_export,
     cmd_export_help,
     {{"export jobs [--granularity S] [--group G] [--format csv|json] [--out FILE]",
       "every job metric, one row per job"}}},
    {"slowdowns",
     cmd_slowdowns,
     cmd_slowdowns_help,
     {{"slowdowns [--from T] [--to T] [--limit N] [--json]",
       "who got hurt: jobs ranked by y / q50(x) of their group"}}},
    {"report",
     cmd_report,
     cmd_report_help,
     {{"report sweep --group G [--y M --x M] --out FILE [--format html|csv|json]",
       "the admins' report of the stored sweeps"},
      {"report night [--from T] [--to T] --out FILE [--format html|json|csv]",
       "the morning's report: ingest, groups, slowdowns, coverage"}}},
    {"serve",
     cmd_serve,
     cmd_serve_help,
     {{"serve [--listen ADDR:PORT]", "the HTTP JSON API and the dashboard"}}},
    {"demo",
     cmd_demo,
     cmd_demo_help,
     {{"demo [--check] [--listen ADDR:PORT]",
       "sample data -> ingest -> analyze -> serve"}}},
    {"config",
     cmd_config,
     cmd_config_help,
     {{"config show", "the effective configuration"}}},
    {"version",
     cmd_version,
     cmd_version_help,
     {{"version", "its version and the schema version it expects"}}},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* A synopsis and its summary: side by side when the synopsis leaves room, else the
 * summary under it, both at column 38. */
static void usage_line(FILE *fp, const char *synopsis, const char *summary)
{
    enum { COLUMN = 36 };

    if (strlen(synopsis) < COLUMN) {
        fprintf(fp, "  %-*s%s\n", COLUMN, synopsis, summary);
    } else {
        fprintf(fp, "  %s\n  %-*s%s\n", synopsis, COLUMN, "", summary);
    }
}

static void usage(FILE *fp)
{
    fputs("usage: iocontend [--config PATH] [--db CONNINFO] [--state-dir DIR] [--quiet]\n"
          "                 [--log-level LEVEL] COMMAND [ARGS]\n"
          "\n"
          "Measures how job I/O time depends on system-wide I/O: joins Darshan job logs\n"
          "with the storage servers' iostat samples, per application group.\n"
          "\n"
          "commands:\n",
          fp);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        for (size_t l = 0; l < 2 && commands[i].lines[l].synopsis != NULL; l++)
            usage_line(fp, commands[i].lines[l].synopsis, commands[i].lines[l].summary);
    }
    /* clang-format off */
    fputs("\n"
          "options:\n"
          "  --config PATH       INI file (default /etc/iocontend/iocontend.conf if present)\n"
          "  --db CONNINFO       a configured PostgreSQL server (else IOCONTEND_DB, PG*,\n"
          "                      or the embedded server under the state directory)\n"
          "  --state-dir DIR     the embedded server's state directory (else\n"
          "                      $IOCONTEND_STATE_DIR, [database] state_dir, then\n"
          "                      /var/lib/iocontend as root, else\n"
          "                      ${XDG_STATE_HOME:-~/.local/state}/iocontend)\n"
          "  --quiet             errors only\n"
          "  --log-level L       error|warn|info|debug (default info); logs go to stderr\n"
          "  --version, --help\n"
          "\n"
          "exit status: 0 success; 1 finished but inputs were quarantined or jobs excluded;\n"
          "64 usage; 65 an input unreadable as its format (darshan dump); 66 input\n"
          "missing; 69 database unavailable; 70 internal error; 71 out of memory; 73\n"
          "cannot create or use the state directory; 74 I/O error (a full disk); 75\n"
          "another run holds the lock (--no-wait).\n"
          "Each command takes --help.\n",
          fp);
    /* clang-format on */
}

static const struct command *command_find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

/* --help or -h anywhere among a command's words (before a "--"): its help, and
 * nothing else happens, whatever the other words say. */
static bool help_asked(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    }
    return false;
}

/* The first of the global options among a command's words (before a "--"), as
 * typed ("--state-dir" of "--state-dir=X" too), or NULL. No command has an option
 * of these names, and getopt's "unrecognized option" says nothing of where they
 * belong, so they are refused with the place to put them (docs/interfaces.md: global
 * options come before the command). */
static const char *global_after_command(int argc, char **argv, size_t *len)
{
    static const char *const globals[] = {"--config", "--db",        "--state-dir",
                                          "--quiet",  "--log-level", "--version"};

    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        for (size_t g = 0; g < sizeof globals / sizeof globals[0]; g++) {
            size_t n = strlen(globals[g]);
            if (strncmp(argv[i], globals[g], n) == 0 &&
                (argv[i][n] == '\0' || argv[i][n] == '=')) {
                *len = n;
                return argv[i];
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct app_config cfg;
    struct error err = {0};
    const char *config_path = NULL;
    const char *db_arg = NULL;
    const char *state_dir = NULL;
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
            app_version_print(stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if ((strcmp(a, "--config") == 0 || strcmp(a, "--db") == 0 ||
                    strcmp(a, "--log-level") == 0 || strcmp(a, "--state-dir") == 0) &&
                   i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(a, "--config") == 0) {
                config_path = v;
            } else if (strcmp(a, "--db") == 0) {
                db_arg = v;
            } else if (strcmp(a, "--state-dir") == 0) {
                state_dir = v;
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
    const char *name = argv[i];
    const struct command *cmd = command_find(name);
    if (strcmp(name, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (cmd == NULL) {
        fprintf(stderr, "iocontend: unknown command '%s'\n", name);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (help_asked(argc - i, argv + i)) {
        cmd->help(stdout);
        return EXIT_OK;
    }
    size_t global_len = 0;
    const char *global = global_after_command(argc - i, argv + i, &global_len);
    if (global != NULL) {
        fprintf(stderr,
                "iocontend: %.*s is a global option: put it before the command "
                "(iocontend %.*s ... %s ...)\n",
                (int)global_len, global, (int)global_len, global, name);
        return EXIT_USAGE;
    }
    /* No configuration is read: a broken one still lets the version be told. */
    if (strcmp(name, "version") == 0)
        return cmd_version(NULL, argc - i, argv + i);
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
    enum status loaded = app_config_load(&cfg, config_path, &err);
    if (loaded != STATUS_OK) {
        app_config_clear(&cfg);
        return app_fail("configuration", loaded, &err);
    }
    cfg.quiet = quiet;
    if (db_arg != NULL)
        snprintf(cfg.db_arg, sizeof cfg.db_arg, "%s", db_arg);
    if (state_dir != NULL) {
        if (state_dir[0] == '\0' || strlen(state_dir) >= sizeof cfg.state_dir_arg) {
            fprintf(stderr,
                    "iocontend: --state-dir takes a directory of at most %zu "
                    "bytes\n",
                    sizeof cfg.state_dir_arg - 1);
            app_config_clear(&cfg);
            return EXIT_USAGE;
        }
        snprintf(cfg.state_dir_arg, sizeof cfg.state_dir_arg, "%s", state_dir);
    }
    rc = cmd->run(&cfg, argc - i, argv + i);
    app_config_clear(&cfg);
    return rc;
}
