/* config.c: the configuration: defaults, then the INI file, then the environment
 * (the command line is applied last by main). */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_CONFIG_PATH "/etc/iocontend/iocontend.conf"

/* libinih hands over lines of at most this many bytes (INI_MAX_LINE, 200 on Debian 12,
 * with the '\0'): it would split a longer one into two lines, silently. */
#define LINE_MAX_BYTES 199

/* A number; what names the key ("[samples] sample_offset_s") in the error. */
static enum status parse_double(const char *v, double *out, const char *what,
                                const char *path, long line, struct error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(d)) {
        return error_at(err, STATUS_PARSE, path, line,
                        "%s: expected a finite number, got '%.60s'", what, v);
    }
    *out = d;
    return STATUS_OK;
}

/* What libinih's reader and handler share while one file is read. */
struct ini_state {
    struct app_config *cfg;
    const char *path;
    FILE *fp;
    char *buf; /* getline's */
    size_t cap;
    long line;                /* of the line last handed to libinih */
    struct group_rule *group; /* the [group NAME] being read, NULL elsewhere */
    size_t first_group;       /* the first of cfg's groups this file defines */
    long *group_lines;        /* the line of each of them, for its errors */
    struct error *err;
    enum status rc; /* the first failure: the reader then ends the file */
};

/* ---- the sections ------------------------------------------------------------- */

static const char *const sections[] = {"database", "serve",    "filesystems", "devices",
                                       "samples",  "analysis", "ingest"};

static bool group_name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n > GROUP_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c) && c != '_' && c != '-' && c != '.')
            return false;
    }
    return true;
}

/* The NAME of a "group NAME" section, NULL for another section. */
static const char *group_section_name(const char *section)
{
    if (strncmp(section, "group ", 6) != 0)
        return NULL;
    return section + 6;
}

/* A [group NAME] line: a new rule in cfg. */
static enum status group_begin(struct ini_state *st, const char *name)
{
    struct app_config *cfg = st->cfg;

    if (!group_name_ok(name)) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[group %.60s]: expected a NAME of 1 to %d letters, digits, '_', "
                        "'-' or '.'",
                        name, GROUP_NAME_MAX);
    }
    for (size_t i = 0; i < cfg->n_groups; i++) {
        if (strcmp(cfg->groups[i].name, name) == 0) {
            return error_at(st->err, STATUS_PARSE, st->path, st->line,
                            "[group %s] is defined twice (first at line %ld)", name,
                            i >= st->first_group ? st->group_lines[i - st->first_group]
                                                 : 0L);
        }
    }
    size_t mine = cfg->n_groups - st->first_group;
    struct group_rule *g = realloc(cfg->groups, (cfg->n_groups + 1) * sizeof *g);
    if (g != NULL)
        cfg->groups = g;
    long *l = realloc(st->group_lines, (mine + 1) * sizeof *l);
    if (l != NULL)
        st->group_lines = l;
    if (g == NULL || l == NULL)
        return error_set(st->err, STATUS_NOMEM, "[group %s]", name);
    st->group = &cfg->groups[cfg->n_groups];
    memset(st->group, 0, sizeof *st->group);
    int n = snprintf(st->group->name, sizeof st->group->name, "%s", name);
    if (n < 0 || (size_t)n >= sizeof st->group->name) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[group %.40s...]: a group name has at most %zu bytes", name,
                        sizeof st->group->name - 1);
    }
    st->group_lines[mine] = st->line;
    cfg->n_groups++;
    return STATUS_OK;
}

/* A section line as libinih reads it: the name is what stands between '[' and the
 * first ']', as it is (libinih does not trim it). */
static enum status section_line(struct ini_state *st, const char *s)
{
    char name[256];
    const char *close = strchr(s, ']');

    st->group = NULL;
    if (close == NULL) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "expected ']' after the section name");
    }
    snprintf(name, sizeof name, "%.*s", (int)(close - s - 1), s + 1);
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (strcmp(name, sections[i]) == 0)
            return STATUS_OK;
    }
    const char *group = group_section_name(name);
    if (group != NULL)
        return group_begin(st, group);
    return error_at(st->err, STATUS_PARSE, st->path, st->line,
                    "unknown section [%.40s]%s; expected database, serve, filesystems, "
                    "devices, samples, analysis or group NAME",
                    name,
                    strcmp(name, "groups") == 0 ? " (now one [group NAME] each)" : "");
}

/* libinih's fgets: hands over one line of the file at a time, so that st->line is
 * the line of every handler call, after refusing what libinih would silently
 * misread: a line longer than its buffer (split in two) and an indented line (joined
 * to the key before as a continuation). Section lines are checked here too, since
 * libinih tells the handler only of sections that hold a key. */
static char *ini_read_line(char *str, int num, void *stream)
{
    struct ini_state *st = stream;
    ssize_t got;

    if (st->rc != STATUS_OK)
        return NULL;
    got = getline(&st->buf, &st->cap, st->fp);
    if (got < 0)
        return NULL;
    st->line++;
    size_t len = (size_t)got;
    char *s = st->buf;
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        s[--len] = '\0';
    if (st->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        len -= 3;
    }
    size_t limit =
        num > 1 && (size_t)num - 1 < LINE_MAX_BYTES ? (size_t)num - 1 : LINE_MAX_BYTES;
    if (len > limit) {
        /* Named by its key: the text before '=' (or ':', as libinih reads it). */
        size_t key = strcspn(s, "=:");
        while (key > 0 && isspace((unsigned char)s[key - 1]))
            key--;
        st->rc =
            error_at(st->err, STATUS_PARSE, st->path, st->line,
                     "%.*s%s: line of %zu bytes, at most %zu (libinih would split it)",
                     (int)(key < 40 ? key : 40), s, key > 40 ? "..." : "", len, limit);
        return NULL;
    }
    if (memchr(s, '\0', len) != NULL) {
        st->rc = error_at(st->err, STATUS_PARSE, st->path, st->line,
                          "a NUL byte in the line (libinih would cut the value there)");
        return NULL;
    }
    /* libinih skips any isspace() byte (\v, \f, \r too) before joining a line. */
    if (isspace((unsigned char)s[0])) {
        size_t lead = 0;
        while (isspace((unsigned char)s[lead]))
            lead++;
        if (s[lead] != '\0') {
            st->rc = error_at(st->err, STATUS_PARSE, st->path, st->line,
                              "indented line '%.40s': a line may not start with white "
                              "space (libinih would join it to the key before)",
                              s + lead);
            return NULL;
        }
    }
    if (s[0] == '[') {
        st->rc = section_line(st, s);
        if (st->rc != STATUS_OK)
            return NULL;
    }
    memcpy(str, s, len + 1);
    return str;
}

/* ---- the keys ----------------------------------------------------------------- */

/* Copies value into a field of size bytes; a longer value is refused, not cut. */
static enum status set_text(char *dst, size_t size, const char *section, const char *key,
                            const char *value, const struct ini_state *st)
{
    if (strlen(value) >= size) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[%s] %s: longer than %zu bytes", section, key, size - 1);
    }
    snprintf(dst, size, "%s", value);
    return STATUS_OK;
}

/* glibc's regcomp copies what a bounded repeat repeats, and nested repeats multiply:
 * "((a{255}){255}){255}" asks for 16 million positions and exhausts memory (or
 * crashes regcomp) before any error. The names matched are device and executable
 * names, shorter than 256 bytes: a few thousand positions are plenty. */
#define REGEX_POSITIONS_MAX 4096
#define REGEX_DEPTH_MAX     256

static size_t sat(size_t v)
{
    return v > REGEX_POSITIONS_MAX ? REGEX_POSITIONS_MAX + 1 : v;
}

static size_t sat_mul(size_t a, size_t b)
{
    return b != 0 && a > (REGEX_POSITIONS_MAX + 1) / b ? REGEX_POSITIONS_MAX + 1
                                                       : sat(a * b);
}

/* The repeat count of a "{m}", "{m,}" or "{m,n}" starting at *s (m + 1 for "{m,}",
 * as glibc makes it m copies and a star); *s then points at its '}'. false, *s
 * unmoved, when none starts there. */
static bool regex_interval(const char **s, size_t *count)
{
    const char *p = *s + 1;
    size_t m = 0, n = 0;
    bool comma = false, have_n = false;

    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++)
        m = sat(m * 10 + (size_t)(*p - '0'));
    if (*p == ',') {
        comma = true;
        for (p++; isdigit((unsigned char)*p); p++) {
            have_n = true;
            n = sat(n * 10 + (size_t)(*p - '0'));
        }
    }
    if (*p != '}')
        return false;
    *count = !comma ? m : have_n ? n : m + 1;
    *s = p;
    return true;
}

/* The last character of the bracket expression that opens at s: its ']', or the
 * character before the end of the pattern when it is not closed. */
static const char *regex_bracket_end(const char *s)
{
    const char *p = s + 1;

    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    for (; *p != ']'; p++) {
        if (*p == '\0')
            return p - 1;
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            const char *close = strchr(p + 2, p[1]);
            while (close != NULL && close[1] != ']')
                close = strchr(close + 1, p[1]);
            if (close == NULL)
                return p + strlen(p) - 1;
            p = close + 1;
        }
    }
    return p;
}

/* An upper estimate of the positions (nodes) regcomp makes of an extended regex,
 * saturated just above REGEX_POSITIONS_MAX: an atom, an operator or an anchor is 1, a
 * group the sum of what it holds plus its two ends, even empty (unclosed groups too:
 * regcomp copies before it finds the missing ')'), a repeat multiplies what it
 * repeats by its largest count, and '+' by 2. *undefined names what POSIX leaves
 * undefined and glibc's epsilon closures pay for super-linearly even at a few hundred
 * positions (NULL when none): a repeat right after a repeat ("a?????+++++++": 5 s)
 * and an empty alternative ("^(||||||||||||||i{49,}d){49,}": over a minute). */
static size_t regex_positions(const char *re, const char **undefined)
{
    size_t total[REGEX_DEPTH_MAX + 1] = {0};
    size_t last = 0, count;
    size_t depth = 0;
    bool after_repeat = false;
    char prev = '('; /* the start opens as a group does */

    *undefined = NULL;
    for (const char *s = re; *s != '\0'; s++) {
        size_t atom = 1;
        bool repeat = *s == '*' || *s == '+' || *s == '?' ||
                      (*s == '{' && isdigit((unsigned char)s[1]));
        if (repeat && after_repeat)
            *undefined = "a repeat right after a repeat";
        if ((*s == '|' && (prev == '(' || prev == '|')) || (*s == ')' && prev == '|'))
            *undefined = "an empty alternative";
        after_repeat = repeat;
        prev = *s;
        switch (*s) {
        case '(':
            if (depth == REGEX_DEPTH_MAX)
                return REGEX_POSITIONS_MAX + 1;
            total[++depth] = 0;
            last = 0;
            continue;
        case ')':
            if (depth > 0)
                atom = sat(total[depth--] + 2);
            break;
        case '\\':
            if (s[1] != '\0')
                s++;
            break;
        case '[': s = regex_bracket_end(s); break;
        case '{':
            if (regex_interval(&s, &count)) {
                size_t repeated = sat_mul(last, count > 0 ? count : 1);
                total[depth] = sat(total[depth] - last + repeated);
                last = repeated;
                continue;
            }
            break;
        case '+':
            /* X+ is X X*: a copy, so a run of them doubles and doubles. */
            count = sat(sat_mul(last, 2) + 1);
            total[depth] = sat(total[depth] - last + count);
            last = count;
            continue;
        case '*':
        case '?':
            total[depth] = sat(total[depth] + 1);
            last = sat(last + 1);
            continue;
        case '|':
            total[depth] = sat(total[depth] + 1);
            last = 0;
            continue;
        default: break;
        }
        total[depth] = sat(total[depth] + atom);
        last = atom;
    }
    if (prev == '|')
        *undefined = "an empty alternative";
    while (depth > 0) {
        size_t inner = total[depth--];
        total[depth] = sat(total[depth] + inner + 2);
    }
    return total[0];
}

/* A POSIX extended regex, compiled now, so that a typo stops the program naming the
 * key rather than failing later (every iostat file, every job). */
static enum status check_regex(const char *section, const char *key, const char *value,
                               const struct ini_state *st)
{
    regex_t re;
    int rc;
    const char *undefined;

    if (regex_positions(value, &undefined) > REGEX_POSITIONS_MAX) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[%.48s] %s: its repeats expand '%.40s' past %d positions",
                        section, key, value, REGEX_POSITIONS_MAX);
    }
    if (undefined != NULL) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[%.48s] %s: %s in '%.40s', which POSIX leaves undefined",
                        section, key, undefined, value);
    }
    rc = regcomp(&re, value, REG_EXTENDED | REG_NOSUB);

    if (rc != 0) {
        char why[64];
        regerror(rc, &re, why, sizeof why);
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[%.48s] %s: expected a POSIX extended regex, got '%.40s': %s",
                        section, key, value, why);
    }
    regfree(&re);
    return STATUS_OK;
}

/* ---- [group NAME] (docs/method.md §4)
 * -------------------------------------------------- */

/* An unsigned decimal integer of [s, end) (white space around it allowed) times mult. */
static bool parse_count(const char *s, const char *end, uint64_t mult, int64_t *out)
{
    char text[32];
    char *stop;

    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (end == s || (size_t)(end - s) >= sizeof text || !isdigit((unsigned char)*s))
        return false;
    memcpy(text, s, (size_t)(end - s));
    text[end - s] = '\0';
    errno = 0;
    unsigned long long v = strtoull(text, &stop, 10);
    if (*stop != '\0' || errno != 0 || v > (unsigned long long)INT64_MAX / mult)
        return false;
    *out = (int64_t)(v * mult);
    return true;
}

/* A number with an optional suffix K, M, G or T (powers of 1024) when sized. */
static bool parse_amount(const char *s, const char *end, bool sized, int64_t *out)
{
    uint64_t mult = 1;

    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (sized && end > s) {
        const char *suffixes = "KMGT";
        const char *at = strchr(suffixes, end[-1]);
        if (at != NULL && end[-1] != '\0') {
            for (const char *p = suffixes; p <= at; p++)
                mult *= 1024;
            end--;
        }
    }
    return parse_count(s, end, mult, out);
}

/* "A-B" (or "A": from A to A) into [*lo, *hi]. */
static bool parse_range(const char *v, bool sized, int64_t *lo, int64_t *hi)
{
    const char *dash = strchr(v, '-');
    const char *end = v + strlen(v);

    if (dash == NULL)
        return parse_amount(v, end, sized, lo) && (*hi = *lo, true);
    return parse_amount(v, dash, sized, lo) && parse_amount(dash + 1, end, sized, hi) &&
           *lo <= *hi;
}

/* Calls item(rule, text, len) for each comma-separated item of v. */
static bool parse_list(struct group_rule *g, const char *v,
                       bool (*item)(struct group_rule *g, const char *s, const char *end))
{
    const char *s = v;

    for (;;) {
        const char *comma = strchr(s, ',');
        const char *end = comma != NULL ? comma : s + strlen(s);
        if (!item(g, s, end))
            return false;
        if (comma == NULL)
            return true;
        s = comma + 1;
    }
}

static bool uid_item(struct group_rule *g, const char *s, const char *end)
{
    int64_t uid;

    if (g->n_uids >= GROUP_LIST_MAX || !parse_count(s, end, 1, &uid))
        return false;
    g->uids[g->n_uids++] = (uint64_t)uid;
    return true;
}

static bool job_item(struct group_rule *g, const char *s, const char *end)
{
    struct group_job_id *j;
    const char *colon;
    int64_t uid;

    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (g->n_jobs >= GROUP_LIST_MAX || end == s)
        return false;
    j = &g->jobs[g->n_jobs];
    memset(j, 0, sizeof *j);
    colon = memchr(s, ':', (size_t)(end - s));
    if (colon != NULL) {
        if (!parse_count(s, colon, 1, &uid))
            return false;
        j->has_uid = true;
        j->uid = (uint64_t)uid;
        s = colon + 1;
    }
    if (end == s || (size_t)(end - s) >= sizeof j->jobid)
        return false;
    for (const char *p = s; p < end; p++) {
        if (isspace((unsigned char)*p) || *p == ':')
            return false;
    }
    memcpy(j->jobid, s, (size_t)(end - s));
    g->n_jobs++;
    return true;
}

static enum status set_group_key(struct group_rule *g, const char *key, const char *value,
                                 const struct ini_state *st)
{
    enum group_key k = GROUP_KEYS;
    bool ok;

    for (int i = 0; i < GROUP_KEYS; i++) {
        if (strcmp(key, group_key_name((enum group_key)i)) == 0)
            k = (enum group_key)i;
    }
    if (k == GROUP_KEYS) {
        return error_at(
            st->err, STATUS_PARSE, st->path, st->line,
            "[group %s] %.40s: unknown key; expected executable, uid, nprocs, "
            "bytes or jobs",
            g->name, key);
    }
    if (g->given[k][0] != '\0') {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[group %s] %s: given twice", g->name, key);
    }
    switch (k) {
    case GROUP_EXECUTABLE: {
        char section[64];
        snprintf(section, sizeof section, "group %s", g->name);
        enum status rc = check_regex(section, key, value, st);
        if (rc != STATUS_OK)
            return rc;
        ok = value[0] != '\0';
        break;
    }
    case GROUP_UID: ok = parse_list(g, value, uid_item); break;
    case GROUP_NPROCS:
        ok = parse_range(value, false, &g->nprocs_min, &g->nprocs_max);
        break;
    case GROUP_BYTES: ok = parse_range(value, true, &g->bytes_min, &g->bytes_max); break;
    case GROUP_JOBS: ok = parse_list(g, value, job_item); break;
    case GROUP_KEYS:
    default: ok = false; break;
    }
    if (!ok) {
        static const char *const want[GROUP_KEYS] = {
            "a POSIX extended regex", "uids N[,N...]", "a range A-B, A <= B",
            "a range A-B, A <= B, with K, M, G or T", "job ids ID[,ID...] or UID:ID"};
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[group %s] %s: expected %s, got '%.40s'", g->name, key, want[k],
                        value);
    }
    snprintf(g->given[k], sizeof g->given[k], "%s", value);
    return STATUS_OK;
}

/* ---- the keys: one row each --------------------------------------------------- */

/* How a key's value is read. */
enum key_type {
    KEY_TEXT,   /* char[size]: as written (after its check), a longer one refused */
    KEY_NUMBER, /* a finite number (strtod), from min to max */
    KEY_WHOLE,  /* a whole number read as a number (strtod: "1e3" too), min to max */
    KEY_COUNT,  /* a whole number in digits alone, from min to max */
    KEY_PHASES  /* bool: "0", or "all" (every phase) */
};

/* Where a number goes: the C type of its field. */
enum key_store { STORE_NONE, STORE_DOUBLE, STORE_UNSIGNED, STORE_SIZE, STORE_ULONG };

/* How config show prints it. */
enum key_print {
    PRINT_VALUE,        /* key = value */
    PRINT_IF_SET,       /* key = value, nothing when empty */
    PRINT_NEVER,        /* only in comments ([database] conninfo may hold a password) */
    PRINT_SECRET,       /* "# key: (set, not shown)" when set, "key =" when not */
    PRINT_SECRET_IF_SET /* the comment when set, nothing when not */
};

/* One configuration key: the parse, the range, the default, the printing and its
 * line in iocontend.conf(5) (".BI \"key = \" man"). A new key is a row here, its
 * field in struct app_config, its entry in the man page and in the example file
 * (test_cli checks that those three name the same keys). */
struct conf_key {
    const char *section, *key;
    enum key_type type;
    enum key_store store;
    size_t offset, size; /* the field in struct app_config */
    double min, max;     /* numbers */
    const char *what;    /* numbers: "expected <what> from <min> to <max><note>";
                            NULL: the section's "out of range" message */
    const char *note;
    /* text: its check beyond its length, the whole error in st when it refuses;
     * NULL when any text of its size will do */
    enum status (*check)(const struct conf_key *k, const char *value,
                         const struct ini_state *st);
    const char *def; /* text: its default, NULL for "" */
    double def_n;    /* numbers: its default; NAN: its owner's (serve_limits) */
    enum key_print print;
    bool below_max; /* numbers: max itself is refused ([samples] xff < 1) */
    const char *man;
};

#define FIELD(f) offsetof(struct app_config, f), sizeof(((struct app_config *)NULL)->f)

/* [ingest] max_file_bytes: from 1 to 1 TiB: the readers add to the cap (one byte
 * past it tells a file was larger), so it must stay far from SIZE_MAX. */
#define MAX_FILE_BYTES_LIMIT (1ULL << 40)
/* seed: below 2^53 every whole number is exact in the double it was read as. */
#define SEED_MAX 9007199254740991.0

/* "[section] key: why", with why's status when it ran out of memory. */
static enum status refuse(const struct conf_key *k, enum status rc,
                          const struct error *why, const struct ini_state *st)
{
    return error_at(st->err, rc == STATUS_NOMEM ? rc : STATUS_PARSE, st->path, st->line,
                    "[%s] %s: %s", k->section, k->key, why->msg);
}

static enum status check_absolute(const struct conf_key *k, const char *value,
                                  const struct ini_state *st)
{
    if (value[0] == '/')
        return STATUS_OK;
    return error_at(st->err, STATUS_PARSE, st->path, st->line,
                    "[%s] %s: expected an absolute path, got '%.60s'", k->section, k->key,
                    value);
}

static enum status check_listen(const struct conf_key *k, const char *value,
                                const struct ini_state *st)
{
    char host[256];
    int port = 0;
    struct error why = {0};
    enum status rc = serve_listen_parse(value, host, sizeof host, &port, &why);

    return rc == STATUS_OK ? rc : refuse(k, STATUS_PARSE, &why, st);
}

static enum status check_role(const struct conf_key *k, const char *value,
                              const struct ini_state *st)
{
    if (value[0] != '\0')
        return STATUS_OK;
    return error_at(st->err, STATUS_PARSE, st->path, st->line,
                    "[%s] %s: expected a role name, got nothing", k->section, k->key);
}

static enum status check_key_regex(const struct conf_key *k, const char *value,
                                   const struct ini_state *st)
{
    return check_regex(k->section, k->key, value, st);
}

/* The names of devices an sa file knows by number only. */
static enum status check_device_names(const struct conf_key *k, const char *value,
                                      const struct ini_state *st)
{
    struct error why = {0};
    enum status rc = device_names_check(value, &why);

    return rc == STATUS_OK ? rc : refuse(k, STATUS_PARSE, &why, st);
}

/* An IANA zone that tzdata has, read now so that a wrong name stops the program
 * here rather than at the first sample file. */
static enum status check_timezone(const struct conf_key *k, const char *value,
                                  const struct ini_state *st)
{
    const struct ingest_zone *zone;
    struct error why = {0};
    enum status rc = ingest_zone_get(value, &zone, &why);

    return rc == STATUS_OK ? rc : refuse(k, rc, &why, st);
}

/* [analysis] profile: default, or paper (the paper's strict rule for gaps). */
static enum status check_profile(const struct conf_key *k, const char *value,
                                 const struct ini_state *st)
{
    if (strcmp(value, "default") == 0 || strcmp(value, "paper") == 0)
        return STATUS_OK;
    return error_at(st->err, STATUS_PARSE, st->path, st->line,
                    "[%s] %s: expected default or paper, got '%.40s'", k->section, k->key,
                    value);
}

/* The rows, as PgBouncer's CF_ABS: a text, a number (its type, C type, range, the
 * words of its range message, default) or [analysis]'s out-of-range message (say
 * NULL). A default of NAN is serve_limits_default()'s, the daemon's. */
#define TEXT(sec, key, f, check, def, print, man)                                        \
    {                                                                                    \
        sec, key, KEY_TEXT, STORE_NONE, FIELD(f), 0, 0, NULL, NULL, check, def, 0,       \
            print, false, man                                                            \
    }
#define NUM(sec, key, type, store, f, min, max, say, note, def, man)                     \
    {                                                                                    \
        sec, key, type, store, FIELD(f), min, max, say, note, NULL, NULL, def,           \
            PRINT_VALUE, false, man                                                      \
    }
#define LIMIT(key, type, store, f, min, max, man)                                        \
    NUM("serve", key, type, store, serve_limits.f, min, max,                             \
        (type) == KEY_WHOLE ? "a whole number" : "seconds", "", NAN, man)

static const struct conf_key keys[] = {
    TEXT("database", "conninfo", db_conf, NULL, NULL, PRINT_NEVER, "CONNINFO"),
    TEXT("database", "state_dir", state_dir_conf, check_absolute, NULL, PRINT_IF_SET,
         "DIR"),

    TEXT("serve", "listen", listen, check_listen, "127.0.0.1:8080", PRINT_VALUE,
         "ADDR : PORT"),
    TEXT("serve", "token", token, NULL, NULL, PRINT_SECRET, "TOKEN"),
    TEXT("serve", "cors_origin", cors_origin, NULL, NULL, PRINT_VALUE, "ORIGIN"),
    TEXT("serve", "admin_token", admin_token, NULL, NULL, PRINT_SECRET_IF_SET, "TOKEN"),
    TEXT("serve", "db_user", db_user, check_role, DB_READER_ROLE, PRINT_VALUE, "ROLE"),
    LIMIT("threads", KEY_WHOLE, STORE_UNSIGNED, threads, 1, SERVE_THREADS_MAX, "N"),
    LIMIT("compute_threads", KEY_WHOLE, STORE_UNSIGNED, compute_threads, 1,
          SERVE_COMPUTE_MAX, "N"),
    LIMIT("deadline_s", KEY_NUMBER, STORE_DOUBLE, deadline_s, 0.001, SERVE_DEADLINE_MAX_S,
          "SECONDS"),
    LIMIT("max_free_permutations", KEY_WHOLE, STORE_SIZE, max_free_permutations, 0,
          ANALYZE_PERMUTATIONS_MAX, "B"),
    LIMIT("max_connections", KEY_WHOLE, STORE_UNSIGNED, max_connections, 1,
          SERVE_CONNECTIONS_MAX, "N"),
    LIMIT("max_connections_per_address", KEY_WHOLE, STORE_UNSIGNED,
          max_connections_per_address, 1, SERVE_CONNECTIONS_MAX, "N"),
    LIMIT("idle_timeout_s", KEY_WHOLE, STORE_UNSIGNED, idle_timeout_s, 1, 86400,
          "SECONDS"),
    LIMIT("header_timeout_s", KEY_NUMBER, STORE_DOUBLE, header_timeout_s, 0.001, 86400,
          "SECONDS"),
    LIMIT("cache_bytes", KEY_WHOLE, STORE_SIZE, cache_bytes, 0, SERVE_CACHE_BYTES_MAX,
          "BYTES"),

    TEXT("devices", "include", device_include, check_key_regex,
         INGEST_DEFAULT_DEVICE_INCLUDE, PRINT_VALUE, "REGEX"),
    TEXT("devices", "names", device_names, check_device_names, NULL, PRINT_VALUE,
         "MAJ:MIN=NAME ..."),

    NUM("samples", "sample_offset_s", KEY_NUMBER, STORE_DOUBLE, sample_offset_s,
        -INFINITY, INFINITY, "a number", "", 0, "SECONDS"),
    TEXT("samples", "timezone", timezone, check_timezone, "UTC", PRINT_VALUE, "ZONE"),
    NUM("samples", "fill_max", KEY_WHOLE, STORE_UNSIGNED, fill_max, 0, 10,
        "a whole number of intervals", "", 1, "N"),
    {"samples", "xff", KEY_NUMBER, STORE_DOUBLE, FIELD(xff), 0, 1, "a fraction", "", NULL,
     NULL, 0.5, PRINT_VALUE, true, "FRACTION"},

    TEXT("analysis", "profile", profile, check_profile, "default", PRINT_VALUE,
         "default|paper"),
    NUM("analysis", "d_min", KEY_WHOLE, STORE_SIZE, d_min, 2, 999999999, NULL, NULL, 10,
        "N"),
    NUM("analysis", "seed", KEY_WHOLE, STORE_ULONG, seed, 0, SEED_MAX, NULL, NULL,
        20240601, "N"),
    NUM("analysis", "granularity_s", KEY_NUMBER, STORE_DOUBLE, granularity_s, 0, INFINITY,
        NULL, NULL, 0, "SECONDS"),
    NUM("analysis", "sweep_k_max", KEY_WHOLE, STORE_UNSIGNED, sweep_k_max, 1,
        SWEEP_K_LIMIT, NULL, NULL, 20, "N"),
    NUM("analysis", "sweep_phases", KEY_PHASES, STORE_NONE, sweep_all_phases, 0, 0, NULL,
        NULL, 0, "\"0|all\""),
    NUM("analysis", "permutations", KEY_WHOLE, STORE_SIZE, permutations, 0,
        ANALYZE_PERMUTATIONS_MAX, NULL, NULL, 999, "B"),

    NUM("ingest", "max_file_bytes", KEY_COUNT, STORE_SIZE, max_file_bytes, 1,
        (double)MAX_FILE_BYTES_LIMIT, "a whole number of bytes", " (1 TiB)",
        (double)INGEST_DEFAULT_MAX_FILE_BYTES, "BYTES"),
    NUM("ingest", "batch_files", KEY_COUNT, STORE_SIZE, batch_files, 1, 100000,
        "a number of files", "", (double)INGEST_DEFAULT_BATCH_FILES, "N"),
    NUM("ingest", "max_job_records", KEY_COUNT, STORE_SIZE, max_job_records, 1, 10000000,
        "a number of records", "", (double)INGEST_DEFAULT_MAX_JOB_RECORDS, "N"),
};

#define N_KEYS (sizeof keys / sizeof keys[0])

bool app_config_key_at(size_t i, const char **section, const char **key, const char **man)
{
    if (i >= N_KEYS)
        return false;
    *section = keys[i].section;
    *key = keys[i].key;
    *man = keys[i].man;
    return true;
}

static void *field_of(struct app_config *cfg, const struct conf_key *k)
{
    return (char *)cfg + k->offset;
}

static const void *field_in(const struct app_config *cfg, const struct conf_key *k)
{
    return (const char *)cfg + k->offset;
}

static void store_number(struct app_config *cfg, const struct conf_key *k, double v)
{
    void *f = field_of(cfg, k);

    switch (k->store) {
    case STORE_DOUBLE: *(double *)f = v; break;
    case STORE_UNSIGNED: *(unsigned *)f = (unsigned)v; break;
    case STORE_SIZE: *(size_t *)f = (size_t)v; break;
    case STORE_ULONG: *(unsigned long *)f = (unsigned long)v; break;
    case STORE_NONE:
    default: break;
    }
}

/* Digits alone ("0x10", "-1", " 1" refused), exactly, into *out. */
static bool digits(const char *value, double *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0)
        return false;
    *out = (double)v;
    return true;
}

/* A number key's value: read as its type, then its range. */
static enum status set_number(struct app_config *cfg, const struct conf_key *k,
                              const char *value, const struct ini_state *st)
{
    double v = 0;
    bool ok;

    if (k->type == KEY_COUNT) {
        ok = digits(value, &v) && v >= k->min && v <= k->max;
    } else {
        char what[64];
        snprintf(what, sizeof what, "[%s] %s", k->section, k->key);
        enum status rc = parse_double(value, &v, what, st->path, st->line, st->err);
        if (rc != STATUS_OK)
            return rc;
        ok = v >= k->min && (k->below_max ? v < k->max : v <= k->max) &&
             (k->type != KEY_WHOLE || v == floor(v));
    }
    if (ok) {
        store_number(cfg, k, v + 0.0); /* -0 is 0: printed and recorded as 0 */
        return STATUS_OK;
    }
    if (k->what == NULL) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[%s] %s: out of range: %.40s (d_min >= 2, sweep_k_max 1 "
                        "to %d, permutations 0 to %d, seed and granularity_s >= 0)",
                        k->section, k->key, value, SWEEP_K_LIMIT,
                        ANALYZE_PERMUTATIONS_MAX);
    }
    if (k->type == KEY_COUNT) {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "[%s] %s: expected %s from %.0f to %.0f%s, got '%.40s'",
                        k->section, k->key, k->what, k->min, k->max, k->note, value);
    }
    return error_at(st->err, STATUS_PARSE, st->path, st->line,
                    "[%s] %s: expected %s from %g to %s%g, got '%.40s'", k->section,
                    k->key, k->what, k->min, k->below_max ? "below " : "", k->max, value);
}

static enum status set_value(struct app_config *cfg, const struct conf_key *k,
                             const char *value, const struct ini_state *st)
{
    switch (k->type) {
    case KEY_TEXT: {
        if (k->check != NULL) {
            enum status rc = k->check(k, value, st);
            if (rc != STATUS_OK)
                return rc;
        }
        return set_text(field_of(cfg, k), k->size, k->section, k->key, value, st);
    }
    case KEY_PHASES:
        if (strcmp(value, "all") != 0 && strcmp(value, "0") != 0) {
            return error_at(st->err, STATUS_PARSE, st->path, st->line,
                            "[%s] %s: expected 0 or all, got '%.40s'", k->section, k->key,
                            value);
        }
        *(bool *)field_of(cfg, k) = strcmp(value, "all") == 0;
        return STATUS_OK;
    case KEY_NUMBER:
    case KEY_WHOLE:
    case KEY_COUNT:
    default: return set_number(cfg, k, value, st);
    }
}

/* "[section] key: unknown key; expected a, b or c": the section's keys in order. */
static enum status unknown_key(const char *section, const char *key,
                               const struct ini_state *st)
{
    char list[512];
    size_t used = 0, n = 0, left = 0;

    for (size_t i = 0; i < N_KEYS; i++)
        n += strcmp(keys[i].section, section) == 0;
    list[0] = '\0';
    for (size_t i = 0; i < N_KEYS && used < sizeof list; i++) {
        if (strcmp(keys[i].section, section) != 0)
            continue;
        int w = snprintf(list + used, sizeof list - used, "%s%s",
                         left == 0       ? "; expected "
                         : left + 1 == n ? " or "
                                         : ", ",
                         keys[i].key);
        used += w > 0 ? (size_t)w : 0;
        left++;
    }
    return error_at(st->err, STATUS_PARSE, st->path, st->line,
                    "[%.40s] %.40s: unknown key%s", section, key, list);
}

static enum status set_key(struct ini_state *st, const char *section, const char *key,
                           const char *value)
{
    struct app_config *cfg = st->cfg;

    if (st->group != NULL)
        return set_group_key(st->group, key, value, st);
    if (strcmp(section, "filesystems") == 0) {
        struct error why = {0};
        enum status rc = ingest_fs_map_add(&cfg->fs_map, key, value, &why);
        if (rc != STATUS_OK) {
            return error_at(st->err, rc == STATUS_NOMEM ? rc : STATUS_PARSE, st->path,
                            st->line, "[filesystems] %.40s: %s", key, why.msg);
        }
        return STATUS_OK;
    }
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0)
            return set_value(cfg, &keys[i], value, st);
    }
    if (section[0] == '\0') {
        return error_at(st->err, STATUS_PARSE, st->path, st->line,
                        "%.40s: a key before any [section]", key);
    }
    return unknown_key(section, key, st);
}

static int ini_key(void *user, const char *section, const char *key, const char *value)
{
    struct ini_state *st = user;

    if (st->rc == STATUS_OK)
        st->rc = set_key(st, section, key, value);
    return st->rc == STATUS_OK;
}

/* The text of line n of fp (for a line libinih could not read), into out. */
static void line_text(FILE *fp, long n, char *out, size_t size)
{
    char *buf = NULL;
    size_t cap = 0;

    out[0] = '\0';
    rewind(fp);
    for (long i = 1; getline(&buf, &cap, fp) != -1; i++) {
        if (i == n) {
            buf[strcspn(buf, "\r\n")] = '\0';
            snprintf(out, size, "%s", buf);
            break;
        }
    }
    free(buf);
}

enum status app_config_read_stream(struct app_config *cfg, FILE *fp, const char *path,
                                   struct error *err)
{
    struct ini_state st = {.cfg = cfg,
                           .path = path,
                           .fp = fp,
                           .first_group = cfg->n_groups,
                           .err = err,
                           .rc = STATUS_OK};
    size_t first_group = cfg->n_groups;
    int bad;

    st.group_lines = NULL;
    bad = ini_parse_stream(ini_read_line, &st, ini_key, &st);
    /* libinih goes on after a line it cannot read: that line, when it comes before
     * the one a handler refused, is the first error. */
    if (bad > 0 && st.rc != STATUS_OK && err != NULL && err->line > bad) {
        error_clear(err);
        st.rc = STATUS_OK;
    }
    if (st.rc == STATUS_OK && bad != 0) {
        char text[64];
        if (bad > 0)
            line_text(st.fp, bad, text, sizeof text);
        st.rc = bad > 0 ? error_at(err, STATUS_PARSE, path, bad,
                                   "expected [section], key = value or a comment, got "
                                   "'%.40s'",
                                   text)
                        : error_at(err, STATUS_NOMEM, path, 0, "libinih: no memory");
    }
    if (st.rc == STATUS_OK && ferror(st.fp)) {
        st.rc =
            error_at(err, STATUS_NOT_FOUND, path, 0, "cannot read: %s", strerror(errno));
    }
    for (size_t i = first_group; st.rc == STATUS_OK && i < cfg->n_groups; i++) {
        bool any = false;
        for (int k = 0; k < GROUP_KEYS; k++)
            any = any || cfg->groups[i].given[k][0] != '\0';
        if (!any) {
            st.rc = error_at(err, STATUS_PARSE, path, st.group_lines[i - first_group],
                             "[group %s]: expected at least one of executable, uid, "
                             "nprocs, bytes or jobs",
                             cfg->groups[i].name);
        }
    }
    free(st.buf);
    free(st.group_lines);
    if (st.rc == STATUS_OK)
        snprintf(cfg->config_path, sizeof cfg->config_path, "%s", path);
    return st.rc;
}

static enum status read_file(struct app_config *cfg, const char *path, struct error *err)
{
    FILE *fp = fopen(path, "r");
    enum status rc;

    if (fp == NULL) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open: %s",
                        strerror(errno));
    }
    rc = app_config_read_stream(cfg, fp, path, err);
    fclose(fp);
    return rc;
}

void app_config_defaults(struct app_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    /* The daemon owns its limits' defaults: the rows of [serve]'s limits say NAN. */
    cfg->serve_limits = serve_limits_default();
    for (size_t i = 0; i < N_KEYS; i++) {
        const struct conf_key *k = &keys[i];
        if (k->type == KEY_TEXT && k->def != NULL) {
            snprintf(field_of(cfg, k), k->size, "%s", k->def);
        } else if (k->type != KEY_TEXT && k->type != KEY_PHASES && !isnan(k->def_n)) {
            store_number(cfg, k, k->def_n);
        }
    }
}

enum status app_config_load(struct app_config *cfg, const char *path, struct error *err)
{
    const char *env;
    enum status rc;

    app_config_defaults(cfg);
    if (path == NULL && access(DEFAULT_CONFIG_PATH, R_OK) == 0)
        path = DEFAULT_CONFIG_PATH;
    if (path != NULL) {
        rc = read_file(cfg, path, err);
        if (rc != STATUS_OK)
            return rc;
    }
    env = getenv("IOCONTEND_LISTEN");
    if (env != NULL && env[0] != '\0') {
        char host[256];
        int port = 0;
        rc = serve_listen_parse(env, host, sizeof host, &port, err);
        if (rc == STATUS_OK && strlen(env) >= sizeof cfg->listen)
            rc = error_set(err, STATUS_INVALID, "IOCONTEND_LISTEN: too long");
        if (rc != STATUS_OK) {
            error_wrap(err, "IOCONTEND_LISTEN");
            return rc;
        }
        snprintf(cfg->listen, sizeof cfg->listen, "%s", env);
    }
    env = getenv("IOCONTEND_TOKEN");
    if (env != NULL && env[0] != '\0') {
        if (strlen(env) >= sizeof cfg->token) {
            return error_set(err, STATUS_INVALID,
                             "IOCONTEND_TOKEN: longer than %zu bytes",
                             sizeof cfg->token - 1);
        }
        snprintf(cfg->token, sizeof cfg->token, "%s", env);
    }
    env = getenv("IOCONTEND_SAMPLE_OFFSET_S");
    if (env != NULL && env[0] != '\0') {
        return parse_double(env, &cfg->sample_offset_s, "IOCONTEND_SAMPLE_OFFSET_S",
                            "IOCONTEND_SAMPLE_OFFSET_S", 0, err);
    }
    return STATUS_OK;
}

enum status app_config_read(struct app_config *cfg, const char *path, struct error *err)
{
    return read_file(cfg, path, err);
}

void app_config_clear(struct app_config *cfg)
{
    ingest_fs_map_clear(&cfg->fs_map);
    free(cfg->groups);
    cfg->groups = NULL;
    cfg->n_groups = 0;
}

/* "key = value", or "key=value" when that alone stays within a line libinih reads
 * whole, so that what is printed loads back. */
static void print_key(FILE *fp, const char *key, const char *value)
{
    if (value[0] == '\0') {
        fprintf(fp, "%s =\n", key);
    } else if (strlen(key) + strlen(value) + 3 <= LINE_MAX_BYTES) {
        fprintf(fp, "%s = %s\n", key, value);
    } else {
        fprintf(fp, "%s=%s\n", key, value);
    }
}

/* One key of cfg as its row says. */
static void print_value(FILE *fp, const struct app_config *cfg, const struct conf_key *k)
{
    const void *f = field_in(cfg, k);
    const char *text = f;

    switch (k->type) {
    case KEY_TEXT:
        if (k->print == PRINT_NEVER)
            return;
        if (text[0] == '\0' &&
            (k->print == PRINT_IF_SET || k->print == PRINT_SECRET_IF_SET))
            return;
        if (text[0] != '\0' &&
            (k->print == PRINT_SECRET || k->print == PRINT_SECRET_IF_SET)) {
            fprintf(fp, "# %s: (set, not shown)\n", k->key);
        } else {
            print_key(fp, k->key, text);
        }
        return;
    case KEY_PHASES:
        fprintf(fp, "%s = %s\n", k->key, *(const bool *)f ? "all" : "0");
        return;
    case KEY_NUMBER:
    case KEY_WHOLE:
    case KEY_COUNT:
    default: break;
    }
    switch (k->store) {
    case STORE_DOUBLE: fprintf(fp, "%s = %.17g\n", k->key, *(const double *)f); break;
    case STORE_UNSIGNED: fprintf(fp, "%s = %u\n", k->key, *(const unsigned *)f); break;
    case STORE_SIZE: fprintf(fp, "%s = %zu\n", k->key, *(const size_t *)f); break;
    case STORE_ULONG: fprintf(fp, "%s = %lu\n", k->key, *(const unsigned long *)f); break;
    case STORE_NONE:
    default: break;
    }
}

/* What [database] decided, as comments: not keys to read back. */
static void print_database(FILE *fp, const struct app_config *cfg)
{
    struct db_target t;
    struct error err = {0};
    const struct db_state_opts state = app_state_opts(cfg);

    if (db_target_resolve(cfg->db_arg, &state, &t, &err) != STATUS_OK)
        return;
    fprintf(fp, "# %s\n", t.reason);
    /* A conninfo may hold a password, so only whether it is set is shown. */
    if (t.embedded) {
        fprintf(fp, "# state_dir: %.180s (%.120s)\n# socket_dir: %.120s\n", t.state_dir,
                t.state_why,
                t.socket_dir[0] != '\0' ? t.socket_dir : "(made at the first start)");
    } else {
        fprintf(fp, "# conninfo: %s\n",
                t.conninfo[0] != '\0' ? "(set, not shown)" : "(PG* variables)");
    }
}

void app_config_print(const struct app_config *cfg, FILE *fp)
{
    fprintf(fp, "# effective configuration (file: %.150s)\n",
            cfg->config_path[0] != '\0' ? cfg->config_path : "none");
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        fprintf(fp, "%s[%s]\n", s == 0 ? "" : "\n", sections[s]);
        if (strcmp(sections[s], "database") == 0)
            print_database(fp, cfg);
        if (strcmp(sections[s], "filesystems") == 0) {
            for (size_t i = 0; i < cfg->fs_map.n; i++) {
                print_key(fp, cfg->fs_map.entries[i].prefix,
                          cfg->fs_map.entries[i].fs_name);
            }
        }
        for (size_t i = 0; i < N_KEYS; i++) {
            if (strcmp(keys[i].section, sections[s]) == 0)
                print_value(fp, cfg, &keys[i]);
        }
    }
    for (size_t i = 0; i < cfg->n_groups; i++) {
        fprintf(fp, "\n[group %s]\n", cfg->groups[i].name);
        for (int k = 0; k < GROUP_KEYS; k++) {
            if (cfg->groups[i].given[k][0] != '\0')
                print_key(fp, group_key_name((enum group_key)k), cfg->groups[i].given[k]);
        }
    }
}
