/*
 * logdir_list.h — what `summary` and `perf` print for a TensorBoard logdir
 * of several runs or spans (logdir.h): its runs, their workers (ranks) and
 * the spans (profiling windows) of each, with each span's peak, steps and
 * start, and how to name one run or span to look at it.
 */
#ifndef ML_LOGDIR_LIST_H
#define ML_LOGDIR_LIST_H

#include <stdio.h>

#include "loadpar.h"
#include "rankrec.h"

/* The logdir l->logdir of l (its input text: input), with the records of
 * its units (recs, any order; a unit without one is listed without its
 * figures).  cmd: the command to name in the hint ("summary"). */
void ml_logdir_list_text(FILE *f, const ml_unit_list *l, const char *input, ml_rankrec *const *recs, size_t n,
                         const char *cmd);
/* {"logdir": input, "runs": [{"name", "path", "workers": [{"name", "spans": [{"span", "timestamp",
 * "path", "bytes", "rank", "device", "peak_allocated_bytes", "peak_reserved_bytes", "steps",
 * "first_time_ns"}]}]}], "pick": "memlens CMD RUN[@SPAN]"} */
void ml_logdir_list_json(FILE *f, const ml_unit_list *l, const char *input, ml_rankrec *const *recs, size_t n,
                         const char *cmd);

#endif
