/*
 * textbuf.c — the growable byte buffer (textbuf.h).
 */
#include "textbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

void ml_buf_put(ml_buf *b, const void *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        b->p = ml_realloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void ml_buf_puts(ml_buf *b, const char *s) { ml_buf_put(b, s, strlen(s)); }

void ml_buf_printf(ml_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) { ml_buf_put(b, tmp, (size_t)n); return; }
    char *big = ml_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ml_buf_put(b, big, (size_t)n);
    free(big);
}

void ml_buf_free(ml_buf *b)
{
    free(b->p);
    *b = (ml_buf){0};
}
