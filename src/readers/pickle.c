/*
 * pickle.c — the safe pickle machine; see pickle.h.
 *
 * The machine is a loop over opcodes with a value stack, a stack of marks and
 * the memo.  It never recurses, so nesting depth costs no C stack; the value
 * stack and the marks are capped so that a hostile file cannot make them
 * grow without bound.  Bytes come from the source through a buffer that grows
 * only as real bytes arrive, so a length field of 4 GB in a 100-byte file
 * costs nothing but the "truncated" error.
 */
#include "pickle.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"

#define CHUNK (1u << 20)
#define MAX_STACK (1u << 24)     /* values on the stack at once; real snapshots use ~1,000 */
#define MAX_MARKS (1u << 20)     /* open marks; real snapshots nest ~6 deep */
#define MAX_STRING ((uint64_t)1 << 31)
#define MEMO_UNSET ((ml_pv)15)   /* reader-private sentinels, never values of the store */
#define MEMO_DROPPED ((ml_pv)14)

typedef struct reader {
    ml_source *src;
    const char *name;
    ml_pvs *st;
    ml_append_hook hook;
    void *user;
    unsigned char *buf;
    size_t pos, end, cap;
    uint64_t base;               /* stream offset of buf[0] */
    VEC(ml_pv) stack;
    VEC(size_t) marks;
    VEC(ml_pv) memo;
    uint32_t memo_count;         /* slots filled: MEMOIZE's next index */
    uint64_t at;                 /* offset of the opcode being run, for errors */
    ml_err *e;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    char msg[ML_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ml_fail(r->e, "%s: byte %" PRIu64 ": %s", r->name, r->at, msg);
}

/* Makes n bytes available at buf+pos, or fails ("truncated"). */
static int fill(reader *r, size_t n)
{
    if (r->end - r->pos >= n) return 0;
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->base += r->pos;
        r->end -= r->pos;
        r->pos = 0;
    }
    while (r->end < n) {
        if (r->end == r->cap) {
            r->cap = r->cap ? r->cap * 2 : CHUNK;
            r->buf = ml_realloc(r->buf, r->cap);
        }
        ml_err re;
        ssize_t k = ml_source_read(r->src, r->buf + r->end, r->cap - r->end, &re);
        if (k < 0) return ml_fail(r->e, "%s", re.msg);
        if (k == 0)
            return fail(r, "unexpected end of input: the pickle is truncated (%zu more bytes needed)",
                        n - r->end);
        r->end += (size_t)k;
    }
    return 0;
}

#define NEED(k) do { if (r->end - r->pos < (size_t)(k) && fill(r, (k)) < 0) return -1; } while (0)

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int push_slow(reader *r, ml_pv v)
{
    if (r->stack.len >= MAX_STACK) return fail(r, "more than %u values on the pickle stack (hostile pickle?)", MAX_STACK);
    VEC_PUSH(&r->stack, v);
    return 0;
}

static inline int push(reader *r, ml_pv v)
{
    if (r->stack.len < r->stack.cap) { r->stack.v[r->stack.len++] = v; return 0; }
    return push_slow(r, v);
}

/* Where the values above the innermost mark begin. */
static size_t fence(const reader *r) { return r->marks.len ? r->marks.v[r->marks.len - 1] : 0; }

static int pop_mark(reader *r, const char *op, size_t *mark)
{
    if (!r->marks.len) return fail(r, "%s without a MARK", op);
    *mark = r->marks.v[--r->marks.len];
    return 0;
}

/* The container just below the mark, which APPENDS/SETITEMS/ADDITEMS fill. */
static int target(reader *r, size_t mark, ml_pv_type want, const char *op, ml_pv *out)
{
    if (mark == 0 || mark - 1 < fence(r)) return fail(r, "%s with nothing to add to", op);
    ml_pv c = r->stack.v[mark - 1];
    ml_pv_type t = ml_pv_type_of(r->st, c);
    if (t != want) return fail(r, "%s onto a %s, expected a %s", op, ml_pv_type_name(t), ml_pv_type_name(want));
    *out = c;
    return 0;
}

/* Appends items[0..n) to list, offering each to the hook first. */
static int append_items(reader *r, ml_pv list, ml_pv *items, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int took = 0;
        if (r->hook && ml_pv_cont_type(ml_pv_cont_of(r->st, items[i])) == ML_PV_DICT) {
            took = r->hook(r->user, r->st, list, items[i], r->e);
            if (took < 0) return ml_prefix(r->e, "%s: byte %" PRIu64, r->name, r->at);
        }
        if (!took) { items[kept++] = items[i]; continue; }
        if (ml_pv_is_container(r->st, items[i]) || ml_pv_type_of(r->st, items[i]) == ML_PV_EXT) {
            uint32_t slot = ml_pv_drop(r->st, items[i]);
            if (slot < r->memo.len && r->memo.v[slot] == items[i]) r->memo.v[slot] = MEMO_DROPPED;
        }
    }
    ml_pv_append(r->st, list, items, kept);
    return 0;
}

static int memo_put(reader *r, uint64_t idx)
{
    if (r->stack.len <= fence(r)) return fail(r, "memo store with an empty stack");
    /* A writer numbers memo slots in order, one per memoised value, and each
     * costs at least one byte: an index beyond the bytes read is hostile. */
    if (idx > r->at + 16) return fail(r, "memo index %" PRIu64 " cannot occur this early (hostile pickle?)", idx);
    if (idx >= r->memo.len) {
        VEC_RESERVE(&r->memo, idx + 1);
        while (r->memo.len <= idx) r->memo.v[r->memo.len++] = MEMO_UNSET;
    }
    if (r->memo.v[idx] == MEMO_UNSET) r->memo_count++;
    ml_pv v = r->stack.v[r->stack.len - 1];
    r->memo.v[idx] = v;
    ml_pv_note_memo(r->st, v, (uint32_t)idx);
    return 0;
}

static int memo_get(reader *r, uint64_t idx)
{
    if (idx >= r->memo.len || r->memo.v[idx] == MEMO_UNSET)
        return fail(r, "memo %" PRIu64 " was never stored", idx);
    /* (a container dropped since, memoised in another slot too, reads as dropped
     * wherever it is used: the store's generation numbers see to that) */
    if (r->memo.v[idx] == MEMO_DROPPED)
        return fail(r, "memo %" PRIu64 " names a value already streamed into the profile "
                       "(one trace entry referenced twice)", idx);
    return push(r, r->memo.v[idx]);
}

static const char *refused_name(unsigned op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    default: return NULL;
    }
}

static int text(reader *r, size_t n, int bytes)
{
    if (n > MAX_STRING) return fail(r, "a string of %zu bytes (more than 2 GiB; hostile pickle?)", n);
    NEED(n);
    const char *s = (const char *)r->buf + r->pos;
    r->pos += n;
    return push(r, bytes ? ml_pv_make_bytes(r->st, s, n) : ml_pv_make_str(r->st, s, n));
}

/* Builds a container of type t from the values above the mark. */
static int collect(reader *r, ml_pv_type t, const char *op)
{
    size_t mark = 0;
    if (pop_mark(r, op, &mark) < 0) return -1;
    size_t n = r->stack.len - mark;
    if (t == ML_PV_DICT && n % 2) return fail(r, "%s with an odd number of keys and values", op);
    ml_pv c = ml_pv_new(r->st, t);
    if (n) ml_pv_append(r->st, c, r->stack.v + mark, n);
    r->stack.len = mark;
    return push(r, c);
}

static int run(reader *r, ml_pv *out)
{
    for (;;) {
        r->at = r->base + r->pos;
        NEED(1);
        unsigned op = r->buf[r->pos++];
        size_t mark = 0, n;
        ml_pv c, v;
        const char *name;
        switch (op) {
        case 0x80: /* PROTO */
            NEED(1);
            if (r->buf[r->pos] < 2 || r->buf[r->pos] > 5)
                return fail(r, "pickle protocol %u is not supported (memlens reads 2 to 5)", r->buf[r->pos]);
            r->pos++;
            break;
        case 0x95: /* FRAME: a length hint only */
            NEED(8);
            r->pos += 8;
            break;
        case '(': /* MARK */
            if (r->marks.len >= MAX_MARKS) return fail(r, "more than %u nested MARKs (hostile pickle?)", MAX_MARKS);
            VEC_PUSH(&r->marks, r->stack.len);
            break;
        case '.': /* STOP */
            if (r->stack.len <= fence(r)) return fail(r, "STOP with an empty stack");
            *out = r->stack.v[r->stack.len - 1];
            return 0;
        case '0': /* POP: a value, or the mark on top */
            if (r->marks.len && r->marks.v[r->marks.len - 1] == r->stack.len) r->marks.len--;
            else if (r->stack.len) r->stack.len--;
            else return fail(r, "POP from an empty stack");
            break;
        case '1': /* POP_MARK */
            if (pop_mark(r, "POP_MARK", &mark) < 0) return -1;
            r->stack.len = mark;
            break;
        case '2': /* DUP */
            if (r->stack.len <= fence(r)) return fail(r, "DUP of an empty stack");
            if (push(r, r->stack.v[r->stack.len - 1]) < 0) return -1;
            break;
        case 'N': if (push(r, ML_PV_NONE_V) < 0) return -1; break;
        case 0x88: if (push(r, ml_pv_bool(1)) < 0) return -1; break;
        case 0x89: if (push(r, ml_pv_bool(0)) < 0) return -1; break;
        case 'J': /* BININT */
            NEED(4);
            v = ml_pv_make_int(r->st, (int32_t)(uint32_t)le(r->buf + r->pos, 4));
            r->pos += 4;
            if (push(r, v) < 0) return -1;
            break;
        case 'K': /* BININT1 */
            NEED(1);
            if (push(r, ml_pv_make_int(r->st, r->buf[r->pos++])) < 0) return -1;
            break;
        case 'M': /* BININT2 */
            NEED(2);
            v = ml_pv_make_int(r->st, (int64_t)le(r->buf + r->pos, 2));
            r->pos += 2;
            if (push(r, v) < 0) return -1;
            break;
        case 0x8a: /* LONG1 */
        case 0x8b: /* LONG4 */
            if (op == 0x8a) { NEED(1); n = r->buf[r->pos++]; }
            else {
                NEED(4);
                int32_t len = (int32_t)(uint32_t)le(r->buf + r->pos, 4);
                if (len < 0) return fail(r, "LONG4 with a negative length");
                r->pos += 4;
                n = (size_t)len;
            }
            NEED(n);
            v = ml_pv_make_long(r->st, r->buf + r->pos, n);
            r->pos += n;
            if (push(r, v) < 0) return -1;
            break;
        case 'G': { /* BINFLOAT, big-endian */
            NEED(8);
            uint64_t u = 0;
            for (int i = 0; i < 8; i++) u = u << 8 | r->buf[r->pos + i];
            r->pos += 8;
            double d;
            memcpy(&d, &u, 8);
            if (push(r, ml_pv_make_float(r->st, d)) < 0) return -1;
            break;
        }
        case 0x8c: NEED(1); n = r->buf[r->pos++]; if (text(r, n, 0) < 0) return -1; break;      /* SHORT_BINUNICODE */
        case 'X': NEED(4); n = le(r->buf + r->pos, 4); r->pos += 4; if (text(r, n, 0) < 0) return -1; break;
        case 0x8d: NEED(8); { uint64_t l = le(r->buf + r->pos, 8); r->pos += 8;      /* BINUNICODE8 */
            if (l > MAX_STRING) return fail(r, "a string of %" PRIu64 " bytes (hostile pickle?)", l);
            if (text(r, (size_t)l, 0) < 0) return -1; } break;
        case 'U': NEED(1); n = r->buf[r->pos++]; if (text(r, n, 0) < 0) return -1; break;       /* SHORT_BINSTRING */
        case 'T': NEED(4); { int32_t l = (int32_t)(uint32_t)le(r->buf + r->pos, 4); r->pos += 4;  /* BINSTRING */
            if (l < 0) return fail(r, "BINSTRING with a negative length");
            if (text(r, (size_t)l, 0) < 0) return -1; } break;
        case 'C': NEED(1); n = r->buf[r->pos++]; if (text(r, n, 1) < 0) return -1; break;       /* SHORT_BINBYTES */
        case 'B': NEED(4); n = le(r->buf + r->pos, 4); r->pos += 4; if (text(r, n, 1) < 0) return -1; break;
        case 0x8e: case 0x96: NEED(8); { uint64_t l = le(r->buf + r->pos, 8); r->pos += 8;  /* BINBYTES8, BYTEARRAY8 */
            if (l > MAX_STRING) return fail(r, "a byte string of %" PRIu64 " bytes (hostile pickle?)", l);
            if (text(r, (size_t)l, 1) < 0) return -1; } break;
        case '}': if (push(r, ml_pv_new(r->st, ML_PV_DICT)) < 0) return -1; break;
        case ']': if (push(r, ml_pv_new(r->st, ML_PV_LIST)) < 0) return -1; break;
        case ')': if (push(r, ml_pv_new(r->st, ML_PV_TUPLE)) < 0) return -1; break;
        case 0x8f: if (push(r, ml_pv_new(r->st, ML_PV_SET)) < 0) return -1; break;
        case 't': if (collect(r, ML_PV_TUPLE, "TUPLE") < 0) return -1; break;
        case 'l': if (collect(r, ML_PV_LIST, "LIST") < 0) return -1; break;
        case 'd': if (collect(r, ML_PV_DICT, "DICT") < 0) return -1; break;
        case 0x91: if (collect(r, ML_PV_FROZENSET, "FROZENSET") < 0) return -1; break;
        case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
            n = op - 0x84;
            if (r->stack.len - fence(r) < n) return fail(r, "TUPLE%zu with %zu values on the stack", n, r->stack.len - fence(r));
            c = ml_pv_new(r->st, ML_PV_TUPLE);
            ml_pv_append(r->st, c, r->stack.v + r->stack.len - n, n);
            r->stack.len -= n;
            if (push(r, c) < 0) return -1;
            break;
        }
        case 'a': /* APPEND */
            if (r->stack.len - fence(r) < 2) return fail(r, "APPEND with nothing to append to");
            if (target(r, r->stack.len - 1, ML_PV_LIST, "APPEND", &c) < 0) return -1;
            r->stack.len--;
            if (append_items(r, c, r->stack.v + r->stack.len, 1) < 0) return -1;
            break;
        case 'e': /* APPENDS */
            if (pop_mark(r, "APPENDS", &mark) < 0 || target(r, mark, ML_PV_LIST, "APPENDS", &c) < 0) return -1;
            if (append_items(r, c, r->stack.v + mark, r->stack.len - mark) < 0) return -1;
            r->stack.len = mark;
            break;
        case 's': /* SETITEM */
            if (r->stack.len - fence(r) < 3) return fail(r, "SETITEM without a dict, a key and a value");
            if (target(r, r->stack.len - 2, ML_PV_DICT, "SETITEM", &c) < 0) return -1;
            ml_pv_append(r->st, c, r->stack.v + r->stack.len - 2, 2);
            r->stack.len -= 2;
            break;
        case 'u': /* SETITEMS */
            if (pop_mark(r, "SETITEMS", &mark) < 0 || target(r, mark, ML_PV_DICT, "SETITEMS", &c) < 0) return -1;
            if ((r->stack.len - mark) % 2) return fail(r, "SETITEMS with an odd number of keys and values");
            ml_pv_append(r->st, c, r->stack.v + mark, r->stack.len - mark);
            r->stack.len = mark;
            break;
        case 0x90: /* ADDITEMS */
            if (pop_mark(r, "ADDITEMS", &mark) < 0 || target(r, mark, ML_PV_SET, "ADDITEMS", &c) < 0) return -1;
            ml_pv_append(r->st, c, r->stack.v + mark, r->stack.len - mark);
            r->stack.len = mark;
            break;
        case 0x94: if (memo_put(r, r->memo_count) < 0) return -1; break;                  /* MEMOIZE */
        case 'q': NEED(1); if (memo_put(r, r->buf[r->pos++]) < 0) return -1; break;       /* BINPUT */
        case 'r': NEED(4); n = le(r->buf + r->pos, 4); r->pos += 4; if (memo_put(r, n) < 0) return -1; break;
        case 'h': /* BINGET */
        case 'j': { /* LONG_BINGET: the commonest opcode of a snapshot (frame references), inlined */
            size_t w = op == 'h' ? 1 : 4;
            NEED(w);
            const unsigned char *b = r->buf + r->pos;
            n = op == 'h' ? b[0] : (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 | (size_t)b[3] << 24;
            r->pos += w;
            if (n < r->memo.len && r->memo.v[n] != MEMO_UNSET && r->memo.v[n] != MEMO_DROPPED &&
                r->stack.len < r->stack.cap) {
                r->stack.v[r->stack.len++] = r->memo.v[n];
                break;
            }
            if (memo_get(r, n) < 0) return -1;
            break;
        }
        case 'P': case 'Q':
            return fail(r, "opcode 0x%02x %s refused: memlens does not resolve persistent ids", op,
                        op == 'P' ? "PERSID" : "BINPERSID");
        case 0x97: case 0x98:
            return fail(r, "opcode 0x%02x %s refused: out-of-band buffers are not in the file", op,
                        op == 0x97 ? "NEXT_BUFFER" : "READONLY_BUFFER");
        case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g':
            return fail(r, "opcode 0x%02x ('%c') belongs to text pickles (protocol 0), which memlens does not read",
                        op, op);
        default:
            if ((name = refused_name(op)) != NULL)
                return fail(r, "opcode 0x%02x %s refused: memlens never loads code named by a file", op, name);
            return fail(r, "unknown pickle opcode 0x%02x", op);
        }
    }
}

int ml_pickle_read(ml_source *src, ml_pvs *st, ml_append_hook hook, void *user, ml_pv *out, ml_err *e)
{
    reader r = {.src = src, .name = ml_source_name(src), .st = st, .hook = hook, .user = user, .e = e};
    int rc = run(&r, out);
    free(r.buf);
    VEC_FREE(&r.stack);
    VEC_FREE(&r.marks);
    VEC_FREE(&r.memo);
    return rc;
}

int ml_pickle_sniff(const unsigned char *head, size_t n)
{
    return n >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}
