/*
 * perfdata.c — runs the time-side analyses of one rank in order.
 */
#include "perfdata.h"
#include "par.h"
#include "phase.h"

#include <stdlib.h>
#include <string.h>

const char *ml_perf_unavailable(const ml_profile *p)
{
    if (!p->trace) {
        const char *f = p->format ? p->format : "";
        if (!strncmp(f, "ascend", 6)) return "this Ascend run has no trace_view.json: no operators or kernels with times";
        if (!strcmp(f, "kineto")) return "the trace was loaded without its time side";
        return "this input records memory only (no operators or kernels with times)";
    }
    if (!p->trace->slices.ts.len) return "the trace has no events with a duration";
    return NULL;
}

typedef struct perf_job {
    const ml_profile *p;
    ml_perf *out;
} perf_job;

/* Two chains that share nothing but the (read-only) profile: the step-time
 * side, and the operator side, which reads the kernels it builds. */
static void step_side(void *arg)
{
    perf_job *j = arg;
    ml_steps_compute(j->p, &j->out->steps);
    ml_gpu_metrics_compute(j->p, &j->out->steps, &j->out->gpus);
    j->out->modules = ml_modules_compute(j->p);
    ml_gputime_compute(j->p, &j->out->gputime);
}

static void operator_side(void *arg)
{
    perf_job *j = arg;
    ml_optree_build(j->p, &j->out->tree);
    ml_kernels_compute(j->p, &j->out->tree, &j->out->kernels);
    ml_operators_compute(j->p, &j->out->tree, &j->out->kernels, &j->out->ops);
}

bool ml_perf_compute(const ml_profile *p, ml_perf *out)
{
    memset(out, 0, sizeof *out);
    if (ml_perf_unavailable(p)) return false;
    perf_job job = {p, out};
    ml_par2(operator_side, &job, step_side, &job);
    ml_phase("perf analyses");
    ml_recommend(p, &out->steps, &out->gpus, &out->tree, &out->kernels, &out->recs);
    return true;
}

void ml_perf_free(ml_perf *perf)
{
    ml_steps_free(&perf->steps);
    VEC_FREE(&perf->gpus);
    ml_optree_free(&perf->tree);
    ml_kernels_free(&perf->kernels);
    ml_operators_free(&perf->ops);
    VEC_FREE(&perf->recs);
    if (perf->modules) ml_modules_free(perf->modules);
    ml_gputime_free(&perf->gputime);
    perf->modules = NULL;
}
