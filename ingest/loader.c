/* loader.c: the nightly loader: walks inputs, parses each file, loads it whole or
 * quarantines it, and counts what happened. */
#include "internal.h"

#include "../sql/db.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct file_list {
    char **paths;
    size_t n, cap;
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static bool wanted(const char *path, enum input_kind kind)
{
    static const char *const darshan[] = {"parser.txt", "*.parser.txt", "dxt.txt",
                                          "*.dxt.txt"};
    static const char *const iostat[] = {"*.txt", "*.json", "*.csv"};
    const char *const *pats = kind == INPUT_DARSHAN ? darshan : iostat;
    size_t n = kind == INPUT_DARSHAN ? 4 : 3;
    const char *b = base_name(path);

    for (size_t i = 0; i < n; i++) {
        if (fnmatch(pats[i], b, 0) == 0)
            return true;
    }
    return false;
}

static bool list_add(struct file_list *l, const char *path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap == 0 ? 64 : l->cap * 2;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (p == NULL)
            return false;
        l->paths = p;
        l->cap = cap;
    }
    l->paths[l->n] = str_dup(path);
    if (l->paths[l->n] == NULL)
        return false;
    l->n++;
    return true;
}

static void list_free(struct file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
}

/* Adds the wanted files below dir (symbolic links are not followed). */
static bool walk(const char *dir, enum input_kind kind, struct file_list *out,
                 long *skipped)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool ok = true;

    if (d == NULL) {
        log_warn("%s: %s", dir, strerror(errno));
        return true;
    }
    while (ok && (e = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            ok = walk(path, kind, out, skipped);
        } else if (S_ISREG(st.st_mode) && wanted(path, kind)) {
            ok = list_add(out, path);
        } else {
            (*skipped)++;
        }
    }
    closedir(d);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void add_failure(struct ingest_summary *s, const char *path, long line, const char *msg)
{
    struct ingest_failure *f = realloc(s->errors, (s->n_errors + 1) * sizeof *f);
    if (f == NULL)
        return; /* the count still says it; only the detail is lost */
    s->errors = f;
    f = &s->errors[s->n_errors++];
    snprintf(f->path, sizeof f->path, "%s", path);
    f->line = line;
    snprintf(f->message, sizeof f->message, "%s", msg);
}

/* Expands the arguments into a sorted file list (a directory is walked; a file
 * named directly is taken whatever its name). Missing paths are counted. */
static enum status collect(char *const *paths, size_t n_paths, enum input_kind kind,
                           struct file_list *out, struct ingest_summary *s,
                           struct error *err)
{
    for (size_t i = 0; i < n_paths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            char msg[200], shown[512];
            snprintf(msg, sizeof msg, "cannot read: %s", strerror(errno));
            str_escape(paths[i], shown, sizeof shown);
            add_failure(s, shown, 0, msg);
            s->missing++;
            log_error("%s: %s", paths[i], msg);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            size_t before = out->n;
            if (!walk(paths[i], kind, out, &s->skipped))
                return error_set(err, STATUS_NOMEM, "walking %s", paths[i]);
            if (out->n > before)
                qsort(out->paths + before, out->n - before, sizeof *out->paths, cmp_str);
        } else if (!list_add(out, paths[i])) {
            return error_set(err, STATUS_NOMEM, "file list");
        }
    }
    return STATUS_OK;
}

/* Reads path whole; *too_large when it holds more than max bytes (then nothing is
 * kept: a file can grow between stat and read). */
enum status slurp(const char *path, size_t max, char **data, size_t *len, bool *too_large,
                  struct error *err)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    *data = NULL;
    *len = 0;
    *too_large = false;
    if (fp == NULL) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open: %s",
                        strerror(errno));
    }
    for (;;) {
        if (n + 65536 > cap) {
            size_t ncap = cap == 0 ? 262144 : cap * 2;
            char *p = realloc(buf, ncap + 1);
            if (p == NULL) {
                free(buf);
                fclose(fp);
                return error_set(err, STATUS_NOMEM, "reading %s", path);
            }
            buf = p;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
        if (n > max) {
            *too_large = true;
            break;
        }
    }
    bool bad = ferror(fp) != 0;
    fclose(fp);
    if (bad || *too_large) {
        free(buf);
        return bad ? error_at(err, STATUS_NOT_FOUND, path, 0, "read error") : STATUS_OK;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return STATUS_OK;
}

enum status ingest_db_failure(const struct error *e)
{
    static const char *const db_classes[] = {"08", "57", "53", "58"};

    if (e->code != STATUS_DB)
        return e->code;
    if (strncmp(e->sqlstate, "22", 2) == 0 || strncmp(e->sqlstate, "23", 2) == 0)
        return STATUS_PARSE;
    if (e->sqlstate[0] == '\0')
        return STATUS_DB; /* libpq's own failure: no server answered */
    for (size_t i = 0; i < sizeof db_classes / sizeof db_classes[0]; i++) {
        if (strncmp(e->sqlstate, db_classes[i], 2) == 0)
            return STATUS_DB;
    }
    return STATUS_INTERNAL;
}

static bool is_data_fault(const struct error *e)
{
    return ingest_db_failure(e) == STATUS_PARSE;
}

/* Stops the batch on err (ingest_db_failure's status), naming the file. Data the
 * file did not give (a hash, a run id) that the database refuses are our bug. */
enum status stop_batch(const char *path, struct error *err)
{
    enum status st = ingest_db_failure(err);

    err->code = st == STATUS_PARSE ? STATUS_INTERNAL : st;
    snprintf(err->file, sizeof err->file, "%s", path);
    err->line = 0;
    return err->code;
}

/* Quarantines the file (shown: its path escaped) with why; STATUS_OK unless the
 * quarantine itself could not be recorded for another reason than its text. */
enum status quarantine(struct db *db, struct ingest_summary *s, const char *path,
                       const char *shown, const char *hash, const char *verdict,
                       const struct error *why, struct error *err)
{
    struct error reason = *why, dberr = {0};

    str_escape(why->msg, reason.msg, sizeof reason.msg);
    snprintf(reason.file, sizeof reason.file, "%s", shown);
    s->quarantined++;
    add_failure(s, shown, why->line, reason.msg);
    if (why->line > 0) {
        log_warn("quarantined %s:%ld: %s", path, why->line, why->msg);
    } else {
        log_warn("quarantined %s: %s", path, why->msg);
    }
    if (db_ingest_error_record(db, shown, hash, verdict, &reason, &dberr) == STATUS_OK)
        return STATUS_OK;
    if (is_data_fault(&dberr)) {
        log_error("could not record the quarantine of %s: %s", path, dberr.msg);
        return STATUS_OK;
    }
    *err = dberr;
    return stop_batch(path, err);
}

/* After a failed load: bad data quarantine the file, anything else stops. */
enum status load_failed(struct db *db, struct ingest_summary *s, const char *path,
                        const char *shown, const char *hash, const char *verdict,
                        const struct error *dberr, struct error *err)
{
    struct error why = {0};

    if (!is_data_fault(dberr)) {
        *err = *dberr;
        return stop_batch(path, err);
    }
    error_set(&why, STATUS_PARSE, "the database refused a value (SQLSTATE %s): %s",
              dberr->sqlstate, dberr->msg);
    return quarantine(db, s, path, shown, hash, verdict, &why, err);
}

/* darshan-dxt-parser output: by its name, or by its per-file block headers. */
bool is_dxt_text(const char *path, const char *data)
{
    return fnmatch("dxt.txt", base_name(path), 0) == 0 ||
           fnmatch("*.dxt.txt", base_name(path), 0) == 0 ||
           strstr(data, "# DXT, file_id:") != NULL;
}

void job_text_free(struct job_text *t)
{
    free(t->exe);
    free(t->executable);
    free(t->group_key);
    free(t->jobid);
}

/* The rows db_job_load writes for log and its metrics m: *job borrows from both, from
 * *text and from *windows, which are new (caller frees; windows NULL when the job has
 * no window, text with job_text_free). */
enum status job_rows(const char *path, const struct darshan_log *log,
                     const struct job_metrics *m, struct db_job_in *job,
                     struct db_window_in **windows, struct job_text *text,
                     struct error *err)
{
    struct db_window_in *w = NULL;

    *windows = NULL;
    text->exe = str_escape_dup(log->exe != NULL ? log->exe : "");
    text->executable = str_escape_dup(m->executable);
    text->group_key = str_escape_dup(m->group_key);
    text->jobid = str_escape_dup(log->jobid);
    if (text->exe == NULL || text->executable == NULL || text->group_key == NULL ||
        text->jobid == NULL)
        return error_set(err, STATUS_NOMEM, "text of %s", path);
    if (m->n_windows > 0) {
        w = calloc(m->n_windows, sizeof *w);
        if (w == NULL)
            return error_set(err, STATUS_NOMEM, "windows of %s", path);
    }
    for (size_t i = 0; i < m->n_windows; i++) {
        const struct job_window *jw = &m->windows[i];
        w[i].start_s = jw->start_s;
        w[i].end_s = jw->end_s;
        w[i].is_write = jw->is_write;
        w[i].bytes = jw->bytes;
        w[i].fs = jw->monitored ? jw->fs : NULL;
    }
    *job = (struct db_job_in){.job_key = m->job_key,
                              .jobid = text->jobid,
                              .uid = log->uid,
                              .exe = text->exe,
                              .executable = text->executable,
                              .nprocs = log->nprocs,
                              .start_time_s = log->start_time_s,
                              .end_time_s = log->end_time_s,
                              .run_time_s = log->run_time_s,
                              .log_version = log->log_version,
                              .group_id = m->group_id,
                              .group_key = text->group_key,
                              .t_j = m->t_j,
                              .t_um = m->t_um,
                              .t_urw = m->t_urw,
                              .t_s = m->t_s,
                              .t_s_span = m->t_s_span,
                              .t_s_slowest = m->t_s_slowest,
                              .t = m->t,
                              .t_fr = m->t_fr,
                              .t_fw = m->t_fw,
                              .eta_read = m->eta_read,
                              .eta_write = m->eta_write,
                              .eta_mon_read = m->eta_mon_read,
                              .eta_mon_write = m->eta_mon_write,
                              .n_unique_files = m->n_unique_files,
                              .n_shared_files = m->n_shared_files,
                              .negative_time = log->negative_time,
                              .windows = w,
                              .n_windows = m->n_windows};
    *windows = w;
    return STATUS_OK;
}

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
                                  .ops_total_ps = is->ops_total_ps};
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

/* A stand-in content hash for a file too large to read: its size and mtime. */
void size_hash(const struct stat *st, char hash[33])
{
    struct hash128 h;
    char key[96];
    int n = snprintf(key, sizeof key, "too large:%lld:%lld.%09ld", (long long)st->st_size,
                     (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);

    hash128_init(&h);
    hash128_update(&h, key, n > 0 ? (size_t)n : 0);
    hash128_hex(&h, hash);
}

/* The content hash of len bytes of data. */
void content_hash(const char *data, size_t len, char hash[33])
{
    struct hash128 h;

    hash128_init(&h);
    hash128_update(&h, data, len);
    hash128_hex(&h, hash);
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
    g->have = true;
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

/* What besides a file's content shapes whether it loads: iocontend's version (its
 * parsers), the kind of input and the settings the parsers read. A quarantine is
 * reconsidered when any of them changes. */
void verdict_of(enum input_kind kind, const struct ingest_opts *o, size_t max, char *out,
                size_t size)
{
    const bool iostat = kind == INPUT_IOSTAT;

    /* --server decides whether a file without a host loads; --fs goes with it. */
    snprintf(out, size,
             "version=%s;kind=%s;max_file_bytes=%zu;device_include=%s;fs=%s;server=%s",
             IOCONTEND_VERSION, iostat ? "iostat" : "darshan", max,
             iostat && o->device_include != NULL ? o->device_include : "",
             iostat && o->fs != NULL ? o->fs : "",
             iostat && o->server != NULL ? o->server : "");
}

/* ---- sample files: read and parse on threads, check and load in order ---------- */

/* A chunk of sample files in flight: at most this many per thread, or this many bytes
 * read at once. */
#define SAMPLE_FILES_PER_JOB 2
#define SAMPLE_CHUNK_BYTES   ((size_t)128 << 20)

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
    struct error ferr; /* missing, too large, or the parser's verdict */
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
    bool have_st, too_large, missing, moved;
    bool bad; /* quarantined, now or before (known bad) */
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

    if ((!f->have_st || (uintmax_t)f->st.st_size <= c->max) &&
        slurp(f->path, c->max, &f->data, &f->len, &f->too_large, &f->ferr) != STATUS_OK) {
        f->missing = true;
        return;
    }
    if (f->data == NULL) {
        f->too_large = true;
        size_hash(&f->st, f->hash);
        error_set(&f->ferr, STATUS_PARSE,
                  "too large: %lld bytes, more than %zu ([ingest] max_file_bytes)",
                  (long long)f->st.st_size, c->max);
        return;
    }
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
    if (f->data != NULL && (f->dup_of = dup_in_chunk(c, i)) > 0) {
        f->next = SF_DUP;
        return STATUS_OK;
    }
    rc = db_file_seen(db, f->hash, &seen, &dberr);
    /* A sample file seen whole is looked at again only when a cut report was left
     * in it and it has not changed for a day: that report is then set aside. */
    if (rc == STATUS_OK && f->data != NULL && f->have_st &&
        (!seen || unchanged_for_a_day(&f->st, (int64_t)time(NULL)))) {
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
    if (seen) {
        s->skipped++;
        log_debug("%s: already loaded", f->path);
        return STATUS_OK;
    }
    if (known_bad) {
        /* Its content and what shaped the verdict are those of its quarantine. */
        s->known_bad++;
        f->bad = true;
        log_info("%s: quarantined before, unchanged: not parsed again", f->shown);
        return STATUS_OK;
    }
    if (f->too_large || f->len == 0) {
        if (!f->too_large)
            error_set(&f->ferr, STATUS_PARSE, "empty file");
        f->bad = true;
        return quarantine(db, s, f->path, f->shown, f->hash, c->verdict, &f->ferr, err);
    }
    if (f->grow.have && (size_t)f->grow.row.length == f->len) {
        s->skipped++;
        log_info("%s: nothing after the part loaded before", f->path);
        return STATUS_OK;
    }
    f->next = SF_PARSE;
    return STATUS_OK;
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
    fp = fmemopen(f->data + off, f->len - off, "r");
    f->parse_rc = fp != NULL ? ingest_iostat_parse_from(
                                   fp, f->path, c->o->device_include,
                                   (int64_t)f->st.st_mtime, (int64_t)time(NULL),
                                   f->grow.have ? &f->grow.from : NULL, &f->d, &f->ferr)
                             : error_set(&f->ferr, STATUS_NOMEM, "reading %s", f->path);
    if (fp != NULL)
        fclose(fp);
    if (f->parse_rc == STATUS_OK) {
        f->moved = next_ledger(f->d, &f->grow, off, f->data, f->len, f->hash, &f->marks,
                               c->verdict, &f->st, &f->ledger);
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
    if (f->parse_rc != STATUS_OK) {
        f->bad = true;
        return quarantine(db, s, f->path, f->shown, f->hash, c->verdict, &f->ferr, err);
    }
    if (f->d->n == 0 && (!f->moved || !g->have)) {
        s->skipped++;
        log_info("%s: no new complete report", f->path);
        return STATUS_OK;
    }
    rc = db_samples_load(db, run_id, f->shown, f->hash, &f->in,
                         f->moved ? &f->ledger : NULL, &inserted, &differing, &dberr);
    if (rc == STATUS_DB) {
        f->bad = true;
        return load_failed(db, s, f->path, f->shown, f->hash, c->verdict, &dberr, err);
    }
    if (rc != STATUS_OK) {
        *err = dberr;
        return rc;
    }
    /* A continuation that added nothing (a report read again) is unchanged. */
    if (g->have && inserted == 0) {
        s->skipped++;
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
 * counted as it would be one file at a time (known bad after a quarantine, else
 * seen). */
static void sfile_dup(const struct sfile_chunk *c, size_t i, struct ingest_summary *s)
{
    const struct sfile *f = &c->files[i];

    if (c->files[f->dup_of - 1].bad) {
        s->known_bad++;
        log_info("%s: quarantined before, unchanged: not parsed again", f->shown);
    } else {
        s->skipped++;
        log_debug("%s: already loaded", f->path);
    }
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

/* The sample files paths[0..n) of run run_id: a chunk at a time, read, hashed and
 * parsed on opts->jobs threads, checked and loaded one file at a time in path order
 * (each in its own transaction, as before). A stop at the check of a file first loads
 * the files before it. */
static enum status load_sample_files(struct db *db, int64_t run_id, char *const *paths,
                                     size_t n, const struct ingest_opts *o,
                                     const char *verdict, struct ingest_summary *s,
                                     struct error *err)
{
    unsigned jobs = o->jobs > 0 ? o->jobs : processors_online();
    size_t cap = (size_t)jobs * SAMPLE_FILES_PER_JOB;
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
                sfile_dup(&c, i, s);
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

static enum status load_paths(struct db *db, char *const *paths, size_t n_paths,
                              enum input_kind kind, const struct ingest_opts *o,
                              struct ingest_summary *s, struct error *err)
{
    struct file_list files = {0};
    struct timespec t0, t1;
    int64_t run_id = 0;
    enum status rc;

    memset(s, 0, sizeof *s);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = collect(paths, n_paths, kind, &files, s, err);
    if (rc == STATUS_OK) {
        rc = db_ingest_run_begin(db, kind == INPUT_DARSHAN ? "darshan" : "iostat",
                                 &run_id, err);
    }
    s->run_id = run_id;
    s->files = (long)files.n;
    if (rc == STATUS_OK && kind == INPUT_DARSHAN)
        rc = ingest_darshan_files(db, run_id, files.paths, files.n, o, s, err);
    if (rc == STATUS_OK && kind == INPUT_IOSTAT) {
        char verdict[640];
        verdict_of(kind, o,
                   o->max_file_bytes > 0 ? o->max_file_bytes
                                         : INGEST_DEFAULT_MAX_FILE_BYTES,
                   verdict, sizeof verdict);
        rc = load_sample_files(db, run_id, files.paths, files.n, o, verdict, s, err);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->seconds =
        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (run_id > 0) {
        struct db_ingest_counts c = {s->files,       s->loaded, s->skipped,
                                     s->quarantined, s->jobs,   s->samples};
        struct error e2 = {0};
        if (db_ingest_run_end(db, run_id, &c, &e2) != STATUS_OK && rc == STATUS_OK)
            rc = error_set(err, e2.code, "%s", e2.msg);
    }
    list_free(&files);
    return rc;
}

enum status ingest_darshan_paths(struct db *db, char *const *paths, size_t n_paths,
                                 const struct ingest_opts *opts, struct ingest_summary *s,
                                 struct error *err)
{
    return load_paths(db, paths, n_paths, INPUT_DARSHAN, opts, s, err);
}

enum status ingest_iostat_paths(struct db *db, char *const *paths, size_t n_paths,
                                const struct ingest_opts *opts, struct ingest_summary *s,
                                struct error *err)
{
    if (opts->fs == NULL || opts->fs[0] == '\0') {
        memset(s, 0, sizeof *s); /* the caller prints and clears it either way */
        return error_set(err, STATUS_INVALID, "ingest iostat needs --fs NAME");
    }
    return load_paths(db, paths, n_paths, INPUT_IOSTAT, opts, s, err);
}

void ingest_summary_clear(struct ingest_summary *s)
{
    free(s->errors);
    memset(s, 0, sizeof *s);
}
