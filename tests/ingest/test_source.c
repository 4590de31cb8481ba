/* test_source.c: inputs as the parsers see them (ingest/load/source.c): gzip, bzip2 and
 * xz files made by Debian's own gzip, bzip2 and xz decompress to the plain bytes; a cut
 * or corrupt stream and a decompression bomb are refused with what was wrong; sa
 * files through Debian's sadf (ingest/load/sadf.c) give the samples of the sadf -d CSV
 * made from the same file, and sadf's absence or too old a sadf say what is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/internal.h"
#include "../support/testutil.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char work[PATH_MAX];

static const char *work_path(const char *name)
{
    static char path[2][PATH_MAX + 128];
    static int which;

    which ^= 1;
    snprintf(path[which], sizeof path[which], "%s/%s", work, name);
    return path[which];
}

static char *shared(const char *rel, size_t *len)
{
    char *buf = testutil_read_file(testutil_path(testutil_shared_data(), rel), len);
    assert_non_null(buf);
    return buf;
}

static void sh(const char *cmd)
{
    int rc = 0;
    free(testutil_run(cmd, &rc));
    if (rc != 0)
        fail_msg("%s: exit %d", cmd, rc);
}

/* Copies the shared file rel to work/name and compresses it there with tool
 * ("gzip", "bzip2", "xz"), keeping the plain copy. */
static void compressed_copy(const char *rel, const char *name, const char *tool)
{
    char cmd[3 * PATH_MAX];

    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && %s -kf '%s'",
             testutil_path(testutil_shared_data(), rel), work_path(name), tool,
             work_path(name));
    sh(cmd);
}

/* The bytes of work/name as source_read gives them with the cap max. */
static enum status read_source(const char *name, size_t max, struct source *s,
                               struct error *err)
{
    memset(err, 0, sizeof *err);
    return source_read(work_path(name), max, s, err);
}

static void compressed_text_reads_as_plain(void **state)
{
    static const struct {
        const char *tool, *suffix;
        enum source_codec codec;
    } codecs[] = {{"gzip", ".gz", SOURCE_GZIP},
                  {"bzip2", ".bz2", SOURCE_BZIP2},
                  {"xz", ".xz", SOURCE_XZ}};
    size_t len;
    char *plain = shared("iostat/iostat_x_k_t_1s.txt", &len);

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        char name[64];
        struct source s;
        struct error err;
        snprintf(name, sizeof name, "t%zu.txt", i);
        compressed_copy("iostat/iostat_x_k_t_1s.txt", name, codecs[i].tool);
        strcat(name, codecs[i].suffix);
        assert_int_equal(read_source(name, 1 << 20, &s, &err), STATUS_OK);
        assert_int_equal(s.codec, codecs[i].codec);
        assert_int_equal(s.len, len);
        assert_memory_equal(s.data, plain, len);
        assert_false(s.too_large);
        source_free(&s);
    }
    /* The plain file is plain, even when it begins like a bzip2 header. */
    struct source s;
    struct error err;
    assert_int_equal(testutil_write_file(work_path("bzh.txt"), "BZh9 is not bzip2\n", 18),
                     0);
    assert_int_equal(read_source("bzh.txt", 1 << 20, &s, &err), STATUS_OK);
    assert_int_equal(s.codec, SOURCE_PLAIN);
    assert_int_equal(s.len, 18);
    source_free(&s);
    free(plain);
}

/* gzip -c a >> b: two members, read as gzip -d reads them. */
static void concatenated_members_read_whole(void **state)
{
    char cmd[3 * PATH_MAX];
    struct source s;
    struct error err;

    (void)state;
    snprintf(cmd, sizeof cmd,
             "printf 'first\\n' | gzip -c > '%s' && printf 'second\\n' | gzip -c >> '%s'",
             work_path("two.gz"), work_path("two.gz"));
    sh(cmd);
    assert_int_equal(read_source("two.gz", 1 << 20, &s, &err), STATUS_OK);
    assert_string_equal(s.data, "first\nsecond\n");
    source_free(&s);
}

/* A stream cut anywhere, or with a flipped byte, is corrupt: STATUS_PARSE naming the
 * codec and what was wrong, with the hash of the stored bytes as its key. */
static void cut_or_corrupt_stream_is_refused(void **state)
{
    static const char *const tools[] = {"gzip", "bzip2", "xz"};
    static const char *const names[] = {"gzip", "bzip2", "xz"};
    static const char *const suffixes[] = {".gz", ".bz2", ".xz"};

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        char name[64], cut[96], cmd[3 * PATH_MAX], want[64];
        struct source s;
        struct error err;
        snprintf(name, sizeof name, "c%zu.csv", i);
        compressed_copy("iostat/sadf_d_lab_run1_disk.csv", name, tools[i]);
        strcat(name, suffixes[i]);
        snprintf(cut, sizeof cut, "cut%s", suffixes[i]);
        snprintf(cmd, sizeof cmd, "head -c 1000 '%s' > '%s'", work_path(name),
                 work_path(cut));
        sh(cmd);
        assert_int_equal(read_source(cut, 1 << 20, &s, &err), STATUS_PARSE);
        assert_true(s.corrupt);
        assert_null(s.data);
        assert_int_equal(strlen(s.raw_hash), 32);
        snprintf(want, sizeof want, "corrupt %s stream", names[i]);
        if (strstr(err.msg, want) == NULL)
            fail_msg("%s: %s", cut, err.msg);
        if (i == 0 && strstr(err.msg, "cut short") == NULL)
            fail_msg("%s: %s", cut, err.msg);
        /* The same bytes, the same key: known bad the next time. */
        char first[33];
        memcpy(first, s.raw_hash, sizeof first);
        source_free(&s);
        assert_int_equal(read_source(cut, 1 << 20, &s, &err), STATUS_PARSE);
        assert_string_equal(s.raw_hash, first);
        source_free(&s);

        /* A byte flipped in the middle of the compressed data. */
        snprintf(cmd, sizeof cmd,
                 "cp '%s' '%s.flip' && printf '\\377\\377\\377\\377' | dd of='%s.flip' "
                 "bs=1 seek=600 conv=notrunc 2>/dev/null",
                 work_path(name), work_path(name), work_path(name));
        sh(cmd);
        snprintf(cut, sizeof cut, "%s.flip", name);
        assert_int_equal(read_source(cut, 1 << 20, &s, &err), STATUS_PARSE);
        if (strstr(err.msg, want) == NULL)
            fail_msg("%s: %s", cut, err.msg);
        source_free(&s);
    }
}

/* An xz stream whose header asks for a 1.5 GiB dictionary (made by Debian's
 * python3 lzma, 1000 bytes in 76) is refused, not decoded: every reading thread
 * would hold that much. A 64 MiB dictionary (xz -9) still decodes. */
static void xz_past_the_memory_limit_is_refused(void **state)
{
    char cmd[3 * PATH_MAX];
    struct source s;
    struct error err;

    static const int dict_mib[] = {64, 1536};

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        const int mib = dict_mib[i];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 -c 'import lzma, sys; sys.stdout.buffer.write("
                 "lzma.compress(b\"x\" * 1000, format=lzma.FORMAT_XZ, filters=[{\"id\": "
                 "lzma.FILTER_LZMA2, \"dict_size\": %d << 20, \"mf\": lzma.MF_HC3}]))' "
                 "> '%s'",
                 mib, work_path("dict.xz"));
        sh(cmd);
        enum status rc = read_source("dict.xz", 1 << 20, &s, &err);
        if (mib == 64) {
            assert_int_equal(rc, STATUS_OK);
            assert_int_equal(s.len, 1000);
        } else {
            assert_int_equal(rc, STATUS_PARSE);
            assert_true(s.corrupt);
            assert_null(s.data);
            if (strstr(err.msg, "xz stream: needs more than 256 MiB to decode") == NULL)
                fail_msg("%s", err.msg);
        }
        source_free(&s);
    }
}

/* 64 MiB of zeros compress to about 64 KiB (gzip), 50 bytes (bzip2) or 10 KiB
 * (xz): with a cap of 1 MiB each is too large, found after at most the cap plus one
 * buffer decompressed. */
static void decompression_bomb_is_too_large(void **state)
{
    static const char *const tools[] = {"gzip", "bzip2", "xz"};
    static const char *const suffixes[] = {".gz", ".bz2", ".xz"};

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        char cmd[3 * PATH_MAX], name[32];
        struct source s;
        struct error err;
        snprintf(name, sizeof name, "bomb%s", suffixes[i]);
        snprintf(cmd, sizeof cmd, "head -c 67108864 /dev/zero | %s -c > '%s'", tools[i],
                 work_path(name));
        sh(cmd);
        assert_int_equal(read_source(name, 1 << 20, &s, &err), STATUS_OK);
        assert_true(s.too_large);
        assert_null(s.data);
        source_free(&s);
    }
    /* Exactly at the cap is not too large. */
    struct source s;
    struct error err;
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "head -c 1048576 /dev/zero | gzip -c > '%s'",
             work_path("cap.gz"));
    sh(cmd);
    assert_int_equal(read_source("cap.gz", 1 << 20, &s, &err), STATUS_OK);
    assert_false(s.too_large);
    assert_int_equal(s.len, 1 << 20);
    source_free(&s);
    assert_int_equal(read_source("cap.gz", (1 << 20) - 1, &s, &err), STATUS_OK);
    assert_true(s.too_large);
    source_free(&s);
}

static void names_lose_their_compression_suffix(void **state)
{
    char out[64];

    (void)state;
    source_plain_name("a/b.parser.txt.gz", out, sizeof out);
    assert_string_equal(out, "a/b.parser.txt");
    source_plain_name("x.darshan.bz2", out, sizeof out);
    assert_string_equal(out, "x.darshan");
    source_plain_name("sa22.xz", out, sizeof out);
    assert_string_equal(out, "sa22");
    source_plain_name("plain.txt", out, sizeof out);
    assert_string_equal(out, "plain.txt");
    source_plain_name(".gz", out, sizeof out);
    assert_string_equal(out, ".gz");
}

/* ---- sa files ------------------------------------------------------------------- */

/* The samples of text (sadf -d CSV or sadf -j JSON) by the iostat parser. */
static struct iostat_data *parse_text(const char *text, size_t len)
{
    FILE *fp = fmemopen((void *)(uintptr_t)text, len, "r");
    struct iostat_data *d = NULL;
    struct error err = {0};

    assert_non_null(fp);
    if (ingest_iostat_parse(fp, "text", NULL, &d, &err) != STATUS_OK)
        fail_msg("%s", err.msg);
    fclose(fp);
    return d;
}

static void assert_same_samples(const struct iostat_data *a, const struct iostat_data *b)
{
    assert_int_equal(a->n, b->n);
    assert_string_equal(a->host, b->host);
    for (size_t i = 0; i < a->n; i++) {
        const struct iostat_sample *x = &a->samples[i], *y = &b->samples[i];
        assert_string_equal(x->device, y->device);
        assert_int_equal(x->stamp_s, y->stamp_s);
        /* The CSV prints kB/s with two decimals, as the JSON does. */
        assert_rel(x->r_bps, y->r_bps, 1e-6 * fabs(y->r_bps) + 1e-9);
        assert_rel(x->w_bps, y->w_bps, 1e-6 * fabs(y->w_bps) + 1e-9);
        assert_rel(x->ops_total_ps, y->ops_total_ps, 1e-9);
    }
}

/* sadf's JSON of the lab's sa file as sadf printed it on the lab's machine (where
 * 254:0 was vda), with its device named as on any host: dev254-0. */
static char *lab_json_unnamed(const char *json_ref, size_t len, size_t *out_len)
{
    static const char named[] = "\"disk-device\": \"vda\"";
    static const char unnamed[] = "\"disk-device\": \"dev254-0\"";
    char *out = malloc(2 * len + 1), *o = out;
    const char *s = json_ref, *end = json_ref + len;

    assert_non_null(out);
    while (s < end) {
        if ((size_t)(end - s) >= sizeof named - 1 &&
            memcmp(s, named, sizeof named - 1) == 0) {
            memcpy(o, unnamed, sizeof unnamed - 1);
            o += sizeof unnamed - 1;
            s += sizeof named - 1;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    *out_len = (size_t)(o - out);
    return out;
}

/* The real sa file of the lab run through sadf: sadf's JSON is the one beside it
 * byte for byte but for the device's name, which sadf here gives by number whatever
 * this host's /sys holds (dev254-0: the lab's virtio disk, a major given out at
 * boot); named 254:0=vda, its samples are those of the sadf -d CSV: 190 of vda,
 * 12:59:04 to 13:02:13 UTC; unnamed, the default include takes none and the error
 * says how to name it. Gzip'd, bzip2'd and xz'd it gives the same. */
static void sa_file_gives_the_samples_of_its_csv(void **state)
{
    static const char *const tools[] = {"gzip", "bzip2", "xz"};
    static const char *const suffixes[] = {".gz", ".bz2", ".xz"};
    size_t sa_len, lab_json_len, json_ref_len, csv_len, json_len;
    char *sa = shared("iostat/sar_lab_run1.sa", &sa_len);
    char *lab_json = shared("iostat/sadf_j_lab_run1_disk.json", &lab_json_len);
    char *json_ref = lab_json_unnamed(lab_json, lab_json_len, &json_ref_len);
    const struct iostat_parse_opts named = {.device_names = "8:0=sda, 254:0=vda",
                                            .mtime_s = INT64_MAX};
    const struct iostat_parse_opts unnamed = {.mtime_s = INT64_MAX};
    char *csv = shared("iostat/sadf_d_lab_run1_disk.csv", &csv_len);
    struct iostat_data *want = parse_text(csv, csv_len), *got = NULL;
    struct error err = {0};
    char *json = NULL;

    (void)state;
    assert_true(sa_is_file((const unsigned char *)sa, sa_len));
    assert_false(sa_is_file((const unsigned char *)csv, csv_len));
    assert_int_equal(
        sa_to_json(sa, sa_len, "sar_lab_run1.sa", 64 << 20, &json, &json_len, &err),
        STATUS_OK);
    assert_int_equal(json_len, json_ref_len);
    assert_memory_equal(json, json_ref, json_len);
    assert_int_equal(sa_samples_after(json, json_len, "sa", &unnamed, NULL, &got, &err),
                     STATUS_PARSE);
    assert_null(got);
    assert_non_null(strstr(err.msg, "dev254-0 is known by number only"));
    assert_non_null(strstr(err.msg, "[devices] names"));
    error_clear(&err);
    assert_int_equal(sa_samples_after(json, json_len, "sa", &named, NULL, &got, &err),
                     STATUS_OK);
    assert_int_equal(got->n, 190);
    assert_int_equal(got->samples[0].stamp_s, 1795352344);   /* 12:59:04 */
    assert_int_equal(got->samples[189].stamp_s, 1795352533); /* 13:02:13 */
    assert_same_samples(got, want);
    iostat_data_free(got);

    /* After the ledger's last record: only the later ones. */
    int64_t after = 1795352344 + 99;
    assert_int_equal(sa_samples_after(json, json_len, "sa", &named, &after, &got, &err),
                     STATUS_OK);
    assert_int_equal(got->n, 90);
    assert_int_equal(got->samples[0].stamp_s, after + 1);
    iostat_data_free(got);
    free(json);

    for (size_t i = 0; i < 3; i++) {
        char name[32];
        struct source s;
        snprintf(name, sizeof name, "lab%zu.sa", i);
        compressed_copy("iostat/sar_lab_run1.sa", name, tools[i]);
        strcat(name, suffixes[i]);
        assert_int_equal(read_source(name, 64 << 20, &s, &err), STATUS_OK);
        assert_int_equal(s.len, sa_len);
        assert_true(sa_is_file((const unsigned char *)s.data, s.len));
        assert_int_equal(
            sa_to_json(s.data, s.len, name, 64 << 20, &json, &json_len, &err), STATUS_OK);
        assert_memory_equal(json, json_ref, json_ref_len);
        free(json);
        source_free(&s);
    }
    /* sadf's output is bounded by the cap. */
    assert_int_equal(sa_to_json(sa, sa_len, "sa", 1000, &json, &json_len, &err),
                     STATUS_PARSE);
    assert_non_null(strstr(err.msg, "printed more than 1000 bytes"));
    iostat_data_free(want);
    free(csv);
    free(json_ref);
    free(lab_json);
    free(sa);
}

/* The lab's sa file with its disk's numbers (254:0, stored little-endian as two
 * 32-bit words in every record) set to major:minor. */
static char *lab_sa_as(unsigned major, unsigned minor, size_t *len)
{
    static const unsigned char lab[8] = {254, 0, 0, 0, 0, 0, 0, 0};
    char *sa = shared("iostat/sar_lab_run1.sa", len);
    size_t edited = 0;

    for (size_t i = 0; i + 8 <= *len; i++) {
        if (memcmp(sa + i, lab, 8) == 0) {
            for (int b = 0; b < 4; b++) {
                sa[i + b] = (char)(major >> 8 * b & 0xFF);
                sa[i + 4 + b] = (char)(minor >> 8 * b & 0xFF);
            }
            edited++;
        }
    }
    assert_true(edited >= 190);
    return sa;
}

/* Devices of the kernel's fixed majors are named by sysstat's own table, the same on
 * every host whatever its /sys holds (Documentation/admin-guide/devices.txt: 8:16 is
 * sdb, 65:0 sdq, 8:17 sdb1, 202:0 xvda), and [devices] names does not rename them:
 * it names only what sadf gives by number (here NVMe's 259:3). */
static void sa_devices_of_fixed_majors_are_named_anywhere(void **state)
{
    static const struct {
        unsigned major, minor;
        const char *names, *want;
    } cases[] = {{8, 16, NULL, "sdb"},       {65, 0, NULL, "sdq"},
                 {202, 0, NULL, "xvda"},     {8, 17, NULL, NULL},
                 {259, 3, NULL, NULL},       {259, 3, "259:3=nvme1n1", "nvme1n1"},
                 {8, 16, "8:16=lun7", "sdb"}};

    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t len, json_len;
        char *sa = lab_sa_as(cases[k].major, cases[k].minor, &len), *json = NULL;
        struct iostat_data *got = NULL;
        struct error err = {0};
        const struct iostat_parse_opts po = {
            .device_include = "^(sd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+|lun[0-9]+)$",
            .device_names = cases[k].names,
            .mtime_s = INT64_MAX};

        assert_int_equal(
            sa_to_json(sa, len, "edited.sa", 64 << 20, &json, &json_len, &err),
            STATUS_OK);
        enum status rc =
            sa_samples_after(json, json_len, "edited.sa", &po, NULL, &got, &err);
        if (cases[k].want == NULL) {
            /* a partition (sdb1) or an unnamed dynamic major: not a disk taken */
            assert_int_equal(rc, STATUS_PARSE);
            assert_non_null(strstr(err.msg, "no samples"));
        } else {
            if (rc != STATUS_OK)
                fail_msg("%u:%u: %s", cases[k].major, cases[k].minor, err.msg);
            assert_int_equal(got->n, 190);
            for (size_t i = 0; i < got->n; i++)
                assert_string_equal(got->samples[i].device, cases[k].want);
        }
        iostat_data_free(got);
        free(json);
        free(sa);
    }
}

/* [devices] names: pairs MAJ:MIN=NAME, checked when read, looked up by number. */
static void device_names_are_checked_and_looked_up(void **state)
{
    static const char *const bad[] = {
        "254=vda",    "254:0",      "254:0=",       "a:0=vda",
        "254:0=vd a", "254:0=v/da", "12345678:0=x", "254:0=vda;8:0=sda"};
    char out[DEVICE_NAME_MAX], long_name[DEVICE_NAME_MAX + 16];
    struct error err = {0};

    (void)state;
    assert_int_equal(device_names_check(NULL, &err), STATUS_OK);
    assert_int_equal(device_names_check("", &err), STATUS_OK);
    assert_int_equal(device_names_check(" 254:0=vda,259:1=nvme0n1  8:0=sd_a.0 ", &err),
                     STATUS_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(device_names_check(bad[i], &err), STATUS_INVALID);
        assert_non_null(strstr(err.msg, "expected MAJOR:MINOR=NAME"));
        error_clear(&err);
    }
    snprintf(long_name, sizeof long_name, "1:2=%0*d", DEVICE_NAME_MAX, 0);
    assert_int_equal(device_names_check(long_name, &err), STATUS_INVALID);
    assert_non_null(strstr(err.msg, "at most 63 characters"));

    const char *names = "254:0=vda, 259:1=nvme0n1 259:10=nvme1n1";
    assert_true(device_name_of("dev259-10", names, out, sizeof out));
    assert_string_equal(out, "nvme1n1");
    assert_true(device_name_of("dev254-0", names, out, sizeof out));
    assert_string_equal(out, "vda");
    strcpy(out, "untouched");
    assert_false(device_name_of("dev259-1x", names, out, sizeof out));
    assert_false(device_name_of("dev259-2", names, out, sizeof out));
    assert_false(device_name_of("vda", names, out, sizeof out));
    assert_false(device_name_of("dev254-0", NULL, out, sizeof out));
    assert_string_equal(out, "untouched");
}

/* With no sadf on PATH the error names Debian's package; it is not the file's fault
 * (STATUS_NOT_FOUND: not quarantined). */
static void missing_sadf_names_the_package(void **state)
{
    size_t len;
    char *sa = shared("iostat/sar_lab_run1.sa", &len);
    char *path = strdup(getenv("PATH") != NULL ? getenv("PATH") : "/usr/bin:/bin");
    struct error err = {0};
    char *json = NULL;
    size_t json_len;

    (void)state;
    assert_int_equal(setenv("PATH", work, 1), 0);
    assert_int_equal(sa_to_json(sa, len, "sa22", 64 << 20, &json, &json_len, &err),
                     STATUS_NOT_FOUND);
    assert_int_equal(setenv("PATH", path, 1), 0);
    assert_null(json);
    assert_string_equal(err.file, "sa22");
    assert_non_null(strstr(err.msg, "sadf, not found on PATH"));
    assert_non_null(strstr(err.msg, "sysstat package"));
    free(path);
    free(sa);
}

/* The header edited to a newer sysstat's format (13.0.5, 0x2176): the error names
 * the version needed. The newer format with the version of Debian 12's sadf
 * (12.6.1), which would read its own files: the header lies, the file's fault.
 * Edited to an older format (0x2173), sadf -c is tried first, and its refusal (the
 * body is 12.6.1's, not 0x2173's) is the file's fault. */
static void newer_or_older_sa_formats(void **state)
{
    size_t len;
    char *sa = shared("iostat/sar_lab_run1.sa", &len);
    struct error err = {0};
    char *json = NULL;
    size_t json_len;

    (void)state;
    sa[2] = 0x76;
    sa[4] = 13;
    sa[5] = 0;
    sa[6] = 5;
    assert_int_equal(sa_to_json(sa, len, "new.sa", 64 << 20, &json, &json_len, &err),
                     STATUS_NOT_FOUND);
    assert_null(json);
    if (strstr(err.msg, "sysstat 13.0.5 or later") == NULL)
        fail_msg("%s", err.msg);
    sa[4] = 12;
    sa[5] = 6;
    sa[6] = 1;
    memset(&err, 0, sizeof err);
    assert_int_equal(sa_to_json(sa, len, "forged.sa", 64 << 20, &json, &json_len, &err),
                     STATUS_PARSE);
    if (strstr(err.msg, "format 0x2176 of sysstat 12.6.1, which this sadf (12.6.1) "
                        "would read") == NULL)
        fail_msg("%s", err.msg);
    sa[2] = 0x73;
    sa[4] = 12;
    sa[5] = 6;
    sa[6] = 1;
    memset(&err, 0, sizeof err);
    assert_int_equal(sa_to_json(sa, len, "old.sa", 64 << 20, &json, &json_len, &err),
                     STATUS_PARSE);
    if (strstr(err.msg, "sadf -c exited") == NULL)
        fail_msg("%s", err.msg);
    /* The header alone: sadf's own refusal, with its exit status. */
    memset(&err, 0, sizeof err);
    sa[2] = 0x75;
    assert_int_equal(sa_to_json(sa, 2000, "head.sa", 64 << 20, &json, &json_len, &err),
                     STATUS_PARSE);
    if (strstr(err.msg, "sadf -j exited 2: End of system activity file unexpected") ==
        NULL)
        fail_msg("%s", err.msg);
    free(sa);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-source-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    return mkdtemp(work) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 32];
    int rc = 0;

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    free(testutil_run(cmd, &rc));
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compressed_text_reads_as_plain),
        cmocka_unit_test(concatenated_members_read_whole),
        cmocka_unit_test(cut_or_corrupt_stream_is_refused),
        cmocka_unit_test(decompression_bomb_is_too_large),
        cmocka_unit_test(xz_past_the_memory_limit_is_refused),
        cmocka_unit_test(names_lose_their_compression_suffix),
        cmocka_unit_test(sa_file_gives_the_samples_of_its_csv),
        cmocka_unit_test(sa_devices_of_fixed_majors_are_named_anywhere),
        cmocka_unit_test(device_names_are_checked_and_looked_up),
        cmocka_unit_test(missing_sadf_names_the_package),
        cmocka_unit_test(newer_or_older_sa_formats),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
