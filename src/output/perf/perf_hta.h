/*
 * perf_hta.h — the output of the analyses that memlens takes from
 * HolisticTraceAnalysis beyond the TensorBoard plugin's views: frequent
 * kernel sequences (kernel_seqs.h), CUPTI counters (cupti.h), the critical
 * path (critpath.h) and, across ranks, stragglers (stragglers.h).  Each has
 * its text for `memlens perf`, its fields in the `runs` entries of --json
 * (README, "memlens perf": µs, exact to the ns) and its part of the web's
 * perf object (web/DATA.md: ns; times of the Trace view's overlay after
 * span.begin_ns, exact in a JS number).
 */
#ifndef ML_PERF_HTA_H
#define ML_PERF_HTA_H

#include <stdio.h>

#include "distributed.h"
#include "jsonw.h"
#include "perfdata.h"
#include "profile.h"
#include "stragglers.h"

/* ---- text (top: rows per table, 0 all; width: columns, 0 unlimited) ---- */

/* "Frequent kernel sequences" (nothing when the trace has none). */
void ml_perf_kseqs_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top, int width);
/* "CUPTI counters" (nothing without cuda_profiler_range events). */
void ml_perf_cupti_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top, int width);
/* "Critical path" per step; perf->critpath must be computed (ml_perf_want_critical_path). */
void ml_perf_critpath_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top, int width);
/* The stragglers of a distributed view, or the reason there are none. */
void ml_perf_stragglers_text(FILE *f, const ml_distributed *d, int width);

/* ---- the runs entries of --json ---- */

/* "kernel_sequences", "cupti_counters" and "critical_path" (perf NULL: empty / null). */
void ml_perf_hta_run_json(jw *w, const ml_profile *p, const ml_perf *perf, int top);
/* "stragglers" and "stragglers_why" of the runs' distributed object; nothing
 * for a rank's own cut of the view (d with neither: perf --json's runs). */
void ml_perf_stragglers_run_json(jw *w, const ml_distributed *d);

/* ---- the web's perf object ---- */

/* "kernel_sequences", "cupti" and "critical_path" (null when not computed). */
void ml_perf_hta_json(jw *w, const ml_profile *p, const ml_perf *perf, int top);
/* The same for the perf object's distributed object. */
void ml_perf_stragglers_json(jw *w, const ml_distributed *d);

#endif
