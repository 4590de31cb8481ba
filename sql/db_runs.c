/* db_runs.c: one run of a kind at a time: the session-level advisory lock that an
 * ingest or an analyze holds for its whole run. */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The lock space of iocontend's runs: (RUN_LOCK_CLASS, kind), two int4 keys, apart
 * from db_migrate's one bigint key. */
#define RUN_LOCK_CLASS "7290153"

static const char *kind_key(const char *kind)
{
    if (strcmp(kind, "ingest") == 0)
        return "1";
    if (strcmp(kind, "analyze") == 0)
        return "2";
    return NULL;
}

/* Who holds the lock of key: the application_name it gave (its host, pid and start)
 * and since when its connection is open; "" when nobody does any more. */
static void holder_of(struct db *db, const char *key, char *out, size_t size)
{
    const char *vals[1] = {key};
    PGresult *r = NULL;
    struct error ignored = {0};

    out[0] = '\0';
    if (exec_params(db,
                    "SELECT a.application_name, "
                    "to_char(a.backend_start AT TIME ZONE 'UTC', "
                    "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
                    "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
                    "AND l.classid = " RUN_LOCK_CLASS " AND l.objid = $1::int",
                    1, vals, &r, &ignored) != STATUS_OK)
        return;
    if (PQntuples(r) > 0) {
        snprintf(out, size, "%s, connected since %s", PQgetvalue(r, 0, 0),
                 PQgetvalue(r, 0, 1));
    }
    PQclear(r);
}

/* Under the lock no other run of the kind is alive: an ingest row with no end was
 * left by one that was killed or lost its connection. */
static enum status mark_interrupted(struct db *db, const char *kind, struct error *err)
{
    PGresult *r = NULL;

    if (strcmp(kind, "ingest") != 0)
        return STATUS_OK;
    enum status rc = exec_params(db,
                                 "UPDATE ingest_runs SET interrupted_at = now() "
                                 "WHERE finished_at IS NULL AND interrupted_at IS NULL "
                                 "RETURNING id",
                                 0, NULL, &r, err);
    if (rc != STATUS_OK)
        return rc;
    for (int i = 0; i < PQntuples(r); i++)
        log_warn("ingest: run %s never ended: marked interrupted", PQgetvalue(r, i, 0));
    PQclear(r);
    return STATUS_OK;
}

enum status db_run_lock(struct db *db, const char *kind, bool wait, struct error *err)
{
    const char *key = kind_key(kind);
    char host[HOST_NAME_MAX + 1] = "", name[HOST_NAME_MAX + 128], started[40];
    const char *vals[1] = {key};
    PGresult *r = NULL;
    enum status rc;

    if (key == NULL)
        return error_set(err, STATUS_INTERNAL, "no run lock for '%s'", kind);
    /* The name a second run reads back to say who holds the lock. */
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    time_format_rfc3339((int64_t)time(NULL), started);
    snprintf(name, sizeof name, "iocontend %s on %s, pid %ld, started %s", kind, host,
             (long)getpid(), started);
    const char *name_vals[1] = {name};
    rc = exec_params_cmd(db, "SELECT set_config('application_name', $1, false)", 1,
                         name_vals, err);
    if (rc != STATUS_OK)
        return rc;
    rc = exec_params(db, "SELECT pg_try_advisory_lock(" RUN_LOCK_CLASS ", $1::int)", 1,
                     vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    bool got = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (got)
        return mark_interrupted(db, kind, err);
    char holder[512];
    holder_of(db, key, holder, sizeof holder);
    if (!wait) {
        return error_set(err, STATUS_BUSY, "another %s run holds the lock: %s", kind,
                         holder[0] != '\0' ? holder : "(it has just ended)");
    }
    log_info("%s: waiting for the run that holds the lock: %s", kind,
             holder[0] != '\0' ? holder : "(it has just ended)");
    rc = exec_params_cmd(db, "SELECT pg_advisory_lock(" RUN_LOCK_CLASS ", $1::int)", 1,
                         vals, err);
    return rc == STATUS_OK ? mark_interrupted(db, kind, err) : rc;
}
