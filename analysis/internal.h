/* internal.h: what the files of analysis/ share: the metric catalogue, the series
 * of a scope, one job's evaluation; included from analysis/ only. */
#ifndef IOCONTEND_ANALYSIS_INTERNAL_H
#define IOCONTEND_ANALYSIS_INTERNAL_H

#include "analysis.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* ---- the job metrics (catalogue.c) ------------------------------------------------ */

struct family;
struct job_eval;
struct analysis_scratch;

/* What a job's incomplete log (docs/method.md §2: its POSIX, MPI-IO or STDIO records are
 * incomplete) does to a family. */
enum family_incomplete {
    INCOMPLETE_KEEPS,               /* it needs only the span and the servers' samples */
    INCOMPLETE_EXCLUDES,            /* it needs the job's windows or bytes: excluded */
    INCOMPLETE_EXCLUDES_WHOLE_TRACE /* excluded when the trace is whole; without a
                                     * whole trace no_trace or incomplete_dxt say more
                                     * and stay */
};

/* Computes, for one job over series (NULL: the job touched no monitored file system
 * of its scope), the values and the exclusion reasons of the families that share the
 * function, into ev; the families before it in families[] are computed. Data of the
 * job's own that are unusable exclude the families (nonfinite) and the call
 * succeeds: it fails only for lack of memory or when an internal call does. */
typedef enum status (*family_compute_fn)(const struct stats_series *series,
                                         const struct db_job *j,
                                         struct analysis_scratch *s, struct job_eval *ev,
                                         struct error *err);

/* A family of job metrics: the ones one exclusion reason covers (catalogue.c). Its
 * metrics are the rows of metrics[] that name it. */
struct family {
    const char *name;    /* export's excluded_NAME, the per-job JSON's "excluded" key */
    const char *section; /* the docs/method.md section that defines it */
    const struct db_family *stored; /* its table and columns; NULL: not stored */
    size_t excl;      /* offsetof its reason in struct job_eval; SIZE_MAX: never */
    unsigned reasons; /* FAMILY_REASON(e) of each enum stats_exclusion it can carry */
    enum family_incomplete incomplete;
    /* Where it is computed: in analysis, against the servers' series at each scope
     * and granularity, by this function (one call per job for all the families that
     * share it); NULL: at ingest, from the log alone (ingest/metrics.c). */
    family_compute_fn compute;
};

#define FAMILY_REASON(e) (1u << (e))

/* Every family, in export's order (the log first: it is never excluded). */
extern const struct family *const families[];
extern const size_t n_families;

/* A metric's flags. */
enum {
    NEEDS_RECORDS = 1u << 0, /* an incomplete log lacks it (all but t_j, Ψ and Ψ^O) */
    IN_TABLE = 1u << 1,      /* a time of the group table (docs/method.md §4), seconds */
    NONE_IF_NEGATIVE = 1u << 2, /* a negative stored value means none (t_fr -1) */
    COUNT = 1u << 3             /* a size_t count (m, m_i, m_x), else a double */
};

struct metric_def {
    const char *name;
    const char *unit; /* "s", "B", "ops", "B/s", "s/GiB", "intervals", "requests", "1" */
    const struct family *fam;
    unsigned negative; /* its NEGATIVE_* bit when it may be negative, else 0 */
    unsigned flags;    /* NEEDS_RECORDS, IN_TABLE, NONE_IF_NEGATIVE, COUNT */
    size_t at;         /* the log family: index into db_job's log[] (common/log_family.h);
                        * else offsetof the value in struct job_eval */
    const char *meaning; /* one line, docs/method.md's words */
};

/* Every job metric of docs/method.md §2, §3, §10 and §11, in docs/method.md's order
 * (export's columns). */
extern const struct metric_def metrics[];
extern const size_t n_metrics;

/* The negative-value flags in a fixed order, for export. */
extern const unsigned negative_bits[];
extern const size_t n_negative_bits;

struct scope_series;

/* Everything computed for one job at one granularity and scope. */
struct job_eval {
    struct stats_job_volume v;     /* docs/method.md §3 volume metrics */
    struct stats_job_derived dv;   /* ν, ν^D, B^D, τ */
    const struct scope_series *ss; /* the series used; NULL when there was none */
    bool incomplete_log; /* the job's POSIX, MPI-IO or STDIO records are incomplete */
    /* The _x family (docs/method.md §10): the DXT operation windows over the same series.
     * xv's D family is A^X (m_x, T^{DX}, Ψ^X, |S^X|); xdv's B^D is B^X. */
    enum stats_exclusion x_excl;     /* for t_x*, m_x, t_dx, psi_x_* */
    enum stats_exclusion b_x_excl;   /* for b_x */
    double t_x, t_x_read, t_x_write; /* measure of the union of the windows, seconds */
    struct stats_job_volume xv;
    struct stats_job_derived xdv;
};

/* The metric called name, NULL when there is none. */
const struct metric_def *metric_find(const char *name);
/* The family called name, NULL when there is none. */
const struct family *family_find(const char *name);
/* The value of a metric for one job; NAN when it does not exist for that job. */
double metric_value(const struct metric_def *md, const struct db_job *j,
                    const struct job_eval *ev);
/* Why a family's values are missing for the job, EXCL_NONE when they are not. */
enum stats_exclusion family_excl(const struct family *f, const struct job_eval *ev);
/* False for the metrics an incomplete log still has: t_j (the header) and Ψ, Ψ^O (the
 * job's span and the servers' samples). */
bool metric_needs_records(const struct metric_def *md);
/* A metric's value, NAN when its family is excluded for the job. */
double metric_reported(const struct metric_def *md, const struct db_job *j,
                       const struct job_eval *ev);
/* Why job j does not count for the pair (my, mx), EXCL_NONE when it does; its values
 * in *yv and *xv either way. */
enum stats_exclusion pair_values(const struct metric_def *my, const struct metric_def *mx,
                                 const struct db_job *j, const struct job_eval *ev,
                                 bool log_space, double *yv, double *xv);

/* A (y, x) pair of job metrics, resolved once (indexes into metrics[]). */
struct analysis_pair {
    size_t y, x;
};

/* STATUS_INVALID for an unknown metric (err->parameter says "y" or "x"). */
enum status analysis_pair_resolve(const char *y, const char *x, struct analysis_pair *out,
                                  struct error *err) MUST_CHECK;

/* ---- the series of a scope (scope.c) ----------------------------------------------- */

enum scope_kind { SCOPE_ALL, SCOPE_FS, SCOPE_TOUCHED };

/* A series kept as segments over disjoint spans of time, ascending: the intervals
 * around the jobs it serves, not the history between them (enum ctx_reach). One
 * segment when read over one span. */
struct series_set {
    struct stats_series **seg; /* each owned */
    double *lo_s, *hi_s;       /* the span of each (seconds on the grid) */
    size_t n;
};
void series_set_clear(struct series_set *s);
/* The segment whose span holds [start_s, end_s]: the only one when there is one, else
 * the last that starts at or before start_s (the first when none does). NULL when the
 * set is empty. Every job a context reads around lies inside one span. */
const struct stats_series *series_set_at(const struct series_set *s, double start_s,
                                         double end_s);

/* One summed series and the file systems it sums. */
struct scope_series {
    unsigned char *member; /* member[f] = 1: file system f is summed */
    struct series_set set; /* on the analysis grid */
};

/* What every analysis of one granularity and scope needs: the streams, and the
 * series of each distinct set of file systems met so far (one for all and fs:NAME;
 * one per distinct touched set, which a group has few of, so a cache of sets rather
 * than a series per job). */
struct analysis_ctx {
    enum scope_kind kind;
    const char *scope; /* "all", "touched" or "fs:NAME" */
    /* The file systems with stored series near the jobs, by name: their names (fs_names
     * borrows from fs), their grids and their rows. */
    struct db_series_fs *fs;
    const char **fs_names;
    struct db_series_fs_data **fs_data;
    size_t n_fs;
    struct db_spans spans;            /* what was read (seconds); none: one span, all */
    const struct scope_series *fixed; /* all, fs:NAME: the one series of every job */
    struct scope_series **sets;       /* each its own allocation: jobs keep pointers */
    size_t n_sets, cap_sets;
    unsigned char *member; /* scratch: the set of the job at hand */
    double base_delta_s;   /* Δ */
    unsigned k;            /* granularity = k·Δ */
    unsigned fill_max; /* the gap rule at Δ, and xff at k (docs/method.md §3, §6) */
    double xff;
    /* REACH_SPAN's input: the intervals j_lo..j_hi of the grid Δ, whatever rows lie
     * there (before ctx_prepare; see analysis_scope_series_span). */
    int64_t span_j_lo, span_j_hi;
    double span_delta_s;
};

/* Which intervals a context reads. A job's metrics at k·Δ reach k·Δ past its span
 * (2k·Δ with a phase φ), and the gap rule fill_max + 1 intervals further: around the
 * jobs, each job's span widened by (2·max(k, k_max) + fill_max + 2)·Δ + |θ|, merged,
 * gives every job the values the whole history would. The coverage's intervals run
 * from a day before the first job to a day after the last (docs/method.md §7). */
enum ctx_reach {
    REACH_JOBS,       /* around the jobs of group_id (NULL: of every job) */
    REACH_DAY_WINDOW, /* from a day before the first job to a day after the last */
    REACH_SPAN,       /* the intervals c->span_j_lo..span_j_hi, a piece of the above */
    REACH_JOBS_ONLY   /* as REACH_JOBS, and never every row when none lies there */
};

/* Reads the stored series of scope ("all", "touched", "fs:NAME"; NULL: all) over
 * reach, its dirty days recomputed first, and builds the
 * series at granularity_s (0: Δ) for all and fs:NAME. STATUS_INVALID naming the
 * parameter (scope, granularity); STATUS_NOT_FOUND when no samples are loaded; c is
 * left empty on failure. */
enum status ctx_prepare(struct db *db, const struct analysis_settings *s,
                        double granularity_s, const char *scope, enum ctx_reach reach,
                        const char *group_id, struct analysis_ctx *c,
                        struct error *err) MUST_CHECK;
/* The stored series refreshed for every dirty day (a writer's), or the warning that
 * their settings are another's. */
enum status scope_series_refresh(struct db *db, const struct analysis_settings *s,
                                 struct error *err) MUST_CHECK;
void ctx_clear(struct analysis_ctx *c);
/* The series a job's volume metrics use: the scope's one, or for scope=touched that
 * of the monitored file systems (with samples) the job read or wrote. *out NULL when
 * the job touched none of them. */
enum status ctx_series_for(struct analysis_ctx *c, const struct db_job *j,
                           const struct scope_series **out, struct error *err) MUST_CHECK;

/* What every association of one group at one granularity and scope reads: the
 * group, its context and its jobs, loaded once for all its pairs
 * (assoc_inputs_clear). */
struct assoc_inputs {
    struct db_group group;
    struct analysis_ctx ctx;
    struct db_jobs *jobs;
};
enum status assoc_inputs_load(struct db *db, const struct analysis_settings *s,
                              const char *group_id, double granularity_s,
                              const char *scope, struct assoc_inputs *in,
                              struct error *err) MUST_CHECK;
void assoc_inputs_clear(struct assoc_inputs *in);
/* analysis_association of (y, x) on in (NULL: only the pair and the space are
 * checked). */
enum status association_of(struct db *db, const struct analysis_settings *s,
                           struct assoc_inputs *in, const char *y, const char *x,
                           const struct assoc_opts *opts, struct assoc_result **out,
                           struct error *err) MUST_CHECK;

/* The base Δ (seconds) and the system-wide series at Δ over every file system loaded
 * (scope "all"), as analysis_association builds them. *series is new
 * (stats_series_free). STATUS_NOT_FOUND when no samples are loaded; STATUS_DB. */
enum status analysis_base_series(struct db *db, const struct analysis_settings *s,
                                 enum ctx_reach reach, struct series_set *series,
                                 double *delta_s, struct error *err) MUST_CHECK;

/* The series of scope "all" at Δ around the jobs of group_id alone (REACH_JOBS_ONLY:
 * none when no row lies there), as its association reads them. STATUS_NOT_FOUND when
 * no samples are loaded. */
enum status analysis_group_series(struct db *db, const struct analysis_settings *s,
                                  const char *group_id, struct series_set *series,
                                  double *delta_s, struct error *err) MUST_CHECK;

/* As analysis_base_series for scope "all" or "fs:NAME" (that file system's streams
 * alone, at their own Δ) over the day window. STATUS_INVALID for another scope. */
enum status analysis_scope_series(struct db *db, const struct analysis_settings *s,
                                  const char *scope, struct stats_series **series,
                                  double *delta_s, struct error *err) MUST_CHECK;

/* What the coverage's series of scope ("all" or "fs:NAME") over the day window are
 * made of, without reading them: whether they come from the stored series (else from
 * the raw samples, and the coverage is computed whole), Δ, the file systems summed
 * and their grids, and the first and last interval of the grid Δ that a stored row
 * lies in (any false: none). */
struct scope_plan {
    bool stored;
    double delta_s;
    struct db_series_fs *fs; /* owned */
    size_t n_fs;
    bool any;
    int64_t j_first, j_last;
};
enum status analysis_scope_plan(struct db *db, const struct analysis_settings *s,
                                const char *scope, struct scope_plan *out,
                                struct error *err) MUST_CHECK;
void scope_plan_clear(struct scope_plan *p);
/* The series of scope over the intervals j_lo..j_hi of the grid delta_s (the plan's
 * Δ), every one of them, as analysis_scope_series has them there: the gap rule's
 * reach (fill_max + 1 intervals) on each side of what the caller keeps is the
 * caller's to add. *series is new. */
enum status analysis_scope_series_span(struct db *db, const struct analysis_settings *s,
                                       const char *scope, double delta_s, int64_t j_lo,
                                       int64_t j_hi, struct stats_series **series,
                                       struct error *err) MUST_CHECK;

/* ---- the stored series (series.c) ------------------------------------------------ */

/* The grid a file system's series is kept on: the configured Δ, else its coarsest
 * sampling interval (finer streams are placed on it by the grid rule). */
double series_grid(const struct analysis_settings *s, const struct db_series_fs *f);
/* The UTC day of grid interval j on the grid of delta_s: the day of T_{j-1}. */
int64_t series_day_of(int64_t j, double delta_s);
/* The first grid interval of day (UTC): the first j with T_{j-1} >= day·86400. */
int64_t series_day_first_j(int64_t day, double delta_s);
/* What the stored series are to settings s. */
enum series_state {
    SERIES_NONE, /* none computed yet: the first refresh builds them with s's */
    SERIES_SAME, /* built with s's sample_offset_s and granularity_s */
    SERIES_OTHER /* built with others: STATUS_INVALID naming db rebuild-series */
};
enum status series_settings_check(struct db *db, const struct analysis_settings *s,
                                  enum series_state *state, struct error *err) MUST_CHECK;
/* One day of a file system's series, computed from its raw samples. */
struct series_day {
    int64_t j_lo, j_hi;         /* the day's grid intervals */
    struct db_series_row *rows; /* those some sample reached, ascending */
    size_t n_rows;
    struct db_series_day_facts facts;
};
/* Computes day of f (on its grid f->delta_s) from the samples; out is cleared on
 * failure (series_day_clear). */
enum status series_day_compute(struct db *db, const struct analysis_settings *s,
                               const struct db_series_fs *f, int64_t day,
                               struct series_day *out, struct error *err) MUST_CHECK;
void series_day_clear(struct series_day *d);
/* analysis_series_refresh for the dirty days from lo_day to hi_day only (all of them
 * when the series were never built or a grid moved). */
enum status series_refresh_days(struct db *db, const struct analysis_settings *s,
                                int64_t lo_day, int64_t hi_day,
                                const struct progress *progress,
                                struct series_refresh *out, struct error *err) MUST_CHECK;

/* ---- one job (job.c) --------------------------------------------------------------- */

/* Window scratch for evaluating the jobs of a list, sized for the job with the most
 * windows or DXT operation windows. */
struct analysis_scratch {
    struct stats_window *win; /* one per window */
    size_t *idx;              /* stats_job_volume's scratch: two per window */
};

/* STATUS_NOMEM; analysis_scratch_clear releases s either way. */
enum status analysis_scratch_init(struct analysis_scratch *s, const struct db_jobs *jobs,
                                  struct error *err) MUST_CHECK;
void analysis_scratch_clear(struct analysis_scratch *s);

/* Computes every metric of one job (docs/method.md §3) over series (NULL: the job touched
 * no monitored file system of its scope). A job whose own data are unusable (a
 * reversed or non-finite window, bytes that do not add up) is a fact about that log,
 * not a reason to stop: its volume families are excluded as nonfinite and the call
 * succeeds. Fails only for lack of memory. ev->ss is left NULL. */
enum status job_eval_on(const struct stats_series *series, const struct db_job *j,
                        struct analysis_scratch *s, struct job_eval *ev,
                        struct error *err) MUST_CHECK;
/* The analysis families' compute functions, named by their rows in catalogue.c; only
 * these files (fam_*.c) call stats/'s per-job computations. */
/* psi, d, i and q (docs/method.md §3, §11): one stats_job_volume over the job's windows
 * (fam_volume.c). */
enum status compute_volume(const struct stats_series *series, const struct db_job *j,
                           struct analysis_scratch *s, struct job_eval *ev,
                           struct error *err) MUST_CHECK;
/* b_d and tau, and the ν and ν^D values of psi and d (docs/method.md §3): one
 * stats_job_derived (fam_derived.c). */
enum status compute_derived(const struct stats_series *series, const struct db_job *j,
                            struct analysis_scratch *s, struct job_eval *ev,
                            struct error *err) MUST_CHECK;
/* x and b_x (docs/method.md §10): the volume and derived computations over the DXT
 * operation windows, and the measure of their union (fam_x.c). */
enum status compute_x(const struct stats_series *series, const struct db_job *j,
                      struct analysis_scratch *s, struct job_eval *ev,
                      struct error *err) MUST_CHECK;
/* What the derived metrics need of job j's log (fam_derived.c). */
struct stats_job_log family_job_log(const struct db_job *j);

/* job_eval_on over the series of the job's scope (docs/method.md §1), which ev->ss names.
 * Fails also when that series cannot be built. */
enum status job_eval(struct analysis_ctx *c, const struct db_job *j,
                     struct analysis_scratch *s, struct job_eval *ev,
                     struct error *err) MUST_CHECK;

/* true when a job of the list has a DXT trace, whole or incomplete (docs/method.md §10):
 * analyze and the sweep then add the _x pairs. */
bool analysis_jobs_have_trace(const struct db_jobs *jobs);

/* One job of the list s was made for, over series (scope "all", any granularity),
 * for each of n_pairs pairs as analysis_association collects them: y[p] and x[p],
 * and excl[p] the enum stats_exclusion for which the job does not count for pair p
 * (EXCL_NONE when it does). *m is |A| at the series' granularity (docs/method.md §3), NAN
 * when A is unknown (its family excluded for other than a hole). No allocation;
 * STATUS_OK unless an internal call fails. */
enum status analysis_job_pairs(const struct stats_series *series, const struct db_job *j,
                               const struct analysis_pair *pairs, size_t n_pairs,
                               struct analysis_scratch *s, double *y, double *x,
                               unsigned char *excl, double *m,
                               struct error *err) MUST_CHECK;

/* ---- analyze over the groups (run.c) ----------------------------------------------- */

/* One group's work in analysis_groups_each: computes and stores its results from
 * inputs (read now, with the fingerprint of its stored ones). */
typedef enum status (*group_work_fn)(void *arg, struct db *db, const struct db_group *g,
                                     const struct db_group_inputs *inputs,
                                     struct error *err);

/* true when g is a hand-made group (groups.c): its jobs are members, not those whose
 * default group it is. */
bool group_is_hand(const struct db_group *g);

/* The groups of a run: group_id's alone (STATUS_NOT_FOUND when there is none) or
 * every one, less the hand-made groups the configuration lacks (kept as stored,
 * analysis_groups_refresh). *groups is new (free). */
enum status analysis_groups_select(struct db *db, const char *group_id,
                                   struct db_group **groups, size_t *n,
                                   struct error *err) MUST_CHECK;

/* For each of the n groups that sel selects (--since) and whose inputs of kind
 * ("association", "sweep") with settings differ from those its stored results came
 * from (or all with sel->force): work, then the inputs stored as the results'.
 * Counts groups_untouched and groups_unchanged in sum; progress per group (may be
 * NULL). The first failure stops the loop (work's err as work left it). */
enum status analysis_groups_each(struct db *db, const struct db_group *groups, size_t n,
                                 const struct analyze_select *sel, const char *kind,
                                 const char *settings, const struct progress *progress,
                                 group_work_fn work, void *arg,
                                 struct analyze_summary *sum,
                                 struct error *err) MUST_CHECK;

/* Appends to the settings text out (len chars of size written) the gap rule's
 * settings, ";fill_max=N;xff=X", unless they are the strict rule's (0 and 0), whose
 * results are those of a version without the rule: their stored settings stay. */
void analysis_gap_settings(const struct analysis_settings *s, char *out, size_t size,
                           int len);

/* Seconds since *t0 on the monotonic clock. */
double analysis_seconds_since(const struct timespec *t0);

/* ---- the coverage (coverage.c) ----------------------------------------------------- */

/* Computes and stores the coverage of every file system with samples and of all of
 * them together (docs/method.md §7) over jobs, each on its series over the day window
 * (enum ctx_reach): a day at a time from the stored series, only the days whose inputs
 * moved (coverage_days), else whole from the raw samples; its summary line
 * ("scratch1 0.87, all 0.89 (9 days of the scopes, 2 computed, ...)") into line. */
enum status coverage_store(struct db *db, const struct analysis_settings *settings,
                           const struct db_jobs *jobs, char *line, size_t line_size,
                           struct error *err) MUST_CHECK;

/* ---- the job export's JSON (objects_export.c) -------------------------------------- */

/* The document of `export jobs --format json` under construction. */
struct export_json;

/* A document at granularity_s and scope; NULL without memory. */
struct export_json *export_json_new(double granularity_s, const char *scope);
/* Adds job j's row: every metric, the excluded families, the negative values, the
 * file systems of its series. A failure is kept for export_json_write. */
void export_json_row(struct export_json *e, const struct analysis_ctx *c,
                     const struct db_job *j, const struct job_eval *ev);
/* The document (new; the builder keeps nothing), NULL when a row could not be
 * built. */
struct json_t *export_json_take(struct export_json *e);
void export_json_free(struct export_json *e);

#endif
