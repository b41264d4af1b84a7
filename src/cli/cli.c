/*
 * cli.c — option parsing and loading shared by the command front-ends.
 */
#include "textwidth.h"
#include "cli.h"
#include "loadpar.h"

#include <stdio.h>
#include <stdlib.h>

int ml_cli_count(FILE *err, const char *opt, const char *text, long lo, long hi, const char *what, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || end == text || v < lo || v > hi) {
        fprintf(err, "memlens: %s %s: expected %s\n", opt, text, what);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int ml_cli_rank(FILE *err, const char *text, int *out)
{
    return ml_cli_count(err, "--rank", text, 0, 1000000, "a rank number", out);
}

int ml_cli_load(const char *const *inputs, size_t n, ml_profiles *ps, FILE *err)
{
    ml_err e = {{0}};
    for (size_t i = 0; i < n; i++) {
        if (ml_units_load(inputs[i], ps, &e) < 0) { /* as every loader lists inputs: RUN@SPAN too */
            fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
            ml_profiles_free(ps);
            return -1;
        }
    }
    ml_profiles_sort(ps);
    return 0;
}
