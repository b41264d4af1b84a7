/*
 * report_blob.c — one blob of the report: its bytes byte-shuffled, deflated
 * when that pays off, base64-encoded, in its <script> element (report_blob.h).
 */
#include "report_blob.h"

#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>
#if __has_include(<libdeflate.h>)
#include <libdeflate.h>
#include <pthread.h>
#define HAVE_LIBDEFLATE 1
#endif

#include "err.h"

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

bool ml_blob_shuffled(size_t width, size_t nbytes) { return width > 1 && nbytes >= ML_BLOB_MIN_DEFLATE; }

/* Byte k of value i goes to out[k * n + i]: the planes of a column of
 * numbers, each far more alike within itself than the values are (the high
 * bytes of small numbers are runs of zeros).  A 400 MB trace's report: its
 * blobs deflate to 4.5 MB, not 8.0, in a fifth less time. */
static void shuffle(unsigned char *out, const unsigned char *in, size_t width, size_t n)
{
    /* the columns' widths with a pointer a plane: one pass over the values */
    unsigned char *o[8];
    if (width == 2 || width == 4 || width == 8) {
        for (size_t k = 0; k < width; k++) o[k] = out + k * n;
        if (width == 2)
            for (size_t i = 0; i < n; i++, in += 2) o[0][i] = in[0], o[1][i] = in[1];
        else if (width == 4)
            for (size_t i = 0; i < n; i++, in += 4) o[0][i] = in[0], o[1][i] = in[1], o[2][i] = in[2], o[3][i] = in[3];
        else
            for (size_t i = 0; i < n; i++, in += 8) {
                o[0][i] = in[0], o[1][i] = in[1], o[2][i] = in[2], o[3][i] = in[3];
                o[4][i] = in[4], o[5][i] = in[5], o[6][i] = in[6], o[7][i] = in[7];
            }
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < width; k++) out[k * n + i] = in[i * width + k];
}

/* The planes of n values but those in zero_planes (all zero, left out):
 * into out, in order; returns their bytes. */
static size_t planes_of(unsigned char *out, const unsigned char *in, size_t width, unsigned zero_planes, size_t n)
{
    if (!zero_planes) {
        shuffle(out, in, width, n);
        return width * n;
    }
    size_t kept = 0;
    for (size_t k = 0; k < width; k++) {
        if (zero_planes >> k & 1) continue;
        unsigned char *o = out + kept++ * n;
        const unsigned char *b = in + k;
        for (size_t i = 0; i < n; i++, b += width) o[i] = *b;
    }
    return kept * n;
}

/* At least n bytes of one of s's buffers (its contents not kept). */
static unsigned char *room(unsigned char **buf, size_t *cap, size_t n)
{
    if (*cap < n) {
        free(*buf);
        *buf = ml_malloc(n);
        *cap = n;
    }
    return *buf;
}

void ml_blob_scratch_free(ml_blob_scratch *s)
{
    free(s->planes);
    free(s->z);
    *s = (ml_blob_scratch){0};
}

int ml_blob_encode(ml_blob_scratch *s, ml_buf *html, unsigned id, int level, size_t width, unsigned zero_planes,
                   const void *bytes, size_t nbytes)
{
    int z = 0;
    size_t zlen = 0;
    if (ml_blob_shuffled(width, nbytes)) {
        unsigned char *planes = room(&s->planes, &s->planes_cap, nbytes);
        nbytes = planes_of(planes, bytes, width, zero_planes, nbytes / width);
        bytes = planes;
    }
    if (nbytes >= ML_BLOB_MIN_DEFLATE) {
        size_t cap = compressBound(nbytes);
        zlen = deflate_zlib(room(&s->z, &s->z_cap, cap), cap, bytes, nbytes, level);
        if (zlen && zlen < nbytes - nbytes / 10) z = 1;
    }
    ml_buf_printf(html, "<script type=\"application/x-memlens\" id=\"ml-b%u\">", id);
    if (z) put_base64(html, s->z, zlen);
    else put_base64(html, bytes, nbytes);
    ml_buf_puts(html, "</script>\n");
    return z;
}
