/* darshan_bin.h: the container of a binary Darshan log (darshan_bin.c), for the
 * sinks inside ingest/: darshan.c's builder and the text writers. The records and the
 * sink are darshan_format.h's. */
#ifndef IOCONTEND_INGEST_DARSHAN_BIN_H
#define IOCONTEND_INGEST_DARSHAN_BIN_H

#include "darshan_format.h"

/* True when data starts like a binary Darshan log of format 3.x (its magic number, in
 * either byte order, after a "3." version string). */
bool dbin_is_log(const unsigned char *data, size_t len);

/* Reads the binary log data[0..len) (path names it in errors), calling sink in
 * darshan-parser's order: job, mounts, then per region module_begin, its counters (and
 * DXT traces), module_end. show_incomplete decodes the modules the header marks
 * incomplete too. STATUS_PARSE for a log that cannot be read (bad magic, a map past
 * the end, a region that does not decompress, a record cut short); STATUS_NOMEM. */
enum status dbin_read(const char *path, const unsigned char *data, size_t len,
                      bool show_incomplete, const struct dbin_sink *sink,
                      struct error *err) MUST_CHECK;
/* dbin_read with the log's regions held to max_bytes inflated in all (0: the default
 * of [ingest] max_file_bytes, INGEST_DEFAULT_MAX_FILE_BYTES) and its name records to
 * max_names (0: INGEST_DEFAULT_MAX_JOB_RECORDS): a log that needs more is
 * STATUS_PARSE saying "needs more than max_bytes bytes inflated" or "expected at most
 * max_names name records". dbin_read is this with no bound for the whole log (the
 * dump tools and the fuzzers), each region still held to its own. */
enum status dbin_read_max(const char *path, const unsigned char *data, size_t len,
                          bool show_incomplete, size_t max_bytes, size_t max_names,
                          const struct dbin_sink *sink, struct error *err) MUST_CHECK;

#endif
