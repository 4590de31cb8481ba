/* darshan_mod.c: records of the POSIX, MPI-IO and STDIO modules at every record
 * version of log formats 3.00 to 3.41, turned into the current counters in
 * darshan-parser's order (the integers, then the floating ones); the other modules go
 * to the decoders of darshan_mod_fixed.h. Counters an older version lacks come out as
 * darshan-parser prints them: -1 (POSIX_RENAMED_FROM: 0). */
#include "darshan_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define BASE_LEN ((size_t)16) /* record id, rank */
#define WORD     ((size_t)8)  /* every counter */

/* The current counters of each module (darshan's field lists, in their order). */
static const char *const posix_ints[] = {
    "POSIX_OPENS",
    "POSIX_FILENOS",
    "POSIX_DUPS",
    "POSIX_READS",
    "POSIX_WRITES",
    "POSIX_SEEKS",
    "POSIX_STATS",
    "POSIX_MMAPS",
    "POSIX_FSYNCS",
    "POSIX_FDSYNCS",
    "POSIX_RENAME_SOURCES",
    "POSIX_RENAME_TARGETS",
    "POSIX_RENAMED_FROM",
    "POSIX_MODE",
    "POSIX_BYTES_READ",
    "POSIX_BYTES_WRITTEN",
    "POSIX_MAX_BYTE_READ",
    "POSIX_MAX_BYTE_WRITTEN",
    "POSIX_CONSEC_READS",
    "POSIX_CONSEC_WRITES",
    "POSIX_SEQ_READS",
    "POSIX_SEQ_WRITES",
    "POSIX_RW_SWITCHES",
    "POSIX_MEM_NOT_ALIGNED",
    "POSIX_MEM_ALIGNMENT",
    "POSIX_FILE_NOT_ALIGNED",
    "POSIX_FILE_ALIGNMENT",
    "POSIX_MAX_READ_TIME_SIZE",
    "POSIX_MAX_WRITE_TIME_SIZE",
    "POSIX_SIZE_READ_0_100",
    "POSIX_SIZE_READ_100_1K",
    "POSIX_SIZE_READ_1K_10K",
    "POSIX_SIZE_READ_10K_100K",
    "POSIX_SIZE_READ_100K_1M",
    "POSIX_SIZE_READ_1M_4M",
    "POSIX_SIZE_READ_4M_10M",
    "POSIX_SIZE_READ_10M_100M",
    "POSIX_SIZE_READ_100M_1G",
    "POSIX_SIZE_READ_1G_PLUS",
    "POSIX_SIZE_WRITE_0_100",
    "POSIX_SIZE_WRITE_100_1K",
    "POSIX_SIZE_WRITE_1K_10K",
    "POSIX_SIZE_WRITE_10K_100K",
    "POSIX_SIZE_WRITE_100K_1M",
    "POSIX_SIZE_WRITE_1M_4M",
    "POSIX_SIZE_WRITE_4M_10M",
    "POSIX_SIZE_WRITE_10M_100M",
    "POSIX_SIZE_WRITE_100M_1G",
    "POSIX_SIZE_WRITE_1G_PLUS",
    "POSIX_STRIDE1_STRIDE",
    "POSIX_STRIDE2_STRIDE",
    "POSIX_STRIDE3_STRIDE",
    "POSIX_STRIDE4_STRIDE",
    "POSIX_STRIDE1_COUNT",
    "POSIX_STRIDE2_COUNT",
    "POSIX_STRIDE3_COUNT",
    "POSIX_STRIDE4_COUNT",
    "POSIX_ACCESS1_ACCESS",
    "POSIX_ACCESS2_ACCESS",
    "POSIX_ACCESS3_ACCESS",
    "POSIX_ACCESS4_ACCESS",
    "POSIX_ACCESS1_COUNT",
    "POSIX_ACCESS2_COUNT",
    "POSIX_ACCESS3_COUNT",
    "POSIX_ACCESS4_COUNT",
    "POSIX_FASTEST_RANK",
    "POSIX_FASTEST_RANK_BYTES",
    "POSIX_SLOWEST_RANK",
    "POSIX_SLOWEST_RANK_BYTES",
};

static const char *const posix_floats[] = {
    "POSIX_F_OPEN_START_TIMESTAMP",
    "POSIX_F_READ_START_TIMESTAMP",
    "POSIX_F_WRITE_START_TIMESTAMP",
    "POSIX_F_CLOSE_START_TIMESTAMP",
    "POSIX_F_OPEN_END_TIMESTAMP",
    "POSIX_F_READ_END_TIMESTAMP",
    "POSIX_F_WRITE_END_TIMESTAMP",
    "POSIX_F_CLOSE_END_TIMESTAMP",
    "POSIX_F_READ_TIME",
    "POSIX_F_WRITE_TIME",
    "POSIX_F_META_TIME",
    "POSIX_F_MAX_READ_TIME",
    "POSIX_F_MAX_WRITE_TIME",
    "POSIX_F_FASTEST_RANK_TIME",
    "POSIX_F_SLOWEST_RANK_TIME",
    "POSIX_F_VARIANCE_RANK_TIME",
    "POSIX_F_VARIANCE_RANK_BYTES",
};

static const char *const mpiio_ints[] = {
    "MPIIO_INDEP_OPENS",
    "MPIIO_COLL_OPENS",
    "MPIIO_INDEP_READS",
    "MPIIO_INDEP_WRITES",
    "MPIIO_COLL_READS",
    "MPIIO_COLL_WRITES",
    "MPIIO_SPLIT_READS",
    "MPIIO_SPLIT_WRITES",
    "MPIIO_NB_READS",
    "MPIIO_NB_WRITES",
    "MPIIO_SYNCS",
    "MPIIO_HINTS",
    "MPIIO_VIEWS",
    "MPIIO_MODE",
    "MPIIO_BYTES_READ",
    "MPIIO_BYTES_WRITTEN",
    "MPIIO_RW_SWITCHES",
    "MPIIO_MAX_READ_TIME_SIZE",
    "MPIIO_MAX_WRITE_TIME_SIZE",
    "MPIIO_SIZE_READ_AGG_0_100",
    "MPIIO_SIZE_READ_AGG_100_1K",
    "MPIIO_SIZE_READ_AGG_1K_10K",
    "MPIIO_SIZE_READ_AGG_10K_100K",
    "MPIIO_SIZE_READ_AGG_100K_1M",
    "MPIIO_SIZE_READ_AGG_1M_4M",
    "MPIIO_SIZE_READ_AGG_4M_10M",
    "MPIIO_SIZE_READ_AGG_10M_100M",
    "MPIIO_SIZE_READ_AGG_100M_1G",
    "MPIIO_SIZE_READ_AGG_1G_PLUS",
    "MPIIO_SIZE_WRITE_AGG_0_100",
    "MPIIO_SIZE_WRITE_AGG_100_1K",
    "MPIIO_SIZE_WRITE_AGG_1K_10K",
    "MPIIO_SIZE_WRITE_AGG_10K_100K",
    "MPIIO_SIZE_WRITE_AGG_100K_1M",
    "MPIIO_SIZE_WRITE_AGG_1M_4M",
    "MPIIO_SIZE_WRITE_AGG_4M_10M",
    "MPIIO_SIZE_WRITE_AGG_10M_100M",
    "MPIIO_SIZE_WRITE_AGG_100M_1G",
    "MPIIO_SIZE_WRITE_AGG_1G_PLUS",
    "MPIIO_ACCESS1_ACCESS",
    "MPIIO_ACCESS2_ACCESS",
    "MPIIO_ACCESS3_ACCESS",
    "MPIIO_ACCESS4_ACCESS",
    "MPIIO_ACCESS1_COUNT",
    "MPIIO_ACCESS2_COUNT",
    "MPIIO_ACCESS3_COUNT",
    "MPIIO_ACCESS4_COUNT",
    "MPIIO_FASTEST_RANK",
    "MPIIO_FASTEST_RANK_BYTES",
    "MPIIO_SLOWEST_RANK",
    "MPIIO_SLOWEST_RANK_BYTES",
};

static const char *const mpiio_floats[] = {
    "MPIIO_F_OPEN_START_TIMESTAMP",
    "MPIIO_F_READ_START_TIMESTAMP",
    "MPIIO_F_WRITE_START_TIMESTAMP",
    "MPIIO_F_CLOSE_START_TIMESTAMP",
    "MPIIO_F_OPEN_END_TIMESTAMP",
    "MPIIO_F_READ_END_TIMESTAMP",
    "MPIIO_F_WRITE_END_TIMESTAMP",
    "MPIIO_F_CLOSE_END_TIMESTAMP",
    "MPIIO_F_READ_TIME",
    "MPIIO_F_WRITE_TIME",
    "MPIIO_F_META_TIME",
    "MPIIO_F_MAX_READ_TIME",
    "MPIIO_F_MAX_WRITE_TIME",
    "MPIIO_F_FASTEST_RANK_TIME",
    "MPIIO_F_SLOWEST_RANK_TIME",
    "MPIIO_F_VARIANCE_RANK_TIME",
    "MPIIO_F_VARIANCE_RANK_BYTES",
};

static const char *const stdio_ints[] = {
    "STDIO_OPENS",         "STDIO_FDOPENS",
    "STDIO_READS",         "STDIO_WRITES",
    "STDIO_SEEKS",         "STDIO_FLUSHES",
    "STDIO_BYTES_WRITTEN", "STDIO_BYTES_READ",
    "STDIO_MAX_BYTE_READ", "STDIO_MAX_BYTE_WRITTEN",
    "STDIO_FASTEST_RANK",  "STDIO_FASTEST_RANK_BYTES",
    "STDIO_SLOWEST_RANK",  "STDIO_SLOWEST_RANK_BYTES",
};

static const char *const stdio_floats[] = {
    "STDIO_F_META_TIME",
    "STDIO_F_WRITE_TIME",
    "STDIO_F_READ_TIME",
    "STDIO_F_OPEN_START_TIMESTAMP",
    "STDIO_F_CLOSE_START_TIMESTAMP",
    "STDIO_F_WRITE_START_TIMESTAMP",
    "STDIO_F_READ_START_TIMESTAMP",
    "STDIO_F_OPEN_END_TIMESTAMP",
    "STDIO_F_CLOSE_END_TIMESTAMP",
    "STDIO_F_WRITE_END_TIMESTAMP",
    "STDIO_F_READ_END_TIMESTAMP",
    "STDIO_F_FASTEST_RANK_TIME",
    "STDIO_F_SLOWEST_RANK_TIME",
    "STDIO_F_VARIANCE_RANK_TIME",
    "STDIO_F_VARIANCE_RANK_BYTES",
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* POSIX integer and floating counters darshan-parser 3.5.0 leaves unswapped in a log
 * of the other byte order when the record version is below 4 (it skips these
 * indices of the floating array for what were meant as integer ones):
 * F_META_TIME, F_MAX_READ_TIME, F_MAX_WRITE_TIME. Reproduced so that dumps match. */
#define POSIX_F_META_TIME      10
#define POSIX_F_MAX_WRITE_TIME 12
#define POSIX_RENAMED_FROM     12
#define POSIX_V1_STDIO_FIRST   6 /* version 1 had 4 stdio counters here */
#define POSIX_V1_STDIO_COUNT   4

struct layout {
    const char *module; /* darshan-parser's module column */
    const char *const *ints, *const *floats;
    size_t n_int, n_float;       /* current counts */
    size_t file_int, file_float; /* counts in this record version */
};

/* Where integer k of a record of this version goes among the current ones (POSIX
 * below 4 is rebuilt by posix_upconvert first). */
static size_t int_to_current(enum dbin_module m, uint32_t v, size_t k)
{
    if (m == DBIN_STDIO && v == 1) /* lacks FDOPENS (1) */
        return k == 0 ? 0 : k + 1;
    return k;
}

/* A POSIX record of version 1 to 3 as a version 4 one, the way darshan-parser 3.5.0
 * converts it, so that the dump matches it. It widens the record in place in three
 * steps (v1 -> v2: drop 4 stdio counters after the 6th integer; v2 -> v3: make room
 * for F_CLOSE_START_TIMESTAMP and F_OPEN_END_TIMESTAMP, 3 and 4, set to -1; v3 -> v4:
 * make room for FILENOS, DUPS (1, 2) and RENAME_SOURCES, RENAME_TARGETS,
 * RENAMED_FROM (10 to 12), set to -1, -1, -1, -1, 0), but the last step moves only as
 * many bytes as the original record held, so the tail of the widened record is lost:
 * F_VARIANCE_RANK_TIME and F_VARIANCE_RANK_BYTES (and more below version 3) print as
 * 0 or as neighbouring values. The values set here are in our byte order. */
static void posix_upconvert(const unsigned char *rec, size_t rec_len, uint32_t v,
                            unsigned char out[1024])
{
    const int64_t minus1 = -1, zero = 0;
    const double fminus1 = -1;

    memset(out, 0, 1024);
    memcpy(out, rec, rec_len);
    if (v == 1) {
        memmove(out + BASE_LEN + 6 * WORD, out + BASE_LEN + 10 * WORD,
                rec_len - (BASE_LEN + 10 * WORD));
    }
    if (v <= 2) {
        unsigned char *f3 = out + BASE_LEN + 64 * WORD + 3 * WORD;

        memmove(f3 + 2 * WORD, f3, 12 * WORD);
        memcpy(f3, &fminus1, WORD);
        memcpy(f3 + WORD, &fminus1, WORD);
    }
    memmove(out + BASE_LEN + 3 * WORD, out + BASE_LEN + 1 * WORD,
            rec_len - (BASE_LEN + 1 * WORD));
    memcpy(out + BASE_LEN + 1 * WORD, &minus1, WORD);
    memcpy(out + BASE_LEN + 2 * WORD, &minus1, WORD);
    memmove(out + BASE_LEN + 13 * WORD, out + BASE_LEN + 10 * WORD,
            rec_len - (BASE_LEN + 10 * WORD));
    memcpy(out + BASE_LEN + 10 * WORD, &minus1, WORD);
    memcpy(out + BASE_LEN + 11 * WORD, &minus1, WORD);
    memcpy(out + BASE_LEN + 12 * WORD, &zero, WORD);
}

/* The same for floating counters: POSIX <= 2 and MPI-IO <= 2 lack
 * F_CLOSE_START_TIMESTAMP and F_OPEN_END_TIMESTAMP (3, 4). */
static size_t float_to_current(enum dbin_module m, uint32_t v, size_t k)
{
    if ((m == DBIN_POSIX || m == DBIN_MPIIO) && v <= 2 && k >= 3)
        return k + 2;
    return k;
}

static bool layout_of(enum dbin_module m, uint32_t v, struct layout *l)
{
    switch (m) {
    case DBIN_POSIX:
        if (v < 1 || v > 4)
            return false;
        *l = (struct layout){
            "POSIX", posix_ints, posix_floats, N_OF(posix_ints), N_OF(posix_floats),
            0,       0};
        l->file_int = v == 1 ? 68 : (v <= 3 ? 64 : 69);
        l->file_float = v <= 2 ? 15 : 17;
        return true;
    case DBIN_MPIIO:
        if (v < 1 || v > 3)
            return false;
        *l = (struct layout){"MPI-IO",         mpiio_ints,         mpiio_floats,
                             N_OF(mpiio_ints), N_OF(mpiio_floats), 51,
                             v <= 2 ? 15 : 17};
        return true;
    case DBIN_STDIO:
        if (v < 1 || v > 2)
            return false;
        *l = (struct layout){"STDIO",
                             stdio_ints,
                             stdio_floats,
                             N_OF(stdio_ints),
                             N_OF(stdio_floats),
                             v == 1 ? 13 : 14,
                             15};
        return true;
    default: return false;
    }
}

enum status dbin_module_decode(const struct dbin_region *r, const struct dbin_sink *sink,
                               struct error *err)
{
    struct layout l;
    int64_t iv[N_OF(posix_ints)];
    double fv[N_OF(posix_floats)];

    if (r->module != DBIN_POSIX && r->module != DBIN_MPIIO && r->module != DBIN_STDIO) {
        return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                        "%s: not a module of darshan_mod.c", dbin_module_name(r->module));
    }
    if (!layout_of(r->module, r->version, &l)) {
        return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                        "%s module: no decoder for record version %u",
                        dbin_module_name(r->module), (unsigned)r->version);
    }
    size_t rec_len = BASE_LEN + (l.file_int + l.file_float) * 8;
    for (size_t at = 0; at < r->len; at += rec_len) {
        const unsigned char *p = r->data + at;
        unsigned char wide[1024];
        bool old_posix = r->module == DBIN_POSIX && r->version <= 3;

        if (r->len - at < rec_len) {
            return error_at(err, STATUS_PARSE, r->path, 0,
                            "%s region: record at byte %zu cut short (%zu of %zu bytes)",
                            l.module, at, r->len - at, rec_len);
        }
        /* darshan-parser drops POSIX version 1 records with stdio counts, reading the
         * first of them without swapping */
        if (r->module == DBIN_POSIX && r->version == 1 &&
            dbin_i64(p + BASE_LEN + POSIX_V1_STDIO_FIRST * WORD, false) > 0)
            continue;
        for (size_t k = 0; k < l.n_int; k++)
            iv[k] = -1;
        for (size_t k = 0; k < l.n_float; k++)
            fv[k] = -1;
        if (old_posix) {
            /* the whole record in the current layout; what darshan-parser set
             * itself is in our byte order and not swapped, and it leaves F_META_TIME
             * to F_MAX_WRITE_TIME unswapped too (it skips those indices of the
             * floating array for the integer ones it set) */
            posix_upconvert(p, rec_len, r->version, wide);
            for (size_t k = 0; k < l.n_int; k++) {
                bool set = (k >= 1 && k <= 2) || (k >= 10 && k <= POSIX_RENAMED_FROM);
                iv[k] = dbin_i64(wide + BASE_LEN + k * 8, r->swap && !set);
            }
            for (size_t k = 0; k < l.n_float; k++) {
                bool set = r->version <= 2 && (k == 3 || k == 4);
                bool skipped = k >= POSIX_F_META_TIME && k <= POSIX_F_MAX_WRITE_TIME;
                fv[k] = dbin_f64(wide + BASE_LEN + (l.n_int + k) * 8,
                                 r->swap && !set && !skipped);
            }
        } else {
            for (size_t k = 0; k < l.file_int; k++) {
                iv[int_to_current(r->module, r->version, k)] =
                    dbin_i64(p + BASE_LEN + k * 8, r->swap);
            }
            for (size_t k = 0; k < l.file_float; k++) {
                fv[float_to_current(r->module, r->version, k)] =
                    dbin_f64(p + BASE_LEN + (l.file_int + k) * 8, r->swap);
            }
        }

        struct dbin_counter c = {0};
        c.module = l.module;
        c.record_id = dbin_u64(p, r->swap);
        c.rank = dbin_i64(p + 8, r->swap);
        dmod_names(r, c.record_id, &c.file_name, &c.mount_point, &c.fs_type);
        if (sink->counter == NULL)
            continue;
        c.kind = DBIN_INT;
        for (size_t k = 0; k < l.n_int; k++) {
            c.name = l.ints[k];
            c.i = iv[k];
            c.is_unsigned = r->module == DBIN_POSIX && k == POSIX_RENAMED_FROM;
            enum status rc = sink->counter(sink->ctx, &c, err);
            if (rc != STATUS_OK)
                return rc;
        }
        c.kind = DBIN_FLOAT;
        c.is_unsigned = false;
        c.i = 0;
        for (size_t k = 0; k < l.n_float; k++) {
            c.name = l.floats[k];
            c.f = fv[k];
            enum status rc = sink->counter(sink->ctx, &c, err);
            if (rc != STATUS_OK)
                return rc;
        }
    }
    return STATUS_OK;
}
