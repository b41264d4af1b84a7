/*
 * dispatch.c — the memlens command line: dispatches to the subcommands
 * (main.c's and, under MPI, src/par/mpi.c's main call it).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "phase.h"
#include "textwidth.h" /* ML_TEXT_SAFE: names as typed, control bytes escaped */
#include "summary.h" /* MEMLENS_VERSION */

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv, const ml_cli_io *io);
    const char *help;
} command;

static const command commands[] = {
    {"summary", ml_cmd_summary, "peaks, counts and the live set at the peak, per rank and device"},
    {"perf", ml_cmd_perf, "where the time went: step breakdown, GPU utilization, top operators and kernels"},
    {"report", ml_cmd_report, "one self-contained interactive HTML file (-o FILE.html)"},
    {"serve", ml_cmd_serve, "the same UI live from a local server (http://127.0.0.1:8000/)"},
    {"snapshot", ml_cmd_snapshot, "CUDA allocator snapshots: 'segments' (fill, holes) or 'trace' (actions)"},
    {"diff", ml_cmd_diff, "compare two runs: memory, allocator state, steps, operators and kernels (-o FILE.html)"},
    {"check", ml_cmd_check, "a CI gate: rules on one run or against a base (--max-peak 30GiB, --max-peak-growth 5%)"},
    {"export", ml_cmd_export, "allocations and memory categories as PyTorch memory timeline, Perfetto trace or CSV"},
};

static void usage(FILE *f)
{
    fprintf(f, "memlens %s — where did the accelerator memory go?\n\nusage: memlens COMMAND [options] INPUT...\n\n",
            MEMLENS_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nINPUT is a PyTorch/Kineto trace (.json or .json.gz), a CUDA allocator snapshot (.pickle),\n"
               "a PyTorch memory timeline (.json, .raw.json.gz), Ascend profiler output (CSV or .db),\n"
               "- for stdin, or a directory: every profile below it (e.g. *_ascend_pt folders) is\n"
               "loaded as a rank.  The format is told by content, plain or gzip.\n"
               "Options take their value as '--top 3' or '--top=3'.\n"
               "Run 'memlens help COMMAND' (or 'memlens COMMAND --help') for a command's options.\n"
               "\nExit status:\n"
               "  0  done; also when the reader of standard output stops early (| head)\n"
               "  1  a check rule is broken, or standard output could not be written\n"
               "  2  bad options or input, or an output file (-o) that could not be written\n"
               "  3  out of memory\n");
}

/* Long options that take no value: "--json=yes" is refused instead of
 * becoming "--json" and an input named "yes". */
static const char *const flags[] = {"--json", "--all", "--open", "--no-oom", "--help", "--version"};

/* "--opt=value" as "--opt" "value", the form every command parses, up to a
 * "--" (after which nothing is an option).  Returns the new argument vector
 * (its strings point into argv or into one block, freed with it in *block),
 * or NULL after printing why a flag was given a value. */
static char **split_values(FILE *err, int argc, char **argv, int *out_argc, char **block)
{
    size_t len = 0;
    int extra = 0;
    for (int i = 0; i < argc && strcmp(argv[i], "--"); i++) {
        const char *eq = strncmp(argv[i], "--", 2) ? NULL : strchr(argv[i], '=');
        if (!eq) continue;
        for (size_t f = 0; f < sizeof flags / sizeof *flags; f++)
            if (strlen(flags[f]) == (size_t)(eq - argv[i]) && !strncmp(argv[i], flags[f], (size_t)(eq - argv[i]))) {
                fprintf(err, "memlens: %s takes no value (%s)\n", flags[f], ML_TEXT_SAFE(argv[i]));
                return NULL;
            }
        extra++;
        len += strlen(argv[i]) + 1;
    }
    char **v = ml_calloc((size_t)(argc + extra + 1), sizeof *v);
    char *b = ml_malloc(len + 1);
    int n = 0, literal = 0;
    char *w = b;
    for (int i = 0; i < argc; i++) {
        const char *eq = literal || strncmp(argv[i], "--", 2) ? NULL : strchr(argv[i], '=');
        if (!strcmp(argv[i], "--")) literal = 1;
        if (!eq) {
            v[n++] = argv[i];
            continue;
        }
        size_t k = strlen(argv[i]) + 1;
        memcpy(w, argv[i], k);
        w[eq - argv[i]] = '\0';
        v[n++] = w;
        v[n++] = w + (eq - argv[i]) + 1;
        w += k;
    }
    *out_argc = n;
    *block = b;
    return v;
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(name, commands[i].name)) return &commands[i];
    return NULL;
}

int ml_cli_main(int argc, char **argv)
{
    /* Columns grow to hundreds of MiB by doubling.  A fixed mmap threshold
     * keeps every large block in its own mapping, so realloc moves no bytes
     * (mremap) and free gives the pages back; glibc's default raises the
     * threshold after the first such free, after which freed columns (the
     * second half of a file, read on its own thread and arena) stay
     * resident: 155 MiB instead of 127 MiB peak RSS on a 400 MB trace.
     * The program's choice for its process: ml_cli_run, which an embedder
     * calls, leaves the embedding process's allocator as it is. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    ml_cli_io io = {stdout, stderr};
    return ml_cli_run(argc, argv, &io);
}

int ml_cli_run(int argc, char **argv, const ml_cli_io *io)
{
    ml_phase("start");
    if (argc < 2) {
        usage(io->err);
        return 2;
    }
    /* memlens help [COMMAND]: that command's --help, or this list */
    if (!strcmp(argv[1], "help") && argc > 2) {
        const command *c = find(argv[2]);
        if (!c) {
            fprintf(io->err, "memlens: help %s: no such command\n", ML_TEXT_SAFE(argv[2]));
            usage(io->err);
            return 2;
        }
        char help[] = "--help", *hv[] = {help, NULL};
        return c->run(1, hv, io);
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(io->out);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        fprintf(io->out, "memlens %s\n", MEMLENS_VERSION);
        return 0;
    }
    const command *c = find(argv[1]);
    if (!c) {
        fprintf(io->err, "memlens: unknown command '%s'\n", ML_TEXT_SAFE(argv[1]));
        usage(io->err);
        return 2;
    }
    int n;
    char *block = NULL, **v = split_values(io->err, argc - 2, argv + 2, &n, &block);
    if (!v) return 2;
    int rc = c->run(n, v, io);
    free(v);
    free(block);
    return rc;
}
