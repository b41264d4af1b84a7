/*
 * ranges.c — interval-set arithmetic for the profiler views.
 */
#include "ranges.h"

#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "sortperm.h"

/* Ranges come as a few runs in begin order (one per track, each track's
 * slices sorted): a natural merge sort takes a pass per doubling of the runs. */
#define RANGE_LT(ctx, x, y) ((x).b < (y).b || ((x).b == (y).b && (x).e < (y).e))
ML_RUNSORT_INPLACE_DEFINE(sort_ranges, ml_range, void *, RANGE_LT)

void ml_ranges_merge(ml_ranges *r)
{
    if (!r->len) return;
    sort_ranges(r->v, r->len, NULL); /* usually in order already (one track's events): one pass then */
    size_t n = 0;
    for (size_t i = 0; i < r->len; i++) {
        ml_range x = r->v[i];
        if (x.e <= x.b) continue;
        if (n && x.b <= r->v[n - 1].e) {
            if (x.e > r->v[n - 1].e) r->v[n - 1].e = x.e;
        } else r->v[n++] = x;
    }
    r->len = n;
}

/* The first interval of r at or after `from` that ends after t (r merged:
 * ends ascend).  A gallop: a step or two when nothing is skipped, a binary
 * search over a long stretch (a few ranges against thousands: the step
 * breakdown's memcpy and memset against what is left of the steps). */
static size_t first_ending_after(const ml_ranges *r, size_t from, int64_t t)
{
    size_t n = r->len;
    if (from >= n || r->v[from].e > t) return from;
    size_t lo = from + 1, step = 1; /* r->v[lo - 1].e <= t */
    while (lo + step - 1 < n && r->v[lo + step - 1].e <= t) lo += step, step *= 2;
    size_t hi = lo + step - 1 < n ? lo + step - 1 : n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].e <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Room for n intervals in an output about to be written from scratch: its
 * old contents are not copied (a realloc would copy them into fresh pages);
 * the room is the scratch pool's when there is one (scratch.h: pages that
 * an analysis before wrote), and the old room goes to it. */
static void reserve_fresh(ml_ranges *out, size_t n)
{
    if (n <= out->cap) {
        out->len = 0;
        return;
    }
    ML_SCRATCH_GIVE_VEC(out);
    ML_SCRATCH_RESERVE(out, n);
}

static void append(ml_ranges *out, const ml_range *v, size_t n)
{
    if (!n) return;
    VEC_RESERVE(out, out->len + n);
    memcpy(out->v + out->len, v, n * sizeof *v);
    out->len += n;
}

void ml_ranges_intersect(const ml_ranges *a, const ml_ranges *b, ml_ranges *out)
{
    /* (at most one interval per step of either side: room for all at once,
     * not a copy each time the output doubles) */
    reserve_fresh(out, a->len + b->len);
    size_t i = 0, j = 0;
    while (i < a->len && j < b->len) {
        /* intervals wholly before the other side's: nothing in common */
        if (a->v[i].e <= b->v[j].b) {
            i = first_ending_after(a, i, b->v[j].b);
            continue;
        }
        if (b->v[j].e <= a->v[i].b) {
            j = first_ending_after(b, j, a->v[i].b);
            continue;
        }
        int64_t lo = a->v[i].b > b->v[j].b ? a->v[i].b : b->v[j].b;
        int64_t hi = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
        if (hi > lo) VEC_PUSH(out, ((ml_range){lo, hi}));
        if (a->v[i].e < b->v[j].e) i++;
        else j++;
    }
}

void ml_ranges_subtract(const ml_ranges *a, const ml_ranges *b, ml_ranges *out)
{
    reserve_fresh(out, a->len + b->len); /* (each of b's intervals splits at most one of a's in two) */
    size_t j = 0;
    for (size_t i = 0; i < a->len; i++) {
        int64_t cur = a->v[i].b, end = a->v[i].e;
        j = first_ending_after(b, j, cur); /* (b's intervals between a's: skipped by a gallop) */
        if (j == b->len || b->v[j].b >= end) { /* untouched, with those after it up to b's next */
            size_t k = j == b->len ? a->len : first_ending_after(a, i, b->v[j].b);
            append(out, a->v + i, k - i);
            i = k - 1;
            continue;
        }
        size_t k = j;
        while (k < b->len && b->v[k].b < end) {
            if (b->v[k].b > cur) VEC_PUSH(out, ((ml_range){cur, b->v[k].b}));
            if (b->v[k].e > cur) cur = b->v[k].e;
            if (cur >= end) break;
            k++;
        }
        if (cur < end) VEC_PUSH(out, ((ml_range){cur, end}));
    }
}

int64_t ml_ranges_sum(const ml_ranges *r)
{
    int64_t s = 0;
    for (size_t i = 0; i < r->len; i++) s += r->v[i].e - r->v[i].b;
    return s;
}

int64_t ml_ranges_sum_within(const ml_ranges *r, int64_t b, int64_t e)
{
    /* binary search for the first interval ending after b */
    size_t lo = 0, hi = r->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->v[mid].e <= b) lo = mid + 1;
        else hi = mid;
    }
    int64_t s = 0;
    for (size_t i = lo; i < r->len && r->v[i].b < e; i++) {
        int64_t x = r->v[i].b > b ? r->v[i].b : b, y = r->v[i].e < e ? r->v[i].e : e;
        if (y > x) s += y - x;
    }
    return s;
}
