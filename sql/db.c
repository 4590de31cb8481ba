/* db.c: connections, migrations and the schema version (db_connect is in cluster.c). */
#include "internal.h"

#include "migrations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum status db_open(const struct db_target *t, struct db **out, struct error *err)
{
    struct db *db = calloc(1, sizeof *db);

    *out = NULL;
    if (db == NULL)
        return error_set(err, STATUS_NOMEM, "db connection");
    db->conn = PQconnectdb(t->conninfo);
    if (PQstatus(db->conn) != CONNECTION_OK) {
        enum status rc = db_fail(db, err, t->embedded ? "embedded database" : "database");
        db_close(db);
        return rc;
    }
    /* Quiet NOTICEs ("relation already exists, skipping") stay out of the log. */
    enum status rc =
        exec_cmd(db, "SET client_min_messages = warning; SET TIME ZONE 'UTC'", err);
    if (rc != STATUS_OK) {
        db_close(db);
        return rc;
    }
    *out = db;
    return STATUS_OK;
}

void db_close(struct db *db)
{
    if (db == NULL)
        return;
    PQfinish(db->conn);
    free(db);
}

int db_schema_latest(void)
{
    int v = 0;
    for (size_t i = 0; i < n_migrations; i++) {
        if (migrations[i].version > v)
            v = migrations[i].version;
    }
    return v;
}

enum status db_schema_version(struct db *db, int *version, struct error *err)
{
    PGresult *r;
    enum status rc;

    *version = 0;
    rc = exec_params(db, "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL, &r,
                     err);
    if (rc != STATUS_OK)
        return rc;
    bool exists = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (!exists)
        return STATUS_OK;
    rc = exec_params(db, "SELECT coalesce(max(version), 0) FROM schema_version", 0, NULL,
                     &r, err);
    if (rc != STATUS_OK)
        return rc;
    *version = (int)get_int64(r, 0, 0);
    PQclear(r);
    return STATUS_OK;
}

enum status db_migrate(struct db *db, int *applied, struct error *err)
{
    enum status rc;
    int current;

    *applied = 0;
    /* Two migrators at once (cron and a person) must not both apply a step. */
    rc = exec_cmd(db, "SELECT pg_advisory_lock(7290153)", err);
    if (rc != STATUS_OK)
        return rc;
    rc = db_schema_version(db, &current, err);
    for (size_t i = 0; rc == STATUS_OK && i < n_migrations; i++) {
        const struct migration *m = &migrations[i];
        char version[16];
        const char *vals[2] = {version, m->name};

        if (m->version <= current)
            continue;
        rc = exec_cmd(db, "BEGIN", err);
        if (rc != STATUS_OK)
            break;
        rc = exec_cmd(db, m->sql, err);
        snprintf(version, sizeof version, "%d", m->version);
        if (rc == STATUS_OK) {
            rc = exec_params_cmd(
                db, "INSERT INTO schema_version (version, name) VALUES ($1, $2)", 2, vals,
                err);
        }
        if (rc == STATUS_OK)
            rc = exec_cmd(db, "COMMIT", err);
        if (rc != STATUS_OK) {
            rollback(db);
            break;
        }
        log_info("applied migration %s", m->name);
        (*applied)++;
    }
    PGresult *u = PQexec(db->conn, "SELECT pg_advisory_unlock(7290153)");
    PQclear(u);
    return rc;
}
