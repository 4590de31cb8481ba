/* darshan_format.h: the binary Darshan log's records as the reader's parts share them
 * inside ingest/ only: modules, the decoded job, counters and DXT traces, the sink
 * that receives them, one module's region as its decoder sees it, and the decoders.
 *
 * darshan_bin.c reads the container (header, region map, compressed regions, job
 * record, mount table, name records) and hands each module's region, decompressed, to
 * its decoder (darshan_mod.c: POSIX, MPI-IO, STDIO; darshan_mod_fixed.c and the
 * files of darshan_mod_fixed.h: the others;
 * darshan_mod_dxt.c: DXT). Decoders turn records of any record version into the
 * counters of the current version, named and ordered as darshan-parser prints them,
 * and pass them to a sink. Two sinks exist: the darshan_log builder of darshan.c
 * (ingest: the same records the text parser makes) and the darshan-parser text writer
 * of darshan_dump.c (`iocontend darshan dump`, the tests' oracle).
 *
 * Nothing here trusts the file: every length, count and offset is checked against
 * the bytes that are there before it is used, and errors name the file, the region
 * and what was expected. */
#ifndef IOCONTEND_INGEST_DARSHAN_FORMAT_H
#define IOCONTEND_INGEST_DARSHAN_FORMAT_H

#include "../ingest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Modules by their current (log format 3.41) ids; darshan_bin.c maps the ids of older
 * formats onto these. */
enum dbin_module {
    DBIN_NULL = 0,
    DBIN_POSIX,
    DBIN_MPIIO,
    DBIN_H5F,
    DBIN_H5D,
    DBIN_PNETCDF_FILE,
    DBIN_PNETCDF_VAR,
    DBIN_BGQ,
    DBIN_LUSTRE,
    DBIN_STDIO,
    DBIN_DXT_POSIX,
    DBIN_DXT_MPIIO,
    DBIN_MDHIM,
    DBIN_APXC,
    DBIN_APMPI,
    DBIN_HEATMAP,
    DBIN_DFS,
    DBIN_DAOS,
    DBIN_MODULE_COUNT
};

enum dbin_compression { DBIN_ZLIB = 0, DBIN_BZIP2 = 1, DBIN_NONE = 2 };

/* One region as the header's map gives it (for darshan-parser's "log file regions"). */
struct dbin_region_info {
    enum dbin_module module; /* DBIN_MODULE_COUNT for an id we do not know */
    int raw_id;              /* the id in current (3.41) numbering, as darshan-parser
                                prints an unknown one */
    uint64_t len;            /* bytes in the file (compressed) */
    uint32_t version;        /* the module's record version */
};

/* The job record and the header, decoded. Strings borrowed for the call. */
struct dbin_job {
    char version[9]; /* "3.41" */
    double log_version;
    enum dbin_compression compression;
    uint64_t partial_flag; /* bit (1 << current module id) per module marked incomplete */
    int64_t uid;
    int64_t start_time_s, start_time_ns; /* ns: 0 before format 3.41 */
    int64_t end_time_s, end_time_ns;
    int64_t nprocs;
    int64_t jobid;
    double run_time_s;    /* as darshan-parser computes it for this format */
    const char *exe;      /* the command line as logged */
    const char *metadata; /* the "key=value\n" lines as logged */
    size_t header_len;    /* bytes of the header in the file (360 before 3.41, 1328);
                             darshan-parser always prints 1328 */
    uint64_t job_len;     /* bytes of the job region in the file (compressed) */
    uint64_t names_len;   /* bytes of the name-record region in the file */
    /* Modules present (a region, or marked incomplete), in order of their current id
     * as darshan-parser lists them. */
    const struct dbin_region_info *regions;
    size_t n_regions;
};

enum dbin_kind { DBIN_INT, DBIN_FLOAT, DBIN_TEXT };

/* One counter of one record, in darshan-parser's order. The container fills
 * file_name, mount_point and fs_type from the record id, as darshan-parser does. */
struct dbin_counter {
    const char *module; /* darshan-parser's module column: "POSIX", "MPI-IO", "LUSTRE" */
    int64_t rank;       /* -1: shared */
    uint64_t record_id;
    const char *name; /* "POSIX_OPENS"; static storage for POSIX, MPI-IO, STDIO: the
                       * builder caches its lookups by this address */
    enum dbin_kind kind;
    int64_t i;
    double f;
    bool is_unsigned; /* DBIN_INT printed as uint64 (POSIX_RENAMED_FROM) */
    const char *s;
    const char *file_name, *mount_point, *fs_type;
};

/* One DXT operation. */
struct dbin_dxt_op {
    bool is_write;
    int64_t offset, length;
    double start_s, end_s; /* relative to the job start */
    uint64_t pthread_id;   /* 0 where the format has none */
    int64_t ost;           /* -1 where unknown */
};

/* The DXT trace of one file on one rank. Borrowed for the call. */
struct dbin_dxt_file {
    enum dbin_module module; /* DBIN_DXT_POSIX or DBIN_DXT_MPIIO */
    uint64_t record_id;
    int64_t rank;
    const char *hostname;
    int64_t write_count, read_count;
    const struct dbin_dxt_op *ops; /* writes first, then reads, as stored */
    size_t n_ops;
    const char *file_name, *mount_point, *fs_type;
};

/* What a reader calls, in file order. Any callback may be NULL (ignored). A callback
 * that fails stops the read with its status. */
struct dbin_sink {
    void *ctx;
    enum status (*job)(void *ctx, const struct dbin_job *job, struct error *err);
    enum status (*mount)(void *ctx, const char *mount_point, const char *fs_type,
                         struct error *err);
    /* Each region in file order: incomplete when the header marks the module partial;
     * decoded is false when no decoder reads it (APMPI, APXC, MDHIM, an unknown id)
     * or it is incomplete and not shown; then no counter of it follows. */
    enum status (*module_begin)(void *ctx, enum dbin_module module, const char *name,
                                uint32_t version, bool incomplete, bool decoded,
                                struct error *err);
    enum status (*counter)(void *ctx, const struct dbin_counter *c, struct error *err);
    enum status (*dxt)(void *ctx, const struct dbin_dxt_file *f, struct error *err);
    enum status (*module_end)(void *ctx, enum dbin_module module, struct error *err);
};

/* Fields of a record in the log's byte order (swap: not ours); p needs no alignment. */
static inline uint64_t dbin_u64(const unsigned char *p, bool swap)
{
    uint64_t v = 0;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap64(v) : v;
}
static inline uint32_t dbin_u32(const unsigned char *p, bool swap)
{
    uint32_t v = 0;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap32(v) : v;
}
static inline int64_t dbin_i64(const unsigned char *p, bool swap)
{
    return (int64_t)dbin_u64(p, swap);
}
static inline double dbin_f64(const unsigned char *p, bool swap)
{
    uint64_t u = dbin_u64(p, swap);
    double d = 0;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* darshan-parser's name of a module ("MPI-IO", "BG/Q"); "<UNKNOWN>" past the known. */
const char *dbin_module_name(enum dbin_module module);

/* Names of records: filled by darshan_bin.c, used by the decoders through the
 * region's names_lookup. Opaque to the decoders. */
struct dbin_names;

/* The file name, mount point and fs type darshan-parser prints for a record id (all
 * borrowed; never NULL): darshan_bin.c's, handed to the decoders in the region. */
typedef void dbin_lookup_fn(const struct dbin_names *names, uint64_t record_id,
                            const char **file_name, const char **mount_point,
                            const char **fs_type);

/* One module's region, decompressed, for its decoder. */
struct dbin_region {
    const char *path; /* the log, for errors */
    enum dbin_module module;
    uint32_t version;
    const unsigned char *data;
    size_t len;
    bool swap; /* the log's byte order is not ours */
    double log_version;
    int64_t nprocs;
    const struct dbin_names *names;
    dbin_lookup_fn *names_lookup;
};

/* The decoders, each for its modules: decode every record of r, calling sink->counter
 * (and sink->dxt for DXT) in order. STATUS_NOT_FOUND when no decoder reads r->module
 * at r->version (the caller counts and skips it; err says which); STATUS_PARSE for
 * bytes that do not hold whole records, naming the path, the module and the record's
 * offset in the region. darshan_bin.c picks the decoder by module. */
/* darshan_mod.c: POSIX, MPI-IO, STDIO. */
enum status dbin_module_decode(const struct dbin_region *r, const struct dbin_sink *sink,
                               struct error *err) MUST_CHECK;
/* darshan_mod_dxt.c: DXT_POSIX and DXT_MPIIO. */
enum status dmod_decode_dxt(const struct dbin_region *r, const struct dbin_sink *sink,
                            struct error *err) MUST_CHECK;
/* The others (darshan_mod_fixed.h): one decoder a module, one file a module or a pair
 * of them (darshan_mod_hdf5.c, darshan_mod_pnetcdf.c, darshan_mod_bgq.c,
 * darshan_mod_daos.c, darshan_mod_lustre.c, darshan_mod_heatmap.c). */
/* The decoder of r's module (darshan_bin.c: the one list of them): STATUS_INVALID for
 * a region without data, STATUS_NOT_FOUND for a module no decoder reads. */
enum status dbin_region_decode(const struct dbin_region *r, const struct dbin_sink *sink,
                               struct error *err) MUST_CHECK;

/* ---- helpers of the decoders (darshan_format.c) ----------------------------------- */

/* The 8 bytes of r->data at off as a 64-bit word in our byte order. The caller has
 * checked that off + 8 <= r->len. */
uint64_t dmod_word(const struct dbin_region *r, size_t off);
/* The same word as a double (the logs store IEEE 754 doubles). */
double dmod_double(const struct dbin_region *r, size_t off);
/* The names darshan-parser prints for record_id: r's names_lookup, or "(null)",
 * "UNKNOWN", "UNKNOWN" when r has none (a region built by hand). */
void dmod_names(const struct dbin_region *r, uint64_t record_id, const char **file_name,
                const char **mount_point, const char **fs_type);
/* STATUS_PARSE naming r's path and module, the record's offset in the region and
 * what was wrong ("expected 904 bytes, 17 left"). */
enum status dmod_fail(const struct dbin_region *r, size_t off, struct error *err,
                      const char *fmt, ...) PRINTF_LIKE(4, 5);

#endif
