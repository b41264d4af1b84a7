/* report_segments.h — a snapshot's segments, allocator events and settings for the report page (report_segments.c). */
#ifndef ML_REPORT_SEGMENTS_H
#define ML_REPORT_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "jsonw.h"
#include "profile.h"
#include "report_enc.h"

/* The allocator events of a device's Allocator State History, by default:
 * the last ones, as many as PyTorch's _record_memory_history keeps by
 * default (max_entries).  The page replays the state at every one of them
 * (web/src/segmodel.js, a checkpoint every 256), which a browser tab does
 * for ~1e5 events but not for the ~1e7 of a gigabyte snapshot (nor parses
 * their half a gigabyte of JSON). */
#define ML_REPORT_MAX_HISTORY 100000

/* Whether the profile is a CUDA allocator snapshot (the page's snapshot views). */
bool ml_report_has_segments(const ml_profile *p);
/* Writes "segview":{settings, segments, events, events_total, events_from,
 * streams} for device `dev`, with the last max_events of its allocator
 * events (0: ML_REPORT_MAX_HISTORY); times relative to origin (ns), or event
 * numbers for snapshots without times. */
void ml_report_segments(const ml_profile *p, uint16_t dev, int64_t origin, size_t max_events, jw *w);

#endif
