/*
 * loadpar.h — many ranks on every core.
 *
 * A job of thousands of ranks is a list of units (a file, or an Ascend
 * `*_ascend_pt` folder: what a directory walk loads as one rank, walk.c).
 * ml_load_each loads them on a pool of threads, largest first (the big ones
 * must not be left for the end), hands each profile to a callback on the
 * thread that loaded it, and frees it right after: the callback takes what
 * it needs (a rank's record, its text), so that the event-level data of no
 * more than one rank per thread is in memory at a time.
 *
 * A rank small enough to be one of many runs on its thread alone: the
 * parser's second thread, the event pipe and the analyses' ml_par2 are for
 * a big file (ML_LOADPAR_BIG bytes or more), or a pool of one thread.
 *
 * Which unit failed is deterministic whatever the number of threads: the
 * error returned is that of the first failing unit in list order (units
 * after one known to fail are not loaded; those before it still are).
 */
#ifndef ML_LOADPAR_H
#define ML_LOADPAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "importer.h"
#include "logdir.h"

#define ML_LOADPAR_BIG ((int64_t)32 << 20)

typedef struct ml_unit {
    char *path;
    int64_t bytes;          /* on disk (a folder: all of its files), -1 if unknown (stdin) */
    bool listed;            /* found by walking a directory input */
    size_t input;           /* index of the input it came from */
    ml_logdir_place place;  /* its run, worker and span when its input is a logdir (logdir.h); run NULL else */
} ml_unit;

typedef struct ml_unit_list {
    VEC(ml_unit) units;     /* inputs in the order given, each directory walked in name order */
    VEC(char *) skipped;    /* "path: why", what the walks passed over */
    int logdir;             /* the first input that is a logdir of several runs or spans, -1: none */
} ml_unit_list;

/* Lists the units of the inputs (a file or "-" is one; a directory is
 * walked, ml_list_dir), and classifies each directory (logdir.h): a job, a
 * set of files, or a TensorBoard logdir, whose units get their places.
 * DIR@SPAN (a directory DIR, and no path of that name) keeps the units of
 * that span of DIR's runs.  The one listing every loader of directories
 * (job.h, runpair.h, the server's ranks) starts from.  Fails as ml_load
 * would: an input that does not exist, a directory with nothing in it
 * memlens reads; and on a span that DIR does not have. */
int ml_units_list(const char *const *inputs, size_t n, ml_unit_list *out, ml_err *e);
void ml_unit_list_free(ml_unit_list *l);

/* Loads one input as ml_load does, through its listing (RUN@SPAN, the
 * logdir's classification), for a command that reads one run (diff, check,
 * export, a report of one file): a logdir of several runs or spans is
 * refused (ml_units_logdir_error).  Appends to ps (its needs and limits
 * apply); 0 or -1 with e set. */
int ml_units_load(const char *input, ml_profiles *ps, ml_err *e);

/* The error of a command that reads one run (diff, check) given the
 * logdir l->logdir (inputs[l->logdir]): it names the runs, or the spans of
 * its one run, and how to pick one. */
int ml_units_logdir_error(const ml_unit_list *l, const char *input, ml_err *e);

/* Called once per profile loaded, on the loading thread; p is freed when it
 * returns.  unit: the index in the list; k: the profile's number within its
 * unit (an Ascend folder may hold two). */
typedef void (*ml_each_fn)(void *arg, size_t unit, size_t k, ml_profile *p);

typedef struct ml_each_opts {
    ml_needs needs;         /* what the command reads (needs.h) */
    int jobs;               /* threads; 0 = one per core */
    const size_t *only;     /* load only these units; NULL = all */
    size_t n_only;
    const volatile int *stop; /* when it becomes non-zero, no more units are begun (NULL: never) */
} ml_each_opts;

/* What loading the units found besides profiles. */
typedef struct ml_unit_skip {
    size_t unit;
    char *text;             /* "path: why" */
} ml_unit_skip;
typedef struct ml_each_result {
    size_t *profiles;       /* per unit: the profiles it gave (a unit may give none: skipped) */
    VEC(ml_unit_skip) skipped; /* noticed while loading, in unit order */
    size_t failed_unit;     /* when it failed: the unit whose error e holds */
} ml_each_result;

/* Loads the units and calls fn for each profile.  0, or -1 with e set to
 * the error of the first failing unit (res->failed_unit). */
int ml_load_each(const ml_unit_list *l, const ml_each_opts *o, ml_each_fn fn, void *arg, ml_each_result *res,
                 ml_err *e);
void ml_each_result_free(ml_each_result *r);

/* The number of threads a pool of `jobs` (0: one per core) gets. */
int ml_loadpar_jobs(int jobs);

#endif
