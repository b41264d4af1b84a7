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

#include "importer.h"

/* The program: argv[1] names the command (dispatch.c). */
int ml_cli_main(int argc, char **argv);

/* The commands: argv starts after the command's name; each returns the exit
 * status (0, 1 for a failed write to stdout, 2 for bad input or options). */
int ml_cmd_summary(int argc, char **argv);
int ml_cmd_report(int argc, char **argv);
int ml_cmd_serve(int argc, char **argv);
int ml_cmd_snapshot(int argc, char **argv);
int ml_cmd_export(int argc, char **argv);
int ml_cmd_perf(int argc, char **argv);
int ml_cmd_diff(int argc, char **argv);
int ml_cmd_check(int argc, char **argv);

/* --rank N: 0 .. 1000000; prints "memlens: --rank X: ..." and returns -1 otherwise. */
int ml_cli_rank(const char *text, int *out);
/* A count option (--top N ...): lo .. hi; prints "memlens: OPT X: expected WHAT" and returns -1 otherwise. */
int ml_cli_count(const char *opt, const char *text, long lo, long hi, const char *what, int *out);
/* Loads every input (ml_load) into ps and sorts the ranks; on failure prints
 * the one-line error, frees ps and returns -1. */
int ml_cli_load(const char *const *inputs, size_t n, ml_profiles *ps);

#endif
