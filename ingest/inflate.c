/* inflate.c: gzip, zlib, bzip2 and xz streams a step at a time (inflate.h). */
#include "inflate.h"

#include <stdint.h>
#include <string.h>

/* What the xz decoder may take for one stream (its dictionary, mostly). */
#define XZ_MEMLIMIT_BYTES ((uint64_t)256 << 20)

static const char why_memlimit[] =
    "needs more than 256 MiB to decode (a dictionary past xz -9's): decompress it with "
    "xz -d";

bool inflater_init(struct inflater *c, enum inflate_codec kind)
{
    c->kind = kind;
    c->why = NULL;
    c->memlimit = false;
    c->code = 0;
    c->msg = NULL;
    switch (c->kind) {
    case INFLATE_GZIP:
        memset(&c->z, 0, sizeof c->z);
        c->open = inflateInit2(&c->z, 15 + 16) == Z_OK; /* gzip wrapper only */
        break;
    case INFLATE_ZLIB:
        memset(&c->z, 0, sizeof c->z);
        c->open = inflateInit(&c->z) == Z_OK;
        break;
    case INFLATE_BZIP2:
        memset(&c->bz, 0, sizeof c->bz);
        c->open = BZ2_bzDecompressInit(&c->bz, 0, 0) == BZ_OK;
        break;
    case INFLATE_XZ:
        c->xz = (lzma_stream)LZMA_STREAM_INIT;
        /* Concatenated streams as xz -d reads them. The memory limit: a header may ask
         * for a 1.5 GiB dictionary per file, in every reading thread; xz -9 needs
         * 65 MiB. */
        c->open =
            lzma_stream_decoder(&c->xz, XZ_MEMLIMIT_BYTES, LZMA_CONCATENATED) == LZMA_OK;
        break;
    }
    return c->open;
}

void inflater_end(struct inflater *c)
{
    if (!c->open)
        return;
    switch (c->kind) {
    case INFLATE_GZIP:
    case INFLATE_ZLIB: inflateEnd(&c->z); break;
    case INFLATE_BZIP2: BZ2_bzDecompressEnd(&c->bz); break;
    case INFLATE_XZ: lzma_end(&c->xz); break;
    }
    c->open = false;
}

/* Decodes from *in (n bytes; advanced past what was consumed) into out[0, room)
 * (*made: bytes written); finishing tells the decoder no input follows (xz). */
enum inflate_step inflater_step(struct inflater *c, const unsigned char **in, size_t *n,
                                char *out, size_t room, size_t *made, bool finishing)
{
    enum inflate_step st = INFLATE_MORE;

    switch (c->kind) {
    case INFLATE_GZIP:
    case INFLATE_ZLIB: {
        /* zlib counts in uInt: at most INFLATE_STEP_MAX bytes a step. */
        uInt in_n = (uInt)(*n < INFLATE_STEP_MAX ? *n : INFLATE_STEP_MAX),
             out_n = (uInt)(room < INFLATE_STEP_MAX ? room : INFLATE_STEP_MAX);
        c->z.next_in = *in;
        c->z.avail_in = in_n;
        c->z.next_out = (Bytef *)out;
        c->z.avail_out = out_n;
        int zr = inflate(&c->z, Z_NO_FLUSH);
        c->code = zr;
        c->msg = c->z.msg;
        *made = out_n - c->z.avail_out;
        *n -= in_n - c->z.avail_in;
        *in += in_n - c->z.avail_in;
        if (zr == Z_STREAM_END) {
            st = INFLATE_END;
        } else if (zr == Z_MEM_ERROR) {
            st = INFLATE_NOMEM;
        } else if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR) {
            c->why = c->z.msg != NULL ? c->z.msg : "invalid data";
            st = INFLATE_BAD;
        }
        break;
    }
    case INFLATE_BZIP2: {
        unsigned in_n = (unsigned)(*n < INFLATE_STEP_MAX ? *n : INFLATE_STEP_MAX);
        unsigned out_n = (unsigned)(room < INFLATE_STEP_MAX ? room : INFLATE_STEP_MAX);
        /* bzlib's next_in is not const; it only reads */
        char *in_chars = NULL;
        memcpy(&in_chars, in, sizeof in_chars);
        c->bz.next_in = in_chars;
        c->bz.avail_in = in_n;
        c->bz.next_out = out;
        c->bz.avail_out = out_n;
        int br = BZ2_bzDecompress(&c->bz);
        c->code = br;
        *made = out_n - c->bz.avail_out;
        *n -= in_n - c->bz.avail_in;
        *in += in_n - c->bz.avail_in;
        if (br == BZ_STREAM_END) {
            st = INFLATE_END;
        } else if (br == BZ_MEM_ERROR) {
            st = INFLATE_NOMEM;
        } else if (br != BZ_OK) {
            c->why = br == BZ_DATA_ERROR_MAGIC ? "not a bzip2 stream" : "invalid data";
            st = INFLATE_BAD;
        }
        break;
    }
    case INFLATE_XZ: {
        c->xz.next_in = *in;
        c->xz.avail_in = *n;
        c->xz.next_out = (uint8_t *)out;
        c->xz.avail_out = room;
        lzma_ret xr = lzma_code(&c->xz, finishing ? LZMA_FINISH : LZMA_RUN);
        *made = room - c->xz.avail_out;
        *in = c->xz.next_in;
        *n = c->xz.avail_in;
        if (xr == LZMA_STREAM_END) {
            st = INFLATE_END;
        } else if (xr == LZMA_MEM_ERROR) {
            st = INFLATE_NOMEM;
        } else if (xr == LZMA_MEMLIMIT_ERROR) {
            c->why = why_memlimit;
            c->memlimit = true;
            st = INFLATE_BAD;
        } else if (xr != LZMA_OK && xr != LZMA_BUF_ERROR) {
            c->why = xr == LZMA_FORMAT_ERROR    ? "not an xz stream"
                     : xr == LZMA_OPTIONS_ERROR ? "unsupported options"
                                                : "invalid data";
            st = INFLATE_BAD;
        } else if (xr == LZMA_BUF_ERROR && finishing) {
            st = INFLATE_BAD;
            c->why = NULL; /* cut short: told by the caller */
        }
        break;
    }
    }
    return st;
}
