/* trace.c — the time-side event store; see trace.h.
 *
 * Pushing only appends to columns.  ml_trace_finish() does the work once:
 * a counting sort of the slices by track (stable, O(n)) gives each row its
 * place, and notes which tracks were pushed out of (ts, -dur) order; only
 * those are sorted (two sorted runs merge, anything else takes a natural
 * merge sort), and each column is then scattered once to the places; then
 * one stack walk per track for parent/depth, a hash of correlation ids for
 * launchers, and a search per flow endpoint.  A split file's second half
 * (ml_trace_append) waits beside the store as its tail until then: the
 * scatter reads each column from both, into the buffers the columns moved
 * before it left (a fresh buffer is a page fault per 4 KiB). */
#include "trace.h"
#include "pagerows.h"
#include "sortperm.h"
#include "par.h"
#include "phase.h"
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

typedef struct flow_point { /* 24 bytes: one per flow endpoint, a quarter as many as slices */
    int64_t ts;
    ml_id32 id;             /* (its wide values in ml_trace_index.point_wide) */
    ml_str cat;
    uint32_t track;
    char ph;
    bool enclosing;
} flow_point;
_Static_assert(sizeof(flow_point) == 24, "flow_point packs into 24 bytes");

typedef struct meta_row { /* an M event, applied to the tracks at the end */
    ml_str pid, tid, name;
    int64_t sort;
    uint8_t what;           /* ml_trace_meta_kind */
} meta_row;

typedef struct ml_trace_index {
    /* (pid, tid) string ids -> track + 1 (open addressing) */
    uint64_t *keys;
    uint32_t *vals;
    size_t mask;
    VEC(flow_point) points;
    ml_wide_ids point_wide; /* the flow points' ids that do not fit (ml_id32), the tail's too */
    VEC(meta_row) meta;
    uint32_t *track_first;  /* after finish: tracks.len + 1 offsets into the slices */
    VEC(ml_row_range) device_rows; /* after finish: see ml_trace_device_rows() */
    /* The second half of a split file (ml_trace_append), its ids already
     * this store's, kept apart until ml_trace_finish() gathers both into
     * their sorted places: its slices go after this store's first tail_at
     * rows, its flow points after the first tail_points_at. */
    bool has_tail;
    ml_slices tail;
    size_t tail_at;
    VEC(flow_point) tail_points;
    size_t tail_points_at;
    bool has_span;
    int64_t span_begin, span_end; /* given by the importer (before the base) */
    bool finished;
} ml_trace_index;

ml_trace *ml_trace_new(void)
{
    ml_trace *t = ml_calloc(1, sizeof *t);
    t->index = ml_calloc(1, sizeof *t->index);
    return t;
}

static void free_slices(ml_slices *s)
{
    VEC_FREE(&s->ts); VEC_FREE(&s->dur32); VEC_FREE(&s->name); VEC_FREE(&s->track); VEC_FREE(&s->kind);
    VEC_FREE(&s->corr); VEC_FREE(&s->ext_id); VEC_FREE(&s->info); VEC_FREE(&s->parent); VEC_FREE(&s->depth);
    VEC_FREE(&s->launcher); VEC_FREE(&s->wide);
}

void ml_trace_free(ml_trace *t)
{
    if (!t) return;
    VEC_FREE(&t->tracks);
    free_slices(&t->slices);
    ML_PAGEROWS_FREE(&t->op_info);
    VEC_FREE(&t->op_wide);
    VEC_FREE(&t->comm_args);
    ML_PAGEROWS_FREE(&t->kernel_info);
    ML_PAGEROWS_FREE(&t->sync_info);
    VEC_FREE(&t->range_info);
    VEC_FREE(&t->range_key);
    VEC_FREE(&t->range_value);
    VEC_FREE(&t->flows);
    VEC_FREE(&t->counters.ts); VEC_FREE(&t->counters.value); VEC_FREE(&t->counters.name);
    VEC_FREE(&t->counters.key); VEC_FREE(&t->counters.track);
    VEC_FREE(&t->instants.ts); VEC_FREE(&t->instants.name); VEC_FREE(&t->instants.track);
    if (t->index) {
        free(t->index->keys);
        free(t->index->vals);
        VEC_FREE(&t->index->points);
        VEC_FREE(&t->index->point_wide);
        free_slices(&t->index->tail);
        VEC_FREE(&t->index->tail_points);
        VEC_FREE(&t->index->meta);
        free(t->index->track_first);
        VEC_FREE(&t->index->device_rows);
        free(t->index);
    }
    free(t);
}

/* ---- tracks ---- */

static void track_map_put(ml_trace_index *ix, uint64_t key, uint32_t val)
{
    size_t j = ml_mix64(key) & ix->mask;
    while (ix->vals[j]) j = (j + 1) & ix->mask;
    ix->keys[j] = key;
    ix->vals[j] = val + 1;
}

uint32_t ml_track_find(const ml_trace *t, ml_str pid, ml_str tid)
{
    const ml_trace_index *ix = t->index;
    if (!ix->vals) return ML_NONE32;
    uint64_t key = (uint64_t)pid << 32 | tid;
    for (size_t j = ml_mix64(key) & ix->mask; ix->vals[j]; j = (j + 1) & ix->mask)
        if (ix->keys[j] == key) return ix->vals[j] - 1;
    return ML_NONE32;
}

uint32_t ml_track_get_ids(ml_trace *t, ml_str pid, ml_str tid)
{
    uint32_t found = ml_track_find(t, pid, tid);
    if (found != ML_NONE32) return found;
    ml_trace_index *ix = t->index;
    if (!ix->vals || (t->tracks.len + 1) * 2 > ix->mask) {
        size_t n = ix->vals ? (ix->mask + 1) * 2 : 64;
        uint64_t *ok = ix->keys;
        uint32_t *ov = ix->vals;
        size_t omask = ix->mask;
        ix->keys = ml_calloc(n, sizeof *ix->keys);
        ix->vals = ml_calloc(n, sizeof *ix->vals);
        ix->mask = n - 1;
        if (ov)
            for (size_t i = 0; i <= omask; i++)
                if (ov[i]) track_map_put(ix, ok[i], ov[i] - 1);
        free(ok);
        free(ov);
    }
    ml_track tr;
    memset(&tr, 0, sizeof tr);
    tr.pid = pid;
    tr.tid = tid;
    tr.process_sort = tr.thread_sort = INT64_MAX;
    tr.device = -1;
    tr.stream = -1;
    tr.kind = ML_TRACK_THREAD;
    VEC_PUSH(&t->tracks, tr);
    uint32_t id = (uint32_t)t->tracks.len - 1;
    track_map_put(ix, (uint64_t)pid << 32 | tid, id);
    return id;
}

uint32_t ml_track_get(ml_trace *t, ml_strpool *strings, const char *pid, size_t pid_len, const char *tid,
                      size_t tid_len)
{
    return ml_track_get_ids(t, ml_intern(strings, pid, pid_len), ml_intern(strings, tid, tid_len));
}

/* ---- pushing ---- */

ml_id32 ml_id32_escape(ml_wide_ids *w, int64_t v)
{
    VEC_PUSH(w, v);
    return (ml_id32)(-2 - (int64_t)(w->len - 1));
}

void ml_slices_reserve(ml_trace *t, size_t n)
{
    ml_slices *s = &t->slices;
    VEC_RESERVE(&s->ts, n); VEC_RESERVE(&s->dur32, n); VEC_RESERVE(&s->name, n); VEC_RESERVE(&s->track, n);
    VEC_RESERVE(&s->kind, n); VEC_RESERVE(&s->corr, n); VEC_RESERVE(&s->ext_id, n); VEC_RESERVE(&s->info, n);
    /* and the rows slices bring with them, as a realistic trace has them (an eighth of its
     * slices are GPU work, well over half are ops with args when they are kept, a quarter as
     * many flow points as slices): reserved, not copied as they grow (pages not used cost
     * nothing) */
    ML_PAGEROWS_RESERVE(&t->kernel_info, n / 8);
    ML_PAGEROWS_RESERVE(&t->op_info, n / 2);
    VEC_RESERVE(&t->index->points, n / 4);
}

void ml_slices_grow(ml_trace *t)
{
    ml_slices *s = &t->slices;
    size_t n = s->ts.len + 1;
    VEC_RESERVE(&s->ts, n); VEC_RESERVE(&s->dur32, n); VEC_RESERVE(&s->name, n); VEC_RESERVE(&s->track, n);
    VEC_RESERVE(&s->kind, n); VEC_RESERVE(&s->corr, n); VEC_RESERVE(&s->ext_id, n); VEC_RESERVE(&s->info, n);
}

uint32_t ml_comm_args_push(ml_trace *t, const ml_comm_args *comm)
{
    VEC_PUSH(&t->comm_args, *comm);
    return (uint32_t)t->comm_args.len;
}

/* Row `comm` (1-based, as ml_comm_args_push returns it) of comm_args; all absent for 0 or a bad row. */
static const ml_comm_args *comm_row(const ml_trace *t, uint32_t comm)
{
    static const ml_comm_args none = {0, 0, -1, -1, -1};
    return comm && comm <= t->comm_args.len ? &t->comm_args.v[comm - 1] : &none;
}

const ml_comm_args *ml_op_comm(const ml_trace *t, const ml_op_info *info) { return comm_row(t, info->comm); }

const ml_comm_args *ml_kernel_comm(const ml_trace *t, const ml_kernel_info *ki) { return comm_row(t, ki->comm); }

bool ml_kernel_info_is_comm(const ml_trace *t, const ml_kernel_info *ki)
{
    return ki && comm_row(t, ki->comm)->collective != 0;
}

/* A row per op with args: its width is what a trace of many ops pays. */
_Static_assert(sizeof(ml_op_info) == 28, "ml_op_info packs into 28 bytes");

uint32_t ml_op_info_push(ml_trace *t, const ml_op_info_row *r)
{
    if (t->op_info.len == t->op_info.cap) ML_PAGEROWS_RESERVE(&t->op_info, t->op_info.len + 1);
    ml_op_info *o = &t->op_info.v[t->op_info.len]; /* written in place: no copy of the row */
    o->input_dims = r->input_dims;
    o->input_types = r->input_types;
    o->call_stack = r->call_stack;
    o->comm = r->comm;
    o->seq = ml_id32_put(&t->op_wide, r->seq);
    o->fwd_thread = ml_id32_put(&t->op_wide, r->fwd_thread);
    o->python_module = ml_id32_put(&t->op_wide, r->python_module);
    return (uint32_t)t->op_info.len++;
}

/* A row per kernel: its width is what a trace of many kernels pays (trace.h). */
_Static_assert(sizeof(ml_kernel_info) == 80, "ml_kernel_info packs into 80 bytes");

uint32_t ml_kernel_info_push(ml_trace *t, const ml_kernel_info *info)
{
    ML_PAGEROWS_PUSH(&t->kernel_info, *info);
    ml_kernel_info *k = &t->kernel_info.v[t->kernel_info.len - 1]; /* checked in place: one copy */
    size_t bad = 0;
    /* (!(x >= lo) is true for NaN too) */
    if (k->occupancy != -1 && !(k->occupancy >= 0 && k->occupancy <= 100)) k->occupancy = -1, bad++;
    /* blocks per SM is the grid's blocks over the SMs: at most the largest grid CUDA allows */
    if (k->blocks_per_sm != -1 && !(k->blocks_per_sm >= 0 && k->blocks_per_sm <= 2147483647.0 * 65535.0 * 65535.0))
        k->blocks_per_sm = -1, bad++;
    if (k->registers != -1 && (k->registers < 0 || k->registers > 65536)) k->registers = -1, bad++;
    if (k->shared_memory != -1 && k->shared_memory < 0) k->shared_memory = -1, bad++;
    for (int d = 0; d < 3; d++) {
        if (k->grid[d] != -1 && k->grid[d] < 1) k->grid[d] = -1, bad++;
        if (k->block[d] != -1 && k->block[d] < 1) k->block[d] = -1, bad++;
    }
    t->kernel_args_dropped += bad;
    return (uint32_t)t->kernel_info.len - 1;
}

uint32_t ml_sync_info_push(ml_trace *t, const ml_sync_info *info)
{
    ML_PAGEROWS_PUSH(&t->sync_info, *info);
    return (uint32_t)t->sync_info.len - 1;
}

uint32_t ml_range_info_push(ml_trace *t, const ml_str *keys, const double *values, size_t n)
{
    ml_range_info r = {(uint32_t)t->range_key.len, (uint32_t)n};
    for (size_t i = 0; i < n; i++) {
        VEC_PUSH(&t->range_key, keys[i]);
        VEC_PUSH(&t->range_value, values[i]);
    }
    VEC_PUSH(&t->range_info, r);
    return (uint32_t)t->range_info.len - 1;
}

void ml_flow_point(ml_trace *t, int64_t id, ml_str cat, char ph, bool bind_enclosing, uint32_t track, int64_t ts)
{
    flow_point fp = {ts, ml_id32_put(&t->index->point_wide, id), cat, track, ph, bind_enclosing};
    VEC_PUSH(&t->index->points, fp);
}

void ml_counter_push(ml_trace *t, int64_t ts, double value, ml_str name, ml_str key, uint32_t track)
{
    ml_counters *c = &t->counters;
    VEC_PUSH(&c->ts, ts);
    VEC_PUSH(&c->value, value);
    VEC_PUSH(&c->name, name);
    VEC_PUSH(&c->key, key);
    VEC_PUSH(&c->track, track);
}

void ml_instant_push(ml_trace *t, int64_t ts, ml_str name, uint32_t track)
{
    VEC_PUSH(&t->instants.ts, ts);
    VEC_PUSH(&t->instants.name, name);
    VEC_PUSH(&t->instants.track, track);
}

void ml_trace_meta(ml_trace *t, ml_trace_meta_kind what, ml_str pid, ml_str tid, ml_str name, int64_t sort)
{
    meta_row m = {pid, tid, name, sort, (uint8_t)what};
    VEC_PUSH(&t->index->meta, m);
}

ml_str ml_trace_process_name(const ml_trace *t, ml_str pid)
{
    const ml_trace_index *ix = t->index;
    ml_str name = 0;
    for (size_t i = 0; i < ix->meta.len; i++)
        if (ix->meta.v[i].what == ML_META_PROCESS_NAME && ix->meta.v[i].pid == pid) name = ix->meta.v[i].name;
    for (size_t k = 0; !name && k < t->tracks.len; k++)
        if (t->tracks.v[k].pid == pid && t->tracks.v[k].process_name) name = t->tracks.v[k].process_name;
    return name;
}

void ml_trace_span(ml_trace *t, int64_t begin, int64_t end)
{
    ml_trace_index *ix = t->index;
    if (!ix->has_span || begin < ix->span_begin) ix->span_begin = begin;
    if (!ix->has_span || end > ix->span_end) ix->span_end = end;
    ix->has_span = true;
}

void ml_track_set_stream(ml_trace *t, uint32_t track, int32_t device, int64_t stream)
{
    ml_track *tr = &t->tracks.v[track];
    tr->kind = ML_TRACK_STREAM;
    if (device >= 0) tr->device = device;
    if (stream >= 0) tr->stream = stream;
}

const char *ml_slice_kind_name(unsigned kind)
{
    static const char *const names[ML_SL__COUNT] = {
        "cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver", "kernel",
        "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "profiler_step", "other", "cuda_sync",
        "cuda_profiler_range",
    };
    return names[kind < ML_SL__COUNT ? kind : ML_SL_OTHER];
}

/* ---- appending the second half of a split file ---- */

/* The second half's slices and flow points are not copied here: their ids
 * are mapped to dst's in place, and ml_trace_finish() gathers both halves'
 * rows into their sorted places, each column once (a copy here was a
 * second write of every row, into pages of its own). */

typedef struct trace_append_job {
    ml_trace *dst, *src;
    const ml_str *smap;
    const uint32_t *tmap;  /* src track -> dst track */
    uint32_t op_base, k_base, comm_base, sync_base, range_base;
    uint32_t wide_base;    /* where src's wide ids start in dst's table (ml_id32) */
} trace_append_job;

#define MAP_STR(id) ((id) ? j->smap[id] : 0)

static bool is_gpu_work(uint8_t kind) { return kind == ML_SL_KERNEL || kind == ML_SL_MEMCPY || kind == ML_SL_MEMSET; }
/* What ml_trace_device_rows() covers: GPU work and cuda_sync slices. */
static bool is_device_work(uint8_t kind) { return is_gpu_work(kind) || kind == ML_SL_CUDA_SYNC; }

/* Where the second half's info rows of a slice of that kind start in dst's tables. */
static uint32_t info_base(const trace_append_job *j, uint8_t kind)
{
    if (is_gpu_work(kind)) return j->k_base;
    if (kind == ML_SL_CUDA_SYNC) return j->sync_base;
    if (kind == ML_SL_PROFILER_RANGE) return j->range_base;
    return j->op_base;
}

/* The second half's slices: names, tracks and info rows, in place. */
static void map_tail_slices(void *arg)
{
    const trace_append_job *j = arg;
    ml_slices *s = &j->src->slices;
    int32_t wb = (int32_t)j->wide_base;
    for (size_t i = 0; i < s->ts.len; i++) {
        s->name.v[i] = MAP_STR(s->name.v[i]);
        s->track.v[i] = j->tmap[s->track.v[i]];
        if (s->info.v[i] != ML_NONE32) s->info.v[i] += info_base(j, s->kind.v[i]);
        if (s->dur32.v[i] < -1) s->dur32.v[i] -= wb; /* escapes: to the rows of dst's table */
        if (s->corr.v[i] < -1) s->corr.v[i] -= wb;
        if (s->ext_id.v[i] < -1) s->ext_id.v[i] -= wb;
    }
}

/* The op and kernel args (appended: slices index them), the flow points (in
 * place), metadata, counters and instants. */
static void append_the_rest(void *arg)
{
    const trace_append_job *j = arg;
    ml_trace *dst = j->dst, *src = j->src;
    for (size_t i = 0; i < src->comm_args.len; i++) {
        ml_comm_args c = src->comm_args.v[i];
        c.collective = MAP_STR(c.collective);
        c.dtype = MAP_STR(c.dtype);
        VEC_PUSH(&dst->comm_args, c);
    }
    VEC_FREE(&src->comm_args);
    int32_t wb = (int32_t)dst->op_wide.len; /* src's wide ids go after dst's: its escapes move by that */
    for (size_t i = 0; i < src->op_wide.len; i++) VEC_PUSH(&dst->op_wide, src->op_wide.v[i]);
    VEC_FREE(&src->op_wide);
    size_t at = dst->op_info.len;
    ML_PAGEROWS_APPEND(&dst->op_info, &src->op_info);
    for (size_t i = at; i < dst->op_info.len; i++) {
        ml_op_info *o = &dst->op_info.v[i];
        o->input_dims = MAP_STR(o->input_dims);
        o->input_types = MAP_STR(o->input_types);
        o->call_stack = MAP_STR(o->call_stack);
        if (o->comm) o->comm += j->comm_base;
        if (o->seq < -1) o->seq -= wb;
        if (o->fwd_thread < -1) o->fwd_thread -= wb;
        if (o->python_module < -1) o->python_module -= wb;
    }
    at = dst->kernel_info.len;
    ML_PAGEROWS_APPEND(&dst->kernel_info, &src->kernel_info);
    if (j->comm_base)
        for (size_t i = at; i < dst->kernel_info.len; i++)
            if (dst->kernel_info.v[i].comm) dst->kernel_info.v[i].comm += j->comm_base;
    ML_PAGEROWS_APPEND(&dst->sync_info, &src->sync_info);
    uint32_t key_base = (uint32_t)dst->range_key.len;
    for (size_t i = 0; i < src->range_info.len; i++) {
        ml_range_info r = src->range_info.v[i];
        r.first += key_base;
        VEC_PUSH(&dst->range_info, r);
    }
    for (size_t i = 0; i < src->range_key.len; i++) {
        VEC_PUSH(&dst->range_key, MAP_STR(src->range_key.v[i]));
        VEC_PUSH(&dst->range_value, src->range_value.v[i]);
    }
    VEC_FREE(&src->range_info);
    VEC_FREE(&src->range_key);
    VEC_FREE(&src->range_value);
    flow_point *pt = src->index->points.v;
    ml_wide_ids *pw = &dst->index->point_wide;
    int32_t pb = (int32_t)pw->len; /* src's wide ids after dst's: its escapes move by that */
    for (size_t i = 0; i < src->index->point_wide.len; i++) VEC_PUSH(pw, src->index->point_wide.v[i]);
    VEC_FREE(&src->index->point_wide);
    for (size_t i = 0; i < src->index->points.len; i++) {
        pt[i].cat = MAP_STR(pt[i].cat);
        pt[i].track = j->tmap[pt[i].track];
        if (pt[i].id < -1) pt[i].id -= pb;
    }
    for (size_t i = 0; i < src->index->meta.len; i++) {
        meta_row m = src->index->meta.v[i];
        ml_trace_meta(dst, (ml_trace_meta_kind)m.what, MAP_STR(m.pid), MAP_STR(m.tid), MAP_STR(m.name), m.sort);
    }
    const ml_counters *c = &src->counters;
    ml_counters *dc = &dst->counters;
    size_t nc = dc->ts.len + c->ts.len, ni = dst->instants.ts.len + src->instants.ts.len;
    VEC_RESERVE(&dc->ts, nc); VEC_RESERVE(&dc->value, nc); VEC_RESERVE(&dc->name, nc); VEC_RESERVE(&dc->key, nc);
    VEC_RESERVE(&dc->track, nc);
    VEC_RESERVE(&dst->instants.ts, ni); VEC_RESERVE(&dst->instants.name, ni); VEC_RESERVE(&dst->instants.track, ni);
    for (size_t i = 0; i < c->ts.len; i++)
        ml_counter_push(dst, c->ts.v[i], c->value.v[i], MAP_STR(c->name.v[i]), MAP_STR(c->key.v[i]),
                        j->tmap[c->track.v[i]]);
    const ml_instants *in = &src->instants;
    for (size_t i = 0; i < in->ts.len; i++)
        ml_instant_push(dst, in->ts.v[i], MAP_STR(in->name.v[i]), j->tmap[in->track.v[i]]);
}
#undef MAP_STR

/* Copies the tail into the store's own columns, where the append order puts
 * it (after the first tail_at rows): only for a second append, or a half
 * too large for ML_PART1 to mark its rows. */
static void join_tail(ml_trace *t)
{
    ml_trace_index *ix = t->index;
    if (!ix->has_tail) return;
    ml_slices *s = &t->slices, *tl = &ix->tail;
    size_t at = ix->tail_at, n0 = s->ts.len, n1 = tl->ts.len;
#define JOIN(col, from, at_, n0_, n1_)                                                      \
    do {                                                                                       \
        VEC_RESERVE(&(col), (n0_) + (n1_));                                                    \
        memmove((col).v + (at_) + (n1_), (col).v + (at_), ((n0_) - (at_)) * sizeof *(col).v);   \
        memcpy((col).v + (at_), (from).v, (n1_) * sizeof *(col).v);                            \
        (col).len = (n0_) + (n1_);                                                             \
        VEC_FREE(&(from));                                                                     \
    } while (0)
    JOIN(s->ts, tl->ts, at, n0, n1); JOIN(s->dur32, tl->dur32, at, n0, n1); JOIN(s->name, tl->name, at, n0, n1);
    JOIN(s->track, tl->track, at, n0, n1); JOIN(s->kind, tl->kind, at, n0, n1); JOIN(s->corr, tl->corr, at, n0, n1);
    JOIN(s->ext_id, tl->ext_id, at, n0, n1); JOIN(s->info, tl->info, at, n0, n1);
    JOIN(ix->points, ix->tail_points, ix->tail_points_at, ix->points.len, ix->tail_points.len);
#undef JOIN
    free_slices(tl);
    ix->has_tail = false;
}

void ml_trace_append(ml_trace *dst, ml_trace *src, const ml_str *smap, const uint32_t *dmap, size_t n_src_devices)
{
#define MAP_STR(id) ((id) ? smap[id] : 0)
    join_tail(dst); /* one tail at a time */
    join_tail(src);
    uint32_t *tmap = ml_malloc((src->tracks.len + 1) * sizeof *tmap);
    for (size_t i = 0; i < src->tracks.len; i++) {
        const ml_track *s = &src->tracks.v[i];
        uint32_t id = ml_track_get_ids(dst, MAP_STR(s->pid), MAP_STR(s->tid));
        ml_track *d = &dst->tracks.v[id];
        if (!d->process_name) d->process_name = MAP_STR(s->process_name);
        if (!d->name) d->name = MAP_STR(s->name);
        if (d->process_sort == INT64_MAX) d->process_sort = s->process_sort;
        if (d->thread_sort == INT64_MAX) d->thread_sort = s->thread_sort;
        if (s->kind != ML_TRACK_THREAD) d->kind = s->kind;
        if (s->device >= 0 && (size_t)s->device < n_src_devices) d->device = (int32_t)dmap[s->device];
        if (s->stream >= 0) d->stream = s->stream;
        tmap[i] = id;
    }
    trace_append_job job = {dst, src, smap, tmap, (uint32_t)dst->op_info.len, (uint32_t)dst->kernel_info.len,
                            (uint32_t)dst->comm_args.len, (uint32_t)dst->sync_info.len, (uint32_t)dst->range_info.len,
                            (uint32_t)dst->slices.wide.len};
    /* src's wide ids after dst's (few: most ids fit), so the tail's escapes are dst's */
    ml_wide_ids *w = &dst->slices.wide;
    for (size_t i = 0; i < src->slices.wide.len; i++) VEC_PUSH(w, src->slices.wide.v[i]);
    VEC_FREE(&src->slices.wide);
    ml_par2(map_tail_slices, &job, append_the_rest, &job);
    ml_trace_index *ix = dst->index;
    ix->has_tail = true;
    ix->tail = src->slices;
    ix->tail_at = dst->slices.ts.len;
    memset(&src->slices, 0, sizeof src->slices);
    ix->tail_points.v = src->index->points.v;
    ix->tail_points.len = src->index->points.len;
    ix->tail_points.cap = src->index->points.cap;
    ix->tail_points_at = ix->points.len;
    memset(&src->index->points, 0, sizeof src->index->points);
    if (ix->tail_at >= ML_PART1 || ix->tail.ts.len >= ML_PART1) join_tail(dst);
    if (!dst->backend) dst->backend = MAP_STR(src->backend);
    if (!dst->pg_count) dst->pg_count = src->pg_count;
    if (src->index->has_span) ml_trace_span(dst, src->index->span_begin, src->index->span_end);
    dst->unpaired_ends += src->unpaired_ends;
    dst->kernel_args_dropped += src->kernel_args_dropped;
    free(tmap);
#undef MAP_STR
}

/* ---- sorting ---- */

/* A flow point's sort key, 16 bytes (the sort writes its keys twice over:
 * a page fault per 4 KiB of them): (cat, id), then the point's start, read
 * from the point itself where cat and id tie (a flow's two ends, mostly),
 * then push order (stable). */
typedef struct flow_key {
    int64_t id;             /* exact (the wide ones looked up) */
    uint32_t cat;
    uint32_t idx;           /* push order (point_at) */
} flow_key;
_Static_assert(sizeof(flow_key) == 16, "flow_key packs into 16 bytes");

static const flow_point *point_at(const ml_trace_index *ix, size_t i);

static inline bool flow_key_lt(const ml_trace_index *ix, const flow_key *x, const flow_key *y)
{
    if (x->cat != y->cat) return x->cat < y->cat;
    if (x->id != y->id) return x->id < y->id;
    int64_t tx = point_at(ix, x->idx)->ts, ty = point_at(ix, y->idx)->ts;
    if (tx != ty) return tx < ty;
    return x->idx < y->idx;
}

#define FLOW_KEY_LT(ix, x, y) flow_key_lt(ix, &(x), &(y))
/* Natural merge sort of keys: one pass when sorted, log2(runs) more otherwise. */
ML_RUNSORT_DEFINE(sort_keys_into, flow_key, const ml_trace_index *, FLOW_KEY_LT)

/* The slices' sort keys in their one or two parts (the tail: see
 * ml_trace_index): with two, a row with ML_PART1 set is row
 * (r & ~ML_PART1) of part 1. */
typedef struct slice_keys {
    const int64_t *ts[2];
    const ml_id32 *dur[2];
    const ml_wide_ids *wide; /* both parts' (the tail's escapes are the store's: ml_trace_append) */
} slice_keys;

/* Row i's duration in part `part`. */
static inline int64_t key_dur(const slice_keys *k, uint32_t part, uint32_t i)
{
    return ml_id32_get(k->wide, k->dur[part][i]);
}

/* A slice (ts_x, dur_x) before a slice (ts_y, dur_y) of the same track:
 * earlier start, then longer: the one order of the sort, the check of push
 * order (place_rows) and the merge of two runs.  The sort is stable and each
 * track's rows enter it in the order they were pushed (the tail's where the
 * append put them), so ties keep that order. */
static inline bool key_before(int64_t ts_x, int64_t dur_x, int64_t ts_y, int64_t dur_y)
{
    return ts_x < ts_y || (ts_x == ts_y && dur_x > dur_y);
}

/* The same for rows x and y (slice_before2: rows of either part, ML_PART1). */
static inline bool slice_before(const slice_keys *k, uint32_t x, uint32_t y)
{
    return key_before(k->ts[0][x], key_dur(k, 0, x), k->ts[0][y], key_dur(k, 0, y));
}

static inline bool slice_before2(const slice_keys *k, uint32_t x, uint32_t y)
{
    uint32_t px = x >> 31, py = y >> 31, rx = x & ~ML_PART1, ry = y & ~ML_PART1;
    return key_before(k->ts[px][rx], key_dur(k, px, rx), k->ts[py][ry], key_dur(k, py, ry));
}

#define SLICE_LT(k, x, y) slice_before(k, x, y)
ML_RUNSORT_INPLACE_DEFINE(sort_rows, uint32_t, const slice_keys *, SLICE_LT)
#define SLICE_LT2(k, x, y) slice_before2(k, x, y)
ML_RUNSORT_INPLACE_DEFINE(sort_rows2, uint32_t, const slice_keys *, SLICE_LT2)

/* Per track, as its rows are given their places: the key of its last row
 * in push order, and how often a row came before the row pushed ahead of
 * it (a track written in order: none; two parts of one appended: one). */
typedef struct track_order {
    int64_t ts, dur;        /* the last row's (INT64_MIN, INT64_MAX at first: no row comes before those) */
    uint32_t next;          /* the place the track's next row gets */
    uint32_t descents;
    uint32_t brk;           /* the place of the first row that came before its predecessor */
} track_order;

/* The earliest start and latest end of the slices placed so far. */
typedef struct slice_span {
    int64_t begin, end;     /* INT64_MAX, INT64_MIN before any */
} slice_span;

/* Rows [from, to) of a part, in push order: each gets the base added to its
 * start (read here anyway: no pass of its own), widens the span, and goes
 * to its track's next place (dest[r]), noting where a track's order breaks.
 * wide: the store's table of wide values (the tail's escapes are its too). */
static void place_rows(ml_slices *s, const ml_wide_ids *wide, size_t from, size_t to, int64_t base, uint32_t *dest,
                       track_order *ord, slice_span *span)
{
    int64_t *ts = s->ts.v, begin = span->begin, end = span->end;
    const ml_id32 *dur = s->dur32.v;
    const uint32_t *track = s->track.v;
    for (size_t r = from; r < to; r++) {
        int64_t start = ts[r] += base, d = ml_id32_get(wide, dur[r]), stop = ml_add_sat(start, d);
        if (start < begin) begin = start;
        if (stop > end) end = stop;
        track_order *o = &ord[track[r]];
        uint32_t at = o->next++;
        dest[r] = at;
        if (key_before(start, d, o->ts, o->dur) && !o->descents++) o->brk = at;
        o->ts = start;
        o->dur = d;
    }
    span->begin = begin;
    span->end = end;
}

/* Two sorted runs perm[*lo, b) and perm[b, *hi): the first's rows before
 * the second's first row, and the second's rows from its first not before
 * the first run's last, are in their places already; narrows [*lo, *hi) to
 * the rows between, which a merge moves (a few where one run follows the
 * other, as where the halves of a split file meet; most where they
 * interleave). */
static void narrow_two_runs(const slice_keys *k, const uint32_t *perm, size_t *lo, size_t b, size_t *hi)
{
    uint32_t first_b = perm[b], last_a = perm[b - 1];
    size_t x = *lo, y = b;
    while (x < y) {
        size_t mid = x + (y - x) / 2;
        if (slice_before2(k, first_b, perm[mid])) y = mid;
        else x = mid + 1;
    }
    *lo = x;
    x = b, y = *hi;
    while (x < y) {
        size_t mid = x + (y - x) / 2;
        if (slice_before2(k, perm[mid], last_a)) x = mid + 1;
        else y = mid;
    }
    *hi = x;
}

typedef struct track_sort {
    const slice_keys *k;
    uint32_t *perm;         /* place -> row (ML_PART1 marks the tail's) */
    uint32_t *dest[2];      /* row -> place, of part 0's rows and part 1's */
    const uint32_t *first;
    const track_order *ord;
    size_t from, to;        /* tracks [from, to) */
} track_sort;

/* Where row r (ML_PART1 for the tail's) has its place. */
static inline uint32_t *place_of(const track_sort *j, uint32_t r)
{
    return r & ML_PART1 ? &j->dest[1][r & ~ML_PART1] : &j->dest[0][r];
}

/* A row's sort key, read once for the merge below. */
typedef struct row_key {
    int64_t ts, dur;
    uint32_t row;
} row_key;

static inline row_key key_of(const slice_keys *k, uint32_t r)
{
    uint32_t part = r >> 31, i = r & ~ML_PART1;
    return (row_key){k->ts[part][i], key_dur(k, part, i), r};
}

/* Merges two sorted runs perm[lo, b) and perm[b, hi) straight into their
 * rows' places (the first run's row first on ties: stable): no merged copy
 * of perm, which nothing reads after. */
static void merge_two_runs(const track_sort *j, size_t lo, size_t b, size_t hi)
{
    const uint32_t *perm = j->perm;
    size_t x = lo, y = b, at = lo;
    row_key kx = key_of(j->k, perm[x]), ky = key_of(j->k, perm[y]);
    for (;;) {
        if (key_before(ky.ts, ky.dur, kx.ts, kx.dur)) {
            *place_of(j, ky.row) = (uint32_t)at++;
            if (++y == hi) break;
            ky = key_of(j->k, perm[y]);
        } else {
            *place_of(j, kx.row) = (uint32_t)at++;
            if (++x == b) break;
            kx = key_of(j->k, perm[x]);
        }
    }
    for (; x < b; x++) *place_of(j, perm[x]) = (uint32_t)at++;
    for (; y < hi; y++) *place_of(j, perm[y]) = (uint32_t)at++;
}

/* Sorts the rows of each track whose push order broke, and gives the rows
 * that moved their new places in dest. */
static void sort_tracks(void *arg)
{
    const track_sort *j = arg;
    for (size_t k = j->from; k < j->to; k++) {
        const track_order *o = &j->ord[k];
        if (!o->descents) continue;
        size_t lo = j->first[k], hi = j->first[k + 1];
        if (o->descents == 1) { /* two sorted runs */
            narrow_two_runs(j->k, j->perm, &lo, o->brk, &hi);
            merge_two_runs(j, lo, o->brk, hi);
            continue;
        }
        if (j->k->ts[1]) sort_rows2(j->perm + lo, hi - lo, j->k);
        else sort_rows(j->perm + lo, hi - lo, j->k);
        for (size_t at = lo; at < hi; at++) *place_of(j, j->perm[at]) = (uint32_t)at;
    }
}

/* Adds base to the slices' starts, sorts them by (track, ts, dur
 * descending), keeping the push order of ties, and joins the tail; fills
 * track_first and *span (false: no slices).  Each row is given its place
 * (a counting sort by track, in push order), and a track whose rows were
 * pushed out of order is sorted (by a permutation of its places); then each
 * column is scattered once from both parts into a buffer of the pool, and
 * its parts given to it.  The track column is not moved but written anew:
 * its rows are each track's places. */
static bool sort_slices(ml_trace *t, ml_bufpool *pool, int64_t base, slice_span *span)
{
    ml_trace_index *ix = t->index;
    if (ix->has_tail && t->slices.ts.len >= ML_PART1) join_tail(t); /* (rows pushed after the append) */
    ml_slices *s = &t->slices, *tl = &ix->tail;
    size_t n0 = s->ts.len, n1 = tl->ts.len, n = n0 + n1, nt = t->tracks.len;
    size_t at = ix->has_tail ? ix->tail_at : n0;
    uint32_t *first = ml_calloc(nt + 2, sizeof *first);
    for (size_t i = 0; i < n0; i++) first[s->track.v[i] + 1]++;
    for (size_t i = 0; i < n1; i++) first[tl->track.v[i] + 1]++;
    for (size_t k = 0; k < nt; k++) first[k + 1] += first[k];
    ix->track_first = first;
    ix->has_tail = false;
    if (n == 0) {
        free_slices(tl);
        return false;
    }
    /* dest: each row's place, the slices grouped by track in push order
     * (the tail after the first `at` rows), written over the row's track
     * (read just before: the column is written anew from first[] below) */
    track_order *ord = ml_malloc((nt ? nt : 1) * sizeof *ord);
    for (size_t k = 0; k < nt; k++) ord[k] = (track_order){INT64_MIN, INT64_MAX, first[k], 0, 0};
    uint32_t *dest[2] = {s->track.v, tl->track.v};
    *span = (slice_span){INT64_MAX, INT64_MIN};
    place_rows(s, &s->wide, 0, at, base, dest[0], ord, span);
    place_rows(tl, &s->wide, 0, n1, base, dest[1], ord, span);
    place_rows(s, &s->wide, at, n0, base, dest[0], ord, span);
    size_t unsorted = 0;
    for (size_t k = 0; k < nt; k++) unsorted += ord[k].descents > 0;
    if (unsorted) {
        uint32_t *perm = ml_malloc(n * sizeof *perm);
        for (size_t i = 0; i < n0; i++) perm[dest[0][i]] = (uint32_t)i;
        for (size_t i = 0; i < n1; i++) perm[dest[1][i]] = (uint32_t)i | ML_PART1;
        slice_keys keys = {{s->ts.v, n1 ? tl->ts.v : NULL}, {s->dur32.v, tl->dur32.v}, &s->wide};
        /* Tracks are independent: the first half of the rows on one thread, the rest on the other. */
        size_t split = 0;
        while (split < nt && first[split + 1] <= n / 2) split++;
        track_sort lo = {&keys, perm, {dest[0], dest[1]}, first, ord, 0, split}, hi = lo;
        hi.from = split, hi.to = nt;
        ml_par2(sort_tracks, &lo, sort_tracks, &hi);
        ml_pool_give(pool, perm, n * sizeof *perm, n * sizeof *perm);
    }
    free(ord);
    bool identity = n1 == 0;
    for (size_t i = 0; i < n && identity; i++) identity = dest[0][i] == i;
    size_t cap;
    if (!identity) {
#define PARTS(col) {{s->col.v, n1 ? tl->col.v : NULL}, {s->col.cap, tl->col.cap}, {n0, n1}, sizeof *s->col.v, NULL, 0}
        ml_colparts cols[] = {PARTS(ts), PARTS(dur32), PARTS(corr), PARTS(ext_id), PARTS(name), PARTS(info), PARTS(kind)};
#undef PARTS
        if (!n1)
            for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) cols[c].cap[1] = cols[c].len[1] = 0;
        ml_scatter_cols(cols, sizeof cols / sizeof *cols, (const uint32_t *const *)dest, n, pool);
        size_t c = 0;
#define TAKE(col) (s->col.v = cols[c].out, s->col.cap = cols[c].out_cap, s->col.len = n, c++)
        TAKE(ts); TAKE(dur32); TAKE(corr); TAKE(ext_id); TAKE(name); TAKE(info); TAKE(kind);
#undef TAKE
        size_t dest_cap[2] = {s->track.cap, tl->track.cap};
        s->track.v = ml_pool_take(pool, n * sizeof *s->track.v, &cap);
        s->track.cap = cap / sizeof *s->track.v;
        s->track.len = n;
        for (int k = 0; k < 2; k++)
            ml_pool_give(pool, dest[k], dest_cap[k] * sizeof *dest[k], (k ? n1 : n0) * sizeof *dest[k]);
        memset(tl, 0, sizeof *tl); /* its buffers are the pool's now */
    }
    for (uint32_t k = 0; k < nt; k++) /* (in place when no row moved) */
        for (size_t i = first[k]; i < first[k + 1]; i++) s->track.v[i] = k;
    free_slices(tl);
    return true;
}

static int64_t slice_end(const ml_slices *s, size_t i) { return ml_add_sat(s->ts.v[i], ml_slice_dur(s, i)); }

/* An open slice on nest()'s stack: its start and end kept beside it, so
 * that the test of each new slice against the top reads no column. */
typedef struct open_slice {
    int64_t ts, end;
    uint32_t row;
} open_slice;

/* Parent and depth by containment on each track: a stack of the open slices.
 * A slice that starts inside another but ends after it (partial overlap,
 * which well-formed traces never have) is nested under it all the same, the
 * way Perfetto nests by start time: lanes never overlap at one depth, and
 * the child keeps its true end (analyses clamp where they need to). */
static void nest(ml_trace *t)
{
    ml_slices *s = &t->slices;
    size_t n = s->ts.len;
    VEC_RESERVE(&s->parent, n);
    VEC_RESERVE(&s->depth, n);
    s->parent.len = s->depth.len = n;
    /* At the bottom of the stack, a slice that holds everything and never
     * closes (nothing starts after INT64_MAX; one that starts there is
     * inside it, zero-length at its start): no test for an empty stack. */
    VEC(open_slice) stack = {0};
    VEC_PUSH(&stack, ((open_slice){INT64_MAX, INT64_MAX, ML_NONE32}));
    const uint32_t *first = t->index->track_first;
    for (size_t k = 0; k < t->tracks.len; k++) {
        stack.len = 1;
        for (uint32_t i = first[k]; i < first[k + 1]; i++) {
            int64_t ts = s->ts.v[i], end = ml_add_sat(ts, ml_slice_dur(s, i));
            /* A zero-length slice at a parent's start is inside it; a slice
             * that ended at or before ts is not. */
            while (stack.v[stack.len - 1].end <= ts && stack.v[stack.len - 1].ts != ts) stack.len--;
            const open_slice *top = &stack.v[stack.len - 1];
            if (end > top->end) t->partial_overlaps++; /* (never past the bottom's) */
            s->parent.v[i] = top->row;
            size_t depth = stack.len - 1;
            s->depth.v[i] = (uint16_t)(depth < UINT16_MAX ? depth : UINT16_MAX);
            VEC_PUSH(&stack, ((open_slice){ts, end, i}));
        }
    }
    VEC_FREE(&stack);
}

/* A launch that carries a correlation id some other launch carries too. */
typedef struct shared_launch {
    int64_t corr, ts;
    uint32_t slice;
} shared_launch;

static int cmp_shared(const void *x, const void *y)
{
    const shared_launch *a = x, *b = y;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

/* Whether slice i lies within slice k on the same track (a driver call
 * inside the runtime call it serves). */
static bool within(const ml_slices *s, size_t i, size_t k)
{
    return s->track.v[i] == s->track.v[k] && s->ts.v[i] >= s->ts.v[k] &&
           s->ts.v[i] + ml_slice_dur(s, i) <= s->ts.v[k] + ml_slice_dur(s, k);
}

/* Of the launches sh[lo, hi) (one id, in time order), the one that began
 * last at or before ts, else the first. */
static uint32_t nearest_launch(const shared_launch *sh, size_t lo, size_t hi, int64_t ts)
{
    size_t a = lo, b = hi;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (sh[mid].ts <= ts) a = mid + 1;
        else b = mid;
    }
    return sh[a > lo ? a - 1 : lo].slice;
}

/* GPU work and cuda_sync slices -> the runtime/driver call with the same correlation id. */
static void link_launchers(ml_trace *t, ml_bufpool *pool)
{
    ml_slices *s = &t->slices;
    size_t n = s->ts.len, nl = 0;
    VEC_RESERVE(&s->launcher, n);
    s->launcher.len = n;
    /* (and the ranges of the tracks with device work, read track by track) */
    ml_trace_index *ix = t->index;
    const uint32_t *first = ix->track_first;
    for (size_t k = 0; k < t->tracks.len; k++) {
        bool work = false;
        for (size_t i = first[k]; i < first[k + 1]; i++) {
            uint8_t kind = s->kind.v[i];
            s->launcher.v[i] = ML_NONE32;
            work |= is_device_work(kind);
            if ((kind == ML_SL_RUNTIME || kind == ML_SL_DRIVER) && ml_slice_corr(s, i) >= 0) nl++;
        }
        if (!work) continue;
        size_t nr = ix->device_rows.len;
        if (nr && ix->device_rows.v[nr - 1].end == first[k]) ix->device_rows.v[nr - 1].end = first[k + 1];
        else VEC_PUSH(&ix->device_rows, ((ml_row_range){first[k], first[k + 1]}));
    }
    if (!nl) return;
    size_t cap = 64;
    while (cap < nl * 2) cap *= 2;
    /* The table holds rows only: an entry's id is its row's (a read of the
     * corr column, not an array of keys twice the table's size). */
    size_t got;
    uint32_t *vals = ml_pool_take_zero(pool, cap * sizeof *vals, &got);
    uint8_t *shared = NULL; /* per table entry: another launch carries the id (made at the first) */
    for (size_t i = 0; i < n; i++) {
        int64_t corr = ml_slice_corr(s, i);
        if ((s->kind.v[i] != ML_SL_RUNTIME && s->kind.v[i] != ML_SL_DRIVER) || corr < 0) continue;
        size_t j = ml_mix64((uint64_t)corr) & (cap - 1);
        for (; vals[j]; j = (j + 1) & (cap - 1))
            if (ml_slice_corr(s, vals[j] - 1) == corr) break;
        if (vals[j]) {
            /* A runtime call and the driver call under it share the id: the
             * first (outermost) is the launch.  Anything else is another
             * launch with the same id (a broken or stitched trace). */
            if (!within(s, i, vals[j] - 1)) {
                if (!shared) shared = ml_calloc(cap, 1);
                shared[j] = 1;
            }
            continue;
        }
        vals[j] = (uint32_t)i + 1;
    }
    /* The launches of shared ids, by (id, time), without the calls nested
     * in another launch of their id. */
    VEC(shared_launch) sh = {0};
    if (shared) {
        for (size_t i = 0; i < n; i++) {
            int64_t corr = ml_slice_corr(s, i);
            if ((s->kind.v[i] != ML_SL_RUNTIME && s->kind.v[i] != ML_SL_DRIVER) || corr < 0) continue;
            size_t j = ml_mix64((uint64_t)corr) & (cap - 1);
            while (ml_slice_corr(s, vals[j] - 1) != corr) j = (j + 1) & (cap - 1);
            if (shared[j]) VEC_PUSH(&sh, ((shared_launch){corr, s->ts.v[i], (uint32_t)i}));
        }
        qsort(sh.v, sh.len, sizeof *sh.v, cmp_shared);
        size_t w = 0;
        for (size_t r = 0; r < sh.len; r++) {
            bool nested = false; /* (its launch is a few entries back at most: a bounded look) */
            for (size_t q = w; q-- > 0 && q + 4 >= w && sh.v[q].corr == sh.v[r].corr;)
                if (within(s, sh.v[r].slice, sh.v[q].slice)) { nested = true; break; }
            if (!nested) sh.v[w++] = sh.v[r];
        }
        sh.len = w;
        for (size_t r = 0; r < sh.len; r++) {
            if (r == 0 || sh.v[r].corr != sh.v[r - 1].corr) t->shared_corr_ids++;
            t->shared_corr_calls++;
        }
    }
    ML_FOR_DEVICE_ROWS (t, i) {
        int64_t corr = ml_slice_corr(s, i);
        if (!is_device_work(s->kind.v[i]) || corr < 0) continue;
        for (size_t j = ml_mix64((uint64_t)corr) & (cap - 1); vals[j]; j = (j + 1) & (cap - 1))
            if (ml_slice_corr(s, vals[j] - 1) == corr) {
                s->launcher.v[i] = vals[j] - 1;
                if (shared && shared[j]) { /* the launches of this id: the one nearest before the work */
                    shared_launch key = {corr, INT64_MIN, 0};
                    size_t lo = 0, hi = sh.len;
                    while (lo < hi) {
                        size_t mid = (lo + hi) / 2;
                        if (cmp_shared(&sh.v[mid], &key) < 0) lo = mid + 1;
                        else hi = mid;
                    }
                    size_t end = lo;
                    while (end < sh.len && sh.v[end].corr == key.corr) end++;
                    if (end > lo) s->launcher.v[i] = nearest_launch(sh.v, lo, end, s->ts.v[i]);
                }
                break;
            }
    }
    VEC_FREE(&sh);
    free(shared);
    free(vals);
}

/* Device work that no correlation id linked, at the end of a flow whose
 * start lies in a runtime or driver call, was launched by that call: Kineto's
 * ac2g flows and Ascend's HostToDevice flows (older trace_view.json, whose
 * CANN calls carry another connection id than their tasks) mean just that.
 * Each flow row is one edge, from its call to its work.  Where the device's
 * clock runs ahead of the host's, a task starts before its call and the flow
 * is two halves in its (cat, id) group (nowhere -> task, call -> nowhere,
 * consecutive in t->flows: bind_flows writes them group by group): the same
 * launch, when the group is those two halves and nothing else.  A group of
 * several flows (an id used again) links each edge to its own call and no
 * halves, which could pair any call with any task.  Runs after both
 * nest_and_bind_flows and link_launchers. */
static bool is_launching_call(const ml_slices *s, uint32_t row)
{
    return row != ML_NONE32 && (s->kind.v[row] == ML_SL_RUNTIME || s->kind.v[row] == ML_SL_DRIVER);
}

static void launch_by_flow(ml_slices *s, uint32_t call, uint32_t work)
{
    if (work != ML_NONE32 && (is_gpu_work(s->kind.v[work]) || s->kind.v[work] == ML_SL_CUDA_SYNC) &&
        s->launcher.v[work] == ML_NONE32 && is_launching_call(s, call))
        s->launcher.v[work] = call;
}

static void link_launchers_by_flows(ml_trace *t)
{
    ml_slices *s = &t->slices;
    const ml_flow *f = t->flows.v;
    size_t nf = t->flows.len, b;
    for (size_t a = 0; a < nf; a = b) {
        for (b = a; b < nf && f[b].id == f[a].id && f[b].cat == f[a].cat; b++)
            if (f[b].from != ML_NONE32 && f[b].to != ML_NONE32) launch_by_flow(s, f[b].from, f[b].to);
        if (b - a == 2 && (f[a].to == ML_NONE32) != (f[a + 1].to == ML_NONE32)) { /* two halves */
            const ml_flow *start = f[a].to == ML_NONE32 ? &f[a] : &f[a + 1], *end = start == &f[a] ? &f[a + 1] : &f[a];
            if (end->from == ML_NONE32) launch_by_flow(s, start->from, end->to);
        }
    }
}

/* Where a track's search for a flow point begins: flow points come grouped
 * by (cat, id), and ids grow with time on each track (PyTorch's correlation
 * ids), so the next answer is usually next to the last one. */
typedef struct finger {
    const ml_trace *t;
    uint32_t *at;           /* per track: the last answer's row */
} finger;

/* The first row of track's slices in [lo, hi) whose start is after ts (after
 * or at ts when `at_too`): a galloping search from the finger, which gives
 * what a binary search of the whole track gives. */
static size_t first_after(finger *fg, uint32_t track, int64_t ts, bool at_too)
{
    const int64_t *start = fg->t->slices.ts.v;
    const uint32_t *first = fg->t->index->track_first;
    size_t lo = first[track], hi = first[track + 1], from = fg->at[track];
#define AFTER(i) (at_too ? start[i] >= ts : start[i] > ts)
    if (from < lo || from > hi) from = lo;
    size_t step = 1;
    if (from < hi && !AFTER(from)) { /* the answer is past from */
        size_t a = from + 1;
        /* mostly a row or two on (a flow per launch): those looked at one by one first */
        for (size_t near = a + 4 < hi ? a + 4 : hi; a < near; a++)
            if (AFTER(a)) {
                fg->at[track] = (uint32_t)a;
                return a;
            }
        while (a + step < hi && !AFTER(a + step)) a += step, step *= 2;
        lo = a, hi = a + step < hi ? a + step + 1 : hi;
    } else { /* the answer is at from or before it */
        size_t b = from;
        if (b == lo || !AFTER(b - 1)) return b; /* (the finger's row again) */
        while (b > lo + step && AFTER(b - step)) b -= step, step *= 2;
        hi = b, lo = b > lo + step ? b - step : lo;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (AFTER(mid)) hi = mid;
        else lo = mid + 1;
    }
#undef AFTER
    fg->at[track] = (uint32_t)lo;
    return lo;
}

/* The innermost slice of the track that contains ts (a zero-length slice at ts too). */
static uint32_t enclosing(finger *fg, uint32_t track, int64_t ts)
{
    const ml_trace *t = fg->t;
    const ml_slices *s = &t->slices;
    if (track >= t->tracks.len) return ML_NONE32;
    size_t lo = first_after(fg, track, ts, false);
    if (lo == t->index->track_first[track]) return ML_NONE32;
    for (uint32_t i = (uint32_t)lo - 1; i != ML_NONE32; i = s->parent.v[i])
        if (slice_end(s, i) > ts || s->ts.v[i] == ts) return i;
    return ML_NONE32;
}

/* The first slice of the track that starts at or after ts (Chrome's binding
 * of a flow end to the "next slice"). */
static uint32_t next_slice(finger *fg, uint32_t track, int64_t ts)
{
    const ml_trace *t = fg->t;
    if (track >= t->tracks.len) return ML_NONE32;
    size_t lo = first_after(fg, track, ts, true);
    return lo < t->index->track_first[track + 1] ? (uint32_t)lo : ML_NONE32;
}

/* Flows: points grouped by (cat, id) in time order.  Each "s" starts a
 * chain; every "t" or "f" after it ends one flow from the point before it (a
 * "t" goes on, an "f" closes the chain).  An "s" nothing follows is a flow to
 * nowhere, a "t"/"f" with no start one from nowhere (to = / from = ML_NONE32). */
/* The flow point of push order i: the store's first tail_points_at, then
 * the tail's, then the store's others. */
static const flow_point *point_at(const ml_trace_index *ix, size_t i)
{
    size_t at = ix->tail_points_at, n1 = ix->tail_points.len;
    if (i < at) return &ix->points.v[i];
    return i < at + n1 ? &ix->tail_points.v[i - at] : &ix->points.v[i - n1];
}

/* The two tasks after the sort; each has its buffers from the sort's pool,
 * taken before they start. */
typedef struct finish_task {
    ml_trace *t;
    flow_key *keys, *scratch; /* nest_and_bind_flows: bind_flows' sort keys and the sort's scratch */
    size_t keys_cap, scratch_cap; /* (bytes) */
    ml_bufpool *pool;       /* link_launchers_and_sort_samples: its tables' */
} finish_task;

static void bind_flows(ml_trace *t, finish_task *j)
{
    flow_key *keys = j->keys;
    const ml_trace_index *ix = t->index;
    size_t n = ix->points.len + ix->tail_points.len;
    if (!n) return;
    /* Keys grouped by track first: each track's points are nearly in (cat,
     * id) order already, so the merge sort finds a few long runs instead of
     * the many short ones that the tracks' interleaving makes. */
    size_t nt = t->tracks.len, tail_at = ix->tail_points_at;
    const flow_point *part[3] = {ix->points.v, ix->tail_points.v, ix->points.v + tail_at}; /* in push order */
    size_t part_n[3] = {tail_at, ix->tail_points.len, ix->points.len - tail_at};
    uint32_t *cursor = ml_calloc(nt + 2, sizeof *cursor);
    for (int g = 0; g < 3; g++)
        for (size_t k = 0; k < part_n[g]; k++) cursor[(part[g][k].track < nt ? part[g][k].track : nt) + 1]++;
    for (size_t k = 0; k <= nt; k++) cursor[k + 1] += cursor[k];
    for (size_t g = 0, i = 0; g < 3; g++)
        for (size_t k = 0; k < part_n[g]; k++, i++) {
            const flow_point *p = &part[g][k];
            keys[cursor[p->track < nt ? p->track : nt]++] =
                (flow_key){ml_id32_get(&ix->point_wide, p->id), p->cat, (uint32_t)i};
        }
    keys = sort_keys_into(keys, j->scratch, n, ix);
    /* The flows go into the sort's other buffer, written by its merges: no
     * fresh pages for them (a flow is 24 bytes, a key 16: where the flows
     * outgrow it, the vector grows as any does). */
    flow_key **spare = keys == j->keys ? &j->scratch : &j->keys;
    size_t spare_cap = keys == j->keys ? j->scratch_cap : j->keys_cap;
    VEC_FREE(&t->flows);
    t->flows.v = (ml_flow *)(void *)*spare;
    t->flows.cap = spare_cap / sizeof *t->flows.v;
    *spare = NULL;
    finger fg = {t, cursor}; /* the counts' array, reused: each track's search starts at its first slice */
    for (size_t k = 0; k < nt; k++) cursor[k] = t->index->track_first[k];
    uint32_t prev = ML_NONE32;
    bool open = false, last_s = false;
    for (size_t i = 0; i < n; i++) {
        const flow_point *fp = point_at(ix, keys[i].idx);
        if (i == 0 || keys[i].cat != keys[i - 1].cat || keys[i].id != keys[i - 1].id) {
            open = false;
            last_s = false;
        }
        uint32_t at = fp->ph == 's' || fp->ph == 't' || fp->enclosing ? enclosing(&fg, fp->track, fp->ts)
                                                                       : next_slice(&fg, fp->track, fp->ts);
        if (fp->ph == 's') {
            prev = at;
            open = last_s = true;
        } else {
            ml_flow f = {keys[i].id, fp->cat, open ? prev : ML_NONE32, at}; /* (its id, exact) */
            VEC_PUSH(&t->flows, f);
            prev = at;
            open = fp->ph == 't';
            last_s = false;
        }
        bool group_ends = i + 1 == n || keys[i + 1].cat != keys[i].cat || keys[i + 1].id != keys[i].id;
        bool next_s = !group_ends && point_at(ix, keys[i + 1].idx)->ph == 's';
        if (last_s && (group_ends || next_s)) {
            ml_flow f = {keys[i].id, fp->cat, prev, ML_NONE32};
            VEC_PUSH(&t->flows, f);
            open = last_s = false;
        }
    }
    free(cursor);
    VEC_SHRINK(&t->flows); /* (the spare buffer's room past them: its pages go back, not kept to the end) */
    VEC_FREE(&t->index->points);
    VEC_FREE(&t->index->tail_points);
    VEC_FREE(&t->index->point_wide);
}

static void shift(int64_t *v, size_t n, int64_t by)
{
    if (by)
        for (size_t i = 0; i < n; i++) v[i] += by;
}

static void apply_meta(ml_trace *t)
{
    const meta_row *m = t->index->meta.v;
    for (size_t i = 0; i < t->index->meta.len; i++) {
        bool process = m[i].what == ML_META_PROCESS_NAME || m[i].what == ML_META_PROCESS_SORT;
        for (size_t k = 0; k < t->tracks.len; k++) {
            ml_track *tr = &t->tracks.v[k];
            if (tr->pid != m[i].pid || (!process && tr->tid != m[i].tid)) continue;
            switch (m[i].what) {
            case ML_META_PROCESS_NAME: tr->process_name = m[i].name; break;
            case ML_META_THREAD_NAME: tr->name = m[i].name; break;
            case ML_META_PROCESS_SORT: tr->process_sort = m[i].sort; break;
            case ML_META_THREAD_SORT: tr->thread_sort = m[i].sort; break;
            }
        }
    }
    VEC_FREE(&t->index->meta);
}


static void nest_and_bind_flows(void *arg)
{
    finish_task *j = arg;
    nest(j->t);
    bind_flows(j->t, j); /* reads parent */
}

/* Writes the launcher column and the counters and instants: nothing the
 * other task reads. */
static void link_launchers_and_sort_samples(void *arg)
{
    const finish_task *j = arg;
    ml_trace *t = j->t;
    link_launchers(t, j->pool);
    /* counters and instants by time (stable) */
    uint32_t *perm = ml_sort_perm_i64(t->counters.ts.v, t->counters.ts.len);
    if (perm) {
        size_t m = t->counters.ts.len;
        ml_permute(t->counters.ts.v, 8, perm, m);
        ml_permute(t->counters.value.v, 8, perm, m);
        ml_permute(t->counters.name.v, 4, perm, m);
        ml_permute(t->counters.key.v, 4, perm, m);
        ml_permute(t->counters.track.v, 4, perm, m);
        free(perm);
    }
    perm = ml_sort_perm_i64(t->instants.ts.v, t->instants.ts.len);
    if (perm) {
        size_t m = t->instants.ts.len;
        ml_permute(t->instants.ts.v, 8, perm, m);
        ml_permute(t->instants.name.v, 4, perm, m);
        ml_permute(t->instants.track.v, 4, perm, m);
        free(perm);
    }
}

void ml_trace_finish(ml_trace *t, int64_t base_ns)
{
    ml_trace_index *ix = t->index;
    if (ix->finished) return;
    ix->finished = true;
    t->base_ns = base_ns;
    ml_slices *s = &t->slices;
    shift(t->counters.ts.v, t->counters.ts.len, base_ns);
    shift(t->instants.ts.v, t->instants.ts.len, base_ns);
    for (size_t i = 0; i < ix->points.len; i++) ix->points.v[i].ts += base_ns;
    for (size_t i = 0; i < ix->tail_points.len; i++) ix->tail_points.v[i].ts += base_ns;
    apply_meta(t);
    /* The columns that the sort leaves behind make the next ones: no fresh
     * pages for what follows it (a page fault per 4 KiB). */
    ml_bufpool pool = {0};
    slice_span sl;
    bool any = sort_slices(t, &pool, base_ns, &sl); /* (adds the base to the slices) */

    /* span: what the importer saw, widened by everything stored */
    bool has = ix->has_span;
    int64_t b = ix->span_begin + base_ns, e = ix->span_end + base_ns;
#define WIDEN(lo, hi) do { if (!has || (lo) < b) b = (lo); if (!has || (hi) > e) e = (hi); has = true; } while (0)
    if (any) WIDEN(sl.begin, sl.end);
    for (size_t i = 0; i < t->counters.ts.len; i++) WIDEN(t->counters.ts.v[i], t->counters.ts.v[i]);
    for (size_t i = 0; i < t->instants.ts.len; i++) WIDEN(t->instants.ts.v[i], t->instants.ts.v[i]);
#undef WIDEN
    if (has) t->span_begin = b, t->span_end = e;
    size_t n = s->ts.len, cap;
#define TAKE_COLUMN(vec, count)                                                            \
    do {                                                                                   \
        VEC_FREE(&(vec));                                                                  \
        (vec).v = ml_pool_take(&pool, (count) * sizeof *(vec).v, &cap);                    \
        (vec).cap = cap / sizeof *(vec).v;                                                 \
    } while (0)
    TAKE_COLUMN(s->parent, n);
    TAKE_COLUMN(s->depth, n);
    TAKE_COLUMN(s->launcher, n);
    size_t np = ix->points.len + ix->tail_points.len;
    finish_task nest_task = {t, NULL, NULL, 0, 0, NULL}, link_task = {t, NULL, NULL, 0, 0, &pool};
    nest_task.keys = ml_pool_take(&pool, np * sizeof(flow_key), &nest_task.keys_cap);
    nest_task.scratch = ml_pool_take(&pool, np * sizeof(flow_key), &nest_task.scratch_cap);
    ml_par2(nest_and_bind_flows, &nest_task, link_launchers_and_sort_samples, &link_task);
    free(nest_task.keys);
    free(nest_task.scratch);
#undef TAKE_COLUMN
    ml_pool_clear(&pool);
    link_launchers_by_flows(t); /* reads the flows and the launchers both tasks wrote */
}


const ml_row_range *ml_trace_device_rows(const ml_trace *t, size_t *n)
{
    *n = t->index->device_rows.len;
    return t->index->device_rows.v;
}

void ml_track_slices(const ml_trace *t, uint32_t track, size_t *first, size_t *n)
{
    const uint32_t *f = t->index->track_first;
    if (!f || track >= t->tracks.len) {
        *first = *n = 0;
        return;
    }
    *first = f[track];
    *n = f[track + 1] - f[track];
}

size_t ml_trace_count_kind(const ml_trace *t, ml_slice_kind kind)
{
    size_t c = 0;
    for (size_t i = 0; i < t->slices.kind.len; i++) c += t->slices.kind.v[i] == kind;
    return c;
}
