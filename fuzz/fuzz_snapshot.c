/* fuzz_snapshot.c — libFuzzer target for the allocator snapshot's schema
 * checks (importers/snapshot.c) as well as the pickle syntax under them.
 *
 * An input starting with 'G' is a recipe: the rest of its bytes choose a
 * well-formed pickle of a snapshot dict whose segments, blocks and trace
 * entries have each field present or not, of the right type or not, in range
 * or not (ints of 1 to 9 bytes, negatives, 2^62 and up, strings of digits,
 * floats, None, lists, dicts).  So most inputs get past the pickle reader
 * and into the checks.  Any other input is read as it is (pickle or JSON),
 * with fuzz/snapshot.dict to help mutations find the keys.
 *
 * Whatever the input, an import that succeeds must hold only figures that
 * can be real: every segment and block size in [0, 2^62), every event size
 * in [0, 2^62); otherwise the target aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "importer.h"
#include "stats.h"

typedef struct gen {
    const uint8_t *d;
    size_t n, i;
    uint8_t *out;
    size_t len, cap;
} gen;

static unsigned next(gen *g) { return g->i < g->n ? g->d[g->i++] : 0; }

static void put(gen *g, const void *p, size_t n)
{
    if (g->len + n > g->cap) {
        g->cap = (g->len + n) * 2 + 256;
        g->out = realloc(g->out, g->cap);
        if (!g->out) abort();
    }
    memcpy(g->out + g->len, p, n);
    g->len += n;
}

static void put1(gen *g, unsigned b) { uint8_t c = (uint8_t)b; put(g, &c, 1); }

static void put_str(gen *g, const char *s)
{
    size_t n = strlen(s);
    put1(g, 'X'); /* BINUNICODE: 4-byte little-endian length */
    for (int k = 0; k < 4; k++) put1(g, (unsigned)(n >> (8 * k)) & 0xff);
    put(g, s, n);
}

/* An int of n little-endian two's complement bytes (LONG1). */
static void put_long(gen *g, int64_t v, unsigned n)
{
    put1(g, 0x8a);
    put1(g, n);
    for (unsigned k = 0; k < n; k++) put1(g, k < 8 ? (unsigned)((uint64_t)v >> (8 * k)) & 0xff : (v < 0 ? 0xff : 0));
}

static void put_int(gen *g, int64_t v) { put_long(g, v, 8); }

/* A value for a field that wants a size or address: mostly right. */
static void size_value(gen *g)
{
    unsigned b = next(g);
    switch (b % 16) {
    case 0: put_int(g, -(int64_t)next(g) - 1); break;                 /* negative */
    case 1: put_int(g, (int64_t)1 << 62); break;                      /* 2^62 */
    case 2: put_long(g, (int64_t)next(g), 9 + next(g) % 8); break;    /* wide, maybe positive big */
    case 3: { put1(g, 0x8a); put1(g, 9); for (int k = 0; k < 8; k++) put1(g, 0); put1(g, 0x40); break; } /* 2^70 */
    case 4: put_str(g, "4096"); break;
    case 5: { static const uint8_t f[] = {'G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}; put(g, f, sizeof f); break; } /* 1.5 */
    case 6: put1(g, 'N'); break;
    case 7: put1(g, ']'); break;
    case 8: put1(g, 0x88); break;                                     /* True */
    case 9: put_int(g, ((int64_t)1 << 62) - 1 - next(g)); break;      /* just in range: sums overflow */
    default: put_int(g, (int64_t)(next(g) << 8 | next(g)) * 512); break;
    }
}

static void frames_value(gen *g)
{
    put1(g, ']');
    if (next(g) & 1) {
        put1(g, '(');
        put1(g, '}');
        put1(g, '(');
        put_str(g, "name");
        put_str(g, next(g) & 1 ? "forward" : "");
        put_str(g, "filename");
        put_str(g, "m.py");
        put_str(g, "line");
        size_value(g);
        put1(g, 'u');
        put1(g, 'e');
    }
}

static const char *const states[] = {"active_allocated", "active_pending_free", "inactive", "weird"};
static const char *const actions[] = {"alloc", "free_requested", "free_completed", "free", "segment_alloc",
                                      "segment_free", "segment_map", "segment_unmap", "snapshot", "oom",
                                      "annotate", "bogus"};

/* A dict of the given keys, each present when its bit of the next byte says so. */
static void block(gen *g)
{
    unsigned has = next(g) | next(g) << 8;
    put1(g, '}');
    put1(g, '(');
    if (!(has & 1)) { put_str(g, "size"); size_value(g); }
    if (!(has & 2)) {
        put_str(g, "state");
        unsigned s = next(g);
        if (s % 8 == 7) size_value(g);
        else put_str(g, states[s % 4]);
    }
    if (has & 4) { put_str(g, "address"); size_value(g); }
    if (has & 8) { put_str(g, "requested_size"); size_value(g); }
    if (has & 16) { put_str(g, "frames"); frames_value(g); }
    put1(g, 'u');
}

static void segment(gen *g)
{
    unsigned has = next(g) | next(g) << 8;
    put1(g, '}');
    put1(g, '(');
    if (!(has & 1)) { put_str(g, "total_size"); size_value(g); }
    if (!(has & 2)) { put_str(g, "address"); size_value(g); }
    if (has & 4) { put_str(g, "device"); if (next(g) & 1) size_value(g); else put_int(g, next(g) % 3); }
    if (has & 8) { put_str(g, "allocated_size"); size_value(g); }
    if (has & 16) { put_str(g, "active_size"); size_value(g); }
    if (has & 32) { put_str(g, "requested_size"); size_value(g); }
    if (has & 64) { put_str(g, "stream"); size_value(g); }
    if (has & 128) { put_str(g, "segment_type"); put_str(g, "large"); }
    if (!(has & 256)) {
        put_str(g, "blocks");
        if (has & 512) size_value(g); /* not a list */
        else {
            put1(g, ']');
            put1(g, '(');
            for (unsigned k = next(g) % 5; k; k--) block(g);
            put1(g, 'e');
        }
    }
    put1(g, 'u');
}

static void entry(gen *g)
{
    unsigned has = next(g) | next(g) << 8;
    put1(g, '}');
    put1(g, '(');
    if (!(has & 1)) {
        put_str(g, "action");
        unsigned a = next(g);
        if (a % 16 == 15) size_value(g);
        else put_str(g, actions[a % 12]);
    }
    if (!(has & 2)) { put_str(g, "addr"); size_value(g); }
    if (!(has & 4)) { put_str(g, "size"); size_value(g); }
    if (!(has & 8)) { put_str(g, "time_us"); if (next(g) & 1) size_value(g); else put_int(g, next(g)); }
    if (has & 16) { put_str(g, "stream"); size_value(g); }
    if (has & 32) { put_str(g, "device_free"); size_value(g); }
    if (has & 64) { put_str(g, "frames"); frames_value(g); }
    put1(g, 'u');
}

/* The recipe's snapshot: {'segments': [...], 'device_traces': [[...], ...]}. */
static void snapshot(gen *g)
{
    put1(g, 0x80);
    put1(g, 2);
    put1(g, '}');
    put1(g, '(');
    unsigned top = next(g);
    if (!(top & 1)) {
        put_str(g, "segments");
        if (top & 2) size_value(g);
        else {
            put1(g, ']');
            put1(g, '(');
            for (unsigned k = next(g) % 6; k; k--) segment(g);
            put1(g, 'e');
        }
    }
    if (!(top & 4)) {
        put_str(g, "device_traces");
        if (top & 8) size_value(g);
        else {
            put1(g, ']');
            put1(g, '(');
            for (unsigned d = next(g) % 3; d; d--) {
                if (next(g) % 8 == 7) { size_value(g); continue; } /* a device's list that is not one */
                put1(g, ']');
                put1(g, '(');
                for (unsigned k = next(g) % 12; k; k--) entry(g);
                put1(g, 'e');
            }
            put1(g, 'e');
        }
    }
    put1(g, 'u');
    put1(g, '.');
}

static void check_figures(const ml_profile *p)
{
    for (size_t i = 0; i < p->segments.len; i++) {
        const ml_segment *s = &p->segments.v[i];
        if (!ml_value_ok(s->total_size) || s->total_size < 0 || s->allocated_size < 0 || s->active_size < 0 ||
            s->requested_size < 0 || !ml_value_ok(s->allocated_size) || !ml_value_ok(s->requested_size))
            abort();
    }
    for (size_t i = 0; i < p->blocks.len; i++)
        if (p->blocks.v[i].size < 0 || !ml_value_ok(p->blocks.v[i].size) || p->blocks.v[i].requested_size < 0) abort();
    for (size_t i = 0; i < p->events.size.len; i++)
        if (p->events.size.v[i] < 0 || !ml_value_ok(p->events.size.v[i])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gen g = {.d = data + 1, .n = size ? size - 1 : 0};
    const uint8_t *in = data;
    size_t n = size;
    if (size && data[0] == 'G') {
        snapshot(&g);
        in = g.out;
        n = g.len;
    }
    ml_err e;
    ml_source *src = ml_source_from_memory("fuzz.pickle", in, n);
    ml_profile *p = ml_profile_new("fuzz.pickle", "torch-snapshot");
    if (ml_snapshot_import(src, p, NULL, &e) == 0) {
        check_figures(p);
        for (size_t d = 0; d < p->devices.len; d++) {
            ml_device_stats st;
            ml_device_stats_compute(p, (int)d, ML_BY_FRAME, &st);
            ml_device_stats_free(&st);
        }
    } else if (!e.msg[0] || strchr(e.msg, '\n')) {
        abort(); /* a failure says why, on one line */
    }
    ml_source_close(src);
    ml_profile_free(p);
    free(g.out);
    return 0;
}
