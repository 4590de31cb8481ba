/* cmd_analyze.c: `iocontend analyze`: computes the associations of every group and
 * stores them with what they were computed from. */
#include "internal.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The pairs of METHOD.md §8 that issue 2 computes by default. */
static const char *const default_pairs[][2] = {
    {"t_d", "psi_d_read"},
    {"t_d", "psi_d_write"},
    {"t_um", "psi_o_read"},
    {"t_um", "psi_o_write"},
};

static void analyze_usage(FILE *fp)
{
    fprintf(
        fp,
        "usage: iocontend analyze [--group G] [--granularity S | --sweep [--k-max N]\n"
        "                         [--phases 0|all]] [--permutations B] [--since T]\n"
        "Computes, for every application group (or G), the association of job I/O time\n"
        "with system-wide I/O for the default pairs (t_d~psi_d_read, t_d~psi_d_write,\n"
        "t_um~psi_o_read, t_um~psi_o_write) at granularity S seconds (a multiple of the\n"
        "sampling interval; default: the sampling interval), and stores the results:\n"
        "the association object with its KDE and, at the sampling interval, its\n"
        "significance (METHOD.md 5).\n"
        "  --sweep      the granularity sweep instead (METHOD.md 6): every coefficient "
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
        "  --since T    accepted; every group is recomputed for now\n"
        "exit: 0 done; 1 done but groups or jobs were excluded (or, in a sweep, dropped\n"
        "as not valid at every k); 64 usage; 69 database unavailable.\n",
        SWEEP_K_LIMIT, ANALYZE_PERMUTATIONS_MAX);
}

static long json_int_at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b != NULL)
        v = json_object_get(v, b);
    return json_is_integer(v) ? (long)json_integer_value(v) : 0;
}

/* A JSON number with 3 decimals (3 significant digits when general), or "null". */
static void number_text(const json_t *v, bool general, char *out, size_t size)
{
    if (json_is_number(v)) {
        snprintf(out, size, general ? "%.3g" : "%.3f", json_number_value(v));
    } else {
        snprintf(out, size, "null");
    }
}

int analyze_run(const struct app_config *cfg, struct db *db, const char *group_id,
                double granularity_s, bool progress)
{
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    struct error err = {0};
    struct timespec t0, t1;
    long groups_done = 0, groups_short = 0, jobs_used = 0, jobs_excluded = 0;
    int code = EXIT_OK;
    enum status rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (group_id != NULL) {
        groups = calloc(1, sizeof *groups);
        if (groups == NULL)
            return EXIT_SOFTWARE;
        rc = db_group_get(db, group_id, groups, &err);
        n_groups = rc == STATUS_OK ? 1 : 0;
    } else {
        rc = db_groups_list(db, &groups, &n_groups, &err);
    }
    if (rc != STATUS_OK) {
        log_error("analyze: %s", err.msg);
        free(groups);
        return exit_code_of(rc);
    }
    /* METHOD.md §5: significance at the base granularity, seeded and stored. */
    struct assoc_opts opts = assoc_opts_default(cfg);
    opts.significance = cfg->permutations > 0;
    opts.significance_base_only = true;
    opts.n_perm = cfg->permutations;
    for (size_t g = 0; g < n_groups; g++) {
        bool short_group = false;
        for (size_t p = 0; p < sizeof default_pairs / sizeof default_pairs[0]; p++) {
            json_t *res = NULL;
            error_clear(&err);
            rc = analysis_association(db, cfg, groups[g].id, default_pairs[p][0],
                                      default_pairs[p][1], granularity_s, "all", &opts,
                                      &res, &err);
            if (rc != STATUS_OK) {
                log_error("analyze: group %s %s~%s: %s", groups[g].id,
                          default_pairs[p][0], default_pairs[p][1], err.msg);
                code = exit_code_of(rc);
                goto out;
            }
            char *text = json_dumps(res, JSON_COMPACT | JSON_REAL_PRECISION(17));
            double gran = json_real_value(json_object_get(res, "granularity_s"));
            if (text == NULL) {
                rc = error_set(&err, STATUS_NOMEM, "result text");
            } else {
                rc =
                    db_result_store(db, groups[g].id, default_pairs[p][0],
                                    default_pairs[p][1], gran, "auto", "all", text, &err);
            }
            free(text);
            if (p == 0) {
                jobs_used += json_int_at(res, "d", NULL);
                jobs_excluded += json_int_at(res, "excluded", "total");
                short_group = json_object_get(res, "reason") != NULL;
                char r[32], w[32], pw[32];
                number_text(json_object_get(res, "pearson"), false, r, sizeof r);
                const json_t *kde = json_object_get(res, "kde");
                const json_t *sig = json_object_get(res, "significance");
                number_text(json_object_get(kde, "width_ratio"), false, w, sizeof w);
                number_text(
                    json_object_get(json_object_get(sig, "width_ratio"), "p_value"), true,
                    pw, sizeof pw);
                log_info("group %s (%s): d = %ld, excluded %ld, t_d~psi_d_read: "
                         "pearson %s, width_ratio %s (p %s)",
                         groups[g].id, groups[g].name, json_int_at(res, "d", NULL),
                         json_int_at(res, "excluded", "total"), r, w, pw);
            }
            json_decref(res);
            if (rc != STATUS_OK) {
                log_error("analyze: storing: %s", err.msg);
                code = exit_code_of(rc);
                goto out;
            }
        }
        groups_done++;
        groups_short += short_group ? 1 : 0;
        if (progress) {
            fprintf(stderr, "\ranalyze: %zu/%zu groups", g + 1, n_groups);
            if (g + 1 == n_groups)
                fputc('\n', stderr);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs =
        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (db_analysis_run_record(db, groups_done, jobs_used, jobs_excluded, secs, &err) !=
        STATUS_OK)
        log_warn("analyze: could not record the run: %s", err.msg);
    log_info("analyze: %ld groups (%ld below d_min = %zu), %ld jobs used, %ld excluded, "
             "%.1f s",
             groups_done, groups_short, cfg->d_min, jobs_used, jobs_excluded, secs);
    if (groups_short > 0 || jobs_excluded > 0)
        code = EXIT_PARTIAL;
out:
    free(groups);
    return code;
}

int cmd_analyze(struct app_config *cfg, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"group", required_argument, NULL, 'g'},
        {"granularity", required_argument, NULL, 'k'},
        {"sweep", no_argument, NULL, 'w'},
        {"k-max", required_argument, NULL, 'K'},
        {"phases", required_argument, NULL, 'p'},
        {"since", required_argument, NULL, 's'},
        {"permutations", required_argument, NULL, 'B'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *group = NULL;
    double granularity = 0;
    bool sweep = false, sweep_option = false;
    struct sweep_opts sw = {cfg->sweep_k_max, cfg->sweep_all_phases};
    struct db *db = NULL;
    struct error err = {0};
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': group = optarg; break;
        case 'k': {
            char *end;
            granularity = strtod(optarg, &end);
            if (*end != '\0' || !(granularity > 0) || !isfinite(granularity)) {
                fprintf(stderr,
                        "iocontend analyze: --granularity takes seconds > 0, got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        }
        case 'w': sweep = true; break;
        case 'K': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end != '\0' || end == optarg || v < 1 || v > SWEEP_K_LIMIT) {
                fprintf(stderr, "iocontend analyze: --k-max takes 1 to %d, got '%s'\n",
                        SWEEP_K_LIMIT, optarg);
                return EXIT_USAGE;
            }
            sw.k_max = (unsigned)v;
            sweep_option = true;
            break;
        }
        case 'p':
            if (strcmp(optarg, "all") != 0 && strcmp(optarg, "0") != 0) {
                fprintf(stderr, "iocontend analyze: --phases takes 0 or all, got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            sw.all_phases = strcmp(optarg, "all") == 0;
            sweep_option = true;
            break;
        case 'B': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end != '\0' || end == optarg || v < 0 || v > ANALYZE_PERMUTATIONS_MAX) {
                fprintf(stderr,
                        "iocontend analyze: --permutations takes 0 to %d, got '%s'\n",
                        ANALYZE_PERMUTATIONS_MAX, optarg);
                return EXIT_USAGE;
            }
            cfg->permutations = (size_t)v;
            break;
        }
        case 's': log_debug("--since %s: every group is recomputed", optarg); break;
        case 'h': analyze_usage(stdout); return EXIT_OK;
        default: analyze_usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "iocontend analyze: unexpected argument '%s'\n", argv[optind]);
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
    enum status rc = app_db_open(cfg, &db, &err);
    if (rc != STATUS_OK) {
        log_error("%s", err.msg);
        return exit_code_of(rc == STATUS_INVALID ? STATUS_INVALID : STATUS_DB);
    }
    bool progress = !cfg->quiet && isatty(STDERR_FILENO);
    int code = sweep ? analyze_sweep_run(cfg, db, group, &sw, progress)
                     : analyze_run(cfg, db, group, granularity, progress);
    db_close(db);
    return code;
}
