/*
 * report_enc.h — how the HTML report carries data: typed columns stored as
 * base64 blobs (deflated when that pays off), written with textbuf.h.  The page decodes them with web/src/decode.js; the
 * contract is written down in web/DATA.md.
 *
 * A column is described in the meta JSON as
 *     {"b":BLOB,"dt":"i32|u32|u16|u8|f64","n":COUNT,"d":1?,"r":RUNS?,"s":1?,"zp":MASK?,"i":1?,"dn":1?,"o":FIRST?,"z":1?}
 * where d = delta-coded (value i = o + the sum of the deltas up to i),
 * r = stored as RUNS runs (i32: the runs' values, then their lengths),
 * s = byte-shuffled (byte k of value i at k * COUNT + i: report_blob.h),
 * zp = the planes left out, zero in every value (bit k: byte k),
 * i = an f64 column stored as int64s, dn = a u32 (u16) column stored as the
 * u32 differences of its non-zero values (zigzag + 1, 0 for a zero) and
 * z = zlib-deflated; the
 * bytes are little-endian and live in <script id="ml-bBLOB"> as base64.
 */
#ifndef ML_REPORT_ENC_H
#define ML_REPORT_ENC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "report_blob.h"
#include "textbuf.h"
#include "vec.h"

/* A column kept as raw values instead of encoded (capture mode, for `memlens
 * serve`, which answers queries from the arrays themselves). */
typedef struct ml_col_raw {
    char dt;              /* 'i' int64_t, 'u' uint32_t, 'b' uint8_t */
    size_t n;
    void *v;              /* n values of that type (owned) */
} ml_col_raw;

typedef struct ml_blobq ml_blobq; /* report_blobq.h */

/* The blobs of one report: base64 text, each wrapped in its <script> tag.
 * With `capture` set, columns are not encoded: each is kept in `raw` (blob N
 * = raw.v[N]) and described as {"b":N,"dt":"i64|u32|u8","n":COUNT}; with
 * capture ML_BLOBS_DESCRIBE only described (the caller keeps the values). */
#define ML_BLOBS_DESCRIBE 2
typedef struct ml_blobs {
    ml_buf html;          /* <script type="application/x-memlens" id="ml-bN">...</script> */
    unsigned count;
    ml_blobq *q;          /* set between ml_blobs_async and ml_blobs_finish */
    unsigned q_first;     /* the first blob it encodes */
    size_t max_pending;   /* raw bytes it holds at most; 0 = the default (tests set 1) */
    size_t raw_bytes;     /* before deflate, for the log */
    int level;            /* deflate level, 0 = the default (deflate_zlib): the report must be quick to write */
    int capture;
    VEC(ml_col_raw) raw;
    ml_blob_scratch scratch; /* of encoding serially */
    int32_t *i32;         /* a column's i32 form (ml_col_i64), kept for the next column unless it became
                           * the blob itself (a fresh one is a page fault every 4 KiB written) */
    size_t i32_cap;
} ml_blobs;

/* Each writes the column's JSON descriptor into `meta` and its bytes into `bl`. */
void ml_col_i64(ml_blobs *bl, ml_buf *meta, const int64_t *v, size_t n, int try_delta);
void ml_col_u32(ml_blobs *bl, ml_buf *meta, const uint32_t *v, size_t n);
void ml_col_u8(ml_blobs *bl, ml_buf *meta, const uint8_t *v, size_t n);
/* A u32 column of row numbers that grow among zeros (the slices' launchers
 * and args): its non-zero values by their differences ("dn"), when shuffled. */
void ml_col_u32_nz_delta(ml_blobs *bl, ml_buf *meta, const uint32_t *v, size_t n);

/* The same, taking v (malloc'd, of exactly those n values' room or more):
 * the callee frees it or makes it the blob's bytes, written over as needed,
 * instead of copying it. */
void ml_col_u32_take(ml_blobs *bl, ml_buf *meta, uint32_t *v, size_t n);
void ml_col_u8_take(ml_blobs *bl, ml_buf *meta, uint8_t *v, size_t n);
/* A u32 column whose values all fit in 16 bits (ml_col_u32 of them), given
 * as those u16s (taken). */
void ml_col_u16_take(ml_blobs *bl, ml_buf *meta, uint16_t *v, size_t n);
void ml_col_u32_nz_delta_take(ml_blobs *bl, ml_buf *meta, uint32_t *v, size_t n);
/* An i64 column whose values all fit in i32 (ml_col_i64(..., 0) of them),
 * given as those i32s: the column ml_col_i64 would write, without the i64s. */
void ml_col_i32_take(ml_blobs *bl, ml_buf *meta, int32_t *v, size_t n);

/* No more columns for now: frees what ml_col_i64 keeps between columns
 * (before the caller's next large allocations). */
void ml_blobs_columns_done(ml_blobs *bl);

/* The bytes of the blobs the second thread has encoded so far to the
 * caller's scratch pool (ml_blobq_reclaim): before a run of large
 * allocations.  Nothing without that thread. */
void ml_blobs_reclaim(ml_blobs *bl);
/* Whether the second thread keeps those bytes for ml_blobs_reclaim (on
 * while the caller has a scratch pool open), else frees them (the start). */
void ml_blobs_recycle(ml_blobs *bl, bool on);

/* From here on, blobs are encoded on a second thread while the caller goes
 * on (not with `capture`, nor with MEMLENS_ONE_THREAD set in the
 * environment): html must not be read, and each column's "z" in the meta
 * is a placeholder, until ml_blobs_finish. */
void ml_blobs_async(ml_blobs *bl);
/* Waits for those blobs and puts each descriptor's "z" into meta, which
 * holds every descriptor written since ml_blobs_async (copies included).
 * The result is byte for byte that of encoding them serially. */
void ml_blobs_finish(ml_blobs *bl, ml_buf *meta);

/* Frees the blobs (waiting for a worker still running). */
void ml_blobs_free(ml_blobs *bl);

#endif
