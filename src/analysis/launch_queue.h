/*
 * launch_queue.h — the launch queue of each GPU stream, by
 * HolisticTraceAnalysis's get_queue_length_* (hta/analyzers/trace_counters.py),
 * over the GPU timeline (gputimeline.h, ns): the number of launched
 * events not started yet, +1 at each launching call (cudaLaunchKernel,
 * cuLaunchKernel, cudaMemcpyAsync, … and ROCm's), −1 when the event starts.
 *
 *   max, mean   over the change points, as HTA's describe() of its series
 *               (a launch and a start at one time: the launch first, the
 *               order HTA's sort keeps for small traces; it does not for
 *               large ones, so its mean can differ by about 1 %)
 *   blocked     get_time_spent_blocked_on_full_queue: the time the queue
 *               stood at 1024 or more (CUDA's launch queue per stream)
 *
 * The step series itself is kept for the Trace view's counter tracks.
 */
#ifndef ML_LAUNCH_QUEUE_H
#define ML_LAUNCH_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "gputimeline.h"
#include "vec.h"

#define ML_QUEUE_FULL 1024 /* HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM */

typedef struct ml_stream_queue {
    int64_t stream;
    int64_t max, blocked;   /* blocked: ns at ML_QUEUE_FULL or more */
    double mean;
    size_t n;               /* change points */
    int64_t *t;             /* their times (timeline ns) */
    int32_t *q;             /* the queue length from then on */
} ml_stream_queue;

typedef VEC(ml_stream_queue) ml_queues;

/* One row per stream that had launched events, by stream number. */
void ml_queues_compute(const ml_gpu_timeline *tl, ml_queues *out);
void ml_queues_free(ml_queues *q);

#endif
