/* cluster.c: which database to use, the embedded cluster's life, and db_connect. */
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EMBEDDED_PORT   5432
#define EMBEDDED_DBNAME "iocontend"
#define EMBEDDED_USER   "postgres"

static const char *const pg_env_vars[] = {"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE",
                                          "PGSERVICE"};

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0';
}

/* The socket directory must stay far below the 107-byte sun_path limit whatever the
 * state directory's length, so it is named by a hash of the state directory. */
static void socket_dir_for(const char *state_dir, char *out, size_t size)
{
    struct hash128 h;
    char hex[33];
    const char *tmp = getenv("TMPDIR");

    if (tmp == NULL || tmp[0] == '\0' || strlen(tmp) > 40)
        tmp = "/tmp";
    hash128_init(&h);
    hash128_update(&h, state_dir, strlen(state_dir));
    hash128_hex(&h, hex);
    hex[12] = '\0';
    snprintf(out, size, "%s/iocontend-%s", tmp, hex);
}

enum status db_target_resolve(const char *db_arg, struct db_target *out,
                              struct error *err)
{
    const char *state = getenv("IOCONTEND_STATE_DIR");
    const char *env_db = getenv("IOCONTEND_DB");
    char abs_state[PATH_MAX];

    memset(out, 0, sizeof *out);
    if (db_arg != NULL && db_arg[0] != '\0') {
        snprintf(out->conninfo, sizeof out->conninfo, "%s", db_arg);
        snprintf(out->reason, sizeof out->reason, "configured: --db given");
        return STATUS_OK;
    }
    if (env_db != NULL && env_db[0] != '\0') {
        snprintf(out->conninfo, sizeof out->conninfo, "%s", env_db);
        snprintf(out->reason, sizeof out->reason, "configured: IOCONTEND_DB is set");
        return STATUS_OK;
    }
    for (size_t i = 0; i < sizeof pg_env_vars / sizeof pg_env_vars[0]; i++) {
        if (env_set(pg_env_vars[i])) {
            out->conninfo[0] = '\0'; /* libpq reads the PG* variables itself */
            snprintf(out->reason, sizeof out->reason, "configured: %s is set",
                     pg_env_vars[i]);
            return STATUS_OK;
        }
    }
    out->embedded = true;
    if (state == NULL || state[0] == '\0')
        state = "./var";
    if (state[0] == '/') {
        snprintf(abs_state, sizeof abs_state, "%s", state);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL)
            return error_set(err, STATUS_INTERNAL, "getcwd: %s", strerror(errno));
        /* "./var" → "<cwd>/var": keep the name tidy for messages. */
        const char *rel = strncmp(state, "./", 2) == 0 ? state + 2 : state;
        if (snprintf(abs_state, sizeof abs_state, "%s/%s", cwd, rel) >=
            (int)sizeof abs_state)
            return error_set(err, STATUS_INVALID, "state directory path is too long");
    }
    if (strlen(abs_state) + 4 >= sizeof out->state_dir) {
        return error_set(err, STATUS_INVALID, "state directory path is too long: %s",
                         abs_state);
    }
    /* Lengths checked above; memcpy keeps -Wformat-truncation quiet at -O1. */
    size_t len = strlen(abs_state);
    memcpy(out->state_dir, abs_state, len + 1);
    memcpy(out->data_dir, abs_state, len);
    memcpy(out->data_dir + len, "/pg", 4);
    socket_dir_for(abs_state, out->socket_dir, sizeof out->socket_dir);
    snprintf(out->conninfo, sizeof out->conninfo, "host=%s port=%d dbname=%s user=%s",
             out->socket_dir, EMBEDDED_PORT, EMBEDDED_DBNAME, EMBEDDED_USER);
    snprintf(out->reason, sizeof out->reason,
             "embedded: no --db, IOCONTEND_DB or PG* variable is set");
    return STATUS_OK;
}

/* An argument vector with its own storage: exec wants char *const[], and string
 * literals are const here. */
struct argv_buf {
    char store[12][720];
    char *ptr[13];
    size_t n;
};

static void argv_add(struct argv_buf *a, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void argv_add(struct argv_buf *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (a->n < 12) {
        vsnprintf(a->store[a->n], sizeof a->store[a->n], fmt, ap);
        a->ptr[a->n] = a->store[a->n];
        a->n++;
        a->ptr[a->n] = NULL;
    }
    va_end(ap);
}

/* Runs the command (as the postgres user when we are root: PostgreSQL refuses
 * root), with output to log_path when given. Returns the exit status, -1 when it
 * could not run. */
static int run_as_owner(const struct argv_buf *cmd, const char *log_path)
{
    struct argv_buf full = {.n = 0};
    pid_t pid;
    int status;

    if (geteuid() == 0) {
        argv_add(&full, "runuser");
        argv_add(&full, "-u");
        argv_add(&full, EMBEDDED_USER);
        argv_add(&full, "--");
    }
    for (size_t i = 0; i < cmd->n; i++)
        argv_add(&full, "%s", cmd->store[i]);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (log_path != NULL) {
            /* The child's descriptors 1 and 2 to the log: the server's output. */
            int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
            if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
                _exit(127);
        }
        if (full.n > 0)
            execvp(full.store[0], full.ptr);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* PostgreSQL's server binaries are not on PATH in Debian: ask pg_config (run
 * directly, no shell). */
static enum status pg_bindir(char *out, size_t size, struct error *err)
{
    int fds[2];
    char line[PATH_MAX] = "";
    pid_t pid;
    int status = 0;

    if (pipe(fds) != 0)
        return error_set(err, STATUS_INTERNAL, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(127);
        execlp("pg_config", "pg_config", "--bindir", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    ssize_t got = pid > 0 ? read(fds[0], line, sizeof line - 1) : -1;
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return error_set(err, STATUS_NOT_FOUND,
                         "pg_config not found: install postgresql-15 and libpq-dev");
    }
    line[got] = '\0';
    line[strcspn(line, "\n")] = '\0';
    snprintf(out, size, "%s", line);
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/initdb", out);
    if (access(probe, X_OK) != 0) {
        return error_set(err, STATUS_NOT_FOUND,
                         "%s/initdb not found: install the postgresql-15 server package",
                         out);
    }
    return STATUS_OK;
}

/* As root the cluster belongs to postgres, who must be able to reach the state
 * directory: every ancestor must be searchable by others. */
static enum status prepare_dirs(const struct db_target *t, struct error *err)
{
    bool root = geteuid() == 0;
    struct passwd *pw = NULL;

    if (root) {
        pw = getpwnam(EMBEDDED_USER);
        if (pw == NULL) {
            return error_set(err, STATUS_NOT_FOUND,
                             "no '%s' user: install the postgresql-15 package",
                             EMBEDDED_USER);
        }
    }
    if (mkdir(t->state_dir, 0755) != 0 && errno != EEXIST) {
        return error_set(err, STATUS_INVALID, "cannot create state directory %s: %s",
                         t->state_dir, strerror(errno));
    }
    if (mkdir(t->socket_dir, 0700) != 0 && errno != EEXIST) {
        return error_set(err, STATUS_INVALID, "cannot create socket directory %s: %s",
                         t->socket_dir, strerror(errno));
    }
    if (root) {
        if (chown(t->socket_dir, pw->pw_uid, pw->pw_gid) != 0) {
            return error_set(err, STATUS_INVALID, "cannot give %s to %s: %s",
                             t->socket_dir, EMBEDDED_USER, strerror(errno));
        }
        if (mkdir(t->data_dir, 0700) != 0 && errno != EEXIST) {
            return error_set(err, STATUS_INVALID, "cannot create %s: %s", t->data_dir,
                             strerror(errno));
        }
        if (chown(t->data_dir, pw->pw_uid, pw->pw_gid) != 0) {
            return error_set(err, STATUS_INVALID, "cannot give %s to %s: %s", t->data_dir,
                             EMBEDDED_USER, strerror(errno));
        }
        struct argv_buf probe = {.n = 0};
        argv_add(&probe, "/bin/sh");
        argv_add(&probe, "-c");
        argv_add(&probe, "test -x '%s' && test -w '%s'", t->state_dir, t->data_dir);
        if (run_as_owner(&probe, NULL) != 0) {
            return error_set(
                err, STATUS_INVALID,
                "the postgres user cannot reach %s: make every parent directory "
                "searchable (chmod o+x) or set IOCONTEND_STATE_DIR to a directory "
                "under /tmp or /var/lib",
                t->state_dir);
        }
    }
    return STATUS_OK;
}

/* pg_ctl ACTION --wait --pgdata=DIR; the action's own options follow. */
static void pg_ctl_args(struct argv_buf *cmd, const char *bindir, const char *action,
                        const struct db_target *t)
{
    argv_add(cmd, "%s/pg_ctl", bindir);
    argv_add(cmd, "%s", action);
    argv_add(cmd, "--wait");
    argv_add(cmd, "--pgdata=%s", t->data_dir);
}

/* Runs a pg_ctl command as the cluster's owner, its output in state_dir/pg_ctl.log. */
static int run_pg_ctl(const struct argv_buf *cmd, const struct db_target *t)
{
    char ctl_log[700];

    snprintf(ctl_log, sizeof ctl_log, "%s/pg_ctl.log", t->state_dir);
    return run_as_owner(cmd, ctl_log);
}

static bool cluster_exists(const struct db_target *t)
{
    char path[700];
    snprintf(path, sizeof path, "%s/PG_VERSION", t->data_dir);
    return access(path, F_OK) == 0;
}

enum status db_cluster_init(const struct db_target *t, struct error *err)
{
    char bindir[PATH_MAX], log_path[700];
    enum status rc;

    if (!t->embedded) {
        return error_set(err, STATUS_INVALID,
                         "a configured database is not managed here (%s)", t->reason);
    }
    rc = prepare_dirs(t, err);
    if (rc != STATUS_OK)
        return rc;
    if (cluster_exists(t))
        return STATUS_OK;
    rc = pg_bindir(bindir, sizeof bindir, err);
    if (rc != STATUS_OK)
        return rc;
    snprintf(log_path, sizeof log_path, "%s/initdb.log", t->state_dir);
    struct argv_buf cmd = {.n = 0};
    argv_add(&cmd, "%s/initdb", bindir);
    argv_add(&cmd, "--pgdata=%s", t->data_dir);
    argv_add(&cmd, "--username=%s", EMBEDDED_USER);
    argv_add(&cmd, "--auth=trust");
    argv_add(&cmd, "--encoding=UTF8");
    argv_add(&cmd, "--locale=C.UTF-8");
    argv_add(&cmd, "--no-instructions");
    /* The log is opened by the child before runuser drops to postgres. */
    if (run_as_owner(&cmd, log_path) != 0)
        return error_set(err, STATUS_DB, "initdb failed: see %s", log_path);
    log_info("created the embedded cluster in %s", t->data_dir);
    return STATUS_OK;
}

bool db_cluster_running(const struct db_target *t)
{
    PGconn *c;
    char conninfo[400];
    bool ok;

    snprintf(conninfo, sizeof conninfo,
             "host=%s port=%d dbname=postgres user=%s connect_timeout=2", t->socket_dir,
             EMBEDDED_PORT, EMBEDDED_USER);
    c = PQconnectdb(conninfo);
    ok = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    return ok;
}

static enum status ensure_database(const struct db_target *t, struct error *err)
{
    char conninfo[400];
    PGconn *c;
    PGresult *r;
    enum status rc = STATUS_OK;

    snprintf(conninfo, sizeof conninfo, "host=%s port=%d dbname=postgres user=%s",
             t->socket_dir, EMBEDDED_PORT, EMBEDDED_USER);
    c = PQconnectdb(conninfo);
    if (PQstatus(c) != CONNECTION_OK) {
        rc = error_set(err, STATUS_DB, "embedded server: %s", PQerrorMessage(c));
        PQfinish(c);
        return rc;
    }
    const char *params[] = {EMBEDDED_DBNAME};
    r = PQexecParams(c, "SELECT 1 FROM pg_database WHERE datname = $1", 1, NULL, params,
                     NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0) {
        PQclear(r);
        r = PQexec(c, "CREATE DATABASE " EMBEDDED_DBNAME);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = error_set(err, STATUS_DB, "create database: %s", PQerrorMessage(c));
    } else if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = error_set(err, STATUS_DB, "embedded server: %s", PQerrorMessage(c));
    }
    PQclear(r);
    PQfinish(c);
    return rc;
}

enum status db_cluster_start(const struct db_target *t, struct error *err)
{
    char bindir[PATH_MAX], log_path[700], pid_path[700];
    enum status rc;

    rc = db_cluster_init(t, err);
    if (rc != STATUS_OK)
        return rc;
    if (db_cluster_running(t))
        return ensure_database(t, err);
    rc = pg_bindir(bindir, sizeof bindir, err);
    if (rc != STATUS_OK)
        return rc;
    /* A postmaster.pid left by a killed server (or a machine restart) would stop
     * pg_ctl; the server is not answering, so it is stale unless its pid lives. */
    snprintf(pid_path, sizeof pid_path, "%s/postmaster.pid", t->data_dir);
    FILE *pf = fopen(pid_path, "r");
    if (pf != NULL) {
        char first[32] = "";
        bool got = fgets(first, sizeof first, pf) != NULL;
        fclose(pf);
        long pid = got ? strtol(first, NULL, 10) : 0;
        if (pid <= 0 || kill((pid_t)pid, 0) != 0) {
            unlink(pid_path);
            log_warn("removed a stale %s", pid_path);
        }
    }
    snprintf(log_path, sizeof log_path, "%s/postgresql.log", t->state_dir);
    if (geteuid() == 0) {
        /* The server (running as postgres) appends to its log: let it. */
        FILE *lf = fopen(log_path, "a");
        struct passwd *pw = getpwnam(EMBEDDED_USER);
        if (lf != NULL)
            fclose(lf);
        if (pw != NULL && chown(log_path, pw->pw_uid, pw->pw_gid) != 0)
            log_warn("cannot give %s to %s", log_path, EMBEDDED_USER);
    }
    struct argv_buf cmd = {.n = 0};
    pg_ctl_args(&cmd, bindir, "start", t);
    argv_add(&cmd, "--timeout=60");
    argv_add(&cmd, "--log=%s", log_path);
    argv_add(&cmd, "-o");
    /* No TCP: the embedded server is reached through its socket only. */
    argv_add(&cmd,
             "-c listen_addresses='' -c unix_socket_directories='%s' -c port=%d "
             "-c max_connections=40",
             t->socket_dir, EMBEDDED_PORT);
    if (run_pg_ctl(&cmd, t) != 0) {
        return error_set(err, STATUS_DB, "the embedded server did not start: see %s",
                         log_path);
    }
    log_info("started the embedded server (socket in %s)", t->socket_dir);
    return ensure_database(t, err);
}

enum status db_cluster_stop(const struct db_target *t, struct error *err)
{
    char bindir[PATH_MAX];
    enum status rc;

    if (!t->embedded) {
        return error_set(err, STATUS_INVALID,
                         "a configured database is not managed here (%s)", t->reason);
    }
    if (!cluster_exists(t) || !db_cluster_running(t))
        return STATUS_OK;
    rc = pg_bindir(bindir, sizeof bindir, err);
    if (rc != STATUS_OK)
        return rc;
    struct argv_buf cmd = {.n = 0};
    pg_ctl_args(&cmd, bindir, "stop", t);
    argv_add(&cmd, "--mode=fast");
    if (run_pg_ctl(&cmd, t) != 0) {
        return error_set(err, STATUS_DB, "pg_ctl stop failed for %s: see %s/pg_ctl.log",
                         t->data_dir, t->state_dir);
    }
    /* The socket folder is ours alone; an empty one left in $TMPDIR is litter. */
    if (rmdir(t->socket_dir) != 0 && errno != ENOENT)
        log_debug("could not remove %s: %s", t->socket_dir, strerror(errno));
    log_info("stopped the embedded server");
    return STATUS_OK;
}

enum status db_connect(const char *db_arg, unsigned flags, struct db **out,
                       struct error *err)
{
    struct db_target t;
    enum status rc;
    int applied = 0;

    *out = NULL;
    rc = db_target_resolve(db_arg, &t, err);
    if (rc != STATUS_OK)
        return rc;
    if (t.embedded && (flags & DB_START_EMBEDDED) != 0) {
        rc = db_cluster_start(&t, err);
        /* A server that does not come up is the database's failure, whatever the
         * cause; only a bad target stays the caller's. */
        if (rc != STATUS_OK)
            return rc == STATUS_INVALID ? STATUS_INVALID : STATUS_DB;
    }
    rc = db_open(&t, out, err);
    if (rc != STATUS_OK || (flags & DB_MIGRATE) == 0)
        return rc;
    rc = db_migrate(*out, &applied, err);
    if (rc != STATUS_OK) {
        db_close(*out);
        *out = NULL;
    }
    return rc;
}
