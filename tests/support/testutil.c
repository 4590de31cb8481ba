/* testutil.c: numeric asserts and paths for the cmocka suites. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void testutil_assert_close(double got, double want, double tol, const char *expr,
                           const char *file, int line)
{
    if (isnan(want) && isnan(got))
        return;
    if (!(fabs(got - want) <= tol)) {
        print_error("%s = %.17g, want %.17g (|diff| %.3g > tol %.3g)\n", expr, got, want,
                    fabs(got - want), tol);
        _fail(file, line);
    }
}

const char *testutil_shared_data(void)
{
    static char found[4096];
    const char *env = getenv("IOCONTEND_SHARED");
    char cwd[2048];

    if (env != NULL && env[0] != '\0') {
        snprintf(found, sizeof found, "%s/data", env);
        return found;
    }
    if (getcwd(cwd, sizeof cwd) == NULL)
        return "../shared/data";
    for (;;) {
        snprintf(found, sizeof found, "%s/../shared/data/darshan", cwd);
        if (access(found, R_OK) == 0) {
            snprintf(found, sizeof found, "%s/../shared/data", cwd);
            return found;
        }
        char *slash = strrchr(cwd, '/');
        if (slash == NULL || slash == cwd)
            return "../shared/data";
        *slash = '\0';
    }
}

const char *testutil_path(const char *dir, const char *rel)
{
    static char buf[4096];

    snprintf(buf, sizeof buf, "%s/%s", dir, rel);
    return buf;
}

char *testutil_run(const char *cmd, int *rc)
{
    FILE *p = popen(cmd, "r");
    size_t cap = 4096, len = 0;
    char *out;

    if (p == NULL)
        return NULL;
    out = malloc(cap);
    if (out == NULL) {
        pclose(p);
        return NULL;
    }
    for (;;) {
        size_t got = fread(out + len, 1, cap - len - 1, p);
        len += got;
        if (got == 0)
            break;
        if (len + 1 == cap) {
            char *bigger = realloc(out, cap * 2);
            if (bigger == NULL)
                break;
            out = bigger;
            cap *= 2;
        }
    }
    out[len] = '\0';
    int status = pclose(p);
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    return out;
}

const char *testutil_repo_file(const char *rel)
{
    static char path[4096];
    char dir[2048];

    if (getcwd(dir, sizeof dir) == NULL)
        return NULL;
    for (;;) {
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (access(path, R_OK) == 0)
            return path;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return NULL;
        *slash = '\0';
    }
}

const char *testutil_oracle_python(void)
{
    const char *py = getenv("ORACLE_PY");
    return py != NULL && py[0] != '\0' ? py : "/usr/bin/python3";
}

char *testutil_run_oracle(const char *script_rel, const double *const *x,
                          const double *const *y, const size_t *d, size_t n, int *rc)
{
    const char *found = testutil_repo_file(script_rel);
    char script[4096], cmd[16384], files[64][40];
    size_t len;
    char *out = NULL;

    *rc = -1;
    if (found == NULL || n > 64)
        return NULL;
    snprintf(script, sizeof script, "%s", found);
    len =
        (size_t)snprintf(cmd, sizeof cmd, "'%s' '%s'", testutil_oracle_python(), script);
    size_t made = 0;
    for (; made < n; made++) {
        strcpy(files[made], "/tmp/iocontend-oracle-XXXXXX");
        int fd = mkstemp(files[made]);
        if (fd < 0)
            goto out;
        FILE *fp = fdopen(fd, "w");
        if (fp == NULL) {
            close(fd);
            made++;
            goto out;
        }
        for (size_t i = 0; i < d[made]; i++)
            fprintf(fp, "%.17g %.17g\n", x[made][i], y[made][i]);
        if (fclose(fp) != 0) {
            made++;
            goto out;
        }
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, " '%s'", files[made]);
        if (len >= sizeof cmd) {
            made++;
            goto out;
        }
    }
    out = testutil_run(cmd, rc);
out:
    for (size_t k = 0; k < made; k++)
        unlink(files[k]);
    return out;
}

static uint64_t rng_state = UINT64_C(20240601);

void testutil_rng_seed(uint64_t seed)
{
    rng_state = seed;
}

double testutil_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((double)((rng_state * UINT64_C(2685821657736338717)) >> 11) + 0.5) *
           0x1.0p-53;
}

double testutil_normal(void)
{
    return sqrt(-2.0 * log(testutil_uniform())) *
           cos(6.283185307179586 * testutil_uniform());
}

bool testutil_values(const char *text, const char *name, double *v, size_t n)
{
    const size_t len = strlen(name);

    for (const char *p = text; p != NULL && *p != '\0';) {
        if (strncmp(p, name, len) == 0 && p[len] == ' ') {
            char *end;
            p += len;
            for (size_t i = 0; i < n; i++) {
                v[i] = strtod(p, &end);
                if (end == p)
                    return false;
                p = end;
            }
            return true;
        }
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    return false;
}

/* Debian's chromium; tests/deps.sh installs it. Missing is a failure, not a skip. */
#define CHROMIUM "/usr/bin/chromium"

char *testutil_browser_dom(const char *url, const char *work_dir)
{
    static int runs; /* each run gets a fresh profile */
    char profile[600], log[600], cmd[4096];
    int rc = -1;

    if (access(CHROMIUM, X_OK) != 0) {
        fail_msg("%s is missing: run 'make deps' (tests/deps.sh installs chromium)",
                 CHROMIUM);
    }
    snprintf(profile, sizeof profile, "%s/chromium-%d", work_dir, runs);
    snprintf(log, sizeof log, "%s/chromium-%d.log", work_dir, runs);
    runs++;
    snprintf(cmd, sizeof cmd,
             "timeout 120 " CHROMIUM " --headless --no-sandbox --disable-gpu "
             "--disable-quic --no-first-run --disable-background-networking "
             "--disable-component-update --disable-sync --user-data-dir='%s' "
             "--virtual-time-budget=10000 --dump-dom '%s' 2>'%s'",
             profile, url, log);
    char *dom = testutil_run(cmd, &rc);
    assert_non_null(dom);
    bool ok = rc == 0 && strstr(dom, "</html>") != NULL;
    if (!ok) {
        char tail[700];
        int ignored = 0;
        snprintf(tail, sizeof tail, "tail -n 20 '%s'", log);
        char *err = testutil_run(tail, &ignored);
        print_error("no DOM from %s\nchromium exited %d; its stderr ends:\n%s\n", cmd, rc,
                    err != NULL ? err : "");
        free(err);
        free(dom);
        dom = NULL;
    }
    assert_true(ok);
    return dom;
}

char *testutil_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (fp == NULL)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0) {
        rewind(fp);
        buf = malloc((size_t)n + 1);
        if (buf != NULL && fread(buf, 1, (size_t)n, fp) == (size_t)n) {
            buf[n] = '\0';
            *len = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    fclose(fp);
    return buf;
}

int testutil_write_file(const char *path, const char *data, size_t len)
{
    FILE *fp = fopen(path, "wb");

    if (fp == NULL)
        return -1;
    size_t put = fwrite(data, 1, len, fp);
    return fclose(fp) == 0 && put == len ? 0 : -1;
}

double testutil_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void testutil_sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

    nanosleep(&ts, NULL);
}
