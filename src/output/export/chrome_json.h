/*
 * chrome_json.h — a rank's time side written back as a Chrome trace.
 *
 * `memlens serve` answers /api/trace.json (the Trace view's "Download trace"
 * and "Open in Perfetto") with the slices of p->trace as Chrome trace JSON:
 * thread and process names, an X event per slice with the args the views
 * read, the flows as s/f pairs, and the memory counters of each device on
 * the same clock; `memlens export -o FILE.trace.json` writes the same, and
 * the allocator events memlens reads back.  A million slices make a few hundred
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

/* A cursor over p's time side (p must outlive it; NULL trace: an empty trace),
 * with its memory counters (ML_CJ_MEMORY). */
ml_chrome_json *ml_chrome_json_open(const ml_profile *p);

/* What a cursor writes besides the slices and flows: */
enum {
    ML_CJ_MEMORY = 1,        /* per device with memory, on the slices' clock (absolute µs, the ns as
                              * 3 decimals): counters "allocated" and "reserved" {"bytes": N} and
                              * "bytes by category" {CATEGORY: N, ...}, in a process "[rank R ]ID memory" */
    ML_CJ_MEMORY_EVENTS = 2, /* and each allocator event as Kineto writes it ("[memory]" instants with
                              * Addr, Bytes, Total Allocated, Total Reserved, Device Type, Device Id):
                              * what memlens reads back */
    ML_CJ_BARE = 4,          /* only the events, for a caller that writes several profiles in one
                              * traceEvents array: no opening nor closing text */
    ML_CJ_NO_SLICES = 8,     /* the memory only (export --device) */
};
/* flags: ML_CJ_*; after: events were written before (the first gets a comma);
 * input: the profile's number among several unranked ones, for its memory
 * processes' names (-1: one profile, or ranked). */
ml_chrome_json *ml_chrome_json_open_as(const ml_profile *p, unsigned flags, bool after, int input);
/* Writes the memory of device d only (-1: every device, -2: none); before the first read. */
void ml_chrome_json_only_device(ml_chrome_json *c, int d);
/* Whether the cursor has written an event (after a full read). */
bool ml_chrome_json_wrote(const ml_chrome_json *c);
/* Up to max bytes of the text into buf; 0 at the end. */
size_t ml_chrome_json_read(ml_chrome_json *c, char *buf, size_t max);
void ml_chrome_json_close(ml_chrome_json *c);

/* The whole text into out (tests, small traces). */
void ml_trace_chrome_json(const ml_profile *p, ml_buf *out);

#endif
