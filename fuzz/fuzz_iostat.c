/* fuzz_iostat.c: libFuzzer target of the sample parsers (iostat text and -o JSON,
 * sadf -d and -j: ingest_iostat_parse recognises the format), whole and as a file
 * that grew: its first half, then the rest continued from the first parse's resume
 * state (ingest_iostat_parse_from, as the ledger of loaded sample files does). */
#include "../common/common.h"
#include "../ingest/ingest.h"
#include "fuzz.h"

#include <stdlib.h>

/* 2026-11-22T13:03:20Z, just after the lab captures of ../shared/data: their stamps
 * are plausible at this mtime. */
#define MTIME_S 1795352600
#define DAY_S   86400

/* One parse of data[0, size) by ingest_iostat_parse_from; checks what every outcome
 * promises. *out is new (iostat_data_free) on STATUS_OK. */
static enum status parse(const uint8_t *data, size_t size, int64_t mtime_s, int64_t now_s,
                         const struct iostat_resume *from, struct iostat_data **out)
{
    struct error err = {0};
    char *copy = NULL;
    FILE *fp = fuzz_stream(data, size, &copy);
    enum status rc;

    *out = NULL;
    if (fp == NULL)
        return STATUS_NOMEM;
    struct iostat_parse_opts o = {
        .timezone = "Europe/Berlin", .mtime_s = mtime_s, .now_s = now_s};
    rc = ingest_iostat_parse_from(fp, "fuzz.txt", &o, from, out, &err);
    fclose(fp);
    free(copy);
    FUZZ_CHECK((rc == STATUS_OK) == (*out != NULL), "iostat: *out set iff STATUS_OK");
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "iostat: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "iostat: err holds the status");
    if (rc == STATUS_OK) {
        FUZZ_CHECK((*out)->complete_bytes <= size, "iostat: complete_bytes past the end");
        FUZZ_CHECK((*out)->n == 0 || (*out)->samples != NULL, "iostat: n samples, none");
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct iostat_data *whole = NULL, *first = NULL, *rest = NULL;
    size_t half = size / 2;

    log_set_level(LOG_ERROR);
    (void)parse(data, size, INT64_MAX, INT64_MAX, NULL, &whole);
    /* The first half of a file still being written, then the rest once it stopped
     * growing a day ago: the rest's cut tail, if any, is set aside. */
    if (parse(data, half, MTIME_S, MTIME_S, NULL, &first) == STATUS_OK &&
        (first->resume.format == IOSTAT_FORMAT_TEXT ||
         first->resume.format == IOSTAT_FORMAT_SADF)) {
        size_t off = first->complete_bytes;
        (void)parse(data + off, size - off, MTIME_S, MTIME_S + 2 * DAY_S, &first->resume,
                    &rest);
    }
    iostat_data_free(rest);
    iostat_data_free(first);
    iostat_data_free(whole);
    return 0;
}
