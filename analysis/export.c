/* export.c: `export jobs`: every job metric of docs/method.md §2–§3, one row per job. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void put_csv_value(FILE *fp, double v)
{
    if (isfinite(v)) {
        fprintf(fp, ",%.17g", v);
    } else {
        fputs(",", fp);
    }
}

/* The CSV header: identity, every metric, then why values are missing, which are
 * negative, and which file systems the series summed. */
static void put_csv_header(FILE *fp)
{
    fputs("id,jobid,group,start_time,granularity_s", fp);
    for (size_t m = 0; m < n_metrics; m++)
        fprintf(fp, ",%s", metrics[m].name);
    for (size_t f = 0; f < n_families; f++) {
        if (families[f]->excl != SIZE_MAX) /* the log family is never excluded */
            fprintf(fp, ",excluded_%s", families[f]->name);
    }
    fputs(",negative,scope_fs\n", fp);
}

/* CSV list cells: names joined by ';' (no quoting needed). */
static void put_csv_row(FILE *fp, const struct analysis_ctx *c, const struct db_job *j,
                        const struct job_eval *ev)
{
    const char *sep = "";

    fprintf(fp, "%s,%s,%s,%.0f", j->job_key, j->jobid, j->group_id, j->start_s);
    put_csv_value(fp, c->base_delta_s * c->k);
    for (size_t m = 0; m < n_metrics; m++)
        put_csv_value(fp, metric_reported(&metrics[m], j, ev));
    for (size_t f = 0; f < n_families; f++) {
        if (families[f]->excl != SIZE_MAX)
            fprintf(fp, ",%s", stats_exclusion_name(family_excl(families[f], ev)));
    }
    fputc(',', fp);
    for (size_t b = 0; b < n_negative_bits; b++) {
        if (ev->dv.negative & negative_bits[b]) {
            fprintf(fp, "%s%s", sep, stats_negative_name(negative_bits[b]));
            sep = ";";
        }
    }
    fputc(',', fp);
    sep = "";
    for (size_t f = 0; ev->ss != NULL && f < c->n_fs; f++) {
        if (ev->ss->member[f]) {
            fprintf(fp, "%s%s", sep, c->fs_names[f]);
            sep = ";";
        }
    }
    fputc('\n', fp);
}

/* Every metric of jobs at granularity_s and scope: CSV to fp when doc is NULL, else
 * the JSON document into *doc (new). */
static enum status export_rows(struct db *db, const struct analysis_settings *settings,
                               const struct db_jobs *jobs, double granularity_s,
                               const char *scope, FILE *fp, struct json_t **doc,
                               struct error *err)
{
    struct analysis_ctx ctx;
    struct analysis_scratch s = {0};
    struct export_json *e = NULL;
    enum status rc;

    if (doc == NULL && fp == NULL)
        return error_set(err, STATUS_INTERNAL, "export: neither CSV nor JSON asked");
    rc = ctx_prepare(db, settings, granularity_s, scope, REACH_JOBS, NULL, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    rc = analysis_scratch_init(&s, jobs, err);
    if (rc != STATUS_OK)
        goto out;
    if (doc != NULL) {
        e = export_json_new(ctx.base_delta_s * ctx.k, ctx.scope);
        if (e == NULL) {
            rc = error_set(err, STATUS_NOMEM, "export JSON");
            goto out;
        }
    } else if (fp != NULL) {
        put_csv_header(fp);
    }
    for (size_t i = 0; i < jobs->n; i++) {
        const struct db_job *j = &jobs->jobs[i];
        struct job_eval ev;
        rc = job_eval(&ctx, j, &s, &ev, err);
        if (rc != STATUS_OK)
            goto out;
        if (e != NULL) {
            export_json_row(e, &ctx, j, &ev);
        } else if (fp != NULL) {
            put_csv_row(fp, &ctx, j, &ev);
        }
    }
    if (e != NULL) {
        *doc = export_json_take(e);
        if (*doc == NULL)
            rc = error_set(err, STATUS_NOMEM, "export JSON");
    }
out:
    export_json_free(e);
    analysis_scratch_clear(&s);
    ctx_clear(&ctx);
    return rc;
}

enum status analysis_export_jobs(struct db *db, const struct analysis_settings *settings,
                                 const char *group_id, double granularity_s,
                                 const char *scope, bool json, FILE *fp,
                                 struct error *err)
{
    struct db_jobs *jobs = NULL;
    struct json_t *doc = NULL;
    enum status rc = db_jobs_of_group(db, group_id, &jobs, err);

    if (rc == STATUS_OK && json) {
        rc = export_rows(db, settings, jobs, granularity_s, scope, NULL, &doc, err);
        if (rc == STATUS_OK)
            rc = analysis_json_write(doc, fp, err);
    } else if (rc == STATUS_OK) {
        rc = export_rows(db, settings, jobs, granularity_s, scope, fp, NULL, err);
    }
    db_jobs_free(jobs);
    return rc;
}

enum status analysis_jobs_metrics(struct db *db, const struct analysis_settings *settings,
                                  const char *const *job_keys, size_t n,
                                  double granularity_s, const char *scope, FILE *csv,
                                  struct json_t **json, struct error *err)
{
    struct db_jobs *jobs = NULL;
    enum status rc;

    if (json != NULL)
        *json = NULL;
    rc = db_jobs_of_keys(db, job_keys, n, &jobs, err);
    if (rc == STATUS_OK)
        rc = export_rows(db, settings, jobs, granularity_s, scope, csv, json, err);
    db_jobs_free(jobs);
    return rc;
}
