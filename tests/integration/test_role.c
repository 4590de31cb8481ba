/* test_role.c: serve on the read-only role, against a real PostgreSQL: db migrate
 * makes the role; serve connects as it and never migrates, so over a schema one
 * migration behind /health says so and the data routes answer 503 schema_behind
 * until `db migrate`; a write through serve's connection is refused; the role reads
 * a table made after it (future tables). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sql/db.h"
#include "../support/pgfixture.h"
#include "../support/server.h"

#include <jansson.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct pgfixture fx;

static int setup(void **state)
{
    (void)state;
    return pgfixture_start(&fx);
}

static int teardown(void **state)
{
    (void)state;
    pgfixture_stop(&fx);
    return 0;
}

/* The status of GET path, and its body's error.status ("" when none) in why. */
static int get_status(const struct server *s, const char *path, char *why, size_t size)
{
    int status = 0;
    char *body = NULL;

    why[0] = '\0';
    if (http_get(SERVER_HOST, s->port, path, NULL, &status, &body) != 0)
        return -1;
    json_t *j = json_loads(body != NULL ? body : "", 0, NULL);
    const char *st =
        json_string_value(json_object_get(json_object_get(j, "error"), "status"));
    snprintf(why, size, "%s", st != NULL ? st : "");
    json_decref(j);
    free(body);
    return status;
}

/* A connection made as serve makes its own: the target db_target_resolve names, as
 * DB_READER_ROLE (how db_open overrides the conninfo's user with the target's). */
static PGconn *connect_as_serve(void)
{
    struct db_target t;
    struct error err = {0};

    assert_int_equal(db_target_resolve(NULL, NULL, &t, &err), STATUS_OK);
    const char *const keys[] = {"dbname", "user", NULL};
    const char *const vals[] = {t.conninfo, DB_READER_ROLE, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (PQstatus(c) != CONNECTION_OK)
        print_error("connect as %s: %s", DB_READER_ROLE, PQerrorMessage(c));
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    return c;
}

/* The SQLSTATE sql fails with on c, "" when it succeeds. */
static void sqlstate_of(PGconn *c, const char *sql, char out[6])
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);

    snprintf(out, 6, "%s",
             st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? ""
             : code != NULL                                  ? code
                                                             : "?????");
    PQclear(r);
}

/* Runs first, on the fixture's embedded cluster as started: serve logs in (the
 * cluster made its role) and, over no schema at all, says so rather than migrating. */
static void serve_over_a_database_never_migrated_says_so(void **state)
{
    struct server s;
    char why[64];

    (void)state;
    if (fx.configured)
        skip(); /* the fixture migrated it whole already */
    assert_int_equal(server_start(&s, &fx, NULL), 0);
    json_t *h = server_get_json(&s, "/api/v1/health", NULL, 200);
    json_t *schema = json_object_get(h, "schema");
    assert_int_equal(json_integer_value(json_object_get(schema, "version")), 0);
    assert_int_equal(json_integer_value(json_object_get(schema, "expected")),
                     db_schema_latest());
    assert_true(json_is_true(json_object_get(schema, "behind")));
    json_decref(h);
    assert_int_equal(get_status(&s, "/api/v1/coverage", why, sizeof why), 503);
    assert_string_equal(why, "schema_behind");
    server_stop(&s);
    char *tables =
        pgfixture_query(&fx, "SELECT to_regclass('schema_version') IS NULL", NULL);
    assert_non_null(tables);
    assert_string_equal(tables, "t");
    free(tables);
}

/* Then, on the same cluster brought one migration
 * short of this binary's, serve reports it and refuses the data routes; after `db
 * migrate` the same server answers them without a restart. */
static void a_schema_one_behind_is_reported_until_db_migrate(void **state)
{
    struct db *db = NULL;
    struct error err = {0};
    struct server s;
    char why[64];
    int applied = 0, latest = db_schema_latest();

    (void)state;
    if (fx.configured)
        skip(); /* the fixture migrated it whole already */
    assert_int_equal(db_connect(NULL, NULL, DB_START_EMBEDDED, &db, &err), STATUS_OK);
    assert_int_equal(db_migrate_to(db, latest - 1, &applied, &err), STATUS_OK);
    int version = 0;
    assert_int_equal(db_schema_version(db, &version, &err), STATUS_OK);
    assert_int_equal(version, latest - 1);
    assert_true(applied > 0);
    db_close(db);

    assert_int_equal(server_start(&s, &fx, NULL), 0);
    json_t *h = server_get_json(&s, "/api/v1/health", NULL, 200);
    json_t *schema = json_object_get(h, "schema");
    assert_int_equal(json_integer_value(json_object_get(schema, "version")), latest - 1);
    assert_int_equal(json_integer_value(json_object_get(schema, "expected")), latest);
    assert_true(json_is_true(json_object_get(schema, "behind")));
    json_decref(h);
    assert_int_equal(get_status(&s, "/api/v1/groups", why, sizeof why), 503);
    assert_string_equal(why, "schema_behind");
    assert_int_equal(get_status(&s, "/api/v1/jobs", why, sizeof why), 503);
    assert_string_equal(why, "schema_behind");

    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
    /* The server reads the version again at most once a second. */
    int status = 0;
    for (int i = 0; i < 50 && status != 200; i++) {
        struct timespec ts = {0, 100L * 1000 * 1000};
        nanosleep(&ts, NULL);
        status = get_status(&s, "/api/v1/groups", why, sizeof why);
    }
    assert_int_equal(status, 200);
    h = server_get_json(&s, "/api/v1/health", NULL, 200);
    schema = json_object_get(h, "schema");
    assert_int_equal(json_integer_value(json_object_get(schema, "version")), latest);
    assert_true(json_is_false(json_object_get(schema, "behind")));
    json_decref(h);
    /* Serve itself never migrated: the last step is the one db migrate applied. */
    char *by = pgfixture_query(&fx,
                               "SELECT count(*) FROM schema_version WHERE version = "
                               "(SELECT max(version) FROM schema_version)",
                               NULL);
    assert_non_null(by);
    assert_string_equal(by, "1");
    free(by);
    server_stop(&s);
}

/* Every database connection of a running serve is the read-only role's. */
static void serve_connects_as_the_read_only_role(void **state)
{
    struct server s;

    (void)state;
    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
    assert_int_equal(server_start(&s, &fx, NULL), 0);
    json_decref(server_get_json(&s, "/api/v1/groups", NULL, 200));
    char *roles = pgfixture_query(
        &fx,
        "SELECT string_agg(DISTINCT usename, ',') FROM pg_stat_activity WHERE "
        "datname = current_database() AND pid <> pg_backend_pid() AND "
        "backend_type = 'client backend'",
        NULL);
    server_stop(&s);
    assert_non_null(roles);
    assert_string_equal(roles, DB_READER_ROLE);
    free(roles);
}

/* Writes, and a table of its own, are refused to serve's connection: permission
 * denied (42501); reading works. */
static void a_write_through_serves_connection_is_permission_denied(void **state)
{
    char code[6];

    (void)state;
    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
    PGconn *c = connect_as_serve();
    sqlstate_of(c, "SELECT count(*) FROM jobs", code);
    assert_string_equal(code, "");
    sqlstate_of(c, "SELECT max(version) FROM schema_version", code);
    assert_string_equal(code, "");
    static const char *const writes[] = {
        "INSERT INTO schema_version (version, name) VALUES (9999, '9999_evil')",
        "UPDATE schema_version SET name = 'x'",
        "DELETE FROM schema_version",
        "TRUNCATE schema_version",
        "CREATE TABLE evil (x int)",
        "ALTER TABLE jobs ADD COLUMN evil int",
        "DROP TABLE jobs",
        "CREATE ROLE evil"};
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        sqlstate_of(c, writes[i], code);
        if (strcmp(code, "42501") != 0)
            print_error("%s: SQLSTATE '%s', not 42501\n", writes[i], code);
        assert_string_equal(code, "42501");
    }
    PQfinish(c);
}

/* A table a later migration makes (here: the migrating role, after db migrate) is
 * readable by the role without another grant: ALTER DEFAULT PRIVILEGES. */
static void the_role_reads_a_table_made_after_it(void **state)
{
    char code[6];

    (void)state;
    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
    PGconn *admin = pgfixture_connect(&fx);
    assert_non_null(admin);
    char *done = pgfixture_value(admin, "CREATE TABLE later_step (x integer); "
                                        "INSERT INTO later_step VALUES (7)");
    PQfinish(admin);
    assert_non_null(done);
    free(done);
    PGconn *c = connect_as_serve();
    char *x = pgfixture_value(c, "SELECT x FROM later_step");
    assert_non_null(x);
    assert_string_equal(x, "7");
    free(x);
    sqlstate_of(c, "INSERT INTO later_step VALUES (8)", code);
    assert_string_equal(code, "42501");
    PQfinish(c);
}

/* db migrate again changes nothing: the role and its grants are made once. */
static void db_migrate_twice_keeps_one_role(void **state)
{
    (void)state;
    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
    assert_int_equal(pgfixture_cmd(&fx, "--quiet db migrate"), 0);
    char *n = pgfixture_query(&fx,
                              "SELECT count(*) FROM pg_roles WHERE rolname = $1 AND "
                              "NOT rolsuper AND NOT rolcreaterole AND NOT rolcreatedb",
                              DB_READER_ROLE);
    assert_non_null(n);
    assert_string_equal(n, "1");
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(serve_over_a_database_never_migrated_says_so),
        cmocka_unit_test(a_schema_one_behind_is_reported_until_db_migrate),
        cmocka_unit_test(serve_connects_as_the_read_only_role),
        cmocka_unit_test(a_write_through_serves_connection_is_permission_denied),
        cmocka_unit_test(the_role_reads_a_table_made_after_it),
        cmocka_unit_test(db_migrate_twice_keeps_one_role),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
