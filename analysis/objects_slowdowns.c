/* objects_slowdowns.c: the band at an x (/groups/{id}/predict) and the slowdowns
 * (/api/v1/slowdowns). */
#include "objects.h"

#include <jansson.h>

/* ---- the band at an x and the slowdowns (docs/operations.md: "Who got hurt")
 * ----------------- */

json_t *analysis_band_json(const struct band_result *p)
{
    struct jb b = jb_object();
    json_t *o = b.root;
    const bool fitted = p->reason == REASON_NONE;

    jb_text(&b, o, "group", p->group);
    jb_text(&b, o, "y", p->y);
    jb_text(&b, o, "x", p->x);
    jb_real(&b, o, "granularity_s", p->granularity_s);
    jb_real(&b, o, "x_value", p->x_value);
    jb_text(&b, o, "space", stats_kde_space_name(p->space));
    jb_int(&b, o, "d", (long long)p->d);
    jb_real(&b, o, "hx", p->h_x);
    jb_real(&b, o, "hy", p->h_y);
    json_t *range = jb_child(&b, o, "x_range", json_array());
    jb_append(&b, range, jb_number_or_null(p->at.x_lo));
    jb_append(&b, range, jb_number_or_null(p->at.x_hi));
    jb_real(&b, o, "q05", p->at.q05);
    jb_real(&b, o, "q50", p->at.q50);
    jb_real(&b, o, "q95", p->at.q95);
    jb_real(&b, o, "width", p->at.q95 - p->at.q05);
    if (!fitted)
        jb_text(&b, o, "reason", stats_reason_name(p->reason));
    if (p->has_rf) {
        json_t *rf = jb_child(&b, o, "rf", json_object());
        jb_int(&b, rf, "trees", (long long)p->rf_trees);
        jb_real(&b, rf, "oob_r2", p->rf_oob_r2);
        jb_real(&b, rf, "fit", p->rf_fit);
    } else {
        jb_set(&b, o, "rf", json_null());
    }
    jb_text(&b, o, "computed_at", p->computed_at[0] != '\0' ? p->computed_at : NULL);
    return jb_finish(&b);
}

static void put_slowdown(struct jb *b, json_t *list, const struct slowdown_job *j,
                         size_t rank)
{
    json_t *o = jb_item(b, list, json_object());

    if (rank > 0)
        jb_int(b, o, "rank", (long long)rank);
    jb_text(b, o, "id", j->job_key);
    jb_text(b, o, "jobid", j->jobid);
    jb_text(b, o, "group", j->group);
    jb_time(b, o, "start", j->start_s);
    jb_time(b, o, "end", j->end_s);
    jb_real(b, o, "y", j->y);
    jb_real(b, o, "x", j->x);
    if (rank == 0) {
        jb_text(b, o, "reason", j->reason);
        return;
    }
    jb_real(b, o, "q05", j->q05);
    jb_real(b, o, "q50", j->q50);
    jb_real(b, o, "q95", j->q95);
    jb_real(b, o, "ratio", j->ratio);
    jb_real(b, o, "percentile", j->percentile);
    jb_real(b, o, "cdf", j->cdf);
}

json_t *analysis_slowdowns_json(const struct slowdowns *sl)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_time(&b, o, "from", sl->from_s);
    jb_time(&b, o, "to", sl->to_s);
    if (sl->group[0] != '\0')
        jb_text(&b, o, "group", sl->group);
    jb_text(&b, o, "y", sl->y);
    jb_text(&b, o, "x", sl->x);
    jb_real(&b, o, "granularity_s", sl->granularity_s);
    jb_int(&b, o, "limit", (long long)sl->limit);
    jb_int(&b, o, "jobs", (long long)sl->jobs);
    jb_int(&b, o, "ranked_total", (long long)sl->ranked_total);
    json_t *ranked = jb_child(&b, o, "slowdowns", json_array());
    for (size_t i = 0; i < sl->n_ranked; i++)
        put_slowdown(&b, ranked, &sl->ranked[i], i + 1);
    jb_int(&b, o, "apart_total", (long long)sl->apart_total);
    json_t *apart = jb_child(&b, o, "apart", json_array());
    for (size_t i = 0; i < sl->n_apart; i++)
        put_slowdown(&b, apart, &sl->apart[i], 0);
    return jb_finish(&b);
}
