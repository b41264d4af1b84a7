/*
 * transport.h — how the processes of one run talk: none (a single process),
 * or MPI (src/par/mpi.c, in build/memlens-mpi only).
 *
 * A job (job.h) asks the transport three things: how many processes there
 * are and which one this is, to gather every process's bytes on process 0,
 * and to tell every process one number that process 0 decides (the exit
 * status); `check` (runpair.c) also has process 0 tell every process the
 * ranks of a job, to pair them alike.  Nothing else in memlens knows that there may be several
 * processes: the analyses and outputs run on process 0, on records.
 */
#ifndef ML_TRANSPORT_H
#define ML_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ml_transport {
    const char *name;           /* "mpi" */
    int size, me;               /* processes, and this one's number (0: the writer) */
    /* On process 0: every process's bytes, in process order, back to back
     * (*all, malloc'd) with each one's length (*lens, size entries, malloc'd);
     * process 0's own first.  Elsewhere: sends mine, *all = NULL.  0 or -1. */
    int (*gather)(const void *mine, size_t n, char **all, uint64_t **lens);
    /* Process 0's v, on every process. */
    int64_t (*bcast)(int64_t v);
    /* Process 0's bytes (*p, n there) on every process: elsewhere *p becomes a
     * malloc'd copy and *n its length.  0 or -1. */
    int (*bcast_bytes)(char **p, size_t *n);
} ml_transport;

/* NULL: one process (the default). */
extern const ml_transport *ml_transport_now;

#endif
