/* darshan_mod_fixed.h: what the decoders of darshan_mod_*.c share besides
 * darshan_format.h: the counters of a record on their way to the sink, and the one
 * decoder of the modules whose records have a fixed size (H5F, H5D, PNETCDF_FILE,
 * PNETCDF_VAR, BG/Q, DFS, DAOS), each module giving it a spec. Included from
 * ingest/darshan/ only. */
#ifndef IOCONTEND_INGEST_DARSHAN_MOD_FIXED_H
#define IOCONTEND_INGEST_DARSHAN_MOD_FIXED_H

#include "darshan_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* One record's counters on their way to the sink: c holds what every counter of the
 * record shares. */
struct dmod_emit {
    const struct dbin_sink *sink;
    struct dbin_counter c;
};

void dmod_emit_start(struct dmod_emit *e, const struct dbin_region *r,
                     const struct dbin_sink *sink, size_t off);
enum status dmod_emit_int(struct dmod_emit *e, const char *name, int64_t v,
                          struct error *err) MUST_CHECK;
enum status dmod_emit_float(struct dmod_emit *e, const char *name, double v,
                            struct error *err) MUST_CHECK;
enum status dmod_emit_text(struct dmod_emit *e, const char *name, const char *v,
                           struct error *err) MUST_CHECK;

/* ---- fixed-size records: base, [file record id], integers, doubles, [tail] ----- */

#define NEG   (-1) /* the counter did not exist at this version: -1, as darshan-parser */
#define OPENS (-2) /* PNETCDF_FILE before version 3: INDEP_OPENS + COLL_OPENS */

/* Where an older record version keeps each current counter: the index of its 8-byte
 * word after the base record, or NEG / OPENS. Integers first, then doubles. */
struct dmod_old_layout {
    uint32_t version;
    size_t bytes;        /* record size in the file */
    const int16_t *map;  /* NULL: words in current order after `skip` words */
    size_t skip;         /* words between the base record and the counters */
    bool no_file_rec_id; /* H5D version 1: FILE_REC_ID printed as 0 */
};

struct dmod_fixed_spec {
    enum dbin_module module;
    uint32_t version; /* current record version */
    const char *const *ints;
    size_t n_ints;
    const char *const *floats;
    size_t n_floats;
    const char *file_rec_id; /* name of the unsigned word after the base, or NULL */
    size_t tail;             /* bytes after the doubles (DFS, DAOS: UUIDs, object id) */
    const struct dmod_old_layout *old;
    size_t n_old;
};

#define SPEC(mod, ver, n, frid, tail, old)                                               \
    {                                                                                    \
        mod, ver, n##_counters, N_OF(n##_counters), n##_f_counters,                      \
            N_OF(n##_f_counters), frid, tail, old, N_OF(old)                             \
    }
#define SPEC_NEW(mod, ver, n, frid, tail)                                                \
    {                                                                                    \
        mod, ver, n##_counters, N_OF(n##_counters), n##_f_counters,                      \
            N_OF(n##_f_counters), frid, tail, NULL, 0                                    \
    }

/* The specs, one per module (darshan_mod_hdf5.c, darshan_mod_pnetcdf.c,
 * darshan_mod_bgq.c, darshan_mod_daos.c). */
extern const struct dmod_fixed_spec dmod_h5f, dmod_h5d, dmod_pnetcdf_file,
    dmod_pnetcdf_var, dmod_bgq, dmod_dfs, dmod_daos;

/* Every record of r, laid out as s says (s->module is r->module); statuses as
 * dbin_module_decode. */
enum status dmod_decode_fixed(const struct dbin_region *r,
                              const struct dmod_fixed_spec *s,
                              const struct dbin_sink *sink, struct error *err) MUST_CHECK;
/* darshan_mod_lustre.c: LUSTRE's variable list of layout components and OSTs. */
enum status dmod_decode_lustre(const struct dbin_region *r, const struct dbin_sink *sink,
                               struct error *err) MUST_CHECK;
/* darshan_mod_heatmap.c: HEATMAP's variable number of bins. */
enum status dmod_decode_heatmap(const struct dbin_region *r, const struct dbin_sink *sink,
                                struct error *err) MUST_CHECK;

#endif
