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

/* The environment that names a database, unset for a test and put back after. */
static const char *const db_env[] = {"IOCONTEND_DB", "PGHOST",     "PGHOSTADDR",
                                     "PGPORT",       "PGDATABASE", "PGSERVICE"};
#define N_DB_ENV (sizeof db_env / sizeof db_env[0])

static void env_save_unset(char saved[N_DB_ENV][1024])
{
    for (size_t i = 0; i < N_DB_ENV; i++) {
        const char *v = getenv(db_env[i]);
        snprintf(saved[i], 1024, "%s", v != NULL ? v : "");
        unsetenv(db_env[i]);
    }
}

static void env_restore(char saved[N_DB_ENV][1024])
{
    for (size_t i = 0; i < N_DB_ENV; i++) {
        if (saved[i][0] != '\0')
            setenv(db_env[i], saved[i], 1);
        else
            unsetenv(db_env[i]);
    }
}

/* A conninfo from the file is named as the file's, below --db and IOCONTEND_DB
 * (INTERFACES.md: command line > environment > file); `db status` says so. */
static void a_conninfo_from_the_file_is_named_as_the_files(void **state)
{
    char saved[N_DB_ENV][1024], conninfo[1024], conf[512], args[1100];
    struct db_target t;
    struct error err = {0};
    int rc = -1;

    (void)state;
    assert_int_equal(pgfixture_conninfo(&fx, conninfo, sizeof conninfo), 0);
    snprintf(conf, sizeof conf, "%s/conninfo.conf", fx.state_dir);
    FILE *fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "[database]\nconninfo = %s\n", conninfo);
    fclose(fp);
    env_save_unset(saved);

    struct db_state_opts opts = {.config_path = conf, .conninfo = conninfo};
    assert_int_equal(db_target_resolve(NULL, &opts, &t, &err), STATUS_OK);
    assert_false(t.embedded);
    assert_string_equal(t.conninfo, conninfo);
    char want[700];
    snprintf(want, sizeof want, "configured: [database] conninfo in %s", conf);
    assert_string_equal(t.reason, want);
    assert_int_equal(db_target_resolve("dbname=given", &opts, &t, &err), STATUS_OK);
    assert_string_equal(t.reason, "configured: --db given");
    assert_string_equal(t.conninfo, "dbname=given");
    setenv("IOCONTEND_DB", "dbname=from_env", 1);
    assert_int_equal(db_target_resolve(NULL, &opts, &t, &err), STATUS_OK);
    assert_string_equal(t.reason, "configured: IOCONTEND_DB is set");
    assert_string_equal(t.conninfo, "dbname=from_env");
    unsetenv("IOCONTEND_DB");

    snprintf(args, sizeof args, "--config '%s' db status", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    env_restore(saved);
    assert_non_null(out);
    char line[800];
    snprintf(line, sizeof line, "reason: %s\n", want);
    if (strstr(out, line) == NULL || strstr(out, "server: reachable\n") == NULL)
        fail_msg("db status said:\n%s", out);
    free(out);
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_migrate_the_schema_is_left_as_it_is),
        cmocka_unit_test(with_both_flags_the_schema_is_the_latest),
        cmocka_unit_test(unreachable_server_is_status_db),
        cmocka_unit_test(a_conninfo_from_the_file_is_named_as_the_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
