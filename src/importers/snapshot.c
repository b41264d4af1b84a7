/*
 * snapshot.c — PyTorch CUDA allocator snapshots (format "torch-snapshot").
 *
 * torch.cuda.memory._dump_snapshot() pickles a dict:
 *   segments       the allocator's segments at the end, each with its blocks
 *   device_traces  per device, the ring buffer of allocator actions
 *                  (alloc, free_requested, free_completed, segment_*, oom, ...)
 *   allocator_settings, external_annotations
 * (a JSON dump of the same dict loads too).  Trace entries are streamed: the
 * pickle reader hands each entry's keys and values to on_entry() as the entry
 * is completed in its list, and it becomes one event at once, handed to an
 * event pipe (evpipe.h) whose thread stores it and, the entries being in
 * time order, matches allocs with frees while the reader goes on.  Frame lists
 * and frame dicts, shared through the memo, are turned into stack and frame
 * ids the first time they are seen (ml_pv_set_ext), so each is converted
 * once; a frame list of frames seen before becomes its stack as the reader
 * reads it (on_list()).  Their EXT numbers say which they became: 2 * frame
 * id, 2 * stack id + 1.
 *
 * Replay follows MemoryViz (process_alloc_data): allocations the trace frees
 * without having seen them (at the free's size), and blocks active_allocated
 * at the end that the trace never allocated (at their requested size, the
 * unit of the trace's sizes), were allocated before the trace began.
 * Reserved memory is replayed from the segment events back from the final
 * segments (reserved at the start = final total - net change in the trace).
 *
 * Segments, blocks and trace entries are never shared through the memo in a
 * real snapshot; shared ones would make a walk of a few KB cost millions of
 * blocks, so they are refused (on_shared() as the reader meets them,
 * read_segments() for what it let through).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "bytesize.h"
#include "evpipe.h"
#include "importer.h"
#include "phase.h"
#include "jsonvalue.h"
#include "match.h"
#include "pickle.h"
#include "pyvalue.h"

/* Keys and action names, interned once so that lookups compare ids. */
enum {
    K_ACTION, K_ADDR, K_SIZE, K_STREAM, K_TIME_US, K_FRAMES, K_DEVICE_FREE, K_COMPILE_CONTEXT,
    K_USER_METADATA, K_NAME, K_FILENAME, K_LINE, K_SEGMENTS, K_DEVICE_TRACES, K_ALLOCATOR_SETTINGS,
    K_EXTERNAL_ANNOTATIONS, K_DEVICE, K_ADDRESS, K_TOTAL_SIZE, K_ALLOCATED_SIZE, K_ACTIVE_SIZE,
    K_REQUESTED_SIZE, K_SEGMENT_TYPE, K_SEGMENT_POOL_ID, K_IS_EXPANDABLE, K_BLOCKS, K_STATE, K_STAGE,
    K_HISTORY, K_REAL_SIZE, K__COUNT
};
static const char *const key_names[K__COUNT] = {
    "action", "addr", "size", "stream", "time_us", "frames", "device_free", "compile_context",
    "user_metadata", "name", "filename", "line", "segments", "device_traces", "allocator_settings",
    "external_annotations", "device", "address", "total_size", "allocated_size", "active_size",
    "requested_size", "segment_type", "segment_pool_id", "is_expandable", "blocks", "state", "stage",
    "history", "real_size",
};

static const struct { const char *name; ml_ev_kind kind; } actions[] = {
    {"alloc", ML_EV_ALLOC},
    {"free_requested", ML_EV_FREE_REQUESTED},
    {"free_completed", ML_EV_FREE},
    {"free", ML_EV_FREE},                 /* early snapshots */
    {"segment_alloc", ML_EV_SEGMENT_ALLOC},
    {"segment_free", ML_EV_SEGMENT_FREE},
    {"segment_map", ML_EV_SEGMENT_MAP},
    {"segment_unmap", ML_EV_SEGMENT_UNMAP},
    {"snapshot", ML_EV_SNAPSHOT},
    {"oom", ML_EV_OOM},
    {"annotate", ML_EV_ANNOTATE},
    {"user_defined", ML_EV_ANNOTATE},
};
#define N_ACTIONS (sizeof actions / sizeof *actions)

#define MAX_DEVICE 4095
#define K_IGNORED (K_USER_METADATA + 1) /* an entry key that none of ours is */
#define SHAPE_MAX 16
#define N_CODED 64 /* string ids below this map to a key or action by table (ours are interned first) */

typedef struct imp {
    ml_profile *p;
    ml_pvs *st;
    const char *name;
    ml_str key[K__COUNT];
    ml_str act[N_ACTIONS];
    uint8_t key_code[N_CODED], act_code[N_CODED];    /* string id -> K_ index / action index */
    VEC(ml_pv) lists;                /* trace lists that gave events; an event's device column
                                      * holds its list's index here until finish() */
    ml_pv last_list;
    uint16_t last_list_index;
    VEC(uint32_t) frames_tmp;
    size_t no_time, unknown_actions, with_metadata, with_context; /* trace entries */
    size_t annotations, annotations_no_time;                      /* external annotations */
    ml_str unknown_example, metadata_example, context_example;
    int64_t last_stream;
    ml_str last_stream_id;
    ml_pv last_stream_word;
    /* The keys of the last entry (key words, each one's K_ index, K_IGNORED for
     * others): the next entry mostly has the same ones in the same order. */
    size_t shape_n;
    ml_pv shape_key[SHAPE_MAX];
    uint8_t shape_idx[SHAPE_MAX];
    unsigned shape_has;
    /* Schema checks (see "What memlens rejects" in the README): violations in
     * segments and blocks stop the run, bad trace entries are skipped and
     * counted; each keeps its first, as text. */
    size_t schema_n;
    char schema_first[320];
    size_t skipped_n;
    char skipped_first[320];         /* "size: expected ..., got ..." */
    size_t skipped_list;             /* the first skipped entry's list (index in lists) and its place there */
    size_t skipped_pos;
    VEC(size_t) list_n;              /* entries seen so far per list of lists: the next one's place */
    int64_t bytes_moved;             /* sum of the trace entries' sizes: kept below ML_VALUE_LIMIT */
    ml_evpipe *pipe;                 /* stores (and matches) the events on a second thread while reading */
    bool again;                      /* lean, and the pipe gave up: read again without (ML_IMPORT_AGAIN) */
    const ml_keep *keep;             /* what the import keeps (keep.h) */
} imp;

static ml_str str_or0(imp *im, ml_pv v) { return ml_pv_str_or(v, 0); }

/* The stream's text; the last entry's stream (mostly the one) inline. */
static ml_str stream_text_slow(imp *im, ml_pv v);
static inline ml_str stream_text(imp *im, ml_pv v)
{
    return v == im->last_stream_word && im->last_stream_id ? im->last_stream_id : stream_text_slow(im, v);
}

static __attribute__((noinline)) ml_str stream_text_slow(imp *im, ml_pv v)
{
    int64_t s = ml_pv_int_or(im->st, v, INT64_MIN);
    if (s == INT64_MIN && ml_pv_int(im->st, v, &s) < 0) return str_or0(im, v);
    if (s != im->last_stream || !im->last_stream_id) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRId64, s);
        im->last_stream = s;
        im->last_stream_id = ml_intern_cstr(im->p->strings, buf);
    }
    im->last_stream_word = v; /* an int's word: the same word, the same number */
    return im->last_stream_id;
}

/* Frame id of a frame dict {name, filename, line} (or a bare string), converting it once.
 * (Out of line: stack_of()'s loop meets each frame dict here once, then as an EXT word.) */
static __attribute__((noinline)) uint32_t frame_of(imp *im, ml_pv f)
{
    uint32_t id;
    int64_t ext = ml_pv_ext_or(im->st, f, -1);
    if (ext >= 0) return ext & 1 ? ML_NONE32 : (uint32_t)(ext >> 1); /* converted before */
    ml_pv_type t = ml_pv_type_of(im->st, f);
    if (t == ML_PV_STR) return ml_frame_get(im->p, str_or0(im, f), 0, -1);
    if (t != ML_PV_DICT) return ML_NONE32;
    ml_str name = 0, file = 0;
    int64_t line = -1;
    size_t n = ml_pv_len(im->st, f);
    for (size_t i = 0; i < n; i++) {
        ml_pv k = ml_pv_item(im->st, f, i), v = ml_pv_dict_value(im->st, f, i);
        ml_str ks;
        if (ml_pv_str(im->st, k, &ks) < 0) continue;
        if (ks == im->key[K_NAME]) name = str_or0(im, v);
        else if (ks == im->key[K_FILENAME]) file = str_or0(im, v);
        else if (ks == im->key[K_LINE] && ml_pv_int(im->st, v, &line) == 0) {
            if (line <= 0 || line > INT32_MAX) line = -1; /* PyTorch writes 0 for "unknown" */
        }
    }
    /* C++ frames say "??" or "" where the file is unknown. */
    const char *fs = ml_s(im->p, file);
    if (fs[0] == 0 || strcmp(fs, "??") == 0) file = 0;
    id = ml_frame_get(im->p, name, file, (int32_t)line);
    if (id <= INT32_MAX) ml_pv_set_ext(im->st, f, id * 2);
    return id;
}

/* Frame ids of items that are all frames seen before (EXT words of 2 * frame
 * id, which the reader settled) into im->frames_tmp, and their stack hash
 * (ml_stack_get_hashed), in one branch-free pass; -1 if any is not a frame.
 * Two items per step: with SSE2, one 16-byte load does both. */
static int known_frames(imp *im, const ml_pv *items, size_t n, uint64_t *hash)
{
    VEC_RESERVE(&im->frames_tmp, n);
    uint32_t *out = im->frames_tmp.v;
    uint64_t odd = 0, h = n; /* odd: the low 5 bits of each v ^ EXT: tag and the payload's low bit */
    size_t i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
    __m128i acc = _mm_setzero_si128(), ext = _mm_set1_epi64x(ML_PV_TAG_EXT);
    for (; i + 2 <= n; i += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(items + i));
        acc = _mm_or_si128(acc, _mm_xor_si128(v, ext));
        /* the two ids, v >> 5, as 32-bit words side by side */
        __m128i ids = _mm_shuffle_epi32(_mm_srli_epi64(v, 5), _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storel_epi64((__m128i *)(void *)(out + i), ids);
        h = ml_stack_hash_step(h, (uint64_t)_mm_cvtsi128_si64(ids));
    }
    odd = (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(acc, _mm_unpackhi_epi64(acc, acc)));
#else
    for (; i + 2 <= n; i += 2) {
        ml_pv v = items[i], w = items[i + 1];
        odd |= (v ^ ML_PV_TAG_EXT) | (w ^ ML_PV_TAG_EXT);
        out[i] = (uint32_t)(v >> 5);
        out[i + 1] = (uint32_t)(w >> 5);
        h = ml_stack_hash_step(h, out[i] | (uint64_t)out[i + 1] << 32);
    }
#endif
    if (i < n) {
        odd |= items[i] ^ ML_PV_TAG_EXT;
        out[i] = (uint32_t)(items[i] >> 5);
        h = ml_stack_hash_step(h, out[i]);
    }
    *hash = ml_stack_hash_end(h);
    return odd & 31 ? -1 : 0;
}

/* The reader's list hook: a list of frames seen before becomes its stack as
 * it is read (most frame lists, once the frames have been seen). */
static int64_t on_list(void *user, const ml_pv *items, size_t n)
{
    imp *im = user;
    uint64_t hash;
    if (!n) return -1; /* an empty list stays one (a blocks list or device_traces may be empty) */
    if (known_frames(im, items, n, &hash) < 0) return -1;
    uint32_t id = ml_stack_get_hashed(im->p, im->frames_tmp.v, n, hash);
    return id <= INT32_MAX ? (int64_t)id * 2 + 1 : -1;
}

/* Stack id of a frame list (innermost first, as PyTorch writes it), converting it once. */
static uint32_t stack_of_slow(imp *im, ml_pv list);
static inline uint32_t stack_of(imp *im, ml_pv list)
{
    /* a frame list the reader already turned into its stack (nearly every one): its immediate EXT word */
    if (ML_PV_TAG(list) == ML_PV_TAG_EXT && (list >> 4 & 1)) return (uint32_t)(list >> 5);
    return stack_of_slow(im, list);
}

static __attribute__((noinline)) uint32_t stack_of_slow(imp *im, ml_pv list)
{
    int64_t ext = ml_pv_ext_or(im->st, list, -1);
    if (ext >= 0) return ext & 1 ? (uint32_t)(ext >> 1) : 0; /* converted before (or a frame: no stack) */
    const ml_pv_cont *c = ml_pv_cont_of(im->st, list);
    ml_pv_type t = ml_pv_cont_type(c);
    if (t != ML_PV_LIST && t != ML_PV_TUPLE) return 0;
    size_t n = c->len, k;
    const ml_pv *items = c->items;
    uint64_t hash;
    uint32_t id;
    if (known_frames(im, items, n, &hash) == 0) {
        id = ml_stack_get_hashed(im->p, im->frames_tmp.v, n, hash);
    } else {
        for (size_t i = k = 0; i < n; i++) {
            /* (frame_of() converts, which never moves this list's items) */
            uint32_t f = frame_of(im, items[i]);
            if (f != ML_NONE32) im->frames_tmp.v[k++] = f;
        }
        id = ml_stack_get(im->p, im->frames_tmp.v, k);
    }
    if (id <= INT32_MAX) ml_pv_set_ext(im->st, list, id * 2 + 1);
    return id;
}

static int64_t int_or(imp *im, ml_pv v, int64_t dflt) { return ml_pv_int_or(im->st, v, dflt); }

static int nonempty(imp *im, ml_pv v)
{
    ml_pv_type t = ml_pv_type_of(im->st, v);
    if (t == ML_PV_NONE) return 0;
    if (t == ML_PV_STR) return ml_strlen(im->p->strings, str_or0(im, v)) > 0;
    if (t >= ML_PV_LIST && t <= ML_PV_FROZENSET) return ml_pv_len(im->st, v) > 0;
    return 1;
}

/* ---- schema checks ---------------------------------------------------- */

static int ext_text(void *user, uint32_t ext, char *buf, size_t cap);

/* "PATH: expected WHAT, got REPR" (or "PATH: missing (expected WHAT)") into buf. */
static void describe(imp *im, char *buf, size_t cap, const char *path, const char *what, const ml_pv *got)
{
    if (!got) {
        snprintf(buf, cap, "%s: missing (expected %s)", path, what);
        return;
    }
    char repr[80];
    ml_pv_repr_ext(im->st, *got, ext_text, im, repr, sizeof repr);
    for (char *c = repr; *c; c++) /* messages are one line */
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    snprintf(buf, cap, "%s: expected %s, got %s", path, what, repr);
}

/* A schema violation in segments or blocks: counted, the first kept. */
static void schema_bad(imp *im, const char *path, const char *what, const ml_pv *got)
{
    if (!im->schema_n++) describe(im, im->schema_first, sizeof im->schema_first, path, what, got);
}

/* Whether v is an integer in [0, limit): *out = it; else what it should be. */
static bool uint_ok_slow(imp *im, ml_pv v, int64_t limit, int64_t *out, const char **what);
static inline bool uint_ok(imp *im, ml_pv v, int64_t limit, int64_t *out, const char **what)
{
    /* an int in the word (nearly every one) */
    if (ML_PV_TAG(v) == ML_PV_TAG_INT && (int64_t)v >= 0 && (int64_t)v >> 4 < limit) {
        *out = (int64_t)v >> 4;
        return true;
    }
    return uint_ok_slow(im, v, limit, out, what);
}

static __attribute__((noinline)) bool uint_ok_slow(imp *im, ml_pv v, int64_t limit, int64_t *out, const char **what)
{
    int64_t x;
    ml_pv_type t = ml_pv_type_of(im->st, v);
    bool is_int = t == ML_PV_INT && ml_pv_int(im->st, v, &x) == 0;
    if (is_int && x >= 0 && x < limit) {
        *out = x;
        return true;
    }
    bool too_big = (is_int && x >= limit) || (t == ML_PV_BIGINT && ml_pv_bigint_sign(im->st, v) > 0);
    *what = !too_big ? "a non-negative integer"
          : limit == ML_VALUE_LIMIT ? "a non-negative integer below 2^62"
          : limit == MAX_DEVICE + 1 ? "a device number below 4096" : "a non-negative 64-bit integer";
    return false;
}

/* dict[key], a non-negative integer below limit: 1 read into *out, 0 absent
 * (and !required), -1 a violation (recorded at "PREFIX.key"). */
static int seg_uint(imp *im, const char *prefix, ml_pv dict, int key, bool required, int64_t limit, int64_t *out)
{
    ml_pv v;
    const char *what = "a non-negative integer";
    char path[96];
    snprintf(path, sizeof path, "%s.%s", prefix, key_names[key]);
    if (ml_pv_dict_get(im->st, dict, im->key[key], &v) != 0) {
        if (!required) return 0;
        schema_bad(im, path, what, NULL);
        return -1;
    }
    if (uint_ok(im, v, limit, out, &what)) return 1;
    schema_bad(im, path, what, &v);
    return -1;
}

/* A trace entry with an impossible field: skipped, counted, the first kept. */
static int entry_bad(imp *im, int list, size_t pos, int key, const char *what, const ml_pv *got)
{
    if (!im->skipped_n++) {
        describe(im, im->skipped_first, sizeof im->skipped_first, key_names[key], what, got);
        im->skipped_list = (size_t)list;
        im->skipped_pos = pos;
    }
    return 1; /* taken: the reader drops it */
}

/* The K_ index of an interned key, K__COUNT if it is none of ours. */
static unsigned key_index(const imp *im, ml_str ks)
{
    if (ks < N_CODED) return im->key_code[ks];
    unsigned k = 0;
    while (k < K__COUNT && im->key[k] != ks) k++;
    return k;
}

/* The index in actions[] of an interned action name, N_ACTIONS if none. */
static unsigned action_index(const imp *im, ml_str as)
{
    if (as < N_CODED) return im->act_code[as];
    unsigned k = 0;
    while (k < N_ACTIONS && im->act[k] != as) k++;
    return k;
}

/* The index of a trace list in im->lists (a device's list, mostly the last one). */
static int list_index(imp *im, ml_pv list, ml_err *e)
{
    if (list == im->last_list && im->lists.len) return im->last_list_index;
    size_t i = 0;
    while (i < im->lists.len && im->lists.v[i] != list) i++;
    if (i == im->lists.len) {
        /* device_traces holds one list per device, and devices are 0..MAX_DEVICE */
        if (i > MAX_DEVICE) return ml_fail(e, "%s: trace entries in more than %d lists", im->name, MAX_DEVICE + 1);
        VEC_PUSH(&im->lists, list);
        VEC_PUSH(&im->list_n, 0);
    }
    im->last_list = list;
    im->last_list_index = (uint16_t)i;
    return (int)i;
}

/* The record hook: a dict with an "action" in a list is a trace entry; it
 * becomes an event and the reader frees it (most are taken as SETITEMS
 * completes them, from the reader's stack).  Everything else stays. */
static int on_entry(void *user, ml_pvs *st, ml_pv list, const ml_pv *kv, size_t n, ml_err *e)
{
    imp *im = user;
    /* The values of our keys (the last wins, as in Python); val[K_IGNORED] takes the others'. */
    ml_pv val[K_IGNORED + 1];
    unsigned has = 0;
    size_t i = 0;
    /* The same key words as the last entry, in the same order?  Each value
     * goes to its place as its key is compared (one pass); if a key differs,
     * the loop below places them all again. */
    if (n == im->shape_n)
        for (; i < n && kv[2 * i] == im->shape_key[i]; i++) val[im->shape_idx[i]] = kv[2 * i + 1];
    if (i == n && n) {
        has = im->shape_has;
    } else {
        for (i = 0; i < n; i++) {
            unsigned k = ML_PV_TAG(kv[2 * i]) == ML_PV_TAG_STR ? key_index(im, (ml_str)(kv[2 * i] >> 4)) : K_IGNORED;
            if (k > K_IGNORED) k = K_IGNORED;
            val[k] = kv[2 * i + 1];
            if (k != K_IGNORED) has |= 1u << k;
            if (i < SHAPE_MAX) { im->shape_key[i] = kv[2 * i]; im->shape_idx[i] = (uint8_t)k; }
        }
        im->shape_n = n <= SHAPE_MAX ? n : 0;
        im->shape_has = has;
    }
#define HAS(k) (has & (1u << (k)))
    if (!HAS(K_ACTION)) return 0;
    int li = list_index(im, list, e);
    if (li < 0) return -1;
    size_t pos = im->list_n.v[li]++;
    ml_str as = ml_pv_str_or(val[K_ACTION], ML_NONE32);
    if (as == ML_NONE32 || ML_PV_TAG(val[K_ACTION]) != ML_PV_TAG_STR)
        return entry_bad(im, li, pos, K_ACTION, "an action name (a string)", &val[K_ACTION]);
    size_t k = action_index(im, as);
    if (k == N_ACTIONS) {
        if (!im->unknown_actions++) im->unknown_example = as;
        return 1;
    }
    ml_event ev = {.ts = ML_TIME_NONE, .thread = ML_NONE32, .kind = (uint8_t)actions[k].kind};
    /* The fields replay uses: addresses and sizes of allocator actions are
     * required, every one present must be a number that can be real. */
    bool memory = ev.kind != ML_EV_OOM && ev.kind != ML_EV_SNAPSHOT && ev.kind != ML_EV_ANNOTATE;
    const char *what = "a non-negative integer";
    int64_t x;
    if (HAS(K_ADDR)) {
        if (!uint_ok(im, val[K_ADDR], INT64_MAX, &x, &what)) return entry_bad(im, li, pos, K_ADDR, what, &val[K_ADDR]);
        ev.addr = (uint64_t)x;
    } else if (memory) return entry_bad(im, li, pos, K_ADDR, what, NULL);
    if (HAS(K_SIZE)) {
        if (!uint_ok(im, val[K_SIZE], ML_VALUE_LIMIT, &ev.size, &what))
            return entry_bad(im, li, pos, K_SIZE, what, &val[K_SIZE]);
    } else if (memory || ev.kind == ML_EV_OOM) return entry_bad(im, li, pos, K_SIZE, what, NULL);
    int64_t us = INT64_MIN;
    if (HAS(K_TIME_US) && ML_PV_TAG(val[K_TIME_US]) == ML_PV_TAG_INT) us = (int64_t)val[K_TIME_US] >> 4; /* (the common case) */
    else if (HAS(K_TIME_US) && (ml_pv_type_of(im->st, val[K_TIME_US]) != ML_PV_INT || ml_pv_int(im->st, val[K_TIME_US], &us) < 0))
        us = ML_VALUE_LIMIT; /* (not an int: refused below) */
    if (us != INT64_MIN && (us <= -ML_VALUE_LIMIT / 1000 || us >= ML_VALUE_LIMIT / 1000))
        return entry_bad(im, li, pos, K_TIME_US, "an integer number of microseconds below 2^62 ns", &val[K_TIME_US]);
    if (HAS(K_DEVICE_FREE) && !uint_ok(im, val[K_DEVICE_FREE], ML_VALUE_LIMIT, &x, &what))
        return entry_bad(im, li, pos, K_DEVICE_FREE, what, &val[K_DEVICE_FREE]);
    if (memory) { /* sizes add up in every analysis: keep their sum in range */
        im->bytes_moved += ev.size;
        if (im->bytes_moved >= ML_VALUE_LIMIT)
            return ml_fail(e, "trace entries: sizes add up to 2^62 bytes or more (not a real snapshot)");
    }
    ev.device = (uint16_t)li;
    if (ev.kind == ML_EV_OOM) ev.aux = -1;
    if (HAS(K_STREAM)) ev.stream = stream_text(im, val[K_STREAM]);
    if (us != INT64_MIN) ev.ts = us * 1000;
    else im->no_time++;
    if (HAS(K_FRAMES)) ev.stack = stack_of(im, val[K_FRAMES]);
    if (HAS(K_DEVICE_FREE)) ev.aux = int_or(im, val[K_DEVICE_FREE], -1);
    ml_pv metadata = ML_PV_NONE_V;
    if (HAS(K_USER_METADATA) && nonempty(im, val[K_USER_METADATA])) {
        metadata = val[K_USER_METADATA];
        if (!im->with_metadata++) im->metadata_example = str_or0(im, metadata);
    }
    if (HAS(K_COMPILE_CONTEXT) && nonempty(im, val[K_COMPILE_CONTEXT]))
        if (!im->with_context++) im->context_example = str_or0(im, val[K_COMPILE_CONTEXT]);
#undef HAS
    if (ev.kind == ML_EV_ANNOTATE) ev.aux = str_or0(im, metadata);
    ml_evpipe_push(im->pipe, &ev);
    if (im->p->lean && ml_evpipe_failed(im->pipe)) { /* out of time order: stop, read again */
        im->again = true;
        return -1;
    }
    return 1;
}

/* The keys of a dict as a mask of K_ bits (bit 31 for keys of no K_); 0 if v is no dict. */
#define OTHER_KEY 31u
_Static_assert(K__COUNT <= OTHER_KEY, "a key mask has a bit per key");
static unsigned key_mask(const imp *im, const ml_pvs *st, ml_pv v)
{
    const ml_pv_cont *c = ml_pv_cont_as(st, v, ML_PV_DICT);
    unsigned mask = 0;
    for (uint32_t i = 0; c && i < c->len; i += 2) {
        unsigned k = ML_PV_TAG(c->items[i]) == ML_PV_TAG_STR ? key_index(im, (ml_str)(c->items[i] >> 4)) : K__COUNT;
        mask |= 1u << (k < K__COUNT ? k : OTHER_KEY);
    }
    return mask;
}

/* Keys that only segments, blocks and trace entries have; the keys of a frame. */
#define RECORD_KEYS (1u << K_ACTION | 1u << K_BLOCKS | 1u << K_TOTAL_SIZE | 1u << K_STATE)
#define FRAME_KEYS (1u << K_NAME | 1u << K_FILENAME | 1u << K_LINE)

/* The reader's shared hook: frames and frame lists are shared through the
 * memo, segments, blocks and trace entries never are.  A shared one would be
 * walked once per reference (segments=[seg]*N with blocks=[blk]*M: N*M blocks
 * from a few bytes), so it is refused.  (A list is judged by its first items:
 * read_segments() catches the rest.)  A frame dict met again is converted to
 * its frame id now, so that its later references are plain numbers. */
static int on_shared(void *user, const ml_pvs *st, ml_pv v, ml_err *e)
{
    imp *im = user;
    const ml_pv_cont *c = ml_pv_cont_of(st, v);
    ml_pv_type t = ml_pv_cont_type(c);
    unsigned mask = key_mask(im, st, v);
    if (mask && !(mask & ~FRAME_KEYS)) {
        frame_of(im, v);
        return 0;
    }
    bool list = t == ML_PV_LIST || t == ML_PV_TUPLE, refuse = (mask & RECORD_KEYS) != 0;
    for (uint32_t i = 0; list && i < c->len && i < 4 && !refuse; i++)
        refuse = (key_mask(im, st, c->items[i]) & RECORD_KEYS) != 0;
    if (!refuse) return 0;
    return ml_fail(e, "a %s referenced a second time (shared through the pickle memo): real snapshots never "
                      "share segments, blocks or trace entries (hostile pickle?)",
                   list ? "list of segments, blocks or trace entries" : "segment, block or trace entry dict");
}

/* The same for the JSON reader, which offers the dict itself. */
static int on_entry_dict(void *user, ml_pvs *st, ml_pv list, ml_pv item, ml_err *e)
{
    const ml_pv_cont *c = ml_pv_cont_of(st, item);
    return on_entry(user, st, list, c->items, c->len / 2, e);
}

/* ---- after the whole value is read ------------------------------------ */

static int get(imp *im, ml_pv dict, int key, ml_pv *out) { return ml_pv_dict_get(im->st, dict, im->key[key], out); }

static int64_t get_int(imp *im, ml_pv dict, int key, int64_t dflt)
{
    ml_pv v;
    return get(im, dict, key, &v) == 0 ? int_or(im, v, dflt) : dflt;
}

/* A block's state: one of the allocator's three names (a violation else). */
static int block_state(imp *im, ml_pv b, const char *at)
{
    ml_pv v;
    static const char want[] = "'active_allocated', 'active_pending_free' or 'inactive'";
    char path[128];
    snprintf(path, sizeof path, "%s.state", at);
    if (get(im, b, K_STATE, &v) != 0) {
        schema_bad(im, path, want, NULL);
        return ML_BLOCK_INACTIVE;
    }
    const char *s = ML_PV_TAG(v) == ML_PV_TAG_STR ? ml_s(im->p, str_or0(im, v)) : "";
    if (strcmp(s, "active_allocated") == 0) return ML_BLOCK_ACTIVE_ALLOCATED;
    if (strcmp(s, "active_pending_free") == 0) return ML_BLOCK_ACTIVE_PENDING_FREE;
    if (strcmp(s, "inactive") != 0) schema_bad(im, path, want, &v);
    return ML_BLOCK_INACTIVE;
}

/* A frame as the snapshot wrote it ({'name': ..., 'filename': ..., 'line': ...}). */
static int frame_dict_text(const ml_profile *p, uint32_t id, char *buf, size_t cap)
{
    if (id >= p->frames.len) return -1;
    const ml_frame *f = &p->frames.v[id];
    return snprintf(buf, cap, "{'name': '%s', 'filename': '%s', 'line': %d}", ml_s(p, f->name),
                    f->file ? ml_s(p, f->file) : "??", f->line > 0 ? f->line : 0);
}

/* ml_pv_repr_ext()'s text of a frame or frame list converted to its id
 * (frame_of, stack_of): shared with other values, it reads as it was. */
static int ext_text(void *user, uint32_t ext, char *buf, size_t cap)
{
    const ml_profile *p = ((imp *)user)->p;
    if (!(ext & 1)) return frame_dict_text(p, ext >> 1, buf, cap);
    uint32_t stack = ext >> 1;
    if (stack && stack >= p->stack_start.len) return -1;
    size_t depth = ml_stack_depth(p, stack), w = 0;
    const uint32_t *fr = ml_stack_frames(p, stack);
    w += (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < depth && w < cap; i++) {
        if (i) w += (size_t)snprintf(buf + w, cap - w, ", ");
        if (w >= cap) break;
        int k = frame_dict_text(p, fr[i], buf + w, cap - w);
        w += k > 0 ? (size_t)k : 0;
    }
    if (w < cap) snprintf(buf + w, cap - w, "]");
    return 0;
}

/* A segment, a blocks list or a block read before is met again (shared in a
 * way on_shared() did not see): refused rather than walked again. */
static int shared_again(imp *im, const char *what, size_t seg, ml_err *e)
{
    return ml_fail(e, "%s: %s of segment %zu was read before (shared through the pickle memo): real snapshots "
                      "never share segments or blocks (hostile pickle?)", im->name, what, seg);
}

/* Segments and their blocks into the model.  Sizes a snapshot leaves out
 * (older versions) are summed from the blocks.  Each segment, blocks list
 * and block is dropped from the store once read, so that one met twice is
 * refused: the walk costs no more than the file's values. */
static int read_segments(imp *im, ml_pv segs, uint16_t *dev_of, ml_err *e)
{
    ml_profile *p = im->p;
    size_t n = ml_pv_len(im->st, segs);
    int64_t reserved = 0;
    for (size_t i = 0; i < n; i++) {
        ml_pv s = ml_pv_item(im->st, segs, i), v, blocks;
        char at[64], bat[96];
        snprintf(at, sizeof at, "segments[%zu]", i);
        if (ml_pv_is_dropped(im->st, s)) return shared_again(im, "the dict", i, e);
        if (ml_pv_type_of(im->st, s) != ML_PV_DICT) {
            schema_bad(im, at, "a segment dict", &s);
            continue;
        }
        ml_segment seg = {0};
        int64_t dev = 0, x;
        if (seg_uint(im, at, s, K_TOTAL_SIZE, true, ML_VALUE_LIMIT, &seg.total_size) > 0) {
            reserved += seg.total_size;
            if (reserved >= ML_VALUE_LIMIT) {
                schema_bad(im, at, "segment sizes that add up to less than 2^62", NULL);
                reserved = 0;
            }
        }
        if (seg_uint(im, at, s, K_ADDRESS, true, INT64_MAX, &x) > 0) seg.address = (uint64_t)x;
        if (seg_uint(im, at, s, K_DEVICE, false, MAX_DEVICE + 1, &dev) < 0) dev = 0;
        seg.device = dev_of[dev];
        if (get(im, s, K_STREAM, &v) == 0) seg.stream = stream_text(im, v);
        if (get(im, s, K_SEGMENT_TYPE, &v) == 0) seg.segment_type = str_or0(im, v);
        if (get(im, s, K_SEGMENT_POOL_ID, &v) == 0) {
            char buf[128];
            ml_pv_repr_ext(im->st, v, ext_text, im, buf, sizeof buf);
            seg.pool_id = ml_intern_cstr(p->strings, buf);
        }
        seg.is_expandable = get_int(im, s, K_IS_EXPANDABLE, 0) != 0;
        if (get(im, s, K_FRAMES, &v) == 0) seg.stack = stack_of(im, v);
        seg.first_block = (uint32_t)p->blocks.len;
        int64_t allocated = 0, active = 0, requested = 0;
        uint64_t addr = seg.address;
        bool has_blocks = get(im, s, K_BLOCKS, &blocks) == 0;
        if (has_blocks && ml_pv_is_dropped(im->st, blocks)) return shared_again(im, "the blocks list", i, e);
        ml_pv_type bt = has_blocks ? ml_pv_type_of(im->st, blocks) : ML_PV_NONE;
        if (bt != ML_PV_LIST && bt != ML_PV_TUPLE) {
            snprintf(bat, sizeof bat, "%s.blocks", at);
            schema_bad(im, bat, "a list of blocks", has_blocks ? &blocks : NULL);
        } else {
            size_t nb = ml_pv_len(im->st, blocks);
            for (size_t j = 0; j < nb; j++) {
                ml_pv b = ml_pv_item(im->st, blocks, j);
                if (ml_pv_is_dropped(im->st, b)) return shared_again(im, "a block", i, e);
                snprintf(bat, sizeof bat, "%s.blocks[%zu]", at, j);
                if (ml_pv_type_of(im->st, b) != ML_PV_DICT) {
                    schema_bad(im, bat, "a block dict", &b);
                    continue;
                }
                ml_block blk = {0};
                if (seg_uint(im, bat, b, K_SIZE, true, ML_VALUE_LIMIT, &blk.size) < 0) blk.size = 0;
                /* old snapshots: no addresses, blocks are back to back */
                blk.address = seg_uint(im, bat, b, K_ADDRESS, false, INT64_MAX, &x) > 0 ? (uint64_t)x : addr;
                if (seg_uint(im, bat, b, K_REQUESTED_SIZE, false, ML_VALUE_LIMIT, &blk.requested_size) <= 0)
                    blk.requested_size = -1;
                blk.state = (uint8_t)block_state(im, b, bat);
                if (get(im, b, K_FRAMES, &v) == 0) blk.stack = stack_of(im, v);
                else if (get(im, b, K_HISTORY, &v) == 0 && ml_pv_len(im->st, v) > 0) {
                    /* older snapshots: the block's allocation history, the latest first */
                    ml_pv h = ml_pv_item(im->st, v, 0);
                    if (get(im, h, K_FRAMES, &v) == 0) blk.stack = stack_of(im, v);
                    if (blk.requested_size < 0) {
                        char hat[128];
                        snprintf(hat, sizeof hat, "%s.history[0]", bat);
                        if (seg_uint(im, hat, h, K_REAL_SIZE, false, ML_VALUE_LIMIT, &x) > 0) blk.requested_size = x;
                    }
                }
                if (blk.requested_size < 0) blk.requested_size = blk.size;
                blk.segment = (uint32_t)p->segments.len;
                addr = blk.address + (uint64_t)blk.size;
                if (blk.state == ML_BLOCK_ACTIVE_ALLOCATED) { allocated += blk.size; requested += blk.requested_size; }
                if (blk.state != ML_BLOCK_INACTIVE) active += blk.size;
                if (allocated >= ML_VALUE_LIMIT || requested >= ML_VALUE_LIMIT || active >= ML_VALUE_LIMIT) {
                    schema_bad(im, bat, "block sizes that add up to less than 2^62", NULL);
                    allocated = active = requested = 0;
                }
                VEC_PUSH(&p->blocks, blk);
                ml_pv_drop(im->st, b);
            }
            ml_pv_drop(im->st, blocks);
        }
        seg.n_blocks = (uint32_t)(p->blocks.len - seg.first_block);
        /* Sizes a snapshot leaves out (older versions) are the blocks' sums. */
        if (seg_uint(im, at, s, K_ALLOCATED_SIZE, false, ML_VALUE_LIMIT, &seg.allocated_size) <= 0) seg.allocated_size = allocated;
        if (seg_uint(im, at, s, K_ACTIVE_SIZE, false, ML_VALUE_LIMIT, &seg.active_size) <= 0) seg.active_size = active;
        if (seg_uint(im, at, s, K_REQUESTED_SIZE, false, ML_VALUE_LIMIT, &seg.requested_size) <= 0) seg.requested_size = requested;
        VEC_PUSH(&p->segments, seg);
        ml_pv_drop(im->st, s);
    }
    return 0;
}

/* The device number of list item i of device_traces, of each segment, of each annotation. */
static int add_device(imp *im, int64_t d, uint8_t *seen, ml_err *e)
{
    if (d < 0 || d > MAX_DEVICE) return ml_fail(e, "%s: device %" PRId64 " is out of range (0..%d)", im->name, d, MAX_DEVICE);
    seen[d] = 1;
    return 0;
}

/* Reserved bytes per device, replayed from the segment events back from the final segments. */
static void reserved_series(imp *im, size_t n_dev_ids, const uint16_t *dev_of, const uint8_t *seen)
{
    ml_profile *p = im->p;
    ml_events *ev = &p->events;
    /* The segment events, few among a gigabyte snapshot's 9M: found once, by kind alone. */
    VEC(uint32_t) seg = {0};
    _Static_assert(ML_EV_SEGMENT_FREE == ML_EV_SEGMENT_ALLOC + 1 && ML_EV_SEGMENT_MAP == ML_EV_SEGMENT_ALLOC + 2 &&
                       ML_EV_SEGMENT_UNMAP == ML_EV_SEGMENT_ALLOC + 3, "segment kinds are contiguous");
    for (size_t i = 0; i < ev->ts.len; i++)
        if ((uint8_t)(ev->kind.v[i] - ML_EV_SEGMENT_ALLOC) < 4) VEC_PUSH(&seg, (uint32_t)i);
    for (size_t d = 0; d < n_dev_ids; d++) {
        if (!seen[d]) continue;
        uint16_t dev = dev_of[d];
        int64_t final_total = 0, net = 0, t0 = ML_TIME_NONE;
        for (size_t i = 0; i < p->segments.len; i++)
            if (p->segments.v[i].device == dev) final_total += p->segments.v[i].total_size;
        /* the device's first event: with one device, the first of all */
        bool all = ml_only_device(p, dev);
        for (size_t i = 0; i < ev->ts.len && t0 == ML_TIME_NONE; i++)
            if (all || ev->device.v[i] == dev) t0 = ev->ts.v[i];
        for (size_t j = 0; j < seg.len; j++) {
            size_t i = seg.v[j];
            if (ev->device.v[i] != dev) continue;
            uint8_t k = ev->kind.v[i];
            net += k == ML_EV_SEGMENT_ALLOC || k == ML_EV_SEGMENT_MAP ? ev->size.v[i] : -ev->size.v[i];
        }
        int64_t reserved = final_total - net;
        if (reserved < 0) {
            ml_note(p, "%s: the trace frees more segment memory than the final segments explain; "
                       "reserved memory before the trace taken as 0", p->devices.v[dev].id);
            reserved = 0;
        }
        ml_series *s = ml_series_get(p, dev, ML_SERIES_RESERVED, 0, 0);
        ml_series_push(s, t0 == ML_TIME_NONE ? 0 : t0, reserved);
        for (size_t j = 0; j < seg.len; j++) {
            size_t i = seg.v[j];
            if (ev->device.v[i] != dev) continue;
            uint8_t k = ev->kind.v[i];
            reserved += k == ML_EV_SEGMENT_ALLOC || k == ML_EV_SEGMENT_MAP ? ev->size.v[i] : -ev->size.v[i];
            ml_series_push_event(s, ev->ts.v[i], reserved, (uint32_t)i);
        }
    }
    VEC_FREE(&seg);
}

/* Blocks allocated at the end (active_allocated) that the trace never
 * allocated were allocated before it began: they become never-freed
 * lifetimes at their requested size, the unit of the trace's own sizes (as
 * MemoryViz's process_alloc_data counts them).  Blocks freed but waiting for
 * their streams (active_pending_free) are not allocated memory there: they
 * are only counted in a note. */
static void blocks_before_trace(imp *im)
{
    ml_profile *p = im->p;
    ml_allocs *a = &p->allocs;
    size_t n_open = 0;
    for (size_t i = 0; i < a->flags.len; i++) n_open += (a->flags.v[i] & ML_ALLOC_NEVER_FREED) != 0;
    /* A small open-addressing set of (device, addr) of the allocations still live at the end. */
    size_t cap = 16;
    while (cap < n_open * 2 + 2) cap *= 2;
    uint64_t *keys = ml_calloc(cap, sizeof *keys);
    uint8_t *used = ml_calloc(cap, 1);
    for (size_t i = 0; i < a->flags.len; i++) {
        if (!(a->flags.v[i] & ML_ALLOC_NEVER_FREED)) continue;
        uint64_t k = a->addr.v[i] ^ ((uint64_t)a->device.v[i] << 52);
        size_t j = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
        while (used[j] && keys[j] != k) j = (j + 1) & (cap - 1);
        used[j] = 1;
        keys[j] = k;
    }
    size_t added = 0, pending = 0;
    int64_t bytes = 0, pending_bytes = 0;
    for (size_t b = 0; b < p->blocks.len; b++) {
        ml_block *blk = &p->blocks.v[b];
        if (blk->state == ML_BLOCK_INACTIVE) continue;
        ml_segment *seg = &p->segments.v[blk->segment];
        uint64_t k = blk->address ^ ((uint64_t)seg->device << 52);
        size_t j = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
        while (used[j] && keys[j] != k) j = (j + 1) & (cap - 1);
        if (used[j]) continue;
        if (blk->state == ML_BLOCK_ACTIVE_PENDING_FREE) {
            pending++;
            pending_bytes += blk->size;
            continue;
        }
        ml_alloc_row row = {
            .t_alloc = ML_TIME_NONE, .t_free = ML_TIME_END, .t_free_req = ML_TIME_END,
            .size = blk->requested_size, .addr = blk->address, .ev_alloc = ML_NONE32, .ev_free = ML_NONE32,
            .thread = ML_NONE32, .stack = blk->stack, .stream = seg->stream, .device = seg->device,
            .flags = ML_ALLOC_BEFORE_TRACE | ML_ALLOC_NEVER_FREED,
        };
        ml_alloc_push(p, &row);
        added++;
        bytes += blk->requested_size;
    }
    free(keys);
    free(used);
    char size[32];
    if (added)
        ml_note(p, "%zu block%s allocated at the end (%s requested) never allocated in the trace: "
                   "counted as allocated before it began", added, added == 1 ? "" : "s", ml_fmt_bytes(bytes, size, sizeof size));
    if (pending)
        ml_note(p, "%zu block%s (%s) at the end freed but waiting for their streams "
                   "(active_pending_free): not counted as allocated, as in MemoryViz", pending, pending == 1 ? "" : "s",
                ml_fmt_bytes(pending_bytes, size, sizeof size));
}

static void settings_notes(imp *im, ml_pv top)
{
    ml_pv v;
    char buf[400];
    if (get(im, top, K_ALLOCATOR_SETTINGS, &v) == 0 && ml_pv_type_of(im->st, v) == ML_PV_DICT) {
        ml_pv_repr_ext(im->st, v, ext_text, im, buf, sizeof buf);
        ml_note(im->p, "allocator settings: %s", buf);
        /* the whole dictionary, for the report's Allocator Settings view */
        char *all = ml_malloc(1 << 16);
        ml_pv_repr_ext(im->st, v, ext_text, im, all, 1 << 16);
        im->p->allocator_settings = ml_intern_cstr(im->p->strings, all);
        free(all);
    }
    if (im->with_context) ml_note(im->p, "%zu trace entries carry a compile context (e.g. \"%.200s\")",
                                  im->with_context, ml_s(im->p, im->context_example));
    if (im->with_metadata) ml_note(im->p, "%zu trace entries carry user metadata (e.g. \"%.200s\")",
                                   im->with_metadata, ml_s(im->p, im->metadata_example));
    if (im->unknown_actions) ml_note(im->p, "%zu trace entries with unknown actions skipped (e.g. \"%.100s\")",
                                     im->unknown_actions, ml_s(im->p, im->unknown_example));
}

/* External annotations ({stage, name, device, time_us}) become ANNOTATE events. */
static int annotations(imp *im, ml_pv top, uint8_t *seen, ml_err *e)
{
    ml_pv list;
    if (get(im, top, K_EXTERNAL_ANNOTATIONS, &list) < 0) return 0;
    size_t n = ml_pv_len(im->st, list);
    for (size_t i = 0; i < n; i++) {
        ml_pv a = ml_pv_item(im->st, list, i), v;
        if (ml_pv_type_of(im->st, a) != ML_PV_DICT) continue;
        int64_t dev = get_int(im, a, K_DEVICE, 0), us = get_int(im, a, K_TIME_US, INT64_MIN);
        if (add_device(im, dev, seen, e) < 0) return -1;
        char buf[300];
        const char *stage = get(im, a, K_STAGE, &v) == 0 ? ml_s(im->p, str_or0(im, v)) : "";
        const char *name = get(im, a, K_NAME, &v) == 0 ? ml_s(im->p, str_or0(im, v)) : "";
        snprintf(buf, sizeof buf, "%s%s%s", stage, *stage ? " " : "", name);
        ml_event ev = {.ts = us > INT64_MIN / 1000 && us < INT64_MAX / 1000 ? us * 1000 : ML_TIME_NONE,
                       .thread = ML_NONE32, .kind = ML_EV_ANNOTATE,
                       .aux = ml_intern_cstr(im->p->strings, buf)};
        im->annotations++;
        if (ev.ts == ML_TIME_NONE) im->annotations_no_time++;
        ev.device = (uint16_t)dev; /* the device number, mapped to its index in finish() */
        ml_event_push(im->p, &ev);
    }
    return 0;
}

static int finish(imp *im, ml_pv top, ml_err *e)
{
    ml_profile *p = im->p;
    ml_pv segs = ML_PV_NONE_V, traces = ML_PV_NONE_V;
    ml_pv_type tt = ml_pv_type_of(im->st, top);
    if (tt == ML_PV_LIST) segs = top; /* the oldest form: just the list of segments */
    else if (tt == ML_PV_DICT) {
        int hs = get(im, top, K_SEGMENTS, &segs) == 0, ht = get(im, top, K_DEVICE_TRACES, &traces) == 0;
        if (!hs && !ht)
            return ml_fail(e, "%s: not a PyTorch allocator snapshot (the top-level dict has neither "
                              "\"segments\" nor \"device_traces\")", im->name);
    } else {
        return ml_fail(e, "%s: not a PyTorch allocator snapshot (the top-level value is a %s)",
                       im->name, ml_pv_type_name(tt));
    }

    /* The containers: segments a list, device_traces a list of lists. */
    ml_pv_type st_ = ml_pv_type_of(im->st, segs), tt_ = ml_pv_type_of(im->st, traces);
    if (st_ != ML_PV_NONE && st_ != ML_PV_LIST && st_ != ML_PV_TUPLE) {
        schema_bad(im, "segments", "a list of segments", &segs);
        segs = ML_PV_NONE_V;
    }
    if (tt_ != ML_PV_NONE && tt_ != ML_PV_LIST && tt_ != ML_PV_TUPLE) {
        schema_bad(im, "device_traces", "a list of trace lists (one per device)", &traces);
        traces = ML_PV_NONE_V;
    }
    for (size_t i = 0; i < ml_pv_len(im->st, traces); i++) {
        ml_pv l = ml_pv_item(im->st, traces, i);
        ml_pv_type lt = ml_pv_type_of(im->st, l);
        if (lt != ML_PV_LIST && lt != ML_PV_TUPLE) {
            char at[48];
            snprintf(at, sizeof at, "device_traces[%zu]", i);
            schema_bad(im, at, "a list of trace entries", &l);
        }
    }

    /* Devices: each device_traces index with events, each segment's device, each annotation's. */
    uint8_t *seen = ml_calloc(MAX_DEVICE + 1, 1);
    uint16_t *dev_of = ml_calloc(MAX_DEVICE + 1, sizeof *dev_of);
    int rc = -1;
    /* The trace lists, in the order their first events came: device = index in device_traces. */
    size_t n_traces = ml_pv_len(im->st, traces), n_entries = p->events.ts.len;
    uint16_t *list_dev = ml_calloc(im->lists.len + 1, sizeof *list_dev);
    for (size_t i = 0; i < im->lists.len; i++) {
        size_t d = 0;
        while (d < n_traces && ml_pv_item(im->st, traces, d) != im->lists.v[i]) d++;
        if (d == n_traces) {
            ml_fail(e, "%s: a trace entry (an \"action\" dict) outside device_traces", im->name);
            goto out;
        }
        if (add_device(im, (int64_t)d, seen, e) < 0) goto out;
        list_dev[i] = (uint16_t)d;
    }
    size_t n_segs = ml_pv_len(im->st, segs);
    for (size_t i = 0; i < n_segs; i++) {
        int64_t d = get_int(im, ml_pv_item(im->st, segs, i), K_DEVICE, 0);
        if (d >= 0 && d <= MAX_DEVICE) seen[d] = 1; /* others: a violation in read_segments() */
    }
    if (tt == ML_PV_DICT && annotations(im, top, seen, e) < 0) goto out;
    if (p->lean && im->annotations_no_time) { /* events numbered, then matched: lean ones cannot be */
        rc = ML_IMPORT_AGAIN;
        goto out;
    }
    for (int d = 0; d <= MAX_DEVICE; d++)
        if (seen[d]) dev_of[d] = ml_device_get(p, ML_DEV_CUDA, d);
    /* trace entries hold their list's index, annotations their device number
     * (written only where it changes: the device columns are sparse, see
     * profile.c, and a snapshot of one device has index 0 everywhere).  When
     * every list's index is its device's (one device, or devices 0, 1, ...
     * in order) and so is every annotation's, there is nothing to rewrite:
     * no walk over a gigabyte snapshot's 9M events. */
    bool same = true;
    for (size_t i = 0; i < im->lists.len && same; i++) same = dev_of[list_dev[i]] == i;
    for (int d = 0; d <= MAX_DEVICE && same && p->events.ts.len > n_entries; d++) same = !seen[d] || dev_of[d] == d;
    for (size_t i = 0; i < p->events.ts.len && !same; i++) {
        uint16_t *d = &p->events.device.v[i], to = dev_of[i < n_entries ? list_dev[*d] : *d];
        if (*d != to) *d = to;
    }
    for (size_t i = 0; i < p->allocs.device.len && !same; i++) { /* matched as read (evpipe), by list */
        uint16_t *d = &p->allocs.device.v[i], to = dev_of[list_dev[*d]];
        if (*d != to) *d = to;
    }

    if (read_segments(im, segs, dev_of, e) < 0) goto out;
    if (im->schema_n) {
        if (im->schema_n > 1)
            ml_fail(e, "%s: %s (and %zu more schema violation%s)", im->name, im->schema_first, im->schema_n - 1,
                    im->schema_n == 2 ? "" : "s");
        else
            ml_fail(e, "%s: %s", im->name, im->schema_first);
        goto out;
    }
    if (im->skipped_n) {
        char where[48];
        snprintf(where, sizeof where, "device_traces[%u][%zu]", list_dev[im->skipped_list], im->skipped_pos);
        ml_note(p, "%zu trace entr%s with an impossible field skipped (first: %s.%s)", im->skipped_n,
                im->skipped_n == 1 ? "y" : "ies", where, im->skipped_first);
    }

    if (im->no_time || im->annotations_no_time) {
        /* Older snapshots have no time_us: order is all there is (and
         * ml_profile_finish() matches the renumbered events). */
        ml_allocs_clear(p);
        for (size_t i = 0; i < p->events.ts.len; i++) p->events.ts.v[i] = (int64_t)i;
        p->time_is_event_order = true;
        p->time_is_absolute = false;
        char ann[96] = "";
        if (im->annotations)
            snprintf(ann, sizeof ann, " (and %zu of %zu external annotations)", im->annotations_no_time, im->annotations);
        ml_note(p, "%zu of %zu trace entries%s have no time_us (an older PyTorch): times are entry numbers",
                im->no_time, n_entries, ann);
    } else {
        p->time_is_absolute = true;
    }
    reserved_series(im, MAX_DEVICE + 1, dev_of, seen);
    if (tt == ML_PV_DICT) settings_notes(im, top);
    p->has_addresses = true;
    ml_phase("snapshot: segments, reserved");
    ml_profile_finish_keep(p, im->keep);
    blocks_before_trace(im);
    ml_phase("snapshot: blocks before the trace");
    rc = 0;
out:
    free(seen);
    free(dev_of);
    free(list_dev);
    return rc;
}

int ml_snapshot_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    p->caps.allocator_state = true;
    p->caps.memory_record = true;
    p->caps.memory_first = true;
    imp im = {.p = p, .name = ml_source_name(src), .last_stream = INT64_MIN, .keep = keep};
    im.st = ml_pvs_new(p->strings);
    memset(im.key_code, K__COUNT, sizeof im.key_code);
    memset(im.act_code, N_ACTIONS, sizeof im.act_code);
    for (int k = 0; k < K__COUNT; k++) {
        im.key[k] = ml_intern_cstr(p->strings, key_names[k]);
        if (im.key[k] < N_CODED) im.key_code[im.key[k]] = (uint8_t)k;
    }
    for (size_t k = 0; k < N_ACTIONS; k++) {
        im.act[k] = ml_intern_cstr(p->strings, actions[k].name);
        if (im.act[k] < N_CODED && im.act_code[im.act[k]] == N_ACTIONS) im.act_code[im.act[k]] = (uint8_t)k;
    }

    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 16, e);
    ml_pv top;
    int rc;
    ml_pickle_hooks hooks = {.record = on_entry, .list = on_list, .shared = on_shared, .user = &im};
    /* Lean storage (profile.h) while the trace comes in time order, so that
     * the allocs are matched as read; if it does not (several devices' lists,
     * entries without times), the loader reads the file again without. */
    p->lean = ml_keep_lean(keep);
    im.pipe = ml_evpipe_start(p);
    if (ml_pickle_sniff(head, n)) rc = ml_pickle_read_hooks(src, im.st, &hooks, &top, e);
    else rc = ml_jsonvalue_read(src, im.st, on_entry_dict, &im, &top, e);
    ml_evpipe_end(im.pipe, rc == 0 && !im.no_time);
    if (p->lean && (im.again || (rc == 0 && (im.no_time || !p->allocs_matched)))) rc = ML_IMPORT_AGAIN;
    ml_phase("snapshot: read");
    if (rc == 0) rc = finish(&im, top, e);
    ml_pvs_free(im.st);
    VEC_FREE(&im.lists);
    VEC_FREE(&im.list_n);
    VEC_FREE(&im.frames_tmp);
    return rc;
}

/* Sure when a pickle or JSON dict names snapshot keys in its first bytes. */
int ml_snapshot_sniff(const char *path, const unsigned char *head, size_t n)
{
    int pickle = ml_pickle_sniff(head, n);
    size_t i = 0;
    while (!pickle && i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (!pickle && (i == n || head[i] != '{')) return 0;
    int keys = memmem(head, n, "segments", 8) || memmem(head, n, "device_traces", 13);
    if (pickle) return keys ? 100 : 50; /* no other format of ours is a pickle */
    return keys && !memmem(head, n, "traceEvents", 11) ? 90 : 0;
}
