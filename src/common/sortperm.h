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
#include "scratch.h"

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
 * sorting a[0..n) in place: one pass when it is sorted already; two runs
 * (the usual unsorted input: two lists appended) merge from the end down
 * with only the second set aside; else through a scratch array of n (and
 * name##_into, the two-array form); the scratch comes from the thread's
 * scratch pool when it has one (scratch.h). */
#define ML_RUNSORT_INPLACE_DEFINE(name, T, CTX, LT)                                            \
    ML_RUNSORT_DEFINE(name##_into, T, CTX, LT)                                                 \
    static void name(T *a, size_t n, CTX ctx)                                                  \
    {                                                                                          \
        size_t mid_ = 1, k_;                                                                   \
        while (mid_ < n && !LT(ctx, a[mid_], a[mid_ - 1])) mid_++;                             \
        if (mid_ >= n) return;                                                                 \
        for (k_ = mid_ + 1; k_ < n && !LT(ctx, a[k_], a[k_ - 1]); k_++) {}                     \
        if (k_ >= n) { /* a's first run's value goes up only when after the second's: stable */ \
            size_t x_ = mid_, y_ = n - mid_, o_ = n;                                           \
            size_t cap_;                                                                       \
            T *b_ = ml_scratch_take(y_ * sizeof *b_, &cap_);                                   \
            memcpy(b_, a + mid_, y_ * sizeof *b_);                                             \
            while (y_) a[--o_] = x_ && LT(ctx, b_[y_ - 1], a[x_ - 1]) ? a[--x_] : b_[--y_];    \
            ml_scratch_give(b_, cap_, (n - mid_) * sizeof *b_);                                \
            return;                                                                            \
        }                                                                                      \
        size_t cap_;                                                                           \
        T *b_ = ml_scratch_take(n * sizeof *b_, &cap_);                                        \
        if (name##_into(a, b_, n, ctx) != a) memcpy(a, b_, n * sizeof *a);                     \
        ml_scratch_give(b_, cap_, n * sizeof *b_);                                             \
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

/* (ml_bufpool, the pool of buffers that ml_scatter_cols() moves columns
 * through: scratch.h) */

/* A permutation of a table kept in two parts (part 1: rows appended to
 * part 0 but not copied to it yet): an entry with ML_PART1 set is row
 * (entry & ~ML_PART1) of part 1, else the row of part 0. */
#define ML_PART1 0x80000000u

/* One column for ml_scatter_cols(): its two parts (part[1] NULL when the
 * table is one part), each of cap[k] elements of which len[k] are rows. */
typedef struct ml_colparts {
    void *part[2];
    size_t cap[2], len[2];
    size_t elem_size;
    void *out;              /* set by ml_scatter_cols: out[dest[r]] = row r */
    size_t out_cap;         /* out's capacity in elements */
} ml_colparts;

/* Moves every column's rows to the places dest gives (n rows in all): row r
 * of part k to dest[k][r] (dest[1] unread for a table of one part); the columns
 * are shared between two threads.  Scattering reads each part in order, so
 * a row costs a load of its place, not a test of its part as a gather's
 * would.  Each column's parts are given to the pool as soon as they are
 * moved, and each output is taken from it: a column moved goes into the
 * buffer of one moved before it. */
void ml_scatter_cols(ml_colparts *cols, size_t ncols, const uint32_t *const *dest, size_t n, ml_bufpool *pool);

#endif
