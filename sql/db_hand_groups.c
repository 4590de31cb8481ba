/* db_hand_groups.c: hand-made groups (docs/method.md §4): the jobs' features their rules
 * match, and the membership analyze stores. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill_job_features(void *row_out, const PGresult *r, int row)
{
    struct db_job_features *j = row_out;

    copy_text(j->job_key, sizeof j->job_key, r, row, 0);
    copy_text(j->jobid, sizeof j->jobid, r, row, 1);
    j->uid = (uint64_t)get_int64(r, row, 2);
    copy_text(j->executable, sizeof j->executable, r, row, 3);
    j->nprocs = get_int64(r, row, 4);
    j->bytes = get_int64(r, row, 5);
}

enum status db_job_features_list(struct db *db, struct db_job_features **out, size_t *n,
                                 struct error *err)
{
    void *rows;
    enum status rc = fetch_rows(db,
                                "SELECT job_key, jobid, uid, executable, nprocs, "
                                "eta_read + eta_write FROM jobs ORDER BY job_key",
                                0, NULL, sizeof **out, fill_job_features, "job features",
                                &rows, n, err);
    *out = rows;
    return rc;
}

/* A text[] literal of n items (malloc'd; NULL without memory). */
static char *text_array(const char *const *items, size_t n)
{
    struct buf b = {0};

    if (!buf_text_array(&b, items, n)) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

enum status db_hand_group_store(struct db *db, const char *group_id, const char *name,
                                const char *key, const char *rule,
                                const char *const *job_keys, size_t n, struct error *err)
{
    char *keys = text_array(job_keys, n);
    enum status rc;

    if (keys == NULL)
        return error_set(err, STATUS_NOMEM, "members of group %s", group_id);
    const char *group[4] = {group_id, name, key, rule};
    const char *members[2] = {group_id, keys};
    rc = exec_cmd(db, "BEGIN", err);
    if (rc != STATUS_OK)
        goto out;
    rc =
        exec_params_cmd(db,
                        "INSERT INTO app_groups (group_id, name, key, rule) "
                        "VALUES ($1, $2, $3, $4) ON CONFLICT (group_id) DO UPDATE SET "
                        "name = EXCLUDED.name, key = EXCLUDED.key, rule = EXCLUDED.rule, "
                        "missing_since = NULL",
                        4, group, err);
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(db,
                             "DELETE FROM group_members WHERE group_id = $1 "
                             "AND job_key <> ALL ($2::text[])",
                             2, members, err);
    }
    if (rc == STATUS_OK) {
        rc = exec_params_cmd(db,
                             "INSERT INTO group_members (group_id, job_key) "
                             "SELECT $1, k FROM unnest($2::text[]) AS k "
                             "ON CONFLICT DO NOTHING",
                             2, members, err);
    }
    if (rc == STATUS_OK)
        rc = exec_cmd(db, "COMMIT", err);
    if (rc != STATUS_OK)
        rollback(db);
out:
    free(keys);
    return rc;
}

/* The n group ids of keep as one text[] literal (malloc'd; NULL when out of memory). */
static char *ids_array(const char (*keep)[17], size_t n)
{
    const char **items = calloc(n > 0 ? n : 1, sizeof *items);
    char *ids = NULL;

    for (size_t i = 0; items != NULL && i < n; i++)
        items[i] = keep[i];
    if (items != NULL)
        ids = text_array(items, n);
    free(items);
    return ids;
}

enum status db_hand_groups_prune(struct db *db, const char (*keep)[17], size_t n,
                                 struct error *err)
{
    char *ids = ids_array(keep, n);
    enum status rc;

    if (ids == NULL)
        return error_set(err, STATUS_NOMEM, "hand-made groups");
    const char *vals[1] = {ids};
    /* results has no ON DELETE CASCADE (0001): its rows go first; group_inputs and
     * group_members follow app_groups. */
    rc = replace_rows(
        db,
        "DELETE FROM results WHERE group_id IN (SELECT group_id FROM "
        "app_groups WHERE rule IS NOT NULL AND group_id <> ALL ($1::text[]))",
        1, vals,
        "DELETE FROM app_groups WHERE rule IS NOT NULL AND group_id <> ALL ($1::text[])",
        1, vals, err);
    free(ids);
    return rc;
}

#define MISSING_COLUMNS                                                                  \
    "group_id, key, rule, to_char(missing_since AT TIME ZONE 'UTC', "                    \
    "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

static void fill_missing(void *row_out, const PGresult *r, int row)
{
    struct db_hand_group_missing *g = row_out;

    copy_text(g->id, sizeof g->id, r, row, 0);
    copy_text(g->key, sizeof g->key, r, row, 1);
    copy_text(g->rule, sizeof g->rule, r, row, 2);
    copy_text(g->since, sizeof g->since, r, row, 3);
}

enum status db_hand_groups_mark_missing(struct db *db, const char (*keep)[17], size_t n,
                                        struct db_hand_group_missing **out, size_t *n_out,
                                        struct error *err)
{
    char *ids = ids_array(keep, n);
    void *rows = NULL;
    enum status rc;

    *out = NULL;
    *n_out = 0;
    if (ids == NULL)
        return error_set(err, STATUS_NOMEM, "hand-made groups");
    const char *vals[1] = {ids};
    /* The first run that lacked a group sets its time; later ones keep it. */
    rc = fetch_rows(db,
                    "WITH m AS (UPDATE app_groups SET missing_since = "
                    "coalesce(missing_since, now()) WHERE rule IS NOT NULL AND "
                    "group_id <> ALL ($1::text[]) RETURNING " MISSING_COLUMNS ") "
                    "SELECT * FROM m ORDER BY 1",
                    1, vals, sizeof **out, fill_missing, "missing hand-made groups",
                    &rows, n_out, err);
    free(ids);
    *out = rows;
    return rc;
}

enum status db_hand_groups_missing(struct db *db, struct db_hand_group_missing **out,
                                   size_t *n_out, struct error *err)
{
    void *rows = NULL;
    enum status rc = fetch_rows(db,
                                "SELECT " MISSING_COLUMNS " FROM app_groups WHERE rule "
                                "IS NOT NULL AND missing_since IS NOT NULL ORDER BY 1",
                                0, NULL, sizeof **out, fill_missing,
                                "missing hand-made groups", &rows, n_out, err);
    *out = rows;
    return rc;
}

enum status db_analysis_config_swap(struct db *db, const char *settings, const char *path,
                                    bool *had, char prev_settings[512],
                                    char prev_path[1024], struct error *err)
{
    PGresult *r = NULL;
    const char *vals[2] = {settings, path};
    /* The CTE's SELECT sees the row as it was before the upsert. */
    enum status rc = exec_params(
        db,
        "WITH old AS (SELECT settings, config_path FROM analysis_config), "
        "up AS (INSERT INTO analysis_config (id, settings, config_path) "
        "VALUES (true, $1, $2) ON CONFLICT (id) DO UPDATE SET settings = "
        "EXCLUDED.settings, config_path = EXCLUDED.config_path, analyzed_at = now()) "
        "SELECT settings, config_path FROM old",
        2, vals, &r, err);

    *had = false;
    prev_settings[0] = '\0';
    prev_path[0] = '\0';
    if (rc != STATUS_OK)
        return rc;
    if (PQntuples(r) > 0) {
        *had = true;
        copy_text(prev_settings, 512, r, 0, 0);
        copy_text(prev_path, 1024, r, 0, 1);
    }
    PQclear(r);
    return STATUS_OK;
}
