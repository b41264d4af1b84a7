/*
 * kineto_int.h — what the parts of the Kineto importer share (not for other
 * modules).  The importer is four parts over one state (struct kineto):
 *   kineto_event.c  reads each event of the list into an event_fields (and
 *                   the time side's args into k->ta): the token path, and
 *                   the fast paths straight from the scanner's buffer
 *                   (jsonplain.h), which decode every field the same way;
 *   kineto_cat.c    what an event's cat says (both paths ask it);
 *   kineto.c        fills the profile from each event read (kt_event_done:
 *                   memory events, ops, the trace store), reads the
 *                   document around the event list, and finishes;
 *   kineto_split.c  reads a big plain file as two halves on two threads.
 * The args read are declared once, in kineto_args.h.  Text that repeats
 * (names, args values, pid/tid, runs of args) goes through memos (struct
 * kt_memo, struct id_memo, kineto_event.c's struct kt_runs): found by a few
 * bytes, checked by one compare.
 */
#ifndef ML_KINETO_INT_H
#define ML_KINETO_INT_H

#include "importer.h"
#include "jsonscan.h"

#include <stddef.h>
#include <string.h>

enum { CAT_NONE, CAT_CPU_OP, CAT_ANNOTATION, CAT_PYTHON, CAT_INSTANT, CAT_OTHER };

#define ID_MAX 64
/* A trace alternates between a few tracks (the main thread, the autograd
 * thread, a stream or two): one remembered track (or thread) missed a
 * quarter of the time. */
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
    /* last: an event is set up by copying what comes before (fields_reset) */
    char pid[ID_MAX], tid[ID_MAX]; /* pid_len / tid_len bytes, then zeros to 16 (same_id reads 16) */
} event_fields;

/* f set to proto (an event's fields before any is read), but for the bytes
 * of the pid and tid texts past the 16 that same_id() reads: only those
 * texts' lengths say how much of them holds. */
static inline void fields_reset(event_fields *f, const event_fields *proto)
{
    memcpy(f, proto, offsetof(event_fields, pid));
    memset(f->pid, 0, 16);
    memset(f->tid, 0, 16);
}

/* Args of the time side, -1 / 0 when absent (trace.h says what each is). */
typedef struct trace_args {
    int64_t corr, ext, seq, fwd, py_module, device, stream, regs, smem, bytes, sort_index;
    int32_t grid[3], block[3];
    float blocks_per_sm, occupancy, membw;
    ml_str dims, types, stack, name; /* name: an M event's args "name" */
    ml_comm_args comm;
    int64_t wait_stream, wait_corr; /* cuda_sync's */
} trace_args;

#include "kineto_args.h" /* (its rows name trace_args fields) */

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
/* "Input Dims" and "Input type" texts remembered (compact_value): sets of a
 * few, chosen by the first bytes of the text (a realistic trace has a few
 * dozen such texts, several of them alike in their first 16 bytes) */
enum { NAME_MEMO = 1024 };         /* event names remembered, two by two (a realistic trace has a few hundred) */
/* containers of args not read, remembered up to SKIP_TEXT bytes (skip_unread_arg), as compact_value's */
enum { SKIP_SETS = 64, SKIP_WAYS = 8, SKIP_TEXT = 95 };
enum { COMPACT_SETS = 64, COMPACT_WAYS = 8, COMPACT_KEY = 16 };

/* What the readers remember of text that comes back again and again (on
 * the heap: struct kineto lives on the stack, and these are ~90 KB). */
struct kt_memo {
    struct compact_memo {          /* compact_value()'s memo of args text */
        size_t len;                /* 0: unused */
        ml_str id;
    } compact[COMPACT_SETS][COMPACT_WAYS];
    struct skip_memo {             /* skip_unread_arg()'s memo of args values not read */
        uint8_t len;               /* 0: unused */
        char text[SKIP_TEXT];
    } skips[SKIP_SETS][SKIP_WAYS];
    struct name_memo {             /* intern_name()'s memo of event names */
        size_t len;                /* 0: unused */
        uint64_t head, tail;       /* the first and last 8 bytes (all of a shorter name) */
        ml_str id;
    } names[NAME_MEMO];
};

/* Where the last shape tried for an event failed (kineto_event.c's
 * shape_failed), for the next one tried to resume there. */
struct shape_miss {
    const struct shape *sh;        /* NULL: none to resume from */
    unsigned slot;                 /* the slot that failed (or the literal after it), its writes taken back */
    size_t at;                     /* where its value begins in the event */
};

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
    bool memory_profiled;          /* the header says "profile_memory": 1 (PyTorch writes it when on) */
    bool saw_event_list;           /* a "traceEvents" list, or a bare array of events */
    bool events_open;              /* inside the event list (where a split may fall) */
    size_t list_objects, list_others; /* elements of the event list: objects, and anything else */
    uint64_t list_off;             /* where the event list begins */
    size_t orphan_ends;            /* "E" events with no open "B" on their thread */
    size_t unclosed;               /* "B" ops closed at the end of the trace for want of an "E" */
    bool has_times;                /* min_ts / max_end are set */
    int64_t min_ts, max_end;       /* earliest ts and latest ts + dur of all events (before the base is added) */
    int64_t bytes_moved;           /* sum of |Bytes| of allocs and frees: kept below ML_VALUE_LIMIT */
    uint32_t totals[TOTALS_CACHE][2]; /* device -> series index + 1 of its allocated / reserved totals */
    size_t memory_events, memory_without_addr, memory_without_totals, oom_events;
    /* the CPU's Total Allocated before its first memory event (see the note at the end) */
    bool cpu_total_seen;
    int64_t cpu_total_before;
    /* memory events whose Total Reserved (not 0) is below their Total Allocated,
     * which no caching allocator writes: the first one's byte and device */
    size_t reserved_below;
    uint64_t reserved_below_off;
    char reserved_below_dev[32];
    /* the time side: NULL unless the command wants it */
    ml_trace *t;
    trace_args ta;
    bool ta_dirty;                 /* ta may differ from TA_NONE: an arg was written since it was reset (ta_reset) */
    VEC(counter_val) cvals;        /* the current event's numeric args, for "C" events */
    VEC(char) json;                /* compact JSON text of an arg being read */
    struct id_memo {               /* recent (pid, tid) texts: track_of()'s tracks, thread_of()'s threads */
        uint32_t id;               /* the track or thread; ML_NONE32: unused */
        uint8_t pid_len, tid_len;
        char pid[ID_MAX], tid[ID_MAX];
    } tracks[TRACK_MEMO], threads[TRACK_MEMO];
    unsigned tracks_next, threads_next; /* the entries to replace next */
    unsigned tracks_last, threads_last; /* the entries found last (tried first) */
    size_t unclosed_slices;        /* "B" events of any kind closed at the end of the trace */
    size_t bad_durs;               /* "X" events dropped: their dur negative or not a number */
    uint64_t bad_dur_off;          /* the first one's byte */
    char bad_dur_name[64];         /* and its name */
    ml_str name_id;                /* the current event's name interned, once (event_name) */
    bool name_interned;
    bool shapes_unread;            /* the current event's name says its "Input Dims" / "Input type" are not
                                    * read (keep.no_op_shapes, and not a collective's op) */
    struct { uint8_t len; char text[CAT_CACHE_LEN]; ml_str id; } cats[CAT_CACHE]; /* cat_of()'s cache */
    unsigned cats_next;
    bool trace_only;               /* ml_kineto_trace_add: the time side only, no ops or memory */
    struct shape *shapes[SHAPES];  /* event shapes learned (fast_event), most recently used first */
    unsigned nshapes;
    struct shape *spare;           /* where the next one is recorded */
    struct shape_miss miss;        /* shaped_event(): where the last shape tried failed */
    size_t run_at;                 /* where the last run of args read (a shape's SH_RUN slot) began */
    unsigned shape_ids;            /* shapes allocated (each one's id: at most SHAPES + 1 with the spare) */
    uint32_t shape_serial;         /* shapes learned (each one's serial) */
    struct kt_runs *runs;          /* the memos of runs of args (allocated with the first shape that has one) */
    ka_index keys;                 /* kineto_args.h's rows by key length */
    struct kt_memo *memo;          /* the reader's memos of repeated text (kt_init allocates them) */
    ml_keep keep;                  /* what the import keeps (keep.h): every op? lean? */
} kineto;

static inline bool key_is(const char *k, size_t n, const char *lit, size_t lit_len)
{
    return n == lit_len && memcmp(k, lit, n) == 0;
}
#define KEY_IS(k, n, lit) key_is(k, n, lit, sizeof lit - 1)

/* The scanner's error (or the one js_fail() gave it) as the import's. */
static inline int scan_error(kineto *k) { return ml_fail(k->e, "%s", js_error(k->js)); }

/* Value readers: 1 if the value was read, 0 if it had another type or did
 * not fit (skipped), -1 on error. */
static inline int read_int(kineto *k, int64_t *out)
{
    int r = js_value_number(k->js, 0, out);
    return r == JS_NUM_RANGE ? 0 : r;
}

/* A number that must stay within ML_VALUE_LIMIT (a time in ns, a size):
 * one out of range is bad input.  `scale`: 3 reads µs (number or string,
 * 3 decimals kept exactly) as ns. */
static inline int read_bounded(kineto *k, int scale, const char *what, int64_t *out)
{
    int r = js_value_number(k->js, scale, out);
    if (r == JS_NUM_RANGE || (r == 1 && !ml_value_ok(*out)))
        return js_fail(k->js, k->e, "\"%s\" is out of range (a time or size of 2^62 or more cannot be real)", what);
    return r < 0 ? scan_error(k) : r; /* a scanner error: the caller may not report it (baseTimeNanoseconds) */
}

/* Whether the current event is a [memory] or [OutOfMemory] event. */
static inline bool is_memory_name(const kineto *k)
{
    return KEY_IS(k->name, k->name_len, "[memory]") || KEY_IS(k->name, k->name_len, "[OutOfMemory]");
}

static inline bool is_op_cat(uint8_t cat) { return cat == CAT_CPU_OP || cat == CAT_ANNOTATION || cat == CAT_PYTHON; }

/* ---- kineto_event.c ---- */

/* The event list, its '[' just read, up to its ']' (or where the file
 * ends inside it). */
int kt_read_events(kineto *k);

/* ---- kineto_cat.c ---- */

/* The fields of f that its "cat" (v, m bytes) gives: cat, and with the time
 * side skind, dev_kind and cat_id. */
void kt_set_cat(kineto *k, event_fields *f, const char *v, size_t m);

/* ---- kineto.c ---- */

/* One event read: into the profile (and the trace store).  ev_off: its
 * first byte, for messages.  0, or -1 on bad input. */
int kt_event_done(kineto *k, event_fields *f, uint64_t ev_off);
void kt_init(kineto *k, js_scanner *js, ml_profile *p, const ml_keep *keep, ml_err *e);
void kt_free(kineto *k);
/* The whole document from its first token (or, for the first half of a
 * split file, up to where that half ends). */
int kt_read_document(kineto *k);
/* The keys of the top-level object, its '{' just read (or, for the second
 * half of a split file, the keys after the event list). */
int kt_read_top_object(kineto *k);
/* After the document: the notes, the device properties, ml_profile_finish. */
int kt_finish(kineto *k, bool truncated);
void kt_note_times(kineto *k, int64_t first, int64_t last);
/* "B" ops still open at `end` closed there. */
void kt_close_open_ops(kineto *k, int64_t end);
/* A flow id ("id" of an s / f event): a number, "0x..." hex, or any other text (hashed). */
int64_t kt_flow_id(const char *s, size_t n);

/* ---- kineto_split.c ---- */

#define KT_SPLIT_MIN_BYTES ((int64_t)32 << 20)
enum { KT_SPLIT_RETRY = 1 };
/* The plain file at path (size bytes) read as two halves on two threads:
 * 0, -1 on error, or KT_SPLIT_RETRY when it must be read in one pass (p is
 * then empty again). */
int kt_import_in_two_halves(const char *path, uint64_t size, ml_profile *p, const ml_keep *keep, ml_err *e);

#endif
