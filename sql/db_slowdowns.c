/* db_slowdowns.c: the groups of the jobs of a period, for the slowdowns (who got hurt).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>

static void fill_slowdowns_group(void *row_out, const PGresult *r, int row)
{
    struct db_slowdowns_group *g = row_out;

    copy_text(g->id, sizeof g->id, r, row, 0);
    g->jobs = get_int64(r, row, 1);
}

enum status db_slowdowns_groups(struct db *db, double from_s, double to_s,
                                struct db_slowdowns_group **out, size_t *n,
                                struct error *err)
{
    char from[40], to[40];
    const char *vals[2];
    void *rows = NULL;
    enum status rc;

    *out = NULL;
    *n = 0;
    snprintf(from, sizeof from, "%.17g", from_s);
    snprintf(to, sizeof to, "%.17g", to_s);
    vals[0] = isnan(from_s) ? NULL : from;
    vals[1] = isnan(to_s) ? NULL : to;
    /* The overlap of /jobs: [start, start + t_j] meets [from, to). */
    rc = fetch_rows(db,
                    "SELECT group_id, count(*) FROM jobs WHERE "
                    "($1::float8 IS NULL OR start_time + t_j >= $1::float8) "
                    "AND ($2::float8 IS NULL OR start_time < $2::float8) "
                    "GROUP BY group_id ORDER BY group_id",
                    2, vals, sizeof **out, fill_slowdowns_group, "groups of a period",
                    &rows, n, err);
    if (rc == STATUS_OK)
        *out = rows;
    return rc;
}
