/* test_db_connect.c: db_connect against a real PostgreSQL: it opens the target that
 * --db / IOCONTEND_DB / PG* / the embedded cluster name, migrates only when asked,
 * and a server it cannot reach is STATUS_DB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sql/db.h"
#include "../support/pgfixture.h"

#include <stdio.h>

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

/* Runs first: the fixture migrates a configured server's database, not the embedded
 * cluster it starts. */
static void without_migrate_the_schema_is_left_as_it_is(void **state)
{
    struct db *db = NULL;
    struct error err = {0};
    int version = -1;

    (void)state;
    assert_int_equal(db_connect(NULL, NULL, DB_START_EMBEDDED, &db, &err), STATUS_OK);
    assert_non_null(db);
    assert_int_equal(db_schema_version(db, &version, &err), STATUS_OK);
    assert_int_equal(version, fx.configured ? db_schema_latest() : 0);
    db_close(db);
}

static void with_both_flags_the_schema_is_the_latest(void **state)
{
    struct db *db = NULL;
    struct error err = {0};
    int version = -1;

    (void)state;
    assert_int_equal(db_connect(NULL, NULL, DB_START_EMBEDDED | DB_MIGRATE, &db, &err),
                     STATUS_OK);
    assert_non_null(db);
    assert_int_equal(db_schema_version(db, &version, &err), STATUS_OK);
    assert_int_equal(version, db_schema_latest());
    db_close(db);
}

/* A configured target is never started: the flags change nothing for it. */
static void unreachable_server_is_status_db(void **state)
{
    struct db *db = (struct db *)&fx; /* must come back NULL */
    struct error err = {0};

    (void)state;
    assert_int_equal(db_connect("host=/nonexistent/iocontend port=1 connect_timeout=1",
                                NULL, DB_START_EMBEDDED | DB_MIGRATE, &db, &err),
                     STATUS_DB);
    assert_null(db);
    assert_int_equal(err.code, STATUS_DB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_migrate_the_schema_is_left_as_it_is),
        cmocka_unit_test(with_both_flags_the_schema_is_the_latest),
        cmocka_unit_test(unreachable_server_is_status_db),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
