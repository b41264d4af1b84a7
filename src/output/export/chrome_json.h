/*
 * chrome_json.h — a rank's time side written back as a Chrome trace.
 *
 * `memlens serve` answers /api/trace.json (the Trace view's "Download trace"
 * and "Open in Perfetto") with the slices of p->trace as Chrome trace JSON:
 * thread and process names, an X event per slice with the args the views
 * read, and the flows as s/f pairs.  A million slices make a few hundred
 * MB of text, so it is made while it is sent: a cursor hands out the next
 * events a batch at a time, and only one batch is in memory.
 */
#ifndef ML_CHROME_JSON_H
#define ML_CHROME_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"
#include "report_enc.h" /* ml_buf */

typedef struct ml_chrome_json ml_chrome_json;

/* A cursor over p's time side (p must outlive it; NULL trace: an empty trace). */
ml_chrome_json *ml_chrome_json_open(const ml_profile *p);
/* Up to max bytes of the text into buf; 0 at the end. */
size_t ml_chrome_json_read(ml_chrome_json *c, char *buf, size_t max);
void ml_chrome_json_close(ml_chrome_json *c);

/* The whole text into out (tests, small traces). */
void ml_trace_chrome_json(const ml_profile *p, ml_buf *out);

#endif
