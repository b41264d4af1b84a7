/*
 * optree.h — the operator tree of each host thread, as the TensorBoard
 * profiler plugin builds it (op_tree.py, node.py), with the host and device
 * time of every node.
 *
 * Nodes are the cpu_op, user_annotation and ProfilerStep# slices and the
 * nn.Module python_function slices of a thread, nested by containment.  A
 * slice that starts inside its would-be parent but ends after it (ranges on
 * one thread that cross: a broken or clock-skewed trace) is cut at the
 * parent's end and nested there, so that no operator goes missing (the
 * plugin leaves it out; counted in `clipped`).  Each thread has a root.  A cpu_op whose only
 * child is a cpu_op of the same name is merged with it (torch.autograd's
 * _remove_dup_nodes): it takes the child's children and runtime calls.
 *
 * Runtime calls belong to the node with the same External id; those with
 * External id 0 to their thread's root; those without one to the innermost
 * node enclosing them (memlens' rule: such traces have no better link).
 * GPU work belongs to the node of the runtime call that launched it
 * (correlation id); kernels with no launching call to the root of the
 * thread that has the ProfilerStep#s.
 *
 *   host total   the node's duration (cut, for a clipped node; 0 for a root)
 *   host self    minus its children's durations and its runtime calls';
 *                never below 0 (a runtime call or child longer than the
 *                node: counted in `self_clamped`)
 *   device self  the GPU work (kernels, memcpy, memset) its runtime calls launched
 *   device total the same with all its descendants'
 *   tc           the same for kernels that use Tensor Cores (name allowlist)
 *   tc_eligible  an operator the plugin's allowlist names, or a cpu_op with
 *                an eligible child or a Tensor Core kernel of its own
 */
#ifndef ML_OPTREE_H
#define ML_OPTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

enum {
    ML_NODE_ROOT = 1,       /* a thread's root (no slice) */
    ML_NODE_OPERATOR = 2,   /* counts in the Operator view (plugin's is_operator_node) */
    ML_NODE_TC_ELIGIBLE = 4,
    ML_NODE_MERGED = 8,     /* merged into its same-named parent: not a node any more */
    ML_NODE_CLIPPED = 16,   /* cut at its parent's end: host total in `clipped_dur` */
};

/* The device times of a node (ns), as ml_optree_device() gives them. */
typedef struct ml_node_device {
    int64_t self, total, tc_self, tc_total;
} ml_node_device;

/* A device row as the tree keeps it: each time an ml_id32 (trace.h: one of
 * 2.1 s or more in the tree's device_wide), 16 bytes a row, not 32. */
typedef struct ml_node_device_row {
    ml_id32 self, total, tc_self, tc_total;
} ml_node_device_row;

/* A clipped node's host total. */
typedef struct ml_node_dur {
    uint32_t node;
    int64_t dur;
} ml_node_dur;

typedef struct ml_optree {
    size_t n;               /* nodes, parents before their children */
    uint32_t *slice;        /* node -> slice; ML_NONE32 for roots */
    uint32_t *parent;       /* node -> parent node; ML_NONE32 for roots */
    uint8_t *flags;         /* ML_NODE_* */
    /* Host self time, as an ml_id32 a node (trace.h: 4 bytes, not 8; one of
     * 2.1 s or more, or a root's below -1, a row of host_self_wide): read
     * it with ml_optree_host_self(). */
    ml_id32 *host_self;
    ml_wide_ids host_self_wide;
    /* Device times: most operators launch nothing, so a node's four are a
     * row of `device` of its own only where one is not 0 (device_row; row 0,
     * all zeros, is every other node's), not four int64 columns of mostly
     * zeros.  ml_optree_device() reads them. */
    uint32_t *device_row;
    ml_node_device_row *device;
    ml_wide_ids device_wide;
    size_t n_device;        /* rows, row 0 included */
    /* A node's host total is its slice's duration (ml_optree_host_total());
     * a clipped node's, cut, is here, by node (a column for the rare cut
     * ones would be 8 bytes a node). */
    ml_node_dur *clipped_dur;
    /* slice -> node: a tree slice's own node, a runtime call's or GPU work's
     * owning node; ML_NONE32 where none (and for other slices). */
    uint32_t *owner;
    uint32_t main_root;     /* root of the thread with ProfilerStep#s, ML_NONE32 */
    size_t clipped;         /* nodes cut at their parent's end (the rows of clipped_dur) */
    size_t self_clamped;    /* operators whose host self time would have been negative */
} ml_optree;

static inline ml_node_device ml_optree_device(const ml_optree *t, uint32_t node)
{
    const ml_node_device_row *r = &t->device[t->device_row[node]];
    const ml_wide_ids *w = &t->device_wide;
    return (ml_node_device){ml_id32_get(w, r->self), ml_id32_get(w, r->total), ml_id32_get(w, r->tc_self),
                            ml_id32_get(w, r->tc_total)};
}

int64_t ml_optree_clipped_dur(const ml_optree *t, uint32_t node);

static inline int64_t ml_optree_host_self(const ml_optree *t, uint32_t node)
{
    return ml_id32_get(&t->host_self_wide, t->host_self[node]);
}

/* The node's duration (cut, for a clipped node; 0 for a root). */
static inline int64_t ml_optree_host_total(const ml_optree *t, const ml_slices *s, uint32_t node)
{
    if (t->flags[node] & ML_NODE_CLIPPED) return ml_optree_clipped_dur(t, node);
    uint32_t sl = t->slice[node];
    return sl == ML_NONE32 ? 0 : ml_slice_dur(s, sl);
}

void ml_optree_build(const ml_profile *p, ml_optree *out);
void ml_optree_free(ml_optree *t);

/* The Tensor Core allowlists of the plugin (tensor_core.py): kernels whose
 * name contains one of its patterns, operators it names exactly. */
bool ml_kernel_uses_tc(const char *name);
bool ml_op_tc_eligible(const char *name);

#endif
