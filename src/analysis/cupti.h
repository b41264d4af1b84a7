/*
 * cupti.h — per-kernel hardware counters of a trace recorded in CUPTI
 * profiler mode (torch.profiler's experimental_config with
 * profiler_metrics), with the operators that launched each kernel: HTA's
 * get_cupti_counter_data_with_operators (cupti_counter_analysis.py).
 *
 * In that mode Kineto writes no "kernel" events: each kernel is a
 * "cuda_profiler_range" event (ML_SL_PROFILER_RANGE) named after it, whose
 * args are the counters ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum":
 * 38731776) and whose times are the profiler's replay, not the kernel's.  The
 * ranges carry no correlation id, so, as HTA does, the i-th range in time
 * order is the kernel of the i-th cudaLaunchKernel* runtime call in time
 * order (any thread).  When the two counts differ the pairing is unknown:
 * HTA then gives nothing; memlens keeps the counters and leaves the
 * operator stacks empty (paired = false).
 *
 * The operator stack of a kernel is the cpu_op slices enclosing its launch
 * on the launching thread, outermost first (HTA's op_stack; top_level_op is
 * the first, bottom_level_op the last).
 *
 * FLOPs: where the SASS instruction counters HTA names
 * (CUDA_SASS_INSTRUCTION_COUNTER_FLOPS: smsp__sass_thread_inst_executed_op_
 * {ffma,fmul,fadd,hfma,hmul,hadd,dfma,dmul,dadd}_pred_on.sum) are present,
 * flops = Σ count × (2 for an fma, else 1).
 *
 * The values are stored as they come, sparse: each row's (counter, value)
 * cells, not a kernels × counters matrix, since a trace may give every
 * kernel its own counter names (1,000 kernels × 100 names of their own made
 * a 10^8-cell matrix of 800 MB and 2 GB of JSON nulls).  Memory and output
 * grow with the values present.
 */
#ifndef ML_CUPTI_H
#define ML_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct ml_cupti_row {
    uint32_t slice;         /* the cuda_profiler_range slice (its name is the kernel's) */
    uint32_t launch;        /* the paired cudaLaunchKernel* slice, ML_NONE32 when unpaired */
    uint32_t stack_first, stack_n; /* its operator stack: ml_cupti.stack[first, first + n) */
    size_t cell_first;      /* its values: ml_cupti.cells[first, first + n), by counter */
    uint32_t cell_n;
    double flops;           /* < 0 when the trace has none of the SASS counters */
} ml_cupti_row;

/* One value a range gives: the counter (index into ml_cupti.counters) and its value. */
typedef struct ml_cupti_cell {
    uint32_t counter;
    double value;
} ml_cupti_cell;

typedef struct ml_cupti {
    size_t n;               /* kernels measured (ranges) */
    ml_cupti_row *rows;     /* in time order */
    uint32_t *stack;        /* the rows' cpu_op slices, outermost first */
    size_t n_counters;
    ml_str *counters;       /* counter names, in the order the trace first gives them */
    ml_cupti_cell *cells;   /* the rows' values, each row's by counter index (the last one
                             * a range gives for a counter it names twice) */
    size_t n_cells;
    size_t launches;        /* cudaLaunchKernel* calls in the trace */
    bool paired;            /* launches == n: rows have their launch and operator stack */
    bool has_flops;
} ml_cupti;

/* False (and *out empty) when the trace has no cuda_profiler_range events. */
bool ml_cupti_compute(const ml_profile *p, ml_cupti *out);
void ml_cupti_free(ml_cupti *c);

/* A row's value of counter k (NaN when absent); a binary search of its cells. */
double ml_cupti_value(const ml_cupti *c, size_t row, size_t k);

/* The counters a table shows as its own columns or lines: at most cap of
 * them, those present on the most kernels (ties: the one the trace gives
 * first), written to out in counter order; returns how many.  A trace may
 * give each kernel counter names of its own, so a table of every name would
 * grow as kernels × names; the rest are in perf --json. */
#define ML_CUPTI_SHOWN 8
size_t ml_cupti_shown(const ml_cupti *c, size_t cap, uint32_t *out);

#endif
