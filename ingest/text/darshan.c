/* darshan.c: darshan-parser default text (Darshan 3.x) into a struct darshan_log. */
#include "../darshan/darshan_bin.h"
#include "../ingest.h"
#include "text_header.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where a counter we keep goes while its record is read. Integer slots come first;
 * MPI-IO counts arrive as four counters (independent, collective, split, non-blocking)
 * and are summed when the record is finished. */
enum slot {
    S_READS_1,
    S_READS_2,
    S_READS_3,
    S_READS_4,
    S_WRITES_1,
    S_WRITES_2,
    S_WRITES_3,
    S_WRITES_4,
    S_OPENS_1,
    S_OPENS_2,
    S_BYTES_READ,
    S_BYTES_WRITTEN,
    S_OPEN_START, /* the first floating slot */
    S_READ_START,
    S_READ_END,
    S_WRITE_START,
    S_WRITE_END,
    S_CLOSE_END,
    S_READ_TIME,
    S_WRITE_TIME,
    S_META_TIME,
    S_SLOWEST,
    S_COUNT
};

#define S_FIRST_DOUBLE S_OPEN_START
#define L_POSIX        (1u << LAYER_POSIX)
#define L_MPIIO        (1u << LAYER_MPIIO)
#define L_STDIO        (1u << LAYER_STDIO)
#define L_ALL          (L_POSIX | L_MPIIO | L_STDIO)

struct counter {
    const char *suffix; /* the name after "POSIX_", "MPIIO_" or "STDIO_" */
    unsigned layers;    /* L_* bits of the layers that have it */
    enum slot slot;
};

/* Counters are found by name: modules order them differently (STDIO puts META_TIME
 * before the timestamps) and older formats converted by darshan-parser add some. */
static const struct counter counters[] = {
    {"READS", L_POSIX | L_STDIO, S_READS_1},
    {"WRITES", L_POSIX | L_STDIO, S_WRITES_1},
    {"OPENS", L_POSIX | L_STDIO, S_OPENS_1},
    {"INDEP_READS", L_MPIIO, S_READS_1},
    {"COLL_READS", L_MPIIO, S_READS_2},
    {"SPLIT_READS", L_MPIIO, S_READS_3},
    {"NB_READS", L_MPIIO, S_READS_4},
    {"INDEP_WRITES", L_MPIIO, S_WRITES_1},
    {"COLL_WRITES", L_MPIIO, S_WRITES_2},
    {"SPLIT_WRITES", L_MPIIO, S_WRITES_3},
    {"NB_WRITES", L_MPIIO, S_WRITES_4},
    {"INDEP_OPENS", L_MPIIO, S_OPENS_1},
    {"COLL_OPENS", L_MPIIO, S_OPENS_2},
    {"BYTES_READ", L_ALL, S_BYTES_READ},
    {"BYTES_WRITTEN", L_ALL, S_BYTES_WRITTEN},
    {"F_OPEN_START_TIMESTAMP", L_ALL, S_OPEN_START},
    {"F_READ_START_TIMESTAMP", L_ALL, S_READ_START},
    {"F_READ_END_TIMESTAMP", L_ALL, S_READ_END},
    {"F_WRITE_START_TIMESTAMP", L_ALL, S_WRITE_START},
    {"F_WRITE_END_TIMESTAMP", L_ALL, S_WRITE_END},
    {"F_CLOSE_END_TIMESTAMP", L_ALL, S_CLOSE_END},
    {"F_READ_TIME", L_ALL, S_READ_TIME},
    {"F_WRITE_TIME", L_ALL, S_WRITE_TIME},
    {"F_META_TIME", L_ALL, S_META_TIME},
    {"F_SLOWEST_RANK_TIME", L_ALL, S_SLOWEST},
};

#define N_COUNTERS (sizeof counters / sizeof counters[0])

/* Module column, counter prefix, indexed by enum ingest_layer. */
static const char *const module_names[LAYER_COUNT] = {"POSIX", "MPI-IO", "STDIO"};
static const char *const counter_prefixes[LAYER_COUNT] = {"POSIX_", "MPIIO_", "STDIO_"};

/* A record while its counters are read. */
struct pending {
    int64_t ival[S_FIRST_DOUBLE]; /* integer slots */
    double dval[S_COUNT]; /* floating slots, indexed by slot from S_FIRST_DOUBLE */
    uint32_t seen;        /* bit per slot */
    long first_line;      /* where the record starts, for errors */
};

struct parser {
    const char *path;
    struct darshan_log *log;
    struct pending *pend; /* parallel to log->records */
    size_t cap_records;
    size_t *table; /* open addressing: record index + 1, 0 = empty */
    size_t table_size;
    size_t last; /* record index + 1 of the previous counter line, 0 = none */
    size_t cap_mounts;
    uint32_t required[LAYER_COUNT]; /* slots a complete record of each layer has */
    struct text_header hdr;         /* the job header while it is read */
    char **other_keys;              /* header keys we do not keep, seen once (owned) */
    size_t n_other_keys;
    double limit_s;     /* a relative time can reach: max(T_J, end - start + 1) + 2 s */
    size_t max_records; /* more records than this: STATUS_PARSE */
    bool in_header;
    char banner[64]; /* module of a "# X module data" banner with no record yet */
    long banner_line;
    /* The modules of the "log file regions" block, in order (the first 32). */
    char listed[32][24];
    size_t n_listed;
    size_t incomplete_cap;   /* bytes allocated for log->incomplete_modules */
    size_t cap_dxt;          /* files allocated in log->dxt */
    char dxt_incomplete[32]; /* "DXT_POSIX,DXT_MPIIO": DXT modules marked partial */
    /* Binary logs: find_counter by the decoder's name pointer (its tables are
     * static, so a name comes back at one address); 86 POSIX counters a record
     * looked up by strcmp were half of a binary log's parse (make bench). */
    struct name_cache {
        const char *name;
        const struct counter *c; /* NULL: a counter the metrics do not use */
        int layer;
    } names[128];
};

static int layer_of_module(const char *module)
{
    for (int l = 0; l < LAYER_COUNT; l++) {
        if (strcmp(module, module_names[l]) == 0)
            return l;
    }
    return -1;
}

/* ---- header ---------------------------------------------------------------- */

/* A header key we do not keep (compression method, *_asci, …): its first time, or
 * STATUS_PARSE the second. darshan-parser repeats only "# metadata:" (and "# mount
 * entry:", which is not a "key: value" line). */
static enum status other_key(struct parser *p, const char *key, long lineno,
                             struct error *err)
{
    char **more;

    if (strcmp(key, "metadata") == 0)
        return STATUS_OK;
    for (size_t i = 0; i < p->n_other_keys; i++) {
        if (strcmp(p->other_keys[i], key) == 0) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected header key '%.40s' once, got it a second time",
                            key);
        }
    }
    more = realloc(p->other_keys, (p->n_other_keys + 1) * sizeof *more);
    if (more == NULL)
        return error_set(err, STATUS_NOMEM, "header of %s", p->path);
    p->other_keys = more;
    more[p->n_other_keys] = str_dup(key);
    if (more[p->n_other_keys] == NULL)
        return error_set(err, STATUS_NOMEM, "header of %s", p->path);
    p->n_other_keys++;
    return STATUS_OK;
}

static enum status header_value(struct parser *p, const char *key, const char *value,
                                long lineno, struct error *err)
{
    enum status rc = text_header_value(&p->hdr, key, value, lineno, err);

    return rc == STATUS_NOT_FOUND ? other_key(p, key, lineno, err) : rc;
}

/* The header ends at its first line that is not "# key: value"; every key we need
 * must be there by then. The log takes the job. */
static enum status header_end(struct parser *p, long lineno, struct error *err)
{
    struct darshan_log *log = p->log;
    enum status rc = text_header_end(&p->hdr, lineno, err);

    p->in_header = false;
    if (rc != STATUS_OK)
        return rc;
    log->log_version = p->hdr.log_version;
    free(log->exe);
    log->exe = p->hdr.exe;
    p->hdr.exe = NULL;
    log->uid = p->hdr.uid;
    memcpy(log->jobid, p->hdr.jobid, sizeof log->jobid);
    log->start_time_s = p->hdr.start_time_s;
    log->end_time_s = p->hdr.end_time_s;
    log->nprocs = p->hdr.nprocs;
    log->run_time_s = p->hdr.run_time_s;
    log->start_line = p->hdr.line[TH_START];
    log->end_line = p->hdr.line[TH_END];
    p->limit_s = p->hdr.limit_s;
    return STATUS_OK;
}

/* ---- comment lines after the header ------------------------------------------ */

static enum status add_mount(struct parser *p, const char *mount, const char *fs,
                             struct error *err);

static enum status mount_entry(struct parser *p, char *line, long lineno,
                               struct error *err)
{
    char *mount, *fs;

    /* "# mount entry:\t<mount point>\t<fs type>" */
    mount = strchr(line, '\t');
    fs = mount != NULL ? strchr(mount + 1, '\t') : NULL;
    if (mount == NULL || fs == NULL || strchr(fs + 1, '\t') != NULL) {
        return error_at(
            err, STATUS_PARSE, p->path, lineno,
            "expected '# mount entry:<TAB>mount point<TAB>fs type', got '%.60s'", line);
    }
    *mount++ = '\0';
    *fs++ = '\0';
    return add_mount(p, mount, fs, err);
}

static enum status add_mount(struct parser *p, const char *mount, const char *fs,
                             struct error *err)
{
    struct darshan_log *log = p->log;

    if (log->n_mounts == p->cap_mounts) {
        size_t cap = p->cap_mounts ? 2 * p->cap_mounts : 16;
        char **m = realloc(log->mount_points, cap * sizeof *m);

        if (m == NULL)
            return error_set(err, STATUS_NOMEM, "mount table of %s", p->path);
        log->mount_points = m;
        m = realloc(log->mount_fs_types, cap * sizeof *m);
        if (m == NULL)
            return error_set(err, STATUS_NOMEM, "mount table of %s", p->path);
        log->mount_fs_types = m;
        p->cap_mounts = cap;
    }
    log->mount_points[log->n_mounts] = str_dup(mount);
    log->mount_fs_types[log->n_mounts] = str_dup(fs);
    log->n_mounts++; /* counted first so that darshan_log_free releases both */
    if (log->mount_points[log->n_mounts - 1] == NULL ||
        log->mount_fs_types[log->n_mounts - 1] == NULL)
        return error_set(err, STATUS_NOMEM, "mount table of %s", p->path);
    return STATUS_OK;
}

/* Adds module (n bytes of it) to the log's incomplete modules, once. */
static enum status mark_incomplete(struct parser *p, const char *module, size_t n,
                                   struct error *err)
{
    struct darshan_log *log = p->log;
    size_t have = log->incomplete_modules != NULL ? strlen(log->incomplete_modules) : 0;

    if (n == 0 || n > 63)
        n = 0; /* not a module name we can keep: "a module" */
    for (const char *c = log->incomplete_modules; c != NULL && *c != '\0';) {
        size_t len = strcspn(c, ",");

        if (len == (n ? n : 8) && memcmp(c, n ? module : "a module", len) == 0)
            return STATUS_OK;
        c += len + (c[len] == ',');
    }
    if (have + 1 + 64 + 1 > p->incomplete_cap) {
        size_t cap = 2 * (have + 66);
        char *more = realloc(log->incomplete_modules, cap);

        if (more == NULL)
            return error_set(err, STATUS_NOMEM, "log %s", p->path);
        more[have] = '\0';
        log->incomplete_modules = more;
        p->incomplete_cap = cap;
    }
    snprintf(log->incomplete_modules + have, p->incomplete_cap - have, "%s%.*s",
             have ? "," : "", (int)(n ? n : 8), n ? module : "a module");
    if (n != 0) {
        for (int l = 0; l < LAYER_COUNT; l++) {
            if (strlen(module_names[l]) == n && memcmp(module, module_names[l], n) == 0)
                log->incomplete_records = true;
        }
    } else {
        log->incomplete_records = true; /* which one is not known: maybe a layer */
    }
    return STATUS_OK;
}

/* Modules darshan-parser never prints a section for: it cannot decode them (APMPI,
 * APXC) or leaves them to darshan-dxt-parser (DXT_*). */
static bool parser_prints(const char *module)
{
    return strncmp(module, "DXT_", 4) != 0 && strcmp(module, "APMPI") != 0 &&
           strcmp(module, "APXC") != 0;
}

/* darshan-parser prints "# <MOD> module data" and then stops, before the module's
 * counter description and without records, when the module ran out of memory at run
 * time (the reason goes to stderr). A banner followed by neither its description, nor
 * its column line, nor a record of its module before the next banner or the end is
 * therefore an incomplete module; at the end, the modules the region table lists
 * after it were never printed, so they are incomplete in this text too. A module that
 * has a section but no records (the parser's loop simply finds none) is legitimately
 * empty; modules it cannot decode get no banner at all. */
static enum status banner_close(struct parser *p, bool at_end, struct error *err)
{
    enum status rc;
    size_t after = p->n_listed;

    if (p->banner[0] == '\0')
        return STATUS_OK;
    rc = mark_incomplete(p, p->banner, strlen(p->banner), err);
    for (size_t i = 0; rc == STATUS_OK && i < p->n_listed; i++) {
        if (strcmp(p->listed[i], p->banner) == 0) {
            after = i + 1;
        } else if (at_end && i >= after && parser_prints(p->listed[i])) {
            rc = mark_incomplete(p, p->listed[i], strlen(p->listed[i]), err);
        }
    }
    p->banner[0] = '\0';
    return rc;
}

/* "# POSIX module: 155 bytes (compressed), ver=4" of the "log file regions" block. */
static void region_line(struct parser *p, const char *line)
{
    static const char tail[] = " module: ";
    const char *name = line + 2, *end = strstr(name, tail);
    size_t n = end != NULL ? (size_t)(end - name) : 0;

    if (n == 0 || n >= sizeof p->listed[0] || p->n_listed == 32)
        return;
    for (size_t i = 0; i < n; i++) {
        if (name[i] == ' ' || name[i] == '\t')
            return;
    }
    memcpy(p->listed[p->n_listed], name, n);
    p->listed[p->n_listed][n] = '\0';
    p->n_listed++;
}

static bool module_word(const char *s, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ' || s[i] == '\t')
            return false;
    }
    return true;
}

static enum status comment_line(struct parser *p, char *line, long lineno,
                                struct error *err)
{
    static const char banner_tail[] = " module data";
    static const char incomplete_tail[] = " module contains incomplete data!";
    size_t len = strlen(line);
    const char *the;

    if (strncmp(line, "# mount entry:", 14) == 0)
        return mount_entry(p, line, lineno, err);
    if (line[1] == ' ' && line[2] >= 'A' && line[2] <= 'Z' && strstr(line, " module: "))
        region_line(p, line);
    /* the module's section goes on normally: it is not cut short */
    if (p->banner[0] != '\0' && (strncmp(line, "# description of ", 17) == 0 ||
                                 strncmp(line, "#<module>", 9) == 0)) {
        p->banner[0] = '\0';
        return STATUS_OK;
    }
    /* --perf prints the banners with no records: say so rather than "incomplete" */
    if (strcmp(line, "# performance") == 0) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected darshan-parser default output, got --perf output");
    }

    /* "# POSIX module data" */
    if (len > 2 + sizeof banner_tail - 1 && line[1] == ' ' &&
        strcmp(line + len - (sizeof banner_tail - 1), banner_tail) == 0) {
        size_t n = len - 2 - (sizeof banner_tail - 1);

        if (module_word(line + 2, n)) {
            enum status rc = banner_close(p, false, err);

            if (rc != STATUS_OK)
                return rc;
            if (n >= sizeof p->banner)
                n = sizeof p->banner - 1;
            memcpy(p->banner, line + 2, n);
            p->banner[n] = '\0';
            p->banner_line = lineno;
        }
        return STATUS_OK;
    }

    /* "# *ERROR*: The STDIO module contains incomplete data!" (or *WARNING* with
     * --show-incomplete, whose records are a part of the truth only). */
    if (strncmp(line, "# *", 3) == 0 && len > sizeof incomplete_tail &&
        strcmp(line + len - (sizeof incomplete_tail - 1), incomplete_tail) == 0 &&
        (the = strstr(line, "The ")) != NULL) {
        const char *mod = the + 4;
        int n = (int)(line + len - (sizeof incomplete_tail - 1) - mod);

        (void)lineno;
        return mark_incomplete(p, mod, n > 0 ? (size_t)n : 0, err);
    }
    return STATUS_OK;
}

/* ---- counter lines ------------------------------------------------------------- */

static size_t hash_slot(const struct parser *p, int layer, int64_t rank, uint64_t id)
{
    /* record ids are already hashes; mix in rank and layer, keep the high bits */
    uint64_t h = (id ^ ((uint64_t)rank * 0x9e3779b97f4a7c15u) ^ (uint64_t)layer) *
                 0xbf58476d1ce4e5b9u;

    return (size_t)(h >> 20) & (p->table_size - 1);
}

static bool same_record(const struct darshan_record *r, int layer, int64_t rank,
                        uint64_t id)
{
    return (int)r->layer == layer && r->rank == rank && r->record_id == id;
}

static enum status table_grow(struct parser *p, struct error *err)
{
    size_t size = p->table_size ? 2 * p->table_size : 256;
    size_t *t = calloc(size, sizeof *t);

    if (t == NULL)
        return error_set(err, STATUS_NOMEM, "record table of %s", p->path);
    free(p->table);
    p->table = t;
    p->table_size = size;
    for (size_t i = 0; i < p->log->n_records; i++) {
        const struct darshan_record *r = &p->log->records[i];
        size_t h = hash_slot(p, (int)r->layer, r->rank, r->record_id);

        while (t[h] != 0)
            h = (h + 1) & (size - 1);
        t[h] = i + 1;
    }
    return STATUS_OK;
}

/* The record of (layer, rank, id), made on first sight; *rec_index is its position. */
static enum status find_record(struct parser *p, int layer, int64_t rank, uint64_t id,
                               const char *const names[3], long lineno, size_t *rec_index,
                               struct error *err)
{
    struct darshan_log *log = p->log;
    struct darshan_record *r;
    size_t h;

    /* darshan-parser prints a record's counters together: try the previous one */
    if (p->last != 0 && same_record(&log->records[p->last - 1], layer, rank, id)) {
        *rec_index = p->last - 1;
        return STATUS_OK;
    }
    if (2 * (log->n_records + 1) > p->table_size && table_grow(p, err) != STATUS_OK)
        return STATUS_NOMEM;
    for (h = hash_slot(p, layer, rank, id); p->table[h] != 0;
         h = (h + 1) & (p->table_size - 1)) {
        if (same_record(&log->records[p->table[h] - 1], layer, rank, id)) {
            *rec_index = p->table[h] - 1;
            p->last = *rec_index + 1;
            return STATUS_OK;
        }
    }

    /* Checked before the record takes memory: a 12.9 MB log of 10^6 records once took
     * 1.38 GB and loaded 10^6 windows for one job. */
    if (log->n_records == p->max_records) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected at most %zu records in a job ([ingest] "
                        "max_job_records), got "
                        "more: the %s record %" PRIu64 " of rank %" PRId64
                        " is one too many",
                        p->max_records, module_names[layer], id, rank);
    }
    if (log->n_records == p->cap_records) {
        size_t cap = p->cap_records ? 2 * p->cap_records : 64;
        struct darshan_record *recs = realloc(log->records, cap * sizeof *recs);
        struct pending *pend;

        if (recs == NULL)
            return error_set(err, STATUS_NOMEM, "records of %s", p->path);
        log->records = recs;
        pend = realloc(p->pend, cap * sizeof *pend);
        if (pend == NULL)
            return error_set(err, STATUS_NOMEM, "records of %s", p->path);
        p->pend = pend;
        p->cap_records = cap;
    }
    r = &log->records[log->n_records];
    memset(r, 0, sizeof *r);
    r->layer = (enum ingest_layer)layer;
    r->rank = rank;
    r->record_id = id;
    r->slowest_rank_time = -1;
    memset(&p->pend[log->n_records], 0, sizeof p->pend[0]);
    p->pend[log->n_records].first_line = lineno;
    log->n_records++; /* counted first so that darshan_log_free releases the names */
    r->file_name = str_dup(names[0]);
    r->mount_point = str_dup(names[1]);
    r->fs_type = str_dup(names[2]);
    if (r->file_name == NULL || r->mount_point == NULL || r->fs_type == NULL)
        return error_set(err, STATUS_NOMEM, "records of %s", p->path);
    p->table[h] = log->n_records;
    *rec_index = log->n_records - 1;
    p->last = log->n_records;
    return STATUS_OK;
}

static const struct counter *find_counter(int layer, const char *name)
{
    size_t plen = strlen(counter_prefixes[layer]);

    if (strncmp(name, counter_prefixes[layer], plen) != 0)
        return NULL;
    for (size_t i = 0; i < N_COUNTERS; i++) {
        if ((counters[i].layers & (1u << layer)) &&
            strcmp(name + plen, counters[i].suffix) == 0)
            return &counters[i];
    }
    return NULL;
}

/* A time counter as read: -1 (not collected) is absent; another value below 0 is
 * absent too and flags the job negative_time (docs/method.md §9: a real log has
 * STDIO_F_WRITE_TIME = -2662.7); absent is 0, "never" for a timestamp and nothing
 * added for a cumulative time. A timestamp past limit_s, or a cumulative time past
 * limit_s for each rank that can add to it, is STATUS_PARSE. */
static enum status check_time(struct parser *p, enum slot slot, int64_t rank,
                              const char *name, double *v, long lineno, struct error *err)
{
    bool cumulative = slot == S_READ_TIME || slot == S_WRITE_TIME ||
                      slot == S_META_TIME || slot == S_SLOWEST;
    double ranks = rank == -1 && slot != S_SLOWEST ? (double)p->log->nprocs : 1.0;
    double limit = cumulative ? p->limit_s * ranks : p->limit_s;

    if (*v < 0) {
        if (*v != -1.0)
            p->log->negative_time = true;
        *v = slot == S_SLOWEST ? -1.0 : 0.0;
        return STATUS_OK;
    }
    if (*v > limit) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected %.48s of at most %.6g s (%s), got %.6g", name, limit,
                        cumulative && ranks > 1 ? "the run time, 2 s more, times nprocs"
                                                : "the run time and 2 s more",
                        *v);
    }
    return STATUS_OK;
}

/* The record a counter of layer belongs to (made when new), after checking its rank.
 * names: its file name, mount point and fs type. */
static enum status use_record(struct parser *p, int layer, int64_t rank, uint64_t id,
                              const char *const names[3], long lineno, size_t *rec_index,
                              struct error *err)
{
    if (rank >= p->log->nprocs) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a rank below nprocs (%" PRId64 "), got %" PRId64,
                        p->log->nprocs, rank);
    }
    return find_record(p, layer, rank, id, names, lineno, rec_index, err);
}

/* The plausible ceiling of a counter in slot (INGEST_PLAUSIBLE_*). */
static int64_t ceiling_of(enum slot slot)
{
    return slot == S_BYTES_READ || slot == S_BYTES_WRITTEN ? INGEST_PLAUSIBLE_BYTES
                                                           : INGEST_PLAUSIBLE_OPS;
}

static enum status set_int(struct parser *p, struct pending *pd, const struct counter *c,
                           const char *name, int64_t v, uint64_t id, long lineno,
                           struct error *err)
{
    if (v < -1) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected %.48s >= 0 or -1 (not collected), got %" PRId64, name,
                        v);
    }
    /* A saturated or forged counter (POSIX_BYTES_READ 9e18: an eta of 9.2 EB) would
     * put its job in a group of its own and its volume in every sum. */
    if (v > ceiling_of(c->slot)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected %.48s of at most %" PRId64 " (iocontend's plausible "
                        "ceiling), got %" PRId64 " in record %" PRIu64,
                        name, ceiling_of(c->slot), v, id);
    }
    pd->ival[c->slot] = v;
    pd->seen |= 1u << c->slot;
    return STATUS_OK;
}

static enum status set_double(struct parser *p, struct pending *pd,
                              const struct counter *c, int64_t rank, const char *name,
                              double v, long lineno, struct error *err)
{
    enum status rc = check_time(p, c->slot, rank, name, &v, lineno, err);

    if (rc != STATUS_OK)
        return rc;
    pd->dval[c->slot] = v;
    pd->seen |= 1u << c->slot;
    return STATUS_OK;
}

static enum status counter_line(struct parser *p, char *line, bool has_newline,
                                long lineno, struct error *err)
{
    char *fields[8];
    size_t n = 1;
    int64_t rank;
    uint64_t id;
    int layer;
    size_t rec_index = 0;
    const struct counter *c;
    struct pending *pd;
    enum status rc;

    for (const char *s = line; *s != '\0'; s++)
        n += *s == '\t';
    if (n != 8 && strncmp(line, "total_", 6) == 0) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected darshan-parser default output, got --total output");
    }
    if (n != 8) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected 8 tab-separated fields, got %zu", n);
    }
    /* darshan-parser ends every line: a last line without one was cut off, maybe in
     * the middle of its fs type */
    if (!has_newline) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a complete line ending in a newline, got end of file");
    }
    fields[0] = line;
    for (size_t i = 1; i < 8; i++) {
        char *tab = strchr(fields[i - 1], '\t');

        *tab = '\0';
        fields[i] = tab + 1;
    }
    if (!text_i64(fields[1], &rank) || rank < -1) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a rank (an integer >= -1) in field 2, got '%.40s'",
                        fields[1]);
    }
    if (!text_u64(fields[2], &id)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a record id (unsigned 64-bit) in field 3, got '%.40s'",
                        fields[2]);
    }
    if (p->banner[0] != '\0' && strcmp(fields[0], p->banner) == 0)
        p->banner[0] = '\0';

    layer = layer_of_module(fields[0]);
    if (layer < 0) {
        p->log->n_skipped_module++;
        return STATUS_OK;
    }
    rc = use_record(p, layer, rank, id, (const char *const *)&fields[5], lineno,
                    &rec_index, err);
    if (rc != STATUS_OK)
        return rc;
    c = find_counter(layer, fields[3]);
    if (c == NULL)
        return STATUS_OK; /* a counter the metrics do not use */
    pd = &p->pend[rec_index];
    if (c->slot < S_FIRST_DOUBLE) {
        int64_t v;

        if (!text_i64(fields[4], &v)) {
            return error_at(err, STATUS_PARSE, p->path, lineno,
                            "expected an integer value for %.48s, got '%.40s'", fields[3],
                            fields[4]);
        }
        return set_int(p, pd, c, fields[3], v, id, lineno, err);
    }
    double v;

    if (!text_f64(fields[4], &v)) {
        return error_at(err, STATUS_PARSE, p->path, lineno,
                        "expected a number value for %.48s, got '%.40s'", fields[3],
                        fields[4]);
    }
    return set_double(p, pd, c, rank, fields[3], v, lineno, err);
}

/* ---- finishing ------------------------------------------------------------------ */

/* Sum of the collected parts (-1 = "not collected" parts are left out); -1 when no
 * part was collected. Saturates instead of overflowing on absurd input. */
static int64_t sum_counts(const int64_t *v, size_t n)
{
    int64_t sum = 0;
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        if (v[i] < 0)
            continue;
        any = true;
        sum = v[i] > INT64_MAX - sum ? INT64_MAX : sum + v[i];
    }
    return any ? sum : -1;
}

/* Adds v (-1: not collected) to *sum; false when the sum passes ceiling. */
static bool add_plausible(int64_t *sum, int64_t v, int64_t ceiling)
{
    if (v > 0)
        *sum = v > ceiling - *sum ? ceiling + 1 : *sum + v;
    return *sum <= ceiling;
}

/* The job's sums per module of bytes and operations, each within its plausible
 * ceiling (the counters are each within theirs, but many of them can sum past it,
 * or past INT64_MAX); an error names the record where the sum passes. */
static enum status check_sums(struct parser *p, struct error *err)
{
    static const char *const what[5] = {"BYTES_READ", "BYTES_WRITTEN", "reads", "writes",
                                        "opens"};
    int64_t sum[LAYER_COUNT][5] = {{0}};
    const struct darshan_log *log = p->log;

    for (size_t i = 0; i < log->n_records; i++) {
        const struct darshan_record *r = &log->records[i];
        const int64_t v[5] = {r->bytes_read, r->bytes_written, r->reads, r->writes,
                              r->opens};

        for (int k = 0; k < 5; k++) {
            int64_t ceiling = k < 2 ? INGEST_PLAUSIBLE_BYTES : INGEST_PLAUSIBLE_OPS;

            if (!add_plausible(&sum[r->layer][k], v[k], ceiling)) {
                return error_at(err, STATUS_PARSE, p->path, p->pend[i].first_line,
                                "expected the job's %s %s%s to sum to at most %" PRId64
                                " (iocontend's plausible ceiling), got more at the "
                                "record %" PRIu64 " that starts here",
                                module_names[r->layer],
                                k < 2 ? counter_prefixes[r->layer] : "", what[k], ceiling,
                                r->record_id);
            }
        }
    }
    return STATUS_OK;
}

static enum status finish_records(struct parser *p, struct error *err)
{
    struct darshan_log *log = p->log;

    for (size_t i = 0; i < log->n_records; i++) {
        struct darshan_record *r = &log->records[i];
        const struct pending *pd = &p->pend[i];
        uint32_t missing = p->required[r->layer] & ~pd->seen;

        if (missing != 0) {
            const char *name = "?";

            for (size_t k = 0; k < N_COUNTERS; k++) {
                if ((counters[k].layers & (1u << r->layer)) &&
                    (missing & (1u << counters[k].slot))) {
                    name = counters[k].suffix;
                    break;
                }
            }
            return error_at(err, STATUS_PARSE, p->path, pd->first_line,
                            "expected counter %s%s in the %s record that starts here "
                            "(the log is truncated?), got none",
                            counter_prefixes[r->layer], name, module_names[r->layer]);
        }
        r->reads = sum_counts(&pd->ival[S_READS_1], 4);
        r->writes = sum_counts(&pd->ival[S_WRITES_1], 4);
        r->opens = sum_counts(&pd->ival[S_OPENS_1], 2);
        r->bytes_read = pd->ival[S_BYTES_READ];
        r->bytes_written = pd->ival[S_BYTES_WRITTEN];
        r->open_start = pd->dval[S_OPEN_START];
        r->read_start = pd->dval[S_READ_START];
        r->read_end = pd->dval[S_READ_END];
        r->write_start = pd->dval[S_WRITE_START];
        r->write_end = pd->dval[S_WRITE_END];
        r->close_end = pd->dval[S_CLOSE_END];
        r->read_time = pd->dval[S_READ_TIME];
        r->write_time = pd->dval[S_WRITE_TIME];
        r->meta_time = pd->dval[S_META_TIME];
        if ((pd->seen & (1u << S_SLOWEST)) && pd->dval[S_SLOWEST] >= 0)
            r->slowest_rank_time = pd->dval[S_SLOWEST];
    }
    return check_sums(p, err);
}

static enum status parse_lines(struct parser *p, FILE *fp, struct error *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0;
    enum status rc = STATUS_OK;

    while ((got = getline(&line, &cap, fp)) >= 0) {
        size_t len = (size_t)got;
        bool has_newline = len > 0 && line[len - 1] == '\n';
        char *key, *value;

        lineno++;
        p->log->n_lines++;
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
        if (len == 0)
            continue;
        if (line[0] == '#') {
            rc = comment_line(p, line, lineno, err);
        } else {
            rc = counter_line(p, line, has_newline, lineno, err);
        }
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
        rc = header_end(p, lineno > 0 ? lineno : 1, err);
        if (rc != STATUS_OK)
            return rc;
    }
    rc = banner_close(p, true, err);
    if (rc != STATUS_OK)
        return rc;
    return finish_records(p, err);
}

static enum status parser_init(struct parser *p, const char *path, size_t max_records,
                               struct error *err)
{
    memset(p, 0, sizeof *p);
    p->max_records = max_records > 0 ? max_records : INGEST_DEFAULT_MAX_JOB_RECORDS;
    p->path = path != NULL ? path : "";
    p->in_header = true;
    p->hdr.path = p->path;
    p->log = calloc(1, sizeof *p->log);
    if (p->log == NULL)
        return error_set(err, STATUS_NOMEM, "log %s", p->path);
    p->log->path = str_dup(p->path);
    if (p->log->path == NULL)
        return error_set(err, STATUS_NOMEM, "log %s", p->path);
    for (size_t i = 0; i < N_COUNTERS; i++) {
        if (counters[i].slot != S_SLOWEST) { /* absent in some formats: -1 then */
            for (int l = 0; l < LAYER_COUNT; l++) {
                if (counters[i].layers & (1u << l))
                    p->required[l] |= 1u << counters[i].slot;
            }
        }
    }
    return STATUS_OK;
}

/* Frees what p holds; on success hands its log to *out. */
static enum status parser_done(struct parser *p, enum status rc, struct darshan_log **out)
{
    text_header_clear(&p->hdr);
    free(p->pend);
    free(p->table);
    for (size_t i = 0; i < p->n_other_keys; i++)
        free(p->other_keys[i]);
    free(p->other_keys);
    if (rc != STATUS_OK) {
        darshan_log_free(p->log);
        return rc;
    }
    *out = p->log;
    return STATUS_OK;
}

enum status ingest_darshan_parse(FILE *fp, const char *path, struct darshan_log **out,
                                 struct error *err)
{
    return ingest_darshan_parse_max(fp, path, 0, out, err);
}

enum status ingest_darshan_parse_max(FILE *fp, const char *path, size_t max_records,
                                     struct darshan_log **out, struct error *err)
{
    struct parser p;
    enum status rc;

    if (out != NULL)
        *out = NULL;
    if (fp == NULL || out == NULL)
        return error_set(err, STATUS_INVALID, "ingest_darshan_parse: no input or output");
    rc = parser_init(&p, path, max_records, err);
    if (rc == STATUS_OK)
        rc = parse_lines(&p, fp, err);
    return parser_done(&p, rc, out);
}

/* ---- binary logs: darshan_bin.c's sink ------------------------------------------ */

/* The header through the text's checks: the same keys, the same limits. */
static enum status bin_job(void *ctx, const struct dbin_job *job, struct error *err)
{
    struct parser *p = ctx;
    char v[TH_COUNT][64];
    const char *value[TH_COUNT];
    enum status rc = STATUS_OK;

    snprintf(v[TH_VERSION], sizeof v[0], "%s", job->version);
    snprintf(v[TH_UID], sizeof v[0], "%" PRId64, job->uid);
    snprintf(v[TH_JOBID], sizeof v[0], "%" PRId64, job->jobid);
    snprintf(v[TH_START], sizeof v[0], "%" PRId64, job->start_time_s);
    snprintf(v[TH_END], sizeof v[0], "%" PRId64, job->end_time_s);
    snprintf(v[TH_NPROCS], sizeof v[0], "%" PRId64, job->nprocs);
    snprintf(v[TH_RUN_TIME], sizeof v[0], "%.17g", job->run_time_s);
    for (int k = 0; k < TH_COUNT; k++)
        value[k] = k == TH_EXE ? (job->exe != NULL ? job->exe : "") : v[k];
    for (int k = 0; rc == STATUS_OK && k < TH_COUNT; k++)
        rc = header_value(p, text_header_keys[k], value[k], 0, err);
    return rc == STATUS_OK ? header_end(p, 0, err) : rc;
}

static enum status bin_mount(void *ctx, const char *mount_point, const char *fs_type,
                             struct error *err)
{
    return add_mount(ctx, mount_point, fs_type, err);
}

/* The log's trace, made when its first DXT module shows; NULL when out of memory. */
static struct dxt_trace *dxt_of(struct parser *p)
{
    if (p->log->dxt == NULL)
        p->log->dxt = calloc(1, sizeof *p->log->dxt);
    return p->log->dxt;
}

static enum status bin_module_begin(void *ctx, enum dbin_module module, const char *name,
                                    uint32_t version, bool incomplete, bool decoded,
                                    struct error *err)
{
    struct parser *p = ctx;

    (void)version;
    (void)decoded;
    if (module == DBIN_DXT_POSIX || module == DBIN_DXT_MPIIO) {
        if (dxt_of(p) == NULL)
            return error_set(err, STATUS_NOMEM, "DXT trace of %s", p->path);
        if (incomplete) {
            size_t n = strlen(p->dxt_incomplete);
            snprintf(p->dxt_incomplete + n, sizeof p->dxt_incomplete - n, "%s%s",
                     n ? "," : "", module == DBIN_DXT_POSIX ? "DXT_POSIX" : "DXT_MPIIO");
        }
    }
    return incomplete ? mark_incomplete(p, name, strlen(name), err) : STATUS_OK;
}

/* One file's trace on one rank, copied into the log's trace. */
static enum status bin_dxt(void *ctx, const struct dbin_dxt_file *f, struct error *err)
{
    struct parser *p = ctx;
    struct dxt_trace *t = dxt_of(p);
    struct dxt_file_trace *out;

    if (t == NULL)
        return error_set(err, STATUS_NOMEM, "DXT trace of %s", p->path);
    if (t->files == NULL || t->n_files == p->cap_dxt) {
        size_t cap = p->cap_dxt ? 2 * p->cap_dxt : 16;
        struct dxt_file_trace *more = realloc(t->files, cap * sizeof *more);
        if (more == NULL)
            return error_set(err, STATUS_NOMEM, "DXT trace of %s", p->path);
        t->files = more;
        p->cap_dxt = cap;
    }
    out = &t->files[t->n_files];
    memset(out, 0, sizeof *out);
    t->n_files++; /* counted first so that dxt_trace_free releases it */
    out->module = f->module == DBIN_DXT_POSIX ? DXT_MOD_POSIX : DXT_MOD_MPIIO;
    out->record_id = f->record_id;
    out->rank = f->rank;
    out->write_count = f->write_count;
    out->read_count = f->read_count;
    out->hostname = str_dup(f->hostname != NULL ? f->hostname : "");
    out->file_name = str_dup(f->file_name != NULL ? f->file_name : "");
    out->mount_point = str_dup(f->mount_point != NULL ? f->mount_point : "");
    out->fs_type = str_dup(f->fs_type != NULL ? f->fs_type : "");
    out->ops = malloc((f->n_ops + 1) * sizeof *out->ops);
    if (out->hostname == NULL || out->file_name == NULL || out->mount_point == NULL ||
        out->fs_type == NULL || out->ops == NULL)
        return error_set(err, STATUS_NOMEM, "DXT trace of %s", p->path);
    for (size_t i = 0; i < f->n_ops; i++) {
        const struct dbin_dxt_op *op = &f->ops[i];
        if (!(op->start_s >= 0 && op->end_s >= op->start_s && op->end_s <= p->limit_s)) {
            return error_at(err, STATUS_PARSE, p->path, 0,
                            "expected DXT operations within the job (0 <= start <= end "
                            "<= %.6g s), got %.6g to %.6g in record %" PRIu64,
                            p->limit_s, op->start_s, op->end_s, f->record_id);
        }
        out->ops[i] = (struct dxt_op){.is_write = op->is_write,
                                      .offset = op->offset,
                                      .length = op->length,
                                      .start_s = op->start_s,
                                      .end_s = op->end_s,
                                      .pthread_id = op->pthread_id,
                                      .ost = op->ost};
    }
    out->n_ops = f->n_ops;
    t->n_ops += f->n_ops;
    return STATUS_OK;
}

/* The trace takes the log's identity. */
static enum status dxt_finish(struct parser *p, struct error *err)
{
    struct darshan_log *log = p->log;
    struct dxt_trace *t = log->dxt;

    if (t == NULL)
        return STATUS_OK;
    t->path = str_dup(log->path);
    t->exe = str_dup(log->exe != NULL ? log->exe : "");
    t->incomplete_modules = p->dxt_incomplete[0] ? str_dup(p->dxt_incomplete) : NULL;
    if (t->path == NULL || t->exe == NULL ||
        (p->dxt_incomplete[0] && t->incomplete_modules == NULL))
        return error_set(err, STATUS_NOMEM, "DXT trace of %s", p->path);
    t->log_version = log->log_version;
    t->uid = log->uid;
    memcpy(t->jobid, log->jobid, sizeof t->jobid);
    t->start_time_s = log->start_time_s;
    t->end_time_s = log->end_time_s;
    t->nprocs = log->nprocs;
    t->run_time_s = log->run_time_s;
    return STATUS_OK;
}

static enum status bin_counter(void *ctx, const struct dbin_counter *c, struct error *err)
{
    struct parser *p = ctx;
    int layer = layer_of_module(c->module);
    const char *names[3] = {c->file_name, c->mount_point, c->fs_type};
    const struct counter *k;
    size_t rec_index = 0;
    enum status rc;

    if (layer < 0) {
        p->log->n_skipped_module++;
        return STATUS_OK;
    }
    if (c->rank < -1) {
        return error_at(err, STATUS_PARSE, p->path, 0,
                        "expected a rank >= -1 in a %s record, got %" PRId64, c->module,
                        c->rank);
    }
    rc = use_record(p, layer, c->rank, c->record_id, names, 0, &rec_index, err);
    if (rc != STATUS_OK)
        return rc;
    struct name_cache *nc = &p->names[((uintptr_t)c->name >> 3) % 128];
    if (nc->name != c->name || nc->layer != layer) {
        nc->name = c->name;
        nc->layer = layer;
        nc->c = find_counter(layer, c->name);
    }
    k = nc->c;
    if (k == NULL)
        return STATUS_OK;
    if (c->kind == DBIN_INT && k->slot < S_FIRST_DOUBLE)
        return set_int(p, &p->pend[rec_index], k, c->name, c->i, c->record_id, 0, err);
    if (c->kind == DBIN_FLOAT && k->slot >= S_FIRST_DOUBLE)
        return set_double(p, &p->pend[rec_index], k, c->rank, c->name, c->f, 0, err);
    return error_at(err, STATUS_PARSE, p->path, 0,
                    "expected %s to be %s in record %" PRIu64 ", got another type",
                    c->name, k->slot < S_FIRST_DOUBLE ? "an integer" : "a number",
                    c->record_id);
}

enum status ingest_darshan_read(const unsigned char *data, size_t len, const char *path,
                                struct darshan_log **out, struct error *err)
{
    return ingest_darshan_read_max(data, len, path, 0, 0, out, err);
}

enum status ingest_darshan_read_max(const unsigned char *data, size_t len,
                                    const char *path, size_t max_bytes,
                                    size_t max_records, struct darshan_log **out,
                                    struct error *err)
{
    struct parser p;
    enum status rc;

    if (out != NULL)
        *out = NULL;
    if (data == NULL || out == NULL)
        return error_set(err, STATUS_INVALID, "ingest_darshan_read: no input or output");
    rc = parser_init(&p, path, max_records, err);
    if (rc == STATUS_OK) {
        const struct dbin_sink sink = {.ctx = &p,
                                       .job = bin_job,
                                       .mount = bin_mount,
                                       .module_begin = bin_module_begin,
                                       .counter = bin_counter,
                                       .dxt = bin_dxt};
        rc =
            dbin_read_max(p.path, data, len, false, max_bytes, p.max_records, &sink, err);
    }
    if (rc == STATUS_OK && p.in_header)
        rc = error_at(err, STATUS_PARSE, p.path, 0, "expected a job record, got none");
    if (rc == STATUS_OK)
        rc = finish_records(&p, err);
    if (rc == STATUS_OK)
        rc = dxt_finish(&p, err);
    return parser_done(&p, rc, out);
}

bool ingest_darshan_is_binary(const unsigned char *data, size_t len)
{
    return dbin_is_log(data, len);
}

void darshan_log_free(struct darshan_log *log)
{
    if (log == NULL)
        return;
    for (size_t i = 0; i < log->n_records; i++) {
        free(log->records[i].file_name);
        free(log->records[i].mount_point);
        free(log->records[i].fs_type);
    }
    free(log->records);
    for (size_t i = 0; i < log->n_mounts; i++) {
        free(log->mount_points[i]);
        free(log->mount_fs_types[i]);
    }
    free(log->mount_points);
    free(log->mount_fs_types);
    free(log->exe);
    free(log->path);
    free(log->incomplete_modules);
    dxt_trace_free(log->dxt);
    free(log);
}
