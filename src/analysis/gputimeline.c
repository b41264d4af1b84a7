/*
 * gputimeline.c — a rank's device work as HTA selects it, in exact ns or on
 * HTA's µs grid (see gputimeline.h).
 */
#include "gputimeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devkind.h"
#include "scratch.h"
#include "sortperm.h"
#include "u64map.h"

/* ---- kernel types by name (hta/common/types.py) ---------------------------- */

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* CommunicateKernelGroupingPattern: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) */
static bool is_comm(const char *n)
{
    return starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || strstr(n, "ncclKernel");
}

/* MemoryKernelGroupingPattern: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) */
static bool is_memory(const char *n)
{
    if (starts(n, "hip")) n += 3;
    else if (starts(n, "dma")) return true;
    return starts(n, "Memcpy") || starts(n, "Memset");
}

/* ComputeKernelGroupingPattern is inverse: a name matching any of these
 * (re.match: each anchored at the start, ".*X" = contains X) is not compute. */
static bool is_not_compute(const char *n)
{
    static const char *const prefixes[] = {"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet",
                                           "pe_exe", "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (starts(n, prefixes[i])) return true;
    if (strstr(n, "Memcpy") || strstr(n, "Memset") || strstr(n, "dma") || strstr(n, "Sync")) return true;
    return starts(n, "cuda") && strstr(n + 4, "LaunchKernel"); /* (cuda.*LaunchKernel) */
}

ml_kernel_type ml_kernel_type_of(const char *name)
{
    if (!name) name = "";
    if (is_comm(name)) return ML_KT_COMMUNICATION;
    if (is_memory(name)) return ML_KT_MEMORY;
    if (!is_not_compute(name)) return ML_KT_COMPUTATION;
    return ML_KT_OTHER;
}

const char *ml_kernel_type_name(ml_kernel_type t)
{
    static const char *const names[] = {"COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER"};
    return (unsigned)t < ML_KT__COUNT ? names[t] : "OTHER";
}

/* The launching calls HTA counts, of every accelerator (devkind.h): the
 * queue length's (get_runtime_launch_events_mask) and the launch statistics'
 * (cuda_kernel_launch_stats, which lists fewer: not cuLaunchKernel).
 * memlens also counts ROCm's and XPU's launches in the statistics, where HTA
 * gives none (README). */
static uint8_t launch_kind_of(const char *n)
{
    int k = ml_devkind_launch_call(n);
    return k == 2 ? ML_LAUNCH_STATS : k == 1 ? ML_LAUNCH_QUEUE : ML_LAUNCH_NONE;
}

/* ---- the µs grid ----------------------------------------------------------- */

/* ns (on the file's clock) as the float64 µs Python reads from the file's text:
 * the quotient rounded once when ns fits a double exactly. */
static double file_us(int64_t ns)
{
    if (ns > -(INT64_C(1) << 53) && ns < (INT64_C(1) << 53)) return (double)ns / 1000.0;
    return (double)((long double)ns / 1000.0L);
}

/* HTA's grid, in µs */
static void hta_grid_us(int64_t rel, int64_t dur_ns, int64_t *start, int64_t *end)
{
    const int64_t exact = INT64_C(1) << 51; /* µs below it, and their sum, are exact in float64 */
    if (rel % 1000 == 0 && dur_ns % 1000 == 0 && rel / 1000 < exact && rel / 1000 > -exact && dur_ns / 1000 < exact &&
        dur_ns / 1000 > -exact) {
        /* whole µs (a µs-resolution trace): nothing to round, and no float64 to go through */
        *start = rel / 1000;
        *end = *start + dur_ns / 1000;
        return;
    }
    double ts = file_us(rel), dur = file_us(dur_ns);
    *start = (int64_t)ceil(ts);
    *end = (int64_t)floor(ts + dur);
}

void ml_gpu_grid_of(const ml_profile *p, ml_time_rules rules, int64_t ts_ns, int64_t dur_ns, int64_t *start,
                    int64_t *end)
{
    int64_t rel = ts_ns - (p->trace ? p->trace->base_ns : 0); /* |times| < 2^62 (profile.h): no overflow */
    if (rules == ML_TIME_EXACT) {
        *start = rel;
        *end = ml_add_sat(rel, dur_ns > 0 ? dur_ns : 0);
        return;
    }
    hta_grid_us(rel, dur_ns, start, end);
    *start *= 1000; /* from ns / 1000: fits */
    *end *= 1000;
}

/* ---- building ---------------------------------------------------------------- */

/* Per name id, computed once: bits 0-2 the kernel type + 1, bits 3-4 the launch kind. */
typedef struct name_memo {
    const ml_profile *p;
    uint8_t *bits;
    size_t n;
} name_memo;

static uint8_t memo_get(name_memo *m, ml_str name)
{
    if (name >= m->n) return 0;
    if (!m->bits[name]) {
        const char *s = ml_s(m->p, name);
        m->bits[name] = (uint8_t)((ml_kernel_type_of(s) + 1) | launch_kind_of(s) << 3);
    }
    return m->bits[name];
}

/* "ProfilerStep#" and a digit: HTA's ^ProfilerStep#(\d+) */
static bool is_step_name(const char *s) { return starts(s, "ProfilerStep#") && s[13] >= '0' && s[13] <= '9'; }

bool ml_gpu_last_step_cut(const ml_profile *p, ml_time_rules rules, int64_t *start)
{
    const ml_slices *s = &p->trace->slices;
    ml_str names[2] = {0, 0};
    bool any = false;
    const uint8_t *kind = s->kind.v; /* (locals: the stores to *start could alias s->ts.len) */
    size_t n = s->ts.len;
    for (size_t i = 0; i < n; i++) {
        uint8_t k = kind[i];
        if (k != ML_SL_PROFILER_STEP && k != ML_SL_GPU_ANNOTATION) continue;
        if (!is_step_name(ml_s(p, s->name.v[i]))) continue;
        if (!names[0]) names[0] = s->name.v[i];
        else if (s->name.v[i] != names[0]) names[1] = s->name.v[i];
        int64_t b, e;
        ml_gpu_grid_of(p, rules, s->ts.v[i], ml_slice_dur(s, i), &b, &e);
        if (!any || b > *start) *start = b;
        any = true;
    }
    return names[1] != 0;
}

/* correlation -> host runtime/driver row, for syncs on a stream (the launcher
 * column links only kernels, memcpys and memsets). */
static void host_calls_by_corr(const ml_slices *s, ml_u64map *m)
{
    ml_u64map_init(m);
    for (size_t i = 0; i < s->ts.len; i++) {
        if ((s->kind.v[i] != ML_SL_RUNTIME && s->kind.v[i] != ML_SL_DRIVER) || ml_slice_corr(s, i) < 0) continue;
        bool fresh;
        uint32_t *v = ml_u64map_put(m, (uint64_t)ml_slice_corr(s, i), &fresh);
        if (fresh) *v = (uint32_t)i; /* the first, as the launcher column keeps */
    }
}

#define EV_LT(ctx, x, y) \
    ((x).start < (y).start || ((x).start == (y).start && ((x).stream < (y).stream || ((x).stream == (y).stream && (x).slice < (y).slice))))
ML_RUNSORT_INPLACE_DEFINE(sort_events, ml_gpu_event, void *, EV_LT)

void ml_gpu_timeline_build(const ml_profile *p, ml_time_rules rules, ml_gpu_timeline *out)
{
    memset(out, 0, sizeof *out);
    out->rules = rules;
    out->base_ns = p->trace ? p->trace->base_ns : 0;
    const ml_trace *t = p->trace;
    if (!t || !t->slices.ts.len) return;
    const ml_slices *s = &t->slices;
    int64_t cut = 0;
    out->last_step_cut = ml_gpu_last_step_cut(p, rules, &cut);
    name_memo memo = {p, NULL, ml_strpool_count(p->strings)};
    memo.bits = ml_calloc(memo.n ? memo.n : 1, 1);
    bool linked_launch = ml_devkind_words_of(ml_devkind_of_profile(p))->linked_calls_launch; /* (an NPU's) */
    ml_u64map by_corr = {0};
    bool have_map = false;
    VEC(ml_gpu_event) ev = {0};
    /* (GPU work needs a kernel_info row: their count, room for nearly all at once, not a copy per doubling) */
    ML_SCRATCH_RESERVE(&ev, t->kernel_info.len);
    for (uint32_t tr = 0; tr < t->tracks.len; tr++) {
        const ml_track *track = &t->tracks.v[tr];
        if (track->kind != ML_TRACK_STREAM) continue;
        bool npu_stream = track->device >= 0 && (size_t)track->device < p->devices.len &&
                          p->devices.v[track->device].kind == ML_DEV_NPU;
        size_t first, n;
        ml_track_slices(t, tr, &first, &n);
        for (size_t i = first; i < first + n; i++) {
            uint8_t k = s->kind.v[i];
            ml_gpu_event e = {.slice = (uint32_t)i, .launcher = ML_NONE32};
            if (k == ML_SL_KERNEL || k == ML_SL_MEMCPY || k == ML_SL_MEMSET) {
                uint32_t info = s->info.v[i];
                if (info == ML_NONE32 || info >= t->kernel_info.len) continue;
                e.stream = t->kernel_info.v[info].stream;
                e.work = 1;
                e.launcher = s->launcher.v[i];
            } else if (k == ML_SL_OTHER || k == ML_SL_CUDA_SYNC) { /* cuda_sync events have a kind of their own */
                e.stream = track->stream;
                if (out->last_step_cut && ml_slice_corr(s, i) >= 0) {
                    if (!have_map) host_calls_by_corr(s, &by_corr), have_map = true;
                    const uint32_t *row = ml_u64map_get(&by_corr, (uint64_t)ml_slice_corr(s, i));
                    if (row) e.launcher = *row;
                }
            } else continue;
            if (e.stream == -1) continue;
            ml_gpu_grid_of(p, rules, s->ts.v[i], ml_slice_dur(s, i), &e.start, &e.end);
            if (e.launcher != ML_NONE32) {
                ml_gpu_grid_of(p, rules, s->ts.v[e.launcher], ml_slice_dur(s, e.launcher), &e.launch, &e.launch_end);
                e.launch_kind = e.work && linked_launch ? ML_LAUNCH_STATS
                                                        : (uint8_t)(memo_get(&memo, s->name.v[e.launcher]) >> 3);
            }
            if (out->last_step_cut && (e.launcher == ML_NONE32 || e.launch >= cut)) continue;
            uint8_t b = memo_get(&memo, s->name.v[i]);
            e.type = (uint8_t)(b ? (b & 7) - 1 : ML_KT_OTHER);
            if (e.work && ml_kernel_info_is_comm(t, &t->kernel_info.v[s->info.v[i]])) e.type = ML_KT_COMMUNICATION; /* HCCL tasks */
            if (!e.work && npu_stream) e.type = ML_KT_OTHER; /* Ascend's EVENT_WAIT / EVENT_RECORD: syncs, not compute */
            VEC_PUSH(&ev, e);
        }
    }
    free(memo.bits);
    if (have_map) ml_u64map_free(&by_corr);
    sort_events(ev.v, ev.len, NULL);
    out->ev = ev.v;
    out->n = ev.len;
    out->cap = ev.cap;
}

void ml_gpu_timeline_free(ml_gpu_timeline *tl)
{
    ml_scratch_give(tl->ev, tl->cap * sizeof *tl->ev, tl->n * sizeof *tl->ev);
    memset(tl, 0, sizeof *tl);
}
