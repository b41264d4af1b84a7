/*
 * steps.h — the step time breakdown of the Overview view, by the rules of
 * TensorBoard's PyTorch profiler plugin (event_parser.py, overall_parser.py).
 *
 * Steps are the ProfilerStep#N ranges, each extended to the end of the GPU
 * work that the runtime calls inside it launched (and starting no earlier
 * than the previous step's end); trailing steps that launched no GPU work,
 * or under 80% of the previous step's, are dropped as cut short by the
 * profiler.  A trace without steps is one step, "(whole trace)": the span of
 * its CPU operators, extended the same way.
 *
 * Every instant of a step is charged to one role, the first in this order
 * that is busy then: Kernel, Memcpy, Memset, Communication, Runtime,
 * DataLoader, CPU Exec; what is left is Other.
 *
 * Where memlens departs from the plugin (each for traces newer than it):
 * cuda_driver calls (cuLaunchKernel) count as runtime calls; kernels named
 * "nccl..." are communication even when their External id names no nccl op;
 * any "nccl:" or "gloo:" operator is a communication op; gpu_user_annotation
 * ranges (drawn on streams) are not CPU work.
 */
#ifndef ML_STEPS_H
#define ML_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "ranges.h"

typedef enum {
    ML_ROLE_KERNEL, ML_ROLE_MEMCPY, ML_ROLE_MEMSET, ML_ROLE_COMMUNICATION, ML_ROLE_RUNTIME,
    ML_ROLE_DATALOADER, ML_ROLE_CPU_EXEC, ML_ROLE_OTHER,
    ML_ROLE__COUNT
} ml_role;

/* "Kernel", "Memcpy", ... "Other", as the plugin labels them. */
const char *ml_role_label(ml_role r);

typedef struct ml_step {
    ml_str name;            /* "ProfilerStep#5"; 0 for the whole-trace step */
    int64_t begin, end;     /* ns, after extension to the GPU work */
    int64_t cost[ML_ROLE__COUNT]; /* ns per role; they add up to end - begin */
} ml_step;

typedef struct ml_steps {
    VEC(ml_step) steps;     /* in time order; at least one when the trace has slices */
    bool whole_trace;       /* no ProfilerStep#: one step over the CPU operators */
    /* What the rules above did to the ProfilerStep# ranges, for a note:
     * steps that begin before the one before them ends (their shared time
     * goes to the earlier one), steps numbered lower than the one before
     * them, and trailing steps dropped as cut short (dropped_idle of them
     * launched no GPU work, the others under 80% of the step before). */
    size_t overlapping, backward, dropped, dropped_idle;
    double avg[ML_ROLE__COUNT], avg_total; /* means over the steps, ns */
    int64_t begin, end;     /* first step's begin, last step's end (0, 0 if no steps) */
    /* Busy time of communication over the whole trace, merged (before the
     * priority rule).  The other roles' are empty: once the costs are made
     * their ranges (one per kernel, per runtime call) go to the next
     * analysis's arrays (scratch.h). */
    ml_ranges busy[ML_ROLE__COUNT];
} ml_steps;

/* Slice kinds the plugin treats as runtime calls (they launch GPU work). */
static inline bool ml_slice_is_runtime(uint8_t kind) { return kind == ML_SL_RUNTIME || kind == ML_SL_DRIVER; }
/* GPU work: kernels, memcpy, memset. */
static inline bool ml_slice_is_gpu(uint8_t kind)
{
    return kind == ML_SL_KERNEL || kind == ML_SL_MEMCPY || kind == ML_SL_MEMSET;
}
/* "enumerate(DataLoader)#...__next__" / "enumerate(DataPipe)#...". */
bool ml_name_is_dataloader(const char *name);
/* A collective op ("nccl:all_reduce", "gloo:broadcast" ...). */
bool ml_name_is_comm_op(const char *name);
/* A communication kernel ("ncclKernel_AllReduce...", "ncclDevKernel_..."). */
bool ml_name_is_comm_kernel(const char *name);

void ml_steps_compute(const ml_profile *p, ml_steps *out);
void ml_steps_free(ml_steps *s);

#endif
