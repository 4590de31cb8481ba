/* replay.c: runs one fuzz target's entry over its seed corpora once, without
 * libFuzzer, so that make test (gcc, plainly and under ASan+UBSan) keeps every seed
 * and every committed regression input passing. One cmocka test per corpus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../tests/support/testutil.h"
#include "fuzz.h"

#include <glob.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reads the whole of path; NULL when it cannot. */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;

    if (fp == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap > 0 ? 2 * cap : 65536;
            uint8_t *more = realloc(buf, cap);
            if (more == NULL) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = more;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    fclose(fp);
    *size = n;
    return buf;
}

/* One line of a .seeds file as a glob: "$DATA/" stands for the shared data folder,
 * anything else is relative to the repository. */
static void pattern_of(const char *line, char *out, size_t size)
{
    if (strncmp(line, "$DATA/", 6) == 0) {
        snprintf(out, size, "%s/%s", testutil_shared_data(), line + 6);
    } else {
        snprintf(out, size, "%s", line);
    }
}

/* Feeds every file that the lines of the .seeds file named by *state match to the
 * target; a line that matches no file fails (a moved seed would go unnoticed). */
static void replay_corpus(void **state)
{
    const char *list = *state;
    FILE *fp = fopen(list, "r");
    char line[1024], pattern[4096];
    size_t files = 0, bytes = 0;

    if (fp == NULL)
        fail_msg("cannot open %s", list);
    while (fgets(line, sizeof line, fp) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        pattern_of(line, pattern, sizeof pattern);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) != 0) {
            fclose(fp);
            fail_msg("%s: '%s' matches no file", list, pattern);
        }
        for (size_t i = 0; i < g.gl_pathc; i++) {
            struct stat st;
            size_t size = 0;
            if (stat(g.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            uint8_t *data = slurp(g.gl_pathv[i], &size);
            if (data == NULL) {
                globfree(&g);
                fclose(fp);
                fail_msg("cannot read %s", g.gl_pathv[i]);
            }
            (void)LLVMFuzzerTestOneInput(data, size);
            free(data);
            files++;
            bytes += size;
        }
        globfree(&g);
    }
    fclose(fp);
    print_message("%s: %zu inputs, %zu bytes\n", list, files, bytes);
    assert_true(files > 0);
}

/* True when the corpus list (fuzz/NAME.seeds) is another target's own: NAME is a
 * target when fuzz/fuzz_NAME.c exists (darshan_bin.seeds is not a corpus of darshan). */
static bool is_target(const char *list)
{
    char src[700];
    struct stat st;
    const char *name = list + strlen("fuzz/");
    size_t n = strlen(name) - strlen(".seeds");

    snprintf(src, sizeof src, "fuzz/fuzz_%.*s.c", (int)n, name);
    return stat(src, &st) == 0;
}

/* The target is the program's name after "replay_"; its corpora are
 * fuzz/TARGET.seeds and fuzz/TARGET_*.seeds but other targets' own. */
int main(int argc, char **argv)
{
    char name[256], pattern[600];
    glob_t lists;
    int failed;

    (void)argc;
    snprintf(name, sizeof name, "%s", argv[0]);
    const char *target = basename(name);
    if (strncmp(target, "replay_", 7) == 0)
        target += 7;
    snprintf(pattern, sizeof pattern, "fuzz/{%s,%s_*}.seeds", target, target);
    if (glob(pattern, GLOB_BRACE, NULL, &lists) != 0) {
        fprintf(stderr, "%s: no %s (run from the repository)\n", argv[0], pattern);
        return 1;
    }
    struct CMUnitTest *tests = calloc(lists.gl_pathc, sizeof *tests);
    size_t n = 0;
    if (tests == NULL)
        return 1;
    snprintf(pattern, sizeof pattern, "fuzz/%s.seeds", target);
    for (size_t i = 0; i < lists.gl_pathc; i++) {
        if (strcmp(lists.gl_pathv[i], pattern) != 0 && is_target(lists.gl_pathv[i]))
            continue;
        tests[n].name = lists.gl_pathv[i];
        tests[n].test_func = replay_corpus;
        tests[n].initial_state = lists.gl_pathv[i];
        n++;
    }
    failed = _cmocka_run_group_tests(target, tests, n, NULL, NULL);
    free(tests);
    globfree(&lists);
    return failed;
}
