/* scope.c: the system-wide series of a scope (docs/method.md §1: all, fs:NAME, or per job
 * the file systems it touched) at k·Δ, from the streams in the database. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The base Δ: configured, else the coarsest sampling interval of the streams (finer
 * streams are placed on it by the grid rule). */
static double base_delta(const struct analysis_settings *s, const struct db_streams *st)
{
    double d = 0;

    if (s->base_granularity_s > 0)
        return s->base_granularity_s;
    for (size_t i = 0; i < st->n; i++) {
        if (st->streams[i].interval_s > d)
            d = st->streams[i].interval_s;
    }
    return d;
}

/* The system-wide series summed over the streams of the file systems in member
 * (stream_fs[i] is stream i's file system), at granularity k·Δ of c. Servers of file
 * systems left out are left out of the presence rule too (docs/method.md §1: present
 * when every server of the series reported). The gap rule fills it at Δ (§3), and xff
 * coarsens it (§6). */
static enum status build_series(const struct analysis_ctx *c, const unsigned char *member,
                                struct stats_series **out, struct error *err)
{
    const struct db_streams *st = c->streams;
    const size_t *stream_fs = c->stream_fs;
    struct stats_stream *streams = calloc(st->n > 0 ? st->n : 1, sizeof *streams);
    size_t *server_index =
        malloc((st->n_servers > 0 ? st->n_servers : 1) * sizeof(size_t));
    struct stats_series *base = NULL;
    size_t n = 0, n_servers = 0;
    enum status rc;

    *out = NULL;
    if (streams == NULL || server_index == NULL) {
        free(streams);
        free(server_index);
        return error_set(err, STATUS_NOMEM, "streams");
    }
    for (size_t i = 0; i < st->n_servers; i++)
        server_index[i] = SIZE_MAX;
    for (size_t i = 0; i < st->n; i++) {
        const struct db_stream *s = &st->streams[i];
        size_t *server = &server_index[st->server_of[i]];
        if (!member[stream_fs[i]])
            continue;
        if (*server == SIZE_MAX)
            *server = n_servers++;
        streams[n] = (struct stats_stream){.server = *server,
                                           .end_s = s->end_s,
                                           .r = s->r,
                                           .w = s->w,
                                           .ro = s->ro,
                                           .wo = s->wo,
                                           .aqu_sz = s->aqu_sz,
                                           .util_pct = s->util_pct,
                                           .r_await_ms = s->r_await_ms,
                                           .w_await_ms = s->w_await_ms,
                                           .await_ms = s->await_ms,
                                           .ops_total = s->ops_total,
                                           .n = s->n,
                                           .delta_s = s->interval_s};
        n++;
    }
    rc = stats_series_build(streams, n, n_servers, c->base_delta_s, &base, err);
    free(streams);
    free(server_index);
    if (rc == STATUS_OK) {
        size_t filled = stats_series_fill(base, c->fill_max);
        if (filled > 0) {
            log_debug("series: %zu missing intervals filled (fill_max %u)", filled,
                      c->fill_max);
        }
    }
    if (rc != STATUS_OK || c->k == 1) {
        *out = base;
        return rc;
    }
    rc = stats_series_coarsen(base, c->k, 0, c->xff, out, err);
    stats_series_free(base);
    return rc;
}

void ctx_clear(struct analysis_ctx *c)
{
    for (size_t i = 0; i < c->n_sets; i++) {
        stats_series_free(c->sets[i]->series);
        free(c->sets[i]->member);
        free(c->sets[i]);
    }
    free(c->sets);
    free(c->member);
    free(c->stream_fs);
    free(c->fs_names);
    db_streams_free(c->streams);
    memset(c, 0, sizeof *c);
}

/* The series of the set in c->member: cached, or built and cached. */
static enum status ctx_series_of_member(struct analysis_ctx *c,
                                        const struct scope_series **out,
                                        struct error *err)
{
    enum status rc;

    for (size_t i = 0; i < c->n_sets; i++) {
        if (memcmp(c->sets[i]->member, c->member, c->n_fs) == 0) {
            *out = c->sets[i];
            return STATUS_OK;
        }
    }
    if (c->n_sets == c->cap_sets) {
        size_t cap = c->cap_sets > 0 ? 2 * c->cap_sets : 4;
        struct scope_series **grown =
            realloc(c->sets, cap * sizeof(struct scope_series *));
        if (grown == NULL)
            return error_set(err, STATUS_NOMEM, "series of a scope");
        c->sets = grown;
        c->cap_sets = cap;
    }
    struct scope_series *ss = calloc(1, sizeof *ss);
    if (ss == NULL)
        return error_set(err, STATUS_NOMEM, "series of a scope");
    ss->member = malloc(c->n_fs);
    if (ss->member == NULL) {
        free(ss);
        return error_set(err, STATUS_NOMEM, "series of a scope");
    }
    memcpy(ss->member, c->member, c->n_fs);
    rc = build_series(c, ss->member, &ss->series, err);
    if (rc != STATUS_OK) {
        free(ss->member);
        free(ss);
        return rc;
    }
    c->sets[c->n_sets++] = ss;
    *out = ss;
    return STATUS_OK;
}

/* The series a job's volume metrics use: the scope's one, or for scope=touched that
 * of the monitored file systems (with samples) the job read or wrote, known from the
 * file system of each of its windows. NULL when the job touched none of them. */
enum status ctx_series_for(struct analysis_ctx *c, const struct db_job *j,
                           const struct scope_series **out, struct error *err)
{
    bool any = false;

    *out = NULL;
    if (c->kind != SCOPE_TOUCHED) {
        *out = c->fixed;
        return STATUS_OK;
    }
    memset(c->member, 0, c->n_fs);
    for (size_t w = 0; w < j->n_windows; w++) {
        const struct db_window *dw = &j->windows[w];
        if (!dw->monitored)
            continue;
        for (size_t f = 0; f < c->n_fs; f++) {
            if (strcmp(c->fs_names[f], dw->fs) == 0) {
                c->member[f] = 1;
                any = true;
                break;
            }
        }
    }
    if (!any)
        return STATUS_OK;
    return ctx_series_of_member(c, out, err);
}

/* The distinct file systems of the streams (loaded ordered by fs) and each stream's. */
static enum status ctx_index_fs(struct analysis_ctx *c, struct error *err)
{
    const struct db_streams *st = c->streams;
    const char **names = calloc(st->n, sizeof *names);
    size_t n_fs = 0;

    c->fs_names = names;
    c->stream_fs = calloc(st->n, sizeof *c->stream_fs);
    c->member = calloc(st->n, 1);
    if (names == NULL || c->stream_fs == NULL || c->member == NULL)
        return error_set(err, STATUS_NOMEM, "file systems of the samples");
    for (size_t i = 0; i < st->n; i++) {
        const char *name = st->streams[i].fs;
        size_t f = 0;
        while (f < n_fs && strcmp(names[f], name) != 0)
            f++;
        if (f == n_fs)
            names[n_fs++] = name;
        c->stream_fs[i] = f;
    }
    c->n_fs = n_fs;
    return STATUS_OK;
}

enum status analysis_scope_check(const char *scope, struct error *err)
{
    if (strcmp(scope, "all") == 0 || strcmp(scope, "touched") == 0 ||
        (strncmp(scope, "fs:", 3) == 0 && scope[3] != '\0'))
        return STATUS_OK;
    return error_param(err, STATUS_INVALID, "scope",
                       "scope must be all, touched or fs:NAME");
}

enum status ctx_prepare(struct db *db, const struct analysis_settings *s,
                        double granularity_s, const char *scope, struct analysis_ctx *c,
                        struct error *err)
{
    const char *fs = NULL;
    enum status rc;

    memset(c, 0, sizeof *c);
    scope = scope != NULL ? scope : "all";
    rc = analysis_scope_check(scope, err);
    if (rc != STATUS_OK)
        return rc;
    if (strcmp(scope, "all") == 0) {
        c->kind = SCOPE_ALL;
    } else if (strcmp(scope, "touched") == 0) {
        c->kind = SCOPE_TOUCHED;
    } else {
        fs = scope + 3;
        c->kind = SCOPE_FS;
    }
    c->scope = scope;
    c->fill_max = s->fill_max;
    c->xff = s->xff;
    rc = db_streams_load(db, fs, s->theta_s, &c->streams, err);
    if (rc != STATUS_OK)
        return rc;
    if (c->streams->n == 0) {
        rc = error_set(err, STATUS_NOT_FOUND, "no server samples%s%s are loaded",
                       fs != NULL ? " for " : "", fs != NULL ? fs : "");
        ctx_clear(c);
        return rc;
    }
    /* One Δ for every set, from every stream loaded: the jobs of a group, whatever
     * they touched, share one grid and one granularity. */
    c->base_delta_s = base_delta(s, c->streams);
    double kf = granularity_s > 0 ? granularity_s / c->base_delta_s : 1;
    c->k = (unsigned)lround(kf);
    if (c->k < 1 || fabs(kf - c->k) > 1e-9 * kf) {
        char value[40];
        snprintf(value, sizeof value, "%g", granularity_s);
        rc = error_param(
            err, STATUS_INVALID, "granularity",
            "granularity %s s is not a whole multiple of the base interval %g s", value,
            c->base_delta_s);
        ctx_clear(c);
        return rc;
    }
    rc = ctx_index_fs(c, err);
    if (rc == STATUS_OK && c->kind != SCOPE_TOUCHED) {
        /* all and fs:NAME: one series over every file system loaded, built now. */
        memset(c->member, 1, c->n_fs);
        rc = ctx_series_of_member(c, &c->fixed, err);
    }
    if (rc != STATUS_OK)
        ctx_clear(c);
    return rc;
}

/* ---- for the granularity sweep (sweep.c) --------------------------------------- */

enum status analysis_base_series(struct db *db, const struct analysis_settings *s,
                                 struct stats_series **series, double *delta_s,
                                 struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc = ctx_prepare(db, s, 0, "all", &ctx, err);

    *series = NULL;
    *delta_s = 0;
    if (rc != STATUS_OK)
        return rc;
    /* Scope all: ctx_prepare built the one series; it changes owner here. */
    struct scope_series *ss = ctx.sets[0];
    *series = ss->series;
    ss->series = NULL;
    *delta_s = ctx.base_delta_s;
    ctx_clear(&ctx);
    return STATUS_OK;
}

enum status analysis_scope_series(struct db *db, const struct analysis_settings *s,
                                  const char *scope, struct stats_series **series,
                                  double *delta_s, struct error *err)
{
    struct analysis_ctx ctx;
    enum status rc;

    *series = NULL;
    *delta_s = 0;
    if (strcmp(scope, "touched") == 0) {
        return error_param(err, STATUS_INVALID, "scope",
                           "one series needs all or fs:NAME, not '%s'", scope);
    }
    rc = ctx_prepare(db, s, 0, scope, &ctx, err);
    if (rc != STATUS_OK)
        return rc;
    if (ctx.n_sets == 0) { /* all and fs:NAME build their one series */
        ctx_clear(&ctx);
        return error_set(err, STATUS_INTERNAL, "no series for scope %s", scope);
    }
    /* It changes owner here. */
    struct scope_series *ss = ctx.sets[0];
    *series = ss->series;
    ss->series = NULL;
    *delta_s = ctx.base_delta_s;
    ctx_clear(&ctx);
    return STATUS_OK;
}
