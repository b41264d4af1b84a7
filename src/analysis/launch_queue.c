/*
 * launch_queue.c — queue length per stream (launch_queue.h).  The events of
 * a stream start in the order they were launched (a stream is a FIFO), so
 * its launch times and start times are two sorted lists: the timeline's
 * events are scattered by stream (a rank has a few), then merged.
 */
#include "launch_queue.h"

#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "sortperm.h"

#define T_LT(ctx, x, y) ((x) < (y))
ML_RUNSORT_INPLACE_DEFINE(sort_times, int64_t, void *, T_LT)

typedef struct stream_slot {
    int64_t stream;
    size_t count, at;
} stream_slot;

static int by_stream(const void *a, const void *b)
{
    const stream_slot *x = a, *y = b;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static size_t slot_of(stream_slot *s, size_t n, int64_t stream)
{
    size_t k = 0;
    while (k < n && s[k].stream != stream) k++;
    return k;
}

void ml_queues_compute(const ml_gpu_timeline *tl, ml_queues *out)
{
    out->len = 0;
    VEC(stream_slot) slots = {0};
    size_t n = 0, last = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (e->launcher == ML_NONE32 || !e->launch_kind) continue;
        if (last >= slots.len || slots.v[last].stream != e->stream) {
            last = slot_of(slots.v, slots.len, e->stream);
            if (last == slots.len) VEC_PUSH(&slots, ((stream_slot){e->stream, 0, 0}));
        }
        slots.v[last].count++;
        n++;
    }
    if (!n) return;
    if (slots.len > 1) qsort(slots.v, slots.len, sizeof *slots.v, by_stream);
    for (size_t k = 0, at = 0; k < slots.len; k++) slots.v[k].at = at, at += slots.v[k].count;
    size_t cap_launch, cap_start;
    int64_t *launch = ml_scratch_take(n * sizeof *launch, &cap_launch);
    int64_t *start = ml_scratch_take(n * sizeof *start, &cap_start);
    size_t *fill = ml_malloc(slots.len * sizeof *fill);
    for (size_t k = 0; k < slots.len; k++) fill[k] = slots.v[k].at;
    last = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (e->launcher == ML_NONE32 || !e->launch_kind) continue;
        if (slots.v[last].stream != e->stream) last = slot_of(slots.v, slots.len, e->stream);
        launch[fill[last]] = e->launch;
        start[fill[last]] = e->start;
        fill[last]++;
    }
    free(fill);
    for (size_t k = 0; k < slots.len; k++) {
        const stream_slot *s = &slots.v[k];
        int64_t *L = launch + s->at, *S = start + s->at; /* S is in time order already */
        sort_times(L, s->count, NULL);
        ml_stream_queue row = {.stream = s->stream, .n = 2 * s->count};
        size_t cap; /* (kept: a pooled buffer is plain heap memory) */
        row.t = ml_scratch_take(row.n * sizeof *row.t, &cap);
        row.q = ml_scratch_take(row.n * sizeof *row.q, &cap);
        int64_t q = 0, sum = 0;
        size_t a = 0, b = 0, w = 0;
        while (a < s->count || b < s->count) {
            bool up = a < s->count && (b >= s->count || L[a] <= S[b]); /* a launch first in a tie */
            int64_t t = up ? L[a++] : S[b++];
            q += up ? 1 : -1;
            if (w && row.q[w - 1] >= ML_QUEUE_FULL) row.blocked += t - row.t[w - 1];
            if (!w || q > row.max) row.max = q;
            row.t[w] = t;
            row.q[w] = (int32_t)q;
            w++;
            sum += q;
        }
        row.mean = (double)sum / (double)row.n;
        VEC_PUSH(out, row);
    }
    ml_scratch_give(launch, cap_launch, n * sizeof *launch);
    ml_scratch_give(start, cap_start, n * sizeof *start);
    VEC_FREE(&slots);
}

void ml_queues_free(ml_queues *q)
{
    for (size_t i = 0; i < q->len; i++) {
        free(q->v[i].t);
        free(q->v[i].q);
    }
    VEC_FREE(q);
}
