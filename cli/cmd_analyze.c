/* cmd_analyze.c: `iocontend analyze`: computes the associations of every group and
 * stores them with what they were computed from. */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cmd_analyze_help(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend analyze [--group G] [--granularity S | --sweep [--k-max N]\n"
        "                         [--phases 0|all]] [--permutations B] [--since T]\n"
        "                         [--force] [--no-wait] [--prune]\n"
        "Computes, for every application group (or G), the association of job I/O time\n"
        "with system-wide I/O for the default pairs (t_d~psi_d_read, t_d~psi_d_write,\n"
        "t_um~psi_o_read, t_um~psi_o_write, and the servers' queue t_d~q_d, tau~q_d,\n"
        "method §11; and t_x~psi_x_read, t_x~psi_x_write for a group with a DXT\n"
        "trace, method §10) at granularity S seconds (a multiple of\n"
        "the sampling interval; default: the sampling interval), and stores the "
        "results:\n"
        "the association object with its KDE and, at the sampling interval, its\n"
        "significance (method §5).\n"
        "  --sweep      the granularity sweep instead (method §6): every coefficient "
        "of\n"
        "               those pairs and t_i~psi_i_read, t_i~psi_i_write, tau~b_d at k "
        "times\n"
        "               the sampling interval, k = 1..N, over the jobs valid at every "
        "k;\n"
        "               whether each falls with k, and the recommended sampling "
        "interval\n"
        "  --k-max N    the largest k, 1 to %d ([analysis] sweep_k_max, default 20)\n"
        "  --phases P   0: phase 0 only (default); all: every phase 0..k-1 at each k,\n"
        "               reporting their mean and range ([analysis] sweep_phases)\n"
        "  --permutations B  permutations of the significance test, 0 to %d\n"
        "               ([analysis] permutations, default 999; 0: no significance;\n"
        "               about 6 s per pair at d = 420 with 999)\n"
        "  --since T    only groups with jobs or samples loaded since T (RFC 3339,\n"
        "               e.g. 2026-11-21T00:00:00Z, or a duration back from now: 36h, "
        "7d)\n"
        "  --force      recompute groups whose inputs did not change too\n"
        "  --no-wait    exit 75 when another analyze is running (default: wait for it)\n"
        "  --prune      remove the stored hand-made groups the configuration lacks, "
        "with\n"
        "               their results (without it they are kept, not recomputed, and\n"
        "               every run warns of each, under --quiet too)\n"
        "A group whose jobs, samples (within a day of its jobs) and settings are those\n"
        "its stored results came from is kept as it is: a second run over unchanged\n"
        "inputs changes nothing. Each result stores its provenance.\n"
        "The configuration's settings (d_min, seed, sample_offset_s, granularity_s,\n"
        "fill_max, xff) are recorded; when they differ from the last analyze's, this\n"
        "run uses them and warns, naming each, that the groups it computes replace\n"
        "their results;\n"
        "a run that read no configuration file where the last one read one is refused\n"
        "(64: give --config, or --force for the defaults).\n"
        "Then, whatever the inputs, each group's table (method §4: features, mean and\n"
        "sd of every time metric, the T^D histogram) and the coverage of every file\n"
        "system and of all together (method §7) are recomputed and stored.\n"
        "exit: 0 done; 1 done but groups or jobs were excluded (or, in a sweep, dropped\n"
        "as not valid at every k); 64 usage; 66 no such group; 69 database unavailable\n"
        "(or the state directory holds none);\n"
        "75 another analyze is running (--no-wait).\n",
        SWEEP_K_LIMIT, ANALYZE_PERMUTATIONS_MAX);
}

/* --since: RFC 3339, or N followed by m, h or d meaning that long before now. */
static bool since_parse(const char *s, double *out_s)
{
    char *end = NULL;
    double n = strtod(s, &end);

    if (end != s && isdigit((unsigned char)s[0]) && end[0] != '\0' && end[1] == '\0' &&
        isfinite(n)) {
        double unit = end[0] == 'm'   ? 60
                      : end[0] == 'h' ? 3600
                      : end[0] == 'd' ? 86400
                                      : 0;
        if (unit == 0)
            return false;
        *out_s = (double)time(NULL) - n * unit;
        return true;
    }
    return time_parse_rfc3339(s, out_s);
}

/* The id of the group --group names into id ("" when none is stored: analyze_run
 * says so); EXIT_OK, or the exit status of a name several groups share (listed). */
static int analyze_group_arg(struct db *db, const char *text, char id[17])
{
    struct error err = {0};
    struct group_match m;
    enum status rc = analysis_group_resolve(db, text, &m, &err);

    id[0] = '\0';
    group_match_clear(&m);
    if (rc == STATUS_OK)
        snprintf(id, 17, "%s", m.group.id);
    if (rc == STATUS_OK || rc == STATUS_NOT_FOUND)
        return EXIT_OK;
    return app_group_arg(db, "analyze", text, &m.group);
}

int cmd_analyze(struct app_config *cfg, int argc, char **argv)
{
    const char *group = NULL;
    double granularity = 0;
    bool sweep = false, sweep_option = false, no_wait = false;
    struct analysis_settings settings = app_analysis_settings(cfg);
    struct analyze_select sel = {0};
    long k_max = 0, permutations = 0;
    const struct app_option opts[] = {
        {"group", OPT_TEXT, &group, 0, 0, NULL, 0},
        {"granularity", OPT_OWN, NULL, 0, 0, NULL, 'k'},
        {"sweep", OPT_FLAG, &sweep, 0, 0, NULL, 0},
        {"k-max", OPT_WHOLE, &k_max, 1, SWEEP_K_LIMIT, "", 'K'},
        {"phases", OPT_OWN, NULL, 0, 0, NULL, 'p'},
        {"since", OPT_OWN, NULL, 0, 0, NULL, 's'},
        {"force", OPT_FLAG, &sel.force, 0, 0, NULL, 'f'},
        {"no-wait", OPT_FLAG, &no_wait, 0, 0, NULL, 0},
        {"prune", OPT_FLAG, &settings.prune, 0, 0, NULL, 0},
        {"permutations", OPT_WHOLE, &permutations, 0, ANALYZE_PERMUTATIONS_MAX, "", 'B'},
        {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct db *db = NULL;
    int c;

    app_options_init(&p, "analyze", opts, cmd_analyze_help, argc, argv);
    while ((c = app_options_next(&p)) != 0) {
        const char *arg = p.arg;
        switch (c) {
        case 'k': {
            char *end;
            granularity = strtod(arg, &end);
            if (*end != '\0' || !(granularity > 0) || !isfinite(granularity)) {
                fprintf(stderr,
                        "iocontend analyze: --granularity takes seconds > 0, got '%s'\n",
                        arg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'K':
            settings.k_max = (unsigned)k_max;
            sweep_option = true;
            break;
        case 'p':
            if (strcmp(arg, "all") != 0 && strcmp(arg, "0") != 0) {
                fprintf(stderr, "iocontend analyze: --phases takes 0 or all, got '%s'\n",
                        arg);
                return EXIT_USAGE;
            }
            settings.all_phases = strcmp(arg, "all") == 0;
            sweep_option = true;
            break;
        case 's':
            if (!since_parse(arg, &sel.since_s)) {
                fprintf(stderr,
                        "iocontend analyze: --since takes an RFC 3339 time "
                        "(2026-11-21T00:00:00Z) or a duration such as 36h or 7d, got "
                        "'%s'\n",
                        arg);
                return EXIT_USAGE;
            }
            sel.since_set = true;
            break;
        case 'f': settings.force = true; break;
        case 'B': settings.permutations = (size_t)permutations; break;
        default: break;
        }
    }
    if (p.status >= 0)
        return p.status;
    int rest = app_options_rest(&p);
    if (rest < argc) {
        fprintf(stderr, "iocontend analyze: unexpected argument '%s'\n", argv[rest]);
        return EXIT_USAGE;
    }
    if (sweep && granularity > 0) {
        fprintf(stderr,
                "iocontend analyze: --granularity and --sweep exclude each other\n");
        return EXIT_USAGE;
    }
    if (sweep_option && !sweep) {
        fprintf(stderr, "iocontend analyze: --k-max and --phases need --sweep\n");
        return EXIT_USAGE;
    }
    int code = app_db_open(cfg, &db);
    if (code == EXIT_OK)
        code = app_run_lock(db, "analyze", no_wait);
    if (code != EXIT_OK) {
        db_close(db);
        return code;
    }
    char group_id[17];
    if (group != NULL) {
        /* by id or name; one not stored yet is analyze_run's to refuse (a hand-made
         * group is stored by the run itself) */
        code = analyze_group_arg(db, group, group_id);
        if (code != EXIT_OK) {
            db_close(db);
            return code;
        }
        if (group_id[0] != '\0')
            group = group_id;
    }
    struct app_progress bar;
    struct progress progress;
    struct analyze_summary sum;
    struct error err = {0};
    app_progress_init(&bar, cfg);
    enum status rc = sweep
                         ? analyze_sweep_run(db, &settings, group, &sel,
                                             app_progress_of(&bar, &progress), &sum, &err)
                         : analyze_run(db, &settings, group, granularity, &sel,
                                       app_progress_of(&bar, &progress), &sum, &err);
    db_close(db);
    if (rc != STATUS_OK)
        return app_fail(sweep ? "analyze --sweep" : "analyze", rc, &err);
    return analyze_summary_partial(&sum) ? EXIT_PARTIAL : EXIT_OK;
}
