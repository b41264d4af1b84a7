/* match.c — pairing allocs with frees by (device, address); see match.h. */
#include "match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* An open-addressing map (device, addr) -> open alloc index, with
 * backward-shift deletion so long runs of alloc/free never degrade it.  A
 * slot's key and value share 16 bytes: a probe reads one cache line, not
 * one per field (a gigabyte snapshot probes 6M times). */
typedef struct open_slot {
    uint64_t addr;
    uint32_t val;     /* alloc index + 1; 0 = empty slot */
    uint16_t dev;
} open_slot;

typedef struct open_map {
    open_slot *slot;
    size_t mask, count;
} open_map;

static size_t slot_of(uint64_t addr, uint16_t dev, size_t mask)
{
    uint64_t x = addr ^ ((uint64_t)dev << 52);
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return (size_t)x & mask;
}

static void map_init(open_map *m, size_t cap)
{
    m->mask = cap - 1;
    m->count = 0;
    m->slot = ml_calloc(cap, sizeof *m->slot);
}

static void map_free(open_map *m) { free(m->slot); }

static size_t map_find(const open_map *m, uint64_t addr, uint16_t dev)
{
    size_t j = slot_of(addr, dev, m->mask);
    while (m->slot[j].val && !(m->slot[j].addr == addr && m->slot[j].dev == dev)) j = (j + 1) & m->mask;
    return j;
}

static void map_put(open_map *m, uint64_t addr, uint16_t dev, uint32_t val);

static void map_grow(open_map *m)
{
    open_map old = *m;
    map_init(m, (old.mask + 1) * 2);
    for (size_t i = 0; i <= old.mask; i++)
        if (old.slot[i].val) map_put(m, old.slot[i].addr, old.slot[i].dev, old.slot[i].val);
    map_free(&old);
}

static void map_put(open_map *m, uint64_t addr, uint16_t dev, uint32_t val)
{
    size_t j = map_find(m, addr, dev);
    if (!m->slot[j].val) m->count++;
    m->slot[j] = (open_slot){.addr = addr, .val = val, .dev = dev};
    if (m->count * 4 > (m->mask + 1) * 3) map_grow(m);
}

static void map_del(open_map *m, size_t j)
{
    m->slot[j].val = 0;
    m->count--;
    /* Backward shift: pull later members of the probe run into the hole. */
    for (size_t k = (j + 1) & m->mask; m->slot[k].val; k = (k + 1) & m->mask) {
        size_t home = slot_of(m->slot[k].addr, m->slot[k].dev, m->mask);
        /* Move k to j if home is not in (j, k] cyclically. */
        if ((k > j && (home <= j || home > k)) || (k < j && home <= j && home > k)) {
            m->slot[j] = m->slot[k];
            m->slot[k].val = 0;
            j = k;
        }
    }
}

/* The walk's state: the open allocations by (device, address). */
struct ml_matcher {
    open_map m;
    size_t reused;
};

static void matcher_init(ml_matcher *mt)
{
    map_init(&mt->m, 1024);
    mt->reused = 0;
}

/* One ALLOC, FREE or FREE_REQUESTED event, number i, in time order. */
static inline void match_step(ml_matcher *mt, ml_profile *p, uint8_t kind, int64_t ts, int64_t size, uint64_t addr,
                              uint16_t dev, uint32_t thread, uint32_t stack, uint32_t stream, uint32_t i)
{
    open_map *m = &mt->m;
    size_t j = map_find(m, addr, dev);
    if (kind == ML_EV_ALLOC) {
        if (m->slot[j].val) { /* a second alloc at a live address: the free went unrecorded */
            size_t prev = m->slot[j].val - 1;
            p->allocs.t_free.v[prev] = ts;
            if (!p->lean) p->allocs.t_free_req.v[prev] = ts;
            mt->reused++;
        }
        ml_alloc_row r = {
            .t_alloc = ts, .t_free = ML_TIME_END, .t_free_req = ML_TIME_END,
            .size = size, .addr = addr, .ev_alloc = i, .ev_free = ML_NONE32,
            .thread = thread, .stack = stack, .stream = stream, .device = dev,
        };
        size_t id = ml_alloc_push(p, &r);
        map_put(m, addr, dev, (uint32_t)id + 1);
    } else if (m->slot[j].val) {
        size_t id = m->slot[j].val - 1;
        if (!p->lean) p->allocs.t_free_req.v[id] = ts;
        if (kind == ML_EV_FREE) {
            p->allocs.t_free.v[id] = ts;
            p->allocs.ev_free.v[id] = i;
            map_del(m, j);
        }
    } else if (kind == ML_EV_FREE) {
        ml_alloc_row r = {
            .t_alloc = ML_TIME_NONE, .t_free = ts, .t_free_req = ts,
            .size = size, .addr = addr, .ev_alloc = ML_NONE32, .ev_free = i,
            .thread = thread, .stack = 0, .stream = stream, .device = dev,
            .flags = ML_ALLOC_BEFORE_TRACE,
        };
        ml_alloc_push(p, &r);
    }
    /* A FREE_REQUESTED with no open alloc is followed by its FREE, handled then. */
}

/* Flags what is still open; returns the count of allocs that closed a live address. */
static size_t matcher_finish(ml_matcher *mt, ml_profile *p)
{
    open_map *m = &mt->m;
    for (size_t j = 0; j <= m->mask; j++) {
        if (!m->slot[j].val) continue;
        p->allocs.flags.v[m->slot[j].val - 1] |= ML_ALLOC_NEVER_FREED;
        if (p->lean) p->allocs.addr.v[m->slot[j].val - 1] = m->slot[j].addr; /* lean: addr only for these */
    }
    map_free(m);
    return mt->reused;
}

void ml_match_note_reused(ml_profile *p, size_t reused)
{
    if (reused)
        ml_note(p, "%zu allocation%s at an address that was still live (its free was not recorded): "
                   "%s closed at the next allocation there", reused, reused == 1 ? "" : "s",
                reused == 1 ? "it was" : "each was");
}

/* The whole pages of column bytes [from, to) of v, given back: what the
 * walk has read of a column the profile drops after it.  Only pages wholly
 * inside the column go (none holding the heap's own bytes before it), and
 * `from` is the `to` of the call before, whose last page goes now. */
static void give_back(void *v, size_t from, size_t to)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start = ((uintptr_t)v + page - 1) & ~(page - 1);
    uintptr_t a = ((uintptr_t)v + from) & ~(page - 1), b = ((uintptr_t)v + to) & ~(page - 1);
    if (a < start) a = start;
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

#define GIVE_BACK_EVERY ((size_t)1 << 18) /* events */

void ml_match(ml_profile *p, const ml_keep *keep)
{
    if (p->lean) { /* its events have no addresses: the importer matches as it reads, or reads again */
        ml_fatal("internal error: ml_match on a lean profile");
    }
    ml_allocs_clear(p);
    const ml_events *ev = &p->events;
    size_t n = ev->ts.len;
    ml_matcher mt;
    matcher_init(&mt);
    /* With a lean import, ml_profile_finish() drops the events' addresses (and
     * threads, unless categories are wanted) after the walk: their pages go
     * as it passes them, so that they and the allocs it builds are not all
     * in memory at once (a 400 MB trace's peak: 12 MB less). */
    bool give = ml_keep_lean(keep), threads_too = give && !ml_keep_event_threads(keep);
    size_t given = 0;
    for (size_t i = 0; i < n; i++) {
        if (give && i - given == GIVE_BACK_EVERY) {
            give_back(ev->addr.v, given * sizeof *ev->addr.v, i * sizeof *ev->addr.v);
            if (threads_too) give_back(ev->thread.v, given * sizeof *ev->thread.v, i * sizeof *ev->thread.v);
            given = i;
        }
        uint8_t kind = ev->kind.v[i];
        if (kind != ML_EV_ALLOC && kind != ML_EV_FREE && kind != ML_EV_FREE_REQUESTED) continue;
        match_step(&mt, p, kind, ev->ts.v[i], ev->size.v[i], ev->addr.v[i], ev->device.v[i], ev->thread.v[i],
                   ev->stack.v[i], ev->stream.v[i], (uint32_t)i);
    }
    ml_match_note_reused(p, matcher_finish(&mt, p));
}

ml_matcher *ml_matcher_new(void)
{
    ml_matcher *mt = ml_malloc(sizeof *mt);
    matcher_init(mt);
    return mt;
}

void ml_matcher_add(ml_matcher *mt, ml_profile *p, const ml_event *e, uint32_t index)
{
    if (e->kind != ML_EV_ALLOC && e->kind != ML_EV_FREE && e->kind != ML_EV_FREE_REQUESTED) return;
    /* Lean: a FREE_REQUESTED only dates the request (t_free_req), a column
     * lean storage has not, so it is not looked up (a third of a snapshot's
     * events).  Here, not in match_step(): this is the only way lean events
     * come (ml_match refuses them), and the call alone, not inlined, cost the
     * pipe's thread 6% more instructions. */
    if (e->kind == ML_EV_FREE_REQUESTED && p->lean) return;
    match_step(mt, p, e->kind, e->ts, e->size, e->addr, e->device, e->thread, e->stack, e->stream, index);
}

size_t ml_matcher_end(ml_matcher *mt, ml_profile *p)
{
    size_t reused = matcher_finish(mt, p);
    free(mt);
    return reused;
}

void ml_matcher_drop(ml_matcher *mt)
{
    map_free(&mt->m);
    free(mt);
}

ml_match_stats ml_match_stats_for(const ml_profile *p, int device)
{
    ml_match_stats st;
    memset(&st, 0, sizeof st);
    const ml_allocs *a = &p->allocs;
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if (device >= 0 && a->device.v[i] != device) continue;
        if (a->ev_alloc.v[i] != ML_NONE32) st.allocs++;
        if (a->ev_free.v[i] != ML_NONE32) st.frees++;
        if (a->ev_alloc.v[i] == ML_NONE32 && a->ev_free.v[i] != ML_NONE32) st.unmatched_frees++;
        if (a->flags.v[i] & ML_ALLOC_NEVER_FREED) st.never_freed++;
    }
    return st;
}
