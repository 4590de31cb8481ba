/* darshan_mod_fixed.c: the decoder of the records of a fixed size (H5F, H5D,
 * PNETCDF_FILE, PNETCDF_VAR, BG/Q, DFS, DAOS: base, [file record id], integers,
 * doubles, [tail]), laid out by each module's spec, and the counters' way to the sink
 * that every decoder of darshan_mod_*.c takes. */
#include "darshan_mod_fixed.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define BASE_BYTES 16 /* a record's id and rank */

void dmod_emit_start(struct dmod_emit *e, const struct dbin_region *r,
                     const struct dbin_sink *sink, size_t off)
{
    memset(e, 0, sizeof(*e));
    e->sink = sink;
    e->c.module = dbin_module_name(r->module);
    e->c.record_id = dmod_word(r, off);
    e->c.rank = (int64_t)dmod_word(r, off + 8);
    dmod_names(r, e->c.record_id, &e->c.file_name, &e->c.mount_point, &e->c.fs_type);
    /* darshan-parser's name of a BG/Q record that has none in the name records */
    if (r->module == DBIN_BGQ && strcmp(e->c.file_name, "(null)") == 0)
        e->c.file_name = "darshan-bgq-record";
}

enum status dmod_emit_int(struct dmod_emit *e, const char *name, int64_t v,
                          struct error *err)
{
    if (e->sink->counter == NULL)
        return STATUS_OK;
    e->c.name = name;
    e->c.kind = DBIN_INT;
    e->c.i = v;
    e->c.f = 0;
    e->c.s = NULL;
    return e->sink->counter(e->sink->ctx, &e->c, err);
}

enum status dmod_emit_float(struct dmod_emit *e, const char *name, double v,
                            struct error *err)
{
    if (e->sink->counter == NULL)
        return STATUS_OK;
    e->c.name = name;
    e->c.kind = DBIN_FLOAT;
    e->c.i = 0;
    e->c.f = v;
    e->c.s = NULL;
    return e->sink->counter(e->sink->ctx, &e->c, err);
}

enum status dmod_emit_text(struct dmod_emit *e, const char *name, const char *v,
                           struct error *err)
{
    if (e->sink->counter == NULL)
        return STATUS_OK;
    e->c.name = name;
    e->c.kind = DBIN_TEXT;
    e->c.i = 0;
    e->c.f = 0;
    e->c.s = v;
    return e->sink->counter(e->sink->ctx, &e->c, err);
}

#define MAX_COUNTERS 160 /* PNETCDF_VAR has the most: 120 + 17 */

/* The canonical text of a 16-byte UUID, as libuuid's uuid_unparse writes it. */
static void uuid_text(const unsigned char *u, bool swap, char out[37])
{
    unsigned char b[16];
    size_t i, n = 0;

    for (i = 0; i < 16; i++)
        b[i] = swap ? u[15 - i] : u[i]; /* darshan swaps a UUID as one 128-bit word */
    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[n++] = '-';
        snprintf(out + n, 3, "%02x", b[i]);
        n += 2;
    }
    out[n] = '\0';
}

static bool uuid_is_null(const unsigned char *u)
{
    size_t i;

    for (i = 0; i < 16; i++) {
        if (u[i] != 0)
            return false;
    }
    return true;
}

enum status dmod_decode_fixed(const struct dbin_region *r,
                              const struct dmod_fixed_spec *s,
                              const struct dbin_sink *sink, struct error *err)
{
    const size_t n_words = s->n_ints + s->n_floats;
    const size_t frid_bytes = s->file_rec_id != NULL ? 8 : 0;
    const struct dmod_old_layout *old = NULL;
    size_t rec_len, off, i;
    enum status rc = STATUS_OK;

    if (r->version == s->version) {
        rec_len = BASE_BYTES + frid_bytes + 8 * n_words + s->tail;
    } else {
        for (i = 0; i < s->n_old; i++) {
            if (s->old[i].version == r->version)
                old = &s->old[i];
        }
        if (old == NULL) {
            return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                            "%s records of version %" PRIu32 " are not known",
                            dbin_module_name(r->module), r->version);
        }
        rec_len = old->bytes;
    }
    for (off = 0; off < r->len && rc == STATUS_OK; off += rec_len) {
        int64_t ints[MAX_COUNTERS] = {0};
        double floats[MAX_COUNTERS] = {0};
        uint64_t file_rec_id = 0;
        size_t first = BASE_BYTES + frid_bytes; /* offset of the counters */
        char name[64], mount[80];
        struct dmod_emit e;

        if (r->len - off < rec_len) {
            return dmod_fail(r, off, err, "expected %zu bytes, %zu left", rec_len,
                             r->len - off);
        }
        dmod_emit_start(&e, r, sink, off);
        if (old == NULL && frid_bytes > 0)
            file_rec_id = dmod_word(r, off + BASE_BYTES);
        if (old != NULL && old->map == NULL) {
            first = BASE_BYTES + 8 * old->skip + (old->no_file_rec_id ? 0 : frid_bytes);
        } else if (old != NULL) {
            first = BASE_BYTES;
        }
        for (i = 0; i < n_words; i++) {
            uint64_t w;

            if (old == NULL || old->map == NULL) {
                w = dmod_word(r, off + first + 8 * i);
            } else if (old->map[i] == NEG) {
                int64_t neg = -1;
                double fneg = -1.0;

                if (i < s->n_ints) {
                    memcpy(&w, &neg, sizeof(w));
                } else {
                    memcpy(&w, &fneg, sizeof(w));
                }
            } else if (old->map[i] == OPENS) {
                w = dmod_word(r, off + first) + dmod_word(r, off + first + 8);
            } else {
                w = dmod_word(r, off + first + 8 * (size_t)old->map[i]);
            }
            if (i < s->n_ints) {
                memcpy(&ints[i], &w, sizeof(w));
            } else {
                memcpy(&floats[i - s->n_ints], &w, sizeof(w));
            }
        }
        if (s->module == DBIN_DFS || s->module == DBIN_DAOS) {
            const unsigned char *tail = r->data + off + rec_len - s->tail;
            char pool[37], cont[37];

            uuid_text(tail, r->swap, pool);
            uuid_text(tail + 16, r->swap, cont);
            if (s->module == DBIN_DFS &&
                (uuid_is_null(tail) || uuid_is_null(tail + 16))) {
                snprintf(mount, sizeof(mount), "UNKNOWN");
            } else {
                snprintf(mount, sizeof(mount), "%s:%s", pool, cont);
            }
            e.c.mount_point = mount;
            e.c.fs_type = "N/A";
            if (s->module == DBIN_DAOS) {
                /* darshan-parser names a DAOS object by its id, "hi.lo" */
                snprintf(name, sizeof(name), "%" PRIu64 ".%" PRIu64,
                         dmod_word(r, off + rec_len - 16),
                         dmod_word(r, off + rec_len - 8));
                e.c.file_name = name;
            }
        }
        for (i = 0; i < s->n_ints && rc == STATUS_OK; i++)
            rc = dmod_emit_int(&e, s->ints[i], ints[i], err);
        for (i = 0; i < s->n_floats && rc == STATUS_OK; i++)
            rc = dmod_emit_float(&e, s->floats[i], floats[i], err);
        if (s->file_rec_id != NULL && rc == STATUS_OK) {
            e.c.is_unsigned = true; /* printed as uint64, like the record id */
            rc = dmod_emit_int(&e, s->file_rec_id, (int64_t)file_rec_id, err);
        }
    }
    return rc;
}
