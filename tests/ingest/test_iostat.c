/* test_iostat.c: server samples from the real sysstat captures and every error path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"
#include "../support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* 2026-11-22 12:59:04 UTC, the first kept stamp of lab run1: calendar.timegm in
 * /usr/bin/python3, and `date -u -d '2026-11-22 12:59:04' +%s`. */
/* A non-NULL value that a failing parse must replace with NULL. */
static struct iostat_data sentinel;

#define RUN1_FIRST_S 1795352344
#define RUN1_LAST_S  1795352532 /* 13:02:12, the last iostat report */
#define SADF_LAST_S  1795352533 /* 13:02:13, the last sadf record */

/* Parses a file of the shared data folder; fails the test unless it parses. */
static struct iostat_data *parse_shared(const char *rel)
{
    const char *path = testutil_path(testutil_shared_data(), rel);
    struct error err = {0};
    struct iostat_data *d = NULL;
    FILE *fp = fopen(path, "r");

    if (fp == NULL)
        fail_msg("cannot open %s", path);
    if (ingest_iostat_parse(fp, path, NULL, &d, &err) != STATUS_OK)
        fail_msg("%s:%ld: %s", path, err.line, err.msg);
    fclose(fp);
    assert_non_null(d);
    return d;
}

/* Parses text through a real temporary file named "tmp.txt" in errors. */
static enum status parse_text(const char *text, const char *include,
                              struct iostat_data **out, struct error *err)
{
    FILE *fp = tmpfile();
    enum status rc;

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    rewind(fp);
    rc = ingest_iostat_parse(fp, "tmp.txt", include, out, err);
    fclose(fp);
    return rc;
}

/* Parses text that must fail with STATUS_PARSE at line with msg. */
static void expect_parse_error(const char *text, long line, const char *msg)
{
    struct error err = {0};
    struct iostat_data *d = &sentinel;

    assert_int_equal(parse_text(text, NULL, &d, &err), STATUS_PARSE);
    assert_null(d);
    assert_int_equal(err.code, STATUS_PARSE);
    assert_string_equal(err.file, "tmp.txt");
    assert_string_equal(err.msg, msg);
    assert_int_equal(err.line, line);
}

#define BANNER "Linux 6.18.44-fc-v595 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n"
#define XHDR                                                                             \
    "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     "      \
    "wkB/s "                                                                             \
    "  wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await "        \
    "dareq-sz     f/s f_await  aqu-sz  %util\n"
/* 23 fields; r/s 2.385, rkB/s 1234.5, w/s 7.25, wkB/s 4321.75, d/s 9.5, dkB/s 99999,
 * f/s 3.5 */
#define XROW(dev)                                                                        \
    dev "  2.385 1234.5 0.00 0.00 0.10 4.00 7.25 4321.75 0.00 0.00 0.20 8.00 9.5 99999 " \
        "0.00 "                                                                          \
        "0.00 0.30 9.00 3.5 0.00 0.01 1.00\n"

/* ---- the real captures ---------------------------------------------------------- */

static void lab_text_gives_189_vda_samples_after_the_since_boot_report(void **state)
{
    struct iostat_data *d = parse_shared("lab/run1_queue_depth/iostat/iostat_dxt.txt");
    double r = 0, w = 0, ops = 0;

    (void)state;
    assert_int_equal(d->n, 189);
    assert_int_equal(d->n_reports_dropped, 1);
    assert_int_equal(d->n_devices_excluded, 0);
    assert_string_equal(d->host, "vm");
    assert_rel(d->interval_s, 1.0, 0.0);
    /* 12:59:04: r/s 24.00 rkB/s 420.00 w/s 17.00 wkB/s 20364.00 (line 11) */
    assert_string_equal(d->samples[0].device, "vda");
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_rel(d->samples[0].r_bps, 420.0 * 1024, 0.0);
    assert_rel(d->samples[0].w_bps, 20364.0 * 1024, 0.0);
    assert_rel(d->samples[0].ro_ps, 24.0, 0.0);
    assert_rel(d->samples[0].wo_ps, 17.0, 0.0);
    assert_rel(d->samples[0].ops_total_ps, 41.0, 0.0);
    /* 12:59:05 has d/s 5 and dkB/s 412496 (a discard burst): not a write */
    assert_int_equal(d->samples[1].stamp_s, RUN1_FIRST_S + 1);
    assert_rel(d->samples[1].w_bps, 10036.0 * 1024, 0.0);
    assert_rel(d->samples[1].ops_total_ps, 10.0, 0.0);
    assert_int_equal(d->samples[188].stamp_s, RUN1_LAST_S);
    assert_rel(d->samples[188].w_bps, 22292.0 * 1024, 0.0);
    for (size_t i = 0; i < d->n; i++) {
        assert_int_equal(d->samples[i].stamp_s, RUN1_FIRST_S + (int64_t)i);
        r += d->samples[i].r_bps;
        w += d->samples[i].w_bps;
        ops += d->samples[i].ops_total_ps;
    }
    /* sums of rkB/s*1024, wkB/s*1024, r/s+w/s over the kept vda lines: python3 */
    assert_rel(r, 90202800588.8, 1e-3);
    assert_rel(w, 98153904322.56, 1e-3);
    assert_rel(ops, 224231.56, 1e-6);
    iostat_data_free(d);
}

static void lab_json_has_the_text_stamps_and_its_own_values(void **state)
{
    struct iostat_data *j =
        parse_shared("lab/run1_queue_depth/iostat/iostat_dxt_json.json");
    struct iostat_data *t = parse_shared("lab/run1_queue_depth/iostat/iostat_dxt.txt");
    double r = 0, w = 0, ops = 0;

    (void)state;
    assert_int_equal(j->n, 189);
    assert_int_equal(j->n_reports_dropped, 1);
    assert_string_equal(j->host, "vm");
    assert_rel(j->interval_s, 1.0, 0.0);
    for (size_t i = 0; i < j->n; i++) {
        assert_string_equal(j->samples[i].device, t->samples[i].device);
        assert_int_equal(j->samples[i].stamp_s, t->samples[i].stamp_s);
        r += j->samples[i].r_bps;
        w += j->samples[i].w_bps;
        ops += j->samples[i].ops_total_ps;
    }
    /* Where the two iostat processes saw the same second the values are equal... */
    assert_rel(j->samples[0].r_bps, t->samples[0].r_bps, 0.0);
    assert_rel(j->samples[0].w_bps, t->samples[0].w_bps, 0.0);
    assert_rel(j->samples[0].ro_ps, t->samples[0].ro_ps, 0.0);
    assert_rel(j->samples[0].wo_ps, t->samples[0].wo_ps, 0.0);
    /* ...but they were separate captures: at 12:59:06 the JSON has r/s 3.00 w/s 388.00
     * rkB/s 12.00 wkB/s 413064.00, the text 2.97 384.16 11.88 408974.26. */
    assert_rel(j->samples[2].ro_ps, 3.0, 0.0);
    assert_rel(j->samples[2].wo_ps, 388.0, 0.0);
    assert_rel(j->samples[2].r_bps, 12.0 * 1024, 0.0);
    assert_rel(j->samples[2].w_bps, 413064.0 * 1024, 0.0);
    assert_rel(t->samples[2].w_bps, 408974.26 * 1024, 0.0);
    /* sums over the JSON's kept statistics: python3 json */
    assert_rel(r, 90202854430.72, 1e-3);
    assert_rel(w, 98152178268.16, 1e-3);
    assert_rel(ops, 224236.97, 1e-6);
    iostat_data_free(j);
    iostat_data_free(t);
}

static void iso_stamps_give_the_same_epochs(void **state)
{
    struct iostat_data *d =
        parse_shared("lab/run1_queue_depth/iostat/iostat_dxkt_iso.txt");
    double r = 0;

    (void)state;
    assert_int_equal(d->n, 189);
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_int_equal(d->samples[188].stamp_s, RUN1_LAST_S);
    /* 2026-11-22T12:59:04+0000: r/s 17.00 rkB/s 360.00 */
    assert_rel(d->samples[0].ro_ps, 17.0, 0.0);
    assert_rel(d->samples[0].r_bps, 360.0 * 1024, 0.0);
    for (size_t i = 0; i < d->n; i++)
        r += d->samples[i].r_bps;
    assert_rel(r, 90195896023.04, 1e-3); /* python3 */
    iostat_data_free(d);
}

static void basic_iostat_keeps_tps_as_ops_total(void **state)
{
    struct iostat_data *d = parse_shared("lab/run1_queue_depth/iostat/iostat_dkt.txt");
    double tps = 0;

    (void)state;
    assert_int_equal(d->n, 189);
    assert_int_equal(d->n_reports_dropped, 1);
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_true(isnan(d->samples[0].ro_ps));
    assert_true(isnan(d->samples[0].wo_ps));
    assert_rel(d->samples[0].ops_total_ps, 41.0, 0.0);
    assert_rel(d->samples[0].r_bps, 420.0 * 1024, 0.0);
    assert_rel(d->samples[0].w_bps, 20364.0 * 1024, 0.0);
    /* 12:59:05: kB_dscd/s 412496 stays out of w_bps; tps 15 = 10 writes + 5 discards */
    assert_rel(d->samples[1].w_bps, 10036.0 * 1024, 0.0);
    assert_rel(d->samples[1].ops_total_ps, 15.0, 0.0);
    for (size_t i = 0; i < d->n; i++)
        tps += d->samples[i].ops_total_ps;
    assert_rel(tps, 224501.01, 1e-6); /* python3 */
    iostat_data_free(d);
}

static void sadf_csv_keeps_all_190_records(void **state)
{
    struct iostat_data *d = parse_shared("iostat/sadf_d_lab_run1_disk.csv");
    double tps = 0, w = 0;

    (void)state;
    assert_int_equal(d->n, 190);
    assert_int_equal(d->n_reports_dropped, 0);
    assert_string_equal(d->host, "vm");
    assert_rel(d->interval_s, 1.0, 0.0);
    /* vm;1;2026-11-22 12:59:04 UTC;vda;17.00;0.00;20364.00;... */
    assert_string_equal(d->samples[0].device, "vda");
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_rel(d->samples[0].ops_total_ps, 17.0, 0.0);
    assert_rel(d->samples[0].r_bps, 0.0, 0.0);
    assert_rel(d->samples[0].w_bps, 20364.0 * 1024, 0.0);
    assert_true(isnan(d->samples[0].ro_ps));
    assert_true(isnan(d->samples[0].wo_ps));
    assert_int_equal(d->samples[189].stamp_s, SADF_LAST_S);
    assert_rel(d->samples[189].w_bps, 24916.0 * 1024, 0.0);
    for (size_t i = 0; i < d->n; i++) {
        tps += d->samples[i].ops_total_ps;
        w += d->samples[i].w_bps;
    }
    assert_rel(tps, 224492.69, 1e-6);    /* python3 */
    assert_rel(w, 98175249264.64, 1e-3); /* python3 */
    iostat_data_free(d);
}

static void sadf_json_equals_sadf_csv(void **state)
{
    struct iostat_data *c = parse_shared("iostat/sadf_d_lab_run1_disk.csv");
    struct iostat_data *j = parse_shared("iostat/sadf_j_lab_run1_disk.json");

    (void)state;
    assert_int_equal(j->n, c->n);
    assert_int_equal(j->n_reports_dropped, 0);
    assert_string_equal(j->host, "vm");
    assert_rel(j->interval_s, 1.0, 0.0);
    for (size_t i = 0; i < c->n; i++) {
        assert_string_equal(j->samples[i].device, c->samples[i].device);
        assert_int_equal(j->samples[i].stamp_s, c->samples[i].stamp_s);
        assert_rel(j->samples[i].r_bps, c->samples[i].r_bps, 0.0);
        assert_rel(j->samples[i].w_bps, c->samples[i].w_bps, 0.0);
        assert_rel(j->samples[i].ops_total_ps, c->samples[i].ops_total_ps, 0.0);
        assert_true(isnan(j->samples[i].ro_ps) && isnan(j->samples[i].wo_ps));
    }
    iostat_data_free(c);
    iostat_data_free(j);
}

static void avg_cpu_blocks_are_skipped(void **state)
{
    struct iostat_data *d = parse_shared("iostat/iostat_x_k_t_1s.txt");
    double w = 0;

    (void)state;
    assert_int_equal(d->n, 44);
    assert_int_equal(d->n_reports_dropped, 1);
    assert_string_equal(d->host, "vm");
    assert_rel(d->interval_s, 1.0, 0.0);
    assert_int_equal(d->samples[0].stamp_s, 1795352808); /* 13:06:48 UTC */
    /* 13:07:31: r/s 2.00 rkB/s 8.00 w/s 117.00 wkB/s 183064.00 */
    assert_int_equal(d->samples[43].stamp_s, 1795352808 + 43);
    assert_rel(d->samples[43].ro_ps, 2.0, 0.0);
    assert_rel(d->samples[43].wo_ps, 117.0, 0.0);
    assert_rel(d->samples[43].r_bps, 8.0 * 1024, 0.0);
    assert_rel(d->samples[43].w_bps, 183064.0 * 1024, 0.0);
    for (size_t i = 0; i < d->n; i++)
        w += d->samples[i].w_bps;
    assert_rel(w, 6210313185.28, 1e-4); /* python3 */
    iostat_data_free(d);
}

static void iostat_without_timestamps_is_refused(void **state)
{
    const char *path = testutil_path(testutil_shared_data(), "iostat/iostat_x_k_5s.txt");
    struct error err = {0};
    struct iostat_data *d = &sentinel;
    FILE *fp = fopen(path, "r");

    (void)state;
    assert_non_null(fp);
    assert_int_equal(ingest_iostat_parse(fp, path, NULL, &d, &err), STATUS_PARSE);
    fclose(fp);
    assert_null(d);
    assert_int_equal(err.line, 6); /* the first Device header */
    assert_string_equal(err.msg, "no timestamps: run iostat with -t");
}

static void binary_sa_file_is_refused(void **state)
{
    const char *path = testutil_path(testutil_shared_data(), "iostat/sar_lab_run1.sa");
    struct error err = {0};
    struct iostat_data *d = NULL;
    FILE *fp = fopen(path, "rb");

    (void)state;
    assert_non_null(fp);
    assert_int_equal(ingest_iostat_parse(fp, path, NULL, &d, &err), STATUS_PARSE);
    fclose(fp);
    assert_null(d);
    assert_int_equal(err.line, 1);
    assert_string_equal(err.msg, "expected iostat or sadf text, got a NUL byte");
}

/* ---- small files: formats and options ------------------------------------------- */

static void device_filter_excludes_partitions_and_mappers(void **state)
{
    const char *text = BANNER "11/22/26 12:59:03\n" XHDR XROW("vda") XROW("vda1")
        XROW("dm-0") "\n\n11/22/26 12:59:04\n" XHDR XROW("vda") XROW("vda1")
            XROW("dm-0") "\n";
    struct error err = {0};
    struct iostat_data *d = NULL;

    (void)state;
    assert_int_equal(parse_text(text, NULL, &d, &err), STATUS_OK);
    assert_int_equal(d->n, 1);
    assert_string_equal(d->samples[0].device, "vda");
    assert_int_equal(d->n_devices_excluded, 2); /* the dropped report counts none */
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    /* rkB/s 1234.5, wkB/s 4321.75; d/s 9.5, dkB/s 99999 and f/s 3.5 stay out */
    assert_rel(d->samples[0].r_bps, 1234.5 * 1024, 0.0);
    assert_rel(d->samples[0].w_bps, 4321.75 * 1024, 0.0);
    assert_rel(d->samples[0].ops_total_ps, 2.385 + 7.25, 0.0);
    iostat_data_free(d);

    assert_int_equal(parse_text(text, "^dm-[0-9]+$", &d, &err), STATUS_OK);
    assert_int_equal(d->n, 1);
    assert_string_equal(d->samples[0].device, "dm-0");
    assert_int_equal(d->n_devices_excluded, 2);
    iostat_data_free(d);
}

static void megabyte_and_sector_columns_are_scaled(void **state)
{
    const char *mb = "11/22/26 12:59:03\n"
                     "Device r/s rMB/s w/s wMB/s %util\nsdb 1 2 3 4 5\n\n"
                     "11/22/26 12:59:04\n"
                     "Device r/s rMB/s w/s wMB/s %util\nsdb 2.385 1.5 3.25 0.75 9\n";
    /* sysstat 9: "Device:" and sectors of 512 bytes */
    const char *sectors = "Linux 2.6.32 (old) \t11/22/26\n\n11/22/26 12:59:03\n"
                          "Device: rrqm/s wrqm/s r/s w/s rsec/s wsec/s avgrq-sz avgqu-sz "
                          "await svctm %util\n"
                          "sda 0 0 1 1 8 8 8 0 0 0 0\n\n11/22/26 12:59:04\n"
                          "Device: rrqm/s wrqm/s r/s w/s rsec/s wsec/s avgrq-sz avgqu-sz "
                          "await svctm %util\n"
                          "sda 0 0 2.5 4 2.385 16 8 0 0 0 0\n";
    struct error err = {0};
    struct iostat_data *d = NULL;

    (void)state;
    assert_int_equal(parse_text(mb, NULL, &d, &err), STATUS_OK);
    assert_int_equal(d->n, 1);
    assert_string_equal(d->host, "");
    assert_rel(d->samples[0].r_bps, 1.5 * 1048576, 0.0);
    assert_rel(d->samples[0].w_bps, 0.75 * 1048576, 0.0);
    assert_rel(d->samples[0].ops_total_ps, 2.385 + 3.25, 0.0);
    assert_rel(d->interval_s, 0.0, 0.0); /* one stamp */
    iostat_data_free(d);

    assert_int_equal(parse_text(sectors, NULL, &d, &err), STATUS_OK);
    assert_int_equal(d->n, 1);
    assert_string_equal(d->host, "old");
    assert_rel(d->samples[0].r_bps, 2.385 * 512, 0.0);
    assert_rel(d->samples[0].w_bps, 16.0 * 512, 0.0);
    assert_rel(d->samples[0].ro_ps, 2.5, 0.0);
    iostat_data_free(d);
}

static void locale_and_iso_stamp_variants_agree(void **state)
{
    /* Each gives 2026-11-22 12:59:04 UTC for its kept report. */
    const char *texts[] = {
        "11/22/2026 12:59:03 PM\nDevice tps kB_read/s kB_wrtn/s\nvda 1 1 1\n"
        "11/22/2026 12:59:04 PM\nDevice tps kB_read/s kB_wrtn/s\nvda 1 1 1\n",
        "2026-11-22T13:59:03+0100\nDevice tps kB_read/s kB_wrtn/s\nvda 1 1 1\n"
        "2026-11-22T13:59:04+01:00\nDevice tps kB_read/s kB_wrtn/s\nvda 1 1 1\n",
        "2026-11-22T07:59:03-05:00\nDevice tps kB_read/s kB_wrtn/s\nvda 1 1 1\n"
        "2026-11-22T12:59:04Z\nDevice tps kB_read/s kB_wrtn/s\nvda 1 1 1\n",
    };
    struct error err = {0};
    struct iostat_data *d = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        assert_int_equal(parse_text(texts[i], NULL, &d, &err), STATUS_OK);
        assert_int_equal(d->n, 1);
        assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
        iostat_data_free(d);
    }
}

static void interval_is_the_median_of_stamp_gaps(void **state)
{
    /* distinct stamps 0, 2, 7, 17, 22, 27 s after 12:59:04 (two devices at some):
     * gaps 2, 5, 10, 5, 5, sorted 2 5 5 5 10, median 5 */
    const char *odd = "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                      "h;5;2026-11-22 12:59:04 UTC;sda;1;1;1\n"
                      "h;5;2026-11-22 12:59:04 UTC;sdb;1;1;1\n"
                      "h;5;2026-11-22 12:59:06 UTC;sda;1;1;1\n"
                      "h;5;2026-11-22 12:59:06 UTC;sdb;1;1;1\n"
                      "h;5;2026-11-22 12:59:11 UTC;sda;1;1;1\n"
                      "h;5;2026-11-22 12:59:21 UTC;sda;1;1;1\n"
                      "h;5;2026-11-22 12:59:26 UTC;sda;1;1;1\n"
                      "h;5;2026-11-22 12:59:31 UTC;sdb;1;1;1\n";
    /* gaps 5 and 10: the median of an even count is the mean of the middle two */
    const char *even = "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                       "h;5;2026-11-22 12:59:04 UTC;sda;1;1;1\n"
                       "h;5;2026-11-22 12:59:09 UTC;sda;1;1;1\n"
                       "h;5;2026-11-22 12:59:19 UTC;sda;1;1;1\n";
    struct error err = {0};
    struct iostat_data *d = NULL;

    (void)state;
    assert_int_equal(parse_text(odd, NULL, &d, &err), STATUS_OK);
    assert_int_equal(d->n, 8);
    assert_string_equal(d->host, "h");
    assert_rel(d->interval_s, 5.0, 0.0);
    iostat_data_free(d);
    assert_int_equal(parse_text(even, NULL, &d, &err), STATUS_OK);
    assert_rel(d->interval_s, 7.5, 0.0);
    iostat_data_free(d);
}

static void sadf_restarts_and_other_activities_are_skipped(void **state)
{
    const char *text = "# hostname;interval;timestamp;CPU;%user;%idle\n"
                       "h;1;2026-11-22 12:59:04 UTC;-1;1.5;98.5\n"
                       "h;-1;2026-11-22 12:59:04 UTC;LINUX-RESTART\t(2 CPU)\n"
                       "# hostname;interval;timestamp;DEV;tps;rd_sec/s;wr_sec/s;%util\n"
                       "h;1;2026-11-22 12:59:04 UTC;sdc;3;2.385;8;1\n";
    struct error err = {0};
    struct iostat_data *d = NULL;

    (void)state;
    assert_int_equal(parse_text(text, NULL, &d, &err), STATUS_OK);
    assert_int_equal(d->n, 1);
    assert_rel(d->samples[0].r_bps, 2.385 * 512, 0.0);
    assert_rel(d->samples[0].w_bps, 8.0 * 512, 0.0);
    assert_rel(d->samples[0].ops_total_ps, 3.0, 0.0);
    iostat_data_free(d);
}

/* ---- every error path ----------------------------------------------------------- */

static void short_device_line_names_the_header_line(void **state)
{
    (void)state;
    expect_parse_error(BANNER "11/22/26 12:59:03\n" XHDR
                              "vda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n",
                       5, "expected 23 fields as in the Device header at line 4, got 20");
}

static void non_number_names_its_column(void **state)
{
    (void)state;
    expect_parse_error("11/22/26 12:59:03\nDevice r/s rkB/s w/s wkB/s\nvda 1 12x 3 4\n",
                       3, "expected a number in column rkB/s, got '12x'");
}

static void stray_line_is_reported(void **state)
{
    (void)state;
    expect_parse_error(BANNER "hello there\n", 3,
                       "expected a timestamp, avg-cpu or Device header line, got 'hello "
                       "there'");
    /* an impossible date is no timestamp */
    expect_parse_error(
        "02/30/26 12:00:00\n", 1,
        "expected a timestamp, avg-cpu or Device header line, got '02/30/26 "
        "12:00:00'");
}

static void second_table_without_stamp_is_reported(void **state)
{
    (void)state;
    expect_parse_error("11/22/26 12:59:04\nDevice r/s rkB/s w/s wkB/s\nvda 1 2 3 4\n\n"
                       "Device r/s rkB/s w/s wkB/s\n",
                       5, "expected a timestamp line before the Device header, got none");
}

static void header_without_bandwidth_is_reported(void **state)
{
    (void)state;
    expect_parse_error(
        "11/22/26 12:59:04\nDevice r/s w/s %util\n", 2,
        "expected a read bandwidth column (rkB/s, rMB/s, kB_read/s) in the "
        "Device header, got none");
    expect_parse_error("11/22/26 12:59:04\nDevice r/s rkB/s wkB/s\n", 2,
                       "expected r/s and w/s, or tps in the Device header, got none");
}

static void bad_avg_cpu_values_are_reported(void **state)
{
    (void)state;
    expect_parse_error("11/22/26 12:59:04\navg-cpu:  %user   %nice %system\n 1.0 2.0\n",
                       3, "expected 3 avg-cpu values as in the line above, got 2");
    expect_parse_error("11/22/26 12:59:04\navg-cpu:  %user   %nice\n 1.0 x\n", 3,
                       "expected an avg-cpu value, got 'x'");
    expect_parse_error("11/22/26 12:59:04\navg-cpu:  %user   %nice\n", 2,
                       "expected the avg-cpu values after this line, got end of file");
}

static void two_hosts_are_reported(void **state)
{
    (void)state;
    expect_parse_error(BANNER "Linux 6.1 (other) \t11/22/26\n", 3,
                       "expected one host per file (vm), got other");
}

static void device_twice_in_a_report_is_reported(void **state)
{
    (void)state;
    expect_parse_error("11/22/26 12:59:03\nDevice r/s rkB/s w/s wkB/s\nvda 1 2 3 4\n\n"
                       "11/22/26 12:59:04\nDevice r/s rkB/s w/s wkB/s\nvda 1 2 3 4\n"
                       "vda 1 2 3 4\n",
                       8, "expected each device once per report, got vda twice");
}

static void empty_input_has_no_samples(void **state)
{
    (void)state;
    expect_parse_error("", 0, "empty file");
    expect_parse_error("\n  \n", 0, "no samples");
    /* only the since-boot report */
    expect_parse_error(BANNER "11/22/26 12:59:03\n" XHDR XROW("vda"), 0, "no samples");
}

/* Parses text that must load; the caller frees. */
static struct iostat_data *parse_ok(const char *text, int64_t mtime_s)
{
    FILE *fp = tmpfile();
    struct error err = {0};
    struct iostat_data *d = NULL;

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    rewind(fp);
    if (ingest_iostat_parse_file(fp, "tmp.txt", NULL, mtime_s, &d, &err) != STATUS_OK)
        fail_msg("%ld: %s", err.line, err.msg);
    fclose(fp);
    return d;
}

#define SHORT_REPORT(stamp, w) stamp "\nDevice r/s rkB/s w/s wkB/s\nvda 1 2 3 " w "\n\n"

/* A repeated stamp is placed Δ after the report before it, never an error; a step
 * back beyond the one-second tolerance is set aside and the rest loads. */
static void repeated_stamp_is_placed_and_a_step_back_set_aside(void **state)
{
    struct iostat_data *d;

    (void)state;
    d = parse_ok(
        SHORT_REPORT("11/22/26 12:59:03", "1") SHORT_REPORT("11/22/26 12:59:04", "2")
            SHORT_REPORT("11/22/26 12:59:05", "3") SHORT_REPORT("11/22/26 12:59:05", "4")
                SHORT_REPORT("11/22/26 12:59:07", "5")
                    SHORT_REPORT("11/22/26 12:59:05", "6")
                        SHORT_REPORT("11/22/26 12:59:09", "7"),
        INT64_MAX);
    assert_int_equal(d->n, 5);
    /* the third 12:59:05, after 12:59:07: its turn (12:59:08) stays empty */
    assert_int_equal(d->n_reports_aside, 1);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(d->samples[i].stamp_s, RUN1_FIRST_S + (int64_t)i + (i == 4));
    assert_rel(d->samples[2].w_bps, 4 * 1024.0, 0.0);
    assert_rel(d->samples[4].w_bps, 7 * 1024.0, 0.0);
    assert_rel(d->interval_s, 1.0, 0.0);
    iostat_data_free(d);
    /* sadf -d: vda twice under one stamp is two records of one second */
    d = parse_ok("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                 "vm;1;2026-11-22 12:59:04 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:04 UTC;sdz;1;2;3\n"
                 "vm;1;2026-11-22 12:59:04 UTC;vda;1;2;4\n"
                 "vm;1;2026-11-22 12:59:06 UTC;vda;1;2;5\n",
                 INT64_MAX);
    assert_int_equal(d->n, 4);
    assert_int_equal(d->samples[1].stamp_s, RUN1_FIRST_S); /* sdz */
    assert_int_equal(d->samples[2].stamp_s, RUN1_FIRST_S + 1);
    assert_rel(d->samples[2].w_bps, 4 * 1024.0, 0.0);
    assert_int_equal(d->samples[3].stamp_s, RUN1_FIRST_S + 2);
    iostat_data_free(d);
}

static void cut_last_line_leaves_its_report_out(void **state)
{
    struct iostat_data *d;

    (void)state;
    /* iostat killed mid-write: "4.00" cut to "4.0" must not pass as a number, and
     * the complete reports load */
    d = parse_ok(
        SHORT_REPORT("11/22/26 12:59:03", "4") SHORT_REPORT("11/22/26 12:59:04", "5")
            SHORT_REPORT("11/22/26 12:59:05", "6") "11/22/26 12:59:06\nDevice "
                                                   "r/s rkB/s w/s wkB/s\nvda 1 "
                                                   "2 3 4.0",
        INT64_MAX);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->n_reports_cut, 1);
    assert_rel(d->samples[1].w_bps, 6 * 1024.0, 0.0);
    iostat_data_free(d);
    /* cut on a stamp line: the report before it is complete */
    d = parse_ok(SHORT_REPORT("11/22/26 12:59:03", "4")
                     SHORT_REPORT("11/22/26 12:59:04", "5") "11/22/26 12:5",
                 INT64_MAX);
    assert_int_equal(d->n, 1);
    assert_int_equal(d->n_reports_cut, 1);
    iostat_data_free(d);
    /* sadf -d: the cut record's report goes */
    d = parse_ok("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                 "vm;1;2026-11-22 12:59:04 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:05 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:06 UTC;vda;1;2",
                 INT64_MAX);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->n_reports_cut, 1);
    iostat_data_free(d);
}

/* ---- files that grow (the ledger's continuation) ------------------------------------
 */

/* Parses len bytes of text from from (NULL: the start) at mtime_s, now_s; the caller
 * frees. */
static struct iostat_data *parse_from(const char *text, size_t len,
                                      const struct iostat_resume *from, int64_t mtime_s,
                                      int64_t now_s)
{
    FILE *fp = tmpfile();
    struct error err = {0};
    struct iostat_data *d = NULL;

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    rewind(fp);
    struct iostat_parse_opts o = {.mtime_s = mtime_s, .now_s = now_s};
    if (ingest_iostat_parse_from(fp, "grow.txt", &o, from, &d, &err) != STATUS_OK)
        fail_msg("%ld: %s", err.line, err.msg);
    fclose(fp);
    assert_non_null(d);
    return d;
}

static char *read_shared(const char *rel, size_t *len)
{
    FILE *fp = fopen(testutil_path(testutil_shared_data(), rel), "rb");
    char *buf = malloc(1 << 20);

    assert_non_null(fp);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, fp);
    buf[*len] = '\0';
    fclose(fp);
    return buf;
}

/* The byte offset just after the n-th (1-based) occurrence of what in text. */
static size_t after_nth(const char *text, const char *what, int n)
{
    const char *at = text - 1;

    for (int i = 0; i < n; i++) {
        at = strstr(at + 1, what);
        assert_non_null(at);
    }
    return (size_t)(at - text) + strlen(what);
}

/* The samples of a then b are those of whole, in order. */
static void assert_joined(const struct iostat_data *a, const struct iostat_data *b,
                          const struct iostat_data *whole)
{
    assert_int_equal(a->n + b->n, whole->n);
    for (size_t i = 0; i < whole->n; i++) {
        const struct iostat_sample *s = i < a->n ? &a->samples[i] : &b->samples[i - a->n];

        assert_int_equal(s->stamp_s, whole->samples[i].stamp_s);
        assert_string_equal(s->device, whole->samples[i].device);
        assert_rel(s->r_bps, whole->samples[i].r_bps, 0.0);
        assert_rel(s->w_bps, whole->samples[i].w_bps, 0.0);
    }
}

/* The real capture cut in its 20th vda row: 18 samples (the since-boot report
 * dropped, the cut one left), and the rest parsed from where that stopped gives the
 * other 26 with no report dropped: together the whole file's 44. */
static void grown_iostat_text_continues_where_it_stopped(void **state)
{
    size_t len, cut;
    char *text = read_shared("iostat/iostat_x_k_t_1s.txt", &len);
    struct iostat_data *whole = parse_from(text, len, NULL, INT64_MAX, INT64_MAX);
    struct iostat_data *a, *b;

    (void)state;
    cut = after_nth(text, "\nvda", 20) + 25;
    a = parse_from(text, cut, NULL, INT64_MAX, INT64_MAX);
    assert_int_equal(a->n, 18);
    assert_int_equal(a->n_reports_cut, 1);
    assert_int_equal(a->resume.format, IOSTAT_FORMAT_TEXT);
    assert_string_equal(a->resume.host, "vm");
    assert_true(a->complete_bytes < cut);
    assert_int_equal(a->resume.accepted_stamp_s, a->samples[a->n - 1].stamp_s);
    b = parse_from(text + a->complete_bytes, len - a->complete_bytes, &a->resume,
                   INT64_MAX, INT64_MAX);
    assert_int_equal(b->n_reports_dropped, 0);
    assert_string_equal(b->host, "vm");
    assert_rel(b->interval_s, 1.0, 0.0);
    assert_joined(a, b, whole);
    iostat_data_free(a);
    iostat_data_free(b);
    iostat_data_free(whole);
    free(text);
}

/* sadf -d cut in its 100th record: the 99 before load, and the rest, read with the
 * header the first parse kept, gives the other 91. */
static void grown_sadf_continues_with_its_header(void **state)
{
    size_t len, cut;
    char *text = read_shared("iostat/sadf_d_lab_run1_disk.csv", &len);
    struct iostat_data *whole = parse_from(text, len, NULL, INT64_MAX, INT64_MAX);
    struct iostat_data *a, *b;

    (void)state;
    cut = after_nth(text, "\nvm;", 100) + 40; /* after its stamp */
    a = parse_from(text, cut, NULL, INT64_MAX, INT64_MAX);
    assert_int_equal(a->n, 99);
    assert_int_equal(a->resume.format, IOSTAT_FORMAT_SADF);
    assert_non_null(strstr(a->resume.header, "# hostname;interval;timestamp;DEV;"));
    b = parse_from(text + a->complete_bytes, len - a->complete_bytes, &a->resume,
                   INT64_MAX, INT64_MAX);
    assert_int_equal(b->n, 91);
    assert_joined(a, b, whole);
    iostat_data_free(a);
    iostat_data_free(b);
    iostat_data_free(whole);
    free(text);
}

/* The set-aside rule goes on from the last accepted stamp: a report three days
 * after it is set aside, the next one in its place loads. */
static void continuation_keeps_the_set_aside_rule(void **state)
{
    static const char first[] =
        SHORT_REPORT("11/22/26 12:59:03", "4") SHORT_REPORT("11/22/26 12:59:04", "5");
    static const char more[] =
        SHORT_REPORT("11/25/26 12:59:05", "6") SHORT_REPORT("11/22/26 12:59:06", "7");
    struct iostat_data *a, *b;

    (void)state;
    a = parse_from(first, strlen(first), NULL, INT64_MAX, INT64_MAX);
    assert_int_equal(a->n, 1);
    assert_int_equal(a->complete_bytes, strlen(first));
    b = parse_from(more, strlen(more), &a->resume, INT64_MAX, INT64_MAX);
    assert_int_equal(b->n_reports_aside, 1);
    assert_int_equal(b->n, 1);
    assert_int_equal(b->samples[0].stamp_s, RUN1_FIRST_S - 1 + 3 + 0 * 1);
    assert_rel(b->samples[0].w_bps, 7 * 1024.0, 0.0);
    iostat_data_free(a);
    iostat_data_free(b);
}

/* A cut last line waits while the file may be written; in a file unchanged for a day
 * it is set aside, complete_bytes covers it, and the next parse skips its rest up to
 * the next report. */
static void cut_tail_of_a_day_old_file_is_set_aside(void **state)
{
    static const char text[] = SHORT_REPORT("11/22/26 12:59:03", "4")
        SHORT_REPORT("11/22/26 12:59:04", "5") "11/22/26 12:59:05\nDevice r/s rkB/s "
                                               "w/s wkB/s\nvda 1 2 3 4.";
    static const char rest[] =
        "5\nvda2 1 2 3 4\n\n" SHORT_REPORT("11/22/26 12:59:06", "8");
    const int64_t mtime_s = RUN1_FIRST_S + 3600;
    struct iostat_data *a, *b;

    (void)state;
    a = parse_from(text, strlen(text), NULL, mtime_s, mtime_s + 3600);
    assert_int_equal(a->n_reports_cut, 1);
    assert_int_equal(a->n_reports_aside, 0);
    assert_true(a->complete_bytes < strlen(text));
    iostat_data_free(a);

    a = parse_from(text, strlen(text), NULL, mtime_s, mtime_s + 2 * 86400);
    assert_int_equal(a->n, 1);
    assert_int_equal(a->n_reports_cut, 0);
    assert_int_equal(a->n_reports_aside, 1);
    assert_int_equal(a->complete_bytes, strlen(text));
    assert_true(a->resume.resync);
    assert_int_equal(a->resume.lines, 10);
    b = parse_from(rest, strlen(rest), &a->resume, INT64_MAX, INT64_MAX);
    assert_int_equal(b->n, 1);
    assert_int_equal(b->samples[0].stamp_s, RUN1_FIRST_S - 1 + 3);
    assert_rel(b->samples[0].w_bps, 8 * 1024.0, 0.0);
    iostat_data_free(a);
    iostat_data_free(b);
}

/* sadf -j cut in its 120th disk object loads the 119 complete reports before it. */
static void cut_sadf_json_loads_its_complete_reports(void **state)
{
    size_t len;
    char *text = read_shared("iostat/sadf_j_lab_run1_disk.json", &len);
    struct iostat_data *d, *whole = parse_from(text, len, NULL, INT64_MAX, INT64_MAX);

    (void)state;
    d = parse_from(text, after_nth(text, "\"disk-device\"", 120) + 30, NULL, INT64_MAX,
                   INT64_MAX);
    assert_int_equal(d->n, 119);
    assert_int_equal(d->n_reports_cut, 1);
    assert_int_equal(d->resume.format, IOSTAT_FORMAT_JSON);
    for (size_t i = 0; i < d->n; i++)
        assert_int_equal(d->samples[i].stamp_s, whole->samples[i].stamp_s);
    iostat_data_free(d);
    iostat_data_free(whole);
    free(text);
}

#define JSON_HEAD                                                                        \
    "{\"sysstat\": {\"hosts\": [{\"nodename\": \"v]m}\\\"\", \"statistics\": [\n"
#define JSON_REPORT(stamp)                                                               \
    "{\"timestamp\": \"" stamp "\", \"disk\": [{\"disk_device\": \"vda\", "              \
    "\"r/s\": 1, \"w/s\": 2, \"rkB/s\": 3, \"wkB/s\": 4}]},\n"

/* iostat -o JSON cut mid-write: brackets and quotes inside strings do not count, the
 * since-boot report is dropped, the complete one after it loads; cut before any
 * complete report, the file waits (no samples, no error); cut in the middle of a
 * document that is wrong before the cut, it is still refused. */
static void cut_iostat_json_closes_after_its_last_complete_report(void **state)
{
    static const char cut[] = JSON_HEAD JSON_REPORT("2026-11-22T12:59:03+0000")
        JSON_REPORT("2026-11-22T12:59:04+0000") "{\"timestamp\": \"2026-11-22T12:5";
    static const char early[] = JSON_HEAD "{\"timestamp\": \"2026-11-22T12:59:03+00";
    struct iostat_data *d;
    struct error err = {0};

    (void)state;
    d = parse_from(cut, strlen(cut), NULL, INT64_MAX, INT64_MAX);
    assert_string_equal(d->host, "v]m}\"");
    assert_int_equal(d->n, 1);
    assert_int_equal(d->n_reports_dropped, 1);
    assert_int_equal(d->n_reports_cut, 1);
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_rel(d->samples[0].r_bps, 3 * 1024.0, 0.0);
    iostat_data_free(d);
    d = parse_from(early, strlen(early), NULL, INT64_MAX, INT64_MAX);
    assert_int_equal(d->n, 0);
    assert_int_equal(d->n_reports_cut, 1);
    iostat_data_free(d);
    d = &sentinel;
    assert_int_equal(parse_text(JSON_HEAD JSON_REPORT("2026-11-22T12:59:03+0000") "{,,",
                                NULL, &d, &err),
                     STATUS_PARSE);
    assert_null(d);
}

/* A day of 60 s `iostat -t` text from a machine whose clock came up at 01/01/00 (a
 * CMOS reset) and was set by NTP three reports later: a banner dated 12/05/26, three
 * reports stamped 2000-01-01, then the 1,439 reports of 2026-12-05. Owned text. */
static char *clock_reset_day(size_t *n_lines_per_report)
{
    size_t cap = 1500 * 80, len = 0;
    char *text = malloc(cap);

    assert_non_null(text);
    len +=
        (size_t)snprintf(text + len, cap - len,
                         "Linux 6.18.44-fc-v595 (vm) \t12/05/26 \t_x86_64_\t(2 CPU)\n\n");
    for (int i = 0; i < 3 + 1439; i++) {
        int m = i < 3 ? i : i - 2; /* 00:00, 00:01, 00:02 in 2000; 00:01 on in 2026 */
        int n = snprintf(text + len, cap - len,
                         "%s %02d:%02d:00\n"
                         "Device r/s rkB/s w/s wkB/s\nvda 1 2 3 %d\n\n",
                         i < 3 ? "01/01/00" : "12/05/26", m / 60, m % 60, i);
        assert_true(n > 0 && (size_t)n < cap - len);
        len += (size_t)n;
    }
    *n_lines_per_report = 4;
    return text;
}

#define DEC05_2026_S 1796428800 /* 2026-12-05T00:00:00Z: date -u -d 2026-12-05 +%s */

/* The three reports of the reset clock are set aside, each with its line and its
 * distance from the majority; all 1,439 reports of the day load. Before the
 * majority rule the first of them was the reference: 2 samples in 2000 loaded and
 * the day's 1,439 reports were set aside. */
static void clock_reset_at_a_files_start_is_the_minority(void **state)
{
    size_t per;
    char *text = clock_reset_day(&per);
    struct log_capture logs = {0};
    struct iostat_data *d;

    (void)state;
    log_capture_to(&logs);
    d = parse_ok(text, DEC05_2026_S + 86400);
    log_capture_to(NULL);
    assert_non_null(logs.text);
    for (int i = 0; i < 3; i++) {
        char want[160];

        snprintf(want, sizeof want,
                 "tmp.txt:%zu: report stamped 2000-01-01T00:%02d:00Z set aside: 26 years "
                 "from the file's median 2026-12-05T12:00:00Z (1439 of its 1442 reports)",
                 3 + (size_t)i * per, i);
        if (strstr(logs.text, want) == NULL)
            fail_msg("no line '%s' in:\n%.600s", want, logs.text);
    }
    assert_int_equal(d->n_reports_aside, 3);
    assert_int_equal(d->n, 1439);
    assert_int_equal(d->samples[0].stamp_s, DEC05_2026_S + 60);
    assert_int_equal(d->samples[1438].stamp_s, DEC05_2026_S + 1439 * 60);
    assert_rel(d->samples[0].w_bps, 3 * 1024.0, 0.0);
    assert_rel(d->interval_s, 60.0, 0.0);
    free(logs.text);
    iostat_data_free(d);
    free(text);
}

/* sadf -d keeps its first record, so a reset clock's records there were the whole
 * reference: the majority now decides there too. */
static void sadf_clock_reset_is_the_minority(void **state)
{
    struct iostat_data *d;

    (void)state;
    d = parse_ok("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                 "vm;1;2000-01-01 00:00:01 UTC;vda;1;2;3\n"
                 "vm;1;2000-01-01 00:00:02 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:05 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:06 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:07 UTC;vda;1;2;3\n",
                 INT64_MAX);
    assert_int_equal(d->n_reports_aside, 2);
    assert_int_equal(d->n, 3);
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S + 1);
    iostat_data_free(d);
}

/* Three against three, the wrong clock first: the banner's date says which is right
 * (and the file's mtime, when it is known), wherever it stands in the file. */
static void a_tie_goes_to_the_banner_and_the_mtime(void **state)
{
    static const char text[] =
        "Linux 6.18.44-fc-v595 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n" SHORT_REPORT(
            "01/01/00 00:00:01", "1") SHORT_REPORT("01/01/00 00:00:02", "2")
            SHORT_REPORT("01/01/00 00:00:03", "3") SHORT_REPORT("11/22/26 12:59:04", "4")
                SHORT_REPORT("11/22/26 12:59:05", "5")
                    SHORT_REPORT("11/22/26 12:59:06", "6");
    struct iostat_data *d;

    (void)state;
    for (int with_mtime = 0; with_mtime < 2; with_mtime++) {
        d = parse_ok(text, with_mtime ? RUN1_FIRST_S + 3600 : INT64_MAX);
        assert_int_equal(d->n_reports_aside, 3);
        assert_int_equal(d->n, 3);
        assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
        assert_rel(d->samples[2].w_bps, 6 * 1024.0, 0.0);
        iostat_data_free(d);
    }
}

/* Five reports on a reset clock, then two after NTP set it (a growing file read
 * early, or a day mostly before NTP): the file's mtime, written by the clock NTP
 * keeps, outweighs the count; with no mtime known the count decides. */
static void the_mtime_outweighs_the_count(void **state)
{
    static const char text[] = SHORT_REPORT("01/01/00 00:00:01", "1")
        SHORT_REPORT("01/01/00 00:00:02", "2") SHORT_REPORT("01/01/00 00:00:03", "3")
            SHORT_REPORT("01/01/00 00:00:04", "4") SHORT_REPORT("01/01/00 00:00:05", "5")
                SHORT_REPORT("11/22/26 12:59:04", "6")
                    SHORT_REPORT("11/22/26 12:59:05", "7");
    struct iostat_data *d;

    (void)state;
    d = parse_ok(text, RUN1_FIRST_S + 60);
    assert_int_equal(d->n_reports_aside, 5);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_rel(d->samples[1].w_bps, 7 * 1024.0, 0.0);
    iostat_data_free(d);
    /* the file's first report (since boot) is not a sample: 4 of the 5 */
    d = parse_ok(text, INT64_MAX);
    assert_int_equal(d->n_reports_aside, 2);
    assert_int_equal(d->n, 4);
    iostat_data_free(d);
}

static void report_far_from_its_place_is_set_aside(void **state)
{
    struct iostat_data *d;

    (void)state;
    /* a 01/01/00 stamp among 2026's: set aside, the rest loads */
    d = parse_ok(
        SHORT_REPORT("11/22/26 12:59:03", "4") SHORT_REPORT("11/22/26 12:59:04", "5")
            SHORT_REPORT("01/01/00 12:59:05", "6") SHORT_REPORT("11/22/26 12:59:06", "7"),
        INT64_MAX);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->n_reports_aside, 1);
    assert_int_equal(d->samples[1].stamp_s, 1795352346);
    assert_rel(d->interval_s, 2.0, 0.0);
    iostat_data_free(d);
}

static void report_before_2000_is_set_aside(void **state)
{
    struct iostat_data *d;

    (void)state;
    /* sadf keeps its first record: the 1999 one is the only reference there is */
    d = parse_ok("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                 "vm;1;1999-12-31 23:59:59 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:05 UTC;vda;1;2;3\n"
                 "vm;1;2026-11-22 12:59:06 UTC;vda;1;2;3\n",
                 INT64_MAX);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->n_reports_aside, 1);
    iostat_data_free(d);
}

static void report_a_day_after_the_mtime_is_set_aside(void **state)
{
    struct iostat_data *d;

    (void)state;
    /* 12:59:04 is 2026-11-22T12:59:04Z = 1795352344: the file was last written a day
     * and 1 s before 12:59:05 */
    d = parse_ok(SHORT_REPORT("11/22/26 12:59:03", "4")
                     SHORT_REPORT("11/22/26 12:59:04", "5")
                         SHORT_REPORT("11/22/26 12:59:05", "6"),
                 1795352345 - 86400 - 1);
    assert_int_equal(d->n, 1);
    assert_int_equal(d->n_reports_aside, 1);
    iostat_data_free(d);
}

static void report_with_a_negative_rate_is_set_aside(void **state)
{
    struct iostat_data *d;

    (void)state;
    d = parse_ok(SHORT_REPORT("11/22/26 12:59:03", "4")
                     SHORT_REPORT("11/22/26 12:59:04", "5")
                         SHORT_REPORT("11/22/26 12:59:05", "-6")
                             SHORT_REPORT("11/22/26 12:59:06", "7"),
                 INT64_MAX);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->n_reports_aside, 1);
    assert_int_equal(d->samples[1].stamp_s, 1795352346);
    iostat_data_free(d);
}

static void all_devices_excluded_says_so(void **state)
{
    (void)state;
    expect_parse_error("11/22/26 12:59:03\nDevice r/s rkB/s w/s wkB/s\nsda1 1 2 3 4\n\n"
                       "11/22/26 12:59:04\nDevice r/s rkB/s w/s wkB/s\nsda1 1 2 3 4\n",
                       0,
                       "no samples: the 1 device rows did not match the include regex");
}

static void sadf_field_count_names_the_header_line(void **state)
{
    (void)state;
    expect_parse_error(
        "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;"
        "aqu-sz;await;%util\n"
        "vm;1;2026-11-22 12:59:04 UTC;vda;17.00;0.00;20364.00;0.00;1197.88;"
        "0.02;1.12\n",
        2, "expected 12 fields as in the sadf header at line 1, got 11");
}

static void sadf_record_before_header_is_reported(void **state)
{
    (void)state;
    expect_parse_error(
        "vm;1;2026-11-22 12:59:04 UTC;vda;17.00;0.00;20364.00\n", 1,
        "expected a sadf -d header '# hostname;interval;timestamp;...', got "
        "'vm;1;2026-11-22 12:59:04 UTC;vda;17.00;0'");
}

static void sadf_bad_stamp_is_reported(void **state)
{
    (void)state;
    expect_parse_error("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\n"
                       "vm;1;2026-11-22 12:59:04 CET;vda;1;2;3\n",
                       2,
                       "expected a timestamp like 2026-11-22 12:59:04 UTC, got "
                       "'2026-11-22 12:59:04 CET'");
}

static void broken_json_names_jansson_line(void **state)
{
    struct error err = {0};
    struct iostat_data *d = &sentinel;

    (void)state;
    assert_int_equal(
        parse_text("\n{\"sysstat\": {\n\t\"hosts\": [\n\t\t{\"nodename\": \"vm\",,\n",
                   NULL, &d, &err),
        STATUS_PARSE);
    assert_null(d);
    assert_int_equal(err.line, 4); /* the ",," after one leading blank line */
    assert_non_null(strstr(err.msg, "expected JSON: "));
}

static void json_contents_errors_name_the_element(void **state)
{
    (void)state;
    expect_parse_error(
        "{\"sysstat\": {\"hosts\": [{\"nodename\": \"vm\", \"statistics\": ["
        "{\"timestamp\": \"11/22/26 12:59:03\", \"disk\": []},"
        "{\"timestamp\": \"11/22/26 12:59:04\", \"disk\": [{\"disk_device\": "
        "\"vda\", \"r/s\": \"1\", \"w/s\": 1, \"rkB/s\": 1, \"wkB/s\": 1}]}"
        "]}]}}\n",
        0, "statistics[1].disk[0]: expected a number for \"r/s\"");
    expect_parse_error(
        "{\"sysstat\": {\"hosts\": [{\"nodename\": \"vm\", \"statistics\": ["
        "{\"disk\": [{\"disk_device\": \"vda\", \"r/s\": 1, \"w/s\": 1, "
        "\"rkB/s\": 1, \"wkB/s\": 1}]}]}]}}\n",
        0, "no timestamps: run iostat with -t");
    expect_parse_error("{\"sysstat\": {\"hosts\": []}}", 0,
                       "expected sysstat.hosts with one host, got another count");
    expect_parse_error(
        "{\"sysstat\": {\"hosts\": [{\"statistics\": ["
        "{\"timestamp\": \"11/22/26 12:59:03\", \"disk\": [{\"disk_device\": "
        "\"vda\", \"r/s\": 1, \"w/s\": 1, \"wkB/s\": 1}]}]}]}}",
        0,
        "statistics[0].disk[0]: expected a read bandwidth column (rkB/s, "
        "rMB/s, kB_read/s), got none");
}

static void bad_include_regex_is_invalid(void **state)
{
    struct error err = {0};
    struct iostat_data *d = &sentinel;

    (void)state;
    assert_int_equal(parse_text("x\n", "(vd", &d, &err), STATUS_INVALID);
    assert_null(d);
    assert_non_null(strstr(err.msg, "device include regex '(vd'"));
    error_clear(&err);
    assert_int_equal(ingest_iostat_parse(NULL, "x", NULL, &d, &err), STATUS_INVALID);
}

static void unreadable_stream_is_internal(void **state)
{
    struct error err = {0};
    struct iostat_data *d = &sentinel;
    FILE *fp = tmpfile();
    FILE *wo;

    (void)state;
    assert_non_null(fp);
    /* A write-only stream: every read fails (EBADF). */
    wo = fdopen(dup(fileno(fp)), "w");
    assert_non_null(wo);
    assert_int_equal(ingest_iostat_parse(wo, "wo.txt", NULL, &d, &err), STATUS_INTERNAL);
    assert_null(d);
    assert_non_null(strstr(err.msg, "read error"));
    fclose(wo);
    fclose(fp);
}

/* v in one of six forms: %.2f, %.0f, %.7f, %.17g, %.3e, %+.2f. */
static void number_form(char *out, size_t size, size_t form, double v)
{
    switch (form) {
    case 0: snprintf(out, size, "%.2f", v); break;
    case 1: snprintf(out, size, "%.0f", v); break;
    case 2: snprintf(out, size, "%.7f", v); break;
    case 3: snprintf(out, size, "%.17g", v); break;
    case 4: snprintf(out, size, "%.3e", v); break;
    default: snprintf(out, size, "%+.2f", v); break;
    }
}

/* Every column read is the double strtod gives for its text, bit for bit, whatever
 * its form: the plain decimals sysstat prints (read without strtod), long mantissas,
 * exponents and signs (read with it). 2,000 reports of random values. */
static void numbers_read_as_strtod_reads_them(void **state)
{
    enum { REPORTS = 2000 };
    char(*rk)[40] = calloc(REPORTS, sizeof *rk), (*wr)[40] = calloc(REPORTS, sizeof *wr);
    size_t cap = (size_t)REPORTS * 160 + 64, len = 0;
    char *text = malloc(cap);
    struct error err = {0};
    struct iostat_data *d = NULL;

    (void)state;
    assert_true(rk != NULL && wr != NULL && text != NULL);
    testutil_rng_seed(99);
    /* the first report is since boot, dropped: 0 stands in for it */
    for (int i = 0; i <= REPORTS; i++) {
        size_t f1 = (size_t)(testutil_uniform() * 6),
               f2 = (size_t)(testutil_uniform() * 6);
        char a[40] = "0", b[40] = "0";
        if (i > 0) {
            number_form(a, sizeof a, f1,
                        testutil_uniform() * pow(10, testutil_uniform() * 14));
            number_form(b, sizeof b, f2,
                        testutil_uniform() * pow(10, testutil_uniform() * 7));
            memcpy(rk[i - 1], a, sizeof a);
            memcpy(wr[i - 1], b, sizeof b);
        }
        len += (size_t)snprintf(text + len, cap - len,
                                "11/22/26 %02d:%02d:%02d\nDevice r/s rkB/s w/s wkB/s\n"
                                "sda 1 %s 2 %s\n\n",
                                i / 3600, i / 60 % 60, i % 60, a, b);
    }
    assert_int_equal(parse_text(text, NULL, &d, &err), STATUS_OK);
    assert_int_equal(d->n, REPORTS);
    for (size_t i = 0; i < d->n; i++) {
        double r = strtod(rk[i], NULL) * 1024.0, w = strtod(wr[i], NULL) * 1024.0;
        /* == on doubles on purpose: the same bits, not a close value */
        if (r != d->samples[i].r_bps || w != d->samples[i].w_bps)
            fail_msg("report %zu: '%s' '%s' read as %.17g %.17g", i + 1, rk[i], wr[i],
                     d->samples[i].r_bps / 1024.0, d->samples[i].w_bps / 1024.0);
    }
    iostat_data_free(d);
    free(text);
    free(rk);
    free(wr);
}

/* ---- iostat timing as it really is ---------------------------------------------- */

#define MAX_STAMPS 512

/* The stamp lines of a real capture (locale "11/22/26 ..." or ISO "2026-11-22T..."),
 * each of one length within a file: their offsets. Returns how many. */
static size_t stamp_lines(const char *text, size_t len, size_t at[MAX_STAMPS],
                          size_t *line_len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i = (size_t)(strchr(text + i, '\n') - text) + 1) {
        if (strncmp(text + i, "11/22/26 ", 9) == 0 ||
            strncmp(text + i, "2026-11-22T", 11) == 0) {
            assert_true(n < MAX_STAMPS);
            at[n++] = i;
            *line_len = strcspn(text + i, "\n");
        }
        if (strchr(text + i, '\n') == NULL)
            break;
    }
    return n;
}

/* Parses path with opts' zone (NULL: UTC) and mtime unknown; the caller frees. */
static struct iostat_data *parse_path_tz(const char *path, const char *tz)
{
    struct iostat_parse_opts o = {
        .timezone = tz, .mtime_s = INT64_MAX, .now_s = INT64_MAX};
    struct error err = {0};
    struct iostat_data *d = NULL;
    FILE *fp = fopen(path, "r");

    assert_non_null(fp);
    if (ingest_iostat_parse_from(fp, path, &o, NULL, &d, &err) != STATUS_OK)
        fail_msg("%s:%ld: %s", path, err.line, err.msg);
    fclose(fp);
    return d;
}

/* Parses len bytes of text with zone tz from from (NULL: the start); the caller
 * frees. */
static struct iostat_data *parse_tz(const char *text, size_t len, const char *tz,
                                    const struct iostat_resume *from)
{
    struct iostat_parse_opts o = {
        .timezone = tz, .mtime_s = INT64_MAX, .now_s = INT64_MAX};
    struct error err = {0};
    struct iostat_data *d = NULL;
    FILE *fp = tmpfile();

    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    rewind(fp);
    if (ingest_iostat_parse_from(fp, "tz.txt", &o, from, &d, &err) != STATUS_OK)
        fail_msg("%ld: %s", err.line, err.msg);
    fclose(fp);
    return d;
}

/* Every cut of text at a stamp line from the third on, continued from the first
 * part's resume state, gives the samples of the whole parse, stamps included. */
static void assert_every_resume_joins(const char *text, size_t len, const char *tz,
                                      size_t step)
{
    size_t at[MAX_STAMPS], line_len = 0;
    size_t n = stamp_lines(text, len, at, &line_len);
    struct iostat_data *whole = parse_tz(text, len, tz, NULL);

    for (size_t k = 2; k < n; k += step) {
        /* cut in the middle of stamp line k: the report before is complete */
        struct iostat_data *a = parse_tz(text, at[k] + 5, tz, NULL);
        struct iostat_data *b =
            parse_tz(text + a->complete_bytes, len - a->complete_bytes, tz, &a->resume);

        assert_joined(a, b, whole);
        iostat_data_free(a);
        iostat_data_free(b);
    }
    iostat_data_free(whole);
}

/* The real 1 s captures with, edited in, a repeated second (report 10 printed with
 * report 9's stamp, then a skip to report 11's) and a skipped one (report 30 printed
 * with report 31's, which then repeats it), and the lab's with more: every report
 * loads, each at the stamp of the unedited file, with the same values; the edited
 * copy is a file in a temporary directory. The resumed parse places as the whole. */
static void
real_captures_with_a_repeated_and_a_skipped_second_load_every_report(void **state)
{
    static const char *const files[] = {
        "iostat/iostat_x_k_t_1s.txt",
        "lab/run1_queue_depth/iostat/iostat_dxt.txt",
        "lab/run1_queue_depth/iostat/iostat_dkt.txt",
        "lab/run1_queue_depth/iostat/iostat_dxkt_iso.txt",
    };
    char dir[] = "/tmp/iocontend-timing-XXXXXX";
    char path[128];

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/edited.txt", dir);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len, at[MAX_STAMPS], line_len = 0;
        char *text = read_shared(files[f], &len);
        size_t n = stamp_lines(text, len, at, &line_len);
        char *edited = malloc(len + 1);
        struct iostat_data *before = parse_shared(files[f]), *after;
        /* (report, the report whose stamp it is printed with) */
        static const size_t edits[][2] = {{10, 9}, {30, 31}, {120, 119}, {150, 151}};

        assert_non_null(edited);
        memcpy(edited, text, len + 1);
        for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
            if (edits[e][0] + 1 < n)
                memcpy(edited + at[edits[e][0]], text + at[edits[e][1]], line_len);
        }
        assert_true(memcmp(edited, text, len) != 0);
        assert_int_equal(testutil_write_file(path, edited, len), 0);
        after = parse_path_tz(path, NULL);
        /* the unedited file: one report a second, as before */
        for (size_t i = 0; i < before->n; i++)
            assert_int_equal(before->samples[i].stamp_s,
                             before->samples[0].stamp_s + (int64_t)i);
        assert_int_equal(after->n_reports_aside, 0);
        assert_rel(after->interval_s, 1.0, 0.0);
        assert_joined(after, &(struct iostat_data){0}, before);
        assert_every_resume_joins(edited, len, NULL, 1);
        iostat_data_free(before);
        iostat_data_free(after);
        free(edited);
        free(text);
    }
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A stamp two seconds back (beyond Δ = 1 s) is set aside by the rule of the safe
 * night: the rest of the real capture loads at its own stamps. */
static void a_step_back_beyond_one_interval_is_set_aside(void **state)
{
    size_t len, at[MAX_STAMPS], line_len = 0;
    char *text = read_shared("iostat/iostat_x_k_t_1s.txt", &len);
    size_t n = stamp_lines(text, len, at, &line_len);
    struct iostat_data *whole = parse_tz(text, len, NULL, NULL), *d;

    (void)state;
    assert_true(n == 45);
    memcpy(text + at[20], text + at[18], line_len);
    d = parse_tz(text, len, NULL, NULL);
    assert_int_equal(d->n, whole->n - 1);
    assert_int_equal(d->n_reports_aside, 1);
    for (size_t i = 0; i < d->n; i++) {
        size_t w = i < 19 ? i : i + 1; /* report 20 is sample 19 of the whole */
        assert_int_equal(d->samples[i].stamp_s, whole->samples[w].stamp_s);
        assert_rel(d->samples[i].w_bps, whole->samples[w].w_bps, 0.0);
    }
    iostat_data_free(d);
    iostat_data_free(whole);
    free(text);
}

/* Locale stamps are read in [samples] timezone: Europe/Berlin in November is UTC+1,
 * so every stamp is 3600 s earlier than read as UTC. */
static void locale_stamps_are_read_in_the_configured_zone(void **state)
{
    const char *path =
        testutil_path(testutil_shared_data(), "iostat/iostat_x_k_t_1s.txt");
    struct iostat_data *utc = parse_path_tz(path, "UTC"), *berlin;

    (void)state;
    berlin = parse_path_tz(path, "Europe/Berlin");
    assert_int_equal(berlin->n, utc->n);
    assert_int_equal(utc->samples[0].stamp_s, 1795352808); /* 13:06:48 UTC */
    for (size_t i = 0; i < utc->n; i++)
        assert_int_equal(berlin->samples[i].stamp_s, utc->samples[i].stamp_s - 3600);
    iostat_data_free(utc);
    iostat_data_free(berlin);
}

/* ISO stamps with an offset, sadf's " UTC" and sadf -j's "utc": 1 keep their zone
 * whatever the configured one. */
static void stamps_with_a_zone_keep_it(void **state)
{
    static const char *const files[] = {
        "lab/run1_queue_depth/iostat/iostat_dxkt_iso.txt",
        "iostat/sadf_d_lab_run1_disk.csv",
        "iostat/sadf_j_lab_run1_disk.json",
    };
    static const char plus1[] = "2026-11-22T13:59:03+0100\nDevice tps kB_read/s "
                                "kB_wrtn/s\nvda 1 1 1\n\n2026-11-22T13:59:04+0100\n"
                                "Device tps kB_read/s kB_wrtn/s\nvda 1 1 1\n\n";
    struct iostat_data *d;

    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        const char *path = testutil_path(testutil_shared_data(), files[f]);
        struct iostat_data *utc = parse_path_tz(path, NULL);
        struct iostat_data *ny = parse_path_tz(path, "America/New_York");

        assert_int_equal(utc->samples[0].stamp_s, RUN1_FIRST_S);
        assert_joined(ny, &(struct iostat_data){0}, utc);
        iostat_data_free(utc);
        iostat_data_free(ny);
    }
    d = parse_tz(plus1, strlen(plus1), "Asia/Tokyo", NULL);
    assert_int_equal(d->n, 1);
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    iostat_data_free(d);
}

/* The real 1 s capture restamped as printed by a Berlin clock whose reports are one
 * second apart from utc0 on: local = UTC + 1 h before the change at change_s, + 2 h
 * after (spring), or the reverse (autumn). */
static char *restamp_local(int64_t utc0, int64_t change_s, bool spring, size_t *len)
{
    size_t at[MAX_STAMPS], line_len = 0;
    char *text = read_shared("iostat/iostat_x_k_t_1s.txt", len);
    size_t n = stamp_lines(text, *len, at, &line_len);

    assert_int_equal(line_len, 17);
    for (size_t i = 0; i < n; i++) {
        int64_t t = utc0 + (int64_t)i;
        time_t local = (time_t)(t + ((t < change_s) == spring ? 3600 : 7200));
        struct tm tm;
        char stamp[32];

        assert_non_null(gmtime_r(&local, &tm));
        snprintf(stamp, sizeof stamp, "%02d/%02d/%02d %02d:%02d:%02d", tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_year % 100, tm.tm_hour, tm.tm_min, tm.tm_sec);
        assert_int_equal(strlen(stamp), 17);
        memcpy(text + at[i], stamp, 17);
    }
    return text;
}

/* Across Berlin's 2026 changes (python3 zoneinfo: 2026-03-29T01:00:00Z = 1774746000,
 * 01:59:59 CET -> 03:00:00 CEST; 2026-10-25T01:00:00Z = 1792890000, 02:59:59 CEST ->
 * 02:00:00 CET) every report is one second after the one before, and a resumed parse
 * agrees. */
static void a_dst_change_places_every_report_one_interval_apart(void **state)
{
    static const struct {
        int64_t utc0, change_s;
        bool spring;
    } cases[] = {
        {1774746000 - 20, 1774746000, true},  /* 01:59:40 CET, 20 s before */
        {1792890000 - 20, 1792890000, false}, /* 02:59:40 CEST: the hour repeats */
        {1792886400 - 20, 1792890000, false}, /* 01:59:40 CEST into the first 02:00 */
    };
    size_t cap = 4000 * 64, len = 0;
    char *text = malloc(cap);
    struct iostat_data *d;

    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n;
        char *real = restamp_local(cases[c].utc0, cases[c].change_s, cases[c].spring, &n);
        struct iostat_data *r = parse_tz(real, n, "Europe/Berlin", NULL);

        assert_int_equal(r->n, 44);
        assert_int_equal(r->n_reports_aside, 0);
        for (size_t i = 0; i < r->n; i++)
            assert_int_equal(r->samples[i].stamp_s, cases[c].utc0 + 1 + (int64_t)i);
        assert_every_resume_joins(real, n, "Europe/Berlin", 1);
        iostat_data_free(r);
        free(real);
    }
    /* 02:59:00 CEST to 03:00:40 CET, the whole repeated hour in between: 3701
     * reports after the since-boot one */
    assert_non_null(text);
    for (int64_t t = 1792889940 - 1; t <= 1792893640; t++) {
        time_t local = (time_t)(t + (t < 1792890000 ? 7200 : 3600));
        struct tm tm;

        assert_non_null(gmtime_r(&local, &tm));
        len += (size_t)snprintf(text + len, cap - len,
                                "%02d/%02d/%02d %02d:%02d:%02d\nDevice r/s rkB/s w/s "
                                "wkB/s\nsda 1 2 3 %d\n\n",
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_year % 100, tm.tm_hour,
                                tm.tm_min, tm.tm_sec, (int)(t % 1000));
        assert_true(len < cap);
    }
    d = parse_tz(text, len, "Europe/Berlin", NULL);
    assert_int_equal(d->n, 3701);
    assert_int_equal(d->n_reports_aside, 0);
    for (size_t i = 0; i < d->n; i++) {
        assert_int_equal(d->samples[i].stamp_s, 1792889940 + (int64_t)i);
        assert_rel(d->samples[i].w_bps, (double)((1792889940 + (int64_t)i) % 1000) * 1024,
                   0.0);
    }
    assert_every_resume_joins(text, len, "Europe/Berlin", 97);
    iostat_data_free(d);
    free(text);
}

/* An unknown zone is refused as a bad regex is: STATUS_INVALID naming it. */
static void an_unknown_zone_is_invalid(void **state)
{
    struct iostat_parse_opts o = {.timezone = "Mars/Olympus_Mons"};
    struct error err = {0};
    struct iostat_data *d = &sentinel;
    FILE *fp = tmpfile();

    (void)state;
    assert_non_null(fp);
    assert_int_equal(ingest_iostat_parse_from(fp, "x", &o, NULL, &d, &err),
                     STATUS_INVALID);
    assert_null(d);
    assert_non_null(
        strstr(err.msg, "no time zone 'Mars/Olympus_Mons' in /usr/share/zoneinfo"));
    fclose(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lab_text_gives_189_vda_samples_after_the_since_boot_report),
        cmocka_unit_test(lab_json_has_the_text_stamps_and_its_own_values),
        cmocka_unit_test(iso_stamps_give_the_same_epochs),
        cmocka_unit_test(basic_iostat_keeps_tps_as_ops_total),
        cmocka_unit_test(sadf_csv_keeps_all_190_records),
        cmocka_unit_test(sadf_json_equals_sadf_csv),
        cmocka_unit_test(avg_cpu_blocks_are_skipped),
        cmocka_unit_test(iostat_without_timestamps_is_refused),
        cmocka_unit_test(binary_sa_file_is_refused),
        cmocka_unit_test(device_filter_excludes_partitions_and_mappers),
        cmocka_unit_test(megabyte_and_sector_columns_are_scaled),
        cmocka_unit_test(locale_and_iso_stamp_variants_agree),
        cmocka_unit_test(interval_is_the_median_of_stamp_gaps),
        cmocka_unit_test(sadf_restarts_and_other_activities_are_skipped),
        cmocka_unit_test(short_device_line_names_the_header_line),
        cmocka_unit_test(non_number_names_its_column),
        cmocka_unit_test(stray_line_is_reported),
        cmocka_unit_test(repeated_stamp_is_placed_and_a_step_back_set_aside),
        cmocka_unit_test(second_table_without_stamp_is_reported),
        cmocka_unit_test(header_without_bandwidth_is_reported),
        cmocka_unit_test(bad_avg_cpu_values_are_reported),
        cmocka_unit_test(two_hosts_are_reported),
        cmocka_unit_test(device_twice_in_a_report_is_reported),
        cmocka_unit_test(empty_input_has_no_samples),
        cmocka_unit_test(cut_last_line_leaves_its_report_out),
        cmocka_unit_test(grown_iostat_text_continues_where_it_stopped),
        cmocka_unit_test(grown_sadf_continues_with_its_header),
        cmocka_unit_test(continuation_keeps_the_set_aside_rule),
        cmocka_unit_test(cut_tail_of_a_day_old_file_is_set_aside),
        cmocka_unit_test(cut_sadf_json_loads_its_complete_reports),
        cmocka_unit_test(cut_iostat_json_closes_after_its_last_complete_report),
        cmocka_unit_test(report_far_from_its_place_is_set_aside),
        cmocka_unit_test(clock_reset_at_a_files_start_is_the_minority),
        cmocka_unit_test(sadf_clock_reset_is_the_minority),
        cmocka_unit_test(a_tie_goes_to_the_banner_and_the_mtime),
        cmocka_unit_test(the_mtime_outweighs_the_count),
        cmocka_unit_test(report_before_2000_is_set_aside),
        cmocka_unit_test(report_a_day_after_the_mtime_is_set_aside),
        cmocka_unit_test(report_with_a_negative_rate_is_set_aside),
        cmocka_unit_test(all_devices_excluded_says_so),
        cmocka_unit_test(sadf_field_count_names_the_header_line),
        cmocka_unit_test(sadf_record_before_header_is_reported),
        cmocka_unit_test(sadf_bad_stamp_is_reported),
        cmocka_unit_test(broken_json_names_jansson_line),
        cmocka_unit_test(json_contents_errors_name_the_element),
        cmocka_unit_test(bad_include_regex_is_invalid),
        cmocka_unit_test(unreadable_stream_is_internal),
        cmocka_unit_test(numbers_read_as_strtod_reads_them),
        cmocka_unit_test(
            real_captures_with_a_repeated_and_a_skipped_second_load_every_report),
        cmocka_unit_test(a_step_back_beyond_one_interval_is_set_aside),
        cmocka_unit_test(locale_stamps_are_read_in_the_configured_zone),
        cmocka_unit_test(stamps_with_a_zone_keep_it),
        cmocka_unit_test(a_dst_change_places_every_report_one_interval_apart),
        cmocka_unit_test(an_unknown_zone_is_invalid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
