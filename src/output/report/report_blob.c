/*
 * report_blob.c — one blob of the report: its bytes byte-shuffled, deflated
 * when that pays off, base64-encoded, in its <script> element (report_blob.h).
 * Leading planes as good as random (the low bytes of times and durations) go
 * into the zlib stream as stored blocks, not through deflate's match search.
 */
#include "report_blob.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if __has_include(<libdeflate.h>)
#include <libdeflate.h>
#include <pthread.h>
#define HAVE_LIBDEFLATE 1
#endif

#include "err.h"
#include "report_lz.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The two characters of each 12 bits (a 3-byte group is two look-ups, not
 * four), a constant table: B64_CHAR is b64[] as arithmetic. */
#define B64_CHAR(v) \
    ((v) < 26 ? 'A' + (v) : (v) < 52 ? 'a' + (v) - 26 : (v) < 62 ? '0' + (v) - 52 : (v) == 62 ? '+' : '/')
#define B64_P1(i) {B64_CHAR((i) >> 6), B64_CHAR((i) & 63)},
#define B64_P4(i) B64_P1(i) B64_P1((i) + 1) B64_P1((i) + 2) B64_P1((i) + 3)
#define B64_P16(i) B64_P4(i) B64_P4((i) + 4) B64_P4((i) + 8) B64_P4((i) + 12)
#define B64_P64(i) B64_P16(i) B64_P16((i) + 16) B64_P16((i) + 32) B64_P16((i) + 48)
#define B64_P256(i) B64_P64(i) B64_P64((i) + 64) B64_P64((i) + 128) B64_P64((i) + 192)
#define B64_P1024(i) B64_P256(i) B64_P256((i) + 256) B64_P256((i) + 512) B64_P256((i) + 768)
static const char b64_pairs[4096][2] = {B64_P1024(0) B64_P1024(1024) B64_P1024(2048) B64_P1024(3072)};
#undef B64_P1
#undef B64_P4
#undef B64_P16
#undef B64_P64
#undef B64_P256
#undef B64_P1024
#undef B64_CHAR

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
    for (; i + 4 <= n; i += 3, o += 4) { /* 4 bytes read, the group's 3 kept */
        uint32_t x;
        memcpy(&x, s + i, 4);
        x = __builtin_bswap32(x) >> 8;
        memcpy(o, b64_pairs[x >> 12], 2);
        memcpy(o + 2, b64_pairs[x & 4095], 2);
    }
    for (; i + 3 <= n; i += 3, o += 4) {
        unsigned x = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
        memcpy(o, b64_pairs[x >> 12], 2);
        memcpy(o + 2, b64_pairs[x & 4095], 2);
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
/* libdeflate's compressors of one thread, one per level asked for (its
 * tables are ~1 MB to set up; a blob may take level 1 and the next level 2),
 * freed when the thread ends. */
typedef struct compressors {
    struct libdeflate_compressor *c[2];
    int level[2];
} compressors;
static __thread compressors *thread_compressors;
static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;
static void compressors_free(void *p)
{
    compressors *cs = p;
    for (int k = 0; k < 2; k++)
        if (cs->c[k]) libdeflate_free_compressor(cs->c[k]);
    free(cs);
}
static void compressor_key_make(void) { pthread_key_create(&compressor_key, compressors_free); }

static struct libdeflate_compressor *compressor_for(int level)
{
    if (!level) level = 2; /* (the default: see zlib_level) */
    compressors *cs = thread_compressors;
    if (!cs) {
        pthread_once(&compressor_once, compressor_key_make);
        cs = thread_compressors = ml_calloc(1, sizeof *cs);
        pthread_setspecific(compressor_key, cs);
    }
    for (int k = 0; k < 2; k++)
        if (cs->c[k] && cs->level[k] == level) return cs->c[k];
    /* a third level: the older of the two makes room (the newer moves up) */
    if (cs->c[1]) libdeflate_free_compressor(cs->c[1]);
    cs->c[1] = cs->c[0], cs->level[1] = cs->level[0];
    cs->c[0] = libdeflate_alloc_compressor(level);
    cs->level[0] = level;
    return cs->c[0];
}
#endif

/* zlib's level for the one asked for, 0: the default, libdeflate's 2 or 1
 * (default_level; its 2 against zlib's 1 on a 400 MB trace's
 * report: 2.3x fewer instructions than zlib's 1, CPU 1162 -> 1082 ms, 13.0 ->
 * 12.5 MB; its 1 is faster still but 14.6 MB), zlib's 1. */
static int zlib_level(int level) { return level ? level : 1; }

/* The level that asks for report_lz.c's encoder (default_level). */
#define LEVEL_LZ (-1)

/* Raw deflate (no zlib header or trailer) of n bytes into out: report_lz's
 * at LEVEL_LZ, else libdeflate's where built with it, else zlib's; the
 * length, or 0 if it did not fit. */
static size_t deflate_raw(ml_blob_scratch *s, unsigned char *out, size_t cap, const unsigned char *bytes, size_t n,
                          int level)
{
    if (level == LEVEL_LZ) return ml_lz_deflate(&s->lz, out, cap, bytes, n);
#ifdef HAVE_LIBDEFLATE
    struct libdeflate_compressor *c = compressor_for(level);
    if (c) return libdeflate_deflate_compress(c, bytes, n, out, cap);
#endif
    z_stream z = {0};
    if (deflateInit2(&z, zlib_level(level), Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    z.next_in = (unsigned char *)bytes, z.avail_in = (uInt)n;
    z.next_out = out, z.avail_out = (uInt)cap;
    size_t len = deflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : 0;
    deflateEnd(&z);
    return len;
}

/* zlib's format (DecompressionStream "deflate" reads it) of nbytes, the first
 * `stored` of them kept as they are (stored blocks, not final, each
 * byte-aligned: the deflated rest's blocks follow them), the rest deflated
 * by deflate_raw.  The length, or 0 if it did not fit in cap. */
static size_t deflate_zlib(ml_blob_scratch *s, unsigned char *out, size_t cap, const unsigned char *bytes,
                           size_t nbytes, size_t stored, int level)
{
    if (!stored && level != LEVEL_LZ) { /* the library's own stream */
#ifdef HAVE_LIBDEFLATE
        struct libdeflate_compressor *c = compressor_for(level);
        if (c) return libdeflate_zlib_compress(c, bytes, nbytes, out, cap);
#endif
        uLongf zlen = cap;
        return compress2(out, &zlen, bytes, nbytes, zlib_level(level)) == Z_OK ? zlen : 0;
    }
    size_t blocks = (stored + 65534) / 65535, o = 0;
    if (cap < 2 + stored + 5 * blocks + 4) return 0;
    out[o++] = 0x78, out[o++] = 0x01; /* deflate, 32 KB window, no dictionary */
    for (size_t at = 0; at < stored;) {
        size_t len = stored - at < 65535 ? stored - at : 65535;
        out[o++] = 0; /* BFINAL 0, BTYPE 00 (stored), the rest of the byte padding */
        out[o++] = (unsigned char)len, out[o++] = (unsigned char)(len >> 8);
        out[o++] = (unsigned char)~len, out[o++] = (unsigned char)(~len >> 8);
        memcpy(out + o, bytes + at, len);
        o += len, at += len;
    }
    size_t z = deflate_raw(s, out + o, cap - o - 4, bytes + stored, nbytes - stored, level);
    if (!z) return 0;
    o += z;
#ifdef HAVE_LIBDEFLATE
    uint32_t a = libdeflate_adler32(1, bytes, nbytes);
#else
    uint32_t a = (uint32_t)adler32(1, bytes, (uInt)nbytes);
#endif
    out[o++] = (unsigned char)(a >> 24), out[o++] = (unsigned char)(a >> 16);
    out[o++] = (unsigned char)(a >> 8), out[o++] = (unsigned char)a;
    return o;
}

/* Planes of at least this many bytes are tested for being as good as random. */
#define RANDOM_PLANE_MIN 4096

/* The share of the first (up to) 8 KB of b that repeats earlier bytes there
 * (runs of 4 bytes or more, found as deflate would: through a hash of 4
 * bytes), in 1/1024ths. */
static unsigned repeats(const unsigned char *b, size_t n)
{
    enum { SAMPLE = 8192, HBITS = 12 };
    uint16_t last[1 << HBITS];
    memset(last, 0xff, sizeof last);
    if (n > SAMPLE) n = SAMPLE;
    size_t matched = 0;
    for (size_t i = 0; i + 4 <= n;) {
        uint32_t x;
        memcpy(&x, b + i, 4);
        uint32_t h = (x * 2654435761u) >> (32 - HBITS);
        size_t j = last[h];
        last[h] = (uint16_t)i;
        if (j != 0xffff && !memcmp(b + j, b + i, 4)) {
            size_t len = 4;
            for (; i + len + 8 <= n; len += 8) { /* 8 bytes a compare (little-endian: the first differing is the lowest) */
                uint64_t p, q;
                memcpy(&p, b + j + len, 8);
                memcpy(&q, b + i + len, 8);
                if (p != q) break;
            }
            while (i + len < n && b[j + len] == b[i + len]) len++;
            matched += len, i += len;
        } else {
            i++;
        }
    }
    return (unsigned)(matched * 1024 / n);
}

/* Whether n bytes are as good as random for deflate, which would save under
 * a tenth of them (as the planes of the low bytes of times): their order-0
 * entropy at least 7.5 bits a byte (a Huffman code saves under 6 %) and
 * under 1/16 of them repeats (matches).  The first 256 bytes' distinct
 * values are counted first (random bytes: some 162): most planes fail there. */
static bool plane_random(const unsigned char *b, size_t n)
{
    uint64_t seen[4] = {0};
    for (size_t i = 0; i < 256; i++) seen[b[i] >> 6] |= 1ull << (b[i] & 63);
    if (__builtin_popcountll(seen[0]) + __builtin_popcountll(seen[1]) + __builtin_popcountll(seen[2]) +
            __builtin_popcountll(seen[3]) < 128)
        return false;
    uint32_t h[4][256];
    memset(h, 0, sizeof h);
    size_t head = 1024, i = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t end = pass ? n : head;
        for (; i + 4 <= end; i += 4) h[0][b[i]]++, h[1][b[i + 1]]++, h[2][b[i + 2]]++, h[3][b[i + 3]]++;
        for (; i < end; i++) h[0][b[i]]++;
        double sum = 0;
        for (int c = 0; c < 256; c++) {
            uint32_t k = h[0][c] + h[1][c] + h[2][c] + h[3][c];
            if (k) sum += k * log2((double)k);
        }
        double bits = log2((double)end) - sum / (double)end;
        /* the head's estimate runs low (1 KB of random bytes: ~7.8) */
        if (bits < (pass ? 7.5 : 7.2)) return false;
    }
    return repeats(b, n) < 1024 / 16;
}

/* How many of the leading planes (n bytes each, of nplanes) are random. */
static size_t random_planes(const unsigned char *b, size_t nplanes, size_t n)
{
    size_t k = 0;
    if (n < RANDOM_PLANE_MIN) return 0;
    while (k < nplanes && plane_random(b + k * n, n)) k++;
    return k;
}

/* The default level's choice for planes [from, nplanes) (n bytes each) of
 * a blob: libdeflate's 1 where every one is nearly all repeats (in its first
 * 8 KB: the high bytes of values, runs) or has few of them (low bytes): its
 * 2 finds little more there (a 40 MB trace's report: 0.8 % more bytes of
 * blobs) at twice the instructions a byte; else its 2, which saves up to a
 * third on the planes between (a slowly changing byte).  Where every plane
 * is at least 97 % repeats, report_lz.c's encoder (LEVEL_LZ): libdeflate's
 * match finders hash each byte inside a match too, 12 instructions a byte
 * of them; it takes 2 to 7, and as few bytes on such planes (a 40 MB
 * trace's report: -17 M instructions, -5.3 KB). */
static int default_level(const unsigned char *b, size_t from, size_t nplanes, size_t n)
{
#ifdef HAVE_LIBDEFLATE
    bool all_repeats = true;
    for (size_t k = from; k < nplanes; k++) {
        unsigned r = repeats(b + k * n, n);
        if (r > 1024 * 65 / 100 && r < 1024 * 95 / 100) return 2;
        if (r < 1024 * 97 / 100) all_repeats = false;
    }
    return all_repeats ? LEVEL_LZ : 1;
#else
    (void)b, (void)from, (void)nplanes, (void)n;
    return 0; /* (zlib's 1) */
#endif
}

bool ml_blob_shuffled(size_t width, size_t nbytes) { return width > 1 && nbytes >= ML_BLOB_MIN_DEFLATE; }

/* Byte k of value i goes to plane k, at out[kept * n + i] where kept is the
 * number of planes before k not in zero_planes (those, all zero, are left
 * out): the planes of a column of numbers, each far more alike within
 * itself than the values are (the high bytes of small numbers are runs of
 * zeros).  A 400 MB trace's report: its blobs deflate to 4.5 MB, not 8.0, in
 * a fifth less time.  Returns the bytes written. */
static size_t planes_of(unsigned char *out, const unsigned char *in, size_t width, unsigned zero_planes, size_t n)
{
    unsigned char *o[8];
    size_t kept = 0;
    for (size_t k = 0; k < width && k < 8; k++) o[k] = zero_planes >> k & 1 ? NULL : out + kept++ * n;
    size_t i = 0;
#ifdef __SSE2__
    /* 16 values at a time, transposed by byte unpacks: after three rounds
     * of them each register holds two planes' 8 bytes. */
    if (width == 4)
        for (; i + 16 <= n; i += 16, in += 64) {
            __m128i x0 = _mm_loadu_si128((const __m128i *)in), x1 = _mm_loadu_si128((const __m128i *)(in + 16));
            __m128i x2 = _mm_loadu_si128((const __m128i *)(in + 32)), x3 = _mm_loadu_si128((const __m128i *)(in + 48));
            __m128i t0 = _mm_unpacklo_epi8(x0, x1), t1 = _mm_unpackhi_epi8(x0, x1);
            __m128i t2 = _mm_unpacklo_epi8(x2, x3), t3 = _mm_unpackhi_epi8(x2, x3);
            __m128i u0 = _mm_unpacklo_epi8(t0, t1), u1 = _mm_unpackhi_epi8(t0, t1);
            __m128i u2 = _mm_unpacklo_epi8(t2, t3), u3 = _mm_unpackhi_epi8(t2, t3);
            __m128i w0 = _mm_unpacklo_epi8(u0, u1), w1 = _mm_unpackhi_epi8(u0, u1); /* values 0-7: planes 0 1, 2 3 */
            __m128i w2 = _mm_unpacklo_epi8(u2, u3), w3 = _mm_unpackhi_epi8(u2, u3); /* values 8-15 */
            if (o[0]) _mm_storeu_si128((__m128i *)(o[0] + i), _mm_unpacklo_epi64(w0, w2));
            if (o[1]) _mm_storeu_si128((__m128i *)(o[1] + i), _mm_unpackhi_epi64(w0, w2));
            if (o[2]) _mm_storeu_si128((__m128i *)(o[2] + i), _mm_unpacklo_epi64(w1, w3));
            if (o[3]) _mm_storeu_si128((__m128i *)(o[3] + i), _mm_unpackhi_epi64(w1, w3));
        }
    else if (width == 2)
        for (; i + 16 <= n; i += 16, in += 32) {
            __m128i x0 = _mm_loadu_si128((const __m128i *)in), x1 = _mm_loadu_si128((const __m128i *)(in + 16));
            __m128i lo = _mm_set1_epi16(0xff);
            if (o[0]) _mm_storeu_si128((__m128i *)(o[0] + i), _mm_packus_epi16(_mm_and_si128(x0, lo), _mm_and_si128(x1, lo)));
            if (o[1]) _mm_storeu_si128((__m128i *)(o[1] + i), _mm_packus_epi16(_mm_srli_epi16(x0, 8), _mm_srli_epi16(x1, 8)));
        }
#endif
    for (; i < n; i++, in += width)
        for (size_t k = 0; k < width; k++)
            if (o[k]) o[k][i] = in[k];
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
    ml_lz_state_free(&s->lz);
    *s = (ml_blob_scratch){0};
}

int ml_blob_encode(ml_blob_scratch *s, ml_buf *html, unsigned id, int level, size_t width, unsigned zero_planes,
                   const void *bytes, size_t nbytes)
{
    int z = 0;
    size_t zlen = 0, plane = nbytes; /* bytes a plane (a blob not shuffled: one) */
    if (ml_blob_shuffled(width, nbytes)) {
        unsigned char *planes = room(&s->planes, &s->planes_cap, nbytes);
        plane = nbytes / width;
        nbytes = planes_of(planes, bytes, width, zero_planes, plane);
        bytes = planes;
    }
    if (nbytes >= ML_BLOB_MIN_DEFLATE) {
        size_t nplanes = nbytes / plane, nstored = random_planes(bytes, nplanes, plane), stored = nstored * plane;
        size_t cap = compressBound(nbytes);
        if (stored < nbytes) { /* (else nothing to deflate) */
            if (!level) level = default_level(bytes, nstored, nplanes, plane);
            zlen = deflate_zlib(s, room(&s->z, &s->z_cap, cap), cap, bytes, nbytes, stored, level);
        }
        if (zlen && zlen < nbytes - nbytes / 10) z = 1;
    }
    ml_buf_printf(html, "<script type=\"application/x-memlens\" id=\"ml-b%u\">", id);
    if (z) put_base64(html, s->z, zlen);
    else put_base64(html, bytes, nbytes);
    ml_buf_puts(html, "</script>\n");
    return z;
}
