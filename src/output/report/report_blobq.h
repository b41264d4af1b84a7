/*
 * report_blobq.h — the report's blobs deflated and base64-encoded on a
 * second thread, in order, while the main thread builds the next columns
 * (and then the perf views); what is left when the main thread is done, both
 * threads encode.  report_enc.c hands it the columns' bytes; the
 * blob text it appends is the same as the serial path's (ml_blob_encode).
 */
#ifndef ML_REPORT_BLOBQ_H
#define ML_REPORT_BLOBQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "textbuf.h"

typedef struct ml_blobq ml_blobq;

/* Raw bytes waiting at most, by default: the trace's columns of a 400 MB
 * trace, about, so that a worker slower than the main thread does not hold
 * every column at once (48 MiB added 20 MB to the peak RSS there). */
#define ML_BLOBQ_MAX_PENDING ((size_t)32 << 20)

/* A worker that appends each pushed blob to html (which nobody else touches
 * until ml_blobq_finish); NULL when it cannot start (the caller encodes
 * serially).  first_id: the id of the first blob to be pushed; max_pending:
 * the raw bytes queued at most (a push waits beyond; one blob always goes). */
ml_blobq *ml_blobq_start(ml_buf *html, unsigned first_id, size_t max_pending);
/* Queues blob `id` (the next id after the previous push), values `width`
 * bytes wide with the byte planes zero_planes left out (ml_blob_encode):
 * bytes is malloc'd and becomes the queue's. */
void ml_blobq_push(ml_blobq *q, unsigned id, int level, size_t width, unsigned zero_planes, void *bytes,
                   size_t nbytes);
/* Hands the bytes of the blobs encoded since the last call to the calling
 * thread's scratch pool (scratch.h; freed where none is open): the next
 * columns' pages.  A push does it too.  Only while recycle is on (off at
 * the start, and when turned off: what was kept goes to the pool as well),
 * else the worker frees them: a caller turns it on while it has a pool open
 * to give them to. */
void ml_blobq_reclaim(ml_blobq *q);
void ml_blobq_recycle(ml_blobq *q, bool on);
/* Encodes the blobs still waiting (alongside the worker), waits for the
 * rest and stops the worker; returns whether each was deflated (index
 * id - first_id; *n of them, malloc'd) and frees q. */
uint8_t *ml_blobq_finish(ml_blobq *q, size_t *n);

#endif
