/* dxt_text.c: darshan-dxt-parser text (Darshan 3.1 to 3.5) into a struct dxt_trace. */
#include "../ingest.h"
#include "text_header.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The keys darshan-dxt-parser prints once that we do not keep. Others ("metadata",
 * repeated) pass unchecked: a list of every key seen would cost O(keys²). */
static const char *const once_keys[] = {"compression method", "start_time_asci",
                                        "end_time_asci"};

#define N_ONCE (sizeof once_keys / sizeof once_keys[0])

/* What the next line of a file block must be. */
enum expect {
    E_BLOCK,   /* between blocks: a block start, a banner, a comment */
    E_RANK,    /* "# DXT, rank: R, hostname: H" */
    E_COUNTS,  /* "# DXT, number of threads: N" (3.4.5 on) or the counts */
    E_MOUNT,   /* "# DXT, mnt_pt: M, fs_type: F" */
    E_COLUMNS, /* Lustre stripe lines, then the column line */
    E_ROWS     /* operation rows */
};

static const char *const module_names[2] = {"DXT_POSIX", "DXT_MPIIO"};
static const char *const row_modules[2] = {"X_POSIX", "X_MPIIO"};

struct dxt_parser {
    const char *path;
    struct dxt_trace *t;
    size_t cap_files;
    bool in_header;
    struct text_header hdr; /* the job header while it is read */
    long once_line[N_ONCE]; /* where each once_keys[i] was given, 0: not yet */
    double limit_s;      /* a relative time can reach: max(T_J, end - start + 1) + 2 s */
    int module;          /* enum dxt_module of the last banner, -1 before any */
    bool banner_empty;   /* that banner has no file block yet */
    unsigned listed;     /* bit per DXT module the region table lists */
    unsigned bannered;   /* bit per DXT module whose banner was printed */
    unsigned incomplete; /* bit per DXT module the text says is incomplete */
    enum expect expect;  /* within the current block */
    long block_line;     /* where the current block starts */
    size_t cap_ops;      /* ops allocated for the current block */
    int64_t writes_seen; /* rows of the current block so far */
    int64_t reads_seen;  /* … */
    bool col_offset;     /* the column line has Offset (not DXT_MPIIO of 3.1) */
    bool col_ost;        /* … [OST] (Lustre) */
    bool col_pthread;    /* … Pthread-ID (3.4.5 on) */
};

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- header ---------------------------------------------------------------- */

static enum status once_key(struct dxt_parser *p, const char *key, long lineno,
                            struct error *err)
{
    for (size_t i = 0; i < N_ONCE; i++) {
        if (strcmp(key, once_keys[i]) != 0)
            continue;
        if (p->once_line[i] != 0) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected header key '%.40s' once, got it a second time",
                            key);
        }
        p->once_line[i] = lineno;
    }
    return STATUS_OK;
}

static enum status header_value(struct dxt_parser *p, const char *key, const char *value,
                                long lineno, struct error *err)
{
    enum status rc = text_header_value(&p->hdr, key, value, lineno, err);

    return rc == STATUS_NOT_FOUND ? once_key(p, key, lineno, err) : rc;
}

/* The header ends at its first line that is not "# key: value"; every key we need
 * must be there by then. The trace takes the job. */
static enum status header_end(struct dxt_parser *p, long lineno, struct error *err)
{
    struct dxt_trace *t = p->t;
    enum status rc = text_header_end(&p->hdr, lineno, err);

    p->in_header = false;
    if (rc != STATUS_OK)
        return rc;
    if (t == NULL)
        return error_set(err, STATUS_INTERNAL, "%s: no trace to fill", p->path);
    t->log_version = p->hdr.log_version;
    t->exe = p->hdr.exe;
    p->hdr.exe = NULL;
    t->uid = p->hdr.uid;
    memcpy(t->jobid, p->hdr.jobid, sizeof t->jobid);
    t->start_time_s = p->hdr.start_time_s;
    t->end_time_s = p->hdr.end_time_s;
    t->nprocs = p->hdr.nprocs;
    t->run_time_s = p->hdr.run_time_s;
    p->limit_s = p->hdr.limit_s;
    return STATUS_OK;
}

/* ---- file blocks --------------------------------------------------------------- */

/* The block ends (a new block, a banner, the end): it must hold all its rows. */
static enum status block_close(struct dxt_parser *p, long lineno, const char *got,
                               struct error *err)
{
    const struct dxt_file_trace *f;

    if (p->expect == E_BLOCK)
        return STATUS_OK;
    if (p->expect != E_ROWS) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected the rest of the file block of line %ld, got %s",
                        p->block_line, got);
    }
    f = &p->t->files[p->t->n_files - 1];
    if ((int64_t)f->n_ops != f->write_count + f->read_count) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected %" PRId64 " operation rows (write_count %" PRId64
                        " + read_count %" PRId64 ") in the file block of line %ld, got "
                        "%zu",
                        f->write_count + f->read_count, f->write_count, f->read_count,
                        p->block_line, f->n_ops);
    }
    p->expect = E_BLOCK;
    return STATUS_OK;
}

/* "# DXT, file_id: <id>, file_name: <name>": a new file block. The id is digits,
 * so the first ", file_name: " ends it; the name is the rest, whatever it holds. */
static enum status block_start(struct dxt_parser *p, char *line, long lineno,
                               struct error *err)
{
    static const char sep[] = ", file_name: ";
    char *id = line + strlen("# DXT, file_id: ");
    char *name = strstr(id, sep);
    struct dxt_file_trace *f;
    uint64_t record_id = 0;
    enum status rc = block_close(p, lineno, "a new file block", err);

    if (rc != STATUS_OK)
        return rc;
    if (p->module < 0) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a DXT_POSIX or DXT_MPIIO module banner before the "
                        "first file block, got '%.60s'",
                        line);
    }
    if (name != NULL)
        *name = '\0';
    if (name == NULL || !text_u64(id, &record_id)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected '# DXT, file_id: <unsigned 64-bit id>, file_name: "
                        "<name>', got '%.60s'",
                        line);
    }
    name += sizeof sep - 1;
    if (p->t->n_files == p->cap_files) {
        size_t cap = p->cap_files ? 2 * p->cap_files : 16;
        struct dxt_file_trace *more = realloc(p->t->files, cap * sizeof *more);

        if (more == NULL)
            return error_set(err, STATUS_NOMEM, "file blocks of %s", p->path);
        p->t->files = more;
        p->cap_files = cap;
    }
    f = &p->t->files[p->t->n_files];
    memset(f, 0, sizeof *f);
    p->t->n_files++; /* counted first so that dxt_trace_free releases it */
    f->module = (enum dxt_module)p->module;
    f->record_id = record_id;
    f->file_name = str_dup(name);
    if (f->file_name == NULL)
        return error_set(err, STATUS_NOMEM, "file blocks of %s", p->path);
    p->banner_empty = false;
    p->expect = E_RANK;
    p->block_line = lineno;
    p->cap_ops = 0;
    p->writes_seen = 0;
    p->reads_seen = 0;
    return STATUS_OK;
}

static enum status rank_line(struct dxt_parser *p, char *line, long lineno,
                             struct error *err)
{
    static const char prefix[] = "# DXT, rank: ", sep[] = ", hostname: ";
    struct dxt_file_trace *f = &p->t->files[p->t->n_files - 1];
    char *host = starts_with(line, prefix) ? strstr(line, sep) : NULL;

    if (host == NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected '# DXT, rank: <rank>, hostname: <host>', got '%.60s'",
                        line);
    }
    *host = '\0';
    host += sizeof sep - 1;
    if (!text_i64(line + sizeof prefix - 1, &f->rank) || f->rank < 0 ||
        f->rank >= p->t->nprocs) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a rank from 0 to nprocs - 1 (%" PRId64 "), got '%.40s'",
                        p->t->nprocs - 1, line + sizeof prefix - 1);
    }
    f->hostname = str_dup(host);
    if (f->hostname == NULL)
        return error_set(err, STATUS_NOMEM, "file blocks of %s", p->path);
    p->expect = E_COUNTS;
    return STATUS_OK;
}

/* "# DXT, number of threads: N" (absent before 3.4.5), then
 * "# DXT, write_count: W, read_count: R". */
static enum status counts_line(struct dxt_parser *p, char *line, long lineno,
                               struct error *err)
{
    static const char threads[] = "# DXT, number of threads: ";
    static const char prefix[] = "# DXT, write_count: ", sep[] = ", read_count: ";
    struct dxt_file_trace *f = &p->t->files[p->t->n_files - 1];
    char *reads;
    int64_t n;

    if (starts_with(line, threads)) {
        if (!text_i64(line + sizeof threads - 1, &n) || n < 0) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected a number of threads >= 0, got '%.40s'",
                            line + sizeof threads - 1);
        }
        return STATUS_OK; /* the counts line is still to come */
    }
    reads = starts_with(line, prefix) ? strstr(line, sep) : NULL;
    if (reads == NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected '# DXT, write_count: <w>, read_count: <r>', got "
                        "'%.60s'",
                        line);
    }
    *reads = '\0';
    reads += sizeof sep - 1;
    if (!text_i64(line + sizeof prefix - 1, &f->write_count) || f->write_count < 0 ||
        !text_i64(reads, &f->read_count) || f->read_count < 0 ||
        f->write_count > INT64_MAX - f->read_count) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected write_count and read_count >= 0, got '%.30s' and "
                        "'%.30s'",
                        line + sizeof prefix - 1, reads);
    }
    p->expect = E_MOUNT;
    return STATUS_OK;
}

/* "# DXT, mnt_pt: <mount point>, fs_type: <type>": the type is one word, so the last
 * ", fs_type: " ends the mount point. */
static enum status mount_line(struct dxt_parser *p, char *line, long lineno,
                              struct error *err)
{
    static const char prefix[] = "# DXT, mnt_pt: ", sep[] = ", fs_type: ";
    struct dxt_file_trace *f = &p->t->files[p->t->n_files - 1];
    char *fs = NULL;

    if (starts_with(line, prefix)) {
        for (char *s = strstr(line, sep); s != NULL; s = strstr(s + 1, sep))
            fs = s;
    }
    if (fs == NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected '# DXT, mnt_pt: <mount point>, fs_type: <type>', got "
                        "'%.60s'",
                        line);
    }
    *fs = '\0';
    f->mount_point = str_dup(line + sizeof prefix - 1);
    f->fs_type = str_dup(fs + sizeof sep - 1);
    if (f->mount_point == NULL || f->fs_type == NULL)
        return error_set(err, STATUS_NOMEM, "file blocks of %s", p->path);
    p->expect = E_COLUMNS;
    return STATUS_OK;
}

/* The next space-separated field of *cur, NUL-terminated in place; NULL at the end. */
static char *next_field(char **cur)
{
    char *s = *cur, *start;

    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '\0') {
        *cur = s;
        return NULL;
    }
    start = s;
    while (*s != '\0' && *s != ' ' && *s != '\t')
        s++;
    if (*s != '\0')
        *s++ = '\0';
    *cur = s;
    return start;
}

/* "# Module Rank Wt/Rd Segment [Offset] Length Start(s) End(s) [[OST]] [Pthread-ID]":
 * which of the optional columns the rows have. */
static enum status columns_line(struct dxt_parser *p, char *line, long lineno,
                                struct error *err)
{
    static const char *const fixed[] = {"#", "Module", "Rank", "Wt/Rd", "Segment"};
    static const char *const timed[] = {"Length", "Start(s)", "End(s)"};
    char shown[64];
    char *cur = line, *word;
    bool ok = true;

    snprintf(shown, sizeof shown, "%s", line);
    p->col_offset = p->col_ost = p->col_pthread = false;
    for (size_t i = 0; ok && i < sizeof fixed / sizeof fixed[0]; i++) {
        word = next_field(&cur);
        ok = word != NULL && strcmp(word, fixed[i]) == 0;
    }
    word = ok ? next_field(&cur) : NULL;
    if (word != NULL && strcmp(word, "Offset") == 0) {
        p->col_offset = true;
        word = next_field(&cur);
    }
    for (size_t i = 0; ok && i < sizeof timed / sizeof timed[0]; i++) {
        ok = word != NULL && strcmp(word, timed[i]) == 0;
        word = next_field(&cur);
    }
    if (ok && word != NULL && strcmp(word, "[OST]") == 0) {
        p->col_ost = true;
        word = next_field(&cur);
    }
    if (ok && word != NULL && strcmp(word, "Pthread-ID") == 0) {
        p->col_pthread = true;
        word = next_field(&cur);
    }
    if (!ok || word != NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected the column line '# Module Rank Wt/Rd Segment Offset "
                        "Length Start(s) End(s) ...', got '%.60s'",
                        shown);
    }
    p->expect = E_ROWS;
    return STATUS_OK;
}

/* A line of a block before its rows, in darshan-dxt-parser's order. */
static enum status block_header_line(struct dxt_parser *p, char *line, long lineno,
                                     struct error *err)
{
    switch (p->expect) {
    case E_RANK: return rank_line(p, line, lineno, err);
    case E_COUNTS: return counts_line(p, line, lineno, err);
    case E_MOUNT: return mount_line(p, line, lineno, err);
    case E_COLUMNS:
        /* Lustre: "# DXT, Lustre stripe components:" and "#\t[Component n] …" (3.4.5
         * on), "# DXT, Lustre stripe_size: …" and "# DXT, Lustre OST…" before */
        if (starts_with(line, "# DXT, Lustre ") || starts_with(line, "#\t[Component "))
            return STATUS_OK;
        return columns_line(p, line, lineno, err);
    case E_BLOCK:
    case E_ROWS: break;
    }
    return error_at(err, STATUS_INTERNAL, p->path, lineno, "dxt_text: bad state");
}

/* ---- operation rows --------------------------------------------------------------- */

static enum status row_int(struct dxt_parser *p, char **cur, const char *what, int col,
                           int64_t *v, long lineno, struct error *err)
{
    char *word = next_field(cur);

    if (word == NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected %s in field %d, got the end of the line", what, col);
    }
    if (!text_i64(word, v)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected an integer %s in field %d, got '%.40s'", what, col,
                        word);
    }
    return STATUS_OK;
}

static enum status row_time(struct dxt_parser *p, char **cur, const char *what, int col,
                            double *v, long lineno, struct error *err)
{
    char *word = next_field(cur);

    if (word == NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected %s in field %d, got the end of the line", what, col);
    }
    if (!text_f64(word, v)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a number %s in field %d, got '%.40s'", what, col, word);
    }
    return STATUS_OK;
}

/* The [OST] column: zero or more "[n]" ("[  n]" before 3.4.5); the first is kept. */
static enum status row_osts(struct dxt_parser *p, char **cur, int64_t *ost, long lineno,
                            struct error *err)
{
    char *s = *cur;

    *ost = -1;
    for (;;) {
        char *close;
        int64_t v;

        while (*s == ' ' || *s == '\t')
            s++;
        if (*s != '[')
            break;
        close = strchr(s, ']');
        if (close != NULL)
            *close = '\0';
        s++;
        while (*s == ' ')
            s++;
        if (close == NULL || !text_i64(s, &v) || v < 0) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected an OST '[n]' (n >= 0), got '[%.30s'", s);
        }
        if (*ost < 0)
            *ost = v;
        s = close + 1;
    }
    *cur = s;
    return STATUS_OK;
}

/* The row's times against the block and the job. */
static enum status row_check(struct dxt_parser *p, const struct dxt_op *op, long lineno,
                             struct error *err)
{
    /* DXT_MPIIO records of Darshan 3.1 (module version 1) hold no offset: -1 */
    if (op->offset < -1) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected an Offset >= 0 or -1 (not recorded), got %" PRId64,
                        op->offset);
    }
    if (op->length < 0) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a Length >= 0, got %" PRId64, op->length);
    }
    if (op->start_s < 0) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected Start(s) >= 0, got %.6g", op->start_s);
    }
    if (op->end_s < op->start_s) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected End(s) >= Start(s) (%.6g), got %.6g", op->start_s,
                        op->end_s);
    }
    if (op->end_s > p->limit_s) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected End(s) of at most %.6g s (the run time and 2 s more), "
                        "got %.6g",
                        p->limit_s, op->end_s);
    }
    return STATUS_OK;
}

static enum status add_op(struct dxt_parser *p, struct dxt_file_trace *f,
                          const struct dxt_op *op, struct error *err)
{
    /* grown as rows arrive, never past the block's count: a stated count alone
     * allocates nothing */
    if (f->n_ops == p->cap_ops) {
        uint64_t total = (uint64_t)(f->write_count + f->read_count);
        size_t cap = p->cap_ops ? 2 * p->cap_ops : 8;
        struct dxt_op *more;

        if ((uint64_t)cap > total)
            cap = (size_t)total;
        more = realloc(f->ops, cap * sizeof *more);
        if (more == NULL)
            return error_set(err, STATUS_NOMEM, "operations of %s", p->path);
        f->ops = more;
        p->cap_ops = cap;
    }
    f->ops[f->n_ops++] = *op;
    p->t->n_ops++;
    return STATUS_OK;
}

/* " X_POSIX  0  write  0  0  16777216  0.0042  0.0384  [106]  N/A" */
static enum status row_line(struct dxt_parser *p, char *line, bool has_newline,
                            long lineno, struct error *err)
{
    struct dxt_file_trace *f = &p->t->files[p->t->n_files - 1];
    struct dxt_op op = {.offset = -1, .ost = -1};
    char *cur = line, *word;
    int64_t rank = 0, segment = 0, want;
    int col = 5;
    enum status rc;

    /* darshan-dxt-parser ends every line: a last one without was cut off */
    if (!has_newline) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a complete line ending in a newline, got end of file");
    }
    if (p->writes_seen + p->reads_seen == f->write_count + f->read_count) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected no more than write_count + read_count (%" PRId64
                        ") rows in the file block of line %ld, got another",
                        f->write_count + f->read_count, p->block_line);
    }
    word = next_field(&cur);
    if (word == NULL || strcmp(word, row_modules[f->module]) != 0) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected module %s (the block's) in field 1, got '%.40s'",
                        row_modules[f->module], word != NULL ? word : "");
    }
    rc = row_int(p, &cur, "Rank", 2, &rank, lineno, err);
    if (rc != STATUS_OK)
        return rc;
    if (rank != f->rank) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected rank %" PRId64
                        " (the block's) in field 2, got %" PRId64,
                        f->rank, rank);
    }
    word = next_field(&cur);
    if (word == NULL || (strcmp(word, "write") != 0 && strcmp(word, "read") != 0)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected 'write' or 'read' in field 3, got '%.40s'",
                        word != NULL ? word : "");
    }
    op.is_write = strcmp(word, "write") == 0;
    /* writes first, then reads, each numbered from 0 */
    if (op.is_write != (p->writes_seen < f->write_count)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a %s row (%" PRId64 " writes of write_count %" PRId64
                        " so far), got a %s",
                        op.is_write ? "read" : "write", p->writes_seen, f->write_count,
                        word);
    }
    want = op.is_write ? p->writes_seen : p->reads_seen;
    rc = row_int(p, &cur, "Segment", 4, &segment, lineno, err);
    if (rc != STATUS_OK)
        return rc;
    if (segment != want) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected segment %" PRId64 " in field 4, got %" PRId64, want,
                        segment);
    }
    if (p->col_offset) {
        rc = row_int(p, &cur, "Offset", col++, &op.offset, lineno, err);
        if (rc != STATUS_OK)
            return rc;
    }
    rc = row_int(p, &cur, "Length", col++, &op.length, lineno, err);
    if (rc == STATUS_OK)
        rc = row_time(p, &cur, "Start(s)", col++, &op.start_s, lineno, err);
    if (rc == STATUS_OK)
        rc = row_time(p, &cur, "End(s)", col++, &op.end_s, lineno, err);
    if (rc == STATUS_OK && p->col_ost)
        rc = row_osts(p, &cur, &op.ost, lineno, err);
    if (rc != STATUS_OK)
        return rc;
    if (p->col_pthread) {
        word = next_field(&cur);
        if (word == NULL) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected Pthread-ID at the end, got the end of the line");
        }
        if (strcmp(word, "N/A") != 0 && !text_u64(word, &op.pthread_id)) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected a Pthread-ID (unsigned) or N/A, got '%.40s'", word);
        }
    }
    word = next_field(&cur);
    if (word != NULL) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected the end of the row after its columns, got '%.40s'",
                        word);
    }
    rc = row_check(p, &op, lineno, err);
    if (rc != STATUS_OK)
        return rc;
    *(op.is_write ? &p->writes_seen : &p->reads_seen) += 1;
    return add_op(p, f, &op, err);
}

/* ---- comment lines between blocks ---------------------------------------------- */

static int dxt_module_of(const char *s, size_t n)
{
    for (int m = 0; m < 2; m++) {
        if (strlen(module_names[m]) == n && memcmp(s, module_names[m], n) == 0)
            return m;
    }
    return -1;
}

static enum status comment_line(struct dxt_parser *p, char *line, long lineno,
                                struct error *err)
{
    static const char banner_tail[] = " module data";
    static const char region_tail[] = " module: ";
    static const char incomplete_tail[] = " module contains incomplete data!";
    size_t len = strlen(line);
    const char *the, *mark;
    enum status rc;

    if (starts_with(line, "# DXT, file_id: "))
        return block_start(p, line, lineno, err);
    if (starts_with(line, "# DXT, ")) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected '# DXT, file_id: ...' to start a file block, got "
                        "'%.60s'",
                        line);
    }
    /* "# DXT_POSIX module: 253 bytes (compressed), ver=1" of the region table */
    mark = strstr(line, region_tail);
    if (line[1] == ' ' && mark != NULL) {
        int m = dxt_module_of(line + 2, (size_t)(mark - (line + 2)));

        if (m >= 0)
            p->listed |= 1u << m;
        return STATUS_OK;
    }
    /* "# DXT_POSIX module data" */
    if (len > 2 + sizeof banner_tail - 1 && line[1] == ' ' &&
        strcmp(line + len - (sizeof banner_tail - 1), banner_tail) == 0) {
        size_t n = len - 2 - (sizeof banner_tail - 1);
        int m = dxt_module_of(line + 2, n);

        if (m < 0) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected a DXT_POSIX or DXT_MPIIO module banner "
                            "(darshan-dxt-parser output), got '%.60s'",
                            line);
        }
        rc = block_close(p, lineno, "a module banner", err);
        if (rc != STATUS_OK)
            return rc;
        p->module = m;
        p->bannered |= 1u << m;
        p->banner_empty = true;
        return STATUS_OK;
    }
    /* "# *WARNING*: The DXT_POSIX module contains incomplete data!" (--show-incomplete)
     * or its *ERROR* form (stderr kept with stdout) */
    if (starts_with(line, "# *") && len > sizeof incomplete_tail &&
        strcmp(line + len - (sizeof incomplete_tail - 1), incomplete_tail) == 0 &&
        (the = strstr(line, "The ")) != NULL) {
        const char *mod = the + 4;
        const char *end = line + len - (sizeof incomplete_tail - 1);
        int m = mod < end ? dxt_module_of(mod, (size_t)(end - mod)) : -1;

        if (m >= 0)
            p->incomplete |= 1u << m;
        return STATUS_OK;
    }
    return STATUS_OK; /* mount entries, rules, the advice after an incomplete module */
}

/* ---- the whole text ------------------------------------------------------------- */

static enum status one_line(struct dxt_parser *p, char *line, size_t len,
                            bool has_newline, long lineno, struct error *err)
{
    const char *s = line;

    if (p->expect != E_BLOCK && p->expect != E_ROWS) {
        if (len == 0 || line[0] != '#') {
            return error_at(
                err, STATUS_PARSE, p->path, lineno,
                "expected the rest of the file block of line %ld, got '%.60s'",
                p->block_line, line);
        }
        return block_header_line(p, line, lineno, err);
    }
    if (len == 0)
        return STATUS_OK;
    if (line[0] == '#')
        return comment_line(p, line, lineno, err);
    while (*s == ' ')
        s++;
    if (s[0] == 'X' && s[1] == '_') {
        if (p->expect != E_ROWS) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected an operation row only after a file block's column "
                            "line, got '%.60s'",
                            line);
        }
        return row_line(p, line, has_newline, lineno, err);
    }
    return error_at(err, STATUS_PARSE, p->path, lineno,
                    "expected an operation row (X_POSIX or X_MPIIO) or a '#' line, got "
                    "'%.60s'",
                    line);
}

/* The modules the text lacks: those the text says are incomplete, a banner that ends
 * it with no block, and the listed ones never printed (darshan-dxt-parser stopped
 * before them), unless it said there is no DXT data at all. */
static enum status finish(struct dxt_parser *p, bool no_dxt, struct error *err)
{
    unsigned bits = p->incomplete;
    char buf[32] = "";

    if (p->module >= 0 && p->banner_empty)
        bits |= 1u << p->module;
    if (!no_dxt)
        bits |= p->listed & ~p->bannered;
    if (bits == 0)
        return STATUS_OK;
    for (int m = 0; m < 2; m++) {
        if (bits & (1u << m)) {
            size_t have = strlen(buf);

            snprintf(buf + have, sizeof buf - have, "%s%s", have ? "," : "",
                     module_names[m]);
        }
    }
    p->t->incomplete_modules = str_dup(buf);
    if (p->t->incomplete_modules == NULL)
        return error_set(err, STATUS_NOMEM, "trace %s", p->path);
    return STATUS_OK;
}

static enum status parse_lines(struct dxt_parser *p, FILE *fp, struct error *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0;
    bool no_dxt = false;
    enum status rc = STATUS_OK;

    while ((got = getline(&line, &cap, fp)) >= 0) {
        size_t len = (size_t)got;
        bool has_newline = len > 0 && line[len - 1] == '\n';
        char *key, *value;

        lineno++;
        if (strlen(line) != len) {
            rc = error_at(err, STATUS_PARSE, p->path, lineno,
                          "expected text, got a NUL byte (a binary .darshan file?)");
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (p->in_header) {
            if (text_header_split(line, &key, &value)) {
                rc = header_value(p, key, value, lineno, err);
                if (rc != STATUS_OK)
                    break;
                continue;
            }
            rc = header_end(p, lineno, err);
            if (rc != STATUS_OK)
                break;
        }
        if (strcmp(line, "# no DXT module data available for this Darshan log.") == 0)
            no_dxt = true;
        rc = one_line(p, line, len, has_newline, lineno, err);
        if (rc != STATUS_OK)
            break;
    }
    if (rc == STATUS_OK && ferror(fp)) {
        rc = error_at(err, STATUS_PARSE, p->path, lineno + 1,
                      "expected readable text, got a read error: %s", strerror(errno));
    }
    free(line);
    if (rc != STATUS_OK)
        return rc;
    if (lineno == 0)
        return error_at(err, STATUS_PARSE, p->path, 0, "empty file");
    if (p->in_header) {
        rc = header_end(p, lineno, err);
        if (rc != STATUS_OK)
            return rc;
    }
    rc = block_close(p, lineno, "the end of the file", err);
    if (rc != STATUS_OK)
        return rc;
    return finish(p, no_dxt, err);
}

enum status ingest_dxt_parse(FILE *fp, const char *path, struct dxt_trace **out,
                             struct error *err)
{
    struct dxt_parser p;
    enum status rc = STATUS_OK;

    if (out != NULL)
        *out = NULL;
    if (fp == NULL || out == NULL)
        return error_set(err, STATUS_INVALID, "ingest_dxt_parse: no input or output");
    memset(&p, 0, sizeof p);
    p.path = path != NULL ? path : "";
    p.in_header = true;
    p.hdr.path = p.path;
    p.module = -1;
    p.expect = E_BLOCK;
    p.t = calloc(1, sizeof *p.t);
    if (p.t == NULL || (p.t->path = str_dup(p.path)) == NULL)
        rc = error_set(err, STATUS_NOMEM, "trace %s", p.path);
    if (rc == STATUS_OK)
        rc = parse_lines(&p, fp, err);
    text_header_clear(&p.hdr);
    if (rc != STATUS_OK) {
        dxt_trace_free(p.t);
        return rc;
    }
    *out = p.t;
    return STATUS_OK;
}

void dxt_trace_free(struct dxt_trace *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n_files; i++) {
        free(t->files[i].hostname);
        free(t->files[i].file_name);
        free(t->files[i].mount_point);
        free(t->files[i].fs_type);
        free(t->files[i].ops);
    }
    free(t->files);
    free(t->exe);
    free(t->path);
    free(t->incomplete_modules);
    free(t);
}
