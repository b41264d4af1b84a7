/*
 * kineto.c — importer for PyTorch / Kineto Chrome traces (*.pt.trace.json[.gz]).
 *
 * One streaming pass over the JSON: `[memory]` and `[OutOfMemory]` instant
 * events become allocator events (and their Total Allocated / Total Reserved
 * become the device's curves), `cpu_op` / `user_annotation` /
 * `python_function` intervals become ops; everything else (kernels, runtime
 * calls, flows) is skipped without being decoded.  Handles every vintage:
 * old traces without `cat`, `Addr` or totals, string or numeric pid/tid/ts,
 * `baseTimeNanoseconds` (ts relative to it), and a missing final `]`.
 */
#include "importer.h"
#include "decimal.h"
#include "jsonscan.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CAT_NONE, CAT_CPU_OP, CAT_ANNOTATION, CAT_PYTHON, CAT_INSTANT, CAT_OTHER };

#define ID_MAX 64
#define TOTALS_CACHE 64

/* The fields of one trace event that memlens needs, collected in any key order. */
typedef struct event_fields {
    char ph;
    uint8_t cat;
    bool has_name, has_ts, has_dur;
    int64_t ts, dur;
    char pid[ID_MAX], tid[ID_MAX];
    size_t pid_len, tid_len;
    /* args of memory events */
    bool has_dev_type, has_dev_id, has_addr, has_bytes, has_total_alloc, has_total_reserved;
    int64_t dev_type, dev_id, bytes, total_alloc, total_reserved;
    uint64_t addr;
    uint64_t bad_arg_off;          /* first arg of the wrong type, reported only for memory events */
    const char *bad_arg;
} event_fields;

typedef struct device_prop {
    int64_t id, total;
    ml_str name;
} device_prop;

typedef struct open_b {             /* a "B" event waiting for its "E" */
    uint32_t thread;
    int64_t ts;
    ml_str name;
    uint8_t kind;
} open_b;

typedef struct kineto {
    js_scanner *js;
    ml_profile *p;
    ml_err *e;
    char *name;                    /* the current event's name (copied out of the scanner buffer) */
    size_t name_len, name_cap;
    VEC(device_prop) props;
    VEC(open_b) open;
    bool saw_base_time;
    bool events_open;              /* inside the event list (where a split may fall) */
    size_t orphan_ends;            /* "E" events with no open "B" on their thread */
    uint32_t last_thread;          /* thread_of()'s one-entry cache */
    uint32_t totals[TOTALS_CACHE][2]; /* device -> series index + 1 of its allocated / reserved totals */
    char last_pid[ID_MAX], last_tid[ID_MAX];
    size_t last_pid_len, last_tid_len;
    size_t memory_events, memory_without_addr, memory_without_totals, oom_events;
} kineto;

int ml_kineto_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    const char *h = (const char *)head;
    size_t i = 0;
    while (i < n && (h[i] == ' ' || h[i] == '\n' || h[i] == '\r' || h[i] == '\t')) i++;
    if (i == n || (h[i] != '{' && h[i] != '[')) return 0;
    if (memmem(h, n, "\"traceEvents\"", 13)) return 90;
    if (memmem(h, n, "\"ph\"", 4)) return 70;     /* a bare event array */
    if (memmem(h, n, "\"schemaVersion\"", 15) || memmem(h, n, "\"deviceProperties\"", 18)) return 60;
    return 0;
}

/* ---- small value readers ---- */

static bool key_is(const char *k, size_t n, const char *lit, size_t lit_len)
{
    return n == lit_len && memcmp(k, lit, n) == 0;
}
#define KEY_IS(k, n, lit) key_is(k, n, lit, sizeof lit - 1)

/* Value readers: 1 if the value was read, 0 if it had another type (skipped), -1 on error. */
static int read_int(kineto *k, int64_t *out) { return js_value_number(k->js, 0, out); }

/* A time in µs (number or string; 3 decimals kept exactly) as ns. */
static int read_us_as_ns(kineto *k, int64_t *out) { return js_value_number(k->js, 3, out); }

/* A pid/tid (number or string) as text. */
static int read_id(kineto *k, char *buf, size_t *len)
{
    const char *s;
    size_t n;
    int r = js_value_scalar_text(k->js, &s, &n);
    if (r <= 0) return r;
    if (n > ID_MAX) n = ID_MAX;
    memcpy(buf, s, n);
    *len = n;
    return 1;
}

static int read_string_copy(kineto *k, char **buf, size_t *len, size_t *cap)
{
    const char *s;
    size_t n;
    int r = js_value_string(k->js, &s, &n);
    if (r <= 0) return r;
    if (n + 1 > *cap) {
        *cap = n + 64;
        *buf = ml_realloc(*buf, *cap);
    }
    memcpy(*buf, s, n);
    (*buf)[n] = 0;
    *len = n;
    return 1;
}

/* The thread of (pid, tid), remembering the last one: consecutive events
 * are nearly always on the same thread. */
static uint32_t thread_of(kineto *k, const event_fields *f)
{
    if (k->last_thread != ML_NONE32 && f->pid_len == k->last_pid_len && f->tid_len == k->last_tid_len &&
        !memcmp(f->pid, k->last_pid, f->pid_len) && !memcmp(f->tid, k->last_tid, f->tid_len))
        return k->last_thread;
    k->last_thread = ml_thread_get(k->p, f->pid, f->pid_len, f->tid, f->tid_len);
    memcpy(k->last_pid, f->pid, f->pid_len);
    memcpy(k->last_tid, f->tid, f->tid_len);
    k->last_pid_len = f->pid_len;
    k->last_tid_len = f->tid_len;
    return k->last_thread;
}

/* ---- one event ---- */

static bool is_memory_name(const kineto *k)
{
    return KEY_IS(k->name, k->name_len, "[memory]") || KEY_IS(k->name, k->name_len, "[OutOfMemory]");
}

static int read_args(kineto *k, event_fields *f)
{
    js_tok t = js_next(k->js);
    if (t == JS_ERROR) return -1;
    if (t != JS_OBJECT) return t == JS_ARRAY ? js_skip_rest(k->js) : 0;
    for (;;) {
        const char *key;
        size_t n;
        int more = js_key(k->js, &key, &n);
        if (more <= 0) return more;
        int64_t *dst = NULL;
        bool *has = NULL;
        const char *label = NULL;
        if (KEY_IS(key, n, "Bytes")) dst = &f->bytes, has = &f->has_bytes, label = "Bytes";
        else if (KEY_IS(key, n, "Addr")) label = "Addr";
        else if (KEY_IS(key, n, "Device Type")) dst = &f->dev_type, has = &f->has_dev_type, label = "Device Type";
        else if (KEY_IS(key, n, "Device Id")) dst = &f->dev_id, has = &f->has_dev_id, label = "Device Id";
        else if (KEY_IS(key, n, "Total Allocated")) dst = &f->total_alloc, has = &f->has_total_alloc, label = "Total Allocated";
        else if (KEY_IS(key, n, "Total Reserved")) dst = &f->total_reserved, has = &f->has_total_reserved, label = "Total Reserved";
        if (!label) {
            if (js_skip(k->js) < 0) return -1;
            continue;
        }
        uint64_t off = js_offset(k->js); /* the key: messages name it */
        if (!dst) {
            /* Addresses are unsigned 64-bit: read them as text. */
            const char *s;
            size_t m;
            int r = js_value_scalar_text(k->js, &s, &m);
            if (r < 0) return -1;
            uint64_t a = 0;
            bool ok = r > 0 && m > 0;
            for (size_t i = 0; ok && i < m; i++) {
                if (s[i] < '0' || s[i] > '9' || a > (UINT64_MAX - 9) / 10) ok = false;
                else a = a * 10 + (uint64_t)(s[i] - '0');
            }
            if (ok) f->addr = a, f->has_addr = true;
            else if (!f->bad_arg) f->bad_arg = label, f->bad_arg_off = off;
            continue;
        }
        int r = read_int(k, dst);
        if (r < 0) return -1;
        if (r) *has = true;
        else if (!f->bad_arg) f->bad_arg = label, f->bad_arg_off = off;
    }
}

static uint8_t classify_cat(const char *s, size_t n)
{
    if (KEY_IS(s, n, "cpu_op") || KEY_IS(s, n, "Operator")) return CAT_CPU_OP;
    if (KEY_IS(s, n, "user_annotation")) return CAT_ANNOTATION;
    if (KEY_IS(s, n, "python_function")) return CAT_PYTHON;
    if (KEY_IS(s, n, "cpu_instant_event")) return CAT_INSTANT;
    return CAT_OTHER;
}

static ml_dev_kind device_kind(int64_t type)
{
    switch (type) {
    case 0: return ML_DEV_CPU;
    case 1: case 6: return ML_DEV_CUDA; /* HIP builds report their GPUs as cuda */
    case 12: return ML_DEV_XPU;
    case 13: return ML_DEV_MPS;
    case 15: return ML_DEV_HPU;
    case 19: return ML_DEV_MTIA;
    case 20: return ML_DEV_NPU;         /* PrivateUse1: torch_npu */
    default: return ML_DEV_OTHER;
    }
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
        return ml_fail(k->e, "%s: byte %llu: [memory] event: args \"%s\" is not a number", p->path,
                       (unsigned long long)f->bad_arg_off, f->bad_arg);
    if (!f->has_ts)
        return ml_fail(k->e, "%s: byte %llu: [memory] event without a usable \"ts\"", p->path,
                       (unsigned long long)ev_off);
    if (!f->has_bytes)
        return ml_fail(k->e, "%s: byte %llu: [memory] event without \"Bytes\"", p->path,
                       (unsigned long long)ev_off);
    ml_dev_kind kind = f->has_dev_type ? device_kind(f->dev_type) : ML_DEV_CPU;
    int index = f->has_dev_id ? (int)f->dev_id : -1;
    if (kind == ML_DEV_CPU) index = -1;
    uint16_t dev = ml_device_get(p, kind, index);
    uint32_t thread = thread_of(k, f);
    uint32_t ev_index = (uint32_t)p->events.ts.len;
    ml_event ev = {
        .ts = f->ts, .addr = f->addr, .thread = thread, .device = dev, .aux = -1,
    };
    if (oom) {
        ev.kind = ML_EV_OOM;
        ev.size = f->bytes < 0 ? -f->bytes : f->bytes;
        k->oom_events++;
    } else {
        if (f->bytes == 0) return 0;
        ev.kind = f->bytes > 0 ? ML_EV_ALLOC : ML_EV_FREE;
        ev.size = f->bytes > 0 ? f->bytes : -f->bytes;
        k->memory_events++;
        if (!f->has_addr) k->memory_without_addr++;
        else p->has_addresses = true;
        if (!f->has_total_alloc) k->memory_without_totals++;
    }
    ml_event_push(p, &ev);
    if (f->has_total_alloc)
        ml_series_push_event(totals_series(k, dev, ML_SERIES_ALLOCATED), f->ts, f->total_alloc, ev_index);
    if (f->has_total_reserved)
        ml_series_push_event(totals_series(k, dev, ML_SERIES_RESERVED), f->ts, f->total_reserved, ev_index);
    return 0;
}

static ml_op_kind op_kind(uint8_t cat, const char *name, size_t n)
{
    if (cat == CAT_PYTHON) return ML_OP_PYTHON;
    if (cat == CAT_ANNOTATION) return ML_OP_ANNOTATION;
    /* Old traces file ProfilerStep#N under "Operator". */
    if (n > 13 && memcmp(name, "ProfilerStep#", 13) == 0) return ML_OP_ANNOTATION;
    return ML_OP_CPU;
}

static void add_b_or_e(kineto *k, const event_fields *f, uint32_t thread)
{
    if (f->ph == 'B') {
        open_b b = {thread, f->ts, ml_intern(k->p->strings, k->name, k->name_len),
                    (uint8_t)op_kind(f->cat, k->name, k->name_len)};
        VEC_PUSH(&k->open, b);
        return;
    }
    /* 'E' closes the latest open 'B' on the same thread. */
    for (size_t i = k->open.len; i-- > 0;) {
        if (k->open.v[i].thread != thread) continue;
        open_b b = k->open.v[i];
        memmove(k->open.v + i, k->open.v + i + 1, (k->open.len - i - 1) * sizeof *k->open.v);
        k->open.len--;
        ml_op_push(k->p, b.ts, f->ts - b.ts, b.name, thread, (ml_op_kind)b.kind);
        return;
    }
    k->orphan_ends++;
}

static int read_event(kineto *k)
{
    js_scanner *js = k->js;
    uint64_t ev_off = js_offset(js);
    event_fields f;
    memset(&f, 0, sizeof f);
    k->name_len = 0;
    for (;;) {
        const char *key;
        size_t n;
        int more = js_key(js, &key, &n);
        if (more == 0) break;
        if (more < 0) return ml_fail(k->e, "%s", js_error(js));
        int r;
        const char *v;
        size_t m;
        switch (n) {
        case 2:
            if (key[0] == 'p' && key[1] == 'h') {
                r = js_value_string(js, &v, &m);
                if (r > 0 && m) f.ph = v[0];
            } else if (key[0] == 't' && key[1] == 's') {
                r = read_us_as_ns(k, &f.ts);
                f.has_ts = r > 0;
            } else r = js_skip(js);
            break;
        case 3:
            if (!memcmp(key, "cat", 3)) {
                r = js_value_string(js, &v, &m);
                if (r > 0) f.cat = classify_cat(v, m);
            } else if (!memcmp(key, "pid", 3)) r = read_id(k, f.pid, &f.pid_len);
            else if (!memcmp(key, "tid", 3)) r = read_id(k, f.tid, &f.tid_len);
            else if (!memcmp(key, "dur", 3)) {
                r = read_us_as_ns(k, &f.dur);
                f.has_dur = r > 0;
            } else r = js_skip(js);
            break;
        case 4:
            if (!memcmp(key, "name", 4)) {
                r = read_string_copy(k, &k->name, &k->name_len, &k->name_cap);
                if (r > 0) f.has_name = true;
            } else if (!memcmp(key, "args", 4)) {
                /* Only memory events need their args decoded. */
                if (f.has_name && !is_memory_name(k)) r = js_skip(js);
                else r = read_args(k, &f);
            } else r = js_skip(js);
            break;
        default:
            r = js_skip(js);
        }
        if (r < 0) return ml_fail(k->e, "%s", js_error(js));
    }

    if (!f.has_name) return 0;
    if (is_memory_name(k)) return add_memory_event(k, &f, ev_off, k->name[1] == 'O');
    bool wanted = f.cat == CAT_CPU_OP || f.cat == CAT_ANNOTATION || f.cat == CAT_PYTHON;
    if (!wanted || !f.has_ts) return 0;
    uint32_t thread = thread_of(k, &f);
    if (f.ph == 'X') {
        ml_op_push(k->p, f.ts, f.has_dur ? f.dur : 0, ml_intern(k->p->strings, k->name, k->name_len), thread,
                   op_kind(f.cat, k->name, k->name_len));
    } else if (f.ph == 'B' || f.ph == 'E') {
        add_b_or_e(k, &f, thread);
    }
    return 0;
}

/* ---- the trace ---- */

static int read_events(kineto *k)
{
    k->events_open = true;
    for (;;) {
        js_tok t = js_next(k->js);
        if (t == JS_END) return 0; /* the file ended inside the list: events_open stays set */
        if (t == JS_ARRAY_END) {
            k->events_open = false;
            return 0;
        }
        if (t == JS_ERROR) return ml_fail(k->e, "%s", js_error(k->js));
        if (t != JS_OBJECT) {
            if (t == JS_ARRAY && js_skip_rest(k->js) < 0) return ml_fail(k->e, "%s", js_error(k->js));
            continue; /* a stray scalar in the event list: nothing to import */
        }
        if (read_event(k) < 0) return -1;
    }
}

static int read_device_properties(kineto *k)
{
    js_scanner *js = k->js;
    js_tok t = js_next(js);
    if (t == JS_ERROR) return ml_fail(k->e, "%s", js_error(js));
    if (t != JS_ARRAY) return t == JS_OBJECT && js_skip_rest(js) < 0 ? ml_fail(k->e, "%s", js_error(js)) : 0;
    for (;;) {
        t = js_next(js);
        if (t == JS_ARRAY_END || t == JS_END) return 0;
        if (t == JS_ERROR) return ml_fail(k->e, "%s", js_error(js));
        if (t != JS_OBJECT) {
            if (t == JS_ARRAY && js_skip_rest(js) < 0) return ml_fail(k->e, "%s", js_error(js));
            continue;
        }
        device_prop d = {-1, -1, 0};
        for (;;) {
            t = js_next(js);
            if (t == JS_OBJECT_END) break;
            if (t != JS_KEY) return ml_fail(k->e, "%s", t == JS_ERROR ? js_error(js) : "malformed deviceProperties");
            size_t n;
            const char *key = js_text(js, &n);
            int r;
            if (KEY_IS(key, n, "id")) r = read_int(k, &d.id);
            else if (KEY_IS(key, n, "totalGlobalMem")) r = read_int(k, &d.total);
            else if (KEY_IS(key, n, "name")) {
                js_tok v = js_next(js);
                r = v == JS_ERROR ? -1 : 1;
                if (v == JS_STRING) {
                    size_t m;
                    const char *s = js_unescape(js, &m);
                    d.name = ml_intern(k->p->strings, s, m);
                } else if ((v == JS_OBJECT || v == JS_ARRAY) && js_skip_rest(js) < 0) r = -1;
            } else r = js_skip(js);
            if (r < 0) return ml_fail(k->e, "%s", js_error(js));
        }
        VEC_PUSH(&k->props, d);
    }
}

static int read_distributed_info(kineto *k)
{
    js_scanner *js = k->js;
    js_tok t = js_next(js);
    if (t == JS_ERROR) return ml_fail(k->e, "%s", js_error(js));
    if (t != JS_OBJECT) return t == JS_ARRAY && js_skip_rest(js) < 0 ? ml_fail(k->e, "%s", js_error(js)) : 0;
    for (;;) {
        t = js_next(js);
        if (t == JS_OBJECT_END) return 0;
        if (t != JS_KEY) return ml_fail(k->e, "%s", t == JS_ERROR ? js_error(js) : "malformed distributedInfo");
        size_t n;
        const char *key = js_text(js, &n);
        int64_t v;
        int r;
        if (KEY_IS(key, n, "rank")) {
            r = read_int(k, &v);
            if (r > 0 && v >= 0 && v < 1 << 30) k->p->rank = (int)v;
        } else if (KEY_IS(key, n, "world_size")) {
            r = read_int(k, &v);
            if (r > 0 && v > 0 && v < 1 << 30) k->p->world_size = (int)v;
        } else r = js_skip(js);
        if (r < 0) return ml_fail(k->e, "%s", js_error(js));
    }
}

static int read_top_object(kineto *k)
{
    js_scanner *js = k->js;
    for (;;) {
        js_tok t = js_next(js);
        if (t == JS_OBJECT_END || t == JS_END) return 0;
        if (t == JS_ERROR) return ml_fail(k->e, "%s", js_error(js));
        size_t n;
        const char *key = js_text(js, &n);
        int r = 0;
        if (KEY_IS(key, n, "traceEvents")) {
            js_tok v = js_next(js);
            if (v == JS_ERROR) return ml_fail(k->e, "%s", js_error(js));
            if (v != JS_ARRAY) return js_fail(js, k->e, "\"traceEvents\" is not an array");
            if (read_events(k) < 0) return -1;
            if (js_truncated(js)) return 0;
        } else if (KEY_IS(key, n, "deviceProperties")) {
            if (read_device_properties(k) < 0) return -1;
        } else if (KEY_IS(key, n, "distributedInfo")) {
            if (read_distributed_info(k) < 0) return -1;
        } else if (KEY_IS(key, n, "baseTimeNanoseconds")) {
            int64_t base;
            r = read_int(k, &base);
            if (r > 0) {
                k->p->base_time_ns = base;
                k->saw_base_time = true;
            }
        } else r = js_skip(js);
        if (r < 0) return ml_fail(k->e, "%s", js_error(js));
    }
}

static void finish(kineto *k, bool truncated)
{
    ml_profile *p = k->p;
    for (size_t i = 0; i < k->props.len; i++) {
        device_prop *d = &k->props.v[i];
        for (size_t j = 0; j < p->devices.len; j++) {
            ml_device *dev = &p->devices.v[j];
            if (dev->kind != ML_DEV_CPU && dev->index == d->id) {
                dev->name = d->name;
                dev->total_memory = d->total;
            }
        }
    }
    /* Events first seen with a later ts than base may still be absolute if no base was given. */
    int64_t first = p->events.ts.len ? p->events.ts.v[0] : p->ops.ts.len ? p->ops.ts.v[0] : 0;
    p->time_is_absolute = k->saw_base_time || first > 946684800000000000LL; /* after 2000-01-01 */
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
    if (!k->memory_events)
        ml_note(p, "the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)");
    ml_profile_finish(p);
}

static void kineto_init(kineto *k, js_scanner *js, ml_profile *p, ml_err *e)
{
    memset(k, 0, sizeof *k);
    k->js = js;
    k->p = p;
    k->e = e;
    k->last_thread = ML_NONE32;
}

static void kineto_free(kineto *k)
{
    js_close(k->js);
    free(k->name);
    VEC_FREE(&k->props);
    VEC_FREE(&k->open);
}

/* The whole document from its first token (or, for the first half of a
 * split file, up to where that half ends). */
static int read_document(kineto *k)
{
    int rc;
    js_tok t = js_next(k->js);
    if (t == JS_OBJECT) rc = read_top_object(k);
    else if (t == JS_ARRAY) rc = read_events(k);
    else if (t == JS_ERROR) rc = ml_fail(k->e, "%s", js_error(k->js));
    else rc = ml_fail(k->e, "%s: byte 0: not a Chrome/Kineto trace (expected '{' or '[')", k->p->path);
    if (rc == 0 && !js_truncated(k->js) && js_next(k->js) == JS_ERROR) rc = ml_fail(k->e, "%s", js_error(k->js));
    return rc;
}

static int import_serial(ml_source *src, ml_profile *p, ml_err *e)
{
    kineto k;
    kineto_init(&k, js_open(src), p, e);
    int rc = read_document(&k);
    if (rc == 0) finish(&k, js_truncated(k.js));
    kineto_free(&k);
    return rc;
}

/* ---- big plain files: two halves on two threads ----
 * The file is split at an event boundary guessed near the middle ("},"
 * then "{").  A second thread parses the second half as if inside the event
 * list; this thread parses the first half.  The guess was right only if the
 * first half ends exactly where the next event of the list is due: then the
 * second half's profile is appended, and the result is the same as reading
 * the file in one pass.  Otherwise everything is read again in one pass. */

#define SPLIT_MIN_BYTES ((int64_t)32 << 20)
#define SPLIT_WINDOW (1 << 20)
enum { SPLIT_RETRY = 1 };

typedef struct half {
    kineto k;
    ml_profile *p;
    ml_err err;
    const char *stack;   /* containers open at the split: "oa" ({"traceEvents": [...) or "a" ([...) */
    int rc;
} half;

/* Finds where to split: the offset just after a ',' that separates two
 * events near the middle, and the containers open there.  0 or -1. */
static int find_split(const char *path, uint64_t size, uint64_t *at, const char **stack)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char head[256], *win = ml_malloc(SPLIT_WINDOW);
    ssize_t hn = pread(fd, head, sizeof head, 0);
    uint64_t mid = size / 2;
    ssize_t wn = pread(fd, win, SPLIT_WINDOW, (off_t)mid);
    close(fd);
    int rc = -1;
    size_t i = 0;
    while (hn > 0 && i < (size_t)hn && strchr(" \t\r\n", head[i])) i++;
    if (hn > 0 && i < (size_t)hn && (head[i] == '{' || head[i] == '[')) {
        *stack = head[i] == '{' ? "oa" : "a";
        for (ssize_t j = 0; wn > 0 && j + 2 < wn; j++) {
            if (win[j] != '}' || win[j + 1] != ',') continue;
            ssize_t q = j + 2;
            while (q < wn && strchr(" \t\r\n", win[q])) q++;
            if (q < wn && win[q] == '{') {
                *at = mid + (uint64_t)j + 2;
                rc = 0;
                break;
            }
        }
    }
    free(win);
    return rc;
}

static void *read_second_half(void *arg)
{
    half *h = arg;
    kineto *k = &h->k;
    h->rc = read_events(k);
    if (h->rc == 0 && !js_truncated(k->js) && h->stack[0] == 'o') h->rc = read_top_object(k);
    if (h->rc == 0 && !js_truncated(k->js) && js_next(k->js) == JS_ERROR)
        h->rc = ml_fail(k->e, "%s", js_error(k->js));
    return NULL;
}

/* Empties p (keeping its path and format), for a fresh start. */
static void profile_reset(ml_profile *p)
{
    ml_profile *fresh = ml_profile_new(p->path, p->format);
    ml_profile tmp = *p;
    *p = *fresh;
    *fresh = tmp;
    ml_profile_free(fresh);
}

static int import_in_two_halves(const char *path, uint64_t size, ml_profile *p, ml_err *e)
{
    uint64_t at;
    const char *stack;
    if (find_split(path, size, &at, &stack) < 0) return SPLIT_RETRY;
    ml_source *first_src, *second_src;
    if (ml_source_open_range(path, 0, at, &first_src, e) < 0) return -1;
    if (ml_source_open_range(path, at, size - at, &second_src, e) < 0) {
        ml_source_close(first_src);
        return -1;
    }
    half second;
    memset(&second, 0, sizeof second);
    second.p = ml_profile_new(path, p->format);
    second.stack = stack;
    kineto_init(&second.k, js_open_inside(second_src, at, stack), second.p, &second.err);
    pthread_t thread;
    bool threaded = pthread_create(&thread, NULL, read_second_half, &second) == 0;

    kineto first;
    kineto_init(&first, js_open(first_src), p, e);
    int rc = read_document(&first);
    if (threaded) pthread_join(thread, NULL);

    bool split_ok = threaded && rc == 0 && first.events_open && js_ended_after_comma(first.js, stack) &&
                    !(first.open.len && second.k.orphan_ends);
    if (split_ok && second.rc < 0) {
        *e = second.err; /* a real error in the second half; its offsets count from the file start */
        rc = -1;
    } else if (split_ok) {
        ml_profile_append(p, second.p);
        first.memory_events += second.k.memory_events;
        first.memory_without_addr += second.k.memory_without_addr;
        first.memory_without_totals += second.k.memory_without_totals;
        first.oom_events += second.k.oom_events;
        first.saw_base_time |= second.k.saw_base_time;
        for (size_t i = 0; i < second.k.props.len; i++) {
            device_prop d = second.k.props.v[i];
            d.name = ml_intern(p->strings, ml_s(second.p, d.name), ml_strlen(second.p->strings, d.name));
            VEC_PUSH(&first.props, d);
        }
        finish(&first, js_truncated(second.k.js));
    } else if (rc == 0 || js_input_ended(first.js)) {
        /* The guess was wrong, or the first half failed once its input ran
         * out (perhaps only because of the cut): read it all in one pass. */
        rc = SPLIT_RETRY;
        profile_reset(p);
    }
    kineto_free(&first);
    kineto_free(&second.k);
    ml_profile_free(second.p);
    ml_source_close(first_src);
    ml_source_close(second_src);
    return rc;
}

int ml_kineto_import(ml_source *src, ml_profile *p, ml_err *e)
{
    /* MEMLENS_SPLIT_MIN_BYTES lets tests split small files; MEMLENS_ONE_THREAD turns splitting off. */
    const char *min_env = getenv("MEMLENS_SPLIT_MIN_BYTES");
    int64_t min = min_env ? atoll(min_env) : SPLIT_MIN_BYTES;
    int64_t size = ml_source_plain_size(src);
    if (size >= min && size > 0 && !getenv("MEMLENS_ONE_THREAD")) {
        int rc = import_in_two_halves(ml_source_name(src), (uint64_t)size, p, e);
        if (rc != SPLIT_RETRY) return rc;
    }
    return import_serial(src, p, e);
}
