/* Kineto import, alloc/free matching, attribution and the summary figures:
 * small hand-written traces for each rule, then the real traces in ../shared/data. */
#include "check.h"
#include "attribute.h"
#include "curve.h"
#include "decimal.h"
#include "importer.h"
#include "stats.h"

#include <math.h>
#include <unistd.h>

static ml_err err;

static ml_profile *import_str(const char *json)
{
    ml_source *src = ml_source_from_memory("t.json", json, strlen(json));
    ml_profile *p = ml_profile_new("t.json", "kineto");
    err.msg[0] = 0;
    int rc = ml_kineto_import(src, p, NULL, &err);
    ml_source_close(src);
    if (rc < 0) {
        ml_profile_free(p);
        return NULL;
    }
    ml_attribute(p);
    return p;
}

/* json (len bytes) imported with its time side, keeping what keep says (NULL:
 * all); *rc: the import's result.  The caller frees the profile. */
static ml_profile *import_trace(const char *json, size_t len, const ml_keep *keep, int *rc)
{
    ml_source *src = ml_source_from_memory("t.json", json, len);
    ml_profile *p = ml_profile_new("t.json", "kineto");
    p->trace = ml_trace_new();
    *rc = ml_kineto_import(src, p, keep, &err);
    ml_source_close(src);
    return p;
}

#define MEM(ts, tid, addr, bytes, total) \
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" #tid \
    ",\"ts\":" #ts ",\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":" #addr ",\"Bytes\":" #bytes \
    ",\"Total Allocated\":" #total ",\"Total Reserved\":4096}}"
#define OP(ts, dur, tid, name) \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur "}"

/* Two steps of a toy model: linear (with an inner aten::empty) allocates 100 and 200 bytes,
 * one free without an alloc (memory from before the trace), one allocation never freed. */
static const char *toy =
    "{\"traceEvents\":["
    OP(10, 50, 7, "aten::linear") ","
    OP(12, 5, 7, "aten::empty") ","
    MEM(13, 7, 1000, 100, 1100) ","
    MEM(20, 7, 2000, 200, 1300) ","
    OP(100, 20, 8, "autograd::engine::evaluate_function: AddmmBackward0") ","
    MEM(105, 8, 3000, 50, 1350) ","
    MEM(110, 8, 1000, -100, 1250) ","
    MEM(115, 8, 9000, -1000, 250) ","
    MEM(130, 7, 3000, -50, 200)
    "], \"baseTimeNanoseconds\": 1700000000000000000,"
    " \"distributedInfo\": {\"rank\": 3, \"world_size\": 8},"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"Toy GPU\", \"totalGlobalMem\": 8589934592}]}";

TEST(toy_trace_counts_matching_and_peak)
{
    ml_profile *p = import_str(toy);
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(p->rank, 3);
    CHECK_EQ_I64(p->world_size, 8);
    CHECK(p->time_is_absolute);
    CHECK_EQ_I64(p->devices.len, 1);
    CHECK_EQ_STR(p->devices.v[0].id, "cuda:0");
    CHECK_EQ_STR(ml_s(p, p->devices.v[0].name), "Toy GPU");
    CHECK_EQ_I64(p->devices.v[0].total_memory, 8589934592LL);

    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_TOPLEVEL, &st);
    CHECK_EQ_I64(st.alloc_events, 3);
    CHECK_EQ_I64(st.free_events, 3);
    CHECK_EQ_I64(st.unmatched_frees, 1);
    CHECK_EQ_I64(st.never_freed, 1);
    CHECK_EQ_I64(st.never_freed_bytes, 200);
    CHECK_EQ_I64(st.peak_allocated.value, 1350);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 1700000000000000000LL + 105000);
    CHECK_EQ_I64(st.peak_reserved.value, 4096);
    /* live at the peak: 100 + 200 (aten::linear) + 50 (backward); the rest of 1350 predates the trace */
    CHECK_EQ_I64(st.at_peak.traced_bytes, 350);
    CHECK_EQ_I64(st.at_peak.before_bytes, 1000);
    CHECK_EQ_I64(st.at_peak.n, 2);
    if (st.at_peak.n == 2) {
        CHECK_EQ_STR(st.at_peak.groups[0].label, "aten::linear");
        CHECK_EQ_I64(st.at_peak.groups[0].bytes, 300);
        CHECK_EQ_I64(st.at_peak.groups[0].count, 2);
        CHECK_EQ_STR(st.at_peak.groups[1].label, "autograd::engine::evaluate_function: AddmmBackward0");
    }
    ml_device_stats_free(&st);

    ml_device_stats_compute(p, 0, ML_BY_INNERMOST, &st);
    CHECK_EQ_I64(st.at_peak.n, 3);
    if (st.at_peak.n == 3) {
        CHECK_EQ_STR(st.at_peak.groups[0].label, "aten::linear"); /* 200 bytes at ts 20 are outside aten::empty */
        CHECK_EQ_I64(st.at_peak.groups[0].bytes, 200);
        CHECK_EQ_STR(st.at_peak.groups[1].label, "aten::empty");
    }
    ml_device_stats_free(&st);
    ml_profile_free(p);
}

TEST(equal_timestamps_keep_file_order_for_the_peak)
{
    /* Three events at the same ts: the peak is the first that reaches 300, at the 2nd event. */
    ml_profile *p = import_str("[" MEM(5, 1, 1, 100, 100) "," MEM(5, 1, 2, 200, 300) "," MEM(5, 1, 1, -100, 200) ","
                               MEM(6, 1, 3, 100, 300) "]");
    CHECK(p != NULL);
    if (!p) return;
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_TOPLEVEL, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 300);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 5000);
    CHECK_EQ_I64(st.peak_allocated.at.event, 1);
    CHECK_EQ_I64(st.at_peak.traced_bytes, 300); /* addr 1 is still live after event 1 */
    CHECK(!p->time_is_absolute);
    ml_device_stats_free(&st);
    ml_profile_free(p);
}

TEST(string_ids_string_ts_and_key_order)
{
    /* Old traces write tid as a string in ops and as a number in memory events. */
    ml_profile *p = import_str(
        "[{\"args\":{\"Bytes\":64,\"Addr\":5,\"Device Id\":0,\"Device Type\":1},\"ts\":\"1623142623460111.250\","
        "\"tid\":42,\"pid\":\"7\",\"name\":\"[memory]\",\"ph\":\"i\"},"
        "{\"name\":\"aten::zeros\",\"ph\":\"X\",\"cat\":\"Operator\",\"pid\":7,\"tid\":\"42\","
        "\"ts\":1623142623460110,\"dur\":5}]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(p->events.ts.v[0], 1623142623460111250LL);
    CHECK(p->time_is_absolute);
    CHECK_EQ_I64(p->thread_pid.len, 1);
    CHECK_EQ_STR(ml_s(p, p->allocs.op_top.v[0]), "aten::zeros");
    ml_profile_free(p);
}

TEST(old_format_without_addr_or_totals)
{
    ml_profile *p = import_str(
        "[{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Bytes\":16}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":2,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Bytes\":32}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Bytes\":-16}}]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_STR(p->devices.v[0].id, "cpu");
    CHECK(!p->has_addresses);
    CHECK_EQ_I64(ml_allocs_count(p), 0);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_TOPLEVEL, &st);
    CHECK(st.allocated_replayed);
    CHECK(!st.matched);
    CHECK_EQ_I64(st.peak_allocated.value, 48);
    CHECK(!st.peak_reserved.found);
    bool noted = false;
    for (size_t i = 0; i < p->notes.len; i++) noted |= strstr(ml_s(p, p->notes.v[i]), "no addresses") != NULL;
    CHECK(noted);
    ml_device_stats_free(&st);
    ml_profile_free(p);
}

TEST(python_stacks_and_oom)
{
    ml_profile *p = import_str(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"train.py(10): main\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"torch/nn/modules/linear.py(114): forward\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":10},"
        MEM(7, 1, 8, 512, 512) ","
        "{\"ph\":\"i\",\"name\":\"[OutOfMemory]\",\"pid\":1,\"tid\":1,\"ts\":9,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":1073741824,\"Total Allocated\":512,\"Total Reserved\":4096}}"
        "],}");
    CHECK(p != NULL);
    if (!p) return;
    uint32_t stack = p->allocs.stack.v[0];
    CHECK_EQ_I64(ml_stack_depth(p, stack), 2);
    const ml_frame *inner = &p->frames.v[ml_stack_frames(p, stack)[0]];
    CHECK_EQ_STR(ml_s(p, inner->name), "forward");
    CHECK_EQ_STR(ml_s(p, inner->file), "torch/nn/modules/linear.py");
    CHECK_EQ_I64(inner->line, 114);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_FRAME, &st);
    CHECK_EQ_I64(st.oom_events, 1);
    CHECK_EQ_STR(st.at_peak.groups[0].label, "main (train.py:10)"); /* the first frame outside torch */
    ml_device_stats_free(&st);
    ml_device_stats_compute(p, 0, ML_BY_SIZE, &st);
    CHECK_EQ_STR(st.at_peak.groups[0].label, "[512 B, 1 KiB)");
    ml_device_stats_free(&st);
    ml_profile_free(p);
}

TEST(truncated_trace_keeps_complete_events)
{
    ml_profile *p = import_str("{\"traceEvents\":[" MEM(1, 1, 1, 10, 10) "," MEM(2, 1, 2, 20, 30) ",");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(p->events.ts.len, 2);
    CHECK(p->notes.len >= 1);
    ml_profile_free(p);
}

TEST(file_cut_inside_device_properties_is_an_error)
{
    /* Only the event list may end early: a file cut anywhere else is truncated. */
    CHECK(import_str("{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"G\"},") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 59: the file ends where a value is due (truncated?)");
    CHECK(import_str("{\"traceEvents\":[" MEM(1, 1, 1, 10, 10) "], \"deviceProperties\": [{\"id\": 0") == NULL);
    CHECK_CONTAINS(err.msg, "the file ends inside an object (truncated?)");
    /* right after the event list (the final '}' missing): every event read, and a note */
    ml_profile *p = import_str("{\"traceEvents\":[" MEM(1, 1, 1, 10, 10) "," MEM(2, 1, 2, 20, 30) "]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(p->events.ts.len, 2);
    bool noted = false;
    for (size_t i = 0; i < p->notes.len; i++) noted |= strstr(ml_s(p, p->notes.v[i]), "without its closing") != NULL;
    CHECK(noted);
    ml_profile_free(p);
}

static bool has_note(const ml_profile *p, const char *text)
{
    for (size_t i = 0; i < p->notes.len; i++)
        if (strstr(ml_s(p, p->notes.v[i]), text)) return true;
    return false;
}

/* torch 2.13 writes "profile_memory": 1 in the header when memory profiling
 * is on (absent when off); a window that allocated nothing then has no
 * [memory] event, and the advice to turn it on would be wrong. */
TEST(no_memory_events_with_memory_profiling_on_says_so)
{
    static const char op[] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add_\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}";
    char json[512];
    snprintf(json, sizeof json, "{\"schemaVersion\":1,\"profile_memory\":1,\"traceEvents\":[%s]}", op);
    ml_profile *p = import_str(json);
    CHECK(p != NULL);
    if (!p) return;
    CHECK(has_note(p, "memory profiling was on (\"profile_memory\": 1 in the trace's header) but recorded no allocations"));
    CHECK(!has_note(p, "record it with torch.profiler.profile(profile_memory=True)"));
    ml_profile_free(p);
    /* off (absent, or 0): the advice stands */
    const char *off[] = {"{\"schemaVersion\":1,\"traceEvents\":[%s]}", "{\"profile_memory\":0,\"traceEvents\":[%s]}",
                         "{\"traceEvents\":[%s],\"profile_memory\":\"no\"}"};
    for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
        snprintf(json, sizeof json, off[i], op);
        p = import_str(json);
        CHECK(p != NULL);
        if (!p) return;
        CHECK(has_note(p, "the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)"));
        CHECK(!has_note(p, "memory profiling was on"));
        ml_profile_free(p);
    }
}

/* torch 2.13's CPU Total Allocated is one per-process count that moves only
 * while a profiler records: a second recording window starts where the first
 * left it (tests/py/torch_fixtures.py writes such a trace: mlp_adam/trace2). */
#define CPUMEM(ts, addr, bytes, total) \
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":" #addr ",\"Bytes\":" #bytes \
    ",\"Total Allocated\":" #total ",\"Total Reserved\":0}}"
TEST(cpu_total_carried_from_an_earlier_recording_window_is_noted)
{
    ml_profile *p = import_str("[" CPUMEM(1, 100, 64, 144744) "," CPUMEM(2, 100, -64, 144680) "]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(has_note(p, "cpu: Total Allocated is already 144680 B at the first memory event"));
    ml_profile_free(p);
    /* a first window starts at zero: nothing to say (a free first: 64 before it) */
    p = import_str("[" CPUMEM(1, 100, 64, 64) "," CPUMEM(2, 100, -64, 0) "]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(!has_note(p, "cpu: Total Allocated is already"));
    ml_profile_free(p);
    p = import_str("[" CPUMEM(1, 100, -64, 0) "]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(has_note(p, "cpu: Total Allocated is already 64 B"));
    ml_profile_free(p);
}

/* The op named `name` (ts and dur in ns), or -1. */
static int find_op(const ml_profile *p, const char *name, int64_t *ts, int64_t *dur)
{
    for (size_t i = 0; i < p->ops.ts.len; i++)
        if (!strcmp(ml_s(p, p->ops.name.v[i]), name)) {
            *ts = p->ops.ts.v[i];
            *dur = p->ops.dur.v[i];
            return (int)i;
        }
    return -1;
}

#define BEGIN(ts, tid, cat, name) \
    "{\"ph\":\"B\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts "}"
#define END_NAMED(ts, tid, cat, name) \
    "{\"ph\":\"E\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts "}"
#define END_BARE(ts, tid) "{\"ph\":\"E\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts "}"

TEST(begin_end_pairs_become_ops)
{
    /* outer [10, 60) with a named E; inner [20, 30) with a bare E; between them on
     * the same thread a B/E of another category, which must close only itself;
     * on thread 2 a B never closed, which lasts to the trace's end (90). */
    ml_profile *p = import_str(
        "[" BEGIN(10, 1, "cpu_op", "aten::linear") "," BEGIN(20, 1, "cpu_op", "aten::empty") ","
        BEGIN(21, 1, "cuda_runtime", "cudaMalloc") "," END_BARE(22, 1) ","
        MEM(25, 1, 100, 64, 64) "," END_BARE(30, 1) "," MEM(35, 1, 200, 32, 96) ","
        END_NAMED(60, 1, "cpu_op", "aten::linear") ","
        BEGIN(70, 2, "user_annotation", "ProfilerStep#3") "," MEM(80, 2, 300, 16, 112) ","
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":85,\"dur\":5}]");
    CHECK(p != NULL);
    if (!p) return;
    int64_t ts, dur;
    CHECK(find_op(p, "aten::linear", &ts, &dur) >= 0);
    CHECK_EQ_I64(ts, 10000);
    CHECK_EQ_I64(dur, 50000);
    CHECK(find_op(p, "aten::empty", &ts, &dur) >= 0);
    CHECK_EQ_I64(ts, 20000);
    CHECK_EQ_I64(dur, 10000);
    CHECK(find_op(p, "cudaMalloc", &ts, &dur) < 0); /* not an op memlens keeps */
    CHECK(find_op(p, "ProfilerStep#3", &ts, &dur) >= 0);
    CHECK_EQ_I64(ts, 70000);
    CHECK_EQ_I64(dur, 20000); /* to the end of the last event: the kernel's 85 + 5 */
    CHECK_EQ_I64(p->ops.ts.len, 3);
    CHECK(has_note(p, "1 operator began (\"ph\": \"B\") without an end (\"E\"): it was closed"));
    /* attribution sees the nesting */
    CHECK_EQ_I64(ml_allocs_count(p), 3);
    CHECK_EQ_STR(ml_s(p, p->allocs.op.v[0]), "aten::empty");
    CHECK_EQ_STR(ml_s(p, p->allocs.op_top.v[0]), "aten::linear");
    CHECK_EQ_STR(ml_s(p, p->allocs.op.v[1]), "aten::linear");
    ml_profile_free(p);
}

TEST(values_that_cannot_be_real_are_refused)
{
    /* |Bytes| >= 2^62 (here -2^63, whose negation does not exist) */
    CHECK(import_str("[{\"name\":\"[memory]\",\"ts\":1,\"args\":{\"Device Type\":1,\"Device Id\":0,"
                     "\"Addr\":1,\"Bytes\":-9223372036854775808}}]") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 1: [memory] event: args \"Bytes\" is out of range");
    CHECK(import_str("[" MEM(1, 1, 1, 4611686018427387904, 1) "]") == NULL);
    CHECK_CONTAINS(err.msg, "byte 1: [memory] event: args \"Bytes\" is out of range");
    CHECK(import_str("[" MEM(1, 1, 1, 8, 4611686018427387904) "]") == NULL);
    CHECK_CONTAINS(err.msg, "args \"Total Allocated\" is out of range");
    /* one below the limit is fine, but two of them add up past it */
    ml_profile *p = import_str("[" MEM(1, 1, 1, 4611686018427387903, 4611686018427387903) "]");
    CHECK(p != NULL);
    ml_profile_free(p);
    const char *two = "[" MEM(1, 1, 1, 4611686018427387903, 1) "," MEM(2, 1, 2, 4611686018427387903, 1) "]";
    CHECK(import_str(two) == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 205: [memory] events: \"Bytes\" add up to 2^62 or more (not a real trace)");
    /* a number too big for int64 where a number is wanted */
    CHECK(import_str("[" MEM(1, 1, 1, 99999999999999999999, 1) "]") == NULL);
    CHECK_CONTAINS(err.msg, "args \"Bytes\" is out of range");
    /* times: ts, dur, and the base added to them */
    CHECK(import_str("[" OP(1e30, 5, 1, "aten::add") "]") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 66: \"ts\" is out of range (a time or size of 2^62 or more cannot be real)");
    CHECK(import_str("[" OP(1, 4611686018427387904, 1, "aten::add") "]") == NULL);
    CHECK_CONTAINS(err.msg, "\"dur\" is out of range");
    CHECK(import_str("{\"traceEvents\":[" OP(4611686018427387, 1, 1, "aten::add") "],"
                     "\"baseTimeNanoseconds\": 4611686018427387903}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 131: \"baseTimeNanoseconds\" puts the trace's times out of range (2^62 ns or more)");
    CHECK(import_str("{\"baseTimeNanoseconds\": 9223372036854775807, \"traceEvents\": []}") == NULL);
    CHECK_CONTAINS(err.msg, "byte 24: \"baseTimeNanoseconds\" is out of range");
    /* device ids must fit an int */
    CHECK(import_str("[{\"name\":\"[memory]\",\"ts\":1,\"args\":{\"Device Type\":1,\"Device Id\":4294967296,"
                     "\"Bytes\":8}}]") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 1: [memory] event: args \"Device Id\" is out of range");
}

#define MEMD(ts, type, id, addr, bytes) \
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"args\":{\"Device Type\":" #type ",\"Device Id\":" #id ",\"Addr\":" #addr ",\"Bytes\":" #bytes "}}"
TEST(device_types_are_named_as_pytorch_does)
{
    ml_profile *p = import_str("[" MEMD(1, 2, 0, 1, 8) "," MEMD(2, 7, 0, 1, 8) "," MEMD(3, 20, 3, 1, 8) ","
                               MEMD(4, 25, 0, 1, 8) "," MEMD(5, 0, -1, 1, 8) "," MEMD(6, 1, 1, 1, 8) ","
                               MEMD(7, 6, 0, 1, 8) "," MEMD(8, 12, 2, 1, 8) "," MEMD(9, 1, 0, 1, 8) "]");
    CHECK(p != NULL);
    if (!p) return;
    const char *want[] = {"mkldnn:0", "fpga:0", "npu:3", "type25:0", "cpu", "cuda:1", "hip:0", "xpu:2", "cuda:0"};
    CHECK_EQ_I64(p->devices.len, 9);
    for (size_t i = 0; i < 9 && i < p->devices.len; i++) CHECK_EQ_STR(p->devices.v[i].id, want[i]);
    /* outputs list them by kind (PyTorch's numbering) and index, cpu last */
    uint16_t order[9];
    const char *sorted[] = {"cuda:0", "cuda:1", "mkldnn:0", "hip:0", "fpga:0", "xpu:2", "npu:3", "type25:0", "cpu"};
    ml_device_order(p, order);
    for (size_t i = 0; i < 9 && i < p->devices.len; i++) CHECK_EQ_STR(p->devices.v[order[i]].id, sorted[i]);
    ml_profile_free(p);
}

TEST(a_second_alloc_at_a_live_address_closes_the_first)
{
    /* addr 5: alloc 100 at 1, alloc 50 at 2 (the free of the first unrecorded), free at 3 */
    ml_profile *p = import_str("[" MEM(1, 1, 5, 100, 100) "," MEM(2, 1, 5, 50, 150) "," MEM(3, 1, 5, -50, 100) "]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(ml_allocs_count(p), 2);
    if (ml_allocs_count(p) == 2) {
        const ml_allocs *a = &p->allocs;
        CHECK_EQ_I64(a->size.v[0], 100);
        CHECK_EQ_I64(a->t_alloc.v[0], 1000);
        CHECK_EQ_I64(a->t_free.v[0], 2000);        /* closed where the address was reused */
        CHECK_EQ_I64(a->ev_free.v[0], ML_NONE32);  /* by no free event */
        CHECK_EQ_I64(a->flags.v[0], 0);
        CHECK_EQ_I64(a->size.v[1], 50);
        CHECK_EQ_I64(a->t_alloc.v[1], 2000);
        CHECK_EQ_I64(a->t_free.v[1], 3000);
        CHECK_EQ_I64(a->ev_free.v[1], 2);
    }
    CHECK(has_note(p, "1 allocation at an address that was still live (its free was not recorded): it was closed"));
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_TOPLEVEL, &st);
    CHECK_EQ_I64(st.unmatched_frees, 0);
    CHECK_EQ_I64(st.never_freed, 0);
    ml_device_stats_free(&st);
    ml_profile_free(p);
}

TEST(a_trace_read_in_tiny_pieces_gives_the_same_profile)
{
    /* every token split across the scanner's refills */
    ml_profile *whole = import_str(toy);
    ml_source *src = ml_source_from_memory("t.json", toy, strlen(toy));
    ml_source_limit_reads(src, 3);
    ml_profile *split = ml_profile_new("t.json", "kineto");
    CHECK_EQ_I64(ml_kineto_import(src, split, NULL, &err), 0);
    ml_source_close(src);
    CHECK(whole != NULL);
    if (whole) {
        CHECK_EQ_I64(split->events.ts.len, whole->events.ts.len);
        for (size_t i = 0; i < whole->events.ts.len && i < split->events.ts.len; i++) {
            CHECK_EQ_I64(split->events.ts.v[i], whole->events.ts.v[i]);
            CHECK_EQ_I64(split->events.size.v[i], whole->events.size.v[i]);
            CHECK_EQ_I64(split->events.addr.v[i], whole->events.addr.v[i]);
        }
        CHECK_EQ_I64(split->ops.ts.len, whole->ops.ts.len);
        CHECK_EQ_I64(split->rank, 3);
        CHECK_EQ_I64(split->devices.v[0].total_memory, 8589934592LL);
    }
    ml_profile_free(whole);
    ml_profile_free(split);
}

TEST(bad_input_errors_name_file_and_byte)
{
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": \"lots\"}}]}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 56: [memory] event: args \"Bytes\" is not a number");
    /* a negative or too large address is a number: the message says what is wrong with it */
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Addr\": -1, \"Bytes\": 8}}]}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 56: [memory] event: args \"Addr\" is negative (an address is unsigned)");
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Addr\": 18446744073709551616, \"Bytes\": 8}}]}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 56: [memory] event: args \"Addr\" is out of range (above 2^64 - 1)");
    ml_profile *top = import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Addr\": 18446744073709551615, \"Bytes\": 8}}]}");
    CHECK(top != NULL);                                  /* the largest address is one */
    if (top && top->events.addr.len) CHECK(top->events.addr.v[0] == UINT64_MAX);
    ml_profile_free(top);
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Addr\": \"0x10\", \"Bytes\": 8}}]}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 56: [memory] event: args \"Addr\" is not a number");
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"args\": {\"Bytes\": 4}}]}") == NULL);
    CHECK_CONTAINS(err.msg, "without a usable \"ts\"");
    CHECK(import_str("{\"traceEvents\": 5}") == NULL);
    CHECK_CONTAINS(err.msg, "\"traceEvents\" is not an array");
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"x\", \"ts\": 1") == NULL);
    CHECK_CONTAINS(err.msg, "t.json: byte 38: the file ends inside an object"); /* 38 = its length */
    /* a bad baseTimeNanoseconds value is a scanner error, and it is reported (found by fuzz_kineto) */
    CHECK(import_str("{\"traceEvents\": [], \"baseTimeNanoseconds\": x}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 43: unexpected character 'x'");
    /* wrong types in args of events that are not memory events are ignored */
    ml_profile *p = import_str("[{\"name\": \"k\", \"ph\": \"X\", \"ts\": 1, \"args\": {\"Bytes\": [1]}}]");
    CHECK(p != NULL);
    ml_profile_free(p);
}

TEST(decimal_parsing_is_exact)
{
    int64_t v;
    CHECK_EQ_I64(ml_parse_scaled("1736408883694624.810", 20, 3, &v), 0);
    CHECK_EQ_I64(v, 1736408883694624810LL);
    CHECK_EQ_I64(ml_parse_scaled("1.5e3", 5, 3, &v), 0);
    CHECK_EQ_I64(v, 1500000);
    CHECK_EQ_I64(ml_parse_scaled("-0.0005", 7, 3, &v), 0);
    CHECK_EQ_I64(v, 0);
    CHECK_EQ_I64(ml_parse_units("1261.04296875", 13, 1048576, &v), 0);
    CHECK_EQ_I64(v, 1322299392LL); /* 1261 MiB + 0.04296875 MiB = 45056 B */
    CHECK_EQ_I64(ml_parse_i64("9223372036854775808", 19, &v), -1);
    CHECK_EQ_I64(ml_parse_i64("-9223372036854775808", 20, &v), 0);
    CHECK_EQ_I64(ml_parse_scaled("abc", 3, 3, &v), -1);
    CHECK_EQ_I64(ml_parse_scaled("99999999999999999999", 20, 3, &v), ML_PARSE_RANGE);
    CHECK_EQ_I64(ml_parse_scaled("-9223372036854775808", 20, 0, &v), 0); /* its negation does not exist */
    CHECK_EQ_I64(v, INT64_MIN);
    CHECK_EQ_I64(ml_parse_scaled("-9223372036854775809", 20, 0, &v), ML_PARSE_RANGE);
    CHECK_EQ_I64(ml_parse_scaled("1e99999", 7, 0, &v), ML_PARSE_RANGE);
    CHECK_EQ_I64(ml_parse_scaled("0e99999", 7, 0, &v), 0);
    CHECK_EQ_I64(v, 0);
}

/* ml_parse_double's table of powers of ten gives what pow(10, k) gives,
 * bit for bit, so that every number it reads keeps its value. */
TEST(powers_of_ten_are_pow_bit_for_bit)
{
    for (int k = -30; k <= 30; k++) {
        double a = ml_pow10(k), b = pow(10.0, k);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    double d;
    CHECK_EQ_I64(ml_parse_double("0.3", 3, &d), 0);
    CHECK(d == 3 * pow(10.0, -1)); /* 0.30000000000000004: the text's digits times 10^-1, as before */
    CHECK_EQ_I64(ml_parse_double("-12.5e-3", 8, &d), 0);
    CHECK(d == -125 * pow(10.0, -4));
    CHECK_EQ_I64(ml_parse_double("1e400", 5, &d), -1);
}

/* Plain text of up to 19 characters takes ml_parse_double's short way: the
 * same value, bit for bit, as the same text with "e0" after it (which goes
 * the whole way), and the same answer for what is no number. */
TEST(plain_doubles_read_as_their_exponent_form)
{
    static const char *const fixed[] = {"0", "-0", "5.", ".5", "0.0", "1234567890123456789", "123456789012345678.9",
                                        "-12345678901234567.8", "0.000000000000000001", "-.0625", "99.99999999999999"};
    static const char *const bad[] = {"", "-", ".", "-.", "1..2", "1.2.3", "--1", "1-", "12a", " 1"};
    uint64_t x = 88172645463325252ull;
    char text[40], exp_form[44];
    for (int k = 0; k < 200000; k++) {
        size_t n;
        if (k < (int)(sizeof fixed / sizeof *fixed)) {
            n = strlen(fixed[k]);
            memcpy(text, fixed[k], n);
        } else { /* random: a sign, 1-18 digits, a point somewhere (or none) */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t digits = 1 + x % 18, point = (x >> 8) % (digits + 2);
            n = 0;
            if ((x >> 16) & 1) text[n++] = '-';
            for (size_t j = 0; j < digits; j++) {
                if (j == point) text[n++] = '.';
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                text[n++] = (char)('0' + x % 10);
            }
            if (point == digits) text[n++] = '.';
        }
        memcpy(exp_form, text, n);
        memcpy(exp_form + n, "e0", 2);
        double a = 1, b = 2;
        int ra = ml_parse_double(text, n, &a), rb = ml_parse_double(exp_form, n + 2, &b);
        CHECK_EQ_I64(ra, rb);
        CHECK(ra < 0 || memcmp(&a, &b, sizeof a) == 0);
    }
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        double d;
        CHECK_EQ_I64(ml_parse_double(bad[k], strlen(bad[k]), &d), -1);
    }
}

/* ---- real traces (../shared/data), expected values from tests/kineto_expected.py ---- */

/* Loads a real file: 1 when loaded, 0 when it is absent (the test skips),
 * -1 when it exists but does not load (the test fails). */
static int load_real(const char *rel, ml_profiles *ps)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", check_data_dir(), rel);
    memset(ps, 0, sizeof *ps);
    if (access(path, R_OK) != 0) return 0;
    if (ml_load(path, ps, &err) < 0) {
        CHECK_FAILED_("load %s: %s", path, err.msg);
        return -1;
    }
    return 1;
}

TEST(real_hta_df_index_resolver)
{
    ml_profiles ps;
    int loaded = load_real("kineto/hta_df_index_resolver.json.gz", &ps);
    if (loaded == 0) SKIP("../shared/data/kineto/hta_df_index_resolver.json.gz not available");
    if (loaded < 0) return;
    ml_profile *p = ps.items.v[0];
    CHECK_EQ_I64(p->rank, 1);
    int cuda = ml_device_find(p, "cuda:1"), cpu = ml_device_find(p, "cpu");
    CHECK(cuda >= 0 && cpu >= 0);
    CHECK_EQ_I64(p->devices.len, 2);
    ml_device_stats st;
    ml_device_stats_compute(p, cuda, ML_BY_TOPLEVEL, &st);
    CHECK_EQ_I64(st.alloc_events, 13385);
    CHECK_EQ_I64(st.free_events, 13385);
    CHECK_EQ_I64(st.unmatched_frees, 0);
    CHECK_EQ_I64(st.never_freed, 0);
    CHECK_EQ_I64(st.peak_allocated.value, 6629508096LL);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 1669783687579130000LL);
    CHECK_EQ_I64(st.peak_reserved.value, 12782141440LL);
    CHECK_EQ_I64(st.at_peak.before_bytes, 4096614400LL);
    CHECK_EQ_STR(st.at_peak.groups[0].label, "CompiledFunction");
    CHECK_EQ_I64(st.at_peak.groups[0].bytes, 1333780480LL);
    CHECK_EQ_I64(st.at_peak.groups[0].count, 317);
    CHECK_EQ_STR(st.at_peak.groups[1].label, "autograd::engine::evaluate_function: CompiledFunctionBackward");
    CHECK_EQ_I64(st.at_peak.groups[1].bytes, 1199112192LL);
    CHECK_EQ_I64(st.at_peak.groups[1].count, 406);
    ml_device_stats_free(&st);
    ml_device_stats_compute(p, cpu, ML_BY_TOPLEVEL, &st);
    CHECK_EQ_I64(st.alloc_events, 620);
    CHECK_EQ_I64(st.peak_allocated.value, 8);
    ml_device_stats_free(&st);
    ml_profiles_free(&ps);
}

TEST(real_old_format_resnet50)
{
    ml_profiles ps;
    int loaded = load_real("kineto/tbplugin_resnet50_w0.pt.trace.json.gz", &ps);
    if (loaded == 0) SKIP("../shared/data/kineto/tbplugin_resnet50_w0.pt.trace.json.gz not available");
    if (loaded < 0) return;
    ml_profile *p = ps.items.v[0];
    int cuda = ml_device_find(p, "cuda:0"), cpu = ml_device_find(p, "cpu");
    CHECK(cuda >= 0 && cpu >= 0);
    ml_device_stats st;
    /* tests/kineto_oldformat_expected.py */
    ml_device_stats_compute(p, cuda, ML_BY_TOPLEVEL, &st);
    CHECK(!st.matched);
    CHECK(st.allocated_replayed);
    CHECK_EQ_I64(st.alloc_events, 4110);
    CHECK_EQ_I64(st.free_events, 4110);
    CHECK_EQ_I64(st.peak_allocated.value, 2791636480LL);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 1623142623582083000LL);
    ml_device_stats_free(&st);
    ml_device_stats_compute(p, cpu, ML_BY_TOPLEVEL, &st);
    CHECK_EQ_I64(st.alloc_events, 2310);
    CHECK_EQ_I64(st.free_events, 2308);
    CHECK_EQ_I64(st.peak_allocated.value, 57803264);
    ml_device_stats_free(&st);
    ml_profiles_free(&ps);
}

TEST(real_traces_without_memory_load_cleanly)
{
    const char *files[] = {"kineto/param_linear_kineto.json.gz", "kineto/hta_amd_mi250.json.gz",
                           "kineto/hta_triton_example.json.gz", "kineto/hta_cpu_only.pt.trace.json.gz"};
    for (size_t i = 0; i < 4; i++) {
        ml_profiles ps;
        int loaded = load_real(files[i], &ps);
        if (loaded == 0) SKIP("../shared/data/kineto not available");
        if (loaded < 0) continue;
        CHECK_EQ_I64(ps.items.v[0]->devices.len, 0);
        CHECK(ps.items.v[0]->ops.ts.len > 0);
        if (i == 2) CHECK(ps.items.v[0]->ops.ts.v[0] > 1727743122000000000LL); /* baseTimeNanoseconds applied */
        if (i == 3) CHECK_EQ_I64(ps.items.v[0]->rank, 34);
        ml_profiles_free(&ps);
    }
}

/* Total Reserved repeats at nearly every memory event; the repeats are
 * dropped once sorted, and that must not change the curve even when the
 * events come out of time order (one thread's events, then another's). */
#define MEMR(ts, tid, addr, bytes, total, reserved) \
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" #tid \
    ",\"ts\":" #ts ",\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":" #addr ",\"Bytes\":" #bytes \
    ",\"Total Allocated\":" #total ",\"Total Reserved\":" #reserved "}}"
TEST(repeated_totals_are_dropped_without_changing_the_curve)
{
    ml_profile *p = import_str("[" MEMR(10, 7, 1, 100, 100, 2048) "," MEMR(30, 7, 2, 100, 200, 2048) ","
                               MEMR(40, 7, 1, -100, 100, 2048) "," MEMR(20, 8, 3, 900, 1000, 4096) ","
                               MEMR(35, 8, 3, -900, 200, 2048) "]");
    CHECK(p != NULL);
    if (!p) return;
    ml_curve r, a;
    CHECK(ml_curve_get(p, 0, ML_SERIES_RESERVED, &r));
    CHECK(ml_curve_get(p, 0, ML_SERIES_ALLOCATED, &a));
    /* reserved in time order: 2048 (10) 4096 (20) 2048 (30) 2048 (35) 2048 (40); in file order
     * 30 repeats 10, yet it is what ends the 4096 from 20 */
    CHECK_EQ_I64(r.n, 3);
    int64_t want_r[][2] = {{10, 2048}, {20, 4096}, {30, 2048}, {35, 2048}, {40, 2048}};
    int64_t want_a[][2] = {{10, 100}, {20, 1000}, {30, 200}, {35, 200}, {40, 100}};
    for (int i = 0; i < 5; i++) {
        ml_instant at = {.ts = want_r[i][0] * 1000, .event = ML_NONE32};
        CHECK_EQ_I64(ml_curve_value_at(&r, at), want_r[i][1]);
        CHECK_EQ_I64(ml_curve_value_at(&a, at), want_a[i][1]);
    }
    /* allocated repeats 200 at 35: one point fewer, the peak's first instant kept */
    CHECK_EQ_I64(a.n, 4);
    ml_peak pk = ml_curve_peak(&r);
    CHECK_EQ_I64(pk.value, 4096);
    CHECK_EQ_I64(pk.at.ts, 20000);
    ml_curve_free(&r);
    ml_curve_free(&a);
    ml_profile_free(p);
}


/* Events as Kineto writes them are read straight from the scanner's buffer
 * (kineto_event.c: fast_event); anything unusual in an event sends the whole event
 * to the token path.  The same events, each made unusual by an escaped first
 * value, must give the same profile, field for field: numbers of every
 * length (the digits are read 8 at a time), times cut at 3 decimals,
 * negative and 19-digit values, ids as text, keys in any order. */
static const char *const fast_events[] = {
    "{%s\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 12, \"tid\": 7,\n"
    "    \"ts\": 1.2345, \"dur\": 123456789.1,\n    \"args\": {\n      \"External id\": 1, \"Ev Idx\": 0, "
    "\"Input Dims\": [[8, 1024], []], \"Input type\": [\"float\", \"\"], \"Concrete Inputs\": [\"\", \"1\"]\n    }\n  }",
    "{%s\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": 12, \"tid\": 7,\n"
    "    \"ts\": 12345678.9,\n    \"args\": {\n      \"Ev Idx\": 14, \"Device Type\": 1, \"Device Id\": 0, "
    "\"Addr\": 9223372036854775809, \"Bytes\": 123456789012345678, \"Total Allocated\": 123456789012345678, "
    "\"Total Reserved\": 999999999999999999\n    }\n  }",
    "{%s\"name\": \"[memory]\", \"args\": {\"Bytes\": -123456789012345678, \"Addr\": 9223372036854775809, "
    "\"Device Id\": 0, \"Device Type\": 1, \"Total Allocated\": 0, \"Total Reserved\": 7}, \"ts\": 99999999.99999, "
    "\"tid\": \"7\", \"pid\": \"12\", \"ph\": \"i\"}",
    "{%s\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 12, \"tid\": 8, \"ts\": 100000000, \"args\": {\"Device Type\": 0, "
    "\"Device Id\": -1, \"Addr\": 1, \"Bytes\": 12345678, \"Total Allocated\": 1234567, \"Total Reserved\": 123456789}}",
    "{%s\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm\", \"pid\": 0, \"tid\": 7, \"ts\": 100000001.5, "
    "\"dur\": 0.001, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 123456789, \"grid\": [1, 2, 3], "
    "\"block\": [4, 5, 6], \"registers per thread\": 32, \"est. achieved occupancy %%\": 50}}", /* (a printf format) */
    "{%s\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 12, \"tid\": 7, "
    "\"ts\": 100000000.25, \"dur\": 2, \"args\": {\"correlation\": 123456789, \"cbid\": 211}}",
    "{%s\"ph\": \"s\", \"id\": 123456789, \"pid\": 12, \"tid\": 7, \"ts\": 100000000.25, \"cat\": \"ac2g\", "
    "\"name\": \"flow\", \"bp\": \"e\"}",
    "{%s\"ph\": \"f\", \"id\": 123456789, \"pid\": 0, \"tid\": 7, \"ts\": 100000001.5, \"cat\": \"ac2g\", "
    "\"name\": \"flow\", \"bp\": \"e\"}",
    "{%s\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 12, \"tid\": 7, "
    "\"ts\": 0.999, \"dur\": 100000005, \"args\": {\"External id\": 2}, \"extra\": {\"a\": [1, {\"b\": \"]}\"}]}}",
    /* the shape of the memory event above, with values of other lengths; then an instant of that
     * shape whose name is not a memory event's (its args are not read) */
    "{%s\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": 1, \"tid\": 77777,\n"
    "    \"ts\": 1,\n    \"args\": {\n      \"Ev Idx\": 1, \"Device Type\": 1, \"Device Id\": 0, "
    "\"Addr\": 5, \"Bytes\": -1, \"Total Allocated\": 12345678901234567, "
    "\"Total Reserved\": 1\n    }\n  }",
    "{%s\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[marker]\",\n    \"pid\": 1, \"tid\": 77777,\n"
    "    \"ts\": 2,\n    \"args\": {\n      \"Ev Idx\": 1, \"Device Type\": \"x\", \"Device Id\": 0, "
    "\"Addr\": 5, \"Bytes\": -1, \"Total Allocated\": 1, "
    "\"Total Reserved\": 1\n    }\n  }",
    /* args skipped 64 bytes at a time: strings with brackets, a block boundary inside a
     * string, nesting, and an escape (read byte by byte) */
    "{%s\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 12, \"tid\": 7, \"ts\": 3, \"dur\": 1, "
    "\"args\": {\"Input Dims\": [[1, [2, [3, [4]]]], \"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\", {}], "
    "\"Concrete Inputs\": [\"{{{{\", \"}\", \"[\"]}}",
    "{%s\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 12, \"tid\": 7, \"ts\": 4, \"dur\": 1, "
    "\"args\": {\"Concrete Inputs\": [\"a\\\\\\\"b]\", \"\\\\\"]}}",
};

static ml_profile *import_events(bool token_path, bool trace)
{
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    fputs("{\"traceEvents\": [\n  ", f);
    for (int round = 0; round < 2; round++) /* the second time, by the shapes learned the first */
        for (size_t i = 0; i < sizeof fast_events / sizeof *fast_events; i++) {
            if (round || i) fputs(",\n  ", f);
            fprintf(f, fast_events[i], token_path ? "\"z\": \"\\u0041\", " : "");
        }
    fputs("\n]}\n", f);
    fclose(f);
    ml_source *src = ml_source_from_memory("t.json", json, len);
    ml_profile *p = ml_profile_new("t.json", "kineto");
    if (trace) p->trace = ml_trace_new();
    int rc = ml_kineto_import(src, p, NULL, &err);
    ml_source_close(src);
    free(json);
    if (rc < 0) {
        CHECK_FAILED_("import: %s", err.msg);
        ml_profile_free(p);
        return NULL;
    }
    return p;
}

#define SAME_COL(a, b, col)                                                          \
    do {                                                                             \
        CHECK_EQ_I64((a)->col.len, (b)->col.len);                                    \
        for (size_t i_ = 0; i_ < (a)->col.len && i_ < (b)->col.len; i_++)           \
            if ((a)->col.v[i_] != (b)->col.v[i_]) {                                  \
                CHECK_FAILED_("%s[%zu]: %lld, token path %lld", #col, i_,           \
                              (long long)(a)->col.v[i_], (long long)(b)->col.v[i_]); \
                break;                                                               \
            }                                                                        \
    } while (0)

TEST(events_read_from_the_buffer_equal_the_token_path)
{
    for (int trace = 0; trace < 2; trace++) {
        ml_profile *fast = import_events(false, trace), *slow = import_events(true, trace);
        CHECK(fast && slow);
        if (!fast || !slow) {
            ml_profile_free(fast);
            ml_profile_free(slow);
            return;
        }
        /* a few values worked out by hand: ts in µs, cut (not rounded) at ns */
        CHECK_EQ_I64(fast->events.ts.len, 8);
        CHECK_EQ_I64(fast->events.ts.v[0], 1000); /* sorted by time: the shaped memory event at 1 us */
        CHECK_EQ_I64(fast->events.size.v[0], 1);
        CHECK_EQ_I64(fast->events.kind.v[0], ML_EV_FREE);
        CHECK_EQ_I64(fast->events.addr.v[0], 5);
        CHECK_EQ_I64(fast->events.ts.v[2], 12345678900LL);
        CHECK_EQ_I64(fast->events.ts.v[4], 99999999999LL);
        CHECK_EQ_I64(fast->events.size.v[2], 123456789012345678LL);
        CHECK_EQ_I64(fast->events.size.v[4], 123456789012345678LL);
        CHECK_EQ_I64(fast->events.kind.v[4], ML_EV_FREE);
        CHECK_EQ_I64(fast->events.addr.v[2], 9223372036854775809ULL);
        CHECK_EQ_I64(fast->ops.ts.len, 8);
        CHECK_EQ_I64(fast->ops.ts.v[0], 999); /* ProfilerStep#3 first: sorted by time */
        CHECK_EQ_I64(fast->ops.dur.v[4], 1000); /* aten::mm, after ProfilerStep#3 and aten::linear twice */
        CHECK_EQ_I64(fast->ops.dur.v[2], 123456789100LL);
        SAME_COL(fast, slow, events.ts);
        SAME_COL(fast, slow, events.size);
        SAME_COL(fast, slow, events.addr);
        SAME_COL(fast, slow, events.thread);
        SAME_COL(fast, slow, events.device);
        SAME_COL(fast, slow, events.kind);
        SAME_COL(fast, slow, ops.ts);
        SAME_COL(fast, slow, ops.dur);
        SAME_COL(fast, slow, ops.name);
        SAME_COL(fast, slow, ops.thread);
        SAME_COL(fast, slow, thread_pid);
        SAME_COL(fast, slow, thread_tid);
        CHECK_EQ_I64(fast->series.len, slow->series.len);
        for (size_t i = 0; i < fast->series.len && i < slow->series.len; i++) {
            SAME_COL(fast, slow, series.v[i].ts);
            SAME_COL(fast, slow, series.v[i].value);
        }
        CHECK_EQ_I64(ml_strpool_count(fast->strings), ml_strpool_count(slow->strings));
        if (trace) {
            ml_trace *a = fast->trace, *b = slow->trace;
            CHECK_EQ_I64(a->slices.ts.len, 12);
            SAME_COL(a, b, slices.ts);
            SAME_COL(a, b, slices.dur32);
            SAME_COL(a, b, slices.name);
            SAME_COL(a, b, slices.kind);
            SAME_COL(a, b, slices.corr);
            SAME_COL(a, b, slices.ext_id);
            SAME_COL(a, b, slices.track);
            CHECK_EQ_I64(a->flows.len, b->flows.len);
            CHECK_EQ_I64(a->kernel_info.len, 2);
            CHECK_EQ_I64(b->kernel_info.len, 2);
            if (a->kernel_info.len == 2 && b->kernel_info.len == 2) {
                const ml_kernel_info *x = &a->kernel_info.v[0], *y = &b->kernel_info.v[0];
                CHECK_EQ_I64(x->device, y->device);
                CHECK_EQ_I64(x->stream, 7);
                CHECK_EQ_I64(y->stream, 7);
                CHECK_EQ_I64(x->registers, y->registers);
                CHECK(x->occupancy == y->occupancy && x->occupancy == 50.0f);
                CHECK(!memcmp(x->grid, y->grid, sizeof x->grid) && !memcmp(x->block, y->block, sizeof x->block));
                CHECK_EQ_I64(x->grid[2], 3);
            }
            CHECK_EQ_I64(a->op_info.len, b->op_info.len);
        }
        ml_profile_free(fast);
        ml_profile_free(slow);
    }
}


/* The plain summary (lean wanted, a file that can be read again) keeps no
 * Total Reserved point that repeats the one before it, and after the match
 * none of the events' addresses and threads; out of time order after a
 * point was dropped, the file is read again, keeping all: the curves are
 * those of a full read either way. */
static ml_profile *load_lean(const char *json, bool lean, ml_profiles *ps)
{
    char path[] = "/tmp/memlens-test-kineto-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, json, strlen(json)) != (ssize_t)strlen(json)) {
        CHECK_FAILED_("cannot write %s", path);
        return NULL;
    }
    close(fd);
    memset(ps, 0, sizeof *ps);
    ps->needs = (ml_needs){.lean = lean, .no_categories = lean};
    int rc = ml_load(path, ps, &err);
    unlink(path);
    if (rc < 0 || ps->items.len != 1) {
        CHECK_FAILED_("load: %s", err.msg);
        return NULL;
    }
    return ps->items.v[0];
}

/* No caching allocator reserves less than it hands out: a Total Reserved
 * (other than 0, which devices without a reserve write) below Total
 * Allocated says the counters disagree, and the note says where. */
TEST(reserved_below_allocated_is_noted_with_its_byte)
{
    static const char json[] = "[" MEMR(10, 7, 1, 100, 100, 2048) "," MEMR(20, 7, 2, 4000, 4100, 4096) ","
                               MEMR(30, 7, 3, 100, 4200, 4096) "]";
    ml_profile *p = import_str(json);
    CHECK(p != NULL);
    if (!p) return;
    char want[160];
    snprintf(want, sizeof want, "2 memory events give a Total Reserved below their Total Allocated (the first "
             "at byte %zu, on cuda:0)", (size_t)(strstr(json, ",{") + 1 - json));
    CHECK(has_note(p, want));
    ml_profile_free(p);
    /* one on each of two devices: counted together, the device the first one's */
    p = import_str("[" MEMR(10, 7, 1, 100, 100, 99) ","
                   "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":7,\"ts\":20,\"args\":{\"Device Type\":1,"
                   "\"Device Id\":1,\"Addr\":2,\"Bytes\":10,\"Total Allocated\":10,\"Total Reserved\":9}}]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(has_note(p, "2 memory events give a Total Reserved below their Total Allocated (the first at byte 1, on cuda:0)"));
    ml_profile_free(p);
    /* reserved 0 (not kept), or at least what is allocated: nothing to say */
    p = import_str("[" MEMR(10, 7, 1, 100, 100, 0) "," MEMR(20, 7, 2, 4000, 4100, 4100) "]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(!has_note(p, "below their Total Allocated"));
    CHECK(!has_note(p, "below its Total Allocated"));
    ml_profile_free(p);
}

TEST(lean_summary_keeps_no_repeated_totals_and_reads_again_out_of_order)
{
    static const char *sorted = "[" MEMR(10, 7, 1, 100, 100, 2048) "," MEMR(20, 8, 3, 900, 1000, 4096) ","
                                MEMR(30, 7, 2, 100, 1100, 4096) "," MEMR(35, 8, 3, -900, 200, 4096) ","
                                MEMR(40, 7, 1, -100, 100, 2048) "]";
    static const char *unsorted = "[" MEMR(10, 7, 1, 100, 100, 2048) "," MEMR(30, 7, 2, 100, 200, 2048) ","
                                  MEMR(40, 7, 1, -100, 100, 2048) "," MEMR(20, 8, 3, 900, 1000, 4096) ","
                                  MEMR(35, 8, 3, -900, 200, 2048) "]";
    const char *traces[] = {sorted, unsorted};
    /* reserved at 10..40: sorted 2048 4096 4096 4096 2048; unsorted (in time order) 2048 4096 2048 2048 2048 */
    int64_t want_r[2][5] = {{2048, 4096, 4096, 4096, 2048}, {2048, 4096, 2048, 2048, 2048}};
    int64_t at[5] = {10, 20, 30, 35, 40};
    for (int t = 0; t < 2; t++) {
        ml_profiles lean_ps, full_ps;
        ml_profile *lean = load_lean(traces[t], true, &lean_ps), *full = load_lean(traces[t], false, &full_ps);
        CHECK(lean && full);
        if (lean && full) {
            ml_curve r, a, fr, fa;
            CHECK(ml_curve_get(lean, 0, ML_SERIES_RESERVED, &r) && ml_curve_get(lean, 0, ML_SERIES_ALLOCATED, &a));
            CHECK(ml_curve_get(full, 0, ML_SERIES_RESERVED, &fr) && ml_curve_get(full, 0, ML_SERIES_ALLOCATED, &fa));
            CHECK_EQ_I64(r.n, 3); /* 2048, 4096, 2048: the repeats dropped as read, or by the finish */
            for (int i = 0; i < 5; i++) {
                ml_instant x = {.ts = at[i] * 1000, .event = ML_NONE32};
                CHECK_EQ_I64(ml_curve_value_at(&r, x), want_r[t][i]);
                CHECK_EQ_I64(ml_curve_value_at(&r, x), ml_curve_value_at(&fr, x));
                CHECK_EQ_I64(ml_curve_value_at(&a, x), ml_curve_value_at(&fa, x));
            }
            /* sorted: read once, lean; unsorted: read again, in full */
            CHECK_EQ_I64(lean->events.addr.len, t == 0 ? 0 : 5);
            CHECK_EQ_I64(lean->events.thread.len, t == 0 ? 0 : 5);
            CHECK_EQ_I64(full->events.addr.len, 5);
            CHECK_EQ_I64(lean->allocs.t_alloc.len, full->allocs.t_alloc.len);
            for (size_t i = 0; i < lean->allocs.t_alloc.len && i < full->allocs.t_alloc.len; i++) {
                CHECK_EQ_I64(lean->allocs.t_free.v[i], full->allocs.t_free.v[i]);
                CHECK_EQ_I64(lean->allocs.thread.v[i], full->allocs.thread.v[i]);
            }
            ml_curve_free(&r);
            ml_curve_free(&a);
            ml_curve_free(&fr);
            ml_curve_free(&fa);
        }
        ml_profiles_free(&lean_ps);
        ml_profiles_free(&full_ps);
    }
}

/* The importer's memos of names, of "Input Dims" and of args not read
 * (kineto.c intern_name, kineto_event.c compact_value, skip_unread_arg:
 * "Concrete Inputs") find candidates by a few bytes only: names
 * of one length with the same first and last 8 bytes, and dims alike in
 * their first 16 bytes (more of them than a memo set holds, one a prefix of
 * another as text), each event must still get its own text. */
TEST(names_and_dims_alike_in_their_first_bytes_keep_their_own_text)
{
    static const char *const names[] = {"aten::linear_AAAA_backward_mm", "aten::linear_BBBB_backward_mm",
                                        "aten::linear_AAAB_backward_mm", "aten::mm", "aten::mn"};
    static const char *const dims[] = {
        "[[8, 1024, 1024], [1]]", "[[8, 1024, 1024], [2]]", "[[8, 1024, 1024], []]", "[[8, 1024, 1024], [], []]",
        "[[8, 1024, 1024], [8, 1024, 1024]]", "[[8, 1024, 1024], [3]]", "[[8, 1024, 1024], [4]]",
        "[[8, 1024, 1024], [5]]", "[[8, 1024, 1024], [6]]", "[[8, 1024, 1024], [7]]", "[[8, 1024, 1024], [8]]",
        "[[8, 1024, 1024]]", "[[], []]"};
    enum { NN = sizeof names / sizeof *names, ND = sizeof dims / sizeof *dims, NEV = 3 * NN * ND };
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    fputs("{\"traceEvents\": [\n", f);
    for (int i = 0; i < NEV; i++)
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 2, \"ts\": %d, "
                   "\"dur\": 1, \"args\": {\"Concrete Inputs\": %s, \"Input Dims\": %s, \"Ev Idx\": %d}}",
                i ? ",\n" : "", names[i % NN], 10 * i, dims[(i + 1) % ND], dims[i % ND], i);
    fputs("\n]}\n", f);
    fclose(f);
    int rc;
    ml_profile *p = import_trace(json, len, NULL, &rc);
    free(json);
    CHECK_EQ_I64(rc, 0);
    const ml_slices *s = &p->trace->slices;
    CHECK_EQ_I64(s->ts.len, NEV);
    for (size_t i = 0; rc == 0 && i < s->ts.len && i < NEV; i++) { /* one track: in time order */
        size_t ev = (size_t)((s->ts.v[i] - s->ts.v[0]) / 10000);
        CHECK_EQ_STR(ml_s(p, s->name.v[i]), names[ev % NN]);
        CHECK(s->info.v[i] != ML_NONE32);
        if (s->info.v[i] != ML_NONE32) CHECK_EQ_STR(ml_s(p, p->trace->op_info.v[s->info.v[i]].input_dims), dims[ev % ND]);
    }
    ml_profile_free(p);
}

/* Args not read in a row are skipped as one run (kineto_event.c skip_run,
 * with a memo of the runs seen), every key between them still checked: in
 * events written alike (one shape), a key that is read where an unread one
 * was ("Sequence number" and "In msg nelems", of the same lengths as the keys
 * they replace, one after a value that is the same, so that the events
 * differ past their first 16 bytes only; "Input Dims", of another) is read;
 * values of other lengths, one whose text begins with one remembered, and
 * numbers that change before and after the run (Record function id, Ev Idx)
 * leave the arg read after the run ("Fwd thread id") right.  Shapes not read
 * (keep no_op_shapes) join the run, but on a collective's op (gloo:), whose
 * shapes are read. */
TEST(runs_of_args_not_read_check_every_key)
{
    static const struct {
        const char *name, *a, *b;
        int64_t seq, nelems;
        int dims; /* 1: read when shapes are, 2: always */
    } v[] = {
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"1\"]", "\"Input Strides\": [[4, 1], []]", -1, -1, 0},
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"12345\"]", "\"Input Strides\": [[4096, 1], [1]]", -1, -1, 0},
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"1\"]", "\"Input Strides\": [[4, 1], [], []]", -1, -1, 0},
        {"aten::mm", "\"Sequence number\": 42", "\"Input Strides\": [[4, 1], []]", 42, -1, 0},
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"1\"]", "\"In msg nelems\": 1024", -1, 1024, 0},
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"1\", \"2\", \"3\"]", "\"Input Strides\": 1024", -1, -1, 0},
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"1\", \"2\", \"3\"]", "\"In msg nelems\": 1024", -1, 1024, 0},
        {"aten::mm", "\"Concrete Inputs\": [\"\", \"1\"]", "\"Input Dims\": [[4, 1], []]", -1, -1, 1},
        {"gloo:all_reduce", "\"Concrete Inputs\": [\"\", \"1\"]", "\"Input Dims\": [[4, 1], []]", -1, -1, 2},
    };
    enum { NV = sizeof v / sizeof *v, NEV = 12 * NV };
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    fputs("{\"traceEvents\": [\n", f);
    for (int i = 0; i < NEV; i++)
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 2, \"ts\": %d, \"dur\": 1, "
                   "\"args\": {\"External id\": %d, \"Record function id\": %d, %s, %s, \"Ev Idx\": %d, \"Fwd thread id\": %d}}",
                i ? ",\n" : "", v[i % NV].name, 10 * i, i, i % 2 ? 1909 : 0, v[i % NV].a, v[i % NV].b, i, 3 * i);
    fputs("\n]}\n", f);
    fclose(f);
    for (int shapes_unread = 0; shapes_unread < 2; shapes_unread++) {
        ml_keep keep = {.no_op_shapes = shapes_unread};
        int rc;
        ml_profile *p = import_trace(json, len, &keep, &rc);
        CHECK_EQ_I64(rc, 0);
        const ml_trace *t = p->trace;
        const ml_slices *s = &t->slices;
        CHECK_EQ_I64(s->ts.len, NEV);
        for (size_t i = 0; rc == 0 && i < s->ts.len && i < NEV; i++) {
            size_t ev = (size_t)((s->ts.v[i] - s->ts.v[0]) / 10000), k = ev % NV;
            CHECK(s->info.v[i] != ML_NONE32);
            if (s->info.v[i] == ML_NONE32) continue;
            const ml_op_info *oi = &t->op_info.v[s->info.v[i]];
            CHECK_EQ_I64(ml_op_fwd_thread(t, oi), (int64_t)(3 * ev));
            CHECK_EQ_I64(ml_op_seq(t, oi), v[k].seq);
            const ml_comm_args *c = ml_op_comm(t, oi);
            CHECK_EQ_I64(c ? c->in_nelems : -1, v[k].nelems);
            bool dims = v[k].dims == 2 || (v[k].dims == 1 && !shapes_unread);
            CHECK_EQ_STR(oi->input_dims ? ml_s(p, oi->input_dims) : "", dims ? "[[4, 1], []]" : "");
        }
        ml_profile_free(p);
    }
    free(json);
}

/* keep.no_op_order (perf): an op whose only args are its order ("Sequence
 * number", "Fwd thread id") gets no op_info row, one with shapes keeps its
 * row with the order absent; GPU work's collective args sit in comm_args
 * (ml_kernel_comm), a kernel without them has none. */
TEST(op_order_unread_and_kernel_collective_args)
{
    static const char json[] =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5,"
        " \"args\": {\"External id\": 3, \"Sequence number\": 42, \"Fwd thread id\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 20, \"dur\": 5,"
        " \"args\": {\"External id\": 4, \"Input Dims\": [[4, 1], []], \"Sequence number\": 43}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32\", \"pid\": 0, \"tid\": 7,"
        " \"ts\": 30, \"dur\": 5, \"args\": {\"correlation\": 5, \"stream\": 7, \"Collective name\": \"allreduce\","
        " \"In msg nelems\": 1000, \"Group size\": 4}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 40, \"dur\": 5,"
        " \"args\": {\"correlation\": 6, \"stream\": 7, \"registers per thread\": 32}}\n"
        "]}\n";
    for (int order_unread = 0; order_unread < 2; order_unread++) {
        ml_keep keep = {.no_op_order = order_unread};
        int rc;
        ml_profile *p = import_trace(json, sizeof json - 1, &keep, &rc);
        CHECK_EQ_I64(rc, 0);
        const ml_trace *t = p->trace;
        const ml_slices *s = &t->slices;
        CHECK_EQ_I64(s->ts.len, 4);
        for (size_t i = 0; rc == 0 && i < s->ts.len; i++) {
            const char *name = ml_s(p, s->name.v[i]);
            uint32_t info = s->info.v[i];
            if (!strcmp(name, "aten::add")) {
                CHECK(order_unread ? info == ML_NONE32 : info != ML_NONE32);
                if (info != ML_NONE32) CHECK_EQ_I64(ml_op_seq(t, &t->op_info.v[info]), 42);
            } else if (!strcmp(name, "aten::mm")) {
                CHECK(info != ML_NONE32);
                if (info == ML_NONE32) continue;
                CHECK_EQ_I64(ml_op_seq(t, &t->op_info.v[info]), order_unread ? -1 : 43);
                CHECK_EQ_STR(ml_s(p, t->op_info.v[info].input_dims), "[[4, 1], []]");
            } else {
                CHECK(info != ML_NONE32 && info < t->kernel_info.len);
                if (info == ML_NONE32 || info >= t->kernel_info.len) continue;
                const ml_kernel_info *ki = &t->kernel_info.v[info];
                const ml_comm_args *c = ml_kernel_comm(t, ki);
                bool nccl = !strcmp(name, "ncclDevKernel_AllReduce_Sum_f32");
                CHECK(ml_kernel_info_is_comm(t, ki) == nccl);
                CHECK_EQ_STR(c->collective ? ml_s(p, c->collective) : "", nccl ? "allreduce" : "");
                CHECK_EQ_I64(c->in_nelems, nccl ? 1000 : -1);
                CHECK_EQ_I64(c->out_nelems, -1);
                CHECK_EQ_I64(c->group_size, nccl ? 4 : -1);
                CHECK_EQ_I64(ki->stream, 7);
                CHECK_EQ_I64(ki->registers, nccl ? -1 : 32);
            }
        }
        ml_profile_free(p);
    }
}

int main(void)
{
    RUN(toy_trace_counts_matching_and_peak);
    RUN(cpu_total_carried_from_an_earlier_recording_window_is_noted);
    RUN(repeated_totals_are_dropped_without_changing_the_curve);
    RUN(reserved_below_allocated_is_noted_with_its_byte);
    RUN(lean_summary_keeps_no_repeated_totals_and_reads_again_out_of_order);
    RUN(equal_timestamps_keep_file_order_for_the_peak);
    RUN(string_ids_string_ts_and_key_order);
    RUN(old_format_without_addr_or_totals);
    RUN(python_stacks_and_oom);
    RUN(truncated_trace_keeps_complete_events);
    RUN(file_cut_inside_device_properties_is_an_error);
    RUN(begin_end_pairs_become_ops);
    RUN(values_that_cannot_be_real_are_refused);
    RUN(device_types_are_named_as_pytorch_does);
    RUN(a_second_alloc_at_a_live_address_closes_the_first);
    RUN(a_trace_read_in_tiny_pieces_gives_the_same_profile);
    RUN(events_read_from_the_buffer_equal_the_token_path);
    RUN(names_and_dims_alike_in_their_first_bytes_keep_their_own_text);
    RUN(runs_of_args_not_read_check_every_key);
    RUN(op_order_unread_and_kernel_collective_args);
    RUN(bad_input_errors_name_file_and_byte);
    RUN(decimal_parsing_is_exact);
    RUN(powers_of_ten_are_pow_bit_for_bit);
    RUN(plain_doubles_read_as_their_exponent_form);
    RUN(real_hta_df_index_resolver);
    RUN(real_old_format_resnet50);
    RUN(real_traces_without_memory_load_cleanly);
    RUN(no_memory_events_with_memory_profiling_on_says_so);
    return check_report();
}
