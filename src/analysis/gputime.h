/*
 * gputime.h — where a rank's GPU time went, as HolisticTraceAnalysis (HTA)
 * answers it: the temporal breakdown and idle time by cause (gpu_idle.h),
 * time by kernel type with overlaps and the communication/computation
 * overlap (kernel_types.h), kernel launch statistics (launches.h), the
 * launch queue per stream (launch_queue.h) and memory bandwidth (membw.h),
 * all over one GPU timeline (gputimeline.h) built for them and freed after.
 * Times are ns after base_ns, exact by default or on HTA's µs grid under
 * ML_TIME_HTA; ml_gputime_ns() gives the profile's ns.
 */
#ifndef ML_GPUTIME_H
#define ML_GPUTIME_H

#include <stdbool.h>

#include "gpu_idle.h"
#include "kernel_types.h"
#include "launch_queue.h"
#include "launches.h"
#include "membw.h"
#include "devkind.h"
#include "profile.h"

typedef struct ml_gputime {
    bool any;               /* the rank has GPU events (else everything below is empty) */
    bool last_step_cut;     /* work launched from the last ProfilerStep# on was left out (gputimeline.h) */
    ml_time_rules rules;    /* how the times below were taken */
    ml_devkind devkind;     /* the accelerator, for the words of the outputs ("GPU", "NPU", "MTIA") */
    int64_t base_ns;        /* timeline time -> profile ns: base_ns + t */
    size_t events;          /* GPU events counted */
    ml_temporal temporal;
    ml_idle_streams idle;
    ml_kernel_types types;
    ml_launch_stats launches;
    ml_queues queues;
    ml_membws membw;
} ml_gputime;

void ml_gputime_compute(const ml_profile *p, ml_time_rules rules, ml_gputime *out);
void ml_gputime_free(ml_gputime *g);

static inline int64_t ml_gputime_ns(const ml_gputime *g, int64_t t) { return g->base_ns + t; }

#endif
