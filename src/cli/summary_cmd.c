/*
 * summary_cmd.c — the `memlens summary` command line: parses options, loads
 * every input (file, "-" or directory of ranks) and prints the summary
 * (output/summary.c) as text or JSON.
 */
#include "textwidth.h"
#include "cli.h"
#include "phase.h"
#include "summary.h"
#include "summary_ascend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIPPED_SHOWN 10 /* skipped paths listed on stderr before "and N more" */

/* What directory walks passed over, on stderr: every path that could not be
 * read as a warning (a rank may be missing because of it), the others one line
 * each up to a cap; --json lists them all under "skipped". */
static void warn_skipped(FILE *f, const ml_profiles *ps)
{
    size_t others = 0, shown = 0;
    for (size_t i = 0; i < ps->skipped.len; i++)
        if (ml_skipped_unreadable(ps->skipped.v[i])) fprintf(f, "memlens: warning: %s\n", ML_TEXT_SAFE(ps->skipped.v[i]));
    for (size_t i = 0; i < ps->skipped.len; i++) {
        if (ml_skipped_unreadable(ps->skipped.v[i])) continue;
        if (others++ < SKIPPED_SHOWN) {
            fprintf(f, "memlens: skipped %s\n", ML_TEXT_SAFE(ps->skipped.v[i]));
            shown++;
        }
    }
    if (others > shown) fprintf(f, "memlens: and %zu more skipped (--json lists them)\n", others - shown);
}

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens summary [--json] [--by toplevel|innermost|stack|frame|size|category] [--top N] [--all]\n"
               "                       [--group-by component|stream|overall] [--rank N] INPUT...\n"
               "INPUT: a file, - for stdin, or a directory (every profile below it becomes a rank)\n"
               "--by: how the live set at the peak is grouped; default toplevel (the outermost operator),\n"
               "      or frame (the first user frame of the stack) for inputs without operators (snapshots)\n");
}

static int usage(void)
{
    usage_to(stderr);
    return 2;
}

int ml_cmd_summary(int argc, char **argv)
{
    ml_summary_opts o = {.by = ML_BY_TOPLEVEL, .top = 10, .curves_by = ML_CURVES_COMPONENT, .rank = -1};
    VEC(const char *) inputs = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(stdout);
            VEC_FREE(&inputs);
            return 0;
        }
        if (!strcmp(a, "--json")) o.json = true;
        else if (!strcmp(a, "--all")) o.all = true;
        else if (!strcmp(a, "--by") && i + 1 < argc) {
            int by = ml_group_by_parse(argv[++i]);
            if (by < 0) {
                fprintf(stderr, "memlens: --by %s: expected toplevel, innermost, stack, frame, size or category\n", argv[i]);
                VEC_FREE(&inputs);
                return 2;
            }
            o.by = (ml_group_by)by;
            o.by_given = true;
        } else if (!strcmp(a, "--group-by") && i + 1 < argc) {
            o.curves_by = ml_curves_by_parse(argv[++i]);
            if (o.curves_by < 0) {
                fprintf(stderr, "memlens: --group-by %s: expected component, stream or overall\n", argv[i]);
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(argv[++i], &o.rank) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (ml_cli_count("--top", argv[++i], 1, 1000000, "a number of groups (1 or more)", &o.top) < 0) {
                VEC_FREE(&inputs);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "memlens: summary: unknown option %s\n", a);
            VEC_FREE(&inputs);
            return usage();
        } else VEC_PUSH(&inputs, a);
    }
    if (!inputs.len) {
        VEC_FREE(&inputs);
        return usage();
    }
    ml_profiles ps = {0};
    /* Plain text shows no categories (--json has categories_at_peak): ~5% of a trace's load time.
     * Either way the summary reads only what lean storage keeps (and ml_categorize() with it). */
    ps.want |= ML_LEAN;
    if (!o.json && o.by != ML_BY_CATEGORY) ps.want |= ML_SKIP_CATEGORIES;
    ml_err e = {{0}};
    int loaded = ml_cli_load(inputs.v, inputs.len, &ps);
    VEC_FREE(&inputs);
    if (loaded < 0) return 2;
    warn_skipped(stderr, &ps);
    if (o.rank >= 0 && ml_profiles_keep_rank(&ps, o.rank, &e) < 0) {
        fprintf(stderr, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
        ml_profiles_free(&ps);
        return 2;
    }
    if (o.json) ml_summary_json(stdout, &ps, &o);
    else ml_summary_text(stdout, &ps, &o);
    ml_phase("output");
    ml_profiles_free(&ps);
    ml_phase("free");
    return fflush(stdout) == 0 ? 0 : 1;
}
