/*
 * stragglers.h — which ranks start their collectives late: HTA's
 * get_potential_stragglers (straggler_analysis.py, straggler.py), the
 * late-start rule.
 *
 * Each rank gives a small record (ml_straggler_record): its ProfilerStep#N
 * numbers, the span of its work in those steps, and its communication
 * kernels, each with the step its launching call ran in.  As HTA's loader
 * does by default, each rank's last step is left out (it may be cut short:
 * only work whose host call began before the last ProfilerStep# counts), so
 * a rank needs two steps.  Across ranks:
 *
 *   mean step    (last end − first start over all ranks' step work) / steps
 *   long kernels communication kernels of steps N > 0 (HTA leaves step 0
 *                out) lasting at least 1% of the mean step; per (rank,
 *                stream, step, name) the last one to start
 *   the metric   the (stream, name) whose durations vary most across ranks
 *                (sample standard deviation per step, averaged over steps):
 *                a collective that every rank ends together, so that the
 *                later a rank starts it, the longer the others waited
 *   stragglers   per step, the ranks whose start of it is among the
 *                `candidates` latest (ties included); a rank's count is in
 *                how many steps it was; the `candidates` ranks with the
 *                highest counts are the potential stragglers (ties: lower
 *                rank first).  With a single step, the same over its rows.
 *
 * Communication kernels: names starting "ncclKernel" (HTA) or
 * "ncclDevKernel" (NCCL 2.19 and later, which HTA misses: its issue #360).
 * Start times are compared across ranks as the traces give them (the ranks'
 * clocks are taken to agree).  Nothing can be named (NULL, with a reason)
 * with fewer than two ranks, without ProfilerStep#N, or without a long
 * enough communication kernel on two ranks of one step.
 */
#ifndef ML_STRAGGLERS_H
#define ML_STRAGGLERS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* ---- one rank's record ---- */

typedef struct ml_straggler_kernel {
    int64_t step;           /* N of the ProfilerStep#N its launch ran in, -1 if none */
    int64_t stream;
    int64_t ts, dur;        /* ns */
    const char *name;       /* points into the rank's strings */
} ml_straggler_kernel;

typedef struct ml_straggler_record {
    int rank;
    int64_t *steps;         /* the N of each ProfilerStep#N, ascending, distinct */
    size_t n_steps;
    int64_t first, last;    /* the earliest start and latest end of its work in those steps; last < first: none */
    ml_straggler_kernel *kernels; /* communication kernels, in start order */
    size_t n_kernels;
} ml_straggler_record;

/* The record of profile p (rank: its number in the outputs). */
void ml_straggler_record_of(const ml_profile *p, int rank, ml_straggler_record *out);
void ml_straggler_record_free(ml_straggler_record *r);

/* ---- across ranks ---- */

typedef struct ml_straggler_row {
    int rank;
    int64_t step;
    int64_t ts;             /* start of the metric kernel (ns, the trace's clock) */
    int64_t late_ns;        /* after the earliest rank's start of it in this step */
    double normalized_start; /* HTA's metric: (ts − first start) / mean step */
    int straggler;          /* among the latest `candidates` in its step */
} ml_straggler_row;

typedef struct ml_straggler_count {
    int rank;
    int count;              /* steps in which it was among the latest */
} ml_straggler_count;

typedef struct ml_stragglers {
    char *kernel;           /* the metric kernel's name (owned) */
    int64_t stream;
    int64_t mean_step_ns, min_kernel_ns;
    int candidates;         /* HTA's num_candidates: 2 */
    ml_straggler_row *rows; /* by step, then rank */
    size_t n_rows;
    ml_straggler_count *counts; /* every rank with a row, count descending, then rank */
    size_t n_counts;
    int *ranks;             /* the potential stragglers: the first `candidates` of counts */
    size_t n_ranks;
} ml_stragglers;

#define ML_STRAGGLER_CANDIDATES 2

/* NULL when none can be named; *why (static text) then says why. */
ml_stragglers *ml_stragglers_find(const ml_straggler_record *recs, size_t n, int candidates, const char **why);
void ml_stragglers_free(ml_stragglers *s);

/* Both steps for profiles: a record of each rank with a time side (rank:
 * its number, or its index in ranks when unknown). */
ml_stragglers *ml_stragglers_compute(ml_profile *const *ranks, size_t n, const char **why);

#endif
