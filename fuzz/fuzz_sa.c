/* fuzz_sa.c: libFuzzer target of what an sa file becomes after sadf (ingest/load/sadf.c):
 * sadf -j output through the sadf -j parser (sa_samples_after), whole and after a
 * ledger's last record, as a grown sa file loads. Running sadf itself per input
 * would be a fork and exec each: the seeds are sadf's own output of real sa files. */
#include "../common/common.h"
#include "../ingest/internal.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

/* The samples of data[0, size) stamped after *after_s (all: NULL); checks what every
 * outcome promises. *out is new on STATUS_OK. */
static enum status parse(const uint8_t *data, size_t size, const int64_t *after_s,
                         struct iostat_data **out)
{
    struct error err = {0};
    char *copy = malloc(size + 1);
    enum status rc;

    *out = NULL;
    if (copy == NULL)
        return STATUS_NOMEM;
    if (size > 0)
        memcpy(copy, data, size);
    copy[size] = '\0';
    const struct iostat_parse_opts po = {.device_names = "254:0=vda",
                                         .mtime_s = INT64_MAX};
    rc = sa_samples_after(copy, size, "fuzz.sa", &po, after_s, out, &err);
    free(copy);
    FUZZ_CHECK((rc == STATUS_OK) == (*out != NULL), "sa: *out set iff STATUS_OK");
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "sa: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "sa: err holds the status");
    if (rc == STATUS_OK) {
        FUZZ_CHECK((*out)->resume.format == IOSTAT_FORMAT_JSON, "sa: not JSON");
        for (size_t i = 0; after_s != NULL && i < (*out)->n; i++)
            FUZZ_CHECK((*out)->samples[i].stamp_s > *after_s, "sa: a sample not after");
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct iostat_data *whole = NULL, *rest = NULL;

    log_set_level(LOG_ERROR);
    if (parse(data, size, NULL, &whole) == STATUS_OK && whole->n > 0) {
        /* After the middle sample's stamp: exactly the later samples, in order. */
        int64_t after = whole->samples[whole->n / 2].stamp_s;
        size_t k = 0;
        if (parse(data, size, &after, &rest) == STATUS_OK) {
            for (size_t i = 0; i < whole->n; i++) {
                if (whole->samples[i].stamp_s <= after)
                    continue;
                FUZZ_CHECK(
                    k < rest->n &&
                        rest->samples[k].stamp_s == whole->samples[i].stamp_s &&
                        strcmp(rest->samples[k].device, whole->samples[i].device) == 0,
                    "sa: after the ledger, not the later samples");
                k++;
            }
            FUZZ_CHECK(k == rest->n, "sa: after the ledger, samples not in the whole");
        }
    }
    iostat_data_free(rest);
    iostat_data_free(whole);
    return 0;
}
