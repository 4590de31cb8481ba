/* analysis.h: what `analyze`, the sweep, the group tables, the coverage and the job
 * export mean over the database (METHOD.md §2–§7), for both front ends (cli/ and
 * daemon/). Returns enum status and C structs; never prints (only log_*), never
 * returns an exit code, never sees the command line or its configuration. */
#ifndef IOCONTEND_ANALYSIS_H
#define IOCONTEND_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/common.h"
#include "../sql/db.h"
#include "../stats/stats.h"

/* Jansson's object type, declared here so that this header does not pull jansson
 * in (a json_t * is a struct json_t *). */
struct json_t;

/* The most permutations analyze and the API take (a request is served in line). */
#define ANALYZE_PERMUTATIONS_MAX 99999

/* The default pairs analyze computes and stores (METHOD.md §8). */
#define ANALYZE_DEFAULT_PAIRS 4

/* The largest k a sweep may reach: with every phase it takes k(k + 1)/2 series. */
#define SWEEP_K_LIMIT 1000

/* ---- hand-made groups (METHOD.md §4) -------------------------------------------------
 */

/* The keys of a [group NAME] section, in the order of their rule text. */
enum group_key {
    GROUP_EXECUTABLE,
    GROUP_UID,
    GROUP_NPROCS,
    GROUP_BYTES,
    GROUP_JOBS,
    GROUP_KEYS
};

/* Bytes of a NAME (libinih keeps 49 bytes of a section's name); uids or jobs of one
 * key (more than a line of 199 bytes holds); a value as given, with its '\0'. */
#define GROUP_NAME_MAX  40
#define GROUP_LIST_MAX  100
#define GROUP_VALUE_MAX 200

/* One darshan job id of a jobs = list, optionally with its uid (uid:jobid). */
struct group_job_id {
    char jobid[32]; /* as the jobs table holds it */
    bool has_uid;
    uint64_t uid;
};

/* A hand-made group: a job belongs when every key given matches (the configuration
 * checked each value; given[k][0] == '\0' when key k is absent). */
struct group_rule {
    char name[GROUP_NAME_MAX + 1];           /* [group NAME]; its id hashes "hand:NAME" */
    char given[GROUP_KEYS][GROUP_VALUE_MAX]; /* each value as written: the rule's text */
    uint64_t uids[GROUP_LIST_MAX];           /* uid = N[,N…] */
    size_t n_uids;
    int64_t nprocs_min, nprocs_max; /* nprocs = A-B, inclusive */
    int64_t bytes_min, bytes_max;   /* bytes = A-B: read plus written, inclusive */
    struct group_job_id jobs[GROUP_LIST_MAX]; /* jobs = ID[,ID…] */
    size_t n_jobs;
};

/* The name of key k in a [group NAME] section ("executable", "uid", ...). */
const char *group_key_name(enum group_key k);

/* The rule's text, "executable=…;uid=…" over the keys given in enum order: part of
 * the group's inputs, so that an edited rule recomputes the group. */
void group_rule_text(const struct group_rule *r, char *out, size_t size);

/* The group id of a hand-made group: the first 16 hex digits of the hash of
 * "hand:NAME" (as a default group's id is of its key). */
void group_rule_id(const char *name, char out[17]);

/* What the analysis takes from the configuration. */
struct analysis_settings {
    size_t d_min;              /* METHOD.md §5: below it every coefficient is null */
    unsigned long seed;        /* KSG jitter, permutations, resamples, forest */
    double theta_s;            /* θ, the samplers' clock offset (METHOD.md §1), s */
    double base_granularity_s; /* Δ when configured; 0: from the samples */
    size_t permutations;       /* B of analyze's stored significance; 0: none */
    unsigned k_max;            /* the sweep's largest k */
    bool all_phases;           /* the sweep: every phase φ at each k */
    const struct group_rule *groups; /* the hand-made groups (borrowed); NULL: none */
    size_t n_groups;
};

/* ---- the association object (METHOD.md §5) ---------------------------------------- */

/* What an association object holds beyond the core coefficients (METHOD.md §5) and
 * how it is computed. Each further method (the KDE, the forest) is a flag here and
 * a part of the object. */
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
 * (100 trees when it is turned on), d_min and seed from s. */
struct assoc_opts assoc_opts_default(const struct analysis_settings *s);

/* "auto", "log" or "linear" into *out; STATUS_INVALID naming the parameter "space"
 * for anything else. */
enum status analysis_space_parse(const char *name, enum stats_kde_space *out,
                                 struct error *err) MUST_CHECK;

/* "all", "touched" or "fs:NAME" (METHOD.md §1); STATUS_INVALID naming the parameter
 * "scope" for anything else. */
enum status analysis_scope_check(const char *scope, struct error *err) MUST_CHECK;

/* Fills the association object o (INTERFACES.md) over the d pairs (x, y) as opts
 * asks: "space" (the KDE's fitting space: opts->space, or for auto log when every
 * value is > 0), "d", the coefficients (null with "reasons" when undefined), "kde",
 * "significance" and "rf" (its fit also at the KDE's 16 x points when both are made).
 * Values <= 0 with space log are the caller's to drop (they are an exclusion,
 * nonpositive_in_log_space); left in, they give STATUS_INVALID. x, y are borrowed.
 * STATUS_INVALID for a space or option stats/ refuses (err->parameter names it when
 * it is a parameter); STATUS_NOMEM; STATUS_INTERNAL. */
enum status assoc_object_fill(struct json_t *o, const double *x, const double *y,
                              size_t d, const struct assoc_opts *opts,
                              struct error *err) MUST_CHECK;

/* The association object of INTERFACES.md for (group, y, x) at granularity_s
 * (0: the base Δ) and scope (METHOD.md §1: "all", "touched" — per job, the monitored
 * file systems it read or wrote — or "fs:NAME"), as opts asks (assoc_object_fill):
 * loads jobs and samples, computes the volume metrics and the association. With
 * space=log, jobs with a value <= 0 are excluded as nonpositive_in_log_space
 * (METHOD.md §3). For a metric that may be negative (ν, ν^D, B^D) the object has
 * "negative": {metric: jobs whose value is below zero}. *out is a new JSON object
 * (caller json_decref's). STATUS_INVALID for an unknown metric name, scope or space
 * or a granularity that is not k·Δ (err->parameter names the parameter);
 * STATUS_NOT_FOUND for an unknown group or no samples; STATUS_DB. */
enum status analysis_association(struct db *db, const struct analysis_settings *s,
                                 const char *group_id, const char *y, const char *x,
                                 double granularity_s, const char *scope,
                                 const struct assoc_opts *opts, struct json_t **out,
                                 struct error *err) MUST_CHECK;

/* What analysis_association_stored found. */
enum stored_state {
    STORED_NONE,   /* analyze stored no result under that key */
    STORED_STALE,  /* one, computed from other jobs or samples than the group's now */
    STORED_CURRENT /* one, computed from the group's jobs and samples as they are */
};

/* The association object analyze stored for (group, y, x) at the base granularity,
 * space auto, scope all; "stored" says when and from what. *out is new (caller
 * json_decref's) when *state is STORED_CURRENT, NULL otherwise. STATUS_INTERNAL when
 * the stored text cannot be read (a damaged row: compute it instead); STATUS_DB. */
enum status analysis_association_stored(struct db *db, const char *group_id,
                                        const char *y, const char *x, struct json_t **out,
                                        enum stored_state *state,
                                        struct error *err) MUST_CHECK;

/* true when name is a job metric that y or x may take. */
bool analysis_metric_known(const char *name);

/* ---- analyze over the groups ---------------------------------------------------------
 */

/* Which groups a run looks at. */
struct analyze_select {
    bool force;     /* recompute groups whose inputs are unchanged too */
    bool since_set; /* only groups with inputs loaded at or after since_s */
    double since_s; /* epoch seconds */
};

/* What a run did, for the caller's summary and exit status. */
struct analyze_summary {
    long groups_done;      /* computed and stored */
    long groups_short;     /* of those, below d_min */
    long groups_unchanged; /* inputs as stored: kept */
    long groups_untouched; /* no input loaded since --since */
    long jobs_used;        /* in the first pair's results */
    long jobs_excluded;    /* of the groups computed, in the first pair */
    long jobs_dropped;     /* the sweep: valid at k = 1, not at every k */
    long excluded_by_reason[EXCL_COUNT];
    double seconds; /* wall time of the run */
};

/* true when the run finished but left groups or jobs out (exit status 1). */
bool analyze_summary_partial(const struct analyze_summary *sum);

/* Computes and stores the default pairs for every group (group_id NULL) or one, at
 * granularity_s (0: base), with their provenance; a group whose inputs (jobs, samples
 * near them, settings) are those of its stored results is kept as it is unless
 * sel->force. Then, when any group was computed, the group tables and the coverage
 * (analyze_tables_run). Logs a line per group and the run's totals. progress may be
 * NULL. STATUS_NOT_FOUND for an unknown group_id; STATUS_DB; STATUS_NOMEM. */
enum status analyze_run(struct db *db, const struct analysis_settings *s,
                        const char *group_id, double granularity_s,
                        const struct analyze_select *sel, const struct progress *progress,
                        struct analyze_summary *sum, struct error *err) MUST_CHECK;

/* The granularity sweep (METHOD.md §6), k = 1 … s->k_max at phase 0 or every phase
 * (s->all_phases), of every group (group_id NULL) or one, over the pairs of
 * sweep_pair, each stored as a sweep result; groups selected as analyze_run's.
 * Statuses as analyze_run's. */
enum status analyze_sweep_run(struct db *db, const struct analysis_settings *s,
                              const char *group_id, const struct analyze_select *sel,
                              const struct progress *progress,
                              struct analyze_summary *sum, struct error *err) MUST_CHECK;

/* The (y, x) pairs the sweep stores (METHOD.md §6), i < sweep_pair_count(). */
size_t sweep_pair_count(void);
void sweep_pair(size_t i, const char **y, const char **x);

/* Computes and stores, at the base Δ, the table of every group (group_id NULL) or one
 * (METHOD.md §4) and the coverage of every file system with samples and of all
 * together (§7), and logs "analyze: N group tables; coverage: scratch1 0.87, …".
 * STATUS_OK without storing anything when no samples are loaded. */
enum status analyze_tables_run(struct db *db, const struct analysis_settings *s,
                               const char *group_id, struct error *err) MUST_CHECK;

/* Evaluates every hand-made group of s against every job and stores the membership
 * (METHOD.md §4), each group under its id with its rule text; hand-made groups no
 * longer configured are removed with their results. A group that matches no job is
 * kept with 0 jobs and a warning is logged. Run at the start of analyze_run and
 * analyze_sweep_run. STATUS_INVALID for a regex that does not compile; STATUS_DB;
 * STATUS_NOMEM. */
enum status analysis_groups_refresh(struct db *db, const struct analysis_settings *s,
                                    struct error *err) MUST_CHECK;

/* ---- the job export ------------------------------------------------------------------
 */

/* Writes every job metric of METHOD.md §2–3 (one row per job; CSV with canonical
 * column names, or JSON) of a group (NULL: all) at granularity_s (0: base) and scope
 * (as analysis_association) to fp. Beside the metrics: excluded_psi, _d, _i, _b_d,
 * _tau (the reason a family is missing, "" when present), negative (the metrics kept
 * although below zero, ';'-separated; a JSON array) and scope_fs (the file systems
 * the job's series summed; empty when none). */
enum status analysis_export_jobs(struct db *db, const struct analysis_settings *s,
                                 const char *group_id, double granularity_s,
                                 const char *scope, bool json, FILE *fp,
                                 struct error *err) MUST_CHECK;

/* ---- the coverage (METHOD.md §7) -----------------------------------------------------
 */

/* The sums of one stored scope over the intervals served. */
struct coverage_range {
    double sum_d_bytes, sum_s_bytes; /* over the intervals where both are present */
    size_t intervals;                /* those intervals */
    double max_d_bytes, max_s_bytes; /* the largest D_i and S_i served, 0 when none */
};

/* The sums and maxima of s (METHOD.md §7, Fig. 13). */
void analysis_coverage_range(const struct db_coverage_series *s,
                             struct coverage_range *out);

/* One stored scope's coverage and its intervals as the API serves them: the whole
 * span's sums, the range's, and D_i / max D, S_i / max S. A new object (caller
 * json_decref's), NULL without memory. */
struct json_t *analysis_coverage_json(const struct db_coverage *c,
                                      const struct db_coverage_series *s);

/* ---- JSON pieces the front ends share -----------------------------------------------
 */

/* A JSON string of s; when s is not valid UTF-8 (a Darshan exe can hold anything),
 * of s with every byte above 0x7f as '?'. NULL without memory. */
struct json_t *analysis_json_text(const char *s);

/* Sets key (RFC 3339, whole seconds) and key_ms (epoch milliseconds) in o; both null
 * when epoch_s is not finite (an open end). */
void analysis_json_set_time(struct json_t *o, const char *key, double epoch_s);

#endif
