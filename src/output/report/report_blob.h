/*
 * report_blob.h — one blob of the report as it appears in the page: a
 * <script type="application/x-memlens" id="ml-bN"> holding its bytes in
 * base64, deflated (zlib format) when that saves a tenth.  Used serially
 * by report_enc.c and on a second thread by report_blobq.c.
 */
#ifndef ML_REPORT_BLOB_H
#define ML_REPORT_BLOB_H

#include <stddef.h>

#include "textbuf.h"

/* Blob `id` as its <script> element appended to html: the bytes deflated
 * at `level` when that saves at least a tenth (returns 1), else as they are
 * (returns 0); base64 either way. */
int ml_blob_encode(ml_buf *html, unsigned id, int level, const void *bytes, size_t nbytes);

#endif
