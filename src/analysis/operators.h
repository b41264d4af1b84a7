/*
 * operators.h — the Operator view: the operators of the trees (optree.h)
 * grouped by name, and by name and input shape, as the TensorBoard
 * profiler plugin's operator tables (op_agg.py).
 *
 * Per group: calls, host and device self/total times (sums over the calls),
 * Tensor Core eligibility (any call eligible), the share of self and total
 * kernel time in Tensor Core kernels, the first call stack recorded
 * ("Call stack" args, old traces) and the kernels (rows of the kernel table
 * by name) that its calls and their children launched, and the histogram of
 * its calls' host durations with the slowest few (durhist.h).
 */
#ifndef ML_OPERATORS_H
#define ML_OPERATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "durhist.h"
#include "kernels.h"
#include "optree.h"
#include "profile.h"

typedef struct ml_op_row {
    ml_str name;
    ml_str shape;           /* by_shape: "Input Dims" text, 0 if none */
    int64_t calls, host_self_ns, host_total_ns, device_self_ns, device_total_ns, tc_self_ns, tc_total_ns;
    bool tc_eligible;
    ml_str stack;           /* "file.py(12): f;..." as recorded, 0 if none */
    uint32_t *kernels;      /* rows of ml_kernel_table.by_name, ascending */
    size_t n_kernels;
    /* per-call host durations (the slices' own), with start times: for the
     * first ML_OP_HIST_ROWS rows, NULL past them (a trace of a million
     * distinct names would otherwise spend 280 bytes a row on them) */
    ml_durhist *hist;
} ml_op_row;
#define ML_OP_HIST_ROWS 10000

typedef VEC(ml_op_row) ml_op_rows;

typedef struct ml_op_table {
    ml_op_rows by_name, by_shape; /* device self time descending (host self time
                                     when the trace has no GPU work) */
    ml_durhist *hists[2];         /* the rows' histograms (by_name's, by_shape's) */
} ml_op_table;

/* What of the tables the caller shows; zeroed (or NULL): all of it.  A text
 * view shows one table (by name, or by name and shape) and neither each
 * row's kernels nor its histogram. */
typedef struct ml_op_wants {
    bool no_by_name, no_by_shape; /* that table left empty */
    bool no_kernels;        /* rows without their kernels (n_kernels 0) */
    bool no_hists;          /* rows without their histograms (hist NULL) */
} ml_op_wants;

void ml_operators_compute(const ml_profile *p, const ml_optree *tree, const ml_kernel_table *kt, const ml_op_wants *w,
                          ml_op_table *out);
void ml_operators_free(ml_op_table *t);

#endif
