/*
 * u64map.h — an open-addressing hash map from uint64 keys to uint32 values,
 * for grouping rows by a pair of 32-bit ids (name, shape) in one pass where
 * sorting millions of keys would cost more.
 *
 *     ml_u64map m; ml_u64map_init(&m);
 *     bool fresh; uint32_t *v = ml_u64map_put(&m, key, &fresh);
 *     if (fresh) *v = next_row++;
 *     ml_u64map_free(&m);
 */
#ifndef ML_U64MAP_H
#define ML_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ml_u64map {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t cap, len;     /* cap: a power of two, or 0 */
} ml_u64map;

/* A 64-bit finalizer (murmur3 fmix64) for hashing pairs of 32-bit ids. */
static inline uint64_t ml_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

void ml_u64map_init(ml_u64map *m);
/* The value slot of key, inserted (value 0, *fresh = true) if absent. */
uint32_t *ml_u64map_put(ml_u64map *m, uint64_t key, bool *fresh);
/* The value slot of key, or NULL. */
uint32_t *ml_u64map_get(const ml_u64map *m, uint64_t key);
void ml_u64map_free(ml_u64map *m);

#endif
