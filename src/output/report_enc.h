/*
 * report_enc.h — how the HTML report carries data: a growable text buffer
 * with JSON helpers, and typed columns stored as base64 blobs (deflated when
 * that pays off).  The page decodes them with web/src/decode.js; the
 * contract is written down in web/DATA.md.
 *
 * A column is described in the meta JSON as
 *     {"b":BLOB,"dt":"i32|u32|u16|u8|f64","n":COUNT,"d":1?,"o":FIRST?,"z":1?}
 * where d = delta-coded (value i = o + the sum of the deltas up to i) and
 * z = zlib-deflated; the
 * bytes are little-endian and live in <script id="ml-bBLOB"> as base64.
 */
#ifndef ML_REPORT_ENC_H
#define ML_REPORT_ENC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "vec.h"

typedef struct ml_buf {
    char *p;
    size_t len, cap;
} ml_buf;

void ml_buf_put(ml_buf *b, const void *s, size_t n);
void ml_buf_puts(ml_buf *b, const char *s);
void ml_buf_printf(ml_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ml_buf_free(ml_buf *b);

/* JSON string literal (quoted, escaped; "</" written as "<\/" so that it is
 * safe inside a <script> element). */
void ml_json_str(ml_buf *b, const char *s);
/* An int64 as a JSON number when a double holds it exactly, else as a string. */
void ml_json_i64(ml_buf *b, int64_t v);

/* A column kept as raw values instead of encoded (capture mode, for `memlens
 * serve`, which answers queries from the arrays themselves). */
typedef struct ml_col_raw {
    char dt;              /* 'i' int64_t, 'u' uint32_t, 'b' uint8_t */
    size_t n;
    void *v;              /* n values of that type (owned) */
} ml_col_raw;

/* The blobs of one report: base64 text, each wrapped in its <script> tag.
 * With `capture` set, columns are not encoded: each is kept in `raw` (blob N
 * = raw.v[N]) and described as {"b":N,"dt":"i64|u32|u8","n":COUNT}. */
typedef struct ml_blobs {
    ml_buf html;          /* <script type="application/x-memlens" id="ml-bN">...</script> */
    unsigned count;
    size_t raw_bytes;     /* before deflate, for the log */
    int level;            /* zlib level, 1 by default: the report must be quick to write */
    int capture;
    VEC(ml_col_raw) raw;
} ml_blobs;

/* Each writes the column's JSON descriptor into `meta` and its bytes into `bl`. */
void ml_col_i64(ml_blobs *bl, ml_buf *meta, const int64_t *v, size_t n, int try_delta);
void ml_col_u32(ml_blobs *bl, ml_buf *meta, const uint32_t *v, size_t n);
void ml_col_u8(ml_blobs *bl, ml_buf *meta, const uint8_t *v, size_t n);

void ml_blobs_free(ml_blobs *bl);

#endif
