/*
 * breakdown.h — what was live at an instant, grouped (the "live set at the peak").
 *
 * Groups the allocations of one device live at an instant by a key: the
 * top-level operator, the innermost operator, the whole stack, the first user
 * frame of the stack, a size class, or the memory category (categories.h).
 * Memory that the curve shows but no allocation in the trace accounts for
 * (allocated before the trace began) is its own group, ML_BEFORE_TRACE_GROUP,
 * never dropped — except by category: there allocations from before the trace
 * are grouped by their category and what no allocation accounts for is
 * PARAMETER_OR_STATE, as ml_categories_at counts them (before_grouped).
 */
#ifndef ML_BREAKDOWN_H
#define ML_BREAKDOWN_H

#include "curve.h"
#include "profile.h"

#define ML_BEFORE_TRACE_GROUP "(allocated before trace)"

typedef enum { ML_BY_TOPLEVEL, ML_BY_INNERMOST, ML_BY_STACK, ML_BY_FRAME, ML_BY_SIZE, ML_BY_CATEGORY } ml_group_by;

/* Parses "toplevel", "innermost", "stack", "frame", "size", "category"; -1 if unknown. */
int ml_group_by_parse(const char *s);
const char *ml_group_by_name(ml_group_by by);
/* The grouping a profile gets by default: by top-level operator when its
 * allocations have operators, else by the first user frame when they have
 * stacks (snapshots), else by top-level operator ("(no operator)"). */
ml_group_by ml_group_by_default(const ml_profile *p);

typedef struct ml_group {
    char *label;
    int64_t bytes;
    int64_t count;
} ml_group;

typedef struct ml_breakdown {
    ml_group *groups;           /* sorted by bytes, descending; excludes the before-trace group */
    size_t n;
    int64_t traced_bytes;       /* live bytes allocated inside the trace */
    int64_t traced_count;
    int64_t before_bytes;       /* the before-trace group */
    int64_t before_count;       /* allocations known to predate the trace (may be 0 when only the total shows them) */
    bool before_grouped;        /* the groups include the before-trace memory (by category): don't show it again */
} ml_breakdown;

/* total: the curve's value at the instant (e.g. Total Allocated at the peak),
 * or -1 when unknown; the before-trace group is then only what the trace
 * shows (frees without allocs, blocks never seen allocated). */
void ml_breakdown_at(const ml_profile *p, int device, ml_instant at, int64_t total, ml_group_by by,
                     ml_breakdown *out);
/* Adds bytes and count to the group of that label (a new one if none), keeping the order. */
void ml_breakdown_add(ml_breakdown *b, const char *label, int64_t bytes, int64_t count);
void ml_breakdown_free(ml_breakdown *b);

/* The label a stack gets under --by stack / frame ("(no stack recorded)" if none). */
void ml_stack_label(const ml_profile *p, uint32_t stack, ml_group_by by, char *buf, size_t cap);

#endif
