/*
 * stats.h — the headline numbers of one device: peaks, counts, never-freed,
 * and the live set at the allocated peak.  Shared by `summary`, the report
 * and the server so that every output states the same figures.
 */
#ifndef ML_STATS_H
#define ML_STATS_H

#include "breakdown.h"
#include "categories.h"
#include "curve.h"
#include "profile.h"

/* An out-of-memory event: what was asked for, and what the device had free
 * (snapshots say; Kineto's [OutOfMemory] does not). */
typedef struct ml_oom {
    int64_t ts;
    int64_t requested;
    int64_t device_free;         /* bytes, -1 if the input does not say */
} ml_oom;

typedef struct ml_device_stats {
    int device;
    ml_peak peak_allocated;      /* .found false if the device has no allocated curve */
    ml_peak peak_reserved;       /* .found false if the input has no reserved memory */
    int64_t reserved_end;        /* reserved at the end (a snapshot's final segments), -1 if unknown */
    bool allocated_replayed;     /* peak from replayed events, not recorded totals */
    int64_t alloc_events, free_events;
    bool matched;                /* allocs could be paired with frees (addresses known) */
    int64_t unmatched_frees, never_freed, never_freed_bytes;
    int64_t oom_events;
    ml_oom *ooms;                /* the oom_events, in time order */
    int64_t first_ts, last_ts;   /* the device's time span (ML_TIME_NONE if no data) */
    bool timeless;               /* no events nor timed allocations (a snapshot without a
                                  * trace): the times of its peaks mean nothing */
    ml_breakdown at_peak;        /* live set at the allocated peak */
    int64_t categories_at_peak[ML_CAT__COUNT]; /* bytes per ml_category at that peak (incl. memory
                                 * from before the trace, as PARAMETER_OR_STATE) */
} ml_device_stats;

void ml_device_stats_compute(const ml_profile *p, int device, ml_group_by by, ml_device_stats *out);
/* The same, its peaks found through the caller's memo (curve.h; NULL: none). */
void ml_device_stats_compute_memo(const ml_profile *p, ml_peak_memo *memo, int device, ml_group_by by,
                                  ml_device_stats *out);
void ml_device_stats_free(ml_device_stats *s);

#endif
