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

#include <stdlib.h>
#include <string.h>

enum { CAT_NONE, CAT_CPU_OP, CAT_ANNOTATION, CAT_PYTHON, CAT_INSTANT, CAT_OTHER };

#define ID_MAX 64

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
    uint32_t last_thread;          /* thread_of()'s one-entry cache */
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
        ml_series_push_event(ml_series_get(p, dev, ML_SERIES_ALLOCATED, 0, 0), f->ts, f->total_alloc, ev_index);
    if (f->has_total_reserved)
        ml_series_push_event(ml_series_get(p, dev, ML_SERIES_RESERVED, 0, 0), f->ts, f->total_reserved, ev_index);
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
    for (;;) {
        js_tok t = js_next(k->js);
        if (t == JS_ARRAY_END || t == JS_END) return 0;
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
        if (t == JS_ARRAY_END) return 0;
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

static void finish(kineto *k)
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
    if (js_truncated(k->js))
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

int ml_kineto_import(ml_source *src, ml_profile *p, ml_err *e)
{
    kineto k;
    memset(&k, 0, sizeof k);
    k.js = js_open(src);
    k.p = p;
    k.e = e;
    k.last_thread = ML_NONE32;
    int rc = 0;
    js_tok t = js_next(k.js);
    if (t == JS_OBJECT) rc = read_top_object(&k);
    else if (t == JS_ARRAY) rc = read_events(&k);
    else if (t == JS_ERROR) rc = ml_fail(e, "%s", js_error(k.js));
    else rc = ml_fail(e, "%s: byte 0: not a Chrome/Kineto trace (expected '{' or '[')", p->path);
    if (rc == 0) {
        t = js_truncated(k.js) ? JS_END : js_next(k.js);
        if (t == JS_ERROR) rc = ml_fail(e, "%s", js_error(k.js));
    }
    if (rc == 0) finish(&k);
    js_close(k.js);
    free(k.name);
    VEC_FREE(&k.props);
    VEC_FREE(&k.open);
    return rc;
}
