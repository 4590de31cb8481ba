/* objects_export.c: the job export's JSON, one row at a time. */
#include "objects.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the job export -------------------------------------------------------------- */

struct export_json {
    struct jb b;
    json_t *rows; /* borrowed from b.root */
};

struct export_json *export_json_new(double granularity_s, const char *scope)
{
    struct export_json *e = malloc(sizeof *e);

    if (e == NULL)
        return NULL;
    e->b = jb_object();
    jb_set(&e->b, e->b.root, "granularity_s", json_real(granularity_s));
    jb_text(&e->b, e->b.root, "scope", scope);
    e->rows = jb_child(&e->b, e->b.root, "jobs", json_array());
    return e;
}

void export_json_row(struct export_json *e, const struct analysis_ctx *c,
                     const struct db_job *j, const struct job_eval *ev)
{
    struct jb *b = &e->b;
    json_t *o = jb_item(b, e->rows, json_object());

    jb_text(b, o, "id", j->job_key);
    jb_text(b, o, "jobid", j->jobid);
    jb_text(b, o, "group", j->group_id);
    jb_int(b, o, "start_time", (long long)j->start_s);
    jb_set(b, o, "granularity_s", json_real(c->base_delta_s * c->k));
    for (size_t m = 0; m < n_metrics; m++)
        jb_real(b, o, metrics[m].name, metric_reported(&metrics[m], j, ev));
    json_t *ex = jb_child(b, o, "excluded", json_object());
    for (size_t f = 0; f < n_families; f++) {
        enum stats_exclusion why = family_excl(families[f], ev);
        if (why != EXCL_NONE)
            jb_text(b, ex, families[f]->name, stats_exclusion_name(why));
    }
    json_t *neg = jb_child(b, o, "negative", json_array());
    for (size_t k = 0; k < n_negative_bits; k++) {
        if (ev->dv.negative & negative_bits[k])
            jb_append(b, neg, json_string(stats_negative_name(negative_bits[k])));
    }
    json_t *fs = jb_child(b, o, "scope_fs", json_array());
    for (size_t f = 0; ev->ss != NULL && f < c->n_fs; f++) {
        if (ev->ss->member[f])
            jb_append(b, fs, analysis_json_text(c->fs_names[f]));
    }
}

struct json_t *export_json_take(struct export_json *e)
{
    json_t *doc = jb_finish(&e->b);

    e->b.root = NULL;
    return doc;
}

enum status analysis_json_write(struct json_t *doc, FILE *fp, struct error *err)
{
    if (doc == NULL)
        return error_set(err, STATUS_NOMEM, "export JSON");
    int rc = json_dumpf(doc, fp, STORE_FLAGS);
    json_decref(doc);
    fputc('\n', fp);
    return rc == 0 ? STATUS_OK : error_set(err, STATUS_INTERNAL, "writing JSON");
}

void export_json_free(struct export_json *e)
{
    if (e == NULL)
        return;
    json_decref(e->b.root);
    free(e);
}
