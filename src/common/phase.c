/*
 * phase.c — see phase.h.
 */
#include "phase.h"

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

void ml_phase(const char *name)
{
    static int enabled = -1;
    static double first, last;
    if (enabled < 0) {
        enabled = getenv("MEMLENS_PHASES") != NULL;
        first = last = now_ms();
    }
    if (!enabled) return;
    double t = now_ms();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru); /* the peak so far says which phase raised it */
    fprintf(stderr, "memlens: phase %s: %.1f ms (%.1f ms total, peak RSS %ld MiB)\n", name, t - last, t - first,
            ru.ru_maxrss / 1024);
    last = t;
}
