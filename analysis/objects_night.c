/* objects_night.c: the night report's JSON (docs/operations.md "The night report"). */
#include "objects.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>

/* ---- the night report (docs/operations.md "The night report")
 * ------------------------------- */

/* What the stored associations are not: the earlier coefficients, which results
 * does not keep (one row per key, replaced when it changes). */
static const char night_history_note[] =
    "iocontend keeps only the newest association of each group (a changed result "
    "replaces the stored one), so the coefficients before the change are not "
    "recorded; compare with an earlier night's report.";

/* A stored time (RFC 3339, "" when none) as text or null. */
static void put_stamp(struct jb *b, json_t *o, const char *key, const char *s)
{
    jb_text(b, o, key, s[0] != '\0' ? s : NULL);
}

static void put_night_ingest(struct jb *b, json_t *o, const struct night *n)
{
    static const char *const names[6] = {"files",       "loaded", "skipped",
                                         "quarantined", "jobs",   "samples"};
    json_t *in = jb_child(b, o, "ingest", json_object());
    json_t *runs = jb_child(b, in, "runs", json_array());
    long long sums[6] = {0};

    for (size_t i = 0; i < n->n_runs; i++) {
        const struct db_night_run *r = &n->runs[i];
        const long long v[6] = {r->files,       r->loaded, r->skipped,
                                r->quarantined, r->jobs,   r->samples};
        json_t *row = jb_item(b, runs, json_object());
        jb_int(b, row, "id", (long long)r->id);
        jb_text(b, row, "kind", r->kind);
        put_stamp(b, row, "started_at", r->started_at);
        put_stamp(b, row, "finished_at", r->finished_at);
        put_stamp(b, row, "interrupted_at", r->interrupted_at);
        jb_set(b, row, "failed", json_boolean(r->failed));
        jb_real(b, row, "seconds", r->seconds);
        for (size_t k = 0; k < 6; k++) {
            jb_int(b, row, names[k], v[k]);
            sums[k] += v[k];
        }
    }
    for (size_t k = 0; k < 6; k++)
        jb_int(b, in, names[k], sums[k]);
}

static void put_night_quarantined(struct jb *b, json_t *o, const struct night *n)
{
    json_t *list = jb_child(b, o, "quarantined", json_array());

    for (size_t i = 0; i < n->n_quarantined; i++) {
        const struct db_quarantine_entry *e = &n->quarantined[i];
        json_t *row = jb_item(b, list, json_object());
        jb_text(b, row, "path", e->path);
        jb_set(b, row, "line", e->line > 0 ? json_integer(e->line) : json_null());
        jb_text(b, row, "status", e->status);
        jb_text(b, row, "message", e->message);
        put_stamp(b, row, "first_seen", e->first_seen);
        put_stamp(b, row, "last_seen", e->last_seen);
    }
}

/* A stored association as the report lists it: its key, d, the coefficients and
 * their p-values where stored, and "previous": null (not recorded). */
static void put_night_assoc(struct jb *b, json_t *list, const struct night_assoc *a)
{
    const struct assoc_result *r = a->result;
    json_t *o = jb_item(b, list, json_object());

    jb_real(b, o, "granularity_s", a->granularity_s);
    jb_text(b, o, "space", a->space);
    jb_text(b, o, "computed_at", a->computed_at);
    jb_int(b, o, "d", (long long)r->coefs.d);
    for (size_t c = 0; c < COEF_COUNT; c++) {
        const struct stats_coef *k = analysis_coef_of(&r->coefs, (enum coef_id)c);
        jb_set(b, o, analysis_coefs[c].name,
               k->reason == REASON_NONE ? jb_number_or_null(k->value) : json_null());
    }
    json_t *p = jb_child(b, o, "p_values", json_object());
    for (size_t c = 0; r->signif != NULL && c < COEF_COUNT; c++) {
        const struct stats_signif_coef *e =
            analysis_coef_signif(r->signif, (enum coef_id)c);
        if (e != NULL && e->reason == REASON_NONE)
            jb_real(b, p, analysis_coefs[c].name, e->p_value);
    }
    jb_set(b, o, "previous", json_null());
}

static void put_night_groups(struct jb *b, json_t *o, const struct night *n)
{
    json_t *groups = jb_child(b, o, "groups", json_object());

    jb_text(b, groups, "y", n->y);
    jb_text(b, groups, "x", n->x);
    jb_text(b, groups, "history", night_history_note);
    json_t *list = jb_child(b, groups, "changed", json_array());
    for (size_t i = 0; i < n->n_groups; i++) {
        const struct night_group *g = &n->groups[i];
        json_t *row = jb_item(b, list, json_object());
        jb_text(b, row, "group", g->group.id);
        jb_text(b, row, "name", g->group.name);
        jb_int(b, row, "jobs", g->group.jobs);
        jb_int(b, row, "jobs_added", g->jobs_added);
        json_t *assoc = jb_child(b, row, "associations", json_array());
        for (size_t k = 0; k < g->n_assoc; k++)
            put_night_assoc(b, assoc, &n->assoc[g->first_assoc + k]);
    }
}

/* The coverage: the raw intervals, or the buckets once analysis_night_buckets cut
 * them (every scope of a night is served, so filesystems[i] is scope i). */
static void put_night_coverage(struct jb *b, json_t *o, const struct night *n)
{
    struct coverage_answer a = n->coverage;

    a.buckets = n->coverage_buckets;
    jb_set(b, o, "coverage", n->has_coverage ? analysis_coverage_json(&a) : json_null());
}

json_t *analysis_night_json(const struct night *n)
{
    struct jb b = jb_object();
    json_t *o = b.root;
    char generated[40];

    jb_text(&b, o, "report", "night");
    jb_time(&b, o, "from", n->from_s);
    jb_time(&b, o, "to", n->to_s);
    time_format_rfc3339((int64_t)floor(n->generated_s), generated);
    jb_text(&b, o, "generated_at", generated);
    put_night_ingest(&b, o, n);
    put_night_quarantined(&b, o, n);
    put_night_groups(&b, o, n);
    jb_set(&b, o, "slowdowns",
           n->has_slowdowns ? analysis_slowdowns_json(&n->slowdowns) : json_null());
    put_night_coverage(&b, o, n);
    json_t *notes = jb_child(&b, o, "notes", json_object());
    if (!n->has_slowdowns)
        jb_text(&b, notes, "slowdowns", n->slowdowns_note);
    if (!n->has_coverage)
        jb_text(&b, notes, "coverage", n->coverage_note);
    return jb_finish(&b);
}
