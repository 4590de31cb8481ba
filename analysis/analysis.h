/* analysis.h: what `analyze`, the sweep, the group tables, the coverage and the job
 * export mean over the database (docs/method.md §2–§7), for both front ends (cli/ and
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
 * in (a json_t * is a struct json_t *): only objects*.c build them. */
struct json_t;

/* The most permutations analyze and the API take (a request is served in line). */
#define ANALYZE_PERMUTATIONS_MAX 99999

/* The default pairs analyze computes and stores (docs/method.md §8, and §11's queue). */
#define ANALYZE_DEFAULT_PAIRS 6
/* The pairs analyze computes besides for a group with a DXT trace (docs/method.md §10).
 */
#define ANALYZE_TRACE_PAIRS 2

/* The largest k a sweep may reach: with every phase it takes k(k + 1)/2 series. */
#define SWEEP_K_LIMIT 1000

/* ---- hand-made groups (docs/method.md §4) ------------------------------------------ */

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

/* A group as a person names it (--group, group=), or the groups a name matches. */
struct group_match {
    struct db_group group;       /* the group, on STATUS_OK */
    struct db_group *candidates; /* STATUS_INVALID: the groups of that name; owned */
    size_t n_candidates;
};

/* The group whose id is text, else whose name (as db_groups_list shows it: a name
 * several groups share carries " #" and 8 hex digits of the id) is text, else the one
 * group whose name without that suffix is text. STATUS_NOT_FOUND: none;
 * STATUS_INVALID: several share that name, listed in out->candidates (most jobs
 * first); STATUS_DB; STATUS_NOMEM. Clear out with group_match_clear in every case. */
enum status analysis_group_resolve(struct db *db, const char *text,
                                   struct group_match *out, struct error *err) MUST_CHECK;
void group_match_clear(struct group_match *m);

/* What the analysis takes from the configuration. */
struct analysis_settings {
    size_t d_min;       /* docs/method.md §5: below it every coefficient is null */
    unsigned long seed; /* KSG jitter, permutations, resamples, forest */
    double theta_s;     /* θ, the samplers' clock offset (docs/method.md §1), s */
    double base_granularity_s; /* Δ when configured; 0: from the samples */
    unsigned fill_max; /* the gap rule (docs/method.md §3): runs filled at Δ, 0–10 */
    double xff;        /* a coarse interval's tolerated share of missing ones (§6) */
    size_t permutations;             /* B of analyze's stored significance; 0: none */
    unsigned k_max;                  /* the sweep's largest k */
    bool all_phases;                 /* the sweep: every phase φ at each k */
    const struct group_rule *groups; /* the hand-made groups (borrowed); NULL: none */
    size_t n_groups;
    const char *config_path; /* the configuration file these came from (borrowed;
                                NULL or "": none), recorded with them */
    bool prune; /* analyze --prune: a stored hand-made group the configuration lacks is
                   removed with its results (otherwise kept, and a warning says so) */
    bool force; /* analyze --force: also a run that read no configuration file where
                   the last one read one (otherwise refused) */
    /* [filesystems] as "NAME (PREFIX), ...", for analyze's warning of a group whose
     * jobs touched no monitored file system; "": none configured */
    char filesystems[256];
};

/* ---- the association object (docs/method.md §5)
 * ---------------------------------------- */

/* What an association object holds beyond the core coefficients (docs/method.md §5) and
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
    bool rf;            /* the random forest, "rf" (docs/method.md §5) */
    size_t rf_trees;    /* its trees (100) */
    /* analysis_association only: */
    bool significance_base_only; /* significance and forest only at the base
                                    granularity (docs/method.md §5) */
    bool stored_significance;    /* without significance (forest), a stored result's,
                                    when it was computed on the same jobs and values */
    const atomic_bool *cancel;   /* borrowed, NULL: never; stops the permutations,
                                    resamples and trees (STATUS_CANCELLED) */
};

/* Every method of this build, the KDE with the product kernel and no density, space
 * auto, no significance (B = 999 and 2000 resamples when it is turned on), no forest
 * (100 trees when it is turned on), d_min and seed from s. */
struct assoc_opts assoc_opts_default(const struct analysis_settings *s);

/* "auto", "log" or "linear" into *out; STATUS_INVALID naming the parameter "space"
 * for anything else. */
enum status analysis_space_parse(const char *name, enum stats_kde_space *out,
                                 struct error *err) MUST_CHECK;

/* "all", "touched" or "fs:NAME" (docs/method.md §1); STATUS_INVALID naming the parameter
 * "scope" for anything else. */
enum status analysis_scope_check(const char *scope, struct error *err) MUST_CHECK;

/* ---- the coefficients (docs/method.md §5) ------------------------------------------ */

/* The coefficients of a struct stats_assoc, in the association object's order. */
enum coef_id {
    COEF_PEARSON,
    COEF_SPEARMAN,
    COEF_DCOR_V,
    COEF_DCOR2_U,
    COEF_MI_KSG_NATS,
    COEF_MI_LINFOOT,
    COEF_COUNT
};

/* One coefficient: the one place its name is spelled (objects_assoc.c's table). */
struct coef_def {
    const char *name; /* in the association object, the sweep, the report, the page */
    size_t at;        /* offsetof its struct stats_coef in struct stats_assoc */
    long signif_at;   /* offsetof its entry in struct stats_signif; -1: none */
    unsigned method;  /* the METHOD_* bit that computes it */
    bool ci;          /* its significance entry has the BCa CI (ci_low, ci_high) */
    bool watched;     /* the sweep's recommendation watches it and the charts draw it
                         (docs/method.md §6) */
};

/* Every coefficient, indexed by enum coef_id. */
extern const struct coef_def analysis_coefs[COEF_COUNT];

/* Coefficient c of a. */
const struct stats_coef *analysis_coef_of(const struct stats_assoc *a, enum coef_id c);
/* Coefficient c's entry in s; NULL when it has none (see signif_at). */
const struct stats_signif_coef *analysis_coef_signif(const struct stats_signif *s,
                                                     enum coef_id c);
/* true when a's coefficient c is a number (defined and finite). */
bool analysis_coef_defined(const struct stats_assoc *a, enum coef_id c);

/* ---- the association result (docs/interfaces.md's association object) -------------- */

/* The credible bands of a KDE fit (docs/method.md §5 `kde`, (b)–(d)) as the association
 * object and the sweep's steps both render them. */
struct kde_bands {
    enum stats_kde_space space;            /* the fitting space */
    double h_x, h_y;                       /* bandwidths, fitting space */
    double x_grid[STATS_KDE_POINTS];       /* linear units */
    double q05[STATS_KDE_POINTS];          /* conditional quantiles of y at x_grid */
    double q50[STATS_KDE_POINTS];          /* … */
    double q95[STATS_KDE_POINTS];          /* … */
    double marg_q05, marg_q95;             /* the marginal's quantiles of y */
    double mean, sd;                       /* of the raw y */
    double width_ratio, paper_width_ratio; /* (d) */
};

/* The bands of fit k into *out. */
void kde_bands_of(const struct stats_kde *k, struct kde_bands *out);

/* Where the pairs of an association came from: a group in the database (analyze, the
 * API) or two CSV columns (`assoc --input`); the object's identity keys differ. */
enum assoc_source { ASSOC_GROUP, ASSOC_COLUMNS };

/* What a stored result was computed from (docs/api.md: "stored", "provenance"). */
struct assoc_provenance {
    long jobs;            /* the group's jobs */
    char jobs_md5[33];    /* md5 of their sorted keys */
    long long samples;    /* samples within a day of them */
    char samples_md5[33]; /* md5 of their sorted source files */
    unsigned long seed;   /* of every seeded method */
    char version[32];     /* IOCONTEND_VERSION that computed it */
    char settings[512];   /* analyze's settings text */
};

/* "stored": what analyze stored under the same key, beside an object (API only). */
struct assoc_stored {
    bool present;
    char computed_at[40]; /* RFC 3339 */
    bool current;         /* computed from the group's jobs and samples as now */
    bool has_provenance;  /* false for a result stored without one */
    struct assoc_provenance provenance;
};

/* The association of y with x (docs/interfaces.md's association object). Made by
 * analysis_association / analysis_assoc_compute or parsed from a stored text; its one
 * JSON rendering is analysis_assoc_json / analysis_assoc_text (objects_assoc.c). Free
 * with assoc_result_free. */
struct assoc_result {
    enum assoc_source source;
    char *group;                 /* ASSOC_GROUP: the group's id; owned */
    char *y, *x;                 /* metric or column names; owned */
    double granularity_s;        /* ASSOC_GROUP: k·Δ (columns: null) */
    double base_granularity_s;   /* ASSOC_GROUP: Δ */
    char *scope;                 /* ASSOC_GROUP: "all", "touched", "fs:NAME"; owned */
    size_t excluded[EXCL_COUNT]; /* jobs (rows) left out, by reason */
    bool negative_y, negative_x; /* y, x may be below zero: "negative" counts them */
    size_t n_negative_y, n_negative_x; /* of the d values, those below zero */
    enum stats_kde_space space;  /* the KDE's fitting space, resolved: log or linear */
    struct stats_assoc coefs;    /* d and the coefficients; REASON_NOT_COMPUTED: absent */
    struct stats_kde *kde;       /* owned; NULL when not asked */
    bool density;                /* render the KDE's density grid */
    struct stats_signif *signif; /* owned; NULL without significance; an entry with
                                    REASON_NOT_COMPUTED is absent (extra[0]: the
                                    width_ratio's) */
    size_t n_perm, n_boot;       /* the significance's permutations and resamples */
    struct stats_rf *rf;         /* owned; NULL without the forest */
    double rf_at_kde[STATS_KDE_POINTS]; /* the forest at the KDE's x points */
    size_t rf_n_kde;                    /* 16, or 0 without a fitted KDE */
    double sample_offset_s;             /* ASSOC_GROUP: θ */
    unsigned long seed;                 /* ASSOC_COLUMNS: "seed" */
    bool has_provenance;                /* as analyze stores it ("provenance") */
    struct assoc_provenance provenance;
    struct assoc_stored stored; /* the API's "stored" */
};

/* A result with every pointer NULL, or NULL without memory. */
struct assoc_result *assoc_result_new(enum assoc_source source);
void assoc_result_free(struct assoc_result *r);
/* Sets y, x (and for ASSOC_GROUP group and scope; NULL leaves one NULL) of r, copied.
 * STATUS_NOMEM. */
enum status assoc_result_name(struct assoc_result *r, const char *group, const char *y,
                              const char *x, const char *scope,
                              struct error *err) MUST_CHECK;

/* Computes into r, over the d pairs (x, y), what opts asks: the fitting space
 * (opts->space, or for auto log when every value is > 0), the coefficients (with
 * their reasons), the KDE, the significance and the forest (its fit also at the
 * KDE's 16 x points when both are made). Values <= 0 with space log are the caller's
 * to drop (they are an exclusion, nonpositive_in_log_space); left in, they give
 * STATUS_INVALID. x, y are borrowed. STATUS_INVALID for a space or option stats/
 * refuses (err->parameter names it when it is a parameter); STATUS_NOMEM;
 * STATUS_INTERNAL; STATUS_CANCELLED once *opts->cancel is set. */
enum status analysis_assoc_compute(const double *x, const double *y, size_t d,
                                   const struct assoc_opts *opts, struct assoc_result *r,
                                   struct error *err) MUST_CHECK;

/* The association of (group, y, x) at granularity_s (0: the base Δ) and scope
 * (docs/method.md §1: "all", "touched" — per job, the monitored file systems it read or
 * wrote — or "fs:NAME"), as opts asks (analysis_assoc_compute): loads jobs and
 * samples, computes the volume metrics and the association. With space=log, jobs
 * with a value <= 0 are excluded as nonpositive_in_log_space (docs/method.md §3). A
 * metric that may be negative (ν, ν^D, B^D) has its count of values below zero. *out is
 * new (assoc_result_free). STATUS_INVALID for an unknown metric name, scope or space or a
 * granularity that is not k·Δ (err->parameter names the parameter); STATUS_NOT_FOUND
 * for an unknown group or no samples; STATUS_DB; STATUS_CANCELLED once *opts->cancel
 * is set. */
enum status analysis_association(struct db *db, const struct analysis_settings *s,
                                 const char *group_id, const char *y, const char *x,
                                 double granularity_s, const char *scope,
                                 const struct assoc_opts *opts, struct assoc_result **out,
                                 struct error *err) MUST_CHECK;

/* What analysis_association_stored found. */
enum stored_state {
    STORED_NONE,   /* analyze stored no result under that key */
    STORED_STALE,  /* one, computed from other jobs or samples than the group's now */
    STORED_CURRENT /* one, computed from the group's jobs and samples as they are */
};

/* The association result analyze stored for (group, y, x) at the base granularity,
 * space auto, scope all; its "stored" says when and from what. *out is new
 * (assoc_result_free) when *state is STORED_CURRENT, NULL otherwise. A stored text
 * that cannot be read (damaged, or of a shape this version does not know) is
 * STORED_STALE, logged. STATUS_DB. */
enum status analysis_association_stored(struct db *db, const char *group_id,
                                        const char *y, const char *x,
                                        struct assoc_result **out,
                                        enum stored_state *state,
                                        struct error *err) MUST_CHECK;

/* ---- rendering and reading results (objects*.c, the one JSON of them) ------------ */

/* The association object of r (docs/interfaces.md) as a new JSON object (json_decref), or
 * as compact text (free; reals with 17 digits, as stored); NULL without memory. */
struct json_t *analysis_assoc_json(const struct assoc_result *r);
char *analysis_assoc_text(const struct assoc_result *r);
/* A stored association object back into *out (new; assoc_result_free), older shapes
 * included (a missing kde bandwidth is normal, a missing kernel product).
 * STATUS_PARSE when text is not an association object. */
enum status analysis_assoc_parse(const char *text, struct assoc_result **out,
                                 struct error *err) MUST_CHECK;

/* true when name is a job metric that y or x may take. */
bool analysis_metric_known(const char *name);

/* ---- the stored series (series.c; docs/method.md §1) --------------------------------
 */

/* What a refresh of the stored series did. */
struct series_refresh {
    size_t days;  /* days recomputed from their samples */
    size_t stale; /* of them, changed again meanwhile: still dirty */
};

/* Recomputes every dirty day of the stored series from its raw samples (the first
 * time, every day), a transaction per day; progress per day may be NULL.
 * STATUS_INVALID naming `iocontend db rebuild-series` when they were built with
 * another sample_offset_s or granularity_s than s has; STATUS_DB. */
enum status analysis_series_refresh(struct db *db, const struct analysis_settings *s,
                                    const struct progress *progress,
                                    struct series_refresh *out,
                                    struct error *err) MUST_CHECK;
/* Records s's sample_offset_s and granularity_s with the series and recomputes every
 * day. */
enum status analysis_series_rebuild(struct db *db, const struct analysis_settings *s,
                                    const struct progress *progress,
                                    struct series_refresh *out,
                                    struct error *err) MUST_CHECK;

/* ---- analyze over the groups ------------------------------------------------------- */

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

/* The granularity sweep (docs/method.md §6), k = 1 … s->k_max at phase 0 or every phase
 * (s->all_phases), of every group (group_id NULL) or one, over the pairs of
 * sweep_pair, each stored as a sweep result; groups selected as analyze_run's.
 * Statuses as analyze_run's. */
enum status analyze_sweep_run(struct db *db, const struct analysis_settings *s,
                              const char *group_id, const struct analyze_select *sel,
                              const struct progress *progress,
                              struct analyze_summary *sum, struct error *err) MUST_CHECK;

/* ---- the sweep result (docs/api.md: "The sweep object") ---------------------------- */

/* The KDE of one k of a sweep (docs/method.md §5 `kde`, (b)–(d)): the two ratios combined
 * over the phases as the coefficients are; the bands of the first phase fitted (their
 * x values move with φ, so a mean over φ is no band). */
struct sweep_kde {
    size_t defined;             /* phases where the KDE was fitted */
    enum stats_reason reason;   /* the first phase's reason when none was */
    double wr, wr_lo, wr_hi;    /* width_ratio: mean over the phases fitted, range */
    double pwr, pwr_lo, pwr_hi; /* paper_width_ratio, likewise */
    unsigned bands_phase;       /* the phase the bands below are of */
    struct kde_bands bands;     /* of that phase (its ratios: wr, pwr) */
};

/* One k of a sweep, its phases combined (φ = 0 alone unless all_phases). */
struct sweep_point {
    unsigned k;           /* 1 … k_max */
    double granularity_s; /* k·Δ */
    size_t d;             /* the jobs of the sweep (the same at every k) */
    size_t phases;        /* phases computed */
    double c[COEF_COUNT]; /* mean over the phases where defined; NAN: none */
    double lo[COEF_COUNT], hi[COEF_COUNT]; /* range over the phases */
    size_t defined[COEF_COUNT];            /* phases where the coefficient was defined */
    enum stats_reason reason[COEF_COUNT];  /* the first phase's reason when undefined */
    double m_mean;                         /* mean |A| (Fig. 9), mean over the phases */
    double m_sum, m_lo, m_hi;              /* per phase: sum, min, max of the mean |A| */
    size_t m_phases;                       /* phases with a mean |A| */
    struct sweep_kde kde;
};

/* docs/method.md §6's verdicts over the curves c(k). */
struct sweep_verdicts {
    double drop, rho_max, tolerance; /* the criteria's constants */
    int falling[COEF_COUNT];         /* 1 falling, 0 not, -1 undefined at k = 1 */
    unsigned recommended_k;          /* 0: none (a watched coefficient undefined) */
    double recommended_interval_s;   /* recommended_k·Δ; NAN with none */
};

/* The sweep of one group and pair, as analyze --sweep stores it. Render with
 * analysis_sweep_text; read back with analysis_sweep_parse; sweep_result_clear frees
 * points. */
struct sweep_result {
    char group[17];
    char y[40], x[40];         /* the pair's metrics */
    char scope[80];            /* "all" */
    double base_granularity_s; /* Δ */
    unsigned k_max;
    bool all_phases;
    unsigned methods; /* METHOD_* bits: the coefficients computed */
    size_t d;         /* jobs valid at every k */
    size_t in_group, valid_at_base, dropped; /* "jobs" */
    size_t excluded_at_base[EXCL_COUNT];     /* why jobs do not count at k = 1 */
    struct sweep_point *points;              /* k_max, k ascending; owned */
    size_t d_at_base;                        /* "at_base": every job valid at k = 1 */
    struct stats_assoc at_base;              /* … and its coefficients */
    struct sweep_verdicts verdicts;
    size_t d_min;
    unsigned long seed;
};

void sweep_result_clear(struct sweep_result *r);

/* The sweep object of r (docs/api.md) as compact text (free), NULL without memory. */
char *analysis_sweep_text(const struct sweep_result *r);
/* A stored sweep object back into *out (cleared first; sweep_result_clear): its
 * identity, every step's k, granularity, d, m_mean, coefficients and KDE ratios, and
 * the verdicts (the bands, ranges and at_base are not read back: nothing compares
 * them). STATUS_PARSE when text is not a sweep object; STATUS_NOMEM. */
enum status analysis_sweep_parse(const char *text, struct sweep_result *out,
                                 struct error *err) MUST_CHECK;
/* The report of the stored sweeps texts[0 … n) of group g as JSON
 * ({"kind":"sweep_report","group":{…},"sweeps":[…]}), indented, to fp.
 * STATUS_PARSE for a text that is not JSON; STATUS_NOMEM; STATUS_INTERNAL when fp
 * fails. */
enum status analysis_sweep_report_json(FILE *fp, const struct db_group *g,
                                       char *const *texts, size_t n,
                                       struct error *err) MUST_CHECK;

/* The most pairs a sweep stores per group (sweep_pair_count() is at most this). */
#define SWEEP_PAIRS_MAX 16

/* The (y, x) pairs the sweep stores (docs/method.md §6), i < sweep_pair_count(). */
size_t sweep_pair_count(void);
void sweep_pair(size_t i, const char **y, const char **x);

/* ---- the group table (docs/api.md: "The group table"; docs/method.md §4) ----------- */

/* The time metrics of a group's table (docs/method.md §2, §3), all in seconds. */
#define GROUP_TABLE_METRICS 11

/* One time metric of the table: its mean and sd over the jobs counted. */
struct group_table_metric {
    const char *name;         /* a literal of the metric catalogue */
    struct stats_summary sum; /* n, mean, sd of the jobs counted */
    size_t excluded;          /* the group's other jobs */
};

/* A group's table, as analyze stores it. */
struct group_table {
    const struct db_group *group;              /* borrowed */
    double granularity_s;                      /* Δ */
    long jobs;                                 /* the group's jobs */
    struct db_feature features[DB_N_FEATURES]; /* min and max of the key */
    struct group_table_metric metrics[GROUP_TABLE_METRICS];
    bool has_histogram;          /* "td_histogram" (Fig. 2) */
    struct stats_histogram hist; /* … its bins and lines */
    const size_t *counts;        /* hist.n_bins; borrowed */
};

/* The group table object of t as compact text (free), NULL without memory. */
char *analysis_group_table_text(const struct group_table *t);

/* Computes and stores, at the base Δ, the table of every group (group_id NULL) or one
 * (docs/method.md §4) and the coverage of every file system with samples and of all
 * together (§7), and logs "analyze: N group tables; coverage: scratch1 0.87, …".
 * STATUS_OK without storing anything when no samples are loaded. */
enum status analyze_tables_run(struct db *db, const struct analysis_settings *s,
                               const char *group_id, struct error *err) MUST_CHECK;

/* Evaluates every hand-made group of s against every job and stores the membership
 * (docs/method.md §4), each group under its id with its rule text. A group that matches
 * no job is kept with 0 jobs and a warning is logged. A stored hand-made group that
 * s lacks is kept as it is (members and results, not recomputed: the run's groups
 * leave it out) and marked missing, with a warning at every level (log_alert) naming
 * it and how to remove it; with s->prune it is removed with its results instead.
 * Then records s's settings as the configuration's (analysis_config) and, when they
 * differ from those of the last analyze, warns at every level naming each one: the
 * groups this run recomputes replace their results with these settings'
 * (docs/configuration.md: "Nothing is removed by omission"). Run at the start of
 * analyze_run and analyze_sweep_run. STATUS_INVALID for a regex that does not compile;
 * STATUS_DB; STATUS_NOMEM. */
enum status analysis_groups_refresh(struct db *db, const struct analysis_settings *s,
                                    struct error *err) MUST_CHECK;

/* ---- the job export ---------------------------------------------------------------- */

/* Writes every job metric of docs/method.md §2–3 (one row per job; CSV with canonical
 * column names, or JSON) of a group (NULL: all) at granularity_s (0: base) and scope
 * (as analysis_association) to fp. Beside the metrics: excluded_psi, _d, _i, _b_d,
 * _tau (the reason a family is missing, "" when present), negative (the metrics kept
 * although below zero, ';'-separated; a JSON array) and scope_fs (the file systems
 * the job's series summed; empty when none). */
enum status analysis_export_jobs(struct db *db, const struct analysis_settings *s,
                                 const char *group_id, double granularity_s,
                                 const char *scope, bool json, FILE *fp,
                                 struct error *err) MUST_CHECK;

/* The same rows for the jobs of job_keys (n, borrowed) that exist, in start order:
 * the CSV (header, then rows) to csv, or, when csv is NULL, into *json a new object
 * {"granularity_s", "scope", "jobs": [rows]} as `export jobs --format json` writes
 * it. Statuses as analysis_export_jobs: STATUS_INVALID naming granularity or scope,
 * STATUS_NOT_FOUND when no samples (of that scope) are loaded, STATUS_DB. */
enum status analysis_jobs_metrics(struct db *db, const struct analysis_settings *s,
                                  const char *const *job_keys, size_t n,
                                  double granularity_s, const char *scope, FILE *csv,
                                  struct json_t **json, struct error *err) MUST_CHECK;

/* Writes doc (taken; NULL: a document that could not be built, STATUS_NOMEM) compact
 * with a newline to fp. STATUS_INTERNAL when fp fails. */
enum status analysis_json_write(struct json_t *doc, FILE *fp,
                                struct error *err) MUST_CHECK;

/* ---- the coverage (docs/method.md §7) ---------------------------------------------- */

/* The sums of one stored scope over the intervals served. */
struct coverage_range {
    double sum_d_bytes, sum_s_bytes; /* over the intervals where both are present */
    size_t intervals;                /* those intervals */
    double max_d_bytes, max_s_bytes; /* the largest D_i and S_i served, 0 when none */
};

/* The sums and maxima of s (docs/method.md §7, Fig. 13). */
void analysis_coverage_range(const struct db_coverage_series *s,
                             struct coverage_range *out);

/* The coverage answer of the API (docs/api.md: "The coverage object"): every stored
 * scope's coverage, and the intervals of those served. */

/* The coverage of one scope downsampled for a chart of n points (docs/api.md: the
 * coverage object, points=): [start_s, start_s + n·width_s) cut into n equal buckets (at
 * most the range's whole intervals when it spans one: no bucket shorter than Δ), each
 * with the min and max of D_i / max D and S_i / max S (the raw answer's values) over the
 * intervals whose middle (T_i − Δ/2) falls in it; an interval beyond either end
 * counts in the bucket at that end. NAN where a bucket has no value. */
struct coverage_buckets {
    size_t n;
    double start_s, width_s;     /* epoch seconds; seconds */
    double pre_s;                /* the pre-buckets' width read (0: the intervals) */
    double *d_min, *d_max;       /* n each; owned */
    double *s_min, *s_max;       /* n each; owned */
    struct coverage_range range; /* over every interval of the range */
};

/* The buckets of stored scope c's intervals that overlap [from_s, to_s) (NAN: open;
 * an open side at the first interval's start or the last one's end, else the logged
 * span's) into out (coverage_buckets_clear), scaled by the range's maxima, with the
 * range's sums and maxima. STATUS_INVALID when n is 0; STATUS_DB; STATUS_NOMEM.
 * Cost: two passes over the intervals in the database; n rows back, 4·n doubles. */
enum status analysis_coverage_buckets(struct db *db, const struct db_coverage *c,
                                      double from_s, double to_s, size_t n,
                                      struct coverage_buckets *out,
                                      struct error *err) MUST_CHECK;
void coverage_buckets_clear(struct coverage_buckets *b);

/* The coverage answer of the API (docs/api.md: "The coverage object"): every stored
 * scope's coverage, and the intervals of those served, or their buckets. */
struct coverage_answer {
    double from_s, to_s;                     /* the range asked; NAN: open */
    const struct db_coverage *scopes;        /* every stored scope; borrowed */
    const struct db_coverage_series *series; /* per scope, its intervals in the range */
    const struct coverage_buckets *buckets;  /* NULL, or per scope its buckets (points=):
                                                served in place of series */
    const bool *served;                      /* per scope: listed in "filesystems" */
    size_t n;                                /* scopes */
};

/* The coverage object of a as a new JSON object (json_decref): each served scope's
 * whole-span sums, the range's, and D_i / max D, S_i / max S (Fig. 13), or with
 * buckets their min and max per bucket. NULL without memory. */
struct json_t *analysis_coverage_json(const struct coverage_answer *a);

/* ---- the band at an x and the slowdowns (slowdowns.c; docs/operations.md: "Who got
 * hurt") ---- */

/* The KDE analyze stored for (group, y, x) at one granularity, at x_value. */
struct band_result {
    char group[17];
    char y[40], x[40];
    double granularity_s;     /* k·Δ of the stored result */
    double x_value;           /* as asked, linear units */
    size_t d;                 /* jobs of the fit */
    enum stats_reason reason; /* REASON_NONE, or why the stored KDE has no fit */
    enum stats_kde_space space;
    double h_x, h_y;           /* fitting space */
    struct stats_kde_point at; /* q05, q50, q95 (linear units), the x span */
    bool has_rf;               /* the stored result has its forest */
    size_t rf_trees;
    double rf_oob_r2, rf_fit; /* the forest's fit at x_value */
    char computed_at[40];     /* when analyze stored it, RFC 3339 */
};

/* q05, q50, q95 of y at x = x_value from the KDE analyze stored for (group, y, x) at
 * granularity_s (0: the base Δ), space auto, scope all (docs/method.md §5 (b), through
 * stats_kde_at on the group's jobs as they are, refitted with the stored options),
 * and the stored forest's fit there (refitted with its seed and trees). A stored
 * KDE without a fit (below d_min, a constant series) is STATUS_OK with its reason.
 * STATUS_INVALID naming y, x, granularity or x_value (x_value not finite, or outside
 * the KDE's x span: the density grid's, [min − 3h_x, max + 3h_x] in fitting space);
 * STATUS_NOT_FOUND: no such group, nothing stored for that key, or what is stored is
 * not of the group's jobs and samples as they are now (analyze again); STATUS_DB;
 * STATUS_NOMEM. */
enum status analysis_band_at(struct db *db, const struct analysis_settings *s,
                             const char *group_id, const char *y, const char *x,
                             double granularity_s, double x_value,
                             struct band_result *out, struct error *err) MUST_CHECK;

/* One job of a period, ranked or set apart. */
struct slowdown_job {
    char job_key[33], jobid[32];
    char group[17];        /* the group it was ranked in (or set apart in) */
    double start_s, end_s; /* epoch seconds */
    double y, x;           /* its metrics, linear units (NAN when excluded) */
    double q05, q50, q95;  /* its group's KDE at its own x */
    double ratio;          /* y / q50 */
    double cdf;            /* F(y | x) of its group's KDE (docs/method.md §5 (b)) */
    double percentile;     /* F(y + σ·z | x): cdf with y drawn in its own kernel
                              (z a standard normal seeded by the job's key) */
    char reason[32];       /* "" when ranked, else why it is apart */
};

/* Who got hurt in [from_s, to_s) (docs/operations.md "Who got hurt"). */
struct slowdowns {
    double from_s, to_s; /* NAN: open */
    char group[17];      /* the one group asked for; "": every group */
    char y[40], x[40];
    double granularity_s; /* k·Δ */
    size_t limit;
    struct slowdown_job *ranked; /* by ratio, highest first, ties by start; owned */
    size_t n_ranked;             /* listed: at most limit */
    size_t ranked_total;         /* of the period */
    struct slowdown_job *apart;  /* by start; owned */
    size_t n_apart, apart_total;
    size_t jobs; /* every job of the period */
};

/* Every job whose [start, end] overlaps [from_s, to_s), ranked by ratio = y / q50(x)
 * with q50 of the KDE analyze stored (granularity_s: 0 the base Δ, space auto, scope
 * all) at the job's own x, and its percentile F(y | x) (docs/method.md §5 (b)); ties by
 * start time, then key. A job is ranked in the most specific of its groups with a
 * stored band (a fitted KDE of its jobs as they are): its hand-made groups first,
 * fewest jobs first (ties by id), then its default group; set apart in its default
 * group when none has one. group_id (not NULL) ranks only the jobs of that group, in
 * it. Set apart, with their reason: jobs whose metric is excluded (hole, no_io, …:
 * stats_exclusion_name), of a group with nothing stored ("not_analyzed"), stored
 * before its jobs or samples changed ("stale"), without a fitted KDE (d_below_min,
 * constant_x, constant_y), and with x outside the KDE's x span ("x_out_of_range").
 * The first limit of each list are kept; *out is filled (slowdowns_clear).
 * STATUS_INVALID naming y, x or granularity; STATUS_NOT_FOUND: no samples, or no
 * group group_id; STATUS_DB; STATUS_NOMEM. */
enum status analysis_slowdowns(struct db *db, const struct analysis_settings *s,
                               double from_s, double to_s, const char *group_id,
                               const char *y, const char *x, double granularity_s,
                               size_t limit, struct slowdowns *out,
                               struct error *err) MUST_CHECK;
void slowdowns_clear(struct slowdowns *sl);

/* The answers of /predict (the band at an x) and /slowdowns (docs/operations.md) as new
 * JSON objects (json_decref); NULL without memory. */
struct json_t *analysis_band_json(const struct band_result *p);
struct json_t *analysis_slowdowns_json(const struct slowdowns *sl);

/* ---- the jobs behind a scatter (scatter.c; docs/api.md: /groups/{id}/points)
 * ------------ */

/* One job of a group's scatter. */
struct job_point {
    char id[33];           /* the job key */
    char jobid[32];        /* the scheduler's id */
    double start_s, end_s; /* T_start, T_end = T_start + t_j, epoch seconds */
    double x, y;           /* its metrics at the granularity and scope, linear units */
};

/* The jobs of a group's (y, x) association, or a sample of them. */
struct points_result {
    char group[17], y[64], x[64], scope[128];
    double granularity_s;     /* k·Δ */
    size_t d;                 /* jobs with both y and x defined: the association's d */
    size_t shown;             /* points held: d, or limit when sampled */
    bool sampled;             /* d > limit: points are a sample */
    unsigned long seed;       /* the sample's */
    struct job_point *points; /* shown of them, by x then id; owned */
};

/* Every job of group_id whose y and x are both defined at granularity_s (0: Δ) over
 * scope ("all", "touched", "fs:NAME"): the job set of analysis_association with
 * space auto, so that d equals its d (docs/method.md §5). Above limit (>= 1) a uniform
 * sample of limit of them without replacement, drawn from seed (the same seed and
 * data give the same sample). *out is filled (points_clear). STATUS_INVALID naming
 * y, x, limit, scope or granularity; STATUS_NOT_FOUND: no such group, or no samples;
 * STATUS_DB; STATUS_NOMEM. Cost: the group's jobs' metrics, as the association's. */
enum status analysis_points(struct db *db, const struct analysis_settings *s,
                            const char *group_id, const char *y, const char *x,
                            double granularity_s, const char *scope, size_t limit,
                            unsigned long seed, struct points_result *out,
                            struct error *err) MUST_CHECK;
void points_clear(struct points_result *p);
/* The answer of /groups/{id}/points (docs/api.md) as a new JSON object (json_decref);
 * NULL without memory. */
struct json_t *analysis_points_json(const struct points_result *p);

/* ---- the night report (night.c; docs/operations.md "The night report")
 * -------------------------- */

/* A stored association of the night's pair, changed in the period. */
struct night_assoc {
    char group[17];
    double granularity_s;
    char space[16];              /* the stored key's space ("auto", "log", "linear") */
    char computed_at[40];        /* when its row last changed, RFC 3339 */
    struct assoc_result *result; /* the stored object read back; owned */
};

/* A group that changed in the period: jobs added, or its association recomputed. */
struct night_group {
    struct db_group group; /* id, name, key and its jobs now */
    long jobs_added;       /* jobs loaded in the period */
    size_t first_assoc;    /* its associations: night.assoc[first_assoc ..] */
    size_t n_assoc;
};

/* What an administrator reads in the morning of [from_s, to_s) (docs/operations.md "The
 * night night"). The period is read on two clocks: the database's for what iocontend did
 * (runs, quarantine, jobs loaded, associations stored) and the jobs' and samples'
 * for what the cluster did (the slowdowns and the coverage). */
struct night {
    double from_s, to_s;       /* epoch seconds */
    char y[40], x[40];         /* the pair: t_d ~ psi_d_read */
    struct db_night_run *runs; /* oldest first; owned */
    size_t n_runs;
    struct db_quarantine_entry *quarantined; /* last seen in the period; owned */
    size_t n_quarantined;
    struct night_group *groups; /* by id; owned */
    size_t n_groups;
    struct night_assoc *assoc; /* by group, granularity, space; owned */
    size_t n_assoc;
    bool has_slowdowns; /* false: slowdowns_note says why (no samples) */
    struct slowdowns slowdowns;
    char slowdowns_note[200];
    bool has_coverage;                   /* false: coverage_note says why (none stored) */
    struct coverage_answer coverage;     /* its arrays below; every scope served */
    struct db_coverage *coverage_scopes; /* owned */
    struct db_coverage_series *coverage_series; /* owned */
    bool *coverage_served;                      /* owned */
    char coverage_note[200];
    /* per scope, its intervals cut for a chart (analysis_night_buckets); NULL: the
     * report renders the raw intervals; owned */
    struct coverage_buckets *coverage_buckets;
    double generated_s; /* when it was gathered, epoch seconds */
};

/* Gathers the night report of [from_s, to_s) (both finite, from_s < to_s): the ingest
 * runs that overlap it and the files last seen quarantined in it; each group with
 * jobs loaded in it or whose stored t_d ~ psi_d_read association (scope all) changed
 * in it, with those associations; who got hurt, as analysis_slowdowns at the base
 * granularity with at most limit jobs of each list; and the coverage of every stored
 * scope over the intervals that overlap the period, as /api/v1/coverage serves it.
 * No samples loaded and no coverage stored are notes, not failures. *out is filled
 * (night_clear, also on failure). STATUS_INVALID for the period; STATUS_DB;
 * STATUS_NOMEM; STATUS_INTERNAL for a stored association that does not read. */
enum status analysis_night(struct db *db, const struct analysis_settings *s,
                           double from_s, double to_s, size_t limit, struct night *out,
                           struct error *err) MUST_CHECK;
void night_clear(struct night *n);

/* Cuts each scope's intervals of n's coverage into points buckets of the period (as
 * /api/v1/coverage?from=&to=&points= does) for a chart, into n->coverage_buckets; the
 * raw intervals stay. Nothing to do without coverage. STATUS_INVALID when points is
 * 0; STATUS_DB; STATUS_NOMEM. */
enum status analysis_night_buckets(struct db *db, struct night *n, size_t points,
                                   struct error *err) MUST_CHECK;

/* The night report as one new JSON object (json_decref; docs/operations.md "The night
 * report"): report, from, to, generated_at, the sections ingest, quarantined, groups,
 * slowdowns (as /api/v1/slowdowns), coverage (as /api/v1/coverage: the raw
 * intervals, or, once analysis_night_buckets cut them, the buckets as points= answers
 * them) and notes. NULL without memory. */
struct json_t *analysis_night_json(const struct night *n);

/* ---- JSON pieces the front ends share ---------------------------------------------- */

/* A JSON string of s; when s is not valid UTF-8 (a Darshan exe can hold anything),
 * of s with every byte above 0x7f as '?'. NULL without memory. */
struct json_t *analysis_json_text(const char *s);

#endif
