/*
 * check_out.h — the verdicts of `memlens check` (analysis/check.h) written
 * out: one line per rule for people (FAIL lines name the rule, the measured
 * figure, the limit and the three biggest contributors), --json for
 * programs, and JUnit XML (--junit FILE) for CI systems, one test case per
 * rule, written whole or not at all (outfile.h).  The ranks without a
 * partner are listed in each (text: a note line each; JSON: "unmatched";
 * JUnit: a property each of the test suite).
 */
#ifndef ML_CHECK_OUT_H
#define ML_CHECK_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "check.h"
#include "err.h"

typedef struct ml_check_run {
    const char *base;       /* the --base input, NULL if none */
    const char *input;      /* NEW */
    const ml_rule_result *results;
    size_t n;
    const char *const *unmatched; /* "rank 4 only in NEW": such a NEW rank was judged
                                   * by the rules that need no base */
    size_t n_unmatched;
} ml_check_run;

/* One line for a result: "FAIL --max-peak 30GiB: peak allocated 31.20 GiB
 * on cuda:0 of rank 0 > 30.00 GiB; largest at the peak: ...". */
void ml_check_line(const ml_rule_result *r, char *buf, size_t cap);

void ml_check_text(FILE *f, const ml_check_run *c);
void ml_check_json(FILE *f, const ml_check_run *c);
/* Writes the JUnit file; -1 with e set on failure. */
int ml_check_junit(const char *path, const ml_check_run *c, FILE *std_out, ml_err *e);

#endif
