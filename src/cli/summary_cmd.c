/*
 * summary_cmd.c — the `memlens summary` command line: parses options, loads
 * every input (file, "-" or directory of ranks) and prints the summary
 * (output/summary.c) as text or JSON.
 */
#include "cli.h"
#include "job.h"
#include "logdir_list.h"
#include "phase.h"
#include "summary.h"
#include "summary_ascend.h"
#include "textwidth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIPPED_SHOWN 10 /* skipped paths listed on io->err before "and N more" */

/* What directory walks passed over, on io->err: every path that could not be
 * read as a warning (a rank may be missing because of it), the others one line
 * each up to a cap; --json lists them all under "skipped". */
static void warn_skipped(FILE *f, const ml_job *job)
{
    size_t others = 0, shown = 0;
    for (size_t i = 0; i < job->skipped.len; i++)
        if (ml_skipped_unreadable(job->skipped.v[i])) fprintf(f, "memlens: warning: %s\n", ML_TEXT_SAFE(job->skipped.v[i]));
    for (size_t i = 0; i < job->skipped.len; i++) {
        if (ml_skipped_unreadable(job->skipped.v[i])) continue;
        if (others++ < SKIPPED_SHOWN) {
            fprintf(f, "memlens: skipped %s\n", ML_TEXT_SAFE(job->skipped.v[i]));
            shown++;
        }
    }
    if (others > shown) fprintf(f, "memlens: and %zu more skipped (--json lists them)\n", others - shown);
}

static void rank_pieces(void *arg, const ml_profile *p, ml_peak_memo *memo, ml_rankrec *r, ml_spool *s)
{
    ml_summary_rank_pieces(p, memo, r, s, arg);
}

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens summary [--json] [--by toplevel|innermost|stack|frame|size|category] [--top N] [--all]\n"
               "                       [--group-by component|stream|overall] [--rank N] [-j N] INPUT...\n"
               "INPUT: a file, - for stdin, or a directory (every profile below it becomes a rank)\n"
               "--all: every rank's section (a job of more than %d ranks gets the cluster digest instead)\n"
               "-j N: ranks read at once (default: one per core)\n"
               "--by: how the live set at the peak is grouped; default toplevel (the outermost operator),\n"
               "      or frame (the first user frame of the stack) for inputs without operators (snapshots)\n",
            ML_SUMMARY_DETAIL_RANKS);
}

static int usage(const ml_cli_io *io)
{
    usage_to(io->err);
    return 2;
}

int ml_cmd_summary(int argc, char **argv, const ml_cli_io *io)
{
    ml_summary_opts o = {.by = ML_BY_TOPLEVEL, .top = 10, .curves_by = ML_CURVES_COMPONENT, .rank = -1};
    int jobs = 0;
    VEC(const char *) inputs = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(io->out);
            VEC_FREE(&inputs);
            return 0;
        }
        if (!strcmp(a, "--json")) o.json = true;
        else if (!strcmp(a, "-j") && i + 1 < argc) {
            if (ml_job_parse_jobs(io->err, argv[++i], &jobs) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        }
        else if (!strcmp(a, "--all")) o.all = true;
        else if (!strcmp(a, "--by") && i + 1 < argc) {
            int by = ml_group_by_parse(argv[++i]);
            if (by < 0) {
                fprintf(io->err, "memlens: --by %s: expected toplevel, innermost, stack, frame, size or category\n", argv[i]);
                VEC_FREE(&inputs);
                return 2;
            }
            o.by = (ml_group_by)by;
            o.by_given = true;
        } else if (!strcmp(a, "--group-by") && i + 1 < argc) {
            o.curves_by = ml_curves_by_parse(argv[++i]);
            if (o.curves_by < 0) {
                fprintf(io->err, "memlens: --group-by %s: expected component, stream or overall\n", argv[i]);
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(io->err, argv[++i], &o.rank) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (ml_cli_count(io->err, "--top", argv[++i], 1, 1000000, "a number of groups (1 or more)", &o.top) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(io->err, "memlens: summary: unknown option %s\n", a);
            VEC_FREE(&inputs);
            return usage(io);
        } else VEC_PUSH(&inputs, a);
    }
    if (!inputs.len) {
        VEC_FREE(&inputs);
        return usage(io);
    }
    /* Plain text shows no categories (--json has categories_at_peak): ~5% of a trace's load time.
     * Either way the summary reads only what lean storage keeps (and ml_categorize() with it). */
    ml_needs needs = {.lean = true, .no_categories = !o.json && o.by != ML_BY_CATEGORY};
    ml_job_opts jo = {.err = io->err, .needs = needs, .jobs = jobs, .fn = rank_pieces, .arg = &o, .lists_logdir = true};
    ml_job job;
    int rc = ml_job_run(inputs.v, inputs.len, &jo, &job);
    const char *logdir = rc == 0 && job.units.logdir >= 0 ? inputs.v[job.units.logdir] : NULL; /* argv's */
    VEC_FREE(&inputs);
    if (rc != 0) {
        ml_job_free(&job);
        return ml_job_exit(rc < 0 ? 2 : 0);
    }
    warn_skipped(io->err, &job);
    if (o.rank >= 0 && ml_job_keep_rank(&job, o.rank, io->err) < 0) {
        ml_job_free(&job);
        return ml_job_exit(2);
    }
    ml_rankset rs = {job.recs, job.n, job.spool, job.skipped.v, job.skipped.len};
    if (logdir && o.json) ml_logdir_list_json(io->out, &job.units, logdir, job.recs, job.n, "summary");
    else if (logdir) ml_logdir_list_text(io->out, &job.units, logdir, job.recs, job.n, "summary"); /* its runs */
    else if (o.json) ml_summary_json(io->out, &rs, &o);
    else ml_summary_text(io->out, &rs, &o);
    ml_phase("output");
    ml_job_free(&job);
    ml_phase("free");
    return ml_job_exit(fflush(io->out) == 0 ? 0 : 1);
}
