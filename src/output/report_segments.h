/* report_segments.h — a snapshot's segments, allocator events and settings for the report page (report_segments.c). */
#ifndef ML_REPORT_SEGMENTS_H
#define ML_REPORT_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "report_enc.h"

/* Whether the profile is a CUDA allocator snapshot (the page's snapshot views). */
bool ml_report_has_segments(const ml_profile *p);
/* Appends ,"segview":{settings, segments, events, streams} for device `dev`;
 * times relative to origin (ns), or event numbers for snapshots without times. */
void ml_report_segments(const ml_profile *p, uint16_t dev, int64_t origin, ml_buf *m);

#endif
