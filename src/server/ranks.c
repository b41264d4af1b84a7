/*
 * ranks.c — lazy import of ranks on a pool of worker threads; see ranks.h.
 */
#include "ranks.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "headrank.h"
#include "importer.h"

typedef VEC(ml_sv_rank *) ml_sv_rank_vec;
typedef VEC(char *) ml_str_vec;

typedef struct slot {
    char *path;
    ml_slot_state state;
    ml_sv_rank *view;
    char *error;
    int64_t bytes;              /* input size on disk, -1 if unknown */
    bool listed;                /* found by listing a directory input (loadpar.h) */
    size_t input;               /* the input it came from */
    double started, took;       /* seconds (monotonic); took: import + build */
    int head_rank, head_world;  /* what the file's head says of it before it loads (headrank.h), or -1 */
} slot;

struct ml_ranks {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    VEC(slot *) slots;
    VEC(size_t) queue;          /* slot numbers, FIFO */
    size_t qhead;
    VEC(char *) inputs;
    VEC(char *) skipped;
    pthread_t *threads;
    int nthreads;
    int stop;
    pthread_mutex_t dist_mu;    /* guards the three below */
    size_t dist_key;            /* ready slots the latest view covers; 0: none computed */
    ml_distributed *dist;       /* the latest (NULL: not a distributed run) */
    VEC(ml_distributed *) old_dists; /* earlier views, kept for callers still writing them */
    ml_sv_cluster *cluster;     /* the Cluster view of the slots listed at start (two or more), or NULL */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int64_t size_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

static slot *slot_new(const char *path)
{
    slot *s = ml_calloc(1, sizeof *s);
    s->path = ml_strdup(path);
    s->bytes = size_of(path);
    s->head_rank = s->head_world = -1;
    return s;
}

/* Imports path into its views (more than one for a folder of several
 * profiles); the paths skipped go to skipped.  Without the lock.  With
 * shown (an upload), the profiles are named so, never by their path on the
 * server; lim: the upload's limits (NULL: none). */
static int load_views(const char *path, const char *shown, const ml_input_limits *lim, ml_sv_rank_vec *views,
                      ml_str_vec *skipped, ml_err *e)
{
    ml_profiles ps = { .want = ML_WANT_TRACE }; /* the profiler views (/api/perf, /api/trace) read p->trace */
    if (lim) ps.limits = *lim;
    int rc = ml_load(path, &ps, e);
    if (rc == 0) {
        ml_profiles_sort(&ps);
        for (size_t i = 0; i < ps.items.len; i++) {
            if (shown) {
                free(ps.items.v[i]->path);
                ps.items.v[i]->path = ml_strdup(shown);
            }
            ml_sv_rank *v = rc == 0 ? ml_sv_rank_build(ps.items.v[i], e) : NULL;
            if (!v && rc == 0) rc = -1;
            else if (!v) ml_profile_free(ps.items.v[i]);
            else VEC_PUSH(views, v);
            ps.items.v[i] = NULL;
        }
        if (rc == 0 && !views->len) rc = ml_fail(e, "%s: no profile in it", path);
    }
    if (rc != 0) {
        for (size_t i = 0; i < views->len; i++) ml_sv_rank_free(views->v[i]);
        views->len = 0;
    }
    for (size_t i = 0; i < ps.skipped.len; i++) VEC_PUSH(skipped, ps.skipped.v[i]);
    VEC_FREE(&ps.skipped);
    VEC_FREE(&ps.items);
    return rc;
}

/* Imports one slot (called on a worker, without the lock). */
static void import_slot(ml_ranks *rs, size_t k)
{
    pthread_mutex_lock(&rs->mu);
    slot *s = rs->slots.v[k];
    char *path = ml_strdup(s->path);
    pthread_mutex_unlock(&rs->mu);

    ml_err e = {{0}};
    ml_sv_rank_vec views = {0};
    ml_str_vec skipped = {0};
    int rc = load_views(path, NULL, NULL, &views, &skipped, &e);
    free(path);

    pthread_mutex_lock(&rs->mu);
    s = rs->slots.v[k];
    s->took = now_s() - s->started;
    if (rc != 0) {
        s->state = ML_SLOT_FAILED;
        s->error = ml_strdup(e.msg);
    } else {
        s->view = views.v[0];
        s->state = ML_SLOT_READY;
        for (size_t i = 1; i < views.len; i++) { /* more profiles than slots: new slots at the end */
            slot *x = slot_new(s->path);
            x->view = views.v[i];
            x->state = ML_SLOT_READY;
            x->took = s->took;
            VEC_PUSH(&rs->slots, x);
        }
    }
    for (size_t i = 0; i < skipped.len; i++) VEC_PUSH(&rs->skipped, skipped.v[i]);
    VEC_FREE(&skipped);
    VEC_FREE(&views);
    pthread_cond_broadcast(&rs->done);
    pthread_mutex_unlock(&rs->mu);
}

long ml_ranks_add(ml_ranks *rs, const char *path, const char *name, const ml_input_limits *lim, ml_err *e)
{
    double t = now_s();
    ml_sv_rank_vec views = {0};
    ml_str_vec skipped = {0};
    int rc = load_views(path, name, lim, &views, &skipped, e);
    for (size_t i = 0; i < skipped.len; i++) free(skipped.v[i]); /* an upload is one file: nothing to say */
    VEC_FREE(&skipped);
    if (rc != 0) {
        VEC_FREE(&views);
        return -1;
    }
    pthread_mutex_lock(&rs->mu);
    long first = (long)rs->slots.len;
    VEC_PUSH(&rs->inputs, ml_strdup(name ? name : path));
    for (size_t i = 0; i < views.len; i++) {
        slot *x = slot_new(path);
        if (name) { /* the name the user gave, not where the server keeps the file */
            free(x->path);
            x->path = ml_strdup(name);
        }
        x->view = views.v[i];
        x->state = ML_SLOT_READY;
        x->took = now_s() - t;
        VEC_PUSH(&rs->slots, x);
    }
    pthread_cond_broadcast(&rs->done);
    pthread_mutex_unlock(&rs->mu);
    VEC_FREE(&views);
    return first;
}

static void *worker(void *arg)
{
    ml_ranks *rs = arg;
    pthread_mutex_lock(&rs->mu);
    for (;;) {
        while (!rs->stop && rs->qhead == rs->queue.len) pthread_cond_wait(&rs->work, &rs->mu);
        if (rs->stop) break;
        size_t k = rs->queue.v[rs->qhead++];
        rs->slots.v[k]->state = ML_SLOT_LOADING;
        rs->slots.v[k]->started = now_s();
        pthread_mutex_unlock(&rs->mu);
        import_slot(rs, k);
        pthread_mutex_lock(&rs->mu);
    }
    pthread_mutex_unlock(&rs->mu);
    return NULL;
}

ml_ranks *ml_ranks_open(const char *const *inputs, size_t n, int threads, ml_err *e)
{
    ml_ranks *rs = ml_calloc(1, sizeof *rs);
    pthread_mutex_init(&rs->mu, NULL);
    pthread_mutex_init(&rs->dist_mu, NULL);
    pthread_cond_init(&rs->work, NULL);
    pthread_cond_init(&rs->done, NULL);
    for (size_t i = 0; i < n; i++) {
        VEC_PUSH(&rs->inputs, ml_strdup(inputs[i]));
        struct stat st;
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) != 0) {
            ml_fail(e, "%s: %s", inputs[i], strerror(errno));
            ml_ranks_free(rs);
            return NULL;
        }
        if (strcmp(inputs[i], "-") != 0 && S_ISDIR(st.st_mode)) {
            ml_units u = {0};
            if (ml_list_dir(inputs[i], &u, e) != 0) {
                ml_units_free(&u);
                ml_ranks_free(rs);
                return NULL;
            }
            for (size_t j = 0; j < u.paths.len; j++) {
                slot *x = slot_new(u.paths.v[j]);
                ml_head_rank_file(x->path, &x->head_rank, &x->head_world); /* the page names it so before it loads */
                x->listed = strcmp(u.paths.v[j], inputs[i]) != 0;
                x->input = i;
                VEC_PUSH(&rs->slots, x);
            }
            for (size_t j = 0; j < u.skipped.len; j++) VEC_PUSH(&rs->skipped, u.skipped.v[j]);
            u.skipped.len = 0;
            ml_units_free(&u);
        } else {
            slot *x = slot_new(inputs[i]);
            if (strcmp(inputs[i], "-") != 0) ml_head_rank_file(x->path, &x->head_rank, &x->head_world);
            x->input = i;
            VEC_PUSH(&rs->slots, x);
        }
    }
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (int)c : 1;
    }
    if (threads > 16) threads = 16;
    if ((size_t)threads > rs->slots.len) threads = rs->slots.len ? (int)rs->slots.len : 1;
    rs->threads = ml_calloc((size_t)threads, sizeof *rs->threads);
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&rs->threads[i], NULL, worker, rs) != 0) break;
        rs->nthreads++;
    }
    if (!rs->nthreads) {
        ml_fail(e, "cannot start a worker thread");
        ml_ranks_free(rs);
        return NULL;
    }
    /* a job: its Cluster view, every rank read once in the background (not stdin: read once only) */
    bool stdin_in = false;
    for (size_t i = 0; i < rs->slots.len; i++) stdin_in |= !strcmp(rs->slots.v[i]->path, "-");
    if (rs->slots.len >= 2 && !stdin_in) {
        ml_unit_list l = {0};
        for (size_t i = 0; i < rs->slots.len; i++) {
            const slot *x = rs->slots.v[i];
            ml_unit u = {x->path, x->bytes, x->listed, x->input};
            VEC_PUSH(&l.units, u);
        }
        rs->cluster = ml_sv_cluster_start(&l, threads > 1 ? threads - 1 : 1);
        VEC_FREE(&l.units); /* the paths are the slots' (copied) */
    }
    return rs;
}

void ml_ranks_free(ml_ranks *rs)
{
    if (!rs) return;
    ml_sv_cluster_free(rs->cluster);
    pthread_mutex_lock(&rs->mu);
    rs->stop = 1;
    pthread_cond_broadcast(&rs->work);
    pthread_mutex_unlock(&rs->mu);
    for (int i = 0; i < rs->nthreads; i++) pthread_join(rs->threads[i], NULL);
    free(rs->threads);
    for (size_t i = 0; i < rs->slots.len; i++) {
        slot *s = rs->slots.v[i];
        ml_sv_rank_free(s->view);
        free(s->path);
        free(s->error);
        free(s);
    }
    VEC_FREE(&rs->slots);
    VEC_FREE(&rs->queue);
    for (size_t i = 0; i < rs->inputs.len; i++) free(rs->inputs.v[i]);
    VEC_FREE(&rs->inputs);
    for (size_t i = 0; i < rs->skipped.len; i++) free(rs->skipped.v[i]);
    VEC_FREE(&rs->skipped);
    if (rs->dist) ml_distributed_free(rs->dist);
    for (size_t i = 0; i < rs->old_dists.len; i++) ml_distributed_free(rs->old_dists.v[i]);
    VEC_FREE(&rs->old_dists);
    pthread_cond_destroy(&rs->work);
    pthread_cond_destroy(&rs->done);
    pthread_mutex_destroy(&rs->dist_mu);
    pthread_mutex_destroy(&rs->mu);
    free(rs);
}

ml_sv_cluster *ml_ranks_cluster(ml_ranks *rs) { return rs->cluster; }

size_t ml_ranks_count(ml_ranks *rs)
{
    pthread_mutex_lock(&rs->mu);
    size_t n = rs->slots.len;
    pthread_mutex_unlock(&rs->mu);
    return n;
}

void ml_ranks_request(ml_ranks *rs, size_t k)
{
    pthread_mutex_lock(&rs->mu);
    if (k < rs->slots.len && rs->slots.v[k]->state == ML_SLOT_PENDING) {
        rs->slots.v[k]->state = ML_SLOT_QUEUED;
        rs->slots.v[k]->started = now_s();
        VEC_PUSH(&rs->queue, k);
        pthread_cond_signal(&rs->work);
    }
    pthread_mutex_unlock(&rs->mu);
}

ml_sv_rank *ml_ranks_get(ml_ranks *rs, size_t k, ml_slot_state *state)
{
    pthread_mutex_lock(&rs->mu);
    ml_sv_rank *v = NULL;
    ml_slot_state st = ML_SLOT_FAILED;
    if (k < rs->slots.len) {
        st = rs->slots.v[k]->state;
        v = rs->slots.v[k]->view;
    }
    pthread_mutex_unlock(&rs->mu);
    if (state) *state = st;
    return v;
}

ml_slot_state ml_ranks_wait(ml_ranks *rs, size_t k, int timeout_ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) { dl.tv_sec++; dl.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&rs->mu);
    ml_slot_state st = ML_SLOT_FAILED;
    while (k < rs->slots.len) {
        st = rs->slots.v[k]->state;
        if (st == ML_SLOT_READY || st == ML_SLOT_FAILED || st == ML_SLOT_PENDING) break;
        if (pthread_cond_timedwait(&rs->done, &rs->mu, &dl) == ETIMEDOUT) {
            st = rs->slots.v[k]->state;
            break;
        }
    }
    pthread_mutex_unlock(&rs->mu);
    return st;
}

const ml_distributed *ml_ranks_distributed(ml_ranks *rs, size_t *key)
{
    pthread_mutex_lock(&rs->dist_mu);
    /* the profiles of the ready slots: a ready slot's view is never changed nor freed before ml_ranks_free */
    VEC(ml_profile *) ps = {0};
    pthread_mutex_lock(&rs->mu);
    for (size_t i = 0; i < rs->slots.len; i++)
        if (rs->slots.v[i]->state == ML_SLOT_READY && rs->slots.v[i]->view) VEC_PUSH(&ps, rs->slots.v[i]->view->p);
    pthread_mutex_unlock(&rs->mu);
    if (ps.len && ps.len != rs->dist_key) {
        if (rs->dist) VEC_PUSH(&rs->old_dists, rs->dist);
        rs->dist = ml_distributed_compute(ps.v, ps.len);
        rs->dist_key = ps.len;
    }
    VEC_FREE(&ps);
    const ml_distributed *d = rs->dist;
    *key = rs->dist_key;
    pthread_mutex_unlock(&rs->dist_mu);
    return d;
}

static const char *state_name(ml_slot_state s)
{
    static const char *const names[] = {"pending", "queued", "loading", "ready", "failed"};
    return names[s];
}

static void slot_json(ml_ranks *rs, size_t k, ml_buf *out) /* lock held */
{
    slot *s = rs->slots.v[k];
    ml_buf_printf(out, "{\"index\":%zu,\"path\":", k);
    ml_json_str(out, s->path);
    ml_buf_printf(out, ",\"state\":\"%s\",\"bytes\":%lld", state_name(s->state), (long long)s->bytes);
    double secs = s->state == ML_SLOT_READY || s->state == ML_SLOT_FAILED ? s->took
                  : s->state == ML_SLOT_PENDING ? 0 : now_s() - s->started;
    ml_buf_printf(out, ",\"seconds\":%.3f", secs);
    if (s->error) {
        ml_buf_puts(out, ",\"error\":");
        ml_json_str(out, s->error);
    }
    if (s->view) {
        const ml_profile *p = s->view->p;
        ml_buf_printf(out, ",\"rank\":%d,\"world_size\":%d,\"format\":", p->rank, p->world_size);
        ml_json_str(out, p->format);
        ml_buf_printf(out, ",\"devices\":%zu", s->view->ndev);
    } else if (s->head_rank >= 0) /* not loaded yet: the rank its head names */
        ml_buf_printf(out, ",\"rank\":%d,\"world_size\":%d", s->head_rank, s->head_world);
    ml_buf_puts(out, "}");
}

void ml_ranks_slot_json(ml_ranks *rs, size_t k, ml_buf *out)
{
    pthread_mutex_lock(&rs->mu);
    if (k < rs->slots.len) slot_json(rs, k, out);
    else ml_buf_puts(out, "null");
    pthread_mutex_unlock(&rs->mu);
}

void ml_ranks_status_json(ml_ranks *rs, ml_buf *out)
{
    pthread_mutex_lock(&rs->mu);
    ml_buf_puts(out, "{\"inputs\":[");
    for (size_t i = 0; i < rs->inputs.len; i++) {
        if (i) ml_buf_puts(out, ",");
        ml_json_str(out, rs->inputs.v[i]);
    }
    ml_buf_puts(out, "],\"skipped\":[");
    for (size_t i = 0; i < rs->skipped.len; i++) {
        if (i) ml_buf_puts(out, ",");
        ml_json_str(out, rs->skipped.v[i]);
    }
    ml_buf_puts(out, rs->cluster ? "],\"cluster\":true,\"ranks\":[" : "],\"ranks\":[");
    for (size_t k = 0; k < rs->slots.len; k++) {
        if (k) ml_buf_puts(out, ",");
        slot_json(rs, k, out);
    }
    ml_buf_puts(out, "]}");
    pthread_mutex_unlock(&rs->mu);
}
