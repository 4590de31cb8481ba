/* darshan_dump_dxt.c: a binary Darshan log's DXT traces as darshan-dxt-parser prints
 * them. */
#include "darshan_bin.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The layout of one LUSTRE record, gathered from its counters, for the [OST] column. */
struct lustre_comp {
    int64_t stripe_size, stripe_count, ext_start, ext_end;
};

struct lustre_layout {
    uint64_t record_id;
    struct lustre_comp *comps; /* owned */
    size_t n_comps;
    int64_t *osts; /* owned, every component's in order */
    size_t n_osts;
};

struct dump {
    FILE *out;
    const char *path;
    const struct dbin_job *job; /* borrowed during the job callback only */
    uint32_t dxt_version[2];    /* of DXT_POSIX and DXT_MPIIO */
    bool has_dxt;
    struct lustre_layout *layouts; /* owned */
    size_t n_layouts, cap_layouts;
    uint64_t *threads; /* scratch for counting pthread ids */
    size_t cap_threads;
};

static const char *compression_name(enum dbin_compression c)
{
    switch (c) {
    case DBIN_ZLIB: return "ZLIB";
    case DBIN_BZIP2: return "BZIP2";
    case DBIN_NONE: return "NONE";
    }
    return "UNKNOWN";
}

/* ctime's text of an epoch second in UTC (darshan's text was made with TZ=UTC). */
static void utc_text(int64_t t_s, char *buf, size_t size)
{
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)t_s;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 ||
        tm.tm_mon > 11) {
        snprintf(buf, size, "(null)\n");
        return;
    }
    snprintf(buf, size, "%s %s%3d %.2d:%.2d:%.2d %d\n", days[tm.tm_wday],
             months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             tm.tm_year + 1900);
}

static enum status on_job(void *ctx, const struct dbin_job *job, struct error *err)
{
    struct dump *d = ctx;
    FILE *out = d->out;
    const char *line = job->metadata != NULL ? job->metadata : "";
    char when[64];
    size_t i;

    (void)err;
    fprintf(out, "# darshan log version: %s\n", job->version);
    fprintf(out, "# compression method: %s\n", compression_name(job->compression));
    fprintf(out, "# exe: %s\n", job->exe != NULL ? job->exe : "");
    fprintf(out, "# uid: %" PRId64 "\n", job->uid);
    fprintf(out, "# jobid: %" PRId64 "\n", job->jobid);
    fprintf(out, "# start_time: %" PRId64 "\n", job->start_time_s);
    utc_text(job->start_time_s, when, sizeof(when));
    fprintf(out, "# start_time_asci: %s", when);
    fprintf(out, "# end_time: %" PRId64 "\n", job->end_time_s);
    utc_text(job->end_time_s, when, sizeof(when));
    fprintf(out, "# end_time_asci: %s", when);
    fprintf(out, "# nprocs: %" PRId64 "\n", job->nprocs);
    fprintf(out, "# run time: %.4f\n", job->run_time_s);
    /* "key=value" lines, split at the first '='; lines without one are skipped */
    while (*line != '\0') {
        size_t n = strcspn(line, "\n");
        const char *eq = memchr(line, '=', n);

        if (eq != NULL) {
            fprintf(out, "# metadata: %.*s = %.*s\n", (int)(eq - line), line,
                    (int)(n - (size_t)(eq - line) - 1), eq + 1);
        }
        line += n;
        while (*line == '\n')
            line++;
    }
    fprintf(out, "\n# log file regions\n");
    fprintf(out, "# -------------------------------------------------------\n");
    /* darshan-dxt-parser prints sizeof its 3.41 header whatever the format */
    fprintf(out, "# header: 1328 bytes (uncompressed)\n");
    fprintf(out, "# job data: %" PRIu64 " bytes (compressed)\n", job->job_len);
    fprintf(out, "# record table: %" PRIu64 " bytes (compressed)\n", job->names_len);
    for (i = 0; i < job->n_regions; i++) {
        const struct dbin_region_info *g = &job->regions[i];

        if (g->module == DBIN_MODULE_COUNT) {
            fprintf(out,
                    "# <UNKNOWN> module (id %d): %" PRIu64 " bytes (compressed), "
                    "ver=%" PRIu32 "\n",
                    g->raw_id, g->len, g->version);
            continue;
        }
        fprintf(out, "# %s module: %" PRIu64 " bytes (compressed), ver=%" PRIu32 "\n",
                dbin_module_name(g->module), g->len, g->version);
        if ((g->module == DBIN_DXT_POSIX || g->module == DBIN_DXT_MPIIO) && g->len > 0)
            d->has_dxt = true;
    }
    fprintf(out, "\n# mounted file systems (mount point and fs type)\n");
    fprintf(out, "# -------------------------------------------------------\n");
    return STATUS_OK;
}

static enum status on_mount(void *ctx, const char *mount_point, const char *fs_type,
                            struct error *err)
{
    struct dump *d = ctx;

    (void)err;
    fprintf(d->out, "# mount entry:\t%s\t%s\n", mount_point, fs_type);
    return STATUS_OK;
}

static enum status on_module_begin(void *ctx, enum dbin_module module, const char *name,
                                   uint32_t version, bool incomplete, bool decoded,
                                   struct error *err)
{
    struct dump *d = ctx;

    (void)decoded;
    if (module != DBIN_DXT_POSIX && module != DBIN_DXT_MPIIO)
        return STATUS_OK;
    d->dxt_version[module == DBIN_DXT_MPIIO] = version;
    fprintf(d->out, "\n# ***************************************************\n");
    fprintf(d->out, "# %s module data\n", name);
    fprintf(d->out, "# ***************************************************\n");
    /* darshan-dxt-parser stops here, after the banner, without --show-incomplete */
    if (incomplete)
        return error_at(err, STATUS_PARSE, d->path, 0, "incomplete: %s", name);
    return STATUS_OK;
}

/* "LUSTRE_COMP12_STRIPE_SIZE" -> 12 and "STRIPE_SIZE"; false for other names. */
static bool lustre_comp_name(const char *name, size_t *k, const char **rest)
{
    const char *p = name + strlen("LUSTRE_COMP");
    size_t v = 0;

    if (strncmp(name, "LUSTRE_COMP", strlen("LUSTRE_COMP")) != 0 || *p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9' && v < 1000000)
        v = v * 10 + (size_t)(*p++ - '0');
    if (*p != '_' || v == 0)
        return false;
    *k = v;
    *rest = p + 1;
    return true;
}

/* Gathers each LUSTRE record's layout from the counters the decoder gives, in order. */
static enum status on_counter(void *ctx, const struct dbin_counter *c, struct error *err)
{
    struct dump *d = ctx;
    struct lustre_layout *l;
    const char *rest;
    size_t k;

    if (strcmp(c->module, "LUSTRE") != 0)
        return STATUS_OK;
    if (strcmp(c->name, "LUSTRE_NUM_COMPONENTS") == 0) {
        if (d->n_layouts == d->cap_layouts) {
            size_t cap = d->cap_layouts == 0 ? 16 : 2 * d->cap_layouts;
            struct lustre_layout *grown = realloc(d->layouts, cap * sizeof(*grown));

            if (grown == NULL)
                return error_set(err, STATUS_NOMEM, "%s: LUSTRE layouts", d->path);
            d->layouts = grown;
            d->cap_layouts = cap;
        }
        l = &d->layouts[d->n_layouts++];
        memset(l, 0, sizeof(*l));
        l->record_id = c->record_id;
        return STATUS_OK;
    }
    if (d->n_layouts == 0 || !lustre_comp_name(c->name, &k, &rest))
        return STATUS_OK;
    l = &d->layouts[d->n_layouts - 1];
    if (k > l->n_comps) { /* components come in order, each once */
        struct lustre_comp *grown = realloc(l->comps, k * sizeof(*grown));

        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "%s: LUSTRE components", d->path);
        memset(grown + l->n_comps, 0, (k - l->n_comps) * sizeof(*grown));
        l->comps = grown;
        l->n_comps = k;
    }
    if (strcmp(rest, "STRIPE_SIZE") == 0) {
        l->comps[k - 1].stripe_size = c->i;
    } else if (strcmp(rest, "STRIPE_COUNT") == 0) {
        l->comps[k - 1].stripe_count = c->i;
    } else if (strcmp(rest, "EXT_START") == 0) {
        l->comps[k - 1].ext_start = c->i;
    } else if (strcmp(rest, "EXT_END") == 0) {
        l->comps[k - 1].ext_end = c->i;
    } else if (strncmp(rest, "OST_ID_", 7) == 0) {
        int64_t *grown = realloc(l->osts, (l->n_osts + 1) * sizeof(*grown));

        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "%s: LUSTRE OSTs", d->path);
        l->osts = grown;
        l->osts[l->n_osts++] = c->i;
    }
    return STATUS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Distinct pthread ids among the operations (darshan-dxt-parser's thread count). */
static enum status count_threads(struct dump *d, const struct dbin_dxt_file *f, int *n,
                                 struct error *err)
{
    size_t i, distinct = 1;

    if (f->n_ops > d->cap_threads) {
        uint64_t *grown = realloc(d->threads, f->n_ops * sizeof(*grown));

        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "%s: DXT threads", d->path);
        d->threads = grown;
        d->cap_threads = f->n_ops;
    }
    for (i = 0; i < f->n_ops; i++)
        d->threads[i] = f->ops[i].pthread_id;
    qsort(d->threads, f->n_ops, sizeof(*d->threads), cmp_u64);
    for (i = 1; i < f->n_ops; i++) {
        if (d->threads[i] != d->threads[i - 1])
            distinct++;
    }
    *n = (int)distinct;
    return STATUS_OK;
}

/* The OSTs an operation touches, as darshan-dxt-parser walks the layout. */
static void print_osts(FILE *out, const struct lustre_layout *l,
                       const struct dbin_dxt_op *op)
{
    int64_t cur = op->offset, end = op->offset + op->length, print_count = 0;
    size_t j, cur_ost = 0;

    for (j = 0; j < l->n_comps; j++) {
        const struct lustre_comp *c = &l->comps[j];
        int64_t comp_off, idx;

        if (c->stripe_count == 0)
            continue; /* data on the metadata target; its OSTs are not skipped either */
        if (c->stripe_size > 0 && c->stripe_count > 0 && cur >= c->ext_start &&
            (cur < c->ext_end || c->ext_end == -1)) {
            comp_off = cur - c->ext_start;
            idx = (comp_off / c->stripe_size) % c->stripe_count;
            while (cur < end && (cur < c->ext_end || c->ext_end == -1)) {
                size_t at = cur_ost + (size_t)idx;

                if (at < l->n_osts)
                    fprintf(out, " [%" PRId64 "]", l->osts[at]);
                idx = idx == c->stripe_count - 1 ? 0 : idx + 1;
                comp_off = (comp_off / c->stripe_size + 1) * c->stripe_size;
                cur = c->ext_start + comp_off;
                if (++print_count >= c->stripe_count) {
                    cur = c->ext_end == -1 ? end : c->ext_end;
                    break;
                }
            }
        }
        if (c->stripe_count > 0)
            cur_ost += (size_t)c->stripe_count;
    }
    if (l->n_comps > 0)
        fprintf(out, "  ");
}

static enum status on_dxt(void *ctx, const struct dbin_dxt_file *f, struct error *err)
{
    struct dump *d = ctx;
    FILE *out = d->out;
    const bool posix = f->module == DBIN_DXT_POSIX;
    const uint32_t ver = d->dxt_version[!posix];
    const bool has_threads = posix ? ver > 1 : ver > 2;
    const struct lustre_layout *l = NULL;
    int nthreads = 1;
    size_t i, ost;
    enum status rc;

    if (has_threads && f->n_ops > 0) {
        rc = count_threads(d, f, &nthreads, err);
        if (rc != STATUS_OK)
            return rc;
    }
    for (i = d->n_layouts; posix && i > 0; i--) {
        if (d->layouts[i - 1].record_id == f->record_id) {
            l = &d->layouts[i - 1];
            break;
        }
    }
    fprintf(out, "\n# DXT, file_id: %" PRIu64 ", file_name: %s\n", f->record_id,
            f->file_name);
    fprintf(out, "# DXT, rank: %" PRId64 ", hostname: %s\n", f->rank, f->hostname);
    fprintf(out, "# DXT, number of threads: %d\n", nthreads);
    fprintf(out, "# DXT, write_count: %" PRId64 ", read_count: %" PRId64 "\n",
            f->write_count, f->read_count);
    fprintf(out, "# DXT, mnt_pt: %s, fs_type: %s\n", f->mount_point, f->fs_type);
    if (l != NULL) {
        fprintf(out, "# DXT, Lustre stripe components:\n");
        for (i = 0, ost = 0; i < l->n_comps; i++) {
            const struct lustre_comp *c = &l->comps[i];
            int64_t j;

            fprintf(out, "#\t[Component %zu] stripe_ext: %" PRId64 " - ", i + 1,
                    c->ext_start);
            if (c->ext_end == -1) {
                fprintf(out, "EOF, ");
            } else {
                fprintf(out, "%" PRId64 ", ", c->ext_end);
            }
            fprintf(out, "stripe_size: %" PRId64 ", stripe_count: %" PRId64 ", OSTs:",
                    c->stripe_size, c->stripe_count);
            for (j = 0; j < c->stripe_count && ost < l->n_osts; j++)
                fprintf(out, " %" PRId64, l->osts[ost++]);
            fprintf(out, "\n");
        }
    }
    fprintf(out,
            "# Module    Rank  Wt/Rd  Segment          Offset          Length    "
            "Start(s)      End(s)%s   Pthread-ID\n",
            l != NULL ? "   [OST]" : "");
    for (i = 0; i < f->n_ops; i++) {
        const struct dbin_dxt_op *op = &f->ops[i];
        size_t seg = op->is_write ? i : i - (size_t)f->write_count;

        fprintf(out, "%8s%8" PRId64 "%7s%9d%16" PRId64 "%16" PRId64 "%12.4f%12.4f  ",
                posix ? "X_POSIX" : "X_MPIIO", f->rank, op->is_write ? "write" : "read",
                (int)seg, op->offset, op->length, op->start_s, op->end_s);
        if (l != NULL)
            print_osts(out, l, op);
        if (has_threads) {
            fprintf(out, " %4" PRIu64 "\n", op->pthread_id);
        } else {
            fprintf(out, " N/A\n");
        }
    }
    return STATUS_OK;
}

/* The whole of path; STATUS_NOT_FOUND when it cannot be read. */
static enum status read_all(const char *path, unsigned char **data, size_t *len,
                            struct error *err)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;

    if (fp == NULL)
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open");
    for (;;) {
        size_t got;

        if (n == cap) {
            size_t grown_cap = cap == 0 ? 65536 : 2 * cap;
            unsigned char *grown = realloc(buf, grown_cap);

            if (grown == NULL) {
                free(buf);
                fclose(fp);
                return error_set(err, STATUS_NOMEM, "%s: %zu bytes", path, grown_cap);
            }
            buf = grown;
            cap = grown_cap;
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        free(buf);
        fclose(fp);
        return error_at(err, STATUS_NOT_FOUND, path, 0, "read error");
    }
    fclose(fp);
    *data = buf;
    *len = n;
    return STATUS_OK;
}

enum status ingest_darshan_dump_dxt_bytes(FILE *out, const unsigned char *data,
                                          size_t len, const char *path, struct error *err)
{
    struct dump d;
    struct dbin_sink sink;
    size_t i;
    enum status rc;

    if (out == NULL || data == NULL || path == NULL)
        return error_set(err, STATUS_INVALID, "dump_dxt: NULL output, input or path");
    memset(&d, 0, sizeof(d));
    d.out = out;
    d.path = path;
    memset(&sink, 0, sizeof(sink));
    sink.ctx = &d;
    sink.job = on_job;
    sink.mount = on_mount;
    sink.module_begin = on_module_begin;
    sink.counter = on_counter;
    sink.dxt = on_dxt;
    rc = dbin_read(path, data, len, false, &sink, err);
    if (rc == STATUS_OK && !d.has_dxt)
        fprintf(out, "\n# no DXT module data available for this Darshan log.\n");
    for (i = 0; i < d.n_layouts; i++) {
        free(d.layouts[i].comps);
        free(d.layouts[i].osts);
    }
    free(d.layouts);
    free(d.threads);
    return rc;
}

enum status ingest_darshan_dump_dxt(FILE *out, const char *path, struct error *err)
{
    unsigned char *data = NULL;
    size_t len = 0;
    enum status rc;

    if (out == NULL || path == NULL)
        return error_set(err, STATUS_INVALID, "dump_dxt: NULL output or path");
    rc = read_all(path, &data, &len, err);
    if (rc != STATUS_OK)
        return rc;
    rc = ingest_darshan_dump_dxt_bytes(out, data, len, path, err);
    free(data);
    return rc;
}
