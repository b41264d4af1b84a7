/*
 * par.c — see par.h.
 */
#include "par.h"

#include <pthread.h>
#include <stdlib.h>

bool ml_par_allowed(void) { return getenv("MEMLENS_ONE_THREAD") == NULL; }

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
