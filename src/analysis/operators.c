/*
 * operators.c — operator tables by name and by (name, input shape).
 */
#include "operators.h"

#include <stdlib.h>
#include <string.h>

#include "scratch.h"
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

static void add_call(const ml_profile *p, const ml_optree *tree, ml_op_row *r, uint32_t nd)
{
    const ml_trace *t = p->trace;
    uint32_t si = tree->slice[nd], info = t->slices.info.v[si];
    const ml_op_info *oi = info != ML_NONE32 && info < t->op_info.len ? &t->op_info.v[info] : NULL;
    const ml_node_device d = ml_optree_device(tree, nd);
    uint8_t fl = tree->flags[nd];
    r->calls++;
    r->host_total_ns += ml_optree_host_total(tree, &t->slices, nd);
    r->host_self_ns += ml_optree_host_self(tree, nd);
    r->device_self_ns += d.self;
    r->device_total_ns += d.total;
    r->tc_self_ns += d.tc_self;
    r->tc_total_ns += d.tc_total;
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

/* The operator nodes over each kernel row's launches, each once a kernel
 * row, by kernel row: what both tables read to give each row its kernels. */
typedef struct kernel_walk {
    uint32_t *node, *kernel; /* the n (operator node, kernel row) pairs */
    size_t n;
} kernel_walk;

/* The kernel slices are visited grouped by kernel row (a counting sort); the
 * walk up from each one's owner stamps the nodes with the kernel row and
 * stops at a node already stamped (its ancestors are done), so each (node,
 * kernel row) is seen once: the step and module nodes over every kernel
 * once per kernel name, not once per kernel. */
/* The kernel-table row of slice i when it is a kernel with an owner node, else ML_NONE32. */
static uint32_t owned_kernel_row(const ml_slices *s, const ml_optree *tree, const ml_kernel_table *kt, size_t i)
{
    if (s->kind.v[i] != ML_SL_KERNEL || s->name.v[i] >= kt->n_names || tree->owner[i] == ML_NONE32) return ML_NONE32;
    uint32_t kr = kt->row_of_name[s->name.v[i]];
    return kr < kt->by_name.len ? kr : ML_NONE32;
}

static void walk_kernels(const ml_trace *t, const ml_optree *tree, const ml_kernel_table *kt, kernel_walk *out)
{
    const ml_slices *s = &t->slices;
    size_t nk = kt->by_name.len, n_owned = 0;
    uint32_t *first = ml_calloc(nk + 1, sizeof *first); /* kernel row -> its first place in by_kernel */
    for (size_t i = 0; i < s->ts.len; i++) {
        uint32_t kr = owned_kernel_row(s, tree, kt, i);
        if (kr != ML_NONE32) first[kr + 1]++, n_owned++;
    }
    for (size_t k = 0; k < nk; k++) first[k + 1] += first[k];
    size_t cap_by_kernel, cap_stamp;
    uint32_t *by_kernel = ml_scratch_take(n_owned * sizeof *by_kernel, &cap_by_kernel); /* owner nodes */
    for (size_t i = 0; i < s->ts.len; i++) {
        uint32_t kr = owned_kernel_row(s, tree, kt, i);
        if (kr != ML_NONE32) by_kernel[first[kr]++] = tree->owner[i];
    }
    /* (first[k] is now where kernel row k's run ends) */
    uint32_t *stamp = ml_scratch_take(tree->n * sizeof *stamp, &cap_stamp);
    for (size_t nd = 0; nd < tree->n; nd++) stamp[nd] = ML_NONE32;
    VEC(uint32_t) node = {0}, kernel = {0};
    for (uint32_t kr = 0, j = 0; kr < nk; kr++)
        for (; j < first[kr]; j++)
            for (uint32_t nd = by_kernel[j]; nd != ML_NONE32 && stamp[nd] != kr; nd = tree->parent[nd]) {
                stamp[nd] = kr;
                if (!(tree->flags[nd] & ML_NODE_OPERATOR) || (tree->flags[nd] & ML_NODE_MERGED)) continue;
                VEC_PUSH(&node, nd);
                VEC_PUSH(&kernel, kr);
            }
    free(first);
    ml_scratch_give(by_kernel, cap_by_kernel, n_owned * sizeof *by_kernel);
    ml_scratch_give(stamp, cap_stamp, tree->n * sizeof *stamp);
    *out = (kernel_walk){node.v, kernel.v, node.len};
}

/* Gives each row the kernel rows launched under its calls, ascending. */
static void attach_kernels(const kernel_walk *kw, const uint32_t *row_of_node, ml_op_rows *rows)
{
    uint32_t *stamp = ml_malloc((rows->len ? rows->len : 1) * sizeof *stamp); /* row -> the last kernel row given */
    for (size_t r = 0; r < rows->len; r++) stamp[r] = ML_NONE32;
    for (size_t i = 0; i < kw->n; i++) {
        uint32_t r = row_of_node[kw->node[i]];
        if (r == ML_NONE32 || stamp[r] == kw->kernel[i]) continue;
        stamp[r] = kw->kernel[i];
        rows->v[r].n_kernels++;
    }
    for (size_t r = 0; r < rows->len; r++) { /* (none: NULL, no allocation per kernel-less row) */
        rows->v[r].kernels = rows->v[r].n_kernels ? ml_malloc(rows->v[r].n_kernels * sizeof(uint32_t)) : NULL;
        rows->v[r].n_kernels = 0;
        stamp[r] = ML_NONE32;
    }
    for (size_t i = 0; i < kw->n; i++) { /* (by kernel row: each row's come ascending) */
        uint32_t r = row_of_node[kw->node[i]];
        if (r == ML_NONE32 || stamp[r] == kw->kernel[i]) continue;
        stamp[r] = kw->kernel[i];
        rows->v[r].kernels[rows->v[r].n_kernels++] = kw->kernel[i];
    }
    free(stamp);
}

/* Sorts the rows; returns where each row went (row -> its place in the
 * sorted table; freed by the caller). */
static uint32_t *sort_rows(ml_op_rows *rows, bool gpu)
{
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
    const kernel_walk *kernel_walk; /* NULL: rows without their kernels */
    bool by_shape;             /* (name, input shape), else name */
    bool hists;                /* each row's histogram wanted */
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
    size_t cap_row_of_node;
    uint32_t *row_of_node = ml_scratch_take(tree->n * sizeof *row_of_node, &cap_row_of_node);
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

    /* Kernels under each operator; whether there is GPU work (the streams' slices come last). */
    bool gpu = false;
    for (size_t i = s->ts.len; !gpu && i-- > 0;) gpu = ml_slice_is_gpu(s->kind.v[i]);
    if (g->kernel_walk) attach_kernels(g->kernel_walk, row_of_node, g->rows);
    uint32_t *place = sort_rows(g->rows, gpu);

    /* The calls' histograms, for the rows people see (the first ones). */
    size_t nh = !g->hists ? 0 : g->rows->len < ML_OP_HIST_ROWS ? g->rows->len : ML_OP_HIST_ROWS;
    if (nh) *g->hist_of = ml_calloc(nh, sizeof **g->hist_of);
    for (size_t r = 0; r < nh; r++) g->rows->v[r].hist = &(*g->hist_of)[r];
    for (uint32_t nd = 0; nd < tree->n && nh; nd++) {
        if (row_of_node[nd] == ML_NONE32 || place[row_of_node[nd]] >= nh) continue;
        uint32_t si = tree->slice[nd];
        ml_durhist_add(&(*g->hist_of)[place[row_of_node[nd]]], s->ts.v[si], ml_optree_host_total(tree, s, nd));
    }
    free(place);
    ml_scratch_give(row_of_node, cap_row_of_node, tree->n * sizeof *row_of_node);
}

void ml_operators_compute(const ml_profile *p, const ml_optree *tree, const ml_kernel_table *kt, const ml_op_wants *w,
                          ml_op_table *out)
{
    memset(out, 0, sizeof *out);
    if (!p->trace || !tree->n) return;
    static const ml_op_wants all = {0};
    if (!w) w = &all;
    bool hists = !w->no_hists;
    kernel_walk kw = {0};
    if (!w->no_kernels && (!w->no_by_name || !w->no_by_shape)) walk_kernels(p->trace, tree, kt, &kw);
    const kernel_walk *k = w->no_kernels ? NULL : &kw;
    grouping by_name = {p, tree, k, false, hists, &out->by_name, &out->hists[0]},
             by_shape = {p, tree, k, true, hists, &out->by_shape, &out->hists[1]};
    /* The two tables share nothing but what they read: one thread each. */
    if (!w->no_by_name && !w->no_by_shape) ml_par2(group, &by_name, group, &by_shape);
    else if (!w->no_by_name) group(&by_name);
    else if (!w->no_by_shape) group(&by_shape);
    free(kw.node);
    free(kw.kernel);
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
