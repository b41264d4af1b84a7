/*
 * phase.c — see phase.h.
 */
#include "phase.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled;
static double first, last;

static void start(void)
{
    enabled = getenv("MEMLENS_PHASES") != NULL;
    first = last = now_ms();
}

void ml_phase(const char *name)
{
    pthread_once(&once, start); /* main() marks "start" first, before any thread */
    if (!enabled) return;
    pthread_mutex_lock(&lock); /* marks may come from two threads (par.h) */
    double t = now_ms();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru); /* the peak so far says which phase raised it */
    fprintf(stderr, "memlens: phase %s: %.1f ms (%.1f ms total, peak RSS %ld MiB)\n", name, t - last, t - first,
            ru.ru_maxrss / 1024);
    last = t;
    pthread_mutex_unlock(&lock);
}
