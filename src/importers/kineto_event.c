/*
 * kineto_event.c — reads one event of a Kineto trace's event list into an
 * event_fields (kineto_int.h), the args the time side wants into k->ta, and
 * hands it to kt_event_done() (kineto.c), which fills the profile.
 *
 * Three ways to one result, tried in this order for each event:
 *   shape_event  an event written like one seen before (the same keys,
 *                blanks, ph and cat): only its varying values are read,
 *                at the places its shape says;
 *   fast_event   any event written plainly, read straight from the
 *                scanner's buffer (jsonplain.h), its shape learned;
 *   read_event   the token path (jsonscan.h), which reads everything
 *                (escapes, odd forms, values split across refills) and
 *                reports what is wrong.
 * The fast paths give up (0) on anything they do not read exactly as the
 * token path would.  What decides their agreement is shared: event_key()
 * names the fields of an event, args_route() decides how its args are read,
 * kineto_args.h's table says what each arg is for every path, and
 * plain_slot() decodes every plain value for both fast paths.
 */
#include "kineto_int.h"
#include "decimal.h"
#include "jsonplain.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fields of an event, for every path ----
 * Each path finds a value its own way (tokens, or plain bytes); what the
 * value is, and where it goes, is decided here once. */

/* A pid/tid text into its field (cut at ID_MAX bytes). */
static inline void set_id(char *buf, size_t *len, const char *s, size_t n)
{
    if (n > ID_MAX) n = ID_MAX;
    memcpy(buf, s, n);
    *len = n;
}

/* The event's name, copied out of the scanner's buffer. */
static inline void set_name(kineto *k, event_fields *f, const char *s, size_t n)
{
    if (n + 1 > k->name_cap) {
        k->name_cap = n + 64;
        k->name = ml_realloc(k->name, k->name_cap);
    }
    memcpy(k->name, s, n);
    k->name[n] = 0;
    k->name_len = n;
    f->has_name = true;
    k->shapes_unread = !ml_keep_op_shapes(&k->keep, k->name);
}

/* A pid/tid (number or string) as text. */
static int read_id(kineto *k, char *buf, size_t *len)
{
    const char *s;
    size_t n;
    int r = js_value_scalar_text(k->js, &s, &n);
    if (r > 0) set_id(buf, len, s, n);
    return r;
}

/* ---- the time side's args ---- */

static const trace_args TA_NONE = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, {-1, -1, -1}, {-1, -1, -1}, -1.0f, -1.0f, 0.0f, 0, 0, 0, 0,
    {0, 0, -1, -1, -1}, -1, -1};

/* ta back to TA_NONE for the next event, if an arg was written into it (most
 * memory events, and those whose args are all skipped, write none). */
static inline void ta_reset(kineto *k)
{
    if (k->ta_dirty) k->ta = TA_NONE, k->ta_dirty = false;
}

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
static int read_compact(kineto *k, ml_str *out)
{
    js_scanner *js = k->js;
    size_t avail, len;
    const char *raw = js_peek_value(js, &avail);
    if (raw && (len = jp_compact_span(raw, avail)) > 0) {
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
        while (i < avail && js_numch[(unsigned char)p[i]]) i++;
        if (i < avail) {
            js_consume_value(k->js, i);
            return 0;
        }
    }
    return js_skip(k->js);
}

/* grid / block: [x, y, z] */
static int read_dim3(kineto *k, int32_t *out)
{
    js_scanner *js = k->js;
    size_t avail, len;
    const char *p = js_peek_value(js, &avail);
    if (p && (len = jp_dim3(p, 0, avail, out)) > 0) {
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

/* The field of trace_args a row names, about to be written (so ta_dirty). */
static inline char *ta_field(kineto *k, const ka_key *row) { return k->ta_dirty = true, (char *)&k->ta + row->off; }

/* The row of a key as an arg of an event's own args object (KA_SYNC rows
 * belong to cuda_sync events' only: read_own_args), or NULL. */
static inline const ka_key *arg_row(const kineto *k, const char *key, size_t n)
{
    const ka_key *row = ka_find(&k->keys, key, n);
    return row && row->where != KA_SYNC ? row : NULL;
}

/* Whether the arg of a row is left unread, ph known: shapes the command
 * does not read (shapes_unread), and an op's order args ("Sequence number",
 * "Fwd thread id"), which it reads only where it stores them (keep.h). */
static inline bool arg_unread(const kineto *k, const ka_key *row)
{
    if (row->kind == KA_COMPACT) return k->shapes_unread;
    return k->keep.no_op_order && ka_is_op_order(row->off);
}

/* One arg of a non-memory event (the key just read; row: its row, NULL if
 * none, never a memory arg's). */
static int read_trace_arg(kineto *k, const event_fields *f, const char *key, size_t n, const ka_key *row)
{
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
    int kind = row ? row->kind : KA_SKIP;
    /* args not read: skipped, once ph is known (before, a number may be a counter's) */
    if (row && f->ph && arg_unread(k, row)) kind = KA_SKIP;
    switch (kind) {
    case KA_DIM3: return read_dim3(k, (int32_t *)(void *)ta_field(k, row));
    case KA_COMPACT: return read_compact(k, (ml_str *)(void *)ta_field(k, row));
    case KA_FLOAT: return read_float(k, (float *)(void *)ta_field(k, row));
    case KA_NAME:
        if (f->ph != 'M' && f->ph) break; /* (then skipped: ph is known, and no counter) */
        /* fall through */
    case KA_STRING:
        r = js_value_string(k->js, &s, &m);
        if (r > 0) *(ml_str *)(void *)ta_field(k, row) = ml_intern(k->p->strings, s, m);
        return r;
    case KA_INT: dst = (int64_t *)(void *)ta_field(k, row); break;
    case KA_GROUP: dst = &group; break;
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
    if (dst == &group && r > 0 && group >= 0 && group <= INT32_MAX) k->ta.comm.group_size = (int32_t)group, k->ta_dirty = true;
    return r;
}

/* ---- the args of a non-memory event, straight from the buffer ----
 * Kineto writes them plainly; fast_trace_args() reads such an object as
 * read_args() would (same keys, same values, in the same order, so strings
 * are interned in the same order), and gives up on anything else (an escape,
 * a value of an unusual form, a memory event's keys, an object not wholly
 * buffered): the token path then reads it all again, to the same effect. */

/* ---- event shapes ----
 * The events of one kind are written alike: the same keys in the same
 * order, the same blanks, the same ph and cat; only the other values vary.
 * fast_event() records such a shape of the events it reads: the text
 * between the values that vary (literals), and what each of those values is
 * (slots).  An event that matches a shape, literal for literal, has its
 * values read straight into their fields (shape_event): no key is looked
 * at.  A literal covers the constant values (ph, cat, bp), whose fields the
 * shape keeps; a name slot requires the name to be of the kind it was in the
 * event the shape was learned from (what is read of the args depends on it):
 * a memory event's, an op's whose shapes are not read (shapes_unread), or
 * another. */
enum {
    SH_TS, SH_DUR, SH_PID, SH_TID,
    SH_NAME,                       /* any name (fast_event, which learns its kind): */
    SH_NAME_MEMORY, SH_NAME_OTHER, SH_NAME_NO_SHAPES, /* a name of this kind (name_slot) */
    SH_ID, SH_SKIP,
    SH_RUN, /* two or more args in a row that are not read, or are read but are no ids (run_kind):
             * read as one (read_run): shape.run[at], which holds the literals between them (their
             * keys) */
    SH_ARG /* + a KA_* kind (kineto_args.h): an arg; of the time side at shape.at in k->ta */
};
/* The kind of name slot the current event's name (just read) fills. */
static inline int name_slot(const kineto *k)
{
    return is_memory_name(k) ? SH_NAME_MEMORY : k->shapes_unread ? SH_NAME_NO_SHAPES : SH_NAME_OTHER;
}

#define SHAPE_SLOTS 32
#define SHAPE_TEXT 1024
#define SHAPE_RUNS 4
enum { RUN_WORDS = 16 };                 /* 4-byte words of trace_args that the args of a run write */
enum { NO_MEMO = 0xFF };                 /* shape.memo_run when no run has a memo */

/* A run of args not read, or shapes: its values, and the literals between them. */
typedef struct shape_run {
    unsigned n;                       /* values (2 or more) */
    uint16_t key_from;                /* where literal 0 begins in keys (after the runs before) */
    uint16_t key_end[SHAPE_SLOTS];    /* literal j (after value j) ends at keys[key_end[j]], and begins
                                       * where j - 1 ended (at key_from for j = 0) */
    uint8_t kind[SHAPE_SLOTS];        /* each value's: KA_SKIP, or a kind run_kind() lets in */
    uint16_t at[SHAPE_SLOTS];         /* the field's offset in trace_args (not for KA_SKIP) */
} shape_run;

/* What the memo of a shape's memo run (shape.memo_run) remembers of its
 * text (read_run): the bytes from a value that is no number not read up to
 * where the last such ends (or up to the value after the literal that
 * follows it), seen before, and what those values wrote into trace_args, as
 * words (shapes as interned then). */
typedef struct run_seen {
    uint16_t len;                     /* 0: unused */
    uint8_t first, next;              /* the values from `first` (where the text begins) to `next`
                                       * (where it ends: the run's end, or that value's start); 0:
                                       * the text ends in a key that is not the run's (it fails there) */
    uint8_t nwords;
    uint8_t word_at[RUN_WORDS];       /* the words written: their index in trace_args (as uint32_t[]) */
    uint32_t word[RUN_WORDS];         /* and what was written there */
} run_seen;

/* The memos of the memo runs of every shape: sets of a few texts, chosen by
 * the shape, the event's name and the first bytes of the text (a realistic
 * trace's cpu_ops have some 20 runs, of 90 to 320 bytes; its kernels a few
 * hundred launch configurations, which come back step after step). */
enum { RUN_SETS = 64, RUN_WAYS = 8, RUN_TEXT = 368 };
enum { RUN_HINTS = 64 };                 /* a shape's memo hints: by a hash of the event's name */
typedef struct run_memo {
    uint32_t serial;                  /* the shape's (shape.serial) */
    uint32_t used;                    /* when last used (0: never; the least recently used way is replaced) */
    run_seen seen;
    char text[RUN_TEXT + 16];         /* (16 bytes that 16-byte compares may read) */
} run_memo;
struct kt_runs {
    uint32_t clock;
    run_memo set[RUN_SETS][RUN_WAYS];
};

typedef struct shape {
    uint8_t id;                       /* its index in every shape's `common` */
    uint8_t common[SHAPES + 1];       /* with each other shape (by id): how many of the units that begin
                                       * both are the same (literal 0, slot 0, literal 1, slot 1, ...;
                                       * 0 if their constant fields differ) — shape_resumes() */
    unsigned nslots;
    bool ok;                          /* while recording: the event fits a shape */
    size_t from;                      /* while recording: where the current literal began in the event */
    uint16_t lit_end[SHAPE_SLOTS + 1]; /* literal s ends at text[lit_end[s]] (and begins where s - 1 ended);
                                       * literal nslots ends the event */
    uint8_t slot[SHAPE_SLOTS];
    uint16_t at[SHAPE_SLOTS];         /* SH_ARG slots of the time side: the field's offset in trace_args;
                                       * SH_RUN: its run */
    uint32_t undoable;                /* the SH_RUN slots whose writes slot_undo() takes back (shape_undoable) */
    event_fields proto;               /* the constant fields */
    char text[SHAPE_TEXT + 16];       /* (16 bytes that 16-byte compares may read) */
    unsigned nruns;
    shape_run run[SHAPE_RUNS];
    char keys[SHAPE_TEXT + 16];       /* the runs' literals */
    uint32_t skip_numbers;            /* while recording: the SH_ARG + KA_SKIP slots whose value was a number */
    uint8_t memo_run;                 /* the run with a memo in k->runs (memo_run_at), or NO_MEMO */
    uint32_t serial;                  /* which shape learned it is (its struct is used again for others) */
    uint16_t memo_hint[RUN_HINTS];    /* the way of k->runs (set * RUN_WAYS + way) an event of each name
                                       * (by name_mix) used last: a way found by a look, not a search */
} shape;

/* Whether the value at p[i] is a number (it begins like one). */
static inline bool number_at(const char *p, size_t i) { return (p[i] >= '0' && p[i] <= '9') || p[i] == '-'; }

/* While recording: the literal up to p[at], then a slot that ends at p[end]
 * (its field at offset `off` of trace_args, for SH_ARG slots). */
static void shape_slot_at(shape *sh, const char *p, size_t at, size_t end, int kind, size_t off)
{
    if (!sh || !sh->ok) return;
    size_t have = sh->nslots ? sh->lit_end[sh->nslots - 1] : 0, len = at - sh->from;
    if (sh->nslots == SHAPE_SLOTS || have + len > SHAPE_TEXT) {
        sh->ok = false;
        return;
    }
    memcpy(sh->text + have, p + sh->from, len);
    if (kind == SH_ARG + KA_SKIP && number_at(p, at)) sh->skip_numbers |= 1u << sh->nslots;
    sh->lit_end[sh->nslots] = (uint16_t)(have + len);
    sh->at[sh->nslots] = (uint16_t)off;
    sh->slot[sh->nslots++] = (uint8_t)kind;
    sh->from = end;
}

static void shape_slot(shape *sh, const char *p, size_t at, size_t end, int kind)
{
    shape_slot_at(sh, p, at, end, kind, 0);
}

/* The kind of arg slot `slot` (field at offset off) as a value of a run, or
 * -1 if it is none: an arg not read or a shape, and where `read`, a number
 * or [x, y, z] that is no id (values that a memo remembers: they come back
 * event after event). */
static inline int run_kind(int slot, size_t off, bool read)
{
    int kind = slot - SH_ARG;
    if (slot < SH_ARG || (kind != KA_SKIP && off % 4 != 0)) return -1;
    if (kind == KA_SKIP || kind == KA_COMPACT) return kind;
    if (!read) return -1;
    if (kind == KA_FLOAT || kind == KA_DIM3) return kind;
    return kind == KA_INT && !ka_is_id(off) ? kind : -1;
}

/* Where a run that begins at slot s (of n, as recorded) would end: the
 * slots that run_kind() lets in, that write RUN_WORDS words at most. */
static unsigned run_end(const uint8_t *slot, const uint16_t *at, unsigned s, unsigned n, bool read)
{
    unsigned e = s, words = 0;
    for (int kind; e < n && (kind = run_kind(slot[e], at[e], read)) >= 0; e++)
        if ((words += ka_words(kind)) > RUN_WORDS) break;
    return e;
}

/* Where the memo run of a shape recorded (its slots, n) begins, or n if
 * none: of the runs that may hold args read, the one with the most values
 * that are no numbers skipped (they make the memo's text), the first of
 * those. */
static unsigned memo_run_at(const uint8_t *slot, const uint16_t *at, unsigned n, uint32_t skip_numbers)
{
    unsigned best = n, most = 0;
    for (unsigned s = 0, e; s < n; s = e > s + 1 ? e : s + 1) {
        if ((e = run_end(slot, at, s, n, true)) < s + 2) continue;
        unsigned texts = 0;
        for (unsigned j = s; j < e; j++) texts += !(skip_numbers >> j & 1);
        if (best == n || texts > most) best = s, most = texts;
    }
    return best;
}

/* A shape recorded: each run of two or more args in a row that are not
 * read or are shapes (up to SHAPE_RUNS runs) made one SH_RUN slot, the
 * literals between its values moved into the run, so that shape_event()
 * reads them in one step.  The memo run (memo_run_at) also takes in the
 * args read around them, but for ids: a kernel's launch, all read from its
 * memo. */
static void shape_runs(shape *sh)
{
    uint16_t lit_end[SHAPE_SLOTS + 1], at[SHAPE_SLOTS];
    uint8_t slot[SHAPE_SLOTS];
    char text[SHAPE_TEXT];
    unsigned n = sh->nslots, ns = 0;
    memcpy(lit_end, sh->lit_end, sizeof lit_end);
    memcpy(at, sh->at, sizeof at);
    memcpy(slot, sh->slot, sizeof slot);
    memcpy(text, sh->text, lit_end[n]);
    size_t w = 0, kw = 0;
    unsigned memo_at = memo_run_at(slot, at, n, sh->skip_numbers);
    sh->nruns = 0;
    sh->memo_run = NO_MEMO;
    for (unsigned s = 0;;) { /* literal s, then slot s (and the slots of its run) */
        size_t a = s ? lit_end[s - 1] : 0;
        memcpy(sh->text + w, text + a, lit_end[s] - a);
        w += lit_end[s] - a;
        sh->lit_end[ns] = (uint16_t)w;
        if (s == n) break;
        unsigned e = run_end(slot, at, s, n, s == memo_at);
        if (s < memo_at && e > memo_at) e = memo_at;
        if (e - s < 2 || sh->nruns == SHAPE_RUNS) {
            sh->slot[ns] = slot[s], sh->at[ns++] = at[s];
            s++;
            continue;
        }
        if (s == memo_at) sh->memo_run = (uint8_t)sh->nruns;
        shape_run *r = &sh->run[sh->nruns];
        r->n = e - s;
        r->key_from = (uint16_t)kw;
        for (unsigned j = 0; j < r->n; j++) r->kind[j] = (uint8_t)(slot[s + j] - SH_ARG), r->at[j] = at[s + j];
        for (unsigned j = 0; j + 1 < r->n; j++) { /* literal s + 1 + j: between values j and j + 1 */
            size_t b = lit_end[s + j];
            memcpy(sh->keys + kw, text + b, lit_end[s + j + 1] - b);
            kw += lit_end[s + j + 1] - b;
            r->key_end[j] = (uint16_t)kw;
        }
        sh->slot[ns] = SH_RUN, sh->at[ns++] = (uint16_t)sh->nruns++;
        s = e;
    }
    sh->nslots = ns;
    memset(sh->memo_hint, 0, sizeof sh->memo_hint);
}

/* ---- a shape resumed where another one failed ----
 * Shapes of one kind of event often part only late (a cpu_op with or
 * without "Sequence number" after its shapes): an event tried on the wrong
 * one first fails in a run of args, after its name, ids and times are
 * read.  The next shape tried that begins as the failed one does (the same
 * constant fields, literals and slots up to the run) goes on from that run:
 * its own reads of the slots before would set just what is set (the same
 * decoders on the same bytes; strings interned again are the same ids),
 * once the failed run's own writes (its shapes' fields) are taken back,
 * which is known where no slot before writes the same field (which then
 * still held TA_NONE's value). */

/* Whether slot s of sh writes the field at offset off of trace_args. */
static bool slot_writes(const shape *sh, unsigned s, size_t off)
{
    int slot = sh->slot[s];
    if (slot == SH_RUN) {
        const shape_run *r = &sh->run[sh->at[s]];
        for (unsigned j = 0; j < r->n; j++)
            if (r->kind[j] != KA_SKIP && r->at[j] == off) return true;
        return false;
    }
    return slot > SH_ARG + KA_SKIP && slot < SH_ARG + KA_NAME && sh->at[s] == off; /* (the time side's kinds) */
}

/* sh->undoable: the runs whose writes slot_undo() takes back. */
static void shape_undoable(shape *sh)
{
    sh->undoable = 0;
    for (unsigned s = 0; s < sh->nslots; s++) {
        if (sh->slot[s] != SH_RUN) continue;
        const shape_run *r = &sh->run[sh->at[s]];
        bool ok = true;
        for (unsigned j = 0; j < r->n; j++)
            for (unsigned t = 0; t < s && r->kind[j] != KA_SKIP; t++)
                if (slot_writes(sh, t, r->at[j])) ok = false;
        if (ok) sh->undoable |= 1u << s;
    }
}

/* What run slot s of sh (one of sh->undoable) wrote, or may have written
 * before it failed, taken back: its fields as they were before it. */
static void slot_undo(kineto *k, const shape *sh, unsigned s)
{
    const shape_run *r = &sh->run[sh->at[s]];
    for (unsigned j = 0; j < r->n; j++)
        for (unsigned w = 0, nw = ka_words(r->kind[j]); w < nw; w++) /* (copies of a constant size) */
            memcpy((char *)&k->ta + r->at[j] + 4 * w, (const char *)&TA_NONE + r->at[j] + 4 * w, 4);
}

static bool same_literal(const shape *a, const shape *b, unsigned t)
{
    size_t a0 = t ? a->lit_end[t - 1] : 0, b0 = t ? b->lit_end[t - 1] : 0, len = a->lit_end[t] - a0;
    return b->lit_end[t] - b0 == len && memcmp(a->text + a0, b->text + b0, len) == 0;
}

static bool same_slot(const shape *a, const shape *b, unsigned t)
{
    if (a->slot[t] != b->slot[t]) return false;
    if (a->slot[t] != SH_RUN) return a->at[t] == b->at[t];
    const shape_run *x = &a->run[a->at[t]], *y = &b->run[b->at[t]];
    if (x->n != y->n || memcmp(x->kind, y->kind, x->n) != 0 || memcmp(x->at, y->at, x->n * sizeof *x->at) != 0)
        return false;
    for (unsigned j = 0; j + 1 < x->n; j++) { /* the keys between its values */
        size_t xa = j ? x->key_end[j - 1] : x->key_from, ya = j ? y->key_end[j - 1] : y->key_from;
        size_t len = x->key_end[j] - xa;
        if (y->key_end[j] - ya != len || memcmp(a->keys + xa, b->keys + ya, len) != 0) return false;
    }
    return true;
}

/* How many of the units that begin shapes a and b (literal 0, slot 0,
 * literal 1, slot 1, ...) are the same; 0 if their constant fields differ. */
static unsigned shape_common(const shape *a, const shape *b)
{
    if (memcmp(&a->proto, &b->proto, sizeof a->proto) != 0) return 0;
    unsigned u = 0;
    for (unsigned t = 0;; t++) {
        if (!same_literal(a, b, t)) return u;
        u++;
        if (t == a->nslots || t == b->nslots || !same_slot(a, b, t)) return u;
        u++;
    }
}

/* Whether shape sh goes on where the last shape tried failed (k->miss): it
 * begins as that one does up to that slot (literals 0 .. slot, the slots
 * before it). */
static inline bool shape_resumes(const kineto *k, const shape *sh)
{
    return k->miss.sh && sh->common[k->miss.sh->id] > 2 * k->miss.slot;
}

/* "Input Dims" / "Input type" at p[i] as read_compact() keeps them: the text
 * as written when jp_compact_span() finds it so, interned.  The same few
 * texts come back again and again (the layers of every step), so a memo of
 * the last ones answers before the value is scanned: it is looked up by a
 * hash of the first COMPACT_KEY bytes at p[i], and bytes that begin with a
 * whole container remembered are that container (its closing bracket is
 * where the remembered one's is), so one compare gives the value and its
 * end.  A miss scans and checks the value and remembers it in front of its
 * set (the least recently used one out).  The index after the value, or 0. */
static size_t compact_value(kineto *k, const char *p, size_t i, size_t n, ml_str *out)
{
    if (p[i] != '[' && p[i] != '{') return 0;
    struct compact_memo *set = NULL;
    if (n - i >= COMPACT_KEY) {
        set = k->memo->compact[jp_hash(p + i, COMPACT_KEY) & (COMPACT_SETS - 1)];
        for (unsigned w = 0; w < COMPACT_WAYS && set[w].len; w++) {
            struct compact_memo c = set[w];
            if (c.len > n - i || memcmp(ml_s(k->p, c.id), p + i, c.len) != 0) continue;
            for (; w > 0; w--) set[w] = set[w - 1];
            set[0] = c;
            *out = c.id;
            return i + c.len;
        }
    }
    size_t end = js_plain_skip_container(p, i, n);
    if (!end) return 0;
    size_t len = end - i;
    if (jp_compact_span(p + i, n - i) != len) return 0;
    *out = ml_intern(k->p->strings, p + i, len);
    if (set) {
        for (unsigned w = COMPACT_WAYS - 1; w > 0; w--) set[w] = set[w - 1];
        set[0] = (struct compact_memo){len, *out};
    }
    return end;
}

/* The value at p[i] of an arg of the time side that is not read (its row
 * says KA_SKIP): the index after it, or 0.  Most such values are small
 * containers that come back again and again ("Concrete Inputs": ["", "1"],
 * "Input Strides": [[1048576, 1024, 1], []]), so a memo of their bytes,
 * found as compact_value()'s is, knows where one ends without scanning it
 * (bytes that begin with a whole container remembered are that container).
 * Not for the memory side, whose shapes skip whole args objects, which
 * rarely repeat. */
static size_t skip_unread_arg(kineto *k, const char *p, size_t i, size_t n)
{
    if ((p[i] != '[' && p[i] != '{') || n - i < COMPACT_KEY) return jp_skip(p, i, n);
    struct skip_memo *set = k->memo->skips[jp_hash(p + i, COMPACT_KEY) & (SKIP_SETS - 1)];
    for (unsigned w = 0; w < SKIP_WAYS && set[w].len; w++) {
        if (set[w].len > n - i || memcmp(set[w].text, p + i, set[w].len) != 0) continue;
        size_t len = set[w].len;
        if (w) { /* to the front */
            struct skip_memo c = set[w];
            for (; w > 0; w--) set[w] = set[w - 1];
            set[0] = c;
        }
        return i + len;
    }
    size_t end = js_plain_skip_container(p, i, n);
    if (end && end - i <= SKIP_TEXT) {
        for (unsigned w = SKIP_WAYS - 1; w > 0; w--) set[w] = set[w - 1];
        set[0].len = (uint8_t)(end - i);
        memcpy(set[0].text, p + i, end - i);
    }
    return end;
}

/* The current event's name (read before its args, or none yet) hashed:
 * from its length and its first and last 8 bytes. */
static inline uint64_t name_mix(const kineto *k)
{
    size_t n = k->name_len;
    if (!n) return 0;
    uint64_t head, tail;
    if (n >= 8) {
        memcpy(&head, k->name, 8);
        memcpy(&tail, k->name + n - 8, 8);
    } else { /* (k->name holds 64 bytes more than the name: the bytes past it masked off) */
        memcpy(&head, k->name, 8);
        head &= ~0ull >> (8 * (8 - n));
        tail = 0;
    }
    return (head ^ (tail * 31) ^ n) * 0x9e3779b97f4a7c15ull;
}
static inline unsigned name_hint(uint64_t mix) { return (unsigned)(mix >> 58); } /* (RUN_HINTS = 64) */

/* Whether memo way m remembers the values from `first` on at p[i] of shape
 * sh's memo run (the bytes there begin with its text: they are those
 * values, and the literals between them, as they were when remembered,
 * keys included). */
static inline bool run_memo_is(const run_memo *m, const shape *sh, unsigned first, const char *p, size_t i, size_t n)
{
    size_t len = m->seen.len;
    if (!len || m->serial != sh->serial || m->seen.first != first || len > n - i) return false;
    /* the last 16 bytes first: runs that begin alike (the same inputs) differ in their shapes, later */
    return len >= 16 ? jp_same_bytes(p + i + len - 16, m->text + len - 16, 16) && jp_same_bytes(p + i, m->text, len - 16)
                     : jp_same_bytes(p + i, m->text, len);
}

/* The set of k->runs that holds the memos of shape sh's memo run at p[i],
 * its values from `first` on: by the shape, the event's name (mix: the same
 * op comes back with the same run, the same kernel with the same launch),
 * and the first 16 bytes at p[i]; NULL if fewer are buffered. */
static run_memo *run_memo_set(const kineto *k, const shape *sh, unsigned first, uint64_t mix, const char *p, size_t i, size_t n)
{
    if (n - i < 16) return NULL;
    uint64_t h = mix ^ (((uint64_t)sh->serial << 8 | first) * 0xff51afd7ed558ccdull) ^ jp_hash(p + i, 16);
    return k->runs->set[(h ^ h >> 29) % RUN_SETS];
}

/* What the memo remembers of the values from `first` on at p[i] of shape
 * sh's memo run, or NULL (*set: where a miss remembers them, NULL if
 * nowhere).  The way the event's name used last is looked at first. */
static const run_seen *run_memo_find(kineto *k, shape *sh, unsigned first, const char *p, size_t i, size_t n, run_memo **set)
{
    uint64_t mix = name_mix(k);
    run_memo *all = &k->runs->set[0][0], *m = all + sh->memo_hint[name_hint(mix)];
    *set = NULL;
    if (!run_memo_is(m, sh, first, p, i, n)) {
        if (!(*set = run_memo_set(k, sh, first, mix, p, i, n))) return NULL;
        unsigned w = 0;
        while (w < RUN_WAYS && !run_memo_is(&(*set)[w], sh, first, p, i, n)) w++;
        if (w == RUN_WAYS) return NULL;
        m = &(*set)[w];
        sh->memo_hint[name_hint(mix)] = (uint16_t)(m - all);
    }
    m->used = ++k->runs->clock;
    return &m->seen;
}

/* A run's text remembered in set `set`, in the way used least recently (an
 * unused one first). */
static void run_memo_put(kineto *k, shape *sh, run_memo *set, const run_seen *seen, const char *text)
{
    if (!seen->len) return;
    unsigned o = 0;
    for (unsigned w = 1; w < RUN_WAYS; w++)
        if (set[w].used < set[o].used) o = w;
    set[o].used = ++k->runs->clock;
    set[o].serial = sh->serial;
    set[o].seen = *seen;
    memcpy(set[o].text, text, seen->len);
    sh->memo_hint[name_hint(name_mix(k))] = (uint16_t)(&set[o] - &k->runs->set[0][0]);
}

/* A KA_INT arg's value at p[i] into k->ta at offset off: the index after it, or 0. */
static inline size_t int_arg(kineto *k, size_t off, const char *p, size_t i, size_t n)
{
    int64_t v;
    size_t end = jp_int(p, i, n, &v);
    if (end) memcpy((char *)&k->ta + off, &v, sizeof v), k->ta_dirty = true;
    return end;
}

/* A KA_FLOAT arg's value at p[i] into k->ta at offset off: the index after
 * it, or 0.  *usual: whether it had the usual form, read in one pass (a
 * number of another form that ml_parse_double() rejects writes nothing). */
static inline size_t float_arg(kineto *k, size_t off, const char *p, size_t i, size_t n, bool *usual)
{
    double d;
    size_t end;
    k->ta_dirty = true;
    if (!(*usual = (end = jp_decimal(p, i, n, &d)) > 0)) {
        if (!(end = jp_number(p, i, n))) return 0;
        if (ml_parse_double(p + i, end - i, &d) != 0) return end;
    }
    float f = (float)d;
    memcpy((char *)&k->ta + off, &f, sizeof f);
    return end;
}

/* An arg's value at p[i], of kind `kind` (a time side's: KA_INT ..
 * KA_FLOAT, or KA_SKIP), into k->ta at offset off: the index after it, or 0. */
static size_t trace_arg_value(kineto *k, int kind, size_t off, const char *p, size_t i, size_t n)
{
    char *a = (char *)&k->ta;
    size_t end;
    if (kind != KA_SKIP) k->ta_dirty = true;
    switch (kind) {
    case KA_INT: return int_arg(k, off, p, i, n);
    case KA_GROUP: {
        int64_t v;
        if (!(end = jp_int(p, i, n, &v))) return 0;
        if (v >= 0 && v <= INT32_MAX) k->ta.comm.group_size = (int32_t)v;
        return end;
    }
    case KA_DIM3: {
        int32_t d3[3];
        if (!(end = jp_dim3(p, i, n, d3))) return 0;
        memcpy(a + off, d3, sizeof d3);
        return end;
    }
    case KA_COMPACT: {
        ml_str id;
        if (!(end = compact_value(k, p, i, n, &id))) return 0;
        memcpy(a + off, &id, sizeof id);
        return end;
    }
    case KA_STRING: {
        if (p[i] != '"' || !(end = jp_string(p, i, n))) return 0;
        ml_str id = ml_intern(k->p->strings, p + i + 1, end - i - 2);
        memcpy(a + off, &id, sizeof id);
        return end;
    }
    case KA_FLOAT: {
        bool usual;
        return float_arg(k, off, p, i, n, &usual);
    }
    case KA_SKIP: return number_at(p, i) ? jp_number(p, i, n) : skip_unread_arg(k, p, i, n);
    }
    return 0; /* a memory event's arg: the token path reads it */
}

/* Run r of shape sh (SH_RUN) at p[i]: each value skipped (a number here,
 * any other as skip_unread_arg() skips it) or read as trace_arg_value()
 * reads it; each literal between two (the next key) the run's: the index
 * after its last value, or 0.  The memo run (sh->memo_run) first looks its
 * values up in its memo from the first that is no number skipped (most runs
 * come back: the same shapes and types layer after layer, the same kernel's
 * launch), numbers skipped before and after it (an index, an id, that
 * change) read one by one; a miss remembers them, and what they wrote. */
static size_t read_run(kineto *k, shape *sh, unsigned r, const char *p, size_t i, size_t n)
{
    const shape_run *run = &sh->run[r];
    char *ta = (char *)&k->ta;
    bool memo = r == sh->memo_run, keep = true; /* keep: what was read may be remembered */
    run_memo *set = NULL;                      /* the memo's set of the text looked up */
    run_seen got;                              /* what a miss remembers: values first .. next - 1 */
    got.first = (uint8_t)run->n, got.next = 0, got.nwords = 0;
    size_t from = 0, to = 0;                   /* and their text */
    for (unsigned j = 0;;) {
        int kind = run->kind[j];
        bool num = kind == KA_SKIP && number_at(p, i);
        if (!num && memo) {
            memo = false;
            const run_seen *m = run_memo_find(k, sh, j, p, i, n, &set);
            if (m) {
                if (!m->next) return 0; /* (an event of another shape, alike up to there) */
                for (unsigned q = 0; q < m->nwords; q++) memcpy(ta + 4 * m->word_at[q], &m->word[q], 4);
                if (m->nwords) k->ta_dirty = true;
                i += m->len;
                if ((j = m->next) == run->n) return i;
                continue;
            }
            if (set) got.first = (uint8_t)j, from = i;
        }
        size_t at = run->at[j];
        switch (kind) {
        case KA_SKIP: i = num ? jp_number(p, i, n) : skip_unread_arg(k, p, i, n); break;
        case KA_COMPACT: {
            ml_str id;
            if ((i = compact_value(k, p, i, n, &id))) memcpy(ta + at, &id, sizeof id), k->ta_dirty = true;
            break;
        }
        case KA_FLOAT: {
            bool usual;
            i = float_arg(k, at, p, i, n, &usual);
            keep &= usual;
            break;
        }
        case KA_INT: i = int_arg(k, at, p, i, n); break;
        default: i = trace_arg_value(k, kind, at, p, i, n); /* KA_DIM3 */
        }
        if (!i) return 0;
        if (kind != KA_SKIP && got.first < run->n) /* the words it wrote */
            for (unsigned w = 0, nw = ka_words(kind); w < nw; w++, got.nwords++) {
                got.word_at[got.nwords] = (uint8_t)(at / 4 + w);
                memcpy(&got.word[got.nwords], ta + at + 4 * w, 4);
            }
        bool last = j + 1 == run->n;
        if (!num) got.next = (uint8_t)(j + 1), to = i;
        if (!last) {
            size_t a = j ? run->key_end[j - 1] : run->key_from, len = run->key_end[j] - a;
            if (n - i < len) return 0;
            if (!jp_same_bytes(p + i, sh->keys + a, len)) {
                /* remembered too: the bytes up to the first that differs from the key (those
                 * after it are another arg's, whose value may change) */
                size_t d = 0;
                while (p[i + d] == sh->keys[a + d]) d++;
                if (keep && got.first < run->n && i + d + 1 - from <= RUN_TEXT) {
                    got.next = 0, got.nwords = 0, got.len = (uint16_t)(i + d + 1 - from);
                    run_memo_put(k, sh, set, &got, p + from);
                }
                return 0;
            }
            i += len;
            if (!num) to = i;
        }
        if (last) break;
        j++;
    }
    if (keep && got.first < run->n && to - from <= RUN_TEXT) {
        got.len = (uint16_t)(to - from);
        run_memo_put(k, sh, set, &got, p + from);
    }
    return i;
}

/* The args object at p[at] == '{' read into k->ta: the index after it, or
 * 0 if the token path must read it.  Its shape goes on into *rec (if not
 * NULL): the keys are literals, each value a slot. */
static size_t trace_args_at(kineto *k, const char *p, size_t at, size_t n, shape *rec)
{
    size_t i = jp_ws(p, at + 1);
    if (i >= n) return 0;
    if (p[i] == '}') return i + 1;
    for (;;) {
        const char *key;
        size_t kn;
        if (!(i = jp_member(p, i, n, &key, &kn))) return 0;
        /* (ph is known here, and neither "M" nor "C": a "name" arg is skipped;
         * so are the args the command does not read) */
        const ka_key *row = arg_row(k, key, kn);
        int kind = row && row->kind != KA_NAME && !arg_unread(k, row) ? row->kind : KA_SKIP;
        size_t off = row ? row->off : 0, end;
        if (!(end = trace_arg_value(k, kind, off, p, i, n))) return 0;
        shape_slot_at(rec, p, i, end, SH_ARG + kind, off); /* (SH_ARG + KA_SKIP: skip_unread_arg) */
        i = jp_ws(p, end);
        if (i >= n) return 0;
        if (p[i] == '}') break;
        if (p[i] != ',') return 0;
        i = jp_ws(p, i + 1);
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
            /* the rows that are also (or only) a cuda_sync event's */
            const ka_key *row = ka_find(&k->keys, key, n);
            int64_t *dst = row && row->where != KA_ALL && row->kind == KA_INT ? (int64_t *)(void *)ta_field(k, row) : NULL;
            int64_t v;
            if (!dst) r = skip_arg(k) < 0 ? -1 : 0;
            else if ((r = read_int(k, &v)) > 0) *dst = v;
        }
        if (r < 0) return -1;
    }
}

/* The field of a memory arg's kind (KA_ADDR .. KA_TOTAL_RESERVED), and its
 * has_ flag; NULL for KA_ADDR (an unsigned address, read as text). */
static inline int64_t *memory_field(event_fields *f, int kind, bool **has)
{
    switch (kind) {
    case KA_BYTES: *has = &f->has_bytes; return &f->bytes;
    case KA_DEV_TYPE: *has = &f->has_dev_type; return &f->dev_type;
    case KA_DEV_ID: *has = &f->has_dev_id; return &f->dev_id;
    case KA_TOTAL_ALLOC: *has = &f->has_total_alloc; return &f->total_alloc;
    case KA_TOTAL_RESERVED: *has = &f->has_total_reserved; return &f->total_reserved;
    }
    *has = &f->has_addr;
    return NULL;
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
        const ka_key *row = arg_row(k, key, n);
        if (!row || row->kind < KA_ADDR) {
            if (k->t ? read_trace_arg(k, f, key, n, row) < 0 : js_skip(k->js) < 0) return -1;
            continue;
        }
        const char *label = row->key;
        bool *has;
        int64_t *dst = memory_field(f, row->kind, &has);
        uint64_t off = js_offset(k->js); /* the key: messages name it */
        const char *why = NULL;
        if (!dst) {
            /* Addresses are unsigned 64-bit: read them as text. */
            const char *s;
            size_t m;
            int r = js_value_scalar_text(k->js, &s, &m);
            if (r < 0) return -1;
            uint64_t a = 0;
            bool ok = r > 0 && m > 0, digits = ok, big = false;
            for (size_t i = 0; ok && i < m; i++) {
                if (s[i] < '0' || s[i] > '9') ok = digits = false;
                else if (a > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) ok = false, big = true;
                else a = a * 10 + (uint64_t)(s[i] - '0');
            }
            if (ok) f->addr = a, f->has_addr = true;
            /* a number all the same (-1 is one): say what is wrong with it */
            else if (r > 0 && m > 1 && s[0] == '-' && s[1] >= '0' && s[1] <= '9') why = "is negative (an address is unsigned)";
            else why = big && digits ? "is out of range (above 2^64 - 1)" : "is not a number";
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

/* Starts an event: its fields empty, no name yet. */
static void event_begin(kineto *k, event_fields *f)
{
    memset(f, 0, sizeof *f);
    f->skind = ML_SL_OTHER;
    f->dev_kind = ML_DEV_CUDA;
    k->name_len = 0;
    k->name_interned = false;
    k->shapes_unread = false;
    if (k->t) {
        ta_reset(k);
        k->cvals.len = 0;
    }
}

/* What a key of an event object is (id and bp only matter to the time side). */
enum { EK_OTHER, EK_PH, EK_TS, EK_ID, EK_BP, EK_CAT, EK_PID, EK_TID, EK_DUR, EK_NAME, EK_ARGS };
static inline int event_key(const kineto *k, const char *key, size_t n)
{
    switch (n) {
    case 2:
        if (key[0] == 'p' && key[1] == 'h') return EK_PH;
        if (key[0] == 't' && key[1] == 's') return EK_TS;
        if (k->t && key[0] == 'i' && key[1] == 'd') return EK_ID;
        if (k->t && key[0] == 'b' && key[1] == 'p') return EK_BP;
        break;
    case 3:
        if (!memcmp(key, "cat", 3)) return EK_CAT;
        if (!memcmp(key, "pid", 3)) return EK_PID;
        if (!memcmp(key, "tid", 3)) return EK_TID;
        if (!memcmp(key, "dur", 3)) return EK_DUR;
        break;
    case 4:
        if (!memcmp(key, "name", 4)) return EK_NAME;
        if (!memcmp(key, "args", 4)) return EK_ARGS;
        break;
    }
    return EK_OTHER;
}

/* How an event's args are read, by what came before them: skipped (no
 * memory event, no time side), by read_own_args (cuda_sync, profiler
 * ranges), as the time side's (trace_args_at, read_trace_arg), or as a
 * memory event's (memory_args_at, read_args: also any event whose name or
 * ph is not known yet). */
enum { ARGS_SKIP, ARGS_OWN, ARGS_TRACE, ARGS_MEMORY };
static inline int args_route(const kineto *k, const event_fields *f)
{
    bool memory = f->has_name && is_memory_name(k);
    if (f->has_name && !memory && !k->t) return ARGS_SKIP;
    /* rare (one per sync call or measured kernel): not to weigh on the branches around */
    if (__builtin_expect(k->t && f->skind >= ML_SL_CUDA_SYNC, 0)) return ARGS_OWN;
    if (k->t && f->has_name && f->ph && f->ph != 'C' && f->ph != 'M' && !memory) return ARGS_TRACE;
    return ARGS_MEMORY;
}

/* ---- whole events straight from the buffer ----
 * Kineto writes its events plainly: fast_event() reads one such event
 * object as read_event() would (the same fields, read in the same order, so
 * strings are interned in the same order), from the scanner's buffer
 * without tokenizing it, and gives up on anything else (an escape, a value
 * of an unusual form or out of range, args the token path reads another
 * way, an object not wholly buffered): read_event() then reads the event
 * again from its start, to the same effect, and reports what is wrong. */

/* A memory event's integer arg (read_args: js_value_number, scale 0). */
static inline size_t plain_memory_int(const char *p, size_t i, size_t n, int64_t *dst, bool *has)
{
    size_t end = jp_int(p, i, n, dst);
    if (end) *has = true;
    return end;
}

/* A flow event's "id" at p[i] into f: the index after it, or 0.  A plain
 * integer is its own id, as kt_flow_id() reads it: read in one pass.  (Out
 * of line: plain_slot()'s other cases, inlined in shape_event()'s loop, run
 * for every event.) */
static __attribute__((noinline)) size_t flow_id_at(event_fields *f, const char *p, size_t i, size_t n)
{
    size_t end, m;
    const char *v;
    if (!(end = jp_int(p, i, n, &f->id))) {
        if (!(end = jp_scalar_text(p, i, n, &v, &m))) return 0;
        f->id = kt_flow_id(v, m);
    }
    f->has_id = true;
    return end;
}

/* The plain value at p[i] of slot kind `slot` (SH_*; SH_ARG + a KA_* kind:
 * its field at offset off of trace_args for the time side's) into its field:
 * the index after it, or 0 when it is not of the plain form the token path
 * reads the same way.  The one decoder of both fast paths: fast_event()
 * calls it for the key it found, shape_event() for the slot it expects
 * (inlined: shape_event() runs it for every value of most events). */
static inline __attribute__((always_inline)) size_t plain_slot(kineto *k, event_fields *f, shape *sh, int slot, size_t off,
                                                              const char *p, size_t i, size_t n)
{
    size_t end;
    const char *v;
    size_t m;
    switch (slot) {
    case SH_TS:
        if (!(end = jp_scaled(p, i, 3, &f->ts)) || !ml_value_ok(f->ts)) return 0;
        f->has_ts = true;
        return end;
    case SH_DUR:
        if (!(end = jp_scaled(p, i, 3, &f->dur)) || !ml_value_ok(f->dur)) return 0;
        f->has_dur = true;
        return end;
    case SH_PID:
    case SH_TID:
        if (!(end = jp_scalar_text(p, i, n, &v, &m))) return 0;
        if (slot == SH_PID) set_id(f->pid, &f->pid_len, v, m);
        else set_id(f->tid, &f->tid_len, v, m);
        return end;
    case SH_NAME:
    case SH_NAME_MEMORY:
    case SH_NAME_OTHER:
    case SH_NAME_NO_SHAPES:
        if (p[i] != '"' || !(end = jp_string(p, i, n))) return 0;
        set_name(k, f, p + i + 1, end - i - 2);
        return slot == SH_NAME || slot == name_slot(k) ? end : 0;
    case SH_ID: return flow_id_at(f, p, i, n);
    case SH_SKIP: return jp_skip(p, i, n);
    case SH_RUN: k->run_at = i; return read_run(k, sh, (unsigned)off, p, i, n);
    case SH_ARG + KA_ADDR:
        if (!(end = jp_uint(p, i, &f->addr))) return 0;
        f->has_addr = true;
        return end;
    case SH_ARG + KA_BYTES: return plain_memory_int(p, i, n, &f->bytes, &f->has_bytes);
    case SH_ARG + KA_DEV_TYPE: return plain_memory_int(p, i, n, &f->dev_type, &f->has_dev_type);
    case SH_ARG + KA_DEV_ID: return plain_memory_int(p, i, n, &f->dev_id, &f->has_dev_id);
    case SH_ARG + KA_TOTAL_ALLOC: return plain_memory_int(p, i, n, &f->total_alloc, &f->has_total_alloc);
    case SH_ARG + KA_TOTAL_RESERVED: return plain_memory_int(p, i, n, &f->total_reserved, &f->has_total_reserved);
    /* the time side's commonest two (ids, streams; numbers not read), here rather than through
     * trace_arg_value()'s call and second switch: what it does for them */
    case SH_ARG + KA_INT: return int_arg(k, off, p, i, n);
    case SH_ARG + KA_SKIP: return number_at(p, i) ? jp_number(p, i, n) : skip_unread_arg(k, p, i, n);
    }
    return trace_arg_value(k, slot - SH_ARG, off, p, i, n); /* SH_ARG + a time side's kind */
}

/* The args object at p[at] as read_args() reads it (a memory event's, or
 * any event's whose name is not known yet): the index after it, or 0. */
static size_t memory_args_at(kineto *k, event_fields *f, const char *p, size_t at, size_t n, shape *rec)
{
    if (p[at] != '{') return 0;
    /* the time side reads a counter's args, and args before "ph", another way */
    if (k->t && (!f->ph || f->ph == 'C' || f->ph == 'M')) return 0;
    size_t i = jp_ws(p, at + 1);
    if (i >= n) return 0;
    if (p[i] == '}') return i + 1;
    for (;;) {
        const char *key;
        size_t kn;
        if (!(i = jp_member(p, i, n, &key, &kn))) return 0;
        const ka_key *row = arg_row(k, key, kn);
        int slot = row && row->kind >= KA_ADDR ? SH_ARG + row->kind : SH_SKIP;
        /* an arg the time side reads: read_trace_arg's way (the token path) */
        if (slot == SH_SKIP && row && k->t) return 0;
        size_t end = plain_slot(k, f, NULL, slot, 0, p, i, n);
        if (!end) return 0;
        shape_slot(rec, p, i, end, slot);
        i = jp_ws(p, end);
        if (i >= n) return 0;
        if (p[i] == '}') break;
        if (p[i] != ',') return 0;
        i = jp_ws(p, i + 1);
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
        rec->skip_numbers = 0;
    }
    size_t i = jp_ws(p, 1);
    if (i >= n) return 0;
    while (p[i] != '}') {
        const char *key;
        size_t kn;
        if (!(i = jp_member(p, i, n, &key, &kn))) return 0;
        size_t end = 0;
        int slot = SH_SKIP;
        switch (event_key(k, key, kn)) {
        case EK_PH: /* ph, cat and bp: literals of the shape */
            if (p[i] != '"' || !(end = jp_string(p, i, n))) return 0;
            if (end - i > 2) f.ph = p[i + 1];
            break;
        case EK_BP:
            if (p[i] != '"' || !(end = jp_string(p, i, n))) return 0;
            f.bind_enclosing = end - i == 3 && p[i + 1] == 'e';
            break;
        case EK_CAT:
            if (p[i] != '"' || !(end = jp_string(p, i, n))) return 0;
            kt_set_cat(k, &f, p + i + 1, end - i - 2);
            break;
        case EK_TS: slot = SH_TS; goto value;
        case EK_DUR: slot = SH_DUR; goto value;
        case EK_PID: slot = SH_PID; goto value;
        case EK_TID: slot = SH_TID; goto value;
        case EK_ID: slot = SH_ID; goto value;
        case EK_NAME:
            if (!(end = plain_slot(k, &f, NULL, SH_NAME, 0, p, i, n))) return 0;
            shape_slot(rec, p, i, end, name_slot(k));
            break;
        case EK_ARGS:
            switch (args_route(k, &f)) {
            case ARGS_SKIP: goto value;
            case ARGS_OWN: return 0; /* read_event's own reader (no shape learned) */
            case ARGS_TRACE: end = p[i] == '{' ? trace_args_at(k, p, i, n, rec) : 0; break;
            default: end = memory_args_at(k, &f, p, i, n, rec);
            }
            break;
        default:
        value:
            if (!(end = plain_slot(k, &f, NULL, slot, 0, p, i, n))) return 0;
            shape_slot(rec, p, i, end, slot);
        }
        if (!end) return 0;
        i = jp_ws(p, end);
        if (i >= n) return 0;
        if (p[i] == '}') break;
        if (p[i] != ',') return 0;
        i = jp_ws(p, i + 1);
        if (i >= n) return 0;
    }
    if (rec && rec->ok) { /* the last literal, to the closing brace; the constant fields */
        shape_slot(rec, p, i + 1, i + 1, SH_SKIP);
        rec->nslots--;
        memset(&rec->proto, 0, sizeof rec->proto);
        rec->proto.ph = f.ph;
        rec->proto.cat = f.cat;
        rec->proto.skind = f.skind;
        rec->proto.dev_kind = f.dev_kind;
        rec->proto.cat_id = f.cat_id;
        rec->proto.bind_enclosing = f.bind_enclosing;
        shape_runs(rec);
        shape_undoable(rec);
    }
    js_consume_element(k->js, i + 1);
    return kt_event_done(k, &f, js_offset(k->js)) < 0 ? -1 : 1;
}

/* The event at p[0] if it has shape sh, read into *f: 1 if it was read and
 * consumed, 0 if it has not (nothing set), 2 + s if it has not (slot s
 * failed, or the literal after it), -1 on error.  A shape that resumes
 * where the one before failed (shape_resumes) goes on from there, with the
 * fields read. */
static int shape_event(kineto *k, shape *sh, event_fields *restrict f, const char *p, size_t n)
{
    unsigned s = 0;
    size_t i;
    if (__builtin_expect(shape_resumes(k, sh), 0)) {
        s = k->miss.slot, i = k->miss.at;
    } else {
        /* The first literal (up to the first value: "ph" and "cat" are in it)
         * before anything is set up: most of the shapes tried fail there. */
        i = sh->lit_end[0];
        if (n < i || !jp_same_bytes(p, sh->text, i)) return 0;
        fields_reset(f, &sh->proto);
        k->name_len = 0;
        k->name_interned = false;
        if (k->t) {
            ta_reset(k);
            k->cvals.len = 0;
        }
    }
    for (size_t from = sh->lit_end[s]; s < sh->nslots; s++) { /* slot s, then the literal after it */
        size_t end = plain_slot(k, f, sh, sh->slot[s], sh->at[s], p, i, n);
        if (!end) return 2 + (int)s;
        i = end;
        size_t len = sh->lit_end[s + 1] - from;
        if (n - i < len || !jp_same_bytes(p + i, sh->text + from, len)) return 2 + (int)s;
        i += len;
        from = sh->lit_end[s + 1];
    }
    js_consume_element(k->js, i);
    return kt_event_done(k, f, js_offset(k->js)) < 0 ? -1 : 1;
}

/* Shape sh failed at slot s (or in the literal after it): k->miss says
 * where the next shape may resume (a run, where it began: k->run_at), or
 * that none may. */
static __attribute__((noinline, cold)) void shape_failed(kineto *k, const shape *sh, unsigned s)
{
    if (sh->slot[s] == SH_RUN && sh->undoable >> s & 1) {
        slot_undo(k, sh, s);
        k->miss.sh = sh, k->miss.slot = s, k->miss.at = k->run_at;
    } else {
        k->miss.sh = NULL;
    }
}

/* A shape just learned: its units in common with each other one. */
static void shape_learned(kineto *k, shape *sh)
{
    for (unsigned i = 0; i < k->nshapes; i++) {
        shape *o = k->shapes[i];
        if (o == sh) continue;
        unsigned c = shape_common(sh, o);
        sh->common[o->id] = o->common[sh->id] = (uint8_t)c;
    }
}

/* The event at p[0] == '{': by a shape it has (moved to the front), else by
 * fast_event() (and its shape learned), else 0 (read_event() must read it). */
static int shaped_event(kineto *k, const char *p, size_t n)
{
    event_fields f; /* (the fields of each shape tried: one shape_event() resumes with the one before's) */
    k->miss.sh = NULL;
    for (unsigned i = 0; i < k->nshapes; i++) {
        shape *sh = k->shapes[i];
        /* most shapes tried differ from the event in their first bytes ("ph", "cat"): those
         * looked at here, before the call (shape_event() compares them again) */
        if (n >= 32 && sh->lit_end[0] >= 32 && !jp_same_bytes(p, sh->text, 32) && !shape_resumes(k, sh)) continue;
        int r = shape_event(k, sh, &f, p, n);
        if (r >= 2) shape_failed(k, sh, (unsigned)r - 2);
        if (r == 0 || r >= 2) continue;
        if (i) { /* (most events have the shape of the one before: nothing to move) */
            memmove(k->shapes + 1, k->shapes, i * sizeof *k->shapes);
            k->shapes[0] = sh;
        }
        return r;
    }
    if (!k->spare) {
        k->spare = ml_malloc(sizeof *k->spare);
        k->spare->id = (uint8_t)k->shape_ids++; /* (at most SHAPES + 1 are allocated) */
    }
    shape *rec = k->spare;
    int r = fast_event(k, p, n, rec);
    if (r > 0 && rec->ok) { /* learned: in front, the least recently used one out */
        k->spare = k->nshapes == SHAPES ? k->shapes[SHAPES - 1] : NULL;
        if (k->nshapes < SHAPES) k->nshapes++;
        memmove(k->shapes + 1, k->shapes, (k->nshapes - 1) * sizeof *k->shapes);
        k->shapes[0] = rec;
        rec->serial = ++k->shape_serial;
        if (rec->memo_run != NO_MEMO && !k->runs) k->runs = ml_calloc(1, sizeof *k->runs);
        shape_learned(k, rec);
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
        switch (event_key(k, key, n)) {
        case EK_PH:
            r = js_value_string(js, &v, &m);
            if (r > 0 && m) f.ph = v[0];
            break;
        case EK_TS:
            r = read_bounded(k, 3, "ts", &f.ts);
            f.has_ts = r > 0;
            break;
        case EK_ID:
            r = js_value_scalar_text(js, &v, &m);
            if (r > 0) f.id = kt_flow_id(v, m), f.has_id = true;
            break;
        case EK_BP:
            r = js_value_string(js, &v, &m);
            if (r > 0) f.bind_enclosing = m == 1 && v[0] == 'e';
            break;
        case EK_CAT:
            r = js_value_string(js, &v, &m);
            if (r > 0) kt_set_cat(k, &f, v, m);
            break;
        case EK_PID: r = read_id(k, f.pid, &f.pid_len); break;
        case EK_TID: r = read_id(k, f.tid, &f.tid_len); break;
        case EK_DUR:
            r = read_bounded(k, 3, "dur", &f.dur);
            f.has_dur = r > 0;
            f.bad_dur = r == 0; /* another type than a number */
            break;
        case EK_NAME:
            r = js_value_string(js, &v, &m);
            if (r > 0) set_name(k, &f, v, m);
            break;
        case EK_ARGS:
            switch (args_route(k, &f)) {
            case ARGS_SKIP: r = js_skip(js); break;
            case ARGS_OWN: r = read_own_args(k, &f); break;
            case ARGS_TRACE:
                if (fast_trace_args(k)) {
                    r = 1;
                    break;
                }
                /* fall through */
            default: r = read_args(k, &f);
            }
            break;
        default:
            r = js_skip(js);
        }
        if (r < 0) return scan_error(k);
    }
    return kt_event_done(k, &f, ev_off);
}

/* ---- the trace ---- */

/* The event list, its '[' just read.  The file may end anywhere between its
 * events, or right after its ']'. */
int kt_read_events(kineto *k)
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

