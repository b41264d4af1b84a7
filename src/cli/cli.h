/*
 * cli.h — the command front-ends (`memlens COMMAND ...`) and what they share.
 *
 * Each command lives in src/cli/NAME_cmd.c: it parses its options, loads its
 * inputs and hands the profiles to an output module (src/output/).  Options
 * that several commands take are parsed here, so they read and fail alike.
 */
#ifndef ML_CLI_H
#define ML_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "importer.h"

/* Where a command writes: its output (the text, the --json document) and its
 * messages (errors, warnings, usage).  The program passes stdout and stderr;
 * an embedder (the Python extension, python/memlens/_memlens.c) passes
 * streams of its own (open_memstream), so that nothing reaches the process's
 * streams and the error comes back as a value. */
typedef struct ml_cli_io {
    FILE *out;
    FILE *err;
} ml_cli_io;

/* The program: argv[1] names the command (dispatch.c), on stdout/stderr. */
int ml_cli_main(int argc, char **argv);
/* The same on the caller's streams; the exit status, never an exit(). */
int ml_cli_run(int argc, char **argv, const ml_cli_io *io);
/* A program that runs the command line sets its answer to a fatal error
 * (out of memory) first: main.c and par/mpi.c print "memlens: MSG" and exit
 * with status 3 (ml_set_fatal_handler, err.h); the library never exits. */

/* The commands: argv starts after the command's name; each returns the exit
 * status (0, 1 for a failed write to io->out, 2 for bad input or options). */
int ml_cmd_summary(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_report(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_serve(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_snapshot(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_export(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_perf(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_diff(int argc, char **argv, const ml_cli_io *io);
int ml_cmd_check(int argc, char **argv, const ml_cli_io *io);

/* --rank N: 0 .. 1000000; writes "memlens: --rank X: ..." to err and returns -1 otherwise. */
int ml_cli_rank(FILE *err, const char *text, int *out);
/* A count option (--top N ...): lo .. hi; writes "memlens: OPT X: expected WHAT" to err and returns -1 otherwise. */
int ml_cli_count(FILE *err, const char *opt, const char *text, long lo, long hi, const char *what, int *out);
/* Loads every input (ml_load) into ps and sorts the ranks; on failure writes
 * the one-line error to err, frees ps and returns -1. */
int ml_cli_load(const char *const *inputs, size_t n, ml_profiles *ps, FILE *err);

#endif
