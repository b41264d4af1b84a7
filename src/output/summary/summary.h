/*
 * summary.h — `memlens summary`: per rank and device, the peaks, counts and
 * what was live at the peak, as text for people or as JSON (--json) for
 * programs.  The JSON schema is stable: later features only add keys.
 */
#ifndef ML_SUMMARY_H
#define ML_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "breakdown.h"
#include "importer.h"

#define MEMLENS_VERSION "0.1.0"

/* --group-by: which curves the summary (and later the report) breaks out. */
enum { ML_CURVES_COMPONENT, ML_CURVES_STREAM, ML_CURVES_OVERALL };

typedef struct ml_summary_opts {
    bool json;
    ml_group_by by;      /* --by, when by_given; else each profile's default (ml_group_by_default) */
    bool by_given;
    int top;             /* groups listed at the peak (default 10) */
    bool all;            /* show everything, also small components */
    int curves_by;       /* --group-by: ML_CURVES_COMPONENT (default), _STREAM, _OVERALL */
    int rank;            /* --rank N: only that rank; -1 = all */
} ml_summary_opts;

void ml_summary_text(FILE *f, const ml_profiles *ps, const ml_summary_opts *o);
void ml_summary_json(FILE *f, const ml_profiles *ps, const ml_summary_opts *o);

#endif
