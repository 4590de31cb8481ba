/* cmd_db.c: `iocontend db init|start|stop|status|migrate|rebuild-series` and
 * `config show`. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

void cmd_db_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend db init|start|stop|status|migrate|rebuild-series\n"
        "  init     create the embedded server (in the state directory: --state-dir,\n"
        "           $IOCONTEND_STATE_DIR, [database] state_dir, or the default)\n"
        "  start    start it (creating it when needed; clears a stale postmaster.pid)\n"
        "  stop     stop it\n"
        "  status   which database is in use and why, and whether it answers\n"
        "  migrate  apply the schema migrations (re-running is a no-op) and set up\n"
        "           the read-only role serve connects as (" DB_READER_ROLE ")\n"
        "  rebuild-series\n"
        "           recompute the stored system-wide series of every day from the raw\n"
        "           samples, with the configuration's sample_offset_s and granularity_s\n"
        "           (needed after changing either)\n");
}

static int report(enum status rc, const struct error *err)
{
    char msg[400];

    if (rc == STATUS_OK)
        return EXIT_OK;
    error_format(err, msg, sizeof msg);
    log_error("%s", msg);
    return exit_code_of_error(rc, err);
}

static int db_status(const struct app_config *cfg, const struct db_target *t)
{
    struct db *db = NULL;
    struct error err = {0};
    int version = 0;

    printf("database: %s\n", t->embedded ? "embedded" : "configured");
    printf("reason: %s\n", t->reason);
    if (t->embedded) {
        printf("state directory: %s (%s)\n", t->state_dir, t->state_why);
        printf("data directory: %s\n", t->data_dir);
        printf("socket directory: %s\n",
               t->socket_dir[0] != '\0' ? t->socket_dir : "(made at the first start)");
        if (!db_embedded_running(t)) {
            printf("server: not running (start it with 'iocontend db start')\n");
            return EXIT_UNAVAILABLE;
        }
    }
    (void)cfg;
    if (db_open(t, &db, &err) != STATUS_OK) {
        printf("server: unreachable: %s\n", err.msg);
        return EXIT_UNAVAILABLE;
    }
    if (db_schema_version(db, &version, &err) != STATUS_OK) {
        printf("server: reachable, schema unknown: %s\n", err.msg);
        db_close(db);
        return EXIT_UNAVAILABLE;
    }
    printf("server: reachable\nschema version: %d (this binary knows %d)\n", version,
           db_schema_latest());
    db_close(db);
    return EXIT_OK;
}

int cmd_db(struct app_config *cfg, int argc, char **argv)
{
    struct db_target t;
    struct error err = {0};
    enum status rc;

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        cmd_db_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const struct db_state_opts state = app_state_opts(cfg);
    rc = db_target_resolve(cfg->db_arg, &state, &t, &err);
    if (rc != STATUS_OK)
        return report(rc, &err);
    const char *what = argv[1];
    if (strcmp(what, "status") == 0)
        return db_status(cfg, &t);
    if (strcmp(what, "init") == 0 || strcmp(what, "start") == 0 ||
        strcmp(what, "stop") == 0) {
        if (!t.embedded) {
            log_info("%s: the configured server is used as it is; nothing to %s",
                     t.reason, what);
            return EXIT_OK;
        }
        if (strcmp(what, "init") == 0) {
            rc = db_embedded_init(&t, &err);
        } else if (strcmp(what, "start") == 0) {
            rc = db_embedded_start(&t, &err);
        } else {
            rc = db_embedded_stop(&t, &err);
        }
        return report(rc, &err);
    }
    if (strcmp(what, "migrate") == 0) {
        struct db *db = NULL;
        int applied = 0;
        if (t.embedded)
            rc = db_embedded_start(&t, &err);
        if (rc == STATUS_OK)
            rc = db_open(&t, &db, &err);
        if (rc == STATUS_OK)
            rc = db_migrate(db, &applied, &err);
        if (rc == STATUS_OK) {
            printf("migrations applied: %d; schema version %d\n", applied,
                   db_schema_latest());
        }
        db_close(db);
        return report(rc, &err);
    }
    if (strcmp(what, "rebuild-series") == 0) {
        struct db *db = NULL;
        int code = app_db_open(cfg, &db);
        if (code == EXIT_OK)
            code = app_run_lock(db, "ingest", false);
        if (code == EXIT_OK)
            code = app_series_refresh(cfg, db, true);
        db_close(db);
        return code;
    }
    fprintf(stderr, "iocontend db: unknown action '%s'\n", what);
    cmd_db_help(stderr);
    return EXIT_USAGE;
}

void app_version_print(FILE *fp)
{
    fprintf(fp, "iocontend %s\nschema version %d\n", IOCONTEND_VERSION,
            db_schema_latest());
}

void cmd_version_help(FILE *fp)
{
    fputs("usage: iocontend version\n"
          "The program's version (IOCONTEND_VERSION of common/common.h) and the\n"
          "schema version it migrates a database to (db status: the database's).\n",
          fp);
}

int cmd_version(struct app_config *cfg, int argc, char **argv)
{
    (void)cfg;
    (void)argv;
    if (argc != 1) {
        cmd_version_help(stderr);
        return EXIT_USAGE;
    }
    app_version_print(stdout);
    return EXIT_OK;
}

void cmd_config_help(FILE *fp)
{
    fputs("usage: iocontend config show\n", fp);
}

int cmd_config(struct app_config *cfg, int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "show") == 0) {
        app_config_print(cfg, stdout);
        return EXIT_OK;
    }
    cmd_config_help(stderr);
    return EXIT_USAGE;
}
