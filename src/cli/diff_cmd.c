/*
 * diff_cmd.c — the `memlens diff` command line: loads BASE and NEW at once
 * (runpair.h), compares each pair of ranks (analysis/diff.h) and prints the
 * comparison as text or JSON (output/compare/), or writes the report with
 * its Compare view (-o FILE.html).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "phase.h"
#include "report.h"
#include "runpair.h"
#include "textwidth.h"

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens diff BASE NEW [--json] [--by toplevel|innermost|stack|frame|size|category]\n"
               "                    [--top N] [--rank N] [-o FILE.html [--budget MB]]\n"
               "Compares two runs: memory per device (peaks, reserved, the live set at the peak by group),\n"
               "the allocator state of two snapshots (segments only in one, settings that differ), and\n"
               "time (steps, the step breakdown, operators, runtime calls, kernels, memcpys and memsets by\n"
               "name over all profiler steps, the operator-tree diff).  BASE and NEW are any inputs memlens\n"
               "reads; two directories are compared rank by rank.  In a TensorBoard logdir, name a run\n"
               "(LOGDIR/RUN) or one span of it (LOGDIR/RUN@N, N from 1, or @TIMESTAMP from the file names).\n"
               "--json: {\"memlens\", \"base\", \"new\", \"pairs\": [...], \"unmatched\"} (README, memlens diff)\n"
               "--top N: rows of each table (text: 10; --json: all unless given)\n"
               "-o FILE.html: the report of both runs with its Compare view (key 8)\n"
               "--budget MB: with -o and several pairs of ranks, the page's size (default %d MB): the pairs\n"
               "  that changed most are embedded whole, the others summarised (the Compare view has all)\n",
            (int)(ML_REPORT_BUDGET / 1000000));
}

static int fail_usage(const ml_cli_io *io, const char *msg, const char *arg)
{
    fprintf(io->err, "memlens: diff: %s%s (memlens diff --help)\n", msg, arg);
    return 2;
}

/* What a side has, for the error of two runs with nothing in common. */
static void what_side_has(const ml_diff_side *x, char *buf, size_t cap)
{
    bool mem = ml_diff_has_memory(x->p);
    snprintf(buf, cap, "%s", mem && x->time ? "memory and time data" : mem ? "memory data only"
                             : x->time ? "time data only (no memory events)" : "neither memory nor time data");
}

static int nothing_in_common(const ml_cli_io *io, const char *const in[2], char why[2][64])
{
    fprintf(io->err, "memlens: %s and %s have nothing in common to compare: the first has %s, the second %s\n", in[0],
            in[1], why[0], why[1]);
    return 2;
}

/* -o FILE.html: the report reads every run, so both inputs are loaded whole. */
static int write_report(const ml_cli_io *io, const char *const in[2], ml_needs needs, int rank, const ml_diff_opts *dopt, const char *out,
                        int64_t budget)
{
    ml_runpair rp;
    if (ml_runpair_load(in[0], in[1], needs, rank, &rp, io->err) < 0) return 2;
    size_t n = rp.pairs.len;
    ml_diff **pairs = ml_calloc(n ? n : 1, sizeof *pairs);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        ml_diff_side a = ml_runpair_side(&rp, 0, rp.pairs.v[i].item[0]);
        ml_diff_side b = ml_runpair_side(&rp, 1, rp.pairs.v[i].item[1]);
        pairs[i] = ml_diff_compute(&a, &b, dopt);
        any |= !ml_diff_empty(pairs[i]);
    }
    ml_phase("diff: compare");
    int rc = 0;
    if (!any) {
        char why[2][64];
        for (int s = 0; s < 2; s++) what_side_has(&pairs[0]->side[s], why[s], sizeof why[s]);
        rc = nothing_in_common(io, in, why);
    } else {
        ml_compare c = {{in[0], in[1]}, pairs, n, (const char *const *)rp.unmatched.v, rp.unmatched.len};
        ml_err e = {{0}};
        if (ml_compare_report_write(&c, budget, out, io->out, &e) != 0) {
            fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
            rc = 2;
        }
    }
    for (size_t i = 0; i < n; i++) ml_diff_free(pairs[i]);
    free(pairs);
    ml_runpair_free(&rp);
    return rc;
}

/* Text and --json: each pair compared and written on a loading thread,
 * then freed (a job: a pair per core in memory, runpair_each.c). */
typedef struct piece_ctx {
    const ml_diff_opts *dopt;
    const ml_compare_opts *o;
    bool json;
} piece_ctx;

typedef struct diff_piece {
    ml_compare_piece piece;
    bool empty;             /* nothing compared (ml_diff_empty) */
    char why[2][64];        /* what each side has, then */
} diff_piece;

static void *compare_pair(void *arg, const ml_diff_side *a, const ml_diff_side *b)
{
    const piece_ctx *c = arg;
    ml_diff *d = ml_diff_compute(a, b, c->dopt);
    diff_piece *r = ml_calloc(1, sizeof *r);
    r->empty = ml_diff_empty(d);
    for (int s = 0; s < 2; s++) what_side_has(&d->side[s], r->why[s], sizeof r->why[s]);
    r->piece.rank = d->side[0].p->rank;
    if (c->json) { /* a piece of the document's "pairs" */
        ml_buf text = {0};
        ml_buf_put(&text, "", 0); /* a text even when empty, as a stream's */
        jw w;
        jw_init_buf(&w, &text, true);
        w.script_safe = false; /* standard output's, no page's */
        jw_enter(&w, 2, false);
        ml_compare_pair_json(&w, d, c->o);
        r->piece.text = text.p, r->piece.len = text.len;
    } else {
        FILE *f = open_memstream(&r->piece.text, &r->piece.len);
        if (!f) ml_fatal("out of memory (a comparison's text)");
        ml_compare_pair_text(f, d, c->o);
        fclose(f);
    }
    ml_diff_free(d);
    return r;
}

static void free_piece(void *p)
{
    diff_piece *r = p;
    free(r->piece.text);
    free(r);
}

static int write_pieces(const ml_cli_io *io, const char *const in[2], ml_needs needs, int rank, const ml_diff_opts *dopt,
                        const ml_compare_opts *o, bool json)
{
    piece_ctx ctx = {dopt, o, json};
    ml_pair_judge judge = {compare_pair, free_piece, NULL, NULL, &ctx, false}; /* diff runs on one process */
    ml_runpair_results pr;
    if (ml_runpair_each(in[0], in[1], needs, rank, &judge, &pr, io->err) != 0) return 2;
    ml_phase("diff: compare");
    bool any = false;
    ml_compare_piece *pieces = ml_calloc(pr.n ? pr.n : 1, sizeof *pieces);
    for (size_t i = 0; i < pr.n; i++) {
        const diff_piece *r = pr.v[i];
        any |= !r->empty;
        pieces[i] = r->piece;
    }
    int rc = 0;
    if (!any) {
        const diff_piece *first = pr.v[0];
        char why[2][64];
        memcpy(why, first->why, sizeof why);
        rc = nothing_in_common(io, in, why);
    } else {
        ml_compare_doc doc = {{in[0], in[1]}, pieces, pr.n, (const char *const *)pr.unmatched.v, pr.unmatched.len};
        if (json) ml_compare_json(io->out, &doc);
        else ml_compare_text(io->out, &doc);
    }
    free(pieces);
    ml_runpair_results_free(&pr, free_piece);
    return rc;
}

int ml_cmd_diff(int argc, char **argv, const ml_cli_io *io)
{
    int top = 0;
    ml_runpair_opts po = {.rank = -1, .top = &top};
    ml_diff_opts dopt = {0};
    const char *out = NULL, *in[2] = {NULL, NULL};
    int nin = 0, budget_mb = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int shared = ml_runpair_opt(argc, argv, &i, &po, io->err);
        if (shared < 0) return 2;
        if (po.help) {
            usage_to(io->out);
            return 0;
        }
        if (shared) continue;
        if (!strcmp(a, "--by") && i + 1 < argc) {
            int by = ml_group_by_parse(argv[++i]);
            if (by < 0) {
                fprintf(io->err, "memlens: --by %s: expected toplevel, innermost, stack, frame, size or category\n", argv[i]);
                return 2;
            }
            dopt.by = (ml_group_by)by;
            dopt.by_given = true;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--budget") && i + 1 < argc) {
            if (ml_cli_count(io->err, "--budget", argv[++i], 1, 1000000, "a size in MB (1 or more)", &budget_mb) < 0) return 2;
        }
        else if (a[0] == '-' && a[1]) return fail_usage(io, "unknown option ", a);
        else if (nin < 2) in[nin++] = a;
        else return fail_usage(io, "expected two inputs, BASE and NEW; one more: ", a);
    }
    if (nin < 2) return fail_usage(io, "expected two inputs, BASE and NEW", "");
    /* both sides load at once: two readers of one pipe would each get part of it */
    if (!strcmp(in[0], "-") && !strcmp(in[1], "-"))
        return fail_usage(io, "BASE and NEW are both standard input (-): one side at most can read it", "");
    if (out && po.json) return fail_usage(io, "--json and -o: choose one", "");
    if (budget_mb && !out) return fail_usage(io, "--budget sizes the page of -o FILE.html: give -o", "");

    /* The memory side as `summary --json` reads it (categories only for
     * --by category, or for the report); the time side as far as needed. */
    ml_needs needs = {.time = true, .no_categories = !out && !(dopt.by_given && dopt.by == ML_BY_CATEGORY)};
    ml_compare_opts o = {.top = top, .width = po.json ? 0 : ml_term_width(io->out)};
    int rc = out ? write_report(io, in, needs, po.rank, &dopt, out, (int64_t)budget_mb * 1000000) : write_pieces(io, in, needs, po.rank, &dopt, &o, po.json);
    ml_phase("output");
    if (rc) return rc;
    return fflush(io->out) == 0 ? 0 : 1;
}
