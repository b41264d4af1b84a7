/*
 * operators.c — operator tables by name and by (name, input shape).
 */
#include "operators.h"

#include <stdlib.h>
#include <string.h>

#include "sortperm.h"
#include "steps.h"
#include "par.h"
#include "u64map.h"

static int cmp_row(const void *x, const void *y, void *arg)
{
    const ml_op_row *a = x, *b = y;
    bool by_device = *(const bool *)arg; /* device self time first, when there is GPU work */
    if (by_device && a->device_self_ns != b->device_self_ns) return a->device_self_ns > b->device_self_ns ? -1 : 1;
    if (a->host_self_ns != b->host_self_ns) return a->host_self_ns > b->host_self_ns ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    return (a->shape > b->shape) - (a->shape < b->shape);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static void add_call(const ml_profile *p, const ml_optree *tree, ml_op_row *r, uint32_t nd)
{
    const ml_trace *t = p->trace;
    uint32_t si = tree->slice[nd], info = t->slices.info.v[si];
    const ml_op_info *oi = info != ML_NONE32 && info < t->op_info.len ? &t->op_info.v[info] : NULL;
    const ml_node_device *d = ml_optree_device(tree, nd);
    uint8_t fl = tree->flags[nd];
    r->calls++; /* (an operator is no root: its host total is its slice's but when clipped) */
    r->host_total_ns += fl & ML_NODE_CLIPPED ? ml_optree_clipped_dur(tree, nd) : t->slices.dur.v[si];
    r->host_self_ns += tree->host_self[nd];
    r->device_self_ns += d->self;
    r->device_total_ns += d->total;
    r->tc_self_ns += d->tc_self;
    r->tc_total_ns += d->tc_total;
    if (fl & ML_NODE_TC_ELIGIBLE) r->tc_eligible = true;
    if (!r->stack && oi && oi->call_stack) r->stack = oi->call_stack;
}

typedef struct sort_ctx {
    const ml_op_row *rows;
    bool gpu;
} sort_ctx;

static int cmp_index(const void *x, const void *y, void *arg)
{
    const sort_ctx *c = arg;
    bool gpu = c->gpu;
    return cmp_row(&c->rows[*(const uint32_t *)x], &c->rows[*(const uint32_t *)y], &gpu);
}

/* Gives each row its kernel rows from the set of (row << 32 | kernel row)
 * pairs, then sorts the rows; returns where each row went (row -> its place
 * in the sorted table; freed by the caller). */
static uint32_t *attach(ml_op_rows *rows, const ml_u64map *pairs, bool gpu)
{
    for (size_t i = 0; i < pairs->cap; i++)
        if (pairs->used[i]) rows->v[pairs->keys[i] >> 32].n_kernels++;
    for (size_t r = 0; r < rows->len; r++) { /* (none: NULL, no allocation per kernel-less row) */
        rows->v[r].kernels = rows->v[r].n_kernels ? ml_malloc(rows->v[r].n_kernels * sizeof(uint32_t)) : NULL;
        rows->v[r].n_kernels = 0;
    }
    for (size_t i = 0; i < pairs->cap; i++) {
        if (!pairs->used[i]) continue;
        ml_op_row *r = &rows->v[pairs->keys[i] >> 32];
        r->kernels[r->n_kernels++] = (uint32_t)(pairs->keys[i] & 0xffffffff);
    }
    for (size_t r = 0; r < rows->len; r++)
        if (rows->v[r].n_kernels > 1) qsort(rows->v[r].kernels, rows->v[r].n_kernels, sizeof(uint32_t), cmp_u32);
    size_t n = rows->len;
    uint32_t *perm = ml_malloc((n ? n : 1) * sizeof *perm), *place = ml_malloc((n ? n : 1) * sizeof *place);
    for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
    sort_ctx ctx = {rows->v, gpu};
    if (n) qsort_r(perm, n, sizeof *perm, cmp_index, &ctx);
    for (size_t k = 0; k < n; k++) place[perm[k]] = (uint32_t)k;
    ml_permute(rows->v, sizeof *rows->v, perm, n);
    free(perm);
    return place;
}

typedef struct grouping {
    const ml_profile *p;
    const ml_optree *tree;
    const ml_kernel_table *kt;
    bool by_shape;             /* (name, input shape), else name */
    bool kernels, hists;       /* each row's kernels and histogram wanted */
    ml_op_rows *rows;
    ml_durhist **hist_of;      /* made here: the first ML_OP_HIST_ROWS rows' */
} grouping;

/* One table: a row per name (or name and shape) with its calls, then the
 * kernels launched under each row's calls. */
static void group(void *arg)
{
    const grouping *g = arg;
    const ml_profile *p = g->p;
    const ml_optree *tree = g->tree;
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    size_t nstr = ml_strpool_count(p->strings);
    uint32_t *row_of_name = g->by_shape ? NULL : ml_malloc((nstr ? nstr : 1) * sizeof *row_of_name);
    if (row_of_name)
        for (size_t i = 0; i < nstr; i++) row_of_name[i] = ML_NONE32;
    ml_u64map shape_rows;
    ml_u64map_init(&shape_rows);
    uint32_t *row_of_node = ml_malloc(tree->n * sizeof *row_of_node);
    for (uint32_t nd = 0; nd < tree->n; nd++) {
        row_of_node[nd] = ML_NONE32;
        if (!(tree->flags[nd] & ML_NODE_OPERATOR) || (tree->flags[nd] & ML_NODE_MERGED)) continue;
        uint32_t si = tree->slice[nd];
        ml_str name = s->name.v[si];
        if (name >= nstr) continue;
        uint32_t row;
        if (!g->by_shape) {
            if (row_of_name[name] == ML_NONE32) {
                row_of_name[name] = (uint32_t)g->rows->len;
                VEC_PUSH(g->rows, ((ml_op_row){.name = name}));
            }
            row = row_of_name[name];
        } else {
            uint32_t info = s->info.v[si];
            ml_str shape = info != ML_NONE32 && info < t->op_info.len ? t->op_info.v[info].input_dims : 0;
            bool fresh;
            uint32_t *r = ml_u64map_put(&shape_rows, (uint64_t)name << 32 | shape, &fresh);
            if (fresh) {
                *r = (uint32_t)g->rows->len;
                VEC_PUSH(g->rows, ((ml_op_row){.name = name, .shape = shape}));
            }
            row = *r;
        }
        row_of_node[nd] = row;
        add_call(p, tree, &g->rows->v[row], nd);
    }
    free(row_of_name);
    ml_u64map_free(&shape_rows);

    /* Kernels under each operator: walk up from each kernel's owner. */
    ml_u64map pairs;
    ml_u64map_init(&pairs);
    bool gpu = false, fresh;
    const ml_kernel_table *kt = g->kt;
    /* (without them, only whether there is GPU work: the streams' slices come last) */
    for (size_t i = s->ts.len; !g->kernels && !gpu && i-- > 0;) gpu = ml_slice_is_gpu(s->kind.v[i]);
    for (size_t i = 0; i < s->ts.len && g->kernels; i++) {
        uint8_t k = s->kind.v[i];
        if (ml_slice_is_gpu(k)) gpu = true;
        if (k != ML_SL_KERNEL || s->name.v[i] >= kt->n_names) continue;
        uint64_t kr = kt->row_of_name[s->name.v[i]];
        if (kr == ML_NONE32) continue;
        for (uint32_t nd = tree->owner[i]; nd != ML_NONE32; nd = tree->parent[nd])
            if (row_of_node[nd] != ML_NONE32) ml_u64map_put(&pairs, (uint64_t)row_of_node[nd] << 32 | kr, &fresh);
    }
    uint32_t *place = attach(g->rows, &pairs, gpu);
    ml_u64map_free(&pairs);

    /* The calls' histograms, for the rows people see (the first ones). */
    size_t nh = !g->hists ? 0 : g->rows->len < ML_OP_HIST_ROWS ? g->rows->len : ML_OP_HIST_ROWS;
    if (nh) *g->hist_of = ml_calloc(nh, sizeof **g->hist_of);
    for (size_t r = 0; r < nh; r++) g->rows->v[r].hist = &(*g->hist_of)[r];
    for (uint32_t nd = 0; nd < tree->n && nh; nd++) {
        if (row_of_node[nd] == ML_NONE32 || place[row_of_node[nd]] >= nh) continue;
        uint32_t si = tree->slice[nd];
        int64_t total = tree->flags[nd] & ML_NODE_CLIPPED ? ml_optree_clipped_dur(tree, nd) : s->dur.v[si]; /* (no root) */
        ml_durhist_add(&(*g->hist_of)[place[row_of_node[nd]]], s->ts.v[si], total);
    }
    free(place);
    free(row_of_node);
}

void ml_operators_compute(const ml_profile *p, const ml_optree *tree, const ml_kernel_table *kt, const ml_op_wants *w,
                          ml_op_table *out)
{
    memset(out, 0, sizeof *out);
    if (!p->trace || !tree->n) return;
    static const ml_op_wants all = {0};
    if (!w) w = &all;
    bool kernels = !w->no_kernels, hists = !w->no_hists;
    grouping by_name = {p, tree, kt, false, kernels, hists, &out->by_name, &out->hists[0]},
             by_shape = {p, tree, kt, true, kernels, hists, &out->by_shape, &out->hists[1]};
    /* The two tables share nothing but what they read: one thread each. */
    if (!w->no_by_name && !w->no_by_shape) ml_par2(group, &by_name, group, &by_shape);
    else if (!w->no_by_name) group(&by_name);
    else if (!w->no_by_shape) group(&by_shape);
}

static void free_rows(ml_op_rows *rows)
{
    for (size_t i = 0; i < rows->len; i++) free(rows->v[i].kernels);
    VEC_FREE(rows);
}

void ml_operators_free(ml_op_table *t)
{
    free_rows(&t->by_name);
    free_rows(&t->by_shape);
    free(t->hists[0]);
    free(t->hists[1]);
}
