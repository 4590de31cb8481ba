/* pgfixture.h: a throwaway PostgreSQL for integration tests: an embedded cluster
 * under $TMPDIR, or a throwaway database on a configured server (PG* variables or
 * IOCONTEND_DB), removed at the end. Never ./var. */
#ifndef IOCONTEND_PGFIXTURE_H
#define IOCONTEND_PGFIXTURE_H

#include <stdbool.h>

struct pgfixture {
    char state_dir[256]; /* the throwaway state directory (also for embedded data) */
    bool configured;     /* a configured server: dbname is ours to drop */
    char dbname[64];
    char bin[512]; /* the iocontend binary under test */
};

/* Makes the database and exports what iocontend needs to find it. 0 on success. */
int pgfixture_start(struct pgfixture *f);
/* Stops / drops it and removes the state directory. */
void pgfixture_stop(struct pgfixture *f);
/* Runs "iocontend ARGS" (quoted by the caller) and returns its stdout (malloc'd);
 * *rc is its exit status. */
char *pgfixture_run(const struct pgfixture *f, const char *args, int *rc);

#endif
