/* db_series.c: the system-wide series of each file system as ingest keeps it
 * (migration 0017): its settings, the days to recompute, the raw samples of a day,
 * and the rows an analysis reads. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum status db_series_settings_get(struct db *db, struct db_series_settings *out,
                                   struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(
        db,
        "SELECT theta_s, delta_s, NOT EXISTS (SELECT 1 FROM series_days) FROM "
        "series_settings",
        0, NULL, &r, err);

    memset(out, 0, sizeof *out);
    if (rc != STATUS_OK)
        return rc;
    out->built = PQntuples(r) > 0;
    if (out->built) {
        out->theta_s = get_double(r, 0, 0);
        out->delta_s = get_double(r, 0, 1);
        out->empty = PQgetvalue(r, 0, 2)[0] == 't';
    }
    PQclear(r);
    return STATUS_OK;
}

enum status db_series_rebuild_begin(struct db *db, double theta_s, double delta_s,
                                    long long *days, struct error *err)
{
    char th[40], de[40];
    const char *vals[2] = {th, de};
    PGresult *r = NULL;
    enum status rc;

    *days = 0;
    snprintf(th, sizeof th, "%.17g", theta_s);
    snprintf(de, sizeof de, "%.17g", delta_s);
    rc = exec_cmd(db, "BEGIN", err);
    /* Every day a sample reaches is dirty, every file system's grid unset: the next
     * refresh recomputes them all with these settings. One scan of the samples. */
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(
            db,
            "INSERT INTO series_settings (theta_s, delta_s) VALUES ($1, $2) "
            "ON CONFLICT (id) DO UPDATE SET theta_s = EXCLUDED.theta_s, "
            "delta_s = EXCLUDED.delta_s, built_at = now()",
            2, vals, err);
    }
    if (rc == STATUS_OK) {
        rc = exec_cmd(
            db,
            "DELETE FROM series_fs; "
            "INSERT INTO series_fs (fs, interval_s) "
            "SELECT fs, max(interval_s) FROM samples GROUP BY fs; "
            "DELETE FROM series WHERE fs NOT IN (SELECT fs FROM series_fs); "
            "DELETE FROM series_days WHERE fs NOT IN (SELECT fs FROM series_fs); "
            /* and the coverage's days, kept by the md5 of what they read:
             * a rebuild computes them afresh too */
            "DELETE FROM coverage_days",
            err);
    }
    if (rc == STATUS_OK) {
        rc = exec_params(
            db,
            "INSERT INTO series_dirty (fs, day) "
            "SELECT DISTINCT s.fs, m.d FROM samples s JOIN series_fs f USING (fs), "
            "LATERAL series_mark(s.stamp_s, s.interval_s, greatest(f.interval_s, $2), "
            "$1) m(d) "
            "UNION SELECT fs, day FROM series_days "
            "ON CONFLICT (fs, day) DO UPDATE SET gen = nextval('series_dirty_gen')",
            2, vals, &r, err);
    }
    if (rc == STATUS_OK) {
        *days = strtoll(PQcmdTuples(r), NULL, 10);
        PQclear(r);
        rc = exec_cmd(db, "COMMIT", err);
    }
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

static void fill_fs(void *row, const PGresult *r, int i)
{
    struct db_series_fs *f = row;

    copy_text(f->fs, sizeof f->fs, r, i, 0);
    f->interval_s = get_double(r, i, 1);
    f->delta_s = get_double(r, i, 2);
}

enum status db_series_fs_list(struct db *db, struct db_series_fs **out, size_t *n,
                              struct error *err)
{
    void *rows;
    enum status rc = fetch_rows(db,
                                "SELECT fs, interval_s, delta_s FROM series_fs "
                                "ORDER BY fs",
                                0, NULL, sizeof **out, fill_fs,
                                "file systems of the series", &rows, n, err);

    *out = rc == STATUS_OK ? rows : NULL;
    return rc;
}

enum status db_series_fs_regrid(struct db *db, const char *fs, double delta_s,
                                struct error *err)
{
    char de[40];
    const char *vals[2] = {fs, de};
    enum status rc;

    snprintf(de, sizeof de, "%.17g", delta_s);
    rc = exec_cmd(db, "BEGIN", err);
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(db, "UPDATE series_fs SET delta_s = $2 WHERE fs = $1", 2,
                             vals, err);
    }
    if (rc == STATUS_OK)
        rc = exec_params_cmd(db, "DELETE FROM series WHERE fs = $1", 1, vals, err);
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(
            db,
            "INSERT INTO series_dirty (fs, day) SELECT fs, day FROM series_days "
            "WHERE fs = $1 UNION SELECT fs, day FROM series_dirty WHERE fs = $1 "
            "ON CONFLICT (fs, day) DO UPDATE SET gen = nextval('series_dirty_gen')",
            1, vals, err);
    }
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

static void fill_dirty(void *row, const PGresult *r, int i)
{
    struct db_series_day *d = row;

    copy_text(d->fs, sizeof d->fs, r, i, 0);
    d->day = get_int64(r, i, 1);
    d->gen = get_int64(r, i, 2);
}

enum status db_series_dirty_list(struct db *db, const char *fs, int64_t lo_day,
                                 int64_t hi_day, struct db_series_day **out, size_t *n,
                                 struct error *err)
{
    char lo[24], hi[24];
    const char *vals[3] = {fs, lo, hi};
    void *rows;
    enum status rc;

    snprintf(lo, sizeof lo, "%lld", (long long)lo_day);
    snprintf(hi, sizeof hi, "%lld", (long long)hi_day);
    rc = fetch_rows(db,
                    "SELECT fs, day, gen FROM series_dirty WHERE ($1::text IS NULL OR "
                    "fs = $1) AND day BETWEEN $2 AND $3 ORDER BY fs, day",
                    3, vals, sizeof **out, fill_dirty, "days of the series", &rows, n,
                    err);
    *out = rc == STATUS_OK ? rows : NULL;
    return rc;
}

enum status db_series_day_samples(struct db *db, const char *fs, int64_t lo_s,
                                  int64_t hi_s, double offset_s, struct db_streams **out,
                                  struct error *err)
{
    char lo[24], hi[24];
    const char *vals[3] = {fs, lo, hi};

    snprintf(lo, sizeof lo, "%lld", (long long)lo_s);
    snprintf(hi, sizeof hi, "%lld", (long long)hi_s);
    return db_streams_query(
        db,
        "SELECT fs, server, device, stamp_s, interval_s, r_bps, w_bps, ro_ps, "
        "wo_ps, ops_total_ps, aqu_sz, util_pct, r_await_ms, w_await_ms, await_ms "
        "FROM samples WHERE fs = $1 AND stamp_s BETWEEN $2 AND $3 "
        "ORDER BY fs, server, device, stamp_s",
        3, vals, offset_s, out, err);
}

enum status db_series_day_store(struct db *db, const struct db_series_day *day,
                                double delta_s, int64_t j_lo, int64_t j_hi,
                                const struct db_series_row *rows, size_t n,
                                const struct db_series_day_facts *facts, bool *current,
                                struct error *err)
{
    char d[24], g[24], jl[24], jh[24], dev[24], srv[24], smp[24];
    const char *vals[3] = {day->fs, d, g};
    PGresult *r = NULL;
    struct bincopy c;
    enum status rc;

    *current = false;
    snprintf(d, sizeof d, "%lld", (long long)day->day);
    snprintf(g, sizeof g, "%lld", (long long)day->gen);
    snprintf(jl, sizeof jl, "%lld", (long long)j_lo);
    snprintf(jh, sizeof jh, "%lld", (long long)j_hi);
    snprintf(dev, sizeof dev, "%zu", facts->devices);
    snprintf(srv, sizeof srv, "%zu", facts->servers);
    snprintf(smp, sizeof smp, "%lld", facts->samples);
    rc = exec_cmd(db, "BEGIN", err);
    /* One writer of a day at a time; and only what was computed from the day as it
     * is now dirty (the gen read), on the grid the file system is on now: a change
     * or a new grid since the read, or a writer before us, leaves it as it is. */
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(db,
                             "SELECT pg_advisory_xact_lock(hashtext($1), "
                             "(($2::bigint % 2147483647)::int))",
                             2, vals, err);
    }
    if (rc == STATUS_OK) {
        char de[40];
        snprintf(de, sizeof de, "%.17g", delta_s);
        rc = exec_params(db,
                         "SELECT EXISTS (SELECT 1 FROM series_dirty WHERE fs = $1 AND "
                         "day = $2 AND gen = $3) AND ($4::float8 = 0 OR "
                         "EXISTS (SELECT 1 FROM series_fs WHERE fs = $1 AND delta_s = "
                         "$4::float8))",
                         4, (const char *const[]){day->fs, d, g, de}, &r, err);
        if (rc == STATUS_OK) {
            bool go = PQgetvalue(r, 0, 0)[0] == 't';
            PQclear(r);
            r = NULL;
            if (!go) {
                rollback(db);
                return STATUS_OK;
            }
        }
    }
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(db,
                             "DELETE FROM series WHERE fs = $1 AND j BETWEEN $2 AND $3",
                             3, (const char *const[]){day->fs, jl, jh}, err);
    }
    if (rc == STATUS_OK && n > 0) {
        rc = bincopy_begin(&c, db,
                           "COPY series (fs, j, r, w, ro, wo, q, u, aw_num, aw_den, "
                           "devices, servers, present) FROM STDIN WITH (FORMAT binary)",
                           err);
        for (size_t i = 0; rc == STATUS_OK && i < n; i++) {
            const struct db_series_row *s = &rows[i];
            bincopy_row(&c, 13);
            bincopy_text(&c, day->fs);
            bincopy_int8(&c, s->j);
            bincopy_float8(&c, s->r);
            bincopy_float8(&c, s->w);
            bincopy_float8(&c, s->ro);
            bincopy_float8(&c, s->wo);
            bincopy_float8(&c, s->q);
            bincopy_float8(&c, s->u);
            bincopy_float8(&c, s->aw_num);
            bincopy_float8(&c, s->aw_den);
            bincopy_int4(&c, (int32_t)s->devices);
            bincopy_int4(&c, (int32_t)s->servers);
            bincopy_bool(&c, s->present);
        }
        if (rc == STATUS_OK)
            rc = bincopy_end(&c);
    }
    /* The day's digest hashes its rows as stored: what an analysis reads of it. */
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(
            db,
            "INSERT INTO series_days (fs, day, devices, servers, samples, digest) "
            "SELECT $1, $2, $5, $6, $7, md5(coalesce(string_agg(ROW(j, r, w, ro, wo, "
            "q, u, aw_num, aw_den, devices, servers, present)::text, ',' ORDER BY j), "
            "'')) FROM series WHERE fs = $1 AND j BETWEEN $3 AND $4 "
            "ON CONFLICT (fs, day) DO UPDATE SET devices = EXCLUDED.devices, "
            "servers = EXCLUDED.servers, samples = EXCLUDED.samples, "
            "digest = EXCLUDED.digest",
            7, (const char *const[]){day->fs, d, jl, jh, dev, srv, smp}, err);
    }
    /* A day without a sample left (an unload) keeps no row. */
    if (rc == STATUS_OK && facts->devices == 0) {
        rc = exec_params_cmd(db, "DELETE FROM series_days WHERE fs = $1 AND day = $2", 2,
                             vals, err);
    }
    /* Done unless a change since the read moved gen on: then it stays dirty. */
    if (rc == STATUS_OK) {
        rc = exec_params(db,
                         "DELETE FROM series_dirty WHERE fs = $1 AND day = $2 AND "
                         "gen = $3 RETURNING 1",
                         3, vals, &r, err);
    }
    if (rc == STATUS_OK) {
        *current = PQntuples(r) > 0;
        PQclear(r);
        rc = exec_cmd(db, "COMMIT", err);
    }
    if (rc != STATUS_OK)
        rollback(db);
    return rc;
}

void db_series_fs_data_free(struct db_series_fs_data *d)
{
    if (d == NULL)
        return;
    free(d->rows);
    free(d->days);
    free(d);
}

enum status db_series_bounds(struct db *db, const char *fs, int64_t j_lo, int64_t j_hi,
                             bool *any, int64_t *first, int64_t *last, struct error *err)
{
    char lo[32], hi[32];
    const char *vals[3] = {fs, lo, hi};
    PGresult *r;

    *any = false;
    *first = *last = 0;
    snprintf(lo, sizeof lo, "%lld", (long long)j_lo);
    snprintf(hi, sizeof hi, "%lld", (long long)j_hi);
    enum status rc = exec_params_binary(
        db,
        "SELECT (SELECT j FROM series WHERE fs = $1 AND j BETWEEN $2 AND $3 ORDER BY j "
        "LIMIT 1), (SELECT j FROM series WHERE fs = $1 AND j BETWEEN $2 AND $3 ORDER BY "
        "j DESC LIMIT 1)",
        3, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    rc = bin_check(r, "ll", "series bounds", err);
    if (rc == STATUS_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)) {
        *any = true;
        *first = bin_int64(r, 0, 0);
        *last = bin_int64(r, 0, 1);
    }
    PQclear(r);
    return rc;
}

/* fs's rows over the ranges of lo and hi (array literals) into data->rows, streamed
 * from a binary COPY: the rows alone are held, never a result of them. */
static enum status read_rows(struct db *db, const char *fs, const struct buf *lo,
                             const struct buf *hi, struct db_series_fs_data *data,
                             struct error *err)
{
    char *name = PQescapeLiteral(db->conn, fs, strlen(fs));
    struct buf sql = {0};
    struct copyout c;
    size_t cap = 0;
    enum status rc;

    if (name == NULL)
        return db_fail(db, err, "series rows");
    /* The ranges are ascending and disjoint: no row twice, and in j order range by
     * range. An index probe per range, kept apart (OFFSET 0): joined plainly, the
     * planner walks every row of the file system's history in j order instead
     * (3.4 s against 61 ms for a group's 60 ranges over a year of 60 s). COPY takes
     * no parameters: the name is quoted by libpq, the arrays are of integers. */
    bool ok = buf_printf(&sql,
                         "COPY (SELECT s.j, s.r, s.w, s.ro, s.wo, s.q, s.u, s.aw_num, "
                         "s.aw_den, s.devices, s.servers, s.present FROM "
                         "unnest('%s'::bigint[], '%s'::bigint[]) WITH ORDINALITY AS "
                         "g(lo, hi, i), LATERAL (SELECT * FROM series x WHERE x.fs = %s "
                         "AND x.j BETWEEN g.lo AND g.hi OFFSET 0) s ORDER BY g.i, s.j) "
                         "TO STDOUT WITH (FORMAT binary)",
                         lo->p, hi->p, name);
    PQfreemem(name);
    if (!ok) {
        free(sql.p);
        return error_set(err, STATUS_NOMEM, "series rows of %s", fs);
    }
    rc = copyout_begin(&c, db, sql.p, err);
    free(sql.p);
    if (rc != STATUS_OK)
        return rc;
    while (copyout_next(&c, 12)) {
        if (c.flen[0] != 8 || c.flen[9] != 4 || c.flen[10] != 4 || c.flen[11] != 1) {
            c.rc = error_set(err, STATUS_INTERNAL,
                             "series rows of %s: columns of other types", fs);
            break;
        }
        if (data->n_rows == cap) {
            size_t grown_cap = cap > 0 ? 2 * cap : 4096;
            struct db_series_row *grown = realloc(data->rows, grown_cap * sizeof *grown);
            if (grown == NULL) {
                c.rc = error_set(err, STATUS_NOMEM, "series rows of %s", fs);
                break;
            }
            data->rows = grown;
            cap = grown_cap;
        }
        struct db_series_row *s = &data->rows[data->n_rows++];
        s->j = copyout_int64(&c, 0);
        s->r = copyout_double(&c, 1);
        s->w = copyout_double(&c, 2);
        s->ro = copyout_double(&c, 3);
        s->wo = copyout_double(&c, 4);
        s->q = copyout_double(&c, 5);
        s->u = copyout_double(&c, 6);
        s->aw_num = copyout_double(&c, 7);
        s->aw_den = copyout_double(&c, 8);
        s->devices = (size_t)copyout_int32(&c, 9);
        s->servers = (size_t)copyout_int32(&c, 10);
        s->present = copyout_bool(&c, 11);
    }
    rc = copyout_end(&c);
    if (rc == STATUS_OK && data->rows == NULL) {
        data->rows = calloc(1, sizeof *data->rows);
        if (data->rows == NULL)
            rc = error_set(err, STATUS_NOMEM, "series rows of %s", fs);
    }
    return rc;
}

enum status db_series_read(struct db *db, const char *fs, const int64_t *j_lo,
                           const int64_t *j_hi, size_t n_ranges,
                           struct db_series_fs_data **out, struct error *err)
{
    struct buf lo = {0}, hi = {0};
    PGresult *d = NULL;
    struct db_series_fs_data *data = NULL;
    enum status rc;

    *out = NULL;
    if (!buf_int64_array(&lo, j_lo, n_ranges) || !buf_int64_array(&hi, j_hi, n_ranges)) {
        rc = error_set(err, STATUS_NOMEM, "%zu ranges of %s", n_ranges, fs);
        goto out;
    }
    const char *vals[3] = {fs, lo.p, hi.p};
    rc = exec_params_binary(
        db,
        "SELECT DISTINCT d.day, d.devices FROM unnest($2::bigint[], $3::bigint[]) "
        "AS g(lo, hi), series_fs f, series_days d "
        "WHERE f.fs = $1 AND f.delta_s > 0 AND d.fs = $1 AND d.day BETWEEN "
        "floor((g.lo - 1) * f.delta_s / 86400) - 1 AND "
        "floor(g.hi * f.delta_s / 86400) + 1 ORDER BY d.day",
        3, vals, &d, err);
    if (rc == STATUS_OK)
        rc = bin_check(d, "li", "series days", err);
    if (rc != STATUS_OK)
        goto out;
    size_t nd = (size_t)PQntuples(d);
    data = calloc(1, sizeof *data);
    if (data != NULL)
        data->days = calloc(nd > 0 ? nd : 1, sizeof *data->days);
    if (data == NULL || data->days == NULL) {
        rc = error_set(err, STATUS_NOMEM, "series of %s", fs);
        goto out;
    }
    data->n_days = nd;
    rc = read_rows(db, fs, &lo, &hi, data, err);
    if (rc != STATUS_OK)
        goto out;
    for (size_t i = 0; i < nd; i++) {
        data->days[i].day = bin_int64(d, (int)i, 0);
        data->days[i].devices = (size_t)bin_int32(d, (int)i, 1);
    }
    *out = data;
    data = NULL;
out:
    db_series_fs_data_free(data);
    PQclear(d);
    free(lo.p);
    free(hi.p);
    return rc;
}

enum status db_series_writable(struct db *db, bool *writable, struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(
        db, "SELECT has_table_privilege('series_dirty', 'DELETE')", 0, NULL, &r, err);

    *writable = false;
    if (rc != STATUS_OK)
        return rc;
    *writable = PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    return STATUS_OK;
}

enum status db_samples_fs_list(struct db *db, struct db_series_fs **out, size_t *n,
                               struct error *err)
{
    void *rows;
    /* the distinct file systems by a walk down the primary key, then each one's
     * coarsest interval */
    enum status rc = fetch_rows(
        db,
        "WITH RECURSIVE f(fs) AS ((SELECT fs FROM samples ORDER BY fs LIMIT 1) "
        "UNION ALL SELECT (SELECT s.fs FROM samples s WHERE s.fs > f.fs ORDER BY s.fs "
        "LIMIT 1) FROM f WHERE f.fs IS NOT NULL) "
        "SELECT f.fs, (SELECT max(interval_s) FROM samples s WHERE s.fs = f.fs), 0 "
        "FROM f WHERE f.fs IS NOT NULL ORDER BY f.fs",
        0, NULL, sizeof **out, fill_fs, "file systems of the samples", &rows, n, err);

    *out = rc == STATUS_OK ? rows : NULL;
    return rc;
}

enum status db_samples_any(struct db *db, bool *any, struct error *err)
{
    PGresult *r;
    enum status rc =
        exec_params(db, "SELECT EXISTS (SELECT 1 FROM samples)", 0, NULL, &r, err);

    *any = false;
    if (rc != STATUS_OK)
        return rc;
    *any = PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    return STATUS_OK;
}

enum status db_samples_extent(struct db *db, const char *fs, bool *any, int64_t *first,
                              int64_t *last, struct error *err)
{
    const char *vals[1] = {fs};
    PGresult *r;
    enum status rc =
        exec_params(db, "SELECT min(stamp_s), max(stamp_s) FROM samples WHERE fs = $1", 1,
                    vals, &r, err);

    *any = false;
    *first = *last = 0;
    if (rc != STATUS_OK)
        return rc;
    *any = !PQgetisnull(r, 0, 0);
    *first = get_int64(r, 0, 0);
    *last = get_int64(r, 0, 1);
    PQclear(r);
    return STATUS_OK;
}
