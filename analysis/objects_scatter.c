/* objects_scatter.c: the jobs behind a group's scatter (/groups/{id}/points). */
#include "objects.h"

#include <jansson.h>
#include <math.h>

/* ---- the jobs behind a scatter (docs/api.md: /groups/{id}/points) ------------------ */

json_t *analysis_points_json(const struct points_result *p)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_set(&b, o, "group", json_string(p->group));
    jb_set(&b, o, "y", json_string(p->y));
    jb_set(&b, o, "x", json_string(p->x));
    jb_set(&b, o, "granularity_s", json_real(p->granularity_s));
    jb_set(&b, o, "scope", json_string(p->scope));
    jb_int(&b, o, "d", (long long)p->d);
    jb_int(&b, o, "shown", (long long)p->shown);
    jb_set(&b, o, "sampled", json_boolean(p->sampled));
    jb_int(&b, o, "seed", (long long)p->seed);
    json_t *list = jb_child(&b, o, "points", json_array());
    for (size_t i = 0; list != NULL && i < p->shown; i++) {
        const struct job_point *j = &p->points[i];
        json_t *one = json_object();
        jb_append(&b, list, one);
        jb_text(&b, one, "id", j->id);
        jb_text(&b, one, "jobid", j->jobid);
        jb_int(&b, one, "start_ms", llround(j->start_s * 1000));
        jb_int(&b, one, "end_ms", llround(j->end_s * 1000));
        jb_set(&b, one, "x", json_real(j->x));
        jb_set(&b, one, "y", json_real(j->y));
    }
    return jb_finish(&b);
}
