/*
 * critpath.c — the critical path of each step (critpath.h).
 *
 * Once per rank: the names that matter (lock, blocking, launch calls ...),
 * the GPU events with their launching call in launch order, and the queue
 * flags of each (HTA's queue length at its launch and at its start).  Then
 * per step: the step's events from binary searches of the sorted tracks and
 * of the launch-ordered GPU list, the edges in three passes (host call
 * stacks, the runtime lock, the GPU streams), a topological order (Kahn)
 * with the longest distance to each node, and the path walked back.
 */
#include "critpath.h"

#include <stdlib.h>
#include <string.h>

#include "devkind.h"
#include "sortperm.h"
#include "steps.h"
#include "u64map.h"

const char *ml_cp_kind_name(ml_cp_kind k)
{
    static const char *const names[ML_CP__COUNT] = {"cpu", "gpu_compute", "gpu_communication", "launch",
                                                    "kernel_kernel", "none"};
    return k < ML_CP__COUNT ? names[k] : "none";
}

/* ---- names ---- */

enum {
    N_KNOWN = 1,
    N_LOCK = 2,             /* holds the CUDA runtime lock */
    N_BLOCKING = 4,         /* waits for the GPU */
    N_LAUNCH = 8,           /* enqueues GPU work (HTA's runtime launch events) */
    N_RECORD = 16,          /* cudaEventRecord */
    N_FORWARD = 32,         /* "forward" in it */
    N_AUTOGRAD = 64,        /* "autograd" in it */
    N_COMM = 128,           /* a communication kernel */
    N_CTX_SYNC = 256, N_STREAM_SYNC = 512, N_EVENT_SYNC = 1024, N_STREAM_WAIT = 2048,
    N_NPU_SYNC = 4096,      /* a CANN call that waits for the NPU (aclrtSynchronizeStream ...) */
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, list[i])) return true;
    return false;
}

static uint16_t classify(const char *s)
{
    static const char *const lock[] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"};
    static const char *const blocking[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                                           "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync"};
    uint16_t f = N_KNOWN;
    if (in_list(s, lock, sizeof lock / sizeof *lock)) f |= N_LOCK;
    if (in_list(s, blocking, sizeof blocking / sizeof *blocking)) f |= N_BLOCKING;
    if (ml_devkind_launch_call(s)) f |= N_LAUNCH; /* every accelerator's launching calls (devkind.h) */
    if (!strcmp(s, "cudaEventRecord")) f |= N_RECORD;
    if (strstr(s, "forward")) f |= N_FORWARD;
    if (strstr(s, "autograd")) f |= N_AUTOGRAD;
    /* HTA's communication kernels: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) */
    if (!strncmp(s, "nccl", 4) || !strncmp(s, "hip", 3) || !strncmp(s, "hccl", 4) || strstr(s, "ncclKernel"))
        f |= N_COMM;
    if (!strcmp(s, "Context Sync")) f |= N_CTX_SYNC;
    if (!strcmp(s, "Stream Sync")) f |= N_STREAM_SYNC;
    if (!strcmp(s, "Event Sync")) f |= N_EVENT_SYNC;
    if (!strcmp(s, "Stream Wait Event")) f |= N_STREAM_WAIT;
    /* CANN's waits for the NPU, as trace_view.json ("AscendCL@aclrtMemcpy")
     * and the db ("aclrtMemcpy") name them: blocking, and a sync on an NPU */
    static const char *const npu_waits[] = {"aclrtSynchronizeStream", "aclrtSynchronizeStreamWithTimeout",
                                            "aclrtSynchronizeDevice", "aclrtSynchronizeDeviceWithTimeout",
                                            "aclrtSynchronizeEvent", "aclrtSynchronizeEventWithTimeout",
                                            "aclrtMemcpy"};
    const char *cann = !strncmp(s, "AscendCL@", 9) ? s + 9 : s;
    if (in_list(cann, npu_waits, sizeof npu_waits / sizeof *npu_waits)) f |= N_BLOCKING | N_NPU_SYNC;
    return f;
}

/* ---- the rank's context ---- */

typedef struct launch_list { /* GPU-list positions of one key's launches, in launch order */
    VEC(uint32_t) at;
} launch_list;

typedef struct cp_ctx {
    const ml_profile *p;
    const ml_trace *t;
    const ml_slices *s;
    size_t n;
    uint16_t *names;        /* per string id, 0 = not yet classified */
    size_t nstr;
    uint32_t *gpu;          /* GPU work and cuda_sync slices with a launching call, in launch order */
    size_t n_gpu;
    uint8_t *queue_ok;      /* per slice: 1 = queue length 1 at its launch and 0 at its start */
    uint32_t *ev_of;        /* per slice: its event in the current step, ML_NONE32 */
    bool linked_launch;     /* every call linked to device work launched it (an NPU's CANN calls: devkind.h) */
    uint32_t *walk_with;    /* NPU: per track, the host thread its CANN calls were made on, ML_NONE32 */
    bool npu_waits;         /* some step has a CANN call waiting for the NPU (a sync: ml_critpath.has_sync) */
    /* for event syncs, built when the trace has any */
    bool have_waits;
    ml_u64map record_of;    /* cudaEventRecord correlation -> 1 + slice */
    ml_u64map by_dev_stream; /* (device, stream) -> 1 + list */
    ml_u64map by_thread_stream; /* (launching track, stream) -> 1 + list */
    VEC(launch_list) lists;
} cp_ctx;

static uint16_t name_flags_new(cp_ctx *c, ml_str id)
{
    if (id >= c->nstr) return classify(ml_s(c->p, id));
    return c->names[id] = classify(ml_s(c->p, id));
}

/* (a name known already inline: this runs for every event of every step) */
static inline uint16_t name_flags(cp_ctx *c, ml_str id)
{
    return id < c->nstr && c->names[id] ? c->names[id] : name_flags_new(c, id);
}

static int64_t end_of(const ml_slices *s, uint32_t i) { return s->ts.v[i] + ml_slice_dur(s, i); }

/* Whether device work g (with a launcher) was put on its stream by a launch
 * call, the calls HTA's queue length and launch edges count: by name
 * (cudaLaunchKernel ...), or on an NPU every CANN call linked to a task
 * ("Node@launch", "AscendCL@aclnnAdd", "aclrtMemcpyAsync" ...: the export
 * names them, no fixed list does). */
static bool launched_by_call(cp_ctx *c, uint32_t g)
{
    if (c->s->kind.v[g] == ML_SL_CUDA_SYNC) return false;
    return c->linked_launch || (name_flags(c, c->s->name.v[c->s->launcher.v[g]]) & N_LAUNCH);
}

/* A GPU event's stream number (args), or -1. */
static int64_t stream_of(const ml_trace *t, uint32_t i)
{
    uint32_t info = t->slices.info.v[i];
    if (info == ML_NONE32) return -1;
    if (t->slices.kind.v[i] == ML_SL_CUDA_SYNC) return info < t->sync_info.len ? t->sync_info.v[info].stream : -1;
    return info < t->kernel_info.len ? t->kernel_info.v[info].stream : -1;
}

static int32_t device_of(const ml_trace *t, uint32_t i)
{
    uint32_t info = t->slices.info.v[i];
    if (info == ML_NONE32) return -1;
    if (t->slices.kind.v[i] == ML_SL_CUDA_SYNC) return info < t->sync_info.len ? t->sync_info.v[info].device : -1;
    return info < t->kernel_info.len ? t->kernel_info.v[info].device : -1;
}

#define BY_LAUNCH(c, x, y)                                                                                   \
    ((c)->s->ts.v[(c)->s->launcher.v[x]] != (c)->s->ts.v[(c)->s->launcher.v[y]]                             \
         ? (c)->s->ts.v[(c)->s->launcher.v[x]] < (c)->s->ts.v[(c)->s->launcher.v[y]]                         \
         : (x) < (y))
ML_RUNSORT_INPLACE_DEFINE(sort_by_launch, uint32_t, const cp_ctx *, BY_LAUNCH)

static launch_list *list_for(cp_ctx *c, ml_u64map *m, uint64_t key, bool make)
{
    if (!make) {
        uint32_t *v = ml_u64map_get(m, key);
        return v ? &c->lists.v[*v - 1] : NULL;
    }
    bool fresh;
    uint32_t *v = ml_u64map_put(m, key, &fresh);
    if (fresh) {
        launch_list l = {{0}};
        VEC_PUSH(&c->lists, l);
        *v = (uint32_t)c->lists.len;
    }
    return &c->lists.v[*v - 1];
}

static uint64_t pair_key(int64_t a, int64_t b) { return ml_mix64((uint64_t)a * 0x9e3779b97f4a7c15ull ^ (uint64_t)b); }

/* HTA's queue length, per stream track: +1 at each launch (launch calls
 * only), -1 at each start of the work it launched, launches first on ties. */
static void queue_flags(cp_ctx *c)
{
    const ml_slices *s = c->s;
    const ml_trace *t = c->t;
    size_t ntr = t->tracks.len;
    uint32_t *count = ml_calloc(ntr + 1, sizeof *count);
    /* per slice: 2 = GPU work a launch call put on its stream (asked once),
     * 1 = the queue was 1 long after its launch */
    enum { AT_LAUNCH_1 = 1, BY_CALL = 2 };
    uint8_t *mark = ml_calloc(c->n ? c->n : 1, 1);
    for (size_t k = 0; k < c->n_gpu; k++) {
        uint32_t g = c->gpu[k];
        if (launched_by_call(c, g)) {
            count[s->track.v[g] + 1]++;
            mark[g] = BY_CALL;
        }
    }
    for (size_t k = 0; k < ntr; k++) count[k + 1] += count[k];
    uint32_t *launched = ml_malloc((count[ntr] ? count[ntr] : 1) * sizeof *launched);
    uint32_t *fill = ml_malloc((ntr + 1) * sizeof *fill);
    memcpy(fill, count, (ntr + 1) * sizeof *fill);
    for (size_t k = 0; k < c->n_gpu; k++) {
        uint32_t g = c->gpu[k];
        if (mark[g] & BY_CALL) launched[fill[s->track.v[g]]++] = g;
    }
    for (uint32_t tr = 0; tr < ntr; tr++) {
        if (count[tr] == count[tr + 1]) continue;
        size_t first, n;
        ml_track_slices(t, tr, &first, &n);
        size_t i = count[tr], iend = count[tr + 1], j = first, jend = first + n;
        int64_t q = 0;
        for (;;) {
            while (j < jend && !(mark[j] & BY_CALL)) j++; /* (GPU work with a launcher in the list: as asked above) */
            if (i >= iend && j >= jend) break;
            if (i < iend && (j >= jend || s->ts.v[s->launcher.v[launched[i]]] <= s->ts.v[j])) {
                q++;
                if (q == 1) mark[launched[i]] |= AT_LAUNCH_1;
                i++;
            } else {
                q--;
                if (q == 0 && (mark[j] & AT_LAUNCH_1)) c->queue_ok[j] = 1;
                j++;
            }
        }
    }
    free(mark);
    free(count);
    free(fill);
    free(launched);
}

/* On an NPU the CANN calls have a lane of their own (process "CANN", the
 * tid of the host thread that made them): a thread track of runtime calls
 * only is walked with the thread track of the same tid that has operators,
 * so that a call sits inside the operator that made it, as cudaLaunchKernel
 * does on its thread. */
static void npu_host_threads(cp_ctx *c)
{
    const ml_trace *t = c->t;
    size_t ntr = t->tracks.len;
    uint8_t *has = ml_calloc(ntr ? ntr : 1, 1); /* 1: operators, 2: runtime calls, 4: anything else */
    for (size_t i = 0; i < c->n; i++) {
        uint32_t tr = c->s->track.v[i];
        uint8_t k = c->s->kind.v[i];
        if (t->tracks.v[tr].kind == ML_TRACK_THREAD)
            has[tr] |= k == ML_SL_CPU_OP ? 1 : ml_slice_is_runtime(k) ? 2 : 4;
    }
    c->walk_with = ml_malloc((ntr ? ntr : 1) * sizeof *c->walk_with);
    for (size_t a = 0; a < ntr; a++) {
        c->walk_with[a] = ML_NONE32;
        if (has[a] != 2) continue;
        for (size_t b = 0; b < ntr; b++)
            if (b != a && (has[b] & 1) && t->tracks.v[b].tid == t->tracks.v[a].tid) {
                c->walk_with[a] = (uint32_t)b;
                break;
            }
    }
    free(has);
}

static void ctx_init(cp_ctx *c, const ml_profile *p)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->t = p->trace;
    c->s = &c->t->slices;
    c->n = c->s->ts.len;
    c->nstr = ml_strpool_count(p->strings);
    c->names = ml_calloc(c->nstr ? c->nstr : 1, sizeof *c->names);
    c->linked_launch = ml_devkind_words_of(ml_devkind_of_profile(p))->linked_calls_launch;
    if (c->linked_launch) npu_host_threads(c);
    const ml_slices *s = c->s;
    VEC(uint32_t) gpu = {0};
    ML_FOR_DEVICE_ROWS (c->t, i) { /* (the rows that hold every GPU and cuda_sync slice, ascending) */
        uint8_t k = s->kind.v[i];
        uint32_t l = s->launcher.v[i];
        if ((ml_slice_is_gpu(k) || k == ML_SL_CUDA_SYNC) && l != ML_NONE32) VEC_PUSH(&gpu, (uint32_t)i);
        if (k == ML_SL_CUDA_SYNC && (name_flags(c, s->name.v[i]) & (N_STREAM_WAIT | N_EVENT_SYNC))) c->have_waits = true;
    }
    sort_by_launch(gpu.v, gpu.len, c);
    c->gpu = gpu.v;
    c->n_gpu = gpu.len;
    c->queue_ok = ml_calloc(c->n ? c->n : 1, 1);
    queue_flags(c);
    c->ev_of = ml_malloc((c->n ? c->n : 1) * sizeof *c->ev_of);
    for (size_t i = 0; i < c->n; i++) c->ev_of[i] = ML_NONE32;
    ml_u64map_init(&c->record_of);
    ml_u64map_init(&c->by_dev_stream);
    ml_u64map_init(&c->by_thread_stream);
    if (!c->have_waits) return;
    for (size_t i = 0; i < c->n; i++) {
        if (!ml_slice_is_runtime(s->kind.v[i]) || ml_slice_corr(s, i) < 0 || !(name_flags(c, s->name.v[i]) & N_RECORD)) continue;
        bool fresh;
        uint32_t *v = ml_u64map_put(&c->record_of, (uint64_t)ml_slice_corr(s, i), &fresh);
        if (fresh) *v = (uint32_t)i + 1;
    }
    for (size_t k = 0; k < c->n_gpu; k++) { /* launches of GPU work, by where they go and where from */
        uint32_t g = c->gpu[k], l = s->launcher.v[g];
        if (!launched_by_call(c, g)) continue;
        int64_t st = stream_of(c->t, g);
        VEC_PUSH(&list_for(c, &c->by_dev_stream, pair_key(device_of(c->t, g), st), true)->at, (uint32_t)k);
        VEC_PUSH(&list_for(c, &c->by_thread_stream, pair_key(s->track.v[l], st), true)->at, (uint32_t)k);
    }
}

static void ctx_free(cp_ctx *c)
{
    free(c->names);
    free(c->gpu);
    free(c->queue_ok);
    free(c->ev_of);
    free(c->walk_with);
    ml_u64map_free(&c->record_of);
    ml_u64map_free(&c->by_dev_stream);
    ml_u64map_free(&c->by_thread_stream);
    for (size_t i = 0; i < c->lists.len; i++) VEC_FREE(&c->lists.v[i].at);
    VEC_FREE(&c->lists);
}

/* The GPU event launched last on list l at or before ts (ML_NONE32 if none). */
static uint32_t last_launch_upto(const cp_ctx *c, const launch_list *l, int64_t ts)
{
    if (!l) return ML_NONE32;
    size_t lo = 0, hi = l->at.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->s->ts.v[c->s->launcher.v[c->gpu[l->at.v[mid]]]] <= ts) lo = mid + 1;
        else hi = mid;
    }
    return lo ? c->gpu[l->at.v[lo - 1]] : ML_NONE32;
}

/* The GPU event launched first on list l at or after ts. */
static uint32_t first_launch_from(const cp_ctx *c, const launch_list *l, int64_t ts)
{
    if (!l) return ML_NONE32;
    size_t lo = 0, hi = l->at.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->s->ts.v[c->s->launcher.v[c->gpu[l->at.v[mid]]]] < ts) lo = mid + 1;
        else hi = mid;
    }
    return lo < l->at.len ? c->gpu[l->at.v[lo]] : ML_NONE32;
}

/* ---- one step's graph ---- */

enum { E_OPK, E_DEP, E_LAUNCH, E_KK, E_SYNC };
enum { V_LOCK = 1, V_BLOCKING = 2, V_GPU = 4, V_SYNC = 8, V_NPU_SYNC = 16 /* a host call: N_NPU_SYNC */ };

typedef struct ev {
    uint32_t slice;
    uint32_t group;         /* host: its call stack (a track); GPU: ML_NONE32 */
    int64_t ts, end;
    uint8_t flags;
} ev;

typedef struct edge {
    uint32_t from, to;      /* nodes: 2 × event (+1 for its end) */
    int64_t w;
    uint32_t owner;         /* the event (or, as the slice + n_ev, the enclosing slice) its time is charged to */
    uint8_t type;
} edge;

typedef struct lnode {
    int64_t ts;
    uint32_t slice, node;
} lnode;

typedef struct stream_last {
    int64_t stream;
    uint32_t node;
} stream_last;

/* An edge out of a node as the longest path's walk reads it: its head,
 * weight and index side by side, a node's edges in a row (in edge order). */
typedef struct adj {
    uint32_t to, edge;
    int64_t w;
} adj;

/* One step's graph; its vectors (and the scratch of the passes) are kept
 * from step to step, so that a step allocates nothing once they are grown. */
typedef struct graph {
    cp_ctx *c;
    VEC(ev) evs;
    VEC(edge) edges;
    VEC(uint32_t) stack, order, starts, path;
    VEC(lnode) lnodes;
    VEC(stream_last) last;
    VEC(uint32_t) first, indeg, queue; /* the longest path's (nodes + 1) */
    VEC(uint64_t) via;      /* (nodes + 1: the edge a node came by, and in the high half its tail) */
    VEC(adj) out;           /* (edges) */
    VEC(int64_t) dist;
} graph;

static void graph_free(graph *g)
{
    VEC_FREE(&g->evs); VEC_FREE(&g->edges); VEC_FREE(&g->stack); VEC_FREE(&g->order); VEC_FREE(&g->starts);
    VEC_FREE(&g->path); VEC_FREE(&g->lnodes); VEC_FREE(&g->last); VEC_FREE(&g->first); VEC_FREE(&g->indeg);
    VEC_FREE(&g->out); VEC_FREE(&g->via); VEC_FREE(&g->queue); VEC_FREE(&g->dist);
}

static int64_t node_ts(const graph *g, uint32_t node)
{
    const ev *e = &g->evs.v[node >> 1];
    return node & 1 ? e->end : e->ts;
}

/* An edge of weight w (the time from `from` to `to`, 0 for a dependency, a
 * sync or a wait; never below 0).  owner: an event index, or ML_NONE32 (not
 * charged). */
static inline void push_edge(graph *g, uint32_t from, uint32_t to, uint8_t type, int64_t w, uint32_t owner)
{
    if (from == to) return;
    edge e = {from, to, w < 0 ? 0 : w, owner, type};
    VEC_PUSH(&g->edges, e);
}

static inline void add_edge(graph *g, uint32_t from, uint32_t to, uint8_t type, bool zero, uint32_t owner)
{
    int64_t w = type == E_DEP || type == E_SYNC || zero ? 0 : node_ts(g, to) - node_ts(g, from);
    push_edge(g, from, to, type, w, owner);
}

/* The slice enclosing event e's slice, charged for a gap between two of its children. */
#define OWNER_PARENT 0x80000000u

/* HTA's _shares_cuda_runtime_lock(a, b): both calls hold the runtime lock,
 * and not (a's end, b's start).  No edge of the call stack between such
 * nodes: the lock's own edges order them (lock_edges). */

/* Host event x before y on a merged call stack: earlier, longer, then slice
 * order (the order of a track's slices: each track's events come so). */
#define EV_BEFORE(g, x, y)                                                                                   \
    ((g)->evs.v[x].ts != (g)->evs.v[y].ts     ? (g)->evs.v[x].ts < (g)->evs.v[y].ts                          \
     : (g)->evs.v[x].end != (g)->evs.v[y].end ? (g)->evs.v[x].end > (g)->evs.v[y].end                        \
                                              : (g)->evs.v[x].slice < (g)->evs.v[y].slice)
ML_RUNSORT_INPLACE_DEFINE(sort_host_events, uint32_t, const graph *, EV_BEFORE)

/* The call stack of one group: enter and leave each call in depth-first
 * order, linking each node to the one before (critical_path_analysis.py,
 * _construct_graph_from_call_stack). */
static void stack_edges(graph *g, const uint32_t *order, size_t n)
{
    /* (locals, not the graph's fields: a store into an edge could alias a
     * length, so that each push would load them again) */
    VEC_RESERVE(&g->stack, n);
    VEC_RESERVE(&g->edges, g->edges.len + 2 * n); /* at most one edge into each node */
    uint32_t *stack = g->stack.v;
    size_t depth = 0;
    edge *out = g->edges.v + g->edges.len;
    const ev *evs = g->evs.v;
    uint32_t last = ML_NONE32;
    int64_t last_ts = 0;    /* the last node's time, and whether its call holds the runtime lock */
    bool last_lock = false;
    for (size_t k = 0; k <= n; k++) {
        int64_t ts = k < n ? evs[order[k]].ts : INT64_MAX;
        /* leave the calls that ended by this one's start (all of them at the end) */
        while (depth && (k == n || evs[stack[depth - 1]].end <= ts)) {
            uint32_t e = stack[--depth], node = 2 * e + 1;
            const ev *x = &evs[e];
            bool lock = x->flags & V_LOCK;
            if (last != ML_NONE32 && !(last_lock && lock)) { /* (they share the lock: no edge) */
                uint32_t owner = last & 1 ? e : last >> 1; /* (start, end): the started one; (end, end): this */
                int64_t w = x->flags & V_BLOCKING ? 0 : x->end - last_ts;
                *out++ = (edge){last, node, w < 0 ? 0 : w, owner, E_OPK};
            }
            last = node, last_ts = x->end, last_lock = lock;
        }
        if (k == n) break;
        uint32_t e = order[k], node = 2 * e;
        const ev *x = &evs[e];
        bool lock = x->flags & V_LOCK;
        if (last != ML_NONE32 && !(last_lock && lock && !(last & 1))) { /* (they share the lock: no edge) */
            /* (start, start): the outer one; (end, start): the call around both */
            uint32_t owner = last & 1 ? (last >> 1) | OWNER_PARENT : last >> 1;
            int64_t w = ts - last_ts;
            if (depth) *out++ = (edge){last, node, w < 0 ? 0 : w, owner, E_OPK};
            else *out++ = (edge){last, node, 0, owner, E_DEP};
        }
        last = node, last_ts = ts, last_lock = lock;
        stack[depth++] = e;
    }
    g->edges.len = (size_t)(out - g->edges.v);
    g->stack.len = 0;
}

#define LNODE_LT(ctx, x, y) \
    ((x).ts != (y).ts ? (x).ts < (y).ts : (x).slice != (y).slice ? (x).slice < (y).slice : (x).node < (y).node)
ML_RUNSORT_INPLACE_DEFINE(sort_lnodes, lnode, void *, LNODE_LT)

/* The CUDA runtime lock across threads (_construct_graph_from_cuda_runtime_events). */
static void lock_edges(graph *g)
{
    g->lnodes.len = 0;
    for (size_t e = 0; e < g->evs.len; e++) {
        const ev *x = &g->evs.v[e];
        if (!(x->flags & V_LOCK)) continue;
        lnode a = {x->ts, x->slice, 2 * (uint32_t)e}, b = {x->end, x->slice, 2 * (uint32_t)e + 1};
        VEC_PUSH(&g->lnodes, a);
        VEC_PUSH(&g->lnodes, b);
    }
    sort_lnodes(g->lnodes.v, g->lnodes.len, NULL);
    g->starts.len = 0;
    uint32_t last = ML_NONE32;
    for (size_t k = 0; k < g->lnodes.len; k++) {
        uint32_t node = g->lnodes.v[k].node;
        if (!(node & 1)) VEC_PUSH(&g->starts, node);
        else {
            while (g->starts.len) {
                uint32_t prev = g->starts.v[--g->starts.len];
                if ((prev >> 1) == (node >> 1)) add_edge(g, prev, node, E_OPK, false, node >> 1);
                else add_edge(g, prev, node, E_DEP, false, ML_NONE32);
            }
            if (last != ML_NONE32 && (last & 1)) add_edge(g, last, node, E_DEP, false, ML_NONE32);
        }
        last = node;
    }
}

/* GPU events in HTA's order: by start, cuda_sync events by their end. */
static int64_t gpu_key(const graph *g, uint32_t e)
{
    const ev *x = &g->evs.v[e];
    return x->flags & V_SYNC ? x->end : x->ts;
}
#define GPU_BEFORE(g, x, y) \
    (gpu_key(g, x) != gpu_key(g, y) ? gpu_key(g, x) < gpu_key(g, y) : (g)->evs.v[x].slice < (g)->evs.v[y].slice)
ML_RUNSORT_INPLACE_DEFINE(sort_gpu, uint32_t, const graph *, GPU_BEFORE)

typedef VEC(ml_cp_leg) leg_vec;

#define KERNEL_KERNEL_MAX_NS 1500000 /* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */

/* The GPU event that the CUDA event awaited by sync slice y followed: the
 * last launch on the recording stream before cudaEventRecord. */
static uint32_t event_source(cp_ctx *c, uint32_t y)
{
    const ml_sync_info *si = &c->t->sync_info.v[c->s->info.v[y]];
    if (si->wait_corr < 0 || si->wait_stream < 0) return ML_NONE32;
    uint32_t *r = ml_u64map_get(&c->record_of, (uint64_t)si->wait_corr);
    if (!r) return ML_NONE32;
    return last_launch_upto(c, list_for(c, &c->by_dev_stream, pair_key(si->device, si->wait_stream), false),
                            c->s->ts.v[*r - 1]);
}

/* Kernels, launches, gaps and syncs, stream by stream (_construct_graph_from_kernels). */
static void gpu_edges(graph *g, uint32_t *order, size_t n)
{
    cp_ctx *c = g->c;
    const ml_slices *s = c->s;
    sort_gpu(order, n, g);
    g->last.len = 0;
    ml_u64map waits; /* GPU slice that must wait -> 1 + the slice it waits for */
    ml_u64map_init(&waits);
    for (size_t k = 0; k < n; k++) {
        uint32_t e = order[k];
        ev *x = &g->evs.v[e];
        uint32_t y = x->slice, runtime = c->ev_of[s->launcher.v[y]];
        if (x->flags & V_SYNC) {
            uint16_t f = name_flags(c, s->name.v[y]);
            if (f & (N_STREAM_WAIT | N_EVENT_SYNC)) {
                uint32_t src = s->info.v[y] < c->t->sync_info.len ? event_source(c, y) : ML_NONE32;
                if (src == ML_NONE32) continue;
                if (f & N_STREAM_WAIT) {
                    /* the next launch from the waiting thread onto the waiting stream */
                    uint32_t l = s->launcher.v[y];
                    uint32_t dest = first_launch_from(
                        c, list_for(c, &c->by_thread_stream, pair_key(s->track.v[l], stream_of(c->t, y)), false),
                        s->ts.v[l]);
                    if (dest == ML_NONE32) continue;
                    bool fresh;
                    *ml_u64map_put(&waits, dest, &fresh) = src + 1;
                } else if (c->ev_of[src] != ML_NONE32)
                    add_edge(g, 2 * c->ev_of[src] + 1, 2 * runtime + 1, E_SYNC, true, ML_NONE32);
                continue;
            }
            if (!(f & (N_STREAM_SYNC | N_CTX_SYNC))) continue;
            int64_t st = stream_of(c->t, y);
            for (size_t j = 0; j < g->last.len; j++)
                if ((f & N_CTX_SYNC) || g->last.v[j].stream == st)
                    add_edge(g, g->last.v[j].node, 2 * runtime + 1, E_SYNC, true, ML_NONE32);
            continue;
        }
        uint32_t start = 2 * e, end = start + 1;
        add_edge(g, start, end, E_OPK, false, e);
        int64_t st = stream_of(c->t, y);
        stream_last *prev = NULL;
        for (size_t j = 0; j < g->last.len && !prev; j++)
            if (g->last.v[j].stream == st) prev = &g->last.v[j];
        /* a wait on another GPU event (its end node, if that event is in this step) */
        uint32_t *w = ml_u64map_get(&waits, y);
        uint32_t sync_end = ML_NONE32;
        bool had_sync = false;
        if (w && *w) {
            uint32_t src = *w - 1;
            had_sync = true;
            if (c->ev_of[src] != ML_NONE32) {
                sync_end = 2 * c->ev_of[src] + 1;
                add_edge(g, sync_end, start, E_SYNC, true, ML_NONE32);
            }
            *w = 0;
        }
        if (had_sync && sync_end == ML_NONE32) had_sync = false; /* out of the step: as if none */
        int64_t launch_ts = g->evs.v[runtime].ts;
        if (c->queue_ok[y] && (!prev || node_ts(g, prev->node) < launch_ts) &&
            (!had_sync || node_ts(g, sync_end) < launch_ts))
            add_edge(g, 2 * runtime, start, E_LAUNCH, false, ML_NONE32);
        else if (prev && x->ts - node_ts(g, prev->node) < KERNEL_KERNEL_MAX_NS &&
                 (!had_sync || node_ts(g, sync_end) < node_ts(g, prev->node)))
            add_edge(g, prev->node, start, E_KK, false, prev->node >> 1);
        if (prev) prev->node = end;
        else {
            stream_last sl = {st, end};
            VEC_PUSH(&g->last, sl);
        }
    }
    ml_u64map_free(&waits);
}

/* An NPU's CANN calls that wait for it (aclrtSynchronizeStream ...): the
 * export names no stream they wait on, so, as for a Context Sync, each
 * stream's last task that ended by the call's end and was launched before
 * the call began -> the call's end (weight 0; a task launched later can
 * end first where the device's clock runs ahead: no edge back, no cycle). */
static void npu_sync_edges(graph *g, size_t n_host)
{
    cp_ctx *c = g->c;
    const ml_slices *s = c->s;
    g->lnodes.len = 0; /* the step's tasks by end (lock_edges is done with it) */
    for (size_t e = n_host; e < g->evs.len; e++)
        if (g->evs.v[e].flags & V_GPU) {
            lnode l = {g->evs.v[e].end, g->evs.v[e].slice, 2 * (uint32_t)e + 1};
            VEC_PUSH(&g->lnodes, l);
        }
    if (!g->lnodes.len) return;
    bool sorted = false;
    size_t n_streams = 0;
    for (size_t h = 0; h < n_host; h++) {
        const ev *x = &g->evs.v[h];
        if (!(x->flags & V_NPU_SYNC)) continue;
        c->npu_waits = true;
        if (!sorted) {
            sort_lnodes(g->lnodes.v, g->lnodes.len, NULL);
            g->last.len = 0; /* (gpu_edges is done with it) */
            for (size_t k = 0; k < g->lnodes.len; k++) {
                int64_t st = stream_of(c->t, g->lnodes.v[k].slice);
                bool seen = false;
                for (size_t j = 0; j < g->last.len && !seen; j++) seen = g->last.v[j].stream == st;
                if (!seen) VEC_PUSH(&g->last, ((stream_last){st, 0}));
            }
            n_streams = g->last.len;
            sorted = true;
        }
        size_t lo = 0, hi = g->lnodes.len;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (g->lnodes.v[mid].ts <= x->end) lo = mid + 1;
            else hi = mid;
        }
        g->last.len = 0; /* the streams given an edge to this call */
        for (size_t k = lo; k-- > 0 && g->last.len < n_streams;) {
            uint32_t task = g->lnodes.v[k].slice;
            if (s->ts.v[s->launcher.v[task]] > x->ts) continue;
            int64_t st = stream_of(c->t, task);
            bool seen = false;
            for (size_t j = 0; j < g->last.len && !seen; j++) seen = g->last.v[j].stream == st;
            if (seen) continue;
            VEC_PUSH(&g->last, ((stream_last){st, g->lnodes.v[k].node}));
            add_edge(g, g->lnodes.v[k].node, 2 * (uint32_t)h + 1, E_SYNC, true, ML_NONE32);
        }
    }
}

/* ---- the longest path ---- */

/* The kind an edge's time counts as. */
static uint8_t edge_kind(const graph *g, const edge *e, uint32_t *slice_out)
{
    *slice_out = ML_NONE32;
    if (e->type == E_DEP || e->type == E_SYNC || e->owner == ML_NONE32) return e->type == E_LAUNCH ? ML_CP_LAUNCH : ML_CP_NONE;
    const cp_ctx *c = g->c;
    uint32_t slice;
    if (e->owner & OWNER_PARENT) {
        slice = c->s->parent.v[g->evs.v[e->owner & ~OWNER_PARENT].slice];
        if (slice == ML_NONE32) slice = g->evs.v[e->owner & ~OWNER_PARENT].slice;
    } else slice = g->evs.v[e->owner].slice;
    *slice_out = slice;
    if (e->type == E_KK) return ML_CP_KERNEL_KERNEL;
    uint8_t k = c->s->kind.v[slice];
    if (!ml_slice_is_gpu(k)) return ML_CP_CPU;
    uint32_t info = c->s->info.v[slice]; /* an NPU's HCCL tasks (Notify Wait, SDMA ...) by what the importer knows */
    if (c->linked_launch && info < c->t->kernel_info.len && ml_kernel_info_is_comm(c->t, &c->t->kernel_info.v[info]))
        return ML_CP_GPU_COMM;
    return (name_flags(g->c, c->s->name.v[slice]) & N_COMM) ? ML_CP_GPU_COMM : ML_CP_GPU_COMPUTE;
}

typedef struct top_acc {
    ml_str name;
    uint8_t kind;
    uint32_t slice;
    int64_t ns;
} top_acc;

static int cmp_top(const void *x, const void *y)
{
    const top_acc *a = x, *b = y;
    if (a->ns != b->ns) return a->ns > b->ns ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

typedef VEC(top_acc) top_vec;

/* Time on the path by (name, kind): a row per pair met, found through a
 * table indexed by name id and kind (its pages are touched only where used). */
typedef struct top_table {
    uint32_t *at;           /* name × ML_CP__COUNT + kind -> 1 + row of v, 0 none */
    size_t cap;
    top_vec v;
} top_table;

static void top_init(top_table *tt, size_t nstr)
{
    tt->cap = (nstr ? nstr : 1) * ML_CP__COUNT;
    tt->at = ml_calloc(tt->cap, sizeof *tt->at);
    tt->v.len = 0;
}

static void top_free(top_table *tt)
{
    free(tt->at);
    VEC_FREE(&tt->v);
}


static void top_add(top_table *tt, const ml_slices *s, uint32_t slice, uint8_t kind, int64_t ns)
{
    size_t key = (size_t)s->name.v[slice] * ML_CP__COUNT + kind;
    if (key >= tt->cap) return; /* a name the pool did not have when the table was made */
    if (!tt->at[key]) {
        top_acc a = {s->name.v[slice], kind, slice, 0};
        VEC_PUSH(&tt->v, a);
        tt->at[key] = (uint32_t)tt->v.len;
    }
    tt->v.v[tt->at[key] - 1].ns += ns;
}

/* A step's rows added into the rank's table: the same sums and, for a pair
 * first met in this step, the same slice as adding each edge to both (a
 * step has few pairs, and its path many edges). */
static void top_merge(top_table *into, const top_table *from)
{
    for (size_t i = 0; i < from->v.len; i++) {
        const top_acc *a = &from->v.v[i];
        size_t key = (size_t)a->name * ML_CP__COUNT + a->kind; /* (< cap: both tables are as large) */
        if (!into->at[key]) {
            top_acc r = {a->name, a->kind, a->slice, 0};
            VEC_PUSH(&into->v, r);
            into->at[key] = (uint32_t)into->v.len;
        }
        into->v.v[into->at[key] - 1].ns += a->ns;
    }
}

/* The n largest of a table, into out (ML_CP_TOP places); the table is left
 * empty (its index cleared where its rows were, not all of it). */
static size_t top_take(top_table *tt, ml_cp_top *out)
{
    for (size_t i = 0; i < tt->v.len; i++) tt->at[(size_t)tt->v.v[i].name * ML_CP__COUNT + tt->v.v[i].kind] = 0;
    if (tt->v.len > 1) qsort(tt->v.v, tt->v.len, sizeof *tt->v.v, cmp_top);
    size_t n = tt->v.len < ML_CP_TOP ? tt->v.len : ML_CP_TOP;
    for (size_t k = 0; k < n; k++) out[k] = (ml_cp_top){tt->v.v[k].slice, tt->v.v[k].name, tt->v.v[k].kind, tt->v.v[k].ns};
    tt->v.len = 0;
    return n;
}

/* Whether node u is later than node v (a tie between two paths: rare, so
 * kept out of the loop, whose compiler would otherwise work u's time out
 * for every node). */
static __attribute__((noinline, cold)) bool later_than(const graph *g, uint32_t u, uint32_t v)
{
    return node_ts(g, u) > node_ts(g, v);
}

#define VIA(edge, from) ((uint64_t)(from) << 32 | (edge))
#define VIA_NONE VIA(ML_NONE32, ML_NONE32)

static void longest_path(graph *g, ml_cp_step *st, leg_vec *legs, top_table *tops, top_table *rank_top)
{
    const ml_slices *s = g->c->s;
    size_t nn = 2 * g->evs.len, ne = g->edges.len;
    VEC_RESERVE(&g->first, nn + 2);
    VEC_RESERVE(&g->indeg, nn + 1);
    VEC_RESERVE(&g->out, ne + 1);
    VEC_RESERVE(&g->via, nn + 1);
    VEC_RESERVE(&g->queue, nn + 1);
    VEC_RESERVE(&g->dist, nn + 1);
    /* each node's edges out, in edge order, from a count of them: ends[v + 1]
     * is first the end of v's range, then, filled from the last edge down,
     * its start, so that v's range is first[v] .. first[v + 1] (first =
     * ends + 1: no second array of where each range is filled up to) */
    uint32_t *ends = g->first.v, *first = ends + 1, *indeg = g->indeg.v, *queue = g->queue.v;
    uint64_t *via = g->via.v;
    adj *out = g->out.v;
    int64_t *dist = g->dist.v;
    memset(ends, 0, (nn + 1) * sizeof *ends);
    memset(indeg, 0, nn * sizeof *indeg);
    for (size_t i = 0; i < ne; i++) {
        ends[g->edges.v[i].from + 1]++;
        indeg[g->edges.v[i].to]++;
    }
    for (size_t i = 0; i < nn; i++) ends[i + 1] += ends[i];
    ends[nn + 1] = (uint32_t)ne;
    /* (each edge's head and weight copied beside its index: the walk below
     * reads a node's edges in a row, not each through its index, a load
     * that waits for another) */
    for (size_t i = ne; i-- > 0;) {
        const edge *e = &g->edges.v[i];
        out[--ends[e->from + 1]] = (adj){e->to, (uint32_t)i, e->w};
    }
    /* Kahn's order; each node's longest distance and the edge it came by.
     * A node with edges in starts at -1, below any path to it (weights are
     * never below 0), so its first edge in is taken without a test of via;
     * a node without keeps VIA_NONE, where the path walked back ends (each
     * via holds its edge's tail: the walk back, a chain of loads, is one
     * load a node, not two). */
    size_t qh = 0, qt = 0;
    for (size_t v = 0; v < nn; v++) {
        if (indeg[v]) dist[v] = -1;
        else {
            dist[v] = 0;
            via[v] = VIA_NONE;
            queue[qt++] = (uint32_t)v;
        }
    }
    uint32_t best = qt ? queue[0] : 0; /* the farthest node, the first in Kahn's order of equals */
    int64_t best_d = 0; /* dist[best] (a source's, 0; none read if there is none) */
    while (qh < qt) {
        uint32_t u = queue[qh++];
        int64_t du = dist[u];
        if (du > best_d) best = u, best_d = du; /* (final: all its edges in are relaxed) */
        for (const adj *a = out + first[u], *aend = out + first[u + 1]; a < aend; a++) {
            uint32_t v = a->to;
            int64_t d = du + a->w;
            /* ties: the later predecessor, as networkx's max over (length, node) */
            if (d > dist[v] || (d == dist[v] && later_than(g, u, (uint32_t)(via[v] >> 32)))) {
                dist[v] = d;
                via[v] = VIA(a->edge, u);
            }
            if (!--indeg[v]) queue[qt++] = v;
        }
    }
    st->ok = qt == nn && nn > 0;
    if (st->ok) {
        /* the path's edges, last first */
        g->path.len = 0;
        for (uint32_t v = best; via[v] != VIA_NONE; v = (uint32_t)(via[v] >> 32)) VEC_PUSH(&g->path, (uint32_t)via[v]);
        const uint32_t *pv = g->path.v;
        size_t plen = g->path.len;
        st->path_ns = dist[best];
        st->nodes_on_path = plen + 1;
        uint32_t start_node = plen ? g->edges.v[pv[plen - 1]].from : best;
        st->path_begin = node_ts(g, start_node);
        st->path_end = node_ts(g, best);
        st->first_leg = legs->len;
        ml_cp_leg leg = {0};
        bool open = false;
        int64_t leg_kind_ns[ML_CP__COUNT] = {0};
        for (size_t k = plen; k-- > 0;) {
            const edge *e = &g->edges.v[pv[k]];
            uint32_t slice;
            uint8_t kind = edge_kind(g, e, &slice);
            if (e->w > 0) st->by_kind[kind] += e->w;
            if (slice != ML_NONE32 && e->w > 0) top_add(tops, s, slice, kind, e->w);
            /* legs: runs on one track; an edge between tracks is a leg of its own */
            const ev *a = &g->evs.v[e->from >> 1], *b = &g->evs.v[e->to >> 1];
            uint32_t ta = s->track.v[a->slice], tb = s->track.v[b->slice];
            bool cross = ta != tb;
            if (open && (cross || leg.to_track != ta)) {
                uint8_t dom = ML_CP_NONE;
                for (int q = 0; q < ML_CP__COUNT; q++)
                    if (leg_kind_ns[q] > 0 && (dom == ML_CP_NONE || leg_kind_ns[q] > leg_kind_ns[dom])) dom = (uint8_t)q;
                leg.kind = dom;
                VEC_PUSH(legs, leg);
                open = false;
            }
            if (!open) {
                memset(&leg, 0, sizeof leg);
                memset(leg_kind_ns, 0, sizeof leg_kind_ns);
                leg.from_slice = a->slice;
                leg.from_track = ta;
                leg.from_ts = node_ts(g, e->from);
                open = true;
            }
            leg.to_slice = b->slice;
            leg.to_track = tb;
            leg.to_ts = node_ts(g, e->to);
            leg.weight_ns += e->w;
            leg_kind_ns[kind] += e->w;
            if (cross) { /* closed at once */
                leg.kind = kind;
                VEC_PUSH(legs, leg);
                open = false;
            }
        }
        if (open) {
            uint8_t dom = ML_CP_NONE;
            for (int q = 0; q < ML_CP__COUNT; q++)
                if (leg_kind_ns[q] > 0 && (dom == ML_CP_NONE || leg_kind_ns[q] > leg_kind_ns[dom])) dom = (uint8_t)q;
            leg.kind = dom;
            VEC_PUSH(legs, leg);
        }
        st->n_legs = legs->len - st->first_leg;
        top_merge(rank_top, tops);
        st->n_top = top_take(tops, st->top);
    }
}

/* ---- per step ---- */

static size_t lower_bound_ts(const ml_slices *s, size_t first, size_t n, int64_t ts)
{
    size_t lo = first, hi = first + n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->ts.v[mid] < ts) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void one_step(graph *gr, ml_cp_step *st, leg_vec *legs, top_table *tops, top_table *rank_top)
{
    cp_ctx *c = gr->c;
    graph *g = gr;
    const ml_trace *t = c->t;
    const ml_slices *s = c->s;
    int64_t ws = st->begin, we = st->end;
    g->evs.len = g->edges.len = 0;
    size_t ntr = t->tracks.len;
    uint32_t *ev_first = ml_malloc((ntr + 1) * sizeof *ev_first); /* host events of each track */
    uint32_t fwd = ML_NONE32, bwd = ML_NONE32;
    int nfwd = 0, nbwd = 0;
    for (uint32_t tr = 0; tr < ntr; tr++) {
        ev_first[tr] = (uint32_t)g->evs.len;
        if (t->tracks.v[tr].kind == ML_TRACK_STREAM) continue;
        size_t first, n;
        ml_track_slices(t, tr, &first, &n);
        bool is_fwd = false, is_bwd = false;
        /* the track's slices from ws to we (a step that ends before it begins: none) */
        size_t from = lower_bound_ts(s, first, n, ws), upto = lower_bound_ts(s, first, n, we == INT64_MAX ? we : we + 1);
        if (upto < from) upto = from;
        VEC_RESERVE(&g->evs, g->evs.len + (upto - from)); /* (the pushes below then never grow it) */
        for (size_t i = from; i < upto; i++) {
            uint8_t k = s->kind.v[i];
            if (ml_slice_dur(s, i) <= 0) continue;
            bool tree = k == ML_SL_CPU_OP || k == ML_SL_USER_ANNOTATION || k == ML_SL_PROFILER_STEP;
            if (!tree && !ml_slice_is_runtime(k)) continue;
            uint16_t f = name_flags(c, s->name.v[i]);
            if (tree) {
                is_fwd |= (f & N_FORWARD) != 0;
                is_bwd |= (f & N_AUTOGRAD) != 0;
            }
            if (k != ML_SL_CPU_OP && !ml_slice_is_runtime(k)) continue;
            ev x = {(uint32_t)i, tr, s->ts.v[i], end_of(s, (uint32_t)i),
                    (uint8_t)((ml_slice_is_runtime(k) && (f & N_LOCK) ? V_LOCK : 0) |
                              (ml_slice_is_runtime(k) && (f & N_BLOCKING) ? V_BLOCKING : 0) |
                              (ml_slice_is_runtime(k) && c->linked_launch && (f & N_NPU_SYNC) ? V_NPU_SYNC : 0))};
            c->ev_of[i] = (uint32_t)g->evs.len;
            g->evs.v[g->evs.len++] = x;
        }
        if (is_fwd) fwd = tr, nfwd++;
        if (is_bwd) bwd = tr, nbwd++;
    }
    ev_first[ntr] = (uint32_t)g->evs.len;
    size_t n_host = g->evs.len;
    /* the GPU events launched in the step: a range of the launch-ordered list */
    size_t lo = 0, hi = c->n_gpu;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->ts.v[s->launcher.v[c->gpu[mid]]] < ws) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo; k < c->n_gpu && s->ts.v[s->launcher.v[c->gpu[k]]] <= we; k++) {
        uint32_t y = c->gpu[k];
        if (c->ev_of[s->launcher.v[y]] == ML_NONE32) continue; /* launched from outside the step's calls */
        ev x = {y, ML_NONE32, s->ts.v[y], end_of(s, y), (uint8_t)(s->kind.v[y] == ML_SL_CUDA_SYNC ? V_SYNC : V_GPU)};
        c->ev_of[y] = (uint32_t)g->evs.len;
        VEC_PUSH(&g->evs, x);
    }
    st->events = g->evs.len;

    /* host call stacks: each track, the backward one walked with the forward one */
    bool merge = nfwd == 1 && nbwd == 1 && fwd != bwd;
    for (uint32_t tr = 0; tr < ntr; tr++) {
        if (merge && tr == bwd) continue;
        if (c->walk_with && c->walk_with[tr] != ML_NONE32) continue; /* walked with its host thread */
        g->order.len = 0;
        if (merge && tr == fwd) { /* two tracks' calls, each in order: merged */
            uint32_t a = ev_first[fwd], ae = ev_first[fwd + 1], b = ev_first[bwd], be = ev_first[bwd + 1];
            VEC_RESERVE(&g->order, (size_t)(ae - a) + (be - b));
            uint32_t *o = g->order.v;
            while (a < ae || b < be) *o++ = b >= be || (a < ae && EV_BEFORE(g, a, b)) ? a++ : b++;
            g->order.len = (size_t)(o - g->order.v);
        } else {
            VEC_RESERVE(&g->order, (size_t)(ev_first[tr + 1] - ev_first[tr]));
            for (uint32_t e = ev_first[tr]; e < ev_first[tr + 1]; e++) g->order.v[g->order.len++] = e;
        }
        bool joined = false; /* an NPU's CANN lanes of this thread */
        for (uint32_t k = 0; c->walk_with && k < ntr; k++)
            if (c->walk_with[k] == tr || (merge && tr == fwd && c->walk_with[k] == bwd))
                for (uint32_t e = ev_first[k]; e < ev_first[k + 1]; e++) {
                    VEC_PUSH(&g->order, e);
                    joined = true;
                }
        if (joined) sort_host_events(g->order.v, g->order.len, g);
        if (g->order.len) stack_edges(g, g->order.v, g->order.len);
    }
    lock_edges(g);
    g->order.len = 0;
    for (size_t e = n_host; e < g->evs.len; e++) VEC_PUSH(&g->order, (uint32_t)e);
    gpu_edges(g, g->order.v, g->order.len);
    if (c->linked_launch) npu_sync_edges(g, n_host);
    st->edges = g->edges.len;
    longest_path(g, st, legs, tops, rank_top);
    for (size_t e = 0; e < g->evs.len; e++) c->ev_of[g->evs.v[e].slice] = ML_NONE32;
    free(ev_first);
}

void ml_critpath_compute(const ml_profile *p, ml_critpath *out)
{
    memset(out, 0, sizeof *out);
    const ml_trace *t = p->trace;
    if (!t || !t->slices.ts.len) return;
    const ml_slices *s = &t->slices;
    /* the windows: each ProfilerStep# in time order, else the whole trace */
    VEC(ml_cp_step) steps = {0};
    for (size_t i = 0; i < s->ts.len; i++) {
        if (s->kind.v[i] == ML_SL_CUDA_SYNC) out->has_sync = true;
        if (s->kind.v[i] != ML_SL_PROFILER_STEP) continue;
        ml_cp_step st = {0};
        st.name = s->name.v[i];
        st.begin = s->ts.v[i];
        st.end = end_of(s, (uint32_t)i);
        VEC_PUSH(&steps, st);
    }
    if (!steps.len) {
        ml_cp_step st = {0};
        st.begin = t->span_begin;
        st.end = t->span_end;
        VEC_PUSH(&steps, st);
    }
    for (size_t a = 1; a < steps.len; a++) /* insertion sort: steps come nearly in order */
        for (size_t b = a; b > 0 && steps.v[b].begin < steps.v[b - 1].begin; b--) {
            ml_cp_step x = steps.v[b];
            steps.v[b] = steps.v[b - 1];
            steps.v[b - 1] = x;
        }
    cp_ctx c;
    ctx_init(&c, p);
    leg_vec legs = {0};
    top_table rank_top, step_top;
    memset(&rank_top, 0, sizeof rank_top);
    memset(&step_top, 0, sizeof step_top);
    top_init(&rank_top, c.nstr);
    top_init(&step_top, c.nstr);
    graph g;
    memset(&g, 0, sizeof g);
    g.c = &c;
    for (size_t k = 0; k < steps.len; k++) one_step(&g, &steps.v[k], &legs, &step_top, &rank_top);
    graph_free(&g);
    out->has_sync |= c.npu_waits;
    out->n_top = top_take(&rank_top, out->top);
    top_free(&rank_top);
    top_free(&step_top);
    ctx_free(&c);
    out->steps = steps.v;
    out->n_steps = steps.len;
    out->legs = legs.v;
    out->n_legs = legs.len;
}

void ml_critpath_free(ml_critpath *c)
{
    free(c->steps);
    free(c->legs);
    memset(c, 0, sizeof *c);
}
