/*
 * sortperm.h — stable ordering of columnar tables by an int64 key.
 *
 * Profiler output is almost sorted by time, so the sort first checks for
 * sortedness (the usual case costs one pass) and otherwise runs a natural
 * merge sort over an index array: stable, O(n log r) for r runs.
 */
#ifndef ML_SORTPERM_H
#define ML_SORTPERM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

/* ML_RUNSORT_DEFINE(name, T, CTX, LT) defines
 *     static T *name(T *a, T *b, size_t n, CTX ctx)
 * a stable natural merge sort of a[0..n) by LT(ctx, x, y) (x before y), with
 * b as scratch of n elements: it finds the runs, merges them pairwise, and
 * returns whichever of a and b holds the sorted elements.  One function per
 * element type, so the comparison inlines. */
#define ML_RUNSORT_DEFINE(name, T, CTX, LT)                                                     \
    static T *name(T *a, T *b, size_t n, CTX ctx)                                              \
    {                                                                                          \
        size_t *runs = ml_malloc((n + 2) * sizeof *runs), nruns = 0; /* n = 0: run 0 + end */ \
        runs[nruns++] = 0;                                                                     \
        for (size_t k_ = 1; k_ < n; k_++)                                                      \
            if (LT(ctx, a[k_], a[k_ - 1])) runs[nruns++] = k_;                                 \
        runs[nruns] = n;                                                                       \
        while (nruns > 1) {                                                                    \
            size_t w_ = 0;                                                                     \
            for (size_t r_ = 0; r_ < nruns; r_ += 2) {                                         \
                /* runs[nruns] == n is a sentinel, so an odd last run merges with nothing. */  \
                size_t lo = runs[r_], mid = runs[r_ + 1], hi = r_ + 2 <= nruns ? runs[r_ + 2] : n; \
                size_t x_ = lo, y_ = mid, o_ = lo;                                             \
                while (x_ < mid && y_ < hi) b[o_++] = LT(ctx, a[y_], a[x_]) ? a[y_++] : a[x_++]; \
                while (x_ < mid) b[o_++] = a[x_++];                                            \
                while (y_ < hi) b[o_++] = a[y_++];                                             \
                runs[w_++] = lo;                                                               \
            }                                                                                  \
            runs[w_] = n;                                                                      \
            nruns = w_;                                                                        \
            T *t_ = a;                                                                         \
            a = b;                                                                             \
            b = t_;                                                                            \
        }                                                                                      \
        free(runs);                                                                            \
        return a;                                                                              \
    }

/* ML_RUNSORT_INPLACE_DEFINE(name, T, CTX, LT) defines the same sort as
 *     static void name(T *a, size_t n, CTX ctx)
 * sorting a[0..n) in place: one pass when it is sorted already, else through
 * a scratch array it allocates (and name##_into, the two-array form). */
#define ML_RUNSORT_INPLACE_DEFINE(name, T, CTX, LT)                                            \
    ML_RUNSORT_DEFINE(name##_into, T, CTX, LT)                                                 \
    static void name(T *a, size_t n, CTX ctx)                                                  \
    {                                                                                          \
        size_t k_ = 1;                                                                         \
        while (k_ < n && !LT(ctx, a[k_], a[k_ - 1])) k_++;                                     \
        if (k_ >= n) return;                                                                   \
        T *b_ = ml_malloc(n * sizeof *b_);                                                     \
        if (name##_into(a, b_, n, ctx) != a) memcpy(a, b_, n * sizeof *a);                     \
        free(b_);                                                                              \
    }

/* Returns NULL if keys are already non-decreasing; else a malloc'd
 * permutation perm such that keys[perm[i]] is sorted, stably. */
uint32_t *ml_sort_perm_i64(const int64_t *keys, size_t n);

/* Reorders a column in place: col'[i] = col[perm[i]]. */
void ml_permute(void *col, size_t elem_size, const uint32_t *perm, size_t n);

/* One column of a table, for ml_permute_cols(). */
typedef struct ml_colref {
    void *v;
    size_t elem_size;
} ml_colref;

/* Reorders every column of a table by one permutation (n rows).  The columns
 * are shared between two threads (see par.h), and each thread gathers
 * through one scratch buffer: a fresh buffer per column costs a page fault
 * per 4 KiB, which on a 725k-slice trace was most of the sort's time. */
void ml_permute_cols(const ml_colref *cols, size_t ncols, const uint32_t *perm, size_t n);

#endif
