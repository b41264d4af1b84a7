/*
 * difftree.h — two operator trees aligned, as the TensorBoard PyTorch
 * profiler plugin's Diff view aligns them (diffrun/tree.py).
 *
 * Each run contributes the children of its main thread's root (optree.h:
 * the thread with the ProfilerStep#s, else the thread whose operators span
 * the longest time), the ProfilerStep# nodes replaced by their children in
 * order.  Two lists of nodes are aligned greedily: each "run" node of the
 * base list — a ProfilerStep#, an nn.Module, a DataLoader (__next__) or an
 * Optimizer.step node — is matched with the first node of the new list, at
 * or after the last match, that has the same type and name.  Between two
 * matches, the unmatched nodes of each side form one composite pair (either
 * side may be empty); so do those after the last match.  A matched pair, or
 * a pair of single nodes, is aligned again on its children; a composite of
 * several nodes is not.  When two lists have no match at all, the pair has
 * no children.
 *
 * Backward nodes (the plugin's OpTreeBuilder, for traces with nn.Module
 * nodes and fwdbwd flows): the backward roots ("autograd::engine::
 * evaluate_function: X" nodes at the top of a thread or a step, each with
 * the AccumulateGrad roots that follow it) are taken out of their trees; a
 * flow from a forward operator to a node under a backward root gives that
 * root's group to the operator; every module then gets a node
 * "nn.Module: X.backward" holding the groups of the operators directly in it
 * (not in a module below it) and the backward nodes of the modules below
 * it, spanning its children; the top modules' backward nodes are put in the
 * main thread's tree where their time falls (inside the step, between the
 * forward pass and the optimizer).  Backward roots that no flow ties to a
 * module are left out, as the plugin leaves them.
 *
 * Where memlens departs from the plugin: a module whose backward node would
 * hold nothing gets none (the plugin keeps it, at the forward module's
 * times); the plugin takes the first thread's tree, memlens the main
 * thread's.
 *
 * The tree holds node ids of the two optrees; the profiles and their perf
 * (optree, times) must outlive it.
 */
#ifndef ML_DIFFTREE_H
#define ML_DIFFTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "optree.h"
#include "profile.h"

/* Node types the alignment matches (the plugin's RUN_NODE_TYPES), and the rest. */
typedef enum {
    ML_DT_OPERATOR,         /* anything else: operators, annotations */
    ML_DT_STEP,             /* ProfilerStep#N */
    ML_DT_MODULE,           /* nn.Module: X */
    ML_DT_DATALOADER,       /* enumerate(DataLoader)#...__next__, enumerate(DataPipe)#... */
    ML_DT_OPTIMIZER,        /* Optimizer.step... */
    ML_DT_BACKWARD,         /* nn.Module: X.backward, made from the backward ops (above) */
} ml_dt_type;

/* "operator", "step", "module", "dataloader", "optimizer", "backward". */
const char *ml_dt_type_name(unsigned t);

typedef struct ml_dtnode {
    uint32_t first[2], count[2]; /* the side's nodes: members[s][first .. first + count); count 0: blank */
    uint32_t child_first, child_count; /* children: nodes[child_first .. + child_count) */
    uint32_t parent;        /* UINT32_MAX for the root */
    bool matched;           /* a pair of run nodes of the same type and name */
} ml_dtnode;

/* One run's tree, as the alignment reads it. */
typedef struct ml_dt_side {
    const ml_profile *p;
    const ml_optree *tree;
} ml_dt_side;

/* A Backward node: not an optree node (its id is the side's tree->n + its
 * index); its children are optree nodes (backward roots) and Backward nodes. */
typedef struct ml_dt_virtual {
    char *name;             /* "nn.Module: Linear_0.backward" */
    int64_t begin, end;     /* from its first child's start to its last child's end */
    int64_t device_ns;      /* its children's device time */
    VEC(uint32_t) kids;
} ml_dt_virtual;

typedef struct ml_difftree {
    ml_dt_side side[2];
    VEC(ml_dt_virtual) virt[2]; /* per side, the Backward nodes */
    VEC(ml_dtnode) nodes;   /* nodes[0] is the root (both sides' top lists); children after parents */
    VEC(uint32_t) members[2]; /* optree node ids */
    /* Per side, per optree node: the end of its subtree (pre-order: a node's
     * descendants are the ids after it, up to end); per node and Backward
     * node, its type. */
    uint32_t *sub_end[2];
    uint8_t *type[2];
} ml_difftree;

/* NULL when either run has no operator tree (no time side, no operators). */
ml_difftree *ml_difftree_build(const ml_dt_side *base, const ml_dt_side *nw);
void ml_difftree_free(ml_difftree *t);

/* One side of a diff node: its name (a single node's; for several, NULL),
 * and its times as the plugin sums them: host (the nodes' durations), device
 * (their device time, children included) and total (per node the device
 * time, or the host time when it has none). */
typedef struct ml_dt_stats {
    uint32_t nodes;
    const char *name;
    const char *first_name, *last_name; /* of several nodes */
    uint8_t type;           /* ml_dt_type of a single node */
    int64_t host_ns, device_ns, total_ns;
} ml_dt_stats;
void ml_dt_stats_of(const ml_difftree *t, uint32_t node, int side, ml_dt_stats *out);

/* The operators under one side of a diff node (the plugin's aggregate_ops
 * over get_operator_and_kernels: every operator node in the members'
 * subtrees, themselves included), by name. */
typedef struct ml_dt_op {
    const char *name;
    int64_t calls, host_ns, self_host_ns, device_ns, self_device_ns;
} ml_dt_op;
/* Fills a malloc'd array (free()), in order of first appearance; returns the count. */
size_t ml_dt_ops_of(const ml_difftree *t, uint32_t node, int side, ml_dt_op **out);

#endif
