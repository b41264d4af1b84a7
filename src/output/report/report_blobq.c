/*
 * report_blobq.c — see report_blobq.h.  One worker and a FIFO, which the
 * caller of ml_blobq_finish helps to empty; blobs are appended in the order
 * they were pushed, so the page is the same byte for byte as when they are
 * encoded on the main thread.
 */
#include "report_blobq.h"
#include "report_blob.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "scratch.h"
#include "vec.h"

/* A job's bytes once encoded, kept for the pushing thread's scratch pool
 * (ml_blobq_reclaim) rather than freed: a freed block of 256 KiB or more
 * is unmapped, and the next column's would be fresh pages again.  At most
 * SPENT_MAX bytes wait so (the rest are freed, as before). */
typedef struct spent { void *bytes; size_t nbytes; } spent;
#define SPENT_MAX ((size_t)8 << 20)

typedef struct job {
    unsigned id;
    int level;
    size_t width;             /* of a value, for ml_blob_encode */
    unsigned zero_planes;     /* left out (ml_blob_encode) */
    void *bytes;              /* freed once encoded */
    size_t nbytes;
    ml_buf out;               /* its <script> element, until appended to html */
    uint8_t z;
    bool done;
} job;

struct ml_blobq {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t more;      /* a job was pushed, or closing was set */
    pthread_cond_t less;      /* a job was encoded: fewer bytes pending */
    VEC(job) jobs;            /* every job pushed, in order */
    size_t next_take;         /* the first job nobody has taken */
    size_t next_append;       /* the first job not yet in html */
    size_t pending;           /* raw bytes of the jobs not yet encoded */
    size_t max_pending;
    bool closing;             /* ml_blobq_finish: no more pushes */
    ml_buf *html;
    unsigned first_id;
    VEC(uint8_t) z;           /* of the jobs appended */
    VEC(spent) spent;         /* encoded jobs' bytes, for ml_blobq_reclaim */
    size_t spent_bytes;
    bool recycle;             /* keep them (ml_blobq_recycle), else free them */
};

/* Takes the next job and encodes it, with q->mu held (released while
 * encoding); then appends to html every job done in order so far.  Two
 * threads may encode at once (the worker, and ml_blobq_finish's caller):
 * html still gets the blobs in push order.  The job next in line (the
 * usual case) is encoded straight into html: no other thread appends there
 * until it is done, and its text is not made apart and copied.  False when
 * no job was left. */
static bool take_one(ml_blobq *q, ml_blob_scratch *scratch)
{
    if (q->next_take == q->jobs.len) return false;
    size_t k = q->next_take++;
    job j = q->jobs.v[k]; /* a copy: a push may move the array meanwhile */
    bool direct = k == q->next_append;
    pthread_mutex_unlock(&q->mu);
    ml_buf out = {0};
    uint8_t z = (uint8_t)ml_blob_encode(scratch, direct ? q->html : &out, j.id, j.level, j.width, j.zero_planes,
                                        j.bytes, j.nbytes);
    pthread_mutex_lock(&q->mu);
    if (q->recycle && q->spent_bytes + j.nbytes <= SPENT_MAX) {
        VEC_PUSH(&q->spent, ((spent){ j.bytes, j.nbytes }));
        q->spent_bytes += j.nbytes;
    } else {
        free(j.bytes);
    }
    job *d = &q->jobs.v[k];
    d->bytes = NULL;
    d->out = out;
    d->z = z;
    d->done = true;
    q->pending -= j.nbytes;
    for (; q->next_append < q->jobs.len && q->jobs.v[q->next_append].done; q->next_append++) {
        job *a = &q->jobs.v[q->next_append];
        if (a->out.len) ml_buf_put(q->html, a->out.p, a->out.len);
        ml_buf_free(&a->out);
        VEC_PUSH(&q->z, a->z);
    }
    pthread_cond_broadcast(&q->less);
    return true;
}

static void *worker(void *arg)
{
    ml_blobq *q = arg;
    ml_blob_scratch scratch = {0};
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->next_take == q->jobs.len && !q->closing) pthread_cond_wait(&q->more, &q->mu);
        if (!take_one(q, &scratch)) break;
    }
    pthread_mutex_unlock(&q->mu);
    ml_blob_scratch_free(&scratch);
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

void ml_blobq_recycle(ml_blobq *q, bool on)
{
    pthread_mutex_lock(&q->mu);
    q->recycle = on;
    pthread_mutex_unlock(&q->mu);
    ml_blobq_reclaim(q);
}

void ml_blobq_reclaim(ml_blobq *q)
{
    pthread_mutex_lock(&q->mu);
    spent *sp = q->spent.v;
    size_t n = q->spent.len;
    memset(&q->spent, 0, sizeof q->spent);
    q->spent_bytes = 0;
    pthread_mutex_unlock(&q->mu);
    for (size_t k = 0; k < n; k++) ml_scratch_give(sp[k].bytes, sp[k].nbytes, sp[k].nbytes);
    free(sp);
}

void ml_blobq_push(ml_blobq *q, unsigned id, int level, size_t width, unsigned zero_planes, void *bytes, size_t nbytes)
{
    pthread_mutex_lock(&q->mu);
    while (q->pending && q->pending + nbytes > q->max_pending) pthread_cond_wait(&q->less, &q->mu);
    VEC_PUSH(&q->jobs, ((job){ .id = id, .level = level, .width = width, .zero_planes = zero_planes, .bytes = bytes, .nbytes = nbytes }));
    q->pending += nbytes;
    pthread_cond_signal(&q->more);
    pthread_mutex_unlock(&q->mu);
    ml_blobq_reclaim(q);
}

uint8_t *ml_blobq_finish(ml_blobq *q, size_t *n)
{
    /* The caller has nothing else to do: it encodes what is left too. */
    pthread_mutex_lock(&q->mu);
    q->closing = true;
    pthread_cond_signal(&q->more);
    ml_blob_scratch scratch = {0};
    while (take_one(q, &scratch)) {}
    pthread_mutex_unlock(&q->mu);
    ml_blob_scratch_free(&scratch);
    pthread_join(q->th, NULL);
    pthread_cond_destroy(&q->less);
    pthread_cond_destroy(&q->more);
    pthread_mutex_destroy(&q->mu);
    VEC_FREE(&q->jobs);
    for (size_t k = 0; k < q->spent.len; k++) free(q->spent.v[k].bytes);
    VEC_FREE(&q->spent);
    *n = q->z.len;
    uint8_t *z = q->z.v;
    free(q);
    return z;
}
