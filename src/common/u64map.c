/*
 * u64map.c — linear-probing hash map, grown at 50% load.
 */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

static inline size_t slot(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

void ml_u64map_init(ml_u64map *m) { memset(m, 0, sizeof *m); }

static void grow(ml_u64map *m)
{
    ml_u64map n = {0};
    n.cap = m->cap ? m->cap * 2 : 64;
    n.keys = ml_malloc(n.cap * sizeof *n.keys);
    n.vals = ml_malloc(n.cap * sizeof *n.vals);
    n.used = ml_calloc(n.cap, 1);
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i]) continue;
        size_t j = slot(m->keys[i], n.cap);
        while (n.used[j]) j = (j + 1) & (n.cap - 1);
        n.used[j] = 1, n.keys[j] = m->keys[i], n.vals[j] = m->vals[i];
    }
    n.len = m->len;
    ml_u64map_free(m);
    *m = n;
}

uint32_t *ml_u64map_put(ml_u64map *m, uint64_t key, bool *fresh)
{
    if ((m->len + 1) * 2 > m->cap) grow(m);
    size_t j = slot(key, m->cap);
    while (m->used[j]) {
        if (m->keys[j] == key) {
            *fresh = false;
            return &m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->used[j] = 1, m->keys[j] = key, m->vals[j] = 0;
    m->len++;
    *fresh = true;
    return &m->vals[j];
}

uint32_t *ml_u64map_get(const ml_u64map *m, uint64_t key)
{
    if (!m->cap) return NULL;
    size_t j = slot(key, m->cap);
    while (m->used[j]) {
        if (m->keys[j] == key) return &m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

void ml_u64map_free(ml_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}
