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
#include "job.h"
#include "transport.h"
#include "perf.h"
#include "phase.h"
#include "report.h"
#include "report_segments.h"

/* What the report reads of a rank it shows: everything, the time side too
 * (the Trace view and the perf object read p->trace).  The job's first
 * pass, which only makes each rank's record, reads less
 * (ML_NEEDS_RANK_RECORD). */
static const ml_needs report_needs = {.time = true};

/* A rank of the job loaded again, with all the report shows (report_job.c). */
static ml_profile *load_rank(void *arg, const ml_rankrec *r, ml_err *e)
{
    const ml_job *job = arg;
    const ml_unit *u = &job->units.units.v[r->unit];
    ml_profiles ps = {.needs = report_needs};
    if (ml_load_unit(u->path, u->listed, &ps, e) != 0) return NULL;
    ml_profiles_sort(&ps);
    ml_profile *p = NULL;
    for (size_t k = 0; k < ps.items.len; k++) {
        if (k == r->unit_k) p = ps.items.v[k];
        else ml_profile_free(ps.items.v[k]);
    }
    ps.items.len = 0;
    ml_profiles_free(&ps);
    if (!p) ml_fail(e, "%s: changed since it was read", u->path);
    return p;
}

static void unload_rank(void *arg, ml_profile *p)
{
    (void)arg;
    ml_profile_free(p);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: memlens report INPUT... -o FILE.html [--max-allocs N] [--max-history N] [--top N]\n"
               "                      [--budget MB] [--rank N] [-j N]\n"
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
               "                   rest are added up in an \"others\" line\n"
               "  --budget MB      a job of several ranks: the page's size (default %d MB);\n"
               "                   the ranks that matter (outliers, the highest peak) are\n"
               "                   embedded whole while it lasts, the others summarised in\n"
               "                   the Cluster view\n"
               "  --rank N         only that rank of a directory\n"
               "  -j N             ranks read at once (default: one per core)\n",
            ML_REPORT_MAX_ALLOCS, ML_REPORT_MAX_HISTORY, ML_PERF_TOP_DEFAULT, (int)(ML_REPORT_BUDGET / 1000000));
}

int ml_cmd_report(int argc, char **argv, const ml_cli_io *io)
{
    const char *out = NULL;
    ml_report_opts o = {.std_out = io->out};
    int jobs = 0, rank = -1, budget_mb = 0;
    const char **inputs = ml_calloc((size_t)argc + 1, sizeof *inputs);
    size_t n = 0;
    for (int i = 0; i < argc; i++) { /* argv[0] is the first argument after `report` */
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--max-allocs") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v <= 0) { fprintf(io->err, "memlens report: --max-allocs wants a positive number\n"); free(inputs); return 2; }
            o.max_allocs = (size_t)v;
        } else if (!strcmp(a, "--max-history") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v <= 0) { fprintf(io->err, "memlens report: --max-history wants a positive number\n"); free(inputs); return 2; }
            o.max_history = (size_t)v;
        } else if (!strcmp(a, "--budget") && i + 1 < argc) {
            if (ml_cli_count(io->err, "--budget", argv[++i], 1, 1000000, "a size in MB (1 or more)", &budget_mb) < 0) { free(inputs); return 2; }
        } else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(io->err, argv[++i], &rank) < 0) { free(inputs); return 2; }
        } else if (!strcmp(a, "-j") && i + 1 < argc) {
            if (ml_job_parse_jobs(io->err, argv[++i], &jobs) < 0) { free(inputs); return 2; }
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (ml_cli_count(io->err, "--top", argv[++i], 1, 100000000, "a number of rows (1 or more)", &o.top) < 0) { free(inputs); return 2; }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(io->out); free(inputs); return 0; }
        else if (a[0] == '-' && a[1]) { fprintf(io->err, "memlens report: unknown option %s\n", a); usage(io->err); free(inputs); return 2; }
        else inputs[n++] = a;
    }
    if (!n || !out) {
        fprintf(io->err, "memlens report: %s\n", !n ? "no INPUT given" : "no output file: give -o FILE.html (or -o - for standard output)");
        usage(io->err);
        free(inputs);
        return 2;
    }
    o.inputs = inputs;
    o.n_inputs = n;
    ml_err e = {{0}};

    /* one input file: the report of its rank(s), read once */
    ml_unit_list ul = {0};
    bool one = !ml_transport_now && rank < 0 && ml_units_list(inputs, n, &ul, &e) == 0 && ul.units.len == 1;
    ml_unit_list_free(&ul);
    if (one) {
        ml_profiles ps = {.needs = report_needs};
        if (ml_cli_load(inputs, n, &ps, io->err) < 0) {
            free(inputs);
            return 2;
        }
        int rc = ml_report_write(&ps, &o, out, &e);
        if (rc != 0) fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
        ml_profiles_free(&ps);
        ml_phase("free");
        free(inputs);
        return rc ? 2 : 0;
    }

    /* a job: every rank's record (on every process, under MPI), then the
     * report from process 0, the ranks that matter read again */
    ml_job job;
    ml_job_opts jo = {.err = io->err, .needs = ML_NEEDS_RANK_RECORD, .jobs = jobs};
    int rc = ml_job_run(inputs, n, &jo, &job);
    if (rc != 0) {
        ml_job_free(&job);
        free(inputs);
        return ml_job_exit(rc < 0 ? 2 : 0);
    }
    if (rank >= 0 && ml_job_keep_rank(&job, rank, io->err) < 0) {
        ml_job_free(&job);
        free(inputs);
        return ml_job_exit(2);
    }
    ml_rankset rs = {job.recs, job.n, job.spool, job.skipped.v, job.skipped.len};
    ml_report_job_opts jro = {.base = o, .budget = (int64_t)budget_mb * 1000000, .load = load_rank,
                              .unload = unload_rank, .load_arg = &job, .units = &job.units};
    rc = ml_report_job_write(&rs, &jro, out, &e);
    if (rc != 0) fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
    ml_job_free(&job);
    free(inputs);
    return ml_job_exit(rc ? 2 : 0);
}
