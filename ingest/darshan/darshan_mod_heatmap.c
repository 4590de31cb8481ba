/* darshan_mod_heatmap.c: the decoder of HEATMAP records, a variable number of bins. */
#include "darshan_mod_fixed.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The record as darshan writes it: id, rank, bin width, nbins and two pointers
 * (meaningless in the file), then nbins write bins and nbins read bins. */
#define HEATMAP_FIXED 48

enum status dmod_decode_heatmap(const struct dbin_region *r, const struct dbin_sink *sink,
                                struct error *err)
{
    int64_t first_nbins = 0;
    double first_width = 0;
    size_t off = 0;
    enum status rc = STATUS_OK;

    if (r->version != 1) {
        return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                        "HEATMAP records of version %" PRIu32 " are not known",
                        r->version);
    }
    while (off < r->len && rc == STATUS_OK) {
        size_t left = r->len - off, n, shown, i, wr, rd;
        double width;
        int64_t nbins;
        bool one_less = false;
        struct dmod_emit e;
        char name[48];

        if (left < HEATMAP_FIXED) {
            return dmod_fail(r, off, err, "expected %d bytes, %zu left", HEATMAP_FIXED,
                             left);
        }
        width = dmod_double(r, off + 16);
        nbins = (int64_t)dmod_word(r, off + 24);
        if (nbins < 0 || (uint64_t)nbins > (left - HEATMAP_FIXED) / 16) {
            return dmod_fail(r, off, err, "%" PRId64 " bins in %zu bytes", nbins,
                             left - HEATMAP_FIXED);
        }
        n = (size_t)nbins;
        wr = off + HEATMAP_FIXED;
        rd = wr + 8 * n;
        /* darshan-parser mends records one bin longer or shorter than the log's first
         * (clock skew in darshan 3.4.0 to 3.4.3): it drops the last bin, or adds one,
         * shifting the read bins as its in-place copy does: 0, r[0] .. r[n-2], 0. */
        if (first_nbins == 0)
            first_nbins = nbins;
        if (first_width == 0)
            first_width = width;
        shown = n;
        if (width == first_width && nbins == first_nbins + 1) {
            shown = n - 1;
        } else if (width == first_width && nbins == first_nbins - 1) {
            shown = n + 1;
            one_less = true;
        }
        dmod_emit_start(&e, r, sink, off);
        rc = dmod_emit_float(&e, "HEATMAP_F_BIN_WIDTH_SECONDS", width, err);
        for (i = 0; i < shown && rc == STATUS_OK; i++) {
            int64_t v;

            if (!one_less) {
                v = (int64_t)dmod_word(r, rd + 8 * i);
            } else if (i == 0 || i == n) {
                v = 0;
            } else {
                v = (int64_t)dmod_word(r, rd + 8 * (i - 1));
            }
            snprintf(name, sizeof(name), "HEATMAP_READ_BIN_%zu", i);
            rc = dmod_emit_int(&e, name, v, err);
        }
        for (i = 0; i < shown && rc == STATUS_OK; i++) {
            int64_t v = i < n ? (int64_t)dmod_word(r, wr + 8 * i) : 0;

            snprintf(name, sizeof(name), "HEATMAP_WRITE_BIN_%zu", i);
            rc = dmod_emit_int(&e, name, v, err);
        }
        off += HEATMAP_FIXED + 16 * n;
    }
    return rc;
}
