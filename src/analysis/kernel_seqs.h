/*
 * kernel_seqs.h — the frequent sequences of GPU kernels launched under one
 * operator: candidates for fusion (HTA's get_frequent_cuda_kernel_sequences,
 * cuda_kernel_analysis.py).
 *
 * A root is an operator call, and its pattern is its name followed by the
 * names of the GPU events launched from inside it (by runtime calls in its
 * subtree on its thread), in start order: kernels, memcpys, memsets and, as
 * HTA counts everything on a stream with a launching call, the cuda_sync
 * events of the synchronising calls that carry a stream ("Stream Wait
 * Event"; not an "Event Sync" or "Context Sync" of stream -1, which HTA
 * takes for host events).  Roots with fewer than min_len (3) such events
 * are left out.  Patterns are counted over all roots; each keeps the sum of
 * its roots' GPU time (the events' durations, HTA's kernel_dur_sum) and CPU
 * time (the roots' durations).  Sorted by count, then by the pattern's text
 * ("op|k1|k2…", HTA's order); the first top are kept.
 *
 * As HTA's loader, with two or more ProfilerStep# nothing from the last
 * step's start on counts (roots, and work launched then); times are on
 * HTA's µs grid (each event rounded inward: gputimeline.h), so that an
 * ns-resolution trace gives HTA's sums.
 *
 * Which operator calls are roots: HTA asks for an operator name and takes
 * the calls whose name contains it, at the smallest depth any of them has
 * (so nested calls are not counted twice).  With a name (op_filter) memlens
 * does the same (depth: on the thread's call stack, as the Trace view nests
 * slices).  Without one, which is what memlens perf shows, each outermost
 * cpu_op (one with no cpu_op around it: aten::linear, an autograd
 * evaluate_function) is a root: every operator name at once.
 */
#ifndef ML_KERNEL_SEQS_H
#define ML_KERNEL_SEQS_H

#include <stddef.h>
#include <stdint.h>

#include "gputimeline.h"
#include "profile.h"

typedef struct ml_kseq {
    ml_str op;              /* the root operator's name */
    uint32_t first, n;      /* its GPU work's names: ml_kseqs.names[first, first + n) */
    uint64_t count;         /* roots with this pattern */
    int64_t gpu_ns;         /* Σ the GPU work's durations */
    int64_t cpu_ns;         /* Σ the roots' durations */
    uint32_t example;       /* the first root with it (a slice), for linking to the Trace view */
} ml_kseq;

typedef struct ml_kseqs {
    ml_kseq *seqs;          /* the top ones, count descending, then pattern text */
    size_t n;
    size_t total;           /* distinct patterns found */
    uint64_t roots;         /* roots with at least min_len events */
    ml_str *names;          /* the kept patterns' GPU work names */
} ml_kseqs;

typedef struct ml_kseq_opts {
    const char *op_filter;  /* NULL: outermost cpu_ops; else names containing it, at their smallest depth */
    int min_len;            /* GPU events a root needs (HTA's min_pattern_len: 3) */
    int top;                /* patterns kept (HTA's top_k: 5) */
    ml_time_rules rules;    /* exact ns, or HTA's µs grid (gputimeline.h) */
} ml_kseq_opts;

#define ML_KSEQ_DEFAULTS ((ml_kseq_opts){NULL, 3, 5, ML_TIME_EXACT})

void ml_kseqs_compute(const ml_profile *p, const ml_kseq_opts *o, ml_kseqs *out);
void ml_kseqs_free(ml_kseqs *k);

#endif
