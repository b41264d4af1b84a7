/*
 * optree.c — operator trees and their times (see optree.h for the rules).
 */
#include "optree.h"

#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "steps.h"
#include "u64map.h"

static const char *const tc_kernel_patterns[] = {
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel",
    "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm", "xmma_sparse_conv",
    "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm", "c1688"};

static const char *const tc_ops[] = {
    "aten::_convolution", "aten::_convolution_nogroup", "aten::conv1d", "aten::conv2d", "aten::conv3d",
    "aten::conv_tbc", "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose", "aten::prelu",
    "aten::addmm", "aten::addmv", "aten::addr", "aten::matmul", "aten::mm", "aten::mv", "aten::linear",
    "aten::addbmm", "aten::baddbmm", "aten::bmm", "aten::chain_matmul", "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell",
    "aten::rnn_tanh_cell", "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
    "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward", "MmBackward",
    "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward", "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight", "aten::cudnn_convolution_transpose_backward_input",
    "AddmmBackward", "aten::cudnn_convolution_backward_input", "AddbmmBackward", "aten::cudnn_convolution_backward"};

#define COUNT(a) (sizeof(a) / sizeof *(a))

bool ml_kernel_uses_tc(const char *name)
{
    for (size_t i = 0; i < COUNT(tc_kernel_patterns); i++)
        if (strstr(name, tc_kernel_patterns[i])) return true;
    return false;
}

bool ml_op_tc_eligible(const char *name)
{
    for (size_t i = 0; i < COUNT(tc_ops); i++)
        if (!strcmp(name, tc_ops[i])) return true;
    return false;
}

/* The plugin's is_operator_node, for a cpu_op. */
static bool counts_as_operator(const char *name)
{
    return !ml_name_is_dataloader(name) && strncmp(name, "Optimizer.", 10) != 0 &&
           strcmp(name, "DataParallel.forward") != 0 && strcmp(name, "DistributedDataParallel.forward") != 0;
}

static bool is_tree_slice(const ml_trace *t, size_t i)
{
    uint8_t k = t->slices.kind.v[i];
    if (k == ML_SL_CPU_OP || k == ML_SL_USER_ANNOTATION || k == ML_SL_PROFILER_STEP) return true;
    if (k != ML_SL_PYTHON) return false;
    uint32_t info = t->slices.info.v[i];
    return info != ML_NONE32 && info < t->op_info.len && ml_op_python_module(t, &t->op_info.v[info]) >= 0;
}

typedef struct ext_node {
    int64_t ext;
    uint32_t node;
} ext_node;

static int cmp_ext(const void *x, const void *y)
{
    const ext_node *a = x, *b = y;
    if (a->ext != b->ext) return a->ext < b->ext ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node); /* first node wins, as the plugin's pop */
}

/* The nodes as they are made: each thread's tree in pre-order (a node's
 * descendants follow it, so its first child, if any, is the next node). */
typedef struct builder {
    VEC(uint32_t) slice, parent; /* (a node's track is its slice's: not kept, 4 bytes a node) */
    VEC(uint8_t) flags;
    VEC(ml_node_dur) clipped;   /* (a node's duration is its slice's, but for these) */
    uint8_t *nchild;            /* children per node, saturating at 2 */
} builder;

/* (the columns are reserved for every node there can be: no growing; their
 * lengths are set once they are made) */
static inline void add_node(builder *b, uint32_t id, uint32_t slice, uint32_t parent, uint8_t flags)
{
    b->slice.v[id] = slice;
    b->parent.v[id] = parent;
    b->flags.v[id] = flags;
    if (parent != ML_NONE32) b->nchild[parent] += b->nchild[parent] < 2;
}

int64_t ml_optree_clipped_dur(const ml_optree *t, uint32_t node)
{
    size_t lo = 0, hi = t->clipped; /* (by node: they were made in node order) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->clipped_dur[mid].node < node) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->clipped && t->clipped_dur[lo].node == node ? t->clipped_dur[lo].dur : 0;
}

/* Adds d to a time kept as an ml_id32: one in a side row of w is changed
 * there (and stays there, which ml_id32_get reads as well). */
static inline void id32_add(ml_wide_ids *w, ml_id32 *v, int64_t d)
{
    if (*v < -1) w->v[-2 - (int64_t)*v] += d;
    else *v = ml_id32_put(w, (int64_t)*v + d);
}

static inline void host_self_add(ml_optree *t, uint32_t node, int64_t d)
{
    id32_add(&t->host_self_wide, &t->host_self[node], d);
}

/* The device row of a node, made when it first has device time. */
static inline ml_node_device_row *device_of(ml_optree *t, uint32_t node)
{
    if (!t->device_row[node]) {
        t->device_row[node] = (uint32_t)t->n_device;
        t->device[t->n_device++] = (ml_node_device_row){0, 0, 0, 0};
    }
    return &t->device[t->device_row[node]];
}

void ml_optree_build(const ml_profile *p, ml_optree *out)
{
    memset(out, 0, sizeof *out);
    out->main_root = ML_NONE32;
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len;
    out->owner = ml_malloc((n ? n : 1) * sizeof *out->owner);
    for (size_t i = 0; i < n; i++) out->owner[i] = ML_NONE32;
    builder b = {0};
    /* At most one node per slice plus one root per track: reserved once
     * (untouched pages cost nothing), so no column is copied as it grows. */
    size_t most = n + t->tracks.len;
    VEC_RESERVE(&b.slice, most); VEC_RESERVE(&b.parent, most);
    VEC_RESERVE(&b.flags, most);
    size_t cap_nchild; /* (to the scratch pool after: the operator tables' arrays grow from it) */
    b.nchild = ml_scratch_take_zero(most, &cap_nchild);
    uint32_t *root_of = ml_malloc((t->tracks.len ? t->tracks.len : 1) * sizeof *root_of);
    VEC(uint32_t) stack = {0};
    VEC(int64_t) stack_end = {0};
    uint32_t nn = 0; /* nodes made */
    /* per name id: 1 known, 2 counts as an operator, 4 Tensor Core eligible */
    size_t nstr = ml_strpool_count(p->strings);
    uint8_t *cls = ml_calloc(nstr ? nstr : 1, 1);

    /* Nest each thread's tree slices by containment. */
    for (uint32_t tr = 0; tr < t->tracks.len; tr++) {
        root_of[tr] = ML_NONE32;
        size_t first, cnt;
        ml_track_slices(t, tr, &first, &cnt);
        stack.len = stack_end.len = 0;
        for (size_t i = first; i < first + cnt; i++) {
            if (!is_tree_slice(t, i)) continue;
            if (root_of[tr] == ML_NONE32) {
                add_node(&b, root_of[tr] = nn++, ML_NONE32, ML_NONE32, ML_NODE_ROOT);
                VEC_PUSH(&stack, root_of[tr]);
                VEC_PUSH(&stack_end, INT64_MAX);
            }
            int64_t sb = s->ts.v[i], se = sb + ml_slice_dur(s, i);
            while (stack.len) {
                if (sb < stack_end.v[stack.len - 1]) {
                    uint8_t fl = 0, c = 0;
                    uint32_t id = nn++;
                    if (se > stack_end.v[stack.len - 1]) { /* crosses its parent's end: cut there */
                        se = stack_end.v[stack.len - 1];
                        fl |= ML_NODE_CLIPPED;
                        VEC_PUSH(&b.clipped, ((ml_node_dur){id, se - sb}));
                    }
                    ml_str nm = s->name.v[i];
                    if (nm < nstr && cls[nm]) c = cls[nm];
                    else {
                        const char *name = ml_s(p, nm);
                        c = 1 | (counts_as_operator(name) ? 2 : 0) | (ml_op_tc_eligible(name) ? 4 : 0);
                        if (nm < nstr) cls[nm] = c;
                    }
                    if (s->kind.v[i] == ML_SL_CPU_OP && (c & 2)) fl |= ML_NODE_OPERATOR;
                    if (c & 4) fl |= ML_NODE_TC_ELIGIBLE;
                    add_node(&b, id, (uint32_t)i, stack.v[stack.len - 1], fl);
                    out->owner[i] = id;
                    VEC_PUSH(&stack, id);
                    VEC_PUSH(&stack_end, se);
                    if (out->main_root == ML_NONE32 && s->kind.v[i] == ML_SL_PROFILER_STEP)
                        out->main_root = root_of[tr];
                    break;
                }
                stack.len--, stack_end.len--;
            }
        }
    }
    VEC_FREE(&stack);
    VEC_FREE(&stack_end);
    free(cls);
    b.slice.len = b.parent.len = b.flags.len = nn;
    out->n = nn;
    out->slice = b.slice.v;
    out->parent = b.parent.v;
    out->flags = b.flags.v;
    out->clipped = b.clipped.len;
    out->clipped_dur = b.clipped.v;
    /* The device rows: at most one a node, reserved (untouched past those
     * made).  rt_to (node ids) lives at their start till they are made: a
     * column of its own would be fresh pages, a fault per 4 KiB. */
    uint8_t *nchild = b.nchild;
    out->host_self = ml_malloc((nn ? nn : 1) * sizeof *out->host_self);
    out->device_row = ml_malloc((nn ? nn : 1) * sizeof *out->device_row);
    out->device = ml_malloc((nn + 1) * sizeof *out->device);
    uint32_t *rt_to = (uint32_t *)(void *)out->device;

    /* One top-down pass (a parent comes before its children, so everything
     * it reads about earlier nodes is final):
     * - a merged node's children go to the node that absorbed it;
     * - a cpu_op merges with its only child of the same name (the child
     *   counts, made as the nodes were, saturate: only "exactly one" matters);
     * - whose runtime calls each node ends up with (rt_to): a merged chain's
     *   deepest node's go to the node that absorbed it, the absorbing node's
     *   own and the chain's inner nodes' are dropped (the plugin replaces its
     *   list with the child's). */
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t par = b.parent.v[i], si = b.slice.v[i];
        uint8_t fl = b.flags.v[i];
        if (par != ML_NONE32 && (b.flags.v[par] & ML_NODE_MERGED)) b.parent.v[i] = b.parent.v[par];
        out->host_self[i] = ml_id32_put(&out->host_self_wide, ml_optree_host_total(out, s, i));
        out->device_row[i] = 0; /* (row 0: none) */
        if (fl & ML_NODE_MERGED) continue; /* (its rt_to set by its head) */
        rt_to[i] = i;
        if (fl & ML_NODE_ROOT) continue;
        if (s->kind.v[si] != ML_SL_CPU_OP) continue;
        uint32_t last = i; /* the deepest node merged into i so far */
        while (nchild[last] == 1) {
            uint32_t c = last + 1, sc = b.slice.v[c]; /* the only child: next in pre-order */
            if (s->kind.v[sc] != ML_SL_CPU_OP || s->name.v[sc] != s->name.v[si]) break;
            b.flags.v[c] |= ML_NODE_MERGED;
            rt_to[c] = ML_NONE32;
            last = c;
        }
        if (last != i) {
            rt_to[i] = ML_NONE32;
            rt_to[last] = i;
        }
    }
    ml_scratch_give(nchild, cap_nchild, nn);

    /* Runtime calls to their nodes; External id -> node when needed. */
    VEC(ext_node) ext = {0};
    bool ext_built = false;
    for (size_t i = 0; i < n; i++) {
        if (!ml_slice_is_runtime(s->kind.v[i])) continue;
        int64_t x = ml_slice_ext_id(s, i);
        uint32_t node = ML_NONE32;
        for (uint32_t q = s->parent.v[i]; q != ML_NONE32 && q < n; q = s->parent.v[q])
            if (out->owner[q] != ML_NONE32 && b.slice.v[out->owner[q]] == q) {
                node = out->owner[q];
                break;
            }
        if (node == ML_NONE32 && x > 0) {
            if (!ext_built) { /* only calls outside every operator need it */
                for (uint32_t j = 0; j < nn; j++) {
                    uint32_t sj = b.slice.v[j];
                    if (sj != ML_NONE32 && ml_slice_ext_id(s, sj) > 0) VEC_PUSH(&ext, ((ext_node){ml_slice_ext_id(s, sj), j}));
                }
                if (ext.len) qsort(ext.v, ext.len, sizeof *ext.v, cmp_ext);
                ext_built = true;
            }
            size_t lo = 0, hi = ext.len;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (ext.v[mid].ext < x) lo = mid + 1;
                else hi = mid;
            }
            if (lo < ext.len && ext.v[lo].ext == x) node = ext.v[lo].node;
        } else if (node == ML_NONE32 && x == 0) node = root_of[s->track.v[i]];
        if (node != ML_NONE32) node = rt_to[node];
        out->owner[i] = node;
        if (node != ML_NONE32) host_self_add(out, node, -ml_slice_dur(s, i));
    }
    VEC_FREE(&ext);
    free(root_of);

    /* Flows from host work into GPU work (Ascend's async_npu: the op that
     * queued an NPU task), for GPU work whose launch links to no operator:
     * made when the first such work turns up (CUDA traces have none, and
     * their ac2g flows would fill it with every kernel). */
    ml_u64map flow_src;
    ml_u64map_init(&flow_src);
    bool flow_src_built = false;

    /* GPU work to the node of its launch; kernels with none to the main root. */
    size_t gpu_from = n, gpu_to = 0; /* (the rows with GPU work that has an owner, for the pass below) */
    ML_FOR_DEVICE_ROWS (t, i) {
        uint8_t k = s->kind.v[i];
        if (!ml_slice_is_gpu(k)) continue;
        uint32_t l = s->launcher.v[i], node = ML_NONE32;
        bool launched = l != ML_NONE32 && l < n && ml_slice_is_runtime(s->kind.v[l]);
        if (launched) node = out->owner[l];
        if (node == ML_NONE32 && !flow_src_built) {
            for (size_t f = 0; f < t->flows.len; f++) {
                uint32_t a = t->flows.v[f].from, z = t->flows.v[f].to;
                if (a >= n || z >= n || !ml_slice_is_gpu(s->kind.v[z]) || ml_slice_is_gpu(s->kind.v[a])) continue;
                bool fresh;
                uint32_t *v = ml_u64map_put(&flow_src, z, &fresh);
                if (fresh) *v = a;
            }
            flow_src_built = true;
        }
        if (node == ML_NONE32 && flow_src.len) {
            uint32_t *src = ml_u64map_get(&flow_src, i);
            for (uint32_t q = src ? *src : ML_NONE32; q != ML_NONE32 && q < n; q = s->parent.v[q])
                if (out->owner[q] != ML_NONE32 && b.slice.v[out->owner[q]] == q) {
                    node = rt_to[out->owner[q]];
                    break;
                }
        }
        if (node == ML_NONE32 && !launched && k == ML_SL_KERNEL) node = out->main_root;
        out->owner[i] = node;
        if (node == ML_NONE32) continue;
        if (i < gpu_from) gpu_from = i;
        gpu_to = i + 1;
    }
    ml_u64map_free(&flow_src);

    /* rt_to done with: the GPU work's times to its owners' device rows. */
    out->device[0] = (ml_node_device_row){0, 0, 0, 0};
    out->n_device = 1;
    ml_wide_ids *w = &out->device_wide;
    uint8_t *tc_name = ml_calloc(nstr ? nstr : 1, 1); /* 0 unknown, 1 no, 2 yes */
    for (size_t i = gpu_from; i < gpu_to; i++) { /* (the streams' slices: usually the last) */
        uint8_t k = s->kind.v[i];
        uint32_t node = out->owner[i];
        if (!ml_slice_is_gpu(k) || node == ML_NONE32) continue;
        ml_node_device_row *d = device_of(out, node);
        id32_add(w, &d->self, ml_slice_dur(s, i));
        if (k == ML_SL_KERNEL) {
            ml_str nm = s->name.v[i];
            if (nm < nstr && !tc_name[nm]) tc_name[nm] = ml_kernel_uses_tc(ml_s(p, nm)) ? 2 : 1;
            if (nm < nstr && tc_name[nm] == 2) id32_add(w, &d->tc_self, ml_slice_dur(s, i));
        }
    }
    free(tc_name);

    /* Bottom up (children come after their parents: a node's row holds its
     * children's totals when it is reached). */
    for (uint32_t i = (uint32_t)nn; i-- > 0;) {
        ml_node_device_row *d = out->device_row[i] ? &out->device[out->device_row[i]] : NULL;
        int64_t total = 0, tc_total = 0, tc_self = 0;
        if (d) {
            tc_self = ml_id32_get(w, d->tc_self);
            id32_add(w, &d->total, ml_id32_get(w, d->self));
            id32_add(w, &d->tc_total, tc_self);
            total = ml_id32_get(w, d->total);
            tc_total = ml_id32_get(w, d->tc_total);
        }
        uint8_t fl = b.flags.v[i];
        if (fl & ML_NODE_MERGED) continue;
        uint32_t si = b.slice.v[i];
        bool cpu_op = si != ML_NONE32 && s->kind.v[si] == ML_SL_CPU_OP;
        if (cpu_op && tc_self > 0) b.flags.v[i] |= ML_NODE_TC_ELIGIBLE;
        uint32_t par = b.parent.v[i];
        if (par == ML_NONE32) continue;
        if (total || tc_total) { /* (a parent gets a row only for time to add) */
            ml_node_device_row *up = device_of(out, par); /* (the rows are reserved: d stays where it is) */
            id32_add(w, &up->total, total);
            id32_add(w, &up->tc_total, tc_total);
        }
        host_self_add(out, par, -ml_optree_host_total(out, s, i));
        uint32_t sp = b.slice.v[par];
        if ((b.flags.v[i] & ML_NODE_TC_ELIGIBLE) && sp != ML_NONE32 && s->kind.v[sp] == ML_SL_CPU_OP)
            b.flags.v[par] |= ML_NODE_TC_ELIGIBLE;
    }

    if (out->n_device < nn + 1) out->device = ml_realloc(out->device, out->n_device * sizeof *out->device);

    /* Never a negative time: a runtime call (or, in a clock-skewed trace,
     * children) longer than the node. */
    for (uint32_t i = 0; i < nn; i++)
        if (ml_optree_host_self(out, i) < 0 && !(b.flags.v[i] & (ML_NODE_ROOT | ML_NODE_MERGED))) {
            out->host_self[i] = 0;
            if (b.flags.v[i] & ML_NODE_OPERATOR) out->self_clamped++;
        }
}

void ml_optree_free(ml_optree *t)
{
    free(t->slice);
    free(t->parent);
    free(t->flags);
    free(t->host_self);
    VEC_FREE(&t->host_self_wide);
    free(t->device_row);
    free(t->device);
    VEC_FREE(&t->device_wide);
    free(t->clipped_dur);
    free(t->owner);
    memset(t, 0, sizeof *t);
}
