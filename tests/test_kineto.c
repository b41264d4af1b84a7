/* Kineto import, alloc/free matching, attribution and the summary figures:
 * small hand-written traces for each rule, then the real traces in ../shared/data. */
#include "check.h"
#include "attribute.h"
#include "curve.h"
#include "decimal.h"
#include "importer.h"
#include "stats.h"

#include <unistd.h>

static ml_err err;

static ml_profile *import_str(const char *json)
{
    ml_source *src = ml_source_from_memory("t.json", json, strlen(json));
    ml_profile *p = ml_profile_new("t.json", "kineto");
    err.msg[0] = 0;
    int rc = ml_kineto_import(src, p, &err);
    ml_source_close(src);
    if (rc < 0) {
        ml_profile_free(p);
        return NULL;
    }
    ml_attribute(p);
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
    CHECK_EQ_STR(st.at_peak.groups[0].label, "aten::linear");
    CHECK_EQ_I64(st.at_peak.groups[0].bytes, 300);
    CHECK_EQ_I64(st.at_peak.groups[0].count, 2);
    CHECK_EQ_STR(st.at_peak.groups[1].label, "autograd::engine::evaluate_function: AddmmBackward0");
    ml_device_stats_free(&st);

    ml_device_stats_compute(p, 0, ML_BY_INNERMOST, &st);
    CHECK_EQ_STR(st.at_peak.groups[0].label, "aten::linear"); /* 200 bytes at ts 20 are outside aten::empty */
    CHECK_EQ_I64(st.at_peak.groups[0].bytes, 200);
    CHECK_EQ_STR(st.at_peak.groups[1].label, "aten::empty");
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

TEST(file_cut_inside_device_properties_ends_cleanly)
{
    /* Used to loop forever: the device list never saw its closing bracket. */
    ml_profile *p = import_str("{\"deviceProperties\": [{\"id\": 0, \"name\": \"G\"},");
    CHECK(p != NULL);
    if (p) CHECK_EQ_I64(p->devices.len, 0);
    ml_profile_free(p);
}

TEST(bad_input_errors_name_file_and_byte)
{
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": \"lots\"}}]}") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 56: [memory] event: args \"Bytes\" is not a number");
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"[memory]\", \"args\": {\"Bytes\": 4}}]}") == NULL);
    CHECK_CONTAINS(err.msg, "without a usable \"ts\"");
    CHECK(import_str("{\"traceEvents\": 5}") == NULL);
    CHECK_CONTAINS(err.msg, "\"traceEvents\" is not an array");
    CHECK(import_str("{\"traceEvents\": [{\"name\": \"x\", \"ts\": 1") == NULL);
    CHECK_CONTAINS(err.msg, "t.json: byte 38: the file ends inside an object"); /* 38 = its length */
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
    CHECK_EQ_I64(ml_parse_scaled("99999999999999999999", 20, 3, &v), -1);
}

/* ---- real traces (../shared/data), expected values from tests/kineto_expected.py ---- */

static ml_profiles load_real(const char *rel, bool *ok)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", check_data_dir(), rel);
    ml_profiles ps = {0};
    *ok = access(path, R_OK) == 0;
    if (*ok && ml_load(path, &ps, &err) < 0) {
        printf("load %s: %s\n", path, err.msg);
        *ok = false;
    }
    return ps;
}

TEST(real_hta_df_index_resolver)
{
    bool ok;
    ml_profiles ps = load_real("kineto/hta_df_index_resolver.json.gz", &ok);
    if (!ok) SKIP("../shared/data/kineto/hta_df_index_resolver.json.gz not available");
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
    bool ok;
    ml_profiles ps = load_real("kineto/tbplugin_resnet50_w0.pt.trace.json.gz", &ok);
    if (!ok) SKIP("../shared/data/kineto/tbplugin_resnet50_w0.pt.trace.json.gz not available");
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
        bool ok;
        ml_profiles ps = load_real(files[i], &ok);
        if (!ok) SKIP("../shared/data/kineto not available");
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

int main(void)
{
    RUN(toy_trace_counts_matching_and_peak);
    RUN(repeated_totals_are_dropped_without_changing_the_curve);
    RUN(equal_timestamps_keep_file_order_for_the_peak);
    RUN(string_ids_string_ts_and_key_order);
    RUN(old_format_without_addr_or_totals);
    RUN(python_stacks_and_oom);
    RUN(truncated_trace_keeps_complete_events);
    RUN(file_cut_inside_device_properties_ends_cleanly);
    RUN(bad_input_errors_name_file_and_byte);
    RUN(decimal_parsing_is_exact);
    RUN(real_hta_df_index_resolver);
    RUN(real_old_format_resnet50);
    RUN(real_traces_without_memory_load_cleanly);
    return check_report();
}
