/* dxt.c: a DXT trace (a binary log's DXT modules, or darshan-dxt-parser text) into the
 * rows it loads (0012_dxt.sql): job_traces, dxt_ops (every operation, packed and
 * zlib-compressed, for replay) and job_x_windows (the merged operation windows the
 * _x metrics of docs/method.md §10 need). */
#include "../internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* One operation packed: is_write u8, offset i64, length i64, start f64, end f64,
 * pthread id u64, little-endian (0012_dxt.sql). */
#define OP_BYTES 41

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_f64(unsigned char *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u64(p, bits);
}

/* The ops of one file on one rank, packed and compressed into a new buffer. */
static enum status pack_ops(const struct dxt_file_trace *f, unsigned char **out,
                            size_t *out_len, struct error *err)
{
    size_t raw_len = f->n_ops * OP_BYTES;
    unsigned char *raw = malloc(raw_len + 1);
    uLongf len = compressBound((uLong)raw_len);
    unsigned char *z = malloc(len + 1);

    *out = NULL;
    if (raw == NULL || z == NULL) {
        free(raw);
        free(z);
        return error_set(err, STATUS_NOMEM, "DXT operations");
    }
    for (size_t i = 0; i < f->n_ops; i++) {
        const struct dxt_op *op = &f->ops[i];
        unsigned char *p = raw + i * OP_BYTES;
        p[0] = op->is_write ? 1 : 0;
        put_u64(p + 1, (uint64_t)op->offset);
        put_u64(p + 9, (uint64_t)op->length);
        put_f64(p + 17, op->start_s);
        put_f64(p + 25, op->end_s);
        put_u64(p + 33, op->pthread_id);
    }
    /* level 1: the operations of a night, compressed as they come, not archived */
    if (compress2(z, &len, raw, (uLong)raw_len, 1) != Z_OK) {
        free(raw);
        free(z);
        return error_set(err, STATUS_INTERNAL, "compressing DXT operations");
    }
    free(raw);
    *out = z;
    *out_len = len;
    return STATUS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static const char *fs_name(const char *fs)
{
    return fs != NULL ? fs : "";
}

/* By kind, then start; of equal starts the longest first, so that a zero-length window
 * comes after every positive one that starts with it: a point where one window ends
 * and the next begins ([1, 2], [2, 2], [2, 3]) is then seen once the two are merged,
 * strictly inside. */
static int cmp_window(const void *a, const void *b)
{
    const struct db_window_in *x = a, *y = b;
    int c = (int)x->is_write - (int)y->is_write;

    if (c == 0)
        c = strcmp(fs_name(x->fs), fs_name(y->fs));
    if (c == 0)
        c = (x->start_s > y->start_s) - (x->start_s < y->start_s);
    if (c == 0)
        c = (x->end_s < y->end_s) - (x->end_s > y->end_s);
    return c;
}

static bool same_kind(const struct db_window_in *a, const struct db_window_in *b)
{
    return a->is_write == b->is_write && strcmp(fs_name(a->fs), fs_name(b->fs)) == 0;
}

/* Merges w[0..*n) in place: windows of positive length that overlap or touch become
 * one (the active-interval rule and the union's measure are unchanged: a merged
 * window overlaps an interval positively iff one of its parts does); a zero-length
 * window stays, unless strictly inside a positive one, which already makes its
 * interval active. */
static void merge_windows(struct db_window_in *w, size_t *n)
{
    size_t out = 0, cur = SIZE_MAX;

    if (w == NULL || *n == 0)
        return;
    qsort(w, *n, sizeof *w, cmp_window);
    for (size_t i = 0; i < *n; i++) {
        bool point = !(w[i].end_s > w[i].start_s);

        if (cur != SIZE_MAX && same_kind(&w[cur], &w[i]) && !point &&
            w[i].start_s <= w[cur].end_s) {
            if (w[i].end_s > w[cur].end_s)
                w[cur].end_s = w[i].end_s;
            continue;
        }
        if (point && cur != SIZE_MAX && same_kind(&w[cur], &w[i]) &&
            w[i].start_s > w[cur].start_s && w[i].start_s < w[cur].end_s) {
            continue;
        }
        w[out] = w[i];
        if (!point) {
            cur = out;
        } else if (cur != SIZE_MAX && !same_kind(&w[cur], &w[out])) {
            cur = SIZE_MAX;
        }
        out++;
    }
    *n = out;
}

void trace_rows_free(struct trace_rows *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; r->ops != NULL && r->strings != NULL && i < r->n_files; i++) {
        free(r->ops[i]);
        free(r->strings[2 * i]);
        free(r->strings[2 * i + 1]);
    }
    free(r->ops);
    free(r->strings);
    free(r->files);
    free(r->windows);
    memset(r, 0, sizeof *r);
}

enum status trace_rows_make(const struct dxt_trace *t, const struct ingest_fs_map *map,
                            struct trace_rows *r, struct error *err)
{
    size_t n_posix = 0, n_windows = 0;
    uint64_t *posix_ids = NULL;
    enum status rc = STATUS_OK;

    memset(r, 0, sizeof *r);
    ingest_job_key(t->jobid, t->uid, t->start_time_s, t->end_time_s, t->nprocs,
                   t->exe != NULL ? t->exe : "", r->job_key);
    r->files = calloc(t->n_files + 1, sizeof *r->files);
    r->ops = calloc(t->n_files + 1, sizeof *r->ops);
    r->strings = calloc(2 * t->n_files + 1, sizeof *r->strings);
    posix_ids = malloc((t->n_files + 1) * sizeof *posix_ids);
    if (r->files == NULL || r->ops == NULL || r->strings == NULL || posix_ids == NULL) {
        free(posix_ids);
        trace_rows_free(r);
        return error_set(err, STATUS_NOMEM, "DXT trace of %s", t->path);
    }
    /* docs/method.md §10's layer rule: DXT_MPIIO operations count only for files with no
     * DXT_POSIX operation. */
    for (size_t i = 0; i < t->n_files; i++) {
        const struct dxt_file_trace *f = &t->files[i];
        if (f->module == DXT_MOD_POSIX && f->n_ops > 0)
            posix_ids[n_posix++] = f->record_id;
        n_windows += f->n_ops;
    }
    qsort(posix_ids, n_posix, sizeof *posix_ids, cmp_u64);
    r->windows = malloc((n_windows + 1) * sizeof *r->windows);
    if (r->windows == NULL)
        rc = error_set(err, STATUS_NOMEM, "DXT windows of %s", t->path);
    for (size_t i = 0; rc == STATUS_OK && i < t->n_files; i++) {
        const struct dxt_file_trace *f = &t->files[i];
        struct db_trace_file_in *row = &r->files[i];
        const char *where = f->mount_point;
        const char *fs;

        if (f->n_ops > INT32_MAX) {
            rc = error_set(err, STATUS_PARSE, "%s: more than 2^31 operations in one file",
                           t->path);
            break;
        }
        rc = pack_ops(f, &r->ops[i], &row->ops_len, err);
        r->strings[2 * i] = str_escape_dup(f->hostname != NULL ? f->hostname : "");
        r->strings[2 * i + 1] = str_escape_dup(f->file_name != NULL ? f->file_name : "");
        r->n_files++; /* counted first so that trace_rows_free releases them */
        if (rc == STATUS_OK &&
            (r->strings[2 * i] == NULL || r->strings[2 * i + 1] == NULL))
            rc = error_set(err, STATUS_NOMEM, "DXT trace of %s", t->path);
        if (rc != STATUS_OK)
            break;
        *row = (struct db_trace_file_in){
            .module = f->module == DXT_MOD_POSIX ? "DXT_POSIX" : "DXT_MPIIO",
            .record_id = f->record_id,
            .rank = f->rank,
            .hostname = r->strings[2 * i],
            .file_name = r->strings[2 * i + 1],
            .n_ops = (int32_t)f->n_ops,
            .ops = r->ops[i],
            .ops_len = row->ops_len};
        if (f->module == DXT_MOD_MPIIO && bsearch(&f->record_id, posix_ids, n_posix,
                                                  sizeof *posix_ids, cmp_u64) != NULL)
            continue;
        /* as the counters' windows: by the mount point, else the file name */
        if (where == NULL || where[0] == '\0' || strcmp(where, "UNKNOWN") == 0)
            where = f->file_name;
        fs = where != NULL ? ingest_fs_lookup(map, where) : NULL;
        for (size_t k = 0; k < f->n_ops; k++) {
            r->windows[r->n_windows++] = (struct db_window_in){
                .start_s = (double)t->start_time_s + f->ops[k].start_s,
                .end_s = (double)t->start_time_s + f->ops[k].end_s,
                .is_write = f->ops[k].is_write,
                .bytes = f->ops[k].length,
                .fs = fs};
        }
    }
    free(posix_ids);
    if (rc != STATUS_OK) {
        trace_rows_free(r);
        return rc;
    }
    merge_windows(r->windows, &r->n_windows);
    r->in = (struct db_trace_in){.job_key = r->job_key,
                                 .incomplete = t->incomplete_modules != NULL,
                                 .n_ops = (int64_t)t->n_ops,
                                 .files = r->files,
                                 .n_files = r->n_files,
                                 .windows = r->windows,
                                 .n_windows = r->n_windows};
    return STATUS_OK;
}
