/*
 * runpair.h — the two sides of `memlens diff` and `memlens check`: both
 * inputs loaded at once (one thread each, each through the usual loader),
 * each profile's time side analysed as far as a comparison needs
 * (ml_diff_time: steps, operator tree, time per name), and the ranks paired.
 *
 * Pairing: one profile on each side is one pair, whatever their rank
 * numbers (rank 0 of a run against rank 1 of it).  Otherwise ranks are
 * paired by rank number, and the ranks only one side has are listed; a side
 * with several profiles of unknown rank, or no rank number in common, is an
 * error ("mismatched ranks").  --rank N keeps that rank on both sides.
 */
#ifndef ML_CLI_RUNPAIR_H
#define ML_CLI_RUNPAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "diff.h"
#include "diffops.h"
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
    size_t item[2];         /* the profile of each side (index into side[s].ps.items) */
} ml_run_pair;

typedef VEC(ml_run_pair) ml_run_pairs;
typedef VEC(char *) ml_notes;

typedef struct ml_runpair {
    ml_run_side side[2];
    bool single;            /* no base: side[1] alone, each profile paired with itself */
    ml_run_pairs pairs;
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
 * without its value is not), -1 on a bad value (the one-line error printed). */
int ml_runpair_opt(int argc, char **argv, int *i, ml_runpair_opts *o);

/* Loads both inputs (want: ML_WANT_* for ml_profiles.want), keeps `rank`
 * (>= 0) on both sides, pairs the ranks.  base NULL: only nw, each of its
 * profiles paired with itself (`check` without --base).  On failure prints the one-line
 * error ("memlens: ...") and returns -1 (exit status 2). */
int ml_runpair_load(const char *base, const char *nw, unsigned want, int rank, ml_runpair *out);
/* The diff side of profile k of side s. */
ml_diff_side ml_runpair_side(const ml_runpair *rp, int s, size_t k);
void ml_runpair_free(ml_runpair *rp);

/* What fn made of each pair (ml_runpair_each), in pair order. */
typedef void *(*ml_runpair_fn)(void *arg, const ml_diff_side *base, const ml_diff_side *nw);
typedef struct ml_runpair_results {
    size_t n;
    void **v;               /* fn's result per pair */
    ml_notes unmatched;     /* "rank 3 only in NEW" */
} ml_runpair_results;

/* The pairs of ml_runpair_load, each handed to fn (base == nw without a
 * base), with the same errors.  For a job (an input of more than one
 * profile file or folder) the pairs are loaded one at a time on every core
 * instead of every rank at once: first a lean pass over both sides for
 * their ranks (none without a base), then each NEW rank with its base
 * rank, freed once fn returns; fn may run on several threads at once and
 * must write nothing shared.  Memory: a pair per core, not the job.  -1
 * with the error printed (exit status 2). */
int ml_runpair_each(const char *base, const char *nw, unsigned want, int rank, ml_runpair_fn fn, void *arg,
                    void (*free_result)(void *), ml_runpair_results *out);
void ml_runpair_results_free(ml_runpair_results *r, void (*free_result)(void *));

#endif
