/*
 * pyvalue.h — a compact store of plain Python-like values.
 *
 * The safe pickle reader (pickle.h) and the JSON value reader (jsonvalue.h)
 * both produce values here: None, bool, int, float, str, bytes, list, tuple,
 * dict, set.  A value is one 64-bit word (ml_pv): small things (None, bools,
 * ints up to 60 bits, interned strings) live in the word itself; containers
 * are an index into one table of containers, so a value shared through the
 * pickle memo (a frame list referenced by thousands of trace entries) is
 * stored once and referenced, never copied.
 *
 * Two operations keep huge inputs small:
 *   ml_pv_drop()     frees a container the caller has consumed (a trace entry
 *                    streamed into the profile); a later memo reference to it
 *                    is an error, never a dangling read;
 *   ml_pv_set_ext()  replaces a container by a caller-chosen 32-bit number (a
 *                    frame list by its stack id): the items are freed and later
 *                    references see the number.
 *
 * Strings are interned in an ml_strpool (the caller's, so an importer can
 * compare keys by id), and are always valid UTF-8 (readers replace invalid
 * sequences with U+FFFD).  Bytes are interned too (ml_strlen gives their
 * length; they may contain NULs).
 */
#ifndef ML_PYVALUE_H
#define ML_PYVALUE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "strpool.h"

typedef uint64_t ml_pv;

typedef enum {
    ML_PV_NONE,
    ML_PV_BOOL,
    ML_PV_INT,      /* fits int64 */
    ML_PV_BIGINT,   /* does not fit int64; raw little-endian two's complement bytes */
    ML_PV_FLOAT,
    ML_PV_STR,
    ML_PV_BYTES,
    ML_PV_LIST,
    ML_PV_TUPLE,
    ML_PV_DICT,
    ML_PV_SET,
    ML_PV_FROZENSET,
    ML_PV_EXT,      /* a container replaced by ml_pv_set_ext() */
    ML_PV_DROPPED   /* a container released by ml_pv_drop() */
} ml_pv_type;

typedef struct ml_pvs ml_pvs;

/* A store whose strings go into `strings` (borrowed; NULL = a private pool). */
ml_pvs *ml_pvs_new(ml_strpool *strings);
void ml_pvs_free(ml_pvs *st);
ml_strpool *ml_pvs_strings(const ml_pvs *st);
/* Containers currently held (for tests and memory accounting). */
size_t ml_pvs_live_containers(const ml_pvs *st);

/* ---- reading values --------------------------------------------------- */

ml_pv_type ml_pv_type_of(const ml_pvs *st, ml_pv v);
const char *ml_pv_type_name(ml_pv_type t);
/* int or bool -> *out; -1 for anything else (a bigint included). */
int ml_pv_int(const ml_pvs *st, ml_pv v, int64_t *out);
/* int, bool or float -> *out. */
int ml_pv_num(const ml_pvs *st, ml_pv v, double *out);
/* The sign of a bigint (1 or -1); 0 for anything else. */
int ml_pv_bigint_sign(const ml_pvs *st, ml_pv v);
/* str, bytes or bigint bytes -> interned id; -1 for anything else. */
int ml_pv_str(const ml_pvs *st, ml_pv v, ml_str *out);
/* The number of items of a list/tuple/set, of pairs of a dict; 0 otherwise. */
size_t ml_pv_len(const ml_pvs *st, ml_pv v);
/* Item i of a list/tuple/set; for a dict, key i.  No bounds slack: i < len. */
ml_pv ml_pv_item(const ml_pvs *st, ml_pv v, size_t i);
/* Value i of a dict (pair i). */
ml_pv ml_pv_dict_value(const ml_pvs *st, ml_pv v, size_t i);
/* Looks up a str key in a dict (the last one set wins, as in Python). */
int ml_pv_dict_get(const ml_pvs *st, ml_pv dict, ml_str key, ml_pv *out);
/* The caller's number of an EXT value; -1 if v is not one. */
int ml_pv_ext(const ml_pvs *st, ml_pv v, uint32_t *out);

/* ---- building values (readers) --------------------------------------- */

#define ML_PV_NONE_V ((ml_pv)ML_PV_NONE)
ml_pv ml_pv_bool(int b);
static inline ml_pv ml_pv_make_int(ml_pvs *st, int64_t i);   /* (inline, below) */
/* An integer of n little-endian two's complement bytes (pickle LONG1/LONG4). */
ml_pv ml_pv_make_long(ml_pvs *st, const unsigned char *b, size_t n);
ml_pv ml_pv_make_float(ml_pvs *st, double d);
/* Text: invalid UTF-8 is replaced by U+FFFD before interning. */
ml_pv ml_pv_make_str(ml_pvs *st, const char *s, size_t n);
ml_pv ml_pv_make_bytes(ml_pvs *st, const void *s, size_t n);
/* A new empty container of type t (LIST, TUPLE, DICT, SET, FROZENSET). */
ml_pv ml_pv_new(ml_pvs *st, ml_pv_type t);
/* Appends items (dict: key, value, key, value ...) to a container. */
void ml_pv_append(ml_pvs *st, ml_pv c, const ml_pv *items, size_t n);
/* Whether v is a container that can take items now (not EXT or dropped). */
int ml_pv_is_container(const ml_pvs *st, ml_pv v);
int ml_pv_is_dropped(const ml_pvs *st, ml_pv v);

/* ---- releasing -------------------------------------------------------- */

/* Frees container c's items and its slot (not the containers it refers to).
 * Every word that names c reads as dropped from now on (the slot's generation
 * number changes when it is reused; it wraps after 2^28 reuses of one slot). */
void ml_pv_drop(ml_pvs *st, ml_pv c);
/* Replaces container c by the number ext (its items are freed).  Words that
 * name c keep working; ml_pv_settle() gives the shorter word for it. */
void ml_pv_set_ext(ml_pvs *st, ml_pv c, uint32_t ext);
/* The self-contained word for v: an EXT container's number as an immediate
 * EXT word (reading it needs no container table); any other v as it is.  The
 * pickle reader settles its memo slots, so that a frame referenced a million
 * times is looked up in the table once. */
ml_pv ml_pv_settle(const ml_pvs *st, ml_pv v);

/* ---- fast paths ------------------------------------------------------- *
 * Readers and importers touch every value of a gigabyte input; these inline
 * views avoid a call per item.  The layout is pyvalue.c's: use the accessors. */

/* The type tag in the low 4 bits of a value word; the payload is above it. */
enum {
    ML_PV_TAG_NONE, ML_PV_TAG_BOOL, ML_PV_TAG_INT, ML_PV_TAG_WIDE, ML_PV_TAG_BIGINT, ML_PV_TAG_FLOAT,
    ML_PV_TAG_STR, ML_PV_TAG_BYTES, ML_PV_TAG_CONT, ML_PV_TAG_DROPPED, ML_PV_TAG_EXT
};
#define ML_PV_TAG(v) ((unsigned)((v) & 15))

typedef struct ml_pv_cont {
    ml_pv *items;           /* dict: key, value, key, value ... */
    uint32_t len, cap;      /* EXT: len = the caller's number */
    uint32_t gen_kind;      /* generation << 4 | ml_pv_type */
} ml_pv_cont;

struct ml_pvs_head { ml_pv_cont *v; size_t len, cap; }; /* the first member of ml_pvs */

/* The live container v names (any type, EXT included), or NULL. */
static inline const ml_pv_cont *ml_pv_cont_of(const ml_pvs *st, ml_pv v)
{
    if ((v & 15) != 8) return NULL;
    const struct ml_pvs_head *h = (const struct ml_pvs_head *)(const void *)st;
    uint64_t idx = (v >> 4) & 0xFFFFFFFFu;
    if (idx >= h->len) return NULL;
    const ml_pv_cont *c = &h->v[idx];
    if ((c->gen_kind >> 4) != (v >> 36) || (c->gen_kind & 15) == ML_PV_DROPPED) return NULL;
    return c;
}

/* The live container v names if it is one of type t (not EXT), or NULL: one
 * compare of the slot's generation and type. */
static inline const ml_pv_cont *ml_pv_cont_as(const ml_pvs *st, ml_pv v, ml_pv_type t)
{
    if ((v & 15) != 8) return NULL;
    const struct ml_pvs_head *h = (const struct ml_pvs_head *)(const void *)st;
    uint64_t idx = (v >> 4) & 0xFFFFFFFFu;
    if (idx >= h->len) return NULL;
    const ml_pv_cont *c = &h->v[idx];
    return c->gen_kind == ((uint32_t)(v >> 36) << 4 | (uint32_t)t) ? c : NULL;
}

/* The type of a live container (NONE for anything else). */
static inline ml_pv_type ml_pv_cont_type(const ml_pv_cont *c) { return c ? (ml_pv_type)(c->gen_kind & 15) : ML_PV_NONE; }

ml_pv ml_pv_make_wide(ml_pvs *st, int64_t i);   /* ml_pv_make_int's rare case */

static inline ml_pv ml_pv_make_int(ml_pvs *st, int64_t i)
{
    /* Ints of 60 bits live in the word itself. */
    if (i >= -((int64_t)1 << 59) && i < ((int64_t)1 << 59)) return ((uint64_t)i << 4) | ML_PV_TAG_INT;
    return ml_pv_make_wide(st, i);
}

/* An immediate EXT word for the caller's number (what ml_pv_settle() gives). */
static inline ml_pv ml_pv_make_ext(uint32_t ext) { return (ml_pv)ext << 4 | ML_PV_TAG_EXT; }

/* ml_pv_int(), ml_pv_str() and ml_pv_ext() with a default instead of -1. */
static inline int64_t ml_pv_int_or(const ml_pvs *st, ml_pv v, int64_t dflt)
{
    switch (ML_PV_TAG(v)) {
    case ML_PV_TAG_INT: return (int64_t)v >> 4;
    case ML_PV_TAG_BOOL: return (int64_t)(v >> 4);
    case ML_PV_TAG_WIDE: { int64_t i = dflt; ml_pv_int(st, v, &i); return i; }
    default: return dflt;
    }
}

static inline ml_str ml_pv_str_or(ml_pv v, ml_str dflt)
{
    unsigned t = ML_PV_TAG(v);
    return t == ML_PV_TAG_STR || t == ML_PV_TAG_BYTES || t == ML_PV_TAG_BIGINT ? (ml_str)(v >> 4) : dflt;
}

static inline int64_t ml_pv_ext_or(const ml_pvs *st, ml_pv v, int64_t dflt)
{
    if (ML_PV_TAG(v) == ML_PV_TAG_EXT) return (int64_t)(v >> 4);
    const ml_pv_cont *c = ml_pv_cont_of(st, v);
    return ml_pv_cont_type(c) == ML_PV_EXT ? (int64_t)c->len : dflt;
}

/* Writes a short Python-like text of v into buf (at most n bytes incl. NUL),
 * cut with "..." when longer; safe on cycles and shared structure. */
void ml_pv_repr(const ml_pvs *st, ml_pv v, char *buf, size_t n);
/* The same, with EXT values written by the caller who numbered them (a frame
 * list that became a stack id): ext_text writes the text for one number into
 * buf (cap bytes) and returns >= 0, or -1 for the plain "<ext>". */
typedef int (*ml_pv_ext_text)(void *user, uint32_t ext, char *buf, size_t cap);
void ml_pv_repr_ext(const ml_pvs *st, ml_pv v, ml_pv_ext_text ext_text, void *user, char *buf, size_t n);

#endif
