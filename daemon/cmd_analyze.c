/* cmd_analyze.c: `iocontend analyze`: computes the associations of every group and
 * stores them with what they were computed from. */
#include "internal.h"

#include "../stats/stats.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The pairs of METHOD.md §8 that issue 2 computes by default. */
static const char *const default_pairs[ANALYZE_DEFAULT_PAIRS][2] = {
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
        "  --since T    only groups with jobs or samples loaded since T (RFC 3339,\n"
        "               e.g. 2026-11-21T00:00:00Z, or a duration back from now: 36h, "
        "7d)\n"
        "  --force      recompute groups whose inputs did not change too\n"
        "A group whose jobs, samples (within a day of its jobs) and settings are those\n"
        "its stored results came from is kept as it is: a second run over unchanged\n"
        "inputs changes nothing. Each result stores its provenance.\n"
        "Then, whatever the inputs, each group's table (METHOD.md 4: features, mean and\n"
        "sd of every time metric, the T^D histogram) and the coverage of every file\n"
        "system and of all together (METHOD.md 7) are recomputed and stored.\n"
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

/* The provenance stored with each result: what it was computed from. */
static json_t *provenance_json(const struct db_group_inputs *in, const char *settings,
                               unsigned long seed)
{
    return json_pack("{s:I, s:s, s:I, s:s, s:I, s:s, s:s}", "jobs", (json_int_t)in->jobs,
                     "jobs_md5", in->jobs_md5, "samples", (json_int_t)in->samples,
                     "samples_md5", in->samples_md5, "seed", (json_int_t)seed, "version",
                     IOCONTEND_VERSION, "settings", settings);
}

/* Adds the counts of res's "excluded" object (one per reason) to sum. */
static void excluded_add(json_t *sum, json_t *res)
{
    const char *reason;
    json_t *v;

    json_object_foreach(json_object_get(res, "excluded"), reason, v)
    {
        if (strcmp(reason, "total") == 0 || !json_is_integer(v))
            continue;
        json_int_t old = json_integer_value(json_object_get(sum, reason));
        json_object_set_new(sum, reason, json_integer(old + json_integer_value(v)));
    }
}

/* "hole 3, no_io 1" for the summary: the reasons with a count. */
static void excluded_text(json_t *sum, char *out, size_t size)
{
    const char *reason;
    json_t *v;
    size_t len = 0;

    out[0] = '\0';
    json_object_foreach(sum, reason, v)
    {
        if (json_integer_value(v) == 0 || len >= size)
            continue;
        int w = snprintf(out + len, size - len, "%s%s %lld", len > 0 ? ", " : "", reason,
                         (long long)json_integer_value(v));
        len += w > 0 ? (size_t)w : 0;
    }
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
                double granularity_s, const struct analyze_opts *opts, bool progress)
{
    struct db_group *groups = NULL;
    size_t n_groups = 0;
    struct error err = {0};
    struct timespec t0, t1;
    long groups_done = 0, groups_short = 0, groups_unchanged = 0, groups_untouched = 0;
    long jobs_used = 0, jobs_excluded = 0;
    char(*touched)[17] = NULL;
    size_t n_touched = 0;
    char settings[512];
    json_t *excluded_sum = json_object();
    int code = EXIT_OK;
    enum status rc;

    analysis_settings_text(cfg, granularity_s, settings, sizeof settings);
    if (excluded_sum == NULL)
        return EXIT_SOFTWARE;

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
    if (rc == STATUS_OK && opts->since_set)
        rc = db_groups_touched_since(db, opts->since_s, &touched, &n_touched, &err);
    if (rc != STATUS_OK) {
        log_error("analyze: %s", err.msg);
        free(groups);
        json_decref(excluded_sum);
        return exit_code_of(rc);
    }
    /* METHOD.md §5: significance at the base granularity, seeded and stored. */
    struct assoc_opts ao = assoc_opts_default(cfg);
    ao.significance = cfg->permutations > 0;
    ao.significance_base_only = true;
    ao.n_perm = cfg->permutations;
    ao.rf = true; /* the forest too, at the base granularity (METHOD.md §5) */
    for (size_t g = 0; g < n_groups; g++) {
        bool short_group = false;
        struct db_group_inputs inputs;

        if (progress)
            fprintf(stderr, "\ranalyze: %zu/%zu groups", g + 1, n_groups);

        if (opts->since_set) {
            bool hit = false;
            for (size_t i = 0; i < n_touched && !hit; i++)
                hit = strcmp(touched[i], groups[g].id) == 0;
            if (!hit) {
                groups_untouched++;
                continue;
            }
        }
        rc = db_group_inputs_read(db, groups[g].id, "association", settings, &inputs,
                                  &err);
        if (rc != STATUS_OK) {
            log_error("analyze: group %s: reading its inputs: %s", groups[g].id, err.msg);
            code = exit_code_of(rc);
            goto out;
        }
        /* Unchanged inputs give the same results: leave them (and their times). */
        if (!opts->force && strcmp(inputs.fingerprint, inputs.stored_fingerprint) == 0) {
            log_debug("group %s (%s): inputs unchanged (%ld jobs, %lld samples), kept",
                      groups[g].id, groups[g].name, inputs.jobs, inputs.samples);
            groups_unchanged++;
            continue;
        }
        for (size_t p = 0; p < sizeof default_pairs / sizeof default_pairs[0]; p++) {
            json_t *res = NULL;
            error_clear(&err);
            rc = analysis_association(db, cfg, groups[g].id, default_pairs[p][0],
                                      default_pairs[p][1], granularity_s, "all", &ao,
                                      &res, &err);
            if (rc != STATUS_OK) {
                log_error("analyze: group %s %s~%s: %s", groups[g].id,
                          default_pairs[p][0], default_pairs[p][1], err.msg);
                code = exit_code_of(rc);
                goto out;
            }
            json_object_set_new(res, "provenance",
                                provenance_json(&inputs, settings, cfg->seed));
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
                excluded_add(excluded_sum, res);
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
        rc = db_group_inputs_store(db, groups[g].id, "association", settings, &inputs,
                                   &err);
        if (rc != STATUS_OK) {
            log_error("analyze: storing the inputs of group %s: %s", groups[g].id,
                      err.msg);
            code = exit_code_of(rc);
            goto out;
        }
        groups_done++;
        groups_short += short_group ? 1 : 0;
    }
    if (progress && n_groups > 0)
        fputc('\n', stderr);
    /* The tables and the coverage come from the same inputs: when no group's
     * changed, neither did they (samples that could change the coverage fall
     * within a day of some job, and so change that job's group). */
    if (groups_done > 0) {
        code = analyze_tables_run(cfg, db, group_id);
        if (code != EXIT_OK)
            goto out;
    } else {
        log_info("analyze: no group's inputs changed: group tables and coverage kept");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs =
        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (db_analysis_run_record(db, groups_done, jobs_used, jobs_excluded, secs, &err) !=
        STATUS_OK)
        log_warn("analyze: could not record the run: %s", err.msg);
    char by_reason[256];
    excluded_text(excluded_sum, by_reason, sizeof by_reason);
    log_info("analyze: %ld groups computed (%ld below d_min = %zu), %ld unchanged and "
             "kept, %ld without new inputs; %ld jobs used, %ld excluded%s%s%s; %.1f s",
             groups_done, groups_short, cfg->d_min, groups_unchanged, groups_untouched,
             jobs_used, jobs_excluded, by_reason[0] != '\0' ? " (" : "", by_reason,
             by_reason[0] != '\0' ? ")" : "", secs);
    if (groups_short > 0 || jobs_excluded > 0)
        code = EXIT_PARTIAL;
out:
    free(groups);
    free(touched);
    json_decref(excluded_sum);
    return code;
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

int cmd_analyze(struct app_config *cfg, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"group", required_argument, NULL, 'g'},
        {"granularity", required_argument, NULL, 'k'},
        {"sweep", no_argument, NULL, 'w'},
        {"k-max", required_argument, NULL, 'K'},
        {"phases", required_argument, NULL, 'p'},
        {"since", required_argument, NULL, 's'},
        {"force", no_argument, NULL, 'f'},
        {"permutations", required_argument, NULL, 'B'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *group = NULL;
    double granularity = 0;
    bool sweep = false, sweep_option = false;
    struct sweep_opts sw = {.k_max = cfg->sweep_k_max,
                            .all_phases = cfg->sweep_all_phases};
    struct analyze_opts aopts = {0};
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
        case 's':
            if (!since_parse(optarg, &aopts.since_s)) {
                fprintf(stderr,
                        "iocontend analyze: --since takes an RFC 3339 time "
                        "(2026-11-21T00:00:00Z) or a duration such as 36h or 7d, got "
                        "'%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            aopts.since_set = true;
            break;
        case 'f': aopts.force = true; break;
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
    sw.select = aopts;
    int code = sweep ? analyze_sweep_run(cfg, db, group, &sw, progress)
                     : analyze_run(cfg, db, group, granularity, &aopts, progress);
    db_close(db);
    return code;
}
