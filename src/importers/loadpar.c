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

/* ---- the pool ----------------------------------------------------------- */

typedef struct pool {
    const ml_unit_list *l;
    const ml_each_opts *o;
    ml_each_fn fn;
    void *arg;
    size_t *order;          /* unit numbers, largest first */
    size_t n;
    bool alone;             /* one thread: each rank may use more */
    pthread_mutex_t mu;
    size_t next;            /* the next place in order to take */
    size_t failed;          /* the first failing unit so far; SIZE_MAX: none */
    ml_err err;
    size_t *profiles;       /* per unit */
    VEC(char *) *skipped;   /* per unit */
} pool;

static void load_one(pool *pl, size_t u)
{
    const ml_unit *unit = &pl->l->units.v[u];
    ml_par_set_thread(pl->alone || unit->bytes >= ML_LOADPAR_BIG);
    ml_profiles ps = {.needs = pl->o->needs};
    ml_err e = {{0}};
    int rc = ml_load_unit(unit->path, unit->listed, &ps, &e);
    if (rc == 0) {
        ml_profiles_sort(&ps);
        for (size_t k = 0; k < ps.items.len; k++) {
            pl->fn(pl->arg, u, k, ps.items.v[k]);
            ml_profile_free(ps.items.v[k]);
            ps.items.v[k] = NULL;
        }
    }
    pthread_mutex_lock(&pl->mu);
    if (rc != 0 && u < pl->failed) {
        pl->failed = u;
        pl->err = e;
    }
    pl->profiles[u] = rc == 0 ? ps.items.len : 0;
    for (size_t i = 0; i < ps.skipped.len; i++) VEC_PUSH(&pl->skipped[u], ps.skipped.v[i]);
    pthread_mutex_unlock(&pl->mu);
    VEC_FREE(&ps.skipped);
    ps.items.len = 0;
    ml_profiles_free(&ps);
    ml_par_set_thread(true);
}

static void *worker(void *arg)
{
    pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        size_t u = SIZE_MAX;
        while (pl->next < pl->n && !(pl->o->stop && *pl->o->stop)) {
            size_t c = pl->order[pl->next++];
            if (c < pl->failed) { /* a unit after one that failed: its error would not be told */
                u = c;
                break;
            }
        }
        pthread_mutex_unlock(&pl->mu);
        if (u == SIZE_MAX) return NULL;
        load_one(pl, u);
    }
}

static const ml_unit_list *sort_list;
static int by_bytes_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int64_t bx = sort_list->units.v[x].bytes, by = sort_list->units.v[y].bytes;
    if (bx != by) return bx > by ? -1 : 1;
    return x < y ? -1 : x > y;
}

int ml_load_each(const ml_unit_list *l, const ml_each_opts *o, ml_each_fn fn, void *arg, ml_each_result *res,
                 ml_err *e)
{
    size_t nu = l->units.len;
    pool pl = {.l = l, .o = o, .fn = fn, .arg = arg, .failed = SIZE_MAX};
    pl.order = ml_malloc((nu ? nu : 1) * sizeof *pl.order);
    if (o->only)
        for (size_t i = 0; i < o->n_only; i++) pl.order[pl.n++] = o->only[i];
    else
        for (size_t i = 0; i < nu; i++) pl.order[pl.n++] = i;
    /* largest first (qsort's comparator has no context argument: the list is
     * a static, so one sort at a time) */
    static pthread_mutex_t sort_mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&sort_mu);
    sort_list = l;
    if (pl.n > 1) qsort(pl.order, pl.n, sizeof *pl.order, by_bytes_desc);
    pthread_mutex_unlock(&sort_mu);
    pl.profiles = ml_calloc(nu ? nu : 1, sizeof *pl.profiles);
    pl.skipped = ml_calloc(nu ? nu : 1, sizeof *pl.skipped);
    pthread_mutex_init(&pl.mu, NULL);

    int jobs = ml_loadpar_jobs(o->jobs);
    if ((size_t)jobs > pl.n) jobs = pl.n ? (int)pl.n : 1;
    pl.alone = jobs == 1;
    pthread_t *th = ml_calloc((size_t)jobs, sizeof *th);
    int started = 0;
    for (int i = 1; i < jobs; i++) /* this thread is the first worker */
        if (pthread_create(&th[started], NULL, worker, &pl) == 0) started++;
    worker(&pl);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&pl.mu);

    memset(res, 0, sizeof *res);
    res->profiles = pl.profiles;
    for (size_t u = 0; u < nu; u++) {
        for (size_t i = 0; i < pl.skipped[u].len; i++) VEC_PUSH(&res->skipped, ((ml_unit_skip){u, pl.skipped[u].v[i]}));
        VEC_FREE(&pl.skipped[u]);
    }
    free(pl.skipped);
    free(pl.order);
    if (pl.failed != SIZE_MAX) {
        res->failed_unit = pl.failed;
        if (e) *e = pl.err;
        return -1;
    }
    return 0;
}

void ml_each_result_free(ml_each_result *r)
{
    free(r->profiles);
    for (size_t i = 0; i < r->skipped.len; i++) free(r->skipped.v[i].text);
    VEC_FREE(&r->skipped);
    memset(r, 0, sizeof *r);
}
