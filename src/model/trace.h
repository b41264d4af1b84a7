/*
 * trace.h — the time side of a profile: the tracks, slices, flows and
 * counters of a Chrome/Kineto trace (and of an Ascend trace_view.json).
 *
 * The memory analyses never need it, so it is built only when the command
 * asks for it (ml_profiles.needs.time before ml_load): `summary`
 * keeps no slices and pays nothing for them.  When built, it hangs off the
 * profile as p->trace (NULL otherwise) and belongs to it.
 *
 * Tables are columnar like the rest of the profile.  Times are int64 ns on
 * the profile's clock (absolute where the input allows: ml_trace_finish()
 * adds the same base as ml_profile_finish()); a slice's duration and ids
 * are kept in 32 bits each (ml_id32) and read through ml_slice_dur() ...  Strings are the profile's
 * interned ids (ml_str, 0 = none).
 *
 *   tracks    one per CPU thread (pid, tid) and per GPU/NPU stream, with
 *             the names and sort indices the `M` events give them
 *   slices    everything with a duration: X events and B/E pairs (paired per
 *             track by Chrome's rule), classified by `cat` (ml_slice_kind);
 *             sorted by (track, ts, longer first) by ml_trace_finish(), which
 *             also fills parent/depth (containment on the track) and links
 *             GPU work to the runtime call that launched it
 *   op_info / kernel_info   the args the analyses need, for the slices that
 *             have them (slices.info indexes the table of the slice's kind);
 *             they and sync_info are pagerows tables (pagerows.h), grown and
 *             freed by trace.c alone, so that a split file's second half
 *             joins them by moving pages
 *   flows     s/t/f pairs bound to the slices they start and end in
 *   counters  ph "C" samples (Ascend "NPU MEM", Kineto GPU metrics ...)
 *   instants  ph "i" events other than [memory] (markers on a track)
 *
 * Who fills it: importers/kineto.c (Kineto and older PyTorch traces; GPU work
 * goes on stream tracks, device = cuda:<pid>) and importers/ascend_dir.c
 * (trace_view.json: lanes typed by their M process name, see ascend.h).
 * Slices are only pushed before ml_trace_finish(); after it the store is
 * read-only and its indices (parent, launcher, flows) stay valid.
 */
#ifndef ML_TRACE_H
#define ML_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "strpool.h"
#include "units.h"
#include "vec.h"


/* ---- tracks ------------------------------------------------------------- */

typedef enum {
    ML_TRACK_THREAD,        /* a host thread (pid, tid) */
    ML_TRACK_STREAM,        /* a device stream: GPU work (kernels, memcpy, memset) */
    ML_TRACK_OTHER          /* anything else with slices (e.g. an Ascend lane without a type) */
} ml_track_kind;

typedef struct ml_track {
    ml_str pid, tid;        /* as the trace writes them (text, so "7" and 7 agree) */
    ml_str process_name;    /* M process_name, 0 if none */
    ml_str name;            /* M thread_name ("thread 5555 (python)", "stream 7"), 0 if none */
    int64_t process_sort, thread_sort; /* M sort indices; INT64_MAX if none */
    int32_t device;         /* stream tracks: the profile device index (cuda:N); -1 otherwise */
    int64_t stream;         /* stream tracks: the stream number from args "stream", -1 if unknown */
    uint8_t kind;           /* ml_track_kind */
} ml_track;

/* ---- slices ------------------------------------------------------------- */

typedef enum {
    ML_SL_CPU_OP,           /* cat cpu_op; old traces: Operator */
    ML_SL_USER_ANNOTATION,  /* user_annotation (ProfilerStep#N, record_function ranges) */
    ML_SL_PYTHON,           /* python_function (with_stack), incl. "nn.Module: X_0" */
    ML_SL_RUNTIME,          /* cuda_runtime; old traces: Runtime (cudaLaunchKernel ...) */
    ML_SL_DRIVER,           /* cuda_driver (cuLaunchKernel ...) */
    ML_SL_KERNEL,           /* kernel; old traces: Kernel */
    ML_SL_MEMCPY,           /* gpu_memcpy; old traces: Memcpy */
    ML_SL_MEMSET,           /* gpu_memset; old traces: Memset */
    ML_SL_GPU_ANNOTATION,   /* gpu_user_annotation (a user range drawn on a stream) */
    ML_SL_PROFILER_STEP,    /* ProfilerStep#N, whatever its cat (a user_annotation in 1.9+) */
    ML_SL_OTHER,            /* any other cat (python_function-less trace_view tasks ...) */
    /* (the two below have args of their own: the importer tests kind >= ML_SL_CUDA_SYNC) */
    ML_SL_CUDA_SYNC,        /* cuda_sync: a synchronisation seen from the GPU ("Stream Sync", "Context Sync",
                             * "Event Sync", "Stream Wait Event"), linked to its runtime call like GPU work */
    ML_SL_PROFILER_RANGE,   /* cuda_profiler_range: one kernel measured in CUPTI profiler mode (hardware
                             * counters in its args; its times are the profiler's, not the kernel's) */
    ML_SL__COUNT
} ml_slice_kind;

/* The kind's name as outputs write it ("cpu_op", "kernel" ...; "other" for
 * anything out of range). */
const char *ml_slice_kind_name(unsigned kind);

/* Ids in 32 bits: a slice's corr and ext_id (and its dur), an op's seq,
 * fwd_thread and python_module.  Most rows have none (-1) and real ones are
 * small counters (most slices last well under 2.1 s), so a row keeps 4
 * bytes, not 8: a value in [-1, 2^31) as it is, any other int64 (a counter
 * past 2^31, a hostile trace's) as -2 - k, an escape to row k of a side
 * table of wide values (ml_wide_ids) that the store keeps beside its
 * columns.  An escape is an index into its store's one table, so rows move
 * (the sort's scatter) with no remap.  Read through ml_id32_get() and the
 * accessors built on it (ml_slice_dur, ml_slice_corr ...); written by
 * ml_id32_put().  (The table cannot fill: 2^31 - 1 escapes need as many
 * rows, 16 GB of it.) */
typedef int32_t ml_id32;
typedef VEC(int64_t) ml_wide_ids;

static inline int64_t ml_id32_get(const ml_wide_ids *w, ml_id32 v)
{
    return v >= -1 ? v : w->v[-2 - (int64_t)v];
}
/* The escape of v (appended to w): ml_id32_put's rare case, out of line. */
ml_id32 ml_id32_escape(ml_wide_ids *w, int64_t v);
static inline ml_id32 ml_id32_put(ml_wide_ids *w, int64_t v)
{
    /* (v in [-1, 2^31): one unsigned compare) */
    return (uint64_t)v + 1 <= (uint64_t)INT32_MAX + 1 ? (ml_id32)v : ml_id32_escape(w, v);
}

typedef struct ml_slices {
    VEC(int64_t) ts;        /* ns */
    VEC(ml_id32) dur32;     /* ns, >= 0, as an ml_id32 (2.1 s and longer: an escape): read it with ml_slice_dur() */
    VEC(ml_str) name;
    VEC(uint32_t) track;
    VEC(uint8_t) kind;      /* ml_slice_kind */
    /* (the two ids as ml_id32: read them with ml_slice_corr() and ml_slice_ext_id()) */
    VEC(ml_id32) corr;      /* args "correlation" (runtime/driver <-> GPU work), -1 if none */
    VEC(ml_id32) ext_id;    /* args "External id" (op <-> its launches in old traces), -1 if none */
    ml_wide_ids wide;       /* the dur, corr and ext_id values that do not fit (ml_id32) */
    VEC(uint32_t) info;     /* CPU_OP/USER_ANNOTATION/PYTHON/PROFILER_STEP: index into op_info;
                             * KERNEL/MEMCPY/MEMSET: index into kernel_info; CUDA_SYNC: into sync_info;
                             * PROFILER_RANGE: into range_info; ML_NONE32 if none */
    /* Filled by ml_trace_finish(): */
    VEC(uint32_t) parent;   /* innermost slice on the same track containing this one, ML_NONE32 */
    VEC(uint16_t) depth;    /* 0 = top of its track */
    VEC(uint32_t) launcher; /* GPU work and cuda_sync: the runtime/driver slice with the same correlation,
                             * else the one a flow to it starts in; ML_NONE32 */
} ml_slices;

/* Slice i's duration, ns (>= 0). */
static inline int64_t ml_slice_dur(const ml_slices *s, size_t i) { return ml_id32_get(&s->wide, s->dur32.v[i]); }
/* Slice i's correlation id and External id, exact (-1 if none). */
static inline int64_t ml_slice_corr(const ml_slices *s, size_t i) { return ml_id32_get(&s->wide, s->corr.v[i]); }
static inline int64_t ml_slice_ext_id(const ml_slices *s, size_t i) { return ml_id32_get(&s->wide, s->ext_id.v[i]); }

/* Args of a collective (record_param_comms ops, and NCCL kernels since
 * PyTorch 2.x): what the distributed view sizes them by.  0 / -1 if absent. */
typedef struct ml_comm_args {
    ml_str collective;      /* args "Collective name" ("allreduce") */
    ml_str dtype;           /* args "dtype" ("Float", "BFloat16") */
    int64_t in_nelems, out_nelems; /* args "In msg nelems" / "Out msg nelems" */
    int32_t group_size;     /* args "Group size" */
} ml_comm_args;

/* Args of host-side slices that the operator / module views read: a row
 * per op with any (28 bytes: the three ids as ml_id32, their wide values in
 * ml_trace.op_wide; read them with ml_op_seq() ...). */
typedef struct ml_op_info {
    ml_str input_dims;      /* args "Input Dims" / "Input dims" as compact JSON text ("[[32, 3], []]"), 0 if none */
    ml_str input_types;     /* args "Input type", compact JSON text, 0 if none */
    ml_str call_stack;      /* args "Call stack" (old traces) text, 0 if none */
    uint32_t comm;          /* record_param_comms: 1 + its row in comm_args, 0 if none (ml_op_comm()) */
    ml_id32 seq;            /* args "Sequence number", -1 */
    ml_id32 fwd_thread;     /* args "Fwd thread id", -1 */
    ml_id32 python_module;  /* args "Python module id" (nn.Module events), -1 */
    /* Not kept: "Python id" and "Python parent id", which no view reads (a
     * python_function slice's parent is its enclosing slice); a row per
     * python_function slice for them cost 6 MB on a 400 MB trace. */
} ml_op_info;

/* An op's args as importers give them (ml_op_info_push narrows the ids). */
typedef struct ml_op_info_row {
    ml_str input_dims, input_types, call_stack;
    uint32_t comm;
    int64_t seq, fwd_thread, python_module;
} ml_op_info_row;

/* The ops of a collective that the distributed view reads by name
 * (distributed.c): a backend's own span ("nccl:all_reduce", "gloo:broadcast")
 * and c10d's op ("c10d::allreduce_").  Their input shapes and types size the
 * collective where no args say its bytes, and so an import that leaves other
 * ops' shapes unread (keep.h) still reads theirs.  name: NUL-terminated. */
static inline bool ml_op_is_backend_call(const char *name)
{
    return (name[0] == 'n' && !strncmp(name, "nccl:", 5)) || (name[0] == 'g' && !strncmp(name, "gloo:", 5));
}
static inline bool ml_op_is_c10d(const char *name) { return name[0] == 'c' && !strncmp(name, "c10d::", 6); }
static inline bool ml_op_is_collective(const char *name)
{
    return ml_op_is_backend_call(name) || ml_op_is_c10d(name);
}

/* Launch args of GPU work. Unknown numbers are -1 (float ones -1.0f).
 * Wide fields first (no padding: 80 bytes a row, a row per kernel); the
 * collective args, which few kernels have, in a table of their own. */
typedef struct ml_kernel_info {
    int64_t stream;         /* args "stream" */
    int64_t shared_memory;  /* "shared memory" (bytes) */
    int64_t bytes;          /* memcpy/memset "bytes", -1 */
    int32_t device;         /* args "device" */
    int32_t grid[3], block[3];
    int32_t registers;      /* "registers per thread" */
    float blocks_per_sm;    /* "blocks per SM" */
    float occupancy;        /* "est. achieved occupancy %" (0-100) */
    float membw;            /* memcpy/memset "memory bandwidth (GB/s)", 0 if none (HTA's default) */
    uint32_t comm;          /* NCCL kernels; Ascend HCCL tasks (collective = their op, hcom_allReduce_...):
                             * 1 + their row in comm_args, 0 if none (ml_kernel_comm()) */
    ml_str core;            /* Ascend: the Accelerator Core (AI_CORE, AI_VECTOR_CORE, AI_CPU, HCCL ...), 0 if none */
} ml_kernel_info;

/* Args of a cuda_sync slice (Kineto writes them since PyTorch 2.1).  -1 if absent. */
typedef struct ml_sync_info {
    int32_t device;         /* args "device" */
    int64_t stream;         /* args "stream": the stream synchronised (-1 / 2^32-1 for a whole context) */
    int64_t wait_stream;    /* "Stream Wait Event" / "Event Sync": args "wait_on_stream", the stream the
                             * awaited CUDA event was recorded on */
    int64_t wait_corr;      /* args "wait_on_cuda_event_record_corr_id": the cudaEventRecord call's correlation */
} ml_sync_info;

/* The hardware counters of a cuda_profiler_range slice: its numeric args,
 * rows [first, first + n) of ml_trace.range_key / range_value. */
typedef struct ml_range_info {
    uint32_t first, n;
} ml_range_info;

/* ---- flows, counters, instants ---------------------------------------- */

typedef struct ml_flow {
    int64_t id;             /* the flow's id (Kineto: the correlation id) */
    ml_str cat;             /* "ac2g", "fwdbwd", "async" ... */
    uint32_t from, to;      /* slices it starts and ends in; ML_NONE32 where none was found */
} ml_flow;

typedef struct ml_counters {
    VEC(int64_t) ts;        /* ns */
    VEC(double) value;
    VEC(ml_str) name;       /* the event's name ("NPU MEM", "GPU Utilization") */
    VEC(ml_str) key;        /* the args key of this value ("APP", "Allocated") */
    VEC(uint32_t) track;    /* the (pid, tid) track it was written on */
} ml_counters;

typedef struct ml_instants {
    VEC(int64_t) ts;
    VEC(ml_str) name;
    VEC(uint32_t) track;
} ml_instants;

/* ---- the store ---------------------------------------------------------- */

typedef struct ml_trace {
    VEC(ml_track) tracks;
    ml_slices slices;
    VEC(ml_op_info) op_info;
    ml_wide_ids op_wide;    /* the op_info ids that do not fit (ml_id32) */
    VEC(ml_comm_args) comm_args; /* the few ops and GPU work with collective args (most have none: kept apart) */
    VEC(ml_kernel_info) kernel_info;
    VEC(ml_sync_info) sync_info;
    VEC(ml_range_info) range_info;
    VEC(ml_str) range_key;  /* counter names ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") */
    VEC(double) range_value;
    VEC(ml_flow) flows;
    ml_counters counters;
    ml_instants instants;
    /* distributedInfo beyond rank/world_size (profile.h has those) */
    ml_str backend;         /* "nccl", 0 if none */
    int32_t pg_count;       /* process groups ("pg_count"; 1: every collective is the world's), 0 if unknown */
    int64_t span_begin, span_end; /* first ts and last ts+dur of all events, ns; 0/0 if none */
    int64_t base_ns;        /* what ml_trace_finish() added to the file's times (baseTimeNanoseconds) */
    size_t partial_overlaps; /* slices that start inside their parent but end after it (see ml_trace_finish) */
    size_t unpaired_ends;   /* importers: "E" events with no "B" open on their track (dropped) */
    size_t kernel_args_dropped; /* kernel args outside their physical range, left out (ml_kernel_info_push) */
    size_t bad_dur_dropped; /* importers: complete events whose dur is negative or not a number (dropped) */
    size_t shared_corr_ids; /* correlation ids that more than one launch carries (ml_trace_finish) ... */
    size_t shared_corr_calls; /* ... and those launches */
    struct ml_trace_index *index; /* private */
} ml_trace;

ml_trace *ml_trace_new(void);
void ml_trace_free(ml_trace *t);

/* Track for (pid, tid) text, created if new. */
uint32_t ml_track_get(ml_trace *t, ml_strpool *strings, const char *pid, size_t pid_len, const char *tid,
                      size_t tid_len);
/* The same for interned text; ml_track_find() creates nothing (ML_NONE32 if absent). */
uint32_t ml_track_get_ids(ml_trace *t, ml_str pid, ml_str tid);
uint32_t ml_track_find(const ml_trace *t, ml_str pid, ml_str tid);
/* Marks a track as a device stream (device: a profile device index, or -1;
 * stream: the stream number, or -1 when unknown). */
void ml_track_set_stream(ml_trace *t, uint32_t track, int32_t device, int64_t stream);

typedef struct ml_slice_row { /* one slice, for pushing */
    int64_t ts, dur, corr, ext_id;
    ml_str name;
    uint32_t track, info;
    uint8_t kind;
} ml_slice_row;
/* Room for at least one more row in every slice column: ml_slice_push's
 * rare case, out of line, so that the push itself inlines into the
 * importers' loops (a call was a third of its cost: the row's fields in
 * registers went to memory and back). */
void ml_slices_grow(ml_trace *t);
/* Appends a slice (a negative dur as 0); returns its row. */
static inline size_t ml_slice_push(ml_trace *t, const ml_slice_row *r)
{
    ml_slices *s = &t->slices;
    size_t i = s->ts.len;
    if (i == s->ts.cap) ml_slices_grow(t);
    s->ts.v[i] = r->ts;
    s->dur32.v[i] = ml_id32_put(&s->wide, r->dur < 0 ? 0 : r->dur);
    s->name.v[i] = r->name;
    s->track.v[i] = r->track;
    s->kind.v[i] = r->kind;
    s->corr.v[i] = ml_id32_put(&s->wide, r->corr);
    s->ext_id.v[i] = ml_id32_put(&s->wide, r->ext_id);
    s->info.v[i] = r->info;
    s->ts.len = s->dur32.len = s->name.len = s->track.len = s->kind.len = s->corr.len = s->ext_id.len =
        s->info.len = i + 1;
    return i;
}
/* Room for n slices in all, reserved at once (an importer's estimate from
 * its input's size), so that the columns are not grown by doubling: each
 * doubling copies a column into fresh pages. */
void ml_slices_reserve(ml_trace *t, size_t n);
uint32_t ml_op_info_push(ml_trace *t, const ml_op_info_row *row);
/* An op's "Sequence number", "Fwd thread id" and "Python module id", exact (-1 if none). */
static inline int64_t ml_op_seq(const ml_trace *t, const ml_op_info *o) { return ml_id32_get(&t->op_wide, o->seq); }
static inline int64_t ml_op_fwd_thread(const ml_trace *t, const ml_op_info *o)
{
    return ml_id32_get(&t->op_wide, o->fwd_thread);
}
static inline int64_t ml_op_python_module(const ml_trace *t, const ml_op_info *o)
{
    return ml_id32_get(&t->op_wide, o->python_module);
}
/* A row of comm_args, for ml_op_info.comm and ml_kernel_info.comm (the value returned). */
uint32_t ml_comm_args_push(ml_trace *t, const ml_comm_args *comm);
/* Whether comm says anything (is not all absent: {0, 0, -1, -1, -1}); inline: asked of every op and kernel. */
static inline bool ml_comm_args_any(const ml_comm_args *c)
{
    return c->collective || c->dtype || c->in_nelems != -1 || c->out_nelems != -1 || c->group_size != -1;
}
/* An op's collective args: all absent ({0, 0, -1, -1, -1}) when it has none. */
const ml_comm_args *ml_op_comm(const ml_trace *t, const ml_op_info *info);
/* GPU work's collective args: all absent ({0, 0, -1, -1, -1}) when it has none. */
const ml_comm_args *ml_kernel_comm(const ml_trace *t, const ml_kernel_info *ki);
/* Whether GPU/NPU work is communication by what its importer knows (a
 * collective's args: a collective set), whatever its name says; ki may be NULL. */
bool ml_kernel_info_is_comm(const ml_trace *t, const ml_kernel_info *ki);
/* Kernel args outside their physical range are left out (as absent: -1) and
 * counted in kernel_args_dropped: an occupancy outside 0..100 %, blocks per
 * SM negative, not finite or past the largest grid CUDA allows (2^31 - 1 by
 * 65535 by 65535 blocks), registers per thread outside 0..65536, negative
 * shared memory, grid or block sizes below 1. */
uint32_t ml_kernel_info_push(ml_trace *t, const ml_kernel_info *info); /* (info: not one of t's rows) */
uint32_t ml_sync_info_push(ml_trace *t, const ml_sync_info *info);
/* A profiler range's counters (n names and values): its range_info row. */
uint32_t ml_range_info_push(ml_trace *t, const ml_str *keys, const double *values, size_t n);

/* A flow endpoint as the trace gives it; bound to slices by ml_trace_finish():
 * "s" to the slice enclosing ts on its track, "f"/"t" to the slice that
 * starts at ts there (or, with binding point "e", the one enclosing it). */
void ml_flow_point(ml_trace *t, int64_t id, ml_str cat, char ph, bool bind_enclosing, uint32_t track, int64_t ts);
void ml_counter_push(ml_trace *t, int64_t ts, double value, ml_str name, ml_str key, uint32_t track);
void ml_instant_push(ml_trace *t, int64_t ts, ml_str name, uint32_t track);

/* An "M" event: names and sort indices, applied by ml_trace_finish() to the
 * tracks with that pid (process_*) or that (pid, tid) (thread_*), so that an
 * M event naming a thread with no slices creates no track. */
typedef enum { ML_META_PROCESS_NAME, ML_META_THREAD_NAME, ML_META_PROCESS_SORT, ML_META_THREAD_SORT } ml_trace_meta_kind;
void ml_trace_meta(ml_trace *t, ml_trace_meta_kind what, ml_str pid, ml_str tid, ml_str name, int64_t sort);
/* The process name an M event gave pid (before or after ml_trace_finish), 0 if none. */
ml_str ml_trace_process_name(const ml_trace *t, ml_str pid);
/* Widens the span to [begin, end] (times before the base, like the pushes):
 * importers give the span of all events, memory ones included.
 * ml_trace_finish() widens it further by everything stored. */
void ml_trace_span(ml_trace *t, int64_t begin, int64_t end);

/* Appends src (the second half of a split file) to dst, as
 * ml_profile_append() merges the two profiles: smap maps every string id of
 * src's pool to dst's, dmap each of src's n_src_devices device indexes to
 * dst's.  src's slices and flow points are not copied but taken over (their
 * ids mapped in place): ml_trace_finish() gathers them with dst's into
 * their sorted places, as if pushed into dst at the append.  Until then
 * dst's slice columns hold only its own rows (pushing more is fine). */
void ml_trace_append(ml_trace *dst, ml_trace *src, const ml_str *smap, const uint32_t *dmap, size_t n_src_devices);

/* Called from ml_profile_finish(): adds `base_ns` to relative times, sorts
 * slices by (track, ts, dur descending), fills parent/depth/launcher and
 * binds flows; counters and instants are sorted by time.  Runs once.
 *
 * Nesting is by containment on the track: a slice's parent is the innermost
 * slice still open at its start (one that ends exactly at its start is not).
 * A slice that starts inside another but ends after it (partial overlap, in
 * malformed or clock-skewed traces) is nested under it anyway, as Perfetto
 * nests by start time: lanes never overlap at one depth; the child keeps its
 * true end (counted in partial_overlaps; analyses that sum child time clamp).
 * Launchers: a GPU work or cuda_sync slice's corr matched to a runtime/driver slice's (a
 * driver call inside the runtime call of the same id is that same launch:
 * the outer one is kept).  Where separate launches share an id (counted in
 * shared_corr_ids and shared_corr_calls), the work goes to the one that
 * began last before it started, else to the first one after it.  Work that
 * no id links, at the end of a flow (ac2g, Ascend's HostToDevice) whose start
 * binds to a runtime/driver call, is that call's: the first such call of the
 * flow's (cat, id), so that a flow ending before it starts (a device clock
 * ahead of the host's: two halves, from nowhere and to nowhere) links too.
 * Flows: endpoints grouped by (cat, id) in time order; "s", "t" and an "f"
 * with binding point "e" bind to the innermost slice enclosing ts on their
 * track, another "f" to the first slice starting at or after ts there. */
void ml_trace_finish(ml_trace *t, int64_t base_ns);

/* Rows [first, end) of the slices. */
typedef struct ml_row_range {
    uint32_t first, end;
} ml_row_range;

/* After ml_trace_finish(): ranges of rows (*n of them, ascending, apart)
 * that hold every slice of device work (kernel, memcpy, memset, cuda_sync):
 * the rows of the tracks with any, usually the few stream tracks, so that a
 * loop over device work reads those instead of every slice.  Other slices
 * lie in them too: a loop still tests each row's kind.  None before the
 * finish (nor are the parent and launcher columns there). */
const ml_row_range *ml_trace_device_rows(const ml_trace *t, size_t *n);
/* A loop over those rows in order, i a size_t row:
 *     ML_FOR_DEVICE_ROWS (t, i) { if (!ml_slice_is_gpu(s->kind.v[i])) continue; ... }
 * (two loops nested: `continue` goes to the next row, `break` only out of a range) */
typedef struct ml_row_ranges {
    const ml_row_range *at, *end;
} ml_row_ranges;
/* n ranges from rr as a loop's cursor (no arithmetic on a NULL rr). */
static inline ml_row_ranges ml_row_ranges_of(const ml_row_range *rr, size_t n)
{
    return n ? (ml_row_ranges){rr, rr + n} : (ml_row_ranges){NULL, NULL};
}
static inline ml_row_ranges ml_trace_device_ranges(const ml_trace *t)
{
    size_t n;
    const ml_row_range *r = ml_trace_device_rows(t, &n);
    return ml_row_ranges_of(r, n);
}
#define ML_FOR_RANGES_(cursor, i)                                                  \
    for (ml_row_ranges i##_rr_ = (cursor); i##_rr_.at < i##_rr_.end; i##_rr_.at++) \
        for (size_t i = i##_rr_.at->first; i < i##_rr_.at->end; i++)
#define ML_FOR_DEVICE_ROWS(t, i) ML_FOR_RANGES_(ml_trace_device_ranges(t), i)
/* The same over any n ranges rr (as ml_trace_device_rows gives them). */
#define ML_FOR_ROWS_IN(rr, n, i) ML_FOR_RANGES_(ml_row_ranges_of((rr), (n)), i)

/* Slices of a track after ml_trace_finish(): [*first, *first + *n). */
void ml_track_slices(const ml_trace *t, uint32_t track, size_t *first, size_t *n);

/* How many slices are of that kind. */
size_t ml_trace_count_kind(const ml_trace *t, ml_slice_kind kind);

#endif
