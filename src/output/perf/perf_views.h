/*
 * perf_views.h — the text of `memlens perf`: the views a user picks with
 * --view (overview: steps, GPUs and recommendations; operators; kernels,
 * with the frequent kernel sequences and CUPTI counters; distributed, with
 * the stragglers; modules; critical-path), each table fitted to a width in columns (names,
 * the last column, cut with an ellipsis so that numbers stay aligned).
 */
#ifndef ML_PERF_VIEWS_H
#define ML_PERF_VIEWS_H

#include <stdio.h>

#include "distributed.h"
#include "perf.h"
#include "perfdata.h"
#include "profile.h"

enum {
    ML_VIEW_OVERVIEW = 1,
    ML_VIEW_OPERATORS = 2,
    ML_VIEW_KERNELS = 4,
    ML_VIEW_DISTRIBUTED = 8,
    ML_VIEW_MODULES = 16,
    ML_VIEW_ALL = 31,           /* every view but the critical path: what perf prints without --view */
    ML_VIEW_CRITPATH = 32,      /* computed only when asked for ("critical-path", or "all") */
};

/* A job of more ranks than this gets the cluster digest instead of each
 * rank's views (perf --all: both). */
#define ML_PERF_DETAIL_RANKS 8

/* "overview" -> ML_VIEW_OVERVIEW ...; "all" -> every view, the critical
 * path's included; 0 for an unknown name. */
unsigned ml_perf_view_parse(const char *name);

typedef struct ml_perf_view_opts {
    unsigned views;         /* ML_VIEW_* bits */
    ml_perf_group group;    /* operators by name or by name and input shape */
    int top;                /* rows per table; 0: every row */
    int width;              /* columns; 0: unlimited */
    bool dist_elsewhere;    /* the distributed view is printed apart (after a job's ranks) */
} ml_perf_view_opts;

/* The chosen views of one rank; dist (all ranks') for the distributed view,
 * NULL when the run is not distributed. */
void ml_perf_views_text(FILE *f, const ml_profile *p, const ml_perf *perf, const ml_perf_view_opts *o,
                        const ml_distributed *dist);

/* The distributed view alone (computation against communication per rank and
 * step, the collectives), or a line saying the run is not distributed (d NULL). */
void ml_perf_distributed_text(FILE *f, const ml_distributed *d, const ml_perf_view_opts *o);
/* What ml_perf_views_text prints last for the distributed view (nothing
 * unless o asks for it): for a job, whose ranks' views are written one at
 * a time and the distributed view after them. */
void ml_perf_views_distributed(FILE *f, const ml_distributed *d, const ml_perf_view_opts *o);

#endif
