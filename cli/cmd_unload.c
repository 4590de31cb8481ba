/* cmd_unload.c: `iocontend unload --run ID | --path PATH`: takes back what one ingest
 * run or one file loaded (data loaded by mistake: a wrong --fs, the wrong folder). */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *app_path_stored(struct db *db, const char *typed, bool quarantine,
                      struct error *err)
{
    char abs[PATH_MAX], real[PATH_MAX], cwd[PATH_MAX];
    const char *forms[4] = {typed, NULL, NULL, NULL};
    size_t n = 1;

    abs[0] = '\0';
    if (path_absolute(typed, abs, sizeof abs))
        forms[n++] = abs;
    /* A link's target and the path relative to here (as older versions stored it,
     * from wherever ingest ran) may name another file's loads: unload takes data
     * back, so it matches only the path typed and its absolute form. The quarantine
     * list only clears or drops verdicts: any name of the file is fine there. */
    if (quarantine && realpath(typed, real) != NULL)
        forms[n++] = real;
    size_t cwd_len = quarantine && getcwd(cwd, sizeof cwd) != NULL ? strlen(cwd) : 0;
    if (cwd_len > 1 && abs[0] != '\0' && strncmp(abs, cwd, cwd_len) == 0 &&
        abs[cwd_len] == '/')
        forms[n++] = abs + cwd_len + 1;
    for (size_t i = 0; i < n; i++) {
        char *shown = str_escape_dup(forms[i]);
        bool stored = false;
        if (shown == NULL) {
            error_set(err, STATUS_NOMEM, "the path");
            return NULL;
        }
        if (db_path_stored(db, shown, quarantine, &stored, err) != STATUS_OK) {
            free(shown);
            return NULL;
        }
        if (stored)
            return shown;
        free(shown);
    }
    char *shown = str_escape_dup(typed);
    if (shown == NULL)
        error_set(err, STATUS_NOMEM, "the path");
    return shown;
}

void cmd_unload_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend unload --run ID | --path PATH [--dry-run] [--no-wait]\n"
        "Removes what one ingest run or one file loaded, in one transaction: the jobs\n"
        "(with their activity windows and hand-made group memberships), the DXT traces\n"
        "and the samples that came from its files, and the files' 'loaded' records, so\n"
        "that ingesting them again loads them again. Prints how many files, jobs,\n"
        "samples and DXT traces went.\n"
        "  --run ID    the files of ingest run ID (ingest's summary line names it:\n"
        "              'ingest run ID: ...')\n"
        "  --path PATH every load of the file PATH, as ingest was given it (a sample\n"
        "              file that grew was loaded in several parts: all of them)\n"
        "  --dry-run   print what would be removed; nothing changes\n"
        "  --no-wait   exit 75 when an ingest is running (unload waits for it "
        "otherwise)\n"
        "A job or a sample that other files also hold goes too when this run or file\n"
        "loaded it first; it comes back when this file is ingested again.\n"
        "The quarantine list is left as it is (see 'iocontend quarantine').\n"
        "Stored results are not touched: the next 'iocontend analyze' (without --since)\n"
        "finds the inputs of the groups concerned changed and recomputes them, their\n"
        "tables and the coverage; a group left without jobs stays, with 0 jobs.\n"
        "exit: 0 removed (or would be, --dry-run); 64 usage; 66 no such run, or nothing\n"
        "      loaded from it or from PATH is left; 69 database unavailable;\n"
        "      75 another ingest is running (--no-wait).\n");
}

/* ID: a positive decimal integer. */
static bool parse_run(const char *s, int64_t *out)
{
    char *end;

    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v <= 0)
        return false;
    *out = (int64_t)v;
    return true;
}

int cmd_unload(struct app_config *cfg, int argc, char **argv)
{
    const char *run_arg = NULL, *path = NULL;
    bool dry = false, no_wait = false;
    const struct app_option opts[] = {{"run", OPT_TEXT, &run_arg, 0, 0, NULL, 0},
                                      {"path", OPT_TEXT, &path, 0, 0, NULL, 0},
                                      {"dry-run", OPT_FLAG, &dry, 0, 0, NULL, 0},
                                      {"no-wait", OPT_FLAG, &no_wait, 0, 0, NULL, 0},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    int64_t run_id = 0;
    struct db *db = NULL;
    struct error err = {0};
    struct db_unload_counts n;
    char what[4200];

    app_options_init(&p, "unload", opts, cmd_unload_help, argc, argv);
    if (app_options_all(&p) >= 0)
        return p.status;
    if ((run_arg == NULL) == (path == NULL) || app_options_rest(&p) < argc) {
        fprintf(stderr, "iocontend unload: give one of --run ID or --path PATH\n");
        cmd_unload_help(stderr);
        return EXIT_USAGE;
    }
    if (run_arg != NULL && !parse_run(run_arg, &run_id)) {
        fprintf(stderr,
                "iocontend unload: --run takes a run id (an integer > 0), got "
                "'%s'\n",
                run_arg);
        return EXIT_USAGE;
    }
    char *shown = NULL;
    int code = app_db_open(cfg, &db);
    /* Paths are stored as ingest shows them (escaped where they are not text), and
     * found by the form given or its absolute, real or relative one. */
    if (code == EXIT_OK && path != NULL) {
        shown = app_path_stored(db, path, false, &err);
        if (shown == NULL)
            code = app_fail("unload", err.code, &err);
    }
    if (run_id > 0 || path == NULL) {
        snprintf(what, sizeof what, "ingest run %" PRId64, run_id);
    } else {
        snprintf(what, sizeof what, "path %s", shown != NULL ? shown : path);
    }
    /* An ingest would load beside (or again) what goes: one at a time. */
    if (code == EXIT_OK)
        code = app_run_lock(db, "ingest", no_wait);
    if (code == EXIT_OK) {
        enum status rc = db_unload(db, run_id, shown, dry, &n, &err);
        if (rc == STATUS_OK) {
            printf("%s %s: %ld file%s, %ld job%s, %lld sample%s",
                   dry ? "dry run: would unload" : "unloaded", what, n.files,
                   n.files == 1 ? "" : "s", n.jobs, n.jobs == 1 ? "" : "s", n.samples,
                   n.samples == 1 ? "" : "s");
            if (n.traces > 0)
                printf(", %ld DXT trace%s", n.traces, n.traces == 1 ? "" : "s");
            printf("\n");
            if (!dry && n.samples > 0)
                code = app_series_refresh(cfg, db, false);
            if (!dry) {
                log_info("unload: run 'iocontend analyze' to bring the stored results "
                         "up to date");
            }
        } else {
            char msg[400];
            error_format(&err, msg, sizeof msg);
            log_error("unload: %s", msg);
            code = exit_code_of_error(rc, &err);
        }
    }
    db_close(db);
    free(shown);
    return code;
}
