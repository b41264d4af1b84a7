/*
 * ascend_ops.c — the CPU side of a torch_npu profile, for its memory: the
 * operators (trace_view.json cpu_op / python_function events, or the db's
 * PYTORCH_API) with their call stacks ("Call stack" args, PYTORCH_CALLCHAINS),
 * and the host and NPU names (HOST_INFO, NPU_INFO).
 *
 * Operators go into p->ops (ProfilerStep#N and Optimizer.* as annotations,
 * as Kineto marks them; python functions as ML_OP_PYTHON), so that an
 * operator's calls are counted and the categoriser sees steps, backward and
 * optimizer.  Each operator-memory row (p->allocs, op = the row's name) is
 * then linked to its operator: the call of that name whose span holds the
 * allocation time (the innermost when calls nest): the allocation takes its
 * thread (so ml_attribute gives it its top-level operator and, failing a
 * stack of its own, the Python functions around it) and its call stack:
 * the operator's own, else the one it ran under (inherit_stacks: the
 * innermost enclosing operator's, or a backward operator's forward one's).
 * GE rows (cann::*) name no CPU operator and keep none: the task-queue
 * Dequeue running when they were allocated would name one, but other threads
 * run operators at the same instants, so the link would be a guess.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ascend.h"
#include "attribute.h"
#include "decimal.h"
#include "jsonscan.h"

typedef struct xop {
    int64_t ts, end;
    ml_str name;
    uint32_t thread;
    uint32_t stack; /* ML_NONE32: a python function; 0: no call stack recorded */
    int64_t seq;    /* autograd sequence number, -1 if none */
    int64_t fwd;    /* "Fwd thread id" / fwdThreadId: > 0 on a backward function node */
} xop;

typedef VEC(xop) xops;

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static ml_op_kind kind_of(const char *name, bool python)
{
    if (python) return ML_OP_PYTHON;
    if (starts(name, "ProfilerStep#") || starts(name, "Optimizer.")) return ML_OP_ANNOTATION;
    return ML_OP_CPU;
}

/* "a.py(12): f;\r\nb.py(3): g" (innermost first) -> a stack id; 0 if empty. */
static uint32_t parse_call_stack(ml_profile *p, const char *s, size_t n)
{
    VEC(uint32_t) fr = {0};
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ';' && s[j] != '\n') j++;
        size_t a = i, b = j;
        while (a < b && (s[a] == ' ' || s[a] == '\r' || s[a] == '\n' || s[a] == '\t')) a++;
        while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\r' || s[b - 1] == '\n' || s[b - 1] == '\t')) b--;
        if (b > a) VEC_PUSH(&fr, ml_python_frame(p, ml_intern(p->strings, s + a, b - a)));
        i = j + 1;
    }
    uint32_t st = ml_stack_get(p, fr.v, fr.len);
    VEC_FREE(&fr);
    return st;
}

static int by_name_ts(const void *x, const void *y)
{
    const xop *a = x, *b = y;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end; /* outer first: the innermost is found last */
}

static int by_thread_ts(const void *x, const void *y)
{
    const xop *a = x, *b = y;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end; /* outer first */
}

typedef struct fwd_stack {
    int64_t seq, ts, end;
    uint32_t thread, stack;
    bool ambiguous;
} fwd_stack;

static int by_seq(const void *x, const void *y)
{
    const fwd_stack *a = x, *b = y;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int by_seq_ts(const void *x, const void *y)
{
    const fwd_stack *a = x, *b = y;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/*
 * Gives the operators without a call stack of their own the one they ran
 * under, never one made up:
 *  - an operator inside another on its thread takes the innermost enclosing
 *    operator's stack (the Python code that called the outer one called it);
 *  - an operator under a backward function node (an op with a "Fwd thread
 *    id", itself or an enclosing one on its thread, as the autograd engine
 *    runs them on its own thread, without Python) takes the stack of the
 *    forward operator with that node's sequence number, as PyTorch's own
 *    EventList._set_backward_stacktraces does; a sequence number seen in
 *    forward operators on more than one thread is left unlinked.
 * ops: the operators (no python functions), sorted here by thread and time.
 * Counts what it did in *nested and *backward.
 */
static void inherit_stacks(xops *ops, size_t *nested, size_t *backward)
{
    qsort(ops->v, ops->len, sizeof *ops->v, by_thread_ts);
    int64_t *bw_seq = ml_malloc((ops->len ? ops->len : 1) * sizeof *bw_seq); /* the backward node's seq, or -1 */
    VEC(size_t) open = {0};
    VEC(fwd_stack) fw = {0};
    for (size_t i = 0; i < ops->len; i++) {
        xop *o = &ops->v[i];
        if (i && o->thread != ops->v[i - 1].thread) open.len = 0;
        while (open.len && ops->v[open.v[open.len - 1]].end < o->end) open.len--; /* only an enclosing one stays */
        const xop *parent = open.len ? &ops->v[open.v[open.len - 1]] : NULL;
        bw_seq[i] = o->fwd > 0 && o->seq >= 0 ? o->seq : parent ? bw_seq[open.v[open.len - 1]] : -1;
        if (!o->stack && parent && parent->stack) {
            o->stack = parent->stack;
            (*nested)++;
        }
        if (bw_seq[i] < 0 && o->seq >= 0 && o->stack) VEC_PUSH(&fw, ((fwd_stack){o->seq, o->ts, o->end, o->thread, o->stack, false}));
        VEC_PUSH(&open, i);
    }
    if (fw.len) {
        /* per sequence number, the first forward operator (the outermost: its stack) */
        qsort(fw.v, fw.len, sizeof *fw.v, by_seq_ts);
        size_t w = 0;
        for (size_t i = 0; i < fw.len;) {
            size_t j = i;
            bool amb = false;
            while (j < fw.len && fw.v[j].seq == fw.v[i].seq) {
                if (fw.v[j].thread != fw.v[i].thread) amb = true;
                j++;
            }
            fw.v[w] = fw.v[i];
            fw.v[w++].ambiguous = amb;
            i = j;
        }
        fw.len = w;
    }
    for (size_t i = 0; i < ops->len; i++) {
        xop *o = &ops->v[i];
        if (o->stack || bw_seq[i] < 0 || !fw.len) continue;
        fwd_stack key = {.seq = bw_seq[i]};
        const fwd_stack *f = bsearch(&key, fw.v, fw.len, sizeof *fw.v, by_seq);
        if (f && !f->ambiguous) {
            o->stack = f->stack;
            (*backward)++;
        }
    }
    VEC_FREE(&fw);
    VEC_FREE(&open);
    free(bw_seq);
}

/* Pushes the operators and links the operator-memory rows to them. */
static void link(ml_profile *p, xops *ops)
{
    for (size_t i = 0; i < ops->len; i++) {
        const xop *o = &ops->v[i];
        ml_op_push(p, o->ts, o->end - o->ts, o->name, o->thread, kind_of(ml_s(p, o->name), o->stack == ML_NONE32));
    }
    /* python functions are not candidates */
    size_t w = 0;
    for (size_t i = 0; i < ops->len; i++)
        if (ops->v[i].stack != ML_NONE32) ops->v[w++] = ops->v[i];
    ops->len = w;
    if (!ops->len) return;
    size_t own = 0, nested = 0, backward = 0;
    for (size_t i = 0; i < ops->len; i++) own += ops->v[i].stack != 0;
    inherit_stacks(ops, &nested, &backward);
    qsort(ops->v, ops->len, sizeof *ops->v, by_name_ts);
    ml_allocs *a = &p->allocs;
    size_t linked = 0, rows = 0, stacks = 0;
    for (size_t i = 0; i < a->size.len; i++) {
        if (a->thread.v[i] != ML_NONE32 || !a->op.v[i] || a->t_alloc.v[i] == ML_TIME_NONE) continue;
        rows++;
        ml_str name = a->op.v[i];
        int64_t t = a->t_alloc.v[i];
        /* the last call of that name starting at or before t */
        size_t lo = 0, hi = ops->len;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ops->v[mid].name < name || (ops->v[mid].name == name && ops->v[mid].ts <= t)) lo = mid + 1;
            else hi = mid;
        }
        /* calls of one name rarely nest: look a few back for one that holds t */
        for (size_t k = lo, tries = 0; k > 0 && tries < 8; k--, tries++) {
            const xop *o = &ops->v[k - 1];
            if (o->name != name) break;
            if (t > o->end) continue;
            a->thread.v[i] = o->thread;
            if (o->stack && !a->stack.v[i]) {
                a->stack.v[i] = o->stack;
                stacks++;
            }
            linked++;
            break;
        }
    }
    if (rows)
        ml_note(p,
                "operator memory: %zu of %zu rows linked to their operator in the CPU trace (%zu with its call stack; "
                "of %zu operators, %zu have a stack of their own, %zu that of an enclosing operator, %zu (backward) "
                "that of their forward operator)",
                linked, rows, stacks, ops->len, own, nested, backward);
}

/* ---- trace_view.json ---- */

int ml_ascend_trace_view_ops(ml_source *src, ml_profile *p, ml_err *e)
{
    js_scanner *js = js_open(src);
    xops ops = {0};
    VEC(char) stack = {0};
    int rc = -1;
    js_tok t = js_next(js);
    if (t == JS_OBJECT) {
        while ((t = js_next(js)) == JS_KEY) {
            size_t n;
            const char *k = js_text(js, &n);
            if (n == 11 && !memcmp(k, "traceEvents", 11)) break;
            if (js_skip(js) < 0) goto fail;
        }
        if (t == JS_KEY) t = js_next(js);
    }
    if (t != JS_ARRAY) { rc = 0; goto out; } /* ml_ascend_trace_view_add says what is wrong */
    for (;;) {
        t = js_next(js);
        if (t == JS_ARRAY_END || t == JS_END) break;
        if (t == JS_ERROR) goto fail;
        if (t != JS_OBJECT) {
            if ((t == JS_ARRAY) && js_skip_rest(js) < 0) goto fail;
            continue;
        }
        char ph[4] = "", cat[24] = "", name[512] = "", pid[32] = "", tid[32] = "";
        int64_t ts = 0, dur = -1, seq = -1, fwd = 0;
        bool has_ts = false;
        stack.len = 0;
        const char *key, *v;
        size_t kn, vn;
        int more;
        while ((more = js_key(js, &key, &kn)) > 0) {
            char *dst = NULL;
            size_t cap = 0;
            if (kn == 2 && !memcmp(key, "ph", 2)) dst = ph, cap = sizeof ph;
            else if (kn == 3 && !memcmp(key, "cat", 3)) dst = cat, cap = sizeof cat;
            else if (kn == 4 && !memcmp(key, "name", 4)) dst = name, cap = sizeof name;
            else if (kn == 3 && !memcmp(key, "pid", 3)) dst = pid, cap = sizeof pid;
            else if (kn == 3 && !memcmp(key, "tid", 3)) dst = tid, cap = sizeof tid;
            else if (kn == 2 && !memcmp(key, "ts", 2)) {
                int r = js_value_number(js, 3, &ts);
                if (r < 0) goto fail;
                has_ts = r == 1;
                continue;
            } else if (kn == 3 && !memcmp(key, "dur", 3)) {
                int r = js_value_number(js, 3, &dur);
                if (r < 0) goto fail;
                if (r != 1) dur = -1;
                continue;
            } else if (kn == 4 && !memcmp(key, "args", 4)) {
                js_tok o = js_next(js);
                if (o == JS_ERROR) goto fail;
                if (o != JS_OBJECT) {
                    if (o == JS_ARRAY && js_skip_rest(js) < 0) goto fail;
                    continue;
                }
                int am;
                while ((am = js_key(js, &key, &kn)) > 0) {
                    if (kn == 10 && !memcmp(key, "Call stack", 10)) {
                        int r = js_value_string(js, &v, &vn);
                        if (r < 0) goto fail;
                        if (r == 1) {
                            VEC_RESERVE(&stack, vn);
                            memcpy(stack.v, v, vn);
                            stack.len = vn;
                        }
                    } else if ((kn == 15 && !memcmp(key, "Sequence number", 15)) ||
                               (kn == 13 && !memcmp(key, "Fwd thread id", 13))) {
                        int64_t x;
                        int r = js_value_number(js, 0, &x);
                        if (r < 0) goto fail;
                        if (r == 1) *(kn == 15 ? &seq : &fwd) = x;
                    } else if (js_skip(js) < 0) goto fail;
                }
                if (am < 0) goto fail;
                continue;
            }
            if (!dst) {
                if (js_skip(js) < 0) goto fail;
                continue;
            }
            int r = js_value_scalar_text(js, &v, &vn);
            if (r < 0) goto fail;
            if (r == 1) {
                if (vn >= cap) vn = cap - 1;
                memcpy(dst, v, vn);
                dst[vn] = 0;
            }
        }
        if (more < 0) goto fail;
        bool python = !strcmp(cat, "python_function");
        if (strcmp(ph, "X") || (!python && strcmp(cat, "cpu_op")) || !has_ts || dur < 0 || !name[0]) continue;
        if (!ml_value_ok(ts) || !ml_value_ok(dur)) continue;
        xop o = {ts, ts + dur, ml_intern_cstr(p->strings, name),
                 ml_thread_get(p, pid, strlen(pid), tid, strlen(tid)), python ? ML_NONE32 : 0, seq, fwd};
        if (!python && stack.len) o.stack = parse_call_stack(p, stack.v, stack.len);
        VEC_PUSH(&ops, o);
    }
    link(p, &ops);
    rc = 0;
    goto out;
fail:
    ml_fail(e, "%s: %s", ml_source_name(src), t == JS_ERROR ? js_error(js) : "malformed trace event");
out:
    VEC_FREE(&ops);
    VEC_FREE(&stack);
    js_close(js);
    return rc;
}

/* ---- the SQLite export ---- */

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const unsigned char *s = sqlite3_column_text(st, c);
    return s ? (const char *)s : "";
}

/* The db's integers may be stored as text (PYTORCH_API's startNs). */
static bool col_i64(sqlite3_stmt *st, int c, int64_t *out)
{
    if (sqlite3_column_type(st, c) == SQLITE_INTEGER) {
        *out = sqlite3_column_int64(st, c);
        return true;
    }
    const char *s = col_text(st, c);
    return *s && ml_parse_i64(s, strlen(s), out) == 0;
}

int ml_ascend_db_ops(const char *path, ml_profile *p, ml_err *e)
{
    (void)e; /* the tables read here are optional: what cannot be read is left out */
    sqlite3 *db = NULL;
    if (ml_ascend_db_open(path, &db) < 0) return 0; /* ascend_db_time.c */
    sqlite3_stmt *st;
    /* NPU models: NPU_INFO (id, name) -> the name of npu:id */
    if ((st = prep(db, "SELECT id, name FROM NPU_INFO"))) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t id;
            const char *name = col_text(st, 1);
            if (!col_i64(st, 0, &id) || id < 0 || id > 65535 || !*name) continue;
            for (size_t d = 0; d < p->devices.len; d++)
                if (p->devices.v[d].kind == ML_DEV_NPU && p->devices.v[d].index == id && !p->devices.v[d].name)
                    p->devices.v[d].name = ml_intern_cstr(p->strings, name);
        }
        sqlite3_finalize(st);
    }
    if ((st = prep(db, "SELECT hostName FROM HOST_INFO LIMIT 1"))) {
        if (sqlite3_step(st) == SQLITE_ROW && *col_text(st, 0)) p->host = ml_intern_cstr(p->strings, col_text(st, 0));
        sqlite3_finalize(st);
    }
    /* Call stacks: PYTORCH_CALLCHAINS (id, frame string, depth 0 = innermost). */
    VEC(uint32_t) chain_stack = {0}; /* callchain id -> stack id */
    if ((st = prep(db, "SELECT c.id, s.value FROM PYTORCH_CALLCHAINS c JOIN STRING_IDS s ON s.id = c.stack "
                       "ORDER BY c.id, c.stackDepth"))) {
        VEC(uint32_t) fr = {0};
        int64_t cur = -1, id = -1;
        for (;;) {
            bool row = sqlite3_step(st) == SQLITE_ROW;
            if (row && !col_i64(st, 0, &id)) continue;
            if ((!row || id != cur) && cur >= 0 && cur < (1 << 24)) {
                while (chain_stack.len <= (size_t)cur) VEC_PUSH(&chain_stack, 0);
                chain_stack.v[cur] = ml_stack_get(p, fr.v, fr.len);
                fr.len = 0;
            }
            if (!row) break;
            cur = id;
            const char *text = col_text(st, 1);
            VEC_PUSH(&fr, ml_python_frame(p, ml_intern_cstr(p->strings, text)));
        }
        VEC_FREE(&fr);
        sqlite3_finalize(st);
    }
    /* Operators: PYTORCH_API rows of type op (50001) and trace (50003: python functions). */
    xops ops = {0};
    if ((st = prep(db, "SELECT a.startNs, a.endNs, a.globalTid, s.value, a.callchainId, e.name, a.sequenceNumber, a.fwdThreadId FROM PYTORCH_API a "
                       "JOIN STRING_IDS s ON s.id = a.name LEFT JOIN ENUM_API_TYPE e ON e.id = a.type"))) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t t0, t1, tid, chain;
            const char *type = col_text(st, 5);
            bool python = !strcmp(type, "trace");
            if (strcmp(type, "op") && !python) continue;
            if (!col_i64(st, 0, &t0) || !col_i64(st, 1, &t1) || t1 < t0 || !ml_value_ok(t0) || !ml_value_ok(t1)) continue;
            char tids[32];
            snprintf(tids, sizeof tids, "%lld", col_i64(st, 2, &tid) ? (long long)tid : 0LL);
            xop o = {t0, t1, ml_intern_cstr(p->strings, col_text(st, 3)), ml_thread_get(p, "0", 1, tids, strlen(tids)),
                     python ? ML_NONE32 : 0, -1, 0};
            if (!col_i64(st, 6, &o.seq)) o.seq = -1;
            if (!col_i64(st, 7, &o.fwd)) o.fwd = 0;
            if (!python && col_i64(st, 4, &chain) && chain >= 0 && (size_t)chain < chain_stack.len)
                o.stack = chain_stack.v[chain];
            VEC_PUSH(&ops, o);
        }
        sqlite3_finalize(st);
    }
    link(p, &ops);
    VEC_FREE(&ops);
    VEC_FREE(&chain_stack);
    sqlite3_close(db);
    return 0;
}
