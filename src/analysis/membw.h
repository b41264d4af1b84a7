/*
 * membw.h — memory bandwidth of memcpys and memsets over time, by
 * HolisticTraceAnalysis's get_memory_bw_* (hta/analyzers/trace_counters.py),
 * over the GPU timeline (gputimeline.h, ns): the MEMORY events of each
 * kind ("Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD", "Memset", … : the
 * name's first 11 characters, "Memset", or "Memcpy Unknown" for other
 * names) add their "memory bandwidth (GB/s)" arg while they run (one of
 * 0 µs runs for 1 µs, as HTA has it); max is the highest sum, over all
 * streams.  Where one copy ends in the µs the next begins they do not add
 * up (HTA's unstable sort sometimes lets them: README).  The step series
 * is kept for the Trace view's counter tracks.
 */
#ifndef ML_MEMBW_H
#define ML_MEMBW_H

#include <stddef.h>
#include <stdint.h>

#include "gputimeline.h"
#include "profile.h"
#include "vec.h"

typedef struct ml_membw {
    char kind[16];
    double max;             /* GB/s; 0 when no event of the kind has a bandwidth */
    size_t n;               /* change points */
    int64_t *t;             /* their times (timeline ns) */
    double *gbps;           /* the bandwidth from then on */
} ml_membw;

typedef VEC(ml_membw) ml_membws;

/* One row per kind with a bandwidth above 0 at some time, by kind name. */
void ml_membw_compute(const ml_profile *p, const ml_gpu_timeline *tl, ml_membws *out);
void ml_membw_free(ml_membws *m);

#endif
