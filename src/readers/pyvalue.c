/*
 * pyvalue.c — the compact value store; see pyvalue.h.
 *
 * A value word keeps its type in the low 4 bits.  Containers are slots in one
 * table; a freed slot is reused, and its generation number (kept in the value
 * word too) makes every old reference to it read as "dropped" instead of as
 * the slot's new tenant.
 */
#include "pyvalue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "vec.h"

/* Under AddressSanitizer, free item arrays are poisoned: a stale read is caught
 * as it would be with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define ML_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ML_ASAN 1
#endif
#endif
#ifdef ML_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum {
    TAG_NONE = ML_PV_TAG_NONE, TAG_BOOL = ML_PV_TAG_BOOL, TAG_INT = ML_PV_TAG_INT, TAG_WIDE = ML_PV_TAG_WIDE,
    TAG_BIGINT = ML_PV_TAG_BIGINT, TAG_FLOAT = ML_PV_TAG_FLOAT, TAG_STR = ML_PV_TAG_STR,
    TAG_BYTES = ML_PV_TAG_BYTES, TAG_CONT = ML_PV_TAG_CONT, TAG_DROPPED = ML_PV_TAG_DROPPED,
    TAG_EXT = ML_PV_TAG_EXT         /* an EXT container's number, standing alone (ml_pv_settle) */
};
_Static_assert(TAG_CONT == 8, "pyvalue.h's ml_pv_cont_of() knows the container tag");
#define TAG(v) ML_PV_TAG(v)
#define PAYLOAD(v) ((v) >> 4)
#define MK(tag, payload) (((ml_pv)(payload) << 4) | (tag))
#define INT_MAX60 ((int64_t)1 << 59)
#define GEN_MASK 0x0FFFFFFFu

typedef ml_pv_cont cont;

/* Item arrays of up to 4096 items come in size classes (4, 8, ... 4096
 * items) from free lists carved out of 1 MiB slabs: a trace streams millions
 * of short-lived dicts and frame lists, and a malloc and a free for each cost
 * more than reading them.  Larger arrays use malloc. */
#define N_CLASSES 11
#define CLASS_MAX_ITEMS (4u << (N_CLASSES - 1))
#define SLAB_BYTES ((size_t)1 << 20)

struct ml_pvs {
    struct ml_pvs_head conts;   /* first: pyvalue.h's inline views read it */
    ml_strpool *strings;
    int own_strings;
    VEC(uint32_t) free_slots;
    VEC(int64_t) wide;
    VEC(double) floats;
    size_t live;
    ml_pv *free_items[N_CLASSES]; /* a free array's first item links to the next */
    VEC(void *) slabs;
    size_t slab_used;             /* bytes handed out of the last slab */
};

/* The size class for n items (n <= CLASS_MAX_ITEMS): 4 << class items. */
static unsigned size_class(size_t n) { return n <= 4 ? 0 : (unsigned)(62 - __builtin_clzll((unsigned long long)n - 1)); }

/* An array for at least n items; its capacity goes to *cap. */
static ml_pv *items_alloc(ml_pvs *st, size_t n, uint32_t *cap)
{
    if (n > CLASS_MAX_ITEMS) {
        size_t c = CLASS_MAX_ITEMS;
        while (c < n) c *= 2;
        if (c > UINT32_MAX) c = UINT32_MAX;
        *cap = (uint32_t)c;
        return ml_malloc(c * sizeof(ml_pv));
    }
    unsigned k = size_class(n);
    *cap = 4u << k;
    size_t bytes = (size_t)*cap * sizeof(ml_pv);
    ml_pv *a = st->free_items[k];
    if (a) {
        UNPOISON(a, bytes);
        memcpy(&st->free_items[k], a, sizeof(ml_pv *)); /* the link in a[0] */
        return a;
    }
    if (!st->slabs.len || st->slab_used + bytes > SLAB_BYTES) {
        VEC_PUSH(&st->slabs, ml_malloc(SLAB_BYTES));
        st->slab_used = 0;
    }
    a = (ml_pv *)((char *)st->slabs.v[st->slabs.len - 1] + st->slab_used);
    st->slab_used += bytes;
    return a;
}

static void items_free(ml_pvs *st, ml_pv *a, uint32_t cap)
{
    if (!a) return;
    if (cap > CLASS_MAX_ITEMS) { free(a); return; }
    unsigned k = size_class(cap);
    memcpy(a, &st->free_items[k], sizeof(ml_pv *));
    st->free_items[k] = a;
    POISON(a + 1, (cap - 1) * sizeof *a); /* the link in a[0] stays readable */
}

ml_pvs *ml_pvs_new(ml_strpool *strings)
{
    ml_pvs *st = ml_calloc(1, sizeof *st);
    st->own_strings = strings == NULL;
    st->strings = strings ? strings : ml_strpool_new();
    return st;
}

void ml_pvs_free(ml_pvs *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->conts.len; i++)
        if (st->conts.v[i].cap > CLASS_MAX_ITEMS) free(st->conts.v[i].items);
    for (size_t i = 0; i < st->slabs.len; i++) free(st->slabs.v[i]);
    VEC_FREE(&st->slabs);
    VEC_FREE(&st->conts);
    VEC_FREE(&st->free_slots);
    VEC_FREE(&st->wide);
    VEC_FREE(&st->floats);
    if (st->own_strings) ml_strpool_free(st->strings);
    free(st);
}

ml_strpool *ml_pvs_strings(const ml_pvs *st) { return st->strings; }
size_t ml_pvs_live_containers(const ml_pvs *st) { return st->live; }

/* The container a value names, or NULL if it is not a live container. */
static cont *get_cont(const ml_pvs *st, ml_pv v) { return (cont *)ml_pv_cont_of(st, v); }

ml_pv_type ml_pv_type_of(const ml_pvs *st, ml_pv v)
{
    switch (TAG(v)) {
    case TAG_NONE: return ML_PV_NONE;
    case TAG_BOOL: return ML_PV_BOOL;
    case TAG_INT: case TAG_WIDE: return ML_PV_INT;
    case TAG_BIGINT: return ML_PV_BIGINT;
    case TAG_FLOAT: return ML_PV_FLOAT;
    case TAG_STR: return ML_PV_STR;
    case TAG_BYTES: return ML_PV_BYTES;
    case TAG_EXT: return ML_PV_EXT;
    case TAG_CONT: {
        cont *c = get_cont(st, v);
        return c ? (ml_pv_type)(c->gen_kind & 15) : ML_PV_DROPPED;
    }
    default: return ML_PV_DROPPED;
    }
}

const char *ml_pv_type_name(ml_pv_type t)
{
    static const char *names[] = {"None", "bool", "int", "int", "float", "str", "bytes", "list",
                                  "tuple", "dict", "set", "frozenset", "ext", "dropped"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

int ml_pv_int(const ml_pvs *st, ml_pv v, int64_t *out)
{
    switch (TAG(v)) {
    case TAG_BOOL: *out = (int64_t)PAYLOAD(v); return 0;
    case TAG_INT: *out = (int64_t)v >> 4; return 0;
    case TAG_WIDE: *out = st->wide.v[PAYLOAD(v)]; return 0;
    default: return -1;
    }
}

int ml_pv_str(const ml_pvs *st, ml_pv v, ml_str *out)
{
    if (TAG(v) != TAG_STR && TAG(v) != TAG_BYTES && TAG(v) != TAG_BIGINT) return -1;
    *out = (ml_str)PAYLOAD(v);
    return 0;
}

int ml_pv_ext(const ml_pvs *st, ml_pv v, uint32_t *out)
{
    int64_t x = ml_pv_ext_or(st, v, -1);
    if (x < 0) return -1;
    *out = (uint32_t)x;
    return 0;
}

int ml_pv_num(const ml_pvs *st, ml_pv v, double *out)
{
    int64_t i = 0;
    if (TAG(v) == TAG_FLOAT) { *out = st->floats.v[PAYLOAD(v)]; return 0; }
    if (ml_pv_int(st, v, &i) == 0) { *out = (double)i; return 0; }
    return -1;
}

size_t ml_pv_len(const ml_pvs *st, ml_pv v)
{
    cont *c = get_cont(st, v);
    if (!c || (c->gen_kind & 15) == ML_PV_EXT) return 0;
    return (c->gen_kind & 15) == ML_PV_DICT ? c->len / 2 : c->len;
}

ml_pv ml_pv_item(const ml_pvs *st, ml_pv v, size_t i)
{
    cont *c = get_cont(st, v);
    if (!c || (c->gen_kind & 15) == ML_PV_EXT) return ML_PV_NONE_V;
    if ((c->gen_kind & 15) == ML_PV_DICT) i *= 2;
    return i < c->len ? c->items[i] : ML_PV_NONE_V;
}

ml_pv ml_pv_dict_value(const ml_pvs *st, ml_pv v, size_t i)
{
    cont *c = get_cont(st, v);
    if (!c || (c->gen_kind & 15) != ML_PV_DICT || 2 * i + 1 >= c->len) return ML_PV_NONE_V;
    return c->items[2 * i + 1];
}

int ml_pv_dict_get(const ml_pvs *st, ml_pv dict, ml_str key, ml_pv *out)
{
    cont *c = get_cont(st, dict);
    if (!c || (c->gen_kind & 15) != ML_PV_DICT) return -1;
    ml_pv k = MK(TAG_STR, key);
    for (size_t i = c->len; i >= 2; i -= 2)
        if (c->items[i - 2] == k) { *out = c->items[i - 1]; return 0; }
    return -1;
}

ml_pv ml_pv_settle(const ml_pvs *st, ml_pv v)
{
    cont *c = get_cont(st, v);
    return c && (c->gen_kind & 15) == ML_PV_EXT ? MK(TAG_EXT, c->len) : v;
}

/* ---- building --------------------------------------------------------- */

ml_pv ml_pv_bool(int b) { return MK(TAG_BOOL, b ? 1 : 0); }

ml_pv ml_pv_make_wide(ml_pvs *st, int64_t i)
{
    if (i >= -INT_MAX60 && i < INT_MAX60) return ((uint64_t)i << 4) | TAG_INT;
    VEC_PUSH(&st->wide, i);
    return MK(TAG_WIDE, st->wide.len - 1);
}

ml_pv ml_pv_make_long(ml_pvs *st, const unsigned char *b, size_t n)
{
    if (n == 0) return ml_pv_make_int(st, 0);
    /* Strip redundant sign-extension bytes, then see whether 8 bytes hold it. */
    unsigned char ext = (b[n - 1] & 0x80) ? 0xff : 0x00;
    size_t m = n;
    while (m > 1 && b[m - 1] == ext && ((b[m - 2] ^ ext) & 0x80) == 0) m--;
    if (m <= 8) {
        uint64_t u = ext ? ~(uint64_t)0 : 0;
        for (size_t i = 0; i < m; i++) {
            u &= ~((uint64_t)0xff << (8 * i));
            u |= (uint64_t)b[i] << (8 * i);
        }
        return ml_pv_make_int(st, (int64_t)u);
    }
    return MK(TAG_BIGINT, ml_intern_bytes(st->strings, (const char *)b, m));
}

ml_pv ml_pv_make_float(ml_pvs *st, double d)
{
    VEC_PUSH(&st->floats, d);
    return MK(TAG_FLOAT, st->floats.len - 1);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not valid
 * (overlong forms, surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80) return 0;
        if (c == 0xe0 && s[1] < 0xa0) return 0;
        if (c == 0xed && s[1] >= 0xa0) return 0;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80) return 0;
        if (c == 0xf0 && s[1] < 0x90) return 0;
        if (c == 0xf4 && s[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

ml_pv ml_pv_make_str(ml_pvs *st, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (u[i] < 0x80) { i++; continue; }
        size_t k = utf8_seq(u + i, n - i);
        if (!k) break;
        i += k;
    }
    if (i == n) return MK(TAG_STR, ml_intern(st->strings, s, n));
    /* Invalid UTF-8 (Python would refuse to load it): keep the text, each bad byte -> U+FFFD. */
    char *fixed = ml_malloc(n * 3 + 1);
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t k = utf8_seq(u + i, n - i);
        if (k) { memcpy(fixed + o, s + i, k); o += k; i += k; }
        else { memcpy(fixed + o, "\xef\xbf\xbd", 3); o += 3; i++; }
    }
    ml_pv v = MK(TAG_STR, ml_intern(st->strings, fixed, o));
    free(fixed);
    return v;
}

ml_pv ml_pv_make_bytes(ml_pvs *st, const void *s, size_t n)
{
    return MK(TAG_BYTES, ml_intern_bytes(st->strings, s, n));
}

ml_pv ml_pv_new(ml_pvs *st, ml_pv_type t)
{
    uint32_t idx;
    if (st->free_slots.len) {
        idx = st->free_slots.v[--st->free_slots.len];
    } else {
        VEC_PUSH(&st->conts, ((cont){0}));
        idx = (uint32_t)(st->conts.len - 1);
    }
    cont *c = &st->conts.v[idx];
    uint32_t gen = ((c->gen_kind >> 4) + 1) & GEN_MASK;
    c->items = NULL;
    c->len = c->cap = 0;
    c->gen_kind = gen << 4 | (uint32_t)t;
    st->live++;
    return ((ml_pv)gen << 36) | ((ml_pv)idx << 4) | TAG_CONT;
}

int ml_pv_is_container(const ml_pvs *st, ml_pv v)
{
    cont *c = get_cont(st, v);
    return c && (c->gen_kind & 15) != ML_PV_EXT;
}

int ml_pv_is_dropped(const ml_pvs *st, ml_pv v)
{
    return TAG(v) == TAG_DROPPED || (TAG(v) == TAG_CONT && !get_cont(st, v));
}

void ml_pv_append(ml_pvs *st, ml_pv v, const ml_pv *items, size_t n)
{
    cont *c = get_cont(st, v);
    if (!c || (c->gen_kind & 15) == ML_PV_EXT || n == 0) return;
    size_t need = (size_t)c->len + n;
    if (need > UINT32_MAX) ml_fatal("out of memory (a container of more than 4G items)");
    if (need > c->cap) {
        if (c->cap > CLASS_MAX_ITEMS) { /* large: grow in place */
            size_t cap = c->cap;
            while (cap < need) cap *= 2;
            if (cap > UINT32_MAX) cap = UINT32_MAX;
            c->items = ml_realloc(c->items, cap * sizeof *c->items);
            c->cap = (uint32_t)cap;
        } else {
            uint32_t cap;
            ml_pv *a = items_alloc(st, need, &cap);
            if (c->len) memcpy(a, c->items, c->len * sizeof *a);
            items_free(st, c->items, c->cap);
            c->items = a;
            c->cap = cap;
        }
    }
    memcpy(c->items + c->len, items, n * sizeof *items);
    c->len = (uint32_t)need;
}

void ml_pv_drop(ml_pvs *st, ml_pv v)
{
    cont *c = get_cont(st, v);
    if (!c) return;
    items_free(st, c->items, c->cap);
    c->items = NULL;
    c->len = c->cap = 0;
    c->gen_kind = (c->gen_kind & ~15u) | ML_PV_DROPPED;
    VEC_PUSH(&st->free_slots, (uint32_t)((v >> 4) & 0xFFFFFFFFu));
    st->live--;
}

void ml_pv_set_ext(ml_pvs *st, ml_pv v, uint32_t ext)
{
    cont *c = get_cont(st, v);
    if (!c) return;
    items_free(st, c->items, c->cap);
    c->items = NULL;
    c->cap = 0;
    c->len = ext;
    c->gen_kind = (c->gen_kind & ~15u) | ML_PV_EXT;
}

/* ---- repr ------------------------------------------------------------- */

typedef struct out {
    char *buf;
    size_t n, len;
    int cut;
    ml_pv_ext_text ext_text;    /* how EXT values read, or NULL */
    void *user;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->cut) return;
    if (o->len + n + 4 >= o->n) { /* room for "..." */
        size_t room = o->n > o->len + 4 ? o->n - o->len - 4 : 0;
        if (room > n) room = n;
        memcpy(o->buf + o->len, s, room);
        o->len += room;
        memcpy(o->buf + o->len, "...", 3);
        o->len += 3;
        o->cut = 1;
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

/* A float as Python's repr() writes it: the shortest text that reads back
 * as the same double, with ".0" when it would look like an int. */
static void float_text(double d, char *buf, size_t cap)
{
    if (isnan(d) || isinf(d)) { snprintf(buf, cap, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf"); return; }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    if (!strpbrk(buf, ".en")) strncat(buf, ".0", cap - strlen(buf) - 1);
}

/* A big int's decimal text (as Python's repr), for up to 64 bytes of two's
 * complement; longer ones (whose digits would say nothing more) by their size. */
static void bigint_text(const unsigned char *b, size_t n, char *buf, size_t cap)
{
    if (n > 64) {
        snprintf(buf, cap, "<int of %zu bytes>", n);
        return;
    }
    unsigned char mag[64];
    bool neg = n && (b[n - 1] & 0x80);
    unsigned carry = 1;
    for (size_t i = 0; i < n; i++) { /* magnitude: negate when negative */
        unsigned x = neg ? (unsigned)(uint8_t)~b[i] + carry : b[i];
        mag[i] = (unsigned char)x;
        carry = x >> 8;
    }
    char digits[170];
    size_t nd = 0, len = n;
    while (len && !mag[len - 1]) len--;
    while (len) { /* divide by 10, most significant byte first */
        unsigned rem = 0;
        for (size_t i = len; i-- > 0;) {
            unsigned cur = rem << 8 | mag[i];
            mag[i] = (unsigned char)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
        while (len && !mag[len - 1]) len--;
    }
    size_t w = 0;
    if (neg && w + 1 < cap) buf[w++] = '-';
    if (!nd && w + 1 < cap) buf[w++] = '0';
    while (nd && w + 1 < cap) buf[w++] = digits[--nd];
    buf[w] = 0;
}

int ml_pv_bigint_sign(const ml_pvs *st, ml_pv v)
{
    if (TAG(v) != TAG_BIGINT) return 0;
    ml_str s = (ml_str)PAYLOAD(v);
    size_t n = ml_strlen(st->strings, s);
    return n && (ml_strget(st->strings, s)[n - 1] & 0x80) ? -1 : 1;
}

static void repr(const ml_pvs *st, ml_pv v, out *o, int depth)
{
    char tmp[64];
    if (o->cut) return;
    ml_pv_type t = ml_pv_type_of(st, v);
    int64_t i = 0;
    double d = 0;
    ml_str s = 0;
    uint32_t ext = 0;
    switch (t) {
    case ML_PV_NONE: puts_(o, "None"); return;
    case ML_PV_BOOL: puts_(o, PAYLOAD(v) ? "True" : "False"); return;
    case ML_PV_INT: ml_pv_int(st, v, &i); snprintf(tmp, sizeof tmp, "%lld", (long long)i); puts_(o, tmp); return;
    case ML_PV_BIGINT: {
        char big[200];
        ml_pv_str(st, v, &s);
        bigint_text((const unsigned char *)ml_strget(st->strings, s), ml_strlen(st->strings, s), big, sizeof big);
        puts_(o, big);
        return;
    }
    case ML_PV_FLOAT: ml_pv_num(st, v, &d); float_text(d, tmp, sizeof tmp); puts_(o, tmp); return;
    case ML_PV_STR:
    case ML_PV_BYTES:
        ml_pv_str(st, v, &s);
        puts_(o, t == ML_PV_BYTES ? "b'" : "'");
        put(o, ml_strget(st->strings, s), ml_strlen(st->strings, s));
        puts_(o, "'");
        return;
    case ML_PV_EXT: {
        char text[1024];
        ml_pv_ext(st, v, &ext);
        if (o->ext_text && o->ext_text(o->user, ext, text, sizeof text) >= 0) puts_(o, text);
        else puts_(o, "<ext>");
        return;
    }
    case ML_PV_DROPPED: puts_(o, "<dropped>"); return;
    default: break;
    }
    size_t n = ml_pv_len(st, v);
    if (n == 0 && (t == ML_PV_SET || t == ML_PV_FROZENSET)) { puts_(o, t == ML_PV_SET ? "set()" : "frozenset()"); return; }
    const char *open = t == ML_PV_LIST ? "[" : t == ML_PV_TUPLE ? "(" : t == ML_PV_FROZENSET ? "frozenset({" : "{";
    const char *close = t == ML_PV_LIST ? "]" : t == ML_PV_TUPLE ? ")" : t == ML_PV_FROZENSET ? "})" : "}";
    if (depth > 8) { puts_(o, open); puts_(o, "..."); puts_(o, close); return; }
    puts_(o, open);
    for (size_t k = 0; k < n && !o->cut; k++) {
        if (k) puts_(o, ", ");
        repr(st, ml_pv_item(st, v, k), o, depth + 1);
        if (t == ML_PV_DICT) { puts_(o, ": "); repr(st, ml_pv_dict_value(st, v, k), o, depth + 1); }
    }
    if (t == ML_PV_TUPLE && n == 1) puts_(o, ","); /* (1,) */
    puts_(o, close);
}

void ml_pv_repr_ext(const ml_pvs *st, ml_pv v, ml_pv_ext_text ext_text, void *user, char *buf, size_t n)
{
    if (n == 0) return;
    if (n < 8) { buf[0] = 0; return; }
    out o = {buf, n, 0, 0, ext_text, user};
    repr(st, v, &o, 0);
    o.buf[o.len < n ? o.len : n - 1] = 0;
}

void ml_pv_repr(const ml_pvs *st, ml_pv v, char *buf, size_t n) { ml_pv_repr_ext(st, v, NULL, NULL, buf, n); }
