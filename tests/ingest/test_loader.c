/* test_loader.c: what a failed database step means for an ingest batch, by its
 * SQLSTATE class (issue 15); the loader itself runs in tests/integration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"

#include <stdio.h>

static enum status outcome(enum status code, const char *sqlstate)
{
    struct error e = {0};

    e.code = code;
    snprintf(e.sqlstate, sizeof e.sqlstate, "%s", sqlstate);
    return ingest_db_failure(&e);
}

static void data_exceptions_quarantine_the_file(void **state)
{
    (void)state;
    assert_int_equal(outcome(STATUS_DB, "22021"), STATUS_PARSE); /* bad UTF-8 */
    assert_int_equal(outcome(STATUS_DB, "22003"), STATUS_PARSE); /* out of range */
    assert_int_equal(outcome(STATUS_DB, "23505"), STATUS_PARSE); /* unique */
}

static void a_lost_connection_stops_the_batch_as_unavailable(void **state)
{
    (void)state;
    assert_int_equal(outcome(STATUS_DB, "08006"), STATUS_DB);
    assert_int_equal(outcome(STATUS_DB, "57P01"), STATUS_DB); /* admin shutdown */
    assert_int_equal(outcome(STATUS_DB, ""), STATUS_DB);      /* libpq's own */
}

static void a_full_disk_stops_the_batch_with_its_sqlstate(void **state)
{
    (void)state;
    /* cli/ maps these to exit 74 by the SQLSTATE it still holds */
    assert_int_equal(outcome(STATUS_DB, "53100"), STATUS_DB); /* disk full */
    assert_int_equal(outcome(STATUS_DB, "58030"), STATUS_DB); /* I/O error */
}

static void any_other_sqlstate_is_our_bug(void **state)
{
    (void)state;
    assert_int_equal(outcome(STATUS_DB, "42601"), STATUS_INTERNAL); /* syntax */
    assert_int_equal(outcome(STATUS_DB, "42P01"), STATUS_INTERNAL); /* no table */
}

static void other_statuses_pass_through(void **state)
{
    (void)state;
    assert_int_equal(outcome(STATUS_NOMEM, ""), STATUS_NOMEM);
    assert_int_equal(outcome(STATUS_OK, ""), STATUS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_exceptions_quarantine_the_file),
        cmocka_unit_test(a_lost_connection_stops_the_batch_as_unavailable),
        cmocka_unit_test(a_full_disk_stops_the_batch_with_its_sqlstate),
        cmocka_unit_test(any_other_sqlstate_is_our_bug),
        cmocka_unit_test(other_statuses_pass_through),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
