/*
 * difftree.c — the operator-tree diff (see difftree.h for the rules).
 */
#include "difftree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps.h"
#include "trace.h"
#include "u64map.h"

const char *ml_dt_type_name(unsigned t)
{
    static const char *const names[] = {"operator", "step", "module", "dataloader", "optimizer", "backward"};
    return t < sizeof names / sizeof *names ? names[t] : "operator";
}

typedef VEC(uint32_t) idvec;

/* Per side: the children of every optree node as a CSR list (merged nodes
 * left out), the lists the Backward nodes changed (the parents of the
 * backward roots, the nodes that got a Backward node), and the top list
 * the alignment starts from. */
typedef struct side_index {
    uint32_t *kid_start, *kids;
    ml_u64map over;         /* node -> index into lists */
    VEC(idvec) lists;
    idvec top;
} side_index;

static size_t real_n(const ml_difftree *t, int s) { return t->side[s].tree->n; }
static bool is_virtual(const ml_difftree *t, int s, uint32_t node) { return node >= real_n(t, s); }
static const ml_dt_virtual *virt_of(const ml_difftree *t, int s, uint32_t node) { return &t->virt[s].v[node - real_n(t, s)]; }

static const char *node_name(const ml_difftree *t, int s, uint32_t node)
{
    if (is_virtual(t, s, node)) return virt_of(t, s, node)->name;
    uint32_t sl = t->side[s].tree->slice[node];
    const ml_profile *p = t->side[s].p;
    return sl == ML_NONE32 ? "" : ml_s(p, p->trace->slices.name.v[sl]);
}

static int64_t node_begin(const ml_difftree *t, int s, uint32_t node)
{
    if (is_virtual(t, s, node)) return virt_of(t, s, node)->begin;
    uint32_t sl = t->side[s].tree->slice[node];
    return sl == ML_NONE32 ? INT64_MIN : t->side[s].p->trace->slices.ts.v[sl];
}

static int64_t node_end(const ml_difftree *t, int s, uint32_t node)
{
    if (is_virtual(t, s, node)) return virt_of(t, s, node)->end;
    uint32_t sl = t->side[s].tree->slice[node];
    const ml_slices *x = &t->side[s].p->trace->slices;
    return sl == ML_NONE32 ? INT64_MAX : x->ts.v[sl] + ml_slice_dur(x, sl);
}

static int64_t node_device(const ml_difftree *t, int s, uint32_t node)
{
    return is_virtual(t, s, node) ? virt_of(t, s, node)->device_ns : ml_optree_device(t->side[s].tree, node).total;
}

static void kids_of(const ml_difftree *t, int s, const side_index *ix, uint32_t node, const uint32_t **v, uint32_t *n)
{
    if (is_virtual(t, s, node)) {
        const ml_dt_virtual *x = virt_of(t, s, node);
        *v = x->kids.v, *n = (uint32_t)x->kids.len;
        return;
    }
    uint32_t *o = ix->over.len ? ml_u64map_get(&ix->over, node) : NULL;
    if (o) {
        *v = ix->lists.v[*o].v, *n = (uint32_t)ix->lists.v[*o].len;
        return;
    }
    *v = ix->kids + ix->kid_start[node], *n = ix->kid_start[node + 1] - ix->kid_start[node];
}

/* The children list of a real node, made its own to change. */
static idvec *own_kids(const ml_difftree *t, int s, side_index *ix, uint32_t node)
{
    bool fresh;
    uint32_t *o = ml_u64map_put(&ix->over, node, &fresh);
    if (fresh) {
        const uint32_t *v;
        uint32_t n;
        *o = (uint32_t)ix->lists.len;
        VEC_PUSH(&ix->lists, ((idvec){0}));
        v = ix->kids + ix->kid_start[node], n = ix->kid_start[node + 1] - ix->kid_start[node];
        for (uint32_t i = 0; i < n; i++) VEC_PUSH(&ix->lists.v[*o], v[i]);
    }
    return &ix->lists.v[*o];
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
            if (s->ts.v[sl] + ml_slice_dur(s, sl) > hi) hi = s->ts.v[sl] + ml_slice_dur(s, sl);
        }
        if (hi > lo && hi - lo > best_span) best_span = hi - lo, best = i;
    }
    return best;
}

/* ---- Backward nodes (difftree.h; the plugin's OpTreeBuilder) ---------- */

#define BWD_PREFIX "autograd::engine::evaluate_function:"
#define BWD_ACCUMULATE "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"

typedef struct bwd_root {
    uint32_t node, parent;  /* a backward root and the root or step it is the child of */
} bwd_root;
typedef VEC(bwd_root) bwd_vec;

/* The top of each thread's tree and of each step: its modules, and its backward roots. */
static void top_nodes(const ml_difftree *t, int s, const side_index *ix, uint32_t parent, idvec *modules, bwd_vec *bwd)
{
    const uint32_t *v;
    uint32_t n;
    kids_of(t, s, ix, parent, &v, &n);
    for (uint32_t k = 0; k < n; k++) {
        uint8_t ty = t->type[s][v[k]];
        if (ty == ML_DT_MODULE) VEC_PUSH(modules, v[k]);
        else if (ty == ML_DT_STEP) top_nodes(t, s, ix, v[k], modules, bwd);
        else if (!strncmp(node_name(t, s, v[k]), BWD_PREFIX, sizeof BWD_PREFIX - 1)) VEC_PUSH(bwd, ((bwd_root){v[k], parent}));
    }
}

static int by_begin_end(const ml_difftree *t, int s, uint32_t a, uint32_t b)
{
    int64_t x = node_begin(t, s, a), y = node_begin(t, s, b);
    if (x != y) return x < y ? -1 : 1;
    x = node_end(t, s, a), y = node_end(t, s, b);
    return (x < y) - (x > y); /* longer first */
}

/* Insertion sort (a Backward node has few children). */
static void sort_nodes(const ml_difftree *t, int s, uint32_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && by_begin_end(t, s, v[j - 1], v[j]) > 0; j--) {
            uint32_t x = v[j];
            v[j] = v[j - 1], v[j - 1] = x;
        }
}

/* A finished Backward node: its span and device time from its children
 * (the plugin's BackwardNode.fill_stats); false when it holds nothing. */
static bool fill_virtual(ml_difftree *t, int s, uint32_t vid)
{
    ml_dt_virtual *x = &t->virt[s].v[vid];
    if (!x->kids.len) return false;
    sort_nodes(t, s, x->kids.v, x->kids.len);
    x->begin = node_begin(t, s, x->kids.v[0]);
    x->end = node_end(t, s, x->kids.v[x->kids.len - 1]);
    x->device_ns = 0;
    for (size_t i = 0; i < x->kids.len; i++) x->device_ns += node_device(t, s, x->kids.v[i]);
    return true;
}

static uint32_t new_virtual(ml_difftree *t, int s, uint32_t module)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s.backward", node_name(t, s, module));
    VEC_PUSH(&t->virt[s], ((ml_dt_virtual){.name = ml_strdup(buf)}));
    return (uint32_t)t->virt[s].len - 1;
}

/* Puts Backward node vid in the tree under root: as the child of the
 * deepest node whose time it overlaps, before the first child after it. */
static void insert_virtual(const ml_difftree *t, int s, side_index *ix, uint32_t root, uint32_t vid)
{
    uint32_t node = root, id = (uint32_t)real_n(t, s) + vid;
    int64_t b = t->virt[s].v[vid].begin, e = t->virt[s].v[vid].end;
    for (;;) {
        const uint32_t *v;
        uint32_t n, i = 0;
        kids_of(t, s, ix, node, &v, &n);
        bool down = false;
        for (; i < n; i++) {
            if (e < node_begin(t, s, v[i])) break;
            if (b >= node_end(t, s, v[i]) || is_virtual(t, s, v[i])) continue;
            down = true;
            break;
        }
        if (down) {
            node = v[i];
            continue;
        }
        idvec *list = own_kids(t, s, ix, node);
        VEC_PUSH(list, 0);
        memmove(list->v + i + 1, list->v + i, (list->len - 1 - i) * sizeof *list->v);
        list->v[i] = id;
        return;
    }
}

static void make_backward(ml_difftree *t, int s, side_index *ix, uint32_t main_root)
{
    const ml_optree *tr = t->side[s].tree;
    const ml_profile *p = t->side[s].p;
    const ml_trace *tc = p->trace;
    size_t n = tr->n, ns = tc->slices.ts.len;
    bool flows = false;
    for (size_t f = 0; f < tc->flows.len && !flows; f++)
        flows = tc->flows.v[f].cat && !strcmp(ml_s(p, tc->flows.v[f].cat), "fwdbwd");
    if (!flows) return;
    idvec modules = {0};
    bwd_vec bwd = {0};
    for (uint32_t i = 0; i < n; i++)
        if (tr->flags[i] & ML_NODE_ROOT) top_nodes(t, s, ix, i, &modules, &bwd);
    if (!modules.len || !bwd.len) goto done;

    /* Groups: each backward root with the AccumulateGrad roots after it. */
    ml_u64map lead;         /* backward root -> 1 + its group, for the first of each group */
    ml_u64map_init(&lead);
    VEC(idvec) groups = {0};
    for (size_t k = 0; k < bwd.len; k++) {
        if (!strcmp(node_name(t, s, bwd.v[k].node), BWD_ACCUMULATE) && groups.len) {
            VEC_PUSH(&groups.v[groups.len - 1], bwd.v[k].node);
            continue;
        }
        VEC_PUSH(&groups, ((idvec){0}));
        VEC_PUSH(&groups.v[groups.len - 1], bwd.v[k].node);
        bool fresh;
        *ml_u64map_put(&lead, bwd.v[k].node, &fresh) = (uint32_t)groups.len;
    }
    ml_u64map roots;        /* every backward root */
    ml_u64map_init(&roots);
    for (size_t k = 0; k < bwd.len; k++) {
        bool fresh;
        *ml_u64map_put(&roots, bwd.v[k].node, &fresh) = 1;
    }
    /* Out of their trees (they come back inside Backward nodes). */
    for (size_t k = 0; k < bwd.len; k++) {
        idvec *list = own_kids(t, s, ix, bwd.v[k].parent);
        size_t w = 0;
        for (size_t i = 0; i < list->len; i++)
            if (!ml_u64map_get(&roots, list->v[i])) list->v[w++] = list->v[i];
        list->len = w;
    }
    /* fwdbwd flows: forward operator -> the group of the backward root above
     * the node the flow ends in (each group to the first flow that names it). */
    ml_u64map fwd;          /* forward node -> 1 + group */
    ml_u64map_init(&fwd);
    uint8_t *taken = ml_calloc(groups.len + 1, 1);
    for (size_t f = 0; f < tc->flows.len; f++) {
        const ml_flow *fl = &tc->flows.v[f];
        if (!fl->cat || fl->from >= ns || fl->to >= ns || strcmp(ml_s(p, fl->cat), "fwdbwd") != 0) continue;
        uint32_t a = tr->owner[fl->from], b = tr->owner[fl->to];
        if (a == ML_NONE32 || b == ML_NONE32 || tr->slice[a] != fl->from || tr->slice[b] != fl->to) continue;
        uint32_t q = tr->parent[b];
        while (q != ML_NONE32 && !(tr->flags[q] & ML_NODE_ROOT) && !ml_u64map_get(&roots, q)) q = tr->parent[q];
        uint32_t *g = q != ML_NONE32 ? ml_u64map_get(&lead, q) : NULL;
        if (!g || taken[*g]) continue;
        taken[*g] = 1;
        bool fresh;
        uint32_t *slot = ml_u64map_put(&fwd, a, &fresh);
        if (fresh) *slot = *g;
    }
    free(taken);

    /* A Backward node per module, from the top modules down (pre-order ids:
     * a module's subtree is the ids up to its sub_end). */
    idvec top = {0};
    typedef struct open_module {
        uint32_t end, vid;
    } open_module;
    VEC(open_module) stack = {0};
    for (size_t m = 0; m < modules.len; m++) {
        uint32_t M = modules.v[m];
        stack.len = 0;
        VEC_PUSH(&stack, ((open_module){t->sub_end[s][M], new_virtual(t, s, M)}));
        for (uint32_t i = M + 1; i <= t->sub_end[s][M]; i++) {
            while (stack.len && (i == t->sub_end[s][M] ? stack.len : stack.v[stack.len - 1].end <= i)) {
                open_module om = stack.v[--stack.len];
                if (!fill_virtual(t, s, om.vid)) continue; /* it holds nothing: no node */
                uint32_t id = (uint32_t)n + om.vid;
                if (stack.len) VEC_PUSH(&t->virt[s].v[stack.v[stack.len - 1].vid].kids, id);
                else VEC_PUSH(&top, om.vid);
            }
            if (i == t->sub_end[s][M] || (tr->flags[i] & ML_NODE_MERGED)) continue;
            if (t->type[s][i] == ML_DT_MODULE) VEC_PUSH(&stack, ((open_module){t->sub_end[s][i], new_virtual(t, s, i)}));
            else if (tr->flags[i] & ML_NODE_OPERATOR) {
                uint32_t *g = ml_u64map_get(&fwd, i);
                if (!g) continue;
                ml_dt_virtual *x = &t->virt[s].v[stack.v[stack.len - 1].vid];
                for (size_t k = 0; k < groups.v[*g - 1].len; k++) VEC_PUSH(&x->kids, groups.v[*g - 1].v[k]);
            }
        }
    }
    VEC_FREE(&stack);
    /* their types, then the top ones into the main thread's tree, by time */
    t->type[s] = ml_realloc(t->type[s], n + t->virt[s].len + 1);
    for (size_t v = 0; v < t->virt[s].len; v++) t->type[s][n + v] = ML_DT_BACKWARD;
    for (size_t i = 1; i < top.len; i++) /* by (begin, -end) */
        for (size_t j = i; j > 0 && by_begin_end(t, s, (uint32_t)n + top.v[j - 1], (uint32_t)n + top.v[j]) > 0; j--) {
            uint32_t x = top.v[j];
            top.v[j] = top.v[j - 1], top.v[j - 1] = x;
        }
    for (size_t k = 0; k < top.len; k++) insert_virtual(t, s, ix, main_root, top.v[k]);
    VEC_FREE(&top);
    for (size_t g = 0; g < groups.len; g++) VEC_FREE(&groups.v[g]);
    VEC_FREE(&groups);
    ml_u64map_free(&lead);
    ml_u64map_free(&roots);
    ml_u64map_free(&fwd);
done:
    VEC_FREE(&modules);
    VEC_FREE(&bwd);
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
    make_backward(t, s, ix, root);
    const uint32_t *v, *w;
    uint32_t nv, nw;
    kids_of(t, s, ix, root, &v, &nv);
    bool steps = false;
    for (uint32_t k = 0; k < nv; k++) steps |= t->type[s][v[k]] == ML_DT_STEP;
    for (uint32_t k = 0; k < nv; k++) {
        if (!steps) VEC_PUSH(&ix->top, v[k]);
        else if (t->type[s][v[k]] == ML_DT_STEP) {
            kids_of(t, s, ix, v[k], &w, &nw);
            for (uint32_t q = 0; q < nw; q++) VEC_PUSH(&ix->top, w[q]);
        }
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
    for (int s = 0; s < 2; s++) {
        ml_u64map_init(&ix[s].over);
        index_side(t, s, &ix[s]);
    }
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
            kids_of(t, 0, &ix[0], t->members[0].v[nd.first[0]], &L, &nl);
            kids_of(t, 1, &ix[1], t->members[1].v[nd.first[1]], &R, &nr);
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
        for (size_t i = 0; i < ix[s].lists.len; i++) VEC_FREE(&ix[s].lists.v[i]);
        VEC_FREE(&ix[s].lists);
        ml_u64map_free(&ix[s].over);
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
        for (size_t i = 0; i < t->virt[s].len; i++) {
            free(t->virt[s].v[i].name);
            VEC_FREE(&t->virt[s].v[i].kids);
        }
        VEC_FREE(&t->virt[s]);
    }
    free(t);
}

void ml_dt_stats_of(const ml_difftree *t, uint32_t node, int side, ml_dt_stats *out)
{
    memset(out, 0, sizeof *out);
    const ml_dtnode *d = &t->nodes.v[node];
    out->nodes = d->count[side];
    for (uint32_t k = 0; k < d->count[side]; k++) {
        uint32_t id = t->members[side].v[d->first[side] + k];
        int64_t host = node_end(t, side, id) - node_begin(t, side, id), dev = node_device(t, side, id);
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

typedef VEC(ml_dt_op) op_vec;

/* The operators of node id's subtree (a Backward node's: its children's) into ops. */
static void ops_under(const ml_difftree *t, int side, uint32_t id, op_vec *ops, ml_u64map *by_name)
{
    const ml_optree *tr = t->side[side].tree;
    const ml_profile *p = t->side[side].p;
    const ml_slices *s = &p->trace->slices;
    if (is_virtual(t, side, id)) {
        const ml_dt_virtual *x = virt_of(t, side, id);
        for (size_t k = 0; k < x->kids.len; k++) ops_under(t, side, x->kids.v[k], ops, by_name);
        return;
    }
    for (uint32_t i = id; i < t->sub_end[side][id]; i++) {
        if ((tr->flags[i] & (ML_NODE_MERGED | ML_NODE_ROOT)) || !(tr->flags[i] & ML_NODE_OPERATOR)) continue;
        uint32_t sl = tr->slice[i];
        bool fresh;
        uint32_t *row = ml_u64map_put(by_name, s->name.v[sl], &fresh);
        if (fresh) {
            *row = (uint32_t)ops->len;
            VEC_PUSH(ops, ((ml_dt_op){.name = ml_s(p, s->name.v[sl])}));
        }
        ml_dt_op *o = &ops->v[*row];
        o->calls++;
        o->host_ns += ml_slice_dur(s, sl);
        o->self_host_ns += ml_optree_host_self(tr, (uint32_t)i);
        o->device_ns += ml_optree_device(tr, (uint32_t)i).total;
        o->self_device_ns += ml_optree_device(tr, (uint32_t)i).self;
    }
}

size_t ml_dt_ops_of(const ml_difftree *t, uint32_t node, int side, ml_dt_op **out)
{
    const ml_dtnode *d = &t->nodes.v[node];
    op_vec ops = {0};
    ml_u64map by_name;
    ml_u64map_init(&by_name);
    for (uint32_t k = 0; k < d->count[side]; k++) ops_under(t, side, t->members[side].v[d->first[side] + k], &ops, &by_name);
    ml_u64map_free(&by_name);
    *out = ops.v;
    return ops.len;
}
