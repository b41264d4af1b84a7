/*
 * perf_cmd.c — the `memlens perf` command line: loads every input with its
 * time side (operators, kernels, steps) and prints the profiler views of
 * each rank as text (output/perf_views.c) or JSON: "runs" (output/perf_runs.c,
 * the documented fields) and "ranks" (output/perf.c, the web's perf object).
 */
#include "phase.h"
#include "cli.h"
#include "perf.h"
#include "perf_runs.h"
#include "perf_views.h"
#include "summary.h" /* MEMLENS_VERSION */
#include "textwidth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens perf [--json] [--view overview|operators|kernels|distributed|modules|critical-path|all]\n"
               "                    [--group-by name|shape] [--top N] [--rank N] INPUT...\n"
               "Where the time went, as TensorBoard's PyTorch profiler plugin shows it: the step time\n"
               "breakdown (kernel, memcpy, communication, runtime, DataLoader, CPU...), GPU utilization,\n"
               "recommendations, and the operators and kernels; from HolisticTraceAnalysis, frequent kernel\n"
               "sequences, CUPTI counters, stragglers and (--view critical-path) the critical path per step.\n"
               "INPUT: a Kineto trace (.json/.json.gz), an Ascend profiler folder, - for stdin, or a directory\n"
               "--view V: print only these views (repeat, or V,V); default: every view but the critical path,\n"
               "          tables cut to 10 rows; all: every view\n"
               "--group-by: operators by name (default) or by name and input shape\n"
               "--top N: rows of each table (text: 10 without --view, all with it; --json: all unless given)\n"
               "--json: {\"memlens\", \"inputs\", \"runs\": [...], \"meta\", \"ranks\"} (README, memlens perf)\n");
}

static int fail_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "memlens: perf: %s%s\n", msg, arg);
    usage_to(stderr);
    return 2;
}

int ml_cmd_perf(int argc, char **argv)
{
    bool json = false;
    int rank = -1, top = -1;
    unsigned views = 0;
    ml_perf_group group = ML_PERF_BY_NAME;
    VEC(const char *) inputs = {0};
    int rc = -1;
    for (int i = 0; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(stdout);
            rc = 0;
        } else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(argv[++i], &rank) < 0) rc = 2;
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (ml_cli_count("--top", argv[++i], 1, 1000000, "a number of rows (1 or more)", &top) < 0) rc = 2;
        } else if (!strcmp(a, "--group-by") && i + 1 < argc) {
            const char *g = argv[++i];
            if (!strcmp(g, "name")) group = ML_PERF_BY_NAME;
            else if (!strcmp(g, "shape")) group = ML_PERF_BY_SHAPE;
            else rc = fail_usage("--group-by takes name or shape, not ", g);
        } else if (!strcmp(a, "--view") && i + 1 < argc) {
            char list[256];
            snprintf(list, sizeof list, "%s", argv[++i]);
            for (char *save = NULL, *v = strtok_r(list, ",", &save); v && rc < 0; v = strtok_r(NULL, ",", &save)) {
                unsigned bit = ml_perf_view_parse(v);
                if (!bit) rc = fail_usage("--view takes overview, operators, kernels, distributed, modules, critical-path or all, not ", v);
                views |= bit;
            }
            if (!views && rc < 0) rc = fail_usage("--view needs a view name", "");
        } else if (a[0] == '-' && a[1]) rc = fail_usage("unknown option ", a);
        else VEC_PUSH(&inputs, a);
    }
    if (rc < 0 && !inputs.len) {
        usage_to(stderr);
        rc = 2;
    }
    if (rc >= 0) {
        VEC_FREE(&inputs);
        return rc;
    }
    ml_profiles ps = {0};
    ps.want |= ML_WANT_TRACE | ML_SKIP_CATEGORIES | ML_SKIP_OPS; /* perf shows no memory categories or attribution */
    int loaded = ml_cli_load(inputs.v, inputs.len, &ps);
    if (loaded < 0) {
        VEC_FREE(&inputs);
        return 2;
    }
    ml_err e = {{0}};
    if (rank >= 0 && ml_profiles_keep_rank(&ps, rank, &e) < 0) {
        fprintf(stderr, "memlens: %s\n", e.msg);
        VEC_FREE(&inputs);
        ml_profiles_free(&ps);
        return 2;
    }
    ml_distributed *dist = ml_distributed_compute(ps.items.v, ps.items.len); /* NULL unless distributed */
    size_t n = ps.items.len;
    ml_perf *perfs = calloc(n ? n : 1, sizeof *perfs);
    bool *ok = calloc(n ? n : 1, sizeof *ok);
    if (!perfs || !ok) {
        fprintf(stderr, "memlens: out of memory\n");
        exit(1);
    }
    for (size_t r = 0; r < n; r++) {
        ok[r] = ml_perf_compute(ps.items.v[r], &perfs[r]);
        /* the critical path costs more than the other views together: only when shown */
        if (ok[r] && (json || (views & ML_VIEW_CRITPATH))) ml_perf_want_critical_path(ps.items.v[r], &perfs[r]);
    }
    if (json) {
        jw w;
        jw_init(&w, stdout, true);
        jw_obj(&w);
        jw_key(&w, "memlens"); jw_str(&w, MEMLENS_VERSION);
        jw_key(&w, "inputs");
        jw_arr(&w);
        for (size_t i = 0; i < inputs.len; i++) jw_str(&w, inputs.v[i]);
        jw_end(&w);
        jw_key(&w, "runs");
        jw_arr(&w);
        for (size_t r = 0; r < n; r++)
            ml_perf_run_json(&w, ps.items.v[r], ok[r] ? &perfs[r] : NULL, group, top > 0 ? top : 0, dist);
        jw_end(&w);
        jw_key(&w, "meta");
        jw_arr(&w);
        for (size_t r = 0; r < n; r++) {
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
        for (size_t r = 0; r < n; r++) {
            if (ok[r]) ml_perf_json_write(&w, ps.items.v[r], &perfs[r], top > 0 ? top : 0, dist);
            else jw_null(&w);
        }
        jw_end(&w);
        jw_end(&w);
        fputc('\n', stdout);
    } else {
        ml_perf_view_opts o = {.views = views ? views : ML_VIEW_ALL,
                               .group = group,
                               .top = top > 0 ? top : views ? 0 : 10,
                               .width = ml_term_width(stdout)};
        /* the distributed view alone spans the ranks: no per-rank headings */
        bool dist_only = o.views == ML_VIEW_DISTRIBUTED;
        if (dist_only) ml_perf_distributed_text(stdout, dist, &o);
        for (size_t r = 0; r < n && !dist_only; r++) {
            const ml_profile *p = ps.items.v[r];
            if (r) fputc('\n', stdout);
            printf("== %s", p->path);
            if (p->rank >= 0) printf(" (rank %d)", p->rank);
            printf("\n");
            if (!ok[r]) {
                printf("no profiler views: %s\n", ml_perf_unavailable(p));
                continue;
            }
            /* the distributed table spans the ranks: after the last one */
            ml_perf_view_opts ro = o;
            if (r + 1 < n) ro.views &= ~(unsigned)ML_VIEW_DISTRIBUTED;
            ml_perf_views_text(stdout, p, &perfs[r], &ro, r + 1 == n ? dist : NULL);
        }
    }
    ml_phase("output");
    for (size_t r = 0; r < n; r++)
        if (ok[r]) ml_perf_free(&perfs[r]);
    free(perfs);
    free(ok);
    VEC_FREE(&inputs);
    if (dist) ml_distributed_free(dist);
    ml_profiles_free(&ps);
    ml_phase("free");
    return fflush(stdout) == 0 ? 0 : 1;
}
