/*
 * par.h — two pieces of work at once, for the phases after parsing.
 *
 * memlens targets two-core machines: parsing a big file already uses both
 * cores (kineto_split.c reads it in halves), but what follows (sorting the
 * slices, the perf analyses, encoding the report) was one thread.  ml_par2()
 * runs `b` on a new thread and `a` on this one and returns when both are
 * done.  The two tasks must not write anything the other reads.
 *
 * MEMLENS_ONE_THREAD in the environment (or a failed pthread_create) runs
 * them one after the other, a then b: tests compare both ways.
 */
#ifndef ML_PAR_H
#define ML_PAR_H

#include <stdbool.h>

typedef void (*ml_task)(void *arg);

void ml_par2(ml_task a, void *arg_a, ml_task b, void *arg_b);

/* False when MEMLENS_ONE_THREAD is set, or on a thread that turned it off. */
bool ml_par_allowed(void);
/* Turns the extra threads of the calling thread's work off (or back on):
 * a pool that loads many ranks at once, one per core, runs each rank on
 * its own thread alone. */
void ml_par_set_thread(bool allowed);

/* One task begun on a new thread now and awaited later, for work that
 * overlaps the steps the caller takes meanwhile (which must not write what
 * the task reads).  Where ml_par2 would run tasks one after the other, the
 * task runs at once, in ml_par_start. */
typedef struct ml_par_job ml_par_job;
ml_par_job *ml_par_start(ml_task fn, void *arg);
/* Waits for the task (when it had a thread of its own) and frees the job. */
void ml_par_join(ml_par_job *job);

#endif
