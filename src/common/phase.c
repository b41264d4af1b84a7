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
    long peak = ru.ru_maxrss;
    /* the marking thread's CPU so far: below the wall, it waited (for the other thread, or the disk) */
    getrusage(RUSAGE_THREAD, &ru);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    fprintf(stderr, "memlens: phase %s: %.1f ms (%.1f ms total, peak RSS %ld MiB, this thread's CPU %.0f ms)\n", name,
            t - last, t - first, peak / 1024, cpu);
    last = t;
    pthread_mutex_unlock(&lock);
}
