/* test_locks.c: one ingest and one analyze at a time (INTERFACES.md: exit 75): a
 * second run of a kind waits for the first, or with --no-wait exits 75 naming the
 * holder; runs of different kinds do not wait for each other. The holder here is
 * this test process, through the same sql/ call the program makes. */
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
#include <sys/wait.h>
#include <unistd.h>

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

/* A connection of this process holding kind's lock; db_close releases it. */
static struct db *hold(const char *kind)
{
    struct db *db = NULL;
    struct error err = {0};

    assert_int_equal(db_connect(NULL, NULL, DB_START_EMBEDDED | DB_MIGRATE, &db, &err),
                     STATUS_OK);
    assert_int_equal(db_run_lock(db, kind, false, &err), STATUS_OK);
    return db;
}

static void a_second_run_of_a_kind_exits_75_naming_the_holder(void **state)
{
    char want[64];
    int rc = -1;

    (void)state;
    struct db *db = hold("analyze");
    char *out = pgfixture_run(&fx, "analyze --no-wait 2>&1", &rc);
    assert_non_null(out);
    snprintf(want, sizeof want, "pid %ld, started ", (long)getpid());
    if (rc != 75 ||
        strstr(out, "another analyze run holds the lock: iocontend "
                    "analyze on ") == NULL ||
        strstr(out, want) == NULL)
        fail_msg("want 75 naming pid %ld, got %d: %s", (long)getpid(), rc, out);
    free(out);
    /* An ingest is another kind: it does not wait for an analyze, and gets as far as
     * its input (missing: 66). */
    out = pgfixture_run(&fx, "ingest darshan --no-wait /nonexistent/iocontend 2>&1", &rc);
    assert_non_null(out);
    if (rc != 66 || strstr(out, "/nonexistent/iocontend") == NULL)
        fail_msg("want 66 naming the path, got %d: %s", rc, out);
    free(out);
    db_close(db);
    /* Released: the same command runs. */
    free(pgfixture_run(&fx, "analyze --no-wait", &rc));
    assert_true(rc == 0 || rc == 1);

    db = hold("ingest");
    out = pgfixture_run(&fx, "ingest darshan --no-wait /nonexistent 2>&1", &rc);
    assert_non_null(out);
    assert_int_equal(rc, 75);
    assert_non_null(strstr(out, "another ingest run holds the lock"));
    free(out);
    db_close(db);
}

static void without_no_wait_a_second_run_waits_for_the_first(void **state)
{
    char cmd[1200];

    (void)state;
    struct db *db = hold("analyze");
    snprintf(cmd, sizeof cmd, "'%s' analyze 2>&1", fx.bin);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    sleep(2); /* it has asked for the lock and waits */
    db_close(db);
    char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, p);
    text[n] = '\0';
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    assert_true(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1);
    if (strstr(text, "analyze: waiting for the run that holds the lock: iocontend "
                     "analyze on ") == NULL)
        fail_msg("no waiting line: %s", text);
    assert_non_null(strstr(text, "groups computed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_second_run_of_a_kind_exits_75_naming_the_holder),
        cmocka_unit_test(without_no_wait_a_second_run_waits_for_the_first),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
