/* source.c: an input's bytes as the parsers see them: a plain file as it is, a gzip,
 * bzip2 or xz file (recognised by its magic bytes, whatever its name) decompressed in
 * memory as it is read, never unpacked to disk. The size cap holds for the
 * decompressed bytes too: a stream that inflates past it stops there. */
#include "../internal.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZLIB_CONST
#include <zlib.h>

#define CHUNK ((size_t)65536)

/* The raw bytes read so far and their hash (the stand-in key of a broken stream). */
struct raw {
    FILE *fp;
    unsigned char buf[CHUNK];
    size_t len, at; /* buf[at, len) is not consumed yet */
    size_t total;   /* raw bytes read */
    size_t max;
    bool eof, error, too_large;
    struct hash128 h;
};

/* The decompressed bytes, bounded by max. */
struct out {
    char *data;
    size_t len, cap, max;
    bool too_large;
};

/* At least need bytes unconsumed in r->buf, reading more when it holds fewer (the
 * rest moved to the front); false when none is left (the end, a read error or past
 * max). Fewer than need only at the end. */
static bool raw_more(struct raw *r, size_t need)
{
    if (r->len - r->at >= need)
        return true;
    if (!r->eof && !r->error && !r->too_large) {
        memmove(r->buf, r->buf + r->at, r->len - r->at);
        r->len -= r->at;
        r->at = 0;
        size_t got = fread(r->buf + r->len, 1, CHUNK - r->len, r->fp);
        if (got < CHUNK - r->len) {
            r->eof = true;
            r->error = ferror(r->fp) != 0;
        }
        r->total += got;
        if (r->total > r->max) {
            r->too_large = true;
            r->len = r->at = 0;
            return false;
        }
        hash128_update(&r->h, r->buf + r->len, got);
        r->len += got;
    }
    return r->at < r->len;
}

static bool raw_fill(struct raw *r)
{
    return raw_more(r, 1);
}

/* Room for need bytes in o (and a NUL), need <= o->max + 1; false when out of
 * memory. */
static bool out_reserve(struct out *o, size_t need)
{
    size_t cap = o->cap == 0 ? 262144 : o->cap;

    while (cap < need)
        cap *= 2;
    if (cap > o->max + 1)
        cap = o->max + 1; /* one byte past the cap tells it was passed */
    if (cap <= o->cap)
        return true;
    char *p = realloc(o->data, cap + 1);
    if (p == NULL)
        return false;
    o->data = p;
    o->cap = cap;
    return true;
}

enum source_codec source_codec_of(const unsigned char *data, size_t n)
{
    static const unsigned char xz[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    static const unsigned char bz_block[6] = {0x31, 0x41, 0x59, 0x26, 0x53, 0x59};
    static const unsigned char bz_end[6] = {0x17, 0x72, 0x45, 0x38, 0x50, 0x90};
    const unsigned char *b = data;

    if (n >= 3 && b[0] == 0x1F && b[1] == 0x8B && b[2] == 8)
        return SOURCE_GZIP;
    if (n >= 6 && memcmp(b, xz, 6) == 0)
        return SOURCE_XZ;
    /* "BZh1".."BZh9" alone could begin a text: the block or end magic must follow. */
    if (n >= 10 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' &&
        b[3] <= '9' && (memcmp(b + 4, bz_block, 6) == 0 || memcmp(b + 4, bz_end, 6) == 0))
        return SOURCE_BZIP2;
    return SOURCE_PLAIN;
}

const char *source_codec_name(enum source_codec c)
{
    switch (c) {
    case SOURCE_GZIP: return "gzip";
    case SOURCE_BZIP2: return "bzip2";
    case SOURCE_XZ: return "xz";
    case SOURCE_PLAIN: break;
    }
    return "plain";
}

/* What a decoder step found. */
enum step { STEP_MORE, STEP_END, STEP_BAD, STEP_NOMEM };

/* What the xz decoder may take for one stream (its dictionary, mostly). */
#define XZ_MEMLIMIT_BYTES ((uint64_t)256 << 20)

static const char why_memlimit[] =
    "needs more than 256 MiB to decode (a dictionary past xz -9's): decompress it with "
    "xz -d";

/* One codec behind a common face: init, a step over in/out, end. */
struct codec {
    z_stream z;
    bz_stream bz;
    lzma_stream xz;
    enum source_codec kind;
    bool open;
    const char *why; /* STEP_BAD: what was wrong */
};

static bool codec_init(struct codec *c)
{
    c->why = NULL;
    switch (c->kind) {
    case SOURCE_GZIP:
        memset(&c->z, 0, sizeof c->z);
        c->open = inflateInit2(&c->z, 15 + 16) == Z_OK; /* gzip wrapper only */
        break;
    case SOURCE_BZIP2:
        memset(&c->bz, 0, sizeof c->bz);
        c->open = BZ2_bzDecompressInit(&c->bz, 0, 0) == BZ_OK;
        break;
    case SOURCE_XZ:
        c->xz = (lzma_stream)LZMA_STREAM_INIT;
        /* Concatenated streams as xz -d reads them. The memory limit: a header may ask
         * for a 1.5 GiB dictionary per file, in every reading thread; xz -9 needs
         * 65 MiB. */
        c->open =
            lzma_stream_decoder(&c->xz, XZ_MEMLIMIT_BYTES, LZMA_CONCATENATED) == LZMA_OK;
        break;
    case SOURCE_PLAIN: c->open = false; break;
    }
    return c->open;
}

static void codec_end(struct codec *c)
{
    if (!c->open)
        return;
    switch (c->kind) {
    case SOURCE_GZIP: inflateEnd(&c->z); break;
    case SOURCE_BZIP2: BZ2_bzDecompressEnd(&c->bz); break;
    case SOURCE_XZ: lzma_end(&c->xz); break;
    case SOURCE_PLAIN: break;
    }
    c->open = false;
}

/* Decodes from *in (n bytes; advanced past what was consumed) into out[0, room)
 * (*made: bytes written); finishing tells the decoder no input follows (xz). */
static enum step codec_step(struct codec *c, const unsigned char **in, size_t *n,
                            char *out, size_t room, size_t *made, bool finishing)
{
    enum step st = STEP_MORE;

    switch (c->kind) {
    case SOURCE_GZIP: {
        /* zlib counts in uInt: at most CHUNK bytes a step. */
        uInt in_n = (uInt)(*n < CHUNK ? *n : CHUNK),
             out_n = (uInt)(room < CHUNK ? room : CHUNK);
        c->z.next_in = *in;
        c->z.avail_in = in_n;
        c->z.next_out = (Bytef *)out;
        c->z.avail_out = out_n;
        int zr = inflate(&c->z, Z_NO_FLUSH);
        *made = out_n - c->z.avail_out;
        *n -= in_n - c->z.avail_in;
        *in += in_n - c->z.avail_in;
        if (zr == Z_STREAM_END) {
            st = STEP_END;
        } else if (zr == Z_MEM_ERROR) {
            st = STEP_NOMEM;
        } else if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR) {
            c->why = c->z.msg != NULL ? c->z.msg : "invalid data";
            st = STEP_BAD;
        }
        break;
    }
    case SOURCE_BZIP2: {
        unsigned in_n = (unsigned)(*n < CHUNK ? *n : CHUNK);
        unsigned out_n = (unsigned)(room < CHUNK ? room : CHUNK);
        /* bzlib's next_in is not const; it only reads */
        char *in_chars = NULL;
        memcpy(&in_chars, in, sizeof in_chars);
        c->bz.next_in = in_chars;
        c->bz.avail_in = in_n;
        c->bz.next_out = out;
        c->bz.avail_out = out_n;
        int br = BZ2_bzDecompress(&c->bz);
        *made = out_n - c->bz.avail_out;
        *n -= in_n - c->bz.avail_in;
        *in += in_n - c->bz.avail_in;
        if (br == BZ_STREAM_END) {
            st = STEP_END;
        } else if (br == BZ_MEM_ERROR) {
            st = STEP_NOMEM;
        } else if (br != BZ_OK) {
            c->why = br == BZ_DATA_ERROR_MAGIC ? "not a bzip2 stream" : "invalid data";
            st = STEP_BAD;
        }
        break;
    }
    case SOURCE_XZ: {
        c->xz.next_in = *in;
        c->xz.avail_in = *n;
        c->xz.next_out = (uint8_t *)out;
        c->xz.avail_out = room;
        lzma_ret xr = lzma_code(&c->xz, finishing ? LZMA_FINISH : LZMA_RUN);
        *made = room - c->xz.avail_out;
        *in = c->xz.next_in;
        *n = c->xz.avail_in;
        if (xr == LZMA_STREAM_END) {
            st = STEP_END;
        } else if (xr == LZMA_MEM_ERROR) {
            st = STEP_NOMEM;
        } else if (xr == LZMA_MEMLIMIT_ERROR) {
            c->why = why_memlimit;
            st = STEP_BAD;
        } else if (xr != LZMA_OK && xr != LZMA_BUF_ERROR) {
            c->why = xr == LZMA_FORMAT_ERROR    ? "not an xz stream"
                     : xr == LZMA_OPTIONS_ERROR ? "unsupported options"
                                                : "invalid data";
            st = STEP_BAD;
        } else if (xr == LZMA_BUF_ERROR && finishing) {
            st = STEP_BAD;
            c->why = NULL; /* cut short: told by the caller */
        }
        break;
    }
    case SOURCE_PLAIN: break;
    }
    return st;
}

/* Decodes the stream of r (its first chunk at hand) into o. STATUS_OK, or
 * STATUS_PARSE with what was wrong (a cut or corrupt stream, trailing bytes),
 * STATUS_NOMEM. o->too_large stops it early. */
static enum status decode(struct codec *c, struct raw *r, struct out *o,
                          struct error *err)
{
    const char *name = source_codec_name(c->kind);
    bool ended = false;

    if (!codec_init(c))
        return error_set(err, STATUS_NOMEM, "%s decoder", name);
    for (;;) {
        bool have = ended ? raw_more(r, 10) : raw_fill(r);
        if (r->error || r->too_large)
            break;
        if (!have && ended)
            break;
        if (have && ended) {
            /* Another member (gzip -c a >> b, pbzip2): decoded as the tools do. */
            if (source_codec_of(r->buf + r->at, r->len - r->at) != c->kind) {
                return error_set(err, STATUS_PARSE,
                                 "corrupt %s stream: other bytes after its end", name);
            }
            codec_end(c);
            if (!codec_init(c))
                return error_set(err, STATUS_NOMEM, "%s decoder", name);
            ended = false;
        }
        if (!out_reserve(o, o->len + 1))
            return error_set(err, STATUS_NOMEM, "decompressing");
        const unsigned char *in = r->buf + r->at;
        size_t n = r->len - r->at, made = 0;
        enum step st =
            codec_step(c, &in, &n, o->data + o->len, o->cap - o->len, &made, !have);
        r->at = r->len - n;
        o->len += made;
        if (o->len > o->max) {
            o->too_large = true;
            return STATUS_OK;
        }
        if (st == STEP_NOMEM)
            return error_set(err, STATUS_NOMEM, "decompressing");
        if (st == STEP_BAD && c->why != NULL) {
            return error_set(err, STATUS_PARSE, "%s%s stream: %s",
                             c->why == why_memlimit ? "" : "corrupt ", name, c->why);
        }
        if (st == STEP_END) {
            ended = true;
        } else if (!have && (made == 0 || st == STEP_BAD)) {
            break; /* no input left and nothing more came out: cut short */
        }
    }
    if (r->error || r->too_large)
        return STATUS_OK;
    if (!ended) {
        return error_set(err, STATUS_PARSE,
                         "corrupt %s stream: cut short (%zu bytes, no end marker)", name,
                         r->total);
    }
    return STATUS_OK;
}

enum status source_decode(FILE *fp, const char *path, size_t max, struct source *out,
                          struct error *err)
{
    struct raw *r = malloc(sizeof *r);
    struct out o = {.max = max};
    struct codec c = {0};
    enum status rc = STATUS_OK;

    memset(out, 0, sizeof *out);
    if (r == NULL)
        return error_set(err, STATUS_NOMEM, "reading %s", path);
    memset(r, 0, sizeof *r);
    r->fp = fp;
    r->max = max;
    hash128_init(&r->h);
    (void)raw_fill(r);
    c.kind = r->error ? SOURCE_PLAIN : source_codec_of(r->buf, r->len);
    out->codec = c.kind;
    if (c.kind == SOURCE_PLAIN) {
        /* As it is: chunks appended until the end or past the cap. */
        while (!r->error && !r->too_large && r->at < r->len) {
            size_t n = r->len - r->at;
            if (o.len + n > max) {
                o.too_large = true;
                break;
            }
            if (!out_reserve(&o, o.len + n)) {
                rc = error_set(err, STATUS_NOMEM, "reading %s", path);
                break;
            }
            memcpy(o.data + o.len, r->buf + r->at, n);
            o.len += n;
            r->at = r->len;
            (void)raw_fill(r);
        }
    } else {
        rc = decode(&c, r, &o, err);
        codec_end(&c);
        if (rc == STATUS_PARSE) {
            /* The rest of the raw bytes complete the stand-in key: a broken file
             * quarantined once is known bad the next time. */
            r->at = r->len;
            while (raw_fill(r))
                r->at = r->len;
            out->corrupt = !r->too_large && !r->error;
        }
    }
    if (r->error) {
        rc = error_at(err, STATUS_NOT_FOUND, path, 0, "read error");
    } else if (r->too_large || o.too_large) {
        out->too_large = true;
        rc = STATUS_OK;
    } else if (rc == STATUS_OK) {
        if (o.data == NULL)
            o.data = malloc(1);
        if (o.data == NULL) {
            rc = error_set(err, STATUS_NOMEM, "reading %s", path);
        } else {
            o.data[o.len] = '\0';
            out->data = o.data;
            out->len = o.len;
            o.data = NULL;
        }
    } else if (out->corrupt) {
        hash128_hex(&r->h, out->raw_hash);
    }
    free(o.data);
    free(r);
    return rc;
}

enum status source_read(const char *path, size_t max, struct source *out,
                        struct error *err)
{
    /* Opened without blocking and checked to be a regular file before any read: a
     * FIFO (or a device) put where a log was listed would otherwise hold the run
     * for ever. Reads then block again, as a regular file's do. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    FILE *fp;
    enum status rc;

    memset(out, 0, sizeof *out);
    if (fd < 0) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open: %s",
                        strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return error_at(err, STATUS_NOT_FOUND, path, 0, "not a regular file: not read");
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        (fp = fdopen(fd, "rb")) == NULL) {
        rc = error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open: %s", strerror(errno));
        close(fd);
        return rc;
    }
    rc = source_decode(fp, path, max, out, err);
    fclose(fp);
    return rc;
}

/* The refusal of an input over the size cap, as stored or (compressed) once
 * decompressed. */
void source_too_large(const struct stat *st, bool have_st, enum source_codec codec,
                      size_t max, struct error *err)
{
    if (codec != SOURCE_PLAIN && (!have_st || (uintmax_t)st->st_size <= max)) {
        error_set(err, STATUS_PARSE,
                  "too large: more than %zu bytes once decompressed (%s; [ingest] "
                  "max_file_bytes)",
                  max, source_codec_name(codec));
    } else {
        error_set(err, STATUS_PARSE,
                  "too large: %lld bytes, more than %zu ([ingest] max_file_bytes)",
                  have_st ? (long long)st->st_size : (long long)max + 1, max);
    }
}

void source_free(struct source *s)
{
    free(s->data);
    memset(s, 0, sizeof *s);
}

void source_plain_name(const char *path, char *out, size_t size)
{
    static const char *const suffixes[] = {".gz", ".bz2", ".xz"};
    size_t n = strlen(path);

    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(path + n - k, suffixes[i]) == 0) {
            n -= k;
            break;
        }
    }
    snprintf(out, size, "%.*s", (int)n, path);
}
