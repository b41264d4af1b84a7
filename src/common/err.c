/* err.c — error messages and checked allocation; see err.h. */
#include "err.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ml_vfail(ml_err *e, const char *fmt, va_list ap)
{
    if (e) vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return -1;
}

int ml_fail(ml_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ml_vfail(e, fmt, ap);
    va_end(ap);
    return -1;
}

int ml_prefix(ml_err *e, const char *fmt, ...)
{
    if (!e) return -1;
    char head[ML_ERR_MAX], old[ML_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    snprintf(e->msg, sizeof e->msg, "%s: %s", head, old);
    return -1;
}

static _Atomic(ml_fatal_fn) fatal_handler;

void ml_set_fatal_handler(ml_fatal_fn fn) { atomic_store(&fatal_handler, fn); }

_Noreturn void ml_fatal(const char *fmt, ...)
{
    char msg[ML_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ml_fatal_fn fn = atomic_load(&fatal_handler);
    if (fn) fn(msg);
    abort();
}

static void out_of_memory(size_t n) { ml_fatal("out of memory (asked for %zu bytes)", n); }

void *ml_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *ml_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *ml_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

char *ml_strndup(const char *s, size_t n)
{
    char *d = ml_malloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *ml_strdup(const char *s) { return ml_strndup(s, strlen(s)); }
