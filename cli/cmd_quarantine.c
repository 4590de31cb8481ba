/* cmd_quarantine.c: `iocontend quarantine list|retry|forget`: the files ingest could
 * not load (table ingest_errors), read, tried again or forgotten. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_quarantine_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend quarantine list [--json]\n"
        "       iocontend quarantine retry PATH...|--all\n"
        "       iocontend quarantine forget PATH...|--all\n"
        "\n"
        "The quarantine list (table ingest_errors): each file ingest could not load,\n"
        "one entry per path and content, with its reason, when it was first and last\n"
        "seen, and whether the next ingest skips it. An unchanged bad file is 'known\n"
        "bad': ingest does not parse it again until its content, the settings that\n"
        "shaped the verdict or iocontend's version change.\n"
        "  list    every entry, the most recently seen first: a table, or with --json\n"
        "          one object {\"quarantined\": [{path, content_hash, line, status,\n"
        "          message, first_seen, last_seen, known_bad, loaded, verdict}]}\n"
        "  retry   clears the verdict of the entries of PATH (as 'list' shows it) or of\n"
        "          every entry (--all): the next ingest given the file parses it again\n"
        "          (retry itself loads nothing). The entry stays listed with its\n"
        "          history; a file still bad is quarantined again then (ingest exits 1)\n"
        "          and keeps its first_seen.\n"
        "  forget  removes the entries of PATH or every entry, history included: the\n"
        "          file is parsed again by the next ingest given it too, and a file\n"
        "          still bad comes back as a new entry. For files fixed, moved away or\n"
        "          deleted; retry keeps the record.\n"
        "Files of the same content share one verdict: retry and forget also clear the\n"
        "verdict of other paths' entries with PATH's content (they stay listed).\n"
        "exit: 0 done (an empty list too); 64 usage; 66 a PATH has no entry (nothing\n"
        "      changed); 69 database unavailable.\n");
}

/* ---- list ------------------------------------------------------------------------ */

static const char *next_ingest(const struct db_quarantine_entry *e)
{
    return e->loaded ? "loaded since" : e->known_bad ? "skips it" : "parses it";
}

static json_t *entry_json(const struct db_quarantine_entry *e)
{
    json_t *o = json_object();

    json_object_set_new(o, "path", json_string(e->path));
    json_object_set_new(o, "content_hash", json_string(e->content_hash));
    json_object_set_new(o, "line", e->line > 0 ? json_integer(e->line) : json_null());
    json_object_set_new(o, "status", json_string(e->status));
    json_object_set_new(o, "message", json_string(e->message));
    json_object_set_new(o, "first_seen", json_string(e->first_seen));
    json_object_set_new(o, "last_seen", json_string(e->last_seen));
    json_object_set_new(o, "known_bad", json_boolean(e->known_bad));
    json_object_set_new(o, "loaded", json_boolean(e->loaded));
    json_object_set_new(o, "verdict",
                        e->known_bad ? json_string(e->verdict) : json_null());
    return o;
}

static void print_list(const struct db_quarantine_entry *e, size_t n, bool json)
{
    if (json) {
        json_t *all = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(all, entry_json(&e[i]));
        json_t *o = json_pack("{s:o}", "quarantined", all);
        char *text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
        if (text != NULL)
            printf("%s\n", text);
        free(text);
        json_decref(o);
        return;
    }
    if (n == 0) {
        printf("the quarantine list is empty\n");
        return;
    }
    /* One line per entry (grep and wc -l read it), the paths in one column. */
    int width = 4;
    long known = 0, loaded = 0;
    for (size_t i = 0; i < n; i++) {
        char where[4200];
        int len = e[i].line > 0
                      ? snprintf(where, sizeof where, "%s:%ld", e[i].path, e[i].line)
                      : (int)strlen(e[i].path);
        width = len > width ? (len < 60 ? len : 60) : width;
        known += e[i].known_bad && !e[i].loaded ? 1 : 0;
        loaded += e[i].loaded ? 1 : 0;
    }
    printf("%-20s  %-12s  %-8s  %-*s  %s\n", "last seen", "next ingest", "status", width,
           "path", "reason");
    for (size_t i = 0; i < n; i++) {
        char where[4200];
        if (e[i].line > 0) {
            snprintf(where, sizeof where, "%s:%ld", e[i].path, e[i].line);
        } else {
            snprintf(where, sizeof where, "%s", e[i].path);
        }
        printf("%-20s  %-12s  %-8s  %-*s  %s\n", e[i].last_seen, next_ingest(&e[i]),
               e[i].status, width, where, e[i].message);
    }
    printf("%zu entr%s: %ld known bad (skipped by the next ingest), %ld parsed again "
           "by it, %ld loaded since\n",
           n, n == 1 ? "y" : "ies", known, (long)n - known - loaded, loaded);
}

/* ---- retry and forget ----------------------------------------------------------- */

/* retry or forget the entries of argv[first..] (escaped as stored) or all. */
static int change(struct db *db, bool forget, bool all, char **paths, size_t n)
{
    struct db_quarantine_change done;
    struct error err = {0};
    char **shown = NULL;
    enum status rc = STATUS_OK;

    if (!all) {
        shown = calloc(n, sizeof *shown);
        if (shown == NULL) {
            return app_fail("quarantine", error_set(&err, STATUS_NOMEM, "%zu paths", n),
                            &err);
        }
        /* Each as the list holds it: the form given, or its absolute, real or
         * relative one (a relative path loaded, an absolute one given). */
        for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
            shown[i] = app_path_stored(db, paths[i], true, &err);
            if (shown[i] == NULL)
                rc = err.code != STATUS_OK ? err.code : STATUS_NOMEM;
        }
    }
    if (rc == STATUS_OK) {
        const char *const *p = all ? NULL : (const char *const *)shown;
        rc = forget ? db_quarantine_forget(db, p, n, &done, &err)
                    : db_quarantine_retry(db, p, n, &done, &err);
    }
    for (size_t i = 0; shown != NULL && i < n; i++)
        free(shown[i]);
    free(shown);
    if (rc == STATUS_NOT_FOUND) {
        log_error("quarantine %s: %s; nothing changed (the paths are as 'iocontend "
                  "quarantine list' shows them)",
                  forget ? "forget" : "retry", err.msg);
        return EXIT_NOINPUT;
    }
    if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("quarantine %s: %s", forget ? "forget" : "retry", msg);
        return exit_code_of_error(rc, &err);
    }
    if (done.named == 0) {
        printf("the quarantine list is empty: nothing to %s\n",
               forget ? "forget" : "retry");
        return EXIT_OK;
    }
    printf("%s %ld entr%s", forget ? "forgot" : "retried", done.named,
           done.named == 1 ? "y" : "ies");
    if (done.same_bytes > 0)
        printf(" (and cleared the verdict of %ld of the same content)", done.same_bytes);
    printf(": the next ingest given %s parses %s again\n",
           done.named == 1 && done.same_bytes == 0 ? "the file" : "the files",
           done.named == 1 && done.same_bytes == 0 ? "it" : "them");
    return EXIT_OK;
}

int cmd_quarantine(struct app_config *cfg, int argc, char **argv)
{
    bool json = false, all = false;
    const struct app_option opts[] = {{"json", OPT_FLAG, &json, 0, 0, NULL, 0},
                                      {"all", OPT_FLAG, &all, 0, 0, NULL, 0},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct db *db = NULL;

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        cmd_quarantine_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const char *what = argv[1];
    bool list = strcmp(what, "list") == 0, forget = strcmp(what, "forget") == 0;
    if (!list && !forget && strcmp(what, "retry") != 0) {
        fprintf(stderr,
                "iocontend quarantine: expected list, retry or forget, got '%s'\n", what);
        cmd_quarantine_help(stderr);
        return EXIT_USAGE;
    }
    app_options_init(&p, "quarantine", opts, cmd_quarantine_help, argc - 1, argv + 1);
    if (app_options_all(&p) >= 0)
        return p.status;
    int first = app_options_rest(&p) + 1;
    size_t n_paths = (size_t)(argc - first);
    if (list && (all || n_paths > 0)) {
        fprintf(stderr, "iocontend quarantine list: takes only --json\n");
        return EXIT_USAGE;
    }
    if (!list && (json || all == (n_paths > 0))) {
        fprintf(stderr, "iocontend quarantine %s: give PATH... or --all\n", what);
        return EXIT_USAGE;
    }
    int code = app_db_open(cfg, &db);
    if (code != EXIT_OK)
        return code;
    if (list) {
        struct db_quarantine_entry *entries = NULL;
        size_t n = 0;
        struct error err = {0};
        enum status rc = db_quarantine_list(db, &entries, &n, &err);
        code = rc == STATUS_OK ? EXIT_OK : app_fail("quarantine list", rc, &err);
        if (rc == STATUS_OK)
            print_list(entries, n, json);
        free(entries);
    } else {
        code = change(db, forget, all, argv + first, n_paths);
    }
    db_close(db);
    return code;
}
