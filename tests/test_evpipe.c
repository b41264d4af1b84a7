/* test_evpipe.c — events stored and matched on the pipe's thread (evpipe.h)
 * end as ml_match() over ml_event_push()ed events leaves them: the same
 * allocs, events and notes, whether the pipe matched them (in time order) or
 * left that to ml_profile_finish() (out of order, no times). */
#include "check.h"

#include "evpipe.h"
#include "match.h"

/* A small deterministic generator. */
static uint64_t rng = 1;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct stream {
    ml_event *ev;
    size_t n;
} stream;

/* n allocator events on 2 devices over 64 addresses: allocs, free_requested
 * then free, allocs at live addresses (unrecorded frees), frees of blocks
 * allocated before the trace, segment events.  Times step by 0..2 (ties
 * included); with `disorder`, one event in 500 steps back. */
static stream make_stream(size_t n, bool disorder, bool no_times)
{
    stream s = {ml_calloc(n, sizeof(ml_event)), n};
    int64_t t = 1000;
    for (size_t i = 0; i < n; i++) {
        ml_event *e = &s.ev[i];
        uint64_t r = next();
        t += (int64_t)(r % 3);
        e->ts = no_times ? ML_TIME_NONE : (disorder && r % 500 == 7 ? t - 50 : t);
        e->addr = 0x1000 + ((r >> 8) % 64) * 0x100;
        e->size = (int64_t)(((r >> 16) % 100 + 1) * 512);
        e->device = (uint16_t)((r >> 24) % 2);
        e->stack = (uint32_t)((r >> 28) % 7);
        e->stream = (uint32_t)((r >> 32) % 3);
        e->thread = ML_NONE32;
        unsigned k = (unsigned)((r >> 40) % 10);
        e->kind = k < 4 ? ML_EV_ALLOC : k < 6 ? ML_EV_FREE_REQUESTED : k < 9 ? ML_EV_FREE : ML_EV_SEGMENT_ALLOC;
    }
    return s;
}

/* Annotations pushed after the trace, some before its first event. */
static void annotate(ml_profile *p)
{
    int64_t at[] = {5, 1500, 999999, 1001};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        ml_event e = {.ts = at[i], .thread = ML_NONE32, .kind = ML_EV_ANNOTATE, .aux = 1};
        ml_event_push(p, &e);
    }
}

static ml_profile *by_match(const stream *s, bool annotations)
{
    ml_profile *p = ml_profile_new("a", "test");
    for (size_t i = 0; i < s->n; i++) ml_event_push(p, &s->ev[i]);
    if (annotations) annotate(p);
    p->has_addresses = true;
    ml_profile_finish(p);
    return p;
}

static ml_profile *by_pipe(const stream *s, bool annotations)
{
    ml_profile *p = ml_profile_new("b", "test");
    ml_evpipe *q = ml_evpipe_start(p);
    for (size_t i = 0; i < s->n; i++) ml_evpipe_push(q, &s->ev[i]);
    ml_evpipe_end(q, true);
    if (annotations) annotate(p);
    p->has_addresses = true;
    ml_profile_finish(p);
    return p;
}

#define SAME_COL(a, b, col)                                                                    \
    do {                                                                                       \
        CHECK_EQ_I64((int64_t)(a)->col.len, (int64_t)(b)->col.len);                            \
        if ((a)->col.len == (b)->col.len && (a)->col.len)                                      \
            CHECK(memcmp((a)->col.v, (b)->col.v, (a)->col.len * sizeof *(a)->col.v) == 0);    \
    } while (0)

static void same(const ml_profile *x, const ml_profile *y)
{
    const ml_allocs *a = &x->allocs, *b = &y->allocs;
    SAME_COL(a, b, t_alloc); SAME_COL(a, b, t_free); SAME_COL(a, b, t_free_req);
    SAME_COL(a, b, ev_alloc); SAME_COL(a, b, ev_free); SAME_COL(a, b, size); SAME_COL(a, b, addr);
    SAME_COL(a, b, device); SAME_COL(a, b, thread); SAME_COL(a, b, stack); SAME_COL(a, b, stream);
    SAME_COL(a, b, op); SAME_COL(a, b, op_top); SAME_COL(a, b, category); SAME_COL(a, b, flags);
    const ml_events *e = &x->events, *f = &y->events;
    SAME_COL(e, f, ts); SAME_COL(e, f, size); SAME_COL(e, f, addr); SAME_COL(e, f, aux);
    SAME_COL(e, f, thread); SAME_COL(e, f, stack); SAME_COL(e, f, stream); SAME_COL(e, f, device);
    SAME_COL(e, f, kind);
    CHECK_EQ_I64((int64_t)x->notes.len, (int64_t)y->notes.len);
    for (size_t i = 0; i < x->notes.len && i < y->notes.len; i++)
        CHECK_EQ_STR(ml_s(x, x->notes.v[i]), ml_s(y, y->notes.v[i]));
}

/* 200k events: the ring of batches wraps around many times. */
TEST(in_order_matched_on_the_pipe)
{
    stream s = make_stream(200000, false, false);
    ml_profile *a = by_match(&s, false), *b = by_pipe(&s, false);
    CHECK(b->allocs_matched);
    CHECK(!a->allocs_matched);
    CHECK(a->allocs.t_alloc.len > 50000);
    size_t before = 0, reused = 0, never = 0;
    for (size_t i = 0; i < a->allocs.flags.len; i++) {
        before += (a->allocs.flags.v[i] & ML_ALLOC_BEFORE_TRACE) != 0;
        never += (a->allocs.flags.v[i] & ML_ALLOC_NEVER_FREED) != 0;
    }
    reused = a->notes.len; /* the stream has allocs at live addresses: ml_match's note */
    CHECK(before > 0 && never > 0 && reused == 1);
    same(a, b);
    ml_profile_free(a);
    ml_profile_free(b);
    free(s.ev);
}

/* Annotations pushed afterwards move in between when sorted: the pipe's
 * allocs follow their events to their new places. */
TEST(annotations_after_the_pipe)
{
    stream s = make_stream(30000, false, false);
    ml_profile *a = by_match(&s, true), *b = by_pipe(&s, true);
    CHECK(b->allocs_matched);
    CHECK_EQ_I64(b->events.kind.v[0], ML_EV_ANNOTATE);
    same(a, b);
    for (size_t i = 0; i < b->allocs.ev_alloc.len; i++) /* each points at its own alloc event */
        if (b->allocs.ev_alloc.v[i] != ML_NONE32) {
            CHECK_EQ_I64(b->events.kind.v[b->allocs.ev_alloc.v[i]], ML_EV_ALLOC);
            CHECK_EQ_I64(b->events.ts.v[b->allocs.ev_alloc.v[i]], b->allocs.t_alloc.v[i]);
        }
    ml_profile_free(a);
    ml_profile_free(b);
    free(s.ev);
}

TEST(out_of_order_left_to_finish)
{
    stream s = make_stream(50000, true, false);
    ml_profile *a = by_match(&s, false), *b = by_pipe(&s, false);
    CHECK(!b->allocs_matched);
    same(a, b);
    ml_profile_free(a);
    ml_profile_free(b);
    free(s.ev);
}

TEST(no_times_left_to_finish)
{
    stream s = make_stream(20000, false, true);
    ml_profile *p = ml_profile_new("b", "test");
    ml_evpipe *q = ml_evpipe_start(p);
    for (size_t i = 0; i < s.n; i++) ml_evpipe_push(q, &s.ev[i]);
    ml_evpipe_end(q, true);
    CHECK(!p->allocs_matched);
    CHECK_EQ_I64((int64_t)p->allocs.t_alloc.len, 0);
    CHECK_EQ_I64((int64_t)p->events.ts.len, 20000);
    ml_profile_free(p);
    free(s.ev);
}

/* keep_allocs false (the importer failed, or will renumber its events). */
TEST(dropped_when_not_kept)
{
    stream s = make_stream(10000, false, false);
    ml_profile *p = ml_profile_new("b", "test");
    ml_evpipe *q = ml_evpipe_start(p);
    for (size_t i = 0; i < s.n; i++) ml_evpipe_push(q, &s.ev[i]);
    ml_evpipe_end(q, false);
    CHECK(!p->allocs_matched);
    CHECK_EQ_I64((int64_t)p->allocs.t_alloc.len, 0);
    CHECK_EQ_I64((int64_t)p->events.ts.len, 10000);
    for (size_t i = 0; i < s.n; i += 997) CHECK_EQ_I64(p->events.addr.v[i], (int64_t)s.ev[i].addr);
    ml_evpipe_end(NULL, true);
    ml_profile_free(p);
    free(s.ev);
}

int main(void)
{
    for (int one = 0; one < 2; one++) { /* on the pipe's thread, then on the caller's (MEMLENS_ONE_THREAD) */
        if (one) setenv("MEMLENS_ONE_THREAD", "1", 1);
        RUN(in_order_matched_on_the_pipe);
        RUN(annotations_after_the_pipe);
        RUN(out_of_order_left_to_finish);
        RUN(no_times_left_to_finish);
        RUN(dropped_when_not_kept);
    }
    unsetenv("MEMLENS_ONE_THREAD");
    return check_report();
}
