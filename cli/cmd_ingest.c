/* cmd_ingest.c: `iocontend ingest darshan|iostat`: the nightly loader's front end. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cmd_ingest_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend ingest darshan [--threads N] [--reprocess] [--json] PATH...\n"
        "       iocontend ingest iostat --fs NAME [--server HOST] [--threads N]\n"
        "                               [--reprocess] [--json] PATH...\n"
        "\n"
        "darshan: binary Darshan logs (*.darshan), darshan-parser text (parser.txt,\n"
        "         *.parser.txt) and darshan-dxt-parser text (dxt.txt, *.dxt.txt); a\n"
        "         directory is walked for those names.\n"
        "iostat:  iostat -x -t text or -o JSON, sadf -d or -j, sysstat sa files (read\n"
        "         through sadf), for file system NAME; the server is the host the file\n"
        "         names unless --server is given.\n"
        "Any of them may come gzip'd, bzip2'd or xz'd (.gz, .bz2, .xz).\n"
        "Each file is loaded whole or not at all; a bad file goes to the quarantine\n"
        "list (table ingest_errors) with its reason and the rest of the batch lands;\n"
        "it is not parsed again (known bad) until its content, the settings that\n"
        "shaped the verdict or iocontend's version change.\n"
        "Loading the same content again changes nothing.\n"
        "One ingest runs at a time (darshan and iostat alike): a second one waits.\n"
        "Files are read and parsed on N threads (--threads; default one per processor).\n"
        "darshan logs go in batches of [ingest] batch_files (1000), one transaction\n"
        "each; a batch the database refuses is sent again file by file. Sample files\n"
        "load one transaction each, in order. Any N gives the same rows, quarantine\n"
        "list, summary and log lines.\n"
        "  --threads N   threads reading and parsing (1-1024); --jobs N is an alias\n"
        "  --reprocess   read files loaded before again and fill in what this version\n"
        "                extracts that older ones did not (the queue columns of their\n"
        "                samples, the DXT traces of their logs); no other row changes\n"
        "  --json        print one JSON summary object on stdout\n"
        "  --no-wait     exit 75 when another ingest is running\n"
        "Folders are walked at most %d levels deep; symbolic links below a folder\n"
        "are logged and not followed; FIFOs, sockets and devices are refused by type,\n"
        "never opened, also when named directly; a folder too deep or that cannot be\n"
        "read is refused by name and the rest of the tree loads. The summary lists\n"
        "the first %d failures with their reasons and counts the rest.\n"
        "exit: 0 all loaded or skipped; 1 some inputs are quarantined, newly or still\n"
        "      (\"still N quarantined\": known bad, unchanged, on every run while\n"
        "      they are), or refused, or (with --reprocess) a file loaded before no\n"
        "      longer reads;\n"
        "      66 an input is missing;\n"
        "      69 database unavailable; 70 internal error; 74 database out of disk;\n"
        "      64 usage; 75 another ingest is running.\n",
        INGEST_WALK_MAX_DEPTH, INGEST_SUMMARY_ERRORS);
}

/* remap: ingest darshan --reprocess, which says how many jobs it re-mapped. */
static void print_summary(const struct ingest_summary *s, bool json, bool remap)
{
    /* Every run while any input is quarantined says so (not only the run that
     * quarantined it), so that an alert on it does not clear after one night; on
     * stderr with --json too. */
    if (s->quarantined + s->known_bad > 0) {
        log_warn("still %ld quarantined (%ld new, %ld known bad): iocontend quarantine "
                 "list",
                 s->quarantined + s->known_bad, s->quarantined, s->known_bad);
    }
    if (s->refused > 0)
        log_warn("%ld inputs refused before any read", s->refused);
    if (json) {
        json_t *o = json_object();
        json_t *errors = json_array();
        for (size_t i = 0; i < s->n_errors; i++) {
            json_t *e = json_object();
            json_object_set_new(e, "path", json_string(s->errors[i].path));
            json_object_set_new(e, "line",
                                s->errors[i].line > 0 ? json_integer(s->errors[i].line)
                                                      : json_null());
            json_object_set_new(e, "message", json_string(s->errors[i].message));
            json_array_append_new(errors, e);
        }
        json_object_set_new(o, "files", json_integer(s->files));
        json_object_set_new(o, "loaded", json_integer(s->loaded));
        json_object_set_new(o, "skipped", json_integer(s->skipped));
        json_object_set_new(o, "unchanged", json_integer(s->unchanged));
        json_object_set_new(o, "not_input", json_integer(s->not_input));
        json_object_set_new(o, "quarantined", json_integer(s->quarantined));
        json_object_set_new(o, "known_bad", json_integer(s->known_bad));
        json_object_set_new(o, "missing", json_integer(s->missing));
        json_object_set_new(o, "still_quarantined",
                            json_integer(s->quarantined + s->known_bad));
        json_object_set_new(o, "refused", json_integer(s->refused));
        json_object_set_new(o, "errors_more", json_integer(s->errors_more));
        json_object_set_new(o, "jobs", json_integer(s->jobs));
        json_object_set_new(o, "samples", json_integer(s->samples));
        json_object_set_new(o, "reprocessed", json_integer(s->reprocessed));
        json_object_set_new(o, "reread_failed", json_integer(s->reread_failed));
        if (remap)
            json_object_set_new(o, "remapped", json_integer(s->remapped));
        json_object_set_new(o, "filled", json_integer(s->filled));
        json_object_set_new(o, "seconds", json_real(s->seconds));
        json_object_set_new(o, "errors", errors);
        char *text = json_dumps(o, JSON_COMPACT);
        if (text != NULL)
            printf("%s\n", text);
        free(text);
        json_decref(o);
        return;
    }
    /* The categories add up to files (ingest.h); the walk's other files are apart. */
    char refused[40] = "", again[80] = "";
    if (s->refused > 0)
        snprintf(refused, sizeof refused, ", %ld refused", s->refused);
    if (s->reprocessed > 0 || s->reread_failed > 0) {
        snprintf(again, sizeof again, ", %ld reprocessed, %ld not read again",
                 s->reprocessed, s->reread_failed);
    }
    log_info(
        "ingest run %lld: %ld files: %ld loaded, %ld unchanged, %ld quarantined, %ld "
        "known bad, %ld missing%s%s; %ld other files not inputs; "
        "%ld new jobs, %lld new samples in %.1f s",
        (long long)s->run_id, s->files, s->loaded, s->unchanged, s->quarantined,
        s->known_bad, s->missing, refused, again, s->not_input, s->jobs, s->samples,
        s->seconds);
    for (size_t i = 0; i < s->n_errors; i++) {
        const struct ingest_failure *f = &s->errors[i];
        if (f->line > 0) {
            log_warn("  %s:%ld: %s", f->path, f->line, f->message);
        } else {
            log_warn("  %s: %s", f->path, f->message);
        }
    }
    if (s->errors_more > 0)
        log_warn("  ... and %ld more (iocontend quarantine list)", s->errors_more);
    if (s->reprocessed > 0 || s->reread_failed > 0) {
        log_info("reprocessed %ld files loaded before (%ld no longer read): %lld samples "
                 "gained queue columns or traces were added",
                 s->reprocessed, s->reread_failed, s->filled);
    }
    if (remap) {
        log_info("reprocessed: %ld jobs took the file systems [filesystems] maps their "
                 "files to now",
                 s->remapped);
    }
}

int cmd_ingest(struct app_config *cfg, int argc, char **argv)
{
    bool json = false, no_wait = false, reprocess = false;
    long threads = 0;
    const char *fs = NULL, *server = NULL;
    const struct app_option opts[] = {
        {"json", OPT_FLAG, &json, 0, 0, NULL, 0},
        {"fs", OPT_TEXT, &fs, 0, 0, NULL, 0},
        {"server", OPT_TEXT, &server, 0, 0, NULL, 0},
        {"threads", OPT_WHOLE, &threads, 1, 1024, "a number of threads from ", 0},
        {"jobs", OPT_WHOLE, &threads, 1, 1024, "a number of threads from ", 0},
        {"no-wait", OPT_FLAG, &no_wait, 0, 0, NULL, 0},
        {"reprocess", OPT_FLAG, &reprocess, 0, 0, NULL, 0},
        {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct db *db = NULL;
    struct error err = {0};
    struct ingest_summary s;

    memset(&s, 0, sizeof s);
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        cmd_ingest_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const char *kind = argv[1];
    if (strcmp(kind, "darshan") != 0 && strcmp(kind, "iostat") != 0) {
        fprintf(stderr, "iocontend ingest: expected darshan or iostat, got '%s'\n", kind);
        cmd_ingest_help(stderr);
        return EXIT_USAGE;
    }
    app_options_init(&p, "ingest", opts, cmd_ingest_help, argc - 1, argv + 1);
    if (app_options_all(&p) >= 0)
        return p.status;
    int first = app_options_rest(&p) + 1;
    if (first >= argc) {
        fprintf(stderr, "iocontend ingest %s: no PATH given\n", kind);
        return EXIT_USAGE;
    }
    bool darshan = strcmp(kind, "darshan") == 0;
    if (!darshan && fs == NULL) {
        fprintf(stderr, "iocontend ingest iostat: --fs NAME is required\n");
        return EXIT_USAGE;
    }
    int code = app_db_create(cfg, &db);
    if (code == EXIT_OK)
        code = app_run_lock(db, "ingest", no_wait);
    if (code != EXIT_OK) {
        db_close(db);
        return code;
    }
    enum status rc;
    struct app_progress bar;
    struct progress progress;
    app_progress_init(&bar, cfg);
    bar.on = bar.on && !json;
    struct ingest_opts o = {
        .fs_map = &cfg->fs_map,
        .device_include = cfg->device_include,
        .device_names = cfg->device_names[0] != '\0' ? cfg->device_names : NULL,
        .fs = fs,
        .server = server,
        .timezone = cfg->timezone,
        .progress = app_progress_of(&bar, &progress),
        .max_file_bytes = cfg->max_file_bytes,
        .max_job_records = cfg->max_job_records,
        .jobs = (unsigned)threads,
        .batch_files = cfg->batch_files,
        .reprocess = reprocess,
    };
    int series = EXIT_OK;
    if (darshan) {
        rc = ingest_darshan_paths(db, argv + first, (size_t)(argc - first), &o, &s, &err);
    } else {
        rc = ingest_iostat_paths(db, argv + first, (size_t)(argc - first), &o, &s, &err);
        /* The days whose samples changed, recomputed once for the whole run (the
         * samples' transactions marked them). After a stop they wait for the next. */
        if (rc == STATUS_OK)
            series = app_series_refresh(cfg, db, false);
    }
    db_close(db);
    if (rc != STATUS_OK) {
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_error("ingest stopped: %s", msg);
        print_summary(&s, json, darshan && reprocess);
        ingest_summary_clear(&s);
        return exit_code_of_error(rc, &err);
    }
    print_summary(&s, json, darshan && reprocess);
    code = series != EXIT_OK ? series
           : s.missing > 0   ? EXIT_NOINPUT
           : s.quarantined > 0 || s.known_bad > 0 || s.refused > 0 || s.reread_failed > 0
               ? EXIT_PARTIAL
               : EXIT_OK;
    ingest_summary_clear(&s);
    return code;
}
