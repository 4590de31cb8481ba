/* compute.c: the compute pool: a few threads at a lower priority that compute the
 * answers which take long, and a watcher that cancels them at their deadline or when
 * their client has gone. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A computing thread's nice value: the HTTP threads (0) keep the processors they
 * need, the computations share what is left. */
#define COMPUTE_NICE 10
/* How often the watcher looks at the running jobs: a client that leaves frees its
 * thread within about this much, plus one permutation, resample or tree. */
#define WATCH_PERIOD_NS (100L * 1000 * 1000)

/* Now plus one watch period, on the clock pthread_cond_timedwait reads. */
static struct timespec one_period_on(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += WATCH_PERIOD_NS;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

struct compute_pool {
    pthread_mutex_t lock;
    pthread_cond_t work;        /* a job came, or the pool stops */
    pthread_cond_t watch;       /* the watcher's: a job came, or the pool stops */
    pthread_cond_t done;        /* a job resumed its connection */
    struct compute_task **jobs; /* n slots, NULL when free: queued and running jobs */
    unsigned n;                 /* threads (and slots) */
    unsigned started;           /* threads that started */
    bool watcher_started;
    bool stopping;
    pthread_t *threads;
    pthread_t watcher;
};

/* Whether the client at the other end of fd has closed its side or reset the
 * connection: a peek reads 0 bytes or fails with anything but "nothing yet". A
 * client that sent more than its request (pipelining) is taken as present. */
static bool client_gone(int fd)
{
    char byte;

    if (fd < 0)
        return false;
    ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static void stop_job(struct compute_task *job, enum job_stop why)
{
    int running = JOB_RUNNING;

    /* The first reason wins: a deadline stays a deadline when the client leaves. */
    if (atomic_compare_exchange_strong(&job->why, &running, (int)why))
        atomic_store(&job->cancel, true);
}

static bool any_job(const struct compute_pool *p)
{
    for (unsigned i = 0; i < p->n; i++) {
        if (p->jobs[i] != NULL)
            return true;
    }
    return false;
}

static void *watcher_main(void *arg)
{
    struct compute_pool *p = arg;

    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        if (!any_job(p)) {
            pthread_cond_wait(&p->watch, &p->lock);
            continue;
        }
        const struct timespec until = one_period_on();
        pthread_cond_timedwait(&p->watch, &p->lock, &until);
        const double now = monotonic_s();
        for (unsigned i = 0; i < p->n; i++) {
            struct compute_task *job = p->jobs[i];
            if (job == NULL || atomic_load(&job->cancel))
                continue;
            if (now >= job->deadline_s) {
                stop_job(job, JOB_DEADLINE);
            } else if (client_gone(job->fd)) {
                stop_job(job, JOB_GONE);
            }
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Runs job and answers in its place when it was stopped. */
static void run_job(struct compute_task *job)
{
    const double deadline = job->srv->s->limits.deadline_s;

    /* One stopped while it waited (at shutdown) is not started. */
    if (!atomic_load(&job->cancel))
        job->run(job);
    /* Done before a stop was asked: the answer stands, and no stop can come now. A
     * stop asked just as the computation finished leaves a complete answer too. */
    int running = JOB_RUNNING;
    if (atomic_compare_exchange_strong(&job->why, &running, JOB_DONE) ||
        (job->req->code >= 200 && job->req->code < 300))
        return;
    switch ((enum job_stop)atomic_load(&job->why)) {
    case JOB_RUNNING:
    case JOB_DONE: return;
    case JOB_DEADLINE:
        metrics_compute(METRICS_COMPUTE_DEADLINE);
        answer_error_code(job->req, 503, "deadline", NULL,
                          "the answer took longer than this server's deadline of %g s; "
                          "ask for less (fewer permutations or resamples, a shorter "
                          "period)",
                          deadline);
        return;
    case JOB_GONE:
        metrics_compute(METRICS_COMPUTE_GONE);
        log_info("association: the client left; computation stopped");
        return;
    case JOB_SHUTDOWN:
        metrics_compute(METRICS_COMPUTE_SHUTDOWN);
        job->req->retry_after = true;
        answer_error_code(job->req, 503, "busy", NULL, "the server is stopping");
        return;
    }
}

static void *thread_main(void *arg)
{
    struct compute_pool *p = arg;

    /* Linux's nice is per thread: this one alone yields to the HTTP threads. */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), COMPUTE_NICE) != 0)
        log_warn("compute thread: cannot lower its priority");
    pthread_mutex_lock(&p->lock);
    for (;;) {
        struct compute_task *job = NULL;
        unsigned slot = 0;
        for (unsigned i = 0; job == NULL && i < p->n; i++) {
            if (p->jobs[i] != NULL && !p->jobs[i]->started) {
                job = p->jobs[i];
                slot = i;
            }
        }
        if (job == NULL) {
            if (p->stopping)
                break;
            pthread_cond_wait(&p->work, &p->lock);
            continue;
        }
        job->started = true;
        pthread_mutex_unlock(&p->lock);
        metrics_compute(METRICS_COMPUTE_STARTED);
        run_job(job);
        metrics_compute(METRICS_COMPUTE_FINISHED);
        struct MHD_Connection *conn = job->conn;
        pthread_mutex_lock(&p->lock);
        p->jobs[slot] = NULL; /* from here on the request may free job */
        pthread_mutex_unlock(&p->lock);
        MHD_resume_connection(conn);
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

struct compute_pool *compute_pool_new(unsigned n)
{
    struct compute_pool *p = calloc(1, sizeof *p);

    if (p == NULL)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->watch, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n = n;
    p->jobs = calloc(n, sizeof(struct compute_task *));
    p->threads = calloc(n, sizeof *p->threads);
    if (p->jobs == NULL || p->threads == NULL)
        goto fail;
    for (; p->started < n; p->started++) {
        if (pthread_create(&p->threads[p->started], NULL, thread_main, p) != 0)
            goto fail;
    }
    if (pthread_create(&p->watcher, NULL, watcher_main, p) != 0)
        goto fail;
    p->watcher_started = true;
    return p;
fail:
    compute_pool_stop(p);
    compute_pool_free(p);
    return NULL;
}

bool compute_submit(struct compute_pool *p, struct compute_task *job)
{
    bool taken = false;

    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; !p->stopping && !taken && i < p->n; i++) {
        if (p->jobs[i] != NULL)
            continue;
        /* Suspended before a thread can take the job, so that its resume never
         * comes first. */
        MHD_suspend_connection(job->conn);
        job->started = false;
        p->jobs[i] = job;
        taken = true;
    }
    if (taken) {
        pthread_cond_signal(&p->work);
        pthread_cond_signal(&p->watch);
    }
    pthread_mutex_unlock(&p->lock);
    if (!taken)
        metrics_compute(METRICS_COMPUTE_REFUSED);
    return taken;
}

void compute_pool_stop(struct compute_pool *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    for (unsigned i = 0; p->jobs != NULL && i < p->n; i++) {
        if (p->jobs[i] != NULL)
            stop_job(p->jobs[i], JOB_SHUTDOWN);
    }
    pthread_cond_broadcast(&p->work);
    pthread_cond_broadcast(&p->watch);
    /* The threads run what was queued (cancelled at once) and resume it. A query
     * does not look at the cancel flag: the running ones are cancelled in the
     * database (PQcancel), again at each period, since a computation may start its
     * next one meanwhile. */
    while (p->started > 0 && p->jobs != NULL && any_job(p)) {
        for (unsigned i = 0; i < p->n; i++) {
            if (p->jobs[i] != NULL && p->jobs[i]->started)
                db_pool_cancel(p->jobs[i]->srv);
        }
        const struct timespec until = one_period_on();
        pthread_cond_timedwait(&p->done, &p->lock, &until);
    }
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    p->started = 0;
    if (p->watcher_started)
        pthread_join(p->watcher, NULL);
    p->watcher_started = false;
}

void compute_pool_free(struct compute_pool *p)
{
    if (p == NULL)
        return;
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->watch);
    pthread_cond_destroy(&p->done);
    free(p->jobs);
    free(p->threads);
    free(p);
}
