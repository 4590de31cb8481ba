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

/* Loads the samples of data (len bytes, the whole file as read; st its stat), from
 * where its ledger says the last ingest stopped when g->have: only what follows is
 * parsed, and the ledger moves on in the same transaction. A file with no new
 * complete report is skipped. hash is the whole content's. */
static enum status load_iostat(struct db *db, int64_t run_id, const char *path,
                               const char *shown, const char *hash, const char *verdict,
                               char *data, size_t len, const struct hash_marks *m,
                               const struct stat *st, const struct grow *g,
                               const struct ingest_opts *o, struct ingest_summary *s,
                               struct error *err)
{
    size_t off = g->have ? (size_t)g->row.length : 0;
    struct iostat_data *d = NULL;
    struct db_samples_in in;
    struct db_sample_ledger next;
    struct db_sample *rows = NULL;
    char **text = NULL;
    struct error ferr = {0}, dberr = {0};
    long long inserted = 0, differing = 0;
    bool moved = false;
    FILE *fp = NULL;
    enum status rc;

    if (off == len) {
        s->skipped++;
        log_info("%s: nothing after the part loaded before", path);
        return STATUS_OK;
    }
    fp = fmemopen(data + off, len - off, "r");
    if (fp == NULL)
        return error_set(err, STATUS_NOMEM, "reading %s", path);
    rc = ingest_iostat_parse_from(fp, path, o->device_include, (int64_t)st->st_mtime,
                                  (int64_t)time(NULL), g->have ? &g->from : NULL, &d,
                                  &ferr);
    if (rc == STATUS_OK) {
        moved = next_ledger(d, g, off, data, len, hash, m, verdict, st, &next);
        if (d->n == 0 && (!moved || !g->have)) {
            /* Only a cut report, still being written: it waits. */
            s->skipped++;
            log_info("%s: no new complete report", path);
            goto out;
        }
        rc = sample_rows(path, o, d, &in, &rows, &text, &ferr);
    }
    if (rc == STATUS_OK) {
        rc = db_samples_load(db, run_id, shown, hash, &in, moved ? &next : NULL,
                             &inserted, &differing, &dberr);
        if (rc == STATUS_OK) {
            /* A continuation that added nothing (a report read again) is unchanged. */
            if (g->have && inserted == 0) {
                s->skipped++;
            } else {
                s->loaded++;
            }
            s->samples += inserted;
            if (g->have && inserted > 0) {
                log_info("%s: grew since it was loaded: %lld new samples", path,
                         inserted);
            }
            if (differing > 0) {
                log_warn("%s: %lld samples were loaded before with rates that differ "
                         "by more than 1%%; the first values stay",
                         path, differing);
            }
        } else if (rc == STATUS_DB) {
            rc = load_failed(db, s, path, shown, hash, verdict, &dberr, err);
        } else {
            *err = dberr;
        }
    } else if (rc != STATUS_NOMEM) {
        rc = quarantine(db, s, path, shown, hash, verdict, &ferr, err);
    } else {
        *err = ferr;
    }
out:
    fclose(fp);
    free(rows);
    text_free(text, d != NULL ? d->n + 1 : 0);
    iostat_data_free(d);
    return rc;
}

/* One file: read, hash, skip when seen, parse, load. A database failure that is not
 * the file's data stops the batch (stop_batch); everything else is a per-file
 * outcome recorded in s. */
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

static enum status load_one(struct db *db, int64_t run_id, const char *path,
                            enum input_kind kind, const struct ingest_opts *o,
                            struct ingest_summary *s, struct error *err)
{
    size_t max =
        o->max_file_bytes > 0 ? o->max_file_bytes : INGEST_DEFAULT_MAX_FILE_BYTES;
    char *data = NULL;
    size_t len = 0;
    struct error ferr = {0}, dberr = {0};
    struct grow grow = {0};
    struct hash_marks marks = {0};
    char hash[33];
    bool seen = false, too_large = false, known_bad = false;
    char verdict[640];
    struct stat st;
    enum status rc;
    char *shown = str_escape_dup(path);

    if (shown == NULL)
        return error_set(err, STATUS_NOMEM, "reading %s", path);
    verdict_of(kind, o, max, verdict, sizeof verdict);
    bool have_st = stat(path, &st) == 0;
    if (!have_st)
        memset(&st, 0, sizeof st);
    rc = have_st && (uintmax_t)st.st_size > max
             ? STATUS_OK
             : slurp(path, max, &data, &len, &too_large, &ferr);
    if (rc != STATUS_OK) {
        s->missing++;
        add_failure(s, shown, 0, ferr.msg);
        log_error("%s: %s", path, ferr.msg);
        goto done;
    }
    if (data == NULL) {
        too_large = true;
        size_hash(&st, hash);
        error_set(&ferr, STATUS_PARSE,
                  "too large: %lld bytes, more than %zu ([ingest] "
                  "max_file_bytes)",
                  (long long)st.st_size, max);
    } else {
        content_hash_marked(data, len, hash, &marks);
    }
    rc = db_file_seen(db, hash, &seen, &dberr);
    /* A sample file seen whole is looked at again only when a cut report was left
     * in it and it has not changed for a day: that report is then set aside. */
    if (rc == STATUS_OK && kind == INPUT_IOSTAT && data != NULL && have_st &&
        (!seen || unchanged_for_a_day(&st, (int64_t)time(NULL))))
        rc = ledger_match(db, shown, &st, data, len, &marks, verdict, &grow, &dberr);
    if (rc == STATUS_OK && seen && grow.have && grow.row.cut_pending)
        seen = false;
    if (rc == STATUS_OK && !seen)
        rc = db_quarantine_known(db, hash, verdict, &known_bad, &dberr);
    if (rc != STATUS_OK) {
        *err = dberr;
        rc = stop_batch(path, err);
        goto done;
    }
    if (seen) {
        s->skipped++;
        log_debug("%s: already loaded", path);
        goto done;
    }
    if (known_bad) {
        /* Its content and what shaped the verdict are those of its quarantine. */
        s->known_bad++;
        log_info("%s: quarantined before, unchanged: not parsed again", shown);
        goto done;
    }
    if (too_large || len == 0) {
        if (!too_large)
            error_set(&ferr, STATUS_PARSE, "empty file");
        rc = quarantine(db, s, path, shown, hash, verdict, &ferr, err);
        goto done;
    }
    rc = load_iostat(db, run_id, path, shown, hash, verdict, data, len, &marks, &st,
                     &grow, o, s, err);
done:
    free(marks.at);
    free(data);
    free(shown);
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
    for (size_t i = 0; rc == STATUS_OK && kind == INPUT_IOSTAT && i < files.n; i++) {
        rc = load_one(db, run_id, files.paths[i], kind, o, s, err);
        if (o->progress != NULL) {
            const char *slash = strrchr(files.paths[i], '/');
            o->progress->fn(o->progress->arg, i + 1, files.n,
                            slash != NULL ? slash + 1 : files.paths[i]);
        }
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
