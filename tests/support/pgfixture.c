/* pgfixture.c: a throwaway PostgreSQL for the integration tests. */
#include "pgfixture.h"
#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool pgfixture_configured(void)
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

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0';
}

/* s in single quotes for sh, each ' written as '\''. */
static void shell_quote(const char *s, char *out, size_t size)
{
    size_t o = 0;

    if (size < 3) {
        if (size > 0)
            out[0] = '\0';
        return;
    }
    out[o++] = '\'';
    for (; *s != '\0' && o + 6 < size; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
}

/* Runs cmd (stderr joined); prints its output when it fails. Returns its status. */
static int run_loud(const char *cmd)
{
    int rc = -1;
    char *out = testutil_run(cmd, &rc);

    if (out != NULL && rc != 0)
        fprintf(stderr, "pgfixture: `%s` exited %d:\n%s\n", cmd, rc, out);
    free(out);
    return out == NULL ? -1 : rc;
}

/* One SQL statement on the configured server, connected as the caller configured it:
 * IOCONTEND_DB when it was set, else libpq's PG* variables (the maintenance database
 * postgres when they name none). */
static int psql(const struct pgfixture *f, const char *sql)
{
    char cmd[3200], target[2100] = "";

    if (f->admin_conninfo[0] != '\0') {
        char quoted[2060];
        shell_quote(f->admin_conninfo, quoted, sizeof quoted);
        snprintf(target, sizeof target, "-d %s", quoted);
    } else if (!env_set("PGDATABASE") && !env_set("PGSERVICE")) {
        snprintf(target, sizeof target, "-d postgres");
    }
    snprintf(cmd, sizeof cmd, "psql -X -q -v ON_ERROR_STOP=1 %s -c '%s' 2>&1", target,
             sql);
    return run_loud(cmd);
}

/* A new database on the configured server, and IOCONTEND_DB pointing at it. */
static int database_create(struct pgfixture *f)
{
    static unsigned serial;
    char sql[160], conninfo[1200];

    snprintf(f->dbname, sizeof f->dbname, "iocontend_test_%ld_%u", (long)getpid(),
             serial++);
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", f->dbname);
    psql(f, sql);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", f->dbname);
    if (psql(f, sql) != 0)
        return -1;
    /* Keyword/value conninfo: a later dbname wins. URI: a query parameter does. */
    if (f->admin_conninfo[0] == '\0') {
        snprintf(conninfo, sizeof conninfo, "dbname=%s", f->dbname);
    } else if (strncmp(f->admin_conninfo, "postgres", 8) == 0) {
        snprintf(conninfo, sizeof conninfo, "%s%cdbname=%s", f->admin_conninfo,
                 strchr(f->admin_conninfo, '?') != NULL ? '&' : '?', f->dbname);
    } else {
        snprintf(conninfo, sizeof conninfo, "%s dbname=%s", f->admin_conninfo, f->dbname);
    }
    return setenv("IOCONTEND_DB", conninfo, 1);
}

int pgfixture_start(struct pgfixture *f)
{
    const char *tmp = getenv("TMPDIR");
    const char *bin = getenv("IOCONTEND_BIN");
    const char *db = getenv("IOCONTEND_DB");
    const char *state = getenv("IOCONTEND_STATE_DIR");

    memset(f, 0, sizeof *f);
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(f->bin, sizeof f->bin, "%s",
             bin != NULL && bin[0] != '\0' ? bin : "build/iocontend");
    snprintf(f->admin_conninfo, sizeof f->admin_conninfo, "%s", db != NULL ? db : "");
    snprintf(f->saved_state_dir, sizeof f->saved_state_dir, "%s",
             state != NULL ? state : "");
    snprintf(f->state_dir, sizeof f->state_dir, "%s/iocontend-test-XXXXXX", tmp);
    if (mkdtemp(f->state_dir) == NULL) {
        f->state_dir[0] = '\0';
        return -1;
    }
    /* mkdtemp makes it 0700; as root the server runs as postgres, who must enter.
     * The server is made as every embedded one is (sql/embedded.c): socket in
     * STATE/run, peer authentication, logs 0600. */
    if (chmod(f->state_dir, 0755) != 0)
        return -1;
    setenv("IOCONTEND_STATE_DIR", f->state_dir, 1);
    if (pgfixture_configured()) {
        /* Use the configured server as it is, in a database of our own. */
        f->configured = true;
        if (database_create(f) != 0)
            return -1;
        return pgfixture_cmd(f, "--quiet db migrate") == 0 ? 0 : -1;
    }
    return pgfixture_cmd(f, "--quiet db start") == 0 ? 0 : -1;
}

void pgfixture_stop(struct pgfixture *f)
{
    char cmd[1024], sql[160];

    if (f->bin[0] == '\0')
        return; /* never started */
    if (f->configured && f->dbname[0] != '\0') {
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", f->dbname);
        if (psql(f, sql) != 0)
            fprintf(stderr, "pgfixture: could not drop %s\n", f->dbname);
    } else if (!f->configured && f->state_dir[0] != '\0') {
        if (pgfixture_cmd(f, "--quiet db stop") != 0)
            fprintf(stderr, "pgfixture: db stop failed\n");
    }
    if (f->state_dir[0] != '\0') {
        snprintf(cmd, sizeof cmd, "rm -rf '%s' 2>&1", f->state_dir);
        run_loud(cmd);
    }
    if (f->admin_conninfo[0] != '\0') {
        setenv("IOCONTEND_DB", f->admin_conninfo, 1);
    } else if (f->configured) {
        unsetenv("IOCONTEND_DB");
    }
    if (f->saved_state_dir[0] != '\0') {
        setenv("IOCONTEND_STATE_DIR", f->saved_state_dir, 1);
    } else {
        unsetenv("IOCONTEND_STATE_DIR");
    }
    memset(f, 0, sizeof *f);
}

char *pgfixture_run(const struct pgfixture *f, const char *args, int *rc)
{
    char cmd[8192];

    snprintf(cmd, sizeof cmd, "'%s' %s", f->bin, args);
    return testutil_run(cmd, rc);
}

int pgfixture_cmd(const struct pgfixture *f, const char *fmt, ...)
{
    char args[6144], cmd[8192];
    va_list ap;

    va_start(ap, fmt);
    /* clang-analyzer loses track of va_start here (a false positive). */
    vsnprintf(args, sizeof args, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", f->bin, args);
    return run_loud(cmd);
}

int pgfixture_conninfo(const struct pgfixture *f, char *out, size_t size)
{
    int rc = -1;

    if (f->configured) {
        const char *db = getenv("IOCONTEND_DB");
        snprintf(out, size, "%s", db != NULL ? db : "");
        return db != NULL ? 0 : -1;
    }
    char *status = pgfixture_run(f, "db status 2>/dev/null", &rc);
    const char *at = status != NULL ? strstr(status, "socket directory: ") : NULL;
    if (at == NULL || rc != 0) {
        fprintf(stderr, "pgfixture: no socket in `db status` (exit %d): %s\n", rc,
                status != NULL ? status : "");
        free(status);
        return -1;
    }
    at += strlen("socket directory: ");
    snprintf(out, size, "host=%.*s port=5432 dbname=iocontend user=postgres",
             (int)strcspn(at, "\n"), at);
    free(status);
    return 0;
}

PGconn *pgfixture_connect(const struct pgfixture *f)
{
    char ci[1200];

    if (pgfixture_conninfo(f, ci, sizeof ci) != 0)
        return NULL;
    PGconn *c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pgfixture: connect: %s", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

char *pgfixture_value(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    char *out = NULL;

    if (st == PGRES_TUPLES_OK) {
        out = strdup(PQntuples(r) == 0      ? ""
                     : PQgetisnull(r, 0, 0) ? "(null)"
                                            : PQgetvalue(r, 0, 0));
    } else if (st == PGRES_COMMAND_OK) {
        out = strdup("");
    } else {
        fprintf(stderr, "pgfixture: %s in: %.300s\n", PQerrorMessage(c), sql);
    }
    PQclear(r);
    return out;
}

char *pgfixture_query(const struct pgfixture *f, const char *sql, const char *param)
{
    PGconn *c = pgfixture_connect(f);
    char *out = NULL;

    if (c == NULL)
        return NULL;
    PGresult *r =
        PQexecParams(c, sql, param != NULL ? 1 : 0, NULL, &param, NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        out = strdup(PQntuples(r) == 0      ? ""
                     : PQgetisnull(r, 0, 0) ? "(null)"
                                            : PQgetvalue(r, 0, 0));
    } else {
        fprintf(stderr, "pgfixture: %s in: %.300s\n", PQerrorMessage(c), sql);
    }
    PQclear(r);
    PQfinish(c);
    return out;
}

int pgfixture_restore_gz(const struct pgfixture *f, const char *gz_path)
{
    char ci[1200], cmd[4200];
    int rc = -1;

    if (pgfixture_conninfo(f, ci, sizeof ci) != 0)
        return -1;
    snprintf(cmd, sizeof cmd,
             "gzip -dc '%s' | \"$(pg_config --bindir)/psql\" -X -q -v ON_ERROR_STOP=1 "
             "-o /dev/null -d '%s' 2>&1",
             gz_path, ci);
    char *out = testutil_run(cmd, &rc);
    if (out == NULL || rc != 0)
        fprintf(stderr, "restore of %s exited %d:\n%s\n", gz_path, rc,
                out != NULL ? out : "");
    free(out);
    return out != NULL && rc == 0 ? 0 : -1;
}
