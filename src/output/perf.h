/*
 * perf.h — writes the time-side analyses of a rank (analysis/perfdata.h):
 * as text for `memlens perf`, and as the perf object of web/DATA.md
 * ("Profiler views (time side)") for `perf --json`, the report and the
 * server.
 */
#ifndef ML_PERF_H
#define ML_PERF_H

#include <stdio.h>

#include "jsonw.h"
#include "perfdata.h"
#include "profile.h"

/* The perf object of one rank, from a computed ml_perf.  top > 0 keeps the
 * first top rows of each operator and kernel table; 0 keeps them all. */
void ml_perf_json_write(jw *w, const ml_profile *p, const ml_perf *perf, int top);

/* The same, computing the analyses itself; writes null when the profile
 * has no time side (ml_perf_unavailable(p) says why).  The call the report
 * and the server make. */
void ml_perf_json_rank(jw *w, const ml_profile *p, int top);

/* Text: the step breakdown, the GPU summary, recommendations and the top
 * operators and kernels. */
void ml_perf_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top);

/* The CSV of one table (`memlens export --table`): operators grouped by name
 * or by name and input shape, kernels by name or by name and operator.
 * Times in ns.  Returns 0, or -1 on a write error. */
typedef enum { ML_PERF_TABLE_OPERATORS, ML_PERF_TABLE_KERNELS } ml_perf_table;
typedef enum { ML_PERF_BY_NAME, ML_PERF_BY_SHAPE, ML_PERF_BY_OP } ml_perf_group;
int ml_perf_csv(FILE *f, const ml_profile *p, const ml_perf *perf, ml_perf_table table, ml_perf_group group);

#endif
