/* testutil.h: helpers shared by the cmocka suites (include after <cmocka.h>). */
#ifndef IOCONTEND_TESTUTIL_H
#define IOCONTEND_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fails the test unless |got - want| <= tol (absolute). cmocka 1.1.5's own float
 * assert casts to float, which is useless at 1e-12. */
#define assert_rel(got, want, tol)                                                       \
    testutil_assert_close((got), (want), (tol), #got, __FILE__, __LINE__)

void testutil_assert_close(double got, double want, double tol, const char *expr,
                           const char *file, int line);

/* The shared data folder: $IOCONTEND_SHARED, else "../shared/data" found from the
 * working directory upwards. Borrowed static storage. */
const char *testutil_shared_data(void);

/* Path join into a static buffer (valid until the next call). */
const char *testutil_path(const char *dir, const char *rel);

/* A file of the repository (e.g. "tests/oracles/x.py") found from the working
 * directory upwards; NULL when not found. Static storage, valid until the next call. */
const char *testutil_repo_file(const char *rel);

/* The interpreter of the oracles: $ORACLE_PY, else Debian's /usr/bin/python3 (the
 * first python3 on PATH may lack numpy and scipy). */
const char *testutil_oracle_python(void);

/* Writes n samples to temporary files ("x y" per line, %.17g), runs the oracle
 * script script_rel (found by testutil_repo_file) over them with
 * testutil_oracle_python(), removes the files and returns the oracle's stdout
 * (malloc'd) with its exit status in *rc; NULL when it could not run. n <= 64. */
char *testutil_run_oracle(const char *script_rel, const double *const *x,
                          const double *const *y, const size_t *d, size_t n, int *rc);

/* The DOM of url once its scripts have run (up to 10 s of virtual time), as Debian's
 * headless chromium serializes it with --dump-dom; its profile and stderr go under
 * work_dir. Fails the test when chromium is missing or gives no page. Caller frees. */
char *testutil_browser_dom(const char *url, const char *work_dir);

/* The suites' generated data: xorshift64* uniforms in (0, 1) and Box–Muller
 * normals from one state, reproducible across machines (no libc rand). */
void testutil_rng_seed(uint64_t seed);
double testutil_uniform(void);
double testutil_normal(void);

/* An oracle's output line "name v1 v2 ...": the n values after "name " on the first
 * line that starts so, into v. false when there is no such line or fewer values. */
bool testutil_values(const char *text, const char *name, double *v, size_t n);

/* The whole of path (malloc'd, NUL-terminated, its length in *len), NULL when it cannot
 * be read. */
char *testutil_read_file(const char *path, size_t *len);
/* Writes len bytes of data to path, replacing it; 0 on success. */
int testutil_write_file(const char *path, const char *data, size_t len);

/* Runs a shell command and returns its stdout (malloc'd, caller frees) and exit
 * status in *rc. NULL when it could not run. */
char *testutil_run(const char *cmd, int *rc);

/* Seconds on CLOCK_MONOTONIC, for a test's bounded waits. */
double testutil_now_s(void);
/* Sleeps s seconds (s >= 0). */
void testutil_sleep_s(double s);

#endif
