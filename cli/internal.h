/* internal.h: what the parts of the iocontend program share: the configuration, exit
 * statuses, the commands and the terminal's progress bar; included from cli/ only. */
#ifndef IOCONTEND_CLI_INTERNAL_H
#define IOCONTEND_CLI_INTERNAL_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "../analysis/analysis.h"
#include "../common/common.h"
#include "../daemon/daemon.h"
#include "../ingest/ingest.h"
#include "../sql/db.h"

/* Exit statuses of docs/interfaces.md. */
enum exit_code {
    EXIT_OK = 0,
    EXIT_PARTIAL = 1, /* finished, some inputs quarantined or excluded */
    EXIT_USAGE = 64,
    EXIT_DATAERR = 65, /* an input file that cannot be read as its format */
    EXIT_NOINPUT = 66,
    EXIT_UNAVAILABLE = 69,
    EXIT_SOFTWARE = 70,
    EXIT_OSERR = 71, /* out of memory */
    EXIT_CANTCREAT = 73,
    EXIT_IOERR = 74,   /* the database could not write: a full disk, no resources */
    EXIT_TEMPFAIL = 75 /* another run of the same kind holds the lock (--no-wait) */
};

/* The program's configuration after command line > environment > file > defaults. */
struct app_config {
    char config_path[512];    /* "" when no file was read */
    char db_arg[1024];        /* --db, "" when not given */
    char db_conf[1024];       /* [database] conninfo, "" when not set */
    char state_dir_arg[512];  /* --state-dir, "" when not given */
    char state_dir_conf[512]; /* [database] state_dir, "" when not set */
    char listen[128];         /* [serve] listen, default 127.0.0.1:8080 */
    char token[128]; /* [serve] token: when set, /api needs "Authorization: Bearer" */
    char cors_origin[256]; /* [serve] cors_origin */
    char admin_token[128]; /* [serve] admin_token: lifts max_free_permutations */
    char db_user[64];      /* [serve] db_user: the read-only role serve connects as */
    struct serve_limits serve_limits; /* [serve] threads, deadline_s, ... */
    char device_include[256];
    char device_names[256]; /* [devices] names: "MAJ:MIN=NAME, ..."; "": none */
    double sample_offset_s; /* θ of every source (docs/method.md §1) */
    char timezone[128];     /* [samples] timezone: of stamps printed without a zone */
    unsigned fill_max;      /* [samples] fill_max: the gap rule's longest run filled */
    double xff;           /* [samples] xff: a coarse interval's tolerated missing share */
    char profile[16];     /* [analysis] profile: "default", or "paper" (strict gaps) */
    double granularity_s; /* base Δ when the samples do not say; 0 = from samples */
    size_t d_min;         /* docs/method.md §5, default 10 */
    unsigned long seed;   /* default 20240601 */
    unsigned sweep_k_max; /* [analysis] sweep_k_max: the sweep's largest k (20) */
    bool sweep_all_phases;  /* [analysis] sweep_phases = all: every phase φ at each k */
    size_t permutations;    /* [analysis] permutations: B of analyze's significance (999);
                               0: analyze stores none */
    size_t max_file_bytes;  /* [ingest] max_file_bytes: larger inputs quarantined */
    size_t batch_files;     /* [ingest] batch_files: darshan logs per transaction */
    size_t max_job_records; /* [ingest] max_job_records: more in a log: quarantined */
    struct ingest_fs_map fs_map; /* [filesystems] */
    struct group_rule *groups;   /* [group NAME] sections, in file order (owned) */
    size_t n_groups;
    bool quiet;
};

/* Defaults, then the file (path NULL: /etc/iocontend/iocontend.conf when it
 * exists), then the environment. STATUS_PARSE naming file, line and key for a bad
 * file, STATUS_NOT_FOUND for one that cannot be read, STATUS_INVALID for a bad
 * environment value, STATUS_NOMEM. */
enum status app_config_load(struct app_config *cfg, const char *path,
                            struct error *err) MUST_CHECK;
void app_config_clear(struct app_config *cfg);
/* Reads one more INI file over cfg (the demo's own configuration). */
enum status app_config_read(struct app_config *cfg, const char *path,
                            struct error *err) MUST_CHECK;
/* The defaults alone, over the whole of cfg: no file, no environment. */
void app_config_defaults(struct app_config *cfg);
/* app_config_read on an open stream that path names in errors (fuzz/fuzz_config.c
 * reads memory): fp is read and rewound (to quote a bad line), never closed. */
enum status app_config_read_stream(struct app_config *cfg, FILE *fp, const char *path,
                                   struct error *err) MUST_CHECK;
/* The i-th key of the configuration's table (config.c): its section, name and what
 * follows "name = " on its line of iocontend.conf(5); false past the last. */
bool app_config_key_at(size_t i, const char **section, const char **key,
                       const char **man);
/* Prints the effective configuration as INI. */
void app_config_print(const struct app_config *cfg, FILE *fp);
/* Where the state directory was chosen (--state-dir, [database] state_dir); borrows
 * cfg. */
struct db_state_opts app_state_opts(const struct app_config *cfg);
/* What the analysis takes from the configuration. */
struct analysis_settings app_analysis_settings(const struct app_config *cfg);
/* What the HTTP server takes from it; listen NULL: [serve] listen. Borrows cfg. */
struct serve_settings app_serve_settings(const struct app_config *cfg,
                                         const char *listen);

/* The exit status of a status that stopped a command (STYLE.md §3: the one place). */
int exit_code_of(enum status s);
/* exit_code_of(rc), refined by what err says ran out: a database that failed for
 * want of resources (SQLSTATE classes 53, 58: a full disk, also a server that
 * panicked on one) or a system call's ENOSPC, EDQUOT or EIO is EXIT_IOERR; ENOMEM
 * EXIT_OSERR; a state directory that is read-only, foreign or cannot be made or
 * reached (EROFS, EPERM, EACCES, set only by sql/'s state directory checks)
 * EXIT_CANTCREAT. */
int exit_code_of_error(enum status rc, const struct error *err);

/* Opens the database of cfg (--db, the environment, or the embedded server, started
 * and migrated); logs why not and returns the exit status, EXIT_OK on success. A
 * state directory that holds no embedded server is refused with EXIT_UNAVAILABLE, naming
 * it and how to make one, and nothing is created (a mistyped --state-dir must not give an
 * empty database that analyze or report then reads as "nothing"). */
int app_db_open(const struct app_config *cfg, struct db **out);
/* app_db_open that creates the embedded server when it is missing: for the commands
 * that put data in (ingest, demo). */
int app_db_create(const struct app_config *cfg, struct db **out);
/* app_db_open's refusal alone, for serve (whose daemon connects by itself): EXIT_OK
 * when cfg's database is there (or its target does not resolve: the command says
 * why), else the exit status after the message. */
int app_db_existing(const struct app_config *cfg);

/* Holds the lock of one kind of run ("ingest", "analyze") while db is open: waits
 * for a run of that kind that holds it, or with no_wait returns EXIT_TEMPFAIL naming
 * the holder; EXIT_OK when held. */
int app_run_lock(struct db *db, const char *kind, bool no_wait);

/* The form of typed (a path as the user gave it) under which db stores it, escaped
 * (str_escape) and new (free): typed itself, else its absolute form (path_absolute),
 * its real path, or, for an absolute one below the working directory, its relative
 * form (what ingest stored for a relative path before it stored the absolute one),
 * the first that the quarantine list (quarantine) or the loaded files hold; typed
 * escaped when none. NULL (STATUS_NOMEM or STATUS_DB in err) on failure. */
char *app_path_stored(struct db *db, const char *typed, bool quarantine,
                      struct error *err);

/* Logs err ("what: file:line: message", "out of memory" first for STATUS_NOMEM) and
 * returns exit_code_of_error(rc, err). */
int app_fail(const char *what, enum status rc, const struct error *err);

/* The group a --group argument names (analysis_group_resolve) into *out: EXIT_OK;
 * else logged as "what: ..." and EXIT_NOINPUT for none, EXIT_USAGE for a name several
 * groups share (their ids and names listed on stderr), or the database's status. */
int app_group_arg(struct db *db, const char *what, const char *text,
                  struct db_group *out);

/* A --from or --to argument: epoch milliseconds (all digits, at most 15) or RFC 3339,
 * as the API takes them, into *out_s (epoch seconds); false when it is neither. */
bool app_time_arg(const char *s, double *out_s);

/* The terminal's progress bar on stderr: drawn only when stderr is a terminal and
 * the program is not quiet. */
struct app_progress {
    bool on;
    struct timespec started;
};
void app_progress_init(struct app_progress *p, const struct app_config *cfg);
/* A progress callback that draws p (NULL when p is off). */
const struct progress *app_progress_of(struct app_progress *p, struct progress *out);

/* Recomputes the dirty days of the stored series (rebuild: every day, with the
 * configuration's settings recorded), with progress; a refresh whose settings differ
 * from the series' warns and names `db rebuild-series`. An exit code. */
int app_series_refresh(const struct app_config *cfg, struct db *db, bool rebuild);

/* Commands: argc/argv start at the command's own words. Each returns an exit code. */
int cmd_db(struct app_config *cfg, int argc, char **argv);
int cmd_ingest(struct app_config *cfg, int argc, char **argv);
int cmd_analyze(struct app_config *cfg, int argc, char **argv);
int cmd_serve(struct app_config *cfg, int argc, char **argv);
int cmd_demo(struct app_config *cfg, int argc, char **argv);
int cmd_config(struct app_config *cfg, int argc, char **argv);
/* `version` (no configuration read: cfg may be NULL). */
int cmd_version(struct app_config *cfg, int argc, char **argv);
/* The version, the build and the schema version: `version` and --version. */
void app_version_print(FILE *fp);
int cmd_export(struct app_config *cfg, int argc, char **argv);
int cmd_assoc(struct app_config *cfg, int argc, char **argv);
int cmd_report(struct app_config *cfg, int argc, char **argv);
int cmd_quarantine(struct app_config *cfg, int argc, char **argv);
int cmd_unload(struct app_config *cfg, int argc, char **argv);
int cmd_darshan(struct app_config *cfg, int argc, char **argv);
int cmd_slowdowns(struct app_config *cfg, int argc, char **argv);

/* Each command's --help text, to fp. Never acts, never reads the configuration. */
void cmd_db_help(FILE *fp);
void cmd_ingest_help(FILE *fp);
void cmd_analyze_help(FILE *fp);
void cmd_serve_help(FILE *fp);
void cmd_demo_help(FILE *fp);
void cmd_config_help(FILE *fp);
void cmd_version_help(FILE *fp);
void cmd_export_help(FILE *fp);
void cmd_assoc_help(FILE *fp);
void cmd_report_help(FILE *fp);
void cmd_quarantine_help(FILE *fp);
void cmd_unload_help(FILE *fp);
void cmd_darshan_help(FILE *fp);
void cmd_slowdowns_help(FILE *fp);

/* ---- a command's options (options.c) ---- */

enum app_option_kind {
    OPT_FLAG,  /* no argument: *(bool *)field = true */
    OPT_TEXT,  /* *(const char **)field = the argument */
    OPT_WHOLE, /* *(long *)field = a whole number from min to max, else "iocontend CMD:
                  --NAME takes <what>MIN to MAX, got 'ARG'" and exit 64 */
    OPT_OWN    /* an argument, the command's own parse: app_options_next returns id */
};

/* One option of a command: a row of the command's table, which ends with a row of
 * name NULL. --help is every command's, added by the parser. */
struct app_option {
    const char *name; /* the long name, without "--" */
    enum app_option_kind kind;
    void *field;      /* where OPT_FLAG, OPT_TEXT and OPT_WHOLE put it */
    long min, max;    /* OPT_WHOLE */
    const char *what; /* OPT_WHOLE: what the message says it takes before MIN */
    int id;           /* returned by app_options_next: always for OPT_OWN; for the
                         others when not 0, after the field is set */
};

#define APP_OPTIONS_MAX 32

/* getopt_long over argv as the rows say (options anywhere, the rest permuted to the
 * end, as getopt_long does). */
struct app_options {
    const char *cmd; /* "ingest": its messages' prefix, "iocontend CMD: " */
    const struct app_option *opts;
    void (*help)(FILE *fp);
    int argc;
    char **argv;
    struct option longopts[APP_OPTIONS_MAX + 2]; /* the rows', then --help's */
    bool quiet_usage; /* a bad option: exit 64 without the help on stderr */
    const char *arg;  /* the argument of the option app_options_next returned */
    int status;       /* when app_options_next returns 0: -1 at the end of the options,
                         else the exit status (EXIT_OK after --help, EXIT_USAGE) */
};

void app_options_init(struct app_options *p, const char *cmd,
                      const struct app_option *opts, void (*help)(FILE *fp), int argc,
                      char **argv);
/* The id of the next option the command parses itself (OPT_OWN or a row with an
 * id), 0 at the end or on a failure (p->status says which). */
int app_options_next(struct app_options *p);
/* Every option, for a table whose rows the parser alone handles (no id): p->status,
 * the exit status to return when >= 0. */
int app_options_all(struct app_options *p);
/* The index in argv of the first word that is not an option. */
int app_options_rest(const struct app_options *p);

/* ---- the reports (report.c; report_night.c) ---- */

enum report_format { REPORT_HTML, REPORT_CSV, REPORT_JSON };

#define REPORT_ASSETS_MAX 64 /* Vega's modules a report may inline */
#define REPORT_SPECS_MAX  4  /* chart specifications a report may inline */

/* What an HTML report inlines so that it opens with no network: Debian's require.js,
 * Vega's packages by their AMD names (web/vega-modules.json), the page's glue and
 * chart modules and the specifications (web/NAME.vg.json) of its charts. */
struct report_assets {
    char *require_js;
    char *names[REPORT_ASSETS_MAX];   /* the AMD names */
    char *modules[REPORT_ASSETS_MAX]; /* their files' text */
    size_t n;
    char *glue, *charts;
    const char *spec_names[REPORT_SPECS_MAX]; /* borrowed from the caller */
    char *specs[REPORT_SPECS_MAX];
    size_t n_specs;
};
/* Reads them, with the n_specs specifications named (borrowed for a's life).
 * STATUS_NOT_FOUND naming what is missing; STATUS_INVALID, STATUS_NOMEM. */
enum status report_assets_load(struct report_assets *a, const char *const *specs,
                               size_t n_specs, struct error *err) MUST_CHECK;
void report_assets_clear(struct report_assets *a);
/* Writes the library and the specifications as <script> elements, leaving the last
 * one open after "window.iocontendSpecs = {...};\n" for the report's own script. */
void report_html_library(FILE *fp, const struct report_assets *a);
/* s as HTML text (&, <, >, " as entities); as script text; as JSON inside <script>. */
void report_html_text(FILE *fp, const char *s);
void report_script_text(FILE *fp, const char *s);
void report_script_json(FILE *fp, const char *s);
/* Writes path whole or not at all: write(fp, ctx, err) into a temporary file beside
 * it, renamed into place. EXIT_OK, or EXIT_CANTCREAT having logged why. */
int report_write_file(const char *path,
                      enum status (*write)(FILE *fp, const void *ctx, struct error *err),
                      const void *ctx);
/* `report night`: argv starts at "night". */
int cmd_report_night(struct app_config *cfg, int argc, char **argv);
/* Its --help text. */
void cmd_report_night_help(FILE *fp);

/* The command table (main.c): the one place that knows every command. */
struct command {
    const char *name;
    int (*run)(struct app_config *cfg, int argc, char **argv);
    void (*help)(FILE *fp);
    struct {
        const char *synopsis; /* in the program's --help */
        const char *summary;  /* one line: what it does */
    } lines[2];               /* the second is for a command with two forms */
};

#endif
