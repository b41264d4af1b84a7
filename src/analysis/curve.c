/* curve.c — curves from series or replayed events, and exact peaks; see curve.h. */
#include "curve.h"

#include <stdlib.h>
#include <string.h>

#include "par.h"

static const ml_series *find_series(const ml_profile *p, int device, ml_series_kind kind)
{
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device == device && s->kind == kind && !s->component && !s->stream && s->ts.len) return s;
    }
    return NULL;
}

/* Bytes allocated before the trace: the level a replayed curve starts from. */
static int64_t level_before(const ml_profile *p, int device)
{
    const ml_allocs *a = &p->allocs;
    int64_t level = 0;
    bool all = ml_only_device(p, device);
    if (p->has_addresses)
        for (size_t i = 0; i < a->t_alloc.len; i++)
            if ((all || a->device.v[i] == device) && a->ev_alloc.v[i] == ML_NONE32 && a->t_alloc.v[i] == ML_TIME_NONE)
                level = ml_add_sat(level, a->size.v[i]);
    return level;
}

/* A trace with no allocs or frees but memory allocated before it (a snapshot
 * taken without recording history): the curve is that level, one point at the
 * device's first event (time 0 if it has none). */
static bool flat_before(const ml_profile *p, int device, int64_t level, int64_t *ts)
{
    if (level <= 0) return false;
    *ts = 0;
    bool all = ml_only_device(p, device);
    for (size_t i = 0; i < p->events.ts.len; i++)
        if (all || p->events.device.v[i] == device) { *ts = p->events.ts.v[i]; break; }
    return true;
}

/* The device's first event of any kind (e.g. a snapshot's first segment
 * event) when it comes before its first alloc or free: a replayed curve
 * starts there, at the level from before the trace, as the recorded curves
 * of the device do.  ML_NONE32 otherwise. */
static uint32_t replay_start(const ml_profile *p, int device)
{
    const ml_events *ev = &p->events;
    bool all = ml_only_device(p, device);
    for (size_t i = 0; i < ev->ts.len; i++) {
        if (!all && ev->device.v[i] != device) continue;
        if (ev->kind.v[i] == ML_EV_ALLOC || ev->kind.v[i] == ML_EV_FREE) return ML_NONE32;
        return (uint32_t)i;
    }
    return ML_NONE32;
}

static bool replay_allocated(const ml_profile *p, int device, ml_curve *c)
{
    const ml_events *ev = &p->events;
    int64_t level = level_before(p, device), t;
    size_t n = 0;
    for (size_t i = 0; i < ev->ts.len; i++)
        if (ev->device.v[i] == device && (ev->kind.v[i] == ML_EV_ALLOC || ev->kind.v[i] == ML_EV_FREE)) n++;
    if (!n) {
        if (!flat_before(p, device, level, &t)) return false;
        c->owned_ts = ml_malloc(sizeof *c->owned_ts);
        c->owned_value = ml_malloc(sizeof *c->owned_value);
        c->owned_ts[0] = t;
        c->owned_value[0] = level;
        c->n = 1;
        c->ts = c->owned_ts;
        c->value = c->owned_value;
        c->replayed = true;
        return true;
    }
    uint32_t start = replay_start(p, device);
    n += start != ML_NONE32;
    c->owned_ts = ml_malloc(n * sizeof *c->owned_ts);
    c->owned_value = ml_malloc(n * sizeof *c->owned_value);
    c->owned_event = ml_malloc(n * sizeof *c->owned_event);
    size_t k = 0;
    if (start != ML_NONE32) {
        c->owned_ts[k] = ev->ts.v[start];
        c->owned_value[k] = level;
        c->owned_event[k++] = start;
    }
    for (size_t i = 0; i < ev->ts.len; i++) {
        if (ev->device.v[i] != device) continue;
        if (ev->kind.v[i] == ML_EV_ALLOC) level = ml_add_sat(level, ev->size.v[i]);
        else if (ev->kind.v[i] == ML_EV_FREE) level = ml_add_sat(level, -ev->size.v[i]);
        else continue;
        c->owned_ts[k] = ev->ts.v[i];
        c->owned_value[k] = level;
        c->owned_event[k] = (uint32_t)i;
        k++;
    }
    c->n = n;
    c->ts = c->owned_ts;
    c->value = c->owned_value;
    c->event = c->owned_event;
    c->replayed = true;
    return true;
}

bool ml_curve_get(const ml_profile *p, int device, ml_series_kind kind, ml_curve *out)
{
    memset(out, 0, sizeof *out);
    const ml_series *s = find_series(p, device, kind);
    if (s) {
        out->n = s->ts.len;
        out->ts = s->ts.v;
        out->value = s->value.v;
        out->event = s->event.len == s->ts.len ? s->event.v : NULL;
        return true;
    }
    if (kind == ML_SERIES_ALLOCATED) return replay_allocated(p, device, out);
    return false;
}

void ml_curve_free(ml_curve *c)
{
    free(c->owned_ts);
    free(c->owned_value);
    free(c->owned_event);
    memset(c, 0, sizeof *c);
}

ml_peak ml_curve_peak(const ml_curve *c)
{
    ml_peak pk;
    memset(&pk, 0, sizeof pk);
    pk.at.event = ML_NONE32;
    for (size_t i = 0; i < c->n; i++) {
        if (!pk.found || c->value[i] > pk.value) {
            pk.found = true;
            pk.value = c->value[i];
            pk.point = i;
        }
    }
    if (pk.found) {
        pk.at.ts = c->ts[pk.point];
        pk.at.event = c->event ? c->event[pk.point] : ML_NONE32;
    }
    return pk;
}

/* One part [from, to) of the events for ml_curve_find_peak's replay, its
 * levels relative to the level where it begins. */
#define REPLAY_SPLIT ((size_t)1 << 20) /* events: fewer are replayed on one thread */
typedef struct replay_part {
    const ml_profile *p;
    int device;
    uint32_t start;              /* replay_start(): a point that moves nothing */
    bool all;                    /* ml_only_device() */
    size_t from, to;
    int64_t level;               /* in: the level where the part begins (0: levels relative to it) */
    bool saturate;               /* in: add as the one walk always did (sums past 2^62 saturate) */
    int64_t end;                 /* the level at the end */
    uint64_t moved;              /* the sum of the sizes moved (saturating): plain adds are exact below 2^62 */
    int64_t best, best_ts;       /* the first highest level, where */
    uint32_t best_i;
    size_t best_k, k, moves;     /* its point's number; points; points that move */
    int64_t first_ts, last_ts;   /* of the part's first and last points */
} replay_part;

static void replay_part_run(void *arg)
{
    replay_part *r = arg;
    const ml_events *ev = &r->p->events;
    int64_t level = r->level;
    uint64_t moved = 0;
    for (size_t i = r->from; i < r->to; i++) {
        if (!r->all && ev->device.v[i] != r->device) continue;
        int64_t size = ev->size.v[i];
        if (ev->kind.v[i] == ML_EV_ALLOC) level = r->saturate ? ml_add_sat(level, size) : level + size;
        else if (ev->kind.v[i] == ML_EV_FREE) level = r->saturate ? ml_add_sat(level, -size) : level - size;
        else if (i != r->start) continue;
        if (ev->kind.v[i] == ML_EV_ALLOC || ev->kind.v[i] == ML_EV_FREE) {
            uint64_t mag = size < 0 ? 0 - (uint64_t)size : (uint64_t)size;
            moved = moved > UINT64_MAX - mag ? UINT64_MAX : moved + mag;
        }
        if (!r->k) r->first_ts = ev->ts.v[i];
        r->last_ts = ev->ts.v[i];
        if (!r->k || level > r->best) {
            r->best = level;
            r->best_k = r->k;
            r->best_ts = ev->ts.v[i];
            r->best_i = (uint32_t)i;
        }
        r->k++;
        r->moves += i != r->start;
        if (moved > (uint64_t)ML_VALUE_LIMIT && !r->saturate) break; /* (the caller walks again, saturating) */
    }
    r->end = level;
    r->moved = moved;
}

/* ---- the peaks found, kept by the caller (ml_peak_memo) ---- */

static bool find_peak(const ml_profile *p, int device, ml_series_kind kind, ml_peak *pk, int64_t span[2],
                      bool *replayed);

static ml_peak_memo_row *memo_row(ml_peak_memo *m, const ml_profile *p, int device, ml_series_kind kind, bool *hit)
{
    if (m->of != p) { /* a memo serves one profile: another one starts it afresh */
        memset(m, 0, sizeof *m);
        m->of = p;
    }
    for (int i = 0; i < ML_PEAK_MEMO_ROWS; i++) {
        ml_peak_memo_row *r = &m->row[i];
        if (!r->used || (r->device == device && r->kind == kind)) {
            *hit = r->used;
            return r;
        }
    }
    *hit = false;
    return NULL; /* full: found, not kept */
}

bool ml_curve_find_peak(const ml_profile *p, int device, ml_series_kind kind, ml_peak *pk, int64_t span[2],
                        bool *replayed)
{
    span[0] = span[1] = 0;
    return find_peak(p, device, kind, pk, span, replayed);
}

bool ml_curve_find_peak_memo(ml_peak_memo *memo, const ml_profile *p, int device, ml_series_kind kind, ml_peak *pk,
                             int64_t span[2], bool *replayed)
{
    if (!memo) return ml_curve_find_peak(p, device, kind, pk, span, replayed);
    bool hit;
    ml_peak_memo_row *r = memo_row(memo, p, device, kind, &hit);
    if (hit) {
        *pk = r->pk;
        span[0] = r->span[0];
        span[1] = r->span[1];
        *replayed = r->replayed;
        return r->ok;
    }
    bool ok = ml_curve_find_peak(p, device, kind, pk, span, replayed);
    if (r) *r = (ml_peak_memo_row){true, ok, *replayed, device, kind, *pk, {span[0], span[1]}};
    return ok;
}

static bool find_peak(const ml_profile *p, int device, ml_series_kind kind, ml_peak *pk, int64_t span[2],
                      bool *replayed)
{
    memset(pk, 0, sizeof *pk);
    pk->at.event = ML_NONE32;
    *replayed = false;
    const ml_series *s = find_series(p, device, kind);
    if (s) {
        ml_curve c = {.n = s->ts.len, .ts = s->ts.v, .value = s->value.v,
                      .event = s->event.len == s->ts.len ? s->event.v : NULL};
        *pk = ml_curve_peak(&c);
        span[0] = c.ts[0];
        span[1] = c.ts[c.n - 1];
        return true;
    }
    if (kind != ML_SERIES_ALLOCATED) return false;
    /* replay_allocated() and ml_curve_peak() in one pass, without the arrays:
     * a gigabyte snapshot's 9M events in two halves, one per core, their
     * levels relative to where each begins, then joined. */
    const ml_events *ev = &p->events;
    int64_t level = level_before(p, device);
    size_t n = ev->ts.len, half = n >= REPLAY_SPLIT && ml_par_allowed() ? n / 2 : n;
    replay_part a = {.p = p, .device = device, .start = replay_start(p, device), .all = ml_only_device(p, device),
                     .from = 0, .to = half},
                b = a;
    b.from = half;
    b.to = n;
    if (half < n) ml_par2(replay_part_run, &a, replay_part_run, &b);
    else replay_part_run(&a);
    size_t k = a.k + b.k, moves = a.moves + b.moves;
    uint64_t moved = a.moved > UINT64_MAX - b.moved ? UINT64_MAX : a.moved + b.moved;
    int64_t at_a = level; /* where part a begins */
    if (moved > (uint64_t)ML_VALUE_LIMIT || level <= -ML_VALUE_LIMIT || level >= ML_VALUE_LIMIT) {
        /* sums past 2^62: one saturating walk over all, as of old */
        replay_part all = {.p = p, .device = device, .start = a.start, .all = a.all, .from = 0, .to = n,
                           .level = level, .saturate = true};
        replay_part_run(&all);
        a = all;
        b = (replay_part){0};
        at_a = 0; /* (its levels are absolute) */
        k = a.k;
        moves = a.moves;
    }
    /* the first highest level: the first half's unless the second's is higher */
    const replay_part *w = NULL;
    int64_t at_b = at_a + a.end;
    if (a.k) w = &a;
    if (b.k && (!w || at_b + b.best > at_a + a.best)) w = &b;
    if (w) *pk = (ml_peak){.found = true, .value = (w == &a ? at_a : at_b) + w->best,
                           .point = (w == &a ? 0 : a.k) + w->best_k, .at = {w->best_ts, w->best_i}};
    if (k) {
        span[0] = a.k ? a.first_ts : b.first_ts;
        span[1] = b.k ? b.last_ts : a.last_ts;
    }
    level = at_b + b.end;
    if (!moves && flat_before(p, device, level, &span[0])) { /* no moves: level is the level before */
        memset(pk, 0, sizeof *pk);
        span[1] = span[0];
        pk->found = true;
        pk->value = level;
        pk->at.ts = span[0];
        pk->at.event = ML_NONE32;
        *replayed = true;
        return true;
    }
    if (!moves) memset(pk, 0, sizeof *pk), pk->at.event = ML_NONE32;
    *replayed = moves > 0;
    return moves > 0;
}

int64_t ml_curve_value_at(const ml_curve *c, ml_instant at)
{
    /* Last point at or before the instant: binary search on time, then events. */
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        bool before = c->ts[mid] < at.ts ||
                      (c->ts[mid] == at.ts && (at.event == ML_NONE32 || !c->event || c->event[mid] <= at.event));
        if (before) lo = mid + 1;
        else hi = mid;
    }
    return lo ? c->value[lo - 1] : 0;
}

bool ml_alloc_live_at(const ml_profile *p, size_t i, ml_instant at)
{
    const ml_allocs *a = &p->allocs;
    uint32_t ea = a->ev_alloc.v[i], ef = a->ev_free.v[i];
    int64_t ta = a->t_alloc.v[i], tf = a->t_free.v[i];
    bool alloc_ok, free_ok;
    if (at.event != ML_NONE32 && (ea != ML_NONE32 || ta == ML_TIME_NONE)) alloc_ok = ea == ML_NONE32 || ea <= at.event;
    else alloc_ok = ta == ML_TIME_NONE || ta <= at.ts;
    if (at.event != ML_NONE32 && ef != ML_NONE32) free_ok = at.event < ef;
    else free_ok = tf == ML_TIME_END || at.ts < tf;
    return alloc_ok && free_ok;
}
