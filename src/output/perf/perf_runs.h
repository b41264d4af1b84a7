/*
 * perf_runs.h — one element of the "runs" array of `memlens perf --json`:
 * the time-side analyses of a rank (analysis/perfdata.h) under the field
 * names the perf command's issue fixes and checkers read (README, "memlens
 * perf"): times in microseconds as JSON numbers (exact: ns / 1000 with up to
 * three decimals), percentages 0-100, step names as the step number ("5" for
 * ProfilerStep#5, the TensorBoard plugin's convention; "(whole trace)" for
 * the one step of a trace without ProfilerStep#).  The web's perf object
 * (perf.h, "ranks") is written separately and unchanged.
 */
#ifndef ML_PERF_RUNS_H
#define ML_PERF_RUNS_H

#include "distributed.h"
#include "jsonw.h"
#include "perf.h"
#include "perf_fields.h"
#include "perfdata.h"
#include "profile.h"

/* The run object of profile p.  perf: its computed analyses, or NULL when it
 * has none (ml_perf_unavailable(p) is then written as a note and the tables
 * are empty).  group: operators by name (input_shape null) or by name and
 * input shape (ML_PERF_BY_SHAPE).  top > 0 keeps the first top rows of the
 * operator, kernel and module tables; 0 keeps every row.  dist: the
 * distributed view of all the ranks loaded (NULL writes null). */
void ml_perf_run_json(jw *w, const ml_profile *p, const ml_perf *perf, ml_perf_group group, int top,
                      const ml_distributed *dist);
/* With a placeholder for "distributed" (perf.h: ml_perf_json_write_at), and
 * the value that replaces it. */
void ml_perf_run_json_at(jw *w, const ml_profile *p, const ml_perf *perf, ml_perf_group group, int top,
                         const ml_distributed *dist, long *dist_at);
void ml_perf_run_distributed(jw *w, const ml_distributed *d);

#endif
