/*
 * ranges.h — sets of time intervals [begin, end) for the profiler views:
 * merging, intersecting and subtracting sorted, disjoint lists, as the
 * TensorBoard profiler plugin's range_utils does (step breakdown, GPU
 * utilization).  Empty intervals are dropped: they add nothing to any sum.
 */
#ifndef ML_RANGES_H
#define ML_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "vec.h"

typedef struct ml_range {
    int64_t b, e;
} ml_range;

typedef VEC(ml_range) ml_ranges;

/* Sorts r by begin and merges overlapping or touching intervals in place. */
void ml_ranges_merge(ml_ranges *r);
/* out = a ∩ b (both merged); out is cleared first and must differ from a and b. */
void ml_ranges_intersect(const ml_ranges *a, const ml_ranges *b, ml_ranges *out);
/* out = a \ b (both merged); out is cleared first and must differ from a and b. */
void ml_ranges_subtract(const ml_ranges *a, const ml_ranges *b, ml_ranges *out);
/* Total length of r. */
int64_t ml_ranges_sum(const ml_ranges *r);
/* Length of r ∩ [b, e) (r merged). */
int64_t ml_ranges_sum_within(const ml_ranges *r, int64_t b, int64_t e);

static inline void ml_ranges_push(ml_ranges *r, int64_t b, int64_t e)
{
    if (e > b) VEC_PUSH(r, ((ml_range){b, e}));
}

/* The same, folding [b, e) into the last interval when it starts inside it:
 * time-ordered input (one track's slices, nested ones inside their parent)
 * then leaves ml_ranges_merge() little to sort. */
static inline void ml_ranges_add(ml_ranges *r, int64_t b, int64_t e)
{
    if (e <= b) return;
    if (r->len) {
        ml_range *l = &r->v[r->len - 1];
        if (b >= l->b && b <= l->e) {
            if (e > l->e) l->e = e;
            return;
        }
    }
    VEC_PUSH(r, ((ml_range){b, e}));
}

#endif
