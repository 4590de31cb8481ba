/* darshan_mod_lustre.c: the decoder of LUSTRE records, a variable list of layout
 * components and OSTs. */
#include "darshan_mod_fixed.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static enum status lustre_emit(struct dmod_emit *e, const struct lustre_comp *comps,
                               size_t n_comps, int64_t n_stripes,
                               const struct dbin_region *r, size_t ost_off,
                               struct error *err)
{
    enum status rc = dmod_emit_int(e, "LUSTRE_NUM_COMPONENTS", (int64_t)n_comps, err);
    size_t i, j, k, ost = 0;
    char name[80], text[64];

    if (rc == STATUS_OK)
        rc = dmod_emit_int(e, "LUSTRE_NUM_STRIPES", n_stripes, err);
    for (i = 0; i < n_comps && rc == STATUS_OK; i++) {
        for (k = 0; k < LUSTRE_COMP_WORDS && rc == STATUS_OK; k++) {
            snprintf(name, sizeof(name), "LUSTRE_COMP%zu_%s", i + 1,
                     lustre_comp_counters[k]);
            if (k == 2) {
                rc = dmod_emit_text(e, name, lustre_pattern(comps[i].v[k]), err);
            } else if (k == 3) {
                lustre_flags(comps[i].v[k], text);
                rc = dmod_emit_text(e, name, text, err);
            } else {
                rc = dmod_emit_int(e, name, comps[i].v[k], err);
            }
        }
        snprintf(name, sizeof(name), "LUSTRE_COMP%zu_POOL_NAME", i + 1);
        if (rc == STATUS_OK) {
            rc = dmod_emit_text(e, name, comps[i].pool[0] != '\0' ? comps[i].pool : "N/A",
                                err);
        }
        for (j = 0; j < (size_t)comps[i].v[1] && rc == STATUS_OK; j++, ost++) {
            snprintf(name, sizeof(name), "LUSTRE_COMP%zu_OST_ID_%zu", i + 1, j);
            rc = dmod_emit_int(e, name, (int64_t)dmod_word(r, ost_off + 8 * ost), err);
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
    struct dmod_emit e;
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
    dmod_emit_start(&e, r, sink, start);
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
    struct dmod_emit e;

    if (left < 32)
        return dmod_fail(r, start, err, "expected 32 bytes, %zu left", left);
    n_comps = (int64_t)dmod_word(r, start + 16);
    n_stripes = (int64_t)dmod_word(r, start + 24);
    left -= 32;
    if (n_comps < 0 || n_stripes < 0) {
        return dmod_fail(r, start, err, "%" PRId64 " components, %" PRId64 " stripes",
                         n_comps, n_stripes);
    }
    dmod_emit_start(&e, r, sink, start);
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

enum status dmod_decode_lustre(const struct dbin_region *r, const struct dbin_sink *sink,
                               struct error *err)
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
