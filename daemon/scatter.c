/* scatter.c: the jobs behind a group's scatter (/groups/{id}/points): each job's x and
 * y of the association's job set, computed on the compute pool and kept in the
 * cache by the data version. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POINTS_LIMIT_DEFAULT 20000
#define POINTS_LIMIT_MAX     20000
#define POINTS_SEED_DEFAULT  20240601UL
/* GSL's MT19937 takes 32 bits of seed, and maps 0 to its default seed (4357). */
#define POINTS_SEED_MAX 4294967295UL

/* /points on a thread of the compute pool. */
static void points_run(struct compute_task *job)
{
    struct server *srv = job->srv;
    struct request *req = job->req;
    struct error err = {0};
    struct points_result p;
    struct db *db = pool_acquire(srv, &err);

    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "points", NULL);
        return;
    }
    enum status rc =
        analysis_points(db, &srv->s->analysis, job->group_id, job->y, job->x,
                        job->granularity_s, job->scope, job->limit, job->seed, &p, &err);
    pool_release(srv, db, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "points", "granularity");
        return;
    }
    answer_json_take(req, 200, analysis_points_json(&p));
    points_clear(&p);
}

/* The jobs of a group's scatter: every job of the association's job set (all up to
 * limit, else a seeded sample), computed on the compute pool, kept by the data
 * version. */
void route_points(struct server *srv, struct request *req, const struct route_args *a)
{
    struct MHD_Connection *conn = a->conn;
    const char *group_id = a->id;
    const char *y, *x, *scope = query(conn, "scope");
    double granularity_s = 0;
    unsigned long limit = POINTS_LIMIT_DEFAULT, seed = POINTS_SEED_DEFAULT;

    if (group_id == NULL) {
        answer_no_such(req, "group");
        return;
    }
    scope = scope != NULL ? scope : "all";
    if (!metric_pair(conn, req, &y, &x) ||
        !query_granularity(conn, req, &granularity_s) ||
        !query_integer(conn, req, "limit", 1, POINTS_LIMIT_MAX, &limit) ||
        !query_integer(conn, req, "seed", 1, POINTS_SEED_MAX, &seed))
        return;
    struct compute_task *job = compute_task_new(req, scope, "points");
    if (job == NULL)
        return;
    snprintf(job->group_id, sizeof job->group_id, "%s", group_id);
    snprintf(job->y, sizeof job->y, "%s", y); /* known metrics: short */
    snprintf(job->x, sizeof job->x, "%s", x);
    job->granularity_s = granularity_s;
    job->limit = limit;
    job->seed = seed;
    /* The answer depends on the data and on these alone: kept by the version read
     * before it is computed (http.c keeps it when the pool has answered). */
    job->version = cache_version(srv);
    snprintf(job->cache_key, sizeof job->cache_key, "points|%s|%s|%s|%.17g|%s|%lu|%lu",
             group_id, y, x, granularity_s, job->scope, limit, seed);
    if (cache_serve(srv, conn, req, job->cache_key, job->version)) {
        free(job);
        return;
    }
    compute_task_submit(srv, conn, req, job, points_run);
}
