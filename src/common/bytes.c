/* bytes.c — a growable byte buffer and its reader; see bytes.h. */
#include "bytes.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

void ml_bytes_put(ml_bytes *b, const void *x, size_t n)
{
    if (!n) return; /* (x may be NULL then: memcpy may not be given it) */
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n) cap *= 2;
        b->p = ml_realloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->len, x, n);
    b->len += n;
}

void ml_bytes_put_i64(ml_bytes *b, int64_t v) { ml_bytes_put(b, &v, sizeof v); }

void ml_bytes_put_str(ml_bytes *b, const char *s)
{
    ml_bytes_put_i64(b, s ? (int64_t)strlen(s) : -1);
    if (s) ml_bytes_put(b, s, strlen(s));
}

void ml_bytes_free(ml_bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

const void *ml_bytes_take(ml_bytes_reader *r, size_t n)
{
    if (r->bad || n > r->n - r->at) {
        r->bad = true;
        return NULL;
    }
    const void *x = r->p + r->at;
    r->at += n;
    return x;
}

int64_t ml_bytes_get_i64(ml_bytes_reader *r)
{
    const void *x = ml_bytes_take(r, 8);
    int64_t v = 0;
    if (x) memcpy(&v, x, 8);
    return v;
}

char *ml_bytes_get_str(ml_bytes_reader *r)
{
    int64_t n = ml_bytes_get_i64(r);
    if (n < 0 || r->bad) return NULL;
    const char *x = ml_bytes_take(r, (size_t)n);
    return x ? ml_strndup(x, (size_t)n) : NULL;
}
