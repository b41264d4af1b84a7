/*
 * profile.h — the one shared model: everything memlens knows about one rank.
 *
 * Importers fill a profile; analyses read it (and may fill the derived
 * `allocs` table); outputs never see files.  Tables are columnar (a growable
 * array per field) so that millions of events cost a few dozen bytes each.
 *
 * Units: time is int64 nanoseconds, absolute Unix-epoch time where the input
 * allows (see `time_is_absolute`); sizes are int64 bytes.  Importers refuse
 * times and sizes of 2^62 or more in magnitude (ML_VALUE_LIMIT) as bad input,
 * so that a sum or difference of two never overflows; sums of many sizes use
 * ml_add_sat().
 *
 * Tables:
 *   devices   cpu, cuda:N, npu:N ... (index = the uint16 `device` columns)
 *   threads   (pid, tid) pairs, as interned text so "12" and 12 agree
 *   events    raw allocator events (alloc / free / segment / oom ...), sorted by
 *             (time, input order) once ml_profile_finish() has run
 *   ops       operator / annotation / python-function intervals
 *   frames, stacks  a deduplicated pool of call stacks (stack 0 = none)
 *   series    sampled curves: allocated / reserved / active / app-reserved,
 *             per device, optionally per component or stream.  The series with
 *             component 0 and stream 0 is the device's overall curve: an
 *             importer whose input has only per-component curves (Ascend) also
 *             provides that overall one (e.g. a copy of PTA+GE).  A device with
 *             no ALLOCATED series gets its curve replayed from events/allocs.
 *   allocs    allocation lifetimes: derived from events by ml_match (analysis)
 *             or filled directly by importers that only have lifetimes (Ascend)
 *   segments, blocks  allocator state at the end (snapshots)
 */
#ifndef ML_PROFILE_H
#define ML_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "keep.h"
#include "strpool.h"
#include "trace.h"
#include "units.h"
#include "vec.h"

/* ---- devices ---------------------------------------------------------- */

/* Numbered as PyTorch's DeviceType (Kineto's "Device Type"); ids are
 * PyTorch's device names ("cuda:1"), except PrivateUse1, which is "npu"
 * (torch_npu, the one backend known to use it). */
typedef enum {
    ML_DEV_CPU, ML_DEV_CUDA, ML_DEV_MKLDNN, ML_DEV_OPENGL, ML_DEV_OPENCL, ML_DEV_IDEEP, ML_DEV_HIP,
    ML_DEV_FPGA, ML_DEV_MAIA, ML_DEV_XLA, ML_DEV_VULKAN, ML_DEV_METAL, ML_DEV_XPU, ML_DEV_MPS,
    ML_DEV_META, ML_DEV_HPU, ML_DEV_VE, ML_DEV_LAZY, ML_DEV_IPU, ML_DEV_MTIA, ML_DEV_NPU,
    ML_DEV_OTHER            /* a type memlens has no name for: `type` holds its number ("type21:0") */
} ml_dev_kind;

typedef struct ml_device {
    char id[32];            /* "cpu", "cuda:1", "npu:0", "mtia:0" — what users see */
    ml_dev_kind kind;
    int type;               /* ML_DEV_OTHER: the producer's device type number; else = kind */
    int index;              /* -1 for cpu */
    ml_str name;            /* "Tesla V100-SXM2-32GB", 0 if unknown */
    int64_t total_memory;   /* bytes, -1 if unknown */
    /* Kineto deviceProperties (GPU metrics need them); -1 if unknown. */
    int cc_major, cc_minor; /* compute capability */
    int num_sms;
    int max_threads_per_sm; /* maxThreadsPerMultiProcessor */
    int max_threads_per_block, regs_per_block, regs_per_sm, warp_size;
    int64_t shared_mem_per_block, shared_mem_per_sm;
} ml_device;

/* ---- events ----------------------------------------------------------- */

typedef enum {
    ML_EV_ALLOC,            /* size bytes became allocated at addr */
    ML_EV_FREE,             /* size bytes freed at addr (snapshot: free_completed) */
    ML_EV_FREE_REQUESTED,   /* snapshot: free_requested (memory still held until completed) */
    ML_EV_SEGMENT_ALLOC,    /* allocator reserved a segment from the driver */
    ML_EV_SEGMENT_FREE,
    ML_EV_SEGMENT_MAP,      /* expandable segments */
    ML_EV_SEGMENT_UNMAP,
    ML_EV_OOM,              /* out of memory; `size` = requested, `aux` = device free bytes or -1 */
    ML_EV_SNAPSHOT,         /* snapshot taken */
    ML_EV_ANNOTATE,         /* user annotation; `aux` = interned text */
    ML_EV__COUNT
} ml_ev_kind;

typedef struct ml_event {   /* one row, for pushing; the table itself is columnar */
    int64_t ts;             /* ns; ML_TIME_NONE if the input has no time (event order then) */
    int64_t size;           /* bytes, >= 0; the kind says which way */
    uint64_t addr;          /* 0 if unknown (old Kineto traces) */
    int64_t aux;            /* kind-specific, see ml_ev_kind; 0 otherwise */
    uint32_t thread;        /* thread index or ML_NONE32 */
    uint32_t stack;         /* stack id, 0 = none */
    uint32_t stream;        /* interned stream text, 0 = unknown */
    uint16_t device;
    uint8_t kind;           /* ml_ev_kind */
} ml_event;

/* (ts, size, addr, thread and kind are pagerows tables, pagerows.h: grown and
 * freed through it alone (profile.c, profile_finish.c), so that the halves of a
 * split file join by moving pages) */
typedef struct ml_events {
    VEC(int64_t) ts;
    VEC(int64_t) size;
    VEC(uint64_t) addr;
    VEC(int64_t) aux;
    VEC(uint32_t) thread;
    VEC(uint32_t) stack;
    VEC(uint32_t) stream;
    VEC(uint16_t) device;
    VEC(uint8_t) kind;
} ml_events;

/* ---- operators -------------------------------------------------------- */

typedef enum {
    ML_OP_CPU,              /* cat cpu_op (aten::..., autograd::engine::...) */
    ML_OP_ANNOTATION,       /* user_annotation, ProfilerStep#N, Optimizer.step#... */
    ML_OP_PYTHON,           /* python_function (with_stack) */
    ML_OP_OTHER             /* anything else with a duration on a CPU thread */
} ml_op_kind;

typedef struct ml_ops {
    VEC(int64_t) ts;        /* ns */
    VEC(int64_t) dur;       /* ns, >= 0 */
    VEC(ml_str) name;
    VEC(uint32_t) thread;
    VEC(uint8_t) kind;      /* ml_op_kind */
} ml_ops;

/* ---- stacks ----------------------------------------------------------- */

typedef struct ml_frame {
    ml_str name;            /* function name or whole frame text */
    ml_str file;            /* 0 if unknown */
    int32_t line;           /* -1 if unknown */
} ml_frame;

/* ---- sampled curves --------------------------------------------------- */

typedef enum {
    ML_SERIES_ALLOCATED,    /* bytes in live tensors/blocks (Total Allocated) */
    ML_SERIES_RESERVED,     /* bytes the caching allocator holds (Total Reserved) */
    ML_SERIES_ACTIVE,       /* Ascend Total Active */
    ML_SERIES_APP_RESERVED, /* Ascend APP: whole-process reserved */
    ML_SERIES_OTHER
} ml_series_kind;

typedef struct ml_series {
    uint16_t device;
    uint8_t kind;           /* ml_series_kind */
    ml_str component;       /* Ascend component (PTA, GE, PTA+GE, APP, ...); 0 = overall */
    ml_str stream;          /* 0 = all streams */
    bool sampled;           /* a sample of a running total at every event (Kineto's totals):
                             * ml_profile_finish() drops points that repeat the value before
                             * them, which changes nothing in a step function */
    /* (ts, value and event are pagerows tables, pagerows.h, as the events' dense columns) */
    VEC(int64_t) ts;        /* ns, non-decreasing after ml_profile_finish() */
    VEC(int64_t) value;     /* bytes */
    VEC(uint32_t) event;    /* optional: the event each point came from (kept in step by
                             * ml_profile_finish), so that the peak can be tied to one event */
    /* ml_series_push_sampled()'s bookkeeping: the time of the last point
     * given (kept or dropped), whether the points came out of time order,
     * and whether one was dropped */
    int64_t last_ts;
    bool unsorted, dropped;
} ml_series;

/* ---- allocations (lifetimes) ----------------------------------------- */

enum {
    ML_ALLOC_BEFORE_TRACE = 1,  /* allocated before the trace began (t_alloc = ML_TIME_NONE) */
    ML_ALLOC_NEVER_FREED = 2,   /* still live at the end (t_free = ML_TIME_END) */
};

typedef struct ml_allocs {
    VEC(int64_t) t_alloc;       /* ns, ML_TIME_NONE if before trace */
    VEC(int64_t) t_free;        /* ns, ML_TIME_END if never freed */
    VEC(int64_t) t_free_req;    /* ns, free requested (snapshots); = t_free otherwise */
    VEC(uint32_t) ev_alloc;     /* index into events, ML_NONE32 if none */
    VEC(uint32_t) ev_free;      /* index into events, ML_NONE32 if none */
    VEC(int64_t) size;
    VEC(uint64_t) addr;
    VEC(uint16_t) device;
    VEC(uint32_t) thread;
    VEC(uint32_t) stack;
    VEC(uint32_t) stream;       /* interned stream text */
    VEC(ml_str) op;             /* allocating operator, as the input names it (innermost) */
    VEC(ml_str) op_top;         /* outermost cpu_op, what users recognise */
    VEC(uint8_t) category;      /* ml_category (categories.h), 0 = unknown */
    VEC(uint8_t) category_reason; /* ml_cat_reason (categories.h): why it got its category,
                                 * 0 = not categorised yet; importers that know the category
                                 * (memory timelines) set both and the categoriser keeps them */
    VEC(uint8_t) flags;         /* ML_ALLOC_* */
} ml_allocs;

/* ---- allocator state (snapshots) -------------------------------------- */

typedef struct ml_segment {
    uint16_t device;
    uint64_t address;
    int64_t total_size, allocated_size, active_size, requested_size;
    ml_str stream;
    ml_str segment_type;        /* "large" / "small" */
    ml_str pool_id;             /* e.g. "(0, 0)" */
    bool is_expandable;
    uint32_t stack;
    uint32_t first_block, n_blocks; /* range in the blocks table */
} ml_segment;

typedef enum { ML_BLOCK_ACTIVE_ALLOCATED, ML_BLOCK_ACTIVE_PENDING_FREE, ML_BLOCK_INACTIVE } ml_block_state;

typedef struct ml_block {
    uint64_t address;
    int64_t size, requested_size;
    uint8_t state;              /* ml_block_state */
    uint32_t stack;
    uint32_t segment;
} ml_block;

/* ---- what the input can show ------------------------------------------ */

/* Set by the importer that read the input (never inferred from the format's
 * name, which is a label): the outputs, `memlens snapshot` and the web UI
 * (the report's "caps", web/DATA.md) read these.  All false and devkind -1
 * for a Kineto trace, whose devices and runtime calls tell the rest. */
typedef struct ml_caps {
    int8_t devkind;             /* the accelerator the producer is made for (ml_devkind, devkind.h:
                                 * ML_DK_NPU for an Ascend export); -1: the devices and runtime calls tell */
    bool insight_names;         /* memory curves and columns in MindStudio Insight's words ("PTA
                                 * Allocated"): the producer's own viewer (Ascend exports) */
    bool static_graph;          /* memory by a static graph's node index, no times (Ascend's
                                 * static_op_mem.csv): report_static.c's view */
    bool allocator_state;       /* the caching allocator's segments and blocks and its event history
                                 * (a CUDA allocator snapshot): `memlens snapshot`, the segment views */
    bool memory_record;         /* a record of memory alone that never has operators, kernels or
                                 * steps (allocator snapshots, memory timelines) */
    bool memory_first;          /* the producer records memory first (snapshots, memory timelines,
                                 * Ascend's memory files): the page opens on its Memory view */
} ml_caps;

/* ---- the profile ------------------------------------------------------ */

typedef struct ml_profile {
    char *path;                 /* input it came from (file or directory) */
    const char *format;         /* "kineto", "torch-snapshot", "ascend-text", ... (static string): a
                                 * label for outputs; what the input can show is in caps */
    ml_caps caps;
    int rank;                   /* -1 if unknown */
    int world_size;             /* -1 if unknown */
    ml_str host;                /* the host's name where the input says it (Ascend HOST_INFO), 0 if unknown */
    ml_str allocator_settings;  /* a snapshot's allocator_settings dict, as Python writes it (repr), 0 if none */
    bool time_is_absolute;      /* ts are Unix-epoch ns (else relative or event order) */
    bool time_is_event_order;   /* the input has no times: ts = event index */
    bool has_addresses;         /* events carry addresses, so allocs can be matched */
    bool allocs_matched;        /* allocs were matched from the events in time order as they
                                 * were read (evpipe.h): ml_profile_finish() keeps them */
    size_t allocs_reused;       /* ... and this many closed a live address (ml_match's note) */
    int64_t base_time_ns;       /* added to relative times by ml_profile_finish() */

    ml_strpool *strings;
    VEC(ml_device) devices;
    VEC(ml_str) thread_pid, thread_tid;   /* thread index -> (pid, tid) text */
    ml_events events;
    ml_ops ops;
    VEC(ml_frame) frames;
    VEC(uint32_t) stack_frames;  /* frame ids of all stacks, back to back, innermost first */
    VEC(uint32_t) stack_start;   /* stack id -> first index in stack_frames; [0] = empty stack */
    VEC(ml_series) series;
    ml_allocs allocs;
    VEC(ml_segment) segments;
    VEC(ml_block) blocks;
    VEC(ml_str) notes;          /* things the user should know ("no Addr: cannot match frees") */
    ml_trace *trace;            /* slices, flows, counters (trace.h); NULL unless the command reads the time side */
    bool lean;                  /* lean storage (the snapshot importer, while it matches as it
                                 * reads): events keep ts, size, aux, device and kind (addr,
                                 * thread, stack and stream stay empty: len 0); allocs leave
                                 * t_free_req, thread and stream empty, and addr holds only the
                                 * allocations never freed (0 elsewhere).  Pushes skip what is
                                 * not kept.  A gigabyte snapshot: 19 bytes an event, not 47 */

    struct ml_profile_index *index; /* private: keeps threads, frames, stacks unique */
} ml_profile;

/* Whether every event and allocation of p is device d's, the only one:
 * loops over a device's rows then skip the device columns, whose pages of
 * zeros are never written (profile.c: sparse columns) and would cost a
 * page fault each to read. */
static inline bool ml_only_device(const ml_profile *p, int d) { return p->devices.len == 1 && d == 0; }

ml_profile *ml_profile_new(const char *path, const char *format);
void ml_profile_free(ml_profile *p);

/* Device index for an id like "cuda:1", creating it if new. */
uint16_t ml_device_get(ml_profile *p, ml_dev_kind kind, int index);
/* The same for a device type number: a named kind, or ML_DEV_OTHER "typeN:index". */
uint16_t ml_device_get_type(ml_profile *p, int type, int index);
/* The order outputs list devices in: accelerators by kind (the numbering
 * above) and index, then cpu.  Fills order[0 .. devices.len). */
void ml_device_order(const ml_profile *p, uint16_t *order);
/* Finds a device by its id text, or -1. */
int ml_device_find(const ml_profile *p, const char *id);

/* Thread index for (pid, tid) given as text, creating it if new. */
uint32_t ml_thread_get(ml_profile *p, const char *pid, size_t pid_len, const char *tid, size_t tid_len);

void ml_event_push(ml_profile *p, const ml_event *ev);
void ml_op_push(ml_profile *p, int64_t ts, int64_t dur, ml_str name, uint32_t thread, ml_op_kind kind);
/* Room for n events and n ops in all, reserved at once (an importer's
 * estimate from its input's size, as ml_slices_reserve() for the time
 * side): the columns are then not grown by doubling, each doubling of a
 * sparse column a copy into fresh pages; pages never used cost nothing. */
void ml_profile_reserve(ml_profile *p, size_t events, size_t ops);

/* Frames and stacks are deduplicated: equal inputs give equal ids. */
uint32_t ml_frame_get(ml_profile *p, ml_str name, ml_str file, int32_t line);
uint32_t ml_stack_get(ml_profile *p, const uint32_t *frames, size_t n); /* innermost first; n = 0 -> 0 */
/* The same for a caller that hashed the frame ids as it gathered them (a
 * snapshot's millions of frame lists), the way ml_stack_get() does:
 *     h = n;  h = ml_stack_hash_step(h, id[i] | (uint64_t)id[i + 1] << 32) for
 *     each pair, then h = ml_stack_hash_step(h, id[n - 1]) if n is odd;
 *     hash = ml_stack_hash_end(h). */
uint32_t ml_stack_get_hashed(ml_profile *p, const uint32_t *frames, size_t n, uint64_t hash);
static inline uint64_t ml_stack_hash_step(uint64_t h, uint64_t ids) { return (h + ids) * 0x9e3779b97f4a7c15ull; }
static inline uint64_t ml_stack_hash_end(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}
size_t ml_stack_depth(const ml_profile *p, uint32_t stack);
const uint32_t *ml_stack_frames(const ml_profile *p, uint32_t stack);

/* Series for (device, kind, component, stream), created empty if new. */
ml_series *ml_series_get(ml_profile *p, uint16_t device, ml_series_kind kind, ml_str component, ml_str stream);
void ml_series_push(ml_series *s, int64_t ts, int64_t value);
/* The same, for a point recorded with event number `event` (its index in p->events when pushed). */
void ml_series_push_event(ml_series *s, int64_t ts, int64_t value, uint32_t event);
/* The same for a sampled series (s->sampled): with drop_repeats (an import
 * that keeps lean, ml_keep_lean), a point that repeats the value of the one before it is
 * not even stored, as long as the points come in time order (the 20 bytes
 * of Kineto's Total Reserved at each memory event, which it hardly ever
 * changes); ml_profile_finish() would drop it anyway.  Points out of order
 * after one was dropped: ml_series_dropped_unsorted() says so, and the
 * importer answers ML_IMPORT_AGAIN (the file is read again, keeping all). */
void ml_series_push_sampled(bool drop_repeats, ml_series *s, int64_t ts, int64_t value, uint32_t event);
bool ml_series_dropped_unsorted(const ml_profile *p);

/* Appends one allocation row (importers with lifetimes only; Kineto/snapshot use ml_match). */
typedef struct ml_alloc_row {
    int64_t t_alloc, t_free, t_free_req, size;
    uint64_t addr;
    uint32_t ev_alloc, ev_free, thread, stack, stream;
    uint16_t device;
    ml_str op, op_top;
    uint8_t category, category_reason, flags;
} ml_alloc_row;
size_t ml_alloc_push(ml_profile *p, const ml_alloc_row *row);
/* Empties p->allocs. */
void ml_allocs_clear(ml_profile *p);
size_t ml_allocs_count(const ml_profile *p);

void ml_note(ml_profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends an unfinished profile `src` (e.g. the second half of a file, read
 * on another thread) to the unfinished `dst`: its strings, devices, threads,
 * frames and stacks are mapped onto dst's, and its events, ops, series
 * points and allocs come after dst's, as if one importer had read both.
 * Moves rather than copies: src's events, ops, series points and allocs are
 * freed as they are taken (src stays valid for ml_profile_free). */
void ml_profile_append(ml_profile *dst, ml_profile *src);

/* Called once by the importer at the end: adds base_time_ns to relative
 * times, sorts events, ops and series by time (stable: equal times keep input
 * order) and, when events carry addresses, derives `allocs` by ml_match()
 * (unless allocs_matched: an importer matched them as it read).
 * Importers may still add allocs, frames and stacks afterwards. */
void ml_profile_finish(ml_profile *p);
/* The same for an import that keeps less (keep.h; NULL: everything): the
 * event columns its reader no longer needs once matched go (a lean import). */
void ml_profile_finish_keep(ml_profile *p, const ml_keep *keep);

/* The earliest time in a finished profile: its events, ops, trace slices,
 * series points and allocations (INT64_MAX if none).  A rank's origin in
 * the report, and the start of a job's ranks. */
int64_t ml_profile_first_time(const ml_profile *p);

static inline const char *ml_s(const ml_profile *p, ml_str id) { return ml_strget(p->strings, id); }

#endif
