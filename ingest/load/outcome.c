/* outcome.c: what the loaders share: reading a file whole, its content hash, the
 * verdict key, what a database failure means, the quarantine, the summary's list,
 * and the rows of a job. */
#include "../internal.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void add_failure(struct ingest_summary *s, const char *path, long line, const char *msg)
{
    /* A bounded list: 100,000 bad files made a 13 MB summary. */
    if (s->n_errors >= INGEST_SUMMARY_ERRORS) {
        s->errors_more++;
        return;
    }
    struct ingest_failure *f = realloc(s->errors, (s->n_errors + 1) * sizeof *f);
    if (f == NULL) {
        s->errors_more++; /* the count still says it; only the detail is lost */
        return;
    }
    s->errors = f;
    f = &s->errors[s->n_errors++];
    snprintf(f->path, sizeof f->path, "%s", path);
    f->line = line;
    snprintf(f->message, sizeof f->message, "%s", msg);
}

void still_quarantined(struct ingest_summary *s, const char *shown)
{
    s->known_bad++;
    add_failure(s, shown, 0, "quarantined before, unchanged: not parsed again");
    log_info("%s: quarantined before, unchanged: not parsed again", shown);
}

void reread_failed(struct ingest_summary *s, const char *path, const char *shown,
                   const struct error *e)
{
    char msg[200];

    str_escape(e->msg, msg, sizeof msg);
    add_failure(s, shown, e->line, msg);
    s->reread_failed++;
    log_error("%s: loaded before, cannot be read again: %s", path, e->msg);
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
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;

    return fnmatch("dxt.txt", base, 0) == 0 || fnmatch("*.dxt.txt", base, 0) == 0 ||
           strstr(data, "# DXT, file_id:") != NULL;
}

void job_text_free(struct job_text *t)
{
    free(t->exe);
    free(t->executable);
    free(t->group_key);
    free(t->jobid);
    free(t->incomplete_modules);
}

/* The rows db_jobs_load_batch writes for log and its metrics m: *job borrows from both,
 * from *text and from *windows, which are new (caller frees; windows NULL when the job
 * has no window, text with job_text_free). */
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
    text->incomplete_modules =
        log->incomplete_modules != NULL ? str_escape_dup(log->incomplete_modules) : NULL;
    if (text->exe == NULL || text->executable == NULL || text->group_key == NULL ||
        text->jobid == NULL ||
        (log->incomplete_modules != NULL && text->incomplete_modules == NULL))
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
                              .n_unique_files = m->n_unique_files,
                              .n_shared_files = m->n_shared_files,
                              .negative_time = log->negative_time,
                              .incomplete_modules = text->incomplete_modules,
                              .incomplete_log = log->incomplete_records,
                              .windows = w,
                              .n_windows = m->n_windows};
    /* the log family, by the list that declared job_metrics' fields */
#define LOG_COPY(NAME, name, type, listed) job->log[LOG_##NAME].LOG_CELL_##type = m->name;
    LOG_VALUES(LOG_COPY)
#undef LOG_COPY
    *windows = w;
    return STATUS_OK;
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

/* What besides a file's content shapes whether it loads: iocontend's version (its
 * parsers), the kind of input and the settings the parsers read. A quarantine is
 * reconsidered when any of them changes. */
void verdict_of(enum input_kind kind, const struct ingest_opts *o, size_t max, char *out,
                size_t size)
{
    const bool iostat = kind == INPUT_IOSTAT;
    char records[48] = "";

    /* only when not the default: the verdicts of before the key stay valid */
    if (!iostat && o->max_job_records > 0 &&
        o->max_job_records != INGEST_DEFAULT_MAX_JOB_RECORDS)
        snprintf(records, sizeof records, ";max_job_records=%zu", o->max_job_records);

    /* --server decides whether a file without a host loads; --fs goes with it; the
     * time zone where stamps carry none. The readers' revision lapses the verdicts of
     * files a newer reader takes (darshan 2: binary logs, DXT text and incomplete
     * logs, which revision 1 quarantined; iostat 2: repeated and stepped-back stamps,
     * sa files and compressed files, which revision 1 quarantined; iostat 3: sa files'
     * devices named by number, which revision 2 named from the ingesting host). */
    snprintf(
        out, size,
        "version=%s;kind=%s;max_file_bytes=%zu;device_include=%s;device_names=%s;fs=%s;"
        "server=%s%s%s;readers=%d%s",
        IOCONTEND_VERSION, iostat ? "iostat" : "darshan", max,
        iostat && o->device_include != NULL ? o->device_include : "",
        iostat && o->device_names != NULL ? o->device_names : "",
        iostat && o->fs != NULL ? o->fs : "",
        iostat && o->server != NULL ? o->server : "", iostat ? ";timezone=" : "",
        iostat ? (o->timezone != NULL ? o->timezone : "UTC") : "", iostat ? 3 : 2,
        records);
}
