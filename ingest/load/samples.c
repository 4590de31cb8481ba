/* samples.c: sample files into the database: read (decompressed when they come
 * gzip'd, bzip2'd or xz'd) and parsed on threads, sa files through sadf, checked and
 * loaded one file at a time in path order, a grown file from where its ledger row
 * says the last ingest stopped. */
#include "../internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The rows db_samples_load writes for d, on the server --server names, else the
 * file's host: *in borrows from d, from *rows and from *text, which are new (caller
 * frees rows, and text's n_rows + 1 entries: the server, then each device's name
 * escaped when it needs escaping, NULL otherwise). No server at all is STATUS_PARSE,
 * a fault of the file. */
static enum status sample_rows(const char *path, const struct ingest_opts *o,
                               const struct iostat_data *d, struct db_samples_in *in,
                               struct db_sample **rows, char ***text, struct error *err)
{
    const char *server = o->server != NULL && o->server[0] != '\0' ? o->server : d->host;
    struct db_sample *s = NULL;
    char **t;

    *rows = NULL;
    *text = NULL;
    if (server[0] == '\0') {
        return error_at(err, STATUS_PARSE, path, 0,
                        "expected a host name in the file, or --server HOST");
    }
    t = calloc(d->n + 1, sizeof *t);
    if (t == NULL)
        return error_set(err, STATUS_NOMEM, "samples of %s", path);
    *text = t;
    t[0] = str_escape_dup(server);
    if (t[0] == NULL)
        return error_set(err, STATUS_NOMEM, "samples of %s", path);
    if (d->n > 0) {
        s = calloc(d->n, sizeof *s);
        if (s == NULL)
            return error_set(err, STATUS_NOMEM, "samples of %s", path);
    }
    *rows = s;
    for (size_t i = 0; i < d->n; i++) {
        const struct iostat_sample *is = &d->samples[i];
        const char *device = is->device;
        if (str_escape(device, NULL, 0) != strlen(device)) {
            t[i + 1] = str_escape_dup(device);
            if (t[i + 1] == NULL)
                return error_set(err, STATUS_NOMEM, "samples of %s", path);
            device = t[i + 1];
        }
        s[i] = (struct db_sample){.device = device,
                                  .stamp_s = is->stamp_s,
                                  .r_bps = is->r_bps,
                                  .w_bps = is->w_bps,
                                  .ro_ps = is->ro_ps,
                                  .wo_ps = is->wo_ps,
                                  .ops_total_ps = is->ops_total_ps,
                                  .aqu_sz = is->aqu_sz,
                                  .util_pct = is->util_pct,
                                  .r_await_ms = is->r_await_ms,
                                  .w_await_ms = is->w_await_ms,
                                  .await_ms = is->await_ms};
    }
    *in = (struct db_samples_in){.fs = o->fs,
                                 .server = t[0],
                                 .interval_s = d->interval_s,
                                 .samples = s,
                                 .n = d->n};
    return STATUS_OK;
}

static void text_free(char **text, size_t n)
{
    for (size_t i = 0; text != NULL && i < n; i++)
        free(text[i]);
    free(text);
}

/* States of the content hash every HASH_MARK_BYTES, so that the hash of any prefix
 * costs at most that much more hashing: a sample file's ledger checks and records
 * the hash of the part loaded, most often all but its last bytes. */
#define HASH_MARK_BYTES ((size_t)1 << 20)

struct hash_marks {
    struct hash128 *at; /* at[k]: the state after k * HASH_MARK_BYTES bytes */
    size_t n;
};

/* content_hash of data, keeping marks (m->at NULL when out of memory: then a prefix
 * is hashed from the start). */
static void content_hash_marked(const char *data, size_t len, char hash[33],
                                struct hash_marks *m)
{
    struct hash128 h;

    m->n = len / HASH_MARK_BYTES + 1;
    m->at = malloc(m->n * sizeof *m->at);
    hash128_init(&h);
    for (size_t k = 0; k < m->n; k++) {
        size_t from = k * HASH_MARK_BYTES;
        if (m->at != NULL)
            m->at[k] = h;
        hash128_update(&h, data + from,
                       len - from < HASH_MARK_BYTES ? len - from : HASH_MARK_BYTES);
    }
    hash128_hex(&h, hash);
}

/* content_hash of data's first len bytes, from the marks. */
static void prefix_hash(const char *data, size_t len, const struct hash_marks *m,
                        char hash[33])
{
    size_t k = len / HASH_MARK_BYTES;
    struct hash128 h;

    if (m->at == NULL || k >= m->n) {
        content_hash(data, len, hash);
        return;
    }
    h = m->at[k];
    hash128_update(&h, data + k * HASH_MARK_BYTES, len - k * HASH_MARK_BYTES);
    hash128_hex(&h, hash);
}

#define DAY_S 86400

/* Nobody writes a file unchanged for a day: its cut tail will not complete. */
static bool unchanged_for_a_day(const struct stat *st, int64_t now_s)
{
    return now_s - (int64_t)st->st_mtime > DAY_S;
}

/* Where a sample file that grew continues (the ledger of loaded sample files). */
struct grow {
    bool have;                   /* row matches the file: parse from offset */
    struct db_sample_ledger row; /* the path's ledger row */
    struct iostat_resume from;   /* row, as the parser takes it */
};

/* Whether the ledger row of the file at shown lets this ingest continue where the
 * last one stopped: the same file (device and inode: not one rotated or replaced
 * under that name), parsed under the same settings, whose first length bytes are
 * unchanged (not rewritten). Otherwise g->have is false and the file is new. */
static enum status ledger_match(struct db *db, const char *shown, const struct stat *st,
                                const char *data, size_t len, const struct hash_marks *m,
                                const char *verdict, struct grow *g, struct error *err)
{
    struct db_sample_ledger *row = &g->row;
    struct iostat_resume *from = &g->from;
    char file_id[64], hash[33];
    bool found = false;
    enum status rc = db_sample_ledger_get(db, shown, row, &found, err);

    if (rc != STATUS_OK || !found)
        return rc;
    snprintf(file_id, sizeof file_id, "%ju:%ju", (uintmax_t)st->st_dev,
             (uintmax_t)st->st_ino);
    if (strcmp(file_id, row->file_id) != 0 || strcmp(verdict, row->verdict) != 0 ||
        row->length <= 0 || (uintmax_t)row->length > len) {
        log_info("%s: not the file loaded before under this name: loaded as new", shown);
        return STATUS_OK;
    }
    prefix_hash(data, (size_t)row->length, m, hash);
    if (strcmp(hash, row->prefix_hash) != 0) {
        log_info("%s: rewritten since it was loaded: loaded as new", shown);
        return STATUS_OK;
    }
    memset(from, 0, sizeof *from);
    g->have = true;
    if (strcmp(row->format, "sa") == 0) {
        /* sadf reads an sa file whole: the records after the last one loaded are new. */
        from->have_accepted = row->have_accepted;
        from->accepted_stamp_s = row->accepted_stamp_s;
        return STATUS_OK;
    }
    from->format =
        strcmp(row->format, "sadf") == 0 ? IOSTAT_FORMAT_SADF : IOSTAT_FORMAT_TEXT;
    memcpy(from->host, row->host, sizeof from->host);
    from->have_accepted = row->have_accepted;
    from->accepted_stamp_s = row->accepted_stamp_s;
    from->gap_s = row->gap_s;
    from->interval_s = row->interval_s;
    from->stream_reports = (size_t)row->stream_reports;
    memcpy(from->header, row->header, sizeof from->header);
    from->resync = row->resync;
    from->lines = (long)row->lines;
    return STATUS_OK;
}

/* The ledger row after a parse of data (len bytes, whose content hash is hash, m its
 * marks) from off gave d; false when it stays as it is (or the file has none: JSON, or
 * nothing known complete yet). */
static bool next_ledger(const struct iostat_data *d, const struct grow *g, size_t off,
                        const char *data, size_t len, const char *hash,
                        const struct hash_marks *m, const char *verdict,
                        const struct stat *st, struct db_sample_ledger *l)
{
    const struct iostat_resume *r = &d->resume;
    bool cut_pending = d->n_reports_cut > 0;

    if (r->format != IOSTAT_FORMAT_TEXT && r->format != IOSTAT_FORMAT_SADF)
        return false;
    if (d->complete_bytes == 0) {
        if (!g->have || g->row.cut_pending == cut_pending)
            return false;
        *l = g->row;
        l->cut_pending = cut_pending;
        return true;
    }
    memset(l, 0, sizeof *l);
    snprintf(l->file_id, sizeof l->file_id, "%ju:%ju", (uintmax_t)st->st_dev,
             (uintmax_t)st->st_ino);
    l->length = (int64_t)(off + d->complete_bytes);
    if (off + d->complete_bytes == len) {
        snprintf(l->prefix_hash, sizeof l->prefix_hash, "%s", hash);
    } else {
        prefix_hash(data, off + d->complete_bytes, m, l->prefix_hash);
    }
    l->lines = r->lines;
    snprintf(l->verdict, sizeof l->verdict, "%s", verdict);
    snprintf(l->format, sizeof l->format, "%s",
             r->format == IOSTAT_FORMAT_SADF ? "sadf" : "iostat");
    memcpy(l->host, r->host, sizeof l->host);
    l->have_accepted = r->have_accepted;
    l->accepted_stamp_s = r->accepted_stamp_s;
    l->gap_s = r->gap_s;
    l->interval_s = d->interval_s > 0 ? d->interval_s : r->interval_s;
    l->stream_reports = (int64_t)r->stream_reports;
    memcpy(l->header, r->header, sizeof l->header);
    l->resync = r->resync;
    l->cut_pending = cut_pending;
    return true;
}

/* The ledger row of an sa file (len bytes, whose content hash is hash) after its
 * parse gave d: the whole file is loaded, through its last record (or the one the
 * row held before, g, when nothing came after it). */
static void sa_ledger(const struct iostat_data *d, const struct grow *g, size_t len,
                      const char *hash, const char *verdict, const struct stat *st,
                      struct db_sample_ledger *l)
{
    memset(l, 0, sizeof *l);
    snprintf(l->file_id, sizeof l->file_id, "%ju:%ju", (uintmax_t)st->st_dev,
             (uintmax_t)st->st_ino);
    l->length = (int64_t)len;
    snprintf(l->prefix_hash, sizeof l->prefix_hash, "%s", hash);
    snprintf(l->verdict, sizeof l->verdict, "%s", verdict);
    snprintf(l->format, sizeof l->format, "sa");
    memcpy(l->host, d->host, sizeof l->host);
    l->interval_s = d->interval_s;
    if (g->have && g->from.have_accepted) {
        l->have_accepted = true;
        l->accepted_stamp_s = g->from.accepted_stamp_s;
    }
    for (size_t i = 0; i < d->n; i++) {
        if (!l->have_accepted || d->samples[i].stamp_s > l->accepted_stamp_s) {
            l->have_accepted = true;
            l->accepted_stamp_s = d->samples[i].stamp_s;
        }
    }
}

/* ---- sample files: read and parse on threads, check and load in order ---------- */

/* A chunk of sample files in flight: at most this many, or this many bytes read at
 * once. Not a number per thread: what a chunk decides before its loads (a later
 * file's quarantine, when an earlier file's load stops the run) is then the same
 * for any number of threads. */
#define SAMPLE_CHUNK_FILES 4
#define SAMPLE_CHUNK_BYTES ((size_t)128 << 20)

enum sfile_next {
    SF_DONE,   /* its outcome is recorded */
    SF_PARSE,  /* to parse from grow (or its start), then load */
    SF_LOADED, /* parsed: to load */
    SF_DUP     /* the content of an earlier file of the chunk: its outcome decides */
};

/* One sample file through the phases of load_sample_files. Its log lines are
 * captured and written when its turn comes, so that every file's lines stay
 * together and in path order whatever thread made them. */
struct sfile {
    const char *path;
    char *shown;
    char *data;
    size_t len;
    struct stat st;
    struct error ferr;       /* missing, too large, corrupt, or the parser's verdict */
    enum source_codec codec; /* as stored: a compressed file has no ledger */
    bool sa;                 /* sysstat's binary sa file: through sadf */
    struct hash_marks marks;
    struct grow grow;
    struct log_capture log;
    /* the parse */
    struct iostat_data *d;
    struct db_sample_ledger ledger;
    struct db_samples_in in;
    struct db_sample *rows;
    char **text;
    enum sfile_next next;
    enum status parse_rc;
    size_t dup_of; /* SF_DUP: 1 + the index of the earlier file */
    char hash[33];
    bool have_st, too_large, corrupt, missing, moved;
    bool not_yet;  /* parse_rc STATUS_NOT_FOUND: not the file's fault (no sadf) */
    bool bad;      /* quarantined, now or before (known bad) */
    bool recorded; /* its content is in loaded_files or the quarantine */
    bool refill;   /* --reprocess of a content loaded before: fill, do not load */
    bool alone;    /* checked by itself, not as a copy (its earlier file recorded
                      nothing) */
};

static void sfile_clear(struct sfile *f)
{
    free(f->shown);
    free(f->data);
    free(f->marks.at);
    free(f->rows);
    text_free(f->text, f->d != NULL ? f->d->n + 1 : 0);
    iostat_data_free(f->d);
    log_capture_flush(&f->log);
    memset(f, 0, sizeof *f);
}

struct sfile_chunk {
    struct sfile *files;
    size_t n;
    size_t max; /* the size cap of one input */
    const struct ingest_opts *o;
    const char *verdict;
};

/* Thread work: read and hash file i. */
static void sfile_read(void *arg, size_t i)
{
    struct sfile_chunk *c = arg;
    struct sfile *f = &c->files[i];
    struct source src = {0};

    if (!f->have_st || (uintmax_t)f->st.st_size <= c->max) {
        enum status rc = source_read(f->path, c->max, &src, &f->ferr);
        if (rc == STATUS_PARSE && src.corrupt) {
            f->corrupt = true;
            memcpy(f->hash, src.raw_hash, sizeof f->hash);
            return;
        }
        if (rc != STATUS_OK) {
            f->missing = true;
            return;
        }
    }
    f->codec = src.codec;
    if (src.data == NULL) {
        f->too_large = true;
        size_hash(&f->st, f->hash);
        source_too_large(&f->st, f->have_st, src.codec, c->max, &f->ferr);
        return;
    }
    f->data = src.data;
    f->len = src.len;
    f->sa = sa_is_file((const unsigned char *)f->data, f->len);
    content_hash_marked(f->data, f->len, f->hash, &f->marks);
}

/* 1 + the index of the first earlier file of the chunk with file i's content, 0 when
 * none: its outcome decides file i's, as it would one file at a time. */
static size_t dup_in_chunk(const struct sfile_chunk *c, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (c->files[j].data != NULL && strcmp(c->files[j].hash, c->files[i].hash) == 0)
            return j + 1;
    }
    return 0;
}

/* In order, on the caller's thread: what becomes of file i before parsing (missing,
 * seen, known bad, too large or empty: recorded; or to parse, from where). A database
 * failure that is not the file's stops the batch. */
static enum status sfile_check(struct db *db, struct sfile_chunk *c, size_t i,
                               struct ingest_summary *s, struct error *err)
{
    struct sfile *f = &c->files[i];
    struct error dberr = {0};
    bool seen = false, known_bad = false;
    enum status rc;

    f->next = SF_DONE;
    if (f->missing) {
        s->missing++;
        add_failure(s, f->shown, 0, f->ferr.msg);
        log_error("%s: %s", f->path, f->ferr.msg);
        return STATUS_OK;
    }
    if (f->data != NULL && !f->alone && (f->dup_of = dup_in_chunk(c, i)) > 0) {
        f->next = SF_DUP;
        return STATUS_OK;
    }
    rc = db_file_seen(db, f->hash, &seen, &dberr);
    /* A sample file seen whole is looked at again only when a cut report was left
     * in it and it has not changed for a day: that report is then set aside. */
    /* --reprocess reads every file whole: the ledger's part too */
    if (rc == STATUS_OK && f->data != NULL && f->have_st && f->codec == SOURCE_PLAIN &&
        !c->o->reprocess && (!seen || unchanged_for_a_day(&f->st, (int64_t)time(NULL)))) {
        rc = ledger_match(db, f->shown, &f->st, f->data, f->len, &f->marks, c->verdict,
                          &f->grow, &dberr);
    }
    if (rc == STATUS_OK && seen && f->grow.have && f->grow.row.cut_pending)
        seen = false;
    if (rc == STATUS_OK && !seen)
        rc = db_quarantine_known(db, f->hash, c->verdict, &known_bad, &dberr);
    if (rc != STATUS_OK) {
        *err = dberr;
        return stop_batch(f->path, err);
    }
    if (seen && c->o->reprocess && f->data != NULL && f->len > 0) {
        f->refill = f->recorded = true;
        f->next = SF_PARSE;
        return STATUS_OK;
    }
    if (seen) {
        s->unchanged++;
        f->recorded = true;
        log_debug("%s: already loaded", f->path);
        return STATUS_OK;
    }
    if (known_bad) {
        /* Its content and what shaped the verdict are those of its quarantine. */
        still_quarantined(s, f->shown);
        f->bad = f->recorded = true;
        return STATUS_OK;
    }
    if (f->too_large || f->corrupt || f->len == 0) {
        if (!f->too_large && !f->corrupt)
            error_set(&f->ferr, STATUS_PARSE, "empty file");
        f->bad = f->recorded = true;
        return quarantine(db, s, f->path, f->shown, f->hash, c->verdict, &f->ferr, err);
    }
    if (f->grow.have && (size_t)f->grow.row.length == f->len) {
        s->unchanged++;
        log_info("%s: nothing after the part loaded before", f->path);
        return STATUS_OK;
    }
    f->next = SF_PARSE;
    return STATUS_OK;
}

/* An sa file through sadf: its disk activity as sadf -j prints it, parsed as such;
 * after a ledger row (the file grew) only the records after the last one loaded. */
static void sa_parse(const struct sfile_chunk *c, struct sfile *f)
{
    const struct grow *g = &f->grow;
    char *json = NULL;
    size_t json_len = 0;

    f->parse_rc =
        sa_to_json(f->data, f->len, f->path, c->max, &json, &json_len, &f->ferr);
    if (f->parse_rc == STATUS_OK) {
        const struct iostat_parse_opts po = {.device_include = c->o->device_include,
                                             .device_names = c->o->device_names,
                                             .mtime_s = (int64_t)f->st.st_mtime};
        f->parse_rc = sa_samples_after(
            json, json_len, f->path, &po,
            g->have && g->from.have_accepted ? &g->from.accepted_stamp_s : NULL, &f->d,
            &f->ferr);
    }
    free(json);
    f->not_yet = f->parse_rc == STATUS_NOT_FOUND;
    /* A grown sa file may hold no record after the last loaded one yet. */
    if (f->parse_rc == STATUS_PARSE && g->have &&
        strstr(f->ferr.msg, "no samples") != NULL) {
        error_clear(&f->ferr);
        f->parse_rc = STATUS_OK;
        f->d = calloc(1, sizeof *f->d);
        if (f->d == NULL)
            f->parse_rc = error_set(&f->ferr, STATUS_NOMEM, "samples of %s", f->path);
    }
    if (f->parse_rc == STATUS_OK && f->codec == SOURCE_PLAIN) {
        sa_ledger(f->d, g, f->len, f->hash, c->verdict, &f->st, &f->ledger);
        f->moved = true;
    }
}

/* Thread work: parse file i from where its ledger says, and make its rows. */
static void sfile_parse(void *arg, size_t i)
{
    struct sfile_chunk *c = arg;
    struct sfile *f = &c->files[i];
    size_t off = f->grow.have ? (size_t)f->grow.row.length : 0;
    FILE *fp;

    if (f->next != SF_PARSE)
        return;
    log_capture_to(&f->log);
    if (f->sa) {
        sa_parse(c, f);
    } else {
        fp = fmemopen(f->data + off, f->len - off, "r");
        struct iostat_parse_opts po = {.device_include = c->o->device_include,
                                       .device_names = c->o->device_names,
                                       .timezone = c->o->timezone,
                                       .mtime_s = (int64_t)f->st.st_mtime,
                                       .now_s = (int64_t)time(NULL)};
        f->parse_rc = fp != NULL
                          ? ingest_iostat_parse_from(fp, f->path, &po,
                                                     f->grow.have ? &f->grow.from : NULL,
                                                     &f->d, &f->ferr)
                          : error_set(&f->ferr, STATUS_NOMEM, "reading %s", f->path);
        if (fp != NULL)
            fclose(fp);
        f->moved = f->parse_rc == STATUS_OK && f->codec == SOURCE_PLAIN &&
                   next_ledger(f->d, &f->grow, off, f->data, f->len, f->hash, &f->marks,
                               c->verdict, &f->st, &f->ledger);
    }
    if (f->parse_rc == STATUS_OK) {
        /* Only a cut report, still being written: it waits (no rows). */
        if (f->d->n > 0 || (f->moved && f->grow.have)) {
            f->parse_rc =
                sample_rows(f->path, c->o, f->d, &f->in, &f->rows, &f->text, &f->ferr);
        }
    }
    free(f->data);
    f->data = NULL;
    f->next = SF_LOADED;
    log_capture_to(NULL);
}

/* Says which stored samples a re-read could not match: they keep no queue columns. */
static void refill_left(const char *path, long long left)
{
    if (left > 0) {
        log_warn("%s: %lld stored samples in its span found no sample of it at their "
                 "stamp or a second off with the same rates: they stay without queue "
                 "columns",
                 path, left);
    }
}

/* --reprocess of a file loaded before: its samples' queue columns where the stored
 * ones have none. A parse that fails now (a newer parser is stricter) changes
 * nothing: the file stays loaded, and the failure is reported. */
static enum status sfile_refill(struct db *db, struct sfile *f, struct ingest_summary *s,
                                struct error *err)
{
    struct error dberr = {0};
    long long filled = 0, left = 0;
    enum status rc;

    if (f->parse_rc != STATUS_OK) {
        reread_failed(s, f->path, f->shown, &f->ferr);
        return STATUS_OK;
    }
    s->reprocessed++;
    rc = f->d->n > 0 ? db_samples_refill(db, &f->in, &filled, &left, &dberr) : STATUS_OK;
    if (rc != STATUS_OK) {
        *err = dberr;
        return stop_batch(f->path, err);
    }
    s->filled += filled;
    log_info("%s: loaded before, read again: %lld of its %zu samples gained queue "
             "columns",
             f->path, filled, f->d->n);
    refill_left(f->path, left);
    return STATUS_OK;
}

/* In order, on the caller's thread: loads what file i's parse gave, or quarantines
 * it, and counts it. */
static enum status sfile_load(struct db *db, int64_t run_id, struct sfile_chunk *c,
                              size_t i, struct ingest_summary *s, struct error *err)
{
    struct sfile *f = &c->files[i];
    const struct grow *g = &f->grow;
    struct error dberr = {0};
    long long inserted = 0, differing = 0;
    enum status rc;

    if (f->parse_rc == STATUS_NOMEM) {
        *err = f->ferr;
        return STATUS_NOMEM;
    }
    if (f->not_yet) {
        /* Not the file's fault (no sadf, or too old a one): nothing is recorded, and
         * the file is read again by the next ingest. */
        char msg[200];
        s->missing++;
        str_escape(f->ferr.msg, msg, sizeof msg);
        add_failure(s, f->shown, 0, msg);
        log_error("%s: %s", f->path, f->ferr.msg);
        return STATUS_OK;
    }
    if (f->refill)
        return sfile_refill(db, f, s, err);
    if (f->parse_rc != STATUS_OK) {
        f->bad = f->recorded = true;
        return quarantine(db, s, f->path, f->shown, f->hash, c->verdict, &f->ferr, err);
    }
    if (f->d->n == 0 && (!f->moved || !g->have)) {
        s->unchanged++;
        log_info("%s: no new complete report", f->path);
        return STATUS_OK;
    }
    rc = db_samples_load(db, run_id, f->shown, f->hash, &f->in,
                         f->moved ? &f->ledger : NULL, &inserted, &differing, &dberr);
    if (rc == STATUS_DB) {
        f->bad = f->recorded = true;
        return load_failed(db, s, f->path, f->shown, f->hash, c->verdict, &dberr, err);
    }
    if (rc != STATUS_OK) {
        *err = dberr;
        return rc;
    }
    f->recorded = true;
    /* --reprocess of a file that grew (read whole): its part loaded before, whose
     * rows the load left as they were, is filled too */
    if (c->o->reprocess && f->d->n > 0) {
        long long filled = 0, left = 0;
        rc = db_samples_refill(db, &f->in, &filled, &left, &dberr);
        if (rc != STATUS_OK) {
            *err = dberr;
            return stop_batch(f->path, err);
        }
        s->filled += filled;
        refill_left(f->path, left);
    }
    /* A continuation that added nothing (a report read again) is unchanged. */
    if (g->have && inserted == 0) {
        s->unchanged++;
    } else {
        s->loaded++;
    }
    s->samples += inserted;
    if (g->have && inserted > 0)
        log_info("%s: grew since it was loaded: %lld new samples", f->path, inserted);
    if (differing > 0) {
        log_warn("%s: %lld samples were loaded before with rates that differ by more "
                 "than 1%%; the first values stay",
                 f->path, differing);
    }
    return STATUS_OK;
}

/* File i has the content of an earlier file of the chunk, whose outcome is known:
 * counted as it would be one file at a time (known bad after a quarantine, seen
 * after a load). When the earlier file recorded nothing (it waits for a cut report,
 * or nothing followed its ledger), file i goes its own way, here and now. */
static enum status sfile_dup(struct db *db, int64_t run_id, struct sfile_chunk *c,
                             size_t i, struct ingest_summary *s, struct error *err)
{
    struct sfile *f = &c->files[i];
    const struct sfile *first = &c->files[f->dup_of - 1];

    if (first->bad) {
        still_quarantined(s, f->shown);
        return STATUS_OK;
    }
    if (first->recorded) {
        s->unchanged++;
        log_debug("%s: already loaded", f->path);
        return STATUS_OK;
    }
    f->alone = true;
    enum status rc = sfile_check(db, c, i, s, err);
    if (rc != STATUS_OK || f->next != SF_PARSE)
        return rc;
    sfile_parse(c, i);
    log_capture_to(&f->log);
    rc = sfile_load(db, run_id, c, i, s, err);
    log_capture_to(NULL);
    return rc;
}

/* Fills c with the files from paths[*next] on, up to a chunk's count or bytes. */
static enum status sfile_fill(struct sfile_chunk *c, size_t cap, char *const *paths,
                              size_t n, size_t *next, struct error *err)
{
    size_t bytes = 0;

    c->n = 0;
    while (*next < n && c->n < cap && (c->n == 0 || bytes < SAMPLE_CHUNK_BYTES)) {
        struct sfile *f = &c->files[c->n];
        f->path = paths[*next];
        f->shown = str_escape_dup(f->path);
        if (f->shown == NULL)
            return error_set(err, STATUS_NOMEM, "reading %s", f->path);
        f->have_st = stat(f->path, &f->st) == 0;
        if (!f->have_st) {
            memset(&f->st, 0, sizeof f->st);
        } else if ((uintmax_t)f->st.st_size <= c->max) {
            bytes += (size_t)f->st.st_size;
        }
        c->n++;
        (*next)++;
    }
    return STATUS_OK;
}

enum status ingest_sample_files(struct db *db, int64_t run_id, char *const *paths,
                                size_t n, const struct ingest_opts *o,
                                const char *verdict, struct ingest_summary *s,
                                struct error *err)
{
    unsigned jobs = o->jobs > 0 ? o->jobs : processors_online();
    size_t cap = SAMPLE_CHUNK_FILES;
    struct sfile_chunk c = {.files = calloc(cap, sizeof *c.files),
                            .max = o->max_file_bytes > 0 ? o->max_file_bytes
                                                         : INGEST_DEFAULT_MAX_FILE_BYTES,
                            .o = o,
                            .verdict = verdict};
    size_t next = 0, done = 0;
    enum status rc = STATUS_OK;

    if (c.files == NULL)
        return error_set(err, STATUS_NOMEM, "sample files");
    while (rc == STATUS_OK && next < n) {
        size_t checked = 0;
        rc = sfile_fill(&c, cap, paths, n, &next, err);
        if (rc == STATUS_OK)
            parallel_for(c.n, jobs, sfile_read, &c);
        for (; rc == STATUS_OK && checked < c.n; checked++) {
            log_capture_to(&c.files[checked].log);
            rc = sfile_check(db, &c, checked, s, err);
            log_capture_to(NULL);
        }
        /* A stop at a check: the files checked before it still load. */
        size_t ready = rc == STATUS_OK ? c.n : checked;
        enum status stop = rc;
        struct error stop_err = *err;
        rc = STATUS_OK;
        parallel_for(ready, jobs, sfile_parse, &c);
        for (size_t i = 0; i < c.n; i++) {
            struct sfile *f = &c.files[i];
            if (rc == STATUS_OK && i < ready && f->next == SF_LOADED) {
                log_capture_to(&f->log);
                rc = sfile_load(db, run_id, &c, i, s, err);
                log_capture_to(NULL);
            } else if (rc == STATUS_OK && i < ready && f->next == SF_DUP) {
                log_capture_to(&f->log);
                rc = sfile_dup(db, run_id, &c, i, s, err);
                log_capture_to(NULL);
            }
            log_capture_flush(&f->log);
            if (rc == STATUS_OK && stop == STATUS_OK && o->progress != NULL) {
                const char *slash = strrchr(f->path, '/');
                o->progress->fn(o->progress->arg, ++done, n,
                                slash != NULL ? slash + 1 : f->path);
            }
        }
        /* After the loads: a copy's count reads its earlier file's outcome. */
        for (size_t i = 0; i < c.n; i++)
            sfile_clear(&c.files[i]);
        if (rc == STATUS_OK && stop != STATUS_OK) {
            *err = stop_err;
            rc = stop;
        }
    }
    free(c.files);
    return rc;
}
