/*
 * ranks.c — lazy import of ranks as requests to the loader (loadpar.h); see ranks.h.
 */
#include "ranks.h"
#include "jsonw.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "headrank.h"
#include "importer.h"
#include "loadpar.h"
#include "report_caps.h"

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
    ml_logdir_place place;      /* its run, worker and span in a logdir (logdir.h); run NULL: none */
    bool added;                 /* found after the start (follow.h) */
    char *upload_file;          /* an upload: where the server keeps its file (NULL: not an upload) */
    long upload;                /* an upload: its number (the slots of one file share it), else -1 */
    double viewed;              /* last asked for (ml_ranks_get), seconds (monotonic) */
    int head_rank, head_world;  /* what the file's head says of it before it loads (headrank.h), or -1 */
    int head_known;             /* ml_head_rank_file_known: 1 a rank, 0 none, -1 cannot tell */
} slot;

struct ml_ranks {
    pthread_mutex_t mu;
    pthread_cond_t done;
    VEC(slot *) slots;
    VEC(char *) inputs;
    VEC(char *) skipped;
    ml_loader *ld;              /* the slots asked for (requests) and the Cluster pass (background) */
    pthread_mutex_t dist_mu;    /* guards the three below */
    size_t dist_key;            /* ready slots the latest view covers; 0: none computed */
    ml_distributed *dist;       /* the latest (NULL: not a distributed run) */
    VEC(ml_distributed *) old_dists; /* earlier views, kept for callers still writing them */
    ml_sv_cluster *cluster;     /* the Cluster view of the slots listed at start (two or more), or NULL */
    const char *follow;         /* "inotify" or "polling" while follow.h adds slots; NULL: not */
    long uploads;               /* uploads added so far (their numbers) */
    size_t gen;                 /* bumped when a slot turns ready or is evicted: names the ready set */
    int busy;                   /* requests in flight (ml_ranks_enter/leave) */
    ml_sv_rank_vec retired;     /* evicted views, freed when no request is in flight */
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
    s->upload = -1;
    s->head_rank = s->head_world = -1;
    s->head_known = -1;
    if (strcmp(path, "-") != 0) /* the page names it so before it loads */
        s->head_known = ml_head_rank_file_known(s->path, &s->head_rank, &s->head_world);
    return s;
}

/* The views of a unit's profiles ps (more than one for a folder of
 * several), loaded with rc (0, or -1 with e set); the paths skipped go to
 * skipped.  Without the lock.  With shown (an upload), the profiles are
 * named so, never by their path on the server.  Takes ps's items. */
static int views_of(ml_profiles *ps, int rc, const char *path, const char *shown, ml_sv_rank_vec *views,
                    ml_str_vec *skipped, ml_err *e)
{
    if (rc == 0) {
        for (size_t i = 0; i < ps->items.len; i++) {
            if (shown) {
                free(ps->items.v[i]->path);
                ps->items.v[i]->path = ml_strdup(shown);
            }
            ml_sv_rank *v = rc == 0 ? ml_sv_rank_build(ps->items.v[i], e) : NULL;
            if (!v && rc == 0) rc = -1;
            else if (!v) ml_profile_free(ps->items.v[i]);
            else VEC_PUSH(views, v);
            ps->items.v[i] = NULL;
        }
        if (rc == 0 && !views->len) rc = ml_fail(e, "%s: no profile in it", path);
    }
    if (rc != 0) {
        for (size_t i = 0; i < views->len; i++) ml_sv_rank_free(views->v[i]);
        views->len = 0;
    }
    for (size_t i = 0; i < ps->skipped.len; i++) VEC_PUSH(skipped, ps->skipped.v[i]);
    ps->skipped.len = 0;
    return rc;
}

/* What a slot's load reads: the profiler views (/api/perf, /api/trace) read p->trace. */
static const ml_needs slot_needs = {.time = true};

/* A worker takes slot k's request (loadpar.h): it is loading from now. */
static bool slot_begin(void *arg, size_t k)
{
    ml_ranks *rs = arg;
    pthread_mutex_lock(&rs->mu);
    slot *s = rs->slots.v[k];
    bool go = s->state == ML_SLOT_QUEUED;
    if (go) {
        s->state = ML_SLOT_LOADING;
        s->started = now_s();
    }
    pthread_mutex_unlock(&rs->mu);
    return go;
}

/* Slot k's unit is loaded (on the loading thread, without the lock): its
 * views are built and it is ready, or it failed.  ps NULL: never begun (the
 * server is stopping). */
static void slot_loaded(void *arg, size_t k, ml_profiles *ps, int rc, const ml_err *load_err)
{
    ml_ranks *rs = arg;
    if (!ps) return;
    ml_err e = {{0}};
    if (rc != 0) e = *load_err;
    pthread_mutex_lock(&rs->mu);
    char *path = ml_strdup(rs->slots.v[k]->path);
    pthread_mutex_unlock(&rs->mu);
    ml_sv_rank_vec views = {0};
    ml_str_vec skipped = {0};
    rc = views_of(ps, rc, path, NULL, &views, &skipped, &e);
    free(path);

    pthread_mutex_lock(&rs->mu);
    slot *s = rs->slots.v[k];
    s->took = now_s() - s->started;
    if (rc != 0) {
        s->state = ML_SLOT_FAILED;
        s->error = ml_strdup(e.msg);
    } else {
        rs->gen++;
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

/* An upload's load, which its connection's thread waits for. */
typedef struct upload_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const char *path, *name;
    bool done;
    int rc;
    ml_err e;
    ml_sv_rank_vec views;
    ml_str_vec skipped;
} upload_wait;

static void upload_loaded(void *arg, size_t tag, ml_profiles *ps, int rc, const ml_err *load_err)
{
    upload_wait *u = arg;
    ml_err e = {{0}};
    if (!ps) rc = ml_fail(&e, "%s: not read: the server is stopping", u->name ? u->name : u->path);
    else {
        if (rc != 0) e = *load_err;
        rc = views_of(ps, rc, u->path, u->name, &u->views, &u->skipped, &e);
    }
    pthread_mutex_lock(&u->mu);
    u->rc = rc;
    u->e = e;
    u->done = true;
    pthread_cond_signal(&u->cv);
    pthread_mutex_unlock(&u->mu);
}

long ml_ranks_add(ml_ranks *rs, const char *path, const char *name, const ml_input_limits *lim, ml_err *e)
{
    double t = now_s();
    /* a request to the loader like a slot's, with the upload's limits; the connection waits for it */
    upload_wait u = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .path = path, .name = name};
    ml_load_req r = {.path = path, .bytes = size_of(path), .needs = slot_needs, .prio = ML_LOAD_NOW,
                     .done = upload_loaded, .arg = &u};
    if (lim) r.limits = *lim;
    ml_loader_submit(rs->ld, &r);
    pthread_mutex_lock(&u.mu);
    while (!u.done) pthread_cond_wait(&u.cv, &u.mu);
    pthread_mutex_unlock(&u.mu);
    pthread_cond_destroy(&u.cv);
    pthread_mutex_destroy(&u.mu);
    ml_sv_rank_vec views = u.views;
    for (size_t i = 0; i < u.skipped.len; i++) free(u.skipped.v[i]); /* an upload is one file: nothing to say */
    VEC_FREE(&u.skipped);
    if (u.rc != 0) {
        *e = u.e;
        VEC_FREE(&views);
        return -1;
    }
    pthread_mutex_lock(&rs->mu);
    long first = (long)rs->slots.len, upload = rs->uploads++;
    rs->gen++;
    VEC_PUSH(&rs->inputs, ml_strdup(name ? name : path));
    for (size_t i = 0; i < views.len; i++) {
        slot *x = slot_new(path);
        x->upload = upload;
        x->viewed = now_s();
        if (!i) x->upload_file = ml_strdup(path); /* the first slot of the file removes it */
        else x->bytes = 0;                        /* and counts its bytes */
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

/* Whether the heads of the slots already show that they are no job, by the
 * rule the CLI applies to the loaded ranks (ml_cluster_is_job): among the
 * slots whose head tells (a rank, or none in a file read whole) a rank
 * missing, a world size that differs or a rank given twice is so for the
 * whole set too.  Then why says it as /api/cluster would once all are read,
 * and no rank is read for a view that cannot be. */
static bool heads_not_a_job(const ml_ranks *rs, char *why, size_t cap)
{
    size_t n = rs->slots.len, k = 0;
    ml_rankrec *recs = ml_calloc(n ? n : 1, sizeof *recs);
    ml_rankrec **v = ml_calloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const slot *x = rs->slots.v[i];
        if (x->head_known < 0) continue;
        recs[k] = (ml_rankrec){.unit = i, .rank = x->head_rank, .world_size = x->head_world, .path = x->path};
        v[k] = &recs[k];
        k++;
    }
    ml_rankrecs_sort(v, k);
    bool no = k >= 2 && !ml_cluster_is_job(v, k, why, cap);
    free(v);
    free(recs);
    return no;
}

ml_ranks *ml_ranks_open(const char *const *inputs, size_t n, int threads, ml_err *e)
{
    ml_ranks *rs = ml_calloc(1, sizeof *rs);
    pthread_mutex_init(&rs->mu, NULL);
    pthread_mutex_init(&rs->dist_mu, NULL);
    pthread_cond_init(&rs->done, NULL);
    /* the one listing of inputs every loader shares (loadpar.h): a logdir's units get their places */
    ml_unit_list listed = {0};
    for (size_t i = 0; i < n; i++) VEC_PUSH(&rs->inputs, ml_strdup(inputs[i]));
    if (ml_units_list(inputs, n, &listed, e) != 0) {
        ml_unit_list_free(&listed);
        ml_ranks_free(rs);
        return NULL;
    }
    for (size_t j = 0; j < listed.units.len; j++) {
        ml_unit *u = &listed.units.v[j];
        slot *x = slot_new(u->path);
        x->listed = u->listed;
        x->input = u->input;
        x->place = u->place;
        u->place = (ml_logdir_place){0};
        VEC_PUSH(&rs->slots, x);
    }
    for (size_t j = 0; j < listed.skipped.len; j++) VEC_PUSH(&rs->skipped, listed.skipped.v[j]);
    listed.skipped.len = 0;
    bool logdir = listed.logdir >= 0; /* runs and spans, not the ranks of one job */
    ml_unit_list_free(&listed);
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (int)c : 1;
    }
    if (threads > 16) threads = 16;
    if ((size_t)threads > rs->slots.len) threads = rs->slots.len ? (int)rs->slots.len : 1;
    /* a job: its Cluster view, every rank read once in the background (not stdin: read once only;
     * not a logdir's runs and spans, which are no job's ranks) */
    bool stdin_in = false;
    for (size_t i = 0; i < rs->slots.len; i++) stdin_in |= !strcmp(rs->slots.v[i]->path, "-");
    bool job = rs->slots.len >= 2 && !stdin_in && !logdir;
    /* The Cluster pass reads on threads-1 of them (one at least), and one
     * thread is always left for the ranks the page asks for. */
    int background = threads > 1 ? threads - 1 : 1;
    rs->ld = ml_loader_start(job && threads <= background ? background + 1 : threads, background, e);
    if (!rs->ld) {
        ml_ranks_free(rs);
        return NULL;
    }
    if (job) {
        ml_unit_list l = {0};
        for (size_t i = 0; i < rs->slots.len; i++) {
            const slot *x = rs->slots.v[i];
            ml_unit u = {x->path, x->bytes, x->listed, x->input, {0}};
            VEC_PUSH(&l.units, u);
        }
        char why[ML_ERR_MAX];
        rs->cluster = heads_not_a_job(rs, why, sizeof why) ? ml_sv_cluster_refused(why)
                                                            : ml_sv_cluster_start(&l, rs->ld);
        VEC_FREE(&l.units); /* the paths are the slots' (copied) */
    }
    return rs;
}

void ml_ranks_free(ml_ranks *rs)
{
    if (!rs) return;
    ml_sv_cluster_free(rs->cluster); /* before the loader: its background loads are the loader's */
    ml_loader_stop(rs->ld);
    for (size_t i = 0; i < rs->slots.len; i++) {
        slot *s = rs->slots.v[i];
        ml_sv_rank_free(s->view);
        free(s->path);
        free(s->error);
        ml_logdir_place_free(&s->place);
        free(s->upload_file);
        free(s);
    }
    VEC_FREE(&rs->slots);
    for (size_t i = 0; i < rs->retired.len; i++) ml_sv_rank_free(rs->retired.v[i]);
    VEC_FREE(&rs->retired);
    for (size_t i = 0; i < rs->inputs.len; i++) free(rs->inputs.v[i]);
    VEC_FREE(&rs->inputs);
    for (size_t i = 0; i < rs->skipped.len; i++) free(rs->skipped.v[i]);
    VEC_FREE(&rs->skipped);
    if (rs->dist) ml_distributed_free(rs->dist);
    for (size_t i = 0; i < rs->old_dists.len; i++) ml_distributed_free(rs->old_dists.v[i]);
    VEC_FREE(&rs->old_dists);
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
        ml_load_req r = {.path = rs->slots.v[k]->path, .listed = rs->slots.v[k]->listed,
                         .bytes = rs->slots.v[k]->bytes, .needs = slot_needs, .prio = ML_LOAD_NOW,
                         .begin = slot_begin, .done = slot_loaded, .arg = rs, .tag = k};
        ml_loader_submit(rs->ld, &r); /* before the Cluster pass's queued loads (loadpar.h) */
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
        rs->slots.v[k]->viewed = now_s();
    }
    pthread_mutex_unlock(&rs->mu);
    if (state) *state = st;
    return v;
}

/* The retired views freed, when no request is in flight (lock held). */
static void free_retired(ml_ranks *rs)
{
    if (rs->busy) return;
    for (size_t i = 0; i < rs->retired.len; i++) ml_sv_rank_free(rs->retired.v[i]);
    rs->retired.len = 0;
}

void ml_ranks_enter(ml_ranks *rs)
{
    pthread_mutex_lock(&rs->mu);
    rs->busy++;
    pthread_mutex_unlock(&rs->mu);
}

void ml_ranks_leave(ml_ranks *rs)
{
    pthread_mutex_lock(&rs->mu);
    rs->busy--;
    free_retired(rs);
    pthread_mutex_unlock(&rs->mu);
}

size_t ml_ranks_evict_uploads(ml_ranks *rs, size_t keep, int64_t keep_bytes, ml_buf *out)
{
    size_t evicted = 0;
    jw w;
    jw_init_buf(&w, out, false);
    jw_arr(&w);
    pthread_mutex_lock(&rs->mu);
    for (;;) {
        size_t held = 0;
        int64_t bytes = 0;
        long oldest = -1, last = -1;
        double oldest_t = 0;
        for (size_t i = 0; i < rs->slots.len; i++) { /* uploads held, and their files' bytes */
            const slot *x = rs->slots.v[i];
            if (x->upload < 0 || x->state != ML_SLOT_READY) continue;
            if (x->upload_file) held++, bytes += x->bytes > 0 ? x->bytes : 0;
            if (x->upload > last) last = x->upload;
        }
        if (held <= keep && bytes <= keep_bytes) break;
        for (size_t i = 0; i < rs->slots.len; i++) { /* the least recently viewed one (its slots' latest view) */
            const slot *x = rs->slots.v[i];
            if (x->upload < 0 || x->state != ML_SLOT_READY || x->upload == last) continue;
            double t = x->viewed;
            for (size_t j = 0; j < rs->slots.len; j++)
                if (rs->slots.v[j]->upload == x->upload && rs->slots.v[j]->viewed > t) t = rs->slots.v[j]->viewed;
            if (oldest < 0 || t < oldest_t) oldest = x->upload, oldest_t = t;
        }
        if (oldest < 0) break; /* only the newest is left: kept whatever its size */
        for (size_t i = 0; i < rs->slots.len; i++) {
            slot *x = rs->slots.v[i];
            if (x->upload != oldest || x->state != ML_SLOT_READY) continue;
            x->state = ML_SLOT_EVICTED;
            VEC_PUSH(&rs->retired, x->view);
            x->view = NULL;
            free(x->error);
            x->error = ml_strdup("evicted: the least recently viewed upload, to keep the server's uploads within their "
                                 "bounds (memlens serve --keep-uploads N, --keep-upload-bytes SIZE); upload it again to see it");
            if (x->upload_file) { /* its file and its folder "N/" */
                unlink(x->upload_file);
                char *slash = strrchr(x->upload_file, '/');
                if (slash) *slash = 0, rmdir(x->upload_file);
                free(x->upload_file);
                x->upload_file = NULL;
            }
            jw_i64(&w, (int64_t)i);
        }
        rs->gen++;
        evicted++;
    }
    free_retired(rs);
    pthread_mutex_unlock(&rs->mu);
    jw_end(&w);
    return evicted;
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
        if (st == ML_SLOT_READY || st == ML_SLOT_FAILED || st == ML_SLOT_PENDING || st == ML_SLOT_EVICTED) break;
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
    pthread_mutex_lock(&rs->mu);
    size_t gen = rs->gen;
    pthread_mutex_unlock(&rs->mu);
    if (ps.len && gen != rs->dist_key) {
        if (rs->dist) VEC_PUSH(&rs->old_dists, rs->dist);
        rs->dist = ml_distributed_compute(ps.v, ps.len);
        rs->dist_key = gen;
    }
    VEC_FREE(&ps);
    const ml_distributed *d = rs->dist;
    *key = rs->dist_key;
    pthread_mutex_unlock(&rs->dist_mu);
    return d;
}

static const char *state_name(ml_slot_state s)
{
    static const char *const names[] = {"pending", "queued", "loading", "ready", "failed", "evicted"};
    return names[s];
}

static void slot_json(ml_ranks *rs, size_t k, jw *w) /* lock held */
{
    slot *s = rs->slots.v[k];
    jw_obj(w);
    jw_key(w, "index"), jw_i64(w, (int64_t)k);
    jw_key(w, "path"), jw_text(w, s->path);
    jw_key(w, "state"), jw_str(w, state_name(s->state));
    jw_key(w, "bytes"), jw_i64(w, s->bytes);
    double secs = s->state == ML_SLOT_READY || s->state == ML_SLOT_FAILED ? s->took
                  : s->state == ML_SLOT_PENDING ? 0 : now_s() - s->started;
    char num[64];
    snprintf(num, sizeof num, "%.3f", secs);
    jw_key(w, "seconds"), jw_raw(w, num);
    if (s->error) jw_key(w, "error"), jw_str(w, s->error);
    if (s->place.run) { /* a logdir's run, worker and span */
        jw_key(w, "run"), jw_str(w, s->place.run);
        jw_key(w, "worker"), jw_text(w, s->place.worker);
        jw_key(w, "span"), jw_i64(w, s->place.span);
        jw_key(w, "spans"), jw_i64(w, s->place.spans);
    }
    if (s->added) jw_key(w, "added"), jw_bool(w, true);
    if (s->view) {
        const ml_profile *p = s->view->p;
        jw_key(w, "rank"), jw_i64(w, p->rank);
        jw_key(w, "world_size"), jw_i64(w, p->world_size);
        jw_key(w, "format"), jw_text(w, p->format);
        ml_report_caps_json(w, &p->caps, ml_devkind_of_profile(p));
        jw_key(w, "devices"), jw_i64(w, (int64_t)s->view->ndev);
    } else if (s->head_rank >= 0) { /* not loaded yet: the rank its head names */
        jw_key(w, "rank"), jw_i64(w, s->head_rank);
        jw_key(w, "world_size"), jw_i64(w, s->head_world);
    }
    jw_end(w);
}

void ml_ranks_slot_json(ml_ranks *rs, size_t k, ml_buf *out)
{
    jw w;
    jw_init_buf(&w, out, false);
    pthread_mutex_lock(&rs->mu);
    if (k < rs->slots.len) slot_json(rs, k, &w);
    else jw_null(&w);
    pthread_mutex_unlock(&rs->mu);
}

void ml_ranks_status_json(ml_ranks *rs, ml_buf *out)
{
    jw w;
    jw_init_buf(&w, out, false);
    pthread_mutex_lock(&rs->mu);
    jw_obj(&w);
    jw_key(&w, "inputs"), jw_arr(&w);
    for (size_t i = 0; i < rs->inputs.len; i++) jw_text(&w, rs->inputs.v[i]);
    jw_end(&w);
    jw_key(&w, "skipped"), jw_arr(&w);
    for (size_t i = 0; i < rs->skipped.len; i++) jw_text(&w, rs->skipped.v[i]);
    jw_end(&w);
    /* a Cluster view: two ranks or more listed at the start, not known to be no job */
    if (rs->cluster && !ml_sv_cluster_failed(rs->cluster)) jw_key(&w, "cluster"), jw_bool(&w, true);
    if (rs->follow) jw_key(&w, "follow"), jw_str(&w, rs->follow);
    jw_key(&w, "ranks"), jw_arr(&w);
    for (size_t k = 0; k < rs->slots.len; k++) slot_json(rs, k, &w);
    jw_end(&w);
    jw_end(&w);
    pthread_mutex_unlock(&rs->mu);
}

bool ml_ranks_has(ml_ranks *rs, const char *path)
{
    pthread_mutex_lock(&rs->mu);
    bool has = false;
    for (size_t i = 0; i < rs->slots.len && !has; i++) has = !strcmp(rs->slots.v[i]->path, path);
    pthread_mutex_unlock(&rs->mu);
    return has;
}

static bool same_place(const ml_logdir_place *a, const ml_logdir_place *b)
{
    if (!a->run || !b->run) return !a->run && !b->run;
    return !strcmp(a->run, b->run) && !strcmp(a->worker, b->worker) && a->span == b->span && a->spans == b->spans;
}

static void copy_place(ml_logdir_place *to, const ml_logdir_place *from)
{
    ml_logdir_place_free(to);
    if (!from->run) return;
    *to = (ml_logdir_place){ml_strdup(from->run), ml_strdup(from->worker), ml_strdup(from->stamp), from->span, from->spans};
}

size_t ml_ranks_sync(ml_ranks *rs, const ml_unit_list *l)
{
    size_t added = 0;
    pthread_mutex_lock(&rs->mu);
    for (size_t j = 0; j < l->units.len; j++) {
        const ml_unit *u = &l->units.v[j];
        slot *x = NULL;
        for (size_t i = 0; i < rs->slots.len && !x; i++)
            if (!strcmp(rs->slots.v[i]->path, u->path)) x = rs->slots.v[i];
        if (!x) {
            x = slot_new(u->path);
            x->listed = u->listed;
            x->input = u->input;
            x->added = true;
            VEC_PUSH(&rs->slots, x);
            added++;
        }
        if (!same_place(&x->place, &u->place)) copy_place(&x->place, &u->place);
    }
    if (added) pthread_cond_broadcast(&rs->done);
    pthread_mutex_unlock(&rs->mu);
    return added;
}

void ml_ranks_set_follow(ml_ranks *rs, const char *mode)
{
    pthread_mutex_lock(&rs->mu);
    rs->follow = mode;
    pthread_mutex_unlock(&rs->mu);
}
