/* fuzz_darshan_bin.c: libFuzzer target of the binary Darshan reader: ingest_darshan_read
 * (the records, the log-only metrics and the DXT trace's rows, as the loader makes
 * them) and the darshan-parser and darshan-dxt-parser text writers of `iocontend
 * darshan dump` over the same bytes, into a memory stream. */
#include "../common/common.h"
#include "../ingest/ingest.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

/* A record's identity: darshan.c keeps one record per (layer, rank, record id). */
static int cmp_record(const void *a, const void *b)
{
    const struct darshan_record *x = a, *y = b;

    if (x->layer != y->layer)
        return (int)x->layer - (int)y->layer;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->record_id > y->record_id) - (x->record_id < y->record_id);
}

/* What a log that reads promises: its counts hold what they count, every string is
 * set, a record appears once, the incomplete flags agree. */
static void check_log(const struct darshan_log *log)
{
    FUZZ_CHECK(log->path != NULL && log->exe != NULL, "darshan_bin: path or exe NULL");
    FUZZ_CHECK(memchr(log->jobid, '\0', sizeof log->jobid) != NULL,
               "darshan_bin: jobid not terminated");
    FUZZ_CHECK(log->n_mounts == 0 ||
                   (log->mount_points != NULL && log->mount_fs_types != NULL),
               "darshan_bin: n mounts, none");
    for (size_t i = 0; i < log->n_mounts; i++) {
        FUZZ_CHECK(log->mount_points[i] != NULL && log->mount_fs_types[i] != NULL,
                   "darshan_bin: a mount's string is NULL");
    }
    FUZZ_CHECK(log->n_records == 0 || log->records != NULL,
               "darshan_bin: n records, none");
    for (size_t i = 0; i < log->n_records; i++) {
        const struct darshan_record *r = &log->records[i];
        FUZZ_CHECK(r->layer < LAYER_COUNT && r->rank >= -1,
                   "darshan_bin: a record's layer or rank out of range");
        FUZZ_CHECK(r->file_name != NULL && r->mount_point != NULL && r->fs_type != NULL,
                   "darshan_bin: a record's string is NULL");
    }
    FUZZ_CHECK(!log->incomplete_records || log->incomplete_modules != NULL,
               "darshan_bin: incomplete records but no incomplete module");
    if (log->n_records > 1) {
        struct darshan_record *sorted = malloc(log->n_records * sizeof *sorted);
        if (sorted != NULL) {
            memcpy(sorted, log->records, log->n_records * sizeof *sorted);
            qsort(sorted, log->n_records, sizeof *sorted, cmp_record);
            for (size_t i = 1; i < log->n_records; i++) {
                FUZZ_CHECK(cmp_record(&sorted[i - 1], &sorted[i]) != 0,
                           "darshan_bin: a (layer, rank, record id) twice");
            }
            free(sorted);
        }
    }
    if (log->dxt != NULL) {
        const struct dxt_trace *t = log->dxt;
        FUZZ_CHECK(t->exe != NULL && strcmp(t->exe, log->exe) == 0 &&
                       strcmp(t->jobid, log->jobid) == 0 && t->uid == log->uid &&
                       t->start_time_s == log->start_time_s &&
                       t->end_time_s == log->end_time_s && t->nprocs == log->nprocs,
                   "darshan_bin: the trace's job is not the log's");
    }
}

/* One of the dump writers' outcomes over the input. */
static void check_dump(enum status rc, const struct error *err)
{
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "darshan_bin: dump: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err->code == rc,
               "darshan_bin: dump: err holds the status");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct darshan_log *log = NULL;
    struct ingest_fs_map map = {0};
    struct job_metrics m = {0};
    struct error err = {0};
    char *text = NULL;
    size_t text_len = 0;
    enum status rc;

    log_set_level(LOG_ERROR);
    /* The reader takes the bytes as the loader has them, read whole; an exact-size copy
     * lets ASan catch a read past the end (libFuzzer's buffer is exact too). */
    rc = ingest_darshan_read(data, size, "fuzz.darshan", &log, &err);
    FUZZ_CHECK((rc == STATUS_OK) == (log != NULL), "darshan_bin: *out set iff STATUS_OK");
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "darshan_bin: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "darshan_bin: err holds the status");
    if (rc == STATUS_OK)
        check_log(log);
    /* The monitored file systems of fuzz_darshan. */
    if (rc == STATUS_OK && ingest_fs_map_add(&map, "/", "root", NULL) == STATUS_OK &&
        ingest_fs_map_add(&map, "/scratch1", "scratch1", NULL) == STATUS_OK) {
        rc = ingest_job_metrics(log, &map, &m, &err);
        FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_NOMEM, "darshan_bin: metrics failed");
        for (size_t i = 0; rc == STATUS_OK && i < m.n_windows; i++) {
            FUZZ_CHECK(m.windows[i].start_s <= m.windows[i].end_s,
                       "darshan_bin: a window ends before it starts");
            FUZZ_CHECK(i == 0 || !(m.windows[i].start_s < m.windows[i - 1].start_s),
                       "darshan_bin: windows sorted by start");
        }
        if (log->dxt != NULL)
            fuzz_check_trace(log->dxt, &map);
    }
    job_metrics_clear(&m);
    ingest_fs_map_clear(&map);
    darshan_log_free(log);

    /* The text writers (darshan-parser --show-incomplete, darshan-dxt-parser). */
    FILE *out = open_memstream(&text, &text_len);
    if (out != NULL) {
        struct error dump_err = {0};
        rc = ingest_darshan_dump_bytes(out, data, size, "fuzz.darshan", true, &dump_err);
        check_dump(rc, &dump_err);
        memset(&dump_err, 0, sizeof dump_err);
        rc = ingest_darshan_dump_dxt_bytes(out, data, size, "fuzz.darshan", &dump_err);
        check_dump(rc, &dump_err);
        fclose(out);
    }
    free(text);
    return 0;
}
