/* internal.h: what the parts of the iocontend program share (config, commands,
 * the analysis driver); included from daemon/ only. */
#ifndef IOCONTEND_DAEMON_INTERNAL_H
#define IOCONTEND_DAEMON_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/common.h"
#include "../ingest/ingest.h"
#include "../sql/db.h"

/* The most permutations analyze and the API take (a request is served in line). */
#define ANALYZE_PERMUTATIONS_MAX 99999

/* Exit statuses of INTERFACES.md. */
enum exit_code {
    EXIT_OK = 0,
    EXIT_PARTIAL = 1, /* finished, some inputs quarantined or excluded */
    EXIT_USAGE = 64,
    EXIT_NOINPUT = 66,
    EXIT_UNAVAILABLE = 69,
    EXIT_SOFTWARE = 70,
    EXIT_CANTCREAT = 73
};

/* The program's configuration after command line > environment > file > defaults. */
struct app_config {
    char config_path[512]; /* "" when no file was read */
    char db_arg[1024];     /* --db, "" when not given */
    char listen[128];      /* [serve] listen, default 127.0.0.1:8080 */
    char token[128]; /* [serve] token: when set, /api needs "Authorization: Bearer" */
    char cors_origin[256]; /* [serve] cors_origin */
    char device_include[256];
    double sample_offset_s; /* θ of every source (METHOD.md §1) */
    double granularity_s;   /* base Δ when the samples do not say; 0 = from samples */
    size_t d_min;           /* METHOD.md §5, default 10 */
    unsigned long seed;     /* default 20240601 */
    unsigned sweep_k_max;   /* [analysis] sweep_k_max: the sweep's largest k (20) */
    bool sweep_all_phases;  /* [analysis] sweep_phases = all: every phase φ at each k */
    size_t permutations;    /* [analysis] permutations: B of analyze's significance (999);
                               0: analyze stores none */
    struct ingest_fs_map fs_map; /* [filesystems] */
    bool quiet;
};

/* Defaults, then the file (path NULL: /etc/iocontend/iocontend.conf when it
 * exists), then the environment. STATUS_INVALID / STATUS_PARSE naming file and
 * line for a bad file. */
enum status app_config_load(struct app_config *cfg, const char *path, struct error *err);
void app_config_clear(struct app_config *cfg);
/* Reads one more INI file over cfg (the demo's own configuration). */
enum status app_config_read(struct app_config *cfg, const char *path, struct error *err);
/* Prints the effective configuration as INI. */
void app_config_print(const struct app_config *cfg, FILE *fp);

/* exit code of a status that stopped a command. */
int exit_code_of(enum status s);

/* Resolves and opens the database; for the embedded cluster starts it first and
 * applies migrations. */
enum status app_db_open(const struct app_config *cfg, struct db **out, struct error *err);

/* Commands: argc/argv start at the command's own words. Each returns an exit code. */
int cmd_db(struct app_config *cfg, int argc, char **argv);
int cmd_ingest(struct app_config *cfg, int argc, char **argv);
int cmd_analyze(struct app_config *cfg, int argc, char **argv);
int cmd_serve(struct app_config *cfg, int argc, char **argv);
int cmd_demo(struct app_config *cfg, int argc, char **argv);
int cmd_config(struct app_config *cfg, int argc, char **argv);
int cmd_export(struct app_config *cfg, int argc, char **argv);
int cmd_assoc(struct app_config *cfg, int argc, char **argv);
int cmd_report(struct app_config *cfg, int argc, char **argv);

/* The (y, x) pairs `analyze --sweep` stores (METHOD.md §6), i < sweep_pair_count(). */
size_t sweep_pair_count(void);
void sweep_pair(size_t i, const char **y, const char **x);

/* Starts the HTTP API on listen ("ADDR:PORT"; port 0 picks a free one) and
 * prints "listening on ADDR:PORT" on stdout. Serves until SIGINT/SIGTERM, or, with
 * check_only, returns as soon as a request to /api/v1/health answered 200. */
int serve_run(struct app_config *cfg, const char *listen, bool check_only);

/* ---- the analysis driver ------------------------------------------------------- */

/* What an association object holds beyond the core coefficients (METHOD.md §5) and
 * how it is computed. Each further method (the KDE, later the forest) is a flag here
 * and a part of the object. */
struct assoc_opts {
    unsigned methods;   /* core METHOD_* bits of stats.h: pearson, spearman, dcor, mi */
    size_t d_min;       /* below it every coefficient is null, d_below_min */
    unsigned long seed; /* KSG jitter, permutations and resamples (stored with them) */
    bool mi_jitter;     /* KSG's tie-breaking jitter */
    const char *space;  /* "auto", "log" or "linear": the KDE's fitting space */
    bool kde;           /* the KDE credible bands, "kde" */
    bool kernel_full;   /* kernel=full (scipy's full covariance), else product */
    bool bw_plugin;     /* bandwidth=plugin (Sheather-Jones per axis), else normal */
    bool density;       /* with the 128 x 128 density grid (large) */
    bool significance;  /* "significance": p-values, noise floors, BCa CIs */
    size_t n_perm;      /* permutations of y (999) */
    size_t n_boot;      /* pair resamples of the BCa CIs (2000) */
    bool rf;            /* the random forest, "rf" (METHOD.md §5) */
    size_t rf_trees;    /* its trees (100) */
    /* analysis_association only: */
    bool significance_base_only; /* significance and forest only at the base
                                    granularity (METHOD.md §5) */
    bool stored_significance;    /* without significance (forest), a stored result's,
                                    when it was computed on the same jobs and values */
};

/* Every method of this build, the KDE with the product kernel and no density, space
 * auto, no significance (B = 999 and 2000 resamples when it is turned on), no forest
 * (100 trees when it is turned on), d_min and seed from cfg. */
struct assoc_opts assoc_opts_default(const struct app_config *cfg);

/* Fills the association object o (INTERFACES.md) over the d pairs (x, y) as opts
 * asks: "space" (the KDE's fitting space: opts->space, or for auto log when every
 * value is > 0), "d", the coefficients (null with "reasons" when undefined), "kde",
 * "significance" and "rf" (its fit also at the KDE's 16 x points when both are made).
 * Values <= 0 with space log are the caller's to drop (they are an exclusion,
 * nonpositive_in_log_space); left in, they give STATUS_INVALID. x, y are borrowed.
 * STATUS_INVALID for a space or option stats/ refuses (err->file names the parameter when
 * it is one); STATUS_NOMEM; STATUS_INTERNAL. */
enum status assoc_object_fill(json_t *o, const double *x, const double *y, size_t d,
                              const struct assoc_opts *opts, struct error *err);

/* The association object of INTERFACES.md for (group, y, x) at granularity_s
 * (0: the base Δ) and scope (METHOD.md §1: "all", "touched" — per job, the monitored
 * file systems it read or wrote — or "fs:NAME"), as opts asks (assoc_object_fill):
 * loads jobs and samples, computes the volume metrics and the association. With
 * space=log, jobs with a value <= 0 are excluded as nonpositive_in_log_space
 * (METHOD.md §3). For a metric that may be negative (ν, ν^D, B^D) the object has
 * "negative": {metric: jobs whose value is below zero}. *out is a new JSON object
 * (caller json_decref's). STATUS_INVALID for an unknown metric name, scope or space
 * or a granularity that is not k·Δ (err->msg says which; the offending parameter
 * name is in err->file). */
enum status analysis_association(struct db *db, const struct app_config *cfg,
                                 const char *group_id, const char *y, const char *x,
                                 double granularity_s, const char *scope,
                                 const struct assoc_opts *opts, json_t **out,
                                 struct error *err);

/* The default pairs analyze computes and stores (METHOD.md §8). */
#define ANALYZE_DEFAULT_PAIRS 4

/* The settings beside jobs and samples that analyze's stored association results
 * at granularity_s (0: base) depend on; part of their provenance and fingerprint. */
void analysis_settings_text(const struct app_config *cfg, double granularity_s, char *out,
                            size_t size);

/* The association object analyze stored for (group, y, x) at the base granularity,
 * space auto, scope all, when the group's jobs and samples are still those it was
 * computed from (whatever settings analyze ran with); "stored" says when and from
 * what. STATUS_NOT_FOUND otherwise (compute it). */
enum status analysis_association_stored(struct db *db, const char *group_id,
                                        const char *y, const char *x, json_t **out,
                                        struct error *err);

/* Computes and stores the default pairs for every group (group_id NULL) or one,
 * at granularity_s (0: base), with their provenance; a group whose inputs (jobs,
 * samples near them, settings) are those of its stored results is kept as it is
 * unless opts->force. Prints a summary; returns an exit code (1 when groups or jobs
 * of the groups computed were excluded). */
struct analyze_opts {
    bool force;     /* recompute groups whose inputs are unchanged too */
    bool since_set; /* only groups with inputs loaded at or after since_s */
    double since_s; /* epoch seconds */
};
int analyze_run(const struct app_config *cfg, struct db *db, const char *group_id,
                double granularity_s, const struct analyze_opts *opts, bool progress);

/* Writes every job metric of METHOD.md §2–3 (one row per job; CSV with canonical
 * column names, or JSON) for a group (NULL: all) at granularity_s (0: base) and scope
 * (as analysis_association). Beside the metrics: excluded_psi, _d, _i, _b_d, _tau
 * (the reason a family is missing, "" when present), negative (the metrics kept
 * although below zero, ';'-separated; a JSON array) and scope_fs (the file systems
 * the job's series summed; empty when none). */
enum status analysis_export_jobs(struct db *db, const struct app_config *cfg,
                                 const char *group_id, double granularity_s,
                                 const char *scope, bool json, FILE *fp,
                                 struct error *err);

/* true when name is a job metric that y or x may take. */
bool analysis_metric_known(const char *name);

/* ---- what the granularity sweep (sweep.c) takes from the analysis driver --------- */

struct stats_series;
struct stats_window;

/* The base Δ (seconds) and the system-wide series at Δ over every file system loaded
 * (scope "all"), as analysis_association builds them. *series is new
 * (stats_series_free). STATUS_NOT_FOUND when no samples are loaded; STATUS_DB. */
enum status analysis_base_series(struct db *db, const struct app_config *cfg,
                                 struct stats_series **series, double *delta_s,
                                 struct error *err);

/* A (y, x) pair of job metrics, resolved once (indexes into analysis.c's table). */
struct analysis_pair {
    size_t y, x;
};

/* STATUS_INVALID for an unknown metric (err->file says "y" or "x"). */
enum status analysis_pair_resolve(const char *y, const char *x, struct analysis_pair *out,
                                  struct error *err);

/* Window scratch for evaluating the jobs of a list, sized for the job with the most
 * windows. */
struct analysis_scratch {
    struct stats_window *win; /* one per window */
    size_t *idx;              /* stats_job_volume's scratch: two per window */
};

/* STATUS_NOMEM; analysis_scratch_clear releases s either way. */
enum status analysis_scratch_init(struct analysis_scratch *s, const struct db_jobs *jobs,
                                  struct error *err);
void analysis_scratch_clear(struct analysis_scratch *s);

/* One job of the list s was made for, over series (scope "all", any granularity),
 * for each of n_pairs pairs as analysis_association collects them: y[p] and x[p],
 * and excl[p] the enum stats_exclusion for which the job does not count for pair p
 * (EXCL_NONE when it does). *m is |A| at the series' granularity (METHOD.md §3), NAN
 * when A is unknown (its family excluded for other than a hole). No allocation;
 * STATUS_OK unless an internal call fails. */
enum status analysis_job_pairs(const struct stats_series *series, const struct db_job *j,
                               const struct analysis_pair *pairs, size_t n_pairs,
                               struct analysis_scratch *s, double *y, double *x,
                               unsigned char *excl, double *m, struct error *err);

/* ---- the granularity sweep (METHOD.md §6; sweep.c) ------------------------------- */

/* The largest k a sweep may reach: with every phase it takes k(k + 1)/2 series. */
#define SWEEP_K_LIMIT 1000

/* What `analyze --sweep` was asked for. */
struct sweep_opts {
    unsigned k_max;  /* k = 1 … k_max */
    bool all_phases; /* φ = 0 … k − 1 at every k (mean and range), else φ = 0 */
    struct analyze_opts select; /* which groups: as analyze_run's (force, since) */
};

/* The sweep for every group (group_id NULL) or one, over the default pairs of
 * METHOD.md §6, each stored as a sweep result (db_sweep_store). Prints a progress bar
 * on stderr when progress, per-group lines and a summary; returns an exit code (1
 * when groups or jobs were excluded or dropped). */
int analyze_sweep_run(const struct app_config *cfg, struct db *db, const char *group_id,
                      const struct sweep_opts *opts, bool progress);

/* ---- group tables and coverage (METHOD.md §4, §7; tables.c) ---------------------- */

/* As analysis_base_series for scope "all" or "fs:NAME" (that file system's streams
 * alone, at their own Δ). STATUS_INVALID for another scope. */
enum status analysis_scope_series(struct db *db, const struct app_config *cfg,
                                  const char *scope, struct stats_series **series,
                                  double *delta_s, struct error *err);

/* Computes and stores, at the base Δ, the table of every group (group_id NULL) or one
 * (METHOD.md §4: job count, features min / max, mean, sd and n of every time metric,
 * the T^D histogram; results of kind group_table) and the coverage of every file
 * system with samples and of all together (§7; the coverage tables), and logs
 * "analyze: N group tables; coverage: scratch1 0.87, scratch2 0.91, all 0.89".
 * Returns an exit code. */
int analyze_tables_run(const struct app_config *cfg, struct db *db, const char *group_id);

#endif
