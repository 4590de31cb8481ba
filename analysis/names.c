/* names.c: the one reading of a group given by a person (--group, group=): its id, or
 * its name as db_groups_list shows it, or a shared name without its " #" suffix when
 * only one group bears it. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void group_match_clear(struct group_match *m)
{
    free(m->candidates);
    m->candidates = NULL;
    m->n_candidates = 0;
}

/* The length of g's name without the " #" and 8 hex digits of its id that sql/ adds
 * to a shared name; the whole length when it has none. */
static size_t base_len(const struct db_group *g)
{
    size_t len = strlen(g->name);

    if (len > 10 && strncmp(g->name + len - 10, " #", 2) == 0 &&
        strncmp(g->name + len - 8, g->id, 8) == 0)
        return len - 10;
    return len;
}

enum status analysis_group_resolve(struct db *db, const char *text,
                                   struct group_match *out, struct error *err)
{
    struct db_group *all = NULL;
    struct error by_id = {0};
    size_t n = 0, hits = 0;
    enum status rc;

    memset(out, 0, sizeof *out);
    rc = db_group_get(db, text, &out->group, &by_id);
    if (rc != STATUS_NOT_FOUND) {
        if (rc != STATUS_OK && err != NULL)
            *err = by_id;
        return rc;
    }
    rc = db_groups_list(db, &all, &n, err);
    if (rc != STATUS_OK)
        return rc;
    const size_t len = strlen(text);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(all[i].name, text) == 0) { /* a shown name: one group */
            out->group = all[i];
            free(all);
            return STATUS_OK;
        }
    }
    /* the bare name of a shared one: the groups that share it, in place */
    for (size_t i = 0; i < n; i++) {
        if (base_len(&all[i]) == len && strncmp(all[i].name, text, len) == 0)
            all[hits++] = all[i];
    }
    if (hits == 0) {
        free(all);
        return error_set(err, STATUS_NOT_FOUND, "no group with id or name '%s'", text);
    }
    if (hits == 1) {
        out->group = all[0];
        free(all);
        return STATUS_OK;
    }
    out->candidates = all;
    out->n_candidates = hits;
    return error_set(err, STATUS_INVALID,
                     "%zu groups are named '%s': give one of their names or ids", hits,
                     text);
}
