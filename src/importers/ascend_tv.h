/*
 * ascend_tv.h — the events of torch_npu's trace_view.json, field by field:
 * the array of events (given bare or as {"traceEvents": [...]}) walked one
 * object at a time, each event's wanted keys and wanted keys of its "args"
 * copied out as text.  Its passes (the "NPU MEM" counters, ascend_dir.c; the
 * Task Type of the NPU tasks, ascend_time.c) each name their fields and read
 * the rest the same way; each says what is wrong in its own words (tok).
 */
#ifndef ML_ASCEND_TV_H
#define ML_ASCEND_TV_H

#include <stddef.h>

#include "jsonscan.h"

/* A key whose value is wanted: its scalar text (a string's, a number's)
 * goes to dst, cut to cap - 1 bytes; "" when absent or not a scalar. */
typedef struct ml_tv_field {
    const char *key;
    char *dst;
    size_t cap;
} ml_tv_field;

typedef struct ml_tv_scan {
    js_scanner *js;
    const ml_tv_field *top, *args; /* the event's own keys, and those of its "args" object */
    size_t ntop, nargs;
    js_tok tok;     /* on a failure: JS_ERROR when the scanner's (js_error), another when the event is malformed */
} ml_tv_scan;

/* Starts reading src (js_open) up to its array of events: 1 there, 0 when
 * the document is no array nor an object holding "traceEvents" (tok
 * JS_ERROR if the scanner failed), -1 when skipping keys before it failed. */
int ml_tv_open(ml_tv_scan *s, ml_source *src, const ml_tv_field *top, size_t ntop, const ml_tv_field *args,
               size_t nargs);
/* The next event (elements that are no object are passed over): its fields
 * filled, 1; 0 at the end of the array; -1 when it is malformed or the
 * scanner failed (tok). */
int ml_tv_next(ml_tv_scan *s);
void ml_tv_close(ml_tv_scan *s);

#endif
