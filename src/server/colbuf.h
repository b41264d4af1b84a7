/*
 * colbuf.h — one API answer made of scalar fields and columns, written
 * either as JSON ({"k":v, ..., "col":[...]}) or as a compact binary frame
 * that the page maps straight onto typed arrays (no parsing):
 *
 *   bytes 0..3   "MLB1"
 *   bytes 4..7   u32 LE: length H of the header
 *   bytes 8..    H bytes of JSON: the scalar fields, plus
 *                "cols":[{"k":NAME,"dt":"f64|u32|u8","n":COUNT,"o":OFFSET}, ...]
 *   then         zero bytes up to the next multiple of 8: the data section,
 *                where column k starts at OFFSET (a multiple of 8) from the
 *                section's start, little-endian
 *
 * int64 columns (times, bytes) travel as f64: exact below 2^53, which the
 * relative ns times and byte counts of a profile are.  A JSON answer always
 * starts with '{', so the first byte tells the two apart (ml_cb_is_binary).
 * web/src/source.js (decodeFrame) reads the frame; web/DATA.md documents it.
 */
#ifndef ML_SERVER_COLBUF_H
#define ML_SERVER_COLBUF_H

#include <stdint.h>

#include "jsonw.h"
#include "report_enc.h"

typedef struct ml_colbuf {
    int binary;
    ml_buf *out;        /* the answer */
    ml_buf head, cols, data;  /* binary: the header fields, the column descriptors, the columns */
    jw w;               /* the fields: into out (JSON) or head (binary) */
    jw cw;              /* binary: the column descriptors, into cols */
} ml_colbuf;

/* Starts an answer into out (appended to it at ml_cb_finish in binary mode). */
void ml_cb_begin(ml_colbuf *cb, ml_buf *out, int binary);
/* Scalar fields. */
void ml_cb_i64(ml_colbuf *cb, const char *key, int64_t v);
void ml_cb_bool(ml_colbuf *cb, const char *key, int v);
/* Any other value (a list of codes, of strings): the writer, with the key
 * written; the caller writes one value with it, the same in both modes. */
jw *ml_cb_key(ml_colbuf *cb, const char *key);
/* Columns: col[idx[k]] for k < n, or col[k] when idx is NULL. */
void ml_cb_col_i64(ml_colbuf *cb, const char *key, const int64_t *col, const uint32_t *idx, size_t n);
void ml_cb_col_u32(ml_colbuf *cb, const char *key, const uint32_t *col, const uint32_t *idx, size_t n);
void ml_cb_col_u8(ml_colbuf *cb, const char *key, const uint8_t *col, const uint32_t *idx, size_t n);
/* Ends the answer (frees the work buffers). */
void ml_cb_finish(ml_colbuf *cb);

/* Whether an answer is a binary frame. */
int ml_cb_is_binary(const char *p, size_t len);

#endif
