/* fsmap.c: the [filesystems] map from mount prefixes to monitored file systems. */
#include "ingest.h"

#include <stdlib.h>
#include <string.h>

enum status ingest_fs_map_add(struct ingest_fs_map *map, const char *prefix,
                              const char *fs_name, struct error *err)
{
    struct ingest_fs_entry *bigger;
    char *p, *f;
    size_t len;

    if (map == NULL || prefix == NULL || fs_name == NULL || prefix[0] == '\0' ||
        fs_name[0] == '\0') {
        return error_set(err, STATUS_INVALID,
                         "expected a non-empty mount prefix and file system name");
    }
    p = str_dup(prefix);
    f = str_dup(fs_name);
    bigger = realloc(map->entries, (map->n + 1) * sizeof *map->entries);
    if (p == NULL || f == NULL || bigger == NULL) {
        free(p);
        free(f);
        /* realloc failing leaves the old block valid and still owned by map */
        if (bigger != NULL)
            map->entries = bigger;
        return error_set(err, STATUS_NOMEM, "file-system map entry for %s", prefix);
    }
    /* "/scratch/" and "/scratch" mean the same mount; keep "/" itself. */
    len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        p[--len] = '\0';
    map->entries = bigger;
    map->entries[map->n].prefix = p;
    map->entries[map->n].fs_name = f;
    map->n++;
    return STATUS_OK;
}

const char *ingest_fs_lookup(const struct ingest_fs_map *map, const char *path)
{
    const char *best = NULL;
    size_t best_len = 0;

    if (map == NULL || path == NULL)
        return NULL;
    for (size_t i = 0; i < map->n; i++) {
        const char *prefix = map->entries[i].prefix;
        size_t len = strlen(prefix);

        if (strncmp(path, prefix, len) != 0)
            continue;
        /* A match must end on a path-component boundary, so "/scratch" does not
         * claim "/scratch2"; a prefix ending in '/' (only "/") is a boundary. */
        if (prefix[len - 1] != '/' && path[len] != '\0' && path[len] != '/')
            continue;
        /* Strictly longer wins, so the first of two equal prefixes stays. */
        if (best == NULL || len > best_len) {
            best = map->entries[i].fs_name;
            best_len = len;
        }
    }
    return best;
}

void ingest_fs_map_clear(struct ingest_fs_map *map)
{
    if (map == NULL)
        return;
    for (size_t i = 0; i < map->n; i++) {
        free(map->entries[i].prefix);
        free(map->entries[i].fs_name);
    }
    free(map->entries);
    map->entries = NULL;
    map->n = 0;
}
