/* darshan_mod_more.h: helpers shared by darshan_mod_more.c and darshan_mod_dxt.c only. */
#ifndef IOCONTEND_INGEST_DARSHAN_MOD_MORE_H
#define IOCONTEND_INGEST_DARSHAN_MOD_MORE_H

#include "darshan_bin.h"

#include <stddef.h>
#include <stdint.h>

/* The 8 bytes of r->data at off as a 64-bit word in our byte order. The caller has
 * checked that off + 8 <= r->len. */
uint64_t dmod_word(const struct dbin_region *r, size_t off);
/* The same word as a double (the logs store IEEE 754 doubles). */
double dmod_double(const struct dbin_region *r, size_t off);

/* darshan-parser's name of a module ("BG/Q", "DXT_POSIX"). */
const char *dmod_name(enum dbin_module module);

/* STATUS_PARSE naming r's path and module, the record's offset in the region and
 * what was wrong ("expected 904 bytes, 17 left"). */
enum status dmod_fail(const struct dbin_region *r, size_t off, struct error *err,
                      const char *fmt, ...) PRINTF_LIKE(4, 5);

/* DXT_POSIX and DXT_MPIIO (darshan_mod_dxt.c). STATUS_NOT_FOUND for a record
 * version the formats 3.00 to 3.41 never held. */
enum status dmod_decode_dxt(const struct dbin_region *r, const struct dbin_sink *sink,
                            struct error *err) MUST_CHECK;

#endif
