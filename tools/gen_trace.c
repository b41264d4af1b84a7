/*
 * gen_trace.c — writes a realistic PyTorch 2.x-style Kineto trace, and the truth
 * memlens should find in it.
 *
 * The trace is what `torch.profiler.profile(activities=[CPU, CUDA],
 * profile_memory=True, record_shapes=True, with_stack=True)` writes for a
 * GPT-like model trained with AdamW: ProfilerStep#N annotations, a data loader,
 * nn.Module python frames, forward ops (aten::linear -> aten::addmm ...),
 * backward on the autograd thread (autograd::engine::evaluate_function: ...),
 * gradient clipping, `Optimizer.step#AdamW.step` with foreach ops, zero_grad,
 * kernels / cuda_runtime / ac2g flows, and `[memory]` events from a simulated
 * CUDA caching allocator (best-fit blocks split from 2 MiB / 20 MiB segments,
 * merged on free, so freed addresses are reused).  Weights and optimizer state
 * are allocated before the trace starts, as in a real run.
 *
 * Because the generator made every allocation, it knows each one's true role
 * (PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
 * AUTOGRAD_DETAIL): `--truth FILE` writes them as CSV, and `--expect FILE`
 * writes the per-device numbers `memlens summary --json` must report.
 * Output is deterministic for a given set of options.
 *
 *   gen_trace [--out FILE] [--gzip] [--steps N | --size-mb M] [--seed S]
 *             [--rank R --world-size W] [--layers L] [--cold-start] [--oom]
 *             [--mix realistic|memory-heavy] [--no-stack] [--no-gpu] [--no-shapes] [--stats K]
 *             [--truth FILE] [--expect FILE]
 *
 * `--no-gpu` profiles CPU activity only (no kernels, runtime calls or flows;
 * memory events are still recorded), `--no-stack` leaves out the python
 * frames, `--no-shapes` writes record_shapes args (Input Dims / Input type
 * only) just on the ops that name their shapes instead of PyTorch 2.1+'s four
 * (Concrete Inputs, Input type, Input Strides, Input Dims) on every cpu_op, and `--stats K` adds K rounds of activation statistics per block
 * under torch.no_grad() (eager ops that allocate results and free the
 * previous temporaries: about three memory events per op).
 *
 * A whole job: `--world-size N --out DIR` without `--rank` writes one trace per
 * rank, DIR/rankR.pt.trace.json (`.gz` with --gzip), each as `--rank R` would,
 * `--jobs J` of them at a time (default: the cores).  The job's ranks share
 * their step numbers, and problems can be planted in it (`--plant` picks
 * them: N/16 slow ranks, at least one, one leaking rank, one running out of
 * memory, all different; or name them):
 *   --slow-ranks R,R..  their forward and backward kernels take 30% longer;
 *                       every other rank's gradient all-reduces wait for them
 *                       (longer collectives), as a synchronous job does
 *   --leak-rank R       keeps 64 MiB more per step (losses.append(loss) with
 *                       its graph), never freed
 *   --oom-rank R        holds 1 GiB more activations per step (an uneven
 *                       batch), then its last step runs out of memory (--oom)
 * `--expect FILE` then writes what was planted, as JSON: {"world_size",
 * "slow_ranks", "leak_rank", "oom_rank"} (null where none).
 *
 * `--mix` names the two event mixes `make bench` times: `realistic` (the
 * default: everything above, about a quarter of the events are `[memory]`,
 * as in a real profile_memory + with_stack + record_shapes trace) and
 * `memory-heavy` (= --no-gpu --no-stack --no-shapes --stats 48: about 80%
 * `[memory]`; the mix of the benchmarks before the realistic one).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "err.h"
#include "vec.h"

#define KiB 1024LL
#define MiB (1024LL * 1024)

/* ---- options ---------------------------------------------------------- */

static struct {
    const char *out, *truth, *expect;
    bool gzip, oom, cold, stack, gpu, shapes;
    int steps, rank, world, layers, stats;
    double size_mb;
    uint64_t seed;
    /* a rank of a job with planted problems (see the header) */
    bool slow;              /* this rank computes SLOW_FACTOR times slower */
    bool job_has_slow;      /* some rank of the job does: collectives wait for it */
    int64_t leak_bytes;     /* kept per step, never freed */
    int64_t skew_bytes;     /* more activations held per step */
} opt = {.steps = 3, .world = 1, .layers = 12, .seed = 1, .stack = true, .gpu = true, .shapes = true};

#define SLOW_FACTOR_PCT 130           /* a slow rank's compute kernels: 130% of the others' */
#define LEAK_PER_STEP (64 * MiB)
#define OOM_RANK_SKEW (1024 * MiB)

/* ---- deterministic random numbers (splitmix64) ------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/* A value in [lo, hi]. */
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* ---- buffered output: plain file, gzip, or an anonymous temp file ------ */

typedef struct out {
    FILE *f;
    gzFile gz;
    char *buf;
    size_t len, cap;
    uint64_t bytes;         /* everything written so far, uncompressed */
} out;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_trace: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void out_open(out *o, FILE *f, gzFile gz) {
    memset(o, 0, sizeof *o);
    o->f = f;
    o->gz = gz;
    o->cap = 4 * MiB;
    o->buf = ml_malloc(o->cap);
}

static bool discard;        /* the dry run: count bytes, write nothing */
static bool quiet;          /* a rank of a job: no ground truth, no line on stderr */

static void out_flush(out *o) {
    if (!o->len) return;
    if (discard) { o->len = 0; return; }
    if (o->gz) {
        if (gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len) die("gzip write failed");
    } else if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
        die("write failed: %s", strerror(errno));
    }
    o->len = 0;
}

static void out_mem(out *o, const void *p, size_t n) {
    o->bytes += n;
    if (o->len + n > o->cap) {
        out_flush(o);
        if (n > o->cap) {
            size_t keep = o->len;
            o->len = n;
            char *b = o->buf;
            o->buf = (char *)p;
            out_flush(o);
            o->buf = b;
            o->len = keep;
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

#define OUT(o, lit) out_mem(o, lit, sizeof(lit) - 1)
static void out_str(out *o, const char *s) { out_mem(o, s, strlen(s)); }

static void out_i64(out *o, int64_t v) {
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do *--p = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *--p = '-';
    out_mem(o, p, (size_t)(tmp + sizeof tmp - p));
}

/* Nanoseconds as Kineto writes them: microseconds with exactly 3 decimals. */
static void out_us(out *o, int64_t ns) {
    char tmp[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10), (char)('0' + ns % 10)};
    out_i64(o, ns / 1000);
    out_mem(o, tmp, 4);
}

/* A time as PyTorch 2.x writes an event's "ts": microseconds on the
 * profiler's clock, 13 digits and 3 decimals ("5738175947903.573"; the
 * clock's zero about 66 days back), which baseTimeNanoseconds makes
 * absolute.  The generator's times are ns after G.base_ns, so the file's
 * base is G.base_ns less the clock's reading at it: every absolute time
 * (and the ground truth) is the same as without the shift. */
#define KINETO_CLOCK_NS 5738175000000000LL
static void out_ts(out *o, int64_t ns) { out_us(o, ns + KINETO_CLOCK_NS); }

static void outf(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(out *o, const char *fmt, ...) {
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    out_mem(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Appends a temp file's contents to `o`. */
static void out_append_file(out *o, FILE *f) {
    if (fflush(f) || fseek(f, 0, SEEK_SET)) die("temp file: %s", strerror(errno));
    out_flush(o);
    size_t n;
    while ((n = fread(o->buf, 1, o->cap, f)) > 0) {
        o->len = n;
        o->bytes += n;
        out_flush(o);
    }
}

/* ---- names: interned once, referenced by id ---------------------------- */

static VEC(char *) names;
static struct { uint32_t *slot; size_t cap; } name_ix;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    while (*s) h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
    return h;
}

static void name_ix_put(uint32_t id) {
    size_t i = hash_str(names.v[id]) & (name_ix.cap - 1);
    while (name_ix.slot[i]) i = (i + 1) & (name_ix.cap - 1);
    name_ix.slot[i] = id + 1;
}

static uint32_t name_id(const char *s) {
    if (names.len * 2 >= name_ix.cap) {
        free(name_ix.slot);
        name_ix.cap = name_ix.cap ? name_ix.cap * 2 : 1024;
        name_ix.slot = ml_calloc(name_ix.cap, sizeof *name_ix.slot);
        for (uint32_t k = 0; k < names.len; k++) name_ix_put(k);
    }
    size_t i = hash_str(s) & (name_ix.cap - 1);
    for (; name_ix.slot[i]; i = (i + 1) & (name_ix.cap - 1))
        if (!strcmp(names.v[name_ix.slot[i] - 1], s)) return name_ix.slot[i] - 1;
    VEC_PUSH(&names, ml_strdup(s));
    name_ix.slot[i] = (uint32_t)names.len;
    return (uint32_t)names.len - 1;
}

static uint32_t namef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static uint32_t namef(const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return name_id(tmp);
}

/* ---- ground truth ------------------------------------------------------ */

enum { CAT_PARAMETER, CAT_OPTIMIZER_STATE, CAT_INPUT, CAT_TEMPORARY, CAT_ACTIVATION,
       CAT_GRADIENT, CAT_AUTOGRAD_DETAIL, CAT__COUNT };
static const char *cat_name[CAT__COUNT] = {"PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY",
                                           "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL"};

#define NO_TIME INT64_MIN

typedef struct truth_row {
    int64_t alloc_ns, free_ns;  /* absolute; NO_TIME = before the trace / never freed */
    uint64_t addr;
    int64_t bytes;
    uint8_t dev, cat;
} truth_row;
static VEC(truth_row) truth;

/* ---- simulated allocators ---------------------------------------------- */

/*
 * CUDA: like c10's CUDACachingAllocator — sizes rounded up to 512 bytes; <= 1 MiB
 * from the small pool (2 MiB segments), larger from the large pool (20 MiB
 * segments below 10 MiB, else the size rounded up to 2 MiB); best-fit over
 * free blocks, split when the rest is big enough, neighbours merged on free;
 * segments are never returned (no empty_cache).  `Bytes` is the block size.
 * CPU: the same machinery with 64-byte rounding and 64 MiB arenas, but like
 * PyTorch's CPU allocator it reports the requested size and no reserved bytes.
 */
typedef struct blk {
    uint64_t addr;
    int64_t size;
    int32_t prev, next;     /* neighbours within the segment, -1 at the ends */
    int32_t fpos;           /* index in its pool's free list, -1 if in use */
    uint8_t pool;
} blk;

typedef struct dev {
    const char *id;         /* "cuda:0", "cpu" */
    int type, index;        /* Kineto Device Type / Device Id */
    VEC(blk) blocks;
    VEC(int32_t) spare;     /* recycled block slots */
    VEC(int32_t) freel[2];  /* free blocks per pool */
    uint64_t next_addr;
    int64_t allocated, reserved;
    /* truth */
    int64_t peak, peak_ns, peak_reserved, pre_live, pre_at_peak;
    int64_t n_alloc, n_free, n_unmatched, n_oom, trace_live, trace_live_bytes;
    int64_t pre_bytes_at_start;
    int64_t cat_live[CAT__COUNT], cat_at_peak[CAT__COUNT];
    bool seen;
} dev;

enum { DEV_CUDA, DEV_CPU, NDEV };
static dev devs[NDEV];

static int32_t blk_new(dev *d, blk b) {
    int32_t i;
    if (d->spare.len) {
        i = d->spare.v[--d->spare.len];
        d->blocks.v[i] = b;
    } else {
        i = (int32_t)d->blocks.len;
        VEC_PUSH(&d->blocks, b);
    }
    return i;
}

static void free_push(dev *d, int32_t i) {
    blk *b = &d->blocks.v[i];
    b->fpos = (int32_t)d->freel[b->pool].len;
    VEC_PUSH(&d->freel[b->pool], i);
}

static void free_remove(dev *d, int32_t i) {
    blk *b = &d->blocks.v[i];
    VEC(int32_t) *fl = (void *)&d->freel[b->pool];
    int32_t last = fl->v[--fl->len];
    if (last != i) {
        fl->v[b->fpos] = last;
        d->blocks.v[last].fpos = b->fpos;
    }
    b->fpos = -1;
}

/* Returns the block index; *got = bytes the allocator accounts for it. */
static int32_t dev_alloc(dev *d, int64_t req, int64_t *got) {
    bool cpu = d->type == 0;
    int64_t size = cpu ? (req + 63) / 64 * 64 : req < 512 ? 512 : (req + 511) / 512 * 512;
    if (size == 0) size = 64;
    int pool = cpu ? 0 : size > MiB;
    int32_t best = -1;
    VEC(int32_t) *fl = (void *)&d->freel[pool];
    for (size_t k = 0; k < fl->len; k++) {
        blk *b = &d->blocks.v[fl->v[k]];
        if (b->size < size) continue;
        if (best < 0 || b->size < d->blocks.v[best].size ||
            (b->size == d->blocks.v[best].size && b->addr < d->blocks.v[best].addr))
            best = fl->v[k];
    }
    if (best < 0) {         /* new segment from the driver */
        int64_t seg = cpu ? (size > 64 * MiB ? (size + 4095) / 4096 * 4096 : 64 * MiB)
                    : pool == 0 ? 2 * MiB
                    : size < 10 * MiB ? 20 * MiB
                    : (size + 2 * MiB - 1) / (2 * MiB) * (2 * MiB);
        blk b = {.addr = d->next_addr, .size = seg, .prev = -1, .next = -1, .fpos = -1, .pool = (uint8_t)pool};
        d->next_addr += (uint64_t)((seg + 2 * MiB - 1) / (2 * MiB) * (2 * MiB));
        d->reserved += seg;
        best = blk_new(d, b);
    } else {
        free_remove(d, best);
    }
    blk *b = &d->blocks.v[best];
    int64_t rest = b->size - size;
    if (cpu ? rest >= 64 : pool == 0 ? rest >= 512 : rest > MiB) {
        blk r = {.addr = b->addr + (uint64_t)size, .size = rest, .prev = best, .next = b->next,
                 .fpos = -1, .pool = b->pool};
        int32_t ri = blk_new(d, r);
        b = &d->blocks.v[best];
        if (b->next >= 0) d->blocks.v[b->next].prev = ri;
        b->next = ri;
        b->size = size;
        free_push(d, ri);
    }
    *got = cpu ? req : b->size;
    return best;
}

static void dev_release(dev *d, int32_t i) {
    blk *b = &d->blocks.v[i];
    int32_t n = b->next, p = b->prev;
    if (n >= 0 && d->blocks.v[n].fpos >= 0) {       /* merge the next block in */
        free_remove(d, n);
        b = &d->blocks.v[i];
        b->size += d->blocks.v[n].size;
        b->next = d->blocks.v[n].next;
        if (b->next >= 0) d->blocks.v[b->next].prev = i;
        VEC_PUSH(&d->spare, n);
    }
    b = &d->blocks.v[i];
    if (p >= 0 && d->blocks.v[p].fpos >= 0) {       /* merge into the previous block */
        blk *pb = &d->blocks.v[p];
        pb->size += b->size;
        pb->next = b->next;
        if (b->next >= 0) d->blocks.v[b->next].prev = p;
        VEC_PUSH(&d->spare, i);
        return;                                     /* p is already on the free list */
    }
    free_push(d, i);
}

/* ---- the per-step record of CPU-side events ---------------------------- */

/*
 * CPU-side events are buffered per step because an op's "dur" is known only
 * when it ends; they are recorded in start order, which is the order Kineto
 * writes them.  GPU-side events (kernels, runtime calls, flows) go straight
 * to their own section, written after the CPU section as Kineto does.
 */
enum { E_OP, E_ANN, E_PY, E_MEM, E_OOM };
enum { T_MAIN, T_AUTOGRAD };

typedef struct rec {
    int64_t ts, dur;        /* ns relative to baseTimeNanoseconds */
    int64_t a, b, c, d, e, f;
    uint32_t name;
    int32_t shape;          /* record_shapes text id or -1 */
    uint8_t kind, tid;
} rec;

static struct {
    int64_t now;            /* CPU clock (ns, relative) */
    int64_t gpu_now;        /* end of the last kernel on the compute stream */
    int64_t base_ns, start_ns;
    int pid, tid[2], cur_tid;
    int64_t ext_id, corr, ev_idx, py_id, seq_nr;
    VEC(rec) recs;
    VEC(int32_t) stack;     /* open recs (ops, annotations, python frames) */
    int64_t py_root;        /* python id of the frame every step runs under */
    out cpu, gpu;           /* the two sections, in temp files */
    int64_t n_events, n_mem;
    bool in_compute;        /* forward and backward: a slow rank is slow here */
    int64_t compute_ns;     /* compute kernel time since the last collective (at normal speed) */
} G;

/* Live allocations held by the simulated program. */
typedef struct live {
    int32_t blk;
    int64_t bytes;
    uint32_t row;           /* truth row */
    uint8_t dev, pre;
} live;
static VEC(live) lives;
static VEC(int32_t) lives_spare;

static int32_t push_rec(rec r) {
    VEC_PUSH(&G.recs, r);
    return (int32_t)G.recs.len - 1;
}

static int64_t step_ns(int64_t lo, int64_t hi) { return rnd_in(lo, hi); }

static int32_t open_rec(uint8_t kind, uint32_t name, int32_t shape) {
    rec r = {.ts = G.now, .kind = kind, .tid = (uint8_t)G.cur_tid, .name = name, .shape = shape};
    if (kind == E_PY) {
        r.a = ++G.py_id;
        r.b = G.py_root;
        for (size_t k = G.stack.len; k-- > 0;) {
            rec *p = &G.recs.v[G.stack.v[k]];
            if (p->kind == E_PY && p->tid == G.cur_tid) { r.b = p->a; break; }
        }
    } else {
        r.a = ++G.ext_id;
        r.c = G.ev_idx++;
        r.b = -1;
    }
    int32_t i = push_rec(r);
    VEC_PUSH(&G.stack, i);
    G.now += step_ns(150, 900);
    return i;
}

static int32_t op_(uint32_t name, int32_t shape) { return open_rec(E_OP, name, shape); }
static int32_t op(const char *name) { return op_(name_id(name), -1); }
static int32_t ops(const char *name, int32_t shape) { return op_(name_id(name), shape); }
static int32_t ann(const char *name) { return open_rec(E_ANN, name_id(name), -1); }
static int32_t py_(uint32_t name) {
    if (!opt.stack) { VEC_PUSH(&G.stack, -1); return -1; }
    return open_rec(E_PY, name, -1);
}
static int32_t py(const char *name) { return py_(name_id(name)); }

static void end(void) {
    int32_t i = G.stack.v[--G.stack.len];
    if (i < 0) return;
    G.now += step_ns(100, 600);
    G.recs.v[i].dur = G.now - G.recs.v[i].ts;
    G.now += step_ns(20, 200);
}

/* Sets the autograd sequence number on the innermost open op. */
static void seq(int64_t s, bool backward) {
    for (size_t k = G.stack.len; k-- > 0;) {
        if (G.stack.v[k] < 0) continue;
        rec *r = &G.recs.v[G.stack.v[k]];
        if (r->kind != E_OP) continue;
        r->b = s;
        r->d = backward;
        return;
    }
}

static int64_t innermost_ext(void) {
    for (size_t k = G.stack.len; k-- > 0;) {
        if (G.stack.v[k] < 0) continue;
        rec *r = &G.recs.v[G.stack.v[k]];
        if (r->kind == E_OP || r->kind == E_ANN) return r->a;
    }
    return 0;
}

static void note_event(dev *d, int64_t ts) {
    int64_t abs_ns = G.base_ns + ts;
    if (!d->seen || d->allocated > d->peak) {
        d->peak = d->allocated;
        d->peak_ns = abs_ns;
        d->pre_at_peak = d->pre_live;
        memcpy(d->cat_at_peak, d->cat_live, sizeof d->cat_live);
    }
    int64_t res = d->type == 0 ? 0 : d->reserved;
    if (!d->seen || res > d->peak_reserved) d->peak_reserved = res;
    d->seen = true;
}

static void mem_rec(dev *d, int64_t addr, int64_t bytes) {
    rec r = {.ts = G.now, .kind = E_MEM, .tid = (uint8_t)G.cur_tid, .a = d - devs, .b = addr,
             .c = bytes, .d = d->allocated, .e = d->type == 0 ? 0 : d->reserved, .f = G.ev_idx++};
    push_rec(r);
    note_event(d, G.now);
    G.now += step_ns(40, 160);
}

/* Allocates `req` bytes of category `cat`; returns a handle for mem_free(). */
static int32_t alloc_(int dv, int64_t req, int cat, bool pre) {
    dev *d = &devs[dv];
    int64_t got;
    int32_t b = dev_alloc(d, req, &got);
    truth_row row = {.alloc_ns = pre ? NO_TIME : G.base_ns + G.now, .free_ns = NO_TIME,
                     .addr = d->blocks.v[b].addr, .bytes = got, .dev = (uint8_t)dv, .cat = (uint8_t)cat};
    VEC_PUSH(&truth, row);
    live l = {.blk = b, .bytes = got, .row = (uint32_t)truth.len - 1, .dev = (uint8_t)dv, .pre = pre};
    int32_t h;
    if (lives_spare.len) {
        h = lives_spare.v[--lives_spare.len];
        lives.v[h] = l;
    } else {
        h = (int32_t)lives.len;
        VEC_PUSH(&lives, l);
    }
    d->allocated += got;
    d->cat_live[cat] += got;
    if (pre) {
        d->pre_live += got;
    } else {
        d->n_alloc++;
        d->trace_live++;
        d->trace_live_bytes += got;
        mem_rec(d, (int64_t)row.addr, got);
    }
    return h;
}
static int32_t alloc(int dv, int64_t req, int cat) { return alloc_(dv, req, cat, false); }
static int32_t galloc(int64_t req, int cat) { return alloc(DEV_CUDA, req, cat); }

static void mem_free(int32_t h) {
    if (h < 0) return;
    live l = lives.v[h];
    if (l.blk < 0) die("internal: double free of handle %d", h);
    lives.v[h].blk = -1;
    VEC_PUSH(&lives_spare, h);
    dev *d = &devs[l.dev];
    truth.v[l.row].free_ns = G.base_ns + G.now;
    d->allocated -= l.bytes;
    d->cat_live[truth.v[l.row].cat] -= l.bytes;
    if (l.pre) {
        d->pre_live -= l.bytes;
        d->n_unmatched++;
    } else {
        d->trace_live--;
        d->trace_live_bytes -= l.bytes;
    }
    d->n_free++;
    uint64_t addr = d->blocks.v[l.blk].addr;
    dev_release(d, l.blk);
    mem_rec(d, (int64_t)addr, -l.bytes);
}

static void oom(int64_t req) {
    dev *d = &devs[DEV_CUDA];
    rec r = {.ts = G.now, .kind = E_OOM, .tid = (uint8_t)G.cur_tid, .a = DEV_CUDA, .c = req,
             .d = d->allocated, .e = d->reserved};
    push_rec(r);
    note_event(d, G.now);
    d->n_oom++;
    G.now += step_ns(1000, 3000);
}

/* ---- GPU side: runtime call on the CPU thread, kernel on stream 7, flows - */

static void gpu_flow(char ph, int64_t id, int pid, int tid, int64_t ts) {
    out *o = &G.gpu;
    OUT(o, "\n  {\n    \"ph\": \"");
    out_mem(o, &ph, 1);
    OUT(o, "\", \"id\": ");
    out_i64(o, id);
    OUT(o, ", \"pid\": ");
    out_i64(o, pid);
    OUT(o, ", \"tid\": ");
    out_i64(o, tid);
    OUT(o, ", \"ts\": ");
    out_ts(o, ts);
    if (ph == 'f')
        OUT(o, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },");
    else
        OUT(o, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },");
    G.n_events++;
}

static void gpu_x(const char *cat, const char *name, int pid, int tid, int64_t ts, int64_t dur) {
    out *o = &G.gpu;
    OUT(o, "\n  {\n    \"ph\": \"X\", \"cat\": \"");
    out_str(o, cat);
    OUT(o, "\", \"name\": \"");
    out_str(o, name);
    OUT(o, "\", \"pid\": ");
    out_i64(o, pid);
    OUT(o, ", \"tid\": ");
    out_i64(o, tid);
    OUT(o, ",\n    \"ts\": ");
    out_ts(o, ts);
    OUT(o, ", \"dur\": ");
    out_us(o, dur);
    OUT(o, ",\n    \"args\": {\n      ");
    G.n_events++;
}

typedef enum { K_KERNEL, K_MEMCPY_H2D, K_MEMCPY_D2H, K_NCCL, K_MEMSET } kkind;

/* A launch from the current CPU thread: cuda_runtime event now, device work later. */
static void launch_(kkind kk, const char *kname, int64_t gpu_ns, int64_t bytes) {
    if (!opt.gpu) { G.now += step_ns(2000, 5000); return; }
    int64_t ext = innermost_ext(), corr = ++G.corr;
    int64_t rt_ts = G.now, rt_dur = step_ns(2500, 7000);
    if (kk == K_KERNEL && G.in_compute) {   /* planted stragglers (see the header) */
        G.compute_ns += gpu_ns;
        if (opt.slow) gpu_ns = gpu_ns * SLOW_FACTOR_PCT / 100;
    } else if (kk == K_NCCL) {              /* the others wait in the collective for the slow ranks */
        if (opt.job_has_slow && !opt.slow) gpu_ns += G.compute_ns * (SLOW_FACTOR_PCT - 100) / 100;
        G.compute_ns = 0;
    }
    int cuda = devs[DEV_CUDA].index, tid = G.tid[G.cur_tid];
    int stream = kk == K_NCCL ? 20 : 7;
    int64_t k_ts = G.gpu_now > rt_ts + 4000 ? G.gpu_now + step_ns(800, 2500) : rt_ts + step_ns(4000, 9000);
    G.gpu_now = k_ts + gpu_ns;
    const char *rt = kk == K_KERNEL || kk == K_NCCL ? "cudaLaunchKernel" : kk == K_MEMSET ? "cudaMemsetAsync" : "cudaMemcpyAsync";
    const char *cat = kk == K_KERNEL || kk == K_NCCL ? "kernel" : kk == K_MEMSET ? "gpu_memset" : "gpu_memcpy";
    out *o = &G.gpu;
    gpu_x(cat, kname, cuda, stream, k_ts, gpu_ns);
    OUT(o, "\"External id\": ");
    out_i64(o, ext);
    if (kk == K_KERNEL || kk == K_NCCL) {
        int regs = (int)(corr % 7) * 16 + 32, blocks = (int)(gpu_ns / 300 + 1);
        OUT(o, ",      \"queued\": 0, \"device\": ");
        out_i64(o, cuda);
        OUT(o, ", \"context\": 1,      \"stream\": ");
        out_i64(o, stream);
        OUT(o, ", \"correlation\": ");
        out_i64(o, corr);
        OUT(o, ",      \"registers per thread\": ");
        out_i64(o, regs);
        OUT(o, ",      \"shared memory\": ");
        out_i64(o, regs > 64 ? 49152 : 0);
        outf(o, ",      \"blocks per SM\": %.6f,      \"warps per SM\": %.6f,      \"grid\": [%d, 1, 1],"
                "      \"block\": [256, 1, 1],      \"est. achieved occupancy %%\": %d\n    }\n  },",
             blocks / 108.0, blocks * 8 / 108.0, blocks, blocks > 200 ? 50 : 12);
    } else {
        OUT(o, ",      \"device\": ");
        out_i64(o, cuda);
        OUT(o, ", \"context\": 1,      \"stream\": 7, \"correlation\": ");
        out_i64(o, corr);
        OUT(o, ",      \"bytes\": ");
        out_i64(o, bytes);
        outf(o, ", \"memory bandwidth (GB/s)\": %.3f\n    }\n  },", (double)bytes / (double)(gpu_ns ? gpu_ns : 1));
    }
    gpu_flow('f', corr, cuda, stream, k_ts);
    gpu_x("cuda_runtime", rt, G.pid, tid, rt_ts, rt_dur);
    OUT(o, "\"External id\": ");
    out_i64(o, ext);
    OUT(o, ",      \"cbid\": ");
    out_i64(o, kk == K_KERNEL || kk == K_NCCL ? 211 : kk == K_MEMSET ? 51 : 41);
    OUT(o, ", \"correlation\": ");
    out_i64(o, corr);
    OUT(o, "\n    }\n  },");
    gpu_flow('s', corr, G.pid, tid, rt_ts);
    G.now += rt_dur + step_ns(100, 400);
}
static void launch(const char *kname, int64_t gpu_ns) { launch_(K_KERNEL, kname, gpu_ns, 0); }

/* A synchronising call (e.g. loss.item()): the CPU waits for the GPU. */
static void sync_gpu(void) {
    if (!opt.gpu) return;
    int64_t corr = ++G.corr, ts = G.now;
    int64_t wait = G.gpu_now > ts ? G.gpu_now - ts + step_ns(3000, 8000) : step_ns(3000, 8000);
    gpu_x("cuda_runtime", "cudaStreamSynchronize", G.pid, G.tid[G.cur_tid], ts, wait);
    OUT(&G.gpu, "\"External id\": ");
    out_i64(&G.gpu, innermost_ext());
    OUT(&G.gpu, ",      \"cbid\": 131, \"correlation\": ");
    out_i64(&G.gpu, corr);
    OUT(&G.gpu, "\n    }\n  },");
    G.now = ts + wait + step_ns(200, 600);
}

/* ---- writing the CPU-side records of one step --------------------------- */

static int32_t default_shape(uint32_t name);

static void write_recs(void) {
    out *o = &G.cpu;
    if (G.stack.len) die("internal: %zu ops still open at the end of a step", G.stack.len);
    for (size_t k = 0; k < G.recs.len; k++) {
        rec *r = &G.recs.v[k];
        int tid = G.tid[r->tid];
        G.n_events++;
        if (r->kind == E_MEM || r->kind == E_OOM) {
            dev *d = &devs[r->a];
            if (r->kind == E_MEM) {
                OUT(o, "\n  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": ");
                G.n_mem++;
            } else {
                OUT(o, "\n  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[OutOfMemory]\",\n    \"pid\": ");
            }
            out_i64(o, G.pid);
            OUT(o, ", \"tid\": ");
            out_i64(o, tid);
            OUT(o, ",\n    \"ts\": ");
            out_ts(o, r->ts);
            OUT(o, ",\n    \"args\": {\n      ");
            if (r->kind == E_MEM) {
                OUT(o, "\"Ev Idx\": ");
                out_i64(o, r->f);
                OUT(o, ", ");
            }
            OUT(o, "\"Device Type\": ");
            out_i64(o, d->type);
            OUT(o, ", \"Device Id\": ");
            out_i64(o, d->index);
            if (r->kind == E_MEM) {
                OUT(o, ", \"Addr\": ");
                out_i64(o, r->b);
            }
            OUT(o, ", \"Bytes\": ");
            out_i64(o, r->c);
            OUT(o, ", \"Total Allocated\": ");
            out_i64(o, r->d);
            OUT(o, ", \"Total Reserved\": ");
            out_i64(o, r->e);
            OUT(o, "\n    }\n  },");
            continue;
        }
        OUT(o, "\n  {\n    \"ph\": \"X\", \"cat\": \"");
        out_str(o, r->kind == E_OP ? "cpu_op" : r->kind == E_ANN ? "user_annotation" : "python_function");
        OUT(o, "\", \"name\": \"");
        out_str(o, names.v[r->name]);
        OUT(o, "\", \"pid\": ");
        out_i64(o, G.pid);
        OUT(o, ", \"tid\": ");
        out_i64(o, tid);
        OUT(o, ",\n    \"ts\": ");
        out_ts(o, r->ts);
        OUT(o, ", \"dur\": ");
        out_us(o, r->dur);
        OUT(o, ",\n    \"args\": {\n      ");
        if (r->kind == E_PY) {
            OUT(o, "\"Python parent id\": ");
            out_i64(o, r->b);
            OUT(o, ", \"Python id\": ");
            out_i64(o, r->a);
            OUT(o, ", \"Python thread\": 0\n    }\n  },");
            continue;
        }
        OUT(o, "\"External id\": ");
        out_i64(o, r->a);
        OUT(o, ",\"Record function id\": 0, ");
        if (r->shape < 0 && opt.shapes && r->kind == E_OP) r->shape = default_shape(r->name);
        if (r->shape >= 0) {
            out_str(o, names.v[r->shape]);
            OUT(o, ", ");
        }
        if (r->b >= 0) {
            OUT(o, "\"Sequence number\": ");
            out_i64(o, r->b);
            OUT(o, ", \"Fwd thread id\": ");
            out_i64(o, r->d ? 1 : 0);
            OUT(o, ", ");
        }
        OUT(o, "\"Ev Idx\": ");
        out_i64(o, r->c);
        OUT(o, "\n    }\n  },");
    }
    G.recs.len = 0;
}

/* ---- the model ---------------------------------------------------------- */

/* GPT-like: embedding, L blocks (LayerNorm, attention, LayerNorm, MLP), final
 * LayerNorm, LM head; fp32, batch B, sequence T, hidden H, vocabulary V. */
enum { B = 8, T = 1024, H = 1024, NH = 16, V = 32000 };
#define F4 4LL
#define BTH ((int64_t)B * T * H * F4)

typedef struct param { int64_t bytes; int32_t h, grad, m, v; const char *what; } param;
static VEC(param) params;
static int p_emb, p_lnf_w, p_lnf_b, p_head;
typedef struct layer_p { int ln1w, ln1b, qkvw, qkvb, projw, projb, ln2w, ln2b, fc1w, fc1b, fc2w, fc2b; } layer_p;
static VEC(layer_p) lp;

static int add_param(int64_t numel, const char *what) {
    param p = {.bytes = numel * F4, .h = -1, .grad = -1, .m = -1, .v = -1, .what = what};
    VEC_PUSH(&params, p);
    return (int)params.len - 1;
}

static void build_model(void) {
    p_emb = add_param((int64_t)V * H, "wte");
    for (int l = 0; l < opt.layers; l++) {
        layer_p x = {
            .ln1w = add_param(H, "ln_1.weight"), .ln1b = add_param(H, "ln_1.bias"),
            .qkvw = add_param(3LL * H * H, "attn.c_attn.weight"), .qkvb = add_param(3LL * H, "attn.c_attn.bias"),
            .projw = add_param((int64_t)H * H, "attn.c_proj.weight"), .projb = add_param(H, "attn.c_proj.bias"),
            .ln2w = add_param(H, "ln_2.weight"), .ln2b = add_param(H, "ln_2.bias"),
            .fc1w = add_param(4LL * H * H, "mlp.c_fc.weight"), .fc1b = add_param(4LL * H, "mlp.c_fc.bias"),
            .fc2w = add_param(4LL * H * H, "mlp.c_proj.weight"), .fc2b = add_param(H, "mlp.c_proj.bias"),
        };
        VEC_PUSH(&lp, x);
    }
    p_lnf_w = add_param(H, "ln_f.weight");
    p_lnf_b = add_param(H, "ln_f.bias");
    p_head = add_param((int64_t)V * H, "lm_head.weight");
}

/* Contiguous strides of a JSON list of dims lists: [[8, 1024], []] -> [[1024, 1], []]. */
static void strides_of(const char *dims, char *buf, size_t cap) {
    size_t n = 0;
    buf[n++] = '[';
    const char *p = dims + 1;                    /* past the outer '[' */
    for (bool first = true; (p = strchr(p, '[')); first = false) {
        int64_t d[8];
        int nd = 0;
        for (p++; *p != ']'; p++)
            if (*p >= '0' && *p <= '9') {
                if (nd < 8) d[nd++] = strtoll(p, NULL, 10);
                while (p[1] >= '0' && p[1] <= '9') p++;
            }
        n += (size_t)snprintf(buf + n, cap - n, "%s[", first ? "" : ", ");
        for (int i = 0; i < nd && n < cap; i++) {
            int64_t st = 1;
            for (int j = i + 1; j < nd; j++) st *= d[j];
            n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? ", " : "", st);
        }
        n += (size_t)snprintf(buf + n, cap - n, "]");
        if (n >= cap - 2) break;
    }
    snprintf(buf + n, cap - n, "]");
}

/* Shapes text for record_shapes, interned: PyTorch 2.1+ writes Concrete
 * Inputs (the value of each Scalar input), Input type, Input Strides and
 * Input Dims on every cpu_op; --no-shapes keeps the older two keys. */
static int32_t shape2(const char *dims, const char *types) {
    if (!opt.shapes) return (int32_t)namef("\"Input Dims\": %s, \"Input type\": %s", dims, types);
    char strides[512], concrete[256];
    strides_of(dims, strides, sizeof strides);
    size_t n = 0;
    concrete[n++] = '[';
    for (const char *t = types; (t = strchr(t, '"')) && n < sizeof concrete - 8; ) {
        const char *close = strchr(t + 1, '"');
        if (!close) break;
        bool scalar = close - t - 1 == 6 && !memcmp(t + 1, "Scalar", 6);
        n += (size_t)snprintf(concrete + n, sizeof concrete - n, "%s%s", n > 1 ? ", " : "", scalar ? "\"1\"" : "\"\"");
        t = close + 1;
    }
    snprintf(concrete + n, sizeof concrete - n, "]");
    return (int32_t)namef("\"Concrete Inputs\": %s, \"Input type\": %s, \"Input Strides\": %s, \"Input Dims\": %s",
                          concrete, types, strides, dims);
}

/* The shapes of an op that does not name its own: one of a few typical
 * argument lists, picked by its name (so an op always gets the same). */
static int32_t default_shape(uint32_t name) {
    static const char *const dims[] = {"[[8, 1024, 1024], [8, 1024, 1024]]", "[[8, 1024, 1024], []]",
                                       "[[8, 1024, 1024], [], [], []]", "[[1024, 1024]]"};
    static const char *const types[] = {"[\"float\", \"float\"]", "[\"float\", \"Scalar\"]",
                                        "[\"float\", \"\", \"\", \"\"]", "[\"float\"]"};
    static VEC(int32_t) cache;                   /* name id -> shape id + 1 */
    while (cache.len <= name) VEC_PUSH(&cache, 0);
    if (!cache.v[name]) {
        unsigned k = (unsigned)(hash_str(names.v[name]) % 4);
        cache.v[name] = shape2(dims[k], types[k]) + 1;
    }
    return cache.v[name] - 1;
}

static const char *GEMM = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";
static const char *GEMM_T = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";
static const char *EW = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
static const char *MTA = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 2, 1, 1>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 2, 1, 1>, std::multiplies<float>, float)";

static int64_t gemm_ns(int64_t m, int64_t n, int64_t k) { return 2 * m * n * k / 60000 + 3000; }
static int64_t bw_ns(int64_t bytes) { return bytes / 1500 + 2000; }

static int module_seq[8];   /* nn.Module instance counters, for names like Linear_3 */
enum { M_LINEAR, M_LAYERNORM, M_ATTN, M_MLP, M_BLOCK, M_GELU, M_EMB, M_GPT };
static const char *module_name[] = {"Linear", "LayerNorm", "CausalSelfAttention", "MLP", "Block", "GELU", "Embedding", "GPT"};
static const char *module_fwd[] = {"torch/nn/modules/linear.py(125): forward", "torch/nn/modules/normalization.py(217): forward",
                                   "model.py(58): forward", "model.py(92): forward", "model.py(112): forward",
                                   "torch/nn/modules/activation.py(734): forward", "torch/nn/modules/sparse.py(190): forward",
                                   "model.py(171): forward"};

/* nn.Module call frames as with_stack records them. */
static void module_enter(int m, int inst) {
    py_(namef("nn.Module: %s_%d", module_name[m], inst));
    py("torch/nn/modules/module.py(1747): _call_impl");
    py(module_fwd[m]);
}
static void module_exit(void) { end(); end(); end(); }

/* Forward tensors of one block, kept for backward. */
typedef struct fwd_layer { int32_t x_in, ln1, ln1_mean, ln1_rstd, qkv, att, lse, att_c, x1, ln2, ln2_mean, ln2_rstd, fc1, gelu; } fwd_layer;
static VEC(fwd_layer) saved;

static int64_t seq_counter;

static int32_t linear(int inst, int64_t in_f, int64_t out_f, int cat, bool bias) {
    module_enter(M_LINEAR, inst);
    py("<built-in function linear>");
    char dims[160];
    if (bias)
        snprintf(dims, sizeof dims, "[[%d, %d, %" PRId64 "], [%" PRId64 ", %" PRId64 "], [%" PRId64 "]]", B, T, in_f, out_f, in_f, out_f);
    else
        snprintf(dims, sizeof dims, "[[%d, %d, %" PRId64 "], [%" PRId64 ", %" PRId64 "]]", B, T, in_f, out_f, in_f);
    ops("aten::linear", shape2(dims, bias ? "[\"float\", \"float\", \"float\"]" : "[\"float\", \"float\"]"));
    op("aten::t");
    op("aten::transpose");
    op("aten::as_strided");
    end(); end(); end();
    op(bias ? "aten::addmm" : "aten::mm");
    seq(++seq_counter, false);
    int32_t h = galloc((int64_t)B * T * out_f * F4, cat);
    launch(GEMM, gemm_ns((int64_t)B * T, out_f, in_f));
    end();
    end();
    end();
    module_exit();
    return h;
}

static void layer_norm(int inst, fwd_layer *s, int32_t *out_, int32_t *mean, int32_t *rstd) {
    module_enter(M_LAYERNORM, inst);
    py("torch/nn/functional.py(2900): layer_norm");
    py("<built-in method layer_norm of type object at 0x7f3c2e8a4f40>");
    ops("aten::layer_norm", shape2("[[8, 1024, 1024], [1024], [1024], []]", "[\"float\", \"float\", \"float\", \"Scalar\"]"));
    op("aten::native_layer_norm");
    seq(++seq_counter, false);
    *out_ = galloc(BTH, CAT_ACTIVATION);
    *mean = galloc((int64_t)B * T * F4, CAT_ACTIVATION);
    *rstd = galloc((int64_t)B * T * F4, CAT_ACTIVATION);
    launch("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)", bw_ns(2 * BTH));
    end(); end();
    end(); end();
    module_exit();
    (void)s;
}

static int32_t add_tensors(int32_t dst_cat) {
    ops("aten::add", shape2("[[8, 1024, 1024], [8, 1024, 1024], []]", "[\"float\", \"float\", \"Scalar\"]"));
    seq(++seq_counter, false);
    int32_t h = galloc(BTH, dst_cat);
    launch(EW, bw_ns(3 * BTH));
    end();
    return h;
}

/* Logging of activation statistics under torch.no_grad(): per round an RMS
 * and an absolute maximum of the block's output (eager ops, each allocating
 * its result and freeing the previous temporary) and the norms of the
 * block's sixteen saved activations in one foreach op, stacked into a vector
 * that replaces the previous round's.  Everything is freed within forward. */
static void activation_stats(int rounds) {
    enum { NACT = 16 };
    int32_t logged = -1;
    for (int r = 0; r < rounds; r++) {
        op("aten::abs"); int32_t a = galloc(BTH, CAT_TEMPORARY); launch(EW, bw_ns(2 * BTH)); end();
        op("aten::amax"); int32_t mx = galloc(4, CAT_TEMPORARY); launch(EW, bw_ns(BTH)); end();
        mem_free(a);
        op("aten::pow"); int32_t sq = galloc(BTH, CAT_TEMPORARY); launch(EW, bw_ns(2 * BTH)); end();
        op("aten::mean"); int32_t mean = galloc(4, CAT_TEMPORARY); launch(EW, bw_ns(BTH)); end();
        mem_free(sq);
        op("aten::sqrt"); int32_t rms = galloc(4, CAT_TEMPORARY); launch(EW, 2000); end();
        mem_free(mean);
        int32_t norms[NACT];
        op("aten::_foreach_norm");
        for (int i = 0; i < NACT; i++) norms[i] = galloc(4, CAT_TEMPORARY);
        launch(MTA, bw_ns(NACT * BTH));
        end();
        mem_free(logged);
        op("aten::stack"); op("aten::cat"); logged = galloc(4 * (NACT + 2), CAT_TEMPORARY); launch(EW, 2000); end(); end();
        for (int i = 0; i < NACT; i++) mem_free(norms[i]);
        mem_free(mx);
        mem_free(rms);
    }
    mem_free(logged);
}

static int32_t forward(int32_t x_ids, int32_t *lsm_out, int32_t *nll_tw, int32_t *loss_out) {
    memset(module_seq, 0, sizeof module_seq);
    module_enter(M_GPT, 0);
    module_enter(M_EMB, 0);
    py("torch/nn/functional.py(2551): embedding");
    ops("aten::embedding", shape2("[[32000, 1024], [8, 1024], [], [], []]", "[\"float\", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    seq(++seq_counter, false);
    op("aten::reshape"); op("aten::view"); end(); end();
    op("aten::index_select");
    int32_t x = galloc(BTH, CAT_ACTIVATION);
    launch("void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)", bw_ns(BTH));
    end();
    op("aten::view"); end();
    end();
    end();
    module_exit();
    (void)x_ids;
    saved.len = 0;
    int lin = 0, ln = 0;
    for (int l = 0; l < opt.layers; l++) {
        fwd_layer s = {.x_in = x};
        module_enter(M_BLOCK, l);
        layer_norm(ln++, &s, &s.ln1, &s.ln1_mean, &s.ln1_rstd);
        module_enter(M_ATTN, l);
        s.qkv = linear(lin++, H, 3 * H, CAT_ACTIVATION, true);
        op("aten::split"); op("aten::narrow"); op("aten::slice"); op("aten::as_strided"); end(); end(); end(); end();
        op("aten::view"); end(); op("aten::transpose"); op("aten::as_strided"); end(); end();
        py("<built-in function scaled_dot_product_attention>");
        ops("aten::scaled_dot_product_attention", shape2("[[8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64], [], [], [], []]",
                                                         "[\"float\", \"float\", \"float\", \"\", \"Scalar\", \"Scalar\", \"\"]"));
        op("aten::_scaled_dot_product_efficient_attention");
        seq(++seq_counter, false);
        op("aten::_efficient_attention_forward");
        s.att = galloc(BTH, CAT_ACTIVATION);
        s.lse = galloc((int64_t)B * NH * T * F4, CAT_ACTIVATION);
        op("aten::empty");
        int32_t ws = galloc(4 * MiB + 128 * KiB, CAT_TEMPORARY);
        end();
        launch("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
               gemm_ns((int64_t)B * NH * T, T, 2 * H / NH) * 2);
        mem_free(ws);
        end(); end(); end();
        end();
        op("aten::transpose"); op("aten::as_strided"); end(); end();
        op("aten::contiguous");
        op("aten::clone");
        seq(++seq_counter, false);
        op("aten::empty_like");
        op("aten::empty_strided");
        s.att_c = galloc(BTH, CAT_ACTIVATION);
        end(); end();
        op("aten::copy_");
        launch(EW, bw_ns(2 * BTH));
        end();
        end(); end();
        op("aten::view"); end();
        int32_t proj = linear(lin++, H, H, CAT_TEMPORARY, true);
        module_exit();
        s.x1 = add_tensors(CAT_ACTIVATION);
        mem_free(proj);
        layer_norm(ln++, &s, &s.ln2, &s.ln2_mean, &s.ln2_rstd);
        module_enter(M_MLP, l);
        s.fc1 = linear(lin++, H, 4 * H, CAT_ACTIVATION, true);
        module_enter(M_GELU, l);
        py("<built-in function gelu>");
        ops("aten::gelu", shape2("[[8, 1024, 4096], []]", "[\"float\", \"\"]"));
        seq(++seq_counter, false);
        s.gelu = galloc(4 * BTH, CAT_ACTIVATION);
        launch("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)", bw_ns(8 * BTH));
        end(); end();
        module_exit();
        int32_t fc2 = linear(lin++, 4 * H, H, CAT_TEMPORARY, true);
        module_exit();
        x = add_tensors(CAT_ACTIVATION);
        mem_free(fc2);
        activation_stats(opt.stats);
        module_exit();
        VEC_PUSH(&saved, s);
    }
    fwd_layer f = {.x_in = x};
    layer_norm(ln++, &f, &f.ln1, &f.ln1_mean, &f.ln1_rstd);
    VEC_PUSH(&saved, f);
    int32_t logits = linear(lin++, H, V, CAT_TEMPORARY, false);
    module_exit();

    /* loss = F.cross_entropy(logits.view(-1, V), y.view(-1)) in the training loop */
    py("torch/nn/functional.py(3479): cross_entropy");
    py("<built-in function cross_entropy_loss>");
    ops("aten::cross_entropy_loss", shape2("[[8192, 32000], [8192], [], [], [], []]", "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    op("aten::log_softmax");
    op("aten::_log_softmax");
    seq(++seq_counter, false);
    *lsm_out = galloc((int64_t)B * T * V * F4, CAT_ACTIVATION);
    launch("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)", bw_ns(2LL * B * T * V * F4));
    end(); end();
    op("aten::nll_loss_nd");
    op("aten::nll_loss");
    op("aten::nll_loss_forward");
    seq(++seq_counter, false);
    *loss_out = galloc(4, CAT_ACTIVATION);
    *nll_tw = galloc(4, CAT_ACTIVATION);
    launch("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)", 20000);
    end(); end(); end();
    end();
    end(); end();
    mem_free(logits);
    return x;
}

/* autograd::engine::evaluate_function: NAME wrapping the NAME node. */
static int64_t bw_seq;
static void node_begin(const char *node) {
    op_(namef("autograd::engine::evaluate_function: %s", node), -1);
    seq(bw_seq, true);
    op(node);
    seq(bw_seq, true);
    bw_seq--;
}
static void accumulate_grad(int pi) {
    (void)pi;
    op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    op("torch::autograd::AccumulateGrad");
    op("aten::detach"); op("detach"); end(); end();
    end(); end();
}

/* grad_in = dY @ W; grad_w = dY^T @ X; grad_b = sum(dY). */
static int32_t addmm_backward(const char *node, int64_t in_f, int64_t out_f, int pw, int pb) {
    node_begin(node);
    op("aten::t"); op("aten::transpose"); op("aten::as_strided"); end(); end(); end();
    op("aten::mm");
    int32_t gin = galloc((int64_t)B * T * in_f * F4, CAT_AUTOGRAD_DETAIL);
    launch(GEMM, gemm_ns((int64_t)B * T, in_f, out_f));
    end();
    op("aten::t"); op("aten::transpose"); op("aten::as_strided"); end(); end(); end();
    op("aten::mm");
    params.v[pw].grad = galloc(in_f * out_f * F4, CAT_GRADIENT);
    launch(GEMM_T, gemm_ns(in_f, out_f, (int64_t)B * T));
    end();
    op("aten::t"); op("aten::transpose"); op("aten::as_strided"); end(); end(); end();
    if (pb >= 0) {
        op("aten::sum");
        params.v[pb].grad = galloc(out_f * F4, CAT_GRADIENT);
        launch("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)", bw_ns(B * T * out_f * F4));
        end();
        op("aten::view"); end();
    }
    end();
    return gin;
}

static void node_end(void) { end(); }

static int32_t ln_backward(int32_t mean, int32_t rstd, int32_t xin, int pw, int pb, int32_t gout) {
    node_begin("NativeLayerNormBackward0");
    op("aten::native_layer_norm_backward");
    int32_t gin = galloc(BTH, CAT_AUTOGRAD_DETAIL);
    params.v[pw].grad = galloc(H * F4, CAT_GRADIENT);
    params.v[pb].grad = galloc(H * F4, CAT_GRADIENT);
    launch("void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)", bw_ns(3 * BTH));
    launch("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)", bw_ns(2 * BTH));
    end();
    end();
    mem_free(gout);
    mem_free(mean);
    mem_free(rstd);
    mem_free(xin);
    node_end();
    accumulate_grad(pw);
    accumulate_grad(pb);
    return gin;
}

/* The autograd thread's part of loss.backward(). Frees what forward saved. */
static void backward(int32_t lsm, int32_t nll_tw, int32_t seed) {
    bw_seq = seq_counter;
    /* NllLossBackward0 -> LogSoftmaxBackward0 -> MmBackward0 (lm_head) */
    node_begin("NllLossBackward0");
    op("aten::nll_loss_backward");
    int32_t g_lsm = galloc((int64_t)B * T * V * F4, CAT_AUTOGRAD_DETAIL);
    op("aten::zero_"); op("aten::fill_"); launch(EW, bw_ns((int64_t)B * T * V * F4)); end(); end();
    launch("void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)", 30000);
    end();
    end();
    mem_free(seed);
    mem_free(nll_tw);
    node_end();
    node_begin("LogSoftmaxBackward0");
    op("aten::_log_softmax_backward_data");
    int32_t g_logits = galloc((int64_t)B * T * V * F4, CAT_AUTOGRAD_DETAIL);
    launch("void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, int)", bw_ns(3LL * B * T * V * F4));
    end();
    end();
    mem_free(g_lsm);
    mem_free(lsm);
    node_end();
    fwd_layer *lf = &saved.v[saved.len - 1];
    int32_t g = addmm_backward("MmBackward0", H, V, p_head, -1);
    mem_free(g_logits);
    mem_free(lf->ln1);
    node_end();
    accumulate_grad(p_head);
    g = ln_backward(lf->ln1_mean, lf->ln1_rstd, lf->x_in, p_lnf_w, p_lnf_b, g);

    for (int l = opt.layers - 1; l >= 0; l--) {
        fwd_layer *s = &saved.v[l];
        layer_p *p = &lp.v[l];
        node_begin("AddBackward0"); end(); node_end();
        int32_t g1 = addmm_backward("AddmmBackward0", 4 * H, H, p->fc2w, p->fc2b);
        mem_free(s->gelu);
        node_end();
        accumulate_grad(p->fc2w); accumulate_grad(p->fc2b);
        node_begin("GeluBackward0");
        op("aten::gelu_backward");
        int32_t g2 = galloc(4 * BTH, CAT_AUTOGRAD_DETAIL);
        launch(EW, bw_ns(12 * BTH));
        end();
        end();
        mem_free(g1);
        mem_free(s->fc1);
        node_end();
        int32_t g3 = addmm_backward("AddmmBackward0", H, 4 * H, p->fc1w, p->fc1b);
        mem_free(g2);
        mem_free(s->ln2);
        node_end();
        accumulate_grad(p->fc1w); accumulate_grad(p->fc1b);
        int32_t g4 = ln_backward(s->ln2_mean, s->ln2_rstd, s->x1, p->ln2w, p->ln2b, g3);
        /* the residual branch: the engine accumulates in place */
        op("aten::add_"); launch(EW, bw_ns(3 * BTH)); end();
        mem_free(g4);
        node_begin("AddBackward0"); end(); node_end();
        int32_t g5 = addmm_backward("AddmmBackward0", H, H, p->projw, p->projb);
        mem_free(s->att_c);
        node_end();
        accumulate_grad(p->projw); accumulate_grad(p->projb);
        node_begin("ViewBackward0"); op("aten::reshape"); op("aten::view"); end(); end(); end(); node_end();
        node_begin("CloneBackward0"); end(); node_end();
        node_begin("TransposeBackward0"); op("aten::transpose"); op("aten::as_strided"); end(); end(); end(); node_end();
        node_begin("ScaledDotProductEfficientAttentionBackward0");
        op("aten::_scaled_dot_product_efficient_attention_backward");
        op("aten::_efficient_attention_backward");
        int32_t gqkv = galloc(3 * BTH, CAT_AUTOGRAD_DETAIL);
        op("aten::empty");
        int32_t ws = galloc((int64_t)B * NH * T * F4, CAT_TEMPORARY);
        end();
        op("aten::zeros"); op("aten::empty"); int32_t ws2 = galloc(B * NH * T * 64LL, CAT_TEMPORARY); end(); op("aten::zero_"); op("aten::fill_"); launch_(K_MEMSET, "Memset (Device)", 4000, B * NH * T * 64LL); end(); end(); end();
        launch("fmha_cutlassB_f32_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, float, true, false, true, 64, 64, 64, false>::Params)",
               gemm_ns((int64_t)B * NH * T, T, 2 * H / NH) * 5);
        mem_free(ws);
        mem_free(ws2);
        end(); end(); end();
        mem_free(g5);
        mem_free(s->att);
        mem_free(s->lse);
        mem_free(s->qkv);
        node_end();
        node_begin("SplitBackward0"); op("aten::cat"); end(); end(); node_end();
        int32_t g6 = addmm_backward("AddmmBackward0", H, 3 * H, p->qkvw, p->qkvb);
        mem_free(gqkv);
        mem_free(s->ln1);
        node_end();
        accumulate_grad(p->qkvw); accumulate_grad(p->qkvb);
        int32_t g7 = ln_backward(s->ln1_mean, s->ln1_rstd, s->x_in, p->ln1w, p->ln1b, g6);
        op("aten::add_"); launch(EW, bw_ns(3 * BTH)); end();
        mem_free(g7);
        if (opt.world > 1 && (l % 3 == 0)) {       /* DDP bucket ready: all-reduce it */
            op("nccl:all_reduce");
            op("record_param_comms");
            launch_(K_NCCL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 900000 + 100000 * (int64_t)opt.world, 0);
            end(); end();
        }
    }
    node_begin("EmbeddingBackward0");
    op("aten::embedding_backward");
    op("aten::embedding_dense_backward");
    int32_t srt = galloc((int64_t)B * T * 8, CAT_TEMPORARY);
    int32_t srt2 = galloc((int64_t)B * T * 8, CAT_TEMPORARY);
    op("aten::zeros"); op("aten::empty");
    params.v[p_emb].grad = galloc((int64_t)V * H * F4, CAT_GRADIENT);
    end(); op("aten::zero_"); op("aten::fill_"); launch(EW, bw_ns((int64_t)V * H * F4)); end(); end(); end();
    launch("void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long const*, float const*, float*, int, long, int, int)", bw_ns(BTH));
    mem_free(srt);
    mem_free(srt2);
    end(); end();
    end();
    mem_free(g);
    node_end();
    accumulate_grad(p_emb);
}

/* ---- one training step ------------------------------------------------- */

static struct { int32_t x_cpu, y_cpu, x, y, loss; } carry = {-1, -1, -1, -1, -1};

static void to_gpu(int32_t *dst) {
    py("<built-in method to of Tensor object at 0x7f3b1c2d9e90>");
    ops("aten::to", shape2("[[8, 1024], [], [], [], [], []]", "[\"long int\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]"));
    op("aten::_to_copy");
    op("aten::empty_strided");
    *dst = galloc((int64_t)B * T * 8, CAT_INPUT);
    end();
    op("aten::copy_");
    launch_(K_MEMCPY_H2D, "Memcpy HtoD (Pageable -> Device)", 9000, (int64_t)B * T * 8);
    end();
    end(); end();
    end();
}

static void foreach_op(const char *name, int nparams, int64_t bytes_total) {
    op(name);
    int launches = (nparams + 23) / 24;
    for (int k = 0; k < launches; k++) launch(MTA, bw_ns(bytes_total / launches * 3));
    end();
}

static void train_step(int n, bool first, bool last) {
    char nm[64];
    snprintf(nm, sizeof nm, "ProfilerStep#%d", n);
    G.cur_tid = T_MAIN;
    ann(nm);
    py("train.py(143): train_step");

    /* x, y = next(loader): collate B samples on the CPU */
    ann("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    py("torch/utils/data/dataloader.py(708): __next__");
    py("torch/utils/data/dataloader.py(764): _next_data");
    py("torch/utils/data/_utils/fetch.py(52): fetch");
    int32_t samples[2 * B];
    for (int i = 0; i < B; i++) {
        py("data.py(41): __getitem__");
        for (int j = 0; j < 2; j++) {
            op("aten::slice"); op("aten::as_strided"); end(); end();
            op("aten::clone"); op("aten::empty_like"); op("aten::empty");
            samples[2 * i + j] = alloc(DEV_CPU, (int64_t)T * 8, CAT_INPUT);
            end(); end(); op("aten::copy_"); end(); end();
        }
        end();
    }
    py("torch/utils/data/_utils/collate.py(398): default_collate");
    int32_t xc = -1, yc = -1;
    for (int j = 0; j < 2; j++) {
        ops("aten::stack", shape2("[[], []]", "[\"TensorList\", \"Scalar\"]"));
        op("aten::cat");
        *(j ? &yc : &xc) = alloc(DEV_CPU, (int64_t)B * T * 8, CAT_INPUT);
        end(); end();
    }
    end();
    for (int i = 0; i < 2 * B; i++) mem_free(samples[i]);
    end(); end(); end();
    end();
    /* rebinding x, y drops the previous batch */
    mem_free(carry.x_cpu);
    mem_free(carry.y_cpu);
    carry.x_cpu = xc;
    carry.y_cpu = yc;
    int32_t x, y;
    to_gpu(&x);
    to_gpu(&y);
    mem_free(carry.x);
    mem_free(carry.y);
    carry.x = x;
    carry.y = y;

    int32_t lsm, tw, loss;
    int32_t skew = -1;
    G.in_compute = true;
    G.compute_ns = 0;
    if (opt.skew_bytes) {       /* an uneven batch: more activations on this rank */
        op("aten::empty");
        skew = galloc(opt.skew_bytes, CAT_ACTIVATION);
        end();
    }
    forward(x, &lsm, &tw, &loss);
    mem_free(carry.loss);
    carry.loss = loss;

    /* loss.backward(): the main thread waits while the autograd thread works */
    py("torch/_tensor.py(626): backward");
    py("torch/autograd/__init__.py(347): backward");
    op("aten::ones_like"); op("aten::empty_like"); op("aten::empty_strided");
    int32_t seed = galloc(4, CAT_AUTOGRAD_DETAIL);
    end(); end(); op("aten::fill_"); launch(EW, 2000); end(); end();
    py("torch/autograd/graph.py(823): _engine_run_backward");
    py("<built-in method run_backward of torch._C._EngineBase object at 0x7f3b7a1e2c40>");
    G.cur_tid = T_AUTOGRAD;
    G.now += step_ns(5000, 15000);
    backward(lsm, tw, seed);
    G.in_compute = false;
    mem_free(skew);
    G.now += step_ns(2000, 8000);
    G.cur_tid = T_MAIN;
    end(); end(); end(); end();

    /* torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0) */
    int np_ = (int)params.len;
    int64_t pbytes = 0;
    for (int i = 0; i < np_; i++) pbytes += params.v[i].bytes;
    py("torch/nn/utils/clip_grad.py(79): clip_grad_norm_");
    op("aten::_foreach_norm");
    int32_t *norms = ml_malloc((size_t)np_ * sizeof *norms);
    for (int i = 0; i < np_; i++) norms[i] = galloc(4, CAT_TEMPORARY);
    launch("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, 2, float, float>, float*, int>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, 2, float, float>, float*, int)", bw_ns(pbytes));
    end();
    op("aten::stack"); op("aten::cat"); int32_t st = galloc(4LL * np_, CAT_TEMPORARY); launch(EW, 3000); end(); end();
    op("aten::linalg_vector_norm"); int32_t tn = galloc(4, CAT_TEMPORARY); launch(EW, 3000); end();
    for (int i = 0; i < np_; i++) mem_free(norms[i]);
    mem_free(st);
    op("aten::add"); int32_t t1 = galloc(4, CAT_TEMPORARY); launch(EW, 2000); end();
    op("aten::reciprocal"); int32_t t2 = galloc(4, CAT_TEMPORARY); launch(EW, 2000); end();
    mem_free(t1);
    op("aten::mul"); int32_t t3 = galloc(4, CAT_TEMPORARY); launch(EW, 2000); end();
    mem_free(t2);
    op("aten::clamp"); int32_t t4 = galloc(4, CAT_TEMPORARY); launch(EW, 2000); end();
    mem_free(t3);
    foreach_op("aten::_foreach_mul_", np_, pbytes);
    mem_free(t4);
    mem_free(tn);
    end();

    /* optimizer.step() */
    ann("Optimizer.step#AdamW.step");
    py("torch/optim/optimizer.py(487): wrapper");
    py("torch/optim/optimizer.py(91): _use_grad");
    py("torch/optim/adamw.py(220): step");
    if (first && opt.cold) {    /* lazy state init: exp_avg, exp_avg_sq, step */
        py("torch/optim/adamw.py(150): _init_group");
        for (int i = 0; i < np_; i++) {
            op("aten::scalar_tensor"); op("aten::empty");
            alloc(DEV_CPU, 4, CAT_OPTIMIZER_STATE);
            end(); op("aten::fill_"); end(); end();
            for (int j = 0; j < 2; j++) {
                op("aten::zeros_like"); op("aten::empty_like"); op("aten::empty_strided");
                int32_t h = galloc(params.v[i].bytes, CAT_OPTIMIZER_STATE);
                if (j) params.v[i].v = h; else params.v[i].m = h;
                end(); end(); op("aten::zero_"); op("aten::fill_"); launch(EW, bw_ns(params.v[i].bytes)); end(); end(); end();
            }
        }
        end();
    }
    py("torch/optim/adamw.py(763): adamw");
    py("torch/optim/adamw.py(578): _multi_tensor_adamw");
    op("aten::_foreach_add_"); end();                      /* step counters live on the CPU */
    foreach_op("aten::_foreach_mul_", np_, pbytes);        /* decoupled weight decay */
    foreach_op("aten::_foreach_lerp_", np_, 2 * pbytes);
    foreach_op("aten::_foreach_mul_", np_, pbytes);
    foreach_op("aten::_foreach_addcmul_", np_, 2 * pbytes);
    op("aten::_foreach_sqrt");
    int32_t *sq = ml_malloc((size_t)np_ * sizeof *sq);
    for (int i = 0; i < np_; i++) sq[i] = galloc(params.v[i].bytes, CAT_TEMPORARY);
    for (int k = 0; k < (np_ + 23) / 24; k++) launch(MTA, bw_ns(pbytes / ((np_ + 23) / 24) * 2));
    end();
    foreach_op("aten::_foreach_div_", np_, pbytes);
    foreach_op("aten::_foreach_add_", np_, pbytes);
    foreach_op("aten::_foreach_addcdiv_", np_, 3 * pbytes);
    for (int i = 0; i < np_; i++) mem_free(sq[i]);
    end(); end(); end(); end(); end();
    end();

    /* optimizer.zero_grad(): set_to_none frees every gradient */
    ann("Optimizer.zero_grad#AdamW.zero_grad");
    py("torch/optim/optimizer.py(945): zero_grad");
    for (int i = 0; i < np_; i++) { mem_free(params.v[i].grad); params.v[i].grad = -1; }
    end();
    end();

    /* print(loss.item()) */
    py("<method 'item' of 'torch._C.TensorBase' objects>");
    op("aten::item");
    op("aten::_local_scalar_dense");
    launch_(K_MEMCPY_D2H, "Memcpy DtoH (Device -> Pageable)", 2000, 4);
    sync_gpu();
    end(); end(); end();

    if (opt.leak_bytes) {       /* losses.append(loss): the graph's buffers stay */
        py("train.py(158): train_step");
        op("aten::empty");
        galloc(opt.leak_bytes, CAT_ACTIVATION);
        end();
        end();
    }
    if (last && opt.oom) {      /* torch.empty(100 GiB) by mistake */
        py("train.py(160): train_step");
        op("aten::empty");
        oom(100LL * 1024 * MiB);
        end();
        end();
    }
    free(norms);
    free(sq);
    end();
    end();
}

/* ---- the file around the events ---------------------------------------- */

static void write_header(out *o) {
    OUT(o, "\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [");
    for (int i = 0; i < 8; i++) {
        outf(o, "%s\n    {\n      \"id\": %d, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
                "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
                "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
                "      \"sharedMemPerBlock\": 49152, \"numSms\": 108\n"
                "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 166912, \"sharedMemPerMultiprocessor\": 167936\n"
                "    }", i ? "," : "", i);
    }
    OUT(o, "\n    ],");
    outf(o, "\n      \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, \"pg_count\": 1, "
            "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"pg_size\": %d, \"ranks\": [",
         opt.rank, opt.world, opt.world);
    for (int r = 0; r < opt.world && r < 4096; r++) outf(o, "%s%d", r ? ", " : "", r);
    OUT(o, "]}], \"nccl_version\": \"2.21.5\"},");
    OUT(o, "\n      \"cupti_version\": 24,\n      \"cuda_runtime_version\": 12040,\n      \"cuda_driver_version\": 12040,"
           "\n      \"profile_memory\": 1,\n      \"record_shapes\": 1,");
    outf(o, "\n      \"with_stack\": %d,", opt.stack);
    OUT(o, "\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
    out_i64(o, G.base_ns - KINETO_CLOCK_NS);
    OUT(o, ",\n  \"traceEvents\": [");
}

static void meta_event(out *o, const char *what, int pid, int tid, int64_t ts, const char *key, const char *val, bool str) {
    OUT(o, "\n  {\n    \"name\": \"");
    out_str(o, what);
    OUT(o, "\", \"ph\": \"M\", \"ts\": ");
    out_ts(o, ts);
    OUT(o, ", \"pid\": ");
    out_i64(o, pid);
    OUT(o, ", \"tid\": ");
    out_i64(o, tid);
    OUT(o, ",\n    \"args\": {\n      \"");
    out_str(o, key);
    OUT(o, "\": ");
    if (str) OUT(o, "\"");
    out_str(o, val);
    if (str) OUT(o, "\"");
    OUT(o, "\n    }\n  },");
    G.n_events++;
}

static void write_trailer(out *o, int64_t end_ns, const char *trace_name) {
    char v[64];
    int cuda = devs[DEV_CUDA].index;
    int64_t t0 = G.start_ns;
    meta_event(o, "process_name", G.pid, 0, t0, "name", "python3.11", true);
    meta_event(o, "process_labels", G.pid, 0, t0, "labels", "CPU", true);
    snprintf(v, sizeof v, "%d", G.pid);
    meta_event(o, "process_sort_index", G.pid, 0, t0, "sort_index", v, false);
    if (opt.gpu) {
        meta_event(o, "process_name", cuda, 0, t0, "name", "python3.11", true);
        snprintf(v, sizeof v, "GPU %d", cuda);
        meta_event(o, "process_labels", cuda, 0, t0, "labels", v, true);
        snprintf(v, sizeof v, "%d", 5000000 + cuda);
        meta_event(o, "process_sort_index", cuda, 0, t0, "sort_index", v, false);
        meta_event(o, "thread_name", cuda, 7, t0, "name", "stream 7", true);
        meta_event(o, "thread_sort_index", cuda, 7, t0, "sort_index", "7", false);
        if (opt.world > 1) {
            meta_event(o, "thread_name", cuda, 20, t0, "name", "stream 20 ", true);
            meta_event(o, "thread_sort_index", cuda, 20, t0, "sort_index", "20", false);
        }
    }
    for (int t = 0; t < 2; t++) {
        snprintf(v, sizeof v, "thread %d (%s)", G.tid[t], t ? "pt_autograd_0" : "python3.11");
        meta_event(o, "thread_name", G.pid, G.tid[t], t0, "name", v, true);
        snprintf(v, sizeof v, "%d", G.tid[t]);
        meta_event(o, "thread_sort_index", G.pid, G.tid[t], t0, "sort_index", v, false);
    }
    OUT(o, "\n  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    out_ts(o, t0);
    OUT(o, ", \"dur\": ");
    out_us(o, end_ns - t0);
    OUT(o, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
           "    \"args\": {\n      \"Op count\": 0\n    }\n  },");
    OUT(o, "\n  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
    out_ts(o, t0);
    OUT(o, ",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  },");
    OUT(o, "\n  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
           "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    out_ts(o, t0);
    OUT(o, "\n  },");
    OUT(o, "\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    out_ts(o, end_ns);
    OUT(o, "\n  }\n  ],");
    OUT(o, "\n  \"traceName\": \"");
    out_str(o, trace_name);
    OUT(o, "\"\n}");
    G.n_events += 4;
}

/* The long-lived python frames every step runs under (they start before the trace). */
static void write_root_frames(out *o, int64_t end_ns) {
    static const char *frames[] = {"train.py(187): <module>", "train.py(171): main", "train.py(158): train"};
    for (int i = 0; i < 3; i++) {
        OUT(o, "\n  {\n    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"");
        out_str(o, frames[i]);
        OUT(o, "\", \"pid\": ");
        out_i64(o, G.pid);
        OUT(o, ", \"tid\": ");
        out_i64(o, G.tid[T_MAIN]);
        OUT(o, ",\n    \"ts\": ");
        out_ts(o, G.start_ns);
        OUT(o, ", \"dur\": ");
        out_us(o, end_ns - G.start_ns);
        OUT(o, ",\n    \"args\": {\n      \"Python parent id\": ");
        out_i64(o, i);
        OUT(o, ", \"Python id\": ");
        out_i64(o, i + 1);
        OUT(o, ", \"Python thread\": 0\n    }\n  },");
        G.n_events++;
    }
}

/* ---- ground truth output ---------------------------------------------- */

static void write_expect(FILE *f) {
    fprintf(f, "{\"generator\": \"gen_trace\", \"seed\": %" PRIu64 ", \"rank\": %d, \"base_time_ns\": %" PRId64
               ", \"events\": %" PRId64 ", \"memory_events\": %" PRId64 ",\n \"devices\": [",
            opt.seed, opt.rank, G.base_ns, G.n_events, G.n_mem);
    for (int i = 0; i < NDEV; i++) {
        dev *d = &devs[i];
        int64_t never = 0, never_bytes = 0;
        never = d->trace_live;
        never_bytes = d->trace_live_bytes;
        fprintf(f, "%s\n  {\"id\": \"%s\", \"peak_allocated_bytes\": %" PRId64 ", \"peak_allocated_time_ns\": %" PRId64
                   ", \"peak_reserved_bytes\": %" PRId64 ", \"alloc_events\": %" PRId64 ", \"free_events\": %" PRId64
                   ", \"unmatched_frees\": %" PRId64 ", \"never_freed\": %" PRId64 ", \"never_freed_bytes\": %" PRId64
                   ", \"before_trace_bytes_at_peak\": %" PRId64 ", \"before_trace_bytes_at_start\": %" PRId64
                   ", \"oom_events\": %" PRId64 ",\n   \"categories_at_peak\": {",
                i ? "," : "", d->id, d->peak, d->peak_ns, d->peak_reserved, d->n_alloc, d->n_free,
                d->n_unmatched, never, never_bytes, d->pre_at_peak, d->pre_bytes_at_start, d->n_oom);
        for (int c = 0; c < CAT__COUNT; c++)
            fprintf(f, "%s\"%s\": %" PRId64, c ? ", " : "", cat_name[c], d->cat_at_peak[c]);
        fprintf(f, "}}");
    }
    fprintf(f, "]}\n");
}

static void write_truth(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) die("%s: %s", path, strerror(errno));
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fputs("device,addr,alloc_ts_ns,free_ts_ns,bytes,category\n", f);
    for (size_t i = 0; i < truth.len; i++) {
        truth_row *r = &truth.v[i];
        fprintf(f, "%s,%" PRIu64 ",", devs[r->dev].id, r->addr);
        if (r->alloc_ns != NO_TIME) fprintf(f, "%" PRId64, r->alloc_ns);
        fputc(',', f);
        if (r->free_ns != NO_TIME) fprintf(f, "%" PRId64, r->free_ns);
        fprintf(f, ",%" PRId64 ",%s\n", r->bytes, cat_name[r->cat]);
    }
    if (fclose(f)) die("%s: %s", path, strerror(errno));
}

/* ---- the training loop --------------------------------------------------- */

/* Runs the steps (--steps, or until --size-mb is reached); returns how many,
 * and the end of the trace window in *end_ns. */
static int run_steps(int64_t *end_ns) {
    int64_t target = (int64_t)(opt.size_mb * 1e6);
    /* the ranks of a job run the same steps: their number from the seed alone */
    int first_step = 5 + (int)((opt.world > 1 ? opt.seed * 0x9E3779B97F4A7C15ULL >> 40 : rnd()) % 21);
    int n = 0;
    for (;; n++) {
        bool last = target > 0 ? false : n + 1 >= opt.steps;
        train_step(first_step + n, n == 0, last);
        write_recs();
        G.now += step_ns(100000, 400000);
        if (last) break;
        /* --size-mb: stop at the step that brings the file to the target size
         * (about 8 KB of header and trailer around the two sections) */
        if (target > 0 && (int64_t)(G.cpu.bytes + G.gpu.bytes) + 8000 >= target) {
            if (!opt.oom) break;
            opt.steps = n + 2;      /* one more step, carrying the OOM */
            target = 0;
        }
    }
    *end_ns = (G.now > G.gpu_now ? G.now : G.gpu_now) + 50000;
    return n + 1;
}

/* ---- main --------------------------------------------------------------- */

static void usage(void) {
    fputs("usage: gen_trace [--out FILE] [--gzip] [--steps N | --size-mb M] [--seed S]\n"
          "                 [--rank R --world-size W] [--layers L] [--cold-start] [--oom]\n"
          "                 [--mix realistic|memory-heavy] [--no-stack] [--no-gpu] [--no-shapes] [--stats K]\n"
          "                 [--truth FILE.csv] [--expect FILE.json]\n"
          "       gen_trace --world-size N --out DIR [--jobs J] [--plant | --slow-ranks R,R.. --leak-rank R\n"
          "                 --oom-rank R] [--expect FILE.json] [the options above]\n"
          "Writes a PyTorch 2.x-style Kineto trace (profile_memory=True) of a GPT-like\n"
          "training loop, and the ground truth memlens should report for it; or a whole\n"
          "job, one trace per rank in DIR, with planted problems.\n", stderr);
    exit(2);
}

static long long num_arg(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) usage();
    char *end_;
    errno = 0;
    long long v = strtoll(argv[++*i], &end_, 10);
    if (errno || *end_ || v < 0) die("bad number for %s: %s", argv[*i - 1], argv[*i]);
    return v;
}

/* The ranks of a job that --plant or the options name. */
static struct {
    bool plant;
    int leak, oom, jobs;
    VEC(int) slow;
} job = {.leak = -1, .oom = -1};

static void parse_ranks(const char *list, int world) {
    char *end_;
    for (const char *p = list; *p; p = *end_ == ',' ? end_ + 1 : end_) {
        long r = strtol(p, &end_, 10);
        if (end_ == p || r < 0 || r >= world || (*end_ && *end_ != ',')) die("--slow-ranks %s: expected ranks below --world-size, comma-separated", list);
        VEC_PUSH(&job.slow, (int)r);
    }
}

static int generate_one(void);
static int generate_job(void);

int main(int argc, char **argv) {
    const char *slow_list = NULL;
    bool rank_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--out") && i + 1 < argc) opt.out = argv[++i];
        else if (!strcmp(a, "--truth") && i + 1 < argc) opt.truth = argv[++i];
        else if (!strcmp(a, "--expect") && i + 1 < argc) opt.expect = argv[++i];
        else if (!strcmp(a, "--gzip")) opt.gzip = true;
        else if (!strcmp(a, "--oom")) opt.oom = true;
        else if (!strcmp(a, "--cold-start")) opt.cold = true;
        else if (!strcmp(a, "--mix") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "memory-heavy")) opt.stack = false, opt.gpu = false, opt.shapes = false, opt.stats = 48;
            else if (strcmp(m, "realistic")) die("unknown --mix %s (realistic or memory-heavy)", m);
        } else if (!strcmp(a, "--no-stack")) opt.stack = false;
        else if (!strcmp(a, "--no-gpu")) opt.gpu = false;
        else if (!strcmp(a, "--no-shapes")) opt.shapes = false;
        else if (!strcmp(a, "--steps")) opt.steps = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--seed")) opt.seed = (uint64_t)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--rank")) opt.rank = (int)num_arg(argc, argv, &i), rank_given = true;
        else if (!strcmp(a, "--plant")) job.plant = true;
        else if (!strcmp(a, "--slow-ranks") && i + 1 < argc) slow_list = argv[++i];
        else if (!strcmp(a, "--leak-rank")) job.leak = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--oom-rank")) job.oom = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--jobs")) job.jobs = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--world-size")) opt.world = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--layers")) opt.layers = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--stats")) opt.stats = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--size-mb") && i + 1 < argc) opt.size_mb = atof(argv[++i]);
        else usage();
    }
    if (opt.steps < 1 || opt.layers < 1 || opt.layers > 1000 || opt.world < 1 || opt.rank >= opt.world || opt.stats > 1000)
        die("need --steps >= 1, 1 <= --layers <= 1000, 0 <= --rank < --world-size, --stats <= 1000");

    if (opt.world > 1 && !rank_given) {
        if (!opt.out) die("a job (--world-size without --rank) needs --out DIR");
        if (slow_list) parse_ranks(slow_list, opt.world);
        if (job.leak >= opt.world || job.oom >= opt.world) die("--leak-rank and --oom-rank must be below --world-size");
        return generate_job();
    }
    if (slow_list || job.plant || job.leak >= 0 || job.oom >= 0) die("--plant, --slow-ranks, --leak-rank, --oom-rank: only for a job (--world-size N without --rank)");
    return generate_one();
}

/* One trace: the rank of opt (the whole program before jobs). */
static int generate_one(void) {
    rng_state = opt.seed * 0x2545F4914F6CDD1DULL + (uint64_t)opt.rank;
    G.pid = (int)rnd_in(20000, 3000000);
    G.tid[T_MAIN] = G.pid;
    G.tid[T_AUTOGRAD] = G.pid + (int)rnd_in(40, 400);
    G.base_ns = 1736380800000000000LL + (int64_t)rnd_in(0, 86400) * 1000000000LL;
    G.start_ns = (int64_t)rnd_in(3000, 90000) * 1000000000LL + rnd_in(0, 999999999);
    G.now = G.start_ns + rnd_in(2000000, 9000000);
    G.gpu_now = G.now;
    G.py_root = 3;
    G.py_id = 3;
    G.ev_idx = 0;

    devs[DEV_CUDA] = (dev){.id = NULL, .type = 1, .index = opt.rank % 8,
                           .next_addr = 0x7f3000000000ULL + (uint64_t)rnd_in(0, 255) * 0x40000000ULL};
    static char cuda_id[16];
    snprintf(cuda_id, sizeof cuda_id, "cuda:%d", opt.rank % 8);
    devs[DEV_CUDA].id = cuda_id;
    devs[DEV_CPU] = (dev){.id = "cpu", .type = 0, .index = -1,
                          .next_addr = 0x55d000000000ULL + (uint64_t)rnd_in(0, 255) * 0x10000000ULL};

    /* Before the trace: weights, AdamW state, DDP buckets, cuBLAS workspace, the
     * previous step's batch and loss (freed during the first traced step). */
    build_model();
    for (size_t i = 0; i < params.len; i++) params.v[i].h = alloc_(DEV_CUDA, params.v[i].bytes, CAT_PARAMETER, true);
    if (!opt.cold)
        for (size_t i = 0; i < params.len; i++) {
            params.v[i].m = alloc_(DEV_CUDA, params.v[i].bytes, CAT_OPTIMIZER_STATE, true);
            params.v[i].v = alloc_(DEV_CUDA, params.v[i].bytes, CAT_OPTIMIZER_STATE, true);
            alloc_(DEV_CPU, 4, CAT_OPTIMIZER_STATE, true);
        }
    if (opt.world > 1) for (int k = 0; k < 4; k++) alloc_(DEV_CUDA, 25 * MiB, CAT_GRADIENT, true);
    alloc_(DEV_CUDA, 8 * MiB + 4 * KiB, CAT_TEMPORARY, true);                  /* cuBLAS workspace */
    alloc_(DEV_CPU, 48 * MiB, CAT_PARAMETER, true);                             /* host-side model copy leftovers */
    carry.x_cpu = alloc_(DEV_CPU, (int64_t)B * T * 8, CAT_INPUT, true);
    carry.y_cpu = alloc_(DEV_CPU, (int64_t)B * T * 8, CAT_INPUT, true);
    carry.x = alloc_(DEV_CUDA, (int64_t)B * T * 8, CAT_INPUT, true);
    carry.y = alloc_(DEV_CUDA, (int64_t)B * T * 8, CAT_INPUT, true);
    carry.loss = alloc_(DEV_CUDA, 4, CAT_ACTIVATION, true);
    for (int i = 0; i < NDEV; i++) devs[i].pre_bytes_at_start = devs[i].allocated;

    /* The long-lived python frames come first in the file but need the end
     * time.  The simulation is deterministic, so a child process runs it once
     * writing nothing and reports the end time and step count; then this
     * process runs it again, writing the CPU section straight to the output
     * and the GPU section to a temp file appended after it (as Kineto does). */
    int64_t dry[2];
    int pfd[2];
    if (pipe(pfd)) die("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) die("fork: %s", strerror(errno));
    if (child == 0) {
        close(pfd[0]);
        discard = true;
        out_open(&G.cpu, NULL, NULL);
        out_open(&G.gpu, NULL, NULL);
        dry[1] = run_steps(&dry[0]);
        _exit(write(pfd[1], dry, sizeof dry) == sizeof dry ? 0 : 1);
    }
    close(pfd[1]);
    int status = 0;
    ssize_t got = read(pfd[0], dry, sizeof dry);
    close(pfd[0]);
    if (waitpid(child, &status, 0) < 0 || got != sizeof dry || !WIFEXITED(status) || WEXITSTATUS(status))
        die("the dry run failed");
    int64_t end_ns = dry[0];

    FILE *f = stdout, *gpu_f = tmpfile();
    gzFile gz = NULL;
    if (!gpu_f) die("tmpfile: %s", strerror(errno));
    if (opt.out && !(f = fopen(opt.out, "wb"))) die("%s: %s", opt.out, strerror(errno));
    if (opt.gzip) {
        gz = gzdopen(dup(fileno(f)), "wb6");
        if (!gz) die("gzdopen failed");
        gzbuffer(gz, 1 << 20);
    }
    out *o = &G.cpu;
    out_open(o, f, gz);
    out_open(&G.gpu, gpu_f, NULL);
    write_header(o);
    write_root_frames(o, end_ns);
    opt.size_mb = 0;
    opt.steps = (int)dry[1];
    int64_t end_again;
    int n = run_steps(&end_again);
    if (end_again != end_ns) die("internal: the dry run and the real one differ");
    out_flush(&G.gpu);
    out_append_file(o, gpu_f);
    char tname[256];
    snprintf(tname, sizeof tname, "%s", opt.out ? opt.out : "gen_trace.pt.trace.json");
    write_trailer(o, end_ns, tname);
    out_flush(o);
    free(o->buf);
    free(G.gpu.buf);
    if (gz && gzclose(gz) != Z_OK) die("gzip close failed");
    if (f != stdout ? fclose(f) : fflush(f)) die("write failed: %s", strerror(errno));
    fclose(gpu_f);

    if (opt.truth) write_truth(opt.truth);
    if (quiet) return 0;        /* a rank of a job: the job says what it wrote */
    FILE *ef = opt.expect ? fopen(opt.expect, "w") : opt.out ? stdout : stderr;
    if (!ef) die("%s: %s", opt.expect, strerror(errno));
    write_expect(ef);
    if (opt.expect && fclose(ef)) die("%s: %s", opt.expect, strerror(errno));
    fprintf(stderr, "gen_trace: %d steps, %" PRId64 " events (%" PRId64 " memory), %.1f MB uncompressed\n",
            n, G.n_events, G.n_mem, (double)o->bytes / 1e6);
    return 0;
}

/* ---- a whole job --------------------------------------------------------- */

/* --plant: N/16 slow ranks (at least one), then a leaking rank and one that
 * runs out of memory, all different, picked by the seed. */
static void plant(void) {
    if (opt.world < 3) die("--plant needs --world-size 3 or more");
    int n_slow = opt.world / 16 > 1 ? opt.world / 16 : 1, picked = 0;
    int *order = ml_malloc((size_t)opt.world * sizeof *order);
    for (int r = 0; r < opt.world; r++) order[r] = r;
    rng_state = opt.seed * 0x2545F4914F6CDD1DULL ^ 0x5157ULL;
    for (int r = opt.world - 1; r > 0; r--) { /* Fisher-Yates */
        int k = (int)rnd_in(0, r), t = order[r];
        order[r] = order[k];
        order[k] = t;
    }
    job.slow.len = 0;
    for (; picked < n_slow; picked++) VEC_PUSH(&job.slow, order[picked]);
    job.leak = order[picked++];
    job.oom = order[picked++];
    free(order);
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void write_job_expect(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) die("%s: %s", path, strerror(errno));
    fprintf(f, "{\"generator\": \"gen_trace\", \"seed\": %" PRIu64 ", \"world_size\": %d, \"slow_ranks\": [", opt.seed, opt.world);
    for (size_t i = 0; i < job.slow.len; i++) fprintf(f, "%s%d", i ? ", " : "", job.slow.v[i]);
    fprintf(f, "], \"leak_rank\": ");
    if (job.leak >= 0) fprintf(f, "%d", job.leak); else fprintf(f, "null");
    fprintf(f, ", \"oom_rank\": ");
    if (job.oom >= 0) fprintf(f, "%d", job.oom); else fprintf(f, "null");
    fprintf(f, ", \"slow_factor_pct\": %d, \"leak_bytes_per_step\": %lld, \"oom_rank_extra_bytes\": %lld}\n",
            SLOW_FACTOR_PCT, (long long)LEAK_PER_STEP, (long long)OOM_RANK_SKEW);
    if (fclose(f)) die("%s: %s", path, strerror(errno));
}

static int generate_job(void) {
    if (job.plant) plant();
    if (job.slow.len) qsort(job.slow.v, job.slow.len, sizeof *job.slow.v, cmp_int);
    if (mkdir(opt.out, 0777) < 0 && errno != EEXIST) die("%s: %s", opt.out, strerror(errno));
    if (opt.expect) write_job_expect(opt.expect);
    int jobs = job.jobs > 0 ? job.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1) jobs = 1;
    const char *dir = opt.out;
    bool all_oom = opt.oom;
    int running = 0, failed = 0;
    fflush(NULL);
    for (int r = 0; r < opt.world || running; ) {
        if (r < opt.world && running < jobs) {
            pid_t pid = fork();
            if (pid < 0) die("fork: %s", strerror(errno));
            if (pid == 0) {
                static char path[4096];
                snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", dir, r, opt.gzip ? ".gz" : "");
                opt.out = path;
                opt.rank = r;
                opt.expect = opt.truth = NULL;
                quiet = true;
                for (size_t i = 0; i < job.slow.len; i++) opt.slow |= job.slow.v[i] == r;
                opt.job_has_slow = job.slow.len > 0;
                if (r == job.leak) opt.leak_bytes = LEAK_PER_STEP;
                if (r == job.oom) opt.skew_bytes = OOM_RANK_SKEW, opt.oom = true;
                else opt.oom = all_oom;
                _exit(generate_one());
            }
            running++, r++;
            continue;
        }
        int status;
        if (wait(&status) < 0) die("wait: %s", strerror(errno));
        running--;
        if (!WIFEXITED(status) || WEXITSTATUS(status)) failed++;
    }
    if (failed) die("%d of %d ranks failed", failed, opt.world);
    fprintf(stderr, "gen_trace: %d ranks in %s\n", opt.world, dir);
    return 0;
}
