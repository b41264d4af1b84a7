/*
 * freeorder.h — where each of a set of allocations' frees goes when they
 * are listed in event order (the frees without an event last, in the order
 * they are added): what the category changes (categories.c) and the view's
 * live-bytes curves (memview.c) list before their merge sorts, so that
 * those find a run or two, not one per allocation.
 *
 * A free event frees one allocation, so a bit per event and a count per 64
 * of them place every free (some 40 KB for 300 k events), not a count per
 * event (1.2 MB, in pages written fresh each time); should two frees share
 * an event, it falls back to counts per event.
 */
#ifndef ML_ANALYSIS_FREEORDER_H
#define ML_ANALYSIS_FREEORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ml_free_order {
    size_t n_ev;
    uint64_t *bits;             /* bit e: a free has event e */
    uint32_t *rank;             /* frees with events before word w's */
    uint32_t *at;               /* (the fallback) frees per event, then their places; NULL if none */
    size_t n_with, n_without;   /* frees with an event (< n_ev) and without */
    size_t placed_without;
} ml_free_order;

/* For events 0..n_ev (an event at or beyond n_ev is none). */
void ml_free_order_init(ml_free_order *o, size_t n_ev);
/* (an event freed twice: freeorder.c) */
void ml_free_order_add_slow(ml_free_order *o, uint32_t event);
/* First pass: each free, by its event. */
static inline void ml_free_order_add(ml_free_order *o, uint32_t event)
{
    uint64_t bit = UINT64_C(1) << (event & 63);
    if (o->at || event >= o->n_ev || (o->bits[event >> 6] & bit)) {
        ml_free_order_add_slow(o, event);
        return;
    }
    o->bits[event >> 6] |= bit;
    o->n_with++;
}
/* Between the passes. */
void ml_free_order_finish(ml_free_order *o);
/* Bits set in w (inline: without -mpopcnt __builtin_popcountll is a call). */
static inline unsigned ml_free_order_bits(uint64_t w)
{
    w -= (w >> 1) & UINT64_C(0x5555555555555555);
    w = (w & UINT64_C(0x3333333333333333)) + ((w >> 2) & UINT64_C(0x3333333333333333));
    w = (w + (w >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((w * UINT64_C(0x0101010101010101)) >> 56);
}
/* Second pass: the same frees in the same order; each one's place. */
static inline size_t ml_free_order_place(ml_free_order *o, uint32_t event)
{
    if (o->at) return o->at[event < o->n_ev ? event : o->n_ev]++;
    if (event >= o->n_ev) return o->n_with + o->placed_without++;
    uint64_t w = o->bits[event >> 6];
    return o->rank[event >> 6] + ml_free_order_bits(w & ((UINT64_C(1) << (event & 63)) - 1));
}
void ml_free_order_free(ml_free_order *o);

#endif
