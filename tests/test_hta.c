/* The analyses taken from HolisticTraceAnalysis beyond the plugin's views:
 * CUPTI counters (cupti.h), frequent kernel sequences (kernel_seqs.h), the
 * critical path (critpath.h) and stragglers (stragglers.h), each on small
 * hand-written traces whose answers are worked out in the comments; then
 * the real traces of ../shared/data against what HTA itself gives on them
 * (HolisticTraceAnalysis @ f4d0062, run on the same files). */
#include "check.h"
#include "critpath.h"
#include "cupti.h"
#include "importer.h"
#include "kernel_seqs.h"
#include "kineto_json.h"
#include "rankrec.h"
#include "stragglers.h"

#include <math.h>
#include <unistd.h>

/* a host slice on thread (1, tid); GPU work on stream s (pid 0, tid s, args stream s, device 0) */
#define HT(tid, cat, name, ts, dur, args)                                                                     \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{" args "}},"
#define H(cat, name, ts, dur, args) HT(1, cat, name, ts, dur, args)
#define K(name, s, ts, dur, corr)                                                                              \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #s ",\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #corr ",\"stream\":" #s ",\"device\":0}},"
#define SYNC(name, tid, ts, dur, args)                                                                        \
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #tid ",\"ts\":" #ts         \
    ",\"dur\":" #dur ",\"args\":{" args "}},"
#define LAUNCH(ts, dur, corr) H("cuda_runtime", "cudaLaunchKernel", ts, dur, "\"correlation\":" #corr)
#define US 1000 /* ns */

static long slice_named(const ml_profile *p, const char *name)
{
    const ml_slices *s = &p->trace->slices;
    for (size_t i = 0; i < s->ts.len; i++)
        if (!strcmp(ml_s(p, s->name.v[i]), name)) return (long)i;
    return -1;
}

/* ---- the importer: cuda_sync args and launchers, profiler-range counters ---- */

TEST(sync_events_and_profiler_ranges_are_kept)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        H("cuda_runtime", "cudaStreamWaitEvent", 10, 2, "\"correlation\":4")
        SYNC("Stream Wait Event", 20, 11, 0,
             "\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":3,\"stream\":20,\"correlation\":4,\"device\":0")
        "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"gemm\",\"pid\":0,\"tid\":0,\"ts\":100,\"dur\":5,"
        "\"args\":{\"smsp__a.sum\":12,\"smsp__b.sum\":3.5,\"note\":\"text is not a counter\"}},"
        "{}]}");
    CHECK(p != NULL);
    if (!p) return;
    const ml_trace *t = p->trace;
    long y = slice_named(p, "Stream Wait Event"), call = slice_named(p, "cudaStreamWaitEvent"), r = slice_named(p, "gemm");
    CHECK(y >= 0 && call >= 0 && r >= 0);
    if (y < 0 || call < 0 || r < 0) goto out;
    CHECK_EQ_I64(t->slices.kind.v[y], ML_SL_CUDA_SYNC);
    CHECK_EQ_I64(t->slices.launcher.v[y], call); /* linked by correlation, like GPU work */
    CHECK_EQ_STR(ml_slice_kind_name(ML_SL_CUDA_SYNC), "cuda_sync");
    const ml_sync_info *si = &t->sync_info.v[t->slices.info.v[y]];
    CHECK_EQ_I64(si->stream, 20);
    CHECK_EQ_I64(si->wait_stream, 7);
    CHECK_EQ_I64(si->wait_corr, 3);
    CHECK_EQ_I64(si->device, 0);
    CHECK_EQ_I64(t->slices.kind.v[r], ML_SL_PROFILER_RANGE);
    const ml_range_info *ri = &t->range_info.v[t->slices.info.v[r]];
    CHECK_EQ_I64(ri->n, 2); /* the two numbers; the text arg is not a counter */
    if (ri->n == 2) {
        CHECK_EQ_STR(ml_s(p, t->range_key.v[ri->first]), "smsp__a.sum");
        CHECK_EQ_DBL(t->range_value.v[ri->first], 12, 0);
        CHECK_EQ_STR(ml_s(p, t->range_key.v[ri->first + 1]), "smsp__b.sum");
        CHECK_EQ_DBL(t->range_value.v[ri->first + 1], 3.5, 0);
    }
out:
    ml_profile_free(p);
}

/* ---- CUPTI counters ---- */

#define FFMA "\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\""
#define FADD "\"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum\""
#define HMUL "\"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum\""
#define DFMA "\"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum\""
#define RANGE(name, ts, args)                                                                                \
    "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"" name "\",\"pid\":0,\"tid\":0,\"ts\":" #ts   \
    ",\"dur\":100,\"args\":{" args "}},"

/* Two launches: cudaLaunchKernel inside aten::conv2d > aten::cudnn_convolution,
 * cudaLaunchKernelExC inside aten::relu (HTA matches the prefix
 * "cudaLaunchKernel"); cudaMemcpyAsync is no kernel launch.  The ranges are
 * written out of order: the one at 1000 µs is the first kernel. */
#define CUPTI_HOST                                                                                           \
    H("cpu_op", "aten::conv2d", 0, 100, "")                                                                  \
    H("cpu_op", "aten::cudnn_convolution", 10, 70, "")                                                       \
    H("cuda_runtime", "cudaLaunchKernel", 20, 5, "\"correlation\":1")                                        \
    H("cpu_op", "aten::relu", 100, 50, "")                                                                   \
    H("cuda_runtime", "cudaLaunchKernelExC", 110, 5, "\"correlation\":2")                                    \
    H("cuda_runtime", "cudaMemcpyAsync", 160, 5, "\"correlation\":3")                                        \
    RANGE("relu_kernel", 2000, HMUL ":5," DFMA ":2")                                                         \
    RANGE("conv_kernel", 1000, FFMA ":10," FADD ":3,\"dram__bytes.sum\":4096")

TEST(cupti_ranges_pair_with_launches_in_time_order)
{
    ml_profile *p = import_trace("{\"traceEvents\":[" CUPTI_HOST "{}]}");
    CHECK(p != NULL);
    if (!p) return;
    ml_cupti c;
    CHECK(ml_cupti_compute(p, &c));
    CHECK_EQ_I64(c.n, 2);
    CHECK_EQ_I64(c.launches, 2);
    CHECK(c.paired);
    CHECK(c.has_flops);
    /* counters in the order the kernels (in time order) first give them: ffma, fadd, dram, hmul, dfma */
    CHECK_EQ_I64(c.n_counters, 5);
    if (c.n == 2 && c.n_counters == 5) {
        CHECK_EQ_STR(ml_s(p, c.counters[0]), "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
        CHECK_EQ_STR(ml_s(p, c.counters[2]), "dram__bytes.sum");
        CHECK_EQ_STR(ml_s(p, c.counters[4]), "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum");
        const ml_slices *s = &p->trace->slices;
        CHECK_EQ_STR(ml_s(p, s->name.v[c.rows[0].slice]), "conv_kernel");
        CHECK_EQ_STR(ml_s(p, s->name.v[c.rows[0].launch]), "cudaLaunchKernel");
        CHECK_EQ_I64(c.rows[0].stack_n, 2); /* outermost first */
        CHECK_EQ_STR(ml_s(p, s->name.v[c.stack[c.rows[0].stack_first]]), "aten::conv2d");
        CHECK_EQ_STR(ml_s(p, s->name.v[c.stack[c.rows[0].stack_first + 1]]), "aten::cudnn_convolution");
        CHECK_EQ_DBL(c.rows[0].flops, 2 * 10 + 3, 0); /* an fma is two FLOPs */
        CHECK_EQ_DBL(ml_cupti_value(&c, 0, 2), 4096, 0);
        CHECK(isnan(ml_cupti_value(&c, 0, 3))); /* the first kernel has no hmul count */
        CHECK_EQ_STR(ml_s(p, s->name.v[c.rows[1].launch]), "cudaLaunchKernelExC");
        CHECK_EQ_I64(c.rows[1].stack_n, 1);
        CHECK_EQ_STR(ml_s(p, s->name.v[c.stack[c.rows[1].stack_first]]), "aten::relu");
        CHECK_EQ_DBL(c.rows[1].flops, 5 + 2 * 2, 0);
    }
    ml_cupti_free(&c);
    ml_profile_free(p);

    /* a third range with two launches: which launch is whose is unknown, the counters stay */
    p = import_trace("{\"traceEvents\":[" CUPTI_HOST RANGE("extra", 3000, FFMA ":1") "{}]}");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(ml_cupti_compute(p, &c));
    CHECK_EQ_I64(c.n, 3);
    CHECK(!c.paired);
    for (size_t r = 0; r < c.n; r++) {
        CHECK_EQ_I64(c.rows[r].stack_n, 0);
        CHECK_EQ_I64(c.rows[r].launch, ML_NONE32);
    }
    CHECK_EQ_DBL(c.rows[2].flops, 2, 0);
    ml_cupti_free(&c);
    ml_profile_free(p);

    /* no ranges: nothing */
    p = import_trace("{\"traceEvents\":[" H("cpu_op", "aten::relu", 0, 5, "") "{}]}");
    CHECK(p && !ml_cupti_compute(p, &c));
    ml_profile_free(p);
}

/* ---- frequent kernel sequences ---- */

/* Four aten::linear calls, an aten::relu and a top-level aten::addmm
 * (µs; kernels on stream 7):
 *   L1 [0,100) > aten::addmm [5,95): Memset (Device) 2, gemm 30, bias 4
 *   L2 [100,160): Memset 2, gemm 40, bias 5 (bias written first in the file)
 *   L3 [200,250): gemm 10, bias 3, relu 2
 *   relu [300,320): relu 2 — one event: under min_len 3, not a root
 *   L4 [400,440): Memset 2, gemm 20, bias 3
 *   addmm [600,630) at the top: gemm 5, bias 1, bias 1
 * Outermost cpu_ops: linear|Memset|gemm|bias 3 times, GPU 36 + 47 + 25 = 108,
 * CPU 100 + 60 + 40 = 200; then the count-1 patterns by text:
 * "aten::addmm|gemm|bias|bias" (GPU 7, CPU 30) before "aten::linear|gemm|bias|relu"
 * (GPU 15, CPU 50).  Four roots made it, five calls with kernels.
 * With the filter "addmm": calls named so are at depths 1 (in L1) and 0;
 * only the shallowest count: the top-level one. */
static const char *seq_trace =
    "{\"traceEvents\":["
    H("cpu_op", "aten::linear", 0, 100, "")
    H("cpu_op", "aten::addmm", 5, 90, "")
    H("cuda_runtime", "cudaMemsetAsync", 10, 5, "\"correlation\":11")
    LAUNCH(20, 5, 12) LAUNCH(30, 5, 13)
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":2,"
    "\"args\":{\"correlation\":11,\"stream\":7,\"device\":0}},"
    K("gemm", 7, 203, 30, 12) K("bias", 7, 234, 4, 13)
    H("cpu_op", "aten::linear", 100, 60, "")
    H("cuda_runtime", "cudaMemsetAsync", 110, 5, "\"correlation\":21")
    LAUNCH(120, 5, 22) LAUNCH(130, 5, 23)
    K("bias", 7, 344, 5, 23)
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":2,"
    "\"args\":{\"correlation\":21,\"stream\":7,\"device\":0}},"
    K("gemm", 7, 303, 40, 22)
    H("cpu_op", "aten::linear", 200, 50, "")
    LAUNCH(210, 5, 31) LAUNCH(220, 5, 32) LAUNCH(230, 5, 33)
    K("gemm", 7, 400, 10, 31) K("bias", 7, 411, 3, 32) K("relu", 7, 415, 2, 33)
    H("cpu_op", "aten::relu", 300, 20, "") LAUNCH(305, 5, 41) K("relu", 7, 500, 2, 41)
    H("cpu_op", "aten::linear", 400, 40, "")
    H("cuda_runtime", "cudaMemsetAsync", 405, 5, "\"correlation\":51")
    LAUNCH(415, 5, 52) LAUNCH(425, 5, 53)
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":600,\"dur\":2,"
    "\"args\":{\"correlation\":51,\"stream\":7,\"device\":0}},"
    K("gemm", 7, 603, 20, 52) K("bias", 7, 624, 3, 53)
    H("cpu_op", "aten::addmm", 600, 30, "")
    LAUNCH(605, 5, 61) LAUNCH(610, 5, 62) LAUNCH(615, 5, 63)
    K("gemm", 7, 700, 5, 61) K("bias", 7, 706, 1, 62) K("bias", 7, 708, 1, 63)
    "{}]}";

static void check_seq(const ml_profile *p, const ml_kseqs *k, size_t i, const char *op, const char *const *names,
                      uint64_t count, int64_t gpu_us, int64_t cpu_us)
{
    if (i >= k->n) {
        CHECK_FAILED_("no pattern %zu", i);
        return;
    }
    const ml_kseq *q = &k->seqs[i];
    CHECK_EQ_STR(ml_s(p, q->op), op);
    CHECK_EQ_I64(q->count, count);
    CHECK_EQ_I64(q->gpu_ns, gpu_us * US);
    CHECK_EQ_I64(q->cpu_ns, cpu_us * US);
    uint32_t n = 0;
    while (names[n]) n++;
    CHECK_EQ_I64(q->n, n);
    for (uint32_t j = 0; j < n && j < q->n; j++) CHECK_EQ_STR(ml_s(p, k->names[q->first + j]), names[j]);
}

TEST(kernel_sequences_count_patterns_under_outermost_ops)
{
    ml_profile *p = import_trace(seq_trace);
    CHECK(p != NULL);
    if (!p) return;
    ml_kseqs k;
    ml_kseq_opts o = ML_KSEQ_DEFAULTS;
    ml_kseqs_compute(p, &o, &k);
    CHECK_EQ_I64(k.total, 3);
    CHECK_EQ_I64(k.roots, 5);
    CHECK_EQ_I64(k.n, 3);
    static const char *const p1[] = {"Memset (Device)", "gemm", "bias", NULL};
    static const char *const p2[] = {"gemm", "bias", "bias", NULL};
    static const char *const p3[] = {"gemm", "bias", "relu", NULL};
    check_seq(p, &k, 0, "aten::linear", p1, 3, 108, 200);
    check_seq(p, &k, 1, "aten::addmm", p2, 1, 7, 30);
    check_seq(p, &k, 2, "aten::linear", p3, 1, 15, 50);
    ml_kseqs_free(&k);

    o.top = 1; /* HTA's top_k */
    ml_kseqs_compute(p, &o, &k);
    CHECK_EQ_I64(k.n, 1);
    CHECK_EQ_I64(k.total, 3);
    ml_kseqs_free(&k);

    o = ML_KSEQ_DEFAULTS;
    o.op_filter = "addmm";
    ml_kseqs_compute(p, &o, &k);
    CHECK_EQ_I64(k.total, 1);
    check_seq(p, &k, 0, "aten::addmm", p2, 1, 7, 30);
    ml_kseqs_free(&k);

    o.op_filter = "no such op";
    ml_kseqs_compute(p, &o, &k);
    CHECK_EQ_I64(k.n, 0);
    ml_kseqs_free(&k);
    ml_profile_free(p);
}

/* HTA's loader drops the last of two or more ProfilerStep#: a linear in step 1
 * [0,200) and the same one in step 2 [200,400) give one call, not two.  An
 * "Event Sync" of stream -1 launched under a linear is a host event to HTA,
 * not part of the pattern; a "Stream Wait Event" on stream 7 is. */
TEST(kernel_sequences_leave_out_the_last_step_and_host_syncs)
{
    const char *two_steps = "{\"traceEvents\":["
        H("user_annotation", "ProfilerStep#1", 0, 200, "") H("user_annotation", "ProfilerStep#2", 200, 200, "")
        H("cpu_op", "aten::linear", 10, 100, "")
        LAUNCH(20, 5, 11) LAUNCH(30, 5, 12) LAUNCH(40, 5, 13)
        H("cuda_runtime", "cudaEventSynchronize", 50, 5, "\"correlation\":14")
        H("cuda_runtime", "cudaStreamWaitEvent", 60, 5, "\"correlation\":15")
        K("gemm", 7, 120, 10, 11) K("bias", 7, 131, 2, 12) K("relu", 7, 134, 2, 13)
        SYNC("Event Sync", 7, 140, 1, "\"correlation\":14,\"stream\":-1,\"device\":0")
        SYNC("Stream Wait Event", 7, 150, 1, "\"correlation\":15,\"stream\":7,\"device\":0")
        H("cpu_op", "aten::linear", 210, 100, "")
        LAUNCH(220, 5, 21) LAUNCH(230, 5, 22) LAUNCH(240, 5, 23)
        K("gemm", 7, 320, 10, 21) K("bias", 7, 331, 2, 22) K("relu", 7, 334, 2, 23)
        "{}]}";
    ml_profile *p = import_trace(two_steps);
    CHECK(p != NULL);
    if (!p) return;
    ml_kseqs k;
    ml_kseq_opts o = ML_KSEQ_DEFAULTS;
    ml_kseqs_compute(p, &o, &k);
    CHECK_EQ_I64(k.n, 1);
    static const char *const seq[] = {"gemm", "bias", "relu", "Stream Wait Event", NULL};
    check_seq(p, &k, 0, "aten::linear", seq, 1, 15, 100);
    ml_kseqs_free(&k);
    ml_profile_free(p);
}

/* ---- the critical path ---- */

static ml_critpath cp_of(const char *json, ml_profile **pp)
{
    ml_critpath c;
    memset(&c, 0, sizeof c);
    *pp = import_trace(json);
    CHECK(*pp != NULL);
    if (*pp) ml_critpath_compute(*pp, &c);
    return c;
}

/* One step's path and its parts (µs). */
static void check_path(const ml_cp_step *s, int64_t path, int64_t cpu, int64_t gpu, int64_t comm, int64_t launch,
                       int64_t kk)
{
    CHECK(s->ok);
    CHECK_EQ_I64(s->path_ns, path * US);
    CHECK_EQ_I64(s->by_kind[ML_CP_CPU], cpu * US);
    CHECK_EQ_I64(s->by_kind[ML_CP_GPU_COMPUTE], gpu * US);
    CHECK_EQ_I64(s->by_kind[ML_CP_GPU_COMM], comm * US);
    CHECK_EQ_I64(s->by_kind[ML_CP_LAUNCH], launch * US);
    CHECK_EQ_I64(s->by_kind[ML_CP_KERNEL_KERNEL], kk * US);
}

/* A [0,100) holds B [10,40) and C [50,90); D [120,150) follows.  The walk of
 * the call stack: A.start -> B.start 10 (charged to A) -> B.end 30 (B) ->
 * C.start 10 (A, the call around both) -> C.end 40 (C) -> A.end 10 (A) ->
 * D.start (a dependency, 0: the gap between outermost calls is not work) ->
 * D.end 30 (D).  Path 130, all CPU; by name A 30, B 30, C 40, D 30. */
TEST(critical_path_of_nested_host_calls)
{
    ml_profile *p;
    ml_critpath c = cp_of("{\"traceEvents\":[" H("cpu_op", "A", 0, 100, "") H("cpu_op", "B", 10, 30, "")
                              H("cpu_op", "C", 50, 40, "") H("cpu_op", "D", 120, 30, "") "{}]}", &p);
    if (!p) return;
    CHECK_EQ_I64(c.n_steps, 1); /* no ProfilerStep#: the whole trace */
    if (c.n_steps == 1) {
        const ml_cp_step *s = &c.steps[0];
        check_path(s, 130, 130, 0, 0, 0, 0);
        CHECK_EQ_I64(s->path_begin, 0);
        CHECK_EQ_I64(s->path_end - s->path_begin, 150 * US);
        CHECK_EQ_I64(s->n_top, 4);
        if (s->n_top == 4) {
            CHECK_EQ_STR(ml_s(p, s->top[0].name), "C");
            CHECK_EQ_I64(s->top[0].ns, 40 * US);
            CHECK_EQ_STR(ml_s(p, s->top[1].name), "A");
            CHECK_EQ_I64(s->top[1].ns, 30 * US);
        }
        CHECK_EQ_I64(s->n_legs, 1); /* one track: one leg */
        if (s->n_legs == 1) {
            const ml_cp_leg *l = &c.legs[s->first_leg];
            CHECK_EQ_I64(l->to_ts - l->from_ts, 150 * US);
            CHECK_EQ_I64(l->weight_ns, 130 * US);
            CHECK_EQ_I64(l->kind, ML_CP_CPU);
        }
    }
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* op [0,100) launches k on stream 7 (call [10,20), k [30,80)), then waits in
 * cudaStreamSynchronize [25,90) (a "Stream Sync" on stream 7).  The stream
 * was idle: a launch edge call.start -> k.start (20).  The host waiting is
 * not work (the sync call's own span weighs 0).  Longest:
 * op.start -> call.start 10 -> k.start 20 (launch) -> k.end 50 -> sync
 * call's end (0) -> op.end 10 = 90: CPU 20, launch 20, GPU 50.  (The host
 * alone: 10 + 10 + 5 + 0 + 10 = 35.)  Legs: host, launch, stream, sync, host. */
TEST(critical_path_through_a_launch_and_a_stream_sync)
{
    ml_profile *p;
    ml_critpath c = cp_of("{\"traceEvents\":[" H("cpu_op", "op", 0, 100, "") LAUNCH(10, 10, 1) K("k", 7, 30, 50, 1)
                              H("cuda_runtime", "cudaStreamSynchronize", 25, 65, "\"correlation\":2")
                              SYNC("Stream Sync", 7, 85, 5, "\"stream\":7,\"correlation\":2,\"device\":0") "{}]}", &p);
    if (!p) return;
    CHECK(c.has_sync);
    if (c.n_steps == 1) {
        const ml_cp_step *s = &c.steps[0];
        check_path(s, 90, 20, 50, 0, 20, 0);
        CHECK_EQ_I64(s->n_legs, 5);
        if (s->n_legs == 5) {
            const ml_cp_leg *l = &c.legs[s->first_leg];
            CHECK_EQ_I64(l[1].kind, ML_CP_LAUNCH);
            CHECK(l[1].from_track != l[1].to_track);
            CHECK_EQ_I64(l[2].kind, ML_CP_GPU_COMPUTE);
            CHECK_EQ_I64(l[2].weight_ns, 50 * US);
            CHECK_EQ_I64(l[3].kind, ML_CP_NONE); /* the sync: no time */
        }
    }
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* Two launches on stream 7: gemm (call [10,15), kernel [18,60)) and an NCCL
 * kernel (call [20,25), kernel [62,100)); cudaDeviceSynchronize [26,105)
 * with its "Context Sync".  gemm's launch finds the stream idle (nothing
 * queued at its call, nor at its start: the second call came after it began)
 * -> launch edge 8.  The second kernel was launched while gemm ran: the gap
 * after gemm, 2, is the edge (kernel-kernel).  Path: op.start -> call 10 ->
 * gemm.start 8 -> gemm.end 42 -> nccl.start 2 -> nccl.end 38 -> sync call's
 * end 0 -> op.end 5 = 105: CPU 15, launch 8, GPU compute 42,
 * communication 38 (^nccl), kernel-kernel 2. */
TEST(critical_path_with_a_kernel_gap_and_communication)
{
    ml_profile *p;
    ml_critpath c = cp_of("{\"traceEvents\":[" H("cpu_op", "op", 0, 110, "") LAUNCH(10, 5, 1) K("gemm", 7, 18, 42, 1)
                              LAUNCH(20, 5, 2) K("ncclDevKernel_AllReduce_Sum_f32", 7, 62, 38, 2)
                              H("cuda_runtime", "cudaDeviceSynchronize", 26, 79, "\"correlation\":3")
                              SYNC("Context Sync", 99, 100, 3, "\"stream\":4294967295,\"correlation\":3,\"device\":0")
                              "{}]}", &p);
    if (!p) return;
    if (c.n_steps == 1) check_path(&c.steps[0], 105, 15, 42, 38, 8, 2);
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* Stream 20's kernel kb waits (cudaStreamWaitEvent, its "Stream Wait Event")
 * for the CUDA event recorded on stream 7 right after ka was launched: the
 * last launch on stream 7 before cudaEventRecord is ka's.  ka [17,100),
 * kb [101,120); kb gets the sync edge ka.end -> kb.start (0), and no launch
 * edge (what it waits for ended after its call).  Path: op.start -> ka's
 * call 10 -> ka.start 7 -> ka.end 83 -> kb.start 0 -> kb.end 19 ->
 * cudaDeviceSynchronize's end 0 -> op.end 5 = 124: CPU 15, launch 7, GPU 102. */
TEST(critical_path_across_streams_by_a_stream_wait_event)
{
    ml_profile *p;
    ml_critpath c = cp_of(
        "{\"traceEvents\":[" H("cpu_op", "op", 0, 130, "") LAUNCH(10, 5, 1) K("ka", 7, 17, 83, 1)
            H("cuda_runtime", "cudaEventRecord", 16, 2, "\"correlation\":3")
            H("cuda_runtime", "cudaStreamWaitEvent", 19, 2, "\"correlation\":4")
            SYNC("Stream Wait Event", 20, 21, 0,
                 "\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":3,\"stream\":20,\"correlation\":4,\"device\":0")
            LAUNCH(22, 3, 5) K("kb", 20, 101, 19, 5)
            H("cuda_runtime", "cudaDeviceSynchronize", 26, 99, "\"correlation\":6")
            SYNC("Context Sync", 99, 120, 2, "\"stream\":4294967295,\"correlation\":6,\"device\":0") "{}]}",
        &p);
    if (!p) return;
    if (c.n_steps == 1) check_path(&c.steps[0], 124, 15, 102, 0, 7, 0);
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* The forward thread ("forward" [0,50)) and the backward thread (autograd
 * [60,100)) are walked as one call stack: forward.end -> backward.start is a
 * dependency, so the path is 50 + 40 = 90 (apart, it would be 50). */
TEST(critical_path_goes_from_forward_into_backward)
{
    ml_profile *p;
    ml_critpath c = cp_of("{\"traceEvents\":[" HT(1, "cpu_op", "forward", 0, 50, "")
                              HT(2, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", 60, 40, "") "{}]}",
                          &p);
    if (!p) return;
    if (c.n_steps == 1) check_path(&c.steps[0], 90, 90, 0, 0, 0, 0);
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* Two threads' cudaLaunchKernel overlap: [0,50) and [10,30).  The CUDA
 * runtime lock goes to the call that finishes first: its span [10,30) is
 * work (20); the other only waits for it (dependencies of weight 0 to
 * 30 and on to 50).  Path 20. */
TEST(critical_path_through_the_runtime_lock)
{
    ml_profile *p;
    ml_critpath c = cp_of("{\"traceEvents\":[" HT(1, "cuda_runtime", "cudaLaunchKernel", 0, 50, "")
                              HT(2, "cuda_runtime", "cudaLaunchKernel", 10, 20, "") "{}]}", &p);
    if (!p) return;
    if (c.n_steps == 1) check_path(&c.steps[0], 20, 20, 0, 0, 0, 0);
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* Each ProfilerStep# is its own graph: step 1 holds a [10,40) (path 30),
 * step 2 b [110,160) and c [170,190) (50 + a dependency + 20 = 70). */
TEST(critical_path_per_step)
{
    ml_profile *p;
    ml_critpath c = cp_of("{\"traceEvents\":[" H("user_annotation", "ProfilerStep#2", 100, 100, "")
                              H("user_annotation", "ProfilerStep#1", 0, 100, "") H("cpu_op", "a", 10, 30, "")
                              H("cpu_op", "b", 110, 50, "") H("cpu_op", "c", 170, 20, "") "{}]}", &p);
    if (!p) return;
    CHECK_EQ_I64(c.n_steps, 2);
    if (c.n_steps == 2) {
        CHECK_EQ_STR(ml_s(p, c.steps[0].name), "ProfilerStep#1");
        check_path(&c.steps[0], 30, 30, 0, 0, 0, 0);
        CHECK_EQ_STR(ml_s(p, c.steps[1].name), "ProfilerStep#2");
        check_path(&c.steps[1], 70, 70, 0, 0, 0, 0);
        CHECK_EQ_I64(c.n_top, 3);
        if (c.n_top) CHECK_EQ_STR(ml_s(p, c.top[0].name), "b");
    }
    CHECK(!c.has_sync);
    ml_critpath_free(&c);
    ml_profile_free(p);
}

/* ---- stragglers ---- */

/* Rank r of three: ProfilerStep#1..#3, 1000 µs each; in each step an
 * all-reduce on stream 20 that starts at the rank's offset and ends at 950
 * (so durations differ across ranks), a broadcast on stream 21 of 100 µs on
 * every rank (no spread: not the metric), and a 5 µs send/recv (under 1% of
 * a step: left out).  Step #3 is each rank's last: left out as HTA's loader
 * does.  Mean step = (2000 - 0) / 2 steps = 1000 µs.  All-reduce starts:
 * step 1: 500, 600, 800; step 2: 1500, 1900, 1550.  The two latest of each
 * step: ranks 2 and 1, then 1 and 2: counts 0, 2, 2 -> stragglers 1, 2. */
static ml_profile *straggler_rank(int rank, int s1, int s2)
{
    char buf[8192];
    size_t w = (size_t)snprintf(buf, sizeof buf, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":3},\"traceEvents\":[",
                                rank);
    int start[3] = {s1, s2, 300};
    for (int step = 1; step <= 3; step++) {
        int base = (step - 1) * 1000, c = step * 10;
        w += (size_t)snprintf(
            buf + w, sizeof buf - w,
            "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1000},"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32\",\"pid\":0,\"tid\":20,\"ts\":%d,\"dur\":%d,\"args\":{\"correlation\":%d,\"stream\":20,\"device\":0}},"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_Broadcast_RING_LL_Sum_int8_t\",\"pid\":0,\"tid\":21,\"ts\":%d,\"dur\":100,\"args\":{\"correlation\":%d,\"stream\":21,\"device\":0}},"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv\",\"pid\":0,\"tid\":22,\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d,\"stream\":22,\"device\":0}},",
            step, base, base + 10, c + 1, base + start[step - 1], 950 - start[step - 1], c + 1, base + 100, c + 2,
            base + 200, c + 2, base + 101, c + 3, base + 300, c + 3);
    }
    snprintf(buf + w, sizeof buf - w, "{}]}");
    return import_trace(buf);
}

TEST(stragglers_start_their_collective_late)
{
    ml_profile *ps[3] = {straggler_rank(0, 500, 500), straggler_rank(1, 600, 900), straggler_rank(2, 800, 550)};
    CHECK(ps[0] && ps[1] && ps[2]);
    if (!ps[0] || !ps[1] || !ps[2]) goto out;
    const char *why = NULL;
    ml_stragglers *s = ml_stragglers_compute(ps, 3, &why);
    CHECK(s != NULL);
    if (!s) goto out;
    CHECK_EQ_STR(s->kernel, "ncclDevKernel_AllReduce_Sum_f32"); /* NCCL 2.19+'s name, which HTA misses */
    CHECK_EQ_I64(s->stream, 20);
    CHECK_EQ_I64(s->mean_step_ns, 1000 * US);
    CHECK_EQ_I64(s->min_kernel_ns, 10 * US);
    CHECK_EQ_I64(s->n_rows, 6);
    if (s->n_rows == 6) {
        static const int64_t step[6] = {1, 1, 1, 2, 2, 2}, late[6] = {0, 100, 300, 0, 400, 50};
        static const double norm[6] = {0.5, 0.6, 0.8, 1.5, 1.9, 1.55};
        static const int flag[6] = {0, 1, 1, 0, 1, 1};
        for (int i = 0; i < 6; i++) {
            CHECK_EQ_I64(s->rows[i].rank, i % 3);
            CHECK_EQ_I64(s->rows[i].step, step[i]);
            CHECK_EQ_I64(s->rows[i].late_ns, late[i] * US);
            CHECK_EQ_DBL(s->rows[i].normalized_start, norm[i], 1e-12);
            CHECK_EQ_I64(s->rows[i].straggler, flag[i]);
        }
    }
    CHECK_EQ_I64(s->n_ranks, 2);
    if (s->n_ranks == 2) {
        CHECK_EQ_I64(s->ranks[0], 1);
        CHECK_EQ_I64(s->ranks[1], 2);
    }
    ml_stragglers_free(s);

    /* the same from the ranks' records (a job read on many threads or machines, rankrec.h) */
    ml_rankrec *recs[3];
    for (int r = 0; r < 3; r++) recs[r] = ml_rankrec_of(ps[r], NULL, NULL, 0, (size_t)r, -1);
    ml_distributed *d = ml_rankrec_distributed(recs, 3);
    CHECK(d && d->stragglers);
    if (d && d->stragglers) {
        CHECK_EQ_STR(d->stragglers->kernel, "ncclDevKernel_AllReduce_Sum_f32");
        CHECK_EQ_I64(d->stragglers->n_rows, 6);
        CHECK_EQ_I64(d->stragglers->n_ranks, 2);
        if (d->stragglers->n_ranks == 2) CHECK(d->stragglers->ranks[0] == 1 && d->stragglers->ranks[1] == 2);
    }
    ml_rankrec_dist_free(d);

    /* a job that shows no distributed view (or holds one rank) keeps no
     * communication kernels: the same steps and collectives, no stragglers */
    ml_rankrec_wants lean = {.no_stragglers = true};
    ml_rankrec *bare = ml_rankrec_of(ps[1], NULL, &lean, 0, 1, -1);
    CHECK(recs[1]->strag.n_kernels > 0);
    CHECK_EQ_I64(bare->strag.n_kernels, 0);
    CHECK_EQ_I64(bare->strag.n_steps, 0);
    CHECK_EQ_I64(bare->steps.len, recs[1]->steps.len);
    CHECK_EQ_I64(bare->colls.len, recs[1]->colls.len);
    for (size_t i = 0; i < bare->steps.len && i < recs[1]->steps.len; i++) {
        CHECK_EQ_I64(bare->steps.v[i].comm_ns, recs[1]->steps.v[i].comm_ns);
        CHECK_EQ_I64(bare->steps.v[i].comp_ns, recs[1]->steps.v[i].comp_ns);
    }
    ml_rankrec_free(bare);
    for (int r = 0; r < 3; r++) ml_rankrec_free(recs[r]);

    /* one rank compares with nothing */
    CHECK(ml_stragglers_compute(ps, 1, &why) == NULL);
    CHECK_CONTAINS(why, "two or more ranks");
out:
    for (int r = 0; r < 3; r++) ml_profile_free(ps[r]);
}

/* ---- real traces, against HTA's own answers ---- */

static ml_profile *load_real(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kineto/%s", check_data_dir(), name);
    if (access(path, R_OK) != 0) return NULL;
    ml_profiles ps;
    memset(&ps, 0, sizeof ps);
    ps.needs.time = true;
    if (ml_load(path, &ps, &err) < 0 || ps.items.len != 1) {
        CHECK_FAILED_("load %s: %s", path, err.msg);
        ml_profiles_free(&ps);
        return NULL;
    }
    ml_profile *p = ps.items.v[0];
    VEC_FREE(&ps.items);
    ml_profiles_free(&ps);
    return p;
}

/* HTA's critical_path_analysis(rank=0, annotation="", instance_id=None) on
 * this trace (its critical-path test trace, with cuda_sync events): 1,002
 * nodes on the path; get_critical_path_breakdown() summed by bound_by:
 * cpu_bound 43,294,205 µs, gpu_compute_bound 59,215, gpu_kernel_launch_overhead
 * 2,016, gpu_kernel_kernel_overhead 50; total 43,355,486. */
TEST(real_alexnet_critical_path_as_hta)
{
    ml_profile *p = load_real("hta_alexnet.json.gz");
    if (!p) {
        SKIP("../shared/data not available");
        return;
    }
    ml_critpath c;
    ml_critpath_compute(p, &c);
    CHECK_EQ_I64(c.n_steps, 1);
    if (c.n_steps == 1) {
        check_path(&c.steps[0], 43355486, 43294205, 59215, 0, 2016, 50);
        CHECK_EQ_I64(c.steps[0].nodes_on_path, 1002);
    }
    ml_critpath_free(&c);
    /* HTA's get_frequent_cuda_kernel_sequences("aten::conv2d") top 5: count, GPU µs, CPU µs, events */
    static const struct { uint64_t count; int64_t gpu, cpu; uint32_t n; } hta[5] = {
        {6, 2403, 5034, 4}, {1, 1230, 10841225, 4}, {1, 750, 14972, 15}, {1, 735, 1049310, 15}, {1, 1225, 8825, 3}};
    ml_kseqs k;
    ml_kseq_opts o = ML_KSEQ_DEFAULTS;
    o.op_filter = "aten::conv2d";
    ml_kseqs_compute(p, &o, &k);
    CHECK_EQ_I64(k.n, 5);
    for (size_t i = 0; i < 5 && i < k.n; i++) {
        CHECK_EQ_I64(k.seqs[i].count, hta[i].count);
        CHECK_EQ_I64(k.seqs[i].gpu_ns, hta[i].gpu * US);
        CHECK_EQ_I64(k.seqs[i].cpu_ns, hta[i].cpu * US);
        CHECK_EQ_I64(k.seqs[i].n, hta[i].n);
    }
    if (k.n > 2) CHECK_EQ_STR(ml_s(p, k.names[k.seqs[2].first]), "Stream Wait Event"); /* HTA counts syncs too */
    ml_kseqs_free(&k);
    ml_profile_free(p);
}

/* HTA's get_potential_stragglers() on the two sampled ranks: the metric kernel
 * ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t… on stream 84, step 551 only
 * (552 is the last: left out), normalized starts 0.442700 and 0.712708;
 * both ranks are named (two candidates). */
TEST(real_sampled_ranks_stragglers_as_hta)
{
    ml_profile *ps[2] = {load_real("hta_sampled_rank-0.json.gz"), load_real("hta_sampled_rank-1.json.gz")};
    if (!ps[0] || !ps[1]) {
        ml_profile_free(ps[0]);
        ml_profile_free(ps[1]);
        SKIP("../shared/data not available");
        return;
    }
    const char *why = NULL;
    ml_stragglers *s = ml_stragglers_compute(ps, 2, &why);
    CHECK(s != NULL);
    if (s) {
        CHECK(!strncmp(s->kernel, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 42));
        CHECK_EQ_I64(s->stream, 84);
        CHECK_EQ_I64(s->n_rows, 2);
        if (s->n_rows == 2) {
            CHECK_EQ_I64(s->rows[0].step, 551);
            CHECK_EQ_DBL(s->rows[0].normalized_start, 0.442700, 5e-7);
            CHECK_EQ_DBL(s->rows[1].normalized_start, 0.712708, 5e-7);
        }
        CHECK_EQ_I64(s->n_ranks, 2);
        ml_stragglers_free(s);
    }
    ml_profile_free(ps[0]);
    ml_profile_free(ps[1]);
}

int main(void)
{
    RUN(sync_events_and_profiler_ranges_are_kept);
    RUN(cupti_ranges_pair_with_launches_in_time_order);
    RUN(kernel_sequences_count_patterns_under_outermost_ops);
    RUN(kernel_sequences_leave_out_the_last_step_and_host_syncs);
    RUN(critical_path_of_nested_host_calls);
    RUN(critical_path_through_a_launch_and_a_stream_sync);
    RUN(critical_path_with_a_kernel_gap_and_communication);
    RUN(critical_path_across_streams_by_a_stream_wait_event);
    RUN(critical_path_goes_from_forward_into_backward);
    RUN(critical_path_through_the_runtime_lock);
    RUN(critical_path_per_step);
    RUN(stragglers_start_their_collective_late);
    RUN(real_alexnet_critical_path_as_hta);
    RUN(real_sampled_ranks_stragglers_as_hta);
    return check_report();
}
