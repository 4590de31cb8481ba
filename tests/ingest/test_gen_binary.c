/* test_gen_binary.c: iocontend-gen's binary .darshan logs against its darshan-parser
 * text of the same jobs: the same records through ingest_darshan_read and
 * ingest_darshan_parse, the text's lines in `iocontend darshan dump`, and the DXT
 * trace of --dxt-ops against the text's counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/ingest.h"
#include "../support/sample.h"
#include "../support/testutil.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two seeds, 4 jobs per group each: 24 logs, every group's plan (the shared MPI-IO
 * files of npb, the ranks' own files of esb and npc, <STDOUT>); the second set with a
 * DXT_POSIX trace of up to DXT_OPS operations per file record and direction. */
static const unsigned long seeds[] = {20240601UL, 7385UL};
static const char *const gen_args[] = {
    "--jobs-per-group 4 --days 1 --darshan-format both",
    "--jobs-per-group 4 --days 1 --darshan-format both --dxt-ops 8"};
#define N_SEEDS (sizeof seeds / sizeof seeds[0])
#define DXT_OPS 8
#define DXT_SET 1

static char dirs[N_SEEDS][256];
static glob_t logs[N_SEEDS]; /* the .darshan files of each set */

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    for (size_t s = 0; s < N_SEEDS; s++) {
        char pattern[1024];

        snprintf(dirs[s], sizeof dirs[s], "%s/iocontend-genbin-XXXXXX",
                 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
        if (mkdtemp(dirs[s]) == NULL)
            return -1;
        if (sample_generate(dirs[s], seeds[s], gen_args[s]) != 0)
            return -1;
        snprintf(pattern, sizeof pattern, "%s/darshan/*/*.darshan", dirs[s]);
        if (glob(pattern, 0, NULL, &logs[s]) != 0 || logs[s].gl_pathc != 12)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t s = 0; s < N_SEEDS; s++) {
        char cmd[600];
        int rc = 0;

        globfree(&logs[s]);
        if (dirs[s][0] == '\0')
            continue;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dirs[s]);
        free(testutil_run(cmd, &rc));
    }
    return 0;
}

/* The text beside a .darshan: the same name, .parser.txt. */
static void text_of(const char *bin, char *out, size_t size)
{
    size_t n = strlen(bin) - strlen(".darshan");

    snprintf(out, size, "%.*s.parser.txt", (int)n, bin);
}

static struct darshan_log *read_binary(const char *path)
{
    struct darshan_log *log = NULL;
    struct error err = {0};
    size_t len = 0;
    char *data = testutil_read_file(path, &len);

    assert_non_null(data);
    assert_true(ingest_darshan_is_binary((const unsigned char *)data, len));
    if (ingest_darshan_read((const unsigned char *)data, len, path, &log, &err) !=
        STATUS_OK)
        fail_msg("%s: %s", path, err.msg);
    free(data);
    return log;
}

static struct darshan_log *parse_text(const char *path)
{
    struct darshan_log *log = NULL;
    struct error err = {0};
    FILE *fp = fopen(path, "r");

    assert_non_null(fp);
    if (ingest_darshan_parse(fp, path, &log, &err) != STATUS_OK)
        fail_msg("%s: line %ld: %s", path, err.line, err.msg);
    fclose(fp);
    return log;
}

/* Exact equality of doubles, naming the field on failure (cmocka has none). */
static void same_double(double got, double want, const char *what, const char *path)
{
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("%s: %s: binary %.17g, text %.17g", path, what, got, want);
}

static void same_record(const struct darshan_record *b, const struct darshan_record *t,
                        const char *path)
{
    assert_int_equal(b->layer, t->layer);
    assert_int_equal(b->rank, t->rank);
    assert_true(b->record_id == t->record_id);
    assert_string_equal(b->file_name, t->file_name);
    assert_string_equal(b->mount_point, t->mount_point);
    assert_string_equal(b->fs_type, t->fs_type);
    assert_int_equal(b->reads, t->reads);
    assert_int_equal(b->writes, t->writes);
    assert_int_equal(b->opens, t->opens);
    assert_int_equal(b->bytes_read, t->bytes_read);
    assert_int_equal(b->bytes_written, t->bytes_written);
    same_double(b->open_start, t->open_start, "open_start", path);
    same_double(b->read_start, t->read_start, "read_start", path);
    same_double(b->read_end, t->read_end, "read_end", path);
    same_double(b->write_start, t->write_start, "write_start", path);
    same_double(b->write_end, t->write_end, "write_end", path);
    same_double(b->close_end, t->close_end, "close_end", path);
    same_double(b->read_time, t->read_time, "read_time", path);
    same_double(b->write_time, t->write_time, "write_time", path);
    same_double(b->meta_time, t->meta_time, "meta_time", path);
    same_double(b->slowest_rank_time, t->slowest_rank_time, "slowest_rank_time", path);
}

/* Every header field and every record of every counter exactly, but the run time:
 * the text prints it with 4 decimals ("%.4f"), the binary holds the start and end
 * to the nanosecond, so the two agree within half the text's last digit. */
static void binary_reads_as_its_text(void **state)
{
    size_t layers[LAYER_COUNT] = {0}, shared = 0, n_logs = 0;

    (void)state;
    for (size_t s = 0; s < N_SEEDS; s++) {
        for (size_t i = 0; i < logs[s].gl_pathc; i++) {
            const char *bin = logs[s].gl_pathv[i];
            char text[1024];

            text_of(bin, text, sizeof text);
            struct darshan_log *b = read_binary(bin);
            struct darshan_log *t = parse_text(text);

            same_double(b->log_version, t->log_version, "log_version", bin);
            assert_string_equal(b->exe, t->exe);
            assert_true(b->uid == t->uid);
            assert_string_equal(b->jobid, t->jobid);
            assert_int_equal(b->start_time_s, t->start_time_s);
            assert_int_equal(b->end_time_s, t->end_time_s);
            assert_int_equal(b->nprocs, t->nprocs);
            assert_rel(b->run_time_s, t->run_time_s, 5e-5);
            assert_int_equal(b->n_mounts, t->n_mounts);
            for (size_t m = 0; m < t->n_mounts; m++) {
                assert_string_equal(b->mount_points[m], t->mount_points[m]);
                assert_string_equal(b->mount_fs_types[m], t->mount_fs_types[m]);
            }
            assert_null(b->incomplete_modules);
            assert_null(t->incomplete_modules);
            assert_true((b->dxt != NULL) == (s == DXT_SET));
            assert_null(t->dxt);
            assert_false(b->incomplete_records || t->incomplete_records);
            assert_int_equal(b->negative_time, t->negative_time);
            assert_int_equal(b->n_skipped_module, t->n_skipped_module);
            assert_int_equal(b->n_records, t->n_records);
            for (size_t r = 0; r < t->n_records; r++) {
                same_record(&b->records[r], &t->records[r], bin);
                layers[t->records[r].layer]++;
                shared += t->records[r].rank < 0;
            }
            darshan_log_free(b);
            darshan_log_free(t);
            n_logs++;
        }
    }
    assert_int_equal(n_logs, 2 * 12);
    /* the comparison saw every kind of record the writers make */
    assert_true(layers[LAYER_POSIX] > 0 && layers[LAYER_MPIIO] > 0);
    assert_int_equal(layers[LAYER_STDIO], n_logs);
    assert_true(shared > 0 && shared < layers[LAYER_POSIX] + layers[LAYER_MPIIO]);
}

/* Lines of text (modified in place) into a new array of n_out pointers. */
static char **lines_of(char *text, size_t *n_out)
{
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v);

    assert_non_null(v);
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l != NULL;
         l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[n++] = l;
    }
    *n_out = n;
    return v;
}

static bool is_counter_line(const char *l)
{
    return l[0] != '#' && l[0] != '\0';
}

/* The first key fields of a counter line (module, rank, record id): n bytes of it. */
static size_t record_key_len(const char *l)
{
    const char *p = l;

    for (int tabs = 0; tabs < 3 && p != NULL; tabs++) {
        p = strchr(p, '\t');
        if (p != NULL)
            p++;
    }
    return p != NULL ? (size_t)(p - l) : strlen(l);
}

static bool has_record(char *const *v, size_t n, const char *l)
{
    size_t k = record_key_len(l);

    for (size_t i = 0; i < n; i++) {
        if (is_counter_line(v[i]) && record_key_len(v[i]) == k &&
            strncmp(v[i], l, k) == 0)
            return true;
    }
    return false;
}

/* What is compared, and why not the whole text: the generator's text prints only the
 * counters consumers read (about 20 of a POSIX record's 86), darshan-parser and our
 * dump print every counter of the format. So each counter line of the text must be a
 * line of the dump, byte for byte and in the same order (the dump's lines in between
 * are the counters the text leaves out), and both must hold the same records
 * (module, rank, record id). The header lines before the log file regions (version,
 * compression, exe, uid, jobid, times, nprocs, run time, metadata) and the mount table
 * are compared whole; the region sizes are not: the text's are made up. */
static void dump_holds_every_counter_line_of_the_text(void **state)
{
    const char *bin_exe = getenv("IOCONTEND_BIN");
    size_t checked = 0;

    (void)state;
    if (bin_exe == NULL || bin_exe[0] == '\0')
        bin_exe = "build/iocontend";
    for (size_t s = 0; s < N_SEEDS; s++) {
        for (size_t i = 0; i < logs[s].gl_pathc; i++) {
            const char *bin = logs[s].gl_pathv[i];
            char text_path[1024], cmd[2048];
            size_t len = 0, nt = 0, nd = 0, j = 0;
            int rc = -1;

            text_of(bin, text_path, sizeof text_path);
            snprintf(cmd, sizeof cmd, "'%s' darshan dump '%s'", bin_exe, bin);
            char *dump = testutil_run(cmd, &rc);
            char *text = testutil_read_file(text_path, &len);

            assert_non_null(dump);
            assert_non_null(text);
            assert_int_equal(rc, 0);
            char **t = lines_of(text, &nt);
            char **d = lines_of(dump, &nd);

            /* the header: identical up to the log file regions */
            for (size_t k = 0; k < nt && strcmp(t[k], "# log file regions") != 0; k++) {
                assert_true(k < nd);
                assert_string_equal(d[k], t[k]);
            }
            /* the mount table */
            for (size_t k = 0, m = 0; k < nt; k++) {
                if (strncmp(t[k], "# mount entry:", 14) != 0)
                    continue;
                while (m < nd && strncmp(d[m], "# mount entry:", 14) != 0)
                    m++;
                assert_true(m < nd);
                assert_string_equal(d[m++], t[k]);
            }
            /* every counter line of the text, in order, among the dump's */
            for (size_t k = 0; k < nt; k++) {
                if (!is_counter_line(t[k]))
                    continue;
                while (j < nd && strcmp(d[j], t[k]) != 0)
                    j++;
                if (j == nd)
                    fail_msg("%s: the dump lacks (or misorders) \"%s\"", bin, t[k]);
                j++;
                checked++;
            }
            /* no record of the dump that the text lacks */
            for (size_t k = 0; k < nd; k++) {
                if (is_counter_line(d[k]) && !has_record(t, nt, d[k]))
                    fail_msg("%s: the text has no record for \"%s\"", bin, d[k]);
            }
            free(t);
            free(d);
            free(text);
            free(dump);
        }
    }
    assert_true(checked > 1000);
}

/* Operations of rec's direction in the trace: their count, and each inside the
 * window its counters give (darshan's DXT and counters time the same accesses). */
static int64_t dxt_ops_of(const struct dxt_trace *x, const struct darshan_record *rec,
                          bool is_write, int64_t *bytes, const char *path)
{
    const double a = is_write ? rec->write_start : rec->read_start;
    const double b = is_write ? rec->write_end : rec->read_end;
    int64_t n = 0;

    *bytes = 0;
    for (size_t f = 0; f < x->n_files; f++) {
        const struct dxt_file_trace *ft = &x->files[f];

        if (ft->record_id != rec->record_id)
            continue;
        assert_string_equal(ft->file_name, rec->file_name);
        assert_string_equal(ft->mount_point, rec->mount_point);
        assert_true(rec->rank < 0 || ft->rank == rec->rank);
        for (size_t o = 0; o < ft->n_ops; o++) {
            const struct dxt_op *op = &ft->ops[o];

            if (op->is_write != is_write)
                continue;
            if (!(op->start_s >= a && op->end_s <= b && op->start_s <= op->end_s))
                fail_msg("%s: %s op %zu of %s at [%.6f, %.6f], outside [%.6f, %.6f]",
                         path, is_write ? "write" : "read", o, rec->file_name,
                         op->start_s, op->end_s, a, b);
            assert_true(op->offset >= 0 && op->length >= 0);
            *bytes += op->length;
            n++;
        }
    }
    return n;
}

/* --dxt-ops 8: each POSIX record of the text has min(its reads, 8) read and
 * min(its writes, 8) write operations in the binary's trace (over its ranks when
 * shared), inside its counters' windows, moving at most its bytes; nothing else. */
static void dxt_trace_follows_the_counters(void **state)
{
    size_t n_ops = 0, shared = 0;

    (void)state;
    for (size_t i = 0; i < logs[DXT_SET].gl_pathc; i++) {
        const char *bin = logs[DXT_SET].gl_pathv[i];
        char text[1024];
        size_t expected = 0;

        text_of(bin, text, sizeof text);
        struct darshan_log *b = read_binary(bin);
        struct darshan_log *t = parse_text(text);

        assert_non_null(b->dxt);
        assert_null(b->dxt->incomplete_modules);
        for (size_t r = 0; r < t->n_records; r++) {
            const struct darshan_record *rec = &t->records[r];
            int64_t bytes_w = 0, bytes_r = 0;

            if (rec->layer != LAYER_POSIX)
                continue;
            const int64_t w = dxt_ops_of(b->dxt, rec, true, &bytes_w, bin);
            const int64_t rd = dxt_ops_of(b->dxt, rec, false, &bytes_r, bin);
            assert_int_equal(w, rec->writes < DXT_OPS ? rec->writes : DXT_OPS);
            assert_int_equal(rd, rec->reads < DXT_OPS ? rec->reads : DXT_OPS);
            assert_true(bytes_w <= rec->bytes_written && bytes_r <= rec->bytes_read);
            expected += (size_t)(w + rd);
            shared += rec->rank < 0 && w + rd > 1;
        }
        for (size_t f = 0; f < b->dxt->n_files; f++)
            assert_int_equal(b->dxt->files[f].module, DXT_MOD_POSIX);
        assert_int_equal(b->dxt->n_ops, expected);
        n_ops += expected;
        darshan_log_free(b);
        darshan_log_free(t);
    }
    assert_true(n_ops > 100 && shared > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binary_reads_as_its_text),
        cmocka_unit_test(dump_holds_every_counter_line_of_the_text),
        cmocka_unit_test(dxt_trace_follows_the_counters),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
