/* The time-side store (trace.h) and its Kineto import: tiny hand-written
 * traces for each rule (B/E pairing, nesting, launchers, flows, counters, M
 * names, old-format cats, args), the store API on its own (sorting, partial
 * overlap), a split file read in two halves, and the real traces in
 * ../shared/data against tests/trace_expected.py. */
#include "check.h"
#include "ascend.h"
#include "importer.h"
#include "kineto_json.h"
#include "report_enc.h"

#include <unistd.h>

static bool has_note(const ml_profile *p, const char *needle)
{
    for (size_t i = 0; i < p->notes.len; i++)
        if (strstr(ml_s(p, p->notes.v[i]), needle)) return true;
    return false;
}

/* The slice named `name` (first one), or -1. */
static long find_slice(const ml_profile *p, const char *name)
{
    const ml_slices *s = &p->trace->slices;
    for (size_t i = 0; i < s->ts.len; i++)
        if (!strcmp(ml_s(p, s->name.v[i]), name)) return (long)i;
    return -1;
}

static uint32_t track_named(const ml_profile *p, const char *pid, const char *tid)
{
    ml_str a = ml_intern(p->strings, pid, strlen(pid)), b = ml_intern(p->strings, tid, strlen(tid));
    return ml_track_find(p->trace, a, b);
}

TEST(b_e_pairs_nest_and_unmatched_ones_are_tolerated)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":12},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"leaf\",\"pid\":1,\"tid\":1,\"ts\":13,\"dur\":2},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20},"
        "{\"ph\":\"B\",\"cat\":\"user_annotation\",\"name\":\"open\",\"pid\":1,\"tid\":2,\"ts\":11},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":30},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":3,\"ts\":31}"
        "]}");
    CHECK(p != NULL);
    if (!p) return;
    ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    CHECK_EQ_I64(s->ts.len, 4);
    long outer = find_slice(p, "outer"), inner = find_slice(p, "inner"), leaf = find_slice(p, "leaf"),
         open = find_slice(p, "open");
    CHECK(outer >= 0 && inner >= 0 && leaf >= 0 && open >= 0);
    if (outer < 0 || inner < 0 || leaf < 0 || open < 0) goto out;
    CHECK_EQ_I64(s->ts.v[outer], 10000);
    CHECK_EQ_I64(ml_slice_dur(s, outer), 20000);
    CHECK_EQ_I64(ml_slice_dur(s, inner), 8000);
    CHECK_EQ_I64(s->depth.v[outer], 0);
    CHECK_EQ_I64(s->depth.v[inner], 1);
    CHECK_EQ_I64(s->depth.v[leaf], 2);
    CHECK_EQ_I64(s->parent.v[outer], ML_NONE32);
    CHECK_EQ_I64(s->parent.v[inner], outer);
    CHECK_EQ_I64(s->parent.v[leaf], inner);
    /* sorted by (track, ts): outer, inner, leaf on track (1, 1) */
    CHECK_EQ_I64(outer + 1, inner);
    CHECK_EQ_I64(inner + 1, leaf);
    /* the unclosed B lasts until the end of the trace (the orphan E at 31 µs) */
    CHECK_EQ_I64(s->ts.v[open], 11000);
    CHECK_EQ_I64(ml_slice_dur(s, open), 20000);
    CHECK_EQ_I64(s->kind.v[open], ML_SL_USER_ANNOTATION);
    CHECK_EQ_I64(t->unpaired_ends, 1);
    CHECK(has_note(p, "1 \"E\" event had no \"B\" open on its thread: it was ignored"));
    CHECK_EQ_I64(t->span_begin, 10000);
    CHECK_EQ_I64(t->span_end, 31000);
    /* ml_track_slices covers the track's slices */
    size_t first, n;
    ml_track_slices(t, track_named(p, "1", "1"), &first, &n);
    CHECK_EQ_I64(first, outer);
    CHECK_EQ_I64(n, 3);
    /* the op side (attribution) still gets its ops */
    CHECK_EQ_I64(p->ops.ts.len, 4);
out:
    ml_profile_free(p);
}

/* A cuda_sync event's own args (read_own_args) are the next event's no
 * more: each event starts from args absent, however the one before was read. */
TEST(cuda_sync_args_do_not_reach_the_next_event)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":42,\"External id\":9}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":5,"
        "\"args\":{\"Record function id\":0}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":5}"
        "]}");
    CHECK(p != NULL);
    if (!p) return;
    const ml_slices *s = &p->trace->slices;
    long sync = find_slice(p, "Stream Sync"), op = find_slice(p, "aten::mm"), rt = find_slice(p, "cudaDeviceSynchronize");
    CHECK(sync >= 0 && op >= 0 && rt >= 0);
    if (sync >= 0 && op >= 0 && rt >= 0) {
        CHECK_EQ_I64(s->kind.v[sync], ML_SL_CUDA_SYNC);
        CHECK_EQ_I64(ml_slice_corr(s, sync), 42);
        CHECK_EQ_I64(ml_slice_ext_id(s, sync), 9);
        CHECK_EQ_I64(ml_slice_corr(s, op), -1);
        CHECK_EQ_I64(ml_slice_ext_id(s, op), -1);
        CHECK_EQ_I64(ml_slice_corr(s, rt), -1);
        CHECK_EQ_I64(ml_slice_ext_id(s, rt), -1);
    }
    ml_profile_free(p);
}

TEST(gpu_work_gets_stream_tracks_launchers_flows_and_kernel_args)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10,"
        "\"args\":{\"correlation\":7,\"External id\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":7,\"External id\":3,\"grid\":[4,2,1],\"block\":[128,1,1],"
        "\"registers per thread\":32,\"shared memory\":1024,\"blocks per SM\":0.5,\"est. achieved occupancy %\":25}},"
        "{\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":100,\"cat\":\"ac2g\",\"name\":\"ac2g\"},"
        "{\"ph\":\"f\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":120,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":2,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":99,\"bytes\":4096}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":140,\"dur\":3,"
        "\"args\":{\"correlation\":8}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":150,\"dur\":1,\"args\":{\"correlation\":8}},"
        "{\"ph\":\"s\",\"id\":8,\"pid\":1,\"tid\":1,\"ts\":141,\"cat\":\"ac2g\",\"name\":\"ac2g\"},"
        "{\"ph\":\"f\",\"id\":8,\"pid\":0,\"tid\":7,\"ts\":149,\"cat\":\"ac2g\",\"name\":\"ac2g\"}"
        "]}");
    CHECK(p != NULL);
    if (!p) return;
    ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    long rt = find_slice(p, "cudaLaunchKernel"), k1 = find_slice(p, "k1"), mc = find_slice(p, "Memcpy HtoD"),
         drv = find_slice(p, "cuLaunchKernel"), k2 = find_slice(p, "k2");
    CHECK(rt >= 0 && k1 >= 0 && mc >= 0 && drv >= 0 && k2 >= 0);
    if (rt < 0 || k1 < 0 || mc < 0 || drv < 0 || k2 < 0) goto out;
    CHECK_EQ_I64(s->kind.v[rt], ML_SL_RUNTIME);
    CHECK_EQ_I64(s->kind.v[k1], ML_SL_KERNEL);
    CHECK_EQ_I64(s->kind.v[mc], ML_SL_MEMCPY);
    CHECK_EQ_I64(s->kind.v[drv], ML_SL_DRIVER);
    CHECK_EQ_I64(s->launcher.v[k1], rt);
    CHECK_EQ_I64(s->launcher.v[k2], drv);
    CHECK_EQ_I64(s->launcher.v[mc], ML_NONE32); /* correlation 99 launched by nothing here */
    CHECK_EQ_I64(s->launcher.v[rt], ML_NONE32);
    CHECK_EQ_I64(ml_slice_corr(s, k1), 7);
    CHECK_EQ_I64(ml_slice_ext_id(s, k1), 3);
    /* the stream track */
    const ml_track *tr = &t->tracks.v[s->track.v[k1]];
    CHECK_EQ_I64(tr->kind, ML_TRACK_STREAM);
    CHECK_EQ_I64(tr->stream, 7);
    CHECK(tr->device >= 0 && !strcmp(p->devices.v[tr->device].id, "cuda:0"));
    CHECK_EQ_I64(t->tracks.v[s->track.v[rt]].kind, ML_TRACK_THREAD);
    /* kernel args */
    CHECK(s->info.v[k1] != ML_NONE32);
    if (s->info.v[k1] != ML_NONE32) {
        const ml_kernel_info *ki = &t->kernel_info.v[s->info.v[k1]];
        CHECK_EQ_I64(ki->device, 0);
        CHECK_EQ_I64(ki->stream, 7);
        CHECK_EQ_I64(ki->grid[0], 4);
        CHECK_EQ_I64(ki->grid[1], 2);
        CHECK_EQ_I64(ki->grid[2], 1);
        CHECK_EQ_I64(ki->block[0], 128);
        CHECK_EQ_I64(ki->registers, 32);
        CHECK_EQ_I64(ki->shared_memory, 1024);
        CHECK_EQ_DBL(ki->blocks_per_sm, 0.5, 1e-6);
        CHECK_EQ_DBL(ki->occupancy, 25, 1e-6);
        CHECK_EQ_I64(ki->bytes, -1);
    }
    CHECK_EQ_I64(t->kernel_info.v[s->info.v[mc]].bytes, 4096);
    CHECK_EQ_I64(t->kernel_info.v[s->info.v[k2]].grid[0], -1);
    /* flows: 7 binds by enclosure (bp e) at the kernel's start; 8's "f"
     * without bp binds to the next slice starting at 149 µs: k2 */
    CHECK_EQ_I64(t->flows.len, 2);
    for (size_t i = 0; i < t->flows.len; i++) {
        const ml_flow *f = &t->flows.v[i];
        CHECK_EQ_STR(ml_s(p, f->cat), "ac2g");
        CHECK_EQ_I64(f->from, f->id == 7 ? rt : drv);
        CHECK_EQ_I64(f->to, f->id == 7 ? k1 : k2);
    }
out:
    ml_profile_free(p);
}

TEST(counters_instants_and_m_names)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python3\"}},"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"thread 1 (python)\"}},"
        "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"sort_index\":5}},"
        "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"sort_index\":-3}},"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":9,\"args\":{\"name\":\"no slices\"}},"
        "{\"ph\":\"C\",\"name\":\"GPU Utilization\",\"pid\":1,\"tid\":1,\"ts\":50,\"args\":{\"util\":0.75,\"n\":\"3\",\"s\":[1]}},"
        "{\"ph\":\"C\",\"name\":\"GPU Utilization\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"util\":0.25}},"
        "{\"ph\":\"i\",\"name\":\"marker\",\"pid\":1,\"tid\":1,\"ts\":60,\"s\":\"t\"},"
        "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":70,"
        "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":64,\"Bytes\":512,\"Total Allocated\":512,\"Total Reserved\":2048}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":45,\"dur\":30}"
        "]}");
    CHECK(p != NULL);
    if (!p) return;
    ml_trace *t = p->trace;
    CHECK_EQ_I64(t->tracks.len, 1); /* (1, 9) has no slices: no track */
    const ml_track *tr = &t->tracks.v[0];
    CHECK_EQ_STR(ml_s(p, tr->process_name), "python3");
    CHECK_EQ_STR(ml_s(p, tr->name), "thread 1 (python)");
    CHECK_EQ_I64(tr->thread_sort, 5);
    CHECK_EQ_I64(tr->process_sort, -3);
    /* counters in time order, one per numeric arg */
    CHECK_EQ_I64(t->counters.ts.len, 3);
    CHECK_EQ_I64(t->counters.ts.v[0], 40000);
    CHECK_EQ_DBL(t->counters.value.v[0], 0.25, 1e-12);
    CHECK_EQ_STR(ml_s(p, t->counters.name.v[0]), "GPU Utilization");
    CHECK_EQ_STR(ml_s(p, t->counters.key.v[1]), "util");
    CHECK_EQ_DBL(t->counters.value.v[1], 0.75, 1e-12);
    CHECK_EQ_STR(ml_s(p, t->counters.key.v[2]), "n");
    CHECK_EQ_DBL(t->counters.value.v[2], 3, 1e-12);
    /* the [memory] event stays a memory event, not an instant */
    CHECK_EQ_I64(t->instants.ts.len, 1);
    CHECK_EQ_STR(ml_s(p, t->instants.name.v[0]), "marker");
    CHECK_EQ_I64(p->events.ts.len, 1);
    CHECK_EQ_I64(t->span_begin, 40000);
    CHECK_EQ_I64(t->span_end, 75000);
    ml_profile_free(p);
}

TEST(old_format_cats_steps_and_stream_names)
{
    /* PyTorch 1.9: cats Operator/Runtime/Kernel/Memcpy/Memset, tid "stream 7",
     * "external id", "async" flows, ProfilerStep#N under Operator */
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"ProfilerStep#3\",\"pid\":25,\"tid\":\"25\",\"ts\":1000,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::conv2d\",\"pid\":25,\"tid\":\"25\",\"ts\":1010,\"dur\":50,"
        "\"args\":{\"Input Dims\":[[32, 3, 224, 224], [], [7]],\"Input type\":[\"float\",\"\"],\"External id\":4,"
        "\"Sequence number\":12,\"Fwd thread id\":1,\"Call stack\":\"a.py(1): f;b.py(2): g\"}},"
        "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":25,\"tid\":\"25\",\"ts\":1020,\"dur\":5,"
        "\"args\":{\"correlation\":41,\"external id\":4}},"
        "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"conv\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1030,\"dur\":20,"
        "\"args\":{\"correlation\":41,\"external id\":4}},"
        "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":1,\"tid\":\"stream 9\",\"ts\":1050,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1060,\"dur\":2},"
        "{\"ph\":\"s\",\"id\":41,\"pid\":25,\"tid\":25,\"ts\":1020,\"cat\":\"async\",\"name\":\"launch\"},"
        "{\"ph\":\"f\",\"id\":41,\"pid\":0,\"tid\":\"stream 7\",\"ts\":1030,\"cat\":\"async\",\"name\":\"launch\",\"bp\":\"e\"},"
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Linear_0\",\"pid\":25,\"tid\":\"26\",\"ts\":900,"
        "\"dur\":10,\"args\":{\"Python id\":5,\"Python parent id\":2,\"Python module id\":17}}"
        "]}");
    CHECK(p != NULL);
    if (!p) return;
    ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    long step = find_slice(p, "ProfilerStep#3"), conv = find_slice(p, "aten::conv2d"), rt = find_slice(p, "cudaLaunchKernel"),
         k = find_slice(p, "conv"), mc = find_slice(p, "Memcpy HtoD"), ms = find_slice(p, "Memset"),
         py = find_slice(p, "nn.Module: Linear_0");
    CHECK(step >= 0 && conv >= 0 && rt >= 0 && k >= 0 && mc >= 0 && ms >= 0 && py >= 0);
    if (step < 0 || conv < 0 || rt < 0 || k < 0 || mc < 0 || ms < 0 || py < 0) goto out;
    CHECK_EQ_I64(s->kind.v[step], ML_SL_PROFILER_STEP);
    CHECK_EQ_I64(s->kind.v[conv], ML_SL_CPU_OP);
    CHECK_EQ_I64(s->kind.v[rt], ML_SL_RUNTIME);
    CHECK_EQ_I64(s->kind.v[k], ML_SL_KERNEL);
    CHECK_EQ_I64(s->kind.v[mc], ML_SL_MEMCPY);
    CHECK_EQ_I64(s->kind.v[ms], ML_SL_MEMSET);
    CHECK_EQ_I64(s->kind.v[py], ML_SL_PYTHON);
    CHECK_EQ_I64(s->parent.v[conv], step);
    CHECK_EQ_I64(s->parent.v[rt], conv);
    CHECK_EQ_I64(s->depth.v[rt], 2);
    CHECK_EQ_I64(s->launcher.v[k], rt);
    CHECK_EQ_I64(ml_slice_ext_id(s, k), 4);
    CHECK_EQ_I64(ml_slice_ext_id(s, rt), 4);
    /* stream numbers from "stream N" tids, devices from pids */
    const ml_track *kt = &t->tracks.v[s->track.v[k]], *mt = &t->tracks.v[s->track.v[mc]];
    CHECK_EQ_I64(kt->kind, ML_TRACK_STREAM);
    CHECK_EQ_I64(kt->stream, 7);
    CHECK_EQ_STR(p->devices.v[kt->device].id, "cuda:0");
    CHECK_EQ_I64(mt->stream, 9);
    CHECK_EQ_STR(p->devices.v[mt->device].id, "cuda:1");
    CHECK_EQ_I64(s->track.v[ms], s->track.v[k]);
    /* "25" and 25 are one track */
    CHECK_EQ_I64(t->flows.len, 1);
    CHECK_EQ_I64(t->flows.v[0].from, rt);
    CHECK_EQ_I64(t->flows.v[0].to, k);
    /* op args */
    CHECK(s->info.v[conv] != ML_NONE32);
    if (s->info.v[conv] != ML_NONE32) {
        const ml_op_info *oi = &t->op_info.v[s->info.v[conv]];
        CHECK_EQ_STR(ml_s(p, oi->input_dims), "[[32, 3, 224, 224], [], [7]]");
        CHECK_EQ_STR(ml_s(p, oi->input_types), "[\"float\", \"\"]");
        CHECK_EQ_STR(ml_s(p, oi->call_stack), "a.py(1): f;b.py(2): g");
        CHECK_EQ_I64(ml_op_seq(t, oi), 12);
        CHECK_EQ_I64(ml_op_fwd_thread(t, oi), 1);
        CHECK_EQ_I64(ml_op_python_module(t, oi), -1);
    }
    CHECK_EQ_I64(s->info.v[step], ML_NONE32); /* no args worth a row */
    CHECK(s->info.v[py] != ML_NONE32);
    if (s->info.v[py] != ML_NONE32) {
        const ml_op_info *oi = &t->op_info.v[s->info.v[py]];
        CHECK_EQ_I64(ml_op_python_module(t, oi), 17);
        CHECK_EQ_I64(oi->input_dims, 0);
    }
out:
    ml_profile_free(p);
}

TEST(backend_device_properties_and_base_time)
{
    ml_profile *p = import_trace(
        "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"world_size\":2},"
        "\"deviceProperties\":[{\"id\":0,\"name\":\"A100\",\"totalGlobalMem\":1000,\"computeMajor\":8,\"computeMinor\":0,"
        "\"numSms\":108,\"maxThreadsPerMultiprocessor\":2048,\"maxThreadsPerBlock\":1024,\"regsPerBlock\":65536,"
        "\"regsPerMultiprocessor\":65536,\"warpSize\":32,\"sharedMemPerBlock\":49152,\"sharedMemPerMultiprocessor\":167936}],"
        "\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.5,\"dur\":2}],"
        "\"baseTimeNanoseconds\":1700000000000000000}");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_STR(ml_s(p, p->trace->backend), "nccl");
    CHECK_EQ_I64(p->rank, 1);
    CHECK_EQ_I64(p->trace->slices.ts.v[0], 1700000000000001500LL);
    CHECK_EQ_I64(p->trace->span_begin, 1700000000000001500LL);
    CHECK_EQ_I64(p->trace->span_end, 1700000000000003500LL);
    int d = ml_device_find(p, "cuda:0");
    CHECK(d >= 0);
    if (d >= 0) {
        const ml_device *dev = &p->devices.v[d];
        CHECK_EQ_STR(ml_s(p, dev->name), "A100");
        CHECK_EQ_I64(dev->total_memory, 1000);
        CHECK_EQ_I64(dev->cc_major, 8);
        CHECK_EQ_I64(dev->cc_minor, 0);
        CHECK_EQ_I64(dev->num_sms, 108);
        CHECK_EQ_I64(dev->max_threads_per_sm, 2048);
        CHECK_EQ_I64(dev->max_threads_per_block, 1024);
        CHECK_EQ_I64(dev->regs_per_block, 65536);
        CHECK_EQ_I64(dev->regs_per_sm, 65536);
        CHECK_EQ_I64(dev->warp_size, 32);
        CHECK_EQ_I64(dev->shared_mem_per_block, 49152);
        CHECK_EQ_I64(dev->shared_mem_per_sm, 167936);
    }
    ml_profile_free(p);
}

TEST(without_the_want_no_store_is_built)
{
    const char *doc = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]";
    ml_source *src = ml_source_from_memory("t.json", doc, strlen(doc));
    ml_profile *p = ml_profile_new("t.json", "kineto");
    CHECK_EQ_I64(ml_kineto_import(src, p, NULL, &err), 0);
    ml_source_close(src);
    CHECK(p->trace == NULL);
    CHECK_EQ_I64(p->devices.len, 0); /* kernels make no device without the time side */
    ml_profile_free(p);
}

TEST(ascend_trace_view_lanes_by_process_name)
{
    /* torch_npu writes "ph" last and ts as strings */
    const char *doc =
        "[{\"name\":\"process_name\",\"pid\":9,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"},\"ph\":\"M\"},"
        "{\"name\":\"process_name\",\"pid\":8,\"tid\":0,\"args\":{\"name\":\"CANN\"},\"ph\":\"M\"},"
        "{\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"HCCL\"},\"ph\":\"M\"},"
        "{\"ph\":\"X\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":\"1736408883688177.930\",\"dur\":20,\"cat\":\"cpu_op\","
        "\"args\":{\"Input Dims\":\"2,3;\\r\\n4\",\"Sequence number\":-1}},"
        "{\"name\":\"AscendCL@aclrtMemcpyAsync\",\"pid\":8,\"tid\":1,\"ts\":\"1736408883688180.000\",\"dur\":5,"
        "\"args\":{\"connection_id\":936},\"ph\":\"X\"},"
        "{\"name\":\"MEMCPY_ASYNC\",\"pid\":9,\"tid\":2,\"ts\":\"1736408883688190.000\",\"dur\":3.5,"
        "\"args\":{\"Task Type\":\"PCIE_DMA_SQE\",\"connection_id\":936},\"ph\":\"X\"},"
        "{\"name\":\"conv\",\"pid\":9,\"tid\":2,\"ts\":\"1736408883688195.000\",\"dur\":1,\"ph\":\"X\"},"
        "{\"name\":\"Reduce_Inline\",\"pid\":7,\"tid\":1,\"ts\":\"1736408883688195.000\",\"dur\":1,\"ph\":\"X\"},"
        "{\"name\":\"APP/Memory\",\"ts\":\"1736408883688100.000\",\"pid\":6,\"tid\":0,\"args\":{\"KB\":2160232.0},\"ph\":\"C\"},"
        "{\"name\":\"HostToDevice936\",\"ph\":\"s\",\"cat\":\"HostToDevice\",\"id\":\"936\",\"pid\":8,\"tid\":1,"
        "\"ts\":\"1736408883688180.000\"},"
        "{\"name\":\"HostToDevice936\",\"ph\":\"f\",\"id\":\"936\",\"ts\":\"1736408883688190.000\",\"cat\":\"HostToDevice\","
        "\"pid\":9,\"tid\":2,\"bp\":\"e\"}]";
    ml_source *src = ml_source_from_memory("trace_view.json", doc, strlen(doc));
    ml_profile *p = ml_profile_new("x", "ascend-text");
    p->trace = ml_trace_new();
    CHECK_EQ_I64(ml_ascend_trace_view_events(src, p, &err), 0);
    ml_source_close(src);
    ml_profile_finish(p);
    ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    long add = find_slice(p, "aten::add"), acl = find_slice(p, "AscendCL@aclrtMemcpyAsync"), mc = find_slice(p, "MEMCPY_ASYNC"),
         conv = find_slice(p, "conv"), hccl = find_slice(p, "Reduce_Inline");
    CHECK(add >= 0 && acl >= 0 && mc >= 0 && conv >= 0 && hccl >= 0);
    if (add < 0 || acl < 0 || mc < 0 || conv < 0 || hccl < 0) goto out;
    CHECK_EQ_I64(s->ts.v[add], 1736408883688177930LL);
    CHECK_EQ_I64(s->kind.v[add], ML_SL_CPU_OP);
    CHECK_EQ_STR(ml_s(p, t->op_info.v[s->info.v[add]].input_dims), "2,3;\r\n4");
    CHECK_EQ_I64(s->kind.v[acl], ML_SL_RUNTIME);
    CHECK_EQ_I64(s->kind.v[mc], ML_SL_MEMCPY);
    CHECK_EQ_I64(ml_slice_dur(s, mc), 3500);
    CHECK_EQ_I64(s->kind.v[conv], ML_SL_KERNEL);
    CHECK_EQ_I64(s->kind.v[hccl], ML_SL_OTHER);
    CHECK_EQ_I64(s->launcher.v[mc], acl);
    const ml_track *st = &t->tracks.v[s->track.v[mc]];
    CHECK_EQ_I64(st->kind, ML_TRACK_STREAM);
    CHECK_EQ_I64(st->stream, 2);
    CHECK_EQ_STR(p->devices.v[st->device].id, "npu:0");
    CHECK_EQ_STR(ml_s(p, st->process_name), "Ascend Hardware");
    CHECK_EQ_I64(t->tracks.v[s->track.v[hccl]].kind, ML_TRACK_OTHER);
    CHECK_EQ_I64(t->tracks.v[s->track.v[add]].kind, ML_TRACK_THREAD);
    CHECK_EQ_I64(t->counters.ts.len, 1);
    CHECK_EQ_DBL(t->counters.value.v[0], 2160232.0, 1e-9);
    CHECK_EQ_STR(ml_s(p, t->counters.key.v[0]), "KB");
    CHECK_EQ_I64(t->flows.len, 1);
    CHECK_EQ_I64(t->flows.v[0].id, 936);
    CHECK_EQ_I64(t->flows.v[0].from, acl);
    CHECK_EQ_I64(t->flows.v[0].to, mc);
    CHECK_EQ_I64(p->ops.ts.len, 0); /* the time side only */
out:
    ml_profile_free(p);
}

TEST(bad_input_errors_name_file_and_byte)
{
    static const char *const bad[] = {
        "{\"traceEvents\":[], \"baseTimeNanoseconds\": \xdc}",                      /* a value that is no JSON */
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"args\":{\"Input Dims\":[[1, }]}]}", /* bad args JSON */
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"args\":{\"grid\":[1, \"x}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ml_profile *p = import_trace(bad[i]);
        CHECK(p == NULL);
        ml_profile_free(p);
        if (!strstr(err.msg, "t.json: byte ")) CHECK_FAILED_("input %zu: error \"%s\" names no file and byte", i, err.msg);
    }
}

/* ---- the store on its own ---- */

TEST(store_sorts_nests_and_counts_partial_overlaps)
{
    ml_profile *p = ml_profile_new("x", "test");
    ml_trace *t = p->trace = ml_trace_new();
    uint32_t a = ml_track_get(t, p->strings, "1", 1, "1", 1), b = ml_track_get(t, p->strings, "1", 1, "2", 1);
    CHECK_EQ_I64(ml_track_get(t, p->strings, "1", 1, "1", 1), a);
    ml_str n = ml_intern_cstr(p->strings, "s");
    /* pushed out of order, on two tracks */
    ml_slice_row rows[] = {
        {50, 10, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},  /* [50,60) child of [40,100) */
        {0, 10, -1, -1, n, b, ML_NONE32, ML_SL_CPU_OP},
        {40, 60, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},
        {55, 20, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},  /* [55,75) starts in [50,60), ends after: partial */
        {40, 5, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},   /* same start, shorter: after [40,100) */
        {60, 0, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},   /* zero length at 60: inside [55,75) */
        {100, 1, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},  /* starts where [40,100) ends: top level */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) ml_slice_push(t, &rows[i]);
    p->base_time_ns = 1000;
    ml_profile_finish(p);
    const ml_slices *s = &t->slices;
    static const int64_t ts[] = {1040, 1040, 1050, 1055, 1060, 1100, 1000};
    static const int64_t dur[] = {60, 5, 10, 20, 0, 1, 10};
    static const int64_t depth[] = {0, 1, 1, 2, 3, 0, 0};
    static const int64_t parent[] = {ML_NONE32, 0, 0, 2, 3, ML_NONE32, ML_NONE32};
    CHECK_EQ_I64(s->ts.len, 7);
    for (size_t i = 0; i < 7 && i < s->ts.len; i++) {
        CHECK_EQ_I64(s->ts.v[i], ts[i]);
        CHECK_EQ_I64(ml_slice_dur(s, i), dur[i]);
        CHECK_EQ_I64(s->depth.v[i], depth[i]);
        CHECK_EQ_I64(s->parent.v[i], parent[i]);
    }
    CHECK_EQ_I64(t->partial_overlaps, 1);
    size_t first, cnt;
    ml_track_slices(t, b, &first, &cnt);
    CHECK_EQ_I64(first, 6);
    CHECK_EQ_I64(cnt, 1);
    CHECK_EQ_I64(ml_trace_count_kind(t, ML_SL_CPU_OP), 7);
    CHECK_EQ_I64(t->span_begin, 1000);
    CHECK_EQ_I64(t->span_end, 1101);
    ml_profile_free(p);
}

TEST(store_binds_flow_chains)
{
    ml_profile *p = ml_profile_new("x", "test");
    ml_trace *t = p->trace = ml_trace_new();
    uint32_t a = ml_track_get(t, p->strings, "1", 1, "1", 1), b = ml_track_get(t, p->strings, "1", 1, "2", 1);
    ml_str n = ml_intern_cstr(p->strings, "s"), cat = ml_intern_cstr(p->strings, "fwdbwd"),
           other = ml_intern_cstr(p->strings, "other");
    ml_slice_row rows[] = {
        {0, 10, -1, -1, n, a, ML_NONE32, ML_SL_CPU_OP},  /* 0: A */
        {20, 10, -1, -1, n, b, ML_NONE32, ML_SL_CPU_OP}, /* 1: B */
        {40, 10, -1, -1, n, b, ML_NONE32, ML_SL_CPU_OP}, /* 2: C */
    };
    for (size_t i = 0; i < 3; i++) ml_slice_push(t, &rows[i]);
    /* id 1: s in A, t in B, f binding to the next slice (C starts at 40) */
    ml_flow_point(t, 1, cat, 'f', false, b, 35);
    ml_flow_point(t, 1, cat, 's', false, a, 5);
    ml_flow_point(t, 1, cat, 't', false, b, 25);
    /* id 2: a start nothing follows; the same id in another cat: an end from nowhere */
    ml_flow_point(t, 2, cat, 's', false, a, 1);
    ml_flow_point(t, 2, other, 'f', true, b, 45);
    /* id 3: a point in no slice */
    ml_flow_point(t, 3, cat, 's', false, a, 15);
    ml_flow_point(t, 3, cat, 'f', true, b, 21);
    ml_profile_finish(p);
    CHECK_EQ_I64(t->flows.len, 5);
    int seen = 0;
    for (size_t i = 0; i < t->flows.len; i++) {
        const ml_flow *f = &t->flows.v[i];
        if (f->id == 1 && f->from == 0 && f->to == 1) seen |= 1;
        if (f->id == 1 && f->from == 1 && f->to == 2) seen |= 2;
        if (f->id == 2 && f->cat == cat && f->from == 0 && f->to == ML_NONE32) seen |= 4;
        if (f->id == 2 && f->cat == other && f->from == ML_NONE32 && f->to == 2) seen |= 8;
        if (f->id == 3 && f->from == ML_NONE32 && f->to == 1) seen |= 16;
    }
    CHECK_EQ_I64(seen, 31);
    ml_profile_free(p);
}

/* Device work that no correlation id links is launched by the runtime call
 * its flow starts in (older torch_npu's HostToDevice flows, Kineto's ac2g),
 * also where the flow ends before it starts (the device clock ahead: two
 * halves); a correlation link stands, and a flow from an operator launches
 * nothing. */
TEST(store_links_launchers_by_flow)
{
    ml_profile *p = ml_profile_new("x", "test");
    ml_trace *t = p->trace = ml_trace_new();
    uint32_t host = ml_track_get(t, p->strings, "1", 1, "1", 1), dev = ml_track_get(t, p->strings, "9", 1, "3", 1);
    ml_str n = ml_intern_cstr(p->strings, "s"), h2d = ml_intern_cstr(p->strings, "HostToDevice");
    ml_slice_row rows[] = {
        {0, 10, -1, -1, n, host, ML_NONE32, ML_SL_RUNTIME},  /* 0: a call */
        {20, 10, 5, -1, n, host, ML_NONE32, ML_SL_RUNTIME},  /* 1: a call with correlation 5 */
        {40, 10, -1, -1, n, host, ML_NONE32, ML_SL_CPU_OP},  /* 2: an operator */
        {60, 10, -1, -1, n, host, ML_NONE32, ML_SL_RUNTIME}, /* 3: a call whose task starts first */
        {12, 2, -1, -1, n, dev, ML_NONE32, ML_SL_KERNEL},    /* 4: launched by 0 (flow 1) */
        {32, 2, 5, -1, n, dev, ML_NONE32, ML_SL_KERNEL},     /* 5: by 1 (correlation; flow 2 says 0) */
        {52, 2, -1, -1, n, dev, ML_NONE32, ML_SL_KERNEL},    /* 6: flow 3 from the operator: none */
        {58, 1, -1, -1, n, dev, ML_NONE32, ML_SL_MEMCPY},    /* 7: by 3 (flow 4, f before s) */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) ml_slice_push(t, &rows[i]);
    ml_flow_point(t, 1, h2d, 's', false, host, 5);
    ml_flow_point(t, 1, h2d, 'f', true, dev, 12);
    ml_flow_point(t, 2, h2d, 's', false, host, 6);
    ml_flow_point(t, 2, h2d, 'f', true, dev, 32);
    ml_flow_point(t, 3, h2d, 's', false, host, 45);
    ml_flow_point(t, 3, h2d, 'f', true, dev, 52);
    ml_flow_point(t, 4, h2d, 'f', true, dev, 58);
    ml_flow_point(t, 4, h2d, 's', false, host, 65);
    ml_trace_finish(t, 0);
    const ml_slices *s = &t->slices; /* sorted: the host track's four, then the device's */
    CHECK_EQ_I64(s->launcher.v[4], 0);
    CHECK_EQ_I64(s->launcher.v[5], 1);
    CHECK_EQ_I64(s->launcher.v[6], ML_NONE32);
    CHECK_EQ_I64(s->launcher.v[7], 3);
    ml_profile_free(p);
}

/* A flow id used again (a broken producer): each flow launches from its own
 * call, not every task from the group's first call (which made 3,000 tasks
 * of one id launches of one call, 899 ms of delay that was not there). */
TEST(store_links_launchers_by_flow_when_an_id_repeats)
{
    ml_profile *p = ml_profile_new("x", "test");
    ml_trace *t = p->trace = ml_trace_new();
    uint32_t host = ml_track_get(t, p->strings, "1", 1, "1", 1), dev = ml_track_get(t, p->strings, "9", 1, "3", 1);
    ml_str n = ml_intern_cstr(p->strings, "s"), h2d = ml_intern_cstr(p->strings, "HostToDevice");
    ml_slice_row rows[] = {
        {0, 10, -1, -1, n, host, ML_NONE32, ML_SL_RUNTIME},   /* 0: a call */
        {100, 10, -1, -1, n, host, ML_NONE32, ML_SL_RUNTIME}, /* 1: another */
        {5, 2, -1, -1, n, dev, ML_NONE32, ML_SL_KERNEL},      /* 2: launched by 0 */
        {105, 2, -1, -1, n, dev, ML_NONE32, ML_SL_KERNEL},    /* 3: by 1, with the same flow id */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) ml_slice_push(t, &rows[i]);
    ml_flow_point(t, 7, h2d, 's', false, host, 2);
    ml_flow_point(t, 7, h2d, 'f', true, dev, 5);
    ml_flow_point(t, 7, h2d, 's', false, host, 102);
    ml_flow_point(t, 7, h2d, 'f', true, dev, 105);
    ml_trace_finish(t, 0);
    const ml_slices *s = &t->slices;
    CHECK_EQ_I64(s->launcher.v[2], 0);
    CHECK_EQ_I64(s->launcher.v[3], 1);
    ml_profile_free(p);
}

/* What a flow point binds to, by brute force over the finished store: the
 * innermost slice of the track containing ts (a zero-length one at ts too),
 * or the first slice starting at or after ts. */
static uint32_t brute_enclosing(const ml_trace *t, uint32_t track, int64_t ts)
{
    const ml_slices *s = &t->slices;
    uint32_t best = ML_NONE32;
    for (uint32_t i = 0; i < s->ts.len; i++) {
        if (s->track.v[i] != track || s->ts.v[i] > ts) continue;
        bool inside = s->ts.v[i] + ml_slice_dur(s, i) > ts || s->ts.v[i] == ts;
        /* the latest-starting open candidate on the parent chain of the last slice starting at or before ts */
        if (inside) best = i;
    }
    if (best == ML_NONE32) return best;
    /* the search walks up from the last slice that starts at or before ts */
    uint32_t last = ML_NONE32;
    for (uint32_t i = 0; i < s->ts.len; i++)
        if (s->track.v[i] == track && s->ts.v[i] <= ts) last = i;
    for (uint32_t i = last; i != ML_NONE32; i = s->parent.v[i])
        if (s->ts.v[i] + ml_slice_dur(s, i) > ts || s->ts.v[i] == ts) return i;
    return ML_NONE32;
}

static uint32_t brute_next(const ml_trace *t, uint32_t track, int64_t ts)
{
    const ml_slices *s = &t->slices;
    for (uint32_t i = 0; i < s->ts.len; i++)
        if (s->track.v[i] == track && s->ts.v[i] >= ts) return i;
    return ML_NONE32;
}

TEST(flow_binding_search_agrees_with_brute_force)
{
    /* Three tracks of nested and back-to-back slices, flow points at random
     * times (many exactly at a start or an end), pushed in random order: each
     * flow's ends are the slices a scan of the whole track picks. */
    ml_profile *p = ml_profile_new("x", "test");
    ml_trace *t = p->trace = ml_trace_new();
    uint32_t tr[3] = {ml_track_get(t, p->strings, "1", 1, "1", 1), ml_track_get(t, p->strings, "1", 1, "2", 1),
                      ml_track_get(t, p->strings, "0", 1, "7", 1)};
    ml_str n = ml_intern_cstr(p->strings, "s"), cat = ml_intern_cstr(p->strings, "ac2g");
    uint64_t rng = 12345;
#define RND(m) ((rng = rng * 6364136223846793005ull + 1442695040888963407ull), (int64_t)((rng >> 33) % (m)))
    for (int k = 0; k < 3; k++) {
        int64_t at = 0;
        for (int i = 0; i < 400; i++) {
            int64_t dur = 1 + RND(50);
            ml_slice_row r = {at, dur, -1, -1, n, tr[k], ML_NONE32, ML_SL_CPU_OP};
            ml_slice_push(t, &r);
            if (RND(3) == 0) { /* a child inside it */
                ml_slice_row c = {at + RND(dur), RND(dur / 2 + 1), -1, -1, n, tr[k], ML_NONE32, ML_SL_CPU_OP};
                if (c.ts + c.dur <= at + dur) ml_slice_push(t, &c);
            }
            at += dur + RND(3); /* gaps of 0-2 */
        }
    }
    typedef struct { int64_t id, ts; uint32_t track; char ph; bool enc; } pt;
    pt pts[600]; /* an "f" after its "s": at the same time the shuffle would decide */
    for (int i = 0; i < 300; i++) { /* id i: 's' on a host track, 'f' on the stream track */
        int64_t ts = RND(19000);
        pts[2 * i] = (pt){i, ts, tr[RND(2)], 's', false};
        pts[2 * i + 1] = (pt){i, ts + 1 + RND(1000), tr[2], 'f', RND(2) == 0};
    }
    for (int i = 599; i > 0; i--) { /* shuffle */
        int j = (int)RND(i + 1);
        pt x = pts[i];
        pts[i] = pts[j];
        pts[j] = x;
    }
    for (int i = 0; i < 600; i++) ml_flow_point(t, pts[i].id, cat, pts[i].ph, pts[i].enc, pts[i].track, pts[i].ts);
    ml_profile_finish(p);
    CHECK_EQ_I64(t->flows.len, 300);
    int wrong = 0;
    for (size_t f = 0; f < t->flows.len; f++) {
        const ml_flow *fl = &t->flows.v[f];
        const pt *s_pt = NULL, *f_pt = NULL;
        for (int i = 0; i < 600; i++)
            if (pts[i].id == fl->id) *(pts[i].ph == 's' ? &s_pt : &f_pt) = &pts[i];
        if (!s_pt || !f_pt) {
            wrong++;
            continue;
        }
        uint32_t from = brute_enclosing(t, s_pt->track, s_pt->ts);
        uint32_t to = f_pt->enc ? brute_enclosing(t, f_pt->track, f_pt->ts) : brute_next(t, f_pt->track, f_pt->ts);
        if (fl->from != from || fl->to != to) {
            if (wrong < 5)
                fprintf(stderr, "flow %lld: from %u (brute %u, s ts %lld) to %u (brute %u, f ts %lld enc %d)\n",
                        (long long)fl->id, fl->from, from, (long long)s_pt->ts, fl->to, to, (long long)f_pt->ts,
                        f_pt->enc);
            wrong++;
        }
    }
    CHECK_EQ_I64(wrong, 0);
#undef RND
    ml_profile_free(p);
}

/* ---- a file read in two halves gives the same store ---- */

static ml_profile *load_file(const char *path, const char *split_min)
{
    if (split_min) setenv("MEMLENS_SPLIT_MIN_BYTES", split_min, 1);
    else setenv("MEMLENS_ONE_THREAD", "1", 1);
    ml_profiles ps;
    memset(&ps, 0, sizeof ps);
    ps.needs.time = true;
    int rc = ml_load(path, &ps, &err);
    unsetenv("MEMLENS_SPLIT_MIN_BYTES");
    unsetenv("MEMLENS_ONE_THREAD");
    if (rc < 0 || ps.items.len != 1) {
        CHECK_FAILED_("load %s: %s", path, err.msg);
        ml_profiles_free(&ps);
        return NULL;
    }
    ml_profile *p = ps.items.v[0];
    VEC_FREE(&ps.items);
    ml_profiles_free(&ps);
    return p;
}

TEST(split_file_gives_the_same_store)
{
    char path[] = "/tmp/memlens_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"traceEvents\": [\n");
    fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}},\n");
    for (int i = 0; i < 400; i++) {
        int ts = i * 100;
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":50,"
                   "\"args\":{\"Input Dims\":[[%d]]}},\n", i % 7, ts, i);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                   "\"dur\":10,\"args\":{\"correlation\":%d}},\n", ts + 5, i);
        fprintf(f, "{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n", i, ts + 5);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":30,"
                   "\"args\":{\"correlation\":%d,\"stream\":7,\"device\":0}},\n", i % 3, ts + 60, i);
        fprintf(f, "{\"ph\":\"f\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%d,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n",
                i, ts + 60);
        fprintf(f, "{\"ph\":\"B\",\"cat\":\"user_annotation\",\"name\":\"b%d\",\"pid\":1,\"tid\":2,\"ts\":%d},\n", i, ts);
        fprintf(f, "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":%d},\n", ts + 20);
        fprintf(f, "{\"ph\":\"C\",\"name\":\"util\",\"pid\":1,\"tid\":1,\"ts\":%d,\"args\":{\"v\":%d}},\n", ts, i);
    }
    fprintf(f, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":40000}\n], \"distributedInfo\":{\"backend\":\"gloo\"}}\n");
    fclose(f);
    ml_profile *one = load_file(path, NULL), *two = load_file(path, "1");
    unlink(path);
    CHECK(one && two);
    if (!one || !two) goto out;
    const ml_slices *a = &one->trace->slices, *b = &two->trace->slices;
    CHECK_EQ_I64(a->ts.len, 1600);
    CHECK_EQ_I64(b->ts.len, a->ts.len);
    for (size_t i = 0; i < a->ts.len && i < b->ts.len; i++) {
        if (a->ts.v[i] != b->ts.v[i] || ml_slice_dur(a, i) != ml_slice_dur(b, i) || a->depth.v[i] != b->depth.v[i] ||
            a->launcher.v[i] != b->launcher.v[i] || a->kind.v[i] != b->kind.v[i] ||
            strcmp(ml_s(one, a->name.v[i]), ml_s(two, b->name.v[i]))) {
            CHECK_FAILED_("slice %zu differs", i);
            break;
        }
        if (a->info.v[i] != ML_NONE32 && a->kind.v[i] == ML_SL_CPU_OP)
            CHECK_EQ_STR(ml_s(one, one->trace->op_info.v[a->info.v[i]].input_dims),
                         ml_s(two, two->trace->op_info.v[b->info.v[i]].input_dims));
    }
    CHECK_EQ_I64(one->trace->flows.len, 400);
    CHECK_EQ_I64(two->trace->flows.len, 400);
    size_t bound = 0;
    for (size_t i = 0; i < two->trace->flows.len; i++)
        bound += two->trace->flows.v[i].from != ML_NONE32 && two->trace->flows.v[i].to != ML_NONE32;
    CHECK_EQ_I64(bound, 400);
    CHECK_EQ_I64(two->trace->counters.ts.len, 400);
    CHECK_EQ_I64(two->trace->instants.ts.len, 1);
    CHECK_EQ_I64(two->trace->tracks.len, one->trace->tracks.len);
    CHECK_EQ_STR(ml_s(two, two->trace->backend), "gloo");
    uint32_t main_track = track_named(two, "1", "1");
    CHECK(main_track != ML_NONE32);
    if (main_track != ML_NONE32) CHECK_EQ_STR(ml_s(two, two->trace->tracks.v[main_track].name), "main");
out:
    ml_profile_free(one);
    ml_profile_free(two);
}

/* ---- a second half appended (ml_trace_append) sorts as if pushed in one store ---- */

/* Part `part` of a made-up trace, pushed into t: rows on three tracks (the
 * tracks made in another order by odd parts), many with the start and
 * length of rows of other parts, so that ties show their order; op args,
 * kernel args and launches, flow points and counters. */
static void push_part(ml_trace *t, ml_strpool *sp, int part)
{
    uint32_t tr[3];
    for (int k = 0; k < 3; k++) {
        static const char *const pid[3] = {"1", "1", "0"}, *const tid[3] = {"1", "2", "7"};
        int at = part % 2 ? 2 - k : k;
        tr[at] = ml_track_get(t, sp, pid[at], 1, tid[at], 1);
    }
    ml_track_set_stream(t, tr[2], 0, 7);
    ml_str cat = ml_intern_cstr(sp, "ac2g");
    uint64_t rng = 977 + (uint64_t)part * 7919;
#define RND(m) ((rng = rng * 6364136223846793005ull + 1442695040888963407ull), (int64_t)((rng >> 33) % (m)))
    for (int i = 0; i < 300; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%d.%d", part, i);
        int64_t corr = part * 1000 + i, ts = RND(40) * 25, dur = RND(3) * 25;
        ml_slice_row r = {ts, dur, -1, -1, ml_intern_cstr(sp, name), tr[RND(2)], ML_NONE32, ML_SL_CPU_OP};
        switch (RND(3)) {
        case 0: {
            ml_op_info_row o = {ml_intern_cstr(sp, name), 0, 0, 0, i, -1, -1};
            r.info = ml_op_info_push(t, &o);
            break;
        }
        case 1:
            r.kind = ML_SL_RUNTIME;
            r.corr = corr;
            ml_flow_point(t, corr, cat, 's', false, r.track, ts);
            break;
        default: {
            ml_kernel_info k = {.device = 0, .stream = 7, .grid = {1, 1, 1}, .block = {1, 1, 1}, .registers = -1,
                                .shared_memory = -1, .blocks_per_sm = -1, .occupancy = -1, .membw = 0, .bytes = -1};
            k.bytes = corr;
            r.kind = ML_SL_KERNEL;
            r.track = tr[2];
            r.corr = corr - RND(3); /* a launch of this part, or none */
            r.info = ml_kernel_info_push(t, &k);
            ml_flow_point(t, r.corr, cat, 'f', RND(2) == 0, r.track, ts);
        }
        }
        ml_slice_push(t, &r);
        if (i % 50 == 0) ml_counter_push(t, ts, i, cat, cat, tr[0]);
    }
#undef RND
}

/* The parts 0 .. nparts-1 pushed into one store, or (split) the odd ones
 * each into a store of their own, appended to the store of the even ones
 * once pushed; finished. */
static ml_profile *parts_store(int nparts, bool split)
{
    ml_profile *p = ml_profile_new("x", "test");
    p->trace = ml_trace_new();
    for (int part = 0; part < nparts; part++) {
        if (!split || part % 2 == 0) {
            push_part(p->trace, p->strings, part);
            continue;
        }
        ml_profile *half = ml_profile_new("y", "test");
        half->trace = ml_trace_new();
        ml_intern_cstr(half->strings, "only in the second half"); /* ids unlike the first's */
        push_part(half->trace, half->strings, part);
        size_t nstr = ml_strpool_count(half->strings);
        ml_str *smap = malloc(nstr * sizeof *smap);
        for (size_t i = 0; i < nstr; i++)
            smap[i] = ml_intern(p->strings, ml_strget(half->strings, (ml_str)i), ml_strlen(half->strings, (ml_str)i));
        uint32_t dmap[1] = {0};
        ml_trace_append(p->trace, half->trace, smap, dmap, 1);
        free(smap);
        ml_profile_free(half);
    }
    ml_trace_finish(p->trace, 1000);
    return p;
}

TEST(store_appended_half_sorts_as_one_store)
{
    for (int nparts = 2; nparts <= 5; nparts++) { /* 3: rows pushed after the append; 4, 5: a second append */
        ml_profile *one = parts_store(nparts, false), *two = parts_store(nparts, true);
        const ml_trace *a = one->trace, *b = two->trace;
        const ml_slices *x = &a->slices, *y = &b->slices;
        CHECK_EQ_I64(x->ts.len, 300 * nparts);
        CHECK_EQ_I64(y->ts.len, x->ts.len);
        size_t wrong = 0, launched = 0, nested = 0;
        for (size_t i = 0; i < x->ts.len && i < y->ts.len; i++) {
            bool same = x->ts.v[i] == y->ts.v[i] && ml_slice_dur(x, i) == ml_slice_dur(y, i) && x->track.v[i] == y->track.v[i] &&
                        x->kind.v[i] == y->kind.v[i] && ml_slice_corr(x, i) == ml_slice_corr(y, i) &&
                        ml_slice_ext_id(x, i) == ml_slice_ext_id(y, i) && x->info.v[i] == y->info.v[i] &&
                        x->parent.v[i] == y->parent.v[i] && x->depth.v[i] == y->depth.v[i] &&
                        x->launcher.v[i] == y->launcher.v[i] && !strcmp(ml_s(one, x->name.v[i]), ml_s(two, y->name.v[i]));
            if (same && x->kind.v[i] == ML_SL_CPU_OP && x->info.v[i] != ML_NONE32)
                same = !strcmp(ml_s(one, a->op_info.v[x->info.v[i]].input_dims), ml_s(two, b->op_info.v[y->info.v[i]].input_dims));
            if (same && x->kind.v[i] == ML_SL_KERNEL)
                same = a->kernel_info.v[x->info.v[i]].bytes == b->kernel_info.v[y->info.v[i]].bytes;
            if (!same && !wrong++) CHECK_FAILED_("%d parts: slice %zu differs (%s, %s)", nparts, i, ml_s(one, x->name.v[i]), ml_s(two, y->name.v[i]));
            launched += x->launcher.v[i] != ML_NONE32;
            nested += x->parent.v[i] != ML_NONE32;
        }
        CHECK_EQ_I64(wrong, 0);
        CHECK(launched > 0 && nested > 0); /* (the comparison saw launches and nesting) */
        for (size_t k = 0; k + 1 < x->ts.len; k++) /* sorted: (track, ts, longer first) */
            if (x->track.v[k] == x->track.v[k + 1])
                CHECK(x->ts.v[k] < x->ts.v[k + 1] || (x->ts.v[k] == x->ts.v[k + 1] && ml_slice_dur(x, k) >= ml_slice_dur(x, k + 1)));
        CHECK_EQ_I64(b->flows.len, a->flows.len);
        for (size_t f = 0; f < a->flows.len && f < b->flows.len; f++) {
            const ml_flow *fa = &a->flows.v[f], *fb = &b->flows.v[f];
            if (fa->id != fb->id || fa->from != fb->from || fa->to != fb->to) {
                CHECK_FAILED_("%d parts: flow %zu differs", nparts, f);
                break;
            }
        }
        for (uint32_t k = 0; k < a->tracks.len; k++) {
            size_t f1, n1, f2, n2;
            ml_track_slices(a, k, &f1, &n1);
            ml_track_slices(b, k, &f2, &n2);
            CHECK_EQ_I64(f2, f1);
            CHECK_EQ_I64(n2, n1);
        }
        CHECK_EQ_I64(b->counters.ts.len, a->counters.ts.len);
        CHECK_EQ_I64(b->span_begin, a->span_begin);
        CHECK_EQ_I64(b->span_end, a->span_end);
        CHECK_EQ_I64(a->span_begin, 1000);
        ml_profile_free(one);
        ml_profile_free(two);
    }
}

/* ---- the sort against a stable sort of the push order ---- */

typedef struct ref_row {
    int64_t ts, dur;
    uint32_t track, id;
} ref_row;

static int cmp_ref(const void *x, const void *y)
{
    const ref_row *a = x, *b = y;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Rows of shape `shape` pushed in order (row i carries its number as its
 * ext_id), each track's: 0 in order (equal keys among them); 1 two sorted
 * runs interleaved; 2 two sorted runs one after the other, the second
 * starting before the first ends; 3 as 2, the second starting with the
 * first; 4 anywhere, some rows 2^32 ns longer.  Many rows tie another
 * run's.  With `split`, the rows from about the middle on go into a second
 * store, appended to the first. */
static void sort_shape_check(int shape, bool split)
{
    enum { N = 3000 };
    static ref_row ref[N];
    ml_profile *p = ml_profile_new("x", "test"), *second = NULL;
    p->trace = ml_trace_new();
    for (int k = 0; k < 3; k++) ml_track_get(p->trace, p->strings, "1", 1, &"123"[k], 1); /* tracks 0, 1, 2 */
    uint64_t rng = 12345 + (uint64_t)shape * 31 + split;
#define RND(m) ((rng = rng * 6364136223846793005ull + 1442695040888963407ull), (int64_t)((rng >> 33) % (m)))
    size_t half = N / 2 + (size_t)RND(100);
    ml_trace *t = p->trace;
    int64_t clock[2][3] = {{0, 0, 0}, {0, 0, 0}}, last_dur[2][3] = {{0, 0, 0}, {0, 0, 0}};
    for (uint32_t i = 0; i < N; i++) {
        if (split && i == half) {
            second = ml_profile_new("y", "test");
            second->trace = t = ml_trace_new();
            for (int k = 0; k < 3; k++) ml_track_get(t, second->strings, "1", 1, &"123"[k], 1);
        }
        uint32_t k = (uint32_t)RND(3);
        int run = shape == 1 ? (int)(i % 2) : shape == 2 || shape == 3 ? i >= N / 2 : 0;
        if ((shape == 2 || shape == 3) && i == N / 2)
            for (int q = 0; q < 3; q++) clock[1][q] = shape == 2 ? clock[0][q] - 300 : 0;
        int64_t step = RND(3) * 10, ts = clock[run][k] += step, dur = RND(4) * 10;
        if (step == 0) dur = last_dur[run][k]; /* the same key again: a tie within the run */
        last_dur[run][k] = dur;
        if (shape == 4) ts = RND(200) * 10, dur += RND(2) << 32; /* (and durations that take an escape) */
        ml_slice_row r = {ts, dur, -1, (int64_t)i, ml_intern_cstr(split && i >= half ? second->strings : p->strings, "op"),
                          k, ML_NONE32, ML_SL_CPU_OP};
        ml_slice_push(t, &r);
        ref[i] = (ref_row){ts, dur, k, i};
    }
#undef RND
    if (second) {
        size_t nstr = ml_strpool_count(second->strings);
        ml_str *smap = malloc(nstr * sizeof *smap);
        for (size_t i = 0; i < nstr; i++)
            smap[i] = ml_intern(p->strings, ml_strget(second->strings, (ml_str)i), ml_strlen(second->strings, (ml_str)i));
        uint32_t dmap[1] = {0};
        ml_trace_append(p->trace, second->trace, smap, dmap, 1);
        free(smap);
        ml_profile_free(second);
    }
    ml_trace_finish(p->trace, 0);
    qsort(ref, N, sizeof *ref, cmp_ref);
    const ml_slices *s = &p->trace->slices;
    CHECK_EQ_I64(s->ts.len, N);
    size_t wrong = 0;
    for (size_t i = 0; i < N && i < s->ts.len; i++)
        if (ml_slice_ext_id(s, i) != ref[i].id || s->ts.v[i] != ref[i].ts || ml_slice_dur(s, i) != ref[i].dur ||
            s->track.v[i] != ref[i].track)
            if (!wrong++) CHECK_FAILED_("shape %d%s: slice %zu is row %lld, not %u", shape, split ? " split" : "", i,
                                        (long long)ml_slice_ext_id(s, i), ref[i].id);
    CHECK_EQ_I64(wrong, 0);
    ml_profile_free(p);
}

TEST(store_sort_agrees_with_a_stable_sort)
{
    for (int shape = 0; shape < 5; shape++) {
        sort_shape_check(shape, false);
        sort_shape_check(shape, true);
    }
}

/* ---- ids of any width (ml_id32): kept in 32 bits, read back exact (slices and ops) ---- */

/* Ids a trace may carry: none, small, at and past the 32-bit edges, negative, the int64 extremes. */
static const int64_t any_ids[] = {-1, 0, 1, 7, INT32_MAX, (int64_t)INT32_MAX + 1, -2, -6, INT32_MIN,
                                  (int64_t)INT32_MIN - 1, (int64_t)1 << 40, INT64_MAX, INT64_MIN, INT64_MAX - 1};
#define N_ANY_IDS (sizeof any_ids / sizeof *any_ids)
static int64_t corr_of_row(int i) { return any_ids[(size_t)i / 2 % N_ANY_IDS]; } /* (rows 2m, 2m + 1 share one) */
static int64_t ext_of_row(int i) { return any_ids[((size_t)i * 3 + 1) % N_ANY_IDS]; }
/* (every seventh row lasts 2^31 ns and more: an escape too) */
static int64_t dur_of_row(int i) { return i % 7 == 3 ? (int64_t)INT32_MAX + 1 + i : 10 + i % 3; }

/* Rows [from, to) of the test below, pushed into t out of time order (the sort moves them):
 * row i is named "r<i>" and carries dur_of_row(i), corr_of_row(i) and ext_of_row(i): a runtime call, or
 * (odd rows with a real id) a kernel that the runtime call of its id launches; every third
 * row is followed by an op "o<i>" with ext_of_row(i), corr_of_row(i) and any_ids[i] as its
 * seq, fwd_thread and python_module; each kernel is the end of a flow (id ext_of_row(i))
 * from the time of its runtime call. */
static void push_id_rows(ml_trace *t, ml_strpool *sp, int from, int to)
{
    uint32_t host = ml_track_get(t, sp, "1", 1, "1", 1), dev = ml_track_get(t, sp, "0", 1, "7", 1);
    ml_track_set_stream(t, dev, 0, 7);
    for (int i = from; i < to; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        bool kernel = i % 2 && corr_of_row(i) >= 0;
        int64_t ts = (int64_t)((i * 37) % 101) * 100 + (kernel ? 50 : 0);
        ml_kernel_info k = {.device = 0, .stream = 7, .grid = {1, 1, 1}, .block = {1, 1, 1}, .registers = -1,
                            .shared_memory = -1, .blocks_per_sm = -1, .occupancy = -1, .membw = 0, .bytes = -1};
        ml_slice_row r = {ts, dur_of_row(i), corr_of_row(i), ext_of_row(i), ml_intern_cstr(sp, name), kernel ? dev : host,
                          kernel ? ml_kernel_info_push(t, &k) : ML_NONE32, kernel ? ML_SL_KERNEL : ML_SL_RUNTIME};
        ml_slice_push(t, &r);
        if (kernel) { /* a flow from the pair's runtime call to the kernel, its id ext_of_row(i) */
            ml_str cat = ml_intern_cstr(sp, "ac2g");
            ml_flow_point(t, ext_of_row(i), cat, 's', false, host, (int64_t)(((i - 1) * 37) % 101) * 100);
            ml_flow_point(t, ext_of_row(i), cat, 'f', false, dev, ts);
        }
        if (i % 3) continue;
        /* and an op "o<i>" whose args carry three of the ids */
        ml_op_info_row o = {0, 0, 0, 0, ext_of_row(i), corr_of_row(i), any_ids[(size_t)i % N_ANY_IDS]};
        snprintf(name, sizeof name, "o%d", i);
        ml_slice_row op = {ts, 5, -1, -1, ml_intern_cstr(sp, name), host, ml_op_info_push(t, &o), ML_SL_CPU_OP};
        ml_slice_push(t, &op);
    }
}

TEST(store_ids_of_any_width_read_back_exact)
{
    /* rows [from, to) of each part, and whether a store of their own is appended (else pushed):
     * one store; two halves; rows pushed after the append; a second append (join_tail) */
    enum { N = 400 };
    static const struct { int from, to; bool appended; } layouts[4][3] = {
        {{0, N, false}},
        {{0, N / 3, false}, {N / 3, N, true}},
        {{0, N / 3, false}, {N / 3, 2 * N / 3, true}, {2 * N / 3, N, false}},
        {{0, N / 3, false}, {N / 3, 2 * N / 3, true}, {2 * N / 3, N, true}},
    };
    ml_buf flows0 = {0}; /* the one store's flows, "id from to" by slice names: the same in every layout */
    for (int layout = 0; layout < 4; layout++) {
        ml_profile *p = ml_profile_new("x", "test");
        p->trace = ml_trace_new();
        for (int part = 0; part < 3 && layouts[layout][part].to; part++) {
            int from = layouts[layout][part].from, to = layouts[layout][part].to;
            if (!layouts[layout][part].appended) {
                push_id_rows(p->trace, p->strings, from, to);
                continue;
            }
            ml_profile *half = ml_profile_new("y", "test");
            half->trace = ml_trace_new();
            ml_intern_cstr(half->strings, "only in this part"); /* ids unlike the first's */
            push_id_rows(half->trace, half->strings, from, to);
            size_t nstr = ml_strpool_count(half->strings);
            ml_str *smap = malloc(nstr * sizeof *smap);
            for (size_t i = 0; i < nstr; i++)
                smap[i] = ml_intern(p->strings, ml_strget(half->strings, (ml_str)i), ml_strlen(half->strings, (ml_str)i));
            uint32_t dmap[1] = {0};
            ml_trace_append(p->trace, half->trace, smap, dmap, 1);
            free(smap);
            ml_profile_free(half);
        }
        ml_trace_finish(p->trace, 0);
        const ml_slices *s = &p->trace->slices;
        const ml_trace *t = p->trace;
        CHECK_EQ_I64(s->ts.len, N + (N + 2) / 3);
        size_t wrong = 0, launched = 0, wide = 0, ops = 0;
        for (size_t i = 0; i < s->ts.len; i++) {
            int r = atoi(ml_s(p, s->name.v[i]) + 1);
            if (s->kind.v[i] == ML_SL_CPU_OP) {
                const ml_op_info *o = &t->op_info.v[s->info.v[i]];
                ops++;
                wide += o->seq < -1;
                if ((ml_op_seq(t, o) != ext_of_row(r) || ml_op_fwd_thread(t, o) != corr_of_row(r) ||
                     ml_op_python_module(t, o) != any_ids[(size_t)r % N_ANY_IDS]) && !wrong++)
                    CHECK_FAILED_("layout %d: op o%d reads seq %lld fwd %lld module %lld", layout, r,
                                  (long long)ml_op_seq(t, o), (long long)ml_op_fwd_thread(t, o),
                                  (long long)ml_op_python_module(t, o));
                continue;
            }
            int64_t corr = ml_slice_corr(s, i), ext = ml_slice_ext_id(s, i), dur = ml_slice_dur(s, i);
            wide += s->corr.v[i] < -1 && s->dur32.v[i] < -1;
            if ((corr != corr_of_row(r) || ext != ext_of_row(r) || dur != dur_of_row(r)) && !wrong++)
                CHECK_FAILED_("layout %d: row r%d reads dur %lld corr %lld ext %lld, not %lld %lld %lld", layout, r,
                              (long long)dur, (long long)corr, (long long)ext, (long long)dur_of_row(r),
                              (long long)corr_of_row(r), (long long)ext_of_row(r));
            if (s->kind.v[i] == ML_SL_KERNEL) {
                /* launched by the runtime call of its id: the first one pushed (row order), whatever its width */
                uint32_t l = s->launcher.v[i];
                launched += l != ML_NONE32;
                if (l == ML_NONE32 || ml_slice_corr(s, l) != corr) {
                    if (!wrong++) CHECK_FAILED_("layout %d: kernel r%d (corr %lld) not launched by its id", layout, r,
                                                (long long)corr);
                }
            }
        }
        CHECK_EQ_I64(wrong, 0);
        CHECK(launched > 0 && wide > 0 && ops > 0); /* (the check saw launches and escapes) */
        ml_buf fl = {0};
        size_t wide_flows = 0;
        for (size_t f = 0; f < t->flows.len; f++) {
            const ml_flow *x = &t->flows.v[f];
            wide_flows += x->id == INT64_MAX || x->id == INT64_MIN || x->id == (int64_t)1 << 40;
            ml_buf_printf(&fl, "%lld %s %s\n", (long long)x->id, x->from == ML_NONE32 ? "-" : ml_s(p, s->name.v[x->from]),
                          x->to == ML_NONE32 ? "-" : ml_s(p, s->name.v[x->to]));
        }
        CHECK(wide_flows > 0);
        if (layout == 0) flows0 = fl;
        else {
            if (!fl.p || !flows0.p || strcmp(fl.p, flows0.p)) CHECK_FAILED_("layout %d: the flows differ from one store's", layout);
            ml_buf_free(&fl);
        }
        ml_profile_free(p);
    }
    ml_buf_free(&flows0);
}

/* ---- real traces (../shared/data), expected values from tests/trace_expected.py ---- */

typedef struct expected {
    const char *file;
    size_t kinds[ML_SL__COUNT];
    size_t tracks, streams, launched, flows, bound, instants, counters;
} expected;

/* python3 tests/trace_expected.py */
static const expected real[] = {
    {"kineto/hta_nccl_data.json.gz", {14346, 39, 0, 8740, 0, 2700, 960, 114, 30, 3, 1}, 8, 2, 3774, 9283, 4317, 2, 0},
    {"kineto/hta_sampled_rank-0.json.gz", {2329, 71, 0, 1204, 0, 1154, 40, 10, 0, 2, 1}, 8, 5, 1204, 0, 0, 0, 0},
    {"kineto/hta_sampled_rank-1.json.gz", {2302, 63, 0, 1154, 0, 1104, 40, 10, 0, 2, 1}, 8, 5, 1154, 0, 0, 0, 0},
    {"kineto/tbplugin_resnet50_w0.pt.trace.json.gz", {23640, 0, 0, 11923, 0, 8772, 12, 312, 0, 6, 1}, 6, 1, 9096, 9096, 9096, 2, 0},
    {"kineto/param_linear_kineto.json.gz", {36998, 80, 0, 14515, 0, 8716, 0, 1640, 0, 0, 1}, 6, 1, 10356, 14515, 10356, 2, 0},
    /* cuda_sync events, launched like GPU work */
    {"kineto/hta_alexnet.json.gz", {359, 8, 0, 361, 0, 79, 16, 3, 0, 0, 1, 41, 0}, 7, 2, 139, 383, 117, 2, 0},
    /* the directory: its trace_view.json */
    /* (EVENT_WAIT / EVENT_RECORD / PLACE_HOLDER tasks: stream syncs, kind other, no launcher) */
    {"ascend/text_level1/rank0_ascend_pt", {859, 0, 1282, 707, 0, 483, 24, 0, 0, 1, 1028}, 31, 4, 507, 645, 572, 0, 7183},
};

TEST(real_traces_match_trace_expected_py)
{
    int ran = 0;
    for (size_t r = 0; r < sizeof real / sizeof *real; r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", check_data_dir(), real[r].file);
        if (access(path, R_OK) != 0) continue;
        ran++;
        ml_profiles ps;
        memset(&ps, 0, sizeof ps);
        ps.needs.time = true;
        if (ml_load(path, &ps, &err) < 0) {
            CHECK_FAILED_("load %s: %s", path, err.msg);
            continue;
        }
        const ml_trace *t = ps.items.v[0]->trace;
        CHECK(t != NULL);
        if (!t) continue;
        for (int k = 0; k < ML_SL__COUNT; k++)
            if (ml_trace_count_kind(t, (ml_slice_kind)k) != real[r].kinds[k])
                CHECK_FAILED_("%s: kind %d: %zu slices, expected %zu", real[r].file, k,
                              ml_trace_count_kind(t, (ml_slice_kind)k), real[r].kinds[k]);
        size_t streams = 0, launched = 0, bound = 0;
        for (size_t i = 0; i < t->tracks.len; i++) streams += t->tracks.v[i].kind == ML_TRACK_STREAM;
        for (size_t i = 0; i < t->slices.launcher.len; i++) launched += t->slices.launcher.v[i] != ML_NONE32;
        for (size_t i = 0; i < t->flows.len; i++) bound += t->flows.v[i].from != ML_NONE32 && t->flows.v[i].to != ML_NONE32;
        CHECK_EQ_I64(t->tracks.len, real[r].tracks);
        CHECK_EQ_I64(streams, real[r].streams);
        CHECK_EQ_I64(launched, real[r].launched);
        CHECK_EQ_I64(t->flows.len, real[r].flows);
        CHECK_EQ_I64(bound, real[r].bound);
        CHECK_EQ_I64(t->instants.ts.len, real[r].instants);
        CHECK_EQ_I64(t->counters.ts.len, real[r].counters);
        /* every slice's parent contains its start, on its track, one level up */
        const ml_slices *s = &t->slices;
        for (size_t i = 0; i < s->ts.len; i++) {
            uint32_t q = s->parent.v[i];
            if (q == ML_NONE32 ? s->depth.v[i] != 0
                               : s->track.v[q] != s->track.v[i] || s->ts.v[q] > s->ts.v[i] ||
                                     s->depth.v[q] + 1 != s->depth.v[i]) {
                CHECK_FAILED_("%s: slice %zu: bad parent", real[r].file, i);
                break;
            }
        }
        /* the device rows hold every kernel, memcpy, memset and cuda_sync */
        size_t work = 0, seen = 0;
        for (size_t i = 0; i < s->ts.len; i++) {
            uint8_t k = s->kind.v[i];
            work += k == ML_SL_KERNEL || k == ML_SL_MEMCPY || k == ML_SL_MEMSET || k == ML_SL_CUDA_SYNC;
        }
        size_t last_end = 0;
        ML_FOR_DEVICE_ROWS (t, i) {
            uint8_t k = s->kind.v[i];
            seen += k == ML_SL_KERNEL || k == ML_SL_MEMCPY || k == ML_SL_MEMSET || k == ML_SL_CUDA_SYNC;
            CHECK(i >= last_end);
            last_end = i + 1;
        }
        CHECK_EQ_I64(seen, work);
        CHECK(work > 0);
        ml_profiles_free(&ps);
    }
    if (!ran) SKIP("../shared/data not available");
}


/* The args Kineto writes plainly are read straight from the buffer
 * (fast_trace_args); the same args with one escaped key (which sends them
 * down the token path) must give the same store rows. */
TEST(plain_args_read_as_the_token_path_reads_them)
{
    static const char *op_args =
        "\"External id\": 7, \"Input Dims\": [[32, 3], [], [1, 2, 3]], \"Input type\": [\"float\", \"\", \"Scalar\"],"
        " \"Input Strides\": [[3, 1], [], [6, 3, 1]], \"Concrete Inputs\": [\"\", \"a\\\"b]\", \"[{\"],"
        " \"Sequence number\": 42, \"Fwd thread id\": 1, \"Python id\": -5, \"Python module id\": -6,"
        " \"Record function id\": 0,"
        " \"Ev Idx\": 12345678901234567890, \"flag\": true, \"none\": null, \"f\": 1.5e3, \"name\": \"x\","
        " \"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": 1024,"
        " \"Out msg nelems\": 2048, \"Group size\": 8";
    static const char *kernel_args =
        "\"correlation\": 77, \"device\": 0, \"stream\": 7, \"grid\": [1, 2, 3], \"block\": [128, 1, 1],"
        " \"registers per thread\": 32, \"shared memory\": 1024, \"blocks per SM\": 0.5,"
        " \"est. achieved occupancy %\": 12.5, \"queued\": 0, \"bytes\": 4096";
    ml_buf j = {0};
    ml_buf_puts(&j, "{\"traceEvents\": [\n");
    for (int twice = 0; twice < 2; twice++) {
        const char *trailer = twice ? ", \"\\u0078\": 0" : "";
        ml_buf_printf(&j, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, "
                          "\"dur\": 5, \"args\": {%s%s}},\n", twice, 100 + twice * 10, op_args, trailer);
        ml_buf_printf(&j, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, "
                          "\"dur\": 5, \"args\": {%s%s}},\n", twice, 100 + twice * 10, kernel_args, trailer);
    }
    /* enough events after them that the scanner holds the args whole */
    for (int i = 0; i < 20; i++)
        ml_buf_printf(&j, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"pad\", \"pid\": 1, \"tid\": 1, \"ts\": %d, "
                          "\"dur\": 1, \"args\": {\"External id\": %d}},\n", 200 + i, i);
    ml_buf_puts(&j, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 300, \"s\": \"t\"}]}");
    ml_profile *p = import_trace(j.p);
    ml_buf_free(&j);
    CHECK(p != NULL);
    if (!p) return;
    ml_profile_finish(p);
    ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    long o0 = find_slice(p, "op0"), o1 = find_slice(p, "op1"), k0 = find_slice(p, "k0"), k1 = find_slice(p, "k1");
    CHECK(o0 >= 0 && o1 >= 0 && k0 >= 0 && k1 >= 0);
    if (o0 < 0 || o1 < 0 || k0 < 0 || k1 < 0) goto out;
    CHECK_EQ_I64(ml_slice_ext_id(s, o0), 7);
    CHECK_EQ_I64(ml_slice_ext_id(s, o1), 7);
    CHECK_EQ_I64(ml_slice_corr(s, k0), 77);
    CHECK_EQ_I64(ml_slice_corr(s, k1), 77);
    const ml_op_info *a = &t->op_info.v[s->info.v[o0]], *b = &t->op_info.v[s->info.v[o1]];
    CHECK_EQ_STR(ml_s(p, a->input_dims), "[[32, 3], [], [1, 2, 3]]");
    CHECK_EQ_STR(ml_s(p, a->input_types), "[\"float\", \"\", \"Scalar\"]");
    CHECK_EQ_I64(a->input_dims, b->input_dims);
    CHECK_EQ_I64(a->input_types, b->input_types);
    CHECK_EQ_I64(ml_op_seq(t, a), 42);
    CHECK_EQ_I64(ml_op_seq(t, b), 42);
    CHECK_EQ_I64(ml_op_fwd_thread(t, a), ml_op_fwd_thread(t, b));
    CHECK_EQ_I64(ml_op_python_module(t, a), -6);
    CHECK_EQ_I64(ml_op_python_module(t, b), -6);
    const ml_comm_args *ca = ml_op_comm(t, a), *cb = ml_op_comm(t, b);
    CHECK_EQ_STR(ml_s(p, ca->collective), "allreduce");
    CHECK_EQ_I64(ca->collective, cb->collective);
    CHECK_EQ_I64(ca->dtype, cb->dtype);
    CHECK_EQ_I64(ca->in_nelems, 1024);
    CHECK_EQ_I64(cb->out_nelems, 2048);
    CHECK_EQ_I64(ca->group_size, 8);
    CHECK_EQ_I64(cb->group_size, 8);
    const ml_kernel_info *x = &t->kernel_info.v[s->info.v[k0]], *y = &t->kernel_info.v[s->info.v[k1]];
    CHECK_EQ_I64(x->device, y->device);
    CHECK_EQ_I64(x->stream, y->stream);
    for (int d = 0; d < 3; d++) CHECK(x->grid[d] == y->grid[d] && x->block[d] == y->block[d]);
    CHECK_EQ_I64(x->registers, y->registers);
    CHECK_EQ_I64(x->shared_memory, y->shared_memory);
    CHECK_EQ_I64(x->bytes, y->bytes);
    CHECK(x->blocks_per_sm == y->blocks_per_sm && x->occupancy == y->occupancy);
    CHECK_EQ_I64(x->grid[2], 3);
    CHECK_EQ_I64(x->block[0], 128);
    CHECK_EQ_I64(x->registers, 32);
    CHECK_EQ_I64(x->shared_memory, 1024);
    CHECK_EQ_I64(x->bytes, 4096);
    CHECK(x->blocks_per_sm == 0.5f && x->occupancy == 12.5f);
out:
    ml_profile_free(p);
}

/* Kernels of one shape whose launch args (all but the ids) come back: read
 * from the memo of their run of args (kineto_event.c read_run), each gets
 * its own launch's values, whichever name it has, and one whose bytes
 * differ from a launch seen before in a single value (or whose number has
 * a form read another way) gets its own. */
TEST(kernel_launch_args_from_the_run_memo_are_each_kernels_own)
{
    static const struct { int regs, smem, grid; const char *bps, *occ; float bps_v, occ_v; } cfg[] = {
        {32, 0, 82, "0.5", "12", 0.5f, 12.0f},       {32, 0, 82, "0.25", "12", 0.25f, 12.0f},
        {32, 0, 83, "0.5", "12", 0.5f, 12.0f},       {64, 0, 82, "0.5", "12", 0.5f, 12.0f},
        {32, 0, 82, "0.5", "13", 0.5f, 13.0f},       {32, 0, 82, "5e-1", "12", 0.5f, 12.0f},
        {32, 4096, 82, "0.5", "12", 0.5f, 12.0f},
    };
    enum { NCFG = sizeof cfg / sizeof cfg[0], N = 90 };
    ml_buf j = {0};
    ml_buf_puts(&j, "{\"traceEvents\": [\n");
    for (int i = 0; i < N; i++) {
        int c = (i * 5 + i / 7) % NCFG;
        ml_buf_printf(&j,
                      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5, "
                      "\"args\": {\"External id\": %d,      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 7, "
                      "\"correlation\": %d,      \"registers per thread\": %d,      \"shared memory\": %d,      "
                      "\"blocks per SM\": %s,      \"warps per SM\": 6.074074,      \"grid\": [%d, 1, 1],      "
                      "\"block\": [256, 1, 1],      \"est. achieved occupancy %%\": %s}},\n",
                      i % 3, 100 + 10 * i, 1000 + i, 1 + i, cfg[c].regs, cfg[c].smem, cfg[c].bps, cfg[c].grid, cfg[c].occ);
    }
    ml_buf_puts(&j, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 2000, \"s\": \"t\"}]}");
    ml_profile *p = import_trace(j.p);
    ml_buf_free(&j);
    CHECK(p != NULL);
    if (!p) return;
    ml_profile_finish(p);
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    int seen = 0;
    for (size_t x = 0; x < s->ts.len; x++) {
        if (s->kind.v[x] != ML_SL_KERNEL) continue;
        int i = (int)ml_slice_corr(s, x) - 1, c = (i * 5 + i / 7) % NCFG;
        const ml_kernel_info *k = &t->kernel_info.v[s->info.v[x]];
        CHECK_EQ_I64(ml_slice_ext_id(s, x), 1000 + i);
        CHECK_EQ_I64(k->registers, cfg[c].regs);
        CHECK_EQ_I64(k->shared_memory, cfg[c].smem);
        CHECK_EQ_I64(k->grid[0], cfg[c].grid);
        CHECK_EQ_I64(k->block[0], 256);
        CHECK_EQ_I64(k->stream, 7);
        CHECK(k->blocks_per_sm == cfg[c].bps_v && k->occupancy == cfg[c].occ_v);
        seen++;
    }
    CHECK_EQ_I64(seen, N);
    ml_profile_free(p);
}

int main(void)
{
    RUN(b_e_pairs_nest_and_unmatched_ones_are_tolerated);
    RUN(cuda_sync_args_do_not_reach_the_next_event);
    RUN(gpu_work_gets_stream_tracks_launchers_flows_and_kernel_args);
    RUN(counters_instants_and_m_names);
    RUN(old_format_cats_steps_and_stream_names);
    RUN(backend_device_properties_and_base_time);
    RUN(without_the_want_no_store_is_built);
    RUN(ascend_trace_view_lanes_by_process_name);
    RUN(bad_input_errors_name_file_and_byte);
    RUN(store_sorts_nests_and_counts_partial_overlaps);
    RUN(store_binds_flow_chains);
    RUN(store_links_launchers_by_flow);
    RUN(flow_binding_search_agrees_with_brute_force);
    RUN(store_links_launchers_by_flow_when_an_id_repeats);
    RUN(split_file_gives_the_same_store);
    RUN(store_appended_half_sorts_as_one_store);
    RUN(store_sort_agrees_with_a_stable_sort);
    RUN(store_ids_of_any_width_read_back_exact);
    RUN(real_traces_match_trace_expected_py);
    RUN(plain_args_read_as_the_token_path_reads_them);
    RUN(kernel_launch_args_from_the_run_memo_are_each_kernels_own);
    return check_report();
}
