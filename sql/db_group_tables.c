/* db_group_tables.c: group tables and coverage (docs/method.md §4, §7). */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill_fs(void *row_out, const PGresult *r, int row)
{
    struct db_fs *f = row_out;

    copy_text(f->name, sizeof f->name, r, row, 0);
}

enum status db_sample_filesystems(struct db *db, struct db_fs **out, size_t *n,
                                  struct error *err)
{
    void *rows;
    /* by a walk down the primary key, one probe per file system: DISTINCT reads
     * every sample */
    enum status rc = fetch_rows(
        db,
        "WITH RECURSIVE f(fs) AS ((SELECT fs FROM samples ORDER BY fs LIMIT 1) "
        "UNION ALL SELECT (SELECT s.fs FROM samples s WHERE s.fs > f.fs ORDER BY s.fs "
        "LIMIT 1) FROM f WHERE f.fs IS NOT NULL) "
        "SELECT fs FROM f WHERE fs IS NOT NULL ORDER BY fs",
        0, NULL, sizeof **out, fill_fs, "file systems", &rows, n, err);
    *out = rows;
    return rc;
}

enum status db_group_features(struct db *db, const char *group_id,
                              struct db_feature out[DB_N_FEATURES], long *jobs,
                              struct error *err)
{
    /* The columns of jobs, in the order of the SELECT below. */
    static const char *const names[DB_N_FEATURES] = {
        "uid", "nprocs", "n_unique_files", "n_shared_files", "eta_read", "eta_write"};
    const char *vals[1] = {group_id};
    PGresult *r;
    enum status rc =
        exec_params(db,
                    "SELECT count(*), min(uid), max(uid), min(nprocs), max(nprocs), "
                    "min(n_unique_files), max(n_unique_files), min(n_shared_files), "
                    "max(n_shared_files), min(eta_read), max(eta_read), min(eta_write), "
                    "max(eta_write) FROM jobs WHERE " IN_GROUP_1,
                    1, vals, &r, err);

    *jobs = 0;
    if (rc != STATUS_OK)
        return rc;
    *jobs = (long)get_int64(r, 0, 0);
    for (int f = 0; f < DB_N_FEATURES; f++) {
        out[f].name = names[f];
        out[f].min = get_int64(r, 0, 1 + 2 * f);
        out[f].max = get_int64(r, 0, 2 + 2 * f);
    }
    PQclear(r);
    if (*jobs == 0)
        return error_set(err, STATUS_NOT_FOUND, "no jobs in group %s", group_id);
    return STATUS_OK;
}

enum status db_group_table_store(struct db *db, const char *group_id,
                                 double granularity_s, const char *json,
                                 struct error *err)
{
    char g[40];
    const char *keys[1] = {group_id};
    const char *vals[3] = {group_id, g, json};

    snprintf(g, sizeof g, "%.17g", granularity_s);
    /* One table per group: one stored at another base Δ goes too. */
    return replace_rows(
        db, "DELETE FROM results WHERE kind = 'group_table' AND group_id = $1", 1, keys,
        "INSERT INTO results (kind, group_id, y, x, granularity_s, space, scope, "
        "result) VALUES ('group_table', $1, '', '', $2, '', 'all', $3)",
        3, vals, err);
}

enum status db_group_table_delete(struct db *db, const char *group_id, struct error *err)
{
    const char *vals[1] = {group_id};

    return exec_params_cmd(db,
                           "DELETE FROM results WHERE kind = 'group_table' "
                           "AND ($1::text IS NULL OR group_id = $1)",
                           1, vals, err);
}

enum status db_group_table_get(struct db *db, const char *group_id, char **json,
                               struct error *err)
{
    const char *vals[1] = {group_id};

    return stored_text(db,
                       "SELECT result::text FROM results WHERE kind = 'group_table' "
                       "AND group_id = $1 ORDER BY computed_at DESC LIMIT 1",
                       1, vals, "table", json, NULL, err);
}

/* A double as a query parameter: %.17g, or SQL NULL (a NULL pointer) when not
 * finite. */
static const char *param_double(char out[40], double v)
{
    if (!isfinite(v))
        return NULL;
    snprintf(out, 40, "%.17g", v);
    return out;
}

/* One COPY field of a double: \N when not finite. */
static bool buf_double(struct buf *b, double v, char sep)
{
    return isfinite(v) ? buf_printf(b, "%.17g%c", v, sep) : buf_printf(b, "\\N%c", sep);
}

/* ---- the pre-buckets (migration 0019) --------------------------------------------- */

size_t db_coverage_levels(double granularity_s, double levels[DB_COVERAGE_LEVELS])
{
    static const double widths[DB_COVERAGE_LEVELS] = {10, 60, 600, 3600, 21600};
    size_t n = 0;

    /* A pre-bucket of whole intervals, never across midnight. */
    if (!(granularity_s > 0) || fmod(86400.0, granularity_s) != 0)
        return 0;
    for (size_t k = 0; k < DB_COVERAGE_LEVELS; k++) {
        if (widths[k] >= 4 * granularity_s && fmod(widths[k], granularity_s) == 0)
            levels[n++] = widths[k];
    }
    return n;
}

/* The pre-bucket of interval (end_s − g, end_s] at level L: that of its middle. */
static int64_t pre_bucket(double end_s, double g, double level_s)
{
    return (int64_t)floor((end_s - g / 2) / level_s);
}

/* Removes scope's pre-buckets that intervals with T_i in [end_lo_s, end_hi_s] fall in,
 * at every level of g. */
static enum status pre_delete(struct db *db, const char *scope, double g, double end_lo_s,
                              double end_hi_s, struct error *err)
{
    double levels[DB_COVERAGE_LEVELS];
    size_t n = db_coverage_levels(g, levels);
    enum status rc = STATUS_OK;

    for (size_t k = 0; rc == STATUS_OK && k < n; k++) {
        char v[3][40];
        const char *vals[4] = {scope, param_double(v[0], levels[k]), v[1], v[2]};
        snprintf(v[1], sizeof v[1], "%lld",
                 (long long)pre_bucket(end_lo_s, g, levels[k]));
        snprintf(v[2], sizeof v[2], "%lld",
                 (long long)pre_bucket(end_hi_s, g, levels[k]));
        rc = exec_params_cmd(db,
                             "DELETE FROM coverage_pre WHERE scope = $1 AND level_s = "
                             "$2::float8 AND b BETWEEN $3::bigint AND $4::bigint",
                             4, vals, err);
    }
    return rc;
}

struct pre_acc {
    int64_t b, n, both;
    double sum_d, sum_s, d_min, d_max, s_min, s_max, first, last;
};

static void pre_row(struct bincopy *c, const char *scope, double level_s,
                    const struct pre_acc *a)
{
    bincopy_row(c, 13);
    bincopy_text(c, scope);
    bincopy_float8(c, level_s);
    bincopy_int8(c, a->b);
    bincopy_int8(c, a->n);
    bincopy_int8(c, a->both);
    bincopy_float8(c, a->sum_d);
    bincopy_float8(c, a->sum_s);
    bincopy_float8(c, a->d_min); /* NAN: none (SQL NULL) */
    bincopy_float8(c, a->d_max);
    bincopy_float8(c, a->s_min);
    bincopy_float8(c, a->s_max);
    bincopy_float8(c, a->first);
    bincopy_float8(c, a->last);
}

/* The pre-buckets of intervals s (ascending T_i) at every level of g, stored. Their
 * sums are float8 additions in T_i order, as the intervals' query makes them. */
static enum status pre_put(struct db *db, const char *scope, double g,
                           const struct db_coverage_series *s, struct error *err)
{
    double levels[DB_COVERAGE_LEVELS];
    size_t n_levels = db_coverage_levels(g, levels);
    struct bincopy c;

    if (n_levels == 0 || s->n == 0)
        return STATUS_OK;
    enum status rc =
        bincopy_begin(&c, db,
                      "COPY coverage_pre (scope, level_s, b, n, both_n, "
                      "sum_d_bytes, sum_s_bytes, d_min, d_max, s_min, s_max, "
                      "first_end_s, last_end_s) FROM STDIN WITH (FORMAT binary)",
                      err);
    if (rc != STATUS_OK)
        return rc;
    for (size_t k = 0; k < n_levels; k++) {
        struct pre_acc a = {0};
        for (size_t i = 0; i < s->n; i++) {
            int64_t b = pre_bucket(s->end_s[i], g, levels[k]);
            if (a.n > 0 && b != a.b) {
                pre_row(&c, scope, levels[k], &a);
                a.n = 0;
            }
            if (a.n == 0) {
                a = (struct pre_acc){.b = b,
                                     .first = s->end_s[i],
                                     .d_min = NAN,
                                     .d_max = NAN,
                                     .s_min = NAN,
                                     .s_max = NAN};
            }
            double d = s->d_bytes[i], v = s->s_bytes[i];
            a.n++;
            a.last = s->end_s[i];
            if (isfinite(d)) {
                a.d_min = isnan(a.d_min) || d < a.d_min ? d : a.d_min;
                a.d_max = isnan(a.d_max) || d > a.d_max ? d : a.d_max;
            }
            if (isfinite(v)) {
                a.s_min = isnan(a.s_min) || v < a.s_min ? v : a.s_min;
                a.s_max = isnan(a.s_max) || v > a.s_max ? v : a.s_max;
            }
            if (isfinite(d) && isfinite(v)) {
                a.sum_d += d;
                a.sum_s += v;
                a.both++;
            }
        }
        if (a.n > 0)
            pre_row(&c, scope, levels[k], &a);
    }
    return bincopy_end(&c);
}

static enum status coverage_insert(struct db *db, const struct db_coverage *c,
                                   const struct db_coverage_series *s, struct error *err)
{
    char v[8][40];
    const char *vals[9] = {c->scope,
                           param_double(v[0], c->granularity_s),
                           param_double(v[1], c->coverage),
                           param_double(v[2], c->sum_d_bytes),
                           param_double(v[3], c->sum_s_bytes),
                           v[4],
                           param_double(v[5], c->d_total_bytes),
                           param_double(v[6], c->log_start_s),
                           param_double(v[7], c->log_end_s)};
    struct buf b = {0};

    snprintf(v[4], sizeof v[4], "%ld", c->intervals);
    enum status rc =
        exec_params_cmd(db,
                        "INSERT INTO coverage (scope, granularity_s, coverage, "
                        "sum_d_bytes, sum_s_bytes, intervals, d_total_bytes, "
                        "log_start_s, log_end_s) VALUES "
                        "($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                        9, vals, err);
    if (rc != STATUS_OK)
        return rc;
    for (size_t i = 0; i < s->n; i++) {
        if (!buf_field(&b, c->scope) || !buf_printf(&b, "\t") ||
            !buf_double(&b, s->end_s[i], '\t') || !buf_double(&b, s->d_bytes[i], '\t') ||
            !buf_double(&b, s->s_bytes[i], '\n')) {
            free(b.p);
            return error_set(err, STATUS_NOMEM, "coverage intervals");
        }
    }
    rc =
        copy_in(db, "COPY coverage_intervals (scope, end_s, d_bytes, s_bytes) FROM STDIN",
                &b, err);
    free(b.p);
    if (rc == STATUS_OK)
        rc = pre_put(db, c->scope, c->granularity_s, s, err);
    return rc;
}

enum status db_coverage_replace(struct db *db, const struct db_coverage *c,
                                const struct db_coverage_series *series, size_t n,
                                struct error *err)
{
    enum status rc = exec_cmd(db, "BEGIN", err);

    if (rc != STATUS_OK)
        return rc;
    rc = exec_cmd(db, "DELETE FROM coverage", err); /* its intervals cascade */
    for (size_t i = 0; rc == STATUS_OK && i < n; i++)
        rc = coverage_insert(db, &c[i], &series[i], err);
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

static void fill_coverage(void *row_out, const PGresult *r, int row)
{
    struct db_coverage *c = row_out;

    copy_text(c->scope, sizeof c->scope, r, row, 0);
    c->granularity_s = get_double(r, row, 1);
    c->coverage = get_double(r, row, 2);
    c->sum_d_bytes = get_double(r, row, 3);
    c->sum_s_bytes = get_double(r, row, 4);
    c->intervals = (long)get_int64(r, row, 5);
    c->d_total_bytes = get_double(r, row, 6);
    c->log_start_s = get_double(r, row, 7);
    c->log_end_s = get_double(r, row, 8);
    copy_text(c->computed_at, sizeof c->computed_at, r, row, 9);
}

enum status db_coverage_list(struct db *db, struct db_coverage **out, size_t *n,
                             struct error *err)
{
    void *rows;
    enum status rc = fetch_rows(
        db,
        "SELECT scope, granularity_s, coverage, sum_d_bytes, sum_s_bytes, intervals, "
        "d_total_bytes, log_start_s, log_end_s, "
        "to_char(computed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
        "FROM coverage ORDER BY scope <> 'all', scope",
        0, NULL, sizeof **out, fill_coverage, "coverage", &rows, n, err);
    *out = rows;
    return rc;
}

void db_coverage_series_clear(struct db_coverage_series *s)
{
    if (s == NULL)
        return;
    free(s->end_s);
    free(s->d_bytes);
    free(s->s_bytes);
    memset(s, 0, sizeof *s);
}

enum status db_coverage_intervals(struct db *db, const char *scope, double from_s,
                                  double to_s, size_t max_n,
                                  struct db_coverage_series *out, bool *truncated,
                                  struct error *err)
{
    char from[40], to[40], limit[32];
    const char *vals[4] = {scope, param_double(from, from_s), param_double(to, to_s),
                           limit};
    PGresult *r;

    memset(out, 0, sizeof *out);
    *truncated = false;
    snprintf(limit, sizeof limit, "%zu", max_n + 1);
    /* (T_i − Δ, T_i] overlaps [from, to) when T_i > from and T_i − Δ < to. */
    enum status rc =
        exec_params(db,
                    "SELECT i.end_s, i.d_bytes, i.s_bytes FROM coverage_intervals i "
                    "JOIN coverage c USING (scope) WHERE i.scope = $1 "
                    "AND ($2::float8 IS NULL OR i.end_s > $2::float8) "
                    "AND ($3::float8 IS NULL OR i.end_s - c.granularity_s < $3::float8) "
                    "ORDER BY i.end_s LIMIT $4::bigint",
                    4, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    if (rows > max_n) {
        *truncated = true;
        rows = max_n;
    }
    size_t cap = rows > 0 ? rows : 1;
    out->end_s = malloc(cap * sizeof(double));
    out->d_bytes = malloc(cap * sizeof(double));
    out->s_bytes = malloc(cap * sizeof(double));
    if (out->end_s == NULL || out->d_bytes == NULL || out->s_bytes == NULL) {
        PQclear(r);
        db_coverage_series_clear(out);
        return error_set(err, STATUS_NOMEM, "coverage intervals");
    }
    for (size_t i = 0; i < rows; i++) {
        out->end_s[i] = get_double(r, (int)i, 0);
        out->d_bytes[i] = get_double(r, (int)i, 1);
        out->s_bytes[i] = get_double(r, (int)i, 2);
    }
    out->n = rows;
    PQclear(r);
    return STATUS_OK;
}

/* The intervals of scope $1 that overlap [$2, $3) (NULL: open), as
 * db_coverage_intervals selects them; end_s ascending. */
#define RANGE_INTERVALS                                                                  \
    "SELECT i.end_s, c.granularity_s AS g, i.d_bytes AS d, i.s_bytes AS s "              \
    "FROM coverage_intervals i JOIN coverage c USING (scope) WHERE i.scope = $1 "        \
    "AND ($2::float8 IS NULL OR i.end_s > $2::float8) "                                  \
    "AND ($3::float8 IS NULL OR i.end_s - c.granularity_s < $3::float8) "
/* D and S of an interval are finite numbers (stored non-finite values are NULL; this
 * guards the rest), and both are. */
#define D_FINITE    "d > '-Infinity'::float8 AND d < 'Infinity'::float8"
#define S_FINITE    "s > '-Infinity'::float8 AND s < 'Infinity'::float8"
#define BOTH_FINITE "(" D_FINITE " AND " S_FINITE ")"

/* The rows a range is made of at level $4 (seconds; parameters $1 scope, $2 from,
 * $3 to as RANGE_INTERVALS): pre-buckets wholly inside [from, to), and the intervals
 * of the range not in one of those, which lie within a level and an interval of its
 * ends (two ranges of the primary key). */
#define PRE_INSIDE(b)                                                                    \
    "($2::float8 IS NULL OR (" b ") * $4::float8 >= $2::float8) AND ($3::float8 IS "     \
    "NULL OR ((" b ") + 1) * $4::float8 <= $3::float8)"
#define PRE_ROWS                                                                         \
    "SELECT p.* FROM coverage_pre p WHERE p.scope = $1 AND p.level_s = $4::float8 "      \
    "AND " PRE_INSIDE("p.b")
#define EDGE_ROWS                                                                        \
    "SELECT iv.* FROM (" RANGE_INTERVALS                                                 \
    "AND (($2::float8 IS NOT NULL AND i.end_s <= $2::float8 + $4::float8 + "             \
    "c.granularity_s) OR ($3::float8 IS NOT NULL AND i.end_s >= $3::float8 - "           \
    "$4::float8 - c.granularity_s))) iv WHERE NOT (" PRE_INSIDE(                         \
        "floor((iv.end_s - iv.g / 2) / $4::float8)") ")"

enum status db_coverage_span(struct db *db, const char *scope, double from_s, double to_s,
                             double level_s, struct db_coverage_span *out,
                             struct error *err)
{
    char from[40], to[40], level[40];
    const char *vals[4] = {scope, param_double(from, from_s), param_double(to, to_s),
                           param_double(level, level_s)};
    PGresult *r;
    enum status rc;

    memset(out, 0, sizeof *out);
    if (level_s > 0) {
        /* The pre-buckets' sums, then the edges', in T_i order: the sums of the raw
         * form to the last bits. */
        rc = exec_params(
            db,
            "WITH r AS (SELECT first_end_s AS o, n, both_n, sum_d_bytes AS sd, "
            "sum_s_bytes AS ss, d_max AS dx, s_max AS sx, first_end_s AS f, last_end_s "
            "AS l FROM (" PRE_ROWS ") p UNION ALL SELECT end_s, 1, CASE WHEN " BOTH_FINITE
            " THEN 1 ELSE 0 END, CASE WHEN " BOTH_FINITE
            " THEN d END, CASE WHEN " BOTH_FINITE " THEN s END, CASE WHEN " D_FINITE
            " THEN d END, CASE WHEN " S_FINITE
            " THEN s END, end_s, end_s FROM (" EDGE_ROWS ") e) "
            "SELECT coalesce(sum(n), 0), min(f), max(l), sum(sd ORDER BY o) FILTER "
            "(WHERE "
            "both_n > 0), sum(ss ORDER BY o) FILTER (WHERE both_n > 0), "
            "coalesce(sum(both_n), 0), greatest(max(dx), 0), greatest(max(sx), 0) FROM r",
            4, vals, &r, err);
    } else {
        /* The sums are float8 additions in end_s order, as analysis_coverage_range
         * makes them over the raw intervals, so that both forms of the answer carry
         * the same bits. */
        rc = exec_params(db,
                         "SELECT count(*), min(end_s), max(end_s), "
                         "sum(d ORDER BY end_s) FILTER (WHERE " BOTH_FINITE "), "
                         "sum(s ORDER BY end_s) FILTER (WHERE " BOTH_FINITE "), "
                         "count(*) FILTER (WHERE " BOTH_FINITE "), "
                         "greatest(max(d) FILTER (WHERE " D_FINITE "), 0), "
                         "greatest(max(s) FILTER (WHERE " S_FINITE "), 0) "
                         "FROM (" RANGE_INTERVALS ") iv",
                         3, vals, &r, err);
    }
    if (rc != STATUS_OK)
        return rc;
    out->n = (size_t)get_int64(r, 0, 0);
    out->first_end_s = get_double(r, 0, 1);
    out->last_end_s = get_double(r, 0, 2);
    out->sum_d_bytes = out->n > 0 && !PQgetisnull(r, 0, 3) ? get_double(r, 0, 3) : 0;
    out->sum_s_bytes = out->n > 0 && !PQgetisnull(r, 0, 4) ? get_double(r, 0, 4) : 0;
    out->both = (size_t)get_int64(r, 0, 5);
    out->max_d_bytes = PQgetisnull(r, 0, 6) ? 0 : get_double(r, 0, 6);
    out->max_s_bytes = PQgetisnull(r, 0, 7) ? 0 : get_double(r, 0, 7);
    PQclear(r);
    return STATUS_OK;
}

enum status db_coverage_extent(struct db *db, const char *scope, double from_s,
                               double to_s, double *first_end_s, double *last_end_s,
                               struct error *err)
{
    char from[40], to[40];
    const char *vals[3] = {scope, param_double(from, from_s), param_double(to, to_s)};
    PGresult *r;

    *first_end_s = *last_end_s = NAN;
    enum status rc = exec_params(
        db,
        "SELECT (SELECT end_s FROM (" RANGE_INTERVALS ") iv ORDER BY end_s LIMIT 1), "
        "(SELECT end_s FROM (" RANGE_INTERVALS ") iv ORDER BY end_s DESC LIMIT 1)",
        3, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    *first_end_s = get_double(r, 0, 0);
    *last_end_s = get_double(r, 0, 1);
    PQclear(r);
    return STATUS_OK;
}

enum status db_coverage_pre_level(struct db *db, const char *scope, double granularity_s,
                                  double bucket_s, double *level_s, struct error *err)
{
    double levels[DB_COVERAGE_LEVELS];
    size_t n = db_coverage_levels(granularity_s, levels);
    PGresult *r;

    *level_s = 0;
    while (n > 0 && !(levels[n - 1] <= bucket_s / 8))
        n--;
    if (n == 0)
        return STATUS_OK;
    char level[40];
    const char *vals[2] = {scope, param_double(level, levels[n - 1])};
    enum status rc =
        exec_params(db,
                    "SELECT EXISTS (SELECT 1 FROM coverage_pre WHERE scope = "
                    "$1 AND level_s = $2::float8)",
                    2, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    if (PQgetvalue(r, 0, 0)[0] == 't')
        *level_s = levels[n - 1];
    PQclear(r);
    return STATUS_OK;
}

enum status db_coverage_buckets(struct db *db, const char *scope, double from_s,
                                double to_s, double level_s, double start_s,
                                double width_s, size_t n, double *d_min, double *d_max,
                                double *s_min, double *s_max, struct error *err)
{
    char from[40], to[40], start[40], width[40], last[32], level[40];
    const char *vals[7] = {scope,
                           param_double(from, from_s),
                           param_double(to, to_s),
                           level_s > 0 ? param_double(level, level_s) : "0",
                           param_double(start, start_s),
                           param_double(width, width_s),
                           last};
    PGresult *r;

    for (size_t k = 0; k < n; k++)
        d_min[k] = d_max[k] = s_min[k] = s_max[k] = NAN;
    if (n == 0 || vals[4] == NULL || vals[5] == NULL) {
        return error_set(err, STATUS_INVALID, "coverage buckets: %zu of %g s from %g", n,
                         width_s, start_s);
    }
    snprintf(last, sizeof last, "%zu", n - 1);
    /* at = (T_i − Δ/2 − start) / W, in float8 operations in this order (the raw
     * form's buckets, test_coverage, are made so): bucket floor(at), 0 below (and
     * when W is 0), the last above. */
    /* At a level, a pre-bucket counts at its middle with its least and most, and the
     * edges' intervals as they are. */
    enum status rc = exec_params(
        db,
        "SELECT k, min(dn) FILTER (WHERE " D_FINITE "), max(dx) FILTER (WHERE " D_FINITE
        "), min(sn) FILTER (WHERE " S_FINITE "), max(sx) FILTER (WHERE " S_FINITE ") "
        "FROM (SELECT CASE WHEN $6::float8 > 0 AND at > 0 THEN "
        "CASE WHEN at >= $7::float8 THEN $7::float8::bigint ELSE floor(at)::bigint END "
        "ELSE 0 END AS k, d, s, dn, dx, sn, sx FROM ("
        "SELECT (end_s - g / 2 - $5::float8) / $6::float8 AS at, d, s, d AS dn, d AS dx, "
        "s AS sn, s AS sx FROM (" RANGE_INTERVALS ") iv WHERE $4::float8 = 0 "
        "UNION ALL SELECT ((p.b + 0.5) * $4::float8 - $5::float8) / $6::float8, "
        "p.d_min, p.s_min, p.d_min, p.d_max, p.s_min, p.s_max FROM (" PRE_ROWS
        ") p WHERE $4::float8 > 0 "
        "UNION ALL SELECT (end_s - g / 2 - $5::float8) / $6::float8, d, s, d, d, s, s "
        "FROM (" EDGE_ROWS ") e WHERE $4::float8 > 0) a) b GROUP BY k ORDER BY k",
        7, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    for (int row = 0; row < PQntuples(r); row++) {
        int64_t k = get_int64(r, row, 0);
        if (k < 0 || (size_t)k >= n)
            continue; /* not made by the CASE above */
        d_min[k] = get_double(r, row, 1);
        d_max[k] = get_double(r, row, 2);
        s_min[k] = get_double(r, row, 3);
        s_max[k] = get_double(r, row, 4);
    }
    PQclear(r);
    return STATUS_OK;
}

/* ---- the coverage a day at a time (migration 0018) ------------------------------- */

enum status db_coverage_begin(struct db *db, struct error *err)
{
    return exec_cmd(db, "BEGIN", err);
}

void db_coverage_abort(struct db *db)
{
    rollback(db);
}

enum status db_coverage_open(struct db *db, const char *scope, double granularity_s,
                             struct error *err)
{
    char g[40];
    const char *vals[2] = {scope, param_double(g, granularity_s)};
    /* Another grid, or intervals without days (stored before 0018, or whole by a
     * computation from the raw samples): nothing of it is kept, intervals and
     * pre-buckets alike. */
    enum status rc = exec_params_cmd(
        db,
        "WITH old AS (SELECT c.scope FROM coverage c WHERE c.scope = $1 AND "
        "(c.granularity_s <> $2::float8 OR NOT EXISTS (SELECT 1 FROM coverage_days d "
        "WHERE d.scope = $1))), "
        "i AS (DELETE FROM coverage_intervals i USING old WHERE i.scope = old.scope) "
        "DELETE FROM coverage_pre p USING old WHERE p.scope = old.scope",
        2, vals, err);
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(db,
                             "DELETE FROM coverage_days WHERE scope = $1 AND "
                             "(SELECT granularity_s FROM coverage WHERE scope = $1) <> "
                             "$2::float8",
                             2, vals, err);
    }
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(
            db,
            "INSERT INTO coverage (scope, granularity_s, coverage, sum_d_bytes, "
            "sum_s_bytes, intervals, d_total_bytes, log_start_s, log_end_s) VALUES "
            "($1, $2::float8, NULL, 0, 0, 0, 0, 0, 0) ON CONFLICT (scope) DO UPDATE "
            "SET granularity_s = EXCLUDED.granularity_s",
            2, vals, err);
    }
    return rc;
}

/* The days of n (ascending) as a bigint[] literal into b; false without memory. */
static bool days_literal(const struct db_coverage_day *days, size_t n, struct buf *b)
{
    bool ok = buf_printf(b, "{");

    for (size_t i = 0; ok && i < n; i++)
        ok = buf_printf(b, "%s%lld", i > 0 ? "," : "", (long long)days[i].day);
    return ok && buf_printf(b, "}");
}

enum status db_coverage_day_keys(struct db *db, const char *scope, const char *const *fs,
                                 size_t n_fs, int64_t margin_days,
                                 const char *const *texts, struct db_coverage_day *days,
                                 size_t n, struct error *err)
{
    struct buf b_days = {0}, b_texts = {0}, b_fs = {0};
    char margin[32];
    PGresult *r = NULL;
    enum status rc;

    snprintf(margin, sizeof margin, "%lld", (long long)margin_days);
    if (!days_literal(days, n, &b_days) || !buf_text_array(&b_texts, texts, n) ||
        !buf_text_array(&b_fs, fs, n_fs)) {
        rc = error_set(err, STATUS_NOMEM, "days of coverage %s", scope);
        goto out;
    }
    const char *vals[5] = {scope, b_days.p, b_texts.p, b_fs.p, margin};
    rc = exec_params(
        db,
        "SELECT md5(u.t || coalesce((SELECT string_agg(concat_ws(',', s.fs, s.day, "
        "s.devices, s.servers, s.samples, s.digest), ';' ORDER BY s.fs, s.day) FROM "
        "series_days s WHERE s.fs = ANY($4::text[]) AND s.day BETWEEN u.day - "
        "$5::bigint AND u.day + $5::bigint), '')), c.key, c.sum_d_bytes, "
        "c.sum_s_bytes, c.intervals FROM unnest($2::bigint[], $3::text[]) WITH "
        "ORDINALITY AS u(day, t, o) LEFT JOIN coverage_days c ON c.scope = $1 AND "
        "c.day = u.day ORDER BY u.o",
        5, vals, &r, err);
    if (rc == STATUS_OK && (size_t)PQntuples(r) != n) {
        rc = error_set(err, STATUS_INTERNAL, "coverage %s: %d day keys for %zu days",
                       scope, PQntuples(r), n);
    }
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        struct db_coverage_day *d = &days[i];
        copy_text(d->key, sizeof d->key, r, (int)i, 0);
        d->stored = !PQgetisnull(r, (int)i, 1);
        copy_text(d->stored_key, sizeof d->stored_key, r, (int)i, 1);
        d->sum_d_bytes = get_double(r, (int)i, 2);
        d->sum_s_bytes = get_double(r, (int)i, 3);
        d->intervals = (long)get_int64(r, (int)i, 4);
    }
out:
    PQclear(r);
    free(b_days.p);
    free(b_texts.p);
    free(b_fs.p);
    return rc;
}

enum status db_coverage_day_put(struct db *db, const char *scope, double granularity_s,
                                const struct db_coverage_day *d,
                                const struct db_coverage_series *s, struct error *err)
{
    char v[6][40];
    /* [end_lo_s, end_hi_s] are the day's first and last T_i: half an interval to
     * spare on each side for the float8 comparison. */
    const char *del[3] = {scope, param_double(v[0], d->end_lo_s - granularity_s / 2),
                          param_double(v[1], d->end_hi_s + granularity_s / 2)};
    struct bincopy c;

    snprintf(v[2], sizeof v[2], "%lld", (long long)d->day);
    snprintf(v[5], sizeof v[5], "%ld", d->intervals);
    const char *put[7] = {scope,
                          v[2],
                          d->key,
                          param_double(v[3], d->sum_d_bytes),
                          param_double(v[4], d->sum_s_bytes),
                          v[5],
                          NULL};
    enum status rc =
        exec_params_cmd(db,
                        "DELETE FROM coverage_intervals WHERE scope = $1 AND "
                        "end_s BETWEEN $2::float8 AND $3::float8",
                        3, del, err);
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(
            db,
            "INSERT INTO coverage_days (scope, day, key, sum_d_bytes, sum_s_bytes, "
            "intervals) VALUES ($1, $2::bigint, $3, coalesce($4::float8, 0), "
            "coalesce($5::float8, 0), $6::bigint) ON CONFLICT (scope, day) DO UPDATE SET "
            "key = EXCLUDED.key, sum_d_bytes = EXCLUDED.sum_d_bytes, sum_s_bytes = "
            "EXCLUDED.sum_s_bytes, intervals = EXCLUDED.intervals",
            6, put, err);
    }
    if (rc == STATUS_OK)
        rc = pre_delete(db, scope, granularity_s, d->end_lo_s, d->end_hi_s, err);
    if (rc != STATUS_OK || s->n == 0)
        return rc;
    rc = bincopy_begin(&c, db,
                       "COPY coverage_intervals (scope, end_s, d_bytes, s_bytes) FROM "
                       "STDIN WITH (FORMAT binary)",
                       err);
    if (rc != STATUS_OK)
        return rc;
    for (size_t i = 0; i < s->n; i++) {
        bincopy_row(&c, 4);
        bincopy_text(&c, scope);
        bincopy_float8(&c, s->end_s[i]);
        bincopy_float8(&c, s->d_bytes[i]);
        bincopy_float8(&c, s->s_bytes[i]);
    }
    rc = bincopy_end(&c);
    return rc == STATUS_OK ? pre_put(db, scope, granularity_s, s, err) : rc;
}

enum status db_coverage_days_keep(struct db *db, const char *scope, double granularity_s,
                                  const struct db_coverage_day *keep, size_t n,
                                  struct error *err)
{
    struct buf b_days = {0};
    char g[40];
    enum status rc;

    if (!days_literal(keep, n, &b_days)) {
        free(b_days.p);
        return error_set(err, STATUS_NOMEM, "days of coverage %s", scope);
    }
    const char *vals[3] = {scope, b_days.p, param_double(g, granularity_s)};
    PGresult *r = NULL;
    /* A day gone takes its intervals, T_i − Δ in the day: each a range of the
     * primary key (joined to the days gone, the planner walked every interval of the
     * scope, 58 ms on 30 days of 1 s, for none). */
    rc = exec_params(db,
                     "DELETE FROM coverage_days WHERE scope = $1 AND "
                     "day <> ALL ($2::bigint[]) RETURNING day",
                     2, vals, &r, err);
    for (int i = 0; rc == STATUS_OK && i < PQntuples(r); i++) {
        const char *del[3] = {scope, PQgetvalue(r, i, 0), vals[2]};
        rc = exec_params_cmd(db,
                             "DELETE FROM coverage_intervals WHERE scope = $1 AND "
                             "end_s >= $2::bigint * 86400.0 + $3::float8 AND "
                             "end_s < ($2::bigint + 1) * 86400.0 + $3::float8",
                             3, del, err);
        double gone = strtod(PQgetvalue(r, i, 0), NULL);
        if (rc == STATUS_OK) {
            rc = pre_delete(db, scope, granularity_s, gone * 86400.0 + granularity_s,
                            (gone + 1) * 86400.0, err);
        }
    }
    PQclear(r);
    free(b_days.p);
    return rc;
}

enum status db_coverage_commit(struct db *db, const struct db_coverage *c, size_t n,
                               struct error *err)
{
    enum status rc = STATUS_OK;
    const char **scopes = malloc((n > 0 ? n : 1) * sizeof *scopes);
    struct buf b = {0};

    if (scopes == NULL)
        return error_set(err, STATUS_NOMEM, "coverage");
    for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
        char v[8][40];
        const char *vals[9] = {c[i].scope,
                               param_double(v[0], c[i].granularity_s),
                               param_double(v[1], c[i].coverage),
                               param_double(v[2], c[i].sum_d_bytes),
                               param_double(v[3], c[i].sum_s_bytes),
                               v[4],
                               param_double(v[5], c[i].d_total_bytes),
                               param_double(v[6], c[i].log_start_s),
                               param_double(v[7], c[i].log_end_s)};
        snprintf(v[4], sizeof v[4], "%ld", c[i].intervals);
        scopes[i] = c[i].scope;
        rc = exec_params_cmd(
            db,
            "INSERT INTO coverage (scope, granularity_s, coverage, sum_d_bytes, "
            "sum_s_bytes, intervals, d_total_bytes, log_start_s, log_end_s) VALUES "
            "($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (scope) DO UPDATE SET "
            "granularity_s = EXCLUDED.granularity_s, coverage = EXCLUDED.coverage, "
            "sum_d_bytes = EXCLUDED.sum_d_bytes, sum_s_bytes = EXCLUDED.sum_s_bytes, "
            "intervals = EXCLUDED.intervals, d_total_bytes = EXCLUDED.d_total_bytes, "
            "log_start_s = EXCLUDED.log_start_s, log_end_s = EXCLUDED.log_end_s, "
            "computed_at = now()",
            9, vals, err);
    }
    if (rc == STATUS_OK && !buf_text_array(&b, scopes, n))
        rc = error_set(err, STATUS_NOMEM, "coverage");
    if (rc == STATUS_OK) {
        const char *vals[1] = {b.p};
        rc = exec_params_cmd(db, "DELETE FROM coverage WHERE scope <> ALL ($1::text[])",
                             1, vals, err);
    }
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK)
        rollback(db);
    free(scopes);
    free(b.p);
    return rc;
}
