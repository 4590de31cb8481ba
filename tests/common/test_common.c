/* test_common.c: the error struct, status names and the content hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../common/common.h"
#include "../../common/log_family.h"
#include "../support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void first_error_recorded_wins(void **state)
{
    struct error err = {0};

    (void)state;
    assert_int_equal(
        error_at(&err, STATUS_PARSE, "a.txt", 12, "expected %d fields, got %d", 8, 5),
        STATUS_PARSE);
    assert_int_equal(error_set(&err, STATUS_DB, "later"), STATUS_DB);
    assert_int_equal(err.code, STATUS_PARSE);
    assert_string_equal(err.file, "a.txt");
    assert_int_equal(err.line, 12);
    assert_string_equal(err.msg, "expected 8 fields, got 5");
}

static void formatted_error_names_file_and_line(void **state)
{
    struct error err = {0};
    char buf[256];

    (void)state;
    error_at(&err, STATUS_PARSE, "log.txt", 812,
             "expected 8 tab-separated fields, got 5");
    error_format(&err, buf, sizeof buf);
    assert_string_equal(buf, "log.txt:812: expected 8 tab-separated fields, got 5");
    error_clear(&err);
    assert_int_equal(err.code, STATUS_OK);
}

static void null_error_struct_is_allowed(void **state)
{
    (void)state;
    assert_int_equal(error_set(NULL, STATUS_NOMEM, "x"), STATUS_NOMEM);
}

static void status_names_are_the_contract_words(void **state)
{
    (void)state;
    assert_string_equal(status_name(STATUS_INVALID), "invalid");
    assert_string_equal(status_name(STATUS_NOT_FOUND), "not_found");
    assert_string_equal(status_name(STATUS_INTERNAL), "internal");
    assert_string_equal(status_name(STATUS_BUSY), "busy");
    assert_string_equal(status_name(STATUS_CANCELLED), "cancelled");
}

static void hash_depends_on_every_byte(void **state)
{
    struct hash128 h1, h2;
    char a[33], b[33];

    (void)state;
    hash128_init(&h1);
    hash128_update(&h1, "abc", 3);
    hash128_hex(&h1, a);
    hash128_init(&h2);
    hash128_update(&h2, "abd", 3);
    hash128_hex(&h2, b);
    assert_int_equal(strlen(a), 32);
    assert_string_not_equal(a, b);
    hash128_init(&h2);
    hash128_update(&h2, "a", 1);
    hash128_update(&h2, "bc", 2);
    hash128_hex(&h2, b);
    assert_string_equal(a, b);
}

static void log_levels_parse_by_name(void **state)
{
    enum log_level l;

    (void)state;
    assert_int_equal(log_level_parse("debug", &l), STATUS_OK);
    assert_int_equal(l, LOG_DEBUG);
    assert_int_equal(log_level_parse("loud", &l), STATUS_INVALID);
}

static void bad_utf8_and_controls_are_escaped(void **state)
{
    char out[64], *d;

    (void)state;
    /* valid UTF-8 stays: "café" and a 4-byte emoji */
    assert_int_equal(str_escape("caf\xc3\xa9 \xf0\x9f\x98\x80", out, sizeof out), 10);
    assert_string_equal(out, "caf\xc3\xa9 \xf0\x9f\x98\x80");
    /* Latin-1 "café", a tab, DEL and a backslash */
    assert_int_equal(str_escape("caf\xe9\t\x7f\\", out, sizeof out), 17);
    assert_string_equal(out, "caf\\xe9\\x09\\x7f\\\\");
    /* overlong, surrogate and cut sequences are bytes, not characters */
    assert_int_equal(str_escape("\xc0\xaf\xed\xa0\x80\xe2\x82", out, sizeof out), 28);
    assert_string_equal(out, "\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x82");
    /* cut between escapes, never inside one */
    assert_int_equal(str_escape("ab\xe9"
                                "cd",
                                out, 5),
                     8);
    assert_string_equal(out, "ab");
    d = str_escape_dup("x\x01y");
    assert_string_equal(d, "x\\x01y");
    free(d);
    assert_null(str_escape_dup(NULL));
}

/* path_absolute: lexical, from the working directory for a relative path. */
static void paths_are_made_absolute_lexically(void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"/a/./b/../c", "/a/c"}, {"/a//b/", "/a/b"}, {"/..", "/"}, {"/", "/"},
        {"/a/b/../../..", "/"},
    };
    char out[256], cwd[4096], want[4200];

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_true(path_absolute(cases[i].in, out, sizeof out));
        assert_string_equal(out, cases[i].want);
    }
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/x.parser.txt", strcmp(cwd, "/") == 0 ? "" : cwd);
    assert_true(path_absolute("./sub/../x.parser.txt", out, sizeof out) ||
                strlen(want) >= sizeof out);
    if (strlen(want) < sizeof out)
        assert_string_equal(out, want);
    assert_false(path_absolute("/a/long-name", out, 8)); /* does not fit */
    assert_string_equal(out, "");
}

/* Which log values are byte counts (int64_t, stored exactly), from the list's mask,
 * the last value's bit included; and log_double reads either type, a count past 2^53
 * rounded to the double a statistic takes. */
static void log_values_are_read_by_their_type(void **state)
{
    union family_value log[LOG_N] = {0};

    (void)state;
    assert_true(log_is_i8(LOG_ETA_READ) && log_is_i8(LOG_ETA_MON_WRITE));
    assert_false(log_is_i8(LOG_T_J) || log_is_i8(LOG_T) || log_is_i8(LOG_T_S_SLOWEST));
    assert_false(log_is_i8(LOG_N));
    log[LOG_ETA_READ].i8 = (INT64_C(1) << 53) + 1;
    log[LOG_T_FR].f8 = 2.5;
    assert_true(log_double(log, LOG_ETA_READ) == 0x1p53);
    assert_true(log_double(log, LOG_T_FR) == 2.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_error_recorded_wins),
        cmocka_unit_test(formatted_error_names_file_and_line),
        cmocka_unit_test(null_error_struct_is_allowed),
        cmocka_unit_test(status_names_are_the_contract_words),
        cmocka_unit_test(hash_depends_on_every_byte),
        cmocka_unit_test(log_levels_parse_by_name),
        cmocka_unit_test(bad_utf8_and_controls_are_escaped),
        cmocka_unit_test(paths_are_made_absolute_lexically),
        cmocka_unit_test(log_values_are_read_by_their_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
