/*
 * kernel_seqs.c — frequent GPU work sequences under an operator (kernel_seqs.h).
 *
 * One pass finds each GPU event's root (walking up from its launching call),
 * a sort by (root, start) lines each root's events up, and a hash of the
 * name sequence counts the patterns.
 */
#include "kernel_seqs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputimeline.h"
#include "scratch.h"
#include "sortperm.h"
#include "steps.h"
#include "u64map.h"

typedef struct pair {
    uint32_t root, gpu;
    int64_t ts, dur_ns;     /* the GPU event's start and duration (timeline ns, gputimeline.h) */
} pair;

#define PAIR_LT(ctx, x, y) \
    ((x).root != (y).root ? (x).root < (y).root : (x).ts != (y).ts ? (x).ts < (y).ts : (x).gpu < (y).gpu)
ML_RUNSORT_INPLACE_DEFINE(sort_pairs, pair, void *, PAIR_LT)

typedef struct pat {
    ml_kseq q;
    uint32_t at;            /* its names in the names vector */
    char *text;             /* "op|k1|k2…", for the order */
} pat;

static int cmp_pat(const void *x, const void *y)
{
    const pat *a = x, *b = y;
    if (a->q.count != b->q.count) return a->q.count > b->q.count ? -1 : 1;
    return strcmp(a->text, b->text);
}

/* The root above a launching call: the outermost cpu_op around it, or (with
 * a filter) the slice around it whose name matches at depth min_depth. */
static uint32_t root_of(const ml_slices *s, uint32_t launch, const uint8_t *match, int min_depth)
{
    uint32_t root = ML_NONE32;
    for (uint32_t a = s->parent.v[launch]; a != ML_NONE32; a = s->parent.v[a]) {
        if (!match) {
            if (s->kind.v[a] == ML_SL_CPU_OP) root = a;
        } else if (s->depth.v[a] == min_depth && match[s->name.v[a]] == 2) return a;
        else if (s->depth.v[a] < min_depth) break;
    }
    return root;
}

static bool is_host_slice(const ml_trace *t, uint32_t i)
{
    return t->tracks.v[t->slices.track.v[i]].kind != ML_TRACK_STREAM && !ml_slice_is_gpu(t->slices.kind.v[i]);
}

/* Whether HTA counts slice i as GPU work: kernels, memcpys, memsets, and
 * cuda_sync events on a stream ("Stream Wait Event"; an "Event Sync" or a
 * "Context Sync" of stream -1 is a host event to HTA). */
static bool is_gpu_work(const ml_trace *t, uint32_t i)
{
    uint8_t k = t->slices.kind.v[i];
    if (ml_slice_is_gpu(k)) return true;
    if (k != ML_SL_CUDA_SYNC) return false;
    uint32_t info = t->slices.info.v[i];
    return info < t->sync_info.len && t->sync_info.v[info].stream != -1;
}

/* The slice's start and end as timeline times (gputimeline.h: exact, or on HTA's µs grid). */
static void grid(const ml_profile *p, ml_time_rules rules, uint32_t i, int64_t *b, int64_t *e)
{
    ml_gpu_grid_of(p, rules, p->trace->slices.ts.v[i], ml_slice_dur(&p->trace->slices, i), b, e);
}

static int64_t grid_start(const ml_profile *p, ml_time_rules rules, uint32_t i)
{
    int64_t b, e;
    grid(p, rules, i, &b, &e);
    return b;
}

static int64_t grid_dur_ns(const ml_profile *p, ml_time_rules rules, uint32_t i)
{
    int64_t b, e;
    grid(p, rules, i, &b, &e);
    return e - b;
}

void ml_kseqs_compute(const ml_profile *p, const ml_kseq_opts *o, ml_kseqs *out)
{
    memset(out, 0, sizeof *out);
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len, nstr = ml_strpool_count(p->strings);

    /* HTA's loader: with two or more steps, nothing from the last one on */
    int64_t cut = 0;
    bool cutting = ml_gpu_last_step_cut(p, o->rules, &cut);

    /* with a filter: which names contain it (1 no, 2 yes), and the smallest depth of a call of one */
    uint8_t *match = NULL;
    int min_depth = -1;
    if (o->op_filter) {
        match = ml_calloc(nstr ? nstr : 1, 1);
        for (size_t i = 0; i < n; i++) {
            ml_str nm = s->name.v[i];
            if (nm >= nstr || !is_host_slice(t, (uint32_t)i)) continue;
            if (cutting && grid_start(p, o->rules, (uint32_t)i) >= cut) continue;
            if (!match[nm]) match[nm] = strstr(ml_s(p, nm), o->op_filter) ? 2 : 1;
            if (match[nm] == 2 && (min_depth < 0 || s->depth.v[i] < min_depth)) min_depth = s->depth.v[i];
        }
        if (min_depth < 0) {
            free(match);
            return;
        }
    }

    VEC(pair) pairs = {0};
    ML_SCRATCH_RESERVE(&pairs, t->kernel_info.len); /* (one per launched GPU event, each with a kernel_info row) */
    /* launches come in runs under one caller: its root, remembered by caller */
    enum { MEMO = 256 };
    uint32_t memo_key[MEMO], memo_root[MEMO];
    for (int m = 0; m < MEMO; m++) memo_key[m] = ML_NONE32;
    ML_FOR_DEVICE_ROWS (t, i) {
        uint32_t l = s->launcher.v[i];
        if (l == ML_NONE32 || !is_gpu_work(t, (uint32_t)i)) continue;
        if (cutting && grid_start(p, o->rules, l) >= cut) continue;
        uint32_t caller = s->parent.v[l], slot = (caller * 2654435761u) >> 24, root;
        if (caller != ML_NONE32 && memo_key[slot] == caller) root = memo_root[slot];
        else {
            root = root_of(s, l, match, min_depth);
            memo_key[slot] = caller;
            memo_root[slot] = root;
        }
        if (root == ML_NONE32) continue;
        int64_t gb, ge; /* once per event: its start orders it, its length adds up */
        grid(p, o->rules, (uint32_t)i, &gb, &ge);
        pair pr = {root, (uint32_t)i, gb, ge - gb};
        VEC_PUSH(&pairs, pr);
    }
    sort_pairs(pairs.v, pairs.len, NULL);

    VEC(pat) pats = {0};
    VEC(ml_str) names = {0};
    ml_u64map by_hash; /* pattern hash -> 1 + first pattern with it (others: linear probe below) */
    ml_u64map_init(&by_hash);
    for (size_t a = 0, b; a < pairs.len; a = b) {
        uint32_t root = pairs.v[a].root;
        for (b = a; b < pairs.len && pairs.v[b].root == root; b++) {}
        if (b - a < (size_t)(o->min_len > 0 ? o->min_len : 1)) continue;
        out->roots++;
        uint64_t h = ml_mix64(s->name.v[root] + 0x9e3779b97f4a7c15ull);
        int64_t gpu_ns = 0;
        for (size_t j = a; j < b; j++) {
            h = ml_mix64(h ^ s->name.v[pairs.v[j].gpu]) + j - a;
            gpu_ns += pairs.v[j].dur_ns;
        }
        /* the pattern with this hash and these names (hash collisions: step to the next key) */
        pat *hit = NULL;
        for (uint64_t key = h;; key++) {
            bool fresh;
            uint32_t *v = ml_u64map_put(&by_hash, key, &fresh);
            if (fresh) {
                *v = (uint32_t)pats.len + 1;
                pat np = {{s->name.v[root], 0, (uint32_t)(b - a), 0, 0, 0, root}, (uint32_t)names.len, NULL};
                for (size_t j = a; j < b; j++) VEC_PUSH(&names, s->name.v[pairs.v[j].gpu]);
                VEC_PUSH(&pats, np);
                hit = &pats.v[pats.len - 1];
                break;
            }
            pat *c = &pats.v[*v - 1];
            bool same = c->q.op == s->name.v[root] && c->q.n == b - a;
            for (size_t j = a; same && j < b; j++) same = names.v[c->at + (j - a)] == s->name.v[pairs.v[j].gpu];
            if (same) {
                hit = c;
                break;
            }
        }
        hit->q.count++;
        hit->q.gpu_ns += gpu_ns;
        hit->q.cpu_ns += grid_dur_ns(p, o->rules, root);
    }
    ml_u64map_free(&by_hash);
    ML_SCRATCH_GIVE_VEC(&pairs);
    free(match);

    for (size_t i = 0; i < pats.len; i++) { /* the text HTA sorts ties by */
        pat *c = &pats.v[i];
        size_t len = strlen(ml_s(p, c->q.op)) + 1;
        for (uint32_t j = 0; j < c->q.n; j++) len += strlen(ml_s(p, names.v[c->at + j])) + 1;
        char *x = c->text = ml_malloc(len);
        x += sprintf(x, "%s", ml_s(p, c->q.op));
        for (uint32_t j = 0; j < c->q.n; j++) x += sprintf(x, "|%s", ml_s(p, names.v[c->at + j]));
    }
    if (pats.len > 1) qsort(pats.v, pats.len, sizeof *pats.v, cmp_pat);
    out->total = pats.len;
    out->n = o->top > 0 && (size_t)o->top < pats.len ? (size_t)o->top : pats.len;
    out->seqs = ml_calloc(out->n ? out->n : 1, sizeof *out->seqs);
    VEC(ml_str) kept = {0};
    for (size_t i = 0; i < out->n; i++) {
        out->seqs[i] = pats.v[i].q;
        out->seqs[i].first = (uint32_t)kept.len;
        for (uint32_t j = 0; j < pats.v[i].q.n; j++) VEC_PUSH(&kept, names.v[pats.v[i].at + j]);
    }
    out->names = kept.v;
    for (size_t i = 0; i < pats.len; i++) free(pats.v[i].text);
    VEC_FREE(&pats);
    VEC_FREE(&names);
}

void ml_kseqs_free(ml_kseqs *k)
{
    free(k->seqs);
    free(k->names);
    memset(k, 0, sizeof *k);
}
