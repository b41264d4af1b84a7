/*
 * beforetrace.h — the one "(allocated before trace)" of the page and the
 * server's live sets: memory the recorded curve shows but no allocation of
 * the trace accounts for, and the allocations known to predate the trace
 * alive to its end, with nothing known of them but that (categories.c gives them
 * PARAMETER_OR_STATE, ML_REASON_BEFORE_TRACE_KEPT).  The report's category
 * chart, the peak and "Live at a time" by category all show both under
 * ML_BEFORE_TRACE_GROUP, as one hatched band: never PARAMETER_OR_STATE in
 * one place and "(allocated before trace)" in another.
 */
#ifndef ML_BEFORETRACE_H
#define ML_BEFORETRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "categories.h"
#include "profile.h"

static inline bool ml_shown_before_trace(uint8_t flags, uint8_t cat)
{
    return (flags & (ML_ALLOC_BEFORE_TRACE | ML_ALLOC_NEVER_FREED)) == (ML_ALLOC_BEFORE_TRACE | ML_ALLOC_NEVER_FREED) &&
           cat == ML_CAT_PARAMETER_OR_STATE;
}

#endif
