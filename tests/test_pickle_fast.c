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
    int rc = ml_snapshot_import(src, p, e);
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

int main(void)
{
    RUN(record_hook_takes_entries);
    RUN(repeated_frame_lists);
    RUN(memo_written_over_is_not_cached);
    return check_report();
}
