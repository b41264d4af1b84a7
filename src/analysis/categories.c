/* categories.c — phases, lifetimes and frames to memory categories; see categories.h. */
#include "categories.h"
#include "freeorder.h"
#include "par.h"
#include "sortperm.h"
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

/* ---- names ---------------------------------------------------------------- */

static const char *const cat_names[ML_CAT__COUNT] = {
    "Unknown", "PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY",
    "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "PARAMETER_OR_STATE",
};

/* PyTorch's plot colours (torch/profiler/_memory_profiler.py), and a darker
 * green for the mixed label. */
static const char *const cat_colors[ML_CAT__COUNT] = {
    "grey", "darkgreen", "goldenrod", "black", "mediumpurple",
    "red", "mediumblue", "royalblue", "olivedrab",
};

const uint8_t ml_category_order[ML_CAT__COUNT] = {
    ML_CAT_PARAMETER, ML_CAT_OPTIMIZER_STATE, ML_CAT_PARAMETER_OR_STATE, ML_CAT_INPUT, ML_CAT_TEMPORARY,
    ML_CAT_ACTIVATION, ML_CAT_GRADIENT, ML_CAT_AUTOGRAD_DETAIL, ML_CAT_UNKNOWN,
};

const char *ml_category_name(int cat) { return cat >= 0 && cat < ML_CAT__COUNT ? cat_names[cat] : "Unknown"; }
const char *ml_category_color(int cat) { return cat >= 0 && cat < ML_CAT__COUNT ? cat_colors[cat] : "grey"; }

int ml_category_parse(const char *name)
{
    for (int i = 0; i < ML_CAT__COUNT; i++)
        if (!strcmp(name, cat_names[i])) return i;
    return -1;
}

int ml_category_to_torch(int cat)
{
    return cat >= ML_CAT_PARAMETER && cat <= ML_CAT_AUTOGRAD_DETAIL ? cat - 1 : 7;
}

int ml_category_from_torch(int64_t index)
{
    if (index >= 0 && index <= 6) return (int)index + 1;
    return index == 7 ? ML_CAT_UNKNOWN : -1;
}

static const struct { const char *id, *text; } reasons[ML_REASON__COUNT] = {
    [ML_REASON_NONE] = {"none", "not categorised"},
    [ML_REASON_IMPORTED] = {"imported", "category recorded in the input (PyTorch memory timeline)"},
    [ML_REASON_NO_CONTEXT] = {"no_context", "no operators, steps or stack frames around it tell its role"},
    [ML_REASON_FREED_IN_BWD] = {"freed_in_bwd", "allocated where nothing tells the phase, freed by the backward pass: kept for backward"},
    [ML_REASON_NO_PHASE] = {"no_phase", "its stack frames show no phase (no module call, autograd engine, optimizer or data loader) and no operators or steps tell one"},
    [ML_REASON_SAME_OP] = {"same_op", "freed inside the top-level op that allocated it"},
    [ML_REASON_DATA] = {"data", "allocated while loading data (DataLoader)"},
    [ML_REASON_FWD_FREED_IN_BWD] = {"fwd_freed_in_bwd", "allocated in forward, freed in backward"},
    [ML_REASON_FWD_FREED_IN_FWD] = {"fwd_freed_in_fwd", "allocated and freed in forward, not kept for backward"},
    [ML_REASON_COPY_KEPT] = {"copy_kept", "copied to the device (aten::to / copy_) and kept past the backward pass"},
    [ML_REASON_FWD_KEPT] = {"fwd_kept", "allocated in forward and kept past the backward pass (e.g. the loss)"},
    [ML_REASON_FWD_NO_BACKWARD] = {"fwd_no_backward", "allocated in forward of a step without backward"},
    [ML_REASON_BWD_FREED_IN_BWD] = {"bwd_freed_in_bwd", "allocated and freed within the backward pass"},
    [ML_REASON_BWD_KEPT] = {"bwd_kept", "allocated in backward and alive after it (into the optimizer step)"},
    [ML_REASON_OPT_FREED] = {"opt_freed", "allocated and freed within the optimizer step"},
    [ML_REASON_OPT_KEPT] = {"opt_kept", "created in an optimizer step and alive into the next one (or never freed): state kept across steps"},
    [ML_REASON_OPT_FREED_AFTER] = {"opt_freed_after", "created in an optimizer step and freed after it, before the next one (or the trace's end): not state kept across steps"},
    [ML_REASON_OPT_UNBOUNDED] = {"opt_unbounded", "allocated under torch/optim frames and freed later; the step's bounds are unknown"},
    [ML_REASON_POSTBW_FREED] = {"postbw_freed", "allocated after backward (outside the optimizer) and freed in the same step"},
    [ML_REASON_POSTBW_KEPT] = {"postbw_kept", "allocated after backward outside the optimizer step and kept past the step"},
    [ML_REASON_MODULE_TO] = {"module_to", "allocated by nn.Module.to/_apply/cuda and never freed"},
    [ML_REASON_MODULE_INIT] = {"module_init", "allocated while a torch.nn module was constructed (its __init__) and never freed: a parameter or buffer"},
    [ML_REASON_BEFORE_TRACE_KEPT] = {"before_trace_kept", "allocated before the trace and alive to its end"},
    [ML_REASON_BEFORE_STEPS_KEPT] = {"before_steps_kept", "allocated before the first step and never freed"},
    [ML_REASON_BEFORE_TRACE_FREED_BWD] = {"before_trace_freed_in_bwd", "allocated before the trace, freed in backward"},
    [ML_REASON_BEFORE_TRACE_FREED] = {"before_trace_freed", "allocated before the trace and freed outside backward: its role cannot be told"},
    [ML_REASON_OUTSIDE_STEPS] = {"outside_steps", "allocated between profiler steps"},
    [ML_REASON_UNEXPLAINED_GAP] = {"unexplained_gap", "memory the recorded total shows but no allocation in the trace accounts for"},
};

const char *ml_category_reason_text(int r) { return r >= 0 && r < ML_REASON__COUNT ? reasons[r].text : "?"; }
const char *ml_category_reason_id(int r) { return r >= 0 && r < ML_REASON__COUNT ? reasons[r].id : "?"; }

/* ---- time spans ------------------------------------------------------------ */

/* Sorted, non-overlapping [s, e) intervals. */
typedef struct spans {
    VEC(int64_t) s;
    VEC(int64_t) e;
} spans;

static void spans_add(spans *sp, int64_t s, int64_t e)
{
    VEC_PUSH(&sp->s, s);
    VEC_PUSH(&sp->e, e > s ? e : s + 1);
}

/* Sorts by start and merges overlapping intervals. */
static void spans_finish(spans *sp)
{
    size_t n = sp->s.len;
    uint32_t *perm = ml_sort_perm_i64(sp->s.v, n);
    if (perm) {
        ml_permute(sp->s.v, 8, perm, n);
        ml_permute(sp->e.v, 8, perm, n);
        free(perm);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && sp->s.v[i] < sp->e.v[w - 1]) {
            if (sp->e.v[i] > sp->e.v[w - 1]) sp->e.v[w - 1] = sp->e.v[i];
        } else {
            sp->s.v[w] = sp->s.v[i];
            sp->e.v[w] = sp->e.v[i];
            w++;
        }
    }
    sp->s.len = sp->e.len = w;
}

/* Index of the first interval starting after t (n if none). */
static size_t spans_upper(const spans *sp, int64_t t)
{
    size_t lo = 0, hi = sp->s.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sp->s.v[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Index of the interval containing t, or -1. */
static long spans_find(const spans *sp, int64_t t)
{
    size_t k = spans_upper(sp, t);
    return k && t < sp->e.v[k - 1] ? (long)k - 1 : -1;
}

/* A lookup's hint: the answer of the caller's last one (allocations come
 * in time order, mostly: the same span again, or the next), checked first;
 * the answers are spans_upper's and spans_find's. */
enum { NEAR_BW, NEAR_OPT, NEAR_DATA, NEAR_STEPS, NEAR__COUNT };

static size_t spans_upper_near(const spans *sp, int64_t t, size_t *hint)
{
    const int64_t *s = sp->s.v;
    size_t n = sp->s.len, h = *hint;
    /* the answer is h where every start before h is <= t and the one at h (if any) is > t */
    if (h <= n && (h == 0 || s[h - 1] <= t)) {
        if (h == n || s[h] > t) return h;
        if (h + 1 == n || s[h + 1] > t) return *hint = h + 1;
    }
    return *hint = spans_upper(sp, t);
}

static long spans_find_near(const spans *sp, int64_t t, size_t *hint)
{
    size_t k = spans_upper_near(sp, t, hint);
    return k && t < sp->e.v[k - 1] ? (long)k - 1 : -1;
}

static void spans_free(spans *sp)
{
    VEC_FREE(&sp->s);
    VEC_FREE(&sp->e);
}

/* ---- what the trace shows ----------------------------------------------- */

enum { PH_NONE, PH_DATA, PH_FORWARD, PH_FWD_NOBW, PH_BACKWARD, PH_POSTBW, PH_OPTIMIZER, PH_OUTSIDE };
enum { SIG_NONE, SIG_FORWARD, SIG_MODULE_INIT, SIG_MODULE, SIG_BACKWARD, SIG_DATA, SIG_OPTIMIZER, SIG_UNKNOWN = 255 }; /* stack signals, weakest first */

typedef struct step_info {
    int64_t s, e;
    bool has_bw;
    int64_t last_bw_start;
} step_info;

/* Time order; at equal times event order, and where events are unknown
 * allocations before frees, as PyTorch orders its timeline (by time, then
 * action: PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY); stable beyond
 * that (the rows' order). */
#define CHANGE_LT(ctx, x, y) \
    ((x).ts != (y).ts ? (x).ts < (y).ts : (x).event != (y).event ? (x).event < (y).event : !((x).ref & 1) && ((y).ref & 1))
/* (defined here, before the classifier's `ctx`: the sort's parameter has that name) */
ML_RUNSORT_INPLACE_DEFINE(sort_changes, ml_cat_change, int, CHANGE_LT)

typedef struct ctx {
    const ml_profile *p;
    bool has_ops;
    bool stack_phases;          /* no ops: the phases come from the allocations' stacks */
    /* top-level cpu ops per thread, sorted by start */
    uint32_t *top_start;        /* thread -> first index; [nthreads] = total */
    int64_t *top_ts, *top_end;
    uint32_t *top_op;
    bool *autograd;             /* thread runs (mostly) autograd engine ops */
    spans bw, opt, data, steps;
    step_info *step;            /* per steps interval (or one for the whole trace) */
    size_t nsteps;
    bool has_steps;
    int64_t first_step_start;
    uint8_t *stack_sig;         /* per stack id */
} ctx;

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static bool is_bw_op(const ml_profile *p, uint32_t op)
{
    return starts_with(ml_s(p, p->ops.name.v[op]), "autograd::engine::evaluate_function");
}

/* Per thread, the cpu ops not inside another cpu op of the same thread. */
static void build_tops(ctx *c)
{
    const ml_profile *p = c->p;
    const ml_ops *ops = &p->ops;
    size_t nth = p->thread_pid.len, nops = ops->ts.len;
    uint32_t *room = ml_calloc(nth + 1, sizeof *room);   /* first slot per thread (by op count) */
    for (size_t i = 0; i < nops; i++)
        if (ops->kind.v[i] == ML_OP_CPU && ops->thread.v[i] < nth) room[ops->thread.v[i] + 1]++;
    for (size_t t = 0; t < nth; t++) room[t + 1] += room[t];
    size_t cap = room[nth] ? room[nth] : 1;
    c->top_ts = ml_malloc(cap * sizeof *c->top_ts);
    c->top_end = ml_malloc(cap * sizeof *c->top_end);
    c->top_op = ml_malloc(cap * sizeof *c->top_op);
    uint32_t *fill = ml_calloc(nth + 1, sizeof *fill);
    for (size_t i = 0; i < nops; i++) { /* ops are sorted by start */
        uint32_t th = ops->thread.v[i];
        if (ops->kind.v[i] != ML_OP_CPU || th >= nth) continue;
        int64_t ts = ops->ts.v[i], end = ts + ops->dur.v[i];
        size_t at = room[th] + fill[th];
        if (fill[th] && ts < c->top_end[at - 1]) {
            /* inside the current top op; an equal-start longer op is the real outer one */
            if (ts == c->top_ts[at - 1] && end > c->top_end[at - 1]) {
                c->top_end[at - 1] = end;
                c->top_op[at - 1] = (uint32_t)i;
            }
            continue;
        }
        c->top_ts[at] = ts;
        c->top_end[at] = end > ts ? end : ts + 1;
        c->top_op[at] = (uint32_t)i;
        fill[th]++;
    }
    /* Compact the per-thread ranges. */
    c->top_start = ml_calloc(nth + 1, sizeof *c->top_start);
    size_t w = 0;
    for (size_t t = 0; t < nth; t++) {
        c->top_start[t] = (uint32_t)w;
        for (size_t k = 0; k < fill[t]; k++, w++) {
            c->top_ts[w] = c->top_ts[room[t] + k];
            c->top_end[w] = c->top_end[room[t] + k];
            c->top_op[w] = c->top_op[room[t] + k];
        }
    }
    c->top_start[nth] = (uint32_t)w;
    free(room);
    free(fill);
}

/* The top-level op of `thread` containing t, or -1; *hint: the first of
 * the thread's tops after t, as the last lookup found it, checked first
 * (spans_upper_near). */
static long top_at(const ctx *c, uint32_t thread, int64_t t, size_t *hint)
{
    if (thread >= c->p->thread_pid.len) return -1;
    size_t lo = c->top_start[thread], hi = c->top_start[thread + 1], b = lo, h = *hint;
    const int64_t *ts = c->top_ts;
    if (h >= b && h <= hi && (h == b || ts[h - 1] <= t) && (h == hi || ts[h] > t)) {
        lo = h;
    } else if (h >= b && h < hi && (h == b || ts[h - 1] <= t) && ts[h] <= t && (h + 1 == hi || ts[h + 1] > t)) {
        lo = h + 1;
    } else {
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ts[mid] <= t) lo = mid + 1;
            else hi = mid;
        }
    }
    *hint = lo;
    return lo > b && t < c->top_end[lo - 1] ? (long)lo - 1 : -1;
}

/*
 * Backward passes: runs of autograd engine ops (on any thread) and of
 * everything on autograd threads, ended by a top-level op on a main thread
 * (the main thread waits in run_backward while the engine works).
 */
static void build_backward(ctx *c)
{
    const ml_profile *p = c->p;
    size_t nth = p->thread_pid.len;
    c->autograd = ml_calloc(nth ? nth : 1, sizeof *c->autograd);
    bool *main_thread = ml_calloc(nth ? nth : 1, sizeof *main_thread);
    size_t best = 0, best_n = 0;
    for (size_t t = 0; t < nth; t++) {
        size_t nbw = 0, n = c->top_start[t + 1] - c->top_start[t];
        for (size_t k = c->top_start[t]; k < c->top_start[t + 1]; k++) nbw += is_bw_op(p, c->top_op[k]);
        c->autograd[t] = nbw * 2 > n;
        if (!c->autograd[t] && n - nbw > best_n) best = t, best_n = n - nbw;
    }
    /* Main threads: those that run the profiler steps, else the busiest non-autograd one. */
    bool any_main = false;
    for (size_t i = 0; i < p->ops.ts.len; i++)
        if (p->ops.kind.v[i] == ML_OP_ANNOTATION && p->ops.thread.v[i] < nth &&
            starts_with(ml_s(p, p->ops.name.v[i]), "ProfilerStep#"))
            main_thread[p->ops.thread.v[i]] = any_main = true;
    if (!any_main && best_n) main_thread[best] = true;

    /* Markers: backward ops and main-thread ops, in start order. */
    size_t ntops = c->top_start[nth];
    int64_t *key = ml_malloc((ntops ? ntops : 1) * sizeof *key);
    uint32_t *which = ml_malloc((ntops ? ntops : 1) * sizeof *which);
    uint8_t *bw = ml_malloc(ntops ? ntops : 1);
    size_t m = 0;
    for (size_t t = 0; t < nth; t++)
        for (size_t k = c->top_start[t]; k < c->top_start[t + 1]; k++) {
            bool b = c->autograd[t] || is_bw_op(p, c->top_op[k]);
            if (!b && !main_thread[t]) continue;
            key[m] = c->top_ts[k];
            which[m] = (uint32_t)k;
            bw[m] = b;
            m++;
        }
    uint32_t *perm = ml_sort_perm_i64(key, m);
    bool open = false;
    int64_t s = 0, e = 0;
    for (size_t j = 0; j < m; j++) {
        size_t i = perm ? perm[j] : j, k = which[i];
        if (bw[i]) {
            if (!open) open = true, s = c->top_ts[k], e = c->top_end[k];
            else if (c->top_end[k] > e) e = c->top_end[k];
        } else if (open) {
            spans_add(&c->bw, s, e);
            open = false;
        }
    }
    if (open) spans_add(&c->bw, s, e);
    spans_finish(&c->bw);
    free(perm);
    free(key);
    free(which);
    free(bw);
    free(main_thread);
}

/* Whether a python frame text names a function of a torch package path. */
static bool frame_in(const ml_profile *p, const ml_frame *f, const char *path)
{
    return (f->file && strstr(ml_s(p, f->file), path)) || strstr(ml_s(p, f->name), path);
}

static const char *frame_func(const ml_profile *p, const ml_frame *f)
{
    const char *n = ml_s(p, f->name);
    if (f->file) return n;
    const char *colon = strstr(n, "): "); /* whole "file.py(12): func" text */
    return colon ? colon + 3 : n;
}

/* Steps, optimizer steps and data loading from annotations and python frames. */
static void build_phases(ctx *c)
{
    const ml_profile *p = c->p;
    const ml_ops *ops = &p->ops;
    bool opt_annotated = false;
    for (size_t i = 0; i < ops->ts.len; i++) {
        if (ops->kind.v[i] != ML_OP_ANNOTATION) continue;
        const char *n = ml_s(p, ops->name.v[i]);
        int64_t s = ops->ts.v[i], e = s + ops->dur.v[i];
        if (starts_with(n, "ProfilerStep#")) spans_add(&c->steps, s, e);
        else if (starts_with(n, "Optimizer.step#")) spans_add(&c->opt, s, e), opt_annotated = true;
        else if (starts_with(n, "enumerate(DataLoader)#")) spans_add(&c->data, s, e);
    }
    /* Python frames (with_stack): torch/optim step functions, torch/utils/data. */
    for (size_t i = 0; i < ops->ts.len; i++) {
        if (ops->kind.v[i] != ML_OP_PYTHON) continue;
        const char *n = ml_s(p, ops->name.v[i]);
        int64_t s = ops->ts.v[i], e = s + ops->dur.v[i];
        if (!opt_annotated && strstr(n, "torch/optim/") && !strstr(n, "zero_grad")) spans_add(&c->opt, s, e);
        else if (strstr(n, "torch/utils/data/")) spans_add(&c->data, s, e);
    }
    spans_finish(&c->opt);
    spans_finish(&c->data);
    spans_finish(&c->steps);
    c->has_steps = c->steps.s.len > 0;
    if (!c->has_steps) spans_add(&c->steps, INT64_MIN, INT64_MAX); /* the whole trace is one step */
    c->first_step_start = c->steps.s.v[0];
    c->nsteps = c->steps.s.len;
    c->step = ml_calloc(c->nsteps, sizeof *c->step);
    for (size_t k = 0; k < c->nsteps; k++) c->step[k].s = c->steps.s.v[k], c->step[k].e = c->steps.e.v[k];
    for (size_t k = 0; k < c->bw.s.len; k++) {
        long st = spans_find(&c->steps, c->bw.s.v[k]);
        if (st < 0) continue;
        c->step[st].has_bw = true;
        c->step[st].last_bw_start = c->bw.s.v[k]; /* spans are sorted: the last one wins */
    }
}

/* Whether a (native) frame's name contains text. */
static bool name_has(const ml_profile *p, const ml_frame *f, const char *text) { return strstr(ml_s(p, f->name), text) != NULL; }

/*
 * What a frame says about the phase (a stack: the strongest signal among its
 * frames, stack_signal).
 *   optimizer  torch/optim frames (but zero_grad)
 *   data       torch/utils/data frames
 *   backward   the autograd engine: its native frames (Engine::evaluate_function,
 *              Engine::thread_main, Node::operator() — allocator snapshots record
 *              them) or Python backward frames of torch/autograd, torch/_tensor.py
 *   module     nn.Module.to/_apply/cuda/convert (moving parameters)
 *   module init  the __init__ of a torch/nn/modules class (creating parameters
 *              and buffers: a model built while the profiler records)
 *   forward    nn.Module calls (module.py _call_impl / _wrapped_call_impl): the
 *              forward pass, unless a stronger signal (checkpoint recomputation
 *              under the engine is backward) says otherwise
 */
static uint8_t frame_signal(const ml_profile *p, const ml_frame *f)
{
    const char *fn = frame_func(p, f);
    uint8_t s = SIG_NONE;
    if (frame_in(p, f, "torch/optim/")) s = strstr(fn, "zero_grad") ? SIG_NONE : SIG_OPTIMIZER;
    else if (frame_in(p, f, "torch/utils/data/")) s = SIG_DATA;
    else if ((frame_in(p, f, "torch/autograd/") || frame_in(p, f, "torch/_tensor.py")) &&
             (strstr(fn, "backward") || strstr(fn, "run_backward")))
        s = SIG_BACKWARD;
    else if (name_has(p, f, "torch::autograd::Engine::evaluate_function") ||
             name_has(p, f, "torch::autograd::Engine::thread_main") || name_has(p, f, "torch::autograd::Node::operator()"))
        s = SIG_BACKWARD;
    else if (frame_in(p, f, "torch/nn/modules/module.py") &&
             (!strcmp(fn, "_apply") || !strcmp(fn, "to") || !strcmp(fn, "cuda") || !strcmp(fn, "convert")))
        s = SIG_MODULE;
    else if (frame_in(p, f, "torch/nn/modules/") && !strcmp(fn, "__init__"))
        s = SIG_MODULE_INIT;
    else if (frame_in(p, f, "torch/nn/modules/module.py") && (!strcmp(fn, "_call_impl") || !strcmp(fn, "_wrapped_call_impl")))
        s = SIG_FORWARD;
    return s;
}

/* The strongest signal among the stack's frames; each frame's is worked out
 * once (frame_sig: SIG_UNKNOWN until then): stacks share most of their frames. */
static uint8_t stack_signal(const ml_profile *p, uint32_t stack, uint8_t *frame_sig)
{
    size_t depth = ml_stack_depth(p, stack);
    const uint32_t *fr = ml_stack_frames(p, stack);
    uint8_t sig = SIG_NONE;
    for (size_t i = 0; i < depth; i++) {
        uint8_t *s = &frame_sig[fr[i]];
        if (*s == SIG_UNKNOWN) *s = frame_signal(p, &p->frames.v[fr[i]]);
        if (*s > sig) sig = *s;
    }
    return sig;
}

/* (near: the hints of the spans' lookups, NEAR_*) */
static int phase_at(const ctx *c, int64_t t, uint32_t thread, size_t *near)
{
    if (!c->has_ops && !c->stack_phases) return PH_NONE;
    if (c->has_ops && thread < c->p->thread_pid.len && c->autograd[thread]) return PH_BACKWARD;
    if (spans_find_near(&c->bw, t, &near[NEAR_BW]) >= 0) return PH_BACKWARD;
    if (spans_find_near(&c->opt, t, &near[NEAR_OPT]) >= 0) return PH_OPTIMIZER;
    if (spans_find_near(&c->data, t, &near[NEAR_DATA]) >= 0) return PH_DATA;
    if (!c->has_ops && !c->has_steps) return PH_NONE; /* no module calls: the rest of the time has no phase */
    long st = spans_find_near(&c->steps, t, &near[NEAR_STEPS]);
    if (st < 0) return PH_OUTSIDE;
    const step_info *si = &c->step[st];
    if (!si->has_bw) return PH_FWD_NOBW;
    return t < si->last_bw_start ? PH_FORWARD : PH_POSTBW;
}

static bool is_copy_op(const char *name)
{
    return !strcmp(name, "aten::to") || !strcmp(name, "aten::_to_copy") || !strcmp(name, "aten::copy_");
}

/* ---- the rules ----------------------------------------------------------- */

static void set(ml_allocs *a, size_t i, ml_category cat, ml_cat_reason why)
{
    a->category.v[i] = (uint8_t)cat;
    a->category_reason.v[i] = (uint8_t)why;
}

/* One classifier's hints (spans_upper_near, top_at): of the lookups at
 * allocation times, at free times, of the top-level ops. */
typedef struct near {
    size_t at_alloc[NEAR__COUNT], at_free[NEAR__COUNT], top;
} near;

static void classify(const ctx *c, size_t i, near *h)
{
    const ml_profile *p = c->p;
    ml_allocs *a = (ml_allocs *)&p->allocs;
    int64_t ta = a->t_alloc.v[i], tf = a->t_free.v[i];
    bool freed = tf != ML_TIME_END;
    /* (lean storage keeps no threads where the input has none: allocator snapshots) */
    uint32_t th = i < a->thread.len ? a->thread.v[i] : ML_NONE32;
    uint32_t free_th = a->ev_free.v[i] != ML_NONE32 && a->ev_free.v[i] < p->events.thread.len
                           ? p->events.thread.v[a->ev_free.v[i]] : th;
    int pf = freed ? phase_at(c, tf, free_th, h->at_free) : PH_NONE;

    if (ta == ML_TIME_NONE) {
        if (!freed) set(a, i, ML_CAT_PARAMETER_OR_STATE, ML_REASON_BEFORE_TRACE_KEPT);
        else if (pf == PH_BACKWARD) set(a, i, ML_CAT_ACTIVATION, ML_REASON_BEFORE_TRACE_FREED_BWD);
        else set(a, i, ML_CAT_UNKNOWN, ML_REASON_BEFORE_TRACE_FREED);
        return;
    }
    long top = c->has_ops ? top_at(c, th, ta, &h->top) : -1;
    if (top >= 0 && freed && tf <= c->top_end[top]) {
        set(a, i, ML_CAT_TEMPORARY, ML_REASON_SAME_OP);
        return;
    }
    uint8_t sig = c->stack_sig ? c->stack_sig[a->stack.v[i]] : SIG_NONE;
    if ((sig == SIG_MODULE || sig == SIG_MODULE_INIT) && !freed) {
        set(a, i, ML_CAT_PARAMETER, sig == SIG_MODULE ? ML_REASON_MODULE_TO : ML_REASON_MODULE_INIT);
        return;
    }
    int pa = phase_at(c, ta, th, h->at_alloc);
    if (pa == PH_FORWARD || pa == PH_FWD_NOBW || pa == PH_POSTBW || pa == PH_NONE || pa == PH_OUTSIDE) {
        if (sig == SIG_OPTIMIZER) pa = PH_OPTIMIZER;
        else if (sig == SIG_DATA) pa = PH_DATA;
        else if (sig == SIG_BACKWARD) pa = PH_BACKWARD;
    }
    long st = spans_find_near(&c->steps, ta, &h->at_alloc[NEAR_STEPS]);
    switch (pa) {
    case PH_DATA:
        set(a, i, ML_CAT_INPUT, ML_REASON_DATA);
        return;
    case PH_BACKWARD: {
        long k = spans_find_near(&c->bw, ta, &h->at_alloc[NEAR_BW]);
        if (k < 0) { /* before the engine starts (e.g. the ones_like seed): the next backward pass */
            size_t u = spans_upper_near(&c->bw, ta, &h->at_alloc[NEAR_BW]);
            k = u < c->bw.s.len ? (long)u : -1;
        }
        if (!freed) set(a, i, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
        else if (k < 0) set(a, i, ML_CAT_UNKNOWN, ML_REASON_NO_CONTEXT);
        else if (tf <= c->bw.e.v[k]) set(a, i, ML_CAT_AUTOGRAD_DETAIL, ML_REASON_BWD_FREED_IN_BWD);
        else set(a, i, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
        return;
    }
    case PH_OPTIMIZER: {
        /* PyTorch's OPTIMIZER_STATE is what optimizer.state holds: tensors that
         * outlive the step that made them, into the next one. */
        long k = spans_find_near(&c->opt, ta, &h->at_alloc[NEAR_OPT]);
        if (!freed) set(a, i, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
        else if (k < 0) set(a, i, ML_CAT_UNKNOWN, ML_REASON_OPT_UNBOUNDED);
        else if (tf <= c->opt.e.v[k]) set(a, i, ML_CAT_TEMPORARY, ML_REASON_OPT_FREED);
        else if ((size_t)k + 1 < c->opt.s.len && tf > c->opt.s.v[k + 1]) set(a, i, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
        else set(a, i, ML_CAT_UNKNOWN, ML_REASON_OPT_FREED_AFTER);
        return;
    }
    case PH_FORWARD: {
        const step_info *si = &c->step[st];
        if (pf == PH_BACKWARD) set(a, i, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
        else if (freed && tf < si->last_bw_start) set(a, i, ML_CAT_TEMPORARY, ML_REASON_FWD_FREED_IN_FWD);
        else if (top >= 0 && p->devices.v[a->device.v[i]].kind != ML_DEV_CPU &&
                 is_copy_op(ml_s(p, p->ops.name.v[c->top_op[top]])))
            set(a, i, ML_CAT_INPUT, ML_REASON_COPY_KEPT);
        else set(a, i, ML_CAT_ACTIVATION, ML_REASON_FWD_KEPT);
        return;
    }
    case PH_FWD_NOBW: {
        const step_info *si = &c->step[st];
        if ((!freed || tf >= si->e) && top >= 0 && p->devices.v[a->device.v[i]].kind != ML_DEV_CPU &&
            is_copy_op(ml_s(p, p->ops.name.v[c->top_op[top]])))
            set(a, i, ML_CAT_INPUT, ML_REASON_COPY_KEPT);
        else set(a, i, ML_CAT_ACTIVATION, ML_REASON_FWD_NO_BACKWARD);
        return;
    }
    case PH_POSTBW: {
        const step_info *si = &c->step[st];
        if (freed && tf < si->e) set(a, i, ML_CAT_TEMPORARY, ML_REASON_POSTBW_FREED);
        else set(a, i, ML_CAT_UNKNOWN, ML_REASON_POSTBW_KEPT);
        return;
    }
    case PH_OUTSIDE:
        if (!freed && ta < c->first_step_start) set(a, i, ML_CAT_PARAMETER_OR_STATE, ML_REASON_BEFORE_STEPS_KEPT);
        else set(a, i, ML_CAT_UNKNOWN, ML_REASON_OUTSIDE_STEPS);
        return;
    default:
        if (pf == PH_BACKWARD) set(a, i, ML_CAT_ACTIVATION, ML_REASON_FREED_IN_BWD);
        else set(a, i, ML_CAT_UNKNOWN, ml_stack_depth(p, a->stack.v[i]) ? ML_REASON_NO_PHASE : ML_REASON_NO_CONTEXT);
    }
}

/*
 * Phases from the allocations' stacks, in time order (allocator snapshots have
 * no ops; a trace with ops but no optimizer annotation uses only the optimizer
 * part): a backward pass is a run of allocations with the backward signal, an
 * optimizer step a run with the optimizer one, data loading a run with the data
 * one; each lasts from the first of its allocations until the next allocation
 * made elsewhere.  A step starts at an allocation under an nn.Module call when
 * a backward pass or optimizer step came since the last step started (or none
 * has): it lasts until the next step, so its forward pass includes what runs
 * between the model's call and backward() (the loss), and after its backward
 * pass comes the rest (optimizer, zero_grad, logging).  Allocations out of time
 * order: no spans at all.
 */
static void phases_from_stacks(ctx *c, bool opt_only)
{
    const ml_allocs *a = &c->p->allocs;
    size_t n = a->t_alloc.len;
    VEC(int64_t) step_start = {0};
    int64_t prev = INT64_MIN, start = 0;
    uint8_t run = SIG_NONE;     /* the phase signal whose run is open */
    bool since = true;          /* a backward pass or optimizer step since the last step began */
    for (size_t i = 0; i <= n; i++) {
        int64_t t = INT64_MAX;
        uint8_t sig = SIG_NONE;
        if (i < n) {
            t = a->t_alloc.v[i];
            if (t == ML_TIME_NONE) continue;
            if (t < prev) { /* not in time order: give up (the spans ops gave stay) */
                c->opt.s.len = c->opt.e.len = 0;
                if (!opt_only) c->bw.s.len = c->bw.e.len = c->data.s.len = c->data.e.len = 0;
                VEC_FREE(&step_start);
                return;
            }
            prev = t;
            sig = c->stack_sig[a->stack.v[i]];
        }
        uint8_t phase = sig == SIG_OPTIMIZER || (!opt_only && (sig == SIG_BACKWARD || sig == SIG_DATA)) ? sig : SIG_NONE;
        if (phase != run || i == n) {
            if (run != SIG_NONE) spans_add(run == SIG_OPTIMIZER ? &c->opt : run == SIG_BACKWARD ? &c->bw : &c->data, start, t);
            run = phase;
            start = t;
        }
        if (phase == SIG_BACKWARD || phase == SIG_OPTIMIZER) since = true;
        if (!opt_only && sig == SIG_FORWARD && since) {
            VEC_PUSH(&step_start, t);
            since = false;
        }
    }
    for (size_t k = 0; k < step_start.len; k++)
        spans_add(&c->steps, step_start.v[k], k + 1 < step_start.len ? step_start.v[k + 1] : INT64_MAX);
    spans_finish(&c->bw);
    spans_finish(&c->opt);
    spans_finish(&c->data);
    c->stack_phases = !opt_only;
    VEC_FREE(&step_start);
}

/* Allocations [from, to) classified: classify() writes allocation i's
 * category and reason only, and reads nothing another part writes. */
typedef struct classify_part {
    const ctx *c;
    size_t from, to;
} classify_part;

#define CLASSIFY_SPLIT 65536 /* allocations from which two threads pay */

static void classify_run(void *arg)
{
    const classify_part *part = arg;
    const ml_allocs *a = &part->c->p->allocs;
    near h = {0};
    for (size_t i = part->from; i < part->to; i++)
        if (a->category_reason.v[i] == ML_REASON_NONE) classify(part->c, i, &h);
}

void ml_categorize(ml_profile *p)
{
    ml_allocs *a = &p->allocs;
    size_t n = a->t_alloc.len;
    if (!n) return;
    ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    for (size_t i = 0; i < p->ops.ts.len && !c.has_ops; i++) c.has_ops = p->ops.kind.v[i] == ML_OP_CPU;
    size_t nstacks = p->stack_start.len - 1;
    if (p->frames.len) {
        c.stack_sig = ml_malloc(nstacks ? nstacks : 1);
        uint8_t *frame_sig = ml_malloc(p->frames.len);
        memset(frame_sig, SIG_UNKNOWN, p->frames.len);
        for (size_t s = 0; s < nstacks; s++) c.stack_sig[s] = stack_signal(p, (uint32_t)s, frame_sig);
        free(frame_sig);
    }
    build_tops(&c);
    build_backward(&c);
    if (c.stack_sig && !c.has_ops) phases_from_stacks(&c, false);
    build_phases(&c);
    if (c.stack_sig && c.has_ops && !c.opt.s.len) phases_from_stacks(&c, true);
    /* each allocation on its own: a gigabyte snapshot's millions in two halves, one per core */
    classify_part lo = {&c, 0, n >= CLASSIFY_SPLIT ? n / 2 : n}, hi = {&c, lo.to, n};
    if (hi.from < n) ml_par2(classify_run, &lo, classify_run, &hi);
    else classify_run(&lo);
    free(c.top_start);
    free(c.top_ts);
    free(c.top_end);
    free(c.top_op);
    free(c.autograd);
    free(c.step);
    free(c.stack_sig);
    spans_free(&c.bw);
    spans_free(&c.opt);
    spans_free(&c.data);
    spans_free(&c.steps);
}

/* ---- per-category levels and curves --------------------------------------- */

void ml_categories_at(const ml_profile *p, int device, ml_instant at, int64_t total, int64_t out[ML_CAT__COUNT])
{
    memset(out, 0, ML_CAT__COUNT * sizeof *out);
    const ml_allocs *a = &p->allocs;
    int64_t sum = 0;
    bool all = ml_only_device(p, device);
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if ((!all && a->device.v[i] != device) || !ml_alloc_live_at(p, i, at)) continue;
        uint8_t cat = a->category.v[i] < ML_CAT__COUNT ? a->category.v[i] : ML_CAT_UNKNOWN;
        out[cat] += a->size.v[i];
        sum += a->size.v[i];
    }
    if (total > sum) out[ML_CAT_PARAMETER_OR_STATE] += total - sum;
}

typedef VEC(ml_cat_change) change_vec;

/*
 * The unexplained gap: what the device's recorded allocated curve shows beyond
 * the allocations live at the same time (memory from before the trace, or
 * allocations the input does not list), as PARAMETER_OR_STATE.  It is
 * max(0, recorded - replayed), taken after each distinct time of either the
 * curve or the allocations: between two points of the curve allocations still
 * come and go, and at equal times only the state after all of them is a point
 * of the curves.  So the categories add up to the recorded curve at every
 * distinct time where it is at or above the replay (and to the replay where
 * allocations exceed the recorded total).  Before the curve's first point the
 * gap keeps its first value: that memory was there before the trace.  Adds
 * the gap's first value to initial[] and its later moves to the changes.
 */
static void add_gap_band(const ml_profile *p, int device, ml_cat_changes *out, change_vec *ch)
{
    ml_curve cv;
    if (!ml_curve_get(p, device, ML_SERIES_ALLOCATED, &cv)) return;
    if (cv.replayed || !cv.n) {
        ml_curve_free(&cv);
        return;
    }
    int64_t rep = 0;
    for (int k = 0; k < ML_CAT__COUNT; k++) rep += out->initial[k];
    /* The first value: replayed and recorded after everything at the curve's first time. */
    int64_t t0 = cv.ts[0], rep0 = rep, rec0 = cv.value[0];
    for (size_t i = 0; i < ch->len && ch->v[i].ts <= t0; i++) rep0 += ml_cat_change_delta(out, &ch->v[i]);
    for (size_t j = 0; j < cv.n && cv.ts[j] == t0; j++) rec0 = cv.value[j];
    int64_t gap = rec0 > rep0 ? rec0 - rep0 : 0;
    out->gap = gap;
    out->initial[ML_CAT_PARAMETER_OR_STATE] += gap;

    /* The gap's moves, each with the number of changes before it, found
     * first: where the recorded curve is the replay there are none and ch
     * stays as it is; else they go into ch from its end backwards (in place:
     * no second list of every change). */
    typedef struct gap_move { ml_cat_change x; size_t before; } gap_move;
    VEC(gap_move) moves = {0};
    VEC(int64_t) delta = {0}; /* (out->move: each move's) */
    size_t i = 0, j = 0;
    int64_t rec = 0;
    while (i < ch->len || j < cv.n) {
        int64_t t = i < ch->len && (j == cv.n || ch->v[i].ts <= cv.ts[j]) ? ch->v[i].ts : cv.ts[j];
        for (; i < ch->len && ch->v[i].ts == t; i++) rep += ml_cat_change_delta(out, &ch->v[i]);
        for (; j < cv.n && cv.ts[j] == t; j++) rec = cv.value[j];
        if (t < t0) continue;
        int64_t g = rec > rep ? rec - rep : 0;
        if (g != gap) {
            gap_move m = { {t, ML_NONE32, (uint32_t)(2 * (out->nrows + delta.len) + (g < gap))}, i };
            VEC_PUSH(&moves, m);
            VEC_PUSH(&delta, g - gap);
            gap = g;
        }
    }
    ml_curve_free(&cv);
    out->move = delta.v;
    out->nmove = delta.len;
    if (!moves.len) return;
    size_t n = ch->len;
    VEC_RESERVE(ch, n + moves.len);
    /* change i goes to i + (moves with before <= i); a move after the changes before it */
    size_t w = n + moves.len, m = moves.len;
    for (size_t k = n; k-- > 0;) {
        while (m && moves.v[m - 1].before > k) ch->v[--w] = moves.v[--m].x;
        ch->v[--w] = ch->v[k];
    }
    while (m) ch->v[--w] = moves.v[--m].x;
    ch->len = n + moves.len;
    VEC_FREE(&moves);
}

/* A device with allocator events but no allocations (a trace without
 * addresses: frees cannot be matched) has only its replayed curve, the running
 * sum of the events' bytes: Unknown, change by change. */
static void add_unmatched_events(const ml_profile *p, int device, change_vec *ch)
{
    const ml_events *ev = &p->events;
    for (size_t i = 0; i < ev->ts.len; i++) {
        if (ev->device.v[i] != device || (ev->kind.v[i] != ML_EV_ALLOC && ev->kind.v[i] != ML_EV_FREE)) continue;
        bool is_free = ev->kind.v[i] == ML_EV_FREE;
        ml_cat_change x = {ev->ts.v[i], (uint32_t)i, (uint32_t)(2 * i + is_free)};
        VEC_PUSH(ch, x);
    }
}

void ml_category_changes(const ml_profile *p, int device, ml_cat_changes *out)
{
    memset(out, 0, sizeof *out);
    const ml_allocs *a = &p->allocs;
    change_vec ch = {0};
    bool any_alloc = false;
    /* The allocations in row order (their times nearly so), then the frees
     * by event (so by time where the events are): sort_changes then finds two
     * runs where alloc, free, alloc ... made one per allocation.  Its order
     * is the same: by time, event, frees after allocations, and the rows'
     * order where all of those are equal (never an alloc and a free). */
    size_t n_ev = p->events.kind.len, n_free = 0;
    ml_free_order fo; /* the frees' places in event order (freeorder.h) */
    ml_free_order_init(&fo, n_ev);
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if (a->device.v[i] != device) continue;
        any_alloc = true;
        uint8_t cat = a->category.v[i] < ML_CAT__COUNT ? a->category.v[i] : ML_CAT_UNKNOWN;
        if (a->t_alloc.v[i] == ML_TIME_NONE) out->initial[cat] += a->size.v[i];
        else {
            ml_cat_change x = {a->t_alloc.v[i], a->ev_alloc.v[i], (uint32_t)(2 * i)};
            VEC_PUSH(&ch, x);
        }
        if (a->t_free.v[i] != ML_TIME_END) {
            ml_free_order_add(&fo, a->ev_free.v[i]);
            n_free++;
        }
    }
    if (n_free) {
        ml_free_order_finish(&fo);
        size_t base = ch.len;
        VEC_RESERVE(&ch, base + n_free);
        for (size_t i = 0; i < a->t_alloc.len; i++) {
            if (a->device.v[i] != device || a->t_free.v[i] == ML_TIME_END) continue;
            uint32_t e = a->ev_free.v[i];
            ch.v[base + ml_free_order_place(&fo, e)] = (ml_cat_change){a->t_free.v[i], e, (uint32_t)(2 * i + 1)};
        }
        ch.len = base + n_free;
    }
    ml_free_order_free(&fo);
    /* (the refs: allocation rows, or the events' on a device without allocations) */
    out->nrows = any_alloc ? a->t_alloc.len : p->events.kind.len;
    out->size = any_alloc ? a->size.v : p->events.size.v;
    out->cat = any_alloc ? a->category.v : NULL;
    if (!any_alloc) add_unmatched_events(p, device, &ch);
    sort_changes(ch.v, ch.len, 0); /* the allocations in row order, then the frees in event order */
    add_gap_band(p, device, out, &ch);
    out->v = ch.v;
    out->n = ch.len;
}

void ml_cat_changes_free(ml_cat_changes *c)
{
    ml_scratch_give(c->v, c->n * sizeof *c->v, c->n * sizeof *c->v); /* (its pages to the next take, where a pool is open) */
    free(c->move);
    memset(c, 0, sizeof *c);
}

/* The device's category changes (ml_category_changes), false (and none
 * kept) when it has neither changes nor memory from before the trace: what
 * both forms of the curves start from. */
static bool device_changes(const ml_profile *p, int device, ml_cat_changes *ch)
{
    ml_category_changes(p, device, ch);
    bool any = ch->n > 0;
    for (int k = 0; k < ML_CAT__COUNT; k++) any |= ch->initial[k] != 0;
    if (!any) ml_cat_changes_free(ch);
    return any;
}

/* Where curves with no change put their one point: the device's first time. */
static int64_t first_point_ts(const ml_profile *p, int device)
{
    ml_curve cv;
    int64_t ts = ml_curve_get(p, device, ML_SERIES_ALLOCATED, &cv) && cv.n ? cv.ts[0] : 0;
    ml_curve_free(&cv);
    return ts;
}

bool ml_category_curves_get(const ml_profile *p, int device, ml_category_curves *out)
{
    memset(out, 0, sizeof *out);
    ml_cat_changes ch;
    if (!device_changes(p, device, &ch)) return false;
    size_t cap = ch.n + 1;
    out->ts = ml_malloc(cap * sizeof *out->ts);
    for (int k = 0; k < ML_CAT__COUNT; k++) out->value[k] = ml_malloc(cap * sizeof *out->value[k]);
    out->gap = ml_malloc(cap * sizeof *out->gap);
    int64_t level[ML_CAT__COUNT], gap = ch.gap;
    out->initial_gap = gap;
    memcpy(level, ch.initial, sizeof level);
    memcpy(out->initial, ch.initial, sizeof level);
    size_t n = 0;
    for (size_t i = 0; i < ch.n; i++) {
        int64_t d = ml_cat_change_delta(&ch, &ch.v[i]);
        level[ml_cat_change_cat(&ch, &ch.v[i])] += d;
        if (ml_cat_change_is_gap(&ch, &ch.v[i])) gap += d;
        if (i + 1 < ch.n && ch.v[i + 1].ts == ch.v[i].ts) continue; /* one point per time */
        out->ts[n] = ch.v[i].ts;
        for (int k = 0; k < ML_CAT__COUNT; k++) out->value[k][n] = level[k];
        out->gap[n] = gap;
        n++;
    }
    if (!n) { /* only memory from before the trace: one point at the device's first time */
        out->ts[0] = first_point_ts(p, device);
        for (int k = 0; k < ML_CAT__COUNT; k++) out->value[k][0] = level[k];
        out->gap[0] = gap;
        n = 1;
    }
    out->n = n;
    for (int k = 0; k < ML_CAT__COUNT; k++) {
        out->peak[k] = ch.initial[k];
        for (size_t i = 0; i < n; i++)
            if (out->value[k][i] > out->peak[k]) out->peak[k] = out->value[k][i];
    }
    ml_cat_changes_free(&ch);
    return true;
}

void ml_category_curves_free(ml_category_curves *c)
{
    free(c->ts);
    free(c->gap);
    for (int k = 0; k < ML_CAT__COUNT; k++) free(c->value[k]);
    memset(c, 0, sizeof *c);
}

_Static_assert(ML_CAT__COUNT <= 16, "ml_category_steps.moved holds a bit per category in 16 bits");

bool ml_category_steps_get(const ml_profile *p, int device, ml_category_steps *out)
{
    memset(out, 0, sizeof *out);
    ml_cat_changes ch;
    if (!device_changes(p, device, &ch)) return false;
    memcpy(out->initial, ch.initial, sizeof out->initial);
    out->initial[ML_CAT_PARAMETER_OR_STATE] -= ch.gap;
    out->initial_gap = ch.gap;
    /* room: a step a change at most, each category's after the one before */
    size_t room[ML_CAT__COUNT] = {0}, total = 0;
    for (size_t i = 0; i < ch.n; i++)
        if (!ml_cat_change_is_gap(&ch, &ch.v[i])) room[ml_cat_change_cat(&ch, &ch.v[i])]++;
    for (int k = 0; k < ML_CAT__COUNT; k++) total += room[k];
    /* (from the thread's scratch pool where one is open: the changes' sort scratch) */
    size_t cap;
    out->block = ml_scratch_take((total ? total : 1) * (sizeof(int64_t) + sizeof(uint32_t)), &cap);
    int64_t *lv = out->block;
    uint32_t *at = (uint32_t *)(void *)(lv + total);
    for (int k = 0; k < ML_CAT__COUNT; k++) {
        out->level[k] = lv, out->at[k] = at;
        lv += room[k], at += room[k];
    }
    out->ts = ml_scratch_take((ch.n ? ch.n : 1) * sizeof *out->ts, &cap);
    out->moved = ml_scratch_take((ch.n ? ch.n : 1) * sizeof *out->moved, &cap);
    int64_t level[ML_CAT__COUNT];
    memcpy(level, out->initial, sizeof level);
    size_t n = 0;
    uint32_t moved = 0; /* bit k: category k changed at this point */
    for (size_t i = 0; i < ch.n; i++) {
        if (!ml_cat_change_is_gap(&ch, &ch.v[i])) {
            int k = ml_cat_change_cat(&ch, &ch.v[i]);
            level[k] += ml_cat_change_delta(&ch, &ch.v[i]);
            moved |= 1u << k;
        }
        if (i + 1 < ch.n && ch.v[i + 1].ts == ch.v[i].ts) continue; /* one point per time */
        out->ts[n] = ch.v[i].ts;
        out->moved[n] = (uint16_t)moved;
        for (; moved; moved &= moved - 1) {
            int k = __builtin_ctz(moved);
            out->at[k][out->m[k]] = (uint32_t)n;
            out->level[k][out->m[k]++] = level[k];
        }
        n++;
    }
    if (!n) { /* only memory from before the trace: one point at the device's first time */
        out->ts[0] = first_point_ts(p, device);
        out->moved[0] = 0;
        n = 1;
    }
    out->n = n;
    ml_cat_changes_free(&ch);
    return true;
}

void ml_category_steps_free(ml_category_steps *s)
{
    /* (to the thread's scratch pool, where one is open: scratch.h; the
     * block's bytes counted from the steps, at most its size) */
    size_t steps = 0;
    for (int k = 0; k < ML_CAT__COUNT; k++) steps += s->m[k];
    ml_scratch_give(s->ts, s->n * sizeof *s->ts, s->n * sizeof *s->ts);
    ml_scratch_give(s->moved, s->n * sizeof *s->moved, s->n * sizeof *s->moved);
    ml_scratch_give(s->block, steps * (sizeof(int64_t) + sizeof(uint32_t)), steps * (sizeof(int64_t) + sizeof(uint32_t)));
    memset(s, 0, sizeof *s);
}
