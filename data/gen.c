/* gen.c: iocontend-gen, a sample data set of real-format logs with planted effects. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_USAGE    64
#define EXIT_INTERNAL 70
#define EXIT_CANTMAKE 73

static const char usage_text[] =
    "usage: iocontend-gen [--out DIR] [--seed N] [--coupling C] [--days D]\n"
    "                     [--jobs-per-group N] [--darshan-format F] [--dxt-ops N]\n"
    "                     [--victims N] [--interval-s S] [--iostat-days F-L]\n"
    "                     [--help]\n"
    "Writes a sample data set: iostat text of two monitored scratch file systems,\n"
    "darshan-parser text of three application groups (esb, npc, npb), iocontend.conf\n"
    "and truth.csv. The output depends only on the seed and the parameters.\n"
    "  --out DIR            output folder (var/sample)\n"
    "  --seed N             random seed, 0-4294967295 (20240601)\n"
    "  --coupling C         strength of the planted contention effects, 0 = none (1.0)\n"
    "  --days D             length of the iostat series in days, the jobs spread over\n"
    "                       them, 1-400 (3)\n"
    "  --jobs-per-group N   jobs in each group, 1-40000 (420)\n"
    "  --darshan-format F   text (NAME.parser.txt), binary (NAME.darshan, log format\n"
    "                       3.41, zlib) or both: the same records either way (text)\n"
    "  --dxt-ops N          binary logs also hold a DXT_POSIX trace: per file record\n"
    "                       up to N writes and N reads, a shared file's dealt over its\n"
    "                       ranks, 0-4096 (0: no trace)\n"
    "  --victims N          jobs per group slowed x3 whatever the load (victim = 1\n"
    "                       in truth.csv), 0-10 (3; none with --coupling 0)\n"
    "  --interval-s S       iostat's sampling interval in seconds, a divisor of 60 (60)\n"
    "  --iostat-days F-L    only days F to L (1-based) of the iostat series, into\n"
    "                       <host>.days-F-L.iostat.txt, each file a run of its own: a\n"
    "                       long history written and loaded a chunk at a time; the\n"
    "                       days read the same as in the whole series (every day)\n";

/* Independent random streams, so that e.g. more jobs leave the background unchanged. */
enum stream { STREAM_BACKGROUND = 1, STREAM_JOBS, STREAM_SPLIT };

static int parse_ulong(const char *s, unsigned long lo, unsigned long hi,
                       unsigned long *out)
{
    char *end = NULL;
    unsigned long v;

    if (s[0] == '-' || s[0] == '\0')
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* --iostat-days F-L: 1 <= F <= L <= 400 (checked against --days once all are read). */
static int parse_days(const char *s, struct data_params *p)
{
    char first[16];
    const char *dash = strchr(s, '-');
    unsigned long f = 0, l = 0;

    if (dash == NULL || (size_t)(dash - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(dash - s));
    first[dash - s] = '\0';
    if (parse_ulong(first, 1, 400, &f) != 0 || parse_ulong(dash + 1, f, 400, &l) != 0)
        return -1;
    p->iostat_first_day = (unsigned)f;
    p->iostat_last_day = (unsigned)l;
    return 0;
}

/* --darshan-format: text, binary or both. */
static int parse_format(const char *s, unsigned *formats)
{
    static const char *const names[] = {"text", "binary", "both"};
    static const unsigned bits[] = {DATA_DARSHAN_TEXT, DATA_DARSHAN_BINARY,
                                    DATA_DARSHAN_TEXT | DATA_DARSHAN_BINARY};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i]) == 0) {
            *formats = bits[i];
            return 0;
        }
    }
    return -1;
}

static int parse_option(int opt, const char *arg, struct data_params *p)
{
    unsigned long v = 0;

    switch (opt) {
    case 'o': p->out_dir = arg; return arg[0] == '\0' ? -1 : 0;
    case 's': return parse_ulong(arg, 0, 4294967295UL, &p->seed);
    case 'c': return parse_double(arg, 0.0, 10.0, &p->coupling);
    case 'd':
        if (parse_ulong(arg, 1, 400, &v) != 0)
            return -1;
        p->days = (unsigned)v;
        return 0;
    case 'j':
        if (parse_ulong(arg, 1, 40000, &v) != 0)
            return -1;
        p->jobs_per_group = (unsigned)v;
        return 0;
    case 'f': return parse_format(arg, &p->darshan_formats);
    case 'x':
        if (parse_ulong(arg, 0, 4096, &v) != 0)
            return -1;
        p->dxt_ops = (unsigned)v;
        return 0;
    case 'v':
        if (parse_ulong(arg, 0, 10, &v) != 0)
            return -1;
        p->victims = (unsigned)v;
        return 0;
    case 'i':
        if (parse_ulong(arg, 1, 60, &v) != 0 || 60 % v != 0)
            return -1;
        p->interval_s = (unsigned)v;
        return 0;
    case 'r': return parse_days(arg, p);
    default: return -1;
    }
}

/* 0: run; 1: --help was given; -1: usage error (already reported). */
static int parse_args(int argc, char **argv, struct data_params *p)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, 's'},
        {"coupling", required_argument, NULL, 'c'},
        {"days", required_argument, NULL, 'd'},
        {"jobs-per-group", required_argument, NULL, 'j'},
        {"darshan-format", required_argument, NULL, 'f'},
        {"dxt-ops", required_argument, NULL, 'x'},
        {"victims", required_argument, NULL, 'v'},
        {"interval-s", required_argument, NULL, 'i'},
        {"iostat-days", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, index = -1;

    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, &index)) != -1) {
        if (opt == 'h')
            return 1;
        if (opt == '?') {
            fprintf(stderr, "iocontend-gen: unknown option or missing value: %s\n%s",
                    argv[optind - 1], usage_text);
            return -1;
        }
        if (parse_option(opt, optarg, p) != 0) {
            fprintf(stderr, "iocontend-gen: bad value for --%s: '%s'\n%s",
                    longopts[index].name, optarg, usage_text);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "iocontend-gen: unexpected argument %s\n%s", argv[optind],
                usage_text);
        return -1;
    }
    if (p->dxt_ops > 0 && !(p->darshan_formats & DATA_DARSHAN_BINARY)) {
        fprintf(stderr,
                "iocontend-gen: --dxt-ops needs --darshan-format binary or both "
                "(the text holds no trace)\n%s",
                usage_text);
        return -1;
    }
    if (p->iostat_last_day > p->days) {
        fprintf(stderr, "iocontend-gen: --iostat-days %u-%u is past --days %u\n%s",
                p->iostat_first_day, p->iostat_last_day, p->days, usage_text);
        return -1;
    }
    return 0;
}

/* mkdir -p: every component of path. */
static enum status make_dirs(const char *path, struct error *err)
{
    char buf[4096];
    size_t len = strlen(path);

    if (len >= sizeof buf)
        return error_set(err, STATUS_NOT_FOUND, "%s: path too long", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return error_set(err, STATUS_NOT_FOUND, "%s: %s", buf, strerror(errno));
        buf[i] = path[i];
    }
    return STATUS_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Removes our own earlier output (files ending in suffix) from dir, so that a rerun
 * with fewer jobs leaves no stale logs; nothing else is touched. */
static enum status clear_dir(const char *dir, const char *suffix, struct error *err)
{
    DIR *d = opendir(dir);
    const struct dirent *e;

    if (d == NULL)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, suffix))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0) {
            closedir(d);
            return error_set(err, STATUS_NOT_FOUND, "%s/%s: %s", dir, e->d_name,
                             strerror(errno));
        }
    }
    closedir(d);
    return STATUS_OK;
}

static enum status prepare_dir(const char *out, const char *sub, const char *suffix,
                               struct error *err)
{
    char path[4096];
    enum status rc;

    snprintf(path, sizeof path, "%s/%s", out, sub);
    rc = make_dirs(path, err);
    return rc != STATUS_OK ? rc : clear_dir(path, suffix, err);
}

static enum status prepare_out(const struct data_params *p, struct error *err)
{
    char sub[64];
    enum status rc = STATUS_OK;

    for (int g = 0; g < DATA_NGROUPS && rc == STATUS_OK; g++) {
        snprintf(sub, sizeof sub, "darshan/%s",
                 data_group_info((enum data_group)g)->name);
        rc = prepare_dir(p->out_dir, sub, ".parser.txt", err);
        if (rc == STATUS_OK) /* an earlier run's other format */
            rc = prepare_dir(p->out_dir, sub, ".darshan", err);
    }
    for (int f = 0; f < DATA_NFS && rc == STATUS_OK; f++) {
        snprintf(sub, sizeof sub, "iostat/scratch%d", f + 1);
        rc = prepare_dir(p->out_dir, sub, ".iostat.txt", err);
    }
    return rc;
}

static enum status close_checked(FILE *fp, const char *path, struct error *err)
{
    int bad = ferror(fp);

    if (fclose(fp) != 0 || bad != 0)
        return error_set(err, STATUS_NOT_FOUND, "%s: write failed", path);
    return STATUS_OK;
}

static enum status write_conf(const struct data_params *p, struct error *err)
{
    char path[4096];
    FILE *fp;

    snprintf(path, sizeof path, "%s/iocontend.conf", p->out_dir);
    fp = fopen(path, "w");
    if (fp == NULL)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    fputs("# iocontend.conf for the sample data set written by iocontend-gen.\n"
          "[filesystems]\n/scratch1 = scratch1\n/scratch2 = scratch2\n",
          fp);
    return close_checked(fp, path, err);
}

static int64_t job_bytes(const struct data_job *job)
{
    int64_t sum = 0;

    for (size_t i = 0; i < job->nfiles; i++)
        sum += job->files[i].read_bytes + job->files[i].write_bytes;
    return sum;
}

/* One row per job: what was planted, for checks (not an input of iocontend). */
static enum status write_truth(const struct data_params *p, const struct data_job *jobs,
                               size_t njobs, struct error *err)
{
    char path[4096];
    FILE *fp;

    snprintf(path, sizeof path, "%s/truth.csv", p->out_dir);
    fp = fopen(path, "w");
    if (fp == NULL)
        return error_set(err, STATUS_NOT_FOUND, "%s: %s", path, strerror(errno));
    fputs("jobid,group,start_s,end_s,io_s,load_read_bps,bytes,victim\n", fp);
    for (size_t j = 0; j < njobs; j++) {
        const struct data_job *job = &jobs[j];
        double start = (double)DATA_EPOCH_START + job->start_s;
        fprintf(fp, "%" PRIu64 ",%s,%.6f,%.6f,%.6f,%.1f,%" PRId64 ",%d\n", job->jobid,
                data_group_info(job->group)->name, start, start + job->run_time_s,
                job->io_last_s - job->io_first_s, job->load_read_bps, job_bytes(job),
                job->victim);
    }
    return close_checked(fp, path, err);
}

static gsl_rng *stream_new(const struct data_params *p, enum stream s)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

    if (rng != NULL)
        gsl_rng_set(rng, (p->seed + 0x9E3779B9UL * (unsigned long)s) & 0xFFFFFFFFUL);
    return rng;
}

static enum status write_outputs(const struct data_params *p, const struct data_job *jobs,
                                 size_t njobs, const struct data_background *bg,
                                 struct error *err)
{
    gsl_rng *rng = stream_new(p, STREAM_SPLIT);
    enum status rc;

    rc = rng == NULL ? error_set(err, STATUS_NOMEM, "server traffic")
                     : data_iostat_write(p, bg, jobs, njobs, rng, err);
    if (rc == STATUS_OK)
        rc = data_darshan_write(p, jobs, njobs, err);
    if (rc == STATUS_OK && (p->darshan_formats & DATA_DARSHAN_BINARY))
        rc = data_darshan_bin_write(p, jobs, njobs, err);
    if (rc == STATUS_OK)
        rc = write_conf(p, err);
    if (rc == STATUS_OK)
        rc = write_truth(p, jobs, njobs, err);
    gsl_rng_free(rng);
    return rc;
}

static enum status generate(const struct data_params *p, size_t *njobs, struct error *err)
{
    gsl_rng *bg_rng = stream_new(p, STREAM_BACKGROUND);
    gsl_rng *job_rng = stream_new(p, STREAM_JOBS);
    struct data_background *bg = NULL;
    struct data_job *jobs = NULL;
    enum status rc = STATUS_OK;

    if (bg_rng != NULL && job_rng != NULL)
        bg = data_background_new((double)p->days * 86400.0, bg_rng);
    if (bg != NULL)
        jobs = data_jobs_plan(p, bg, job_rng, njobs);
    if (jobs == NULL) {
        rc =
            error_set(err, STATUS_NOMEM, "planning %u jobs per group", p->jobs_per_group);
    }
    if (rc == STATUS_OK)
        rc = prepare_out(p, err);
    if (rc == STATUS_OK)
        rc = write_outputs(p, jobs, *njobs, bg, err);
    free(jobs);
    data_background_free(bg);
    gsl_rng_free(job_rng);
    gsl_rng_free(bg_rng);
    return rc;
}

static int exit_code_of(enum status s)
{
    switch (s) {
    case STATUS_OK: return 0;
    case STATUS_INVALID: return EXIT_USAGE;
    case STATUS_NOT_FOUND: return EXIT_CANTMAKE;
    case STATUS_PARSE:
    case STATUS_DB:
    case STATUS_NOMEM:
    case STATUS_INTERNAL:
    case STATUS_BUSY:
    case STATUS_CANCELLED: return EXIT_INTERNAL;
    }
    return EXIT_INTERNAL;
}

int main(int argc, char **argv)
{
    struct data_params p = {.out_dir = "var/sample",
                            .seed = 20240601UL,
                            .coupling = 1.0,
                            .days = 3,
                            .interval_s = DATA_INTERVAL_S,
                            .jobs_per_group = 420,
                            .darshan_formats = DATA_DARSHAN_TEXT,
                            .victims = DATA_VICTIMS};
    struct error err = {0};
    size_t njobs = 0;
    char msg[512];
    int parsed;
    enum status rc;

    gsl_set_error_handler_off();
    parsed = parse_args(argc, argv, &p);
    if (parsed != 0) {
        if (parsed > 0)
            fputs(usage_text, stdout);
        return parsed > 0 ? 0 : EXIT_USAGE;
    }
    rc = generate(&p, &njobs, &err);
    if (rc != STATUS_OK) {
        error_format(&err, msg, sizeof msg);
        fprintf(stderr, "iocontend-gen: %s\n", msg);
        return exit_code_of(rc);
    }
    const unsigned days =
        p.iostat_first_day == 0 ? p.days : p.iostat_last_day - p.iostat_first_day + 1;
    printf("iocontend-gen: %zu jobs (%u per group: esb, npc, npb), %d iostat files of %u "
           "intervals of %u s, in %s (seed %lu, coupling %g)\n",
           njobs, p.jobs_per_group, DATA_NFS * DATA_NSERVERS,
           days * (86400U / p.interval_s), p.interval_s, p.out_dir, p.seed, p.coupling);
    return 0;
}
