/*
 * operators.c — operator tables by name and by (name, input shape).
 */
#include "operators.h"

#include <stdlib.h>
#include <string.h>

#include "sortperm.h"
#include "steps.h"

static int cmp_row(const void *x, const void *y, void *arg)
{
    const ml_op_row *a = x, *b = y;
    bool by_device = *(const bool *)arg; /* device self time first, when there is GPU work */
    if (by_device && a->device_self_ns != b->device_self_ns) return a->device_self_ns > b->device_self_ns ? -1 : 1;
    if (a->host_self_ns != b->host_self_ns) return a->host_self_ns > b->host_self_ns ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    return (a->shape > b->shape) - (a->shape < b->shape);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

typedef VEC(uint64_t) pairs;

/* Sorts and dedupes (row << 32 | kernel row) pairs. */
static void compact(pairs *pr)
{
    if (!pr->len) return;
    qsort(pr->v, pr->len, sizeof *pr->v, cmp_u64);
    size_t n = 1;
    for (size_t i = 1; i < pr->len; i++)
        if (pr->v[i] != pr->v[n - 1]) pr->v[n++] = pr->v[i];
    pr->len = n;
}

/* Groups the operator nodes by key (one row per distinct key); node_row gets each node's row. */
static void group(const ml_profile *p, const ml_optree *tree, const uint32_t *nodes, size_t n, const int64_t *key,
                  bool with_shape, ml_op_rows *rows, uint32_t *node_row)
{
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    uint32_t *perm = ml_sort_perm_i64(key, n);
    int64_t cur = 0;
    for (size_t j = 0; j < n; j++) {
        size_t x = perm ? perm[j] : j;
        uint32_t nd = nodes[x], si = tree->slice[nd];
        uint32_t info = s->info.v[si];
        const ml_op_info *oi = info != ML_NONE32 && info < t->op_info.len ? &t->op_info.v[info] : NULL;
        if (j == 0 || key[x] != cur) {
            cur = key[x];
            ml_op_row r = {.name = s->name.v[si], .shape = with_shape && oi ? oi->input_dims : 0};
            VEC_PUSH(rows, r);
        }
        ml_op_row *r = &rows->v[rows->len - 1];
        r->calls++;
        r->host_total_ns += s->dur.v[si];
        r->host_self_ns += tree->host_self[nd];
        r->device_self_ns += tree->device_self[nd];
        r->device_total_ns += tree->device_total[nd];
        r->tc_self_ns += tree->tc_self[nd];
        r->tc_total_ns += tree->tc_total[nd];
        if (tree->flags[nd] & ML_NODE_TC_ELIGIBLE) r->tc_eligible = true;
        if (!r->stack && oi && oi->call_stack) r->stack = oi->call_stack;
        node_row[nd] = (uint32_t)(rows->len - 1);
    }
    free(perm);
}

/* Attaches the kernel rows to the op rows from (op row, kernel row) pairs,
 * then sorts the op rows. */
static void attach(ml_op_rows *rows, pairs *pr, bool gpu)
{
    compact(pr);
    size_t k = 0;
    for (size_t r = 0; r < rows->len; r++) {
        size_t b = k;
        while (k < pr->len && (pr->v[k] >> 32) == r) k++;
        rows->v[r].n_kernels = k - b;
        rows->v[r].kernels = ml_malloc((k - b ? k - b : 1) * sizeof(uint32_t));
        for (size_t q = b; q < k; q++) rows->v[r].kernels[q - b] = (uint32_t)(pr->v[q] & 0xffffffff);
    }
    qsort_r(rows->v, rows->len, sizeof *rows->v, cmp_row, &gpu);
}

void ml_operators_compute(const ml_profile *p, const ml_optree *tree, const ml_kernel_table *kt, ml_op_table *out)
{
    memset(out, 0, sizeof *out);
    const ml_trace *t = p->trace;
    if (!t || !tree->n) return;
    const ml_slices *s = &t->slices;
    VEC(uint32_t) nodes = {0};
    VEC(int64_t) key_name = {0}, key_shape = {0};
    for (uint32_t nd = 0; nd < tree->n; nd++) {
        if (!(tree->flags[nd] & ML_NODE_OPERATOR) || (tree->flags[nd] & ML_NODE_MERGED)) continue;
        uint32_t si = tree->slice[nd], info = s->info.v[si];
        ml_str shape = info != ML_NONE32 && info < t->op_info.len ? t->op_info.v[info].input_dims : 0;
        VEC_PUSH(&nodes, nd);
        VEC_PUSH(&key_name, (int64_t)s->name.v[si]);
        VEC_PUSH(&key_shape, (int64_t)((uint64_t)s->name.v[si] << 32 | shape));
    }
    uint32_t *row_name = ml_malloc(tree->n * sizeof *row_name), *row_shape = ml_malloc(tree->n * sizeof *row_shape);
    for (size_t i = 0; i < tree->n; i++) row_name[i] = row_shape[i] = ML_NONE32;
    group(p, tree, nodes.v, nodes.len, key_name.v, false, &out->by_name, row_name);
    group(p, tree, nodes.v, nodes.len, key_shape.v, true, &out->by_shape, row_shape);
    VEC_FREE(&nodes);
    VEC_FREE(&key_name);
    VEC_FREE(&key_shape);

    /* Kernels under each operator: walk up from each kernel's owner.  The
     * pairs repeat a lot; compacting now and then keeps them few. */
    pairs pn = {0}, ps = {0};
    bool gpu = false;
    for (size_t i = 0; i < s->ts.len; i++) {
        uint8_t k = s->kind.v[i];
        if (ml_slice_is_gpu(k)) gpu = true;
        if (k != ML_SL_KERNEL || s->name.v[i] >= kt->n_names) continue;
        uint64_t kr = kt->row_of_name[s->name.v[i]];
        if (kr == ML_NONE32) continue;
        for (uint32_t nd = tree->owner[i]; nd != ML_NONE32; nd = tree->parent[nd]) {
            if (row_name[nd] == ML_NONE32) continue;
            VEC_PUSH(&pn, (uint64_t)row_name[nd] << 32 | kr);
            VEC_PUSH(&ps, (uint64_t)row_shape[nd] << 32 | kr);
        }
        if (pn.len > (1u << 22)) compact(&pn), compact(&ps);
    }
    free(row_name);
    free(row_shape);
    attach(&out->by_name, &pn, gpu);
    attach(&out->by_shape, &ps, gpu);
    VEC_FREE(&pn);
    VEC_FREE(&ps);
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
}
