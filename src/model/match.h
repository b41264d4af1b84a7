/*
 * match.h — allocation lifetimes from allocator events.
 *
 * Walks the (time-sorted) events of a profile and pairs each ALLOC with the
 * next FREE of the same (device, address), filling the profile's `allocs`
 * table.  A FREE with no open ALLOC means the memory was allocated before the
 * trace began: it becomes an alloc flagged ML_ALLOC_BEFORE_TRACE.  Allocations
 * still open at the end are flagged ML_ALLOC_NEVER_FREED.  FREE_REQUESTED
 * (snapshots) sets t_free_req and leaves the block allocated.
 */
#ifndef ML_MATCH_H
#define ML_MATCH_H

#include "profile.h"

typedef struct ml_match_stats {
    size_t allocs, frees, unmatched_frees, never_freed, reused_live_addr;
} ml_match_stats;

/* Rebuilds p->allocs from p->events.  With a lean import (keep.h; NULL:
 * keep all), the pages of the event columns ml_profile_finish() then drops
 * are given back as the walk passes them. */
void ml_match(ml_profile *p, const ml_keep *keep);
/* The note ml_match() writes when `reused` allocations closed a live address. */
void ml_match_note_reused(ml_profile *p, size_t reused);

/* The same walk one event at a time, for an importer that matches as it
 * reads (evpipe.h): the events must come in the order ml_profile_finish()
 * sorts them to, each with its index in p->events.  ml_matcher_end() flags
 * what is still open and returns the count for ml_match_note_reused();
 * ml_matcher_drop() gives up (p->allocs is then the caller's to clear). */
typedef struct ml_matcher ml_matcher;
ml_matcher *ml_matcher_new(void);
void ml_matcher_add(ml_matcher *m, ml_profile *p, const ml_event *ev, uint32_t index);
size_t ml_matcher_end(ml_matcher *m, ml_profile *p);
void ml_matcher_drop(ml_matcher *m);
/* Counts for one device (or all when device < 0), from the allocs table. */
ml_match_stats ml_match_stats_for(const ml_profile *p, int device);

#endif
