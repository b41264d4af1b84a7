/*
 * vec.h — growable arrays (columns) without a malloc per element.
 *
 *     VEC(int64_t) ts = {0};
 *     VEC_PUSH(&ts, 42);
 *     for (size_t i = 0; i < ts.len; i++) use(ts.v[i]);
 *     VEC_FREE(&ts);
 *
 * Capacity doubles, so pushing n elements costs O(n) amortised.
 */
#ifndef ML_VEC_H
#define ML_VEC_H

#include <stddef.h>
#include "err.h"

#define VEC(T) struct { T *v; size_t len, cap; }

#define VEC_RESERVE(a, n)                                                  \
    do {                                                                   \
        size_t need_ = (n);                                                \
        if (need_ > (a)->cap) {                                            \
            size_t cap_ = (a)->cap ? (a)->cap * 2 : 16;                    \
            while (cap_ < need_) cap_ *= 2;                                \
            (a)->v = ml_realloc((a)->v, cap_ * sizeof *(a)->v);            \
            (a)->cap = cap_;                                               \
        }                                                                  \
    } while (0)

#define VEC_PUSH(a, x)                                                     \
    do {                                                                   \
        if ((a)->len == (a)->cap) VEC_RESERVE(a, (a)->len + 1);            \
        (a)->v[(a)->len++] = (x);                                          \
    } while (0)

/* Gives unused capacity back (after a table shrank). */
#define VEC_SHRINK(a)                                                      \
    do {                                                                   \
        if ((a)->len && (a)->len < (a)->cap) {                             \
            (a)->v = ml_realloc((a)->v, (a)->len * sizeof *(a)->v);        \
            (a)->cap = (a)->len;                                           \
        }                                                                  \
    } while (0)

#define VEC_FREE(a)                                                        \
    do {                                                                   \
        free((a)->v);                                                      \
        (a)->v = NULL;                                                     \
        (a)->len = (a)->cap = 0;                                           \
    } while (0)

#endif
