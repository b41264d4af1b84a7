/*
 * jsonw.h — writing JSON to a FILE with correct escaping and commas.
 *
 *     jw w; jw_init(&w, stdout);
 *     jw_obj(&w); jw_key(&w, "peak"); jw_i64(&w, 42); jw_end(&w);
 *
 * The writer tracks nesting so callers never place commas by hand.
 */
#ifndef ML_JSONW_H
#define ML_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 64

typedef struct jw {
    FILE *f;
    int depth;
    bool first[JW_MAX_DEPTH];  /* no element written yet at this depth */
    char closer[JW_MAX_DEPTH]; /* "}" or "]" for each open container */
    bool after_key;
    bool pretty;
} jw;

void jw_init(jw *w, FILE *f, bool pretty);
void jw_obj(jw *w);
void jw_arr(jw *w);
void jw_end(jw *w);            /* closes the innermost object or array */
void jw_key(jw *w, const char *k);
void jw_str(jw *w, const char *s);
void jw_strn(jw *w, const char *s, size_t n);
void jw_i64(jw *w, int64_t v);
void jw_dbl(jw *w, double v);
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* A value the caller has already written as JSON text (a number formatted
 * exactly, e.g. "98598.123"); written as is. */
void jw_raw(jw *w, const char *json);

#endif
