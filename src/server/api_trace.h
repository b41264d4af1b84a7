/*
 * api_trace.h — the Trace view's routes of `memlens serve` (api.h routes them):
 *
 *   /api/trace?rank&t0&t1&px[&q&fmt]   the window (web/DATA.md "Trace window"): the slices
 *                      at least a pixel wide (and lone narrower ones) as columns id, track,
 *                      ts, dur, depth, name (into "strings"), kind; per lane (track, depth) the
 *                      runs of narrower slices merged into boxes m_track, m_depth, m_x0, m_x1
 *                      (pixels), m_n (slices), m_hits (of them matching q); the flows between
 *                      returned slices f_from, f_to, f_cat (into "cats"); "hits": slices
 *                      matching q in the whole trace.  The merge is web/src/tracedata.js's.
 *   /api/slice?rank&id     one slice: args, stack, parent, launcher, launched, operator,
 *                      flows, and "related": where each slice it names lies
 *   /api/trace.json?rank   the slices as a Chrome trace (report_trace.h)
 *   /api/findslice?rank&q&after&dir   the search's next (dir 1) or previous (-1) match
 *
 * Times are ns relative to the rank's origin, as everywhere in the API.
 */
#ifndef ML_SERVER_API_TRACE_H
#define ML_SERVER_API_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "report_enc.h"

/* The lanes of a rank's slices, built once with its view (view.h). */
typedef struct ml_sv_trace ml_sv_trace;
ml_sv_trace *ml_sv_trace_build(const ml_profile *p, int64_t origin);
void ml_sv_trace_free(ml_sv_trace *x);
/* The trace's span, relative. */
void ml_sv_trace_span(const ml_sv_trace *x, int64_t *t0, int64_t *t1);
size_t ml_sv_trace_count(const ml_sv_trace *x);

/* q: a name substring (case-insensitive) or NULL. */
void ml_api_trace(const ml_sv_trace *x, const ml_profile *p, double t0, double t1, int px, const char *q, int binary,
                  ml_buf *out);
void ml_api_slice(const ml_sv_trace *x, const ml_profile *p, size_t id, ml_buf *out);
/* The first slice matching q (case-insensitive) that starts after `after` (dir 1) or
 * before it (dir -1), wrapping around: {"found":true,"slice":{id, track, depth, ts, dur,
 * name, kind}} or {"found":false}. */
void ml_api_findslice(const ml_sv_trace *x, const ml_profile *p, const char *q, double after, int dir, ml_buf *out);

#endif
