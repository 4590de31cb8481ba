/* db_jobs.c: the jobs and samples an analysis reads, and the API's pages of jobs. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void db_jobs_free(struct db_jobs *jobs)
{
    if (jobs == NULL)
        return;
    free(jobs->jobs);
    free(jobs->all_windows);
    free(jobs->all_x_windows);
    free(jobs);
}

/* The three queries of a job list: the jobs, their windows and their trace's
 * operation windows, each filtered by the same condition on $1 over jobs j and
 * ordered by (j.start_time, j.job_key). */
struct jobs_sql {
    const char *jobs, *windows, *x_windows;
};

/* The log family's columns last, from JOBS_LOG_COL on. */
#define JOBS_Q(where)                                                                    \
    "SELECT j.job_key, j.jobid, j.group_id, j.start_time, j.incomplete_log, "            \
    "CASE WHEN t.job_key IS NULL THEN 0 WHEN t.incomplete THEN 2 ELSE 1 "                \
    "END" DB_LOG_COLUMNS_J                                                               \
    " FROM jobs j LEFT JOIN job_traces t ON t.job_key = j.job_key "                      \
    "WHERE " where " ORDER BY j.start_time, j.job_key"
#define JOBS_LOG_COL 6
#define WINDOWS_Q(where)                                                                 \
    "SELECT w.job_key, w.is_write, w.start_s, w.end_s, w.fs, w.bytes "                   \
    "FROM job_windows w JOIN jobs j USING (job_key) "                                    \
    "WHERE " where " ORDER BY j.start_time, j.job_key, w.start_s"
#define X_WINDOWS_Q(where)                                                               \
    "SELECT x.job_key, x.is_write, x.start_s, x.end_s, x.fs "                            \
    "FROM job_x_windows x JOIN job_traces t ON t.job_key = x.job_key "                   \
    "JOIN jobs j ON j.job_key = x.job_key "                                              \
    "WHERE NOT t.incomplete AND " where " "                                              \
    "ORDER BY j.start_time, j.job_key, x.start_s, x.end_s, x.is_write"
#define OF_GROUP_WHERE "($1::text IS NULL OR " J_IN_GROUP_1 ")"
#define OF_KEYS_WHERE  "j.job_key = ANY($1::text[])"

static enum status jobs_load(struct db *db, const struct jobs_sql *sql, const char *param,
                             struct db_jobs **out, struct error *err)
{
    const char *vals[1] = {param};
    PGresult *r = NULL, *w = NULL, *xw = NULL;
    struct db_jobs *jobs = NULL;
    enum status rc;

    *out = NULL;
    /* trace: 0 none, 1 whole, 2 incomplete (enum db_trace). */
    rc = exec_params(db, sql->jobs, 1, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    rc = exec_params(db, sql->windows, 1, vals, &w, err);
    if (rc != STATUS_OK)
        goto out;
    /* The operation windows of whole traces only (docs/method.md §10: an incomplete
     * trace gives no _x metric), in the jobs' order. */
    rc = exec_params(db, sql->x_windows, 1, vals, &xw, err);
    if (rc != STATUS_OK)
        goto out;
    jobs = calloc(1, sizeof *jobs);
    size_t n = (size_t)PQntuples(r), nw = (size_t)PQntuples(w),
           nx = (size_t)PQntuples(xw);
    if (jobs == NULL || (n > 0 && (jobs->jobs = calloc(n, sizeof *jobs->jobs)) == NULL) ||
        (nw > 0 && (jobs->all_windows = calloc(nw, sizeof *jobs->all_windows)) == NULL) ||
        (nx > 0 &&
         (jobs->all_x_windows = calloc(nx, sizeof *jobs->all_x_windows)) == NULL)) {
        rc = error_set(err, STATUS_NOMEM, "jobs of a group");
        goto out;
    }
    jobs->n = n;
    jobs->n_all_windows = nw;
    jobs->n_all_x_windows = nx;
    size_t k = 0, kx = 0;
    for (size_t i = 0; i < n; i++) {
        struct db_job *j = &jobs->jobs[i];
        int row = (int)i;
        copy_text(j->job_key, sizeof j->job_key, r, row, 0);
        copy_text(j->jobid, sizeof j->jobid, r, row, 1);
        copy_text(j->group_id, sizeof j->group_id, r, row, 2);
        j->start_s = (double)get_int64(r, row, 3);
        db_family_load(&db_family_log, r, row, JOBS_LOG_COL, j->log);
        j->end_s = j->start_s + j->log[LOG_T_J].f8;
        j->incomplete_log = PQgetvalue(r, row, 4)[0] == 't';
        j->windows = jobs->all_windows + k;
        while (k < nw && strcmp(PQgetvalue(w, (int)k, 0), j->job_key) == 0) {
            struct db_window *dw = &jobs->all_windows[k];
            dw->is_write = PQgetvalue(w, (int)k, 1)[0] == 't';
            dw->start_s = get_double(w, (int)k, 2);
            dw->end_s = get_double(w, (int)k, 3);
            dw->monitored = !PQgetisnull(w, (int)k, 4);
            copy_text(dw->fs, sizeof dw->fs, w, (int)k, 4);
            dw->bytes = get_int64(w, (int)k, 5);
            j->n_windows++;
            k++;
        }
        const char *trace = PQgetvalue(r, row, 5);
        j->trace = trace[0] == '1'   ? DB_TRACE_WHOLE
                   : trace[0] == '2' ? DB_TRACE_INCOMPLETE
                                     : DB_TRACE_NONE;
        j->x_windows = jobs->all_x_windows + kx;
        while (kx < nx && strcmp(PQgetvalue(xw, (int)kx, 0), j->job_key) == 0) {
            struct db_window *dw = &jobs->all_x_windows[kx];
            dw->is_write = PQgetvalue(xw, (int)kx, 1)[0] == 't';
            dw->start_s = get_double(xw, (int)kx, 2);
            dw->end_s = get_double(xw, (int)kx, 3);
            dw->monitored = !PQgetisnull(xw, (int)kx, 4);
            copy_text(dw->fs, sizeof dw->fs, xw, (int)kx, 4);
            dw->bytes = 0;
            j->n_x_windows++;
            kx++;
        }
    }
    *out = jobs;
    jobs = NULL;
out:
    db_jobs_free(jobs);
    PQclear(r);
    PQclear(w);
    PQclear(xw);
    return rc;
}

enum status db_jobs_of_group(struct db *db, const char *group_id, struct db_jobs **out,
                             struct error *err)
{
    static const struct jobs_sql sql = {JOBS_Q(OF_GROUP_WHERE), WINDOWS_Q(OF_GROUP_WHERE),
                                        X_WINDOWS_Q(OF_GROUP_WHERE)};

    return jobs_load(db, &sql, group_id, out, err);
}

enum status db_jobs_of_keys(struct db *db, const char *const *job_keys, size_t n,
                            struct db_jobs **out, struct error *err)
{
    static const struct jobs_sql sql = {JOBS_Q(OF_KEYS_WHERE), WINDOWS_Q(OF_KEYS_WHERE),
                                        X_WINDOWS_Q(OF_KEYS_WHERE)};
    char *array = NULL;
    size_t size = 3;
    enum status rc;

    /* A text[] literal: the keys are hex (db_job_key), so none needs quoting. */
    *out = NULL;
    for (size_t i = 0; i < n; i++)
        size += strlen(job_keys[i]) + 1;
    array = malloc(size);
    if (array == NULL)
        return error_set(err, STATUS_NOMEM, "job keys");
    char *p = array;
    *p++ = '{';
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(job_keys[i]);
        if (len == 0 || strspn(job_keys[i], "0123456789abcdefABCDEF") != len) {
            free(array);
            return error_set(err, STATUS_INVALID, "job key %.40s is not hex",
                             job_keys[i]);
        }
        if (i > 0)
            *p++ = ',';
        memcpy(p, job_keys[i], len);
        p += len;
    }
    *p++ = '}';
    *p = '\0';
    rc = jobs_load(db, &sql, array, out, err);
    free(array);
    return rc;
}

void db_streams_free(struct db_streams *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->streams[i].end_s);
        free(s->streams[i].r);
        free(s->streams[i].w);
        free(s->streams[i].ro);
        free(s->streams[i].wo);
        free(s->streams[i].ops_total);
    }
    for (size_t i = 0; i < s->n_servers; i++)
        free(s->servers[i]);
    free(s->streams);
    free(s->servers);
    free(s->server_of);
    free(s);
}

static bool stream_alloc(struct db_stream *st, size_t n)
{
    st->end_s = malloc(n * sizeof(double));
    st->r = malloc(n * sizeof(double));
    st->w = malloc(n * sizeof(double));
    st->ro = malloc(n * sizeof(double));
    st->wo = malloc(n * sizeof(double));
    st->ops_total = malloc(6 * n * sizeof(double));
    if (st->ops_total != NULL) {
        st->aqu_sz = st->ops_total + n;
        st->util_pct = st->ops_total + 2 * n;
        st->r_await_ms = st->ops_total + 3 * n;
        st->w_await_ms = st->ops_total + 4 * n;
        st->await_ms = st->ops_total + 5 * n;
    }
    return st->end_s != NULL && st->r != NULL && st->w != NULL && st->ro != NULL &&
           st->wo != NULL && st->ops_total != NULL;
}

enum status db_streams_query(struct db *db, const char *sql, int n_vals,
                             const char *const *vals, double offset_s,
                             struct db_streams **out, struct error *err)
{
    PGresult *r;
    struct db_streams *s = NULL;
    enum status rc;

    *out = NULL;
    rc = exec_params(db, sql, n_vals, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t rows = (size_t)PQntuples(r);
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        rc = error_set(err, STATUS_NOMEM, "sample streams");
        goto out;
    }
    /* Two passes: count the streams and their lengths, then fill. */
    size_t start = 0;
    while (start < rows) {
        size_t end = start + 1;
        while (end < rows &&
               strcmp(PQgetvalue(r, (int)end, 0), PQgetvalue(r, (int)start, 0)) == 0 &&
               strcmp(PQgetvalue(r, (int)end, 1), PQgetvalue(r, (int)start, 1)) == 0 &&
               strcmp(PQgetvalue(r, (int)end, 2), PQgetvalue(r, (int)start, 2)) == 0)
            end++;
        struct db_stream *grown = realloc(s->streams, (s->n + 1) * sizeof *grown);
        size_t *grown_of = realloc(s->server_of, (s->n + 1) * sizeof *grown_of);
        if (grown != NULL)
            s->streams = grown;
        if (grown_of != NULL)
            s->server_of = grown_of;
        if (grown == NULL || grown_of == NULL) {
            rc = error_set(err, STATUS_NOMEM, "sample streams");
            goto out;
        }
        struct db_stream *st = &s->streams[s->n];
        memset(st, 0, sizeof *st);
        s->n++;
        copy_text(st->fs, sizeof st->fs, r, (int)start, 0);
        copy_text(st->server, sizeof st->server, r, (int)start, 1);
        copy_text(st->device, sizeof st->device, r, (int)start, 2);
        st->interval_s = get_double(r, (int)start, 4);
        if (!stream_alloc(st, end - start)) {
            rc = error_set(err, STATUS_NOMEM, "sample streams");
            goto out;
        }
        for (size_t i = start; i < end; i++) {
            size_t k = i - start;
            st->end_s[k] = (double)get_int64(r, (int)i, 3) + offset_s;
            st->r[k] = get_double(r, (int)i, 5);
            st->w[k] = get_double(r, (int)i, 6);
            st->ro[k] = get_double(r, (int)i, 7);
            st->wo[k] = get_double(r, (int)i, 8);
            /* ops_total, then the queue columns, each a block of the stream's n. */
            for (int c = 0; c < 6; c++) {
                st->ops_total[(size_t)c * (end - start) + k] =
                    get_double(r, (int)i, 9 + c);
            }
        }
        st->n = end - start;
        /* The server index: servers are "fs/server" in the order first seen. */
        char name[200];
        snprintf(name, sizeof name, "%s/%s", st->fs, st->server);
        size_t idx = s->n_servers;
        for (size_t i = 0; i < s->n_servers; i++) {
            if (strcmp(s->servers[i], name) == 0)
                idx = i;
        }
        if (idx == s->n_servers) {
            char **grown_names =
                realloc(s->servers, (s->n_servers + 1) * sizeof *grown_names);
            if (grown_names == NULL) {
                rc = error_set(err, STATUS_NOMEM, "sample streams");
                goto out;
            }
            s->servers = grown_names;
            s->servers[s->n_servers] = str_dup(name);
            if (s->servers[s->n_servers] == NULL) {
                rc = error_set(err, STATUS_NOMEM, "sample streams");
                goto out;
            }
            s->n_servers++;
        }
        s->server_of[s->n - 1] = idx;
        start = end;
    }
    *out = s;
    s = NULL;
out:
    db_streams_free(s);
    PQclear(r);
    return rc;
}

enum status db_jobs_extent(struct db *db, bool *any, double *first_start_s,
                           double *last_end_s, struct error *err)
{
    PGresult *r;
    enum status rc = exec_params(db, "SELECT min(start_time), max(end_time) FROM jobs", 0,
                                 NULL, &r, err);

    *any = false;
    *first_start_s = *last_end_s = 0;
    if (rc != STATUS_OK)
        return rc;
    *any = !PQgetisnull(r, 0, 0);
    if (*any) {
        *first_start_s = (double)get_int64(r, 0, 0);
        *last_end_s = (double)get_int64(r, 0, 1);
    }
    PQclear(r);
    return STATUS_OK;
}

void db_spans_clear(struct db_spans *s)
{
    free(s->lo);
    free(s->hi);
    *s = (struct db_spans){0};
}

enum status db_jobs_spans(struct db *db, const char *group_id, double margin_s,
                          struct db_spans *out, struct error *err)
{
    char margin[40];
    const char *vals[2] = {group_id, margin};
    PGresult *r;

    *out = (struct db_spans){0};
    snprintf(margin, sizeof margin, "%.17g", margin_s);
    /* Islands of overlapping spans: a span starts a new one when it starts after
     * every span before it (by start) has ended. A job's times are whole seconds,
     * its log's within [start, end + 1). The group's jobs by the two indexes, apart
     * (an OR of them plans a scan). */
    enum status rc = exec_params(
        db,
        "WITH b AS (SELECT start_time - $2::float8 AS lo, "
        "  end_time + 1 + $2::float8 AS hi FROM jobs WHERE $1::text IS NULL "
        "  UNION ALL SELECT start_time - $2::float8, end_time + 1 + $2::float8 "
        "  FROM jobs WHERE group_id = $1 "
        "  UNION ALL SELECT j.start_time - $2::float8, j.end_time + 1 + $2::float8 "
        "  FROM group_members m JOIN jobs j USING (job_key) WHERE m.group_id = $1), "
        "o AS (SELECT lo, hi, max(hi) OVER (ORDER BY lo, hi ROWS BETWEEN UNBOUNDED "
        "  PRECEDING AND 1 PRECEDING) AS before FROM b), "
        "g AS (SELECT lo, hi, sum(CASE WHEN before IS NULL OR lo > before THEN 1 "
        "  ELSE 0 END) OVER (ORDER BY lo, hi ROWS UNBOUNDED PRECEDING) AS island FROM o) "
        "SELECT min(lo), max(hi) FROM g GROUP BY island ORDER BY 1",
        2, vals, &r, err);
    if (rc != STATUS_OK)
        return rc;
    size_t n = (size_t)PQntuples(r);
    out->lo = malloc((n > 0 ? n : 1) * sizeof(double));
    out->hi = malloc((n > 0 ? n : 1) * sizeof(double));
    if (out->lo == NULL || out->hi == NULL) {
        PQclear(r);
        db_spans_clear(out);
        return error_set(err, STATUS_NOMEM, "spans of %zu jobs", n);
    }
    for (size_t i = 0; i < n; i++) {
        out->lo[i] = get_double(r, (int)i, 0);
        out->hi[i] = get_double(r, (int)i, 1);
    }
    out->n = n;
    PQclear(r);
    return STATUS_OK;
}

static void fill_job_row(void *row_out, const PGresult *r, int row)
{
    struct db_job_row *j = row_out;

    copy_text(j->job_key, sizeof j->job_key, r, row, 0);
    copy_text(j->jobid, sizeof j->jobid, r, row, 1);
    copy_text(j->group_id, sizeof j->group_id, r, row, 2);
    copy_text(j->exe, sizeof j->exe, r, row, 3);
    j->uid = get_int64(r, row, 4);
    j->nprocs = get_int64(r, row, 5);
    j->start_time = get_int64(r, row, 6);
    j->end_time = get_int64(r, row, 7);
    db_family_load(&db_family_log, r, row, 8, j->log);
}

enum status db_jobs_page(struct db *db, const char *cursor, double from_s, double to_s,
                         const char *group_id, size_t limit, struct db_job_row **rows,
                         size_t *n, char next_cursor[80], struct error *err)
{
    char c_start[32] = "", c_key[40] = "", from[40], to[40], lim[24];
    const char *vals[6];
    void *page;
    size_t got;
    enum status rc;

    *rows = NULL;
    *n = 0;
    next_cursor[0] = '\0';
    if (cursor != NULL && cursor[0] != '\0') {
        const char *colon = strchr(cursor, ':');
        if (colon == NULL || colon == cursor ||
            (size_t)(colon - cursor) >= sizeof c_start || strlen(colon + 1) != 32)
            return error_set(err, STATUS_INVALID, "cursor is not one this API gave");
        memcpy(c_start, cursor, (size_t)(colon - cursor));
        c_start[colon - cursor] = '\0';
        snprintf(c_key, sizeof c_key, "%s", colon + 1);
        char *end;
        errno = 0;
        (void)strtoll(c_start, &end, 10);
        if (*end != '\0' || errno != 0)
            return error_set(err, STATUS_INVALID, "cursor is not one this API gave");
    }
    snprintf(from, sizeof from, "%.17g", from_s);
    snprintf(to, sizeof to, "%.17g", to_s);
    snprintf(lim, sizeof lim, "%zu", limit + 1);
    vals[0] = c_start[0] != '\0' ? c_start : NULL;
    vals[1] = c_key[0] != '\0' ? c_key : NULL;
    vals[2] = isnan(from_s) ? NULL : from;
    vals[3] = isnan(to_s) ? NULL : to;
    vals[4] = group_id;
    vals[5] = lim;
    /* One row more than the page says whether there is a next one. */
    rc = fetch_rows(
        db,
        "SELECT job_key, jobid, group_id, exe, uid, nprocs, start_time, "
        "end_time" DB_LOG_COLUMNS " FROM jobs WHERE "
        "($1::bigint IS NULL OR (start_time, job_key) > ($1::bigint, $2::text)) "
        "AND ($3::float8 IS NULL OR start_time + t_j >= $3::float8) "
        "AND ($4::float8 IS NULL OR start_time < $4::float8) "
        "AND ($5::text IS NULL OR " IN_GROUP_5 ") "
        "ORDER BY start_time, job_key LIMIT $6::bigint",
        6, vals, sizeof **rows, fill_job_row, "jobs page", &page, &got, err);
    if (rc != STATUS_OK)
        return rc;
    *rows = page;
    *n = got > limit ? limit : got;
    if (*n == 0) {
        free(page);
        *rows = NULL;
    } else if (got > limit) {
        snprintf(next_cursor, 80, "%lld:%s", (long long)(*rows)[*n - 1].start_time,
                 (*rows)[*n - 1].job_key);
    }
    return STATUS_OK;
}
