/* test_role.c: the read-only role, against a real PostgreSQL: db migrate makes it
 * once; a write through a connection as it is refused; it reads a table made after
 * it (future tables). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sql/db.h"
#include "../support/pgfixture.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        cmocka_unit_test(a_write_through_serves_connection_is_permission_denied),
        cmocka_unit_test(the_role_reads_a_table_made_after_it),
        cmocka_unit_test(db_migrate_twice_keeps_one_role),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
