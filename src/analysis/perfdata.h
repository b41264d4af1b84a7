/*
 * perfdata.h — every time-side analysis of one rank, computed together for
 * `memlens perf`, the report and the server: steps and their breakdown
 * (steps.h), GPU metrics (gpumetrics.h), operator trees (optree.h), the
 * operator and kernel tables (operators.h, kernels.h), recommendations
 * (recommend.h), the nn.Module tree (modules.h) and HTA's GPU-time analyses
 * (gputime.h: idle time, kernel types, launches, queues, bandwidth); also
 * from HolisticTraceAnalysis, the frequent kernel sequences (kernel_seqs.h),
 * CUPTI counters (cupti.h) and, only when asked (ml_perf_want_critical_path:
 * it costs more than the rest together on CPU-heavy traces), the critical
 * path (critpath.h).  The distributed view
 * (distributed.h) spans ranks, so callers compute it once for all of them.
 * output/perf.h writes it as text or as the perf object of web/DATA.md.
 */
#ifndef ML_PERFDATA_H
#define ML_PERFDATA_H

#include <stdbool.h>

#include "critpath.h"
#include "cupti.h"
#include "gpumetrics.h"
#include "gputime.h"
#include "kernel_seqs.h"
#include "kernels.h"
#include "modules.h"
#include "operators.h"
#include "optree.h"
#include "profile.h"
#include "recommend.h"
#include "steps.h"

typedef struct ml_perf {
    ml_steps steps;
    ml_gpu_metrics_list gpus;
    ml_optree tree;
    ml_kernel_table kernels;
    ml_op_table ops;
    ml_recs recs;
    ml_modules *modules;    /* never NULL after ml_perf_compute(); NULL when not wanted */
    ml_gputime gputime;
    /* What the analyses adjusted or left out of the input, in words (times
     * cut, kernel args dropped, correlation ids shared, steps dropped):
     * shown with the views (text, --json, the page). */
    VEC(char *) notes;
    ml_kseqs kseqs;
    ml_cupti cupti;         /* n = 0 without cuda_profiler_range events */
    ml_critpath critpath;   /* after ml_perf_want_critical_path() */
    bool has_critpath;
} ml_perf;

/* Why the profile has no time side (a snapshot, a memory timeline, an Ascend
 * run without trace_view.json, a trace with no slices), or NULL if it has one. */
const char *ml_perf_unavailable(const ml_profile *p);

/* What a command shows of one rank's analyses, so that only that is computed;
 * zeroed: everything (the page, perf --json).  The steps, the operator trees
 * and the kernels by name, which the notes and the recommendations read, are
 * always computed; what is left out stays empty (modules: NULL). */
typedef struct ml_perf_wants {
    ml_op_wants ops;        /* the operator tables (operators.h) */
    ml_kernel_wants kernels; /* the kernel tables (kernels.h) */
    bool no_gpus;           /* GPU metrics and recommendations (the overview) */
    bool no_modules;
    bool no_gputime;        /* HTA's GPU-time analyses (gputime.h) */
    bool no_kseqs, no_cupti;
} ml_perf_wants;

/* Computes what w wants (NULL: everything); false (and *out empty) when
 * ml_perf_unavailable(p).  Device time is exact (ns from the trace's text);
 * _rules can ask for HTA's µs grid instead (gputimeline.h), which only the
 * tests against HTA use. */
bool ml_perf_compute(const ml_profile *p, ml_perf *out);
bool ml_perf_compute_rules(const ml_profile *p, ml_time_rules rules, const ml_perf_wants *w, ml_perf *out);
void ml_perf_free(ml_perf *perf);

/* Computes perf->critpath unless done already (every output that shows it calls this). */
void ml_perf_want_critical_path(const ml_profile *p, ml_perf *perf);

#endif
