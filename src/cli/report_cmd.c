/*
 * report_cmd.c — the `memlens report` command line: loads every input (each
 * a file, "-" or a directory of ranks) and writes the HTML report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "textwidth.h"
#include "cli.h"
#include "perf.h"
#include "report.h"
#include "report_segments.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: memlens report INPUT... -o FILE.html [--max-allocs N] [--max-history N] [--top N]\n"
               "  Writes one self-contained HTML file (works offline; -o - writes it to\n"
               "  standard output) with memory curves,\n"
               "  the allocation timeline, the breakdown at the peak and tables.\n"
               "  --max-allocs N   allocations drawn per device (default %d); beyond it the\n"
               "                   page keeps those live at the peak and the largest, and says\n"
               "                   how many were summarised\n"
               "  --max-history N  a CUDA allocator snapshot's Allocator State History and\n"
               "                   segment timeline replay its last N allocator events per\n"
               "                   device (default %d, PyTorch's own default); the memory\n"
               "                   curves always cover the whole trace\n"
               "  --top N          rows of each operator and kernel table (default %d); the\n"
               "                   rest are added up in an \"others\" line\n",
            ML_REPORT_MAX_ALLOCS, ML_REPORT_MAX_HISTORY, ML_PERF_TOP_DEFAULT);
}

int ml_cmd_report(int argc, char **argv)
{
    const char *out = NULL;
    ml_report_opts o = {0};
    const char **inputs = ml_calloc((size_t)argc + 1, sizeof *inputs);
    size_t n = 0;
    for (int i = 0; i < argc; i++) { /* argv[0] is the first argument after `report` */
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--max-allocs") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v <= 0) { fprintf(stderr, "memlens report: --max-allocs wants a positive number\n"); free(inputs); return 2; }
            o.max_allocs = (size_t)v;
        } else if (!strcmp(a, "--max-history") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v <= 0) { fprintf(stderr, "memlens report: --max-history wants a positive number\n"); free(inputs); return 2; }
            o.max_history = (size_t)v;
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v <= 0 || v > 100000000) { fprintf(stderr, "memlens report: --top wants a number of rows (1 or more)\n"); free(inputs); return 2; }
            o.top = (int)v;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); free(inputs); return 0; }
        else if (a[0] == '-' && a[1]) { fprintf(stderr, "memlens report: unknown option %s\n", a); usage(stderr); free(inputs); return 2; }
        else inputs[n++] = a;
    }
    if (!n || !out) { usage(stderr); free(inputs); return 2; }

    ml_profiles ps = { .want = ML_WANT_TRACE }; /* the Trace view and the perf object of each rank read p->trace */
    ml_err e = {{0}};
    if (ml_cli_load(inputs, n, &ps) < 0) {
        free(inputs);
        return 2;
    }
    o.inputs = inputs;
    o.n_inputs = n;
    int rc = ml_report_write(&ps, &o, out, &e);
    if (rc != 0) fprintf(stderr, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
    ml_profiles_free(&ps);
    free(inputs);
    return rc ? 2 : 0;
}
