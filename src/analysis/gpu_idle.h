/*
 * gpu_idle.h — where a rank's GPU time went and why it waited, by
 * HolisticTraceAnalysis's definitions (hta/analyzers/breakdown_analysis.py),
 * over the GPU timeline (gputimeline.h; ns, exact or on HTA's µs grid):
 *
 *   temporal     get_temporal_breakdown: span = first GPU event's start to
 *                the last one's end; idle = span − the union of all GPU
 *                events; compute = the union of COMPUTATION kernels;
 *                non-compute = span − compute − idle (memory, communication
 *                and syncs not under compute)
 *   idle by stream   get_idle_time_breakdown: each gap between consecutive
 *                kernels, memcpys and memsets on a stream (the previous
 *                one's end to this one's start) is host wait when this one's
 *                launching call began after the previous one ended (the CPU
 *                was late), kernel wait when shorter than 30 µs (launch
 *                latency between back-to-back kernels), other otherwise.
 *                Streams as HTA numbers them (args "stream"), in order.
 *                Events that overlap on a stream (an Ascend stream, or
 *                kernels the profiler drew overlapping) are merged first:
 *                a gap is measured from the latest end so far, so no idle
 *                time is ever negative (HTA measures from the previous
 *                event's end and goes negative there: a defect not kept).
 */
#ifndef ML_GPU_IDLE_H
#define ML_GPU_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "gputimeline.h"
#include "vec.h"

#define ML_KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay, 30 µs */

typedef struct ml_temporal {
    bool known;             /* false without GPU events */
    int64_t span, idle, compute, non_compute; /* ns */
} ml_temporal;

enum { ML_IDLE_HOST_WAIT, ML_IDLE_KERNEL_WAIT, ML_IDLE_OTHER, ML_IDLE__COUNT };

typedef struct ml_stream_idle {
    int64_t stream;
    int64_t ns[ML_IDLE__COUNT];   /* idle time by cause, never negative */
    int64_t gaps[ML_IDLE__COUNT]; /* how many gaps */
} ml_stream_idle;

typedef VEC(ml_stream_idle) ml_idle_streams;

void ml_temporal_compute(const ml_gpu_timeline *tl, ml_temporal *out);
/* One row per stream with kernels, memcpys or memsets, by stream number. */
void ml_idle_by_stream_compute(const ml_gpu_timeline *tl, ml_idle_streams *out);

#endif
