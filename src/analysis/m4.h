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

#include "vec.h"

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

/* ---- picking a window's points (one selection for every C caller) ------ */

#define ML_M4_MAX_LEVELS 48

/* A step curve with its pyramid (mn/mx: ml_m4's argmin/argmax) and the
 * level sizes and offsets a selection walks (ml_m4_curve_levels). */
typedef struct ml_m4_curve {
    size_t n;
    int fan;
    const int64_t *t, *v;
    const uint32_t *mn, *mx;
    size_t levels;
    size_t lvl_size[ML_M4_MAX_LEVELS], lvl_off[ML_M4_MAX_LEVELS];
} ml_m4_curve;

/* Fills c's levels from c->n and c->fan; returns the pyramid's node count. */
size_t ml_m4_curve_levels(ml_m4_curve *c);

/* The points picked for a window: out, ascending indices; i0 the step in
 * force at t0, i1 the first point at or after t1; t0 and dt the columns. */
typedef struct ml_m4_pick {
    const ml_m4_curve *c;
    size_t i0, i1;
    double t0, dt;
    size_t span[ML_M4_MAX_LEVELS + 1];
    VEC(uint32_t) out;
} ml_m4_pick;

/* Picks, for a window [t0, t1] of px columns, the coarsest nodes whose span
 * fits in one column, each as its first/min/max/last points (exact M4: no
 * extreme is lost).  Free q->out with VEC_FREE. */
void ml_m4_select(const ml_m4_curve *c, double t0, double t1, int px, ml_m4_pick *q);

/* Keeps of the picked points idx[0..n) (ascending) only what M4 draws: per
 * pixel column the first and last point and, for each of the nv value
 * arrays, the point of its minimum and of its maximum; returns the new n.
 * The picks hold every column's extremes, so nothing drawn is lost, and the
 * answer is at most (2 + 2 nv) points per column (nv <= 16). */
size_t ml_m4_compact(const int64_t *t, const int64_t *const *vs, size_t nv, uint32_t *idx, size_t n, double t0,
                     double dt);

#endif
