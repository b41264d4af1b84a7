/* Memory categories (one hand-written step per rule), the memory timeline
 * importer, exports and their round trip, and the real raw timeline against
 * figures computed independently by tests/memtimeline_expected.py. */
#include "check.h"
#include "attribute.h"
#include "breakdown.h"
#include "categories.h"
#include "export.h"
#include "importer.h"
#include "stats.h"

#include <stdarg.h>
#include <unistd.h>

static ml_err err;

/* ---- a small Kineto trace built event by event -------------------------- */

static char tr[1 << 16];
static size_t tr_len;
static int64_t tr_total;

static void add(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (tr_len) tr[tr_len++] = ',';
    tr_len += (size_t)vsnprintf(tr + tr_len, sizeof tr - tr_len, fmt, ap);
    va_end(ap);
}

static void op(int ts, int dur, int tid, const char *cat, const char *name)
{
    add("{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d}", cat, name, tid, ts, dur);
}

/* Memory events must be added in time order: Total Allocated is their running sum. */
static void mem(int ts, int tid, int addr, int bytes)
{
    tr_total += bytes;
    add("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
        "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":%d,\"Bytes\":%d,\"Total Allocated\":%lld,\"Total Reserved\":0}}",
        tid, ts, addr, bytes, (long long)tr_total);
}

static ml_profile *import_timeline(const char *text);
static ml_profile *export_import(const ml_profile *p, ml_export_kind kind);

/* Imports text with an importer (format: what the profile says it is),
 * then attributes and categorises it; NULL (and the error printed) if the
 * import fails. */
static ml_profile *import_with(int (*import)(ml_source *, ml_profile *, const ml_keep *, ml_err *), const char *name,
                               const char *format, const char *text)
{
    ml_source *src = ml_source_from_memory(name, text, strlen(text));
    ml_profile *p = ml_profile_new(name, format);
    err.msg[0] = 0;
    int rc = import(src, p, NULL, &err);
    ml_source_close(src);
    if (rc < 0) {
        printf("%s import failed: %s\n", format, err.msg);
        ml_profile_free(p);
        return NULL;
    }
    ml_attribute(p);
    ml_categorize(p);
    return p;
}

static ml_profile *import_trace(void)
{
    static char doc[sizeof tr + 128];
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%.*s], \"baseTimeNanoseconds\": 1700000000000000000}", (int)tr_len, tr);
    return import_with(ml_kineto_import, "t.json", "kineto", doc);
}

#define GAP 1000000 /* memory from before the trace that the trace never frees */

/*
 * One training step (µs).  Main thread 7, autograd thread 8.
 *   500          alloc before the first step, never freed            -> PARAMETER_OR_STATE
 *   1000-2000    ProfilerStep#1
 *   1010-1050    DataLoader: alloc, freed at 1060                    -> INPUT (data)
 *   1060         aten::to: alloc kept                                -> INPUT (copy kept)
 *   1100 linear  alloc freed in backward at 1400                     -> ACTIVATION
 *   1130 mul     alloc freed inside the op                           -> TEMPORARY (same op)
 *   1160 add     alloc freed at 1200, before backward                -> TEMPORARY (forward)
 *   1205         free of memory from before the trace, in forward    -> Unknown
 *   1210 nll     alloc kept                                          -> ACTIVATION (kept)
 *   1300-1415    backward on thread 8: scratch freed in the next node -> AUTOGRAD_DETAIL,
 *                gradient freed at 1800                              -> GRADIENT,
 *                free of memory from before the trace at 1410        -> ACTIVATION
 *   1450 norm    alloc freed at 1470 (after backward)                -> TEMPORARY (post-backward)
 *   1500-1600    Optimizer.step: state kept                          -> OPTIMIZER_STATE,
 *                scratch freed at 1560                               -> TEMPORARY (optimizer)
 *   2500         alloc between steps                                 -> Unknown
 */
static ml_profile *step_trace(void)
{
    tr_len = 0;
    tr_total = GAP + 8192 + 16;
    add("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":7,\"ts\":1000,\"dur\":1000}");
    op(1010, 40, 7, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    op(1020, 5, 7, "cpu_op", "aten::empty");
    op(1060, 10, 7, "cpu_op", "aten::to");
    op(1100, 20, 7, "cpu_op", "aten::linear");
    op(1130, 20, 7, "cpu_op", "aten::mul");
    op(1160, 20, 7, "cpu_op", "aten::add");
    op(1210, 10, 7, "cpu_op", "aten::nll_loss");
    op(1300, 50, 8, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0");
    op(1355, 60, 8, "cpu_op", "autograd::engine::evaluate_function: MulBackward0");
    op(1450, 10, 7, "cpu_op", "aten::_foreach_norm");
    op(1500, 100, 7, "user_annotation", "Optimizer.step#SGD.step");
    op(1510, 10, 7, "cpu_op", "aten::zeros_like");
    op(1530, 10, 7, "cpu_op", "aten::_foreach_sqrt");
    mem(500, 7, 100, 64);
    mem(1022, 7, 101, 128);
    mem(1062, 7, 102, 256);
    mem(1065, 7, 101, -128);
    mem(1105, 7, 103, 512);
    mem(1132, 7, 104, 1024);
    mem(1140, 7, 104, -1024);
    mem(1165, 7, 105, 2048);
    mem(1200, 7, 105, -2048);
    mem(1205, 7, 9001, -16);
    mem(1212, 7, 106, 4);
    mem(1305, 8, 107, 4096);
    mem(1310, 8, 108, 8192);
    mem(1360, 8, 107, -4096);
    mem(1400, 8, 103, -512);
    mem(1410, 8, 9000, -8192);
    mem(1452, 7, 109, 16);
    mem(1470, 7, 109, -16);
    mem(1512, 7, 110, 32768);
    mem(1532, 7, 111, 32);
    mem(1560, 7, 111, -32);
    mem(1800, 7, 108, -8192);
    mem(2500, 7, 112, 100000);
    return import_trace();
}

static int find(const ml_profile *p, uint64_t addr)
{
    for (size_t i = 0; i < p->allocs.addr.len; i++)
        if (p->allocs.addr.v[i] == addr) return (int)i;
    return -1;
}

#define CHECK_CAT(p, addr, cat, reason)                                                    \
    do {                                                                                   \
        int i_ = find(p, addr);                                                            \
        CHECK(i_ >= 0);                                                                    \
        if (i_ >= 0) {                                                                     \
            CHECK_EQ_STR(ml_category_name((p)->allocs.category.v[i_]), ml_category_name(cat)); \
            CHECK_EQ_STR(ml_category_reason_id((p)->allocs.category_reason.v[i_]), ml_category_reason_id(reason)); \
        }                                                                                  \
    } while (0)

TEST(each_rule_on_one_step)
{
    ml_profile *p = step_trace();
    CHECK(p != NULL);
    if (!p) return;
    CHECK_CAT(p, 100, ML_CAT_PARAMETER_OR_STATE, ML_REASON_BEFORE_STEPS_KEPT);
    CHECK_CAT(p, 101, ML_CAT_INPUT, ML_REASON_DATA);
    CHECK_CAT(p, 102, ML_CAT_INPUT, ML_REASON_COPY_KEPT);
    CHECK_CAT(p, 103, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
    CHECK_CAT(p, 104, ML_CAT_TEMPORARY, ML_REASON_SAME_OP);
    CHECK_CAT(p, 105, ML_CAT_TEMPORARY, ML_REASON_FWD_FREED_IN_FWD);
    CHECK_CAT(p, 9001, ML_CAT_UNKNOWN, ML_REASON_BEFORE_TRACE_FREED);
    CHECK_CAT(p, 106, ML_CAT_ACTIVATION, ML_REASON_FWD_KEPT);
    CHECK_CAT(p, 107, ML_CAT_AUTOGRAD_DETAIL, ML_REASON_BWD_FREED_IN_BWD);
    CHECK_CAT(p, 108, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
    CHECK_CAT(p, 9000, ML_CAT_ACTIVATION, ML_REASON_BEFORE_TRACE_FREED_BWD);
    CHECK_CAT(p, 109, ML_CAT_TEMPORARY, ML_REASON_POSTBW_FREED);
    CHECK_CAT(p, 110, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
    CHECK_CAT(p, 111, ML_CAT_TEMPORARY, ML_REASON_OPT_FREED);
    CHECK_CAT(p, 112, ML_CAT_UNKNOWN, ML_REASON_OUTSIDE_STEPS);
    ml_profile_free(p);
}

TEST(categories_at_peak_add_up_with_memory_from_before_the_trace)
{
    ml_profile *p = step_trace();
    if (!p) return;
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK(st.peak_allocated.found);
    /* The peak is the last alloc (2500): everything never freed, plus the gap. */
    int64_t sum = 0;
    for (int k = 0; k < ML_CAT__COUNT; k++) sum += st.categories_at_peak[k];
    CHECK_EQ_I64(sum, st.peak_allocated.value);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_PARAMETER_OR_STATE], GAP + 64);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_INPUT], 256);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_ACTIVATION], 4);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_OPTIMIZER_STATE], 32768);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_UNKNOWN], 100000);
    /* --by category groups the allocations of the trace by their category */
    bool found = false;
    for (size_t i = 0; i < st.at_peak.n; i++)
        if (!strcmp(st.at_peak.groups[i].label, "OPTIMIZER_STATE")) found = st.at_peak.groups[i].bytes == 32768;
    CHECK(found);
    ml_device_stats_free(&st);

    ml_cat_changes ch;
    ml_category_changes(p, 0, &ch);
    CHECK_EQ_I64(ch.gap, GAP);
    ml_cat_changes_free(&ch);
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.peak[ML_CAT_ACTIVATION], 512 + 4 + 8192); /* 1212: linear + nll + the pre-trace one */
    CHECK_EQ_I64(cc.value[ML_CAT_GRADIENT][cc.n - 1], 0);
    ml_category_curves_free(&cc);
    ml_profile_free(p);
}

TEST(optimizer_frames_without_annotation_and_no_ops_at_all)
{
    tr_len = 0;
    tr_total = 0;
    /* python frames of torch/optim stand in for the Optimizer.step annotation */
    add("{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"torch/optim/adam.py(120): step\",\"pid\":1,\"tid\":7,"
        "\"ts\":100,\"dur\":100,\"args\":{\"Python id\":5,\"Python parent id\":1}}");
    op(110, 10, 7, "cpu_op", "aten::zeros_like");
    op(130, 10, 7, "cpu_op", "aten::sqrt");
    mem(112, 7, 1, 64);
    mem(132, 7, 2, 32);
    mem(150, 7, 2, -32);
    ml_profile *p = import_trace();
    if (!p) return;
    CHECK_CAT(p, 1, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
    CHECK_CAT(p, 2, ML_CAT_TEMPORARY, ML_REASON_OPT_FREED);
    ml_profile_free(p);

    tr_len = 0;
    tr_total = 0;
    mem(10, 7, 1, 64); /* no operators: nothing tells */
    p = import_trace();
    if (!p) return;
    CHECK_CAT(p, 1, ML_CAT_UNKNOWN, ML_REASON_NO_CONTEXT);
    ml_profile_free(p);
}

/* A python_function event (traces recorded with_stack): its frame becomes the
 * stack of allocations inside it. */
static int py_id = 100;
static void py(int ts, int dur, int tid, const char *frame)
{
    add("{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,"
        "\"args\":{\"Python id\":%d,\"Python parent id\":1}}", frame, tid, ts, dur, py_id++);
}

/*
 * The rules step_trace does not reach (µs).  Main thread 7, autograd thread 8.
 *   100-150   nn.Module.to frames: alloc never freed                    -> PARAMETER (module_to)
 *   1000-2000 ProfilerStep#1
 *   1105      aten::linear: alloc freed in backward                     -> ACTIVATION
 *   1206      ones_like under torch/_tensor.py backward frames, before
 *             the engine starts, freed in backward                      -> AUTOGRAD_DETAIL (the seed)
 *   1300-1395 backward: two engine ops and an aten::add_ on thread 8;
 *             1390 alloc in aten::add_, never freed: thread 8 is an
 *             autograd thread (2 of its 3 top-level ops are the engine's)  -> GRADIENT (bwd_kept)
 *   1425      aten::clip after backward, kept                           -> Unknown (postbw_kept)
 *   1500-1600 Optimizer.step: state kept                                -> OPTIMIZER_STATE
 *   1715      torch/optim/lr_scheduler.py frames outside the annotated
 *             step, freed at 1900                                       -> Unknown (opt_unbounded)
 *   3000-3500 ProfilerStep#2 without backward: alloc freed at 3400      -> ACTIVATION (fwd_no_backward)
 */
static ml_profile *rules_trace(void)
{
    tr_len = 0;
    tr_total = 0;
    py(100, 50, 7, "torch/nn/modules/module.py(1150): to");
    op(105, 10, 7, "cpu_op", "aten::to");
    add("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":7,\"ts\":1000,\"dur\":1000}");
    op(1100, 20, 7, "cpu_op", "aten::linear");
    py(1200, 190, 7, "torch/_tensor.py(522): backward");
    op(1205, 5, 7, "cpu_op", "aten::ones_like");
    op(1300, 30, 8, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0");
    op(1335, 45, 8, "cpu_op", "autograd::engine::evaluate_function: MulBackward0");
    op(1385, 10, 8, "cpu_op", "aten::add_");
    op(1420, 10, 7, "cpu_op", "aten::clip");
    op(1500, 100, 7, "user_annotation", "Optimizer.step#Adam.step");
    op(1510, 10, 7, "cpu_op", "aten::zeros_like");
    py(1700, 50, 7, "torch/optim/lr_scheduler.py(200): step");
    op(1710, 10, 7, "cpu_op", "aten::mul");
    add("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":7,\"ts\":3000,\"dur\":500}");
    op(3100, 20, 7, "cpu_op", "aten::linear");
    mem(110, 7, 201, 1000);
    mem(1105, 7, 202, 64);
    mem(1206, 7, 203, 4);
    mem(1340, 8, 202, -64);
    mem(1350, 8, 203, -4);
    mem(1390, 8, 204, 128);
    mem(1425, 7, 205, 256);
    mem(1512, 7, 206, 512);
    mem(1715, 7, 207, 32);
    mem(1900, 7, 207, -32);
    mem(3105, 7, 208, 2048);
    mem(3400, 7, 208, -2048);
    return import_trace();
}

TEST(rules_for_module_seed_autograd_thread_postbw_unbounded_and_inference)
{
    ml_profile *p = rules_trace();
    CHECK(p != NULL);
    if (!p) return;
    CHECK_CAT(p, 201, ML_CAT_PARAMETER, ML_REASON_MODULE_TO);
    CHECK_CAT(p, 202, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
    CHECK_CAT(p, 203, ML_CAT_AUTOGRAD_DETAIL, ML_REASON_BWD_FREED_IN_BWD);
    CHECK_CAT(p, 204, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
    CHECK_CAT(p, 205, ML_CAT_UNKNOWN, ML_REASON_POSTBW_KEPT);
    CHECK_CAT(p, 206, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
    CHECK_CAT(p, 207, ML_CAT_UNKNOWN, ML_REASON_OPT_UNBOUNDED);
    CHECK_CAT(p, 208, ML_CAT_ACTIVATION, ML_REASON_FWD_NO_BACKWARD);
    ml_profile_free(p);
}

/*
 * A model built while the profiler records (torch 2.13, profile() entered
 * before the model exists): ProfilerStep#0 holds nn.Linear.__init__ (its
 * aten::empty weight, never freed), then the forward, backward and step.
 *   110  under torch/nn/modules/linear.py __init__, never freed   -> PARAMETER (module_init)
 *   305  aten::linear in forward, freed in backward               -> ACTIVATION
 *   500  under __init__ but freed (an init temporary)             -> not module_init
 */
TEST(parameters_made_by_module_init_inside_the_trace)
{
    tr_len = 0;
    tr_total = 0;
    add("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#0\",\"pid\":1,\"tid\":7,\"ts\":50,\"dur\":950}");
    py(100, 50, 7, "torch/nn/modules/linear.py(106): __init__");
    op(105, 10, 7, "cpu_op", "aten::empty");
    py(490, 30, 7, "torch/nn/modules/linear.py(106): __init__");
    op(495, 20, 7, "cpu_op", "aten::empty");
    op(300, 20, 7, "cpu_op", "aten::linear");
    py(400, 80, 7, "torch/_tensor.py(522): backward");
    op(410, 30, 8, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0");
    op(445, 30, 8, "cpu_op", "autograd::engine::evaluate_function: TBackward0");
    mem(110, 7, 301, 4096);
    mem(305, 7, 302, 64);
    mem(420, 8, 302, -64);
    mem(500, 7, 303, 16);
    mem(900, 7, 303, -16);
    ml_profile *p = import_trace();
    CHECK(p != NULL);
    if (!p) return;
    CHECK_CAT(p, 301, ML_CAT_PARAMETER, ML_REASON_MODULE_INIT);
    CHECK_CAT(p, 302, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
    int i = find(p, 303);
    CHECK(i >= 0 && p->allocs.category_reason.v[i] != ML_REASON_MODULE_INIT);
    ml_profile_free(p);
}

/* ---- snapshots: phases from the allocations' stacks --------------------- */

static ml_profile *import_snapshot(const char *json)
{
    return import_with(ml_snapshot_import, "s.json", "torch-snapshot", json);
}

/* A snapshot trace entry: action at t µs, with one of the stacks below. */
static char snap[1 << 15];
static size_t snap_len;
static void entry(const char *action, int t, int addr, int size, const char *frames)
{
    snap_len += (size_t)snprintf(snap + snap_len, sizeof snap - snap_len,
                                 "%s{\"action\":\"%s\",\"addr\":%d,\"size\":%d,\"stream\":0,\"time_us\":%d,\"frames\":[%s]}",
                                 snap_len > 40 ? "," : "", action, addr, size, t, frames);
}
#define FR(name, file) "{\"name\":\"" name "\",\"filename\":\"" file "\",\"line\":1}"
#define UNWIND FR("torch::unwind::unwind()", "??") "," FR("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(x)", "CUDACachingAllocator.cpp")
#define S_FWD UNWIND "," FR("forward", "model.py") "," FR("_call_impl", "torch/nn/modules/module.py") "," FR("train", "train.py")
#define S_TO UNWIND "," FR("convert", "torch/nn/modules/module.py") "," FR("_apply", "torch/nn/modules/module.py") "," FR("main", "train.py")
#define S_LOSS UNWIND "," FR("cross_entropy", "loss.py") "," FR("train", "train.py")
#define S_SEED UNWIND "," FR("_make_grads", "torch/autograd/__init__.py") "," FR("backward", "torch/_tensor.py") "," FR("train", "train.py")
#define S_BWD UNWIND "," FR("torch::autograd::generated::MmBackward0::apply(x)", "??") "," \
    FR("torch::autograd::Node::operator()(x)", "??") "," FR("torch::autograd::Engine::evaluate_function(x)", "??") "," \
    FR("torch::autograd::Engine::thread_main(x)", "??")
#define S_CLIP UNWIND "," FR("clip_grad_norm_", "clip.py") "," FR("train", "train.py")
#define S_OPT UNWIND "," FR("step", "torch/optim/adam.py") "," FR("train", "train.py")
#define S_ZERO UNWIND "," FR("zero_grad", "torch/optim/optimizer.py") "," FR("train", "train.py")

/*
 * Two training steps in a snapshot (µs).  No ops: the phases come from the frames.
 *   5     module.convert, never freed                                  -> PARAMETER (module_to)
 *   6     no frames, before the first module call, never freed         -> PARAMETER_OR_STATE (before_steps_kept)
 *   step 1 begins at the first module call:
 *   10    forward, freed at 18 in backward                             -> ACTIVATION (fwd_freed_in_bwd)
 *   11    forward, freed at 12                                         -> TEMPORARY (fwd_freed_in_fwd)
 *   13    the loss (no module frames, before backward), freed at 31   -> ACTIVATION (fwd_kept)
 *   14    the seed under Tensor.backward, freed at 18                  -> AUTOGRAD_DETAIL
 *   15    engine frames, never freed                                   -> GRADIENT (bwd_kept)
 *   16    engine frames, freed at 17                                   -> AUTOGRAD_DETAIL (bwd_freed_in_bwd)
 *   19    clip_grad_norm_ after backward, freed at 25 in the step      -> TEMPORARY (postbw_freed)
 *   20    optimizer, freed at 41 in the next step's optimizer          -> OPTIMIZER_STATE (opt_kept)
 *   21    optimizer, freed at 22                                       -> TEMPORARY (opt_freed)
 *   23    optimizer, freed at 26: after its step, before the next      -> Unknown (opt_freed_after)
 *   24    zero_grad (not the optimizer step), never freed              -> Unknown (postbw_kept)
 *   step 2 begins at the module call after the optimizer:
 *   30    forward, freed at 36 in backward                             -> ACTIVATION
 *   35    engine frames, never freed                                   -> GRADIENT
 *   40    optimizer, never freed                                       -> OPTIMIZER_STATE
 */
static ml_profile *snapshot_steps(void)
{
    snap_len = (size_t)snprintf(snap, sizeof snap, "{\"segments\": [], \"device_traces\": [[");
    entry("alloc", 5, 0x100, 1000, S_TO);
    entry("alloc", 6, 0x200, 16, "");
    entry("alloc", 10, 0x1000, 100, S_FWD);
    entry("alloc", 11, 0x1100, 200, S_FWD);
    entry("free_completed", 12, 0x1100, 200, "");
    entry("alloc", 13, 0x1200, 8, S_LOSS);
    entry("alloc", 14, 0x1300, 4, S_SEED);
    entry("alloc", 15, 0x1400, 300, S_BWD);
    entry("alloc", 16, 0x1500, 50, S_BWD);
    entry("free_completed", 17, 0x1500, 50, "");
    entry("free_completed", 18, 0x1000, 100, "");
    entry("free_completed", 18, 0x1300, 4, "");
    entry("alloc", 19, 0x1600, 16, S_CLIP);
    entry("alloc", 20, 0x1700, 400, S_OPT);
    entry("alloc", 21, 0x1800, 60, S_OPT);
    entry("free_completed", 22, 0x1800, 60, "");
    entry("alloc", 23, 0x1900, 70, S_OPT);
    entry("alloc", 24, 0x1a00, 8, S_ZERO);
    entry("free_completed", 25, 0x1600, 16, "");
    entry("free_completed", 26, 0x1900, 70, "");
    entry("alloc", 30, 0x2000, 100, S_FWD);
    entry("free_completed", 31, 0x1200, 8, "");
    entry("alloc", 35, 0x2100, 300, S_BWD);
    entry("free_completed", 36, 0x2000, 100, "");
    entry("alloc", 40, 0x2200, 400, S_OPT);
    entry("free_completed", 41, 0x1700, 400, "");
    snap_len += (size_t)snprintf(snap + snap_len, sizeof snap - snap_len, "]]}");
    return import_snapshot(snap);
}

TEST(snapshot_phases_from_frames)
{
    ml_profile *p = snapshot_steps();
    CHECK(p != NULL);
    if (!p) return;
    CHECK_CAT(p, 0x100, ML_CAT_PARAMETER, ML_REASON_MODULE_TO);
    CHECK_CAT(p, 0x200, ML_CAT_PARAMETER_OR_STATE, ML_REASON_BEFORE_STEPS_KEPT);
    CHECK_CAT(p, 0x1000, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
    CHECK_CAT(p, 0x1100, ML_CAT_TEMPORARY, ML_REASON_FWD_FREED_IN_FWD);
    CHECK_CAT(p, 0x1200, ML_CAT_ACTIVATION, ML_REASON_FWD_KEPT);
    CHECK_CAT(p, 0x1300, ML_CAT_AUTOGRAD_DETAIL, ML_REASON_BWD_FREED_IN_BWD);
    CHECK_CAT(p, 0x1400, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
    CHECK_CAT(p, 0x1500, ML_CAT_AUTOGRAD_DETAIL, ML_REASON_BWD_FREED_IN_BWD);
    CHECK_CAT(p, 0x1600, ML_CAT_TEMPORARY, ML_REASON_POSTBW_FREED);
    CHECK_CAT(p, 0x1700, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
    CHECK_CAT(p, 0x1800, ML_CAT_TEMPORARY, ML_REASON_OPT_FREED);
    CHECK_CAT(p, 0x1900, ML_CAT_UNKNOWN, ML_REASON_OPT_FREED_AFTER);
    CHECK_CAT(p, 0x1a00, ML_CAT_UNKNOWN, ML_REASON_POSTBW_KEPT);
    CHECK_CAT(p, 0x2000, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
    CHECK_CAT(p, 0x2100, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
    CHECK_CAT(p, 0x2200, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);

    /* The CSV's stack_top is the user frame, not the unwinder's. */
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ml_profiles ps = {0};
    VEC_PUSH(&ps.items, p);
    CHECK(ml_export_all(f, &ps, ML_EXPORT_CSV, NULL) == 0);
    fclose(f);
    CHECK_CONTAINS(buf, ",TEMPORARY,fwd_freed_in_fwd,,,forward (model.py:1),11000,12000,200\n");
    /* ... taken from Python frames only, as MemoryViz: the engine's C++ frames name the autograd node */
    CHECK_CONTAINS(buf, ",GRADIENT,bwd_kept,,,(no Python frame: MmBackward0),15000,,300\n");
    CHECK(strstr(buf, "unwind") == NULL);
    free(buf);
    VEC_FREE(&ps.items);
    ml_profile_free(p);
}

/*
 * A snapshot without module calls (a functional model): only backward and the
 * optimizer show.  10: frames, freed by backward -> ACTIVATION (freed_in_bwd);
 * 11: frames, never freed -> Unknown (no_phase); 12: no frames, never freed
 * -> Unknown (no_context); 20: engine frames, never freed -> GRADIENT.
 */
TEST(snapshot_without_module_calls)
{
    snap_len = (size_t)snprintf(snap, sizeof snap, "{\"segments\": [], \"device_traces\": [[");
    entry("alloc", 10, 0x1000, 100, S_LOSS);
    entry("alloc", 11, 0x1100, 200, S_LOSS);
    entry("alloc", 12, 0x1200, 300, "");
    entry("alloc", 20, 0x2000, 50, S_BWD);
    entry("free_completed", 21, 0x1000, 100, "");
    snap_len += (size_t)snprintf(snap + snap_len, sizeof snap - snap_len, "]]}");
    ml_profile *p = import_snapshot(snap);
    CHECK(p != NULL);
    if (!p) return;
    CHECK_CAT(p, 0x1000, ML_CAT_ACTIVATION, ML_REASON_FREED_IN_BWD);
    CHECK_CAT(p, 0x1100, ML_CAT_UNKNOWN, ML_REASON_NO_PHASE);
    CHECK_CAT(p, 0x1200, ML_CAT_UNKNOWN, ML_REASON_NO_CONTEXT);
    CHECK_CAT(p, 0x2000, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
    ml_profile_free(p);
}

/* ---- the category stack is the allocated curve --------------------------- */

typedef struct tchange { int64_t t, d; } tchange;
static int tchange_cmp(const void *x, const void *y)
{
    const tchange *a = x, *b = y;
    return (a->t > b->t) - (a->t < b->t);
}

/*
 * At every distinct time of the category curves and of the recorded allocated
 * curve (from its first point on), the categories add up to the allocated
 * curve: max(recorded, live allocations) where the curve is recorded (the
 * unexplained gap fills what the allocations miss), the replayed curve where
 * it is not.  The live allocations are replayed here from the rows, on their
 * own; a curve replayed from events (snapshots) is compared as it is.
 */
static void check_stack_is_curve(const ml_profile *p, int dev)
{
    ml_category_curves cc;
    ml_curve cv;
    if (!ml_category_curves_get(p, dev, &cc)) return;
    CHECK(ml_curve_get(p, dev, ML_SERIES_ALLOCATED, &cv));
    const ml_allocs *a = &p->allocs;
    VEC(tchange) ch = {0};
    int64_t live = 0;
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if (a->device.v[i] != dev) continue;
        if (a->t_alloc.v[i] == ML_TIME_NONE) live += a->size.v[i];
        else VEC_PUSH(&ch, ((tchange){a->t_alloc.v[i], a->size.v[i]}));
        if (a->t_free.v[i] != ML_TIME_END) VEC_PUSH(&ch, ((tchange){a->t_free.v[i], -a->size.v[i]}));
    }
    if (ch.len) qsort(ch.v, ch.len, sizeof *ch.v, tchange_cmp);
    size_t i = 0, j = 0, k = 0, checked = 0, bad = 0;
    int64_t rec = 0, stack = 0;
    for (int c = 0; c < ML_CAT__COUNT; c++) stack += cc.initial[c];
    while (j < cc.n || k < cv.n) {
        int64_t t = j < cc.n && (k == cv.n || cc.ts[j] <= cv.ts[k]) ? cc.ts[j] : cv.ts[k];
        for (; i < ch.len && ch.v[i].t <= t; i++) live += ch.v[i].d;
        for (; k < cv.n && cv.ts[k] <= t; k++) rec = cv.value[k];
        for (; j < cc.n && cc.ts[j] <= t; j++) {
            stack = 0;
            for (int c = 0; c < ML_CAT__COUNT; c++) stack += cc.value[c][j];
        }
        if (!cv.n || t < cv.ts[0]) continue;
        int64_t want = cv.replayed ? rec : rec > live ? rec : live;
        checked++;
        if (stack != want && bad++ < 3) printf("  %s at %lld: categories %lld, curve %lld\n", p->path, (long long)t,
                                               (long long)stack, (long long)want);
    }
    CHECK(checked > 0);
    CHECK_EQ_I64(bad, 0);
    VEC_FREE(&ch);
    ml_curve_free(&cv);
    ml_category_curves_free(&cc);
}

/*
 * Recorded totals that do not follow the allocations: memory from before the
 * trace that the trace never frees (10000), then allocations the totals miss
 * (the total stays below them) and memory the trace does not list.
 */
static void gap_trace_mem(int ts, int addr, int bytes, long long total)
{
    add("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":7,\"ts\":%d,"
        "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":%d,\"Bytes\":%d,\"Total Allocated\":%lld,\"Total Reserved\":0}}",
        ts, addr, bytes, total);
}

TEST(category_stack_is_the_allocated_curve)
{
    ml_profile *p = step_trace();
    if (p) {
        check_stack_is_curve(p, 0);
        ml_profile_free(p);
    }
    tr_len = 0;
    gap_trace_mem(10, 1, 100, 10100);  /* gap 10000 */
    gap_trace_mem(20, 2, 500, 10100);  /* the total misses it: gap 9500 */
    gap_trace_mem(30, 3, 10000, 10000); /* allocations above the total: gap 0, the stack is the allocations */
    gap_trace_mem(40, 3, -10000, 12000); /* gap 11400: memory the trace does not list */
    gap_trace_mem(50, 1, -100, 5000);  /* gap 4500 */
    p = import_trace();
    CHECK(p != NULL);
    if (p) {
        check_stack_is_curve(p, 0);
        ml_category_curves cc;
        CHECK(ml_category_curves_get(p, 0, &cc));
        static const int64_t gap[] = {10000, 9500, 0, 11400, 4500};
        CHECK_EQ_I64(cc.initial[ML_CAT_PARAMETER_OR_STATE], 10000);
        CHECK_EQ_I64(cc.n, 5);
        CHECK_EQ_I64(cc.initial_gap, 10000);
        for (size_t i = 0; i < cc.n && i < 5; i++) {
            CHECK_EQ_I64(cc.value[ML_CAT_PARAMETER_OR_STATE][i], gap[i]);
            CHECK_EQ_I64(cc.gap[i], gap[i]); /* all of PARAMETER_OR_STATE is the gap here */
        }
        ml_category_curves_free(&cc);
        ml_profile_free(p);
    }
    p = snapshot_steps();
    if (p) {
        check_stack_is_curve(p, 0);
        ml_profile_free(p);
    }
    /* Real inputs of each kind, where the shared data is present. */
    static const char *const real[] = {"kineto/hta_df_index_resolver.json.gz", "ascend/text_level1",
                                       "snapshot/cs336_memory_ctx256_fullstep_.pickle", "kineto/tbplugin_resnet50_w0.pt.trace.json.gz"};
    for (size_t r = 0; r < sizeof real / sizeof *real; r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", check_data_dir(), real[r]);
        if (access(path, R_OK) != 0) SKIP("shared data not present");
        ml_profiles ps = {0};
        CHECK(ml_load(path, &ps, &err) == 0);
        for (size_t k = 0; k < ps.items.len; k++)
            for (size_t d = 0; d < ps.items.v[k]->devices.len; d++) {
                check_stack_is_curve(ps.items.v[k], (int)d);
                /* the gap is a part of PARAMETER_OR_STATE at every point (the report draws it apart) */
                ml_category_curves cc;
                if (!ml_category_curves_get(ps.items.v[k], (int)d, &cc)) continue;
                size_t bad = 0;
                for (size_t i = 0; i < cc.n; i++)
                    bad += cc.gap[i] < 0 || cc.gap[i] > cc.value[ML_CAT_PARAMETER_OR_STATE][i];
                CHECK_EQ_I64(bad, 0);
                ml_category_curves_free(&cc);
            }
        ml_profiles_free(&ps);
    }
}

/* Under --by category the groups at the peak are the categories at the peak,
 * memory from before the trace included. */
static void check_groups_are_categories(const ml_profile *p, int dev)
{
    ml_device_stats st;
    ml_device_stats_compute(p, dev, ML_BY_CATEGORY, &st);
    if (st.peak_allocated.found) {
        int64_t got[ML_CAT__COUNT] = {0}, sum = 0;
        for (size_t i = 0; i < st.at_peak.n; i++) {
            int c = ml_category_parse(st.at_peak.groups[i].label);
            CHECK(c >= 0);
            if (c >= 0) got[c] += st.at_peak.groups[i].bytes;
            sum += st.at_peak.groups[i].bytes;
        }
        for (int c = 0; c < ML_CAT__COUNT; c++) CHECK_EQ_I64(got[c], st.categories_at_peak[c]);
        CHECK_EQ_I64(sum, st.peak_allocated.value);
        CHECK(st.at_peak.before_grouped);
    }
    ml_device_stats_free(&st);
}

TEST(groups_by_category_are_the_categories_at_the_peak)
{
    ml_profile *p = step_trace();
    if (p) {
        check_groups_are_categories(p, 0);
        ml_profile_free(p);
    }
    /* memory from before the trace (PREEXISTING) in the peak */
    p = import_timeline("[[-1, 1, 1000, 0], [-1, 1, 24, 7], [5000, 2, 64, 4]]");
    CHECK(p != NULL);
    if (p) {
        check_groups_are_categories(p, 0);
        ml_profile_free(p);
    }
    static const char *const real[] = {"ascend/text_level1", "kineto/tbplugin_resnet50_w0.pt.trace.json.gz",
                                       "snapshot/cs336_memory_ctx128_forward.pickle"};
    for (size_t r = 0; r < sizeof real / sizeof *real; r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", check_data_dir(), real[r]);
        if (access(path, R_OK) != 0) SKIP("shared data not present");
        ml_profiles ps = {0};
        CHECK(ml_load(path, &ps, &err) == 0);
        for (size_t k = 0; k < ps.items.len; k++)
            for (size_t d = 0; d < ps.items.v[k]->devices.len; d++) check_groups_are_categories(ps.items.v[k], (int)d);
        ml_profiles_free(&ps);
    }
}


/* `summary --json` reads lean storage (needs.lean, with categories):
 * a snapshot keeps no threads, a Kineto trace's events keep theirs (the
 * phase at a free is its thread's); the categories are those of a full read. */
/* The categories of a file loaded with `needs`. */
static ml_profiles load_file_with(const char *doc, ml_needs needs)
{
    char path[] = "/tmp/memlens-test-categories-XXXXXX";
    ml_profiles ps = {.needs = needs};
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, doc, strlen(doc)) != (ssize_t)strlen(doc)) {
        CHECK_FAILED_("cannot write %s", path);
        return ps;
    }
    close(fd);
    CHECK(ml_load(path, &ps, &err) == 0);
    unlink(path);
    return ps;
}

TEST(lean_storage_gives_the_same_categories)
{
    /* Allocated in the forward pass on the main thread (7), freed on the
     * autograd thread (8) after the engine's last op: in the backward pass by
     * its thread, not by its time on the main thread (ACTIVATION, not kept). */
    static const char *doc =
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":7,\"ts\":1000,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":7,\"ts\":1100,\"dur\":20},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":7,\"ts\":1105,"
        "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1,\"Bytes\":64}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"autograd::engine::evaluate_function: AddmmBackward0\","
        "\"pid\":1,\"tid\":8,\"ts\":1300,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_foreach_norm\",\"pid\":1,\"tid\":7,\"ts\":1450,\"dur\":10},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":8,\"ts\":1455,"
        "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1,\"Bytes\":-64}}]";
    ml_profiles lean_ps = load_file_with(doc, (ml_needs){.lean = true}), full_ps = load_file_with(doc, (ml_needs){0});
    if (lean_ps.items.len == 1 && full_ps.items.len == 1) {
        const ml_allocs *a = &lean_ps.items.v[0]->allocs, *b = &full_ps.items.v[0]->allocs;
        CHECK_EQ_I64(a->t_alloc.len, 1);
        CHECK_EQ_I64(b->t_alloc.len, 1);
        if (a->t_alloc.len == 1 && b->t_alloc.len == 1) {
            CHECK_EQ_I64(b->category.v[0], ML_CAT_ACTIVATION);
            CHECK_EQ_I64(b->category_reason.v[0], ML_REASON_FWD_FREED_IN_BWD);
            CHECK_EQ_I64(a->category.v[0], b->category.v[0]);
            CHECK_EQ_I64(a->category_reason.v[0], b->category_reason.v[0]);
        }
        CHECK_EQ_I64(lean_ps.items.v[0]->events.addr.len, 0); /* read lean */
    }
    ml_profiles_free(&lean_ps);
    ml_profiles_free(&full_ps);

    static const char *const real[] = {"snapshot/cs336_memory_ctx256_fullstep_.pickle",
                                       "snapshot/cs336_memory_ctx128_forward.pickle",
                                       "kineto/hta_df_index_resolver.json.gz",
                                       "kineto/tbplugin_resnet50_w0.pt.trace.json.gz"};
    size_t known = 0;
    for (size_t r = 0; r < sizeof real / sizeof *real; r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", check_data_dir(), real[r]);
        if (access(path, R_OK) != 0) SKIP("shared data not present");
        ml_profiles lean = {.needs = {.lean = true}}, full = {0};
        CHECK(ml_load(path, &lean, &err) == 0);
        CHECK(ml_load(path, &full, &err) == 0);
        if (lean.items.len == 1 && full.items.len == 1) {
            const ml_allocs *a = &lean.items.v[0]->allocs, *b = &full.items.v[0]->allocs;
            CHECK_EQ_I64(a->t_alloc.len, b->t_alloc.len);
            size_t differ = 0;
            for (size_t i = 0; i < a->t_alloc.len && i < b->t_alloc.len; i++) {
                differ += a->category.v[i] != b->category.v[i] || a->category_reason.v[i] != b->category_reason.v[i];
                known += b->category.v[i] != ML_CAT_UNKNOWN;
            }
            CHECK_EQ_I64(differ, 0);
            if (r < 2) CHECK(lean.items.v[0]->lean); /* a snapshot in time order: read lean */
        }
        ml_profiles_free(&lean);
        ml_profiles_free(&full);
    }
    CHECK(known > 0); /* (the rules had something to go by) */
}

TEST(names_and_pytorch_indices)
{
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_PARAMETER), 0);
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_AUTOGRAD_DETAIL), 6);
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_UNKNOWN), 7);
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_PARAMETER_OR_STATE), 7);
    CHECK_EQ_I64(ml_category_from_torch(7), ML_CAT_UNKNOWN);
    CHECK_EQ_I64(ml_category_from_torch(8), -1);
    for (int k = 0; k < ML_CAT__COUNT; k++) CHECK_EQ_I64(ml_category_parse(ml_category_name(k)), k);
    for (int r = 0; r < ML_REASON__COUNT; r++) CHECK(strlen(ml_category_reason_text(r)) > 5);
}

/* ---- memory timelines ----------------------------------------------------- */

static ml_profile *import_timeline(const char *text)
{
    ml_source *src = ml_source_from_memory("tl.json", text, strlen(text));
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 4096, &err);
    if (ml_memtimeline_sniff("tl.json", head, n) < 50) printf("sniff did not recognise: %.60s\n", text);
    ml_profile *p = ml_profile_new("tl.json", "torch-memory-timeline");
    err.msg[0] = 0;
    int rc = ml_memtimeline_import(src, p, NULL, &err);
    ml_source_close(src);
    if (rc < 0) {
        ml_profile_free(p);
        return NULL;
    }
    ml_categorize(p);
    return p;
}

TEST(raw_timeline_rows_become_allocations)
{
    /* a parameter from before, an activation created and destroyed, a version bump
     * moving an Unknown tensor to GRADIENT */
    ml_profile *p = import_timeline("[[-1, 1, 1000, 0], [5000, 2, 64, 4], [6000, 2, 32, 7],"
                                    " [7000, 3, -32, 7], [7000, 3, 32, 5], [8000, 4, -64, 4]]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(ml_memtimeline_sniff("x", (const unsigned char *)"[[-1, 1, 5, 7], [", 17) >= 60);
    CHECK_EQ_I64(ml_allocs_count(p), 4);
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.initial[ML_CAT_PARAMETER], 1000);
    CHECK_EQ_I64(cc.n, 4);
    CHECK_EQ_I64(cc.ts[2], 7000);
    CHECK_EQ_I64(cc.value[ML_CAT_GRADIENT][2], 32);
    CHECK_EQ_I64(cc.value[ML_CAT_UNKNOWN][2], 0);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][3], 0);
    CHECK_EQ_I64(cc.peak[ML_CAT_ACTIVATION], 64);
    ml_category_curves_free(&cc);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 1096);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_UNKNOWN], 32);
    ml_device_stats_free(&st);
    size_t imported = 0;
    for (size_t i = 0; i < ml_allocs_count(p); i++) imported += p->allocs.category_reason.v[i] == ML_REASON_IMPORTED;
    CHECK_EQ_I64(imported, 4);
    ml_profile_free(p);
}

/* A release with no allocation of its size open takes the latest open ones
 * of its category (splitting the last); the part that stays keeps its
 * allocation time, so memory from before stays from before. */
TEST(raw_release_without_a_pair_takes_from_its_category)
{
    ml_profile *p = import_timeline("[[-1, 1, 100, 0], [5, 4, -50, 0], [6, 4, -50, 0]]");
    CHECK(p != NULL);
    if (!p) return;
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.initial[ML_CAT_PARAMETER], 100);
    CHECK_EQ_I64(cc.n, 2);
    CHECK_EQ_I64(cc.value[ML_CAT_PARAMETER][0], 50);
    CHECK_EQ_I64(cc.value[ML_CAT_PARAMETER][1], 0);
    ml_category_curves_free(&cc);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 100); /* before the first row */
    CHECK_EQ_I64(st.never_freed_bytes, 0);
    ml_device_stats_free(&st);
    size_t before = 0;
    for (size_t i = 0; i < ml_allocs_count(p); i++) before += p->allocs.t_alloc.v[i] == ML_TIME_NONE;
    CHECK_EQ_I64(before, 2);
    ml_profile_free(p);

    /* A creation and a release at one time (a new version): the release is of
     * the older allocation, which came from before the trace. */
    p = import_timeline("[[-1, 1, 64, 7], [5, 2, 64, 7], [5, 4, -64, 7]]");
    CHECK(p != NULL);
    if (!p) return;
    for (size_t i = 0; i < ml_allocs_count(p); i++)
        CHECK_EQ_I64(p->allocs.t_free.v[i], p->allocs.t_alloc.v[i] == ML_TIME_NONE ? 5 : ML_TIME_END);
    ml_profile_free(p);

    /* `[]` is an empty timeline: no events, an error; a zero-byte row keeps its time */
    CHECK(ml_memtimeline_sniff("x", (const unsigned char *)"[]\n", 3) > 0);
    p = import_timeline("[]");
    CHECK(p == NULL);
    CHECK_EQ_STR(err.msg, "tl.json: byte 0: no events: the memory timeline is empty (nothing was recorded for its device)");
    ml_profile_free(p);
    p = import_timeline("[[5000, 2, 64, 4], [6000, 2, 0, 7], [7000, 4, -64, 4]]");
    CHECK(p != NULL);
    if (p) {
        CHECK(ml_category_curves_get(p, 0, &cc));
        CHECK_EQ_I64(cc.n, 3);
        ml_category_curves_free(&cc);
        ml_profile_free(p);
    }
}

/* PyTorch's int(t / 1000) in doubles: values from `tests/torch_timeline.py us`. */
TEST(torch_us_matches_python)
{
    static const int64_t t[][2] = {
        {1696966047194486875LL, 1696966047194487LL}, {1696966047194486874LL, 1696966047194486LL},
        {1696966047194486999LL, 1696966047194487LL}, {1696966047194486125LL, 1696966047194486LL},
        {1696966047194486625LL, 1696966047194486LL}, {1125899906842624875LL, 1125899906842625LL},
        {2251799813685248750LL, 2251799813685249LL}, {4503599627370496500LL, 4503599627370496LL},
        {4503599627370497500LL, 4503599627370498LL}, {9007199254740993000LL, 9007199254740992LL},
        {9007199254740995000LL, 9007199254740996LL}, {INT64_MAX, 9223372036854776LL},
        {999, 0}, {1000, 1}, {0, 0}, {123456789, 123456},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) CHECK_EQ_I64(ml_torch_us(t[i][0]), t[i][1]);
}

/* A coalesced timeline read and written again is the same text: every entry
 * is kept, also those where no total changes (PyTorch writes one for every
 * distinct µs that had a row), and the PREEXISTING entry. */
TEST(coalesced_timeline_round_trips_to_the_same_text)
{
    static const char *const text[] = {
        "[[10, 10, 20, 30, 40], [[0, 100, 0, 0, 0, 0, 0, 0, 0], [0, 100, 0, 0, 0, 50, 0, 0, 0], "
        "[0, 100, 0, 0, 0, 50, 0, 0, 0], [0, 100, 0, 0, 0, 20, 0, 0, 7], [0, 100, 0, 0, 0, 20, 0, 0, 7]]]\n",
        "[[10, 10], [[0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 8, 0, 0, 0, 0]]]\n",
        "[[-1], [[0, 5, 0, 0, 0, 0, 0, 0, 0]]]\n",
        "[[], []]\n",
    };
    for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
        ml_profile *p = import_timeline(text[i]);
        CHECK(p != NULL);
        if (!p) continue;
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        CHECK(ml_export_torch(f, p, 0, ML_EXPORT_TIMELINE) == 0);
        fclose(f);
        CHECK_EQ_STR(buf, text[i]);
        free(buf);
        ml_profile_free(p);
    }
}

/* Memory events without addresses (PyTorch < 1.10): no allocations, so the
 * categories are the replayed curve as Unknown, and the exports hold it. */
TEST(events_without_addresses_are_one_unknown_curve)
{
    tr_len = 0;
    static const int ev[][2] = {{10, 100}, {20, 50}, {30, -100}, {40, 200}, {50, -250}};
    for (size_t i = 0; i < 5; i++)
        add("{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":7,\"ts\":%d,"
            "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":%d}}", ev[i][0], ev[i][1]);
    ml_profile *p = import_trace();
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(ml_allocs_count(p), 0);
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    static const int64_t level[] = {100, 150, 50, 250, 0};
    CHECK_EQ_I64(cc.n, 5);
    for (size_t i = 0; i < cc.n && i < 5; i++) CHECK_EQ_I64(cc.value[ML_CAT_UNKNOWN][i], level[i]);
    CHECK_EQ_I64(cc.peak[ML_CAT_UNKNOWN], 250);
    ml_category_curves_free(&cc);
    check_stack_is_curve(p, 0);
    check_groups_are_categories(p, 0);
    ml_profile *q = export_import(p, ML_EXPORT_RAW);
    CHECK(q != NULL);
    if (q) {
        ml_device_stats st;
        ml_device_stats_compute(q, 0, ML_BY_CATEGORY, &st);
        CHECK_EQ_I64(st.peak_allocated.value, 250);
        CHECK_EQ_I64(st.categories_at_peak[ML_CAT_UNKNOWN], 250);
        ml_device_stats_free(&st);
        ml_profile_free(q);
    }
    ml_profile_free(p);
}

TEST(coalesced_timeline_totals_are_kept_exactly)
{
    /* times in µs; a PREEXISTING entry repeating the next time; ACTIVATION rises twice then falls by part */
    ml_profile *p = import_timeline("[[10, 10, 20, 30], [[0, 100, 0, 0, 0, 0, 0, 0, 0], [0, 100, 0, 0, 0, 50, 0, 0, 0],"
                                    " [0, 100, 0, 0, 0, 80, 0, 0, 0], [0, 100, 0, 0, 0, 20, 0, 0, 5]]]");
    CHECK(p != NULL);
    if (!p) return;
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.initial[ML_CAT_PARAMETER], 100);
    CHECK_EQ_I64(cc.n, 3);
    CHECK_EQ_I64(cc.ts[0], 10000);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][0], 50);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][1], 80);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][2], 20);
    CHECK_EQ_I64(cc.value[ML_CAT_UNKNOWN][2], 5);
    ml_category_curves_free(&cc);
    ml_profile_free(p);
}

TEST(bad_timelines_fail_with_file_and_byte)
{
    const char *bad[] = {
        "[[1, 2, 3]]", "[[-1, 9, 5, 0]]", "[[-1, 1, 5, 8]]", "[[1, 2], [[0, 1]]]", "[[1, 2], [[0,0,0,0,0,0,0,0,0]]]",
        "[[-1, 4, -5, 0]]", "[[1, 2, 3, 4], [1, 2, 3]]", "[[1, 2, 3, 4], [1, 2, \"x\", 4]]", "[[5, 1], [[0,0,0,0,0,0,0,0,0], [0,0,0,0,0,0,0,0,0]]]",
        /* not integers, data after the timeline, a cut file */
        "[[1, 2, 1.5, 4], [2, 4, -1, 4]]", "[[1, 2, 3e2, 4], [2, 4, -1, 4]]", "[[1, 2], [[0,0,0,0,0,0.5,0,0,0], [0,0,0,0,0,0,0,0,0]]]",
        "[[1, 2, 3, 4], [2, 4, -3, 4]] x", "[[1, 2, 3, 4]] [", "[[1, 2], [[0,0,0,0,0,0,0,0,0], [0,0,0,0,0,0,0,0,0]]] 5",
        "[[1, 2, 3, 4], [2, 4, -3, 4],", "[] x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ml_profile *p = import_timeline(bad[i]);
        CHECK(p == NULL);
        if (p) {
            printf("accepted: %s\n", bad[i]);
            ml_profile_free(p);
        }
        CHECK_CONTAINS(err.msg, "tl.json");
        CHECK_CONTAINS(err.msg, "byte");
    }
}

/* ---- round trips ------------------------------------------------------------ */

/* Per-category levels with PARAMETER_OR_STATE folded into Unknown, as PyTorch's formats hold them. */
static int64_t level_of(const ml_category_curves *c, int cat, size_t i)
{
    int64_t v = c->value[cat][i];
    if (cat == ML_CAT_UNKNOWN) v += c->value[ML_CAT_PARAMETER_OR_STATE][i];
    return cat == ML_CAT_PARAMETER_OR_STATE ? 0 : v;
}

static int64_t level_of_initial(const ml_category_curves *c, int cat)
{
    int64_t v = c->initial[cat];
    if (cat == ML_CAT_UNKNOWN) v += c->initial[ML_CAT_PARAMETER_OR_STATE];
    return cat == ML_CAT_PARAMETER_OR_STATE ? 0 : v;
}

static ml_profile *export_import(const ml_profile *p, ml_export_kind kind)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(ml_export_torch(f, p, 0, kind) == 0);
    fclose(f);
    ml_profile *q = import_timeline(buf);
    if (!q) printf("re-import failed: %s\n", err.msg);
    free(buf);
    return q;
}

/* Raw: the same curves, point for point.  Coalesced: one point per µs of
 * the original's times (as PyTorch's int(t / 1000) makes them: ml_torch_us,
 * checked against Python in torch_us_matches_python), each with the state at
 * the end of that µs, and the same levels before the first. */
static void check_round_trip(const ml_profile *p)
{
    ml_category_curves a, b;
    CHECK(ml_category_curves_get(p, 0, &a));
    CHECK(a.n > 0);
    ml_profile *q = export_import(p, ML_EXPORT_RAW);
    CHECK(q != NULL);
    if (q) {
        CHECK(ml_category_curves_get(q, 0, &b));
        CHECK_EQ_I64(b.n, a.n);
        size_t bad = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of_initial(&a, k) != level_of_initial(&b, k);
        for (size_t i = 0; i < a.n && i < b.n; i++) {
            bad += a.ts[i] != b.ts[i];
            for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of(&a, k, i) != level_of(&b, k, i);
        }
        CHECK_EQ_I64(bad, 0);
        ml_category_curves_free(&b);
        ml_profile_free(q);
    }
    q = export_import(p, ML_EXPORT_TIMELINE);
    CHECK(q != NULL);
    if (q) {
        CHECK(ml_category_curves_get(q, 0, &b));
        size_t bad = 0, j = 0, nus = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of_initial(&a, k) != level_of_initial(&b, k);
        for (size_t i = 0; i < a.n; i++) {
            int64_t us = ml_torch_us(a.ts[i]);
            if (i + 1 < a.n && ml_torch_us(a.ts[i + 1]) == us) continue; /* the end of this µs */
            nus++;
            if (j >= b.n) continue;
            bad += b.ts[j] != us * 1000;
            for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of(&a, k, i) != level_of(&b, k, j);
            j++;
        }
        CHECK_EQ_I64(b.n, nus);
        CHECK_EQ_I64(bad, 0);
        ml_category_curves_free(&b);
        ml_profile_free(q);
    }
    ml_category_curves_free(&a);
}

TEST(round_trip_of_a_categorised_trace)
{
    ml_profile *p = step_trace();
    if (!p) return;
    check_round_trip(p);
    ml_profile_free(p);
}

/* ---- the real raw timeline (figures from tests/memtimeline_expected.py) ---- */

TEST(real_raw_timeline)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/memory_timeline/hta_memory_timeline.raw.json.gz", check_data_dir());
    if (access(path, R_OK) != 0) SKIP("shared data not present");
    ml_profiles ps = {0};
    CHECK(ml_load(path, &ps, &err) == 0);
    if (!ps.items.len) return;
    const ml_profile *p = ps.items.v[0];
    CHECK_EQ_STR(p->format, "torch-memory-timeline");
    CHECK(p->time_is_absolute);
    static const int64_t peaks[8] = {102440608, 102228128, 19395584, 129024, 2746497024, 107868160, 256901120, 168297384};
    static const int64_t finals[8] = {102440608, 102228128, 19395584, 0, 128000, 107868160, 0, 424};
    static const int64_t at_peak[8] = {102440608, 102228128, 19395584, 0, 2592465920, 67858432, 64225280, 134218152};
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    for (int t = 0; t < 8; t++) {
        int k = ml_category_from_torch(t);
        CHECK_EQ_I64(cc.peak[k], peaks[t]);
        CHECK_EQ_I64(cc.value[k][cc.n - 1], finals[t]);
    }
    ml_category_curves_free(&cc);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 3082832104LL);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 1696966047194486198LL);
    for (int t = 0; t < 8; t++) CHECK_EQ_I64(st.categories_at_peak[ml_category_from_torch(t)], at_peak[t]);
    ml_device_stats_free(&st);
    check_round_trip(p);
    ml_profiles_free(&ps);
}

int main(void)
{
    RUN(each_rule_on_one_step);
    RUN(categories_at_peak_add_up_with_memory_from_before_the_trace);
    RUN(optimizer_frames_without_annotation_and_no_ops_at_all);
    RUN(rules_for_module_seed_autograd_thread_postbw_unbounded_and_inference);
    RUN(parameters_made_by_module_init_inside_the_trace);
    RUN(snapshot_phases_from_frames);
    RUN(snapshot_without_module_calls);
    RUN(category_stack_is_the_allocated_curve);
    RUN(groups_by_category_are_the_categories_at_the_peak);
    RUN(lean_storage_gives_the_same_categories);
    RUN(names_and_pytorch_indices);
    RUN(raw_timeline_rows_become_allocations);
    RUN(raw_release_without_a_pair_takes_from_its_category);
    RUN(coalesced_timeline_totals_are_kept_exactly);
    RUN(coalesced_timeline_round_trips_to_the_same_text);
    RUN(torch_us_matches_python);
    RUN(events_without_addresses_are_one_unknown_curve);
    RUN(bad_timelines_fail_with_file_and_byte);
    RUN(round_trip_of_a_categorised_trace);
    RUN(real_raw_timeline);
    return check_report();
}
