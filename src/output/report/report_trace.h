/*
 * report_trace.h — the time side of a rank for the Trace view: the slices
 * of p->trace (trace.h) as typed columns of the report (report_enc.h), the
 * tracks in display order, the strings, op and kernel args and the flows.
 * (`memlens serve` writes them back as a Chrome trace: chrome_json.h.)
 * web/DATA.md, the rank's "trace" object, is the contract; web/src/source.js
 * decodes it.
 */
#ifndef ML_REPORT_TRACE_H
#define ML_REPORT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "jsonw.h"
#include "profile.h"
#include "report_enc.h"
#include "trace.h"

/* Slices a report embeds per rank; beyond, the longest are kept (and the page says so). */
#define ML_REPORT_MAX_SLICES 2000000

/* Writes "trace":{...} into the rank object open in w (nothing when p has no slices).  With
 * bl->capture set (`memlens serve`) only the tracks and counts are written:
 * the server answers windows from p->trace itself (src/server/api.c). */
void ml_report_trace(const ml_profile *p, int64_t origin, size_t max_slices, jw *w, ml_blobs *bl);

/* The tracks of t in display order (processes by sort index then pid,
 * threads by sort index then tid; streams after threads); returns the count
 * and a malloc'd array of track indices. */
size_t ml_trace_track_order(const ml_profile *p, uint32_t **order);
/* A track's label ("thread 5555 (python)", "stream 7") and process label, into b. */
void ml_trace_track_label(const ml_profile *p, uint32_t track, ml_buf *b);
void ml_trace_process_label(const ml_profile *p, uint32_t track, ml_buf *b);

#endif
