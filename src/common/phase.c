/*
 * phase.c — see phase.h.
 */
#include "phase.h"

#include <stdio.h>
#include <stdlib.h>
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
    fprintf(stderr, "memlens: phase %s: %.1f ms (%.1f ms total)\n", name, t - last, t - first);
    last = t;
}
