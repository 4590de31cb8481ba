/* pgfixture.h: a throwaway PostgreSQL for integration tests: an embedded cluster
 * under $TMPDIR, or a throwaway database on a configured server (PG* variables or
 * IOCONTEND_DB), removed at the end. Never the default state directory. */
#ifndef IOCONTEND_PGFIXTURE_H
#define IOCONTEND_PGFIXTURE_H

#include "../../common/common.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>

struct pgfixture {
    char state_dir[256]; /* the throwaway state directory (also for embedded data) */
    bool configured;     /* a configured server: dbname is ours to drop */
    char dbname[64];     /* that database, "" when embedded */
    char admin_conninfo[1024]; /* the caller's IOCONTEND_DB, "" when unset */
    char saved_state_dir[512]; /* the caller's IOCONTEND_STATE_DIR, "" when unset */
    char bin[512];             /* the iocontend binary under test ($IOCONTEND_BIN) */
};

/* Whether the tests run on a configured server (IOCONTEND_DB or a PG* variable set)
 * rather than an embedded cluster of their own. */
bool pgfixture_configured(void);
/* Makes the database and exports what iocontend needs to find it
 * (IOCONTEND_STATE_DIR, and IOCONTEND_DB for a configured server). Several fixtures
 * may follow one another in one process, each started after the last one stopped.
 * 0 on success. */
int pgfixture_start(struct pgfixture *f);
/* Stops / drops it, removes the state directory and restores the environment. */
void pgfixture_stop(struct pgfixture *f);
/* Runs "iocontend ARGS" (quoted by the caller) and returns its stdout (malloc'd);
 * *rc is its exit status. */
char *pgfixture_run(const struct pgfixture *f, const char *args, int *rc);
/* Runs "iocontend ARGS" with stderr joined to stdout and returns its exit status (-1
 * when it could not run); the output goes to stderr when the status is not 0. */
int pgfixture_cmd(const struct pgfixture *f, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* A libpq conninfo of the fixture's database (IOCONTEND_DB for a configured server,
 * else the embedded cluster's socket that `db status` names). 0 on success. */
int pgfixture_conninfo(const struct pgfixture *f, char *out, size_t size);
/* Restores a gzip'd plain pg_dump (gz_path) into it with the server's psql
 * (`pg_config --bindir`: Debian keeps it off PATH), stopping at the first error.
 * 0 on success; the output goes to stderr otherwise. */
int pgfixture_restore_gz(const struct pgfixture *f, const char *gz_path);
/* A connection to it (PQfinish it), NULL (said on stderr) when it fails. */
PGconn *pgfixture_connect(const struct pgfixture *f);
/* The first column of the first row of sql (a command: ""), as new text: "" for no
 * row, "(null)" for SQL NULL; NULL (said on stderr) when sql fails. */
char *pgfixture_value(PGconn *c, const char *sql);
/* pgfixture_value of sql with one parameter (param; NULL: none) on a connection of
 * its own. */
char *pgfixture_query(const struct pgfixture *f, const char *sql, const char *param);

#endif
