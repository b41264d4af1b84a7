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

static void put_str(ml_buf *m, const ml_profile *p, ml_str s) { ml_json_str(m, s ? ml_s(p, s) : ""); }

void ml_report_segments(const ml_profile *p, uint16_t dev, int64_t origin, size_t max_events, ml_buf *m)
{
    ml_buf_puts(m, ",\"segview\":{\"settings\":");
    put_str(m, p, p->allocator_settings);
    ml_buf_puts(m, ",\"segments\":[");
    size_t n = 0;
    for (size_t i = 0; i < p->segments.len; i++) {
        const ml_segment *s = &p->segments.v[i];
        if (s->device != dev) continue;
        ml_buf_printf(m, "%s[%" PRIu64 ",%" PRId64 ",", n++ ? "," : "", s->address, s->total_size);
        put_str(m, p, s->stream);
        ml_buf_puts(m, ",");
        put_str(m, p, s->pool_id);
        ml_buf_puts(m, ",");
        put_str(m, p, s->segment_type);
        ml_buf_printf(m, ",%d,[", s->is_expandable ? 1 : 0);
        for (uint32_t b = 0; b < s->n_blocks && s->first_block + b < p->blocks.len; b++) {
            const ml_block *k = &p->blocks.v[s->first_block + b];
            ml_buf_printf(m, "%s[%" PRIu64 ",%" PRId64 ",%d,%" PRIu32 "]", b ? "," : "", k->address, k->size,
                          (int)k->state, k->stack);
        }
        ml_buf_puts(m, "]]");
    }
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
    ml_buf_puts(m, "],\"events\":{\"t\":[");
    for (size_t j = 0; j < idx.len; j++) {
        int64_t t = ev->ts.v[idx.v[j]];
        ml_buf_printf(m, "%s%" PRId64, j ? "," : "", t == ML_TIME_NONE ? (int64_t)(from + j) : t - origin);
    }
    ml_buf_puts(m, "],\"k\":[");
    for (size_t j = 0; j < idx.len; j++) ml_buf_printf(m, "%s%d", j ? "," : "", kind_code(ev->kind.v[idx.v[j]]));
    ml_buf_puts(m, "],\"a\":[");
    for (size_t j = 0; j < idx.len; j++) ml_buf_printf(m, "%s%" PRIu64, j ? "," : "", ev->addr.v[idx.v[j]]);
    ml_buf_puts(m, "],\"s\":[");
    for (size_t j = 0; j < idx.len; j++) ml_buf_printf(m, "%s%" PRId64, j ? "," : "", ev->size.v[idx.v[j]]);
    ml_buf_puts(m, "],\"st\":[");
    for (size_t j = 0; j < idx.len; j++) ml_buf_printf(m, "%s%" PRIu32, j ? "," : "", ev->stack.v[idx.v[j]]);
    ml_buf_puts(m, "],\"str\":[");
    for (size_t j = 0; j < idx.len; j++) {
        ml_str s = ev->stream.v[idx.v[j]];
        size_t k = 0;
        while (k < streams.len && streams.v[k] != s) k++;
        if (k == streams.len && k < 64) VEC_PUSH(&streams, s);
        ml_buf_printf(m, "%s%zu", j ? "," : "", k < 64 ? k : (size_t)0);
    }
    ml_buf_printf(m, "]},\"events_total\":%zu,\"events_from\":%zu,\"streams\":[", total, from);
    for (size_t k = 0; k < streams.len; k++) {
        ml_buf_puts(m, k ? "," : "");
        put_str(m, p, streams.v[k]);
    }
    ml_buf_puts(m, "]}");
    VEC_FREE(&streams);
    VEC_FREE(&idx);
}
