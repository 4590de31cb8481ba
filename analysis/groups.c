/* groups.c: hand-made groups (METHOD.md §4): which jobs each [group NAME] rule of the
 * configuration matches, evaluated at analyze and stored as the group's members. */
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

/* The configuration is the hand-made groups' source: one that left it goes with its
 * results, which an administrator should read in the log. */
static enum status log_removed(struct db *db, const char (*keep)[17], size_t n,
                               struct error *err)
{
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    enum status rc = db_groups_list(db, &groups, &n_groups, err);

    for (size_t i = 0; rc == STATUS_OK && i < n_groups; i++) {
        bool kept = strncmp(groups[i].key, "hand:", 5) != 0;
        for (size_t k = 0; k < n && !kept; k++)
            kept = strcmp(groups[i].id, keep[k]) == 0;
        if (!kept) {
            log_warn("group %s (%s) is no longer in the configuration: removed with its "
                     "results",
                     groups[i].id, groups[i].key);
        }
    }
    free(groups);
    return rc;
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
    for (size_t g = 0; rc == STATUS_OK && g < s->n_groups; g++)
        rc = refresh_one(db, &s->groups[g], jobs, n, keys, ids[g], err);
    if (rc == STATUS_OK)
        rc = log_removed(db, (const char(*)[17])ids, s->n_groups, err);
    if (rc == STATUS_OK)
        rc = db_hand_groups_prune(db, (const char(*)[17])ids, s->n_groups, err);
out:
    free(jobs);
    free(keys);
    free(ids);
    return rc;
}
