/* pipeline.c: darshan-parser text into the database at the pace of a center: files
 * read (decompressed when they come gzip'd, bzip2'd or xz'd), hashed and parsed on
 * several threads, a batch of them sent in one transaction
 * (binary COPY), every outcome recorded in the order of the paths, so that one thread
 * and many give the same rows, the same quarantine list and the same summary. */
#include "../internal.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch: at most opts->batch_files files, or this many bytes of text read at once. */
#define BATCH_BYTES ((size_t)64 << 20)
/* How many times its stored size a compressed log is counted in a batch's bytes: text
 * inflates to many times its compressed size, and the batch holds it inflated. */
#define COMPRESSED_RATIO 10
/* What the batch's compressed logs may inflate to in all, once read: the ratio is a
 * guess a hostile file (or a name without .gz) defeats, so the bytes themselves are
 * counted; the logs past it wait for the next batch. */
#define BATCH_INFLATED_BYTES (4 * BATCH_BYTES)

enum item_state {
    ITEM_MISSING,   /* cannot be read: ferr says why */
    ITEM_TOO_LARGE, /* over the size cap (hashed by size and mtime), or a corrupt
                       compressed stream (hashed by its stored bytes): ferr says */
    ITEM_READ,      /* data and hash at hand */
    ITEM_DEFERRED,  /* compressed, read past the batch's inflated bytes: next batch */
    ITEM_SEEN,      /* content loaded before */
    ITEM_DUP,       /* the content of an earlier file of the batch (dup_of) */
    ITEM_KNOWN_BAD, /* quarantined before under the same verdict */
    ITEM_EMPTY,
    ITEM_BAD,   /* the parser or the metrics refused it: ferr */
    ITEM_PARSED /* job rows ready */
};

struct item {
    const char *path;     /* borrowed from the file list */
    char *shown;          /* the path escaped: as stored and reported */
    char plain_name[512]; /* path without a compression suffix: what names tell */
    enum item_state state;
    struct stat st;
    bool have_st;
    char *data;
    size_t len;
    char hash[33];
    struct error ferr; /* ITEM_MISSING, ITEM_TOO_LARGE, ITEM_BAD */
    bool nomem;        /* ITEM_BAD for want of memory: quarantined all the same */
    bool negative_time;
    size_t dup_of; /* ITEM_DUP: 1 + the index of the earlier file */
    char jobid[32];
    struct job_metrics m;
    struct job_text text;
    struct db_window_in *windows;
    struct db_job_in job;
    bool has_job;   /* false: darshan-dxt-parser text, a trace alone */
    bool has_trace; /* a DXT trace to load: trace */
    bool again;     /* --reprocess of a content loaded before: its trace only */
    struct trace_rows trace;
};

struct batch {
    struct item *items;
    size_t n;
    _Atomic size_t inflated; /* decompressed bytes of the compressed logs read */
    size_t max;              /* the size cap of one input */
    size_t size;             /* the files a batch holds at most */
};

static void item_clear(struct item *it)
{
    free(it->shown);
    free(it->data);
    job_metrics_clear(&it->m);
    job_text_free(&it->text);
    free(it->windows);
    trace_rows_free(&it->trace);
    memset(it, 0, sizeof *it);
}

/* Thread work: read and hash item i. */
static void read_one(void *arg, size_t i)
{
    struct batch *b = arg;
    struct item *it = &b->items[i];
    struct source src = {0};

    /* A file gone since it was listed is missing with source_read's reason. */
    if (!it->have_st || (uintmax_t)it->st.st_size <= b->max) {
        enum status rc = source_read(it->path, b->max, &src, &it->ferr);
        if (rc == STATUS_PARSE && src.corrupt) {
            it->state = ITEM_TOO_LARGE;
            memcpy(it->hash, src.raw_hash, sizeof it->hash);
            return;
        }
        if (rc != STATUS_OK) {
            it->state = ITEM_MISSING;
            return;
        }
    }
    if (src.data == NULL) {
        it->state = ITEM_TOO_LARGE;
        if (!it->have_st)
            it->st.st_size = (off_t)b->max + 1;
        size_hash(&it->st, it->hash);
        source_too_large(&it->st, true, src.codec, b->max, &it->ferr);
        return;
    }
    if (src.codec != SOURCE_PLAIN &&
        atomic_fetch_add(&b->inflated, src.len) + src.len > BATCH_INFLATED_BYTES &&
        i > 0) {
        free(src.data);
        it->state = ITEM_DEFERRED;
        return;
    }
    it->data = src.data;
    it->len = src.len;
    content_hash(it->data, it->len, it->hash);
    it->state = ITEM_READ;
}

/* Ends the batch before its first deferred log: that one and the ones after it are
 * read again by the next batch, so that outcomes stay in path order. */
static void cut_deferred(struct batch *b, size_t *next)
{
    for (size_t i = 1; i < b->n; i++) {
        if (b->items[i].state != ITEM_DEFERRED)
            continue;
        for (size_t j = i; j < b->n; j++)
            item_clear(&b->items[j]);
        *next -= b->n - i;
        b->n = i;
        return;
    }
}

struct parse_ctx {
    struct batch *b;
    const struct ingest_opts *o;
};

/* darshan-dxt-parser text: a trace alone, joined to its job by key. */
static void parse_trace(const struct parse_ctx *c, struct item *it)
{
    struct dxt_trace *t = NULL;
    FILE *fp = fmemopen(it->data, it->len, "r");
    enum status rc = fp != NULL
                         ? ingest_dxt_parse(fp, it->path, &t, &it->ferr)
                         : error_set(&it->ferr, STATUS_NOMEM, "reading %s", it->path);

    if (fp != NULL)
        fclose(fp);
    if (rc == STATUS_OK)
        rc = trace_rows_make(t, c->o->fs_map, &it->trace, &it->ferr);
    if (rc == STATUS_OK) {
        it->state = ITEM_PARSED;
        it->has_trace = true;
        snprintf(it->jobid, sizeof it->jobid, "%s", t->jobid);
    } else {
        it->state = ITEM_BAD;
        it->nomem = rc == STATUS_NOMEM;
    }
    dxt_trace_free(t);
}

/* A job that starts or ends more than a day after its log was last written did not
 * happen yet: a forged or broken clock (a job dated 2100 once loaded), quarantined
 * naming the header line (0 for a binary log's job region). */
static enum status check_job_times(const struct darshan_log *log, const char *path,
                                   int64_t mtime_s, struct error *err)
{
    int64_t latest = mtime_s + INGEST_FUTURE_SLACK_S;

    if (log->start_time_s > latest) {
        return error_at(err, STATUS_PARSE, path, log->start_line,
                        "expected start_time at most a day after the file's "
                        "modification time (%" PRId64 "), got %" PRId64 "%s",
                        mtime_s, log->start_time_s,
                        log->start_line == 0 ? " in the job region" : "");
    }
    if (log->end_time_s > latest) {
        return error_at(err, STATUS_PARSE, path, log->end_line,
                        "expected end_time at most a day after the file's "
                        "modification time (%" PRId64 "), got %" PRId64 "%s",
                        mtime_s, log->end_time_s,
                        log->end_line == 0 ? " in the job region" : "");
    }
    return STATUS_OK;
}

/* Thread work: parse item i and make its rows; the text is freed. */
static void parse_one(void *arg, size_t i)
{
    const struct parse_ctx *c = arg;
    struct item *it = &c->b->items[i];
    struct darshan_log *log = NULL;
    enum status rc;

    if (it->state != ITEM_READ)
        return;
    const unsigned char *bytes = (const unsigned char *)it->data;
    bool binary = ingest_darshan_is_binary(bytes, it->len);

    if (it->len == 0) {
        it->state = ITEM_EMPTY;
    } else if (!binary && is_dxt_text(it->plain_name, it->data)) {
        parse_trace(c, it);
    } else {
        if (binary) {
            rc = ingest_darshan_read_max(bytes, it->len, it->path, c->b->max,
                                         c->o->max_job_records, &log, &it->ferr);
        } else {
            FILE *fp = fmemopen(it->data, it->len, "r");
            rc = fp != NULL ? ingest_darshan_parse_max(
                                  fp, it->path, c->o->max_job_records, &log, &it->ferr)
                            : error_set(&it->ferr, STATUS_NOMEM, "reading %s", it->path);
            if (fp != NULL)
                fclose(fp);
        }
        if (rc == STATUS_OK && log != NULL && it->have_st)
            rc = check_job_times(log, it->path, (int64_t)it->st.st_mtime, &it->ferr);
        if (rc == STATUS_OK)
            rc = ingest_job_metrics(log, c->o->fs_map, &it->m, &it->ferr);
        if (rc == STATUS_OK) {
            rc = job_rows(it->shown, log, &it->m, &it->job, &it->windows, &it->text,
                          &it->ferr);
        }
        if (rc == STATUS_OK && log != NULL && log->dxt != NULL) {
            rc = trace_rows_make(log->dxt, c->o->fs_map, &it->trace, &it->ferr);
            it->has_trace = rc == STATUS_OK;
        }
        if (rc == STATUS_OK && log != NULL) {
            it->state = ITEM_PARSED;
            it->has_job = true;
            it->negative_time = log->negative_time;
            snprintf(it->jobid, sizeof it->jobid, "%s", log->jobid);
        } else {
            it->state = ITEM_BAD;
            it->nomem = rc == STATUS_NOMEM;
        }
        darshan_log_free(log);
    }
    free(it->data);
    it->data = NULL;
}

/* Which contents are loaded or known bad, in one round trip; a content that comes
 * twice in the batch is seen the second time, as it would be one by one. */
static enum status check_contents(struct db *db, struct batch *b, const char *verdict,
                                  bool reprocess, struct error *err)
{
    const char **hashes = malloc((b->n + 1) * sizeof *hashes);
    size_t *at = malloc((b->n + 1) * sizeof *at);
    bool *seen = malloc((b->n + 1) * sizeof *seen);
    bool *bad = malloc((b->n + 1) * sizeof *bad);
    size_t k = 0;
    enum status rc = STATUS_OK;

    if (hashes == NULL || at == NULL || seen == NULL || bad == NULL) {
        free(hashes);
        free(at);
        free(seen);
        free(bad);
        return error_set(err, STATUS_NOMEM, "batch");
    }
    for (size_t i = 0; i < b->n; i++) {
        struct item *it = &b->items[i];
        if (it->state != ITEM_READ && it->state != ITEM_TOO_LARGE)
            continue;
        /* Too large ones match by their stand-in hash (size and mtime), as in order. */
        for (size_t j = 0; j < i && it->state != ITEM_DUP; j++) {
            if (b->items[j].state == it->state &&
                strcmp(b->items[j].hash, it->hash) == 0) {
                it->state = ITEM_DUP;
                it->dup_of = j + 1;
            }
        }
        if (it->state != ITEM_DUP) {
            hashes[k] = it->hash;
            at[k++] = i;
        }
    }
    rc = db_files_check(db, hashes, k, verdict, seen, bad, err);
    for (size_t j = 0; rc == STATUS_OK && j < k; j++) {
        struct item *it = &b->items[at[j]];
        if (seen[j] && reprocess && it->state == ITEM_READ) {
            it->again = true;
        } else if (seen[j]) {
            it->state = ITEM_SEEN;
        } else if (bad[j]) {
            it->state = ITEM_KNOWN_BAD;
        }
    }
    free(hashes);
    free(at);
    free(seen);
    free(bad);
    return rc;
}

/* A log its parse ran out of memory on is quarantined, not the batch stopped: the
 * memory a log takes is bounded by its bytes (max_file_bytes) and records
 * ([ingest] max_job_records), so a log that still finds none is one no rerun reads
 * either, and stopping there kept every good log after it out, night after night. */
static void say_nomem(struct error *e)
{
    char msg[sizeof e->msg];

    snprintf(msg, sizeof msg, "out of memory: needs more than it could get (%.110s)",
             e->msg);
    memcpy(e->msg, msg, sizeof e->msg);
    e->code = STATUS_PARSE;
}

/* The outcome of every item that is not a job to send, in order; the ones to send
 * are listed in send[0..*n_send). */
static enum status record_outcomes(struct db *db, struct batch *b, const char *verdict,
                                   struct ingest_summary *s, size_t *send, size_t *n_send,
                                   struct error *err)
{
    enum status rc = STATUS_OK;

    *n_send = 0;
    for (size_t i = 0; rc == STATUS_OK && i < b->n; i++) {
        struct item *it = &b->items[i];
        switch (it->state) {
        case ITEM_MISSING:
            s->missing++;
            add_failure(s, it->shown, 0, it->ferr.msg);
            log_error("%s: %s", it->path, it->ferr.msg);
            break;
        case ITEM_SEEN:
            s->unchanged++;
            log_debug("%s: already loaded", it->path);
            break;
        case ITEM_DUP:
            /* As one file at a time: after the earlier file's outcome. */
            switch (b->items[it->dup_of - 1].state) {
            case ITEM_EMPTY:
            case ITEM_BAD:
            case ITEM_KNOWN_BAD:
            case ITEM_TOO_LARGE: still_quarantined(s, it->shown); break;
            default:
                s->unchanged++;
                log_debug("%s: already loaded", it->path);
                break;
            }
            break;
        case ITEM_KNOWN_BAD: still_quarantined(s, it->shown); break;
        case ITEM_EMPTY:
            error_set(&it->ferr, STATUS_PARSE, "empty file");
            rc =
                quarantine(db, s, it->path, it->shown, it->hash, verdict, &it->ferr, err);
            break;
        case ITEM_TOO_LARGE:
            rc =
                quarantine(db, s, it->path, it->shown, it->hash, verdict, &it->ferr, err);
            break;
        case ITEM_BAD:
            if (it->nomem)
                say_nomem(&it->ferr);
            if (it->again) {
                reread_failed(s, it->path, it->shown, &it->ferr);
            } else {
                rc = quarantine(db, s, it->path, it->shown, it->hash, verdict, &it->ferr,
                                err);
            }
            break;
        case ITEM_PARSED:
            if (it->again) {
                s->reprocessed++;
                break; /* its trace goes in after the batch (fill_traces) */
            }
            if (!it->has_job) {
                log_debug("%s: the DXT trace of job %s (%s)", it->path, it->jobid,
                          it->trace.job_key);
            }
            if (it->negative_time) {
                log_warn("%s: job %s has a negative time counter (negative_time): "
                         "taken as absent",
                         it->path, it->jobid);
            }
            if (it->has_job && it->text.incomplete_modules != NULL) {
                log_warn("%s: job %s: darshan marks module(s) %s incomplete: loaded "
                         "with the rest%s",
                         it->path, it->jobid, it->text.incomplete_modules,
                         it->job.incomplete_log
                             ? "; analyses that need them exclude it (incomplete_log)"
                             : "");
            }
            send[(*n_send)++] = i;
            break;
        case ITEM_READ:
        case ITEM_DEFERRED: break; /* cut off before (cut_deferred) */
        }
    }
    return rc;
}

static struct db_job_batch_item batch_item(const struct item *it)
{
    return (struct db_job_batch_item){.path = it->shown,
                                      .content_hash = it->hash,
                                      .job = it->has_job ? &it->job : NULL,
                                      .trace = it->has_trace ? &it->trace.in : NULL};
}

/* The batch the database refused, file by file: the file to blame is quarantined
 * (bad data) or named where the batch stops. */
static enum status send_one_by_one(struct db *db, int64_t run_id, struct batch *b,
                                   const size_t *send, size_t n_send, const char *verdict,
                                   struct ingest_summary *s, struct error *err)
{
    enum status rc = STATUS_OK;

    for (size_t k = 0; rc == STATUS_OK && k < n_send; k++) {
        struct item *it = &b->items[send[k]];
        struct error dberr = {0};
        bool inserted = false;
        const struct db_job_batch_item one = batch_item(it);

        rc = db_jobs_load_batch(db, run_id, &one, 1, &inserted, &dberr);
        if (rc == STATUS_OK) {
            s->loaded++;
            s->jobs += inserted ? 1 : 0;
        } else if (rc == STATUS_DB) {
            rc = load_failed(db, s, it->path, it->shown, it->hash, verdict, &dberr, err);
        } else {
            *err = dberr;
        }
    }
    return rc;
}

/* A failure after which the connection cannot be trusted: nothing more is tried. */
static bool connection_lost(const struct error *e)
{
    return e->code == STATUS_DB &&
           (e->sqlstate[0] == '\0' || strncmp(e->sqlstate, "08", 2) == 0 ||
            strncmp(e->sqlstate, "57", 2) == 0);
}

static enum status send_batch(struct db *db, int64_t run_id, struct batch *b,
                              const size_t *send, size_t n_send, const char *verdict,
                              struct ingest_summary *s, struct error *err)
{
    struct db_job_batch_item *items = malloc((n_send + 1) * sizeof *items);
    bool *inserted = malloc((n_send + 1) * sizeof *inserted);
    struct error dberr = {0};
    enum status rc = STATUS_OK;

    if (items == NULL || inserted == NULL) {
        free(items);
        free(inserted);
        return error_set(err, STATUS_NOMEM, "batch");
    }
    for (size_t k = 0; k < n_send; k++) {
        const struct item *it = &b->items[send[k]];
        items[k] = batch_item(it);
    }
    if (n_send > 0) {
        rc = db_jobs_load_batch(db, run_id, items, n_send, inserted, &dberr);
        if (rc == STATUS_OK) {
            s->loaded += (long)n_send;
            for (size_t k = 0; k < n_send; k++)
                s->jobs += inserted[k] ? 1 : 0;
        } else if (rc == STATUS_DB && connection_lost(&dberr)) {
            *err = dberr;
            rc = stop_batch(b->items[send[0]].path, err);
            if (n_send > 1) {
                snprintf(err->file, sizeof err->file, "a batch of %zu files, %s to %s",
                         n_send, b->items[send[0]].shown,
                         b->items[send[n_send - 1]].shown);
            }
        } else if (rc == STATUS_DB) {
            log_info("a batch of %zu files was refused (%s): loading them one by one",
                     n_send, dberr.msg);
            rc = send_one_by_one(db, run_id, b, send, n_send, verdict, s, err);
        } else {
            *err = dberr;
        }
    }
    free(items);
    free(inserted);
    return rc;
}

/* --reprocess: the traces of the batch's logs loaded before, where their jobs have
 * none yet; and their jobs' file-system mapping as [filesystems] says now, where it
 * changed since they were loaded. */
static enum status fill_traces(struct db *db, struct batch *b, struct ingest_summary *s,
                               struct error *err)
{
    struct db_job_batch_item *items = malloc((b->n + 1) * sizeof *items);
    size_t n = 0;
    long long added = 0;
    long remapped = 0;
    struct error dberr = {0};
    enum status rc;

    if (items == NULL)
        return error_set(err, STATUS_NOMEM, "batch");
    for (size_t i = 0; i < b->n; i++) {
        const struct item *it = &b->items[i];
        if (it->again && it->state == ITEM_PARSED && (it->has_trace || it->has_job))
            items[n++] = batch_item(it);
    }
    rc = db_traces_fill(db, items, n, &added, &remapped, &dberr);
    free(items);
    if (rc != STATUS_OK) {
        *err = dberr;
        return stop_batch(b->items[0].path, err);
    }
    s->filled += added;
    s->remapped += remapped;
    if (added > 0)
        log_info("%lld DXT traces of logs loaded before were added", added);
    return STATUS_OK;
}

/* Fills b with the files from paths[*next] on, up to a batch's count or bytes. */
static enum status batch_fill(struct batch *b, char *const *paths, size_t n, size_t *next,
                              struct error *err)
{
    size_t bytes = 0;

    b->n = 0;
    while (*next < n && b->n < b->size && (b->n == 0 || bytes < BATCH_BYTES)) {
        struct item *it = &b->items[b->n];
        it->path = paths[*next];
        it->shown = str_escape_dup(it->path);
        source_plain_name(it->path, it->plain_name, sizeof it->plain_name);
        if (it->shown == NULL)
            return error_set(err, STATUS_NOMEM, "reading %s", it->path);
        it->have_st = stat(it->path, &it->st) == 0;
        if (it->have_st && (uintmax_t)it->st.st_size <= b->max) {
            size_t size = (size_t)it->st.st_size;
            /* Compressed (by its name; the magic is read later): the batch holds its
             * text decompressed, counted COMPRESSED_RATIO times, at most the cap. */
            if (strcmp(it->plain_name, it->path) != 0) {
                size =
                    size > b->max / COMPRESSED_RATIO ? b->max : size * COMPRESSED_RATIO;
            }
            bytes += size;
        }
        b->n++;
        (*next)++;
    }
    return STATUS_OK;
}

enum status ingest_darshan_files(struct db *db, int64_t run_id, char *const *paths,
                                 size_t n, const struct ingest_opts *o,
                                 struct ingest_summary *s, struct error *err)
{
    size_t max =
        o->max_file_bytes > 0 ? o->max_file_bytes : INGEST_DEFAULT_MAX_FILE_BYTES;
    unsigned jobs = o->jobs > 0 ? o->jobs : processors_online();
    size_t size = o->batch_files > 0 ? o->batch_files : INGEST_DEFAULT_BATCH_FILES;
    struct batch b = {.items = calloc(size, sizeof *b.items), .max = max, .size = size};
    size_t *send = malloc(size * sizeof *send);
    struct parse_ctx pc = {.b = &b, .o = o};
    char verdict[1024];
    size_t next = 0, done = 0;
    enum status rc = STATUS_OK;

    if (b.items == NULL || send == NULL) {
        free(b.items);
        free(send);
        return error_set(err, STATUS_NOMEM, "batch");
    }
    verdict_of(INPUT_DARSHAN, o, max, verdict, sizeof verdict);
    while (rc == STATUS_OK && next < n) {
        size_t n_send = 0;
        rc = batch_fill(&b, paths, n, &next, err);
        if (rc == STATUS_OK) {
            atomic_store(&b.inflated, 0);
            parallel_for(b.n, jobs, read_one, &b);
            cut_deferred(&b, &next);
            rc = check_contents(db, &b, verdict, o->reprocess, err);
            if (rc != STATUS_OK)
                rc = stop_batch(b.items[0].path, err);
        }
        if (rc == STATUS_OK) {
            parallel_for(b.n, jobs, parse_one, &pc);
            rc = record_outcomes(db, &b, verdict, s, send, &n_send, err);
        }
        if (rc == STATUS_OK)
            rc = send_batch(db, run_id, &b, send, n_send, verdict, s, err);
        if (rc == STATUS_OK && o->reprocess)
            rc = fill_traces(db, &b, s, err);
        for (size_t i = 0; i < b.n; i++) {
            if (rc == STATUS_OK && o->progress != NULL) {
                const char *slash = strrchr(b.items[i].path, '/');
                o->progress->fn(o->progress->arg, ++done, n,
                                slash != NULL ? slash + 1 : b.items[i].path);
            }
            item_clear(&b.items[i]);
        }
    }
    free(b.items);
    free(send);
    return rc;
}
