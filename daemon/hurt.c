/* hurt.c: the routes of the stored KDE away from its 16 points: a group's predicted
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
 * naming it. positive: it must be > 0. */
static bool query_number(struct MHD_Connection *conn, struct request *req,
                         const char *name, bool positive, double *out)
{
    const char *v = query(conn, name);
    char *end = NULL;

    if (v == NULL)
        return true;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(d) ||
        (positive && !(d > 0))) {
        answer_error(req, STATUS_INVALID, name, "%s must be a %snumber", name,
                     positive ? "positive " : "");
        return false;
    }
    *out = d;
    return true;
}

/* q05, q50, q95 of y at x_value from the KDE analyze stored, and the forest's fit. */
void route_predict(struct server *srv, struct MHD_Connection *conn, struct request *req,
                   const char *group_id)
{
    const char *y = query(conn, "y"), *x = query(conn, "x");
    double granularity_s = 0, x_value = NAN;
    struct error err = {0};
    struct predict_result p;

    if (group_id == NULL) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no such group");
        return;
    }
    if (query(conn, "x_value") == NULL) {
        answer_error(req, STATUS_INVALID, "x_value", "x_value is required");
        return;
    }
    if (!query_number(conn, req, "x_value", false, &x_value) ||
        !query_number(conn, req, "granularity", true, &granularity_s))
        return;
    struct db *db = db_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "predict", NULL);
        return;
    }
    y = y != NULL ? y : "t_d";
    x = x != NULL ? x : "psi_d_read";
    enum status rc = analysis_predict(db, &srv->s->analysis, group_id, y, x,
                                      granularity_s, x_value, &p, &err);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "predict", "granularity");
        /* INTERFACES.md: a granularity never stored names those that are */
        if (rc == STATUS_NOT_FOUND && query(conn, "granularity") != NULL)
            add_stored_granularities(req, db, group_id, y, x);
        db_release(srv, db, rc);
        return;
    }
    db_release(srv, db, rc);
    answer_json_take(req, 200, analysis_predict_json(&p));
}

/* Who got hurt in [from, to): the jobs ranked by y / q50(x) of their group. */
void route_slowdowns(struct server *srv, struct MHD_Connection *conn, struct request *req)
{
    const char *y = query(conn, "y"), *x = query(conn, "x");
    const char *limit_s = query(conn, "limit");
    double from_s = NAN, to_s = NAN, granularity_s = 0;
    size_t limit = SLOWDOWNS_LIMIT_DEFAULT;
    struct error err = {0};
    struct slowdowns sl;

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
        !query_number(conn, req, "granularity", true, &granularity_s))
        return;
    struct db *db = db_acquire(srv, &err);
    if (db == NULL) {
        answer_failure(req, STATUS_DB, &err, "slowdowns", NULL);
        return;
    }
    enum status rc =
        analysis_slowdowns(db, &srv->s->analysis, from_s, to_s, y != NULL ? y : "t_d",
                           x != NULL ? x : "psi_d_read", granularity_s, limit, &sl, &err);
    db_release(srv, db, rc);
    if (rc != STATUS_OK) {
        answer_failure(req, rc, &err, "slowdowns", "granularity");
        return;
    }
    answer_json_take(req, 200, analysis_slowdowns_json(&sl));
    slowdowns_clear(&sl);
}
