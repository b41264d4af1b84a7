/*
 * runpair_each.c — the pairs of ranks of two jobs judged one at a time (see
 * ml_runpair_each in runpair.h): on every core, and under MPI on every
 * process, so that no more than a pair per core is in memory.
 *
 * With a base: a lean first pass lists each side's ranks (each process its
 * share of the units), process 0 gathers the lists and sends them back to
 * every process, and every process pairs them alike (ml_pair_ranks).  Then
 * each process loads its share of the pairs, NEW's rank on a loading thread
 * (loadpar.h) and its base rank beside it, hands both to the judge and frees
 * them; process 0 gathers the results (with judge->alone, the NEW ranks
 * without a base partner are judged too, alone).  Without a base each NEW profile is
 * judged against itself in one pass.  What failed is told the same whatever
 * the threads or processes: the first unit of a side in list order, then
 * the lowest pair whose base rank changed between the passes.
 */
#include "runpair.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "job.h"
#include "textwidth.h"
#include "transport.h"
#include "u64map.h"

/* A profile of a side: where it is, its rank, what the judge made of it. */
typedef struct entry {
    int rank;
    char *path;
    size_t unit, k;         /* its unit in the side's list, its number within it (loadpar.h) */
    void *result;           /* NULL: not judged (another rank, another process's) */
} entry;

typedef VEC(entry) entries;

/* What failed to load: the first unit in list order, per side (-1: none),
 * and a base rank that loaded in the first pass but not in the second (the
 * lowest pair, SIZE_MAX: none). */
typedef struct failures {
    int64_t unit[2];
    ml_err err[2];
    size_t pair;
    ml_err pair_err;
} failures;

typedef struct stream {
    const char *input[2];
    ml_needs needs;
    int rank;
    bool single;
    const ml_pair_judge *judge;
    const ml_transport *t;  /* several processes: each takes a share; NULL: one */
    ml_unit_list units[2];
    entries side[2];        /* in rank order once sorted */
    size_t *pair_of_new;    /* per entry of side 1: its pair + 1, 0 if none */
    ml_u64map entry_at;     /* side 1's entries by (unit, k): entry_key() */
    ml_run_pairs pairs;     /* then, with judge->alone, the NEW entries without a partner */
    size_t n_alone;
    pthread_mutex_t mu;
    failures f;
    FILE *err;              /* where the one-line errors go */
} stream;

static uint64_t entry_key(size_t unit, size_t k) { return (uint64_t)unit << 32 | (uint32_t)k; }

static bool several(const stream *st) { return st->t && st->t->size > 1; }
static bool writer(const stream *st) { return !st->t || st->t->me == 0; }

static int by_rank_then_path(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if ((x->rank < 0) != (y->rank < 0)) return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c) return c;
    return x->unit != y->unit ? (x->unit < y->unit ? -1 : 1) : (x->k > y->k) - (x->k < y->k);
}

static void note_entry(stream *st, int s, size_t unit, size_t k, const ml_profile *p, void *result)
{
    pthread_mutex_lock(&st->mu);
    VEC_PUSH(&st->side[s], ((entry){p->rank, ml_strdup(p->path), unit, k, result}));
    pthread_mutex_unlock(&st->mu);
}

typedef struct list_job {
    stream *st;
    int s;
} list_job;

static void list_one(void *arg, size_t unit, size_t k, ml_profile *p)
{
    list_job *j = arg;
    note_entry(j->st, j->s, unit, k, p, NULL);
}

/* a NULL: b has no base partner (judged alone). */
static void *judge(stream *st, ml_profile *a, ml_profile *b)
{
    ml_diff_time ta, tb;
    if (!a) {
        bool has_b = ml_runpair_prepare(b, &st->needs, &tb);
        ml_diff_side db = {b, has_b ? &tb : NULL};
        void *r = st->judge->fn(st->judge->arg, NULL, &db);
        ml_diff_time_free(&tb);
        return r;
    }
    bool has_a = ml_runpair_prepare(a, &st->needs, &ta), has_b = b == a ? has_a : ml_runpair_prepare(b, &st->needs, &tb);
    ml_diff_side da = {a, has_a ? &ta : NULL}, db = {b, has_b ? (b == a ? &ta : &tb) : NULL};
    void *r = st->judge->fn(st->judge->arg, &da, &db);
    ml_diff_time_free(&ta);
    if (b != a) ml_diff_time_free(&tb);
    return r;
}

/* On the loading thread, for each profile of NEW: judged against itself
 * (no base), or against its base rank, which is loaded here. */
static void judge_one(void *arg, size_t unit, size_t k, ml_profile *p)
{
    stream *st = arg;
    if (st->single) {
        note_entry(st, 1, unit, k, p, st->rank < 0 || p->rank == st->rank ? judge(st, p, p) : NULL);
        return;
    }
    const uint32_t *found = ml_u64map_get(&st->entry_at, entry_key(unit, k)); /* this profile's entry */
    if (!found || !st->pair_of_new[*found]) return;
    size_t at = *found;
    size_t pair = st->pair_of_new[at] - 1;
    if (st->pairs.v[pair].item[0] == ML_NO_BASE) {
        st->side[1].v[at].result = judge(st, NULL, p);
        return;
    }
    const entry *b = &st->side[0].v[st->pairs.v[pair].item[0]];
    const ml_unit *bu = &st->units[0].units.v[b->unit];
    ml_profiles ps = {.needs = st->needs};
    ml_err e = {{0}};
    void *r = NULL;
    if (ml_load_unit(bu->path, bu->listed, &ps, &e) == 0 && b->k < ps.items.len) {
        ml_profiles_sort(&ps);
        r = judge(st, ps.items.v[b->k], p);
    } else {
        if (!e.msg[0]) snprintf(e.msg, sizeof e.msg, "%s: changed while memlens read it", bu->path);
        pthread_mutex_lock(&st->mu);
        if (pair < st->f.pair) st->f.pair = pair, st->f.pair_err = e;
        pthread_mutex_unlock(&st->mu);
    }
    ml_profiles_free(&ps);
    st->side[1].v[at].result = r; /* its own entry: no other thread writes it */
}

/* Loads the units of side s (only: this process's share, NULL: all) with fn. */
static void load_side_units(stream *st, int s, ml_needs needs, const size_t *only, size_t n_only, ml_each_fn fn,
                            void *arg)
{
    ml_each_opts o = {.needs = needs, .only = only, .n_only = n_only};
    ml_each_result res;
    ml_err e = {{0}};
    if (only && !n_only) return; /* a share of nothing */
    if (ml_load_each(&st->units[s], &o, fn, arg, &res, &e) < 0 &&
        (st->f.unit[s] < 0 || (int64_t)res.failed_unit < st->f.unit[s]))
        st->f.unit[s] = (int64_t)res.failed_unit, st->f.err[s] = e;
    ml_each_result_free(&res);
}

/* ---- between processes: what each found, gathered on process 0 ---------- */

static void pack_failures(const failures *f, ml_bytes *b)
{
    for (int s = 0; s < 2; s++) {
        ml_bytes_put_i64(b, f->unit[s]);
        ml_bytes_put_str(b, f->err[s].msg);
    }
    ml_bytes_put_i64(b, f->pair == SIZE_MAX ? -1 : (int64_t)f->pair);
    ml_bytes_put_str(b, f->pair_err.msg);
}

/* Keeps the first failures of f and those read. */
static void unpack_failures(ml_bytes_reader *d, failures *f)
{
    for (int s = 0; s < 2; s++) {
        int64_t u = ml_bytes_get_i64(d);
        char *msg = ml_bytes_get_str(d);
        if (u >= 0 && (f->unit[s] < 0 || u < f->unit[s])) {
            f->unit[s] = u;
            snprintf(f->err[s].msg, sizeof f->err[s].msg, "%s", msg ? msg : "");
        }
        free(msg);
    }
    int64_t pair = ml_bytes_get_i64(d);
    char *msg = ml_bytes_get_str(d);
    if (pair >= 0 && (uint64_t)pair < f->pair) {
        f->pair = (size_t)pair;
        snprintf(f->pair_err.msg, sizeof f->pair_err.msg, "%s", msg ? msg : "");
    }
    free(msg);
}

static void pack_entries(const stream *st, const entries *es, ml_bytes *b)
{
    ml_bytes_put_i64(b, (int64_t)es->len);
    for (size_t i = 0; i < es->len; i++) {
        const entry *x = &es->v[i];
        ml_bytes_put_i64(b, x->rank);
        ml_bytes_put_str(b, x->path);
        ml_bytes_put_i64(b, (int64_t)x->unit);
        ml_bytes_put_i64(b, (int64_t)x->k);
        ml_bytes_put_i64(b, x->result != NULL);
        if (x->result) st->judge->pack(st->judge->arg, x->result, b);
    }
}

static void unpack_entries(stream *st, ml_bytes_reader *d, int s)
{
    entries *es = &st->side[s];
    int64_t n = ml_bytes_get_i64(d);
    for (int64_t i = 0; i < n && !d->bad; i++) {
        entry x = {0};
        x.rank = (int)ml_bytes_get_i64(d);
        x.path = ml_bytes_get_str(d);
        x.unit = (size_t)ml_bytes_get_i64(d);
        x.k = (size_t)ml_bytes_get_i64(d);
        if (ml_bytes_get_i64(d)) x.result = st->judge->unpack(st->judge->arg, d);
        if (!x.path || x.unit >= st->units[s].units.len) {
            if (x.result) st->judge->free_result(x.result);
            d->bad = true;
            break;
        }
        VEC_PUSH(es, x);
    }
}

static void entries_clear(const stream *st, entries *es)
{
    for (size_t i = 0; i < es->len; i++) {
        free(es->v[i].path);
        if (es->v[i].result) st->judge->free_result(es->v[i].result);
    }
    es->len = 0;
}

/* What a process sends process 0 after the first pass (with a base): its
 * failures and the entries of its share of both sides. */
static void pack_lists(stream *st, ml_bytes *b)
{
    pack_failures(&st->f, b);
    for (int s = 0; s < 2; s++) pack_entries(st, &st->side[s], b);
}

static void unpack_lists(stream *st, ml_bytes_reader *d)
{
    unpack_failures(d, &st->f);
    for (int s = 0; s < 2; s++) unpack_entries(st, d, s);
}

/* After judging: its failures and what it judged (without a base, its
 * entries; with one, the pairs' NEW entries by number, whose lists every
 * process has alike). */
static void pack_judged(stream *st, ml_bytes *b)
{
    pack_failures(&st->f, b);
    if (st->single) {
        pack_entries(st, &st->side[1], b);
        return;
    }
    for (size_t i = 0; i < st->side[1].len; i++)
        if (st->side[1].v[i].result) {
            ml_bytes_put_i64(b, (int64_t)i);
            st->judge->pack(st->judge->arg, st->side[1].v[i].result, b);
        }
    ml_bytes_put_i64(b, -1);
}

static void unpack_judged(stream *st, ml_bytes_reader *d)
{
    unpack_failures(d, &st->f);
    if (st->single) {
        unpack_entries(st, d, 1);
        return;
    }
    for (int64_t i; (i = ml_bytes_get_i64(d)) >= 0 && !d->bad;) {
        void *r = st->judge->unpack(st->judge->arg, d);
        if ((uint64_t)i >= st->side[1].len || st->side[1].v[i].result) {
            if (r) st->judge->free_result(r);
            d->bad = true;
            break;
        }
        st->side[1].v[i].result = r;
    }
}

typedef struct unpack_in {
    stream *st;
    void (*unpack)(stream *, ml_bytes_reader *);
} unpack_in;

static bool unpack_one(void *arg, const char *p, size_t n)
{
    unpack_in *in = arg;
    ml_bytes_reader d = {p, n, 0, false};
    in->unpack(in->st, &d);
    return !d.bad;
}

/* Every other process's pack() unpacked on process 0 (ml_job_gather). */
static int gather(stream *st, void (*pack)(stream *, ml_bytes *), void (*unpack)(stream *, ml_bytes_reader *))
{
    ml_bytes b = {0};
    if (!writer(st)) pack(st, &b);
    unpack_in in = {st, unpack};
    int rc = ml_job_gather(st->t, &b, unpack_one, &in, st->err);
    ml_bytes_free(&b);
    return rc;
}

/* The first pass's lists, gathered on process 0, then process 0's to every
 * process (its status first: all go on, or all stop). */
static int share_lists(stream *st)
{
    int rc = gather(st, pack_lists, unpack_lists);
    ml_bytes b = {0};
    if (writer(st)) {
        ml_bytes_put_i64(&b, rc);
        pack_lists(st, &b);
    }
    size_t n = b.len;
    char *p = b.p;
    if (st->t->bcast_bytes(&p, &n) < 0) rc = -1;
    if (rc == 0 && !writer(st)) {
        ml_bytes_reader d = {p, n, 0, false};
        rc = (int)ml_bytes_get_i64(&d);
        st->f = (failures){.unit = {-1, -1}, .pair = SIZE_MAX};
        for (int s = 0; s < 2; s++) entries_clear(st, &st->side[s]);
        unpack_lists(st, &d);
        if (d.bad) rc = -1;
    }
    if (!writer(st)) free(p);
    ml_bytes_free(&b);
    return rc;
}

/* ---- the passes ---------------------------------------------------------- */

static int load_error(const stream *st, const ml_err *e)
{
    fprintf(st->err, "memlens: %s\n", ML_TEXT_SAFE(e->msg));
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
        else {
            free(es->v[i].path);
            if (es->v[i].result) st->judge->free_result(es->v[i].result);
        }
    }
    es->len = kept;
    ml_err e = {{0}};
    int rc = kept ? 0 : ml_rank_missing_error(st->rank, loaded, had, &e);
    free(loaded);
    if (rc < 0) fprintf(st->err, "memlens: %s: %s\n", st->input[s], ML_TEXT_SAFE(e.msg));
    return rc;
}

static int *entry_ranks(const entries *es)
{
    int *r = ml_malloc((es->len ? es->len : 1) * sizeof *r);
    for (size_t i = 0; i < es->len; i++) r[i] = es->v[i].rank;
    return r;
}

/* With a base: which ranks each side has (a lean pass over both, each
 * process its share), then the pairs, alike on every process. */
static int pair_sides(stream *st, ml_notes *unmatched)
{
    for (int s = 0; s < 2; s++) {
        size_t n_mine = 0, *mine = several(st) ? ml_job_units_share(&st->units[s], st->t->size, st->t->me, &n_mine) : NULL;
        list_job j = {st, s};
        load_side_units(st, s, (ml_needs){.no_categories = true, .no_op_memory = true, .lean = true}, mine, n_mine, list_one, &j);
        free(mine);
    }
    if (several(st) && share_lists(st) < 0) return -1;
    for (int s = 0; s < 2; s++) {
        if (st->f.unit[s] >= 0) return load_error(st, &st->f.err[s]);
        qsort(st->side[s].v, st->side[s].len, sizeof *st->side[s].v, by_rank_then_path);
        if (st->rank >= 0 && keep_rank(st, s) < 0) return -1;
    }
    int *r[2] = {entry_ranks(&st->side[0]), entry_ranks(&st->side[1])};
    const int *cr[2] = {r[0], r[1]};
    const size_t n[2] = {st->side[0].len, st->side[1].len};
    ml_run_pairs alone = {0};
    int rc = ml_pair_ranks(cr, n, st->input, &st->pairs, st->judge->alone ? &alone : NULL, unmatched, st->err);
    free(r[0]);
    free(r[1]);
    for (size_t i = 0; i < alone.len; i++) VEC_PUSH(&st->pairs, alone.v[i]);
    st->n_alone = alone.len;
    VEC_FREE(&alone);
    if (rc < 0) return -1;
    st->pair_of_new = ml_calloc(n[1] ? n[1] : 1, sizeof *st->pair_of_new);
    for (size_t i = 0; i < st->pairs.len; i++) st->pair_of_new[st->pairs.v[i].item[1]] = i + 1;
    bool fresh;
    for (size_t i = 0; i < n[1]; i++)
        *ml_u64map_put(&st->entry_at, entry_key(st->side[1].v[i].unit, st->side[1].v[i].k), &fresh) = (uint32_t)i;
    return 0;
}

/* The NEW units this process loads to judge: with a base, those of its
 * share of the pairs (by the bytes of both ranks); without, its share of
 * NEW's units (NULL: all, one process). */
static size_t *units_to_judge(stream *st, size_t *n_out)
{
    *n_out = 0;
    if (st->single) return several(st) ? ml_job_units_share(&st->units[1], st->t->size, st->t->me, n_out) : NULL;
    size_t np = st->pairs.len, n_mine = np, *mine = NULL;
    if (several(st)) {
        int64_t *bytes = ml_malloc((np ? np : 1) * sizeof *bytes);
        for (size_t i = 0; i < np; i++) {
            size_t b = st->pairs.v[i].item[0];
            bytes[i] = (b == ML_NO_BASE ? 0 : st->units[0].units.v[st->side[0].v[b].unit].bytes) +
                       st->units[1].units.v[st->side[1].v[st->pairs.v[i].item[1]].unit].bytes;
        }
        mine = ml_job_share(bytes, NULL, np, st->t->size, st->t->me, &n_mine);
        free(bytes);
    }
    size_t nu = st->units[1].units.len;
    size_t *units = ml_malloc((n_mine ? n_mine : 1) * sizeof *units);
    bool *taken = ml_calloc(nu ? nu : 1, sizeof *taken); /* a unit of two ranks is loaded once */
    for (size_t i = 0; i < n_mine; i++) {
        size_t u = st->side[1].v[st->pairs.v[mine ? mine[i] : i].item[1]].unit;
        if (!taken[u]) taken[u] = true, units[(*n_out)++] = u;
    }
    free(taken);
    free(mine);
    return units;
}

/* 0: out holds every pair's result (process 0); 1: this process is not the
 * writer (its results went to process 0); -1: failed, the error printed. */
static int stream_pairs(stream *st, ml_runpair_results *out)
{
    if (!st->single && pair_sides(st, &out->unmatched) < 0) return -1;
    size_t n_units = 0, *units = units_to_judge(st, &n_units);
    bool share_of_nothing = units && !n_units;
    if (!share_of_nothing) load_side_units(st, 1, st->needs, units, n_units, judge_one, st);
    free(units);
    if (several(st)) {
        if (gather(st, pack_judged, unpack_judged) < 0) return -1;
        if (!writer(st)) return 1;
    }
    if (st->f.unit[1] >= 0) return load_error(st, &st->f.err[1]);
    if (st->f.pair != SIZE_MAX) return load_error(st, &st->f.pair_err);
    entries *nw = &st->side[1];
    if (st->single) {
        qsort(nw->v, nw->len, sizeof *nw->v, by_rank_then_path);
        if (st->rank >= 0 && keep_rank(st, 1) < 0) return -1;
        if (!nw->len) {
            fprintf(st->err, "memlens: %s: no profile found\n", st->input[1]);
            return -1;
        }
        for (size_t i = 0; i < nw->len; i++) VEC_PUSH(&st->pairs, ((ml_run_pair){{i, i}}));
    }
    out->n = st->pairs.len;
    out->n_alone = st->n_alone;
    out->v = ml_calloc(out->n ? out->n : 1, sizeof *out->v);
    for (size_t i = 0; i < out->n; i++) {
        entry *n = &nw->v[st->pairs.v[i].item[1]];
        if (!n->result) { /* read twice: it changed in between */
            fprintf(st->err, "memlens: %s: changed while memlens read it (rank %d)\n", n->path, n->rank);
            return -1;
        }
        out->v[i] = n->result;
        n->result = NULL;
    }
    return 0;
}

int ml_runpair_each(const char *base, const char *nw, ml_needs needs, int rank, const ml_pair_judge *judge,
                    ml_runpair_results *out, FILE *err)
{
    memset(out, 0, sizeof *out);
    const ml_transport *t = ml_transport_now;
    /* A job: an input of more than one unit (one that cannot be listed is
     * not: the whole-load path says why, as before). */
    const char *in[2] = {base, nw};
    ml_unit_list units[2];
    memset(units, 0, sizeof units);
    bool listed = true, job = false;
    for (int s = base ? 0 : 1; s < 2; s++) {
        ml_err e = {{0}};
        listed &= ml_units_list(&in[s], 1, &units[s], &e) == 0;
        job |= units[s].units.len > 1;
        if (listed && units[s].logdir >= 0) { /* several runs or spans: which one? */
            ml_units_logdir_error(&units[s], in[s], &e);
            if (!t || t->me == 0) fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
            for (int k = 0; k < 2; k++) ml_unit_list_free(&units[k]);
            return -1;
        }
    }
    if (!listed || !job) {
        for (int s = 0; s < 2; s++) ml_unit_list_free(&units[s]);
        if (t && t->me != 0) return 1; /* both at once, on process 0 alone */
        ml_runpair rp;
        if (ml_runpair_load(base, nw, needs, rank, &rp, err) < 0) return -1;
        out->n_alone = judge->alone ? rp.alone.len : 0;
        out->n = rp.pairs.len + out->n_alone;
        out->v = ml_calloc(out->n ? out->n : 1, sizeof *out->v);
        for (size_t i = 0; i < out->n; i++) {
            const ml_run_pair *pr = i < rp.pairs.len ? &rp.pairs.v[i] : &rp.alone.v[i - rp.pairs.len];
            ml_diff_side a = ml_runpair_side(&rp, 0, pr->item[0]);
            ml_diff_side b = ml_runpair_side(&rp, 1, pr->item[1]);
            out->v[i] = judge->fn(judge->arg, a.p ? &a : NULL, &b);
        }
        out->unmatched = rp.unmatched;
        rp.unmatched = (ml_notes){0};
        ml_runpair_free(&rp);
        return 0;
    }
    stream st = {.input = {base, nw}, .needs = needs, .rank = rank, .single = base == NULL, .judge = judge,
                 .t = t, .units = {units[0], units[1]}, .f = {.unit = {-1, -1}, .pair = SIZE_MAX}, .err = err};
    pthread_mutex_init(&st.mu, NULL);
    ml_u64map_init(&st.entry_at);
    int rc = stream_pairs(&st, out);
    for (int s = 0; s < 2; s++) {
        entries_clear(&st, &st.side[s]); /* and the results that did not make it into out */
        VEC_FREE(&st.side[s]);
        ml_unit_list_free(&st.units[s]);
    }
    free(st.pair_of_new);
    ml_u64map_free(&st.entry_at);
    VEC_FREE(&st.pairs);
    pthread_mutex_destroy(&st.mu);
    if (rc != 0) ml_runpair_results_free(out, judge->free_result);
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
