/* darshan_mod_more.c: decoders of H5F, H5D, PNETCDF, BG/Q, LUSTRE, HEATMAP, DFS, DAOS. */
#include "darshan_format.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counter names: the field lists of darshan's log-format headers ---------- */

static const char *const h5f_counters[] = {
    "H5F_OPENS",
    "H5F_FLUSHES",
    "H5F_USE_MPIIO",
};
static const char *const h5f_f_counters[] = {
    "H5F_F_OPEN_START_TIMESTAMP",
    "H5F_F_CLOSE_START_TIMESTAMP",
    "H5F_F_OPEN_END_TIMESTAMP",
    "H5F_F_CLOSE_END_TIMESTAMP",
    "H5F_F_META_TIME",
};
static const char *const h5d_counters[] = {
    "H5D_OPENS",
    "H5D_READS",
    "H5D_WRITES",
    "H5D_FLUSHES",
    "H5D_BYTES_READ",
    "H5D_BYTES_WRITTEN",
    "H5D_RW_SWITCHES",
    "H5D_REGULAR_HYPERSLAB_SELECTS",
    "H5D_IRREGULAR_HYPERSLAB_SELECTS",
    "H5D_POINT_SELECTS",
    "H5D_MAX_READ_TIME_SIZE",
    "H5D_MAX_WRITE_TIME_SIZE",
    "H5D_SIZE_READ_AGG_0_100",
    "H5D_SIZE_READ_AGG_100_1K",
    "H5D_SIZE_READ_AGG_1K_10K",
    "H5D_SIZE_READ_AGG_10K_100K",
    "H5D_SIZE_READ_AGG_100K_1M",
    "H5D_SIZE_READ_AGG_1M_4M",
    "H5D_SIZE_READ_AGG_4M_10M",
    "H5D_SIZE_READ_AGG_10M_100M",
    "H5D_SIZE_READ_AGG_100M_1G",
    "H5D_SIZE_READ_AGG_1G_PLUS",
    "H5D_SIZE_WRITE_AGG_0_100",
    "H5D_SIZE_WRITE_AGG_100_1K",
    "H5D_SIZE_WRITE_AGG_1K_10K",
    "H5D_SIZE_WRITE_AGG_10K_100K",
    "H5D_SIZE_WRITE_AGG_100K_1M",
    "H5D_SIZE_WRITE_AGG_1M_4M",
    "H5D_SIZE_WRITE_AGG_4M_10M",
    "H5D_SIZE_WRITE_AGG_10M_100M",
    "H5D_SIZE_WRITE_AGG_100M_1G",
    "H5D_SIZE_WRITE_AGG_1G_PLUS",
    "H5D_ACCESS1_ACCESS",
    "H5D_ACCESS1_LENGTH_D1",
    "H5D_ACCESS1_LENGTH_D2",
    "H5D_ACCESS1_LENGTH_D3",
    "H5D_ACCESS1_LENGTH_D4",
    "H5D_ACCESS1_LENGTH_D5",
    "H5D_ACCESS1_STRIDE_D1",
    "H5D_ACCESS1_STRIDE_D2",
    "H5D_ACCESS1_STRIDE_D3",
    "H5D_ACCESS1_STRIDE_D4",
    "H5D_ACCESS1_STRIDE_D5",
    "H5D_ACCESS2_ACCESS",
    "H5D_ACCESS2_LENGTH_D1",
    "H5D_ACCESS2_LENGTH_D2",
    "H5D_ACCESS2_LENGTH_D3",
    "H5D_ACCESS2_LENGTH_D4",
    "H5D_ACCESS2_LENGTH_D5",
    "H5D_ACCESS2_STRIDE_D1",
    "H5D_ACCESS2_STRIDE_D2",
    "H5D_ACCESS2_STRIDE_D3",
    "H5D_ACCESS2_STRIDE_D4",
    "H5D_ACCESS2_STRIDE_D5",
    "H5D_ACCESS3_ACCESS",
    "H5D_ACCESS3_LENGTH_D1",
    "H5D_ACCESS3_LENGTH_D2",
    "H5D_ACCESS3_LENGTH_D3",
    "H5D_ACCESS3_LENGTH_D4",
    "H5D_ACCESS3_LENGTH_D5",
    "H5D_ACCESS3_STRIDE_D1",
    "H5D_ACCESS3_STRIDE_D2",
    "H5D_ACCESS3_STRIDE_D3",
    "H5D_ACCESS3_STRIDE_D4",
    "H5D_ACCESS3_STRIDE_D5",
    "H5D_ACCESS4_ACCESS",
    "H5D_ACCESS4_LENGTH_D1",
    "H5D_ACCESS4_LENGTH_D2",
    "H5D_ACCESS4_LENGTH_D3",
    "H5D_ACCESS4_LENGTH_D4",
    "H5D_ACCESS4_LENGTH_D5",
    "H5D_ACCESS4_STRIDE_D1",
    "H5D_ACCESS4_STRIDE_D2",
    "H5D_ACCESS4_STRIDE_D3",
    "H5D_ACCESS4_STRIDE_D4",
    "H5D_ACCESS4_STRIDE_D5",
    "H5D_ACCESS1_COUNT",
    "H5D_ACCESS2_COUNT",
    "H5D_ACCESS3_COUNT",
    "H5D_ACCESS4_COUNT",
    "H5D_DATASPACE_NDIMS",
    "H5D_DATASPACE_NPOINTS",
    "H5D_DATATYPE_SIZE",
    "H5D_CHUNK_SIZE_D1",
    "H5D_CHUNK_SIZE_D2",
    "H5D_CHUNK_SIZE_D3",
    "H5D_CHUNK_SIZE_D4",
    "H5D_CHUNK_SIZE_D5",
    "H5D_USE_MPIIO_COLLECTIVE",
    "H5D_USE_DEPRECATED",
    "H5D_FASTEST_RANK",
    "H5D_FASTEST_RANK_BYTES",
    "H5D_SLOWEST_RANK",
    "H5D_SLOWEST_RANK_BYTES",
};
static const char *const h5d_f_counters[] = {
    "H5D_F_OPEN_START_TIMESTAMP",
    "H5D_F_READ_START_TIMESTAMP",
    "H5D_F_WRITE_START_TIMESTAMP",
    "H5D_F_CLOSE_START_TIMESTAMP",
    "H5D_F_OPEN_END_TIMESTAMP",
    "H5D_F_READ_END_TIMESTAMP",
    "H5D_F_WRITE_END_TIMESTAMP",
    "H5D_F_CLOSE_END_TIMESTAMP",
    "H5D_F_READ_TIME",
    "H5D_F_WRITE_TIME",
    "H5D_F_META_TIME",
    "H5D_F_MAX_READ_TIME",
    "H5D_F_MAX_WRITE_TIME",
    "H5D_F_FASTEST_RANK_TIME",
    "H5D_F_SLOWEST_RANK_TIME",
    "H5D_F_VARIANCE_RANK_TIME",
    "H5D_F_VARIANCE_RANK_BYTES",
};
static const char *const pnetcdf_file_counters[] = {
    "PNETCDF_FILE_CREATES",       "PNETCDF_FILE_OPENS",
    "PNETCDF_FILE_REDEFS",        "PNETCDF_FILE_INDEP_WAITS",
    "PNETCDF_FILE_COLL_WAITS",    "PNETCDF_FILE_SYNCS",
    "PNETCDF_FILE_BYTES_READ",    "PNETCDF_FILE_BYTES_WRITTEN",
    "PNETCDF_FILE_WAIT_FAILURES",
};
static const char *const pnetcdf_file_f_counters[] = {
    "PNETCDF_FILE_F_OPEN_START_TIMESTAMP",
    "PNETCDF_FILE_F_CLOSE_START_TIMESTAMP",
    "PNETCDF_FILE_F_WAIT_START_TIMESTAMP",
    "PNETCDF_FILE_F_OPEN_END_TIMESTAMP",
    "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP",
    "PNETCDF_FILE_F_WAIT_END_TIMESTAMP",
    "PNETCDF_FILE_F_META_TIME",
    "PNETCDF_FILE_F_WAIT_TIME",
};
static const char *const pnetcdf_var_counters[] = {
    "PNETCDF_VAR_OPENS",
    "PNETCDF_VAR_INDEP_READS",
    "PNETCDF_VAR_INDEP_WRITES",
    "PNETCDF_VAR_COLL_READS",
    "PNETCDF_VAR_COLL_WRITES",
    "PNETCDF_VAR_NB_READS",
    "PNETCDF_VAR_NB_WRITES",
    "PNETCDF_VAR_BYTES_READ",
    "PNETCDF_VAR_BYTES_WRITTEN",
    "PNETCDF_VAR_RW_SWITCHES",
    "PNETCDF_VAR_PUT_VAR",
    "PNETCDF_VAR_PUT_VAR1",
    "PNETCDF_VAR_PUT_VARA",
    "PNETCDF_VAR_PUT_VARS",
    "PNETCDF_VAR_PUT_VARM",
    "PNETCDF_VAR_PUT_VARN",
    "PNETCDF_VAR_PUT_VARD",
    "PNETCDF_VAR_GET_VAR",
    "PNETCDF_VAR_GET_VAR1",
    "PNETCDF_VAR_GET_VARA",
    "PNETCDF_VAR_GET_VARS",
    "PNETCDF_VAR_GET_VARM",
    "PNETCDF_VAR_GET_VARN",
    "PNETCDF_VAR_GET_VARD",
    "PNETCDF_VAR_IPUT_VAR",
    "PNETCDF_VAR_IPUT_VAR1",
    "PNETCDF_VAR_IPUT_VARA",
    "PNETCDF_VAR_IPUT_VARS",
    "PNETCDF_VAR_IPUT_VARM",
    "PNETCDF_VAR_IPUT_VARN",
    "PNETCDF_VAR_IGET_VAR",
    "PNETCDF_VAR_IGET_VAR1",
    "PNETCDF_VAR_IGET_VARA",
    "PNETCDF_VAR_IGET_VARS",
    "PNETCDF_VAR_IGET_VARM",
    "PNETCDF_VAR_IGET_VARN",
    "PNETCDF_VAR_BPUT_VAR",
    "PNETCDF_VAR_BPUT_VAR1",
    "PNETCDF_VAR_BPUT_VARA",
    "PNETCDF_VAR_BPUT_VARS",
    "PNETCDF_VAR_BPUT_VARM",
    "PNETCDF_VAR_BPUT_VARN",
    "PNETCDF_VAR_MAX_READ_TIME_SIZE",
    "PNETCDF_VAR_MAX_WRITE_TIME_SIZE",
    "PNETCDF_VAR_SIZE_READ_AGG_0_100",
    "PNETCDF_VAR_SIZE_READ_AGG_100_1K",
    "PNETCDF_VAR_SIZE_READ_AGG_1K_10K",
    "PNETCDF_VAR_SIZE_READ_AGG_10K_100K",
    "PNETCDF_VAR_SIZE_READ_AGG_100K_1M",
    "PNETCDF_VAR_SIZE_READ_AGG_1M_4M",
    "PNETCDF_VAR_SIZE_READ_AGG_4M_10M",
    "PNETCDF_VAR_SIZE_READ_AGG_10M_100M",
    "PNETCDF_VAR_SIZE_READ_AGG_100M_1G",
    "PNETCDF_VAR_SIZE_READ_AGG_1G_PLUS",
    "PNETCDF_VAR_SIZE_WRITE_AGG_0_100",
    "PNETCDF_VAR_SIZE_WRITE_AGG_100_1K",
    "PNETCDF_VAR_SIZE_WRITE_AGG_1K_10K",
    "PNETCDF_VAR_SIZE_WRITE_AGG_10K_100K",
    "PNETCDF_VAR_SIZE_WRITE_AGG_100K_1M",
    "PNETCDF_VAR_SIZE_WRITE_AGG_1M_4M",
    "PNETCDF_VAR_SIZE_WRITE_AGG_4M_10M",
    "PNETCDF_VAR_SIZE_WRITE_AGG_10M_100M",
    "PNETCDF_VAR_SIZE_WRITE_AGG_100M_1G",
    "PNETCDF_VAR_SIZE_WRITE_AGG_1G_PLUS",
    "PNETCDF_VAR_ACCESS1_ACCESS",
    "PNETCDF_VAR_ACCESS1_LENGTH_D1",
    "PNETCDF_VAR_ACCESS1_LENGTH_D2",
    "PNETCDF_VAR_ACCESS1_LENGTH_D3",
    "PNETCDF_VAR_ACCESS1_LENGTH_D4",
    "PNETCDF_VAR_ACCESS1_LENGTH_D5",
    "PNETCDF_VAR_ACCESS1_STRIDE_D1",
    "PNETCDF_VAR_ACCESS1_STRIDE_D2",
    "PNETCDF_VAR_ACCESS1_STRIDE_D3",
    "PNETCDF_VAR_ACCESS1_STRIDE_D4",
    "PNETCDF_VAR_ACCESS1_STRIDE_D5",
    "PNETCDF_VAR_ACCESS2_ACCESS",
    "PNETCDF_VAR_ACCESS2_LENGTH_D1",
    "PNETCDF_VAR_ACCESS2_LENGTH_D2",
    "PNETCDF_VAR_ACCESS2_LENGTH_D3",
    "PNETCDF_VAR_ACCESS2_LENGTH_D4",
    "PNETCDF_VAR_ACCESS2_LENGTH_D5",
    "PNETCDF_VAR_ACCESS2_STRIDE_D1",
    "PNETCDF_VAR_ACCESS2_STRIDE_D2",
    "PNETCDF_VAR_ACCESS2_STRIDE_D3",
    "PNETCDF_VAR_ACCESS2_STRIDE_D4",
    "PNETCDF_VAR_ACCESS2_STRIDE_D5",
    "PNETCDF_VAR_ACCESS3_ACCESS",
    "PNETCDF_VAR_ACCESS3_LENGTH_D1",
    "PNETCDF_VAR_ACCESS3_LENGTH_D2",
    "PNETCDF_VAR_ACCESS3_LENGTH_D3",
    "PNETCDF_VAR_ACCESS3_LENGTH_D4",
    "PNETCDF_VAR_ACCESS3_LENGTH_D5",
    "PNETCDF_VAR_ACCESS3_STRIDE_D1",
    "PNETCDF_VAR_ACCESS3_STRIDE_D2",
    "PNETCDF_VAR_ACCESS3_STRIDE_D3",
    "PNETCDF_VAR_ACCESS3_STRIDE_D4",
    "PNETCDF_VAR_ACCESS3_STRIDE_D5",
    "PNETCDF_VAR_ACCESS4_ACCESS",
    "PNETCDF_VAR_ACCESS4_LENGTH_D1",
    "PNETCDF_VAR_ACCESS4_LENGTH_D2",
    "PNETCDF_VAR_ACCESS4_LENGTH_D3",
    "PNETCDF_VAR_ACCESS4_LENGTH_D4",
    "PNETCDF_VAR_ACCESS4_LENGTH_D5",
    "PNETCDF_VAR_ACCESS4_STRIDE_D1",
    "PNETCDF_VAR_ACCESS4_STRIDE_D2",
    "PNETCDF_VAR_ACCESS4_STRIDE_D3",
    "PNETCDF_VAR_ACCESS4_STRIDE_D4",
    "PNETCDF_VAR_ACCESS4_STRIDE_D5",
    "PNETCDF_VAR_ACCESS1_COUNT",
    "PNETCDF_VAR_ACCESS2_COUNT",
    "PNETCDF_VAR_ACCESS3_COUNT",
    "PNETCDF_VAR_ACCESS4_COUNT",
    "PNETCDF_VAR_NDIMS",
    "PNETCDF_VAR_NPOINTS",
    "PNETCDF_VAR_DATATYPE_SIZE",
    "PNETCDF_VAR_IS_RECORD_VAR",
    "PNETCDF_VAR_FASTEST_RANK",
    "PNETCDF_VAR_FASTEST_RANK_BYTES",
    "PNETCDF_VAR_SLOWEST_RANK",
    "PNETCDF_VAR_SLOWEST_RANK_BYTES",
};
static const char *const pnetcdf_var_f_counters[] = {
    "PNETCDF_VAR_F_OPEN_START_TIMESTAMP",
    "PNETCDF_VAR_F_READ_START_TIMESTAMP",
    "PNETCDF_VAR_F_WRITE_START_TIMESTAMP",
    "PNETCDF_VAR_F_CLOSE_START_TIMESTAMP",
    "PNETCDF_VAR_F_OPEN_END_TIMESTAMP",
    "PNETCDF_VAR_F_READ_END_TIMESTAMP",
    "PNETCDF_VAR_F_WRITE_END_TIMESTAMP",
    "PNETCDF_VAR_F_CLOSE_END_TIMESTAMP",
    "PNETCDF_VAR_F_READ_TIME",
    "PNETCDF_VAR_F_WRITE_TIME",
    "PNETCDF_VAR_F_META_TIME",
    "PNETCDF_VAR_F_MAX_READ_TIME",
    "PNETCDF_VAR_F_MAX_WRITE_TIME",
    "PNETCDF_VAR_F_FASTEST_RANK_TIME",
    "PNETCDF_VAR_F_SLOWEST_RANK_TIME",
    "PNETCDF_VAR_F_VARIANCE_RANK_TIME",
    "PNETCDF_VAR_F_VARIANCE_RANK_BYTES",
};
static const char *const bgq_counters[] = {
    "BGQ_CSJOBID", "BGQ_NNODES", "BGQ_RANKSPERNODE", "BGQ_DDRPERNODE",
    "BGQ_INODES",  "BGQ_ANODES", "BGQ_BNODES",       "BGQ_CNODES",
    "BGQ_DNODES",  "BGQ_ENODES", "BGQ_TORUSENABLED",
};
static const char *const bgq_f_counters[] = {
    "BGQ_F_TIMESTAMP",
};
static const char *const dfs_counters[] = {
    "DFS_OPENS",
    "DFS_GLOBAL_OPENS",
    "DFS_LOOKUPS",
    "DFS_DUPS",
    "DFS_READS",
    "DFS_READXS",
    "DFS_WRITES",
    "DFS_WRITEXS",
    "DFS_NB_READS",
    "DFS_NB_WRITES",
    "DFS_GET_SIZES",
    "DFS_PUNCHES",
    "DFS_REMOVES",
    "DFS_STATS",
    "DFS_BYTES_READ",
    "DFS_BYTES_WRITTEN",
    "DFS_RW_SWITCHES",
    "DFS_MAX_READ_TIME_SIZE",
    "DFS_MAX_WRITE_TIME_SIZE",
    "DFS_SIZE_READ_0_100",
    "DFS_SIZE_READ_100_1K",
    "DFS_SIZE_READ_1K_10K",
    "DFS_SIZE_READ_10K_100K",
    "DFS_SIZE_READ_100K_1M",
    "DFS_SIZE_READ_1M_4M",
    "DFS_SIZE_READ_4M_10M",
    "DFS_SIZE_READ_10M_100M",
    "DFS_SIZE_READ_100M_1G",
    "DFS_SIZE_READ_1G_PLUS",
    "DFS_SIZE_WRITE_0_100",
    "DFS_SIZE_WRITE_100_1K",
    "DFS_SIZE_WRITE_1K_10K",
    "DFS_SIZE_WRITE_10K_100K",
    "DFS_SIZE_WRITE_100K_1M",
    "DFS_SIZE_WRITE_1M_4M",
    "DFS_SIZE_WRITE_4M_10M",
    "DFS_SIZE_WRITE_10M_100M",
    "DFS_SIZE_WRITE_100M_1G",
    "DFS_SIZE_WRITE_1G_PLUS",
    "DFS_ACCESS1_ACCESS",
    "DFS_ACCESS2_ACCESS",
    "DFS_ACCESS3_ACCESS",
    "DFS_ACCESS4_ACCESS",
    "DFS_ACCESS1_COUNT",
    "DFS_ACCESS2_COUNT",
    "DFS_ACCESS3_COUNT",
    "DFS_ACCESS4_COUNT",
    "DFS_CHUNK_SIZE",
    "DFS_FASTEST_RANK",
    "DFS_FASTEST_RANK_BYTES",
    "DFS_SLOWEST_RANK",
    "DFS_SLOWEST_RANK_BYTES",
};
static const char *const dfs_f_counters[] = {
    "DFS_F_OPEN_START_TIMESTAMP",
    "DFS_F_READ_START_TIMESTAMP",
    "DFS_F_WRITE_START_TIMESTAMP",
    "DFS_F_CLOSE_START_TIMESTAMP",
    "DFS_F_OPEN_END_TIMESTAMP",
    "DFS_F_READ_END_TIMESTAMP",
    "DFS_F_WRITE_END_TIMESTAMP",
    "DFS_F_CLOSE_END_TIMESTAMP",
    "DFS_F_READ_TIME",
    "DFS_F_WRITE_TIME",
    "DFS_F_META_TIME",
    "DFS_F_MAX_READ_TIME",
    "DFS_F_MAX_WRITE_TIME",
    "DFS_F_FASTEST_RANK_TIME",
    "DFS_F_SLOWEST_RANK_TIME",
};
static const char *const daos_counters[] = {
    "DAOS_OBJ_OPENS",
    "DAOS_OBJ_FETCHES",
    "DAOS_OBJ_UPDATES",
    "DAOS_OBJ_PUNCHES",
    "DAOS_OBJ_DKEY_PUNCHES",
    "DAOS_OBJ_AKEY_PUNCHES",
    "DAOS_OBJ_DKEY_LISTS",
    "DAOS_OBJ_AKEY_LISTS",
    "DAOS_OBJ_RECX_LISTS",
    "DAOS_ARRAY_OPENS",
    "DAOS_ARRAY_READS",
    "DAOS_ARRAY_WRITES",
    "DAOS_ARRAY_GET_SIZES",
    "DAOS_ARRAY_SET_SIZES",
    "DAOS_ARRAY_STATS",
    "DAOS_ARRAY_PUNCHES",
    "DAOS_ARRAY_DESTROYS",
    "DAOS_KV_OPENS",
    "DAOS_KV_GETS",
    "DAOS_KV_PUTS",
    "DAOS_KV_REMOVES",
    "DAOS_KV_LISTS",
    "DAOS_KV_DESTROYS",
    "DAOS_NB_OPS",
    "DAOS_BYTES_READ",
    "DAOS_BYTES_WRITTEN",
    "DAOS_RW_SWITCHES",
    "DAOS_MAX_READ_TIME_SIZE",
    "DAOS_MAX_WRITE_TIME_SIZE",
    "DAOS_SIZE_READ_0_100",
    "DAOS_SIZE_READ_100_1K",
    "DAOS_SIZE_READ_1K_10K",
    "DAOS_SIZE_READ_10K_100K",
    "DAOS_SIZE_READ_100K_1M",
    "DAOS_SIZE_READ_1M_4M",
    "DAOS_SIZE_READ_4M_10M",
    "DAOS_SIZE_READ_10M_100M",
    "DAOS_SIZE_READ_100M_1G",
    "DAOS_SIZE_READ_1G_PLUS",
    "DAOS_SIZE_WRITE_0_100",
    "DAOS_SIZE_WRITE_100_1K",
    "DAOS_SIZE_WRITE_1K_10K",
    "DAOS_SIZE_WRITE_10K_100K",
    "DAOS_SIZE_WRITE_100K_1M",
    "DAOS_SIZE_WRITE_1M_4M",
    "DAOS_SIZE_WRITE_4M_10M",
    "DAOS_SIZE_WRITE_10M_100M",
    "DAOS_SIZE_WRITE_100M_1G",
    "DAOS_SIZE_WRITE_1G_PLUS",
    "DAOS_ACCESS1_ACCESS",
    "DAOS_ACCESS2_ACCESS",
    "DAOS_ACCESS3_ACCESS",
    "DAOS_ACCESS4_ACCESS",
    "DAOS_ACCESS1_COUNT",
    "DAOS_ACCESS2_COUNT",
    "DAOS_ACCESS3_COUNT",
    "DAOS_ACCESS4_COUNT",
    "DAOS_OBJ_OTYPE",
    "DAOS_ARRAY_CELL_SIZE",
    "DAOS_ARRAY_CHUNK_SIZE",
    "DAOS_FASTEST_RANK",
    "DAOS_FASTEST_RANK_BYTES",
    "DAOS_SLOWEST_RANK",
    "DAOS_SLOWEST_RANK_BYTES",
};
static const char *const daos_f_counters[] = {
    "DAOS_F_OPEN_START_TIMESTAMP",
    "DAOS_F_READ_START_TIMESTAMP",
    "DAOS_F_WRITE_START_TIMESTAMP",
    "DAOS_F_CLOSE_START_TIMESTAMP",
    "DAOS_F_OPEN_END_TIMESTAMP",
    "DAOS_F_READ_END_TIMESTAMP",
    "DAOS_F_WRITE_END_TIMESTAMP",
    "DAOS_F_CLOSE_END_TIMESTAMP",
    "DAOS_F_READ_TIME",
    "DAOS_F_WRITE_TIME",
    "DAOS_F_META_TIME",
    "DAOS_F_MAX_READ_TIME",
    "DAOS_F_MAX_WRITE_TIME",
    "DAOS_F_FASTEST_RANK_TIME",
    "DAOS_F_SLOWEST_RANK_TIME",
};

#define N_OF(a)    (sizeof(a) / sizeof((a)[0]))
#define BASE_BYTES 16 /* a record's id and rank */

/* ---- shared helpers ------------------------------------------------------------ */

/* One record's counters on their way to the sink: c holds what every counter of the
 * record shares. */
struct emit {
    const struct dbin_sink *sink;
    struct dbin_counter c;
};

static void emit_start(struct emit *e, const struct dbin_region *r,
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

static enum status emit_int(struct emit *e, const char *name, int64_t v,
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

static enum status emit_float(struct emit *e, const char *name, double v,
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

static enum status emit_text(struct emit *e, const char *name, const char *v,
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

/* ---- fixed-size records: base, [file record id], integers, doubles, [tail] ----- */

#define NEG   (-1) /* the counter did not exist at this version: -1, as darshan-parser */
#define OPENS (-2) /* PNETCDF_FILE before version 3: INDEP_OPENS + COLL_OPENS */

/* Where an older record version keeps each current counter: the index of its 8-byte
 * word after the base record, or NEG / OPENS. Integers first, then doubles. */
struct old_layout {
    uint32_t version;
    size_t bytes;        /* record size in the file */
    const int16_t *map;  /* NULL: words in current order after `skip` words */
    size_t skip;         /* words between the base record and the counters */
    bool no_file_rec_id; /* H5D version 1: FILE_REC_ID printed as 0 */
};

struct fixed_spec {
    enum dbin_module module;
    uint32_t version; /* current record version */
    const char *const *ints;
    size_t n_ints;
    const char *const *floats;
    size_t n_floats;
    const char *file_rec_id; /* name of the unsigned word after the base, or NULL */
    size_t tail;             /* bytes after the doubles (DFS, DAOS: UUIDs, object id) */
    const struct old_layout *old;
    size_t n_old;
};

/* H5F 1 held OPENS and the first open and last close; 2 added the other two
 * timestamps; 3 added FLUSHES, USE_MPIIO and META_TIME. */
static const int16_t h5f_v1[] = {0, NEG, NEG, 1, NEG, NEG, 2, NEG};
static const int16_t h5f_v2[] = {0, NEG, NEG, 1, 2, 3, 4, NEG};
static const struct old_layout h5f_old[] = {
    {1, 40, h5f_v1, 0, false},
    {2, 56, h5f_v2, 0, false},
};
/* H5D 1 lacked the file's record id. */
static const struct old_layout h5d_old[] = {{1, 904, NULL, 0, true}};
/* PNETCDF_FILE 1 and 2 held INDEP_OPENS, COLL_OPENS and timestamps only. */
static const int16_t pnetcdf_file_v1[] = {NEG, OPENS, NEG, NEG, NEG, NEG, NEG, NEG, NEG,
                                          2,   NEG,   NEG, NEG, 3,   NEG, NEG, NEG};
static const int16_t pnetcdf_file_v2[] = {NEG, OPENS, NEG, NEG, NEG, NEG, NEG, NEG, NEG,
                                          2,   3,     NEG, 4,   5,   NEG, NEG, NEG};
static const struct old_layout pnetcdf_file_old[] = {
    {1, 48, pnetcdf_file_v1, 0, false},
    {2, 64, pnetcdf_file_v2, 0, false},
};
/* BG/Q 1 had 8 bytes of padding after the base record. */
static const struct old_layout bgq_old[] = {{1, 120, NULL, 1, false}};

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

static const struct fixed_spec fixed_specs[] = {
    SPEC(DBIN_H5F, 3, h5f, NULL, 0, h5f_old),
    SPEC(DBIN_H5D, 2, h5d, "H5D_FILE_REC_ID", 0, h5d_old),
    SPEC(DBIN_PNETCDF_FILE, 3, pnetcdf_file, NULL, 0, pnetcdf_file_old),
    SPEC_NEW(DBIN_PNETCDF_VAR, 1, pnetcdf_var, "PNETCDF_VAR_FILE_REC_ID", 0),
    SPEC(DBIN_BGQ, 2, bgq, NULL, 0, bgq_old),
    SPEC_NEW(DBIN_DFS, 1, dfs, NULL, 32),
    SPEC_NEW(DBIN_DAOS, 1, daos, NULL, 48),
};

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

static enum status decode_fixed(const struct dbin_region *r, const struct fixed_spec *s,
                                const struct dbin_sink *sink, struct error *err)
{
    const size_t n_words = s->n_ints + s->n_floats;
    const size_t frid_bytes = s->file_rec_id != NULL ? 8 : 0;
    const struct old_layout *old = NULL;
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
        struct emit e;

        if (r->len - off < rec_len) {
            return dmod_fail(r, off, err, "expected %zu bytes, %zu left", rec_len,
                             r->len - off);
        }
        emit_start(&e, r, sink, off);
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
            rc = emit_int(&e, s->ints[i], ints[i], err);
        for (i = 0; i < s->n_floats && rc == STATUS_OK; i++)
            rc = emit_float(&e, s->floats[i], floats[i], err);
        if (s->file_rec_id != NULL && rc == STATUS_OK) {
            e.c.is_unsigned = true; /* printed as uint64, like the record id */
            rc = emit_int(&e, s->file_rec_id, (int64_t)file_rec_id, err);
        }
    }
    return rc;
}

/* ---- LUSTRE: a variable list of layout components and OSTs ------------------- */

#define LUSTRE_COMP_WORDS 7  /* counters of one component */
#define LUSTRE_COMP_BYTES 72 /* 7 counters and a 16-byte pool name */

static const char *const lustre_comp_counters[LUSTRE_COMP_WORDS] = {
    "STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS",
    "EXT_START",   "EXT_END",      "MIRROR_ID"};

/* One component as darshan-parser prints it. */
struct lustre_comp {
    int64_t v[LUSTRE_COMP_WORDS];
    char pool[17]; /* "" when none */
};

/* darshan-parser's words for a layout pattern (lustreapi.h's values). */
static const char *lustre_pattern(int64_t v)
{
    switch ((uint64_t)v) {
    case 0: return "raid0";
    case 2: return "mdt";
    case 4: return "raid0,overstriped";
    case 8: return "foreign";
    default: return "N/A";
    }
}

/* darshan-parser's list of component flags ("prefrd,prefwr,init"), "0" for none and
 * "N/A" for -1; like it, at most 63 characters. */
static void lustre_flags(int64_t v, char out[64])
{
    static const char *const names[] = {"stale",    "prefrd",  "prefwr",    "offline",
                                        "init",     "nosync",  "extension", "parity",
                                        "compress", "partial", "nocompr",   "neg"};
    size_t i, n = 0;

    out[0] = '\0';
    if (v == -1) {
        snprintf(out, 64, "N/A");
        return;
    }
    for (i = 0; i < N_OF(names); i++) {
        if (((uint64_t)v & ((uint64_t)1 << i)) == 0)
            continue;
        n += (size_t)snprintf(out + n, 64 - n, "%s,", names[i]);
        if (n >= 63) {
            n = 63;
            break;
        }
    }
    if (n == 0) {
        snprintf(out, 64, "0");
    } else if (out[n - 1] == ',') {
        out[n - 1] = '\0';
    }
}

static enum status lustre_emit(struct emit *e, const struct lustre_comp *comps,
                               size_t n_comps, int64_t n_stripes,
                               const struct dbin_region *r, size_t ost_off,
                               struct error *err)
{
    enum status rc = emit_int(e, "LUSTRE_NUM_COMPONENTS", (int64_t)n_comps, err);
    size_t i, j, k, ost = 0;
    char name[80], text[64];

    if (rc == STATUS_OK)
        rc = emit_int(e, "LUSTRE_NUM_STRIPES", n_stripes, err);
    for (i = 0; i < n_comps && rc == STATUS_OK; i++) {
        for (k = 0; k < LUSTRE_COMP_WORDS && rc == STATUS_OK; k++) {
            snprintf(name, sizeof(name), "LUSTRE_COMP%zu_%s", i + 1,
                     lustre_comp_counters[k]);
            if (k == 2) {
                rc = emit_text(e, name, lustre_pattern(comps[i].v[k]), err);
            } else if (k == 3) {
                lustre_flags(comps[i].v[k], text);
                rc = emit_text(e, name, text, err);
            } else {
                rc = emit_int(e, name, comps[i].v[k], err);
            }
        }
        snprintf(name, sizeof(name), "LUSTRE_COMP%zu_POOL_NAME", i + 1);
        if (rc == STATUS_OK) {
            rc =
                emit_text(e, name, comps[i].pool[0] != '\0' ? comps[i].pool : "N/A", err);
        }
        for (j = 0; j < (size_t)comps[i].v[1] && rc == STATUS_OK; j++, ost++) {
            snprintf(name, sizeof(name), "LUSTRE_COMP%zu_OST_ID_%zu", i + 1, j);
            rc = emit_int(e, name, (int64_t)dmod_word(r, ost_off + 8 * ost), err);
        }
    }
    return rc;
}

/* Version 1: OSTS, MDTS, STRIPE_OFFSET, STRIPE_SIZE, STRIPE_WIDTH, then STRIPE_WIDTH
 * OST ids; darshan-parser shows it as one component over the whole file. */
static enum status lustre_v1(const struct dbin_region *r, const struct dbin_sink *sink,
                             size_t *off, struct error *err)
{
    struct lustre_comp comp;
    struct emit e;
    int64_t count;
    size_t left = r->len - *off, start = *off;

    if (left < 56)
        return dmod_fail(r, start, err, "expected 56 bytes, %zu left", left);
    count = (int64_t)dmod_word(r, start + 48);
    if (count < 0 || (uint64_t)count > (left - 56) / 8) {
        return dmod_fail(r, start, err, "%" PRId64 " OSTs in %zu bytes", count,
                         left - 56);
    }
    memset(&comp, 0, sizeof(comp));
    comp.v[0] = (int64_t)dmod_word(r, start + 40);
    comp.v[1] = count;
    comp.v[2] = -1;
    comp.v[3] = -1;
    comp.v[4] = 0;
    comp.v[5] = -1;
    comp.v[6] = -1;
    emit_start(&e, r, sink, start);
    *off = start + 56 + 8 * (size_t)count;
    return lustre_emit(&e, &comp, 1, count, r, start + 56, err);
}

/* Version 2: NUM_COMPONENTS and NUM_STRIPES, the components, then the OST ids.
 * Components after one whose STRIPE_SIZE is -1 were never used: darshan-parser
 * drops them and counts the stripes of those it keeps. */
static enum status lustre_v2(const struct dbin_region *r, const struct dbin_sink *sink,
                             size_t *off, struct lustre_comp **comps, size_t *cap,
                             struct error *err)
{
    size_t left = r->len - *off, start = *off, i, kept;
    int64_t n_comps, n_stripes, kept_stripes = 0;
    struct emit e;

    if (left < 32)
        return dmod_fail(r, start, err, "expected 32 bytes, %zu left", left);
    n_comps = (int64_t)dmod_word(r, start + 16);
    n_stripes = (int64_t)dmod_word(r, start + 24);
    left -= 32;
    if (n_comps < 0 || n_stripes < 0) {
        return dmod_fail(r, start, err, "%" PRId64 " components, %" PRId64 " stripes",
                         n_comps, n_stripes);
    }
    emit_start(&e, r, sink, start);
    if (n_comps == 0) { /* darshan reads nothing more of such a record */
        *off = start + 32;
        return lustre_emit(&e, NULL, 0, n_stripes, r, start + 32, err);
    }
    if ((uint64_t)n_comps > left / LUSTRE_COMP_BYTES ||
        (uint64_t)n_stripes > (left - (size_t)n_comps * LUSTRE_COMP_BYTES) / 8) {
        return dmod_fail(r, start, err,
                         "%" PRId64 " components and %" PRId64 " stripes in %zu bytes",
                         n_comps, n_stripes, left);
    }
    if ((size_t)n_comps > *cap) {
        struct lustre_comp *grown = realloc(*comps, (size_t)n_comps * sizeof(**comps));

        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "%s: LUSTRE components", r->path);
        *comps = grown;
        *cap = (size_t)n_comps;
    }
    for (kept = 0; kept < (size_t)n_comps; kept++) {
        size_t at = start + 32 + kept * LUSTRE_COMP_BYTES;
        struct lustre_comp *c = &(*comps)[kept];

        for (i = 0; i < LUSTRE_COMP_WORDS; i++)
            c->v[i] = (int64_t)dmod_word(r, at + 8 * i);
        if (c->v[0] == -1)
            break;
        memcpy(c->pool, r->data + at + 56, 16);
        c->pool[16] = '\0';
        if (c->v[1] < 0 || c->v[1] > n_stripes - kept_stripes) {
            return dmod_fail(r, start, err,
                             "component %zu has %" PRId64 " stripes of %" PRId64 " left",
                             kept + 1, c->v[1], n_stripes - kept_stripes);
        }
        kept_stripes += c->v[1];
    }
    *off = start + 32 + (size_t)n_comps * LUSTRE_COMP_BYTES + 8 * (size_t)n_stripes;
    return lustre_emit(&e, *comps, kept, kept_stripes, r,
                       start + 32 + (size_t)n_comps * LUSTRE_COMP_BYTES, err);
}

static enum status decode_lustre(const struct dbin_region *r,
                                 const struct dbin_sink *sink, struct error *err)
{
    struct lustre_comp *comps = NULL;
    size_t cap = 0, off = 0;
    enum status rc = STATUS_OK;

    if (r->version != 1 && r->version != 2) {
        return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                        "LUSTRE records of version %" PRIu32 " are not known",
                        r->version);
    }
    while (off < r->len && rc == STATUS_OK) {
        if (r->version == 1) {
            rc = lustre_v1(r, sink, &off, err);
        } else {
            rc = lustre_v2(r, sink, &off, &comps, &cap, err);
        }
    }
    free(comps);
    return rc;
}

/* ---- HEATMAP: a variable number of bins ----------------------------------------- */

/* The record as darshan writes it: id, rank, bin width, nbins and two pointers
 * (meaningless in the file), then nbins write bins and nbins read bins. */
#define HEATMAP_FIXED 48

static enum status decode_heatmap(const struct dbin_region *r,
                                  const struct dbin_sink *sink, struct error *err)
{
    int64_t first_nbins = 0;
    double first_width = 0;
    size_t off = 0;
    enum status rc = STATUS_OK;

    if (r->version != 1) {
        return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                        "HEATMAP records of version %" PRIu32 " are not known",
                        r->version);
    }
    while (off < r->len && rc == STATUS_OK) {
        size_t left = r->len - off, n, shown, i, wr, rd;
        double width;
        int64_t nbins;
        bool one_less = false;
        struct emit e;
        char name[48];

        if (left < HEATMAP_FIXED) {
            return dmod_fail(r, off, err, "expected %d bytes, %zu left", HEATMAP_FIXED,
                             left);
        }
        width = dmod_double(r, off + 16);
        nbins = (int64_t)dmod_word(r, off + 24);
        if (nbins < 0 || (uint64_t)nbins > (left - HEATMAP_FIXED) / 16) {
            return dmod_fail(r, off, err, "%" PRId64 " bins in %zu bytes", nbins,
                             left - HEATMAP_FIXED);
        }
        n = (size_t)nbins;
        wr = off + HEATMAP_FIXED;
        rd = wr + 8 * n;
        /* darshan-parser mends records one bin longer or shorter than the log's first
         * (clock skew in darshan 3.4.0 to 3.4.3): it drops the last bin, or adds one,
         * shifting the read bins as its in-place copy does: 0, r[0] .. r[n-2], 0. */
        if (first_nbins == 0)
            first_nbins = nbins;
        if (first_width == 0)
            first_width = width;
        shown = n;
        if (width == first_width && nbins == first_nbins + 1) {
            shown = n - 1;
        } else if (width == first_width && nbins == first_nbins - 1) {
            shown = n + 1;
            one_less = true;
        }
        emit_start(&e, r, sink, off);
        rc = emit_float(&e, "HEATMAP_F_BIN_WIDTH_SECONDS", width, err);
        for (i = 0; i < shown && rc == STATUS_OK; i++) {
            int64_t v;

            if (!one_less) {
                v = (int64_t)dmod_word(r, rd + 8 * i);
            } else if (i == 0 || i == n) {
                v = 0;
            } else {
                v = (int64_t)dmod_word(r, rd + 8 * (i - 1));
            }
            snprintf(name, sizeof(name), "HEATMAP_READ_BIN_%zu", i);
            rc = emit_int(&e, name, v, err);
        }
        for (i = 0; i < shown && rc == STATUS_OK; i++) {
            int64_t v = i < n ? (int64_t)dmod_word(r, wr + 8 * i) : 0;

            snprintf(name, sizeof(name), "HEATMAP_WRITE_BIN_%zu", i);
            rc = emit_int(&e, name, v, err);
        }
        off += HEATMAP_FIXED + 16 * n;
    }
    return rc;
}

/* ---- the entry --------------------------------------------------------------- */

enum status dbin_module_decode_more(const struct dbin_region *r,
                                    const struct dbin_sink *sink, struct error *err)
{
    size_t i;

    if (r->len > 0 && r->data == NULL)
        return error_set(err, STATUS_INVALID, "%s: region without data", r->path);
    switch (r->module) {
    case DBIN_LUSTRE: return decode_lustre(r, sink, err);
    case DBIN_HEATMAP: return decode_heatmap(r, sink, err);
    default: break;
    }
    for (i = 0; i < N_OF(fixed_specs); i++) {
        if (fixed_specs[i].module == r->module)
            return decode_fixed(r, &fixed_specs[i], sink, err);
    }
    return error_at(err, STATUS_NOT_FOUND, r->path, 0, "no decoder reads %s records",
                    dbin_module_name(r->module));
}
