/*
 * check_cmd.c — the `memlens check` command line: a CI gate.  Loads NEW (and
 * BASE, at once), compares them as `diff` does and judges each rule
 * (analysis/check.h).  Exit 0 when every rule holds, 1 when one is broken
 * (a FAIL line each), 2 on bad input: an unreadable side, mismatched ranks,
 * an unknown rule or a bad unit, a rule the runs have no figure for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_out.h"
#include "cli.h"
#include "job.h"
#include "phase.h"
#include "runpair.h"
#include "textwidth.h"

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens check NEW [--base BASE] RULE... [--json] [--junit FILE] [--rank N]\n"
               "A CI gate: exit 0 when every rule holds, 1 when one is broken (one FAIL line each, with\n"
               "the measured figure, the limit and the three biggest contributors), 2 on bad input.\n"
               "NEW and BASE may be a TensorBoard logdir's run (LOGDIR/RUN) or span (RUN@N, RUN@TIMESTAMP).\n"
               "Rules:\n"
               "  --max-peak SIZE              peak allocated memory of any accelerator (30GiB, 512MiB, 40GB);\n"
               "                               of the CPU in a run without accelerator memory (CPU only)\n"
               "  --max-reserved SIZE          peak reserved memory of any accelerator\n"
               "  --max-peak-growth PCT        peak allocated against BASE (5%%), the CPU's as --max-peak\n"
               "  --max-step-time DURATION     average step time (250ms, 1.5s)\n"
               "  --max-step-time-growth PCT   average step time against BASE (3%%)\n"
               "  --no-oom                     no out-of-memory event\n"
               "  --max-unused-reserved PCT    memory reserved but not allocated at the reserved peak (20%%)\n"
               "With --base, a NEW rank BASE lacks (or a rank number NEW holds twice) is still judged by\n"
               "the rules that need no base, and listed (a note line; --json \"unmatched\"; JUnit properties).\n"
               "--json: {\"memlens\", \"input\", \"base\", \"passed\", \"rules\": [...], \"unmatched\"} (README, memlens check)\n"
               "--junit FILE: JUnit XML, one test case per rule\n");
}

static int fail_usage(const ml_cli_io *io, const char *msg, const char *arg)
{
    fprintf(io->err, "memlens: check: %s%s\n", msg, arg);
    return 2;
}

/* Every rule judged on one pair of ranks (on a loading thread): the
 * results are folded in rank order afterwards (ml_check_fold).  A NEW rank
 * without a base partner (base NULL) is judged against itself by every rule
 * that needs no base: a rank BASE lacks can still run out of memory.  The
 * rules that need one are left unevaluated with no reason, so that the
 * fold keeps the reason of a real pair (the pairs come first). */
typedef struct judge_ctx {
    const ml_rule *rules;
    size_t nrules;
    bool has_base;
} judge_ctx;

static void *judge_pair(void *arg, const ml_diff_side *base, const ml_diff_side *nw)
{
    const judge_ctx *c = arg;
    ml_diff *d = ml_diff_compute(base ? base : nw, nw, NULL);
    ml_rule_result *res = ml_calloc(c->nrules, sizeof *res);
    for (size_t i = 0; i < c->nrules; i++) {
        if (!base && ml_rule_needs_base(c->rules[i].kind)) {
            res[i].rule = &c->rules[i];
            continue;
        }
        ml_check_eval(&c->rules[i], &d, 1, c->has_base && base, &res[i]);
    }
    ml_diff_free(d);
    return res;
}

/* Between processes of one binary (MPI): the results' bytes as they are,
 * each rule pointer made this process's again on the way back. */
static void pack_results(void *arg, const void *res, ml_bytes *out)
{
    const judge_ctx *c = arg;
    ml_bytes_put(out, res, c->nrules * sizeof(ml_rule_result));
}

static void *unpack_results(void *arg, ml_bytes_reader *in)
{
    const judge_ctx *c = arg;
    const void *p = ml_bytes_take(in, c->nrules * sizeof(ml_rule_result));
    if (!p) return NULL;
    ml_rule_result *res = ml_malloc(c->nrules * sizeof *res);
    memcpy(res, p, c->nrules * sizeof *res);
    for (size_t i = 0; i < c->nrules; i++) res[i].rule = &c->rules[i];
    return res;
}

int ml_cmd_check(int argc, char **argv, const ml_cli_io *io)
{
    ml_runpair_opts po = {.rank = -1}; /* no --top: a broken rule names ML_CHECK_TOP contributors */
    const char *base = NULL, *input = NULL, *junit = NULL;
    ml_rule *rules = ml_calloc((size_t)argc + 1, sizeof *rules);
    size_t nrules = 0;
    int rc = -1;
    for (int i = 0; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        int k, shared = ml_runpair_opt(argc, argv, &i, &po, io->err);
        if (shared < 0) rc = 2;
        else if (po.help) {
            usage_to(io->out);
            rc = 0;
        } else if (shared) continue;
        else if (!strcmp(a, "--base") && i + 1 < argc) base = argv[++i];
        else if (!strcmp(a, "--junit") && i + 1 < argc) junit = argv[++i];
        else if ((k = ml_rule_lookup(a)) >= 0) {
            const char *arg = NULL;
            if (ml_rule_takes_arg((ml_rule_kind)k)) {
                if (i + 1 >= argc) {
                    rc = fail_usage(io, a, ": expected a limit after it");
                    break;
                }
                arg = argv[++i];
            }
            ml_err e = {{0}};
            if (ml_rule_parse((ml_rule_kind)k, a, arg, &rules[nrules], &e) < 0) {
                fprintf(io->err, "memlens: check: %s\n", e.msg);
                rc = 2;
            } else nrules++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(io->err, "memlens: check: unknown option or rule %s (memlens check --help lists the rules)\n", a);
            rc = 2;
        } else if (!input) input = a;
        else {
            fprintf(io->err, "memlens: check: one input to check, then --base BASE; one more: %s\n", a);
            rc = 2;
        }
    }
    if (rc < 0 && !input) rc = fail_usage(io, "expected the input to check (memlens check NEW [--base BASE] RULE...)", "");
    /* both sides load at once: two readers of one pipe would each get part of it */
    if (rc < 0 && base && !strcmp(base, "-") && !strcmp(input, "-"))
        rc = fail_usage(io, "NEW and --base BASE are both standard input (-): one side at most can read it", "");
    if (rc < 0 && !nrules) rc = fail_usage(io, "no rule given (e.g. --max-peak 30GiB; memlens check --help lists them)", "");
    for (size_t i = 0; rc < 0 && i < nrules; i++)
        if (ml_rule_needs_base(rules[i].kind) && !base) {
            fprintf(io->err, "memlens: check: %s %s compares with a base run: give --base BASE\n", rules[i].option, rules[i].arg);
            rc = 2;
        }
    if (rc >= 0) {
        free(rules);
        return rc;
    }

    judge_ctx ctx = {rules, nrules, base != NULL};
    ml_pair_judge judge = {judge_pair, free, pack_results, unpack_results, &ctx, .alone = true};
    ml_runpair_results pr;
    int got = ml_runpair_each(base, input, (ml_needs){.time = true, .no_categories = true}, po.rank, &judge, &pr, io->err);
    if (got != 0) { /* 1: another process of memlens-mpi, which writes nothing */
        free(rules);
        return ml_job_exit(got < 0 ? 2 : 0);
    }
    ml_rule_result *res = ml_calloc(nrules, sizeof *res);
    bool failed = false, errors = false;
    for (size_t i = 0; i < nrules; i++) {
        for (size_t k = 0; k < pr.n; k++) ml_check_fold(&res[i], &((ml_rule_result *)pr.v[k])[i], k == 0);
        if (!res[i].evaluated) errors = true;
        else if (!res[i].passed) failed = true;
    }
    ml_phase("check: rules");
    ml_check_run run = {base, input, res, nrules, (const char *const *)pr.unmatched.v, pr.unmatched.len};
    if (po.json) ml_check_json(io->out, &run);
    else ml_check_text(io->out, &run);
    rc = errors ? 2 : failed ? 1 : 0;
    for (size_t i = 0; i < nrules; i++)
        if (!res[i].evaluated)
            fprintf(io->err, "memlens: check: %s%s%s cannot be checked on %s: %s\n", rules[i].option, rules[i].arg ? " " : "",
                    rules[i].arg ? rules[i].arg : "", input, res[i].why);
    if (junit) {
        ml_err e = {{0}};
        if (ml_check_junit(junit, &run, io->out, &e) != 0) {
            fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
            rc = 2;
        }
    }
    free(res);
    free(rules);
    ml_runpair_results_free(&pr, free);
    if (fflush(io->out) != 0 && rc == 0) rc = 1;
    return ml_job_exit(rc);
}
