/* test_darshan_bin.c: the binary Darshan reader against darshan-parser's text of the
 * 39 real logs, the same logs recompressed as bzip2 and uncompressed, and hostile
 * bytes (every prefix of a log, random byte flips). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../ingest/darshan/darshan_bin.h"
#include "../../ingest/ingest.h"
#include "../support/testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The modules whose counter lines must equal darshan-parser's: every module it
 * prints (DXT is darshan-dxt-parser's: test_darshan_mod.c compares it). */
static const char *const compared_modules[] = {
    "POSIX",       "MPI-IO", "STDIO",  "H5F",     "H5D", "PNETCDF_FILE",
    "PNETCDF_VAR", "BG/Q",   "LUSTRE", "HEATMAP", "DFS", "DAOS"};

/* The header keys compared (then the regions block and the mount table). */
static const char *const header_keys[] = {"# darshan log version: ",
                                          "# compression method: ",
                                          "# exe: ",
                                          "# uid: ",
                                          "# jobid: ",
                                          "# start_time: ",
                                          "# start_time_asci: ",
                                          "# end_time: ",
                                          "# end_time_asci: ",
                                          "# nprocs: ",
                                          "# run time: ",
                                          "# metadata: ",
                                          "# header: ",
                                          "# job data: ",
                                          "# record table: ",
                                          "# mount entry:\t"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The lines compared: header keys, "# X module: N bytes" lines, the mount table and
 * the counter lines of compared_modules. regions_too: keep the region lines (their
 * sizes change when a log is recompressed). */
static bool compared(const char *line, bool regions_too)
{
    if (line[0] == '#') {
        if (strstr(line, " module: ") != NULL && strstr(line, "bytes (compressed)"))
            return regions_too;
        if (!regions_too &&
            (starts(line, "# job data: ") || starts(line, "# record table: ") ||
             starts(line, "# compression method: ")))
            return false;
        for (size_t i = 0; i < N_OF(header_keys); i++)
            if (starts(line, header_keys[i]))
                return true;
        return false;
    }
    for (size_t i = 0; i < N_OF(compared_modules); i++) {
        size_t n = strlen(compared_modules[i]);
        if (strncmp(line, compared_modules[i], n) == 0 && line[n] == '\t')
            return true;
    }
    return false;
}

/* Compares the compared lines of two texts; on the first difference prints both
 * lines and returns false. */
static bool same_lines(const char *what, const char *want, const char *got,
                       bool regions_too, size_t *n_compared)
{
    const char *a = want, *b = got;
    size_t n = 0;

    for (;;) {
        size_t la = 0, lb = 0;

        while (*a != '\0') {
            la = strcspn(a, "\n");
            char line[8192];
            snprintf(line, sizeof line, "%.*s", (int)la, a);
            if (compared(line, regions_too))
                break;
            a += la + (a[la] == '\n');
            la = 0;
        }
        while (*b != '\0') {
            lb = strcspn(b, "\n");
            char line[8192];
            snprintf(line, sizeof line, "%.*s", (int)lb, b);
            if (compared(line, regions_too))
                break;
            b += lb + (b[lb] == '\n');
            lb = 0;
        }
        if (*a == '\0' && *b == '\0')
            break;
        if (*a == '\0' || *b == '\0' || la != lb || memcmp(a, b, la) != 0) {
            print_error("%s: compared line %zu differs:\n  want: %.*s\n  got:  %.*s\n",
                        what, n + 1, (int)la, *a != '\0' ? a : "(end)", (int)lb,
                        *b != '\0' ? b : "(end)");
            return false;
        }
        n++;
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    if (n_compared != NULL)
        *n_compared = n;
    return true;
}

/* The dump of path as a string (caller frees), its status in *rc. */
static char *dump_of(const char *path, bool show_incomplete, enum status *rc,
                     struct error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);

    assert_non_null(fp);
    *rc = ingest_darshan_dump(fp, path, show_incomplete, err);
    assert_int_equal(fclose(fp), 0);
    return text;
}

/* The .darshan file of a log folder into buf; false when none. */
static bool log_of(const char *dir, char *buf, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;

    if (d == NULL)
        return false;
    while (!found && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 8 && strcmp(e->d_name + n - 8, ".darshan") == 0) {
            snprintf(buf, size, "%s/%s", dir, e->d_name);
            found = true;
        }
    }
    closedir(d);
    return found;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The log folders of the shared data, sorted (caller frees each and the array). */
static char **log_dirs(size_t *n_out)
{
    char root[1024];
    DIR *d;
    struct dirent *e;
    char **v = NULL;
    size_t n = 0;

    snprintf(root, sizeof root, "%s/darshan", testutil_shared_data());
    d = opendir(root);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char dir[2048], logp[4096];

        if (e->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        if (!log_of(dir, logp, sizeof logp))
            continue;
        v = realloc(v, (n + 1) * sizeof *v);
        assert_non_null(v);
        v[n++] = strdup(dir);
    }
    closedir(d);
    qsort(v, n, sizeof *v, name_cmp);
    *n_out = n;
    return v;
}

static void free_dirs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void every_log_dumps_like_darshan_parser(void **state)
{
    size_t n = 0, failures = 0;
    char **dirs = log_dirs(&n);
    (void)state;

    assert_int_equal(n, 39);
    for (size_t i = 0; i < n; i++) {
        char logp[4096], want_path[4096], stderr_path[4096];
        struct error err = {0};
        enum status rc;
        size_t len = 0, n_lines = 0;

        assert_true(log_of(dirs[i], logp, sizeof logp));
        snprintf(want_path, sizeof want_path, "%s/parser.txt", dirs[i]);
        snprintf(stderr_path, sizeof stderr_path, "%s/parser.stderr.txt", dirs[i]);
        char *want = testutil_read_file(want_path, &len);
        char *errs = testutil_read_file(stderr_path, &len);
        bool incomplete =
            errs != NULL && strstr(errs, "contains incomplete data") != NULL;
        char *got = dump_of(logp, false, &rc, &err);

        assert_non_null(want);
        if (incomplete) {
            /* darshan-parser stops at the incomplete module: so do we, naming it */
            if (rc != STATUS_PARSE || strstr(err.msg, "incomplete") == NULL ||
                strcmp(err.file, logp) != 0) {
                print_error("%s: expected STATUS_PARSE naming an incomplete module, got "
                            "%s: %s\n",
                            dirs[i], status_name(rc), err.msg);
                failures++;
            }
        } else if (rc != STATUS_OK) {
            print_error("%s: %s: %s\n", dirs[i], status_name(rc), err.msg);
            failures++;
        }
        if (!same_lines(dirs[i], want, got, true, &n_lines))
            failures++;
        else if (n_lines < 20) {
            print_error("%s: only %zu lines compared\n", dirs[i], n_lines);
            failures++;
        }
        free(want);
        free(errs);
        free(got);
    }
    free_dirs(dirs, n);
    assert_int_equal(failures, 0);
}

static void incomplete_stdio_shows_like_show_incomplete(void **state)
{
    char dir[1024], logp[4096], want_path[4096];
    struct error err = {0};
    enum status rc;
    size_t len = 0, n_lines = 0;
    (void)state;

    snprintf(dir, sizeof dir, "%s/darshan/partial_data_stdio", testutil_shared_data());
    assert_true(log_of(dir, logp, sizeof logp));
    snprintf(want_path, sizeof want_path, "%s/parser.show-incomplete.txt", dir);
    char *want = testutil_read_file(want_path, &len);
    char *got = dump_of(logp, true, &rc, &err);

    assert_non_null(want);
    assert_int_equal(rc, STATUS_OK);
    assert_true(same_lines(dir, want, got, true, &n_lines));
    assert_true(n_lines > 1000);
    assert_non_null(
        strstr(got, "# *WARNING*: The STDIO module contains incomplete data!"));
    free(want);
    free(got);
}

/* Every log rewritten by the oracle script as method dumps as the zlib original but
 * for the compression line and the compressed sizes. */
static void repacked_logs_dump_like_the_original(const char *method)
{
    size_t n = 0, failures = 0;
    char **dirs = log_dirs(&n);
    char tmp[64];

    snprintf(tmp, sizeof tmp, "/tmp/iocontend-repack-%ld.darshan", (long)getpid());
    for (size_t i = 0; i < n; i++) {
        char logp[4096], cmd[9000];
        struct error e1 = {0}, e2 = {0};
        enum status r1, r2;
        int prc = -1;

        assert_true(log_of(dirs[i], logp, sizeof logp));
        const char *script = testutil_repo_file("tests/oracles/darshan_repack.py");
        assert_non_null(script);
        snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' '%s'", testutil_oracle_python(),
                 script, logp, tmp, method);
        free(testutil_run(cmd, &prc));
        if (prc != 0) {
            print_error("%s: repack as %s failed (%d)\n", dirs[i], method, prc);
            failures++;
            continue;
        }
        char *want = dump_of(logp, true, &r1, &e1);
        char *got = dump_of(tmp, true, &r2, &e2);
        if (r1 != r2 || !same_lines(dirs[i], want, got, false, NULL)) {
            print_error("%s as %s: %s / %s (%s)\n", dirs[i], method, status_name(r1),
                        status_name(r2), e2.msg);
            failures++;
        }
        char want_comp[64];
        snprintf(want_comp, sizeof want_comp, "# compression method: %s\n",
                 strcmp(method, "bzip2") == 0 ? "BZIP2" : "NONE");
        if (got == NULL || strstr(got, want_comp) == NULL) {
            print_error("%s: no '%s'\n", dirs[i], want_comp);
            failures++;
        }
        free(want);
        free(got);
    }
    unlink(tmp);
    free_dirs(dirs, n);
    assert_int_equal(failures, 0);
}

static void bzip2_logs_dump_like_zlib(void **state)
{
    (void)state;
    repacked_logs_dump_like_the_original("bzip2");
}

static void uncompressed_logs_dump_like_zlib(void **state)
{
    (void)state;
    repacked_logs_dump_like_the_original("none");
}

/* ---- hostile bytes ---------------------------------------------------------------- */

static enum status count_counter(void *ctx, const struct dbin_counter *c,
                                 struct error *err)
{
    (void)err;
    (void)c;
    (*(size_t *)ctx)++;
    return STATUS_OK;
}

/* dbin_read of data must be OK or STATUS_PARSE naming path. */
static bool read_is_clean(const char *path, const unsigned char *data, size_t len)
{
    size_t n = 0;
    struct dbin_sink sink = {0};
    struct error err = {0};

    sink.ctx = &n;
    sink.counter = count_counter;
    enum status rc = dbin_read(path, data, len, true, &sink, &err);
    if (rc == STATUS_OK)
        return true;
    if (rc == STATUS_PARSE && strcmp(err.file, path) == 0 && err.msg[0] != '\0')
        return true;
    print_error("%zu bytes: %s: file '%s': %s\n", len, status_name(rc), err.file,
                err.msg);
    return false;
}

static unsigned char *small_log(const char *name, size_t *len)
{
    char dir[1024], logp[4096];

    snprintf(dir, sizeof dir, "%s/darshan/%s", testutil_shared_data(), name);
    assert_true(log_of(dir, logp, sizeof logp));
    unsigned char *d = (unsigned char *)testutil_read_file(logp, len);
    assert_non_null(d);
    return d;
}

static void every_prefix_of_a_log_is_refused_cleanly(void **state)
{
    size_t len = 0, bad = 0;
    (void)state;

    const char *names[] = {"release_x86_64_3.1.0", "release_ppc64_3.0.1",
                           "release_x86_64_3.5.0"};
    for (size_t k = 0; k < N_OF(names); k++) {
        unsigned char *d = small_log(names[k], &len);
        for (size_t cut = 0; cut < len; cut++) {
            /* a copy of exactly cut bytes, so that ASan sees any read past it */
            unsigned char *p = malloc(cut > 0 ? cut : 1);
            assert_non_null(p);
            memcpy(p, d, cut);
            if (!read_is_clean("cut.darshan", p, cut))
                bad++;
            free(p);
        }
        assert_true(read_is_clean("whole.darshan", d, len));
        free(d);
    }
    assert_int_equal(bad, 0);
}

static void random_byte_flips_are_refused_cleanly(void **state)
{
    size_t len = 0, bad = 0, ok = 0;
    (void)state;

    const char *names[] = {"release_x86_64_3.1.0", "release_ppc64_3.1.4",
                           "release_x86_64_3.5.0", "stdio_no_posix"};
    testutil_rng_seed(2385);
    for (size_t k = 0; k < N_OF(names); k++) {
        unsigned char *d = small_log(names[k], &len);
        unsigned char *p = malloc(len);
        assert_non_null(p);
        for (int t = 0; t < 1000; t++) {
            memcpy(p, d, len);
            int flips = 1 + (int)(testutil_uniform() * 4);
            for (int f = 0; f < flips; f++) {
                /* half of them in the header and its map, where lengths live */
                size_t at =
                    testutil_uniform() < 0.5
                        ? (size_t)(testutil_uniform() * (double)(len < 1328 ? len : 1328))
                        : (size_t)(testutil_uniform() * (double)len);
                if (at >= len)
                    at = len - 1;
                p[at] ^= (unsigned char)(1 + (int)(testutil_uniform() * 255));
            }
            if (!read_is_clean("flip.darshan", p, len))
                bad++;
            else
                ok++;
        }
        free(p);
        free(d);
    }
    assert_int_equal(bad, 0);
    assert_true(ok == 4000);
}

static void missing_file_is_not_found(void **state)
{
    struct error err = {0};
    enum status rc;
    (void)state;

    char *got = dump_of("/nonexistent/x.darshan", false, &rc, &err);
    assert_int_equal(rc, STATUS_NOT_FOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/x.darshan"));
    free(got);
}

static void text_is_not_a_log(void **state)
{
    const unsigned char text[] = "# darshan log version: 3.41\n# exe: x\n";
    struct error err = {0};
    (void)state;

    assert_false(dbin_is_log(text, sizeof text - 1));
    assert_int_equal(dbin_read("t.txt", text, sizeof text - 1, false, NULL, &err),
                     STATUS_PARSE);
    assert_string_equal(err.file, "t.txt");
    assert_non_null(strstr(err.msg, "header"));
}

static void real_logs_are_logs(void **state)
{
    size_t len = 0;
    (void)state;

    unsigned char *d = small_log("release_ppc64_3.0.1", &len);
    assert_true(dbin_is_log(d, len));
    free(d);
    d = small_log("release_x86_64_3.5.0", &len);
    assert_true(dbin_is_log(d, len));
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_log_dumps_like_darshan_parser),
        cmocka_unit_test(incomplete_stdio_shows_like_show_incomplete),
        cmocka_unit_test(bzip2_logs_dump_like_zlib),
        cmocka_unit_test(uncompressed_logs_dump_like_zlib),
        cmocka_unit_test(every_prefix_of_a_log_is_refused_cleanly),
        cmocka_unit_test(random_byte_flips_are_refused_cleanly),
        cmocka_unit_test(missing_file_is_not_found),
        cmocka_unit_test(text_is_not_a_log),
        cmocka_unit_test(real_logs_are_logs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
