/*
 * search.h — binary search over sorted int64 columns (times, sizes): the
 * first index whose value is >= x (lower bound) or > x (upper bound).  The
 * _i64 forms compare integers exactly (epoch ns exceed a double's 2^53); the
 * _f forms take a double bound, as the server's window queries do.
 */
#ifndef ML_SEARCH_H
#define ML_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#define ML_BOUND(NAME, KEY, CMP)                                   \
    static inline size_t NAME(const int64_t *a, size_t n, KEY x)    \
    {                                                               \
        size_t lo = 0, hi = n;                                      \
        while (lo < hi) {                                           \
            size_t m = lo + (hi - lo) / 2;                          \
            if (CMP) lo = m + 1;                                    \
            else hi = m;                                            \
        }                                                           \
        return lo;                                                  \
    }
ML_BOUND(ml_lower_bound_i64, int64_t, a[m] < x)
ML_BOUND(ml_upper_bound_i64, int64_t, a[m] <= x)
ML_BOUND(ml_lower_bound_f, double, (double)a[m] < x)
ML_BOUND(ml_upper_bound_f, double, (double)a[m] <= x)
#undef ML_BOUND

#endif
