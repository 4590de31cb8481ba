/* pgfixture.c: a throwaway PostgreSQL for the integration tests. */
#include "pgfixture.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool configured_server(void)
{
    static const char *const vars[] = {"IOCONTEND_DB", "PGHOST",     "PGHOSTADDR",
                                       "PGPORT",       "PGDATABASE", "PGSERVICE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && v[0] != '\0')
            return true;
    }
    return false;
}

int pgfixture_start(struct pgfixture *f)
{
    const char *tmp = getenv("TMPDIR");
    const char *bin = getenv("IOCONTEND_BIN");
    char cmd[1024];
    int rc;

    memset(f, 0, sizeof *f);
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(f->bin, sizeof f->bin, "%s",
             bin != NULL && bin[0] != '\0' ? bin : "build/iocontend");
    snprintf(f->state_dir, sizeof f->state_dir, "%s/iocontend-test-XXXXXX", tmp);
    if (mkdtemp(f->state_dir) == NULL)
        return -1;
    /* mkdtemp makes it 0700; as root the cluster runs as postgres, who must enter. */
    if (chmod(f->state_dir, 0755) != 0)
        return -1;
    setenv("IOCONTEND_STATE_DIR", f->state_dir, 1);
    if (configured_server()) {
        /* Use the configured server as it is, in a database of our own. */
        f->configured = true;
        snprintf(f->dbname, sizeof f->dbname, "iocontend_test_%ld", (long)getpid());
        snprintf(cmd, sizeof cmd, "psql -v ON_ERROR_STOP=1 -qc 'CREATE DATABASE %s' >&2",
                 f->dbname);
        if (system(cmd) != 0)
            return -1;
        setenv("PGDATABASE", f->dbname, 1);
        unsetenv("IOCONTEND_DB");
        return 0;
    }
    snprintf(cmd, sizeof cmd, "'%s' --quiet db start >&2", f->bin);
    rc = system(cmd);
    return rc == 0 ? 0 : -1;
}

void pgfixture_stop(struct pgfixture *f)
{
    char cmd[1024];

    if (f->configured) {
        snprintf(cmd, sizeof cmd, "psql -qc 'DROP DATABASE IF EXISTS %s' postgres >&2",
                 f->dbname);
        if (system(cmd) != 0)
            fprintf(stderr, "pgfixture: could not drop %s\n", f->dbname);
    } else if (f->state_dir[0] != '\0') {
        snprintf(cmd, sizeof cmd, "'%s' --quiet db stop >&2", f->bin);
        if (system(cmd) != 0)
            fprintf(stderr, "pgfixture: db stop failed\n");
    }
    if (f->state_dir[0] != '\0') {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->state_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "pgfixture: could not remove %s\n", f->state_dir);
    }
}

char *pgfixture_run(const struct pgfixture *f, const char *args, int *rc)
{
    char cmd[8192];

    snprintf(cmd, sizeof cmd, "'%s' %s", f->bin, args);
    return testutil_run(cmd, rc);
}
