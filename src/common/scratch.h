/*
 * scratch.h — one thread's pool of large buffers, reused by the analyses it
 * runs in turn (perfdata.c opens one per chain of analyses).
 *
 * A free() of a block of 256 KiB or more goes back to the kernel (dispatch.c
 * sets M_MMAP_THRESHOLD), so the next analysis's fresh array costs a page
 * fault per 4 KiB again; a buffer given to the scratch pool is kept, its
 * pages in, for the next take that fits.  A buffer taken may also be kept
 * as a result: it is plain heap memory, freed with free().  With no pool
 * open on the thread, take is ml_malloc() and give is free().
 */
#ifndef ML_SCRATCH_H
#define ML_SCRATCH_H

#include <stddef.h>

/* A pool of buffers kept for the next use that fits rather than freed (the
 * columns ml_scatter_cols() moves, sortperm.h; the scratch pool below): a
 * fresh buffer costs a page fault per 4 KiB it is written, one already
 * written none.  Sizes in bytes; `used` is how much of a buffer was written
 * (its pages are in). */
#define ML_POOL_MAX 32
typedef struct ml_bufpool {
    struct { void *v; size_t cap, used; } b[ML_POOL_MAX];
    size_t n;
    struct ml_bufpool *outer; /* the thread's scratch pool before this one opened (ml_scratch_open) */
} ml_bufpool;

/* A buffer of at least `bytes` (its size in *cap): of the pooled ones that
 * fit, the one with the most of those bytes written already (then the
 * smallest), else a fresh one. */
void *ml_pool_take(ml_bufpool *pool, size_t bytes, size_t *cap);
/* The same, zeroed. */
void *ml_pool_take_zero(ml_bufpool *pool, size_t bytes, size_t *cap);
/* Keeps buf (cap bytes, the first `used` written) for a later take; a full
 * pool frees the smallest.  NULL is ignored. */
void ml_pool_give(ml_bufpool *pool, void *buf, size_t cap, size_t used);
/* Frees what the pool holds. */
void ml_pool_clear(ml_bufpool *pool);

/* Makes pool this thread's scratch pool until ml_scratch_close(), which
 * frees what it holds and gives the thread back the pool open before
 * (pools nest: an analysis run inline, as ml_par_start() and ml_par2() do
 * on one thread, inside a caller that has a pool open, opens and closes
 * its own without losing the caller's). */
void ml_scratch_open(ml_bufpool *pool);
void ml_scratch_close(void);

/* A buffer of at least `bytes` (its size in *cap). */
void *ml_scratch_take(size_t bytes, size_t *cap);
/* The same, zeroed. */
void *ml_scratch_take_zero(size_t bytes, size_t *cap);
/* Hands buf (cap bytes, the first `used` written) back; NULL is ignored. */
void ml_scratch_give(void *buf, size_t cap, size_t used);

/* The same for a caller that keeps no capacity: a block of at least
 * `bytes` (0: 1), handed back with the size it was asked for (at most the
 * block's, all of it taken as written). */
void *ml_scratch_alloc(size_t bytes);
void *ml_scratch_alloc_zero(size_t bytes);
void ml_scratch_free(void *buf, size_t bytes);

/* A VEC's storage from the pool, room for n elements (it must be empty and
 * own nothing), and back to it (then empty again). */
#define ML_SCRATCH_RESERVE(vec, n)                                           \
    do {                                                                     \
        size_t cap_bytes_;                                                   \
        (vec)->v = ml_scratch_take((n) * sizeof *(vec)->v, &cap_bytes_);     \
        (vec)->cap = cap_bytes_ / sizeof *(vec)->v;                          \
        (vec)->len = 0;                                                      \
    } while (0)
#define ML_SCRATCH_GIVE_VEC(vec)                                                                   \
    do {                                                                                           \
        ml_scratch_give((vec)->v, (vec)->cap * sizeof *(vec)->v, (vec)->len * sizeof *(vec)->v); \
        (vec)->v = NULL;                                                                           \
        (vec)->len = (vec)->cap = 0;                                                               \
    } while (0)

#endif
