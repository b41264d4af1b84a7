/*
 * ascend.h — Huawei Ascend NPU profiler output (torch_npu), text and SQLite.
 *
 * A torch_npu profile is a directory `*_ascend_pt/` holding
 * `profiler_info_{rank}.json` and `ASCEND_PROFILER_OUTPUT/` with either CSV
 * files and trace_view.json ("ascend-text") or `ascend_pytorch_profiler_{rank}.db`
 * ("ascend-db").  Both exports map onto the model the same way:
 *
 *   memory_record.csv / MEMORY_RECORD   per device npu:N and component
 *       (PTA, GE, PTA+GE, WORKSPACE): ML_SERIES_ALLOCATED / RESERVED / ACTIVE
 *       with stream 0 = every record of the component; where a record names a
 *       stream, the point is also pushed to the (component, stream) series.
 *       The totals are the component's, not the stream's: a per-stream series
 *       is the component curve sampled at that stream's events (what MindStudio
 *       Insight draws for Group By Stream).
 *   APP rows / NPU_MEM type "app"       ML_SERIES_APP_RESERVED, component 0
 *       (the db's hbm + ddr; the text export writes the same sum).
 *   component 0 (ALLOCATED/RESERVED/ACTIVE, stream 0) is the device's overall
 *       curve that generic analyses read: a copy of PTA+GE, or of PTA when the
 *       run has no combined record (ml_ascend_overall).
 *   trace_view.json "NPU MEM" counters / NPU_MEM type "device"
 *       ML_SERIES_OTHER, component "DEVICE": memory in use on the whole device.
 *   npu_module_mem.csv / NPU_MODULE_MEM ML_SERIES_OTHER, component = module
 *       name (HCCL, RUNTIME, ...): driver-level reservations, kept apart from
 *       the allocator's ML_SERIES_RESERVED so that the two are never summed.
 *       The "-1" marker (only frees seen) is skipped and counted in a note
 *       (ml_ascend_only_frees); any other value, negative too, is kept.
 *   trace_view.json cpu_op / python_function events, PYTORCH_API (op, trace)
 *       p->ops (ProfilerStep#N, Optimizer.* as annotations); each operator-memory
 *       row is linked to the call of its name holding its allocation time: its
 *       thread (ml_attribute then gives op_top, the outermost cpu op) and its
 *       "Call stack" / PYTORCH_CALLCHAINS stack; an operator without one takes
 *       the innermost enclosing operator's on its thread, and one under a
 *       backward node ("Fwd thread id" > 0) its forward operator's, by
 *       sequence number (PyTorch's _set_backward_stacktraces) (ascend_ops.c).
 *   HOST_INFO, NPU_INFO (db)            p->host, the NPU devices' names.
 *   operator_memory.csv / OP_MEMORY     allocs: op = op_top = name, t_free =
 *       release time or ML_TIME_END + ML_ALLOC_NEVER_FREED when blank,
 *       t_free_req = active release time (else t_free), stream = stream ptr.
 *
 * Where the two exports differ, memlens follows the text export:
 *   - GE operators: operator_memory.csv writes them "cann::Conv2D1" (torch_npu
 *     prefixes the CANN name), OP_MEMORY "Conv2D1"; a db row without a stream
 *     (how torch_npu stores GE operators) gets the "cann::" prefix.
 *   - GE's Total Active: blank in the text, 0 in every db row (torch_npu has
 *     no active figure for GE): an all-zero GE active in the db is left out.
 *   - Sizes: torch_npu writes MB, CANN's msprof KB ("Total Reserved(KB)");
 *     both are read, exactly.
 *
 * Static graphs (static_op_mem.csv) have node indices, not times, so they make
 * their own profile, format "ascend-static", with time_is_event_order: an
 * operator holds its bytes from node start through node end inclusive
 * (t_alloc = start, t_free = end + 1; 4294967295 = to the end of the graph ->
 * ML_TIME_END, ML_ALLOC_NEVER_FREED); op_top = "model M graph G"; the TOTAL
 * row of a graph is a one-point ML_SERIES_RESERVED series whose component is
 * that "model M graph G" label.
 *
 * Units: "MB" here is MiB and "KB" KiB; µs with 3 decimals become ns exactly.
 */
#ifndef ML_ASCEND_H
#define ML_ASCEND_H

#include "err.h"
#include "profile.h"
#include "source.h"

/* What an Ascend text file is: from its name when it is one Ascend writes
 * (memory_record.csv, msprof's memory_record_<stamp>.csv, ...), else from its
 * first line (the CSV header). */
typedef enum {
    ML_ASCEND_UNKNOWN,
    ML_ASCEND_MEMORY_RECORD,
    ML_ASCEND_OPERATOR_MEMORY,
    ML_ASCEND_MODULE_MEM,
    ML_ASCEND_STATIC_OP_MEM
} ml_ascend_file;

/* Operator allocations (operator_memory.csv, OP_MEMORY) whose size cannot be
 * real (negative, or 2^62 bytes or more) are skipped, counted, and noted once
 * per file naming the first: where (a line or row) and the value. */
typedef struct ml_ascend_bad_sizes {
    int64_t n;
    char first[96];
} ml_ascend_bad_sizes;
bool ml_ascend_size_ok(int64_t bytes);
/* The other times and sizes of both readers are checked alike, a bad one an
 * error naming the line or row: a time (epoch ns) or size must be >= 0 and
 * below 2^62, a module level (may be negative) below 2^62 in magnitude.
 * Why v cannot be real, or NULL when it can. */
typedef enum { ML_ASCEND_TIME, ML_ASCEND_SIZE, ML_ASCEND_LEVEL } ml_ascend_value;
const char *ml_ascend_bad_value(int64_t v, ml_ascend_value kind);
void ml_ascend_note_bad_sizes(ml_profile *p, const char *what, const ml_ascend_bad_sizes *b);

ml_ascend_file ml_ascend_file_kind(const unsigned char *head, size_t n);
ml_ascend_file ml_ascend_file_kind_by_name(const char *path);

/* Reads one Ascend CSV file into p (no ml_profile_finish: a directory adds
 * several files to one profile).  A file with a header and no rows adds a
 * note naming it. */
int ml_ascend_csv_add(ml_source *src, ml_profile *p, ml_err *e);
/* Reads the "NPU MEM" counters of trace_view.json into p.  Adds APP counters
 * only when p has no APP series yet (memory_record.csv has the same values). */
int ml_ascend_trace_view_add(ml_source *src, ml_profile *p, ml_err *e);
/* Reads the memory tables of an ascend_pytorch_profiler_{rank}.db into p,
 * setting p->rank from RANK_DEVICE_MAP. */
int ml_ascend_db_add(const char *path, ml_profile *p, ml_err *e);

/* Shared by the text and db readers so that both give the same model: one
 * memory_record row (NULL = blank cell).  Component "APP" goes to
 * ML_SERIES_APP_RESERVED; others to ALLOCATED/RESERVED/ACTIVE. */
void ml_ascend_record(ml_profile *p, uint16_t dev, ml_str comp, ml_str stream, int64_t t,
                      const int64_t *allocated, const int64_t *reserved, const int64_t *active);
bool ml_ascend_has_app(const ml_profile *p);
/* Whether a module sample (bytes, read in units of unit bytes) is the "-1"
 * marker for "only frees seen": -1 in the file's unit, or -1 KB, which is what
 * torch_npu's KB -> MB conversion writes (-0.0009765625 MB). */
bool ml_ascend_only_frees(int64_t bytes, int64_t unit);
/* The note for n such samples (nothing for 0). */
void ml_ascend_note_only_frees(ml_profile *p, int64_t n);
/* What an Ascend export can show (profile.h ml_caps): an NPU, in MindStudio
 * Insight's words, memory first.  Every Ascend importer calls it on the
 * profiles it makes; a static graph's adds static_graph. */
void ml_ascend_caps(ml_profile *p);
/* Copies the headline component (PTA+GE, else PTA) of each device into the
 * component-0 series; call once after all files, before ml_profile_finish. */
void ml_ascend_overall(ml_profile *p);

/* Whether dir looks like a torch_npu profile (has ASCEND_PROFILER_OUTPUT/). */
int ml_ascend_is_profile_dir(const char *dir);
/* Loads a `*_ascend_pt` directory: one profile with its memory data, plus one
 * "ascend-static" profile if it has static_op_mem.csv.  *n_out is 0..2.
 * The rank comes from profiler_info_{rank}.json (else the db, else -1).
 * Returns 0, -1 on bad input, or ML_ASCEND_UNREADABLE when ASCEND_PROFILER_OUTPUT
 * or one of its memory files exists but cannot be read (permissions, I/O):
 * e then is "path: cannot read (Permission denied)", a skipped-entry of walk.c. */
#define ML_ASCEND_UNREADABLE (-2)
int ml_ascend_load_dir(const char *dir, ml_profile **out, size_t *n_out, ml_err *e);
/* The same for a command that reads the time side too (time_side): the
 * events of trace_view.json also go into p->trace
 * (ml_ascend_trace_view_events), and a directory with a trace_view.json but
 * no memory files still gives a profile. */
int ml_ascend_load_dir_want(const char *dir, bool time_side, ml_profile **out, size_t *n_out, ml_err *e);

/* trace_view.json (Chrome format, as torch_npu writes it) into p->trace:
 * host threads keep Kineto's cats (cpu_op, python_function; enqueue/dequeue
 * are ML_SL_OTHER); by the M process name of their pid, "Ascend Hardware"
 * lanes become stream tracks of the rank's NPU (tid = stream) whose tasks are
 * ML_SL_KERNEL (ML_SL_MEMCPY when named MEMCPY*), "CANN" API calls become
 * ML_SL_RUNTIME (args connection_id is their correlation with the tasks they
 * launch, so launchers link; the older vintage numbers the two sides apart,
 * and its HostToDevice flows link them, ml_trace_finish), and the other NPU lanes (HCCL, Overlap
 * Analysis ...) ML_TRACK_OTHER tracks of ML_SL_OTHER slices.  Counters
 * (NPU MEM, HBM, AI Core Freq ...) and flows go in as they are.  Call before
 * ml_profile_finish. */
int ml_ascend_trace_view_events(ml_source *src, ml_profile *p, ml_err *e);

/* The CPU side (ascend_ops.c): the operators of trace_view.json / the db's
 * PYTORCH_API into p->ops, each operator-memory row linked to its operator
 * (thread and call stack); from the db also the host (HOST_INFO) and the NPU
 * models (NPU_INFO).  Optional: what cannot be read is left out. */
int ml_ascend_trace_view_ops(ml_source *src, ml_profile *p, ml_err *e);
int ml_ascend_db_ops(const char *path, ml_profile *p, ml_err *e);

/* ---- the time side of every export (ascend_time.c, ascend_kernels.c,
 * ascend_db_time.c) ---- */

/* The lane of HCCL tasks that name no stream (kernel_details.csv's "N/A"). */
#define ML_ASCEND_HCCL_STREAM 65535
/* A task's Task Type / Accelerator Core: an HCCL task on a compute stream
 * (Notify Wait, Write Value, SDMA ...), or a compute unit (AI_CORE,
 * AI_VECTOR_CORE, AI_CPU, MIX_AIC/MIX_AIV, DSA_SQE). */
bool ml_ascend_task_type_is_comm(const char *type);
bool ml_ascend_task_type_is_core(const char *type);
/* Stream synchronisation (EVENT_WAIT, EVENT_RECORD, their _SQE forms ...):
 * drawn on the stream, but not device work (ML_SL_OTHER). */
bool ml_ascend_task_type_is_sync(const char *type);
/* Sets ki->core from a task's type, and for communication (an HCCL type, or
 * op given: the collective it belongs to) its collective (a row of t->comm_args). */
void ml_ascend_task_kind(ml_profile *p, ml_trace *t, ml_kernel_info *ki, const char *type, const char *op);
/* trace_view.json's "Task Type" of the NPU tasks already in p->trace (by
 * ml_ascend_trace_view_events from the same bytes): their core and HCCL work. */
int ml_ascend_trace_view_tasks(ml_source *src, ml_profile *p, ml_err *e);
/* kernel_details.csv / step_trace_time.csv into p (ascend_kernels.c). */
int ml_ascend_kernel_details_add(ml_source *src, ml_profile *p, ml_err *e);
int ml_ascend_step_trace_add(ml_source *src, ml_profile *p, ml_err *e);
/* kernel_details.csv beside a trace_view.json: the Accelerator Core (and
 * HCCL work) of the tasks already in p->trace of the same start and name. */
int ml_ascend_kernel_details_cores(ml_source *src, ml_profile *p, ml_err *e);
/* The db, read-only and immutable (0, or -1 and *db NULL). */
struct sqlite3;
int ml_ascend_db_open(const char *path, struct sqlite3 **db);
/* The db's TASK, PYTORCH_API, CANN_API, COMPUTE_TASK_INFO,
 * COMMUNICATION_TASK_INFO, COMMUNICATION_OP and STEP_TIME into p->trace
 * (nothing without one): ascend_db_time.c. */
int ml_ascend_db_time(const char *path, ml_profile *p, ml_err *e);
/* Whether the db has a memory table (a time-only export has none: its
 * memory reader is then skipped when the time side is wanted). */
bool ml_ascend_db_has_memory(const char *path);

#endif
