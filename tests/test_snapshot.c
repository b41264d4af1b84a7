/* test_snapshot.c — the torch-snapshot importer on real snapshots and tiny ones.
 *
 * Expected values for the real files in ../shared/data/snapshot were computed
 * by tests/snapshot_expected.py (a restricted Unpickler and a replay written
 * independently of memlens). */
#include "check.h"

#include "importer.h"
#include "pyvalue.h"

typedef struct expect {
    const char *file;
    long long alloc, free_requested, free_completed, segment_alloc, segment_free;
    long long n_before, before, peak, peak_time_us, live_end, reserved_end, peak_reserved;
    long long segments, blocks, stacks, first_alloc_depth;
} expect;

static const expect real[] = {
    {"silmont_mem_snapshot.pickle", 36, 26, 26, 9, 0,
     0, 0, 3249143816LL, 1772688692983308LL, 31719428LL, 3781165056LL, 3781165056LL, 9, 20, 42, 41},
    {"cs336_memory_ctx128_forward.pickle", 2058, 1155, 1155, 289, 0,
     324, 13763491840LL, 19487442944LL, 1748729392114839LL, 19487442944LL, 19667091456LL, 19667091456LL, 516, 1276, 86, 62},
    {"cs336_memory_ctx256_fullstep_.pickle", 6769, 5894, 5894, 791, 780,
     326, 13831915520LL, 54959400964LL, 1748732595362881LL, 54754590724LL, 61025026048LL, 61111009280LL, 1021, 1711, 179, 62},
};

static ml_profile *import_file(const char *path, ml_err *e)
{
    ml_source *src;
    if (ml_source_open(path, &src, e) < 0) return NULL;
    ml_profile *p = ml_profile_new(path, "torch-snapshot");
    int rc = ml_snapshot_import(src, p, e);
    ml_source_close(src);
    if (rc < 0) { ml_profile_free(p); return NULL; }
    return p;
}

static ml_profile *import_mem(const char *bytes, size_t n, ml_err *e)
{
    ml_source *src = ml_source_from_memory("t.pickle", bytes, n);
    ml_profile *p = ml_profile_new("t.pickle", "torch-snapshot");
    int rc = ml_snapshot_import(src, p, e);
    ml_source_close(src);
    if (rc < 0) { ml_profile_free(p); return NULL; }
    return p;
}

/* Replays live bytes from the allocs table in event order: before-trace
 * allocations are live from the start, others from their alloc event to
 * their free event.  Returns the peak and sets the event index of it. */
static int64_t replay_peak(const ml_profile *p, int64_t *live_end, size_t *peak_ev)
{
    size_t n = p->events.ts.len;
    int64_t *delta = calloc(n + 1, sizeof *delta), live = 0;
    const ml_allocs *a = &p->allocs;
    for (size_t i = 0; i < a->size.len; i++) {
        if (a->ev_alloc.v[i] == ML_NONE32) live += a->size.v[i];
        else delta[a->ev_alloc.v[i]] += a->size.v[i];
        if (a->ev_free.v[i] != ML_NONE32) delta[a->ev_free.v[i]] -= a->size.v[i];
    }
    int64_t peak = live;
    *peak_ev = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        live += delta[i];
        if (live > peak) { peak = live; *peak_ev = i; }
    }
    free(delta);
    *live_end = live;
    return peak;
}

TEST(real_snapshots)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/snapshot/%s", check_data_dir(), real[0].file);
    FILE *f = fopen(path, "rb");
    if (!f) SKIP("../shared/data/snapshot is absent");
    fclose(f);
    for (size_t r = 0; r < sizeof real / sizeof *real; r++) {
        const expect *x = &real[r];
        ml_err e;
        snprintf(path, sizeof path, "%s/snapshot/%s", check_data_dir(), x->file);
        ml_profile *p = import_file(path, &e);
        if (!p) { CHECK_FAILED_("%s: %s", x->file, e.msg); continue; }
        printf("%s\n", x->file);
        CHECK_EQ_I64(p->devices.len, 1);
        CHECK_EQ_STR(p->devices.v[0].id, "cuda:0");
        CHECK(p->time_is_absolute);
        CHECK(!p->time_is_event_order);
        long long n[ML_EV__COUNT] = {0};
        for (size_t i = 0; i < p->events.kind.len; i++) n[p->events.kind.v[i]]++;
        CHECK_EQ_I64(n[ML_EV_ALLOC], x->alloc);
        CHECK_EQ_I64(n[ML_EV_FREE_REQUESTED], x->free_requested);
        CHECK_EQ_I64(n[ML_EV_FREE], x->free_completed);
        CHECK_EQ_I64(n[ML_EV_SEGMENT_ALLOC], x->segment_alloc);
        CHECK_EQ_I64(n[ML_EV_SEGMENT_FREE], x->segment_free);
        CHECK_EQ_I64(p->segments.len, x->segments);
        CHECK_EQ_I64(p->blocks.len, x->blocks);

        long long n_before = 0, before = 0;
        for (size_t i = 0; i < p->allocs.size.len; i++)
            if (p->allocs.flags.v[i] & ML_ALLOC_BEFORE_TRACE) { n_before++; before += p->allocs.size.v[i]; }
        CHECK_EQ_I64(n_before, x->n_before);
        CHECK_EQ_I64(before, x->before);
        int64_t live_end;
        size_t peak_ev;
        CHECK_EQ_I64(replay_peak(p, &live_end, &peak_ev), x->peak);
        CHECK_EQ_I64(live_end, x->live_end);
        CHECK(peak_ev != SIZE_MAX);
        if (peak_ev != SIZE_MAX) CHECK_EQ_I64(p->events.ts.v[peak_ev], x->peak_time_us * 1000);

        /* Reserved: the device's overall RESERVED series, replayed back from the final segments. */
        const ml_series *res = NULL;
        for (size_t i = 0; i < p->series.len; i++)
            if (p->series.v[i].kind == ML_SERIES_RESERVED && p->series.v[i].component == 0 &&
                p->series.v[i].stream == 0) res = &p->series.v[i];
        CHECK(res != NULL);
        if (res) {
            int64_t mx = 0;
            for (size_t i = 0; i < res->value.len; i++) if (res->value.v[i] > mx) mx = res->value.v[i];
            CHECK_EQ_I64(res->value.v[res->value.len - 1], x->reserved_end);
            CHECK_EQ_I64(mx, x->peak_reserved);
            for (size_t i = 1; i < res->ts.len; i++) CHECK(res->ts.v[i] >= res->ts.v[i - 1]);
        }

        /* Stacks: distinct non-empty stacks used anywhere; the first alloc's stack. */
        size_t n_stacks = p->stack_start.len + 1;
        char *used = calloc(n_stacks, 1);
        long long distinct = 0;
#define USE(s) do { uint32_t s_ = (s); if (s_ && s_ < n_stacks && !used[s_]) { used[s_] = 1; distinct++; } } while (0)
        for (size_t i = 0; i < p->events.stack.len; i++) USE(p->events.stack.v[i]);
        for (size_t i = 0; i < p->segments.len; i++) USE(p->segments.v[i].stack);
        for (size_t i = 0; i < p->blocks.len; i++) USE(p->blocks.v[i].stack);
        free(used);
        CHECK_EQ_I64(distinct, x->stacks);
        for (size_t i = 0; i < p->events.kind.len; i++) {
            if (p->events.kind.v[i] != ML_EV_ALLOC) continue;
            uint32_t s = p->events.stack.v[i];
            CHECK_EQ_I64(ml_stack_depth(p, s), x->first_alloc_depth);
            const uint32_t *fr = ml_stack_frames(p, s);
            size_t d = ml_stack_depth(p, s);
            /* innermost first: the allocator's own unwinder, then ... the script's <module> */
            CHECK_EQ_STR(ml_s(p, p->frames.v[fr[0]].name), "torch::unwind::unwind()");
            CHECK_EQ_STR(ml_s(p, p->frames.v[fr[d - 1]].name), "<module>");
            CHECK(p->frames.v[fr[d - 1]].file != 0);
            CHECK(p->frames.v[fr[d - 1]].line > 0);
            break;
        }
        ml_profile_free(p);
    }
}

/* A tiny snapshot written by CPython (protocol 4) from this dict:
 *   {'segments': [{'device': 1, 'address': 4096, 'total_size': 2048, 'allocated_size': 512,
 *                  'active_size': 512, 'requested_size': 500, 'stream': 0, 'segment_type': 'small',
 *                  'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': [],
 *                  'blocks': [{'address': 4096, 'size': 512, 'requested_size': 500,
 *                              'state': 'active_allocated', 'frames': F},
 *                             {'address': 4608, 'size': 1536, 'requested_size': 1536,
 *                              'state': 'inactive', 'frames': []}]}],
 *    'device_traces': [[], [
 *       {'action': 'segment_alloc', 'addr': 4096, 'size': 2048, 'stream': 0, 'frames': F},
 *       {'action': 'alloc', 'addr': 8192, 'size': 256, 'stream': 0, 'frames': F},
 *       {'action': 'free_requested', 'addr': 9000, 'size': 128, 'stream': 0, 'frames': F},
 *       {'action': 'free_completed', 'addr': 9000, 'size': 128, 'stream': 0, 'frames': F},
 *       {'action': 'oom', 'size': 1 << 40, 'device_free': 777, 'stream': 0, 'frames': []}]],
 *    'allocator_settings': {'expandable_segments': False}}
 * with F = [{'name': 'f', 'filename': 'a.py', 'line': 3}, {'name': 'g', 'filename': '??', 'line': 0}]
 * shared; no time_us (an older PyTorch).  Generated by tests/snapshot_expected.py --tiny. */
#include "snapshot_tiny.h"

TEST(tiny_without_times)
{
    ml_err e;
    ml_profile *p = import_mem((const char *)tiny_pickle, sizeof tiny_pickle, &e);
    if (!p) { CHECK_FAILED_("%s", e.msg); return; }
    CHECK_EQ_I64(p->devices.len, 1);
    CHECK_EQ_STR(p->devices.v[0].id, "cuda:1");   /* device_traces[0] is empty: no cuda:0 */
    CHECK(p->time_is_event_order);
    CHECK_EQ_I64(p->events.ts.len, 5);
    CHECK_EQ_I64(p->events.kind.v[0], ML_EV_SEGMENT_ALLOC);
    CHECK_EQ_I64(p->events.kind.v[4], ML_EV_OOM);
    CHECK_EQ_I64(p->events.size.v[4], 1LL << 40);
    CHECK_EQ_I64(p->events.aux.v[4], 777);
    CHECK_EQ_I64(p->events.ts.v[3], 3);
    /* F is shared: every event with F has the same stack, f (a.py:3) then g (file unknown) */
    uint32_t s = p->events.stack.v[1];
    CHECK(s != 0);
    CHECK_EQ_I64(p->events.stack.v[0], s);
    CHECK_EQ_I64(p->blocks.v[0].stack, s);
    CHECK_EQ_I64(p->events.stack.v[4], 0);
    CHECK_EQ_I64(ml_stack_depth(p, s), 2);
    const ml_frame *f0 = &p->frames.v[ml_stack_frames(p, s)[0]], *f1 = &p->frames.v[ml_stack_frames(p, s)[1]];
    CHECK_EQ_STR(ml_s(p, f0->name), "f");
    CHECK_EQ_STR(ml_s(p, f0->file), "a.py");
    CHECK_EQ_I64(f0->line, 3);
    CHECK_EQ_STR(ml_s(p, f1->name), "g");
    CHECK_EQ_I64(f1->file, 0);
    /* segment and blocks */
    CHECK_EQ_I64(p->segments.len, 1);
    CHECK_EQ_STR(ml_s(p, p->segments.v[0].pool_id), "(0, 0)");
    CHECK_EQ_STR(ml_s(p, p->segments.v[0].segment_type), "small");
    CHECK_EQ_STR(ml_s(p, p->segments.v[0].stream), "0");
    CHECK_EQ_I64(p->segments.v[0].n_blocks, 2);
    CHECK_EQ_I64(p->blocks.v[1].state, ML_BLOCK_INACTIVE);
    CHECK_EQ_I64(p->blocks.v[1].address, 4608);
    /* allocs: 8192 (never freed), 9000 (freed, before trace), block 4096 (before trace, never freed) */
    CHECK_EQ_I64(p->allocs.size.len, 3);
    int found = 0;
    for (size_t i = 0; i < p->allocs.size.len; i++) {
        uint8_t fl = p->allocs.flags.v[i];
        if (p->allocs.addr.v[i] == 8192) { found++; CHECK_EQ_I64(fl, ML_ALLOC_NEVER_FREED); }
        if (p->allocs.addr.v[i] == 9000) { found++; CHECK_EQ_I64(fl, ML_ALLOC_BEFORE_TRACE); CHECK_EQ_I64(p->allocs.size.v[i], 128); }
        if (p->allocs.addr.v[i] == 4096) {
            found++;
            CHECK_EQ_I64(fl, ML_ALLOC_BEFORE_TRACE | ML_ALLOC_NEVER_FREED);
            CHECK_EQ_I64(p->allocs.size.v[i], 512);
            CHECK_EQ_I64(p->allocs.stack.v[i], s);
        }
    }
    CHECK_EQ_I64(found, 3);
    /* reserved: 2048 at the end, 0 before the segment_alloc */
    const ml_series *res = &p->series.v[0];
    CHECK_EQ_I64(res->kind, ML_SERIES_RESERVED);
    CHECK_EQ_I64(res->value.len, 2);
    CHECK_EQ_I64(res->value.v[0], 0);
    CHECK_EQ_I64(res->value.v[1], 2048);
    int has_note = 0;
    for (size_t i = 0; i < p->notes.len; i++)
        if (strstr(ml_s(p, p->notes.v[i]), "no time_us")) has_note = 1;
    CHECK(has_note);
    ml_profile_free(p);
}

TEST(json_snapshot_loads_too)
{
    static const char json[] =
        "{\"segments\": [{\"device\": 0, \"address\": 100, \"total_size\": 1000, \"stream\": 7,"
        " \"segment_pool_id\": [0, 0], \"blocks\": [{\"size\": 400, \"state\": \"active_allocated\","
        " \"frames\": [{\"name\": \"w\", \"filename\": \"m.py\", \"line\": 9}]},"
        " {\"size\": 600, \"state\": \"inactive\"}]}],"
        " \"device_traces\": [[{\"action\": \"alloc\", \"addr\": 700, \"size\": 50, \"stream\": 7, \"time_us\": 1000},"
        " {\"action\": \"free_completed\", \"addr\": 700, \"size\": 50, \"stream\": 7, \"time_us\": 1002}]]}";
    ml_err e;
    ml_profile *p = import_mem(json, sizeof json - 1, &e);
    if (!p) { CHECK_FAILED_("%s", e.msg); return; }
    CHECK_EQ_I64(p->events.ts.len, 2);
    CHECK_EQ_I64(p->events.ts.v[1], 1002000);
    CHECK(p->time_is_absolute);
    CHECK_EQ_I64(p->blocks.v[0].address, 100);   /* no block addresses: back to back from the segment's */
    CHECK_EQ_I64(p->blocks.v[1].address, 500);
    CHECK_EQ_I64(p->segments.v[0].allocated_size, 400);
    CHECK_EQ_STR(ml_s(p, p->segments.v[0].pool_id), "[0, 0]");
    CHECK_EQ_I64(p->allocs.size.len, 2);         /* 700 (freed) and the active block (before trace) */
    ml_profile_free(p);
}

TEST(refuses_non_snapshots_and_code)
{
    ml_err e;
    CHECK(import_mem("\x80\x04K\x05.", 5, &e) == NULL);
    CHECK_CONTAINS(e.msg, "not a PyTorch allocator snapshot");
    CHECK(import_mem("\x80\x02}q\x00U\x01xK\x01s.", 12, &e) == NULL);
    CHECK_CONTAINS(e.msg, "neither \"segments\" nor \"device_traces\"");
    CHECK(import_mem("\x80\x02" "cos\nsystem\n.", 14, &e) == NULL);
    CHECK_CONTAINS(e.msg, "t.pickle: byte 2: opcode 0x63 GLOBAL refused");
    /* an entry dict outside device_traces */
    CHECK(import_mem("\x80\x02}U\x08segments]}U\x06" "actionU\x05" "allocsas.", 34, &e) == NULL);
    CHECK_CONTAINS(e.msg, "outside device_traces");
}

TEST(sniff)
{
    const unsigned char pk[] = "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x08segments";
    CHECK_EQ_I64(ml_snapshot_sniff("x", pk, sizeof pk - 1), 100);
    CHECK_EQ_I64(ml_snapshot_sniff("x", (const unsigned char *)" {\"segments\": []}", 17), 90);
    CHECK_EQ_I64(ml_snapshot_sniff("x", (const unsigned char *)"{\"traceEvents\": []}", 19), 0);
}

int main(void)
{
    RUN(real_snapshots);
    RUN(tiny_without_times);
    RUN(json_snapshot_loads_too);
    RUN(refuses_non_snapshots_and_code);
    RUN(sniff);
    return check_report();
}
