/* golden.c: replays a manifest of recorded commands and HTTP answers and compares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "golden.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MASKED "<masked>"
/* Larger JSON outputs are stored on one line. */
#define PRETTY_MAX 65536

/* One manifest line: KIND STATUS FILE HOW REST (README.md). */
struct gcase {
    int line;        /* in the manifest, for messages */
    char kind[16];   /* run | get; run@embedded: only on the embedded cluster */
    int want;        /* exit status or HTTP status */
    char file[128];  /* expected output, relative to the manifest's folder; "-": none */
    char how[16];    /* json | text | csv | html, with :out :err :both :file for run */
    char rest[2048]; /* the arguments after the binary, or the path */
};

/* The shared data folder as an absolute path: the program prints what it was given,
 * and a test may run from anywhere below the checkout. */
static const char *shared_dir(void)
{
    static char abs[4096];

    if (abs[0] == '\0' && realpath(testutil_shared_data(), abs) == NULL)
        snprintf(abs, sizeof abs, "%s", testutil_shared_data());
    return abs;
}

bool golden_recording(void)
{
    const char *v = getenv("IOCONTEND_GOLDEN_RECORD");
    return v != NULL && strcmp(v, "1") == 0;
}

bool golden_case_dir(const char *rel, char *out, size_t size)
{
    char want[600];

    snprintf(want, sizeof want, "tests/cases/%s", rel);
    const char *p = testutil_repo_file(want);
    if (p == NULL)
        return false;
    snprintf(out, size, "%s", p);
    return true;
}

/* ---- files ---------------------------------------------------------------------- */

static char *read_all(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (fp == NULL)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 &&
        fseek(fp, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf != NULL && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf != NULL)
            buf[n] = '\0';
    }
    fclose(fp);
    return buf;
}

static int write_all(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");

    if (fp == NULL)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, fp) == n ? 0 : -1;
    return fclose(fp) == 0 ? rc : -1;
}

/* mkdir -p of path's parent folder. */
static void make_parent(const char *path)
{
    char dir[1024];

    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = dir + 1; *s != '\0'; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return;
        *s = '/';
    }
}

/* ---- masks ---------------------------------------------------------------------- */

/* s with every match of the extended regex re replaced by with (malloc'd; s freed). */
static char *replace_re(char *s, const char *re, const char *with)
{
    regex_t rx;
    regmatch_t m;
    size_t cap = strlen(s) + 64, len = 0, wlen = strlen(with);
    char *out;
    const char *p = s;
    int flags = 0;

    if (regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE) != 0)
        fail_msg("bad mask regex %s", re);
    out = malloc(cap);
    assert_non_null(out);
    while (regexec(&rx, p, 1, &m, flags) == 0) {
        size_t keep = (size_t)m.rm_so;
        if (len + keep + wlen + 1 > cap) {
            cap = (len + keep + wlen + 1) * 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        memcpy(out + len, p, keep);
        len += keep;
        memcpy(out + len, with, wlen);
        len += wlen;
        if (m.rm_eo == m.rm_so) { /* an empty match: step over one character */
            if (p[m.rm_eo] == '\0')
                break;
            out[len++] = p[m.rm_eo];
            p += m.rm_eo + 1;
        } else {
            p += m.rm_eo;
        }
        flags = REG_NOTBOL;
        if (p > s && p[-1] == '\n')
            flags = 0;
    }
    size_t tail = strlen(p);
    if (len + tail + 1 > cap) {
        out = realloc(out, len + tail + 1);
        assert_non_null(out);
    }
    memcpy(out + len, p, tail + 1);
    regfree(&rx);
    free(s);
    return out;
}

/* s with every occurrence of the literal what replaced by with (malloc'd; s freed). */
static char *replace_lit(char *s, const char *what, const char *with)
{
    size_t wl = strlen(what), nl = strlen(with), count = 0;

    if (wl == 0)
        return s;
    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + wl, what))
        count++;
    if (count == 0)
        return s;
    char *out = malloc(strlen(s) + count * nl + 1), *o = out;
    assert_non_null(out);
    const char *p = s;
    for (const char *q = strstr(p, what); q != NULL; q = strstr(p, what)) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, with, nl);
        o += nl;
        p = q + wl;
    }
    strcpy(o, p);
    free(s);
    return out;
}

/* The folders of this run, longest first so that a folder inside another (the
 * generated data inside the scratch folder) is named as the inner one. */
static char *mask_paths(const struct golden_env *env, char *s)
{
    const char *lit[4][2] = {{env->db->state_dir, "<STATE>"},
                             {env->data, "<DATA>"},
                             {env->work, "<WORK>"},
                             {shared_dir(), "<SHARED>"}};
    bool done[4] = {false};

    for (int round = 0; round < 4; round++) {
        int best = -1;
        for (int i = 0; i < 4; i++) {
            if (!done[i] && lit[i][0] != NULL &&
                (best < 0 || strlen(lit[i][0]) > strlen(lit[best][0])))
                best = i;
        }
        if (best < 0)
            break;
        done[best] = true;
        if (lit[best][0] != NULL && lit[best][0][0] != '\0')
            s = replace_lit(s, lit[best][0], lit[best][1]);
    }
    /* The embedded cluster's socket folder is <STATE>/run, masked above, unless that
     * path is too long for a socket: then a mkdtemp /tmp/iocontend-XXXXXX
     * (sql/target.c); older recordings had $TMPDIR/iocontend-<12 hex>. */
    s = replace_re(s, "/tmp/iocontend-[0-9A-Za-z]{6}", "<SOCKET>");
    return replace_re(s, "[^[:space:]'\"]*/iocontend-[0-9a-f]{12}", "<SOCKET>");
}

/* The text masks of README.md: folders, log line stamps, durations, report stamps.
 * Each was seen to change between two recordings of the same code. */
/* report sweep inlines Debian's Vega and require.js, which are not ours to record: a
 * script element that big, unless it holds the report's own data, becomes
 * "<script><LIBRARY></script>". In place. */
static char *mask_library(char *s)
{
    char *o = s;

    for (const char *at = s; *at != '\0';) {
        const char *open = strstr(at, "<script>"), *body = open + 8;
        const char *close = open != NULL ? strstr(body, "</script>") : NULL;
        if (close == NULL) {
            memmove(o, at, strlen(at) + 1);
            return s;
        }
        size_t len = (size_t)(close - body);
        const char *data = strstr(body, "window.iocontendSweeps");
        if (data != NULL && data > close)
            data = NULL;
        memmove(o, at, (size_t)(body - at));
        o += body - at;
        if (len > 4096 && data == NULL) {
            memcpy(o, "<LIBRARY>", 9);
            o += 9;
        } else {
            memmove(o, body, len);
            o += len;
        }
        at = close;
    }
    *o = '\0';
    return s;
}

static char *mask_text(const struct golden_env *env, char *s)
{
    s = mask_library(mask_paths(env, s));
    /* Each log line starts with the time it was written (common/common.c). */
    s = replace_re(s,
                   "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z iocontend:",
                   "<TIME> iocontend:");
    /* analyze's closing line ends with its run time, "; 1.2 s" or "; 0.59 s (series
     * 0.06, ...)". */
    s = replace_re(s, "; [0-9]+(\\.[0-9]+)? s( \\([^)\n]*\\))?$", "; <DURATION>");
    /* ingest's closing line: "...; 0 new jobs, 0 new samples in 0.0 s". */
    s = replace_re(s, " new samples in [0-9]+(\\.[0-9]+)? s$",
                   " new samples in <DURATION>");
    /* report sweep's page says when it was written. */
    return replace_re(s, "report written [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z",
                      "report written <TIME>");
}

static bool volatile_key(const char *k)
{
    size_t n = strlen(k);

    return strcmp(k, "computed_at") == 0 || strcmp(k, "seconds") == 0 ||
           strncmp(k, "last_", 5) == 0 || (n > 3 && strcmp(k + n - 3, "_at") == 0) ||
           (n > 6 && strcmp(k + n - 6, "_at_ms") == 0) ||
           (n > 6 && strcmp(k + n - 6, "_age_s") == 0);
}

void golden_mask_json(const struct golden_env *env, json_t *j)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_object(j)) {
        json_object_foreach(j, key, v)
        {
            if (volatile_key(key)) {
                json_object_set_new(j, key, json_string(MASKED));
            } else if (json_is_string(v)) {
                char *s = mask_paths(env, strdup(json_string_value(v)));
                json_object_set_new(j, key, json_string(s));
                free(s);
            } else {
                golden_mask_json(env, v);
            }
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
        {
            if (json_is_string(v)) {
                char *s = mask_paths(env, strdup(json_string_value(v)));
                json_array_set_new(j, i, json_string(s));
                free(s);
            } else {
                golden_mask_json(env, v);
            }
        }
    }
}

/* ---- differences ---------------------------------------------------------------- */

/* The first place where a and b differ, as a JSON pointer into where (size bytes). */
static void json_first_diff(json_t *a, json_t *b, char *where, size_t size)
{
    size_t used = strlen(where);

    if (json_typeof(a) != json_typeof(b) || (!json_is_object(a) && !json_is_array(a)))
        return;
    if (json_is_object(a)) {
        const char *key;
        json_t *v;
        json_object_foreach(a, key, v)
        {
            json_t *w = json_object_get(b, key);
            if (w == NULL || !json_equal(v, w)) {
                snprintf(where + used, size - used, "/%s", key);
                if (w != NULL)
                    json_first_diff(v, w, where, size);
                return;
            }
        }
        json_object_foreach(b, key, v)
        {
            if (json_object_get(a, key) == NULL) {
                snprintf(where + used, size - used, "/%s (only in the actual)", key);
                return;
            }
        }
        return;
    }
    size_t na = json_array_size(a), nb = json_array_size(b);
    for (size_t i = 0; i < na && i < nb; i++) {
        if (!json_equal(json_array_get(a, i), json_array_get(b, i))) {
            snprintf(where + used, size - used, "/%zu", i);
            json_first_diff(json_array_get(a, i), json_array_get(b, i), where, size);
            return;
        }
    }
    snprintf(where + used, size - used, " (%zu elements, actual %zu)", na, nb);
}

/* The first line where the texts differ (1-based), 0 when equal. */
static long text_first_diff(const char *a, const char *b)
{
    long line = 1;

    for (; *a != '\0' && *a == *b; a++, b++) {
        if (*a == '\n')
            line++;
    }
    return *a == *b ? 0 : line;
}

/* Where a differing actual output is kept for a look (the scratch folder goes at the
 * end): $IOCONTEND_GOLDEN_ACTUAL, else $TMPDIR/iocontend-golden-actual, then the
 * manifest's folder name. */
static void actual_path(const struct golden_env *env, const struct gcase *c, char *out,
                        size_t size)
{
    const char *d = getenv("IOCONTEND_GOLDEN_ACTUAL");
    const char *tmp = getenv("TMPDIR");
    const char *base = strrchr(env->dir, '/');
    char dflt[600];

    snprintf(dflt, sizeof dflt, "%s/iocontend-golden-actual",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    snprintf(out, size, "%s/%s/%s", d != NULL && d[0] != '\0' ? d : dflt,
             base != NULL ? base + 1 : env->dir, c->file);
}

/* ---- running the cases ---------------------------------------------------------- */

/* c->rest with @DATA@, @CONF@, @WORK@, @SHARED@ and @OUT@ replaced (quoted for sh). */
static char *expand(const struct golden_env *env, const struct gcase *c, char *out_path,
                    size_t out_size)
{
    char q[1200];
    char *s = strdup(c->rest);

    assert_non_null(s);
    snprintf(out_path, out_size, "%s/%s", env->work, c->file);
    const char *vars[][2] = {{"@DATA@", env->data},
                             {"@CONF@", env->conf},
                             {"@WORK@", env->work},
                             {"@SHARED@", shared_dir()},
                             {"@OUT@", out_path}};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        snprintf(q, sizeof q, "'%s'", vars[i][1]);
        s = replace_lit(s, vars[i][0], q);
    }
    return s;
}

/* Runs the binary with c's arguments; the output HOW names (masked as text, or "" for
 * JSON, which is masked after parsing), malloc'd. *status: the exit status. */
static char *run_cli(const struct golden_env *env, const struct gcase *c, int *status)
{
    char out_path[1024], so[1024], se[1024], cmd[8192];
    const char *stream = strchr(c->how, ':');

    char *args = expand(env, c, out_path, sizeof out_path);
    snprintf(so, sizeof so, "%s/.stdout", env->work);
    snprintf(se, sizeof se, "%s/.stderr", env->work);
    remove(out_path);
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", env->db->bin, args, so,
             se);
    free(args);
    int rc = system(cmd);
    *status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    char *o = read_all(so), *e = read_all(se), *text = NULL;
    if (o == NULL || e == NULL)
        fail_msg("manifest line %d: no output of `%s`", c->line, cmd);
    stream = stream != NULL ? stream + 1 : "out";
    if (strcmp(stream, "out") == 0) {
        text = o;
        o = NULL;
    } else if (strcmp(stream, "err") == 0) {
        text = e;
        e = NULL;
    } else if (strcmp(stream, "both") == 0) {
        size_t n = strlen(o) + strlen(e) + 32;
        text = malloc(n);
        assert_non_null(text);
        snprintf(text, n, "%s--- stderr ---\n%s", o, e);
    } else if (strcmp(stream, "file") == 0) {
        text = read_all(out_path);
        if (text == NULL)
            text = strdup("(no file written)\n");
    } else {
        fail_msg("manifest line %d: unknown stream %s", c->line, stream);
    }
    free(o);
    free(e);
    return text;
}

static char *http_body(struct golden_env *env, const struct gcase *c, int *status)
{
    char *body = NULL;

    if (env->srv.pid == 0) {
        assert_int_equal(
            server_start(&env->srv, env->db, env->conf[0] != '\0' ? env->conf : NULL), 0);
    }
    if (http_get(SERVER_HOST, env->srv.port, c->rest, NULL, status, &body) != 0)
        fail_msg("manifest line %d: GET %s got no answer", c->line, c->rest);
    return body;
}

/* Compares (or records) one case's output, which it frees; 0 when it is as
 * recorded. */
static int check_output(const struct golden_env *env, const struct gcase *c, char *text)
{
    char expected[1024], actual[1024];
    bool json = strncmp(c->how, "json", 4) == 0;

    snprintf(expected, sizeof expected, "%s/%s", env->dir, c->file);
    if (json) {
        json_error_t jerr;
        json_t *got = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (got == NULL) {
            print_error("manifest line %d (%s): not JSON (%s): %.300s\n", c->line,
                        c->rest, jerr.text, text);
            free(text);
            return 1;
        }
        golden_mask_json(env, got);
        /* Sorted keys, 17 digits (every double reads back the same); one value a line
         * for a readable diff, but on one line where that passes 64 KiB. */
        size_t flags = JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
        char *dumped = json_dumps(got, flags | JSON_INDENT(1));
        assert_non_null(dumped);
        if (strlen(dumped) > PRETTY_MAX) {
            free(dumped);
            dumped = json_dumps(got, flags | JSON_COMPACT);
            assert_non_null(dumped);
        }
        size_t n = strlen(dumped);
        dumped = realloc(dumped, n + 2);
        memcpy(dumped + n, "\n", 2);
        int bad = 0;
        if (golden_recording()) {
            bad = write_all(expected, dumped) != 0;
        } else {
            json_t *want = json_load_file(expected, JSON_DECODE_ANY, &jerr);
            if (want == NULL) {
                print_error("manifest line %d: %s: %s\n", c->line, expected, jerr.text);
                bad = 1;
            } else {
                golden_mask_json(env, want); /* idempotent: also older recordings */
                if (!json_equal(want, got)) {
                    char where[512] = "";
                    json_first_diff(want, got, where, sizeof where);
                    actual_path(env, c, actual, sizeof actual);
                    make_parent(actual);
                    write_all(actual, dumped);
                    print_error("manifest line %d (%s): %s differs at %s; actual in %s\n",
                                c->line, c->rest, c->file, where[0] ? where : "/",
                                actual);
                    bad = 1;
                }
                json_decref(want);
            }
        }
        free(dumped);
        json_decref(got);
        free(text);
        return bad;
    }
    text = mask_text(env, text);
    int bad = 0;
    if (golden_recording()) {
        bad = write_all(expected, text) != 0;
    } else {
        char *want = read_all(expected);
        long line = want != NULL ? text_first_diff(want, text) : 1;
        if (want == NULL || line != 0) {
            actual_path(env, c, actual, sizeof actual);
            make_parent(actual);
            write_all(actual, text);
            print_error("manifest line %d (%s): %s differs from line %ld on; actual in "
                        "%s\n",
                        c->line, c->rest, c->file, line, actual);
            bad = 1;
        }
        free(want);
    }
    free(text);
    return bad;
}

static int run_case(struct golden_env *env, const struct gcase *c)
{
    int status = -1;
    char *text;

    if (strcmp(c->kind, "run@embedded") == 0 && env->db->configured) {
        fprintf(stderr, "golden: manifest line %d skipped on a configured server\n",
                c->line);
        return 0;
    }
    if (strncmp(c->kind, "run", 3) == 0) {
        text = run_cli(env, c, &status);
    } else if (strcmp(c->kind, "get") == 0) {
        text = http_body(env, c, &status);
    } else {
        fail_msg("manifest line %d: unknown kind %s", c->line, c->kind);
        return 1;
    }
    int bad = 0;
    if (status != c->want) {
        print_error("manifest line %d (%s %s): status %d, recorded %d\n", c->line,
                    c->kind, c->rest, status, c->want);
        bad = 1;
    }
    if (strcmp(c->file, "-") == 0) {
        free(text);
        return bad;
    }
    return check_output(env, c, text) + bad > 0 ? 1 : 0;
}

int golden_run_manifest(struct golden_env *env)
{
    char path[1024], line[4096];
    int bad = 0, n = 0, lineno = 0;

    snprintf(path, sizeof path, "%s/manifest", env->dir);
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        fail_msg("no manifest %s", path);
    while (fgets(line, sizeof line, fp) != NULL) {
        struct gcase c;
        int used = 0;
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        memset(&c, 0, sizeof c);
        c.line = lineno;
        if (sscanf(line, "%15s %d %127s %15s %n", c.kind, &c.want, c.file, c.how,
                   &used) != 4 ||
            used == 0) {
            fclose(fp);
            fail_msg("%s:%d: expected KIND STATUS FILE HOW REST", path, lineno);
        }
        snprintf(c.rest, sizeof c.rest, "%s", line + used);
        bad += run_case(env, &c);
        n++;
    }
    fclose(fp);
    fprintf(stderr, "golden: %s: %d cases, %d differ%s\n", env->dir, n, bad,
            golden_recording() ? " (recorded)" : "");
    return bad;
}

void golden_stop(struct golden_env *env)
{
    if (env->srv.pid > 0)
        server_stop(&env->srv);
}
