/*
 * textbuf.c — the growable text buffer and its JSON helpers (textbuf.h).
 */
#include "textbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "utf8.h"

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

void ml_json_str(ml_buf *b, const char *s)
{
    ml_buf_put(b, "\"", 1);
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    const unsigned char *run = u;
    for (; *u; u++) {
        const char *esc = NULL;
        char tmp[8];
        if (*u == '"') esc = "\\\"";
        else if (*u == '\\') esc = "\\\\";
        else if (*u == '\n') esc = "\\n";
        else if (*u == '\t') esc = "\\t";
        else if (*u == '\r') esc = "\\r";
        else if (*u == '/' && u > (const unsigned char *)s && u[-1] == '<') esc = "\\/";
        else if (*u < 0x20) { snprintf(tmp, sizeof tmp, "\\u%04x", *u); esc = tmp; }
        else if (*u >= 0x80) { /* JSON is UTF-8: a byte that begins no valid sequence becomes U+FFFD */
            size_t k = ml_utf8_seq(u, 4);
            if (k) { u += k - 1; continue; }
            esc = ML_UTF8_REPLACEMENT;
        }
        if (!esc) continue;
        ml_buf_put(b, run, (size_t)(u - run));
        ml_buf_puts(b, esc);
        run = u + 1;
    }
    ml_buf_put(b, run, (size_t)(u - run));
    ml_buf_put(b, "\"", 1);
}

void ml_json_verbatim(ml_buf *b, const char *json)
{
    const unsigned char *u = (const unsigned char *)json, *run = u;
    for (; *u; u++) {
        char tmp[8];
        const char *esc;
        if (*u < 0x20) snprintf(tmp, sizeof tmp, "\\u%04x", *u), esc = tmp;
        else if (*u < 0x80) continue;
        else {
            size_t k = ml_utf8_seq(u, 4);
            if (k) { u += k - 1; continue; }
            esc = ML_UTF8_REPLACEMENT;
        }
        ml_buf_put(b, run, (size_t)(u - run));
        ml_buf_puts(b, esc);
        run = u + 1;
    }
    ml_buf_put(b, run, (size_t)(u - run));
}

void ml_json_i64(ml_buf *b, int64_t v)
{
    /* Digits by hand, not printf: a window of allocations writes ~10^6 numbers. */
    const int64_t exact = (int64_t)1 << 53;
    bool quoted = v < -exact || v > exact; /* a string: a double cannot hold it */
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char tmp[24];
    int k = 24;
    if (quoted) tmp[--k] = '"';
    do { tmp[--k] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) tmp[--k] = '-';
    if (quoted) tmp[--k] = '"';
    ml_buf_put(b, tmp + k, (size_t)(24 - k));
}
