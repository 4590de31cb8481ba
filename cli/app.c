/* app.c: what every command shares: exit statuses, opening the database, the
 * progress bar, the settings handed to analysis/ and daemon/. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int exit_code_of(enum status s)
{
    switch (s) {
    case STATUS_OK: return EXIT_OK;
    case STATUS_INVALID:
    case STATUS_PARSE: return EXIT_USAGE;
    case STATUS_NOT_FOUND: return EXIT_NOINPUT;
    case STATUS_DB: return EXIT_UNAVAILABLE;
    case STATUS_NOMEM: return EXIT_OSERR;
    case STATUS_INTERNAL: return EXIT_SOFTWARE;
    case STATUS_BUSY:
    case STATUS_CANCELLED: return EXIT_TEMPFAIL;
    }
    return EXIT_SOFTWARE;
}

int exit_code_of_error(enum status rc, const struct error *err)
{
    if (rc == STATUS_OK || err == NULL)
        return exit_code_of(rc);
    switch (err->os_errno) {
    case ENOMEM: return EXIT_OSERR;
    case ENOSPC:
    case EDQUOT:
    case EIO: return EXIT_IOERR;
    case EROFS:
    case EPERM:
    case EACCES: return EXIT_CANTCREAT;
    default: break;
    }
    if (rc == STATUS_DB &&
        (strncmp(err->sqlstate, "53", 2) == 0 || strncmp(err->sqlstate, "58", 2) == 0))
        return EXIT_IOERR;
    return exit_code_of(rc);
}

int app_fail(const char *what, enum status rc, const struct error *err)
{
    char msg[400];

    error_format(err, msg, sizeof msg);
    bool nomem = rc == STATUS_NOMEM || (err != NULL && err->os_errno == ENOMEM);
    if (what != NULL) {
        log_error("%s: %s%s", what, nomem ? "out of memory: " : "", msg);
    } else {
        log_error("%s%s", nomem ? "out of memory: " : "", msg);
    }
    return exit_code_of_error(rc, err);
}

/* db_target_existing's STATUS_NOT_FOUND: the state directory, and the two ways to
 * give it a database. */
static int no_database(const struct error *err)
{
    log_error("%s: %s: create one with 'iocontend --state-dir %s db init', or load "
              "logs into it with 'iocontend --state-dir %s ingest ...'; nothing was "
              "created",
              err->file, err->msg, err->file, err->file);
    return EXIT_UNAVAILABLE;
}

static int db_open_with(const struct app_config *cfg, unsigned flags, struct db **out)
{
    struct error err = {0};
    const struct db_state_opts state = app_state_opts(cfg);
    enum status rc = db_connect(cfg->db_arg, &state,
                                DB_START_EMBEDDED | DB_MIGRATE | flags, out, &err);

    if (rc == STATUS_OK)
        return EXIT_OK;
    if (rc == STATUS_NOT_FOUND)
        return no_database(&err);
    /* A target or embedded server that cannot be set up is a usage error only when the
     * arguments are wrong; everything else is the database being unavailable. */
    return app_fail(NULL, rc == STATUS_INVALID ? STATUS_INVALID : STATUS_DB, &err);
}

int app_db_open(const struct app_config *cfg, struct db **out)
{
    return db_open_with(cfg, DB_EXISTING, out);
}

int app_db_create(const struct app_config *cfg, struct db **out)
{
    return db_open_with(cfg, 0, out);
}

int app_db_existing(const struct app_config *cfg)
{
    struct error err = {0};
    struct db_target t;
    const struct db_state_opts state = app_state_opts(cfg);

    /* A target that does not resolve is left to the command, which says why. */
    if (db_target_resolve(cfg->db_arg, &state, &t, &err) != STATUS_OK)
        return EXIT_OK;
    enum status rc = db_target_existing(&t, &err);
    if (rc == STATUS_NOT_FOUND)
        return no_database(&err);
    return rc == STATUS_OK ? EXIT_OK : app_fail(NULL, rc, &err);
}

int app_run_lock(struct db *db, const char *kind, bool no_wait)
{
    struct error err = {0};
    enum status rc = db_run_lock(db, kind, !no_wait, &err);

    return rc == STATUS_OK ? EXIT_OK : app_fail(kind, rc, &err);
}

struct db_state_opts app_state_opts(const struct app_config *cfg)
{
    return (struct db_state_opts){.arg = cfg->state_dir_arg,
                                  .config = cfg->state_dir_conf,
                                  .config_path = cfg->config_path,
                                  .conninfo = cfg->db_conf};
}

struct analysis_settings app_analysis_settings(const struct app_config *cfg)
{
    bool paper = strcmp(cfg->profile, "paper") == 0;
    struct analysis_settings s = {.d_min = cfg->d_min,
                                  .seed = cfg->seed,
                                  .theta_s = cfg->sample_offset_s,
                                  .base_granularity_s = cfg->granularity_s,
                                  /* the paper's profile is its strict rule for gaps */
                                  .fill_max = paper ? 0 : cfg->fill_max,
                                  .xff = paper ? 0 : cfg->xff,
                                  .permutations = cfg->permutations,
                                  .k_max = cfg->sweep_k_max,
                                  .all_phases = cfg->sweep_all_phases,
                                  .groups = cfg->groups,
                                  .n_groups = cfg->n_groups,
                                  .config_path = cfg->config_path};
    size_t len = 0;

    /* The configured file systems, named in analyze's warnings; cut at the size. */
    for (size_t i = 0; i < cfg->fs_map.n && len < sizeof s.filesystems; i++) {
        int k = snprintf(s.filesystems + len, sizeof s.filesystems - len, "%s%s (%s)",
                         i > 0 ? ", " : "", cfg->fs_map.entries[i].fs_name,
                         cfg->fs_map.entries[i].prefix);
        len += k > 0 ? (size_t)k : 0;
    }
    return s;
}

int app_series_refresh(const struct app_config *cfg, struct db *db, bool rebuild)
{
    struct analysis_settings s = app_analysis_settings(cfg);
    struct app_progress bar;
    struct progress progress;
    struct series_refresh done;
    struct error err = {0};
    enum status rc;

    app_progress_init(&bar, cfg);
    const struct progress *p = app_progress_of(&bar, &progress);
    rc = rebuild ? analysis_series_rebuild(db, &s, p, &done, &err)
                 : analysis_series_refresh(db, &s, p, &done, &err);
    if (rc == STATUS_INVALID && !rebuild) {
        /* other settings than the series': the samples are in, the series waits */
        char msg[400];
        error_format(&err, msg, sizeof msg);
        log_warn("%s", msg);
        return EXIT_OK;
    }
    if (rc != STATUS_OK)
        return app_fail("series", rc, &err);
    if (done.days > 0 || rebuild) {
        log_info("series: %zu days recomputed from their samples%s", done.days,
                 done.stale > 0 ? " (some changed meanwhile: the next run redoes them)"
                                : "");
    }
    return EXIT_OK;
}

struct serve_settings app_serve_settings(const struct app_config *cfg, const char *listen)
{
    return (struct serve_settings){.listen = listen != NULL ? listen : cfg->listen,
                                   .token = cfg->token,
                                   .cors_origin = cfg->cors_origin,
                                   .admin_token = cfg->admin_token,
                                   .db_user = cfg->db_user,
                                   .limits = cfg->serve_limits,
                                   .db_arg = cfg->db_arg,
                                   .state = app_state_opts(cfg),
                                   .analysis = app_analysis_settings(cfg)};
}

void app_progress_init(struct app_progress *p, const struct app_config *cfg)
{
    p->on = !cfg->quiet && isatty(STDERR_FILENO);
    clock_gettime(CLOCK_MONOTONIC, &p->started);
}

/* A bar on stderr, redrawn in place and ended with a newline; total 0 blanks it so
 * that a log line can take the line (the next step redraws it). */
static void progress_draw(void *arg, size_t done, size_t total, const char *label)
{
    enum { WIDTH = 30 };
    const struct app_progress *p = arg;
    struct timespec now;

    if (total == 0) {
        fprintf(stderr, "\r%80s\r", "");
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    double secs = (double)(now.tv_sec - p->started.tv_sec) +
                  (double)(now.tv_nsec - p->started.tv_nsec) * 1e-9;
    double frac = (double)done / (double)total;
    int filled = (int)((double)WIDTH * frac);
    fprintf(stderr, "\r[%.*s%*s] %3.0f %%, %.0f s  %-24.24s", filled,
            "##############################", WIDTH - filled, "", 100 * frac, secs,
            label != NULL ? label : "");
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

const struct progress *app_progress_of(struct app_progress *p, struct progress *out)
{
    if (!p->on)
        return NULL;
    *out = (struct progress){.fn = progress_draw, .arg = p};
    return out;
}

bool app_time_arg(const char *s, double *out_s)
{
    size_t len = strlen(s);

    if (len > 0 && len <= 15 && strspn(s, "0123456789") == len) {
        *out_s = (double)strtoll(s, NULL, 10) / 1000.0;
        return true;
    }
    return time_parse_rfc3339(s, out_s);
}
