/*
 * gputime.c — builds a rank's GPU timeline and runs HTA's analyses over it
 * (gputime.h).
 */
#include "gputime.h"

#include <stdlib.h>
#include <string.h>

void ml_gputime_compute(const ml_profile *p, ml_time_rules rules, ml_gputime *out)
{
    memset(out, 0, sizeof *out);
    ml_gpu_timeline tl;
    ml_gpu_timeline_build(p, rules, &tl);
    out->rules = rules;
    out->devkind = ml_devkind_of_profile(p);
    out->base_ns = tl.base_ns;
    out->last_step_cut = tl.last_step_cut;
    out->events = tl.n;
    out->any = tl.n > 0;
    ml_temporal_compute(&tl, &out->temporal);
    ml_idle_by_stream_compute(&tl, &out->idle);
    ml_kernel_types_compute(&tl, &out->types);
    ml_launch_stats_compute(&tl, &out->launches);
    ml_queues_compute(&tl, &out->queues);
    ml_membw_compute(p, &tl, &out->membw);
    ml_gpu_timeline_free(&tl);
}

void ml_gputime_free(ml_gputime *g)
{
    VEC_FREE(&g->idle);
    ml_queues_free(&g->queues);
    ml_membw_free(&g->membw);
    memset(g, 0, sizeof *g);
}
