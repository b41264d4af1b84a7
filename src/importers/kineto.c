/*
 * kineto.c — importer for PyTorch / Kineto Chrome traces (*.pt.trace.json[.gz]).
 *
 * One streaming pass over the JSON: `[memory]` and `[OutOfMemory]` instant
 * events become allocator events (and their Total Allocated / Total Reserved
 * become the device's curves), `cpu_op` / `user_annotation` /
 * `python_function` intervals become ops; everything else (kernels, runtime
 * calls, flows) is skipped without being decoded, unless the command wants
 * the time side (p->trace, ML_WANT_TRACE): then every slice (X, B/E), flow
 * point (s/t/f), counter (C), instant (i, other than [memory]) and M name
 * goes into the trace store too, with the args the analyses read (see
 * trace_args below).  Handles every vintage:
 * old traces without `cat`, `Addr` or totals, string or numeric pid/tid/ts,
 * `baseTimeNanoseconds` (ts relative to it), B/E pairs as well as X events,
 * and a file cut inside (or right after) its event list.  Times and sizes of
 * 2^62 or more cannot be real and are refused (profile.h).
 */
#include "importer.h"
#include "decimal.h"
#include "byteblock.h"
#include "jsonscan.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include "par.h"
#include "phase.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CAT_NONE, CAT_CPU_OP, CAT_ANNOTATION, CAT_PYTHON, CAT_INSTANT, CAT_OTHER };

#define ID_MAX 64
/* A trace alternates between a few tracks (the main thread, the autograd
 * thread, a stream or two): one remembered track missed a quarter of the time. */
#define TRACK_MEMO 4
#define TOTALS_CACHE 64
#define NOT_AN_OP 0xFF             /* open_b.kind of a "B" whose interval memlens does not keep */

/* The fields of one trace event that memlens needs, collected in any key order. */
typedef struct event_fields {
    char ph;
    uint8_t cat;
    bool has_name, has_ts, has_dur;
    bool bad_dur;                  /* a "dur" that is no number (NaN, Infinity, a string, null, a list) */
    int64_t ts, dur;
    char pid[ID_MAX], tid[ID_MAX];
    size_t pid_len, tid_len;
    /* args of memory events */
    bool has_dev_type, has_dev_id, has_addr, has_bytes, has_total_alloc, has_total_reserved;
    int64_t dev_type, dev_id, bytes, total_alloc, total_reserved;
    uint64_t addr;
    uint64_t bad_arg_off;          /* first arg of the wrong type or out of range, reported only for memory events */
    const char *bad_arg, *bad_arg_why;
    /* the time side (only read when k->t) */
    uint8_t skind;                 /* ml_slice_kind from cat */
    uint8_t dev_kind;              /* ml_dev_kind the cat names (mtia_*, xpu_*, hpu_op, privateuse1_*), else CUDA */
    bool bind_enclosing, has_id;   /* flows: "bp": "e"; "id" */
    ml_str cat_id;                 /* the cat, interned */
    int64_t id;
} event_fields;

/* Args of the time side, -1 / 0 when absent (trace.h says what each is). */
typedef struct trace_args {
    int64_t corr, ext, seq, fwd, py_module, device, stream, regs, smem, bytes, sort_index;
    int32_t grid[3], block[3];
    float blocks_per_sm, occupancy, membw;
    ml_str dims, types, stack, name; /* name: an M event's args "name" */
    ml_comm_args comm;
    int64_t wait_stream, wait_corr; /* cuda_sync's */
} trace_args;

typedef struct counter_val {
    ml_str key;
    double value;
} counter_val;

typedef struct device_prop {
    int64_t id, total;
    ml_str name;
    int64_t cc_major, cc_minor, num_sms, max_threads_per_sm, max_threads_per_block, regs_per_block, regs_per_sm,
        warp_size, shared_mem_per_block, shared_mem_per_sm;
} device_prop;

typedef struct open_b {             /* a "B" event waiting for its "E" */
    uint32_t thread;
    int64_t ts;
    ml_str name;
    uint8_t kind;                   /* ml_op_kind, or NOT_AN_OP */
    /* the slice it makes (k->t only) */
    ml_str slice_name;
    uint32_t track, info;
    int64_t corr, ext;
    uint8_t skind;
} open_b;

enum { CAT_CACHE = 8, CAT_CACHE_LEN = 31 };
enum { SHAPES = 32 };              /* event shapes remembered (a realistic trace has about 20) */
enum { COMPACT_MEMO = 256 };       /* "Input Dims" and "Input type" texts remembered */

typedef struct kineto {
    js_scanner *js;
    ml_profile *p;
    ml_err *e;
    char *name;                    /* the current event's name (copied out of the scanner buffer) */
    size_t name_len, name_cap;
    VEC(device_prop) props;
    VEC(open_b) open;
    bool saw_base_time;
    uint64_t base_time_off;        /* where baseTimeNanoseconds was read */
    bool saw_event_list;           /* a "traceEvents" list, or a bare array of events */
    bool events_open;              /* inside the event list (where a split may fall) */
    size_t list_objects, list_others; /* elements of the event list: objects, and anything else */
    uint64_t list_off;             /* where the event list begins */
    size_t orphan_ends;            /* "E" events with no open "B" on their thread */
    size_t unclosed;               /* "B" ops closed at the end of the trace for want of an "E" */
    bool has_times;                /* min_ts / max_end are set */
    int64_t min_ts, max_end;       /* earliest ts and latest ts + dur of all events (before the base is added) */
    int64_t bytes_moved;           /* sum of |Bytes| of allocs and frees: kept below ML_VALUE_LIMIT */
    uint32_t last_thread;          /* thread_of()'s one-entry cache */
    uint32_t totals[TOTALS_CACHE][2]; /* device -> series index + 1 of its allocated / reserved totals */
    char last_pid[ID_MAX], last_tid[ID_MAX];
    size_t last_pid_len, last_tid_len;
    size_t memory_events, memory_without_addr, memory_without_totals, oom_events;
    /* the CPU's Total Allocated before its first memory event (see the note at the end) */
    bool cpu_total_seen;
    int64_t cpu_total_before;
    /* the time side: NULL unless the command wants it */
    ml_trace *t;
    trace_args ta;
    VEC(counter_val) cvals;        /* the current event's numeric args, for "C" events */
    VEC(char) json;                /* compact JSON text of an arg being read */
    struct track_memo {            /* track_of()'s cache of recent (pid, tid) texts */
        uint32_t track;            /* ML_NONE32: unused */
        uint8_t pid_len, tid_len;
        char pid[ID_MAX], tid[ID_MAX];
    } tracks[TRACK_MEMO];
    unsigned tracks_next;          /* the entry to replace next */
    size_t unclosed_slices;        /* "B" events of any kind closed at the end of the trace */
    size_t bad_durs;               /* "X" events dropped: their dur negative or not a number */
    uint64_t bad_dur_off;          /* the first one's byte */
    char bad_dur_name[64];         /* and its name */
    ml_str name_id;                /* the current event's name interned, once (event_name) */
    bool name_interned;
    struct { uint8_t len; char text[CAT_CACHE_LEN]; ml_str id; } cats[CAT_CACHE]; /* cat_of()'s cache */
    unsigned cats_next;
    bool trace_only;               /* ml_kineto_trace_add: the time side only, no ops or memory */
    struct shape *shapes[SHAPES];  /* event shapes learned (fast_event), most recently used first */
    unsigned nshapes;
    struct shape *spare;           /* where the next one is recorded */
    struct compact_memo {          /* compact_value()'s memo of args text, by a hash of its bytes */
        uint64_t hash;
        size_t len;                /* 0: unused */
        ml_str id;
    } compact[COMPACT_MEMO];
} kineto;

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

static bool key_is(const char *k, size_t n, const char *lit, size_t lit_len)
{
    return n == lit_len && memcmp(k, lit, n) == 0;
}
#define KEY_IS(k, n, lit) key_is(k, n, lit, sizeof lit - 1)

/* The scanner's error (or the one js_fail() gave it) as the import's. */
static int scan_error(kineto *k) { return ml_fail(k->e, "%s", js_error(k->js)); }

/* Value readers: 1 if the value was read, 0 if it had another type or did
 * not fit (skipped), -1 on error. */
static int read_int(kineto *k, int64_t *out)
{
    int r = js_value_number(k->js, 0, out);
    return r == JS_NUM_RANGE ? 0 : r;
}

/* A number that must stay within ML_VALUE_LIMIT (a time in ns, a size):
 * one out of range is bad input.  `scale`: 3 reads µs (number or string,
 * 3 decimals kept exactly) as ns. */
static int read_bounded(kineto *k, int scale, const char *what, int64_t *out)
{
    int r = js_value_number(k->js, scale, out);
    if (r == JS_NUM_RANGE || (r == 1 && !ml_value_ok(*out)))
        return js_fail(k->js, k->e, "\"%s\" is out of range (a time or size of 2^62 or more cannot be real)", what);
    return r < 0 ? scan_error(k) : r; /* a scanner error: the caller may not report it (baseTimeNanoseconds) */
}

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

/* ---- the time side's args ---- */

static const trace_args TA_NONE = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, {-1, -1, -1}, {-1, -1, -1}, -1.0f, -1.0f, 0.0f, 0, 0, 0, 0,
    {0, 0, -1, -1, -1}, -1, -1};

static void json_put(kineto *k, const char *s, size_t n)
{
    VEC_RESERVE(&k->json, k->json.len + n);
    memcpy(k->json.v + k->json.len, s, n);
    k->json.len += n;
}

/* The next value as compact JSON text, interned: "[[32, 3], []]" (PyTorch's
 * own spelling of shapes, ", " between elements).  Strings inside keep their
 * escapes; a value that is one string (torch_npu writes "Input Dims" as
 * "2,3;\r\n4") is kept as its decoded text. */
static const unsigned char compact_numch[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
    ['N'] = 1, ['a'] = 1, ['I'] = 1, ['n'] = 1, ['f'] = 1, ['i'] = 1, ['t'] = 1, ['y'] = 1};

static inline size_t find_stop(const char *p, size_t j, bool brackets);

/* The length of the array or object at s[0] when it lies whole in s[0..n)
 * and is written exactly as read_compact() would write it (", " and ": "
 * between items, no other blanks, no trailing comma, strings without
 * backslashes, numbers that start with a digit or '-' and a digit, true,
 * false, null); 0 otherwise.  PyTorch writes "Input Dims" and "Input type"
 * so: the text is then interned as it is, without tokenizing it.  s[n] is
 * the scanner's NUL with 16 readable bytes past it (js_peek_value), so
 * strings are scanned 16 bytes at a time. */
static size_t compact_span(const char *s, size_t n)
{
    char stack[32];
    int depth = 0;
    enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, AFTER } st = VALUE;
    if (n == 0 || (s[0] != '[' && s[0] != '{')) return 0;
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        switch (st) {
        case VALUE_OR_CLOSE:
            if (c == ']') goto close;
            /* fall through */
        case VALUE:
            if (c == '[' || c == '{') {
                if (depth == (int)sizeof stack) return 0;
                stack[depth++] = c;
                i++;
                st = c == '[' ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
                continue;
            }
            if (c == '"') {
                size_t q = find_stop(s, i + 1, false);
                if (q >= n || s[q] != '"') return 0;
                i = q + 1;
            } else if ((c >= '0' && c <= '9') || (c == '-' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
                i++;
                while (i < n && compact_numch[(unsigned char)s[i]]) i++;
            } else if (c == 't' && n - i >= 4 && !memcmp(s + i, "true", 4)) i += 4;
            else if (c == 'f' && n - i >= 5 && !memcmp(s + i, "false", 5)) i += 5;
            else if (c == 'n' && n - i >= 4 && !memcmp(s + i, "null", 4)) i += 4;
            else return 0;
            st = AFTER;
            continue;
        case KEY_OR_CLOSE:
            if (c == '}') goto close;
            /* fall through */
        case KEY: {
            if (c != '"') return 0;
            size_t q = find_stop(s, i + 1, false);
            if (q >= n || s[q] != '"') return 0;
            i = q + 1;
            if (n - i < 2 || s[i] != ':' || s[i + 1] != ' ') return 0;
            i += 2;
            st = VALUE;
            continue;
        }
        case AFTER:
            if (c == ',') {
                if (n - i < 2 || s[i + 1] != ' ') return 0;
                i += 2;
                st = stack[depth - 1] == '{' ? KEY : VALUE;
                continue;
            }
            if (c == ']' || c == '}') goto close;
            return 0;
        }
    close:
        if (c != stack[depth - 1] + 2) return 0; /* '[' + 2 = ']', '{' + 2 = '}' */
        i++;
        if (--depth == 0) return i;
        st = AFTER;
    }
    return 0;
}

static int read_compact(kineto *k, ml_str *out)
{
    js_scanner *js = k->js;
    size_t avail, len;
    const char *raw = js_peek_value(js, &avail);
    if (raw && (len = compact_span(raw, avail)) > 0) {
        *out = ml_intern(k->p->strings, raw, len);
        js_consume_value(js, len);
        return 1;
    }
    k->json.len = 0;
    int depth = 0;
    bool comma = false;
    do {
        js_tok t = js_next(js);
        const char *txt;
        size_t n;
        if (t == JS_ERROR) return -1;
        if (t == JS_END) return js_fail(js, k->e, "the file ends inside an args value");
        if (t == JS_STRING && depth == 0) {
            txt = js_has_escape(js) ? js_unescape(js, &n) : js_text(js, &n);
            *out = ml_intern(k->p->strings, txt, n);
            return 1;
        }
        if (comma && t != JS_OBJECT_END && t != JS_ARRAY_END) json_put(k, ", ", 2);
        comma = true;
        switch (t) {
        case JS_OBJECT: json_put(k, "{", 1), depth++, comma = false; break;
        case JS_ARRAY: json_put(k, "[", 1), depth++, comma = false; break;
        case JS_OBJECT_END: json_put(k, "}", 1), depth--; break;
        case JS_ARRAY_END: json_put(k, "]", 1), depth--; break;
        case JS_KEY:
        case JS_STRING:
            txt = js_text(js, &n);
            json_put(k, "\"", 1), json_put(k, txt, n), json_put(k, "\"", 1);
            if (t == JS_KEY) json_put(k, ": ", 2), comma = false;
            break;
        case JS_NUMBER: txt = js_text(js, &n), json_put(k, txt, n); break;
        case JS_TRUE: json_put(k, "true", 4); break;
        case JS_FALSE: json_put(k, "false", 5); break;
        default: json_put(k, "null", 4); break;
        }
        if (t == JS_KEY) continue; /* its value follows */
    } while (depth > 0);
    *out = ml_intern(k->p->strings, k->json.v, k->json.len);
    return 1;
}

/* Skips an arg's value; a plain number straight from the buffer (as
 * js_skip() would lex it: the run of number bytes). */
static int skip_arg(kineto *k)
{
    size_t avail;
    const char *p = js_peek_value(k->js, &avail);
    if (p && ((p[0] >= '0' && p[0] <= '9') || (p[0] == '-' && p[1] >= '0' && p[1] <= '9'))) {
        size_t i = 1;
        while (i < avail && compact_numch[(unsigned char)p[i]]) i++;
        if (i < avail) {
            js_consume_value(k->js, i);
            return 0;
        }
    }
    return js_skip(k->js);
}

/* grid / block: [x, y, z] */
/* "[x, y, z]" of small non-negative numbers at p (40 bytes readable), as
 * Kineto writes grid and block: its length, or 0 when it is not so. */
static size_t plain_dim3(const char *p, int32_t *out)
{
    if (p[0] != '[') return 0;
    int32_t v[3];
    size_t i = 1;
    int got = 0;
    for (; got < 3; got++) {
        size_t d = i;
        int32_t x = 0;
        while (i - d < 9 && p[i] >= '0' && p[i] <= '9') x = x * 10 + (p[i++] - '0');
        if (i == d || compact_numch[(unsigned char)p[i]]) break;
        v[got] = x;
        if (got < 2 && p[i] == ',' && p[i + 1] == ' ') i += 2;
        else {
            got++;
            break;
        }
    }
    if (got != 3 || p[i] != ']') return 0;
    memcpy(out, v, sizeof v);
    return i + 1;
}

static int read_dim3(kineto *k, int32_t *out)
{
    js_scanner *js = k->js;
    size_t avail, len;
    const char *p = js_peek_value(js, &avail);
    if (p && avail >= 40 && (len = plain_dim3(p, out)) > 0) {
        js_consume_value(js, len);
        return 1;
    }
    js_tok t = js_next(js);
    if (t == JS_ERROR) return -1;
    if (t == JS_OBJECT) return js_skip_rest(js);
    if (t != JS_ARRAY) return 0;
    for (int i = 0;; i++) {
        t = js_next(js);
        if (t == JS_ARRAY_END) return 1;
        if (t == JS_ERROR || t == JS_END) return -1;
        int64_t v;
        if (t == JS_NUMBER && i < 3 && js_number(js, 0, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) out[i] = (int32_t)v;
        else if ((t == JS_OBJECT || t == JS_ARRAY) && js_skip_rest(js) < 0) return -1;
    }
}

static int read_double(kineto *k, double *out)
{
    const char *txt;
    size_t n;
    int r = js_value_scalar_text(k->js, &txt, &n);
    if (r <= 0) return r;
    return ml_parse_double(txt, n, out) == 0 ? 1 : 0;
}

static int read_float(kineto *k, float *out)
{
    double d;
    int r = read_double(k, &d);
    if (r > 0) *out = (float)d;
    return r;
}

/* One arg of a non-memory event (the key just read). */
static int read_trace_arg(kineto *k, const event_fields *f, const char *key, size_t n)
{
    trace_args *a = &k->ta;
    if (f->ph == 'C') { /* every number is a value of the counter */
        double v;
        int r = read_double(k, &v);
        if (r > 0) {
            counter_val c = {ml_intern(k->p->strings, key, n), v};
            VEC_PUSH(&k->cvals, c);
        }
        return r;
    }
    int64_t *dst = NULL, group = -1;
    const char *s;
    size_t m;
    int r;
    switch (n) {
    case 4:
        if (KEY_IS(key, n, "grid")) return read_dim3(k, a->grid);
        if (KEY_IS(key, n, "name") && (f->ph == 'M' || !f->ph)) {
            r = js_value_string(k->js, &s, &m);
            if (r > 0) a->name = ml_intern(k->p->strings, s, m);
            return r;
        }
        break;
    case 5:
        if (KEY_IS(key, n, "block")) return read_dim3(k, a->block);
        if (KEY_IS(key, n, "bytes")) dst = &a->bytes;
        else if (KEY_IS(key, n, "dtype")) {
            r = js_value_string(k->js, &s, &m);
            if (r > 0) a->comm.dtype = ml_intern(k->p->strings, s, m);
            return r;
        }
        break;
    case 6:
        if (KEY_IS(key, n, "device")) dst = &a->device;
        else if (KEY_IS(key, n, "stream")) dst = &a->stream;
        break;
    case 10:
        if (KEY_IS(key, n, "Input Dims") || KEY_IS(key, n, "Input dims")) return read_compact(k, &a->dims);
        if (KEY_IS(key, n, "Input type")) return read_compact(k, &a->types);
        if (KEY_IS(key, n, "sort_index")) dst = &a->sort_index;
        else if (KEY_IS(key, n, "Group size")) dst = &group;
        else if (KEY_IS(key, n, "Call stack")) {
            r = js_value_string(k->js, &s, &m);
            if (r > 0) a->stack = ml_intern(k->p->strings, s, m);
            return r;
        }
        break;
    case 11:
        if (KEY_IS(key, n, "correlation")) dst = &a->corr;
        else if (KEY_IS(key, n, "External id") || KEY_IS(key, n, "external id")) dst = &a->ext;
        break;
    case 13:
        if (KEY_IS(key, n, "connection_id")) dst = &a->corr; /* Ascend: CANN call <-> device task */
        else if (KEY_IS(key, n, "In msg nelems")) dst = &a->comm.in_nelems;
        else if (KEY_IS(key, n, "Fwd thread id")) dst = &a->fwd;
        else if (KEY_IS(key, n, "shared memory")) dst = &a->smem;
        else if (KEY_IS(key, n, "blocks per SM")) return read_float(k, &a->blocks_per_sm);
        break;
    case 14:
        if (KEY_IS(key, n, "Out msg nelems")) dst = &a->comm.out_nelems;
        break;
    case 15:
        if (KEY_IS(key, n, "Sequence number")) dst = &a->seq;
        else if (KEY_IS(key, n, "Collective name")) {
            r = js_value_string(k->js, &s, &m);
            if (r > 0) a->comm.collective = ml_intern(k->p->strings, s, m);
            return r;
        }
        break;
    case 16:
        if (KEY_IS(key, n, "Python module id")) dst = &a->py_module;
        break;
    case 20:
        if (KEY_IS(key, n, "registers per thread")) dst = &a->regs;
        break;
    case 23:
        if (KEY_IS(key, n, "memory bandwidth (GB/s)")) return read_float(k, &a->membw);
        break;
    case 25:
        if (KEY_IS(key, n, "est. achieved occupancy %")) return read_float(k, &a->occupancy);
        break;
    }
    /* "ph" may come after "args" (torch_npu writes it last): until it is
     * known, numbers are also kept as possible counter values. */
    bool maybe_counter = !f->ph;
    if (!dst && !maybe_counter) return skip_arg(k) < 0 ? -1 : 0;
    double d;
    if (!dst) r = read_double(k, &d);
    else {
        int64_t v;
        r = read_int(k, &v);
        if (r > 0) *dst = v, d = (double)v;
    }
    if (r > 0 && maybe_counter) {
        counter_val c = {ml_intern(k->p->strings, key, n), d};
        VEC_PUSH(&k->cvals, c);
    }
    if (dst == &group && r > 0 && group >= 0 && group <= INT32_MAX) a->comm.group_size = (int32_t)group;
    return r;
}


/* ---- the args of a non-memory event, straight from the buffer ----
 * Kineto writes them plainly; fast_trace_args() reads such an object as
 * read_args() would (same keys, same values, in the same order, so strings
 * are interned in the same order), and gives up on anything else (an escape,
 * a value of an unusual form, a memory event's keys, an object not wholly
 * buffered): the token path then reads it all again, to the same effect. */

static const unsigned char ws_byte[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};

/* Kineto indents every arg on its own line: runs of 5-12 blanks, skipped
 * 16 bytes at a time (p[n] is a NUL with 16 readable bytes past it). */
static inline size_t ws_at(const char *p, size_t i)
{
    if (!ws_byte[(unsigned char)p[i]]) return i;
    if (!ws_byte[(unsigned char)p[i + 1]]) return i + 1;
#ifdef __SSE2__
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    for (i += 2;; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl)),
                                  _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab)));
        unsigned m = ~(unsigned)_mm_movemask_epi8(ws) & 0xffffu;
        if (m) return i + (unsigned)__builtin_ctz(m);
    }
#else
    while (ws_byte[(unsigned char)p[i]]) i++;
    return i;
#endif
}

/* The first index >= j holding '"', '\\' or NUL (plain_string), or, with
 * brackets, also one of [ ] { } (plain_skip).  The buffer from
 * js_peek_value() ends in a NUL with 16 readable bytes past it. */
static inline size_t find_stop(const char *p, size_t j, bool brackets)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), zero = _mm_setzero_si128();
    const __m128i fold = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (;; j += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, zero));
        if (brackets) {
            __m128i f = _mm_or_si128(x, fold); /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
            hit = _mm_or_si128(hit, _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)));
        } else {
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(x, bslash));
        }
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return j + (unsigned)__builtin_ctz(m);
    }
#else
    for (;; j++) {
        char c = p[j];
        if (c == '"' || c == 0 || (brackets ? c == '[' || c == ']' || c == '{' || c == '}' : c == '\\')) return j;
    }
#endif
}


/* A string at p[i] == '"' without backslashes: the index after its closing
 * quote, or 0.  p[n] is the scanner's sentinel NUL. */
static inline size_t plain_string(const char *p, size_t i, size_t n)
{
    size_t j = find_stop(p, i + 1, false);
    return j < n && p[j] == '"' ? j + 1 : 0;
}

/* The key of an object member at p[i] == '"' (a plain string), then its
 * colon: the key in *key, *kn, and the index of the value, or 0. */
static inline size_t member_at(const char *p, size_t i, size_t n, const char **key, size_t *kn)
{
    if (p[i] != '"') return 0;
    size_t kend = plain_string(p, i, n);
    if (!kend) return 0;
    *key = p + i + 1;
    *kn = kend - i - 2;
    i = ws_at(p, kend);
    if (i >= n || p[i] != ':') return 0;
    return ws_at(p, i + 1);
}

/* The run of decimal digits at p (8 bytes at a time: p is followed by at
 * least 8 readable bytes past any digit, as the scanner's NUL and padding
 * ensure): its length, up to 24 (more are not looked at), and, when it is at
 * most 19, its value in *v. */
static inline unsigned digit_run(const char *p, uint64_t *v)
{
    uint64_t total = 0;
    unsigned len = 0;
    for (int round = 0; round < 3; round++) {
        uint64_t x;
        memcpy(&x, p + len, 8);
        /* a byte is a digit when its high nibble is 3, and still is 3 after adding 6
         * (a carry out of a non-digit byte only reaches the bytes after it) */
        uint64_t other = ((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ^
                         0x3333333333333333ull;
        unsigned k = other ? (unsigned)__builtin_ctzll(other) / 8 : 8;
        if (k == 0) break;
        /* the k digits to the top bytes (zeros before them), then 8 digits to a number */
        x = (x - 0x3030303030303030ull) << (64 - 8 * k);
        x = x * 10 + (x >> 8);
        x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
             (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
        static const uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        total = total * scale[k] + x;
        len += k;
        if (k < 8) break;
    }
    *v = total;
    return len;
}

/* The number of digits at p, up to 8 (digit_run() without the value). */
static inline unsigned digits8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t other = ((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ^
                     0x3333333333333333ull;
    return other ? (unsigned)__builtin_ctzll(other) / 8 : 8;
}

/* A number at p[i] as lex_number() takes it (a digit or '-' and a digit,
 * then the run of number bytes): the index after it, or 0. */
static inline size_t plain_number(const char *p, size_t i, size_t n)
{
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] == '-' && p[i + 1] >= '0' && p[i + 1] <= '9'))) return 0;
    i += (p[i] == '-');
    unsigned d;
    while ((d = digits8(p + i)) == 8) i += 8;
    i += d;
    while (i < n && compact_numch[(unsigned char)p[i]]) i++;
    return i < n ? i : 0;
}

/* The container at p[i] ('{' or '['), skipped byte by byte: the index
 * after it, or 0. */
static size_t skip_bytewise(const char *p, size_t i, size_t n)
{
    char c = p[i];
    char closer[64];
    int depth = 0;
    closer[depth++] = (char)(c + 2);
    for (i++; i < n; i++) {
        i = find_stop(p, i, true);
        if (i >= n) return 0;
        c = p[i];
        if (c == '"') {
            while ((i = find_stop(p, i + 1, false)) < n && p[i] == '\\') i++; /* past each escaped byte */
            if (i >= n) return 0;
        } else if (c == '[' || c == '{') {
            if (depth == (int)sizeof closer) return 0;
            closer[depth++] = (char)(c + 2);
        } else if (c == ']' || c == '}') {
            if (c != closer[--depth]) return 0;
            if (depth == 0) return i + 1;
        }
    }
    return 0;
}


#ifdef __SSE2__
/* The container at p[i] ('{' or '['), skipped as js_skip() does (every
 * closing bracket must match its opening one; strings are passed over), 64
 * bytes at a time: quotes and brackets as bit masks (eq64: bit k = whether
 * byte k of the block is c, see byteblock.h), strings masked out by the
 * quotes' odd prefix, and only the brackets outside them visited, their
 * kinds kept as a stack of bits (64 levels; deeper, or a backslash, and the
 * bytes are read one by one).  The index after it, or 0.  Inlined into one
 * function per instruction set, each with its own eq64. */
typedef uint64_t block_eq_fn(const char *b, char c, char fold);
static inline __attribute__((always_inline)) size_t skip_blocks(const char *p, size_t i, size_t n, block_eq_fn *eq64)
{
    uint64_t kinds = 0, inside = 0; /* kinds: bit set = '['; inside: the block before ended in a string */
    unsigned depth = 0;
    char last[64];
    for (size_t j = i; j < n; j += 64) {
        const char *b = p + j;
        if (n - j < 64) { /* the end of the buffer: its bytes, then NULs */
            memset(last, 0, sizeof last);
            memcpy(last, b, n - j);
            b = last;
        }
        if (eq64(b, '\\', 0)) return skip_bytewise(p, i, n);
        uint64_t str = ml_block_odd_prefix(eq64(b, '"', 0)) ^ inside;
        inside = (uint64_t)((int64_t)str >> 63);
        uint64_t br = (eq64(b, '{', 0x20) | eq64(b, '}', 0x20)) & ~str;
        while (br) {
            unsigned k = (unsigned)__builtin_ctzll(br);
            br &= br - 1;
            char c = b[k];
            if (c == '{' || c == '[') {
                if (depth == 64) return skip_bytewise(p, i, n);
                kinds = kinds << 1 | (c == '[');
                depth++;
            } else {
                if ((kinds & 1) != (c == ']')) return 0;
                kinds >>= 1;
                if (--depth == 0) return j + k + 1;
            }
        }
    }
    return 0;
}
#endif

static size_t skip_container_sse2(const char *p, size_t i, size_t n)
{
#ifdef __SSE2__
    return skip_blocks(p, i, n, ml_block_eq);
#else
    return skip_bytewise(p, i, n);
#endif
}

#ifdef ML_HAVE_BLOCK_AVX2
__attribute__((target("avx2"))) static size_t skip_container_avx2(const char *p, size_t i, size_t n)
{
    return skip_blocks(p, i, n, ml_block_eq_avx2);
}
#endif

static size_t skip_container(const char *p, size_t i, size_t n)
{
#ifdef ML_HAVE_BLOCK_AVX2
    static int avx2 = -1;
    if (avx2 < 0) avx2 = __builtin_cpu_supports("avx2") != 0;
    if (avx2) return skip_container_avx2(p, i, n);
#endif
    return skip_container_sse2(p, i, n);
}

/* Any value at p[i], skipped as js_skip() does (containers: brackets must
 * match, strings may hold escapes): the index after it, or 0. */
static size_t plain_skip(const char *p, size_t i, size_t n)
{
    char c = p[i];
    if (c == '"') return plain_string(p, i, n);
    if (c == 't') return n - i > 4 && !memcmp(p + i, "true", 4) ? i + 4 : 0;
    if (c == 'f') return n - i > 5 && !memcmp(p + i, "false", 5) ? i + 5 : 0;
    if (c == 'n') return n - i > 4 && !memcmp(p + i, "null", 4) ? i + 4 : 0;
    if (c != '[' && c != '{') return plain_number(p, i, n);
    return skip_container(p, i, n);
}

/* A plain integer (what js_value_number(scale 0) reads exactly): the index
 * after it, or 0. */
static inline size_t plain_int(const char *p, size_t i, size_t n, int64_t *out)
{
    size_t j = i + (p[i] == '-');
    uint64_t v;
    unsigned len = digit_run(p + j, &v);
    j += len;
    if (len == 0 || len > 18 || j >= n || compact_numch[(unsigned char)p[j]]) return 0;
    *out = p[i] == '-' ? -(int64_t)v : (int64_t)v;
    return j;
}

/* The key is lit (kn known to match by the switch; a constant size lets the
 * compiler compare inline). */
#define KEQ(lit) (memcmp(key, lit, sizeof lit - 1) == 0)

/* ---- event shapes ----
 * The events of one kind are written alike: the same keys in the same
 * order, the same blanks, the same ph and cat; only the other values vary.
 * fast_event() records such a shape of the events it reads: the text
 * between the values that vary (literals), and what each of those values is
 * (slots).  An event that matches a shape, literal for literal, has its
 * values read straight into their fields (shape_event): no key is looked
 * at.  A literal covers the constant values (ph, cat, bp), whose fields the
 * shape keeps; a name slot requires the name to be a memory event's, or
 * not, as it was in the event the shape was learned from (what is read of
 * the args depends on it). */
enum {
    SH_TS, SH_DUR, SH_PID, SH_TID, SH_NAME_MEMORY, SH_NAME_OTHER, SH_ID, SH_SKIP, SH_ADDR,
    SH_BYTES, SH_DEV_TYPE, SH_DEV_ID, SH_TOTAL_ALLOC, SH_TOTAL_RESERVED,
    SH_TA /* + a TA_* kind: an arg of the time side, at shape.at in k->ta */
};
#define SHAPE_SLOTS 32
#define SHAPE_TEXT 1024

typedef struct shape {
    unsigned nslots;
    bool ok;                          /* while recording: the event fits a shape */
    size_t from;                      /* while recording: where the current literal began in the event */
    uint16_t lit_end[SHAPE_SLOTS + 1]; /* literal s ends at text[lit_end[s]] (and begins where s - 1 ended);
                                       * literal nslots ends the event */
    uint8_t slot[SHAPE_SLOTS];
    uint16_t at[SHAPE_SLOTS];         /* SH_TA slots: the field's offset in trace_args */
    event_fields proto;               /* the constant fields */
    char text[SHAPE_TEXT + 16];       /* (16 bytes that 16-byte compares may read) */
} shape;

/* While recording: the literal up to p[at], then a slot that ends at p[end]
 * (its field at offset `off` of trace_args, for SH_TA slots). */
static void shape_slot_at(shape *sh, const char *p, size_t at, size_t end, int kind, size_t off)
{
    if (!sh || !sh->ok) return;
    size_t have = sh->nslots ? sh->lit_end[sh->nslots - 1] : 0, len = at - sh->from;
    if (sh->nslots == SHAPE_SLOTS || have + len > SHAPE_TEXT) {
        sh->ok = false;
        return;
    }
    memcpy(sh->text + have, p + sh->from, len);
    sh->lit_end[sh->nslots] = (uint16_t)(have + len);
    sh->at[sh->nslots] = (uint16_t)off;
    sh->slot[sh->nslots++] = (uint8_t)kind;
    sh->from = end;
}

static void shape_slot(shape *sh, const char *p, size_t at, size_t end, int kind)
{
    shape_slot_at(sh, p, at, end, kind, 0);
}

/* Whether the len bytes at a are those at b (16 readable bytes past each). */
static inline bool same_bytes(const char *a, const char *b, size_t len)
{
#ifdef __SSE2__
    size_t i = 0;
    for (; i + 16 <= len; i += 16)
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                                             _mm_loadu_si128((const __m128i *)(const void *)(b + i)))) != 0xFFFF)
            return false;
    if (i == len) return true;
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                                                            _mm_loadu_si128((const __m128i *)(const void *)(b + i))));
    unsigned need = (1u << (len - i)) - 1;
    return (m & need) == need;
#else
    return memcmp(a, b, len) == 0;
#endif
}

/* What trace_args_at() does with an arg of the time side, by its key: a
 * TA_* kind, and the field's offset in trace_args. */
enum { TA_SKIP, TA_INT, TA_GROUP, TA_DIM3, TA_COMPACT, TA_STRING, TA_FLOAT, TA_REFUSE };
#define TA(kind_, field) (*off = offsetof(trace_args, field), (kind_))

static int trace_arg_kind(const char *key, size_t kn, size_t *off)
{
    *off = 0;
    switch (kn) {
    case 4:
        if (KEQ("grid")) return TA(TA_DIM3, grid);
        if (KEQ("Addr")) return TA_REFUSE;
        break;
    case 5:
        if (KEQ("block")) return TA(TA_DIM3, block);
        if (KEQ("bytes")) return TA(TA_INT, bytes);
        if (KEQ("dtype")) return TA(TA_STRING, comm.dtype);
        if (KEQ("Bytes")) return TA_REFUSE;
        break;
    case 6:
        if (KEQ("device")) return TA(TA_INT, device);
        if (KEQ("stream")) return TA(TA_INT, stream);
        break;
    case 9:
        if (KEQ("Device Id")) return TA_REFUSE;
        break;
    case 10:
        if (KEQ("Input Dims") || KEQ("Input dims")) return TA(TA_COMPACT, dims);
        if (KEQ("Input type")) return TA(TA_COMPACT, types);
        if (KEQ("sort_index")) return TA(TA_INT, sort_index);
        if (KEQ("Group size")) return TA_GROUP;
        if (KEQ("Call stack")) return TA(TA_STRING, stack);
        break;
    case 11:
        if (KEQ("correlation")) return TA(TA_INT, corr);
        if (KEQ("External id") || KEQ("external id")) return TA(TA_INT, ext);
        if (KEQ("Device Type")) return TA_REFUSE;
        break;
    case 13:
        if (KEQ("connection_id")) return TA(TA_INT, corr);
        if (KEQ("In msg nelems")) return TA(TA_INT, comm.in_nelems);
        if (KEQ("Fwd thread id")) return TA(TA_INT, fwd);
        if (KEQ("shared memory")) return TA(TA_INT, smem);
        if (KEQ("blocks per SM")) return TA(TA_FLOAT, blocks_per_sm);
        break;
    case 14:
        if (KEQ("Out msg nelems")) return TA(TA_INT, comm.out_nelems);
        if (KEQ("Total Reserved")) return TA_REFUSE;
        break;
    case 15:
        if (KEQ("Sequence number")) return TA(TA_INT, seq);
        if (KEQ("Collective name")) return TA(TA_STRING, comm.collective);
        if (KEQ("Total Allocated")) return TA_REFUSE;
        break;
    case 16:
        if (KEQ("Python module id")) return TA(TA_INT, py_module);
        break;
    case 20:
        if (KEQ("registers per thread")) return TA(TA_INT, regs);
        break;
    case 23:
        if (KEQ("memory bandwidth (GB/s)")) return TA(TA_FLOAT, membw);
        break;
    case 25:
        if (KEQ("est. achieved occupancy %")) return TA(TA_FLOAT, occupancy);
        break;
    }
    return TA_SKIP;
}
#undef TA

/* A hash of n bytes (8 at a time; 7 bytes past them may be read). */
static inline uint64_t bytes_hash(const char *s, size_t n)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    if (i < n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ (w & (~0ull >> (8 * (8 - (n - i)))))) * 0xff51afd7ed558ccdull;
    }
    return h ^ h >> 29;
}

/* "Input Dims" / "Input type" at p[i] as read_compact() keeps them: the text
 * as written when compact_span() finds it so, interned.  The same text
 * comes back again and again: a memo of the last ones (their interned
 * text, found by a hash of the bytes) saves the check and the interning.
 * The index after the value, or 0. */
static size_t compact_value(kineto *k, const char *p, size_t i, size_t n, ml_str *out)
{
    if (p[i] != '[' && p[i] != '{') return 0;
    size_t end = skip_container(p, i, n);
    if (!end) return 0;
    size_t len = end - i;
    uint64_t h = bytes_hash(p + i, len);
    struct compact_memo *c = &k->compact[h & (COMPACT_MEMO - 1)];
    if (c->len == len && c->hash == h && !memcmp(ml_s(k->p, c->id), p + i, len)) {
        *out = c->id;
        return end;
    }
    if (compact_span(p + i, n - i) != len) return 0;
    *out = ml_intern(k->p->strings, p + i, len);
    c->hash = h;
    c->len = len;
    c->id = *out;
    return end;
}

/* An arg's value at p[i], of kind `kind`, into k->ta at offset off: the
 * index after it, or 0. */
static size_t trace_arg_value(kineto *k, int kind, size_t off, const char *p, size_t i, size_t n)
{
    char *a = (char *)&k->ta;
    size_t end;
    switch (kind) {
    case TA_INT: {
        int64_t v;
        if (!(end = plain_int(p, i, n, &v))) return 0;
        memcpy(a + off, &v, sizeof v);
        return end;
    }
    case TA_GROUP: {
        int64_t v;
        if (!(end = plain_int(p, i, n, &v))) return 0;
        if (v >= 0 && v <= INT32_MAX) k->ta.comm.group_size = (int32_t)v;
        return end;
    }
    case TA_DIM3: {
        int32_t d3[3];
        if (i + 48 >= n || !(end = plain_dim3(p + i, d3))) return 0; /* (it reads 40 bytes) */
        memcpy(a + off, d3, sizeof d3);
        return end + i;
    }
    case TA_COMPACT: {
        ml_str id;
        if (!(end = compact_value(k, p, i, n, &id))) return 0;
        memcpy(a + off, &id, sizeof id);
        return end;
    }
    case TA_STRING: {
        if (p[i] != '"' || !(end = plain_string(p, i, n))) return 0;
        ml_str id = ml_intern(k->p->strings, p + i + 1, end - i - 2);
        memcpy(a + off, &id, sizeof id);
        return end;
    }
    case TA_FLOAT: {
        double d;
        if (!(end = plain_number(p, i, n))) return 0;
        if (ml_parse_double(p + i, end - i, &d) == 0) {
            float f = (float)d;
            memcpy(a + off, &f, sizeof f);
        }
        return end;
    }
    case TA_SKIP: return plain_skip(p, i, n);
    }
    return 0; /* TA_REFUSE: a memory event's arg */
}

/* The args object at p[at] == '{' read into k->ta: the index after it, or
 * 0 if the token path must read it.  Its shape goes on into *rec (if not
 * NULL): the keys are literals, each value a slot. */
static size_t trace_args_at(kineto *k, const char *p, size_t at, size_t n, shape *rec)
{
    size_t i = ws_at(p, at + 1);
    if (i >= n) return 0;
    if (p[i] == '}') return i + 1;
    for (;;) {
        const char *key;
        size_t kn;
        if (!(i = member_at(p, i, n, &key, &kn))) return 0;
        size_t off, end;
        int kind = trace_arg_kind(key, kn, &off);
        if (!(end = trace_arg_value(k, kind, off, p, i, n))) return 0;
        shape_slot_at(rec, p, i, end, kind == TA_SKIP ? SH_SKIP : SH_TA + kind, off);
        i = ws_at(p, end);
        if (i >= n) return 0;
        if (p[i] == '}') break;
        if (p[i] != ',') return 0;
        i = ws_at(p, i + 1);
        if (i >= n) return 0;
        if (p[i] == '}') break; /* a trailing comma, as the scanner allows */
    }
    return i + 1;
}

/* 1 if the args object was read (and consumed), 0 if the token path must read it. */
static int fast_trace_args(kineto *k)
{
    size_t n, end;
    const char *p = js_peek_value(k->js, &n);
    if (!p || p[0] != '{' || !(end = trace_args_at(k, p, 0, n, NULL))) return 0;
    js_consume_value(k->js, end);
    return 1;
}

/* Whether the number just read is integral ("4096", "4096.0", "4.096e3"; not
 * "1.5", which js_value_number truncates): byte counts are whole. */
static bool whole_bytes(kineto *k)
{
    size_t n;
    const char *s = js_text(k->js, &n);
    if (!memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n)) return true;
    while (n && (s[n - 1] == '\t' || s[n - 1] == ' ')) n--;
    while (n && (s[0] == '\t' || s[0] == ' ')) s++, n--;
    int64_t v;
    return ml_parse_integral(s, n, &v) == 0;
}

/* The args of the two kinds of slice whose args are their own (read_event
 * routes them here, out of the hot path: each is one event per sync call or
 * per measured kernel, and Kineto writes "cat" before "args"): a CUPTI
 * profiler range's numbers are its hardware counters (as a "C" event's are
 * its values); a cuda_sync event's are its stream, device, correlation and
 * External id, and the CUDA event it waits for (wait_on_*). */
static __attribute__((noinline)) int read_own_args(kineto *k, event_fields *f)
{
    js_tok t = js_next(k->js);
    if (t == JS_ERROR) return -1;
    if (t != JS_OBJECT) return t == JS_ARRAY ? js_skip_rest(k->js) : 0;
    for (;;) {
        const char *key;
        size_t n;
        int more = js_key(k->js, &key, &n);
        if (more <= 0) return more;
        int r;
        if (f->skind == ML_SL_PROFILER_RANGE) {
            double v;
            r = read_double(k, &v);
            if (r > 0) {
                counter_val c = {ml_intern(k->p->strings, key, n), v};
                VEC_PUSH(&k->cvals, c);
            }
        } else {
            trace_args *a = &k->ta;
            int64_t *dst = KEY_IS(key, n, "stream") ? &a->stream
                         : KEY_IS(key, n, "device") ? &a->device
                         : KEY_IS(key, n, "correlation") ? &a->corr
                         : KEY_IS(key, n, "External id") ? &a->ext
                         : KEY_IS(key, n, "wait_on_stream") ? &a->wait_stream
                         : KEY_IS(key, n, "wait_on_cuda_event_record_corr_id") ? &a->wait_corr : NULL;
            int64_t v;
            if (!dst) r = skip_arg(k) < 0 ? -1 : 0;
            else if ((r = read_int(k, &v)) > 0) *dst = v;
        }
        if (r < 0) return -1;
    }
}

/* The args memory events need; a value of the wrong type or out of range is
 * remembered, and reported only if the event turns out to be a memory event. */
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
            if (k->t ? read_trace_arg(k, f, key, n) < 0 : js_skip(k->js) < 0) return -1;
            continue;
        }
        uint64_t off = js_offset(k->js); /* the key: messages name it */
        const char *why = NULL;
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
            else why = "is not a number";
        } else {
            int r = js_value_number(k->js, 0, dst);
            if (r == 1) *has = true; /* ranges: see add_memory_event() */
            else if (r < 0) return -1;
            else why = r == 0 ? "is not a number" : "is out of range";
            if (r == 1 && dst != &f->dev_type && dst != &f->dev_id && !whole_bytes(k)) why = "is not a whole number of bytes";
        }
        if (why && !f->bad_arg) f->bad_arg = label, f->bad_arg_why = why, f->bad_arg_off = off;
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

static bool is_op_cat(uint8_t cat) { return cat == CAT_CPU_OP || cat == CAT_ANNOTATION || cat == CAT_PYTHON; }

/* The slice kind of a cat: Kineto's names (libkineto ActivityType.cpp, every
 * accelerator: CUDA/HIP's, MTIA's mtia_ccp_events kernels and mtia_runtime
 * calls, xpu_/privateuse1_ runtime and driver calls, hpu_op, HPU's host-side
 * runtime events), and PyTorch 1.8/1.9's (Operator, Runtime, Kernel, Memcpy,
 * Memset). */
static uint8_t slice_kind_of_cat(const char *s, size_t n)
{
    switch (n) {
    case 4: if (KEY_IS(s, n, "Trace")) return ML_SL_OTHER; break;
    case 6:
        if (KEY_IS(s, n, "cpu_op")) return ML_SL_CPU_OP;
        if (KEY_IS(s, n, "kernel") || KEY_IS(s, n, "Kernel")) return ML_SL_KERNEL;
        if (KEY_IS(s, n, "Memcpy")) return ML_SL_MEMCPY;
        if (KEY_IS(s, n, "Memset")) return ML_SL_MEMSET;
        if (KEY_IS(s, n, "hpu_op")) return ML_SL_RUNTIME;
        break;
    case 7: if (KEY_IS(s, n, "Runtime")) return ML_SL_RUNTIME; break;
    case 8: if (KEY_IS(s, n, "Operator")) return ML_SL_CPU_OP; break;
    case 9: if (KEY_IS(s, n, "cuda_sync")) return ML_SL_CUDA_SYNC; break;
    case 10:
        if (KEY_IS(s, n, "gpu_memcpy")) return ML_SL_MEMCPY;
        if (KEY_IS(s, n, "gpu_memset")) return ML_SL_MEMSET;
        if (KEY_IS(s, n, "xpu_driver")) return ML_SL_DRIVER;
        break;
    case 11:
        if (KEY_IS(s, n, "cuda_driver")) return ML_SL_DRIVER;
        if (KEY_IS(s, n, "xpu_runtime")) return ML_SL_RUNTIME;
        break;
    case 12:
        if (KEY_IS(s, n, "cuda_runtime")) return ML_SL_RUNTIME;
        if (KEY_IS(s, n, "mtia_runtime")) return ML_SL_RUNTIME;
        break;
    case 15:
        if (KEY_IS(s, n, "user_annotation")) return ML_SL_USER_ANNOTATION;
        if (KEY_IS(s, n, "python_function")) return ML_SL_PYTHON;
        if (KEY_IS(s, n, "mtia_ccp_events")) return ML_SL_KERNEL;
        break;
    case 18: if (KEY_IS(s, n, "privateuse1_driver")) return ML_SL_DRIVER; break;
    case 19:
        if (KEY_IS(s, n, "gpu_user_annotation")) return ML_SL_GPU_ANNOTATION;
        if (KEY_IS(s, n, "cuda_profiler_range")) return ML_SL_PROFILER_RANGE;
        if (KEY_IS(s, n, "privateuse1_runtime")) return ML_SL_RUNTIME;
        break;
    }
    return ML_SL_OTHER;
}

/* The device kind a cat names (PrivateUse1 is ML_DEV_NPU's number, 20);
 * CUDA for the rest (ROCm's traces name their devices cuda:N too). */
static uint8_t dev_kind_of_cat(const char *s, size_t n)
{
    if (n > 5 && !memcmp(s, "mtia_", 5)) return ML_DEV_MTIA;
    if (n > 4 && !memcmp(s, "xpu_", 4)) return ML_DEV_XPU;
    if (KEY_IS(s, n, "hpu_op")) return ML_DEV_HPU;
    if (n > 12 && !memcmp(s, "privateuse1_", 12)) return ML_DEV_NPU;
    return ML_DEV_CUDA;
}

static bool is_gpu_kind(uint8_t kind)
{
    return kind == ML_SL_KERNEL || kind == ML_SL_MEMCPY || kind == ML_SL_MEMSET || kind == ML_SL_GPU_ANNOTATION;
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
    if (f->has_total_alloc)
        ml_series_push_sampled(p, totals_series(k, dev, ML_SERIES_ALLOCATED), f->ts, f->total_alloc, ev_index);
    if (f->has_total_reserved)
        ml_series_push_sampled(p, totals_series(k, dev, ML_SERIES_RESERVED), f->ts, f->total_reserved, ev_index);
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

/* ---- the time side ---- */

/* A flow id: a number, "0x..." hex, or any other text (hashed). */
static int64_t flow_id(const char *s, size_t n)
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

/* The current event's name, interned (0 when it has none: k->name may be NULL). */
static ml_str event_name(kineto *k)
{
    if (!k->name_interned) {
        k->name_id = k->name_len ? ml_intern(k->p->strings, k->name, k->name_len) : 0;
        k->name_interned = true;
    }
    return k->name_id;
}

/* The cat interned: a trace has a handful, remembered here. */
static ml_str cat_of(kineto *k, const char *s, size_t n)
{
    if (n > CAT_CACHE_LEN) return ml_intern(k->p->strings, s, n);
    for (unsigned i = 0; i < CAT_CACHE; i++)
        if (k->cats[i].len == n && k->cats[i].id && !memcmp(k->cats[i].text, s, n)) return k->cats[i].id;
    ml_str id = ml_intern(k->p->strings, s, n);
    unsigned i = k->cats_next++ % CAT_CACHE;
    k->cats[i].len = (uint8_t)n;
    memcpy(k->cats[i].text, s, n);
    k->cats[i].id = id;
    return id;
}

/* Whether an id text equals a remembered one: both are NUL-padded to ID_MAX
 * (event_fields is zeroed per event), so a short one is two word compares. */
static inline bool same_id(const char *a, size_t a_len, const char *b, size_t b_len)
{
    if (a_len != b_len) return false;
    if (a_len > 16) return memcmp(a, b, a_len) == 0;
    uint64_t x[2], y[2];
    memcpy(x, a, 16);
    memcpy(y, b, 16);
    return x[0] == y[0] && x[1] == y[1];
}

/* The trace track of (pid, tid), remembering the last few. */
static uint32_t track_of(kineto *k, const event_fields *f)
{
    for (unsigned i = 0; i < TRACK_MEMO; i++) {
        const struct track_memo *m = &k->tracks[i];
        if (m->track != ML_NONE32 && same_id(f->tid, f->tid_len, m->tid, m->tid_len) &&
            same_id(f->pid, f->pid_len, m->pid, m->pid_len))
            return m->track;
    }
    struct track_memo *m = &k->tracks[k->tracks_next++ % TRACK_MEMO];
    m->track = ml_track_get(k->t, k->p, f->pid, f->pid_len, f->tid, f->tid_len);
    memset(m->pid, 0, sizeof m->pid);
    memset(m->tid, 0, sizeof m->tid);
    memcpy(m->pid, f->pid, f->pid_len);
    memcpy(m->tid, f->tid, f->tid_len);
    m->pid_len = (uint8_t)f->pid_len;
    m->tid_len = (uint8_t)f->tid_len;
    return m->track;
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
static uint32_t work_track(kineto *k, const event_fields *f, uint8_t kind)
{
    uint32_t track = track_of(k, f);
    if (is_gpu_kind(kind) && k->t->tracks.v[track].kind != ML_TRACK_STREAM) {
        int64_t dev = k->ta.device >= 0 ? k->ta.device : trailing_number(f->pid, f->pid_len);
        int64_t stream = k->ta.stream >= 0 ? k->ta.stream : trailing_number(f->tid, f->tid_len);
        int32_t d = dev >= 0 && dev < 1 << 16 ? ml_device_get(k->p, (ml_dev_kind)f->dev_kind, (int)dev) : -1;
        ml_track_set_stream(k->t, track, d, stream);
    }
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
            .comm = a->comm,
        };
        return ml_kernel_info_push(k->t, &ki);
    }
    if (kind != ML_SL_CPU_OP && kind != ML_SL_USER_ANNOTATION && kind != ML_SL_PYTHON && kind != ML_SL_PROFILER_STEP)
        return kind >= ML_SL_CUDA_SYNC ? own_info(k, kind) : ML_NONE32;
    if (!a->dims && !a->types && !a->stack && a->seq < 0 && a->fwd < 0 && a->py_module < 0 && !a->comm.collective && a->comm.in_nelems < 0 && a->comm.out_nelems < 0)
        return ML_NONE32;
    bool comm = a->comm.collective || a->comm.dtype || a->comm.in_nelems != -1 || a->comm.out_nelems != -1 ||
                a->comm.group_size != -1;
    ml_op_info oi = {a->dims, a->types, a->stack, comm ? ml_op_comm_push(k->t, &a->comm) : 0, a->seq, a->fwd,
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
        if (b.kind != NOT_AN_OP) ml_op_push(k->p, b.ts, f->ts - b.ts, b.name, thread, (ml_op_kind)b.kind);
        if (k->t) push_slice(k, b.ts, f->ts - b.ts, b.slice_name, b.track, b.skind, b.info, b.corr, b.ext);
        return;
    }
    k->orphan_ends++;
}

/* "B" events never closed: they last until `end` (the end of the trace). */
static void close_open_ops(kineto *k, int64_t end)
{
    for (size_t i = 0; i < k->open.len; i++) {
        const open_b *b = &k->open.v[i];
        if (k->t) {
            push_slice(k, b->ts, end - b->ts, b->slice_name, b->track, b->skind, b->info, b->corr, b->ext);
            k->unclosed_slices++;
        }
        if (b->kind == NOT_AN_OP) continue;
        ml_op_push(k->p, b->ts, end - b->ts, b->name, b->thread, (ml_op_kind)b->kind);
        k->unclosed++;
    }
    k->open.len = 0;
}

static void note_times(kineto *k, int64_t first, int64_t last)
{
    if (!k->has_times || first < k->min_ts) k->min_ts = first;
    if (!k->has_times || last > k->max_end) k->max_end = last;
    k->has_times = true;
}

/* One event's fields, all read (the object at ev_off): into the profile. */
static int event_done(kineto *k, event_fields *f, uint64_t ev_off)
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
    if (f->has_ts) note_times(k, f->ts, f->has_dur && f->dur > 0 ? f->ts + f->dur : f->ts);
    if (f->has_name && is_memory_name(k) && !k->trace_only) return add_memory_event(k, f, ev_off, k->name[1] == 'O');
    if (k->t && f->ph != 'B' && f->ph != 'E') trace_event(k, f);
    if (k->trace_only && f->ph != 'B' && f->ph != 'E') return 0;
    if (!f->has_ts) return 0;
    if (f->ph == 'B' || f->ph == 'E') {
        begin_or_end(k, f);
        return 0;
    }
    if (f->ph != 'X' || !f->has_name || !is_op_cat(f->cat)) return 0;
    ml_op_push(k->p, f->ts, f->has_dur ? f->dur : 0, event_name(k), thread_of(k, f),
               op_kind(f->cat, k->name, k->name_len));
    return 0;
}

/* Starts an event: its fields empty, no name yet. */
static void event_begin(kineto *k, event_fields *f)
{
    memset(f, 0, sizeof *f);
    f->skind = ML_SL_OTHER;
    f->dev_kind = ML_DEV_CUDA;
    k->name_len = 0;
    k->name_interned = false;
    if (k->t) {
        k->ta = TA_NONE;
        k->cvals.len = 0;
    }
}

/* ---- whole events straight from the buffer ----
 * Kineto writes its events plainly: fast_event() reads one such event
 * object as read_event() would (the same fields, read in the same order, so
 * strings are interned in the same order), from the scanner's buffer
 * without tokenizing it, and gives up on anything else (an escape, a value
 * of an unusual form or out of range, args the token path reads another
 * way, an object not wholly buffered): read_event() then reads the event
 * again from its start, to the same effect, and reports what is wrong. */

/* A number at p[i] of the one form js_number() decodes while lexing
 * (-?digits[.digits], at most 18 digits, then a byte that cannot go on a
 * number), times 10^scale, truncated as js_number() does: the index after
 * it, or 0. */
static inline size_t plain_scaled(const char *p, size_t i, int scale, int64_t *out)
{
    bool neg = p[i] == '-';
    size_t j = i + neg;
    uint64_t v, fv = 0;
    unsigned digits = digit_run(p + j, &v), frac = 0;
    if (digits == 0) return 0;
    j += digits;
    if (p[j] == '.') {
        frac = digit_run(p + j + 1, &fv);
        j += 1 + frac;
    }
    if (digits + frac > 18 || compact_numch[(unsigned char)p[j]]) return 0;
    static const uint64_t pow10[19] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull};
    v = v * pow10[frac] + fv;
    int shift = scale - (int)frac;
    unsigned __int128 w = v;
    if (shift >= 0) w *= pow10[shift];
    else w /= pow10[-shift];
    if (w > (unsigned __int128)INT64_MAX) return 0;
    *out = neg ? -(int64_t)w : (int64_t)w;
    return j;
}

/* A pid, tid or flow id at p[i], as js_value_scalar_text() gives it: a
 * string's raw text (without backslashes here) or a number's bytes.  The
 * index after the value, or 0. */
static inline size_t plain_scalar_text(const char *p, size_t i, size_t n, const char **text, size_t *len)
{
    size_t end = p[i] == '"' ? plain_string(p, i, n) : plain_number(p, i, n);
    if (!end) return 0;
    bool str = p[i] == '"';
    *text = p + i + str;
    *len = end - i - 2 * str;
    return end;
}

/* An address (read as text, digits only, as read_args() does): the index
 * after it, or 0 when read_args() would call it not a number. */
static inline size_t plain_addr(const char *p, size_t i, uint64_t *out)
{
    uint64_t a;
    unsigned len = digit_run(p + i, &a);
    if (len == 0 || len > 19 || compact_numch[(unsigned char)p[i + len]]) return 0;
    *out = a;
    return i + len;
}

/* Whether read_trace_arg() does more with this arg of a non-counter event
 * than skip it. */
static bool is_trace_arg_key(const char *key, size_t n)
{
    switch (n) {
    case 4: return KEQ("grid") || KEQ("name");
    case 5: return KEQ("block") || KEQ("bytes") || KEQ("dtype");
    case 6: return KEQ("device") || KEQ("stream");
    case 10: return KEQ("Input Dims") || KEQ("Input dims") || KEQ("Input type") || KEQ("sort_index") ||
                    KEQ("Group size") || KEQ("Call stack");
    case 11: return KEQ("correlation") || KEQ("External id") || KEQ("external id");
    case 13: return KEQ("connection_id") || KEQ("In msg nelems") || KEQ("Fwd thread id") || KEQ("shared memory") ||
                    KEQ("blocks per SM");
    case 14: return KEQ("Out msg nelems");
    case 15: return KEQ("Sequence number") || KEQ("Collective name");
    case 16: return KEQ("Python module id");
    case 20: return KEQ("registers per thread");
    case 23: return KEQ("memory bandwidth (GB/s)");
    case 25: return KEQ("est. achieved occupancy %");
    }
    return false;
}

/* The args object at p[at] as read_args() reads it (a memory event's, or
 * any event's whose name is not known yet): the index after it, or 0. */
static size_t memory_args_at(kineto *k, event_fields *f, const char *p, size_t at, size_t n, shape *rec)
{
    if (p[at] != '{') return 0;
    /* the time side reads a counter's args, and args before "ph", another way */
    if (k->t && (!f->ph || f->ph == 'C' || f->ph == 'M')) return 0;
    size_t i = ws_at(p, at + 1);
    if (i >= n) return 0;
    if (p[i] == '}') return i + 1;
    for (;;) {
        const char *key;
        size_t kn;
        if (!(i = member_at(p, i, n, &key, &kn))) return 0;
        int64_t *dst = NULL;
        bool *has = NULL, addr = false;
        switch (kn) {
        case 4: addr = KEQ("Addr"); break;
        case 5: if (KEQ("Bytes")) dst = &f->bytes, has = &f->has_bytes; break;
        case 9: if (KEQ("Device Id")) dst = &f->dev_id, has = &f->has_dev_id; break;
        case 11: if (KEQ("Device Type")) dst = &f->dev_type, has = &f->has_dev_type; break;
        case 14: if (KEQ("Total Reserved")) dst = &f->total_reserved, has = &f->has_total_reserved; break;
        case 15: if (KEQ("Total Allocated")) dst = &f->total_alloc, has = &f->has_total_alloc; break;
        }
        size_t end;
        if (addr) {
            if (!(end = plain_addr(p, i, &f->addr))) return 0;
            f->has_addr = true;
            shape_slot(rec, p, i, end, SH_ADDR);
        } else if (dst) {
            if (!(end = plain_int(p, i, n, dst))) return 0;
            *has = true;
            shape_slot(rec, p, i, end, dst == &f->bytes ? SH_BYTES : dst == &f->dev_type ? SH_DEV_TYPE
                                       : dst == &f->dev_id ? SH_DEV_ID : dst == &f->total_alloc ? SH_TOTAL_ALLOC
                                       : SH_TOTAL_RESERVED);
        } else {
            if (k->t && is_trace_arg_key(key, kn)) return 0;
            if (!(end = plain_skip(p, i, n))) return 0;
            shape_slot(rec, p, i, end, SH_SKIP);
        }
        i = ws_at(p, end);
        if (i >= n) return 0;
        if (p[i] == '}') break;
        if (p[i] != ',') return 0;
        i = ws_at(p, i + 1);
        if (i >= n) return 0;
        if (p[i] == '}') break;
    }
    return i + 1;
}

/* The event object at p[0] == '{' (n bytes buffered): 1 if it was read
 * and consumed, 0 if read_event() must read it, -1 on error.  Its shape
 * goes into *rec (if not NULL; rec->ok says whether it fits one). */
static int fast_event(kineto *k, const char *p, size_t n, shape *rec)
{
    event_fields f;
    event_begin(k, &f);
    if (rec) {
        rec->nslots = 0;
        rec->ok = true;
        rec->from = 0;
    }
    size_t i = ws_at(p, 1);
    if (i >= n) return 0;
    while (p[i] != '}') {
        const char *key;
        size_t kn;
        if (!(i = member_at(p, i, n, &key, &kn))) return 0;
        size_t end = 0;
        const char *v;
        size_t m;
        switch (kn) {
        case 2:
            if (key[0] == 'p' && key[1] == 'h') {
                if (p[i] != '"' || !(end = plain_string(p, i, n))) return 0;
                if (end - i > 2) f.ph = p[i + 1];
            } else if (key[0] == 't' && key[1] == 's') {
                if (!(end = plain_scaled(p, i, 3, &f.ts)) || !ml_value_ok(f.ts)) return 0;
                f.has_ts = true;
                shape_slot(rec, p, i, end, SH_TS);
            } else if (k->t && key[0] == 'i' && key[1] == 'd') {
                if (!(end = plain_scalar_text(p, i, n, &v, &m))) return 0;
                f.id = flow_id(v, m), f.has_id = true;
                shape_slot(rec, p, i, end, SH_ID);
            } else if (k->t && key[0] == 'b' && key[1] == 'p') {
                if (p[i] != '"' || !(end = plain_string(p, i, n))) return 0;
                f.bind_enclosing = end - i == 3 && p[i + 1] == 'e';
            } else if ((end = plain_skip(p, i, n))) shape_slot(rec, p, i, end, SH_SKIP);
            break;
        case 3:
            if (KEQ("cat")) {
                if (p[i] != '"' || !(end = plain_string(p, i, n))) return 0;
                v = p + i + 1, m = end - i - 2;
                f.cat = classify_cat(v, m);
                if (k->t) {
                    f.skind = slice_kind_of_cat(v, m);
                    f.dev_kind = dev_kind_of_cat(v, m);
                    f.cat_id = cat_of(k, v, m);
                }
            } else if (KEQ("pid") || KEQ("tid")) {
                if (!(end = plain_scalar_text(p, i, n, &v, &m))) return 0;
                if (m > ID_MAX) m = ID_MAX;
                memcpy(key[0] == 'p' ? f.pid : f.tid, v, m);
                *(key[0] == 'p' ? &f.pid_len : &f.tid_len) = m;
                shape_slot(rec, p, i, end, key[0] == 'p' ? SH_PID : SH_TID);
            } else if (KEQ("dur")) {
                if (!(end = plain_scaled(p, i, 3, &f.dur)) || !ml_value_ok(f.dur)) return 0;
                f.has_dur = true;
                shape_slot(rec, p, i, end, SH_DUR);
            } else if ((end = plain_skip(p, i, n))) shape_slot(rec, p, i, end, SH_SKIP);
            break;
        case 4:
            if (KEQ("name")) {
                if (p[i] != '"' || !(end = plain_string(p, i, n))) return 0;
                m = end - i - 2;
                if (m + 1 > k->name_cap) {
                    k->name_cap = m + 64;
                    k->name = ml_realloc(k->name, k->name_cap);
                }
                memcpy(k->name, p + i + 1, m);
                k->name[m] = 0;
                k->name_len = m;
                f.has_name = true;
                shape_slot(rec, p, i, end, is_memory_name(k) ? SH_NAME_MEMORY : SH_NAME_OTHER);
            } else if (KEQ("args")) {
                bool memory = f.has_name && is_memory_name(k);
                /* cuda_sync and profiler ranges: read_event's own reader (no shape learned) */
                if (__builtin_expect(k->t && f.skind >= ML_SL_CUDA_SYNC, 0)) return 0;
                if (f.has_name && !memory && !k->t) {
                    if ((end = plain_skip(p, i, n))) shape_slot(rec, p, i, end, SH_SKIP);
                } else if (k->t && f.has_name && f.ph && f.ph != 'C' && f.ph != 'M' && !memory) {
                    end = p[i] == '{' ? trace_args_at(k, p, i, n, rec) : 0;
                } else end = memory_args_at(k, &f, p, i, n, rec);
            } else if ((end = plain_skip(p, i, n))) shape_slot(rec, p, i, end, SH_SKIP);
            break;
        default:
            if ((end = plain_skip(p, i, n))) shape_slot(rec, p, i, end, SH_SKIP);
        }
        if (!end) return 0;
        i = ws_at(p, end);
        if (i >= n) return 0;
        if (p[i] == '}') break;
        if (p[i] != ',') return 0;
        i = ws_at(p, i + 1);
        if (i >= n) return 0;
    }
    if (rec && rec->ok) { /* the last literal, to the closing brace; the constant fields */
        shape_slot(rec, p, i + 1, i + 1, SH_SKIP);
        rec->nslots--;
        memset(&rec->proto, 0, sizeof rec->proto);
        rec->proto.skind = ML_SL_OTHER;
        rec->proto.ph = f.ph;
        rec->proto.cat = f.cat;
        rec->proto.skind = f.skind;
        rec->proto.dev_kind = f.dev_kind;
        rec->proto.cat_id = f.cat_id;
        rec->proto.bind_enclosing = f.bind_enclosing;
    }
    js_consume_element(k->js, i + 1);
    return event_done(k, &f, js_offset(k->js)) < 0 ? -1 : 1;
}

/* The event at p[0] if it has shape sh: 1 if it was read and consumed, 0 if
 * it has not, -1 on error. */
static int shape_event(kineto *k, const shape *sh, const char *p, size_t n)
{
    event_fields f = sh->proto;
    k->name_len = 0;
    k->name_interned = false;
    if (k->t) {
        k->ta = TA_NONE;
        k->cvals.len = 0;
    }
    size_t i = 0, from = 0;
    for (unsigned s = 0;; s++) {
        size_t len = sh->lit_end[s] - from;
        if (n - i < len || !same_bytes(p + i, sh->text + from, len)) return 0;
        i += len;
        from = sh->lit_end[s];
        if (s == sh->nslots) break;
        size_t end = 0;
        const char *v;
        size_t m;
        switch (sh->slot[s]) {
        case SH_TS:
            if ((end = plain_scaled(p, i, 3, &f.ts)) && !ml_value_ok(f.ts)) end = 0;
            f.has_ts = true;
            break;
        case SH_DUR:
            if ((end = plain_scaled(p, i, 3, &f.dur)) && !ml_value_ok(f.dur)) end = 0;
            f.has_dur = true;
            break;
        case SH_PID:
        case SH_TID:
            if (!(end = plain_scalar_text(p, i, n, &v, &m))) return 0;
            if (m > ID_MAX) m = ID_MAX;
            memcpy(sh->slot[s] == SH_PID ? f.pid : f.tid, v, m);
            *(sh->slot[s] == SH_PID ? &f.pid_len : &f.tid_len) = m;
            break;
        case SH_NAME_MEMORY:
        case SH_NAME_OTHER:
            if (p[i] != '"' || !(end = plain_string(p, i, n))) return 0;
            m = end - i - 2;
            if (m + 1 > k->name_cap) {
                k->name_cap = m + 64;
                k->name = ml_realloc(k->name, k->name_cap);
            }
            memcpy(k->name, p + i + 1, m);
            k->name[m] = 0;
            k->name_len = m;
            f.has_name = true;
            if (is_memory_name(k) != (sh->slot[s] == SH_NAME_MEMORY)) return 0;
            break;
        case SH_ID:
            if ((end = plain_scalar_text(p, i, n, &v, &m))) f.id = flow_id(v, m), f.has_id = true;
            break;
        case SH_SKIP: end = plain_skip(p, i, n); break;
        case SH_ADDR:
            if ((end = plain_addr(p, i, &f.addr))) f.has_addr = true;
            break;
        case SH_BYTES: if ((end = plain_int(p, i, n, &f.bytes))) f.has_bytes = true; break;
        case SH_DEV_TYPE: if ((end = plain_int(p, i, n, &f.dev_type))) f.has_dev_type = true; break;
        case SH_DEV_ID: if ((end = plain_int(p, i, n, &f.dev_id))) f.has_dev_id = true; break;
        case SH_TOTAL_ALLOC: if ((end = plain_int(p, i, n, &f.total_alloc))) f.has_total_alloc = true; break;
        case SH_TOTAL_RESERVED:
            if ((end = plain_int(p, i, n, &f.total_reserved))) f.has_total_reserved = true;
            break;
        default: end = trace_arg_value(k, sh->slot[s] - SH_TA, sh->at[s], p, i, n); /* SH_TA + a TA_* kind */
        }
        if (!end) return 0;
        i = end;
    }
    js_consume_element(k->js, i);
    return event_done(k, &f, js_offset(k->js)) < 0 ? -1 : 1;
}

/* The event at p[0] == '{': by a shape it has (moved to the front), else by
 * fast_event() (and its shape learned), else 0 (read_event() must read it). */
static int shaped_event(kineto *k, const char *p, size_t n)
{
    for (unsigned i = 0; i < k->nshapes; i++) {
        shape *sh = k->shapes[i];
        int r = shape_event(k, sh, p, n);
        if (r == 0) continue;
        memmove(k->shapes + 1, k->shapes, i * sizeof *k->shapes);
        k->shapes[0] = sh;
        return r;
    }
    if (!k->spare) k->spare = ml_malloc(sizeof *k->spare);
    shape *rec = k->spare;
    int r = fast_event(k, p, n, rec);
    if (r > 0 && rec->ok) { /* learned: in front, the least recently used one out */
        k->spare = k->nshapes == SHAPES ? k->shapes[SHAPES - 1] : NULL;
        if (k->nshapes < SHAPES) k->nshapes++;
        memmove(k->shapes + 1, k->shapes, (k->nshapes - 1) * sizeof *k->shapes);
        k->shapes[0] = rec;
    }
    return r;
}

static int read_event(kineto *k)
{
    js_scanner *js = k->js;
    uint64_t ev_off = js_offset(js);
    event_fields f;
    event_begin(k, &f);
    for (;;) {
        const char *key;
        size_t n;
        int more = js_key(js, &key, &n);
        if (more == 0) break;
        if (more < 0) return scan_error(k);
        int r;
        const char *v;
        size_t m;
        switch (n) {
        case 2:
            if (key[0] == 'p' && key[1] == 'h') {
                r = js_value_string(js, &v, &m);
                if (r > 0 && m) f.ph = v[0];
            } else if (key[0] == 't' && key[1] == 's') {
                r = read_bounded(k, 3, "ts", &f.ts);
                f.has_ts = r > 0;
            } else if (k->t && key[0] == 'i' && key[1] == 'd') {
                r = js_value_scalar_text(js, &v, &m);
                if (r > 0) f.id = flow_id(v, m), f.has_id = true;
            } else if (k->t && key[0] == 'b' && key[1] == 'p') {
                r = js_value_string(js, &v, &m);
                if (r > 0) f.bind_enclosing = m == 1 && v[0] == 'e';
            } else r = js_skip(js);
            break;
        case 3:
            if (!memcmp(key, "cat", 3)) {
                r = js_value_string(js, &v, &m);
                if (r > 0) f.cat = classify_cat(v, m);
                if (r > 0 && k->t) {
                    f.skind = slice_kind_of_cat(v, m);
                    f.dev_kind = dev_kind_of_cat(v, m);
                    f.cat_id = cat_of(k, v, m);
                }
            } else if (!memcmp(key, "pid", 3)) r = read_id(k, f.pid, &f.pid_len);
            else if (!memcmp(key, "tid", 3)) r = read_id(k, f.tid, &f.tid_len);
            else if (!memcmp(key, "dur", 3)) {
                r = read_bounded(k, 3, "dur", &f.dur);
                f.has_dur = r > 0;
                f.bad_dur = r == 0; /* another type than a number */
            } else r = js_skip(js);
            break;
        case 4:
            if (!memcmp(key, "name", 4)) {
                r = read_string_copy(k, &k->name, &k->name_len, &k->name_cap);
                if (r > 0) f.has_name = true;
            } else if (!memcmp(key, "args", 4)) {
                /* Only memory events need their args decoded (and the time side's). */
                if (f.has_name && !is_memory_name(k) && !k->t) r = js_skip(js);
                /* rare (one per sync call or measured kernel): not to weigh on the branches around */
                else if (__builtin_expect(k->t && f.skind >= ML_SL_CUDA_SYNC, 0)) r = read_own_args(k, &f);
                else if (k->t && f.has_name && f.ph && f.ph != 'C' && f.ph != 'M' && !is_memory_name(k) &&
                         fast_trace_args(k))
                    r = 1;
                else r = read_args(k, &f);
            } else r = js_skip(js);
            break;
        default:
            r = js_skip(js);
        }
        if (r < 0) return scan_error(k);
    }
    return event_done(k, &f, ev_off);
}

/* ---- the trace ---- */

/* The event list, its '[' just read.  The file may end anywhere between its
 * events, or right after its ']'. */
static int read_events(kineto *k)
{
    if (!k->saw_event_list) k->list_off = js_offset(k->js);
    k->saw_event_list = true;
    k->events_open = true;
    js_allow_cut(k->js);
    for (;;) {
        size_t avail;
        const char *p = js_peek_element(k->js, &avail);
        if (p && p[0] == '{') {
            int r = shaped_event(k, p, avail);
            if (r < 0) return -1;
            if (r > 0) {
                k->list_objects++;
                continue;
            }
        }
        js_tok t = js_next(k->js);
        if (t == JS_END) return 0; /* the file ended inside the list: events_open stays set */
        if (t == JS_ARRAY_END) {
            k->events_open = false;
            return 0;
        }
        if (t == JS_ERROR) return scan_error(k);
        if (t != JS_OBJECT) {
            /* a stray value in the event list: nothing to import */
            k->list_others++;
            if (t == JS_ARRAY && js_skip_rest(k->js) < 0) return scan_error(k);
            continue;
        }
        k->list_objects++;
        if (read_event(k) < 0) return -1;
    }
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
static int read_top_object(kineto *k)
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
            if (read_events(k) < 0) return -1;
            if (js_truncated(js)) return 0;
        } else if (KEY_IS(key, n, "deviceProperties")) {
            r = read_device_properties(k);
        } else if (KEY_IS(key, n, "distributedInfo")) {
            r = read_distributed_info(k);
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

static int finish(kineto *k, bool truncated)
{
    ml_profile *p = k->p;
    if (ml_series_dropped_unsorted(p)) return ML_IMPORT_AGAIN; /* (only when lean_wanted) */
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
    close_open_ops(k, k->max_end);
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
    if (!k->memory_events)
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
    ml_profile_finish(p);
    return 0;
}

static void kineto_init(kineto *k, js_scanner *js, ml_profile *p, ml_err *e)
{
    memset(k, 0, sizeof *k);
    k->js = js;
    k->p = p;
    k->e = e;
    k->last_thread = ML_NONE32;
    k->t = p->trace;
    for (unsigned i = 0; i < TRACK_MEMO; i++) k->tracks[i].track = ML_NONE32;
}

static void kineto_free(kineto *k)
{
    for (unsigned i = 0; i < k->nshapes; i++) free(k->shapes[i]);
    free(k->spare);
    js_close(k->js);
    free(k->name);
    VEC_FREE(&k->props);
    VEC_FREE(&k->open);
    VEC_FREE(&k->cvals);
    VEC_FREE(&k->json);
}

/* The whole document from its first token (or, for the first half of a
 * split file, up to where that half ends). */
static int read_document(kineto *k)
{
    js_scanner *js = k->js;
    js_tok t = js_next(js);
    int rc;
    if (t == JS_OBJECT) rc = read_top_object(k);
    else if (t == JS_ARRAY) rc = read_events(k);
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

static int import_serial(ml_source *src, ml_profile *p, ml_err *e)
{
    kineto k;
    kineto_init(&k, js_open(src), p, e);
    int rc = read_document(&k);
    if (rc == 0) rc = finish(&k, js_truncated(k.js));
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
    bool trace = p->trace != NULL, ops_first_only = p->ops_first_only, lean_wanted = p->lean_wanted,
         categories_wanted = p->categories_wanted;
    ml_profile tmp = *p;
    *p = *fresh;
    *fresh = tmp;
    ml_profile_free(fresh);
    if (trace) p->trace = ml_trace_new();
    p->ops_first_only = ops_first_only;
    p->lean_wanted = lean_wanted;
    p->categories_wanted = categories_wanted;
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
    second.p->ops_first_only = p->ops_first_only;
    second.p->lean_wanted = p->lean_wanted;
    if (p->trace) second.p->trace = ml_trace_new();
    second.stack = stack;
    kineto_init(&second.k, js_open_inside(second_src, at, stack), second.p, &second.err);
    pthread_t thread;
    bool threaded = pthread_create(&thread, NULL, read_second_half, &second) == 0;

    kineto first;
    kineto_init(&first, js_open(first_src), p, e);
    int rc = read_document(&first);
    ml_phase("first half parsed");
    if (threaded) pthread_join(thread, NULL);
    ml_phase("parse two halves");

    /* An "E" in the second half may close a "B" of the first; and the halves'
     * sizes must add up to less than the limit, or the error found by one
     * pass names the event where they reach it. */
    bool split_ok = threaded && rc == 0 && first.events_open && js_ended_after_comma(first.js, stack) &&
                    !(first.open.len && second.k.orphan_ends) &&
                    (second.rc < 0 || first.bytes_moved + second.k.bytes_moved < ML_VALUE_LIMIT);
    if (split_ok && second.rc < 0) {
        *e = second.err; /* a real error in the second half; its offsets count from the file start */
        rc = -1;
    } else if (split_ok) {
        kineto *k2 = &second.k;
        if (k2->has_times) note_times(&first, k2->min_ts, k2->max_end);
        close_open_ops(k2, first.max_end); /* nothing after the second half can close them */
        ml_profile_append(p, second.p);
        first.unclosed += k2->unclosed;
        first.list_objects += k2->list_objects;
        first.memory_events += k2->memory_events;
        first.memory_without_addr += k2->memory_without_addr;
        first.memory_without_totals += k2->memory_without_totals;
        first.oom_events += k2->oom_events;
        first.orphan_ends += k2->orphan_ends;
        first.unclosed_slices += k2->unclosed_slices;
        first.bytes_moved += k2->bytes_moved;
        if (k2->saw_base_time) {
            first.saw_base_time = true;
            first.base_time_off = k2->base_time_off;
        }
        for (size_t i = 0; i < k2->props.len; i++) {
            device_prop d = k2->props.v[i];
            d.name = ml_intern(p->strings, ml_s(second.p, d.name), ml_strlen(second.p->strings, d.name));
            VEC_PUSH(&first.props, d);
        }
        ml_phase("append second half");
        rc = finish(&first, js_truncated(k2->js));
        ml_phase("finish");
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

int ml_kineto_trace_add(ml_source *src, ml_profile *p, ml_err *e)
{
    if (!p->trace) return 0;
    kineto k;
    kineto_init(&k, js_open(src), p, e);
    k.trace_only = true;
    int rc = read_document(&k);
    if (rc == 0) {
        bool truncated = js_truncated(k.js);
        close_open_ops(&k, k.max_end);
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
    kineto_free(&k);
    return rc;
}

int ml_kineto_import(ml_source *src, ml_profile *p, ml_err *e)
{
    /* MEMLENS_SPLIT_MIN_BYTES lets tests split small files; MEMLENS_ONE_THREAD turns splitting off. */
    const char *min_env = getenv("MEMLENS_SPLIT_MIN_BYTES");
    int64_t min = min_env ? atoll(min_env) : SPLIT_MIN_BYTES;
    int64_t size = ml_source_plain_size(src);
    if (size >= min && size > 0 && ml_par_allowed()) {
        int rc = import_in_two_halves(ml_source_name(src), (uint64_t)size, p, e);
        if (rc != SPLIT_RETRY) return rc;
    }
    return import_serial(src, p, e);
}
