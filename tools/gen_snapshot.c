/*
 * gen_snapshot.c — writes a large, realistic CUDA allocator snapshot pickle
 * for benchmarks (what torch.cuda.memory._dump_snapshot() writes, protocol 4):
 *
 *     gen_snapshot [--size-mb N] [--seed S] OUT.pickle
 *
 * Shaped like real snapshots: a top dict {segments, device_traces,
 * allocator_settings, external_annotations}; 6-key trace entries (action,
 * addr, size, stream, time_us, frames); frame dicts {name, filename, line}
 * memoised once and referenced everywhere; each alloc has a fresh frame list
 * (~30-60 frames, native then Python), which its free_requested and
 * free_completed entries and its final block share through the memo; entries
 * appended in batches of 1,000; FRAME opcodes every 64 KiB.  Addresses are
 * reused from a fixed set of slots, as a caching allocator does.
 *
 * Deterministic for a given seed.  A first pass only counts bytes to find how
 * many entries reach the size and what is live at the end (the segments come
 * first in the file); the second pass writes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 2048
#define SLOT_BYTES ((int64_t)32 << 20)
#define SLOTS_PER_SEGMENT 32
#define N_FRAMES 800
#define N_STACKS 300
#define BASE_ADDR 0x7f0000000000ull

/* ---- a pickle writer with memo and framing ---------------------------- */

typedef struct w {
    FILE *f;                 /* NULL: count only */
    unsigned char frame[1 << 17];
    size_t flen;
    uint64_t total;
    uint32_t memo;           /* next memo index */
} w;

static void flush_frame(w *o)
{
    if (!o->flen) return;
    if (o->f) {
        unsigned char h[9] = {0x95};
        for (int i = 0; i < 8; i++) h[1 + i] = (unsigned char)((uint64_t)o->flen >> (8 * i));
        fwrite(h, 1, 9, o->f);
        fwrite(o->frame, 1, o->flen, o->f);
    }
    o->total += 9 + o->flen;
    o->flen = 0;
}

static void put(w *o, const void *b, size_t n)
{
    memcpy(o->frame + o->flen, b, n);
    o->flen += n;
}
static void op(w *o, unsigned char c) { o->frame[o->flen++] = c; }
/* Frames end between opcodes, as CPython's do. */
static void boundary(w *o) { if (o->flen >= 65536) flush_frame(o); }

static uint32_t memoize(w *o) { op(o, 0x94); return o->memo++; }

static void get(w *o, uint32_t idx)
{
    if (idx < 256) { op(o, 'h'); op(o, (unsigned char)idx); }
    else { op(o, 'j'); for (int i = 0; i < 4; i++) op(o, (unsigned char)(idx >> (8 * i))); }
}

static void integer(w *o, int64_t v)
{
    if (v >= 0 && v < 256) { op(o, 'K'); op(o, (unsigned char)v); return; }
    if (v >= 0 && v < 65536) { op(o, 'M'); op(o, (unsigned char)v); op(o, (unsigned char)(v >> 8)); return; }
    if (v >= INT32_MIN && v <= INT32_MAX) { op(o, 'J'); for (int i = 0; i < 4; i++) op(o, (unsigned char)((uint64_t)v >> (8 * i))); return; }
    unsigned char b[8];
    int n = 0;
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)v >> (8 * i));
    n = 8;
    while (n > 1 && ((b[n - 1] == 0 && !(b[n - 2] & 0x80)) || (b[n - 1] == 0xff && (b[n - 2] & 0x80)))) n--;
    op(o, 0x8a);
    op(o, (unsigned char)n);
    put(o, b, (size_t)n);
}

/* Strings are memoised on first use, like pickle.dump does. */
typedef struct sref { const char *s; uint32_t memo; int done; } sref;

static void str(w *o, sref *r)
{
    if (r->done) { get(o, r->memo); return; }
    size_t n = strlen(r->s);
    if (n < 256) { op(o, 0x8c); op(o, (unsigned char)n); }
    else { op(o, 'X'); for (int i = 0; i < 4; i++) op(o, (unsigned char)(n >> (8 * i))); }
    put(o, r->s, n);
    r->memo = memoize(o);
    r->done = 1;
}

/* ---- the content ------------------------------------------------------- */

enum { K_ACTION, K_ADDR, K_SIZE, K_STREAM, K_TIME_US, K_FRAMES, K_NAME, K_FILENAME, K_LINE, K_SEGMENTS,
       K_DEVICE_TRACES, K_SETTINGS, K_ANNOT, K_DEVICE, K_ADDRESS, K_TOTAL, K_ALLOCATED, K_ACTIVE, K_REQUESTED,
       K_SEGTYPE, K_POOL, K_EXPANDABLE, K_BLOCKS, K_STATE, K_DEVICE_FREE,
       A_ALLOC, A_FREE_REQ, A_FREE_DONE, A_SEG_ALLOC, S_LARGE, S_ACTIVE, S_INACTIVE, S_CONF, S_EMPTY, N_STR };
static const char *const str_text[N_STR] = {
    "action", "addr", "size", "stream", "time_us", "frames", "name", "filename", "line", "segments",
    "device_traces", "allocator_settings", "external_annotations", "device", "address", "total_size",
    "allocated_size", "active_size", "requested_size", "segment_type", "segment_pool_id", "is_expandable",
    "blocks", "state", "device_free", "alloc", "free_requested", "free_completed", "segment_alloc", "large",
    "active_allocated", "inactive", "PYTORCH_CUDA_ALLOC_CONF", ""};

typedef struct gen {
    w o;
    sref s[N_STR];
    sref fname[N_FRAMES], ffile[N_FRAMES];
    char fname_text[N_FRAMES][96], ffile_text[N_FRAMES][96];
    int fline[N_FRAMES];
    uint32_t fmemo[N_FRAMES];
    int fdone[N_FRAMES];
    int stack_depth[N_STACKS];
    uint16_t stack_frames[N_STACKS][64];
    uint64_t rng;
    /* live state per address slot */
    int64_t live_size[SLOTS];
    uint32_t live_frames[SLOTS];     /* memo index of the alloc's frame list */
    int32_t live_slot_of[SLOTS];     /* dense list of live slots */
    int n_live;
    int32_t pos_of[SLOTS];
    int64_t time_us;
} gen;

static uint64_t rnd(gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static void setup(gen *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int i = 0; i < N_STR; i++) g->s[i].s = str_text[i];
    static const char *const native_head[] = {
        "torch::unwind::unwind()", "torch::CapturedTraceback::gather(bool, bool, bool)",
        "torch::cuda::(anonymous namespace)::gather_with_cpp()",
        "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)",
        "c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::allocate(unsigned long)",
        "at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)"};
    for (int i = 0; i < N_FRAMES; i++) {
        if (i < 6) {
            snprintf(g->fname_text[i], 96, "%s", native_head[i]);
            snprintf(g->ffile_text[i], 96, "%s", i == 2 ? "memory_snapshot.cpp" : "??");
            g->fline[i] = 0;
        } else if (i < 400) {
            snprintf(g->fname_text[i], 96, "at::native::op_%d_kernel(at::Tensor const&, at::Tensor const&)", i);
            snprintf(g->ffile_text[i], 96, "%s", i % 3 ? "??" : "RegisterCUDA.cpp");
            g->fline[i] = 0;
        } else {
            snprintf(g->fname_text[i], 96, "%s_%d", i % 2 ? "forward" : "step", i);
            snprintf(g->ffile_text[i], 96, "/home/user/project/model/layer_%d.py", i % 40);
            g->fline[i] = 10 + i % 500;
        }
        g->fname[i].s = g->fname_text[i];
        g->ffile[i].s = g->ffile_text[i];
    }
    for (int k = 0; k < N_STACKS; k++) {
        int d = 30 + (int)(rnd(g) % 31), n = 0;
        for (int i = 0; i < 6; i++) g->stack_frames[k][n++] = (uint16_t)i;
        int native = 6 + (int)(rnd(g) % (uint64_t)(d / 2));
        while (n < native) g->stack_frames[k][n++] = (uint16_t)(6 + rnd(g) % 394);
        while (n < d) g->stack_frames[k][n++] = (uint16_t)(400 + rnd(g) % 400);
        g->stack_depth[k] = d;
    }
    for (int i = 0; i < SLOTS; i++) g->pos_of[i] = -1;
    g->time_us = 1748732594962743LL;
}

static void frame_dict(gen *g, int f)
{
    w *o = &g->o;
    if (g->fdone[f]) { get(o, g->fmemo[f]); return; }
    op(o, '}');
    g->fmemo[f] = memoize(o);
    g->fdone[f] = 1;
    op(o, '(');
    str(o, &g->s[K_NAME]); str(o, &g->fname[f]);
    str(o, &g->s[K_FILENAME]); str(o, &g->ffile[f]);
    str(o, &g->s[K_LINE]); integer(o, g->fline[f]);
    op(o, 'u');
}

/* A fresh frame list for stack k; returns its memo index. */
static uint32_t frame_list(gen *g, int k)
{
    w *o = &g->o;
    op(o, ']');
    uint32_t m = memoize(o);
    op(o, '(');
    for (int i = 0; i < g->stack_depth[k]; i++) frame_dict(g, g->stack_frames[k][i]);
    op(o, 'e');
    return m;
}

/* One trace entry; a new frame list for `stack` >= 0, else the list memoised at
 * frames_memo (or an empty one).  Returns the memo index of its frame list. */
static uint32_t entry(gen *g, int action, uint64_t addr, int64_t size, int stack, uint32_t frames_memo)
{
    w *o = &g->o;
    op(o, '}');
    memoize(o);
    op(o, '(');
    str(o, &g->s[K_ACTION]); str(o, &g->s[action]);
    str(o, &g->s[K_ADDR]); integer(o, (int64_t)addr);
    str(o, &g->s[K_SIZE]); integer(o, size);
    str(o, &g->s[K_STREAM]); integer(o, 0);
    str(o, &g->s[K_TIME_US]); integer(o, g->time_us);
    str(o, &g->s[K_FRAMES]);
    if (stack >= 0) frames_memo = frame_list(g, stack);
    else if (frames_memo != UINT32_MAX) get(o, frames_memo);
    else { op(o, ']'); frames_memo = memoize(o); }
    op(o, 'u');
    g->time_us += 1 + (int64_t)(rnd(g) % 40);
    return frames_memo;
}

static uint64_t slot_addr(int slot) { return BASE_ADDR + (uint64_t)slot * (uint64_t)SLOT_BYTES; }

static int64_t pick_size(gen *g)
{
    uint64_t r = rnd(g) % 100;
    int64_t sz = r < 60 ? 512 * (int64_t)(1 + rnd(g) % 64) : r < 95 ? (int64_t)(1 + rnd(g) % 2048) * 4096
                                                                    : (int64_t)(1 + rnd(g) % 30) << 20;
    return sz;
}

/* One step of the simulated program: allocate into a free slot, or free a live one.
 * Writes 1 entry (alloc) or 2 (free_requested, free_completed). */
static int step(gen *g)
{
    int want_alloc = g->n_live < 200 || (g->n_live < SLOTS - 64 && rnd(g) % 100 < 52);
    if (want_alloc) {
        int slot;
        do slot = (int)(rnd(g) % SLOTS); while (g->pos_of[slot] >= 0);
        int64_t size = pick_size(g);
        int stack = (int)(rnd(g) % N_STACKS);
        g->live_size[slot] = size;
        g->pos_of[slot] = g->n_live;
        g->live_slot_of[g->n_live++] = slot;
        g->live_frames[slot] = entry(g, A_ALLOC, slot_addr(slot), size, stack, UINT32_MAX);
        return 1;
    }
    int pos = (int)(rnd(g) % (uint64_t)g->n_live), slot = g->live_slot_of[pos];
    entry(g, A_FREE_REQ, slot_addr(slot), g->live_size[slot], -1, g->live_frames[slot]);
    entry(g, A_FREE_DONE, slot_addr(slot), g->live_size[slot], -1, g->live_frames[slot]);
    int last = g->live_slot_of[--g->n_live];
    g->live_slot_of[pos] = last;
    g->pos_of[last] = pos;
    g->pos_of[slot] = -1;
    return 2;
}

static void segments(gen *g, const int64_t *final_size)
{
    w *o = &g->o;
    op(o, ']');
    memoize(o);
    op(o, '(');
    int nseg = SLOTS / SLOTS_PER_SEGMENT;
    for (int sgi = 0; sgi < nseg; sgi++) {
        boundary(o);
        int64_t total = (int64_t)SLOTS_PER_SEGMENT * SLOT_BYTES, allocated = 0;
        for (int k = 0; k < SLOTS_PER_SEGMENT; k++) allocated += final_size[sgi * SLOTS_PER_SEGMENT + k];
        op(o, '}'); memoize(o); op(o, '(');
        str(o, &g->s[K_DEVICE]); integer(o, 0);
        str(o, &g->s[K_ADDRESS]); integer(o, (int64_t)slot_addr(sgi * SLOTS_PER_SEGMENT));
        str(o, &g->s[K_TOTAL]); integer(o, total);
        str(o, &g->s[K_ALLOCATED]); integer(o, allocated);
        str(o, &g->s[K_ACTIVE]); integer(o, allocated);
        str(o, &g->s[K_REQUESTED]); integer(o, allocated);
        str(o, &g->s[K_STREAM]); integer(o, 0);
        str(o, &g->s[K_SEGTYPE]); str(o, &g->s[S_LARGE]);
        str(o, &g->s[K_POOL]); integer(o, 0); integer(o, 0); op(o, 0x86); memoize(o);
        str(o, &g->s[K_EXPANDABLE]); op(o, 0x89);
        str(o, &g->s[K_FRAMES]); op(o, ']'); memoize(o);
        str(o, &g->s[K_BLOCKS]); op(o, ']'); memoize(o); op(o, '(');
        for (int k = 0; k < SLOTS_PER_SEGMENT; k++) {
            int slot = sgi * SLOTS_PER_SEGMENT + k;
            int64_t used = final_size[slot];
            if (used) {
                op(o, '}'); memoize(o); op(o, '(');
                str(o, &g->s[K_ADDRESS]); integer(o, (int64_t)slot_addr(slot));
                str(o, &g->s[K_SIZE]); integer(o, used);
                str(o, &g->s[K_REQUESTED]); integer(o, used);
                str(o, &g->s[K_STATE]); str(o, &g->s[S_ACTIVE]);
                str(o, &g->s[K_FRAMES]);
                /* the trace's frame list for this block is written later: its own stack here */
                frame_list(g, slot % N_STACKS);
                op(o, 'u');
            }
            op(o, '}'); memoize(o); op(o, '(');
            str(o, &g->s[K_ADDRESS]); integer(o, (int64_t)slot_addr(slot) + used);
            str(o, &g->s[K_SIZE]); integer(o, SLOT_BYTES - used);
            str(o, &g->s[K_REQUESTED]); integer(o, 0);
            str(o, &g->s[K_STATE]); str(o, &g->s[S_INACTIVE]);
            str(o, &g->s[K_FRAMES]); op(o, ']'); memoize(o);
            op(o, 'u');
        }
        op(o, 'e');
        op(o, 'u');
    }
    op(o, 'e');
}

/* Writes (or counts) the whole file; n_steps < 0: until target bytes. */
static int64_t run(gen *g, FILE *f, uint64_t seed, uint64_t target, int64_t n_steps, const int64_t *final_size,
                   int64_t *final_out)
{
    setup(g, seed);
    g->o.f = f;
    w *o = &g->o;
    if (f) fwrite("\x80\x04", 1, 2, f); /* PROTO comes before the first FRAME */
    o->total = 2;
    op(o, '}'); memoize(o); op(o, '(');
    str(o, &g->s[K_SEGMENTS]);
    if (final_size) segments(g, final_size);
    else { op(o, ']'); memoize(o); }
    str(o, &g->s[K_DEVICE_TRACES]);
    op(o, ']'); memoize(o);   /* device_traces */
    op(o, ']'); memoize(o);   /* device 0's trace */
    /* segment_alloc for every segment at the start: reserved replays from 0 */
    int in_batch = 0;
    op(o, '(');
    for (int sgi = 0; sgi < SLOTS / SLOTS_PER_SEGMENT; sgi++) {
        boundary(o);
        entry(g, A_SEG_ALLOC, slot_addr(sgi * SLOTS_PER_SEGMENT), (int64_t)SLOTS_PER_SEGMENT * SLOT_BYTES, 0, UINT32_MAX);
        in_batch++;
    }
    int64_t steps = 0;
    for (;;) {
        if (n_steps >= 0 ? steps >= n_steps : o->total + o->flen >= target) break;
        boundary(o);
        in_batch += step(g);
        steps++;
        if (in_batch >= 1000) { op(o, 'e'); op(o, '('); in_batch = 0; }
    }
    op(o, 'e');
    op(o, 'a'); /* the device's list into device_traces */
    str(o, &g->s[K_SETTINGS]);
    op(o, '}'); memoize(o); op(o, '('); str(o, &g->s[S_CONF]); str(o, &g->s[S_EMPTY]); op(o, 'u');
    str(o, &g->s[K_ANNOT]); op(o, ']'); memoize(o);
    op(o, 'u');
    op(o, '.');
    flush_frame(o);
    if (final_out)
        for (int i = 0; i < SLOTS; i++) final_out[i] = g->pos_of[i] >= 0 ? g->live_size[i] : 0;
    return steps;
}

int main(int argc, char **argv)
{
    uint64_t size_mb = 1024, seed = 1;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size-mb") && i + 1 < argc) size_mb = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !out) out = argv[i];
        else {
            fprintf(stderr, "usage: gen_snapshot [--size-mb N] [--seed S] OUT.pickle\n");
            return 2;
        }
    }
    if (!out || !size_mb) {
        fprintf(stderr, "usage: gen_snapshot [--size-mb N] [--seed S] OUT.pickle\n");
        return 2;
    }
    gen *g = calloc(1, sizeof *g);
    int64_t *final_size = calloc(SLOTS, sizeof *final_size);
    /* Pass 1 counts the trace alone; the segments (written first) take a few MB more. */
    uint64_t target = size_mb << 20;
    uint64_t seg_bytes = (uint64_t)SLOTS * 400;
    int64_t steps = run(g, NULL, seed, target > seg_bytes * 2 ? target - seg_bytes : target / 2, -1, NULL, final_size);
    FILE *f = fopen(out, "wb");
    if (!f) { perror(out); return 1; }
    run(g, f, seed, 0, steps, final_size, NULL);
    if (fclose(f) != 0) { perror(out); return 1; }
    fprintf(stderr, "gen_snapshot: %s: %" PRIu64 " bytes, %" PRId64 " steps\n", out, g->o.total + 2, steps);
    free(final_size);
    free(g);
    return 0;
}
