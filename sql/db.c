/* db.c: connections, migrations and the schema version (db_connect is in target.c). */
#include "internal.h"

#include "migrations.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum status db_open(const struct db_target *t, struct db **out, struct error *err)
{
    struct db *db = calloc(1, sizeof *db);

    *out = NULL;
    if (db == NULL)
        return error_os(err, STATUS_NOMEM, ENOMEM, NULL, "db connection");
    pthread_mutex_init(&db->reset_lock, NULL);
    if (t->embedded) {
        /* Before every connection, reconnections too: the socket's folder must
         * still be the server's (requirepeer in the conninfo checks the peer). */
        enum status rc = socket_dir_check(t, err);
        if (rc != STATUS_OK) {
            pthread_mutex_destroy(&db->reset_lock);
            free(db);
            return rc;
        }
        snprintf(db->data_dir, sizeof db->data_dir, "%s", t->data_dir);
    }
    db->target = *t;
    /* The conninfo (or URI) is expanded in place of dbname, and a user given after it
     * beats the one inside it; empty values leave libpq's PG* defaults. */
    const char *const keys[] = {"dbname", "user", NULL};
    const char *const vals[] = {t->conninfo, t->user[0] != '\0' ? t->user : NULL, NULL};
    db->conn = PQconnectdbParams(keys, vals, 1);
    if (PQstatus(db->conn) != CONNECTION_OK) {
        enum status rc = db_fail(db, err, t->embedded ? "embedded database" : "database");
        db_close(db);
        return rc;
    }
    enum status rc = exec_cmd(db, db_session_sql, err);
    if (rc != STATUS_OK) {
        db_close(db);
        return rc;
    }
    *out = db;
    return STATUS_OK;
}

enum status db_statement_timeout_set(struct db *db, unsigned long ms, struct error *err)
{
    char sql[64];

    snprintf(sql, sizeof sql, "SET statement_timeout = %lu", ms);
    enum status rc = exec_cmd(db, sql, err);
    if (rc == STATUS_OK)
        db->timeout_ms = ms;
    return rc;
}

void db_retry_lost_set(struct db *db, bool on)
{
    db->retry_lost = on;
}

void db_cancel(struct db *db)
{
    char msg[256];

    if (db == NULL)
        return;
    /* PQcancel is safe while another thread runs a query on the connection; the
     * cancel object is a copy of its key, read here. */
    pthread_mutex_lock(&db->reset_lock);
    PGcancel *c = PQgetCancel(db->conn);
    pthread_mutex_unlock(&db->reset_lock);
    if (c == NULL)
        return;
    (void)PQcancel(c, msg, sizeof msg);
    PQfreeCancel(c);
}

void db_close(struct db *db)
{
    if (db == NULL)
        return;
    PQfinish(db->conn);
    pthread_mutex_destroy(&db->reset_lock);
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

/* The reader role: made when missing, then USAGE on the schema and SELECT on every
 * table, and by default on the tables the migrator makes later. Write rights are
 * never granted. A migrator that may not make roles or grant (a configured server's
 * ordinary owner) gets a warning with what the administrator should run. */
static const char reader_sql[] =
    "DO $$ BEGIN "
    "IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" DB_READER_ROLE "') THEN "
    "CREATE ROLE " DB_READER_ROLE " LOGIN; "
    "END IF; "
    "EXECUTE format('GRANT CONNECT ON DATABASE %I TO " DB_READER_ROLE "', "
    "current_database()); "
    "GRANT USAGE ON SCHEMA public TO " DB_READER_ROLE "; "
    "GRANT SELECT ON ALL TABLES IN SCHEMA public TO " DB_READER_ROLE "; "
    "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO " DB_READER_ROLE
    "; "
    "EXCEPTION WHEN insufficient_privilege THEN "
    "RAISE WARNING 'the read-only role " DB_READER_ROLE " is not set up (%): ask the "
    "database administrator to CREATE ROLE " DB_READER_ROLE " LOGIN and GRANT it USAGE "
    "ON SCHEMA public, then run db migrate again', SQLERRM; "
    "END $$";

/* The role's grants, once: again only when migrations added tables or the role
 * cannot read yet (a GRANT on every table at every run would churn the catalog). */
static enum status reader_role_ensure(struct db *db, bool tables_added, struct error *err)
{
    PGresult *r;

    if (!tables_added) {
        enum status rc = exec_params(
            db,
            "SELECT coalesce((SELECT has_table_privilege(oid, 'schema_version', "
            "'SELECT') "
            "AND has_schema_privilege(oid, 'public', 'USAGE') FROM pg_roles WHERE "
            "rolname = '" DB_READER_ROLE "'), false)",
            0, NULL, &r, err);
        if (rc != STATUS_OK)
            return rc;
        bool ready = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        PQclear(r);
        if (ready)
            return STATUS_OK;
    }
    return exec_cmd(db, reader_sql, err);
}

enum status db_migrate(struct db *db, int *applied, struct error *err)
{
    return db_migrate_to(db, INT_MAX, applied, err);
}

enum status db_migrate_to(struct db *db, int target, int *applied, struct error *err)
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

        if (m->version <= current || m->version > target)
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
    if (rc == STATUS_OK)
        rc = reader_role_ensure(db, *applied > 0, err);
    PGresult *u = PQexec(db->conn, "SELECT pg_advisory_unlock(7290153)");
    PQclear(u);
    return rc;
}
