/* objects_table.c: a group table's stored text (docs/method.md §4). */
#include "objects.h"

#include <jansson.h>

/* ---- the group table ------------------------------------------------------------- */

char *analysis_group_table_text(const struct group_table *t)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_text(&b, o, "kind", "group_table");
    jb_text(&b, o, "group", t->group->id);
    jb_text(&b, o, "name", t->group->name);
    jb_set(&b, o, "granularity_s", json_real(t->granularity_s));
    jb_text(&b, o, "scope", "all");
    jb_int(&b, o, "jobs", t->jobs);
    json_t *feat = jb_child(&b, o, "features", json_object());
    for (size_t f = 0; f < DB_N_FEATURES; f++) {
        json_t *e = jb_child(&b, feat, t->features[f].name, json_object());
        jb_int(&b, e, "min", t->features[f].min);
        jb_int(&b, e, "max", t->features[f].max);
    }
    json_t *met = jb_child(&b, o, "metrics", json_object());
    for (size_t p = 0; p < GROUP_TABLE_METRICS; p++) {
        const struct group_table_metric *m = &t->metrics[p];
        json_t *e = jb_child(&b, met, m->name, json_object());
        jb_real(&b, e, "mean", m->sum.mean);
        jb_real(&b, e, "sd", m->sum.sd);
        jb_int(&b, e, "n", (long long)m->sum.n);
        jb_int(&b, e, "excluded", (long long)m->excluded);
    }
    if (t->has_histogram) {
        const struct stats_histogram *h = &t->hist;
        json_t *hist = jb_child(&b, o, "td_histogram", json_object());
        json_t *counts = json_array();
        for (size_t k = 0; counts != NULL && k < h->n_bins; k++)
            jb_append(&b, counts, json_integer((json_int_t)t->counts[k]));
        jb_set(&b, hist, "bin_width_s", json_real(h->bin_width_s));
        jb_real(&b, hist, "first_edge_s", h->first_edge_s);
        jb_set(&b, hist, "counts", counts);
        jb_int(&b, hist, "n", (long long)h->summary.n);
        jb_real(&b, hist, "mean", h->summary.mean);
        jb_real(&b, hist, "sd", h->summary.sd);
        jb_real(&b, hist, "band_low", h->band_low);
        jb_real(&b, hist, "band_high", h->band_high);
    }
    /* Darshan's whole-second start: every absolute time may be up to 1 s early. */
    jb_set(&b, o, "time_error_s", json_real(1.0));
    return jb_dump(jb_finish(&b));
}
