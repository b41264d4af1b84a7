/*
 * distributed.h — computation against communication per rank and step, and
 * the collectives each rank ran (the TensorBoard PyTorch profiler plugin's
 * Distributed view: overall_parser.py and communication.py).
 *
 * Per rank (a profile with a time side):
 *   steps        its ProfilerStep#N slices, or one "(whole trace)" step over
 *                the trace's span when it has none
 *   communication kernels  GPU kernels whose name contains "nccl" (any case:
 *                ncclKernel_*, ncclDevKernel_*)
 *   computation  every other kernel; a rank without kernels (CPU only, gloo)
 *                uses its top-level cpu ops instead, and its communication is
 *                then its top-level collective ops (below)
 * and per step, as the plugin computes them (union of intervals, clipped to
 * the step):
 *   computation_ns   |step ∩ computation|
 *   communication_ns |step ∩ communication|
 *   overlap_ns       |step ∩ computation ∩ communication|
 *   other_ns         step duration + overlap - computation - communication
 *
 * Collectives, one row per (rank, name, group size): each communication kernel belongs to
 * the collective op its launch sits in (walking up from the runtime call):
 * the innermost "nccl:*" / "gloo:*" annotation, else a "c10d::*" op, else the
 * kernel's args "Collective name", else the kernel's own name.
 *   group_size the process group's size (args "Group size" of the kernel or of
 *              the record_param_comms op around its launch; else world_size
 *              when distributedInfo's pg_count is 1), -1 when not
 *              recorded: the same collective in two process groups is two rows
 *   calls      distinct collective ops (kernels when no op was found)
 *   bytes      "In msg nelems" (else "Out msg nelems") x the dtype's size,
 *              from the kernel's args or those of the record_param_comms op
 *              around the launch; else, as the plugin does, the collective
 *              op's "Input Dims" x "Input type" sizes; -1 when no call said
 *   total_ns   the union of the row's kernel intervals
 *   mean_ns    total_ns / calls
 * slowest_rank: the straggler, the rank with the most computation per step
 * (the others wait for it inside their collectives); -1 without steps.
 * stragglers: HTA's potential stragglers, the ranks that start a collective
 * late (stragglers.h).
 *
 * Strings point into the profiles' string pools, or are static: valid while
 * the profiles live.
 */
#ifndef ML_DISTRIBUTED_H
#define ML_DISTRIBUTED_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "stragglers.h"

typedef struct ml_dist_step {
    int rank;               /* the profile's rank, or its index in the input when unknown */
    const char *step;       /* "ProfilerStep#5", "(whole trace)" */
    int64_t begin_ns, end_ns;
    int64_t computation_ns, communication_ns, overlap_ns, other_ns;
} ml_dist_step;

typedef struct ml_collective {
    int rank;
    const char *name;       /* "nccl:all_reduce", "c10d::broadcast_", "allreduce" ... */
    int group_size;         /* ranks in its process group, -1 if unknown */
    uint64_t calls;
    int64_t bytes;          /* -1 if unknown */
    int64_t total_ns, mean_ns;
} ml_collective;

typedef struct ml_distributed {
    const char *backend;    /* distributedInfo.backend of the first rank that has one, else NULL */
    int world_size;         /* from distributedInfo, else the number of ranks given */
    ml_dist_step *steps;    /* by rank (input order), then time */
    size_t n_steps;
    ml_collective *collectives; /* by rank, then total_ns descending */
    size_t n_collectives;
    int slowest_rank;
    ml_stragglers *stragglers; /* ranks whose collectives start late (stragglers.h); NULL: */
    const char *stragglers_why; /* why none can be named */
} ml_distributed;

/* NULL when no rank is part of a distributed run: none has a time side, or
 * none has world_size > 1 or any communication. */
ml_distributed *ml_distributed_compute(ml_profile *const *ranks, size_t n);

/* The same in two halves, for ranks that are not all in memory at once
 * (a job read on many threads or machines, rankrec.h): each rank's part
 * while its profile is loaded, then the view of them all, in rank order.
 * ml_distributed_compute is exactly the join of the parts of its ranks. */
typedef struct ml_dist_part {
    int rank;
    int world_size;             /* the profile's, -1 if unknown */
    const char *backend;        /* the trace's distributedInfo.backend, or NULL */
    bool any_comm;              /* it has communication */
    double comp_per_step;       /* ns of computation per step (the slowest rank has the most) */
    ml_dist_step *steps;        /* its steps and collectives, as in ml_distributed */
    size_t n_steps;
    ml_collective *collectives;
    size_t n_collectives;
    ml_straggler_record stragglers; /* its communication kernels by step (stragglers.h) */
} ml_dist_part;
/* False (an empty part) when p has no time side.  Strings point into p.
 * stragglers: with its straggler record (else empty): the join names
 * stragglers only from two ranks or more, so one rank's view needs none. */
bool ml_distributed_part(const ml_profile *p, int rank, bool stragglers, ml_dist_part *out);
void ml_dist_part_free(ml_dist_part *part);
/* The view of the parts of the ranks that have a time side, in rank order;
 * n_given: all the ranks (the world size when no rank says).  NULL when not
 * a distributed run.  Its strings are the parts'. */
ml_distributed *ml_distributed_join(const ml_dist_part *parts, size_t n, size_t n_given);
void ml_distributed_free(ml_distributed *d);

/* The size in bytes of one element of a record_param_comms "dtype"
 * ("Float" 4, "BFloat16" 2, "Long" 8 ...; PyTorch's ScalarType names), 0 if unknown. */
int ml_dtype_size(const char *dtype);

#endif
