/* bench_assoc.c: the C side of make bench: stats_assoc_compute timed; max RSS. */
#include "../stats/stats.h"

#include <gsl/gsl_errno.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The sampling rule, the same in bench/ref_assoc.py: the first call is timed too; a
 * sample repeats the call until it lasts at least MIN_SAMPLE_S; best of up to REPS
 * samples, no new sample once BUDGET_S seconds are spent on the method set, except
 * that a call of at most BUDGET_S gets MIN_SAMPLES samples. */
#define REPS         7
#define MIN_SAMPLES  3
#define BUDGET_S     2.0
#define MIN_SAMPLE_S 1e-3

#define EX_USAGE    64
#define EX_NOINPUT  66
#define EX_SOFTWARE 70

struct method_set {
    const char *name; /* as bench/run.sh and ref_assoc.py call it */
    unsigned bits;    /* METHOD_* */
    bool one_thread;  /* stats_ws_allow_thread(ws, false) for it */
};

static const struct method_set SETS[] = {
    {"pearson", METHOD_PEARSON, false},
    {"spearman", METHOD_SPEARMAN, false},
    {"dcor", METHOD_DCOR, false},
    {"mi", METHOD_MI, false},
    {"all", METHOD_PEARSON | METHOD_SPEARMAN | METHOD_DCOR | METHOD_MI, false},
    /* the same on one thread: what the second core adds */
    {"all1", METHOD_PEARSON | METHOD_SPEARMAN | METHOD_DCOR | METHOD_MI, true},
};

static void usage(void)
{
    fputs("usage: bench_assoc time FILE D SET...   best seconds per call of each set\n"
          "       bench_assoc one FILE D SET       one call (SET load: data only)\n"
          "       bench_assoc maxrss CMD [ARG...]  CMD's max RSS, from getrusage\n"
          "FILE: D doubles x then D doubles y (bench/ref_assoc.py gen);\n"
          "SET: pearson, spearman, dcor, mi, all (the four, on two threads where the\n"
          "workspace has them), all1 (the four on one thread)\n",
          stderr);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct method_set *set_of(const char *name)
{
    for (size_t i = 0; i < sizeof SETS / sizeof SETS[0]; i++) {
        if (strcmp(SETS[i].name, name) == 0)
            return &SETS[i];
    }
    return NULL;
}

/* Reads x then y, d doubles each, into *x and *y (new; the caller frees them). */
static int load(const char *path, size_t d, double **x, double **y)
{
    FILE *fp = fopen(path, "rb");
    int rc = EX_NOINPUT;

    *x = malloc(d * sizeof **x);
    *y = malloc(d * sizeof **y);
    if (fp == NULL) {
        fprintf(stderr, "bench_assoc: %s: %s\n", path, strerror(errno));
    } else if (*x == NULL || *y == NULL) {
        fprintf(stderr, "bench_assoc: no memory for %zu jobs\n", d);
        rc = EX_SOFTWARE;
    } else if (fread(*x, sizeof **x, d, fp) != d || fread(*y, sizeof **y, d, fp) != d ||
               fgetc(fp) != EOF) {
        fprintf(stderr, "bench_assoc: %s: expected exactly %zu doubles\n", path, 2 * d);
    } else {
        rc = 0;
    }
    if (fp != NULL)
        fclose(fp);
    return rc;
}

/* One call of set on the data. 1: the build lacks one of its methods (stats_assoc_compute
 * answers STATUS_INVALID "unknown methods" until a method lands): printed as "na". */
static int compute(const struct method_set *set, const double *x, const double *y,
                   size_t d, struct stats_ws *ws, struct stats_assoc *out)
{
    const struct stats_assoc_opts opts = {set->bits, 10, STATS_DEFAULT_SEED, true};
    struct error err = {0};
    enum status rc = stats_assoc_compute(x, y, d, &opts, ws, out, &err);

    if (rc == STATUS_OK)
        return 0;
    if (rc == STATUS_INVALID && (set->bits & ~stats_methods_available()) != 0) {
        printf("na %s not available in this build (%s)\n", set->name, err.msg);
        return 1;
    }
    fprintf(stderr, "bench_assoc: %s at d = %zu: %s\n", set->name, d, err.msg);
    return -1;
}

static void print_value(const char *name, struct stats_coef c)
{
    if (c.reason == REASON_NONE) {
        printf("value %s %.17g\n", name, c.value);
    } else if (c.reason != REASON_NOT_COMPUTED) {
        printf("value %s null %s\n", name, stats_reason_name(c.reason));
    }
}

/* Best seconds per call of set, as the sampling rule above says. */
static int time_set(const struct method_set *set, const double *x, const double *y,
                    size_t d, struct stats_ws *ws)
{
    struct stats_assoc out;
    double t0 = now_s();
    int rc = compute(set, x, y, d, ws, &out);
    double best = now_s() - t0, spent = best;
    unsigned samples = 1;
    unsigned long calls = 1;

    if (rc != 0)
        return rc;
    if (best < MIN_SAMPLE_S)
        calls = (unsigned long)ceil(MIN_SAMPLE_S / fmax(best, 1e-9));
    while (samples < REPS && (spent + best * (double)calls <= BUDGET_S ||
                              (samples < MIN_SAMPLES && best <= BUDGET_S))) {
        t0 = now_s();
        for (unsigned long i = 0; i < calls; i++) {
            if (compute(set, x, y, d, ws, &out) != 0)
                return -1;
        }
        double dt = now_s() - t0;
        spent += dt;
        best = fmin(best, dt / (double)calls);
        samples++;
    }
    printf("time %s %.9g %u %lu\n", set->name, best, samples, calls);
    /* a second thread is for KSG beside other methods */
    printf("threads %s %u\n", set->name,
           (set->bits & METHOD_MI) == 0 || set->bits == METHOD_MI
               ? 1
               : stats_ws_threads(ws, d));
    if (strncmp(set->name, "all", 3) != 0) {
        print_value("pearson", out.pearson);
        print_value("spearman", out.spearman);
        print_value("dcor_v", out.dcor_v);
        print_value("dcor2_u", out.dcor2_u);
        print_value("mi_ksg_nats", out.mi_ksg_nats);
    }
    return 0;
}

/* time / one: argv = FILE D SET... */
static int run_sets(int timed, int argc, char **argv)
{
    char *end = NULL;
    unsigned long long d_in = strtoull(argv[1], &end, 10);
    double *x = NULL, *y = NULL;
    struct stats_ws *ws = NULL;
    int rc;

    if (*end != '\0' || d_in < 2 || d_in > (1ULL << 32)) {
        fprintf(stderr, "bench_assoc: D must be an integer in [2, 2^32], got %s\n",
                argv[1]);
        return EX_USAGE;
    }
    const size_t d = (size_t)d_in;
    rc = load(argv[0], d, &x, &y);
    if (rc != 0)
        goto out;
    for (int i = 2; i < argc; i++) {
        const struct method_set *set = set_of(argv[i]);
        struct stats_assoc res;

        if (strcmp(argv[i], "load") == 0 && !timed)
            continue;
        if (set == NULL) {
            fprintf(stderr, "bench_assoc: unknown method set %s\n", argv[i]);
            rc = EX_USAGE;
            goto out;
        }
        if (ws == NULL) {
            /* made once, before any timing, as a group's workspace is */
            ws = stats_ws_new(d);
            if (ws == NULL) {
                fprintf(stderr, "bench_assoc: no memory for a workspace of %zu\n", d);
                rc = EX_SOFTWARE;
                goto out;
            }
        }
        stats_ws_allow_thread(ws, !set->one_thread);
        int r = timed ? time_set(set, x, y, d, ws) : compute(set, x, y, d, ws, &res);
        if (r < 0) {
            rc = EX_SOFTWARE;
            goto out;
        }
        fflush(stdout);
    }
out:
    stats_ws_free(ws);
    free(x);
    free(y);
    return rc;
}

/* Runs argv as a child and prints its max RSS. The child's figure starts at this
 * process's RSS at the fork (Linux copies the high-water mark), so ours is printed
 * beside it: a floor under every figure. */
static int maxrss(char **argv)
{
    struct rusage self, child;
    int status;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "bench_assoc: fork: %s\n", strerror(errno));
        return EX_SOFTWARE;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "bench_assoc: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0) {
        fprintf(stderr, "bench_assoc: waitpid: %s\n", strerror(errno));
        return EX_SOFTWARE;
    }
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &child); /* the one child: its own maximum */
    printf("maxrss_kb %ld\nrunner_kb %ld\n", child.ru_maxrss, self.ru_maxrss);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    fprintf(stderr, "bench_assoc: %s died\n", argv[0]);
    return EX_SOFTWARE;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc >= 3 && strcmp(argv[1], "maxrss") == 0)
        return maxrss(argv + 2);
    if (argc >= 5 && strcmp(argv[1], "time") == 0)
        return run_sets(1, argc - 2, argv + 2);
    if (argc == 5 && strcmp(argv[1], "one") == 0)
        return run_sets(0, argc - 2, argv + 2);
    usage();
    return EX_USAGE;
}
