/*
 * kineto.c — importer for PyTorch / Kineto Chrome traces (*.pt.trace.json[.gz]):
 * the document around the event list, and the profile each event fills
 * (the events are read by kineto_event.c, big files split by kineto_split.c;
 * kineto_int.h draws the parts).
 *
 * One streaming pass over the JSON: `[memory]` and `[OutOfMemory]` instant
 * events become allocator events (and their Total Allocated / Total Reserved
 * become the device's curves), `cpu_op` / `user_annotation` /
 * `python_function` intervals become ops; everything else (kernels, runtime
 * calls, flows) is skipped without being decoded, unless the command wants
 * the time side (p->trace, needs.time): then every slice (X, B/E), flow
 * point (s/t/f), counter (C), instant (i, other than [memory]) and M name
 * goes into the trace store too, with the args the analyses read (see
 * trace_args in kineto_int.h, kineto_args.h).  Handles every vintage:
 * old traces without `cat`, `Addr` or totals, string or numeric pid/tid/ts,
 * `baseTimeNanoseconds` (ts relative to it), B/E pairs as well as X events,
 * and a file cut inside (or right after) its event list.  Times and sizes of
 * 2^62 or more cannot be real and are refused (profile.h).
 */
#include "kineto_int.h"
#include "decimal.h"

#include <limits.h>
#include "par.h"
#include "u64map.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static size_t skip_bom_and_blanks(const char *h, size_t n)
{
    size_t i = n >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < n && (h[i] == ' ' || h[i] == '\n' || h[i] == '\r' || h[i] == '\t')) i++;
    return i;
}

int ml_kineto_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    const char *h = (const char *)head;
    size_t i = skip_bom_and_blanks(h, n);
    if (i == n || (h[i] != '{' && h[i] != '[')) return 0;
    if (memmem(h, n, "\"traceEvents\"", 13)) return 90;
    if (memmem(h, n, "\"ph\"", 4)) return 70;     /* a bare event array */
    if (memmem(h, n, "\"schemaVersion\"", 15) || memmem(h, n, "\"deviceProperties\"", 18)) return 60;
    return 0;
}

bool ml_kineto_may_be(const unsigned char *head, size_t n)
{
    size_t i = skip_bom_and_blanks((const char *)head, n);
    return i < n && (head[i] == '{' || head[i] == '[');
}

/* ---- small value readers ---- */

/* Whether an id text equals a remembered one: both are NUL-padded to 16
 * bytes at least (fields_reset, id_memo_put), so a short one is two word
 * compares. */
static inline bool same_id(const char *a, size_t a_len, const char *b, size_t b_len)
{
    if (a_len != b_len) return false;
    if (a_len > 16) return memcmp(a, b, a_len) == 0;
    uint64_t x[2], y[2];
    memcpy(x, a, 16);
    memcpy(y, b, 16);
    return x[0] == y[0] && x[1] == y[1];
}

/* Whether memo entry m holds f's (pid, tid). */
static inline bool id_memo_is(const struct id_memo *m, const event_fields *f)
{
    return m->id != ML_NONE32 && same_id(f->tid, f->tid_len, m->tid, m->tid_len) &&
           same_id(f->pid, f->pid_len, m->pid, m->pid_len);
}

/* memo[TRACK_MEMO] remembers the last (pid, tid) texts seen and what they
 * map to (a thread, a track): the entry of f's, or NULL; *last is set to it. */
static inline const struct id_memo *id_memo_find(const struct id_memo *memo, unsigned *last, const event_fields *f)
{
    for (unsigned i = 0; i < TRACK_MEMO; i++)
        if (id_memo_is(&memo[i], f)) {
            *last = i;
            return &memo[i];
        }
    return NULL;
}

/* Remembers f's (pid, tid) as id, in place of the oldest entry (then the last one found). */
static void id_memo_put(struct id_memo *memo, unsigned *next, unsigned *last, const event_fields *f, uint32_t id)
{
    *last = *next % TRACK_MEMO;
    struct id_memo *m = &memo[(*next)++ % TRACK_MEMO];
    m->id = id;
    memset(m->pid, 0, sizeof m->pid);
    memset(m->tid, 0, sizeof m->tid);
    memcpy(m->pid, f->pid, f->pid_len);
    memcpy(m->tid, f->tid, f->tid_len);
    m->pid_len = (uint8_t)f->pid_len;
    m->tid_len = (uint8_t)f->tid_len;
}

/* The profile's thread of (pid, tid), past the entry found last. */
static __attribute__((noinline)) uint32_t thread_lookup(kineto *k, const event_fields *f)
{
    const struct id_memo *m = id_memo_find(k->threads, &k->threads_last, f);
    if (m) return m->id;
    uint32_t thread = ml_thread_get(k->p, f->pid, f->pid_len, f->tid, f->tid_len);
    id_memo_put(k->threads, &k->threads_next, &k->threads_last, f, thread);
    return thread;
}

/* The profile's thread of (pid, tid): events come in runs on one thread, so
 * the entry found last is tried first, inline. */
static inline uint32_t thread_of(kineto *k, const event_fields *f)
{
    const struct id_memo *m = &k->threads[k->threads_last];
    return id_memo_is(m, f) ? m->id : thread_lookup(k, f);
}

/* The trace track of (pid, tid), past the entry found last. */
static __attribute__((noinline)) uint32_t track_lookup(kineto *k, const event_fields *f)
{
    const struct id_memo *m = id_memo_find(k->tracks, &k->tracks_last, f);
    if (m) return m->id;
    uint32_t track = ml_track_get(k->t, k->p->strings, f->pid, f->pid_len, f->tid, f->tid_len);
    id_memo_put(k->tracks, &k->tracks_next, &k->tracks_last, f, track);
    return track;
}

/* The trace track of (pid, tid) (the entry found last first, as thread_of). */
static inline uint32_t track_of(kineto *k, const event_fields *f)
{
    const struct id_memo *m = &k->tracks[k->tracks_last];
    return id_memo_is(m, f) ? m->id : track_lookup(k, f);
}

/* The device's Total Allocated / Total Reserved series, remembered by index
 * (ml_series_get searches, and this runs for every memory event). */
static ml_series *totals_series(kineto *k, uint16_t dev, ml_series_kind kind)
{
    int which = kind == ML_SERIES_RESERVED;
    if (dev < TOTALS_CACHE && k->totals[dev][which]) return &k->p->series.v[k->totals[dev][which] - 1];
    ml_series *s = ml_series_get(k->p, dev, kind, 0, 0);
    s->sampled = true;
    if (dev < TOTALS_CACHE) k->totals[dev][which] = (uint32_t)(s - k->p->series.v) + 1;
    return s;
}

static int add_memory_event(kineto *k, event_fields *f, uint64_t ev_off, bool oom)
{
    ml_profile *p = k->p;
    if (f->bad_arg)
        return js_fail_at(k->js, k->e, f->bad_arg_off, "[memory] event: args \"%s\" %s", f->bad_arg, f->bad_arg_why);
    if (!f->has_ts) return js_fail_at(k->js, k->e, ev_off, "[memory] event without a usable \"ts\"");
    if (!f->has_bytes) return js_fail_at(k->js, k->e, ev_off, "[memory] event without \"Bytes\"");
    /* Values that cannot be real (args not given are 0 here). */
    const char *range = !ml_value_ok(f->bytes) ? "Bytes"
                      : !ml_value_ok(f->total_alloc) ? "Total Allocated"
                      : !ml_value_ok(f->total_reserved) ? "Total Reserved"
                      : f->dev_type < 0 || f->dev_type > INT_MAX ? "Device Type"
                      : f->dev_id < INT_MIN || f->dev_id > INT_MAX ? "Device Id" : NULL;
    if (range) return js_fail_at(k->js, k->e, ev_off, "[memory] event: args \"%s\" is out of range", range);
    /* Totals are amounts held: never below zero (Bytes is signed: a free). */
    const char *neg = f->total_alloc < 0 ? "Total Allocated" : f->total_reserved < 0 ? "Total Reserved" : NULL;
    if (neg) return js_fail_at(k->js, k->e, ev_off, "[memory] event: args \"%s\" is negative", neg);
    /* Device Type is PyTorch's DeviceType (profile.h numbers ml_dev_kind the same way). */
    int type = f->has_dev_type ? (int)f->dev_type : ML_DEV_CPU;
    int index = f->has_dev_id && type != ML_DEV_CPU ? (int)f->dev_id : -1;
    uint16_t dev = ml_device_get_type(p, type, index);
    uint32_t thread = thread_of(k, f);
    uint32_t ev_index = (uint32_t)p->events.ts.len;
    ml_event ev = {
        .ts = f->ts, .addr = f->addr, .thread = thread, .device = dev, .aux = -1,
    };
    int64_t size = f->bytes < 0 ? -f->bytes : f->bytes; /* |Bytes| < 2^62 (read_args) */
    if (oom) {
        ev.kind = ML_EV_OOM;
        ev.size = size;
        k->oom_events++;
    } else {
        if (f->bytes == 0) return 0;
        /* Sizes add up in every analysis: keep their sum in range. */
        k->bytes_moved += size;
        if (k->bytes_moved >= ML_VALUE_LIMIT)
            return js_fail_at(k->js, k->e, ev_off, "[memory] events: \"Bytes\" add up to 2^62 or more (not a real trace)");
        ev.kind = f->bytes > 0 ? ML_EV_ALLOC : ML_EV_FREE;
        ev.size = size;
        k->memory_events++;
        if (!f->has_addr) k->memory_without_addr++;
        else p->has_addresses = true;
        if (!f->has_total_alloc) k->memory_without_totals++;
        if (type == ML_DEV_CPU && f->has_total_alloc && !k->cpu_total_seen) {
            k->cpu_total_seen = true;
            k->cpu_total_before = f->total_alloc - f->bytes;
        }
    }
    ml_event_push(p, &ev);
    if (f->has_total_alloc && f->has_total_reserved && f->total_reserved > 0 && f->total_reserved < f->total_alloc &&
        !k->reserved_below++) {
        k->reserved_below_off = ev_off;
        snprintf(k->reserved_below_dev, sizeof k->reserved_below_dev, "%s", p->devices.v[dev].id);
    }
    if (f->has_total_alloc)
        ml_series_push_sampled(k->keep.lean, totals_series(k, dev, ML_SERIES_ALLOCATED), f->ts, f->total_alloc, ev_index);
    if (f->has_total_reserved)
        ml_series_push_sampled(k->keep.lean, totals_series(k, dev, ML_SERIES_RESERVED), f->ts, f->total_reserved, ev_index);
    return 0;
}

/* An operator into the profile, unless the import keeps only the first (the
 * clock op: keep.h) and has it. */
static void op_push(kineto *k, int64_t ts, int64_t dur, ml_str name, uint32_t thread, ml_op_kind kind)
{
    if (k->keep.first_op_only && k->p->ops.ts.len) return;
    ml_op_push(k->p, ts, dur, name, thread, kind);
}

static ml_op_kind op_kind(uint8_t cat, const char *name, size_t n)
{
    if (cat == CAT_PYTHON) return ML_OP_PYTHON;
    if (cat == CAT_ANNOTATION) return ML_OP_ANNOTATION;
    /* Old traces file ProfilerStep#N under "Operator". */
    if (n > 13 && memcmp(name, "ProfilerStep#", 13) == 0) return ML_OP_ANNOTATION;
    return ML_OP_CPU;
}


static bool is_gpu_kind(uint8_t kind)
{
    return kind == ML_SL_KERNEL || kind == ML_SL_MEMCPY || kind == ML_SL_MEMSET || kind == ML_SL_GPU_ANNOTATION;
}

/* A flow event's id (kineto_int.h). */
int64_t kt_flow_id(const char *s, size_t n)
{
    int64_t v;
    if (ml_parse_i64(s, n, &v) == 0) return v;
    uint64_t h = 0;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        size_t i = 2;
        for (; i < n && i < 18; i++) {
            char c = s[i];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) break;
            h = h << 4 | (uint64_t)d;
        }
        if (i == n) return (int64_t)(h & INT64_MAX);
    }
    h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return (int64_t)(h & INT64_MAX);
}

/* The number at the end of "stream 7" or "7", or -1. */
static int64_t trailing_number(const char *s, size_t n)
{
    while (n && s[n - 1] == ' ') n--;
    size_t i = n;
    while (i && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
    if (i == n || n - i > 15) return -1;
    int64_t v = 0;
    for (; i < n; i++) v = v * 10 + (s[i] - '0');
    return v;
}

/* Whether name memo entry m holds the name s (n bytes; head and tail: its
 * first and last 8 bytes, or all of a shorter one). */
static inline bool name_memo_is(const kineto *k, const struct name_memo *m, const char *s, size_t n, uint64_t head, uint64_t tail)
{
    return m->len == n && m->head == head && m->tail == tail && (n <= 16 || !memcmp(ml_s(k->p, m->id) + 8, s + 8, n - 16));
}

/* k->name interned.  Names repeat (the same kernels and ops every step), so
 * a memo of the last ones, found by the length and the first and last 8
 * bytes, spares ml_intern() its hash of the whole name: the bytes between
 * are compared (none below 17 bytes, which those words cover).  Two ways
 * for those words: kernels of one template may differ only inside
 * ("..._nn_n_..." and "..._tn_n_..." GEMMs, which alternate), and one way
 * lost each to the other.  Only names interned as they are written go in
 * (a NUL inside is interned otherwise). */
static ml_str intern_name(kineto *k)
{
    const char *s = k->name;
    size_t n = k->name_len;
    uint64_t head = 0, tail;
    if (n >= 8) { /* (copies of a constant size: two loads) */
        memcpy(&head, s, 8);
        memcpy(&tail, s + n - 8, 8);
    } else {
        memcpy(&head, s, n);
        tail = head;
    }
    struct name_memo *m = &k->memo->names[ml_mix64(head ^ (tail + n) * 0x9e3779b97f4a7c15ull) & (NAME_MEMO - 2)];
    if (name_memo_is(k, &m[0], s, n, head, tail)) return m[0].id;
    if (name_memo_is(k, &m[1], s, n, head, tail)) return m[1].id;
    ml_str id = ml_intern(k->p->strings, s, n);
    if (ml_strlen(k->p->strings, id) == n && !memcmp(ml_s(k->p, id), s, n)) /* in front, the other way out */
        m[1] = m[0], m[0] = (struct name_memo){n, head, tail, id};
    return id;
}

/* The current event's name, interned (0 when it has none: k->name may be NULL). */
static ml_str event_name(kineto *k)
{
    if (!k->name_interned) {
        k->name_id = k->name_len ? intern_name(k) : 0;
        k->name_interned = true;
    }
    return k->name_id;
}

/* The slice kind: the cat's, except that ProfilerStep#N is a step whatever
 * its cat (Operator in 1.8/1.9, user_annotation since). */
static uint8_t slice_kind(const kineto *k, const event_fields *f)
{
    uint8_t kind = f->skind;
    if ((kind == ML_SL_CPU_OP || kind == ML_SL_USER_ANNOTATION || kind == ML_SL_OTHER) && k->name_len > 13 &&
        memcmp(k->name, "ProfilerStep#", 13) == 0)
        return ML_SL_PROFILER_STEP;
    return kind;
}

/* The track of GPU work is the stream (pid = device, tid = stream). */
/* Makes a GPU kind's track a stream track (once per track: kept out of line). */
static __attribute__((noinline)) void make_stream_track(kineto *k, const event_fields *f, uint32_t track)
{
    int64_t dev = k->ta.device >= 0 ? k->ta.device : trailing_number(f->pid, f->pid_len);
    int64_t stream = k->ta.stream >= 0 ? k->ta.stream : trailing_number(f->tid, f->tid_len);
    int32_t d = dev >= 0 && dev < 1 << 16 ? ml_device_get(k->p, (ml_dev_kind)f->dev_kind, (int)dev) : -1;
    ml_track_set_stream(k->t, track, d, stream);
}

/* The track of a slice of that kind (a GPU kind's made a stream track). */
static inline uint32_t work_track(kineto *k, const event_fields *f, uint8_t kind)
{
    uint32_t track = track_of(k, f);
    if (is_gpu_kind(kind) && k->t->tracks.v[track].kind != ML_TRACK_STREAM) make_stream_track(k, f, track);
    return track;
}

/* The args row of a cuda_sync slice or a profiler range (their own tables). */
static __attribute__((noinline)) uint32_t own_info(kineto *k, uint8_t kind)
{
    const trace_args *a = &k->ta;
    if (kind == ML_SL_CUDA_SYNC) {
        ml_sync_info si = {a->device >= INT32_MIN && a->device <= INT32_MAX ? (int32_t)a->device : -1, a->stream,
                           a->wait_stream, a->wait_corr};
        return ml_sync_info_push(k->t, &si);
    }
    VEC(ml_str) keys = {0};
    VEC(double) vals = {0};
    for (size_t i = 0; i < k->cvals.len; i++) {
        VEC_PUSH(&keys, k->cvals.v[i].key);
        VEC_PUSH(&vals, k->cvals.v[i].value);
    }
    uint32_t row = ml_range_info_push(k->t, keys.v, vals.v, keys.len);
    VEC_FREE(&keys);
    VEC_FREE(&vals);
    return row;
}

/* The args row of a slice of that kind, or ML_NONE32. */
static uint32_t slice_info(kineto *k, uint8_t kind)
{
    const trace_args *a = &k->ta;
    if (kind == ML_SL_KERNEL || kind == ML_SL_MEMCPY || kind == ML_SL_MEMSET) {
        ml_kernel_info ki = {
            .device = a->device >= INT32_MIN && a->device <= INT32_MAX ? (int32_t)a->device : -1,
            .stream = a->stream,
            .grid = {a->grid[0], a->grid[1], a->grid[2]},
            .block = {a->block[0], a->block[1], a->block[2]},
            .registers = a->regs >= INT32_MIN && a->regs <= INT32_MAX ? (int32_t)a->regs : -1,
            .shared_memory = a->smem,
            .blocks_per_sm = a->blocks_per_sm,
            .occupancy = a->occupancy,
            .membw = a->membw,
            .bytes = a->bytes,
            .comm = ml_comm_args_any(&a->comm) ? ml_comm_args_push(k->t, &a->comm) : 0,
        };
        return ml_kernel_info_push(k->t, &ki);
    }
    if (kind != ML_SL_CPU_OP && kind != ML_SL_USER_ANNOTATION && kind != ML_SL_PYTHON && kind != ML_SL_PROFILER_STEP)
        return kind >= ML_SL_CUDA_SYNC ? own_info(k, kind) : ML_NONE32;
    /* an op's order args unread (keep.h): most ops with a row had only those */
    int64_t seq = k->keep.no_op_order ? -1 : a->seq, fwd = k->keep.no_op_order ? -1 : a->fwd;
    if (!a->dims && !a->types && !a->stack && seq < 0 && fwd < 0 && a->py_module < 0 && !a->comm.collective && a->comm.in_nelems < 0 && a->comm.out_nelems < 0)
        return ML_NONE32;
    ml_op_info_row oi = {a->dims, a->types, a->stack, ml_comm_args_any(&a->comm) ? ml_comm_args_push(k->t, &a->comm) : 0, seq, fwd,
                     a->py_module};
    return ml_op_info_push(k->t, &oi);
}

static void push_slice(kineto *k, int64_t ts, int64_t dur, ml_str name, uint32_t track, uint8_t kind, uint32_t info,
                       int64_t corr, int64_t ext)
{
    ml_slice_row r = {ts, dur, corr, ext, name, track, info, kind};
    ml_slice_push(k->t, &r);
}

/* Everything but B/E (begin_or_end) and [memory] for the time side. */
static void trace_event(kineto *k, const event_fields *f)
{
    ml_trace *t = k->t;
    ml_strpool *sp = k->p->strings;
    switch (f->ph) {
    case 'X': {
        if (!f->has_ts) return;
        uint8_t kind = slice_kind(k, f);
        uint32_t track = work_track(k, f, kind);
        push_slice(k, f->ts, f->has_dur ? f->dur : 0, event_name(k), track, kind,
                   slice_info(k, kind), k->ta.corr, k->ta.ext);
        return;
    }
    case 'i':
    case 'I':
        if (f->has_ts) ml_instant_push(t, f->ts, event_name(k), track_of(k, f));
        return;
    case 'C':
        if (!f->has_ts) return;
        for (size_t i = 0; i < k->cvals.len; i++)
            ml_counter_push(t, f->ts, k->cvals.v[i].value, event_name(k), k->cvals.v[i].key,
                            track_of(k, f));
        return;
    case 'M': {
        int what = KEY_IS(k->name, k->name_len, "process_name") ? ML_META_PROCESS_NAME
                 : KEY_IS(k->name, k->name_len, "thread_name") ? ML_META_THREAD_NAME
                 : KEY_IS(k->name, k->name_len, "process_sort_index") ? ML_META_PROCESS_SORT
                 : KEY_IS(k->name, k->name_len, "thread_sort_index") ? ML_META_THREAD_SORT : -1;
        if (what < 0) return;
        ml_trace_meta(t, (ml_trace_meta_kind)what, ml_intern(sp, f->pid, f->pid_len), ml_intern(sp, f->tid, f->tid_len),
                      k->ta.name, k->ta.sort_index);
        return;
    }
    case 's':
    case 't':
    case 'f':
        if (f->has_ts && f->has_id)
            ml_flow_point(t, f->id, f->cat_id, f->ph, f->bind_enclosing, track_of(k, f), f->ts);
        return;
    }
}

/* A "B" opens an interval on its thread; an "E" closes the latest open one
 * there, whatever either is named (Chrome's rule: an "E" may carry no name or
 * cat at all).  So every "B" is kept until its "E", even one whose op is not
 * wanted, and the nesting stays right. */
static void begin_or_end(kineto *k, const event_fields *f)
{
    /* the pairing key: the thread, or the track when only the time side is read */
    uint32_t thread = k->trace_only ? track_of(k, f) : thread_of(k, f);
    if (f->ph == 'B') {
        bool wanted = f->has_name && is_op_cat(f->cat) && !k->trace_only;
        open_b b = {thread, f->ts, wanted ? event_name(k) : 0,
                    wanted ? (uint8_t)op_kind(f->cat, k->name, k->name_len) : NOT_AN_OP,
                    0, ML_NONE32, ML_NONE32, -1, -1, ML_SL_OTHER};
        if (k->t) { /* the slice it will make: args are on the "B" */
            b.skind = slice_kind(k, f);
            b.slice_name = event_name(k);
            b.track = work_track(k, f, b.skind);
            b.info = slice_info(k, b.skind);
            b.corr = k->ta.corr;
            b.ext = k->ta.ext;
        }
        VEC_PUSH(&k->open, b);
        return;
    }
    for (size_t i = k->open.len; i-- > 0;) {
        if (k->open.v[i].thread != thread) continue;
        open_b b = k->open.v[i];
        memmove(k->open.v + i, k->open.v + i + 1, (k->open.len - i - 1) * sizeof *k->open.v);
        k->open.len--;
        if (b.kind != NOT_AN_OP) op_push(k, b.ts, f->ts - b.ts, b.name, thread, (ml_op_kind)b.kind);
        if (k->t) push_slice(k, b.ts, f->ts - b.ts, b.slice_name, b.track, b.skind, b.info, b.corr, b.ext);
        return;
    }
    k->orphan_ends++;
}

/* "B" events never closed: they last until `end` (the end of the trace). */
void kt_close_open_ops(kineto *k, int64_t end)
{
    for (size_t i = 0; i < k->open.len; i++) {
        const open_b *b = &k->open.v[i];
        if (k->t) {
            push_slice(k, b->ts, end - b->ts, b->slice_name, b->track, b->skind, b->info, b->corr, b->ext);
            k->unclosed_slices++;
        }
        if (b->kind == NOT_AN_OP) continue;
        op_push(k, b->ts, end - b->ts, b->name, b->thread, (ml_op_kind)b->kind);
        k->unclosed++;
    }
    k->open.len = 0;
}

void kt_note_times(kineto *k, int64_t first, int64_t last)
{
    if (!k->has_times || first < k->min_ts) k->min_ts = first;
    if (!k->has_times || last > k->max_end) k->max_end = last;
    k->has_times = true;
}

/* One event's fields, all read (the object at ev_off): into the profile. */
int kt_event_done(kineto *k, event_fields *f, uint64_t ev_off)
{
    /* A complete event whose duration is negative or not a number has no
     * length to give: read as 0 ns it made a ProfilerStep of 0 ns, which
     * pulled the average step down and let --max-step-time pass.  Dropped,
     * and counted in a note (the fast paths fall back here for non-numbers;
     * a negative number reaches here from any path). */
    if (f->ph == 'X' && (f->bad_dur || (f->has_dur && f->dur < 0))) {
        if (!k->bad_durs++) {
            k->bad_dur_off = ev_off;
            size_t n = f->has_name ? k->name_len : 0;
            if (n >= sizeof k->bad_dur_name) n = sizeof k->bad_dur_name - 1;
            if (n) memcpy(k->bad_dur_name, k->name, n); /* k->name may be NULL */
            k->bad_dur_name[n] = 0;
        }
        return 0;
    }
    if (f->has_ts) kt_note_times(k, f->ts, f->has_dur && f->dur > 0 ? f->ts + f->dur : f->ts);
    if (f->has_name && is_memory_name(k) && !k->trace_only) return add_memory_event(k, f, ev_off, k->name[1] == 'O');
    if (k->t && f->ph != 'B' && f->ph != 'E') trace_event(k, f);
    if (k->trace_only && f->ph != 'B' && f->ph != 'E') return 0;
    if (!f->has_ts) return 0;
    if (f->ph == 'B' || f->ph == 'E') {
        begin_or_end(k, f);
        return 0;
    }
    if (f->ph != 'X' || !f->has_name || !is_op_cat(f->cat)) return 0;
    /* op_push()'s test, made before the thread is looked up (and so not made twice) */
    if (k->keep.first_op_only && k->p->ops.ts.len) return 0;
    ml_op_push(k->p, f->ts, f->has_dur ? f->dur : 0, event_name(k), thread_of(k, f),
               op_kind(f->cat, k->name, k->name_len));
    return 0;
}

/* Skips the rest of a value whose first token t was not the type wanted. */
static int skip_value(kineto *k, js_tok t)
{
    if (t == JS_ERROR) return scan_error(k);
    if ((t == JS_OBJECT || t == JS_ARRAY) && js_skip_rest(k->js) < 0) return scan_error(k);
    return 0;
}

static int read_device_properties(kineto *k)
{
    js_scanner *js = k->js;
    js_tok t = js_next(js);
    if (t != JS_ARRAY) return skip_value(k, t);
    for (;;) {
        t = js_next(js);
        if (t == JS_ARRAY_END) return 0;
        if (t != JS_OBJECT) {
            if (skip_value(k, t) < 0) return -1;
            continue;
        }
        device_prop d = {-1, -1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
        const char *key, *s;
        size_t n, m;
        int more;
        while ((more = js_key(js, &key, &n)) > 0) {
            int r;
            int64_t *dst = KEY_IS(key, n, "computeMajor") ? &d.cc_major
                         : KEY_IS(key, n, "computeMinor") ? &d.cc_minor
                         : KEY_IS(key, n, "numSms") ? &d.num_sms
                         : KEY_IS(key, n, "maxThreadsPerMultiprocessor") || KEY_IS(key, n, "maxThreadsPerMultiProcessor")
                             ? &d.max_threads_per_sm
                         : KEY_IS(key, n, "maxThreadsPerBlock") ? &d.max_threads_per_block
                         : KEY_IS(key, n, "regsPerBlock") ? &d.regs_per_block
                         : KEY_IS(key, n, "regsPerMultiprocessor") ? &d.regs_per_sm
                         : KEY_IS(key, n, "warpSize") ? &d.warp_size
                         : KEY_IS(key, n, "sharedMemPerBlock") ? &d.shared_mem_per_block
                         : KEY_IS(key, n, "sharedMemPerMultiprocessor") ? &d.shared_mem_per_sm : NULL;
            if (dst) r = read_int(k, dst);
            else if (KEY_IS(key, n, "id")) r = read_int(k, &d.id);
            else if (KEY_IS(key, n, "totalGlobalMem")) r = read_int(k, &d.total);
            else if (KEY_IS(key, n, "name")) {
                r = js_value_string(js, &s, &m);
                if (r > 0) d.name = ml_intern(k->p->strings, s, m);
            } else r = js_skip(js);
            if (r < 0) return scan_error(k);
        }
        if (more < 0) return scan_error(k);
        VEC_PUSH(&k->props, d);
    }
}

static int read_distributed_info(kineto *k)
{
    js_scanner *js = k->js;
    js_tok t = js_next(js);
    if (t != JS_OBJECT) return skip_value(k, t);
    const char *key;
    size_t n;
    int more;
    int64_t rank = -1, world = -1;
    while ((more = js_key(js, &key, &n)) > 0) {
        int64_t v;
        int r;
        if (KEY_IS(key, n, "rank") || KEY_IS(key, n, "world_size")) {
            bool is_rank = key[0] == 'r';
            /* read to the thousandth: 1.5 is no rank (it was read as 1) */
            r = js_value_number(js, 3, &v);
            if (r == JS_NUM_RANGE || (r > 0 && (v % 1000 || v / 1000 >= 1 << 30 || (!is_rank && v <= 0))))
                return js_fail(js, k->e, "distributedInfo: \"%s\" must be a whole number %s", is_rank ? "rank" : "world_size",
                               is_rank ? "below 2^30" : "from 1 to 2^30");
            if (r > 0 && is_rank && v >= 0) rank = v / 1000; /* a negative rank: unknown, as before */
            if (r > 0 && !is_rank) world = v / 1000;
        } else if (KEY_IS(key, n, "backend") && k->t) {
            const char *s;
            size_t m;
            r = js_value_string(js, &s, &m);
            if (r > 0) k->t->backend = ml_intern(k->p->strings, s, m);
        } else if (KEY_IS(key, n, "pg_count") && k->t) {
            r = js_value_number(js, 3, &v); /* not a whole count from 1 to 2^30: unknown */
            if (r == 1 && v > 0 && v % 1000 == 0 && v / 1000 <= 1 << 30) k->t->pg_count = (int32_t)(v / 1000);
        } else r = js_skip(js);
        if (r < 0) return scan_error(k);
    }
    if (more < 0) return scan_error(k);
    if (rank >= 0 && world > 0 && rank >= world)
        return js_fail(js, k->e, "distributedInfo: rank %lld of world_size %lld: a rank is below the world size",
                       (long long)rank, (long long)world);
    if (rank >= 0) k->p->rank = (int)rank;
    if (world > 0) k->p->world_size = (int)world;
    return 0;
}

/* The keys of the top-level object, its '{' just read (or, for the second
 * half of a split file, the keys after the event list). */
int kt_read_top_object(kineto *k)
{
    js_scanner *js = k->js;
    const char *key;
    size_t n;
    int more;
    while ((more = js_key(js, &key, &n)) > 0) {
        int r = 0;
        if (KEY_IS(key, n, "traceEvents")) {
            js_tok v = js_next(js);
            if (v == JS_ERROR) return scan_error(k);
            if (v != JS_ARRAY) return js_fail(js, k->e, "\"traceEvents\" is not an array");
            if (kt_read_events(k) < 0) return -1;
            if (js_truncated(js)) return 0;
        } else if (KEY_IS(key, n, "deviceProperties")) {
            r = read_device_properties(k);
        } else if (KEY_IS(key, n, "distributedInfo")) {
            r = read_distributed_info(k);
        } else if (KEY_IS(key, n, "profile_memory")) { /* 1 when on; absent when off */
            int64_t on;
            int got = js_value_number(js, 0, &on);
            if (got < 0) return scan_error(k);
            k->memory_profiled |= got == 1 && on != 0;
        } else if (KEY_IS(key, n, "baseTimeNanoseconds")) {
            int64_t base;
            r = read_bounded(k, 0, "baseTimeNanoseconds", &base);
            if (r < 0) return scan_error(k); /* the scanner's error, or the range one js_fail gave it */
            if (r > 0) {
                k->p->base_time_ns = base;
                k->saw_base_time = true;
                k->base_time_off = js_offset(js);
            }
        } else if (js_skip(js) < 0) return scan_error(k);
        if (r < 0) return -1;
    }
    return more < 0 ? scan_error(k) : 0;
}

int kt_finish(kineto *k, bool truncated)
{
    ml_profile *p = k->p;
    if (ml_series_dropped_unsorted(p)) return ML_IMPORT_AGAIN; /* (only when the import keeps lean) */
    if (!k->list_objects) /* nothing to show: an error, not an empty run */
        return js_fail_at(k->js, k->e, k->list_off, "no events: the trace's event list is empty%s",
                          truncated ? " (and the file ends inside it)" : "");
    /* ts and the base are each below 2^62 (read_bounded); so must their sums be (profile.h). */
    if (p->base_time_ns && k->has_times &&
        (!ml_value_ok(p->base_time_ns + k->min_ts) || !ml_value_ok(p->base_time_ns + k->max_end)))
        return js_fail_at(k->js, k->e, k->base_time_off,
                          "\"baseTimeNanoseconds\" puts the trace's times out of range (2^62 ns or more)");
    for (size_t i = 0; i < k->props.len; i++) {
        device_prop *d = &k->props.v[i];
        for (size_t j = 0; j < p->devices.len; j++) {
            ml_device *dev = &p->devices.v[j];
            if (dev->kind != ML_DEV_CPU && dev->index == d->id) {
                dev->name = d->name;
                dev->total_memory = d->total;
#define PROP(field, v) dev->field = (v) >= INT_MIN && (v) <= INT_MAX ? (int)(v) : -1
                PROP(cc_major, d->cc_major);
                PROP(cc_minor, d->cc_minor);
                PROP(num_sms, d->num_sms);
                PROP(max_threads_per_sm, d->max_threads_per_sm);
                PROP(max_threads_per_block, d->max_threads_per_block);
                PROP(regs_per_block, d->regs_per_block);
                PROP(regs_per_sm, d->regs_per_sm);
                PROP(warp_size, d->warp_size);
#undef PROP
                dev->shared_mem_per_block = d->shared_mem_per_block;
                dev->shared_mem_per_sm = d->shared_mem_per_sm;
            }
        }
    }
    kt_close_open_ops(k, k->max_end);
    /* Without baseTimeNanoseconds, ts are absolute epoch µs (older PyTorch) or
     * relative to the profiler's start: a first memory event or op (in file
     * order) later than 2000-01-01 as epoch ns can only be the former. */
    int64_t first = p->events.ts.len ? p->events.ts.v[0] : p->ops.ts.len ? p->ops.ts.v[0] : 0;
    p->time_is_absolute = k->saw_base_time || first > 946684800000000000LL;
    if (k->t) {
        if (k->has_times) ml_trace_span(k->t, k->min_ts, k->max_end);
        k->t->unpaired_ends += k->orphan_ends;
        k->t->bad_dur_dropped += k->bad_durs;
        if (k->orphan_ends)
            ml_note(p, "%zu \"E\" event%s had no \"B\" open on %s thread: %s ignored", k->orphan_ends,
                    k->orphan_ends == 1 ? "" : "s", k->orphan_ends == 1 ? "its" : "their", k->orphan_ends == 1 ? "it was" : "they were");
        if (k->unclosed_slices > k->unclosed)
            ml_note(p, "%zu slice%s began (\"ph\": \"B\") without an end (\"E\"): %s closed at the end of "
                       "the trace", k->unclosed_slices, k->unclosed_slices == 1 ? "" : "s", k->unclosed_slices == 1 ? "it was" : "they were");
    }
    if (k->bad_durs)
        ml_note(p, "%zu complete event%s (\"ph\": \"X\") dropped: %s \"dur\" is negative or not a number (the first "
                   "at byte %llu: %s)", k->bad_durs, k->bad_durs == 1 ? "" : "s", k->bad_durs == 1 ? "its" : "their",
                (unsigned long long)k->bad_dur_off, k->bad_dur_name[0] ? k->bad_dur_name : "no name");
    if (k->unclosed)
        ml_note(p, "%zu operator%s began (\"ph\": \"B\") without an end (\"E\"): %s closed at the end of the "
                   "trace", k->unclosed, k->unclosed == 1 ? "" : "s", k->unclosed == 1 ? "it was" : "they were");
    if (truncated)
        ml_note(p, "the trace ends without its closing brackets (the profiler may have stopped early); "
                   "everything up to the last complete event was read");
    if (k->memory_events && k->memory_without_addr == k->memory_events)
        ml_note(p, "memory events carry no addresses (a PyTorch trace older than 1.10?): frees cannot be "
                   "matched to allocations; the curve is the running sum of Bytes from 0 at the first event");
    else if (k->memory_without_addr)
        ml_note(p, "%zu of %zu memory events carry no address and cannot be matched", k->memory_without_addr,
                k->memory_events);
    if (k->memory_events && k->memory_without_totals == k->memory_events)
        ml_note(p, "memory events carry no Total Allocated / Total Reserved: memory allocated before the "
                   "trace is unknown, and reserved memory is not shown");
    if (k->reserved_below)
        ml_note(p, "%zu memory event%s give%s a Total Reserved below %s Total Allocated (the first at byte %llu, "
                   "on %s): an allocator cannot hold more than it reserved, so the trace's counters disagree; the "
                   "curves show them as written",
                k->reserved_below, k->reserved_below == 1 ? "" : "s", k->reserved_below == 1 ? "s" : "",
                k->reserved_below == 1 ? "its" : "their", (unsigned long long)k->reserved_below_off,
                k->reserved_below_dev);
    if (!k->memory_events && k->memory_profiled)
        ml_note(p, "memory profiling was on (\"profile_memory\": 1 in the trace's header) but recorded no "
                   "allocations: nothing was allocated or freed while the profiler was recording");
    else if (!k->memory_events)
        ml_note(p, "the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)");
    /* PyTorch's CPU total (c10's ProfiledCPUMemoryReporter) is one count per
     * process that moves only while a profiler records: what an earlier
     * recording window allocated stays in it, even when freed while none
     * recorded (seen with torch 2.13: a second schedule cycle, a second
     * profile() in one process). */
    if (k->cpu_total_before > 0)
        ml_note(p, "cpu: Total Allocated is already %lld B at the first memory event: PyTorch's CPU count moves "
                   "only while a profiler records memory, so this is what earlier recording windows of the process "
                   "allocated and it did not see freed (a free while none recorded stays in it); memory allocated "
                   "before any recording is not in it",
                (long long)k->cpu_total_before);
    ml_profile_finish_keep(p, &k->keep);
    return 0;
}

void kt_init(kineto *k, js_scanner *js, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    memset(k, 0, sizeof *k);
    k->js = js;
    k->p = p;
    if (keep) k->keep = *keep; /* (zeroed: keep everything) */
    k->e = e;
    k->t = p->trace;
    k->ta_dirty = true; /* (ta zeroed, not TA_NONE: the first event resets it) */
    for (unsigned i = 0; i < TRACK_MEMO; i++) k->tracks[i].id = k->threads[i].id = ML_NONE32;
    ka_index_build(&k->keys);
    k->memo = ml_calloc(1, sizeof *k->memo);
}

void kt_free(kineto *k)
{
    for (unsigned i = 0; i < k->nshapes; i++) free(k->shapes[i]);
    free(k->spare);
    js_close(k->js);
    free(k->name);
    VEC_FREE(&k->props);
    VEC_FREE(&k->open);
    VEC_FREE(&k->cvals);
    VEC_FREE(&k->json);
    free(k->memo);
    free(k->runs);
}

/* The whole document from its first token (or, for the first half of a
 * split file, up to where that half ends). */
int kt_read_document(kineto *k)
{
    js_scanner *js = k->js;
    js_tok t = js_next(js);
    int rc;
    if (t == JS_OBJECT) rc = kt_read_top_object(k);
    else if (t == JS_ARRAY) rc = kt_read_events(k);
    else if (t == JS_ERROR) return scan_error(k);
    else return js_fail_at(js, k->e, 0, "not a Chrome/Kineto trace (expected '{' or '[')");
    if (rc < 0) return rc;
    /* Other JSON (loaded here when no importer recognised it): say what is missing. */
    if (!k->saw_event_list) return js_fail_at(js, k->e, 0, "not a Chrome/Kineto trace: no \"traceEvents\" list");
    if (t == JS_ARRAY && k->list_others && !k->list_objects)
        return js_fail_at(js, k->e, 0, "not a Chrome/Kineto trace: the array holds no event objects");
    if (!js_truncated(js) && js_next(js) == JS_ERROR) return scan_error(k);
    return 0;
}

static int import_serial(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    kineto k;
    kt_init(&k, js_open(src), p, keep, e);
    int rc = kt_read_document(&k);
    if (rc == 0) rc = kt_finish(&k, js_truncated(k.js));
    kt_free(&k);
    return rc;
}

int ml_kineto_trace_add(ml_source *src, ml_profile *p, ml_err *e)
{
    if (!p->trace) return 0;
    kineto k;
    kt_init(&k, js_open(src), p, NULL, e);
    k.trace_only = true;
    int rc = kt_read_document(&k);
    if (rc == 0) {
        bool truncated = js_truncated(k.js);
        kt_close_open_ops(&k, k.max_end);
        if (k.has_times) ml_trace_span(k.t, k.min_ts, k.max_end);
        k.t->unpaired_ends += k.orphan_ends;
        const char *name = ml_source_name(src);
        if (k.orphan_ends)
            ml_note(p, "%s: %zu \"E\" event%s had no \"B\" open on %s thread: %s ignored", name, k.orphan_ends,
                    k.orphan_ends == 1 ? "" : "s", k.orphan_ends == 1 ? "its" : "their", k.orphan_ends == 1 ? "it was" : "they were");
        if (k.unclosed_slices)
            ml_note(p, "%s: %zu slice%s began (\"ph\": \"B\") without an end (\"E\"): %s closed at the end "
                       "of the trace", name, k.unclosed_slices, k.unclosed_slices == 1 ? "" : "s", k.unclosed_slices == 1 ? "it was" : "they were");
        if (truncated) ml_note(p, "%s ends without its closing brackets: everything up to the last complete event was read", name);
    }
    kt_free(&k);
    return rc;
}

int ml_kineto_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    /* MEMLENS_SPLIT_MIN_BYTES lets tests split small files; MEMLENS_ONE_THREAD turns splitting off. */
    const char *min_env = getenv("MEMLENS_SPLIT_MIN_BYTES");
    int64_t min = min_env ? atoll(min_env) : KT_SPLIT_MIN_BYTES;
    int64_t size = ml_source_plain_size(src);
    if (size >= min && size > 0 && ml_par_allowed()) {
        int rc = kt_import_in_two_halves(ml_source_name(src), (uint64_t)size, p, keep, e);
        if (rc != KT_SPLIT_RETRY) return rc;
    }
    return import_serial(src, p, keep, e);
}

