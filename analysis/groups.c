/* groups.c: hand-made groups (docs/method.md §4): which jobs each [group NAME] rule of
 * the configuration matches, evaluated at analyze and stored as the group's members; the
 * stored groups and settings a configuration leaves out, kept and warned of. */
#include "internal.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[GROUP_KEYS] = {"executable", "uid", "nprocs", "bytes",
                                                  "jobs"};

const char *group_key_name(enum group_key k)
{
    return k < GROUP_KEYS ? key_names[k] : "";
}

void group_rule_text(const struct group_rule *r, char *out, size_t size)
{
    size_t len = 0;

    if (size == 0)
        return;
    out[0] = '\0';
    for (int k = 0; k < GROUP_KEYS && len < size; k++) {
        if (r->given[k][0] == '\0')
            continue;
        int n = snprintf(out + len, size - len, "%s%s=%s", len > 0 ? ";" : "",
                         key_names[k], r->given[k]);
        len += n > 0 ? (size_t)n : 0;
    }
}

bool group_is_hand(const struct db_group *g)
{
    return strncmp(g->key, "hand:", 5) == 0;
}

void group_rule_id(const char *name, char out[17])
{
    struct hash128 h;
    char hex[33];

    /* As ingest/metrics.c makes a default group's id from its key; "hand:" keeps the
     * two kinds apart (a default key starts with the uid's digits). */
    hash128_init(&h);
    hash128_update(&h, "hand:", 5);
    hash128_update(&h, name, strlen(name));
    hash128_hex(&h, hex);
    memcpy(out, hex, 16);
    out[16] = '\0';
}

/* true when job j matches every key r gives; re is r's executable regex compiled
 * (NULL when not given). */
static bool rule_matches(const struct group_rule *r, const regex_t *re,
                         const struct db_job_features *j)
{
    if (re != NULL && regexec(re, j->executable, 0, NULL, 0) != 0)
        return false;
    if (r->given[GROUP_UID][0] != '\0') {
        bool hit = false;
        for (size_t i = 0; i < r->n_uids && !hit; i++)
            hit = r->uids[i] == j->uid;
        if (!hit)
            return false;
    }
    if (r->given[GROUP_NPROCS][0] != '\0' &&
        (j->nprocs < r->nprocs_min || j->nprocs > r->nprocs_max))
        return false;
    if (r->given[GROUP_BYTES][0] != '\0' &&
        (j->bytes < r->bytes_min || j->bytes > r->bytes_max))
        return false;
    if (r->given[GROUP_JOBS][0] != '\0') {
        bool hit = false;
        for (size_t i = 0; i < r->n_jobs && !hit; i++) {
            hit = strcmp(r->jobs[i].jobid, j->jobid) == 0 &&
                  (!r->jobs[i].has_uid || r->jobs[i].uid == j->uid);
        }
        if (!hit)
            return false;
    }
    return true;
}

/* Stores the members of rule r among the n jobs. keys is scratch for n pointers. */
static enum status refresh_one(struct db *db, const struct group_rule *r,
                               const struct db_job_features *jobs, size_t n,
                               const char **keys, char id[17], struct error *err)
{
    regex_t re;
    bool has_re = r->given[GROUP_EXECUTABLE][0] != '\0';
    size_t m = 0;
    char key[8 + GROUP_NAME_MAX], rule[GROUP_KEYS * (GROUP_VALUE_MAX + 16)];

    if (has_re &&
        regcomp(&re, r->given[GROUP_EXECUTABLE], REG_EXTENDED | REG_NOSUB) != 0) {
        return error_set(err, STATUS_INVALID, "group %s: executable is not a regex",
                         r->name);
    }
    for (size_t i = 0; i < n; i++) {
        if (rule_matches(r, has_re ? &re : NULL, &jobs[i]))
            keys[m++] = jobs[i].job_key;
    }
    if (has_re)
        regfree(&re);
    group_rule_id(r->name, id);
    snprintf(key, sizeof key, "hand:%s", r->name);
    group_rule_text(r, rule, sizeof rule);
    enum status rc = db_hand_group_store(db, id, r->name, key, rule, keys, m, err);
    if (rc != STATUS_OK) {
        error_wrap(err, "storing group %s", key);
        return rc;
    }
    if (m == 0) {
        log_warn("group %s (%s): its rule %s matches no job", id, key, rule);
    } else {
        log_info("group %s (%s): %zu jobs", id, key, m);
    }
    return STATUS_OK;
}

/* The file named in a warning: "PATH", or what stands for none. */
static const char *config_named(const char *path)
{
    return path != NULL && path[0] != '\0' ? path : "no configuration file";
}

/* The configuration is the hand-made groups' source, but a run without it (a
 * forgotten --config) must not remove what an administrator defined: a stored group
 * it lacks stays with its members and results until --prune, and every run says so,
 * --quiet's included. */
static enum status missing_handle(struct db *db, const struct analysis_settings *s,
                                  const char (*keep)[17], size_t n, struct error *err)
{
    struct db_hand_group_missing *missing = NULL;
    size_t n_missing = 0;
    enum status rc = db_hand_groups_mark_missing(db, keep, n, &missing, &n_missing, err);

    for (size_t i = 0; rc == STATUS_OK && i < n_missing; i++) {
        const struct db_hand_group_missing *g = &missing[i];
        if (s->prune) {
            log_alert("group %s (%s) is not in the configuration (%s): removed with its "
                      "results (--prune)",
                      g->id, g->key, config_named(s->config_path));
        } else {
            log_alert("group %s (%s) is not in the configuration (%s) since %s: kept "
                      "with its members and results, not recomputed; put [group %s] "
                      "back (its rule: %s), or remove it with 'iocontend analyze "
                      "--prune'",
                      g->id, g->key, config_named(s->config_path), g->since, g->key + 5,
                      g->rule);
        }
    }
    free(missing);
    if (rc == STATUS_OK && s->prune)
        rc = db_hand_groups_prune(db, keep, n, err);
    return rc;
}

/* The settings every kind of run reads from the configuration, as
 * "key=value;...": a run without the configuration (defaults) tells by them. */
static void config_settings_text(const struct analysis_settings *s, char *out,
                                 size_t size)
{
    snprintf(out, size,
             "d_min=%zu;seed=%lu;sample_offset_s=%.15g;granularity_s=%.15g;fill_max=%u;"
             "xff=%.15g",
             s->d_min, s->seed, s->theta_s, s->base_granularity_s, s->fill_max, s->xff);
}

/* The value of key in a "key=value;..." text into out ("" when absent). */
static void setting_of(const char *text, const char *key, char *out, size_t size)
{
    size_t klen = strlen(key);

    out[0] = '\0';
    for (const char *p = text; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ';');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            snprintf(out, size, "%.*s", (int)(len - klen - 1), p + klen + 1);
            return;
        }
        p = end != NULL ? end + 1 : NULL;
    }
}

/* Records the configuration's settings; says which differ from the last analyze's. */
static enum status settings_record(struct db *db, const struct analysis_settings *s,
                                   struct error *err)
{
    /* Each key, and what a record older than the key means by its absence (the gap
     * rule's keys: the strict rule, 0 and 0, which those versions applied). */
    static const char *const keys[][2] = {{"d_min", ""},           {"seed", ""},
                                          {"sample_offset_s", ""}, {"granularity_s", ""},
                                          {"fill_max", "0"},       {"xff", "0"}};
    char now[512], before[512], before_path[1024], diff[600];
    bool had = false;
    size_t len = 0;

    config_settings_text(s, now, sizeof now);
    enum status rc =
        db_analysis_config_swap(db, now, s->config_path != NULL ? s->config_path : "",
                                &had, before, before_path, err);
    if (rc != STATUS_OK || !had || strcmp(now, before) == 0)
        return rc;
    diff[0] = '\0';
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && len < sizeof diff; k++) {
        char a[64], b[64];
        setting_of(now, keys[k][0], a, sizeof a);
        setting_of(before, keys[k][0], b, sizeof b);
        if (b[0] == '\0')
            snprintf(b, sizeof b, "%s", keys[k][1]);
        if (strcmp(a, b) == 0)
            continue;
        int m = snprintf(diff + len, sizeof diff - len, "%s%s %s, was %s",
                         len > 0 ? "; " : "", keys[k][0], a, b[0] != '\0' ? b : "unset");
        len += m > 0 ? (size_t)m : 0;
    }
    if (len == 0)
        return STATUS_OK; /* the same settings, recorded by an older version */
    /* A run that read no configuration file where the last read one (a crontab line
     * that lost its --config) would replace every group's results with the
     * defaults': refused, the record put back, nothing else touched; --force says
     * the defaults are meant. */
    const bool unconfigured = s->config_path == NULL || s->config_path[0] == '\0';
    if (unconfigured && before_path[0] != '\0' && !s->force) {
        char ignored[512], ignored_path[1024];
        bool again = false;
        rc = db_analysis_config_swap(db, before, before_path, &again, ignored,
                                     ignored_path, err);
        if (rc != STATUS_OK)
            return rc;
        return error_at(err, STATUS_INVALID, before_path, 0,
                        "the stored results are of its settings and this run read no "
                        "configuration file: give --config with it, or --force for the "
                        "defaults; nothing was changed");
    }
    /* Analysed with these: an edited configuration takes effect without a flag; the
     * results of the others can be had again by a run with their configuration. */
    log_alert("analyze: the configuration's settings differ from the last analyze's (%s; "
              "it read %s, this one %s): every group computed now replaces its stored "
              "results with results of these settings",
              diff, config_named(before_path), config_named(s->config_path));
    return STATUS_OK;
}

enum status analysis_groups_refresh(struct db *db, const struct analysis_settings *s,
                                    struct error *err)
{
    struct db_job_features *jobs = NULL;
    const char **keys = NULL;
    char(*ids)[17] = NULL;
    size_t n = 0;
    enum status rc;

    rc = db_job_features_list(db, &jobs, &n, err);
    if (rc != STATUS_OK)
        return rc;
    keys = calloc(n > 0 ? n : 1, sizeof *keys);
    ids = calloc(s->n_groups > 0 ? s->n_groups : 1, sizeof *ids);
    if (keys == NULL || ids == NULL) {
        rc = error_set(err, STATUS_NOMEM, "hand-made groups over %zu jobs", n);
        goto out;
    }
    /* The settings first: a run they refuse changes no group. */
    rc = settings_record(db, s, err);
    for (size_t g = 0; rc == STATUS_OK && g < s->n_groups; g++)
        rc = refresh_one(db, &s->groups[g], jobs, n, keys, ids[g], err);
    if (rc == STATUS_OK)
        rc = missing_handle(db, s, (const char(*)[17])ids, s->n_groups, err);
out:
    free(jobs);
    free(keys);
    free(ids);
    return rc;
}

/* Drops from the n groups the hand-made ones the configuration lacks: kept as they
 * were stored, their results are not replaced (groups.c warned of each). */
static enum status missing_leave_out(struct db *db, struct db_group *groups, size_t *n,
                                     struct error *err)
{
    struct db_hand_group_missing *missing = NULL;
    size_t n_missing = 0, kept = 0;
    enum status rc = db_hand_groups_missing(db, &missing, &n_missing, err);

    for (size_t g = 0; rc == STATUS_OK && g < *n; g++) {
        bool out = false;
        for (size_t i = 0; i < n_missing && !out; i++)
            out = strcmp(groups[g].id, missing[i].id) == 0;
        if (!out)
            groups[kept++] = groups[g];
    }
    if (rc == STATUS_OK)
        *n = kept;
    free(missing);
    return rc;
}

enum status analysis_groups_select(struct db *db, const char *group_id,
                                   struct db_group **groups, size_t *n, struct error *err)
{
    enum status rc;

    *groups = NULL;
    *n = 0;
    if (group_id == NULL) {
        rc = db_groups_list(db, groups, n, err);
    } else {
        *groups = calloc(1, sizeof **groups);
        if (*groups == NULL)
            return error_set(err, STATUS_NOMEM, "groups");
        rc = db_group_get(db, group_id, *groups, err);
        *n = rc == STATUS_OK ? 1 : 0;
    }
    return rc == STATUS_OK ? missing_leave_out(db, *groups, n, err) : rc;
}
