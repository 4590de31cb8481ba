/* fuzz.c: the helpers of the fuzz targets: a stream over the input, contract checks,
 * the checks of a DXT trace and of the rows it loads. */
#include "fuzz.h"

#include "../ingest/internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

FILE *fuzz_stream(const uint8_t *data, size_t size, char **copy)
{
    /* A copy of exactly size bytes: ASan then catches a read past the input, and
     * fmemopen's "r" never writes to it. */
    *copy = malloc(size > 0 ? size : 1);
    if (*copy == NULL)
        return NULL;
    if (size > 0)
        memcpy(*copy, data, size);
    FILE *fp = fmemopen(*copy, size, "r");
    if (fp == NULL) {
        free(*copy);
        *copy = NULL;
    }
    return fp;
}

void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: contract broken: %s\n", what);
    abort();
}

/* ---- DXT traces and their rows ------------------------------------------------ */

/* One operation as dxt.c packs it (0012_dxt.sql), little-endian. */
#define OP_BYTES 41

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static double get_f64(const unsigned char *p)
{
    uint64_t bits = get_u64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The same bits: a packed NaN or -0 reads back as itself. */
static bool same_f64(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static const char *fs_or_empty(const char *fs)
{
    return fs != NULL ? fs : "";
}

/* The order dxt.c sorts windows in: direction, fs, start. */
static int kind_cmp(const struct db_window_in *a, const struct db_window_in *b)
{
    int c = (int)a->is_write - (int)b->is_write;
    return c != 0 ? c : strcmp(fs_or_empty(a->fs), fs_or_empty(b->fs));
}

/* The packed operations of row: inflated, exactly n_ops * 41 bytes, and each the
 * trace's operation. */
static void check_packed(const struct dxt_file_trace *f,
                         const struct db_trace_file_in *row)
{
    size_t want = f->n_ops * OP_BYTES;
    uLongf got = (uLongf)want + 1;
    unsigned char *raw = malloc(want + 1);

    if (raw == NULL)
        return;
    FUZZ_CHECK(row->ops != NULL, "trace rows: a file with no packed operations");
    FUZZ_CHECK(uncompress(raw, &got, row->ops, (uLong)row->ops_len) == Z_OK,
               "trace rows: packed operations do not inflate");
    FUZZ_CHECK(got == want, "trace rows: packed operations not 41 bytes each");
    for (size_t k = 0; k < f->n_ops; k++) {
        const unsigned char *p = raw + k * OP_BYTES;
        const struct dxt_op *op = &f->ops[k];
        FUZZ_CHECK(
            p[0] == (op->is_write ? 1 : 0) && (int64_t)get_u64(p + 1) == op->offset &&
                (int64_t)get_u64(p + 9) == op->length &&
                same_f64(get_f64(p + 17), op->start_s) &&
                same_f64(get_f64(p + 25), op->end_s) && get_u64(p + 33) == op->pthread_id,
            "trace rows: a packed operation reads back otherwise");
    }
    free(raw);
}

/* True when the operation k lies inside a window of its kind in r (sorted by kind and
 * start, merged); last_pos[i] is the last positive window of i's kind at or before i
 * (SIZE_MAX: none). Positive windows of a kind are apart, so only the last one that
 * starts at or before k can hold it; a point k may also be a point window itself. */
static bool covered(const struct trace_rows *r, const size_t *last_pos,
                    const struct db_window_in *k)
{
    size_t lo = 0, hi = r->n_windows; /* the first window after (kind, start) of k */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = kind_cmp(&r->windows[mid], k);
        if (c < 0 || (c == 0 && r->windows[mid].start_s <= k->start_s)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0 || kind_cmp(&r->windows[lo - 1], k) != 0)
        return false;
    if (last_pos[lo - 1] != SIZE_MAX && k->end_s <= r->windows[last_pos[lo - 1]].end_s)
        return true;
    for (size_t i = lo; i-- > 0;) {
        const struct db_window_in *w = &r->windows[i];
        if (kind_cmp(w, k) != 0 || w->start_s != k->start_s)
            break;
        if (w->end_s == w->start_s && k->end_s == k->start_s)
            return true;
    }
    return false;
}

static bool has_posix_ops(const struct dxt_trace *t, uint64_t record_id)
{
    for (size_t i = 0; i < t->n_files; i++) {
        if (t->files[i].module == DXT_MOD_POSIX && t->files[i].record_id == record_id &&
            t->files[i].n_ops > 0)
            return true;
    }
    return false;
}

/* The windows: sorted by (direction, fs, start), positive ones of a kind apart (a gap
 * between them, else merge_windows would have joined them), no point strictly inside
 * a positive one of its kind, and every operation that counts (docs/method.md §10's layer
 * rule) inside one of its kind. */
static void check_windows(const struct dxt_trace *t, const struct ingest_fs_map *map,
                          const struct trace_rows *r)
{
    const struct db_window_in *cur = NULL; /* the last positive window of the kind */

    FUZZ_CHECK(r->n_windows == 0 || r->windows != NULL, "trace rows: n windows, none");
    for (size_t i = 0; i < r->n_windows; i++) {
        const struct db_window_in *w = &r->windows[i];
        FUZZ_CHECK(w->start_s <= w->end_s, "trace rows: a window ends before it starts");
        if (i > 0) {
            const struct db_window_in *v = &r->windows[i - 1];
            int c = kind_cmp(v, w);
            FUZZ_CHECK(c < 0 || (c == 0 && v->start_s <= w->start_s),
                       "trace rows: windows not sorted by (direction, fs, start)");
            if (c != 0)
                cur = NULL;
        }
        if (w->end_s > w->start_s) {
            FUZZ_CHECK(cur == NULL || w->start_s > cur->end_s,
                       "trace rows: windows of a kind overlap or touch after merging");
            cur = w;
        } else {
            FUZZ_CHECK(cur == NULL ||
                           !(w->start_s > cur->start_s && w->start_s < cur->end_s),
                       "trace rows: a point window kept inside a window of its kind");
        }
    }
    size_t *last_pos = malloc((r->n_windows + 1) * sizeof *last_pos);
    if (last_pos == NULL)
        return;
    for (size_t i = 0; i < r->n_windows; i++) {
        const struct db_window_in *w = &r->windows[i];
        size_t before =
            i > 0 && kind_cmp(&r->windows[i - 1], w) == 0 ? last_pos[i - 1] : SIZE_MAX;
        last_pos[i] = w->end_s > w->start_s ? i : before;
    }
    for (size_t i = 0; i < t->n_files; i++) {
        const struct dxt_file_trace *f = &t->files[i];
        const char *where = f->mount_point;

        if (f->module == DXT_MOD_MPIIO && has_posix_ops(t, f->record_id))
            continue;
        if (where == NULL || where[0] == '\0' || strcmp(where, "UNKNOWN") == 0)
            where = f->file_name;
        const char *fs = where != NULL ? ingest_fs_lookup(map, where) : NULL;
        for (size_t k = 0; k < f->n_ops; k++) {
            const struct db_window_in op = {
                .start_s = (double)t->start_time_s + f->ops[k].start_s,
                .end_s = (double)t->start_time_s + f->ops[k].end_s,
                .is_write = f->ops[k].is_write,
                .fs = fs};
            FUZZ_CHECK(covered(r, last_pos, &op),
                       "trace rows: an operation outside the windows");
        }
    }
    free(last_pos);
}

void fuzz_check_trace(const struct dxt_trace *t, const struct ingest_fs_map *map)
{
    struct trace_rows r;
    struct error err = {0};
    size_t n_ops = 0;
    enum status rc;

    FUZZ_CHECK(t->n_files == 0 || t->files != NULL, "trace: n files, none");
    for (size_t i = 0; i < t->n_files; i++) {
        const struct dxt_file_trace *f = &t->files[i];
        FUZZ_CHECK(f->module == DXT_MOD_POSIX || f->module == DXT_MOD_MPIIO,
                   "trace: a module other than DXT_POSIX or DXT_MPIIO");
        FUZZ_CHECK(f->write_count >= 0 && f->read_count >= 0, "trace: a negative count");
        FUZZ_CHECK(f->n_ops == (uint64_t)f->write_count + (uint64_t)f->read_count,
                   "trace: ops of a file != write_count + read_count");
        FUZZ_CHECK(f->n_ops == 0 || f->ops != NULL, "trace: n ops, none");
        FUZZ_CHECK(f->hostname != NULL && f->file_name != NULL &&
                       f->mount_point != NULL && f->fs_type != NULL,
                   "trace: a file's string is NULL");
        for (size_t k = 0; k < f->n_ops; k++) {
            FUZZ_CHECK(f->ops[k].is_write == (k < (uint64_t)f->write_count),
                       "trace: not write_count writes, then the reads");
            FUZZ_CHECK(f->ops[k].start_s >= 0 && f->ops[k].start_s <= f->ops[k].end_s,
                       "trace: an operation outside 0 <= start <= end");
        }
        n_ops += f->n_ops;
    }
    FUZZ_CHECK(n_ops == t->n_ops, "trace: n_ops is not the files' sum");

    rc = trace_rows_make(t, map, &r, &err);
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_NOMEM,
               "trace rows: a status other than ok or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "trace rows: err holds the status");
    if (rc != STATUS_OK)
        return;
    FUZZ_CHECK(r.n_files == t->n_files && r.in.n_files == t->n_files,
               "trace rows: not one row per file");
    FUZZ_CHECK(r.in.n_ops == (int64_t)t->n_ops, "trace rows: n_ops differs");
    FUZZ_CHECK(r.in.incomplete == (t->incomplete_modules != NULL),
               "trace rows: incomplete differs");
    for (size_t i = 0; i < t->n_files; i++) {
        FUZZ_CHECK(r.files[i].n_ops >= 0 && (size_t)r.files[i].n_ops == t->files[i].n_ops,
                   "trace rows: a file's n_ops differs");
        check_packed(&t->files[i], &r.files[i]);
    }
    check_windows(t, map, &r);
    trace_rows_free(&r);
}
