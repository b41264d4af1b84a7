/*
 * perfdata.c — runs the time-side analyses of one rank in order.
 */
#include "perfdata.h"
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

bool ml_perf_compute(const ml_profile *p, ml_perf *out)
{
    memset(out, 0, sizeof *out);
    if (ml_perf_unavailable(p)) return false;
    ml_steps_compute(p, &out->steps);
    ml_phase("ml_steps_compute");
    ml_gpu_metrics_compute(p, &out->steps, &out->gpus);
    ml_phase("ml_gpu_metrics_compute");
    ml_optree_build(p, &out->tree);
    ml_phase("ml_optree_build");
    ml_kernels_compute(p, &out->tree, &out->kernels);
    ml_phase("ml_kernels_compute");
    ml_operators_compute(p, &out->tree, &out->kernels, &out->ops);
    ml_phase("ml_operators_compute");
    ml_recommend(p, &out->steps, &out->gpus, &out->tree, &out->kernels, &out->recs);
    ml_phase("ml_recommend");
    out->modules = ml_modules_compute(p);
    ml_phase("modules");
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
    perf->modules = NULL;
}
