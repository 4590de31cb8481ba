/* fuzz_source.c: libFuzzer target of the decompressing front end of every input
 * (ingest/load/source.c: gzip, bzip2, xz or plain, recognised by magic bytes): whatever
 * the bytes, a bounded read that says what it found; decoded under the cap of its
 * own decompressed length it gives the same bytes, one byte under it is too large. */
#include "../common/common.h"
#include "../ingest/internal.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

/* The cap of the first read: a bomb stops here. */
#define MAX_BYTES ((size_t)1 << 20)

/* source_decode of data[0, size) under the cap max; checks what every outcome
 * promises. */
static enum status decode(const uint8_t *data, size_t size, size_t max, struct source *s)
{
    struct error err = {0};
    char *copy = NULL;
    FILE *fp = fuzz_stream(data, size, &copy);
    enum status rc;

    memset(s, 0, sizeof *s);
    if (fp == NULL)
        return STATUS_NOMEM;
    rc = source_decode(fp, "fuzz", max, s, &err);
    fclose(fp);
    free(copy);
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "source: a status other than ok, parse or nomem");
    FUZZ_CHECK(s->codec == source_codec_of(data, size), "source: codec not of the magic");
    FUZZ_CHECK((rc == STATUS_PARSE) == s->corrupt, "source: parse iff corrupt");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "source: err holds the status");
    FUZZ_CHECK(!s->corrupt || strlen(s->raw_hash) == 32, "source: corrupt, no key");
    if (rc == STATUS_OK && !s->too_large) {
        FUZZ_CHECK(s->data != NULL && s->len <= max && s->data[s->len] == '\0',
                   "source: data missing, past the cap or not terminated");
        FUZZ_CHECK(s->codec != SOURCE_PLAIN ||
                       (s->len == size && memcmp(s->data, data, size) == 0),
                   "source: plain bytes changed");
    } else {
        FUZZ_CHECK(s->data == NULL, "source: data kept on a refusal");
    }
    FUZZ_CHECK(!s->too_large || s->codec != SOURCE_PLAIN || size > max,
               "source: plain too large under the cap");
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct source whole, again;

    log_set_level(LOG_ERROR);
    if (decode(data, size, MAX_BYTES, &whole) == STATUS_OK && !whole.too_large) {
        /* A cap of its length (or of the stored bytes, when more: the cap holds for
         * them too) fits, and gives the same bytes. */
        if (decode(data, size, whole.len > size ? whole.len : size, &again) ==
            STATUS_OK) {
            FUZZ_CHECK(!again.too_large && again.len == whole.len &&
                           memcmp(again.data, whole.data, whole.len) == 0,
                       "source: a cap of its own length changed the bytes");
        }
        source_free(&again);
        /* One byte less is too large. */
        if (whole.len > 0 && decode(data, size, whole.len - 1, &again) == STATUS_OK)
            FUZZ_CHECK(again.too_large, "source: one byte past the cap was kept");
        source_free(&again);
    }
    source_free(&whole);
    return 0;
}
