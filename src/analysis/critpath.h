/*
 * critpath.h — the critical path of each step: the longest chain of
 * dependent work through CPU operators, kernel launches, kernels and
 * synchronisations, and where its time goes (HTA's critical_path_analysis,
 * critical_path_analysis.py, whose graph this builds).
 *
 * The graph of one step.  Its events are the cpu_op, cuda_runtime and
 * cuda_driver slices of host threads that start inside the step's
 * ProfilerStep# (its begin to its end, both included; the whole trace when
 * there are no steps) and last more than 0 ns, and the GPU work (kernels,
 * memcpys, memsets) and cuda_sync events those runtime calls launched.  Each
 * event is two nodes, its start and its end; edges, each with a weight in ns:
 *
 *   operator   along each host thread's call stack, as a depth-first walk
 *              enters and leaves the calls: previous node -> this one,
 *              weighted by the time between them (0 into the end of a
 *              blocking call: cudaDeviceSynchronize, cudaStreamSynchronize,
 *              cudaEventQuery, cudaEventSynchronize, cudaMemcpy,
 *              cudaMemcpyAsync: waiting is not work); from the end of one
 *              outermost call to the start of the next a dependency of
 *              weight 0.  The backward thread (the one host thread with
 *              "autograd" cpu_ops or annotations) is walked as part of the
 *              forward thread (the one with "forward" in such a name), so
 *              the path can go from the forward pass into the backward.
 *   runtime lock  cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc hold
 *              the CUDA runtime's lock: in time order across threads, each
 *              such call's start -> its end (weighted), and calls that
 *              overlap it wait for its end (weight 0).
 *   kernel     a GPU event's start -> end, weighted by its duration.
 *   launch     runtime call start -> kernel start (the launch delay),
 *              when the stream was idle: nothing else queued on it when the
 *              call was made nor when the kernel began (HTA's queue length
 *              1 and 0), the previous GPU event on the stream ended before
 *              the call began, and so did any event it waits for.
 *   kernel-kernel  otherwise, the previous GPU event's end on the same
 *              stream -> this one's start, when the gap is under 1.5 ms.
 *   sync       (weight 0) GPU -> CPU: a "Stream Sync" from the stream's last
 *              GPU event to the end of the synchronising runtime call; a
 *              "Context Sync" from every stream's; an "Event Sync" from the
 *              GPU event the awaited CUDA event followed (the last launch on
 *              the event's stream before its cudaEventRecord).  GPU -> GPU: a
 *              "Stream Wait Event" makes the next launch on the waiting
 *              stream from that thread wait for that GPU event's end.
 *
 * The critical path is the longest path of this graph (a DAG; a step whose
 * graph has a cycle, from a malformed trace, gets none).  Each edge of it is
 * charged to a kind, as HTA's bound_by: cpu (host calls), gpu_compute and
 * gpu_communication (GPU events; communication: names starting nccl, hip,
 * hccl or holding ncclKernel, HTA's pattern), launch (launch delays),
 * kernel_kernel (gaps between GPU events); dependencies and syncs weigh 0.
 * The path's time adds up to `path_ns`.  Each weighted edge belongs to an
 * event (HTA's attribution: a span from a start to an end belongs to the
 * event started or ended; from one call's end to the next call's start, to
 * the call around both; a gap between kernels to the earlier kernel): the
 * `top` events by time on the path.
 *
 * For drawing, the path is cut into legs: a run of consecutive edges on one
 * track (of one kind, or of zero weight) is one leg from its first node to
 * its last; an edge between tracks (a launch, a sync, the runtime lock, a
 * wait between streams) is a leg of its own.
 *
 * Cost: per step, linear in the step's events (plus a merge of nearly sorted
 * runs); memory for one step's graph at a time.  It is computed only when an
 * output asks for it (perf --json, the critical-path text view, the report,
 * the server's perf object), not by a plain `memlens perf`.
 *
 * On an NPU (devkind.h linked_calls_launch), in the device's words: every
 * CANN call linked to a task is a launch call (queue length, launch edges);
 * a CANN lane (a thread track of runtime calls only) is walked with the
 * thread track of its tid that has cpu_ops; CANN's waits (aclrtSynchronize*
 * and aclrtMemcpy, with or without "AscendCL@") are blocking, and sync from
 * each stream's last task that ended by the wait's end and was launched
 * before it began -> its end (the export names no stream: as Context Sync);
 * HCCL tasks (a collective in their kernel_info) are gpu_communication.
 * A stream's EVENT_WAIT on another and the task queue's enqueue -> dequeue
 * flows are not edges yet.
 *
 * Where memlens departs from HTA: HTA takes every "Stream Wait Event" of the
 * trace into each step, memlens those the step launched; its queue lengths
 * are per stream number, memlens's per stream track (one device's stream);
 * ties (equal times, equal path lengths) may be broken differently.
 */
#ifndef ML_CRITPATH_H
#define ML_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef enum {
    ML_CP_CPU, ML_CP_GPU_COMPUTE, ML_CP_GPU_COMM, ML_CP_LAUNCH, ML_CP_KERNEL_KERNEL,
    ML_CP_NONE,             /* dependencies and syncs: no time */
    ML_CP__COUNT
} ml_cp_kind;

/* "cpu", "gpu_compute", "gpu_communication", "launch", "kernel_kernel", "none" */
const char *ml_cp_kind_name(ml_cp_kind k);

typedef struct ml_cp_leg {
    uint32_t from_slice, to_slice; /* the events of its first and last node */
    uint32_t from_track, to_track;
    int64_t from_ts, to_ts; /* ns: the nodes' times */
    int64_t weight_ns;      /* time on the path */
    uint8_t kind;           /* ml_cp_kind of its weighted edges (ML_CP_NONE if none) */
} ml_cp_leg;

typedef struct ml_cp_top {
    uint32_t slice;         /* an event of this name (the first charged) */
    ml_str name;
    uint8_t kind;           /* ml_cp_kind */
    int64_t ns;             /* time charged to events of this name and kind */
} ml_cp_top;

#define ML_CP_TOP 5

typedef struct ml_cp_step {
    ml_str name;            /* "ProfilerStep#5"; 0 for the whole trace */
    int64_t begin, end;     /* the window (ns) */
    bool ok;                /* false: no events, or the graph has a cycle */
    int64_t path_ns;        /* the path's length: Σ by_kind */
    int64_t by_kind[ML_CP__COUNT];
    int64_t path_begin, path_end; /* times of its first and last node */
    size_t events, edges, nodes_on_path;
    ml_cp_top top[ML_CP_TOP];
    size_t n_top;
    size_t first_leg, n_legs; /* ml_critpath.legs[first_leg, first_leg + n_legs) */
} ml_cp_step;

typedef struct ml_critpath {
    ml_cp_step *steps;
    size_t n_steps;
    ml_cp_leg *legs;
    size_t n_legs;
    ml_cp_top top[ML_CP_TOP]; /* over all the steps */
    size_t n_top;
    bool has_sync;          /* the trace has cuda_sync events, or an NPU trace CANN calls that wait for the NPU
                             * (without them no GPU -> CPU sync is known) */
} ml_critpath;

/* The critical path of each ProfilerStep# (the whole trace when there are
 * none).  Empty (n_steps 0) without a time side. */
void ml_critpath_compute(const ml_profile *p, ml_critpath *out);
void ml_critpath_free(ml_critpath *c);

#endif
