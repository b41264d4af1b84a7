/*
 * jsonvalue.h — JSON into the compact value store (pyvalue.h).
 *
 * For inputs that are small trees (a snapshot saved as JSON): objects become
 * dicts, arrays lists, numbers ints (when integral and in int64 range) or
 * floats.  Built on the streaming scanner (jsonscan.h), with the same append
 * hook as the pickle reader, so that a huge array of entries can be streamed
 * into a profile instead of being kept.
 */
#ifndef ML_JSONVALUE_H
#define ML_JSONVALUE_H

#include "err.h"
#include "pickle.h"
#include "pyvalue.h"
#include "source.h"

/* Reads one JSON value from src into st.  Errors: "name: byte N: ...". */
int ml_jsonvalue_read(ml_source *src, ml_pvs *st, ml_append_hook hook, void *user, ml_pv *out, ml_err *e);

#endif
