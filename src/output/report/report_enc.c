/*
 * report_enc.c — text buffer, JSON helpers and typed-column blobs for the
 * HTML report (see report_enc.h and web/DATA.md).
 */
#include "report_enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>
#if __has_include(<libdeflate.h>)
#include <libdeflate.h>
#include <pthread.h>
#define HAVE_LIBDEFLATE 1
#endif

#include "err.h"
#include "par.h"
#include "report_blobq.h"
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

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(ml_buf *b, const unsigned char *s, size_t n)
{
    size_t out = (n + 2) / 3 * 4;
    if (b->len + out + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + out + 1) cap *= 2;
        b->p = ml_realloc(b->p, cap);
        b->cap = cap;
    }
    char *o = b->p + b->len;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned x = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
        *o++ = b64[x >> 18];
        *o++ = b64[(x >> 12) & 63];
        *o++ = b64[(x >> 6) & 63];
        *o++ = b64[x & 63];
    }
    if (i < n) {
        unsigned x = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0);
        *o++ = b64[x >> 18];
        *o++ = b64[(x >> 12) & 63];
        *o++ = i + 1 < n ? b64[(x >> 6) & 63] : '=';
        *o++ = '=';
    }
    b->len += out;
    b->p[b->len] = 0;
}

#ifdef HAVE_LIBDEFLATE
/* One libdeflate compressor per thread and level (its tables are ~1 MB to set
 * up), freed when the thread ends. */
static __thread struct libdeflate_compressor *compressor;
static __thread int compressor_level;
static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;
static void compressor_free(void *c) { libdeflate_free_compressor(c); }
static void compressor_key_make(void) { pthread_key_create(&compressor_key, compressor_free); }

static struct libdeflate_compressor *compressor_for(int level)
{
    if (compressor && compressor_level == level) return compressor;
    pthread_once(&compressor_once, compressor_key_make);
    if (compressor) libdeflate_free_compressor(compressor);
    compressor = libdeflate_alloc_compressor(level);
    compressor_level = level;
    pthread_setspecific(compressor_key, compressor);
    return compressor;
}
#endif

/* zlib's format (DecompressionStream "deflate" reads it): by libdeflate
 * where built with it, else by zlib; level 0: the default, libdeflate's 2
 * (a 400 MB trace's report: 2.3x fewer instructions than zlib's 1, CPU
 * 1162 -> 1082 ms, 13.0 -> 12.5 MB; its 1 is faster still but 14.6 MB),
 * zlib's 1.  The length, or 0 if it did not fit in cap. */
static size_t deflate_zlib(unsigned char *out, size_t cap, const void *bytes, size_t nbytes, int level)
{
#ifdef HAVE_LIBDEFLATE
    struct libdeflate_compressor *c = compressor_for(level ? level : 2);
    if (c) return libdeflate_zlib_compress(c, bytes, nbytes, out, cap);
#endif
    if (!level) level = 1;
    uLongf zlen = cap;
    return compress2(out, &zlen, bytes, nbytes, level) == Z_OK ? zlen : 0;
}

int ml_blob_encode(ml_buf *html, unsigned id, int level, const void *bytes, size_t nbytes)
{
    int z = 0;
    unsigned char *zbuf = NULL;
    size_t zlen = 0;
    if (nbytes >= 256) {
        size_t cap = compressBound(nbytes);
        zbuf = ml_malloc(cap);
        zlen = deflate_zlib(zbuf, cap, bytes, nbytes, level);
        if (zlen && zlen < nbytes - nbytes / 10) z = 1;
    }
    ml_buf_printf(html, "<script type=\"application/x-memlens\" id=\"ml-b%u\">", id);
    if (z) put_base64(html, zbuf, zlen);
    else put_base64(html, bytes, nbytes);
    ml_buf_puts(html, "</script>\n");
    free(zbuf);
    return z;
}

/* While a worker encodes the blobs, a descriptor's ",\"z\":1" is not known
 * yet: it holds ZMARK, the blob id, ZMARK instead, and ml_blobs_finish
 * writes the flag there.  No JSON the report writes holds this byte (its
 * strings escape control characters). */
#define ZMARK '\001'

/* Stores bytes as one blob.  `owned`: bytes were malloc'd for this blob
 * and are the callee's (the worker frees them when done); else they are
 * copied if they must outlive the call. */
static void put_blob(ml_blobs *bl, ml_buf *meta, const char *dt, size_t n, int delta,
                     const void *bytes, size_t nbytes, void *owned, const char *extra)
{
    unsigned id = bl->count++;
    bl->raw_bytes += nbytes;
    ml_buf_printf(meta, "{\"b\":%u,\"dt\":\"%s\",\"n\":%zu%s", id, dt, n, delta ? ",\"d\":1" : "");
    if (bl->q) {
        ml_buf_printf(meta, "%c%u%c%s}", ZMARK, id, ZMARK, extra);
        void *own = owned;
        if (!own) {
            own = ml_malloc(nbytes ? nbytes : 1);
            memcpy(own, bytes, nbytes);
        }
        ml_blobq_push(bl->q, id, bl->level, own, nbytes);
        return;
    }
    int z = ml_blob_encode(&bl->html, id, bl->level, bytes, nbytes);
    ml_buf_printf(meta, "%s%s}", z ? ",\"z\":1" : "", extra);
    free(owned);
}

void ml_blobs_async(ml_blobs *bl)
{
    if (bl->q || bl->capture || !ml_par_allowed()) return;
    bl->q = ml_blobq_start(&bl->html, bl->count, bl->max_pending ? bl->max_pending : ML_BLOBQ_MAX_PENDING);
    if (bl->q) bl->q_first = bl->count;
}

void ml_blobs_finish(ml_blobs *bl, ml_buf *meta)
{
    if (!bl->q) return;
    size_t nz = 0;
    uint8_t *z = ml_blobq_finish(bl->q, &nz);
    bl->q = NULL;
    if (!meta) { free(z); return; }
    /* Rewrites meta with each mark replaced: one pass, marks in any order
     * (a descriptor may have been copied, as the category bands' times). */
    ml_buf out = {0};
    const char *s = meta->p, *end = meta->p + meta->len;
    for (;;) {
        const char *m = s < end ? memchr(s, ZMARK, (size_t)(end - s)) : NULL;
        if (!m) break;
        ml_buf_put(&out, s, (size_t)(m - s));
        char *after;
        unsigned long id = strtoul(m + 1, &after, 10);
        if (after >= end || *after != ZMARK || id < bl->q_first || id - bl->q_first >= nz) {
            ml_fatal("internal error: a column descriptor's mark is broken"); /* a bug: the page would not parse */
        }
        if (z[id - bl->q_first]) ml_buf_puts(&out, ",\"z\":1");
        s = after + 1;
    }
    if (out.p) {
        ml_buf_put(&out, s, (size_t)(end - s));
        ml_buf_free(meta);
        *meta = out;
    }
    free(z);
}

/* Capture mode: keeps a copy of the values as they are. */
static void capture(ml_blobs *bl, ml_buf *meta, char dt, const void *v, size_t n, size_t width)
{
    ml_buf_printf(meta, "{\"b\":%u,\"dt\":\"%s\",\"n\":%zu}", bl->count++,
                  dt == 'i' ? "i64" : dt == 'u' ? "u32" : "u8", n);
    bl->raw_bytes += n * width;
    if (bl->capture == ML_BLOBS_DESCRIBE) return;
    ml_col_raw c = { dt, n, ml_malloc(n ? n * width : 1) };
    if (n) memcpy(c.v, v, n * width);
    VEC_PUSH(&bl->raw, c);
}

void ml_col_i64(ml_blobs *bl, ml_buf *meta, const int64_t *v, size_t n, int try_delta)
{
    if (bl->capture) { capture(bl, meta, 'i', v, n, sizeof *v); return; }
    /* Smallest exact form: i32 deltas from the first value (sorted times,
     * running totals), i32 values, or f64 (exact below 2^53, which covers
     * bytes and relative ns). */
    int delta_ok = try_delta && n > 0, plain_ok = 1;
    for (size_t i = 0; i < n && (delta_ok || plain_ok); i++) {
        if (v[i] < INT32_MIN || v[i] > INT32_MAX) plain_ok = 0;
        if (delta_ok && i) {
            int64_t d = v[i] - v[i - 1];
            if (d < INT32_MIN || d > INT32_MAX) delta_ok = 0;
        }
    }
    if (plain_ok) delta_ok = delta_ok && n > 1; /* deltas only help when they repeat */
    if (delta_ok || plain_ok) {
        int32_t *w = ml_malloc((n ? n : 1) * sizeof *w);
        for (size_t i = 0; i < n; i++)
            w[i] = (int32_t)(delta_ok ? (i ? v[i] - v[i - 1] : 0) : v[i]);
        char extra[48] = "";
        if (delta_ok) snprintf(extra, sizeof extra, ",\"o\":%lld", (long long)v[0]);
        put_blob(bl, meta, "i32", n, delta_ok, w, n * sizeof *w, w, extra);
        return;
    }
    double *f = ml_malloc((n ? n : 1) * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = (double)v[i];
    put_blob(bl, meta, "f64", n, 0, f, n * sizeof *f, f, "");
}

void ml_col_u32(ml_blobs *bl, ml_buf *meta, const uint32_t *v, size_t n)
{
    if (bl->capture) { capture(bl, meta, 'u', v, n, sizeof *v); return; }
    uint32_t mx = 0;
    for (size_t i = 0; i < n; i++) if (v[i] > mx) mx = v[i];
    if (mx <= UINT16_MAX) {
        uint16_t *w = ml_malloc((n ? n : 1) * sizeof *w);
        for (size_t i = 0; i < n; i++) w[i] = (uint16_t)v[i];
        put_blob(bl, meta, "u16", n, 0, w, n * sizeof *w, w, "");
        return;
    }
    put_blob(bl, meta, "u32", n, 0, v, n * sizeof *v, NULL, "");
}

void ml_col_u8(ml_blobs *bl, ml_buf *meta, const uint8_t *v, size_t n)
{
    if (bl->capture) { capture(bl, meta, 'b', v, n, 1); return; }
    put_blob(bl, meta, "u8", n, 0, v, n, NULL, "");
}

void ml_blobs_free(ml_blobs *bl)
{
    ml_blobs_finish(bl, NULL);
    ml_buf_free(&bl->html);
    for (size_t i = 0; i < bl->raw.len; i++) free(bl->raw.v[i].v);
    VEC_FREE(&bl->raw);
    *bl = (ml_blobs){0};
}
