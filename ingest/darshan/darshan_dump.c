/* darshan_dump.c: the darshan-parser text of a binary Darshan log (`iocontend darshan
 * dump`, and the tests' check of the binary reader against darshan-parser). */
#include "../ingest.h"
#include "darshan_bin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DASHES "# -------------------------------------------------------\n"
#define STARS  "# *******************************************************\n"

struct dump {
    FILE *out;
    const char *path;
    bool show_incomplete;
    bool mounts_started;
    bool any_data; /* a region with bytes: else "no module data available" */
    uint64_t region_len[DBIN_MODULE_COUNT]; /* compressed bytes, by module */
};

/* ctime(3)'s text in UTC, as darshan-parser printed it under TZ=UTC. */
static void print_time(FILE *out, const char *key, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];

    if (gmtime_r(&tt, &tm) == NULL || tm.tm_year + 1900 > 9999 ||
        strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm) == 0) {
        fprintf(out, "# %s: (null)", key); /* ctime's NULL through "%s" */
        return;
    }
    fprintf(out, "# %s: %s\n", key, buf);
}

static enum status on_job(void *ctx, const struct dbin_job *job, struct error *err)
{
    struct dump *d = ctx;
    FILE *out = d->out;
    static const char *const comp[] = {"ZLIB", "BZIP2", "NONE"};
    (void)err;

    fprintf(out, "# darshan log version: %s\n", job->version);
    fprintf(out, "# compression method: %s\n",
            (unsigned)job->compression < 3 ? comp[job->compression] : "UNKNOWN");
    fprintf(out, "# exe: %s\n", job->exe);
    fprintf(out, "# uid: %" PRId64 "\n", job->uid);
    fprintf(out, "# jobid: %" PRId64 "\n", job->jobid);
    fprintf(out, "# start_time: %" PRId64 "\n", job->start_time_s);
    print_time(out, "start_time_asci", job->start_time_s);
    fprintf(out, "# end_time: %" PRId64 "\n", job->end_time_s);
    print_time(out, "end_time_asci", job->end_time_s);
    fprintf(out, "# nprocs: %" PRId64 "\n", job->nprocs);
    fprintf(out, "# run time: %.4f\n", job->run_time_s);
    /* "key=value" lines split at the first '='; lines without one are skipped */
    for (const char *p = job->metadata; *p != '\0';) {
        const char *e = strchr(p, '\n');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        const char *eq = memchr(p, '=', n);

        if (eq != NULL) {
            fprintf(out, "# metadata: %.*s = %.*s\n", (int)(eq - p), p,
                    (int)(n - (size_t)(eq - p) - 1), eq + 1);
        }
        p += n;
        if (*p == '\n')
            p++;
    }
    fputs("\n# log file regions\n" DASHES, out);
    fputs("# header: 1328 bytes (uncompressed)\n", out); /* always the 3.41 size */
    fprintf(out, "# job data: %" PRIu64 " bytes (compressed)\n", job->job_len);
    fprintf(out, "# record table: %" PRIu64 " bytes (compressed)\n", job->names_len);
    for (size_t i = 0; i < job->n_regions; i++) {
        const struct dbin_region_info *r = &job->regions[i];

        d->any_data = d->any_data || r->len > 0;
        if (r->module < DBIN_MODULE_COUNT) {
            d->region_len[r->module] = r->len;
            fprintf(out, "# %s module: %" PRIu64 " bytes (compressed), ver=%d\n",
                    dbin_module_name(r->module), r->len, (int)r->version);
        } else {
            fprintf(out,
                    "# <UNKNOWN> module (id %d): %" PRIu64
                    " bytes (compressed), ver=%d\n",
                    r->raw_id, r->len, (int)r->version);
        }
    }
    fputs("\n# mounted file systems (mount point and fs type)\n" DASHES, out);
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

static void print_columns(FILE *out)
{
    fputs("\n# description of columns:\n"
          "#   <module>: module responsible for this I/O record.\n"
          "#   <rank>: MPI rank.  -1 indicates that the file is shared\n"
          "#      across all processes and statistics are aggregated.\n"
          "#   <record id>: hash of the record's file path\n"
          "#   <counter name> and <counter value>: statistical counters.\n"
          "#      A value of -1 indicates that Darshan could not monitor\n"
          "#      that counter, and its value should be ignored.\n"
          "#   <file name>: full file path for the record.\n"
          "#   <mount pt>: mount point that the file resides on.\n"
          "#   <fs type>: type of file system that the file resides on.\n",
          out);
}

static enum status on_module_begin(void *ctx, enum dbin_module module, const char *name,
                                   uint32_t version, bool incomplete, bool decoded,
                                   struct error *err)
{
    struct dump *d = ctx;
    FILE *out = d->out;
    bool has_data = module < DBIN_MODULE_COUNT && d->region_len[module] > 0;
    (void)decoded;

    if (!d->mounts_started) {
        d->mounts_started = true;
        print_columns(out);
    }
    /* darshan-parser skips, with a warning on stderr, regions of an unknown id or
     * one it has no reader for, and leaves DXT to darshan-dxt-parser */
    if (module >= DBIN_MODULE_COUNT || module == DBIN_NULL || module == DBIN_APXC ||
        module == DBIN_APMPI)
        return STATUS_OK;
    if (has_data && (module == DBIN_DXT_POSIX || module == DBIN_DXT_MPIIO))
        return STATUS_OK;
    fprintf(out, "\n" STARS "# %s module data\n" STARS, name);
    if (incomplete) {
        if (!d->show_incomplete) {
            return error_at(err, STATUS_PARSE, d->path, 0,
                            "the %s module contains incomplete data (see "
                            "--show-incomplete)",
                            name);
        }
        fprintf(out,
                "\n# *WARNING*: The %s module contains incomplete data!\n"
                "#            This happens when a module runs out of\n"
                "#            memory to store new record data.\n",
                name);
        if (!has_data)
            return STATUS_OK;
    }
    fprintf(out,
            "\n# %s module, record version %u: counters as darshan-parser 3.5.0 "
            "names them.\n",
            name, (unsigned)version);
    fputs("\n#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount "
          "pt>\t<fs type>\n",
          out);
    return STATUS_OK;
}

static enum status on_counter(void *ctx, const struct dbin_counter *c, struct error *err)
{
    struct dump *d = ctx;
    FILE *out = d->out;
    (void)err;

    fprintf(out, "%s\t%" PRId64 "\t%" PRIu64 "\t%s\t", c->module, c->rank, c->record_id,
            c->name);
    switch (c->kind) {
    case DBIN_INT:
        if (c->is_unsigned) {
            fprintf(out, "%" PRIu64, (uint64_t)c->i);
        } else {
            fprintf(out, "%" PRId64, c->i);
        }
        break;
    case DBIN_FLOAT: fprintf(out, "%f", c->f); break;
    case DBIN_TEXT: fputs(c->s != NULL ? c->s : "(null)", out); break;
    }
    fprintf(out, "\t%s\t%s\t%s\n", c->file_name, c->mount_point, c->fs_type);
    return STATUS_OK;
}

enum status ingest_darshan_dump_bytes(FILE *out, const unsigned char *data, size_t len,
                                      const char *path, bool show_incomplete,
                                      struct error *err)
{
    struct dump d = {0};
    struct dbin_sink sink = {0};
    enum status rc;

    if (out == NULL || data == NULL || path == NULL)
        return error_set(err, STATUS_INVALID, "darshan dump: no output, input or path");
    d.out = out;
    d.path = path;
    d.show_incomplete = show_incomplete;
    sink.ctx = &d;
    sink.job = on_job;
    sink.mount = on_mount;
    sink.module_begin = on_module_begin;
    sink.counter = on_counter;
    rc = dbin_read(path, data, len, show_incomplete, &sink, err);
    if (rc == STATUS_OK && !d.mounts_started)
        print_columns(out);
    if (rc == STATUS_OK && !d.any_data)
        fputs("\n# no module data available.\n", out);
    return rc;
}

enum status ingest_darshan_dump(FILE *out, const char *path, bool show_incomplete,
                                struct error *err)
{
    unsigned char *data = NULL;
    size_t len = 0, cap = 0;
    enum status rc;
    FILE *fp;

    if (out == NULL || path == NULL)
        return error_set(err, STATUS_INVALID, "darshan dump: no output or no path");
    fp = fopen(path, "rb");
    if (fp == NULL)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    for (;;) {
        if (len == cap) {
            size_t nc = cap == 0 ? 65536 : cap * 2;
            unsigned char *p = realloc(data, nc);

            if (p == NULL) {
                rc = error_set(err, STATUS_NOMEM, "%s: %zu bytes", path, nc);
                goto out;
            }
            data = p;
            cap = nc;
        }
        size_t got = fread(data + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        rc = error_set(err, STATUS_NOT_FOUND, "%s: read error", path);
        goto out;
    }
    rc = ingest_darshan_dump_bytes(out, data, len, path, show_incomplete, err);
out:
    fclose(fp);
    free(data);
    return rc;
}
