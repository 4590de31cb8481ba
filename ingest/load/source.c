/* source.c: an input's bytes as the parsers see them: a plain file as it is, a gzip,
 * bzip2 or xz file (recognised by its magic bytes, whatever its name) decompressed in
 * memory as it is read, never unpacked to disk. The size cap holds for the
 * decompressed bytes too: a stream that inflates past it stops there. */
#include "../inflate.h"
#include "../internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Decodes the stream of r (its first chunk at hand) into o. STATUS_OK, or
 * STATUS_PARSE with what was wrong (a cut or corrupt stream, trailing bytes),
 * STATUS_NOMEM. o->too_large stops it early. */
static enum status decode(enum source_codec kind, struct inflater *c, struct raw *r,
                          struct out *o, struct error *err)
{
    const char *name = source_codec_name(kind);
    const enum inflate_codec ic = kind == SOURCE_GZIP    ? INFLATE_GZIP
                                  : kind == SOURCE_BZIP2 ? INFLATE_BZIP2
                                                         : INFLATE_XZ;
    bool ended = false;

    if (!inflater_init(c, ic))
        return error_set(err, STATUS_NOMEM, "%s decoder", name);
    for (;;) {
        bool have = ended ? raw_more(r, 10) : raw_fill(r);
        if (r->error || r->too_large)
            break;
        if (!have && ended)
            break;
        if (have && ended) {
            /* Another member (gzip -c a >> b, pbzip2): decoded as the tools do. */
            if (source_codec_of(r->buf + r->at, r->len - r->at) != kind) {
                return error_set(err, STATUS_PARSE,
                                 "corrupt %s stream: other bytes after its end", name);
            }
            inflater_end(c);
            if (!inflater_init(c, ic))
                return error_set(err, STATUS_NOMEM, "%s decoder", name);
            ended = false;
        }
        if (!out_reserve(o, o->len + 1))
            return error_set(err, STATUS_NOMEM, "decompressing");
        const unsigned char *in = r->buf + r->at;
        size_t n = r->len - r->at, made = 0;
        enum inflate_step st =
            inflater_step(c, &in, &n, o->data + o->len, o->cap - o->len, &made, !have);
        r->at = r->len - n;
        o->len += made;
        if (o->len > o->max) {
            o->too_large = true;
            return STATUS_OK;
        }
        if (st == INFLATE_NOMEM)
            return error_set(err, STATUS_NOMEM, "decompressing");
        if (st == INFLATE_BAD && c->why != NULL) {
            return error_set(err, STATUS_PARSE, "%s%s stream: %s",
                             c->memlimit ? "" : "corrupt ", name, c->why);
        }
        if (st == INFLATE_END) {
            ended = true;
        } else if (!have && (made == 0 || st == INFLATE_BAD)) {
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
    struct inflater c = {0};
    enum source_codec kind;
    enum status rc = STATUS_OK;

    memset(out, 0, sizeof *out);
    if (r == NULL)
        return error_set(err, STATUS_NOMEM, "reading %s", path);
    memset(r, 0, sizeof *r);
    r->fp = fp;
    r->max = max;
    hash128_init(&r->h);
    (void)raw_fill(r);
    kind = r->error ? SOURCE_PLAIN : source_codec_of(r->buf, r->len);
    out->codec = kind;
    if (kind == SOURCE_PLAIN) {
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
        rc = decode(kind, &c, r, &o, err);
        inflater_end(&c);
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
