/*
 * report_blobq.c — see report_blobq.h.  One worker and a FIFO: blobs come
 * out in the order they were pushed, so the page is the same byte for byte
 * as when they are encoded on the main thread.
 */
#include "report_blobq.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "err.h"
#include "vec.h"

typedef struct job {
    unsigned id;
    int level;
    void *bytes;
    size_t nbytes;
} job;

struct ml_blobq {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t more;      /* a job was pushed, or done was set */
    pthread_cond_t less;      /* a job was taken off */
    VEC(job) jobs;            /* jobs.v[head..len) wait */
    size_t head;
    size_t pending;           /* their bytes, and the one being encoded */
    size_t max_pending;
    bool done;
    ml_buf *html;
    unsigned first_id;
    VEC(uint8_t) z;           /* written by the worker only */
};

static void *worker(void *arg)
{
    ml_blobq *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->head == q->jobs.len && !q->done) pthread_cond_wait(&q->more, &q->mu);
        if (q->head == q->jobs.len) break;
        job j = q->jobs.v[q->head++];
        pthread_mutex_unlock(&q->mu);
        uint8_t z = (uint8_t)ml_blob_encode(q->html, j.id, j.level, j.bytes, j.nbytes);
        free(j.bytes);
        VEC_PUSH(&q->z, z);
        pthread_mutex_lock(&q->mu);
        q->pending -= j.nbytes;
        pthread_cond_signal(&q->less);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

ml_blobq *ml_blobq_start(ml_buf *html, unsigned first_id, size_t max_pending)
{
    ml_blobq *q = ml_calloc(1, sizeof *q);
    q->max_pending = max_pending;
    q->html = html;
    q->first_id = first_id;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->more, NULL);
    pthread_cond_init(&q->less, NULL);
    if (pthread_create(&q->th, NULL, worker, q) != 0) {
        pthread_cond_destroy(&q->less);
        pthread_cond_destroy(&q->more);
        pthread_mutex_destroy(&q->mu);
        free(q);
        return NULL;
    }
    return q;
}

void ml_blobq_push(ml_blobq *q, unsigned id, int level, void *bytes, size_t nbytes)
{
    pthread_mutex_lock(&q->mu);
    while (q->pending && q->pending + nbytes > q->max_pending) pthread_cond_wait(&q->less, &q->mu);
    /* taken jobs lie before head: drop them once the queue is empty */
    if (q->head == q->jobs.len) q->head = q->jobs.len = 0;
    VEC_PUSH(&q->jobs, ((job){ id, level, bytes, nbytes }));
    q->pending += nbytes;
    pthread_cond_signal(&q->more);
    pthread_mutex_unlock(&q->mu);
}

uint8_t *ml_blobq_finish(ml_blobq *q, size_t *n)
{
    pthread_mutex_lock(&q->mu);
    q->done = true;
    pthread_cond_signal(&q->more);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->th, NULL);
    pthread_cond_destroy(&q->less);
    pthread_cond_destroy(&q->more);
    pthread_mutex_destroy(&q->mu);
    VEC_FREE(&q->jobs);
    *n = q->z.len;
    uint8_t *z = q->z.v;
    free(q);
    return z;
}
