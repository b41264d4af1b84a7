/*
 * report_segments.c — the allocator's side of a CUDA allocator snapshot for
 * the report page's snapshot views (web/src/segments.js; web/DATA.md
 * "segview"): the final segments with their blocks, and the trace's allocator
 * events (alloc, free requested / completed, segment alloc / free / map /
 * unmap) from which the page replays the state of every segment at every
 * event (Allocator State History), the segments over time (Active Cached
 * Segment Timeline) and private pools; and the allocator settings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_segments.h"

bool ml_report_has_segments(const ml_profile *p)
{
    return p->caps.allocator_state;
}

/* event kinds as the page numbers them */
static int kind_code(int k)
{
    switch (k) {
    case ML_EV_ALLOC: return 0;
    case ML_EV_FREE_REQUESTED: return 1;
    case ML_EV_FREE: return 2;
    case ML_EV_SEGMENT_ALLOC: return 3;
    case ML_EV_SEGMENT_FREE: return 4;
    case ML_EV_SEGMENT_MAP: return 5;
    case ML_EV_SEGMENT_UNMAP: return 6;
    default: return -1;
    }
}

static void put_str(jw *w, const ml_profile *p, ml_str s) { jw_text(w, s ? ml_s(p, s) : ""); }

void ml_report_segments(const ml_profile *p, uint16_t dev, int64_t origin, size_t max_events, jw *w)
{
    jw_key(w, "segview"), jw_obj(w);
    jw_key(w, "settings"), put_str(w, p, p->allocator_settings);
    jw_key(w, "segments"), jw_arr(w);
    for (size_t i = 0; i < p->segments.len; i++) {
        const ml_segment *s = &p->segments.v[i];
        if (s->device != dev) continue;
        jw_arr(w);
        jw_u64(w, s->address), jw_i64(w, s->total_size);
        put_str(w, p, s->stream), put_str(w, p, s->pool_id), put_str(w, p, s->segment_type);
        jw_i64(w, s->is_expandable ? 1 : 0);
        jw_arr(w);
        for (uint32_t b = 0; b < s->n_blocks && s->first_block + b < p->blocks.len; b++) {
            const ml_block *k = &p->blocks.v[s->first_block + b];
            jw_arr(w);
            jw_u64(w, k->address), jw_i64(w, k->size), jw_i64(w, (int)k->state), jw_i64(w, k->stack);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    /* events, columns: t (relative ns or event number), k (kind code), a (address), s (size),
     * st (stack id), str (stream: index into streams) */
    /* (only the last max_events: the page replays back from the final
     * segments, so the history starts consistently wherever they begin) */
    const ml_events *ev = &p->events;
    VEC(uint32_t) idx = {0};
    size_t total = 0;
    if (!max_events) max_events = ML_REPORT_MAX_HISTORY;
    for (size_t i = 0; i < ev->kind.len; i++)
        if (ev->device.v[i] == dev && kind_code(ev->kind.v[i]) >= 0) total++;
    size_t from = total > max_events ? total - max_events : 0; /* the first one held */
    for (size_t i = 0, j = 0; i < ev->kind.len; i++)
        if (ev->device.v[i] == dev && kind_code(ev->kind.v[i]) >= 0 && j++ >= from) VEC_PUSH(&idx, (uint32_t)i);
    VEC(ml_str) streams = {0};
    jw_key(w, "events"), jw_obj(w);
    jw_key(w, "t"), jw_arr(w);
    for (size_t j = 0; j < idx.len; j++) {
        int64_t t = ev->ts.v[idx.v[j]];
        jw_i64(w, t == ML_TIME_NONE ? (int64_t)(from + j) : t - origin);
    }
    jw_end(w);
    jw_key(w, "k"), jw_arr(w);
    for (size_t j = 0; j < idx.len; j++) jw_i64(w, kind_code(ev->kind.v[idx.v[j]]));
    jw_end(w);
    jw_key(w, "a"), jw_arr(w);
    for (size_t j = 0; j < idx.len; j++) jw_u64(w, ev->addr.v[idx.v[j]]);
    jw_end(w);
    jw_key(w, "s"), jw_arr(w);
    for (size_t j = 0; j < idx.len; j++) jw_i64(w, ev->size.v[idx.v[j]]);
    jw_end(w);
    jw_key(w, "st"), jw_arr(w);
    for (size_t j = 0; j < idx.len; j++) jw_i64(w, ev->stack.v[idx.v[j]]);
    jw_end(w);
    jw_key(w, "str"), jw_arr(w);
    for (size_t j = 0; j < idx.len; j++) {
        ml_str s = ev->stream.v[idx.v[j]];
        size_t k = 0;
        while (k < streams.len && streams.v[k] != s) k++;
        if (k == streams.len && k < 64) VEC_PUSH(&streams, s);
        jw_i64(w, (int64_t)(k < 64 ? k : 0));
    }
    jw_end(w);
    jw_end(w);
    jw_key(w, "events_total"), jw_i64(w, (int64_t)total);
    jw_key(w, "events_from"), jw_i64(w, (int64_t)from);
    jw_key(w, "streams"), jw_arr(w);
    for (size_t k = 0; k < streams.len; k++) put_str(w, p, streams.v[k]);
    jw_end(w);
    jw_end(w);
    VEC_FREE(&streams);
    VEC_FREE(&idx);
}
