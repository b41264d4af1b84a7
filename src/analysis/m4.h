/*
 * m4.h — a min/max pyramid over a step curve, so that a curve of millions of
 * points can be drawn at any zoom with every local extreme kept (M4:
 * first, last, min, max per pixel column).
 *
 * The curve is (t[i], v[i]), i < n, t non-decreasing.  Level 0 is the points
 * themselves; a node of level l >= 1 covers points [j*F^l, (j+1)*F^l) (the
 * last node is shorter) and stores the index of its minimum and of its
 * maximum.  First and last come free: they are the node's first and last
 * points.  A viewer picks, for each pixel column, the coarsest nodes whose
 * time span fits in the column and draws their first/min/max/last points in
 * index order; the peak is therefore never lost.  See web/src/m4.js.
 */
#ifndef ML_M4_H
#define ML_M4_H

#include <stddef.h>
#include <stdint.h>

#define ML_M4_FAN 4  /* children per node: 4 keeps the pyramid at n/3 nodes */

typedef struct ml_m4 {
    size_t n;            /* points in the curve */
    size_t levels;       /* levels above 0 (0 when n <= 1) */
    size_t total;        /* nodes over all levels */
    uint32_t *argmin;    /* level 1 nodes, then level 2, ...; index into the points */
    uint32_t *argmax;
} ml_m4;

/* Number of nodes on level l (l >= 1) for n points. */
size_t ml_m4_level_size(size_t n, size_t l);

/* Builds the pyramid of v[0..n) (ties: the earliest index wins).  n < 2^32. */
void ml_m4_build(const int64_t *v, size_t n, ml_m4 *out);
void ml_m4_free(ml_m4 *m);

#endif
