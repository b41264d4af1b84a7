/* profile.c — building the shared model of one rank; see profile.h. */
#include "profile.h"
#include "pagerows.h"
#include "par.h"
#include "phase.h"
#include "sortperm.h"
#include "u64map.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Lookup tables that keep threads, frames and stacks unique. */
typedef struct ml_profile_index {
    /* (pid, tid) -> thread: open addressing over the pair of string ids */
    uint64_t *thread_keys;
    uint32_t *thread_vals;
    size_t thread_mask;
    /* frame (name, file, line) -> frame id */
    uint32_t *frame_slots;      /* frame id + 1, 0 = empty */
    size_t frame_mask;
    /* stack -> stack id (hash of frame ids) */
    uint32_t *stack_slots;      /* stack id + 1 */
    size_t stack_mask;
    /* The sparse columns are as sparse_grow() left them, zero beyond len, so
     * a push may leave a zero unwritten.  Set when the table's sparse columns
     * are grown (together), cleared by anything else that moves them
     * (ml_profile_append).  Events: aux, device, stack, stream (these two
     * unless lean); allocs: op, op_top, category, category_reason, flags,
     * device, stack and, when lean, addr, else stream. */
    bool ev_sparse_fresh, al_sparse_fresh;
} ml_profile_index;

ml_profile *ml_profile_new(const char *path, const char *format)
{
    ml_profile *p = ml_calloc(1, sizeof *p);
    p->path = ml_strdup(path ? path : "");
    p->format = format;
    p->caps.devkind = -1; /* the devices tell */
    p->rank = -1;
    p->world_size = -1;
    p->strings = ml_strpool_new();
    p->index = ml_calloc(1, sizeof *p->index);
    VEC_PUSH(&p->stack_start, 0); /* stack 0: empty */
    VEC_PUSH(&p->stack_start, 0);
    return p;
}

static void free_index(ml_profile *p)
{
    if (!p->index) return;
    free(p->index->thread_keys);
    free(p->index->thread_vals);
    free(p->index->frame_slots);
    free(p->index->stack_slots);
    free(p->index);
    p->index = NULL;
}

void ml_profile_free(ml_profile *p)
{
    if (!p) return;
    free_index(p);
    free(p->path);
    ml_strpool_free(p->strings);
    VEC_FREE(&p->devices);
    VEC_FREE(&p->thread_pid);
    VEC_FREE(&p->thread_tid);
    ml_events *ev = &p->events;
    ML_PAGEROWS_FREE(&ev->ts); ML_PAGEROWS_FREE(&ev->size); ML_PAGEROWS_FREE(&ev->addr); VEC_FREE(&ev->aux);
    ML_PAGEROWS_FREE(&ev->thread); VEC_FREE(&ev->stack); VEC_FREE(&ev->stream);
    VEC_FREE(&ev->device); ML_PAGEROWS_FREE(&ev->kind);
    ml_ops *op = &p->ops;
    VEC_FREE(&op->ts); VEC_FREE(&op->dur); VEC_FREE(&op->name); VEC_FREE(&op->thread); VEC_FREE(&op->kind);
    VEC_FREE(&p->frames);
    VEC_FREE(&p->stack_frames);
    VEC_FREE(&p->stack_start);
    for (size_t i = 0; i < p->series.len; i++) {
        ML_PAGEROWS_FREE(&p->series.v[i].ts);
        ML_PAGEROWS_FREE(&p->series.v[i].value);
        ML_PAGEROWS_FREE(&p->series.v[i].event);
    }
    VEC_FREE(&p->series);
    ml_allocs_clear(p);
    VEC_FREE(&p->segments);
    VEC_FREE(&p->blocks);
    VEC_FREE(&p->notes);
    ml_trace_free(p->trace);
    free(p);
}

/* ---- devices ---- */

uint16_t ml_device_get_type(ml_profile *p, int type, int index)
{
    ml_dev_kind kind = type >= 0 && type < ML_DEV_OTHER ? (ml_dev_kind)type : ML_DEV_OTHER;
    for (size_t i = 0; i < p->devices.len; i++)
        if (p->devices.v[i].type == type && p->devices.v[i].index == index) return (uint16_t)i;
    ml_device d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.type = type;
    d.index = index;
    d.total_memory = -1;
    d.cc_major = d.cc_minor = d.num_sms = d.max_threads_per_sm = -1;
    d.max_threads_per_block = d.regs_per_block = d.regs_per_sm = d.warp_size = -1;
    d.shared_mem_per_block = d.shared_mem_per_sm = -1;
    static const char *const names[ML_DEV_OTHER] = {
        "cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
        "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "npu"};
    if (kind == ML_DEV_CPU && index < 0) snprintf(d.id, sizeof d.id, "cpu");
    else if (kind == ML_DEV_OTHER) snprintf(d.id, sizeof d.id, "type%d:%d", type, index);
    else snprintf(d.id, sizeof d.id, "%s:%d", names[kind], index);
    VEC_PUSH(&p->devices, d);
    return (uint16_t)(p->devices.len - 1);
}

uint16_t ml_device_get(ml_profile *p, ml_dev_kind kind, int index) { return ml_device_get_type(p, (int)kind, index); }

/* cpu last; then by type number (= kind for named kinds) and index */
static bool device_before(const ml_device *a, const ml_device *b)
{
    if ((a->kind == ML_DEV_CPU) != (b->kind == ML_DEV_CPU)) return b->kind == ML_DEV_CPU;
    if (a->type != b->type) return a->type < b->type;
    return a->index < b->index;
}

void ml_device_order(const ml_profile *p, uint16_t *order)
{
    /* insertion sort: a profile has a handful of devices */
    for (size_t i = 0; i < p->devices.len; i++) {
        size_t j = i;
        for (; j > 0 && device_before(&p->devices.v[i], &p->devices.v[order[j - 1]]); j--) order[j] = order[j - 1];
        order[j] = (uint16_t)i;
    }
}

int ml_device_find(const ml_profile *p, const char *id)
{
    for (size_t i = 0; i < p->devices.len; i++)
        if (strcmp(p->devices.v[i].id, id) == 0) return (int)i;
    return -1;
}

/* ---- threads ---- */

uint32_t ml_thread_get(ml_profile *p, const char *pid, size_t pid_len, const char *tid, size_t tid_len)
{
    ml_profile_index *ix = p->index;
    ml_str a = ml_intern(p->strings, pid, pid_len), b = ml_intern(p->strings, tid, tid_len);
    uint64_t key = ((uint64_t)a << 32) | b;
    if (!ix->thread_keys) {
        ix->thread_mask = 255;
        ix->thread_keys = ml_calloc(256, sizeof *ix->thread_keys);
        ix->thread_vals = ml_calloc(256, sizeof *ix->thread_vals);
    }
    size_t j = ml_mix64(key) & ix->thread_mask;
    for (; ix->thread_vals[j]; j = (j + 1) & ix->thread_mask)
        if (ix->thread_keys[j] == key) return ix->thread_vals[j] - 1;
    uint32_t id = (uint32_t)p->thread_pid.len;
    VEC_PUSH(&p->thread_pid, a);
    VEC_PUSH(&p->thread_tid, b);
    ix->thread_keys[j] = key;
    ix->thread_vals[j] = id + 1;
    if (p->thread_pid.len * 2 > ix->thread_mask) {
        size_t n = (ix->thread_mask + 1) * 2;
        uint64_t *k2 = ml_calloc(n, sizeof *k2);
        uint32_t *v2 = ml_calloc(n, sizeof *v2);
        for (size_t i = 0; i <= ix->thread_mask; i++) {
            if (!ix->thread_vals[i]) continue;
            size_t q = ml_mix64(ix->thread_keys[i]) & (n - 1);
            while (v2[q]) q = (q + 1) & (n - 1);
            k2[q] = ix->thread_keys[i];
            v2[q] = ix->thread_vals[i];
        }
        free(ix->thread_keys);
        free(ix->thread_vals);
        ix->thread_keys = k2;
        ix->thread_vals = v2;
        ix->thread_mask = n - 1;
    }
    return id;
}

/* ---- events and ops ---- */

/* Sparse columns: columns whose rows are mostly zero in the largest inputs
 * (events' aux, which only OOM and annotation events use; allocs' op, op_top,
 * category, category_reason and flags: a snapshot's allocations have no
 * operators, categories come after the import, and few are flagged; the
 * device columns of an input with one device, index 0; a lean profile's
 * allocs addr; the stack and stream columns of events and allocs, which a
 * Kineto trace never fills).  They grow zeroed, through calloc, and a push leaves a zero
 * unwritten, so that their pages of zeros are never written: an untouched
 * page of a fresh mapping costs no memory (a gigabyte snapshot, 9M events
 * and 3M allocs: about 125 MB less at peak, and as many fewer page faults).
 * The old contents are copied a page at a time, pages of zeros skipped;
 * pages never touched (mincore: not resident) are not even read, since
 * reading one faults in the kernel's zero page: a gigabyte snapshot's growth
 * read ~150 MB of them, 40% of its page faults.  Whoever writes these
 * columns other than by a push keeps that: e.g. the snapshot importer maps
 * devices writing only the rows that change. */
static bool all_zero(const unsigned char *b, size_t n)
{
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        acc |= w;
    }
    for (; i < n; i++) acc |= b[i];
    return acc == 0;
}

/* Copies o[0, bytes) into the zeroed v but for its pages of zeros. */
static void copy_nonzero(unsigned char *v, const unsigned char *o, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE); /* (once per growth: cheap) */
    uintptr_t first = (uintptr_t)o & ~(uintptr_t)(page - 1), end = (uintptr_t)o + bytes;
    size_t pages = (end - first + page - 1) / page;
    unsigned char *resident = bytes >= 16 * page ? malloc(pages) : NULL;
    if (resident && mincore((void *)first, end - first, resident) != 0) {
        free(resident);
        resident = NULL;
    }
    for (size_t i = 0; i < pages; i++) {
        if (resident && !(resident[i] & 1)) continue; /* never touched: zeros */
        uintptr_t a = first + i * page, b = a + page;
        if (a < (uintptr_t)o) a = (uintptr_t)o;
        if (b > end) b = end;
        const unsigned char *from = (const unsigned char *)a;
        if (!all_zero(from, b - a)) memcpy(v + (from - o), from, b - a);
    }
    free(resident);
}

static void *sparse_grow(void *old, size_t len, size_t cap, size_t elem)
{
    unsigned char *v = ml_calloc(cap, elem);
    if (old && len) copy_nonzero(v, old, len * elem);
    free(old);
    return v;
}

/* The capacity VEC_RESERVE would give for n rows. */
static size_t grown_cap(size_t cap, size_t n)
{
    size_t c = cap ? cap * 2 : 16;
    while (c < n) c *= 2;
    return c;
}

#define SPARSE_RESERVE(a, n, cap_)                                                          \
    do {                                                                                   \
        (a)->v = sparse_grow((a)->v, (a)->len, (cap_), sizeof *(a)->v);                    \
        (a)->cap = (cap_);                                                                 \
    } while (0)

/* The columns are only ever pushed together, so they grow together: one
 * capacity check per event (a snapshot pushes 10M). */
static void events_grow(ml_profile *p, size_t n)
{
    ml_events *ev = &p->events;
    ML_PAGEROWS_RESERVE(&ev->ts, n); ML_PAGEROWS_RESERVE(&ev->size, n); ML_PAGEROWS_RESERVE(&ev->kind, n);
    if (!p->lean) {
        ML_PAGEROWS_RESERVE(&ev->addr, n); ML_PAGEROWS_RESERVE(&ev->thread, n);
    }
    size_t cap = ev->aux.cap;
    if (n > cap || ev->device.cap != cap || (!p->lean && (ev->stack.cap != cap || ev->stream.cap != cap))) {
        cap = grown_cap(cap, n);
        SPARSE_RESERVE(&ev->aux, n, cap);
        SPARSE_RESERVE(&ev->device, n, cap);
        if (!p->lean) {
            SPARSE_RESERVE(&ev->stack, n, cap);
            SPARSE_RESERVE(&ev->stream, n, cap);
        }
        p->index->ev_sparse_fresh = true;
    }
}

void ml_event_push(ml_profile *p, const ml_event *e)
{
    ml_events *ev = &p->events;
    size_t i = ev->ts.len;
    if (i == ev->ts.cap || i == ev->aux.cap || i == ev->device.cap || (!p->lean && i == ev->stack.cap))
        events_grow(p, i + 1);
    ev->ts.v[i] = e->ts;
    ev->size.v[i] = e->size;
    bool zeroed = p->index->ev_sparse_fresh;
    if (e->aux || !zeroed) ev->aux.v[i] = e->aux;
    if (e->device || !zeroed) ev->device.v[i] = e->device;
    ev->kind.v[i] = e->kind;
    ev->ts.len = ev->size.len = ev->aux.len = ev->device.len = ev->kind.len = i + 1;
    if (p->lean) return;
    ev->addr.v[i] = e->addr;
    ev->thread.v[i] = e->thread;
    if (e->stack || !zeroed) ev->stack.v[i] = e->stack;
    if (e->stream || !zeroed) ev->stream.v[i] = e->stream;
    ev->addr.len = ev->thread.len = ev->stack.len = ev->stream.len = i + 1;
}

void ml_profile_reserve(ml_profile *p, size_t events, size_t ops)
{
    if (events > p->events.ts.cap) events_grow(p, events);
    ml_ops *op = &p->ops;
    VEC_RESERVE(&op->ts, ops); VEC_RESERVE(&op->dur, ops); VEC_RESERVE(&op->name, ops); VEC_RESERVE(&op->thread, ops);
    VEC_RESERVE(&op->kind, ops);
}

void ml_op_push(ml_profile *p, int64_t ts, int64_t dur, ml_str name, uint32_t thread, ml_op_kind kind)
{
    ml_ops *op = &p->ops;
    VEC_PUSH(&op->ts, ts);
    VEC_PUSH(&op->dur, dur < 0 ? 0 : dur);
    VEC_PUSH(&op->name, name);
    VEC_PUSH(&op->thread, thread);
    VEC_PUSH(&op->kind, (uint8_t)kind);
}

/* ---- frames and stacks ---- */

static uint64_t frame_hash(const ml_frame *f)
{
    return ml_mix64(((uint64_t)f->name << 32) ^ ((uint64_t)f->file << 7) ^ (uint32_t)f->line);
}

static void rehash_slots(uint32_t **slots, size_t *mask, size_t count,
                         uint64_t (*hash_of)(const ml_profile *, uint32_t), const ml_profile *p)
{
    if (*slots && count * 2 <= *mask) return;
    size_t n = *slots ? (*mask + 1) * 2 : 1024;
    uint32_t *t = ml_calloc(n, sizeof *t);
    for (uint32_t id = 0; id < count; id++) {
        size_t j = hash_of(p, id) & (n - 1);
        while (t[j]) j = (j + 1) & (n - 1);
        t[j] = id + 1;
    }
    free(*slots);
    *slots = t;
    *mask = n - 1;
}

static uint64_t frame_hash_id(const ml_profile *p, uint32_t id) { return frame_hash(&p->frames.v[id]); }

uint32_t ml_frame_get(ml_profile *p, ml_str name, ml_str file, int32_t line)
{
    ml_profile_index *ix = p->index;
    ml_frame f = {name, file, line};
    rehash_slots(&ix->frame_slots, &ix->frame_mask, p->frames.len, frame_hash_id, p);
    size_t j = frame_hash(&f) & ix->frame_mask;
    for (uint32_t s; (s = ix->frame_slots[j]) != 0; j = (j + 1) & ix->frame_mask) {
        const ml_frame *g = &p->frames.v[s - 1];
        if (g->name == name && g->file == file && g->line == line) return s - 1;
    }
    VEC_PUSH(&p->frames, f);
    ix->frame_slots[j] = (uint32_t)p->frames.len;
    return (uint32_t)p->frames.len - 1;
}

/* A multiply per two frames and one final mix (see profile.h): snapshots hash
 * millions of stacks of ~50 frames, and equal stacks are compared in full, so
 * this need not be strong. */
static uint64_t frames_hash(const uint32_t *frames, size_t n)
{
    uint64_t h = n;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) h = ml_stack_hash_step(h, frames[i] | (uint64_t)frames[i + 1] << 32);
    if (i < n) h = ml_stack_hash_step(h, frames[i]);
    return ml_stack_hash_end(h);
}

static uint64_t stack_hash_id(const ml_profile *p, uint32_t id)
{
    return frames_hash(ml_stack_frames(p, id), ml_stack_depth(p, id));
}

size_t ml_stack_depth(const ml_profile *p, uint32_t stack)
{
    if (stack + 1 >= p->stack_start.len) return 0;
    return p->stack_start.v[stack + 1] - p->stack_start.v[stack];
}

const uint32_t *ml_stack_frames(const ml_profile *p, uint32_t stack)
{
    static const uint32_t none[1];
    return p->stack_frames.v ? p->stack_frames.v + p->stack_start.v[stack] : none;
}

uint32_t ml_stack_get(ml_profile *p, const uint32_t *frames, size_t n)
{
    return n ? ml_stack_get_hashed(p, frames, n, frames_hash(frames, n)) : 0;
}

uint32_t ml_stack_get_hashed(ml_profile *p, const uint32_t *frames, size_t n, uint64_t hash)
{
    if (n == 0) return 0;
    ml_profile_index *ix = p->index;
    size_t nstacks = p->stack_start.len - 1;
    rehash_slots(&ix->stack_slots, &ix->stack_mask, nstacks, stack_hash_id, p);
    size_t j = hash & ix->stack_mask;
    for (uint32_t s; (s = ix->stack_slots[j]) != 0; j = (j + 1) & ix->stack_mask) {
        uint32_t id = s - 1;
        if (ml_stack_depth(p, id) == n && memcmp(ml_stack_frames(p, id), frames, n * sizeof *frames) == 0)
            return id;
    }
    for (size_t i = 0; i < n; i++) VEC_PUSH(&p->stack_frames, frames[i]);
    VEC_PUSH(&p->stack_start, (uint32_t)p->stack_frames.len);
    ix->stack_slots[j] = (uint32_t)nstacks + 1;
    return (uint32_t)nstacks;
}

/* ---- series ---- */

ml_series *ml_series_get(ml_profile *p, uint16_t device, ml_series_kind kind, ml_str component, ml_str stream)
{
    for (size_t i = 0; i < p->series.len; i++) {
        ml_series *s = &p->series.v[i];
        if (s->device == device && s->kind == kind && s->component == component && s->stream == stream) return s;
    }
    ml_series s;
    memset(&s, 0, sizeof s);
    s.device = device;
    s.kind = (uint8_t)kind;
    s.component = component;
    s.stream = stream;
    VEC_PUSH(&p->series, s);
    return &p->series.v[p->series.len - 1];
}

void ml_series_push(ml_series *s, int64_t ts, int64_t value)
{
    ML_PAGEROWS_PUSH(&s->ts, ts);
    ML_PAGEROWS_PUSH(&s->value, value);
}

void ml_series_push_event(ml_series *s, int64_t ts, int64_t value, uint32_t event)
{
    /* Points pushed before without an event get ML_NONE32, keeping the columns in step. */
    while (s->event.len < s->ts.len) ML_PAGEROWS_PUSH(&s->event, ML_NONE32);
    ml_series_push(s, ts, value);
    ML_PAGEROWS_PUSH(&s->event, event);
}

void ml_series_push_sampled(bool drop_repeats, ml_series *s, int64_t ts, int64_t value, uint32_t event)
{
    size_t n = s->ts.len;
    if (n && ts < s->last_ts) s->unsorted = true;
    s->last_ts = ts;
    if (n && drop_repeats && !s->unsorted && value == s->value.v[n - 1]) {
        s->dropped = true;
        return;
    }
    ml_series_push_event(s, ts, value, event);
}

bool ml_series_dropped_unsorted(const ml_profile *p)
{
    for (size_t i = 0; i < p->series.len; i++)
        if (p->series.v[i].dropped && p->series.v[i].unsorted) return true;
    return false;
}

/* ---- allocs ---- */

/* Like the events, the alloc columns are only pushed together: one check.
 * op, op_top, category, category_reason, flags, device (and addr when lean)
 * are sparse (see above). */
static void allocs_grow(ml_profile *p, size_t n)
{
    ml_allocs *a = &p->allocs;
    VEC_RESERVE(&a->t_alloc, n); VEC_RESERVE(&a->t_free, n);
    VEC_RESERVE(&a->ev_alloc, n); VEC_RESERVE(&a->ev_free, n); VEC_RESERVE(&a->size, n);
    if (!p->lean) {
        VEC_RESERVE(&a->t_free_req, n); VEC_RESERVE(&a->addr, n); VEC_RESERVE(&a->thread, n);
    }
    size_t cap = a->op.cap;
    if (n > cap || a->op_top.cap != cap || a->category.cap != cap || a->category_reason.cap != cap ||
        a->flags.cap != cap || a->device.cap != cap || a->stack.cap != cap || (p->lean && a->addr.cap != cap) ||
        (!p->lean && a->stream.cap != cap)) {
        cap = grown_cap(cap, n);
        SPARSE_RESERVE(&a->op, n, cap); SPARSE_RESERVE(&a->op_top, n, cap); SPARSE_RESERVE(&a->category, n, cap);
        SPARSE_RESERVE(&a->category_reason, n, cap); SPARSE_RESERVE(&a->flags, n, cap);
        SPARSE_RESERVE(&a->device, n, cap);
        SPARSE_RESERVE(&a->stack, n, cap);
        if (p->lean) SPARSE_RESERVE(&a->addr, n, cap);
        else SPARSE_RESERVE(&a->stream, n, cap);
        p->index->al_sparse_fresh = true;
    }
}

size_t ml_alloc_push(ml_profile *p, const ml_alloc_row *r)
{
    ml_allocs *a = &p->allocs;
    size_t i = a->t_alloc.len;
    if (i == a->t_alloc.cap || i == a->op.cap || i == a->device.cap) allocs_grow(p, i + 1);
    a->t_alloc.v[i] = r->t_alloc;
    a->t_free.v[i] = r->t_free;
    a->ev_alloc.v[i] = r->ev_alloc;
    a->ev_free.v[i] = r->ev_free;
    a->size.v[i] = r->size;
    bool zeroed = p->index->al_sparse_fresh;
    if (r->stack || !zeroed) a->stack.v[i] = r->stack;
    if (p->lean) { /* addr of the allocations never freed only (ml_matcher_end writes those it closes) */
        if ((r->flags & ML_ALLOC_NEVER_FREED) || !zeroed) a->addr.v[i] = r->addr;
    } else {
        a->t_free_req.v[i] = r->t_free_req;
        a->addr.v[i] = r->addr;
        a->thread.v[i] = r->thread;
        if (r->stream || !zeroed) a->stream.v[i] = r->stream;
        a->t_free_req.len = a->thread.len = a->stream.len = i + 1;
    }
    if (r->op || !zeroed) a->op.v[i] = r->op;
    if (r->op_top || !zeroed) a->op_top.v[i] = r->op_top;
    if (r->category || !zeroed) a->category.v[i] = r->category;
    if (r->category_reason || !zeroed) a->category_reason.v[i] = r->category_reason;
    if (r->flags || !zeroed) a->flags.v[i] = r->flags;
    if (r->device || !zeroed) a->device.v[i] = r->device;
    a->t_alloc.len = a->t_free.len = a->ev_alloc.len = a->ev_free.len = a->size.len = a->addr.len =
        a->device.len = a->stack.len = a->op.len = a->op_top.len = a->category.len = a->category_reason.len =
        a->flags.len = i + 1;
    return i;
}

void ml_allocs_clear(ml_profile *p)
{
    ml_allocs *a = &p->allocs;
    VEC_FREE(&a->t_alloc); VEC_FREE(&a->t_free); VEC_FREE(&a->t_free_req);
    VEC_FREE(&a->ev_alloc); VEC_FREE(&a->ev_free); VEC_FREE(&a->size); VEC_FREE(&a->addr);
    VEC_FREE(&a->device); VEC_FREE(&a->thread); VEC_FREE(&a->stack); VEC_FREE(&a->stream);
    VEC_FREE(&a->op); VEC_FREE(&a->op_top); VEC_FREE(&a->category); VEC_FREE(&a->category_reason);
    VEC_FREE(&a->flags);
    p->allocs_matched = false;
    p->allocs_reused = 0;
}

size_t ml_allocs_count(const ml_profile *p) { return p->allocs.t_alloc.len; }

void ml_note(ml_profile *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ml_str id = ml_intern_cstr(p->strings, buf);
    for (size_t i = 0; i < p->notes.len; i++)
        if (p->notes.v[i] == id) return;
    VEC_PUSH(&p->notes, id);
}

/* ---- appending one profile to another ---- */

static uint32_t map_index(const uint32_t *map, uint32_t i) { return i == ML_NONE32 ? ML_NONE32 : map[i]; }

/* Appends column `from` to column `to`, each element x becoming `expr`, and
 * frees `from`. */
#define COL_MOVE(to, from, expr)                                               \
    do {                                                                       \
        size_t n_ = (from)->len, at_ = (to)->len;                              \
        VEC_RESERVE(to, at_ + n_);                                             \
        for (size_t j_ = 0; j_ < n_; j_++) {                                   \
            __typeof__(*(from)->v) x = (from)->v[j_];                          \
            (to)->v[at_ + j_] = (expr);                                        \
        }                                                                      \
        (to)->len = at_ + n_;                                                  \
        VEC_FREE(from);                                                        \
    } while (0)

/* Appends the n values of the sparse column `from` (elem bytes each, read
 * as unsigned) to the column `to` at row `at`, each x becoming map[x] (map
 * NULL: x itself).  to's rows from `at` on are zero when `zeroed`: then
 * (unless map[0] is not zero) only the values that are not zero are
 * written, and only the pages of `from` that were ever touched are read
 * (mincore: an untouched page is zeros, and reading it would fault in the
 * zero page). */
static void sparse_append(void *to, size_t at, const void *from, size_t n, size_t elem, const uint32_t *map,
                          bool zeroed)
{
    unsigned char *dst = (unsigned char *)to + at * elem;
    const unsigned char *src = from;
    zeroed = zeroed && (!map || map[0] == 0); /* else every zero becomes something */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = n * elem;
    uintptr_t first = (uintptr_t)src & ~(uintptr_t)(page - 1);
    size_t pages = bytes ? ((uintptr_t)src + bytes - first + page - 1) / page : 0;
    unsigned char *resident = zeroed && bytes >= 16 * page ? malloc(pages) : NULL;
    if (resident && mincore((void *)first, (uintptr_t)src + bytes - first, resident) != 0) {
        free(resident);
        resident = NULL;
    }
    for (size_t i = 0; i < n;) {
        if (resident) { /* a page never touched: skip its rows */
            size_t pg = ((uintptr_t)(src + i * elem) - first) / page;
            if (!(resident[pg] & 1)) {
                size_t next = (first + (pg + 1) * page - (uintptr_t)src + elem - 1) / elem;
                i = next > i ? next : i + 1;
                continue;
            }
        }
        uint64_t x = 0;
        switch (elem) {
        case 1: x = src[i]; break;
        case 2: { uint16_t v; memcpy(&v, src + 2 * i, 2); x = v; break; }
        case 4: { uint32_t v; memcpy(&v, src + 4 * i, 4); x = v; break; }
        default: memcpy(&x, src + 8 * i, 8);
        }
        if (map) x = map[x];
        if (x || !zeroed) {
            switch (elem) {
            case 1: dst[i] = (unsigned char)x; break;
            case 2: { uint16_t v = (uint16_t)x; memcpy(dst + 2 * i, &v, 2); break; }
            case 4: { uint32_t v = (uint32_t)x; memcpy(dst + 4 * i, &v, 4); break; }
            default: memcpy(dst + 8 * i, &x, 8);
            }
        }
        i++;
    }
    free(resident);
}

/* Moves the sparse column `from` to the end of `to` (see sparse_append),
 * whose capacity is at least its rows and from's. */
#define SPARSE_MOVE(to, from, map, zeroed)                                                       do {                                                                                             sparse_append((to)->v, (to)->len, (from)->v, (from)->len, sizeof *(from)->v, (map), (zeroed));         (to)->len += (from)->len;                                                                    VEC_FREE(from);                                                                          } while (0)

typedef struct append_job {
    ml_profile *dst, *src;
    const ml_str *smap;
    const uint32_t *dmap, *tmap, *kmap;
    uint32_t ev_base;               /* dst's events before the append: src's event i becomes ev_base + i */
} append_job;

/* The memory side's tables, from src to dst, in two parts that share
 * nothing (each on a core when there is no time side to append beside):
 * the events; the ops, series, allocs and the rest.  The big tables move
 * column by column, each source column freed as soon as it is copied, so
 * that the two halves of a large file never need twice their memory at once. */
static void append_events(void *arg)
{
    const append_job *job = arg;
    ml_profile *dst = job->dst, *src = job->src;
    const ml_str *smap = job->smap;
    const uint32_t *dmap = job->dmap, *tmap = job->tmap, *kmap = job->kmap;
    ml_events *ev = &src->events, *dev = &dst->events;
    for (size_t i = 0; i < ev->aux.len; i++)
        if (ev->kind.v[i] == ML_EV_ANNOTATE) ev->aux.v[i] = smap[ev->aux.v[i]]; /* aux holds interned text there */
    /* the dense columns by their pages (pagerows.h): src's rows are not written again */
    for (size_t i = 0; i < ev->thread.len; i++) ev->thread.v[i] = map_index(tmap, ev->thread.v[i]);
    ML_PAGEROWS_APPEND(&dev->ts, &ev->ts);
    ML_PAGEROWS_APPEND(&dev->size, &ev->size);
    ML_PAGEROWS_APPEND(&dev->addr, &ev->addr);
    ML_PAGEROWS_APPEND(&dev->thread, &ev->thread);
    ML_PAGEROWS_APPEND(&dev->kind, &ev->kind);
    /* The sparse columns grow together (events_grow), zeroed, so that only
     * what is not zero is written (a realloc would leave garbage). */
    bool ev_zeroed = dst->index->ev_sparse_fresh;
    size_t ev_rows = dev->aux.len + ev->aux.len, ev_cap = dev->aux.cap;
    bool ev_full = !dst->lean && !src->lean; /* stack and stream are kept */
    if (ev_rows > ev_cap || dev->device.cap != ev_cap || (ev_full && (dev->stack.cap != ev_cap || dev->stream.cap != ev_cap))) {
        ev_cap = grown_cap(ev_cap, ev_rows);
        SPARSE_RESERVE(&dev->aux, ev_rows, ev_cap);
        SPARSE_RESERVE(&dev->device, ev_rows, ev_cap);
        if (ev_full) {
            SPARSE_RESERVE(&dev->stack, ev_rows, ev_cap);
            SPARSE_RESERVE(&dev->stream, ev_rows, ev_cap);
        }
        ev_zeroed = true;
    }
    SPARSE_MOVE(&dev->aux, &ev->aux, NULL, ev_zeroed);
    SPARSE_MOVE(&dev->device, &ev->device, dmap, ev_zeroed);
    if (ev_full) {
        SPARSE_MOVE(&dev->stack, &ev->stack, kmap, ev_zeroed);
        SPARSE_MOVE(&dev->stream, &ev->stream, (const uint32_t *)smap, ev_zeroed);
    } else {
        COL_MOVE(&dev->stack, &ev->stack, kmap[x]);
        COL_MOVE(&dev->stream, &ev->stream, smap[x]);
    }
    dst->index->ev_sparse_fresh = ev_zeroed;
}

static void append_the_others(void *arg)
{
    const append_job *job = arg;
    ml_profile *dst = job->dst, *src = job->src;
    const ml_str *smap = job->smap;
    const uint32_t *dmap = job->dmap, *tmap = job->tmap, *kmap = job->kmap;
    uint32_t ev_base = job->ev_base;
    ml_ops *op = &src->ops, *dop = &dst->ops;
    COL_MOVE(&dop->ts, &op->ts, x);
    COL_MOVE(&dop->dur, &op->dur, x);
    COL_MOVE(&dop->name, &op->name, smap[x]);
    COL_MOVE(&dop->thread, &op->thread, map_index(tmap, x));
    COL_MOVE(&dop->kind, &op->kind, x);

    for (size_t i = 0; i < src->series.len; i++) {
        ml_series *from = &src->series.v[i];
        ml_series *to = ml_series_get(dst, (uint16_t)dmap[from->device], (ml_series_kind)from->kind,
                                      smap[from->component], smap[from->stream]);
        to->sampled |= from->sampled;
        /* (in time order across the halves too: from's first point is one it kept) */
        if (from->ts.len && (to->ts.len || to->dropped) && from->ts.v[0] < to->last_ts) to->unsorted = true;
        if (from->ts.len || from->dropped) to->last_ts = from->last_ts;
        to->unsorted |= from->unsorted;
        to->dropped |= from->dropped;
        /* keep the event column in step with the points when either side has one */
        if (from->event.len || to->event.len) {
            while (to->event.len < to->ts.len) ML_PAGEROWS_PUSH(&to->event, ML_NONE32);
            while (from->event.len < from->ts.len) ML_PAGEROWS_PUSH(&from->event, ML_NONE32);
        }
        /* by their pages (pagerows.h), the event ids mapped in place first */
        for (size_t j = 0; j < from->event.len; j++)
            if (from->event.v[j] != ML_NONE32) from->event.v[j] += ev_base;
        ML_PAGEROWS_APPEND(&to->ts, &from->ts);
        ML_PAGEROWS_APPEND(&to->value, &from->value);
        ML_PAGEROWS_APPEND(&to->event, &from->event);
    }

    ml_allocs *a = &src->allocs, *da = &dst->allocs;
    COL_MOVE(&da->t_alloc, &a->t_alloc, x);
    COL_MOVE(&da->t_free, &a->t_free, x);
    COL_MOVE(&da->t_free_req, &a->t_free_req, x);
    COL_MOVE(&da->ev_alloc, &a->ev_alloc, x == ML_NONE32 ? ML_NONE32 : x + ev_base);
    COL_MOVE(&da->ev_free, &a->ev_free, x == ML_NONE32 ? ML_NONE32 : x + ev_base);
    COL_MOVE(&da->size, &a->size, x);
    COL_MOVE(&da->addr, &a->addr, x);
    COL_MOVE(&da->device, &a->device, (uint16_t)dmap[x]);
    COL_MOVE(&da->thread, &a->thread, map_index(tmap, x));
    COL_MOVE(&da->stack, &a->stack, kmap[x]);
    COL_MOVE(&da->stream, &a->stream, smap[x]);
    COL_MOVE(&da->op, &a->op, smap[x]);
    COL_MOVE(&da->op_top, &a->op_top, smap[x]);
    COL_MOVE(&da->category, &a->category, x);
    COL_MOVE(&da->category_reason, &a->category_reason, x);
    COL_MOVE(&da->flags, &a->flags, x);
    /* COL_MOVE grew the allocs' sparse columns by realloc: what lies beyond
     * their rows is no longer known to be zero, so pushes write every value
     * again.  (A profile read in two halves has no allocs before the match.) */
    dst->index->al_sparse_fresh = false;
    uint32_t seg_base = (uint32_t)dst->segments.len, block_base = (uint32_t)dst->blocks.len;
    for (size_t i = 0; i < src->segments.len; i++) {
        ml_segment g = src->segments.v[i];
        g.device = (uint16_t)dmap[g.device];
        g.stream = smap[g.stream];
        g.segment_type = smap[g.segment_type];
        g.pool_id = smap[g.pool_id];
        g.stack = kmap[g.stack];
        g.first_block += block_base;
        VEC_PUSH(&dst->segments, g);
    }
    for (size_t i = 0; i < src->blocks.len; i++) {
        ml_block b = src->blocks.v[i];
        b.stack = kmap[b.stack];
        b.segment += seg_base;
        VEC_PUSH(&dst->blocks, b);
    }
    for (size_t i = 0; i < src->notes.len; i++) ml_note(dst, "%s", ml_s(src, src->notes.v[i]));
}

static void append_memory_tables(void *arg)
{
    append_events(arg);
    append_the_others(arg);
}

/* The time side (after the devices: stream tracks name theirs). */
static void append_trace(void *arg)
{
    const append_job *job = arg;
    if (!job->src->trace) return;
    ml_trace_append(job->dst->trace, job->src->trace, job->smap, job->dmap, job->src->devices.len);
}

void ml_profile_append(ml_profile *dst, ml_profile *src)
{
    size_t nstr = ml_strpool_count(src->strings);
    ml_str *smap = ml_malloc(nstr * sizeof *smap);
    for (size_t i = 0; i < nstr; i++)
        smap[i] = ml_intern(dst->strings, ml_strget(src->strings, (ml_str)i), ml_strlen(src->strings, (ml_str)i));

    uint32_t *dmap = ml_malloc((src->devices.len + 1) * sizeof *dmap);
    for (size_t i = 0; i < src->devices.len; i++) {
        const ml_device *d = &src->devices.v[i];
        dmap[i] = ml_device_get_type(dst, d->type, d->index);
        ml_device *to = &dst->devices.v[dmap[i]];
        if (!to->name && d->name) to->name = smap[d->name];
        if (to->total_memory < 0) to->total_memory = d->total_memory;
    }
    uint32_t *tmap = ml_malloc((src->thread_pid.len + 1) * sizeof *tmap);
    for (size_t i = 0; i < src->thread_pid.len; i++) {
        ml_str pid = smap[src->thread_pid.v[i]], tid = smap[src->thread_tid.v[i]];
        tmap[i] = ml_thread_get(dst, ml_s(dst, pid), ml_strlen(dst->strings, pid), ml_s(dst, tid),
                                ml_strlen(dst->strings, tid));
    }
    uint32_t *fmap = ml_malloc((src->frames.len + 1) * sizeof *fmap);
    for (size_t i = 0; i < src->frames.len; i++) {
        const ml_frame *f = &src->frames.v[i];
        fmap[i] = ml_frame_get(dst, smap[f->name], smap[f->file], f->line);
    }
    size_t nstacks = src->stack_start.len - 1;
    uint32_t *kmap = ml_malloc((nstacks + 1) * sizeof *kmap);
    VEC(uint32_t) frames = {0};
    for (size_t i = 0; i < nstacks; i++) {
        size_t depth = ml_stack_depth(src, (uint32_t)i);
        const uint32_t *fr = ml_stack_frames(src, (uint32_t)i);
        frames.len = 0;
        for (size_t j = 0; j < depth; j++) VEC_PUSH(&frames, fmap[fr[j]]);
        kmap[i] = ml_stack_get(dst, frames.v, frames.len);
    }
    VEC_FREE(&frames);

    if (src->trace && !dst->trace) dst->trace = ml_trace_new();
    /* The two sides share nothing from here on (src's strings are mapped). */
    append_job job = {dst, src, smap, dmap, tmap, kmap, (uint32_t)dst->events.ts.len};
    if (src->trace) ml_par2(append_memory_tables, &job, append_trace, &job);
    else ml_par2(append_events, &job, append_the_others, &job);
    dst->has_addresses |= src->has_addresses;
    if (dst->rank < 0) dst->rank = src->rank;
    if (dst->world_size < 0) dst->world_size = src->world_size;
    if (!dst->base_time_ns) dst->base_time_ns = src->base_time_ns;
    free(smap);
    free(dmap);
    free(tmap);
    free(fmap);
    free(kmap);
}

int64_t ml_profile_first_time(const ml_profile *p)
{
    int64_t t = INT64_MAX;
    if (p->events.ts.len && p->events.ts.v[0] != ML_TIME_NONE && p->events.ts.v[0] < t) t = p->events.ts.v[0];
    if (p->ops.ts.len && p->ops.ts.v[0] < t) t = p->ops.ts.v[0];
    if (p->trace && p->trace->slices.ts.len && p->trace->span_begin < t) t = p->trace->span_begin;
    for (size_t s = 0; s < p->series.len; s++)
        if (p->series.v[s].ts.len && p->series.v[s].ts.v[0] < t) t = p->series.v[s].ts.v[0];
    for (size_t i = 0; i < p->allocs.t_alloc.len; i++) {
        if (!(p->allocs.flags.v[i] & ML_ALLOC_BEFORE_TRACE) && p->allocs.t_alloc.v[i] < t) t = p->allocs.t_alloc.v[i];
        if (!(p->allocs.flags.v[i] & ML_ALLOC_NEVER_FREED) && p->allocs.t_free.v[i] < t) t = p->allocs.t_free.v[i];
    }
    return t;
}
