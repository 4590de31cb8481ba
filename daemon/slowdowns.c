/* slowdowns.c: the routes of the stored KDE away from its 16 points: a group's predicted
 * band at one x (/groups/{id}/predict) and who got hurt in a period (/slowdowns). */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOWDOWNS_LIMIT_DEFAULT 100
#define SLOWDOWNS_LIMIT_MAX     1000

/* A number of the query into *out (unchanged when absent); false when answered 400
 * naming it. */
static bool query_number(struct MHD_Connection *conn, struct request *req,
                         const char *name, double *out)
{
    const char *v = query(conn, name);
    char *end = NULL;

    if (v == NULL)
        return true;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(d)) {
        answer_error(req, STATUS_INVALID, name, "%s must be a number", name);
        return false;
    }
    *out = d;
    return true;
}

/* A job for the compute pool with the pair of the query (default t_d, psi_d_read);
 * NULL when answered (400 for an unknown metric, before a computing thread is taken;
 * no memory). */
static struct compute_task *hurt_job(struct MHD_Connection *conn, struct request *req,
                                     const char *what)
{
    const char *y, *x;
    struct error err = {0};

    if (!metric_pair(conn, req, &y, &x))
        return NULL;
    struct compute_task *job = calloc(1, sizeof *job);
    if (job == NULL) {
        answer_failure(req, STATUS_NOMEM, &err, what, NULL);
        return NULL;
    }
    /* known metrics: short */
    snprintf(job->y, sizeof job->y, "%s", y);
    snprintf(job->x, sizeof job->x, "%s", x);
    return job;
}

/* /predict on a thread of the compute pool. */
static void predict_run(struct compute_task *job)
{
    struct server *srv = job->srv;
    struct request *req = job->req;
    struct error err = {0};
    struct band_result p;
    struct db *db = pool_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "predict", NULL);
        return;
    }
    enum status rc = analysis_band_at(db, &srv->s->analysis, job->group_id, job->y,
                                      job->x, job->granularity_s, job->x_value, &p, &err);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "predict", "granularity");
        /* docs/interfaces.md: a granularity never stored names those that are */
        if (rc == STATUS_NOT_FOUND && job->granularity_given)
            add_stored_granularities(req, db, job->group_id, job->y, job->x);
        pool_release(srv, db, rc);
        return;
    }
    pool_release(srv, db, rc);
    answer_json_take(req, 200, analysis_band_json(&p));
}

/* q05, q50, q95 of y at x_value from the KDE analyze stored, and the forest's fit:
 * computed on the compute pool (it loads the group's jobs and samples), never on an
 * HTTP thread. */
void route_predict(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *group_id = a->id;
    double granularity_s = 0, x_value = NAN;

    if (group_id == NULL) {
        answer_no_such(req, "group");
        return;
    }
    if (query(conn, "x_value") == NULL) {
        answer_error(req, STATUS_INVALID, "x_value", "x_value is required");
        return;
    }
    if (!query_number(conn, req, "x_value", &x_value) ||
        !query_granularity(conn, req, &granularity_s))
        return;
    struct compute_task *job = hurt_job(conn, req, "predict");
    if (job == NULL)
        return;
    snprintf(job->group_id, sizeof job->group_id, "%s", group_id);
    job->granularity_s = granularity_s;
    job->granularity_given = query(conn, "granularity") != NULL;
    job->x_value = x_value;
    compute_task_submit(srv, conn, req, job, predict_run);
}

/* /slowdowns on a thread of the compute pool. */
static void slowdowns_run(struct compute_task *job)
{
    struct server *srv = job->srv;
    struct request *req = job->req;
    struct error err = {0};
    struct slowdowns sl;
    struct db *db = pool_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "slowdowns", NULL);
        return;
    }
    struct group_match m = {0};
    enum status rc = STATUS_OK;
    if (job->group_arg[0] != '\0') {
        rc = analysis_group_resolve(db, job->group_arg, &m, &err);
        if (rc == STATUS_INVALID || rc == STATUS_NOT_FOUND) {
            pool_release(srv, db, STATUS_OK);
            answer_group_refused(req, &m, &err);
            group_match_clear(&m);
            return;
        }
    }
    if (rc == STATUS_OK) {
        rc = analysis_slowdowns(db, &srv->s->analysis, job->from_s, job->to_s,
                                job->group_arg[0] != '\0' ? m.group.id : NULL, job->y,
                                job->x, job->granularity_s, job->limit, &sl, &err);
    }
    group_match_clear(&m);
    pool_release(srv, db, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "slowdowns", "granularity");
        return;
    }
    answer_json_take(req, 200, analysis_slowdowns_json(&sl));
    slowdowns_clear(&sl);
}

/* Who got hurt in [from, to): the jobs ranked by y / q50(x) of their group, computed
 * on the compute pool. */
void route_slowdowns(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *limit_s = query(conn, "limit");
    double from_s = NAN, to_s = NAN, granularity_s = 0;
    size_t limit = SLOWDOWNS_LIMIT_DEFAULT;

    if (limit_s != NULL) {
        size_t len = strlen(limit_s);
        long n = len > 0 && len <= 4 && strspn(limit_s, "0123456789") == len
                     ? strtol(limit_s, NULL, 10)
                     : -1;
        if (n < 1 || n > SLOWDOWNS_LIMIT_MAX) {
            answer_error(req, STATUS_INVALID, "limit",
                         "limit must be an integer from 1 to %d", SLOWDOWNS_LIMIT_MAX);
            return;
        }
        limit = (size_t)n;
    }
    if (!query_range(conn, req, &from_s, &to_s) ||
        !query_granularity(conn, req, &granularity_s))
        return;
    const char *group = query(conn, "group");
    if (group != NULL && (group[0] == '\0' || strlen(group) >= 160)) {
        answer_error(req, STATUS_INVALID, "group", "group must be a group's id or name");
        return;
    }
    struct compute_task *job = hurt_job(conn, req, "slowdowns");
    if (job == NULL)
        return;
    snprintf(job->group_arg, sizeof job->group_arg, "%s", group != NULL ? group : "");
    job->from_s = from_s;
    job->to_s = to_s;
    job->granularity_s = granularity_s;
    job->limit = limit;
    compute_task_submit(srv, conn, req, job, slowdowns_run);
}
