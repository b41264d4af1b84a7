/*
 * perf_cmd.c — the `memlens perf` command line: loads every input with its
 * time side (operators, kernels, steps) and prints the profiler views of
 * each rank (output/perf.c) as text or JSON.
 */
#include "cli.h"
#include "perf.h"
#include "summary.h" /* MEMLENS_VERSION */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens perf [--json] [--rank N] [--top N] INPUT...\n"
               "Where the time went, as TensorBoard's PyTorch profiler plugin shows it: the step time\n"
               "breakdown (kernel, memcpy, communication, runtime, DataLoader, CPU...), GPU utilization,\n"
               "recommendations, and the top operators and kernels.\n"
               "INPUT: a Kineto trace (.json/.json.gz), an Ascend profiler folder, - for stdin, or a directory\n"
               "--top N: rows of each table (text default 10; --json: all unless given)\n");
}

int ml_cmd_perf(int argc, char **argv)
{
    bool json = false;
    int rank = -1, top = -1;
    VEC(const char *) inputs = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(stdout);
            VEC_FREE(&inputs);
            return 0;
        }
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(argv[++i], &rank) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (ml_cli_count("--top", argv[++i], 1, 1000000, "a number of rows (1 or more)", &top) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "memlens: perf: unknown option %s\n", a);
            usage_to(stderr);
            VEC_FREE(&inputs);
            return 2;
        } else VEC_PUSH(&inputs, a);
    }
    if (!inputs.len) {
        usage_to(stderr);
        VEC_FREE(&inputs);
        return 2;
    }
    ml_profiles ps = {0};
    ps.want |= ML_WANT_TRACE;
    int loaded = ml_cli_load(inputs.v, inputs.len, &ps);
    VEC_FREE(&inputs);
    if (loaded < 0) return 2;
    ml_err e = {{0}};
    if (rank >= 0 && ml_profiles_keep_rank(&ps, rank, &e) < 0) {
        fprintf(stderr, "memlens: %s\n", e.msg);
        ml_profiles_free(&ps);
        return 2;
    }
    if (json) {
        jw w;
        jw_init(&w, stdout, true);
        jw_obj(&w);
        jw_key(&w, "memlens"); jw_str(&w, MEMLENS_VERSION);
        jw_key(&w, "meta");
        jw_arr(&w);
        for (size_t r = 0; r < ps.items.len; r++) {
            const ml_profile *p = ps.items.v[r];
            const char *why = ml_perf_unavailable(p);
            jw_obj(&w);
            jw_key(&w, "path"); jw_str(&w, p->path);
            jw_key(&w, "format"); jw_str(&w, p->format);
            jw_key(&w, "rank");
            if (p->rank >= 0) jw_i64(&w, p->rank);
            else jw_null(&w);
            jw_key(&w, "perfWhy");
            if (why) jw_str(&w, why);
            else jw_null(&w);
            jw_end(&w);
        }
        jw_end(&w);
        jw_key(&w, "ranks");
        jw_arr(&w);
        for (size_t r = 0; r < ps.items.len; r++) ml_perf_json_rank(&w, ps.items.v[r], top > 0 ? top : 0);
        jw_end(&w);
        jw_end(&w);
        fputc('\n', stdout);
    } else {
        for (size_t r = 0; r < ps.items.len; r++) {
            const ml_profile *p = ps.items.v[r];
            if (r) fputc('\n', stdout);
            printf("== %s", p->path);
            if (p->rank >= 0) printf(" (rank %d)", p->rank);
            printf("\n");
            ml_perf perf;
            if (!ml_perf_compute(p, &perf)) {
                printf("no profiler views: %s\n", ml_perf_unavailable(p));
                continue;
            }
            ml_perf_text(stdout, p, &perf, top > 0 ? top : 10);
            ml_perf_free(&perf);
        }
    }
    ml_profiles_free(&ps);
    return fflush(stdout) == 0 ? 0 : 1;
}
