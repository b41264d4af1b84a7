/*
 * runpair.h — the two sides of `memlens diff` and `memlens check`: both
 * inputs loaded at once (one thread each, each through the usual loader),
 * each profile's time side analysed as far as a comparison needs
 * (ml_diff_time: steps, operator tree, time per name), and the ranks paired.
 *
 * Pairing: one profile on each side is one pair, whatever their rank
 * numbers (rank 0 of a run against rank 1 of it).  Otherwise ranks are
 * paired by rank number, and the ranks only one side has are listed (a NEW
 * rank BASE lacks, or the second NEW profile of a rank number, is also kept
 * "alone": `check` judges it by the rules that need no base); a side
 * with several profiles of unknown rank, or no rank number in common, is an
 * error ("mismatched ranks").  --rank N keeps that rank on both sides.
 *
 * ml_runpair_load holds both inputs whole (diff, whose outputs read every
 * pair at once); ml_runpair_each (runpair_each.c) hands the pairs to a
 * judge one at a time (check), a pair per core in memory.
 */
#ifndef ML_CLI_RUNPAIR_H
#define ML_CLI_RUNPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diff.h"
#include "diffops.h"
#include "bytes.h"
#include "importer.h"
#include "loadpar.h"

/* One side: its input and what was loaded from it. */
typedef struct ml_run_side {
    const char *input;
    ml_profiles ps;
    ml_diff_time *time;     /* per profile; valid where has_time */
    bool *has_time;
} ml_run_side;

typedef struct ml_run_pair {
    size_t item[2];         /* the profile of each side (index into side[s].ps.items);
                             * item[0] ML_NO_BASE: a NEW profile without a base partner */
} ml_run_pair;

#define ML_NO_BASE SIZE_MAX

typedef VEC(ml_run_pair) ml_run_pairs;
typedef VEC(char *) ml_notes;

typedef struct ml_runpair {
    ml_run_side side[2];
    bool single;            /* no base: side[1] alone, each profile paired with itself */
    ml_run_pairs pairs;
    ml_run_pairs alone;     /* NEW profiles without a partner in BASE (item[0] ML_NO_BASE) */
    ml_notes unmatched;     /* "rank 3 only in NEW" */
} ml_runpair;

/* The options `diff` and `check` share.  top NULL: the command has no --top. */
typedef struct ml_runpair_opts {
    bool help, json;
    int rank;               /* -1: every rank */
    int *top;               /* --top N: 1 .. 1000000 rows */
} ml_runpair_opts;

/* Reads the shared option at argv[*i] (--help/-h, --json, --rank N, --top N)
 * and steps *i past its value: 1 when it was one, 0 when not (an option
 * without its value is not), -1 on a bad value (the one-line error written to err). */
int ml_runpair_opt(int argc, char **argv, int *i, ml_runpair_opts *o, FILE *err);

/* Loads both inputs (needs: what the command reads, ml_profiles.needs), keeps `rank`
 * (>= 0) on both sides, pairs the ranks.  base NULL: only nw, each of its
 * profiles paired with itself (`check` without --base).  On failure writes the one-line
 * error to err ("memlens: ...") and returns -1 (exit status 2). */
int ml_runpair_load(const char *base, const char *nw, ml_needs needs, int rank, ml_runpair *out, FILE *err);
/* The diff side of profile k of side s. */
ml_diff_side ml_runpair_side(const ml_runpair *rp, int s, size_t k);
void ml_runpair_free(ml_runpair *rp);

/* Shared with runpair_each.c.  Pairs the profiles of two sides, their ranks
 * r[s][0..n[s]) in rank order (-1: unknown), as said above (alone: the NEW
 * profiles without a partner); -1 with the error printed. */
int ml_pair_ranks(const int *const r[2], const size_t n[2], const char *const in[2], ml_run_pairs *pairs,
                  ml_run_pairs *alone, ml_notes *unmatched, FILE *err);
/* A loaded profile made ready for a comparison (needs: what it was loaded for): what
 * a comparison does not read freed, its time side analysed (ml_diff_time,
 * false when it has none). */
bool ml_runpair_prepare(ml_profile *p, const ml_needs *needs, ml_diff_time *t);

/* How ml_runpair_each judges a pair: fn's result (non-NULL), freed by
 * free_result; under MPI (transport.h) a result travels to process 0 as
 * bytes: pack appends it, unpack reads it back (NULL and the reader bad
 * when it cannot).  alone: the NEW profiles without a base partner are
 * judged too, fn called with base NULL (`check`: a rank BASE lacks is still
 * held to --no-oom, --max-peak, ...). */
typedef struct ml_pair_judge {
    void *(*fn)(void *arg, const ml_diff_side *base, const ml_diff_side *nw);
    void (*free_result)(void *result);
    void (*pack)(void *arg, const void *result, ml_bytes *out);
    void *(*unpack)(void *arg, ml_bytes_reader *in);
    void *arg;
    bool alone;
} ml_pair_judge;

/* What the judge made of each pair, in pair order, then of each NEW
 * profile judged alone (the last n_alone of v). */
typedef struct ml_runpair_results {
    size_t n, n_alone;
    void **v;
    ml_notes unmatched;     /* "rank 3 only in NEW" */
} ml_runpair_results;

/* The pairs of ml_runpair_load, each judged (base == nw without a base),
 * with the same errors.  For a job (an input of more than one profile file
 * or folder) the pairs are loaded one at a time on every core instead of
 * every rank at once: with a base, first a lean pass over both sides for
 * their ranks, then each NEW rank with its base rank, both freed once
 * judged; fn may run on several threads at once and must write nothing
 * shared.  Memory: a pair per core, not the job.  Under MPI each process
 * takes a share of the units (the first pass) and of the pairs; process 0
 * gets every result.  Returns 0 (out filled, on process 0), 1 (another
 * process: nothing to write), or -1 with the error printed (exit status 2).
 * Every process then ends with ml_job_exit() (job.h). */
int ml_runpair_each(const char *base, const char *nw, ml_needs needs, int rank, const ml_pair_judge *judge,
                    ml_runpair_results *out, FILE *err);
void ml_runpair_results_free(ml_runpair_results *r, void (*free_result)(void *));

#endif
