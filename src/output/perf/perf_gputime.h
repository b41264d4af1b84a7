/*
 * perf_gputime.h — HTA's GPU-time analyses of a rank (analysis/gputime.h)
 * as `memlens perf` writes them: the fields of a "runs" entry (µs numbers;
 * README "memlens perf"), the text of the Overview and Kernels views, and
 * the "gputime" member of the web's perf object (ns; web/DATA.md).
 */
#ifndef ML_PERF_GPUTIME_H
#define ML_PERF_GPUTIME_H

#include <stdio.h>

#include "gputime.h"
#include "jsonw.h"
#include "profile.h"

/* temporal, idle_by_stream, kernel_types, comm_comp_overlap_pct, launches,
 * queue_length, memory_bw: keys of the open runs object (g NULL: each empty). */
void ml_gputime_runs_json(jw *w, const ml_profile *p, const ml_gputime *g);

/* Text: the Overview's part (temporal, idle by stream, overlap) and the
 * Kernels view's (kernel types, launches and their outliers, queues,
 * bandwidth); nothing when the rank has no GPU events.  top: rows of the
 * outlier lists (0: all kept). */
/* device: what one device is called ("GPU", "NPU": accel_words.h). */
void ml_gputime_text_overview(FILE *f, const ml_gputime *g, const char *device);
void ml_gputime_text_kernels(FILE *f, const ml_profile *p, const ml_gputime *g, int top, int width);

/* "gputime": {...} in the open perf object. */
void ml_gputime_perf_json(jw *w, const ml_profile *p, const ml_gputime *g);

#endif
