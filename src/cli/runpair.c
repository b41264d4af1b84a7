/*
 * runpair.c — both sides of a comparison, loaded at once (see runpair.h).
 */
#include "textwidth.h"
#include "runpair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "par.h"
#include "phase.h"

int ml_runpair_opt(int argc, char **argv, int *i, ml_runpair_opts *o, FILE *err)
{
    const char *a = argv[*i];
    bool value = *i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) o->help = true;
    else if (!strcmp(a, "--json")) o->json = true;
    else if (!strcmp(a, "--rank") && value) return ml_cli_rank(err, argv[++*i], &o->rank) < 0 ? -1 : 1;
    else if (!strcmp(a, "--top") && value && o->top)
        return ml_cli_count(err, "--top", argv[++*i], 1, 1000000, "a number of rows (1 or more)", o->top) < 0 ? -1 : 1;
    else return 0;
    return 1;
}

typedef struct load_job {
    ml_run_side *side;
    int rank;
    int rc;
    ml_err e;
} load_job;

/* The memory side's operator intervals (p->ops, a second copy of the trace's
 * host slices) are read by ml_attribute() and ml_categorize() as the profile
 * loads; after that a comparison reads only what they wrote in allocs (and,
 * for traces without addresses, unmatched.c reads them again: kept then).
 * Dropped, they make two 400 MB traces cost 2x the memory of one.  The
 * report reads them (and --by category keeps them: harmless). */
static void drop_ops(ml_profile *p)
{
    if (!p->has_addresses) return;
    VEC_FREE(&p->ops.ts);
    VEC_FREE(&p->ops.dur);
    VEC_FREE(&p->ops.name);
    VEC_FREE(&p->ops.thread);
    VEC_FREE(&p->ops.kind);
}

bool ml_runpair_prepare(ml_profile *p, const ml_needs *needs, ml_diff_time *t)
{
    if (needs->no_categories) drop_ops(p);
    return ml_diff_time_compute(p, t);
}

/* One side, on its own thread: load, keep the rank, analyse each profile.
 * ml_load() keeps no state outside the profiles it makes (the server's rank
 * workers call it at once too): two at once were checked under
 * ThreadSanitizer with traces split across threads, gzip, snapshots and
 * Ascend CSV and SQLite folders (none reported). */
static void load_side(void *arg)
{
    load_job *j = arg;
    ml_run_side *s = j->side;
    j->rc = ml_units_load(s->input, &s->ps, &j->e); /* RUN@SPAN too; a logdir of several runs refused */
    if (j->rc < 0) return;
    ml_profiles_sort(&s->ps);
    if (j->rank >= 0 && ml_profiles_keep_rank(&s->ps, j->rank, &j->e) < 0) {
        ml_prefix(&j->e, "%s", s->input); /* "INPUT: --rank N: ..." */
        j->rc = -1;
        return;
    }
    size_t n = s->ps.items.len;
    s->time = ml_calloc(n ? n : 1, sizeof *s->time);
    s->has_time = ml_calloc(n ? n : 1, sizeof *s->has_time);
    for (size_t k = 0; k < n; k++) s->has_time[k] = ml_runpair_prepare(s->ps.items.v[k], &s->ps.needs, &s->time[k]);
}

static bool all_ranked(const int *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (r[i] < 0) return false;
    return true;
}

static void ranks_text(const int *r, size_t n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && used + 16 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%d", i ? ", " : "", r[i]);
}

int ml_pair_ranks(const int *const r[2], const size_t n[2], const char *const in[2], ml_run_pairs *pairs,
                  ml_run_pairs *alone, ml_notes *unmatched, FILE *err)
{
    for (int s = 0; s < 2; s++)
        if (!n[s]) {
            fprintf(err, "memlens: %s: no profile found\n", in[s]);
            return -1;
        }
    if (n[0] == 1 && n[1] == 1) {
        VEC_PUSH(pairs, ((ml_run_pair){{0, 0}}));
        return 0;
    }
    for (int s = 0; s < 2; s++)
        if (!all_ranked(r[s], n[s])) {
            fprintf(err, "memlens: mismatched ranks: %s holds %zu profiles, some without a rank number, "
                            "so they cannot be paired with %s's (--rank N picks one)\n", in[s], n[s], in[!s]);
            return -1;
        }
    size_t i = 0, j = 0; /* both sorted by rank */
    while (i < n[0] || j < n[1]) {
        int r0 = i < n[0] ? r[0][i] : -1, r1 = j < n[1] ? r[1][j] : -1;
        if (i < n[0] && j < n[1] && r0 == r1) {
            VEC_PUSH(pairs, ((ml_run_pair){{i, j}}));
            i++, j++;
            continue;
        }
        char buf[256];
        bool base_only = j >= n[1] || (i < n[0] && r0 < r1);
        /* a rank number a side holds twice: its second profile has no partner */
        bool again = base_only ? i > 0 && r[0][i - 1] == r0 : j > 0 && r[1][j - 1] == r1;
        /* with `alone` (check) a NEW rank is judged all the same, a BASE one is not */
        const char *then = !alone ? "" : base_only ? ": not judged" : ": judged by the rules that need no base";
        snprintf(buf, sizeof buf, "rank %d %s in %s%s", base_only ? r0 : r1, again ? "twice" : "only", in[!base_only], then);
        VEC_PUSH(unmatched, ml_strdup(buf));
        if (!base_only && alone) VEC_PUSH(alone, ((ml_run_pair){{ML_NO_BASE, j}}));
        if (base_only) i++;
        else j++;
    }
    if (!pairs->len) {
        char a[200], b[200];
        ranks_text(r[0], n[0], a, sizeof a);
        ranks_text(r[1], n[1], b, sizeof b);
        fprintf(err, "memlens: mismatched ranks: %s has rank%s %s, %s has rank%s %s: none in common\n", in[0],
                n[0] > 1 ? "s" : "", a, in[1], n[1] > 1 ? "s" : "", b);
        return -1;
    }
    return 0;
}

static int *ranks_of(const ml_profiles *ps)
{
    int *r = ml_malloc((ps->items.len ? ps->items.len : 1) * sizeof *r);
    for (size_t i = 0; i < ps->items.len; i++) r[i] = ps->items.v[i]->rank;
    return r;
}

static int pair_profiles(ml_runpair *rp, FILE *err)
{
    const int *r[2] = {ranks_of(&rp->side[0].ps), ranks_of(&rp->side[1].ps)};
    const size_t n[2] = {rp->side[0].ps.items.len, rp->side[1].ps.items.len};
    const char *const in[2] = {rp->side[0].input, rp->side[1].input};
    int rc = ml_pair_ranks(r, n, in, &rp->pairs, &rp->alone, &rp->unmatched, err);
    free((void *)r[0]);
    free((void *)r[1]);
    return rc;
}

int ml_runpair_load(const char *base, const char *nw, ml_needs needs, int rank, ml_runpair *out, FILE *err)
{
    memset(out, 0, sizeof *out);
    out->side[0].input = base;
    out->side[1].input = nw;
    out->side[0].ps.needs = out->side[1].ps.needs = needs;
    load_job jobs[2] = {{&out->side[0], rank, 0, {{0}}}, {&out->side[1], rank, 0, {{0}}}};
    if (!base) {
        out->single = true;
        load_side(&jobs[1]);
        if (jobs[1].rc < 0) {
            fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(jobs[1].e.msg));
            ml_runpair_free(out);
            return -1;
        }
        for (size_t k = 0; k < out->side[1].ps.items.len; k++) VEC_PUSH(&out->pairs, ((ml_run_pair){{k, k}}));
        if (!out->pairs.len) {
            fprintf(err, "memlens: %s: no profile found\n", nw);
            ml_runpair_free(out);
            return -1;
        }
        return 0;
    }
    ml_par2(load_side, &jobs[0], load_side, &jobs[1]);
    ml_phase("diff: load both");
    for (int s = 0; s < 2; s++)
        if (jobs[s].rc < 0) {
            fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(jobs[s].e.msg));
            ml_runpair_free(out);
            return -1;
        }
    if (pair_profiles(out, err) < 0) {
        ml_runpair_free(out);
        return -1;
    }
    return 0;
}

ml_diff_side ml_runpair_side(const ml_runpair *rp, int s, size_t k)
{
    const ml_run_side *rs = &rp->side[rp->single ? 1 : s];
    if (k == ML_NO_BASE) return (ml_diff_side){NULL, NULL};
    return (ml_diff_side){rs->ps.items.v[k], rs->has_time[k] ? &rs->time[k] : NULL};
}

void ml_runpair_free(ml_runpair *rp)
{
    for (int s = 0; s < 2; s++) {
        ml_run_side *rs = &rp->side[s];
        for (size_t k = 0; k < rs->ps.items.len && rs->time; k++) ml_diff_time_free(&rs->time[k]);
        free(rs->time);
        free(rs->has_time);
        ml_profiles_free(&rs->ps);
    }
    VEC_FREE(&rp->pairs);
    VEC_FREE(&rp->alone);
    for (size_t i = 0; i < rp->unmatched.len; i++) free(rp->unmatched.v[i]);
    VEC_FREE(&rp->unmatched);
    memset(rp, 0, sizeof *rp);
}
