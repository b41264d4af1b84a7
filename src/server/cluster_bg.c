/*
 * cluster_bg.c — see cluster_bg.h.
 */
#include "cluster_bg.h"
#include "jsonw.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster_view.h"
#include "rankrec.h"

struct ml_sv_cluster {
    ml_unit_list units;
    ml_loader *ld;              /* the server's (ranks.h): the ranks read as background loads */
    pthread_t th;
    bool started;
    volatile int stop;
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    size_t done;                /* ranks read */
    int state;                  /* 0 reading, 1 ready, -1 failed */
    VEC(ml_rankrec *) recs;
    ml_buf json;                /* the answer, once ready */
    char *error;
};

static void take(void *arg, size_t unit, size_t k, ml_profile *p)
{
    ml_sv_cluster *c = arg;
    ml_rankrec *r = ml_rankrec_of(p, NULL, NULL, unit, k, c->units.units.v[unit].bytes);
    pthread_mutex_lock(&c->mu);
    VEC_PUSH(&c->recs, r);
    c->done++;
    pthread_mutex_unlock(&c->mu);
}

static void *run(void *arg)
{
    ml_sv_cluster *c = arg;
    ml_each_opts eo = {.needs = ML_NEEDS_RANK_RECORD, .stop = &c->stop};
    ml_each_result res;
    ml_err e = {{0}};
    int rc = ml_batch_wait(ml_batch_start(c->ld, &c->units, &eo, ML_LOAD_BACKGROUND, take, c), &res, &e);
    ml_each_result_free(&res);
    ml_buf json = {0};
    if (rc == 0 && !c->stop) ml_rankrecs_sort(c->recs.v, c->recs.len);
    if (rc == 0 && !c->stop && !ml_cluster_is_job(c->recs.v, c->recs.len, e.msg, sizeof e.msg))
        rc = -1; /* inputs served together that are not one job: no Cluster view (e.msg says why) */
    if (rc == 0 && !c->stop) {
        int64_t origin = INT64_MAX;
        for (size_t i = 0; i < c->recs.len; i++)
            if (c->recs.v[i]->first_time_ns < origin) origin = c->recs.v[i]->first_time_ns;
        if (origin == INT64_MAX) origin = 0;
        size_t nu = c->units.units.len;
        long *slot = ml_malloc((nu ? nu : 1) * sizeof *slot);
        for (size_t u = 0; u < nu; u++) slot[u] = (long)u;
        ml_cluster_view_json(&json, c->recs.v, c->recs.len, origin, slot, nu);
        free(slot);
    }
    pthread_mutex_lock(&c->mu);
    if (rc != 0) {
        c->state = -1;
        c->error = ml_strdup(e.msg);
    } else {
        c->state = 1;
        c->json = json;
    }
    pthread_cond_broadcast(&c->done_cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

ml_sv_cluster *ml_sv_cluster_start(const ml_unit_list *units, ml_loader *ld)
{
    ml_sv_cluster *c = ml_calloc(1, sizeof *c);
    for (size_t i = 0; i < units->units.len; i++) {
        ml_unit u = units->units.v[i];
        u.path = ml_strdup(u.path);
        VEC_PUSH(&c->units.units, u);
    }
    c->ld = ld;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->done_cv, NULL);
    c->started = pthread_create(&c->th, NULL, run, c) == 0;
    if (!c->started) {
        c->state = -1;
        c->error = ml_strdup("cannot start a thread to read the ranks");
    }
    return c;
}

ml_sv_cluster *ml_sv_cluster_refused(const char *why)
{
    ml_sv_cluster *c = ml_calloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->done_cv, NULL);
    c->state = -1;
    c->error = ml_strdup(why);
    return c;
}

bool ml_sv_cluster_failed(ml_sv_cluster *c)
{
    pthread_mutex_lock(&c->mu);
    bool failed = c->state < 0;
    pthread_mutex_unlock(&c->mu);
    return failed;
}

void ml_sv_cluster_free(ml_sv_cluster *c)
{
    if (!c) return;
    c->stop = 1;
    if (c->started) pthread_join(c->th, NULL);
    for (size_t i = 0; i < c->recs.len; i++) ml_rankrec_free(c->recs.v[i]);
    VEC_FREE(&c->recs);
    ml_buf_free(&c->json);
    free(c->error);
    ml_unit_list_free(&c->units);
    pthread_cond_destroy(&c->done_cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

int ml_sv_cluster_json(ml_sv_cluster *c, int wait_ms, ml_buf *out)
{
    pthread_mutex_lock(&c->mu);
    if (!c->state && wait_ms > 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += wait_ms / 1000;
        until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        while (!c->state && pthread_cond_timedwait(&c->done_cv, &c->mu, &until) != ETIMEDOUT) {}
    }
    int status;
    if (c->state > 0) {
        ml_buf_put(out, c->json.p, c->json.len);
        status = 200;
    } else if (c->state < 0) {
        jw w;
        jw_init_buf(&w, out, false);
        jw_obj(&w);
        jw_key(&w, "error"), jw_str(&w, c->error ? c->error : "cannot read the ranks");
        jw_end(&w);
        status = 422;
    } else {
        jw w;
        jw_init_buf(&w, out, false);
        jw_obj(&w);
        jw_key(&w, "state"), jw_str(&w, "reading");
        jw_key(&w, "done"), jw_i64(&w, (int64_t)c->done);
        jw_key(&w, "total"), jw_i64(&w, (int64_t)c->units.units.len);
        jw_end(&w);
        status = 202;
    }
    pthread_mutex_unlock(&c->mu);
    return status;
}
