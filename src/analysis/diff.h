/*
 * diff.h — two runs compared: what `memlens diff` prints, what `memlens
 * check` judges, and what the Compare view of the report and the server
 * shows.
 *
 * Compare is an analysis over two profiles, not a second pipeline: each run
 * is loaded and analysed as any other (its device stats as `summary` states
 * them; of its time side, the steps and the operator tree as `perf` computes
 * them, and its time per name over the profiler steps, diffops.h), and this
 * module aligns the results:
 *
 *   devices   matched by id (cuda:0 with cuda:0); when each side has one
 *             accelerator left unmatched, those two (rank 0 on cuda:0 against
 *             rank 1 on cuda:1).  Peaks, reserved memory, counts, and the
 *             live-at-peak groups aligned by name, sorted by |delta|.
 *   segments  for two snapshots: the segments only one side has, and the
 *             allocator settings that differ (diffseg.h)
 *   steps     the number of steps, the average step time and its breakdown
 *   ops       operators, runtime calls, kernels, memcpys and memsets aligned
 *             by (kind, name) over the profiler steps, each with HTA's
 *             verdict by calls (TraceDiff.ops_diff)
 *   tree      the operator-tree diff (difftree.h)
 *
 * What only one side has is left out of the comparison and said in `notes`.
 * The diff points into both profiles and their analyses: they outlive it.
 */
#ifndef ML_DIFF_H
#define ML_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "breakdown.h"
#include "diffops.h"
#include "diffseg.h"
#include "difftree.h"
#include "optree.h"
#include "profile.h"
#include "stats.h"
#include "steps.h"

/* The time side of one run as the diff reads it: what `perf` computes of
 * it that a comparison needs (not the operator, kernel and GPU tables). */
typedef struct ml_diff_time {
    ml_steps steps;
    ml_optree tree;
    ml_stepops ops;             /* time per name over the steps (diffops.h) */
} ml_diff_time;

/* False (and *out empty) when the profile has no time side (ml_perf_unavailable). */
bool ml_diff_time_compute(const ml_profile *p, ml_diff_time *out);
void ml_diff_time_free(ml_diff_time *t);

/* One run as the diff reads it. */
typedef struct ml_diff_side {
    const ml_profile *p;
    const ml_diff_time *time;   /* NULL when it has no time side */
} ml_diff_side;

typedef struct ml_diff_opts {
    ml_group_by by;             /* how the live set at the peak is grouped, when by_given */
    bool by_given;              /* else: the runs' default (the base's, when they differ) */
} ml_diff_opts;

/* Which side has a row: both, or only one. */
typedef enum { ML_ONLY_NONE, ML_ONLY_BASE, ML_ONLY_NEW } ml_only;

typedef struct ml_diff_group {
    char *label;
    int64_t bytes[2], count[2]; /* 0 on the side that lacks it */
    uint8_t only;               /* ml_only */
} ml_diff_group;

typedef struct ml_diff_device {
    int dev[2];                 /* device index in each profile; -1 on the side that lacks it */
    const char *id[2];          /* "cuda:0"; NULL on the side that lacks it */
    ml_device_stats st[2];      /* valid where dev >= 0 */
    /* Reserved but not allocated at the reserved peak (-1 unknown: no
     * reserved curve), and what was allocated then. */
    int64_t unused_at_reserved_peak[2], allocated_at_reserved_peak[2];
    ml_diff_group *groups;      /* the live set at the allocated peak, by |delta| descending */
    size_t n_groups;
} ml_diff_device;

/* The kinds of change of a row (HTA ops_diff, by calls). */
typedef enum { ML_CHANGE_ADDED, ML_CHANGE_DELETED, ML_CHANGE_INCREASED, ML_CHANGE_DECREASED, ML_CHANGE_UNCHANGED } ml_change;
const char *ml_change_name(unsigned c);

typedef struct ml_diff_op {
    const char *name;           /* in one of the profiles' string pools */
    uint8_t kind;               /* ml_opkind */
    uint8_t change;             /* ml_change */
    int64_t calls[2], ns[2];
} ml_diff_op;

typedef struct ml_diff_steps {
    size_t count[2];
    bool whole_trace[2];        /* no ProfilerStep#: one step over the whole trace */
    double avg[2][ML_ROLE__COUNT], avg_total[2]; /* ns per step */
} ml_diff_steps;

typedef struct ml_diff {
    ml_diff_side side[2];
    ml_group_by by;
    bool memory;                /* both runs have memory data: devices compared */
    ml_diff_device *devices;    /* accelerators first (the base's order), then cpu */
    size_t n_devices;
    bool snapshots;             /* both runs have allocator state: segs compared */
    ml_segdiff segs;
    bool time;                  /* both runs have a time side: steps, ops, tree compared */
    ml_diff_steps steps;
    ml_diff_op *ops;            /* by |delta ns| descending, then kind, then name */
    size_t n_ops;
    ml_difftree *tree;          /* NULL when either run has no operator tree */
    VEC(char *) notes;          /* what was left out and why */
} ml_diff;

/* Whether the profile has memory data (an allocation, a curve, a segment)
 * and a time side; used to tell what two runs have in common. */
bool ml_diff_has_memory(const ml_profile *p);

/* Compares two runs.  Never fails: what the two do not share is left out,
 * and said in notes; ml_diff_empty() tells when nothing was compared. */
ml_diff *ml_diff_compute(const ml_diff_side *base, const ml_diff_side *nw, const ml_diff_opts *o);
/* True when the runs had nothing in common (no memory on both, no time on both). */
bool ml_diff_empty(const ml_diff *d);
void ml_diff_free(ml_diff *d);

#endif
