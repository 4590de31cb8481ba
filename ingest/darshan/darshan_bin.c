/* darshan_bin.c: the container of a binary Darshan log (formats 3.00 to 3.41): the
 * header and its region map, the compressed regions, the job record with the exe
 * line and the mount table, the name records; each module's region goes to its
 * decoder. Written from the format's description (darshan-log-format.h and the
 * behaviour of darshan-parser 3.5.0), not from darshan's code. */
#include "darshan_bin.h"
#include "darshan_mod_fixed.h"

#include "../inflate.h"
#include "../ingest.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_NR       6567223
#define HEADER_LEN_341 1328 /* 64 module slots */
#define HEADER_LEN_OLD 360  /* 16 module slots, a 32-bit partial flag */
#define SLOTS_341      64
#define SLOTS_OLD      16
#define JOB_RECORD_LEN 4096 /* darshan reads no more of the job region */
#define JOB_STRUCT_341 1080 /* uid, start s/ns, end s/ns, nprocs, jobid, metadata */
#define JOB_STRUCT_OLD 1064 /* the same without the nanoseconds */
#define METADATA_LEN   1024
/* A region that inflates past either bound is refused: no real log comes near. The
 * regions of one log together are also held to the log's byte budget (dbin_read_max). */
#define INFLATE_MAX_BYTES ((size_t)1 << 30)
#define INFLATE_MAX_RATIO 4096
/* The smallest name record: an 8-byte id and a NUL (12 bytes: id, length in 3.00). */
#define NAME_RECORD_MIN 9

struct name_entry {
    uint64_t id;
    size_t seq;       /* order in the file: the first non-empty name wins */
    const char *name; /* into names->buf */
    const char *mount_point, *fs_type;
};

struct mount {
    char *path, *type; /* owned */
};

struct dbin_names {
    struct name_entry *v; /* sorted by id, one per id */
    size_t n;
    const struct mount *mounts; /* longest path first, as darshan-parser matches */
    size_t n_mounts;
};

static void names_lookup(const struct dbin_names *names, uint64_t record_id,
                         const char **file_name, const char **mount_point,
                         const char **fs_type)
{
    size_t lo = 0, hi = names != NULL ? names->n : 0;

    /* darshan-parser prints a missing name through printf's "%s" of NULL. */
    *file_name = "(null)";
    *mount_point = "UNKNOWN";
    *fs_type = "UNKNOWN";
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct name_entry *e = &names->v[mid];

        if (e->id == record_id) {
            *file_name = e->name;
            *mount_point = e->mount_point;
            *fs_type = e->fs_type;
            return;
        }
        if (e->id < record_id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
}

/* ---- decompression ------------------------------------------------------------- */

struct outbuf {
    unsigned char *p;
    size_t len, cap;
    const char *note; /* why the limit is what it is; NULL: a bomb's bounds */
};

static enum status out_grow(struct outbuf *o, size_t limit, const char *path,
                            const char *what, struct error *err)
{
    size_t cap = o->cap == 0 ? 4096 : o->cap * 2;
    unsigned char *p;

    if (cap > limit)
        cap = limit;
    if (cap <= o->cap) {
        return error_at(err, STATUS_PARSE, path, 0, "%s: inflates past %zu bytes (%s)",
                        what, limit,
                        o->note != NULL ? o->note : "refused as a decompression bomb");
    }
    p = realloc(o->p, cap);
    if (p == NULL)
        return error_set(err, STATUS_NOMEM, "%s: %s: %zu bytes", path, what, cap);
    o->p = p;
    o->cap = cap;
    return STATUS_OK;
}

/* The region's streams one after another, as darshan writes them (zlib: one per
 * flush), into o, which grows to limit (with truncate, the bytes stop there; without,
 * a region that needs more is refused). Steps of at most INFLATE_STEP_MAX out, each
 * followed by the next while the last filled its step (one call with the whole room
 * would have gone on). */
static enum status inflate_region(enum inflate_codec kind, const unsigned char *in,
                                  size_t in_len, size_t limit, bool truncate,
                                  struct outbuf *o, const char *path, const char *what,
                                  struct error *err)
{
    const char *name = kind == INFLATE_ZLIB ? "zlib" : "bzip2";
    struct inflater c;
    enum status rc = STATUS_OK;
    bool ended = false, step_full = false;

    if (kind == INFLATE_BZIP2 && in_len > UINT_MAX) {
        return error_at(err, STATUS_PARSE, path, 0, "%s: region of %zu bytes too large",
                        what, in_len);
    }
    if (!inflater_init(&c, kind))
        return error_set(err, STATUS_NOMEM, "%s: %s: %s init", path, what, name);
    while (in_len > 0 || step_full) {
        if (o->len == o->cap) {
            if (truncate && o->len >= limit)
                break;
            rc = out_grow(o, limit, path, what, err);
            if (rc != STATUS_OK)
                goto out;
        }
        size_t room = o->cap - o->len, made = 0;
        const bool cut = room > INFLATE_STEP_MAX;
        if (cut)
            room = INFLATE_STEP_MAX;
        enum inflate_step st =
            inflater_step(&c, &in, &in_len, (char *)(o->p + o->len), room, &made, false);
        o->len += made;
        step_full = cut && made == room;
        ended = st == INFLATE_END;
        if (ended) {
            step_full = false;
            if (in_len == 0)
                break;
            inflater_end(&c);
            if (!inflater_init(&c, kind)) {
                rc = kind == INFLATE_ZLIB
                         ? error_at(err, STATUS_PARSE, path, 0, "%s: zlib reset", what)
                         : error_set(err, STATUS_NOMEM, "%s: %s: bzip2 init", path, what);
                goto out;
            }
            continue;
        }
        if (st != INFLATE_MORE) {
            rc = kind == INFLATE_ZLIB
                     ? error_at(err, STATUS_PARSE, path, 0,
                                "%s: expected zlib data, got an error (%s)", what,
                                c.msg != NULL ? c.msg : "corrupt")
                     : error_at(err, STATUS_PARSE, path, 0,
                                "%s: expected bzip2 data, got error %d", what, c.code);
            goto out;
        }
        if (in_len == 0 && made < room)
            break; /* input ends inside a stream */
    }
    if (!ended && !(truncate && o->len >= limit)) {
        rc = error_at(err, STATUS_PARSE, path, 0,
                      "%s: compressed data end inside a %s stream", what, name);
    }
out:
    inflater_end(&c);
    return rc;
}

/* The inflated bytes a log may still take: every region's bytes are charged to it, so
 * their sum stays within [ingest] max_file_bytes whatever each region's own bounds
 * allow (a 0.9 MB log once inflated to 6.3 GB through its record table alone). */
struct budget {
    size_t left, max;
    char note[112]; /* said when a region reaches left */
};

/* The bytes of one region, decompressed into *out (malloc'd, NUL-terminated for the
 * string regions; caller frees) and charged to *b. limit_len: with truncate, stop there
 * (darshan reads only the first 4096 bytes of the job region); without, refuse more. */
static enum status region_bytes(enum dbin_compression comp, const unsigned char *in,
                                size_t in_len, size_t limit_len, bool truncate,
                                struct budget *b, unsigned char **out, size_t *out_len,
                                const char *path, const char *what, struct error *err)
{
    struct outbuf o = {NULL, 0, 0, NULL};
    enum status rc;

    *out = NULL;
    *out_len = 0;
    if (!truncate) {
        size_t ratio_cap = in_len > INFLATE_MAX_BYTES / INFLATE_MAX_RATIO
                               ? INFLATE_MAX_BYTES
                               : in_len * INFLATE_MAX_RATIO;
        limit_len = ratio_cap < INFLATE_MAX_BYTES ? ratio_cap : INFLATE_MAX_BYTES;
        if (limit_len < 4096)
            limit_len = 4096;
    }
    if (limit_len > b->left) {
        limit_len = b->left;
        truncate = false; /* past the budget nothing is cut: the log is refused */
        snprintf(b->note, sizeof b->note,
                 "the log needs more than %zu bytes inflated, [ingest] max_file_bytes",
                 b->max);
        o.note = b->note;
    }
    switch (comp) {
    case DBIN_NONE:
        if (in_len > limit_len && !truncate) {
            return error_at(err, STATUS_PARSE, path, 0, "%s: %zu bytes is too large%s%s",
                            what, in_len, o.note != NULL ? ": " : "",
                            o.note != NULL ? o.note : "");
        }
        o.len = in_len > limit_len ? limit_len : in_len;
        o.p = malloc(o.len + 1);
        if (o.p == NULL)
            return error_set(err, STATUS_NOMEM, "%s: %s: %zu bytes", path, what, o.len);
        if (o.len > 0)
            memcpy(o.p, in, o.len);
        o.p[o.len] = '\0';
        b->left -= o.len;
        *out = o.p;
        *out_len = o.len;
        return STATUS_OK;
    case DBIN_ZLIB:
        rc = inflate_region(INFLATE_ZLIB, in, in_len, limit_len, truncate, &o, path, what,
                            err);
        break;
    case DBIN_BZIP2:
        rc = inflate_region(INFLATE_BZIP2, in, in_len, limit_len, truncate, &o, path,
                            what, err);
        break;
    default: return error_at(err, STATUS_PARSE, path, 0, "%s: unknown compression", what);
    }
    if (rc == STATUS_OK && (o.p == NULL || o.len == o.cap))
        rc = out_grow(&o, o.cap + 1, path, what, err);
    if (rc != STATUS_OK) {
        free(o.p);
        return rc;
    }
    if (o.p == NULL)
        return error_set(err, STATUS_INTERNAL, "%s: %s: no buffer", path, what);
    o.p[o.len] = '\0';
    b->left -= o.len <= b->left ? o.len : b->left;
    *out = o.p;
    *out_len = o.len;
    return STATUS_OK;
}

/* ---- the header ------------------------------------------------------------------ */

struct map {
    uint64_t off, len;
};

struct header {
    int minor; /* 0, 10, 20, 21, 41 */
    bool swap;
    enum dbin_compression comp;
    uint64_t partial; /* by current id */
    struct map names;
    struct map job;
    struct map mods[SLOTS_341]; /* by current id */
    uint32_t ver[SLOTS_341];
    size_t len;
};

/* Current id of a slot of format 3.minor: H5D (4) came in 3.20, PNETCDF_VAR (6) in
 * 3.41, each shifting the ids above it by one. */
static int current_id(int minor, int slot)
{
    int id = slot;

    if (minor < 20 && id >= DBIN_H5D)
        id++;
    if (minor < 41 && id >= DBIN_PNETCDF_VAR)
        id++;
    return id;
}

static bool version_minor(const unsigned char *data, size_t len, int *minor)
{
    char v[9];

    if (len < 8)
        return false;
    memcpy(v, data, 8);
    v[8] = '\0';
    if (strcmp(v, "3.00") == 0) {
        *minor = 0;
    } else if (strcmp(v, "3.10") == 0) {
        *minor = 10;
    } else if (strcmp(v, "3.20") == 0) {
        *minor = 20;
    } else if (strcmp(v, "3.21") == 0) {
        *minor = 21;
    } else if (strcmp(v, "3.41") == 0) {
        *minor = 41;
    } else {
        return false;
    }
    return true;
}

bool dbin_is_log(const unsigned char *data, size_t len)
{
    if (data == NULL || len < 16 || data[0] != '3' || data[1] != '.')
        return false;
    return dbin_u64(data + 8, false) == MAGIC_NR || dbin_u64(data + 8, true) == MAGIC_NR;
}

static bool map_ok(struct map m, size_t file_len, size_t header_len)
{
    return m.len == 0 ||
           (m.off >= header_len && m.off <= file_len && m.len <= file_len - m.off);
}

static enum status header_read(const char *path, const unsigned char *d, size_t len,
                               struct header *h, struct error *err)
{
    size_t slots, names_at, mods_at, vers_at;

    memset(h, 0, sizeof *h);
    if (!version_minor(d, len, &h->minor)) {
        char v[9] = {0};

        for (size_t i = 0; i < 8 && i < len; i++)
            v[i] = isprint(d[i]) ? (char)d[i] : '?';
        return error_at(err, STATUS_PARSE, path, 0,
                        "header: expected a log format 3.00 to 3.41, got \"%s\"", v);
    }
    h->len = h->minor >= 41 ? HEADER_LEN_341 : HEADER_LEN_OLD;
    if (len < h->len) {
        return error_at(err, STATUS_PARSE, path, 0, "header: expected %zu bytes, got %zu",
                        h->len, len);
    }
    if (dbin_u64(d + 8, false) == MAGIC_NR) {
        h->swap = false;
    } else if (dbin_u64(d + 8, true) == MAGIC_NR) {
        h->swap = true;
    } else {
        return error_at(err, STATUS_PARSE, path, 0,
                        "header: expected the magic number %d, got %" PRIu64, MAGIC_NR,
                        dbin_u64(d + 8, false));
    }
    if (d[16] > DBIN_NONE) {
        return error_at(err, STATUS_PARSE, path, 0,
                        "header: expected compression 0 (zlib), 1 (bzip2) or 2 (none), "
                        "got %u",
                        d[16]);
    }
    h->comp = (enum dbin_compression)d[16];
    uint64_t partial_raw;
    if (h->minor >= 41) {
        partial_raw = dbin_u64(d + 24, h->swap);
        names_at = 32;
        slots = SLOTS_341;
    } else {
        /* darshan never swaps the partial flag (it holds few bits in practice);
         * read it in the log's order all the same */
        partial_raw = dbin_u32(d + 20, h->swap);
        names_at = 24;
        slots = SLOTS_OLD;
    }
    mods_at = names_at + 16;
    vers_at = mods_at + slots * 16;
    h->names.off = dbin_u64(d + names_at, h->swap);
    h->names.len = dbin_u64(d + names_at + 8, h->swap);
    for (size_t s = 0; s < slots; s++) {
        int id = current_id(h->minor, (int)s);

        if (id >= SLOTS_341)
            continue;
        h->mods[id].off = dbin_u64(d + mods_at + s * 16, h->swap);
        h->mods[id].len = dbin_u64(d + mods_at + s * 16 + 8, h->swap);
        h->ver[id] = dbin_u32(d + vers_at + s * 4, h->swap);
        if (partial_raw & ((uint64_t)1 << s))
            h->partial |= (uint64_t)1 << id;
    }
    if (!map_ok(h->names, len, h->len)) {
        return error_at(err, STATUS_PARSE, path, 0,
                        "header: record table at %" PRIu64 "+%" PRIu64
                        " outside the %zu bytes of the file",
                        h->names.off, h->names.len, len);
    }
    for (int id = 0; id < SLOTS_341; id++) {
        if (!map_ok(h->mods[id], len, h->len)) {
            return error_at(err, STATUS_PARSE, path, 0,
                            "header: region of module id %d at %" PRIu64 "+%" PRIu64
                            " outside the %zu bytes of the file",
                            id, h->mods[id].off, h->mods[id].len, len);
        }
    }
    /* The job region runs from the header to the record table (or the first module,
     * or the end of the file), as darshan finds it. */
    h->job.off = h->len;
    uint64_t end = len;
    if (h->names.off != 0) {
        end = h->names.off;
    } else {
        for (int id = 0; id < SLOTS_341; id++) {
            if (h->mods[id].off != 0) {
                end = h->mods[id].off;
                break;
            }
        }
    }
    if (end < h->job.off || end > len) {
        return error_at(err, STATUS_PARSE, path, 0,
                        "header: job region ends at %" PRIu64 ", before the header", end);
    }
    h->job.len = end - h->job.off;
    return STATUS_OK;
}

/* ---- job region: job struct, exe line, mount table ------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* One whitespace-delimited token from *p (skipping leading white space, as scanf's
 * "%s" does); NULL when none. */
static char *token_dup(const char **p)
{
    const char *s = *p, *e;

    while (*s != '\0' && is_space(*s))
        s++;
    e = s;
    while (*e != '\0' && !is_space(*e))
        e++;
    *p = e;
    if (e == s)
        return NULL;
    return strndup(s, (size_t)(e - s));
}

static void mounts_free(struct mount *m, size_t n)
{
    for (size_t i = 0; m != NULL && i < n; i++) {
        free(m[i].path);
        free(m[i].type);
    }
    free(m);
}

/* The mount table after the exe line: one "type\tpath" per '\n' read the way
 * darshan-parser reads it (two white-space tokens after each newline), then ordered
 * by path length, longest first, ties in file order. */
static enum status mounts_parse(const char *tail, struct mount **out, size_t *n_out,
                                const char *path, struct error *err)
{
    size_t n = 0, k = 0;
    const char *pos;
    struct mount *m;

    *out = NULL;
    *n_out = 0;
    for (pos = strchr(tail, '\n'); pos != NULL; pos = strchr(pos + 1, '\n'))
        n++;
    if (n == 0)
        return STATUS_OK;
    m = calloc(n, sizeof *m);
    if (m == NULL)
        return error_set(err, STATUS_NOMEM, "%s: mount table of %zu", path, n);
    for (pos = strchr(tail, '\n'); pos != NULL; pos = strchr(pos + 1, '\n')) {
        const char *p = pos + 1;

        m[k].type = token_dup(&p);
        m[k].path = m[k].type != NULL ? token_dup(&p) : NULL;
        if (m[k].path == NULL) {
            mounts_free(m, k + 1);
            return error_at(err, STATUS_PARSE, path, 0,
                            "job region: mount entry %zu: expected a type and a path",
                            k + 1);
        }
        k++;
    }
    n = k;
    /* insertion sort: stable, and the tables are short */
    for (size_t i = 1; i < n; i++) {
        struct mount t = m[i];
        size_t tl = strlen(t.path), j = i;

        while (j > 0 && strlen(m[j - 1].path) < tl) {
            m[j] = m[j - 1];
            j--;
        }
        m[j] = t;
    }
    *out = m;
    *n_out = n;
    return STATUS_OK;
}

/* ---- name records ---------------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
    const struct name_entry *x = a, *y = b;

    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

/* Fills names->v from the decompressed record table buf[0..len) (modified in place
 * for format 3.00, whose names are not terminated). */
static enum status names_parse(unsigned char *buf, size_t len, int minor, bool swap,
                               size_t max_names, struct dbin_names *names,
                               const char *path, struct error *err)
{
    size_t cap = 0, n = 0, at = 0;
    struct name_entry *v = NULL;

    while (at < len) {
        uint64_t id;
        const char *name;
        size_t rec;

        if (minor == 0) {
            if (len - at < 12)
                break;
            id = dbin_u64(buf + at, swap);
            uint32_t nl = dbin_u32(buf + at + 8, swap);
            if (nl > len - at - 12)
                break;
            memmove(buf + at + 8, buf + at + 12, nl);
            buf[at + 8 + nl] = '\0';
            name = (const char *)buf + at + 8;
            rec = 12 + (size_t)nl;
        } else {
            if (len - at < 9)
                break;
            const unsigned char *nul = memchr(buf + at + 8, '\0', len - at - 8);
            if (nul == NULL)
                break;
            id = dbin_u64(buf + at, swap);
            name = (const char *)buf + at + 8;
            rec = (size_t)(nul - (buf + at)) + 1;
        }
        if (n == max_names) {
            free(v);
            return error_at(err, STATUS_PARSE, path, 0,
                            "record table: expected at most %zu name records ([ingest] "
                            "max_job_records), got more at byte %zu of %zu",
                            max_names, at, len);
        }
        if (n == cap) {
            /* no more entries than the bytes can hold, nor than the bound */
            size_t most = len / NAME_RECORD_MIN + 1;
            size_t nc = cap == 0 ? 64 : cap * 2;
            if (nc > most)
                nc = most;
            if (nc > max_names)
                nc = max_names;
            struct name_entry *nv = realloc(v, nc * sizeof *nv);

            if (nv == NULL) {
                free(v);
                return error_set(err, STATUS_NOMEM, "%s: record table", path);
            }
            v = nv;
            cap = nc;
        }
        v[n].id = id;
        v[n].seq = n;
        v[n].name = name;
        v[n].mount_point = "UNKNOWN";
        v[n].fs_type = "UNKNOWN";
        n++;
        at += rec;
    }
    if (at != len) {
        free(v);
        return error_at(err, STATUS_PARSE, path, 0,
                        "record table: a name record cut short at byte %zu of %zu", at,
                        len);
    }
    if (n > 1)
        qsort(v, n, sizeof *v, name_cmp);
    /* one entry per id: the first non-empty name, else the first (darshan's rule) */
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, pick = i;

        while (j < n && v[j].id == v[i].id) {
            if (v[pick].name[0] == '\0' && v[j].name[0] != '\0')
                pick = j;
            j++;
        }
        v[k++] = v[pick];
        i = j;
    }
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < names->n_mounts; j++) {
            const struct mount *m = &names->mounts[j];

            if (strncmp(m->path, v[i].name, strlen(m->path)) == 0) {
                v[i].mount_point = m->path;
                v[i].fs_type = m->type;
                break;
            }
        }
    }
    names->v = v;
    names->n = k;
    return STATUS_OK;
}

/* ---- the read -------------------------------------------------------------------- */

struct reader {
    const char *path;
    const unsigned char *data;
    size_t len;
    struct header h;
    unsigned char *job_buf, *names_buf, *mod_buf;
    struct mount *mounts;
    size_t n_mounts;
    struct dbin_names names;
    struct dbin_region_info *regions;
    struct budget budget;
};

static void reader_free(struct reader *r)
{
    free(r->job_buf);
    free(r->names_buf);
    free(r->mod_buf);
    mounts_free(r->mounts, r->n_mounts);
    free(r->names.v);
    free(r->regions);
}

static bool has_decoder(int id)
{
    /* darshan-parser has no reader for APXC and APMPI (3.5.0's default build); NULL
     * and unknown ids have none */
    return id > DBIN_NULL && id < DBIN_MODULE_COUNT && id != DBIN_APXC &&
           id != DBIN_APMPI;
}

static enum status read_job(struct reader *r, struct dbin_job *job, struct error *err)
{
    size_t jl = 0;
    unsigned char *raw = NULL;
    enum status rc;
    bool v341 = r->h.minor >= 41;
    const bool sw = r->h.swap;

    rc = region_bytes(r->h.comp, r->data + r->h.job.off, r->h.job.len, JOB_RECORD_LEN,
                      true, &r->budget, &raw, &jl, r->path, "job region", err);
    if (rc != STATUS_OK)
        return rc;
    /* darshan wants more than its (3.41) job struct, whatever the format */
    if (jl <= JOB_STRUCT_341 || jl > JOB_RECORD_LEN) {
        free(raw);
        return error_at(err, STATUS_PARSE, r->path, 0,
                        "job region: expected more than %d bytes, got %zu",
                        JOB_STRUCT_341, jl);
    }
    /* zero-padded to 4096 bytes and one NUL, as darshan reads it */
    unsigned char *full = calloc(1, JOB_RECORD_LEN + 1);
    if (full == NULL) {
        free(raw);
        return error_set(err, STATUS_NOMEM, "%s: job region", r->path);
    }
    memcpy(full, raw, jl);
    free(raw);
    r->job_buf = full;
    const unsigned char *b = full;
    job->uid = dbin_i64(b, sw);
    job->start_time_s = dbin_i64(b + 8, sw);
    size_t meta_at;
    if (v341) {
        job->start_time_ns = dbin_i64(b + 16, sw);
        job->end_time_s = dbin_i64(b + 24, sw);
        job->end_time_ns = dbin_i64(b + 32, sw);
        job->nprocs = dbin_i64(b + 40, sw);
        job->jobid = dbin_i64(b + 48, sw);
        meta_at = 56;
    } else {
        job->start_time_ns = 0;
        job->end_time_s = dbin_i64(b + 16, sw);
        job->end_time_ns = 0;
        job->nprocs = dbin_i64(b + 24, sw);
        job->jobid = dbin_i64(b + 32, sw);
        meta_at = 40;
    }
    if (v341) {
        job->run_time_s = ((double)job->end_time_s + (double)job->end_time_ns / 1e9) -
                          ((double)job->start_time_s + (double)job->start_time_ns / 1e9);
    } else {
        /* darshan-parser's int64 end - start + 1, wrapping as it does for times
         * far apart (in unsigned arithmetic: a signed overflow is undefined) */
        job->run_time_s = (double)(int64_t)((uint64_t)job->end_time_s -
                                            (uint64_t)job->start_time_s + 1);
    }
    /* The metadata is its 1024 bytes (dbin_read makes it a string); the exe and
     * mount text follows, a string within the zero-padded 4096 bytes. */
    job->metadata = (const char *)full + meta_at;
    const char *tail = job->metadata + METADATA_LEN;
    job->exe = tail;
    return STATUS_OK;
}

enum status dbin_region_decode(const struct dbin_region *r, const struct dbin_sink *sink,
                               struct error *err)
{
    switch (r->module) {
    case DBIN_POSIX:
    case DBIN_MPIIO:
    case DBIN_STDIO: return dbin_module_decode(r, sink, err);
    case DBIN_DXT_POSIX:
    case DBIN_DXT_MPIIO: return dmod_decode_dxt(r, sink, err);
    default: break;
    }
    if (r->len > 0 && r->data == NULL)
        return error_set(err, STATUS_INVALID, "%s: region without data", r->path);
    switch (r->module) {
    case DBIN_H5F: return dmod_decode_fixed(r, &dmod_h5f, sink, err);
    case DBIN_H5D: return dmod_decode_fixed(r, &dmod_h5d, sink, err);
    case DBIN_PNETCDF_FILE: return dmod_decode_fixed(r, &dmod_pnetcdf_file, sink, err);
    case DBIN_PNETCDF_VAR: return dmod_decode_fixed(r, &dmod_pnetcdf_var, sink, err);
    case DBIN_BGQ: return dmod_decode_fixed(r, &dmod_bgq, sink, err);
    case DBIN_DFS: return dmod_decode_fixed(r, &dmod_dfs, sink, err);
    case DBIN_DAOS: return dmod_decode_fixed(r, &dmod_daos, sink, err);
    case DBIN_LUSTRE: return dmod_decode_lustre(r, sink, err);
    case DBIN_HEATMAP: return dmod_decode_heatmap(r, sink, err);
    default:
        return error_at(err, STATUS_NOT_FOUND, r->path, 0, "no decoder reads %s records",
                        dbin_module_name(r->module));
    }
}

enum status dbin_read(const char *path, const unsigned char *data, size_t len,
                      bool show_incomplete, const struct dbin_sink *sink,
                      struct error *err)
{
    /* The dump tools and the fuzzers: each region keeps its own bounds, the log as a
     * whole none, as darshan-parser has none (a 100 MB DXT trace dumps). */
    return dbin_read_max(path, data, len, show_incomplete, SIZE_MAX, SIZE_MAX, sink, err);
}

enum status dbin_read_max(const char *path, const unsigned char *data, size_t len,
                          bool show_incomplete, size_t max_bytes, size_t max_names,
                          const struct dbin_sink *sink, struct error *err)
{
    struct reader r;
    struct dbin_job job;
    enum status rc;
    size_t nl = 0;
    char exe[JOB_RECORD_LEN];
    char meta[METADATA_LEN + 1];
    static const struct dbin_sink none = {0};

    if (sink == NULL)
        sink = &none;
    memset(&r, 0, sizeof r);
    memset(&job, 0, sizeof job);
    r.path = path;
    r.data = data;
    r.len = len;
    r.budget.max = max_bytes > 0 ? max_bytes : INGEST_DEFAULT_MAX_FILE_BYTES;
    r.budget.left = r.budget.max;
    if (data == NULL)
        return error_at(err, STATUS_PARSE, path, 0, "header: no bytes");
    rc = header_read(path, data, len, &r.h, err);
    if (rc != STATUS_OK)
        goto out;
    rc = read_job(&r, &job, err);
    if (rc != STATUS_OK)
        goto out;
    if (job.metadata == NULL || job.exe == NULL) {
        rc = error_set(err, STATUS_INTERNAL, "%s: job region not read", path);
        goto out;
    }
    /* Make the metadata and the exe/mount text strings of their own. */
    memcpy(meta, job.metadata, METADATA_LEN);
    meta[METADATA_LEN] = '\0';
    {
        const char *tail = job.exe; /* NUL-terminated at the record's end */
        const char *newline = strchr(tail, '\n');
        size_t el = newline != NULL ? (size_t)(newline - tail) : 0;

        /* darshan-parser prints nothing for an exe line with no newline after it */
        memcpy(exe, tail, el);
        exe[el] = '\0';
        struct mount *mounts = NULL;
        size_t n_mounts = 0;

        rc = mounts_parse(tail, &mounts, &n_mounts, path, err);
        r.mounts = mounts;
        r.n_mounts = n_mounts;
        if (rc != STATUS_OK)
            goto out;
        /* exe, meta and the mounts are copies: the record is done with */
        free(r.job_buf);
        r.job_buf = NULL;
        job.exe = NULL;
        job.metadata = NULL;
    }
    r.names.mounts = r.mounts;
    r.names.n_mounts = r.n_mounts;
    if (r.h.names.len > 0) {
        rc = region_bytes(r.h.comp, data + r.h.names.off, r.h.names.len, 0, false,
                          &r.budget, &r.names_buf, &nl, path, "record table", err);
        if (rc == STATUS_OK) {
            rc = names_parse(r.names_buf, nl, r.h.minor, r.h.swap,
                             max_names > 0 ? max_names : INGEST_DEFAULT_MAX_JOB_RECORDS,
                             &r.names, path, err);
        }
        if (rc != STATUS_OK)
            goto out;
    }

    size_t n_regions = 0;
    r.regions = calloc(SLOTS_341, sizeof *r.regions);
    if (r.regions == NULL) {
        rc = error_set(err, STATUS_NOMEM, "%s: regions", path);
        goto out;
    }
    for (int id = 0; id < SLOTS_341; id++) {
        if (r.h.mods[id].len == 0 && !(r.h.partial & ((uint64_t)1 << id)))
            continue;
        struct dbin_region_info *ri = &r.regions[n_regions++];
        ri->module = id < DBIN_MODULE_COUNT ? (enum dbin_module)id : DBIN_MODULE_COUNT;
        ri->raw_id = id;
        ri->len = r.h.mods[id].len;
        ri->version = r.h.ver[id];
    }

    memcpy(job.version, data, 8);
    job.version[8] = '\0';
    job.log_version = 3.0 + r.h.minor / 100.0;
    job.compression = r.h.comp;
    job.partial_flag = r.h.partial;
    job.exe = exe;
    job.metadata = meta;
    job.header_len = r.h.len;
    job.job_len = r.h.job.len;
    job.names_len = r.h.names.len;
    job.regions = r.regions;
    job.n_regions = n_regions;
    if (sink->job != NULL) {
        rc = sink->job(sink->ctx, &job, err);
        if (rc != STATUS_OK)
            goto out;
    }
    for (size_t i = 0; i < r.n_mounts && sink->mount != NULL; i++) {
        rc = sink->mount(sink->ctx, r.mounts[i].path, r.mounts[i].type, err);
        if (rc != STATUS_OK)
            goto out;
    }

    for (size_t i = 0; i < n_regions; i++) {
        const struct dbin_region_info *ri = &r.regions[i];
        int id = ri->raw_id;
        bool incomplete = (r.h.partial & ((uint64_t)1 << id)) != 0;
        bool decoded = has_decoder(id) && (!incomplete || show_incomplete) && ri->len > 0;
        char what[48];

        if (sink->module_begin != NULL) {
            rc = sink->module_begin(sink->ctx, ri->module, dbin_module_name(ri->module),
                                    ri->version, incomplete, decoded, err);
            if (rc != STATUS_OK)
                goto out;
        }
        if (decoded) {
            size_t ml = 0;
            struct dbin_region reg;
            struct error derr;

            snprintf(what, sizeof what, "%s region", dbin_module_name(ri->module));
            free(r.mod_buf);
            r.mod_buf = NULL;
            rc = region_bytes(r.h.comp, data + r.h.mods[id].off, r.h.mods[id].len, 0,
                              false, &r.budget, &r.mod_buf, &ml, path, what, err);
            if (rc != STATUS_OK)
                goto out;
            reg.path = path;
            reg.module = ri->module;
            reg.version = ri->version;
            reg.data = r.mod_buf;
            reg.len = ml;
            reg.swap = r.h.swap;
            reg.log_version = job.log_version;
            reg.nprocs = job.nprocs;
            reg.names = &r.names;
            reg.names_lookup = names_lookup;
            memset(&derr, 0, sizeof derr);
            rc = dbin_region_decode(&reg, sink, &derr);
            if (rc == STATUS_NOT_FOUND) {
                log_debug("%s: %s", path, derr.msg);
            } else if (rc != STATUS_OK) {
                if (err != NULL && err->code == STATUS_OK)
                    *err = derr;
                goto out;
            }
        }
        if (sink->module_end != NULL) {
            rc = sink->module_end(sink->ctx, ri->module, err);
            if (rc != STATUS_OK)
                goto out;
        }
    }
    rc = STATUS_OK;
out:
    reader_free(&r);
    return rc;
}
