/*
 * launches.c — kernel launch statistics and outliers (launches.h), in one
 * pass over the GPU timeline.
 */
#include "launches.h"

#include <string.h>

const char *ml_launch_outlier_key(int which)
{
    static const char *const keys[ML_OUTLIER__COUNT] = {"short_kernels", "runtime_outliers", "launch_delay_outliers"};
    return which >= 0 && which < ML_OUTLIER__COUNT ? keys[which] : "";
}

/* Keeps the ML_LAUNCH_TOP largest by score; among equals the one seen first. */
static void keep_top(ml_launch_outliers *o, int64_t *scores, const ml_launch *l, int64_t score)
{
    o->count++;
    if (o->n == ML_LAUNCH_TOP && score <= scores[ML_LAUNCH_TOP - 1]) return;
    uint32_t k = o->n < ML_LAUNCH_TOP ? o->n++ : ML_LAUNCH_TOP - 1;
    while (k > 0 && scores[k - 1] < score) {
        o->top[k] = o->top[k - 1];
        scores[k] = scores[k - 1];
        k--;
    }
    o->top[k] = *l;
    scores[k] = score;
}

void ml_launch_stats_compute(const ml_gpu_timeline *tl, ml_launch_stats *out)
{
    memset(out, 0, sizeof *out);
    int64_t scores[ML_OUTLIER__COUNT][ML_LAUNCH_TOP];
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (e->launcher == ML_NONE32 || e->launch_kind != ML_LAUNCH_STATS) continue;
        ml_launch l = {e->slice, e->launcher, e->launch_end - e->launch, e->end - e->start, e->start - e->launch_end};
        if (l.delay < 0) l.delay = 0;
        out->count++;
        out->cpu += l.cpu;
        out->gpu += l.gpu;
        out->delay += l.delay;
        if (l.delay > out->delay_max) out->delay_max = l.delay;
        ml_durhist_add(&out->delay_hist, ml_gpu_grid_ns(tl, e->start), l.delay);
        if (l.cpu <= ML_LAUNCH_RUNTIME_CUTOFF_NS && l.gpu < l.cpu)
            keep_top(&out->outliers[ML_OUTLIER_SHORT], scores[ML_OUTLIER_SHORT], &l, l.cpu - l.gpu);
        if (l.cpu > ML_LAUNCH_RUNTIME_CUTOFF_NS)
            keep_top(&out->outliers[ML_OUTLIER_RUNTIME], scores[ML_OUTLIER_RUNTIME], &l, l.cpu);
        if (l.delay > ML_LAUNCH_DELAY_CUTOFF_NS)
            keep_top(&out->outliers[ML_OUTLIER_DELAY], scores[ML_OUTLIER_DELAY], &l, l.delay);
    }
}
