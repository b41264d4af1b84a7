/*
 * gputimeline.h — one rank's device work (GPU, MTIA, XPU ...: every
 * accelerator Kineto writes) as HolisticTraceAnalysis (HTA) selects it, for
 * the analyses that follow HTA's definitions (gputime.h): which events
 * count, on which stream, of which kernel type, launched when.  Built once
 * per rank in a pass over the sorted slices; the analyses then read this
 * array and nothing else.
 *
 * Which events: the slices HTA finds on a GPU stream (args "stream" other
 * than -1): kernels, memcpys and memsets, and the other slices drawn on a
 * stream track (Kineto's cuda_sync "Stream Sync", "Stream Wait Event").  Not
 * gpu_user_annotation ranges (they carry no stream), nor "Event Sync" /
 * "Context Sync" (stream -1).  HTA also counts a host event that carries a
 * "stream" arg (torch.compile writes "stream": 0 on the CPU operator that
 * launches a Triton kernel) as GPU time; memlens does not (README).
 *
 * Which part of the trace: as HTA's Trace.load_traces() by default, when the
 * trace has two or more distinct ProfilerStep#N names, only the work
 * launched (a runtime/driver call with the same correlation id) before the
 * last ProfilerStep# begins; work with no launching call is left out then.
 * With fewer steps, everything.
 *
 * Times (ml_time_rules): by default exact, in integer ns as the trace's text
 * writes them (the importer keeps every digit of ts and dur).  Under HTA's
 * rules (ML_TIME_HTA, for the tests that hold memlens to HTA's own answers)
 * each event is rounded inward to HTA's whole-µs grid (start up, end down:
 * round_down_time_stamps(), so that ns-resolution events no longer
 * overlap), in float64 on the times as the file writes them (before any
 * baseTimeNanoseconds); an event under a µs can then end before it starts,
 * and short kernels lose their time (README: exact against HTA's rules).
 * Either way every time here is ns on the file's clock (relative to
 * base_ns; ml_gpu_grid_ns() gives the profile's ns); under HTA's rules a
 * whole number of µs.
 *
 * Kernel types are HTA's, by name (hta/common/types.py): COMMUNICATION
 * (nccl*, hip*, hccl*, *ncclKernel*), MEMORY (Memcpy*, Memset*, hipMemcpy*,
 * hipMemset*, dma*), COMPUTATION (anything that is neither, nor a sync or a
 * launch), OTHER.
 */
#ifndef ML_GPUTIMELINE_H
#define ML_GPUTIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

/* How times are taken: exact ns (the default), or rounded to whole µs as HTA does. */
typedef enum { ML_TIME_EXACT, ML_TIME_HTA } ml_time_rules;

typedef enum { ML_KT_COMPUTATION, ML_KT_COMMUNICATION, ML_KT_MEMORY, ML_KT_OTHER, ML_KT__COUNT } ml_kernel_type;

/* HTA's type of a kernel name. */
ml_kernel_type ml_kernel_type_of(const char *name);
/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" */
const char *ml_kernel_type_name(ml_kernel_type t);

/* How the launching call is counted (by its name; on an NPU, every call linked
 * to a task: devkind.h linked_calls_launch). */
enum {
    ML_LAUNCH_NONE = 0,     /* no launching call, or one of another name */
    ML_LAUNCH_QUEUE = 1,    /* enqueues on a stream: counts for the queue length (cuLaunchKernel ...) */
    ML_LAUNCH_STATS = 3     /* also a launch of HTA's launch statistics (cudaLaunchKernel, cudaMemcpyAsync ...) */
};

typedef struct ml_gpu_event {
    int64_t start, end;     /* ns after base_ns; under HTA's rules end may be start - 1000 */
    int64_t launch, launch_end; /* the launching call's start and end, the same way (valid when launcher != ML_NONE32) */
    int64_t stream;         /* args "stream" (the track's for syncs) */
    uint32_t slice;         /* p->trace->slices row */
    uint32_t launcher;      /* the launching call's row, ML_NONE32 */
    uint8_t type;           /* ml_kernel_type */
    uint8_t work;           /* 1: a kernel, memcpy or memset (HTA's idle-time events); 0: a sync on the stream */
    uint8_t launch_kind;    /* ML_LAUNCH_* of the launcher's name */
} ml_gpu_event;

typedef struct ml_gpu_timeline {
    ml_gpu_event *ev;       /* by start, then stream, then slice row */
    size_t n, cap;          /* (cap: ev's room, for ml_gpu_timeline_free's scratch pool) */
    bool last_step_cut;     /* the trace had 2+ ProfilerStep#: work launched from the last one on left out */
    ml_time_rules rules;
    int64_t base_ns;        /* timeline time -> profile ns: base_ns + t */
} ml_gpu_timeline;

/* Builds p's timeline (empty without a time side or without GPU work). */
void ml_gpu_timeline_build(const ml_profile *p, ml_time_rules rules, ml_gpu_timeline *out);
void ml_gpu_timeline_free(ml_gpu_timeline *tl);

/* A timeline time as the profile's ns (for the views: what the Trace view draws at). */
static inline int64_t ml_gpu_grid_ns(const ml_gpu_timeline *tl, int64_t t) { return tl->base_ns + t; }

/* The slice's start and end as timeline times under those rules. */
void ml_gpu_grid_of(const ml_profile *p, ml_time_rules rules, int64_t ts_ns, int64_t dur_ns, int64_t *start,
                    int64_t *end);

/* Whether HTA's loader leaves the last step out of p (two or more distinct
 * ProfilerStep#N names), and then where that step begins (a timeline time):
 * host events from *start on are dropped, and the GPU work they launched. */
bool ml_gpu_last_step_cut(const ml_profile *p, ml_time_rules rules, int64_t *start);

/* HTA's merge_kernel_intervals(), fed intervals in start order: an interval
 * joins the open group when it starts at or before the group's end (touching
 * ones merge), else the group closes.  ml_gpu_merge_add() returns true when
 * it closed a group, given in *gs, *ge; ml_gpu_merge_end() the last one.
 * Under HTA's rules a group of one event under a µs may end before it
 * starts (its length, -1 µs, counts as HTA counts it); exact times never. */
typedef struct ml_gpu_merge {
    int64_t start, end;
    bool open;
} ml_gpu_merge;

static inline bool ml_gpu_merge_add(ml_gpu_merge *m, int64_t s, int64_t e, int64_t *gs, int64_t *ge)
{
    if (m->open && s <= m->end) {
        if (e > m->end) m->end = e;
        return false;
    }
    bool closed = m->open;
    *gs = m->start, *ge = m->end;
    m->start = s, m->end = e, m->open = true;
    return closed;
}

static inline bool ml_gpu_merge_end(ml_gpu_merge *m, int64_t *gs, int64_t *ge)
{
    *gs = m->start, *ge = m->end;
    bool had = m->open;
    m->open = false;
    return had;
}

#endif
