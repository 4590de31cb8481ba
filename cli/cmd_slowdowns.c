/* cmd_slowdowns.c: `iocontend slowdowns`: the slowdowns of a period (docs/operations.md
 * "Who got hurt"), as a table or as /api/v1/slowdowns's JSON. */
#include "internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOWDOWNS_LIMIT_DEFAULT 20
#define SLOWDOWNS_LIMIT_MAX     1000

void cmd_slowdowns_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend slowdowns [--from T] [--to T] [--group G] [--limit N]\n"
        "                           [--y M] [--x M] [--granularity S] [--json]\n"
        "Who got hurt: the jobs whose run overlaps [from, to), ranked by\n"
        "ratio = y / q50(x), q50 the median of y at the job's own x from the KDE\n"
        "that analyze stored for its group, with the percentile F(y | x) of the same\n"
        "KDE (ties by start time). A job is ranked in the most specific of its groups\n"
        "with a stored KDE: a hand-made group ([group NAME], fewest jobs first)\n"
        "before its default group; the group column says which.\n"
        "Jobs that cannot be ranked are listed apart with\n"
        "their reason: a metric excluded (hole, no_io, ...), a group analyze did not\n"
        "store (not_analyzed) or stored before its data changed (stale), one below\n"
        "d_min (d_below_min), an x outside the KDE's range (x_out_of_range).\n"
        "  --from T, --to T  RFC 3339 or epoch milliseconds (default: open)\n"
        "  --group G         only the jobs of group G (its id or name), ranked in it\n"
        "  --limit N         jobs listed of each kind, 1..%d (%d)\n"
        "  --y M, --x M      the pair (default t_d, psi_d_read)\n"
        "  --granularity S   a stored granularity, seconds (default: the base)\n"
        "  --json            the object /api/v1/slowdowns answers\n"
        "exit status: 0 every job ranked, 1 some listed apart, 64 usage (or a name\n"
        "several groups share: listed), 66 no samples loaded or no such group,\n"
        "69 database unavailable, 70 internal error\n",
        SLOWDOWNS_LIMIT_MAX, SLOWDOWNS_LIMIT_DEFAULT);
}

static void when(double epoch_s, char out[40])
{
    time_format_rfc3339((int64_t)floor(epoch_s), out);
}

static void print_table(const struct slowdowns *sl)
{
    char start[40];

    printf("who got hurt: %zu jobs%s%s, %s against %s at %g s; %zu ranked, %zu apart\n",
           sl->jobs, sl->group[0] != '\0' ? " of group " : "", sl->group, sl->y, sl->x,
           sl->granularity_s, sl->ranked_total, sl->apart_total);
    if (sl->n_ranked > 0) {
        printf("%4s  %-12s %-16s %-20s %12s %12s %8s %10s\n", "rank", "jobid", "group",
               "start", "y", "q50", "ratio", "percentile");
    }
    for (size_t i = 0; i < sl->n_ranked; i++) {
        const struct slowdown_job *j = &sl->ranked[i];
        when(j->start_s, start);
        printf("%4zu  %-12s %-16s %-20s %12.6g %12.6g %8.3f %10.4f\n", i + 1, j->jobid,
               j->group, start, j->y, j->q50, j->ratio, j->percentile);
    }
    if (sl->n_apart > 0)
        printf("apart:\n%-12s %-16s %-20s %s\n", "jobid", "group", "start", "reason");
    for (size_t i = 0; i < sl->n_apart; i++) {
        const struct slowdown_job *j = &sl->apart[i];
        when(j->start_s, start);
        printf("%-12s %-16s %-20s %s\n", j->jobid, j->group, start, j->reason);
    }
}

int cmd_slowdowns(struct app_config *cfg, int argc, char **argv)
{
    const char *y = "t_d", *x = "psi_d_read", *group = NULL;
    double from_s = NAN, to_s = NAN, granularity = 0;
    long limit = SLOWDOWNS_LIMIT_DEFAULT;
    bool json = false;
    const struct app_option opts[] = {{"from", OPT_OWN, NULL, 0, 0, NULL, 'f'},
                                      {"to", OPT_OWN, NULL, 0, 0, NULL, 't'},
                                      {"group", OPT_TEXT, &group, 0, 0, NULL, 0},
                                      {"limit", OPT_OWN, NULL, 0, 0, NULL, 'l'},
                                      {"y", OPT_TEXT, &y, 0, 0, NULL, 0},
                                      {"x", OPT_TEXT, &x, 0, 0, NULL, 0},
                                      {"granularity", OPT_OWN, NULL, 0, 0, NULL, 'k'},
                                      {"json", OPT_FLAG, &json, 0, 0, NULL, 0},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct db *db = NULL;
    struct error err = {0};
    struct slowdowns sl;
    char *end;
    int c;

    app_options_init(&p, "slowdowns", opts, cmd_slowdowns_help, argc, argv);
    while ((c = app_options_next(&p)) != 0) {
        const char *arg = p.arg;
        switch (c) {
        case 'f':
        case 't':
            if (!app_time_arg(arg, c == 'f' ? &from_s : &to_s)) {
                fprintf(stderr,
                        "iocontend slowdowns: --%s takes RFC 3339 or epoch "
                        "milliseconds, got '%s'\n",
                        c == 'f' ? "from" : "to", arg);
                return EXIT_USAGE;
            }
            break;
        case 'l':
            limit = strtol(arg, &end, 10);
            if (*end != '\0' || limit < 1 || limit > SLOWDOWNS_LIMIT_MAX) {
                fprintf(stderr, "iocontend slowdowns: --limit takes 1 to %d\n",
                        SLOWDOWNS_LIMIT_MAX);
                return EXIT_USAGE;
            }
            break;
        case 'k':
            granularity = strtod(arg, &end);
            if (*end != '\0' || !(granularity > 0) || !isfinite(granularity)) {
                fprintf(stderr, "iocontend slowdowns: --granularity takes seconds > 0\n");
                return EXIT_USAGE;
            }
            break;
        default: break;
        }
    }
    if (p.status >= 0)
        return p.status;
    int rest = app_options_rest(&p);
    if (rest < argc) {
        fprintf(stderr, "iocontend slowdowns: unexpected '%s'\n", argv[rest]);
        return EXIT_USAGE;
    }
    if (!isnan(from_s) && !isnan(to_s) && !(to_s > from_s)) {
        fprintf(stderr, "iocontend slowdowns: --to must be after --from\n");
        return EXIT_USAGE;
    }
    int code = app_db_open(cfg, &db);
    if (code != EXIT_OK)
        return code;
    struct db_group g;
    if (group != NULL) {
        code = app_group_arg(db, "slowdowns", group, &g);
        if (code != EXIT_OK) {
            db_close(db);
            return code;
        }
    }
    const struct analysis_settings settings = app_analysis_settings(cfg);
    enum status rc =
        analysis_slowdowns(db, &settings, from_s, to_s, group != NULL ? g.id : NULL, y, x,
                           granularity, (size_t)limit, &sl, &err);
    db_close(db);
    if (rc != STATUS_OK)
        return app_fail("slowdowns", rc, &err);
    if (json) {
        json_t *o = analysis_slowdowns_json(&sl);
        if (o == NULL || json_dumpf(o, stdout, JSON_INDENT(2)) != 0) {
            json_decref(o);
            slowdowns_clear(&sl);
            return app_fail("slowdowns", STATUS_NOMEM, &err);
        }
        json_decref(o);
        fputc('\n', stdout);
    } else {
        print_table(&sl);
    }
    code = sl.apart_total > 0 ? EXIT_PARTIAL : EXIT_OK;
    slowdowns_clear(&sl);
    return code;
}
