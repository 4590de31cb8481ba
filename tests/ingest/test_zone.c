/* test_zone.c: time zones read from tzdata's TZif files, against python3's zoneinfo
 * (Debian's /usr/bin/python3, which reads the same files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"

#include <pthread.h>
#include <string.h>

static const struct ingest_zone *zone(const char *name)
{
    const struct ingest_zone *z = NULL;
    struct error err = {0};

    if (ingest_zone_get(name, &z, &err) != STATUS_OK)
        fail_msg("%s: %s", name, err.msg);
    assert_non_null(z);
    return z;
}

/* Offsets at the second before and at each change: python3 zoneinfo,
 * datetime.fromtimestamp(t, timezone.utc).astimezone(ZoneInfo(name)).utcoffset().
 * 2026 is in the table of Debian's "fat" files; 2040 and 2050 are after its last
 * transition (2037), where the footer's POSIX rule decides. */
static void offsets_agree_with_zoneinfo(void **state)
{
    static const struct {
        const char *zone;
        int64_t t;
        int32_t before, at;
    } cases[] = {
        {"Europe/Berlin", 1774746000, 3600, 7200},        /* 2026-03-29T01:00:00Z */
        {"Europe/Berlin", 1792890000, 7200, 3600},        /* 2026-10-25T01:00:00Z */
        {"Europe/Berlin", 2216250000, 3600, 7200},        /* 2040-03-25T01:00:00Z */
        {"Europe/Berlin", 2234998800, 7200, 3600},        /* 2040-10-28T01:00:00Z */
        {"America/New_York", 2530767600, -18000, -14400}, /* 2050-03-13 */
        {"America/New_York", 2551327200, -14400, -18000}, /* 2050-11-06 */
        {"Australia/Sydney", 2532528000, 39600, 36000},   /* 2050-04-03 */
        {"Australia/Sydney", 2548252800, 36000, 39600},   /* 2050-10-02 */
        {"UTC", 1774746000, 0, 0},
        {"Asia/Tokyo", 2548252800, 32400, 32400},
    };

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct ingest_zone *z = zone(cases[i].zone);

        assert_string_equal(ingest_zone_name(z), cases[i].zone);
        if (ingest_zone_offset(z, cases[i].t - 1) != cases[i].before ||
            ingest_zone_offset(z, cases[i].t) != cases[i].at)
            fail_msg("%s at %lld: %d %d", cases[i].zone, (long long)cases[i].t,
                     ingest_zone_offset(z, cases[i].t - 1),
                     ingest_zone_offset(z, cases[i].t));
    }
    /* before the first transition: local mean time, +0:53:28 in Berlin */
    assert_int_equal(ingest_zone_offset(zone("Europe/Berlin"), -5000000000), 3208);
}

/* A local time in the repeated hour is two instants; in the skipped hour it is read
 * with the offset before the change; elsewhere one. */
static void local_times_give_their_instants(void **state)
{
    const struct ingest_zone *berlin = zone("Europe/Berlin");
    int64_t t[2];

    (void)state;
    /* 2026-10-25 02:30:00 local, as if UTC = 1792895400 */
    assert_int_equal(ingest_zone_instants(berlin, 1792895400, t), 2);
    assert_int_equal(t[0], 1792895400 - 7200);
    assert_int_equal(t[1], 1792895400 - 3600);
    /* 2026-03-29 02:30:00 local does not exist: 01:30:00Z (03:30 CEST) */
    assert_int_equal(ingest_zone_instants(berlin, 1774751400, t), 1);
    assert_int_equal(t[0], 1774751400 - 3600);
    /* 2026-11-22 13:06:48 local: 12:06:48Z */
    assert_int_equal(ingest_zone_instants(berlin, 1795352808, t), 1);
    assert_int_equal(t[0], 1795352808 - 3600);
    /* 2040-10-28 02:30 local, from the footer rule: two */
    assert_int_equal(ingest_zone_instants(berlin, 2235004200, t), 2);
    assert_int_equal(t[1] - t[0], 3600);
}

static void expect_invalid(const char *name, const char *msg)
{
    const struct ingest_zone *z = (const struct ingest_zone *)&z;
    struct error err = {0};

    assert_int_equal(ingest_zone_get(name, &z, &err), STATUS_INVALID);
    assert_null(z);
    if (strstr(err.msg, msg) == NULL)
        fail_msg("%s: want '%s', got '%s'", name, msg, err.msg);
}

static void bad_names_are_invalid(void **state)
{
    (void)state;
    expect_invalid("Europe/Atlantis",
                   "no time zone 'Europe/Atlantis' in /usr/share/zoneinfo");
    expect_invalid("../../etc/passwd", "expected an IANA time zone name");
    expect_invalid("/etc/localtime", "expected an IANA time zone name");
    expect_invalid("Europe", "is not a TZif file"); /* a directory */
    expect_invalid("leapseconds", "is not a TZif file");
    expect_invalid("zone.tab", "expected an IANA time zone name");
    expect_invalid("", "expected an IANA time zone name");
}

static void *get_berlin(void *arg)
{
    const struct ingest_zone **out = arg;
    struct error err = {0};

    if (ingest_zone_get("Europe/Paris", out, &err) != STATUS_OK)
        *out = NULL;
    return NULL;
}

/* Threads asking for one zone at once get the one copy. */
static void a_zone_is_read_once_for_every_thread(void **state)
{
    pthread_t th[8];
    const struct ingest_zone *got[8];

    (void)state;
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&th[i], NULL, get_berlin, &got[i]), 0);
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_non_null(got[i]);
        assert_ptr_equal(got[i], got[0]);
    }
    assert_ptr_equal(zone("Europe/Paris"), got[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offsets_agree_with_zoneinfo),
        cmocka_unit_test(local_times_give_their_instants),
        cmocka_unit_test(bad_names_are_invalid),
        cmocka_unit_test(a_zone_is_read_once_for_every_thread),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
