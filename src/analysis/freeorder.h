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
/* First pass: each free, by its event. */
void ml_free_order_add(ml_free_order *o, uint32_t event);
/* Between the passes. */
void ml_free_order_finish(ml_free_order *o);
/* Second pass: the same frees in the same order; each one's place. */
static inline size_t ml_free_order_place(ml_free_order *o, uint32_t event)
{
    if (o->at) return o->at[event < o->n_ev ? event : o->n_ev]++;
    if (event >= o->n_ev) return o->n_with + o->placed_without++;
    uint64_t w = o->bits[event >> 6];
    return o->rank[event >> 6] + (size_t)__builtin_popcountll(w & ((UINT64_C(1) << (event & 63)) - 1));
}
void ml_free_order_free(ml_free_order *o);

#endif
