/* test_pickle_fast.c — the pickle reader's fast paths for large snapshots:
 * trace entries taken at SETITEMS by the record hook, frame lists turned into
 * one number by the list hook, and repeated frame lists answered from the
 * reader's cache of runs (and not when the memo was written over since).
 *
 * The byte strings were written by CPython's pickle.dumps (protocol 4) and
 * checked with pickletools.dis; the memo-rewrite one is edited by hand. */
#include "check.h"

#include "importer.h"
#include "pickle.h"
#include "pyvalue.h"

#define P(lit) lit, sizeof lit - 1

/* {'t': [{'action': 'a', 'x': 1}, {'x': 2}, {'action': 'b', 'x': 3}, 5]}: the
 * first and third dicts are completed by SETITEMS inside the list's APPENDS
 * batch, the second by SETITEM. */
static const char records[] =
    "\x80\x04\x95:\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x01t\x94]\x94(}\x94(\x8c\x06" "action\x94\x8c\x01"
    "a\x94\x8c\x01x\x94K\x01u}\x94h\x06K\x02s}\x94(h\x04\x8c\x01" "b\x94h\x06K\x03uK\x05" "es.";

typedef struct taker { ml_str action; int calls, taken; } taker;

/* Takes the dicts that have an "action" key. */
static int take(void *user, ml_pvs *st, ml_pv list, const ml_pv *kv, size_t n, ml_err *e)
{
    taker *t = user;
    t->calls++;
    for (size_t i = 0; i < n; i++) {
        ml_str k;
        if (ml_pv_str(st, kv[2 * i], &k) == 0 && k == t->action) { t->taken++; return 1; }
    }
    return 0;
}

static int read_records(const char *b, size_t n, taker *t, ml_pvs **st, ml_pv *v, ml_err *e)
{
    *st = ml_pvs_new(NULL);
    t->action = ml_intern_cstr(ml_pvs_strings(*st), "action");
    ml_source *src = ml_source_from_memory("t.pickle", b, n);
    ml_pickle_hooks h = {.record = take, .user = t};
    int rc = ml_pickle_read_hooks(src, *st, &h, v, e);
    ml_source_close(src);
    return rc;
}

TEST(record_hook_takes_entries)
{
    taker t = {0};
    ml_pvs *st;
    ml_pv v;
    ml_err e;
    char text[256];
    CHECK_EQ_I64(read_records(P(records), &t, &st, &v, &e), 0);
    CHECK_EQ_I64(t.taken, 2);
    CHECK_EQ_I64(t.calls, 3);      /* two at SETITEMS, {'x': 2} at APPENDS */
    ml_pv_repr(st, v, text, sizeof text);
    CHECK_EQ_STR(text, "{'t': [{'x': 2}, 5]}");
    CHECK_EQ_I64(ml_pvs_live_containers(st), 3);
    ml_pvs_free(st);

    /* A memo reference to a taken entry is an error, not a read of a freed dict. */
    char bad[sizeof records + 2];
    size_t n = sizeof records - 1 - 2; /* without "s." */
    memcpy(bad, records, n);
    memcpy(bad + n, "h\x03s.", 4);
    t = (taker){0};
    CHECK_EQ_I64(read_records(bad, n + 4, &t, &st, &v, &e), -1);
    CHECK_CONTAINS(e.msg, "memo 3 names a value already streamed");
    ml_pvs_free(st);
}

/* {'segments': [], 'device_traces': [[4 allocs]]}: frames [f0, f1, f2] (new
 * dicts), [f0, f1, f2], [f2, f1], [f0, f1, f2]; the second and fourth frame
 * lists are the same bytes "] MEMOIZE ( h\x0f h\x15 h\x17 e". */
static const char snap[] =
    "\x80\x04\x95;\x01\x00\x00\x00\x00\x00\x00}\x94(\x8c\x08segments\x94]\x94\x8c\x0d" "device_traces\x94]\x94]\x94(}\x94(\x8c\x06"
    "action\x94\x8c\x05" "alloc\x94\x8c\x04" "addr\x94M\x00\x10\x8c\x04size\x94M\x00\x02\x8c\x06stream\x94K\x00\x8c\x07"
    "time_us\x94M\xe8\x03\x8c\x06" "frames\x94]\x94(}\x94(\x8c\x04name\x94\x8c\x02" "f0\x94\x8c\x08" "filename\x94\x8c\x04"
    "a.py\x94\x8c\x04line\x94K\x01u}\x94(h\x10\x8c\x02" "f1\x94h\x12h\x13h\x14K\x02u}\x94(h\x10\x8c\x02"
    "f2\x94h\x12h\x13h\x14K\x03ueu}\x94(h\x07h\x08h\x09M\x00 h\x0aM\x00\x02h\x0bK\x00h\x0cM\xe9\x03h\x0d]\x94(h\x0fh\x15h\x17"
    "eu}\x94(h\x07h\x08h\x09M\x00" "0h\x0aM\x00\x02h\x0bK\x00h\x0cM\xea\x03h\x0d]\x94(h\x17h\x15"
    "eu}\x94(h\x07h\x08h\x09M\x00@h\x0aM\x00\x02h\x0bK\x00h\x0cM\xeb\x03h\x0d]\x94(h\x0fh\x15h\x17" "eueau.";
#define ENTRY3 283 /* offset of the fourth entry's EMPTY_DICT */

static ml_profile *import(const char *b, size_t n, ml_err *e)
{
    ml_source *src = ml_source_from_memory("t.pickle", b, n);
    ml_profile *p = ml_profile_new("t.pickle", "torch-snapshot");
    int rc = ml_snapshot_import(src, p, NULL, e);
    ml_source_close(src);
    if (rc < 0) { ml_profile_free(p); return NULL; }
    return p;
}

/* The stack of event i as "name file:line <- ..." */
static void stack_text(const ml_profile *p, size_t i, char *buf, size_t cap)
{
    uint32_t s = p->events.stack.v[i];
    const uint32_t *fr = ml_stack_frames(p, s);
    size_t d = ml_stack_depth(p, s), k = 0;
    buf[0] = 0;
    for (size_t j = 0; j < d && k < cap; j++) {
        const ml_frame *f = &p->frames.v[fr[j]];
        k += (size_t)snprintf(buf + k, cap - k, "%s%s %s:%d", j ? " <- " : "", ml_s(p, f->name),
                              f->file ? ml_s(p, f->file) : "?", f->line);
    }
}

TEST(repeated_frame_lists)
{
    ml_err e;
    char text[256];
    ml_profile *p = import(P(snap), &e);
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(p->events.ts.len, 4);
    for (size_t i = 0; i < 4; i++) {
        stack_text(p, i, text, sizeof text);
        CHECK_EQ_STR(text, i == 2 ? "f2 a.py:3 <- f1 a.py:2" : "f0 a.py:1 <- f1 a.py:2 <- f2 a.py:3");
    }
    CHECK(p->events.stack.v[0] == p->events.stack.v[1] && p->events.stack.v[1] == p->events.stack.v[3]);
    ml_profile_free(p);
}

TEST(memo_written_over_is_not_cached)
{
    /* Before the fourth entry: BINGET 16 ('name'), BINPUT 21 (f1's slot), POP.
     * The fourth frame list has the bytes of the second, but reads 'name'. */
    char b[sizeof snap + 8];
    memcpy(b, snap, ENTRY3);
    memcpy(b + ENTRY3, "h\x10q\x15" "0", 5);
    memcpy(b + ENTRY3 + 5, snap + ENTRY3, sizeof snap - 1 - ENTRY3);
    ml_err e;
    char text[256];
    ml_profile *p = import(b, sizeof snap - 1 + 5, &e);
    CHECK(p != NULL);
    if (!p) return;
    stack_text(p, 1, text, sizeof text);
    CHECK_EQ_STR(text, "f0 a.py:1 <- f1 a.py:2 <- f2 a.py:3");
    stack_text(p, 3, text, sizeof text);
    CHECK_EQ_STR(text, "f0 a.py:1 <- name ?:-1 <- f2 a.py:3");
    ml_profile_free(p);
}

/* ---- entries read straight from the bytes (fast_record) ------------------ *
 * Each pickle below is read twice: from memory, where the reader has the
 * whole buffer and takes the entries whose keys and values are all memo
 * words, ints and known frame lists straight from their bytes; and with reads
 * of a few bytes each, where it never has the room to, so that every opcode
 * runs one by one.  Both must give the same value, the same hook calls and
 * the same errors at the same byte offsets. */

typedef struct buf { char b[1 << 20]; size_t n; } buf;
static void put(buf *o, const void *s, size_t n) { memcpy(o->b + o->n, s, n); o->n += n; }
static void puts_(buf *o, const char *s) { put(o, s, strlen(s)); }
static void op1(buf *o, int c) { o->b[o->n++] = (char)c; }
static void binint(buf *o, int32_t v) { op1(o, 'J'); for (int i = 0; i < 4; i++) op1(o, (int)((uint32_t)v >> (8 * i) & 255)); }

/* {'t': [entries...]} with memo 3 = the first entry, 4 = 'action', 5 = 'a',
 * 6 = 'x'; the entry of kinds[i] is memo 7 + i.  kind of each entry after the
 * first: 'A' an action entry of memo words and an int, 'X' one without an
 * action (the hook leaves it), 'W' an action entry with a wide int. */
static void records_pickle(buf *o, const char *kinds, const char *tail)
{
    o->n = 0;
    put(o, P("\x80\x04}\x94(\x8c\x01t\x94]\x94("));
    put(o, P("}\x94(\x8c\x06" "action\x94\x8c\x01" "a\x94\x8c\x01x\x94K\x01u"));
    for (size_t i = 0; kinds[i]; i++) {
        put(o, P("}\x94("));
        if (kinds[i] == 'X') { puts_(o, "h\x06"); binint(o, (int32_t)i); }
        else if (kinds[i] == 'W') puts_(o, "h\x04h\x05h\x06\x8a\x08\x01\x02\x03\x04\x05\x06\x07\x7f");
        else { puts_(o, "h\x04h\x05h\x06"); binint(o, (int32_t)i * 1000); }
        op1(o, 'u');
    }
    op1(o, 'e');
    puts_(o, tail);
}

typedef struct counter { ml_str action; int calls, taken, fail_at; } counter;

static int take_or_fail(void *user, ml_pvs *st, ml_pv list, const ml_pv *kv, size_t n, ml_err *e)
{
    counter *t = user;
    if (++t->calls == t->fail_at) return ml_fail(e, "hook says no at call %d", t->calls);
    for (size_t i = 0; i < n; i++) {
        ml_str k;
        if (ml_pv_str(st, kv[2 * i], &k) == 0 && k == t->action) { t->taken++; return 1; }
    }
    return 0;
}

/* Reads b both ways; the repr of the value (or the error) and the hook counts into out[0], out[1]. */
static void read_both(const buf *b, int fail_at, char out[2][512])
{
    for (int small = 0; small < 2; small++) {
        ml_pvs *st = ml_pvs_new(NULL);
        counter t = {.action = ml_intern_cstr(ml_pvs_strings(st), "action"), .fail_at = fail_at};
        ml_source *src = ml_source_from_memory("r.pickle", b->b, b->n);
        if (small) ml_source_limit_reads(src, 7);
        ml_pickle_hooks h = {.record = take_or_fail, .user = &t};
        ml_pv v;
        ml_err e;
        char text[400];
        int rc = ml_pickle_read_hooks(src, st, &h, &v, &e);
        if (rc == 0) ml_pv_repr(st, v, text, sizeof text);
        else snprintf(text, sizeof text, "error: %s", e.msg);
        snprintf(out[small], 512, "%s | calls %d taken %d", text, t.calls, t.taken);
        if (rc == 0) /* (what an error leaves is freed unread) */
            snprintf(out[small] + strlen(out[small]), 512 - strlen(out[small]), " live %zu", ml_pvs_live_containers(st));
        ml_source_close(src);
        ml_pvs_free(st);
    }
}

TEST(entries_from_the_bytes_as_one_by_one)
{
    char kinds[120], out[2][512];
    for (int i = 0; i < 100; i++) kinds[i] = i % 7 == 3 ? 'X' : i % 11 == 5 ? 'W' : 'A';
    kinds[100] = 0;
    static buf b;
    records_pickle(&b, kinds, "u.");
    read_both(&b, 0, out);
    CHECK_EQ_STR(out[0], out[1]);
    /* the entries without an action stay, with their ints, and every action entry is taken */
    CHECK_CONTAINS(out[0], "{'t': [{'x': 3}, {'x': 10}, {'x': 17}, {'x': 24}, ");
    CHECK_CONTAINS(out[0], "calls 115 taken 87 live 16"); /* 101 at SETITEMS, the 14 left again at APPENDS */

    /* a later reference to a taken entry (memo 50: kinds[43]) fails where it stands */
    records_pickle(&b, kinds, "h\x06h\x32u.");
    read_both(&b, 0, out);
    CHECK_EQ_STR(out[0], out[1]);
    CHECK_CONTAINS(out[0], "error: r.pickle: byte ");
    CHECK_CONTAINS(out[0], ": memo 50 names a value already streamed");
    /* ... and to an entry left in the list (memo 31: kinds[24], {'x': 24}) shares it */
    records_pickle(&b, kinds, "h\x06h\x1fu.");
    read_both(&b, 0, out);
    CHECK_EQ_STR(out[0], out[1]);
    CHECK_CONTAINS(out[0], "'x': {'x': 24}}");

    /* the hook's error names the byte of the entry's SETITEMS, either way */
    for (int at = 40; at <= 41; at++) {
        records_pickle(&b, kinds, "u.");
        read_both(&b, at, out);
        CHECK_EQ_STR(out[0], out[1]);
        CHECK_CONTAINS(out[0], "error: r.pickle: byte ");
    }
    CHECK_CONTAINS(out[0], "hook says no at call 41");
}

/* The fourth entry of snap, written n times with growing addresses and times:
 * its frame list is the second's, which the run cache knows. */
static void many_entries(buf *o, int n)
{
    const size_t tail = 4; /* "eau." */
    o->n = 0;
    put(o, snap, ENTRY3);
    const char *entry = snap + ENTRY3;
    size_t len = sizeof snap - 1 - ENTRY3 - tail;
    for (int i = 0; i < n; i++) {
        size_t at = o->n;
        put(o, entry, len);
        char *addr = memmem(o->b + at, len, "h\x09M", 3), *time = memmem(o->b + at, len, "h\x0cM", 3);
        addr[3] = (char)(i & 255);
        addr[4] = (char)(0x40 + i / 256);
        time[3] = (char)((1003 + i) & 255);
        time[4] = (char)((1003 + i) >> 8);
    }
    put(o, snap + sizeof snap - 1 - tail, tail);
}

/* The snapshot in b imported in place (p[0]) and in 7-byte reads, opcode by opcode (p[1]). */
static void import_both(const buf *b, ml_profile *p[2])
{
    ml_err e;
    for (int small = 0; small < 2; small++) {
        ml_source *src = ml_source_from_memory("t.pickle", b->b, b->n);
        if (small) ml_source_limit_reads(src, 7);
        p[small] = ml_profile_new("t.pickle", "torch-snapshot");
        CHECK_EQ_I64(ml_snapshot_import(src, p[small], NULL, &e), 0);
        ml_source_close(src);
    }
}

TEST(snapshot_entries_from_the_bytes_as_one_by_one)
{
    static buf b;
    many_entries(&b, 300);
    ml_profile *p[2];
    import_both(&b, p);
    CHECK_EQ_I64(p[0]->events.ts.len, 303);
    CHECK_EQ_I64(p[1]->events.ts.len, 303);
    char a[256], c[256];
    for (size_t i = 0; i < 303 && i < p[0]->events.ts.len && i < p[1]->events.ts.len; i++) {
        CHECK_EQ_I64(p[0]->events.ts.v[i], p[1]->events.ts.v[i]);
        CHECK_EQ_I64(p[0]->events.addr.v[i], p[1]->events.addr.v[i]);
        stack_text(p[0], i, a, sizeof a);
        stack_text(p[1], i, c, sizeof c);
        CHECK_EQ_STR(a, c);
    }
    CHECK_EQ_I64(p[0]->events.ts.v[302], 1302000);
    CHECK_EQ_I64(p[0]->events.addr.v[302], 0x4000 + 299);
    stack_text(p[0], 302, a, sizeof a);
    CHECK_EQ_STR(a, "f0 a.py:1 <- f1 a.py:2 <- f2 a.py:3");
    ml_profile_free(p[0]);
    ml_profile_free(p[1]);
}

/* Snapshots whose frame lists are long runs of BINGETs and LONG_BINGETs.
 * The first entry's list holds the 300 frames themselves (memo indices from
 * ~10 to ~600: the first ones BINGETs, the rest LONG_BINGETs); entry i >= 1
 * then names list list_of(i), whose frames frames_of() gives. */
static uint32_t memo_n;
static uint32_t memoize(buf *o) { op1(o, 0x94); return memo_n++; }
static uint32_t text(buf *o, const char *t) { op1(o, 0x8c); op1(o, (int)strlen(t)); puts_(o, t); return memoize(o); }
static void ref(buf *o, uint32_t m)
{
    if (m < 256) { op1(o, 'h'); op1(o, (int)m); }
    else { op1(o, 'j'); for (int i = 0; i < 4; i++) op1(o, (int)(m >> (8 * i) & 255)); }
}

typedef int (*list_fn)(int entry);
typedef int (*frames_fn)(int list, int *frames); /* fills frames (indices below 300), returns how many */

static void runs_snapshot(buf *o, int n_entries, list_fn list_of, frames_fn frames_of)
{
    static uint32_t frame[300];
    static int fr[300];
    char name[16];
    o->n = 0;
    memo_n = 0;
    put(o, P("\x80\x04}"));
    memoize(o);
    op1(o, '(');
    text(o, "segments");
    op1(o, ']');
    memoize(o);
    text(o, "device_traces");
    op1(o, ']');
    memoize(o);
    op1(o, ']');
    memoize(o);
    op1(o, '(');
    uint32_t k_action = 0, k_addr = 0, k_size = 0, k_time = 0, k_frames = 0, alloc = 0, k_name = 0;
    for (int i = 0; i < n_entries; i++) {
        op1(o, '}');
        memoize(o);
        op1(o, '(');
        if (!i) {
            k_action = text(o, "action"), alloc = text(o, "alloc"), k_addr = text(o, "addr");
        } else ref(o, k_action), ref(o, alloc), ref(o, k_addr);
        binint(o, 4096 * (i + 1));
        if (!i) k_size = text(o, "size"); else ref(o, k_size);
        binint(o, 512);
        if (!i) k_time = text(o, "time_us"); else ref(o, k_time);
        binint(o, 1000 + i);
        if (!i) k_frames = text(o, "frames"); else ref(o, k_frames);
        if (!i) { /* (a key for the frames, memoised and popped) */
            k_name = text(o, "name");
            op1(o, '0');
        }
        op1(o, ']');
        memoize(o);
        op1(o, '(');
        if (!i) { /* the frames themselves, in the first entry's list */
            for (int f = 0; f < 300; f++) {
                op1(o, '}');
                frame[f] = memoize(o);
                op1(o, '(');
                ref(o, k_name);
                snprintf(name, sizeof name, "f%d", f);
                text(o, name);
                op1(o, 'u');
            }
        } else {
            int n = frames_of(list_of(i), fr);
            for (int k = 0; k < n; k++) ref(o, frame[fr[k]]);
        }
        op1(o, 'e');
        op1(o, 'u');
        if (i % 1000 == 999) { op1(o, 'e'); op1(o, '('); }
    }
    puts_(o, "eau.");
}

/* Each list written twice in a row: 20 to 120 frames, runs of low (BINGET)
 * and high (LONG_BINGET) ones of random lengths. */
static int each_twice(int entry) { return entry / 2; }
static int mixed_runs(int list, int *frames)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(list + 1);
    int len = 20 + (int)((rng >> 40) % 101);
    for (int k = 0; k < len; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        int low = (rng >> 33) % 4 == 0 ? (int)((rng >> 50) % 2) : (k / (1 + list % 7)) % 2;
        frames[k] = low ? (int)((rng >> 20) % 40) : 200 + (int)((rng >> 24) % 100);
    }
    return len;
}

/* Every list but the first frames, read the slow way and from the run cache, gives the same stack. */
static void check_same_stacks(ml_profile *p[2], size_t n)
{
    static char a[8192], c[8192];
    CHECK_EQ_I64(p[0]->events.ts.len, n);
    CHECK_EQ_I64(p[1]->events.ts.len, n);
    for (size_t i = 0; i < n && i < p[0]->events.ts.len && i < p[1]->events.ts.len; i++) {
        stack_text(p[0], i, a, sizeof a);
        stack_text(p[1], i, c, sizeof c);
        CHECK_EQ_STR(a, c);
    }
}

TEST(long_mixed_frame_lists_from_the_run_cache)
{
    static buf b;
    runs_snapshot(&b, 300, each_twice, mixed_runs);
    CHECK(memo_n > 256 && b.n < sizeof b.b);
    ml_profile *p[2];
    import_both(&b, p);
    check_same_stacks(p, 300);
    size_t same_stack = 0;
    for (size_t i = 1; i < 300 && i < p[0]->events.ts.len; i += 2)
        same_stack += p[0]->events.stack.v[i] == p[0]->events.stack.v[i - 1];
    CHECK_EQ_I64(same_stack, 149); /* each list and its second writing: one stack (the first list holds all 300) */
    CHECK_EQ_I64(ml_stack_depth(p[0], p[0]->events.stack.v[0]), 300);
    ml_profile_free(p[0]);
    ml_profile_free(p[1]);
}

/* 16 lists that begin with the same 40 frames (200 bytes of LONG_BINGETs,
 * far more than the first bytes the run cache guesses by), interleaved:
 * lists 0 to 11 end with 0 to 11 more frames, so that each is the start of
 * the next, and lists 12 to 15 with 3 frames each, the same length with
 * other frames.  More lists share those first bytes than a guess holds. */
#define SHARED_LISTS 16
static int interleaved(int entry) { return (entry * 7 + entry / SHARED_LISTS) % SHARED_LISTS; }
static int shared_start(int list, int *frames)
{
    int n = 0;
    while (n < 40) frames[n] = 200 + n, n++;
    if (list < 12)
        for (int k = 0; k < list; k++) frames[n++] = 250 + k;
    else
        for (int k = 0; k < 3; k++) frames[n++] = 262 + 3 * (list - 12) + k;
    return n;
}

TEST(frame_lists_that_begin_alike)
{
    static buf b;
    enum { N = 400 };
    runs_snapshot(&b, N, interleaved, shared_start);
    ml_profile *p[2];
    import_both(&b, p);
    check_same_stacks(p, N);
    /* one stack per list, and no two lists with one stack */
    uint32_t stack_of_list[SHARED_LISTS];
    for (int l = 0; l < SHARED_LISTS; l++) stack_of_list[l] = UINT32_MAX;
    for (int i = 1; i < N && (size_t)i < p[0]->events.ts.len; i++) {
        int l = interleaved(i);
        if (stack_of_list[l] == UINT32_MAX) stack_of_list[l] = p[0]->events.stack.v[i];
        CHECK_EQ_I64(p[0]->events.stack.v[i], stack_of_list[l]);
    }
    for (int l = 0; l < SHARED_LISTS; l++) {
        CHECK(stack_of_list[l] != UINT32_MAX);
        if (stack_of_list[l] == UINT32_MAX) continue;
        CHECK_EQ_I64(ml_stack_depth(p[0], stack_of_list[l]), 40 + (l < 12 ? l : 3));
        for (int m = 0; m < l; m++) CHECK(stack_of_list[m] != stack_of_list[l]);
    }
    ml_profile_free(p[0]);
    ml_profile_free(p[1]);
}

int main(void)
{
    RUN(record_hook_takes_entries);
    RUN(repeated_frame_lists);
    RUN(memo_written_over_is_not_cached);
    RUN(entries_from_the_bytes_as_one_by_one);
    RUN(snapshot_entries_from_the_bytes_as_one_by_one);
    RUN(long_mixed_frame_lists_from_the_run_cache);
    RUN(frame_lists_that_begin_alike);
    return check_report();
}
