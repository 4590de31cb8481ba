/* group_arg.c: a --group argument read as analysis_group_resolve reads it, with the
 * exit status of every command that takes one. */
#include "internal.h"

#include <stdio.h>

int app_group_arg(struct db *db, const char *what, const char *text, struct db_group *out)
{
    struct error err = {0};
    struct group_match m;
    enum status rc = analysis_group_resolve(db, text, &m, &err);

    if (rc == STATUS_OK) {
        *out = m.group;
        group_match_clear(&m);
        return EXIT_OK;
    }
    int code = app_fail(what, rc, &err);
    if (rc == STATUS_INVALID) {
        /* the candidates, each as --group takes it */
        for (size_t i = 0; i < m.n_candidates; i++) {
            fprintf(stderr, "  %s  %s  (%ld job%s)\n", m.candidates[i].id,
                    m.candidates[i].name, m.candidates[i].jobs,
                    m.candidates[i].jobs == 1 ? "" : "s");
        }
    }
    group_match_clear(&m);
    return code;
}
