/* test_bombs.c: issue 29, items 1 and 8a, against a real PostgreSQL and the real
 * binary: binary logs built here from a real one (a record table of zlib'd zeros, a
 * POSIX region of 100,001 records, a forged counter, a job dated 2100), each
 * quarantined with its reason while the good log beside it loads, with ingest's peak
 * RSS measured by /usr/bin/time -v; a log that runs out of memory is quarantined
 * instead of stopping the batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static struct pgfixture fx;
static char work[PATH_MAX]; /* the files made here, removed at the end */

/* The real log the bombs are made of (format 3.41, zlib, one POSIX record) and the
 * good logs loaded beside them (one per test: a log loaded before is skipped). */
#define BASE_LOG      "darshan/release_x86_64_3.5.0/mpi-io-test-x86_64-3.5.0.darshan"
#define BASE_TEXT     "darshan/release_x86_64_3.5.0/parser.txt"
#define HEADER_341    1328
#define SLOTS         64
#define POSIX_ID      1
#define POSIX_RECORD  704 /* version 4: id, rank, 69 integers, 17 doubles */
#define BYTES_READ_AT (16 + 14 * 8)
#define YEAR_2100     4102444800LL

/* The peak RSS every run of ingest here must stay under: ingest's own (about 30 MB),
 * the log's bytes, its inflated regions within max_file_bytes (64 MiB by default) and
 * their growth, and its records; twice that under AddressSanitizer, whose shadow,
 * redzones and quarantine of freed blocks count in RSS. README "Memory" documents
 * it. */
#if defined(__SANITIZE_ADDRESS__)
#define SAN_FACTOR 2
#else
#define SAN_FACTOR 1
#endif

/* ---- bytes ----------------------------------------------------------------------- */

struct bytes {
    unsigned char *p;
    size_t len;
};

static void bytes_add(struct bytes *b, const void *p, size_t n)
{
    unsigned char *q = realloc(b->p, b->len + n + 1);

    assert_non_null(q);
    b->p = q;
    if (n > 0)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v;

    memcpy(&v, p, 8); /* the logs here are little-endian, as this machine */
    return v;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* zlib of n bytes of which `in` (len bytes) is repeated: level 9, one stream;
 * strategy Z_RLE for zeros (ten times faster), else Z_DEFAULT_STRATEGY. */
static struct bytes deflate_repeated(const unsigned char *in, size_t len, size_t n,
                                     int strategy)
{
    struct bytes out = {NULL, 0};
    unsigned char buf[1 << 16];
    z_stream z;
    size_t left = n;

    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15, 8, strategy), Z_OK);
    for (;;) {
        size_t chunk = left < len ? left : len;
        int flush = left == chunk ? Z_FINISH : Z_NO_FLUSH;
        int zr;

        z.next_in = (unsigned char *)(uintptr_t)in;
        z.avail_in = (uInt)chunk;
        left -= chunk;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            zr = deflate(&z, flush);
            assert_true(zr != Z_STREAM_ERROR);
            bytes_add(&out, buf, sizeof buf - z.avail_out);
        } while (z.avail_out == 0);
        if (flush == Z_FINISH) {
            assert_int_equal(zr, Z_STREAM_END);
            break;
        }
    }
    deflateEnd(&z);
    return out;
}

static struct bytes deflate_bytes(const unsigned char *in, size_t len)
{
    return deflate_repeated(in, len, len, Z_DEFAULT_STRATEGY);
}

static struct bytes zeros_zlib(size_t n)
{
    static const unsigned char zero[1 << 20];

    return deflate_repeated(zero, sizeof zero, n, Z_RLE);
}

static struct bytes inflate_bytes(const unsigned char *in, size_t len)
{
    struct bytes out = {NULL, 0};
    unsigned char buf[1 << 16];
    z_stream z;
    int zr;

    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit(&z), Z_OK);
    z.next_in = (unsigned char *)(uintptr_t)in;
    z.avail_in = (uInt)len;
    do {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        zr = inflate(&z, Z_NO_FLUSH);
        assert_true(zr == Z_OK || zr == Z_STREAM_END);
        bytes_add(&out, buf, sizeof buf - z.avail_out);
    } while (zr != Z_STREAM_END);
    inflateEnd(&z);
    return out;
}

/* ---- logs ------------------------------------------------------------------------ */

static struct bytes base_log(void)
{
    struct bytes b = {NULL, 0};

    b.p = (unsigned char *)testutil_read_file(
        testutil_path(testutil_shared_data(), BASE_LOG), &b.len);
    assert_non_null(b.p);
    assert_true(b.len > HEADER_341);
    assert_memory_equal(b.p, "3.41", 4);
    return b;
}

/* The compressed bytes of the base log's region: -2 the job, -1 the record table,
 * else a module id. */
static struct bytes region_of(const struct bytes *log, int which)
{
    uint64_t off, len;
    struct bytes out = {NULL, 0};

    if (which == -2) {
        off = HEADER_341;
        len = get_u64(log->p + 32) - HEADER_341;
    } else if (which == -1) {
        off = get_u64(log->p + 32);
        len = get_u64(log->p + 40);
    } else {
        off = get_u64(log->p + 48 + (size_t)which * 16);
        len = get_u64(log->p + 56 + (size_t)which * 16);
    }
    assert_true(off + len <= log->len);
    bytes_add(&out, log->p + off, len);
    return out;
}

/* The base log with its job region, record table or POSIX region replaced by the
 * compressed bytes given (NULL: kept), the header's map rewritten. */
static struct bytes rebuild(const struct bytes *log, const struct bytes *job,
                            const struct bytes *names, const struct bytes *posix)
{
    struct bytes out = {NULL, 0};
    struct bytes keep;

    bytes_add(&out, log->p, HEADER_341);
    keep = region_of(log, -2);
    bytes_add(&out, job != NULL ? job->p : keep.p, job != NULL ? job->len : keep.len);
    free(keep.p);
    keep = region_of(log, -1);
    put_u64(out.p + 32, out.len);
    put_u64(out.p + 40, names != NULL ? names->len : keep.len);
    bytes_add(&out, names != NULL ? names->p : keep.p,
              names != NULL ? names->len : keep.len);
    free(keep.p);
    for (int id = 0; id < SLOTS; id++) {
        if (get_u64(log->p + 56 + (size_t)id * 16) == 0)
            continue;
        const struct bytes *repl = id == POSIX_ID ? posix : NULL;
        keep = region_of(log, id);
        put_u64(out.p + 48 + (size_t)id * 16, out.len);
        put_u64(out.p + 56 + (size_t)id * 16, repl != NULL ? repl->len : keep.len);
        bytes_add(&out, repl != NULL ? repl->p : keep.p,
                  repl != NULL ? repl->len : keep.len);
        free(keep.p);
    }
    return out;
}

/* The base log's POSIX region inflated: one record of POSIX_RECORD bytes. */
static struct bytes posix_record(const struct bytes *log)
{
    struct bytes z = region_of(log, POSIX_ID);
    struct bytes rec = inflate_bytes(z.p, z.len);

    free(z.p);
    assert_int_equal(rec.len, POSIX_RECORD);
    return rec;
}

/* A POSIX region of n copies of the base record, each with an id of its own. */
static struct bytes posix_records(const struct bytes *log, size_t n)
{
    struct bytes rec = posix_record(log);
    unsigned char *all = malloc(n * POSIX_RECORD);
    struct bytes z;

    assert_non_null(all);
    for (size_t i = 0; i < n; i++) {
        memcpy(all + i * POSIX_RECORD, rec.p, POSIX_RECORD);
        put_u64(all + i * POSIX_RECORD, 0x1000 + i);
    }
    z = deflate_bytes(all, n * POSIX_RECORD);
    free(all);
    free(rec.p);
    return z;
}

/* ---- files and runs -------------------------------------------------------------- */

/* work/dir (made on first use) and work/dir/name. */
static const char *work_dir(const char *dir)
{
    static char path[PATH_MAX + 64];

    snprintf(path, sizeof path, "%s/%s", work, dir);
    mkdir(path, 0700);
    return path;
}

static void write_in(const char *dir, const char *name, const void *p, size_t len)
{
    char path[PATH_MAX * 2];

    snprintf(path, sizeof path, "%s/%s", work_dir(dir), name);
    assert_int_equal(testutil_write_file(path, p, len), 0);
}

static void copy_in(const char *rel, const char *dir, const char *name)
{
    size_t len;
    char *data = testutil_read_file(testutil_path(testutil_shared_data(), rel), &len);

    assert_non_null(data);
    write_in(dir, name, data, len);
    free(data);
}

struct run {
    int rc;
    json_t *summary;
    long max_rss_kb;
    double seconds;
};

/* `ingest darshan --jobs 2 --json work/dir` under /usr/bin/time -v, with config text
 * (NULL: none) and, when mem_bytes > 0, under a memory limit: RLIMIT_DATA (prlimit
 * --data: the private writable memory; --as also counts the 64 MB each malloc arena
 * reserves, which made the limit's effect vary from run to run), or under
 * AddressSanitizer, whose shadow is data too, a limit of one allocation
 * (max_allocation_size_mb) of that size. */
static struct run ingest(const char *dir, const char *config, size_t mem_bytes)
{
    char cmd[PATH_MAX * 6], conf_opt[PATH_MAX * 2] = "", limit[256] = "";
    char timef[PATH_MAX + 32];
    struct run r = {0, NULL, -1, 0};
    json_error_t jerr;

    snprintf(timef, sizeof timef, "%s/time.txt", work);
    if (config != NULL) {
        char conf[PATH_MAX + 32];

        snprintf(conf, sizeof conf, "%s/%s.conf", work, dir);
        assert_int_equal(testutil_write_file(conf, config, strlen(config)), 0);
        snprintf(conf_opt, sizeof conf_opt, "--config '%s'", conf);
    }
    if (mem_bytes > 0) {
#if defined(__SANITIZE_ADDRESS__)
        const char *old = getenv("ASAN_OPTIONS");
        snprintf(limit, sizeof limit,
                 "env ASAN_OPTIONS='%s%sallocator_may_return_null=1:"
                 "max_allocation_size_mb=%zu' ",
                 old != NULL ? old : "", old != NULL && *old ? ":" : "", mem_bytes >> 20);
#else
        snprintf(limit, sizeof limit, "prlimit --data=%zu -- ", mem_bytes);
#endif
    }
    snprintf(cmd, sizeof cmd,
             "/usr/bin/time -v -o '%s' %s'%s' --quiet %s ingest darshan --jobs 2 --json "
             "'%s/%s'",
             timef, limit, fx.bin, conf_opt, work, dir);
    double t0 = testutil_now_s();
    char *out = testutil_run(cmd, &r.rc);
    r.seconds = testutil_now_s() - t0;
    assert_non_null(out);
    r.summary = json_loads(out, 0, &jerr);
    if (r.summary == NULL)
        fail_msg("%s: not JSON (exit %d): %s", cmd, r.rc, out);
    free(out);
    size_t tlen;
    char *t = testutil_read_file(timef, &tlen);
    assert_non_null(t);
    const char *at = strstr(t, "Maximum resident set size (kbytes): ");
    assert_non_null(at);
    r.max_rss_kb = strtol(at + strlen("Maximum resident set size (kbytes): "), NULL, 10);
    free(t);
    print_message("   ingest %s: exit %d, %.2f s, peak RSS %ld MB\n", dir, r.rc,
                  r.seconds, r.max_rss_kb / 1024);
    return r;
}

static long field(json_t *j, const char *name)
{
    json_t *v = json_object_get(j, name);

    assert_true(json_is_integer(v));
    return (long)json_integer_value(v);
}

/* The run finished (exit 1: some quarantined) with loaded and quarantined as given,
 * under max_rss_mb of peak RSS. */
static void assert_run(struct run *r, long loaded, long quarantined, long max_rss_mb)
{
    assert_int_equal(r->rc, 1);
    assert_int_equal(field(r->summary, "loaded"), loaded);
    assert_int_equal(field(r->summary, "quarantined"), quarantined);
    if (r->max_rss_kb > max_rss_mb * 1024 * SAN_FACTOR)
        fail_msg("peak RSS %ld MB, over the bound of %ld MB", r->max_rss_kb / 1024,
                 max_rss_mb * SAN_FACTOR);
    json_decref(r->summary);
    r->summary = NULL;
}

/* The quarantine of the file whose path ends in name: its line is line and its
 * message contains want. */
static void assert_quarantined(const char *name, long line, const char *want)
{
    char *got = pgfixture_query(&fx,
                                "SELECT coalesce(line, 0)::text || '|' || message FROM "
                                "ingest_errors WHERE path LIKE '%/' || $1",
                                name);
    char *bar;

    assert_non_null(got);
    bar = strchr(got, '|');
    if (bar == NULL || strtol(got, NULL, 10) != line || strstr(bar + 1, want) == NULL)
        fail_msg("%s: quarantined as '%s', want line %ld and '%s'", name, got, line,
                 want);
    free(got);
}

/* The good log's job is in the database, by its file name. */
static void assert_loaded(const char *name)
{
    char *got = pgfixture_query(&fx,
                                "SELECT count(*) FROM loaded_files WHERE path LIKE "
                                "'%/' || $1",
                                name);

    assert_non_null(got);
    if (strcmp(got, "1") != 0)
        fail_msg("%s: %s rows in loaded_files, want 1", name, got);
    free(got);
}

/* ---- the tests ------------------------------------------------------------------- */

static struct bytes names_bomb; /* a record table of 96 MiB of zeros, zlib'd */

/* The bomb at a tenth of its size (900 MiB of zeros made 100 M name records):
 * two in one folder, a good log beside them. */
static void name_record_bombs_are_quarantined_and_the_good_log_loads(void **state)
{
    struct bytes log = base_log();
    struct bytes bomb = rebuild(&log, NULL, &names_bomb, NULL);

    (void)state;
    assert_true(bomb.len < 512 * 1024); /* 96 MiB of names in under 512 KB */
    /* two contents: a byte after the last region, which the reader never reads */
    bytes_add(&bomb, "\0", 1);
    write_in("two", "bomb1.darshan", bomb.p, bomb.len);
    bytes_add(&bomb, "\0", 1);
    write_in("two", "bomb2.darshan", bomb.p, bomb.len);
    copy_in("darshan/release_x86_64_3.4.6/mpi-io-test-x86_64-3.4.6.darshan", "two",
            "good.darshan");
    struct run r = ingest("two", NULL, 0);
    /* two threads, each with one log's 64 MiB at most, and ingest's own */
    assert_run(&r, 1, 2, 200);
    /* the job region took 2,197 of the 64 MiB */
    assert_quarantined("two/bomb1.darshan", 0,
                       "record table: inflates past 67106667 bytes (the log needs more "
                       "than 67108864 bytes inflated, [ingest] max_file_bytes)");
    assert_quarantined("two/bomb2.darshan", 0, "needs more than 67108864 bytes inflated");
    assert_loaded("two/good.darshan");
    free(bomb.p);
    free(log.p);
}

static void a_job_of_too_many_records_is_quarantined(void **state)
{
    struct bytes log = base_log();
    struct bytes posix = posix_records(&log, 1001);
    struct bytes big = rebuild(&log, NULL, NULL, &posix);

    (void)state;
    write_in("many", "many.darshan", big.p, big.len);
    copy_in("darshan/release_x86_64_3.4.4/mpi-io-test-x86_64-3.4.4.darshan", "many",
            "good.darshan");
    /* the bound set low, so that the test need not make (and parse) 100,001 records:
     * the same check, run before each record is made */
    struct run r = ingest("many", "[ingest]\nmax_job_records = 1000\n", 0);
    assert_run(&r, 1, 1, 100);
    assert_quarantined("many/many.darshan", 0,
                       "expected at most 1000 records in a job ([ingest] "
                       "max_job_records), got more: the POSIX record 5096 of rank -1 "
                       "is one too many");
    assert_loaded("many/good.darshan");
    free(big.p);
    free(posix.p);
    free(log.p);
}

static void out_of_memory_quarantines_the_log_not_the_batch(void **state)
{
    struct bytes log = base_log();
    struct bytes bomb = rebuild(&log, NULL, &names_bomb, NULL);

    (void)state;
    bytes_add(&bomb, "\0\0\0", 3); /* a content of its own */
    write_in("oom", "hungry.darshan", bomb.p, bomb.len);
    copy_in("darshan/release_x86_64_3.3.0/mpi-io-test-x86_64-3.3.0.darshan", "oom",
            "good.darshan");
    /* The cap lets the record table grow to 96 MiB; the memory limit does not: its
     * buffer doubles from 32 to 64 MiB and that allocation fails (ingest's own data is
     * 8 to 16 MB: 32 MiB fits in 48 MB, not in 40). */
    struct run r = ingest("oom", "[ingest]\nmax_file_bytes = 1073741824\n",
#if defined(__SANITIZE_ADDRESS__)
                          (size_t)48 << 20
#else
                          (size_t)64 << 20
#endif
    );
    assert_run(&r, 1, 1, 100);
    assert_quarantined("oom/hungry.darshan", 0,
                       "out of memory: needs more than it could get (");
    assert_quarantined("oom/hungry.darshan", 0, "record table: 67108864 bytes)");
    assert_loaded("oom/good.darshan");
    free(bomb.p);
    free(log.p);
}

/* The base text with from (which must occur) replaced by to; *line is the number of
 * the line it starts. */
static char *text_variant(const char *from, const char *to, long *line)
{
    size_t len;
    char *text =
        testutil_read_file(testutil_path(testutil_shared_data(), BASE_TEXT), &len);
    char *at, *end, *out;

    assert_non_null(text);
    at = strstr(text, from);
    assert_non_null(at);
    end = at + strlen(from);
    *line = 1;
    for (const char *s = text; s < at; s++)
        *line += *s == '\n';
    out = malloc(len + strlen(to) + 1);
    assert_non_null(out);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), to);
    strcat(out, end);
    free(text);
    return out;
}

/* POSIX_BYTES_READ 9e18 and a job dated 2100, text and binary; and a log whose
 * regions fit the cap one by one but not together. */
static void implausible_logs_are_quarantined_with_their_line(void **state)
{
    struct bytes log = base_log();
    long bytes_line, end_line;
    char *bytes_text = text_variant(
        "POSIX\t-1\t9347516096890457488\tPOSIX_BYTES_READ\t67108864",
        "POSIX\t-1\t9347516096890457488\tPOSIX_BYTES_READ\t9000000000000000000",
        &bytes_line);
    char *late_text =
        text_variant("# end_time: 1762569885", "# end_time: 4102444800", &end_line);

    (void)state;
    write_in("odd", "saturated.parser.txt", bytes_text, strlen(bytes_text));
    write_in("odd", "late.parser.txt", late_text, strlen(late_text));

    /* the same in binary: the POSIX record's BYTES_READ, the job's start and end */
    struct bytes rec = posix_record(&log);
    put_u64(rec.p + BYTES_READ_AT, 9000000000000000000ULL);
    struct bytes posix = deflate_bytes(rec.p, rec.len);
    struct bytes sat = rebuild(&log, NULL, NULL, &posix);
    write_in("odd", "saturated.darshan", sat.p, sat.len);

    struct bytes jz = region_of(&log, -2);
    struct bytes job = inflate_bytes(jz.p, jz.len);
    put_u64(job.p + 8, (uint64_t)YEAR_2100);  /* start_time */
    put_u64(job.p + 24, (uint64_t)YEAR_2100); /* end_time */
    struct bytes job_z = deflate_bytes(job.p, job.len);
    struct bytes late = rebuild(&log, &job_z, NULL, NULL);
    write_in("odd", "late.darshan", late.p, late.len);

    /* regions each within the cap, their sum not: the job region's 2,197 bytes, a
     * record table of 603,000 (67,000 names of 9 bytes) and the POSIX region's 704,
     * under a cap that leaves 300 for the last */
    struct bytes table = zeros_zlib(603000);
    struct bytes sum = rebuild(&log, NULL, &table, NULL);
    write_in("odd", "sum.darshan", sum.p, sum.len);

    copy_in("darshan/release_x86_64_3.2.1/mpi-io-test-x86_64-3.2.1.darshan", "odd",
            "good.darshan");
    struct run r = ingest("odd", "[ingest]\nmax_file_bytes = 605497\n", 0);
    assert_run(&r, 1, 5, 200);
    assert_quarantined("odd/sum.darshan", 0,
                       "POSIX region: inflates past 300 bytes (the log needs more than "
                       "605497 bytes inflated, [ingest] max_file_bytes)");
    assert_quarantined("odd/saturated.parser.txt", bytes_line,
                       "expected POSIX_BYTES_READ of at most 1152921504606846976 "
                       "(iocontend's plausible ceiling), got 9000000000000000000 in "
                       "record 9347516096890457488");
    assert_quarantined("odd/late.parser.txt", end_line,
                       "expected end_time at most a day after the file's modification "
                       "time (");
    assert_quarantined("odd/saturated.darshan", 0,
                       "expected POSIX_BYTES_READ of at most 1152921504606846976");
    assert_quarantined("odd/late.darshan", 0,
                       "expected start_time at most a day after the file's modification "
                       "time (");
    assert_loaded("odd/good.darshan");
    free(bytes_text);
    free(late_text);
    free(rec.p);
    free(posix.p);
    free(sat.p);
    free(jz.p);
    free(job.p);
    free(job_z.p);
    free(late.p);
    free(table.p);
    free(sum.p);
    free(log.p);
}

/* A byte count above 2^53 (where a double steps by 2) and within the plausible ceiling
 * is stored exactly: 2^53 + 1 bytes read through MPI-IO, the layer η counts of the
 * file's two (POSIX's 64 MiB beneath it are not added). */
static void a_byte_count_past_two_to_the_53_is_stored_exactly(void **state)
{
    long line;
    char *text = text_variant(
        "MPI-IO\t-1\t9347516096890457488\tMPIIO_BYTES_READ\t67108864",
        "MPI-IO\t-1\t9347516096890457488\tMPIIO_BYTES_READ\t9007199254740993", &line);

    (void)state;
    write_in("exact", "exact.parser.txt", text, strlen(text));
    struct run r = ingest("exact", NULL, 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(field(r.summary, "loaded"), 1);
    json_decref(r.summary);
    char *got = pgfixture_query(
        &fx, "SELECT eta_read::text FROM jobs WHERE source_path LIKE '%/' || $1",
        "exact/exact.parser.txt");
    assert_non_null(got);
    assert_string_equal(got, "9007199254740993");
    free(got);
    free(text);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(work, sizeof work, "%s/iocontend-bombs-XXXXXX",
             tmp != NULL && *tmp ? tmp : "/tmp");
    if (mkdtemp(work) == NULL)
        return -1;
    names_bomb = zeros_zlib((size_t)96 << 20);
    return pgfixture_start(&fx);
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    int rc;

    (void)state;
    pgfixture_stop(&fx);
    free(names_bomb.p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    free(testutil_run(cmd, &rc));
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(name_record_bombs_are_quarantined_and_the_good_log_loads),
        cmocka_unit_test(a_job_of_too_many_records_is_quarantined),
        cmocka_unit_test(out_of_memory_quarantines_the_log_not_the_batch),
        cmocka_unit_test(implausible_logs_are_quarantined_with_their_line),
        cmocka_unit_test(a_byte_count_past_two_to_the_53_is_stored_exactly),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
