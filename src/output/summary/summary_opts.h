/*
 * summary_opts.h — what `memlens summary` was asked for (--json, --by, --top,
 * --all, --group-by, --rank): read by summary.c and by the parts it calls
 * (summary_ascend.c) without either including the other.
 */
#ifndef ML_SUMMARY_OPTS_H
#define ML_SUMMARY_OPTS_H

#include <stdbool.h>

#include "breakdown.h"

/* --group-by: which curves the summary (and later the report) breaks out. */
enum { ML_CURVES_COMPONENT, ML_CURVES_STREAM, ML_CURVES_OVERALL };

typedef struct ml_summary_opts {
    bool json;
    ml_group_by by;      /* --by, when by_given; else each profile's default (ml_group_by_default) */
    bool by_given;
    int top;             /* groups listed at the peak (default 10) */
    bool all;            /* show everything: every rank's section, small components */
    int curves_by;       /* --group-by: ML_CURVES_COMPONENT (default), _STREAM, _OVERALL */
    int rank;            /* --rank N: only that rank; -1 = all */
} ml_summary_opts;

#endif
