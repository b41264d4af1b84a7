/*
 * gpumetrics.h — the Overview's GPU summary per device, by the TensorBoard
 * profiler plugin's rules (gpu_metrics_parser.py, tensor_cores_parser.py).
 * Every figure is over the steps' span (first step's begin to last step's
 * end, steps.h), as the plugin's are:
 *
 *   utilization     time with at least one kernel running / the span
 *   sm_efficiency   Σ over time of min(Σ "blocks per SM" of the kernels
 *                   running, 1) / the span
 *   occupancy       "est. achieved occupancy %" of the kernels, weighted by
 *                   their time in the span (0-100)
 *   tc_share        the share of kernel time in the span spent in kernels
 *                   that use Tensor Cores (name allowlist, optree.h)
 *
 * A device is one that ran kernels.  A figure the trace cannot give is < 0.
 */
#ifndef ML_GPUMETRICS_H
#define ML_GPUMETRICS_H

#include <stdint.h>

#include "profile.h"
#include "steps.h"

typedef struct ml_gpu_metrics {
    int device;             /* index into p->devices, -1 if the trace does not say */
    int gpu;                /* the kernels' args "device" (CUDA index), -1 if none */
    int64_t kernels, kernel_ns; /* number and total time of its kernels (whole trace) */
    double utilization, sm_efficiency, occupancy, tc_share; /* < 0: unknown */
} ml_gpu_metrics;

typedef VEC(ml_gpu_metrics) ml_gpu_metrics_list;

/* One entry per device that ran kernels, in ml_device_order's order. */
void ml_gpu_metrics_compute(const ml_profile *p, const ml_steps *st, ml_gpu_metrics_list *out);

#endif
