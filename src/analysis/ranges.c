/*
 * ranges.c — interval-set arithmetic for the profiler views.
 */
#include "ranges.h"

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

void ml_ranges_intersect(const ml_ranges *a, const ml_ranges *b, ml_ranges *out)
{
    out->len = 0;
    size_t i = 0, j = 0;
    while (i < a->len && j < b->len) {
        int64_t lo = a->v[i].b > b->v[j].b ? a->v[i].b : b->v[j].b;
        int64_t hi = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
        if (hi > lo) VEC_PUSH(out, ((ml_range){lo, hi}));
        if (a->v[i].e < b->v[j].e) i++;
        else j++;
    }
}

void ml_ranges_subtract(const ml_ranges *a, const ml_ranges *b, ml_ranges *out)
{
    out->len = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->len; i++) {
        int64_t cur = a->v[i].b, end = a->v[i].e;
        while (j < b->len && b->v[j].e <= cur) j++;
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
