/*
 * scratch.c — a thread's pool of large buffers for successive analyses
 * (scratch.h).
 */
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "sortperm.h"

/* (below this a free() stays in the heap, whose next malloc reuses its pages) */
#define SCRATCH_MIN ((size_t)64 << 10)

static __thread ml_bufpool *scratch_pool;

void ml_scratch_open(ml_bufpool *pool) { scratch_pool = pool; }

void ml_scratch_close(void)
{
    if (scratch_pool) ml_pool_clear(scratch_pool);
    scratch_pool = NULL;
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
