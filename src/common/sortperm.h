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

/* Returns NULL if keys are already non-decreasing; else a malloc'd
 * permutation perm such that keys[perm[i]] is sorted, stably. */
uint32_t *ml_sort_perm_i64(const int64_t *keys, size_t n);

/* Reorders a column in place: col'[i] = col[perm[i]]. */
void ml_permute(void *col, size_t elem_size, const uint32_t *perm, size_t n);

#endif
