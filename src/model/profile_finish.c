/*
 * profile_finish.c — ml_profile_finish(): once an importer has filled a
 * profile, sorts its events, operators and series by time, adds the base
 * time to relative times, pairs allocations with their frees (match.h) and
 * finishes the trace (trace.h); the two sides on one thread each.
 */
#include "match.h"
#include "par.h"
#include "phase.h"
#include "profile.h"
#include "pagerows.h"
#include "sortperm.h"

#include <stdlib.h>
#include <string.h>

/* Sorts the events by time; series points that name an event follow it. */
static void sort_events(ml_profile *p)
{
    ml_events *ev = &p->events;
    size_t n = ev->ts.len;
    uint32_t *perm = ml_sort_perm_i64(ev->ts.v, n);
    if (!perm) return;
    uint32_t *new_index = ml_malloc((n ? n : 1) * sizeof *new_index);
    for (size_t i = 0; i < n; i++) new_index[perm[i]] = (uint32_t)i;
    for (size_t k = 0; k < p->series.len; k++) {
        ml_series *s = &p->series.v[k];
        for (size_t i = 0; i < s->event.len; i++)
            if (s->event.v[i] != ML_NONE32 && s->event.v[i] < n) s->event.v[i] = new_index[s->event.v[i]];
    }
    if (p->allocs_matched) { /* matched in order; events pushed after them (annotations) moved in between */
        ml_allocs *a = &p->allocs;
        for (size_t i = 0; i < a->ev_alloc.len; i++) {
            if (a->ev_alloc.v[i] != ML_NONE32 && a->ev_alloc.v[i] < n) a->ev_alloc.v[i] = new_index[a->ev_alloc.v[i]];
            if (a->ev_free.v[i] != ML_NONE32 && a->ev_free.v[i] < n) a->ev_free.v[i] = new_index[a->ev_free.v[i]];
        }
    }
    free(new_index);
    ml_colref cols[] = {{ev->ts.v, 8}, {ev->size.v, 8}, {ev->aux.v, 8}, {ev->device.v, 2}, {ev->kind.v, 1},
                        {ev->addr.v, 8}, {ev->thread.v, 4}, {ev->stack.v, 4}, {ev->stream.v, 4}};
    ml_permute_cols(cols, p->lean ? 5 : sizeof cols / sizeof *cols, perm, n); /* lean: the last four are empty */
    free(perm);
}

static void sort_ops(ml_profile *p)
{
    ml_ops *op = &p->ops;
    size_t n = op->ts.len;
    uint32_t *perm = ml_sort_perm_i64(op->ts.v, n);
    if (!perm) return;
    ml_colref cols[] = {{op->ts.v, 8}, {op->dur.v, 8}, {op->name.v, 4}, {op->thread.v, 4}, {op->kind.v, 1}};
    ml_permute_cols(cols, sizeof cols / sizeof *cols, perm, n);
    free(perm);
}

static void shift_times(int64_t *t, size_t n, int64_t by)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] != ML_TIME_NONE && t[i] != ML_TIME_END) t[i] += by;
}

/* A series is a step function, so a point that repeats the value before it
 * changes nothing (the first instant of each value is kept).  Kineto writes
 * Total Reserved with every memory event; it changes at a few of them. */
static void drop_repeated_points(ml_series *s)
{
    if (!s->sampled) return;
    size_t n = s->ts.len, k = 0;
    bool events = s->event.len == n;
    for (size_t i = 0; i < n; i++) {
        if (k && s->value.v[i] == s->value.v[k - 1]) continue;
        s->ts.v[k] = s->ts.v[i];
        s->value.v[k] = s->value.v[i];
        if (events) s->event.v[k] = s->event.v[i];
        k++;
    }
    if (k == n) return;
    s->ts.len = s->value.len = k;
    if (events) s->event.len = k;
    ML_PAGEROWS_SHRINK(&s->ts);
    ML_PAGEROWS_SHRINK(&s->value);
    ML_PAGEROWS_SHRINK(&s->event);
}

typedef struct trace_finish_job {
    ml_trace *trace;
    int64_t base_ns;
} trace_finish_job;

static void finish_trace(void *arg)
{
    trace_finish_job *j = arg;
    if (j->trace) ml_trace_finish(j->trace, j->base_ns);
}

typedef struct memory_finish_job {
    ml_profile *p;
    const ml_keep *keep;
} memory_finish_job;

/* The memory side: everything but p->trace. */
static void finish_memory_side(void *arg)
{
    const memory_finish_job *j = arg;
    ml_profile *p = j->p;
    if (p->base_time_ns) {
        shift_times(p->events.ts.v, p->events.ts.len, p->base_time_ns);
        shift_times(p->ops.ts.v, p->ops.ts.len, p->base_time_ns);
        for (size_t i = 0; i < p->series.len; i++)
            shift_times(p->series.v[i].ts.v, p->series.v[i].ts.len, p->base_time_ns);
        ml_allocs *a = &p->allocs;
        shift_times(a->t_alloc.v, a->t_alloc.len, p->base_time_ns);
        shift_times(a->t_free.v, a->t_free.len, p->base_time_ns);
        shift_times(a->t_free_req.v, a->t_free_req.len, p->base_time_ns);
        p->base_time_ns = 0;
    }
    sort_events(p);
    sort_ops(p);
    for (size_t i = 0; i < p->series.len; i++) {
        ml_series *s = &p->series.v[i];
        uint32_t *perm = ml_sort_perm_i64(s->ts.v, s->ts.len);
        if (!perm) continue;
        ml_permute(s->ts.v, 8, perm, s->ts.len);
        ml_permute(s->value.v, 8, perm, s->ts.len);
        if (s->event.len == s->ts.len) ml_permute(s->event.v, 4, perm, s->ts.len);
        free(perm);
    }
    for (size_t i = 0; i < p->series.len; i++) drop_repeated_points(&p->series.v[i]);
    ml_phase("sort events, series");
    if (p->has_addresses && p->allocs_matched) ml_match_note_reused(p, p->allocs_reused);
    else if (p->has_addresses) ml_match(p, j->keep);
    if (ml_keep_lean(j->keep) && !p->lean) {
        /* Matched: the command reads no more of the events than lean storage
         * keeps (a gigabyte trace's addresses and threads: 12 bytes an event). */
        ml_events *ev = &p->events;
        ML_PAGEROWS_FREE(&ev->addr); VEC_FREE(&ev->stack); VEC_FREE(&ev->stream);
        if (!ml_keep_event_threads(j->keep)) ML_PAGEROWS_FREE(&ev->thread);
    }
    ml_phase("match");
}

void ml_profile_finish(ml_profile *p) { ml_profile_finish_keep(p, NULL); }

/* The time side and the memory side share nothing here: one thread each. */
void ml_profile_finish_keep(ml_profile *p, const ml_keep *keep)
{
    trace_finish_job job = {p->trace, p->base_time_ns};
    memory_finish_job memory = {p, keep};
    if (p->trace) ml_par2(finish_trace, &job, finish_memory_side, &memory);
    else finish_memory_side(&memory);
    ml_phase("profile finish");
}
