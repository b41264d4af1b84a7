/*
 * freeorder.c — places allocations' frees in event order (freeorder.h).
 */
#include "freeorder.h"

#include <string.h>

#include "scratch.h"

/* (its arrays from the thread's scratch pool where one is open: scratch.h) */

void ml_free_order_init(ml_free_order *o, size_t n_ev)
{
    memset(o, 0, sizeof *o);
    o->n_ev = n_ev;
    size_t words = n_ev / 64 + 1;
    o->bits = ml_scratch_alloc_zero(words * sizeof *o->bits);
    o->rank = ml_scratch_alloc_zero(words * sizeof *o->rank);
}

/* Two frees of one event: counts per event from here on (those so far are the bits). */
static void to_counts(ml_free_order *o)
{
    o->at = ml_scratch_alloc_zero((o->n_ev + 2) * sizeof *o->at);
    for (size_t e = 0; e < o->n_ev; e++) o->at[e + 1] = (uint32_t)(o->bits[e >> 6] >> (e & 63) & 1);
    o->at[o->n_ev + 1] = (uint32_t)o->n_without;
}

void ml_free_order_add_slow(ml_free_order *o, uint32_t event)
{
    if (o->at) {
        o->at[(event < o->n_ev ? event : o->n_ev) + 1]++;
        return;
    }
    if (event >= o->n_ev) {
        o->n_without++;
        return;
    }
    uint64_t bit = UINT64_C(1) << (event & 63);
    if (o->bits[event >> 6] & bit) {
        to_counts(o);
        o->at[event + 1]++;
        return;
    }
    o->bits[event >> 6] |= bit;
    o->n_with++;
}

void ml_free_order_finish(ml_free_order *o)
{
    if (o->at) {
        for (size_t e = 0; e <= o->n_ev; e++) o->at[e + 1] += o->at[e];
        return;
    }
    size_t words = o->n_ev / 64 + 1;
    uint32_t r = 0;
    for (size_t w = 0; w < words; w++) {
        o->rank[w] = r;
        r += ml_free_order_bits(o->bits[w]);
    }
}

void ml_free_order_free(ml_free_order *o)
{
    size_t words = o->n_ev / 64 + 1;
    ml_scratch_give(o->bits, words * sizeof *o->bits, words * sizeof *o->bits);
    ml_scratch_give(o->rank, words * sizeof *o->rank, words * sizeof *o->rank);
    if (o->at) ml_scratch_give(o->at, (o->n_ev + 2) * sizeof *o->at, (o->n_ev + 2) * sizeof *o->at);
    memset(o, 0, sizeof *o);
}
