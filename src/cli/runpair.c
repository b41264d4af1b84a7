/*
 * runpair.c — both sides of a comparison, loaded at once (see runpair.h).
 */
#include "textwidth.h"
#include "runpair.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "par.h"
#include "phase.h"

int ml_runpair_opt(int argc, char **argv, int *i, ml_runpair_opts *o)
{
    const char *a = argv[*i];
    bool value = *i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) o->help = true;
    else if (!strcmp(a, "--json")) o->json = true;
    else if (!strcmp(a, "--rank") && value) return ml_cli_rank(argv[++*i], &o->rank) < 0 ? -1 : 1;
    else if (!strcmp(a, "--top") && value && o->top)
        return ml_cli_count("--top", argv[++*i], 1, 1000000, "a number of rows (1 or more)", o->top) < 0 ? -1 : 1;
    else return 0;
    return 1;
}

typedef struct load_job {
    ml_run_side *side;
    int rank;
    bool keep_ops;
    int rc;
    ml_err e;
} load_job;

/* The memory side's operator intervals (p->ops, a second copy of the trace's
 * host slices) are read by ml_attribute() and ml_categorize() as the profile
 * loads; after that a comparison reads only what they wrote in allocs (and,
 * for traces without addresses, unmatched.c reads them again: kept then).
 * Dropped, they make two 400 MB traces cost 2x the memory of one. */
static void drop_ops(ml_profile *p)
{
    if (!p->has_addresses) return;
    VEC_FREE(&p->ops.ts);
    VEC_FREE(&p->ops.dur);
    VEC_FREE(&p->ops.name);
    VEC_FREE(&p->ops.thread);
    VEC_FREE(&p->ops.kind);
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
    j->rc = ml_load(s->input, &s->ps, &j->e);
    if (j->rc < 0) return;
    ml_profiles_sort(&s->ps);
    if (j->rank >= 0 && ml_profiles_keep_rank(&s->ps, j->rank, &j->e) < 0) {
        ml_prefix(&j->e, "%s", s->input); /* "INPUT: --rank N: ..." */
        j->rc = -1;
        return;
    }
    size_t n = s->ps.items.len;
    if (!j->keep_ops)
        for (size_t k = 0; k < n; k++) drop_ops(s->ps.items.v[k]);
    s->time = ml_calloc(n ? n : 1, sizeof *s->time);
    s->has_time = ml_calloc(n ? n : 1, sizeof *s->has_time);
    for (size_t k = 0; k < n; k++) s->has_time[k] = ml_diff_time_compute(s->ps.items.v[k], &s->time[k]);
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

/* Pairs the profiles of two sides, ranks r[s][0..n[s]) in rank order (-1:
 * unknown), as runpair.h says; -1 with the error printed. */
static int pair_ranks(const int *const r[2], const size_t n[2], const char *const in[2], ml_run_pairs *pairs,
                      ml_notes *unmatched)
{
    for (int s = 0; s < 2; s++)
        if (!n[s]) {
            fprintf(stderr, "memlens: %s: no profile found\n", in[s]);
            return -1;
        }
    if (n[0] == 1 && n[1] == 1) {
        VEC_PUSH(pairs, ((ml_run_pair){{0, 0}}));
        return 0;
    }
    for (int s = 0; s < 2; s++)
        if (!all_ranked(r[s], n[s])) {
            fprintf(stderr, "memlens: mismatched ranks: %s holds %zu profiles, some without a rank number, "
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
        snprintf(buf, sizeof buf, "rank %d only in %s", base_only ? r0 : r1, in[!base_only]);
        VEC_PUSH(unmatched, ml_strdup(buf));
        if (base_only) i++;
        else j++;
    }
    if (!pairs->len) {
        char a[200], b[200];
        ranks_text(r[0], n[0], a, sizeof a);
        ranks_text(r[1], n[1], b, sizeof b);
        fprintf(stderr, "memlens: mismatched ranks: %s has rank%s %s, %s has rank%s %s: none in common\n", in[0],
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

static int pair_profiles(ml_runpair *rp)
{
    const int *r[2] = {ranks_of(&rp->side[0].ps), ranks_of(&rp->side[1].ps)};
    const size_t n[2] = {rp->side[0].ps.items.len, rp->side[1].ps.items.len};
    const char *const in[2] = {rp->side[0].input, rp->side[1].input};
    int rc = pair_ranks(r, n, in, &rp->pairs, &rp->unmatched);
    free((void *)r[0]);
    free((void *)r[1]);
    return rc;
}

int ml_runpair_load(const char *base, const char *nw, unsigned want, int rank, ml_runpair *out)
{
    memset(out, 0, sizeof *out);
    out->side[0].input = base;
    out->side[1].input = nw;
    out->side[0].ps.want = out->side[1].ps.want = want;
    bool keep = (want & ML_SKIP_CATEGORIES) == 0; /* the report reads them (and --by category keeps them: harmless) */
    load_job jobs[2] = {{&out->side[0], rank, keep, 0, {{0}}}, {&out->side[1], rank, keep, 0, {{0}}}};
    if (!base) {
        out->single = true;
        load_side(&jobs[1]);
        if (jobs[1].rc < 0) {
            fprintf(stderr, "memlens: %s\n", ML_TEXT_SAFE(jobs[1].e.msg));
            ml_runpair_free(out);
            return -1;
        }
        for (size_t k = 0; k < out->side[1].ps.items.len; k++) VEC_PUSH(&out->pairs, ((ml_run_pair){{k, k}}));
        if (!out->pairs.len) {
            fprintf(stderr, "memlens: %s: no profile found\n", nw);
            ml_runpair_free(out);
            return -1;
        }
        return 0;
    }
    ml_par2(load_side, &jobs[0], load_side, &jobs[1]);
    ml_phase("diff: load both");
    for (int s = 0; s < 2; s++)
        if (jobs[s].rc < 0) {
            fprintf(stderr, "memlens: %s\n", ML_TEXT_SAFE(jobs[s].e.msg));
            ml_runpair_free(out);
            return -1;
        }
    if (pair_profiles(out) < 0) {
        ml_runpair_free(out);
        return -1;
    }
    return 0;
}

ml_diff_side ml_runpair_side(const ml_runpair *rp, int s, size_t k)
{
    const ml_run_side *rs = &rp->side[rp->single ? 1 : s];
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
    for (size_t i = 0; i < rp->unmatched.len; i++) free(rp->unmatched.v[i]);
    VEC_FREE(&rp->unmatched);
    memset(rp, 0, sizeof *rp);
}

/* ---- pairs one at a time (ml_runpair_each) -------------------------------- */

/* A profile of a side: where it is, its rank, what fn made of it. */
typedef struct entry {
    int rank;
    char *path;
    size_t unit, k;         /* its unit in the side's list, its number within it (loadpar.h) */
    void *result;
    bool judged;
} entry;

typedef VEC(entry) entries;

typedef struct stream {
    const char *input[2];
    unsigned want;
    int rank;
    bool single;
    ml_unit_list units[2];
    entries side[2];        /* in rank order once listed */
    size_t *pair_of_new;    /* per entry of side 1: its pair + 1, 0 if none */
    ml_run_pairs pairs;
    ml_runpair_fn fn;
    void *arg;
    pthread_mutex_t mu;
    int failed;             /* a base unit that loaded before and not now */
    ml_err err;
} stream;

static int by_rank_then_path(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if ((x->rank < 0) != (y->rank < 0)) return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c) return c;
    return x->unit != y->unit ? (x->unit < y->unit ? -1 : 1) : (x->k > y->k) - (x->k < y->k);
}

typedef struct list_job {
    stream *st;
    int s;
} list_job;

static void note_entry(stream *st, int s, size_t unit, size_t k, const ml_profile *p, void *result, bool judged)
{
    pthread_mutex_lock(&st->mu);
    VEC_PUSH(&st->side[s], ((entry){p->rank, ml_strdup(p->path), unit, k, result, judged}));
    pthread_mutex_unlock(&st->mu);
}

static void list_one(void *arg, size_t unit, size_t k, ml_profile *p)
{
    list_job *j = arg;
    note_entry(j->st, j->s, unit, k, p, NULL, false);
}

/* A profile's diff side, as load_side makes it. */
static bool side_of(ml_profile *p, bool keep_ops, ml_diff_time *t)
{
    if (!keep_ops) drop_ops(p);
    return ml_diff_time_compute(p, t);
}

static void *judge(stream *st, ml_profile *a, ml_profile *b)
{
    bool keep = (st->want & ML_SKIP_CATEGORIES) == 0;
    ml_diff_time ta, tb;
    bool has_a = side_of(a, keep, &ta), has_b = b == a ? has_a : side_of(b, keep, &tb);
    ml_diff_side da = {a, has_a ? &ta : NULL}, db = {b, has_b ? (b == a ? &ta : &tb) : NULL};
    void *r = st->fn(st->arg, &da, &db);
    ml_diff_time_free(&ta);
    if (b != a) ml_diff_time_free(&tb);
    return r;
}

/* On the loading thread, for each profile of NEW: judged against itself
 * (no base), or against its base, which is loaded here. */
static void judge_one(void *arg, size_t unit, size_t k, ml_profile *p)
{
    stream *st = arg;
    if (st->single) {
        bool wanted = st->rank < 0 || p->rank == st->rank;
        note_entry(st, 1, unit, k, p, wanted ? judge(st, p, p) : NULL, wanted);
        return;
    }
    size_t at = SIZE_MAX; /* this profile's entry */
    for (size_t i = 0; i < st->side[1].len; i++)
        if (st->side[1].v[i].unit == unit && st->side[1].v[i].k == k) at = i;
    if (at == SIZE_MAX || !st->pair_of_new[at]) return;
    size_t pair = st->pair_of_new[at] - 1;
    const entry *b = &st->side[0].v[st->pairs.v[pair].item[0]];
    const ml_unit *bu = &st->units[0].units.v[b->unit];
    ml_profiles ps = {.want = st->want};
    ml_err e = {{0}};
    void *r = NULL;
    if (ml_load_unit(bu->path, bu->listed, &ps, &e) == 0 && b->k < ps.items.len) {
        ml_profiles_sort(&ps);
        r = judge(st, ps.items.v[b->k], p);
    } else {
        pthread_mutex_lock(&st->mu);
        if (!st->failed) st->failed = 1, st->err = e;
        pthread_mutex_unlock(&st->mu);
    }
    ml_profiles_free(&ps);
    entry *n = &st->side[1].v[at];
    n->result = r;
    n->judged = r != NULL;
}

static int load_error(const ml_err *e)
{
    fprintf(stderr, "memlens: %s\n", ML_TEXT_SAFE(e->msg));
    return -1;
}

/* --rank N on a side's entries, as ml_profiles_keep_rank does on profiles. */
static int keep_rank(stream *st, int s)
{
    entries *es = &st->side[s];
    size_t kept = 0, had = es->len;
    int *loaded = ml_malloc((had ? had : 1) * sizeof *loaded);
    for (size_t i = 0; i < had; i++) {
        loaded[i] = es->v[i].rank;
        if (es->v[i].rank == st->rank) es->v[kept++] = es->v[i];
        else free(es->v[i].path);
    }
    es->len = kept;
    ml_err e = {{0}};
    int rc = kept ? 0 : ml_rank_missing_error(st->rank, loaded, had, &e);
    free(loaded);
    if (rc < 0) fprintf(stderr, "memlens: %s: %s\n", st->input[s], ML_TEXT_SAFE(e.msg));
    return rc;
}

static int *entry_ranks(const entries *es)
{
    int *r = ml_malloc((es->len ? es->len : 1) * sizeof *r);
    for (size_t i = 0; i < es->len; i++) r[i] = es->v[i].rank;
    return r;
}

/* Whether either input is a job (more units than one): then streamed. */
static bool is_job(const char *base, const char *nw)
{
    const char *in[2] = {base, nw};
    for (int s = 0; s < 2; s++) {
        if (!in[s]) continue;
        ml_unit_list l = {0};
        ml_err e = {{0}};
        bool many = ml_units_list(&in[s], 1, &l, &e) == 0 && l.units.len > 1;
        ml_unit_list_free(&l);
        if (many) return true;
    }
    return false;
}

static void stream_free(stream *st)
{
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < st->side[s].len; i++) free(st->side[s].v[i].path);
        VEC_FREE(&st->side[s]);
        ml_unit_list_free(&st->units[s]);
    }
    free(st->pair_of_new);
    VEC_FREE(&st->pairs);
    pthread_mutex_destroy(&st->mu);
}

static int stream_pairs(stream *st, ml_runpair_results *out)
{
    ml_err e = {{0}};
    for (int s = st->single ? 1 : 0; s < 2; s++)
        if (ml_units_list(&st->input[s], 1, &st->units[s], &e) < 0) return load_error(&e);
    if (!st->single) {
        /* Which ranks each side has: a first, lean pass over both. */
        for (int s = 0; s < 2; s++) {
            list_job j = {st, s};
            ml_each_opts o = {.want = ML_SKIP_CATEGORIES | ML_SKIP_OPS | ML_LEAN};
            ml_each_result res;
            int rc = ml_load_each(&st->units[s], &o, list_one, &j, &res, &e);
            ml_each_result_free(&res);
            if (rc < 0) return load_error(&e);
            qsort(st->side[s].v, st->side[s].len, sizeof *st->side[s].v, by_rank_then_path);
            if (st->rank >= 0 && keep_rank(st, s) < 0) return -1;
        }
        int *r[2] = {entry_ranks(&st->side[0]), entry_ranks(&st->side[1])};
        const int *cr[2] = {r[0], r[1]};
        const size_t n[2] = {st->side[0].len, st->side[1].len};
        int rc = pair_ranks(cr, n, st->input, &st->pairs, &out->unmatched);
        free(r[0]);
        free(r[1]);
        if (rc < 0) return -1;
        st->pair_of_new = ml_calloc(n[1] ? n[1] : 1, sizeof *st->pair_of_new);
        for (size_t i = 0; i < st->pairs.len; i++) st->pair_of_new[st->pairs.v[i].item[1]] = i + 1;
    }
    /* Each pair (each profile, without a base) on the loading threads. */
    size_t *only = NULL, n_only = 0;
    if (!st->single) {
        only = ml_malloc((st->pairs.len ? st->pairs.len : 1) * sizeof *only);
        for (size_t i = 0; i < st->pairs.len; i++) {
            size_t u = st->side[1].v[st->pairs.v[i].item[1]].unit;
            bool seen = false;
            for (size_t k = 0; k < n_only && !seen; k++) seen = only[k] == u;
            if (!seen) only[n_only++] = u;
        }
    }
    ml_each_opts o = {.want = st->want, .only = only, .n_only = n_only};
    ml_each_result res;
    int rc = ml_load_each(&st->units[1], &o, judge_one, st, &res, &e);
    ml_each_result_free(&res);
    free(only);
    if (rc < 0) return load_error(&e);
    if (st->failed) return load_error(&st->err);
    entries *nw = &st->side[1];
    if (st->single) {
        qsort(nw->v, nw->len, sizeof *nw->v, by_rank_then_path);
        if (st->rank >= 0 && keep_rank(st, 1) < 0) return -1;
        if (!nw->len) {
            fprintf(stderr, "memlens: %s: no profile found\n", st->input[1]);
            return -1;
        }
        for (size_t i = 0; i < nw->len; i++) VEC_PUSH(&st->pairs, ((ml_run_pair){{i, i}}));
    }
    out->n = st->pairs.len;
    out->v = ml_calloc(out->n ? out->n : 1, sizeof *out->v);
    for (size_t i = 0; i < out->n; i++) {
        entry *n = &nw->v[st->pairs.v[i].item[1]];
        if (!n->result) { /* read twice: it changed in between */
            fprintf(stderr, "memlens: %s: changed while memlens read it (rank %d)\n", n->path, n->rank);
            return -1;
        }
        out->v[i] = n->result;
        n->result = NULL;
    }
    return 0;
}

/* The results fn left on entries that did not make it into out. */
static void free_unclaimed(stream *st, void (*free_result)(void *))
{
    for (size_t i = 0; i < st->side[1].len; i++)
        if (st->side[1].v[i].result) free_result(st->side[1].v[i].result);
}

int ml_runpair_each(const char *base, const char *nw, unsigned want, int rank, ml_runpair_fn fn, void *arg,
                    void (*free_result)(void *), ml_runpair_results *out)
{
    memset(out, 0, sizeof *out);
    if (!is_job(base, nw)) {
        ml_runpair rp;
        if (ml_runpair_load(base, nw, want, rank, &rp) < 0) return -1;
        out->n = rp.pairs.len;
        out->v = ml_calloc(out->n ? out->n : 1, sizeof *out->v);
        for (size_t i = 0; i < out->n; i++) {
            ml_diff_side a = ml_runpair_side(&rp, 0, rp.pairs.v[i].item[0]);
            ml_diff_side b = ml_runpair_side(&rp, 1, rp.pairs.v[i].item[1]);
            out->v[i] = fn(arg, &a, &b);
        }
        out->unmatched = rp.unmatched;
        rp.unmatched = (ml_notes){0};
        ml_runpair_free(&rp);
        return 0;
    }
    stream st = {.input = {base, nw}, .want = want, .rank = rank, .single = base == NULL, .fn = fn, .arg = arg};
    pthread_mutex_init(&st.mu, NULL);
    int rc = stream_pairs(&st, out);
    free_unclaimed(&st, free_result);
    stream_free(&st);
    if (rc < 0) ml_runpair_results_free(out, free_result);
    return rc;
}

void ml_runpair_results_free(ml_runpair_results *r, void (*free_result)(void *))
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i]) free_result(r->v[i]);
    free(r->v);
    for (size_t i = 0; i < r->unmatched.len; i++) free(r->unmatched.v[i]);
    VEC_FREE(&r->unmatched);
    memset(r, 0, sizeof *r);
}
