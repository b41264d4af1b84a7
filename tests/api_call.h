/*
 * api_call.h — test fixture: a `memlens serve` API call without sockets.
 * call(rs, "/api/...", (args){{"k=v", ...}}, &out) routes the path with its
 * query parameters given as "k=v" strings and leaves the answer in out.
 */
#ifndef ML_TEST_API_CALL_H
#define ML_TEST_API_CALL_H

#include <string.h>

#include "api.h"

/* Query parameters as "k=v" strings. */
typedef struct args { const char *kv[16]; } args;

static const char *arg_of(void *u, const char *key)
{
    args *a = u;
    size_t n = strlen(key);
    for (int i = 0; i < 16 && a->kv[i]; i++)
        if (!strncmp(a->kv[i], key, n) && a->kv[i][n] == '=') return a->kv[i] + n + 1;
    return NULL;
}

static int call(ml_ranks *rs, const char *path, args a, ml_buf *out)
{
    out->len = 0;
    return ml_api_route(rs, path, arg_of, &a, out);
}

#endif
