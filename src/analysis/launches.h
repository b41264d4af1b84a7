/*
 * launches.h — kernel launch statistics, by HolisticTraceAnalysis's
 * get_cuda_kernel_launch_stats (hta/analyzers/cuda_kernel_analysis.py), over
 * the GPU timeline (gputimeline.h, ns): each GPU event paired with the
 * call that launched it (same correlation id; the calls HTA lists:
 * cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync,
 * MTIA's runFunction - job_prep_and_submit_for_execution, and ROCm's hip*
 * equivalents, which HTA leaves out), with
 *
 *   cpu     the call's duration
 *   gpu     the event's duration (under HTA's rules −1 µs for some events
 *           under a µs, as HTA counts them; never negative when exact)
 *   delay   the event's start − the call's end, 0 if negative
 *
 * and the outliers HTA draws with its default cutoffs: short kernels (the
 * call took at most 50 µs and the kernel less than the call), runtime
 * outliers (the call took over 50 µs), launch-delay outliers (delay over
 * 100 µs).  Each list keeps its count and its worst few (largest call −
 * kernel, call, delay), earliest first among equals.
 */
#ifndef ML_LAUNCHES_H
#define ML_LAUNCHES_H

#include <stdint.h>

#include "durhist.h"
#include "gputimeline.h"

#define ML_LAUNCH_RUNTIME_CUTOFF_NS 50000 /* 50 µs */
#define ML_LAUNCH_DELAY_CUTOFF_NS 100000 /* 100 µs */
#define ML_LAUNCH_TOP 10

typedef struct ml_launch {
    uint32_t kernel, launcher;  /* slice rows */
    int64_t cpu, gpu, delay;    /* ns */
} ml_launch;

typedef struct ml_launch_outliers {
    int64_t count;
    uint32_t n;                 /* entries in top */
    ml_launch top[ML_LAUNCH_TOP];
} ml_launch_outliers;

enum { ML_OUTLIER_SHORT, ML_OUTLIER_RUNTIME, ML_OUTLIER_DELAY, ML_OUTLIER__COUNT };

typedef struct ml_launch_stats {
    int64_t count, cpu, gpu, delay, delay_max; /* ns sums, the largest delay */
    ml_durhist delay_hist;      /* the delays, slowest with the kernel's start (ns) */
    ml_launch_outliers outliers[ML_OUTLIER__COUNT];
} ml_launch_stats;

void ml_launch_stats_compute(const ml_gpu_timeline *tl, ml_launch_stats *out);

/* "short_kernels", "runtime_outliers", "launch_delay_outliers" */
const char *ml_launch_outlier_key(int which);

#endif
