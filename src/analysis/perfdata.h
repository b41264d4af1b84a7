/*
 * perfdata.h — every time-side analysis of one rank, computed together for
 * `memlens perf`, the report and the server: steps and their breakdown
 * (steps.h), GPU metrics (gpumetrics.h), operator trees (optree.h), the
 * operator and kernel tables (operators.h, kernels.h), recommendations
 * (recommend.h), the nn.Module tree (modules.h) and HTA's GPU-time analyses
 * (gputime.h: idle time, kernel types, launches, queues, bandwidth).  The distributed view
 * (distributed.h) spans ranks, so callers compute it once for all of them.
 * output/perf.h writes it as text or as the perf object of web/DATA.md.
 */
#ifndef ML_PERFDATA_H
#define ML_PERFDATA_H

#include <stdbool.h>

#include "gpumetrics.h"
#include "gputime.h"
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
    ml_modules *modules;    /* never NULL after ml_perf_compute() */
    ml_gputime gputime;
    /* What the analyses adjusted or left out of the input, in words (times
     * cut, kernel args dropped, correlation ids shared, steps dropped):
     * shown with the views (text, --json, the page). */
    VEC(char *) notes;
} ml_perf;

/* Why the profile has no time side (a snapshot, a memory timeline, an Ascend
 * run without trace_view.json, a trace with no slices), or NULL if it has one. */
const char *ml_perf_unavailable(const ml_profile *p);

/* Computes everything; false (and *out empty) when ml_perf_unavailable(p). */
bool ml_perf_compute(const ml_profile *p, ml_perf *out);
void ml_perf_free(ml_perf *perf);

#endif
