/* fuzz_darshan.c: libFuzzer target of ingest_darshan_parse (darshan-parser text), and
 * of the log-only metrics of every log that parses, as the loader computes them. */
#include "../common/common.h"
#include "../ingest/ingest.h"
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct darshan_log *log = NULL;
    struct ingest_fs_map map = {0};
    struct job_metrics m = {0};
    struct error err = {0};
    char *copy = NULL;
    FILE *fp;
    enum status rc;

    log_set_level(LOG_ERROR);
    fp = fuzz_stream(data, size, &copy);
    if (fp == NULL)
        return 0;
    rc = ingest_darshan_parse(fp, "fuzz.txt", &log, &err);
    FUZZ_CHECK((rc == STATUS_OK) == (log != NULL), "darshan: *out set iff STATUS_OK");
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "darshan: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "darshan: err holds the status");
    /* A monitored file system at "/" and one deeper, so that windows get an fs and the
     * longest-prefix match runs on whatever mount points the input names. */
    if (rc == STATUS_OK && ingest_fs_map_add(&map, "/", "root", NULL) == STATUS_OK &&
        ingest_fs_map_add(&map, "/scratch1", "scratch1", NULL) == STATUS_OK) {
        rc = ingest_job_metrics(log, &map, &m, &err);
        FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_NOMEM, "darshan: metrics failed");
        for (size_t i = 1; rc == STATUS_OK && i < m.n_windows; i++) {
            FUZZ_CHECK(!(m.windows[i].start_s < m.windows[i - 1].start_s),
                       "darshan: windows sorted by start");
        }
    }
    job_metrics_clear(&m);
    ingest_fs_map_clear(&map);
    darshan_log_free(log);
    fclose(fp);
    free(copy);
    return 0;
}
