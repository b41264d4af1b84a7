/* test_snapshot.c — the torch-snapshot importer on real snapshots and tiny ones.
 *
 * Expected values for the real files in ../shared/data/snapshot were computed
 * by tests/snapshot_expected.py (a restricted Unpickler and MemoryViz's replay,
 * written independently of memlens). */
#include "check.h"

#include "importer.h"
#include "match.h"
#include "pyvalue.h"
#include "stats.h"

#include <stdio.h>
#include <unistd.h>

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
     324, 13628553216LL, 19352504320LL, 1748729392114839LL, 19352504320LL, 19667091456LL, 19667091456LL, 516, 1276, 86, 62},
    {"cs336_memory_ctx256_fullstep_.pickle", 6769, 5894, 5894, 791, 780,
     326, 13696976896LL, 54824462340LL, 1748732595362881LL, 54619652100LL, 61025026048LL, 61111009280LL, 1021, 1711, 179, 62},
};

static ml_profile *import_file(const char *path, ml_err *e)
{
    ml_source *src;
    if (ml_source_open(path, &src, e) < 0) return NULL;
    ml_profile *p = ml_profile_new(path, "torch-snapshot");
    int rc = ml_snapshot_import(src, p, NULL, e);
    ml_source_close(src);
    if (rc < 0) { ml_profile_free(p); return NULL; }
    return p;
}

static ml_profile *import_mem(const char *bytes, size_t n, ml_err *e)
{
    ml_source *src = ml_source_from_memory("t.pickle", bytes, n);
    ml_profile *p = ml_profile_new("t.pickle", "torch-snapshot");
    int rc = ml_snapshot_import(src, p, NULL, e);
    ml_source_close(src);
    if (rc < 0) { ml_profile_free(p); return NULL; }
    return p;
}

/* The allocs were matched on the event pipe's thread as the file was read
 * (evpipe.h): ml_match() over the stored events gives the same rows (those
 * before the blocks allocated before the trace, which come after). */
static void rematch_same(ml_profile *p)
{
    CHECK(p->allocs_matched);
    ml_allocs *a = &p->allocs;
    size_t k = 0;
    while (k < a->ev_alloc.len && !(a->ev_alloc.v[k] == ML_NONE32 && a->ev_free.v[k] == ML_NONE32)) k++;
    CHECK(k > 0);
    int64_t *t = malloc((k + 1) * 3 * sizeof *t);
    uint32_t *ev = malloc((k + 1) * 2 * sizeof *ev);
    uint8_t *fl = malloc(k + 1);
    for (size_t i = 0; i < k; i++) {
        t[3 * i] = a->t_alloc.v[i]; t[3 * i + 1] = a->t_free.v[i]; t[3 * i + 2] = a->t_free_req.v[i];
        ev[2 * i] = a->ev_alloc.v[i]; ev[2 * i + 1] = a->ev_free.v[i];
        fl[i] = a->flags.v[i];
    }
    ml_match(p, NULL);
    CHECK(!p->allocs_matched);
    CHECK_EQ_I64(a->t_alloc.len, k);
    for (size_t i = 0; i < k && i < a->t_alloc.len; i++) {
        if (t[3 * i] != a->t_alloc.v[i] || t[3 * i + 1] != a->t_free.v[i] || t[3 * i + 2] != a->t_free_req.v[i] ||
            ev[2 * i] != a->ev_alloc.v[i] || ev[2 * i + 1] != a->ev_free.v[i] || fl[i] != a->flags.v[i]) {
            CHECK_FAILED_("alloc %zu differs from ml_match()'s", i);
            break;
        }
    }
    free(t);
    free(ev);
    free(fl);
}

/* Whether ../shared/data/snapshot holds the real snapshots (the first one). */
static bool real_snapshots_present(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/snapshot/%s", check_data_dir(), real[0].file);
    FILE *f = fopen(path, "rb");
    bool present = f != NULL;
    if (f) fclose(f);
    return present;
}

TEST(real_snapshots)
{
    char path[1024];
    if (!real_snapshots_present()) SKIP("../shared/data/snapshot is absent");
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
        /* What `summary` reports (stats.h): the replayed peak, its time, reserved. */
        ml_device_stats st;
        ml_device_stats_compute(p, 0, ML_BY_FRAME, &st);
        CHECK(st.peak_allocated.found && st.allocated_replayed);
        CHECK_EQ_I64(st.peak_allocated.value, x->peak);
        CHECK_EQ_I64(st.peak_allocated.at.ts, x->peak_time_us * 1000);
        CHECK_EQ_I64(st.peak_reserved.value, x->peak_reserved);
        CHECK_EQ_I64(st.reserved_end, x->reserved_end);
        CHECK_EQ_I64(st.alloc_events, x->alloc);
        CHECK_EQ_I64(st.free_events, x->free_completed);
        CHECK_EQ_I64(st.oom_events, 0);
        /* the live set at the peak adds up to the peak, memory from before the trace included */
        int64_t at_peak = st.at_peak.before_bytes;
        for (size_t i = 0; i < st.at_peak.n; i++) at_peak += st.at_peak.groups[i].bytes;
        CHECK_EQ_I64(at_peak, x->peak);
        CHECK_EQ_I64(st.at_peak.before_bytes, x->before);
        ml_device_stats_free(&st);
        ml_curve cv;
        CHECK(ml_curve_get(p, 0, ML_SERIES_ALLOCATED, &cv));
        CHECK_EQ_I64(cv.value[cv.n - 1], x->live_end);
        ml_curve_free(&cv);

        /* Reserved: the device's overall RESERVED series, replayed back from the final segments. */
        const ml_series *res = NULL;
        for (size_t i = 0; i < p->series.len; i++)
            if (p->series.v[i].kind == ML_SERIES_RESERVED && p->series.v[i].component == 0 &&
                p->series.v[i].stream == 0) res = &p->series.v[i];
        CHECK(res != NULL);
        if (res)
            for (size_t i = 1; i < res->ts.len; i++) CHECK(res->ts.v[i] >= res->ts.v[i - 1]);

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
        rematch_same(p);
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
            CHECK_EQ_I64(p->allocs.size.v[i], 500);   /* its requested size, as MemoryViz counts it */
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

/* MemoryViz's replay on two devices (values worked out by hand, and by
 * memoryviz_allocated() in tests/snapshot_expected.py):
 *   cuda:0  before the trace: block 0x1000 (active_allocated, requested 1000)
 *           + the free of 0x9000 (300) = 1300; block 0x1400 is pending free
 *           (not counted), block 0x1600 is the trace's own alloc.  Then
 *           +500 (1800), -300 (1500), +700 (2200, the peak at 120 us), -700.
 *           Reserved: 4096 throughout.  One OOM with 12345 bytes free.
 *   cuda:1  an expandable segment: map 4096, map 8192, unmap 4096 from 0
 *           (final 8192): peak 12288 at 210 us.  No allocs or frees: the
 *           allocated curve is the block from before the trace, 8000.  One
 *           OOM without device_free. */
static const char two_devices[] =
    "{\"segments\": ["
    " {\"device\": 0, \"address\": 4096, \"total_size\": 4096, \"stream\": 0, \"blocks\": ["
    "  {\"size\": 1024, \"requested_size\": 1000, \"state\": \"active_allocated\","
    "   \"frames\": [{\"name\": \"load\", \"filename\": \"w.py\", \"line\": 7}]},"
    "  {\"size\": 512, \"requested_size\": 512, \"state\": \"active_pending_free\"},"
    "  {\"size\": 512, \"requested_size\": 500, \"state\": \"active_allocated\"},"
    "  {\"size\": 2048, \"requested_size\": 2048, \"state\": \"inactive\"}]},"
    " {\"device\": 1, \"address\": 1048576, \"total_size\": 8192, \"stream\": 0, \"is_expandable\": true,"
    "  \"blocks\": [{\"size\": 8192, \"requested_size\": 8000, \"state\": \"active_allocated\"}]}],"
    " \"device_traces\": [["
    "  {\"action\": \"alloc\", \"addr\": 5632, \"size\": 500, \"stream\": 0, \"time_us\": 100},"
    "  {\"action\": \"free_completed\", \"addr\": 36864, \"size\": 300, \"stream\": 0, \"time_us\": 110},"
    "  {\"action\": \"alloc\", \"addr\": 8192, \"size\": 700, \"stream\": 0, \"time_us\": 120},"
    "  {\"action\": \"free_requested\", \"addr\": 8192, \"size\": 700, \"stream\": 0, \"time_us\": 130},"
    "  {\"action\": \"free_completed\", \"addr\": 8192, \"size\": 700, \"stream\": 0, \"time_us\": 140},"
    "  {\"action\": \"oom\", \"size\": 1073741824, \"device_free\": 12345, \"stream\": 0, \"time_us\": 150}],"
    " [{\"action\": \"segment_map\", \"addr\": 1048576, \"size\": 4096, \"stream\": 0, \"time_us\": 200},"
    "  {\"action\": \"segment_map\", \"addr\": 1052672, \"size\": 8192, \"stream\": 0, \"time_us\": 210},"
    "  {\"action\": \"segment_unmap\", \"addr\": 1056768, \"size\": 4096, \"stream\": 0, \"time_us\": 220},"
    "  {\"action\": \"oom\", \"size\": 5000, \"stream\": 0, \"time_us\": 230}]]}";

TEST(memoryviz_replay_two_devices)
{
    ml_err e;
    ml_profile *p = import_mem(two_devices, sizeof two_devices - 1, &e);
    if (!p) { CHECK_FAILED_("%s", e.msg); return; }
    CHECK_EQ_I64(p->devices.len, 2);
    ml_device_stats st;
    ml_device_stats_compute(p, ml_device_find(p, "cuda:0"), ML_BY_FRAME, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 2200);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 120000);
    CHECK_EQ_I64(st.at_peak.before_bytes, 1000);  /* the free of 0x9000 came before the peak */
    CHECK_EQ_I64(st.at_peak.before_count, 1);
    CHECK_EQ_I64(st.peak_reserved.value, 4096);
    CHECK_EQ_I64(st.reserved_end, 4096);
    CHECK_EQ_I64(st.oom_events, 1);
    CHECK_EQ_I64(st.ooms[0].ts, 150000);
    CHECK_EQ_I64(st.ooms[0].requested, 1073741824);
    CHECK_EQ_I64(st.ooms[0].device_free, 12345);
    ml_device_stats_free(&st);
    ml_device_stats_compute(p, ml_device_find(p, "cuda:1"), ML_BY_FRAME, &st);
    CHECK(st.peak_allocated.found);
    CHECK_EQ_I64(st.peak_allocated.value, 8000);
    CHECK_EQ_I64(st.peak_reserved.value, 12288);
    CHECK_EQ_I64(st.peak_reserved.at.ts, 210000);
    CHECK_EQ_I64(st.reserved_end, 8192);
    CHECK_EQ_I64(st.oom_events, 1);
    CHECK_EQ_I64(st.ooms[0].device_free, -1);
    ml_device_stats_free(&st);
    int pending_note = 0;
    for (size_t i = 0; i < p->notes.len; i++)
        if (strstr(ml_s(p, p->notes.v[i]), "1 block (512 B) at the end freed but waiting for their streams"))
            pending_note = 1;
    CHECK(pending_note);
    ml_profile_free(p);
}

/* An early snapshot: no time_us, "free" rather than free_requested/free_completed,
 * blocks with their frames and size in "history" (the latest first). */
TEST(old_format_history_and_event_order)
{
    static const char json[] =
        "{\"segments\": [{\"device\": 0, \"address\": 0, \"total_size\": 2048, \"blocks\": ["
        " {\"size\": 1024, \"state\": \"active_allocated\", \"history\": [{\"addr\": 0, \"real_size\": 900,"
        "   \"frames\": [{\"name\": \"h\", \"filename\": \"old.py\", \"line\": 5}]},"
        "   {\"addr\": 0, \"real_size\": 10, \"frames\": []}]},"
        " {\"size\": 1024, \"state\": \"inactive\"}]}],"
        " \"device_traces\": [[{\"action\": \"alloc\", \"addr\": 4096, \"size\": 100},"
        " {\"action\": \"free\", \"addr\": 4096, \"size\": 100}, {\"action\": \"free\", \"addr\": 8192, \"size\": 50}]]}";
    ml_err e;
    ml_profile *p = import_mem(json, sizeof json - 1, &e);
    if (!p) { CHECK_FAILED_("%s", e.msg); return; }
    CHECK(p->time_is_event_order);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_FRAME, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 1050);  /* 900 + 50 before the trace, + 100 */
    CHECK_EQ_I64(st.peak_allocated.at.ts, 0);     /* entry #0 */
    CHECK_EQ_I64(st.free_events, 2);
    ml_device_stats_free(&st);
    CHECK_EQ_I64(p->blocks.v[0].requested_size, 900);
    uint32_t s = p->blocks.v[0].stack;
    CHECK_EQ_I64(ml_stack_depth(p, s), 1);
    if (ml_stack_depth(p, s) == 1) CHECK_EQ_STR(ml_s(p, p->frames.v[ml_stack_frames(p, s)[0]].name), "h");
    ml_profile_free(p);
}

/* The allocator-settings note is the settings' Python repr, a frame list shared
 * with a trace entry (converted to a stack by then) and a 1-tuple included:
 * pickle.dumps({'segments': [], 'device_traces': [[{'action': 'alloc', 'addr': 1, 'size': 2,
 *   'frames': F}]], 'allocator_settings': {'pool': (1,), 'F': F, 'frac': 0.5}}, 2)
 * with F = [{'name': 'f', 'filename': 'a.py', 'line': 3}], written by CPython. */
TEST(settings_note_as_python_prints_it)
{
    static const char pk[] =
        "\200\002}q\000(X\010\000\000\000segmentsq\001]q\002X\015\000\000\000device_tracesq\003]q\004]q\005}q\006("
        "X\006\000\000\000actionq\007X\005\000\000\000allocq\010X\004\000\000\000addrq\011K\001X\004\000\000\000sizeq"
        "\012K\002X\006\000\000\000framesq\013]q\014}q\015(X\004\000\000\000nameq\016X\001\000\000\000fq\017X\010\000"
        "\000\000filenameq\020X\004\000\000\000a.pyq\021X\004\000\000\000lineq\022K\003uauaaX\022\000\000\000allocator_"
        "settingsq\023}q\024(X\004\000\000\000poolq\025K\001\205q\026X\001\000\000\000Fq\027h\014X\004\000\000\000fracq"
        "\030G\077\340\000\000\000\000\000\000uu.";
    ml_err e;
    ml_profile *p = import_mem(pk, sizeof pk - 1, &e);
    if (!p) { CHECK_FAILED_("%s", e.msg); return; }
    int found = 0;
    for (size_t i = 0; i < p->notes.len; i++)
        if (!strcmp(ml_s(p, p->notes.v[i]), "allocator settings: {'pool': (1,), 'F': [{'name': 'f', 'filename': "
                                             "'a.py', 'line': 3}], 'frac': 0.5}"))
            found = 1;
    CHECK(found);
    if (!found)
        for (size_t i = 0; i < p->notes.len; i++) printf("note: %s\n", ml_s(p, p->notes.v[i]));
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

/* Memo bombs: segments=[seg]*N with blocks=[blk]*M is a few bytes of pickle
 * that expand to N*M blocks.  Segments, blocks and trace entries are never
 * shared in a real snapshot: each shared one is refused (exit 2), at the byte
 * of the second reference where the reader sees it (these are one-segment
 * miniatures of the bomb; their bytes were checked with Python's pickle). */
TEST(refuses_shared_segments_and_blocks)
{
    static const struct { const char *what, *bytes; size_t n; const char *msg; } bombs[] = {
        {"a block dict twice in its list",
         "\200\002}(U\010segments](}(U\006blocks](}q\001(U\005stateU\020active_allocatedU\004sizeK\020uh\001eueU"
         "\015device_traces]u.", 89,
         "t.pickle: byte 66: a segment, block or trace entry dict referenced a second time"},
        {"one blocks list in two segments",
         "\200\002}(U\010segments](}(U\006blocks](}q\001(U\005stateU\020active_allocatedU\004sizeK\020ueq\002u}("
         "U\006blocksh\002ueU\015device_traces]u.", 102,
         "t.pickle: byte 80: a list of segments, blocks or trace entries referenced a second time"},
        {"a segment dict twice",
         "\200\002}(U\010segments](}q\003(U\006blocks](}q\001(U\005stateU\020active_allocatedU\004sizeK\020ueuh"
         "\003eU\015device_traces]u.", 91,
         "t.pickle: byte 70: a segment, block or trace entry dict referenced a second time"},
        /* a shared blocks list whose first items are not blocks: read_segments() refuses it */
        {"a blocks list the reader let through",
         "\200\002}(U\010segments](}(U\006blocks](K\001K\002K\003K\004}q\001(U\005stateU\020active_allocatedU\004sizeK"
         "\020ueq\002u}(U\006blocksh\002ueU\015device_traces]u.", 110,
         "t.pickle: the blocks list of segment 1 was read before (shared through the pickle memo)"},
        {"a trace entry twice",
         "\200\002}(U\010segments](eU\015device_traces](](}q\005(U\006actionU\005allocU\004addrK\001U\004sizeK\002uh"
         "\005eeu.", 78,
         "t.pickle: byte 72: memo 5 names a value already streamed into the profile"},
    };
    for (size_t i = 0; i < sizeof bombs / sizeof *bombs; i++) {
        ml_err e;
        ml_profile *p = import_mem(bombs[i].bytes, bombs[i].n, &e);
        printf("%s\n", bombs[i].what);
        CHECK(p == NULL);
        if (p) { ml_profile_free(p); continue; }
        CHECK_CONTAINS(e.msg, bombs[i].msg);
    }
}

TEST(sniff)
{
    const unsigned char pk[] = "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x08segments";
    CHECK_EQ_I64(ml_snapshot_sniff("x", pk, sizeof pk - 1), 100);
    CHECK_EQ_I64(ml_snapshot_sniff("x", (const unsigned char *)" {\"segments\": []}", 17), 90);
    CHECK_EQ_I64(ml_snapshot_sniff("x", (const unsigned char *)"{\"traceEvents\": []}", 19), 0);
}

/* Lean storage (profile.h, the plain summary's needs.lean): the columns it
 * keeps are those of a full import; the others are empty, allocs' addr holds
 * those never freed; an input out of time order asks to be read again. */
static ml_profile *import_lean(const char *path, int *rc, ml_err *e)
{
    ml_source *src;
    if (ml_source_open(path, &src, e) < 0) return NULL;
    ml_profile *p = ml_profile_new(path, "torch-snapshot");
    *rc = ml_snapshot_import(src, p, &(ml_keep){.lean = true}, e);
    ml_source_close(src);
    return p;
}

TEST(lean_storage_keeps_what_it_keeps)
{
    char path[1024];
    if (!real_snapshots_present()) SKIP("../shared/data/snapshot is absent");
    for (size_t r = 0; r < sizeof real / sizeof *real; r++) {
        ml_err e = {{0}};
        int rc;
        snprintf(path, sizeof path, "%s/snapshot/%s", check_data_dir(), real[r].file);
        ml_profile *full = import_file(path, &e), *lean = import_lean(path, &rc, &e);
        CHECK(full != NULL);
        CHECK_EQ_I64(rc, 0);
        if (!full || rc != 0) { ml_profile_free(full); ml_profile_free(lean); continue; }
        CHECK(lean->lean && lean->allocs_matched);
        const ml_events *a = &full->events, *b = &lean->events;
        CHECK_EQ_I64(b->ts.len, a->ts.len);
        CHECK_EQ_I64(b->addr.len, 0);
        CHECK_EQ_I64(b->thread.len + b->stack.len + b->stream.len, 0);
        for (size_t i = 0; i < a->ts.len && i < b->ts.len; i++)
            if (a->ts.v[i] != b->ts.v[i] || a->size.v[i] != b->size.v[i] || a->aux.v[i] != b->aux.v[i] ||
                a->device.v[i] != b->device.v[i] || a->kind.v[i] != b->kind.v[i]) {
                CHECK_FAILED_("%s: event %zu differs", real[r].file, i);
                break;
            }
        const ml_allocs *x = &full->allocs, *y = &lean->allocs;
        CHECK_EQ_I64(y->t_alloc.len, x->t_alloc.len);
        CHECK_EQ_I64(y->addr.len, x->addr.len);
        CHECK_EQ_I64(y->t_free_req.len + y->thread.len + y->stream.len, 0);
        for (size_t i = 0; i < x->t_alloc.len && i < y->t_alloc.len; i++) {
            bool open = (x->flags.v[i] & ML_ALLOC_NEVER_FREED) != 0;
            if (x->t_alloc.v[i] != y->t_alloc.v[i] || x->t_free.v[i] != y->t_free.v[i] ||
                x->size.v[i] != y->size.v[i] || x->ev_alloc.v[i] != y->ev_alloc.v[i] ||
                x->ev_free.v[i] != y->ev_free.v[i] || x->device.v[i] != y->device.v[i] ||
                x->stack.v[i] != y->stack.v[i] || x->flags.v[i] != y->flags.v[i] || x->op.v[i] != y->op.v[i] ||
                x->category.v[i] != y->category.v[i] || y->addr.v[i] != (open ? x->addr.v[i] : 0)) {
                CHECK_FAILED_("%s: alloc %zu differs", real[r].file, i);
                break;
            }
        }
        ml_device_stats s1, s2;
        ml_device_stats_compute(full, 0, ML_BY_FRAME, &s1);
        ml_device_stats_compute(lean, 0, ML_BY_FRAME, &s2);
        CHECK_EQ_I64(s2.peak_allocated.value, s1.peak_allocated.value);
        CHECK_EQ_I64(s2.peak_allocated.at.ts, s1.peak_allocated.at.ts);
        CHECK_EQ_I64(s2.never_freed_bytes, s1.never_freed_bytes);
        CHECK_EQ_I64(s2.at_peak.before_bytes, s1.at_peak.before_bytes);
        ml_device_stats_free(&s1);
        ml_device_stats_free(&s2);
        ml_profile_free(full);
        ml_profile_free(lean);
    }
}

TEST(lean_storage_out_of_order_reads_again)
{
    /* two devices' lists, the second starting before the first ends: the
     * importer gives up (ML_IMPORT_AGAIN), and the loader reads it again */
    char dir[] = "/tmp/ml_lean_XXXXXX", path[64];
    if (!mkdtemp(dir)) { CHECK_FAILED_("mkdtemp"); return; }
    snprintf(path, sizeof path, "%s/two.pickle", dir);
    FILE *f = fopen(path, "wb");
    if (!f) { CHECK_FAILED_("fopen"); return; }
    static const char text[] =
        "{\"segments\": [], \"device_traces\": ["
        " [{\"action\": \"alloc\", \"addr\": 4096, \"size\": 100, \"time_us\": 10},"
        "  {\"action\": \"free_completed\", \"addr\": 4096, \"size\": 100, \"time_us\": 30}],"
        " [{\"action\": \"alloc\", \"addr\": 8192, \"size\": 200, \"time_us\": 20}]]}";
    fwrite(text, 1, sizeof text - 1, f);
    fclose(f);
    ml_err e = {{0}};
    int rc;
    ml_profile *p = import_lean(path, &rc, &e);
    CHECK_EQ_I64(rc, ML_IMPORT_AGAIN);
    CHECK_EQ_STR(e.msg, "");
    ml_profile_free(p);
    /* in order, but an annotation without a time: the events get numbered, then matched */
    char path2[80];
    snprintf(path2, sizeof path2, "%s/ann.json", dir);
    static const char ann[] =
        "{\"segments\": [], \"device_traces\": [[{\"action\": \"alloc\", \"addr\": 4096, \"size\": 100, "
        "\"time_us\": 10}]], \"external_annotations\": [{\"stage\": \"START\", \"name\": \"x\", \"device\": 0}]}";
    f = fopen(path2, "wb");
    if (f) {
        fwrite(ann, 1, sizeof ann - 1, f);
        fclose(f);
        p = import_lean(path2, &rc, &e);
        CHECK_EQ_I64(rc, ML_IMPORT_AGAIN);
        ml_profile_free(p);
        ml_profiles ps = {.needs = {.lean = true, .no_categories = true}};
        CHECK_EQ_I64(ml_load(path2, &ps, &e), 0);
        CHECK(ps.items.len == 1 && ps.items.v[0]->time_is_event_order && ps.items.v[0]->allocs.t_alloc.len == 1);
        ml_profiles_free(&ps);
        remove(path2);
    }
    ml_profiles lean = {.needs = {.lean = true, .no_categories = true}}, full = {.needs = {.no_categories = true}};
    CHECK_EQ_I64(ml_load(path, &lean, &e), 0);
    CHECK_EQ_I64(ml_load(path, &full, &e), 0);
    if (lean.items.len == 1 && full.items.len == 1) {
        ml_profile *a = full.items.v[0], *b = lean.items.v[0];
        CHECK(!b->lean);
        CHECK_EQ_I64(b->events.addr.len, a->events.addr.len);
        CHECK_EQ_I64(b->allocs.t_alloc.len, a->allocs.t_alloc.len);
        CHECK_EQ_I64(b->notes.len, a->notes.len);
        CHECK_EQ_I64(b->allocs.t_alloc.len, 2);
        CHECK_EQ_I64(b->allocs.t_free.v[0], 30000);
        CHECK(b->allocs.flags.v[1] & ML_ALLOC_NEVER_FREED);
    } else {
        CHECK_FAILED_("loaded %zu and %zu profiles", lean.items.len, full.items.len);
    }
    ml_profiles_free(&lean);
    ml_profiles_free(&full);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    RUN(real_snapshots);
    RUN(tiny_without_times);
    RUN(json_snapshot_loads_too);
    RUN(memoryviz_replay_two_devices);
    RUN(old_format_history_and_event_order);
    RUN(settings_note_as_python_prints_it);
    RUN(refuses_non_snapshots_and_code);
    RUN(refuses_shared_segments_and_blocks);
    RUN(sniff);
    RUN(lean_storage_keeps_what_it_keeps);
    RUN(lean_storage_out_of_order_reads_again);
    return check_report();
}
