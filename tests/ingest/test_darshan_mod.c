/* test_darshan_mod.c: the binary decoders of darshan_mod_fixed.h and darshan_mod_dxt.c
 * against darshan-parser's and darshan-dxt-parser's text of the real logs, and on
 * hostile regions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/darshan/darshan_bin.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The modules these decoders print, by darshan-parser's module column. */
static const char *const my_modules[] = {"H5F",         "H5D",  "PNETCDF_FILE",
                                         "PNETCDF_VAR", "BG/Q", "LUSTRE",
                                         "HEATMAP",     "DFS",  "DAOS"};

static bool is_my_module(const char *line, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof(my_modules) / sizeof(my_modules[0]); i++) {
        size_t m = strlen(my_modules[i]);

        if (m < n && strncmp(line, my_modules[i], m) == 0 && line[m] == '\t')
            return true;
    }
    return false;
}

/* The lines of text whose module column is one of ours, concatenated (malloc'd). */
static char *my_lines(const char *text)
{
    size_t len = strlen(text), n = 0;
    char *out = malloc(len + 1);
    const char *p = text;

    assert_non_null(out);
    while (*p != '\0') {
        size_t m = strcspn(p, "\n");

        if (is_my_module(p, m)) {
            memcpy(out + n, p, m);
            n += m;
            out[n++] = '\n';
        }
        p += m;
        if (*p == '\n')
            p++;
    }
    out[n] = '\0';
    return out;
}

/* The counter sink's state: darshan-parser stops at a module marked incomplete. */
struct printer {
    FILE *out;
    bool stopped;
};

static enum status print_begin(void *ctx, enum dbin_module module, const char *name,
                               uint32_t version, bool incomplete, bool decoded,
                               struct error *err)
{
    struct printer *p = ctx;

    (void)module, (void)name, (void)version, (void)decoded, (void)err;
    if (incomplete)
        p->stopped = true;
    return STATUS_OK;
}

/* A sink printing counters as darshan-parser's 8 columns. */
static enum status print_counter(void *ctx, const struct dbin_counter *c,
                                 struct error *err)
{
    struct printer *p = ctx;
    FILE *out = p->out;

    (void)err;
    if (p->stopped)
        return STATUS_OK;
    fprintf(out, "%s\t%" PRId64 "\t%" PRIu64 "\t%s\t", c->module, c->rank, c->record_id,
            c->name);
    switch (c->kind) {
    case DBIN_INT:
        if (c->is_unsigned)
            fprintf(out, "%" PRIu64, (uint64_t)c->i);
        else
            fprintf(out, "%" PRId64, c->i);
        break;
    case DBIN_FLOAT: fprintf(out, "%f", c->f); break;
    case DBIN_TEXT: fprintf(out, "%s", c->s); break;
    }
    fprintf(out, "\t%s\t%s\t%s\n", c->file_name, c->mount_point, c->fs_type);
    return STATUS_OK;
}

/* Every log folder of the shared data (glob's list; caller globfree()s). */
static void log_dirs(glob_t *g)
{
    char pattern[4096];

    snprintf(pattern, sizeof(pattern), "%s/darshan/*/*.darshan", testutil_shared_data());
    assert_int_equal(glob(pattern, 0, NULL, g), 0);
    assert_true(g->gl_pathc >= 39);
}

static char *sibling(const char *log, const char *name)
{
    char path[4096];
    const char *slash = strrchr(log, '/');

    size_t len = 0;

    snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - log), log, name);
    return testutil_read_file(path, &len);
}

/* First line where a and b differ, for the failure message. */
static void report_difference(const char *log, const char *got, const char *want)
{
    size_t line = 1;
    const char *g = got, *w = want;

    while (*g != '\0' && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    while (g > got && g[-1] != '\n') {
        g--;
        w--;
    }
    print_error("%s: line %zu differs:\n got: %.200s\nwant: %.200s\n", log, line, g, w);
}

static void counters_of_every_log_equal_darshan_parser(void **state)
{
    glob_t g;
    size_t i, compared = 0;

    (void)state;
    log_dirs(&g);
    for (i = 0; i < g.gl_pathc; i++) {
        const char *log = g.gl_pathv[i];
        size_t len = 0, got_len = 0;
        unsigned char *data = (unsigned char *)testutil_read_file(log, &len);
        char *text = sibling(log, "parser.txt"), *got = NULL, *want, *mine;
        FILE *mem = open_memstream(&got, &got_len);
        struct dbin_sink sink = {0};
        struct printer p = {mem, false};
        struct error err = {0};
        enum status rc;

        assert_non_null(data);
        assert_non_null(text);
        assert_non_null(mem);
        sink.ctx = &p;
        sink.module_begin = print_begin;
        sink.counter = print_counter;
        rc = dbin_read(log, data, len, false, &sink, &err);
        fclose(mem);
        /* darshan-parser stops at an incomplete module too: compare what both show */
        if (rc != STATUS_OK) {
            if (rc != STATUS_PARSE || strstr(err.msg, "incomplete") == NULL)
                print_error("%s: %s\n", log, err.msg);
            assert_int_equal(rc, STATUS_PARSE);
            assert_non_null(strstr(err.msg, "incomplete"));
        }
        want = my_lines(text);
        mine = my_lines(got);
        if (strcmp(mine, want) != 0)
            report_difference(log, mine, want);
        assert_string_equal(mine, want);
        compared += strlen(want) > 0;
        free(mine);
        free(want);
        free(got);
        free(text);
        free(data);
    }
    assert_true(compared >= 20); /* logs with H5*, PNETCDF, BG/Q, LUSTRE, HEATMAP, DFS */
    globfree(&g);
}

static void dxt_dump_of_every_log_equals_darshan_dxt_parser(void **state)
{
    glob_t g;
    size_t i, compared = 0;

    (void)state;
    log_dirs(&g);
    for (i = 0; i < g.gl_pathc; i++) {
        const char *log = g.gl_pathv[i];
        char *want = sibling(log, "dxt.txt"), *got = NULL;
        size_t got_len = 0;
        FILE *mem;
        struct error err = {0};
        enum status rc;

        if (want == NULL)
            continue; /* darshan-dxt-parser was run on the logs with DXT only */
        mem = open_memstream(&got, &got_len);
        assert_non_null(mem);
        rc = ingest_darshan_dump_dxt(mem, log, &err);
        fclose(mem);
        if (strstr(log, "/partial_data_dxt/") != NULL) {
            /* DXT_POSIX is marked incomplete: darshan-dxt-parser prints its banner
             * and stops (exit 255); so do we, with STATUS_PARSE */
            assert_int_equal(rc, STATUS_PARSE);
            assert_string_equal(err.msg, "incomplete: DXT_POSIX");
        } else {
            if (rc != STATUS_OK)
                print_error("%s: %s\n", log, err.msg);
            assert_int_equal(rc, STATUS_OK);
        }
        if (strcmp(got, want) != 0)
            report_difference(log, got, want);
        assert_string_equal(got, want);
        compared++;
        free(got);
        free(want);
    }
    assert_int_equal(compared, 9);
    globfree(&g);
}

/* ---- hand-built regions ------------------------------------------------------- */

struct bytes {
    unsigned char b[4096];
    size_t n;
    bool big; /* write big-endian words */
};

static void put(struct bytes *x, uint64_t v)
{
    size_t i;

    for (i = 0; i < 8; i++) {
        size_t shift = x->big ? 8 * (7 - i) : 8 * i;

        x->b[x->n + i] = (unsigned char)(v >> shift);
    }
    x->n += 8;
}

static void put_double(struct bytes *x, double d)
{
    uint64_t v;

    memcpy(&v, &d, sizeof(v));
    put(x, v);
}

static void put_zeros(struct bytes *x, size_t n)
{
    memset(x->b + x->n, 0, n);
    x->n += n;
}

static bool host_is_big(void)
{
    const uint16_t one = 1;
    unsigned char c;

    memcpy(&c, &one, 1);
    return c == 0;
}

static struct dbin_region region(const struct bytes *x, enum dbin_module m, uint32_t v)
{
    struct dbin_region r;

    memset(&r, 0, sizeof(r));
    r.path = "hand.darshan";
    r.module = m;
    r.version = v;
    r.data = x->b;
    r.len = x->n;
    r.swap = x->big != host_is_big();
    r.log_version = 3.41;
    r.nprocs = 4;
    return r;
}

/* What a decode of a hand-built region gave. */
struct seen {
    char text[8192];
    size_t n;
    size_t n_dxt;
    int64_t last_ost_or_bin;
};

static enum status keep_counter(void *ctx, const struct dbin_counter *c,
                                struct error *err)
{
    struct seen *s = ctx;

    (void)err;
    if (c->kind == DBIN_INT)
        s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n,
                                 "%s=%" PRId64 "\n", c->name, c->i);
    else if (c->kind == DBIN_FLOAT)
        s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n, "%s=%f\n",
                                 c->name, c->f);
    else
        s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n, "%s=%s\n",
                                 c->name, c->s);
    return STATUS_OK;
}

static enum status keep_dxt(void *ctx, const struct dbin_dxt_file *f, struct error *err)
{
    struct seen *s = ctx;
    size_t i;

    (void)err;
    s->n_dxt++;
    for (i = 0; i < f->n_ops; i++)
        s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n,
                                 "%s %" PRId64 " %" PRId64 " %.4f %.4f %" PRIu64 "\n",
                                 f->ops[i].is_write ? "write" : "read", f->ops[i].offset,
                                 f->ops[i].length, f->ops[i].start_s, f->ops[i].end_s,
                                 f->ops[i].pthread_id);
    return STATUS_OK;
}

static enum status decode(const struct bytes *x, enum dbin_module m, uint32_t v,
                          struct seen *s, struct error *err)
{
    struct dbin_region r = region(x, m, v);
    struct dbin_sink sink = {0};

    memset(s, 0, sizeof(*s));
    sink.ctx = s;
    sink.counter = keep_counter;
    sink.dxt = keep_dxt;
    if (m == DBIN_DXT_POSIX || m == DBIN_DXT_MPIIO)
        return dmod_decode_dxt(&r, &sink, err);
    return dbin_region_decode(&r, &sink, err);
}

/* A LUSTRE version 2 record: 2 components (the second unused), 3 OST slots. */
static void lustre_v2_record(struct bytes *x, int64_t n_comps, int64_t n_stripes)
{
    put(x, 0xfeedfacecafe1234u);
    put(x, (uint64_t)-1);
    put(x, (uint64_t)n_comps);
    put(x, (uint64_t)n_stripes);
}

static void lustre_component(struct bytes *x, int64_t size, int64_t count, int64_t flags)
{
    put(x, (uint64_t)size);
    put(x, (uint64_t)count);
    put(x, 0); /* raid0 */
    put(x, (uint64_t)flags);
    put(x, 0);
    put(x, (uint64_t)-1);
    put(x, 0);
    memcpy(x->b + x->n, "flash", 6);
    memset(x->b + x->n + 6, 0, 10);
    x->n += 16;
}

static void lustre_records_decode_in_both_byte_orders(void **state)
{
    int order;

    (void)state;
    for (order = 0; order < 2; order++) {
        struct bytes x = {.big = order == 1};
        struct seen s;
        struct error err = {0};

        lustre_v2_record(&x, 2, 3);
        lustre_component(&x, 1048576, 2, 0x12); /* prefrd, init */
        lustre_component(&x, -1, 1, 0);         /* unused: dropped */
        put(&x, 17);
        put(&x, 23);
        put(&x, 99);
        assert_int_equal(decode(&x, DBIN_LUSTRE, 2, &s, &err), STATUS_OK);
        assert_string_equal(s.text, "LUSTRE_NUM_COMPONENTS=1\n"
                                    "LUSTRE_NUM_STRIPES=2\n"
                                    "LUSTRE_COMP1_STRIPE_SIZE=1048576\n"
                                    "LUSTRE_COMP1_STRIPE_COUNT=2\n"
                                    "LUSTRE_COMP1_STRIPE_PATTERN=raid0\n"
                                    "LUSTRE_COMP1_FLAGS=prefrd,init\n"
                                    "LUSTRE_COMP1_EXT_START=0\n"
                                    "LUSTRE_COMP1_EXT_END=-1\n"
                                    "LUSTRE_COMP1_MIRROR_ID=0\n"
                                    "LUSTRE_COMP1_POOL_NAME=flash\n"
                                    "LUSTRE_COMP1_OST_ID_0=17\n"
                                    "LUSTRE_COMP1_OST_ID_1=23\n");
    }
}

static void lustre_counts_past_the_region_are_parse_errors(void **state)
{
    /* {components, stripes} the record claims, with one 72-byte component and one
     * OST id actually there */
    static const int64_t cases[][2] = {{2, 1},
                                       {1, 2},
                                       {-1, 1},
                                       {1, -1},
                                       {INT64_MAX, 1},
                                       {1, INT64_MAX},
                                       {INT64_MIN, 0},
                                       {(int64_t)1 << 61, 1},
                                       {1, (int64_t)1 << 61}};
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bytes x = {0};
        struct seen s;
        struct error err = {0};

        lustre_v2_record(&x, cases[i][0], cases[i][1]);
        lustre_component(&x, 65536, 1, 0);
        put(&x, 5);
        assert_int_equal(decode(&x, DBIN_LUSTRE, 2, &s, &err), STATUS_PARSE);
        assert_string_equal(err.file, "hand.darshan");
        assert_non_null(strstr(err.msg, "LUSTRE record at offset 0"));
    }
}

static void
lustre_component_with_more_stripes_than_the_record_is_a_parse_error(void **state)
{
    struct bytes x = {0};
    struct seen s;
    struct error err = {0};

    (void)state;
    lustre_v2_record(&x, 1, 1);
    lustre_component(&x, 65536, 4, 0); /* 4 stripes, 1 OST id */
    put(&x, 5);
    assert_int_equal(decode(&x, DBIN_LUSTRE, 2, &s, &err), STATUS_PARSE);
}

static void lustre_v1_ost_count_past_the_region_is_a_parse_error(void **state)
{
    static const int64_t counts[] = {2, -1, INT64_MAX, (int64_t)1 << 61};
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        struct bytes x = {0};
        struct seen s;
        struct error err = {0};

        put(&x, 7);
        put(&x, 0);
        put(&x, 64);
        put(&x, 1);
        put(&x, 0);
        put(&x, 1048576);
        put(&x, (uint64_t)counts[i]);
        put(&x, 11); /* one OST id */
        assert_int_equal(decode(&x, DBIN_LUSTRE, 1, &s, &err), STATUS_PARSE);
    }
}

static void heatmap_record(struct bytes *x, int64_t nbins)
{
    put(x, 42);
    put(x, 3);
    put_double(x, 0.25);
    put(x, (uint64_t)nbins);
    put_zeros(x, 16); /* the two pointers darshan writes */
}

static void heatmap_bins_decode_and_mend_like_darshan_parser(void **state)
{
    struct bytes x = {0};
    struct seen s;
    struct error err = {0};

    (void)state;
    heatmap_record(&x, 2); /* write 10 20, read 30 40 */
    put(&x, 10);
    put(&x, 20);
    put(&x, 30);
    put(&x, 40);
    heatmap_record(&x, 1); /* one bin short: darshan-parser adds one */
    put(&x, 50);
    put(&x, 60);
    assert_int_equal(decode(&x, DBIN_HEATMAP, 1, &s, &err), STATUS_OK);
    assert_string_equal(s.text, "HEATMAP_F_BIN_WIDTH_SECONDS=0.250000\n"
                                "HEATMAP_READ_BIN_0=30\n"
                                "HEATMAP_READ_BIN_1=40\n"
                                "HEATMAP_WRITE_BIN_0=10\n"
                                "HEATMAP_WRITE_BIN_1=20\n"
                                "HEATMAP_F_BIN_WIDTH_SECONDS=0.250000\n"
                                "HEATMAP_READ_BIN_0=0\n"
                                "HEATMAP_READ_BIN_1=0\n"
                                "HEATMAP_WRITE_BIN_0=50\n"
                                "HEATMAP_WRITE_BIN_1=0\n");
}

static void heatmap_bin_counts_past_the_region_are_parse_errors(void **state)
{
    static const int64_t counts[] = {3, -1, INT64_MAX, INT64_MIN, (int64_t)1 << 60};
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        struct bytes x = {0};
        struct seen s;
        struct error err = {0};

        heatmap_record(&x, counts[i]);
        put(&x, 1);
        put(&x, 2);
        put(&x, 3);
        put(&x, 4);
        assert_int_equal(decode(&x, DBIN_HEATMAP, 1, &s, &err), STATUS_PARSE);
        assert_non_null(strstr(err.msg, "HEATMAP record at offset 0"));
    }
}

static void dxt_header(struct bytes *x, int64_t writes, int64_t reads)
{
    put(x, 9);
    put(x, 1);
    put(x, 0);
    memcpy(x->b + x->n, "nid00042", 9);
    memset(x->b + x->n + 9, 0, 55);
    x->n += 64;
    put(x, (uint64_t)writes);
    put(x, (uint64_t)reads);
}

static void segment(struct bytes *x, int64_t off, int64_t len, bool thread)
{
    put(x, (uint64_t)off);
    put(x, (uint64_t)len);
    put_double(x, 0.5);
    put_double(x, 0.75);
    if (thread)
        put(x, 140001);
}

static void dxt_segments_decode_in_both_byte_orders(void **state)
{
    int order;

    (void)state;
    for (order = 0; order < 2; order++) {
        struct bytes x = {.big = order == 1};
        struct seen s;
        struct error err = {0};

        dxt_header(&x, 1, 1);
        segment(&x, 0, 4096, true);
        segment(&x, 4096, 512, true);
        assert_int_equal(decode(&x, DBIN_DXT_POSIX, 2, &s, &err), STATUS_OK);
        assert_int_equal(s.n_dxt, 1);
        assert_string_equal(s.text, "write 0 4096 0.5000 0.7500 140001\n"
                                    "read 4096 512 0.5000 0.7500 140001\n");
        /* DXT_MPIIO version 1: 32-byte segments, offsets not valid */
        x.n = 0;
        dxt_header(&x, 0, 1);
        segment(&x, 77, 8, false);
        assert_int_equal(decode(&x, DBIN_DXT_MPIIO, 1, &s, &err), STATUS_OK);
        assert_string_equal(s.text, "read -1 8 0.5000 0.7500 0\n");
    }
}

static void dxt_segment_counts_past_the_region_are_parse_errors(void **state)
{
    static const int64_t cases[][2] = {{2, 0},
                                       {0, 2},
                                       {1, 1},
                                       {-1, 2},
                                       {2, -1},
                                       {INT64_MAX, 1},
                                       {1, INT64_MAX},
                                       {INT64_MAX, INT64_MAX},
                                       {(int64_t)1 << 60, (int64_t)1 << 60},
                                       {INT64_MIN, INT64_MIN}};
    enum dbin_module mods[] = {DBIN_DXT_POSIX, DBIN_DXT_MPIIO};
    size_t i, m;

    (void)state;
    for (m = 0; m < 2; m++) {
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            struct bytes x = {0};
            struct seen s;
            struct error err = {0};

            dxt_header(&x, cases[i][0], cases[i][1]);
            segment(&x, 0, 4096, true); /* one 40-byte segment there */
            assert_int_equal(decode(&x, mods[m], m == 0 ? 2 : 3, &s, &err), STATUS_PARSE);
            assert_int_equal(s.n_dxt, 0);
            assert_non_null(strstr(err.msg, "record at offset 0"));
        }
    }
}

static void records_cut_short_are_parse_errors(void **state)
{
    static const enum dbin_module mods[] = {
        DBIN_H5F,  DBIN_H5D,       DBIN_PNETCDF_FILE, DBIN_PNETCDF_VAR,
        DBIN_BGQ,  DBIN_LUSTRE,    DBIN_HEATMAP,      DBIN_DFS,
        DBIN_DAOS, DBIN_DXT_POSIX, DBIN_DXT_MPIIO};
    static const uint32_t vers[] = {3, 2, 3, 1, 2, 2, 1, 1, 1, 2, 3};
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
        struct bytes x = {0};
        struct seen s;
        struct error err = {0};

        put(&x, 1);
        put(&x, 0);
        put(&x, 1); /* 24 bytes: shorter than any record */
        assert_int_equal(decode(&x, mods[i], vers[i], &s, &err), STATUS_PARSE);
        assert_string_equal(err.file, "hand.darshan");
    }
}

static void older_record_versions_print_minus_one_for_new_counters(void **state)
{
    struct bytes x = {0};
    struct seen s;
    struct error err = {0};

    (void)state;
    /* H5F version 1: OPENS, the first open, the last close */
    put(&x, 5);
    put(&x, 0);
    put(&x, 3);
    put_double(&x, 1.5);
    put_double(&x, 2.5);
    assert_int_equal(decode(&x, DBIN_H5F, 1, &s, &err), STATUS_OK);
    assert_string_equal(s.text, "H5F_OPENS=3\n"
                                "H5F_FLUSHES=-1\n"
                                "H5F_USE_MPIIO=-1\n"
                                "H5F_F_OPEN_START_TIMESTAMP=1.500000\n"
                                "H5F_F_CLOSE_START_TIMESTAMP=-1.000000\n"
                                "H5F_F_OPEN_END_TIMESTAMP=-1.000000\n"
                                "H5F_F_CLOSE_END_TIMESTAMP=2.500000\n"
                                "H5F_F_META_TIME=-1.000000\n");
}

static void unknown_modules_and_versions_are_not_found(void **state)
{
    struct bytes x = {0};
    struct seen s;
    struct error err = {0};

    (void)state;
    put_zeros(&x, 256);
    assert_int_equal(decode(&x, DBIN_APMPI, 1, &s, &err), STATUS_NOT_FOUND);
    memset(&err, 0, sizeof(err));
    assert_int_equal(decode(&x, DBIN_APXC, 1, &s, &err), STATUS_NOT_FOUND);
    memset(&err, 0, sizeof(err));
    assert_int_equal(decode(&x, DBIN_MDHIM, 1, &s, &err), STATUS_NOT_FOUND);
    memset(&err, 0, sizeof(err));
    assert_int_equal(decode(&x, DBIN_H5F, 4, &s, &err), STATUS_NOT_FOUND);
    memset(&err, 0, sizeof(err));
    assert_int_equal(decode(&x, DBIN_LUSTRE, 3, &s, &err), STATUS_NOT_FOUND);
    memset(&err, 0, sizeof(err));
    assert_int_equal(decode(&x, DBIN_DXT_POSIX, 3, &s, &err), STATUS_NOT_FOUND);
    assert_int_equal(s.n, 0);
}

static void an_unreadable_log_is_not_found_for_the_dxt_dump(void **state)
{
    struct error err = {0};
    FILE *devnull = fopen("/dev/null", "w");

    (void)state;
    assert_non_null(devnull);
    assert_int_equal(ingest_darshan_dump_dxt(devnull, "/nonexistent/x.darshan", &err),
                     STATUS_NOT_FOUND);
    fclose(devnull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counters_of_every_log_equal_darshan_parser),
        cmocka_unit_test(dxt_dump_of_every_log_equals_darshan_dxt_parser),
        cmocka_unit_test(lustre_records_decode_in_both_byte_orders),
        cmocka_unit_test(lustre_counts_past_the_region_are_parse_errors),
        cmocka_unit_test(
            lustre_component_with_more_stripes_than_the_record_is_a_parse_error),
        cmocka_unit_test(lustre_v1_ost_count_past_the_region_is_a_parse_error),
        cmocka_unit_test(heatmap_bins_decode_and_mend_like_darshan_parser),
        cmocka_unit_test(heatmap_bin_counts_past_the_region_are_parse_errors),
        cmocka_unit_test(dxt_segments_decode_in_both_byte_orders),
        cmocka_unit_test(dxt_segment_counts_past_the_region_are_parse_errors),
        cmocka_unit_test(records_cut_short_are_parse_errors),
        cmocka_unit_test(older_record_versions_print_minus_one_for_new_counters),
        cmocka_unit_test(unknown_modules_and_versions_are_not_found),
        cmocka_unit_test(an_unreadable_log_is_not_found_for_the_dxt_dump),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
