/* test_iostat_queue.c: the queue columns of METHOD.md §11 (aqu-sz, %util, r_await,
 * w_await, await) from every real capture, checked against the files' own text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN1_FIRST_S 1795352344 /* 2026-11-22 12:59:04 UTC (as test_iostat.c) */

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

/* sysstat 12.6 iostat -x columns: r_await is field 5, w_await 11, aqu-sz 21, %util 22
 * (0-based after the device). */
#define X_FIELDS  22
#define X_R_AWAIT 4
#define X_W_AWAIT 10
#define X_AQU_SZ  20
#define X_UTIL    21

/* Reads the vda lines of an iostat -x text file independently of the parser (a
 * plain scan of 22 numbers after the name) and checks every kept sample's queue
 * columns against them; the first vda line is the since-boot report. */
static void text_matches_file(const char *rel, const struct iostat_data *d)
{
    FILE *fp = fopen(testutil_path(testutil_shared_data(), rel), "r");
    char line[1024];
    size_t row = 0;

    assert_non_null(fp);
    while (fgets(line, sizeof line, fp) != NULL) {
        double v[X_FIELDS];
        char *at = line + 3;

        if (strncmp(line, "vda ", 4) != 0)
            continue;
        for (size_t k = 0; k < X_FIELDS; k++) {
            char *end;
            v[k] = strtod(at, &end);
            assert_true(end != at);
            at = end;
        }
        if (row > 0) {
            const struct iostat_sample *s = &d->samples[row - 1];
            assert_true(row - 1 < d->n);
            assert_true(s->aqu_sz == v[X_AQU_SZ]);
            assert_true(s->util_pct == v[X_UTIL]);
            assert_true(s->r_await_ms == v[X_R_AWAIT]);
            assert_true(s->w_await_ms == v[X_W_AWAIT]);
            /* r_await and w_await are given: no combined await is kept. */
            assert_true(isnan(s->await_ms));
        }
        row++;
    }
    fclose(fp);
    assert_int_equal(row - 1, d->n);
}

static void lab_text_has_every_queue_column(void **state)
{
    const char *rel = "lab/run1_queue_depth/iostat/iostat_dxt.txt";
    struct iostat_data *d = parse_shared(rel);

    (void)state;
    assert_int_equal(d->n, 189);
    /* Line 11, 12:59:04: r_await 0.12, w_await 1.12, aqu-sz 0.02, %util 1.60. */
    assert_int_equal(d->samples[0].stamp_s, RUN1_FIRST_S);
    assert_rel(d->samples[0].r_await_ms, 0.12, 0.0);
    assert_rel(d->samples[0].w_await_ms, 1.12, 0.0);
    assert_rel(d->samples[0].aqu_sz, 0.02, 0.0);
    assert_rel(d->samples[0].util_pct, 1.60, 0.0);
    text_matches_file(rel, d);
    iostat_data_free(d);
}

static void lab_iso_text_and_one_second_capture_match_their_files(void **state)
{
    const char *iso = "lab/run1_queue_depth/iostat/iostat_dxkt_iso.txt";
    const char *one = "iostat/iostat_x_k_t_1s.txt";
    struct iostat_data *d = parse_shared(iso);

    (void)state;
    /* 2026-11-22T12:59:04+0000: r_await 0.18 (not the locale file's 0.12). */
    assert_rel(d->samples[0].r_await_ms, 0.18, 0.0);
    text_matches_file(iso, d);
    iostat_data_free(d);
    d = parse_shared(one);
    text_matches_file(one, d);
    iostat_data_free(d);
}

/* The JSON capture is its own run of iostat: its values are read from the document
 * with jansson, independently of the parser (statistics[0] is the since-boot one). */
static void lab_json_matches_its_document(void **state)
{
    const char *rel = "lab/run1_queue_depth/iostat/iostat_dxt_json.json";
    struct iostat_data *j = parse_shared(rel);
    json_error_t jerr;
    json_t *root = json_load_file(testutil_path(testutil_shared_data(), rel), 0, &jerr);
    json_t *stats, *item;
    size_t i;

    (void)state;
    assert_non_null(root);
    stats = json_object_get(
        json_array_get(json_object_get(json_object_get(root, "sysstat"), "hosts"), 0),
        "statistics");
    assert_int_equal(json_array_size(stats), j->n + 1);
    /* statistics[50], 12:59:53: r_await 2.76, w_await 3.31, aqu-sz 4.16, util 95.6. */
    assert_int_equal(j->samples[49].stamp_s, RUN1_FIRST_S + 49);
    assert_rel(j->samples[49].r_await_ms, 2.76, 0.0);
    assert_rel(j->samples[49].w_await_ms, 3.31, 0.0);
    assert_rel(j->samples[49].aqu_sz, 4.16, 0.0);
    assert_rel(j->samples[49].util_pct, 95.6, 0.0);
    json_array_foreach(stats, i, item)
    {
        json_t *disk = json_array_get(json_object_get(item, "disk"), 0);
        const struct iostat_sample *s = &j->samples[i - 1];

        if (i == 0)
            continue;
        assert_true(s->aqu_sz == json_number_value(json_object_get(disk, "aqu-sz")));
        assert_true(s->util_pct == json_number_value(json_object_get(disk, "util")));
        assert_true(s->r_await_ms == json_number_value(json_object_get(disk, "r_await")));
        assert_true(s->w_await_ms == json_number_value(json_object_get(disk, "w_await")));
        assert_true(isnan(s->await_ms));
    }
    json_decref(root);
    iostat_data_free(j);
}

static void sadf_gives_the_combined_await_only(void **state)
{
    struct iostat_data *c = parse_shared("iostat/sadf_d_lab_run1_disk.csv");
    struct iostat_data *j = parse_shared("iostat/sadf_j_lab_run1_disk.json");

    (void)state;
    assert_int_equal(c->n, 190);
    assert_int_equal(j->n, c->n);
    /* Line 4: 12:59:06 tps 393.00 … aqu-sz 6.11, await 15.55, %util 17.60. */
    assert_int_equal(c->samples[2].stamp_s, RUN1_FIRST_S + 2);
    assert_rel(c->samples[2].aqu_sz, 6.11, 0.0);
    assert_rel(c->samples[2].await_ms, 15.55, 0.0);
    assert_rel(c->samples[2].util_pct, 17.60, 0.0);
    assert_rel(c->samples[2].ops_total_ps, 393.0, 0.0);
    /* sadf -j statistics[100], 13:00:44: aqu-sz 2.49, await 1.88, util-percent 87.2. */
    assert_int_equal(j->samples[100].stamp_s, RUN1_FIRST_S + 100);
    assert_rel(j->samples[100].aqu_sz, 2.49, 0.0);
    assert_rel(j->samples[100].await_ms, 1.88, 0.0);
    assert_rel(j->samples[100].util_pct, 87.2, 0.0);
    for (size_t i = 0; i < c->n; i++) {
        assert_true(isnan(c->samples[i].r_await_ms) && isnan(c->samples[i].w_await_ms));
        assert_true(isnan(j->samples[i].r_await_ms) && isnan(j->samples[i].w_await_ms));
        assert_true(c->samples[i].aqu_sz == j->samples[i].aqu_sz);
        assert_true(c->samples[i].await_ms == j->samples[i].await_ms);
        assert_true(c->samples[i].util_pct == j->samples[i].util_pct);
    }
    iostat_data_free(c);
    iostat_data_free(j);
}

static void basic_iostat_has_no_queue(void **state)
{
    struct iostat_data *d = parse_shared("lab/run1_queue_depth/iostat/iostat_dkt.txt");

    (void)state;
    assert_int_equal(d->n, 189);
    for (size_t i = 0; i < d->n; i++) {
        const struct iostat_sample *s = &d->samples[i];
        assert_true(isnan(s->aqu_sz) && isnan(s->util_pct) && isnan(s->r_await_ms) &&
                    isnan(s->w_await_ms) && isnan(s->await_ms));
        assert_true(isfinite(s->ops_total_ps));
    }
    iostat_data_free(d);
}

/* Older sysstat (before 12): avgqu-sz and await beside r_await / w_await. */
static void old_sysstat_names_are_mapped(void **state)
{
    const char *text =
        "Linux 3.10.0 (old) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n"
        "11/22/26 12:59:03\n"
        "Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz "
        "avgqu-sz   await r_await w_await  svctm  %util\n"
        "sda               0.00     0.00    1.00    1.00     4.00     4.00     8.00 "
        "    0.10    1.00    1.00    1.00   0.50   0.10\n\n"
        "11/22/26 12:59:04\n"
        "Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz "
        "avgqu-sz   await r_await w_await  svctm  %util\n"
        "sda               0.00     0.00   10.00   30.00    40.00   120.00     8.00 "
        "    2.50    4.25    2.00    5.00   0.50  42.00\n";
    FILE *fp = tmpfile();
    struct iostat_data *d = NULL;
    struct error err = {0};

    (void)state;
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    rewind(fp);
    assert_int_equal(ingest_iostat_parse(fp, "old.txt", NULL, &d, &err), STATUS_OK);
    fclose(fp);
    assert_int_equal(d->n, 1);
    assert_rel(d->samples[0].aqu_sz, 2.5, 0.0);
    assert_rel(d->samples[0].util_pct, 42.0, 0.0);
    assert_rel(d->samples[0].r_await_ms, 2.0, 0.0);
    assert_rel(d->samples[0].w_await_ms, 5.0, 0.0);
    assert_true(isnan(d->samples[0].await_ms));
    iostat_data_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lab_text_has_every_queue_column),
        cmocka_unit_test(lab_iso_text_and_one_second_capture_match_their_files),
        cmocka_unit_test(lab_json_matches_its_document),
        cmocka_unit_test(sadf_gives_the_combined_await_only),
        cmocka_unit_test(basic_iostat_has_no_queue),
        cmocka_unit_test(old_sysstat_names_are_mapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
