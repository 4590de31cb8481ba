/* darshan_mod_dxt.c: the DXT_POSIX and DXT_MPIIO traces of a binary Darshan log. */
#include "darshan_format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One (file, rank): id, rank, shared flag, a 64-byte host name, write and read
 * counts; then write_count + read_count segments, writes first. */
#define DXT_HEADER_BYTES   104
#define DXT_HOSTNAME_BYTES 64

/* Bytes of one segment: offset, length, start, end, and from DXT_POSIX 2 and
 * DXT_MPIIO 3 on, the pthread id. 0 for a version no format 3.00 to 3.41 held. */
static size_t segment_bytes(enum dbin_module module, uint32_t version)
{
    if (module == DBIN_DXT_POSIX)
        return version == 1 ? 32 : version == 2 ? 40 : 0;
    return version == 1 || version == 2 ? 32 : version == 3 ? 40 : 0;
}

enum status dmod_decode_dxt(const struct dbin_region *r, const struct dbin_sink *sink,
                            struct error *err)
{
    const size_t seg = segment_bytes(r->module, r->version);
    struct dbin_dxt_op *ops = NULL;
    size_t cap = 0, off = 0;
    enum status rc = STATUS_OK;

    if (seg == 0) {
        return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                        "%s records of version %" PRIu32 " are not known",
                        dbin_module_name(r->module), r->version);
    }
    while (off < r->len && rc == STATUS_OK) {
        size_t left = r->len - off, n, i;
        int64_t writes, reads;
        char host[DXT_HOSTNAME_BYTES + 1];
        struct dbin_dxt_file f;

        if (left < DXT_HEADER_BYTES) {
            rc = dmod_fail(r, off, err, "expected %d bytes, %zu left", DXT_HEADER_BYTES,
                           left);
            break;
        }
        left -= DXT_HEADER_BYTES;
        writes = (int64_t)dmod_word(r, off + 88);
        reads = (int64_t)dmod_word(r, off + 96);
        /* the counts come from the file: bound each by what is there before adding */
        if (writes < 0 || reads < 0 || (uint64_t)writes > left / seg ||
            (uint64_t)reads > left / seg - (uint64_t)writes) {
            rc = dmod_fail(r, off, err,
                           "%" PRId64 " writes and %" PRId64 " reads in %zu bytes",
                           writes, reads, left);
            break;
        }
        n = (size_t)writes + (size_t)reads;
        if (n > cap) {
            struct dbin_dxt_op *grown = realloc(ops, n * sizeof(*ops));

            if (grown == NULL) {
                rc = error_set(err, STATUS_NOMEM, "%s: %zu DXT segments", r->path, n);
                break;
            }
            ops = grown;
            cap = n;
        }
        for (i = 0; i < n; i++) {
            size_t at = off + DXT_HEADER_BYTES + i * seg;

            ops[i].is_write = i < (size_t)writes;
            ops[i].offset = (int64_t)dmod_word(r, at);
            ops[i].length = (int64_t)dmod_word(r, at + 8);
            ops[i].start_s = dmod_double(r, at + 16);
            ops[i].end_s = dmod_double(r, at + 24);
            ops[i].pthread_id = seg == 40 ? dmod_word(r, at + 32) : 0;
            ops[i].ost = -1;
            if (r->module == DBIN_DXT_MPIIO && r->version == 1)
                ops[i].offset = -1; /* version 1 stored no valid offsets */
        }
        memcpy(host, r->data + off + 24, DXT_HOSTNAME_BYTES);
        host[DXT_HOSTNAME_BYTES] = '\0';
        memset(&f, 0, sizeof(f));
        f.module = r->module;
        f.record_id = dmod_word(r, off);
        f.rank = (int64_t)dmod_word(r, off + 8);
        f.hostname = host;
        f.write_count = writes;
        f.read_count = reads;
        f.ops = ops;
        f.n_ops = n;
        dmod_names(r, f.record_id, &f.file_name, &f.mount_point, &f.fs_type);
        if (sink->dxt != NULL)
            rc = sink->dxt(sink->ctx, &f, err);
        off += DXT_HEADER_BYTES + n * seg;
    }
    free(ops);
    return rc;
}
