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
 *
 * Those loads run on a loader (below), the one pool every loader of ranks
 * shares: the CLI's job runner and MPI's shares (a batch on a loader of
 * their own), and `memlens serve` (server/ranks.c: the ranks the page asks
 * for as requests, the Cluster pass as a background batch on the same
 * threads).
 */
#ifndef ML_LOADPAR_H
#define ML_LOADPAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "importer.h"
#include "logdir.h"
#include "source.h"

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

/* ---- the loader: one pool of threads for batches and requests ---------
 *
 * A loader is a pool of `jobs` threads that load units one by one, each
 * unit on one thread (ml_load_unit, the profiles sorted), from two queues:
 * requests (ML_LOAD_NOW: a page waits for this rank) are taken before any
 * queued background load (ML_LOAD_BACKGROUND: a batch, the server's
 * Cluster pass), each queue in the order given.  Background loads occupy at
 * most `background_max` threads at once, so that the others stay free for a
 * request; a load begun is never interrupted.
 *
 * Its limits are those every caller had: `jobs` threads (one unit per
 * thread, freed by its callback, so that no more than `jobs` ranks' events
 * are in memory at a time), and per load the command's needs and the input
 * limits (source.h: an upload's bounded size).  A unit may use the parser's
 * second thread and ml_par2 when it is big (ML_LOADPAR_BIG), when the pool
 * has one thread, or when it is a request (someone waits for it alone). */
typedef enum { ML_LOAD_NOW, ML_LOAD_BACKGROUND } ml_load_prio;

typedef struct ml_loader ml_loader;

typedef struct ml_load_req {
    const char *path;       /* copied */
    bool listed;            /* as ml_unit.listed */
    int64_t bytes;          /* as ml_unit.bytes */
    ml_needs needs;
    ml_input_limits limits; /* zeros: none */
    ml_load_prio prio;
    /* Called on the thread that takes the load, before it begins: false
     * skips it (done is then called with ps NULL).  NULL: always begin. */
    bool (*begin)(void *arg, size_t tag);
    /* Called once, on the loading thread: rc 0 with the unit's profiles in
     * ps (sorted), or -1 with e set; ps NULL when it was skipped (begin, or
     * the loader stopped before it began).  What the callback leaves in ps
     * (items not set to NULL, skipped entries) is freed when it returns. */
    void (*done)(void *arg, size_t tag, ml_profiles *ps, int rc, const ml_err *e);
    void *arg;
    size_t tag;
} ml_load_req;

/* Starts a loader of `jobs` threads (0: one per core), background loads on
 * at most background_max of them (0 or more than jobs: all).  NULL with e
 * set if no thread could be started. */
ml_loader *ml_loader_start(int jobs, int background_max, ml_err *e);
/* Queues a load. */
void ml_loader_submit(ml_loader *ld, const ml_load_req *r);
/* The loads begun are finished; those still queued are told skipped (done
 * with ps NULL); then the threads end and it is freed. */
void ml_loader_stop(ml_loader *ld);
/* Its number of threads. */
int ml_loader_threads(const ml_loader *ld);

/* ---- batches: a listing's units through a loader ----------------------- */

/* Called once per profile loaded, on the loading thread; p is freed when it
 * returns.  unit: the index in the list; k: the profile's number within its
 * unit (an Ascend folder may hold two). */
typedef void (*ml_each_fn)(void *arg, size_t unit, size_t k, ml_profile *p);

typedef struct ml_each_opts {
    ml_needs needs;         /* what the command reads (needs.h) */
    int jobs;               /* threads; 0 = one per core (ml_load_each; a batch uses its loader's) */
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

typedef struct ml_batch ml_batch;

/* Queues the units of l (o->only of them, largest first) on ld at priority
 * prio; fn is called for each profile.  l and o must outlive the batch. */
ml_batch *ml_batch_start(ml_loader *ld, const ml_unit_list *l, const ml_each_opts *o, ml_load_prio prio,
                         ml_each_fn fn, void *arg);
/* Waits for every unit of the batch to be loaded or skipped, and frees it:
 * 0, or -1 with e set to the error of the first failing unit in list order
 * (res->failed_unit; units after one known to fail are not loaded). */
int ml_batch_wait(ml_batch *b, ml_each_result *res, ml_err *e);

/* A batch on a loader of its own of o->jobs threads: loads the units and
 * calls fn for each profile.  0, or -1 with e set (as ml_batch_wait). */
int ml_load_each(const ml_unit_list *l, const ml_each_opts *o, ml_each_fn fn, void *arg, ml_each_result *res,
                 ml_err *e);
void ml_each_result_free(ml_each_result *r);

/* The number of threads a pool of `jobs` (0: one per core) gets. */
int ml_loadpar_jobs(int jobs);

#endif
