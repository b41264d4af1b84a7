/*
 * gpu_idle.c — temporal breakdown and idle time by cause (gpu_idle.h): one
 * pass each over the GPU timeline, which is in start order.
 */
#include "gpu_idle.h"

#include <stdlib.h>
#include <string.h>

void ml_temporal_compute(const ml_gpu_timeline *tl, ml_temporal *out)
{
    memset(out, 0, sizeof *out);
    if (!tl->n) return;
    ml_gpu_merge all = {0}, comp = {0};
    int64_t busy = 0, compute = 0, first = 0, last = 0, gs, ge;
    bool have_first = false;
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (ml_gpu_merge_add(&all, e->start, e->end, &gs, &ge)) {
            busy += ge - gs;
            if (!have_first) first = gs, have_first = true;
        }
        if (e->type == ML_KT_COMPUTATION && ml_gpu_merge_add(&comp, e->start, e->end, &gs, &ge)) compute += ge - gs;
    }
    ml_gpu_merge_end(&all, &gs, &ge);
    busy += ge - gs;
    if (!have_first) first = gs;
    last = ge;
    if (ml_gpu_merge_end(&comp, &gs, &ge)) compute += ge - gs;
    out->known = true;
    out->span = last - first;
    out->idle = out->span - busy;
    out->compute = compute;
    out->non_compute = out->span - compute - out->idle;
}

typedef struct stream_state {
    ml_stream_idle row;
    int64_t prev_end;
    bool has_prev;
} stream_state;

static int by_stream(const void *a, const void *b)
{
    const ml_stream_idle *x = a, *y = b;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

void ml_idle_by_stream_compute(const ml_gpu_timeline *tl, ml_idle_streams *out)
{
    out->len = 0;
    VEC(stream_state) st = {0};
    size_t last = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (!e->work) continue;
        /* a rank has a few streams: the last one used, else a search */
        if (last >= st.len || st.v[last].row.stream != e->stream) {
            for (last = 0; last < st.len && st.v[last].row.stream != e->stream; last++) {}
            if (last == st.len) VEC_PUSH(&st, ((stream_state){.row = {.stream = e->stream}}));
        }
        stream_state *s = &st.v[last];
        if (s->has_prev && e->start < s->prev_end) { /* overlaps what ran before: no gap, one busy stretch */
            if (e->end > s->prev_end) s->prev_end = e->end;
            continue;
        }
        if (s->has_prev) {
            int64_t gap = e->start - s->prev_end;
            int cause = e->launcher != ML_NONE32 && e->launch > s->prev_end ? ML_IDLE_HOST_WAIT
                      : gap < ML_KERNEL_WAIT_NS                            ? ML_IDLE_KERNEL_WAIT
                                                                           : ML_IDLE_OTHER;
            s->row.ns[cause] += gap;
            s->row.gaps[cause]++;
        }
        s->prev_end = e->end;
        s->has_prev = true;
    }
    for (size_t k = 0; k < st.len; k++) VEC_PUSH(out, st.v[k].row);
    VEC_FREE(&st);
    if (out->len > 1) qsort(out->v, out->len, sizeof *out->v, by_stream);
}
