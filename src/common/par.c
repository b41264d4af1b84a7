/*
 * par.c — see par.h.
 */
#include "par.h"

#include <pthread.h>
#include <stdlib.h>

static __thread bool thread_serial;

bool ml_par_allowed(void) { return !thread_serial && getenv("MEMLENS_ONE_THREAD") == NULL; }

void ml_par_set_thread(bool allowed) { thread_serial = !allowed; }

typedef struct task_call {
    ml_task fn;
    void *arg;
} task_call;

static void *run_task(void *arg)
{
    task_call *c = arg;
    c->fn(c->arg);
    return NULL;
}

void ml_par2(ml_task a, void *arg_a, ml_task b, void *arg_b)
{
    task_call second = {b, arg_b};
    pthread_t thread;
    if (!ml_par_allowed() || pthread_create(&thread, NULL, run_task, &second) != 0) {
        a(arg_a);
        b(arg_b);
        return;
    }
    a(arg_a);
    pthread_join(thread, NULL);
}

struct ml_par_job {
    task_call call;
    pthread_t thread;
    bool threaded;
};

ml_par_job *ml_par_start(ml_task fn, void *arg)
{
    ml_par_job *job = calloc(1, sizeof *job);
    if (!job) { /* run it here: nothing to wait for */
        fn(arg);
        return NULL;
    }
    job->call = (task_call){fn, arg};
    job->threaded = ml_par_allowed() && pthread_create(&job->thread, NULL, run_task, &job->call) == 0;
    if (!job->threaded) fn(arg);
    return job;
}

void ml_par_join(ml_par_job *job)
{
    if (!job) return;
    if (job->threaded) pthread_join(job->thread, NULL);
    free(job);
}
