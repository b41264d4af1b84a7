/*
 * kernels.h — the Kernel view: GPU kernels grouped by name, and by name and
 * the operator that launched them (optree.h), as the TensorBoard profiler
 * plugin's kernel tables (kernel_parser.py, op_agg.py).
 *
 * Unlike the plugin, which names the node that owns the runtime call (a
 * ProfilerStep#, an annotation such as nccl:all_reduce), "by operator" means
 * the innermost operator of the Operator view, so the two views link up.
 *
 * Blocks per SM and achieved occupancy are means weighted by each call's
 * duration, a call that lacks the figure counting as 0 (the plugin's
 * fillna(0)); they are unknown (< 0) when no kernel of the trace has them.
 * Each row also keeps its calls' duration histogram and slowest calls (durhist.h).
 *
 * by_core groups NPU tasks by their Accelerator Core (AI_CORE, AI_VECTOR_CORE,
 * AI_CPU, MIX_AIV, HCCL ...; kernel_info.core), as MindStudio Insight's
 * operator view does: a row's name is the core.  Empty when no task names one.
 */
#ifndef ML_KERNELS_H
#define ML_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "durhist.h"
#include "optree.h"
#include "profile.h"

typedef struct ml_kernel_row {
    ml_str name;
    ml_str op;              /* by_op: the innermost operator (a row of the operator table)
                             * over the launch, 0 if none */
    int64_t calls, total_ns, min_ns, max_ns;
    double blocks_per_sm, occupancy; /* weighted means, < 0 unknown */
    bool tensor_cores;      /* the name is on the Tensor Core allowlist */
    ml_durhist hist;        /* per-call durations, with the slowest calls' start times */
} ml_kernel_row;

typedef struct ml_kernel_table {
    VEC(ml_kernel_row) by_name; /* total time descending */
    VEC(ml_kernel_row) by_op;   /* total time descending */
    VEC(ml_kernel_row) by_core; /* total time descending; name = the Accelerator Core */
    int64_t kernels;            /* kernel slices */
    /* string id of a kernel name -> its row in by_name (ML_NONE32 if not a kernel name) */
    uint32_t *row_of_name;
    size_t n_names;
} ml_kernel_table;

/* What of the tables the caller shows; zeroed (or NULL): all of them.
 * Text views read only by_name and by_core, without the histograms. */
typedef struct ml_kernel_wants {
    bool no_by_op;          /* by_op left empty (the page's, perf --json's) */
    bool no_hists;          /* every row's hist left empty (the page's) */
} ml_kernel_wants;

void ml_kernels_compute(const ml_profile *p, const ml_optree *tree, const ml_kernel_wants *w, ml_kernel_table *out);
void ml_kernels_free(ml_kernel_table *k);

#endif
