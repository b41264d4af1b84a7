/*
 * job.h — every rank of the inputs, read on every core (and, under MPI, on
 * every process), as records (rankrec.h) in rank order on the process that
 * writes the output.
 *
 * The inputs are listed into units (loadpar.h) the same way on every
 * process; each process reads its share, balanced by bytes (the largest
 * unit to the process with the fewest bytes so far), on its threads.  For
 * each rank, while its events are in memory, the command's callback adds
 * what the command will print about that rank (pieces in the job's spool)
 * to the rank's record; then the events are freed.  Process 0 gathers the
 * records (the transport, transport.h) and the command writes its output
 * from them: the same bytes whatever the number of threads or processes.
 */
#ifndef ML_JOB_H
#define ML_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "loadpar.h"
#include "rankrec.h"
#include "spool.h"
#include "transport.h"
#include "bytes.h"

/* Called on the loading thread for each rank: add the rank's pieces to r
 * (ml_spool_put into s).  Must not write anything else shared.  memo: the
 * peaks of p the record was made through (curve.h), for the command's own
 * analyses to find again; NULL when fn runs beside the record
 * (fn_pieces_only). */
typedef void (*ml_job_fn)(void *arg, const ml_profile *p, ml_peak_memo *memo, ml_rankrec *r, ml_spool *s);

typedef struct ml_job_opts {
    ml_needs needs;             /* what the command reads of each rank (needs.h) */
    ml_rankrec_wants rec;       /* what its output reads of the records (a job of one
                                 * rank adds no_stragglers itself) */
    int jobs;                   /* -j: threads per process; 0 = one per core */
    ml_job_fn fn;               /* NULL: records only */
    void *arg;
    bool fn_pieces_only;        /* fn reads nothing of r and writes only its piece, mark and
                                 * flags: it runs beside ml_rankrec_of, on the other core */
    FILE *err;                  /* where the one-line errors go (the writer's) */
    bool lists_logdir;          /* the command lists a logdir of several runs or spans (units.logdir,
                                 * logdir_list.h) instead of its output: then fn is not called */
} ml_job_opts;

typedef struct ml_job {
    ml_rankrec **recs;          /* every rank, in rank order (process 0 only) */
    size_t n;
    ml_spool *spool;            /* their pieces */
    VEC(char *) skipped;        /* "path: why", what was passed over, in walk order */
    ml_unit_list units;
} ml_job;

/* 0: the records are here (this process writes the output); 1: this
 * process is not the writer (its ranks went to process 0): it writes
 * nothing and ends with ml_job_exit's status; -1: failed, the error printed
 * (by process 0): exit 2.  The job is to be freed in every case. */
int ml_job_run(const char *const *inputs, size_t n, const ml_job_opts *o, ml_job *job);
/* The exit status of the writer, on every process: call it once, at the
 * end, with this process's status (only the writer's counts). */
int ml_job_exit(int status);
void ml_job_free(ml_job *job);

/* Keeps only the records of that rank (--rank); -1 with the error printed
 * ("--rank N: no such rank (loaded: ...)") when there is none. */
int ml_job_keep_rank(ml_job *job, int rank, FILE *err);

/* The items process `me` of `size` takes (n_out of them, in list order):
 * each item (largest first) to the process with the fewest bytes so far,
 * the lowest number among equals; only_first[i] (may be NULL): item i to
 * process 0.  The share of a job's units: every unit's bytes, standard
 * input to process 0, which alone can read it. */
size_t *ml_job_share(const int64_t *bytes, const bool *only_first, size_t n_items, int size, int me, size_t *n_out);
size_t *ml_job_units_share(const ml_unit_list *l, int size, int me, size_t *n_out);

/* Every other process's bytes (mine: this process's; process 0 sends none)
 * handed to unpack on process 0, in process order.  0, or -1: the transport
 * failed, or unpack found the bytes bad ("bad records from another
 * process", said on process 0). */
int ml_job_gather(const ml_transport *t, const ml_bytes *mine, bool (*unpack)(void *arg, const char *p, size_t n),
                  void *arg, FILE *err);

/* -j N: 1 .. 4096 threads; writes the error to err and returns -1 otherwise. */
int ml_job_parse_jobs(FILE *err, const char *text, int *out);

#endif
