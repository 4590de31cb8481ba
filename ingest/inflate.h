/* inflate.h: the one decompressor of ingest/: gzip, zlib, bzip2 and xz streams behind
 * one face, a step at a time into the room its caller gives, so the caller's bound on
 * what comes out holds whatever the stream claims. Two callers, each with its own cap,
 * its own buffer and its own error texts: the file front end (load/source.c: whole
 * files, gzip, bzip2 or xz, bounded by [ingest] max_file_bytes) and the log regions
 * (darshan/darshan_bin.c: zlib and bzip2 regions, bounded by each region's limit and
 * the log's budget). Included from ingest/ only. */
#ifndef IOCONTEND_INGEST_INFLATE_H
#define IOCONTEND_INGEST_INFLATE_H

#include <bzlib.h>
#include <lzma.h>
#include <stdbool.h>
#include <stddef.h>
#define ZLIB_CONST
#include <zlib.h>

/* The most a step reads or writes of gzip, zlib and bzip2 (their counts are 32-bit). */
#define INFLATE_STEP_MAX ((size_t)65536)

enum inflate_codec { INFLATE_GZIP, INFLATE_ZLIB, INFLATE_BZIP2, INFLATE_XZ };

/* What a step found. */
enum inflate_step { INFLATE_MORE, INFLATE_END, INFLATE_BAD, INFLATE_NOMEM };

/* One stream being decoded. */
struct inflater {
    z_stream z;
    bz_stream bz;
    lzma_stream xz;
    enum inflate_codec kind;
    bool open;
    const char *why; /* INFLATE_BAD: what was wrong; NULL: cut short (xz, finishing) */
    bool memlimit;   /* INFLATE_BAD: why is the xz decoder's memory limit */
    int code;        /* the library's last return (zlib, bzip2) */
    const char *msg; /* zlib's own message of the last step, or NULL */
};

/* Opens c for a stream of kind; false when the library cannot (out of memory). */
bool inflater_init(struct inflater *c, enum inflate_codec kind);
void inflater_end(struct inflater *c);
/* Decodes from *in (n bytes; advanced past what was consumed) into out[0, room)
 * (*made: bytes written; gzip, zlib and bzip2 take at most INFLATE_STEP_MAX of each a
 * step); finishing tells the decoder no input follows (xz). */
enum inflate_step inflater_step(struct inflater *c, const unsigned char **in, size_t *n,
                                char *out, size_t room, size_t *made, bool finishing);

#endif
