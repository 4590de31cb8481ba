/* loader.c: the nightly loader: walks the inputs into a sorted file list, opens an
 * ingest run, hands the files to the darshan pipeline (pipeline.c) or the sample
 * files' (samples.c), and closes the run with its counts. */
#include "../internal.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fts.h>
#include <limits.h>
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

/* An sa file whatever its name: sysstat's magic at its start. Opened without
 * blocking and checked to be a regular file, so that a FIFO swapped in since the
 * walk cannot hold the run. */
static bool is_sa_file(const char *path)
{
    unsigned char head[8];
    struct stat st;
    ssize_t n = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0)
        return false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        n = read(fd, head, sizeof head);
    close(fd);
    return n > 0 && sa_is_file(head, (size_t)n);
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

/* What a file of mode m is, for a refusal: "a FIFO", "a socket", ... */
static const char *type_name(mode_t m)
{
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISLNK(m))
        return "a symbolic link";
    return "not a regular file";
}

/* An input refused before any read (its type, or a folder that cannot be walked):
 * listed, counted, logged with its name escaped; the run goes on and exits 1. */
static void refuse(struct ingest_summary *s, const char *path, const char *why)
{
    char shown[512];

    str_escape(path, shown, sizeof shown);
    add_failure(s, shown, 0, why);
    s->refused++;
    log_warn("refused %s: %s", shown, why);
}

/* Adds the wanted files below root to out with fts(3): iteratively, so that no depth
 * of folders can exhaust the stack (a recursive walk with a 4 KB path a frame died
 * at 2,100 levels), and physically: a symbolic link is logged and not followed, a
 * folder more than INGEST_WALK_MAX_DEPTH levels below root, one that cannot be read
 * or whose path is too long is refused with its name and the rest of the tree is
 * walked. FIFOs, sockets and devices are never opened: fts reads their type with
 * lstat. false when out of memory. */
static bool walk(const char *root, enum input_kind kind, struct file_list *out,
                 struct ingest_summary *s)
{
    char *copy = str_dup(root); /* fts_open's roots are not const */
    char *const roots[2] = {copy, NULL};
    FTS *fts = copy != NULL
                   ? fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR | FTS_COMFOLLOW, NULL)
                   : NULL;
    FTSENT *e;
    bool ok = true;
    char why[200];

    if (fts == NULL) {
        int saved = copy != NULL ? errno : ENOMEM;
        free(copy);
        snprintf(why, sizeof why, "cannot walk: %s", strerror(saved));
        refuse(s, root, why);
        return saved != ENOMEM;
    }
    while (ok) {
        char shown[512];

        errno = 0; /* fts_read's NULL is the end when errno stays 0 */
        e = fts_read(fts);
        if (e == NULL) {
            int saved = errno;
            if (saved != 0) {
                snprintf(why, sizeof why, "walk stopped: %s", strerror(saved));
                refuse(s, root, why);
                ok = saved != ENOMEM;
            }
            break;
        }

        switch (e->fts_info) {
        case FTS_D:
            if (e->fts_level >= INGEST_WALK_MAX_DEPTH) {
                snprintf(why, sizeof why,
                         "too deep: more than %d levels below %.150s, not walked",
                         INGEST_WALK_MAX_DEPTH, root);
                refuse(s, e->fts_path, why);
                fts_set(fts, e, FTS_SKIP);
            }
            break;
        case FTS_DP:
        case FTS_DOT: break;
        case FTS_DC:
            refuse(s, e->fts_path, "a folder that contains itself: not walked again");
            break;
        case FTS_DNR:
        case FTS_ERR:
        case FTS_NS:
            snprintf(why, sizeof why, "cannot walk: %s", strerror(e->fts_errno));
            refuse(s, e->fts_path, why);
            break;
        case FTS_SL:
        case FTS_SLNONE:
            str_escape(e->fts_path, shown, sizeof shown);
            log_warn("%s: a symbolic link, not followed", shown);
            s->not_input++;
            break;
        case FTS_F:
            if (wanted(e->fts_path, kind) ||
                (kind == INPUT_IOSTAT && is_sa_file(e->fts_path))) {
                ok = list_add(out, e->fts_path);
            } else {
                s->not_input++;
            }
            break;
        default: /* FTS_DEFAULT: a FIFO, a socket, a device */
            if (e->fts_statp != NULL && wanted(e->fts_path, kind)) {
                snprintf(why, sizeof why, "%s, not a regular file: not read",
                         type_name(e->fts_statp->st_mode));
                refuse(s, e->fts_path, why);
            } else {
                str_escape(e->fts_path, shown, sizeof shown);
                log_info("%s: not a regular file, skipped", shown);
                s->not_input++;
            }
            break;
        }
    }
    fts_close(fts);
    free(copy);
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

/* Expands the arguments into a sorted file list (a directory is walked; a regular
 * file named directly is taken whatever its name, anything else is refused by its
 * type before any read). Missing paths are counted. */
static enum status collect(char *const *paths, size_t n_paths, enum input_kind kind,
                           struct file_list *out, struct ingest_summary *s,
                           struct error *err)
{
    for (size_t i = 0; i < n_paths; i++) {
        /* A relative path is stored from the working directory, so that quarantine
         * and unload find the file by either form (they try both); only when the
         * lexical form is the same file (a ".." after a symbolic link is not). */
        char abs[PATH_MAX];
        const char *path = paths[i];
        struct stat st, typed;
        if (path[0] != '/' && path_absolute(path, abs, sizeof abs) &&
            stat(abs, &st) == 0 && stat(path, &typed) == 0 && st.st_dev == typed.st_dev &&
            st.st_ino == typed.st_ino)
            path = abs;
        if (stat(path, &st) != 0) {
            char msg[200], shown[512];
            snprintf(msg, sizeof msg, "cannot read: %s", strerror(errno));
            str_escape(path, shown, sizeof shown);
            add_failure(s, shown, 0, msg);
            s->missing++;
            log_error("%s: %s", shown, msg);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            size_t before = out->n;
            if (!walk(path, kind, out, s))
                return error_set(err, STATUS_NOMEM, "walking %s", path);
            if (out->n > before)
                qsort(out->paths + before, out->n - before, sizeof *out->paths, cmp_str);
        } else if (!S_ISREG(st.st_mode)) {
            char why[200];
            snprintf(why, sizeof why, "%s, not a regular file: not read",
                     type_name(st.st_mode));
            refuse(s, path, why);
        } else if (!list_add(out, path)) {
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
    /* The named paths missing and everything refused never reached the list, and
     * are files all the same: the categories add up to files. */
    const long unlisted = s->missing + s->refused;
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
    s->files = (long)files.n + unlisted;
    s->skipped = s->unchanged + s->not_input;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->seconds =
        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (run_id > 0) {
        struct db_ingest_counts c = {.files = s->files,
                                     .loaded = s->loaded,
                                     .skipped = s->skipped,
                                     /* new and still: the gauge stays up while
                                        any input of the run is quarantined */
                                     .quarantined = s->quarantined + s->known_bad,
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
