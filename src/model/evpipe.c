/*
 * evpipe.c — see evpipe.h.
 *
 * A ring of N_BATCHES batches of BATCH events: the importer fills the batch
 * at `head`, hands it over (head++) and waits only when every batch is
 * still waiting for the pipe's thread, which takes them in order at `tail`.
 * One lock and signal per batch, none per event.  Four batches of 16k
 * events (3 MB in flight; 32 of 4k were 6.3 MB, 7% of a 256 MB snapshot's
 * peak): with lean storage (profile.h) the pipe's thread keeps ahead of the
 * parser and mostly waits for the next batch, so each batch was a wake-up:
 * four times fewer of them took ~20 ms off the parser's thread on a
 * gigabyte snapshot (8 of 4k before).  The parser wakes it when two batches
 * wait, not one (half the wake-ups again; ml_evpipe_end wakes it for the
 * last).
 */
#include "evpipe.h"

#include <pthread.h>
#include <stdlib.h>

#include "match.h"
#include "par.h"

#define BATCH 16384
#define N_BATCHES 4

struct ml_evpipe {
    ml_profile *p;
    ml_event *batch[N_BATCHES];
    size_t fill[N_BATCHES];      /* events in each handed-over batch */
    size_t head, tail;           /* batches handed over, batches stored */
    size_t n;                    /* events in the batch being filled (at head) */
    bool seen_failed;            /* the importer's copy of `failed`, taken as it hands a batch over
                                  * (it reads it per event: not on the line the pipe's thread writes) */
    bool done;                   /* no batch will follow */
    bool producer_waits;         /* the importer waits for room */
    bool threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* the pipe thread's own, on a cache line of their own */
    _Alignas(64) ml_matcher *m;              /* NULL once the events left time order */
    int64_t last_ts;
    bool failed;                 /* lean (p->lean) and out of order: nothing more is stored */
};

/* Stores a batch and matches it while the events keep their time order. */
static void store(ml_evpipe *q, const ml_event *ev, size_t n)
{
    ml_profile *p = q->p;
    if (__atomic_load_n(&q->failed, __ATOMIC_RELAXED)) return;
    for (size_t i = 0; i < n; i++) {
        uint32_t index = (uint32_t)p->events.ts.len;
        ml_event_push(p, &ev[i]);
        if (!q->m) continue;
        /* ML_TIME_NONE: the importer numbers the events later, and sorting
         * events out of order would renumber them: either way
         * ml_profile_finish() matches them itself. */
        if (ev[i].ts == ML_TIME_NONE || ev[i].ts < q->last_ts || index == ML_NONE32) {
            ml_matcher_drop(q->m);
            q->m = NULL;
            ml_allocs_clear(p);
            if (p->lean) { /* lean events cannot be matched later: the importer reads again */
                __atomic_store_n(&q->failed, true, __ATOMIC_RELAXED);
                return;
            }
            continue;
        }
        q->last_ts = ev[i].ts;
        ml_matcher_add(q->m, p, &ev[i], index);
    }
}

static void *pipe_main(void *arg)
{
    ml_evpipe *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->tail == q->head && !q->done) pthread_cond_wait(&q->cv, &q->mu);
        if (q->tail == q->head) break; /* done, and all stored */
        size_t k = q->tail % N_BATCHES;
        pthread_mutex_unlock(&q->mu);
        store(q, q->batch[k], q->fill[k]);
        pthread_mutex_lock(&q->mu);
        q->tail++;
        if (q->producer_waits && q->head - q->tail <= N_BATCHES / 2) pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

ml_evpipe *ml_evpipe_start(ml_profile *p)
{
    ml_evpipe *q = ml_calloc(1, sizeof *q);
    q->p = p;
    q->m = ml_matcher_new();
    q->last_ts = INT64_MIN;
    ml_allocs_clear(p);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->threaded = ml_par_allowed() && pthread_create(&q->thread, NULL, pipe_main, q) == 0;
    return q;
}

/* Hands the batch at head over; waits while no batch is free for the next. */
static void hand_over(ml_evpipe *q)
{
    if (!q->threaded) { /* no thread: store it now */
        store(q, q->batch[0], q->n);
        q->seen_failed = q->failed;
        q->n = 0;
        return;
    }
    pthread_mutex_lock(&q->mu);
    q->seen_failed = q->failed;
    q->fill[q->head % N_BATCHES] = q->n;
    q->head++;
    if (q->head - q->tail == 2) pthread_cond_broadcast(&q->cv); /* the pipe's thread may be waiting: two batches a wake-up */
    if (q->head - q->tail >= N_BATCHES) {
        /* Full: wait until half of it is stored, not for each batch (one
         * wake-up per batch ping-pongs the threads when the pipe is slower). */
        q->producer_waits = true;
        while (q->head - q->tail > N_BATCHES / 2) pthread_cond_wait(&q->cv, &q->mu);
        q->producer_waits = false;
    }
    pthread_mutex_unlock(&q->mu);
    q->n = 0;
}

bool ml_evpipe_failed(const ml_evpipe *q) { return q->seen_failed; }

void ml_evpipe_push(ml_evpipe *q, const ml_event *ev)
{
    ml_event **b = &q->batch[q->threaded ? q->head % N_BATCHES : 0];
    if (!*b) *b = ml_malloc(BATCH * sizeof(ml_event)); /* as needed: a small input fills one */
    (*b)[q->n++] = *ev;
    if (q->n == BATCH) hand_over(q);
}

void ml_evpipe_end(ml_evpipe *q, bool keep_allocs)
{
    if (!q) return;
    if (q->n) hand_over(q);
    if (q->threaded) {
        pthread_mutex_lock(&q->mu);
        q->done = true;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        pthread_join(q->thread, NULL);
    }
    ml_profile *p = q->p;
    if (q->m && keep_allocs) {
        p->allocs_reused = ml_matcher_end(q->m, p);
        p->allocs_matched = true;
    } else {
        if (q->m) ml_matcher_drop(q->m);
        ml_allocs_clear(p);
    }
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    for (int i = 0; i < N_BATCHES; i++) free(q->batch[i]);
    free(q);
}
