/*
 * kernel_types.h — GPU time by kernel type, overlaps included, and how much
 * of the communication ran under computation, by HolisticTraceAnalysis's
 * definitions over the GPU timeline (gputimeline.h, ns):
 *
 *   get_gpu_kernel_breakdown (kernel type table, memory kernels included):
 *     the events of each type (COMPUTATION, COMMUNICATION, MEMORY) merged
 *     into busy intervals, then the time in each combination of types busy
 *     at once: "COMPUTATION", "COMPUTATION overlapping COMMUNICATION", …,
 *     named as HTA names them (types in that order, joined by
 *     " overlapping ").  OTHER events (syncs) are in no type.
 *   get_comm_comp_overlap: the time communication and computation run at
 *     once (memory or not) over all communication time; undefined (NaN)
 *     without communication.
 */
#ifndef ML_KERNEL_TYPES_H
#define ML_KERNEL_TYPES_H

#include <stdint.h>

#include "gputimeline.h"

/* A combination of types: bit 0 COMPUTATION, 1 COMMUNICATION, 2 MEMORY. */
#define ML_KT_MASKS 8

typedef struct ml_kernel_types {
    int64_t ns[ML_KT_MASKS];    /* time with exactly that combination busy (ns[0] unused) */
    int64_t comm_ns;            /* all communication time (merged) */
    double comm_comp_overlap;   /* 0-1; NaN without communication */
} ml_kernel_types;

void ml_kernel_types_compute(const ml_gpu_timeline *tl, ml_kernel_types *out);

/* HTA's name of a combination ("COMPUTATION overlapping MEMORY"); "" for 0. */
const char *ml_kernel_mask_name(unsigned mask);

#endif
