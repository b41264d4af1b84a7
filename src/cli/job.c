/*
 * job.c — see job.h.
 */
#include "textwidth.h"
#include "job.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "par.h"
#include "transport.h"

const ml_transport *ml_transport_now;

typedef struct collect {
    const ml_job_opts *o;
    ml_rankrec_wants rec;       /* o's, and what the job's size rules out */
    const ml_unit_list *l;
    ml_spool *spool;
    pthread_mutex_t mu;
    VEC(ml_rankrec *) recs;
} collect;

/* The record and the command's pieces of one rank, at once (fn_pieces_only). */
typedef struct rank_task {
    collect *c;
    const ml_profile *p;
    size_t unit, k;
    ml_rankrec *r;              /* rec_run: the record made; fn_run: where the pieces go */
} rank_task;

static void rec_run(void *arg)
{
    rank_task *t = arg;
    t->r = ml_rankrec_of(t->p, NULL, &t->c->rec, t->unit, t->k, t->c->l->units.v[t->unit].bytes);
}

static void fn_run(void *arg)
{
    rank_task *t = arg;
    t->c->o->fn(t->c->o->arg, t->p, NULL, t->r, t->c->spool);
}

static void take_rank(void *arg, size_t unit, size_t k, ml_profile *p)
{
    collect *c = arg;
    ml_rankrec *r;
    if (c->o->fn && c->o->fn_pieces_only) {
        ml_rankrec pieces = {0};
        for (int i = 0; i < ML_RR_MARKS; i++) pieces.mark[i] = -1; /* as ml_rankrec_of begins them */
        rank_task rec = {c, p, unit, k, NULL}, fn = {c, p, unit, k, &pieces};
        ml_par2(fn_run, &fn, rec_run, &rec); /* (fn's own analyses take two threads more) */
        r = rec.r;
        memcpy(r->piece, pieces.piece, sizeof r->piece);
        memcpy(r->mark, pieces.mark, sizeof r->mark);
        r->flags = pieces.flags;
    } else {
        ml_peak_memo peaks = {0}; /* the record's peaks, found again by the command's pieces */
        r = ml_rankrec_of(p, &peaks, &c->rec, unit, k, c->l->units.v[unit].bytes);
        if (c->o->fn) c->o->fn(c->o->arg, p, &peaks, r, c->spool);
    }
    pthread_mutex_lock(&c->mu);
    VEC_PUSH(&c->recs, r);
    pthread_mutex_unlock(&c->mu);
}

/* ---- walk order of the skipped paths ------------------------------------- */

typedef struct skip_entry {
    size_t input, seq;
    char *text;
} skip_entry;

/* Paths compared a component at a time, as a walk visits them (each
 * directory's entries in name order, a directory's own entry before what
 * is below it). */
static int walk_cmp(const char *a, size_t na, const char *b, size_t nb)
{
    size_t i = 0, j = 0;
    for (;;) {
        size_t ea = i, eb = j;
        while (ea < na && a[ea] != '/') ea++;
        while (eb < nb && b[eb] != '/') eb++;
        size_t la = ea - i, lb = eb - j, m = la < lb ? la : lb;
        int c = memcmp(a + i, b + j, m);
        if (c) return c;
        if (la != lb) return la < lb ? -1 : 1;
        bool enda = ea >= na, endb = eb >= nb;
        if (enda || endb) return enda && endb ? 0 : enda ? -1 : 1;
        i = ea + 1, j = eb + 1;
    }
}

static int skip_cmp(const void *x, const void *y)
{
    const skip_entry *a = x, *b = y;
    if (a->input != b->input) return a->input < b->input ? -1 : 1;
    int c = walk_cmp(a->text, ml_skipped_path_len(a->text), b->text, ml_skipped_path_len(b->text));
    if (c) return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---- bytes between processes --------------------------------------------- */

/* What one process found: its failure, its units' profile counts, what it
 * skipped, its records. */
typedef struct share {
    int64_t failed;             /* the failing unit, -1 */
    ml_err err;
    size_t *profiles;           /* per unit of the whole list (its own only set) */
    VEC(ml_unit_skip) skipped;
} share;

#define JOB_MAGIC 0x31424f4a4c4d4cLL

static void pack_share(const share *sh, const size_t *mine, size_t n_mine, ml_rankrec **recs, size_t n_recs,
                       ml_spool *s, ml_bytes *out)
{
    ml_bytes_put_i64(out, JOB_MAGIC);
    ml_bytes_put_i64(out, sh->failed);
    ml_bytes_put_str(out, sh->err.msg);
    ml_bytes_put_i64(out, (int64_t)n_mine);
    for (size_t i = 0; i < n_mine; i++) {
        ml_bytes_put_i64(out, (int64_t)mine[i]);
        ml_bytes_put_i64(out, (int64_t)sh->profiles[mine[i]]);
    }
    ml_bytes_put_i64(out, (int64_t)sh->skipped.len);
    for (size_t i = 0; i < sh->skipped.len; i++) {
        ml_bytes_put_i64(out, (int64_t)sh->skipped.v[i].unit);
        ml_bytes_put_str(out, sh->skipped.v[i].text);
    }
    ml_bytes_put_i64(out, (int64_t)n_recs);
    ml_bytes rb = {0};
    for (size_t i = 0; i < n_recs; i++) {
        rb.len = 0;
        ml_rankrec_pack(recs[i], s, &rb);
        ml_bytes_put_i64(out, (int64_t)rb.len);
        ml_bytes_put(out, rb.p, rb.len);
    }
    ml_bytes_free(&rb);
}

/* Adds another process's share to ours (process 0); false if the bytes are bad. */
static bool unpack_share(const char *p, size_t n, size_t n_units, share *sh, collect *c)
{
    ml_bytes_reader d = {p, n, 0, false};
    if (ml_bytes_get_i64(&d) != JOB_MAGIC) return false;
    int64_t failed = ml_bytes_get_i64(&d);
    char *msg = ml_bytes_get_str(&d);
    if (!msg) return false;
    if (failed >= 0 && (sh->failed < 0 || failed < sh->failed)) {
        sh->failed = failed;
        snprintf(sh->err.msg, sizeof sh->err.msg, "%s", msg);
    }
    free(msg);
    int64_t nm = ml_bytes_get_i64(&d);
    for (int64_t i = 0; i < nm && !d.bad; i++) {
        int64_t u = ml_bytes_get_i64(&d), k = ml_bytes_get_i64(&d);
        if (u >= 0 && (size_t)u < n_units) sh->profiles[u] = (size_t)k;
    }
    int64_t ns = ml_bytes_get_i64(&d);
    for (int64_t i = 0; i < ns && !d.bad; i++) {
        int64_t u = ml_bytes_get_i64(&d);
        char *t = ml_bytes_get_str(&d);
        if (!t) return false;
        VEC_PUSH(&sh->skipped, ((ml_unit_skip){(size_t)u, t}));
    }
    int64_t nr = ml_bytes_get_i64(&d);
    for (int64_t i = 0; i < nr && !d.bad; i++) {
        int64_t len = ml_bytes_get_i64(&d);
        if (d.bad || len < 0 || (uint64_t)len > d.n - d.at) return false;
        ml_rankrec *r;
        if (!ml_rankrec_unpack(d.p + d.at, (size_t)len, c->spool, &r)) return false;
        d.at += (size_t)len;
        VEC_PUSH(&c->recs, r);
    }
    return !d.bad;
}

typedef struct share_in {
    size_t n_units;
    share *sh;
    collect *c;
} share_in;

static bool unpack_share_in(void *arg, const char *p, size_t n)
{
    share_in *in = arg;
    return unpack_share(p, n, in->n_units, in->sh, in->c);
}

int ml_job_gather(const ml_transport *t, const ml_bytes *mine, bool (*unpack)(void *arg, const char *p, size_t n),
                  void *arg, FILE *err)
{
    char *all = NULL;
    uint64_t *lens = NULL;
    int rc = t->gather(mine->p, mine->len, &all, &lens);
    if (rc == 0 && t->me == 0) {
        size_t at = lens[0];
        for (int p = 1; p < t->size && rc == 0; p++) {
            if (!unpack(arg, all + at, lens[p])) rc = -1;
            at += lens[p];
        }
        if (rc < 0) fprintf(err, "memlens: bad records from another process\n");
    }
    free(all);
    free(lens);
    return rc;
}

/* ---- the share of each process ------------------------------------------- */

size_t *ml_job_share(const int64_t *bytes, const bool *only_first, size_t n_items, int size, int me, size_t *n_out)
{
    size_t n = 0;
    size_t *order = ml_malloc((n_items ? n_items : 1) * sizeof *order), *mine = ml_malloc((n_items ? n_items : 1) * sizeof *mine);
    for (size_t i = 0; i < n_items; i++) order[i] = i;
    for (size_t i = 1; i < n_items; i++) { /* insertion sort: bytes descending, then list order */
        size_t x = order[i], j = i;
        while (j > 0 && bytes[order[j - 1]] < bytes[x]) order[j] = order[j - 1], j--;
        order[j] = x;
    }
    int64_t *load = ml_calloc((size_t)size, sizeof *load);
    for (size_t i = 0; i < n_items; i++) {
        size_t x = order[i];
        int to = 0;
        if (!only_first || !only_first[x])
            for (int p = 1; p < size; p++)
                if (load[p] < load[to]) to = p;
        load[to] += bytes[x] > 0 ? bytes[x] : 1;
        if (to == me) mine[n++] = x;
    }
    free(load);
    free(order);
    for (size_t i = 1; i < n; i++) { /* back in list order */
        size_t x = mine[i], j = i;
        while (j > 0 && mine[j - 1] > x) mine[j] = mine[j - 1], j--;
        mine[j] = x;
    }
    *n_out = n;
    return mine;
}

size_t *ml_job_units_share(const ml_unit_list *l, int size, int me, size_t *n_out)
{
    size_t nu = l->units.len;
    int64_t *bytes = ml_malloc((nu ? nu : 1) * sizeof *bytes);
    bool *stdin_unit = ml_malloc((nu ? nu : 1) * sizeof *stdin_unit);
    for (size_t i = 0; i < nu; i++) {
        bytes[i] = l->units.v[i].bytes;
        stdin_unit[i] = strcmp(l->units.v[i].path, "-") == 0; /* process 0 alone can read it */
    }
    size_t *mine = ml_job_share(bytes, stdin_unit, nu, size, me, n_out);
    free(bytes);
    free(stdin_unit);
    return mine;
}

/* ---- the job ------------------------------------------------------------- */

/* Whether the units may give two ranks or more: a file gives one profile
 * (load.c), a folder (an Ascend run, a walk's unit) may give several.  The
 * stragglers compare ranks: a job of one has no use for a rank's record of
 * its communication kernels. */
static bool may_hold_ranks(const ml_unit_list *l)
{
    if (l->units.len != 1) return l->units.len > 1;
    const char *path = l->units.v[0].path;
    struct stat st;
    return strcmp(path, "-") != 0 && (stat(path, &st) != 0 || S_ISDIR(st.st_mode));
}

int ml_job_run(const char *const *inputs, size_t n, const ml_job_opts *o, ml_job *job)
{
    memset(job, 0, sizeof *job);
    const ml_transport *t = ml_transport_now;
    bool writer = !t || t->me == 0;
    FILE *err = o->err;
    ml_err e = {{0}};
    if (ml_units_list(inputs, n, &job->units, &e) < 0) {
        if (writer) fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
        return -1;
    }
    job->spool = ml_spool_new();
    if (!job->spool) {
        if (writer) fprintf(err, "memlens: cannot make a temporary file (TMPDIR)\n");
        return -1;
    }
    const ml_unit_list *l = &job->units;
    size_t nu = l->units.len, n_mine = nu;
    size_t *mine = NULL;
    if (t && t->size > 1) mine = ml_job_units_share(l, t->size, t->me, &n_mine);

    ml_job_opts records_only = *o; /* a logdir the command lists: its figures come from the records */
    records_only.fn = NULL;
    if (o->lists_logdir && l->logdir >= 0) o = &records_only;
    collect c = {.o = o, .rec = o->rec, .l = l, .spool = job->spool};
    if (!may_hold_ranks(l)) c.rec.no_stragglers = true;
    pthread_mutex_init(&c.mu, NULL);
    ml_each_opts eo = {.needs = o->needs, .jobs = o->jobs, .only = mine, .n_only = mine ? n_mine : 0};
    ml_each_result res;
    share sh = {.failed = -1};
    if (mine && !n_mine) memset(&res, 0, sizeof res), res.profiles = ml_calloc(nu ? nu : 1, sizeof *res.profiles);
    else if (ml_load_each(l, &eo, take_rank, &c, &res, &sh.err) < 0) sh.failed = (int64_t)res.failed_unit;
    pthread_mutex_destroy(&c.mu);
    sh.profiles = res.profiles;
    res.profiles = NULL;
    for (size_t i = 0; i < res.skipped.len; i++) VEC_PUSH(&sh.skipped, res.skipped.v[i]);
    res.skipped.len = 0;
    ml_each_result_free(&res);

    int status = 0;
    if (t && t->size > 1) {
        ml_bytes b = {0};
        if (!writer) pack_share(&sh, mine, n_mine, c.recs.v, c.recs.len, job->spool, &b);
        share_in in = {nu, &sh, &c};
        status = ml_job_gather(t, &b, unpack_share_in, &in, o->err);
        ml_bytes_free(&b);
    }
    free(mine);
    if (writer && status == 0 && sh.failed >= 0) {
        fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(sh.err.msg));
        status = -1;
    }
    if (writer && status == 0 && ml_spool_error(job->spool, &e) < 0) { /* a full TMPDIR */
        fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
        status = -1;
    }

    /* a directory that gave no profile at all: what the walk passed over */
    VEC(skip_entry) sk = {0};
    for (size_t i = 0; i < l->skipped.len; i++) {
        /* the listing's entries: their input is the one whose path they start with */
        size_t in = 0;
        for (size_t k = 0; k < n; k++)
            if (!strncmp(l->skipped.v[i], inputs[k], strlen(inputs[k]))) in = k;
        VEC_PUSH(&sk, ((skip_entry){in, sk.len, ml_strdup(l->skipped.v[i])}));
    }
    for (size_t i = 0; i < sh.skipped.len; i++) {
        VEC_PUSH(&sk, ((skip_entry){l->units.v[sh.skipped.v[i].unit].input, sk.len, sh.skipped.v[i].text}));
        sh.skipped.v[i].text = NULL;
    }
    if (sk.len > 1) qsort(sk.v, sk.len, sizeof *sk.v, skip_cmp);
    for (size_t in = 0; writer && status == 0 && in < n; in++) {
        size_t got = 0, units = 0;
        for (size_t u = 0; u < nu; u++)
            if (l->units.v[u].input == in && l->units.v[u].listed) got += sh.profiles[u], units++;
        if (!units || got) continue;
        VEC(char *) mine_sk = {0};
        for (size_t i = 0; i < sk.len; i++)
            if (sk.v[i].input == in) VEC_PUSH(&mine_sk, sk.v[i].text);
        ml_no_profiles_error(inputs[in], mine_sk.v, mine_sk.len, &e);
        fprintf(err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
        VEC_FREE(&mine_sk);
        status = -1;
    }
    for (size_t i = 0; i < sk.len; i++) VEC_PUSH(&job->skipped, sk.v[i].text);
    VEC_FREE(&sk);
    VEC_FREE(&sh.skipped);
    free(sh.profiles);

    job->recs = c.recs.v;
    job->n = c.recs.len;
    if (t && t->size > 1) status = (int)t->bcast(status);
    if (status < 0) return -1;
    if (!writer) return 1;
    ml_rankrecs_sort(job->recs, job->n);
    return 0;
}

int ml_job_exit(int status)
{
    const ml_transport *t = ml_transport_now;
    return t && t->size > 1 ? (int)t->bcast(status) : status;
}

void ml_job_free(ml_job *job)
{
    for (size_t i = 0; i < job->n; i++) ml_rankrec_free(job->recs[i]);
    free(job->recs);
    ml_spool_free(job->spool);
    for (size_t i = 0; i < job->skipped.len; i++) free(job->skipped.v[i]);
    VEC_FREE(&job->skipped);
    ml_unit_list_free(&job->units);
    memset(job, 0, sizeof *job);
}

int ml_job_keep_rank(ml_job *job, int rank, FILE *err)
{
    size_t kept = 0, had = job->n;
    int *loaded = ml_malloc((had ? had : 1) * sizeof *loaded);
    for (size_t i = 0; i < had; i++) {
        ml_rankrec *r = job->recs[i];
        loaded[i] = r->rank;
        if (r->rank == rank) job->recs[kept++] = r;
        else ml_rankrec_free(r);
    }
    job->n = kept;
    ml_err e = {{0}};
    int rc = kept ? 0 : ml_rank_missing_error(rank, loaded, had, &e);
    free(loaded);
    if (rc < 0) fprintf(err, "memlens: %s\n", e.msg);
    return rc;
}

int ml_job_parse_jobs(FILE *err, const char *text, int *out)
{
    return ml_cli_count(err, "-j", text, 1, 4096, "a number of threads (1 or more)", out);
}
