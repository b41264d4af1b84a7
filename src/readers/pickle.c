/*
 * pickle.c — the safe pickle machine; see pickle.h.
 *
 * The machine is a loop over opcodes with a value stack, a stack of marks and
 * the memo.  It never recurses, so nesting depth costs no C stack; the value
 * stack and the marks are capped so that a hostile file cannot make them
 * grow without bound.  Bytes come from the source through a buffer that grows
 * only as real bytes arrive, so a length field of 4 GB in a 100-byte file
 * costs nothing but the "truncated" error.
 *
 * A plain file or memory is read in place (mapview.h): no buffer, no copy,
 * and fill() only ever finds the end.
 *
 * A snapshot of a gigabyte is ~30M opcodes, and three things keep it fast:
 * fast_run() takes runs of simple opcodes with the stack and memo in
 * registers; a trace entry goes to the record hook as SETITEMS completes it,
 * straight from the stack; a frame list goes to the list hook as APPENDS
 * fills it, and a frame list seen before is answered from a cache keyed by
 * its bytes (first guessed from its first 64 bytes, which costs one compare).
 */
#include "pickle.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapview.h"
#include "vec.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CHUNK (1u << 20)
#define VIEW_TELL (1u << 19)     /* bytes between the reader's reports to a view's pager */
#define MAX_STACK (1u << 24)     /* values on the stack at once; real snapshots use ~1,000 */
#define MAX_MARKS (1u << 20)     /* open marks; real snapshots nest ~6 deep */
#define MAX_STRING ((uint64_t)1 << 31)
#define MEMO_UNSET ((ml_pv)15)   /* reader-private sentinel, never a value of the store */
#define SIDE_TAG 12u             /* a memo slot's tag for "the word is in r->side" (no value has it) */
#define MAX_SIDE (1u << 27)      /* side entries: their index fits a slot's 28 bits, sign bit clear */
#define TAKEN ((ml_pv)ML_PV_TAG_DROPPED) /* on the stack: a dict the record hook took at SETITEMS */

/* Allocations with the same call path have the same frame list, and pickle
 * writes it with the same bytes: "] MEMOIZE ( BINGET/LONG_BINGET ... APPENDS".
 * The number the list hook gave for a list is kept under the bytes of its run
 * of memo references; the same run again (same bytes, the memo not rewritten
 * since: so the same items) then costs a hash and a compare, not ~50 opcodes
 * and the hook.  The list hook must be a function of the items (pickle.h). */
#define RUNS 4096                 /* cache entries (a power of two), in pairs: a run may sit in either */
#define RUN_MAX (5 * 999)         /* bytes: 999 references at most, the lists the hook is offered */

/* Finding a run's end and hashing it reads its bytes twice before the
 * compare reads them a third time, ~550 instructions for a run of 45 frames.
 * So a run is first looked for by its first GUESS_BYTES bytes: a set of
 * GUESS_WAYS cache entries that began so, each checked by its APPENDS at its
 * own length and a compare.  Equal bytes up to an 'e' that ends them are the
 * same run: the entry's bytes are whole BINGETs and LONG_BINGETs.  Runs that
 * share their first bytes (the allocator's own frames, innermost first) and
 * outnumber the ways only miss here and take the full lookup. */
#define GUESS_BYTES 64
#define GUESS_SETS 1024           /* a power of two */
#define GUESS_WAYS 8
_Static_assert(RUNS < 65536, "a guess names a cache entry in 16 bits");

typedef struct run_entry {
    uint64_t hash;
    uint32_t len, cap, memo_gen;
    ml_pv result;                 /* 0 until the list hook has given it */
    unsigned char *bytes;         /* len of cap bytes */
} run_entry;

/* Memo slots are 32 bits: a gigabyte snapshot memoises 12M values, nearly
 * all of them words whose low 32 bits, sign-extended, give them back (small
 * ints, strings, the importer's EXT numbers, None, a dropped entry), kept as
 * they are.  The others, containers above all (their generation sits in the
 * high bits), go to a side table, and the slot holds their index there
 * (SIDE_TAG).  A trace entry the reader takes gives its side entry back and
 * its slot reads as dropped from then on: the side table holds only the
 * containers still alive in the memo, a few thousand. */
typedef struct side_entry {
    ml_pv word;                  /* 0: free */
    uint32_t slot;               /* the memo slot that names it */
} side_entry;

typedef struct reader {
    ml_source *src;
    const char *name;
    ml_pvs *st;
    ml_append_hook hook;
    ml_record_hook record;
    ml_list_hook list_hook;
    ml_shared_hook shared_hook;
    void *user;
    const unsigned char *buf;    /* own, or the whole input in place (view) */
    unsigned char *own;          /* the buffer fill() reads into (NULL with a view) */
    ml_mapview *view;            /* the input in memory (mapview.h): no fill(), no copies */
    size_t view_told;            /* where ml_mapview_advance() was last told the reader is */
    size_t end, cap;             /* bytes in buf, its size */
    uint64_t base;               /* stream offset of buf[0] */
    const unsigned char *op;     /* the opcode being run: its offset names errors */
    VEC(ml_pv) stack;
    VEC(size_t) marks;
    VEC(uint32_t) memo;          /* 32-bit slots: see side_entry */
    VEC(side_entry) side;
    VEC(uint32_t) side_free;     /* free side entries */
    VEC(uint32_t) cont_side;     /* container slot index -> its side entry + 1 (0: none) */
    uint32_t memo_count;         /* slots filled: MEMOIZE's next index */
    uint32_t memo_gen;           /* times a memo slot was written over (BINPUT to a used slot) */
    run_entry *runs;             /* RUNS, allocated when first needed */
    uint16_t *guess;             /* GUESS_SETS * GUESS_WAYS: an entry of runs + 1, 0 for none */
    run_entry *pending;          /* the run whose APPENDS at stream offset pending_at gives its result */
    uint64_t pending_at;
    ml_err *e;
} reader;

static inline bool fits32(ml_pv v) { return (ml_pv)(int64_t)(int32_t)(uint32_t)v == v; }
/* The word of a slot that is no SIDE_TAG one (SIDE and MEMO_UNSET come back with their tags). */
static inline ml_pv slot_word(uint32_t m) { return (ml_pv)(int64_t)(int32_t)m; }

static ml_pv memo_read(const reader *r, size_t idx)
{
    uint32_t m = r->memo.v[idx];
    return (m & 15) == SIDE_TAG ? r->side.v[m >> 4].word : slot_word(m);
}

static void side_release(reader *r, uint32_t k)
{
    r->side.v[k].word = 0;
    VEC_PUSH(&r->side_free, k);
}

/* Stores v, which does not fit 32 bits, in memo slot idx through a side
 * entry (whatever the slot held is overwritten); -1 when the side table is full. */
static int side_put(reader *r, size_t idx, ml_pv v)
{
    uint32_t k;
    if (r->side_free.len) k = r->side_free.v[--r->side_free.len];
    else {
        if (r->side.len >= MAX_SIDE) return -1;
        VEC_PUSH(&r->side, ((side_entry){0}));
        k = (uint32_t)(r->side.len - 1);
    }
    r->side.v[k] = (side_entry){v, (uint32_t)idx};
    r->memo.v[idx] = k << 4 | SIDE_TAG;
    if (ML_PV_TAG(v) == ML_PV_TAG_CONT) {
        size_t ci = (size_t)((v >> 4) & 0xFFFFFFFFu);
        if (ci >= r->cont_side.len) {
            VEC_RESERVE(&r->cont_side, ci + 1);
            while (r->cont_side.len <= ci) r->cont_side.v[r->cont_side.len++] = 0;
        }
        r->cont_side.v[ci] = k + 1;
    }
    return 0;
}

/* Stores v in memo slot idx (< memo.len); -1 only when the side table is full. */
static int memo_set(reader *r, size_t idx, ml_pv v)
{
    uint32_t old = r->memo.v[idx];
    if ((old & 15) == SIDE_TAG) side_release(r, old >> 4);
    if (fits32(v)) {
        r->memo.v[idx] = (uint32_t)v;
        return 0;
    }
    return side_put(r, idx, v);
}

/* Container v, which the reader drops now (a taken trace entry): its memo
 * slot reads as dropped from now on, and its side entry is free again. */
static void memo_forget(reader *r, ml_pv v)
{
    size_t ci = (size_t)((v >> 4) & 0xFFFFFFFFu);
    if (ci >= r->cont_side.len || !r->cont_side.v[ci]) return;
    uint32_t k = r->cont_side.v[ci] - 1;
    r->cont_side.v[ci] = 0;
    side_entry *x = &r->side.v[k];
    if (x->word != v || r->memo.v[x->slot] != (k << 4 | SIDE_TAG)) return;
    r->memo.v[x->slot] = ML_PV_TAG_DROPPED;
    side_release(r, k);
}

/* Stream offset of the opcode being run. */
static uint64_t at(const reader *r) { return r->base + (uint64_t)(r->op - r->buf); }

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    char msg[ML_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ml_fail(r->e, "%s: byte %" PRIu64 ": %s", r->name, at(r), msg);
}

/* Makes n bytes available at p (inside the current opcode), moving the
 * opcode's bytes to the front of the buffer; returns the new p, or NULL
 * ("truncated").  The buffer grows only as real bytes arrive. */
static const unsigned char *fill(reader *r, const unsigned char *p, size_t n)
{
    size_t done = (size_t)(p - r->op), skip = (size_t)(r->op - r->buf);
    if (r->view) { /* the whole input is there already */
        fail(r, "unexpected end of input: the pickle is truncated (%zu more bytes needed)", n - (r->end - skip - done));
        return NULL;
    }
    if (skip) {
        memmove(r->own, r->op, r->end - skip);
        r->base += skip;
        r->end -= skip;
        r->op = r->buf;
    }
    while (r->end - done < n) {
        if (r->end == r->cap) {
            r->cap *= 2;
            r->buf = r->own = ml_realloc(r->own, r->cap);
            r->op = r->buf;
        }
        ml_err re;
        ssize_t k = ml_source_read(r->src, r->own + r->end, r->cap - r->end, &re);
        if (k < 0) { ml_fail(r->e, "%s", re.msg); return NULL; }
        if (k == 0) {
            fail(r, "unexpected end of input: the pickle is truncated (%zu more bytes needed)", n - (r->end - done));
            return NULL;
        }
        r->end += (size_t)k;
    }
    return r->buf + done;
}

/* Within run(): p is the read position, end the end of the bytes in buf. */
#define NEED(k)                                                            \
    do {                                                                   \
        if ((size_t)(end - p) < (size_t)(k)) {                             \
            if ((p = fill(r, p, (k))) == NULL) return -1;                  \
            end = r->buf + r->end;                                         \
        }                                                                  \
    } while (0)
/* run() makes room for one value before each opcode; no opcode pushes more. */
#define PUSH(x) (r->stack.v[r->stack.len++] = (x))

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The n-byte (1..8) little-endian two's complement integer at p (end: the
 * end of the readable bytes, which allows one 8-byte load). */
static int64_t le_signed(const unsigned char *p, size_t n, const unsigned char *end)
{
    uint64_t u;
    if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && end - p >= 8) memcpy(&u, p, 8);
    else u = le(p, (int)n);
    unsigned sh = 64 - 8 * (unsigned)n;
    return (int64_t)(u << sh) >> sh;
}

static int grow_stack(reader *r)
{
    if (r->stack.len >= MAX_STACK) return fail(r, "more than %u values on the pickle stack (hostile pickle?)", MAX_STACK);
    VEC_RESERVE(&r->stack, r->stack.len + 1);
    return 0;
}

/* Where the values above the innermost mark begin. */
static size_t fence(const reader *r) { return r->marks.len ? r->marks.v[r->marks.len - 1] : 0; }

static int pop_mark(reader *r, const char *op, size_t *mark)
{
    if (!r->marks.len) return fail(r, "%s without a MARK", op);
    *mark = r->marks.v[--r->marks.len];
    return 0;
}

static int target_fail(reader *r, size_t mark, ml_pv_type want, const char *op)
{
    if (mark == 0 || mark - 1 < fence(r)) return fail(r, "%s with nothing to add to", op);
    ml_pv_type t = ml_pv_type_of(r->st, r->stack.v[mark - 1]);
    return fail(r, "%s onto a %s, expected a %s", op, ml_pv_type_name(t), ml_pv_type_name(want));
}

/* The container just below the mark, which APPENDS/SETITEMS/ADDITEMS fill. */
static inline int target(reader *r, size_t mark, ml_pv_type want, const char *op, ml_pv *out)
{
    if (mark > fence(r) && ml_pv_cont_as(r->st, r->stack.v[mark - 1], want)) {
        *out = r->stack.v[mark - 1];
        return 0;
    }
    return target_fail(r, mark, want, op);
}

/* Appends items[0..n) to list, offering each dict to the hook first. */
static int append_items(reader *r, ml_pv list, ml_pv *items, size_t n)
{
    /* Most appends (frame lists of settled memo words) hold no container at all. */
    size_t kept = 0;
    if (r->hook || r->record)
        while (kept < n && ML_PV_TAG(items[kept]) != ML_PV_TAG_CONT && items[kept] != TAKEN) kept++;
    else kept = n;
    for (size_t i = kept; i < n; i++) {
        ml_pv v = items[i];
        if (v == TAKEN) continue; /* taken at SETITEMS already */
        items[kept++] = v;
        const ml_pv_cont *c;
        if (ML_PV_TAG(v) != ML_PV_TAG_CONT || ml_pv_cont_type(c = ml_pv_cont_of(r->st, v)) != ML_PV_DICT) continue;
        int took = r->record ? r->record(r->user, r->st, list, c->items, c->len / 2, r->e)
                             : r->hook(r->user, r->st, list, v, r->e);
        if (took < 0) return ml_prefix(r->e, "%s: byte %" PRIu64, r->name, at(r));
        if (!took) continue;
        /* Taken: freed now.  Its memo slot reads as dropped, so a later BINGET fails. */
        kept--;
        memo_forget(r, v);
        ml_pv_drop(r->st, v);
    }
    ml_pv_append(r->st, list, items, kept);
    return 0;
}

static int memo_put(reader *r, uint64_t idx)
{
    if (r->stack.len <= fence(r)) return fail(r, "memo store with an empty stack");
    /* A writer numbers memo slots in order, one per memoised value, and each
     * costs at least one byte: an index beyond the bytes read is hostile. */
    if (idx > at(r) + 16) return fail(r, "memo index %" PRIu64 " cannot occur this early (hostile pickle?)", idx);
    if (idx >= r->memo.len) {
        VEC_RESERVE(&r->memo, idx + 1);
        while (r->memo.len <= idx) r->memo.v[r->memo.len++] = MEMO_UNSET;
    }
    if (r->memo.v[idx] == MEMO_UNSET) r->memo_count++;
    else r->memo_gen++; /* cached runs that read this slot no longer hold */
    if (memo_set(r, idx, r->stack.v[r->stack.len - 1]) < 0)
        return fail(r, "more than %u containers in the memo at once (hostile pickle?)", MAX_SIDE);
    return 0;
}

/* A container pushed again (BINGET, DUP): the shared hook may refuse it. */
static int shared(reader *r, ml_pv v)
{
    if (!r->shared_hook || ML_PV_TAG(v) != ML_PV_TAG_CONT) return 0;
    if (r->shared_hook(r->user, r->st, v, r->e) < 0) return ml_prefix(r->e, "%s: byte %" PRIu64, r->name, at(r));
    return 0;
}

/* BINGET's slow path: errors, and containers, whose slot is settled (a
 * container converted by the importer becomes its short EXT word). */
static int memo_get(reader *r, uint64_t idx)
{
    if (idx >= r->memo.len || r->memo.v[idx] == MEMO_UNSET)
        return fail(r, "memo %" PRIu64 " was never stored", idx);
    ml_pv v = memo_read(r, idx);
    if (ml_pv_is_dropped(r->st, v))
        return fail(r, "memo %" PRIu64 " names a value already streamed into the profile "
                       "(one trace entry referenced twice)", idx);
    ml_pv settled = ml_pv_settle(r->st, v);
    if (settled != v) { /* (an EXT word always fits, or takes the side entry it frees) */
        v = settled;
        memo_set(r, idx, v);
    }
    if (shared(r, v) < 0) return -1;
    PUSH(v);
    return 0;
}

/* SETITEMS filling the empty dict at stack[mark - 1] with stack[mark..]: if
 * the dict waits in a list's APPENDS batch (a trace entry), offers its pairs
 * to the record hook from the stack.  1 if taken (the dict's place then holds
 * TAKEN, which APPENDS skips), 0 if not, -1 on the hook's error. */
static int take_record(reader *r, size_t mark)
{
    size_t n = r->stack.len - mark, batch = fence(r); /* the enclosing mark: the batch's */
    if (!r->record || n >= 2000 || batch == 0 || batch >= mark) return 0; /* (2000: more SETITEMS may follow) */
    ml_pv dict = r->stack.v[mark - 1], list = r->stack.v[batch - 1];
    if (!ml_pv_cont_as(r->st, list, ML_PV_LIST) || ml_pv_cont_as(r->st, dict, ML_PV_DICT)->len) return 0;
    int took = r->record(r->user, r->st, list, r->stack.v + mark, n / 2, r->e);
    if (took < 0) return ml_prefix(r->e, "%s: byte %" PRIu64, r->name, at(r));
    if (!took) return 0;
    memo_forget(r, dict); /* (its memo slot now reads as dropped) */
    ml_pv_drop(r->st, dict);
    r->stack.v[mark - 1] = TAKEN;
    r->stack.len = mark;
    return 1;
}

/* APPENDS filling the empty list at stack[mark - 1] with stack[mark..]: offers
 * a short list of EXT values to the list hook; 1 if it stood a number for it. */
static int convert_list(reader *r, size_t mark)
{
    size_t n = r->stack.len - mark;
    ml_pv list = r->stack.v[mark - 1];
    if (!r->list_hook || n >= 1000 || ml_pv_cont_as(r->st, list, ML_PV_LIST)->len) return 0;
    int64_t ext = r->list_hook(r->user, r->stack.v + mark, n);
    if (ext < 0 || ext > UINT32_MAX) return 0;
    /* A fresh list is named only by the stack and by the memo slot MEMOIZE gave
     * it, the last one (its items, all BINGETs, memoise nothing). */
    ml_pv w = ml_pv_make_ext((uint32_t)ext);
    if (r->pending && r->pending_at == at(r)) { /* the run noted at its "]": keep the number */
        r->pending->result = w;
        r->pending->memo_gen = r->memo_gen;
    }
    r->pending = NULL;
    ml_pv_drop(r->st, list);
    if (r->memo.len && memo_read(r, r->memo.len - 1) == list) memo_set(r, r->memo.len - 1, w);
    r->stack.v[mark - 1] = w;
    r->stack.len = mark;
    return 1;
}

/* Memo words BINGET pushes without a look: not containers, not sentinels. */
#define MEMO_SLOW ((1u << ML_PV_TAG_CONT) | (1u << ML_PV_TAG_DROPPED) | (1u << MEMO_UNSET) | (1u << SIDE_TAG))

/* Whether memo slot idx holds a word BINGET pushes without a look: *v. */
static inline bool memo_settled(const uint32_t *memo, size_t n_memo, size_t idx, ml_pv *v)
{
    return idx < n_memo && !(MEMO_SLOW >> ML_PV_TAG(*v = slot_word(memo[idx])) & 1);
}

/* The plain value one opcode at q pushes -- BINGET or LONG_BINGET of a
 * settled memo word, BININT1, BININT2, BININT, LONG1 of 1 to 8 bytes, NONE,
 * NEWTRUE, NEWFALSE -- into *v, and the position after it; NULL for any
 * other opcode (or a memo word that needs a look).  Reads at most 10 bytes,
 * which the caller has. */
static inline __attribute__((always_inline)) const unsigned char *simple_value(ml_pvs *st, const unsigned char *q, const unsigned char *end,
                                                const uint32_t *memo, size_t n_memo, ml_pv *v)
{
    switch (*q) {
    case 'h': return memo_settled(memo, n_memo, q[1], v) ? q + 2 : NULL;
    case 'j': return memo_settled(memo, n_memo, le32(q + 1), v) ? q + 5 : NULL;
    case 'K': *v = ml_pv_make_int(st, q[1]); return q + 2;
    case 'M': *v = ml_pv_make_int(st, (int64_t)le(q + 1, 2)); return q + 3;
    case 'J': *v = ml_pv_make_int(st, (int32_t)le32(q + 1)); return q + 5;
    case 0x8a: /* LONG1: addresses and times, 6 to 8 bytes */
        if (q[1] < 1 || q[1] > 8) return NULL;
        *v = ml_pv_make_int(st, le_signed(q + 2, q[1], end));
        return q + 2 + q[1];
    case 'N': *v = ML_PV_NONE_V; return q + 1;
    case 0x88: *v = ml_pv_bool(1); return q + 1;
    case 0x89: *v = ml_pv_bool(0); return q + 1;
    default: return NULL;
    }
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
    PUSH(c);
    return 0;
}

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The multipliers of run_hash() and guess_set()'s lanes. */
#define HASH_K1 0x9e3779b97f4a7c15ull
#define HASH_K2 0xc2b2ae3d27d4eb4full

/* A hash of n bytes at p (n > 0; the byte after them is readable, as the
 * APPENDS is): four independent multiply lanes over 8-byte words. */
static uint64_t run_hash(const unsigned char *p, size_t n)
{
    uint64_t a = n, b = HASH_K1, c = HASH_K2, d = ~(uint64_t)n;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a = (a ^ load64(p + i)) * HASH_K1;
        b = (b ^ load64(p + i + 8)) * HASH_K2;
        c = (c ^ load64(p + i + 16)) * HASH_K1;
        d = (d ^ load64(p + i + 24)) * HASH_K2;
    }
    for (; i + 8 <= n; i += 8) a = (a ^ load64(p + i)) * HASH_K2;
    if (i < n) { /* the last 1..7 bytes, as a whole word ending at the last byte (n >= 8) or padded */
        uint64_t t = 0;
        if (n >= 8) t = load64(p + n - 8);
        else memcpy(&t, p + i, n - i);
        b = (b ^ t) * HASH_K1;
    }
    uint64_t h = (a ^ (b >> 29)) * HASH_K1 + (c ^ (d >> 31)) * HASH_K2;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdull;
    return h ^ h >> 29;
}

#if defined(__SSE2__)
/* Bit i set where p[i] == c, for the 64 bytes at p. */
static inline uint64_t bytes_eq64(const unsigned char *p, __m128i c)
{
#define EQ16(k) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * (k))), c)))
    return EQ16(0) | EQ16(1) << 16 | EQ16(2) << 32 | EQ16(3) << 48;
#undef EQ16
}
#endif

/* Where the run of BINGETs ('h' and a byte) and LONG_BINGETs ('j' and 4)
 * from s ends: the first opcode that is neither, or lim.  64 bytes at a
 * time: a stretch of LONG_BINGETs is the 'j's at every fifth byte from where
 * it starts, found with one mask (EVERY5), a stretch of BINGETs the 'h's at
 * every second (EVERY2); only where one kind gives way to the other costs a
 * step. */
static const unsigned char *run_end(const unsigned char *s, const unsigned char *lim)
{
    const unsigned char *e = s;
#if defined(__SSE2__)
    const uint64_t EVERY5 = 0x1084210842108421ull, EVERY2 = 0x5555555555555555ull;
    const __m128i J = _mm_set1_epi8('j'), H = _mm_set1_epi8('h');
    while (lim - e >= 64) {
        uint64_t mj = bytes_eq64(e, J), mh = bytes_eq64(e, H), miss;
        unsigned pos = 0;
        for (;;) {
            /* LONG_BINGETs at pos, pos + 5, ... (those that start in these 64 bytes) */
            if (!(miss = ~(mj >> pos) & (EVERY5 & (~0ull >> pos)))) {
                pos += 5 * ((63 - pos) / 5 + 1);
                break;
            }
            pos += (unsigned)__builtin_ctzll(miss);
            /* then BINGETs at pos, pos + 2, ... */
            if (!(miss = ~(mh >> pos) & (EVERY2 & (~0ull >> pos)))) {
                pos += 2 * ((63 - pos) / 2 + 1);
                break;
            }
            if (!(miss & 1)) pos += (unsigned)__builtin_ctzll(miss);
            else return e + pos; /* neither: the end */
        }
        e += pos;
    }
#endif
    for (;;) {
        while (e < lim && *e == 'j') e += 5;
        if (e < lim && *e == 'h') e += 2;
        else break;
    }
    return e;
}

/* The set of guesses for a run that begins with the GUESS_BYTES at s. */
static inline uint16_t *guess_set(const reader *r, const unsigned char *s)
{
    uint64_t a = (load64(s) ^ load64(s + 32)) * HASH_K1, b = (load64(s + 8) ^ load64(s + 40)) * HASH_K2;
    uint64_t c = (load64(s + 16) ^ load64(s + 48)) * HASH_K2, d = (load64(s + 24) ^ load64(s + 56)) * HASH_K1;
    uint64_t h = a ^ (b >> 21) ^ (c >> 37) ^ (d >> 47);
    return r->guess + (size_t)((h ^ h >> 32) & (GUESS_SETS - 1)) * GUESS_WAYS;
}

/* Entry x of the cache (given or noted) first among the guesses of set. */
static inline void guess_note(reader *r, uint16_t *set, const run_entry *x)
{
    uint16_t id = (uint16_t)(x - r->runs + 1);
    if (set[0] == id) return;
    memmove(set + 1, set, (GUESS_WAYS - 1) * sizeof *set);
    set[0] = id;
}

/* p is at "] MEMOIZE (" and a memo reference: if the run of BINGETs and
 * LONG_BINGETs and its APPENDS lie in the buffer, the number cached for the
 * run (then *next is past the APPENDS), else 0, and (if note) the run is
 * noted for convert_list() to fill in. */
static ml_pv run_lookup(reader *r, const unsigned char *p, const unsigned char *end, const unsigned char **next, bool note)
{
    const unsigned char *s = p + 3, *e = s;
    size_t avail = (size_t)(end - s);
    if (!r->runs) {
        r->runs = ml_calloc(RUNS, sizeof *r->runs);
        r->guess = ml_calloc((size_t)GUESS_SETS * GUESS_WAYS, sizeof *r->guess);
    }
    uint16_t *set = NULL;
    if (avail > GUESS_BYTES) {
        set = guess_set(r, s);
        for (int way = 0; way < GUESS_WAYS && set[way]; way++) {
            const run_entry *x = &r->runs[set[way] - 1];
            if (x->result && x->len < avail && s[x->len] == 'e' && x->memo_gen == r->memo_gen &&
                memcmp(x->bytes, s, x->len) == 0) {
                *next = s + x->len + 1;
                return x->result;
            }
        }
    }
    /* (a run over 999 references is hashed too, but the hook is never offered
     * such a list, so it never gets a number) */
    const unsigned char *lim = avail > RUN_MAX + 5 ? s + RUN_MAX - 5 : end - 5;
    /* the run's end first (run_end), then its bytes hashed as a whole */
    e = run_end(s, lim);
    if (e == s || *e != 'e') return 0;
    size_t len = (size_t)(e - s);
    uint64_t h = run_hash(s, len);
    /* A run shorter than the bytes it is guessed by is keyed by what follows
     * it too (the next entry's address, say): it is not among the guesses,
     * where it would only push out the runs that are. */
    if (len < GUESS_BYTES) set = NULL;
    size_t i = h & (RUNS - 1);
    for (int way = 0; way < 2; way++) {
        run_entry *x = &r->runs[i ^ (size_t)way];
        if (x->result && x->hash == h && x->len == len && x->memo_gen == r->memo_gen && memcmp(x->bytes, s, len) == 0) {
            if (set) guess_note(r, set, x);
            *next = e + 1;
            return x->result;
        }
    }
    if (!note) return 0;
    /* not there: into an empty one of the pair, else either */
    run_entry *x = &r->runs[r->runs[i].result && !r->runs[i ^ 1].result ? i ^ 1 : i ^ ((h >> 40) & 1)];
    if (set) guess_note(r, set, x);
    if (x->cap < len) {
        x->bytes = ml_realloc(x->bytes, len);
        x->cap = (uint32_t)len;
    }
    memcpy(x->bytes, s, len);
    x->hash = h;
    x->len = (uint32_t)len;
    x->result = 0;
    r->pending = x;
    r->pending_at = r->base + (uint64_t)(e - r->buf);
    return 0;
}

/* A trace entry as PyTorch writes it, "} MEMOIZE ( key value ... u" in a
 * list's APPENDS batch, its keys and values all simple (memo words, ints,
 * None, bools, a frame list the run cache knows): read straight from the
 * bytes into kv and handed to the record hook, with no dict in the store, no
 * side entry for it and nothing to forget or drop when the hook takes it.
 * The memo ends as the opcodes would leave it (the dict's slot reads as
 * dropped, or holds the dict when the hook leaves it).  Anything else
 * returns p untouched, with no effect, and the opcodes run one by one; so do
 * the first entries, whose strings and frames are new.  Returns the
 * position past the SETITEMS, or NULL on the hook's error; *pushed is what
 * goes on the stack (TAKEN or the dict). */
#define REC_PAIRS 16
#define REC_MEMO 4                /* frame lists memoised inside one entry, at most */
static const unsigned char *fast_record(reader *r, const unsigned char *p, const unsigned char *end, ml_pv list,
                                        ml_pv *pushed)
{
    ml_pv kv[2 * REC_PAIRS], v;
    uint32_t inner[REC_MEMO];
    size_t n = 0, n_inner = 0, n_memo = r->memo.len;
    const uint32_t *memo = r->memo.v;
    const unsigned char *q = p + 3;
    /* Room for the most opcodes an entry may have here, LONG1 of 8 (10 bytes)
     * the longest: no opcode below needs a check of its own.  (A frame list
     * checks its own, and the room left is checked again after it.) */
#define REC_ROOM(n) ((size_t)(2 * REC_PAIRS + 1 - (n)) * 10 + 1)
    if (r->memo_count != n_memo || r->memo.cap - n_memo < 1 + REC_MEMO || (size_t)(end - q) < REC_ROOM(0)) return p;
    for (;;) {
        /* a key: a memo word (in every entry but the first few; two compares,
         * not simple_value's switch), or the end */
        const unsigned char *next;
        size_t idx;
        if (*q == 'h') idx = q[1], next = q + 2;
        else if (*q == 'j') idx = le32(q + 1), next = q + 5;
        else if (*q == 'u') break;
        else return p;
        if (n == 2 * REC_PAIRS || !memo_settled(memo, n_memo, idx, &v)) return p;
        kv[n++] = v;
        q = next;
        /* its value */
        if ((next = simple_value(r->st, q, end, memo, n_memo, &v)) != NULL) q = next;
        else if (*q == ']') { /* a frame list: "] MEMOIZE ( refs APPENDS", known to the run cache */
            if (!r->list_hook || n_inner == REC_MEMO || q[1] != 0x94 || q[2] != '(' || (q[3] != 'j' && q[3] != 'h'))
                return p;
            v = run_lookup(r, q, end, &next, false);
            if (!v || !fits32(v)) return p;
            inner[n_inner++] = (uint32_t)v;
            q = next;
            if ((size_t)(end - q) < REC_ROOM(n + 1)) return p;
        } else return p; /* (SETITEMS after a key: odd, which SETITEMS itself reports) */
        kv[n++] = v;
    }
    r->op = q;           /* errors name the SETITEMS, as when it runs */
    int took = r->record(r->user, r->st, list, kv, n / 2, r->e);
    if (took < 0) {
        ml_prefix(r->e, "%s: byte %" PRIu64, r->name, at(r));
        return NULL;
    }
    uint32_t *slot = r->memo.v + n_memo;
    if (took) {
        slot[0] = ML_PV_TAG_DROPPED; /* a later BINGET of the entry fails, as for any taken one */
        *pushed = TAKEN;
    } else {
        ml_pv c = ml_pv_new(r->st, ML_PV_DICT);
        ml_pv_append(r->st, c, kv, n);
        slot[0] = MEMO_UNSET;
        if (side_put(r, n_memo, c) < 0) {
            fail(r, "more than %u containers in the memo at once (hostile pickle?)", MAX_SIDE);
            return NULL;
        }
        *pushed = c;
    }
    for (size_t i = 0; i < n_inner; i++) slot[1 + i] = inner[i];
    r->memo.len += 1 + n_inner;
    r->memo_count += (uint32_t)(1 + n_inner);
    return q + 1;
}

/* The opcodes fast_run() takes, by what its switch does with them (0: not
 * one): LONG_BINGET (runs of them), BINGET and the BININTs (the commonest,
 * decoded in place: through simple_value() they cost a second dispatch each,
 * 8% of a gigabyte snapshot's wall), the rarer plain values (simple_value()),
 * EMPTY_DICT, EMPTY_LIST, MARK and MEMOIZE. */
enum { F_NONE, F_LONG_BINGET, F_BINGET, F_BININT1, F_BININT2, F_BININT, F_VALUE, F_EMPTY_DICT, F_EMPTY_LIST, F_MARK,
       F_MEMOIZE };
static const unsigned char fast_op[256] = {
    ['j'] = F_LONG_BINGET, ['h'] = F_BINGET, ['K'] = F_BININT1, ['M'] = F_BININT2, ['J'] = F_BININT,
    [0x8a] = F_VALUE, ['N'] = F_VALUE, [0x88] = F_VALUE, [0x89] = F_VALUE, ['}'] = F_EMPTY_DICT,
    [']'] = F_EMPTY_LIST, ['('] = F_MARK, [0x94] = F_MEMOIZE,
};

/* Takes a run of simple opcodes at p -- an entry's "} MEMOIZE ( key value
 * ..." and a frame list's "] MEMOIZE ( LONG_BINGET ...": most opcodes of a
 * snapshot -- with the stack and the memo in registers.  It stops before any
 * opcode that needs more (APPENDS, SETITEMS, a memo word to look at, an
 * error, the end of the buffer, a full stack or memo), which run()'s switch
 * then handles.  Returns the new read position, or NULL on the record
 * hook's error (fast_record()). */
static const unsigned char *fast_run(reader *r, const unsigned char *p, const unsigned char *end)
{
    uint32_t *memo = r->memo.v;
    ml_pv *base = r->stack.v, *sp = base + r->stack.len, v;
    size_t n_memo = r->memo.len;
    for (;;) {
        /* Each opcode here reads at most 10 bytes (LONG1 of 8) and pushes at
         * most one value: the next k need no other check. */
        size_t k = (size_t)(end - p) / 10, room = r->stack.cap - (size_t)(sp - base);
        if (room < k) k = room;
        if (!k) goto out;
        for (; k; k--) {
            switch (fast_op[*p]) {
            case F_LONG_BINGET: /* a frame list is ~50 of them in a row */
                for (;;) {
                    if (!memo_settled(memo, n_memo, le32(p + 1), &v)) goto out;
                    *sp++ = v;
                    p += 5;
                    if (k == 1 || *p != 'j') break;
                    k--;
                }
                break;
            case F_BINGET:
                if (!memo_settled(memo, n_memo, p[1], &v)) goto out;
                *sp++ = v;
                p += 2;
                break;
            case F_BININT1: *sp++ = ml_pv_make_int(r->st, p[1]); p += 2; break;
            case F_BININT2: *sp++ = ml_pv_make_int(r->st, (int64_t)le(p + 1, 2)); p += 3; break;
            case F_BININT: *sp++ = ml_pv_make_int(r->st, (int32_t)le32(p + 1)); p += 5; break;
            case F_VALUE: { /* the rarer ones: LONG1, NONE, NEWTRUE, NEWFALSE */
                const unsigned char *q = simple_value(r->st, p, end, memo, n_memo, &v);
                if (!q) goto out;
                *sp++ = v;
                p = q;
                break;
            }
            case F_EMPTY_DICT:
                if (r->record && p[1] == 0x94 && p[2] == '(' && r->marks.len) {
                    size_t batch = r->marks.v[r->marks.len - 1];
                    ml_pv list = batch ? base[batch - 1] : 0;
                    if (batch && ml_pv_cont_as(r->st, list, ML_PV_LIST)) {
                        r->stack.len = (size_t)(sp - base);
                        r->memo.len = n_memo;
                        const unsigned char *q = fast_record(r, p, end, list, sp);
                        if (!q) return NULL; /* the hook's error, in r->e */
                        if (q != p) {
                            sp++;
                            n_memo = r->memo.len;
                            p = q;
                            k = 1; /* many bytes taken: count the budget again */
                            break;
                        }
                    }
                }
                *sp++ = ml_pv_new(r->st, ML_PV_DICT);
                p++;
                break;
            case F_EMPTY_LIST:
                if (r->list_hook && p[1] == 0x94 && p[2] == '(' && (p[3] == 'j' || p[3] == 'h') && r->memo_count == n_memo &&
                    n_memo < r->memo.cap && r->marks.len < MAX_MARKS && (size_t)(sp - base) < MAX_STACK - 1000) {
                    const unsigned char *q;
                    ml_pv w = run_lookup(r, p, end, &q, true);
                    if (w && fits32(w)) { /* as the list's "] MEMOIZE ( ... APPENDS" leaves it: its number, memoised */
                        *sp++ = w;
                        memo[n_memo++] = (uint32_t)w;
                        r->memo_count++;
                        p = q;
                        k = 1; /* many bytes taken: count the budget again */
                        break;
                    }
                }
                *sp++ = ml_pv_new(r->st, ML_PV_LIST);
                p++;
                break;
            case F_MARK:
                if (r->marks.len == r->marks.cap || r->marks.len >= MAX_MARKS) goto out;
                r->marks.v[r->marks.len++] = (size_t)(sp - base);
                p++;
                break;
            case F_MEMOIZE: /* the next slot, at the end of the memo */
                if (r->memo_count != n_memo || n_memo == r->memo.cap || (size_t)(sp - base) <= fence(r)) goto out;
                if (fits32(sp[-1])) memo[n_memo] = (uint32_t)sp[-1];
                else if (side_put(r, n_memo, sp[-1]) < 0) goto out; /* a trace entry's dict, say */
                n_memo++;
                r->memo_count++;
                p++;
                break;
            default: goto out;
            }
        }
    }
out:
    r->stack.len = (size_t)(sp - base);
    r->memo.len = n_memo;
    return p;
}

static int run(reader *r, ml_pv *out)
{
    const unsigned char *p = r->buf, *end = r->buf + r->end;
    for (;;) {
        r->op = p;
        if (r->view && (size_t)(p - r->buf) - r->view_told >= VIEW_TELL) { /* the pager pages ahead, unmaps behind */
            r->view_told = (size_t)(p - r->buf);
            ml_mapview_advance(r->view, r->view_told);
        }
        NEED(1);
        if (r->stack.len == r->stack.cap && grow_stack(r) < 0) return -1;
        if (fast_op[*p]) {
            const unsigned char *q = fast_run(r, p, end);
            if (!q) return -1;
            if (q != p) { p = q; continue; }
        }
        unsigned op = *p++;
        size_t mark = 0, n;
        uint64_t len;
        int bytes = 0, k;
        ml_pv c = ML_PV_NONE_V, v;
        const char *name;
        switch (op) {
        case 0x80: /* PROTO */
            NEED(1);
            if (*p < 2 || *p > 5) return fail(r, "pickle protocol %u is not supported (memlens reads 2 to 5)", *p);
            p++;
            break;
        case 0x95: /* FRAME: a length hint only */
            NEED(8);
            p += 8;
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
            v = r->stack.v[r->stack.len - 1];
            if (shared(r, v) < 0) return -1;
            PUSH(v);
            break;
        case 'N': PUSH(ML_PV_NONE_V); break;
        case 0x88: PUSH(ml_pv_bool(1)); break;
        case 0x89: PUSH(ml_pv_bool(0)); break;
        case 'J': /* BININT */
            NEED(4);
            PUSH(ml_pv_make_int(r->st, (int32_t)le32(p)));
            p += 4;
            break;
        case 'K': /* BININT1 */
            NEED(1);
            PUSH(ml_pv_make_int(r->st, *p++));
            break;
        case 'M': /* BININT2 */
            NEED(2);
            PUSH(ml_pv_make_int(r->st, (int64_t)le(p, 2)));
            p += 2;
            break;
        case 0x8a: /* LONG1 */
        case 0x8b: /* LONG4 */
            if (op == 0x8a) { NEED(1); n = *p++; }
            else {
                NEED(4);
                int32_t l = (int32_t)le32(p);
                if (l < 0) return fail(r, "LONG4 with a negative length");
                p += 4;
                n = (size_t)l;
            }
            NEED(n);
            /* addresses and times: 6 to 8 bytes, decoded here rather than by the store */
            v = n >= 1 && n <= 8 ? ml_pv_make_int(r->st, le_signed(p, n, end)) : ml_pv_make_long(r->st, p, n);
            p += n;
            PUSH(v);
            break;
        case 'G': { /* BINFLOAT, big-endian */
            NEED(8);
            uint64_t u = 0;
            for (int i = 0; i < 8; i++) u = u << 8 | p[i];
            p += 8;
            double d;
            memcpy(&d, &u, 8);
            PUSH(ml_pv_make_float(r->st, d));
            break;
        }
        /* Text and bytes: a length of 1, 4 or 8 bytes, then the bytes. */
        case 0x8c: /* SHORT_BINUNICODE */
        case 'U':  /* SHORT_BINSTRING */
            NEED(1); len = *p++; goto text;
        case 'C':  /* SHORT_BINBYTES */
            NEED(1); len = *p++; bytes = 1; goto text;
        case 'X':  /* BINUNICODE */
            NEED(4); len = le32(p); p += 4; goto text;
        case 'B':  /* BINBYTES */
            NEED(4); len = le32(p); p += 4; bytes = 1; goto text;
        case 'T': { /* BINSTRING */
            NEED(4);
            int32_t l = (int32_t)le32(p);
            if (l < 0) return fail(r, "BINSTRING with a negative length");
            p += 4;
            len = (uint64_t)l;
            goto text;
        }
        case 0x8d: /* BINUNICODE8 */
            NEED(8); len = le(p, 8); p += 8; goto text;
        case 0x8e: case 0x96: /* BINBYTES8, BYTEARRAY8 */
            NEED(8); len = le(p, 8); p += 8; bytes = 1;
        text:
            if (len > MAX_STRING)
                return fail(r, "a %sstring of %" PRIu64 " bytes (more than 2 GiB; hostile pickle?)", bytes ? "byte " : "", len);
            NEED(len);
            PUSH(bytes ? ml_pv_make_bytes(r->st, p, len) : ml_pv_make_str(r->st, (const char *)p, len));
            p += len;
            break;
        case '}': PUSH(ml_pv_new(r->st, ML_PV_DICT)); break;
        case ']': PUSH(ml_pv_new(r->st, ML_PV_LIST)); break;
        case ')': PUSH(ml_pv_new(r->st, ML_PV_TUPLE)); break;
        case 0x8f: PUSH(ml_pv_new(r->st, ML_PV_SET)); break;
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
            PUSH(c);
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
            if (convert_list(r, mark)) break;
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
            if ((k = take_record(r, mark)) != 0) {
                if (k < 0) return -1;
                break;
            }
            ml_pv_append(r->st, c, r->stack.v + mark, r->stack.len - mark);
            r->stack.len = mark;
            break;
        case 0x90: /* ADDITEMS */
            if (pop_mark(r, "ADDITEMS", &mark) < 0 || target(r, mark, ML_PV_SET, "ADDITEMS", &c) < 0) return -1;
            ml_pv_append(r->st, c, r->stack.v + mark, r->stack.len - mark);
            r->stack.len = mark;
            break;
        case 0x94: /* MEMOIZE: the next slot, at the end of the memo (inline) */
            if (r->memo_count == r->memo.len && r->memo.len < r->memo.cap && r->stack.len > fence(r) &&
                fits32(r->stack.v[r->stack.len - 1])) {
                r->memo.v[r->memo.len++] = (uint32_t)r->stack.v[r->stack.len - 1];
                r->memo_count++;
                break;
            }
            if (memo_put(r, r->memo_count) < 0) return -1;
            break;
        case 'q': NEED(1); if (memo_put(r, *p++) < 0) return -1; break;   /* BINPUT */
        case 'r': NEED(4); n = le32(p); p += 4; if (memo_put(r, n) < 0) return -1; break;
        /* BINGET, LONG_BINGET: the commonest opcodes of a snapshot */
        case 'h': NEED(1); n = *p++; goto get;
        case 'j': NEED(4); n = le32(p); p += 4;
        get:
            if (!memo_settled(r->memo.v, r->memo.len, n, &v)) { /* errors, containers */
                if (memo_get(r, n) < 0) return -1;
                break;
            }
            PUSH(v);
            break;
        case 'P': case 'Q':
            return fail(r, "opcode 0x%02x %s refused: memlens does not resolve persistent ids", op,
                        op == 'P' ? "PERSID" : "BINPERSID");
        case 0x97: case 0x98:
            return fail(r, "opcode 0x%02x %s refused: out-of-band buffers are not in the file", op,
                        op == 0x97 ? "NEXT_BUFFER" : "READONLY_BUFFER");
        case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g':
            return fail(r, "opcode 0x%02x ('%c') belongs to text pickles (protocols 0 and 1), which memlens does "
                           "not read: save with pickle protocol 2 or later", op, op);
        default:
            if ((name = refused_name(op)) != NULL)
                return fail(r, "opcode 0x%02x %s refused: memlens never loads code named by a file", op, name);
            return fail(r, "unknown pickle opcode 0x%02x", op);
        }
    }
}

int ml_pickle_read(ml_source *src, ml_pvs *st, ml_append_hook hook, void *user, ml_pv *out, ml_err *e)
{
    ml_pickle_hooks h = {.append = hook, .user = user};
    return ml_pickle_read_hooks(src, st, &h, out, e);
}

int ml_pickle_read_hooks(ml_source *src, ml_pvs *st, const ml_pickle_hooks *h, ml_pv *out, ml_err *e)
{
    reader r = {.src = src, .name = ml_source_name(src), .st = st, .hook = h->record ? NULL : h->append,
                .record = h->record, .list_hook = h->list, .shared_hook = h->shared, .user = h->user, .e = e};
    if ((r.view = ml_source_mapview(src)) != NULL) {
        r.buf = ml_mapview_bytes(r.view);
        r.end = r.cap = ml_mapview_len(r.view);
        r.base = ml_source_offset(src);
    } else {
        r.cap = CHUNK;
        r.buf = r.own = ml_malloc(r.cap);
    }
    r.op = r.buf;
    int rc = run(&r, out);
    ml_mapview_close(r.view);
    free(r.own);
    VEC_FREE(&r.stack);
    VEC_FREE(&r.marks);
    VEC_FREE(&r.memo);
    VEC_FREE(&r.side);
    VEC_FREE(&r.side_free);
    VEC_FREE(&r.cont_side);
    if (r.runs)
        for (size_t i = 0; i < RUNS; i++) free(r.runs[i].bytes);
    free(r.runs);
    free(r.guess);
    return rc;
}

int ml_pickle_sniff(const unsigned char *head, size_t n)
{
    if (n >= 2 && head[0] == 0x80) return head[1] >= 2 && head[1] <= 5 ? 2 : 1;
    /* Protocols 0 and 1 have no PROTO: a dict or list and its memo store,
     * "(dp0\n" / "(lp0\n" or "}q\0" / "]q\0" (MARK, EMPTY_* then BINPUT). */
    if (n >= 3 && head[0] == '(' && (head[1] == 'd' || head[1] == 'l') && head[2] == 'p') return 1;
    if (n >= 2 && (head[0] == '}' || head[0] == ']') && (head[1] == 'q' || head[1] == 'r' || head[1] == '(')) return 1;
    return 0;
}
