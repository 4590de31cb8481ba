/* gen_jobs.c: the jobs of the three application groups, planned against the load. */
#include "internal.h"

#include <assert.h>
#include <gsl/gsl_randist.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KIB 1024LL
#define MIB 1048576LL
#define GIB 1073741824LL

/* Share of a read/write window spent inside read/write calls. */
#define BUSY 0.96
/* The planted I/O effect: a phase starting at t spends nominal * (1 + coupling * share *
 * L(t)/mean(L) * eps) in its calls, L the background read bandwidth of the job's file
 * system, eps log-normal with mean 1. */
#define IO_SIGMA 0.7
/* Metadata slows with the background operation rate O in the same way, so T^U_M
 * against Psi^O is moderate for all three groups (docs/method.md §8). */
#define META_COUPLING 0.8
#define META_SIGMA    1.1
#define META_CAP      6.0  /* keeps open + close + compute under Δ (see ESB_GAP_S) */
#define META_JITTER   0.03 /* always on: T^U_M is never constant within a group */

/* ESB: bursts of reads, each of its I/O ranks reading a new file per burst. The
 * compute gap plus close and open stays under Δ, so no whole interval between the
 * first and the last burst is idle: T^D then follows the bursts' length, not their
 * phase against the grid. */
#define ESB_RANKS      2
#define ESB_BURSTS     7
#define ESB_INIT_S     20.0
#define ESB_GAP_S      25.0
#define ESB_TAIL_S     12.0
#define ESB_READ_S     40.0
#define ESB_READ_BYTES (3 * GIB / 2)
#define ESB_META_S     1.5
#define ESB_OUT_S      10.0
#define ESB_OUT_BYTES  (512 * MIB)

/* NPC: phases of long read windows then write windows, two I/O ranks, a milder
 * coupling (0.3). The windows are long because the reads interleave with compute;
 * only the time in the calls stretches, by about as much as a job's phase against the
 * 60 s grid moves T^D, so the association is weaker than ESB's yet clear. */
#define NPC_RANKS       2
#define NPC_PHASES      3
#define NPC_INIT_S      15.0
#define NPC_GAP_S       20.0
#define NPC_TAIL_S      10.0
#define NPC_READ_IO_S   16.0
#define NPC_READ_CPU_S  140.0
#define NPC_READ_BYTES  (3 * GIB)
#define NPC_WRITE_IO_S  8.0
#define NPC_WRITE_CPU_S 50.0
#define NPC_WRITE_BYTES (1 * GIB)
#define NPC_META_S      0.8

/* NPB: one shared input read and one shared output written by every rank, of fixed
 * length whatever the load; rank 0 keeps a log on scratch for the whole run. */
#define NPB_INIT_S      5.0
#define NPB_READ_S      180.0
#define NPB_READ_BYTES  (4352 * MIB)
#define NPB_GAP_S       10.0
#define NPB_WRITE_S     1280.0
#define NPB_WRITE_BYTES (112 * MIB)
#define NPB_TAIL_S      8.0
#define NPB_LOG_META_S  1.5
/* The log's metadata is many small syncs and stats: their noise averages out. */
#define NPB_LOG_META_SIGMA 0.4
#define NPB_LOG_BYTES      (3 * MIB / 2)
#define NPB_SHARED_OP      (4 * MIB)

static const struct data_group_info groups[DATA_NGROUPS] = {
    {"esb", "esbuser", 20501, "/home/esbuser/bin/esb_model -n ocean.nml", "esb_model", 16,
     1.0},
    {"npc", "npcuser", 20502, "/home/npcuser/bin/npc_solver --deck deck.in", "npc_solver",
     32, 0.3},
    {"npb", "npbuser", 20503, "/home/npbuser/bin/npb_lattice -i lattice.cfg",
     "npb_lattice", 64, 0.0},
};

const struct data_group_info *data_group_info(enum data_group g)
{
    return &groups[g];
}

struct plan {
    const struct data_params *params;
    const struct data_background *bg;
    gsl_rng *rng;
    struct data_job *job;
    double slow; /* every read/write window stretched this much: DATA_VICTIM_SLOW for
                    a victim, else 1 */
};

/* One unique file opened once, read or written in one stretch, closed. */
struct access {
    double open_s;    /* when the open starts, relative */
    double meta_s;    /* metadata seconds: 80 % in the open, 20 % in the close */
    double io_s;      /* first read/write start to last end */
    double busy_s;    /* of which inside read/write calls */
    int64_t bytes;    /* moved */
    int64_t op_bytes; /* per read/write call */
    int write;        /* writes instead of reads */
};

/* Contention comes from the job's own file system: its servers are the ones shared.
 * The other file system's load then reaches the system-wide series (docs/method.md §1) as
 * noise, as it did on Intrepid. */
static double load_ratio_at(const struct plan *pl, double rel_s)
{
    int fs = pl->job->fs;
    struct data_rates r;

    data_background_rates(pl->bg, fs, pl->job->start_s + rel_s, &r);
    return r.read_bps / data_background_mean_read_bps(pl->bg, fs);
}

static double ops_ratio_at(const struct plan *pl, double rel_s)
{
    int fs = pl->job->fs;
    struct data_rates r;

    data_background_rates(pl->bg, fs, pl->job->start_s + rel_s, &r);
    return (r.read_ops_s + r.write_ops_s) / data_background_mean_ops_s(pl->bg, fs);
}

static double ops_ratio_over(const struct plan *pl, double a_rel_s, double b_rel_s)
{
    int fs = pl->job->fs;
    struct data_volume v;

    data_background_volume(pl->bg, fs, pl->job->start_s + a_rel_s,
                           pl->job->start_s + b_rel_s, &v);
    return (v.read_ops + v.write_ops) / (b_rel_s - a_rel_s) /
           data_background_mean_ops_s(pl->bg, fs);
}

/* The planted I/O effect for a phase starting at rel_s; 1 when coupling is 0. */
static double io_stretch(const struct plan *pl, double rel_s)
{
    double eps = data_unit_lognormal(pl->rng, IO_SIGMA);
    double share = data_group_info(pl->job->group)->io_coupling;

    return 1.0 + pl->params->coupling * share * load_ratio_at(pl, rel_s) * eps;
}

/* The planted metadata effect for an operation-rate ratio, times a small jitter. */
static double meta_stretch(const struct plan *pl, double ops_ratio, double sigma)
{
    double eps = data_unit_lognormal(pl->rng, sigma);
    double jitter = data_unit_lognormal(pl->rng, META_JITTER);
    double f = 1.0 + pl->params->coupling * META_COUPLING * ops_ratio * eps;

    return (f < META_CAP ? f : META_CAP) * jitter;
}

static struct data_file *new_file(struct data_job *job, int rank, int fs)
{
    struct data_file *f;

    assert(job->nfiles < DATA_MAX_FILES); /* the plans below stay within it */
    f = &job->files[job->nfiles++];
    *f = (struct data_file){0};
    f->rank = rank;
    f->fs = fs;
    f->mount = fs < 0 ? "/home" : fs == 0 ? "/scratch1" : "/scratch2";
    f->fs_type = fs < 0 ? "nfs" : "gpfs";
    return f;
}

/* Fills f for one access; returns when its close ends. */
static double access_once(struct data_file *f, const struct access *a)
{
    double open_end = a->open_s + 0.8 * a->meta_s;
    double io_end = open_end + a->io_s;
    int64_t ops = (a->bytes + a->op_bytes - 1) / a->op_bytes;

    f->opens = 1;
    f->open_start_s = a->open_s;
    f->open_end_s = open_end;
    if (a->write) {
        f->writes = ops;
        f->write_bytes = a->bytes;
        f->write_start_s = open_end;
        f->write_end_s = io_end;
        f->write_time_s = a->busy_s;
    } else {
        f->reads = ops;
        f->read_bytes = a->bytes;
        f->read_start_s = open_end;
        f->read_end_s = io_end;
        f->read_time_s = a->busy_s;
    }
    f->close_start_s = io_end;
    f->close_end_s = io_end + 0.2 * a->meta_s;
    f->meta_time_s = a->meta_s;
    return f->close_end_s;
}

/* <STDOUT> banner lines and the input deck rank 0 reads from /home, both early and
 * short; returns init_s, when the first scratch I/O starts. */
static double prologue(const struct plan *pl, const char *deck, int64_t deck_bytes,
                       double init_s)
{
    struct data_job *job = pl->job;
    struct data_file *f = new_file(job, 0, -1);
    struct access a = {0};

    job->stdout_start_s = gsl_ran_flat(pl->rng, 0.015, 0.03);
    job->stdout_end_s = job->stdout_start_s + gsl_ran_flat(pl->rng, 0.2, 0.35);
    job->stdout_writes = 12;
    job->stdout_bytes = 1462;
    snprintf(f->path, sizeof f->path, "%s", deck);
    a.open_s = gsl_ran_flat(pl->rng, 0.4, 0.45);
    a.meta_s = 0.04 * meta_stretch(pl, ops_ratio_at(pl, a.open_s), META_SIGMA);
    a.io_s = 0.002 + (double)deck_bytes / 400e6;
    a.busy_s = BUSY * a.io_s;
    a.bytes = deck_bytes;
    a.op_bytes = 65536;
    access_once(f, &a);
    return init_s;
}

/* One phase in which ranks 0 .. nranks-1 each read (or write) a new file on the job's
 * scratch file system; returns when the last close ends. */
struct phase {
    int nranks;
    int write;
    double io_s;      /* nominal time in read/write calls, before the planted stretch */
    double cpu_s;     /* compute between the calls, inside the window: load-free */
    int64_t bytes;    /* per file */
    double meta_s;    /* nominal per file */
    const char *stem; /* file name stem: "in", "out" */
};

static double rank_phase(const struct plan *pl, const struct phase *ph, int index,
                         double t)
{
    struct data_job *job = pl->job;
    const struct data_group_info *gi = data_group_info(job->group);
    double stretch = io_stretch(pl, t); /* a busy system is slow for every rank at once */
    double end = t;

    for (int r = 0; r < ph->nranks; r++) {
        struct data_file *f = new_file(job, r, job->fs);
        struct access a = {0};
        double close_end;

        snprintf(f->path, sizeof f->path, "/scratch%d/%s/%" PRIu64 "/%s%02d.r%d",
                 job->fs + 1, gi->user, job->jobid, ph->stem, index, r);
        a.open_s = t + 0.03 * r;
        a.meta_s = ph->meta_s * meta_stretch(pl, ops_ratio_at(pl, a.open_s), META_SIGMA);
        a.busy_s = ph->io_s * stretch * (1.0 + 0.005 * gsl_ran_ugaussian(pl->rng));
        a.busy_s *= pl->slow;
        a.io_s = ph->cpu_s * pl->slow + a.busy_s / BUSY;
        a.bytes = ph->bytes;
        a.op_bytes = MIB;
        a.write = ph->write;
        close_end = access_once(f, &a);
        if (close_end > end)
            end = close_end;
    }
    return end;
}

static void plan_esb(const struct plan *pl)
{
    const struct phase burst = {ESB_RANKS,      0,          ESB_READ_S, 0.0,
                                ESB_READ_BYTES, ESB_META_S, "in"};
    const struct phase out = {1, 1, ESB_OUT_S, 0.0, ESB_OUT_BYTES, ESB_META_S, "out"};
    double t = prologue(pl, "/home/esbuser/esb/ocean.nml", 48 * KIB, ESB_INIT_S);

    for (int b = 0; b < ESB_BURSTS; b++)
        t = rank_phase(pl, &burst, b, t) + ESB_GAP_S;
    t = rank_phase(pl, &out, 0, t);
    pl->job->run_time_s = t + ESB_TAIL_S;
}

static void plan_npc(const struct plan *pl)
{
    const struct phase in = {NPC_RANKS,      0,          NPC_READ_IO_S, NPC_READ_CPU_S,
                             NPC_READ_BYTES, NPC_META_S, "in"};
    const struct phase out = {
        NPC_RANKS,       1,          NPC_WRITE_IO_S, NPC_WRITE_CPU_S,
        NPC_WRITE_BYTES, NPC_META_S, "out"};
    double t = prologue(pl, "/home/npcuser/decks/deck.in", 256 * KIB, NPC_INIT_S);

    for (int p = 0; p < NPC_PHASES; p++) {
        t = rank_phase(pl, &in, p, t) + NPC_GAP_S;
        t = rank_phase(pl, &out, p, t) + NPC_GAP_S;
    }
    pl->job->run_time_s = t - NPC_GAP_S + NPC_TAIL_S;
}

/* A file every rank opens collectively and reads (or writes) for io_s seconds,
 * whatever the load; returns when the last close ends. */
static double shared_access(const struct plan *pl, struct data_file *f, int write,
                            double t, double io_s, int64_t bytes)
{
    int64_t nprocs = data_group_info(pl->job->group)->nprocs;
    io_s *= pl->slow;
    double ms = meta_stretch(pl, ops_ratio_at(pl, t), META_SIGMA);
    double io_start = t + 0.3 * ms + 0.01;
    double io_end = io_start + io_s * (1.0 + 0.001 * gsl_ran_ugaussian(pl->rng));
    double per_rank = BUSY * 0.9 * (io_end - io_start);

    f->mpiio = 1;
    f->opens = nprocs;
    f->open_start_s = t;
    f->open_end_s = t + 0.3 * ms;
    if (write) {
        f->writes = bytes / NPB_SHARED_OP;
        f->write_bytes = bytes;
        f->write_start_s = io_start;
        f->write_end_s = io_end;
        f->write_time_s = (double)nprocs * per_rank;
    } else {
        f->reads = bytes / NPB_SHARED_OP;
        f->read_bytes = bytes;
        f->read_start_s = io_start;
        f->read_end_s = io_end;
        f->read_time_s = (double)nprocs * per_rank;
    }
    f->close_start_s = io_end;
    f->close_end_s = io_end + 0.05 * ms;
    f->meta_time_s = (double)nprocs * 0.01 * ms;
    f->fastest_rank = (int64_t)gsl_rng_uniform_int(pl->rng, (unsigned long)nprocs);
    f->slowest_rank = (int64_t)gsl_rng_uniform_int(pl->rng, (unsigned long)nprocs);
    f->fastest_rank_time_s = per_rank * 0.93 + 0.01 * ms;
    f->slowest_rank_time_s = per_rank * 1.06 + 0.01 * ms;
    return f->close_end_s;
}

/* Rank 0's log: open the whole run, small writes throughout; its metadata (syncs and
 * stats along the run) follows the mean operation rate over the run. */
static void npb_log(const struct plan *pl, struct data_file *f, double io_end)
{
    double meta = NPB_LOG_META_S *
                  meta_stretch(pl, ops_ratio_over(pl, 1.0, io_end), NPB_LOG_META_SIGMA);

    f->opens = 1;
    f->open_start_s = 1.0;
    f->open_end_s = 1.0 + 0.1 * meta;
    f->writes = 1536;
    f->write_bytes = NPB_LOG_BYTES;
    f->write_start_s = 1.2 + 0.1 * meta;
    f->write_end_s = io_end - 2.0;
    f->write_time_s = 0.4;
    f->close_start_s = io_end - 2.0;
    f->close_end_s = io_end - 2.0 + 0.1 * meta;
    f->meta_time_s = meta;
}

static void plan_npb(const struct plan *pl)
{
    struct data_job *job = pl->job;
    double t = prologue(pl, "/home/npbuser/lattice.cfg", 16 * KIB, NPB_INIT_S);
    struct data_file *log = new_file(job, 0, job->fs);
    struct data_file *in = new_file(job, -1, job->fs);
    struct data_file *out = new_file(job, -1, job->fs);

    snprintf(log->path, sizeof log->path, "/scratch%d/npbuser/%" PRIu64 "/npb.log",
             job->fs + 1, job->jobid);
    snprintf(in->path, sizeof in->path, "/scratch%d/npbuser/gauge/l48c96_b6.0.lat",
             job->fs + 1);
    snprintf(out->path, sizeof out->path, "/scratch%d/npbuser/%" PRIu64 "/props.dat",
             job->fs + 1, job->jobid);
    t = shared_access(pl, in, 0, t, NPB_READ_S, NPB_READ_BYTES) + NPB_GAP_S;
    t = shared_access(pl, out, 1, t, NPB_WRITE_S, NPB_WRITE_BYTES);
    npb_log(pl, log, t);
    job->run_time_s = t + NPB_TAIL_S;
}

static double micro(double s)
{
    return round(s * 1e6) / 1e6;
}

/* Darshan keeps microseconds: round every time once, so the text, the server
 * samples and truth.csv agree. */
static void round_times(struct data_job *job)
{
    job->stdout_start_s = micro(job->stdout_start_s);
    job->stdout_end_s = micro(job->stdout_end_s);
    job->run_time_s = micro(job->run_time_s);
    for (size_t i = 0; i < job->nfiles; i++) {
        struct data_file *f = &job->files[i];
        double *t[] = {&f->open_start_s,       &f->open_end_s,    &f->read_start_s,
                       &f->read_end_s,         &f->write_start_s, &f->write_end_s,
                       &f->close_start_s,      &f->close_end_s,   &f->read_time_s,
                       &f->write_time_s,       &f->meta_time_s,   &f->fastest_rank_time_s,
                       &f->slowest_rank_time_s};
        for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
            *t[k] = micro(*t[k]);
    }
}

/* Truth for checks: the stretch from the first read/write to the last (the windows
 * of docs/method.md §2) and the mean planted load over it. */
static void fill_truth(const struct plan *pl)
{
    struct data_job *job = pl->job;
    double first = job->stdout_start_s, last = job->stdout_end_s;
    struct data_volume v;

    for (size_t i = 0; i < job->nfiles; i++) {
        const struct data_file *f = &job->files[i];
        if (f->reads > 0 && f->read_start_s < first)
            first = f->read_start_s;
        if (f->writes > 0 && f->write_start_s < first)
            first = f->write_start_s;
        if (f->reads > 0 && f->read_end_s > last)
            last = f->read_end_s;
        if (f->writes > 0 && f->write_end_s > last)
            last = f->write_end_s;
    }
    job->io_first_s = first;
    job->io_last_s = last;
    data_background_volume(pl->bg, job->fs, job->start_s + first, job->start_s + last,
                           &v);
    job->load_read_bps = last > first ? v.read_bytes / (last - first) : 0.0;
}

struct start_key {
    double start_s;
    int group;
};

static int by_start(const void *a, const void *b)
{
    const struct start_key *x = a, *y = b;

    if (x->start_s != y->start_s)
        return x->start_s < y->start_s ? -1 : 1;
    return x->group - y->group;
}

/* Uniform starts, two hours clear of the end for jobs the coupling stretches; the
 * same whatever the coupling, so data sets with and without the effects pair up. */
static struct start_key *draw_starts(const struct data_params *p, gsl_rng *rng, size_t n)
{
    struct start_key *keys = malloc(n * sizeof *keys);
    double last = (double)p->days * 86400.0 - 7200.0;

    if (keys == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        keys[i].group = (int)(i / p->jobs_per_group);
        keys[i].start_s = gsl_ran_flat(rng, 900.0, last);
    }
    qsort(keys, n, sizeof *keys, by_start);
    return keys;
}

/* The job's files and times afresh, on the file system it has. */
static void plan_again(struct plan *pl, struct data_job *job)
{
    pl->job = job;
    job->nfiles = 0;
    switch (job->group) {
    case DATA_ESB: plan_esb(pl); break;
    case DATA_NPC: plan_npc(pl); break;
    case DATA_NPB: plan_npb(pl); break;
    }
    round_times(job);
    fill_truth(pl);
}

static void plan_one(struct plan *pl, struct data_job *job)
{
    job->fs = (int)gsl_rng_uniform_int(pl->rng, DATA_NFS);
    plan_again(pl, job);
}

/* The mean system-wide background read bandwidth over the job's I/O stretched
 * DATA_VICTIM_SLOW times, bytes/s: what a victim's Ψ^D would gather. */
static double system_load(const struct data_background *bg, const struct data_job *job)
{
    struct data_volume v;
    double a = job->start_s + job->io_first_s;
    double b = a + DATA_VICTIM_SLOW * (job->io_last_s - job->io_first_s);

    if (!(b > a))
        return 0.0;
    data_background_volume(bg, -1, a, b, &v);
    return v.read_bytes / (b - a);
}

/* The victims (a slow node, a bad stripe: slow whatever the load): in each group the
 * params->victims jobs that saw the least system-wide read load, planned again with
 * every read/write window DATA_VICTIM_SLOW times as long. The least loaded, so that
 * their Ψ^D (the load over a window three times as long) stays among their group's:
 * a slow job is then told by its time at the load it had, not by a load nobody
 * else saw. None when the coupling is 0: that data set has no effect planted. */
static void plant_victims(struct plan *pl, struct data_job *jobs, size_t n)
{
    if (pl->params->coupling == 0.0)
        return;
    for (int g = 0; g < DATA_NGROUPS; g++) {
        for (unsigned v = 0; v < pl->params->victims; v++) {
            struct data_job *best = NULL;
            double best_load = INFINITY;
            for (size_t i = 0; i < n; i++) {
                const double load = system_load(pl->bg, &jobs[i]);
                if ((int)jobs[i].group == g && !jobs[i].victim && load < best_load) {
                    best = &jobs[i];
                    best_load = load;
                }
            }
            if (best == NULL)
                break;
            best->victim = 1;
            pl->slow = DATA_VICTIM_SLOW;
            plan_again(pl, best);
            pl->slow = 1.0;
        }
    }
}

struct data_job *data_jobs_plan(const struct data_params *p,
                                const struct data_background *bg, gsl_rng *rng,
                                size_t *njobs)
{
    size_t n = (size_t)DATA_NGROUPS * p->jobs_per_group;
    struct start_key *keys = draw_starts(p, rng, n);
    struct data_job *jobs = calloc(n, sizeof *jobs);
    struct plan pl = {p, bg, rng, NULL, 1.0};
    uint64_t jobid = 3104000;

    if (keys == NULL || jobs == NULL) {
        free(keys);
        free(jobs);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        /* other users' jobs take the ids between */
        jobid += 1 + gsl_rng_uniform_int(rng, 37);
        jobs[i].group = (enum data_group)keys[i].group;
        jobs[i].start_s = keys[i].start_s;
        jobs[i].jobid = jobid;
        plan_one(&pl, &jobs[i]);
    }
    plant_victims(&pl, jobs, n);
    free(keys);
    *njobs = n;
    return jobs;
}
