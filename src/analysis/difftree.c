/*
 * difftree.c — the operator-tree diff (see difftree.h for the rules).
 */
#include "difftree.h"

#include <stdlib.h>
#include <string.h>

#include "steps.h"
#include "trace.h"
#include "u64map.h"

const char *ml_dt_type_name(unsigned t)
{
    static const char *const names[] = {"operator", "step", "module", "dataloader", "optimizer"};
    return t < sizeof names / sizeof *names ? names[t] : "operator";
}

/* Per side: the children of every optree node as a CSR list (merged nodes
 * left out), and the top list the alignment starts from. */
typedef struct side_index {
    uint32_t *kid_start, *kids;
    VEC(uint32_t) top;
} side_index;

static uint32_t slice_of(const ml_difftree *t, int s, uint32_t node) { return t->side[s].tree->slice[node]; }

static const char *node_name(const ml_difftree *t, int s, uint32_t node)
{
    uint32_t sl = slice_of(t, s, node);
    const ml_profile *p = t->side[s].p;
    return sl == ML_NONE32 ? "" : ml_s(p, p->trace->slices.name.v[sl]);
}

static uint8_t classify(const ml_profile *p, uint32_t sl)
{
    if (sl == ML_NONE32) return ML_DT_OPERATOR;
    const ml_slices *s = &p->trace->slices;
    uint8_t k = s->kind.v[sl];
    if (k == ML_SL_PROFILER_STEP) return ML_DT_STEP;
    if (k == ML_SL_PYTHON) return ML_DT_MODULE; /* the only python slices in a tree are nn.Module ones */
    const char *name = ml_s(p, s->name.v[sl]);
    if (ml_name_is_dataloader(name)) return ML_DT_DATALOADER;
    if (!strncmp(name, "Optimizer.step", 14)) return ML_DT_OPTIMIZER;
    return ML_DT_OPERATOR;
}

/* The root whose children the alignment starts from: the main thread's, else
 * the one whose top-level nodes span the longest time. */
static uint32_t pick_root(const ml_profile *p, const ml_optree *tr)
{
    if (tr->main_root != ML_NONE32) return tr->main_root;
    const ml_slices *s = &p->trace->slices;
    uint32_t best = ML_NONE32;
    int64_t best_span = -1;
    for (uint32_t i = 0; i < tr->n; i++) {
        if (!(tr->flags[i] & ML_NODE_ROOT)) continue;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (uint32_t j = i + 1; j < tr->n && !(tr->flags[j] & ML_NODE_ROOT); j++) {
            if (tr->parent[j] != i || (tr->flags[j] & ML_NODE_MERGED)) continue;
            uint32_t sl = tr->slice[j];
            if (s->ts.v[sl] < lo) lo = s->ts.v[sl];
            if (s->ts.v[sl] + s->dur.v[sl] > hi) hi = s->ts.v[sl] + s->dur.v[sl];
        }
        if (hi > lo && hi - lo > best_span) best_span = hi - lo, best = i;
    }
    return best;
}

static void index_side(ml_difftree *t, int s, side_index *ix)
{
    const ml_optree *tr = t->side[s].tree;
    const ml_profile *p = t->side[s].p;
    size_t n = tr->n;
    ix->kid_start = ml_calloc(n + 1, sizeof *ix->kid_start);
    ix->kids = ml_malloc((n ? n : 1) * sizeof *ix->kids);
    t->sub_end[s] = ml_malloc((n ? n : 1) * sizeof *t->sub_end[s]);
    t->type[s] = ml_malloc(n ? n : 1);
    for (uint32_t i = 0; i < n; i++) {
        t->type[s][i] = classify(p, tr->slice[i]);
        t->sub_end[s][i] = i + 1;
        if (tr->parent[i] != ML_NONE32 && !(tr->flags[i] & ML_NODE_MERGED)) ix->kid_start[tr->parent[i] + 1]++;
    }
    for (size_t i = 0; i < n; i++) ix->kid_start[i + 1] += ix->kid_start[i];
    uint32_t *fill = ml_malloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, ix->kid_start, n * sizeof *fill);
    for (uint32_t i = 0; i < n; i++) /* in id order: children in start order */
        if (tr->parent[i] != ML_NONE32 && !(tr->flags[i] & ML_NODE_MERGED)) ix->kids[fill[tr->parent[i]]++] = i;
    free(fill);
    /* Pre-order: a node's subtree is the ids up to the end of its last descendant. */
    for (uint32_t i = (uint32_t)n; i-- > 0;) {
        uint32_t par = tr->parent[i];
        if (par != ML_NONE32 && t->sub_end[s][i] > t->sub_end[s][par]) t->sub_end[s][par] = t->sub_end[s][i];
    }
    uint32_t root = pick_root(p, tr);
    if (root == ML_NONE32) return;
    bool steps = false;
    for (uint32_t k = ix->kid_start[root]; k < ix->kid_start[root + 1]; k++) steps |= t->type[s][ix->kids[k]] == ML_DT_STEP;
    for (uint32_t k = ix->kid_start[root]; k < ix->kid_start[root + 1]; k++) {
        uint32_t c = ix->kids[k];
        if (!steps) VEC_PUSH(&ix->top, c);
        else if (t->type[s][c] == ML_DT_STEP)
            for (uint32_t q = ix->kid_start[c]; q < ix->kid_start[c + 1]; q++) VEC_PUSH(&ix->top, ix->kids[q]);
    }
}

static uint64_t key_of(const ml_difftree *t, int s, uint32_t node)
{
    uint64_t h = 1469598103934665603ull ^ t->type[s][node];
    for (const unsigned char *c = (const unsigned char *)node_name(t, s, node); *c; c++) h = (h ^ *c) * 1099511628211ull;
    return ml_mix64(h);
}

/* A pending diff node: its two lists, to be copied into members. */
typedef struct span {
    const uint32_t *v[2];
    uint32_t n[2];
    bool matched;
} span;
typedef VEC(span) span_vec;

static uint32_t add_node(ml_difftree *t, uint32_t parent, const span *sp)
{
    ml_dtnode d = {.parent = parent, .matched = sp->matched};
    for (int s = 0; s < 2; s++) {
        d.first[s] = (uint32_t)t->members[s].len;
        d.count[s] = sp->n[s];
        for (uint32_t i = 0; i < sp->n[s]; i++) VEC_PUSH(&t->members[s], sp->v[s][i]);
    }
    VEC_PUSH(&t->nodes, d);
    return (uint32_t)t->nodes.len - 1;
}

/* compare_operator_nodes: the pairs the greedy match makes of lists L
 * (base) and R (new), appended to out; none when nothing matched. */
static void align(const ml_difftree *t, const uint32_t *L, uint32_t nl, const uint32_t *R, uint32_t nr, span_vec *out)
{
    /* The run nodes of R by key, each key's positions in ascending order. */
    ml_u64map heads;
    ml_u64map_init(&heads);
    uint32_t *next = ml_malloc((nr ? nr : 1) * sizeof *next);
    for (uint32_t j = nr; j-- > 0;) {
        next[j] = UINT32_MAX;
        if (t->type[1][R[j]] == ML_DT_OPERATOR) continue;
        bool fresh;
        uint32_t *h = ml_u64map_put(&heads, key_of(t, 1, R[j]), &fresh);
        next[j] = fresh ? UINT32_MAX : *h;
        *h = j;
    }
    VEC(uint32_t) pl = {0}, pr = {0};
    uint32_t from = 0; /* key_index */
    for (uint32_t i = 0; i < nl && heads.len; i++) {
        uint8_t ty = t->type[0][L[i]];
        if (ty == ML_DT_OPERATOR) continue;
        uint32_t *h = ml_u64map_get(&heads, key_of(t, 0, L[i]));
        if (!h) continue;
        const char *name = node_name(t, 0, L[i]);
        /* positions before `from` can never match again: the head moves past them */
        while (*h != UINT32_MAX && *h < from) *h = next[*h];
        for (uint32_t j = *h; j != UINT32_MAX; j = next[j]) {
            if (t->type[1][R[j]] != ty || strcmp(node_name(t, 1, R[j]), name) != 0) continue; /* a hash collision */
            VEC_PUSH(&pl, i);
            VEC_PUSH(&pr, j);
            from = j + 1;
            break;
        }
    }
    ml_u64map_free(&heads);
    free(next);
    if (pl.len) {
        uint32_t li = 0, ri = 0;
        for (size_t k = 0; k < pl.len; k++) {
            uint32_t l = pl.v[k], r = pr.v[k];
            if (l > li || r > ri) VEC_PUSH(out, ((span){{L + li, R + ri}, {l - li, r - ri}, false}));
            VEC_PUSH(out, ((span){{L + l, R + r}, {1, 1}, true}));
            li = l + 1, ri = r + 1;
        }
        if (li < nl || ri < nr) VEC_PUSH(out, ((span){{L + li, R + ri}, {nl - li, nr - ri}, false}));
    }
    VEC_FREE(&pl);
    VEC_FREE(&pr);
}

ml_difftree *ml_difftree_build(const ml_dt_side *base, const ml_dt_side *nw)
{
    if (!base->tree || !nw->tree || !base->p->trace || !nw->p->trace || !base->tree->n || !nw->tree->n) return NULL;
    ml_difftree *t = ml_calloc(1, sizeof *t);
    t->side[0] = *base;
    t->side[1] = *nw;
    side_index ix[2] = {{0}};
    for (int s = 0; s < 2; s++) index_side(t, s, &ix[s]);
    span top = {{ix[0].top.v, ix[1].top.v}, {(uint32_t)ix[0].top.len, (uint32_t)ix[1].top.len}, false};
    add_node(t, UINT32_MAX, &top);
    span_vec kids = {0};
    /* Breadth first: a node's children are added together, so they sit side by side. */
    for (uint32_t d = 0; d < t->nodes.len; d++) {
        ml_dtnode nd = t->nodes.v[d];
        if (!nd.count[0] || !nd.count[1]) continue;                /* a blank side: a leaf */
        if ((nd.count[0] == 1) != (nd.count[1] == 1)) continue;    /* one node against several */
        const uint32_t *L, *R;
        uint32_t nl, nr;
        if (nd.count[0] == 1) { /* two nodes: their children */
            uint32_t a = t->members[0].v[nd.first[0]], b = t->members[1].v[nd.first[1]];
            L = ix[0].kids + ix[0].kid_start[a], nl = ix[0].kid_start[a + 1] - ix[0].kid_start[a];
            R = ix[1].kids + ix[1].kid_start[b], nr = ix[1].kid_start[b + 1] - ix[1].kid_start[b];
        } else { /* two lists (the top): the lists themselves */
            L = t->members[0].v + nd.first[0], nl = nd.count[0];
            R = t->members[1].v + nd.first[1], nr = nd.count[1];
        }
        kids.len = 0;
        /* members may move as they grow: align on copies */
        uint32_t *lc = ml_malloc((nl ? nl : 1) * sizeof *lc), *rc = ml_malloc((nr ? nr : 1) * sizeof *rc);
        memcpy(lc, L, nl * sizeof *lc);
        memcpy(rc, R, nr * sizeof *rc);
        align(t, lc, nl, rc, nr, &kids);
        t->nodes.v[d].child_first = (uint32_t)t->nodes.len;
        t->nodes.v[d].child_count = (uint32_t)kids.len;
        for (size_t k = 0; k < kids.len; k++) add_node(t, d, &kids.v[k]);
        free(lc);
        free(rc);
    }
    VEC_FREE(&kids);
    for (int s = 0; s < 2; s++) {
        free(ix[s].kid_start);
        free(ix[s].kids);
        VEC_FREE(&ix[s].top);
    }
    return t;
}

void ml_difftree_free(ml_difftree *t)
{
    if (!t) return;
    VEC_FREE(&t->nodes);
    for (int s = 0; s < 2; s++) {
        VEC_FREE(&t->members[s]);
        free(t->sub_end[s]);
        free(t->type[s]);
    }
    free(t);
}

void ml_dt_stats_of(const ml_difftree *t, uint32_t node, int side, ml_dt_stats *out)
{
    memset(out, 0, sizeof *out);
    const ml_dtnode *d = &t->nodes.v[node];
    const ml_optree *tr = t->side[side].tree;
    const ml_slices *s = &t->side[side].p->trace->slices;
    out->nodes = d->count[side];
    for (uint32_t k = 0; k < d->count[side]; k++) {
        uint32_t id = t->members[side].v[d->first[side] + k];
        int64_t host = s->dur.v[tr->slice[id]], dev = tr->device_total[id];
        out->host_ns += host;
        out->device_ns += dev;
        out->total_ns += dev ? dev : host;
    }
    if (out->nodes == 1) {
        uint32_t id = t->members[side].v[d->first[side]];
        out->name = node_name(t, side, id);
        out->type = t->type[side][id];
    } else if (out->nodes > 1) {
        out->first_name = node_name(t, side, t->members[side].v[d->first[side]]);
        out->last_name = node_name(t, side, t->members[side].v[d->first[side] + d->count[side] - 1]);
    }
}

size_t ml_dt_ops_of(const ml_difftree *t, uint32_t node, int side, ml_dt_op **out)
{
    const ml_dtnode *d = &t->nodes.v[node];
    const ml_optree *tr = t->side[side].tree;
    const ml_profile *p = t->side[side].p;
    const ml_slices *s = &p->trace->slices;
    VEC(ml_dt_op) ops = {0};
    ml_u64map by_name;
    ml_u64map_init(&by_name);
    for (uint32_t k = 0; k < d->count[side]; k++) {
        uint32_t id = t->members[side].v[d->first[side] + k];
        for (uint32_t i = id; i < t->sub_end[side][id]; i++) {
            if ((tr->flags[i] & (ML_NODE_MERGED | ML_NODE_ROOT)) || !(tr->flags[i] & ML_NODE_OPERATOR)) continue;
            uint32_t sl = tr->slice[i];
            bool fresh;
            uint32_t *row = ml_u64map_put(&by_name, s->name.v[sl], &fresh);
            if (fresh) {
                *row = (uint32_t)ops.len;
                VEC_PUSH(&ops, ((ml_dt_op){.name = ml_s(p, s->name.v[sl])}));
            }
            ml_dt_op *o = &ops.v[*row];
            o->calls++;
            o->host_ns += s->dur.v[sl];
            o->self_host_ns += tr->host_self[i];
            o->device_ns += tr->device_total[i];
            o->self_device_ns += tr->device_self[i];
        }
    }
    ml_u64map_free(&by_name);
    *out = ops.v;
    return ops.len;
}
