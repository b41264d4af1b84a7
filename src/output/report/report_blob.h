/*
 * report_blob.h — one blob of the report as it appears in the page: a
 * <script type="application/x-memlens" id="ml-bN"> holding its bytes in
 * base64, byte-shuffled (ml_blob_shuffled) and deflated (zlib format) when
 * that saves a tenth.  Used serially
 * by report_enc.c and on a second thread by report_blobq.c.
 */
#ifndef ML_REPORT_BLOB_H
#define ML_REPORT_BLOB_H

#include <stdbool.h>
#include <stddef.h>

#include "report_lz.h"
#include "textbuf.h"

/* Blobs shorter than this are neither shuffled nor deflated: it would not pay. */
#define ML_BLOB_MIN_DEFLATE 256

/* Whether a blob of nbytes of values `width` bytes wide is stored
 * byte-shuffled: value i's byte k at k * count + i, so each byte plane
 * deflates on its own (web/DATA.md's "s").  Known before it is encoded, so
 * that its descriptor can say so at once. */
bool ml_blob_shuffled(size_t width, size_t nbytes);

/* The buffers one encoder (a thread) reuses from blob to blob: a fresh
 * one each time was a page fault every 4 KB of each (10 k of a 400 MB
 * trace's report).  Zeroed: empty. */
typedef struct ml_blob_scratch {
    unsigned char *planes, *z;
    size_t planes_cap, z_cap;
    ml_lz_state lz;           /* report_lz.c's, for the blobs of nearly all repeats */
} ml_blob_scratch;
void ml_blob_scratch_free(ml_blob_scratch *s);

/* Blob `id` as its <script> element appended to html: the bytes (values
 * `width` bytes wide) shuffled when ml_blob_shuffled says so, without the
 * planes of zero_planes (bit k: byte k is zero in every value, web/DATA.md's
 * "zp"), then deflated at `level` (0: the default, libdeflate's 1 or 2 or report_lz.c's as
 * the planes are, see default_level) when that saves at least a tenth (returns
 * 1), else as they are (returns 0); base64 either way.  The leading planes
 * (of at least 4 KB) that are as good as random are not searched for
 * matches: they open the zlib stream as stored blocks (a blob of nothing
 * else is not deflated).  s: the calling thread's own. */
int ml_blob_encode(ml_blob_scratch *s, ml_buf *html, unsigned id, int level, size_t width, unsigned zero_planes,
                   const void *bytes, size_t nbytes);

#endif
