/*
 * loadpar.c — see loadpar.h.
 */
#include "loadpar.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "par.h"

int ml_loadpar_jobs(int jobs)
{
    if (jobs > 0) return jobs;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* The bytes below a folder (an Ascend rank), for balancing the work. */
static int64_t tree_bytes(const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) return (int64_t)st.st_size;
    if (!S_ISDIR(st.st_mode) || depth > 8) return 0;
    DIR *d = opendir(path);
    if (!d) return 0;
    int64_t sum = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        size_t n = strlen(path) + strlen(de->d_name) + 2;
        char *child = ml_malloc(n);
        snprintf(child, n, "%s/%s", path, de->d_name);
        sum += tree_bytes(child, depth + 1);
        free(child);
    }
    closedir(d);
    return sum;
}

static void add_unit(ml_unit_list *out, const char *path, bool listed, size_t input)
{
    struct stat st;
    int64_t bytes = -1;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0)
        bytes = S_ISDIR(st.st_mode) ? tree_bytes(path, 0) : (int64_t)st.st_size;
    ml_unit u = {ml_strdup(path), bytes, listed, input, {0}};
    VEC_PUSH(&out->units, u);
}

/* The units of directory input i (dir; span: the part after '@', or NULL),
 * from its listing: classified, and cut to the span asked for. */
static int add_dir(ml_unit_list *out, const char *input, const char *dir, const char *span, size_t i, ml_units *u,
                   ml_err *e)
{
    size_t n = u->paths.len, runs = 0;
    int max_spans = 0;
    ml_logdir_place *place = ml_calloc(n ? n : 1, sizeof *place);
    bool runs_view = ml_logdir_classify(dir, u->paths.v, n, place, &runs, &max_spans);
    if (span && !runs) {
        free(place);
        return ml_fail(e, "%s: %s holds no spans (files named WORKER.TIMESTAMP.pt.trace.json, as "
                          "tensorboard_trace_handler names them)", input, dir);
    }
    size_t kept = 0;
    VEC(char *) kept_runs = {0};
    for (size_t j = 0; j < n; j++) {
        if (span && !ml_logdir_span_is(&place[j], span)) {
            ml_logdir_place_free(&place[j]);
            continue;
        }
        /* a folder named itself (an Ascend rank) is loaded as named: unreadable, it is an error */
        add_unit(out, u->paths.v[j], strcmp(u->paths.v[j], dir) != 0, i);
        bool seen = false;
        for (size_t r = 0; r < kept_runs.len && place[j].run; r++) seen |= !strcmp(kept_runs.v[r], place[j].run);
        if (place[j].run && !seen) VEC_PUSH(&kept_runs, ml_strdup(place[j].run));
        if (runs_view || span) out->units.v[out->units.len - 1].place = place[j];
        else ml_logdir_place_free(&place[j]);
        kept++;
    }
    free(place);
    bool several_runs = kept_runs.len > 1;
    for (size_t r = 0; r < kept_runs.len; r++) free(kept_runs.v[r]);
    VEC_FREE(&kept_runs);
    if (span && !kept)
        return ml_fail(e, "%s: no span %s in %s (a span is a number from 1 to %d, or a timestamp of a file's name)",
                       input, span, dir, max_spans);
    if (out->logdir < 0 && (span ? several_runs : runs_view)) out->logdir = (int)i;
    return 0;
}

int ml_units_list(const char *const *inputs, size_t n, ml_unit_list *out, ml_err *e)
{
    out->logdir = -1;
    for (size_t i = 0; i < n; i++) {
        const char *in = inputs[i], *span = NULL;
        char *dir = NULL;
        struct stat st;
        if (ml_logdir_split(in, &dir, &span)) st.st_mode = S_IFDIR;
        else if (strcmp(in, "-") != 0 && stat(in, &st) < 0) return ml_fail(e, "%s: %s", in, strerror(errno));
        if (!dir && (strcmp(in, "-") == 0 || !S_ISDIR(st.st_mode))) {
            add_unit(out, in, false, i);
            continue;
        }
        ml_units u = {0};
        int rc = ml_list_dir(dir ? dir : in, &u, e);
        if (rc == 0) rc = add_dir(out, in, dir ? dir : in, span, i, &u, e);
        for (size_t j = 0; j < u.skipped.len; j++) VEC_PUSH(&out->skipped, u.skipped.v[j]);
        u.skipped.len = 0;
        ml_units_free(&u);
        free(dir);
        if (rc != 0) return -1;
    }
    return 0;
}

void ml_unit_list_free(ml_unit_list *l)
{
    for (size_t i = 0; i < l->units.len; i++) {
        free(l->units.v[i].path);
        ml_logdir_place_free(&l->units.v[i].place);
    }
    VEC_FREE(&l->units);
    for (size_t i = 0; i < l->skipped.len; i++) free(l->skipped.v[i]);
    VEC_FREE(&l->skipped);
}

int ml_units_load(const char *input, ml_profiles *ps, ml_err *e)
{
    ml_unit_list l = {0};
    int rc = ml_units_list(&input, 1, &l, e);
    if (rc == 0 && l.logdir >= 0) rc = ml_units_logdir_error(&l, input, e);
    for (size_t i = 0; i < l.units.len && rc == 0; i++) rc = ml_load_unit(l.units.v[i].path, l.units.v[i].listed, ps, e);
    for (size_t i = 0; i < l.skipped.len; i++) VEC_PUSH(&ps->skipped, l.skipped.v[i]);
    l.skipped.len = 0;
    ml_unit_list_free(&l);
    return rc;
}

int ml_units_logdir_error(const ml_unit_list *l, const char *input, ml_err *e)
{
    char names[300] = "";
    size_t used = 0, runs = 0;
    int spans = 0;
    const ml_unit *one = NULL;
    for (size_t i = 0; i < l->units.len; i++) {
        const ml_unit *u = &l->units.v[i];
        if ((int)u->input != l->logdir || !u->place.run) continue;
        if (u->place.spans > spans) spans = u->place.spans, one = u;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = (int)l->units.v[k].input == l->logdir && l->units.v[k].place.run &&
                   !strcmp(l->units.v[k].place.run, u->place.run);
        if (seen) continue;
        if (runs < 8 && used + strlen(u->place.run) + 4 < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", runs ? ", " : "", u->place.run);
        runs++;
    }
    if (runs > 1)
        return ml_fail(e, "%s: a TensorBoard logdir of %zu runs (%s%s): name one, as %s/RUN (and RUN@SPAN for one "
                          "of its spans); `memlens summary %s` lists them", input, runs, names, runs > 8 ? ", ..." : "",
                       input, input);
    return ml_fail(e, "%s: run %s has %d spans (profiling windows) per worker: name one, as %s@N (N from 1 to %d) "
                      "or %s@TIMESTAMP; `memlens summary %s` lists them", input, one ? one->place.run : "?", spans,
                   input, spans, input, input);
}

/* ---- the loader ---------------------------------------------------------- */

typedef struct queued {
    ml_load_req r;          /* r.path owned */
} queued;

typedef VEC(queued) queued_vec;

struct ml_loader {
    pthread_mutex_t mu;
    pthread_cond_t work;
    queued_vec q[2];        /* by priority: ML_LOAD_NOW, ML_LOAD_BACKGROUND */
    size_t head[2];
    int background_running, background_max;
    int stop;
    pthread_t *th;
    int nth;
};

static void load_queued(const ml_loader *ld, queued *it)
{
    const ml_load_req *r = &it->r;
    if (r->begin && !r->begin(r->arg, r->tag)) {
        r->done(r->arg, r->tag, NULL, 0, NULL);
        return;
    }
    /* a small rank among many stays on its thread (loadpar.h) */
    ml_par_set_thread(ld->nth == 1 || r->prio == ML_LOAD_NOW || r->bytes >= ML_LOADPAR_BIG);
    ml_profiles ps = {.needs = r->needs, .limits = r->limits};
    ml_err e = {{0}};
    int rc = ml_load_unit(r->path, r->listed, &ps, &e);
    if (rc == 0) ml_profiles_sort(&ps);
    r->done(r->arg, r->tag, &ps, rc, &e);
    ml_profiles_free(&ps);
    ml_par_set_thread(true);
}

static void *loader_thread(void *arg)
{
    ml_loader *ld = arg;
    pthread_mutex_lock(&ld->mu);
    for (;;) {
        int pick = -1;
        while (!ld->stop) {
            if (ld->head[ML_LOAD_NOW] < ld->q[ML_LOAD_NOW].len) pick = ML_LOAD_NOW;
            else if (ld->head[ML_LOAD_BACKGROUND] < ld->q[ML_LOAD_BACKGROUND].len &&
                     ld->background_running < ld->background_max)
                pick = ML_LOAD_BACKGROUND;
            if (pick >= 0) break;
            pthread_cond_wait(&ld->work, &ld->mu);
        }
        if (ld->stop) break;
        queued it = ld->q[pick].v[ld->head[pick]++];
        if (pick == ML_LOAD_BACKGROUND) ld->background_running++;
        pthread_mutex_unlock(&ld->mu);
        load_queued(ld, &it);
        free((char *)it.r.path);
        pthread_mutex_lock(&ld->mu);
        if (pick == ML_LOAD_BACKGROUND) {
            ld->background_running--;
            pthread_cond_signal(&ld->work); /* a background load may wait for this place */
        }
    }
    pthread_mutex_unlock(&ld->mu);
    return NULL;
}

ml_loader *ml_loader_start(int jobs, int background_max, ml_err *e)
{
    ml_loader *ld = ml_calloc(1, sizeof *ld);
    jobs = ml_loadpar_jobs(jobs);
    ld->background_max = background_max > 0 && background_max < jobs ? background_max : jobs;
    pthread_mutex_init(&ld->mu, NULL);
    pthread_cond_init(&ld->work, NULL);
    ld->th = ml_calloc((size_t)jobs, sizeof *ld->th);
    for (int i = 0; i < jobs; i++)
        if (pthread_create(&ld->th[ld->nth], NULL, loader_thread, ld) == 0) ld->nth++;
    if (!ld->nth) {
        ml_loader_stop(ld);
        ml_fail(e, "cannot start a thread to load ranks");
        return NULL;
    }
    return ld;
}

void ml_loader_submit(ml_loader *ld, const ml_load_req *r)
{
    queued it = {*r};
    it.r.path = ml_strdup(r->path);
    pthread_mutex_lock(&ld->mu);
    VEC_PUSH(&ld->q[r->prio], it);
    /* every thread: the one woken may not be allowed a background load */
    pthread_cond_broadcast(&ld->work);
    pthread_mutex_unlock(&ld->mu);
}

int ml_loader_threads(const ml_loader *ld) { return ld->nth; }

void ml_loader_stop(ml_loader *ld)
{
    if (!ld) return;
    pthread_mutex_lock(&ld->mu);
    ld->stop = 1;
    pthread_cond_broadcast(&ld->work);
    pthread_mutex_unlock(&ld->mu);
    for (int i = 0; i < ld->nth; i++) pthread_join(ld->th[i], NULL);
    free(ld->th);
    for (int p = 0; p < 2; p++) { /* not begun: told so, for whoever waits on them */
        for (size_t i = ld->head[p]; i < ld->q[p].len; i++) {
            ml_load_req *r = &ld->q[p].v[i].r;
            r->done(r->arg, r->tag, NULL, 0, NULL);
            free((char *)r->path);
        }
        VEC_FREE(&ld->q[p]);
    }
    pthread_cond_destroy(&ld->work);
    pthread_mutex_destroy(&ld->mu);
    free(ld);
}

/* ---- batches ---------------------------------------------------------- */

struct ml_batch {
    const ml_unit_list *l;
    const ml_each_opts *o;
    ml_each_fn fn;
    void *arg;
    pthread_mutex_t mu;
    pthread_cond_t all_done;
    size_t n, ended;        /* units queued, and loaded or skipped */
    size_t failed;          /* the first failing unit so far; SIZE_MAX: none */
    ml_err err;
    size_t *profiles;       /* per unit */
    VEC(char *) *skipped;   /* per unit */
};

/* A unit after one that failed is not begun: its error would not be told. */
static bool batch_begin(void *arg, size_t u)
{
    ml_batch *b = arg;
    pthread_mutex_lock(&b->mu);
    bool go = u < b->failed && !(b->o->stop && *b->o->stop);
    pthread_mutex_unlock(&b->mu);
    return go;
}

static void batch_done(void *arg, size_t u, ml_profiles *ps, int rc, const ml_err *e)
{
    ml_batch *b = arg;
    if (ps && rc == 0)
        for (size_t k = 0; k < ps->items.len; k++) {
            b->fn(b->arg, u, k, ps->items.v[k]);
            ml_profile_free(ps->items.v[k]);
            ps->items.v[k] = NULL;
        }
    pthread_mutex_lock(&b->mu);
    if (ps && rc != 0 && u < b->failed) {
        b->failed = u;
        b->err = *e;
    }
    if (ps) {
        b->profiles[u] = rc == 0 ? ps->items.len : 0;
        for (size_t i = 0; i < ps->skipped.len; i++) VEC_PUSH(&b->skipped[u], ps->skipped.v[i]);
        ps->skipped.len = 0;
    }
    if (++b->ended == b->n) pthread_cond_broadcast(&b->all_done);
    pthread_mutex_unlock(&b->mu);
}

static const ml_unit_list *sort_list;
static int by_bytes_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int64_t bx = sort_list->units.v[x].bytes, by = sort_list->units.v[y].bytes;
    if (bx != by) return bx > by ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The units to load, largest first (the big ones must not be left for the end). */
static size_t *batch_order(const ml_unit_list *l, const ml_each_opts *o, size_t *n)
{
    size_t nu = l->units.len;
    size_t *order = ml_malloc((nu ? nu : 1) * sizeof *order);
    *n = 0;
    if (o->only)
        for (size_t i = 0; i < o->n_only; i++) order[(*n)++] = o->only[i];
    else
        for (size_t i = 0; i < nu; i++) order[(*n)++] = i;
    /* (qsort's comparator has no context argument: the list is a static, so one sort at a time) */
    static pthread_mutex_t sort_mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&sort_mu);
    sort_list = l;
    if (*n > 1) qsort(order, *n, sizeof *order, by_bytes_desc);
    pthread_mutex_unlock(&sort_mu);
    return order;
}

ml_batch *ml_batch_start(ml_loader *ld, const ml_unit_list *l, const ml_each_opts *o, ml_load_prio prio,
                         ml_each_fn fn, void *arg)
{
    size_t nu = l->units.len;
    ml_batch *b = ml_calloc(1, sizeof *b);
    *b = (ml_batch){.l = l, .o = o, .fn = fn, .arg = arg, .failed = SIZE_MAX};
    b->profiles = ml_calloc(nu ? nu : 1, sizeof *b->profiles);
    b->skipped = ml_calloc(nu ? nu : 1, sizeof *b->skipped);
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->all_done, NULL);
    size_t *order = batch_order(l, o, &b->n);
    for (size_t i = 0; i < b->n; i++) {
        const ml_unit *u = &l->units.v[order[i]];
        ml_load_req r = {.path = u->path, .listed = u->listed, .bytes = u->bytes, .needs = o->needs, .prio = prio,
                         .begin = batch_begin, .done = batch_done, .arg = b, .tag = order[i]};
        ml_loader_submit(ld, &r);
    }
    free(order);
    return b;
}

int ml_batch_wait(ml_batch *b, ml_each_result *res, ml_err *e)
{
    pthread_mutex_lock(&b->mu);
    while (b->ended < b->n) pthread_cond_wait(&b->all_done, &b->mu);
    pthread_mutex_unlock(&b->mu);
    size_t nu = b->l->units.len;
    memset(res, 0, sizeof *res);
    res->profiles = b->profiles;
    for (size_t u = 0; u < nu; u++) {
        for (size_t i = 0; i < b->skipped[u].len; i++) VEC_PUSH(&res->skipped, ((ml_unit_skip){u, b->skipped[u].v[i]}));
        VEC_FREE(&b->skipped[u]);
    }
    free(b->skipped);
    int rc = 0;
    if (b->failed != SIZE_MAX) {
        res->failed_unit = b->failed;
        if (e) *e = b->err;
        rc = -1;
    }
    pthread_cond_destroy(&b->all_done);
    pthread_mutex_destroy(&b->mu);
    free(b);
    return rc;
}

int ml_load_each(const ml_unit_list *l, const ml_each_opts *o, ml_each_fn fn, void *arg, ml_each_result *res,
                 ml_err *e)
{
    size_t n = o->only ? o->n_only : l->units.len;
    int jobs = ml_loadpar_jobs(o->jobs);
    if ((size_t)jobs > n) jobs = n ? (int)n : 1;
    ml_loader *ld = ml_loader_start(jobs, 0, e);
    if (!ld) {
        memset(res, 0, sizeof *res);
        res->profiles = ml_calloc(l->units.len ? l->units.len : 1, sizeof *res->profiles);
        return -1;
    }
    ml_batch *b = ml_batch_start(ld, l, o, ML_LOAD_BACKGROUND, fn, arg);
    int rc = ml_batch_wait(b, res, e);
    ml_loader_stop(ld);
    return rc;
}

void ml_each_result_free(ml_each_result *r)
{
    free(r->profiles);
    for (size_t i = 0; i < r->skipped.len; i++) free(r->skipped.v[i].text);
    VEC_FREE(&r->skipped);
    memset(r, 0, sizeof *r);
}
