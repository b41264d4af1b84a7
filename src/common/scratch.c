/*
 * scratch.c — a thread's pool of large buffers for successive analyses
 * (scratch.h).
 */
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

/* (below this a free() stays in the heap, whose next malloc reuses its pages) */
#define SCRATCH_MIN ((size_t)64 << 10)

/* ---- pools ---- */

void *ml_pool_take(ml_bufpool *pool, size_t bytes, size_t *cap)
{
    size_t best = pool->n;
    for (size_t k = 0; k < pool->n; k++) {
        if (pool->b[k].cap < bytes) continue;
        if (best == pool->n) { best = k; continue; }
        size_t in_k = pool->b[k].used < bytes ? pool->b[k].used : bytes;
        size_t in_best = pool->b[best].used < bytes ? pool->b[best].used : bytes;
        if (in_k > in_best || (in_k == in_best && pool->b[k].cap < pool->b[best].cap)) best = k;
    }
    if (best == pool->n) {
        *cap = bytes;
        return ml_malloc(bytes ? bytes : 1);
    }
    void *v = pool->b[best].v;
    *cap = pool->b[best].cap;
    pool->b[best] = pool->b[--pool->n];
    return v;
}

void *ml_pool_take_zero(ml_bufpool *pool, size_t bytes, size_t *cap)
{
    size_t k = 0;
    while (k < pool->n && pool->b[k].cap < bytes) k++;
    if (k == pool->n) { /* nothing fits: calloc's fresh pages are zero already */
        *cap = bytes;
        return ml_calloc(bytes ? bytes : 1, 1);
    }
    void *v = ml_pool_take(pool, bytes, cap);
    memset(v, 0, bytes);
    return v;
}

void ml_pool_give(ml_bufpool *pool, void *buf, size_t cap, size_t used)
{
    if (!buf) return;
    if (pool->n == ML_POOL_MAX) {
        size_t small = 0;
        for (size_t k = 1; k < pool->n; k++)
            if (pool->b[k].cap < pool->b[small].cap) small = k;
        if (pool->b[small].cap >= cap) {
            free(buf);
            return;
        }
        free(pool->b[small].v);
        pool->b[small] = pool->b[--pool->n];
    }
    pool->b[pool->n].v = buf;
    pool->b[pool->n].cap = cap;
    pool->b[pool->n].used = used < cap ? used : cap;
    pool->n++;
}

void ml_pool_clear(ml_bufpool *pool)
{
    for (size_t k = 0; k < pool->n; k++) free(pool->b[k].v);
    pool->n = 0;
}

/* ---- the thread's scratch pool ---- */

static __thread ml_bufpool *scratch_pool;

void ml_scratch_open(ml_bufpool *pool)
{
    pool->outer = scratch_pool;
    scratch_pool = pool;
}

void ml_scratch_close(void)
{
    ml_bufpool *pool = scratch_pool;
    if (!pool) return;
    ml_pool_clear(pool);
    scratch_pool = pool->outer;
    pool->outer = NULL;
}

/* When no pooled buffer is big enough: the biggest, grown to `bytes` (a
 * block that large is mapped on its own, and realloc moves its pages, in,
 * rather than copying them), so that only the growth is fresh pages; NULL
 * when the pool is empty. */
static void *grow_biggest(ml_bufpool *pool, size_t bytes, size_t *cap)
{
    if (!pool->n) return NULL;
    size_t big = 0;
    for (size_t k = 1; k < pool->n; k++)
        if (pool->b[k].cap > pool->b[big].cap) big = k;
    if (pool->b[big].cap >= bytes) return NULL; /* (one fits: ml_pool_take's choice) */
    void *v = ml_realloc(pool->b[big].v, bytes);
    pool->b[big] = pool->b[--pool->n];
    *cap = bytes;
    return v;
}

void *ml_scratch_take(size_t bytes, size_t *cap)
{
    if (!scratch_pool || bytes < SCRATCH_MIN) {
        *cap = bytes;
        return ml_malloc(bytes ? bytes : 1);
    }
    void *v = grow_biggest(scratch_pool, bytes, cap);
    return v ? v : ml_pool_take(scratch_pool, bytes, cap);
}

void *ml_scratch_take_zero(size_t bytes, size_t *cap)
{
    if (!scratch_pool || bytes < SCRATCH_MIN) {
        *cap = bytes;
        return ml_calloc(bytes ? bytes : 1, 1);
    }
    if (!scratch_pool->n) { /* (calloc's fresh pages are zero already, and only those written come in) */
        *cap = bytes;
        return ml_calloc(bytes, 1);
    }
    return memset(ml_scratch_take(bytes, cap), 0, bytes);
}

void ml_scratch_give(void *buf, size_t cap, size_t used)
{
    if (scratch_pool && buf && cap >= SCRATCH_MIN) ml_pool_give(scratch_pool, buf, cap, used);
    else free(buf);
}

void *ml_scratch_alloc(size_t bytes)
{
    size_t cap;
    return ml_scratch_take(bytes ? bytes : 1, &cap);
}

void *ml_scratch_alloc_zero(size_t bytes)
{
    size_t cap;
    return ml_scratch_take_zero(bytes ? bytes : 1, &cap);
}

void ml_scratch_free(void *buf, size_t bytes) { ml_scratch_give(buf, bytes, bytes); }
