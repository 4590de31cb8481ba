/* fuzz_dxt.c: libFuzzer target of ingest_dxt_parse (darshan-dxt-parser text), and of
 * the rows each trace that parses loads (trace_rows_make), as the loader makes them. */
#include "../common/common.h"
#include "../ingest/ingest.h"
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dxt_trace *t = NULL;
    struct ingest_fs_map map = {0};
    struct error err = {0};
    char *copy = NULL;
    FILE *fp;
    enum status rc;

    log_set_level(LOG_ERROR);
    fp = fuzz_stream(data, size, &copy);
    if (fp == NULL)
        return 0;
    rc = ingest_dxt_parse(fp, "fuzz.dxt.txt", &t, &err);
    FUZZ_CHECK((rc == STATUS_OK) == (t != NULL), "dxt: *out set iff STATUS_OK");
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "dxt: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "dxt: err holds the status");
    /* Two monitored file systems, as fuzz_darshan's, so that windows differ by fs. */
    if (rc == STATUS_OK && ingest_fs_map_add(&map, "/", "root", NULL) == STATUS_OK &&
        ingest_fs_map_add(&map, "/scratch1", "scratch1", NULL) == STATUS_OK)
        fuzz_check_trace(t, &map);
    ingest_fs_map_clear(&map);
    dxt_trace_free(t);
    fclose(fp);
    free(copy);
    return 0;
}
