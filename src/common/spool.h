/*
 * spool.h — an append-only store of byte strings, kept out of memory.
 *
 * The text a command writes about each rank (its summary section, its run
 * object) is made while the rank's events are in memory, on the thread that
 * loaded it, but printed later, in rank order, once every rank is done.  A
 * job of thousands of ranks makes hundreds of megabytes of it: the spool
 * keeps it in an unnamed temporary file (in the page cache, not in the
 * process), and a rank's record holds only where its pieces are.
 *
 * ml_spool_put may be called from several threads at once.
 */
#ifndef ML_SPOOL_H
#define ML_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

typedef struct ml_spool ml_spool;

/* A piece of the spool: bytes [off, off + len). */
typedef struct ml_piece {
    uint64_t off, len;
} ml_piece;

/* NULL (with errno) when no temporary file can be made. */
ml_spool *ml_spool_new(void);
void ml_spool_free(ml_spool *s);

/* Appends n bytes; returns where they are.  When the temporary file cannot
 * be written (a full disk) the piece is short and the spool failed: see
 * ml_spool_error. */
ml_piece ml_spool_put(ml_spool *s, const void *bytes, size_t n);
/* Copies a piece to f; 0, or -1 when f cannot be written (or the spool read). */
int ml_spool_copy(ml_spool *s, ml_piece piece, FILE *f);
/* A piece's bytes in a new buffer (free()), NUL-terminated after len (zeros,
 * and the spool failed, when it cannot be read back). */
char *ml_spool_get(ml_spool *s, ml_piece piece);
/* 0, or -1 with the first failure of a put or get ("cannot write a temporary
 * file in /tmp: No space left on device"): what was written from the spool
 * since is not to be trusted. */
int ml_spool_error(ml_spool *s, ml_err *e);

/* A piece written with stdio, in memory, before it goes into the spool:
 * FILE *f = ml_spool_begin(&w); fprintf(f, …); piece = ml_spool_end(&w, s). */
typedef struct ml_spool_writer {
    char *p;
    size_t n;
    FILE *f;
} ml_spool_writer;

/* The stream to write the piece to (out of memory: ml_fatal, as ml_malloc). */
FILE *ml_spool_begin(ml_spool_writer *w);
/* Puts what was written into s and frees it. */
ml_piece ml_spool_end(ml_spool_writer *w, ml_spool *s);

#endif
