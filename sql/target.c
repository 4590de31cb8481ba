/* target.c: which database a command talks to (--db, IOCONTEND_DB, the PG*
 * variables, the file's conninfo, else the embedded server under the state
 * directory, and why), and db_connect. The embedded server's life is embedded.c's. */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* sun_path holds 107 bytes and a '\0'; the server adds "/.s.PGSQL.5432". */
#define SOCKET_PATH_MAX 107
#define SOCKET_FILE     "/.s.PGSQL.5432"
_Static_assert(DB_STATE_DIR_MAX + sizeof "/run" SOCKET_FILE - 1 == SOCKET_PATH_MAX,
               "DB_STATE_DIR_MAX is what fits in sun_path");

static const char *const pg_env_vars[] = {"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE",
                                          "PGSERVICE"};

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0';
}

static bool given(const char *s)
{
    return s != NULL && s[0] != '\0';
}

/* STATE/run: the state directory's length was checked (DB_STATE_DIR_MAX). */
static void socket_dir_for(struct db_target *t)
{
    size_t len = strlen(t->state_dir);
    /* memcpy keeps -Wformat-truncation quiet at -O1. */
    memcpy(t->socket_dir, t->state_dir, len);
    memcpy(t->socket_dir + len, "/run", 5);
}

/* The default state directory: /var/lib/iocontend as root, else
 * ${XDG_STATE_HOME:-~/.local/state}/iocontend; never the working directory, so that
 * cron and a login shell find the same database. */
static enum status default_state(char *out, size_t size, char *why, size_t why_size,
                                 struct error *err)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");

    if (geteuid() == 0) {
        snprintf(out, size, "/var/lib/iocontend");
        snprintf(why, why_size, "the default for root");
        return STATUS_OK;
    }
    /* XDG: a relative XDG_STATE_HOME is invalid and ignored. */
    if (xdg != NULL && xdg[0] == '/') {
        snprintf(out, size, "%s/iocontend", xdg);
        snprintf(why, why_size, "the default: $XDG_STATE_HOME/iocontend");
        return STATUS_OK;
    }
    if (home == NULL || home[0] != '/') {
        struct passwd *pw = getpwuid(geteuid());
        home = pw != NULL ? pw->pw_dir : NULL;
    }
    if (home == NULL || home[0] != '/') {
        return error_set(err, STATUS_INVALID,
                         "no state directory: HOME is not set and the user has no home "
                         "directory; give --state-dir or set IOCONTEND_STATE_DIR");
    }
    snprintf(out, size, "%s/.local/state/iocontend", home);
    snprintf(why, why_size,
             "the default: ~/.local/state/iocontend (XDG_STATE_HOME unset)");
    return STATUS_OK;
}

/* The state directory, absolute, and why it was chosen. */
static enum status choose_state(const struct db_state_opts *opts, struct db_target *out,
                                char *abs_state, size_t size, struct error *err)
{
    const char *env = getenv("IOCONTEND_STATE_DIR");
    const char *state = NULL;

    if (opts != NULL && given(opts->arg)) {
        state = opts->arg;
        snprintf(out->state_why, sizeof out->state_why, "--state-dir given");
    } else if (given(env)) {
        state = env;
        snprintf(out->state_why, sizeof out->state_why, "IOCONTEND_STATE_DIR is set");
    } else if (opts != NULL && given(opts->config)) {
        state = opts->config;
        snprintf(out->state_why, sizeof out->state_why, "[database] state_dir in %.200s",
                 given(opts->config_path) ? opts->config_path : "the configuration");
        if (state[0] != '/') {
            return error_set(
                err, STATUS_INVALID,
                "[database] state_dir must be an absolute path, got '%.200s'", state);
        }
    } else {
        out->state_default = true;
        return default_state(abs_state, size, out->state_why, sizeof out->state_why, err);
    }
    if (state[0] == '/') {
        snprintf(abs_state, size, "%s", state);
        return STATUS_OK;
    }
    /* A relative path someone typed means where they stand now. */
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return error_set(err, STATUS_INTERNAL, "getcwd: %s", strerror(errno));
    const char *rel = strncmp(state, "./", 2) == 0 ? state + 2 : state;
    if (snprintf(abs_state, size, "%s/%s", cwd, rel) >= (int)size)
        return error_set(err, STATUS_INVALID, "state directory path is too long");
    return STATUS_OK;
}

/* out's state_dir, state_why, state_default and data_dir. */
static enum status state_dir_resolve(const struct db_state_opts *state,
                                     struct db_target *out, struct error *err)
{
    char abs_state[PATH_MAX];
    enum status rc = choose_state(state, out, abs_state, sizeof abs_state, err);

    if (rc != STATUS_OK)
        return rc;
    /* Trailing slashes would make two names for one directory. */
    for (size_t n = strlen(abs_state); n > 1 && abs_state[n - 1] == '/'; n--)
        abs_state[n - 1] = '\0';
    /* Too long for the socket: refused rather than a socket directory elsewhere
     * (a folder in the shared /tmp can be made by anyone once it is gone). */
    if (strlen(abs_state) > DB_STATE_DIR_MAX) {
        log_error("state directory %s: %zu characters", abs_state, strlen(abs_state));
        return error_os(err, STATUS_INVALID, ENAMETOOLONG, abs_state,
                        "state directory path too long for the server's socket: %zu "
                        "characters, at most %d; choose a shorter --state-dir",
                        strlen(abs_state), DB_STATE_DIR_MAX);
    }
    /* Lengths checked above; memcpy keeps -Wformat-truncation quiet at -O1. */
    size_t len = strlen(abs_state);
    memcpy(out->state_dir, abs_state, len + 1);
    memcpy(out->data_dir, abs_state, len);
    memcpy(out->data_dir + len, "/pg", 4);
    return STATUS_OK;
}

enum status db_target_resolve(const char *db_arg, const struct db_state_opts *state,
                              struct db_target *out, struct error *err)
{
    const char *env_db = getenv("IOCONTEND_DB");
    enum status rc;

    memset(out, 0, sizeof *out);
    /* The state directory is named even for a configured server: the demo keeps its
     * sample data there. */
    struct error state_err = {0};
    rc = state_dir_resolve(state, out, &state_err);
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
    /* The file's, below the environment (docs/interfaces.md: command line > environment >
     * file). */
    if (state != NULL && given(state->conninfo)) {
        snprintf(out->conninfo, sizeof out->conninfo, "%s", state->conninfo);
        snprintf(out->reason, sizeof out->reason,
                 "configured: [database] conninfo in %.200s",
                 given(state->config_path) ? state->config_path : "the configuration");
        return STATUS_OK;
    }
    out->embedded = true;
    if (rc != STATUS_OK) {
        if (err != NULL)
            *err = state_err;
        return rc;
    }
    socket_dir_for(out);
    embedded_server_user(out);
    snprintf(out->reason, sizeof out->reason,
             "embedded: no --db, IOCONTEND_DB or PG* variable is set");
    return STATUS_OK;
}

enum status db_connect(const char *db_arg, const struct db_state_opts *state,
                       unsigned flags, struct db **out, struct error *err)
{
    struct db_target t;
    enum status rc;
    int applied = 0;

    *out = NULL;
    rc = db_target_resolve(db_arg, state, &t, err);
    if (rc == STATUS_OK && (flags & DB_EXISTING) != 0)
        rc = db_target_existing(&t, err);
    if (rc != STATUS_OK)
        return rc;
    if (t.embedded && (flags & DB_START_EMBEDDED) != 0) {
        rc = db_embedded_start(&t, err);
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
