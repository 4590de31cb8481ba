/* objects_coverage.c: the coverage's answer (/api/v1/coverage). */
#include "objects.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* ---- the coverage ---------------------------------------------------------------- */

/* v[i] / max for plotting (Fig. 13), null where v[i] is absent. */
static json_t *scaled(struct jb *b, const double *v, size_t n, double max)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        jb_append(b, a, jb_number_or_null(max > 0 ? v[i] / max : v[i]));
    return a;
}

/* The bucket edges k = first, first + 1, …, first + n - 1 of b in epoch ms. */
static json_t *edges_ms(struct jb *jb, const struct coverage_buckets *b, size_t first)
{
    json_t *a = json_array();

    for (size_t k = first; a != NULL && k < first + b->n; k++) {
        double at_s = b->start_s + (double)k * b->width_s;
        jb_append(jb, a, json_integer((json_int_t)llround(at_s * 1000)));
    }
    return a;
}

/* The downsampled form of a scope's intervals (docs/api.md: points=). */
static void put_buckets(struct jb *jb, json_t *o, const struct coverage_buckets *b)
{
    json_t *bo = jb_child(jb, o, "buckets", json_object());

    jb_int(jb, bo, "n", (long long)b->n);
    jb_set(jb, bo, "width_ms", json_real(b->width_s * 1000));
    /* What each bucket's least and most are taken over: pre-buckets of this width
     * (milliseconds) wholly inside the range, by their middles, or (null) intervals. */
    jb_set(jb, bo, "pre_ms", b->pre_s > 0 ? json_real(b->pre_s * 1000) : json_null());
    jb_set(jb, bo, "start_ms", edges_ms(jb, b, 0));
    jb_set(jb, bo, "end_ms", edges_ms(jb, b, 1));
    jb_set(jb, bo, "d_min", jb_numbers(jb, b->d_min, b->n));
    jb_set(jb, bo, "d_max", jb_numbers(jb, b->d_max, b->n));
    jb_set(jb, bo, "s_min", jb_numbers(jb, b->s_min, b->n));
    jb_set(jb, bo, "s_max", jb_numbers(jb, b->s_max, b->n));
}

/* One stored scope's coverage and its intervals as the API serves them, or their
 * buckets when bk is not NULL (s is then not read). */
static void put_coverage_scope(struct jb *b, json_t *list, const struct db_coverage *c,
                               const struct db_coverage_series *s,
                               const struct coverage_buckets *bk)
{
    json_t *o = jb_item(b, list, json_object());
    struct coverage_range r;

    if (bk != NULL) {
        r = bk->range;
    } else {
        analysis_coverage_range(s, &r);
    }
    jb_text(b, o, "fs", strcmp(c->scope, "all") == 0 ? "all" : c->scope + 3);
    jb_text(b, o, "scope", c->scope);
    jb_set(b, o, "granularity_s", json_real(c->granularity_s));
    jb_real(b, o, "coverage", c->coverage);
    jb_set(b, o, "sum_d_bytes", json_real(c->sum_d_bytes));
    jb_set(b, o, "sum_s_bytes", json_real(c->sum_s_bytes));
    jb_int(b, o, "intervals", c->intervals);
    jb_set(b, o, "d_total_bytes", json_real(c->d_total_bytes));
    jb_time(b, o, "log_start", c->log_start_s);
    jb_time(b, o, "log_end", c->log_end_s);
    jb_text(b, o, "computed_at", c->computed_at[0] != '\0' ? c->computed_at : NULL);
    /* The same sums over the intervals served: the coverage of the range asked. */
    json_t *range = jb_child(b, o, "range", json_object());
    jb_set(b, range, "coverage",
           r.sum_s_bytes > 0 ? json_real(r.sum_d_bytes / r.sum_s_bytes) : json_null());
    jb_set(b, range, "sum_d_bytes", json_real(r.sum_d_bytes));
    jb_set(b, range, "sum_s_bytes", json_real(r.sum_s_bytes));
    jb_int(b, range, "intervals", (long long)r.intervals);
    jb_set(b, o, "max_d_bytes", json_real(r.max_d_bytes));
    jb_set(b, o, "max_s_bytes", json_real(r.max_s_bytes));
    if (bk != NULL) {
        put_buckets(b, o, bk);
        return;
    }
    json_t *ends = json_array();
    for (size_t i = 0; ends != NULL && i < s->n; i++)
        jb_append(b, ends, json_integer((json_int_t)llround(s->end_s[i] * 1000)));
    jb_set(b, o, "end_ms", ends);
    jb_set(b, o, "d", scaled(b, s->d_bytes, s->n, r.max_d_bytes));
    jb_set(b, o, "s", scaled(b, s->s_bytes, s->n, r.max_s_bytes));
}

json_t *analysis_coverage_json(const struct coverage_answer *a)
{
    struct jb b = jb_object();
    json_t *o = b.root;

    jb_time(&b, o, "from", a->from_s);
    jb_time(&b, o, "to", a->to_s);
    json_t *all = jb_child(&b, o, "coverage", json_object());
    json_t *list = jb_child(&b, o, "filesystems", json_array());
    for (size_t i = 0; i < a->n; i++) {
        const struct db_coverage *c = &a->scopes[i];
        jb_real(&b, all, strcmp(c->scope, "all") == 0 ? "all" : c->scope + 3,
                c->coverage);
        if (a->served[i]) {
            put_coverage_scope(&b, list, c, &a->series[i],
                               a->buckets != NULL ? &a->buckets[i] : NULL);
        }
    }
    return jb_finish(&b);
}
