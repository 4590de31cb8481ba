/* parallel.c: a parallel loop over independent indices, on POSIX threads. */
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct loop {
    size_t n;
    atomic_size_t next;
    void (*fn)(void *arg, size_t i);
    void *arg;
};

static void *worker(void *p)
{
    struct loop *l = p;

    for (size_t i = atomic_fetch_add(&l->next, 1); i < l->n;
         i = atomic_fetch_add(&l->next, 1))
        l->fn(l->arg, i);
    return NULL;
}

void parallel_for(size_t n, unsigned jobs, void (*fn)(void *arg, size_t i), void *arg)
{
    struct loop l = {.n = n, .fn = fn, .arg = arg};
    size_t extra = jobs > 1 ? (size_t)jobs - 1 : 0;
    pthread_t *threads = NULL;
    size_t started = 0;

    atomic_init(&l.next, 0);
    if (extra > n)
        extra = n > 0 ? n - 1 : 0;
    if (extra > 0)
        threads = malloc(extra * sizeof *threads);
    for (size_t t = 0; threads != NULL && t < extra; t++) {
        if (pthread_create(&threads[started], NULL, worker, &l) != 0)
            break;
        started++;
    }
    worker(&l);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);
}

unsigned processors_online(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (unsigned)n : 1;
}
