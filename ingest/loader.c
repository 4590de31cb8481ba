/* loader.c: the nightly loader: walks the inputs into a sorted file list, opens an
 * ingest run, hands the files to the darshan pipeline (pipeline.c) or the sample
 * files' (samples.c), and closes the run with its counts. */
#include "internal.h"

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

/* Whether a file below a directory is an input of kind by its name, with or without
 * a compression suffix (.gz, .bz2, .xz): iostat's also sysstat's sa files (saDD,
 * saYYYYMMDD, *.sa). */
static bool wanted(const char *path, enum input_kind kind)
{
    static const char *const darshan[] = {"*.darshan", "parser.txt", "*.parser.txt",
                                          "dxt.txt", "*.dxt.txt"};
    static const char *const iostat[] = {
        "*.txt", "*.json",       "*.csv",
        "*.sa",  "sa[0-9][0-9]", "sa[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]"};
    const char *const *pats = kind == INPUT_DARSHAN ? darshan : iostat;
    size_t n = kind == INPUT_DARSHAN ? 5 : 6;
    char b[512];

    source_plain_name(base_name(path), b, sizeof b);
    for (size_t i = 0; i < n; i++) {
        if (fnmatch(pats[i], b, 0) == 0)
            return true;
    }
    return false;
}

/* An sa file whatever its name: sysstat's magic at its start. */
static bool is_sa_file(const char *path)
{
    unsigned char head[8];
    FILE *fp = fopen(path, "rb");
    size_t n = fp != NULL ? fread(head, 1, sizeof head, fp) : 0;

    if (fp != NULL)
        fclose(fp);
    return sa_is_file(head, n);
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
        } else if (S_ISREG(st.st_mode) &&
                   (wanted(path, kind) || (kind == INPUT_IOSTAT && is_sa_file(path)))) {
            ok = list_add(out, path);
        } else {
            (*skipped)++;
        }
    }
    closedir(d);
    return ok;
}

static bool is_binary_name(const char *path)
{
    char b[512];

    source_plain_name(base_name(path), b, sizeof b);
    return fnmatch("*.darshan", b, 0) == 0;
}

/* Path order, binary logs first: when a log's .darshan and its darshan-parser text
 * sit side by side, the binary's job is the one loaded (the first file of a job key
 * wins) and the text counts as the same job. */
static int cmp_str(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    bool bx = is_binary_name(x), by = is_binary_name(y);

    if (bx != by)
        return bx ? -1 : 1;
    return strcmp(x, y);
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
        char verdict[1024];
        verdict_of(kind, o,
                   o->max_file_bytes > 0 ? o->max_file_bytes
                                         : INGEST_DEFAULT_MAX_FILE_BYTES,
                   verdict, sizeof verdict);
        rc = ingest_sample_files(db, run_id, files.paths, files.n, o, verdict, s, err);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->seconds =
        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (run_id > 0) {
        struct db_ingest_counts c = {.files = s->files,
                                     .loaded = s->loaded,
                                     .skipped = s->skipped,
                                     .quarantined = s->quarantined,
                                     .jobs = s->jobs,
                                     .samples = s->samples,
                                     .failed = rc != STATUS_OK,
                                     .seconds = s->seconds};
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
