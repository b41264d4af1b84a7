/*
 * logdir.h — a directory as TensorBoard's profiler plugin reads it.
 *
 * torch.profiler.tensorboard_trace_handler(dir) writes
 * `dir/WORKER.TIMESTAMP.pt.trace.json[.gz]`, one file per profiling window:
 * a logdir holds runs (each folder with such files; the logdir itself is
 * the run named by its own base name), a run holds workers (the name before
 * the timestamp: one per process, so one per rank), and a worker holds
 * spans (its repeated windows, numbered 1, 2, ... in timestamp order, as
 * the plugin numbers them).  A trace's `distributedInfo` rank is part of
 * its worker: files of one worker name but different ranks are ranks, not
 * spans.
 *
 * Such a directory is read as runs, workers and spans only when it must
 * be: when it holds more than one run, or a worker with more than one
 * span.  A directory of one window per worker (one job of ranks) stays a
 * job; one with any other file (a snapshot, an Ascend folder, a trace
 * named otherwise) stays a set of files, as before.
 *
 * A command names one run by its folder (`LOGDIR/RUN`) and one span of it
 * by `RUN@SPAN`, SPAN a span's number or its timestamp (ml_logdir_select).
 */
#ifndef ML_LOGDIR_H
#define ML_LOGDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Where one file of a logdir sits. */
typedef struct ml_logdir_place {
    char *run;              /* the run's name: its folder below the logdir, or the logdir's base name */
    char *worker;           /* the worker's name (", rank N" added when its traces disagree on the rank) */
    char *stamp;            /* the span's timestamp as written in the name ("" when it has none) */
    int span;               /* 1-based, among the worker's spans */
    int spans;              /* how many its worker has */
} ml_logdir_place;

/* The places of paths[0..n) (a directory walk's units below dir) in
 * place[], *runs the number of runs and *max_spans the most spans a worker
 * has, when every path is a trace named as the handler names them (else
 * place[] is left zeroed and *runs is 0).  True when dir is then to be read
 * as runs: several runs, or a worker with several spans.  Free each place
 * with ml_logdir_place_free. */
bool ml_logdir_classify(const char *dir, char *const *paths, size_t n, ml_logdir_place *place, size_t *runs,
                        int *max_spans);
void ml_logdir_place_free(ml_logdir_place *p);

/* Splits "PATH@SPAN" when PATH is a directory and PATH@SPAN is not a path
 * that exists: *dir gets PATH (malloc'd) and *span SPAN (pointing into
 * input).  False otherwise. */
bool ml_logdir_split(const char *input, char **dir, const char **span);

/* A file name's worker and timestamp (malloc'd; stamp "" when none), as the
 * plugin's WORKER_PATTERN reads `WORKER[.DIGITS].pt.trace.json[.gz]`; false
 * (nothing set) for another name. */
bool ml_logdir_parse_name(const char *base, char **worker, char **stamp);
/* The rank of the first `"distributedInfo"` object in head[0..n) (Kineto
 * writes it before the events), or -1. */
int ml_logdir_rank_in(const unsigned char *head, size_t n);

/* Whether place matches SPAN: its span number, or its timestamp. */
bool ml_logdir_span_is(const ml_logdir_place *place, const char *span);

#endif
