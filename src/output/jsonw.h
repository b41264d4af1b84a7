/*
 * jsonw.h — the one JSON writer: correct escaping and commas, into a FILE
 * or into an ml_buf (textbuf.h).
 *
 *     jw w; jw_init(&w, stdout, false);      (or jw_init_buf(&w, &buf, false))
 *     jw_obj(&w); jw_key(&w, "peak"); jw_i64(&w, 42); jw_end(&w);
 *
 * The writer tracks nesting so callers never place commas by hand.  The
 * CLI's --json writes to a FILE; the report's data and the server's answers
 * are built in memory (script_safe: they end up inside a page's <script>).
 */
#ifndef ML_JSONW_H
#define ML_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "textbuf.h"

#define JW_MAX_DEPTH 64

typedef struct jw {
    FILE *f;                   /* the sink: a FILE, or when NULL ... */
    ml_buf *buf;               /* ... a buffer that grows */
    int depth;
    bool first[JW_MAX_DEPTH];  /* no element written yet at this depth */
    char closer[JW_MAX_DEPTH]; /* "}" or "]" for each open container */
    bool after_key;
    bool pretty;
    /* Strings written with "</" as "<\/", so that the text may sit inside
     * an HTML <script> element (the report's data, the server's answers). */
    bool script_safe;
} jw;

void jw_init(jw *w, FILE *f, bool pretty);
/* A writer that appends to b, script_safe (see above): clear it for text
 * that is no page's (a --json piece built in memory). */
void jw_init_buf(jw *w, ml_buf *b, bool pretty);
/* Where the next byte goes: the FILE's position (flushed), the buffer's length. */
long jw_offset(jw *w);
void jw_obj(jw *w);
void jw_arr(jw *w);
void jw_end(jw *w);            /* closes the innermost object or array */
void jw_key(jw *w, const char *k);
void jw_str(jw *w, const char *s); /* NULL: null */
void jw_strn(jw *w, const char *s, size_t n);
/* Text that is never null: NULL written as "". */
void jw_text(jw *w, const char *s);
void jw_i64(jw *w, int64_t v);
void jw_u64(jw *w, uint64_t v); /* an address, written exactly */
/* An int64 as a JSON number when a double holds it exactly (|v| <= 2^53),
 * else as a string of its digits: for the page, whose numbers are doubles. */
void jw_i64_js(jw *w, int64_t v);
void jw_dbl(jw *w, double v);
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* A value the caller has already written as JSON text (a number formatted
 * exactly, e.g. "98598.123"); written as is. */
void jw_raw(jw *w, const char *json);
void jw_rawn(jw *w, const char *json, size_t n);
/* A value of JSON text taken from the input (an arg kept as compact JSON),
 * copied with every byte that begins no valid UTF-8 sequence as U+FFFD and
 * raw control bytes (which compact JSON has only inside strings) escaped:
 * valid JSON whatever bytes the input's strings held. */
void jw_verbatim(jw *w, const char *json);
/* ns as exact µs, trailing zeros cut: 98598123 -> 98598.123, 5000 -> 5,
 * -1500 -> -1.5. */
void jw_us(jw *w, int64_t ns);
/* v with at most `decimals` decimals, trailing zeros (and a bare point) cut,
 * "-0" written 0; null when v is not finite. */
void jw_fixed(jw *w, double v, int decimals);

/* JSON text written by a writer that was not script_safe, appended to out
 * with every '<' as \u003c, so that it may sit inside a <script> element
 * whatever its strings hold (the report's perf and compare objects). */
void jw_put_in_script(ml_buf *out, const char *json, size_t n);
/* The same for JSON text written straight into b from `from` on: each '<'
 * there made \u003c in place (the text moved up from the end, once). */
void jw_script_safe_from(ml_buf *b, size_t from);

/* Pieces of one document written apart (a job's ranks, each on the thread
 * that loaded it) and put together later, byte for byte as one writer would
 * have written them.  jw_enter places a writer just made inside an array or
 * object at nesting `depth` (1: the top-level container's elements), before
 * its first element, or as the value of a key just written (after_key); what
 * it writes is a piece.  jw_paste adds a piece written at w's depth to w's
 * container, with the comma between elements.  An empty piece adds nothing. */
void jw_enter(jw *w, int depth, bool after_key);
void jw_init_in(jw *w, FILE *f, bool pretty, int depth, bool after_key); /* jw_init, jw_enter */
/* Places a writer just made after elements already written at `depth` (by
 * another writer into the same sink): the next element gets its comma. */
void jw_resume(jw *w, int depth);
/* A writer into the object that ends b, reopened (its '}' taken back) to
 * add members; jw_end closes it again.  False (w unset) when b does not end
 * with an object. */
bool jw_reopen(jw *w, ml_buf *b);
void jw_paste(jw *w, const char *piece, size_t n);
/* That a piece will be pasted: the comma before it, now (the piece is then
 * copied by the caller). */
void jw_paste_begin(jw *w);
/* That a value (an element, or the value of a key just written) will be
 * written into w's sink by other code (an encoder's column descriptor):
 * its comma, now. */
void jw_value_begin(jw *w);

#endif
