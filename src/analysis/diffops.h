/*
 * diffops.h — the time of one run per name, over its profiler steps, as
 * HolisticTraceAnalysis counts it for TraceDiff.compare_traces: what `memlens
 * diff` aligns by name between two runs (diff.h).
 *
 * Rows are (kind, name): CPU operators (cpu_op), runtime calls (cuda_runtime,
 * and cuda_driver, which memlens counts as runtime calls everywhere), kernels,
 * memcpys and memsets, each with its number of calls and the sum of their
 * durations (inclusive: a call's own duration, children included).  The
 * ProfilerStep#N annotations and other annotations are not rows.
 *
 * Which calls count (HTA's add_iteration): host slices whose start lies in a
 * ProfilerStep#N range [ts, ts + dur) — the step as recorded, not extended
 * to its GPU work — and GPU work whose launching runtime call does.  GPU work
 * with no launching call in the trace belongs to no step and is left out, as
 * HTA leaves it out.  A trace without ProfilerStep# counts every call
 * (whole_trace); HTA has no answer for such a trace.
 */
#ifndef ML_DIFFOPS_H
#define ML_DIFFOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

typedef enum {
    ML_OPK_OPERATOR, ML_OPK_RUNTIME, ML_OPK_KERNEL, ML_OPK_MEMCPY, ML_OPK_MEMSET,
    ML_OPK__COUNT
} ml_opkind;

/* "operator", "runtime", "kernel", "memcpy", "memset" (the --json kinds). */
const char *ml_opkind_name(unsigned kind);

typedef struct ml_stepop {
    ml_str name;            /* in the profile's string pool */
    uint8_t kind;           /* ml_opkind */
    int64_t calls;
    int64_t ns;             /* summed durations */
} ml_stepop;

typedef struct ml_stepops {
    VEC(ml_stepop) rows;    /* in order of first appearance */
    size_t steps;           /* ProfilerStep# ranges found (0 when whole_trace) */
    bool whole_trace;       /* no ProfilerStep#: every call counted */
} ml_stepops;

/* Empty (no rows) for a profile without a time side. */
void ml_stepops_compute(const ml_profile *p, ml_stepops *out);
void ml_stepops_free(ml_stepops *s);

#endif
